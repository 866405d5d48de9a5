#!/usr/bin/env bash
# Parallel scaling of loopy's parallel scripts on the real PolyBench/C 4.2.1 files, against
# Polly's automatic parallelisation, at 1, 2, ... threads (kernel time).
#
#   benches/scaling.sh [RUNS] [KERNEL ...]      (default: 3 runs; gemm 2mm 3mm doitgen)
#   THREADS="1 2 4 8 16" benches/scaling.sh ...  (default: 1 up to the number of cores)
#   SET="MC=72" benches/scaling.sh ...           (script parameters, as `--set`)
#
# Each kernel's script is benches/polybench/scripts/KERNEL-par.loopy. loopy's program is
# first checked at MEDIUM size on 2 threads, built with -O2 -ffp-contract=off -fopenmp: it
# must print exactly what the original prints (PolyBench's array dump). Then every program
# is built at LARGE size with -O3 -march=native -DPOLYBENCH_TIME (PolyBench's timer around
# the kernel alone): loopy's with -fopenmp, the original with gcc (one thread), and the
# original with clang-16 -mllvm -polly -mllvm -polly-parallel (Polly's OpenMP code, GNU
# runtime). Runs are interleaved, RUNS times per thread count; the table gives median
# kernel times and each program's speed-up over its own one-thread time. Polly needs
# clang-16 and libpolly-16-dev; without them its columns are skipped with a message.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
shift || true
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(gemm 2mm 3mm doitgen)
threads=${THREADS:-$(seq -s ' ' 1 "$(nproc)")}
pb=benches/polybench
LOOPY=${LOOPY:-target/release/loopy}
[ -x "$LOOPY" ] || cargo build --release --quiet
CC=${CC:-gcc}
CLANG=${CLANG:-clang-16}
have_polly=1
if ! command -v "$CLANG" >/dev/null 2>&1 ||
  ! echo 'int main(void){return 0;}' | "$CLANG" -O3 -mllvm -polly -mllvm -polly-parallel -x c - -o /dev/null -lgomp 2>/dev/null; then
  echo "note: $CLANG with Polly is not installed (apt-get install clang-16 libpolly-16-dev); its columns are skipped"
  have_polly=0
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
printf '%-8s %7s %11s %11s %11s %9s %9s %9s\n' kernel threads gcc-orig polly loopy polly-x loopy-x vs-polly
for k in "${kernels[@]}"; do
  src=$(path_of "$k")/$k.c
  script=$pb/scripts/$k-par.loopy
  [ -f "$script" ] || { echo "$k: no $script"; exit 2; }
  inc=(-I "$pb/utilities" -I "$(path_of "$k")")
  sets=()
  for s in ${SET:-}; do sets+=(--set "$s"); done
  "$LOOPY" apply "$src" "$script" -I "$pb/utilities" -D LARGE_DATASET "${sets[@]}" \
    -o "$dir/$k-loopy.c" >/dev/null 2>"$dir/apply.log" || { cat "$dir/apply.log"; exit 1; }
  check=(-O2 -ffp-contract=off -DMEDIUM_DATASET -DPOLYBENCH_DUMP_ARRAYS "${inc[@]}")
  "$CC" "${check[@]}" "$src" "$pb/utilities/polybench.c" -o "$dir/c-orig" -lm
  "$CC" "${check[@]}" -fopenmp "$dir/$k-loopy.c" "$pb/utilities/polybench.c" -o "$dir/c-loopy" -lm
  "$dir/c-orig" 2>"$dir/out-orig" >/dev/null
  OMP_NUM_THREADS=2 "$dir/c-loopy" 2>"$dir/out-loopy" >/dev/null
  cmp -s "$dir/out-orig" "$dir/out-loopy" || { echo "$k: loopy's output differs on 2 threads"; exit 1; }
  fast=(-O3 -march=native -DLARGE_DATASET -DPOLYBENCH_TIME "${inc[@]}")
  "$CC" "${fast[@]}" "$src" "$pb/utilities/polybench.c" -o "$dir/orig" -lm
  "$CC" "${fast[@]}" -fopenmp "$dir/$k-loopy.c" "$pb/utilities/polybench.c" -o "$dir/loopy" -lm
  progs=(loopy)
  if [ $have_polly = 1 ]; then
    "$CLANG" "${fast[@]}" -mllvm -polly -mllvm -polly-parallel "$src" "$pb/utilities/polybench.c" \
      -o "$dir/polly" -lgomp -lm
    progs+=(polly)
  fi
  : >"$dir/times"
  for _ in $(seq "$runs"); do
    echo "orig 1 $("$dir/orig" | tail -1)" >>"$dir/times"
    for t in $threads; do
      for p in "${progs[@]}"; do
        echo "$p $t $(OMP_NUM_THREADS=$t "$dir/$p" | tail -1)" >>"$dir/times"
      done
    done
  done
  tm() { grep "^$1 $2 " "$dir/times" | cut -d' ' -f3 | median; }
  o=$(tm orig 1)
  l1=$(tm loopy 1)
  p1=$([ $have_polly = 1 ] && tm polly 1 || echo)
  for t in $threads; do
    l=$(tm loopy "$t")
    if [ $have_polly = 1 ]; then
      p=$(tm polly "$t")
      printf '%-8s %7s %10.4fs %10.4fs %10.4fs %8.2fx %8.2fx %8.2fx\n' "$k" "$t" "$o" "$p" "$l" \
        "$(echo "$p1 / $p" | bc -l)" "$(echo "$l1 / $l" | bc -l)" "$(echo "$p / $l" | bc -l)"
    else
      printf '%-8s %7s %10.4fs %11s %10.4fs %9s %8.2fx %9s\n' "$k" "$t" "$o" - "$l" - \
        "$(echo "$l1 / $l" | bc -l)" -
    fi
  done
done
echo "medians of $runs runs, kernel time (PolyBench's timer), LARGE; -O3 -march=native"
echo "polly-x, loopy-x: speed-up over the same program on one thread; vs-polly: loopy against Polly at that thread count"
