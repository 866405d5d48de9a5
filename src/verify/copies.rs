//! Legality of copies into local buffers (`copy(l, k, A)`) on the final schedule.
//!
//! For every iteration `t` of the copy's outer `k` loops, the generated code fills the
//! buffer with the footprint `F(t)` of the staged instances, runs the *window* — every piece
//! whose positions `p0..p(k-1)` are the staged pieces' and whose `pk` lies between the
//! staged pieces' first and last, in schedule order — with the staged instances reading and
//! writing the buffer, then writes back the elements they write, `W(t)`. That equals running
//! the window on the array itself iff no instance of the window that is not staged
//! - writes an element of `F(t)` (a staged instance would miss the new value, or the
//!   write-back would overwrite it), or
//! - reads an element of `W(t)` (it would miss a staged write, which is still in the
//!   buffer).
//!
//! Reads of elements the staged instances only read are harmless and accepted. The test is
//! exact: one emptiness question per pair of (unstaged, staged) pieces and pair of
//! accesses, with the smallest witness when it is not empty. Staged instances only touch
//! elements of `F(t)` (the footprint is computed from their own exact accesses), so none
//! reads outside what was filled.
//!
//! `copy_written(l, k, A)` buffers only `W(t)`: a staged statement's accesses with its own
//! write's subscripts use the buffer, its other accesses use the array. Those other
//! accesses are checked as unstaged ones are (none may read an element of `W(t)`), and
//! the unstaged instances against the buffered accesses only.
//!
//! Several copies of one array are each checked this way, on the original accesses. The
//! planner admits only compositions for which that is exact (`plan::copy::nest`): copies
//! whose windows are apart; a copy nested in one that stages all its pieces (it fills from
//! the outer buffer: an unstaged piece of its window that the outer copy stages touches the
//! outer buffer at the element it would touch in the array, and one the outer copy does not
//! stage is already refused by the outer copy's check if it conflicts); and a copy nested in
//! one that stages none of its pieces (the outer check sees the inner staged instances as
//! unstaged ones, and the inner fill and write-back touch only the elements those
//! instances touch, inside the outer window).

use super::deps::{AccessKind, Program};
use super::witness::{eval, fmt_vec, instance_label, name_of, named_params, with_params};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::copy::CopyPlan;
use crate::model::state::{outer_of, CopyMark, Piece};
use crate::presburger::{Int, Map, Space, Tuple};

/// An instance outside the staged set that touches a buffered element inside the window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyViolation {
    pub mark: CopyMark,
    pub params: Vec<(String, Int)>,
    /// The unstaged instance and what it does to the element.
    pub other_stmt: usize,
    pub other: Vec<Int>,
    pub other_writes: bool,
    /// A staged instance of the same outer iteration touching the same element.
    pub staged_stmt: usize,
    pub staged: Vec<Int>,
    pub staged_writes: bool,
    /// The element and the outer iteration.
    pub element: Vec<Int>,
    pub outer: Vec<Int>,
    pub other_time: Vec<Int>,
    pub staged_time: Vec<Int>,
    /// The other access is a staged statement's own access to the array (`copy_written`:
    /// one not written as its write, which reads the array).
    pub other_staged: bool,
}

fn relation(p: &Program, a: usize) -> Map {
    let acc = &p.accesses[a];
    match &acc.relation {
        Some(r) => r.clone(),
        None => {
            // Any element: the universe of the statement's instances to the array.
            let params: Vec<&str> = p.params.iter().map(String::as_str).collect();
            let dom = p.stmts[acc.stmt].domain.tuple().clone();
            let rank = p
                .accesses
                .iter()
                .filter(|b| b.array == acc.array)
                .find_map(|b| b.relation.as_ref().map(Map::n_out))
                .unwrap_or(0);
            Map::universe(Space::map(&params, dom, Tuple::anonymous(rank, "e")))
        }
    }
}

