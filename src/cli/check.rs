//! `loopy check`: is a script legal for a kernel? The CI gate.

use super::Ctx;
use crate::driver::{Failure, Kernel, Run};
use crate::frontend::Options;
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The C file with the tagged kernel.
    #[arg(required_unless_present = "manifest")]
    pub kernel: Option<PathBuf>,
    /// The `.loopy` script.
    #[arg(required_unless_present = "manifest")]
    pub script: Option<PathBuf>,
    /// Check every (kernel, script) pair listed in a manifest (see docs/ci.md).
    #[arg(long, conflicts_with_all = ["kernel", "script"])]
    pub manifest: Option<PathBuf>,
    #[command(flatten)]
    pub cc: CcArgs,
}

/// Preprocessor and region options shared by the commands that read a kernel.
#[derive(Args, Debug, Clone, Default)]
pub struct CcArgs {
    /// Add a directory to the preprocessor's include path (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a macro for the preprocessor: `-D N=100` (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Model this function: its `#pragma scop` region, or its whole body without one.
    #[arg(long)]
    pub function: Option<String>,
    /// Which `#pragma scop` region when the file has several (counting from 0).
    #[arg(long, value_name = "N")]
    pub scop: Option<usize>,
}

impl CcArgs {
    pub fn options(&self) -> Options {
        Options {
            includes: self.include.clone(),
            defines: self.define.clone(),
            function: self.function.clone(),
            scop: self.scop,
        }
    }
}

/// The outcome of one check.
pub enum Verdict {
    Legal { deps: usize },
    Illegal { reports: Vec<Failure> },
    BadInput(Failure),
}

/// Loads a kernel and runs a script on it (without verifying).
pub fn load_and_run(
    kernel: &Path,
    script: &Path,
    opts: &Options,
) -> Result<(Kernel, Run), Failure> {
    let k = Kernel::load(kernel, opts)?;
    let name = script.display().to_string();
    let text = std::fs::read_to_string(script).map_err(|e| Failure {
        diagnostic: crate::diag::Diagnostic::new(format!("cannot read `{name}`: {e}")),
        sources: vec![],
    })?;
    let base = script.parent().unwrap_or(Path::new("."));
    let run = Run::new(&k, &text, &name, base)?;
    Ok((k, run))
}

/// Checks one pair.
pub fn check_one(kernel: &Path, script: &Path, opts: &Options) -> Verdict {
    let (k, run) = match load_and_run(kernel, script, opts) {
        Ok(x) => x,
        Err(f) => return Verdict::BadInput(f),
    };
    let v = run.check();
    if v.is_empty() {
        Verdict::Legal {
            deps: run.deps.len(),
        }
    } else {
        Verdict::Illegal {
            reports: run.reports(&k, &v),
        }
    }
}

pub fn run(a: CheckArgs, ctx: &Ctx) -> u8 {
    if let Some(m) = &a.manifest {
        return manifest(m, &a.cc, ctx);
    }
    let (kernel, script) = (
        a.kernel.expect("clap requires it"),
        a.script.expect("clap requires it"),
    );
    match check_one(&kernel, &script, &a.cc.options()) {
        Verdict::Legal { deps } => {
            println!(
                "legal: {} preserves all {deps} dependences of {} and is one-to-one",
                script.display(),
                kernel.display()
            );
            0
        }
        Verdict::Illegal { reports } => {
            for r in &reports {
                eprint!("{}", r.render(ctx.color));
            }
            println!(
                "illegal: {} ({} violation(s))",
                script.display(),
                reports.len()
            );
            1
        }
        Verdict::BadInput(f) => {
            eprint!("{}", f.render(ctx.color));
            2
        }
    }
}

/// One entry of a manifest.
pub(super) struct Entry {
    pub kernel: PathBuf,
    pub script: PathBuf,
    pub opts: Options,
    pub expect_legal: bool,
    /// The keys `loopy bench` reads (validated here too, so a typo fails both commands).
    pub bench: super::bench::ManifestBench,
}

fn manifest_error(
    path: &str,
    text: &str,
    span: Option<std::ops::Range<usize>>,
    msg: String,
) -> Failure {
    let mut d = crate::diag::Diagnostic::new(msg.clone());
    if let Some(s) = span {
        d = d.with_label(path, s, msg);
    }
    Failure {
        diagnostic: d,
        sources: vec![(path.to_string(), text.to_string())],
    }
}

