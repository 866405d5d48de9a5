#!/usr/bin/env bash
# `loopy search` with and without the BLIS recipe on the real PolyBench files of the
# contraction kernels, against the best hand script: for each kernel, the search without
# recipes (`--no-recipes`, the search as it was) and with them, each with the same time
# limit; then one run side by side: the original and each script's generated program (the
# two searches' best and the hand script; their outputs were compared with the original's
# by the search and by `loopy check`) built with `-O3 -march=native`, run in RUNS
# interleaved rounds, PolyBench's kernel timer, medians; speedups over the original.
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
    doitgen) dir=$PB/linear-algebra/kernels/doitgen; sizes=(-D NQ=140 -D NR=150 -D NP=160) ;;
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
  # One run side by side: the original and every script's generated program built alike
  # (PolyBench's kernel timer, -DPOLYBENCH_TIME), run in interleaved rounds; medians.
  w="$out/$k-sbs"; mkdir -p "$w"
  progs=(orig)
  cp "$src" "$w/orig.c"
  for v in before after hand; do
    case $v in hand) s="$PB/scripts/$k.loopy" ;; *) s="$out/$k-$v.loopy" ;; esac
    [ -s "$s" ] || continue
    "$LOOPY" apply "$src" "$s" -I "$PB/utilities" -I "$dir" "${sizes[@]}" >"$w/$v.c" 2>/dev/null || continue
    progs+=("$v")
  done
  for v in "${progs[@]}"; do
    ${CC:-cc} -O3 -march=native -I "$PB/utilities" -I "$dir" "${sizes[@]}" -DPOLYBENCH_TIME \
      "$w/$v.c" "$PB/utilities/polybench.c" -lm -o "$w/$v" 2>"$w/$v.err"
  done
  : >"$w/times"
  for _ in $(seq "$runs"); do
    for v in "${progs[@]}"; do echo "$v $("$w/$v")" >>"$w/times"; done
  done
  read -r b a h < <(python3 - "$w/times" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    v, x = line.split()
    t.setdefault(v, []).append(float(x))
m = {v: statistics.median(x) for v, x in t.items()}
print(*(f"{m['orig'] / m[v]:.2f}" if v in m else "-" for v in ("before", "after", "hand")))
PY
)
  printf '%-6s %14.0f %14.0f %12s %10s %10s %10s\n' "$k" "$(echo "$t1 - $t0" | bc -l)" "$(echo "$t2 - $t1" | bc -l)" "$k.loopy" "$b" "$a" "$h"
  sed -n 's/^cost model: rank correlation \([-0-9.]*\) with the measured times of the \([0-9]*\).*/  model: rank correlation \1 over \2 candidates/p' "$out/$k-after.txt"
done
echo "outputs in $out"
