//! The schedule state of a program under transformation: the 2d+1 schedule *pieces* (a
//! statement, the part of its domain the piece covers, its position vector and its iteration
//! map), the loop components that name sets of positions, and the steps of the script that
//! produced them. The script interpreter rewrites it; the verifier and the code generator
//! read it.

pub use super::marks::{CopyMark, Mark, MarkKind, Origin, RedOp, Span, COPY_LIMIT};
use super::{AccessKind, Scop};
use crate::presburger::{build, Int, Map, Set};
use std::collections::{BTreeMap, BTreeSet};

/// A position vector (p0, ..., pM).
pub type Pos = Vec<Int>;

/// Part of one statement's instances, with its schedule.
#[derive(Clone, Debug)]
pub struct Piece {
    /// Index of the statement in the program.
    pub stmt: usize,
    /// The statement instances this piece covers (a subset of the statement's domain).
    pub domain: Set,
    /// Positions (p0, ..., pM).
    pub pos: Pos,
    /// Iteration dims: `S[iterators] -> [j1, ..., jM]`.
    pub it: Map,
    /// Number of iteration dims that are real loops around the statement (the rest pad).
    pub depth: usize,
    /// The script operations (by step number) that changed this piece's schedule.
    pub touched: Vec<usize>,
    /// Code-generation marks on this piece's iteration dims (at most one per dim).
    pub marks: Vec<Mark>,
    /// Arrays this piece reads and writes through a local buffer (`copy`), at most one per
    /// array.
    pub copies: Vec<CopyMark>,
}

impl Piece {
    /// The whole schedule θ = (p0, j1, p1, ..., jM, pM) as a map on the piece's domain.
    pub fn schedule(&self) -> Map {
        let m = self.it.n_out();
        let mut outs = vec![];
        for k in 0..m {
            outs.push(build::constant(m, self.pos[k].clone()));
            outs.push(build::input(m, k));
        }
        outs.push(build::constant(m, self.pos[m].clone()));
        let js: Vec<String> = (0..m).map(|k| format!("j{k}")).collect();
        let interleave = Map::from_affine(js, &outs);
        self.it
            .intersect_domain(&self.domain)
            .apply_range(&interleave)
    }
}

impl Piece {
    /// The mark on iteration dim `dim`, if any.
    pub fn mark_at(&self, dim: usize) -> Option<&Mark> {
        self.marks.iter().find(|m| m.dim == dim)
    }
}

/// An access as the schedule state knows it, for the footprints of copies.
#[derive(Clone, Debug)]
pub struct StateAccess {
    pub stmt: usize,
    pub array: String,
    pub write: bool,
    /// `S[iterators] -> A[subscripts]`.
    pub relation: Map,
    /// False when the relation over-approximates.
    pub exact: bool,
}

/// A loop component: the set P(l) of positions it covers.
#[derive(Clone, Debug)]
pub struct Component {
    pub positions: BTreeSet<Pos>,
    pub origin: Origin,
}

/// The schedules of a program and its loop components.
#[derive(Clone, Debug)]
pub struct State {
    pub params: Vec<String>,
    pub pieces: Vec<Piece>,
    pub components: Vec<Component>,
    /// Handles bound at top level: tags, then script assignments.
    pub handles: BTreeMap<String, usize>,
    /// Statement names, for messages.
    pub stmt_names: Vec<String>,
    /// Components (by index) named by a label on the first statement of a `{ }` block, which
    /// therefore stand for the whole block (§3.1); for messages when one is taken for its
    /// statement.
    pub block_tags: BTreeMap<usize, BlockTag>,
    /// The arrays of the program (model name, C name, rank, declared inside the region) and
    /// every statement's accesses, for `copy`; empty when the state was built without them.
    pub arrays: Vec<(String, String, usize, bool)>,
    pub accesses: Vec<StateAccess>,
    /// Each statement's text as written (for scaled copies, which rewrite products in it).
    pub texts: Vec<String>,
    /// The expansions (`expand`) applied so far, in order: the accesses above already go to
    /// their storage.
    pub expansions: Vec<super::expand::ExpandPlan>,
    /// The plan of every copy the pieces carry (`model::copy`), in the order
    /// `plan::copy::plan` gives them; each plan's `members` index `pieces`. Set by
    /// `plan::copy::plan_copies`, which the interpreter calls after every step (a step that
    /// leaves a copy unplannable is refused), so a script's state always holds the plans of
    /// its pieces; code that replaces the pieces calls it again. The verifier and the code
    /// generator read the plans from here.
    pub copy_plans: Vec<super::copy::CopyPlan>,
    /// The element type whose block sizes a script's `param NAME = model` takes
    /// (`docs/machine.md`): `float` when every floating-point array of the kernel has
    /// 4-byte elements, else `double`.
    pub model_type: &'static str,
}

