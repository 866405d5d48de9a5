//! Legality of loop marks (`parallel`, `vectorize`) on the final schedule. (`unroll` keeps
//! the order of its loop, so it needs no test and is skipped here.)
//!
//! The generated loop scanning schedule dim `2j+1` encloses every piece whose positions
//! `p0..pj` are equal (scanning separates pieces by their constant position dims first); it
//! carries a mark when any of those pieces is marked at iteration dim `j` (see the code
//! generator). Such a loop runs its iterations in any order, or at once, so it is legal iff
//! no dependence — flow, anti or output, memory-based — holds between two instances of the
//! statements it encloses that have equal schedule times before dim `2j+1` and different
//! times at it. The test is exact (an emptiness question per dependence, pair of pieces and
//! marked dim); a violation comes with the smallest witness.
//!
//! Scanning may split one marked dim into several loops (full and partial tiles, head and
//! tail); the test treats them as one, which can only refuse more, never less.
//!
//! A `parallel` mark with a reduction operator (`parallel(l, k, +)`) is judged *element by
//! element*. The *update accesses* of a statement that updates an element with that
//! operator (`s += e`, `A[i][j] -= e`: the write and the read of the element updated; see
//! [`crate::model::Statement::update`]) may depend on each other across iterations: updates
//! by one associative and commutative operator can run in any order. Every other dependence
//! between two iterations is refused as for `parallel`, in particular one between an update
//! and another access (which would observe a partial value). An access that touches an
//! element updated in its own iteration only is no concern: every other iteration leaves
//! that element alone. So `e` may read other elements of the array (trmm's
//! `B[i][j] += A[k][i] * B[k][j]` with `k` parallel reads rows the loop never updates), but
//! not an element the loop updates in another iteration.

use super::deps::{at_level, joint_raw, AccessKind, DepKind, Dependence, Order, Program};
use super::witness::{
    element, eval, fmt_vec, instance_label, joint_params, name_of, named_params, with_params,
};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{Mark, MarkKind, Piece, RedOp};
use crate::presburger::{Int, Map};
use std::fmt::Write;

/// A dependence between two different iterations of a marked loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkViolation {
    /// The mark (one of the enclosed pieces' marks on that loop).
    pub mark: Mark,
    /// Index of the dependence.
    pub dep: usize,
    pub params: Vec<(String, Int)>,
    /// Source and sink iteration vectors.
    pub source: Vec<Int>,
    pub sink: Vec<Int>,
    /// Their final schedule times.
    pub source_time: Vec<Int>,
    pub sink_time: Vec<Int>,
    /// The schedule dim of the marked loop (`2j+1`).
    pub level: usize,
    /// For a reduction mark: why the dependence's array is not a reduction variable of the
    /// loop (a statement inside it that accesses the array other than by the operator).
    pub not_reduction: Option<String>,
}

/// The smallest witness so far: (parameters, i, j), the parameter names, the mark.
type Witness = (Vec<Int>, Vec<String>, Mark);

/// The mark on the generated loop at iteration dim `j` that encloses pieces with positions
/// starting with `pos[..=j]`, if any.
pub(crate) fn loop_mark<'a>(pieces: &'a [Piece], pos: &[Int], j: usize) -> Option<&'a Mark> {
    pieces
        .iter()
        .filter(|r| r.pos.len() > j && r.pos[..=j] == pos[..=j])
        .find_map(|r| r.mark_at(j).filter(|m| m.kind.reorders()))
}

/// The pieces the generated loop at iteration dim `j` around positions `pos` encloses.
pub fn enclosed<'a>(
    pieces: &'a [Piece],
    pos: &'a [Int],
    j: usize,
) -> impl Iterator<Item = &'a Piece> {
    pieces
        .iter()
        .filter(move |r| r.pos.len() > j && r.pos[..=j] == pos[..=j])
}

