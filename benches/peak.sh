#!/usr/bin/env bash
# Kernel time of loopy's fast scripts on the real PolyBench/C 4.2.1 files (arrays passed to
# the kernel as parameters), against the original under gcc and under clang with Polly, and
# gemm against OpenBLAS's dgemm.
#
#   benches/peak.sh [RUNS] [KERNEL ...]        (default: 5 runs; every kernel with a script)
#   SET="MR=14 NR=16" benches/peak.sh ...      (script parameters, as `--set`)
#   FLOAT=1 benches/peak.sh ...                 (single precision: -DDATA_TYPE_IS_FLOAT,
#                                                gemm against cblas_sgemm)
#
# The PolyBench files and their scripts are in benches/polybench/ (scripts/KERNEL.loopy).
# Every program is first checked at MEDIUM size, built with -O2 -ffp-contract=off: loopy's
# output must print exactly what the original prints (PolyBench's array dump); Polly's is
# compared too and reported. Then each program is built at LARGE size with -O3
# -march=native -DPOLYBENCH_TIME (PolyBench's timer around the kernel alone), and the
# programs run RUNS times interleaved; the table gives the median kernel times and loopy's
# speed against each. Polly needs clang-16 and libpolly-16-dev, OpenBLAS libopenblas-dev
# (apt-get install clang-16 libpolly-16-dev libopenblas-dev); a missing one is skipped
# with a message.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
kernels=("$@")
pb=benches/polybench
if [ ${#kernels[@]} -eq 0 ]; then
  # KERNEL-par.loopy are the parallel scripts of benches/scaling.sh.
  for f in "$pb"/scripts/*.loopy; do
    case $f in *-par.loopy) ;; *) kernels+=("$(basename "$f" .loopy)") ;; esac
  done
fi
LOOPY=${LOOPY:-target/release/loopy}
# Single precision: PolyBench's DATA_TYPE_IS_FLOAT everywhere, OpenBLAS's sgemm.
prec=()
lprec=()
blas_call=cblas_dgemm
if [ "${FLOAT:-0}" = 1 ]; then
  prec=(-DDATA_TYPE_IS_FLOAT)
  lprec=(-D DATA_TYPE_IS_FLOAT)
  blas_call=cblas_sgemm
fi
[ -x "$LOOPY" ] || cargo build --release --quiet
CC=${CC:-gcc}
CLANG=${CLANG:-clang-16}
have_polly=1
if ! command -v "$CLANG" >/dev/null 2>&1 ||
  ! echo 'int main(void){return 0;}' | "$CLANG" -O3 -mllvm -polly -x c - -o /dev/null 2>/dev/null; then
  echo "note: $CLANG with Polly is not installed (apt-get install clang-16 libpolly-16-dev); its column is skipped"
  have_polly=0
fi
have_blas=1
if ! echo 'int main(void){return 0;}' | "$CC" -x c - -lopenblas -o /dev/null 2>/dev/null; then
  echo "note: OpenBLAS is not installed (apt-get install libopenblas-dev); gemm's reference is skipped"
  have_blas=0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
path_of() {
  case $1 in
    gemm | syrk | syr2k | symm | trmm) echo "$pb/linear-algebra/blas/$1" ;;
    *) echo "$pb/linear-algebra/kernels/$1" ;;
  esac
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "compilers: $($CC --version | head -1); $([ $have_polly = 1 ] && $CLANG --version | head -1 || echo 'no clang')"
printf '%-8s %12s %12s %12s %12s %9s %9s\n' kernel gcc polly loopy openblas vs-gcc vs-polly
for k in "${kernels[@]}"; do
  src=$(path_of "$k")/$k.c
  inc=(-I "$pb/utilities" -I "$(path_of "$k")")
  sets=()
  for s in ${SET:-}; do sets+=(--set "$s"); done
  "$LOOPY" apply "$src" "$pb/scripts/$k.loopy" -I "$pb/utilities" -D LARGE_DATASET "${lprec[@]}" "${sets[@]}" \
    -o "$dir/$k-loopy.c" >/dev/null 2>"$dir/apply.log" || { cat "$dir/apply.log"; exit 1; }
  progs=(orig loopy)
  [ $have_polly = 1 ] && progs+=(polly)
  # Outputs at MEDIUM size, without contraction, must be identical.
  check=(-O2 -ffp-contract=off -DMEDIUM_DATASET -DPOLYBENCH_DUMP_ARRAYS "${prec[@]}" "${inc[@]}")
  "$CC" "${check[@]}" "$src" "$pb/utilities/polybench.c" -o "$dir/c-orig" -lm
  "$CC" "${check[@]}" "$dir/$k-loopy.c" "$pb/utilities/polybench.c" -o "$dir/c-loopy" -lm
  "$dir/c-orig" 2>"$dir/out-orig" >/dev/null
  "$dir/c-loopy" 2>"$dir/out-loopy" >/dev/null
  cmp -s "$dir/out-orig" "$dir/out-loopy" || { echo "$k: loopy's output differs"; exit 1; }
  if [ $have_polly = 1 ]; then
    "$CLANG" "${check[@]}" -mllvm -polly "$src" "$pb/utilities/polybench.c" -o "$dir/c-polly" -lm
    "$dir/c-polly" 2>"$dir/out-polly" >/dev/null
    cmp -s "$dir/out-orig" "$dir/out-polly" || echo "note: $k: Polly's output differs from the original"
  fi
  fast=(-O3 -march=native -DLARGE_DATASET -DPOLYBENCH_TIME "${prec[@]}" "${inc[@]}")
  "$CC" "${fast[@]}" "$src" "$pb/utilities/polybench.c" -o "$dir/orig" -lm
  "$CC" "${fast[@]}" "$dir/$k-loopy.c" "$pb/utilities/polybench.c" -o "$dir/loopy" -lm
  [ $have_polly = 1 ] &&
    "$CLANG" "${fast[@]}" -mllvm -polly "$src" "$pb/utilities/polybench.c" -o "$dir/polly" -lm
  if [ "$k" = gemm ] && [ $have_blas = 1 ]; then
    # The same program with the kernel replaced by one call of cblas_dgemm (or sgemm).
    awk -v call="$blas_call" '/#pragma scop/ {print "  " call "(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, nj, nk, alpha, &A[0][0], nk, &B[0][0], nj, beta, &C[0][0], nj);"; skip=1; next}
         /#pragma endscop/ {skip=0; next} !skip {print}' "$src" |
      sed '1i #include <cblas.h>' >"$dir/blas.c"
    "$CC" "${fast[@]}" "$dir/blas.c" "$pb/utilities/polybench.c" -o "$dir/openblas" -lopenblas -lm
    progs+=(openblas)
  fi
  : >"$dir/times"
  for _ in $(seq "$runs"); do
    for p in "${progs[@]}"; do
      echo "$p $(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$dir/$p" | tail -1)" >>"$dir/times"
    done
  done
  t() { grep "^$1 " "$dir/times" | cut -d' ' -f2 | median; }
  o=$(t orig)
  l=$(t loopy)
  py=$([ $have_polly = 1 ] && printf '%.4fs' "$(t polly)" || echo -)
  bl=$(grep -q '^openblas ' "$dir/times" && printf '%.4fs' "$(t openblas)" || echo -)
  vs_p=$([ "$py" != - ] && echo "${py%s} / $l" | bc -l | xargs printf '%.2fx' || echo -)
  printf '%-8s %11.4fs %12s %11.4fs %12s %8.2fx %9s\n' "$k" "$o" "$py" "$l" "$bl" \
    "$(echo "$o / $l" | bc -l)" "$vs_p"
  if [ "$bl" != - ]; then
    echo "  gemm: loopy reaches $(echo "100 * ${bl%s} / $l" | bc -l | xargs printf '%.0f')% of OpenBLAS's speed (one thread)"
  fi
done
echo "medians of $runs runs, kernel time (PolyBench's timer), LARGE; -O3 -march=native"
