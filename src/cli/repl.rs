//! `loopy repl`: apply script statements one at a time, look at the schedules, the code and
//! the verdict as you go (see docs/repl.md).

use super::bench::{self, BenchArgs};
use super::CcArgs;
use super::Ctx;
use crate::repl::{terminal, Output, Session};
use clap::{Args, Parser};
use std::path::{Path, PathBuf};

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
    session.set_bench(bench_hook(a.cc.clone(), ctx.color));
    let first = match &a.script {
        Some(s) => session.load(s),
        None => Output::default(),
    };
    terminal::run(&mut session, first);
    0
}

/// `:bench OPTIONS` is `loopy bench KERNEL SCRIPT OPTIONS` with the REPL's preprocessor and
/// region options.
#[derive(Parser, Debug)]
#[command(name = ":bench", no_binary_name = true)]
struct BenchLine {
    #[command(flatten)]
    args: BenchArgs,
}

fn bench_hook(cc: CcArgs, color: bool) -> crate::repl::BenchHook {
    Box::new(move |kernel: &Path, script: &Path, words: &[String]| {
        let mut argv: Vec<String> =
            vec![kernel.display().to_string(), script.display().to_string()];
        argv.extend(words.iter().cloned());
        let mut line = match BenchLine::try_parse_from(argv) {
            Ok(l) => l,
            Err(e) => {
                let text = e.render().to_string();
                return if e.use_stderr() {
                    Output {
                        err: text,
                        ..Output::default()
                    }
                } else {
                    Output {
                        out: text,
                        ..Output::default()
                    }
                };
            }
        };
        let c = &mut line.args.cc;
        // The REPL's first, so that options typed after `:bench` come last and win.
        c.include.splice(0..0, cc.include.iter().cloned());
        c.define.splice(0..0, cc.define.iter().cloned());
        c.function = c.function.take().or_else(|| cc.function.clone());
        c.scop = c.scop.or(cc.scop);
        bench::run(line.args, &Ctx { color });
        Output::default()
    })
}
