#!/usr/bin/env bash
# Delivery fairness benchmark (issue 29) against the release build on 127.0.0.1: one account's
# webhook receiver answers in 1 s, another's hangs past the webhook timeout (10 s), and each gets
# BACKLOG (1,000) events at once; meanwhile OTHERS (20) accounts post one event at a time for
# DURATION (60) seconds, each with a webhook receiver and an e-mail rule of its own. Prints the
# other accounts' latency from detection to arrival (p50/p90/p99/max, webhook and e-mail), the
# slow receiver's deliveries per second and the hanging receiver's attempts; then a baseline: the
# slow receiver alone with its backlog. The recipient rate limit is lifted so every e-mail goes
# on its own. DATABASE (a postgres://... URL of an empty database) runs the first part on
# PostgreSQL; INSTANCES=2 (with DATABASE) runs two instances on it, the other accounts spread
# over both. Receivers and the SMTP server are local stand-ins; bounded in count and time.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p asset-alerting-service --bins --example delivery_fairness
port=18284
dir="$(mktemp -d)"
root="00000000-0000-4000-8000-0000000000b3"
secret="bench-secret"
release="${CARGO_TARGET_DIR:-target}/release"
instances="${INSTANCES:-1}"
if [ "$instances" != 1 ] && [[ "${DATABASE:-}" != postgres* ]]; then
  echo "INSTANCES=$instances needs DATABASE=postgres://..."; exit 1
fi
pids=()
stop() { kill "${pids[@]}" 2>/dev/null || true; wait "${pids[@]}" 2>/dev/null || true; pids=(); }
trap 'stop; rm -rf "$dir"' EXIT

# $1: label, $2: database URL, $3: instances, then the example's arguments. The example starts
# its SMTP stand-in first and writes its port; the instances start with it.
run() {
  local label="$1" database="$2" count="$3" urls=""
  shift 3
  rm -f "$dir/smtp-port"
  for i in $(seq 0 $((count - 1))); do urls="$urls${urls:+,}http://127.0.0.1:$((port + i))"; done
  "$release/examples/delivery_fairness" --urls "$urls" --root "$root" --secret "$secret" \
    --smtp-port-file "$dir/smtp-port" --seconds "${DURATION:-60}" --slow-ms 1000 "$@" > "$dir/result.txt" &
  local bench=$!
  for _ in $(seq 100); do [ -s "$dir/smtp-port" ] && break; sleep 0.1; done
  for i in $(seq 0 $((count - 1))); do
    "${SERVICE_BIN:-$release/asset-alerting-service}" --listen "127.0.0.1:$((port + i))" \
      --database-url "$database" --key-file "$dir/bench.keys" \
      --root-account-id "$root" --root-client-secret "$secret" \
      --allow-http-callbacks --allow-private-callbacks --rate-limit-per-minute 1000000 \
      --smtp-host 127.0.0.1 --smtp-port "$(cat "$dir/smtp-port")" --smtp-tls none \
      > "$dir/service-$i.log" 2>&1 &
    pids+=($!)
    # The first instance migrates the database and writes the key file the others read.
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$((port + i))/healthz" > /dev/null && break; sleep 0.1; done
  done
  wait "$bench" || { echo "the benchmark failed:"; cat "$dir"/service-*.log | tail -20; exit 1; }
  echo "== $label"
  cat "$dir/result.txt"
  stop
}

run "slow (1 s) and hanging receivers with ${BACKLOG:-1000} events each, ${OTHERS:-20} other accounts" \
  "${DATABASE:-sqlite://$dir/fair.db}" "$instances" --backlog "${BACKLOG:-1000}" --others "${OTHERS:-20}"
run "baseline: the slow receiver alone with ${BACKLOG:-1000} events" "sqlite://$dir/baseline.db" 1 \
  --backlog "${BACKLOG:-1000}" --hang-backlog 0 --others 0
