//! Printing in isl's notation: `[N] -> { [i, j] : 0 <= i < N and 0 <= j <= i }`.
//!
//! The printer aims for what a person would write: dimensions fixed by an equality are shown
//! in the tuple (`{ [i, j] -> [j, i] }`), known floor divisions are written `floor((e)/d)`
//! where they are used, a lower and an upper bound of the same term share one chained
//! comparison, and only locals without a closed form appear under `exists`. Everything it
//! prints parses back to the same set.

use super::affine::{self, Times};
use super::basic::Basic;
use super::int::Int;
use super::row::{solve_unit, substitute, Row};
use super::set::{Map, Point, Set};
use super::space::{Space, Tuple};
use std::fmt::{self, Write};

/// Formats `coeffs · (1, columns)` with the given column names (index 0 is the constant).
fn fmt_affine(r: &[Int], names: &[String]) -> String {
    affine::fmt_row(r, |k| names[k].clone(), Times::Isl)
}

/// Unique, parseable names for parameters and dimensions (duplicates get primes).
fn unique_names(space: &Space) -> Vec<String> {
    let mut used: Vec<String> = vec![];
    let mut out = vec![String::new()];
    for n in space.params.iter().chain(space.dim_names().iter()) {
        let mut m = n.clone();
        while used.contains(&m) {
            m.push('\'');
        }
        used.push(m.clone());
        out.push(m);
    }
    out
}

struct Part {
    /// Text for each dimension position in the tuple(s).
    tuple_dims: Vec<String>,
    /// Names of unknown locals printed under `exists`.
    exists: Vec<String>,
    constraints: Vec<String>,
}

/// Whether local `div` has a definition over parameters and columns before `col` only
/// (through the definitions of the locals it mentions).
fn div_only_before(b: &Basic, div: usize, col: usize) -> bool {
    match &b.divs[div] {
        None => false,
        Some(d) => d.num.iter().enumerate().all(|(c, v)| {
            v.is_zero()
                || c < col
                || (c >= b.div_start()
                    && c < b.width()
                    && div_only_before(b, c - b.div_start(), col))
        }),
    }
}

/// A conjunction as the printer lays it out: its rows after inlining and folding, the
/// expression each dimension shows in the tuple (over the columns of those rows), and the
/// name of every column (known floors as `floor(...)` text, other locals as `e0, e1, ...`).
struct Layout {
    b: Basic,
    inline_expr: Vec<Option<Row>>,
    names: Vec<String>,
    exists: Vec<String>,
}

/// `None` when normalisation shows the conjunction is empty (it then prints as nothing).
fn lay_out(space: &Space, b: &Basic) -> Option<Layout> {
    let mut b = b.clone();
    let base = unique_names(space);
    let mut inline_expr = inline_unit_dims(&mut b);
    show_floor_dims(&mut b, &mut inline_expr);
    fold_constant_floors(&mut b, &mut inline_expr);
    if !b.normalize() {
        return None;
    }
    b.sort_rows();
    let (names, exists) = name_columns(&mut b, &base);
    Some(Layout {
        b,
        inline_expr,
        names,
        exists,
    })
}

/// Inlines dimensions fixed by a unit equality over earlier columns: their expressions (over
/// the columns of `b`, which loses those equalities).
fn inline_unit_dims(b: &mut Basic) -> Vec<Option<Row>> {
    let np = b.n_param;
    let nd = b.n_dim;
    let mut inline_expr: Vec<Option<Row>> = vec![None; nd];
    for (d, slot) in inline_expr.iter_mut().enumerate() {
        let c = b.col_dim(d);
        let pick = b.eqs.iter().position(|r| {
            (r[c] == 1 || r[c] == -1)
                && r.iter().enumerate().all(|(k, v)| {
                    if v.is_zero() || k == 0 || k == c {
                        return true;
                    }
                    if k <= np {
                        return true;
                    }
                    if k < b.div_start() {
                        return k < c;
                    }
                    // The tuple is read left to right: a floor in `c`'s expression may
                    // only mention parameters and earlier dimensions.
                    div_only_before(b, k - b.div_start(), c)
                })
        });
        if let Some(e) = pick {
            let r = b.eqs.remove(e);
            let expr = solve_unit(&r, c);
            substitute_for_print(b, c, &expr);
            *slot = Some(expr);
        }
    }
    inline_expr
}

