//! Compiling a C program with the user's compiler, and compiler failures as reports that
//! point at the offending line.

use crate::diag::codes;
use crate::diag::{Diagnostic, Report};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How every program of a comparison is built: the same compiler and flags for both sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// The compiler and any words that come with it (`$CC` may be `ccache gcc`).
    pub cc: Vec<String>,
    /// Optimisation and code generation flags (`-O3 -march=native`).
    pub cflags: Vec<String>,
    /// `-I` directories.
    pub includes: Vec<PathBuf>,
    /// `-D` macros, `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    /// Given after the main source: extra sources such as a PolyBench `polybench.c`, objects,
    /// libraries.
    pub extra: Vec<String>,
    /// Link flags, last on the command line (`-lm`).
    pub ldflags: Vec<String>,
}

/// The compiler named by `$CC` (split at white space), `cc` when it is unset or empty.
pub fn default_cc() -> Vec<String> {
    std::env::var("CC")
        .ok()
        .map(|s| split_words(&s))
        .filter(|w| !w.is_empty())
        .unwrap_or_else(|| vec!["cc".to_string()])
}

/// Splits a flag string at white space (no shell quoting).
pub fn split_words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

impl Default for Toolchain {
    fn default() -> Toolchain {
        Toolchain {
            cc: default_cc(),
            cflags: split_words("-O3 -march=native"),
            includes: vec![],
            defines: vec![],
            extra: vec![],
            ldflags: vec!["-lm".to_string()],
        }
    }
}

impl Toolchain {
    /// The full command line (compiler first) that builds `source` into `exe`.
    /// `quote_dirs` are searched for `#include "..."` right after the source's own directory
    /// (`-iquote`): a transformed file written elsewhere passes its original's directory, so
    /// that its includes resolve exactly as the original's do. `more_defines` are added to
    /// the toolchain's (a check build's extra macros).
    pub fn command_line(
        &self,
        source: &Path,
        quote_dirs: &[PathBuf],
        more_defines: &[String],
        exe: &Path,
    ) -> Vec<String> {
        let mut v: Vec<String> = self.cc.clone();
        v.extend(self.cflags.iter().cloned());
        for i in quote_dirs {
            v.push("-iquote".into());
            v.push(i.display().to_string());
        }
        for i in &self.includes {
            v.push("-I".into());
            v.push(i.display().to_string());
        }
        for d in self.defines.iter().chain(more_defines) {
            v.push(format!("-D{d}"));
        }
        v.push(source.display().to_string());
        v.extend(self.extra.iter().cloned());
        v.push("-o".into());
        v.push(exe.display().to_string());
        v.extend(self.ldflags.iter().cloned());
        v
    }

    /// Builds `source` into `exe`. On failure the report points at the compiler's first
    /// error in a file it can read (the generated file, the original, a header) and carries
    /// the compiler's messages and the command as notes.
    pub fn compile(
        &self,
        source: &Path,
        quote_dirs: &[PathBuf],
        more_defines: &[String],
        exe: &Path,
    ) -> Result<(), Report> {
        let line = self.command_line(source, quote_dirs, more_defines, exe);
        let shown = line.join(" ");
        let out = Command::new(&line[0])
            .args(&line[1..])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                let mut d = Diagnostic::new(
                    codes::COMPILER_UNAVAILABLE,
                    format!("cannot run the C compiler `{}`: {e}", line[0]),
                )
                .with_note(format!("command: {shown}"));
                if e.kind() == std::io::ErrorKind::NotFound {
                    d = d.with_help("choose a compiler with `--cc` or the `CC` variable");
                }
                Report {
                    diagnostic: d,
                    sources: vec![],
                }
            })?;
        if out.status.success() && exe.exists() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        let d = Diagnostic::new(
            codes::COMPILE_FAILED,
            format!(
                "the C compiler failed on `{}` ({})",
                source.display(),
                status_text(&out.status)
            ),
        );
        Err(failure_report(d, &text, &shown))
    }

    /// The object-like macros the compiler defines for `source` (`cc CFLAGS -E -dM`, with
    /// the toolchain's includes and defines), as its `#define NAME BODY` lines.
    pub fn macro_dump(&self, source: &Path) -> Result<String, Report> {
        self.dump_macros(
            &source.display().to_string(),
            &format!("`{}`", source.display()),
        )
    }

    /// The macros the compiler predefines for the toolchain's flags: `cc CFLAGS -dM -E -`
    /// on an empty input (the ISA macros such as `__AVX2__` that `-march` selects), as its
    /// `#define NAME BODY` lines.
    pub fn predefined_macros(&self) -> Result<String, Report> {
        self.dump_macros("-", "an empty input")
    }

    /// `cc CFLAGS -E -dM [-I…] [-D…] INPUT`, standard input empty.
    fn dump_macros(&self, input: &str, what: &str) -> Result<String, Report> {
        let mut line: Vec<String> = self.cc.clone();
        line.extend(self.cflags.iter().cloned());
        line.extend(["-E".to_string(), "-dM".to_string()]);
        for i in &self.includes {
            line.push("-I".into());
            line.push(i.display().to_string());
        }
        for d in &self.defines {
            line.push(format!("-D{d}"));
        }
        line.push(input.to_string());
        let shown = line.join(" ");
        let out = Command::new(&line[0])
            .args(&line[1..])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Report {
                diagnostic: Diagnostic::new(
                    codes::COMPILER_UNAVAILABLE,
                    format!("cannot run the C compiler `{}`: {e}", line[0]),
                )
                .with_note(format!("command: {shown}")),
                sources: vec![],
            })?;
        if !out.status.success() {
            let d = Diagnostic::new(
                codes::COMPILE_FAILED,
                format!(
                    "the C compiler failed to preprocess {what} ({})",
                    status_text(&out.status)
                ),
            );
            return Err(failure_report(
                d,
                &String::from_utf8_lossy(&out.stderr),
                &shown,
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Whether the compiler can be run at all (`cc --version` starts): `Err` with a
    /// sentence saying why not.
    pub fn available(&self) -> Result<(), String> {
        match Command::new(&self.cc[0])
            .args(&self.cc[1..])
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
                "the compiler `{}` is not installed (not found)",
                self.cc[0]
            )),
            Err(e) => Err(format!("cannot run the compiler `{}`: {e}", self.cc[0])),
        }
    }

    /// The compiler's own name and version: the first line of `cc --version`.
    pub fn version(&self) -> Option<String> {
        let out = Command::new(&self.cc[0])
            .args(&self.cc[1..])
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let first = text.lines().next()?.trim();
        (!first.is_empty()).then(|| first.to_string())
    }
}

