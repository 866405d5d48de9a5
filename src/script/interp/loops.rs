//! Loop operations that work at any depth: `interchange`, `permute`, `reverse`, `shift`,
//! `skew`, `strip_mine` and `tile` over chosen loops. Each builds the affine map for the
//! loops it names (loops are counted from 1, the outermost loop of the nest) and applies it
//! as `affine` does, so deeper loops are kept after the new ones and a 4-deep nest needs
//! nothing new. A procedure could not do this: a map's arity is fixed where it is written.

use super::{Interpreter, OpCtx, Value};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::state::Origin;
use crate::presburger::build::{self, output_name};
use crate::presburger::row::Row;
use crate::presburger::{Int, Map};
use std::collections::BTreeMap;
use std::ops::Range;

/// The depth-generic loop operations, built in.
pub const LOOP_OPS: [&str; 6] = [
    "interchange",
    "permute",
    "reverse",
    "shift",
    "skew",
    "strip_mine",
];

type Args = [(Value, Range<usize>)];

/// The inputs of a map over `n` loops: `x1..xn`.
fn loop_names(n: usize) -> Vec<String> {
    (1..=n).map(|k| format!("x{k}")).collect()
}

/// `{ [x1..xn] -> [outs] }`, each output a row over `(1, x1..xn)`.
fn loop_map(n: usize, outs: &[Row]) -> Map {
    Map::from_affine(loop_names(n), outs)
}

/// Loop `k` (from 1) of `n` as a row.
fn x(n: usize, k: usize) -> Row {
    build::input(n, k - 1)
}

/// What a loop operation builds: the number of loops the map reads, the map, and the
/// largest loop with where it was given.
type LoopMap = (usize, Map, (usize, Range<usize>));

impl Interpreter {
    /// Runs one of [`LOOP_OPS`] (or `tile` with a list of loops).
    pub(super) fn loop_op(&mut self, ctx: &OpCtx, args: &Args) -> Result<(), Diagnostic> {
        let name = ctx.call.name.text.as_str();
        let short = Self::loop_op_form(ctx, args)?;
        let h = self.handle(ctx, &args[0])?;
        let (n, f, deepest): LoopMap = match name {
            "interchange" => self.interchange_map(ctx, args, short)?,
            "permute" => self.permute_map(ctx, args)?,
            "reverse" | "shift" => self.reverse_or_shift_map(ctx, args, short)?,
            "skew" => self.skew_map(ctx, args, short)?,
            "strip_mine" => self.strip_mine_map(ctx, args, short)?,
            _ => return self.tile_loops(ctx, h, &args[1], &args[2]),
        };
        self.need_depth(ctx, h, n, &deepest.1)?;
        let origin = Origin {
            source: ctx.source.to_string(),
            span: ctx.call.span.clone(),
            what: format!("this {name}"),
        };
        self.affine(ctx, h, f, &origin)
    }

    /// Whether the call is the short form of an older procedure; refuses a wrong number of
    /// arguments.
    fn loop_op_form(ctx: &OpCtx, args: &Args) -> Result<bool, Diagnostic> {
        let name = ctx.call.name.text.as_str();
        let usage = match name {
            "interchange" => "interchange(l, a, b)",
            "permute" => "permute(l, [a, b, ...])",
            "reverse" => "reverse(l, k)",
            "shift" => "shift(l, k, s)",
            "skew" => "skew(l, k, m, f)",
            "strip_mine" => "strip_mine(l, k, s)",
            _ => "tile(l, [loops], [sizes])",
        };
        // The short forms of the older procedures of the same names act on the outermost
        // loops: interchange(l), reverse(l), shift(l, s), skew(l, f), strip_mine(l, s).
        let short = matches!(
            (name, args.len()),
            ("interchange", 1) | ("reverse", 1) | ("shift", 2) | ("skew", 2) | ("strip_mine", 2)
        );
        let want = match name {
            "interchange" => 3,
            "permute" => 2,
            "reverse" => 2,
            "shift" | "strip_mine" | "tile" => 3,
            _ => 4,
        };
        if args.len() != want && !short {
            return Err(Diagnostic::new(
                codes::WRONG_ARITY,
                format!("`{name}` takes {want} arguments, {} given", args.len()),
            )
            .with_label(
                ctx.source,
                ctx.call.span.clone(),
                format!("expected {usage}"),
            )
            .with_help("loops are counted from 1, the outermost loop of the nest"));
        }
        Ok(short)
    }