/// Dimensions pinned between `den*d <= e <= den*d + den - 1` are `floor(e/den)`: shows
/// them so (as isl does), by turning them into known divs.
fn show_floor_dims(b: &mut Basic, inline_expr: &mut [Option<Row>]) {
    for d in 0..b.n_dim {
        if inline_expr[d].is_some() {
            continue;
        }
        let c = b.col_dim(d);
        let found = b.ineqs.iter().find_map(|lo| {
            let den = -&lo[c];
            if !den.is_positive() || den.is_one() {
                return None;
            }
            // Only earlier parameters and dimensions in the numerator.
            if lo
                .iter()
                .enumerate()
                .any(|(k, v)| k > 0 && k != c && !v.is_zero() && (k > c || k >= b.div_start()))
            {
                return None;
            }
            let mut hi: Row = lo.iter().map(|v| -v).collect();
            hi[0] += &(&den - &Int::ONE);
            b.ineqs.contains(&hi).then(|| {
                let mut num = lo.clone();
                num[c] = Int::ZERO;
                (num, den)
            })
        });
        if let Some((num, den)) = found {
            let q = b.add_div(num, den);
            let mut expr = b.zero_row();
            expr[q] = Int::ONE;
            substitute_for_print(b, c, &expr);
            // Tuple expressions found earlier may mention the dimension too.
            for e in inline_expr.iter_mut().flatten() {
                e.resize(expr.len(), Int::ZERO);
                let k = std::mem::replace(&mut e[c], Int::ZERO);
                if !k.is_zero() {
                    e[q] += &k;
                }
            }
            inline_expr[d] = Some(expr);
        }
    }
}

/// Inlining can leave constant floors, trivial or repeated rows behind. Folding a constant
/// floor removes its column, so the tuple expressions found above fold it too.
/// (One pass folds the floors constant when it starts; a floor of a folded one becomes
/// constant for the next pass.)
fn fold_constant_floors(b: &mut Basic, inline_expr: &mut [Option<Row>]) {
    loop {
        let constant: Vec<(usize, Int)> = (0..b.n_div())
            .rev()
            .filter_map(|i| {
                let d = b.divs[i].as_ref()?;
                d.num[1..]
                    .iter()
                    .all(|v| v.is_zero())
                    .then(|| (b.col_div(i), d.num[0].div_floor(&d.den)))
            })
            .collect();
        if constant.is_empty() {
            break;
        }
        let width = b.width();
        for e in inline_expr.iter_mut().flatten() {
            e.resize(width, Int::ZERO);
            for (col, value) in &constant {
                let k = e.remove(*col);
                e[0] += &(&k * value);
            }
        }
        b.fold_exact_divs();
    }
}

/// A name `e0, e1, ...` for an unknown local, from `counter` on, that no name of `base` takes.
fn fresh_local(counter: &mut usize, base: &[String]) -> String {
    let mut n = format!("e{counter}");
    *counter += 1;
    while base.contains(&n) {
        n = format!("e{counter}");
        *counter += 1;
    }
    n
}