pub(crate) fn status_text(s: &std::process::ExitStatus) -> String {
    match s.code() {
        Some(c) => format!("exit status {c}"),
        None => {
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                if let Some(sig) = s.signal() {
                    return format!("killed by signal {sig}");
                }
            }
            "killed".to_string()
        }
    }
}

/// A compiler message `file:line:col: error: text` (or `fatal error`), split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

/// The location and message of an error line of gcc or clang output.
pub fn parse_error_line(line: &str) -> Option<Located> {
    let (at, message) = [": fatal error: ", ": error: "]
        .iter()
        .find_map(|k| line.find(k).map(|p| (&line[..p], &line[p + k.len()..])))?;
    let mut parts = at.rsplitn(3, ':');
    let c = parts.next()?;
    let l = parts.next()?;
    let (file, line_no, col) = match (c.parse::<usize>(), l.parse::<usize>(), parts.next()) {
        (Ok(c), Ok(l), Some(f)) => (f, l, c),
        // `file:line: error:` (no column)
        (Ok(l), Err(_), _) => (at.rsplit_once(':')?.0, l, 1),
        _ => return None,
    };
    if file.is_empty() || line_no == 0 {
        return None;
    }
    Some(Located {
        file: file.to_string(),
        line: line_no,
        col: col.max(1),
        message: message.trim().to_string(),
    })
}

/// Byte range of the token at `line`:`col` (1-based) in `text`: an identifier or number,
/// or one character.
fn token_range(text: &str, line: usize, col: usize) -> Option<std::ops::Range<usize>> {
    let start_of_line = if line == 1 {
        0
    } else {
        text.match_indices('\n').nth(line - 2)?.0 + 1
    };
    let end_of_line = text[start_of_line..]
        .find('\n')
        .map_or(text.len(), |e| start_of_line + e);
    let mut at = (start_of_line + col - 1).min(end_of_line);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let rest = &text[at..end_of_line];
    let len = match rest.chars().next() {
        None => 0,
        Some(c) if word(c) => rest.find(|c: char| !word(c)).unwrap_or(rest.len()),
        Some(c) => c.len_utf8(),
    };
    Some(at..at + len)
}