/// Every copy with an unstaged instance touching a buffered element in its window (the
/// smallest witness per copy).
pub fn check_copies(program: &Program, plans: &[CopyPlan], pieces: &[Piece]) -> Vec<CopyViolation> {
    let mut out = vec![];
    for plan in plans {
        let k = plan.mark.outer;
        let array = &plan.mark.array;
        let window: Vec<usize> = (0..pieces.len())
            .filter(|i| !plan.members.contains(i))
            .filter(|&i| {
                let p = &pieces[i];
                p.pos[..k] == plan.prefix[..] && p.pos[k] >= plan.first && p.pos[k] <= plan.last
            })
            .collect();
        let accesses = |stmt: usize| -> Vec<usize> {
            (0..program.accesses.len())
                .filter(|&a| {
                    program.accesses[a].stmt == stmt && program.accesses[a].array == *array
                })
                .collect()
        };
        // `copy_written`: a staged statement's accesses that use the buffer (its write's
        // own subscripts), and those that use the array.
        let buffered = |stmt: usize, buffer: bool| -> Vec<usize> {
            let all = accesses(stmt);
            if !plan.mark.written_only {
                return if buffer { all } else { vec![] };
            }
            let write = all
                .iter()
                .find(|&&a| program.accesses[a].kind == AccessKind::Write)
                .map(|&a| relation(program, a));
            all.into_iter()
                .filter(|&a| {
                    write
                        .as_ref()
                        .is_some_and(|w| w.is_equal(&relation(program, a)))
                        == buffer
                })
                .collect()
        };
        let others = window
            .iter()
            .map(|&i| (i, accesses(pieces[i].stmt), false))
            .chain(
                plan.members
                    .iter()
                    .map(|&i| (i, buffered(pieces[i].stmt, false), true)),
            );
        let mut best: Option<(Vec<Int>, CopyViolation)> = None;
        for (yi, ay_list, other_staged) in others {
            let y = &pieces[yi];
            if ay_list.is_empty() {
                continue;
            }
            let ty = outer_of(y, k);
            for &xi in &plan.members {
                let x = &pieces[xi];
                let tx = outer_of(x, k);
                let same_t = ty.apply_range(&tx.inverse());
                for &ay in &ay_list {
                    let y_writes = program.accesses[ay].kind == AccessKind::Write;
                    for ax in buffered(x.stmt, true) {
                        let x_writes = program.accesses[ax].kind == AccessKind::Write;
                        if !y_writes && !x_writes {
                            continue;
                        }
                        let ry = relation(program, ay);
                        let rx = relation(program, ax);
                        let same_e = ry.apply_range(&rx.inverse());
                        let both = same_t.intersect(&same_e);
                        if both.is_empty() {
                            continue;
                        }
                        // The witness shown is, when there is one, a pair whose order makes
                        // the error visible: a staged access after an unstaged write (it
                        // reads the stale buffer), or an unstaged read after a staged write
                        // (it misses the value in the buffer).
                        let (sy, sx) = (y.schedule(), x.schedule());
                        let n = sy.n_out();
                        let lt = Map::lex_lt(vec![], Tuple::anonymous(n, "s"));
                        let order = if y_writes {
                            sy.apply_range(&lt).apply_range(&sx.inverse())
                        } else {
                            sy.apply_range(&lt.inverse()).apply_range(&sx.inverse())
                        };
                        let ordered = both.intersect(&order);
                        let visible = !ordered.is_empty();
                        let shown = if visible { ordered } else { both };
                        let Some(w) = shown.wrap().lexmin_with_params() else {
                            continue;
                        };
                        let both = shown;
                        let np = both.space().n_param();
                        let _ = np;
                        let params = named_params(&both.space().params, &w.params);
                        let ni = both.n_in();
                        let (yv, xv) = (w.coords[..ni].to_vec(), w.coords[ni..].to_vec());
                        let mut key = vec![Int::from(i64::from(!visible))];
                        key.extend(w.params.iter().cloned());
                        key.extend(w.coords.iter().cloned());
                        if best.as_ref().is_some_and(|(b, _)| *b <= key) {
                            continue;
                        }
                        let element = eval(&ry, &params, &yv).unwrap_or_default();
                        let outer = eval(&tx, &params, &xv).unwrap_or_default();
                        let other_time = eval(&y.schedule(), &params, &yv).unwrap_or_default();
                        let staged_time = eval(&x.schedule(), &params, &xv).unwrap_or_default();
                        best = Some((
                            key,
                            CopyViolation {
                                mark: plan.mark.clone(),
                                params,
                                other_stmt: y.stmt,
                                other: yv,
                                other_writes: y_writes,
                                staged_stmt: x.stmt,
                                staged: xv,
                                staged_writes: x_writes,
                                element,
                                outer,
                                other_time,
                                staged_time,
                                other_staged,
                            },
                        ));
                    }
                }
            }
        }
        out.extend(best.map(|(_, v)| v));
    }
    out
}

