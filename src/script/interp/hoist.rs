//! `hoist(l, {S1: k, S2: j - 1}[, n])`: dependence hoisting (Yi, Kennedy and Adve, §5,
//! equation 9). Every statement `s` of the segment gets a new iteration dimension
//! `ℓ_f = Ivar(slice-loop(s)) + slice-align(s)`, inserted after the `n` outermost loops
//! (default 0: the fused loop is outermost). The statement's other loops, the slicing loop
//! included, stay in their order inside ℓ_f; for a fixed ℓ_f the slicing loop runs one
//! iteration, so it disappears from its old place in the generated code. Instances with the
//! same ℓ_f keep their original order, which is the paper's first step (Figure 2) before it
//! distributes the inner loops; legality is the ordinary exact check at the end.

use super::{Interpreter, OpCtx, Value};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::{Pos, Span};
use crate::presburger::row::Row;
use crate::presburger::{build, Int, Map};
use std::collections::{BTreeMap, BTreeSet};

/// One statement's part of a slice, as written.
#[derive(Clone, Debug)]
pub(super) struct SliceEntry {
    pub name: String,
    pub name_span: Span,
    /// Loop level around the statement in the kernel, from 1 (outermost); or its iterator.
    pub level: Level,
    pub level_span: Span,
    pub align: i64,
}

#[derive(Clone, Debug)]
pub(super) enum Level {
    Number(i64),
    Iterator(String),
}

/// Parses `{ S1: k, S2: 2 + 1, S3: j - 1 }` (`text` starts at byte `base` of the source).
pub(super) fn parse_slice(
    text: &str,
    base: usize,
    source: &str,
    consts: &BTreeMap<String, Int>,
) -> Result<Vec<SliceEntry>, Diagnostic> {
    let b = text.as_bytes();
    let err = |at: usize, len: usize, msg: &str, label: &str| {
        Diagnostic::new(codes::SCRIPT_SYNTAX, msg.to_string())
            .with_label(source, base + at..base + at + len.max(1), label.to_string())
            .with_help("a slice reads `{S1: k, S2: j - 1}`: each statement's slicing loop (its iterator, or its level from 1 = outermost) and an optional alignment")
    };
    let mut i = 0;
    let skip = |i: &mut usize| {
        while *i < b.len() && (b[*i] as char).is_whitespace() {
            *i += 1;
        }
    };
    let word = |i: &mut usize| -> Option<(String, usize)> {
        let s = *i;
        while *i < b.len() && ((b[*i] as char).is_ascii_alphanumeric() || b[*i] == b'_') {
            *i += 1;
        }
        (*i > s).then(|| (text[s..*i].to_string(), s))
    };
    skip(&mut i);
    if b.get(i) != Some(&b'{') {
        return Err(err(i, 1, "a slice starts with `{`", "expected `{`"));
    }
    i += 1;
    let mut out = vec![];
    loop {
        skip(&mut i);
        if b.get(i) == Some(&b'}') && out.is_empty() {
            return Err(err(i, 1, "the slice names no statement", "empty slice"));
        }
        let Some((name, ns)) = word(&mut i) else {
            return Err(err(i, 1, "expected a statement tag", "here"));
        };
        skip(&mut i);
        if b.get(i) != Some(&b':') {
            return Err(err(i, 1, "expected `:` after the statement tag", "here"));
        }
        i += 1;
        skip(&mut i);
        let neg = b.get(i) == Some(&b'-');
        if neg {
            i += 1;
        }
        let Some((lv, ls)) = word(&mut i) else {
            return Err(err(
                i,
                1,
                "expected the slicing loop (an iterator or a level)",
                "here",
            ));
        };
        let level = if let Ok(v) = lv.parse::<i64>() {
            Level::Number(if neg { -v } else { v })
        } else if let Some(v) = consts.get(&lv) {
            let v = v.to_i64().unwrap_or(0);
            Level::Number(if neg { -v } else { v })
        } else if lv.as_bytes()[0].is_ascii_digit() || neg {
            return Err(err(ls, lv.len(), "not a loop level", "here"));
        } else {
            Level::Iterator(lv.clone())
        };
        let level_span = base + ls..base + ls + lv.len();
        skip(&mut i);
        let mut align = 0i64;
        if let Some(&c) = b.get(i) {
            if c == b'+' || c == b'-' {
                i += 1;
                skip(&mut i);
                let Some((a, as_)) = word(&mut i) else {
                    return Err(err(i, 1, "expected an alignment after the sign", "here"));
                };
                let v = match a.parse::<i64>() {
                    Ok(v) => v,
                    Err(_) => match consts.get(&a).and_then(Int::to_i64) {
                        Some(v) => v,
                        None => {
                            return Err(err(
                                as_,
                                a.len(),
                                "the alignment must be an integer",
                                "here",
                            ))
                        }
                    },
                };
                align = if c == b'-' { -v } else { v };
                skip(&mut i);
            }
        }
        out.push(SliceEntry {
            name,
            name_span: base + ns..base + ns + out_len(text, ns),
            level,
            level_span,
            align,
        });
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'}') => {
                i += 1;
                skip(&mut i);
                if i != b.len() {
                    return Err(err(i, 1, "unexpected text after the slice", "here"));
                }
                return Ok(out);
            }
            _ => return Err(err(i, 1, "expected `,` or `}`", "here")),
        }
    }
}

