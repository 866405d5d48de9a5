//! `affine(l, MAP)`, the Loopy paper's operation on iteration maps (§3.2): the map applied
//! to the first iteration dimensions of every piece of `l`, exactly checked to be a
//! one-to-one function on the component's iteration vectors, with marks and copies carried
//! to the outputs that copy their loop; `tile(l, [sizes])`, the rectangular tiling of the
//! outer loops as one such map.

use super::{Interpreter, OpCtx};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{prefix_map, Mark, Origin, Pos};
use crate::presburger::{build, Int, Map, Set};
use crate::script::ast::Span;
use std::collections::{BTreeMap, BTreeSet};

impl Interpreter {
    /// `affine(l, f)`: applies `f` to the first `f.n_in()` iteration dims of every piece of
    /// component `h`, after checking exactly that it is a function, defined and one-to-one on
    /// their iteration vectors; other pieces are padded with the extra outputs.
    pub(super) fn affine(
        &mut self,
        ctx: &OpCtx,
        h: usize,
        f: Map,
        origin: &Origin,
    ) -> Result<(), Diagnostic> {
        let members = self.component_nonempty(ctx, h, 0)?;
        let m = self.state.n_it();
        let (a, b) = (f.n_in(), f.n_out());
        if a > m {
            return Err(Diagnostic::new(
                codes::MAP_NOT_SCHEDULE,
                format!(
                "the map takes {a} iterator(s), but the schedules have {m} iteration dimension(s)"
            ),
            )
            .with_label(&origin.source, origin.span.clone(), format!("{a} input(s)")));
        }
        if let Some(&i) = members
            .iter()
            .find(|&&i| self.state.pieces[i].depth < a && !self.padding_is_zero(i, a))
        {
            return Err(Diagnostic::new(
                codes::MAP_NOT_SCHEDULE,
                format!(
                    "the map takes {a} iterator(s), but statement {} is only {} loop(s) deep",
                    self.stmt_label(i),
                    self.state.pieces[i].depth
                ),
            )
            .with_label(&origin.source, origin.span.clone(), format!("{a} input(s)"))
            .with_label(
                ctx.source,
                ctx.call.args[0].span(),
                format!("contains {}", self.stmt_label(i)),
            ));
        }
        if b < a {
            return Err(Diagnostic::new(
                codes::MAP_NOT_SCHEDULE,
                format!(
                    "the map has fewer outputs ({b}) than inputs ({a}); it cannot be one-to-one"
                ),
            )
            .with_label(&origin.source, origin.span.clone(), "drops dimensions"));
        }
        // f must be a function defined on every iteration vector of the component.
        let prefix = prefix_map(m, a);
        for &i in &members {
            let p = &self.state.pieces[i];
            let vecs = p.domain.apply(&p.it.apply_range(&prefix));
            let missing = vecs.subtract(&f.domain());
            if let Some(w) = missing.sample() {
                return Err(Diagnostic::new(
                    codes::MAP_NOT_SCHEDULE,
                    "the map is not defined on the whole domain",
                )
                .with_label(
                    &origin.source,
                    origin.span.clone(),
                    format!(
                        "no image for [{}]{}",
                        w.coords
                            .iter()
                            .map(Int::to_string)
                            .collect::<Vec<_>>()
                            .join(", "),
                        param_note(&missing, &w.params)
                    ),
                )
                .with_label(
                    ctx.source,
                    ctx.call.args[0].span(),
                    format!("iteration vector of {}", self.stmt_label(i)),
                ));
            }
            let restricted = f.intersect_domain(&vecs);
            if let Some(w) = restricted.inverse().injectivity_witness() {
                let fmt = |v: &[Int]| v.iter().map(Int::to_string).collect::<Vec<_>>().join(", ");
                return Err(
                    Diagnostic::new(codes::MAP_NOT_SCHEDULE, "the map is not a function")
                        .with_label(
                            &origin.source,
                            origin.span.clone(),
                            format!(
                                "one iteration vector has two images, [{}] and [{}]",
                                fmt(&w.coords[..b]),
                                fmt(&w.coords[b..])
                            ),
                        )
                        .with_help(
                            "give every output an expression (or one value) in terms of the inputs",
                        ),
                );
            }
        }
        let rest = m - a;
        let id_rest = {
            let js: Vec<String> = (0..rest).map(|i| format!("r{i}")).collect();
            let outs: Vec<_> = (0..rest).map(|i| build::input(rest, i)).collect();
            Map::from_affine(js, &outs)
        };
        let g = f.product(&id_rest);
        let pad = {
            let js: Vec<String> = (0..m).map(|i| format!("j{i}")).collect();
            let mut outs: Vec<_> = (0..m).map(|i| build::input(m, i)).collect();
            outs.extend(std::iter::repeat_n(build::constant(m, Int::ZERO), b - a));
            Map::from_affine(js, &outs)
        };
        // Marks follow their loop: an input the map copies unchanged to an output carries
        // its mark there; the untouched dims after the map's inputs shift by the extra
        // outputs; a marked loop the map rewrites is refused.
        let mut new_marks = BTreeMap::new();
        for &i in &members {
            new_marks.insert(i, self.carry_marks(ctx, i, &f, origin)?);
        }
        let mut new_copies = BTreeMap::new();
        for &i in &members {
            new_copies.insert(i, self.carry_copies(ctx, i, &f, origin)?);
        }
        let inside: BTreeSet<Pos> = self.state.components[h].positions.clone();
        for (i, p) in self.state.pieces.iter_mut().enumerate() {
            if members.contains(&i) {
                p.it = p.it.apply_range(&g).simplify();
                p.depth += b - a;
                p.marks = new_marks.remove(&i).unwrap_or_default();
                p.copies = new_copies.remove(&i).unwrap_or_default();
            } else {
                p.it = p.it.apply_range(&pad).simplify();
            }
        }
        let extra = b - a;
        self.state.map_positions(|q| {
            let mut r: Pos = q[..a].to_vec();
            if inside.contains(q) {
                r.extend(std::iter::repeat_n(Int::ZERO, extra));
                r.extend(q[a..].iter().cloned());
            } else {
                r.extend(q[a..].iter().cloned());
                r.extend(std::iter::repeat_n(Int::ZERO, extra));
            }
            r
        });
        self.touch(&members, ctx.step);
        Ok(())
    }

