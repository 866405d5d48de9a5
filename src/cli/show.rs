//! `loopy show`: the polyhedral model of a C kernel.

use super::Ctx;
use crate::frontend::{self, Options};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The C file. The region between `#pragma scop` and `#pragma endscop` is modelled.
    pub file: PathBuf,
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
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

pub fn run(a: ShowArgs, ctx: &Ctx) -> u8 {
    let opts = Options {
        includes: a.include,
        defines: a.define,
        function: a.function,
        scop: a.scop,
    };
    match frontend::extract_file(&a.file, &opts) {
        Ok(scop) => {
            match a.format {
                Format::Text => print!("{}", scop.to_text()),
                Format::Json => println!("{}", scop.to_json().pretty()),
            }
            0
        }
        Err(e) => {
            eprint!("{}", e.render(ctx.color));
            2
        }
    }
}