/// Whether access `a` (an index into `program.accesses`) is an update access for `op`: the
/// write or the read of the element its statement updates with `op`.
pub fn update_access(program: &Program, a: usize, op: RedOp) -> bool {
    let acc = &program.accesses[a];
    let Some(u) = &program.stmts[acc.stmt].update else {
        return false;
    };
    if u.op != op || u.array != acc.array {
        return false;
    }
    if acc.kind == AccessKind::Write {
        return true;
    }
    let mine = || (program.accesses.iter()).filter(|x| x.stmt == acc.stmt && x.array == acc.array);
    let write = mine().find(|w| w.kind == AccessKind::Write);
    let Some(w) = write.and_then(|w| w.relation.as_ref()) else {
        return false;
    };
    let same = |x: &super::deps::ProgramAccess| {
        x.kind == AccessKind::Read && x.relation.as_ref().is_some_and(|r| r.is_equal(w))
    };
    // The update's own read: the one read of the element written (two would mean `e`
    // reads it too, and then neither is the update's).
    same(acc) && mine().filter(|x| same(x)).count() == 1
}

/// Whether a reduction mark for `op` allows a dependence between two iterations: when both
/// its ends are update accesses.
fn reduction_allows(program: &Program, d: &Dependence, op: RedOp) -> bool {
    update_access(program, d.source_access, op) && update_access(program, d.sink_access, op)
}

/// Why a dependence refused under a reduction mark for `op` is not part of the reduction:
/// what the statement at its non-update end does.
fn not_reduction_reason(program: &Program, d: &Dependence, op: RedOp) -> String {
    let src = update_access(program, d.source_access, op);
    let snk = update_access(program, d.sink_access, op);
    let (a, other) = if snk && !src {
        (d.source_access, d.sink)
    } else {
        (d.sink_access, d.source)
    };
    let acc = &program.accesses[a];
    let s = acc.stmt;
    let what = match &program.stmts[s].update {
        Some(u) if u.array == acc.array && u.op != op => {
            format!("updates it with `{}`, not `{}`", u.op.symbol(), op.symbol())
        }
        _ if acc.kind == AccessKind::Write => {
            "writes it other than by an update `x = x op e`".to_string()
        }
        _ => "reads it".to_string(),
    };
    if src != snk {
        format!(
            "{} {what}, and {} updates that element with `{}` in another iteration",
            name_of(program, s),
            name_of(program, other),
            op.symbol()
        )
    } else {
        format!("{} {what}", name_of(program, s))
    }
}

/// Every dependence between different iterations of a marked loop of the final schedule,
/// one violation (the smallest witness) per dependence and marked loop.
pub fn check_marks(program: &Program, deps: &[Dependence], pieces: &[Piece]) -> Vec<MarkViolation> {
    if pieces
        .iter()
        .all(|p| p.marks.iter().all(|m| !m.kind.reorders()))
    {
        return vec![];
    }
    let scheds: Vec<Map> = pieces.iter().map(Piece::schedule).collect();
    let mut out = vec![];
    for (di, d) in deps.iter().enumerate() {
        let rel = d.relation().with_space_names(
            program.stmts[d.source].domain.tuple().clone(),
            program.stmts[d.sink].domain.tuple().clone(),
        );
        let (ni, nj) = (rel.n_in(), rel.n_out());
        // Per marked loop (iteration dim j): the smallest witness over all piece pairs.
        let mut best: Vec<Option<Witness>> = vec![];
        for (pi, p) in pieces
            .iter()
            .enumerate()
            .filter(|(_, p)| p.stmt == d.source)
        {
            for (qi, q) in pieces.iter().enumerate().filter(|(_, q)| q.stmt == d.sink) {
                let n = scheds[pi].n_out();
                let m = p.it.n_out();
                if best.len() < m {
                    best.resize(m, None);
                }
                let mut joint = None;
                #[allow(clippy::needless_range_loop)]
                for j in 0..m {
                    if p.pos[j] != q.pos[j] {
                        break;
                    }
                    let Some(mark) = loop_mark(pieces, &p.pos, j) else {
                        continue;
                    };
                    if let MarkKind::Parallel {
                        reduction: Some(op),
                    } = mark.kind
                    {
                        if reduction_allows(program, d, op) {
                            continue;
                        }
                    }
                    let l = 2 * j + 1;
                    let joint =
                        joint.get_or_insert_with(|| joint_raw(&rel, &scheds[pi], &scheds[qi]));
                    for b in joint.iter() {
                        let jp = b.n_param();
                        for order in [Order::Before, Order::After] {
                            let mut t = at_level(b, ni + nj, n, l, order);
                            if !t.normalize() {
                                continue;
                            }
                            if let Some(w) = t.lexmin_prefix(jp + ni + nj) {
                                let better = best[j].as_ref().is_none_or(|(x, _, _)| w < *x);
                                if better {
                                    let names = joint_params(&rel, &scheds[pi], &scheds[qi]);
                                    best[j] = Some((w, names, mark.clone()));
                                }
                            }
                        }
                    }
                }
            }
        }
        for (j, b) in best.into_iter().enumerate() {
            let Some((w, names, mark)) = b else {
                continue;
            };
            let not_reduction = match mark.kind {
                MarkKind::Parallel {
                    reduction: Some(op),
                } => Some(not_reduction_reason(program, d, op)),
                _ => None,
            };
            let jp = names.len();
            let params = named_params(&names, &w[..jp]);
            let (i, k) = (w[jp..jp + ni].to_vec(), w[jp + ni..jp + ni + nj].to_vec());
            let time = |s: usize, x: &[Int]| {
                pieces
                    .iter()
                    .zip(&scheds)
                    .filter(|(p, _)| p.stmt == s)
                    .find_map(|(_, m)| eval(m, &params, x))
                    .unwrap_or_default()
            };
            out.push(MarkViolation {
                mark,
                dep: di,
                source_time: time(d.source, &i),
                sink_time: time(d.sink, &k),
                params,
                source: i,
                sink: k,
                level: 2 * j + 1,
                not_reduction,
            });
        }
    }
    out
}

