//! `loopy tune`: an empirical search over a script's parameters (docs/tune.md). Each
//! candidate is the script with some values given to its `param`s; it is verified here (the
//! checker, in process), then timed by the timing loop of [`crate::timing`] through a
//! [`Timer`] — `bench_one` in real use: outputs compared with the original's, both programs
//! timed, kernel-only by default. As in `search`, candidates are screened with the integer
//! `-D` sizes scaled down and the best few are timed again at the sizes asked for. The order is deterministic: coordinate
//! descent from the script's values (one parameter at a time, every candidate value of it
//! with the others held, the fastest kept, passes until one changes nothing), or the whole
//! grid in lexicographic order. Prints nothing: progress goes to a callback.

use crate::bench::{plain, Job};
use crate::diag::codes;
use crate::diag::{Diagnostic, Report};
use crate::driver::{self, Kernel, Run};
use crate::presburger::budget;
use crate::presburger::Int;
use crate::script::ast::{ParamDefault, ScriptItem, Span, TuneValues};
use crate::script::params::{parse_int, Setting, Settings};
use crate::timing::{self, Attempt, Event, Limits, Session, Trial};
pub use crate::timing::{Bench, Measured, Timer, Verdict};
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// The name the tuning arguments (`--range`, `--values`, `--param`) are rendered under in
/// diagnostics.
pub const TUNE_ARGS: &str = "<tuning arguments>";

/// The most candidate values one parameter may have, and the most candidates a grid may
/// have.
pub const MAX_VALUES: usize = 1000;
pub const MAX_GRID: usize = 100_000;

/// Where a parameter's candidate values come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Candidates {
    /// `--range NAME=LO..HI:STEP` (both ends included; `STEP` 1 when left out).
    Range { lo: i64, hi: i64, step: i64 },
    /// `--values NAME=A,B,C`.
    Values(Vec<i64>),
    /// `--param NAME`, or every parameter when none is named: around the script's value
    /// ([`around`]).
    Around,
}

/// One parameter to tune, as the command line names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub name: String,
    pub candidates: Candidates,
    /// The whole argument (`MC=48..192:24`) in [`Specs::text`].
    pub span: Span,
}

/// The parameters to tune and the text their spans point into (`--range MC=48..192:24
/// --values MR=6,8`), the source [`TUNE_ARGS`] of diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Specs {
    pub items: Vec<Spec>,
    pub text: String,
}

impl Specs {
    /// Parses `--range`, `--values` and `--param` arguments. A malformed argument, an empty
    /// or too long range, a step that is not positive and a name given twice are errors
    /// pointing at the argument (in the source [`TUNE_ARGS`]).
    pub fn from_command_line(
        ranges: &[String],
        values: &[String],
        params: &[String],
    ) -> Result<Specs, Report> {
        let mut text = String::new();
        Specs::parse(ranges, values, params, &mut text).map_err(|d| Report {
            diagnostic: d,
            sources: vec![(TUNE_ARGS.to_string(), text)],
        })
    }

    fn parse(
        ranges: &[String],
        values: &[String],
        params: &[String],
        text: &mut String,
    ) -> Result<Specs, Diagnostic> {
        let mut out = Specs::default();
        let mut args: Vec<(&str, &String, Span)> = vec![];
        for (flag, list) in [
            ("--range", ranges),
            ("--values", values),
            ("--param", params),
        ] {
            for a in list {
                if !out.text.is_empty() {
                    out.text.push(' ');
                }
                out.text.push_str(flag);
                out.text.push(' ');
                let start = out.text.len();
                out.text.push_str(a);
                args.push((flag, a, start..out.text.len()));
            }
        }
        text.clone_from(&out.text);
        for (flag, a, span) in args {
            let spec = parse_spec(flag, a, span)?;
            if let Some(old) = out.items.iter().find(|s| s.name == spec.name) {
                return Err(Diagnostic::new(
                    codes::TUNE_SPEC,
                    format!("`{}` is tuned twice", spec.name),
                )
                .with_label(TUNE_ARGS, spec.span.clone(), "named again here")
                .with_label(TUNE_ARGS, old.span.clone(), "first named here"));
            }
            out.items.push(spec);
        }
        Ok(out)
    }

    pub fn get(&self, name: &str) -> Option<&Spec> {
        self.items.iter().find(|s| s.name == name)
    }
}

