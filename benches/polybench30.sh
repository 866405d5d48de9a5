#!/usr/bin/env bash
# The 30 PolyBench kernels of examples/ at LARGE size, one thread, kernel time: loopy's best
# script for each (every script of the kernel in examples/loopy.toml competes, parallel ones
# run on one thread) against the original built with gcc and with clang-16 + Polly.
#
#   benches/polybench30.sh [RUNS] [KERNEL ...]   (default: 1 run; the 30 kernels)
#   SIZE=medium benches/polybench30.sh           (another size of the manifest)
#   PLOT=chart.svg benches/polybench30.sh        (default: polybench30.svg here)
#
# One `loopy bench --manifest examples/loopy.toml --best` run: every entry is verified, its
# output compared with the original's (check build, -ffp-contract=off), then the original
# (gcc), the transformed program (gcc) and the original under clang-16 -mllvm -polly are
# timed interleaved; each row is the kernel's entry with the highest speedup over the
# original, and its speedup over Polly's build of the original from the same rounds. The
# chart has both. Polly needs clang-16 and libpolly-16-dev (apt-get install clang-16
# libpolly-16-dev); without it the Polly column says `skipped`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1}
shift || true
. benches/manifest_sizes.sh
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
  kernels=("${polybench30[@]}")
fi
LOOPY=${LOOPY:-target/release/loopy}
[ -x "$LOOPY" ] || cargo build --release --quiet
CLANG=${CLANG:-clang-16}
baseline=()
if command -v "$CLANG" >/dev/null 2>&1 &&
  echo 'int main(void){return 0;}' | "$CLANG" -O3 -mllvm -polly -x c - -o /dev/null 2>/dev/null; then
  baseline=(--baseline "$CLANG -O3 -march=native -mllvm -polly")
else
  echo "note: $CLANG with Polly is not installed (apt-get install clang-16 libpolly-16-dev); only gcc is compared"
fi
manifest=examples/loopy.toml
only=()
for k in "${kernels[@]}"; do
  only+=(--only "$k")
  # The kernel's named entries (`gemm-par`) compete too.
  for n in $(sed -n "s/^name = \"\\($k-[a-z]*\\)\"/\\1/p" "$manifest"); do only+=(--only "$n"); done
done
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
exec "$LOOPY" bench --manifest "$manifest" --size "${SIZE:-large}" --best --threads 1 \
  --runs "$runs" "${baseline[@]}" --plot "${PLOT:-polybench30.svg}" "${only[@]}"
