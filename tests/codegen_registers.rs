//! Register blocks and packed micro-panels (`codegen::registers`, `codegen::kernel`'s
//! layouts): the BLIS-shaped gemm a script asks for is generated with the block of C in
//! local variables (vector accumulators for every vector width, scalars without vectors),
//! A and B in micro-panels; the programs compile with `-Wall -Wextra -Werror` and print
//! exactly what the original prints, at sizes with full and partial blocks. Windows that do
//! not qualify keep the buffer in memory.

mod common;
use loopy::driver::{generate, Kernel, Run};
use loopy::frontend::Options;
use loopy::Target;
use std::path::Path;
use std::process::Command;

fn load(path: &str, script: &str) -> (Kernel, Run) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kernel = Kernel::load(&root.join(path), &Options::default())
        .unwrap_or_else(|e| panic!("{path}: {}", e.diagnostic.message));
    let run = Run::new(&kernel, script, "script", root)
        .unwrap_or_else(|e| panic!("{path}: {}", e.diagnostic.message));
    assert!(run.check().is_empty(), "{path}: {script} must be legal");
    (kernel, run)
}

fn run_exe(exe: &Path) -> Vec<u8> {
    let out = Command::new(exe).output().unwrap();
    assert!(out.status.success(), "{} failed", exe.display());
    out.stdout
}

/// gemm in BLIS's shape: an MR×NR block of C across the k loop, A in MR-row slivers, B in
/// NR-column slivers; full micro-tiles only, the rest as written.
fn blis(mr: i64, nr: i64, kc: i64, mc: i64, nc: i64) -> String {
    format!(
        "realign(Scale, Mult, 0)
(Full, Rest) = isplit(Mult, [ni, nj] -> {{[i,k,j] : j < {nr}*floor(nj/{nr}) and i < {mr}*floor(ni/{mr})}}, 0)
affine(Full, {{[i,k,j] -> [j1,k1,i1,j2,i2,k,i,j] : j1 = floor(j/{nc}) and k1 = floor(k/{kc}) and i1 = floor(i/{mc}) and j2 = floor(j/{nr}) and i2 = floor(i/{mr})}})
copy(Full, 2, B)
copy(Full, 3, A)
copy(Full, 5, C)
unroll(Full, 7, {mr})
vectorize(Full, 8)
"
    )
}

fn generate_for(kernel: &mut Kernel, run: &Run, vector_bytes: u32) -> String {
    kernel.target = Target {
        vector_bytes,
        registers: true,
    };
    generate(kernel, &run.interp.state)
        .unwrap_or_else(|e| panic!("{}", e.diagnostic.message))
        .file
}

/// Compiles the original and `file` at each size and compares their outputs.
fn same_outputs(name: &str, file: &str, sizes: &[&[&str]]) {
    same_outputs_of("examples/gemm/gemm.c", name, file, sizes);
}

/// The same for the original `orig`.
fn same_outputs_of(orig: &str, name: &str, file: &str, sizes: &[&[&str]]) {
    common::same_outputs("codegen_registers", orig, name, file, sizes);
}

const SIZES: &[&[&str]] = &[
    &["-DNI=48", "-DNJ=64", "-DNK=40"],
    &["-DNI=53", "-DNJ=70", "-DNK=37"],
    &["-DNI=7", "-DNJ=13", "-DNK=3"],
];

/// The micro-kernel of a 6×8 block with AVX2-wide vectors: six accumulators of four lanes
/// twice over, each k step two vector loads of the B sliver and six scalars of the A sliver;
/// no access to the block's buffer is left in the full micro-tiles.
#[test]
fn gemm_micro_kernel_is_in_registers() {
    let (mut kernel, run) = load("examples/gemm/gemm.c", &blis(6, 8, 256, 72, 1104));
    let file = generate_for(&mut kernel, &run, 32);
    let start = file.find("loopy_C_v loopy_C_r0_0").expect("register block");
    let window = &file[start..];
    let end = window.find(" = loopy_C_r5_1;\n").expect("write-back");
    let window = &window[..end + 17];
    assert!(window.contains("for (k = "), "{window}");
    assert!(!window.contains("loopy_C["), "{window}");
    insta::assert_snapshot!("gemm_6x8_avx2_window", window);
    for decl in [
        "static __typeof__(B[0][0]) loopy_B[138][256][8] __attribute__((aligned(64)));",
        // gemm reads A only as `alpha * A[i][k]`: the plain copy holds the products.
        "static __typeof__(alpha * A[0][0]) loopy_A[12][256][6] __attribute__((aligned(64)));",
        "typedef loopy_C_e loopy_C_v __attribute__((vector_size(4 * sizeof(loopy_C_e))));",
    ] {
        assert!(file.contains(decl), "{decl}");
    }
    same_outputs("gemm68", &file, SIZES);
}

