#!/usr/bin/env bash
# Property-based API tests: schemathesis (PyPI) against the running service, driven by the spec.
# Starts the service on a free loopback port with a fresh SQLite file and a known root account.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${SCHEMATHESIS_PORT:-18181}"
bin="${SERVICE_BIN:-target/debug/asset-alerting-service}"
dir="$(mktemp -d)"
root="00000000-0000-4000-8000-000000000001"
secret="schemathesis-$(date +%s)-secret"

"$bin" --listen "127.0.0.1:$port" --database-url "sqlite://$dir/schemathesis.db" \
  --root-account-id "$root" --root-client-secret "$secret" > "$dir/service.log" 2>&1 &
pid=$!
cleanup() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break
  sleep 0.1
done
token="$(curl -sf -u "$root:$secret" -d grant_type=client_credentials "http://127.0.0.1:$port/v1/auth/token" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')"

# Path parameters named accountId point at the root account, so requests reach real data
# instead of stopping at 404.
cat > "$dir/schemathesis.toml" <<TOML
[parameters]
"path.accountId" = "$root"
TOML

st --config-file "$dir/schemathesis.toml" run spec/asset-alerting.yaml \
  --url "http://127.0.0.1:$port" \
  -H "Authorization: Bearer $token" \
  --checks all \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-25}" \
  --seed 1 \
  --workers 2 \
  "$@"
