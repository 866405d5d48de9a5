//! `move_before(l, m)`: runs component `l` right before component `m`, inside the loops the
//! two share, without changing which loops any statement shares with another. A rotation of
//! positions at one level of the loop tree: with `q` the positions `p0 … p(n−1)` common to
//! every statement of `l` and `m` (so they share loops `1 … n`), `m`'s statements at level
//! `n` from `a1` on, and `l`'s from `b1` to `b2` (`a1 < b1`):
//!
//! ```text
//! φ(p) = p + (b2 − b1 + 1)·I(n)   if p[..n] = q and a1 ≤ p_n < b1   (m and what lies between)
//!        p − (b1 − a1)·I(n)       if p[..n] = q and b1 ≤ p_n ≤ b2   (l)
//!        p                         otherwise
//! ```
//!
//! Iteration dimensions are untouched. Whether the new order keeps the dependences is the
//! verifier's business, as for every operation.

use super::{fmt_pos, Interpreter, OpCtx};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::Pos;
use crate::presburger::Int;

impl Interpreter {
    pub(super) fn move_before(
        &mut self,
        ctx: &OpCtx,
        hl: usize,
        hm: usize,
    ) -> Result<(), Diagnostic> {
        let ml = self.component_nonempty(ctx, hl, 0)?;
        let mm = self.component_nonempty(ctx, hm, 1)?;
        self.refuse_nested(ctx, (hl, 0), (hm, 1))?;
        let pos = |i: usize| &self.state.pieces[i].pos;
        let len = pos(ml[0]).len();
        // n: the number of positions (so of loops) every statement of both shares.
        let first = pos(ml[0]).clone();
        let n = ml
            .iter()
            .chain(&mm)
            .map(|&i| {
                pos(i)
                    .iter()
                    .zip(&first)
                    .take_while(|(a, b)| a == b)
                    .count()
            })
            .min()
            .unwrap_or(len);
        if n >= len {
            return Err(Diagnostic::new(
                codes::STRUCTURE_REFUSED,
                "`move_before(l, m)` needs two different places",
            )
            .with_label(
                ctx.source,
                ctx.call.span.clone(),
                format!("both are at position {}", fmt_pos(&first)),
            ));
        }
        let at = |members: &[usize]| -> (Int, Int) {
            let vals = members.iter().map(|&i| pos(i)[n].clone());
            (
                vals.clone().min().expect("non-empty"),
                vals.max().expect("non-empty"),
            )
        };
        let ((b1, b2), (a1, a2)) = (at(&ml), at(&mm));
        if b2 < a1 {
            return Err(Diagnostic::new(
                codes::STRUCTURE_REFUSED,
                "`move_before(l, m)`: l already runs before m",
            )
            .with_label(
                ctx.source,
                ctx.call.args[0].span(),
                format!("at position {}", fmt_pos(pos(ml[0]))),
            )
            .with_label(
                ctx.source,
                ctx.call.args[1].span(),
                format!("at position {}", fmt_pos(pos(mm[0]))),
            )
            .with_help("to run m first, write `move_before(m, l)`"));
        }
        if b1 <= a2 {
            return Err(Diagnostic::new(codes::STRUCTURE_REFUSED, format!(
                "`move_before(l, m)` needs l and m apart at loop level {}: a loop there holds statements of both, or one lies among the other's",
                n + 1
            ))
            .with_label(ctx.source, ctx.call.args[0].span(), "this component ...")
            .with_label(
                ctx.source,
                ctx.call.args[1].span(),
                "... and this one overlap",
            )
            .with_help(format!(
                "distribute them first with `realign(a, b, {n})`, or move a part of l that lies after all of m"
            )));
        }
        let prefix: Pos = first[..n].to_vec();
        let in_range =
            |p: &Pos, lo: &Int, hi: &Int| p[..n] == prefix[..] && &p[n] >= lo && &p[n] <= hi;
        // l must be whole at level n: nothing else inside the loops it occupies there.
        if let Some(i) =
            (0..self.state.pieces.len()).find(|&i| in_range(pos(i), &b1, &b2) && !ml.contains(&i))
        {
            let inner = self.state.components[hl].origin.what.clone();
            return Err(Diagnostic::new(codes::STRUCTURE_REFUSED, format!(
                "`move_before(l, m)` would split a loop: statement `{}` shares loop {} with {inner}, or lies between its statements, but is not part of it",
                self.stmt_label(i),
                n + 1
            ))
            .with_label(
                ctx.source,
                ctx.call.args[0].span(),
                format!("does not contain `{}`", self.stmt_label(i)),
            )
            .with_help(format!(
                "move the whole loop (`lift(l, {})`, or a group `{{..}}` of its statements), or distribute it with `realign` first",
                n + 1
            )));
        }
        let width = &(&b2 - &b1) + &Int::ONE;
        let back = &b1 - &a1;
        let moved: Vec<usize> = (0..self.state.pieces.len())
            .filter(|&i| in_range(pos(i), &a1, &b2))
            .collect();
        self.state.map_positions(|p| {
            let mut q = p.clone();
            if p.len() > n && p[..n] == prefix[..] {
                if p[n] >= a1 && p[n] < b1 {
                    q[n] = &p[n] + &width;
                } else if p[n] >= b1 && p[n] <= b2 {
                    q[n] = &p[n] - &back;
                }
            }
            q
        });
        self.touch(&moved, ctx.step);
        Ok(())
    }
}
