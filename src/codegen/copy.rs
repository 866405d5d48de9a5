//! Code for copies (`copy(l, k, A)`, planned by `model::copy`): three extra scan items per
//! copy, scheduled by the same scanner as the statements — *setup* (the buffer's lower
//! corner for the outer iteration `t`), *fill* (`buf[e - o] = A[e]` over the footprint) and
//! *write-back* (`A[e] = buf[e - o]` over the written part) — placed at the copy's outer
//! loops, around the staged statements, whose accesses to `A` are rewritten.
//!
//! Placement: the position dimension `2k` of every schedule is scaled, `p -> 5p + 2`, so
//! that the setup (`5·first`), the fill (`5·first + 1`) and the write-back (`5·last + 3`)
//! fit before and after the staged pieces without reordering anything else. The window the
//! verifier checks is exactly what lies between them.

use super::ast::Arg;
use super::body::{Access, BufferAccess, Index, Printer, Seg, Sub};
use super::names::{buffer, extent, offset};
use super::place::Placed;
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::copy::CopyPlan;
use crate::model::state::{Mark, MarkKind};
use crate::presburger::build;
use crate::presburger::row::Row;
use crate::presburger::{Int, Map, Set};

/// A scan item that is not a statement.
#[derive(Clone, Debug)]
pub enum Extra {
    Setup(usize),
    Fill(usize),
    WriteBack(usize),
}

/// The schedules of the statements (rewritten) and of the copies' items.
pub struct Staged {
    pub schedules: Vec<Map>,
    /// `extras[i]` is item `placed.len() + i`, with its schedule `schedules[placed.len() + i]`.
    pub extras: Vec<Extra>,
}

/// A map on `n` dims: `{ [x0..] -> [outs] }`, each output a row over `(1, x0..)`.
fn map_on(n: usize, outs: &[Row]) -> Map {
    let xs: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    Map::from_affine(xs, outs)
}

/// The order in which copies are placed: the plans' order, except that a copy that fills
/// from another copy's buffer comes after it (at one level, the copy placed later gets its
/// fill after and its write-back before the earlier one's).
fn staging_order(plans: &[CopyPlan]) -> Vec<usize> {
    let depth = |mut c: usize| {
        let mut d = 0;
        while let Some(s) = plans[c].source {
            c = s;
            d += 1;
        }
        d
    };
    let mut order: Vec<usize> = (0..plans.len()).collect();
    order.sort_by_key(|&c| depth(c));
    order
}

