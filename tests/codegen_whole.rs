//! Whole windows separated by the generator (`codegen::whole`): a BLIS-shaped script that
//! tiles without splitting off the partial tiles itself (no `isplit`), in either order of
//! the two micro-tile loops, gets the register block on its whole micro-tiles and the
//! buffer in memory on the partial ones; the separated loops run every instance once, in
//! the schedule's order (trace validation), and the programs print exactly what the
//! original prints, at sizes with no whole tile, some, and only whole ones.

mod common;
#[path = "common/trace.rs"]
mod trace;
use loopy::driver::{generate, generate_with, Kernel, Run};
use loopy::frontend::Options;
use loopy::{Body, Target};
use std::path::Path;
use std::process::Command;
use trace::{build_trace, scheduled_instances};

fn load(path: &str, script: &str) -> (Kernel, Run) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kernel = Kernel::load(&root.join(path), &Options::default())
        .unwrap_or_else(|e| panic!("{path}: {}", e.diagnostic.message));
    let run = Run::new(&kernel, script, "script", root)
        .unwrap_or_else(|e| panic!("{path}: {}", e.diagnostic.message));
    assert!(run.check().is_empty(), "{path}: {script} must be legal");
    (kernel, run)
}

/// A user's BLIS-shaped gemm: no `isplit`, the micro-tile loops `i2` and `j2` in the order
/// given (`ij`: rows outside columns, as `gemm_block` has them the other way round).
fn users_blis(order: &str, mr: i64, nr: i64, kc: i64, mc: i64, nc: i64) -> String {
    let (a, b) = if order == "ij" {
        ("i2", "j2")
    } else {
        ("j2", "i2")
    };
    format!(
        "realign(Scale, Mult, 0)
affine(Mult, {{[i,k,j] -> [j1,k1,i1,{a},{b},k,i,j] : j1 = floor(j/{nc}) and k1 = floor(k/{kc}) and i1 = floor(i/{mc}) and j2 = floor(j/{nr}) and i2 = floor(i/{mr})}})
copy(Mult, 2, B)
copy(Mult, 3, A)
copy(Mult, 5, C)
unroll(Mult, 7, {mr})
vectorize(Mult, 8)
"
    )
}

fn generate_for(kernel: &mut Kernel, run: &Run, vector_bytes: u32, registers: bool) -> String {
    kernel.target = Target {
        vector_bytes,
        registers,
    };
    generate(kernel, &run.interp.state)
        .unwrap_or_else(|e| panic!("{}", e.diagnostic.message))
        .file
}

/// Compiles the original gemm and `file` (with every warning an error: the separated loops
/// have no dead code the compiler can prove out of bounds) at each size and compares their
/// outputs.
fn same_outputs(name: &str, file: &str, sizes: &[&[&str]]) {
    common::same_outputs("codegen_whole", "examples/gemm/gemm.c", name, file, sizes);
}

/// No whole micro-tile (7 x 13), whole and partial ones, and whole ones only (48 x 64).
const SIZES: &[&[&str]] = &[
    &["-DNI=53", "-DNJ=70", "-DNK=37"],
    &["-DNI=7", "-DNJ=13", "-DNK=3"],
    &["-DNI=48", "-DNJ=64", "-DNK=40"],
];

/// In both orders of the micro-tile loops, the whole micro-tiles keep C's block in vector
/// registers across `k` (no access to the buffer in memory there), the partial ones keep
/// the buffer, and the outputs are the original's.
#[test]
fn a_users_blis_script_gets_register_blocks_without_isplit() {
    for order in ["ij", "ji"] {
        let (mut kernel, run) = load("examples/gemm/gemm.c", &users_blis(order, 4, 8, 16, 16, 32));
        let file = generate_for(&mut kernel, &run, 32, true);
        let start = file
            .find("loopy_C_v loopy_C_r0_0")
            .unwrap_or_else(|| panic!("{order}: no register block\n{file}"));
        let window = &file[start..];
        let end = window.find(" = loopy_C_r3_1;\n").expect("write-back");
        assert!(!window[..end].contains("loopy_C["), "{order}: {window}");
        // The partial micro-tiles still use the buffer.
        assert!(file.contains("loopy_C[((4 * c"), "{order}: {file}");
        same_outputs(&format!("users-{order}"), &file, SIZES);
    }
}

/// Without register blocks (`--no-registers`), nothing is separated: the code is the
/// scan of the schedule alone, with one loop over whole and partial micro-tiles.
#[test]
fn without_registers_nothing_is_separated() {
    let (mut kernel, run) = load("examples/gemm/gemm.c", &users_blis("ij", 4, 8, 16, 16, 32));
    let file = generate_for(&mut kernel, &run, 32, false);
    assert!(!file.contains("loopy_C_r0_0"), "{file}");
    assert_eq!(file.matches("loopy_C_o0 = 4 * c").count(), 1, "{file}");
    same_outputs("users-off", &file, &SIZES[..1]);
}

