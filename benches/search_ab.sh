#!/usr/bin/env bash
# Two settings of `loopy search` on the same kernels of examples/, their answers timed side
# by side: for each kernel, the search with the options in $A, then with those in $B (each
# `--time-limit $LIMIT`, one thread, kernel time), then the original and both answers built
# and checked by `loopy bench --keep` and run in the same RUNS interleaved rounds (one
# untimed round first), each program reporting its kernel time; medians.
#
#   A="--beam 0" B="--beam 8" benches/search_ab.sh [KERNEL ...]   (default: the 30 kernels)
#   SIZE=medium ...      the manifest's sizes.NAME (default large)
#   LIMIT=60 ...         each search's --time-limit (default 120)
#   RUNS=5 ...           timed rounds (default 3)
#   OUT=dir ...          keep the searches' JSON and answers there
#   NOBENCH=1 ...        both searches with --no-bench (the model's answers)
#
# Columns: each search's seconds and what it answered with (its JSON's best or
# first_by_cost variant), the speedups of both answers over the original in the same
# rounds, and B's speedup over A's (A's time / B's time).
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/manifest_sizes.sh
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
  kernels=("${polybench30[@]}")
fi
size=${SIZE:-large}
runs=${RUNS:-3}
limit=${LIMIT:-120}
read -r -a opts_a <<<"${A:-}"
read -r -a opts_b <<<"${B:-}"
LOOPY=${LOOPY:-target/release/loopy}
[ -x "$LOOPY" ] || cargo build --release --quiet
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
nobench=()
[ "${NOBENCH:-0}" = 1 ] && nobench=(--no-bench)
. benches/rounds.sh
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; $(${CC:-cc} --version | head -1); size $size; load $(cut -d' ' -f1-3 /proc/loadavg); time limit $limit s${nobench:+; --no-bench}"
echo "A: ${A:-(defaults)}    B: ${B:-(defaults)}"
printf '%-16s %7s %7s %8s %8s %8s  %s | %s\n' kernel "A (s)" "B (s)" A B "B/A" "A's answer" "B's answer"
# What a search answered with: the variant of its best (timed) or first-by-cost candidate.
answer() {
  python3 - "$1" <<'EOF' 2>/dev/null || echo "?"
import json, sys
d = json.load(open(sys.argv[1]))
k = d.get("best") if d.get("best") is not None else d.get("first_by_cost")
if d.get("original_wins"):
    print("the kernel as it is")
elif k is None:
    print("-")
else:
    c = d["candidates"][k]
    print(c["variant"])
EOF
}
for k in "${kernels[@]}"; do
  src=examples/$k/$k.c
  defs=()
  for d in $(sizes "$k"); do defs+=(-D "$d"); done
  secs=()
  for side in A B; do
    if [ "$side" = A ]; then extra=(${opts_a[@]+"${opts_a[@]}"}); else extra=(${opts_b[@]+"${opts_b[@]}"}); fi
    start=$(date +%s.%N)
    "$LOOPY" search "$src" "${defs[@]}" --time-limit "$limit" ${nobench[@]+"${nobench[@]}"} \
      ${extra[@]+"${extra[@]}"} --format json -o "$out/$k-$side.loopy" \
      >"$out/$k-$side.json" 2>"$out/$k-$side.err" || true
    secs+=("$(echo "$(date +%s.%N) - $start" | bc -l)")
  done
  w="$out/$k-sbs"
  rm -rf "$w"
  progs=()
  for side in A B; do
    if [ -s "$out/$k-$side.loopy" ] &&
       "$LOOPY" bench "$src" "$out/$k-$side.loopy" "${defs[@]}" --runs 1 --keep "$w/$side" \
         >/dev/null 2>&1; then
      [ ${#progs[@]} -eq 0 ] && progs+=("orig:$w/$side/$k.original")
      progs+=("$side:$w/$side/$k.transformed")
    else
      echo "note: $k: $side's answer did not build or check (see $out/$k-$side.err)" >&2
    fi
  done
  rounds "$w" "$runs" "${progs[@]}"
  o=$(median "$w" orig)
  ta=$(median "$w" A)
  tb=$(median "$w" B)
  sp() { if [ -n "$o" ] && [ -n "$1" ]; then printf '%.2fx' "$(echo "$o / $1" | bc -l)"; else echo -; fi; }
  ratio=-
  [ -n "$ta" ] && [ -n "$tb" ] && ratio=$(printf '%.2f' "$(echo "$ta / $tb" | bc -l)")
  printf '%-16s %7.1f %7.1f %8s %8s %8s  %s | %s\n' "$k" "${secs[0]}" "${secs[1]}" \
    "$(sp "$ta")" "$(sp "$tb")" "$ratio" "$(answer "$out/$k-A.json")" "$(answer "$out/$k-B.json")"
done
echo "speedups over the original (${CC:-cc} -O3 -march=native), kernel time, the original and both answers in the same $runs interleaved rounds (medians); B/A: A's time / B's; results in $out"
