//! Two components given to one operation where one contains the other: most often a tag on
//! the first statement of a `{ }` block, which names the whole block (§3.1) and so contains
//! the statements after it.

use super::{Interpreter, OpCtx};
use crate::diag::codes;
use crate::diag::Diagnostic;

impl Interpreter {
    /// Refuses `h1` and `h2` (arguments `a1` and `a2` of the call) when they share a position,
    /// saying which contains which and, for a block tag, why and how to tag the statement
    /// alone.
    pub(super) fn refuse_nested(
        &self,
        ctx: &OpCtx,
        (h1, a1): (usize, usize),
        (h2, a2): (usize, usize),
    ) -> Result<(), Diagnostic> {
        let (p1, p2) = (
            &self.state.components[h1].positions,
            &self.state.components[h2].positions,
        );
        if p1.is_disjoint(p2) {
            return Ok(());
        }
        // The outer one: the one containing the other (the first when they are equal or
        // only overlap).
        let (outer, inner, ao, ai) = if p2.is_superset(p1) && !p1.is_superset(p2) {
            (h2, h1, a2, a1)
        } else {
            (h1, h2, a1, a2)
        };
        let contains = self.state.components[outer]
            .positions
            .is_superset(&self.state.components[inner].positions);
        let (wo, wi) = (
            self.describe_component(outer),
            self.describe_component(inner),
        );
        let relation = if contains { "contains" } else { "overlaps" };
        let name = &ctx.call.name.text;
        let o = &self.state.components[outer].origin;
        let d = match self.state.block_tags.get(&outer) {
            Some(b) => {
                let mut d = Diagnostic::new(
                    codes::STRUCTURE_REFUSED,
                    format!(
                        "`{}` names the block at line {} (a label on the first statement of a \
                     `{{ }}` block tags the whole block), which {relation} {wi}",
                        b.name, b.line
                    ),
                )
                .with_label(
                    ctx.source,
                    ctx.call.args[ao].span(),
                    format!("the whole block, {wi} included"),
                )
                .with_label(ctx.source, ctx.call.args[ai].span(), format!("inside {wo}"))
                .with_label(
                    &o.source,
                    o.span.clone(),
                    "this label tags the block it starts",
                );
                d = match &b.statement {
                    Some(s) => d.with_help(format!(
                        "to tag only the statement, give it a block of its own: `{{ {}: {} }}`",
                        b.name,
                        s.trim()
                    )),
                    None => d.with_help(format!(
                        "to tag only the first statement, give it a block of its own: `{{ {}: ... }}`",
                        b.name
                    )),
                };
                d
            }
            None => Diagnostic::new(
                codes::STRUCTURE_REFUSED,
                format!("`{name}` needs two separate components, but {wo} {relation} {wi}"),
            )
            .with_label(
                ctx.source,
                ctx.call.args[ao].span(),
                format!("{relation} {wi}"),
            )
            .with_label(ctx.source, ctx.call.args[ai].span(), format!("inside {wo}"))
            .with_label(&o.source, o.span.clone(), format!("{wo} is defined here")),
        };
        Err(d)
    }

    /// `` `Init` `` for a tag or a named handle, otherwise what the origin says.
    fn describe_component(&self, h: usize) -> String {
        let what = &self.state.components[h].origin.what;
        what.strip_prefix("tag ").unwrap_or(what).to_string()
    }
}
