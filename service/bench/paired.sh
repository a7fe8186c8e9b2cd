#!/usr/bin/env bash
# Paired runs of two release binaries built before (absolute paths A and B, e.g. an old commit's
# copied aside and this tree's) on SQLite: each started once with ASSETS (10000) assets seeded, one
# warm-up run each, then ROUNDS (3) rounds of wrk -t2 -c64 for DURATION (8) s per run on list
# assets (default page) and GET asset, alternating the builds (order reversed every round). Prints
# per run: build, what, req/s, non-2xx answers, the service's CPU µs per request. 127.0.0.1 only.
# WHAT="list" (or "get") runs only that path. PERF=/abs/file.data records every CPU with call
# graphs (`perf record -F 999 -g -a`) over the rounds, then prints each build's process id and
# requests answered, for `service/bench/perf-compare.py` (build with frame pointers to see callers).
# POSTGRES=1: each build on a database of its own in one throwaway PostgreSQL cluster (Debian's
# postgresql; run as nobody when root), instead of SQLite files.
# Usage: service/bench/paired.sh /abs/old-binary /abs/new-binary
set -euo pipefail
cd "$(dirname "$0")/../.."
A="$1"; B="$2"; rounds="${ROUNDS:-3}"; duration="${DURATION:-8}"
dir="$(mktemp -d)"; root="00000000-0000-4000-8000-0000000000b3"; secret="bench-secret"
cat > "$dir/report.lua" << 'LUA'
done = function(summary, latency, requests)
  io.write(string.format("%.0f %d\n", summary.requests / summary.duration * 1e6, summary.errors.status))
end
LUA
declare -A pid base token asset
pids=()
as_pg() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
pgbin=""
cleanup() {
  kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null
  [ -z "$pgbin" ] || as_pg "$pgbin/pg_ctl" -D "$dir/pg" -m immediate stop > /dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
if [ -n "${POSTGRES:-}" ]; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  pgport="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  chmod 755 "$dir"; mkdir "$dir/pg" && chown 65534:65534 "$dir/pg" 2>/dev/null || true
  as_pg "$pgbin/initdb" -D "$dir/pg" --auth=trust --username=postgres -E UTF8 --locale=C.UTF-8 > /dev/null
  as_pg "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w \
    -o "-p $pgport -k $dir/pg -c listen_addresses=127.0.0.1" start > /dev/null
  for b in a b; do as_pg "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres "bench_$b"; done
fi
for b in A B; do
  bin="${!b}"
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  mkdir "$dir/$b"
  url="sqlite://$dir/$b/bench.db"
  [ -z "$pgbin" ] || url="postgres://postgres@127.0.0.1:$pgport/bench_${b,,}"
  "$bin" --listen "127.0.0.1:$port" --database-url "$url" --key-file "$dir/$b/bench.keys" \
    --root-account-id "$root" --root-client-secret "$secret" > "$dir/$b/service.log" 2>&1 &
  pid[$b]=$!; pids+=($!)
  base[$b]="http://127.0.0.1:$port"
  for _ in $(seq 100); do curl -sf "${base[$b]}/healthz" > /dev/null && break; sleep 0.1; done
  token[$b]="$(curl -sf -u "$root:$secret" -d grant_type=client_credentials "${base[$b]}/v1/auth/token" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')"
  python3 service/bench/seed.py "${base[$b]}" "$root" "${token[$b]}" "${ASSETS:-10000}" > /dev/null
  asset[$b]="$(curl -sf -H "Authorization: Bearer ${token[$b]}" "${base[$b]}/v1/accounts/$root/assets?take=1" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])')"
done
declare -A served=([A]=0 [B]=0)
run() { # build, path
  local b="$1" before line
  before="$(awk '{ print $14 + $15 }' "/proc/${pid[$b]}/stat")"
  line="$(wrk -t2 -c64 -d"${duration}s" --timeout 30s -s "$dir/report.lua" -H "Authorization: Bearer ${token[$b]}" "${base[$b]}$2" | tail -n 1)"
  after="$(awk '{ print $14 + $15 }' "/proc/${pid[$b]}/stat")"
  echo "$b $3 $line $(( (after - before) * 1000000 / $(getconf CLK_TCK) / (${line%% *} * duration + 1) )) µs/req"
  [ "$3" = warm-up ] || served[$b]=$(( ${served[$b]} + ${line%% *} * duration ))
}
for b in A B; do run "$b" "/v1/accounts/$root/assets" warm-up > /dev/null; done
if [ -n "${PERF:-}" ]; then
  perf record -F 999 -g -a -o "$PERF" > "$dir/perf.log" 2>&1 &
  perf_pid=$!; pids+=($perf_pid); sleep 1
fi
for round in $(seq "$rounds"); do
  order="A B"; [ $((round % 2)) -eq 0 ] && order="B A"
  echo "round $round (load $(cut -d' ' -f1-3 /proc/loadavg))"
  for what in ${WHAT:-list get}; do
    for b in $order; do
      if [ $what = list ]; then run "$b" "/v1/accounts/$root/assets" list; else run "$b" "/v1/accounts/$root/assets/${asset[$b]}" get; fi
    done
  done
done
if [ -n "${PERF:-}" ]; then
  kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
  echo "perf: $PERF; A pid ${pid[A]} answered ${served[A]}, B pid ${pid[B]} answered ${served[B]}"
  echo "compare: service/bench/perf-compare.py $PERF ${pid[A]} ${served[A]} ${pid[B]} ${served[B]}"
fi
