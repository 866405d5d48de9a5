#!/usr/bin/env bash
# `loopy search` with timing, within its default time limit, on the 30 PolyBench kernels of
# examples/, one thread, kernel time: how long each search ran, how many schedules it timed,
# and the speedup over the original (gcc) of the best one it found, beside the speedup of
# the kernel's best hand script (every script of the kernel in examples/loopy.toml
# competes, as in benches/polybench30.sh).
#
#   benches/search30.sh [KERNEL ...]        (default: the 30 kernels)
#   SIZE=medium benches/search30.sh         (the manifest's sizes.NAME; default large)
#   RUNS=5 benches/search30.sh              (rounds of each bench; default 3)
#   OUT=dir benches/search30.sh             (keep each search's JSON and best script there)
#   LIMIT=120 benches/search30.sh           (each search's --time-limit; default the search's)
#   REUSE=1 OUT=dir benches/search30.sh     (time again the scripts an earlier run left in
#                                            dir, without searching; seconds from its JSON)
#   NOBENCH=1 benches/search30.sh           (`search --no-bench`: the model's answer, nothing
#                                            timed by the search)
#   POLLY=0 benches/search30.sh             (no Polly column; by default the original built
#                                            with clang-16 -O3 -march=native -mllvm -polly
#                                            runs in the same rounds when clang-16 has Polly)
#
# For each kernel: `loopy search KERNEL.c -D <sizes> --format json -o best.loopy` (default
# limits: 300 s, 48 interleavings scheduled, tile sizes around the machine model's); the
# best hand script chosen by `loopy bench --manifest --best` (its own rounds); both scripts
# built and their outputs checked against the original's by `loopy bench --keep`; then the
# original and the two programs run side by side in the same RUNS interleaved rounds, each
# reporting its kernel time, so both speedups and their ratio come from one run.
set -euo pipefail
cd "$(dirname "$0")/.."
# sizes K (the manifest's sizes.SIZE of the first entry for examples/K/K.c), polybench30.
. benches/manifest_sizes.sh
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
  kernels=("${polybench30[@]}")
fi
size=${SIZE:-large}
runs=${RUNS:-3}
LOOPY=${LOOPY:-target/release/loopy}
[ -x "$LOOPY" ] || cargo build --release --quiet
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
manifest=examples/loopy.toml
CLANG=${CLANG:-clang-16}
CC_CHECK=${CC:-cc}
polly=0
if [ "${POLLY:-1}" = 1 ]; then
  if command -v "$CLANG" >/dev/null 2>&1 && \
     echo 'int main(void){return 0;}' | "$CLANG" -O3 -mllvm -polly -x c - -o /dev/null 2>/dev/null; then
    polly=1
  else
    echo "note: $CLANG with Polly is not installed (apt-get install clang-16 libpolly-16-dev); no Polly column"
  fi
