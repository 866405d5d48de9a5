//! One OpenMP parallel region around the sequential loops that enclose parallel loops.
//!
//! Marking a loop `parallel` makes it `#pragma omp parallel for`: a team of threads starts
//! and ends at every run of the loop. Inside sequential loops (a matrix product's panel
//! loops around its parallel row blocks, a wavefront number around the tiles of one
//! wavefront) that is a fork and a join per iteration, and each thread allocates and frees
//! its heap buffers ([`super::copy::thread_regions`]) each time. This pass gives such code
//! the shape BLIS runs it in: one `#pragma omp parallel` around the sequential loops, every
//! thread running them, each parallel loop a work-sharing loop (`#pragma omp for`, the same
//! clauses) whose implicit barrier keeps the order the sequential program had, and the
//! threads' buffers allocated once when the region starts.
//!
//! The pass changes where threads start, never what runs in which order, so it needs no
//! verification of its own; it applies only where that holds by construction. A run of
//! sibling nodes becomes one region when everything in it outside the parallel loops is
//! control flow (loops, guards, blocks, comments) and copies' corners, and it holds more
//! than one parallel loop or one inside a loop:
//! - loop bounds and guards depend only on the parameters and the loops around them, so
//!   every thread meets the same work-sharing loops in the same order, as OpenMP requires;
//! - a corner (a copy's offsets, shared variables read by the loops that use its buffer)
//!   runs in `#pragma omp single`, whose barrier publishes the offsets before any thread
//!   goes on; a thread can reach it only after the barrier of the work-sharing loop before,
//!   so no thread still reads the old offsets;
//! - a loop counter declared before the region (a statement's own iterator, such as `t`)
//!   that counts a sequential loop in the run becomes `private` to the region; a run where
//!   such a name appears in a work-sharing loop's `firstprivate`, `lastprivate` or
//!   `reduction` clause (which OpenMP forbids for region-private variables) is left alone.
//!
//! Without OpenMP the pragmas are ignored and the block runs once: the sequential program
//! is unchanged.

use super::ast::Node;
use std::collections::BTreeSet;

/// The prefix of a marked loop's pragma.
const PARALLEL_FOR: &str = "omp parallel for";

/// The lines a thread region ([`super::copy::thread_regions`]) starts with.
const EXTERNS: [&str; 2] = [
    "extern void *aligned_alloc(__SIZE_TYPE__, __SIZE_TYPE__);",
    "extern void perror(const char *);",
];

/// `nodes` with every qualifying run of siblings made one parallel region. `corner(id)`
/// says whether scan item `id` is a copy's corner; `predeclared` are the loop counters
/// declared before the generated code.
pub fn merge_regions(
    nodes: Vec<Node>,
    corner: &dyn Fn(usize) -> bool,
    predeclared: &[String],
) -> Vec<Node> {
    let mut out = vec![];
    // The qualifying units of the current run, each with its class.
    let mut run: Vec<(Vec<Node>, Class)> = vec![];
    let flush = |run: &mut Vec<(Vec<Node>, Class)>, out: &mut Vec<Node>| {
        let taken = std::mem::take(run);
        let works: usize = taken.iter().map(|(_, c)| c.works).sum();
        let looped = taken.iter().any(|(_, c)| c.looped);
        let flat: Vec<Node> = taken.into_iter().flat_map(|(u, _)| u).collect();
        if works > 1 || looped {
            if let Some(r) = region(flat.clone(), corner, predeclared) {
                out.extend(r);
                return;
            }
        }
        out.extend(flat);
    };
    for u in units(nodes) {
        if let Some(c) = class(&u, corner) {
            run.push((u, c));
            continue;
        }
        flush(&mut run, &mut out);
        out.extend(
            u.into_iter()
                .map(|n| n.map_bodies(|b| merge_regions(b, corner, predeclared))),
        );
    }
    flush(&mut run, &mut out);
    out
}

/// The nodes grouped as the printer runs them: a pragma with the node it applies to.
fn units(nodes: Vec<Node>) -> Vec<Vec<Node>> {
    let mut out: Vec<Vec<Node>> = vec![];
    for n in nodes {
        match out.last_mut() {
            Some(u) if u.len() == 1 && matches!(u[0], Node::Pragma(_)) => u.push(n),
            _ => out.push(vec![n]),
        }
    }
    out
}

/// What a qualifying unit holds: its work-sharing loops, and whether one of them lies
/// inside a sequential loop of the unit.
struct Class {
    works: usize,
    looped: bool,
}

