//! One side of an equivalence check: the statements of a modelled region with their
//! instances, execution times, the location each writes, the locations each reads and the
//! typed value each stores — or the construct that keeps the region out of reach.

use super::plain::Points;
use super::types::{self, CType, Term};
use crate::model::{AccessKind, Scop, SourceSpan, Storage};
use crate::presburger::{Map, Set};

/// Why a program is outside what `loopy equiv` decides.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub what: String,
    pub span: Option<SourceSpan>,
}

impl Refusal {
    pub fn new(what: impl Into<String>, span: Option<&SourceSpan>) -> Refusal {
        Refusal {
            what: what.into(),
            span: span.cloned(),
        }
    }
}

/// A node of a statement's typed value, in an arena.
#[derive(Clone, Debug)]
pub enum Node {
    /// The read of this access (an index into the statement's accesses).
    Read(usize),
    Const(String),
    /// An integer iterator or parameter: its value at each instance, `S[i] -> [v]`.
    Name(String, Map),
    Op(String, Vec<usize>),
}

/// An assignment statement.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// Its index in the scop.
    pub index: usize,
    pub domain: Set,
    /// θ on the domain: `S[i] -> [t…]`, one common length for the program.
    pub time: Map,
    pub write_array: String,
    /// `S[i] -> A[…]` on the domain.
    pub write: Map,
    /// For each access index that is a read: the array and `S[i] -> A[…]` on the domain.
    pub reads: Vec<Option<(String, Map)>>,
    pub nodes: Vec<Node>,
    pub root: usize,
    /// The value is this one read, stored without conversion: a copy.
    pub copy_of: Option<usize>,
    pub span: SourceSpan,
    /// The instances without the dimensions the others determine.
    pub points: Points,
    /// A statement folded from unrolled copies (`rows.rs`): the scop's statement of each
    /// row, its last dimension; empty otherwise.
    pub rows: Vec<usize>,
}

/// A region as the equivalence check sees it.
#[derive(Clone, Debug)]
pub struct Program<'a> {
    pub scop: &'a Scop,
    pub stmts: Vec<Stmt>,
}

impl<'a> Program<'a> {
    /// The program of `scop`, every set and map over the parameters `params` (a superset
    /// of the scop's, shared by both sides of a check).
    pub fn new(scop: &'a Scop, params: &[String]) -> Result<Program<'a>, Refusal> {
        Program::with_points(scop, params, true)
    }

    /// [`Program::new`]; with `reduce` false, each statement's points are its instances
    /// (nothing projected: what a run on values needs, [`super::concrete`]).
    pub fn with_points(
        scop: &'a Scop,
        params: &[String],
        reduce: bool,
    ) -> Result<Program<'a>, Refusal> {
        let depth = scop
            .statements
            .iter()
            .map(|s| s.schedule.depth())
            .max()
            .unwrap_or(0);
        let valued = valued_arrays(scop);
        let mut stmts = vec![];
        for (k, st) in scop.statements.iter().enumerate() {
            if is_void_cast(st) {
                continue;
            }
            let counts = bookkeeping(scop, st, &valued);
            stmts.extend(statement(scop, k, params, depth, counts, reduce)?);
        }
        Ok(Program { scop, stmts })
    }

    /// The arrays whose values are live after the region: written, and not declared in it.
    pub fn outputs(&self) -> Vec<String> {
        let mut v: Vec<String> = vec![];
        for s in &self.stmts {
            let a = &s.write_array;
            if !self.is_local(a) && !v.contains(a) {
                v.push(a.clone());
            }
        }
        v
    }

    /// Is `array` a variable of the region (declared in it, on the stack, `static` or on
    /// the heap, or inside one of its loops): nothing known before the region writes it,
    /// and nothing of it left after.
    pub fn is_local(&self, array: &str) -> bool {
        (self.scop.array(array))
            .is_some_and(|x| x.storage == Storage::Region || x.private_depth.is_some())
    }

    /// The C name of an array.
    pub fn c_name(&self, array: &str) -> String {
        self.scop
            .array(array)
            .map_or_else(|| array.to_string(), |a| a.c_name.clone())
    }
}

/// `(void)x;`, which generated code writes so that a counter is not called unused: it
/// reads one variable and does nothing with it (no write, no call), so it computes nothing.
fn is_void_cast(st: &crate::model::Statement) -> bool {
    let text: String = st.text.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(name) = text
        .strip_prefix("(void)")
        .map(|t| t.strip_suffix(';').unwrap_or(t))
    else {
        return false;
    };
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && st.accesses.iter().all(|a| a.kind == AccessKind::Read)
}

