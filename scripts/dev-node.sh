#!/usr/bin/env bash
# Runs `node ARGS...` for the development scripts (demo, cluster, benchmarks, integration
# tests), which load the sources: there @kubernetes/client-node 2 loads undici, and undici
# needs Node 22.19 or later. The built package (dist/) does not (it carries a stand-in for
# undici), so it still runs on Node 20.19. On an older Node this uses Node 24 (the line
# Manager runs), installed once from the npm registry.
set -euo pipefail
cd "$(dirname "$0")/.."
if node -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 22 || (major === 22 && minor >= 19) ? 0 : 1)'; then
  exec node "$@"
fi
source scripts/node-binary.sh
node24="$(node_binary 24)"
echo "== Node $(node --version) is older than 22.19, which the sources need; running on Node $("$node24" --version)" >&2
exec "$node24" "$@"
