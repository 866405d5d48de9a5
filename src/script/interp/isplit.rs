//! `isplit(l, SET, n)`, the Loopy paper's index-set split (§3.2): the pieces of `l` split by
//! a predicate on their iteration vectors, the second half placed after the whole component
//! at level `n` (as `realign` would place it), returning both halves as new components.

use super::{add, lex_lt, sub, unit, Interpreter, OpCtx};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{prefix_map, Component, Origin, Pos};
use crate::presburger::Set;
use std::collections::BTreeSet;

impl Interpreter {
    /// `isplit(l, SET, n)`: splits every piece of `l` by `pred` on its iteration vector and
    /// returns the two halves' components.
    pub(super) fn isplit(
        &mut self,
        ctx: &OpCtx,
        h: usize,
        pred: Set,
        origin: &Origin,
        n: i64,
    ) -> Result<(usize, usize), Diagnostic> {
        let members = self.component_nonempty(ctx, h, 0)?;
        let m = self.state.n_it();
        let a = pred.n_dim();
        let n = n as usize;
        if a > m {
            return Err(Diagnostic::new(codes::INVALID_ARGUMENT, format!(
                "the predicate has {a} dimension(s), but the schedules have {m} iteration dimension(s)"
            ))
            .with_label(&origin.source, origin.span.clone(), format!("{a} dimension(s)")));
        }
        if let Some(&i) = members.iter().find(|&&i| self.state.pieces[i].depth < n) {
            return Err(Diagnostic::new(
                codes::NO_SUCH_LOOP,
                format!(
                    "cannot split at loop level {n}: statement {} is only {} loop(s) deep",
                    self.stmt_label(i),
                    self.state.pieces[i].depth
                ),
            )
            .with_label(ctx.source, ctx.call.args[2].span(), "too deep"));
        }
        let positions = self.state.components[h].positions.clone();
        let pm = positions.iter().min().expect("non-empty").clone();
        let pmax = positions.iter().max().expect("non-empty").clone();
        let len = pm.len();
        if n >= len {
            return Err(Diagnostic::new(
                codes::NO_SUCH_LOOP,
                format!("the schedules have only {} loop levels", len - 1),
            )
            .with_label(ctx.source, ctx.call.args[2].span(), "too deep"));
        }
        // The second half lands after the whole component at level n (as realign would
        // place it), and everything after the component moves with it.
        let shift = add(&sub(&pmax, &pm), &unit(len, n));
        let prefix = prefix_map(m, a);
        let mut new_pieces = vec![];
        let mut touched = vec![];
        for (i, p) in self.state.pieces.iter().enumerate() {
            if members.contains(&i) {
                // Simplified first: a predicate on tile coordinates is then a plain bound
                // (`floor(i/4) <= 1` is `i <= 7`), and the second half's complement needs no
                // case split.
                let sel = pred.preimage(&p.it.apply_range(&prefix)).simplify();
                let first = p.domain.intersect(&sel).simplify();
                let second = p.domain.subtract(&sel).simplify();
                let mut p1 = p.clone();
                p1.domain = first;
                let mut p2 = p.clone();
                p2.domain = second;
                p2.pos = add(&p.pos, &shift);
                p1.touched.push(ctx.step);
                p2.touched.push(ctx.step);
                if !p1.domain.is_empty() {
                    new_pieces.push(p1);
                }
                if !p2.domain.is_empty() {
                    new_pieces.push(p2);
                }
            } else {
                let mut q = p.clone();
                if !lex_lt(&p.pos, &pm) {
                    q.pos = add(&p.pos, &shift);
                    touched.push(new_pieces.len());
                }
                new_pieces.push(q);
            }
        }
        self.state.pieces = new_pieces;
        self.touch(&touched, ctx.step);
        for c in self.state.components.iter_mut() {
            let mut out = BTreeSet::new();
            for q in &c.positions {
                if positions.contains(q) {
                    out.insert(q.clone());
                    out.insert(add(q, &shift));
                } else if lex_lt(q, &pm) {
                    out.insert(q.clone());
                } else {
                    out.insert(add(q, &shift));
                }
            }
            c.positions = out;
        }
        let second: BTreeSet<Pos> = positions.iter().map(|q| add(q, &shift)).collect();
        let mk = |positions: BTreeSet<Pos>, what: &str| Component {
            positions,
            origin: Origin {
                source: ctx.source.to_string(),
                span: ctx.call.span.clone(),
                what: what.to_string(),
            },
        };
        self.state
            .components
            .push(mk(positions, "the first half of this isplit"));
        self.state
            .components
            .push(mk(second, "the second half of this isplit"));
        let k = self.state.components.len();
        Ok((k - 2, k - 1))
    }
}
