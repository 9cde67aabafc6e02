# Sourced by the benches that time node's start-up: sets `nodes` to "major=path" pairs, the machine's
# node first, then the majors of NODE_VERSIONS (default 24) from the `node` package on npm (it ships
# the binary), installed under bench/.node only: CI stays on the machine's. Needs `here` (bench/).
nodes=("$(node -p 'process.versions.node.split(".")[0]')=$(command -v node)")
for major in ${NODE_VERSIONS-24}; do
  dir="$here/.node/$major"
  if [ ! -x "$dir/node_modules/node/bin/node" ]; then
    npm install --silent --no-audit --no-fund --prefix "$dir" "node@$major" >/dev/null 2>&1 || { echo "node@$major could not be installed: its rows are left out" >&2; continue; }
  fi
  nodes+=("$major=$dir/node_modules/node/bin/node")
done
