//! `loopy repl`: apply script statements one at a time, look at the schedules, the code and
//! the verdict as you go (see docs/repl.md).

use super::check::CcArgs;
use super::Ctx;
use crate::repl::{terminal, Output, Session};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReplArgs {
    /// The C file with the tagged kernel.
    pub kernel: PathBuf,
    /// A `.loopy` script to apply first (as `:load` would).
    pub script: Option<PathBuf>,
    #[command(flatten)]
    pub cc: CcArgs,
}

pub fn run(a: ReplArgs, ctx: &Ctx) -> u8 {
    let mut session = match Session::new(&a.kernel, &a.cc.options(), ctx.color) {
        Ok(s) => s,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let first = match &a.script {
        Some(s) => session.load(s),
        None => Output::default(),
    };
    terminal::run(&mut session, first);
    0
}
