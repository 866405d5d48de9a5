//! Code for expansions (`expand(l, k, x)`, planned by `plan::expand`): the kernel is given
//! to the code generator as the expanded program — the statements of `l` read and write
//! the storage `loopy_x_x[t0]..[e0]..` instead of `x` (their accesses as the model's
//! expanded program, `model::program::Program`, gives them; their text rewritten here), the
//! storage is declared before the loops, and two statements of its own follow every other:
//! the write-back of the last values (`x[e] = loopy_x_x[t][e]` over the plan's `{ [t, e] }`,
//! scanned like any statement) and, for a storage allocated on the heap, its release.

use super::place::Placed;
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::copy::{BufDim, CopyPlan};
use crate::model::expand::ExpandPlan;
use crate::model::program::Program;
use crate::model::{
    Access, AccessKind, Array, LoopInfo, Schedule, Scop, SourceSpan, Statement, Storage,
};
use crate::presburger::build::{constant, input};
use crate::presburger::{Basic, Int, Map, Set, Space, Tuple};

/// Storage of at most this many elements is an automatic array; larger storage is
/// allocated on the heap when the region starts and freed after it.
pub const STACK_ELEMENTS: i64 = 8192;

fn refuse(plan: &ExpandPlan, msg: String) -> Diagnostic {
    Diagnostic::new(
        codes::STORAGE_NOT_GENERATED,
        format!("cannot generate code: {msg}"),
    )
    .with_label(
        &plan.origin.source,
        plan.origin.span.clone(),
        "expanded here",
    )
}

/// The expression whose type the storage's elements have.
fn element(plan: &ExpandPlan) -> String {
    let zero: String = (0..plan.rank).map(|_| "[0]").collect();
    format!("{}{zero}", plan.c_name)
}

/// A tuple named `name` of `n` dims.
fn named(n: usize, prefix: &str, name: &str) -> Tuple {
    let mut t = Tuple::anonymous(n, prefix);
    t.name = Some(name.to_string());
    t
}

/// Whether the storage lives on the heap.
fn on_heap(plan: &ExpandPlan) -> bool {
    match plan.elements() {
        Some(e) => e > STACK_ELEMENTS,
        None => true,
    }
}

/// The storage's declaration (lines).
pub fn declarations(plan: &ExpandPlan, params: &[String]) -> Result<Vec<String>, Diagnostic> {
    if plan.lower.iter().any(super::ast::corner_floors)
        || plan.runtime.iter().flatten().any(super::ast::extent_floors)
    {
        return Err(refuse(
            plan,
            format!(
                "the box of the expanded `{}` needs floors of the parameters",
                plan.c_name
            ),
        ));
    }
    let name = &plan.name;
    if !on_heap(plan) {
        let dims: String = plan.size.iter().map(|s| format!("[{s}]")).collect();
        return Ok(vec![format!(
            "__typeof__({}) {name}{dims} __attribute__((aligned(64)));",
            element(plan)
        )]);
    }
    let mut out = vec![];
    let dim = |d: usize| -> String {
        match &plan.runtime[d] {
            Some(_) => format!("{name}_n{d}"),
            None => plan.size[d].to_string(),
        }
    };
    for (d, e) in plan.runtime.iter().enumerate() {
        if let Some(e) = e {
            let n = format!("{name}_n{d}");
            out.push(format!("long {n} = {};", e.to_c(params, "F")));
            out.push(format!("if ({n} < 1) {n} = 1;"));
        }
    }
    let bytes = format!("{name}_bytes");
    out.push(format!(
        "unsigned long {bytes} = sizeof({});",
        element(plan)
    ));
    for d in 0..plan.size.len() {
        out.push(format!(
            "if (__builtin_mul_overflow({bytes}, (unsigned long){}, &{bytes})) __builtin_abort();",
            dim(d)
        ));
    }
    let inner: String = (1..plan.size.len())
        .map(|d| format!("[{}]", dim(d)))
        .collect();
    out.push(format!(
        "__typeof__({}) (*{name}){inner} = __builtin_malloc({bytes});",
        element(plan)
    ));
    out.push(format!("if (!{name}) __builtin_abort();"));
    Ok(out)
}

