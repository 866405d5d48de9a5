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

use super::ast::{Clauses, LoopPragma, Node, ThreadBuffer};
use super::copy::Extra;
use super::place::Body;
use super::stage::Staging;
use crate::model::Scop;
use std::collections::BTreeSet;

/// The tree with its qualifying runs made parallel regions, for [`Body::Source`].
pub(super) fn regions(scop: &Scop, st: &Staging, body: Body, nodes: Vec<Node>) -> Vec<Node> {
    if body != Body::Source {
        return nodes;
    }
    let corner = |id: usize| matches!(st.extra(id), Some(Extra::Setup(_)));
    merge_regions(nodes, &corner, &super::print::predeclared(scop))
}

/// `nodes` with every qualifying run of siblings made one parallel region. `corner(id)`
/// says whether scan item `id` is a copy's corner; `predeclared` are the loop counters
/// declared before the generated code.
fn merge_regions(
    nodes: Vec<Node>,
    corner: &dyn Fn(usize) -> bool,
    predeclared: &[String],
) -> Vec<Node> {
    let mut out = vec![];
    // The qualifying nodes of the current run, each with its class.
    let mut run: Vec<(Node, Class)> = vec![];
    let flush = |run: &mut Vec<(Node, Class)>, out: &mut Vec<Node>| {
        let taken = std::mem::take(run);
        let works: usize = taken.iter().map(|(_, c)| c.works).sum();
        let looped = taken.iter().any(|(_, c)| c.looped);
        let flat: Vec<Node> = taken.into_iter().map(|(n, _)| n).collect();
        if works > 1 || looped {
            if let Some(r) = region(flat.clone(), corner, predeclared) {
                out.push(r);
                return;
            }
        }
        out.extend(flat);
    };
    for n in nodes {
        if let Some(c) = class(&n, corner) {
            run.push((n, c));
            continue;
        }
        flush(&mut run, &mut out);
        out.push(n.map_bodies(|b| merge_regions(b, corner, predeclared)));
    }
    flush(&mut run, &mut out);
    out
}

/// What a qualifying node holds: its work-sharing loops, and whether one of them lies
/// inside a sequential loop of the node.
struct Class {
    works: usize,
    looped: bool,
}

