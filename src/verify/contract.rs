//! Legality of `contract` on the final schedule.
//!
//! `expand(l, k, x)` gives every iteration `t` of the outer `k` loops its own copy of `x`;
//! the dependences the verifier checks are those of that expanded program. `contract(x,
//! loops)` gives some of those loops back: iterations `t1 ≠ t2` that agree on the loops
//! kept now share storage for each element `e`. A *group* is every use (read or write) of
//! one expanded element `(t, e)`; in the original order each group starts with a write
//! (`plan::expand` checked that every read reads a value of its own iteration). The
//! contracted program computes what the expanded one does under the final schedule when:
//!
//! 1. **apart**: the groups sharing a storage element never interleave. The test: let `ℓ`
//!    be the longest prefix of the final schedule's dimensions on which the two uses of every
//!    group agree (every group runs inside one iteration of the outer `ℓ` dimensions); two
//!    uses of different groups sharing an element must then differ within those `ℓ`
//!    dimensions, so that one group runs wholly before the other;
//! 2. **not concurrent**: where two such uses first differ, the loop is not marked
//!    `parallel` or `vectorize` (its iterations would share the element at once);
//! 3. **last value**: for an element written back after the region, no write of another
//!    group sharing its storage runs after the group that wrote it last in the original
//!    (the write-back reads the one storage element left).
//!
//! Each test is exact: one emptiness question per pair of pieces and pair of accesses of
//! the storage, with the smallest witness when it is not empty. The tests are sufficient,
//! not necessary: a schedule whose groups interleave only where no value is live between is
//! refused.

use super::deps::{AccessKind, Program};
use super::witness::{fmt_vec, instance_label, named_params, with_params};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::expand::ExpandPlan;
use crate::model::state::{Origin, Piece};
use crate::presburger::build::MapBuilder;
use crate::presburger::{Int, Map, Tuple};

/// What a contraction breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContractFault {
    /// Uses of two iterations sharing an element inside one iteration of the outer `level`
    /// schedule dimensions, where each iteration's own uses run.
    Together { level: usize },
    /// Uses of two iterations sharing an element in different iterations of a loop marked
    /// `parallel` or `vectorize` (schedule dimension `level`, 0-based).
    Concurrent { level: usize, mark: String },
    /// A write of another iteration after the last writer of an element written back.
    LastValue,
}

/// A contraction the final schedule does not allow, with the witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractViolation {
    pub fault: ContractFault,
    /// The expanded variable's C name and the storage's.
    pub c_name: String,
    pub storage: String,
    /// The loops the expansion was along, and those given back (0-based), each with its
    /// `contract`.
    pub outer: usize,
    pub given_back: Vec<(usize, Origin)>,
    pub params: Vec<(String, Int)>,
    /// The two uses: statement, iteration vector, whether it writes, final time.
    pub first: (usize, Vec<Int>, bool, Vec<Int>),
    pub second: (usize, Vec<Int>, bool, Vec<Int>),
    /// The expanded elements `(t, e)` the two use.
    pub first_cell: Vec<Int>,
    pub second_cell: Vec<Int>,
}

/// Adds `in[d] < out[d]` (`less`) or `in[d] > out[d]` to `m`.
fn strictly(m: &mut MapBuilder, d: usize, less: bool) {
    let mut r = m.zero_row();
    let (lo, hi) = if less {
        (m.input(d), m.output(d))
    } else {
        (m.output(d), m.input(d))
    };
    r[hi] = Int::ONE;
    r[lo] = Int::from(-1);
    r[0] = Int::from(-1);
    m.ineq(r);
}

/// `{ τ -> τ' : τ[0..l] = τ'[0..l] }` over `n` dimensions, and with `τ[l] < τ'[l]` or
/// `τ[l] > τ'[l]` added (`first_diff`).
fn prefix(n: usize, l: usize, diff: Option<bool>) -> Map {
    let a: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let b: Vec<String> = (0..n).map(|i| format!("b{i}")).collect();
    let mut m = MapBuilder::new(a, b);
    for d in 0..l {
        let mut r = m.zero_row();
        r[m.input(d)] = Int::ONE;
        r[m.output(d)] = Int::from(-1);
        m.eq(r);
    }
    if let Some(less) = diff {
        // τ[l] + 1 <= τ'[l], or the other way.
        strictly(&mut m, l, less);
    }
    m.build()
        .with_space_names(Tuple::anonymous(n, "s"), Tuple::anonymous(n, "s"))
}

