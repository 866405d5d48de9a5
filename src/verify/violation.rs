//! Violations of a transformed schedule and their reports: the witness instances (their
//! old and new schedule times, the parameter values), the script steps that moved them, and
//! the diagnostic that names the dependence, the elements, the C lines and the steps. The
//! checks that find violations are `check.rs`, `marks.rs`, `copies.rs` and `contract.rs`.

use super::deps::{Dependence, Program};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{Piece, Step};
use crate::presburger::{Int, Map};

/// A concrete statement instance with its old and new schedule times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    pub stmt: usize,
    pub iters: Vec<Int>,
    pub old_time: Vec<Int>,
    pub new_time: Vec<Int>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// The dependence (index into the dependence list) now runs sink before source (or both
    /// at the same time).
    Dependence(usize),
    /// Two instances got the same time.
    NotOneToOne,
    /// Two different iterations of a loop marked `parallel` or `vectorize` depend on each
    /// other.
    Mark(Box<super::marks::MarkViolation>),
    /// An instance that is not staged by a `copy` touches a buffered element between the
    /// fill and the write-back.
    Copy(Box<super::copies::CopyViolation>),
    /// Iterations of an expansion that a `contract` makes share storage use it together,
    /// at once, or in an order that changes the value written back.
    Contract(Box<super::contract::ContractViolation>),
}

/// One reason the transformed schedule is illegal.
#[derive(Clone, Debug)]
pub struct Violation {
    pub kind: ViolationKind,
    /// Parameter values of the witness.
    pub params: Vec<(String, Int)>,
    pub first: Instance,
    pub second: Instance,
    /// Script steps (1-based) that changed the schedule time of either instance.
    pub moved_by: Vec<usize>,
    /// For a collision: the first step after which both instances had the same time.
    pub merged_by: Option<usize>,
}

/// The pieces' new schedules, tuple-named after their statements.
fn schedule_of(p: &Piece) -> Map {
    p.schedule()
}

/// Evaluates a function-like map at a point (parameters by name).
pub(crate) fn eval(m: &Map, params: &[(String, Int)], x: &[Int]) -> Option<Vec<Int>> {
    let mut m = m.clone();
    for (n, v) in params {
        if let Some(f) = m.fix_param(n, v) {
            m = f;
        }
    }
    let np = m.space().n_param();
    let mut rows = vec![];
    for (k, v) in x.iter().enumerate() {
        let mut r = vec![Int::ZERO; 1 + np + m.n_in() + m.n_out()];
        r[1 + np + k] = Int::ONE;
        r[0] = -v;
        rows.push(r);
    }
    let m = m.add_constraints(&rows, &[]);
    m.sample().map(|p| p.coords[m.n_in()..].to_vec())
}

/// The piece of statement `stmt` that holds iteration `x` in a list of pieces.
fn time_in(pieces: &[Piece], stmt: usize, params: &[(String, Int)], x: &[Int]) -> Option<Vec<Int>> {
    pieces
        .iter()
        .filter(|p| p.stmt == stmt)
        .find_map(|p| eval(&p.it.intersect_domain(&p.domain), params, x).map(|_| p))
        .and_then(|p| eval(&schedule_of(p), params, x))
}

/// Steps after which the time of either instance changed.
fn moved_by(
    history: &[Vec<Piece>],
    a: (usize, &[Int]),
    b: (usize, &[Int]),
    params: &[(String, Int)],
) -> Vec<usize> {
    let mut out = vec![];
    for k in 1..history.len() {
        let before = (
            time_in(&history[k - 1], a.0, params, a.1),
            time_in(&history[k - 1], b.0, params, b.1),
        );
        let after = (
            time_in(&history[k], a.0, params, a.1),
            time_in(&history[k], b.0, params, b.1),
        );
        // Positions gain dims as schedules grow; compare what the step did to each
        // instance by whether its time vector changed beyond padding.
        let changed = |x: &Option<Vec<Int>>, y: &Option<Vec<Int>>| match (x, y) {
            (Some(x), Some(y)) => {
                let trimmed = |v: &Vec<Int>| {
                    let mut v = v.clone();
                    while v.last().is_some_and(Int::is_zero) {
                        v.pop();
                    }
                    v
                };
                trimmed(x) != trimmed(y)
            }
            _ => true,
        };
        if changed(&before.0, &after.0) || changed(&before.1, &after.1) {
            out.push(k);
        }
    }
    out
}

