//! Running a program once, and the first difference between two runs.

use super::compile::status_text;
use crate::diag::{Diagnostic, Report};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One run of a program.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The exit code, `None` when a signal ended the program.
    pub code: Option<i32>,
    /// How the program ended, for messages: `exit status 0`, `killed by signal 11`.
    pub status: String,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Wall time from spawning to the end of the process.
    pub wall: Duration,
}

impl Outcome {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// Runs `exe` with no arguments and no input, capturing both output streams.
pub fn run(exe: &Path) -> Result<Outcome, Report> {
    let start = Instant::now();
    let out = Command::new(exe)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Report {
            diagnostic: Diagnostic::new(format!("cannot run `{}`: {e}", exe.display())),
            sources: vec![],
        })?;
    let wall = start.elapsed();
    Ok(Outcome {
        code: out.status.code(),
        status: status_text(&out.status),
        stdout: out.stdout,
        stderr: out.stderr,
        wall,
    })
}

/// Which part of two runs differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
    Status,
}

impl Stream {
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
            Stream::Status => "exit status",
        }
    }
}

/// The first difference between two runs: the stream, the 1-based line and both lines
/// (`None` where that output has already ended).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub stream: Stream,
    pub line: usize,
    pub a: Option<String>,
    pub b: Option<String>,
}

impl Difference {
    /// A multi-line description; `a` and `b` name the two programs.
    pub fn describe(&self, a: &str, b: &str) -> String {
        // Long lines are cut to a window around the first differing character.
        let (from, col) = match (&self.a, &self.b) {
            (Some(x), Some(y)) => {
                let c = x.chars().zip(y.chars()).take_while(|(p, q)| p == q).count();
                (c.saturating_sub(WINDOW / 2), Some(c + 1))
            }
            _ => (0, None),
        };
        let show = |s: &Option<String>| match s {
            Some(l) => {
                let n = l.chars().count();
                let cut: String = l.chars().skip(from).take(WINDOW).collect();
                let pre = if from > 0 { "…" } else { "" };
                let post = if from + WINDOW < n { "…" } else { "" };
                format!("{pre}{cut:?}{post}")
            }
            None => "(end of output)".to_string(),
        };
        let w = a.len().max(b.len());
        if self.stream == Stream::Status {
            return format!(
                "the exit statuses differ\n  {a:>w$}: {}\n  {b:>w$}: {}\n",
                show(&self.a),
                show(&self.b)
            );
        }
        let at = match col {
            Some(c) if self.a.as_ref().is_some_and(|l| l.chars().count() > WINDOW) => {
                format!(", column {c}")
            }
            _ => String::new(),
        };
        format!(
            "{} differs first at line {}{at}\n  {a:>w$}: {}\n  {b:>w$}: {}\n",
            self.stream.name(),
            self.line,
            show(&self.a),
            show(&self.b)
        )
    }
}

/// Characters of a differing line shown in a description.
const WINDOW: usize = 80;

/// Splits output into lines keeping a final unterminated line; a missing final newline is
/// a difference too, shown as `\n` on the other side.
fn lines(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut v: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    // Compare lines with their terminator but show them without it when both have one.
    if v.last().is_some_and(|l| l.ends_with('\n')) {
        for l in &mut v {
            l.pop();
        }
    } else {
        let n = v.len();
        for l in v.iter_mut().take(n.saturating_sub(1)) {
            l.pop();
        }
        if let Some(l) = v.last_mut() {
            l.push_str("⟨no newline at end⟩");
        }
    }
    v
}

/// The first difference between two byte streams, by line.
pub fn first_difference(stream: Stream, a: &[u8], b: &[u8]) -> Option<Difference> {
    if a == b {
        return None;
    }
    let (la, lb) = (lines(a), lines(b));
    let n = la.len().max(lb.len());
    for i in 0..n {
        let (x, y) = (la.get(i), lb.get(i));
        if x != y {
            return Some(Difference {
                stream,
                line: i + 1,
                a: x.cloned(),
                b: y.cloned(),
            });
        }
    }
    // Same lines but different bytes (invalid UTF-8 replaced alike): report the end.
    Some(Difference {
        stream,
        line: n.max(1),
        a: la.last().cloned(),
        b: lb.last().cloned(),
    })
}

/// Drops the last non-empty line (a program's own timing) from a captured output.
pub fn without_last_line(bytes: &[u8]) -> &[u8] {
    let mut end = bytes.len();
    while end > 0 && (bytes[end - 1] == b'\n' || bytes[end - 1] == b'\r') {
        end -= 1;
    }
    match bytes[..end].iter().rposition(|&c| c == b'\n') {
        Some(p) => &bytes[..p + 1],
        None => &[],
    }
}

