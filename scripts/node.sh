#!/usr/bin/env bash
# Runs Node 24 with the given arguments, after making sure Node 24 and the dependencies are in place.
# Node 24's directory goes first on PATH so that child processes started as `node` get it too.
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
node_bin="$("$root/scripts/ensure-node.sh")"
"$root/scripts/ensure-deps.sh"
export PATH="$(dirname "$node_bin"):$PATH"
exec "$node_bin" "$@"
