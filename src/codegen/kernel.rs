//! Whole kernels: every statement's final schedule scanned into one loop nest, with the
//! statement bodies re-emitted from their source text.
//!
//! Each piece of a statement (a statement split by `isplit` has several) becomes one scan
//! item: the set `{ [θ, i] : i ∈ domain }`, scanned along θ, with the iterators `i`
//! recovered from θ by the item's equalities. A legal schedule is one-to-one, so they are
//! determined; the statement text then gets each iterator replaced by its expression.

use super::ast::{CPrinter, Helpers, Node};
use super::copy::Extra;
use super::marks::{mark_loops, parallel_around, unroll_loops, Inside, ItemVars, MarkCtx};
use super::registers::Target;
use super::scan::{disjoint_parts, Item};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::copy::{BufDim, CopyPlan};
use crate::model::state::Mark;
use crate::model::Scop;
use crate::presburger::{Basic, Int, Map};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// A statement (or a piece of one) with its final schedule θ, a map from the statement's
/// instances to 2d+1 time vectors, restricted to the instances the piece covers.
#[derive(Clone, Debug)]
pub struct Placed {
    pub stmt: usize,
    /// The state's piece this is (the index copy plans count members by); `None` for
    /// statements the state has no piece of (an expansion's write-back and release, copies'
    /// fills and corners).
    pub piece: Option<usize>,
    pub schedule: Map,
    /// Marks on its iteration dims (iteration dim `j` is scanned dim `2j+1`).
    pub marks: Vec<Mark>,
}

/// What an instance of a statement does in the generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// The statement's own text, iterators replaced.
    Source,
    /// `printf("S1 3 4\n")`: the statement's name and iterator values, one line per
    /// instance (trace validation; the file must include `<stdio.h>`).
    Trace,
}

/// Prefix of the helper macros, so they cannot clash with the user's names.
const MACRO_PREFIX: &str = "loopy_";

