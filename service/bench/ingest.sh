#!/usr/bin/env bash
# Load benchmark of telemetry ingestion against the release build on 127.0.0.1: 4 gateways, each
# posting batches of 1,000 points over its own 100 assets (every threshold set, alert rules on
# every asset) for 15 s, with latency probes (ingest to event visible, ingest to webhook received). Bounded in time.
# Settings: ASSETS (per worker), BATCH, DURATION (seconds), WORKERS, INTERVAL_MS (pause between a
# worker's batches; 0 is as fast as the service takes them), DATABASE (a postgres://... URL of an empty
# database; default: a SQLite file in a temporary folder). Steady load with 1,000 assets, each
# reporting once a second: ASSETS=1000 WORKERS=1 INTERVAL_MS=1000. INSTANCES=2 (with DATABASE) runs two
# instances on that database, each loaded by its own generator. SERVICE_BIN runs a service binary built
# before (to compare two builds under the same machine load).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p asset-alerting-service --bins --example ingest_load
port=18283
dir="$(mktemp -d)"
root="00000000-0000-4000-8000-0000000000b2"
secret="bench-secret"
release="${CARGO_TARGET_DIR:-target}/release"
instances="${INSTANCES:-1}"
if [ "$instances" != 1 ] && [[ "${DATABASE:-}" != postgres* ]]; then
  echo "INSTANCES=$instances needs DATABASE=postgres://..."; exit 1
fi
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null; rm -rf "$dir"' EXIT
for i in $(seq 0 $((instances - 1))); do
  "${SERVICE_BIN:-$release/asset-alerting-service}" --listen "127.0.0.1:$((port + i))" \
    --database-url "${DATABASE:-sqlite://$dir/bench.db}" --key-file "$dir/bench.keys" \
    --root-account-id "$root" --root-client-secret "$secret" --allow-http-callbacks --allow-private-callbacks \
    > "$dir/service-$i.log" 2>&1 &
  pids+=($!)
done
for i in $(seq 0 $((instances - 1))); do
  url="http://127.0.0.1:$((port + i))"
  for _ in $(seq 100); do curl -sf "$url/healthz" > /dev/null && break; sleep 0.1; done
  curl -sf "$url/healthz" > /dev/null || { echo "the service did not start:"; cat "$dir/service-$i.log"; exit 1; }
done
# With several instances, each gets a load generator of its own (its own account and assets), at
# the same time; the table of each is printed, and their points/s add up.
loads=()
for i in $(seq 0 $((instances - 1))); do
  "$release/examples/ingest_load" --url "http://127.0.0.1:$((port + i))" --root "$root" --secret "$secret" \
    --assets "${ASSETS:-100}" --batch "${BATCH:-1000}" --seconds "${DURATION:-15}" --workers "${WORKERS:-4}" \
    --interval-ms "${INTERVAL_MS:-0}" > "$dir/load-$i.txt" &
  loads+=($!)
done
wait "${loads[@]}"
for i in $(seq 0 $((instances - 1))); do
  echo "instance $i:"; cat "$dir/load-$i.txt"
done
# The services' CPU time (user + system) over the run, setup included (creating the assets and
# rules, a small part), per accepted point: it moves far less with the machine's other load than
# points/s do.
ticks=0
for pid in "${pids[@]}"; do ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$pid/stat"))); done
accepted=$(cat "$dir"/load-*.txt | awk -F'|' '/points accepted/ { split($3, a, " "); n += a[1] } END { print n + 0 }')
echo "service CPU: $((ticks * 1000 / $(getconf CLK_TCK))) ms, $(( ticks * 1000000000 / $(getconf CLK_TCK) / (accepted + 1) )) ns per accepted point; load average $(cut -d' ' -f1-3 /proc/loadavg)"
