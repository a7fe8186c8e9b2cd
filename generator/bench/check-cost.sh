#!/usr/bin/env bash
# What the generated code costs to compile: `cargo check` of our models + client crates against
# another output for the same document (default ../shared/corpus/oxide-3.0.json):
#
#   AGAINST=progenitor       cargo-progenitor 0.15.1's crate (the default)
#   AGAINST=openapi-to-rust  openapi-to-rust 0.23.0's types and client, as one crate
#   AGAINST=groups:a,b       our own crates generated with `--groups a,b` (a slice)
#   AGAINST=features:a,b     our own crates whole, checked with only the features of groups a, b
#                            (`--no-default-features --features bench-client/a,...`)
#
# Dependencies are checked once first; each timed run then checks only the generated crates again
# from scratch (sources touched, incremental compilation off, as in CI), alternating between the
# two, ROUNDS times (default 3); medians printed. The peers are installed into PEERS_DIR
# (target/bench-peers) on first use.
#
#   generator/bench/check-cost.sh [DOCUMENT]
set -euo pipefail
cd "$(dirname "$0")/../.."
DOC="$(realpath "${1:-../shared/corpus/oxide-3.0.json}")"
ROUNDS="${ROUNDS:-3}"
AGAINST="${AGAINST:-progenitor}"
PEERS_DIR="$(realpath -m "${PEERS_DIR:-target/bench-peers}")"
WORK="$(realpath -m "${WORK:-target/check-cost}")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
export CARGO_INCREMENTAL=0

# OURS: a generator binary to use instead of building the `dist` one (the code it generates is the
# same in every profile).
if [ -z "${OURS:-}" ]; then
  cargo build --quiet --profile dist --locked -p openapi-gen
  OURS="$CARGO_TARGET_DIR/dist/openapi-gen"
fi
OURS="$(realpath "$OURS")"
install_peer() { # crate version binary
  [ -x "$PEERS_DIR/bin/$3" ] && return
  cargo install --quiet --locked "$1" --version "$2" --root "$PEERS_DIR"
}

# Our models + client as a workspace of their own at $WORK/$1, with extra generate arguments.
generate_ours() { # dir [args...]
  local dir="$WORK/$1"
  shift
  "$OURS" generate --spec "$DOC" --out "$dir" --crate-prefix bench --parts models,client "$@" > /dev/null 2>&1
  printf '[workspace]\nresolver = "3"\nmembers = ["models", "client"]\n' > "$dir/Cargo.toml"
}

# The target directory stays: its dependencies are built once for every run.
rm -rf "$WORK/ours" "$WORK/other" && mkdir -p "$WORK"
generate_ours ours
OTHER_ARGS=()
case "$AGAINST" in
  progenitor)
    install_peer cargo-progenitor 0.15.1 cargo-progenitor
    "$PEERS_DIR/bin/cargo-progenitor" progenitor -i "$DOC" -o "$WORK/other" -n bench-progenitor -v 0.1.0 > /dev/null
    # It lives under target/ of this repository: a workspace of its own.
    printf '\n[workspace]\n' >> "$WORK/other/Cargo.toml"
    ;;
  openapi-to-rust)
    install_peer openapi-to-rust 0.23.0 openapi-to-rust
    "$PEERS_DIR/bin/openapi-to-rust" generate "$DOC" --output-dir "$WORK/other/src" > /dev/null 2>&1
    # It writes a module tree (`mod.rs` at its root) and the dependencies it needs: made a crate.
    mv "$WORK/other/src/mod.rs" "$WORK/other/src/lib.rs"
    {
      printf '[package]\nname = "bench-openapi-to-rust"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\n\n'
      grep -v '^#' "$WORK/other/src/REQUIRED_DEPS.toml"
    } > "$WORK/other/Cargo.toml"
    rm "$WORK/other/src/REQUIRED_DEPS.toml"
    ;;
  groups:*)
    generate_ours other --groups "${AGAINST#groups:}"
    ;;
  features:*)
    generate_ours other
    OTHER_ARGS=(--no-default-features --features "$(echo "${AGAINST#features:}" | sed 's/\([^,]*\)/bench-client\/\1/g')")
    ;;
  *)
    echo "AGAINST is progenitor, openapi-to-rust, groups:NAME[,NAME...] or features:NAME[,NAME...]" >&2
    exit 2
    ;;
esac
lines() { cat "$1"/src/*.rs "$1"/*/src/*.rs "$1"/*/src/*/*.rs 2> /dev/null | wc -l; }

# One target directory for both: the dependencies are built once (the generated crates of the two
# sides are packages of their own, at their own paths).
check() { # dir [cargo args...]: prints seconds of a check of the generated crates only
  local dir="$1"
  shift
  (cd "$WORK/$dir" && CARGO_TARGET_DIR="$WORK/target" cargo check --quiet --workspace "$@" > /dev/null 2>&1 || true)
  find "$WORK/$dir" -name '*.rs' -print0 | xargs -0 touch
  local start end
  start=$(date +%s%N)
  (cd "$WORK/$dir" && CARGO_TARGET_DIR="$WORK/target" cargo check --quiet --workspace "$@")
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.2f\n", ns / 1e9 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

ours="" other=""
for ((round = 1; round <= ROUNDS; round++)); do
  ours+="$(check ours) "
  other+="$(check other "${OTHER_ARGS[@]}") "
done
m_ours="$(echo $ours | tr ' ' '\n' | median)"
m_other="$(echo $other | tr ' ' '\n' | median)"
printf '%-24s %10s %10s   %s\n' output check_s lines runs
printf '%-24s %10s %10s   %s\n' ours "$m_ours" "$(lines "$WORK/ours")" "$ours"
printf '%-24s %10s %10s   %s\n' "$AGAINST" "$m_other" "$(lines "$WORK/other")" "$other"
awk -v a="$m_ours" -v b="$m_other" 'BEGIN { printf "ratio %s / ours: %.2f\n", ENVIRON["AGAINST"], b / a }'
