//! `loopy suggest` (and `loopy check --suggest`): for an illegal script, the smallest change
//! of the same kind — a skew factor, a shift, a fusion depth, shifts before a fusion, skews
//! before a tiling, computed from the legal-schedule space where it can be — that the
//! checker accepts, printed as script lines (docs/search.md).

use super::{CcArgs, Ctx, SetArgs};
use crate::driver::{Kernel, Run};
use crate::presburger::budget;
use crate::suggest::{render, suggest};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct SuggestArgs {
    /// The C file with the kernel.
    pub kernel: PathBuf,
    /// The illegal `.loopy` script.
    pub script: PathBuf,
    /// Check at most this many changed scripts.
    #[arg(long, value_name = "N", default_value_t = 300)]
    pub max_tries: usize,
    #[command(flatten)]
    pub cc: CcArgs,
    #[command(flatten)]
    pub sets: SetArgs,
}

pub fn run(a: SuggestArgs, ctx: &Ctx) -> u8 {
    let settings = match a.sets.settings() {
        Ok(s) => s,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let kernel = match Kernel::load(&a.kernel, &a.cc.options()) {
        Ok(k) => k,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let name = a.script.display().to_string();
    let text = match std::fs::read_to_string(&a.script) {
        Ok(t) => t,
        Err(e) => {
            return super::error(
                ctx,
                crate::diag::Diagnostic::new(
                    crate::diag::codes::CANNOT_READ,
                    format!("cannot read `{name}`: {e}"),
                ),
            );
        }
    };
    let base = a.script.parent().unwrap_or(Path::new(".")).to_path_buf();
    let settings = crate::driver::with_model(settings, &text, &crate::driver::native_toolchain());
    let first = budget::with_budget(ctx.budget, || {
        let mut run = Run::start(&kernel);
        run.interp.set_settings(settings);
        let r = run
            .apply(&kernel, &text, &name, &base)
            .and_then(|()| run.settings_declared(&kernel));
        let v = r.map(|()| run.check());
        (run, v)
    });
    let (mut run, verdict) = match first {
        Ok(x) => x,
        Err(e) => {
            eprint!("{}", super::budget_diagnostic(&e).render(&[], ctx.color));
            return 2;
        }
    };
    match verdict {
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            2
        }
        Ok(v) if v.is_empty() => {
            println!("legal already: {name} needs no change");
            0
        }
        Ok(v) => {
            println!("illegal: {name} ({} violation(s))", v.len());
            let s = suggest(
                &kernel,
                &mut run,
                &text,
                &name,
                &base,
                a.max_tries,
                ctx.budget,
            );
            print!("{}", render(&s));
            if s.is_some() {
                0
            } else {
                1
            }
        }
    }
}
