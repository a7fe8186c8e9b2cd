#!/usr/bin/env bash
# HTTP benchmarks of the release build on 127.0.0.1 by wrk (Debian package), printed as one table:
#  - GET one asset, and the default page (50) of list assets, with ASSETS assets in the account;
#  - GET one asset while FLOOD connections post wrong client secrets to POST /v1/auth/token
#    (argon2 checks an unauthenticated client can trigger), and the flood's own answers;
#  - the service's peak resident memory (VmHWM) before and after the flood, and the load average;
#  - per run, the service's CPU time per request (during the flood it includes the flood's).
# Settings: ASSETS (10000), CONNECTIONS (64), FLOOD (64), DURATION (seconds per run, 10),
# DATABASE (a postgres://... URL of an empty database; default: a SQLite file in a temporary folder),
# SERVICE_ARGS (extra flags for the service) and SERVICE_BIN (a binary built before; default: the
# release build of this tree). Bounded: every run stops after DURATION seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk > /dev/null || { echo "install wrk first: apt-get install -y wrk"; exit 1; }
# SERVICE_BIN runs a binary built before (to compare two builds under the same machine load).
if [ -z "${SERVICE_BIN:-}" ]; then
  cargo build --release -q -p asset-alerting-service --bins
  SERVICE_BIN="${CARGO_TARGET_DIR:-target}/release/asset-alerting-service"
fi
# A free port: a fixed one may be taken by another benchmark running on the machine.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
dir="$(mktemp -d)"
root="00000000-0000-4000-8000-0000000000b3"
secret="bench-secret"
connections="${CONNECTIONS:-64}"
flood="${FLOOD:-64}"
duration="${DURATION:-10}"
# shellcheck disable=SC2086 # SERVICE_ARGS is a list of flags
"$SERVICE_BIN" --listen "127.0.0.1:$port" --database-url "${DATABASE:-sqlite://$dir/bench.db}" \
  --key-file "$dir/bench.keys" \
  --root-account-id "$root" --root-client-secret "$secret" ${SERVICE_ARGS:-} > "$dir/service.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do curl -sf "$base/healthz" > /dev/null && break; sleep 0.1; done
if ! kill -0 $pid 2> /dev/null || ! curl -sf "$base/healthz" > /dev/null; then
  echo "the service did not start:"; cat "$dir/service.log"; exit 1
fi
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

token="$(curl -sf -u "$root:$secret" -d grant_type=client_credentials "$base/v1/auth/token" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')"
python3 service/bench/seed.py "$base" "$root" "$token" "${ASSETS:-10000}" > /dev/null
# PostgreSQL plans from statistics that autovacuum gathers a minute or so after the seeding, and
# without them lists take a plan several times slower; a database in use has them.
if [[ "${DATABASE:-}" == postgres* ]] && command -v psql > /dev/null; then
  psql -q "$DATABASE" -c ANALYZE
fi
asset="$(curl -sf -H "Authorization: Bearer $token" "$base/v1/accounts/$root/assets?take=1" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])')"

# One line per run: requests/s, p50 and p99 in ms, answers other than 2xx/3xx, socket errors.
cat > "$dir/report.lua" << 'EOF'
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("%.0f %.2f %.2f %d %d\n", summary.requests / summary.duration * 1e6,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status, errors))
end
EOF
# The flood: wrong secrets for the root account over HTTP Basic, counting the answers by status.
cat > "$dir/flood.lua" << EOF
wrk.method = "POST"
wrk.body = "grant_type=client_credentials"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic $(printf '%s:wrong-secret' "$root" | base64 -w0)"
local threads = {}
setup = function(thread) table.insert(threads, thread) end
statuses = {}
response = function(status) statuses[status] = (statuses[status] or 0) + 1 end
done = function(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do total[status] = (total[status] or 0) + n end
  end
  local parts = {}
  for status, n in pairs(total) do table.insert(parts, status .. ":" .. n) end
  table.sort(parts)
  io.write(string.format("%.0f %.2f %.2f %s\n", summary.requests / summary.duration * 1e6,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, table.concat(parts, ",")))
end
EOF
# The service's CPU time (user + system) in clock ticks: CPU per request moves far less with
# the machine's other load than requests per second do.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
run() { # connections, url: one report line, then the service's CPU microseconds per request
  local before line
  before="$(cpu_ticks)"
  line="$(wrk -t2 -c"$1" -d"${duration}s" --timeout 30s -s "$dir/report.lua" -H "Authorization: Bearer $token" "$2" | tail -n 1)"
  echo "$line $(( ($(cpu_ticks) - before) * 1000000 / $(getconf CLK_TCK) / (${line%% *} * duration + 1) ))"
}
peak_rss() { awk '/VmHWM/ { printf "%.0f MB", $2 / 1024 }' "/proc/$pid/status"; }

get_asset="$(run "$connections" "$base/v1/accounts/$root/assets/$asset")"
list_assets="$(run "$connections" "$base/v1/accounts/$root/assets")"
rss_before="$(peak_rss)"
wrk -t1 -c"$flood" -d"$((duration + 2))s" --timeout 30s -s "$dir/flood.lua" "$base/v1/auth/token" \
  | tail -n 1 > "$dir/flood.out" &
flooder=$!
sleep 1
get_flooded="$(run "$connections" "$base/v1/accounts/$root/assets/$asset")"
wait $flooder
rss_after="$(peak_rss)"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

row() { # name, report line
  read -r rps p50 p99 non2xx errors cpu <<< "$2"
  printf "| %-52s | %8s | %8s | %8s | %-30s |\n" "$1" "$rps" "$p50" "$p99" "CPU $cpu µs/req; non-2xx $non2xx, errors $errors"
}
echo
printf "| %-52s | %8s | %8s | %8s | %-30s |\n" "scenario (${duration} s each)" "req/s" "p50 ms" "p99 ms" "other"
printf "|%s|%s|%s|%s|%s|\n" "$(printf -- '-%.0s' {1..54})" "----------" "----------" "----------" "--------------------------------"
row "GET asset, $connections connections" "$get_asset"
row "GET asset, $connections connections, during the token flood" "$get_flooded"
row "list assets (default page), ${ASSETS:-10000} assets, $connections conn." "$list_assets"
read -r rps p50 p99 statuses < "$dir/flood.out"
printf "| %-52s | %8s | %8s | %8s | %-30s |\n" "token flood: $flood connections, wrong secrets" "$rps" "$p50" "$p99" "$statuses"
printf "| %-52s | %8s | %8s | %8s | %-30s |\n" "peak RSS (VmHWM) before / after the flood" "" "" "" "$rss_before / $rss_after"
printf "| %-52s | %8s | %8s | %8s | %-30s |\n" "load average (1, 5, 15 min) at start / end" "" "" "" "$load_before / $load_after"
