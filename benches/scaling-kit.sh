#!/usr/bin/env bash
# The parallel-scaling measurement packed to run on another machine, one with many cores and
# no compilers: every program is built here, statically linked, and DIR/run.sh times them
# there at 1, 2, 4, ... threads (kernel time) with nothing but bash, awk and sort.
#
#   benches/scaling-kit.sh DIR                 build the kit (about 2 minutes)
#   DIR/run.sh [RUNS]                          on the other machine: the table (default 3 runs)
#   THREADS="1 8 16" DIR/run.sh ...            thread counts (default 1 2 4 8 16 ... up to
#                                              the CPUs there, and their number)
#
# What the kit holds, built twice: for AVX-512 (-O3 -march=x86-64-v4, register blocks of
# 64-byte vectors) and for AVX2 (-O3 -march=x86-64-v3, 32-byte vectors); run.sh picks the
# build by the `avx512f` flag of /proc/cpuinfo there.
# - gemm, 2mm, 3mm, doitgen: the real PolyBench/C 4.2.1 files at LARGE with -DPOLYBENCH_TIME
#   (PolyBench's timer around the kernel alone): the original (gcc, one thread), the original
#   under clang-16 -mllvm -polly -mllvm -polly-parallel (GNU OpenMP), loopy's
#   benches/polybench/scripts/KERNEL-par.loopy (register blocks of the vector width, B panels
#   of 544 columns, the script's row blocks), and for gemm OpenBLAS's cblas_dgemm and two
#   more placements of the parallel loop: the larger row blocks of the one-thread scripts
#   (loopy-mcN), and the column slivers (loop 4, BLIS's jr loop) in parallel instead of the
#   row blocks (loopy-jr). Each loopy program is first checked here at MEDIUM on 2 threads: it must
#   print exactly what the original prints.
# - jacobi-2d and seidel-2d: the examples' parallel scripts, built by `loopy bench --keep`
#   (which checks their outputs and adds its kernel clock, read through $LOOPY_KERNEL_TIME).
# - With SEARCH=SDIR, also SDIR/KERNEL.loopy for each of the four products that has one (the
#   script `loopy search --threads N` wrote), as the program loopy-search.
# - With EXAMPLES="K ..." and SEARCH=SDIR: for each kernel K of examples/ at the manifest's
#   LARGE sizes, SDIR/K.loopy built by `loopy bench --keep --threads 2` (its output checked
#   on 2 threads against the original's) as the program search, the original (gcc, one
#   thread) as orig, and the original under clang-16 -mllvm -polly -mllvm -polly-parallel
#   as polly; each reports its kernel time through $LOOPY_KERNEL_TIME.
# - PRODUCTS=0 leaves out the products and the stencils above; ISAS="avx512" builds for
#   one instruction set only (default both).
# Each build's flags are in DIR/flags. Polly and OpenBLAS need clang-16, libpolly-16-dev
# and libopenblas-dev here; a missing one is left out of the kit with a message.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: benches/scaling-kit.sh DIR" >&2; exit 2; }
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
pb=benches/polybench
LOOPY=${LOOPY:-target/release/loopy}
[ -x "$LOOPY" ] || cargo build --release --quiet
LOOPY=$(realpath "$LOOPY")
CC=${CC:-gcc}
CLANG=${CLANG:-clang-16}
gomp=$(dirname "$("$CC" -print-file-name=libgomp.a)")
have_polly=1
if ! command -v "$CLANG" >/dev/null 2>&1 ||
  ! echo 'int main(void){return 0;}' | "$CLANG" -O3 -mllvm -polly -mllvm -polly-parallel -x c - \
    -o /dev/null -static -L"$gomp" -lgomp -lpthread 2>/dev/null; then
  echo "note: $CLANG with Polly is not installed (apt-get install clang-16 libpolly-16-dev); left out"
  have_polly=0
fi
have_blas=1
if ! echo 'int main(void){return 0;}' | "$CC" -x c - -static -lopenblas -lpthread -lm -o /dev/null 2>/dev/null; then
  echo "note: a static OpenBLAS is not installed (apt-get install libopenblas-dev); left out"
  have_blas=0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
