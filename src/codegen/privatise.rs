//! Privatise: what each instance or thread has of its own. Variables declared inside the
//! region stay in one C block per instance (checked); a copy's buffer inside a parallel
//! loop is each thread's own, `private` on its stack when small, else allocated by each
//! thread on the heap in a parallel region around the loop.

use super::ast::{for_each_path, ids_in, node_at, LoopPragma, Node, ThreadBuffer};
use super::copy::{allocated, element_type_of, Extra};
use super::names::{buffer, offset};
use super::place::{Body, Placed};
use super::stage::Staging;
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::copy::CopyPlan;
use crate::model::state::MarkKind;
use crate::model::Scop;
use crate::presburger::Int;
use std::collections::BTreeSet;

/// The variables a scan item sets that each thread of a parallel loop around it needs its
/// own copy of (a copy's corner: its buffer, unless each thread allocates one, and its
/// offsets).
#[derive(Clone, Debug, Default)]
pub(super) struct ItemVars {
    pub private: Vec<String>,
    /// Private copies that start as the region set them: a copy's offsets (0). Every
    /// thread sets its own before use, but a compiler cannot always see that and warns of
    /// private copies used uninitialized.
    pub firstprivate: Vec<String>,
}

impl ItemVars {
    pub fn is_empty(&self) -> bool {
        self.private.is_empty() && self.firstprivate.is_empty()
    }
}

/// Refuses code where a variable declared inside the region would not stay in one block
/// per instance ([`private_in_one_block`]).
pub(super) fn check_declared(scop: &Scop, st: &Staging, nodes: &[Node]) -> Result<(), Diagnostic> {
    for a in scop.arrays.iter().filter(|a| a.private_depth.is_some()) {
        private_in_one_block(scop, &st.placed[..st.n_stmt], nodes, &a.name)?;
    }
    Ok(())
}

/// Per copy: whether each thread of a parallel loop around its window allocates its
/// buffer on the heap ([`thread_heap`]).
pub(super) fn heap(st: &Staging, body: Body) -> Vec<bool> {
    st.plans
        .iter()
        .map(|p| body == Body::Source && thread_heap(p, &st.placed))
        .collect()
}

/// Per scan item, the variables each thread needs its own copy of.
pub(super) fn item_vars(st: &Staging, heap: &[bool]) -> Vec<ItemVars> {
    (0..st.placed.len())
        .map(|id| match st.extra(id) {
            Some(Extra::Setup(c)) => {
                let p = &st.plans[*c];
                ItemVars {
                    private: (!heap[*c]).then(|| buffer(p)).into_iter().collect(),
                    firstprivate: (0..p.rank).map(|d| offset(p, d)).collect(),
                }
            }
            _ => ItemVars::default(),
        })
        .collect()
}

/// The tree with each thread's heap buffers allocated where it needs them
/// ([`thread_regions`]), and per copy whether its buffer is still declared for the whole
/// region (not allocated by threads, or used outside every parallel loop too).
pub(super) fn thread_buffers(
    st: &Staging,
    heap: &[bool],
    nodes: Vec<Node>,
) -> (Vec<Node>, Vec<bool>) {
    // The scan items that use a buffer its threads allocate (item, copy): the staged pieces,
    // the copy's corner, fill and write-back, and those of copies nested in it.
    let mut heap_items: Vec<(usize, usize)> = vec![];
    for (c, plan) in st.plans.iter().enumerate().filter(|(c, _)| heap[*c]) {
        heap_items.extend(plan.members.iter().map(|&id| (id, c)));
        for id in st.n_stmt..st.placed.len() {
            let x = st.copy_of(id).expect("a copy's item");
            if x == c || st.plans[x].source == Some(c) {
                heap_items.push((id, c));
            }
        }
    }
    let region_buffer: Vec<bool> = (0..st.plans.len())
        .map(|c| {
            !heap[c]
                || heap_items
                    .iter()
                    .any(|&(id, p)| p == c && outside_parallel(&nodes, id))
        })
        .collect();
    let nodes = if heap_items.is_empty() {
        nodes
    } else {
        thread_regions(nodes, &heap_items, &st.plans)
    };
    (nodes, region_buffer)
}

/// The largest buffer, in elements, that a thread of a parallel loop keeps on its stack (64
/// KiB of `double`s): a buffer private to the threads of a parallel loop around its window
/// is an automatic array of each thread (OpenMP's `private`) up to this size, and above it
/// an array each thread allocates on the heap when the parallel region starts
/// ([`thread_regions`]). Threads other than the first have small stacks (OpenMP's default
/// is 2 to 8 MiB, `OMP_STACKSIZE`), which a packed block of a few hundred KiB per buffer
/// would overflow without any check.
pub const THREAD_STACK_ELEMENTS: i64 = 8192;

