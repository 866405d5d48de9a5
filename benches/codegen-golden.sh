#!/usr/bin/env bash
# Writes the code loopy generates for every example of examples/loopy.toml and every
# PolyBench script of benches/polybench/scripts into one directory, with and without
# --assume-no-overlap, so that two builds can be compared with `diff -r`:
#
#   benches/codegen-golden.sh /tmp/cg-before      (before a change to src/codegen/)
#   benches/codegen-golden.sh /tmp/cg-after       (after it)
#   diff -r /tmp/cg-before /tmp/cg-after          (nothing may differ)
#
# LOOPY names the binary (default target/release/loopy, built if missing). An illegal or
# failing pair records its exit status and error output instead of code.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: benches/codegen-golden.sh OUT_DIR}
LOOPY=${LOOPY:-target/release/loopy}
[ -x "$LOOPY" ] || cargo build --release --quiet
mkdir -p "$out"
one() { # NAME KERNEL SCRIPT [apply flags...]
  local name=$1 kernel=$2 script=$3
  shift 3
  for mode in default no-overlap; do
    local extra=()
    [ $mode = no-overlap ] && extra=(--assume-no-overlap)
    local rc=0
    "$LOOPY" apply "$kernel" "$script" "$@" "${extra[@]}" >"$out/$name.$mode.c" 2>"$out/$name.$mode.err" || rc=$?
    echo "$rc" >"$out/$name.$mode.rc"
  done
}
# The manifest's [[check]] tables: kernel, script and an optional name, paths relative to it.
ex=examples
awk '
  /^\[\[check\]\]/ { if (k != "") print n "|" k "|" s; k = ""; s = ""; n = ""; next }
  /^kernel *=/ { k = $0; sub(/^[^"]*"/, "", k); sub(/".*/, "", k) }
  /^script *=/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s) }
  /^name *=/ { n = $0; sub(/^[^"]*"/, "", n); sub(/".*/, "", n) }
  END { if (k != "") print n "|" k "|" s }
' "$ex/loopy.toml" | while IFS="|" read -r name kernel script; do
  [ -n "$name" ] || name=$(basename "$script" .loopy)
  one "ex-$name" "$ex/$kernel" "$ex/$script"
done
# PolyBench: as benches/peak.sh pairs them (scripts/KERNEL.loopy and KERNEL-par.loopy).
pb=benches/polybench
for f in "$pb"/scripts/*.loopy; do
  s=$(basename "$f" .loopy)
  k=${s%-par}
  case $k in
    gemm | syrk | syr2k | symm | trmm) dir=$pb/linear-algebra/blas/$k ;;
    *) dir=$pb/linear-algebra/kernels/$k ;;
  esac
  one "pb-$s" "$dir/$k.c" "$f" -I "$pb/utilities" -D LARGE_DATASET
done
echo "$(find "$out" -name '*.c' | wc -l) outputs in $out"
