//! Unrolled copies folded back into one statement with a row dimension.
//!
//! A register block unrolls its rows: the statement of each row of the block is written
//! out once per row (`r0 += a[0] * b; r1 += a[1] * b; …`), each with its own variables
//! and constants. The comparison then has one statement, one dataflow problem and one
//! set of obligations per row. Folded, the copies `S_0, …, S_{K-1}` of one statement are
//! one statement over `[x, ρ]`, `0 ≤ ρ < K`, whose instance `[x, ρ]` is the instance `x` of
//! `S_ρ`: its accesses, its value and its time are `S_ρ`'s, each taken as it is and
//! united over `ρ` (then merged where the copies' constants step with `ρ`,
//! `Set::merge_shifted`). Nothing is assumed about the copies beyond what is checked:
//! - their values are the same tree over their reads (the same operations, literals,
//!   integers and read slots), and their domains are equal;
//! - each read slot and the write read one array in every copy, or a **family** of
//!   variables of the region, one per copy (`r0`, `r1`, …: scalars or vectors), which
//!   becomes one array with `ρ` as its last index — only where no other statement
//!   touches those variables and
//!   every folded statement that does names them in the same order;
//! - the copies are the consecutive statements of one loop body, `G` statements repeated
//!   `K` times (a row's two vector halves, then the next row's), at consecutive positions
//!   `p, …, p + GK − 1`. Their times become `[…, p, ρ, g, …]` in place of `[…, p + Gρ + g,
//!   …]`, and every other statement's `[…, q, 0, 0, …]`: the same order of instances, as
//!   `q` is outside the copies' positions (the program as if the rows were a loop, which
//!   is how the unrolled code runs).

use super::compare::Instance;
use super::dataflow::Positions;
use super::plain::Points;
use super::program::{Node, Program, Stmt};
use crate::presburger::{Int, Map, Set, Space, Tuple};
use std::collections::HashMap;

/// The most statements one copy of a folded group can hold (a row's vector parts).
const MAX_GROUP: usize = 8;

/// The name of the row dimension of a folded statement.
const ROW: &str = "unrolled_row";

/// A group of copies: statements `first .. first + g·k` of the program, `g` statements
/// repeated `k` times, at level `level` of their times, from position `at`.
#[derive(Clone, Debug)]
struct Copies {
    first: usize,
    g: usize,
    k: usize,
    level: usize,
    at: Int,
}

impl Copies {
    fn member(&self, r: usize, g: usize) -> usize {
        self.first + r * self.g + g
    }
}

/// The program with its unrolled copies folded (the program as it is where there are
/// none).
pub fn fold(mut p: Program) -> Program {
    let pos = Positions::new(&p).0;
    let mut found = candidates(&p, &pos);
    // Families of variables consistent across the program, else the group is dropped.
    let renamed = loop {
        match families(&p, &found) {
            Ok(r) => break r,
            Err(bad) => {
                found.remove(bad);
            }
        }
    };
    if found.is_empty() {
        return p;
    }
    let mut levels: Vec<usize> = found.iter().map(|c| c.level).collect();
    levels.sort_unstable();
    levels.dedup();
    // Each statement's place in a group: (group, row, part).
    let mut place: HashMap<usize, (usize, usize, usize)> = HashMap::new();
    for (n, c) in found.iter().enumerate() {
        for r in 0..c.k {
            for g in 0..c.g {
                place.insert(c.member(r, g), (n, r, g));
            }
        }
    }
    for (s, st) in p.stmts.iter_mut().enumerate() {
        for &l in levels.iter().rev() {
            let own = place
                .get(&s)
                .filter(|(n, _, _)| found[*n].level == l)
                .map(|&(n, r, g)| (found[n].at.clone(), r, g));
            st.time = insert_after(&st.time, l, own);
        }
    }
    let old = std::mem::take(&mut p.stmts);
    let mut stmts = vec![];
    let mut s = 0;
    while s < old.len() {
        match found.iter().find(|c| c.first == s) {
            Some(c) => {
                for g in 0..c.g {
                    let members: Vec<&Stmt> = (0..c.k).map(|r| &old[c.member(r, g)]).collect();
                    stmts.push(folded(&members, &renamed));
                }
                s += c.g * c.k;
            }
            None => {
                stmts.push(old[s].clone());
                s += 1;
            }
        }
    }
    p.stmts = stmts;
    p
}

