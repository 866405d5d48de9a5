//! `realign(l1, l2, n)` and `lift(l, n)`, the Loopy paper's operations on positions
//! (§3.2): `realign` moves the second component, and everything after it, to just after the
//! first one, giving them `n` common loops; `lift` names the component of every statement
//! that shares the first `n` levels of position with `l`.

use super::{add, fmt_pos, lex_lt, sub, unit, Interpreter, OpCtx};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{Component, Origin, Pos};
use crate::presburger::Int;
use std::collections::BTreeSet;

impl Interpreter {
    /// `realign(l1, l2, n)`: moves `l2` and everything after it so that it follows `l1` with
    /// `n` common loops.
    pub(super) fn realign(
        &mut self,
        ctx: &OpCtx,
        h1: usize,
        h2: usize,
        n: i64,
    ) -> Result<(), Diagnostic> {
        let m1 = self.component_nonempty(ctx, h1, 0)?;
        let m2 = self.component_nonempty(ctx, h2, 1)?;
        self.refuse_nested(ctx, (h1, 0), (h2, 1))?;
        let n = n as usize;
        for (members, arg) in [(&m1, 0), (&m2, 1)] {
            if let Some(&i) = members.iter().find(|&&i| self.state.pieces[i].depth < n) {
                return Err(Diagnostic::new(codes::NO_SUCH_LOOP, format!(
                    "cannot give the components {n} common loop(s): statement {} is only {} loop(s) deep",
                    self.stmt_label(i),
                    self.state.pieces[i].depth
                ))
                .with_label(ctx.source, ctx.call.args[2].span(), format!("{n} common loops"))
                .with_label(ctx.source, ctx.call.args[arg].span(), format!("contains {}", self.stmt_label(i))));
            }
        }
        let p1 = self.state.components[h1]
            .positions
            .iter()
            .max()
            .expect("non-empty")
            .clone();
        let p2 = self.state.components[h2]
            .positions
            .iter()
            .min()
            .expect("non-empty")
            .clone();
        if !lex_lt(&p1, &p2) {
            return Err(Diagnostic::new(
                codes::STRUCTURE_REFUSED,
                "`realign(l1, l2, n)` needs l2 to come after l1",
            )
            .with_label(
                ctx.source,
                ctx.call.args[1].span(),
                format!("starts at position {}", fmt_pos(&p2)),
            )
            .with_label(
                ctx.source,
                ctx.call.args[0].span(),
                format!("ends at position {}", fmt_pos(&p1)),
            )
            .with_help("swap the two components, or realign the component that comes first"));
        }
        if let Some(i) = (0..self.state.pieces.len()).find(|&i| {
            let q = &self.state.pieces[i].pos;
            lex_lt(&p1, q) && lex_lt(q, &p2)
        }) {
            return Err(Diagnostic::new(
                codes::STRUCTURE_REFUSED,
                "`realign(l1, l2, n)` needs adjacent components",
            )
            .with_label(
                ctx.source,
                ctx.call.span.clone(),
                format!(
                    "statement {} (position {}) lies between them",
                    self.stmt_label(i),
                    fmt_pos(&self.state.pieces[i].pos)
                ),
            )
            .with_help(
                "realign the components in between first, or tag a component that includes them",
            ));
        }
        let len = p1.len();
        if n >= len {
            return Err(Diagnostic::new(
                codes::NO_SUCH_LOOP,
                format!("the schedules have only {} loop levels", len - 1),
            )
            .with_label(ctx.source, ctx.call.args[2].span(), "too many common loops"));
        }
        let shift = add(&sub(&p1, &p2), &unit(len, n));
        let moved: Vec<usize> = (0..self.state.pieces.len())
            .filter(|&i| !lex_lt(&self.state.pieces[i].pos, &p2))
            .collect();
        self.state.map_positions(|q| {
            if lex_lt(q, &p2) {
                q.clone()
            } else {
                add(q, &shift)
            }
        });
        self.touch(&moved, ctx.step);
        Ok(())
    }

    /// `lift(l, n)`: a new component of every piece that shares `l`'s first `n` position
    /// levels.
    pub(super) fn lift(&mut self, ctx: &OpCtx, h: usize, n: i64) -> Result<usize, Diagnostic> {
        let m = self.component_nonempty(ctx, h, 0)?;
        let n = n as usize;
        if let Some(&i) = m.iter().find(|&&i| self.state.pieces[i].depth < n) {
            return Err(Diagnostic::new(
                codes::NO_SUCH_LOOP,
                format!(
                    "cannot lift to loop {n}: statement {} is only {} loop(s) deep",
                    self.stmt_label(i),
                    self.state.pieces[i].depth
                ),
            )
            .with_label(ctx.source, ctx.call.args[1].span(), "beyond the nest depth"));
        }
        let prefixes: BTreeSet<Vec<Int>> = self.state.components[h]
            .positions
            .iter()
            .map(|p| p[..n].to_vec())
            .collect();
        let positions: BTreeSet<Pos> = self
            .state
            .pieces
            .iter()
            .map(|p| p.pos.clone())
            .filter(|q| prefixes.contains(&q[..n]))
            .collect();
        self.state.components.push(Component {
            positions,
            origin: Origin {
                source: ctx.source.to_string(),
                span: ctx.call.span.clone(),
                what: "this lift".to_string(),
            },
        });
        Ok(self.state.components.len() - 1)
    }
}
