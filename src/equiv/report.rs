//! The verdict of `loopy equiv` for people (a coded report with both programs' source
//! spans) and as JSON.

use super::compare::Instance;
use super::{Verdict, Witness};
use crate::diag::{codes, Diagnostic, Report};
use crate::model::json::Entries;
use crate::model::Scop;
use crate::presburger::Int;
use serde::Serialize;

fn values(names: &[String], vals: &[Int]) -> String {
    names
        .iter()
        .zip(vals)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `S1 at [i = 0, k = 1]`.
fn instance(scop: &Scop, i: &Instance) -> String {
    let s = &scop.statements[i.stmt];
    let names: Vec<String> = s.loops.iter().map(|l| l.c_name.clone()).collect();
    format!(
        "{} at [{}] (line {}): `{}`",
        scop.stmt_name(i.stmt),
        values(&names, &i.coords),
        s.span.line,
        s.text
    )
}

fn element(w: &Witness) -> String {
    match &w.mismatch.element {
        Some(e) => format!(
            "{}{}",
            w.output,
            e.iter().map(|v| format!("[{v}]")).collect::<String>()
        ),
        None => format!("an element of `{}`", w.output),
    }
}

/// The one-line summary of an equivalence.
pub fn summary(v: &Verdict, a: &Scop) -> String {
    match v {
        Verdict::Equivalent {
            outputs,
            parallel,
            vector,
            stops,
            reassociated,
            versions,
        } => format!(
            "{}: {} hold the same values after both regions, for every value of {}{}{}{}{}",
            match reassociated.is_empty() {
                true => "equivalent".to_string(),
                false => format!(
                    "equivalent up to reassociation of {}",
                    reassociated.join(" and of ")
                ),
            },
            outputs
                .iter()
                .map(|o| format!("`{o}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if a.params.is_empty() {
                "the parameters (there are none)".to_string()
            } else {
                a.params.join(", ")
            },
            match parallel {
                0 => String::new(),
                1 => " (the OpenMP loop is free of races)".to_string(),
                n => format!(" (the {n} OpenMP loops are free of races)"),
            },
            match vector {
                0 => String::new(),
                1 => " (the vector operation's lanes are free of races)".to_string(),
                n => format!(" (the lanes of the {n} vector operations are free of races)"),
            },
            match stops {
                0 => String::new(),
                1 => " where the check that stops the program (an overflow or allocation check) passes".to_string(),
                n => format!(" where the {n} checks that stop the program (overflow and allocation checks) pass"),
            },
            match versions.is_empty() {
                true => String::new(),
                false => format!(", in each version of the region: {}", versions.join("; ")),
            }
        ),
        Verdict::Different(w) => format!("not equivalent: {} differs{}", element(w), in_version(w)),
        Verdict::Undecided(r) => format!("not decided: {}", r.what),
    }
}

/// The report of a difference or of a refusal (`None` for an equivalence).
pub fn report(v: &Verdict, a: &Scop, b: &Scop) -> Option<Report> {
    let d = match v {
        Verdict::Equivalent { .. } => return None,
        Verdict::Different(w) => different(w, a, b),
        Verdict::Undecided(r) => {
            let mut d = Diagnostic::new(
                codes::EQUIV_UNDECIDED,
                format!("cannot decide equivalence: {}", r.what),
            );
            if let Some(s) = &r.span {
                d = d.with_label(&s.file, s.range.clone(), "this construct");
            }
            d.with_help(
                "`loopy equiv` decides static affine regions of assignments (docs/equiv.md)",
            )
        }
    };
    Some(Report {
        sources: sources(&d),
        diagnostic: d,
    })
}

/// ` in the transformed version (…)` where the witness is of one version of the second
/// program.
fn in_version(w: &Witness) -> String {
    w.version
        .as_ref()
        .map_or(String::new(), |v| format!(" in {v}"))
}

fn different(w: &Witness, a: &Scop, b: &Scop) -> Diagnostic {
    let m = &w.mismatch;
    let mut d = Diagnostic::new(
        codes::NOT_EQUIVALENT,
        format!(
            "the programs are not equivalent: {} differs{}",
            element(w),
            in_version(w)
        ),
    );
    if let Some(i) = &m.left {
        let s = &a.statements[i.stmt].span;
        d = d.with_label(&s.file, s.range.clone(), "the original computes this");
    }
    if let Some(i) = &m.right {
        let s = &b.statements[i.stmt].span;
        d = d.with_label(&s.file, s.range.clone(), "the other program computes this");
    }
    d = d.with_note(format!("for {}", values(&w.params, &m.params)));
    if let Some(i) = &m.left {
        d = d.with_note(format!("original: {}", instance(a, i)));
    }
    if let Some(i) = &m.right {
        d = d.with_note(format!("other: {}", instance(b, i)));
    }
    d.with_note(format!("what differs: {}", m.why))
}

fn sources(d: &Diagnostic) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = vec![];
    for l in &d.labels {
        if !v.iter().any(|(n, _)| *n == l.source) {
            if let Ok(t) = std::fs::read_to_string(&l.source) {
                v.push((l.source.clone(), t));
            }
        }
    }
    v
}

/// The verdict as JSON.
#[derive(Serialize)]
pub struct VerdictJson<'a> {
    verdict: &'static str,
    exit_code: i32,
    summary: String,
    #[serde(flatten)]
    different: Option<DifferentJson<'a>>,
    #[serde(flatten)]
    undecided: Option<UndecidedJson<'a>>,
}

/// Where the two regions differ: the parameters, the element and the instances that
/// write it last on each side.
#[derive(Serialize)]
struct DifferentJson<'a> {
    parameters: Entries<&'a str, String>,
    element: String,
    original: Option<String>,
    other: Option<String>,
    differs: &'a str,
}

/// Why no verdict, and where.
#[derive(Serialize)]
struct UndecidedJson<'a> {
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
}

/// The verdict as JSON.
pub fn json<'a>(v: &'a Verdict, a: &Scop, b: &Scop) -> VerdictJson<'a> {
    let (verdict, exit_code) = match v {
        Verdict::Equivalent { reassociated, .. } if !reassociated.is_empty() => {
            ("equivalent-up-to-reassociation", 0)
        }
        Verdict::Equivalent { .. } => ("equivalent", 0),
        Verdict::Different(_) => ("not-equivalent", 1),
        Verdict::Undecided(_) => ("undecided", 2),
    };
    let different = match v {
        Verdict::Different(w) => {
            let m = &w.mismatch;
            let params = w.params.iter().zip(&m.params);
            let inst = |s: &Scop, i: &Option<Instance>| i.as_ref().map(|i| instance(s, i));
            Some(DifferentJson {
                parameters: Entries(params.map(|(n, x)| (n.as_str(), x.to_string())).collect()),
                element: element(w),
                original: inst(a, &m.left),
                other: inst(b, &m.right),
                differs: &m.why,
            })
        }
        _ => None,
    };
    let undecided = match v {
        Verdict::Undecided(r) => Some(UndecidedJson {
            reason: &r.what,
            file: r.span.as_ref().map(|s| s.file.as_str()),
            line: r.span.as_ref().map(|s| s.line),
        }),
        _ => None,
    };
    VerdictJson {
        verdict,
        exit_code,
        summary: summary(v, a),
        different,
        undecided,
    }
}