fn parse_spec(flag: &str, a: &str, span: Span) -> Result<Spec, Diagnostic> {
    let at = |r: std::ops::Range<usize>| span.start + r.start..span.start + r.end;
    let err = |msg: String, r: Span, label: &str| {
        Diagnostic::new(codes::TUNE_SPEC, msg).with_label(TUNE_ARGS, r, label)
    };
    let (name, rest) = match (flag, a.find('=')) {
        ("--param", None) => (a.trim(), None),
        ("--param", Some(eq)) => {
            return Err(err(
                format!("`--param {a}` takes a name only"),
                at(eq..a.len()),
                "no value here",
            )
            .with_help(format!(
                "give the candidates with `--range {a}` or `--values {a}`"
            )))
        }
        (_, Some(eq)) => (a[..eq].trim(), Some(eq + 1)),
        (_, None) => {
            let example = if flag == "--range" {
                "`--range MC=48..192:24`"
            } else {
                "`--values MR=4,6,8`"
            };
            return Err(err(
                format!("`{flag} {a}`: expected NAME={}", &flag[2..].to_uppercase()),
                span.clone(),
                "no `=`",
            )
            .with_help(format!("for example {example}")));
        }
    };
    let name_end = a.find('=').unwrap_or(a.len());
    if !crate::script::params::is_identifier(name) {
        return Err(err(
            format!("`{flag} {a}`: `{name}` is not a parameter name"),
            at(0..name_end),
            "expected a name like `MC`",
        ));
    }
    if rest.is_some_and(|v0| a[v0..].trim().is_empty()) {
        return Err(err(
            format!("`{flag} {a}`: no values to try"),
            span.clone(),
            "nothing after `=`",
        )
        .with_help(if flag == "--range" {
            "give a range, e.g. `--range MC=48..192:24`"
        } else {
            "give at least one value, e.g. `--values MR=4,6,8`"
        }));
    }
    let candidates = match (flag, rest) {
        ("--range", Some(v0)) => parse_range(&a[v0..], |r| at(v0 + r.start..v0 + r.end))?,
        (_, Some(v0)) => parse_values(&a[v0..], |r| at(v0 + r.start..v0 + r.end))?,
        _ => Candidates::Around,
    };
    Ok(Spec {
        name: name.to_string(),
        candidates,
        span,
    })
}

/// `LO..HI` or `LO..HI:STEP`; `at` maps a range of `s` to the command line's text.
fn parse_range(s: &str, at: impl Fn(Span) -> Span) -> Result<Candidates, Diagnostic> {
    let whole = at(0..s.len());
    let help = "write LO..HI or LO..HI:STEP, both ends included, e.g. `48..192:24`";
    let Some(dots) = s.find("..") else {
        return Err(
            Diagnostic::new(codes::TUNE_SPEC, format!("`{s}` is not a range"))
                .with_label(TUNE_ARGS, whole, "expected LO..HI[:STEP]")
                .with_help(help),
        );
    };
    let (lo_s, rest) = (&s[..dots], &s[dots + 2..]);
    let (hi_s, step_s) = match rest.find(':') {
        Some(c) => (&rest[..c], Some((&rest[c + 1..], dots + 2 + c + 1))),
        None => (rest, None),
    };
    let int = |t: &str, r: Span, what: &str| -> Result<i64, Diagnostic> {
        parse_int(t.trim()).and_then(|v| v.to_i64()).ok_or_else(|| {
            Diagnostic::new(
                codes::TUNE_SPEC,
                format!("the {what} of the range must be an integer, found `{t}`"),
            )
            .with_label(TUNE_ARGS, at(r), "not an integer")
            .with_help(help)
        })
    };
    let lo = int(lo_s, 0..dots, "start")?;
    let hi = int(hi_s, dots + 2..dots + 2 + hi_s.len(), "end")?;
    let step = match step_s {
        None => 1,
        Some((t, p)) => {
            let v = int(t, p..p + t.len(), "step")?;
            if v <= 0 {
                return Err(Diagnostic::new(
                    codes::TUNE_SPEC,
                    format!("the step of a range must be positive, not {v}"),
                )
                .with_label(TUNE_ARGS, at(p..p + t.len()), "not positive"));
            }
            v
        }
    };
    if lo > hi {
        return Err(Diagnostic::new(
            codes::TUNE_SPEC,
            format!("the range `{s}` is empty: it starts above its end"),
        )
        .with_label(TUNE_ARGS, whole, "no values")
        .with_help(format!(
            "did you mean `{hi}..{lo}{}`?",
            step_s.map_or(String::new(), |(t, _)| format!(":{t}"))
        )));
    }
    let n = (hi - lo) / step + 1;
    if n as usize > MAX_VALUES {
        return Err(Diagnostic::new(
            codes::TUNE_SPEC,
            format!("the range `{s}` has {n} values; at most {MAX_VALUES} are tried per parameter"),
        )
        .with_label(TUNE_ARGS, whole, "too many values")
        .with_help("give a larger step"));
    }
    Ok(Candidates::Range { lo, hi, step })
}

