#!/usr/bin/env bash
# What a program that calls one operation pays in a release build: the time of
# `cargo build --release` of our generated models + client and a small binary around the call
# (dependencies prebuilt, sources touched, CARGO_INCREMENTAL=0), and the binary's size, with
# every group (the default features) against the call's group alone
# (`default-features = false, features = [GROUP]`). Rounds alternate; medians printed.
#
#   generator/bench/release-cost.sh DOC GROUP 'CALL'
#   generator/bench/release-cost.sh ../shared/corpus/stripe-3.0.json customers \
#     'client.get_customers_customer("cus_1").await'
#
# CALL is an expression on `client` (a `bench_client::Client`); the program prints its result.
# OURS, ROUNDS (default 3) and WORK (default target/release-cost) as in check-cost.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
DOC="$(realpath "$1")"
GROUP="$2"
CALL="$3"
ROUNDS="${ROUNDS:-3}"
WORK="$(realpath -m "${WORK:-target/release-cost}")"
export CARGO_INCREMENTAL=0
if [ -z "${OURS:-}" ]; then
  cargo build --quiet --profile dist --locked -p openapi-gen
  OURS="${CARGO_TARGET_DIR:-target}/dist/openapi-gen"
fi
OURS="$(realpath "$OURS")"

# The target directory stays: its dependencies are built once for every run.
rm -rf "$WORK/models" "$WORK/client" "$WORK/app" && mkdir -p "$WORK/app/src"
"$OURS" generate --spec "$DOC" --out "$WORK" --crate-prefix bench --parts models,client > /dev/null 2>&1
printf '[workspace]\nresolver = "3"\nmembers = ["models", "client", "app"]\n' > "$WORK/Cargo.toml"
cat > "$WORK/app/Cargo.toml" << EOF
[package]
name = "app"
version = "0.1.0"
edition = "2024"

[features]
default = ["bench-client/default"]
group = ["bench-client/$GROUP"]

[dependencies]
bench-client = { path = "../client", default-features = false }
tokio = { version = "1", features = ["rt", "macros"] }
EOF
cat > "$WORK/app/src/main.rs" << EOF
#[tokio::main(flavor = "current_thread")]
async fn main() {
    let client = bench_client::Client::new("http://127.0.0.1:9").expect("a base URL");
    println!("{:?}", $CALL);
}
EOF

build() { # cargo args...: prints seconds and bytes of a release build of the generated crates
  (cd "$WORK" && CARGO_TARGET_DIR="$WORK/target" cargo build --quiet --release -p app "$@" > /dev/null 2>&1 || true)
  find "$WORK/models" "$WORK/client" "$WORK/app" -name '*.rs' -print0 | xargs -0 touch
  local start end
  start=$(date +%s%N)
  (cd "$WORK" && CARGO_TARGET_DIR="$WORK/target" cargo build --quiet --release -p app "$@")
  end=$(date +%s%N)
  awk -v ns=$((end - start)) -v bytes="$(stat -c %s "$WORK/target/release/app")" \
    'BEGIN { printf "%.1f %d\n", ns / 1e9, bytes }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

full="" group="" full_size="" group_size=""
for ((round = 1; round <= ROUNDS; round++)); do
  read -r s b < <(build)
  full+="$s " full_size="$b"
  read -r s b < <(build --no-default-features --features group)
  group+="$s " group_size="$b"
done
printf '%-24s %10s %12s   %s\n' build release_s binary_bytes runs
printf '%-24s %10s %12s   %s\n' "every group" "$(echo $full | tr ' ' '\n' | median)" "$full_size" "$full"
printf '%-24s %10s %12s   %s\n' "$GROUP alone" "$(echo $group | tr ' ' '\n' | median)" "$group_size" "$group"