/// The C text replacing the modelled region: helper macros, then the loop nest, with copies
/// into local buffers (planned by `model::copy`, whose members are the state's pieces:
/// each is found by [`Placed::piece`], in whatever order `placed` holds them). Lines end in
/// `\n` and are not indented.
pub(super) fn generate_with_copies(
    scop: &Scop,
    placed: &[Placed],
    body: Body,
    plans: &[CopyPlan],
    target: &Target,
) -> Result<String, Diagnostic> {
    let n_param = scop.params.len();
    let n_stmt = placed.len();
    // Each plan's members as positions in `placed` (scan items), and buffers laid out in the
    // order the staged statements' loops walk them.
    let position: BTreeMap<usize, usize> = placed
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.piece.map(|piece| (piece, i)))
        .collect();
    let plans: Vec<CopyPlan> = plans
        .iter()
        .map(|c| {
            let mut c = c.clone();
            c.members = c
                .members
                .iter()
                .map(|m| {
                    *position
                        .get(m)
                        .expect("a copy plan's members are placed pieces")
                })
                .collect();
            if let Some(l) = walk_order(scop, placed, &c) {
                c.layout = l;
            }
            c
        })
        .collect();
    let plans = &plans[..];
    let staged = super::copy::stage(placed, plans);
    let placed_ext: Vec<Placed> = staged
        .schedules
        .iter()
        .enumerate()
        .map(|(i, sch)| Placed {
            stmt: placed.get(i).map_or(0, |p| p.stmt),
            piece: placed.get(i).and_then(|p| p.piece),
            schedule: sch.clone(),
            marks: match placed.get(i) {
                Some(p) => p.marks.clone(),
                None => match &staged.extras[i - n_stmt] {
                    Extra::Fill(c) | Extra::WriteBack(c) => {
                        super::copy::item_marks(&plans[*c], placed)
                    }
                    Extra::Setup(_) => vec![],
                },
            },
        })
        .collect();
    let placed = &placed_ext[..];
    let n_scan = placed.iter().map(|p| p.schedule.n_out()).max().unwrap_or(0);
    // Fresh names of the scanned dims (loops counting no iterator): `c<k>`, avoiding every
    // identifier the statements use.
    let mut reserved: BTreeSet<String> = scop.params.iter().cloned().collect();
    for s in &scop.statements {
        reserved.extend(identifiers(&s.text));
        reserved.extend(s.loops.iter().map(|l| l.c_name.clone()));
    }
    let fresh: Vec<String> = (0..n_scan)
        .map(|k| {
            let mut n = format!("c{k}");
            while reserved.contains(&n) {
                n.push('_');
            }
            n
        })
        .collect();
    let mut items = vec![];
    let mut inner_names: Vec<Vec<String>> = vec![];
    for (id, p) in placed.iter().enumerate() {
        if p.schedule.n_out() != n_scan {
            return Err(Diagnostic::new(
                codes::INTERNAL,
                "internal error: statements' schedules have different lengths",
            ));
        }
        let set = p.schedule.inverse().wrap().simplify();
        for b in disjoint_parts(&set) {
            items.push(Item { id, basic: b });
        }
        if id < n_stmt {
            // The C name each iterator has in the statement's text.
            let st = &scop.statements[p.stmt];
            inner_names.push(st.loops.iter().map(|l| l.c_name.clone()).collect());
        } else {
            let plan = match &staged.extras[id - n_stmt] {
                Extra::Setup(c) | Extra::Fill(c) | Extra::WriteBack(c) => &plans[*c],
            };
            let k = plan.mark.outer;
            // The outer loops keep the name the staged statements give them; element loops
            // get the fresh name of their dim.
            let mut names: Vec<String> = (0..k)
                .map(|d| {
                    outer_name(scop, placed, plan, d).unwrap_or_else(|| fresh[2 * d + 1].clone())
                })
                .collect();
            names.extend((0..plan.rank).map(|d| fresh[2 * (k + d) + 1].clone()));
            inner_names.push(names);
        }
    }
    // Statement texts with the copied arrays' accesses rewritten.
    let mut texts: Vec<String> = placed[..n_stmt]
        .iter()
        .map(|p| scop.statements[p.stmt].text.clone())
        .collect();
    // Per statement item, the copies whose buffers its text now names.
    let mut named: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n_stmt];
    if body == Body::Source {
        for (c, plan) in plans.iter().enumerate() {
            for &i in &plan.members {
                let st = &scop.statements[placed[i].stmt];
                if !st.accesses.iter().any(|a| a.array == plan.mark.array) {
                    continue;
                }
                // A piece staged by nested copies of one array uses the innermost buffer.
                if plans
                    .iter()
                    .any(|p| p.source == Some(c) && p.members.contains(&i))
                {
                    continue;
                }
                if st.opaque.is_some() {
                    return Err(super::copy::refuse(
                        plan,
                        format!("statement {} is not modelled exactly", st.name),
                    ));
                }
                texts[i] = super::copy::rewrite(&texts[i], plan)
                    .map_err(|why| super::copy::refuse(plan, format!("{why}: `{}`", st.text)))?;
                named[i].insert(c);
            }
        }
    }
    let mut ctx = Basic::universe(n_param, n_scan);
    if let [c] = scop.context.parts() {
        if c.n_div() == 0 {
            ctx.eqs.extend(c.eqs.iter().cloned());
            ctx.ineqs.extend(c.ineqs.iter().cloned());
            for r in ctx.eqs.iter_mut().chain(ctx.ineqs.iter_mut()) {
                r.resize(1 + n_param + n_scan, crate::presburger::Int::ZERO);
            }
        }
    }
    let nodes = super::scan::scan_in(items, n_param, n_scan, inner_names, &ctx);
    if let Some(why) = undetermined(&nodes) {
        return Err(super::undetermined_diagnostic(&why));
    }
    let largest = super::ast::largest_constant(&nodes);
    if largest > i64::from(i32::MAX) {
        return Err(Diagnostic::new(codes::CONSTANT_TOO_LARGE, format!(
            "cannot generate code: the loops would need the constant {largest}, which does not fit the type `int` of the loop counters"
        ))
        .with_note(format!(
            "generated loop counters are `int`, whose values and constants must stay within ±{}; a schedule coefficient or offset this large (a skew, shift or scale) has no C loop for it",
            i32::MAX
        ))
        .with_help("use smaller coefficients in the script; the transformation itself may be legal (`loopy check` decides that)"));
    }
    if body == Body::Source {
        for a in scop.arrays.iter().filter(|a| a.private_depth.is_some()) {
            private_in_one_block(scop, &placed[..n_stmt], &nodes, &a.name)?;
        }
    }

    // Each thread of a parallel loop around a copy's window has its own buffer: `private`
    // (on its stack) when small, else allocated by each thread (`copy::thread_regions`).
    let heap: Vec<bool> = plans
        .iter()
        .map(|p| body == Body::Source && super::copy::thread_heap(p, placed))
        .collect();
    let private_of: Vec<ItemVars> = (0..placed.len())
        .map(
            |id| match id.checked_sub(n_stmt).map(|e| &staged.extras[e]) {
                Some(Extra::Setup(c)) => {
                    let p = &plans[*c];
                    ItemVars {
                        private: (!heap[*c])
                            .then(|| super::copy::buffer(p))
                            .into_iter()
                            .collect(),
                        firstprivate: (0..p.rank).map(|d| super::copy::offset(p, d)).collect(),
                    }
                }
                _ => ItemVars::default(),
            },
        )
        .collect();
    let mark_cx = MarkCtx {
        scop,
        placed,
        n_stmt,
        predeclared: &predeclared_names(scop),
        private_of: &private_of,
    };
    let nodes = mark_loops(&mark_cx, nodes, Inside::Nothing)?;
    // A buffer allocated when the region starts is one object: no thread may have its own.
    let allocated: BTreeSet<usize> = (n_stmt..placed.len())
        .filter(|&id| match &staged.extras[id - n_stmt] {
            Extra::Setup(c) => super::copy::allocated(&plans[*c]),
            _ => false,
        })
        .collect();
    if let Some(id) = parallel_around(&nodes, &allocated) {
        let Extra::Setup(c) = &staged.extras[id - n_stmt] else {
            unreachable!("only setups are collected")
        };
        return Err(super::copy::refuse(
            &plans[*c],
            format!(
                "the buffer of `{}` has a size that depends on the parameters and lies inside a loop marked `parallel`",
                plans[*c].c_name
            ),
        )
        .with_note("such a buffer is allocated once, when the region starts, so the threads of the parallel loop would share it")
        .with_help("copy inside loops whose iterations touch a box of constant size (tile first), or mark a loop inside the copy's loops `parallel`"));
    }
    let declaring: BTreeSet<usize> = (0..n_stmt)
        .filter(|&id| !scop.statements[placed[id].stmt].declares.is_empty())
        .collect();
    let nodes = unroll_loops(nodes, placed, n_param, &declaring)?;
    // Copies whose windows qualify become register blocks.
    let mut buffer_used = vec![true; plans.len()];
    let mut register_types = String::new();
    let nodes = if body == Body::Source && target.registers && !plans.is_empty() {
        let iters: Vec<Vec<String>> = placed[..n_stmt]
            .iter()
            .map(|p| {
                scop.statements[p.stmt]
                    .loops
                    .iter()
                    .map(|l| l.c_name.clone())
                    .collect()
            })
            .collect();
        let writes: Vec<Vec<String>> = placed[..n_stmt]
            .iter()
            .map(|p| {
                scop.statements[p.stmt]
                    .accesses
                    .iter()
                    .filter(|a| a.kind == crate::model::AccessKind::Write)
                    .filter_map(|a| scop.arrays.iter().find(|x| x.name == a.array))
                    .map(|x| x.c_name.clone())
                    .collect()
            })
            .collect();
        let offsets: BTreeSet<String> = plans
            .iter()
            .flat_map(|p| (0..p.rank).map(|d| super::copy::offset(p, d)))
            .collect();
        let ctx = super::registers::Ctx {
            n_param,
            n_stmt,
            params: &scop.params,
            iters: &iters,
            texts: &texts,
            writes: &writes,
            buffers: &named,
            offsets: &offsets,
            lanes: target.lanes(),
        };
        let r = super::registers::register_blocks(nodes, plans, &staged.extras, &ctx);
        buffer_used = r.buffer_used;
        register_types = r.typedefs;
        r.nodes
    } else {
        nodes
    };
    // The scan items that use a buffer its threads allocate (item, copy): the staged pieces,
    // the copy's corner, fill and write-back, and those of copies nested in it.
    let mut heap_items: Vec<(usize, usize)> = vec![];
    for (c, plan) in plans.iter().enumerate().filter(|(c, _)| heap[*c]) {
        heap_items.extend(plan.members.iter().map(|&id| (id, c)));
        for id in n_stmt..placed.len() {
            let (Extra::Setup(x) | Extra::Fill(x) | Extra::WriteBack(x)) =
                &staged.extras[id - n_stmt];
            if *x == c || plans[*x].source == Some(c) {
                heap_items.push((id, c));
            }
        }
    }
    // Such a buffer is declared for the whole region too where one of them lies outside
    // every parallel loop.
    let region_buffer: Vec<bool> = (0..plans.len())
        .map(|c| {
            !heap[c]
                || heap_items
                    .iter()
                    .any(|&(id, p)| p == c && super::copy::outside_parallel(&nodes, id))
        })
        .collect();
    let nodes = if heap_items.is_empty() {
        nodes
    } else {
        super::copy::thread_regions(nodes, &heap_items, plans)
    };
    // Counters declared outside the region (assigned, not declared, by generated loops).
    let predeclared: Vec<String> = scop
        .statements
        .iter()
        .flat_map(|s| s.loops.iter())
        .filter(|l| l.outer_counter)
        .map(|l| l.c_name.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // One parallel region around the sequential loops that enclose parallel ones.
    let nodes = if body == Body::Source {
        let corner =
            |id: usize| id >= n_stmt && matches!(staged.extras[id - n_stmt], Extra::Setup(_));
        super::regions::merge_regions(nodes, &corner, &predeclared)
    } else {
        nodes
    };
    let largest = super::ast::largest_constant(&nodes);
    if largest > i64::from(i32::MAX) {
        return Err(Diagnostic::new(codes::CONSTANT_TOO_LARGE, format!(
            "cannot generate code: the unrolled loops would need the constant {largest}, which does not fit the type `int` of the loop counters"
        ))
        .with_help("use a smaller unroll factor"));
    }
    let var = |k: usize| fresh[k].clone();
    let text_stmt = |id: usize, args: &[String], text: &str| -> String {
        let st = &scop.statements[placed[id].stmt];
        let mut subst: Vec<(String, String)> = vec![];
        for (l, a) in st.loops.iter().zip(args) {
            let v = if is_atom(a) {
                a.clone()
            } else {
                format!("({a})")
            };
            // An inner loop reusing a name hides the outer one, as in C.
            subst.retain(|(n, _)| *n != l.c_name);
            subst.push((l.c_name.clone(), v));
        }
        substitute(text, &subst)
    };
    let stmt = |id: usize, args: &[String]| -> String {
        if id >= n_stmt && body == Body::Trace {
            // Traces print statement instances only; the copy's loops stay, empty.
            let (what, c) = match &staged.extras[id - n_stmt] {
                Extra::Setup(c) => ("corner", c),
                Extra::Fill(c) => ("fill", c),
                Extra::WriteBack(c) => ("write-back", c),
            };
            return format!("/* {what} of the copy of {} */", plans[*c].c_name);
        }
        if id >= n_stmt {
            let floord = format!("{MACRO_PREFIX}floord");
            return super::copy::item_text(
                &staged.extras[id - n_stmt],
                plans,
                &scop.params,
                args,
                &floord,
            );
        }
        let st = &scop.statements[placed[id].stmt];
        match body {
            Body::Source => text_stmt(id, args, &texts[id]),
            Body::Trace => {
                let fmt: String = args.iter().map(|_| " %d").collect();
                let vals: String = args.iter().map(|a| format!(", {a}")).collect();
                format!("printf(\"{}{fmt}\\n\"{vals});", st.name)
            }
        }
    };
    let mut p = CPrinter {
        params: &scop.params,
        var: &var,
        stmt: &stmt,
        text: &text_stmt,
        helpers: Helpers {
            prefix: MACRO_PREFIX,
            ..Helpers::default()
        },
        bound: vec![],
        names: vec![],
        predeclared: &predeclared,
    };
    // The corners of the copies' boxes, and their run-time extents, may use floors.
    if plans.iter().any(|c| {
        c.lower.iter().any(super::ast::corner_floors)
            || c.runtime.iter().flatten().any(super::ast::extent_floors)
    }) {
        p.helpers.floord = true;
    }
    let mut text = String::new();
    p.nodes(&nodes, 0, &mut text);
    let mut out = p.helpers.defines();
    let floord = format!("{MACRO_PREFIX}floord");
    // `static` and `extern` locals of the region (and an expansion's storage): one object
    // for the whole function, so declared once, before the loops that use them and before
    // the copies' buffers, whose element types may name them.
    for d in &scop.declarations {
        let _ = writeln!(out, "{d}");
    }
    if body == Body::Source {
        for ((plan, used), whole) in plans.iter().zip(&buffer_used).zip(&region_buffer) {
            if !whole {
                // Each thread allocates the buffer; the region keeps only the offsets.
                out.push_str(&super::copy::offset_declarations(plan));
            } else {
                out.push_str(&super::copy::declarations(
                    plan,
                    &scop.params,
                    &floord,
                    !used,
                ));
            }
        }
        out.push_str(&register_types);
    }
    out.push_str(&text);
    if body == Body::Source {
        for plan in plans {
            out.push_str(&super::copy::release(plan));
        }
    }
    // Counters declared outside the region that no generated loop counts with any more:
    // the compiler would call them unused.
    let used = loop_names(&nodes);
    for n in &predeclared {
        if !used.contains(n) {
            let _ = writeln!(out, "(void){n}; /* no longer a loop counter */");
        }
    }
    Ok(out)
}