/// A witness's instance of a folded statement as the instance of the copy it is.
pub fn unfold(p: &Program, i: &mut Instance) {
    let Some(s) = p.stmts.iter().find(|s| s.index == i.stmt) else {
        return;
    };
    if s.rows.is_empty() || i.coords.len() != s.domain.n_dim() {
        return;
    }
    let r = i
        .coords
        .pop()
        .and_then(|r| usize::try_from(r.to_i64()?).ok());
    if let Some(&index) = r.and_then(|r| s.rows.get(r)) {
        i.stmt = index;
    }
}

/// The groups of copies, program order, none overlapping.
fn candidates(p: &Program, pos: &[Vec<Option<Int>>]) -> Vec<Copies> {
    let n = p.stmts.len();
    // A statement's own position: after its loops (a vector statement's lanes, a loop of
    // the model inside it, come after).
    let level = |s: usize| {
        let loops = &p.scop.statements[p.stmts[s].index].loops;
        2 * loops.iter().take_while(|l| !l.lanes).count()
    };
    let at = |s: usize| pos[s].get(level(s)).cloned().flatten();
    // The statements of a chain of stores (`a = b = x`) share their time: none is a copy
    // (a copy's time becomes its row's, and would come before the others').
    let mut stores: HashMap<usize, usize> = HashMap::new();
    for st in &p.stmts {
        *stores.entry(st.index).or_default() += 1;
    }
    let single = |s: usize| stores[&p.stmts[s].index] == 1;
    // Whether `t` follows `s` in one loop body.
    let next = |s: usize, t: usize| {
        let l = level(s);
        single(s)
            && single(t)
            && level(t) == l
            && pos[s][..l] == pos[t][..l]
            && matches!((at(s), at(t)), (Some(a), Some(b)) if b == &a + &Int::ONE)
    };
    let mut out = vec![];
    let mut s = 0;
    while s < n {
        let mut end = s + 1;
        while end < n && next(end - 1, end) {
            end += 1;
        }
        let mut a = s;
        while a + 1 < end {
            match best_group(p, a, end) {
                Some(options) => {
                    let (g, k) = options[0];
                    out.push((
                        Copies {
                            first: a,
                            g,
                            k,
                            level: level(a),
                            at: at(a).expect("a position"),
                        },
                        options,
                    ));
                    a += g * k;
                }
                None => a += 1,
            }
        }
        s = end;
    }
    // One grouping for all: the loads, updates and stores of a block's variables must
    // count its rows alike (`families`). The smallest `g` that most of the groups with
    // a family of variables can take (the others need none).
    let family = |c: &Copies| {
        (0..c.g).any(|g| (slots(p, c, g).iter()).any(|v| v.iter().any(|x| *x != v[0])))
    };
    let count = |g: usize| {
        (out.iter())
            .filter(|(c, o)| family(c) && o.iter().any(|x| x.0 == g))
            .count()
    };
    let most = (1..=MAX_GROUP).map(count).max().unwrap_or(0);
    let pick = (1..=MAX_GROUP).find(|&g| count(g) == most);
    out.into_iter()
        .map(|(mut c, options)| {
            if let Some(&(g, k)) = options.iter().find(|x| Some(x.0) == pick) {
                (c.g, c.k) = (g, k);
            }
            c
        })
        .collect()
}