/// `A,B,C`: at least one integer; repeated values are tried once.
fn parse_values(s: &str, at: impl Fn(Span) -> Span) -> Result<Candidates, Diagnostic> {
    let mut out = vec![];
    let mut pos = 0usize;
    for part in s.split(',') {
        let v = parse_int(part.trim())
            .and_then(|v| v.to_i64())
            .ok_or_else(|| {
                if part.trim().is_empty() {
                    let r = pos.saturating_sub(1)..(pos + part.len() + 1).min(s.len());
                    Diagnostic::new(
                        codes::TUNE_SPEC,
                        "an empty value between commas".to_string(),
                    )
                    .with_label(TUNE_ARGS, at(r), "no value here")
                } else {
                    Diagnostic::new(
                        codes::TUNE_SPEC,
                        format!("a value to try must be an integer, found `{part}`"),
                    )
                    .with_label(
                        TUNE_ARGS,
                        at(pos..pos + part.len()),
                        "not an integer",
                    )
                }
            })?;
        if !out.contains(&v) {
            out.push(v);
        }
        pos += part.len() + 1;
    }
    if out.len() > MAX_VALUES {
        return Err(Diagnostic::new(
            codes::TUNE_SPEC,
            format!(
                "{} values to try; at most {MAX_VALUES} are tried per parameter",
                out.len()
            ),
        )
        .with_label(TUNE_ARGS, at(0..s.len()), "too many values"));
    }
    Ok(Candidates::Values(out))
}

/// The default candidates around a value `v`: `v` times 1/2, 3/4, 1, 5/4, 3/2 and 2,
/// rounded to the nearest integer (halves up), at least 1, in increasing order. A value
/// that is not positive has itself only.
pub fn around(v: i64) -> Vec<i64> {
    if v <= 0 {
        return vec![v];
    }
    let mut out: Vec<i64> = [2i64, 3, 4, 5, 6, 8]
        .iter()
        .map(|&k| ((v.saturating_mul(k) + 2) / 4).max(1))
        .collect();
    out.dedup();
    out
}

impl Candidates {
    /// The values, in increasing order for a range, as given for a list.
    pub fn values(&self, start: i64) -> Vec<i64> {
        match self {
            Candidates::Range { lo, hi, step } => (0..)
                .map(|k| lo + k * step)
                .take_while(|x| x <= hi)
                .collect(),
            Candidates::Values(v) => v.clone(),
            Candidates::Around => around(start),
        }
    }
}

/// How candidates are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// From the script's values, one parameter at a time in declaration order: every value
    /// of it with the others held, the fastest kept; passes until one keeps the values it
    /// started with, at most `passes`.
    Descent { passes: usize },
    /// Every combination, the last parameter varying fastest.
    Grid,
}

/// What a tuning run is asked to do.
pub struct Tuning {
    pub specs: Specs,
    pub order: Order,
    /// Seconds for the whole run, counted from its start: no timing starts that would not
    /// end before its phase's deadline, judging by the timings so far.
    pub time_limit: f64,
    /// Screening: the integer `-D NAME=VALUE` sizes multiplied by this (1: no screening).
    pub screen: f64,
    /// Screening is skipped when the original runs faster than this (seconds) at the sizes
    /// given.
    pub screen_above: f64,
    /// How many of the best screened candidates are timed at the sizes given, and how many
    /// of the best timed candidates play the playoff.
    pub finalists: usize,
    /// The playoff: the best `finalists` candidates at the sizes given are timed this many
    /// times more, in turn (one timing of each, then again), and the choice is made among
    /// them on all their rounds together (0: no playoff).
    pub playoff: usize,
    /// The integer core's work budget, for each check.
    pub budget: u64,
    /// The job every candidate is timed with: the kernel, the script (its path: imports are
    /// found beside it), the `--set` values of the parameters not tuned, the toolchain with
    /// the sizes given, the plan, the flop count.
    pub job: Job,
}

/// A tuned parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    /// The script's value (its default, the model's value or `--set`).
    pub start: i64,
    /// Where it came from (`default`, `model`, `--set`).
    pub origin: String,
    pub values: Vec<i64>,
}

/// One combination of values.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneCandidate {
    /// In the order of [`TuneReport::params`].
    pub values: Vec<i64>,
    pub verdict: Verdict,
    /// At the screening sizes.
    pub screen: Option<Measured>,
    /// At the sizes given.
    pub timing: Option<Measured>,
}

impl Trial for TuneCandidate {
    fn slots(&self) -> (&Verdict, &Option<Measured>, &Option<Measured>) {
        (&self.verdict, &self.screen, &self.timing)
    }
    fn slots_mut(&mut self) -> (&mut Verdict, &mut Option<Measured>, &mut Option<Measured>) {
        (&mut self.verdict, &mut self.screen, &mut self.timing)
    }
}

/// What the caller hears while tuning runs.
pub enum TuneEvent<'a> {
    /// What is being done now (for a progress line).
    Status(&'a str),
    /// A candidate was timed (`screen`: at the screening sizes).
    Timed {
        index: usize,
        candidate: &'a TuneCandidate,
        screen: bool,
        /// The tuned parameters, in the order of the candidate's values.
        params: &'a [Param],
    },
}

