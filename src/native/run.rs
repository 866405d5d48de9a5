//! Running a program once, and the first difference between two runs.

use super::compile::status_text;
use crate::diag::codes;
use crate::diag::{Diagnostic, Report};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One run of a program.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    /// The exit code, `None` when a signal ended the program.
    pub code: Option<i32>,
    /// How the program ended, for messages: `exit status 0`, `killed by signal 11`.
    pub status: String,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Wall time from spawning to the end of the process.
    pub wall: Duration,
}

impl RunOutcome {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// Runs `exe` with no arguments and no input, capturing both output streams.
#[cfg(test)]
pub fn run(exe: &Path) -> Result<RunOutcome, Report> {
    run_with_env(exe, &[])
}

/// [`run`] with these variables added to the environment (`OMP_NUM_THREADS`).
pub fn run_with_env(exe: &Path, env: &[(String, String)]) -> Result<RunOutcome, Report> {
    let start = Instant::now();
    let out = Command::new(exe)
        // Only timed runs report a kernel time, where they are told to.
        .env_remove(super::kernel_clock::ENV)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Report {
            diagnostic: Diagnostic::new(
                codes::RUN_FAILED,
                format!("cannot run `{}`: {e}", exe.display()),
            ),
            sources: vec![],
        })?;
    let wall = start.elapsed();
    Ok(RunOutcome {
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
    /// Under a relative tolerance: which numbers of the line differ, and by how much.
    pub detail: Option<String>,
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
        let detail = match &self.detail {
            Some(d) => format!("  {d}\n"),
            None => String::new(),
        };
        format!(
            "{} differs first at line {}{at}\n  {a:>w$}: {}\n  {b:>w$}: {}\n{detail}",
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
                detail: None,
            });
        }
    }
    // Same lines but different bytes (invalid UTF-8 replaced alike): report the end.
    Some(Difference {
        stream,
        line: n.max(1),
        a: la.last().cloned(),
        b: lb.last().cloned(),
        detail: None,
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
pub fn compare(
    a: &RunOutcome,
    b: &RunOutcome,
    ignore_last_stdout_line: bool,
) -> Option<Difference> {
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
                detail: None,
            })
        })
}

/// How two runs' outputs are compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    /// Byte for byte (the default).
    Exact,
    /// Numbers within this relative tolerance, everything else byte for byte.
    Relative(f64),
}

impl Check {
    /// For reports: `identical` or `equal within relative tolerance 1e-9`.
    pub fn describe(&self) -> String {
        match self {
            Check::Exact => "identical".to_string(),
            Check::Relative(r) => format!("equal within relative tolerance {r:e}"),
        }
    }
}

/// [`compare`] under a check: `Ok` with the largest relative difference between two
/// numbers of the outputs (0 when they are identical), or the first difference.
///
/// Under [`Check::Relative`] each pair of differing lines is split into numbers (decimal
/// literals such as `-1.5e-3`, `42`, `.5`; not inside a word such as `C1` or a hexadecimal
/// hash) and the text between them. The texts must be identical, and so must two integers
/// (no `.` or exponent on either side: counts and indices); other pairs of numbers `x`, `y`
/// must satisfy `|x - y| <= rel * max(|x|, |y|)`. The exit statuses must be equal.
pub fn compare_with(
    a: &RunOutcome,
    b: &RunOutcome,
    ignore_last_stdout_line: bool,
    check: Check,
) -> Result<f64, Difference> {
    let rel = match check {
        Check::Exact => {
            return match compare(a, b, ignore_last_stdout_line) {
                Some(d) => Err(d),
                None => Ok(0.0),
            }
        }
        Check::Relative(r) => r,
    };
    let (sa, sb) = if ignore_last_stdout_line {
        (without_last_line(&a.stdout), without_last_line(&b.stdout))
    } else {
        (&a.stdout[..], &b.stdout[..])
    };
    let mut worst: f64 = 0.0;
    for (stream, x, y) in [
        (Stream::Stdout, sa, sb),
        (Stream::Stderr, &a.stderr[..], &b.stderr[..]),
    ] {
        worst = worst.max(relative_difference(stream, x, y, rel)?);
    }
    if a.code != b.code {
        return Err(Difference {
            stream: Stream::Status,
            line: 0,
            a: Some(a.status.clone()),
            b: Some(b.status.clone()),
            detail: None,
        });
    }
    Ok(worst)
}

