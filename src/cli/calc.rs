//! `loopy calc`: the Presburger core from the shell.

use super::Ctx;
use crate::diag::Diagnostic;
use crate::presburger::{self, fmt_point, Int, Map, ParseError, Set};
use clap::{Args, Subcommand};

#[derive(Subcommand, Debug)]
pub enum CalcCommand {
    /// Print `true` if the set has no integer point for any parameter value, else `false`.
    Empty(One),
    /// Print one integer point with the parameter values it exists for, or `none`.
    Sample(One),
    /// Print every integer point, one per line, in lexicographic order.
    ///
    /// Every parameter needs a value (`--param N=5`) and the set must be bounded.
    Points {
        #[command(flatten)]
        one: One,
        /// Stop with an error past this many points.
        #[arg(long, default_value_t = 1_000_000)]
        limit: usize,
    },
    /// Print the image of SET under MAP.
    Apply {
        /// A map in isl notation, e.g. '{ [i, j] -> [j, i] }'.
        map: String,
        #[command(flatten)]
        one: One,
    },
    /// Print the lexicographic minimum (parametric when parameters are left free).
    Lexmin(One),
    /// Print the lexicographic maximum (parametric when parameters are left free).
    Lexmax(One),
    /// Parse, simplify and print a set or map.
    Simplify(One),
}

#[derive(Args, Debug)]
pub struct One {
    /// A set (or map) in isl notation, e.g. '[N] -> { [i, j] : 0 <= i < N and 0 <= j <= i }'.
    pub set: String,
    /// Fix a parameter: `--param N=5` (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, Int)>,
}

fn parse_param(s: &str) -> Result<(String, Int), String> {
    let (n, v) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, found `{s}`"))?;
    let v: Int = v
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not an integer", v.trim()))?;
    Ok((n.trim().to_string(), v))
}

/// Either a printed result or a diagnostic with the argument texts it refers to.
type Failure = (Diagnostic, Vec<(&'static str, String)>);
type Outcome = Result<String, Failure>;

pub fn run(cmd: CalcCommand, ctx: &Ctx) -> u8 {
    match exec(cmd) {
        Ok(out) => {
            println!("{out}");
            0
        }
        Err((d, sources)) => {
            let srcs: Vec<(&str, &str)> = sources.iter().map(|(n, t)| (*n, t.as_str())).collect();
            eprint!("{}", d.render(&srcs, ctx.color));
            2
        }
    }
}

fn parse_err(name: &'static str, text: &str, e: ParseError) -> Failure {
    let mut d =
        Diagnostic::new(e.message.clone()).with_label(name, e.span.clone(), e.message.clone());
    if let Some(h) = e.help {
        d = d.with_help(h);
    }
    (d, vec![(name, text.to_string())])
}

fn set_arg(one: &One) -> Result<Set, Failure> {
    let s = presburger::parse_set(&one.set, &[]).map_err(|e| parse_err("SET", &one.set, e))?;
    fix(s, &one.params, &one.set)
}

fn fix(mut s: Set, params: &[(String, Int)], text: &str) -> Result<Set, Failure> {
    for (n, v) in params {
        s = s.fix_param(n, v).ok_or_else(|| {
            (
                Diagnostic::new(format!("`--param {n}=...`: the set has no parameter `{n}`"))
                    .with_label(
                        "SET",
                        0..text.len(),
                        format!("parameters here: {}", param_list(&s)),
                    ),
                vec![("SET", text.to_string())],
            )
        })?;
    }
    Ok(s)
}

fn param_list(s: &Set) -> String {
    if s.space().params.is_empty() {
        "none".to_string()
    } else {
        s.space().params.join(", ")
    }
}

fn bound_err(one: &One, e: presburger::BoundError) -> Failure {
    let mut d = Diagnostic::new(e.to_string()).with_label("SET", 0..one.set.len(), e.to_string());
    if let presburger::BoundError::FreeParams(ps) = &e {
        d = d.with_help(format!(
            "give every parameter a value, e.g. `--param {}=4`",
            ps[0]
        ));
    }
    (d, vec![("SET", one.set.clone())])
}

fn exec(cmd: CalcCommand) -> Outcome {
    match cmd {
        CalcCommand::Empty(one) => Ok(set_arg(&one)?.is_empty().to_string()),
        CalcCommand::Sample(one) => {
            let s = set_arg(&one)?;
            Ok(match s.sample() {
                Some(p) => fmt_point(s.space(), &p),
                None => "none".to_string(),
            })
        }
        CalcCommand::Points { one, limit } => {
            let s = set_arg(&one)?;
            let pts = s.points(limit).map_err(|e| bound_err(&one, e))?;
            Ok(pts
                .iter()
                .map(|p| {
                    format!(
                        "[{}]",
                        p.iter().map(Int::to_string).collect::<Vec<_>>().join(", ")
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"))
        }
        CalcCommand::Apply { map, one } => {
            let s = set_arg(&one)?;
            let m: Map = presburger::parse_map(&map, &[]).map_err(|e| parse_err("MAP", &map, e))?;
            if m.n_in() != s.n_dim() {
                let d = Diagnostic::new(format!(
                    "the map takes {} input dimension(s) but the set has {}",
                    m.n_in(),
                    s.n_dim()
                ))
                .with_label(
                    "MAP",
                    0..map.len(),
                    format!("{} input dimension(s)", m.n_in()),
                )
                .with_label(
                    "SET",
                    0..one.set.len(),
                    format!("{} dimension(s)", s.n_dim()),
                );
                return Err((d, vec![("MAP", map.clone()), ("SET", one.set.clone())]));
            }
            Ok(s.apply(&m).simplify().to_string())
        }
        CalcCommand::Lexmin(one) => lexopt(&one, false),
        CalcCommand::Lexmax(one) => lexopt(&one, true),
        CalcCommand::Simplify(one) => match presburger::parse(&one.set, &[])
            .map_err(|e| parse_err("SET", &one.set, e))?
        {
            presburger::Parsed::Set(s) => Ok(fix(s, &one.params, &one.set)?.simplify().to_string()),
            presburger::Parsed::Map(m) => Ok(m.simplify().to_string()),
        },
    }
}

fn lexopt(one: &One, max: bool) -> Outcome {
    let s = set_arg(one)?;
    // With every parameter fixed, the answer is a single point.
    let pt = if max {
        s.lexmax_point()
    } else {
        s.lexmin_point()
    };
    match pt {
        Ok(Some(coords)) => {
            let params = s.sample().map(|p| p.params).unwrap_or_default();
            return Ok(fmt_point(s.space(), &presburger::Point { params, coords }));
        }
        Ok(None) => return Ok(s.subtract(&s).to_string()),
        Err(presburger::BoundError::FreeParams(_)) => {}
        Err(e) => return Err(bound_err(one, e)),
    }
    let r = if max { s.lexmax() } else { s.lexmin() };
    Ok(r.map_err(|e| bound_err(one, e))?.simplify().to_string())
}
