//! `loopy show`: the polyhedral model of a C kernel.

use super::Ctx;
use super::{CcArgs, Format, SetArgs};
use crate::driver::Kernel;
use crate::model::json::Json;
use crate::model::render::render_state;
use crate::model::state::State;
use crate::script::interp::Interpreter;
use clap::Args;
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
            let mut j = state_json(&kernel, &interp.state);
            if let Json::Object(fields) = &mut j {
                let params = interp
                    .params
                    .iter()
                    .map(|p| {
                        let value = p.value.to_i64().map_or_else(
                            || Json::BigInt(p.value.to_string()),
                            |v| Json::Int(v as i128),
                        );
                        let from = Json::str(p.origin());
                        (
                            p.name.clone(),
                            Json::obj(vec![("value", value), ("from", from)]),
                        )
                    })
                    .collect();
                fields.push(("parameters".to_string(), Json::Object(params)));
            }
            println!("{}", j.pretty())
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

fn state_json(k: &Kernel, st: &State) -> Json {
    Json::obj(vec![
        ("file", Json::str(&k.scop.file)),
        (
            "schedules",
            Json::Array(
                st.pieces
                    .iter()
                    .map(|p| {
                        Json::obj(vec![
                            ("statement", Json::str(&k.scop.statements[p.stmt].name)),
                            (
                                "label",
                                Json::opt_str(k.scop.statements[p.stmt].label.as_deref()),
                            ),
                            ("domain", Json::str(p.domain.for_print().to_string())),
                            ("schedule", Json::str(p.schedule().for_print().to_string())),
                            (
                                "marks",
                                Json::Array(
                                    p.marks
                                        .iter()
                                        .map(|m| {
                                            Json::obj(vec![
                                                ("loop", Json::Int(m.dim as i128 + 1)),
                                                ("mark", Json::str(m.kind.describe())),
                                            ])
                                        })
                                        .collect(),
                                ),
                            ),
                            (
                                "copies",
                                Json::Array(
                                    p.copies
                                        .iter()
                                        .map(|c| {
                                            Json::obj(vec![
                                                ("array", Json::str(&c.array)),
                                                ("loops", Json::Int(c.outer as i128)),
                                                ("limit", Json::Int(c.limit as i128)),
                                            ])
                                        })
                                        .collect(),
                                ),
                            ),
                        ])
                    })
                    .collect(),
            ),
        ),
        (
            "components",
            Json::Object(
                st.handles
                    .iter()
                    .map(|(h, c)| {
                        let ps = st.components[*c]
                            .positions
                            .iter()
                            .map(|p| {
                                Json::Array(
                                    p.iter()
                                        .map(|v| Json::Int(v.to_i64().unwrap_or(0) as i128))
                                        .collect(),
                                )
                            })
                            .collect();
                        (h.clone(), Json::Array(ps))
                    })
                    .collect(),
            ),
        ),
    ])
}
