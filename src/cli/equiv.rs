//! `loopy equiv`: do two C regions compute the same values?

use super::{CcArgs, Ctx, Format};
use crate::driver::Kernel;
use crate::equiv::{self, report, Verdict};
use crate::presburger::budget;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct EquivArgs {
    /// The original C file.
    pub original: PathBuf,
    /// The other C file (transformed, hand-tuned).
    pub other: PathBuf,
    /// Preprocessor and region options, for both files.
    #[command(flatten)]
    pub cc: CcArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(a: EquivArgs, ctx: &Ctx) -> u8 {
    let opts = crate::frontend::Options {
        read_generated: true,
        ..a.cc.options()
    };
    // Modelling both files has a work budget of its own, as the check has: the loop
    // bounds of generated code can take the integer core long.
    let loaded = budget::with_budget(ctx.budget, || {
        [&a.original, &a.other]
            .into_iter()
            .map(|f| Kernel::load_versions(f, &opts))
            .collect::<Result<Vec<_>, _>>()
    });
    let kernels = match loaded {
        Ok(Ok(k)) => k,
        Ok(Err(e)) => {
            eprint!("{}", e.render(ctx.color));
            return 2;
        }
        Err(e) => {
            eprint!(
                "{}",
                super::plain(super::budget_diagnostic(&e)).render(ctx.color)
            );
            return 2;
        }
    };
    let sa: Vec<_> = kernels[0].iter().map(|k| &k.scop).collect();
    let sb: Vec<_> = kernels[1].iter().map(|k| &k.scop).collect();
    let ticker = super::Ticker::new(format!("equiv {}", a.other.display()));
    let (v, first, second) = equiv::check_versions(&sa, &sb, ctx.budget, &|m| ticker.show(m));
    ticker.clear();
    let code = match &v {
        Verdict::Equivalent { .. } => 0,
        Verdict::Different(_) => 1,
        Verdict::Undecided(_) => 2,
    };
    match a.format {
        Format::Json => {
            let j = report::json(&v, first, second);
            println!("{}", crate::model::json::pretty(&j))
        }
        Format::Text => {
            println!("{}", report::summary(&v, first));
            if let Some(r) = report::report(&v, first, second) {
                eprint!("{}", r.render(ctx.color));
            }
        }
    }
    code
}
