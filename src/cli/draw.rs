//! `loopy draw`: a picture of a tag's instances before and after a script (`src/draw/`).

use super::Ctx;
use super::{CcArgs, SetArgs};
use crate::diag::Report;
use crate::draw::{self, DrawOptions};
use crate::driver::{load_and_run, Kernel, Run};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DrawArgs {
    /// The C file with the tagged kernel.
    pub kernel: PathBuf,
    /// The `.loopy` script (without one, only the original is drawn).
    pub script: Option<PathBuf>,
    /// Draw the statements of this tag (default: every statement of the region).
    #[arg(long)]
    pub tag: Option<String>,
    /// A parameter value, `--param n=8` (repeatable; parameters not given are 8).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// The iterators on the horizontal and vertical axes, `--axes i,j` (default: the two
    /// innermost loops of the deepest statement).
    #[arg(long, value_delimiter = ',', value_name = "X,Y")]
    pub axes: Option<Vec<String>>,
    /// The value of an iterator that is not on an axis, `--at t=2` (repeatable; others are
    /// fixed at their smallest value).
    #[arg(long = "at", value_name = "NAME=VALUE")]
    pub at: Vec<String>,
    /// Where to write the SVG (default: standard output).
    #[arg(short, long, value_name = "OUT.svg")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub cc: CcArgs,
    #[command(flatten)]
    pub sets: SetArgs,
}

fn assignments(flag: &str, v: &[String]) -> Result<Vec<(String, i64)>, String> {
    v.iter()
        .map(|a| {
            let (n, x) = a.split_once('=').ok_or_else(|| {
                format!("`--{flag} {a}`: expected NAME=VALUE, e.g. `--{flag} n=8`")
            })?;
            let x: i64 = x
                .trim()
                .parse()
                .map_err(|_| format!("`--{flag} {a}`: `{x}` is not an integer"))?;
            Ok((n.trim().to_string(), x))
        })
        .collect()
}

pub fn run(a: DrawArgs, ctx: &Ctx) -> u8 {
    let (params, at) = match (assignments("param", &a.params), assignments("at", &a.at)) {
        (Ok(p), Ok(t)) => (p, t),
        (Err(e), _) | (_, Err(e)) => {
            return super::error(
                ctx,
                crate::diag::Diagnostic::new(crate::diag::codes::INVALID_OPTION, e),
            );
        }
    };
    let settings =
        match a
            .sets
            .settings_if_script(a.script.is_some(), ", and no script is given", ctx)
        {
            Ok(s) => s,
            Err(code) => return code,
        };
    let loaded: Result<(Kernel, Run), Report> = match &a.script {
        Some(s) => load_and_run(&a.kernel, s, &a.cc.options(), &settings),
        None => Kernel::load(&a.kernel, &a.cc.options()).map(|k| {
            let r = Run::start(&k);
            (k, r)
        }),
    };
    if super::spent() {
        return 2;
    }
    let (kernel, run) = match loaded {
        Ok(x) => x,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let opts = DrawOptions {
        tag: a.tag.clone(),
        params,
        axes: a.axes.clone(),
        at,
        script: a.script.as_ref().map(|s| s.display().to_string()),
    };
    let picture = draw::picture(&kernel, &run, a.script.is_some(), &opts);
    if super::spent() {
        return 2;
    }
    let picture = match picture {
        Ok(p) => p,
        Err(d) => {
            let f = Report {
                diagnostic: d,
                sources: run.sources(&kernel),
            };
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let text = draw::svg(&picture);
    match &a.output {
        None => print!("{text}"),
        Some(out) => {
            if let Err(e) = std::fs::write(out, &text) {
                return super::error(
                    ctx,
                    crate::diag::Diagnostic::new(
                        crate::diag::codes::CANNOT_WRITE,
                        format!("cannot write `{}`: {e}", out.display()),
                    ),
                );
            }
            eprintln!(
                "wrote {} ({} instance(s), {} dependence arrow(s) after)",
                out.display(),
                picture.panels[0].dots.len(),
                picture.panels.last().map_or(0, |p| p.arrows.len())
            );
        }
    }
    if picture.broken > 0 {
        eprintln!(
            "the script breaks {} dependence(s) among the drawn instances (red); `loopy check` reports why",
            picture.broken
        );
        return 1;
    }
    if picture.notes.first().is_some_and(|n| n.contains("illegal")) {
        eprintln!("the script is illegal (`loopy check` reports why), though not among the drawn instances");
        return 1;
    }
    0
}
