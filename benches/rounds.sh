# Sourced by the benches that run programs side by side.
#
#   rounds DIR RUNS NAME:PROGRAM ...   one untimed round (caches, page tables, clock speed,
#                                      as `bench` warms up), then RUNS rounds, each program
#                                      in turn on one thread reporting its kernel time
#                                      (LOOPY_KERNEL_TIME, docs/bench.md); "NAME SECONDS"
#                                      lines in DIR/times (emptied first)
#   median DIR NAME                    the median of NAME's times there (nothing: none)
rounds() {
  local w=$1 runs=$2 r p
  shift 2
  mkdir -p "$w"
  : >"$w/times"
  for r in $(seq 0 "$runs"); do
    for p in "$@"; do
      rm -f "$w/t"
      OMP_NUM_THREADS=1 LOOPY_KERNEL_TIME="$w/t" "${p#*:}" >/dev/null 2>&1 || true
      if [ "$r" -gt 0 ] && [ -s "$w/t" ]; then
        echo "${p%%:*} $(awk '{printf "%.12f", $1}' "$w/t")" >>"$w/times"
      fi
    done
  done
}
median() {
  { grep "^$2 " "$1/times" || true; } | cut -d' ' -f2 | sort -g |
    awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'
}