path_of() {
  case $1 in
    gemm) echo "$pb/linear-algebra/blas/$1" ;;
    *) echo "$pb/linear-algebra/kernels/$1" ;;
  esac
}
# loopy's program from SCRIPT with the parameters SETS, checked at MEDIUM on 2 threads and
# built at LARGE as OUT.
loopy_prog() { # kernel script out vector-bytes cflags sets...
  local k=$1 script=$2 dst=$3 vb=$4 cflags=$5
  shift 5
  local src inc sets=()
  src=$(path_of "$k")/$k.c
  inc=(-I "$pb/utilities" -I "$(path_of "$k")")
  for s in "$@"; do sets+=(--set "$s"); done
  "$LOOPY" apply "$src" "$script" -I "$pb/utilities" -D MEDIUM_DATASET --vector-bytes "$vb" \
    "${sets[@]}" -o "$tmp/m.c" >/dev/null
  "$CC" -O2 -ffp-contract=off -fopenmp -DMEDIUM_DATASET -DPOLYBENCH_DUMP_ARRAYS "${inc[@]}" \
    "$tmp/m.c" "$pb/utilities/polybench.c" -o "$tmp/m" -lm
  OMP_NUM_THREADS=2 "$tmp/m" 2>"$tmp/out-loopy" >/dev/null
  cmp -s "$tmp/out-$k" "$tmp/out-loopy" || { echo "$k: $script ($*): output differs on 2 threads" >&2; exit 1; }
  "$LOOPY" apply "$src" "$script" -I "$pb/utilities" -D LARGE_DATASET --vector-bytes "$vb" \
    "${sets[@]}" -o "$tmp/l.c" >/dev/null
  # shellcheck disable=SC2086
  "$CC" $cflags -fopenmp -static -DLARGE_DATASET -DPOLYBENCH_TIME "${inc[@]}" "$tmp/l.c" \
    "$pb/utilities/polybench.c" -o "$dst" -lm
}
# The variants of gemm-par.loopy: the script with the column slivers in parallel.
sed 's/^gemm_block_scaled_par(\(.*\))$/gemm_block_scaled(\1)\nparallel(Full, 4)/' \
  "$pb/scripts/gemm-par.loopy" >"$tmp/gemm-jr.loopy"