/// The statement of an expansion's own that writes the last values back (`x[e] =
/// loopy_x_x[t][e]`), numbered `index`, with its iterators' names; `None` when nothing is
/// written back.
fn write_back_statement(
    scop: &Scop,
    plan: &ExpandPlan,
    index: usize,
) -> Option<(Statement, Vec<String>)> {
    // The loops that still index the storage (a `contract` gives some back).
    let k = plan.loops().len();
    let mut names: Vec<String> = (0..k).map(|d| format!("{}_t{d}", plan.name)).collect();
    names.extend((0..plan.rank).map(|d| format!("{}_e{d}", plan.name)));
    let write_back = plan.storage_write_back();
    if write_back.is_empty() {
        return None;
    }
    let idx: String = (0..k + plan.rank)
        .map(|d| format!("[{}]", plan.index(d, &names[d], &scop.params)))
        .collect();
    let arr: String = names[k..].iter().map(|e| format!("[{e}]")).collect();
    let text = format!("{}{arr} = {}{idx};", plan.c_name, plan.name);
    let ns: Vec<&str> = names.iter().map(String::as_str).collect();
    let write = Map::from_affine(
        names.clone(),
        &(k..names.len())
            .map(|i| input(names.len(), i))
            .collect::<Vec<_>>(),
    )
    .with_space_names(Tuple::new(None, &ns), named(plan.rank, "e", &plan.array));
    let read = Map::from_affine(
        names.clone(),
        &(0..names.len())
            .map(|i| input(names.len(), i))
            .collect::<Vec<_>>(),
    )
    .with_space_names(Tuple::new(None, &ns), named(k + plan.rank, "x", &plan.name));
    let span = SourceSpan {
        file: plan.origin.source.clone(),
        range: plan.origin.span.clone(),
        line: 0,
        end_line: 0,
    };
    let acc = |array: &str, kind, relation: Map| Access {
        array: array.to_string(),
        kind,
        relation,
        exact: true,
        note: None,
        span: span.clone(),
    };
    let s = own_statement(
        scop,
        index,
        &write_back,
        &names,
        text,
        vec![
            acc(&plan.array, AccessKind::Write, write),
            acc(&plan.name, AccessKind::Read, read),
        ],
    );
    Some((s, names))
}

/// A statement of the expansion's own, over `set` (tuple dims named `names`).
fn own_statement(
    scop: &Scop,
    index: usize,
    set: &Set,
    names: &[String],
    text: String,
    accesses: Vec<Access>,
) -> Statement {
    let stmt_name = format!("S{index}");
    let ns: Vec<&str> = names.iter().map(String::as_str).collect();
    let tuple = Tuple::new(Some(&stmt_name), &ns);
    let domain = set.clone().with_tuple(tuple.clone());
    let span = SourceSpan {
        file: scop.region.file.clone(),
        range: scop.region.range.end..scop.region.range.end,
        line: scop.region.end_line,
        end_line: scop.region.end_line,
    };
    let accesses = accesses
        .into_iter()
        .map(|mut a| {
            let out = a.relation.space().range.clone();
            a.relation = a.relation.with_space_names(tuple.clone(), out);
            a
        })
        .collect();
    let n = names.len();
    let dims = Map::from_affine(
        names.to_vec(),
        &(0..n).map(|i| input(n, i)).collect::<Vec<_>>(),
    )
    .with_space_names(tuple, Tuple::anonymous(n, "j"));
    Statement {
        name: stmt_name,
        label: None,
        iterators: names.to_vec(),
        domain,
        accesses,
        schedule: Schedule {
            positions: vec![Int::ZERO; n + 1],
            dims,
        },
        expanded_text: text.clone(),
        text,
        span: span.clone(),
        loops: names
            .iter()
            .map(|v| LoopInfo {
                iterator: v.clone(),
                c_name: v.clone(),
                step: Int::ONE,
                first: None,
                span: span.clone(),
                outer_counter: false,
                lanes: false,
            })
            .collect(),
        opaque: None,
        declares: vec![],
        update: None,
        store: Err("a statement loopy generates".into()),
    }
}

