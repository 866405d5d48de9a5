//! `loopy deps`: the exact dependences of a kernel, and which loop carries each.

use super::Ctx;
use super::{CcArgs, Format};
use crate::driver::Kernel;
use crate::model::json;
use crate::presburger::Map;
use crate::verify::deps::render_deps;
use crate::verify::{self, Level, Program};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DepsArgs {
    /// The C file with the kernel.
    pub kernel: PathBuf,
    #[command(flatten)]
    pub cc: CcArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(a: DepsArgs, ctx: &Ctx) -> u8 {
    let loaded = Kernel::load(&a.kernel, &a.cc.options());
    if super::spent() {
        return 2;
    }
    let k = match loaded {
        Ok(k) => k,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let program = Program::from_scop(&k.scop);
    let deps = verify::dependences(&program);
    if super::spent() {
        return 2;
    }
    match a.format {
        Format::Text => print!("{}", render_deps(&k.scop, &deps)),
        Format::Json => {
            let stmt = |i: usize| &k.scop.statements[i];
            let arr: Vec<DepJson> = deps
                .iter()
                .map(|d| DepJson {
                    kind: d.kind.name(),
                    array: &d.array,
                    source: &stmt(d.source).name,
                    sink: &stmt(d.sink).name,
                    source_line: stmt(d.source).span.line,
                    sink_line: stmt(d.sink).span.line,
                    pieces: d.pieces.iter().map(PieceJson::of).collect(),
                })
                .collect();
            println!("{}", json::pretty(&arr));
        }
    }
    0
}

/// One dependence in `loopy deps --format json`.
#[derive(Serialize)]
struct DepJson<'a> {
    kind: &'static str,
    array: &'a str,
    source: &'a str,
    sink: &'a str,
    source_line: usize,
    sink_line: usize,
    pieces: Vec<PieceJson>,
}

/// The part of a dependence one level carries.
#[derive(Serialize)]
struct PieceJson {
    level: &'static str,
    depth: usize,
    relation: String,
}

impl PieceJson {
    fn of((l, m): &(Level, Map)) -> Self {
        let (level, depth) = match l {
            Level::Loop(n) => ("loop", *n),
            Level::Text(n) => ("text", *n),
        };
        PieceJson {
            level,
            depth,
            relation: m.for_print().to_string(),
        }
    }
}
