#!/bin/sh
# Times an example's original program under gcc and under clang -O3 -mllvm -polly against
# the program transformed by loopy (gcc), after checking that all three print the same.
#
#   benches/polly_baseline.sh KERNEL.c SCRIPT.loopy RUNS [-DNAME=VALUE ...]
#
# Needs clang-16 with Polly (Debian: apt-get install clang-16 libpolly-16-dev); skips with
# a message without it. All builds use -O3 -march=native -ffp-contract=off, so that no
# compiler fuses multiplies and adds differently and the outputs can be compared bit for
# bit. Prints the median wall time of each program over RUNS interleaved runs.
set -eu
kernel=$1; script=$2; runs=$3; shift 3
CLANG=${CLANG:-clang-16}
if ! command -v "$CLANG" >/dev/null 2>&1 || \
   ! echo 'int main(void){return 0;}' | "$CLANG" -O3 -mllvm -polly -x c - -o /dev/null 2>/dev/null; then
  echo "skipped: $CLANG with Polly is not installed (apt-get install clang-16 libpolly-16-dev)"
  exit 0
fi
LOOPY=${LOOPY:-target/release/loopy}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
flags="-O3 -march=native -ffp-contract=off $*"
"$LOOPY" apply "$kernel" "$script" -o "$dir/new.c" >/dev/null
gcc $flags "$kernel" -o "$dir/orig-gcc" -lm
gcc $flags "$dir/new.c" -o "$dir/loopy-gcc" -lm
"$CLANG" $flags -mllvm -polly "$kernel" -o "$dir/orig-polly" -lm
for p in orig-gcc loopy-gcc orig-polly; do "$dir/$p" > "$dir/$p.out"; done
cmp -s "$dir/orig-gcc.out" "$dir/loopy-gcc.out" || { echo "outputs differ: loopy"; exit 1; }
cmp -s "$dir/orig-gcc.out" "$dir/orig-polly.out" || { echo "outputs differ: polly"; exit 1; }
echo "outputs identical"
now() { date +%s.%N; }
for i in $(seq "$runs"); do
  for p in orig-gcc loopy-gcc orig-polly; do
    t0=$(now); "$dir/$p" >/dev/null; t1=$(now)
    echo "$p $(echo "$t1 - $t0" | bc)" >> "$dir/times"
  done
done
for p in orig-gcc loopy-gcc orig-polly; do
  med=$(grep "^$p " "$dir/times" | cut -d' ' -f2 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$p $med"
done