/// The expanded program for the code generator: `scop` with the statements' texts
/// rewritten and their accesses as `program` (the program of `scop` under `plans`,
/// [`Program::expanded`]) gives them, the storage declared, and the write-back and release
/// statements appended (with their schedules appended to `placed`, after every piece:
/// `next` is the first free outermost position).
pub fn expanded(
    scop: &Scop,
    program: &Program,
    plans: &[ExpandPlan],
    placed: &mut Vec<Placed>,
    next: Int,
) -> Result<Scop, Diagnostic> {
    let mut scop = scop.clone();
    let mut decls = vec![];
    let mut extra: Vec<(Statement, Vec<String>)> = vec![];
    for plan in plans {
        for &s in &plan.stmts {
            let st = &mut scop.statements[s];
            if st.opaque.is_some() {
                return Err(refuse(
                    plan,
                    format!("statement {} is not modelled exactly", st.name),
                ));
            }
            let iters: Vec<String> = st.loops.iter().map(|l| l.c_name.clone()).collect();
            st.text = plan
                .rewrite(&st.text, &iters, &scop.params)
                .map_err(|why| refuse(plan, format!("{why}: `{}`", st.text)))?;
            // The accesses that went to the storage, as the storage is declared.
            for (a, view) in st.accesses.iter_mut().zip(program.accesses_of(s)) {
                if let Some(storage) = &view.storage {
                    a.relation = storage.clone();
                    a.array = view.array.clone();
                }
            }
        }
        scop.arrays.push(Array {
            name: plan.name.clone(),
            c_name: plan.name.clone(),
            rank: plan.storage_rank(),
            private_depth: None,
            storage: Storage::Region,
            elem_type: None,
            extents: vec![],
            declared: None,
        });
        decls.extend(declarations(plan, &scop.params)?);
    }
    // Write-backs in the reverse order of the expansions (see `plan::expand`).
    for plan in plans.iter().rev() {
        let index = scop.statements.len() + extra.len();
        extra.extend(write_back_statement(&scop, plan, index));
        if on_heap(plan) {
            let ps: Vec<&str> = scop.params.iter().map(String::as_str).collect();
            let one = Set::universe(Space::set(&ps, Tuple::new(None, &[])));
            let index = scop.statements.len() + extra.len();
            let s = own_statement(
                &scop,
                index,
                &one,
                &[],
                format!("__builtin_free({});", plan.name),
                vec![],
            );
            extra.push((s, vec![]));
        }
    }
    scop.declarations.splice(0..0, decls);
    // Schedules: the own statements after everything, one outermost position each.
    let m = placed
        .first()
        .map_or(0, |p| (p.schedule.n_out() - 1) / 2)
        .max(extra.iter().map(|(_, n)| n.len()).max().unwrap_or(0));
    let n = 2 * m + 1;
    for p in placed.iter_mut() {
        let have = p.schedule.n_out();
        if have < n {
            let xs: Vec<String> = (0..have).map(|i| format!("x{i}")).collect();
            let outs: Vec<_> = (0..n)
                .map(|i| {
                    if i < have {
                        input(have, i)
                    } else {
                        constant(have, Int::ZERO)
                    }
                })
                .collect();
            let pad = Map::from_affine(xs, &outs);
            p.schedule = p.schedule.apply_range(&pad);
        }
    }
    let mut pos = next;
    for (s, names) in extra {
        let w = names.len();
        let mut outs = vec![constant(w, pos.clone())];
        for v in 0..w {
            outs.push(input(w, v));
            outs.push(constant(w, Int::ZERO));
        }
        outs.resize(n, constant(w, Int::ZERO));
        let theta = Map::from_affine(names.clone(), &outs)
            .with_space_names(s.domain.tuple().clone(), Tuple::anonymous(n, "c"))
            .intersect_domain(&s.domain);
        placed.push(Placed {
            stmt: scop.statements.len(),
            piece: None,
            schedule: theta,
            marks: vec![],
        });
        scop.statements.push(s);
        pos = &pos + &Int::ONE;
    }
    Ok(scop)
}

