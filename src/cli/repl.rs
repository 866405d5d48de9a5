//! `loopy repl`: apply script statements one at a time, look at the schedules, the code and
//! the verdict as you go (see docs/repl.md).

use super::bench::{self, BenchArgs};
use super::Ctx;
use super::{CcArgs, SetArgs};
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
    #[command(flatten)]
    pub sets: SetArgs,
}

pub fn run(a: ReplArgs, ctx: &Ctx) -> u8 {
    let settings =
        match a
            .sets
            .settings_if_script(a.script.is_some(), ", and no script is given", ctx)
        {
            Ok(s) => s,
            Err(code) => return code,
        };
    let mut session = match Session::new(&a.kernel, &a.cc.options(), ctx.color) {
        Ok(s) => s,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let set_words = settings.to_args();
    session.set_settings(settings);
    session.set_bench(bench_hook(a.cc.clone(), set_words, ctx.color, ctx.budget));
    let first = match &a.script {
        Some(s) => {
            let o = session.load(s);
            // (A script that failed to load is reported as the REPL reports any input.)
            if o.err.is_empty() {
                if let Err(f) = session.settings_declared() {
                    eprint!("{}", f.render(ctx.color));
                    return 2;
                }
            }
            o
        }
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

fn bench_hook(cc: CcArgs, sets: Vec<String>, color: bool, budget: u64) -> crate::repl::BenchHook {
    Box::new(move |kernel: &Path, script: &Path, words: &[String]| {
        let mut argv: Vec<String> =
            vec![kernel.display().to_string(), script.display().to_string()];
        // The REPL's `--set` values first: the session script declares those parameters.
        argv.extend(sets.iter().cloned());
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
        let ctx = Ctx { color, budget };
        super::budgeted(&ctx, || bench::run(line.args, &ctx));
        Output::default()
    })
}
