#!/usr/bin/env bash
# Installs what `npm test` drives besides Node, with Debian's apt, when it is missing (README, "Running the
# tests"); .ci/run calls it before every run. The tests themselves never install anything.
#
#   npm run test:setup                   # installs what is missing (as root, or through sudo)
#   bash scripts/test-setup.sh --check   # prints the missing ones, a name a line (apt's, or mcp-inspector); installs nothing
#   bash scripts/test-setup.sh --inspector   # the Node binary and CLI script that run the MCP Inspector
#
# - postgresql: the wallet suite runs on PostgreSQL as well as SQLite (scripts/pg-test-server.sh starts a
#   throwaway server from /usr/lib/postgresql/*/bin).
# - chromium: the browser tests (test/e2e) drive /usr/bin/chromium (or REGDATA_CHROMIUM) through playwright-core.
# - rsync: `regdata snapshots pull|push` copies to other machines with it, and its tests run it.
# - mcp-inspector: the MCP Inspector CLI 2 (test/mcp/inspector.test.ts lists and calls the tools with it, and
#   its schema check must find nothing). It needs Node 22.19 or newer, so it is installed with npm, not apt,
#   into ${REGDATA_TOOLS_CACHE:-~/.cache/regdata/tools}/mcp-inspector-<version>, and runs on the newest LTS
#   Node (scripts/fetch-node.sh) when this machine's Node is older.
#
# test/pg-global-setup.ts runs --check: under CI (CI set, as .ci/run does) a missing tool fails the run before
# any test starts; elsewhere the tests that need it are skipped and the run says which and why.
set -euo pipefail

# The Inspector release the tests drive, and the Node line it runs on where this machine's is too old.
MCP_INSPECTOR_VERSION=2.12.0
NEWEST_LTS=26
TOOLS="${REGDATA_TOOLS_CACHE:-$HOME/.cache/regdata/tools}"
INSPECTOR_DIR="$TOOLS/mcp-inspector-$MCP_INSPECTOR_VERSION"

# `--inspector`: the node binary and the CLI script the tests run the Inspector with, a line each.
if [ "${1:-}" = --inspector ]; then
  if node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)'; then
    command -v node
  else
    newest="$(ls -d "${REGDATA_NODE_CACHE:-$HOME/.cache/regdata/node}/v$NEWEST_LTS".* 2>/dev/null | sort -V | tail -1)"
    [ -n "$newest" ] || { echo "test-setup: no Node $NEWEST_LTS in the cache; run npm run test:setup" >&2; exit 1; }
    echo "$newest/bin/node"
  fi
  echo "$INSPECTOR_DIR/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
  exit 0
fi

missing=()
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || missing+=(postgresql)
[ -x "${REGDATA_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v rsync >/dev/null || missing+=(rsync)
{ [ -f "$INSPECTOR_DIR/node_modules/@modelcontextprotocol/inspector/package.json" ] &&
  bash "$0" --inspector >/dev/null 2>&1; } || missing+=(mcp-inspector)

if [ "${1:-}" = --check ]; then
  for name in "${missing[@]}"; do echo "$name"; done
  exit 0
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "test-setup: PostgreSQL, Chromium, rsync and the MCP Inspector are installed"
  exit 0
fi

if [[ " ${missing[*]} " == *" mcp-inspector "* ]]; then
  node_dir="$(node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)' &&
    dirname "$(dirname "$(command -v node)")" || bash "$(dirname "$0")/fetch-node.sh" "$NEWEST_LTS")"
  echo "test-setup: installing @modelcontextprotocol/inspector@$MCP_INSPECTOR_VERSION with npm on Node $("$node_dir/bin/node" -v) ..."
  rm -rf "$INSPECTOR_DIR.partial"
  mkdir -p "$INSPECTOR_DIR.partial"
  PATH="$node_dir/bin:$PATH" npm install --prefix "$INSPECTOR_DIR.partial" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/inspector@$MCP_INSPECTOR_VERSION" >/dev/null
  rm -rf "$INSPECTOR_DIR"
  mv "$INSPECTOR_DIR.partial" "$INSPECTOR_DIR"
  missing=("${missing[@]/mcp-inspector/}")
  missing=(${missing[@]})
  [ ${#missing[@]} -eq 0 ] && exit 0
fi

if [ -n "${REGDATA_CHROMIUM:-}" ] && [[ " ${missing[*]} " == *" chromium "* ]]; then
  echo "test-setup: REGDATA_CHROMIUM=$REGDATA_CHROMIUM is not an executable; apt installs /usr/bin/chromium" >&2
fi

SUDO=()
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "test-setup: missing ${missing[*]}; installing needs root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  SUDO=(sudo)
fi
echo "test-setup: installing ${missing[*]} with apt ..."
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
