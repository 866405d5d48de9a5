#!/usr/bin/env bash
# Block sizes side by side: one kernel's fast script built with the machine model's sizes
# and with each alternative given, every program run in the same interleaved rounds, so
# that the ratios compare sizes, not runs. For checking the model on a machine kind.
#
#   benches/blocking.sh RUNS KERNEL "KC=192 MC=504" "KC=256 MC=112" ...
#   FLOAT=1 benches/blocking.sh ...            (single precision)
#
# KERNEL is one of benches/polybench/scripts/ (gemm, 2mm, 3mm, doitgen, ...). The first
# program is the script as it is (its `param X = model` values); each further argument is
# a set of `--set` values for one more program. gemm is compared with OpenBLAS's one-thread
# dgemm (sgemm with FLOAT=1) where it is installed (apt-get install libopenblas-dev), the
# other kernels with the original under clang-16 and Polly (apt-get install clang-16
# libpolly-16-dev); a missing reference is skipped with a message. Every program's output
# is first compared with the original's at MEDIUM size; times are PolyBench's kernel timer
# at LARGE size, -O3 -march=native, medians of RUNS rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || {
  echo "usage: benches/blocking.sh RUNS KERNEL [\"NAME=VALUE ...\" ...]" >&2
  exit 2
}
runs=$1
k=$2
shift 2
variants=("" "$@")
pb=benches/polybench
LOOPY=${LOOPY:-target/release/loopy}
[ -x "$LOOPY" ] || cargo build --release --quiet
CC=${CC:-gcc}
CLANG=${CLANG:-clang-16}
prec=()
lprec=()
blas_call=cblas_dgemm
if [ "${FLOAT:-0}" = 1 ]; then
  prec=(-DDATA_TYPE_IS_FLOAT)
  lprec=(-D DATA_TYPE_IS_FLOAT)
  blas_call=cblas_sgemm
fi
case $k in
  gemm | syrk | syr2k | symm | trmm) kdir=$pb/linear-algebra/blas/$k ;;
  *) kdir=$pb/linear-algebra/kernels/$k ;;
esac
src=$kdir/$k.c
[ -f "$src" ] && [ -f "$pb/scripts/$k.loopy" ] || {
  echo "no PolyBench file or script for $k" >&2
  exit 2
}
inc=(-I "$pb/utilities" -I "$kdir")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; $($CC --version | head -1)"
"$LOOPY" machine 2>/dev/null | grep '^model for' || true
check=(-O2 -ffp-contract=off -DMEDIUM_DATASET -DPOLYBENCH_DUMP_ARRAYS "${prec[@]}" "${inc[@]}")
fast=(-O3 -march=native -DLARGE_DATASET -DPOLYBENCH_TIME "${prec[@]}" "${inc[@]}")
"$CC" "${check[@]}" "$src" "$pb/utilities/polybench.c" -o "$dir/c-orig" -lm
"$dir/c-orig" 2>"$dir/out-orig" >/dev/null
progs=()
for i in "${!variants[@]}"; do
  sets=()
  for s in ${variants[$i]}; do sets+=(--set "$s"); done
  for size in MEDIUM LARGE; do
    "$LOOPY" apply "$src" "$pb/scripts/$k.loopy" -I "$pb/utilities" -D "${size}_DATASET" "${lprec[@]}" \
      ${sets[@]+"${sets[@]}"} -o "$dir/v$i-$size.c" >/dev/null 2>"$dir/apply.log" || {
      cat "$dir/apply.log"
      exit 1
    }
  done
  "$CC" "${check[@]}" "$dir/v$i-MEDIUM.c" "$pb/utilities/polybench.c" -o "$dir/c-v$i" -lm
  "$dir/c-v$i" 2>"$dir/out-v$i" >/dev/null
  cmp -s "$dir/out-orig" "$dir/out-v$i" || {
    echo "$k with '${variants[$i]}': output differs from the original's"
    exit 1
  }
  "$CC" "${fast[@]}" "$dir/v$i-LARGE.c" "$pb/utilities/polybench.c" -o "$dir/v$i" -lm
  progs+=("v$i")
done
ref=
if [ "$k" = gemm ]; then
  if echo 'int main(void){return 0;}' | "$CC" -x c - -lopenblas -o /dev/null 2>/dev/null; then
    awk -v call="$blas_call" '/#pragma scop/ {print "  " call "(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, nj, nk, alpha, &A[0][0], nk, &B[0][0], nj, beta, &C[0][0], nj);"; skip=1; next}
         /#pragma endscop/ {skip=0; next} !skip {print}' "$src" | sed '1i #include <cblas.h>' >"$dir/blas.c"
    "$CC" "${fast[@]}" "$dir/blas.c" "$pb/utilities/polybench.c" -o "$dir/ref" -lopenblas -lm
    ref=OpenBLAS
  else
    echo "note: OpenBLAS is not installed (apt-get install libopenblas-dev); no reference"
  fi
elif command -v "$CLANG" >/dev/null 2>&1 &&
  echo 'int main(void){return 0;}' | "$CLANG" -O3 -mllvm -polly -x c - -o /dev/null 2>/dev/null; then
  "$CLANG" "${fast[@]}" -mllvm -polly "$src" "$pb/utilities/polybench.c" -o "$dir/ref" -lm
  ref=Polly
else
  echo "note: $CLANG with Polly is not installed (apt-get install clang-16 libpolly-16-dev); no reference"
fi
[ -n "$ref" ] && progs+=(ref)
: >"$dir/times"
for r in $(seq "$runs"); do
  for p in "${progs[@]}"; do
    echo "$p $(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$dir/$p" | tail -1)" >>"$dir/times"
  done
  echo "round $r of $runs" >&2
done
t() { grep "^$1 " "$dir/times" | cut -d' ' -f2 | median; }
printf '%-40s %12s %12s\n' "$k sizes" "kernel" "${ref:+vs $ref}"
for i in "${!variants[@]}"; do
  v=$(t "v$i")
  name=${variants[$i]:-the model\'s}
  if [ -n "$ref" ]; then
    rt=$(t ref)
    if [ "$ref" = OpenBLAS ]; then vs=$(echo "100 * $rt / $v" | bc -l | xargs printf '%.0f%%'); else vs=$(echo "$rt / $v" | bc -l | xargs printf '%.2fx'); fi
  else vs=; fi
  printf '%-40s %11.4fs %12s\n' "$name" "$v" "$vs"
done
[ -n "$ref" ] && printf '%-40s %11.4fs\n' "$ref" "$(t ref)"
echo "medians of $runs interleaved rounds, kernel time (PolyBench's timer), LARGE; -O3 -march=native"