    /// `interchange(l, a, b)`: swaps loops a and b.
    fn interchange_map(
        &self,
        ctx: &OpCtx,
        args: &Args,
        short: bool,
    ) -> Result<LoopMap, Diagnostic> {
        let (a, b) = if short {
            ((1, ctx.call.span.clone()), (2, ctx.call.span.clone()))
        } else {
            (self.loop_no(ctx, &args[1])?, self.loop_no(ctx, &args[2])?)
        };
        if a.0 == b.0 {
            return Err(Diagnostic::new(
                codes::INVALID_ARGUMENT,
                format!(
                    "`interchange` swaps two different loops, but both are loop {}",
                    a.0
                ),
            )
            .with_label(ctx.source, ctx.call.span.clone(), "the same loop twice"));
        }
        let n = a.0.max(b.0);
        let outs: Vec<Row> = (1..=n)
            .map(|k| {
                x(
                    n,
                    if k == a.0 {
                        b.0
                    } else if k == b.0 {
                        a.0
                    } else {
                        k
                    },
                )
            })
            .collect();
        Ok((n, loop_map(n, &outs), if a.0 > b.0 { a } else { b }))
    }

    /// `permute(l, [a, b, ...])`: the loops in the order given.
    fn permute_map(&self, ctx: &OpCtx, args: &Args) -> Result<LoopMap, Diagnostic> {
        let (order, span, _) = self.int_list(ctx, &args[1])?;
        let n = order.len();
        let mut seen = vec![false; n + 1];
        for &k in &order {
            if k < 1 || k as usize > n || std::mem::replace(&mut seen[k as usize], true) {
                return Err(Diagnostic::new(
                    codes::INVALID_ARGUMENT,
                    format!("`permute` needs an order of the loops 1 to {n}, each once"),
                )
                .with_label(ctx.source, span, format!("not a permutation of 1..{n}"))
                .with_help(
                    "`permute(l, [3, 1, 2])` makes old loop 3 the outermost, then 1, then 2",
                ));
            }
        }
        let outs: Vec<Row> = order.iter().map(|&k| x(n, k as usize)).collect();
        Ok((n, loop_map(n, &outs), (n, span)))
    }

    /// `reverse(l, k)` negates loop k; `shift(l, k, s)` adds s to it.
    fn reverse_or_shift_map(
        &self,
        ctx: &OpCtx,
        args: &Args,
        short: bool,
    ) -> Result<LoopMap, Diagnostic> {
        let name = ctx.call.name.text.as_str();
        let (k, s) = if short {
            let s = if name == "shift" {
                self.any_int(ctx, &args[1])?
            } else {
                Int::ZERO
            };
            ((1, ctx.call.span.clone()), s)
        } else {
            let k = self.loop_no(ctx, &args[1])?;
            let s = if name == "shift" {
                self.any_int(ctx, &args[2])?
            } else {
                Int::ZERO
            };
            (k, s)
        };
        let n = k.0;
        let outs: Vec<Row> = (1..=n)
            .map(|d| match (d == n, name) {
                (false, _) => x(n, d),
                (true, "reverse") => x(n, d).iter().map(|v| -v).collect(),
                (true, _) => {
                    let mut r = x(n, d);
                    r[0] = s.clone();
                    r
                }
            })
            .collect();
        Ok((n, loop_map(n, &outs), k))
    }

    /// `skew(l, k, m, f)`: adds f times loop m to loop k.
    fn skew_map(&self, ctx: &OpCtx, args: &Args, short: bool) -> Result<LoopMap, Diagnostic> {
        let (k, m, f) = if short {
            let s = ctx.call.span.clone();
            ((2, s.clone()), (1, s), self.any_int(ctx, &args[1])?)
        } else {
            (
                self.loop_no(ctx, &args[1])?,
                self.loop_no(ctx, &args[2])?,
                self.any_int(ctx, &args[3])?,
            )
        };
        if k.0 == m.0 {
            return Err(Diagnostic::new(
                codes::INVALID_ARGUMENT,
                format!(
                    "`skew(l, k, m, f)` adds f times loop m to loop k, but both are loop {}",
                    k.0
                ),
            )
            .with_label(ctx.source, ctx.call.span.clone(), "the same loop twice")
            .with_help("to scale one loop, use `affine`"));
        }
        let n = k.0.max(m.0);
        let outs: Vec<Row> = (1..=n)
            .map(|d| {
                let mut r = x(n, d);
                if d == k.0 {
                    r[m.0] = f.clone();
                }
                r
            })
            .collect();
        Ok((n, loop_map(n, &outs), if k.0 > m.0 { k } else { m }))
    }