/// Everything a tuning run found.
pub struct TuneReport {
    pub params: Vec<Param>,
    pub candidates: Vec<TuneCandidate>,
    /// The fastest candidate: by its speedup at the sizes given when any was timed there,
    /// else at the screening sizes.
    pub best: Option<usize>,
    /// The `-D` sizes of screening, when it was done.
    pub screen_defines: Option<Vec<String>>,
    /// Whether the order was cut short by the time limit.
    pub out_of_time: bool,
    /// The candidates of the playoff, best first at its end (empty when there was none);
    /// `best` is the first.
    pub playoff: Vec<usize>,
}

impl TuneReport {
    /// The best candidate's measurement, and whether it is at the screening sizes.
    pub fn best_measured(&self) -> Option<(&Measured, bool)> {
        let c = &self.candidates[self.best?];
        c.timing
            .as_ref()
            .map(|t| (t, false))
            .or(c.screen.as_ref().map(|t| (t, true)))
    }

    /// The candidate with the script's own values, when it was tried.
    pub fn start(&self) -> Option<usize> {
        let start: Vec<i64> = self.params.iter().map(|p| p.start).collect();
        self.candidates.iter().position(|c| c.values == start)
    }
}

/// The settings of a candidate: `base` (the `--set` values of the other parameters) with
/// `values` for the tuned ones, written as if given with `--set`.
fn candidate_settings(base: &Settings, params: &[Param], values: &[i64]) -> Settings {
    let mut s = base.clone();
    s.items.retain(|x| !params.iter().any(|p| p.name == x.name));
    let mut text = String::new();
    for (p, v) in params.iter().zip(values) {
        if !text.is_empty() {
            text.push(' ');
        }
        let start = text.len();
        text.push_str(&format!("{}={v}", p.name));
        s.items.push(Setting {
            name: p.name.clone(),
            value: Int::from(*v),
            source: TUNED.to_string(),
            span: start..text.len(),
        });
    }
    s.sources.push((TUNED.to_string(), text));
    s
}

/// The source name of a candidate's values in its diagnostics.
const TUNED: &str = "<tuned values>";

/// The values a script gives its parameters to try (`param KC = 256 in 128..512 step 64`),
/// by name; a range of more than [`MAX_VALUES`] values is an error pointing at it.
fn script_values(text: &str, name: &str) -> Result<Vec<(String, Vec<i64>)>, Diagnostic> {
    let script = crate::script::parse::parse_script(text, name)?;
    let mut out = vec![];
    for item in &script.items {
        let ScriptItem::Param(d) = item else { continue };
        let Some((values, at)) = &d.tune else {
            continue;
        };
        let too_many = |n: String| {
            Diagnostic::new(
                codes::TUNE_SPEC,
                format!(
                    "`{}` has {n} values to try; at most {MAX_VALUES} are tried per parameter",
                    d.name.text
                ),
            )
            .with_label(name, at.clone(), "too many values")
        };
        let too_large = || {
            Diagnostic::new(
                codes::TUNE_SPEC,
                format!("the values of `{}` to try are too large", d.name.text),
            )
            .with_label(name, at.clone(), "too large")
        };
        let v: Vec<i64> = match values {
            TuneValues::List(l) => {
                if l.len() > MAX_VALUES {
                    return Err(too_many(l.len().to_string()));
                }
                l.iter()
                    .map(|x| x.to_i64().ok_or_else(too_large))
                    .collect::<Result<_, _>>()?
            }
            TuneValues::Range { lo, hi, step } => {
                let (Some(lo), Some(hi), Some(step)) = (lo.to_i64(), hi.to_i64(), step.to_i64())
                else {
                    return Err(too_large());
                };
                let n = (hi as i128 - lo as i128) / step as i128 + 1;
                if n > MAX_VALUES as i128 {
                    return Err(too_many(n.to_string()));
                }
                Candidates::Range { lo, hi, step }.values(0)
            }
        };
        out.push((d.name.text.clone(), v));
    }
    Ok(out)
}