/// Whether the buffer lies inside a loop marked `parallel` of its staged pieces (a mark at
/// an outer loop of the window, `dim < k`): each thread of that loop has its own buffer.
pub fn thread_private(plan: &CopyPlan, placed: &[Placed]) -> bool {
    let k = plan.mark.outer;
    plan.members
        .iter()
        .filter_map(|&m| placed.get(m))
        .flat_map(|p| p.marks.iter())
        .any(|m| m.dim < k && matches!(m.kind, MarkKind::Parallel { .. }))
}

/// The number of elements of a buffer of constant size.
fn elements(plan: &CopyPlan) -> Int {
    plan.layout
        .iter()
        .map(|b| b.extent(&plan.size[b.dim()]))
        .fold(Int::ONE, |a, s| &a * &s)
}

/// Whether each thread of a parallel loop around the copy's window allocates its buffer on
/// the heap: a buffer of constant size above [`THREAD_STACK_ELEMENTS`] private to the
/// threads. (A buffer whose size depends on the parameters is allocated when the region
/// starts and cannot be private; `kernel` refuses it inside a parallel loop.)
pub fn thread_heap(plan: &CopyPlan, placed: &[Placed]) -> bool {
    let limit = Int::from(THREAD_STACK_ELEMENTS);
    !allocated(plan) && thread_private(plan, placed) && elements(plan) > limit
}

/// A thread's own heap buffer for a copy ([`thread_heap`]).
fn thread_buffer(plan: &CopyPlan) -> ThreadBuffer {
    ThreadBuffer {
        ty: format!("__typeof__({})", element_type_of(plan)),
        name: buffer(plan),
        dims: plan
            .layout
            .iter()
            .map(|b| b.extent(&plan.size[b.dim()]))
            .collect(),
    }
}

/// Every loop marked `omp parallel for` that encloses a use of a buffer each thread
/// allocates on the heap (`heap`: the scan items that use it — its copy's corner, fill,
/// write-back and staged pieces — each with its plan) becomes a parallel region: each
/// thread allocates those buffers when the region starts, runs the loop as a work-sharing
/// loop (`#pragma omp for`, the same clauses) and frees its buffers after the loop's
/// implicit barrier. The buffers are allocated once per thread and per run of the region,
/// not once per iteration. Without OpenMP the pragmas are ignored and the block runs once,
/// with one buffer: the sequential program is the same. (Scanning may leave a separated
/// loop that holds a fill but not the corner, from bounds wider than its items' domains;
/// its iterations do nothing, and it gets the same form, so that every use of the buffer
/// names a declared one.)
pub fn thread_regions(nodes: Vec<Node>, heap: &[(usize, usize)], plans: &[CopyPlan]) -> Vec<Node> {
    nodes
        .into_iter()
        .map(|n| match n {
            Node::Omp {
                pragma: LoopPragma::ParallelFor(clauses),
                body,
            } => {
                let mut ids = BTreeSet::new();
                ids_in(&body, &mut ids);
                let mine: BTreeSet<usize> = heap
                    .iter()
                    .filter(|(id, _)| ids.contains(id))
                    .map(|&(_, c)| c)
                    .collect();
                if mine.is_empty() {
                    let n = Node::Omp {
                        pragma: LoopPragma::ParallelFor(clauses),
                        body,
                    };
                    return n.map_bodies(|b| thread_regions(b, heap, plans));
                }
                Node::Parallel {
                    private: vec![],
                    buffers: mine.into_iter().map(|c| thread_buffer(&plans[c])).collect(),
                    body: vec![Node::Omp {
                        pragma: LoopPragma::For(clauses),
                        body,
                    }],
                }
            }
            n => n.map_bodies(|b| thread_regions(b, heap, plans)),
        })
        .collect()
}

/// Whether scan item `id` runs somewhere outside every loop marked `omp parallel for` (a
/// buffer each thread allocates is then also needed once for the whole region).
pub fn outside_parallel(nodes: &[Node], id: usize) -> bool {
    nodes.iter().any(|n| match n {
        Node::Omp {
            pragma: LoopPragma::ParallelFor(_),
            ..
        } => false,
        Node::Stmt { id: i, .. } | Node::Text { id: i, .. } => *i == id,
        n => n.bodies().into_iter().any(|b| outside_parallel(b, id)),
    })
}

/// The path to every statement, by piece (marks, unrolling and register blocks come after
/// the checks that read paths: the nodes are loops, assignments, guards and statements).
fn statement_paths(nodes: &[Node]) -> Vec<(usize, Vec<usize>)> {
    let mut paths = vec![];
    for_each_path(nodes, &mut |path, n| {
        if let Node::Stmt { id, .. } = n {
            paths.push((*id, path.to_vec()));
        }
    });
    paths
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
    let mut paths = statement_paths(nodes);
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