/// The report: the unstaged instance, the element, the staged instance, both statements
/// with their lines, and the copy.
pub fn copy_report(p: &Program, v: &CopyViolation) -> Diagnostic {
    let array = &v.mark.array;
    let elem = if v.element.is_empty() {
        format!("`{array}`")
    } else {
        format!("`{array}[{}]`", fmt_vec(&v.element).replace(", ", "]["))
    };
    let inst = |s: usize, x: &[Int]| instance_label(p, s, x);
    let verb = |w: bool| if w { "writes" } else { "reads" };
    let op = if v.mark.written_only {
        "copy_written"
    } else {
        "copy"
    };
    let mut d = Diagnostic::new(codes::ILLEGAL_COPY, format!(
        "illegal `{op}` of `{array}`: {} {} {elem} between the fill and the write-back of its buffer",
        name_of(p, v.other_stmt),
        verb(v.other_writes),
    ))
    .with_note(format!(
        "{}in iteration ({}) of the copy's outer {} loop(s), {} runs at ({}) and {} the array while the buffer holds {elem}, which the staged {} at ({}) {}",
        with_params(&v.params),
        fmt_vec(&v.outer),
        v.mark.outer,
        inst(v.other_stmt, &v.other),
        fmt_vec(&v.other_time),
        verb(v.other_writes),
        inst(v.staged_stmt, &v.staged),
        fmt_vec(&v.staged_time),
        if v.staged_writes { "writes (into the buffer)" } else { "reads (from the buffer)" },
    ));
    if let Some(o) = &p.stmts[v.other_stmt].origin {
        d = d.with_label(
            &o.source,
            o.span.clone(),
            if v.other_staged {
                format!(
                    "{} {} {elem} in the array (not at the subscripts of its write)",
                    inst(v.other_stmt, &v.other),
                    verb(v.other_writes)
                )
            } else {
                format!(
                    "{} {} {elem}, not staged",
                    inst(v.other_stmt, &v.other),
                    verb(v.other_writes)
                )
            },
        );
    }
    if let Some(o) = &p.stmts[v.staged_stmt].origin {
        if v.staged_stmt != v.other_stmt {
            d = d.with_label(
                &o.source,
                o.span.clone(),
                format!(
                    "{} {} {elem} in the buffer",
                    inst(v.staged_stmt, &v.staged),
                    verb(v.staged_writes)
                ),
            );
        }
    }
    d.with_label(
        &v.mark.origin.source,
        v.mark.origin.span.clone(),
        format!("copied here (inside loops 1..{})", v.mark.outer),
    )
    .with_help(if v.other_staged {
        "with `copy_written`, a staged statement reads the array wherever it does not read its write's own element: copy inside more loops, so that its other accesses meet no element written in the same window, or copy every access with `copy`"
    } else {
        "stage that statement too (a group `{A, B}`), copy inside more loops, or move the statement out of the copy's loops"
    })
}
