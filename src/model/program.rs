//! The program every stage after the script reads: each statement's domain, original
//! schedule and accesses, with the script's expansions applied once ([`Program::expanded`],
//! through [`expand::apply`]). The verifier computes dependences on it; the code generator
//! writes the expanded statements' accesses from it.

use super::expand::{self, ExpandPlan};
use super::marks::Origin;
use super::state::State;
use super::{AccessKind, Scop, Update};
use crate::presburger::{Map, Set};

/// A statement of the program: what the verifier needs to know about it.
#[derive(Clone, Debug)]
pub struct StmtInfo {
    pub name: String,
    /// The tag on the statement, if any (for messages).
    pub label: Option<String>,
    /// `S[iterators]`.
    pub domain: Set,
    /// The original schedule θ: `S[iterators] -> [p0, j1, ..., pM]`.
    pub schedule: Map,
    /// Where the statement is in the C file.
    pub origin: Option<Origin>,
    /// 1-based line in the C file (0 if unknown).
    pub line: usize,
    /// The associative update the statement performs, if any (`s += e`): a `parallel`
    /// mark with that reduction operator may reorder such updates.
    pub update: Option<Update>,
}

/// One array (or scalar: a 0-d array) access of a statement.
#[derive(Clone, Debug)]
pub struct ProgramAccess {
    pub stmt: usize,
    pub array: String,
    pub kind: AccessKind,
    /// `S[iterators] -> A[subscripts]`; `None` when the access may touch any element
    /// (a subscript that is not affine).
    pub relation: Option<Map>,
    /// `Some(d)` for a variable declared inside `d` loops: a fresh one each iteration of
    /// those loops, so instances that differ in their first `d` iterators do not share it.
    pub private_depth: Option<usize>,
    /// For an access an expansion moved to its storage, the access to the storage as
    /// declared (the loops a `contract` gave back left out; `relation` keeps one dimension
    /// per loop expanded along): what the code generator writes. `None` for the others.
    pub storage: Option<Map>,
}

/// The program as the verifier and the code generator see it: the scop with the script's
/// expansions applied.
#[derive(Clone, Debug)]
pub struct Program {
    pub params: Vec<String>,
    pub stmts: Vec<StmtInfo>,
    pub accesses: Vec<ProgramAccess>,
}

impl Program {
    /// The program of `scop` as the verifier sees it.
    pub fn from_scop(scop: &Scop) -> Program {
        let stmts = scop
            .statements
            .iter()
            .enumerate()
            .map(|(k, s)| StmtInfo {
                name: s.name.clone(),
                label: Some(scop.stmt_name(k)),
                domain: s.domain.clone(),
                schedule: s.schedule.to_map(),
                origin: Some(Origin {
                    source: s.span.file.clone(),
                    span: s.span.range.clone(),
                    what: s.name.clone(),
                }),
                line: s.span.line,
                update: s.update.clone(),
            })
            .collect();
        let mut accesses = vec![];
        for (k, s) in scop.statements.iter().enumerate() {
            for a in &s.accesses {
                let private_depth = scop.array(&a.array).and_then(|x| x.private_depth);
                accesses.push(ProgramAccess {
                    stmt: k,
                    array: a.array.clone(),
                    kind: a.kind,
                    relation: Some(a.relation.clone()),
                    private_depth,
                    storage: None,
                });
            }
        }
        Program {
            params: scop.params.clone(),
            stmts,
            accesses,
        }
    }

    /// The program of `scop` after the expansions of `st` (`expand`): the expanded
    /// statements' accesses go to the storage, so dependences are computed on them.
    pub fn for_state(scop: &Scop, st: &State) -> Program {
        Program::expanded(scop, &st.expansions)
    }

    /// The program of `scop` after the expansions `plans`, in the order the script applied
    /// them ([`expand::apply`]).
    pub fn expanded(scop: &Scop, plans: &[ExpandPlan]) -> Program {
        let mut p = Program::from_scop(scop);
        if plans.is_empty() {
            return p;
        }
        for a in p.accesses.iter_mut() {
            let Some(rel) = &a.relation else { continue };
            if let Some(e) = expand::apply(plans, a.stmt, &a.array, rel) {
                a.array = e.array;
                a.relation = Some(e.relation);
                a.storage = Some(e.storage);
                a.private_depth = None;
            }
        }
        p
    }

    /// The accesses of statement `stmt`, in the order its [`Statement::accesses`] lists them.
    ///
    /// [`Statement::accesses`]: super::Statement::accesses
    pub fn accesses_of(&self, stmt: usize) -> impl Iterator<Item = &ProgramAccess> {
        self.accesses.iter().filter(move |a| a.stmt == stmt)
    }
}
