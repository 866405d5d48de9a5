#!/usr/bin/env bash
# Runs `loopy apply` on every pair of examples/loopy.toml and on every script of
# benches/polybench/scripts (against its real PolyBench file), then `loopy equiv` on the
# original kernel against the generated file, with a time limit per pair, and prints one
# table: the verdict (proved / not equivalent / refused and why / out of budget or time),
# the seconds `equiv` took, and beside them the seconds `loopy check` takes on the pair
# (wall-clock seconds of each process, one run each; the machine is shared, so read them
# as orders of magnitude).
#
#   benches/equiv-examples.sh [OUT_DIR]          (default /tmp/equiv-examples)
#
# LOOPY names the binary (default target/release/loopy, built if missing); TIMEOUT the
# limit per pair in seconds (default 60); ONLY a regular expression on the pair names to
# run only some. The generated files and each pair's output stay in OUT_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/equiv-examples}
LOOPY=${LOOPY:-target/release/loopy}
TIMEOUT=${TIMEOUT:-60}
ONLY=${ONLY:-.}
[ -x "$LOOPY" ] || cargo build --release --quiet
mkdir -p "$out"
ex=examples
printf '%-18s %-16s %7s %7s  %s\n' pair verdict equiv-s check-s reason
counts=$(mktemp)
# One pair: its name, the kernel, the script, then the options both files are read with.
prove() {
  local name=$1 kernel=$2 script=$3
  shift 3
  local gen="$out/$name.c"
  if ! "$LOOPY" apply "$@" "$kernel" "$script" >"$gen" 2>"$out/$name.apply.err"; then
    printf '%-18s %-16s %7s %7s  %s\n' "$name" "apply-failed" "-" "-" "$(head -c 80 "$out/$name.apply.err" | tr '\n' ' ')"
    echo apply-failed >>"$counts"
    return
  fi
  local start check secs rc first reason verdict
  start=$(date +%s.%N)
  "$LOOPY" check "$@" "$kernel" "$script" >/dev/null 2>&1 || true
  check=$(echo "$(date +%s.%N) - $start" | bc)
  start=$(date +%s.%N)
  rc=0
  timeout "$TIMEOUT" "$LOOPY" --color never equiv "$@" "$kernel" "$gen" \
    >"$out/$name.equiv.out" 2>"$out/$name.equiv.err" || rc=$?
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  first=$(head -n 1 "$out/$name.equiv.out")
  # A file the frontend refuses has no verdict line: its first error is the reason.
  [ -n "$first" ] || first=$(grep -m 1 -E '^ *(Error|error)' "$out/$name.equiv.err" | sed 's/^ *//' || true)
  case $rc in
    0) verdict=proved reason= ;;
    1) verdict=not-equivalent reason=$first ;;
    2)
      reason=${first#not decided: }
      case $reason in
        *"gave up"* | *budget* | *"more than"*obligations* | *"did not capture"*) verdict=out-of-budget ;;
        *) verdict=refused ;;
      esac
      ;;
    124) verdict=timeout reason="over ${TIMEOUT}s" ;;
    *) verdict="error($rc)" reason=$(head -c 100 "$out/$name.equiv.err" | tr '\n' ' ') ;;
  esac
  printf '%-18s %-16s %7.2f %7.2f  %s\n' "$name" "$verdict" "$secs" "$check" "$(echo "$reason" | head -c 110)"
  echo "$verdict" >>"$counts"
}
# The manifest's [[check]] tables: kernel, script and an optional name, paths relative to it
# (as benches/codegen-golden.sh reads them).
awk '
  /^\[\[check\]\]/ { if (k != "") print n "|" k "|" s; k = ""; s = ""; n = ""; next }
  /^kernel *=/ { k = $0; sub(/^[^"]*"/, "", k); sub(/".*/, "", k) }
  /^script *=/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s) }
  /^name *=/ { n = $0; sub(/^[^"]*"/, "", n); sub(/".*/, "", n) }
  END { if (k != "") print n "|" k "|" s }
' "$ex/loopy.toml" | while IFS="|" read -r name kernel script; do
  [ -n "$name" ] || name=$(basename "$script" .loopy)
  [[ $name =~ $ONLY ]] || continue
  prove "$name" "$ex/$kernel" "$ex/$script"
done
# The fast scripts on the real PolyBench files (KERNEL.loopy and KERNEL-par.loopy are
# scripts of KERNEL), read with PolyBench's utilities and the kernel's folder.
pb=benches/polybench
for script in "$pb"/scripts/*.loopy; do
  name=$(basename "$script" .loopy)
  [[ pb-$name =~ $ONLY ]] || continue
  k=${name%-par}
  dir=$(ls -d "$pb"/linear-algebra/*/"$k")
  prove "pb-$name" "$dir/$k.c" "$script" -I "$pb/utilities" -I "$dir"
done
echo
sort "$counts" | uniq -c | sort -rn
rm -f "$counts"
