#!/usr/bin/env bash
# Live events across two instances on one PostgreSQL database, against the release build on
# 127.0.0.1: STREAMS event streams (default 1,000, at most 1,000; 10 per account, five on each
# instance), the database's transactions per second while they are idle (IDLE seconds, default
# 20; with pg_stat_statements loaded, as in the throwaway cluster, the statements that ran),
# then EVENTS events (default 200) stored one at a time through the second instance, each
# timed from the start of its POST to its arrival on its account's streams on either instance.
# DATABASE: a postgres://... URL of an empty database; without it a throwaway cluster of Debian's
# postgresql package is started in a temporary folder (as nobody when run as root) and removed.
# SERVICE_BIN runs another build; PROFILE=debug uses the debug build. Bounded in time; stops what it
# started.
set -euo pipefail
cd "$(dirname "$0")/../.."
profile="${PROFILE:-release}"
cargo build --profile "${profile/debug/dev}" -q -p asset-alerting-service --bins --example live_instances_load
release="${CARGO_TARGET_DIR:-target}/$profile"
bin="${SERVICE_BIN:-$release/asset-alerting-service}"
dir="$(mktemp -d)"
chmod 755 "$dir"
pids=()
pgbin=""
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  if [ -n "$pgbin" ]; then as_pg "$pgbin/pg_ctl" -D "$dir/pg" -m immediate stop > /dev/null 2>&1 || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
as_pg() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
database="${DATABASE:-}"
if [ -z "$database" ]; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  pgport=18295
  mkdir "$dir/pg" && chown 65534:65534 "$dir/pg" 2>/dev/null || true
  as_pg "$pgbin/initdb" -D "$dir/pg" --auth=trust --username=postgres -E UTF8 --locale=C.UTF-8 > /dev/null
  as_pg "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w \
    -o "-p $pgport -k $dir/pg -c listen_addresses=127.0.0.1 -c max_connections=100 -c shared_preload_libraries=pg_stat_statements" start > /dev/null
  database="postgres://postgres@127.0.0.1:$pgport/postgres"
fi
root="00000000-0000-4000-8000-0000000000b5"
secret="bench-secret"
ports=(18291 18292)
for port in "${ports[@]}"; do
  "$bin" --listen "127.0.0.1:$port" --database-url "$database" --key-file "$dir/bench.keys" \
    --root-account-id "$root" --root-client-secret "$secret" \
    --token-rate-per-address 1000000 --token-rate-per-client 1000000 > "$dir/service-$port.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
  curl -sf "http://127.0.0.1:$port/healthz" > /dev/null || { echo "the service did not start:"; cat "$dir/service-$port.log"; exit 1; }
done
timeout 600 "$release/examples/live_instances_load" --a "http://127.0.0.1:${ports[0]}" \
  --b "http://127.0.0.1:${ports[1]}" --root "$root" --secret "$secret" --database "$database" \
  --streams "${STREAMS:-1000}" --events "${EVENTS:-200}" --idle-secs "${IDLE:-20}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
