//! `loopy equiv`: do two C regions compute the same values?

use super::{CcArgs, Ctx, Format};
use crate::driver::Kernel;
use crate::equiv::{self, report, Verdict};
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
    let opts = a.cc.options();
    let mut kernels = vec![];
    for f in [&a.original, &a.other] {
        match Kernel::load(f, &opts) {
            Ok(k) => kernels.push(k),
            Err(e) => {
                eprint!("{}", e.render(ctx.color));
                return 2;
            }
        }
    }
    let (ka, kb) = (&kernels[0], &kernels[1]);
    let v = equiv::check(&ka.scop, &kb.scop, ctx.budget);
    let code = match &v {
        Verdict::Equivalent { .. } => 0,
        Verdict::Different(_) => 1,
        Verdict::Undecided(_) => 2,
    };
    match a.format {
        Format::Json => {
            let j = report::json(&v, &ka.scop, &kb.scop);
            println!("{}", crate::model::json::pretty(&j))
        }
        Format::Text => {
            println!("{}", report::summary(&v, &ka.scop));
            if let Some(r) = report::report(&v, &ka.scop, &kb.scop) {
                eprint!("{}", r.render(ctx.color));
            }
        }
    }
    code
}
