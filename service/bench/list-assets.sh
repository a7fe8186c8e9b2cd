#!/usr/bin/env bash
# Load benchmark: GET /v1/accounts/{id}/assets (default page of 50, and take=500) with 10,000 assets
# in the account, by wrk (Debian package) against the release build on 127.0.0.1. Bounded: 20 s per run.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk > /dev/null || { echo "install wrk first: apt-get install -y wrk"; exit 1; }
cargo build --release -q -p asset-alerting-service
port=18282
dir="$(mktemp -d)"
root="00000000-0000-4000-8000-0000000000b1"
secret="bench-secret"
target/release/asset-alerting-service --listen "127.0.0.1:$port" --database-url "sqlite://$dir/bench.db" \
  --root-account-id "$root" --root-client-secret "$secret" > "$dir/service.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
token="$(curl -sf -u "$root:$secret" -d grant_type=client_credentials "http://127.0.0.1:$port/v1/auth/token" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')"
python3 service/bench/seed.py "http://127.0.0.1:$port" "$root" "$token" "${ASSETS:-10000}"
url="http://127.0.0.1:$port/v1/accounts/$root/assets"
for query in "" "?skip=9950" "?take=500"; do
  echo "== GET /v1/accounts/{id}/assets$query"
  wrk --latency -t2 -c"${CONNECTIONS:-32}" -d"${DURATION:-20}s" -H "Authorization: Bearer $token" "$url$query" \
    | grep -E "Requests/sec|Latency|50%|99%|requests in|Non-2xx"
done