/// Names for the columns (`base` for parameters and dimensions) and the unknown locals:
/// known divs as floor expressions (built in order), unknown as e0...
/// Substituting a dimension shown as a floor can make an earlier floor mention a later
/// one, so floors are named once every column they mention has a name.
fn name_columns(b: &mut Basic, base: &[String]) -> (Vec<String>, Vec<String>) {
    let mut exists = vec![];
    let mut counter = 0;
    let mut slots: Vec<Option<String>> = base.iter().cloned().map(Some).collect();
    slots.resize(b.width(), None);
    for i in 0..b.n_div() {
        if b.divs[i].is_none() {
            let n = fresh_local(&mut counter, base);
            exists.push(n.clone());
            slots[b.col_div(i)] = Some(n);
        }
    }
    loop {
        let (progress, missing) = name_ready_floors(b, &mut slots);
        if !missing {
            break;
        }
        if !progress {
            // Definitions depending on each other in a cycle: show those locals as
            // existentials (their defining constraints are among the rows).
            for i in 0..b.n_div() {
                let col = b.col_div(i);
                if slots[col].is_none() {
                    b.divs[i] = None;
                    let n = fresh_local(&mut counter, base);
                    exists.push(n.clone());
                    slots[col] = Some(n);
                }
            }
            break;
        }
    }
    let names: Vec<String> = slots.into_iter().map(Option::unwrap_or_default).collect();
    (names, exists)
}

/// Names the known floors whose columns all have names; whether one was named, and
/// whether one is left unnamed.
fn name_ready_floors(b: &Basic, slots: &mut [Option<String>]) -> (bool, bool) {
    let mut progress = false;
    let mut missing = false;
    for i in 0..b.n_div() {
        let col = b.col_div(i);
        if slots[col].is_some() {
            continue;
        }
        let d = b.divs[i].as_ref().expect("unknown locals are named");
        let ready = d
            .num
            .iter()
            .enumerate()
            .all(|(k, v)| v.is_zero() || k == 0 || slots[k].is_some());
        if !ready {
            missing = true;
            continue;
        }
        let names: Vec<String> = slots
            .iter()
            .map(|n| n.clone().unwrap_or_default())
            .collect();
        let num = fmt_affine(&d.num, &names);
        slots[col] = Some(if num.contains(' ') || num.starts_with('-') {
            format!("floor(({num})/{})", d.den)
        } else {
            format!("floor({num}/{})", d.den)
        });
        progress = true;
    }
    (progress, missing)
}

/// `None` when normalisation shows the conjunction is empty (it then prints as nothing).
fn format_part(space: &Space, b: &Basic) -> Option<Part> {
    let Layout {
        b,
        inline_expr,
        names,
        exists,
    } = lay_out(space, b)?;
    let np = b.n_param;
    let nd = b.n_dim;
    let tuple_dims: Vec<String> = (0..nd)
        .map(|d| match &inline_expr[d] {
            Some(e) => fmt_affine(e, &names),
            None => names[1 + np + d].clone(),
        })
        .collect();
    // Constraints, skipping the definitions of known divs.
    let mut constraints = vec![];
    for r in &b.eqs {
        constraints.push(fmt_constraint(r, &names, true));
    }
    let ineqs: Vec<&Row> = b.ineqs.iter().filter(|r| !b.is_div_constraint(r)).collect();
    let mut used = vec![false; ineqs.len()];
    for i in 0..ineqs.len() {
        if used[i] {
            continue;
        }
        used[i] = true;
        let (main, lower, term, bound) = split_ineq(ineqs[i]);
        // Look for the matching opposite bound on the same term.
        let partner = (i + 1..ineqs.len()).find(|&j| {
            !used[j] && {
                let (m2, l2, t2, _) = split_ineq(ineqs[j]);
                m2 == main && l2 != lower && t2 == term
            }
        });
        let term_s = fmt_affine(&term, &names);
        match partner {
            Some(j) => {
                used[j] = true;
                let (_, _, _, bound2) = split_ineq(ineqs[j]);
                let (lo, hi) = if lower {
                    (bound, bound2)
                } else {
                    (bound2, bound)
                };
                constraints.push(format!(
                    "{} <= {term_s} {}",
                    fmt_affine(&lo, &names),
                    fmt_upper(&hi, &names)
                ));
            }
            None => {
                if lower {
                    constraints.push(format!("{term_s} >= {}", fmt_affine(&bound, &names)));
                } else {
                    constraints.push(format!("{term_s} {}", fmt_upper(&bound, &names)));
                }
            }
        }
    }
    Some(Part {
        tuple_dims,
        exists,
        constraints,
    })
}

