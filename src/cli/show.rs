//! `loopy show`: the polyhedral model of a C kernel.

use super::Ctx;
use super::{CcArgs, Format, SetArgs};
use crate::driver::Kernel;
use crate::model::json::{self, Entries};
use crate::model::render::render_state;
use crate::model::state::State;
use crate::presburger::Int;
use crate::script::interp::Interpreter;
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The C file. The region between `#pragma scop` and `#pragma endscop` is modelled.
    pub file: PathBuf,
    #[command(flatten)]
    pub cc: CcArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also run this `.loopy` script and print the schedules and loop components after it.
    #[arg(long, value_name = "SCRIPT")]
    pub script: Option<PathBuf>,
    /// With `--script`: print the schedules after every operation.
    #[arg(long, requires = "script")]
    pub trace: bool,
    #[command(flatten)]
    pub sets: SetArgs,
}

pub fn run(a: ShowArgs, ctx: &Ctx) -> u8 {
    let opts = a.cc.options();
    let settings =
        match a
            .sets
            .settings_if_script(a.script.is_some(), "; add `--script SCRIPT`", ctx)
        {
            Ok(s) => s,
            Err(code) => return code,
        };
    let loaded = Kernel::load(&a.file, &opts);
    if super::spent() {
        return 2;
    }
    let kernel = match loaded {
        Ok(k) => k,
        Err(e) => {
            eprint!("{}", e.render(ctx.color));
            return 2;
        }
    };
    let Some(script) = a.script else {
        match a.format {
            Format::Text => print!("{}", kernel.scop.to_text()),
            Format::Json => println!("{}", kernel.scop.to_json().pretty()),
        }
        return 0;
    };
    let name = script.display().to_string();
    let text = match std::fs::read_to_string(&script) {
        Ok(t) => t,
        Err(e) => {
            return super::error(
                ctx,
                crate::diag::Diagnostic::new(
                    crate::diag::codes::CANNOT_READ,
                    format!("cannot read `{name}`: {e}"),
                ),
            );
        }
    };
    let base = script.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut interp = Interpreter::new(State::from_scop(&kernel.scop));
    interp.set_settings(crate::driver::with_model(
        settings,
        &text,
        &crate::driver::native_toolchain(),
    ));
    if a.trace && a.format == Format::Text {
        print!("{}", kernel.scop.to_text());
        println!("\nbefore the script:");
        print!("{}", render_state(&interp.state));
        interp.on_step = Some(Box::new(|step, state| {
            if super::spent() {
                return;
            }
            println!("\nafter step {}: {}", step.number, step.text.trim());
            print!("{}", render_state(state));
        }));
    }
    let ran = interp
        .run_text(&text, &name, &base)
        .and_then(|()| interp.check_settings_declared());
    if super::spent() {
        return 2;
    }
    if let Err(d) = ran {
        let mut sources = kernel.sources.clone();
        sources.extend(interp.sources.iter().cloned());
        let srcs: Vec<(&str, &str)> = sources
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        eprint!("{}", d.render(&srcs, ctx.color));
        return 2;
    }
    match a.format {
        Format::Text if !a.trace => {
            let program = crate::verify::Program::for_state(&kernel.scop, &interp.state);
            let deps = crate::verify::dependences(&program);
            let loops =
                crate::verify::marks::render_parallel_loops(&program, &deps, &interp.state.pieces);
            if super::spent() {
                return 2;
            }
            print!("{}", kernel.scop.to_text());
            println!("\nafter {name}:");
            print!("{}", render_params(&interp));
            print!("{}", render_state(&interp.state));
            print!("{loops}");
        }
        Format::Text => print!("\n{}", render_params(&interp)),
        Format::Json => {
            let parameters = interp
                .params
                .iter()
                .map(|p| {
                    let param = ParamJson {
                        value: &p.value,
                        from: p.origin(),
                    };
                    (p.name.as_str(), param)
                })
                .collect();
            let j = StateJson {
                parameters: Entries(parameters),
                ..StateJson::of(&kernel, &interp.state)
            };
            println!("{}", json::pretty(&j))
        }
    }
    0
}

/// `script parameters: MC = 96 (--set), KC = 256 (default)`: the values in force (nothing when the
/// script declares none).
pub fn render_params(interp: &Interpreter) -> String {
    if interp.params.is_empty() {
        return String::new();
    }
    let all: Vec<String> = interp.params.iter().map(|p| p.describe()).collect();
    format!("script parameters: {}\n", all.join(", "))
}

/// What `loopy show --script S --format json` prints: the schedules and loop components
/// after the script, and its parameters.
#[derive(Serialize)]
struct StateJson<'a> {
    file: &'a str,
    schedules: Vec<ScheduleJson<'a>>,
    components: Entries<&'a str, Vec<Vec<i64>>>,
    parameters: Entries<&'a str, ParamJson<'a>>,
}

#[derive(Serialize)]
struct ScheduleJson<'a> {
    statement: &'a str,
    label: Option<&'a str>,
    domain: String,
    schedule: String,
    marks: Vec<MarkJson>,
    copies: Vec<CopyJson<'a>>,
}

#[derive(Serialize)]
struct MarkJson {
    /// 1-based.
    #[serde(rename = "loop")]
    at: usize,
    mark: String,
}

#[derive(Serialize)]
struct CopyJson<'a> {
    array: &'a str,
    loops: usize,
    limit: u64,
}

#[derive(Serialize)]
struct ParamJson<'a> {
    #[serde(serialize_with = "json::int")]
    value: &'a Int,
    from: String,
}

impl<'a> StateJson<'a> {
    fn of(k: &'a Kernel, st: &'a State) -> Self {
        let schedules = st
            .pieces
            .iter()
            .map(|p| ScheduleJson {
                statement: &k.scop.statements[p.stmt].name,
                label: k.scop.statements[p.stmt].label.as_deref(),
                domain: p.domain.for_print().to_string(),
                schedule: p.schedule().for_print().to_string(),
                marks: p
                    .marks
                    .iter()
                    .map(|m| MarkJson {
                        at: m.dim + 1,
                        mark: m.kind.describe(),
                    })
                    .collect(),
                copies: p
                    .copies
                    .iter()
                    .map(|c| CopyJson {
                        array: &c.array,
                        loops: c.outer,
                        limit: c.limit,
                    })
                    .collect(),
            })
            .collect();
        let components = st
            .handles
            .iter()
            .map(|(h, c)| {
                let ps = st.components[*c].positions.iter();
                let ps = ps.map(|p| p.iter().map(|v| v.to_i64().unwrap_or(0)).collect());
                (h.as_str(), ps.collect())
            })
            .collect();
        StateJson {
            file: &k.scop.file,
            schedules,
            components: Entries(components),
            parameters: Entries(Vec::new()),
        }
    }
}