/// Refuses an access to a variable of the region past its declared extents at some
/// instance: past a row's end it is the next row's element (or another variable), which
/// its subscripts would call a different one.
fn within_bounds(
    scop: &Scop,
    a: &crate::model::Access,
    domain: &Set,
    params: &[String],
) -> Result<(), Refusal> {
    use crate::model::aff::{self, LinExpr};
    let Some(x) = scop.array(&a.array) else {
        return Ok(());
    };
    if x.extents.len() != x.rank || !a.exact {
        return Ok(());
    }
    let range = a
        .relation
        .align_params(params)
        .intersect_domain(domain)
        .range();
    let dims = range.tuple().dims.clone();
    for (d, e) in x.extents.iter().enumerate() {
        let Some(e) = e else {
            continue;
        };
        let o = LinExpr::var(&dims[d]);
        let below = aff::set_from(
            &dims,
            &[],
            &[o.neg().add_constant(&crate::presburger::Int::from(-1))],
        );
        let past = aff::set_from(&dims, &[], &[o.sub(e)]);
        let out = below.union(&past).with_tuple(range.tuple().clone());
        if !range.intersect(&out).is_empty() {
            return Err(Refusal::new(
                format!(
                    "`{}` is accessed outside its declared extent {} in subscript {} of {}, for some values of the parameters",
                    x.c_name,
                    e,
                    d + 1,
                    x.rank
                ),
                Some(&a.span),
            ));
        }
    }
    Ok(())
}

/// The arrays some statement's value reads.
fn valued_arrays(scop: &Scop) -> std::collections::HashSet<&str> {
    let mut out = std::collections::HashSet::new();
    for s in &scop.statements {
        if let Ok(st) = &s.store {
            let mut ks = vec![];
            st.value.reads(&mut ks);
            out.extend(
                ks.iter()
                    .filter_map(|&k| s.accesses.get(k))
                    .map(|a| a.array.as_str()),
            );
        }
    }
    out
}

/// For a statement whose value is not compared (an overflow check, `bytes =
/// sizeof(…)`): its one write, when that is of an integer scalar of the region that no
/// value reads. Such a variable only sizes buffers or counts (generated code's
/// bookkeeping): where a subscript or bound reads it, the frontend has its value exactly or
/// refused the access.
fn bookkeeping(
    scop: &Scop,
    s: &crate::model::Statement,
    valued: &std::collections::HashSet<&str>,
) -> Option<usize> {
    if s.store.is_ok() || s.opaque.is_some() {
        return None;
    }
    let writes: Vec<usize> = (0..s.accesses.len())
        .filter(|&k| s.accesses[k].kind == AccessKind::Write)
        .collect();
    let [w] = writes[..] else {
        return None;
    };
    let a = scop.array(&s.accesses[w].array)?;
    let local = a.storage == Storage::Region || a.private_depth.is_some();
    let integer = matches!(
        a.elem_type.as_deref().and_then(CType::parse),
        Some(CType::Int { .. })
    );
    (local && a.rank == 0 && integer && !valued.contains(a.name.as_str())).then_some(w)
}

