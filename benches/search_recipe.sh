#!/usr/bin/env bash
# `loopy search` with and without the BLIS recipe on the real PolyBench files of the
# contraction kernels, against the best hand script: for each kernel, the search without
# recipes (`--no-recipes`, the search as it was) and with them, each with the same time
# limit, then one `loopy bench` per script (the two searches' best and the hand script),
# kernel time, each against the original in its own interleaved rounds.
#
#   benches/search_recipe.sh [KERNEL ...]     (default: gemm 2mm 3mm syrk; syr2k too)
#   LIMIT=120 RUNS=3 OUT=dir benches/search_recipe.sh
#   BEFORE=0 benches/search_recipe.sh syrk syr2k    (skip the search without recipes)
set -euo pipefail
cd "$(dirname "$0")/.."
kernels=("$@")
[ ${#kernels[@]} -eq 0 ] && kernels=(gemm 2mm 3mm syrk)
limit=${LIMIT:-120}
runs=${RUNS:-3}
LOOPY=${LOOPY:-target/release/loopy}
PB=benches/polybench
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
flags=(--cflags "-O3 -march=native" --check-define POLYBENCH_DUMP_ARRAYS)
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; $(${CC:-cc} --version | head -1); load $(cut -d' ' -f1-3 /proc/loadavg); limit $limit s"
printf '%-6s %14s %14s %12s %10s %10s %10s\n' kernel "before s" "after s" "hand" before after hand
for k in "${kernels[@]}"; do
  case $k in
    gemm) dir=$PB/linear-algebra/blas/gemm; sizes=(-D NI=1000 -D NJ=1100 -D NK=1200) ;;
    syrk) dir=$PB/linear-algebra/blas/syrk; sizes=(-D M=1000 -D N=1200) ;;
    syr2k) dir=$PB/linear-algebra/blas/syr2k; sizes=(-D M=1000 -D N=1200) ;;
    2mm) dir=$PB/linear-algebra/kernels/2mm; sizes=(-D NI=800 -D NJ=900 -D NK=1100 -D NL=1200) ;;
    3mm) dir=$PB/linear-algebra/kernels/3mm; sizes=(-D NI=800 -D NJ=900 -D NK=1000 -D NL=1100 -D NM=1200) ;;
    *) echo "unknown kernel $k"; continue ;;
  esac
  src=$dir/$k.c
  common=(-I "$PB/utilities" -I "$dir" "${sizes[@]}" "${flags[@]}")
  t0=$(date +%s.%N)
  if [ "${BEFORE:-1}" = 1 ]; then
    "$LOOPY" search "$src" "${common[@]}" --time-limit "$limit" --no-recipes -o "$out/$k-before.loopy" \
      -- "$PB/utilities/polybench.c" >"$out/$k-before.txt" 2>/dev/null || true
  fi
  t1=$(date +%s.%N)
  "$LOOPY" search "$src" "${common[@]}" --time-limit "$limit" -o "$out/$k-after.loopy" \
    -- "$PB/utilities/polybench.c" >"$out/$k-after.txt" 2>/dev/null || true
  t2=$(date +%s.%N)
  speed() {
    [ -s "$1" ] || { echo "-"; return; }
    "$LOOPY" bench "$src" "$1" "${common[@]}" --runs "$runs" -- "$PB/utilities/polybench.c" 2>/dev/null \
      | sed -n 's/^speedup \([0-9.]*\)×.*/\1/p' | head -1
  }
  b=$(speed "$out/$k-before.loopy"); a=$(speed "$out/$k-after.loopy"); h=$(speed "$PB/scripts/$k.loopy")
  printf '%-6s %14.0f %14.0f %12s %10s %10s %10s\n' "$k" "$(echo "$t1 - $t0" | bc -l)" "$(echo "$t2 - $t1" | bc -l)" "$k.loopy" "${b:--}" "${a:--}" "${h:--}"
  sed -n 's/^cost model: rank correlation \([-0-9.]*\) with the measured times of the \([0-9]*\).*/  model: rank correlation \1 over \2 candidates/p' "$out/$k-after.txt"
done
echo "outputs in $out"