/// `<= e`, or `< e + 1` when that reads better (`i < N` rather than `i <= N - 1`).
fn fmt_upper(e: &Row, names: &[String]) -> String {
    let has_vars = e[1..].iter().any(|v| !v.is_zero());
    if has_vars && e[0].is_negative() {
        let mut f = e.clone();
        f[0] += &Int::ONE;
        format!("< {}", fmt_affine(&f, names))
    } else {
        format!("<= {}", fmt_affine(e, names))
    }
}

/// Splits `r >= 0` into `term >= bound` (lower) or `term <= bound` (upper), where the term
/// holds the last column of the row with a positive coefficient.
fn split_ineq(r: &Row) -> (usize, bool, Row, Row) {
    let main = r.iter().rposition(|v| !v.is_zero()).unwrap_or(0);
    let lower = r[main].is_positive();
    let mut term = vec![Int::ZERO; r.len()];
    let mut bound = vec![Int::ZERO; r.len()];
    // Keep in the term only the main column; everything else is the bound.
    for (k, v) in r.iter().enumerate() {
        if k == main {
            term[k] = v.abs();
        } else if lower {
            bound[k] = -v;
        } else {
            bound[k] = v.clone();
        }
    }
    (main, lower, term, bound)
}

fn fmt_constraint(r: &Row, names: &[String], eq: bool) -> String {
    let main = r.iter().rposition(|v| !v.is_zero()).unwrap_or(0);
    if main == 0 {
        return if eq {
            format!("{} = 0", r[0])
        } else {
            format!("{} >= 0", r[0])
        };
    }
    let s = if r[main].is_negative() {
        Int::from(-1)
    } else {
        Int::ONE
    };
    let mut term = vec![Int::ZERO; r.len()];
    term[main] = r[main].abs();
    let mut rest: Row = r.iter().map(|v| -(&s * v)).collect();
    rest[main] = Int::ZERO;
    format!(
        "{} {} {}",
        fmt_affine(&term, names),
        if eq { "=" } else { ">=" },
        fmt_affine(&rest, names)
    )
}

fn substitute_for_print(b: &mut Basic, col: usize, expr: &Row) {
    let sub = |r: &mut Row| {
        if col < r.len() {
            substitute(r, col, expr);
        }
    };
    b.eqs.iter_mut().for_each(sub);
    b.ineqs.iter_mut().for_each(sub);
    for d in b.divs.iter_mut().flatten() {
        let mut num = d.num.clone();
        num.resize(expr.len(), Int::ZERO);
        sub(&mut num);
        d.num = num;
    }
}

/// Whether the printed form of `m` shows output `k` of its first printed part as a floor:
/// its tuple expression starts with a known floor with coefficient 1 (`floor(i/32)`,
/// `floor(i/32) + 1`, not `i - 32*floor(i/32)` nor `2*floor(i/32)`). Decided on the rows
/// the printer lays out, not on the text.
pub fn shows_floor(m: &Map, k: usize) -> bool {
    let space = m.space();
    let Some(l) = m.parts().iter().find_map(|b| lay_out(space, b)) else {
        return false;
    };
    let Some(e) = &l.inline_expr[space.n_in() + k] else {
        return false;
    };
    let div_start = l.b.div_start();
    match e.iter().enumerate().skip(1).find(|(_, v)| !v.is_zero()) {
        Some((col, v)) => {
            // Known locals are the ones printed as floors.
            col >= div_start && v.is_one() && l.b.divs[col - div_start].is_some()
        }
        None => false,
    }
}

fn fmt_params(space: &Space) -> String {
    if space.params.is_empty() {
        String::new()
    } else {
        format!("[{}] -> ", space.params.join(", "))
    }
}

