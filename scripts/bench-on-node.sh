#!/usr/bin/env bash
# Runs the benchmark (`npm run bench`) on another Node line than the machine's, for the commit at HEAD, and
# writes its results into this checkout's bench/ folder (results/, history.jsonl, README.md).
#
#   bash scripts/bench-on-node.sh 26 -- --data-dir .tmp/bench/worlds/scale-1-seed-1 --peer postgres
#
# Why: package.json's engines admit the maintained LTS lines only (22, 24, 26), while this machine's own
# node is 20, past its end of life. A benchmark of Node 20 measures a runtime we do not ship on: on the
# same code and host, Node 26 took 10-20% less of the server's CPU per search (bench/README.md).
#
# 1. Node comes from scripts/fetch-node.sh (the newest release of the line, cached).
# 2. A git worktree of HEAD in ${REGDATA_BENCH_TREE:-${TMPDIR:-/tmp}/regdata-bench-node<line>}, detached, so
#    the result names the commit it measured. Uncommitted changes are not in it: commit them first.
# 3. `npm ci` there with that Node first on PATH (native modules compile against its headers, as in
#    scripts/test-on-node.sh), only when package-lock.json changed since the last install; dist/ is built.
# 4. `npm run bench` there, with --data-dir made absolute and --output-root pointing here. The worktree is
#    kept for the next run (`git worktree remove` drops it).
set -euo pipefail
cd "$(dirname "$0")/.."
HERE="$PWD"

LINE="${1:?usage: bench-on-node.sh <major line, e.g. 26> [-- bench options]}"
[[ "$LINE" =~ ^[0-9]+$ ]] || { echo "bench-on-node: the line is a major version number, e.g. 26" >&2; exit 2; }
shift
[ "${1:-}" = "--" ] && shift

ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --data-dir) ARGS+=("$1" "$(realpath "${2:?--data-dir needs a folder}")"); shift 2 ;;
    --data-dir=*) ARGS+=("--data-dir" "$(realpath "${1#--data-dir=}")"); shift ;;
    --output-root*) echo "bench-on-node: results go to $HERE/bench; --output-root is set here" >&2; exit 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "bench-on-node: uncommitted changes are not benchmarked (the worktree is HEAD, $(git rev-parse --short HEAD))" >&2
fi

NODE_DIR="$(bash scripts/fetch-node.sh "$LINE")"
TREE="${REGDATA_BENCH_TREE:-${TMPDIR:-/tmp}/regdata-bench-node$LINE}"
if [ -d "$TREE/.git" ] || [ -f "$TREE/.git" ]; then
  git -C "$TREE" checkout --quiet --detach "$(git rev-parse HEAD)"
else
  rm -rf "$TREE"
  git worktree prune
  git worktree add --quiet --detach "$TREE" HEAD
fi

export PATH="$NODE_DIR/bin:$PATH"
export npm_config_nodedir="$NODE_DIR"
cd "$TREE"
STAMP="node_modules/.bench-on-node-lock"
WANT="$(node -v) $(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  echo "bench-on-node: npm ci on Node $(node -v) in $TREE ..."
  npm ci --no-audit --no-fund
  node -e 'new (require("better-sqlite3"))(":memory:").close(); new (require("roaring").RoaringBitmap32)([1])'
  echo "$WANT" > "$STAMP"
else
  node scripts/build.mjs
fi
echo "bench-on-node: $(git rev-parse --short HEAD) on Node $(node -v)"
npm run bench -- "${ARGS[@]}" --output-root "$HERE/bench"