fn out_len(text: &str, start: usize) -> usize {
    text[start..]
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count()
}

impl Interpreter {
    pub(super) fn hoist(
        &mut self,
        ctx: &OpCtx,
        h: usize,
        slice: &(Value, Span),
        n: usize,
    ) -> Result<(), Diagnostic> {
        let members = self.component_nonempty(ctx, h, 0)?;
        let Value::Isl { text, source, span } = &slice.0 else {
            return Err(Diagnostic::new(
                codes::WRONG_ARGUMENT_TYPE,
                format!("`hoist` takes a slice, found {}", slice.0.describe()),
            )
            .with_label(ctx.source, slice.1.clone(), "expected `{S1: k, S2: j}`"));
        };
        let consts: BTreeMap<String, Int> = Self::constants(ctx.frame).into_iter().collect();
        let entries = parse_slice(text, span.start, source, &consts)?;
        let given = self.slice_by_statement(ctx, &members, &entries, source, &slice.1)?;
        let level_of = self.slicing_levels(&members, &given, source)?;
        // Placement: after the n outermost loops, which every statement must share.
        let m = self.state.n_it();
        let lo = self.hoist_position(ctx, &members, n)?;
        self.require_unmarked_inside(ctx, &members, n)?;
        self.shift_marks_past(n);
        self.insert_hoisted_dim(&level_of, n, m);
        // New positions: members share position `lo` before ℓ_f and keep theirs inside it.
        let inside = self.state.components[h].positions.clone();
        self.state.map_positions(|q| {
            let mut r: Pos = q[..n].to_vec();
            if inside.contains(q) {
                r.push(lo.clone());
            } else {
                r.push(q[n].clone());
            }
            r.extend(q[n..].iter().cloned());
            r
        });
        self.touch(&members, ctx.step);
        Ok(())
    }