/// Builds the schedules of every item.
pub fn stage(placed: &[Placed], plans: &[CopyPlan]) -> Staged {
    let mut schedules: Vec<Map> = placed.iter().map(|p| p.schedule.clone()).collect();
    let mut extras = vec![];
    // How positions at each level were rescaled so far (applied in order).
    let mut scaled: Vec<usize> = vec![];
    let through = |scaled: &[usize], level: usize, v: &Int| -> Int {
        let mut v = v.clone();
        for &l in scaled {
            if l == level {
                v = &(&v * &Int::from(5)) + &Int::from(2);
            }
        }
        v
    };
    for c in staging_order(plans) {
        let plan = &plans[c];
        let k = plan.mark.outer;
        let r = plan.rank;
        let n = schedules.first().map_or(0, Map::n_out);
        let m = (n - 1) / 2;
        if k + r > m {
            // Room for the element loops: more (zero) dims for everyone.
            let extra = 2 * (k + r - m);
            let mut outs: Vec<Row> = (0..n).map(|i| build::input(n, i)).collect();
            outs.extend(std::iter::repeat_n(build::constant(n, Int::ZERO), extra));
            let pad = map_on(n, &outs);
            for s in schedules.iter_mut() {
                *s = s.apply_range(&pad);
            }
        }
        let n = schedules.first().map_or(0, Map::n_out);
        let level = 2 * k;
        let outs: Vec<Row> = (0..n)
            .map(|i| {
                if i == level {
                    build::affine(n, i, &[5, 2])
                } else {
                    build::input(n, i)
                }
            })
            .collect();
        let scale = map_on(n, &outs);
        for s in schedules.iter_mut() {
            *s = s.apply_range(&scale);
        }
        let first = &through(&scaled, level, &plan.first) * &Int::from(5);
        let last = &(&through(&scaled, level, &plan.last) * &Int::from(5)) + &Int::from(3);
        // θ of an item over [t, e]: P, t interleaved, then its position, then e.
        // Each output a row over (1, t) or, `with_e`, (1, t, e).
        let theta = |pos: &Int, with_e: bool| -> Vec<Row> {
            let w = if with_e { k + r } else { k };
            let zero = build::constant(w, Int::ZERO);
            let mut o = vec![];
            for j in 0..k {
                o.push(build::constant(w, through(&scaled, 2 * j, &plan.prefix[j])));
                o.push(build::input(w, j));
            }
            o.push(build::constant(w, pos.clone()));
            for d in 0..r {
                o.push(if with_e {
                    build::input(w, k + d)
                } else {
                    zero.clone()
                });
                o.push(zero.clone());
            }
            o.resize(n, zero);
            o
        };
        let ts: Vec<String> = (0..k).map(|j| format!("t{j}")).collect();
        let es: Vec<String> = (0..r).map(|d| format!("e{d}")).collect();
        let with_params = |m: Map, dom: &Set| -> Map {
            let m = m.align_params(&dom.space().params);
            m.intersect_domain(dom)
        };
        let setup_dom = plan.footprint.domain();
        let setup = with_params(
            Map::from_affine(ts.clone(), &theta(&first, false)),
            &setup_dom,
        );
        let mut te = ts.clone();
        te.extend(es.iter().cloned());
        let fill = with_params(
            Map::from_affine(te.clone(), &theta(&(&first + &Int::ONE), true)),
            &plan.footprint.wrap(),
        );
        schedules.push(setup);
        extras.push(Extra::Setup(c));
        schedules.push(fill);
        extras.push(Extra::Fill(c));
        if !plan.written.is_empty() {
            let wb = with_params(
                Map::from_affine(te.clone(), &theta(&last, true)),
                &plan.written.wrap(),
            );
            schedules.push(wb);
            extras.push(Extra::WriteBack(c));
        }
        scaled.push(level);
    }
    Staged { schedules, extras }
}

/// Buffers of more elements than this are `static` (one per program, off the stack).
pub const STACK_ELEMENTS: i64 = 8192;

/// The expression whose type the buffer's elements have: an element of the array, or for a
/// scaled copy its product with the factor (the type of the value the statement computed).
pub fn element_type_of(plan: &CopyPlan) -> String {
    let zero: String = (0..plan.rank).map(|_| "[0]").collect();
    match &plan.factor {
        None => format!("{}{zero}", plan.c_name),
        Some(f) => format!("{f} * {}{zero}", plan.c_name),
    }
}

/// The declarations of a copy's buffer and offsets. An `unused` buffer (every window holds
/// the block in registers, but a `private` clause may still name it) is marked so.
pub fn declarations(plan: &CopyPlan, params: &[String], floord: &str, unused: bool) -> String {
    if allocated(plan) {
        return runtime_declarations(plan, params, floord);
    }
    let extents: Vec<Int> = plan
        .layout
        .iter()
        .map(|b| b.extent(&plan.size[b.dim()]))
        .collect();
    let total = extents.iter().fold(Int::ONE, |a, s| &a * s);
    let dims: String = extents.iter().map(|e| format!("[{e}]")).collect();
    let stack = Int::from(STACK_ELEMENTS);
    let storage = if total > stack { "static " } else { "" };
    let unused = if unused { ", unused" } else { "" };
    format!(
        "{storage}__typeof__({}) {}{dims} __attribute__((aligned(64){unused}));\n{}",
        element_type_of(plan),
        buffer(plan),
        offset_declarations(plan)
    )
}

/// The declaration of a copy's offsets.
pub fn offset_declarations(plan: &CopyPlan) -> String {
    let offs: Vec<String> = (0..plan.rank)
        .map(|d| format!("{} = 0", offset(plan, d)))
        .collect();
    format!("int {};\n", offs.join(", "))
}