/// Counters declared outside the region (assigned, not declared, by generated loops).
fn predeclared_names(scop: &Scop) -> BTreeSet<String> {
    scop.statements
        .iter()
        .flat_map(|s| s.loops.iter())
        .filter(|l| l.outer_counter)
        .map(|l| l.c_name.clone())
        .collect()
}

/// The path of child indices from the root to every statement leaf, by piece.
fn leaf_paths(nodes: &[Node], path: &mut Vec<usize>, out: &mut Vec<(usize, Vec<usize>)>) {
    for (k, n) in nodes.iter().enumerate() {
        path.push(k);
        match n {
            Node::For { body, .. } | Node::Assign { body, .. } | Node::If { body, .. } => {
                leaf_paths(body, path, out)
            }
            Node::Stmt { id, .. } => out.push((*id, path.clone())),
            // Marks, unrolling and register blocks come after the checks that walk paths.
            _ => {}
        }
        path.pop();
    }
}

/// The node at a path.
fn node_at<'a>(nodes: &'a [Node], path: &[usize]) -> &'a Node {
    let n = &nodes[path[0]];
    match (n, &path[1..]) {
        (_, []) => n,
        (Node::For { body, .. } | Node::Assign { body, .. } | Node::If { body, .. }, rest) => {
            node_at(body, rest)
        }
        _ => unreachable!("a path goes through bodies"),
    }
}