/// `{ τ -> τ' : τ[0..l] = τ'[0..l], τ[l] ≠ τ'[l] }`.
fn first_diff(n: usize, l: usize) -> Map {
    prefix(n, l, Some(true)).union(&prefix(n, l, Some(false)))
}

/// `{ [t, e] -> [t', e'] : e = e', t and t' equal on `loops`, different elsewhere }` over
/// the expanded storage's `k + rank` dimensions.
fn sharing(plan: &ExpandPlan) -> Map {
    let k = plan.outer;
    let n = k + plan.rank;
    let mut given: Vec<usize> = plan.given_back.iter().map(|g| g.0).collect();
    given.sort_unstable();
    let mut out: Option<Map> = None;
    // t ≠ t' on the loops given back: the first of them (in order) where they differ.
    for (at, &g) in given.iter().enumerate() {
        for less in [true, false] {
            let a: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
            let b: Vec<String> = (0..n).map(|i| format!("b{i}")).collect();
            let mut m = MapBuilder::new(a, b);
            for d in 0..n {
                if d < k && given[at..].contains(&d) {
                    continue;
                }
                let mut r = m.zero_row();
                r[m.input(d)] = Int::ONE;
                r[m.output(d)] = Int::from(-1);
                m.eq(r);
            }
            strictly(&mut m, g, less);
            let part = m.build();
            out = Some(match out {
                None => part,
                Some(o) => o.union(&part),
            });
        }
    }
    let cells = Tuple::anonymous(n, "x");
    out.expect("a contracted plan gives a loop back")
        .with_space_names(cells.clone(), cells)
}

/// One access of the storage on one piece: `S[i] -> [t, e]` and the piece's final
/// schedule `S[i] -> [τ]`.
struct Use {
    stmt: usize,
    piece: usize,
    write: bool,
    cell: Map,
    time: Map,
}

/// The uses of a plan's storage: every access of it on every piece of its statement.
fn uses(program: &Program, plan: &ExpandPlan, pieces: &[Piece]) -> Vec<Use> {
    let n = pieces.first().map_or(0, |p| p.schedule().n_out());
    let cells = Tuple::anonymous(plan.outer + plan.rank, "x");
    let mut out = vec![];
    for a in program.accesses.iter().filter(|a| a.array == plan.name) {
        let Some(rel) = &a.relation else { continue };
        let dom = program.stmts[a.stmt].domain.tuple().clone();
        let cell = rel.clone().with_space_names(dom.clone(), cells.clone());
        for (pi, p) in pieces.iter().enumerate().filter(|(_, p)| p.stmt == a.stmt) {
            let time = p
                .schedule()
                .with_space_names(dom.clone(), Tuple::anonymous(n, "s"));
            out.push(Use {
                stmt: a.stmt,
                piece: pi,
                write: a.kind == AccessKind::Write,
                cell: cell.intersect_domain(&p.domain),
                time,
            });
        }
    }
    out
}

/// `S[i] -> U[j]` for the pairs of `a`'s and `b`'s instances whose elements are related by
/// `cells` and whose final times by `times`.
fn pairs(a: &Use, b: &Use, cells: &Map, times: &Map) -> Map {
    let by_cell = a.cell.apply_range(cells).apply_range(&b.cell.inverse());
    let by_time = a.time.apply_range(times).apply_range(&b.time.inverse());
    by_cell.intersect(&by_time)
}

