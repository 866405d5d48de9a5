//! Parallel loops: the candidates `loopy show --script` lists for every example, and (below)
//! a dynamic test that does not trust the verifier.

mod common;
#[path = "common/reorder.rs"]
mod reorder_rewrite;
use common::{examples, loopy};

/// The `parallel loops` section `loopy show --script` prints.
fn candidates(kernel: &str, script: &str) -> String {
    let (code, out, err) = loopy(&["show", "--color", "never", kernel, "--script", script]);
    assert_eq!(code, 0, "{kernel} {script}: {err}");
    let at = out
        .find("  parallel loops (")
        .expect("a parallel loops section");
    out[at..].to_string()
}

#[test]
fn show_lists_the_parallel_loops_of_every_example() {
    let mut all = String::new();
    for e in examples() {
        let kernel = format!("examples/{e}/{e}.c");
        let script = format!("examples/{e}/{e}.loopy");
        all.push_str(&format!("{e}:\n{}", candidates(&kernel, &script)));
    }
    insta::assert_snapshot!("show_parallel_loops", all);
}

#[test]
fn show_lists_reductions_and_shared_scalars() {
    let dir = common::scratch("parallel-loops", "show");
    let empty = dir.join("empty.loopy");
    std::fs::write(&empty, "# the original schedule\n").unwrap();
    let empty = empty.to_str().unwrap();
    let mut all = String::new();
    for k in [
        "tests/must_fail/reductions.c",
        "tests/must_fail/scalar_temp.c",
        "tests/must_fail/recurrence.c",
    ] {
        all.push_str(&format!("{k}:\n{}", candidates(k, empty)));
    }
    insta::assert_snapshot!("show_parallel_loops_small", all);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The reordering test: for every loop the verifier accepts as `parallel` (plain, or with a
/// reduction), the code generated with that loop marked is rewritten so that the loop's
/// iterations run one after another in an order chosen at run time (`LOOPY_ORDER`: 0
/// forward, 1 reverse, 2 shuffled), built sequentially, and run in each order. A legal
/// parallel loop gives the original program's output in every order: bit for bit without
/// a reduction, up to rounding with one. This does not trust the verifier: a loop accepted
/// wrongly would, for some order, read a value another iteration has not written yet or has
/// already overwritten.
mod reorder {
    use super::common::{compile, examples, scratch};
    use super::reorder_rewrite::rewrite;
    use loopy::driver::{generate_with, Kernel, Run};
    use loopy::frontend::Options;
    use loopy::model::state::{Mark, MarkKind, Origin, State};
    use loopy::verify::marks::{parallel_loops, ParallelLoop};
    use proptest::prelude::*;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    fn execute(exe: &Path, order: &str) -> String {
        execute_on(exe, order, "1")
    }

    fn execute_on(exe: &Path, order: &str, threads: &str) -> String {
        let out = Command::new(exe)
            .env("LOOPY_ORDER", order)
            .env("OMP_NUM_THREADS", threads)
            .output()
            .expect("run");
        assert!(out.status.success(), "{} failed", exe.display());
        String::from_utf8(out.stdout).unwrap()
    }

    /// Equal numbers, up to a relative 1e-9 (the order of a reduction changes rounding);
    /// the bit hashes the examples print after `hash` are skipped.
    fn close(a: &str, b: &str) -> bool {
        let (x, y): (Vec<&str>, Vec<&str>) = (
            a.split_whitespace().collect(),
            b.split_whitespace().collect(),
        );
        x.len() == y.len()
            && (0..x.len()).all(|k| {
                if k > 0 && x[k - 1] == "hash" {
                    return true;
                }
                match (x[k].parse::<f64>(), y[k].parse::<f64>()) {
                    (Ok(u), Ok(v)) => (u - v).abs() <= 1e-9 * u.abs().max(v.abs()).max(1.0),
                    _ => x[k] == y[k],
                }
            })
    }

    /// Tests every accepted parallel loop of the final schedule `state` of `kernel`, whose
    /// original program prints `want`. Loops at one iteration dim are never nested, so all
    /// the plain ones at a dim are marked, reordered and built together (a legal parallel
    /// loop gives the same result whatever runs before or after it); reductions one at a
    /// time. Returns how many loops it tested.
    pub fn check_state(
        kernel: &Kernel,
        run: &Run,
        state: &State,
        want: &str,
        dir: &Path,
        what: &str,
        defines: &[&str],
    ) -> usize {
        let loops = parallel_loops(&run.program, &run.deps, &state.pieces);
        let mut groups: Vec<Vec<&ParallelLoop>> = vec![];
        let depth = loops.iter().map(|l| l.dim + 1).max().unwrap_or(0);
        for j in 0..depth {
            let plain: Vec<&ParallelLoop> = loops
                .iter()
                .filter(|l| l.dim == j && l.legal == Some(None))
                .collect();
            if !plain.is_empty() {
                groups.push(plain);
            }
        }
        for l in &loops {
            if matches!(l.legal, Some(Some(_))) {
                groups.push(vec![l]);
            }
        }
        let mut tested = 0;
        for (n, group) in groups.iter().enumerate() {
            let reduction = group[0].legal.flatten();
            let mut st = state.clone();
            for p in &mut st.pieces {
                p.marks.clear();
            }
            for l in group {
                let mark = Mark {
                    dim: l.dim,
                    kind: MarkKind::Parallel {
                        reduction: l.legal.flatten(),
                    },
                    origin: Origin {
                        source: "test".into(),
                        span: 0..0,
                        what: "test".into(),
                    },
                    step: 0,
                };
                for p in &mut st.pieces {
                    if p.pos.len() > l.dim && p.pos[..=l.dim] == l.pos[..] {
                        p.marks.push(mark.clone());
                    }
                }
            }
            let generated = match generate_with(kernel, &st, loopy::Body::Source) {
                Ok(g) => g,
                // Array reductions are verified but not generated.
                Err(_) if reduction.is_some() => continue,
                Err(e) => panic!("{what}: group {n}: {}", e.diagnostic.message),
            };
            let (text, count) = rewrite(&generated.file);
            if count == 0 {
                // Dims scanned as one iteration (`S0[i, j, 0]`): nothing to reorder.
                continue;
            }
            let src = dir.join(format!("p{n}.c"));
            let exe = dir.join(format!("p{n}"));
            std::fs::write(&src, &text).unwrap();
            let mut flags = vec!["-O0", "-lm"];
            flags.extend(defines);
            compile(&src, &exe, &flags, &text);
            for order in ["0", "1", "2"] {
                let got = execute(&exe, order);
                let ok = if reduction.is_none() {
                    got == want
                } else {
                    close(&got, want)
                };
                let names: Vec<String> = group
                    .iter()
                    .map(|l| format!("loop {} around {:?}", l.dim + 1, l.stmts))
                    .collect();
                assert!(
                    ok,
                    "{what}: the parallel loops {} run in order {order} change the output\n{}",
                    names.join(", "),
                    generated.region
                );
            }
            // The generated code itself under OpenMP on three threads: the work-sharing loops,
            // their barriers, the parallel regions around sequential loops
            // (`codegen::regions`) and the corners run by one thread.
            let src = dir.join(format!("p{n}-omp.c"));
            let exe = dir.join(format!("p{n}-omp"));
            std::fs::write(&src, &generated.file).unwrap();
            let mut flags = vec!["-O0", "-fopenmp", "-lm"];
            flags.extend(defines);
            compile(&src, &exe, &flags, &generated.file);
            let got = execute_on(&exe, "0", "3");
            let ok = if reduction.is_none() {
                got == want
            } else {
                close(&got, want)
            };
            assert!(
                ok,
                "{what}: group {n} on three OpenMP threads changes the output\n{}",
                generated.region
            );
            tested += group.len();
        }
        tested
    }

    /// Small sizes for the examples whose default is not small.
    fn sizes(example: &str) -> &'static [&'static str] {
        match example {
            "gemm" => &["-DNI=60", "-DNJ=70", "-DNK=80"],
            _ => &[],
        }
    }

    fn original(kernel: &Path, dir: &Path, defines: &[&str]) -> String {
        let exe = dir.join("orig");
        let mut flags = vec!["-O0", "-lm"];
        flags.extend(defines);
        compile(kernel, &exe, &flags, "");
        execute(&exe, "0")
    }

    #[test]
    fn every_parallel_loop_of_the_examples_runs_in_any_order() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut total = 0;
        for e in examples() {
            let dir = scratch("reorder", &e);
            let kernel_path = root.join(format!("examples/{e}/{e}.c"));
            let kernel = Kernel::load(&kernel_path, &Options::default()).unwrap();
            let script_path = root.join(format!("examples/{e}/{e}.loopy"));
            let script = std::fs::read_to_string(&script_path).unwrap();
            let run = Run::new(
                &kernel,
                &script,
                &script_path.display().to_string(),
                script_path.parent().unwrap(),
            )
            .unwrap_or_else(|f| panic!("{e}: {}", f.diagnostic.message));
            let want = original(&kernel_path, &dir, sizes(&e));
            total += check_state(
                &kernel,
                &run,
                &run.interp.state.clone(),
                &want,
                &dir,
                &e,
                sizes(&e),
            );
            let _ = std::fs::remove_dir_all(&dir);
        }
        assert!(total > 50, "only {total} parallel loops tested");
    }

    #[test]
    fn the_rewrite_reorders() {
        let text = "#pragma omp parallel for private(j)\n  for (int i = 2; i <= loopy_min(n, 9); i += 3) {\n    x(i);\n  }\n";
        let (out, k) = rewrite(text);
        assert_eq!(k, 1);
        insta::assert_snapshot!("reorder_rewrite", out);
    }

    /// The test can fail: the inner loop of the Gauss-Seidel-like sweep, which carries a
    /// flow dependence (`A[i][j - 1]`), marked parallel without the verifier, changes the
    /// output when it runs backwards or shuffled.
    #[test]
    fn an_illegal_parallel_loop_changes_the_output() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let kernel_path = root.join("tests/data/codegen/par_kernel.c");
        let kernel = Kernel::load(&kernel_path, &Options::default()).unwrap();
        let run = Run::new(&kernel, "", "empty", Path::new(".")).unwrap();
        let mut st = run.interp.state.clone();
        let sweep = kernel
            .scop
            .statements
            .iter()
            .position(|s| s.label.as_deref() == Some("L2"))
            .unwrap();
        for p in st.pieces.iter_mut().filter(|p| p.stmt == sweep) {
            p.marks.push(Mark {
                dim: 1,
                kind: MarkKind::Parallel { reduction: None },
                origin: Origin {
                    source: "test".into(),
                    span: 0..0,
                    what: "test".into(),
                },
                step: 0,
            });
        }
        assert!(
            !run.check().is_empty()
                || !loopy::verify::check_marks(&run.program, &run.deps, &st.pieces).is_empty()
        );
        let dir = scratch("reorder", "illegal");
        let want = original(&kernel_path, &dir, &[]);
        let g = generate_with(&kernel, &st, loopy::Body::Source).unwrap();
        let (text, count) = rewrite(&g.file);
        assert_eq!(count, 1);
        std::fs::write(dir.join("p.c"), &text).unwrap();
        compile(&dir.join("p.c"), &dir.join("p"), &["-O0", "-lm"], &text);
        assert_eq!(execute(&dir.join("p"), "0"), want);
        assert_ne!(execute(&dir.join("p"), "1"), want);
        assert_ne!(execute(&dir.join("p"), "2"), want);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The parallel scripts of the examples (`NAME-par.loopy`, the wavefronts among them):
    /// their own marks, run in every order, give the original output bit for bit.
    #[test]
    fn the_parallel_scripts_of_the_examples_run_in_any_order() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut tested = vec![];
        for e in examples() {
            let script_path = root.join(format!("examples/{e}/{e}-par.loopy"));
            if !script_path.exists() {
                continue;
            }
            let dir = scratch("reorder-par", &e);
            let kernel_path = root.join(format!("examples/{e}/{e}.c"));
            let kernel = Kernel::load(&kernel_path, &Options::default()).unwrap();
            let script = std::fs::read_to_string(&script_path).unwrap();
            let run = Run::new(
                &kernel,
                &script,
                &script_path.display().to_string(),
                script_path.parent().unwrap(),
            )
            .unwrap_or_else(|f| panic!("{e}: {}", f.diagnostic.message));
            assert!(run.check().is_empty(), "{e}-par.loopy is illegal");
            let want = original(&kernel_path, &dir, sizes(&e));
            let g = generate_with(&kernel, &run.interp.state, loopy::Body::Source).unwrap();
            let (text, count) = rewrite(&g.file);
            assert!(count > 0, "{e}-par.loopy has no parallel loop");
            std::fs::write(dir.join("p.c"), &text).unwrap();
            let mut flags = vec!["-O0", "-lm"];
            flags.extend(sizes(&e));
            compile(&dir.join("p.c"), &dir.join("p"), &flags, &text);
            for order in ["0", "1", "2"] {
                assert_eq!(
                    execute(&dir.join("p"), order),
                    want,
                    "{e}-par.loopy in order {order}"
                );
            }
            tested.push(e);
            let _ = std::fs::remove_dir_all(&dir);
        }
        assert!(tested.len() >= 7, "{tested:?}");
    }

    /// jacobi-2d's split wavefront with tiles small enough that, at the default size (N 90,
    /// TSTEPS 40), every tile loop has several iterations, the j tiles included: the code
    /// gives each sweep its own innermost loop (no loop body stores to `B` and then to
    /// `A`), its own parallel loops run in every order give the original output bit for
    /// bit, and so do all the others the verifier accepts.
    #[test]
    fn the_split_jacobi_wavefront_runs_in_any_order_with_small_tiles() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let kernel_path = root.join("examples/jacobi-2d/jacobi-2d.c");
        let kernel = Kernel::load(&kernel_path, &Options::default()).unwrap();
        let script = "shift(LoopA, 2, 1)\nshift(LoopA, 3, 1)\nrealign(LoopB, LoopA, 3)\n\
                      wavefront_jacobi2_split(LoopB, LoopA, 2, 4, 8, 16)\n";
        let run = Run::new(&kernel, script, "split.loopy", Path::new("."))
            .unwrap_or_else(|f| panic!("{}", f.diagnostic.message));
        assert!(run.check().is_empty(), "the split wavefront is illegal");
        let dir = scratch("reorder", "jacobi-split");
        let want = original(&kernel_path, &dir, &[]);
        let g = generate_with(&kernel, &run.interp.state, loopy::Body::Source).unwrap();
        let lines: Vec<&str> = g.region.lines().collect();
        for w in lines.windows(2) {
            let indent = |l: &str| l.len() - l.trim_start().len();
            assert!(
                !(w[0].trim_start().starts_with("B[")
                    && w[1].trim_start().starts_with("A[")
                    && indent(w[0]) == indent(w[1])),
                "one loop body holds both sweeps:\n{}",
                g.region
            );
        }
        // The j tiles of 16 are real at this size: some loop counts a column tile.
        assert!(g.region.contains("16 * c5"), "{}", g.region);
        let (text, count) = rewrite(&g.file);
        assert!(count > 0, "no parallel loop");
        std::fs::write(dir.join("p.c"), &text).unwrap();
        compile(&dir.join("p.c"), &dir.join("p"), &["-O0", "-lm"], &text);
        for order in ["0", "1", "2"] {
            assert_eq!(execute(&dir.join("p"), order), want, "order {order}");
        }
        let state = run.interp.state.clone();
        let tested = check_state(&kernel, &run, &state, &want, &dir, "split jacobi", &[]);
        assert!(tested > 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Loop operations on the small kernel's nests.
    fn op() -> impl Strategy<Value = String> {
        let l = prop::sample::select(vec!["L2", "L3", "L4"]);
        prop_oneof![
            (l.clone(), -1..3i64)
                .prop_map(|(l, k)| format!("affine({l}, {{[i, j] -> [i, j + {k}i]}})")),
            (l.clone(), -1..2i64)
                .prop_map(|(l, k)| format!("affine({l}, {{[i, j] -> [i + {k}j, j]}})")),
            l.clone()
                .prop_map(|l| format!("affine({l}, {{[i, j] -> [j, i]}})")),
            l.clone()
                .prop_map(|l| format!("affine({l}, {{[i, j] -> [i, -j]}})")),
            l.clone()
                .prop_map(|l| format!("affine({l}, {{[i, j] -> [-i, j]}})")),
            l.clone()
                .prop_map(|l| format!("affine({l}, {{[i, j] -> [i + j, j]}})")),
            (l.clone(), 2..4i64).prop_map(|(l, s)| format!("tile({l}, [{s}, {s}])")),
            (0..2i64).prop_map(|n| format!("realign(L2, L3, {n})")),
            Just("affine(L1, {[i] -> [-i]})".to_string()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

        /// Random legal scripts on a kernel with carried dependences and a reduction: every
        /// loop of the final schedule the verifier calls parallel runs in any order.
        #[test]
        fn parallel_loops_of_random_scripts_run_in_any_order(ops in prop::collection::vec(op(), 1..4)) {
            let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
            let kernel_path = root.join("tests/data/codegen/par_kernel.c");
            let kernel = Kernel::load(&kernel_path, &Options::default()).unwrap();
            let mut run = Run::new(&kernel, "", "empty", Path::new(".")).unwrap();
            for (n, op) in ops.iter().enumerate() {
                let _ = run.interp.run_text(op, &format!("op{n}"), Path::new("."));
            }
            // Only legal schedules: an illegal one changes the output in every order.
            prop_assume!(run.check().is_empty());
            let dir = scratch("reorder", "random");
            let want = original(&kernel_path, &dir, &[]);
            let state = run.interp.state.clone();
            check_state(&kernel, &run, &state, &want, &dir, &ops.join("; "), &[]);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// The wavefront procedures: legal on the time-tiled stencils, their inner tile loop listed
/// as parallel; refused (with the race) when the band was not skewed first.
#[test]
fn wavefronts_make_an_inner_tile_loop_parallel() {
    for (e, loops) in [
        ("jacobi-2d", "loop 2 around LoopB, LoopA: parallel"),
        ("seidel-2d", "loop 2 around Loop: parallel"),
    ] {
        let kernel = format!("examples/{e}/{e}.c");
        let script = format!("examples/{e}/{e}-par.loopy");
        let (code, out, err) = loopy(&["check", &kernel, &script]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(candidates(&kernel, &script).contains(loops), "{e}");
        let (code, generated, err) = loopy(&["apply", &kernel, &script]);
        assert_eq!(code, 0, "{err}");
        // One marked dim; scanning may split it into several loops (full and partial tiles),
        // work-sharing loops of one parallel region around the wavefronts.
        assert!(
            generated.contains("#pragma omp parallel\n") && generated.contains("#pragma omp for"),
            "{generated}"
        );
    }
    // The split form tiles j as well: without the column shift of LoopA, the first sweep
    // reads a column of A (for its next column, in the next j tile) that the second sweep
    // overwrites in the tile before.
    let dir = common::scratch("wavefront", "unshifted");
    let bad = dir.join("bad.loopy");
    std::fs::write(
        &bad,
        "shift(LoopA, 2, 1)\nrealign(LoopB, LoopA, 3)\n\
         wavefront_jacobi2_split(LoopB, LoopA, 2, 16, 32, 256)\n",
    )
    .unwrap();
    let (code, _, err) = loopy(&[
        "check",
        "--color",
        "never",
        "examples/jacobi-2d/jacobi-2d.c",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("anti dependence on `A`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    let dir = common::scratch("wavefront", "unskewed");
    let bad = dir.join("bad.loopy");
    std::fs::write(&bad, "tile3(Loop, 4, 8, 8)\nwavefront(Loop)\n").unwrap();
    let (code, _, err) = loopy(&[
        "check",
        "--color",
        "never",
        "examples/seidel-2d/seidel-2d.c",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("dependence on `A`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