/// `None` when the unit cannot be part of a region (a statement, a line of C or a
/// vectorized loop outside every parallel loop).
fn class(unit: &[Node], corner: &dyn Fn(usize) -> bool) -> Option<Class> {
    let work = Some(Class {
        works: 1,
        looped: false,
    });
    match unit {
        [Node::Pragma(p), _] if p.starts_with(PARALLEL_FOR) => work,
        [Node::Pragma(p), Node::Block(b)] if p == "omp parallel" && thread_region(b).is_some() => {
            work
        }
        [Node::Pragma(_), ..] => None,
        [Node::Comment(_)] => Some(Class {
            works: 0,
            looped: false,
        }),
        [Node::Stmt { id, .. }] | [Node::Text { id, .. }] if corner(*id) => Some(Class {
            works: 0,
            looped: false,
        }),
        [n @ (Node::For { .. }
        | Node::Unrolled { .. }
        | Node::Assign { .. }
        | Node::If { .. }
        | Node::Block(_))] => {
            let mut c = Class {
                works: 0,
                looped: false,
            };
            for body in bodies(n) {
                for u in units(body.to_vec()) {
                    let inner = class(&u, corner)?;
                    c.works += inner.works;
                    c.looped |= inner.looped;
                }
            }
            if matches!(n, Node::For { .. } | Node::Unrolled { .. }) && c.works > 0 {
                c.looped = true;
            }
            Some(c)
        }
        _ => None,
    }
}

/// The lists of nodes a node holds.
fn bodies(n: &Node) -> Vec<&[Node]> {
    match n {
        Node::For { body, .. }
        | Node::Assign { body, .. }
        | Node::If { body, .. }
        | Node::Block(body) => vec![body],
        Node::Unrolled { body, rest, .. } => vec![body, rest],
        _ => vec![],
    }
}

/// A thread region's parts: its allocation lines, its work-sharing pragma and loop, and its
/// lines that free the buffers. `None` when the block has another shape.
fn thread_region(b: &[Node]) -> Option<(Vec<String>, String, Node, Vec<String>)> {
    let raw = |n: &Node| match n {
        Node::Raw(t) => Some(t.clone()),
        _ => None,
    };
    let at = b
        .iter()
        .position(|n| matches!(n, Node::Pragma(p) if p.starts_with("omp for")))?;
    let (head, tail) = b.split_at(at);
    let [Node::Pragma(pragma), lp, frees @ ..] = tail else {
        return None;
    };
    if head.len() < EXTERNS.len()
        || head
            .iter()
            .zip(EXTERNS)
            .any(|(n, e)| raw(n).as_deref() != Some(e))
    {
        return None;
    }
    let allocs = head[EXTERNS.len()..]
        .iter()
        .map(raw)
        .collect::<Option<Vec<_>>>()?;
    let frees = frees.iter().map(raw).collect::<Option<Vec<_>>>()?;
    Some((allocs, pragma.clone(), lp.clone(), frees))
}

/// The run as one parallel region, or `None` where a region-private counter appears in a
/// clause that OpenMP forbids for it.
fn region(
    run: Vec<Node>,
    corner: &dyn Fn(usize) -> bool,
    predeclared: &[String],
) -> Option<Vec<Node>> {
    let mut r = Region::default();
    let body = r.rewrite(run, corner, predeclared);
    if r.clauses
        .iter()
        .any(|c| words(c).iter().any(|w| r.private.contains(w)))
    {
        return None;
    }
    let mut block = vec![];
    if !r.allocs.is_empty() {
        block.extend(EXTERNS.iter().map(|e| Node::Raw(e.to_string())));
    }
    block.extend(r.allocs.into_iter().map(Node::Raw));
    block.extend(body);
    block.extend(r.frees.into_iter().map(Node::Raw));
    let mut pragma = "omp parallel".to_string();
    if !r.private.is_empty() {
        let names: Vec<&str> = r.private.iter().map(String::as_str).collect();
        pragma.push_str(&format!(" private({})", names.join(", ")));
    }
    Some(vec![Node::Pragma(pragma), Node::Block(block)])
}

/// What rewriting a run collects.
#[derive(Default)]
struct Region {
    /// The threads' buffers, each allocated once.
    allocs: Vec<String>,
    frees: Vec<String>,
    /// Counters of sequential loops declared before the region.
    private: BTreeSet<String>,
    /// The work-sharing loops' clauses that must not name a region-private variable.
    clauses: Vec<String>,
}