/// Two byte streams compared line by line under a relative tolerance `rel`.
fn relative_difference(stream: Stream, a: &[u8], b: &[u8], rel: f64) -> Result<f64, Difference> {
    if a == b {
        return Ok(0.0);
    }
    let (la, lb) = (lines(a), lines(b));
    let mut worst: f64 = 0.0;
    for i in 0..la.len().max(lb.len()) {
        let (x, y) = (la.get(i), lb.get(i));
        let differ = |detail: Option<String>| Difference {
            stream,
            line: i + 1,
            a: x.cloned(),
            b: y.cloned(),
            detail,
        };
        let (Some(x), Some(y)) = (x, y) else {
            return Err(differ(None));
        };
        if x == y {
            continue;
        }
        match line_difference(x, y, rel) {
            Ok(r) => worst = worst.max(r),
            Err(detail) => return Err(differ(detail)),
        }
    }
    if worst == 0.0 && a != b {
        // Same lines but different bytes (invalid UTF-8 replaced alike).
        return first_difference(stream, a, b).map_or(Ok(0.0), Err);
    }
    Ok(worst)
}

/// A piece of a line: text, or a decimal number.
#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Text(&'a str),
    Number { text: &'a str, integer: bool },
}

/// Splits a line into numbers and the text between them.
fn pieces(line: &str) -> Vec<Piece<'_>> {
    let b = line.as_bytes();
    let mut out = vec![];
    let (mut i, mut text_from) = (0, 0);
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    while i < b.len() {
        let starts = (i == 0 || !word(b[i - 1]))
            && (b[i].is_ascii_digit()
                || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
                || ((b[i] == b'-' || b[i] == b'+')
                    && (b.get(i + 1).is_some_and(u8::is_ascii_digit)
                        || (b.get(i + 1) == Some(&b'.')
                            && b.get(i + 2).is_some_and(u8::is_ascii_digit)))));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i;
        if b[j] == b'-' || b[j] == b'+' {
            j += 1;
        }
        let mut integer = true;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j < b.len() && b[j] == b'.' {
            integer = false;
            j += 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
        }
        if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
            let mut k = j + 1;
            if k < b.len() && (b[k] == b'-' || b[k] == b'+') {
                k += 1;
            }
            if k < b.len() && b[k].is_ascii_digit() {
                while k < b.len() && b[k].is_ascii_digit() {
                    k += 1;
                }
                integer = false;
                j = k;
            }
        }
        // A number glued to a following letter or digit is part of a word (`1a2f`).
        if j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            i = j;
            continue;
        }
        if text_from < start {
            out.push(Piece::Text(&line[text_from..start]));
        }
        out.push(Piece::Number {
            text: &line[start..j],
            integer,
        });
        i = j;
        text_from = j;
    }
    if text_from < line.len() {
        out.push(Piece::Text(&line[text_from..]));
    }
    out
}

