//! `expand(l, k, x)` / `expand(l, k, x, limit)`: the variable `x`, written and then read by
//! the statements of `l`, gets one copy per iteration of their outer `k` loops. The plan
//! (exact checks, storage box, write-back) is `model::expand`'s; here the arguments are
//! read and the state's accesses of those statements are redirected to the storage, so
//! that every later step (and `copy`) sees the expanded program.

use super::args::Form;
use super::{Interpreter, OpCtx};
use crate::diag::Diagnostic;
use crate::model::expand::EXPAND_LIMIT;
use crate::model::state::Origin;

impl Interpreter {
    pub(super) fn expand(&mut self, ctx: &OpCtx) -> Result<(), Diagnostic> {
        let call = ctx.call;
        let form = Form {
            fixed: 3,
            usage: "(l, k, x, [limit])",
            expected: "expected expand(l, k, x)",
            op: "expand",
            limited: "an expansion",
        };
        let (h, k) = self.loop_args(ctx, &form)?;
        let name = Self::name_arg(
            ctx,
            2,
            "`expand` expects the name of a variable of the kernel here",
            "not a name",
        )?;
        let name = (name.text, name.span);
        let limit = self.limit_arg(ctx, &form, EXPAND_LIMIT)?;
        // The variable by its model name (the C name where they agree).
        let Some(array) = self
            .state
            .arrays
            .iter()
            .find(|a| a.0 == name.0 || a.1 == name.0)
            .map(|a| a.0.clone())
        else {
            let mut d = Diagnostic::new(format!("the kernel has no variable `{}`", name.0))
                .with_label(ctx.source, name.1.clone(), "not a variable of the region");
            let names: Vec<String> = self
                .state
                .arrays
                .iter()
                .filter(|a| !a.3)
                .map(|a| format!("`{}`", a.1))
                .collect();
            if !names.is_empty() {
                d = d.with_note(format!("variables of the region: {}", names.join(", ")));
            }
            return Err(d);
        };
        let members = self.component_nonempty(ctx, h, 0)?;
        if k < 1 {
            return Err(Diagnostic::new(
                "an expansion is inside at least one loop: loops are numbered from 1",
            )
            .with_label(ctx.source, call.args[1].span(), "no such loop"));
        }
        let origin = Origin {
            source: ctx.source.to_string(),
            span: call.span.clone(),
            what: "this `expand`".to_string(),
        };
        let plan = crate::model::expand::plan(
            &self.state,
            &members,
            k as usize,
            &array,
            limit,
            &origin,
            ctx.step,
        )?;
        // The expanded program: the statements' accesses go to the storage.
        for a in self.state.accesses.iter_mut() {
            if a.array == array && plan.stmts.contains(&a.stmt) {
                a.relation = plan.relation(&a.relation);
                a.array = plan.name.clone();
            }
        }
        self.state.arrays.push((
            plan.name.clone(),
            plan.name.clone(),
            plan.outer + plan.rank,
            false,
        ));
        self.state.expansions.push(plan);
        Ok(())
    }
}
