"""Times isl (through islpy) on the problems `cargo bench --bench isl` writes.

Reads one problem per line, `kind<TAB>text` with kind `empty` (a map or set: is it
empty?), `lexmin` or `lexmax` (a set: its parametric optimum), and prints one line per
problem: the median time in seconds of the operation (parsing excluded), or `error ...`
when isl rejects the text.

Exit status 3 when islpy cannot be imported.
"""

import sys
import time

try:
    import islpy as isl
except ImportError:
    sys.exit(3)


def parse(text):
    if "->" in text.split("{", 1)[1].split(":", 1)[0]:
        return isl.Map(text)
    return isl.Set(text)


def op(kind, obj):
    if kind == "empty":
        return obj.is_empty()
    if kind == "lexmin":
        return obj.lexmin()
    if kind == "lexmax":
        return obj.lexmax()
    raise ValueError(kind)


def timed(kind, text):
    # Time a fresh object each run: isl caches facts (emptiness, simplified forms) on
    # objects it has worked on.
    samples = []
    total = 0.0
    while len(samples) < 15 and (len(samples) < 3 or total < 0.5):
        obj = parse(text)
        t = time.perf_counter()
        op(kind, obj)
        d = time.perf_counter() - t
        samples.append(d)
        total += d
    samples.sort()
    return samples[len(samples) // 2]


def main():
    for line in open(sys.argv[1]):
        line = line.rstrip("\n")
        if not line:
            continue
        kind, text = line.split("\t", 1)
        try:
            print(f"{timed(kind, text):.9f}", flush=True)
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            print(f"error {e}".replace("\n", " "), flush=True)


if __name__ == "__main__":
    main()
