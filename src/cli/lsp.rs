//! `loopy lsp`: the language server, over standard input and output.

use super::Ctx;
use crate::diag::{codes, Diagnostic};
use clap::Args;

#[derive(Args, Debug)]
pub struct LspArgs {
    /// Talk over standard input and output (the only transport; accepted because editors'
    /// clients pass it).
    #[arg(long)]
    pub stdio: bool,
}

pub fn run(_a: LspArgs, ctx: &Ctx) -> u8 {
    match crate::lsp::serve_stdio(ctx.budget) {
        Ok(()) => 0,
        Err(e) => super::error(
            ctx,
            Diagnostic::new(
                codes::LSP_CONNECTION,
                format!("the language server stopped: {e}"),
            ),
        ),
    }
}