grep -q '^parallel(Full, 4)$' "$tmp/gemm-jr.loopy" || { echo "gemm-par.loopy changed shape" >&2; exit 1; }
: >"$out/flags"
. benches/manifest_sizes.sh
[ -z "${SEARCH:-}" ] || SEARCH=$(cd "$SEARCH" && pwd)
for isa in ${ISAS:-avx512 avx2}; do
  case $isa in
    avx512) cflags="-O3 -march=x86-64-v4" vb=64 mr=12 nr=16 mcl=84 ;;
    avx2) cflags="-O3 -march=x86-64-v3" vb=32 mr=6 nr=8 mcl=72 ;;
  esac
  d=$out/$isa
  mkdir -p "$d"
  echo "$isa: $cflags; $($CC --version | head -1); $([ $have_polly = 1 ] && $CLANG --version | head -1)" >>"$out/flags"
  products=(gemm 2mm 3mm doitgen)
  stencils=(jacobi-2d seidel-2d)
  if [ "${PRODUCTS:-1}" = 0 ]; then products=() stencils=(); fi
  for k in ${products[@]+"${products[@]}"}; do
    echo "$isa: $k" >&2
    src=$(path_of "$k")/$k.c
    inc=(-I "$pb/utilities" -I "$(path_of "$k")")
    "$CC" -O2 -ffp-contract=off -DMEDIUM_DATASET -DPOLYBENCH_DUMP_ARRAYS "${inc[@]}" "$src" \
      "$pb/utilities/polybench.c" -o "$tmp/o" -lm
    "$tmp/o" 2>"$tmp/out-$k" >/dev/null
    fast=($cflags -DLARGE_DATASET -DPOLYBENCH_TIME "${inc[@]}")
    "$CC" "${fast[@]}" -static "$src" "$pb/utilities/polybench.c" -o "$d/$k.orig.pb" -lm
    if [ $have_polly = 1 ]; then
      "$CLANG" "${fast[@]}" -mllvm -polly -mllvm -polly-parallel -static "$src" \
        "$pb/utilities/polybench.c" -o "$d/$k.polly.pb" -L"$gomp" -lgomp -lpthread -lm
    fi
    case $k in
      gemm | 2mm | 3mm) blocks=("MR=$mr" "NR=$nr" KC=256 "NC=544") ;;
      *) blocks=() ;;
    esac
    if [ ${#blocks[@]} -gt 0 ]; then
      loopy_prog "$k" "$pb/scripts/$k-par.loopy" "$d/$k.loopy.pb" "$vb" "$cflags" "${blocks[@]}"
    else
      loopy_prog "$k" "$pb/scripts/$k-par.loopy" "$d/$k.loopy.pb" "$vb" "$cflags"
    fi
    if [ -n "${SEARCH:-}" ] && [ -f "$SEARCH/$k.loopy" ]; then
      loopy_prog "$k" "$SEARCH/$k.loopy" "$d/$k.loopy-search.pb" "$vb" "$cflags"
    fi
    if [ "$k" = gemm ]; then
      loopy_prog gemm "$pb/scripts/gemm-par.loopy" "$d/gemm.loopy-mc$mcl.pb" "$vb" "$cflags" \
        "${blocks[@]}" "MC=$mcl"
      loopy_prog gemm "$tmp/gemm-jr.loopy" "$d/gemm.loopy-jr.pb" "$vb" "$cflags" \
        "MR=$mr" "NR=$nr" KC=256 MC=$((mr * 20)) NC=$((nr * 69))
      if [ $have_blas = 1 ]; then
        awk '/#pragma scop/ {print "  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, nj, nk, alpha, &A[0][0], nk, &B[0][0], nj, beta, &C[0][0], nj);"; skip=1; next}
             /#pragma endscop/ {skip=0; next} !skip {print}' "$src" |
          sed '1i #include <cblas.h>' >"$tmp/blas.c"
        "$CC" "${fast[@]}" -static "$tmp/blas.c" "$pb/utilities/polybench.c" -o "$d/gemm.openblas.pb" \
          -lopenblas -lpthread -lm
      fi
    fi
  done
  for k in ${stencils[@]+"${stencils[@]}"}; do
    echo "$isa: $k" >&2
    case $k in
      jacobi-2d) size=(-D TSTEPS=500 -D N=1300) ;;
      seidel-2d) size=(-D TSTEPS=60 -D N=2000) ;;
    esac
    rm -rf "$tmp/keep"
    (cd examples && "$LOOPY" bench "$k/$k.c" "$k/$k-par.loopy" "${size[@]}" --runs 1 --warmup 0 \
      --threads 2 --cflags "$cflags -static" --keep "$tmp/keep" >/dev/null)
    cp "$tmp/keep/$k.original" "$d/$k.orig.kc"
    cp "$tmp/keep/$k.transformed" "$d/$k.loopy.kc"
  done
  for k in ${EXAMPLES:-}; do
    [ -n "${SEARCH:-}" ] && [ -f "$SEARCH/$k.loopy" ] || { echo "$k: no SEARCH/$k.loopy" >&2; exit 1; }
    echo "$isa: $k (examples, search's script)" >&2
    defs=() cdefs=()
    for w in $(size=large sizes "$k"); do defs+=(-D "$w") cdefs+=("-D$w"); done
    rm -rf "$tmp/keep"
    (cd examples && "$LOOPY" bench "$k/$k.c" "$SEARCH/$k.loopy" "${defs[@]}" --runs 1 --warmup 0 \
      --threads 2 --cflags "$cflags -static" --keep "$tmp/keep" >/dev/null)
    cp "$tmp/keep/$k.original" "$d/$k.orig.kc"
    cp "$tmp/keep/$k.transformed" "$d/$k.search.kc"
    if [ $have_polly = 1 ]; then
      # shellcheck disable=SC2086
      "$CLANG" $cflags -mllvm -polly -mllvm -polly-parallel -static "${cdefs[@]}" \
        "$tmp/keep/$k.original.c" "$tmp/keep/loopy_kernel_clock.c" -o "$d/$k.polly.kc" \
        -L"$gomp" -lgomp -lpthread -lm
    fi
  done
