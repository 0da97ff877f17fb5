#!/usr/bin/env bash
# Installs the workspace's npm dependencies when node_modules is missing or older than
# package-lock.json, so that `npm start` and `npm test` work on a fresh clone.
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$root"
stamp="node_modules/.harness-deps"
want="$(cat package.json package-lock.json 2>/dev/null | cksum || true)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
. "$root/scripts/lock.sh"
(
  hold_lock "${TMPDIR:-/tmp}/harness-deps-$(echo "$root" | cksum | cut -d' ' -f1).lock"
  if ! [ -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "harness: installing dependencies" >&2
    if [ -f package-lock.json ]; then
      npm ci --no-audit --no-fund --loglevel=error >&2
    else
      npm install --no-audit --no-fund --loglevel=error >&2
    fi
    mkdir -p node_modules
    echo "$want" > "$stamp"
  fi
)