impl Region {
    fn rewrite(
        &mut self,
        nodes: Vec<Node>,
        corner: &dyn Fn(usize) -> bool,
        predeclared: &[String],
    ) -> Vec<Node> {
        let mut out = vec![];
        for u in units(nodes) {
            match <[Node; 2]>::try_from(u) {
                Ok([Node::Pragma(p), lp]) if p.starts_with(PARALLEL_FOR) => {
                    let rest = &p[PARALLEL_FOR.len()..];
                    self.clauses.extend(restricted_clauses(rest));
                    out.push(Node::Pragma(format!("omp for{rest}")));
                    out.push(lp);
                }
                Ok([Node::Pragma(p), Node::Block(b)]) if p == "omp parallel" => {
                    let (allocs, pragma, lp, frees) =
                        thread_region(&b).expect("classified as a thread region");
                    self.clauses.extend(restricted_clauses(&pragma));
                    for a in allocs {
                        if !self.allocs.contains(&a) {
                            self.allocs.push(a);
                        }
                    }
                    for f in frees {
                        if !self.frees.contains(&f) {
                            self.frees.push(f);
                        }
                    }
                    out.push(Node::Pragma(pragma));
                    out.push(lp);
                }
                Ok(pair) => out.extend(pair),
                Err(u) => {
                    for n in u {
                        out.extend(self.sequential(n, corner, predeclared));
                    }
                }
            }
        }
        out
    }

    /// A node outside every work-sharing loop.
    fn sequential(
        &mut self,
        n: Node,
        corner: &dyn Fn(usize) -> bool,
        predeclared: &[String],
    ) -> Vec<Node> {
        match n {
            Node::Stmt { id, .. } | Node::Text { id, .. } if corner(id) => {
                vec![Node::Pragma("omp single".into()), Node::Block(vec![n])]
            }
            Node::For { ref name, .. } | Node::Unrolled { ref name, .. } => {
                if let Some(v) = name.as_ref().filter(|v| predeclared.contains(v)) {
                    self.private.insert(v.clone());
                }
                vec![n.map_bodies(|b| self.rewrite(b, corner, predeclared))]
            }
            n => vec![n.map_bodies(|b| self.rewrite(b, corner, predeclared))],
        }
    }
}

/// The lists of a pragma's `firstprivate`, `lastprivate` and `reduction` clauses.
fn restricted_clauses(pragma: &str) -> Vec<String> {
    let mut out = vec![];
    for name in ["firstprivate(", "lastprivate(", "reduction("] {
        let mut rest = pragma;
        while let Some(at) = rest.find(name) {
            let open = at + name.len();
            let close = rest[open..].find(')').map_or(rest.len(), |c| open + c);
            out.push(rest[open..close].to_string());
            rest = &rest[close..];
        }
    }
    out
}

