//! Legality of a transformed schedule: every dependence keeps its direction, and the
//! schedule is one-to-one. Violations come with the smallest witness and the script steps
//! that moved the instances involved (`violation.rs`).

use super::deps::{at_level, equal_row, joint_raw, level_rows, Dependence, Order, Program};
use super::violation::{violation, Violation, ViolationKind};
use super::witness::{joint_params, named_params};
use crate::model::state::Piece;
use crate::presburger::row::Row;
use crate::presburger::{Int, Map};

/// Checks the final schedule (`pieces`) against the program's dependences. `history` holds
/// the pieces before the first step and after every step, to say which steps moved the
/// instances of a violation.
pub fn check(
    program: &Program,
    deps: &[Dependence],
    pieces: &[Piece],
    history: &[Vec<Piece>],
) -> Vec<Violation> {
    let scheds: Vec<Map> = pieces.iter().map(Piece::schedule).collect();
    let mut out = vec![];
    // Dependences: for source piece P and sink piece Q, no (i, j) with θ'P(i) ⪰ θ'Q(j).
    // Each test adds the comparison to the joint (i, j, θ'P(i), θ'Q(j)) space and asks for
    // emptiness; the witness is the smallest (parameters, i, j).
    for (di, d) in deps.iter().enumerate() {
        let rel = d.relation().with_space_names(
            program.stmts[d.source].domain.tuple().clone(),
            program.stmts[d.sink].domain.tuple().clone(),
        );
        let (ni, nj) = (rel.n_in(), rel.n_out());
        let np = rel.space().n_param();
        let mut worst: Option<Vec<Int>> = None;
        let mut worst_params: Vec<String> = vec![];
        for (pi, _) in pieces
            .iter()
            .enumerate()
            .filter(|(_, p)| p.stmt == d.source)
        {
            for (qi, _) in pieces.iter().enumerate().filter(|(_, q)| q.stmt == d.sink) {
                let n = scheds[pi].n_out();
                let joint = joint_raw(&rel, &scheds[pi], &scheds[qi]);
                let (pp, pq) = (&pieces[pi].pos, &pieces[qi].pos);
                for mut b in joint {
                    let jp = b.n_param();
                    // Emptiness is decided on the reduced conjunction; only a non-empty
                    // candidate pays for its smallest witness, on the conjunction itself
                    // (normalised as `joint` would).
                    let red = b.reduced();
                    let mut normalized = false;
                    // Equal prefix so far; once it is empty, no deeper level can be
                    // reached. Position levels compare constants and need no test.
                    let mut equal: Vec<Row> = vec![];
                    for l in 0..=n {
                        // `Some(false)`: the equal prefix itself; `Some(true)`: the prefix
                        // with the source after the sink at level l.
                        let candidate = if l == n {
                            Some(false)
                        } else if l % 2 == 0 {
                            (pp[l / 2] > pq[l / 2]).then_some(false)
                        } else {
                            let (_, after) = level_rows(&b, ni + nj, n, l, Order::After);
                            let after = after.expect("strict");
                            let empty = red.is_empty_with(&equal, std::slice::from_ref(&after));
                            (!empty).then_some(true)
                        };
                        if let Some(after) = candidate {
                            if !normalized {
                                // As `joint` does; only a conjunction found empty fails.
                                if !b.normalize() {
                                    break;
                                }
                                normalized = true;
                            }
                            let mut t = b.clone();
                            for r in &equal {
                                t.add_eq(r.clone());
                            }
                            if after {
                                t = at_level(&t, ni + nj, n, l, Order::After);
                            }
                            if let Some(w) = t.lexmin_prefix(jp + ni + nj) {
                                if worst.as_ref().is_none_or(|x| w < *x) {
                                    worst = Some(w);
                                    worst_params = joint_params(&rel, &scheds[pi], &scheds[qi]);
                                }
                            }
                        }
                        if l == n {
                            break;
                        }
                        if l % 2 == 0 {
                            if pp[l / 2] != pq[l / 2] {
                                break;
                            }
                            continue;
                        }
                        // Extend the equal prefix by level l.
                        equal.push(equal_row(&b, ni + nj, n, l));
                        if red.is_empty_with(&equal, &[]) {
                            break;
                        }
                    }
                }
            }
        }
        if let Some(w) = worst {
            let jp = worst_params.len();
            let params = named_params(&worst_params, &w[..jp]);
            let (i, j) = (w[jp..jp + ni].to_vec(), w[jp + ni..].to_vec());
            let _ = np;
            out.push(violation(
                program,
                (pieces, history),
                ViolationKind::Dependence(di),
                params,
                (d.source, i),
                (d.sink, j),
            ));
        }
    }
    // One-to-one: only pieces with the same positions can collide.
    for a in 0..pieces.len() {
        for b in a..pieces.len() {
            if pieces[a].pos != pieces[b].pos {
                continue;
            }
            let (s, t) = (pieces[a].stmt, pieces[b].stmt);
            let mut m = scheds[a].apply_range(&scheds[b].inverse());
            m = m.with_space_names(
                program.stmts[s].domain.tuple().clone(),
                program.stmts[t].domain.tuple().clone(),
            );
            if a == b {
                let tuple = program.stmts[s].domain.tuple().clone();
                let ne =
                    Map::lex_lt(vec![], tuple.clone()).union(&Map::lex_gt(vec![], tuple.clone()));
                let ne = ne.with_space_names(tuple.clone(), tuple);
                m = m.intersect(&ne);
            }
            if let Some(w) = m.lexmin_with_params() {
                let params = named_params(&m.space().params, &w.params);
                let ns = program.stmts[s].domain.n_dim();
                let (i, j) = (w.coords[..ns].to_vec(), w.coords[ns..].to_vec());
                out.push(violation(
                    program,
                    (pieces, history),
                    ViolationKind::NotOneToOne,
                    params,
                    (s, i),
                    (t, j),
                ));
            }
        }
    }
    out
}
