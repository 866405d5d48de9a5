//! `copy(l, k, A)` / `copy(l, k, A, limit)`: the elements of array `A` that the statements
//! of `l` touch in one iteration of their outer `k` loops live in a local buffer. The
//! interpreter only records the request on the component's pieces (like a mark, it does not
//! change θ) and carries it through later steps; `model::copy` plans the buffer after every
//! step, the verifier checks it and the code generator writes the fill, the write-back and
//! the rewritten accesses. An array may be copied several times (by different statements,
//! or at nested levels); `model::copy` decides how the copies compose.
//!
//! `copy_written(l, k, A)` / `copy_written(l, k, A, limit)`: the same with a buffer of the
//! elements the statements write only; their accesses at the subscripts of their own write
//! use it, their other accesses read `A`, each checked to touch no written element.
//!
//! `copy_scaled(l, k, A, s)` / `copy_scaled(l, k, A, s, limit)`: the same with a buffer
//! that holds `s * A[..]` for a scalar `s` the region never writes; every read of `A` by
//! the staged statements must be a product with `s` (`s * A[i][k]`), which reads the
//! buffer's element instead (`model::copy` checks the statements' text).

use super::args::Form;
use super::{Interpreter, OpCtx};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{CopyMark, Origin, COPY_LIMIT};
use crate::presburger::Map;
use crate::script::ast::Name;

impl Interpreter {
    pub(super) fn copy(&mut self, ctx: &OpCtx) -> Result<(), Diagnostic> {
        let call = ctx.call;
        let scaled = call.name.text == "copy_scaled";
        let written_only = call.name.text == "copy_written";
        // copy(l, k, A, [limit]) or copy_scaled(l, k, A, s, [limit]).
        let form = if scaled {
            Form {
                fixed: 4,
                usage: "(l, k, A, s, [limit])",
                expected: "expected copy_scaled(l, k, A, s)",
                op: "copy",
                limited: "a copy",
            }
        } else if written_only {
            Form {
                fixed: 3,
                usage: "(l, k, A, [limit])",
                expected: "expected copy_written(l, k, A)",
                op: "copy",
                limited: "a copy",
            }
        } else {
            Form {
                fixed: 3,
                usage: "(l, k, A, [limit])",
                expected: "expected copy(l, k, A)",
                op: "copy",
                limited: "a copy",
            }
        };
        let (h, k) = self.loop_args(ctx, &form)?;
        let name_arg = |at: usize, what: &str| {
            Self::name_arg(
                ctx,
                at,
                &format!("`{}` expects the name of {what} here", call.name.text),
                &format!("not the name of {what}"),
            )
        };
        let array = name_arg(2, "an array")?;
        let scale = if scaled {
            let s = name_arg(3, "a scalar")?;
            self.scalar_factor(ctx, &s)?;
            Some(s.text)
        } else {
            None
        };
        let limit = self.limit_arg(ctx, &form, COPY_LIMIT)?;
        if !self.state.arrays.is_empty() && !self.state.arrays.iter().any(|a| a.0 == array.text) {
            let mut d = Diagnostic::new(
                codes::UNKNOWN_VARIABLE,
                format!("the kernel has no array `{}`", array.text),
            )
            .with_label(ctx.source, array.span.clone(), "not an array of the region");
            let names: Vec<String> = self
                .state
                .arrays
                .iter()
                .filter(|a| a.2 > 0 && !a.3)
                .map(|a| format!("`{}`", a.0))
                .collect();
            if !names.is_empty() {
                d = d.with_note(format!("arrays of the region: {}", names.join(", ")));
            }
            return Err(d);
        }
        let members = self.component_with_loop(ctx, h, k, " to copy inside")?;
        let mark = CopyMark {
            array: array.text.clone(),
            outer: k as usize,
            limit,
            origin: Origin {
                source: ctx.source.to_string(),
                span: call.span.clone(),
                what: "this `copy`".to_string(),
            },
            step: ctx.step,
            scale,
            written_only,
        };
        for &i in &members {
            self.state.pieces[i].copies.push(mark.clone());
        }
        Ok(())
    }

    /// Checks that `s` names a scalar variable of the kernel that the region reads and never
    /// writes: the factor of a scaled copy, multiplied into the buffer when it is filled,
    /// must have the same value wherever the statements read it.
    fn scalar_factor(&self, ctx: &OpCtx, s: &Name) -> Result<(), Diagnostic> {
        if self.state.arrays.is_empty() {
            return Ok(());
        }
        let label = |d: Diagnostic, msg: &str| d.with_label(ctx.source, s.span.clone(), msg);
        match self.state.arrays.iter().find(|a| a.0 == s.text) {
            None => Err(label(
                Diagnostic::new(codes::UNKNOWN_VARIABLE, format!(
                    "the region reads no variable `{}` to scale the copy by",
                    s.text
                )),
                "not a scalar the statements read",
            )
            .with_note("the factor of a scaled copy is a scalar variable the staged statements multiply the array by")),
            Some(a) if a.2 > 0 => Err(label(
                Diagnostic::new(codes::WRONG_ARGUMENT_TYPE, format!("`{}` is an array, not a scalar", s.text)),
                "an array",
            )),
            Some(_) => match self.state.accesses.iter().find(|x| x.write && x.array == s.text) {
                Some(w) => Err(label(
                    Diagnostic::new(codes::STORAGE_REFUSED, format!(
                        "the region writes `{}` (statement {}): a scaled copy needs a factor that keeps its value",
                        s.text,
                        self.state.stmt_names[w.stmt]
                    )),
                    "written in the region",
                )),
                None => Ok(()),
            },
        }
    }

    /// The copies of member piece `i` after `affine` applies `f` to its first `f.n_in()`
    /// iteration dims. A copy inside `k` loops with `k >= n_in` keeps its windows (the map
    /// rewrites them one-to-one) and counts `k + n_out - n_in` loops; one with `k < n_in`
    /// stays only when the map copies its `k` outer loops unchanged.
    pub(super) fn carry_copies(
        &self,
        ctx: &OpCtx,
        i: usize,
        f: &Map,
        origin: &Origin,
    ) -> Result<Vec<CopyMark>, Diagnostic> {
        let p = &self.state.pieces[i];
        if p.copies.is_empty() {
            return Ok(vec![]);
        }
        let (a, b) = (f.n_in(), f.n_out());
        let copies = self.output_equals_input(i, f);
        let same = |d: usize| d < b && copies(d, d);
        let mut out = vec![];
        for c in &p.copies {
            let mut c2 = c.clone();
            if c.outer >= a {
                c2.outer = c.outer + b - a;
            } else if let Some(d) = (0..c.outer).find(|&d| !same(d)) {
                return Err(Diagnostic::new(codes::MARKED_LOOP, format!(
                    "this map rewrites loop {} of statement {}, one of the {} outer loop(s) of a copy of `{}`",
                    d + 1,
                    self.stmt_label(i),
                    c.outer,
                    c.array
                ))
                .with_label(&origin.source, origin.span.clone(), format!("output {} is not input {}", d + 1, d + 1))
                .with_label(&c.origin.source, c.origin.span.clone(), "copied here")
                .with_label(ctx.source, ctx.call.span.clone(), "applied here")
                .with_help("copy after transforming the outer loops"));
            }
            out.push(c2);
        }
        Ok(out)
    }
}