/// The groupings at `a` within the run ending before `end` that cover the most statements,
/// `(g, k)` with `k ≥ 2` copies of `g` statements, and of those the ones whose accesses
/// fold into the fewest parts beyond one each (a block's rows, two vector halves each,
/// rather than rows and halves counted as one sequence), `g` increasing.
fn best_group(p: &Program, a: usize, end: usize) -> Option<Vec<(usize, usize)>> {
    let mut found: Vec<(usize, usize)> = vec![];
    for g in 1..=MAX_GROUP {
        let mut k = 1;
        while a + (k + 1) * g <= end && (0..g).all(|h| alike(p, a + h, a + k * g + h)) {
            k += 1;
        }
        if k >= 2 {
            found.push((g, k));
        }
    }
    let most = found.iter().map(|(g, k)| g * k).max()?;
    found.retain(|(g, k)| g * k == most);
    let parts = |&(g, k): &(usize, usize)| -> usize {
        (0..g)
            .map(|h| {
                let members: Vec<&Stmt> = (0..k).map(|r| &p.stmts[a + r * g + h]).collect();
                let slots = std::iter::once(unite_rows(&members, &|s| s.write.clone(), false));
                let reads = (0..members[0].reads.len())
                    .filter(|&j| members[0].reads[j].is_some())
                    .map(|j| {
                        unite_rows(
                            &members,
                            &|s| s.reads[j].as_ref().expect("alike").1.clone(),
                            false,
                        )
                    });
                slots.chain(reads).map(|m| m.n_basic() - 1).sum::<usize>()
            })
            .sum()
    };
    let costs: Vec<usize> = found.iter().map(parts).collect();
    let least = *costs.iter().min()?;
    let options: Vec<(usize, usize)> = (found.into_iter().zip(costs))
        .filter(|(_, c)| *c == least)
        .map(|(f, _)| f)
        .collect();
    Some(options)
}

/// The union over the rows of each copy's map with its row appended (and, `indexed`, the
/// row as the last index of its range: a family of variables), merged where the copies'
/// constants step with the row.
fn unite_rows(members: &[&Stmt], f: &dyn Fn(&Stmt) -> Map, indexed: bool) -> Map {
    let mut u: Option<Map> = None;
    for (r, m) in members.iter().enumerate() {
        let params = m.domain.space().params.clone();
        let x = f(m).product(&row_map(&params, r, indexed));
        u = Some(match u {
            None => x,
            Some(v) => v.union(&x),
        });
    }
    u.expect("copies").merge_shifted()
}

/// `[ρ] -> []` at row `r`; with `indexed`, `[ρ] -> [ρ']` with `ρ' = ρ` (a family's index).
fn row_map(params: &[String], r: usize, indexed: bool) -> Map {
    let out = if indexed { vec![ROW] } else { vec![] };
    let space = Space {
        params: params.to_vec(),
        domain: Some(Tuple::new(None, &[ROW])),
        range: Tuple::new(None, &out),
    };
    let np = params.len();
    let width = 1 + np + 1 + out.len();
    let fix = |col: usize| {
        let mut e = vec![Int::ZERO; width];
        e[0] = -Int::from(r as i64);
        e[col] = Int::ONE;
        e
    };
    let mut eqs = vec![fix(1 + np)];
    if indexed {
        eqs.push(fix(2 + np));
    }
    Map::universe(space).add_constraints(&eqs, &[])
}

/// Whether statement `t` is a copy of `s`: the same value tree, equal domains, and each
/// access of one array in both or of two scalar variables of the region.
fn alike(p: &Program, s: usize, t: usize) -> bool {
    let (x, y) = (&p.stmts[s], &p.stmts[t]);
    let same_nodes = x.nodes.len() == y.nodes.len()
        && x.nodes.iter().zip(&y.nodes).all(|pair| match pair {
            (Node::Read(a), Node::Read(b)) => a == b,
            (Node::Const(a), Node::Const(b)) => a == b,
            (Node::Name(a, _), Node::Name(b, _)) => a == b,
            (Node::Op(a, u), Node::Op(b, v)) => a == b && u == v,
            _ => false,
        });
    let reads = x.reads.len() == y.reads.len()
        && x.reads.iter().zip(&y.reads).all(|pair| match pair {
            (None, None) => true,
            (Some((a, _)), Some((b, _))) => compatible(p, a, b),
            _ => false,
        });
    same_nodes
        && reads
        && x.root == y.root
        && x.copy_of == y.copy_of
        && compatible(p, &x.write_array, &y.write_array)
        && x.domain.n_dim() == y.domain.n_dim()
        && x.time.n_out() == y.time.n_out()
        && (y.domain.clone())
            .with_tuple(x.domain.tuple().clone())
            .is_equal(&x.domain)
}