fn fmt_union(space: &Space, parts: &[Basic]) -> String {
    let mut out = fmt_params(space);
    out.push_str("{ ");
    let ni = space.n_in();
    let pieces: Vec<String> = parts
        .iter()
        .filter_map(|b| format_part(space, b))
        .map(|p| {
            let tuple = |name: &Option<String>, dims: &[String]| {
                format!("{}[{}]", name.clone().unwrap_or_default(), dims.join(", "))
            };
            let mut s = match &space.domain {
                Some(d) => format!(
                    "{} -> {}",
                    tuple(&d.name, &p.tuple_dims[..ni]),
                    tuple(&space.range.name, &p.tuple_dims[ni..])
                ),
                // A set of no dimensions is written `{ : conditions }`.
                None if space.range.name.is_none() && p.tuple_dims.is_empty() => String::new(),
                None => tuple(&space.range.name, &p.tuple_dims),
            };
            let body = p.constraints.join(" and ");
            if s.is_empty() {
                let cond = if body.is_empty() {
                    "true".to_string()
                } else {
                    body
                };
                if p.exists.is_empty() {
                    return format!(": {cond}");
                }
                return format!(": exists ({} : {cond})", p.exists.join(", "));
            }
            if !p.exists.is_empty() {
                let inner = if body.is_empty() {
                    "true".to_string()
                } else {
                    body
                };
                let _ = write!(s, " : exists ({} : {inner})", p.exists.join(", "));
            } else if !body.is_empty() {
                let _ = write!(s, " : {body}");
            }
            s
        })
        .collect();
    if pieces.is_empty() {
        // isl writes `{  }`; naming the tuple keeps the text parseable as a set or a map.
        let tuple = |t: &super::space::Tuple| t.to_string();
        match &space.domain {
            Some(d) => {
                let _ = write!(out, "{} -> {} : false }}", tuple(d), tuple(&space.range));
            }
            None if space.range.name.is_none() && space.range.is_empty() => {
                out.push_str(": false }");
            }
            None => {
                let _ = write!(out, "{} : false }}", tuple(&space.range));
            }
        }
        return out;
    }
    out.push_str(&pieces.join("; "));
    out.push_str(" }");
    out
}

impl fmt::Display for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&fmt_union(self.space(), self.parts()))
    }
}

impl fmt::Display for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&fmt_union(self.space(), self.parts()))
    }
}

/// A conjunction alone, with made-up names (`p0..` parameters, `x0..` dimensions), for
/// error messages.
impl fmt::Display for Basic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<String> = (0..self.n_param).map(|i| format!("p{i}")).collect();
        let params: Vec<&str> = params.iter().map(String::as_str).collect();
        let space = Space::set(&params, Tuple::anonymous(self.n_dim, "x"));
        f.write_str(&fmt_union(&space, std::slice::from_ref(self)))
    }
}

/// A point with its parameter values, as isl notation that denotes exactly that point:
/// `[N] -> { [0, 1] : N = 3 }`.
pub fn fmt_point(space: &Space, p: &Point) -> String {
    let coords: Vec<String> = p.coords.iter().map(Int::to_string).collect();
    let ni = space.n_in();
    let body = match &space.domain {
        Some(d) => format!(
            "{}[{}] -> {}[{}]",
            d.name.clone().unwrap_or_default(),
            coords[..ni].join(", "),
            space.range.name.clone().unwrap_or_default(),
            coords[ni..].join(", ")
        ),
        // A set of no dimensions: only the parameter values.
        None if space.range.name.is_none() && coords.is_empty() => String::new(),
        None => format!(
            "{}[{}]",
            space.range.name.clone().unwrap_or_default(),
            coords.join(", ")
        ),
    };
    let conds: Vec<String> = space
        .params
        .iter()
        .zip(&p.params)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect();
    let prefix = fmt_params(space);
    match (body.is_empty(), conds.is_empty()) {
        (true, true) => format!("{prefix}{{ : true }}"),
        (true, false) => format!("{prefix}{{ : {} }}", conds.join(" and ")),
        (false, true) => format!("{prefix}{{ {body} }}"),
        (false, false) => format!("{prefix}{{ {body} : {} }}", conds.join(" and ")),
    }
}
