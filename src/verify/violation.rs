//! Violations of a transformed schedule and their reports: the witness instances (their
//! old and new schedule times, the parameter values), the script steps that moved them, and
//! the diagnostic that names the dependence, the elements, the C lines and the steps. The
//! checks that find violations are `check.rs`, `marks.rs`, `copies.rs` and `contract.rs`.

use super::contract;
use super::copies::CopyViolation;
use super::deps::{Dependence, Program};
use super::marks::MarkViolation;
use super::witness::{element, eval, fmt_vec, instance_name, name_of, with_params, Instance};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::expand::ExpandPlan;
use crate::model::state::{Piece, Step};
use crate::presburger::{Int, Map};

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

/// A mark violation in the shape of the other violations (`check`'s list), with the
/// instances' original and final times.
pub fn mark_violation(p: &Program, deps: &[Dependence], v: MarkViolation) -> Violation {
    let d = &deps[v.dep];
    let old = |s: usize, x: &[Int]| eval(&p.stmts[s].schedule, &v.params, x).unwrap_or_default();
    let first = Instance {
        stmt: d.source,
        iters: v.source.clone(),
        old_time: old(d.source, &v.source),
        new_time: v.source_time.clone(),
    };
    let second = Instance {
        stmt: d.sink,
        iters: v.sink.clone(),
        old_time: old(d.sink, &v.sink),
        new_time: v.sink_time.clone(),
    };
    Violation {
        params: v.params.clone(),
        kind: ViolationKind::Mark(Box::new(v)),
        first,
        second,
        moved_by: vec![],
        merged_by: None,
    }
}

/// A copy violation in the shape of the other violations.
pub fn copy_violation(p: &Program, v: CopyViolation) -> Violation {
    let old = |s: usize, x: &[Int]| eval(&p.stmts[s].schedule, &v.params, x).unwrap_or_default();
    let first = Instance {
        stmt: v.other_stmt,
        iters: v.other.clone(),
        old_time: old(v.other_stmt, &v.other),
        new_time: v.other_time.clone(),
    };
    let second = Instance {
        stmt: v.staged_stmt,
        iters: v.staged.clone(),
        old_time: old(v.staged_stmt, &v.staged),
        new_time: v.staged_time.clone(),
    };
    Violation {
        params: v.params.clone(),
        kind: ViolationKind::Copy(Box::new(v)),
        first,
        second,
        moved_by: vec![],
        merged_by: None,
    }
}

/// Every contraction of `plans` the final schedule breaks (the smallest witness per
/// contracted expansion).
pub fn check_contractions(
    program: &Program,
    plans: &[ExpandPlan],
    pieces: &[Piece],
    history: &[Vec<Piece>],
) -> Vec<Violation> {
    let mut out = vec![];
    for plan in plans.iter().filter(|p| p.is_contracted()) {
        if let Some(v) = contract::check_one(program, plan, pieces) {
            let (a, b) = (&v.first, &v.second);
            let params = v.params.clone();
            let (pa, pb) = ((a.0, a.1.clone()), (b.0, b.1.clone()));
            out.push(violation(
                program,
                (pieces, history),
                ViolationKind::Contract(Box::new(v)),
                params,
                pa,
                pb,
            ));
        }
    }
    out
}
