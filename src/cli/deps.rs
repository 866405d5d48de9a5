//! `loopy deps`: the exact dependences of a kernel, and which loop carries each.

use super::Ctx;
use super::{CcArgs, Format};
use crate::driver::Kernel;
use crate::model::json::Json;
use crate::verify::deps::render_deps;
use crate::verify::{self, Level, Program};
use clap::Args;
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
            let arr = deps
                .iter()
                .map(|d| {
                    Json::obj(vec![
                        ("kind", Json::str(d.kind.name())),
                        ("array", Json::str(&d.array)),
                        ("source", Json::str(&k.scop.statements[d.source].name)),
                        ("sink", Json::str(&k.scop.statements[d.sink].name)),
                        (
                            "source_line",
                            Json::Int(k.scop.statements[d.source].span.line as i128),
                        ),
                        (
                            "sink_line",
                            Json::Int(k.scop.statements[d.sink].span.line as i128),
                        ),
                        (
                            "pieces",
                            Json::Array(
                                d.pieces
                                    .iter()
                                    .map(|(l, m)| {
                                        let (kind, n) = match l {
                                            Level::Loop(n) => ("loop", *n),
                                            Level::Text(n) => ("text", *n),
                                        };
                                        Json::obj(vec![
                                            ("level", Json::str(kind)),
                                            ("depth", Json::Int(n as i128)),
                                            ("relation", Json::str(m.for_print().to_string())),
                                        ])
                                    })
                                    .collect(),
                            ),
                        ),
                    ])
                })
                .collect();
            println!("{}", Json::Array(arr).pretty());
        }
    }
    0
}