/// The parameter order of a joint space (see [`joint`]).
pub(crate) fn joint_params(rel: &Map, a: &Map, b: &Map) -> Vec<String> {
    let mut p = rel.space().merged_params(a.space());
    for q in &b.space().params {
        if !p.contains(q) {
            p.push(q.clone());
        }
    }
    p
}

pub(crate) fn named_params(space_params: &[String], vals: &[Int]) -> Vec<(String, Int)> {
    space_params
        .iter()
        .cloned()
        .zip(vals.iter().cloned())
        .collect()
}

pub(super) fn violation(
    program: &Program,
    (pieces, history): (&[Piece], &[Vec<Piece>]),
    kind: ViolationKind,
    params: Vec<(String, Int)>,
    a: (usize, Vec<Int>),
    b: (usize, Vec<Int>),
) -> Violation {
    let old =
        |s: usize, x: &[Int]| eval(&program.stmts[s].schedule, &params, x).unwrap_or_default();
    let new = |s: usize, x: &[Int]| time_in(pieces, s, &params, x).unwrap_or_default();
    let first = Instance {
        stmt: a.0,
        old_time: old(a.0, &a.1),
        new_time: new(a.0, &a.1),
        iters: a.1.clone(),
    };
    let second = Instance {
        stmt: b.0,
        old_time: old(b.0, &b.1),
        new_time: new(b.0, &b.1),
        iters: b.1.clone(),
    };
    let moved_by = moved_by(history, (a.0, &a.1), (b.0, &b.1), &params);
    let merged_by = if kind == ViolationKind::NotOneToOne {
        (1..history.len()).find(|&k| {
            let ta = time_in(&history[k], a.0, &params, &a.1);
            ta.is_some() && ta == time_in(&history[k], b.0, &params, &b.1)
        })
    } else {
        None
    };
    Violation {
        kind,
        params,
        first,
        second,
        moved_by,
        merged_by,
    }
}

pub(crate) fn fmt_vec(v: &[Int]) -> String {
    v.iter().map(Int::to_string).collect::<Vec<_>>().join(", ")
}

pub(crate) fn instance_name(p: &Program, i: &Instance) -> String {
    instance_label(p, i.stmt, &i.iters)
}

/// `Label[i, j]` (the statement's tag, else its name) for statement `s` at `x`.
pub(crate) fn instance_label(p: &Program, s: usize, x: &[Int]) -> String {
    let st = &p.stmts[s];
    format!(
        "{}[{}]",
        st.label.clone().unwrap_or_else(|| st.name.clone()),
        fmt_vec(x)
    )
}

/// "with n = 3, m = 2: " for a witness's parameter values (nothing without parameters).
pub(crate) fn with_params(params: &[(String, Int)]) -> String {
    if params.is_empty() {
        return String::new();
    }
    let vals: Vec<String> = params.iter().map(|(n, x)| format!("{n} = {x}")).collect();
    format!("with {}: ", vals.join(", "))
}

