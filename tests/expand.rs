//! `expand(l, k, x)`: random small kernels with a reused temporary, the verdict against
//! brute-force execution of their instances (both verdicts reached; every accepted one
//! compiled and run against the original), doitgen's `sum` expanded so that its outer loop
//! becomes parallel (illegal before, legal after, the same output), and the refusals as
//! snapshots with their witnesses.

mod common;
#[path = "common/temporaries.rs"]
mod temporaries;
use loopy::driver::{generate, Kernel, Run};
use loopy::frontend::Options;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use temporaries::*;

/// The script: `t` expanded along `i` for the statements in `l`.
fn script(c: &Case) -> String {
    let l: Vec<String> = c
        .body
        .iter()
        .enumerate()
        .filter(|(_, b)| b.in_l)
        .map(|(k, _)| format!("B{k}"))
        .collect();
    format!("expand({{{}}}, 1, t)\n", l.join(", "))
}

/// Brute force: whether the expansion keeps every read's value. Values are the writers'
/// identities; the original writes `t`, the expanded program writes `x[i][e]` from the
/// statements of `l` (reading it there, unwritten storage reads an identity of its own).
fn expansion_keeps_values(c: &Case) -> bool {
    type Val = (i64, i64, i64); // (statement, i, j) of the writer; (-1, e, 0) initial
    let mut orig: Vec<Val> = (0..M).map(|e| (-1, e, 0)).collect();
    let mut shared: Vec<Val> = orig.clone();
    let mut storage: HashMap<(i64, i64), Val> = HashMap::new();
    let mut ok = true;
    if c.pre {
        for j in 0..M {
            orig[j as usize] = (-2, 0, j);
            shared[j as usize] = (-2, 0, j);
        }
    }
    for i in 0..N {
        for (k, b) in c.body.iter().enumerate() {
            for j in b.lo..=b.hi {
                let e = j + b.a;
                let w: Val = (k as i64, i, j);
                let reads = b.kind != 0;
                let writes = b.kind != 1;
                if reads {
                    let o = orig[e as usize];
                    let x = if b.in_l {
                        storage.get(&(i, e)).copied().unwrap_or((-9, i, e))
                    } else {
                        shared[e as usize]
                    };
                    ok &= o == x;
                }
                if writes {
                    orig[e as usize] = w;
                    if b.in_l {
                        storage.insert((i, e), w);
                    } else {
                        shared[e as usize] = w;
                    }
                }
            }
        }
    }
    if c.post {
        for j in 0..M {
            ok &= orig[j as usize] == shared[j as usize];
        }
    }
    ok
}

fn run_exe(exe: &Path) -> Vec<u8> {
    let out = Command::new(exe).output().unwrap();
    assert!(out.status.success());
    out.stdout
}