/// The declarations of a buffer whose extents depend on the parameters: each run-time
/// extent (at least 1), the size in bytes computed with overflow checks, and a pointer to
/// arrays of the inner extents (a variably modified type, so the accesses keep their
/// `buf[..][..]` form) allocated on the heap; the program aborts where the size overflows
/// or the allocation fails. [`release`] frees it after the region.
fn runtime_declarations(plan: &CopyPlan, params: &[String], floord: &str) -> String {
    let mut out = String::new();
    let dim = |d: usize| -> String {
        match &plan.runtime[d] {
            Some(_) => extent(plan, d),
            None => plan.size[d].to_string(),
        }
    };
    for d in 0..plan.rank {
        if let Some(e) = &plan.runtime[d] {
            let n = extent(plan, d);
            out.push_str(&format!(
                "long {n} = {};\nif ({n} < 1) {n} = 1;\n",
                e.to_c(params, floord)
            ));
        }
    }
    let bytes = format!("{}_bytes", buffer(plan));
    out.push_str(&format!(
        "unsigned long {bytes} = sizeof({});\n",
        element_type_of(plan)
    ));
    for d in 0..plan.rank {
        out.push_str(&format!(
            "if (__builtin_mul_overflow({bytes}, (unsigned long){}, &{bytes})) __builtin_abort();\n",
            dim(d)
        ));
    }
    // Allocated buffers keep whole dimensions (`stage::walk_order` blocks none of them).
    let inner: String = plan.layout[1..]
        .iter()
        .map(|b| format!("[{}]", dim(b.dim())))
        .collect();
    let offs: Vec<String> = (0..plan.rank)
        .map(|d| format!("{} = 0", offset(plan, d)))
        .collect();
    out.push_str(&format!(
        "__typeof__({}) (*{buf}){inner} = __builtin_malloc({bytes});\nif (!{buf}) __builtin_abort();\nint {};\n",
        element_type_of(plan),
        offs.join(", "),
        buf = buffer(plan),
    ));
    out
}

/// What follows the region for a copy: freeing its buffer if it was allocated.
pub fn release(plan: &CopyPlan) -> String {
    if allocated(plan) {
        format!("__builtin_free({});\n", buffer(plan))
    } else {
        String::new()
    }
}

/// Whether the copy's buffer is allocated when the region starts (its size depends on the
/// parameters).
pub fn allocated(plan: &CopyPlan) -> bool {
    plan.runtime.iter().any(Option::is_some)
}

/// `segs` (a statement's body) with every access `A[s0]..[s(r-1)]` to the copied array
/// replaced by an access to copy `copy`'s buffer (written `buf[(s0) - o0]..`); refused
/// when the array appears other than with all its subscripts (through a macro, as a
/// pointer). For a scaled copy, the product of each access with the factor
/// (`alpha * A[i][k]`, as [`crate::model::text::scaled_product`] finds it) is replaced by
/// the buffer's element, which holds that product.
pub fn rewrite(segs: &[Seg], plan: &CopyPlan, copy: usize) -> Result<Vec<Seg>, String> {
    let mut found = 0;
    check(segs, plan, &mut found)?;
    if found == 0 {
        return Err(format!(
            "the statement's text does not name `{}` (a macro?)",
            plan.c_name
        ));
    }
    let which = if plan.mark.written_only {
        written_as(segs, &plan.c_name)
    } else {
        Which::All
    };
    replace(segs, plan, copy, &which)
}

/// Which of a statement's accesses to the copied array use the buffer.
enum Which {
    All,
    /// `copy_written`: those written as the statement's write is (its subscripts' segments,
    /// white space left out), as `plan::copy` accepted them; none when it writes none.
    Like(Option<Vec<Vec<Seg>>>),
}

/// The subscripts of the statement's write of `name` when its text begins with it
/// (`A[..] = …` or a compound assignment), white space left out.
fn written_as(segs: &[Seg], name: &str) -> Which {
    let solid: Vec<&Seg> = segs
        .iter()
        .filter(|s| !matches!(s, Seg::Space(_)))
        .collect();
    let assigns = match solid.get(1..3) {
        Some([Seg::Punct('='), next]) => !matches!(next, Seg::Punct('=')),
        Some([Seg::Punct(c), Seg::Punct('=')]) => matches!(c, '+' | '-' | '*' | '/'),
        _ => false,
    };
    match solid.first() {
        Some(Seg::Access(a)) if a.name == name && assigns => {
            Which::Like(Some(a.subs.iter().map(|s| squash(&s.segs)).collect()))
        }
        _ => Which::Like(None),
    }
}

fn squash(segs: &[Seg]) -> Vec<Seg> {
    segs.iter()
        .filter(|s| !matches!(s, Seg::Space(_)))
        .cloned()
        .collect()
}