/// A report for one violation: the dependence, the witness, and where it comes from in the
/// C file and in the script.
pub fn report(p: &Program, deps: &[Dependence], v: &Violation, steps: &[Step]) -> Diagnostic {
    if let ViolationKind::Mark(m) = &v.kind {
        return super::marks::mark_report(p, deps, m);
    }
    if let ViolationKind::Copy(c) = &v.kind {
        return super::copies::copy_report(p, c);
    }
    if let ViolationKind::Contract(c) = &v.kind {
        return super::contract::contract_report(p, c);
    }
    let (a, b) = (&v.first, &v.second);
    let with = with_params(&v.params);
    let mut d = match &v.kind {
        ViolationKind::Dependence(di) => {
            let dep = &deps[*di];
            let verb = match dep.kind {
                super::deps::DepKind::Flow => ("writes", "reads"),
                super::deps::DepKind::Anti => ("reads", "writes"),
                super::deps::DepKind::Output => ("writes", "writes"),
            };
            Diagnostic::new(
                codes::DEPENDENCE_VIOLATED,
                format!(
                    "illegal transformation: {} dependence on `{}` from {} to {} is not preserved",
                    dep.kind.name(),
                    dep.array,
                    name_of(p, dep.source),
                    name_of(p, dep.sink)
                ),
            )
            .with_note(format!(
                "{with}{} {} {} before {} {} it, but now runs at ({}) — not before ({})",
                instance_name(p, a),
                verb.0,
                element(p, dep.source_access, &v.params, &a.iters),
                instance_name(p, b),
                verb.1,
                fmt_vec(&a.new_time),
                fmt_vec(&b.new_time)
            ))
            .with_note(format!(
                "originally: {} at ({}), {} at ({})",
                instance_name(p, a),
                fmt_vec(&a.old_time),
                instance_name(p, b),
                fmt_vec(&b.old_time)
            ))
        }
        ViolationKind::Mark(_) | ViolationKind::Copy(_) | ViolationKind::Contract(_) => {
            unreachable!("reported above")
        }
        ViolationKind::NotOneToOne => Diagnostic::new(
            codes::NOT_ONE_TO_ONE,
            format!(
            "illegal transformation: the schedule is not one-to-one: {} and {} both run at ({})",
            instance_name(p, a),
            instance_name(p, b),
            fmt_vec(&a.new_time)
        ),
        )
        .with_note(format!(
            "{with}originally {} at ({}) and {} at ({})",
            instance_name(p, a),
            fmt_vec(&a.old_time),
            instance_name(p, b),
            fmt_vec(&b.old_time)
        ))
        .with_help(
            "a floor division without its remainder (`i/32` without `i%32`) merges instances",
        ),
    };
    // C lines of both statements.
    for (inst, role) in [(a, "source"), (b, "sink")] {
        if let Some(o) = &p.stmts[inst.stmt].origin {
            let role = if matches!(v.kind, ViolationKind::NotOneToOne) {
                "instance"
            } else {
                role
            };
            d = d.with_label(
                &o.source,
                o.span.clone(),
                format!("{role}: {}", instance_name(p, inst)),
            );
        }
    }
    // Script steps that moved them.
    for k in &v.moved_by {
        if let Some(s) = steps.get(k - 1) {
            let what = if v.merged_by == Some(*k) {
                format!("step {k} gave them the same time")
            } else {
                format!("step {k} moved these instances")
            };
            d = d.with_label(&s.source, s.span.clone(), what);
        }
    }
    if v.moved_by.is_empty() {
        d = d.with_note("no script step moved these instances");
    }
    d
}

/// `A[1, 2]`: the element an access touches at an instance (or just `A`).
pub(crate) fn element(p: &Program, access: usize, params: &[(String, Int)], x: &[Int]) -> String {
    let a = &p.accesses[access];
    match a.relation.as_ref().and_then(|r| eval(r, params, x)) {
        Some(idx) if !idx.is_empty() => {
            format!("`{}[{}]`", a.array, fmt_vec(&idx).replace(", ", "]["))
        }
        _ => format!("`{}`", a.array),
    }
}

pub(crate) fn name_of(p: &Program, s: usize) -> String {
    let st = &p.stmts[s];
    match (&st.label, st.line) {
        (Some(l), 0) => format!("`{l}`"),
        (Some(l), line) => format!("`{l}` (line {line})"),
        (None, 0) => st.name.clone(),
        (None, line) => format!("{} (line {line})", st.name),
    }
}