    /// For member piece `i` and a map `f` over its first `f.n_in()` iteration dims: whether
    /// output `o` of `f` equals input `d` on every iteration vector of the piece (exactly:
    /// `o > d` and `o < d` are both empty there). Used to carry marks and copies.
    pub(super) fn output_equals_input(&self, i: usize, f: &Map) -> impl Fn(usize, usize) -> bool {
        let p = &self.state.pieces[i];
        let (a, b) = (f.n_in(), f.n_out());
        let prefix = prefix_map(self.state.n_it(), a);
        let vecs = p.domain.apply(&p.it.apply_range(&prefix));
        let restricted = f.intersect_domain(&vecs);
        let np = restricted.space().params.len();
        move |d: usize, o: usize| {
            let mut row = vec![Int::ZERO; 1 + np + a + b];
            row[1 + np + a + o] = Int::ONE;
            row[1 + np + d] = Int::from(-1i64);
            let mut above = row.clone();
            above[0] = Int::from(-1i64);
            let mut below: Vec<Int> = row.iter().map(|x| -x.clone()).collect();
            below[0] = Int::from(-1i64);
            restricted.add_constraints(&[], &[above]).is_empty()
                && restricted.add_constraints(&[], &[below]).is_empty()
        }
    }

    /// The marks of member piece `i` after `affine` applies `f` to its first `f.n_in()`
    /// iteration dims: a mark on input d moves to an output equal to input d on every
    /// iteration vector of the piece (output d first if it qualifies); a mark on a dim the
    /// map does not read shifts by the extra outputs. A marked dim no output copies is
    /// refused, naming the operation that set the mark.
    fn carry_marks(
        &self,
        ctx: &OpCtx,
        i: usize,
        f: &Map,
        origin: &Origin,
    ) -> Result<Vec<Mark>, Diagnostic> {
        let p = &self.state.pieces[i];
        let (a, b) = (f.n_in(), f.n_out());
        if p.marks.is_empty() {
            return Ok(vec![]);
        }
        let copies = self.output_equals_input(i, f);
        let mut out = vec![];
        for mk in &p.marks {
            let mut m = mk.clone();
            if mk.dim >= a {
                m.dim = mk.dim + (b - a);
            } else {
                let target = std::iter::once(mk.dim)
                    .chain(0..b)
                    .find(|&o| o < b && copies(mk.dim, o));
                match target {
                    Some(o) => m.dim = o,
                    None => {
                        return Err(Diagnostic::new(codes::MARKED_LOOP, format!(
                            "this map rewrites loop {} of statement {}, which is marked `{}`",
                            mk.dim + 1,
                            self.stmt_label(i),
                            mk.kind.describe()
                        ))
                        .with_label(
                            &origin.source,
                            origin.span.clone(),
                            format!("no output of the map equals input {}", mk.dim + 1),
                        )
                        .with_label(
                            &mk.origin.source,
                            mk.origin.span.clone(),
                            format!("loop {} marked `{}` here", mk.dim + 1, mk.kind.describe()),
                        )
                        .with_label(ctx.source, ctx.call.span.clone(), "applied here")
                        .with_help(
                            "mark the loop after transforming it, or keep the marked loop as an output of the map",
                        ));
                    }
                }
            }
            out.push(m);
        }
        Ok(out)
    }