/// The identifiers in a clause's list.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::ast::Expr;
    use crate::presburger::Int;

    fn lp(var: usize, name: Option<&str>, body: Vec<Node>) -> Node {
        Node::For {
            var,
            name: name.map(str::to_string),
            lower: Expr::Aff(vec![Int::ZERO]),
            step: Int::ONE,
            upper: Expr::Aff(vec![Int::from(9)]),
            body,
        }
    }

    fn st(id: usize) -> Node {
        Node::Stmt { id, args: vec![] }
    }

    fn pragma(t: &str) -> Node {
        Node::Pragma(t.to_string())
    }

    /// Items from 100 on are corners.
    fn merged(nodes: Vec<Node>, predeclared: &[&str]) -> Vec<Node> {
        let pre: Vec<String> = predeclared.iter().map(|s| s.to_string()).collect();
        merge_regions(nodes, &|id| id >= 100, &pre)
    }

    #[test]
    fn a_sequential_loop_around_a_parallel_loop_becomes_one_region() {
        let nodes = vec![lp(
            0,
            None,
            vec![
                st(100),
                pragma("omp parallel for private(j)"),
                lp(1, None, vec![st(0)]),
            ],
        )];
        let want = vec![
            pragma("omp parallel"),
            Node::Block(vec![lp(
                0,
                None,
                vec![
                    pragma("omp single"),
                    Node::Block(vec![st(100)]),
                    pragma("omp for private(j)"),
                    lp(1, None, vec![st(0)]),
                ],
            )]),
        ];
        assert_eq!(merged(nodes, &[]), want);
    }

    #[test]
    fn two_parallel_loops_in_a_row_share_a_region() {
        let nodes = vec![
            pragma("omp parallel for"),
            lp(0, None, vec![st(0)]),
            Node::Comment("x".into()),
            pragma("omp parallel for"),
            lp(0, None, vec![st(1)]),
        ];
        let got = merged(nodes, &[]);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], pragma("omp parallel"));
        let Node::Block(b) = &got[1] else {
            panic!("a block: {got:?}")
        };
        assert_eq!(b[0], pragma("omp for"));
        assert_eq!(b[3], pragma("omp for"));
    }

    #[test]
    fn one_parallel_loop_alone_is_left_as_it_is() {
        let nodes = vec![pragma("omp parallel for"), lp(0, None, vec![st(0)])];
        assert_eq!(merged(nodes.clone(), &[]), nodes);
    }

    #[test]
    fn a_statement_outside_the_parallel_loops_keeps_them_apart() {
        // Statement 1 runs once, between the loops: in a region every thread would run it.
        let nodes = vec![
            pragma("omp parallel for"),
            lp(0, None, vec![st(0)]),
            st(1),
            pragma("omp parallel for"),
            lp(0, None, vec![st(2)]),
        ];
        assert_eq!(merged(nodes.clone(), &[]), nodes);
        // The same inside a sequential loop.
        let nodes = vec![lp(
            0,
            None,
            vec![st(1), pragma("omp parallel for"), lp(1, None, vec![st(0)])],
        )];
        assert_eq!(merged(nodes.clone(), &[]), nodes);
        // A vectorized loop outside the parallel ones, too.
        let nodes = vec![lp(
            0,
            None,
            vec![
                pragma("omp simd"),
                lp(1, None, vec![st(1)]),
                pragma("omp parallel for"),
                lp(1, None, vec![st(0)]),
            ],
        )];
        assert_eq!(merged(nodes.clone(), &[]), nodes);
    }

    #[test]
    fn a_run_deeper_down_is_found() {
        // The outer loop runs statement 1 itself; the inner sequential loop qualifies.
        let inner = lp(
            1,
            None,
            vec![pragma("omp parallel for"), lp(2, None, vec![st(0)])],
        );
        let nodes = vec![lp(0, None, vec![st(1), inner])];
        let got = merged(nodes, &[]);
        let Node::For { body, .. } = &got[0] else {
            panic!("a loop")
        };
        assert_eq!(body[0], st(1));
        assert_eq!(body[1], pragma("omp parallel"));
    }

    #[test]
    fn a_counter_declared_before_becomes_private() {
        let nodes = vec![lp(
            0,
            Some("t"),
            vec![
                pragma("omp parallel for private(i)"),
                lp(1, Some("i"), vec![st(0)]),
            ],
        )];
        let got = merged(nodes, &["t", "i"]);
        assert_eq!(got[0], pragma("omp parallel private(t)"));
    }

    #[test]
    fn a_private_counter_in_a_firstprivate_clause_leaves_the_run_alone() {
        let nodes = vec![lp(
            0,
            Some("t"),
            vec![
                pragma("omp parallel for firstprivate(t)"),
                lp(1, None, vec![st(0)]),
            ],
        )];
        assert_eq!(merged(nodes.clone(), &["t"]), nodes);
        assert_eq!(
            restricted_clauses("omp for private(a) firstprivate(b, c) reduction(+: s)"),
            vec!["b, c".to_string(), "+: s".to_string()]
        );
    }

    #[test]
    fn each_thread_allocates_its_buffers_once() {
        let thread_region = |id: usize| {
            vec![
                pragma("omp parallel"),
                Node::Block(vec![
                    Node::Raw(EXTERNS[0].into()),
                    Node::Raw(EXTERNS[1].into()),
                    Node::Raw("double (*b)[4] = aligned_alloc(64, 64);".into()),
                    Node::Raw("if (!b) abort();".into()),
                    pragma("omp for"),
                    lp(1, None, vec![st(id)]),
                    Node::Raw("__builtin_free(b);".into()),
                ]),
            ]
        };
        let mut body = thread_region(0);
        body.extend(thread_region(1));
        let got = merged(vec![lp(0, None, body)], &[]);
        assert_eq!(got[0], pragma("omp parallel"));
        let Node::Block(b) = &got[1] else {
            panic!("a block")
        };
        let raws: Vec<&str> = b
            .iter()
            .filter_map(|n| match n {
                Node::Raw(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            raws,
            vec![
                EXTERNS[0],
                EXTERNS[1],
                "double (*b)[4] = aligned_alloc(64, 64);",
                "if (!b) abort();",
                "__builtin_free(b);"
            ]
        );
        let Node::For { body, .. } = &b[4] else {
            panic!("the loop after the allocations: {b:?}")
        };
        assert_eq!(body.iter().filter(|n| **n == pragma("omp for")).count(), 2);
        assert!(!body
            .iter()
            .any(|n| matches!(n, Node::Raw(_) | Node::Block(_))));
    }
}
