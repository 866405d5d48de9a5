//! `loopy check`: is a script legal for a kernel? The CI gate.

use super::{CcArgs, Ctx, SetArgs};
use crate::diag::Report;
use crate::driver::load_and_run;
use crate::frontend::Options;
use crate::manifest;
use crate::script::params::Settings;
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
    #[arg(long, conflicts_with_all = ["kernel", "script", "set"])]
    pub manifest: Option<PathBuf>,
    /// When the script is illegal, also print the smallest change of the same kind that
    /// makes it legal (as `loopy suggest` does).
    #[arg(long, conflicts_with = "manifest")]
    pub suggest: bool,
    #[command(flatten)]
    pub cc: CcArgs,
    #[command(flatten)]
    pub sets: SetArgs,
}

/// The outcome of one check.
pub enum CheckVerdict {
    Legal { deps: usize },
    Illegal { reports: Vec<Report> },
    BadInput(Report),
}

/// Checks one pair, with `settings` for the script's parameters.
pub fn check_one(
    kernel: &Path,
    script: &Path,
    opts: &Options,
    settings: &Settings,
) -> CheckVerdict {
    let (k, run) = match load_and_run(kernel, script, opts, settings) {
        Ok(x) => x,
        Err(f) => return CheckVerdict::BadInput(f),
    };
    let v = run.check();
    if v.is_empty() {
        // What `loopy apply` would refuse for want of an iterator's value is refused here
        // the same way: check and apply never disagree on a schedule's code.
        let pieces: Vec<_> = (run.interp.state.pieces.iter())
            .map(|p| (p.stmt, p.schedule()))
            .collect();
        if let Err(d) = crate::codegen::check_determined(&k.scop, &pieces) {
            return CheckVerdict::BadInput(Report {
                diagnostic: d,
                sources: k.sources.clone(),
            });
        }
        CheckVerdict::Legal {
            deps: run.deps.len(),
        }
    } else {
        CheckVerdict::Illegal {
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
    let settings = match a.sets.settings() {
        Ok(s) => s,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    match check_one(&kernel, &script, &a.cc.options(), &settings) {
        CheckVerdict::Legal { deps } => {
            println!(
                "legal: {} preserves all {deps} dependences of {} and is one-to-one",
                script.display(),
                kernel.display()
            );
            0
        }
        CheckVerdict::Illegal { reports } => {
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
        CheckVerdict::BadInput(f) => {
            eprint!("{}", f.render(ctx.color));
            2
        }
    }
}

fn manifest(path: &Path, extra: &CcArgs, ctx: &Ctx) -> u8 {
    let entries = match manifest::parse(path) {
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
        let verdict = check_one(&e.kernel, &e.script, &e.opts, &e.settings);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let pair = format!("{} + {}", e.kernel.display(), e.script.display());
        match verdict {
            CheckVerdict::Legal { deps } if e.expect_legal => {
                ok += 1;
                println!("ok       {pair}: legal, {deps} dependences ({ms:.0} ms)");
            }
            CheckVerdict::Legal { .. } => {
                wrong += 1;
                println!("FAILED   {pair}: legal, but the manifest expects it to be illegal");
            }
            CheckVerdict::Illegal { reports } if !e.expect_legal => {
                ok += 1;
                println!(
                    "ok       {pair}: illegal as expected ({} violation(s), {ms:.0} ms)",
                    reports.len()
                );
            }
            CheckVerdict::Illegal { reports } => {
                wrong += 1;
                println!("ILLEGAL  {pair}: {} violation(s)", reports.len());
                for r in &reports {
                    eprint!("{}", r.render(ctx.color));
                }
            }
            CheckVerdict::BadInput(f) => {
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

/// `check --suggest`: the check, then for an illegal script a suggestion. Each script checked
/// gets the work budget of its own.
pub fn run_suggest(a: CheckArgs, ctx: &Ctx) -> u8 {
    let (kernel, script) = (
        a.kernel.clone().expect("clap requires it"),
        a.script.clone().expect("clap requires it"),
    );
    let opts = a.cc.options();
    let settings = match a.sets.settings() {
        Ok(s) => s,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let verdict = match crate::presburger::budget::with_budget(ctx.budget, || {
        check_one(&kernel, &script, &opts, &settings)
    }) {
        Ok(v) => v,
        Err(e) => {
            eprint!("{}", super::budget_diagnostic(&e).render(&[], ctx.color));
            return 2;
        }
    };
    let CheckVerdict::Illegal { reports } = verdict else {
        return super::budgeted(ctx, || run(a, ctx));
    };
    for r in &reports {
        eprint!("{}", r.render(ctx.color));
    }
    println!(
        "illegal: {} ({} violation(s))",
        script.display(),
        reports.len()
    );
    let Ok(k) = crate::driver::Kernel::load(&kernel, &opts) else {
        return 1;
    };
    let Ok(text) = std::fs::read_to_string(&script) else {
        return 1;
    };
    let name = script.display().to_string();
    let base = script.parent().unwrap_or(Path::new(".")).to_path_buf();
    let Ok(mut run) =
        crate::presburger::budget::with_budget(ctx.budget, || crate::driver::Run::start(&k))
    else {
        return 1;
    };
    run.interp.set_settings(crate::driver::with_model(
        settings,
        &text,
        &crate::driver::native_toolchain(),
    ));
    let s = crate::suggest::suggest(&k, &mut run, &text, &name, &base, 300, ctx.budget);
    print!("{}", crate::suggest::render(&s));
    1
}
