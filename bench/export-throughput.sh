#!/usr/bin/env bash
# Export throughput (issue 19): one server on a data folder, one curl client over loopback, every format
# once, the whole request timed (count, DuckDB's COPY, the stream). Needs the machine to itself.
#
#   bash bench/export-throughput.sh <data dir> [country] [port]
#
# The key is made on the trial plan, so the export is waived: metering costs one reserve and one settle per
# export, not per row. Server peak RSS comes from /usr/bin/time. Outputs go to /tmp/regdata-export.*.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${1:?usage: export-throughput.sh <data dir> [country] [port]}"
CC="${2:-PL}"
export REGDATA_DATA_DIR="$DATA" PORT="${3:-8099}" REGDATA_EXPORT_MAX_ROWS=10000000 LOG_LEVEL=warn
URL="http://127.0.0.1:$PORT/api/v1/data"
KEY=$(node bin/regdata.mjs keys create --email "export-bench-$(date +%s)@example.com" --kind standard --json |
  node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).key))')
start=$(date +%s)
/usr/bin/time -v -o /tmp/regdata-export.server-time node bin/regdata.mjs serve >/tmp/regdata-export.server-log 2>&1 &
# /usr/bin/time does not pass signals on: stop the server itself at the end.
trap 'pkill -INT -P $! node || true' EXIT
until curl -sf -H "Authorization: Bearer $KEY" "$URL/count?country=$CC" -o /tmp/regdata-export.count; do sleep 2; done
echo "ready after $(($(date +%s) - start)) s: $(cat /tmp/regdata-export.count)"
for fmt in csv parquet ndjson; do
  curl -s -H "Authorization: Bearer $KEY" -o "/tmp/regdata-export.$fmt" \
    -w "$fmt: HTTP %{http_code}, %{time_total} s, %{size_download} bytes\n" \
    "$URL/companies/export?country=$CC&format=$fmt&max_rows=10000000"
done