fi
pnote=""
[ "$polly" = 1 ] && pnote=" and the original under Polly ($CLANG -O3 -march=native -mllvm -polly)"
nobench=()
[ "${NOBENCH:-0}" = 1 ] && nobench=(--no-bench)
. benches/rounds.sh
first() { sed -n 's/.*"'"$1"'": *"\{0,1\}\([^",]*\)"\{0,1\},\{0,1\}$/\1/p' "$2" | head -1; }
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; $(${CC:-cc} --version | head -1); size $size; load $(cut -d' ' -f1-3 /proc/loadavg)${LIMIT:+; time limit $LIMIT s}${nobench:+; search --no-bench}"
printf '%-16s %8s %6s %6s %8s %8s %8s %8s %8s  %s\n' kernel seconds timed legal search hand ratio polly "s/polly" "hand script"
for k in "${kernels[@]}"; do
  src=examples/$k/$k.c
  defs=()
  for d in $(sizes "$k"); do defs+=(-D "$d"); done
  only=(--only "$k")
  for n in $(sed -n "s/^name = \"\\($k-[a-z]*\\)\"/\\1/p" "$manifest"); do only+=(--only "$n"); done
  rc=0
  if [ "${REUSE:-0}" = 1 ] && [ -s "$out/$k-best.loopy" ] && [ -s "$out/$k-search.json" ]; then
    secs=$(sed -n 's/^  "seconds": \([0-9.]*\).*/\1/p' "$out/$k-search.json" | tail -1)
  else
    start=$(date +%s.%N)
    limit=()
    [ -n "${LIMIT:-}" ] && limit=(--time-limit "$LIMIT")
    "$LOOPY" search "$src" "${defs[@]}" ${limit[@]+"${limit[@]}"} ${nobench[@]+"${nobench[@]}"} \
      --format json -o "$out/$k-best.loopy" \
      >"$out/$k-search.json" 2>"$out/$k-search.err" || rc=$?
    secs=$(echo "$(date +%s.%N) - $start" | bc -l)
  fi
  if [ $rc -ne 0 ] || [ ! -s "$out/$k-best.loopy" ]; then
    printf '%-16s %8.1f  search found no script (exit %s): see %s\n' "$k" "$secs" "$rc" "$out/$k-search.err"
    continue
  fi
  timed=$(grep -c "\"transformed_seconds\": [0-9]" "$out/$k-search.json" || true)
  legal=$(grep -c '"verdict": "legal"' "$out/$k-search.json" || true)
  # The best hand script, chosen by the manifest's bench (its own rounds).
  "$LOOPY" bench --manifest "$manifest" --best --threads 1 --size "$size" --runs "$runs" \
    "${only[@]}" --format json >"$out/$k-hand.json" 2>/dev/null || true
  hs=$(first script "$out/$k-hand.json")
  # Both scripts built and checked by `bench` (outputs identical to the original's), then
  # the original and the two programs run side by side in interleaved rounds, each
  # reporting its kernel time (LOOPY_KERNEL_TIME, docs/bench.md).
  w="$out/$k-sbs"
  rm -rf "$w"
  progs=()
  if "$LOOPY" bench "$src" "$out/$k-best.loopy" "${defs[@]}" --runs 1 --keep "$w/search" >/dev/null 2>&1; then
    progs+=("orig:$w/search/$k.original" "search:$w/search/$k.transformed")
  fi
  if [ -n "$hs" ] && "$LOOPY" bench "$src" "$hs" "${defs[@]}" --runs 1 --keep "$w/hand" >/dev/null 2>&1; then
    progs+=("hand:$w/hand/$k.transformed")
  fi
  # The original (its kept source, the modelled region bracketed by the kernel clock)
  # built by clang with Polly; its output checked against gcc's build of the original.
  if [ "$polly" = 1 ] && [ -s "$w/search/$k.original.c" ]; then
    cdefs=()
    for d in $(sizes "$k"); do cdefs+=("-D$d"); done
    srcs=("$w/search/$k.original.c" "$w/search/loopy_kernel_clock.c")
    if "$CLANG" -O3 -march=native -mllvm -polly -ffp-contract=off "${cdefs[@]}" "${srcs[@]}" \
         -o "$w/polly-check" -lm 2>/dev/null &&
       "$CC_CHECK" -O3 -march=native -ffp-contract=off "${cdefs[@]}" "${srcs[@]}" \
         -o "$w/gcc-check" -lm 2>/dev/null &&
       cmp -s <("$w/polly-check") <("$w/gcc-check") &&
       "$CLANG" -O3 -march=native -mllvm -polly "${cdefs[@]}" "${srcs[@]}" -o "$w/polly" -lm \
         2>/dev/null; then
      progs+=("polly:$w/polly")
    else
      echo "note: $k: Polly's build of the original did not build or printed something else" >&2
    fi
  fi
  rounds "$w" "$runs" "${progs[@]}"
  o=$(median "$w" orig)
  t_s=$(median "$w" search)
  t_h=$(median "$w" hand)
  t_p=$(median "$w" polly)
  sp() { [ -n "$o" ] && [ -n "$1" ] && echo "$o / $1" | bc -l || echo 0; }
  r=$([ -n "$t_h" ] && [ -n "$t_s" ] && echo "$t_h / $t_s" | bc -l | xargs printf '%.2f' || echo -)
  rp=$([ -n "$t_p" ] && [ -n "$t_s" ] && echo "$t_p / $t_s" | bc -l | xargs printf '%.2f' || echo -)
  pp=$([ -n "$t_p" ] && printf '%.2fx' "$(sp "$t_p")" || echo -)
  printf '%-16s %8.1f %6s %6s %7.2fx %7.2fx %8s %8s %8s  %s\n' "$k" "${secs:-0}" "$timed" "$legal" \
    "$(sp "$t_s")" "$(sp "$t_h")" "$r" "$pp" "$rp" "${hs#examples/}"
done
echo "speedups over the original (gcc -O3 -march=native), kernel time, the original and both scripts' programs${pnote} in the same $runs interleaved rounds (medians); ratio: hand's time / search's; s/polly: Polly's time / search's; results in $out"