/// The tuned parameters, in declaration order, with their candidate values: those `specs`
/// names when it names any (`--param NAME` takes the script's values to try when it has
/// them, else values [`around`] its value); else those the script gives values to try;
/// else every parameter, with values around its value. A name the script does not
/// declare, or declares in another file, is an error.
fn params_of(
    specs: &Specs,
    declared: &[crate::script::interp::ParamValue],
    script_name: &str,
    in_script: &[(String, Vec<i64>)],
) -> Result<Vec<Param>, Diagnostic> {
    for s in &specs.items {
        match declared.iter().find(|p| p.name == s.name) {
            None => {
                let mut d = Diagnostic::new(
                    codes::SCRIPT_PARAMETER,
                    format!("the script declares no parameter `{}`", s.name),
                )
                .with_label(TUNE_ARGS, s.span.clone(), "tuned here");
                d = if declared.is_empty() {
                    d.with_note("the script declares no parameters (`param NAME = VALUE`)")
                } else {
                    let names: Vec<String> =
                        declared.iter().map(|p| format!("`{}`", p.name)).collect();
                    d.with_note(format!("the script declares {}", names.join(", ")))
                };
                return Err(d);
            }
            Some(p) if p.source != script_name => {
                return Err(Diagnostic::new(
                    codes::SCRIPT_PARAMETER,
                    format!(
                        "`{}` is declared in `{}`, not in the script tuned",
                        s.name, p.source
                    ),
                )
                .with_label(TUNE_ARGS, s.span.clone(), "tuned here")
                .with_help("tune the script that declares it"));
            }
            Some(_) => {}
        }
    }
    if declared.is_empty() {
        return Err(Diagnostic::new(
            codes::TUNE_SPEC,
            "the script declares no parameters: there is nothing to tune".to_string(),
        )
        .with_help("declare the sizes to tune with `param NAME = VALUE`"));
    }
    let own = |n: &str| in_script.iter().find(|(x, _)| x == n).map(|(_, v)| v);
    let mut out = vec![];
    for p in declared {
        let spec = specs.get(&p.name);
        let chosen = if specs.items.is_empty() {
            p.source == script_name && (in_script.is_empty() || own(&p.name).is_some())
        } else {
            spec.is_some()
        };
        if !chosen {
            continue;
        }
        let Some(start) = p.value.to_i64() else {
            return Err(Diagnostic::new(
                codes::TUNE_SPEC,
                format!(
                    "the value of `{}` ({}) is too large to tune",
                    p.name, p.value
                ),
            ));
        };
        let values = match (spec.map(|s| &s.candidates), own(&p.name)) {
            (Some(Candidates::Around) | None, Some(v)) => v.clone(),
            (Some(c), _) => c.values(start),
            (None, None) => around(start),
        };
        out.push(Param {
            name: p.name.clone(),
            start,
            origin: p.origin(),
            values,
        });
    }
    Ok(out)
}

/// The tuned script: `text` with `values` as the defaults of the `param` lines of
/// `params` (a `model` default replaced, a missing one added), everything else as it is.
pub fn rewrite(text: &str, name: &str, params: &[(String, i64)]) -> Result<String, Diagnostic> {
    let script = crate::script::parse::parse_script(text, name)?;
    let mut edits: Vec<(Span, String)> = vec![];
    for item in &script.items {
        if let ScriptItem::Param(d) = item {
            if let Some((_, v)) = params.iter().find(|(n, _)| *n == d.name.text) {
                match &d.default {
                    Some((ParamDefault::Int(_) | ParamDefault::Model(_), at)) => {
                        edits.push((at.clone(), v.to_string()))
                    }
                    None => edits.push((d.name.span.end..d.name.span.end, format!(" = {v}"))),
                }
            }
        }
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0.start));
    let mut out = text.to_string();
    for (r, s) in edits {
        out.replace_range(r, &s);
    }
    Ok(out)
}

/// Everything kept while tuning runs.
struct State<'a, 't> {
    kernel: Kernel,
    text: String,
    script_name: String,
    base_dir: std::path::PathBuf,
    tuning: &'a Tuning,
    params: Vec<Param>,
    session: Session<'t>,
    candidates: Vec<TuneCandidate>,
    seen: HashMap<Vec<i64>, usize>,
    on: &'a mut dyn FnMut(TuneEvent),
    out_of_time: bool,
    /// How many candidates the order has at most (for the progress line).
    planned: usize,
}

impl State<'_, '_> {
    /// Verifies the candidate with `values` (or finds the one with them); its index.
    fn add(&mut self, values: &[i64]) -> usize {
        if let Some(&k) = self.seen.get(values) {
            return k;
        }
        let settings = candidate_settings(&self.tuning.job.settings, &self.params, values);
        let settings = driver::with_model(settings, &self.text, &self.tuning.job.toolchain);
        let (kernel, text, name, base) =
            (&self.kernel, &self.text, &self.script_name, &self.base_dir);
        let checked = budget::with_budget(self.tuning.budget, || {
            Run::with_settings(kernel, text, name, base, &settings).map(|run| {
                let bad = run.check();
                match bad.first() {
                    None => Verdict::Legal,
                    Some(_) => {
                        Verdict::Illegal(run.reports(kernel, &bad)[0].diagnostic.message.clone())
                    }
                }
            })
        });
        let verdict = match checked {
            Err(e) => Verdict::Error(e.to_string()),
            Ok(Err(f)) => Verdict::Error(f.diagnostic.message),
            Ok(Ok(v)) => v,
        };
        self.candidates.push(TuneCandidate {
            values: values.to_vec(),
            verdict,
            screen: None,
            timing: None,
        });
        let k = self.candidates.len() - 1;
        self.seen.insert(values.to_vec(), k);
        k
    }

    /// Screening only pays when the program is slow: the first candidate is timed at the
    /// screening sizes; when the original took `screen_above` seconds or more there,
    /// screening stays. Otherwise it is timed at the sizes given too, and screening is
    /// dropped (with its screening time) when the original takes less than `screen_above`
    /// seconds there.
    fn settle_screening(&mut self, x0: &[i64], end: Instant) {
        let c = self.add(x0);
        self.time(c, true, end);
        if self
            .session
            .screening_pays(self.candidates[c].screen.as_ref())
        {
            return;
        }
        self.time(c, false, end);
        self.session.settle_screening(&mut self.candidates[c]);
    }

