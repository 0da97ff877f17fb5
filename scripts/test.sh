#!/usr/bin/env bash
# The project's whole test suite: type check, then every unit and end-to-end test under Node 24.
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$root"
node="$root/scripts/node.sh"
"$root/scripts/ensure-test-tools.sh"
echo "== type check (tsc --noEmit)"
"$node" node_modules/typescript/bin/tsc --noEmit -p .
# The startup bundles of the `harness` command and the runner, written now if stale: every process
# the tests start then loads the same code (packages/startup). The tests still pass without them,
# from the sources.
"$node" packages/startup/src/build-main.ts --wait || echo "harness: the tests run the CLI and the runner from their sources" >&2
echo "== tests"
if [ "$#" -gt 0 ]; then
  exec "$node" --test --test-concurrency=2 "$@"
fi
exec "$node" --test --test-concurrency=2 --test-timeout=120000 \
  'packages/*/src/**/*.test.ts' 'test/**/*.test.ts'