/// The separated loops run every instance once, in the order of the schedule, at sizes
/// with no whole micro-tile, some, and degenerate ones (the trace prints each instance);
/// with register blocks allowed the scan has more loops than without (the whole windows'
/// own), and both traces are the schedule's.
#[test]
fn separated_windows_trace_in_schedule_order() {
    for order in ["ij", "ji"] {
        let (mut kernel, run) = load("examples/gemm/gemm.c", &users_blis(order, 2, 3, 2, 4, 6));
        let mut loops = vec![];
        for registers in [true, false] {
            kernel.target = Target {
                vector_bytes: 32,
                registers,
            };
            let g = generate_with(&kernel, &run.interp.state, Body::Trace)
                .unwrap_or_else(|e| panic!("{}", e.diagnostic.message));
            loops.push(g.region.matches("for (").count());
            let dir = common::scratch("codegen_whole", &format!("trace-{order}-{registers}"));
            let exe = build_trace(&kernel, &g.region, &dir);
            for vals in [
                [0, 0, 0],
                [1, 1, 1],
                [2, 3, 2],
                [5, 7, 3],
                [4, 6, 4],
                [7, 8, 5],
            ] {
                let want: Vec<String> = scheduled_instances(&kernel, &run, &vals)
                    .into_iter()
                    .map(|x| x.1)
                    .collect();
                let out = Command::new(&exe)
                    .args(vals.iter().map(|v| v.to_string()))
                    .output()
                    .unwrap();
                assert!(out.status.success());
                let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .map(str::to_string)
                    .collect();
                assert!(
                    got == want,
                    "{order} {vals:?} (registers {registers}): traces differ\n{}",
                    g.region
                );
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
        assert!(loops[0] > loops[1], "{order}: {loops:?} loops");
    }
}

/// Writes `script` into a scratch directory and runs `loopy apply` on the gemm example with
/// AVX2-wide vectors and `extra` options.
fn apply(name: &str, script: &str, extra: &[&str]) -> (i32, String, String) {
    let dir = common::scratch("codegen_whole", name);
    let path = dir.join("s.loopy");
    std::fs::write(&path, script).unwrap();
    let out = dir.join("out.c");
    let (p, o) = (path.display().to_string(), out.display().to_string());
    let mut args = vec![
        "apply",
        "examples/gemm/gemm.c",
        &p,
        "-o",
        &o,
        "--vector-bytes",
        "32",
    ];
    args.extend(extra);
    let r = common::loopy(&args);
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// A block whose rows are not unrolled has no constant place for the statement's access:
/// `apply` writes the (correct) program and warns at the script's `copy` why the block
/// stays in memory (text and JSON); the same script with its rows unrolled, or a staged
/// tile with neither `unroll` nor `vectorize`, draws no warning.
#[test]
fn a_block_that_does_not_form_is_a_warning_at_the_copy() {
    let script = users_blis("ij", 4, 8, 16, 16, 32).replace("unroll(Mult, 7, 4)\n", "");
    let (code, _, err) = apply("index", &script, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("Warning[L0507]"), "{err}");
    assert!(
        err.contains("the copy of `C` stays a buffer in memory, not registers: an access to the block has no constant place in it"),
        "{err}"
    );
    assert!(
        err.contains("copy(Mult, 5, C)"),
        "the label shows the script: {err}"
    );
    assert!(err.contains("4 x 8 elements"), "{err}");

    let (code, json, err) = apply("index-json", &script, &["--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "L0507", "{json}");
    assert_eq!(d["severity"], "warning", "{json}");

    let (code, _, err) = apply("whole", &users_blis("ij", 4, 8, 16, 16, 32), &[]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("L0507"), "{err}");
    let staged = script.replace("vectorize(Mult, 8)\n", "");
    let (code, _, err) = apply("staged", &staged, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("L0507"), "{err}");
}

/// The same warning where the code is timed and shown: `bench --format json` lists it under
/// the transformed program's `warnings` (a timed job still succeeds), and the REPL's
/// `:code` prints it on standard error beside the code.
#[test]
fn bench_and_the_repl_say_why_a_block_does_not_form() {
    let script = users_blis("ij", 4, 8, 16, 16, 32).replace("unroll(Mult, 7, 4)\n", "");
    let dir = common::scratch("codegen_whole", "bench-repl");
    let path = dir.join("s.loopy");
    std::fs::write(&path, &script).unwrap();
    let p = path.display().to_string();
    let (code, out, err) = common::loopy(&[
        "bench",
        "examples/gemm/gemm.c",
        &p,
        "-D",
        "NI=24",
        "-D",
        "NJ=40",
        "-D",
        "NK=20",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["status"], "ok", "{out}");
    assert_eq!(v["warnings"][0]["code"], "L0507", "{out}");
    assert_eq!(v["warnings"][0]["labels"][0]["line"], 5, "{out}");

    let input = format!("{script}:code\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_loopy"))
        .args(["repl", "examples/gemm/gemm.c"])
        .env("NO_COLOR", "1")
        .env("LOOPY_HISTORY", dir.join("history"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(stdout.contains("loopy_C["), "{stdout}");
    assert!(stderr.contains("Warning[L0507]"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
