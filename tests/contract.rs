//! `contract(x, [loops])`: random small kernels with a reused temporary, expanded, scheduled
//! by random operations and contracted again, the verdict against brute-force execution
//! of the contracted program's instances in the final order (both verdicts reached; every
//! accepted one also compiled and run against the original; a `parallel` loop whose
//! iterations share an element, one writing it, counts as wrong); pivoting LU's swap temporary
//! given back whole, doitgen's sums per thread, the refusals (storage shared by iterations
//! that interleave, run in parallel, or change the last value) as snapshots, `check` and
//! `apply` alike.

mod common;
#[path = "common/temporaries.rs"]
mod temporaries;
#[path = "common/trace.rs"]
#[allow(dead_code)] // the trace program is the trace tests'
mod trace;
use loopy::driver::{generate, Kernel, Run};
use loopy::frontend::Options;
use loopy::presburger::Int;
use loopy::verify::ViolationKind;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use temporaries::*;

fn run_exe(exe: &Path, threads: &str) -> Vec<u8> {
    let out = Command::new(exe)
        .env("OMP_NUM_THREADS", threads)
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout
}

/// A writer's identity: (statement label, i, j); `("init", e, 0)` for the value before the
/// region, `("none", …)` for storage read before any write.
type Val = (String, i64, i64);

/// What a program computes, instance by instance: the value each read instance reads, and
/// `t` after the region.
#[derive(Debug, PartialEq)]
struct Trace {
    reads: HashMap<(String, i64, i64), Val>,
    last: Vec<Val>,
}

/// One instance of the case: (label, i, j) — `Pre` and `Post` with `i = 0`.
fn step(
    c: &Case,
    inst: &(String, i64, i64),
    shared: &mut [Val],
    storage: Option<&mut HashMap<i64, Val>>,
    reads: &mut HashMap<(String, i64, i64), Val>,
) {
    let (label, i, j) = inst;
    let (reads_t, writes_t, e) = match label.as_str() {
        "Pre" => (false, true, *j),
        "Post" => (true, false, *j),
        b => {
            let k: usize = b[1..].parse().unwrap();
            let body = &c.body[k];
            (body.kind != 0, body.kind != 1, j + body.a)
        }
    };
    let in_l = label.starts_with('B') && c.body[label[1..].parse::<usize>().unwrap()].in_l;
    let me: Val = (label.clone(), *i, *j);
    match storage.filter(|_| in_l) {
        Some(st) => {
            if reads_t {
                let v = st.get(&e).cloned().unwrap_or(("none".to_string(), e, 0));
                reads.insert(me.clone(), v);
            }
            if writes_t {
                st.insert(e, me);
            }
        }
        None => {
            if reads_t {
                reads.insert(me.clone(), shared[e as usize].clone());
            }
            if writes_t {
                shared[e as usize] = me;
            }
        }
    }
}

/// The original program, in its own order.
fn original(c: &Case) -> (Trace, Vec<bool>) {
    let mut order = vec![];
    if c.pre {
        order.extend((0..M).map(|j| ("Pre".to_string(), 0, j)));
    }
    for i in 0..N {
        for (k, b) in c.body.iter().enumerate() {
            order.extend((b.lo..=b.hi).map(|j| (format!("B{k}"), i, j)));
        }
    }
    if c.post {
        order.extend((0..M).map(|j| ("Post".to_string(), 0, j)));
    }
    let mut shared: Vec<Val> = (0..M).map(|e| ("init".to_string(), e, 0)).collect();
    let mut reads = HashMap::new();
    // Which elements the statements of l write last (the write-back's elements).
    let mut by_l = vec![false; M as usize];
    for inst in &order {
        step(c, inst, &mut shared, None, &mut reads);
        if let Some(k) = inst.0.strip_prefix('B') {
            let b = &c.body[k.parse::<usize>().unwrap()];
            if b.kind != 1 {
                by_l[(inst.2 + b.a) as usize] = b.in_l;
            }
        } else if inst.0 == "Pre" {
            by_l[inst.2 as usize] = false;
        }
    }
    (
        Trace {
            reads,
            last: shared,
        },
        by_l,
    )
}