/// The first fault of one contracted expansion, with its smallest witness.
pub(super) fn check_one(
    program: &Program,
    plan: &ExpandPlan,
    pieces: &[Piece],
) -> Option<ContractViolation> {
    let us = uses(program, plan, pieces);
    let n = us.first().map(|u| u.time.n_out())?;
    let cells = Tuple::anonymous(plan.outer + plan.rank, "x");
    // The same expanded element: the identity on [t, e].
    let same = prefix(plan.outer + plan.rank, plan.outer + plan.rank, None)
        .with_space_names(cells.clone(), cells.clone());
    let shared = sharing(plan);
    // ℓ: the dimensions every group's uses agree on.
    let mut level = n;
    for a in &us {
        for b in &us {
            for l in 0..level {
                if !pairs(a, b, &same, &first_diff(n, l)).is_empty() {
                    level = l;
                    break;
                }
            }
        }
    }
    let witness = |fault: ContractFault, a: &Use, b: &Use, m: &Map| -> Option<ContractViolation> {
        let p = m.wrap().lexmin_with_params()?;
        let params = named_params(&m.space().params, &p.params);
        let ni = m.n_in();
        let (x, y) = (p.coords[..ni].to_vec(), p.coords[ni..].to_vec());
        let at = |m: &Map, v: &[Int]| super::witness::eval(m, &params, v).unwrap_or_default();
        Some(ContractViolation {
            fault,
            c_name: plan.c_name.clone(),
            storage: plan.name.clone(),
            outer: plan.outer,
            given_back: plan.given_back.clone(),
            first: (a.stmt, x.clone(), a.write, at(&a.time, &x)),
            second: (b.stmt, y.clone(), b.write, at(&b.time, &y)),
            first_cell: at(&a.cell, &x),
            second_cell: at(&b.cell, &y),
            params,
        })
    };
    // The smallest witness over the pairs of uses, for one fault.
    let smallest = |found: &mut Option<(Vec<Int>, ContractViolation)>,
                    fault: ContractFault,
                    a: &Use,
                    b: &Use,
                    m: Map| {
        if m.is_empty() {
            return;
        }
        if let Some(v) = witness(fault, a, b, &m) {
            let mut key: Vec<Int> = v.params.iter().map(|p| p.1.clone()).collect();
            key.extend(v.first.1.iter().cloned());
            key.extend(v.second.1.iter().cloned());
            if found.as_ref().is_none_or(|(k, _)| key < *k) {
                *found = Some((key, v));
            }
        }
    };
    // 1. Apart.
    let mut found = None;
    let together = prefix(n, level, None);
    for a in &us {
        for b in &us {
            if !a.write && !b.write {
                continue;
            }
            let m = pairs(a, b, &shared, &together);
            smallest(&mut found, ContractFault::Together { level }, a, b, m);
        }
    }
    if let Some((_, v)) = found {
        return Some(v);
    }
    // 2. Not concurrent: where two uses of different groups first differ, no marked loop.
    let mut found = None;
    for a in &us {
        for b in &us {
            if !a.write && !b.write {
                continue;
            }
            let pa = &pieces[a.piece];
            for j in 0..pa.depth {
                let Some(mark) = super::marks::loop_mark(pieces, &pa.pos, j) else {
                    continue;
                };
                let m = pairs(a, b, &shared, &first_diff(n, 2 * j + 1));
                smallest(
                    &mut found,
                    ContractFault::Concurrent {
                        level: 2 * j + 1,
                        mark: mark.kind.describe(),
                    },
                    a,
                    b,
                    m,
                );
            }
        }
    }
    if let Some((_, v)) = found {
        return Some(v);
    }
    // 3. The last value: a write of another group sharing the element, after a use of the
    // group written back.
    let mut found = None;
    let last = plan.write_back.clone();
    let after = Map::lex_lt(vec![], Tuple::anonymous(n, "s"));
    for a in us.iter().filter(|u| u.write) {
        let a_last = Use {
            stmt: a.stmt,
            piece: a.piece,
            write: true,
            cell: a
                .cell
                .intersect_range(&last.clone().with_tuple(cells.clone())),
            time: a.time.clone(),
        };
        for b in us.iter().filter(|u| u.write) {
            let m = pairs(&a_last, b, &shared, &after);
            smallest(&mut found, ContractFault::LastValue, &a_last, b, m);
        }
    }
    found.map(|(_, v)| v)
}

