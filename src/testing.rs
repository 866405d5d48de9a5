//! Helpers shared by the unit tests that read the examples, write files or run the command
//! line.

use std::path::{Path, PathBuf};

/// A fresh, empty directory for one test (`group` and `name` keep tests apart).
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("loopy-{group}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
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

/// The variable that carries the arguments of [`loopy`] to its child process.
const CLI_ARGS: &str = "LOOPY_UNIT_TEST_COMMAND_LINE";
/// What the child process prints before the command's own output (the test harness writes
/// its header first).
const CLI_START: &str = "\u{1}loopy: the command line starts\u{1}\n";

/// Runs the `loopy` command line with `args` from the repository root, without colours:
/// its exit code, standard output and standard error, as `tests/common`'s `loopy` answers
/// them for the binary. The unit tests have no binary to run, so the child process is this
/// test binary, entered at [`command_line`], which runs `cli::run` as the binary's `main`
/// does.
pub fn loopy(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "testing::command_line",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CLI_ARGS, args.join("\u{1f}"))
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let Some((_, stdout)) = stdout.split_once(CLI_START) else {
        panic!("the command line did not start:\n{stdout}{stderr}");
    };
    (out.status.code().unwrap_or(-1), stdout.to_string(), stderr)
}

/// The child process of [`loopy`] runs the command line here and exits with its code (101
/// when it panics, as the binary does), on a thread with a main thread's 8 MiB of stack. In
/// a test run, without the arguments, it does nothing.
#[test]
fn command_line() {
    let Some(args) = std::env::var_os(CLI_ARGS) else {
        return;
    };
    let args = args.into_string().expect("the arguments are text");
    let mut argv = vec!["loopy".to_string()];
    if !args.is_empty() {
        argv.extend(args.split('\u{1f}').map(str::to_string));
    }
    use std::io::Write;
    print!("{CLI_START}");
    let _ = std::io::stdout().flush();
    let code = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || crate::cli::run(argv))
        .expect("a thread")
        .join()
        .map_or(101, i32::from);
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(code);
}

/// What a fake timer answers: three rounds of the original at one second and of the
/// transformed program at `t` seconds.
pub fn three_rounds(t: f64) -> crate::bench::Outcome {
    crate::bench::Outcome::Timed {
        timing: crate::native::Timing {
            a: vec![1.0; 3],
            b: vec![t; 3],
        },
        kept: None,
        extra: Box::new(crate::bench::ExtraTimings::default()),
    }
}
