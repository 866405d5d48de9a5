//! Equality of the two dataflow graphs (Verdoolaege, Janssens and Bruynooghe): a set of
//! obligations, each a relation between instances of a statement of the first program
//! and of one of the second (and a node of each one's value) whose values must be equal,
//! starting from the last writers of every output element. An obligation is discharged by
//! comparing the two nodes: the same operation (then their operands), the same literal,
//! the same integer value, or two reads whose sources are the same input element or two
//! computed values — a new obligation on the writers' instances. Obligations accumulate
//! per pair of nodes; a pair that keeps receiving new instances (a recurrence: the chain
//! of updates of a reduction) is widened to the constraints of its first relation that
//! all of them satisfy, within the two domains, and the check goes on over that larger
//! relation. Every pair in the final relations is checked, so finding nothing wrong
//! proves equality of every output for every parameter value; a difference found before
//! any widening is a real one, and is traced back to the output element it reaches.

use super::dataflow::{Flow, Source};
use super::program::{Node, Program, Refusal};
use crate::presburger::basic::Basic;
use crate::presburger::row::Row;
use crate::presburger::{Int, Map, Set, Space};
use std::collections::{HashMap, VecDeque};

/// Widen a pair of nodes on the third time it receives new instances.
const WIDEN_AFTER: usize = 2;

/// How many obligations between two progress reports.
const PROGRESS_EVERY: usize = 64;
/// A pair still growing after this many widenings is not decided.
const MAX_WIDENINGS: usize = 4;
/// Most obligations processed before giving up.
const MAX_OBLIGATIONS: usize = 20_000;

/// One side's instance in a witness.
#[derive(Clone, Debug)]
pub struct Instance {
    pub stmt: usize,
    pub coords: Vec<Int>,
}

/// A difference found.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// Found on relations with no widening: a real difference.
    pub exact: bool,
    pub params: Vec<Int>,
    /// The output array (index into the list checked) whose value it reaches.
    pub output: usize,
    /// The element, when traced back.
    pub element: Option<Vec<Int>>,
    pub left: Option<Instance>,
    pub right: Option<Instance>,
    /// What differs, in words.
    pub why: String,
}

/// Where an obligation's instances come from: the parent obligation and the maps that
/// take its two sides to this one's (`None`: the same instance).
struct Record {
    key: Key,
    rel: Map,
    parent: Option<usize>,
    from: (Option<Map>, Option<Map>),
    /// For an obligation made from output elements: those elements.
    elems: Option<Set>,
    output: usize,
    exact: bool,
}

type Key = (usize, usize, usize, usize);

pub struct Checker<'p> {
    pub a: &'p Program<'p>,
    pub b: &'p Program<'p>,
    pub fa: &'p Flow,
    pub fb: &'p Flow,
    acc: HashMap<Key, (Map, usize)>,
    records: Vec<Record>,
    queue: VecDeque<usize>,
}

impl<'p> Checker<'p> {
    pub fn new(a: &'p Program<'p>, b: &'p Program<'p>, fa: &'p Flow, fb: &'p Flow) -> Self {
        Checker {
            a,
            b,
            fa,
            fb,
            acc: HashMap::new(),
            records: vec![],
            queue: Default::default(),
        }
    }

    /// Compares the sources of one output array's elements on both sides.
    pub fn output(
        &mut self,
        output: usize,
        elems: &Set,
        sa: &[Source],
        sb: &[Source],
    ) -> Option<Mismatch> {
        for x in sa {
            for y in sb {
                let e = x.map().domain().intersect(&y.map().domain());
                if e.is_empty() {
                    continue;
                }
                let id = e.identity();
                let rec = Record {
                    key: (0, 0, 0, 0),
                    rel: id,
                    parent: None,
                    from: (None, None),
                    elems: Some(e.clone()),
                    output,
                    exact: true,
                };
                self.records.push(rec);
                let r = self.records.len() - 1;
                if let Some(m) = self.sources(r, x, y, None, None) {
                    return Some(m);
                }
            }
        }
        let _ = elems;
        None
    }