    /// The slice's entries by statement: every tag of the slice names a statement of the
    /// segment, once, and every statement of the segment has one.
    fn slice_by_statement<'e>(
        &self,
        ctx: &OpCtx,
        members: &[usize],
        entries: &'e [SliceEntry],
        source: &str,
        slice_span: &Span,
    ) -> Result<BTreeMap<String, &'e SliceEntry>, Diagnostic> {
        let names: BTreeSet<String> = members.iter().map(|&i| self.stmt_label(i)).collect();
        let mut given: BTreeMap<String, &SliceEntry> = BTreeMap::new();
        for e in entries {
            let Some(label) = self.entry_statement(&e.name, &names) else {
                return Err(not_in_segment(ctx, e, &names, source));
            };
            if given.insert(label, e).is_some() {
                return Err(Diagnostic::new(
                    codes::INVALID_ARGUMENT,
                    format!("`{}` is given two slicing loops", e.name),
                )
                .with_label(source, e.name_span.clone(), "again here"));
            }
        }
        if let Some(missing) = names.iter().find(|k| !given.contains_key(k.as_str())) {
            return Err(Diagnostic::new(
                codes::STRUCTURE_REFUSED,
                format!("statement `{missing}` of the segment is not given a slicing loop"),
            )
            .with_label(
                ctx.source,
                slice_span.clone(),
                format!("no entry for `{missing}`"),
            )
            .with_label(
                ctx.source,
                ctx.call.args[0].span(),
                format!("contains `{missing}`"),
            )
            .with_help(format!("add `{missing}: LOOP` to the slice")));
        }
        Ok(given)
    }

    /// The statement (its label, one of `names`) that a slice entry's name stands for: a
    /// statement's name, or a handle that names one statement alone (a default handle `S2`
    /// of a tagged statement, a tag of one statement).
    fn entry_statement(&self, name: &str, names: &BTreeSet<String>) -> Option<String> {
        if names.contains(name) {
            return Some(name.to_string());
        }
        let &h = self.state.handles.get(name)?;
        let pieces = self.state.members(&self.state.components[h].positions);
        let first = *pieces.first()?;
        let stmt = self.state.pieces[first].stmt;
        let one = pieces.iter().all(|&i| self.state.pieces[i].stmt == stmt);
        let label = self.stmt_label(first);
        (one && names.contains(&label)).then_some(label)
    }

    /// The level of each member, as an index into its iterators, with its alignment.
    fn slicing_levels(
        &self,
        members: &[usize],
        given: &BTreeMap<String, &SliceEntry>,
        source: &str,
    ) -> Result<BTreeMap<usize, (usize, i64)>, Diagnostic> {
        let mut level_of: BTreeMap<usize, (usize, i64)> = BTreeMap::new();
        for &i in members {
            let p = &self.state.pieces[i];
            let e = given[self.stmt_label(i).as_str()];
            let lv = level_index(e, &p.domain.tuple().dims, source)?;
            level_of.insert(i, (lv, e.align));
        }
        Ok(level_of)
    }

    /// The position the members share at level `n` (the smallest of theirs), refusing
    /// members shallower than `n` or not sharing the `n` outer loops, and other statements
    /// among them.
    fn hoist_position(&self, ctx: &OpCtx, members: &[usize], n: usize) -> Result<Int, Diagnostic> {
        if let Some(&i) = members.iter().find(|&&i| self.state.pieces[i].depth < n) {
            return Err(Diagnostic::new(
                codes::NO_SUCH_LOOP,
                format!(
                    "cannot hoist inside {n} loop(s): statement {} is only {} loop(s) deep",
                    self.stmt_label(i),
                    self.state.pieces[i].depth
                ),
            )
            .with_label(ctx.source, ctx.call.args[2].span(), "too deep"));
        }
        let prefix: Pos = self.state.pieces[members[0]].pos[..n].to_vec();
        if let Some(&i) = members
            .iter()
            .find(|&&i| self.state.pieces[i].pos[..n] != prefix[..])
        {
            return Err(Diagnostic::new(
                codes::STRUCTURE_REFUSED,
                format!(
                    "statement {} does not share the {n} outer loop(s) of the segment",
                    self.stmt_label(i)
                ),
            )
            .with_label(ctx.source, ctx.call.args[0].span(), "the segment"));
        }
        let lo = members
            .iter()
            .map(|&i| self.state.pieces[i].pos[n].clone())
            .min()
            .expect("non-empty");
        let hi = members
            .iter()
            .map(|&i| self.state.pieces[i].pos[n].clone())
            .max()
            .expect("non-empty");
        if let Some(q) = (0..self.state.pieces.len()).find(|q| {
            let p = &self.state.pieces[*q];
            !members.contains(q) && p.pos[..n] == prefix[..] && p.pos[n] >= lo && p.pos[n] <= hi
        }) {
            return Err(Diagnostic::new(codes::STRUCTURE_REFUSED, format!(
                "statement {} lies inside the loops of the segment but is not part of it",
                self.stmt_label(q)
            ))
            .with_label(ctx.source, ctx.call.args[0].span(), "the segment")
            .with_help("hoist whole loop nests: add the statement to the segment with a group `{A, B}` or `lift`"));
        }
        Ok(lo)
    }

    /// Refuses marks and copies on the members' loops inside level `n`.
    fn require_unmarked_inside(
        &self,
        ctx: &OpCtx,
        members: &[usize],
        n: usize,
    ) -> Result<(), Diagnostic> {
        // Marks: the loops of the segment's statements inside the hoisting level are
        // rewritten (one of them moves out to ℓ_f), so a mark there has no loop that clearly
        // corresponds to it; other marks shift past the new dimension.
        for &i in members {
            if let Some(mk) = self.state.pieces[i].marks.iter().find(|m| m.dim >= n) {
                return Err(Diagnostic::new(
                    codes::MARKED_LOOP,
                    format!(
                        "`hoist` rewrites loop {} of statement {}, which is marked `{}`",
                        mk.dim + 1,
                        self.stmt_label(i),
                        mk.kind.describe()
                    ),
                )
                .with_label(
                    ctx.source,
                    ctx.call.span.clone(),
                    "moves the slicing loops out",
                )
                .with_label(&mk.origin.source, mk.origin.span.clone(), "marked here")
                .with_help("mark the loops after hoisting"));
            }
        }
        // Copies: the segment's loops inside the hoisting level are rewritten, so a copy
        // inside them has no window that clearly corresponds; other copies count the new
        // dimension when it is among their outer loops.
        for &i in members {
            if let Some(c) = self.state.pieces[i].copies.iter().find(|c| c.outer > n) {
                return Err(Diagnostic::new(
                    codes::MARKED_LOOP,
                    format!(
                        "`hoist` rewrites the outer loops of a copy of `{}` (statement {})",
                        c.array,
                        self.stmt_label(i)
                    ),
                )
                .with_label(
                    ctx.source,
                    ctx.call.span.clone(),
                    "moves the slicing loops out",
                )
                .with_label(&c.origin.source, c.origin.span.clone(), "copied here")
                .with_help("copy after hoisting"));
            }
        }
        Ok(())
    }

    /// Marks and copies at or inside level `n` count the new dimension.
    fn shift_marks_past(&mut self, n: usize) {
        for p in self.state.pieces.iter_mut() {
            for mk in p.marks.iter_mut() {
                if mk.dim >= n {
                    mk.dim += 1;
                }
            }
            for c in p.copies.iter_mut() {
                if c.outer > n {
                    c.outer += 1;
                }
            }
        }
    }

    /// New iteration maps (of `m` outputs before): insert ℓ_f (members, by `level_of`) or 0
    /// (others) at dimension n.
    fn insert_hoisted_dim(&mut self, level_of: &BTreeMap<usize, (usize, i64)>, n: usize, m: usize) {
        for (i, p) in self.state.pieces.iter_mut().enumerate() {
            let d = p.it.n_in();
            let xs: Vec<String> = (0..d).map(|k| format!("x{k}")).collect();
            let js: Vec<String> = (0..m).map(|k| format!("j{k}")).collect();
            // Over the inputs (x, j): x, j before n, the new dim, j from n on.
            let w = d + m;
            let new = match level_of.get(&i) {
                Some(&(lv, a)) => {
                    let mut r = build::input(w, lv);
                    r[0] = Int::from(a);
                    r
                }
                None => build::constant(w, Int::ZERO),
            };
            let mut outs: Vec<Row> = (0..d + n).map(|c| build::input(w, c)).collect();
            outs.push(new);
            outs.extend((d + n..w).map(|c| build::input(w, c)));
            let mut ins = xs.clone();
            ins.extend(js.iter().cloned());
            let f = Map::from_affine(ins, &outs);
            let wrapped = p.it.wrap().apply(&f);
            let it = Map::from_set(&wrapped, d);
            let range = it.space().range.clone();
            let domain =
                p.it.space()
                    .domain
                    .clone()
                    .expect("iteration map has a domain");
            p.it = it.with_space_names(domain, range).simplify();
            if level_of.contains_key(&i) {
                p.depth += 1;
            }
        }
    }
}

