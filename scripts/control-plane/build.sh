#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok from the
# Go module proxy into a cache outside the repository, keyed by version, and reuses what
# is already there. Each component is built in its own throw-away module so that their
# dependency graphs are never merged.
#
#   scripts/control-plane/build.sh          # prints the bin directory on the last line
#
# Environment: KUBE_PROVISIONER_CACHE (default ~/.cache/kube-provisioner).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"

cache=${KUBE_PROVISIONER_CACHE:-$HOME/.cache/kube-provisioner}
bin="$cache/bin-k8s-$KUBERNETES_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION"
mkdir -p "$bin"

# Two clusters starting at once must not build the same cache twice: serialize runs.
exec 9>"$cache/.build.lock"
flock 9

export CGO_ENABLED=0
export GOFLAGS=-mod=mod

log() { printf '[build] %s\n' "$*" >&2; }

timed() {
  local what=$1; shift
  local start=$SECONDS
  "$@"
  log "$what built in $((SECONDS - start))s"
}

scratch_module() {
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/kp-build-$1.XXXXXX")
  printf 'module kpbuild/%s\n\ngo 1.26\n' "$1" > "$dir/go.mod"
  echo "$dir"
}

build_kubernetes() {
  local dir version=$KUBERNETES_VERSION staging=${KUBERNETES_VERSION/v1./v0.}
  dir=$(scratch_module kubernetes)
  # k8s.io/kubernetes requires its staging modules at v0.0.0 and relies on replace
  # directives a dependent module ignores (kubernetes#79384): pin each to the release.
  local modfile
  modfile=$(cd "$dir" && go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  {
    printf 'require k8s.io/kubernetes %s\n' "$version"
    grep -E '^\s+k8s\.io/[a-z0-9-]+ v0\.0\.0$' "$modfile" | awk -v v="$staging" '{ printf "replace %s => %s %s\n", $1, $1, v }'
  } >> "$dir/go.mod"
  local major minor
  major=$(echo "$version" | sed -E 's/^v([0-9]+)\..*/\1/')
  minor=$(echo "$version" | sed -E 's/^v[0-9]+\.([0-9]+)\..*/\1/')
  local pkg=k8s.io/component-base/version
  (cd "$dir" && go build -trimpath -o "$bin/" \
    -ldflags "-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean" \
    k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler)
  rm -rf "$dir"
}

build_etcd() {
  local dir
  dir=$(scratch_module etcd)
  printf 'require go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" >> "$dir/go.mod"
  (cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$bin/etcd" go.etcd.io/etcd/server/v3)
  rm -rf "$dir"
}

build_kwok() {
  local dir
  dir=$(scratch_module kwok)
  printf 'require sigs.k8s.io/kwok %s\n' "$KWOK_VERSION" >> "$dir/go.mod"
  (cd "$dir" && go build -trimpath -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION" -o "$bin/kwok" sigs.k8s.io/kwok/cmd/kwok)
  rm -rf "$dir"
}

missing() { for f in "$@"; do [ -x "$bin/$f" ] || return 0; done; return 1; }

if missing etcd; then timed "etcd $ETCD_VERSION" build_etcd; else log "etcd $ETCD_VERSION cached"; fi
if missing kwok; then timed "kwok $KWOK_VERSION" build_kwok; else log "kwok $KWOK_VERSION cached"; fi
if missing kube-apiserver kube-controller-manager kube-scheduler; then
  timed "kubernetes $KUBERNETES_VERSION" build_kubernetes
else
  log "kubernetes $KUBERNETES_VERSION cached"
fi

echo "$bin"
