#!/usr/bin/env bash
# How well the search's cost model ranks what the search times: `loopy search` with timing
# on kernels of examples/ (one thread, kernel time), then, per kernel, Spearman's rank
# correlation of the candidates' estimates with their measured times (transformed over
# original), over the candidates timed at the sizes asked for and, separately, over those
# timed at the screening sizes only (the search's own figure: estimates at those sizes,
# JSON `model_rank_correlation_screened`). The first is given twice: each candidate's
# estimate re-weighed from its counted parts (JSON `estimate_parts`) with the fixed weights
# and with the weights the search measured on this machine (JSON `model_weights`), so both
# rankings are of the same candidates and the same timings.
#
#   benches/model_rank.sh [KERNEL ...]       (default: 14 kernels, below)
#   SIZE=medium benches/model_rank.sh        (the manifest's sizes.NAME; default large)
#   LIMIT=60 benches/model_rank.sh           (each search's --time-limit; default 60)
#   OUT=dir benches/model_rank.sh            (keep each search's JSON there)
#   REUSE=1 OUT=dir benches/model_rank.sh    (only the table, from an earlier run's JSON)
#
# Needs python3 for the table.
set -euo pipefail
cd "$(dirname "$0")/.."
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
  kernels=(gemm syrk jacobi-2d covariance bicg 2mm mvt atax trmm lu heat-3d fdtd-2d doitgen
    gesummv)
fi
size=${SIZE:-large}
LOOPY=${LOOPY:-target/release/loopy}
[ -x "$LOOPY" ] || cargo build --release --quiet
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
command -v python3 >/dev/null || { echo "python3 is needed for the table"; exit 1; }
# sizes K: the manifest's sizes.SIZE of the first entry for examples/K/K.c.
. benches/manifest_sizes.sh
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores; $(${CC:-cc} --version | head -1); size $size; load $(cut -d' ' -f1-3 /proc/loadavg); time limit ${LIMIT:-60} s"
for k in "${kernels[@]}"; do
  if [ "${REUSE:-0}" = 1 ] && [ -s "$out/$k.json" ]; then continue; fi
  defs=()
  for d in $(sizes "$k"); do defs+=(-D "$d"); done
  "$LOOPY" search "examples/$k/$k.c" "${defs[@]}" --time-limit "${LIMIT:-60}" --format json \
    > "$out/$k.json" 2> "$out/$k.err" || echo "$k: search exited $? (see $out/$k.err)"
done
python3 - "$out" "${kernels[@]}" <<'EOF'
import json, sys

def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for t in range(i, j + 1):
            r[order[t]] = (i + j) / 2 + 1
        i = j + 1
    return r

def spearman(x, y):
    if len(x) < 3:
        return None
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else None

FIXED = {"iteration": 1, "start": 8, "from_l2": 2, "from_l3": 4, "from_memory": 10,
         "sync": 4000}
PART = {"iteration": "iterations", "start": "starts", "from_l2": "from_l2",
        "from_l3": "from_l3", "from_memory": "from_memory", "sync": "syncs"}

def rho(cands, weights, field):
    # A part an older JSON does not have counts nothing.
    pairs = [(sum(w * c["estimate_parts"].get(PART[k], 0) for k, w in weights.items()), 1 / c[field])
             for c in cands if c.get("estimate_parts") and c.get(field)]
    r = spearman([p[0] for p in pairs], [p[1] for p in pairs])
    return len(pairs), "–" if r is None else f"{r:.2f}"

out = sys.argv[1]
print("| kernel | timed at the sizes asked for | fixed weights | measured | timed only screened | measured |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for k in sys.argv[2:]:
    try:
        j = json.load(open(f"{out}/{k}.json"))
    except (OSError, ValueError):
        print(f"| {k} | no JSON | | | | |")
        continue
    measured = j.get("model_weights") or FIXED
    full = [c for c in j["candidates"] if c.get("speedup")]
    n, f = rho(full, FIXED, "speedup")
    _, m = rho(full, measured, "speedup")
    s = j.get("model_rank_correlation_screened")
    ns = j.get("model_ranked_screened", 0)
    print(f"| {k} | {n} | {f} | {m} | {ns} | {'–' if s is None else f'{s:.2f}'} |")
EOF