/// `None` when the node cannot be part of a region (a statement, a line of C or a
/// vectorized loop outside every parallel loop).
fn class(n: &Node, corner: &dyn Fn(usize) -> bool) -> Option<Class> {
    let work = Some(Class {
        works: 1,
        looped: false,
    });
    let none = Some(Class {
        works: 0,
        looped: false,
    });
    match n {
        Node::Omp {
            pragma: LoopPragma::ParallelFor(_),
            ..
        } => work,
        n if thread_region(n).is_some() => work,
        Node::Comment(_) => none,
        Node::Stmt { id, .. } | Node::Text { id, .. } if corner(*id) => none,
        Node::For { .. }
        | Node::Unrolled { .. }
        | Node::Assign { .. }
        | Node::If { .. }
        | Node::Block(_) => {
            let mut c = Class {
                works: 0,
                looped: false,
            };
            for body in n.bodies() {
                for m in body {
                    let inner = class(m, corner)?;
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

/// A thread region's parts (`copy::thread_regions`): its buffers, the clauses of its
/// work-sharing loop and the loop. `None` for a node of another shape.
fn thread_region(n: &Node) -> Option<(&[ThreadBuffer], &Clauses, &Node)> {
    let Node::Parallel {
        private,
        buffers,
        body,
    } = n
    else {
        return None;
    };
    match &body[..] {
        [Node::Omp {
            pragma: LoopPragma::For(c),
            body,
        }] if private.is_empty() && !buffers.is_empty() && body.len() == 1 => {
            Some((buffers, c, &body[0]))
        }
        _ => None,
    }
}

/// The run as one parallel region, or `None` where a region-private counter appears in a
/// clause that OpenMP forbids for it.
fn region(run: Vec<Node>, corner: &dyn Fn(usize) -> bool, predeclared: &[String]) -> Option<Node> {
    let mut r = Region::default();
    let body = r.rewrite(run, corner, predeclared);
    if r.restricted.iter().any(|v| r.private.contains(v)) {
        return None;
    }
    Some(Node::Parallel {
        private: r.private.into_iter().collect(),
        buffers: r.buffers,
        body,
    })
}

/// What rewriting a run collects.
#[derive(Default)]
struct Region {
    /// The threads' buffers, each allocated once.
    buffers: Vec<ThreadBuffer>,
    /// Counters of sequential loops declared before the region.
    private: BTreeSet<String>,
    /// The variables of the work-sharing loops' clauses that must not be region-private.
    restricted: BTreeSet<String>,
}

impl Region {
    fn rewrite(
        &mut self,
        nodes: Vec<Node>,
        corner: &dyn Fn(usize) -> bool,
        predeclared: &[String],
    ) -> Vec<Node> {
        let mut out = vec![];
        for n in nodes {
            if let Some((buffers, clauses, lp)) = thread_region(&n) {
                self.restricted.extend(clauses.restricted().cloned());
                for b in buffers {
                    if !self.buffers.contains(b) {
                        self.buffers.push(b.clone());
                    }
                }
                out.push(Node::Omp {
                    pragma: LoopPragma::For(clauses.clone()),
                    body: vec![lp.clone()],
                });
                continue;
            }
            match n {
                Node::Omp {
                    pragma: LoopPragma::ParallelFor(c),
                    body,
                } => {
                    self.restricted.extend(c.restricted().cloned());
                    out.push(Node::Omp {
                        pragma: LoopPragma::For(c),
                        body,
                    });
                }
                n => out.push(self.sequential(n, corner, predeclared)),
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
    ) -> Node {
        match n {
            Node::Stmt { id, .. } | Node::Text { id, .. } if corner(id) => Node::Single(vec![n]),
            Node::For { ref name, .. } | Node::Unrolled { ref name, .. } => {
                if let Some(v) = name.as_ref().filter(|v| predeclared.contains(v)) {
                    self.private.insert(v.clone());
                }
                n.map_bodies(|b| self.rewrite(b, corner, predeclared))
            }
            n => n.map_bodies(|b| self.rewrite(b, corner, predeclared)),
        }
    }
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

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn private(v: &[&str]) -> Clauses {
        Clauses {
            private: names(v),
            ..Clauses::default()
        }
    }

    /// `omp parallel for` with the clauses `c` around `n`.
    fn par(c: Clauses, n: Node) -> Node {
        Node::Omp {
            pragma: LoopPragma::ParallelFor(c),
            body: vec![n],
        }
    }

    /// `omp for` with the clauses `c` around `n`.
    fn work(c: Clauses, n: Node) -> Node {
        Node::Omp {
            pragma: LoopPragma::For(c),
            body: vec![n],
        }
    }

    fn team(private: &[&str], body: Vec<Node>) -> Node {
        Node::Parallel {
            private: names(private),
            buffers: vec![],
            body,
        }
    }

    /// Items from 100 on are corners.
    fn merged(nodes: Vec<Node>, predeclared: &[&str]) -> Vec<Node> {
        merge_regions(nodes, &|id| id >= 100, &names(predeclared))
    }

    #[test]
    fn a_sequential_loop_around_a_parallel_loop_becomes_one_region() {
        let nodes = vec![lp(
            0,
            None,
            vec![st(100), par(private(&["j"]), lp(1, None, vec![st(0)]))],
        )];
        let want = vec![team(
            &[],
            vec![lp(
                0,
                None,
                vec![
                    Node::Single(vec![st(100)]),
                    work(private(&["j"]), lp(1, None, vec![st(0)])),
                ],
            )],
        )];
        assert_eq!(merged(nodes, &[]), want);
    }

    #[test]
    fn two_parallel_loops_in_a_row_share_a_region() {
        let nodes = vec![
            par(Clauses::default(), lp(0, None, vec![st(0)])),
            Node::Comment("x".into()),
            par(Clauses::default(), lp(0, None, vec![st(1)])),
        ];
        let want = vec![team(
            &[],
            vec![
                work(Clauses::default(), lp(0, None, vec![st(0)])),
                Node::Comment("x".into()),
                work(Clauses::default(), lp(0, None, vec![st(1)])),
            ],
        )];
        assert_eq!(merged(nodes, &[]), want);
    }

    #[test]
    fn one_parallel_loop_alone_is_left_as_it_is() {
        let nodes = vec![par(Clauses::default(), lp(0, None, vec![st(0)]))];
        assert_eq!(merged(nodes.clone(), &[]), nodes);
    }

    #[test]
    fn a_statement_outside_the_parallel_loops_keeps_them_apart() {
        // Statement 1 runs once, between the loops: in a region every thread would run it.
        let nodes = vec![
            par(Clauses::default(), lp(0, None, vec![st(0)])),
            st(1),
            par(Clauses::default(), lp(0, None, vec![st(2)])),
        ];
        assert_eq!(merged(nodes.clone(), &[]), nodes);
        // The same inside a sequential loop.
        let nodes = vec![lp(
            0,
            None,
            vec![st(1), par(Clauses::default(), lp(1, None, vec![st(0)]))],
        )];
        assert_eq!(merged(nodes.clone(), &[]), nodes);
        // A vectorized loop outside the parallel ones, too.
        let simd = Node::Omp {
            pragma: LoopPragma::Simd,
            body: vec![lp(1, None, vec![st(1)])],
        };
        let nodes = vec![lp(
            0,
            None,
            vec![simd, par(Clauses::default(), lp(1, None, vec![st(0)]))],
        )];
        assert_eq!(merged(nodes.clone(), &[]), nodes);
    }

    #[test]
    fn a_run_deeper_down_is_found() {
        // The outer loop runs statement 1 itself; the inner sequential loop qualifies.
        let inner = lp(
            1,
            None,
            vec![par(Clauses::default(), lp(2, None, vec![st(0)]))],
        );
        let nodes = vec![lp(0, None, vec![st(1), inner])];
        let got = merged(nodes, &[]);
        let Node::For { body, .. } = &got[0] else {
            panic!("a loop")
        };
        assert_eq!(body[0], st(1));
        assert!(matches!(body[1], Node::Parallel { .. }), "{body:?}");
    }

    #[test]
    fn a_counter_declared_before_becomes_private() {
        let nodes = vec![lp(
            0,
            Some("t"),
            vec![par(private(&["i"]), lp(1, Some("i"), vec![st(0)]))],
        )];
        let got = merged(nodes, &["t", "i"]);
        let Node::Parallel { private, .. } = &got[0] else {
            panic!("a region: {got:?}")
        };
        assert_eq!(private, &names(&["t"]));
    }

    #[test]
    fn a_private_counter_in_a_firstprivate_or_reduction_clause_leaves_the_run_alone() {
        let first = Clauses {
            firstprivate: names(&["t"]),
            ..Clauses::default()
        };
        let red = Clauses {
            reduction: Some(("+", names(&["t"]))),
            ..Clauses::default()
        };
        for c in [first, red] {
            let nodes = vec![lp(0, Some("t"), vec![par(c, lp(1, None, vec![st(0)]))])];
            assert_eq!(merged(nodes.clone(), &["t"]), nodes);
        }
    }

    #[test]
    fn each_thread_allocates_its_buffers_once() {
        let b = ThreadBuffer {
            ty: "double".into(),
            name: "b".into(),
            dims: vec![Int::from(4), Int::from(4)],
        };
        let thread_region = |id: usize| Node::Parallel {
            private: vec![],
            buffers: vec![b.clone()],
            body: vec![work(Clauses::default(), lp(1, None, vec![st(id)]))],
        };
        let body = vec![thread_region(0), thread_region(1)];
        let got = merged(vec![lp(0, None, body)], &[]);
        let want = vec![Node::Parallel {
            private: vec![],
            buffers: vec![b.clone()],
            body: vec![lp(
                0,
                None,
                vec![
                    work(Clauses::default(), lp(1, None, vec![st(0)])),
                    work(Clauses::default(), lp(1, None, vec![st(1)])),
                ],
            )],
        }];
        assert_eq!(got, want);
    }
}