/// The array's accesses of `segs` (not inside its own subscripts), counted in `found`;
/// refused where the array appears with fewer subscripts than its rank.
fn check(segs: &[Seg], plan: &CopyPlan, found: &mut usize) -> Result<(), String> {
    let short = || {
        format!(
            "`{}` appears in the statement without its {} subscript(s)",
            plan.c_name, plan.rank
        )
    };
    for s in segs {
        match s {
            Seg::Name(n) if *n == plan.c_name => {
                if plan.rank > 0 {
                    return Err(short());
                }
                *found += 1;
            }
            Seg::Access(a) if a.name == plan.c_name => {
                if a.subs.len() < plan.rank {
                    return Err(short());
                }
                *found += 1;
            }
            Seg::Access(Access { subs, .. }) => {
                for sub in subs {
                    check(&sub.segs, plan, found)?;
                }
            }
            Seg::Buffer(b) => {
                for sub in b.subs.iter().chain(&b.rest) {
                    check(&sub.segs, plan, found)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The array's access at `segs[k]` as an access to the buffer.
fn buffer_access(seg: &Seg, plan: &CopyPlan, copy: usize) -> Seg {
    let subs = match seg {
        Seg::Access(a) => a.subs.clone(),
        _ => vec![],
    };
    let rest = subs[plan.rank..].to_vec();
    Seg::Buffer(BufferAccess {
        copy,
        subs: subs[..plan.rank].to_vec(),
        index: vec![Index::Layout; plan.layout.len()],
        rest,
    })
}

fn replace(segs: &[Seg], plan: &CopyPlan, copy: usize, which: &Which) -> Result<Vec<Seg>, String> {
    let subs = |v: &[Sub]| -> Result<Vec<Sub>, String> {
        v.iter()
            .map(|s| {
                Ok(Sub {
                    segs: replace(&s.segs, plan, copy, which)?,
                    ..s.clone()
                })
            })
            .collect()
    };
    let mut out: Vec<Seg> = Vec::with_capacity(segs.len());
    let mut k = 0;
    while k < segs.len() {
        let s = &segs[k];
        let own = match (s, which) {
            (Seg::Name(n), Which::All) => *n == plan.c_name,
            (Seg::Access(a), Which::All) => a.name == plan.c_name,
            (Seg::Access(a), Which::Like(Some(own))) => {
                a.name == plan.c_name
                    && a.subs.len() == own.len()
                    && a.subs.iter().zip(own).all(|(s, o)| squash(&s.segs) == *o)
            }
            _ => false,
        };
        if !own {
            out.push(match s {
                Seg::Access(a) => Seg::Access(Access {
                    name: a.name.clone(),
                    subs: subs(&a.subs)?,
                }),
                Seg::Buffer(b) => Seg::Buffer(BufferAccess {
                    subs: subs(&b.subs)?,
                    rest: subs(&b.rest)?,
                    ..b.clone()
                }),
                s => s.clone(),
            });
            k += 1;
            continue;
        }
        let (from, to) = match plan.factor.as_deref() {
            None => (k, k),
            Some(f) => scaled_product(segs, k, f).ok_or_else(|| {
                let text = |_: &str| None;
                let p = Printer {
                    plans: &[],
                    subst: &text,
                };
                format!(
                    "`{}` is read not as a product with `{f}`",
                    p.text(&segs[k..=k])
                )
            })?,
        };
        // The factor, when it comes first, is already in `out`, with the blanks after it.
        out.truncate(out.len() - (k - from));
        out.push(buffer_access(s, plan, copy));
        k = to + 1;
    }
    Ok(out)
}

/// The first segment before `at` that is not white space.
fn prev(segs: &[Seg], at: usize) -> Option<usize> {
    (0..at).rev().find(|&j| !matches!(segs[j], Seg::Space(_)))
}

/// The first segment after `at` that is not white space.
fn next(segs: &[Seg], at: usize) -> Option<usize> {
    (at + 1..segs.len()).find(|&j| !matches!(segs[j], Seg::Space(_)))
}

fn is_punct(s: Option<&Seg>, c: char) -> bool {
    matches!(s, Some(Seg::Punct(x)) if *x == c)
}

/// The segments `from..=to` of the product of the access at `segs[k]` with the scalar
/// `factor`, when the access is one operand of a multiplication whose other operand is
/// exactly `factor`, as C groups it: `factor * A[..]` or `A[..] * factor`, nothing binding
/// tighter on either side (the rules of [`crate::model::text::scaled_product`]).
fn scaled_product(segs: &[Seg], k: usize, factor: &str) -> Option<(usize, usize)> {
    let is_factor = |j: usize| matches!(&segs[j], Seg::Name(n) if n == factor);
    // factor * A[..]
    if let Some(star) = prev(segs, k).filter(|&p| is_punct(segs.get(p), '*')) {
        if let Some(f) = prev(segs, star) {
            if is_factor(f) && opens_operand(segs, f) && !postfix_after(segs, k) {
                return Some((f, k));
            }
        }
    }
    // A[..] * factor
    let star = next(segs, k).filter(|&n| is_punct(segs.get(n), '*'))?;
    if is_punct(segs.get(star + 1), '=') || !opens_operand(segs, k) {
        return None;
    }
    let f = next(segs, star)?;
    (is_factor(f) && !postfix_after(segs, f)).then_some((k, f))
}

/// Whether an operand starting at `segs[at]` is the left operand of what follows it: what
/// comes before ends an operator that binds more loosely than `*` (or nothing: the start
/// of the statement or of a subscript), not a `*`, `/`, `%`, a unary operator or a cast.
fn opens_operand(segs: &[Seg], at: usize) -> bool {
    let Some(p) = prev(segs, at) else {
        return true;
    };
    let Seg::Punct(c) = segs[p] else {
        return false;
    };
    let before = p.checked_sub(1).and_then(|q| segs.get(q));
    match c {
        '(' | '[' | '=' | ',' | '?' | ':' | '<' | '>' | '{' | ';' => true,
        '|' | '&' => is_punct(before, c),
        '+' | '-' => {
            // Binary only: an operand ends before it, and it is not `++` or `--`.
            if is_punct(before, c) {
                return false;
            }
            prev(segs, p).is_some_and(|q| match &segs[q] {
                Seg::Name(_) | Seg::Member(_) | Seg::Access(_) | Seg::Buffer(_) => true,
                Seg::Number(n) => n.chars().last().is_some_and(|d| d.is_ascii_alphanumeric()),
                Seg::Punct(d) => *d == ')' || *d == ']',
                _ => false,
            })
        }
        _ => false,
    }
}

/// Whether a postfix operator (a subscript, a call, a member, `++`, `--`) follows
/// `segs[at]`.
fn postfix_after(segs: &[Seg], at: usize) -> bool {
    let Some(n) = next(segs, at) else {
        return false;
    };
    let Seg::Punct(c) = segs[n] else {
        return false;
    };
    let then = segs.get(n + 1);
    match c {
        '[' | '(' | '.' => true,
        '-' => is_punct(then, '>') || is_punct(then, '-'),
        '+' => is_punct(then, '+'),
        _ => false,
    }
}

/// The text of an extra item, given its argument texts (`t`, then `e`).
pub fn item_text(
    extra: &Extra,
    plans: &[CopyPlan],
    params: &[String],
    args: &[Arg],
    floord: &str,
) -> String {
    let paren = |a: &Arg| {
        if a.plain {
            a.text.clone()
        } else {
            format!("({})", a.text)
        }
    };
    let (plan, which) = match extra {
        Extra::Setup(c) => (&plans[*c], 0),
        Extra::Fill(c) => (&plans[*c], 1),
        Extra::WriteBack(c) => (&plans[*c], 2),
    };
    let k = plan.mark.outer;
    let t: Vec<String> = args[..k].iter().map(paren).collect();
    if which == 0 {
        let parts: Vec<String> = (0..plan.rank)
            .map(|d| {
                format!(
                    "{} = {};",
                    offset(plan, d),
                    plan.lower[d].to_c(params, &t, floord)
                )
            })
            .collect();
        return parts.join(" ");
    }
    let e: Vec<String> = args[k..].iter().map(paren).collect();
    let buf: String = plan
        .layout
        .iter()
        .map(|b| {
            let d = b.dim();
            format!("[{}]", b.index(&format!("{} - {}", e[d], offset(plan, d))))
        })
        .collect();
    // The array, or the buffer of the copy this one fills from.
    let (arr_name, arr) = match plan.source {
        None => (
            plan.c_name.clone(),
            e.iter().map(|s| format!("[{s}]")).collect::<String>(),
        ),
        Some(s) => {
            let src = &plans[s];
            let idx: String = src
                .layout
                .iter()
                .map(|b| {
                    let d = b.dim();
                    format!("[{}]", b.index(&format!("{} - {}", e[d], offset(src, d))))
                })
                .collect();
            (buffer(src), idx)
        }
    };
    if which == 1 {
        match &plan.factor {
            None => format!("{}{buf} = {arr_name}{arr};", buffer(plan)),
            Some(f) => format!("{}{buf} = {f} * {arr_name}{arr};", buffer(plan)),
        }
    } else {
        format!("{arr_name}{arr} = {}{buf};", buffer(plan))
    }
}

/// The marks of a copy's fill and write-back. A buffer that the threads of a parallel loop
/// inside the copy's window share (every parallel mark of the staged pieces at an iteration
/// dim `>= k`, none outside) is filled and written back by the same threads: the element
/// loop `e0` is marked `parallel`. Distinct iterations of a fill write distinct buffer
/// elements (the layout is one-to-one on the box) and read the array (or the enclosing
/// buffer), which the fill does not write; a write-back writes each array element once and
/// reads the buffer. So the loop carries no dependence, and the `omp parallel for` ends with
/// the barrier that orders it before the staged pieces (after them, for a write-back).
/// Without such a mark a shared buffer would be filled by one thread while the others
/// wait. A buffer inside a parallel loop (each thread its own) keeps sequential fills.
pub fn item_marks(plan: &CopyPlan, placed: &[Placed]) -> Vec<Mark> {
    let k = plan.mark.outer;
    let parallel: Vec<&Mark> = plan
        .members
        .iter()
        .filter_map(|&m| placed.get(m))
        .flat_map(|p| p.marks.iter())
        .filter(|m| matches!(m.kind, MarkKind::Parallel { .. }))
        .collect();
    match parallel.iter().find(|m| m.dim >= k) {
        Some(m) if parallel.iter().all(|m| m.dim >= k) => vec![Mark {
            dim: k,
            kind: MarkKind::Parallel { reduction: None },
            origin: m.origin.clone(),
            step: m.step,
        }],
        _ => vec![],
    }
}

/// A copy that cannot be generated.
pub fn refuse(plan: &CopyPlan, msg: String) -> Diagnostic {
    Diagnostic::new(
        codes::STORAGE_NOT_GENERATED,
        format!("cannot generate code: {msg}"),
    )
    .with_label(
        &plan.mark.origin.source,
        plan.mark.origin.span.clone(),
        "copied here",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::body::parse;

    /// The product with `alpha` of the first access to `A`, as text.
    fn product(text: &str) -> Option<String> {
        let segs = parse(text);
        let k = segs
            .iter()
            .position(|s| matches!(s, Seg::Access(a) if a.name == "A"))
            .expect("an access to A");
        let none = |_: &str| None;
        let p = Printer {
            plans: &[],
            subst: &none,
        };
        scaled_product(&segs, k, "alpha").map(|(from, to)| p.text(&segs[from..=to]))
    }

    #[test]
    fn products_with_the_factor_are_found() {
        for (t, want) in [
            ("C[i][j] += alpha * A[i][k] * B[k][j];", "alpha * A[i][k]"),
            ("C[i][j] += A[i][k]*alpha * B[k][j];", "A[i][k]*alpha"),
            ("C[i][j] = (alpha*A[i][k]);", "alpha*A[i][k]"),
            ("C[i][j] = C[i][j] - alpha * A[i][k];", "alpha * A[i][k]"),
        ] {
            assert_eq!(product(t).as_deref(), Some(want), "{t}");
        }
    }

    #[test]
    fn products_grouped_otherwise_are_not() {
        // (x * alpha) * A, (-alpha) * A, a cast, alpha * (A * B), alpha / A, A * alpha[0].
        for t in [
            "C[i][j] += x * alpha * A[i][k];",
            "C[i][j] += -alpha * A[i][k];",
            "C[i][j] += (double)alpha * A[i][k];",
            "C[i][j] += beta * A[i][k];",
            "C[i][j] += alpha / A[i][k];",
            "C[i][j] += x / A[i][k] * alpha;",
            "C[i][j] += A[i][k] * alpha[0];",
            "C[i][j] += A[i][k] * alpha2;",
            "C[i][j] += A[i][k] *= alpha;",
            "C[i][j] += s.alpha * A[i][k];",
        ] {
            assert_eq!(product(t), None, "{t}");
        }
    }
}