/// A variable declared inside the region (at loop depth `d`) is a fresh one for every value
/// of its statements' first `d` iterators, and its declaration is one of the statements.
/// The generated code keeps that meaning when the declaration and every use land in one C
/// block (the innermost loop or `if` body holding them all), the declaration directly in
/// it, and one execution of that block holds exactly the instances of one copy: equal
/// enclosing loop values ⇔ equal first `d` iterators, for every pair of instances.
fn private_in_one_block(
    scop: &Scop,
    placed: &[Placed],
    nodes: &[Node],
    array: &str,
) -> Result<(), Diagnostic> {
    let a = scop.array(array).expect("an array of the scop");
    let d = a.private_depth.expect("private");
    let users: Vec<usize> = (0..placed.len())
        .filter(|&i| {
            let st = &scop.statements[placed[i].stmt];
            st.accesses.iter().any(|x| x.array == array) || st.declares.iter().any(|x| x == array)
        })
        .collect();
    if users.is_empty() {
        return Ok(());
    }
    let decls: Vec<usize> = users
        .iter()
        .copied()
        .filter(|&i| {
            scop.statements[placed[i].stmt]
                .declares
                .iter()
                .any(|x| x == array)
        })
        .collect();
    let fail = |msg: String, at: usize, label: &str| {
        let st = &scop.statements[placed[at].stmt];
        Diagnostic::new(
            codes::DECLARATION_NOT_PLACED,
            format!("cannot generate code: {msg}"),
        )
        .with_label(&st.span.file, st.span.range.clone(), label.to_string())
    };
    if decls.is_empty() {
        return Err(fail(
            format!(
                "`{}` is declared inside the modelled region without an initializer",
                a.c_name
            ),
            users[0],
            "uses it",
        )
        .with_help(format!(
            "give the declaration an initializer (`{} = 0`) so that it is a statement code generation can place, or declare `{}` before `#pragma scop`",
            a.c_name, a.c_name
        )));
    }
    let mut paths = vec![];
    leaf_paths(nodes, &mut vec![], &mut paths);
    paths.retain(|(id, _)| users.contains(id));
    let apart = |at: usize| {
        fail(
            format!(
                "`{}` is declared inside the loops around it, a new variable in every iteration, and after the transformation the statements using one such variable no longer run together in one block of the generated code",
                a.c_name
            ),
            at,
            "declared here",
        )
        .with_note("code generation keeps the declaration as written; it does not expand a variable into an array")
        .with_help(format!(
            "declare `{}` before `#pragma scop` (one variable for all iterations; the verifier then checks its reuse), or keep its statements in the same iteration",
            a.c_name
        ))
    };
    // The block of each declaration: the innermost loop or `if` body around it, reached
    // through assignments only (anything else would be a nested block hiding it), and the
    // scanned dimensions fixed there.
    let mut blocks: Vec<(Vec<usize>, usize, bool)> = vec![]; // (path, fixed dims, is a loop)
    for (_, path) in paths.iter().filter(|(id, _)| decls.contains(id)) {
        let mut len = path.len() - 1;
        while len > 0 && matches!(node_at(nodes, &path[..len]), Node::Assign { .. }) {
            len -= 1;
        }
        let (fixed, is_loop) = match (len > 0).then(|| node_at(nodes, &path[..len])) {
            Some(Node::For { var, .. }) => (var + 1, true),
            Some(Node::If { .. }) => {
                // Dimensions fixed by the loops around the `if`.
                let outer = (1..len)
                    .rev()
                    .find_map(|l| match node_at(nodes, &path[..l]) {
                        Node::For { var, .. } => Some(var + 1),
                        _ => None,
                    });
                (outer.unwrap_or(0), false)
            }
            _ => (0, len == 0),
        };
        let block = (path[..len].to_vec(), fixed, is_loop);
        if !blocks.contains(&block) {
            blocks.push(block);
        }
    }
    if blocks.is_empty() {
        // No declaration runs: fine only if no use runs either.
        return if paths.is_empty() {
            Ok(())
        } else {
            Err(apart(decls[0]))
        };
    }
    // Distinct loop blocks fixing the same dimensions never run for the same values of them
    // (sibling loops scan disjoint ranges); an `if` block must be the only one.
    let prefix = blocks[0].1;
    if blocks.iter().any(|b| b.1 != prefix) || (blocks.len() > 1 && blocks.iter().any(|b| !b.2)) {
        return Err(apart(decls[0]));
    }
    // Every use inside the block of a declaration.
    if paths
        .iter()
        .any(|(_, p)| !blocks.iter().any(|(b, _, _)| p.starts_with(b)))
    {
        return Err(apart(decls[0]));
    }
    // One block execution ⇔ one copy of the variable, for every pair of instances.
    for &p in &users {
        for &q in &users {
            let (sp, sq) = (&placed[p].schedule, &placed[q].schedule);
            let (ni, nj) = (sp.n_in(), sq.n_in());
            let n = sp.n_out();
            let pair = sp.wrap().product(&sq.wrap());
            let np = pair.space().n_param();
            let width = 1 + np + ni + n + nj + n;
            let same = |x: usize, y: usize| {
                let mut r = vec![crate::presburger::Int::ZERO; width];
                r[1 + np + x] = crate::presburger::Int::ONE;
                r[1 + np + y] = crate::presburger::Int::from(-1);
                r
            };
            let by_block: Vec<_> = (0..prefix).map(|k| same(ni + k, ni + n + nj + k)).collect();
            let by_copy: Vec<_> = (0..d).map(|k| same(k, ni + n + k)).collect();
            let in_block = pair.add_constraints(&by_block, &[]);
            let in_copy = pair.add_constraints(&by_copy, &[]);
            if !in_block.is_equal(&in_copy) {
                return Err(apart(decls[0]));
            }
        }
    }
    Ok(())
}