/// The contracted program (one storage element per element of `t` for the statements of
/// `l`) in the final order `order`, then the write-back.
fn contracted(c: &Case, order: &[(String, i64, i64)], by_l: &[bool]) -> Trace {
    let mut shared: Vec<Val> = (0..M).map(|e| ("init".to_string(), e, 0)).collect();
    let mut storage: HashMap<i64, Val> = HashMap::new();
    let mut reads = HashMap::new();
    for inst in order {
        step(c, inst, &mut shared, Some(&mut storage), &mut reads);
    }
    for e in 0..M {
        if by_l[e as usize] {
            if let Some(v) = storage.get(&e) {
                shared[e as usize] = v.clone();
            }
        }
    }
    Trace {
        reads,
        last: shared,
    }
}

/// An instance (label, i, j) with its final time.
type Timed = ((String, i64, i64), Vec<Int>);

/// The final order of the instances as (label, i, j), each with its time.
fn final_order(kernel: &Kernel, run: &Run) -> Vec<Timed> {
    trace::scheduled_instances(kernel, run, &[])
        .into_iter()
        .map(|(time, line)| {
            let mut w = line.split(' ');
            let name = w.next().unwrap();
            let st = kernel
                .scop
                .statements
                .iter()
                .find(|s| s.name == name)
                .unwrap();
            let label = st.label.clone().unwrap();
            let xs: Vec<i64> = w.map(|x| x.parse().unwrap()).collect();
            let inst = match xs.as_slice() {
                [j] => (label, 0, *j),
                [i, j] => (label, *i, *j),
                _ => panic!("{line}"),
            };
            (inst, time)
        })
        .collect()
}

/// Whether two instances of the statements of `l` in different iterations `i` of a loop
/// marked `parallel` (their times equal before the loop's dimension, different at it) use
/// one element of the contracted storage, one of them writing it.
fn races(c: &Case, run: &Run, order: &[Timed]) -> bool {
    let pieces = &run.interp.state.pieces;
    let marked = |t: &[Int], j: usize| {
        pieces.iter().any(|p| {
            (0..=j).all(|k| p.pos[k] == t[2 * k])
                && p.marks.iter().any(|m| m.dim == j && m.kind.reorders())
        })
    };
    let use_of = |(label, _, j): &(String, i64, i64)| -> Option<(i64, bool)> {
        let b = &c.body[label.strip_prefix('B')?.parse::<usize>().ok()?];
        b.in_l.then_some((j + b.a, b.kind != 1))
    };
    for (a, ta) in order {
        for (b, tb) in order {
            let (Some((ea, wa)), Some((eb, wb))) = (use_of(a), use_of(b)) else {
                continue;
            };
            if a.1 == b.1 || ea != eb || !(wa || wb) {
                continue;
            }
            let Some(d) = (0..ta.len()).find(|&d| ta[d] != tb[d]) else {
                continue;
            };
            if d % 2 == 1 && marked(ta, d / 2) {
                return true;
            }
        }
    }
    false
}

/// A random operation on the case's statements.
fn random_op(c: &Case, r: &mut Rng) -> String {
    let n = c.body.len() as u64;
    let b = |r: &mut Rng| format!("B{}", r.below(n));
    let all: Vec<String> = (0..c.body.len()).map(|k| format!("B{k}")).collect();
    match r.below(7) {
        6 => format!("parallel({{{}}}, 1)", all.join(", ")),
        0 => format!("reverse({{{}}}, 1)", all.join(", ")),
        1 => format!("reverse({}, 2)", b(r)),
        2 => format!("interchange({}, 1, 2)", b(r)),
        3 => format!("realign({}, {}, 1)", b(r), b(r)),
        4 => format!("realign({}, {}, 2)", b(r), b(r)),
        _ => format!("move_before({}, {})", b(r), b(r)),
    }
}