    /// Discharges every obligation; the first difference found, if any. `on` is told how
    /// many are discharged, every [`PROGRESS_EVERY`]. Obligations are taken in the order
    /// they were made (breadth first): a stencil's time steps spread its obligations by a
    /// row and a column a step, and taken depth first, one long chain reached a corner
    /// (`n = 6`, the last step) before the general rows, so that the first relation of a
    /// pair of nodes, which the widening keeps the constraints of, was that corner.
    pub fn run(&mut self, on: &dyn Fn(usize)) -> Result<Option<Mismatch>, Refusal> {
        let mut done = 0;
        while let Some(r) = self.queue.pop_front() {
            done += 1;
            if done % PROGRESS_EVERY == 0 {
                on(done);
            }
            if done > MAX_OBLIGATIONS {
                return Err(Refusal::new(
                    format!("more than {MAX_OBLIGATIONS} obligations between the two programs"),
                    None,
                ));
            }
            if let Some(m) = self.discharge(r)? {
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    /// Adds an obligation (keeping only what its pair of nodes has not had yet).
    fn push(&mut self, key: Key, rel: Map, parent: usize, from: (Option<Map>, Option<Map>)) {
        if rel.is_empty() {
            return;
        }
        let rel = rel.coalesce();
        let exact = self.records[parent].exact;
        let output = self.records[parent].output;
        self.records.push(Record {
            key,
            rel,
            parent: Some(parent),
            from,
            elems: None,
            output,
            exact,
        });
        self.queue.push_back(self.records.len() - 1);
    }

    fn discharge(&mut self, r: usize) -> Result<Option<Mismatch>, Refusal> {
        let key = self.records[r].key;
        let rel = self.records[r].rel.clone();
        let (new, widened) = match self.acc.get(&key).cloned() {
            None => {
                self.acc.insert(key, (rel.clone(), 0));
                (rel, false)
            }
            Some((old, n)) => {
                let fresh = rel.subtract(&old);
                if fresh.is_empty() {
                    return Ok(None);
                }
                if n + 1 > WIDEN_AFTER + MAX_WIDENINGS {
                    return Err(Refusal::new(
                        "a recurrence whose instances the widening did not capture",
                        Some(&self.a.stmts[key.0].span),
                    ));
                }
                if n + 1 >= WIDEN_AFTER {
                    let all = old.union(&fresh);
                    let w = widen(&old, &all, &self.bound(key));
                    let grown = w.subtract(&old);
                    self.acc.insert(key, (w, n + 1));
                    (grown, true)
                } else {
                    self.acc.insert(key, (old.union(&fresh), n + 1));
                    (fresh, false)
                }
            }
        };
        if widened {
            self.records[r].exact = false;
        }
        self.records[r].rel = new.clone();
        Ok(self.compare(r, key, &new))
    }

    fn bound(&self, key: Key) -> Map {
        Map::from_domain_and_range(&self.a.stmts[key.0].domain, &self.b.stmts[key.2].domain)
    }

    /// Compares node `n1` of `s1` with node `n2` of `s2` on the pairs `rel`.
    fn compare(&mut self, r: usize, key: Key, rel: &Map) -> Option<Mismatch> {
        let (s1, n1, s2, n2) = key;
        let x = self.a.stmts[s1].nodes[n1].clone();
        let y = self.b.stmts[s2].nodes[n2].clone();
        match (&x, &y) {
            (Node::Op(o1, k1), Node::Op(o2, k2)) if o1 == o2 && k1.len() == k2.len() => {
                for (c1, c2) in k1.iter().zip(k2) {
                    self.push((s1, *c1, s2, *c2), rel.clone(), r, (None, None));
                }
                None
            }
            (Node::Const(c1), Node::Const(c2)) if c1 == c2 => None,
            (Node::Name(_, v1), Node::Name(_, v2)) => {
                let bad = rel.subtract(&v1.apply_range(&v2.inverse()));
                self.fail(r, &bad, "different integer values".into())
            }
            (Node::Read(j1), Node::Read(j2)) => {
                let sa = self.fa.sources[s1][*j1].clone();
                let sb = self.fb.sources[s2][*j2].clone();
                for p in &sa {
                    for q in &sb {
                        let part = rel
                            .intersect_domain(&p.map().domain())
                            .intersect_range(&q.map().domain());
                        if part.is_empty() {
                            continue;
                        }
                        let rec = self.records.len();
                        self.records.push(Record {
                            key,
                            rel: part,
                            parent: Some(r),
                            from: (None, None),
                            elems: None,
                            output: self.records[r].output,
                            exact: self.records[r].exact,
                        });
                        if let Some(m) = self.sources(rec, p, q, None, None) {
                            return Some(m);
                        }
                    }
                }
                None
            }
            (Node::Read(j1), _) => {
                for p in self.fa.sources[s1][*j1].clone() {
                    let part = rel.intersect_domain(&p.map().domain());
                    match &p {
                        Source::Computed { stmt, map } => {
                            let next = map.inverse().apply_range(&part);
                            let root = self.a.stmts[*stmt].root;
                            self.push((*stmt, root, s2, n2), next, r, (Some(map.clone()), None));
                        }
                        Source::Input { .. } => {
                            let why =
                                format!("an input value against {}", self.describe(false, s2, n2));
                            if let Some(m) = self.fail(r, &part, why) {
                                return Some(m);
                            }
                        }
                    }
                }
                None
            }
            (_, Node::Read(j2)) => {
                for q in self.fb.sources[s2][*j2].clone() {
                    let part = rel.intersect_range(&q.map().domain());
                    match &q {
                        Source::Computed { stmt, map } => {
                            let next = part.apply_range(map);
                            let root = self.b.stmts[*stmt].root;
                            self.push((s1, n1, *stmt, root), next, r, (None, Some(map.clone())));
                        }
                        Source::Input { .. } => {
                            let why =
                                format!("{} against an input value", self.describe(true, s1, n1));
                            if let Some(m) = self.fail(r, &part, why) {
                                return Some(m);
                            }
                        }
                    }
                }
                None
            }
            _ => {
                let why = format!(
                    "{} against {}",
                    self.describe(true, s1, n1),
                    self.describe(false, s2, n2)
                );
                self.fail(r, rel, why)
            }
        }
    }

    /// Compares two sources on the pairs of record `r` (restricted to their domains).
    fn sources(
        &mut self,
        r: usize,
        p: &Source,
        q: &Source,
        _a: Option<()>,
        _b: Option<()>,
    ) -> Option<Mismatch> {
        let rel = self.records[r].rel.clone();
        match (p, q) {
            (Source::Input { array: a1, map: m1 }, Source::Input { array: a2, map: m2 }) => {
                let c1 = self.a.c_name(a1);
                let c2 = self.b.c_name(a2);
                let same = self.a.scop.array(a1).map(|x| x.storage)
                    == self.b.scop.array(a2).map(|x| x.storage);
                // A variable of the region (on the stack, `static`, on the heap) holds
                // nothing known before the region writes it: read first, it is never the
                // other program's value, whatever its name.
                if self.a.is_local(a1) || self.b.is_local(a2) {
                    let name = if self.a.is_local(a1) { &c1 } else { &c2 };
                    return self.fail(
                        r,
                        &rel,
                        format!(
                            "`{name}`, a variable of the region, read before the region writes it"
                        ),
                    );
                }
                let bad = if c1 == c2 && same {
                    rel.subtract(&m1.apply_range(&m2.inverse()))
                } else {
                    rel.clone()
                };
                self.fail(
                    r,
                    &bad,
                    format!(
                        "the input `{c1}` read at different elements, or `{c1}` against `{c2}`"
                    ),
                )
            }
            (Source::Computed { stmt: t1, map: m1 }, Source::Computed { stmt: t2, map: m2 }) => {
                let next = m1.inverse().apply_range(&rel).apply_range(m2);
                let key = (*t1, self.a.stmts[*t1].root, *t2, self.b.stmts[*t2].root);
                self.push(key, next, r, (Some(m1.clone()), Some(m2.clone())));
                None
            }
            (Source::Computed { stmt, .. }, Source::Input { array, .. }) => {
                let why = format!(
                    "a value computed by {} against the value of `{}` before the region",
                    self.a.scop.stmt_name(self.a.stmts[*stmt].index),
                    self.b.c_name(array)
                );
                self.fail(r, &rel, why)
            }
            (Source::Input { array, .. }, Source::Computed { stmt, .. }) => {
                let why = format!(
                    "the value of `{}` before the region against a value computed by {}",
                    self.a.c_name(array),
                    self.b.scop.stmt_name(self.b.stmts[*stmt].index)
                );
                self.fail(r, &rel, why)
            }
        }
    }

    fn describe(&self, first: bool, s: usize, n: usize) -> String {
        let p = if first { self.a } else { self.b };
        let name = p.scop.stmt_name(p.stmts[s].index);
        match &p.stmts[s].nodes[n] {
            Node::Op(o, _) => format!("`{o}` in {name}"),
            Node::Const(c) => format!("the literal {c} in {name}"),
            Node::Name(x, _) => format!("the integer `{x}` in {name}"),
            Node::Read(_) => format!("a read in {name}"),
        }
    }

    /// A difference on the pairs `bad` of record `r`, if there is one.
    fn fail(&self, r: usize, bad: &Map, why: String) -> Option<Mismatch> {
        if bad.is_empty() {
            return None;
        }
        let rec = &self.records[r];
        let pt = bad.wrap().lexmin_with_params()?;
        let n1 = bad.n_in();
        let (x, y) = pt.coords.split_at(n1);
        let mut m = Mismatch {
            exact: rec.exact,
            params: pt.params.clone(),
            output: rec.output,
            element: None,
            left: None,
            right: None,
            why,
        };
        if rec.elems.is_some() {
            m.element = Some(x.to_vec());
        } else {
            m.left = Some(Instance {
                stmt: self.a.stmts[rec.key.0].index,
                coords: x.to_vec(),
            });
            m.right = Some(Instance {
                stmt: self.b.stmts[rec.key.2].index,
                coords: y.to_vec(),
            });
            if rec.exact {
                m.element = self.trace(r, &pt.params, x, y);
            }
        }
        Some(m)
    }

    /// The output element whose value needs the pair `(x, y)` of record `r`.
    fn trace(&self, r: usize, params: &[Int], x: &[Int], y: &[Int]) -> Option<Vec<Int>> {
        let rec = &self.records[r];
        let Some(pid) = rec.parent else {
            return rec.elems.as_ref().map(|_| x.to_vec());
        };
        let parent = &self.records[pid];
        let dom = parent.rel.space().clone();
        let pin = |m: &Option<Map>, pt: &[Int], domain: bool| -> Set {
            let tuple = if domain {
                dom.domain.clone().unwrap_or_default()
            } else {
                dom.range.clone()
            };
            match m {
                Some(m) => m.intersect_range(&point(m.space(), params, pt)).domain(),
                None => point(
                    &Space {
                        params: dom.params.clone(),
                        domain: None,
                        range: tuple,
                    },
                    params,
                    pt,
                ),
            }
        };
        let ci = pin(&rec.from.0, x, true);
        let cj = pin(&rec.from.1, y, false);
        let cands = parent.rel.intersect_domain(&ci).intersect_range(&cj);
        let pt = cands.wrap().lexmin_with_params()?;
        let n = parent.rel.n_in();
        let (px, py) = pt.coords.split_at(n);
        self.trace(pid, params, px, py)
    }
}

/// The one point `coords` of a set space (or of a map's range) for the parameters.
pub(super) fn point(space: &Space, params: &[Int], coords: &[Int]) -> Set {
    let s = Space {
        params: space.params.clone(),
        domain: None,
        range: space.range.clone(),
    };
    let np = s.n_param();
    let nd = s.n_dim();
    let mut eqs = vec![];
    for (k, v) in params.iter().enumerate().take(np) {
        let mut r = vec![Int::ZERO; 1 + np + nd];
        r[1 + k] = Int::ONE;
        r[0] = -v;
        eqs.push(r);
    }
    for (k, v) in coords.iter().enumerate().take(nd) {
        let mut r = vec![Int::ZERO; 1 + np + nd];
        r[1 + np + k] = Int::ONE;
        r[0] = -v;
        eqs.push(r);
    }
    Set::universe(s).add_constraints(&eqs, &[])
}

/// Adds `r = v` where an inequality `r >= 0` whose opposite `c - r >= 0` bounds it to a few
/// values (`c` at most 15: a local's definition, `m - 3 - 3⌊(m - 3)/3⌋` in `0..=2`) can
/// take one value only (`1`, where the other rows fix `m`'s residue). A row whose test
/// runs out of the work budget is left as it is.
fn pin_residues(b: &mut crate::presburger::basic::Basic) {
    let ineqs = b.ineqs().to_vec();
    let mut seen: Vec<&Row> = vec![];
    for r in &ineqs {
        if seen.contains(&r) {
            continue;
        }
        seen.push(r);
        let opposite = ineqs.iter().find_map(|o| {
            let sum: Vec<Int> = r.iter().zip(o).map(|(a, b)| a + b).collect();
            sum[1..].iter().all(|v| v.is_zero()).then(|| sum[0].clone())
        });
        let Some(c) = opposite
            .and_then(|c| c.to_i64())
            .filter(|c| (1..=15).contains(c))
        else {
            continue;
        };
        let mut feasible = vec![];
        for v in 0..=c {
            let mut t = b.clone();
            let mut eq = r.clone();
            eq[0] -= &Int::from(v);
            t.add_eq(eq);
            match t.try_is_empty() {
                Ok(false) => feasible.push(v),
                Ok(true) => {}
                Err(_) => return,
            }
        }
        if let [v] = feasible[..] {
            let mut eq = r.clone();
            eq[0] -= &Int::from(v);
            b.add_eq(eq);
        }
    }
}

/// The equalities over the first `w` columns (constant, parameters, dimensions) that the
/// equalities `eqs` imply by rational combination: each local column is eliminated with
/// the first row that has it.
fn without_locals(eqs: &[Row], w: usize) -> Vec<Vec<Int>> {
    let mut rows: Vec<Row> = eqs.to_vec();
    let width = rows.first().map_or(w, |r| r.len());
    for col in w..width {
        let Some(p) = rows.iter().position(|r| !r[col].is_zero()) else {
            continue;
        };
        let pivot = rows.swap_remove(p);
        for r in &mut rows {
            crate::presburger::row::cancel(r, &pivot, col);
        }
    }
    rows.into_iter()
        .filter(|r| r[w..].iter().all(|v| v.is_zero()) && r[..w].iter().any(|v| !v.is_zero()))
        .map(|mut r| {
            let g = r[..w].iter().fold(Int::ZERO, |g, v| g.gcd(v));
            if !g.is_zero() && !g.is_one() {
                crate::presburger::row::divide_exact(&mut r[..w], &g);
            }
            r[..w].to_vec()
        })
        .collect()
}

/// The constraints of `old`'s first conjunction (over parameters and dimensions) that
/// every pair of `all` satisfies, within `bound`: a relation that contains `all`.
fn widen(old: &Map, all: &Map, bound: &Map) -> Map {
    let old = old.coalesce();
    let Some(first) = old.parts().first() else {
        return bound.clone();
    };
    let w = 1 + first.n_param() + first.n_dim();
    let holds = |r: &[Int]| all.satisfies(r);
    let mut eqs = vec![];
    let mut ineqs = vec![];
    // Inequalities that hold with equality (a local's definition at a known parity:
    // `m - 2 - 2⌊(m - 2)/2⌋ = 1` where `m` is odd) become equalities; the locals are
    // eliminated (`2e = i` and `2e = i'` give `i = i'`); then the rows, their pairwise
    // differences and sums (`i = n - 1` and `i' = n - 1` give `i = i'`).
    let mut b = first.clone();
    b.detect_equalities();
    pin_residues(&mut b);
    // Locals held between narrow bounds are quotients, and two quotients of one expression
    // are one: `n - 3 <= 4e0 < n - 1` and the same of `e1` make `i = 4e0` and `i' = 4e1`
    // give `i = i'` (the last strip's row on both sides).
    if let [known] = &b.make_divs_known()[..] {
        b = known.clone();
        b.eliminate_locals();
        b.normalize();
    }
    let rows = without_locals(b.eqs(), w);
    let mut cands = rows.clone();
    cands.extend(shifts(all, w));
    for (x, r1) in rows.iter().enumerate() {
        for r2 in &rows[x + 1..] {
            cands.push(r1.iter().zip(r2).map(|(a, b)| a - b).collect());
            cands.push(r1.iter().zip(r2).map(|(a, b)| a + b).collect());
        }
    }
    for r in cands {
        if r.iter().all(|v| v.is_zero()) {
            continue;
        }
        let minus: Vec<Int> = r.iter().map(|v| -v).collect();
        match (holds(&r), holds(&minus)) {
            (true, true) => eqs.push(r),
            (true, false) => ineqs.push(r),
            (false, true) => ineqs.push(minus),
            _ => {}
        }
    }
    for r in first.ineqs() {
        if r[w..].iter().all(|v| v.is_zero()) && holds(&r[..w]) {
            ineqs.push(r[..w].to_vec());
        }
    }
    let widened = bound.add_constraints(&eqs, &ineqs);
    match quotient_rows(&b, w, all, widened.space()) {
        Some(q) => widened.intersect(&q),
        None => widened,
    }
}

/// The rows `y - x - c` for each dimension `x` of the domain and `y` of the range, with
/// `c` the difference of one pair of `all`: the candidates for a correspondence that is a
/// shift (`S0[t, i, j] -> S1[t, i + 1, j]`), where the first conjunction says it only
/// through its quotients (`k = n - 2` and `k' = 128⌊(n - 3)/128⌋ + 127` where `n - 1 =
/// 128e`).
fn shifts(all: &Map, w: usize) -> Vec<Row> {
    let Some(p) = all.sample() else {
        return vec![];
    };
    let (n_in, n_out) = (all.n_in(), all.n_out());
    let first = w - n_in - n_out;
    let mut rows = vec![];
    for x in 0..n_in {
        for y in 0..n_out {
            let mut r = vec![Int::ZERO; w];
            r[first + n_in + y] = Int::ONE;
            r[first + x] = -Int::ONE;
            r[0] = &p.coords[x] - &p.coords[n_in + y];
            rows.push(r);
        }
    }
    rows
}

/// Most rows over quotients tried by one widening.
const MAX_QUOTIENT_ROWS: usize = 16;

/// The equalities of `b` over its quotients (`i = 128⌊j/128⌋`: the first row of the tile
/// that holds column `j`) that every pair of `all` satisfies, as a relation in `space` with
/// those quotients defined; `None` when there is none or a quotient is not known. Without
/// them, a pair of statements whose instances meet only on a tile's first row is widened
/// to every row.
fn quotient_rows(b: &Basic, w: usize, all: &Map, space: &Space) -> Option<Map> {
    if (0..b.n_div()).any(|i| b.div(i).is_none()) {
        return None;
    }
    let mut base = b.clone();
    base.retain_eqs(|_| false);
    base.retain_ineqs(|r| b.is_div_constraint(r));
    let over_quotients = |r: &Row| r[w..].iter().any(|v| !v.is_zero()) && !b.is_div_constraint(r);
    let holds = |eq: &Row| {
        let mut t = base.clone();
        t.add_eq(eq.clone());
        all.is_subset(&Map::from_basic(space.clone(), t))
    };
    let eqs: Vec<Row> = (b.eqs().iter())
        .filter(|r| over_quotients(r))
        .take(MAX_QUOTIENT_ROWS)
        .filter(|r| holds(r))
        .cloned()
        .collect();
    if eqs.is_empty() {
        return None;
    }
    base.extend_eqs(eqs);
    Some(Map::from_basic(space.clone(), base))
}