    /// Is iteration dim `a-1` and beyond of piece `i` a zero pad (so a map over `a` inputs
    /// may still apply, as in `{[i, j, 0] -> [i, j, j]}`)?
    pub(super) fn padding_is_zero(&self, i: usize, a: usize) -> bool {
        let p = &self.state.pieces[i];
        let m = p.it.n_out();
        let zero = {
            let js: Vec<String> = (0..m).map(|k| format!("j{k}")).collect();
            // -j_k = 0 for each padded dim k
            let eqs: Vec<_> = (p.depth..a.min(m))
                .map(|k| build::input(m, k).iter().map(|v| -v).collect())
                .collect();
            Set::from_rows(js, eqs, vec![])
        };
        p.domain.apply(&p.it).is_subset(&zero)
    }

    /// `tile(l, [sizes])`: the outermost loops strip-mined by `sizes`, tile loops first (one
    /// `affine` map).
    pub(super) fn tile(
        &mut self,
        ctx: &OpCtx,
        h: usize,
        sizes: &[(Int, Span)],
        span: &Span,
    ) -> Result<(), Diagnostic> {
        if sizes.is_empty() {
            return Err(
                Diagnostic::new(codes::INVALID_ARGUMENT, "`tile` needs at least one size")
                    .with_label(ctx.source, span.clone(), "empty list"),
            );
        }
        if let Some((s, at)) = sizes.iter().find(|(s, _)| !s.is_positive()) {
            return Err(Diagnostic::new(
                codes::INVALID_ARGUMENT,
                format!("tile sizes must be positive, found {s}"),
            )
            .with_label(ctx.source, at.clone(), "not a positive size"));
        }
        let sizes: Vec<Int> = sizes.iter().map(|(s, _)| s.clone()).collect();
        let k = sizes.len();
        // [i..] -> [t.., p..] : ti = floor(ii/s) and pi = ii - s*ti
        let ins: Vec<String> = (0..k).map(|i| format!("i{i}")).collect();
        let mut outs: Vec<String> = (0..k).map(|i| format!("t{i}")).collect();
        outs.extend((0..k).map(|i| format!("p{i}")));
        let strips: Vec<(usize, Int, usize, usize)> =
            (0..k).map(|i| (i, sizes[i].clone(), i, k + i)).collect();
        let f = Map::strip_mined(ins, outs, &strips, &[]);
        let origin = Origin {
            source: ctx.source.to_string(),
            span: span.clone(),
            what: "these tile sizes".to_string(),
        };
        self.affine(ctx, h, f, &origin)
    }
}

/// ` (with N = 3)`: the parameter values of a witness, for a message (nothing without
/// parameters).
fn param_note(s: &Set, vals: &[Int]) -> String {
    if vals.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = s
        .space()
        .params
        .iter()
        .zip(vals)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect();
    format!(" (with {})", parts.join(", "))
}
