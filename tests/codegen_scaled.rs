//! Scaled copies (`copy_scaled(l, k, A, alpha)`): the buffer holds `alpha * A[..]` and the
//! staged statements read it in place of the product. The transformed kernels compile with
//! `-Wall -Wextra -Werror` and print exactly what the originals print (bit for bit) at sizes
//! with whole and partial blocks and several block sizes; what the planner refuses, `check`
//! and `apply` both refuse, with the reason.

mod common;
use loopy::driver::{generate, Kernel, Run};
use loopy::frontend::Options;
use std::path::Path;
use std::process::Command;

fn run_exe(exe: &Path) -> Vec<u8> {
    let out = Command::new(exe).output().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// `script` applied to `path` at `sizes`: legal, generated, compiled with `-Wall -Wextra
/// -Werror`, printing what the original prints; the region.
fn compare(path: &str, sizes: &[String], script: &str, tag: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let opts = Options {
        defines: sizes.to_vec(),
        ..Options::default()
    };
    let kernel = Kernel::load(&root.join(path), &opts)
        .unwrap_or_else(|e| panic!("{path}: {}", e.diagnostic.message));
    let run = Run::new(&kernel, script, "script", root)
        .unwrap_or_else(|e| panic!("{tag}: {}", e.diagnostic.message));
    assert!(run.check().is_empty(), "{tag}: {script} must be legal");
    let g = generate(&kernel, &run.interp.state)
        .unwrap_or_else(|e| panic!("{tag}: {}", e.diagnostic.message));
    let dir = common::scratch("codegen-scaled", tag);
    let (orig, new) = (dir.join("orig.c"), dir.join("new.c"));
    std::fs::copy(&kernel.scop.file, &orig).unwrap();
    std::fs::write(&new, &g.file).unwrap();
    let flags: Vec<String> = sizes.iter().map(|d| format!("-D{d}")).collect();
    let mut strict: Vec<&str> = vec!["-O2", "-march=native", "-Wall", "-Wextra", "-Werror"];
    strict.extend(flags.iter().map(String::as_str));
    let mut plain: Vec<&str> = vec!["-O2", "-march=native"];
    plain.extend(flags.iter().map(String::as_str));
    common::compile(&orig, &dir.join("orig"), &plain, "original");
    common::compile(&new, &dir.join("new"), &strict, &g.region);
    assert_eq!(
        run_exe(&dir.join("orig")),
        run_exe(&dir.join("new")),
        "{tag}: outputs differ\n{}",
        g.region
    );
    let _ = std::fs::remove_dir_all(&dir);
    g.region
}

/// gemm's BLIS blocking with the packed A scaled by alpha, at block sizes that divide the
/// matrices and at ones that leave partial blocks (the edges run as written).
#[test]
fn scaled_gemm_blocks_print_the_same() {
    let cases: &[(&[&str], [i64; 5])] = &[
        (&["NI=37", "NJ=29", "NK=41"], [6, 8, 16, 12, 24]),
        (&["NI=48", "NJ=64", "NK=33"], [4, 16, 8, 8, 32]),
        (&["NI=25", "NJ=19", "NK=70"], [3, 4, 32, 9, 8]),
    ];
    for (n, (sizes, [mr, nr, kc, mc, nc])) in cases.iter().enumerate() {
        let script = format!(
            "realign(Scale, Mult, 0)
(Full, Rest) = isplit(Mult, [ni, nj] -> {{[i,k,j] : j < {nr}*floor(nj/{nr}) and i < {mr}*floor(ni/{mr})}}, 0)
gemm_block_scaled(Full, A, alpha, B, C, {mr}, {nr}, {kc}, {mc}, {nc})
"
        );
        let sizes: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
        let region = compare("examples/gemm/gemm.c", &sizes, &script, &format!("gemm{n}"));
        // Filled with the products; the micro-kernel multiplies by alpha no more.
        assert!(region.contains("] = alpha * A["), "{region}");
        let kernel_lines: Vec<&str> = region
            .lines()
            .filter(|l| l.contains("loopy_C_r0_0 +="))
            .collect();
        assert!(!kernel_lines.is_empty(), "{region}");
        assert!(
            kernel_lines.iter().all(|l| !l.contains("alpha")),
            "{region}"
        );
        // The whole-block split bounds the edge loops: no guard on it is left inside them.
        let whole = format!("{nr} * loopy_floord(nj, {nr})");
        assert!(region.contains(&format!("-1 + {whole})")), "{region}");
        assert!(
            !region.contains(&format!("-j - 1 + {whole} >= 0")),
            "{region}"
        );
    }
}

/// A scaled copy without register blocks (a tiled product whose A tile is staged scaled,
/// as a buffer in memory), and 2mm's first product scaled while its second is not.
#[test]
fn scaled_copies_in_memory_print_the_same() {
    let gemm = "realign(Scale, Mult, 0)
affine(Mult, {[i,k,j] -> [i1,k1,j1,i2,k2,j2]: i1=[i/8] and i2=i%8 and k1=[k/16] and k2=k%16 and j1=[j/12] and j2=j%12})
copy_scaled(Mult, 2, A, alpha)
copy(Mult, 3, B)
";
    let sizes: Vec<String> = ["NI=37", "NJ=29", "NK=41"].map(String::from).to_vec();
    let region = compare("examples/gemm/gemm.c", &sizes, gemm, "tiled");
    assert!(
        region.contains("__typeof__(alpha * A[0][0]) loopy_A"),
        "{region}"
    );
    let two_mm = "realign(Init, Mult, 0)
interchange(Mult, 2, 3)
(F1, R1) = isplit(Mult, [ni, nj] -> {[i,k,j] : i < 4*floor(ni/4) and j < 8*floor(nj/8)}, 0)
gemm_block_scaled(F1, A, alpha, B, tmp, 4, 8, 16, 8, 16)
";
    let sizes: Vec<String> = ["NI=21", "NJ=34", "NK=17", "NL=13"]
        .map(String::from)
        .to_vec();
    compare("examples/2mm/2mm.c", &sizes, two_mm, "2mm");
}

/// A kernel of three loops `i`, `k`, `j` (tagged `L`) around `body`, over 20 x 20 arrays
/// `A`, `B`, `C` and scalars `alpha`, `beta`, `x`.
fn kernel(body: &str) -> String {
    format!(
        "double A[20][20], B[20][20], C[20][20], alpha, beta, x;
void f(int n) {{
#pragma scop
L:
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        {body}
#pragma endscop
}}
"
    )
}

/// What a scaled copy refuses, through `loopy check` and `loopy apply` alike (exit 2, the
/// reason in the message).
#[test]
fn scaled_copies_refuse_what_they_cannot_do() {
    let dir = common::scratch("codegen-scaled", "refused");
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "grouped",
            "C[i][j] += x * alpha * A[i][k] * B[k][j];",
            "copy_scaled(L, 1, A, alpha)",
            "it reads `A[i][k]` not as a product with `alpha`",
        ),
        (
            "unscaled_read",
            "C[i][j] += alpha * A[i][k] * A[j][k];",
            "copy_scaled(L, 1, A, alpha)",
            "it reads `A[j][k]` not as a product with `alpha`",
        ),
        (
            "written",
            "A[i][k] = alpha * A[i][k] + B[k][j];",
            "copy_scaled(L, 1, A, alpha)",
            "the statements staged by this scaled copy write `A`",
        ),
        (
            "factor_written",
            "{ alpha = B[i][j]; C[i][j] += alpha * A[i][k]; }",
            "copy_scaled(L, 1, A, alpha)",
            "the region writes `alpha`",
        ),
        (
            "factor_array",
            "C[i][j] += alpha * A[i][k] * B[k][j];",
            "copy_scaled(L, 1, A, B)",
            "`B` is an array, not a scalar",
        ),
        (
            "factor_unread",
            "C[i][j] += alpha * A[i][k] * B[k][j];",
            "copy_scaled(L, 1, A, beta)",
            "the region reads no variable `beta`",
        ),
        (
            "two_copies",
            "C[i][j] += alpha * A[i][k] * B[k][j];",
            "copy_scaled(L, 1, A, alpha)\ncopy(L, 2, A)",
            "a scaled copy of `A` shares its window with another copy of `A`",
        ),
        (
            "arity",
            "C[i][j] += alpha * A[i][k] * B[k][j];",
            "copy_scaled(L, 1, A)",
            "`copy_scaled` takes 4 or 5 arguments",
        ),
    ];
    for (name, body, script, needle) in cases {
        let c = dir.join(format!("{name}.c"));
        let s = dir.join(format!("{name}.loopy"));
        std::fs::write(&c, kernel(body)).unwrap();
        std::fs::write(&s, format!("{script}\n")).unwrap();
        for cmd in ["check", "apply"] {
            let (code, out, err) = common::loopy(&[
                cmd,
                "--color",
                "never",
                c.to_str().unwrap(),
                s.to_str().unwrap(),
            ]);
            assert_eq!(code, 2, "{name} ({cmd}): {out}{err}");
            assert!(
                err.contains(needle),
                "{name} ({cmd}): lacks {needle:?}:\n{err}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A plain `copy` is scaled by itself where that changes nothing: the only copy of an array
/// the region never writes, read by the staged statements only in products with a scalar
/// the region never writes, in a box too large for registers. gemm's tiling and
/// `gemm_block` on 2mm then pack `alpha * A` and print what the originals print; with
/// tiles of A of 8 x 16 elements (a box a register block could take) the copy keeps A's
/// elements.
#[test]
fn plain_copies_of_scaled_reads_hold_the_products() {
    let gemm = |mi: u32, mk: u32| {
        format!(
            "realign(Scale, Mult, 0)
affine(Mult, {{[i,k,j] -> [i1,k1,j1,i2,k2,j2]: i1=[i/{mi}] and i2=i%{mi} and k1=[k/{mk}] and k2=k%{mk} and j1=[j/12] and j2=j%12}})
copy(Mult, 2, A)
copy(Mult, 3, B)
"
        )
    };
    let sizes: Vec<String> = ["NI=37", "NJ=29", "NK=41"].map(String::from).to_vec();
    let region = compare("examples/gemm/gemm.c", &sizes, &gemm(16, 40), "plain-tiled");
    assert!(
        region.contains("__typeof__(alpha * A[0][0]) loopy_A"),
        "{region}"
    );
    assert!(region.contains("= alpha * A["), "{region}");
    assert!(region.contains("__typeof__(B[0][0]) loopy_B"), "{region}");
    let region = compare("examples/gemm/gemm.c", &sizes, &gemm(8, 16), "plain-small");
    assert!(region.contains("__typeof__(A[0][0]) loopy_A"), "{region}");
    assert!(!region.contains("__typeof__(alpha"), "{region}");
    let two_mm = "realign(Init, Mult, 0)
interchange(Mult, 2, 3)
(F1, R1) = isplit(Mult, [ni, nj] -> {[i,k,j] : i < 4*floor(ni/4) and j < 8*floor(nj/8)}, 0)
gemm_block(F1, A, B, tmp, 4, 8, 32, 20, 16)
";
    let sizes: Vec<String> = ["NI=45", "NJ=34", "NK=50", "NL=13"]
        .map(String::from)
        .to_vec();
    let region = compare("examples/2mm/2mm.c", &sizes, two_mm, "plain-2mm");
    assert!(
        region.contains("__typeof__(alpha * A[0][0]) loopy_A"),
        "{region}"
    );
}

/// Where one condition fails, a plain copy holds the array's elements: a read of the array
/// not multiplied by the scalar, a statement that writes the array, a factor the region
/// writes, a second copy of the array. Each is legal and `apply` writes the plain buffer.
#[test]
fn plain_copies_stay_plain_where_a_product_would_change_something() {
    let dir = common::scratch("codegen-scaled", "plain");
    let cases: &[(&str, &str, &str)] = &[
        (
            "unscaled_read",
            "C[i][j] += alpha * A[i][k] * A[j][k];",
            "copy(L, 1, A)",
        ),
        (
            "written",
            "A[i][k] = alpha * A[i][k] + B[k][j];",
            "copy(L, 1, A)",
        ),
        (
            "factor_written",
            "{ x = B[i][j]; C[i][j] += x * A[i][k]; }",
            "copy(L, 1, A)",
        ),
        (
            "two_copies",
            "C[i][j] += alpha * A[i][k] * B[k][j];",
            "copy(L, 1, A)\ncopy(L, 2, A)",
        ),
    ];
    for (name, body, script) in cases {
        let c = dir.join(format!("{name}.c"));
        let s = dir.join(format!("{name}.loopy"));
        std::fs::write(&c, kernel(body)).unwrap();
        std::fs::write(&s, format!("{script}\n")).unwrap();
        let (code, out, err) = common::loopy(&[
            "apply",
            "--color",
            "never",
            c.to_str().unwrap(),
            s.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.contains("__typeof__(A[0][0])"), "{name}:\n{out}");
        assert!(!out.contains("__typeof__(alpha"), "{name}:\n{out}");
        assert!(!out.contains("__typeof__(x"), "{name}:\n{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
