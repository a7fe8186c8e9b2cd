#!/usr/bin/env bash
# Property-based API tests: schemathesis (PyPI) against the running service, driven by the spec.
# Starts the service on a loopback port with a fresh SQLite file and a known root account, then runs
# three passes:
#   1. generated ids as they come (mostly unknown: 404 paths, which every check accepts);
#   2. `accountId` pinned to the root account, so requests reach real data and schema-valid
#      requests must be accepted (positive_data_acceptance); every check but
#      negative_data_rejection, which pass 1 runs (pinning undoes the mutation of accountId). The spec states every rule JSON
#      Schema can express (paging bounds, closed bodies,
#      uint32 thresholds); positive_data_acceptance is off only where a rule cannot be stated:
#        - createAccount, updateAccount: callbackUri must be https and public unless the service
#          is configured otherwise (the allowed schemes and addresses are configuration);
#        - createAlertRule, updateAlertRule: recipient.timeZone must be an IANA zone name, and
#          referenced geofences must exist in the account (an integer written as `2.0`, such
#          as chatId, is accepted since generator issue 11);
#        - createGeofence, updateGeofence: rings must be closed with latitudes within -90..90
#          (a position's two items have different bounds; needs prefixItems in the generator);
#      and one case is excused everywhere (.ci/schemathesis_hooks.py, a filter_failure hook): the
#      seed's string pattern for skip, take, speedLimit and engineSpeedLimit admits numbers
#      beyond their minimum/maximum ("-1", "0" for take, a string beyond int32), which JSON
#      Schema's bounds do not reach for strings; the service answers them 400, as the spec says;
#      use_after_free is off for the operations under an asset (getAsset, updateAsset,
#      getAssetState, createAlertRule, listAlertRules, listAlertRuleGeofences): deleteAsset is a
#      soft delete, and the spec states the asset stays readable afterwards (its stateful phase
#      otherwise reports GET .../state of a deleted asset answering 200 as a failure);
#   3. the telemetry endpoint with an ingestion token (the only credential it takes): generated
#      points name unknown assets or carry odd values, and every batch must still be answered
#      202 with per-point results (or 400 for a malformed body), never a server error.
set -euo pipefail
cd "$(dirname "$0")/.."
export SCHEMATHESIS_HOOKS=.ci/schemathesis_hooks.py
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

# streamEvents is left out: its answer is a Server-Sent Events stream that stays open (heartbeats
# every 15 s, until the client closes it), and schemathesis reads every response to its end, so
# each case would wait for a timeout. Its parameters (filters, Last-Event-ID), tenancy and limit
# are tested with the generated client in service/tests/it/live_events.rs.
common=(spec/asset-alerting.yaml --url "http://127.0.0.1:$port" -H "Authorization: Bearer $token"
  --max-examples "$examples" --seed 1 --workers 1 --suppress-health-check all
  --exclude-operation-id streamEvents)

# positive_data_acceptance off where the spec cannot state the rule (see the top of this file).
exclusions='[[operations]]
include-operation-id = ["createAccount", "updateAccount", "createAlertRule", "updateAlertRule", "createGeofence", "updateGeofence"]
checks.positive_data_acceptance.enabled = false

[[operations]]
include-operation-id = ["getAsset", "updateAsset", "getAssetState", "createAlertRule", "listAlertRules", "listAlertRuleGeofences"]
checks.use_after_free.enabled = false'
echo "$exclusions" > "$dir/pass1.toml"
# Pass 2 leaves negative_data_rejection to pass 1: pinning accountId undoes schemathesis'
# mutation of it, so a "negative" case arrives as a valid request.
printf '[parameters]\n"path.accountId" = "%s"\n\n[checks]\nnegative_data_rejection.enabled = false\n\n%s\n' \
  "$root" "$exclusions" > "$dir/pass2.toml"

echo "== schemathesis pass 1: generated ids, all checks"
st --config-file "$dir/pass1.toml" run "${common[@]}"

echo "== schemathesis pass 2: accountId = the root account, all checks"
st --config-file "$dir/pass2.toml" run "${common[@]}"

echo "== schemathesis pass 3: POST /v1/telemetry with an ingestion token, all checks"
st run spec/asset-alerting.yaml --url "http://127.0.0.1:$port" -H "Authorization: Bearer $ingestion" \
  --max-examples "$examples" --seed 1 --workers 1 --suppress-health-check all \
  --include-operation-id ingestTelemetry --checks all

if grep -q "panicked" "$dir/service.log"; then
  echo "the service panicked during the run:"; grep -A5 "panicked" "$dir/service.log"; exit 1
fi