/// A tag whose label sits on the first statement of a `{ }` block.
#[derive(Clone, Debug)]
pub struct BlockTag {
    pub name: String,
    /// Where the block starts (1-based line).
    pub line: usize,
    /// The labelled statement as written, for a fix that tags it alone.
    pub statement: Option<String>,
}

/// A statement as the interpreter first sees it.
#[derive(Clone, Debug)]
pub struct StmtInit {
    pub name: String,
    /// `S[iterators]`, with the program's parameters.
    pub domain: Set,
    /// Positions, already padded to the common length.
    pub pos: Pos,
    /// Iteration dims `S[iterators] -> [j1..jM]`, padded to the common length; `None` for
    /// the iterators themselves (loops counting up), padded with zeros.
    pub it: Option<Map>,
}

impl State {
    /// The initial state: each statement's iteration dims are its iterators, padded with
    /// zeros to the deepest nest (§3.2). `tags` give each tag's positions.
    pub fn new(
        params: Vec<String>,
        stmts: Vec<StmtInit>,
        tags: Vec<(String, BTreeSet<Pos>, Origin)>,
    ) -> State {
        let m = stmts
            .iter()
            .map(|s| s.it.as_ref().map_or(s.domain.n_dim(), Map::n_out))
            .max()
            .unwrap_or(0);
        let mut pieces = vec![];
        for (k, s) in stmts.iter().enumerate() {
            let d = s.domain.n_dim();
            let it = match &s.it {
                Some(it) => it.clone(),
                None => {
                    let xs: Vec<String> = (0..d).map(|i| format!("x{i}")).collect();
                    let mut outs: Vec<_> = (0..d).map(|i| build::input(d, i)).collect();
                    outs.extend(std::iter::repeat_n(build::constant(d, Int::ZERO), m - d));
                    let it = Map::from_affine(xs, &outs);
                    let range = it.space().range.clone();
                    it.with_space_names(s.domain.tuple().clone(), range)
                }
            };
            assert_eq!(s.pos.len(), m + 1, "positions padded to the deepest nest");
            pieces.push(Piece {
                stmt: k,
                domain: s.domain.clone(),
                pos: s.pos.clone(),
                it,
                depth: d,
                touched: vec![],
                marks: vec![],
                copies: vec![],
            });
        }
        let mut components = vec![];
        let mut handles = BTreeMap::new();
        for (name, positions, origin) in tags {
            components.push(Component { positions, origin });
            handles.insert(name, components.len() - 1);
        }
        State {
            params,
            pieces,
            components,
            handles,
            stmt_names: stmts.iter().map(|s| s.name.clone()).collect(),
            block_tags: BTreeMap::new(),
            arrays: vec![],
            texts: vec![],
            accesses: vec![],
            expansions: vec![],
            copy_plans: vec![],
            model_type: "double",
        }
    }

    /// Number of iteration dims in every schedule (M).
    pub fn n_it(&self) -> usize {
        self.pieces.first().map_or(0, |p| p.it.n_out())
    }

    pub fn members(&self, positions: &BTreeSet<Pos>) -> Vec<usize> {
        (0..self.pieces.len())
            .filter(|&i| positions.contains(&self.pieces[i].pos))
            .collect()
    }

    /// Applies a position map to every piece and component.
    pub fn map_positions(&mut self, f: impl Fn(&Pos) -> Pos) {
        for p in self.pieces.iter_mut() {
            p.pos = f(&p.pos);
        }
        for c in self.components.iter_mut() {
            c.positions = c.positions.iter().map(&f).collect();
        }
    }
}

