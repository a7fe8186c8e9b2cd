#!/usr/bin/env bash
# What the generated code costs to compile: `cargo check` of our models + client crates against
# cargo-progenitor's crate for the same document (default ../shared/corpus/oxide-3.0.json).
# Dependencies are checked once first; each timed run then checks only the generated crates again
# from scratch (sources touched, incremental compilation off, as in CI), alternating between the
# two, ROUNDS times (default 3); medians printed.
#
#   generator/bench/check-cost.sh [DOCUMENT]
set -euo pipefail
cd "$(dirname "$0")/../.."
DOC="$(realpath "${1:-../shared/corpus/oxide-3.0.json}")"
ROUNDS="${ROUNDS:-3}"
PEERS_DIR="$(realpath -m "${PEERS_DIR:-target/bench-peers}")"
WORK="$(realpath -m target/check-cost)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
export CARGO_INCREMENTAL=0

cargo build --quiet --profile dist --locked -p openapi-gen
OURS="$(realpath "$CARGO_TARGET_DIR/dist/openapi-gen")"
if [ ! -x "$PEERS_DIR/bin/cargo-progenitor" ]; then
  cargo install --quiet --locked cargo-progenitor --version 0.15.1 --root "$PEERS_DIR"
fi

rm -rf "$WORK" && mkdir -p "$WORK"
"$OURS" generate --spec "$DOC" --out "$WORK/ours" --crate-prefix bench --parts models,client > /dev/null
printf '[workspace]\nresolver = "3"\nmembers = ["models", "client"]\n' > "$WORK/ours/Cargo.toml"
"$PEERS_DIR/bin/cargo-progenitor" progenitor -i "$DOC" -o "$WORK/progenitor" -n bench-progenitor -v 0.1.0 > /dev/null
# Both live under target/ of this repository: each is a workspace of its own.
printf '\n[workspace]\n' >> "$WORK/progenitor/Cargo.toml"
lines() { cat "$1"/src/*.rs "$1"/*/src/*.rs 2> /dev/null | wc -l; }

check() { # dir: prints seconds of a check of the generated crates only
  (cd "$WORK/$1" && CARGO_TARGET_DIR=target cargo check --quiet --workspace > /dev/null 2>&1 || true)
  find "$WORK/$1" -path '*/target' -prune -o -name '*.rs' -print0 | xargs -0 touch
  local start end
  start=$(date +%s%N)
  (cd "$WORK/$1" && CARGO_TARGET_DIR=target cargo check --quiet --workspace)
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.2f\n", ns / 1e9 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

ours="" progenitor=""
for ((round = 1; round <= ROUNDS; round++)); do
  ours+="$(check ours) "
  progenitor+="$(check progenitor) "
done
printf '%-12s %10s %10s   %s\n' generator check_s lines runs
printf '%-12s %10s %10s   %s\n' ours "$(echo $ours | tr ' ' '\n' | median)" "$(lines "$WORK/ours")" "$ours"
printf '%-12s %10s %10s   %s\n' progenitor "$(echo $progenitor | tr ' ' '\n' | median)" "$(lines "$WORK/progenitor")" "$progenitor"
