//! The fast scripts of `benches/polybench/scripts/` on the real PolyBench/C 4.2.1 files of
//! `benches/polybench/`: each is verified, applied, and the generated program, built with
//! the real `polybench.c` at two small dataset sizes (MINI and SMALL, whose sizes are not
//! multiples of the scripts' block sizes, so partial tiles and edges run), must take the
//! transformed path and print exactly the original's array dump. A parallel script
//! (`KERNEL-par.loopy`) is built with `-fopenmp` and run on two threads, and built without
//! it with every parallel loop run in reverse and shuffled orders (`common/reorder.rs`),
//! the parallel fills of shared panels included. `benches/peak.sh` and `benches/scaling.sh`
//! do the same at MEDIUM before timing at LARGE.

mod common;
#[path = "common/reorder.rs"]
mod reorder;
use common::loopy;

use std::path::{Path, PathBuf};
use std::process::Command;

const PB: &str = "benches/polybench";

/// Every script (its name without `.loopy`) with its kernel's directory: `KERNEL.loopy` and
/// `KERNEL-par.loopy` are scripts of `KERNEL`.
fn kernels() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(PB);
    let mut names: Vec<String> = std::fs::read_dir(root.join("scripts"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".loopy").map(str::to_string)
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let k = n.strip_suffix("-par").unwrap_or(&n);
            let dir = ["blas", "kernels"]
                .iter()
                .map(|g| root.join("linear-algebra").join(g).join(k))
                .find(|d| d.join(format!("{k}.c")).exists())
                .unwrap_or_else(|| panic!("no PolyBench file for the script {n}.loopy"));
            (n, dir)
        })
        .collect()
}

/// Runs `exe`; its standard output and standard error.
fn run(exe: &Path) -> (String, String) {
    run_with(exe, "0", "2")
}

/// Runs `exe` with its parallel loops in the order `LOOPY_ORDER` picks (reordered builds).
fn run_in(exe: &Path, order: &str) -> (String, String) {
    run_with(exe, order, "2")
}

