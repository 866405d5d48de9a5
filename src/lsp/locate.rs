//! Which kernel a script transforms, found as a person would: a `# kernel: path` first line,
//! a manifest entry (`loopy.toml` in the script's folder or above) that names the script, or
//! the `.c` file of the same name beside it.

use crate::frontend::Options;
use crate::script::params::Settings;
use std::path::{Path, PathBuf};

/// A kernel for a script, with the options to model it.
#[derive(Clone, Debug)]
pub struct Located {
    pub kernel: PathBuf,
    pub opts: Options,
    pub settings: Settings,
    /// How it was found, for hovers and messages.
    pub how: String,
    /// The byte range of a `# kernel:` line, where the kernel was named there.
    pub line: Option<std::ops::Range<usize>>,
}

/// Why no kernel was found, and where to say so in the script.
#[derive(Clone, Debug)]
pub struct NotFound {
    pub message: String,
    pub range: std::ops::Range<usize>,
}

/// The kernel of the script at `script` whose text is `text`.
pub fn locate(script: &Path, text: &str) -> Result<Located, NotFound> {
    let dir = script.parent().unwrap_or(Path::new("."));
    if let Some(l) = first_line(text, dir)? {
        return Ok(l);
    }
    if let Some(l) = from_manifest(script) {
        return Ok(l);
    }
    let beside = script.with_extension("c");
    if beside.is_file() {
        return Ok(Located {
            how: format!("`{}`, beside the script", file_name(&beside)),
            kernel: beside,
            opts: Options::default(),
            settings: Settings::default(),
            line: None,
        });
    }
    Err(NotFound {
        message: format!(
            "no kernel found for this script: write its path on the first line \
             (`# kernel: {}`), put `{}` beside it, or list the pair in a `loopy.toml`",
            file_name(&beside),
            file_name(&beside)
        ),
        range: 0..text.find('\n').unwrap_or(text.len()),
    })
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into())
}

/// `# kernel: path [-D NAME=VALUE] [-I DIR] [--function F] [--scop N]` on the first line.
fn first_line(text: &str, dir: &Path) -> Result<Option<Located>, NotFound> {
    let end = text.find('\n').unwrap_or(text.len());
    let line = &text[..end];
    let Some(rest) = line
        .trim_start()
        .strip_prefix('#')
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix("kernel:"))
    else {
        return Ok(None);
    };
    let bad = |m: String| NotFound {
        message: m,
        range: 0..end,
    };
    let mut words = rest.split_whitespace();
    let Some(path) = words.next() else {
        return Err(bad("`# kernel:` names no file".into()));
    };
    let mut opts = Options::default();
    while let Some(w) = words.next() {
        let mut value = |flag: &str| -> Result<String, NotFound> {
            words
                .next()
                .map(str::to_string)
                .ok_or_else(|| bad(format!("`{flag}` needs a value")))
        };
        match w {
            "-D" => opts.defines.push(value("-D")?),
            "-I" => opts.includes.push(dir.join(value("-I")?)),
            "--function" => opts.function = Some(value("--function")?),
            "--scop" => {
                let v = value("--scop")?;
                opts.scop = Some(
                    v.parse()
                        .map_err(|_| bad(format!("`--scop {v}` is not a region number")))?,
                );
            }
            _ if w.starts_with("-D") => opts.defines.push(w[2..].to_string()),
            _ if w.starts_with("-I") => opts.includes.push(dir.join(&w[2..])),
            _ => {
                return Err(bad(format!(
                    "`{w}` after the kernel's path: `# kernel:` takes `-D`, `-I`, \
                     `--function` and `--scop`"
                )))
            }
        }
    }
    let kernel = dir.join(path);
    if !kernel.is_file() {
        return Err(bad(format!(
            "the kernel `{}` named on the first line does not exist (paths are relative to \
             the script's folder, here `{}`)",
            path,
            dir.display()
        )));
    }
    Ok(Some(Located {
        how: format!("`{path}`, named on the first line"),
        kernel,
        opts,
        settings: Settings::default(),
        line: Some(0..end),
    }))
}

/// The entry of the nearest `loopy.toml` (the script's folder, then each folder above) whose
/// script is this one.
fn from_manifest(script: &Path) -> Option<Located> {
    let me = script.canonicalize().ok()?;
    let mut dir = me.parent();
    while let Some(d) = dir {
        let m = d.join("loopy.toml");
        if m.is_file() {
            if let Ok(entries) = crate::manifest::parse(&m) {
                if let Some(e) = entries
                    .into_iter()
                    .find(|e| e.script.canonicalize().ok().as_ref() == Some(&me))
                {
                    return Some(Located {
                        how: format!("the entry of `{}` that names this script", m.display()),
                        kernel: e.kernel,
                        opts: e.opts,
                        settings: e.settings,
                        line: None,
                    });
                }
            }
        }
        dir = d.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("loopy-locate-{}", std::process::id()));
        std::fs::create_dir_all(d.join("sub")).unwrap();
        d
    }

    #[test]
    fn first_line_beside_and_missing() {
        let d = dir();
        std::fs::write(d.join("k.c"), "int x;\n").unwrap();
        std::fs::write(d.join("sub/other.c"), "int y;\n").unwrap();
        let s = d.join("k.loopy");
        let l = locate(&s, "tile(S0, [4])\n").unwrap();
        assert_eq!(l.kernel, d.join("k.c"));
        let l = locate(&s, "# kernel: sub/other.c -D N=4 --function f\n").unwrap();
        assert_eq!(l.kernel, d.join("sub/other.c"));
        assert_eq!(l.opts.defines, vec!["N=4".to_string()]);
        assert_eq!(l.opts.function.as_deref(), Some("f"));
        assert_eq!(l.line, Some(0..41));
        let e = locate(&s, "# kernel: nope.c\n").unwrap_err();
        assert!(e.message.contains("does not exist"), "{}", e.message);
        let e = locate(&d.join("lonely.loopy"), "x\n").unwrap_err();
        assert!(e.message.contains("lonely.c"), "{}", e.message);
        let e = locate(&s, "# kernel: k.c --fast\n").unwrap_err();
        assert!(e.message.contains("--fast"), "{}", e.message);
    }

    #[test]
    fn a_manifest_entry() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        let l = locate(&root.join("gemm/gemm-fast.loopy"), "").unwrap();
        assert!(l.kernel.ends_with("gemm/gemm.c"), "{:?}", l.kernel);
        assert!(l.how.contains("loopy.toml"), "{}", l.how);
    }
}
