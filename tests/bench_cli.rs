//! `loopy bench` end to end on the examples at tiny sizes (fast: `-O1`, one timed run).

mod common;
use common::loopy;
use std::path::{Path, PathBuf};

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("bench-test", name)
}

/// Writes `dir/loopy.toml` with `body`, where `{EX}` stands for the examples folder;
/// returns its path.
fn write_manifest(dir: &Path, body: &str) -> String {
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let manifest = dir.join("loopy.toml");
    std::fs::write(&manifest, body.replace("{EX}", &ex.display().to_string())).unwrap();
    manifest.display().to_string()
}

const MATMUL: &str = "examples/matmul/matmul.c";
const MATMUL_SCRIPT: &str = "examples/matmul/matmul.loopy";
const FAST: &[&str] = &["-D", "N=16", "--cflags", "-O1", "--runs", "1"];

#[test]
fn matmul_end_to_end() {
    let dir = scratch("e2e");
    let keep = dir.join("keep");
    let keep_s = keep.display().to_string();
    let mut args = vec!["bench", MATMUL, MATMUL_SCRIPT, "--keep", &keep_s];
    args.extend(FAST);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("outputs identical"), "{out}");
    assert!(out.contains("speedup"), "{out}");
    assert!(
        out.contains("original") && out.contains("transformed"),
        "{out}"
    );
    // The transformed source and both executables stay in the keep directory.
    let t = std::fs::read_to_string(keep.join("matmul.transformed.c")).unwrap();
    assert!(t.contains("kernel_matmul"));
    assert!(keep.join("matmul.original").exists());
    assert!(keep.join("matmul.transformed").exists());

    let args = [
        "bench",
        MATMUL,
        MATMUL_SCRIPT,
        "--format",
        "json",
        "-D",
        "N=16",
        "--cflags",
        "-O1",
        "--runs",
        "2",
        "--check-define",
        "PRINT_LIMIT=10",
    ];
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.trim_start().starts_with('{'), "{out}");
    assert!(out.contains("\"status\": \"ok\""), "{out}");
    assert!(out.contains("\"speedup\": "), "{out}");
    assert_eq!(out.matches("\"samples\": [").count(), 2, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A script with a parallel loop: both programs are built with `-fopenmp` (the kernel's
/// pragma is then live) and the outputs must still be identical.
#[test]
fn parallel_marks_build_with_openmp() {
    let dir = scratch("openmp");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("par.loopy");
    let body = std::fs::read_to_string(MATMUL_SCRIPT).unwrap() + "parallel(Mult, 1)\n";
    std::fs::write(&script, body).unwrap();
    let keep = dir.join("keep");
    let (script_s, keep_s) = (script.display().to_string(), keep.display().to_string());
    let mut args = vec!["bench", MATMUL, &script_s, "--keep", &keep_s];
    args.extend(FAST);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("outputs identical"), "{out}");
    let t = std::fs::read_to_string(keep.join("matmul.transformed.c")).unwrap();
    assert!(t.contains("#pragma omp parallel for"), "{t}");
    // The transformed executable calls the OpenMP runtime: it was built with -fopenmp.
    let exe = std::fs::read(keep.join("matmul.transformed")).unwrap();
    let needle = b"GOMP_";
    assert!(exe.windows(needle.len()).any(|w| w == needle));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--identity` times the regenerated, untransformed kernel against the original: what the
/// code generator costs by itself.
#[test]
fn identity_times_the_regenerated_kernel() {
    let dir = scratch("identity");
    let keep = dir.join("keep");
    let keep_s = keep.display().to_string();
    let mut args = vec!["bench", MATMUL, "--identity", "--keep", &keep_s];
    args.extend(FAST);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("matmul.c + the identity: outputs identical"),
        "{out}"
    );
    assert!(out.contains("regenerated"), "{out}");
    // The region really was regenerated: the loops are loopy's, the rest is unchanged.
    let original = std::fs::read_to_string(MATMUL).unwrap();
    let regenerated = std::fs::read_to_string(keep.join("matmul.transformed.c")).unwrap();
    assert_ne!(original, regenerated);
    let head = original.find("#pragma scop").unwrap();
    assert_eq!(original[..head], regenerated[..head]);

    // With a manifest, every entry's script is replaced by the identity (even an illegal
    // one: the identity is always legal).
    let m = write_manifest(
        &dir,
        r#"
[[check]]
kernel = "{EX}/matmul/matmul.c"
script = "{EX}/matmul/matmul.loopy"
sizes.tiny = ["N=12"]

[[check]]
kernel = "{EX}/div/div.c"
script = "{EX}/div/div_reverse.loopy"
sizes.tiny = ["N=8"]
"#,
    );
    let (code, out, err) = loopy(&[
        "bench",
        "--manifest",
        &m,
        "--identity",
        "--size",
        "tiny",
        "--format",
        "json",
        "--cflags",
        "-O1",
        "--runs",
        "1",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(out.matches("\"script\": null").count(), 2, "{out}");
    assert_eq!(out.matches("\"status\": \"ok\"").count(), 2, "{out}");

    // A script and --identity together make no sense.
    let (code, _, err) = loopy(&["bench", MATMUL, MATMUL_SCRIPT, "--identity"]);
    assert_eq!(code, 2, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn illegal_scripts_are_not_benchmarked() {
    let (code, _, err) = loopy(&[
        "bench",
        "examples/div/div.c",
        "examples/div/div_reverse.loopy",
        "--runs",
        "1",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("flow dependence"), "{err}");
    assert!(err.contains("nothing was benchmarked"), "{err}");
}

/// A compiler wrapper: `cc`, except on the transformed file, where it does `what`.
#[cfg(unix)]
fn wrapper(dir: &Path, what: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("fake-cc");
    let script = format!(
        "#!/bin/sh\nf=\nfor a in \"$@\"; do case \"$a\" in *.transformed.c) f=\"$a\";; esac; done\n\
         if [ -n \"$f\" ]; then\n{what}\nfi\nexec cc \"$@\"\n"
    );
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.display().to_string()
}

/// A compiler error in the generated file is shown on the generated line, and the file is
/// left where the user can read it.
#[cfg(unix)]
#[test]
fn compiler_errors_point_at_the_generated_line() {
    let dir = scratch("ccfail");
    let cc = wrapper(
        &dir,
        "  l=$(grep -n 'for (' \"$f\" | head -n 1 | cut -d: -f1)\n  \
         echo \"$f:$l:3: error: something the compiler dislikes\" >&2\n  exit 1",
    );
    let mut args = vec!["bench", MATMUL, MATMUL_SCRIPT, "--cc", &cc];
    args.extend(FAST);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("the C compiler failed on"), "{err}");
    assert!(err.contains("something the compiler dislikes"), "{err}");
    assert!(err.contains("matmul.transformed.c:"), "{err}");
    // The label shows the offending line of the generated file.
    assert!(
        err.lines()
            .any(|l| l.contains(" │ ") && l.contains("for (")),
        "{err}"
    );
    let kept = err
        .lines()
        .find_map(|l| l.split("the transformed source is in `").nth(1))
        .and_then(|r| r.strip_suffix('`'))
        .expect("the kept directory is named");
    assert!(Path::new(kept).join("matmul.transformed.c").exists());
    let _ = std::fs::remove_dir_all(kept);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Different outputs: exit 1 with the first differing line.
#[cfg(unix)]
#[test]
fn differing_outputs_are_reported() {
    let dir = scratch("differ");
    // The transformed program prints a sample instead of every element.
    let cc = wrapper(&dir, "  exec cc -DPRINT_LIMIT=1 \"$@\"");
    let keep = dir.join("keep").display().to_string();
    let mut args = vec!["bench", MATMUL, MATMUL_SCRIPT, "--cc", &cc, "--keep", &keep];
    args.extend(FAST);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("stdout differs first at line 2"), "{err}");
    assert!(err.contains("C[0] = "), "{err}");
    assert!(dir.join("keep/matmul.transformed.stdout").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn manifest_table_plot_and_json() {
    let dir = scratch("manifest");
    let m = write_manifest(
        &dir,
        r#"
[[check]]
kernel = "{EX}/matmul/matmul.c"
script = "{EX}/matmul/matmul.loopy"
sizes.tiny = ["N=12"]

[[check]]
name = "division"
kernel = "{EX}/div/div.c"
script = "{EX}/div/div.loopy"
sizes.tiny = ["N=8"]
cflags = ["-fno-inline"]
check-define = ["PRINT_LIMIT=4"]

[[check]]
kernel = "{EX}/div/div.c"
script = "{EX}/div/div_reverse.loopy"
expect = "illegal"

[[check]]
kernel = "{EX}/mvt/mvt.c"
script = "{EX}/mvt/mvt.loopy"
bench = false
"#,
    );
    let svg = dir.join("speedups.svg");
    let svg_s = svg.display().to_string();
    let base = [
        "bench",
        "--manifest",
        &m,
        "--size",
        "tiny",
        "--cflags",
        "-O1",
        "--runs",
        "1",
    ];

    let mut args = base.to_vec();
    args.extend(["--plot", &svg_s]);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    let rows: Vec<&str> = out.lines().collect();
    assert!(rows[0].starts_with("kernel"), "{out}");
    assert!(rows
        .iter()
        .any(|l| l.starts_with("matmul ") && l.contains("tiny") && l.contains('×')));
    assert!(rows
        .iter()
        .any(|l| l.starts_with("division ") && l.contains('×')));
    assert!(
        out.contains("2 timed, 0 differ or illegal, 0 failed"),
        "{out}"
    );
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(
        chart.starts_with("<svg") && chart.contains("division"),
        "{chart}"
    );

    let mut args = base.to_vec();
    args.extend(["--format", "json"]);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(out.matches("\"status\": \"ok\"").count(), 2, "{out}");
    assert!(out.contains("\"size\": \"tiny\""), "{out}");

    // `loopy check` reads the same manifest, bench keys and all.
    let (code, out, err) = loopy(&["check", "--manifest", &m]);
    assert_eq!(code, 0, "{out}\n{err}");

    // A size the manifest does not define is bad input.
    let (code, _, err) = loopy(&["bench", "--manifest", &m, "--size", "huge", "--runs", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no size `huge`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--best`: several scripts of one kernel file compete for one row (per size), named by
/// the script that won; other kernels keep their rows; the chart gets a series per baseline.
#[test]
fn best_keeps_one_row_per_kernel() {
    let dir = scratch("best");
    let m = write_manifest(
        &dir,
        r#"
[[check]]
kernel = "{EX}/matmul/matmul.c"
script = "{EX}/matmul/matmul.loopy"
sizes.tiny = ["N=12"]

[[check]]
name = "matmul"
kernel = "{EX}/matmul/matmul.c"
script = "{EX}/matmul/matmul-par.loopy"
sizes.tiny = ["N=12"]

[[check]]
kernel = "{EX}/div/div.c"
script = "{EX}/div/div.loopy"
sizes.tiny = ["N=8"]
"#,
    );
    let svg = dir.join("best.svg");
    let svg_s = svg.display().to_string();
    let base = [
        "bench",
        "--manifest",
        &m,
        "--size",
        "tiny",
        "--cflags",
        "-O1",
        "--runs",
        "1",
        "--threads",
        "1",
        "--best",
    ];
    let mut args = base.to_vec();
    args.extend(["--baseline", "cc -O0", "--plot", &svg_s]);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("2 timed, 0 differ or illegal, 0 failed"),
        "{out}"
    );
    let matmul: Vec<&str> = out.lines().filter(|l| l.starts_with("matmul")).collect();
    assert_eq!(matmul.len(), 1, "{out}");
    assert!(
        matmul[0].starts_with("matmul ") || matmul[0].starts_with("matmul: matmul-par "),
        "{out}"
    );
    assert!(out.lines().any(|l| l.starts_with("div ")), "{out}");
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.contains("tiny, over `cc -O0`"), "{chart}");
    // Without `--best` both scripts of matmul have a row.
    let args: Vec<&str> = base[..base.len() - 1].to_vec();
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("matmul")).count(),
        2,
        "{out}"
    );
    // `--best` needs a manifest.
    let (code, _, err) = loopy(&["bench", MATMUL, MATMUL_SCRIPT, "--best"]);
    assert_eq!(code, 2, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn manifest_key_errors() {
    let dir = scratch("badkeys");
    let manifest = dir.join("loopy.toml");
    std::fs::write(
        &manifest,
        "[[check]]\nkernel = \"a.c\"\nscript = \"a.loopy\"\nsizes = [\"N=4\"]\n",
    )
    .unwrap();
    let m = manifest.display().to_string();
    for cmd in ["bench", "check"] {
        let (code, _, err) = loopy(&[cmd, "--manifest", &m]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains("`sizes` must be a table"), "{cmd}: {err}");
    }
    // The reference's keys are checked by both commands too.
    for (body, msg) in [
        (
            "reference = { nme = \"x\", source = \"a.c\" }",
            "unknown key `reference.nme`",
        ),
        (
            "reference = { name = \"x\" }",
            "`reference.source` is missing",
        ),
        ("reference = \"a.c\"", "`reference` must be a table"),
        (
            "reference = { source = \"a.c\", tolerance = -1.0 }",
            "`reference.tolerance` must be a non-negative number",
        ),
        (
            "reference = { source = \"a.c\", compare = \"no\" }",
            "`reference.compare` must be true or false",
        ),
        (
            "reference = { source = \"a.c\", compare = false, tolerance = 1e-9 }",
            "`reference.tolerance` has no use with `compare = false`",
        ),
        ("flops = 12", "`flops` must be a string"),
    ] {
        std::fs::write(
            &manifest,
            format!("[[check]]\nkernel = \"a.c\"\nscript = \"a.loopy\"\n{body}\n"),
        )
        .unwrap();
        for cmd in ["bench", "check"] {
            let (code, _, err) = loopy(&[cmd, "--manifest", &m]);
            assert_eq!(code, 2, "{cmd}: {err}");
            assert!(err.contains(msg), "{cmd}: {err}");
            // Pointing at the value, on line 4.
            assert!(err.contains("loopy.toml:4:"), "{cmd}: {err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small tagged program for the tests below: `A[i] = 2 * B[i]` over N = 64 elements,
/// printed with 17 digits. The transformed build can be told to scale what it prints by
/// `1 + 1e-10` (`-DPERTURB`, a change in the last digits). The last line is a "time" read
/// from `OMP_NUM_THREADS` (a millisecond per thread), so that `--time-from-stdout` shows
/// which thread count each run saw.
const SMALL: &str = r#"#include <stdio.h>
#include <stdlib.h>
#pragma GCC diagnostic ignored "-Wunused-label"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
#define N 64
#endif
#ifdef PERTURB
#define SCALE 1.0000000001
#else
#define SCALE 1.0
#endif
static double A[N], B[N];
static void kernel(int n)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
S:  A[i] = 2.0 * B[i];
#pragma endscop
}
int main(void)
{
  int i;
  const char *t = getenv("OMP_NUM_THREADS");
  for (i = 0; i < N; i++)
    B[i] = i / 3.0;
  kernel(N);
  printf("n %d\n", N);
  for (i = 0; i < N; i++)
    printf("A[%d] = %.17g\n", i, A[i] * SCALE);
  printf("%g\n", t ? atoi(t) * 0.001 : 0.5);
  return 0;
}
"#;

/// Writes the small program and a script into `dir`; returns their paths.
fn small_program(dir: &Path, script: &str) -> (String, String) {
    let (c, s) = (dir.join("small.c"), dir.join("small.loopy"));
    std::fs::write(&c, SMALL).unwrap();
    std::fs::write(&s, script).unwrap();
    (c.display().to_string(), s.display().to_string())
}

/// The compiler the tests build with, as a `--baseline` spec with these flags.
fn baseline(flags: &str) -> String {
    format!("{} {flags}", common::cc())
}

/// Baselines: one that works, one whose compiler is not installed, one that does not build
/// and one whose output differs. Only the first is timed; the others are clear messages in
/// their place, and the exit code stays 0.
#[test]
fn baselines_are_timed_or_explained() {
    let ok = baseline("-O0");
    let missing = "/nonexistent/loopy-cc -O3 -mllvm -polly".to_string();
    let broken = baseline("-O1 -fno-such-option-for-loopy");
    let differs = baseline("-O1 -DPRINT_LIMIT=1");
    let mut args = vec!["bench", MATMUL, MATMUL_SCRIPT];
    args.extend(FAST);
    for b in [&ok, &missing, &broken, &differs] {
        args.extend(["--baseline", b.as_str()]);
    }
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains(&format!("vs {ok}: speedup ")), "{out}");
    assert!(
        out.contains(&format!(
            "vs {missing}: not timed: the compiler `/nonexistent/loopy-cc` is not installed"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("vs {broken}: not timed: the C compiler failed")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "vs {differs}: not timed: its output differs from the original's (stdout line 2)"
        )),
        "{out}"
    );
    // The details on stderr: the compiler's complaint, the differing line.
    assert!(err.contains("no-such-option-for-loopy"), "{err}");
    assert!(err.contains("stdout differs first at line 2"), "{err}");
    assert!(err.contains("/nonexistent/loopy-cc"), "{err}");

    // JSON: one object per baseline, in order, with its status.
    let mut args = vec!["bench", MATMUL, MATMUL_SCRIPT, "--format", "json"];
    args.extend(FAST);
    for b in [&ok, &missing] {
        args.extend(["--baseline", b.as_str()]);
    }
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let b = j["baselines"].as_array().unwrap();
    assert_eq!(b.len(), 2, "{out}");
    assert_eq!(
        (b[0]["baseline"].as_str(), b[0]["status"].as_str()),
        (Some(ok.as_str()), Some("ok"))
    );
    assert!(b[0]["speedup"].as_f64().unwrap() > 0.0, "{out}");
    assert_eq!(b[0]["times"]["samples"].as_array().unwrap().len(), 1);
    assert_eq!(b[1]["status"], "skipped");
    assert!(
        b[1]["error"].as_str().unwrap().contains("not installed"),
        "{out}"
    );

    // A baseline must name its compiler.
    let (code, _, err) = loopy(&["bench", MATMUL, MATMUL_SCRIPT, "--baseline", "-O3"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("starts with a flag: give the compiler first"),
        "{err}"
    );
}

/// `--threads`: each count is a timed pair with `OMP_NUM_THREADS` set (the program reports
/// the value it saw as its time); a parallel loop builds both programs with -fopenmp.
#[test]
fn thread_counts() {
    let dir = scratch("threads");
    let (c, s) = small_program(&dir, "parallel(S, 1)\n");
    let (code, out, err) = loopy(&[
        "bench",
        &c,
        &s,
        "--cflags",
        "-O1",
        "--runs",
        "2",
        "--time-from-stdout",
        "--threads",
        "1",
        "--threads",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["openmp"], "-fopenmp", "{out}");
    let t = j["threads"].as_array().unwrap();
    assert_eq!(t.len(), 2, "{out}");
    for (row, secs) in t.iter().zip([0.001, 0.003]) {
        for side in ["original", "transformed"] {
            let samples: Vec<f64> = row[side]["samples"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            assert_eq!(samples, vec![secs, secs], "{out}");
        }
    }
    assert_eq!(
        (t[0]["threads"].as_i64(), t[1]["threads"].as_i64()),
        (Some(1), Some(3))
    );
    // The pair at the first count is the main result.
    assert_eq!(j["original"]["median"].as_f64(), Some(0.001), "{out}");

    // Text: one line per count.
    let (code, out, err) = loopy(&[
        "bench",
        &c,
        &s,
        "--cflags",
        "-O1",
        "--runs",
        "1",
        "--threads",
        "1",
        "--threads",
        "2",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.lines().any(|l| l.starts_with("1 thread ")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("2 threads ")), "{out}");
    assert!(!out.contains("no parallel loop"), "{out}");
    // Without a parallel loop, the output says that the count changes nothing.
    let (c, s) = small_program(&dir, "affine(S, {[i] -> [i]})\n");
    let (code, out, err) = loopy(&["bench", &c, &s, "--runs", "1", "--threads", "2"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("(no parallel loop: the programs were not built with -fopenmp"),
        "{out}"
    );

    let (code, _, err) = loopy(&["bench", &c, &s, "--threads", "0"]);
    assert_eq!(code, 2, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--tolerance`: a transformed program whose numbers differ in the last digits fails the
/// default byte-for-byte check and passes a relative one that allows the difference; the
/// report names the check and the largest difference.
#[cfg(unix)]
#[test]
fn relative_tolerance() {
    let dir = scratch("tolerance");
    let (c, s) = small_program(&dir, "affine(S, {[i] -> [i]})\n");
    let cc = wrapper(&dir, "  exec cc -DPERTURB \"$@\"");
    // Differing outputs are kept: in the scratch directory.
    let keep = dir.join("keep").display().to_string();
    let base = [
        "bench", &c, &s, "--cc", &cc, "--cflags", "-O1", "--runs", "1", "--keep", &keep,
    ];
    let (code, out, err) = loopy(&base);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("stdout differs first at line 3"), "{err}");

    let mut args = base.to_vec();
    args.extend(["--tolerance", "1e-9"]);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains(
            "outputs equal within relative tolerance 1e-9 (largest relative difference 1.0"
        ),
        "{out}"
    );
    args.extend(["--format", "json"]);
    let (code, out, _) = loopy(&args);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["check"], "equal within relative tolerance 1e-9");
    assert_eq!(j["tolerance"].as_f64(), Some(1e-9));
    let worst = j["max_relative_difference"].as_f64().unwrap();
    assert!(worst > 0.9e-10 && worst < 1.1e-10, "{worst}");

    // Too tight a tolerance: the first number out of it, and by how much.
    let mut args = base.to_vec();
    args.extend(["--tolerance", "1e-11"]);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("differ by a relative 1.0"), "{err}");
    assert!(err.contains("more than the tolerance 1e-11"), "{err}");

    // Without a difference, the default check is named as such.
    let (code, out, _) = loopy(&["bench", &c, &s, "--cflags", "-O1", "--runs", "1"]);
    assert_eq!(code, 0);
    assert!(out.contains("outputs identical"), "{out}");
    let (code, _, err) = loopy(&["bench", &c, &s, "--tolerance=-1"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a relative tolerance"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A manifest with flop counts, a reference (the original program itself: what the tests
/// can build anywhere), a reference whose header is not installed, baselines and thread
/// counts: one column each, and the JSON fields.
#[test]
fn manifest_columns_flops_and_references() {
    let dir = scratch("columns");
    let m = write_manifest(
        &dir,
        r#"
[[check]]
kernel = "{EX}/matmul/matmul.c"
script = "{EX}/matmul/matmul.loopy"
sizes.tiny = ["N=12"]
flops = "2*n^3"
reference = { name = "itself", source = "{EX}/matmul/matmul.c" }

[[check]]
name = "matmul-nolib"
kernel = "{EX}/matmul/matmul.c"
script = "{EX}/matmul/matmul.loopy"
sizes.tiny = ["N=12"]
reference = { name = "itself", source = "{EX}/matmul/matmul.c", headers = ["loopy-no-such-blas.h"], ldflags = ["-lm"], install = "apt-get install loopy-no-such-blas" }
"#,
    );
    let ok = baseline("-O0");
    let base = [
        "bench",
        "--manifest",
        &m,
        "--size",
        "tiny",
        "--cflags",
        "-O1",
        "--runs",
        "1",
        "--baseline",
        &ok,
        "--baseline",
        "loopy-no-such-cc -O3",
        "--threads",
        "1",
        "--threads",
        "2",
    ];
    let (code, out, err) = loopy(&base);
    assert_eq!(code, 0, "{out}\n{err}");
    let header = out.lines().next().unwrap();
    for col in [
        "1 thread",
        "2 threads",
        &format!("vs {ok}"),
        "vs loopy-no-such-cc -O3",
        "of itself",
        "GFLOP/s",
    ] {
        assert!(header.contains(col), "{col}: {out}");
    }
    assert!(!header.contains("speedup"), "{out}");
    let row = out.lines().find(|l| l.starts_with("matmul ")).unwrap();
    assert!(row.contains("skipped") && row.contains('%'), "{out}");
    let row = out
        .lines()
        .find(|l| l.starts_with("matmul-nolib "))
        .unwrap();
    assert_eq!(row.matches("skipped").count(), 2, "{out}");
    assert!(row.trim_end().ends_with('-'), "no flops, no GFLOP/s: {out}");
    assert!(
        out.contains("note: matmul-nolib (tiny): reference itself: itself is not available here: cannot build with <loopy-no-such-blas.h> -lm")
            && out.contains("install it with `apt-get install loopy-no-such-blas`"),
        "{out}"
    );
    assert!(
        out.contains("2 timed, 0 differ or illegal, 0 failed; outputs identical"),
        "{out}"
    );

    let mut args = base.to_vec();
    args.extend(["--format", "json", "--only", "matmul"]);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["check"], "identical");
    let r = &j["results"].as_array().unwrap();
    assert_eq!(r.len(), 1, "--only: {out}");
    let r = &r[0];
    // 2 * 12^3, exactly.
    assert_eq!(r["flops"].as_f64(), Some(3456.0), "{out}");
    assert!(r["gflops"]["transformed"].as_f64().unwrap() > 0.0, "{out}");
    assert_eq!(r["reference"]["status"], "ok", "{out}");
    assert_eq!(r["reference"]["check"], "identical", "{out}");
    assert!(
        r["reference"]["fraction_of_speed"].as_f64().unwrap() > 0.0,
        "{out}"
    );
    assert_eq!(r["baselines"].as_array().unwrap().len(), 2, "{out}");
    assert_eq!(r["threads"].as_array().unwrap().len(), 2, "{out}");

    let (code, _, err) = loopy(&["bench", "--manifest", &m, "--only", "nothing"]);
    assert_eq!(code, 2);
    assert!(err.contains("no benched entry named `nothing`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Flop counts: a name that is no macro is an error pointing at it in the manifest; a
/// syntax error fails `loopy check` too; `--flops` for a single program.
#[test]
fn flop_count_errors() {
    let dir = scratch("flops");
    let m = write_manifest(
        &dir,
        r#"
[[check]]
kernel = "{EX}/matmul/matmul.c"
script = "{EX}/matmul/matmul.loopy"
sizes.tiny = ["N=12"]
flops = "2*N*nq"
"#,
    );
    let (code, out, err) = loopy(&["bench", "--manifest", &m, "--size", "tiny", "--runs", "1"]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("unknown name `nq`"), "{err}");
    // The label is on the name, in the manifest.
    assert!(err.contains("loopy.toml:6:14"), "{err}");
    assert!(
        out.contains("0 timed, 0 differ or illegal, 1 failed"),
        "{out}"
    );

    let m = write_manifest(
        &dir,
        r#"
[[check]]
kernel = "{EX}/matmul/matmul.c"
script = "{EX}/matmul/matmul.loopy"
flops = "2*(N"
"#,
    );
    for cmd in ["bench", "check"] {
        let (code, _, err) = loopy(&[cmd, "--manifest", &m]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains("expected `)`"), "{cmd}: {err}");
        assert!(err.contains("loopy.toml:5:14"), "{cmd}: {err}");
    }

    let mut args = vec!["bench", MATMUL, MATMUL_SCRIPT, "--flops", "2*N^3"];
    args.extend(FAST);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("GFLOP/s (median times, 8.1920e3 flops)"),
        "{out}"
    );
    let (code, _, err) = loopy(&["bench", MATMUL, MATMUL_SCRIPT, "--flops", "2*N*"]);
    assert_eq!(code, 2);
    assert!(err.contains("ends too early"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reference with `compare = false` (a library that computes the same thing in another
/// form or rounding, such as LAPACK's factorisations): its output is not compared with the
/// original's, it is timed when its check run succeeds and said to be uncompared in the
/// table's notes and the JSON; the same program compared (the default) differs, and one
/// whose check run fails (its own check) is an error, not timed.
#[test]
fn references_not_compared_are_timed_when_they_succeed() {
    let dir = scratch("not-compared");
    for (name, status) in [("other", 0), ("fails", 1)] {
        std::fs::write(
            dir.join(format!("{name}.c")),
            format!(
                "#include <stdio.h>\nint main(void)\n{{\n  volatile double x = 0;\n  int i;\n\
                 #pragma scop\n  for (i = 0; i < 10; i++)\n    x += i;\n#pragma endscop\n\
                 if ({status}) fprintf(stderr, \"self-check failed\\n\");\n\
                 printf(\"another form of the result %g\\n\", x);\n  return {status};\n}}\n"
            ),
        )
        .unwrap();
    }
    let d = dir.display();
    let m = write_manifest(
        &dir,
        &format!(
            r#"
[[check]]
name = "uncompared"
kernel = "{{EX}}/matmul/matmul.c"
script = "{{EX}}/matmul/matmul.loopy"
reference = {{ name = "other", source = "{d}/other.c", compare = false }}

[[check]]
name = "compared"
kernel = "{{EX}}/matmul/matmul.c"
script = "{{EX}}/matmul/matmul.loopy"
reference = {{ name = "other", source = "{d}/other.c" }}

[[check]]
name = "failing"
kernel = "{{EX}}/matmul/matmul.c"
script = "{{EX}}/matmul/matmul.loopy"
reference = {{ name = "fails", source = "{d}/fails.c", compare = false }}
"#
        ),
    );
    let base = ["bench", "--manifest", &m, "--cflags", "-O1", "--runs", "1"];
    let (code, out, err) = loopy(&base);
    assert_eq!(code, 0, "{out}\n{err}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row {name}: {out}"))
            .to_string()
    };
    assert!(row("uncompared").contains('%'), "{out}");
    assert!(row("compared").contains("differs"), "{out}");
    assert!(row("failing").contains("error"), "{out}");
    assert!(
        out.contains("note: uncompared: reference other: its output is not compared with the original's (`compare = false`)"),
        "{out}"
    );
    assert!(
        out.contains("note: failing: reference fails: its check run failed (exit status 1)"),
        "{out}"
    );
    let mut args = base.to_vec();
    args.extend(["--format", "json"]);
    let (code, out, err) = loopy(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let by_name = |n: &str| {
        j["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == n)
            .unwrap_or_else(|| panic!("no result {n}: {out}"))
            .clone()
    };
    let r = by_name("uncompared");
    assert_eq!(r["reference"]["status"], "ok", "{out}");
    assert_eq!(r["reference"]["check"], "not compared", "{out}");
    assert_eq!(
        by_name("compared")["reference"]["status"],
        "differ",
        "{out}"
    );
    assert_eq!(by_name("failing")["reference"]["status"], "error", "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
