#!/usr/bin/env bash
# The project's whole test suite: type check, then every unit and end-to-end test under Node 24.
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$root"
node="$root/scripts/node.sh"
"$root/scripts/ensure-sandbox.sh"
echo "== type check (tsc --noEmit)"
"$node" node_modules/typescript/bin/tsc --noEmit -p .
# The `harness` command's startup bundle, written now if stale: every process the tests start then
# loads the same code (packages/cli/src/bundle). The tests still pass without it, from the sources.
"$node" packages/cli/src/bundle/build-main.ts --wait || echo "harness: the tests run the CLI from its sources" >&2
echo "== tests"
if [ "$#" -gt 0 ]; then
  exec "$node" --test --test-concurrency=2 "$@"
fi
exec "$node" --test --test-concurrency=2 --test-timeout=120000 \
  'packages/*/src/**/*.test.ts' 'test/**/*.test.ts'