done
cat >"$out/run.sh" <<'EOF'
#!/usr/bin/env bash
# Times the kit's programs (built by benches/scaling-kit.sh) at several thread counts.
#   run.sh [RUNS]; THREADS="1 2 4" run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=${1:-3}
isa=avx2
grep -qw avx512f /proc/cpuinfo && isa=avx512
cpus=$(nproc)
if [ -z "${THREADS:-}" ]; then
  THREADS=""
  for t in 1 2 4 8 16 32 64 128; do [ "$t" -le "$cpus" ] && THREADS="$THREADS $t"; done
  case " $THREADS " in *" $cpus "*) ;; *) THREADS="$THREADS $cpus" ;; esac
fi
export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
d=$here/$isa
times=$(mktemp)
clock=$(mktemp)
trap 'rm -f "$times" "$clock"' EXIT
one() { # program threads -> seconds
  case $1 in
    *.pb) OMP_NUM_THREADS=$2 OPENBLAS_NUM_THREADS=$2 "$1" | tail -1 ;;
    *.kc) LOOPY_KERNEL_TIME=$clock OMP_NUM_THREADS=$2 "$1" >/dev/null && cut -d' ' -f1 "$clock" ;;
  esac
}
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $cpus CPUs"
echo "build: $(grep "^$isa:" "$here/flags")"
echo "OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES; $runs runs, threads:$THREADS"
kernels=$(ls "$d" | sed 's/\..*//' | sort -u)
for k in $kernels; do
  for _ in $(seq "$runs"); do
    for p in "$d/$k".*; do
      name=$(basename "$p"); name=${name#"$k".}; name=${name%.*}
      if [ "$name" = orig ]; then
        echo "$k $name 1 $(one "$p" 1)" >>"$times"
      else
        for t in $THREADS; do echo "$k $name $t $(one "$p" "$t")" >>"$times"; done
      fi
    done
  done
done
# The table: median per (kernel, program, threads); speed-up over the same program on one
# thread, and over the original (gcc, one thread).
awk -v runs="$runs" '
  { key = $1 " " $2 " " $3; n[key]++; v[key, n[key]] = $4; if (!(key in seen)) { seen[key] = 1; order[++m] = key } }
  END {
    for (i = 1; i <= m; i++) {
      key = order[i]; c = n[key]
      for (a = 1; a <= c; a++) x[a] = v[key, a]
      for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (x[b] < x[a]) { t = x[a]; x[a] = x[b]; x[b] = t }
      med[key] = x[int((c + 1) / 2)]
    }
    printf "%-10s %-16s %7s %11s %9s %9s\n", "kernel", "program", "threads", "time", "scaling", "vs-orig"
    for (i = 1; i <= m; i++) {
      key = order[i]; split(key, f, " ")
      one = med[f[1] " " f[2] " 1"]; orig = med[f[1] " orig 1"]
      sc = one == "" ? "-" : sprintf("%.2fx", one / med[key])
      vo = orig == "" ? "-" : sprintf("%.2fx", orig / med[key])
      printf "%-10s %-16s %7s %10.4fs %9s %9s\n", f[1], f[2], f[3], med[key], sc, vo
    }
  }' "$times"
echo "medians of $runs runs, kernel time; scaling: over the same program on one thread; vs-orig: over the original (gcc, one thread)"
EOF
chmod +x "$out/run.sh"
# Symbols are of no use there; without them the kit is a third smaller.
command -v strip >/dev/null && strip "$out"/avx*/*
du -sh "$out"
