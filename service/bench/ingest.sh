#!/usr/bin/env bash
# Load benchmark of telemetry ingestion against the release build on 127.0.0.1: 4 gateways, each
# posting batches of 1,000 points over its own 100 assets (every threshold set, alert rules on
# every asset) for 15 s, with latency probes (ingest to event visible, ingest to webhook received). Bounded in time.
# Settings: ASSETS (per worker), BATCH, DURATION (seconds), WORKERS, INTERVAL_MS (pause between a
# worker's batches; 0 is as fast as the service takes them). Steady load with 1,000 assets, each
# reporting once a second: ASSETS=1000 WORKERS=1 INTERVAL_MS=1000.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p asset-alerting-service --bins --example ingest_load
port=18283
dir="$(mktemp -d)"
root="00000000-0000-4000-8000-0000000000b2"
secret="bench-secret"
target/release/asset-alerting-service --listen "127.0.0.1:$port" --database-url "sqlite://$dir/bench.db" \
  --root-account-id "$root" --root-client-secret "$secret" --allow-http-callbacks --allow-private-callbacks \
  > "$dir/service.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port/healthz" > /dev/null || { echo "the service did not start:"; cat "$dir/service.log"; exit 1; }
target/release/examples/ingest_load --url "http://127.0.0.1:$port" --root "$root" --secret "$secret" \
  --assets "${ASSETS:-100}" --batch "${BATCH:-1000}" --seconds "${DURATION:-15}" --workers "${WORKERS:-4}" \
  --interval-ms "${INTERVAL_MS:-0}"
