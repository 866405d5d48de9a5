//! Generated code for copies into local buffers: the transformed kernels compile with
//! `-Wall -Wextra -Werror`, print exactly what the originals print (bit for bit), and their
//! traces (statements replaced by `printf`s, the copy loops kept empty) print every instance
//! once, in schedule order.

mod common;
#[path = "common/reorder.rs"]
mod reorder;
#[path = "common/trace.rs"]
mod trace;
use loopy::driver::{generate, generate_with, Kernel, Run};
use loopy::frontend::Options;
use loopy::Body;
use std::path::Path;
use std::process::Command;
use trace::{build_trace, scheduled_instances};

fn load(path: &str, defines: &[&str], script: &str) -> (Kernel, Run) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let opts = Options {
        defines: defines.iter().map(|d| d.to_string()).collect(),
        ..Options::default()
    };
    let kernel = Kernel::load(&root.join(path), &opts)
        .unwrap_or_else(|e| panic!("{path}: {}", e.diagnostic.message));
    let run = Run::new(&kernel, script, "script", root)
        .unwrap_or_else(|e| panic!("{path}: {}", e.diagnostic.message));
    assert!(run.check().is_empty(), "{path}: {script} must be legal");
    (kernel, run)
}

fn run_exe(exe: &Path) -> Vec<u8> {
    let out = Command::new(exe).output().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// gemm with its B panel, A block and C block copied (tiles that do not divide the sizes).
const GEMM: &str = "realign(Scale, Mult, 0)
affine(Mult, {[i,k,j] -> [i1,k1,j1,i2,k2,j2]: i1=[i/8] and i2=i%8 and k1=[k/16] and k2=k%16 and j1=[j/12] and j2=j%12})
copy(Mult, 2, A)
copy(Mult, 3, B)
copy(Mult, 3, C)
";

/// Copies of `B` per row around a producer, a reader and a consumer.
const ROWS: &str = "copy({Prod, Peek, Cons}, 1, B)\n";

/// Copies inside a parallel loop: each thread has its own buffers.
const GEMM_PARALLEL: &str = "realign(Scale, Mult, 0)
affine(Mult, {[i,k,j] -> [i1,k1,j1,i2,k2,j2]: i1=[i/8] and i2=i%8 and k1=[k/16] and k2=k%16 and j1=[j/12] and j2=j%12})
copy(Mult, 3, C)
copy(Mult, 2, A)
parallel(Mult, 1)
";

#[test]
fn copies_compile_cleanly_and_print_the_same() {
    same_output(GEMM, "gemm", &[]);
}

/// The same with blocks of A of 96 x 128 elements, more than a thread keeps on its stack
/// (`THREAD_STACK_ELEMENTS`): each thread allocates its block when the parallel region
/// starts; the block of C (96 x 12) stays on the threads' stacks.
const GEMM_PARALLEL_HEAP: &str = "realign(Scale, Mult, 0)
affine(Mult, {[i,k,j] -> [i1,k1,j1,i2,k2,j2]: i1=[i/96] and i2=i%96 and k1=[k/128] and k2=k%128 and j1=[j/12] and j2=j%12})
copy(Mult, 3, C)
copy(Mult, 2, A)
parallel(Mult, 1)
";

#[test]
fn copies_inside_a_parallel_loop_are_private() {
    let region = same_output(GEMM_PARALLEL, "gemm-parallel", &["-fopenmp"]);
    assert!(
        region.contains(
            "private(i, j, k, loopy_A, loopy_C) firstprivate(loopy_A_o0, loopy_A_o1, loopy_C_o0, loopy_C_o1)"
        ),
        "{region}"
    );
    // Small buffers: automatic arrays, `private` to each thread, no parallel region.
    assert!(!region.contains("#pragma omp parallel\n"), "{region}");
    let region = threads_and_orders(GEMM_SIZES, GEMM_PARALLEL, "gemm-parallel-runs");
    insta::assert_snapshot!("parallel_stack_buffers", region);
}

/// A buffer too big for a thread's stack: each thread allocates its own in a parallel
/// region around the work-sharing loop, aligned to 64 bytes, checked, freed after the loop;
/// the region declares only its offsets. The program prints what the original prints at 1
/// and 2 threads, without OpenMP, and with the parallel loop run in any order.
#[test]
fn big_private_buffers_are_allocated_by_each_thread() {
    let sizes = &["NI=230", "NJ=29", "NK=300"];
    let region = threads_and_orders(sizes, GEMM_PARALLEL_HEAP, "gemm-parallel-heap");
    for needle in [
        "#pragma omp parallel\n",
        // gemm reads A only as `alpha * A[i][k]`: the plain copy holds the products.
        "__typeof__(alpha * A[0][0]) (*loopy_A)[128] = aligned_alloc(64, (sizeof(__typeof__(alpha * A[0][0])[96][128]) + 63) / 64 * 64);",
        "if (!loopy_A) { perror(\"loopy: cannot allocate a thread's buffer loopy_A\"); __builtin_abort(); }",
        "#pragma omp for private(i, j, k, loopy_C) firstprivate(loopy_A_o0, loopy_A_o1, loopy_C_o0, loopy_C_o1)",
        "__builtin_free(loopy_A);",
        "int loopy_A_o0 = 0, loopy_A_o1 = 0;",
    ] {
        assert!(region.contains(needle), "{needle}\n{region}");
    }
    // Not a `static` array of the region, nor `private` (a stack copy per thread).
    assert!(!region.contains("loopy_A[96][128]"), "{region}");
    assert!(!region.contains("#pragma omp parallel for"), "{region}");
    insta::assert_snapshot!("parallel_heap_buffers", region);
}

/// Generates gemm with `script` (which has a parallel loop), builds it with `-fopenmp`
/// and without (`-Wall -Wextra -Werror` both), and with its parallel loops rewritten to run
/// in a chosen order; each must print what the original prints: at 1 and 2 threads, the
/// sequential build, and every parallel loop forwards, backwards and shuffled. The region.
fn threads_and_orders(sizes: &[&str], script: &str, tag: &str) -> String {
    let (kernel, run) = load("examples/gemm/gemm.c", sizes, script);
    let g = generate(&kernel, &run.interp.state).unwrap();
    let dir = common::scratch("codegen-copy", tag);
    let (orig, new) = (dir.join("orig.c"), dir.join("new.c"));
    std::fs::copy(&kernel.scop.file, &orig).unwrap();
    std::fs::write(&new, &g.file).unwrap();
    let flags: Vec<String> = sizes.iter().map(|d| format!("-D{d}")).collect();
    let mut strict: Vec<&str> = vec!["-O2", "-Wall", "-Wextra", "-Werror"];
    strict.extend(flags.iter().map(String::as_str));
    let mut plain: Vec<&str> = vec!["-O2"];
    plain.extend(flags.iter().map(String::as_str));
    common::compile(&orig, &dir.join("orig"), &plain, "original");
    let want = run_exe(&dir.join("orig"));
    let mut openmp = strict.clone();
    openmp.push("-fopenmp");
    common::compile(&new, &dir.join("omp"), &openmp, &g.region);
    for threads in ["1", "2"] {
        let out = Command::new(dir.join("omp"))
            .env("OMP_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert!(out.status.success(), "{threads} threads");
        assert_eq!(out.stdout, want, "{threads} threads\n{}", g.region);
    }
    common::compile(&new, &dir.join("seq"), &strict, &g.region);
    assert_eq!(
        run_exe(&dir.join("seq")),
        want,
        "without OpenMP\n{}",
        g.region
    );
    let (reordered, loops) = reorder::rewrite(&g.file);
    assert!(loops > 0, "no parallel loop in\n{}", g.region);
    let src = dir.join("reordered.c");
    std::fs::write(&src, &reordered).unwrap();
    common::compile(&src, &dir.join("reordered"), &strict, &reordered);
    for order in ["0", "1", "2"] {
        let out = Command::new(dir.join("reordered"))
            .env("LOOPY_ORDER", order)
            .output()
            .unwrap();
        assert!(out.status.success(), "order {order}");
        assert_eq!(out.stdout, want, "order {order}\n{}", g.region);
    }
    let _ = std::fs::remove_dir_all(&dir);
    g.region
}

fn same_output(script: &str, tag: &str, extra: &[&str]) -> String {
    let region = compare("examples/gemm/gemm.c", GEMM_SIZES, script, tag, extra);
    assert!(region.contains("__attribute__((aligned(64)))"));
    assert!(region.contains("loopy_C[(i) - loopy_C_o0][(j) - loopy_C_o1]"));
    region
}

const GEMM_SIZES: &[&str] = &["NI=37", "NJ=29", "NK=41"];
const TWO_MM_SIZES: &[&str] = &["NI=37", "NJ=29", "NK=41", "NL=23"];

/// The kernel transformed by `script` compiles with `-Wall -Wextra -Werror` and prints
/// what the original prints; the region.
fn compare(path: &str, sizes: &[&str], script: &str, tag: &str, extra: &[&str]) -> String {
    let (kernel, run) = load(path, sizes, script);
    let g = generate(&kernel, &run.interp.state).unwrap();
    let dir = common::scratch("codegen-copy", tag);
    let (orig, new) = (dir.join("orig.c"), dir.join("new.c"));
    std::fs::copy(&kernel.scop.file, &orig).unwrap();
    std::fs::write(&new, &g.file).unwrap();
    let flags: Vec<String> = sizes.iter().map(|d| format!("-D{d}")).collect();
    let mut strict: Vec<&str> = vec!["-O2", "-Wall", "-Wextra", "-Werror"];
    strict.extend(extra);
    strict.extend(flags.iter().map(String::as_str));
    let mut plain: Vec<&str> = vec!["-O2"];
    plain.extend(flags.iter().map(String::as_str));
    common::compile(&orig, &dir.join("orig"), &plain, "original");
    common::compile(&new, &dir.join("new"), &strict, &g.region);
    assert_eq!(
        run_exe(&dir.join("orig")),
        run_exe(&dir.join("new")),
        "{}",
        g.region
    );
    let _ = std::fs::remove_dir_all(&dir);
    g.region
}

/// The instances of every piece sorted by schedule, as the trace prints them.
fn expected(kernel: &Kernel, run: &Run, values: &[i64]) -> Vec<String> {
    let all = scheduled_instances(kernel, run, values);
    all.into_iter().map(|x| x.1).collect()
}

fn trace(path: &str, script: &str, tag: &str, values: &[Vec<i64>]) {
    let (kernel, run) = load(path, &[], script);
    let g = generate_with(&kernel, &run.interp.state, Body::Trace).unwrap();
    assert!(g.region.contains("/* fill of the copy of"), "{}", g.region);
    let dir = common::scratch("codegen-copy", tag);
    let exe = build_trace(&kernel, &g.region, &dir);
    for vals in values {
        let vals = &vals[..kernel.scop.params.len()];
        let want = expected(&kernel, &run, vals);
        let out = Command::new(&exe)
            .args(vals.iter().map(|v| v.to_string()))
            .output()
            .unwrap();
        let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(got, want, "{path} {vals:?}\n{}", g.region);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn copies_trace_every_instance_once_in_order() {
    let values = vec![
        vec![0; 3],
        vec![1; 3],
        vec![5; 3],
        vec![9, 13, 17],
        vec![16, 7, 3],
    ];
    trace("examples/gemm/gemm.c", GEMM, "trace-gemm", &values);
    trace(
        "tests/must_fail/copy_rows.c",
        ROWS,
        "trace-rows",
        &[vec![0], vec![1], vec![4]],
    );
}

/// gemm-fast's A block (filled with its products with alpha) and B panel are laid out as
/// micro-panels, in the order its micro-kernel walks them (the 6-row slivers of A, then k, then the row inside the
/// sliver; the 8-column slivers of B, then k, then the column); the 2 MiB B panel is
/// `static`. The block of C is in registers in the full micro-tiles and a local array in
/// the partial ones.
#[test]
fn buffers_follow_the_inner_loops() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script =
        std::fs::read_to_string(root.join("tests/data/scripts/gemm-fast-literal.loopy")).unwrap();
    let (kernel, run) = load("examples/gemm/gemm.c", &[], &script);
    let g = generate(&kernel, &run.interp.state).unwrap();
    for decl in [
        "static __typeof__(B[0][0]) loopy_B[138][256][8] __attribute__((aligned(64)));",
        "static __typeof__(alpha * A[0][0]) loopy_A[12][256][6] __attribute__((aligned(64)));",
        "  __typeof__(C[0][0]) loopy_C[6][8] __attribute__((aligned(64)));",
        "loopy_B[(c7 - loopy_B_o1) / 8][c5 - loopy_B_o0][(c7 - loopy_B_o1) % 8] = B[c5][c7];",
        "loopy_A[(c7 - loopy_A_o0) / 6][c9 - loopy_A_o1][(c7 - loopy_A_o0) % 6] = alpha * A[c7][c9];",
        // The micro-kernel's rows of the packed A share one base address: the divisions
        // by the block are exact and written so the compiler folds them.
        "loopy_C_r0_0 += loopy_A[(((6 * c9)) / 6 - loopy_A_o0 / 6)][(k) - loopy_A_o1][0] * ",
        "loopy_C_r1_0 += loopy_A[((((6 * c9 + 1)) - 1) / 6 - loopy_A_o0 / 6)][(k) - loopy_A_o1][1] * ",
    ] {
        assert!(g.region.contains(decl), "{decl}\n{}", g.region);
    }
}

/// `loopy show --script` lists each piece's copies with the buffer's box, planned once for
/// the whole listing.
#[test]
fn show_lists_the_copies_with_their_boxes() {
    let (code, out, err) = common::loopy(&[
        "show",
        "examples/gemm/gemm.c",
        "--script",
        "tests/data/scripts/gemm-fast-literal.loopy",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("B inside loops 1..2, box 256 × 1104 from [256 * t2, 1104 * t1]")
            && out.contains("C inside loops 1..5, box 6 × 8 from [6 * t5, 8 * t4]"),
        "{out}"
    );
}

/// 2mm with the intermediate `tmp` staged in both products, each tiled 32×32×32: the first
/// product accumulates a block of `tmp` in its buffer, the second reads a block of it from
/// its own (the second buffer of `tmp`, `loopy2_tmp`).
const TWO_MM_BOTH: &str = "realign(Init, Mult, 0)
interchange(Mult, 2, 3)
tile(Mult, [32, 32, 32])
realign(Scale, Sum, 0)
interchange(Sum, 2, 3)
tile(Sum, [32, 32, 32])
copy(Mult, 3, tmp)
copy(Sum, 3, tmp)
";

/// 2mm with a block of `tmp` per product-one iteration and a whole row of `tmp` (`nj`
/// elements, a run-time size) per row of the second product.
const TWO_MM_ROW: &str = "copy(Mult, 2, tmp)
copy(Sum, 1, tmp)
";

/// gemm with a panel of `B` (16 rows, all `nj` columns: a run-time size) and inside it a
/// 16×12 block of it filled from the panel; the same for `A` (8 rows of `nk`, then 8×16).
const GEMM_NESTED: &str = "realign(Scale, Mult, 0)
affine(Mult, {[i,k,j] -> [i1,k1,j1,i2,k2,j2]: i1=[i/8] and i2=i%8 and k1=[k/16] and k2=k%16 and j1=[j/12] and j2=j%12})
copy(Mult, 2, B)
copy(Mult, 3, B)
copy(Mult, 1, A)
copy(Mult, 3, A)
";

#[test]
fn two_mm_stages_tmp_in_both_products() {
    let region = compare(
        "examples/2mm/2mm.c",
        TWO_MM_SIZES,
        TWO_MM_BOTH,
        "2mm-both",
        &[],
    );
    for needle in [
        "__typeof__(tmp[0][0]) loopy_tmp[32][32] __attribute__((aligned(64)));",
        "__typeof__(tmp[0][0]) loopy2_tmp[32][32] __attribute__((aligned(64)));",
        "loopy_tmp[(i) - loopy_tmp_o0][(j) - loopy_tmp_o1] += alpha",
        "D[i][j] += loopy2_tmp[(i) - loopy2_tmp_o0][(k) - loopy2_tmp_o1] * C[k][j];",
    ] {
        assert!(region.contains(needle), "{needle}\n{region}");
    }
    let values = vec![
        vec![0; 4],
        vec![1; 4],
        vec![33, 5, 2, 40],
        vec![7, 35, 3, 2],
    ];
    trace("examples/2mm/2mm.c", TWO_MM_BOTH, "trace-2mm-both", &values);
}

/// A box bounded by a parameter: the buffer is allocated when the region starts with the
/// size the parameters give it (checked), and freed after it.
#[test]
fn parametric_boxes_are_allocated_with_checked_sizes() {
    let region = compare(
        "examples/2mm/2mm.c",
        TWO_MM_SIZES,
        TWO_MM_ROW,
        "2mm-row",
        &[],
    );
    for needle in [
        "long loopy2_tmp_n1 = nj;",
        "if (loopy2_tmp_n1 < 1) loopy2_tmp_n1 = 1;",
        "if (__builtin_mul_overflow(loopy2_tmp_bytes, (unsigned long)loopy2_tmp_n1, &loopy2_tmp_bytes)) __builtin_abort();",
        "__typeof__(tmp[0][0]) (*loopy2_tmp)[loopy2_tmp_n1] = __builtin_malloc(loopy2_tmp_bytes);",
        "if (!loopy2_tmp) __builtin_abort();",
        "loopy2_tmp_o0 = i; loopy2_tmp_o1 = 0;",
        "__builtin_free(loopy2_tmp);",
    ] {
        assert!(region.contains(needle), "{needle}\n{region}");
    }
    // `loopy show --script` lists the box with its run-time extent.
    let (_, run) = load("examples/2mm/2mm.c", &[], TWO_MM_ROW);
    let shown = loopy::model::render::render_copies(
        &run.interp.state,
        &run.interp
            .state
            .pieces
            .iter()
            .flat_map(|p| p.copies.clone())
            .collect::<Vec<_>>(),
    );
    assert!(
        shown.contains("tmp inside loops 1..1, box 1 × (nj) from [t1, 0]"),
        "{shown}"
    );
    let values = vec![vec![0; 4], vec![1; 4], vec![4, 6, 3, 5], vec![3, 0, 2, 4]];
    trace("examples/2mm/2mm.c", TWO_MM_ROW, "trace-2mm-row", &values);
}

/// Nested copies of one array: the inner copy fills from and writes back to the outer
/// buffer, and the statement reads the inner one.
#[test]
fn nested_copies_fill_from_the_outer_buffer() {
    let region = compare(
        "examples/gemm/gemm.c",
        GEMM_SIZES,
        GEMM_NESTED,
        "gemm-nested",
        &[],
    );
    for needle in [
        "loopy2_B[c7 - loopy2_B_o0][c9 - loopy2_B_o1] = loopy_B[c7 - loopy_B_o0][c9 - loopy_B_o1];",
        "loopy2_A[c7 - loopy2_A_o0][c9 - loopy2_A_o1] = loopy_A[c7 - loopy_A_o0][c9 - loopy_A_o1];",
        "C[i][j] += alpha * loopy2_A[(i) - loopy2_A_o0][(k) - loopy2_A_o1] * loopy2_B[(k) - loopy2_B_o0][(j) - loopy2_B_o1];",
        "loopy_B[c5 - loopy_B_o0][c7 - loopy_B_o1] = B[c5][c7];",
    ] {
        assert!(region.contains(needle), "{needle}\n{region}");
    }
    let values = vec![vec![0; 3], vec![1; 3], vec![9, 13, 17], vec![16, 7, 3]];
    trace(
        "examples/gemm/gemm.c",
        GEMM_NESTED,
        "trace-gemm-nested",
        &values,
    );
}

/// A buffer allocated when the region starts cannot be private to the threads of a
/// parallel loop around it: `loopy apply` refuses (exit 2) and says why.
#[test]
fn allocated_buffers_inside_parallel_loops_are_refused() {
    let dir = common::scratch("codegen-copy", "parallel-allocated");
    let s = dir.join("p.loopy");
    std::fs::write(&s, "copy(Mult, 1, B)\nparallel(Mult, 1)\n").unwrap();
    let (code, _, err) = common::loopy(&[
        "apply",
        "--color",
        "never",
        "examples/gemm/gemm.c",
        s.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the buffer of `B` has a size that depends on the parameters and lies inside a loop marked `parallel`"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run-time extent that changes form with the parameters: a row buffer holds
/// `max(m, p)` elements, written as the exact piecewise maximum with its conditions.
#[test]
fn piecewise_extents_are_exact() {
    let path = "tests/data/codegen/copy_two_rows.c";
    let script = "copy({First, Second}, 1, B)\n";
    let region = compare(path, &[], script, "two-rows", &[]);
    let line = region
        .lines()
        .find(|l| l.contains("long loopy_B_n1 = "))
        .unwrap_or_else(|| panic!("{region}"));
    // One value per piece, each under its conditions on the parameters.
    assert!(
        line.contains(" ? m : ") && line.contains(" ? p : ") && line.ends_with(" : 0);"),
        "{line}"
    );
    let values = vec![
        vec![0, 0, 0],
        vec![2, 3, 5],
        vec![3, 6, 2],
        vec![2, 0, 4],
        vec![2, 4, 4],
    ];
    trace(path, script, "trace-two-rows", &values);
}