    /// Times a legal candidate not timed yet (at the screening sizes when `screen`), unless
    /// it would not end before `deadline`.
    fn time(&mut self, idx: usize, screen: bool, deadline: Instant) {
        self.time_again(idx, screen, deadline, "", false);
    }

    /// Times a legal candidate (`again`: also when it was timed — a playoff, its rounds at
    /// the sizes given added to those it has), unless it would not end before `deadline`.
    fn time_again(
        &mut self,
        idx: usize,
        screen: bool,
        deadline: Instant,
        phase: &str,
        again: bool,
    ) {
        let values = self.candidates[idx].values.clone();
        let label = format!(
            "{phase}candidate {}/{} ({})",
            idx + 1,
            self.planned.max(idx + 1),
            describe(&self.params, &values),
        );
        let (base, params) = (&self.tuning.job.settings, &self.params);
        let make = |template: &Job| {
            let mut job = timing::job_like(template, template.script.clone());
            job.settings = candidate_settings(base, params, &values);
            Some(job)
        };
        let on = &mut *self.on;
        let mut relay = |e: Event<TuneCandidate>| match e {
            Event::Status(s) => on(TuneEvent::Status(s)),
            Event::Timed {
                index,
                candidate,
                screen,
            } => on(TuneEvent::Timed {
                index,
                candidate,
                screen,
                params,
            }),
        };
        let done = self.session.time(
            &mut self.candidates,
            idx,
            screen,
            deadline,
            again,
            &make,
            &label,
            &mut relay,
        );
        if done == Attempt::OutOfTime {
            self.out_of_time = true;
        }
    }

    /// Adds and times `values`; its speedup as compared.
    fn try_values(&mut self, values: &[i64], deadline: Instant) -> Option<f64> {
        let c = self.add(values);
        let screening = self.session.screening();
        self.time(c, screening, deadline);
        self.session.speedup(&self.candidates[c])
    }
}