/// One array, or two variables of the region of one type, shape and scope (scalars, or
/// a vector's lanes).
fn compatible(p: &Program, a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (Some(x), Some(y)) = (p.scop.array(a), p.scop.array(b)) else {
        return false;
    };
    p.is_local(a)
        && p.is_local(b)
        && x.rank == y.rank
        && x.elem_type == y.elem_type
        && x.storage == y.storage
        && x.private_depth == y.private_depth
}

/// The arrays of each slot of a group's copies: the array of every access, or the family
/// of variables, one per copy.
fn slots(p: &Program, c: &Copies, g: usize) -> Vec<Vec<String>> {
    let first = &p.stmts[c.member(0, g)];
    let mut out = vec![];
    let names = |f: &dyn Fn(&Stmt) -> Option<String>| -> Vec<String> {
        (0..c.k)
            .filter_map(|r| f(&p.stmts[c.member(r, g)]))
            .collect()
    };
    out.push(names(&|s: &Stmt| Some(s.write_array.clone())));
    for j in 0..first.reads.len() {
        let v = names(&|s: &Stmt| s.reads[j].as_ref().map(|(a, _)| a.clone()));
        if !v.is_empty() {
            out.push(v);
        }
    }
    out
}

/// The variables renamed: each to the family's first, with its row. `Err(n)`: group `n`
/// uses a family otherwise than another statement does.
fn families(p: &Program, found: &[Copies]) -> Result<HashMap<String, (String, usize)>, usize> {
    let mut renamed: HashMap<String, (String, usize)> = HashMap::new();
    let mut owner: HashMap<String, usize> = HashMap::new();
    for (n, c) in found.iter().enumerate() {
        for g in 0..c.g {
            for names in slots(p, c, g) {
                if names.iter().all(|x| *x == names[0]) {
                    continue;
                }
                let distinct = (1..names.len()).all(|i| !names[..i].contains(&names[i]));
                if !distinct {
                    return Err(n);
                }
                for (r, x) in names.iter().enumerate() {
                    let want = (names[0].clone(), r);
                    match renamed.get(x) {
                        Some(had) if *had != want => return Err(n),
                        _ => {
                            renamed.insert(x.clone(), want);
                            owner.insert(x.clone(), n);
                        }
                    }
                }
            }
        }
    }
    // An array read or written as one array by a group, or by a statement of none, is
    // no family's.
    let mut grouped = vec![None; p.stmts.len()];
    for (n, c) in found.iter().enumerate() {
        for x in &mut grouped[c.first..c.first + c.g * c.k] {
            *x = Some(n);
        }
    }
    for (s, st) in p.stmts.iter().enumerate() {
        let arrays =
            std::iter::once(&st.write_array).chain(st.reads.iter().flatten().map(|(a, _)| a));
        for a in arrays {
            let Some(&n) = owner.get(a) else { continue };
            let kept = grouped[s].is_some_and(|m| {
                let c = &found[m];
                let g = (s - c.first) % c.g;
                (slots(p, c, g).iter()).any(|v| v.contains(a) && v.iter().any(|x| x != a))
            });
            if !kept {
                return Err(grouped[s].unwrap_or(n));
            }
        }
    }
    Ok(renamed)
}