pub(super) fn parse_manifest(path: &Path) -> Result<Vec<Entry>, Failure> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| manifest_error(&name, "", None, format!("cannot read `{name}`: {e}")))?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        manifest_error(&name, &text, e.span(), e.message().to_string())
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let bad = |msg: String| manifest_error(&name, &text, None, msg);
    let checks = match table.get("check") {
        Some(toml::Value::Array(a)) => a,
        _ => return Err(bad("the manifest has no `[[check]]` entries".to_string())),
    };
    let mut out = vec![];
    for (i, c) in checks.iter().enumerate() {
        let t = c
            .as_table()
            .ok_or_else(|| bad(format!("check #{}: expected a table", i + 1)))?;
        for key in t.keys() {
            if ![
                "kernel", "script", "include", "define", "function", "scop", "expect",
            ]
            .contains(&key.as_str())
                && !super::bench::MANIFEST_KEYS.contains(&key.as_str())
            {
                return Err(bad(format!("check #{}: unknown key `{key}`", i + 1)));
            }
        }
        let string = |k: &str| -> Result<Option<String>, Failure> {
            match t.get(k) {
                None => Ok(None),
                Some(toml::Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad(format!("check #{}: `{k}` must be a string", i + 1))),
            }
        };
        let list = |k: &str| -> Result<Vec<String>, Failure> {
            match t.get(k) {
                None => Ok(vec![]),
                Some(toml::Value::Array(a)) => a
                    .iter()
                    .map(|v| {
                        v.as_str().map(str::to_string).ok_or_else(|| {
                            bad(format!("check #{}: `{k}` must be a list of strings", i + 1))
                        })
                    })
                    .collect(),
                Some(_) => Err(bad(format!(
                    "check #{}: `{k}` must be a list of strings",
                    i + 1
                ))),
            }
        };
        let kernel = string("kernel")?
            .ok_or_else(|| bad(format!("check #{}: `kernel` is missing", i + 1)))?;
        let script = string("script")?
            .ok_or_else(|| bad(format!("check #{}: `script` is missing", i + 1)))?;
        let expect_legal = match string("expect")?.as_deref() {
            None | Some("legal") => true,
            Some("illegal") => false,
            Some(x) => {
                return Err(bad(format!(
                    "check #{}: `expect` is \"legal\" or \"illegal\", not \"{x}\"",
                    i + 1
                )))
            }
        };
        let scop = match t.get("scop") {
            None => None,
            Some(toml::Value::Integer(n)) if *n >= 0 => Some(*n as usize),
            Some(_) => {
                return Err(bad(format!(
                    "check #{}: `scop` must be a non-negative integer",
                    i + 1
                )))
            }
        };
        out.push(Entry {
            kernel: dir.join(kernel),
            script: dir.join(script),
            opts: Options {
                includes: list("include")?.into_iter().map(|p| dir.join(p)).collect(),
                defines: list("define")?,
                function: string("function")?,
                scop,
            },
            expect_legal,
            bench: super::bench::parse_manifest_bench(t, i + 1, dir, &bad)?,
        });
    }
    Ok(out)
}

fn manifest(path: &Path, extra: &CcArgs, ctx: &Ctx) -> u8 {
    let entries = match parse_manifest(path) {
        Ok(e) => e,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let (mut ok, mut wrong, mut errors) = (0, 0, 0);
    for mut e in entries {
        e.opts.includes.extend(extra.include.iter().cloned());
        e.opts.defines.extend(extra.define.iter().cloned());
        let start = Instant::now();
        let verdict = check_one(&e.kernel, &e.script, &e.opts);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let pair = format!("{} + {}", e.kernel.display(), e.script.display());
        match verdict {
            Verdict::Legal { deps } if e.expect_legal => {
                ok += 1;
                println!("ok       {pair}: legal, {deps} dependences ({ms:.0} ms)");
            }
            Verdict::Legal { .. } => {
                wrong += 1;
                println!("FAILED   {pair}: legal, but the manifest expects it to be illegal");
            }
            Verdict::Illegal { reports } if !e.expect_legal => {
                ok += 1;
                println!(
                    "ok       {pair}: illegal as expected ({} violation(s), {ms:.0} ms)",
                    reports.len()
                );
            }
            Verdict::Illegal { reports } => {
                wrong += 1;
                println!("ILLEGAL  {pair}: {} violation(s)", reports.len());
                for r in &reports {
                    eprint!("{}", r.render(ctx.color));
                }
            }
            Verdict::BadInput(f) => {
                errors += 1;
                println!("ERROR    {pair}: {}", f.diagnostic.message);
                eprint!("{}", f.render(ctx.color));
            }
        }
    }
    println!("{ok} passed, {} failed", wrong + errors);
    if errors > 0 {
        2
    } else if wrong > 0 {
        1
    } else {
        0
    }
}
