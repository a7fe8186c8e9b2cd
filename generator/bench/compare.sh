#!/usr/bin/env bash
# Whole-process runs of `openapi-gen generate` against cargo-progenitor and openapi-to-rust on the
# corpus documents: rounds interleave the tools (so a busy machine slows all alike), each tool's
# median wall time and peak RSS are printed with the ratio of the fastest peer to ours.
#
#   generator/bench/compare.sh [DOCUMENT...]     (default: every document in ../shared/corpus)
#
# ROUNDS (default 5) sets the runs per tool and document; PARTS (default models,server,client) the
# crates we generate (progenitor and openapi-to-rust emit models and a client, no server);
# PEERS_DIR (default target/bench-peers)
# is where the peers are installed with `cargo install --locked` when missing. A peer that exits
# non-zero on a document (a panic or an error) is reported as rejecting it.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${ROUNDS:-5}"
PARTS="${PARTS:-models,server,client}"
PEERS_DIR="${PEERS_DIR:-target/bench-peers}"
PROGENITOR_VERSION=0.15.1
OPENAPI_TO_RUST_VERSION=0.23.0
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"

cargo build --quiet --profile dist --locked -p openapi-gen
OURS="$CARGO_TARGET_DIR/dist/openapi-gen"
install_peer() { # crate version binary
  [ -x "$PEERS_DIR/bin/$3" ] && return
  echo "installing $1 $2 into $PEERS_DIR (once)" >&2
  cargo install --quiet --locked "$1" --version "$2" --root "$PEERS_DIR"
}
install_peer cargo-progenitor "$PROGENITOR_VERSION" cargo-progenitor
install_peer openapi-to-rust "$OPENAPI_TO_RUST_VERSION" openapi-to-rust

if [ $# -gt 0 ]; then docs=("$@"); else docs=(../shared/corpus/*.json ../shared/corpus/*.yaml); fi
# Output goes to tmpfs (/dev/shm) when there is one. Each run deletes the previous run's output,
# and ext4 without a journal (as on the machine this was tuned on) skips every inode deleted in the
# last 5-35 s when it allocates one: the loop would time the file system's scan, which grows with
# the loop's own deletions, more than the tools (petstore: 3.9 ms into /tmp, 3.3 ms into /dev/shm).
# SCRATCH_ROOT overrides the place.
SCRATCH_ROOT="${SCRATCH_ROOT:-$([ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")}"
scratch="$(mktemp -d -p "$SCRATCH_ROOT")"
trap 'rm -rf "$scratch"' EXIT

# The command line of a tool for a document and an output directory.
command_of() { # tool document outdir
  case "$1" in
    ours) echo "$OURS" generate --spec "$2" --out "$3" --crate-prefix bench --parts "$PARTS" ;;
    progenitor) echo "$PEERS_DIR/bin/cargo-progenitor" progenitor -i "$2" -o "$3" -n bench -v 0.1.0 ;;
    openapi-to-rust) echo "$PEERS_DIR/bin/openapi-to-rust" generate "$2" --output-dir "$3" ;;
  esac
}

# Runs once into a fresh directory; prints "ms kb", or "rejected" when the tool exits non-zero.
# (Paths here contain no spaces, so the command line splits on them.) timed.py reads the clock
# around the child alone: process starts of the measuring shell would be a floor of 5-10 ms.
timed() { # tool document
  local out="$scratch/out"
  rm -rf "$out"
  # shellcheck disable=SC2046
  python3 generator/bench/timed.py "$scratch/log" $(command_of "$1" "$2" "$out") || echo rejected
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

tools=(ours progenitor openapi-to-rust)
printf '%-40s %9s %9s %9s %9s %12s %12s\n' document ours_ms rss_mb progen_ms o2r_ms vs_progen vs_o2r
for doc in "${docs[@]}"; do
  declare -A times=() rss=() rejected=()
  for ((round = 1; round <= ROUNDS; round++)); do
    for tool in "${tools[@]}"; do
      [ -n "${rejected[$tool]:-}" ] && continue
      result=$(timed "$tool" "$doc")
      if [ "$result" = rejected ]; then rejected[$tool]=1; continue; fi
      times[$tool]+="${result% *} "
      rss[$tool]+="${result#* } "
    done
  done
  cell() { # tool
    if [ -n "${rejected[$1]:-}" ]; then echo rejects; else echo "${times[$1]}" | tr ' ' '\n' | grep . | median | awk '{ printf "%.1f", $1 }'; fi
  }
  ours_ms=$(cell ours)
  ours_mb=$(echo "${rss[ours]:-}" | tr ' ' '\n' | grep . | median | awk '{ printf "%.0f", $1 / 1024 }')
  ratio() { # peer_ms
    case "$1" in rejects|-) echo "-" ;; *) awk -v p="$1" -v o="$ours_ms" 'BEGIN { printf "%.1fx", p / (o > 0 ? o : 1) }' ;; esac
  }
  p=$(cell progenitor); o=$(cell openapi-to-rust)
  printf '%-40s %9s %9s %9s %9s %12s %12s\n' "$(basename "$doc")" "$ours_ms" "$ours_mb" "$p" "$o" "$(ratio "$p")" "$(ratio "$o")"
  unset times rss rejected
done
echo "ratios: peer median / our median (above 1.0x: ours is faster); ours generated: $PARTS"