impl State {
    /// The interpreter's initial state for `scop`: its schedules, tags and statement handles.
    pub fn from_scop(scop: &Scop) -> State {
        let stmts = scop
            .statements
            .iter()
            .enumerate()
            .map(|(k, s)| StmtInit {
                name: scop.stmt_name(k),
                domain: s.domain.clone(),
                pos: s.schedule.positions.clone(),
                it: Some(s.schedule.dims.clone()),
            })
            .collect();
        let mut tags: Vec<(String, BTreeSet<Pos>, Origin)> = scop
            .tags
            .iter()
            .map(|t| {
                let positions: BTreeSet<Pos> = scop.positions(t).into_iter().collect();
                let origin = Origin {
                    source: t.span.file.clone(),
                    span: t.span.range.clone(),
                    what: format!("tag `{}`", t.name),
                };
                (t.name.clone(), positions, origin)
            })
            .collect();
        tags.extend(statement_handles(scop));
        let mut st = State::new(scop.params.clone(), stmts, tags);
        let floats: Vec<usize> = scop.arrays.iter().filter_map(|a| a.float_bytes()).collect();
        if !floats.is_empty() && floats.iter().all(|&b| b == 4) {
            st.model_type = "float";
        }
        for (k, t) in scop.tags.iter().enumerate() {
            let Some(block) = t.block.as_ref().filter(|_| t.statements.len() > 1) else {
                continue;
            };
            let first = t.statements.first().map(|&i| &scop.statements[i]);
            let statement = first
                .filter(|s| s.label.as_deref() == Some(t.name.as_str()))
                .map(|s| s.text.clone());
            st.block_tags.insert(
                k,
                BlockTag {
                    name: t.name.clone(),
                    line: block.line,
                    statement,
                },
            );
        }
        // Arrays and accesses, for the footprints of copies.
        st.arrays = scop
            .arrays
            .iter()
            .map(|a| {
                (
                    a.name.clone(),
                    a.c_name.clone(),
                    a.rank,
                    a.private_depth.is_some(),
                )
            })
            .collect();
        for (k, s) in scop.statements.iter().enumerate() {
            for a in &s.accesses {
                st.accesses.push(StateAccess {
                    stmt: k,
                    array: a.array.clone(),
                    write: a.kind == AccessKind::Write,
                    relation: a.relation.clone(),
                    exact: a.exact,
                });
            }
        }
        st.texts = scop.statements.iter().map(|s| s.text.clone()).collect();
        // Loop depth of each statement is the number of its modelled loops.
        for (k, p) in st.pieces.iter_mut().enumerate() {
            p.depth = scop.statements[k].loops.len();
        }
        st
    }
}

/// The default handle of every statement: its model name (`S0`, `S1`, … in textual
/// order), naming that statement alone, tagged or not. A tag of the same name takes
/// precedence (the statement is then reachable through the tag only).
fn statement_handles(scop: &Scop) -> Vec<(String, BTreeSet<Pos>, Origin)> {
    scop.statements
        .iter()
        .filter(|s| !scop.tags.iter().any(|t| t.name == s.name))
        .map(|s| {
            let origin = Origin {
                source: s.span.file.clone(),
                span: s.span.range.clone(),
                what: format!("statement `{}`", s.name),
            };
            (
                s.name.clone(),
                BTreeSet::from([s.schedule.positions.clone()]),
                origin,
            )
        })
        .collect()
}

/// `[j0 .. j(m-1)] -> [j0 .. j(k-1)]`: the first `k` of `m` iteration dims.
pub(crate) fn prefix_map(m: usize, k: usize) -> Map {
    let js: Vec<String> = (0..m).map(|i| format!("j{i}")).collect();
    let outs: Vec<_> = (0..k).map(|i| build::input(m, i)).collect();
    Map::from_affine(js, &outs)
}

/// `S[x] -> [t]`: the outer `k` iteration values of each instance of a piece.
pub fn outer_of(p: &Piece, k: usize) -> Map {
    let m = p.it.n_out();
    p.it.intersect_domain(&p.domain)
        .apply_range(&prefix_map(m, k))
}

/// One step of a run: which operation ran, for `--trace` and for reports.
#[derive(Clone, Debug)]
pub struct Step {
    pub number: usize,
    pub source: String,
    pub span: Span,
    pub text: String,
}
