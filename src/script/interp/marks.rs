//! The loop marks `parallel(l, k[, op])`, `vectorize(l, k)` and `unroll(l, k, u)`: set on
//! loop `k` of every piece of `l` (they do not change θ), carried through later steps by
//! `affine` (`affine.rs`) or refused there, checked by `verify::marks` and written by the
//! code generator.

use super::{Interpreter, OpCtx, Value, MAX_UNROLL};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{Mark, MarkKind, Origin};
use crate::script::ast::Span;

impl Interpreter {
    /// The factor of `unroll(l, k, u)`: an integer from 1 (no unrolling) to
    /// [`MAX_UNROLL`].
    pub(super) fn unroll_factor(ctx: &OpCtx, u: &(Value, Span)) -> Result<u32, Diagnostic> {
        match &u.0 {
            Value::Int(i) => match i.to_i64() {
                Some(v) if (1..=i64::from(MAX_UNROLL)).contains(&v) => Ok(v as u32),
                _ => Err(Diagnostic::new(codes::INVALID_ARGUMENT, format!(
                    "`unroll` needs a factor from 1 to {MAX_UNROLL}, found {i}"
                ))
                .with_label(ctx.source, u.1.clone(), "not a valid unroll factor")
                .with_note(format!(
                    "the body of the loop is repeated u times per iteration; u = 1 leaves the loop as it is, and factors above {MAX_UNROLL} are refused to keep the generated code small"
                ))),
            },
            other => Err(Diagnostic::new(codes::WRONG_ARGUMENT_TYPE, format!(
                "`unroll` expects an integer factor here, found {}",
                other.describe()
            ))
            .with_label(ctx.source, u.1.clone(), "not an integer")),
        }
    }

    /// Marks loop `k` (from 1, outermost) of every piece of component `h`. A loop keeps
    /// at most one mark: the same mark again is a no-op, a different one is refused.
    pub(super) fn mark(
        &mut self,
        ctx: &OpCtx,
        h: usize,
        k: i64,
        kind: MarkKind,
    ) -> Result<(), Diagnostic> {
        let members = self.component_with_loop(ctx, h, k, "")?;
        let dim = k as usize - 1;
        for &i in &members {
            if let Some(old) = self.state.pieces[i].mark_at(dim) {
                if old.kind != kind {
                    return Err(Diagnostic::new(
                        codes::MARKED_LOOP,
                        format!(
                            "loop {k} of statement {} is already marked `{}`",
                            self.stmt_label(i),
                            old.kind.describe()
                        ),
                    )
                    .with_label(
                        ctx.source,
                        ctx.call.span.clone(),
                        format!("marks it `{}`", kind.describe()),
                    )
                    .with_label(
                        &old.origin.source,
                        old.origin.span.clone(),
                        "marked here",
                    ));
                }
            }
        }
        let mark = Mark {
            dim,
            kind,
            origin: Origin {
                source: ctx.source.to_string(),
                span: ctx.call.span.clone(),
                what: format!("this `{}`", ctx.call.name.text),
            },
            step: ctx.step,
        };
        for &i in &members {
            let p = &mut self.state.pieces[i];
            if p.mark_at(dim).is_none() {
                p.marks.push(mark.clone());
                p.marks.sort_by_key(|m| m.dim);
            }
        }
        Ok(())
    }
}
