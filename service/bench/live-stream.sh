#!/usr/bin/env bash
# Live events under load, against the release build on 127.0.0.1: telemetry at RATE events a second
# (default 1,000; every point turns an asset's ignition on or off, one event each) for DURATION
# seconds (default 10, at most 120), with STREAMS open event streams of the account (default 1, at
# most 10); prints, per stream, the time from the start of the POST /v1/telemetry that carried an
# event's point to the event's arrival on the stream (p50, p90, p99, max), and what was missing or
# repeated. Settings: WORKERS (gateways posting in parallel, default 10), BATCH (points a request,
# default 1), ASSETS (default 200), DATABASE (a postgres://... URL of an empty database; default: a
# SQLite file in a temporary folder). Bounded in time; stops the service it started.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p asset-alerting-service --bins --example live_stream_load
port=18290
dir="$(mktemp -d)"
root="00000000-0000-4000-8000-0000000000b3"
secret="bench-secret"
release="${CARGO_TARGET_DIR:-target}/release"
"$release/asset-alerting-service" --listen "127.0.0.1:$port" \
  --database-url "${DATABASE:-sqlite://$dir/bench.db}" --key-file "$dir/bench.keys" \
  --root-account-id "$root" --root-client-secret "$secret" > "$dir/service.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
url="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -sf "$url/healthz" > /dev/null && break; sleep 0.1; done
curl -sf "$url/healthz" > /dev/null || { echo "the service did not start:"; cat "$dir/service.log"; exit 1; }
timeout 300 "$release/examples/live_stream_load" --url "$url" --root "$root" --secret "$secret" \
  --rate "${RATE:-1000}" --seconds "${DURATION:-10}" --streams "${STREAMS:-1}" \
  --workers "${WORKERS:-10}" --batch "${BATCH:-1}" --assets "${ASSETS:-200}"
