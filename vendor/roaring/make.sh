#!/usr/bin/env bash
# Rebuilds roaring-2.7.0-regdata.1.tgz from roaring 2.7.0 on the npm registry and node26.patch (README.md).
#
#   bash vendor/roaring/make.sh && npm install
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent roaring@2.7.0 >/dev/null
tar -xzf roaring-2.7.0.tgz
patch -d package -p1 --no-backup-if-mismatch <"$here/node26.patch"
node -e 'const f = process.argv[1]; const p = JSON.parse(require("fs").readFileSync(f, "utf8"));
  p.version = "2.7.0-regdata.1"; require("fs").writeFileSync(f, JSON.stringify(p, null, 2) + "\n");' package/package.json
rm -f "$here"/roaring-*.tgz
(cd package && npm pack --silent --pack-destination "$here" >/dev/null)
ls -l "$here"/roaring-*.tgz
