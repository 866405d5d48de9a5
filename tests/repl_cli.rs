//! `loopy repl` end to end: sessions driven through piped standard input (snapshots), and a
//! session in a real terminal (tmux) for completion and history.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_loopy");
const MATMUL: &str = "examples/matmul/matmul.c";

/// A fresh directory for one test's files, removed when the test is done with it.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("loopy-repl-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    Scratch(d)
}

/// Runs `loopy repl ARGS` from the crate root with `input` on standard input.
fn repl(args: &[&str], input: &str, history: &Path) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .arg("repl")
        .args(args)
        .env("NO_COLOR", "1")
        .env("LOOPY_HISTORY", history)
        .current_dir(ROOT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run loopy repl");
    // The REPL may stop reading early (a kernel that does not load): ignore a broken pipe.
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes());
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check(kernel: &str, script: &Path) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(["check", kernel])
        .arg(script)
        .env("NO_COLOR", "1")
        .current_dir(ROOT)
        .output()
        .expect("run loopy check");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The statements of the matmul example's script, typed one per line.
fn matmul_steps() -> Vec<String> {
    let text =
        std::fs::read_to_string(Path::new(ROOT).join("examples/matmul/matmul.loopy")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn matmul_steps_undo_check_save() {
    let dir = scratch("matmul");
    let saved = dir.join("session.loopy");
    let steps = matmul_steps();
    assert_eq!(steps.len(), 3);
    let input = format!(
        "{}\n:undo\n:check\n:save {}\n:schedule\n:quit\n",
        steps.join("\n"),
        saved.display()
    );
    let (code, out, err) = repl(&[MATMUL], &input, &dir.join("history"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    let out = out.replace(&dir.display().to_string(), "$TMP");
    insta::assert_snapshot!("matmul_session", out);

    // The saved script is the first two steps, and `loopy check` accepts it.
    let script = std::fs::read_to_string(&saved).unwrap();
    let script = script.replace(&dir.display().to_string(), "$TMP");
    insta::assert_snapshot!("matmul_saved_script", script);
    let (code, out, err) = check(MATMUL, &saved);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("legal:"), "{out}");
    // Piped input never writes the history.
    assert!(!dir.join("history").exists());
}

#[test]
fn the_whole_example_checks_and_saves_legal() {
    let dir = scratch("whole");
    let saved = dir.join("all.loopy");
    let input = format!(
        ":load examples/matmul/matmul.loopy\n:check\n:save {}\n",
        saved.display()
    );
    let (code, out, err) = repl(&[MATMUL], &input, &dir.join("history"));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("loaded examples/matmul/matmul.loopy\n[1] realign"));
    assert!(out.contains("legal: the 3 step(s) preserve all 5 dependences"));
    let (code, out, err) = check(MATMUL, &saved);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn errors_leave_the_state_unchanged() {
    let dir = scratch("errors");
    let input = "realign(Init, Mult, 0)\n\
                 realign(Mlt, Init, 0)\n\
                 affine(Mult, {[i,j,k] -> [i,k,j]}); frobnicate(Mult)\n\
                 tile(Mult, [32, 32, 32]\n\
                 )\n\
                 :schedule\n\
                 :nope\n\
                 :undo extra\n\
                 :save\n\
                 :load does/not/exist.loopy\n";
    let (code, out, err) = repl(&[MATMUL], input, &dir.join("history"));
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("errors_stdout", out);
    insta::assert_snapshot!("errors_stderr", err);
    // The affine of the failing line did not stay: Mult is still in j, k order, and the
    // multi-line tile was applied on top of the realign only.
    assert!(out.contains("[2] tile(Mult, [32, 32, 32] )"));
}

#[test]
fn illegal_steps_get_the_full_report() {
    let dir = scratch("illegal");
    let input = "affine(Mult, {[i,j,k] -> [i,j,-k]})\n:check\n:undo\n:check\n";
    let (code, out, err) = repl(&[MATMUL], input, &dir.join("history"));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("illegal: ") && out.contains("legal: the 0 step(s)"),
        "{out}"
    );
    assert!(err.contains("is not preserved"), "{err}");
    assert!(err.contains("step 1 moved these instances"), "{err}");
    assert!(err.contains("in[1]"), "{err}");
}

#[test]
fn procedures_and_imports_survive_undo_and_save() {
    let dir = scratch("procs");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(
        dir.join("lib/ops.loopy"),
        "def swap_jk(l) {\n  affine(l, {[i,j,k] -> [i,k,j]})\n}\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let saved = out_dir.join("s.loopy");
    let input = format!(
        "import \"{lib}\"\n\
         def tile8(l) {{\n\
         \x20 tile(l, [8, 8, 8])\n\
         }}\n\
         realign(Init, Mult, 0)\n\
         swap_jk(Mult)\n\
         tile8(Mult)\n\
         :undo\n\
         :undo\n\
         :redo\n\
         :redo\n\
         :reset\n\
         :redo\n\
         :redo\n\
         :redo\n\
         :redo\n\
         :redo\n\
         :redo\n\
         :check\n\
         :save {saved}\n",
        lib = dir.join("lib/ops.loopy").display(),
        saved = saved.display()
    );
    let (code, out, err) = repl(&[MATMUL], &input, &dir.join("history"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    let out = out.replace(&dir.display().to_string(), "$TMP");
    insta::assert_snapshot!("procedures_session", out);
    let (code, o, e) = check(MATMUL, &saved);
    assert_eq!(code, 0, "{o}{e}");
    // A relative import is rewritten for where the script is saved.
    let dir2 = scratch("procs-rel");
    std::fs::create_dir_all(dir2.join("lib")).unwrap();
    std::fs::create_dir_all(dir2.join("out")).unwrap();
    std::fs::write(
        dir2.join("lib/ops.loopy"),
        "def swap_jk(l) {\n  affine(l, {[i,j,k] -> [i,k,j]})\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir2.join("start.loopy"),
        "import \"lib/ops.loopy\"\nrealign(Init, Mult, 0)\nswap_jk(Mult)\n",
    )
    .unwrap();
    let saved2 = dir2.join("out/s.loopy");
    let (code, _, err) = repl(
        &[MATMUL, dir2.join("start.loopy").to_str().unwrap()],
        &format!(":save {}\n", saved2.display()),
        &dir2.join("history"),
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&saved2).unwrap();
    assert!(text.contains("import \"../lib/ops.loopy\""), "{text}");
    let (code, o, e) = check(MATMUL, &saved2);
    assert_eq!(code, 0, "{o}{e}");
}

#[test]
fn code_and_diff() {
    let dir = scratch("code");
    let input = ":diff\nrealign(Init, Mult, 0)\naffine(Mult, {[i,j,k] -> [i,k,j]})\n:diff\n:code\n";
    let (code, out, err) = repl(&[MATMUL], input, &dir.join("history"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    insta::assert_snapshot!("code_and_diff", out);
}

#[test]
fn help_tags_deps() {
    let dir = scratch("help");
    let (code, out, err) = repl(
        &[MATMUL],
        ":help\n:tags\nL = lift(Mult, 1)\n:tags\n:deps\n",
        &dir.join("history"),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    insta::assert_snapshot!("help_tags_deps", out);
}

#[test]
fn end_of_input_inside_a_block_is_reported() {
    let dir = scratch("eof");
    let (code, out, err) = repl(
        &[MATMUL],
        "realign(Init, Mult, 0)\ndef f(l) {\n  tile(l, [4])\n",
        &dir.join("history"),
    );
    assert_eq!(code, 0);
    assert_eq!(out, "[1] realign(Init, Mult, 0)\n    Mult: [n] -> { S1[i, j, k] -> [1, i, 0, j, 0, k, 0] : 0 <= i < n and 0 <= j < n and 0 <= k < n }\n");
    assert!(err.contains("in[2]"), "{err}");
}

#[test]
fn bench_the_current_state() {
    let dir = scratch("bench");
    let input = ":bench --help\n\
                 :bench --runs 0\n\
                 :load examples/matmul/matmul.loopy\n\
                 :bench --cflags \"-O1 -g\" --runs 1\n\
                 :undo\n\
                 affine(Mult, {[i,j,k] -> [i,j,-k]})\n\
                 :bench --runs 1\n";
    let (code, out, err) = repl(&[MATMUL, "-D", "N=16"], input, &dir.join("history"));
    assert_eq!(code, 0, "{err}");
    // The options of `loopy bench`, on standard output.
    assert!(
        out.contains("--runs <RUNS>") && out.contains("--cflags"),
        "{out}"
    );
    assert!(
        err.contains("invalid value '0' for '--runs <RUNS>'"),
        "{err}"
    );
    // The legal state: both programs built with the session's -D, outputs compared, timed.
    assert!(out.contains("outputs identical"), "{out}");
    assert!(out.contains("speedup") && out.contains("-O1 -g"), "{out}");
    // The illegal one is refused with its reports.
    assert!(err.contains("nothing was benchmarked"), "{err}");
    assert!(err.contains("anti dependence on `C`"), "{err}");
}

#[test]
fn a_kernel_that_does_not_load_is_exit_2() {
    let dir = scratch("bad");
    let (code, _, err) = repl(&["no/such/kernel.c"], ":quit\n", &dir.join("history"));
    assert_eq!(code, 2);
    assert!(err.contains("kernel.c"), "{err}");
}

// ---------------------------------------------------------------------------------------
// A real terminal: tmux runs the REPL, send-keys types, capture-pane reads the screen.

struct Tmux {
    socket: String,
}

impl Tmux {
    fn available() -> bool {
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    fn cmd(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("run tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn start(&self, session: &str, command: &str) {
        self.cmd(&[
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            "160",
            "-y",
            "50",
            command,
        ]);
    }

    fn keys(&self, session: &str, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", session];
        args.extend_from_slice(keys);
        self.cmd(&args);
    }

    fn screen(&self, session: &str) -> String {
        self.cmd(&["capture-pane", "-p", "-t", session])
    }

    /// Waits until the screen satisfies `f` (panics with the screen after 20 s).
    fn wait(&self, session: &str, what: &str, f: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen(session);
            if f(&s) {
                return s;
            }
            if start.elapsed() > Duration::from_secs(20) {
                panic!("timed out waiting for {what}; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.cmd(&["kill-server"]);
    }
}

/// The last non-empty line of the screen.
fn last_line(screen: &str) -> String {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim_end()
        .to_string()
}

#[test]
fn terminal_completion_and_history() {
    if !Tmux::available() {
        eprintln!("skipped: tmux is not installed (apt-get install tmux)");
        return;
    }
    let dir = scratch("tty");
    let history = dir.join("state/history");
    let tmux = Tmux {
        socket: format!("loopy-repl-test-{}", std::process::id()),
    };
    let command = |history: &Path| {
        format!(
            "cd {ROOT} && LOOPY_HISTORY={} {BIN} repl {MATMUL}; echo exit=$?; sleep 30",
            history.display()
        )
    };

    // First session: complete an operation and a tag, apply, quit.
    tmux.start("one", &command(&history));
    tmux.wait("one", "the prompt", |s| last_line(s) == "loopy[0]>");
    assert!(tmux.screen("one").contains(":help lists the commands"));
    // A block over several lines.
    tmux.keys("one", &["def t4(l) {", "Enter"]);
    tmux.wait("one", "the continuation prompt", |s| {
        last_line(s).ends_with("...>")
    });
    tmux.keys("one", &["tile(l, [4, 4, 4]) }", "Enter"]);
    tmux.wait("one", "the definition", |s| s.contains("defined t4"));
    tmux.keys("one", &["rea", "Tab"]);
    tmux.wait("one", "completion of `rea`", |s| {
        last_line(s) == "loopy[0]> realign"
    });
    tmux.keys("one", &["(Ini", "Tab"]);
    tmux.wait("one", "completion of a tag", |s| {
        last_line(s) == "loopy[0]> realign(Init"
    });
    tmux.keys("one", &[", Mu", "Tab", ", 0)", "Enter"]);
    tmux.wait("one", "the step", |s| {
        s.contains("[1] realign(Init, Mult, 0)") && last_line(s) == "loopy[1]>"
    });
    // Procedures defined in the session complete too.
    tmux.keys("one", &["t", "Tab", "Tab"]);
    tmux.wait("one", "the candidates for `t`", |s| {
        s.contains("t4") && s.contains("tile") && s.contains("tile2")
    });
    // Two candidates: the second Tab lists them.
    tmux.keys("one", &["C-u", ":s", "Tab", "Tab"]);
    tmux.wait("one", "the list of commands", |s| {
        s.contains(":save") && s.contains(":schedule")
    });
    // Ctrl-C drops the line.
    tmux.keys("one", &["C-c"]);
    tmux.wait("one", "a fresh prompt", |s| last_line(s) == "loopy[1]>");
    tmux.keys("one", &[":quit", "Enter"]);
    // The history is complete once the process has exited (the file can exist, still
    // empty, before that).
    tmux.wait("one", "the end of the session", |s| s.contains("exit=0"));
    let h = std::fs::read_to_string(&history).expect("the history file is written");
    assert!(h.contains("realign(Init, Mult, 0)"), "{h}");

    // Second session: the history of the first one is there.
    tmux.start("two", &command(&history));
    tmux.wait("two", "the prompt", |s| last_line(s) == "loopy[0]>");
    // Entries, newest first: :quit, realign (then the block).
    tmux.keys("two", &["Up", "Up"]);
    tmux.wait("two", "the recalled line", |s| {
        last_line(s) == "loopy[0]> realign(Init, Mult, 0)"
    });
    tmux.keys("two", &["Enter"]);
    tmux.wait("two", "the recalled step", |s| {
        s.contains("[1] realign(Init, Mult, 0)") && last_line(s) == "loopy[1]>"
    });
    tmux.keys("two", &["C-d"]);
    tmux.wait("two", "the end of the session", |s| s.contains("exit=0"));
    assert!(tmux.screen("one").contains("exit=0"));

    // A history file that cannot be written does not disturb the session.
    tmux.start("three", &command(Path::new("/proc/no-such-dir/history")));
    tmux.wait("three", "the prompt", |s| last_line(s) == "loopy[0]>");
    tmux.keys("three", &["tile(Mult, [4])", "Enter"]);
    tmux.wait("three", "the step", |s| last_line(s) == "loopy[1]>");
    tmux.keys("three", &[":quit", "Enter"]);
    let s = tmux.wait("three", "the end of the session", |s| s.contains("exit="));
    assert!(s.contains("exit=0") && !s.contains("error"), "{s}");
}

/// `:bench` takes `loopy bench`'s options: baselines, thread counts, a tolerance, a flop
/// count in the session's macros.
#[test]
fn bench_options() {
    let dir = scratch("bench-options");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let input = format!(
        ":load examples/matmul/matmul.loopy\n\
         :bench --cflags -O1 --runs 1 --baseline '{cc} -O0' --threads 1 --tolerance 1e-12 --flops 2*N^3\n"
    );
    let (code, out, err) = repl(&[MATMUL, "-D", "N=16"], &input, &dir.join("history"));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("outputs equal within relative tolerance 1e-12"),
        "{out}"
    );
    assert!(
        out.contains(&format!("vs {cc} -O0: speedup")),
        "{out}\n{err}"
    );
    assert!(out.lines().any(|l| l.starts_with("1 thread ")), "{out}");
    assert!(
        out.contains("GFLOP/s (median times, 8.1920e3 flops)"),
        "{out}"
    );
}

/// `unroll` in the REPL: `:code` shows the unrolled loop, a mark that clashes in the
/// generated loops is reported on the inputs that set it (completion of the operation is
/// tested beside the session, `src/repl/mod.rs`).
#[test]
fn unroll_in_the_repl() {
    let dir = scratch("unroll");
    let input = "parallel(Mult, 1)\nunroll(Init, 1, 2)\n:code\n:undo\n:undo\nrealign(Init, Mult, 0)\nunroll(Mult, 3, 4)\n:code\n";
    let (code, out, err) = repl(&[MATMUL], input, &dir.join("history"));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("k += 4"), "{out}");
    assert!(out.contains("A[i][(k + 3)]"), "{out}");
    assert!(
        err.contains("one loop is marked both `unroll(2)` and `parallel`")
            && err.contains("marked here"),
        "{err}"
    );
}