/// Every vector width gives the same outputs: scalars (0), SSE/NEON (16), AVX (32), AVX-512
/// (64, whose 8 lanes are the whole sliver), and widths that do not divide the block's last
/// extent fall back to scalar registers.
#[test]
fn every_vector_width_prints_the_same() {
    for (mr, nr, bytes) in [
        (6, 8, 0),
        (6, 8, 16),
        (6, 8, 64),
        (4, 12, 64),
        (3, 6, 32),
        (1, 4, 32),
    ] {
        let (mut kernel, run) = load("examples/gemm/gemm.c", &blis(mr, nr, 16, 4 * mr, 4 * nr));
        let file = generate_for(&mut kernel, &run, bytes);
        assert!(file.contains("loopy_C_r0_0 +="), "{mr}x{nr} at {bytes}");
        let lanes = (bytes / 8).max(1) as i64;
        let vectors = lanes > 1 && nr % lanes == 0;
        assert_eq!(
            file.contains("loopy_C_v loopy_C_r0_0"),
            vectors,
            "{mr}x{nr} at {bytes}"
        );
        same_outputs(&format!("w{mr}x{nr}x{bytes}"), &file, SIZES);
    }
}

/// A block whose loops are neither unrolled nor vectorized has no constant index: the
/// buffer stays in memory, and so does everything with `--no-registers`.
#[test]
fn windows_that_do_not_qualify_keep_the_buffer() {
    let script = blis(4, 4, 16, 16, 16)
        .replace("unroll(Full, 7, 4)\n", "")
        .replace("vectorize(Full, 8)\n", "");
    let (mut kernel, run) = load("examples/gemm/gemm.c", &script);
    let file = generate_for(&mut kernel, &run, 32);
    assert!(!file.contains("loopy_C_r"), "{file}");
    assert!(file.contains("loopy_C[(i) - loopy_C_o0][(j) - loopy_C_o1] +="));
    same_outputs("plain", &file, SIZES);

    let (mut kernel, run) = load("examples/gemm/gemm.c", &blis(6, 8, 16, 24, 32));
    kernel.target = Target {
        vector_bytes: 32,
        registers: false,
    };
    let file = generate(&kernel, &run.interp.state).unwrap().file;
    assert!(!file.contains("loopy_C_r"));
    same_outputs("off", &file, SIZES);
}

