//! Variables declared inside the region: code generation keeps each declaration in one
//! block with every use of the variable it declares, or refuses with a reason.

mod common;
use common::loopy;

use std::path::{Path, PathBuf};
use std::process::Command;

const KERNEL: &str = "tests/data/codegen/private/private.c";

fn scratch(name: &str) -> PathBuf {
    common::scratch("private", name)
}

/// Compiles `src` with warnings as errors and returns what it prints.
fn run_c(dir: &Path, name: &str, src: &Path) -> String {
    let exe = dir.join(name);
    common::compile(src, &exe, &["-O1", "-Wall", "-Wextra", "-Werror"], "");
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn declarations_stay_with_their_uses() {
    let dir = scratch("legal");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let want = run_c(&dir, "original", &root.join(KERNEL));
    let scripts = [
        "",
        "tile(L, [8])",
        "affine(L, {[i] -> [-i]})",
        "isplit(L, {[i] : i < 5}, 0)",
        "isplit(M, {[i, j] : j < 5}, 1)",
        "tile(L, [4])\nisplit(L, {[i] : i < 2}, 0)",
        // Unrolled copies of a body that declares a variable: one block each.
        "unroll(L, 1, 3)",
        "unroll(M, 2, 4)\nunroll(L, 1, 2)",
        "tile(L, [4])\nunroll(L, 2, 4)",
    ];
    for (k, script) in scripts.iter().enumerate() {
        let s = dir.join(format!("s{k}.loopy"));
        std::fs::write(&s, script).unwrap();
        let out = dir.join(format!("s{k}.c"));
        let (code, _, err) = loopy(&[
            "apply",
            KERNEL,
            s.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{script:?}: {err}");
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.contains("double s = 0.0;"), "{script:?}:\n{text}");
        assert_eq!(
            run_c(&dir, &format!("s{k}"), &out),
            want,
            "{script:?}:\n{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn uses_moved_apart_are_refused() {
    let dir = scratch("apart");
    // Legal for the verifier (each iteration has its own `s`), but the use of iteration i
    // now runs in iteration i + 1 of the generated loop, where `s` is another variable.
    let s = dir.join("shift.loopy");
    std::fs::write(&s, "affine(U, {[i] -> [i + 1]})").unwrap();
    let (code, out, err) = loopy(&["apply", KERNEL, s.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty());
    assert!(err.contains("no longer run together"), "{err}");
    assert!(err.contains("declared here"), "{err}");
    assert!(err.contains("private.c:18"), "{err}");

    // A declaration without an initializer is no statement: nothing could place it.
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(KERNEL))
        .unwrap()
        .replace("double s = 0.0;", "double s;\n    s = 0.0;");
    let k = dir.join("noinit.c");
    std::fs::write(&k, src).unwrap();
    let e = dir.join("empty.loopy");
    std::fs::write(&e, "").unwrap();
    let (code, _, err) = loopy(&["apply", k.to_str().unwrap(), e.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("without an initializer"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `static` local of the region is one variable for the whole run: its declaration is
/// kept, once, before the generated loops.
#[test]
fn static_locals_are_declared_once() {
    let dir = scratch("static");
    let src = r#"#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
static double A[20];
static void kernel(int n)
{
#pragma scop
L:
  for (int i = 0; i < n; i++) {
    static double acc = 1.0;
    acc = acc * 0.5 + A[i];
    A[i] = acc;
  }
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < 20; i++)
    A[i] = i % 3;
  kernel(20);
  kernel(20);
  for (int i = 0; i < 20; i++)
    printf("%.17g\n", A[i]);
  return 0;
}
"#;
    let k = dir.join("static.c");
    std::fs::write(&k, src).unwrap();
    let e = dir.join("empty.loopy");
    std::fs::write(&e, "").unwrap();
    let out = dir.join("static.out.c");
    let (code, _, err) = loopy(&[
        "apply",
        k.to_str().unwrap(),
        e.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        text.matches("static double acc = 1.0;").count(),
        1,
        "{text}"
    );
    assert_eq!(run_c(&dir, "original", &k), run_c(&dir, "generated", &out));
    let _ = std::fs::remove_dir_all(&dir);
}