/// A report from the compiler's output: its first error in a readable file becomes the
/// label, the rest of its messages (without its own source excerpts) become notes.
pub fn failure_report(mut d: Diagnostic, output: &str, command: &str) -> Report {
    let mut sources: Vec<(String, String)> = vec![];
    // gcc's and clang's source excerpts (`  12 |   x = ;`, `     |   ^`) repeat the label.
    let excerpt = |l: &str| {
        let t = l
            .trim_start()
            .trim_start_matches(|c: char| c.is_ascii_digit());
        t.trim_start().starts_with('|') || t.trim().chars().all(|c| c == '^' || c == '~')
    };
    let mut notes = 0;
    for line in output
        .lines()
        .filter(|l| !l.trim().is_empty() && !excerpt(l))
    {
        if sources.is_empty() {
            if let Some(loc) = parse_error_line(line) {
                if let Ok(text) = std::fs::read_to_string(&loc.file) {
                    if let Some(r) = token_range(&text, loc.line, loc.col) {
                        d = d.with_label(&loc.file, r, loc.message.clone());
                        sources.push((loc.file.clone(), text));
                        continue;
                    }
                }
            }
        }
        if notes < 20 {
            d = d.with_note(line.trim_end().to_string());
        }
        notes += 1;
    }
    if notes > 20 {
        d = d.with_note(format!("... and {} more lines", notes - 20));
    }
    d = d.with_note(format!("command: {command}"));
    Report {
        diagnostic: d,
        sources,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::WorkDir;

    #[test]
    fn error_lines() {
        assert_eq!(
            parse_error_line("/tmp/x/m.c:12:7: error: 'q' undeclared (first use)"),
            Some(Located {
                file: "/tmp/x/m.c".into(),
                line: 12,
                col: 7,
                message: "'q' undeclared (first use)".into()
            })
        );
        assert_eq!(
            parse_error_line("a.c:3: error: no column").map(|l| (l.file, l.line, l.col)),
            Some(("a.c".into(), 3, 1))
        );
        assert_eq!(
            parse_error_line("m.c:1:10: fatal error: nope.h: No such file or directory")
                .map(|l| l.message),
            Some("nope.h: No such file or directory".into())
        );
        assert_eq!(parse_error_line("m.c: In function 'main':"), None);
        assert_eq!(parse_error_line("cc1: error: bad option"), None);
    }

    #[test]
    fn token_ranges() {
        let t = "int x;\n  foo(bar);\n";
        assert_eq!(token_range(t, 2, 3), Some(9..12));
        assert_eq!(token_range(t, 2, 6), Some(12..13));
        assert_eq!(token_range(t, 1, 99), Some(6..6));
        assert_eq!(token_range(t, 9, 1), None);
    }

    #[test]
    fn command_line_order() {
        let t = Toolchain {
            cc: vec!["ccache".into(), "gcc".into()],
            cflags: vec!["-O2".into()],
            includes: vec!["inc".into()],
            defines: vec!["N=4".into()],
            extra: vec!["util.c".into()],
            ldflags: vec!["-lm".into()],
        };
        let l = t.command_line(
            Path::new("k.c"),
            &["orig".into()],
            &["DUMP".into()],
            Path::new("k.exe"),
        );
        assert_eq!(
            l.join(" "),
            "ccache gcc -O2 -iquote orig -I inc -DN=4 -DDUMP k.c util.c -o k.exe -lm"
        );
    }

    #[test]
    fn compiles_and_reports_the_failing_line() {
        let dir = WorkDir::new(None).unwrap();
        let t = Toolchain {
            cflags: vec!["-O0".into()],
            ..Toolchain::default()
        };
        let good = dir.join("good.c");
        std::fs::write(&good, "int main(void) { return 0; }\n").unwrap();
        t.compile(&good, &[], &[], &dir.join("good")).unwrap();
        assert!(dir.join("good").exists());

        let bad = dir.join("bad.c");
        std::fs::write(
            &bad,
            "int main(void) {\n  int x = 1;\n  return x + oops;\n}\n",
        )
        .unwrap();
        let r = t.compile(&bad, &[], &[], &dir.join("bad")).unwrap_err();
        let name = bad.display().to_string();
        assert_eq!(r.diagnostic.labels.len(), 1, "{:?}", r.diagnostic);
        let l = &r.diagnostic.labels[0];
        assert_eq!(l.source, name);
        let text = std::fs::read_to_string(&bad).unwrap();
        assert_eq!(&text[l.range.clone()], "oops");
        assert!(l.label.contains("oops"), "{}", l.label);
        let shown = r.render(false);
        assert!(shown.contains("return x + oops;"), "{shown}");
        assert!(shown.contains("command: "), "{shown}");
    }

    #[test]
    fn missing_compiler() {
        let dir = WorkDir::new(None).unwrap();
        let t = Toolchain {
            cc: vec!["/nonexistent/loopy-cc".into()],
            ..Toolchain::default()
        };
        let src = dir.join("a.c");
        std::fs::write(&src, "int main(void){return 0;}").unwrap();
        let r = t.compile(&src, &[], &[], &dir.join("a")).unwrap_err();
        assert!(r.diagnostic.message.contains("cannot run the C compiler"));
        assert!(r.diagnostic.help.is_some());
    }
}