    /// `strip_mine(l, k, s)`: loop k becomes a loop over strips of s and one in a strip.
    fn strip_mine_map(&self, ctx: &OpCtx, args: &Args, short: bool) -> Result<LoopMap, Diagnostic> {
        let (k, s) = if short {
            ((1, ctx.call.span.clone()), args[1].clone())
        } else {
            (self.loop_no(ctx, &args[1])?, args[2].clone())
        };
        let s = self.size(ctx, &s)?;
        // [x1 .. x(k-1), t, p] : t = floor(xk/s) and p = xk - s*t
        let n = k.0;
        let ins = loop_names(n);
        let mut outs: Vec<String> = (0..n - 1).map(|d| output_name(d, &ins)).collect();
        outs.push("t".into());
        outs.push("p".into());
        let copies: Vec<(usize, usize)> = (0..n - 1).map(|d| (d, d)).collect();
        let f = Map::strip_mined(ins, outs, &[(n - 1, s, n - 1, n)], &copies);
        Ok((n, f, k))
    }

    /// `tile(l, [loops], [sizes])`: strip-mines the chosen loops and places their tile loops,
    /// in the order given, just outside the outermost chosen loop; the other loops keep their
    /// order. `tile(l, [1, 2], [s1, s2])` is `tile(l, [s1, s2])`.
    fn tile_loops(
        &mut self,
        ctx: &OpCtx,
        h: usize,
        loops: &(Value, Range<usize>),
        sizes: &(Value, Range<usize>),
    ) -> Result<(), Diagnostic> {
        let (ls, lspan, _) = self.int_list(ctx, loops)?;
        let (ss, sspan, sitems) = self.int_list(ctx, sizes)?;
        if ls.is_empty() || ls.len() != ss.len() {
            return Err(Diagnostic::new(
                codes::INVALID_ARGUMENT,
                format!(
                    "`tile(l, [loops], [sizes])` needs one size per loop: {} loop(s), {} size(s)",
                    ls.len(),
                    ss.len()
                ),
            )
            .with_label(ctx.source, lspan, "loops")
            .with_label(ctx.source, sspan, "sizes"));
        }
        let mut chosen: Vec<usize> = vec![];
        for &k in &ls {
            if k < 1 || chosen.contains(&(k as usize)) {
                return Err(Diagnostic::new(
                    codes::INVALID_ARGUMENT,
                    "`tile` needs distinct loop numbers, counted from 1",
                )
                .with_label(ctx.source, lspan, format!("loop {k}"))
                .with_help("loops are counted from 1, the outermost loop of the nest"));
            }
            chosen.push(k as usize);
        }
        if let Some(k) = ss.iter().position(|s| *s < 1) {
            return Err(Diagnostic::new(
                codes::INVALID_ARGUMENT,
                format!("tile sizes must be positive, found {}", ss[k]),
            )
            .with_label(ctx.source, sitems[k].clone(), "not a positive size"));
        }
        let n = *chosen.iter().max().expect("non-empty");
        let first = *chosen.iter().min().expect("non-empty");
        self.need_depth(ctx, h, n, &lspan)?;
        // [x1 .. x(first-1), t.. (chosen), p or x (first..n)] : tk = floor(xk/s) and
        // pk = xk - s*tk for each chosen loop k
        let ins = loop_names(n);
        // Names declared so far: an output copied from a loop is named after its position.
        let mut declared = ins.clone();
        let mut outs: Vec<String> = vec![];
        let mut copies: Vec<(usize, usize)> = vec![];
        for d in 1..first {
            copies.push((outs.len(), d - 1));
            outs.push(output_name(outs.len(), &declared));
        }
        let t_at = outs.len();
        for &k in &chosen {
            outs.push(format!("t{k}"));
            declared.push(format!("t{k}"));
        }
        let mut p_at = BTreeMap::new();
        for d in first..=n {
            if chosen.contains(&d) {
                p_at.insert(d, outs.len());
                outs.push(format!("p{d}"));
                declared.push(format!("p{d}"));
            } else {
                copies.push((outs.len(), d - 1));
                outs.push(output_name(outs.len(), &declared));
            }
        }
        let strips: Vec<(usize, Int, usize, usize)> = chosen
            .iter()
            .zip(&ss)
            .enumerate()
            .map(|(j, (&k, s))| (k - 1, Int::from(*s), t_at + j, p_at[&k]))
            .collect();
        let f = Map::strip_mined(ins, outs, &strips, &copies);
        let origin = Origin {
            source: ctx.source.to_string(),
            span: ctx.call.span.clone(),
            what: "this tile".to_string(),
        };
        self.affine(ctx, h, f, &origin)
    }