/// A report for a mark violation: the two iterations, the element, both statements with
/// their C lines, and the operation that set the mark.
pub fn mark_report(p: &Program, deps: &[Dependence], v: &MarkViolation) -> Diagnostic {
    let dep = &deps[v.dep];
    let what = v.mark.kind.describe();
    let kind = match v.mark.kind {
        crate::model::state::MarkKind::Vectorize => "vectorized",
        crate::model::state::MarkKind::Parallel { .. } => "parallel",
        crate::model::state::MarkKind::Unroll { .. } => "unrolled",
    };
    let verb = match dep.kind {
        DepKind::Flow => ("writes", "reads"),
        DepKind::Anti => ("reads", "writes"),
        DepKind::Output => ("writes", "writes"),
    };
    let with = with_params(&v.params);
    let at = |t: &[Int]| t.get(v.level).map_or("?".to_string(), Int::to_string);
    let elem = element(p, dep.source_access, &v.params, &v.source);
    let inst = |s: usize, x: &[Int]| instance_label(p, s, x);
    let mut d = Diagnostic::new(codes::ILLEGAL_MARK, format!(
        "illegal `{what}`: iterations {} and {} of the {kind} loop both access {elem}: {} {} it, {} {} it",
        at(&v.source_time),
        at(&v.sink_time),
        name_of(p, dep.source),
        verb.0,
        name_of(p, dep.sink),
        verb.1,
    ))
    .with_note(format!(
        "{with}{} runs at ({}) and {} at ({}); the {kind} loop is schedule dimension {} — {} {} dependence on `{}` between two of its iterations",
        inst(dep.source, &v.source),
        fmt_vec(&v.source_time),
        inst(dep.sink, &v.sink),
        fmt_vec(&v.sink_time),
        v.level,
        if dep.kind == DepKind::Flow { "a" } else { "an" },
        dep.kind.name(),
        dep.array,
    ));
    for (s, x, role) in [(dep.source, &v.source, verb.0), (dep.sink, &v.sink, verb.1)] {
        if let Some(o) = &p.stmts[s].origin {
            d = d.with_label(
                &o.source,
                o.span.clone(),
                format!("{} {role} {elem}", inst(s, x)),
            );
        }
    }
    d = d.with_label(
        &v.mark.origin.source,
        v.mark.origin.span.clone(),
        format!(
            "marked `{what}` here (loop {} of the final schedule)",
            v.level / 2 + 1
        ),
    );
    if let (
        MarkKind::Parallel {
            reduction: Some(op),
        },
        Some(why),
    ) = (&v.mark.kind, &v.not_reduction)
    {
        d = d.with_note(format!(
            "this access to `{}` is not part of a `{}` reduction of the loop: {why}; inside the loop, an element updated by `{}` may only be updated by `{}`, and read by nothing else",
            dep.array,
            op.symbol(),
            op.symbol(),
            op.symbol()
        ));
    }
    let update = |s: usize| {
        p.stmts[s]
            .update
            .as_ref()
            .is_some_and(|u| u.array == dep.array)
    };
    let updates = update(dep.source) && update(dep.sink);
    if !updates
        && dep.array.chars().all(|c| c.is_alphanumeric() || c == '_')
        && p.accesses[dep.source_access]
            .relation
            .as_ref()
            .is_some_and(|r| r.n_out() == 0)
    {
        d = d.with_help(format!(
            "`{}` is one variable shared by every iteration; declare it inside the loop body to give each iteration its own",
            dep.array
        ));
    }
    d
}

