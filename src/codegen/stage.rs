//! Stage copies: the copy plans in scan-item terms (members as positions among the placed
//! pieces, buffers laid out as the staged loops walk them), the copies' extra scan items
//! (corner, fill, write-back) placed around the staged statements (`copy::stage`), and the
//! statements' bodies (read once from their texts) with the copied arrays' accesses
//! replaced by typed buffer accesses.

use super::body::Seg;
use super::copy::Extra;
use super::place::{Body, Placed};
use crate::diag::Diagnostic;
use crate::model::copy::{BufDim, CopyPlan};
use crate::model::Scop;
use crate::presburger::Int;
use std::collections::{BTreeMap, BTreeSet};

/// The scan items of a region with its copies staged.
pub(super) struct Staging {
    /// The copy plans, members as positions in `placed`.
    pub plans: Vec<CopyPlan>,
    /// The scan items: the statements' pieces (the first `n_stmt`), then the copies'.
    pub placed: Vec<Placed>,
    pub n_stmt: usize,
    /// What item `n_stmt + e` is.
    pub extras: Vec<Extra>,
    /// Per statement item: its body, read from its text once, the copied arrays' accesses
    /// replaced by their buffers' for [`Body::Source`].
    pub texts: Vec<Vec<Seg>>,
    /// Per statement item: the copies whose buffers its body names.
    pub named: Vec<BTreeSet<usize>>,
}

impl Staging {
    /// What scan item `id` is, when it is a copy's.
    pub fn extra(&self, id: usize) -> Option<&Extra> {
        id.checked_sub(self.n_stmt).map(|e| &self.extras[e])
    }

    /// The copy a copy's item belongs to.
    pub fn copy_of(&self, id: usize) -> Option<usize> {
        self.extra(id).map(|e| match e {
            Extra::Setup(c) | Extra::Fill(c) | Extra::WriteBack(c) => *c,
        })
    }
}

/// Stages the copies `plans` (whose members are the state's pieces, each found by
/// [`Placed::piece`], in whatever order `placed` holds them).
pub(super) fn stage(
    scop: &Scop,
    placed: &[Placed],
    plans: &[CopyPlan],
    body: Body,
) -> Result<Staging, Diagnostic> {
    let n_stmt = placed.len();
    // Each plan's members as positions in `placed` (scan items), and buffers laid out in the
    // order the staged statements' loops walk them.
    let position: BTreeMap<usize, usize> = placed
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.piece.map(|piece| (piece, i)))
        .collect();
    let plans: Vec<CopyPlan> = plans
        .iter()
        .map(|c| {
            let mut c = c.clone();
            c.members = c
                .members
                .iter()
                .map(|m| {
                    *position
                        .get(m)
                        .expect("a copy plan's members are placed pieces")
                })
                .collect();
            if let Some(l) = walk_order(scop, placed, &c) {
                c.layout = l;
            }
            c
        })
        .collect();
    let staged = super::copy::stage(placed, &plans);
    let items: Vec<Placed> = staged
        .schedules
        .iter()
        .enumerate()
        .map(|(i, sch)| Placed {
            stmt: placed.get(i).map_or(0, |p| p.stmt),
            piece: placed.get(i).and_then(|p| p.piece),
            schedule: sch.clone(),
            marks: match placed.get(i) {
                Some(p) => p.marks.clone(),
                None => match &staged.extras[i - n_stmt] {
                    Extra::Fill(c) | Extra::WriteBack(c) => {
                        super::copy::item_marks(&plans[*c], placed)
                    }
                    Extra::Setup(_) => vec![],
                },
            },
        })
        .collect();
    let mut st = Staging {
        plans,
        placed: items,
        n_stmt,
        extras: staged.extras,
        texts: placed
            .iter()
            .map(|p| super::body::parse(&scop.statements[p.stmt].text))
            .collect(),
        named: vec![BTreeSet::new(); n_stmt],
    };
    if body == Body::Source {
        rewrite_texts(scop, &mut st)?;
    }
    Ok(st)
}

/// Statement texts with the copied arrays' accesses rewritten.
fn rewrite_texts(scop: &Scop, st: &mut Staging) -> Result<(), Diagnostic> {
    let plans = &st.plans;
    for (c, plan) in plans.iter().enumerate() {
        for &i in &plan.members {
            let s = &scop.statements[st.placed[i].stmt];
            if !s.accesses.iter().any(|a| a.array == plan.mark.array) {
                continue;
            }
            // A piece staged by nested copies of one array uses the innermost buffer.
            if plans
                .iter()
                .any(|p| p.source == Some(c) && p.members.contains(&i))
            {
                continue;
            }
            if s.opaque.is_some() {
                return Err(super::copy::refuse(
                    plan,
                    format!("statement {} is not modelled exactly", s.name),
                ));
            }
            st.texts[i] = super::copy::rewrite(&st.texts[i], plan, c)
                .map_err(|why| super::copy::refuse(plan, format!("{why}: `{}`", s.text)))?;
            st.named[i].insert(c);
        }
    }
    Ok(())
}

/// Iteration dim `m` such that schedule dim `2m+1` equals iterator `x` of a piece.
fn loop_of_iterator(p: &Placed, x: usize) -> Option<usize> {
    let w = p.schedule.wrap();
    let ni = p.schedule.n_in();
    let np = w.space().n_param();
    let width = 1 + np + ni + p.schedule.n_out();
    (0..p.schedule.n_out() / 2).find(|&m| {
        let mut r = vec![crate::presburger::Int::ZERO; width];
        r[1 + np + x] = crate::presburger::Int::ONE;
        r[1 + np + ni + 2 * m + 1] = crate::presburger::Int::from(-1);
        let mut above = r.clone();
        above[0] = crate::presburger::Int::from(-1);
        let mut below: Vec<_> = r.iter().map(|v| -v.clone()).collect();
        below[0] = crate::presburger::Int::from(-1);
        w.add_constraints(&[], &[above]).is_empty() && w.add_constraints(&[], &[below]).is_empty()
    })
}

