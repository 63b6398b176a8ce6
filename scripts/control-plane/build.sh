#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok from the
# Go module proxy into a cache outside the repository, keyed by version, and reuses what
# is already there. Each component is built in its own throw-away module so that their
# dependency graphs are never merged.
#
#   scripts/control-plane/build.sh            # prints the bin directory on the last line
#   scripts/control-plane/build.sh real-node  # the real node's programs instead: kubelet and
#                                             # kube-proxy (the same Kubernetes module), our
#                                             # image registry, pause program and OCI runtime
#                                             # wrapper, and the system containers' root
#                                             # filesystems (real-node/)
#
# Environment: KUBE_PROVISIONER_CACHE (default ~/.cache/kube-provisioner).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"

target=${1:-control-plane}
case "$target" in
  control-plane | real-node) ;;
  *) echo "usage: build.sh [control-plane|real-node]" >&2; exit 2 ;;
esac

cache=${KUBE_PROVISIONER_CACHE:-$HOME/.cache/kube-provisioner}
mkdir -p "$cache"

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

# build_kubernetes <out dir> <command>...: commands of k8s.io/kubernetes/cmd.
build_kubernetes() {
  local out=$1; shift
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
  local packages=()
  for command in "$@"; do packages+=("k8s.io/kubernetes/cmd/$command"); done
  (cd "$dir" && go build -trimpath -o "$out/" \
    -ldflags "-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean" \
    "${packages[@]}")
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

# build_ours <out dir> <name> [requirement]: one of our programs in real-node/<name>/,
# rebuilt whenever its source (or the requirement) changes: a stamp file records both.
build_ours() {
  local out=$1 name=$2 requirement=${3:-}
  local source="$here/real-node/$name/main.go"
  local stamp
  stamp=$( (cat "$source"; echo "$requirement") | sha256sum | cut -c1-16)
  if [ -x "$out/$name" ] && [ "$(cat "$out/$name.stamp" 2>/dev/null)" = "$stamp" ]; then
    log "$name cached"
    return
  fi
  local dir start=$SECONDS
  dir=$(scratch_module "$name")
  cp "$source" "$dir/main.go"
  [ -z "$requirement" ] || printf 'require %s\n' "$requirement" >> "$dir/go.mod"
  (cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$out/$name" .)
  rm -rf "$dir"
  echo "$stamp" > "$out/$name.stamp"
  log "$name built in $((SECONDS - start))s"
}

# build_system_image <bin dir> <suite>: a system container's root filesystem
# (real-node/system-image.sh) as a gzip layer with its diff id, in a dir keyed by a hash of
# the recipe; <bin dir>/system-image-<suite> points at it.
build_system_image() {
  local out=$1 suite=$2
  local recipe="$here/real-node/system-image.sh"
  local stamp dir
  stamp=$(sha256sum "$recipe" | cut -c1-16)
  dir="$cache/system-image-$suite-$stamp"
  if [ -s "$dir/layer.tar.gz" ] && [ -s "$dir/diff-id" ]; then
    log "system image $suite cached"
  else
    local start=$SECONDS scratch
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/kp-build-system-$suite.XXXXXX")
    bash "$recipe" "$suite" "$scratch/layer.tar"
    echo "sha256:$(sha256sum "$scratch/layer.tar" | cut -d' ' -f1)" > "$scratch/diff-id"
    gzip -n "$scratch/layer.tar"
    rm -rf "$dir"
    mkdir -p "$dir"
    mv "$scratch/layer.tar.gz" "$scratch/diff-id" "$dir/"
    rm -rf "$scratch"
    log "system image $suite built in $((SECONDS - start))s"
  fi
  ln -sfn "$dir" "$out/system-image-$suite"
}

missing() {
  local dir=$1; shift
  for f in "$@"; do [ -x "$dir/$f" ] || return 0; done
  return 1
}

if [ "$target" = real-node ]; then
  bin="$cache/real-node-k8s-$KUBERNETES_VERSION-ggcr-$GO_CONTAINERREGISTRY_VERSION"
  mkdir -p "$bin"
  if missing "$bin" kubelet kube-proxy; then
    timed "kubelet and kube-proxy $KUBERNETES_VERSION" build_kubernetes "$bin" kubelet kube-proxy
  else
    log "kubelet and kube-proxy $KUBERNETES_VERSION cached"
  fi
  build_ours "$bin" registry "github.com/google/go-containerregistry $GO_CONTAINERREGISTRY_VERSION"
  build_ours "$bin" pause
  build_ours "$bin" cgroup-writable
  build_system_image "$bin" bookworm
  build_system_image "$bin" trixie
  echo "$bin"
  exit 0
fi

bin="$cache/bin-k8s-$KUBERNETES_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION"
mkdir -p "$bin"
if missing "$bin" etcd; then timed "etcd $ETCD_VERSION" build_etcd; else log "etcd $ETCD_VERSION cached"; fi
if missing "$bin" kwok; then timed "kwok $KWOK_VERSION" build_kwok; else log "kwok $KWOK_VERSION cached"; fi
if missing "$bin" kube-apiserver kube-controller-manager kube-scheduler; then
  timed "kubernetes $KUBERNETES_VERSION" build_kubernetes "$bin" kube-apiserver kube-controller-manager kube-scheduler
else
  log "kubernetes $KUBERNETES_VERSION cached"
fi

echo "$bin"