/// The refusal of slice entry `e`, which names no statement of the segment (`names`).
fn not_in_segment(
    ctx: &OpCtx,
    e: &SliceEntry,
    names: &BTreeSet<String>,
    source: &str,
) -> Diagnostic {
    let d = Diagnostic::new(
        codes::STRUCTURE_REFUSED,
        format!("`{}` is not a statement of the segment", e.name),
    )
    .with_label(source, e.name_span.clone(), "not in the segment")
    .with_label(ctx.source, ctx.call.args[0].span(), "the segment");
    let close = names
        .iter()
        .map(|k| {
            (
                super::edit_distance(&k.to_lowercase(), &e.name.to_lowercase()),
                k,
            )
        })
        .filter(|(d, _)| *d <= 2)
        .min();
    match close {
        Some((_, c)) => d.with_help(format!("did you mean `{c}`?")),
        None => d.with_note(format!(
            "its statements: {}",
            names
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Entry `e`'s slicing loop as an index into its statement's iterators `dims`.
fn level_index(e: &SliceEntry, dims: &[String], source: &str) -> Result<usize, Diagnostic> {
    let d = dims.len();
    match &e.level {
        Level::Number(v) if *v >= 1 && (*v as usize) <= d => Ok(*v as usize - 1),
        Level::Number(v) => Err(Diagnostic::new(
            codes::NO_SUCH_LOOP,
            format!(
                "statement `{}` has {d} loop(s); there is no loop {v} around it",
                e.name
            ),
        )
        .with_label(source, e.level_span.clone(), "beyond the nest depth")
        .with_help("levels count the statement's loops in the kernel from 1 (the outermost)")),
        Level::Iterator(x) => match dims.iter().position(|y| y == x) {
            Some(k) => Ok(k),
            None => Err(Diagnostic::new(
                codes::NO_SUCH_LOOP,
                format!("no loop `{x}` around statement `{}`", e.name),
            )
            .with_label(source, e.level_span.clone(), "not one of its iterators")
            .with_note(format!(
                "its loops, outermost first: {}",
                dims.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        },
    }
}