/// The first difference between two runs: stdout, then stderr, then the exit status.
/// With `ignore_last_stdout_line` the last line of stdout (a printed time) is left out.
pub fn compare(a: &Outcome, b: &Outcome, ignore_last_stdout_line: bool) -> Option<Difference> {
    let (sa, sb) = if ignore_last_stdout_line {
        (without_last_line(&a.stdout), without_last_line(&b.stdout))
    } else {
        (&a.stdout[..], &b.stdout[..])
    };
    first_difference(Stream::Stdout, sa, sb)
        .or_else(|| first_difference(Stream::Stderr, &a.stderr, &b.stderr))
        .or_else(|| {
            (a.code != b.code).then(|| Difference {
                stream: Stream::Status,
                line: 0,
                a: Some(a.status.clone()),
                b: Some(b.status.clone()),
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::{Toolchain, WorkDir};

    fn out(stdout: &str, stderr: &str, code: i32) -> Outcome {
        Outcome {
            code: Some(code),
            status: format!("exit status {code}"),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            wall: Duration::ZERO,
        }
    }

    #[test]
    fn first_differing_line() {
        let a = out("x\ny\nz\n", "", 0);
        let b = out("x\ny\nw\n", "", 0);
        let d = compare(&a, &b, false).unwrap();
        assert_eq!(d.stream, Stream::Stdout);
        assert_eq!(d.line, 3);
        assert_eq!((d.a.as_deref(), d.b.as_deref()), (Some("z"), Some("w")));
        let text = d.describe("original", "transformed");
        assert!(text.contains("stdout differs first at line 3"), "{text}");
        assert!(text.contains("transformed: \"w\""), "{text}");
        assert!(compare(&a, &a.clone(), false).is_none());
    }

    #[test]
    fn long_lines_are_cut_around_the_difference() {
        let x = "1 ".repeat(100) + "2 3 4\n";
        let y = "1 ".repeat(100) + "2 5 4\n";
        let d = first_difference(Stream::Stdout, x.as_bytes(), y.as_bytes()).unwrap();
        let text = d.describe("a", "b");
        assert!(text.contains("line 1, column 203"), "{text}");
        assert!(text.contains("2 5 4\""), "{text}");
        assert!(text.lines().all(|l| l.chars().count() < 100), "{text}");
    }

    #[test]
    fn shorter_output_and_missing_newline() {
        let d = first_difference(Stream::Stdout, b"a\nb\n", b"a\n").unwrap();
        assert_eq!((d.line, d.b.clone()), (2, None));
        assert!(d.describe("A", "B").contains("(end of output)"));
        let d = first_difference(Stream::Stdout, b"a\nb\n", b"a\nb").unwrap();
        assert_eq!(d.line, 2);
        assert_ne!(d.a, d.b);
    }

    #[test]
    fn stderr_then_status() {
        let d = compare(&out("a\n", "e\n", 0), &out("a\n", "f\n", 0), false).unwrap();
        assert_eq!((d.stream, d.line), (Stream::Stderr, 1));
        let d = compare(&out("a\n", "", 0), &out("a\n", "", 3), false).unwrap();
        assert_eq!(d.stream, Stream::Status);
        assert!(d.describe("a", "b").contains("exit status 3"));
    }

    #[test]
    fn the_last_line_can_be_a_time() {
        assert_eq!(without_last_line(b"r 1\n0.25\n"), b"r 1\n");
        assert_eq!(without_last_line(b"r 1\n0.25\n\n"), b"r 1\n");
        assert_eq!(without_last_line(b"0.25"), b"");
        let a = out("r 1\n0.250000\n", "", 0);
        let b = out("r 1\n0.125000\n", "", 0);
        assert!(compare(&a, &b, true).is_none());
        assert!(compare(&a, &b, false).is_some());
    }

    /// Real programs: the same output, a different one, a crash.
    #[test]
    fn runs_real_programs() {
        let dir = WorkDir::new(None).unwrap();
        let t = Toolchain {
            cflags: vec!["-O0".into()],
            ..Toolchain::default()
        };
        let build = |name: &str, body: &str| {
            let src = dir.join(&format!("{name}.c"));
            std::fs::write(
                &src,
                format!("#include <stdio.h>\n#include <stdlib.h>\nint main(void) {{ {body} }}\n"),
            )
            .unwrap();
            let exe = dir.join(name);
            t.compile(&src, &[], &[], &exe).unwrap();
            run(&exe).unwrap()
        };
        let a = build(
            "a",
            r#"int i; for (i = 0; i < 3; i++) printf("%d\n", i*i); return 0;"#,
        );
        let b = build(
            "b",
            r#"int i = 0; while (i < 3) { printf("%d\n", i*i); i++; } return 0;"#,
        );
        let c = build(
            "c",
            r#"printf("0\n1\n5\n"); fprintf(stderr, "warn\n"); return 0;"#,
        );
        let d = build("d", r#"printf("0\n"); fflush(stdout); abort();"#);
        assert!(a.success());
        assert_eq!(a.stdout, b"0\n1\n4\n");
        assert!(compare(&a, &b, false).is_none());
        let diff = compare(&a, &c, false).unwrap();
        assert_eq!((diff.line, diff.a.as_deref()), (3, Some("4")));
        assert!(!d.success());
        assert!(d.status.contains("signal"), "{}", d.status);
        assert!(compare(&a, &d, false).is_some());
    }
}