/// Operands whose lanes are apart in memory (a column `Bt[j][k]` along the vectorized `j`, a
/// stride-2 row `E[k][2 * j]`) are built one element per lane, each lane the element its
/// iteration reads: the block still lives in vector registers, and the programs print the
/// original's output at sizes with partial tiles. Without vectors the block is scalars, one
/// statement per column, and nothing is gathered.
#[test]
fn operands_apart_in_memory_are_gathered_per_lane() {
    let src = "tests/data/codegen/registers_gather.c";
    let script = "(Full, Rest) = isplit(Mult, [ni, nj] -> {[i,k,j] : i < 4*floor(ni/4) and j < 8*floor(nj/8)}, 0)
affine(Full, {[i,k,j] -> [k1,i1,j1,k,i,j] : k1 = floor(k/8) and i1 = floor(i/4) and j1 = floor(j/8)})
copy(Full, 3, C)
unroll(Full, 5, 4)
vectorize(Full, 6)
";
    let sizes: &[&[&str]] = &[
        &["-DNI=24", "-DNJ=32", "-DNK=20"],
        &["-DNI=27", "-DNJ=37", "-DNK=13"],
        &["-DNI=3", "-DNJ=5", "-DNK=2"],
    ];
    for bytes in [0, 32, 64] {
        let (mut kernel, run) = load(src, script);
        let file = generate_for(&mut kernel, &run, bytes);
        let lanes = (bytes / 8).max(1);
        assert!(file.contains("loopy_C_r0_0 +="), "{bytes}: {file}");
        let gathered = format!("((loopy_vg{lanes}_Bt){{Bt[(8 * c5)][k], Bt[((8 * c5)) + 1][k]");
        assert_eq!(file.contains(&gathered), lanes > 1, "{bytes}: {file}");
        let stride = format!("((loopy_vg{lanes}_E){{E[k][2 * (8 * c5)], E[k][(2 * (8 * c5)) + 2]");
        assert_eq!(file.contains(&stride), lanes > 1, "{bytes}: {file}");
        if bytes == 32 {
            let start = file.find("loopy_C_v loopy_C_r0_0").expect("register block");
            let window = &file[start..];
            let end = window.find(" = loopy_C_r3_1;\n").expect("write-back");
            let window = &window[..end + 17];
            assert!(!window.contains("loopy_C["), "{window}");
            insta::assert_snapshot!("gather_4x8_avx2_window", window);
        }
        same_outputs_of(src, &format!("gather{bytes}"), &file, sizes);
    }
}