#[test]
fn random_expansions_against_brute_force() {
    let dir = common::scratch("expand", "random");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut accepted, mut refused, mut compiled) = (0, 0, 0);
    for case_no in 0..120 {
        let c = random_case(&mut rng);
        let src = dir.join(format!("k{case_no}.c"));
        std::fs::write(&src, c_text(&c)).unwrap();
        let kernel = Kernel::load(&src, &Options::default())
            .unwrap_or_else(|e| panic!("{}: {}", src.display(), e.diagnostic.message));
        let text = script(&c);
        let expected = expansion_keeps_values(&c);
        match Run::new(&kernel, &text, "script", &dir) {
            Ok(run) => {
                assert!(
                    expected,
                    "case {case_no}: accepted, but the brute force finds a read whose value changes\n{}{text}",
                    c_text(&c)
                );
                assert!(
                    run.check().is_empty(),
                    "case {case_no}: the expanded program keeps its own order"
                );
                accepted += 1;
                if compiled < 12 {
                    compiled += 1;
                    let g = generate(&kernel, &run.interp.state)
                        .unwrap_or_else(|e| panic!("case {case_no}: {}", e.diagnostic.message));
                    let new = dir.join(format!("k{case_no}x.c"));
                    std::fs::write(&new, &g.file).unwrap();
                    common::compile(&src, &dir.join("orig"), &["-O1"], "original");
                    common::compile(
                        &new,
                        &dir.join("new"),
                        &["-O1", "-Wall", "-Wno-unknown-pragmas", "-Werror"],
                        &g.region,
                    );
                    assert_eq!(
                        run_exe(&dir.join("orig")),
                        run_exe(&dir.join("new")),
                        "case {case_no}: outputs differ\n{}",
                        g.region
                    );
                }
            }
            Err(e) => {
                assert!(
                    e.diagnostic.message.starts_with("cannot expand"),
                    "case {case_no}: {}",
                    e.diagnostic.message
                );
                assert!(
                    !expected,
                    "case {case_no}: refused ({}), but the brute force finds every value kept\n{}{text}",
                    e.diagnostic.message,
                    c_text(&c)
                );
                refused += 1;
            }
        }
    }
    assert!(
        accepted >= 10 && refused >= 10,
        "{accepted} accepted, {refused} refused"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each refused expansion: `check` and `apply` exit 2 with the same report.
#[test]
fn refusals_are_reported_with_witnesses() {
    let cases = [
        ("over_limit", "tests/data/expand/reuse.c"),
        ("read_outside", "tests/data/expand/chain.c"),
        ("other_iteration", "tests/data/expand/chain.c"),
        ("doitgen_from_before", "examples/doitgen/doitgen.c"),
        ("doitgen_not_written", "examples/doitgen/doitgen.c"),
        ("doitgen_too_late", "examples/doitgen/doitgen.c"),
    ];
    let dir = common::scratch("expand", "refusals");
    for (name, kernel) in cases {
        let script = format!("tests/data/expand/{name}.loopy");
        let (rc, _, err) = common::loopy(&["check", kernel, &script]);
        assert_eq!(rc, 2, "{name}: {err}");
        assert!(err.contains("expand"), "{name}: {err}");
        let out = dir.join("out.c");
        let (rc2, _, err2) =
            common::loopy(&["apply", kernel, &script, "-o", out.to_str().unwrap()]);
        assert_eq!(rc2, 2, "{name}: apply: {err2}");
        assert_eq!(err, err2, "{name}: check and apply report alike");
        insta::assert_snapshot!(format!("expand_{name}"), err);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// doitgen: with `sum` shared, `parallel(r)` is illegal; expanded along (r, q), it is legal,
/// and the generated program run on three threads prints what the original prints.
#[test]
fn doitgen_parallel_after_expanding_sum() {
    let kernel = "examples/doitgen/doitgen.c";
    let (rc, _, err) = common::loopy(&[
        "check",
        kernel,
        "tests/data/expand/doitgen_parallel_shared.loopy",
    ]);
    assert_eq!(rc, 1, "{err}");
    assert!(err.contains("dependence on `sum`"), "{err}");
    let (rc, out, err) =
        common::loopy(&["check", kernel, "tests/data/expand/doitgen_parallel.loopy"]);
    assert_eq!(rc, 0, "{out}{err}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = common::scratch("expand", "doitgen");
    for sizes in [vec![], vec!["NQ=7", "NR=5", "NP=9"]] {
        let opts = Options {
            defines: sizes.iter().map(|s| s.to_string()).collect(),
            ..Options::default()
        };
        let k = Kernel::load(&root.join(kernel), &opts).unwrap();
        let text =
            std::fs::read_to_string(root.join("tests/data/expand/doitgen_parallel.loopy")).unwrap();
        let run = Run::new(&k, &text, "script", root).unwrap();
        assert!(run.check().is_empty());
        let g =
            generate(&k, &run.interp.state).unwrap_or_else(|e| panic!("{}", e.diagnostic.message));
        if sizes.is_empty() {
            insta::assert_snapshot!("expand_doitgen_parallel", g.region);
        }
        let new = dir.join("new.c");
        std::fs::write(&new, &g.file).unwrap();
        let flags: Vec<String> = sizes.iter().map(|d| format!("-D{d}")).collect();
        let mut f: Vec<&str> = vec!["-O2", "-fopenmp", "-Wall", "-Wextra", "-Werror"];
        f.extend(flags.iter().map(String::as_str));
        let mut plain: Vec<&str> = vec!["-O2"];
        plain.extend(flags.iter().map(String::as_str));
        common::compile(&root.join(kernel), &dir.join("orig"), &plain, "original");
        common::compile(&new, &dir.join("new"), &f, &g.region);
        let orig = run_exe(&dir.join("orig"));
        let out = Command::new(dir.join("new"))
            .env("OMP_NUM_THREADS", "3")
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(orig, out.stdout, "outputs differ\n{}", g.region);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The expanded accesses, as `show` would see them: the storage's relations and the
/// dependences recomputed on them (no dependence on `t` carried by `i` any more).
#[test]
fn dependences_are_recomputed_on_the_storage() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let k = Kernel::load(&root.join("tests/data/expand/reuse.c"), &Options::default()).unwrap();
    let before = Run::new(&k, "", "script", root).unwrap();
    let carried_t = |r: &Run| {
        r.deps.iter().any(|d| {
            d.pieces
                .iter()
                .any(|(l, _)| *l == loopy::verify::Level::Loop(1))
        })
    };
    assert!(carried_t(&before));
    let after = Run::new(&k, "expand({W, R}, 1, t)", "script", root).unwrap();
    assert!(!carried_t(&after), "{:?}", after.deps);
    assert!(after
        .program
        .accesses
        .iter()
        .any(|a| a.array == "loopy_t_x"));
    assert!(!after.program.accesses.iter().any(|a| a.array == "t"));
}

/// `loopy search --prefix`: doitgen's space with `sum` expanded has the four interleavings of
/// the paper (one without), every candidate script starts with the prefix and is legal; a
/// prefix the kernel refuses is bad input.
#[test]
fn search_explores_the_expanded_program() {
    let kernel = "examples/doitgen/doitgen.c";
    let (rc, out, err) = common::loopy(&["search", kernel, "--no-bench"]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains(": 1 legal outer interleaving(s)"), "{out}");
    let (rc, out, err) = common::loopy(&[
        "search",
        kernel,
        "--no-bench",
        "--prefix",
        "tests/data/expand/doitgen_prefix.loopy",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains(": 4 legal outer interleaving(s)"), "{out}");
    let candidates =
        out.matches("\ncandidate ").count() + usize::from(out.starts_with("candidate "));
    assert!(candidates >= 4, "{out}");
    assert_eq!(
        out.matches("    expand({Init, Mult, Ret}, 2, sum)\n")
            .count(),
        candidates,
        "{out}"
    );
    assert!(!out.contains(": illegal"), "{out}");
    let (rc, _, err) = common::loopy(&[
        "search",
        kernel,
        "--no-bench",
        "--prefix",
        "tests/data/expand/doitgen_from_before.loopy",
    ]);
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("cannot expand `sum`"), "{err}");
}

/// ludcmp's `w` expanded four times (both inner nests of the factorisation along `(i, j)`,
/// the forward and the backward substitution along `i`, the latter counting down): legal,
/// and the program prints what the original prints, `w` written back from the last
/// expansion that wrote it.
#[test]
fn ludcmp_expanded_four_times_prints_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kernel = root.join("examples/ludcmp/ludcmp.c");
    let dir = common::scratch("expand", "ludcmp");
    for script in ["ludcmp_prefix.loopy", "ludcmp_prefix_inner.loopy"] {
        let k = Kernel::load(&kernel, &Options::default()).unwrap();
        let text = std::fs::read_to_string(root.join("tests/data/expand").join(script)).unwrap();
        let run = Run::new(&k, &text, script, root).unwrap();
        assert!(run.check().is_empty(), "{script}");
        let g = generate(&k, &run.interp.state)
            .unwrap_or_else(|e| panic!("{script}: {}", e.diagnostic.message));
        assert!(g.region.contains("w = loopy"), "{}", g.region);
        let new = dir.join("new.c");
        std::fs::write(&new, &g.file).unwrap();
        common::compile(&kernel, &dir.join("orig"), &["-O2", "-lm"], "original");
        common::compile(
            &new,
            &dir.join("new"),
            &[
                "-O2",
                "-Wall",
                "-Wextra",
                "-Wno-unknown-pragmas",
                "-Werror",
                "-lm",
            ],
            &g.region,
        );
        assert_eq!(
            run_exe(&dir.join("orig")),
            run_exe(&dir.join("new")),
            "{script}: outputs differ\n{}",
            g.region
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// LU with partial pivoting, rows swapped through the scalar `t` (the pivot search an opaque
/// statement, the swap's `a[p[k]][j]` an approximate access): taking the swap's first
/// statement out of its `j` loop is illegal with `t` shared and legal with `t` expanded
/// along `(k, j)`; the generated program keeps the condition and the indirect accesses with
/// their statements and prints what the original prints, `t` included.
#[test]
fn pivoting_lu_swap_distributed_after_expanding_t() {
    let kernel = "tests/data/expand/lu-pivot.c";
    let (rc, _, err) = common::loopy(&["check", kernel, "tests/data/expand/lu_pivot_shared.loopy"]);
    assert_eq!(rc, 1, "{err}");
    assert!(err.contains("dependence on `t`"), "{err}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let k = Kernel::load(&root.join(kernel), &Options::default()).unwrap();
    let text = std::fs::read_to_string(root.join("tests/data/expand/lu_pivot.loopy")).unwrap();
    let run = Run::new(&k, &text, "script", root).unwrap();
    assert!(run.check().is_empty());
    let g = generate(&k, &run.interp.state).unwrap_or_else(|e| panic!("{}", e.diagnostic.message));
    assert!(
        g.region
            .contains("if (fabs(a[i][k]) > mu) { mu = fabs(a[i][k]); p[k] = i; }"),
        "{}",
        g.region
    );
    assert!(g.region.contains("a[k][j] = a[p[k]][j];"), "{}", g.region);
    assert!(
        g.region.contains("a[p[k]][j] = loopy_t_x[k][j];"),
        "{}",
        g.region
    );
    let dir = common::scratch("expand", "lu-pivot");
    let new = dir.join("new.c");
    std::fs::write(&new, &g.file).unwrap();
    common::compile(
        &root.join(kernel),
        &dir.join("orig"),
        &["-O2", "-lm"],
        "original",
    );
    common::compile(
        &new,
        &dir.join("new"),
        &["-O2", "-Wall", "-Wextra", "-Werror", "-lm"],
        &g.region,
    );
    assert_eq!(
        run_exe(&dir.join("orig")),
        run_exe(&dir.join("new")),
        "{}",
        g.region
    );
    let _ = std::fs::remove_dir_all(&dir);
}
