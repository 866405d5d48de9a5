//! `expand(l, k, x)` / `expand(l, k, x, limit)`: the variable `x`, written and then read by
//! the statements of `l`, gets one copy per iteration of their outer `k` loops. The plan
//! (exact checks, storage box, write-back) is `plan::expand`'s; here the arguments are
//! read and the state's accesses of those statements are redirected to the storage
//! (`model::expand::apply`), so that every later step (and `copy`) sees the expanded
//! program.

use super::args::Form;
use super::{Interpreter, OpCtx};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::expand::{self, ExpandPlan, EXPAND_LIMIT};
use crate::model::state::Origin;
use crate::script::ast::{Arg, Name};

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
            let mut d = Diagnostic::new(
                codes::UNKNOWN_VARIABLE,
                format!("the kernel has no variable `{}`", name.0),
            )
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
                codes::STORAGE_REFUSED,
                "an expansion is inside at least one loop: loops are numbered from 1",
            )
            .with_label(ctx.source, call.args[1].span(), "no such loop"));
        }
        let origin = Origin {
            source: ctx.source.to_string(),
            span: call.span.clone(),
            what: "this `expand`".to_string(),
        };
        let plan = crate::plan::expand::plan(
            &self.state,
            &members,
            k as usize,
            &array,
            limit,
            &origin,
            ctx.step,
        )?;
        // The expanded program: the statements' accesses go to the storage.
        let plans = std::slice::from_ref(&plan);
        for a in self.state.accesses.iter_mut() {
            if let Some(e) = expand::apply(plans, a.stmt, &a.array, &a.relation) {
                a.relation = e.relation;
                a.array = e.array;
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

impl Interpreter {
    /// `contract(x)`, `contract(x, k)`, `contract(x, [k1, k2, …])`: the expansion of `x` (the
    /// variable, or the storage's name when the variable has several) gives back the loops
    /// listed (numbered as in its `expand`, 1..k; all of them without a second argument).
    /// The storage loses those dimensions; the verifier computes the dependences on the
    /// smaller storage, so the final schedule is checked against the reuse it brings back.
    pub(super) fn contract(&mut self, ctx: &OpCtx) -> Result<(), Diagnostic> {
        let call = ctx.call;
        if call.args.is_empty() || call.args.len() > 2 {
            return Err(Diagnostic::new(
                codes::WRONG_ARITY,
                format!(
                    "`contract` takes 1 or 2 arguments (x, [loops]), {} given",
                    call.args.len()
                ),
            )
            .with_label(
                ctx.source,
                call.span.clone(),
                "expected contract(x) or contract(x, [1, 2])",
            ));
        }
        let name = Self::name_arg(
            ctx,
            0,
            "`contract` expects the name of an expanded variable (or of its storage) here",
            "not a name",
        )?;
        let at = self.expansion_named(ctx, &name)?;
        let plan = self.state.expansions[at].clone();
        let give_back: Vec<usize> = match call.args.get(1) {
            None => plan.loops(),
            Some(a) => self.loops_given_back(ctx, a, &plan)?,
        };
        if give_back.is_empty() {
            return Err(Diagnostic::new(
                codes::STORAGE_REFUSED,
                format!(
                    "the expansion of `{}` has no loop left to give back",
                    plan.c_name
                ),
            )
            .with_label(ctx.source, call.span.clone(), "nothing to contract"));
        }
        let origin = Origin {
            source: ctx.source.to_string(),
            span: call.span.clone(),
            what: "this `contract`".to_string(),
        };
        // The state's accesses keep the expanded storage's dimensions: the verifier checks
        // the expanded program and, apart, that the contraction keeps each iteration's
        // values (`verify::contract`); code is generated for the contracted storage.
        let new = plan.contract(&give_back, &origin);
        self.state.expansions[at] = new;
        Ok(())
    }

    /// The one expansion `name` names (its variable, C name or storage).
    fn expansion_named(&self, ctx: &OpCtx, name: &Name) -> Result<usize, Diagnostic> {
        let found: Vec<usize> = self
            .state
            .expansions
            .iter()
            .enumerate()
            .filter(|(_, e)| e.name == name.text || e.c_name == name.text || e.array == name.text)
            .map(|(i, _)| i)
            .collect();
        match found.as_slice() {
            [] => {
                let mut d = Diagnostic::new(
                    codes::STORAGE_REFUSED,
                    format!("`{}` is not expanded", name.text),
                )
                .with_label(
                    ctx.source,
                    name.span.clone(),
                    "no `expand` of this variable ran before",
                );
                let names: Vec<String> = self
                    .state
                    .expansions
                    .iter()
                    .map(|e| format!("`{}` (storage `{}`)", e.c_name, e.name))
                    .collect();
                if !names.is_empty() {
                    d = d.with_note(format!("expanded so far: {}", names.join(", ")));
                }
                Err(d)
            }
            [one] => Ok(*one),
            many => {
                let names: Vec<String> = many
                    .iter()
                    .map(|&i| format!("`{}`", self.state.expansions[i].name))
                    .collect();
                Err(Diagnostic::new(
                    codes::STORAGE_REFUSED,
                    format!(
                        "`{}` is expanded {} times: name the storage to contract",
                        name.text,
                        many.len()
                    ),
                )
                .with_label(ctx.source, name.span.clone(), "which expansion?")
                .with_note(format!("its storages: {}", names.join(", "))))
            }
        }
    }

    /// The loops (0-based) the argument `a` (a loop or a list of loops, from 1) gives back
    /// from the expansion `plan`: each a loop of it, not given back before, listed once.
    fn loops_given_back(
        &mut self,
        ctx: &OpCtx,
        a: &Arg,
        plan: &ExpandPlan,
    ) -> Result<Vec<usize>, Diagnostic> {
        let v = (self.eval(a, ctx.frame, ctx.source)?, a.span());
        let (ks, spans) = match &v.0 {
            super::Value::Int(_) => (vec![self.int(ctx, &v)?], vec![v.1.clone()]),
            _ => {
                let (ks, _, spans) = self.int_list(ctx, &v)?;
                (ks, spans)
            }
        };
        let mut out = vec![];
        for (k, span) in ks.iter().zip(spans) {
            let Some(l) = usize::try_from(*k)
                .ok()
                .filter(|&k| (1..=plan.outer).contains(&k))
                .map(|k| k - 1)
            else {
                return Err(Diagnostic::new(
                    codes::STORAGE_REFUSED,
                    format!(
                        "`{}` was expanded along loops 1..{}: there is no loop {k} to give back",
                        plan.c_name, plan.outer
                    ),
                )
                .with_label(ctx.source, span, "no such loop")
                .with_label(
                    &plan.origin.source,
                    plan.origin.span.clone(),
                    "expanded here",
                ));
            };
            if let Some((_, by)) = plan.given_back.iter().find(|g| g.0 == l) {
                return Err(Diagnostic::new(
                    codes::STORAGE_REFUSED,
                    format!(
                        "loop {k} of the expansion of `{}` is already given back",
                        plan.c_name
                    ),
                )
                .with_label(ctx.source, span, "given back before")
                .with_label(&by.source, by.span.clone(), "by this `contract`"));
            }
            if out.contains(&l) {
                return Err(Diagnostic::new(
                    codes::STORAGE_REFUSED,
                    format!("loop {k} is listed twice"),
                )
                .with_label(ctx.source, span, "again"));
            }
            out.push(l);
        }
        Ok(out)
    }
}
