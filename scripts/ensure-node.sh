#!/usr/bin/env bash
# Prints the path of a Node 24+ binary. When the node on PATH is older, installs the `node@24`
# package from the npm registry into a cache outside the repository (HARNESS_NODE_HOME,
# default ~/.cache/harness/node24) once, and prints that binary instead.
set -euo pipefail

# `node --version` prints before the runtime boots, so this costs a few milliseconds.
major() { local v; v="$("$1" --version 2>/dev/null)" || { echo 0; return; }; v="${v#v}"; echo "${v%%.*}"; }

if command -v node >/dev/null 2>&1 && [ "$(major node)" -ge 24 ]; then
  command -v node
  exit 0
fi

home="${HARNESS_NODE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/harness/node24}"
bin="$home/node_modules/node/bin/node"
if [ -x "$bin" ] && [ "$(major "$bin")" -ge 24 ]; then
  echo "$bin"
  exit 0
fi

mkdir -p "$home"
. "$(dirname "${BASH_SOURCE[0]}")/lock.sh"
(
  hold_lock "$home/.lock"
  if ! [ -x "$bin" ] || [ "$(major "$bin")" -lt 24 ]; then
    echo "harness: the node on PATH is older than 24; installing node@24 into $home" >&2
    [ -f "$home/package.json" ] || echo '{"name":"harness-node24","private":true}' > "$home/package.json"
    npm install --prefix "$home" --no-audit --no-fund --loglevel=error node@24 >&2
  fi
)

if ! [ -x "$bin" ] || [ "$(major "$bin")" -lt 24 ]; then
  echo "harness: could not install Node 24 from the npm registry (package node@24)" >&2
  exit 1
fi
echo "$bin"