/// Runs `exe` on `threads` OpenMP threads, its parallel loops in the order `order` picks.
fn run_with(exe: &Path, order: &str, threads: &str) -> (String, String) {
    let out = Command::new(exe)
        .env("OMP_NUM_THREADS", threads)
        .env("LOOPY_ORDER", order)
        .output()
        .unwrap();
    assert!(out.status.success(), "{} failed", exe.display());
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// How many `omp parallel for` (or `omp for`) loop nests of generated code fill a copy's buffer: the
/// pragma, the nest's `for` lines, then `loopy…[…] = …`.
fn parallel_fills(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    (0..lines.len())
        .filter(|&i| {
            lines[i].starts_with("#pragma omp parallel for")
                || lines[i].starts_with("#pragma omp for")
        })
        .filter(|&i| {
            let body = lines[i + 1..]
                .iter()
                .find(|l| !l.starts_with("for ("))
                .unwrap_or(&"");
            body.starts_with("loopy") && body.contains("] = ")
        })
        .count()
}

#[test]
fn every_script_covers_the_blas_kernels() {
    let names: Vec<String> = kernels().into_iter().map(|(n, _)| n).collect();
    for k in [
        "gemm", "syrk", "syr2k", "symm", "trmm", "2mm", "3mm", "doitgen",
    ] {
        assert!(names.iter().any(|n| n == k), "no script for {k}: {names:?}");
    }
}

#[test]
fn scripts_print_what_the_originals_print() {
    let dir = common::scratch("polybench", "scripts");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let utilities = root.join(PB).join("utilities");
    let inc_utilities = format!("-I{}", utilities.display());
    // PolyBench's own support file, once (it has warnings of its own).
    let support = dir.join("polybench.o");
    let out = Command::new(common::cc())
        .args(["-O2", "-c", "-o"])
        .arg(&support)
        .arg(utilities.join("polybench.c"))
        .arg(&inc_utilities)
        .output()
        .expect("C compiler");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let support = support.to_str().unwrap().to_string();
    for (k, kdir) in kernels() {
        let parallel = k.ends_with("-par");
        let kernel = k.strip_suffix("-par").unwrap_or(&k);
        let src = kdir.join(format!("{kernel}.c"));
        let script = root.join(PB).join("scripts").join(format!("{k}.loopy"));
        let (code, out, err) = loopy(&[
            "check",
            src.to_str().unwrap(),
            script.to_str().unwrap(),
            "-I",
            utilities.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{k}: {out}{err}");
        let gen = dir.join(format!("{k}-loopy.c"));
        let (code, out, err) = loopy(&[
            "apply",
            src.to_str().unwrap(),
            script.to_str().unwrap(),
            "-I",
            utilities.to_str().unwrap(),
            "-o",
            gen.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{k}: {out}{err}");
        let text = std::fs::read_to_string(&gen).unwrap();
        let inc_kernel = format!("-I{}", kdir.display());
        for size in ["-DMINI_DATASET", "-DSMALL_DATASET"] {
            let common_flags = [
                "-O2",
                "-ffp-contract=off",
                "-DPOLYBENCH_DUMP_ARRAYS",
                size,
                &inc_utilities,
                &inc_kernel,
                &support,
                "-lm",
            ];
            let orig = dir.join(format!("{k}-original"));
            common::compile(&src, &orig, &common_flags, "");
            // The generated code itself is warning-free; PolyBench's main and its
            // `#pragma scop` are not.
            let mut flags = vec![
                "-Wall",
                "-Wextra",
                "-Werror",
                "-Wno-unknown-pragmas",
                "-Wno-unused-parameter",
                "-DLOOPY_PATH(p)=printf(\"%s\\n\", p)",
            ];
            if parallel {
                flags.push("-fopenmp");
                // In the function OpenMP outlines, gcc sees PolyBench's constant sizes and
                // warns of vector accesses in pieces for whole strips that are dead when the
                // arrays are smaller than a strip (doitgen's 32 sums against MINI's 12
                // columns; docs/codegen.md, "Known limits"). The dumps below are compared
                // all the same.
                flags.push("-Wno-array-bounds");
            }
            flags.extend_from_slice(&common_flags);
            let exe = dir.join(format!("{k}-loopy"));
            common::compile(&gen, &exe, &flags, &text);
            let (_, want) = run(&orig);
            assert!(want.contains("begin dump"), "{k} {size}: {want}");
            let (path, got) = run(&exe);
            assert_eq!(path, "transformed\n", "{k} {size}: the code that ran");
            assert!(
                got == want,
                "{k} {size}: the generated program's dump differs"
            );
            if parallel {
                // One thread, and more threads than blocks in some loops or than cores: the
                // work-sharing loops of one region, their barriers and the corners run by one
                // thread give the same dump.
                for threads in ["1", "3", "5"] {
                    let (_, got) = run_with(&exe, "0", threads);
                    assert!(
                        got == want,
                        "{k} {size}: the dump differs on {threads} threads"
                    );
                }
            }
            if parallel {
                // Sequential (one thread), every parallel loop run forwards, backwards and
                // shuffled: a loop that carries a dependence (a fill racing with its readers
                // included) prints something else in some order.
                let (reordered, loops) = reorder::rewrite(&text);
                assert!(loops > 0, "{k}: no parallel loop");
                let src = dir.join(format!("{k}-reordered.c"));
                std::fs::write(&src, &reordered).unwrap();
                let flags: Vec<&str> = flags.iter().copied().filter(|f| *f != "-fopenmp").collect();
                let exe = dir.join(format!("{k}-reordered"));
                common::compile(&src, &exe, &flags, &reordered);
                for order in ["0", "1", "2"] {
                    let (path, got) = run_in(&exe, order);
                    assert_eq!(path, "transformed\n", "{k} {size} order {order}");
                    assert!(got == want, "{k} {size}: the dump differs in order {order}");
                }
            }
        }
        let script_text = std::fs::read_to_string(&script).unwrap();
        if parallel && script_text.contains("_par(") {
            assert!(
                parallel_fills(&text) > 0,
                "{k}: the shared panel's fill is not a parallel loop"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