/// Whether C text needs no parentheses as an operand: a name, a number, or one
/// parenthesised whole.
fn is_atom(a: &str) -> bool {
    if a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return true;
    }
    if !(a.starts_with('(') && a.ends_with(')')) {
        return false;
    }
    // The first parenthesis closes at the very end.
    let mut depth = 0;
    for (k, c) in a.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return k == a.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// The first iterator the scan could not express, if any.
fn undetermined(nodes: &[Node]) -> Option<String> {
    use super::ast::Expr;
    super::ast::find_map(nodes, &mut |n| match n {
        Node::Stmt { args, .. } | Node::Text { args, .. } => args.iter().find_map(|a| match a {
            Expr::Comment(c) => Some(c.clone()),
            _ => None,
        }),
        Node::Comment(c) => Some(c.clone()),
        _ => None,
    })
}

/// The names of the loops of a tree that count one of the statements' own iterators.
pub(super) fn loop_names(nodes: &[Node]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    super::ast::for_each(nodes, &mut |n| {
        if let Node::For { name, .. } | Node::Unrolled { name, .. } = n {
            out.extend(name.clone());
        }
    });
    out
}

/// C tokens of `text` that are identifiers (not inside literals, not member names).
pub fn identifiers(text: &str) -> Vec<String> {
    let mut out = vec![];
    walk(text, |tok, is_ident| {
        if is_ident {
            out.push(tok.to_string());
        }
    });
    out
}

