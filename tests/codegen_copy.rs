//! Generated code for copies into local buffers: the transformed kernels compile with
//! `-Wall -Wextra -Werror`, print exactly what the originals print (bit for bit), and their
//! traces (statements replaced by `printf`s, the copy loops kept empty) print every instance
//! once, in schedule order.

mod common;
#[path = "common/trace.rs"]
mod trace;
use loopy::codegen::Body;
use loopy::driver::{generate, generate_with, Kernel, Run};
use loopy::frontend::Options;
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

#[test]
fn copies_inside_a_parallel_loop_are_private() {
    let region = same_output(GEMM_PARALLEL, "gemm-parallel", &["-fopenmp"]);
    assert!(
        region.contains(
            "private(i, j, k, loopy_A, loopy_A_o0, loopy_A_o1, loopy_C, loopy_C_o0, loopy_C_o1)"
        ),
        "{region}"
    );
}

fn same_output(script: &str, tag: &str, extra: &[&str]) -> String {
    let sizes = ["NI=37", "NJ=29", "NK=41"];
    let (kernel, run) = load("examples/gemm/gemm.c", &sizes, script);
    let g = generate(&kernel, &run.interp.state).unwrap();
    assert!(g.region.contains("__attribute__((aligned(64)))"));
    assert!(g
        .region
        .contains("loopy_C[(i) - loopy_C_o0][(j) - loopy_C_o1]"));
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

/// gemm-fast's A block and B panel are laid out as micro-panels, in the order its
/// micro-kernel walks them (the 16-row slivers of A, then k, then the row inside the
/// sliver; the 16-column slivers of B, then k, then the column); the 1 MiB B panel is
/// `static`. The block of C is in registers in the full micro-tiles and a local array in
/// the partial ones.
#[test]
fn buffers_follow_the_inner_loops() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join("examples/gemm/gemm-fast.loopy")).unwrap();
    let (kernel, run) = load("examples/gemm/gemm.c", &[], &script);
    let g = generate(&kernel, &run.interp.state).unwrap();
    for decl in [
        "static __typeof__(B[0][0]) loopy_B[32][256][16] __attribute__((aligned(64)));",
        "static __typeof__(A[0][0]) loopy_A[6][256][16] __attribute__((aligned(64)));",
        "  __typeof__(C[0][0]) loopy_C[16][16] __attribute__((aligned(64)));",
        "loopy_B[(c7 - loopy_B_o1) / 16][c5 - loopy_B_o0][(c7 - loopy_B_o1) % 16] = B[c5][c7];",
        "loopy_C_r0_0 += alpha * loopy_A[(((16 * c9)) - loopy_A_o0) / 16][(k) - loopy_A_o1][(((16 * c9)) - loopy_A_o0) % 16]",
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
        "examples/gemm/gemm-fast.loopy",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("B inside loops 1..2, box 256 × 512 from [256 * t2, 512 * t1]")
            && out.contains("C inside loops 1..5, box 16 × 16 from [16 * t5, 16 * t4]"),
        "{out}"
    );
}
