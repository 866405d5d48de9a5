//! Witnesses of violations: statement instances with their old and new times, evaluated at
//! the witness's parameter values, and how reports name them (statements, instances,
//! elements, parameter values). Every check (`check.rs`, `marks.rs`, `copies.rs`,
//! `contract.rs`) builds its witnesses with these; `violation.rs` gathers the checks'
//! findings into [`Violation`](super::Violation)s.

use super::deps::Program;
use crate::presburger::{Int, Map};

/// A concrete statement instance with its old and new schedule times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    pub stmt: usize,
    pub iters: Vec<Int>,
    pub old_time: Vec<Int>,
    pub new_time: Vec<Int>,
}

/// Evaluates a function-like map at a point (parameters by name).
pub(crate) fn eval(m: &Map, params: &[(String, Int)], x: &[Int]) -> Option<Vec<Int>> {
    let m = m.fix_params(params.iter().map(|(n, v)| (n.as_str(), v)));
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