/// The report: the fault, the two uses with the elements they share, the `contract` and
/// the `expand`.
pub fn contract_report(p: &Program, v: &ContractViolation) -> Diagnostic {
    let inst = |s: usize, x: &[Int]| instance_label(p, s, x);
    let verb = |w: bool| if w { "writes" } else { "reads" };
    // An iteration of the loops expanded along, by their iterators' names.
    let names = p.stmts[v.first.0].domain.tuple().dims.clone();
    let iteration = |cell: &[Int]| {
        let at: Vec<String> = cell[..v.outer]
            .iter()
            .enumerate()
            .map(|(d, x)| match names.get(d) {
                Some(n) => format!("{n} = {x}"),
                None => x.to_string(),
            })
            .collect();
        format!("({})", at.join(", "))
    };
    let (a, b) = (&v.first, &v.second);
    let elem = {
        let kept: Vec<Int> = (0..v.outer)
            .filter(|d| !v.given_back.iter().any(|g| g.0 == *d))
            .map(|d| v.first_cell[d].clone())
            .chain(v.first_cell[v.outer..].iter().cloned())
            .collect();
        if kept.is_empty() {
            format!("`{}`", v.storage)
        } else {
            format!("`{}[{}]`", v.storage, fmt_vec(&kept).replace(", ", "]["))
        }
    };
    let head = match &v.fault {
        ContractFault::Together { .. } => format!(
            "illegal `contract` of `{}`: iterations {} and {} of its expansion share {elem} and are not kept apart",
            v.c_name,
            iteration(&v.first_cell),
            iteration(&v.second_cell)
        ),
        ContractFault::Concurrent { mark, .. } => format!(
            "illegal `contract` of `{}`: iterations {} and {} of its expansion share {elem} in different iterations of a `{mark}` loop",
            v.c_name,
            iteration(&v.first_cell),
            iteration(&v.second_cell)
        ),
        ContractFault::LastValue => format!(
            "illegal `contract` of `{}`: after the region {elem} would hold the value of iteration {}, not of iteration {}, which wrote it last",
            v.c_name,
            iteration(&v.second_cell),
            iteration(&v.first_cell)
        ),
    };
    // The two uses, each with its time and iteration.
    let both = format!(
        "{} at ({}) {} it for iteration {} and {} at ({}) {} it for iteration {}",
        inst(a.0, &a.1),
        fmt_vec(&a.3),
        verb(a.2),
        iteration(&v.first_cell),
        inst(b.0, &b.1),
        fmt_vec(&b.3),
        verb(b.2),
        iteration(&v.second_cell)
    );
    let explain = match &v.fault {
        ContractFault::Together { level } => format!(
            "each iteration's uses of `{}` run inside one iteration of the final schedule's first {level} dimension(s); {both} inside the same one",
            v.c_name,
        ),
        ContractFault::Concurrent { level, mark } => format!(
            "{both}: their times first differ at dimension {} of the final schedule, a loop marked `{mark}`",
            level + 1
        ),
        ContractFault::LastValue => format!(
            "{} at ({}) writes it last in the original, and {} at ({}) writes it after that in the final schedule",
            inst(a.0, &a.1),
            fmt_vec(&a.3),
            inst(b.0, &b.1),
            fmt_vec(&b.3)
        ),
    };
    let mut d = Diagnostic::new(codes::ILLEGAL_CONTRACTION, head)
        .with_note(format!("{}{explain}", with_params(&v.params)));
    for (s, x, w, _) in [a, b] {
        if let Some(o) = &p.stmts[*s].origin {
            d = d.with_label(
                &o.source,
                o.span.clone(),
                format!("{} {} `{}`", inst(*s, x), verb(*w), v.c_name),
            );
        }
    }
    // Each `contract` with the loops it gave back.
    let mut by: Vec<(&Origin, Vec<String>)> = vec![];
    for (l, o) in &v.given_back {
        match by.iter_mut().find(|(x, _)| *x == o) {
            Some((_, ls)) => ls.push((l + 1).to_string()),
            None => by.push((o, vec![(l + 1).to_string()])),
        }
    }
    for (o, ls) in by {
        d = d.with_label(
            &o.source,
            o.span.clone(),
            format!("gives back loop(s) {}", ls.join(", ")),
        );
    }
    d.with_help("give back fewer loops, or schedule each iteration's uses apart")
}