/// The kernel's file, the kernel, the run, the operations applied and the statements of
/// the expansion.
type Scheduled = (std::path::PathBuf, Kernel, Run, Vec<String>, Vec<String>);

/// A random case scheduled as the random tests do: `t` expanded along `i` for the case's
/// statements `l`, up to three random operations (those that apply), then `contract(t)`.
/// Returns the kernel's file, the kernel, the run, the operations applied and `l`; `None`
/// when the expansion is refused.
fn contracted_case(c: &Case, case_no: usize, rng: &mut Rng, dir: &Path) -> Option<Scheduled> {
    let l: Vec<String> = (c.body.iter().enumerate())
        .filter(|(_, b)| b.in_l)
        .map(|(k, _)| format!("B{k}"))
        .collect();
    let src = dir.join(format!("k{case_no}.c"));
    std::fs::write(&src, c_text(c)).unwrap();
    let kernel = Kernel::load(&src, &Options::default()).unwrap();
    let prefix = format!("expand({{{}}}, 1, t)\n", l.join(", "));
    let mut run = Run::new(&kernel, &prefix, "script", dir).ok()?;
    let mut script = vec![];
    for _ in 0..rng.below(4) {
        let op = random_op(c, rng);
        if run.apply(&kernel, &op, "op", dir).is_ok() {
            script.push(op);
        }
    }
    run.apply(&kernel, "contract(t)", "op", dir).unwrap();
    Some((src, kernel, run, script, l))
}

