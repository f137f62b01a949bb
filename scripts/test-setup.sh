#!/usr/bin/env bash
# Installs what `npm test` drives besides Node, with Debian's apt, when it is missing (README, "Running the
# tests"); .ci/run calls it before every run. The tests themselves never install anything.
#
#   npm run test:setup                   # installs what is missing (as root, or through sudo)
#   bash scripts/test-setup.sh --check   # prints the missing ones, one apt package name a line; installs nothing
#
# - postgresql: the wallet suite runs on PostgreSQL as well as SQLite (scripts/pg-test-server.sh starts a
#   throwaway server from /usr/lib/postgresql/*/bin).
# - chromium: the browser tests (test/e2e) drive /usr/bin/chromium (or REGDATA_CHROMIUM) through playwright-core.
# - rsync: `regdata snapshots pull|push` copies to other machines with it, and its tests run it.
#
# test/pg-global-setup.ts runs --check: under CI (CI set, as .ci/run does) a missing tool fails the run before
# any test starts; elsewhere the tests that need it are skipped and the run says which and why.
set -euo pipefail

missing=()
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || missing+=(postgresql)
[ -x "${REGDATA_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v rsync >/dev/null || missing+=(rsync)

if [ "${1:-}" = --check ]; then
  for name in "${missing[@]}"; do echo "$name"; done
  exit 0
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "test-setup: PostgreSQL, Chromium and rsync are installed"
  exit 0
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