/// `MR=6 NR=8`.
pub fn describe(params: &[Param], values: &[i64]) -> String {
    params
        .iter()
        .zip(values)
        .map(|(p, v)| format!("{}={v}", p.name))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The number of combinations of the grid (saturating).
fn grid_size(params: &[Param]) -> usize {
    params
        .iter()
        .fold(1usize, |n, p| n.saturating_mul(p.values.len()))
}

/// Tunes the script of `tuning.job`. `Err`: the kernel or the script does not load with
/// the script's own values, or the tuning arguments do not fit the script (a report with
/// the source [`TUNE_ARGS`] where it points there).
pub fn tune(
    tuning: &Tuning,
    timer: &mut dyn Timer,
    on: &mut dyn FnMut(TuneEvent),
) -> Result<TuneReport, Report> {
    let start = Instant::now();
    let job = &tuning.job;
    let loaded = load(tuning)?;
    let params = loaded.params;
    let planned = match tuning.order {
        Order::Grid => grid_size(&params),
        Order::Descent { .. } => 1 + params.iter().map(|p| p.values.len()).sum::<usize>(),
    };
    let limits = Limits {
        time_limit: tuning.time_limit,
        screen: tuning.screen,
        screen_only: None,
        screen_above: tuning.screen_above,
        finalists: tuning.finalists,
    };
    let mut s = State {
        kernel: loaded.kernel,
        text: loaded.text,
        script_name: loaded.script_name,
        base_dir: loaded.base_dir,
        tuning,
        params,
        session: Session::new(job, limits, start, timer),
        candidates: vec![],
        seen: HashMap::new(),
        on,
        out_of_time: false,
        planned,
    };
    let end = s.session.end();
    let x0: Vec<i64> = s.params.iter().map(|p| p.start).collect();
    // Screening pays only when the original is slow at the sizes given: the script's own
    // values decide it (`settle_screening`).
    let depth = s.kernel.scop.statements.iter().map(|st| st.iterators.len());
    s.session.expect_growth(depth.max().unwrap_or(1));
    if s.session.screening() {
        s.settle_screening(&x0, end);
    }
    let screen_defines = s.session.screen_defines().cloned();
    let screening = s.session.screening();
    let phase_end = s.session.phase_end();
    match tuning.order {
        Order::Descent { passes } => s.descend(x0, passes, phase_end),
        Order::Grid => s.sweep_grid(phase_end),
    }
    // The best few screened candidates at the sizes given.
    if screening {
        for c in s.session.finalists(&s.candidates) {
            s.time(c, false, end);
        }
    }
    let playoff = s.playoff(end);
    let best = playoff
        .first()
        .copied()
        .or_else(|| timing::best(&s.candidates));
    Ok(TuneReport {
        params: s.params,
        candidates: s.candidates,
        best,
        screen_defines,
        out_of_time: s.out_of_time,
        playoff,
    })
}

/// The kernel and the script of a tuning, and the parameters to tune.
struct Loaded {
    kernel: Kernel,
    text: String,
    script_name: String,
    base_dir: std::path::PathBuf,
    params: Vec<Param>,
}

/// Loads the kernel and runs the script with its own values: the parameters it declares
/// and their values, checked against the tuning's specifications.
fn load(tuning: &Tuning) -> Result<Loaded, Report> {
    let job = &tuning.job;
    let script = job
        .script
        .clone()
        .ok_or_else(|| plain(codes::INVALID_OPTION, "tuning needs a script".to_string()))?;
    let script_name = script.display().to_string();
    let text = std::fs::read_to_string(&script).map_err(|e| {
        plain(
            codes::CANNOT_READ,
            format!("cannot read `{script_name}`: {e}"),
        )
    })?;
    let kernel = Kernel::load(&job.kernel, &job.opts)?;
    crate::bench::refuse_fragment(&kernel)?;
    let base_dir = script.parent().unwrap_or(Path::new(".")).to_path_buf();
    let settings = driver::with_model(job.settings.clone(), &text, &job.toolchain);
    let run = budget::with_budget(tuning.budget, || {
        Run::with_settings(&kernel, &text, &script_name, &base_dir, &settings)
    })
    .map_err(|e| plain(codes::BUDGET_EXHAUSTED, e.to_string()))??;
    let args_report = |d: Diagnostic| Report {
        diagnostic: d,
        sources: vec![(TUNE_ARGS.to_string(), tuning.specs.text.clone())],
    };
    let in_script = script_values(&text, &script_name).map_err(|d| Report {
        diagnostic: d,
        sources: vec![(script_name.clone(), text.clone())],
    })?;
    let params = params_of(&tuning.specs, &run.interp.params, &script_name, &in_script)
        .map_err(args_report)?;
    drop(run);
    if params.is_empty() {
        return Err(args_report(Diagnostic::new(
            codes::TUNE_SPEC,
            format!("`{script_name}` declares no parameter of its own: there is nothing to tune"),
        )));
    }
    if tuning.order == Order::Grid && grid_size(&params) > MAX_GRID {
        return Err(args_report(
            Diagnostic::new(
                codes::TUNE_SPEC,
                format!(
                    "the grid has {} candidates; at most {MAX_GRID} are tried",
                    grid_size(&params)
                ),
            )
            .with_help("give fewer values, or tune by coordinate descent (the default order)"),
        ));
    }
    Ok(Loaded {
        kernel,
        text,
        script_name,
        base_dir,
        params,
    })
}

impl State<'_, '_> {
    /// Coordinate descent from `x`: each parameter in turn takes its best value with the
    /// others fixed, for at most `passes` passes or until a pass changes nothing.
    fn descend(&mut self, mut x: Vec<i64>, passes: usize, phase_end: Instant) {
        let mut best = self.try_values(&x, phase_end);
        for _ in 0..passes.max(1) {
            let before = x.clone();
            for d in 0..self.params.len() {
                let mut kept = x.clone();
                for v in self.params[d].values.clone() {
                    let mut y = x.clone();
                    y[d] = v;
                    if let Some(sp) = self.try_values(&y, phase_end) {
                        if best.is_none_or(|b| sp > b) {
                            best = Some(sp);
                            kept = y;
                        }
                    }
                }
                x = kept;
            }
            if x == before || self.out_of_time {
                break;
            }
        }
    }

    /// Every combination of the parameters' values, the last parameter fastest.
    fn sweep_grid(&mut self, phase_end: Instant) {
        let dims: Vec<Vec<i64>> = self.params.iter().map(|p| p.values.clone()).collect();
        let mut idx = vec![0usize; dims.len()];
        if dims.iter().any(|d| d.is_empty()) {
            return;
        }
        loop {
            let y: Vec<i64> = idx.iter().zip(&dims).map(|(&i, d)| d[i]).collect();
            self.try_values(&y, phase_end);
            let mut k = dims.len();
            loop {
                if k == 0 {
                    break;
                }
                k -= 1;
                idx[k] += 1;
                if idx[k] < dims[k].len() {
                    break;
                }
                idx[k] = 0;
            }
            if idx.iter().all(|&i| i == 0) {
                break;
            }
        }
    }

    /// Candidates timed at the sizes given, fastest first (ties by index).
    /// The playoff ([`timing::entrants`]): the candidates of the playoff still legal,
    /// fastest first on all their rounds (none when there was no playoff).
    fn playoff(&mut self, end: Instant) -> Vec<usize> {
        let rounds = self.tuning.playoff;
        let entrants = match rounds {
            0 => vec![],
            _ => timing::entrants(&self.candidates, self.tuning.finalists),
        };
        for round in (0..rounds).take_while(|_| !entrants.is_empty()) {
            for &c in &entrants {
                let phase = format!("playoff {}/{rounds}, ", round + 1);
                self.time_again(c, false, end, &phase, true);
            }
        }
        timing::standing(&self.candidates, entrants)
    }
}

#[cfg(test)]
mod timer_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(r: &[&str], v: &[&str], p: &[&str]) -> Result<Specs, Diagnostic> {
        let s = |x: &[&str]| x.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        Specs::from_command_line(&s(r), &s(v), &s(p)).map_err(|f| f.diagnostic)
    }

    #[test]
    fn ranges_values_and_names() {
        let s = specs(&["MC=48..192:24"], &["MR=6, 8,6"], &["KC"]).unwrap();
        assert_eq!(
            s.text,
            "--range MC=48..192:24 --values MR=6, 8,6 --param KC"
        );
        assert_eq!(&s.text[s.items[1].span.clone()], "MR=6, 8,6");
        assert_eq!(
            s.items[0].candidates.values(0),
            vec![48, 72, 96, 120, 144, 168, 192]
        );
        assert_eq!(s.items[1].candidates, Candidates::Values(vec![6, 8]));
        assert_eq!(
            s.items[2].candidates.values(256),
            vec![128, 192, 256, 320, 384, 512]
        );
        let r = specs(&["N=3..5"], &[], &[]).unwrap();
        assert_eq!(r.items[0].candidates.values(0), vec![3, 4, 5]);
        let r = specs(&["N=3..8:2"], &[], &[]).unwrap();
        assert_eq!(r.items[0].candidates.values(0), vec![3, 5, 7]);
    }

    /// The message of the error and the text its first label underlines.
    fn error(r: &[&str], v: &[&str], p: &[&str]) -> (String, String) {
        let s = |x: &[&str]| x.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let f = Specs::from_command_line(&s(r), &s(v), &s(p)).unwrap_err();
        assert_eq!(f.sources[0].0, TUNE_ARGS);
        let shown = f.diagnostic.labels[0].range.clone();
        (
            f.diagnostic.message.clone(),
            f.sources[0].1[shown].to_string(),
        )
    }

    #[test]
    fn bad_arguments_point_at_themselves() {
        let (m, at) = error(&["MC=192..48:8"], &[], &[]);
        assert!(m.contains("is empty"), "{m}");
        assert_eq!(at, "192..48:8");
        let (m, at) = error(&["MC=48..192:0"], &[], &[]);
        assert!(m.contains("must be positive"), "{m}");
        assert_eq!(at, "0");
        let (m, at) = error(&["MC=48..x"], &[], &[]);
        assert!(m.contains("end of the range"), "{m}");
        assert_eq!(at, "x");
        let (m, at) = error(&["MC=48"], &[], &[]);
        assert!(m.contains("not a range"), "{m}");
        assert_eq!(at, "48");
        let (m, _) = error(&["MC=1..100000"], &[], &[]);
        assert!(m.contains("100000 values"), "{m}");
        let (m, at) = error(&[], &["MR="], &[]);
        assert!(m.contains("no values"), "{m}");
        assert_eq!(at, "MR=");
        let (m, _) = error(&["MC= "], &[], &[]);
        assert!(m.contains("no values"), "{m}");
        let (m, at) = error(&[], &["MR=4,,6"], &[]);
        assert!(m.contains("empty value"), "{m}");
        assert_eq!(at, ",,");
        let (_, at) = error(&["KC=1..2"], &["MR=4,x"], &[]);
        assert_eq!(at, "x");
        let (m, at) = error(&[], &["MR"], &[]);
        assert!(m.contains("expected NAME=VALUES"), "{m}");
        assert_eq!(at, "MR");
        let (m, at) = error(&[], &[], &["MR=4"]);
        assert!(m.contains("takes a name only"), "{m}");
        assert_eq!(at, "=4");
        let (m, at) = error(&[], &[], &["4R"]);
        assert!(m.contains("not a parameter name"), "{m}");
        assert_eq!(at, "4R");
        let (m, at) = error(&["MR=4..8"], &["MR=4"], &[]);
        assert!(m.contains("tuned twice"), "{m}");
        assert_eq!(at, "MR=4");
    }

    #[test]
    fn values_around_a_value() {
        assert_eq!(around(6), vec![3, 5, 6, 8, 9, 12]);
        assert_eq!(around(72), vec![36, 54, 72, 90, 108, 144]);
        assert_eq!(around(1), vec![1, 2]);
        assert_eq!(around(0), vec![0]);
    }

    #[test]
    fn the_tuned_script_changes_only_the_values() {
        let text = "# sizes\nparam MR = 6   # rows\nparam KC = model in [128, 256]\nparam NC\nparam X = 3\ntile(S, [MR, KC])\n";
        let out = rewrite(
            text,
            "s.loopy",
            &[("MR".into(), 8), ("KC".into(), 128), ("NC".into(), 96)],
        )
        .unwrap();
        assert_eq!(
            out,
            "# sizes\nparam MR = 8   # rows\nparam KC = 128 in [128, 256]\nparam NC = 96\nparam X = 3\ntile(S, [MR, KC])\n"
        );
    }
}
