#!/usr/bin/env bash
# The price of the no-overlap test: for every fast script, the kernel time of the program
# `loopy apply` writes by default (the transformed region under the run-time test that the
# arrays do not overlap, the original code as the other branch) against the same script
# with `--assume-no-overlap` (no test), on the real PolyBench/C 4.2.1 files, whose kernels
# take their arrays as parameters.
#
#   benches/overlap.sh [RUNS] [SCRIPT ...]     (default: 5 runs; every fast script)
#
# The fast scripts: benches/polybench/scripts/KERNEL.loopy (not the -par ones, which are
# benches/scaling.sh's) and examples/KERNEL/KERNEL-fast.loopy where that is another file,
# each applied to PolyBench's KERNEL.c. Both programs are first built at MEDIUM size with
# -O2 -ffp-contract=off: each must print exactly the original's array dump, and the default
# one must take the transformed branch (a build with LOOPY_PATH defined says which ran).
# Then both are built at LARGE with -O3 -march=native -DPOLYBENCH_TIME (PolyBench's timer
# around the kernel alone) and run RUNS times interleaved; the table gives the median and
# the best kernel times and checked/unchecked of the medians. Needs only gcc (CC).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
pb=benches/polybench
scripts=("$@")
if [ ${#scripts[@]} -eq 0 ]; then
  for f in "$pb"/scripts/*.loopy examples/*/*-fast.loopy; do
    case $f in *-par.loopy) continue ;; esac
    real=$(realpath "$f")
    seen=0
    for s in "${scripts[@]}"; do [ "$(realpath "$s")" = "$real" ] && seen=1; done
    [ $seen = 1 ] || scripts+=("$f")
  done
fi
LOOPY=${LOOPY:-target/release/loopy}
[ -x "$LOOPY" ] || cargo build --release --quiet
CC=${CC:-gcc}
command -v "$CC" >/dev/null 2>&1 || { echo "skipped: no C compiler ($CC)"; exit 0; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
kernel_dir() {
  for g in blas kernels; do
    [ -f "$pb/linear-algebra/$g/$1/$1.c" ] && { echo "$pb/linear-algebra/$g/$1"; return; }
  done
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { sort -g | head -1; }
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "compiler: $($CC --version | head -1)"
printf '%-40s %11s %11s %11s %11s %8s\n' script checked unchecked best-chk best-unchk ratio
for script in "${scripts[@]}"; do
  k=$(basename "$script" .loopy)
  k=${k%-fast}
  kd=$(kernel_dir "$k")
  if [ -z "$kd" ]; then
    echo "$script: no PolyBench file $k.c; skipped"
    continue
  fi
  src=$kd/$k.c
  inc=(-I "$pb/utilities" -I "$kd")
  for v in checked unchecked; do
    extra=()
    [ $v = unchecked ] && extra=(--assume-no-overlap)
    # One file for every dataset size: the extents come from the compiler.
    "$LOOPY" apply "$src" "$script" "${inc[@]}" -D LARGE_DATASET "${extra[@]}" \
      -o "$dir/$v.c" >/dev/null 2>"$dir/apply.log" || { cat "$dir/apply.log"; exit 1; }
  done
  check=(-O2 -ffp-contract=off -DMEDIUM_DATASET -DPOLYBENCH_DUMP_ARRAYS "${inc[@]}")
  "$CC" "${check[@]}" "$src" "$pb/utilities/polybench.c" -o "$dir/c-orig" -lm
  "$dir/c-orig" 2>"$dir/out-orig" >/dev/null
  for v in checked unchecked; do
    "$CC" "${check[@]}" '-DLOOPY_PATH(p)=fputs(p "\n", stdout)' "$dir/$v.c" \
      "$pb/utilities/polybench.c" -o "$dir/c-$v" -lm
    "$dir/c-$v" 2>"$dir/out-$v" >"$dir/path-$v"
    cmp -s "$dir/out-orig" "$dir/out-$v" || { echo "$script: $v output differs"; exit 1; }
  done
  grep -qx transformed "$dir/path-checked" ||
    { echo "$script: the checked build did not take the transformed branch"; exit 1; }
  fast=(-O3 -march=native -DLARGE_DATASET -DPOLYBENCH_TIME "${inc[@]}")
  for v in checked unchecked; do
    "$CC" "${fast[@]}" "$dir/$v.c" "$pb/utilities/polybench.c" -o "$dir/$v" -lm
  done
  : >"$dir/times"
  for _ in $(seq "$runs"); do
    for v in checked unchecked; do echo "$v $("$dir/$v" | tail -1)" >>"$dir/times"; done
  done
  t() { grep "^$1 " "$dir/times" | cut -d' ' -f2 | "$2"; }
  c=$(t checked median)
  u=$(t unchecked median)
  printf '%-40s %10.4fs %10.4fs %10.4fs %10.4fs %7.3fx\n' "$script" "$c" "$u" \
    "$(t checked best)" "$(t unchecked best)" "$(echo "$c / $u" | bc -l)"
done
echo "kernel time (PolyBench's timer), LARGE, medians and best of $runs interleaved runs;"
echo "$CC -O3 -march=native; ratio = checked / unchecked (medians), 1.05 at most is the aim"