/// `loopy apply --vector-bytes` chooses the width; the default asks the compiler.
#[test]
fn apply_takes_the_vector_width() {
    let dir = common::scratch("codegen_registers", "apply");
    let script = dir.join("g.loopy");
    std::fs::write(&script, blis(6, 8, 256, 72, 1104)).unwrap();
    let s = script.to_str().unwrap();
    let (code, out, err) = common::loopy(&[
        "apply",
        "examples/gemm/gemm.c",
        s,
        "--region-only",
        "--vector-bytes",
        "16",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("vector_size(2 * sizeof(loopy_C_e))"), "{out}");
    let (code, out, err) = common::loopy(&["apply", "examples/gemm/gemm.c", s, "--region-only"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("loopy_C_r0_0 +="), "{out}");
    let (code, out, _) = common::loopy(&[
        "apply",
        "examples/gemm/gemm.c",
        s,
        "--region-only",
        "--no-registers",
    ]);
    assert_eq!(code, 0);
    assert!(!out.contains("loopy_C_r0_0"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The standard library's `gemm_block` is the explicit script: the same generated code.
/// Arrays pass through a procedure's parameters to its `copy`; an array where a loop
/// component is expected is refused with the array named.
#[test]
fn gemm_block_is_the_explicit_script() {
    let explicit = blis(6, 8, 256, 72, 1104);
    let (mut k1, r1) = load("examples/gemm/gemm.c", &explicit);
    let split = explicit.lines().take(2).collect::<Vec<_>>().join("\n");
    let lib = format!("{split}\ngemm_block(Full, A, B, C, 6, 8, 256, 72, 1104)\n");
    let (mut k2, r2) = load("examples/gemm/gemm.c", &lib);
    assert_eq!(
        generate_for(&mut k1, &r1, 32),
        generate_for(&mut k2, &r2, 32)
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kernel = Kernel::load(&root.join("examples/gemm/gemm.c"), &Options::default()).unwrap();
    let Err(e) = Run::new(&kernel, "tile(A, [4, 4])\n", "script", root) else {
        panic!("an array is not a loop component");
    };
    assert!(
        e.diagnostic.message.contains("an array"),
        "{}",
        e.diagnostic.message
    );
}

/// Constant bounds leave only whole micro-tiles: every window holds the block in registers,
/// the buffer stays declared but unused (the parallel loop's `private` clause names it), and
/// the program built with `-fopenmp` and `-Werror` prints the original's output on two
/// threads.
#[test]
fn a_buffer_no_window_uses_is_declared_unused() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = "tests/data/codegen/registers_fixed.c";
    let (mut kernel, run) = load(
        src,
        "gemm_block(Mult, A, B, C, 6, 8, 16, 24, 32)\nparallel(Mult, 3)\n",
    );
    let file = generate_for(&mut kernel, &run, 32);
    assert!(
        file.contains("loopy_C[6][8] __attribute__((aligned(64), unused));"),
        "{file}"
    );
    assert!(
        !file.contains("loopy_C[(") && !file.contains("= loopy_C["),
        "{file}"
    );
    assert!(file.contains(
        "private(i, j, k, loopy_A, loopy_C) firstprivate(loopy_A_o0, loopy_A_o1, loopy_C_o0,"
    ));
    let dir = common::scratch("codegen_registers", "unused");
    let new = dir.join("new.c");
    std::fs::write(&new, &file).unwrap();
    let (old_exe, new_exe) = (dir.join("old"), dir.join("new"));
    common::compile(
        &root.join(src),
        &old_exe,
        &["-O2", "-Wno-unknown-pragmas"],
        "",
    );
    common::compile(
        &new,
        &new_exe,
        &[
            "-O2",
            "-fopenmp",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unknown-pragmas",
        ],
        &file,
    );
    let out = Command::new(&new_exe)
        .env("OMP_NUM_THREADS", "2")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(run_exe(&old_exe), out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

/// gemm in single precision: the kernel of `examples/gemm/gemm.c` over `float` arrays.
const SGEMM: &str = r#"#include <stdio.h>
#ifndef NI
#define NI 48
#endif
#ifndef NJ
#define NJ 64
#endif
#ifndef NK
#define NK 40
#endif
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
static float C[NI][NJ];
static float A[NI][NK];
static float B[NK][NJ];
static void kernel_gemm(int ni, int nj, int nk, float alpha, float beta)
{
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
Scale: C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
Mult:   C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}
int main(void)
{
  int i, j;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      C[i][j] = (float) ((i * j + 1) % 13) / 4.0f;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NK; j++)
      A[i][j] = (float) ((i * (j + 1)) % 7) / 8.0f;
  for (i = 0; i < NK; i++)
    for (j = 0; j < NJ; j++)
      B[i][j] = (float) ((i * (j + 2) + 1) % 9) / 2.0f;
  kernel_gemm(NI, NJ, NK, 1.5f, 1.25f);
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      printf("%a\n", (double) C[i][j]);
  return 0;
}
"#;

/// Register lanes from the element size: a block of floats fills a whole register (16
/// lanes at 512 bits where the block is 16 wide, 8 where it is 8 wide, never fewer than a
/// block of doubles would have), a block of doubles is as before; the float programs print
/// exactly what the float original prints.
#[test]
fn float_blocks_take_lanes_from_the_element_size() {
    let dir = common::scratch("codegen_registers", "sgemm-src");
    let orig = dir.join("sgemm.c");
    std::fs::write(&orig, SGEMM).unwrap();
    for (nr, bytes, lanes) in [(16, 64, 16), (8, 64, 8), (16, 32, 8), (12, 64, 1)] {
        let kernel = Kernel::load(&orig, &Options::default()).unwrap();
        let run = Run::new(&kernel, &blis(4, nr, 16, 16, 4 * nr), "script", &dir).unwrap();
        assert!(run.check().is_empty());
        let mut kernel = kernel;
        let file = generate_for(&mut kernel, &run, bytes);
        let decl = format!("vector_size({lanes} * sizeof(loopy_C_e))");
        assert_eq!(
            file.contains(&decl),
            lanes > 1,
            "NR={nr} at {bytes} bytes: {lanes} lanes"
        );
        // Sizes with whole and partial blocks. (At 7 x 13 x 3, smaller than one 16-wide
        // block, gcc's -Werror=aggressive-loop-optimizations rejects the edge code of a
        // 16-wide block, in doubles as in floats: the loops it warns about never run.)
        same_outputs_of(
            orig.to_str().unwrap(),
            &format!("s{nr}x{bytes}"),
            &file,
            &SIZES[..2],
        );
    }
    // Doubles at 64 bytes: 8 lanes, so a block 16 wide is two vectors a row.
    let (mut kernel, run) = load("examples/gemm/gemm.c", &blis(4, 16, 16, 16, 64));
    let file = generate_for(&mut kernel, &run, 64);
    assert!(file.contains("vector_size(8 * sizeof(loopy_C_e))"));
    let _ = std::fs::remove_dir_all(&dir);
}