/// One statement for the copies `members` (row `ρ` is `members[ρ]`).
fn folded(members: &[&Stmt], renamed: &HashMap<String, (String, usize)>) -> Stmt {
    let first = members[0];
    let mut tuple = first.domain.tuple().clone();
    tuple.dims.push(ROW.to_string());
    let params = first.domain.space().params.clone();
    let row = |r: usize, indexed: bool| row_map(&params, r, indexed);
    // The union over the rows of each copy's map with its row appended.
    let unite = |f: &dyn Fn(&Stmt) -> Map, array: Option<&str>| -> Map {
        let indexed = array.is_some_and(|a| renamed.contains_key(a));
        let m = unite_rows(members, f, indexed);
        let mut range = m.space().range.clone();
        if let Some(a) = array {
            range.name = Some(renamed.get(a).map_or(a, |x| x.0.as_str()).to_string());
        }
        m.with_space_names(tuple.clone(), range)
    };
    let domain = {
        let mut u: Option<Set> = None;
        for (r, m) in members.iter().enumerate() {
            let x = m.domain.clone().product(&row(r, false).domain());
            u = Some(match u {
                None => x,
                Some(v) => v.union(&x),
            });
        }
        u.expect("copies").with_tuple(tuple.clone()).merge_shifted()
    };
    let write_array = renamed
        .get(&first.write_array)
        .map_or(first.write_array.clone(), |x| x.0.clone());
    let write = unite(&|s: &Stmt| s.write.clone(), Some(&first.write_array));
    let reads: Vec<Option<(String, Map)>> = (0..first.reads.len())
        .map(|j| {
            let (a, _) = first.reads[j].as_ref()?;
            let name = renamed.get(a).map_or(a.clone(), |x| x.0.clone());
            let rel = unite(
                &|s: &Stmt| s.reads[j].as_ref().expect("alike").1.clone(),
                Some(a),
            );
            Some((name, rel))
        })
        .collect();
    let time = unite(&|s: &Stmt| s.time.clone(), None);
    let nodes = (first.nodes.iter().enumerate())
        .map(|(n, node)| match node {
            Node::Name(x, _) => {
                let value = |s: &Stmt| match &s.nodes[n] {
                    Node::Name(_, m) => m.clone(),
                    _ => unreachable!("alike"),
                };
                Node::Name(x.clone(), unite(&value, None))
            }
            other => other.clone(),
        })
        .collect();
    let rels = reads.iter().flatten().map(|(_, r)| r).chain([&write]);
    let points = Points::new(&domain, &super::counting::subscripts(rels));
    Stmt {
        index: first.index,
        domain,
        time,
        write_array,
        write,
        reads,
        nodes,
        root: first.root,
        copy_of: first.copy_of,
        span: first.span.clone(),
        points,
        rows: members.iter().map(|m| m.index).collect(),
    }
}

/// `time` with two dimensions after its dimension `l`: `own` = `(p, r, g)` puts `p` at `l`
/// and `r`, `g` after it (a copy's row and part); otherwise `0, 0`, `l` kept.
fn insert_after(time: &Map, l: usize, own: Option<(Int, usize, usize)>) -> Map {
    let n = time.n_out();
    let params = time.space().params.clone();
    let np = params.len();
    let space = Space {
        params,
        domain: Some(Tuple::anonymous(n, "t")),
        range: Tuple::anonymous(n + 2, "t"),
    };
    let width = 1 + np + n + n + 2;
    let (input, output) = (|d: usize| 1 + np + d, |d: usize| 1 + np + n + d);
    let mut eqs = vec![];
    for d in 0..n {
        let mut e = vec![Int::ZERO; width];
        let to = if d > l { d + 2 } else { d };
        e[output(to)] = Int::ONE;
        match (&own, d == l) {
            (Some((p, _, _)), true) => e[0] = -p.clone(),
            _ => e[input(d)] = -Int::ONE,
        }
        eqs.push(e);
    }
    let (r, g) = own.map_or((0, 0), |(_, r, g)| (r, g));
    for (d, v) in [(l + 1, r), (l + 2, g)] {
        let mut e = vec![Int::ZERO; width];
        e[output(d)] = Int::ONE;
        e[0] = -Int::from(v as i64);
        eqs.push(e);
    }
    let ins = Map::universe(space).add_constraints(&eqs, &[]);
    let range = Tuple {
        name: time.space().range.name.clone(),
        dims: (0..n + 2).map(|d| format!("t{d}")).collect(),
    };
    let domain = time.space().domain.clone().expect("a map");
    time.apply_range(&ins).with_space_names(domain, range)
}
