#!/usr/bin/env bash
# List assets right after a bulk import, on PostgreSQL, against the release build on 127.0.0.1:
# a fresh database (a throwaway cluster of Debian's postgresql with its defaults, autovacuum on,
# unless DATABASE names an empty one), ASSETS assets (default 10,000) created through the API by
# service/bench/seed.py, then at once wrk on list assets (the default page) for DURATION seconds
# (default 10) with CONNECTIONS connections (default 64). Prints requests/s, p50 and p99, the
# service's CPU per request, and when the assets table was last analysed, by the service
# (last_analyze) or by autovacuum (last_autoanalyze), relative to the end of the import.
# SERVICE_BIN runs another build (to compare two builds: run it for each, in turn). Bounded in
# time; stops what it started.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk > /dev/null || { echo "install wrk first: apt-get install -y wrk"; exit 1; }
if [ -z "${SERVICE_BIN:-}" ]; then
  cargo build --release -q -p asset-alerting-service --bins
  SERVICE_BIN="${CARGO_TARGET_DIR:-target}/release/asset-alerting-service"
fi
dir="$(mktemp -d)"
chmod 755 "$dir"
pid=""
pgbin=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; fi
  if [ -n "$pgbin" ]; then as_pg "$pgbin/pg_ctl" -D "$dir/pg" -m immediate stop > /dev/null 2>&1 || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
as_pg() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
database="${DATABASE:-}"
if [ -z "$database" ]; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  pgport="$(free_port)"
  mkdir "$dir/pg" && chown 65534:65534 "$dir/pg" 2>/dev/null || true
  as_pg "$pgbin/initdb" -D "$dir/pg" --auth=trust --username=postgres -E UTF8 --locale=C.UTF-8 > /dev/null
  as_pg "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w \
    -o "-p $pgport -k $dir/pg -c listen_addresses=127.0.0.1" start > /dev/null
  database="postgres://postgres@127.0.0.1:$pgport/postgres"
fi
port="$(free_port)"
base="http://127.0.0.1:$port"
root="00000000-0000-4000-8000-0000000000b7"
secret="bench-secret"
"$SERVICE_BIN" --listen "127.0.0.1:$port" --database-url "$database" --key-file "$dir/bench.keys" \
  --root-account-id "$root" --root-client-secret "$secret" > "$dir/service.log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -sf "$base/healthz" > /dev/null && break; sleep 0.1; done
curl -sf "$base/healthz" > /dev/null || { echo "the service did not start:"; cat "$dir/service.log"; exit 1; }
token="$(curl -sf -u "$root:$secret" -d grant_type=client_credentials "$base/v1/auth/token" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')"
started=$(date +%s.%N)
python3 service/bench/seed.py "$base" "$root" "$token" "${ASSETS:-10000}" > /dev/null
imported=$(date +%s.%N)
cat > "$dir/report.lua" << 'EOF'
done = function(summary, latency, requests)
  io.write(string.format("%.0f %.2f %.2f %d\n", summary.requests / summary.duration * 1e6,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
EOF
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
duration="${DURATION:-10}"
before="$(cpu_ticks)"
line="$(wrk -t2 -c"${CONNECTIONS:-64}" -d"${duration}s" --timeout 30s -s "$dir/report.lua" \
  -H "Authorization: Bearer $token" "$base/v1/accounts/$root/assets" | tail -n 1)"
read -r rps p50 p99 non2xx <<< "$line"
cpu=$(( ($(cpu_ticks) - before) * 1000000 / $(getconf CLK_TCK) / (rps * duration + 1) ))
analysed="$(psql -qAt "$database" -c "SELECT coalesce(round(extract(epoch FROM last_analyze) - $imported, 1)::text, 'never') \
  || ' / ' || coalesce(round(extract(epoch FROM last_autoanalyze) - $imported, 1)::text, 'never') \
  FROM pg_stat_user_tables WHERE relname = 'assets'")"
printf "import of %s assets: %.1f s; list assets at once, %s s: %s req/s, p50 %s ms, p99 %s ms, non-2xx %s, CPU %s µs/req; assets analysed (s after the import) by the service / by autovacuum: %s; load average %s\n" \
  "${ASSETS:-10000}" "$(echo "$imported - $started" | bc)" "$duration" "$rps" "$p50" "$p99" "$non2xx" "$cpu" "$analysed" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
