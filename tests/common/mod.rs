//! Helpers shared by the integration tests that compile generated C.
#![allow(dead_code)] // each test crate uses its own subset

use std::path::Path;

/// The C compiler the tests build with: `$CC`, else `cc`.
pub fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

/// Names of the examples that have a script (`examples/NAME/NAME.loopy`), sorted.
pub fn examples() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut v: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| root.join(n).join(format!("{n}.loopy")).exists())
        .collect();
    v.sort();
    v
}

/// Exit code, standard output and standard error of a finished command.
pub fn outcome(out: std::process::Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs the `loopy` binary from the repository root, without colours.
pub fn loopy(args: &[&str]) -> (i32, String, String) {
    outcome(
        std::process::Command::new(env!("CARGO_BIN_EXE_loopy"))
            .args(args)
            .env("NO_COLOR", "1")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run loopy"),
    )
}

/// A fresh, empty directory for one test (`group` and `name` keep tests apart).
pub fn scratch(group: &str, name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("loopy-{group}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Compiles the C file `src` into `exe` with `flags`; panics with the compiler's messages
/// (and `context`, e.g. the generated code) when it fails.
pub fn compile(src: &Path, exe: &Path, flags: &[&str], context: &str) {
    // Flags after the source, so that libraries (`-lm`) come after what uses them.
    let out = std::process::Command::new(cc())
        .arg("-o")
        .arg(exe)
        .arg(src)
        .args(flags)
        .output()
        .expect("C compiler");
    assert!(
        out.status.success(),
        "{}: compile failed:\n{}\n{context}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What `src` prints, built into `dir` (never beside `src`, which may be an example of the
/// repository) with `flags` (`-D` sizes, `-lm`); `tag` names the executable.
pub fn output_of(src: &Path, dir: &Path, tag: &str, flags: &[&str]) -> String {
    let stem = src.file_stem().unwrap_or_default().to_string_lossy();
    let exe = dir.join(format!("{stem}.{tag}.exe"));
    compile(src, &exe, flags, tag);
    let out = std::process::Command::new(&exe)
        .output()
        .expect("run the program");
    assert!(out.status.success(), "{} fails", exe.display());
    String::from_utf8(out.stdout).expect("text")
}

/// `loopy apply KERNEL SCRIPT -o OUT`, which must succeed.
pub fn apply_to(kernel: &Path, script: &Path, out: &Path) {
    let (code, o, e) = loopy(&[
        "apply",
        kernel.to_str().unwrap(),
        script.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{o}{e}");
}

/// Compiles the original `orig` (a path from the repository root) and the generated
/// `file` at each size (`-D` flags, `-O2 -ffp-contract=off`; the generated one with every
/// warning an error) and requires identical standard output.
pub fn same_outputs(group: &str, orig: &str, name: &str, file: &str, sizes: &[&[&str]]) {
    let dir = scratch(group, name);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = dir.join("new.c");
    std::fs::write(&src, file).unwrap();
    let run = |exe: &Path| {
        let out = std::process::Command::new(exe).output().unwrap();
        assert!(out.status.success(), "{} failed", exe.display());
        out.stdout
    };
    for (k, defs) in sizes.iter().enumerate() {
        let mut flags = vec!["-O2", "-ffp-contract=off", "-lm"];
        flags.extend(defs.iter());
        let (old, new) = (dir.join(format!("old{k}")), dir.join(format!("new{k}")));
        compile(&root.join(orig), &old, &flags, "");
        let mut strict = flags.clone();
        strict.extend(["-Wall", "-Wextra", "-Werror"]);
        compile(&src, &new, &strict, file);
        assert!(run(&old) == run(&new), "{name} {defs:?}: outputs differ");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
