#!/usr/bin/env bash
# Load benchmark of the Teltonika listener against the release build on 127.0.0.1: DEVICES simulated
# devices (1,000), each connected over its own TCP connection, send AVL packets of RECORDS records
# (10) and wait for each acknowledgement, for DURATION seconds (15): each device one packet every
# INTERVAL_MS, the devices spread over that period (0: the next packet as soon as the last is
# acknowledged, i.e. saturation). Prints records/s, the acknowledgement
# latency, and the service's resident memory with every device connected and idle. Bounded in time
# and count. Settings also: DATABASE (a postgres://... URL of an empty database; default: a SQLite
# file in a temporary folder), SERVICE_BIN (a binary built before).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p asset-alerting-service --bins --example teltonika_load
release="${CARGO_TARGET_DIR:-target}/release"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port="$(free_port)"
teltonika="127.0.0.1:$(free_port)"
dir="$(mktemp -d)"
root="00000000-0000-4000-8000-0000000000b4"
secret="bench-secret"
# 1,000 connections on each side, plus the database's files.
ulimit -n 8192
"${SERVICE_BIN:-$release/asset-alerting-service}" --listen "127.0.0.1:$port" \
  --database-url "${DATABASE:-sqlite://$dir/bench.db}" --key-file "$dir/bench.keys" \
  --root-account-id "$root" --root-client-secret "$secret" --teltonika-listen "$teltonika" \
  > "$dir/service.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port/healthz" > /dev/null || { echo "the service did not start:"; cat "$dir/service.log"; exit 1; }
"$release/examples/teltonika_load" --url "http://127.0.0.1:$port" --teltonika "$teltonika" \
  --root "$root" --secret "$secret" --devices "${DEVICES:-1000}" --records "${RECORDS:-10}" \
  --seconds "${DURATION:-15}" --interval-ms "${INTERVAL_MS:-0}" --pid "$pid"
echo "load average (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