/// The statements of the scop's statement `k`: one per location it stores in.
/// `counts`: the write of a statement whose value is not compared (`bookkeeping`).
fn statement(
    scop: &Scop,
    k: usize,
    params: &[String],
    depth: usize,
    counts: Option<usize>,
    reduce: bool,
) -> Result<Vec<Stmt>, Refusal> {
    let s = &scop.statements[k];
    let span = Some(&s.span);
    // A statement that runs for no parameter value computes nothing (the edge nests of
    // generated code that no size reaches), whatever it is written with.
    if s.domain.is_empty() {
        return Ok(vec![]);
    }
    if let Some(why) = &s.opaque {
        return Err(Refusal::new(
            format!("a construct that is not modelled exactly: {why}"),
            span,
        ));
    }
    // A value nothing compares: a literal stands for it, so that the statement keeps its
    // accesses (a race on it in a parallel loop is still found).
    let counted = counts.map(|write| crate::model::value::Store {
        write,
        value: crate::model::value::Value::Const("0".into()),
    });
    let store = match (&s.store, &counted) {
        (Ok(st), _) => st,
        (Err(_), Some(c)) => c,
        (Err(why), None) => {
            return Err(Refusal::new(
                format!("`{}` is not compared: {why}", s.text),
                span,
            ))
        }
    };
    // Simplified once here: the bounds of generated code (`c <= floord(n - 1, 32)`)
    // come from the frontend as unions with existentials that every later operation
    // would carry.
    let domain = s.domain.align_params(params).simplify().coalesce();
    let mut sched = s.schedule.clone();
    sched.pad_to(depth);
    let time = sched
        .to_map()
        .align_params(params)
        .intersect_domain(&domain);
    for a in &s.accesses {
        within_bounds(scop, a, &domain, params)?;
    }
    let mut reads = vec![None; s.accesses.len()];
    for (j, a) in s.accesses.iter().enumerate() {
        if !a.exact {
            let why = a.note.clone().unwrap_or_else(|| "not affine".into());
            return Err(Refusal::new(
                format!("an access that is not exact: {why}"),
                Some(&a.span),
            ));
        }
        if a.kind == AccessKind::Read {
            let rel = a.relation.align_params(params).intersect_domain(&domain);
            reads[j] = Some((a.array.clone(), rel));
        }
    }
    let ty_of = |array: &str| {
        scop.array(array)
            .and_then(|a| a.elem_type.as_deref())
            .and_then(CType::parse)
    };
    let access_type = |j: usize| ty_of(&s.accesses.get(j)?.array);
    // A chain `a1 = a5 = k` stores in each of its locations: one statement per store, the
    // inner ones first, all at the statement's time. Two stores of one array at one time
    // could write one element twice, whose last value the times would not say.
    let mut stores = vec![];
    store.value.assigns(&mut stores);
    stores.push((store.write, &store.value));
    let arrays: Vec<&str> = stores
        .iter()
        .map(|x| s.accesses[x.0].array.as_str())
        .collect();
    if (1..arrays.len()).any(|i| arrays[..i].contains(&arrays[i])) {
        return Err(Refusal::new(
            format!("`{}` stores twice in one array", s.text),
            span,
        ));
    }
    let mut out = vec![];
    for (w, value) in stores {
        let w = &s.accesses[w];
        let write = w.relation.align_params(params).intersect_domain(&domain);
        let write_ty = ty_of(&w.array).ok_or_else(|| {
            Refusal::new(
                format!("`{}` has no builtin arithmetic element type", w.array),
                Some(&w.span),
            )
        })?;
        let term = types::stored(value, write_ty, &access_type)
            .map_err(|why| Refusal::new(format!("{why} cannot be compared"), span))?;
        let copy_of = match term {
            Term::Read(j) => Some(j),
            _ => None,
        };
        let mut nodes = vec![];
        let root = flatten(&term, &domain, params, &mut nodes);
        let points = match reduce {
            true => {
                let rels = reads.iter().flatten().map(|(_, r)| r).chain([&write]);
                Points::new(&domain, &super::counting::subscripts(rels))
            }
            false => Points::identity(&domain),
        };
        out.push(Stmt {
            index: k,
            domain: domain.clone(),
            time: time.clone(),
            write_array: w.array.clone(),
            write,
            reads: reads.clone(),
            nodes,
            root,
            copy_of,
            span: s.span.clone(),
            points,
            rows: vec![],
        });
    }
    Ok(out)
}

fn flatten(t: &Term, domain: &Set, params: &[String], nodes: &mut Vec<Node>) -> usize {
    let n = match t {
        Term::Read(j) => Node::Read(*j),
        Term::Const(c) => Node::Const(c.clone()),
        Term::Name(x) => Node::Name(x.clone(), name_map(domain, params, x)),
        Term::Op(o, xs) => {
            let kids = xs
                .iter()
                .map(|x| flatten(x, domain, params, nodes))
                .collect();
            Node::Op(o.clone(), kids)
        }
    };
    nodes.push(n);
    nodes.len() - 1
}

/// `S[i] -> [v]` where `v` is the iterator or parameter `x`.
fn name_map(domain: &Set, params: &[String], x: &str) -> Map {
    use crate::presburger::{Int, Space, Tuple};
    let dims = &domain.space().range.dims;
    let np = params.len();
    let nd = dims.len();
    let space = Space {
        params: params.to_vec(),
        domain: Some(domain.space().range.clone()),
        range: Tuple::new(None, &["v"]),
    };
    let mut r = vec![Int::ZERO; 1 + np + nd + 1];
    r[1 + np + nd] = Int::from(-1);
    if let Some(p) = dims.iter().position(|d| d == x) {
        r[1 + np + p] = Int::ONE;
    } else if let Some(p) = params.iter().position(|d| d == x) {
        r[1 + p] = Int::ONE;
    }
    Map::universe(space)
        .add_constraints(&[r], &[])
        .intersect_domain(domain)
}