/// Two differing lines under a relative tolerance: the largest relative difference of
/// their numbers, or why they differ (`None`: the text around the numbers differs).
fn line_difference(x: &str, y: &str, rel: f64) -> Result<f64, Option<String>> {
    let (px, py) = (pieces(x), pieces(y));
    if px.len() != py.len() {
        return Err(None);
    }
    let mut worst: f64 = 0.0;
    for (p, q) in px.iter().zip(&py) {
        match (p, q) {
            (Piece::Text(s), Piece::Text(t)) if s == t => {}
            (
                Piece::Number {
                    text: s,
                    integer: true,
                },
                Piece::Number {
                    text: t,
                    integer: true,
                },
            ) => {
                let (u, v) = (s.parse::<i128>(), t.parse::<i128>());
                let same = match (u, v) {
                    (Ok(u), Ok(v)) => u == v,
                    _ => s == t,
                };
                if !same {
                    return Err(Some(format!(
                        "the integers {s} and {t} differ (integers are compared exactly)"
                    )));
                }
            }
            (Piece::Number { text: s, .. }, Piece::Number { text: t, .. }) => {
                let (u, v): (f64, f64) = match (s.parse(), t.parse()) {
                    (Ok(u), Ok(v)) => (u, v),
                    _ => return Err(None),
                };
                let r = if u == v {
                    0.0
                } else {
                    (u - v).abs() / u.abs().max(v.abs())
                };
                // NaN (from infinities) is a difference too.
                if r.is_nan() || r > rel {
                    return Err(Some(format!(
                        "{s} and {t} differ by a relative {r:.3e}, more than the tolerance {rel:e}"
                    )));
                }
                worst = worst.max(r);
            }
            _ => return Err(None),
        }
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::{Toolchain, WorkDir};

    fn out(stdout: &str, stderr: &str, code: i32) -> RunOutcome {
        RunOutcome {
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

    #[test]
    fn numbers_and_text() {
        let n = |text, integer| Piece::Number { text, integer };
        assert_eq!(
            pieces("C[12] = -1.5e-3, x1 0x1f .5"),
            vec![
                Piece::Text("C["),
                n("12", true),
                Piece::Text("] = "),
                n("-1.5e-3", false),
                Piece::Text(", x1 0x1f "),
                n(".5", false),
            ]
        );
        assert_eq!(pieces("hash 93e41abc"), vec![Piece::Text("hash 93e41abc")]);
        assert_eq!(pieces("3e"), vec![Piece::Text("3e")]);
        assert_eq!(pieces("1e5x 2"), vec![Piece::Text("1e5x "), n("2", true)]);
    }

    #[test]
    fn relative_tolerance() {
        let a = out("== C (2 x 2)\n1.000000001 2\nC[3] = 4e10\n", "", 0);
        let b = out(
            "== C (2 x 2)\n1.000000002 2.0000000001\nC[3] = 4.0000000001e10\n",
            "",
            0,
        );
        assert!(compare_with(&a, &b, false, Check::Exact).is_err());
        let worst = compare_with(&a, &b, false, Check::Relative(1e-8)).unwrap();
        assert!(worst > 9e-10 && worst < 1.1e-9, "{worst}");
        let d = compare_with(&a, &b, false, Check::Relative(1e-10)).unwrap_err();
        assert_eq!(d.line, 2);
        let text = d.describe("original", "transformed");
        assert!(
            text.contains("1.000000001 and 1.000000002 differ by a relative"),
            "{text}"
        );
        // Indices and counts are compared exactly; so is the text around the numbers.
        let c = out("== C (2 x 3)\n1.000000001 2\nC[3] = 4e10\n", "", 0);
        let d = compare_with(&a, &c, false, Check::Relative(0.9)).unwrap_err();
        assert!(d.detail.unwrap().contains("integers 2 and 3"));
        let c = out("== D (2 x 2)\n1.000000001 2\nC[3] = 4e10\n", "", 0);
        assert!(compare_with(&a, &c, false, Check::Relative(0.9)).is_err());
        // Identical outputs, different exit statuses, fewer lines.
        assert_eq!(
            compare_with(&a, &a.clone(), false, Check::Relative(0.0)),
            Ok(0.0)
        );
        let c = out("== C (2 x 2)\n1.000000001 2\nC[3] = 4e10\n", "", 1);
        let d = compare_with(&a, &c, false, Check::Relative(1.0)).unwrap_err();
        assert_eq!(d.stream, Stream::Status);
        let c = out("== C (2 x 2)\n", "", 0);
        assert!(compare_with(&a, &c, false, Check::Relative(1.0)).is_err());
        // Infinities equal themselves only; zero against a tiny number is a relative 1.
        let (p, q) = (out("1e999\n", "", 0), out("inf\n", "", 0));
        assert!(compare_with(&p, &q, false, Check::Relative(1.0)).is_err());
        let (p, q) = (out("0.0\n", "", 0), out("1e-300\n", "", 0));
        assert!(compare_with(&p, &q, false, Check::Relative(0.5)).is_err());
        assert!(compare_with(&p, &q, false, Check::Relative(1.0)).is_ok());
    }
}
