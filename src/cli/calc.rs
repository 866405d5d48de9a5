//! `loopy calc`: the Presburger core from the shell.

use super::Ctx;
use crate::diag::codes;
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
        /// A map in isl notation, e.g. '{ [i, j] -> [j, i] }', or @FILE.
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
    /// Print a C loop nest that enumerates the set's points in lexicographic order.
    ///
    /// The body calls `S(i, j, ...)` (the set's tuple name, or `S`) for each point;
    /// parameters are free variables of the code.
    Scan(One),
}

impl CalcCommand {
    /// The set argument every subcommand has.
    fn one(&self) -> &One {
        match self {
            CalcCommand::Empty(o)
            | CalcCommand::Sample(o)
            | CalcCommand::Lexmin(o)
            | CalcCommand::Lexmax(o)
            | CalcCommand::Simplify(o)
            | CalcCommand::Scan(o) => o,
            CalcCommand::Points { one, .. } | CalcCommand::Apply { one, .. } => one,
        }
    }
}

#[derive(Args, Debug)]
pub struct One {
    /// A set in isl notation, e.g. '[N] -> { [i, j] : 0 <= i < N and 0 <= j <= i }',
    /// or @FILE to read it from a file.
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
type Failure = (Diagnostic, Vec<(String, String)>);
type Outcome = Result<String, Failure>;

pub fn run(cmd: CalcCommand, ctx: &Ctx) -> u8 {
    let set_arg = cmd.one().set.clone();
    let outcome = match presburger::budget::with_budget(ctx.budget, || exec(cmd)) {
        Ok(o) => o,
        Err(e) => {
            let d = super::budget_diagnostic(&e);
            Err(match Input::load(&set_arg, "SET") {
                Ok(input) => input.whole(d, "this set".to_string()),
                Err(_) => (d, vec![]),
            })
        }
    };
    match outcome {
        Ok(out) => {
            println!("{out}");
            0
        }
        Err((d, sources)) => {
            let srcs: Vec<(&str, &str)> = sources
                .iter()
                .map(|(n, t)| (n.as_str(), t.as_str()))
                .collect();
            eprint!("{}", d.render(&srcs, ctx.color));
            2
        }
    }
}

/// A command-line argument in isl notation, or `@FILE` naming a file that holds one.
struct Input {
    name: String,
    text: String,
}

impl Input {
    fn load(arg: &str, what: &str) -> Result<Input, Failure> {
        match arg.strip_prefix('@') {
            Some(path) => match std::fs::read_to_string(path) {
                Ok(text) => Ok(Input {
                    name: path.to_string(),
                    text: text.trim_end().to_string(),
                }),
                Err(e) => Err((
                    Diagnostic::new(codes::CANNOT_READ, format!("cannot read `{path}`: {e}")),
                    vec![],
                )),
            },
            None => Ok(Input {
                name: what.to_string(),
                text: arg.to_string(),
            }),
        }
    }

    fn fail(&self, d: Diagnostic) -> Failure {
        (d, vec![(self.name.clone(), self.text.clone())])
    }

    fn whole(&self, d: Diagnostic, label: String) -> Failure {
        let d = d.with_label(&self.name, 0..self.text.len(), label);
        self.fail(d)
    }

    fn parse_err(&self, e: ParseError) -> Failure {
        let mut d = Diagnostic::new(codes::SET_SYNTAX, e.message.clone()).with_label(
            &self.name,
            e.span.clone(),
            e.message.clone(),
        );
        if let Some(h) = e.help {
            d = d.with_help(h);
        }
        self.fail(d)
    }
}

fn set_arg(one: &One) -> Result<(Input, Set), Failure> {
    let input = Input::load(&one.set, "SET")?;
    let s = presburger::parse_set(&input.text, &[]).map_err(|e| input.parse_err(e))?;
    let s = fix(s, &one.params, &input)?;
    Ok((input, s))
}

fn fix(mut s: Set, params: &[(String, Int)], input: &Input) -> Result<Set, Failure> {
    for (n, v) in params {
        s = match s.fix_param(n, v) {
            Some(s) => s,
            None => {
                let d = Diagnostic::new(
                    codes::CALC_REFUSED,
                    format!("`--param {n}=...`: the set has no parameter `{n}`"),
                );
                return Err(input.whole(d, format!("parameters here: {}", param_list(&s))));
            }
        };
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

fn bound_err(input: &Input, e: presburger::BoundError) -> Failure {
    let mut d = Diagnostic::new(codes::CALC_REFUSED, e.to_string());
    if let presburger::BoundError::FreeParams(ps) = &e {
        d = d.with_help(format!(
            "give every parameter a value, e.g. `--param {}=4`",
            ps[0]
        ));
    }
    input.whole(d, e.to_string())
}

fn exec(cmd: CalcCommand) -> Outcome {
    match cmd {
        CalcCommand::Empty(one) => Ok(set_arg(&one)?.1.is_empty().to_string()),
        CalcCommand::Sample(one) => {
            let (_, s) = set_arg(&one)?;
            Ok(match s.sample() {
                Some(p) => fmt_point(s.space(), &p),
                None => "none".to_string(),
            })
        }
        CalcCommand::Points { one, limit } => {
            let (input, s) = set_arg(&one)?;
            let pts = s.points(limit).map_err(|e| bound_err(&input, e))?;
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
            let (input, s) = set_arg(&one)?;
            let mi = Input::load(&map, "MAP")?;
            let m: Map = presburger::parse_map(&mi.text, &[]).map_err(|e| mi.parse_err(e))?;
            if m.n_in() != s.n_dim() {
                let d = Diagnostic::new(
                    codes::CALC_REFUSED,
                    format!(
                        "the map takes {} input dimension(s) but the set has {}",
                        m.n_in(),
                        s.n_dim()
                    ),
                )
                .with_label(
                    &mi.name,
                    0..mi.text.len(),
                    format!("{} input dimension(s)", m.n_in()),
                )
                .with_label(
                    &input.name,
                    0..input.text.len(),
                    format!("{} dimension(s)", s.n_dim()),
                );
                return Err((d, vec![(mi.name, mi.text), (input.name, input.text)]));
            }
            Ok(s.apply(&m).for_print().to_string())
        }
        CalcCommand::Scan(one) => scan(&one),
        CalcCommand::Lexmin(one) => lexopt(&one, false),
        CalcCommand::Lexmax(one) => lexopt(&one, true),
        CalcCommand::Simplify(one) => {
            let input = Input::load(&one.set, "SET")?;
            match presburger::parse(&input.text, &[]).map_err(|e| input.parse_err(e))? {
                presburger::Parsed::Set(s) => {
                    Ok(fix(s, &one.params, &input)?.for_print().to_string())
                }
                presburger::Parsed::Map(m) => Ok(m.for_print().to_string()),
            }
        }
    }
}

fn scan(one: &One) -> Outcome {
    let (_, s) = set_arg(one)?;
    Ok(crate::codegen::scan_set_to_c(&s).trim_end().to_string())
}

fn lexopt(one: &One, max: bool) -> Outcome {
    let (input, s) = set_arg(one)?;
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
        Err(e) => return Err(bound_err(&input, e)),
    }
    let r = if max { s.lexmax() } else { s.lexmin() };
    Ok(r.map_err(|e| bound_err(&input, e))?.for_print().to_string())
}
