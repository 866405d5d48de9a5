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
    let _ = std::fs::remove_dir_all(&dir);
}