/// The copy plans in the coordinates of the storage as declared. A copy of an expansion's
/// storage is planned on the expanded program: one leading dimension per loop expanded
/// along, and each dimension's values as the subscripts give them. The storage has no
/// dimension for a loop a `contract` gave back (one element wide in every window of the
/// copy, `plan::copy` refuses the copy otherwise), and it is indexed from its box's lower
/// corner (`ExpandPlan::index`): the corners, footprint and written elements of the copy
/// are shifted by it (an affine expression of the parameters, `plan::copy` refuses the copy
/// otherwise).
pub fn storage_plans(plans: &[CopyPlan], expansions: &[ExpandPlan]) -> Vec<CopyPlan> {
    plans
        .iter()
        .map(
            |plan| match expansions.iter().find(|e| e.name == plan.mark.array) {
                Some(e) => shifted(&without_given_back(plan, e), e),
                None => plan.clone(),
            },
        )
        .collect()
}

/// `plan` without the dimensions of the loops `e` gave back.
fn without_given_back(plan: &CopyPlan, e: &ExpandPlan) -> CopyPlan {
    let mut dims: Vec<usize> = e.given_back.iter().map(|g| g.0).collect();
    dims.sort_unstable();
    let mut p = plan.clone();
    for &d in dims.iter().rev() {
        p.rank -= 1;
        p.lower.remove(d);
        p.size.remove(d);
        p.runtime.remove(d);
        p.footprint = without_range_dim(&p.footprint, d);
        p.written = without_range_dim(&p.written, d);
        p.layout.retain(|b| b.dim() != d);
        for b in p.layout.iter_mut() {
            *b = match *b {
                BufDim::Whole(x) if x > d => BufDim::Whole(x - 1),
                BufDim::Blocks(x, n) if x > d => BufDim::Blocks(x - 1, n),
                BufDim::Within(x, n) if x > d => BufDim::Within(x - 1, n),
                b => b,
            };
        }
    }
    p
}

/// `plan` (in the storage's dimensions) with each dimension counted from the storage's
/// lower corner there.
fn shifted(plan: &CopyPlan, e: &ExpandPlan) -> CopyPlan {
    let mut p = plan.clone();
    for d in 0..p.rank {
        let off =
            storage_offset(e, d).expect("`plan::copy` refuses a storage corner that is not affine");
        if off.iter().all(Int::is_zero) {
            continue;
        }
        // The corner: minus the offset, over the parameters' columns.
        let row = &mut p.lower[d].row;
        for (x, o) in row.iter_mut().zip(&off) {
            *x -= o;
        }
        p.footprint = shift_range_dim(&p.footprint, d, &off);
        p.written = shift_range_dim(&p.written, d, &off);
    }
    p
}

/// The lower corner of the storage's dimension `d` as a row over `[1 | params]`, when it is
/// affine (no floors).
pub fn storage_offset(e: &ExpandPlan, d: usize) -> Option<Vec<Int>> {
    let c = e.lower.get(d)?;
    let np = c.basic.n_param();
    if (np + 1..c.row.len()).any(|i| !c.row[i].is_zero()) {
        return None;
    }
    Some(c.row[..=np].to_vec())
}

/// `m` with its range dimension `d` replaced by `d - off` (`off` over `[1 | params]`): each
/// constraint on `x` becomes one on `x' + off`.
fn shift_range_dim(m: &Map, d: usize, off: &[Int]) -> Map {
    let k = m.n_in();
    let w = m.wrap();
    let parts: Vec<Basic> = (w.parts().iter())
        .map(|b| {
            let mut b = b.clone();
            let col = b.col_dim(k + d);
            let sub = |r: &mut Vec<Int>| {
                let a = r[col].clone();
                if a.is_zero() {
                    return;
                }
                for (c, o) in off.iter().enumerate() {
                    r[c] = &r[c] + &(&a * o);
                }
            };
            b.map_rows(sub);
            b.map_divs(|num, _| sub(num));
            b
        })
        .collect();
    Map::from_set(&Set::from_parts(w.space().clone(), parts), k)
}

/// `m` without its range dimension `d`.
fn without_range_dim(m: &Map, d: usize) -> Map {
    let k = m.n_in();
    Map::from_set(&m.wrap().project_out(k + d, 1), k)
}
