//! What real files contain: system headers lang-c cannot read (`omp.h`, `immintrin.h`),
//! kernels kept as fragments at file scope (Pluto's format), C89's implicit `int`.

mod common;
use common::loopy;

const OMP: &str = "tests/data/real/omp_outside.c";
const FRAGMENT: &str = "tests/data/real/fragment.c";

fn with_cc(args: &[&str], cc: &str) -> (i32, String, String) {
    common::outcome(
        std::process::Command::new(env!("CARGO_BIN_EXE_loopy"))
            .args(args)
            .env("NO_COLOR", "1")
            .env("CC", cc)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run loopy"),
    )
}

/// A kernel with `#pragma scop` and an OpenMP loop outside it, in a file that includes
/// each of these headers, is modelled (with and without `-fopenmp`, optimised or not: the
/// headers' inline functions differ).
#[test]
fn system_headers_are_read() {
    let dir = common::scratch("real-files", "headers");
    let headers = [
        "omp.h",
        "immintrin.h",
        "math.h",
        "stdlib.h",
        "stdio.h",
        "string.h",
        "stdint.h",
        "pthread.h",
        "complex.h",
        "time.h",
        "sys/time.h",
        "unistd.h",
    ];
    for h in headers {
        let src = format!(
            "#include <{h}>\n#define N 100\ndouble A[N][N], B[N][N];\nvoid kernel(int n) {{\n  int i, j;\n#pragma omp parallel for private(j)\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      B[i][j] = 0;\n#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      A[i][j] = A[i][j] + B[j][i];\n#pragma endscop\n}}\n"
        );
        let path = dir.join(format!("{}.c", h.replace(['/', '.'], "_")));
        std::fs::write(&path, src).unwrap();
        for cc in ["cc", "cc -fopenmp -O2 -D_GNU_SOURCE -march=native"] {
            let (code, out, err) = with_cc(&["show", path.to_str().unwrap()], cc);
            assert_eq!(code, 0, "<{h}> with `{cc}`:\n{err}");
            assert!(
                out.contains("S0, line 13: A[i][j] = A[i][j] + B[j][i];"),
                "<{h}>:\n{out}"
            );
            assert!(out.contains("parameters: n\n"), "<{h}>:\n{out}");
        }
    }
}

/// The file with `omp.h`: show, check and apply work, and the applied file builds with
/// OpenMP and prints what the original prints.
#[test]
fn openmp_program_is_modelled_and_applied() {
    let (code, out, err) = loopy(&["show", OMP]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("function:   kernel (lines 17-19)"), "{out}");
    let dir = common::scratch("real-files", "omp");
    let script = dir.join("t.loopy");
    std::fs::write(&script, "interchange(S, 1, 2)\n").unwrap();
    let (code, out, err) = loopy(&["check", OMP, script.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let bad = dir.join("bad.loopy");
    std::fs::write(&bad, "reverse(S, 1)\n").unwrap();
    let (code, _, err) = loopy(&["check", OMP, bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("flow dependence on `A`"), "{err}");
    let applied = dir.join("applied.c");
    let (code, _, err) = loopy(&[
        "apply",
        OMP,
        script.to_str().unwrap(),
        "-o",
        applied.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&applied).unwrap();
    assert!(text.contains("#include <omp.h>"), "{text}");
    assert!(
        text.contains("#pragma omp parallel for private(j)"),
        "{text}"
    );
    let original = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(OMP);
    let mut outputs = vec![];
    for (src, name) in [(original.as_path(), "orig"), (applied.as_path(), "new")] {
        let exe = dir.join(name);
        common::compile(src, &exe, &["-fopenmp", "-O2"], &text);
        let run = std::process::Command::new(&exe).output().unwrap();
        assert!(run.status.success());
        outputs.push(String::from_utf8_lossy(&run.stdout).into_owned());
    }
    assert_eq!(outputs[0], outputs[1]);
}

/// Pluto's format: statements at file scope between the pragmas, after a declaration.
/// Undeclared names are declared by their use; the declared `a` keeps its declaration.
#[test]
fn fragment_is_modelled() {
    let (code, out, err) = loopy(&["show", FRAGMENT]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out);
    let (code, out, err) = loopy(&["show", "tests/data/real/fragment_bare.c"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("parameters: N\n"), "{out}");
    assert!(out.contains("arrays:     a (2-d), b (2-d)\n"), "{out}");
    assert!(
        out.contains("S0, line 2: a[i][j] = a[i][j] + b[j][i];"),
        "{out}"
    );
    let (code, out, err) = loopy(&["show", FRAGMENT, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"fragment\": true"), "{out}");
}

#[test]
fn fragment_check_legal_and_illegal() {
    let (code, out, err) = loopy(&["check", FRAGMENT, "tests/data/real/fragment_legal.loopy"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("legal"), "{out}");
    let (code, _, err) = loopy(&[
        "check",
        "--color",
        "never",
        FRAGMENT,
        "tests/data/real/fragment_illegal.loopy",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("flow dependence on `a` from `S` (line 10) to `S` (line 10)"),
        "{err}"
    );
    assert!(err.contains("fragment.c:10:"), "{err}");
}

/// `apply` writes the fragment with only its region replaced: the declarations before it
/// and the pragmas stay, the statements are the transformed loops.
#[test]
fn fragment_apply_replaces_the_region() {
    let (code, out, err) = loopy(&["apply", FRAGMENT, "tests/data/real/fragment_legal.loopy"]);
    assert_eq!(code, 0, "{err}");
    let original =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FRAGMENT))
            .unwrap();
    let head = &original[..original.find("for (t").unwrap()];
    assert!(out.starts_with(head), "{out}");
    assert!(out.ends_with("#pragma endscop\n"), "{out}");
    let body = &out[head.len()..];
    assert!(body.starts_with("/* Generated by loopy"), "{out}");
    // i and j swapped: j is now the second loop.
    let (pj, pi) = (
        body.find("for (j = 0").unwrap(),
        body.find("for (i = 1").unwrap(),
    );
    assert!(pj < pi, "{out}");
    assert!(
        body.contains("a[i][j] = a[i - 1][j] + b[j][i] * alpha;"),
        "{out}"
    );
}

/// A fragment is not a program: bench refuses it and says why.
#[test]
fn fragment_bench_is_refused() {
    let (code, _, err) = loopy(&[
        "bench",
        "--color",
        "never",
        FRAGMENT,
        "tests/data/real/fragment_legal.loopy",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a fragment"), "{err}");
    assert!(!err.contains("compiler failed"), "{err}");
}

/// C89's implicit `int` on a function definition reads as `int`.
#[test]
fn implicit_int_main() {
    let (code, out, err) = loopy(&["show", "tests/data/real/implicit_int.c"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("function:   main (lines 8-10)"), "{out}");
    assert!(
        out.contains("S0, line 10: a[i][j] = a[i][j] + b[j][i];"),
        "{out}"
    );
}

/// Several fragments in one file: `--scop N` chooses, and the report that asks for it says
/// they are fragments (not the names of the functions loopy wraps them in).
#[test]
fn two_fragments() {
    let file = "tests/data/real/two_fragments.c";
    let (code, _, err) = loopy(&["show", "--color", "never", file]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("choose one with `--scop N`"), "{err}");
    assert!(err.contains("region 1 (a fragment at file scope)"), "{err}");
    assert!(!err.contains("loopy_fragment"), "{err}");
    let (code, out, err) = loopy(&["show", file, "--scop", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("parameters: m\n"), "{out}");
    assert!(out.contains("S0, line 8: z[k] = 0;"), "{out}");
}