    /// Every statement of `h` has at least `n` loops (or, as `affine` allows, zeros where
    /// it has fewer).
    fn need_depth(
        &self,
        ctx: &OpCtx,
        h: usize,
        n: usize,
        at: &Range<usize>,
    ) -> Result<(), Diagnostic> {
        let members = self.component_nonempty(ctx, h, 0)?;
        if let Some(&i) = members.iter().find(|&&i| {
            self.state.pieces[i].depth < n && (n > self.state.n_it() || !self.padding_is_zero(i, n))
        }) {
            let d = self.state.pieces[i].depth;
            return Err(Diagnostic::new(
                codes::NO_SUCH_LOOP,
                format!(
                    "`{}` acts on loop {n}, but statement {} is only {d} loop(s) deep",
                    ctx.call.name.text,
                    self.stmt_label(i),
                ),
            )
            .with_label(ctx.source, at.clone(), format!("loop {n}"))
            .with_label(
                ctx.source,
                ctx.call.args[0].span(),
                format!("contains {}", self.stmt_label(i)),
            )
            .with_help(format!(
                "loops are counted from 1, the outermost loop of the nest; {} has loops 1 to {d}",
                self.stmt_label(i)
            )));
        }
        Ok(())
    }

    /// A loop number (from 1) and where it was written.
    fn loop_no(
        &self,
        ctx: &OpCtx,
        v: &(Value, Range<usize>),
    ) -> Result<(usize, Range<usize>), Diagnostic> {
        let k = self.any_int(ctx, v)?;
        match k.to_i64() {
            Some(k) if (1..=64).contains(&k) => Ok((k as usize, v.1.clone())),
            _ => Err(Diagnostic::new(
                codes::NO_SUCH_LOOP,
                format!(
                    "`{}` needs a loop number from 1 (the outermost loop), found {k}",
                    ctx.call.name.text
                ),
            )
            .with_label(ctx.source, v.1.clone(), "not a loop of the nest")),
        }
    }

    fn any_int(&self, ctx: &OpCtx, v: &(Value, Range<usize>)) -> Result<Int, Diagnostic> {
        match &v.0 {
            Value::Int(i) => Ok(i.clone()),
            other => Err(Diagnostic::new(
                codes::WRONG_ARGUMENT_TYPE,
                format!(
                    "`{}` expects an integer here, found {}",
                    ctx.call.name.text,
                    other.describe()
                ),
            )
            .with_label(ctx.source, v.1.clone(), "not an integer")),
        }
    }

    fn size(&self, ctx: &OpCtx, v: &(Value, Range<usize>)) -> Result<Int, Diagnostic> {
        let s = self.any_int(ctx, v)?;
        if !s.is_positive() {
            return Err(Diagnostic::new(
                codes::INVALID_ARGUMENT,
                format!("strip sizes must be positive, found {s}"),
            )
            .with_label(ctx.source, v.1.clone(), "here"));
        }
        Ok(s)
    }

    /// A list of integers, with the list's span and each item's.
    #[allow(clippy::type_complexity)]
    pub(super) fn int_list(
        &self,
        ctx: &OpCtx,
        v: &(Value, Range<usize>),
    ) -> Result<(Vec<i64>, Range<usize>, Vec<Range<usize>>), Diagnostic> {
        match &v.0 {
            Value::List(xs) => {
                let mut out = vec![];
                for (k, at) in xs {
                    match k.to_i64() {
                        Some(k) if k.abs() < 1 << 40 => out.push(k),
                        _ => {
                            return Err(Diagnostic::new(
                                codes::INVALID_ARGUMENT,
                                format!("{k} is too large here"),
                            )
                            .with_label(
                                ctx.source,
                                at.clone(),
                                "in this list",
                            ))
                        }
                    }
                }
                let spans = xs.iter().map(|(_, at)| at.clone()).collect();
                Ok((out, v.1.clone(), spans))
            }
            other => Err(Diagnostic::new(
                codes::WRONG_ARGUMENT_TYPE,
                format!(
                    "`{}` expects a list here, found {}",
                    ctx.call.name.text,
                    other.describe()
                ),
            )
            .with_label(ctx.source, v.1.clone(), "expected `[1, 2]` or similar")),
        }
    }
}
