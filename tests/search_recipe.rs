//! The BLIS recipe in `loopy search`: contractions recognised from their accesses and
//! dependences get the standard library's BLIS blocking with the machine model's sizes, as
//! a verified candidate; statements that look like contractions and are not are skipped,
//! each with its reason.

mod common;
use common::{compile, loopy, scratch};
use std::process::Command;

fn numbers(out: &str) -> Vec<f64> {
    out.split_whitespace().map(|w| w.parse().unwrap()).collect()
}

fn run(exe: &std::path::Path) -> String {
    let out = Command::new(exe).output().expect("run");
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// Every step of a written script has its comment: each line that is not a parameter
/// follows a comment.
fn assert_commented(script: &str) {
    let lines: Vec<&str> = script.lines().collect();
    for (k, l) in lines.iter().enumerate() {
        if !l.starts_with('#') && !l.starts_with("param ") {
            assert!(
                k > 0 && lines[k - 1].starts_with('#'),
                "no comment before {l:?}:\n{script}"
            );
        }
    }
}

/// `loopy check` accepts `script` on `kernel`; the original and the code `loopy apply`
/// generates are built (`-ffp-contract=off`) and run: what each prints.
fn original_and_generated(
    kernel: &str,
    script: &std::path::Path,
    dir: &std::path::Path,
) -> (String, String) {
    let (code, out, err) = loopy(&["check", kernel, script.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, generated, err) = loopy(&["apply", kernel, script.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (orig, new) = (dir.join("orig.c"), dir.join("new.c"));
    std::fs::copy(kernel, &orig).unwrap();
    std::fs::write(&new, &generated).unwrap();
    let flags = ["-O2", "-march=native", "-ffp-contract=off", "-lm"];
    compile(&orig, &dir.join("orig"), &flags, "");
    compile(&new, &dir.join("new"), &flags, &generated);
    (run(&dir.join("orig")), run(&dir.join("new")))
}

/// On a small gemm (sizes not multiples of the register block), `search --no-bench -o`
/// writes the recipe: a comment before each step, the machine model's sizes, the blocking of
/// the product scaled by `alpha`; `loopy check` accepts it, and the code `loopy apply`
/// generates prints what the original prints (the order of each sum is kept: `k` ascending
/// per element; compared within 1e-12 relative).
#[test]
fn the_recipe_on_gemm_is_legal_and_prints_what_the_original_prints() {
    let kernel = "tests/data/search/contraction.c";
    let dir = scratch("search_recipe", "gemm");
    let best = dir.join("best.loopy");
    let (code, out, err) = loopy(&["search", kernel, "--no-bench", "-o", best.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("recipe, BLIS recipe on S1: legal"), "{out}");
    let script = std::fs::read_to_string(&best).unwrap();
    for needle in [
        "param MR = ",
        "param NC = ",
        "realign(S0, S1, 0)",
        "isplit(S1, [ni, nj]",
        "gemm_block_scaled(Blis1, A, alpha, B, C, MR, NR, KC, MC, NC)",
        // The header says why it was chosen: not by the cost model, which ranks schedules.
        "# the BLIS recipe on S1, ranked first by the search where a recipe applies, not timed",
    ] {
        assert!(script.contains(needle), "{needle}:\n{script}");
    }
    assert_commented(&script);
    let (want, got) = original_and_generated(kernel, &best, &dir);
    let (want, got) = (numbers(&want), numbers(&got));
    assert_eq!(want.len(), 37 * 41);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{g} against {w}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two statements that look like contractions and are not: `B[k][i + j]` varies in every
/// loop, and `D[i][j] += D[i][k] * B[k][j]` reads its own array's row (dependences between
/// its instances other than the reduction's forbid reordering its loops). The recipe is
/// skipped for each, with the reason, and no candidate uses it.
#[test]
fn the_recipe_is_skipped_where_its_precondition_fails() {
    let kernel = "tests/data/search/not_contraction.c";
    let (code, out, err) = loopy(&["search", kernel, "--no-bench"]);
    assert_eq!(code, 0, "{out}{err}");
    for needle in [
        "skipped: the BLIS recipe does not apply to Skew: the operand `B` varies in every loop",
        "skipped: the BLIS recipe does not apply to Self: an anti dependence of the statement on itself through `D` is not the reduction's",
    ] {
        assert!(out.contains(needle), "{needle}:\n{out}");
    }
    assert!(!out.contains("gemm_block"), "{out}");
    // JSON: the skipped recipes are candidates of kind `recipe` with their reason (Skew
    // also gets the register-block recipe, which reads no operand pattern).
    let (code, json, err) = loopy(&["search", kernel, "--no-bench", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        json.matches("\"variant\": \"recipe, BLIS recipe on ")
            .count(),
        2,
        "{json}"
    );
    assert!(!json.contains("register-block recipe on Self"), "{json}");
}

/// `--no-recipes` leaves the recipe out, and says so for each contraction.
#[test]
fn no_recipes_leaves_the_recipe_out() {
    let kernel = "tests/data/search/contraction.c";
    let (code, out, err) = loopy(&["search", kernel, "--no-bench", "--no-recipes"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("skipped: the BLIS recipe does not apply to S1: --no-recipes"),
        "{out}"
    );
    assert!(!out.contains("gemm_block"), "{out}");
}

/// On a small syr2k (a triangular domain, both products reading `A` and `B` by rows: not a
/// BLIS contraction), `search --no-bench -o` writes the register-block recipe with a comment
/// before each step and the whole tiles derived from the domain; `loopy check` accepts it,
/// and the code `loopy apply` generates prints exactly what the original prints (each sum
/// keeps its order, `k` ascending per element).
#[test]
fn the_register_block_recipe_on_syr2k_is_legal_and_prints_what_the_original_prints() {
    let kernel = "tests/data/search/syr2k_like.c";
    let dir = scratch("search_recipe", "syr2k");
    let best = dir.join("best.loopy");
    let (code, out, err) = loopy(&["search", kernel, "--no-bench", "-o", best.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("skipped: the BLIS recipe does not apply to S1: the operand `A` is not read as `A[i][k]` or `A[k][j]`"),
        "{out}"
    );
    assert!(
        out.contains("recipe, register-block recipe on S1 ("),
        "{out}"
    );
    let script = std::fs::read_to_string(&best).unwrap();
    for needle in [
        "# the register-block recipe on S1 (",
        "realign(S0, S1, 0)",
        // The whole tiles: below the diagonal and above the last rows.
        "(Reg1, Cut1) = isplit(S1, [n, m] -> {[i, k, j] : n - MR*floor(i/MR) - MR >= 0 and MR*floor(i/MR) - NR*floor(j/NR) - NR + 1 >= 0}, 0)",
        "copy(Reg1, 3, C)",
        "unroll(Reg1, 5, MR)",
        "vectorize(Reg1, 6)",
    ] {
        assert!(script.contains(needle), "{needle}:\n{script}");
    }
    assert_commented(&script);
    let (want, got) = original_and_generated(kernel, &best, &dir);
    assert_eq!(want.lines().count(), 45 * 45);
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two updates with a product's shape that the register-block recipe must skip, each with
/// its reason: one reads elements of the updated array it does not update, one has a domain
/// with an integer division. No candidate uses the recipe.
#[test]
fn the_register_block_recipe_is_skipped_where_its_precondition_fails() {
    let kernel = "tests/data/search/not_register_block.c";
    let (code, out, err) = loopy(&["search", kernel, "--no-bench"]);
    assert_eq!(code, 0, "{out}{err}");
    for needle in [
        "skipped: the register-block recipe does not apply to S0: it reads other elements of `C` than the one it updates",
        "skipped: the register-block recipe does not apply to S1: its domain has integer divisions",
    ] {
        assert!(out.contains(needle), "{needle}:\n{out}");
    }
    assert!(!out.contains("register-block recipe on S0 ("), "{out}");
    assert!(!out.contains("register-block recipe on S1 ("), "{out}");
    assert!(!out.contains("unroll("), "{out}");
}

/// A time-stepped update (fdtd-2d: each field updated from the others in the same `t`
/// loop) has a product's shape but is no product: the register-block recipe skips it,
/// naming the statement that writes its operand in a loop they share.
#[test]
fn the_register_block_recipe_skips_time_steps() {
    let (code, out, err) = loopy(&["search", "examples/fdtd-2d/fdtd-2d.c", "--no-bench"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("skipped: the register-block recipe does not apply to HZ: its operand `ex` is written by EX inside a loop they share"),
        "{out}"
    );
    assert!(!out.contains("unroll("), "{out}");
}

/// For two threads each recipe comes first on the threads (the standard library's `_par`
/// blocking, the edges' rows parallel; the register block's row tiles parallel), then as
/// it is; the checker accepts both.
#[test]
fn recipes_on_the_threads() {
    let (code, out, err) = loopy(&[
        "search",
        "tests/data/search/contraction.c",
        "--no-bench",
        "--threads",
        "2",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("recipe, BLIS recipe on S1, on the threads: legal"),
        "{out}"
    );
    assert!(out.contains("recipe, BLIS recipe on S1: legal"), "{out}");
    assert!(
        out.contains("gemm_block_scaled_par(Blis1, A, alpha, B, C, MR, NR, KC, MC, NC)"),
        "{out}"
    );
    assert!(out.contains("parallel(Edge1, 1)"), "{out}");
    let (code, out, err) = loopy(&[
        "search",
        "tests/data/search/syr2k_like.c",
        "--no-bench",
        "--threads",
        "2",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("), on the threads: legal"), "{out}");
    assert!(out.contains("parallel(Reg1, 2)"), "{out}");
    // One thread: no recipe on the threads.
    let (_, out, _) = loopy(&["search", "tests/data/search/contraction.c", "--no-bench"]);
    assert!(!out.contains("on the threads"), "{out}");
    assert!(!out.contains("_par("), "{out}");
}

/// On doitgen (a product computed one row at a time through the temporary row `sum`),
/// `search --no-bench -o` writes the row-block recipe with a comment before each step: `sum`
/// expanded per row and given back the outer loop, blocks of MR rows, the block's MR x NR
/// sums in registers (the machine model's sizes); `loopy check` accepts it, and the code
/// `loopy apply` generates prints exactly what the original prints (`A` and the live-out
/// `sum`, at sizes with whole and partial blocks).
#[test]
fn the_row_block_recipe_on_doitgen_is_legal_and_prints_what_the_original_prints() {
    let kernel = "examples/doitgen/doitgen.c";
    let dir = scratch("search_recipe", "doitgen");
    let best = dir.join("best.loopy");
    let (code, out, err) = loopy(&["search", kernel, "--no-bench", "-o", best.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("recipe, row-block recipe on Mult ("), "{out}");
    let script = std::fs::read_to_string(&best).unwrap();
    for needle in [
        "expand({Init, Mult, Ret}, 2, sum)",
        "contract(sum, [1])",
        "affine({Init, Mult, Ret}, {[r, q] -> [r, q1, q] : q1 = floor(q/MR)})",
        "affine(Mult, {[r, q1, q, p, s] -> [r, q1, p1, s, q, p] : p1 = floor(p/NR)})",
        "copy(Mult, 3, loopy_sum_x)",
        "unroll(Mult, 5, MR)",
        "vectorize(Mult, 6)",
    ] {
        assert!(script.contains(needle), "{needle}:\n{script}");
    }
    assert_commented(&script);
    let (want, got) = original_and_generated(kernel, &best, &dir);
    assert!(want.contains("sum: sum"), "{want}");
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Updates of a one-dimensional array in three loops that the row-block recipe must skip,
/// each with its reason: one accumulates across every outer iteration (nothing sets it
/// before and reads it out after), one is indexed by its outermost loop. No candidate uses
/// the recipe.
#[test]
fn the_row_block_recipe_is_skipped_where_its_precondition_fails() {
    let (code, out, err) = loopy(&["search", "tests/data/search/not_row_block.c", "--no-bench"]);
    assert_eq!(code, 0, "{out}{err}");
    for needle in [
        "skipped: the row-block recipe does not apply to S0: not exactly one statement sets `y` before it and one reads it after",
        "skipped: the row-block recipe does not apply to S1: the loop indexing `w` is not one of its two innermost",
    ] {
        assert!(out.contains(needle), "{needle}:\n{out}");
    }
    assert!(!out.contains("row-block recipe on S0 ("), "{out}");
    assert!(!out.contains("expand("), "{out}");
}

/// For several threads the row-block recipe comes first with its blocks of rows on the
/// threads (each block sets, computes and reads out its own rows of the storage): the
/// checker accepts it, and the generated program, built with OpenMP and run on three
/// threads, prints exactly what the original prints.
#[test]
fn the_row_block_recipe_on_the_threads_prints_what_the_original_prints() {
    let (out, script) = answer_on_threads_agrees("examples/doitgen/doitgen.c", "doitgen");
    assert!(
        out.contains("recipe, row-block recipe on Mult (")
            && out.contains("), on the threads: legal"),
        "{out}"
    );
    assert!(script.contains("parallel(Init, 2)"), "{script}");
    assert_commented(&script);
}

/// `search --no-bench --threads 2` on `kernel`: the answer is accepted by `loopy check`,
/// and the generated program, built with OpenMP and run on three threads, prints exactly
/// what the original prints. The search's output and the script.
fn answer_on_threads_agrees(kernel: &str, case: &str) -> (String, String) {
    let dir = scratch("search_recipe", &format!("{case}-threads"));
    let best = dir.join("best.loopy");
    let (code, searched, err) = loopy(&[
        "search",
        kernel,
        "--no-bench",
        "--threads",
        "2",
        "-o",
        best.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{searched}{err}");
    let script = std::fs::read_to_string(&best).unwrap();
    on_threads_agrees(kernel, &best, &dir, case);
    let _ = std::fs::remove_dir_all(&dir);
    (searched, script)
}

/// `loopy check` accepts `script` on `kernel`, and the generated program, built with
/// OpenMP into `dir` and run on three threads, prints exactly what the original prints.
fn on_threads_agrees(kernel: &str, best: &std::path::Path, dir: &std::path::Path, case: &str) {
    let (code, out, err) = loopy(&["check", kernel, best.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, generated, err) = loopy(&["apply", kernel, best.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (orig, new) = (dir.join("orig.c"), dir.join("new.c"));
    std::fs::copy(kernel, &orig).unwrap();
    std::fs::write(&new, &generated).unwrap();
    let flags = [
        "-O2",
        "-march=native",
        "-ffp-contract=off",
        "-fopenmp",
        "-lm",
    ];
    compile(&orig, &dir.join("orig"), &flags, "");
    compile(&new, &dir.join("new"), &flags, &generated);
    let out = Command::new(dir.join("new"))
        .env("OMP_NUM_THREADS", "3")
        .output()
        .expect("run");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        run(&dir.join("orig")),
        "{case}"
    );
}

/// For several threads the kernel as it is is a candidate with its outermost parallel
/// loops marked: jacobi-1d's time loop carries its dependences, so each sweep's own loop,
/// one further in, is marked instead (the mark on the time loop is refused by the checker,
/// must-fail); the candidate's program, on three threads, prints what the original prints.
/// On one thread there is no such candidate.
#[test]
fn the_kernel_as_it_is_gets_its_parallel_loops_marked() {
    let kernel = "examples/jacobi-1d/jacobi-1d.c";
    let dir = scratch("search_recipe", "own-marks");
    let search = |threads: &str| {
        let (code, out, err) = loopy(&[
            "search",
            kernel,
            "--no-bench",
            "--threads",
            threads,
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let own = (v["candidates"].as_array().unwrap().iter())
            .find(|c| {
                c["variant"]
                    .as_str()
                    .unwrap()
                    .contains("the kernel as it is, its")
            })
            .cloned();
        own.map(|c| {
            (
                c["verdict"].as_str().unwrap().to_string(),
                c["script"].as_str().unwrap().to_string(),
            )
        })
    };
    assert_eq!(search("1"), None);
    let (verdict, script) = search("2").expect("a candidate with marks");
    assert_eq!(verdict, "legal");
    assert_commented(&script);
    let marks: Vec<&str> = script.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        marks,
        ["parallel(LoopB, 2)", "parallel(LoopA, 2)"],
        "{script}"
    );
    let best = dir.join("own.loopy");
    std::fs::write(&best, &script).unwrap();
    on_threads_agrees(kernel, &best, &dir, "jacobi-1d");
    // The time loop itself carries the sweeps' dependences: refused.
    let outer = dir.join("outer.loopy");
    std::fs::write(&outer, "parallel({LoopB, LoopA}, 1)\n").unwrap();
    let (code, out, err) = loopy(&["check", kernel, outer.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Must-fail cases of the row-block recipe, each left out by the checker: where every
/// row's read-out adds into one row per outer iteration, the blocks may run in order but
/// not on threads; where each row reads what the previous row read out, not in blocks at
/// all. The script written is then the legal one, or not the recipe.
#[test]
fn the_row_block_recipe_is_only_taken_where_it_is_legal() {
    let dir = scratch("search_recipe", "rows-must-fail");
    let out_script = dir.join("best.loopy");
    let o = out_script.to_str().unwrap();
    let search = |kernel: &str| {
        let (code, out, err) = loopy(&["search", kernel, "--no-bench", "--threads", "2", "-o", o]);
        assert_eq!(code, 0, "{out}{err}");
        (out, std::fs::read_to_string(&out_script).unwrap())
    };
    // The row-block candidates' lines: (on the threads, verdict).
    let verdicts = |out: &str| -> Vec<(bool, String)> {
        (out.lines())
            .filter(|l| l.starts_with("candidate") && l.contains("row-block recipe on S1 ("))
            .map(|l| {
                let (head, verdict) = l.rsplit_once(": ").unwrap();
                (head.ends_with("on the threads"), verdict.to_string())
            })
            .collect()
    };
    let (out, script) = search("tests/data/search/rows_shared.c");
    assert_eq!(
        verdicts(&out),
        [(true, "illegal".to_string()), (false, "legal".to_string())],
        "{out}"
    );
    assert!(out.contains("illegal `parallel`"), "{out}");
    assert!(script.contains("contract(sum, [1])"), "{script}");
    assert!(!script.contains("parallel("), "{script}");
    let (out, script) = search("tests/data/search/rows_carried.c");
    assert_eq!(
        verdicts(&out),
        [
            (true, "illegal".to_string()),
            (false, "illegal".to_string())
        ],
        "{out}"
    );
    assert!(out.contains("flow dependence on `B`"), "{out}");
    assert!(!script.contains("expand("), "{script}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The alias-split recipe on floyd-warshall (the loop `j` writes, at `j = k`, the element
/// `path[i][k]` that each of its iterations reads) and on a kernel whose point is a function
/// of a parameter: `search --no-bench -o` writes the split, a comment before each step;
/// `loopy check` accepts it, and the code `loopy apply` generates prints exactly what the
/// original prints.
#[test]
fn the_alias_split_recipe_is_legal_and_prints_what_the_original_prints() {
    for (kernel, name, needles) in [
        (
            "examples/floyd-warshall/floyd-warshall.c",
            "floyd",
            [
                "recipe, alias-split recipe on Relax (j = k): legal",
                "(RelaxLo, RelaxRest) = isplit(Relax, {[k, i, j] : j < k}, 2)",
                "(RelaxAt, RelaxHi) = isplit(RelaxRest, {[k, i, j] : j <= k}, 2)",
            ],
        ),
        (
            "tests/data/search/alias_split.c",
            "param",
            [
                "recipe, alias-split recipe on S0 (j = -k + n - 1): legal",
                "(S0Lo, S0Rest) = isplit(S0, [n] -> {[k, i, j] : j < -k + n - 1}, 2)",
                "(S0At, S0Hi) = isplit(S0Rest, [n] -> {[k, i, j] : j <= -k + n - 1}, 2)",
            ],
        ),
    ] {
        let dir = scratch("search_recipe", &format!("alias-{name}"));
        let best = dir.join("best.loopy");
        let (code, out, err) = loopy(&[
            "search",
            kernel,
            "--no-bench",
            "--explain",
            "-o",
            best.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(needles[0]), "{out}");
        let script = std::fs::read_to_string(&best).unwrap();
        for needle in &needles[1..] {
            assert!(script.contains(needle), "{needle}:\n{script}");
        }
        assert_commented(&script);
        let (want, got) = original_and_generated(kernel, &best, &dir);
        assert!(!want.trim().is_empty(), "{kernel}");
        assert_eq!(got, want, "{kernel}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Loops where the write never meets the read at one iteration of the innermost loop: LU's
/// update (the point `j = k` lies outside its loop `j > k`), a read of a row never written,
/// and a write whose subscript has `j` with coefficient 2. The recipe proposes nothing; nor
/// on floyd-warshall under `--no-recipes`.
#[test]
fn the_alias_split_recipe_is_not_proposed_where_its_precondition_fails() {
    let (code, out, err) = loopy(&[
        "search",
        "tests/data/search/not_alias_split.c",
        "--no-bench",
        "--explain",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("candidate(s)"), "{out}");
    assert!(!out.contains("alias-split"), "{out}");
    assert!(!out.contains("isplit("), "{out}");
    // Nor where it applies, under --no-recipes.
    let (code, out, err) = loopy(&[
        "search",
        "examples/floyd-warshall/floyd-warshall.c",
        "--no-bench",
        "--no-recipes",
        "--explain",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("candidate(s)"), "{out}");
    assert!(!out.contains("alias-split"), "{out}");
}

/// Every candidate (variant, verdict, script) is legal, has a comment before each step,
/// and the code `loopy apply` generates from it prints exactly what the original prints.
fn legal_and_printing_the_same(
    kernel: &str,
    cands: &[(String, String, String)],
    dir: &std::path::Path,
) {
    for (k, (variant, verdict, script)) in cands.iter().enumerate() {
        assert_eq!(verdict, "legal", "{kernel}: {variant}\n{script}");
        assert_commented(script);
        let path = dir.join(format!("candidate{k}.loopy"));
        std::fs::write(&path, script).unwrap();
        let (want, got) = original_and_generated(kernel, &path, dir);
        assert!(!want.trim().is_empty(), "{kernel}");
        assert_eq!(got, want, "{kernel}: {variant}\n{script}");
    }
}

/// The row-jam candidates of `search --no-bench --format json` on `kernel`.
fn jam_candidates(kernel: &str, extra: &[&str]) -> Vec<(String, String, String)> {
    candidates_with(kernel, "row-jam", extra)
}

/// The row-jam recipe (unroll-and-jam of a row loop whose inner loop is a chain of additions
/// into one element per row) on a kernel whose rows run from 1 to n - 2 (strips counted from
/// the first row, the last partial strip split off) with a loop of rows before and after
/// the inner loops, and on atax, bicg, gesummv and mvt: every candidate is legal, has a
/// comment before each step, and the code `loopy apply` generates prints exactly what the
/// original prints (each element is summed in its own order). On trisolv (columns `j < i`)
/// the columns left of each strip's first row are jammed and the others run row by row.
#[test]
fn the_row_jam_recipe_is_legal_and_prints_what_the_original_prints() {
    for (kernel, name, needles) in [
        (
            "tests/data/search/row_jam.c",
            "rows",
            &[
                "affine(Jam0, [n, m] -> {[i] -> [b, i] : b = floor((i - 1)/U)})",
                "realign(S1, S2, 1)",
                "interchange(S2, 2, 3)",
                "(Full0, Part0) = isplit(Jam0, [n, m] -> {[b] : n - U*b - U - 2 >= 0}, 0)",
            ][..],
        ),
        (
            "examples/atax/atax.c",
            "atax",
            &["unroll(Ax, 3, U)", "unroll(ATy, 3, U)"][..],
        ),
        (
            "examples/bicg/bicg.c",
            "bicg",
            &["interchange({S2, Q}, 2, 3)"][..],
        ),
        ("examples/gesummv/gesummv.c", "gesummv", &[][..]),
        ("examples/mvt/mvt.c", "mvt", &["unroll(Second, 3, U)"][..]),
        (
            "examples/trisolv/trisolv.c",
            "trisolv",
            &[
                "(SubMain, SubRest) = isplit(Sub, [n] -> {[b, i, j] : U*b - j - 1 >= 0}, 2)",
                "realign(SubMain, SubRest, 1)",
                "unroll(SubMain, 3, U)",
            ][..],
        ),
    ] {
        let cands = jam_candidates(kernel, &[]);
        assert!(cands.len() >= 2, "{kernel}: {cands:?}");
        let dir = scratch("search_recipe", &format!("jam-{name}"));
        for needle in needles {
            assert!(cands[0].2.contains(needle), "{needle}:\n{}", cands[0].2);
        }
        legal_and_printing_the_same(kernel, &cands, &dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Where the row-jam recipe must not be taken: an inner loop whose first column depends on
/// the row is skipped with that reason; a nest whose rows read the row before them is proposed and every candidate is
/// rejected by the verifier (running rows together breaks the flow dependence on `v`);
/// chains three loops deep and inner loops without a chain get nothing; `--no-recipes`
/// leaves the recipe out.
#[test]
fn the_row_jam_recipe_is_skipped_or_rejected_where_its_precondition_fails() {
    let kernel = "tests/data/search/not_row_jam.c";
    let cands = jam_candidates(kernel, &[]);
    let skipped: Vec<&(String, String, String)> = cands.iter().filter(|c| c.1 == "error").collect();
    assert_eq!(skipped.len(), 1, "{cands:?}");
    assert!(skipped[0].0.contains("on S0"), "{cands:?}");
    assert!(
        skipped[0]
            .2
            .contains("the first column of S0's loop j depends on the row i"),
        "{cands:?}"
    );
    let proposed: Vec<&(String, String, String)> =
        cands.iter().filter(|c| c.1 != "error").collect();
    assert!(!proposed.is_empty(), "{cands:?}");
    for (variant, verdict, _) in &proposed {
        assert!(variant.contains("on S2 ("), "{cands:?}");
        assert_eq!(verdict, "illegal", "{cands:?}");
    }
    let (code, out, err) = loopy(&["search", kernel, "--no-bench", "--explain"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("flow dependence on `v`"), "{out}");
    assert!(jam_candidates("examples/atax/atax.c", &["--no-recipes"]).is_empty());
}

/// The candidates of `search --no-bench --format json` on `kernel` whose variant contains
/// `what`: each one's variant, verdict (the text of a plain verdict, `error` otherwise) and
/// script.
fn candidates_with(kernel: &str, what: &str, extra: &[&str]) -> Vec<(String, String, String)> {
    let mut args = vec!["search", kernel, "--no-bench", "--format", "json"];
    args.extend(extra);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cands = j["candidates"].as_array().expect("candidates");
    (cands.iter())
        .filter(|c| c["variant"].as_str().unwrap_or("").contains(what))
        .map(|c| {
            (
                c["variant"].as_str().unwrap().to_string(),
                c["verdict"].as_str().unwrap_or("error").to_string(),
                c["script"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// jacobi-2d's skewed band, tiled, with its innermost loop split (each sweep its own
/// innermost loop inside the tiles, the standard library's `wavefront_jacobi2_split` done by
/// the search): the split comes after the tile, at the tiled depth; the checker accepts it,
/// and the code `loopy apply` generates prints exactly what the original prints.
#[test]
fn the_innermost_split_of_a_tiled_stencil_is_legal_and_prints_what_the_original_prints() {
    let kernel = "examples/jacobi-2d/jacobi-2d.c";
    let cands = candidates_with(kernel, "innermost loop split", &[]);
    let tiled: Vec<&(String, String, String)> =
        cands.iter().filter(|c| c.0.contains("tiled")).collect();
    assert!(!tiled.is_empty(), "{cands:?}");
    let dir = scratch("search_recipe", "split-jacobi-2d");
    for (k, (variant, verdict, script)) in tiled.iter().enumerate() {
        assert_eq!(verdict, "legal", "{variant}\n{script}");
        if variant.starts_with("bands") {
            let tile = script.find("tile({LoopB, LoopA}, [1, 2, 3]").expect(script);
            let split = script.find("realign(LoopB, LoopA, 5)").expect(script);
            assert!(tile < split, "{script}");
        }
        let path = dir.join(format!("split{k}.loopy"));
        std::fs::write(&path, script).unwrap();
        let (want, got) = original_and_generated(kernel, &path, &dir);
        assert!(!want.trim().is_empty());
        assert_eq!(got, want, "{variant}\n{script}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where each statement reads what the other wrote one iteration of the innermost loop
/// before, splitting that loop is proposed and the verifier rejects it.
#[test]
fn the_innermost_split_is_rejected_where_it_breaks_a_dependence() {
    let cands = candidates_with("tests/data/search/not_split.c", "innermost loop split", &[]);
    assert!(!cands.is_empty());
    for (variant, verdict, script) in &cands {
        assert_eq!(verdict, "illegal", "{variant}\n{script}");
        assert!(script.contains("realign(S0, S1, "), "{script}");
    }
}

/// The hoisting recipe on cholesky-pb (statements at four depths: no permutable band tiles
/// the nest) and on symm (statements named by their default handles in the slices): the
/// slice of the outermost loops first, then each other valid slice; every candidate is
/// legal, has a comment before each step, and the code `loopy apply` generates prints
/// exactly what the original prints. Not proposed on a perfect nest (jacobi-2d's, lu's), on
/// loops two deep (atax), nor under `--no-recipes`.
#[test]
fn the_hoisting_recipe_is_legal_and_prints_what_the_original_prints() {
    for (kernel, name, first) in [
        (
            "examples/cholesky-pb/cholesky-pb.c",
            "cholesky",
            "block_slices({Lower, Div, Diag, Root}, {Lower: i, Div: i, Diag: i, Root: i}, {Lower: j, Div: j, Diag: i, Root: i}, HB)",
        ),
        (
            "examples/symm/symm.c",
            "symm",
            "block_slices({S0, S1, S2, Final}, {S0: i, S1: i, S2: i, Final: i}, {S0: i, S1: k, S2: i, Final: i}, HB)",
        ),
    ] {
        let cands = candidates_with(kernel, "hoisting recipe", &[]);
        assert!(!cands.is_empty(), "{kernel}");
        assert!(cands[0].2.contains(first), "{first}\n{}", cands[0].2);
        let dir = scratch("search_recipe", &format!("hoist-{name}"));
        legal_and_printing_the_same(kernel, &cands, &dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
    for kernel in [
        "examples/jacobi-2d/jacobi-2d.c",
        "examples/lu/lu.c",
        "examples/atax/atax.c",
    ] {
        assert!(
            candidates_with(kernel, "hoisting", &[]).is_empty(),
            "{kernel}"
        );
    }
    let off = candidates_with(
        "examples/cholesky-pb/cholesky-pb.c",
        "hoisting",
        &["--no-recipes"],
    );
    assert!(off.is_empty(), "{off:?}");
}

/// For several threads the beam composes `parallel` marks on schedules that no recipe
/// covers: `search --no-bench --threads 2` answers symm and gramschmidt with a schedule
/// whose loops run on the threads; the checker accepts it, and the generated program, built
/// with OpenMP and run on three threads, prints exactly what the original prints.
#[test]
fn the_beam_on_the_threads_prints_what_the_original_prints() {
    for name in ["symm", "gramschmidt"] {
        let (_, script) = answer_on_threads_agrees(&format!("examples/{name}/{name}.c"), name);
        assert!(script.contains("\nparallel("), "{script}");
        assert!(!script.contains("recipe"), "{script}");
    }
}

/// For several threads, a stencil's time-tiled band, whose outermost loop carries a
/// dependence, runs its tiles as wavefronts: jacobi-2d's and seidel-2d's candidates with
/// wavefronts are legal, skew the first tile loop by the second before marking the second
/// `parallel`, and the code `loopy apply` generates prints what the original prints (built
/// without OpenMP: the order of the wavefronts, one after the other). The same script
/// without the skew marks a loop that carries a dependence and `loopy check` refuses it.
#[test]
fn wavefronts_of_tiles_are_legal_and_print_what_the_original_prints() {
    let dir = scratch("search_recipe", "wavefronts");
    for (name, group) in [("jacobi-2d", "{LoopB, LoopA}"), ("seidel-2d", "Loop")] {
        let kernel = format!("examples/{name}/{name}.c");
        let cands = candidates_with(&kernel, "wavefronts of tiles", &["--threads", "2"]);
        assert!(!cands.is_empty(), "{name}: no wavefront");
        let one = candidates_with(&kernel, "wavefronts of tiles", &[]);
        assert!(one.is_empty(), "{name}: a wavefront on one thread: {one:?}");
        for (k, (variant, verdict, script)) in cands.iter().take(2).enumerate() {
            assert_eq!(verdict, "legal", "{variant}\n{script}");
            // The wavefront's skew (loop p by loop p + 1) is the last skew, right before
            // the mark of loop p + 1.
            let lines: Vec<&str> = script.lines().filter(|l| !l.starts_with('#')).collect();
            let n = lines.len();
            assert!(n >= 2, "{script}");
            let p = (lines[n - 2].strip_prefix(&format!("skew({group}, ")))
                .and_then(|r| r.split(',').next())
                .and_then(|x| x.trim().parse::<usize>().ok())
                .expect(script);
            assert_eq!(lines[n - 2], format!("skew({group}, {p}, {}, 1)", p + 1));
            assert_eq!(lines[n - 1], format!("parallel({group}, {})", p + 1));
            // The script says what the step is for.
            assert!(script.contains("\n# wavefronts of tiles: "), "{script}");
            let path = dir.join(format!("{name}-{k}.loopy"));
            std::fs::write(&path, script).unwrap();
            let (want, got) = original_and_generated(&kernel, &path, &dir);
            assert!(!want.trim().is_empty());
            assert_eq!(got, want, "{variant}\n{script}");
            // Without the skew the second tile loop carries the time tiles' dependence.
            let unskewed: Vec<&str> = (lines.iter().enumerate())
                .filter(|(i, _)| *i != n - 2)
                .map(|(_, l)| *l)
                .collect();
            let path = dir.join(format!("{name}-{k}-unskewed.loopy"));
            std::fs::write(&path, unskewed.join("\n") + "\n").unwrap();
            let (code, out, err) = loopy(&["check", &kernel, path.to_str().unwrap()]);
            assert_ne!(code, 0, "{name}: accepted without the skew\n{out}{err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The triangular jam recipe (cholesky's rows `U` at a time for the columns left of their
/// strip, the `U` entries of a column in registers across the dot product, `copy_written`)
/// on both forms of cholesky: every candidate is legal, has a comment before each step, and
/// the code `loopy apply` generates prints exactly what the original prints.
#[test]
fn the_triangular_jam_recipe_is_legal_and_prints_what_the_original_prints() {
    for (kernel, name) in [
        ("examples/cholesky-pb/cholesky-pb.c", "cholesky-pb"),
        ("examples/cholesky/cholesky.c", "cholesky"),
    ] {
        let cands = candidates_with(kernel, "triangular jam", &[]);
        assert_eq!(cands.len(), 2, "{kernel}: {cands:?}");
        for needle in [
            "(LowerMain, LowerRest) = isplit(Lower, [n] -> {[b, i, j] : b >= 1 and U*b - j - 1 >= 0 and n - U*b - U >= 0}, 3)",
            "unroll(LowerMain, 4, U)",
            "copy_written({LowerMain, DivMain}, 2, A)",
        ] {
            assert!(cands[0].2.contains(needle), "{needle}:\n{}", cands[0].2);
        }
        let dir = scratch("search_recipe", &format!("trijam-{name}"));
        legal_and_printing_the_same(kernel, &cands, &dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Where the triangular jam recipe must not be taken: columns that start after the row are
/// skipped with that reason; rows that read the next column of the row before them are
/// proposed and every candidate is rejected by the verifier (the jammed rows of a strip
/// compute that column later); `--no-recipes` leaves the recipe out.
#[test]
fn the_triangular_jam_recipe_is_skipped_or_rejected_where_its_precondition_fails() {
    let kernel = "tests/data/search/not_trijam.c";
    let cands = candidates_with(kernel, "triangular jam", &[]);
    let skipped: Vec<_> = cands.iter().filter(|c| c.1 == "error").collect();
    assert_eq!(skipped.len(), 1, "{cands:?}");
    assert!(skipped[0].0.contains("on S0"), "{cands:?}");
    assert!(
        skipped[0].2.contains("the first column of S0's loop"),
        "{cands:?}"
    );
    let proposed: Vec<_> = cands.iter().filter(|c| c.1 != "error").collect();
    assert_eq!(proposed.len(), 2, "{cands:?}");
    for (variant, verdict, _) in &proposed {
        assert!(variant.contains("on S1 ("), "{cands:?}");
        assert_eq!(verdict, "illegal", "{cands:?}");
    }
    let none = candidates_with(
        "examples/cholesky-pb/cholesky-pb.c",
        "triangular jam",
        &["--no-recipes"],
    );
    assert!(none.is_empty(), "{none:?}");
}