#[test]
fn random_contractions_against_brute_force() {
    let dir = common::scratch("contract", "random");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut accepted, mut refused, mut cautious, mut compiled) = (0, 0, 0, 0);
    for case_no in 0..400 {
        let c = random_case(&mut rng);
        let Some((src, kernel, run, script, _)) = contracted_case(&c, case_no, &mut rng, &dir)
        else {
            continue;
        };
        let violations = run.check();
        if violations
            .iter()
            .any(|v| !matches!(v.kind, ViolationKind::Contract(_)))
        {
            continue; // the expanded program's schedule is illegal already
        }
        let (want, by_l) = original(&c);
        let order = final_order(&kernel, &run);
        let insts: Vec<_> = order.iter().map(|(x, _)| x.clone()).collect();
        let got = contracted(&c, &insts, &by_l);
        let keeps = got == want && !races(&c, &run, &order);
        let text = format!("{}{}\ncontract(t)", c_text(&c), script.join("\n"));
        if violations.is_empty() {
            assert!(
                keeps,
                "case {case_no}: accepted, but the contracted program computes otherwise\n{text}"
            );
            accepted += 1;
            if compiled < 8 {
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
                    run_exe(&dir.join("orig"), "1"),
                    run_exe(&dir.join("new"), "1"),
                    "case {case_no}: outputs differ\n{}",
                    g.region
                );
            }
        } else if keeps {
            // The test is sufficient, not necessary: uses interleaved where no value is
            // live between them are refused.
            cautious += 1;
        } else {
            refused += 1;
        }
    }
    eprintln!("{accepted} accepted, {refused} rightly refused, {cautious} refused though they keep the values");
    assert!(
        accepted >= 20 && refused >= 10,
        "{accepted} accepted, {refused} rightly refused, {cautious} refused though they keep the values"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each refused contraction: `check` and `apply` exit 1 with the same report, a snapshot.
#[test]
fn refusals_are_reported_with_witnesses() {
    let cases = [
        ("lu_pivot_together", "tests/data/expand/lu-pivot.c"),
        ("lu_pivot_two_contracts", "tests/data/expand/lu-pivot.c"),
        ("doitgen_parallel_r", "examples/doitgen/doitgen.c"),
        ("reuse_reversed", "tests/data/expand/reuse.c"),
    ];
    let dir = common::scratch("contract", "refusals");
    for (name, kernel) in cases {
        let script = format!("tests/data/contract/{name}.loopy");
        let (rc, _, err) = common::loopy(&["check", kernel, &script]);
        assert_eq!(rc, 1, "{name}: {err}");
        assert!(err.contains("illegal `contract`"), "{name}: {err}");
        let out = dir.join("out.c");
        let (rc2, _, err2) =
            common::loopy(&["apply", kernel, &script, "-o", out.to_str().unwrap()]);
        assert_eq!(rc2, 1, "{name}: apply: {err2}");
        assert!(
            err2.starts_with(&err),
            "{name}: check and apply report alike\n{err2}"
        );
        assert!(!out.exists(), "{name}: apply wrote an illegal program");
        insta::assert_snapshot!(format!("contract_{name}"), err);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bad arguments: exit 2, the report pointing at the argument.
#[test]
fn arguments_are_checked() {
    for (name, want) in [
        ("not_expanded", "`t` is not expanded"),
        ("no_such_loop", "there is no loop 2 to give back"),
        ("twice", "is already given back"),
        (
            "copied",
            "holds several iterations of loop 1 of its expansion, which `contract` gave back",
        ),
    ] {
        let script = format!("tests/data/contract/{name}.loopy");
        let (rc, _, err) = common::loopy(&["check", "tests/data/expand/reuse.c", &script]);
        assert_eq!(rc, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
    }
    // ludcmp's `w` is expanded three times by this prefix: a contraction names the storage.
    let prefix = std::fs::read_to_string("tests/data/expand/ludcmp_prefix.loopy").unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let k = Kernel::load(&root.join("examples/ludcmp/ludcmp.c"), &Options::default()).unwrap();
    let mut run = Run::new(&k, &prefix, "prefix", root).unwrap();
    let e = run.apply(&k, "contract(w)", "op", root).unwrap_err();
    assert!(
        e.diagnostic.message.contains("expanded 3 times"),
        "{}",
        e.diagnostic.message
    );
    run.apply(&k, "contract(loopy2_w_x, 1)", "op", root)
        .unwrap();
}

/// Pivoting LU's blocked example, whose script gives `t` back whole: legal, the storage a
/// scalar again (an n × n array without the `contract`), and the program prints what the
/// original prints.
#[test]
fn pivoting_lu_gives_its_swap_temporary_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kernel = root.join("examples/lu-pivot/lu-pivot.c");
    let k = Kernel::load(&kernel, &Options::default()).unwrap();
    let text = std::fs::read_to_string(root.join("examples/lu-pivot/lu-pivot.loopy")).unwrap();
    // The example's script without its `contract`: an n × n storage on the heap.
    let expanded = text.replace("contract(t)\n", "");
    assert_ne!(expanded, text);
    let run = Run::new(&k, &expanded, "lu-pivot.loopy", root).unwrap();
    let before = generate(&k, &run.interp.state).unwrap();
    assert!(
        before.region.contains("__builtin_malloc"),
        "{}",
        before.region
    );
    let run = Run::new(&k, &text, "lu-pivot.loopy", root).unwrap();
    assert!(run.check().is_empty());
    let g = generate(&k, &run.interp.state).unwrap();
    assert!(
        g.region
            .contains("__typeof__(t) loopy_t_x __attribute__((aligned(64)));"),
        "{}",
        g.region
    );
    assert!(!g.region.contains("__builtin_malloc"), "{}", g.region);
    assert!(g.region.contains("t = loopy_t_x;"), "{}", g.region);
    let dir = common::scratch("contract", "lu-pivot");
    let new = dir.join("new.c");
    std::fs::write(&new, &g.file).unwrap();
    common::compile(&kernel, &dir.join("orig"), &["-O2", "-lm"], "original");
    common::compile(
        &new,
        &dir.join("new"),
        &["-O2", "-Wall", "-Wextra", "-Werror", "-lm"],
        &g.region,
    );
    assert_eq!(
        run_exe(&dir.join("orig"), "1"),
        run_exe(&dir.join("new"), "1"),
        "{}",
        g.region
    );
    // The k loop given back alone (each step's columns apart) is legal too.
    let (rc, out, err) = common::loopy(&[
        "check",
        "tests/data/expand/lu-pivot.c",
        "tests/data/contract/lu_pivot_apart.loopy",
    ]);
    assert_eq!(rc, 0, "{out}{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// doitgen with `r` parallel: giving `q` back leaves one row of sums per `r`, and the
/// program prints the same on one and three threads.
#[test]
fn doitgen_keeps_a_row_of_sums_per_parallel_iteration() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kernel = root.join("examples/doitgen/doitgen.c");
    let k = Kernel::load(&kernel, &Options::default()).unwrap();
    let text =
        std::fs::read_to_string(root.join("tests/data/contract/doitgen_parallel_q.loopy")).unwrap();
    let run = Run::new(&k, &text, "script", root).unwrap();
    assert!(run.check().is_empty());
    let g = generate(&k, &run.interp.state).unwrap();
    assert!(g.region.contains("loopy_sum_x[r][p]"), "{}", g.region);
    let dir = common::scratch("contract", "doitgen");
    let new = dir.join("new.c");
    std::fs::write(&new, &g.file).unwrap();
    common::compile(&kernel, &dir.join("orig"), &["-O2"], "original");
    common::compile(
        &new,
        &dir.join("new"),
        &["-O2", "-fopenmp", "-Wall", "-Wextra", "-Werror"],
        &g.region,
    );
    let want = run_exe(&dir.join("orig"), "1");
    for threads in ["1", "3"] {
        assert_eq!(
            want,
            run_exe(&dir.join("new"), threads),
            "{threads} threads\n{}",
            g.region
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A copy of a contracted storage (doitgen's fast script: the sums of MR rows in registers,
/// the storage one NQ x NP matrix for every r): each window holds one iteration of the loop
/// given back, so the buffer's elements are the storage's; the program prints what the
/// original prints (both `A` and the live-out `sum`) at sizes with whole and partial blocks
/// of rows and strips, with register blocks and without. A copy whose window holds several
/// iterations of a loop given back (the q loop, of which a window holds MR) is refused,
/// naming the `contract`, by `check` and `apply` alike.
#[test]
fn a_contracted_storage_is_copied_one_iteration_of_the_loops_given_back_a_window() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kernel = root.join("examples/doitgen/doitgen.c");
    let dir = common::scratch("contract", "copied");
    for (sizes, regs) in [
        (["-DNQ=13", "-DNR=3", "-DNP=37"], true),
        (["-DNQ=8", "-DNR=2", "-DNP=64"], true),
        (["-DNQ=13", "-DNR=3", "-DNP=37"], false),
    ] {
        let out = dir.join("new.c");
        let mut args = vec![
            "apply",
            "examples/doitgen/doitgen.c",
            "examples/doitgen/doitgen-fast.loopy",
            "--set",
            "MR=4",
            "--set",
            "W=16",
            "--vector-bytes",
            "32",
            "-o",
            out.to_str().unwrap(),
        ];
        if !regs {
            args.push("--no-registers");
        }
        let (rc, _, err) = common::loopy(&args);
        assert_eq!(rc, 0, "{err}");
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.contains("loopy_sum_x[q][p] = 0.0;"), "{text}");
        assert_eq!(text.contains("loopy_loopy_sum_x_r0_0"), regs, "{text}");
        let mut flags = vec!["-O2", "-ffp-contract=off"];
        flags.extend(sizes);
        common::compile(&kernel, &dir.join("orig"), &flags, "original");
        common::compile(&out, &dir.join("new"), &flags, &text);
        assert_eq!(
            run_exe(&dir.join("orig"), "1"),
            run_exe(&dir.join("new"), "1"),
            "{sizes:?}\n{text}"
        );
    }
    let script = "tests/data/contract/doitgen_copy_rows_given_back.loopy";
    let (rc, _, err) = common::loopy(&["check", "examples/doitgen/doitgen.c", script]);
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains(
            "holds several iterations of loop 2 of its expansion, which `contract` gave back"
        ),
        "{err}"
    );
    assert!(err.contains("given back here"), "{err}");
    let out = dir.join("refused.c");
    let (rc, _, err2) = common::loopy(&[
        "apply",
        "examples/doitgen/doitgen.c",
        script,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(rc, 2, "{err2}");
    assert!(err2.contains("gave back"), "{err2}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Random kernels with `t` expanded along `i`, scheduled by random operations, contracted
/// again and then staged by a `copy` of the contracted storage inside loop 1: when the copy
/// is planned (each window one iteration of the loop given back, else refused when it is
/// planned) and `check` accepts the whole script, the generated program prints what the
/// original prints (compiled and run, on two threads where a loop is parallel, with
/// AddressSanitizer where the compiler has it). Both outcomes are reached. (This test found
/// copies of an expansion's storage placed at the subscripts' values instead of the
/// storage's, which starts at its box's corner.)
#[test]
fn random_copies_of_a_contracted_storage_print_what_the_original_prints() {
    let dir = common::scratch("contract", "random-copies");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut compiled, mut planned_refused) = (0, 0);
    for case_no in 0..300 {
        let c = random_case(&mut rng);
        let Some((src, kernel, mut run, script, l)) = contracted_case(&c, case_no, &mut rng, &dir)
        else {
            continue;
        };
        let copy = format!("copy({{{}}}, 1, loopy_t_x)", l.join(", "));
        match run.apply(&kernel, &copy, "op", &dir) {
            Err(e) if e.diagnostic.message.contains("which `contract` gave back") => {
                planned_refused += 1;
                continue;
            }
            Err(_) => continue,
            Ok(_) => {}
        }
        if !run.check().is_empty() || compiled >= 30 {
            continue;
        }
        compiled += 1;
        let g = generate(&kernel, &run.interp.state).unwrap_or_else(|e| {
            panic!(
                "case {case_no}: {}\n{}{}\n{copy}",
                e.diagnostic.message,
                c_text(&c),
                script.join("\n")
            )
        });
        let new = dir.join(format!("k{case_no}x.c"));
        std::fs::write(&new, &g.file).unwrap();
        common::compile(&src, &dir.join("orig"), &["-O1"], "original");
        // Not `-Werror`: a fill reads the storage's whole footprint, also elements the
        // window writes before it reads them, which the storage may not hold yet (gcc's
        // `-Wuninitialized`); the value read is overwritten unused.
        // With AddressSanitizer where the compiler has it: an element placed outside the
        // storage or the buffer stops the program, whatever it prints.
        let mut flags = vec!["-O1", "-fopenmp"];
        if asan(&dir) {
            flags.push("-fsanitize=address");
        }
        common::compile(&new, &dir.join("new"), &flags, &g.region);
        assert_eq!(
            run_exe(&dir.join("orig"), "1"),
            run_exe(&dir.join("new"), "2"),
            "case {case_no}: outputs differ\n{}{}\ncontract(t)\n{copy}\n{}",
            c_text(&c),
            script.join("\n"),
            g.region
        );
    }
    eprintln!("{compiled} compiled and compared, {planned_refused} refused when planned");
    assert!(
        compiled >= 10 && planned_refused >= 3,
        "{compiled} compiled and compared, {planned_refused} refused when planned"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether the C compiler builds and runs a program with `-fsanitize=address`.
fn asan(dir: &Path) -> bool {
    let src = dir.join("asan.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
    let exe = dir.join("asan");
    let built = Command::new(common::cc())
        .args(["-fsanitize=address", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .is_ok_and(|s| s.success());
    built && Command::new(&exe).status().is_ok_and(|s| s.success())
}
