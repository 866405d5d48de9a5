//! Trace validation of the scanner: the C it generates, compiled and run, prints exactly
//! the points of the set in lexicographic order, for several parameter values.

mod common;
use loopy::presburger::{parse_set, Int, Set};
use loopy::scan_set_to_c;
use proptest::prelude::*;
use std::process::Command;

/// Compiles and runs the scan of `set` for each value of N; returns one trace per value.
fn run_scan(set: &Set, ns: &[i64]) -> Vec<Vec<Vec<i64>>> {
    let code = scan_set_to_c(set);
    let dir = std::env::temp_dir().join(format!(
        "loopy-scan-{}-{}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let params = &set.space().params;
    let n = set.n_dim();
    let fmt: Vec<&str> = (0..n).map(|_| "%d").collect();
    let args: Vec<String> = (0..n).map(|k| format!("(int)(a{k})")).collect();
    let formals: Vec<String> = (0..n).map(|k| format!("a{k}")).collect();
    let name = set.space().range.name.clone().unwrap_or_else(|| "S".into());
    let mut prog = String::from("#include <stdio.h>\n#include <stdlib.h>\n");
    prog.push_str(&format!(
        "#define {name}({}) printf(\"[{}]\\n\", {})\n",
        formals.join(", "),
        fmt.join(", "),
        args.join(", ")
    ));
    prog.push_str("int main(int argc, char **argv) {\n");
    for (k, p) in params.iter().enumerate() {
        prog.push_str(&format!("  int {p} = atoi(argv[{}]);\n", k + 1));
    }
    prog.push_str("  (void)argc; (void)argv;\n");
    prog.push_str(&code);
    prog.push_str("  return 0;\n}\n");
    let src = dir.join("scan.c");
    std::fs::write(&src, &prog).unwrap();
    let exe = dir.join("scan");
    common::compile(&src, &exe, &["-O0", "-w"], &prog);
    let mut traces = vec![];
    for v in ns {
        let vals: Vec<String> = params.iter().map(|_| v.to_string()).collect();
        let run = Command::new(&exe).args(&vals).output().unwrap();
        assert!(run.status.success());
        let text = String::from_utf8_lossy(&run.stdout);
        traces.push(
            text.lines()
                .map(|l| {
                    l.trim_matches(|c| c == '[' || c == ']')
                        .split(", ")
                        .filter(|x| !x.is_empty())
                        .map(|x| x.parse().unwrap())
                        .collect()
                })
                .collect(),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    traces
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static C: AtomicU64 = AtomicU64::new(0);
    C.fetch_add(1, Ordering::Relaxed)
}

fn expected(set: &Set, n: i64) -> Vec<Vec<i64>> {
    let mut s = set.clone();
    for p in set.space().params.clone() {
        s = s.fix_param(&p, &Int::from(n)).unwrap();
    }
    s.points(100_000)
        .unwrap()
        .into_iter()
        .map(|p| p.iter().map(|v| v.to_i64().unwrap()).collect())
        .collect()
}

fn check(text: &str) {
    let set = parse_set(text, &[]).unwrap();
    let ns = [0, 1, 2, 5];
    let traces = run_scan(&set, &ns);
    for (n, t) in ns.iter().zip(traces) {
        assert_eq!(
            t,
            expected(&set, *n),
            "{text} with N = {n}\n{}",
            scan_set_to_c(&set)
        );
    }
}

#[test]
fn known_shapes() {
    for s in [
        "[N] -> { [i, j] : 0 <= i < N and 0 <= j <= i }",
        "{ [i] : exists (j : 0 <= i <= 10 and i <= 3j <= i + 1) }",
        "[N] -> { [t, i] : exists (a : t = 2a and 0 <= a < N) and 0 <= i < t }",
        "{ [0, i, 1] : 0 <= i < 4; [1, j, 0] : 0 <= j < 3 }",
        "[N] -> { [i1, i2] : exists (i : 0 <= i < 10N and i1 = [i/4] and i2 = i % 4) }",
        "[N] -> { [i, j] : 0 <= i < N and 0 <= j < N and (i < 2 or j > 3) }",
        "[N] -> { [i, j] : -N <= i <= N and -3 <= j <= 3 and 2i + 3j = 1 }",
        "[N] -> { [i] : 0 <= i < N and i != 3 }",
        "[N] -> { [i, j, k] : 0 <= i < N and i <= j < N and k = i + j }",
        "{ [i] : false }",
        "[N] -> { [i, j] : 0 <= i < N and 0 <= j < N; [i, j] : 0 <= i < N and N <= j < N + 2 }",
        // Lattices: strided loops, offsets from parameters and outer loops, unions whose
        // strides only partly agree.
        "[N] -> { [t] : exists (q : t = 3q + 2) and -N <= t <= N }",
        "[N] -> { [t, u] : exists (q : t + u = 2q) and 0 <= t <= N and -N <= u <= N }",
        "[N] -> { [t, u] : exists (q : t + u = 3q + 1 and 2t - u = 5q) and 0 <= t <= N and 0 <= u <= N }",
        "[N] -> { [t, u] : exists (q : u = 4q + N + t) and 0 <= t <= N and 0 <= u <= 3N }",
        "[N] -> { [t] : exists (q : t = 4q + 1) and 0 <= t <= N; [t] : exists (q : t = 4q + 3) and 0 <= t <= 2N }",
        "[N] -> { [t] : exists (q : t = 2q) and 0 <= t <= N; [t] : exists (q : t = 3q) and 0 <= t <= N }",
        // Unions with a box (found by the random test below): a piece whose loop runs over
        // the hull of ranges one of which is empty, and a piece that leaves an item empty.
        "[N] -> { [i, j, k] : -3 <= i <= 4 and -2 <= j <= N and 0 <= k <= 3 and (3i - 3j + k) % 3 = 1 and -i - k <= -2; [i, j, k] : 0 <= i <= 2 and 0 <= j <= 2 and k = 1 }",
        "[N] -> { [i, j, k] : -3 <= i <= 4 and -2 <= j <= N and 0 <= k <= 3 and (2j + 2k) % 3 = 2 and (i - 3k) % 3 = 0; [i, j, k] : 0 <= i <= 2 and 0 <= j <= 2 and k = 1 }",
    ] {
        check(s);
    }
}

fn constraint() -> impl Strategy<Value = String> {
    (-3..=3i64, -3..=3i64, -3..=3i64, -6..=6i64, 0..3u8).prop_map(|(a, b, c, d, k)| {
        let lhs = format!("{a}i + {b}j + {c}k");
        match k {
            0 => format!("{lhs} <= {d}"),
            1 => format!("{lhs} >= {d} - N"),
            _ => format!("({lhs}) % 3 = {}", d.rem_euclid(3)),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_sets_scan_exactly(cs in prop::collection::vec(constraint(), 1..4), union in any::<bool>()) {
        let body = format!("-3 <= i <= 4 and -2 <= j <= N and 0 <= k <= 3 and {}", cs.join(" and "));
        let text = if union {
            format!("[N] -> {{ [i, j, k] : {body}; [i, j, k] : 0 <= i <= 2 and 0 <= j <= 2 and k = 1 }}")
        } else {
            format!("[N] -> {{ [i, j, k] : {body} }}")
        };
        check(&text);
    }
}