/// The layout the staged statements' loops walk a copy's array in: array dims sorted by
/// the loop whose iterator each subscript follows (a subscript `x + c` of one iterator `x`
/// counted by that loop), outermost first; `None` (the array's own order) when a subscript
/// follows no single loop or the staged accesses disagree. A dimension whose iterator is
/// also counted in blocks by a loop of the window (`floor(x / b)`, as after strip-mining or
/// tiling) is split into blocks of `b` (at that loop's place) and the position inside a
/// block (at the point loop's): BLIS's micro-panels, which the innermost loops stream
/// contiguously.
fn walk_order(scop: &Scop, placed: &[Placed], plan: &CopyPlan) -> Option<Vec<BufDim>> {
    let mut level: Vec<Option<usize>> = vec![None; plan.rank];
    // Per dim: the blocking loop and block size, `Some(None)` once accesses disagree.
    let mut blocks: Vec<Option<Option<(usize, i64)>>> = vec![None; plan.rank];
    for &i in &plan.members {
        let p = &placed[i];
        let st = &scop.statements[p.stmt];
        for a in st.accesses.iter().filter(|a| a.array == plan.mark.array) {
            let [b] = a.relation.parts() else {
                return None;
            };
            let ni = a.relation.n_in();
            for (d, lv) in level.iter_mut().enumerate() {
                let col = b.col_dim(ni + d);
                let row = b.eqs().iter().find(|r| !r[col].is_zero())?;
                let ins: Vec<usize> = (0..ni).filter(|&x| !row[b.col_dim(x)].is_zero()).collect();
                let [x] = ins[..] else {
                    return None;
                };
                if !(&row[b.col_dim(x)] + &row[col]).is_zero()
                    || row[b.div_start()..].iter().any(|v| !v.is_zero())
                {
                    return None;
                }
                let m = loop_of_iterator(p, x)?;
                match lv {
                    None => *lv = Some(m),
                    Some(o) if *o == m => {}
                    Some(_) => return None,
                }
                let blk = block_loop(p, x, plan.mark.outer, m);
                blocks[d] = match blocks[d] {
                    None => Some(blk),
                    Some(prev) if prev == blk => Some(prev),
                    Some(_) => Some(None),
                };
            }
        }
    }
    let level: Vec<usize> = level.into_iter().collect::<Option<_>>()?;
    let mut dims: Vec<(usize, usize, BufDim)> = vec![];
    for d in 0..plan.rank {
        let size = plan.size[d].to_i64().unwrap_or(i64::MAX);
        match blocks[d].flatten() {
            // Buffers of run-time size keep whole dimensions.
            Some((mb, b)) if size > b && !super::copy::allocated(plan) => {
                dims.push((mb, d, BufDim::Blocks(d, b)));
                dims.push((level[d], d, BufDim::Within(d, b)));
            }
            _ => dims.push((level[d], d, BufDim::Whole(d))),
        }
    }
    dims.sort_by_key(|&(l, d, _)| (l, d));
    Some(dims.into_iter().map(|(_, _, b)| b).collect())
}

/// A loop of the window (iteration dims `outer..point`) that counts iterator `x` in blocks:
/// its schedule dim is `floor(x / b)` on the whole piece, with `b` one of the divisors the
/// schedule divides `x` by. The innermost such loop, with `b`.
fn block_loop(p: &Placed, x: usize, outer: usize, point: usize) -> Option<(usize, i64)> {
    let [sb] = p.schedule.parts() else {
        return None;
    };
    let ni = p.schedule.n_in();
    // Candidate sizes: the coefficients of schedule dims in rows that bound `x` (or the
    // point loop's dim, equal to it) by them; each is checked below.
    let (col_x, col_p) = (sb.col_dim(x), sb.col_dim(ni + 2 * point + 1));
    let mut sizes: Vec<i64> = sb
        .ineqs()
        .iter()
        .chain(sb.eqs())
        .filter(|r| r[col_x].abs().is_one() || r[col_p].abs().is_one())
        .flat_map(|r| {
            (outer..point)
                .filter_map(|m| r[sb.col_dim(ni + 2 * m + 1)].abs().to_i64())
                .collect::<Vec<_>>()
        })
        .filter(|&b| b > 1)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let w = p.schedule.wrap();
    let np = w.space().n_param();
    let width = 1 + np + ni + p.schedule.n_out();
    let implied = |r: Vec<Int>| w.add_constraints(&[], &[r]).is_empty();
    (outer..point).rev().find_map(|m| {
        sizes.iter().find_map(|&b| {
            // floor(x / b) = θ: x - bθ >= 0 and bθ + b - 1 - x >= 0 on the piece, so
            // neither negation has a point.
            let col_x = 1 + np + x;
            let col_t = 1 + np + ni + 2 * m + 1;
            let mut below = vec![Int::ZERO; width];
            below[0] = Int::from(-1);
            below[col_x] = Int::from(-1);
            below[col_t] = Int::from(b);
            let mut above = vec![Int::ZERO; width];
            above[0] = Int::from(-b);
            above[col_x] = Int::ONE;
            above[col_t] = Int::from(-b);
            (implied(below) && implied(above)).then_some((m, b))
        })
    })
}