/// A generated loop of the final schedule and whether it may be marked `parallel`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParallelLoop {
    /// Iteration dim (loop `dim + 1` of its statements).
    pub dim: usize,
    /// The positions `p0..p_dim` every piece it encloses starts with.
    pub pos: Vec<Int>,
    /// The statements it encloses, in order.
    pub stmts: Vec<usize>,
    /// `Some(None)`: `parallel` is legal; `Some(Some(op))`: only `parallel(op)` is;
    /// `None`: neither.
    pub legal: Option<Option<RedOp>>,
}

/// Every generated loop of the final schedule (one per iteration dim and position prefix;
/// scanning may split it into several, which share the verdict) with the exact verdict of
/// [`check_marks`] for a `parallel` mark on it, or else for the first reduction operator
/// that some enclosed statement updates with and that makes it legal. Marks already on the
/// pieces are ignored.
pub fn parallel_loops(
    program: &Program,
    deps: &[Dependence],
    pieces: &[Piece],
) -> Vec<ParallelLoop> {
    let mut keys: Vec<(Vec<Int>, usize)> = vec![];
    for p in pieces {
        for j in 0..p.depth.min(p.it.n_out()) {
            let key = (p.pos[..=j].to_vec(), j);
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys.sort();
    let mut out = vec![];
    for (pos, j) in keys {
        let mut stmts: Vec<usize> = enclosed(pieces, &pos, j).map(|p| p.stmt).collect();
        stmts.sort_unstable();
        stmts.dedup();
        let legal_with = |reduction: Option<RedOp>| {
            let mark = Mark {
                dim: j,
                kind: MarkKind::Parallel { reduction },
                origin: crate::model::state::Origin {
                    source: String::new(),
                    span: 0..0,
                    what: String::new(),
                },
                step: 0,
            };
            let test: Vec<Piece> = pieces
                .iter()
                .map(|p| {
                    let mut p = p.clone();
                    p.marks.clear();
                    if p.pos.len() > j && p.pos[..=j] == pos[..] {
                        p.marks.push(mark.clone());
                    }
                    p
                })
                .collect();
            check_marks(program, deps, &test).is_empty()
        };
        let legal = if legal_with(None) {
            Some(None)
        } else {
            [RedOp::Add, RedOp::Mul, RedOp::Min, RedOp::Max]
                .into_iter()
                .filter(|op| {
                    stmts.iter().any(|&s| {
                        program.stmts[s]
                            .update
                            .as_ref()
                            .is_some_and(|u| u.op == *op)
                    })
                })
                .find(|op| legal_with(Some(*op)))
                .map(Some)
        };
        out.push(ParallelLoop {
            dim: j,
            pos,
            stmts,
            legal,
        });
    }
    out
}

/// The loops of the final schedule that may be marked `parallel` (`loopy show --script`):
/// one line per generated loop that is, naming it by its loop number and the statements it
/// encloses, with the reduction operator when only `parallel(l, k, op)` is legal. `prog` and
/// `deps` are the program of the final state (its expansions applied) and its dependences.
pub fn render_parallel_loops(prog: &Program, deps: &[Dependence], pieces: &[Piece]) -> String {
    let loops = parallel_loops(prog, deps, pieces);
    let mut out = String::new();
    let legal: Vec<_> = loops.iter().filter(|l| l.legal.is_some()).collect();
    let _ = writeln!(
        out,
        "  parallel loops ({} of {} loops):",
        legal.len(),
        loops.len()
    );
    for l in legal {
        let names: Vec<String> = (l.stmts.iter())
            .map(|&s| {
                let st = &prog.stmts[s];
                st.label.clone().unwrap_or_else(|| st.name.clone())
            })
            .collect();
        let how = match l.legal {
            Some(Some(op)) => format!("parallel({})", op.symbol()),
            _ => "parallel".to_string(),
        };
        let _ = writeln!(
            out,
            "    loop {} around {}: {how}",
            l.dim + 1,
            names.join(", ")
        );
    }
    out
}
