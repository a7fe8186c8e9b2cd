#!/usr/bin/env bash
# Property-based API tests: schemathesis (PyPI) against the running service, driven by the spec.
# Starts the service on a loopback port with a fresh SQLite file and a known root account, then runs
# two passes:
#   1. every check on generated requests as they come (ids are mostly unknown: 404 paths), minus
#      positive_data_acceptance: the service enforces rules JSON Schema cannot state (an IANA time
#      zone, a closed polygon ring, geofences of the same account, the ingestion token limit), and a
#      numeric string bypasses a schema's minimum/maximum ("0" is a schema-valid `take`);
#   2. `accountId` pinned to the root account, so requests reach real data; checks on what the
#      service answers (no server errors, documented statuses, bodies and headers that fit the spec);
#   3. the telemetry endpoint with an ingestion token (the only credential it takes), every check:
#      generated points name unknown assets or carry odd values, and every batch must still be
#      answered 202 with per-point results (or 400 for a malformed body), never a server error.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${SCHEMATHESIS_PORT:-18181}"
bin="${SERVICE_BIN:-target/debug/asset-alerting-service}"
examples="${SCHEMATHESIS_EXAMPLES:-25}"
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

# Taken first: the passes below exhaust the account's 10 live ingestion tokens.
ingestion="$(curl -sf -H "Authorization: Bearer $token" "http://127.0.0.1:$port/v1/accounts/$root/ingestionToken" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"

common=(spec/asset-alerting.yaml --url "http://127.0.0.1:$port" -H "Authorization: Bearer $token"
  --max-examples "$examples" --seed 1 --workers 1 --suppress-health-check all)

echo "== schemathesis pass 1: generated ids, all checks but positive_data_acceptance"
st run "${common[@]}" --checks all --exclude-checks positive_data_acceptance

echo "== schemathesis pass 2: accountId = the root account, response checks"
cat > "$dir/schemathesis.toml" <<TOML
[parameters]
"path.accountId" = "$root"
TOML
st --config-file "$dir/schemathesis.toml" run "${common[@]}" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance

echo "== schemathesis pass 3: POST /v1/telemetry with an ingestion token, all checks"
st run spec/asset-alerting.yaml --url "http://127.0.0.1:$port" -H "Authorization: Bearer $ingestion" \
  --max-examples "$examples" --seed 1 --workers 1 --suppress-health-check all \
  --include-operation-id ingestTelemetry --checks all

if grep -q "panicked" "$dir/service.log"; then
  echo "the service panicked during the run:"; grep -A5 "panicked" "$dir/service.log"; exit 1
fi