/// `text` with identifiers replaced (whole tokens only; literals and member names after
/// `.` or `->` are left alone).
pub fn substitute(text: &str, subst: &[(String, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    walk(text, |tok, is_ident| {
        match is_ident
            .then(|| subst.iter().find(|(n, _)| n == tok))
            .flatten()
        {
            Some((_, v)) => out.push_str(v),
            None => out.push_str(tok),
        }
    });
    out
}

/// Splits C text into tokens (identifiers, numbers, literals, single other characters) and
/// calls `f(token, is_replaceable_identifier)` for each, in order; the tokens concatenate
/// back to `text`.
fn walk(text: &str, mut f: impl FnMut(&str, bool)) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
            f(&text[start..i], false);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let tok = &text[start..i];
            let before = text[..start].trim_end();
            f(tok, !(before.ends_with('.') || before.ends_with("->")));
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || b[i] == b'_'
                    || ((b[i] == b'+' || b[i] == b'-')
                        && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P')))
            {
                i += 1;
            }
            f(&text[start..i], false);
        } else {
            // One character (UTF-8 sequences whole).
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            i += len;
            f(&text[start..i], false);
        }
    }
}

/// The C name the staged statements' loop at iteration dim `d` counts, when every staged
/// piece's schedule has that dim equal to one of its iterators with one name.
fn outer_name(scop: &Scop, placed: &[Placed], plan: &CopyPlan, d: usize) -> Option<String> {
    let mut name: Option<String> = None;
    for &i in &plan.members {
        let p = &placed[i];
        let st = &scop.statements[p.stmt];
        let w = p.schedule.wrap();
        let ni = p.schedule.n_in();
        let np = w.space().n_param();
        let width = 1 + np + ni + p.schedule.n_out();
        let found = (0..ni).find(|&x| {
            let mut r = vec![crate::presburger::Int::ZERO; width];
            r[1 + np + x] = crate::presburger::Int::ONE;
            r[1 + np + ni + 2 * d + 1] = crate::presburger::Int::from(-1);
            let mut above = r.clone();
            above[0] = crate::presburger::Int::from(-1);
            let mut below: Vec<_> = r.iter().map(|v| -v.clone()).collect();
            below[0] = crate::presburger::Int::from(-1);
            w.add_constraints(&[], &[above]).is_empty()
                && w.add_constraints(&[], &[below]).is_empty()
        })?;
        let n = st.loops.get(found)?.c_name.clone();
        match &name {
            None => name = Some(n),
            Some(m) if *m == n => {}
            Some(_) => return None,
        }
    }
    name
}

/// Iteration dim `m` such that schedule dim `2m+1` equals iterator `x` of a piece.
fn loop_of_iterator(p: &Placed, x: usize) -> Option<usize> {
    let w = p.schedule.wrap();
    let ni = p.schedule.n_in();
    let np = w.space().n_param();
    let width = 1 + np + ni + p.schedule.n_out();
    (0..p.schedule.n_out() / 2).find(|&m| {
        let mut r = vec![crate::presburger::Int::ZERO; width];
        r[1 + np + x] = crate::presburger::Int::ONE;
        r[1 + np + ni + 2 * m + 1] = crate::presburger::Int::from(-1);
        let mut above = r.clone();
        above[0] = crate::presburger::Int::from(-1);
        let mut below: Vec<_> = r.iter().map(|v| -v.clone()).collect();
        below[0] = crate::presburger::Int::from(-1);
        w.add_constraints(&[], &[above]).is_empty() && w.add_constraints(&[], &[below]).is_empty()
    })
}

/// The layout the staged statements' loops walk a copy's array in: array dims sorted by
/// the loop whose iterator each subscript follows (a subscript `x + c` of one iterator `x`
/// counted by that loop), outermost first; `None` (the array's own order) when a subscript
/// follows no single loop or the staged accesses disagree. A dimension whose iterator is
/// also counted in blocks by a loop of the window (`floor(x / b)`, as after strip-mining or
/// tiling) is split into blocks of `b` (at that loop's place) and the position inside a
/// block (at the point loop's): BLIS's micro-panels, which the innermost loops stream
/// contiguously.
fn walk_order(scop: &Scop, placed: &[Placed], plan: &CopyPlan) -> Option<Vec<BufDim>> {
    let mut level: Vec<Option<usize>> = vec![None; plan.rank];
    // Per dim: the blocking loop and block size, `Some(None)` once accesses disagree.
    let mut blocks: Vec<Option<Option<(usize, i64)>>> = vec![None; plan.rank];
    for &i in &plan.members {
        let p = &placed[i];
        let st = &scop.statements[p.stmt];
        for a in st.accesses.iter().filter(|a| a.array == plan.mark.array) {
            let [b] = a.relation.parts() else {
                return None;
            };
            let ni = a.relation.n_in();
            for (d, lv) in level.iter_mut().enumerate() {
                let col = b.col_dim(ni + d);
                let row = b.eqs.iter().find(|r| !r[col].is_zero())?;
                let ins: Vec<usize> = (0..ni).filter(|&x| !row[b.col_dim(x)].is_zero()).collect();
                let [x] = ins[..] else {
                    return None;
                };
                if !(&row[b.col_dim(x)] + &row[col]).is_zero()
                    || row[b.div_start()..].iter().any(|v| !v.is_zero())
                {
                    return None;
                }
                let m = loop_of_iterator(p, x)?;
                match lv {
                    None => *lv = Some(m),
                    Some(o) if *o == m => {}
                    Some(_) => return None,
                }
                let blk = block_loop(p, x, plan.mark.outer, m);
                blocks[d] = match blocks[d] {
                    None => Some(blk),
                    Some(prev) if prev == blk => Some(prev),
                    Some(_) => Some(None),
                };
            }
        }
    }
    let level: Vec<usize> = level.into_iter().collect::<Option<_>>()?;
    let mut dims: Vec<(usize, usize, BufDim)> = vec![];
    for d in 0..plan.rank {
        let size = plan.size[d].to_i64().unwrap_or(i64::MAX);
        match blocks[d].flatten() {
            // Buffers of run-time size keep whole dimensions.
            Some((mb, b)) if size > b && !super::copy::allocated(plan) => {
                dims.push((mb, d, BufDim::Blocks(d, b)));
                dims.push((level[d], d, BufDim::Within(d, b)));
            }
            _ => dims.push((level[d], d, BufDim::Whole(d))),
        }
    }
    dims.sort_by_key(|&(l, d, _)| (l, d));
    Some(dims.into_iter().map(|(_, _, b)| b).collect())
}

/// A loop of the window (iteration dims `outer..point`) that counts iterator `x` in blocks:
/// its schedule dim is `floor(x / b)` on the whole piece, with `b` one of the divisors the
/// schedule divides `x` by. The innermost such loop, with `b`.
fn block_loop(p: &Placed, x: usize, outer: usize, point: usize) -> Option<(usize, i64)> {
    let [sb] = p.schedule.parts() else {
        return None;
    };
    let ni = p.schedule.n_in();
    // Candidate sizes: the coefficients of schedule dims in rows that bound `x` (or the
    // point loop's dim, equal to it) by them; each is checked below.
    let (col_x, col_p) = (sb.col_dim(x), sb.col_dim(ni + 2 * point + 1));
    let mut sizes: Vec<i64> = sb
        .ineqs
        .iter()
        .chain(&sb.eqs)
        .filter(|r| r[col_x].abs().is_one() || r[col_p].abs().is_one())
        .flat_map(|r| {
            (outer..point)
                .filter_map(|m| r[sb.col_dim(ni + 2 * m + 1)].abs().to_i64())
                .collect::<Vec<_>>()
        })
        .filter(|&b| b > 1)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let w = p.schedule.wrap();
    let np = w.space().n_param();
    let width = 1 + np + ni + p.schedule.n_out();
    let implied = |r: Vec<Int>| w.add_constraints(&[], &[r]).is_empty();
    (outer..point).rev().find_map(|m| {
        sizes.iter().find_map(|&b| {
            // floor(x / b) = θ: x - bθ >= 0 and bθ + b - 1 - x >= 0 on the piece, so
            // neither negation has a point.
            let col_x = 1 + np + x;
            let col_t = 1 + np + ni + 2 * m + 1;
            let mut below = vec![Int::ZERO; width];
            below[0] = Int::from(-1);
            below[col_x] = Int::from(-1);
            below[col_t] = Int::from(b);
            let mut above = vec![Int::ZERO; width];
            above[0] = Int::from(-b);
            above[col_x] = Int::ONE;
            above[col_t] = Int::from(-b);
            (implied(below) && implied(above)).then_some((m, b))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitute_whole_identifiers_only() {
        let s = vec![
            ("i".to_string(), "(c1 + 2)".to_string()),
            ("j".to_string(), "j2".to_string()),
        ];
        assert_eq!(
            substitute("A[i][j] = s.i + p->j + ij + \"i j\" + 'i' + 1e-5 + i;", &s),
            "A[(c1 + 2)][j2] = s.i + p->j + ij + \"i j\" + 'i' + 1e-5 + (c1 + 2);"
        );
        assert_eq!(identifiers("x = y.z + f(w) * 2u;"), ["x", "y", "f", "w"]);
    }
}
