//! Both programs run at fixed parameter values on symbolic values: each value stored is a
//! term (its operation and its operands' terms, the same term for the same computation),
//! and the outputs' terms are compared element by element. It decides the programs at
//! those values exactly, with the same notion of "the same computation" as the
//! comparison of dataflow graphs ([`super::compare`]: the same typed operation, literal
//! or integer value, on the same inputs). The check uses it in two places, and only to
//! find a real difference, never to say "equivalent": where the comparison found a
//! difference only over a widened recurrence, at that difference's parameter values
//! ([`difference`]); and where a proof ran out of the work budget, at small values
//! ([`search`]). A difference found is given with its element and both last writers.

use super::compare::{Instance, Mismatch};
use super::omp;
use super::program::{Node, Program};
use crate::model::{Scop, Storage};
use crate::presburger::{budget, Int, Map};
use std::collections::HashMap;

/// Most instances the two programs may have together at the values run.
const MAX_INSTANCES: usize = 1_000_000;
/// Most steps of the integer core one run takes (enumerating the instances, their
/// times and their accesses), within what is left of the check's own budget.
const STEPS: u64 = 20_000_000;

/// A value: an element before the region, a variable of the region read before it is
/// written (nothing known: never the other program's), a literal, an integer value, or
/// an operation on terms.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Term {
    Input(String, Option<Storage>, Vec<Int>),
    Unknown(usize, String, Vec<Int>),
    Const(String),
    Int(Int),
    Op(String, Vec<u32>),
}

#[derive(Default)]
struct Terms {
    ids: HashMap<Term, u32>,
    all: Vec<Term>,
}

impl Terms {
    fn id(&mut self, t: Term) -> u32 {
        if let Some(&i) = self.ids.get(&t) {
            return i;
        }
        let i = self.all.len() as u32;
        self.all.push(t.clone());
        self.ids.insert(t, i);
        i
    }

    /// Where two different terms first differ: the same operation is followed into the
    /// first pair of operands that differ.
    fn first_difference(&self, mut x: u32, mut y: u32) -> (u32, u32) {
        while let (Term::Op(o1, k1), Term::Op(o2, k2)) =
            (&self.all[x as usize], &self.all[y as usize])
        {
            let next = (o1 == o2 && k1.len() == k2.len())
                .then(|| k1.iter().zip(k2).find(|(a, b)| a != b))
                .flatten();
            match next {
                Some((a, b)) => (x, y) = (*a, *b),
                None => break,
            }
        }
        (x, y)
    }

    /// What a term is, for a report.
    fn describe(&self, i: u32) -> String {
        match &self.all[i as usize] {
            Term::Input(a, _, e) => {
                format!("the value of `{a}{}` before the region", subscripts(e))
            }
            Term::Unknown(_, a, _) => format!("`{a}` read before the region writes it"),
            Term::Const(c) => format!("the literal `{c}`"),
            Term::Int(v) => format!("the integer {v}"),
            Term::Op(o, _) => format!("`{o}`"),
        }
    }
}

fn subscripts(e: &[Int]) -> String {
    e.iter().map(|v| format!("[{v}]")).collect()
}

/// Where an element's value comes from after a run: its term and the instance that
/// stored it (`None`: nothing did).
type Cells = HashMap<(String, Vec<Int>), (u32, Option<Instance>)>;

/// The first output element (of `outputs`, in their order, each array's elements in
/// lexicographic order) whose value differs after the two programs run at the parameter
/// values `values` (of `params`), as an exact difference; `None` when every output is the
/// same there, or when the run is not possible (an instance count past
/// [`MAX_INSTANCES`], a relation that is not a function, the budget).
pub(super) fn difference(
    a: &Program,
    b: &Program,
    params: &[String],
    values: &[Int],
    outputs: &[String],
) -> Option<Mismatch> {
    let steps = budget::left().map_or(STEPS, |l| l.min(STEPS));
    let run = || {
        let mut terms = Terms::default();
        let mut left = MAX_INSTANCES;
        let on = |p, side| Run {
            p,
            side,
            params,
            values,
        };
        let ca = run(&on(a, 0), &mut terms, &mut left)?;
        let cb = run(&on(b, 1), &mut terms, &mut left)?;
        compare(a, b, &ca, &cb, &terms, outputs, values)
    };
    budget::with_budget(steps, run).ok().flatten()
}

/// Parameter values a search for a difference runs both programs at, every parameter the
/// same value, smallest first: the edges of small tiles and register blocks are crossed
/// from a few values on.
const SEARCH_VALUES: &[i64] = &[1, 2, 3, 4, 5, 7, 9, 13, 17, 33];

/// Most steps a search for a difference takes ([`search`]).
pub(super) const SEARCH_STEPS: u64 = 20_000_000;

/// Where a proof ran out of the work budget: both programs run at each of
/// [`SEARCH_VALUES`] (every parameter that value, while the instances stay within
/// [`MAX_INSTANCES`]); the first difference found there, exact, with the outputs'
/// names. `None` where none is found, where a program has a reduction or atomic updates
/// on threads (the run reads them in one order, which the threads need not keep), or a
/// loop the race check does not find free of races.
pub(super) fn search(a: &Scop, b: &Scop, params: &[String]) -> Option<(Mismatch, Vec<String>)> {
    let (la, lb) = (omp::loops(a).ok()?, omp::loops(b).ok()?);
    if la
        .iter()
        .chain(&lb)
        .any(|l| !l.reduced.is_empty() || !l.atomic.is_empty())
    {
        return None;
    }
    let pa = Program::with_points(a, params, false).ok()?;
    let pb = Program::with_points(b, params, false).ok()?;
    omp::race_free(&pa, &la, params).ok()?;
    omp::race_free(&pb, &lb, params).ok()?;
    let outputs = super::outputs(&pa, &pb).ok()?;
    for &v in SEARCH_VALUES {
        let values = vec![Int::from(v); params.len()];
        if let Some(m) = difference(&pa, &pb, params, &values, &outputs) {
            return Some((m, outputs));
        }
        if budget::spent() {
            return None;
        }
    }
    None
}

fn compare(
    a: &Program,
    b: &Program,
    ca: &Cells,
    cb: &Cells,
    terms: &Terms,
    outputs: &[String],
    values: &[Int],
) -> Option<Mismatch> {
    for (k, o) in outputs.iter().enumerate() {
        let mut elems: Vec<&Vec<Int>> = (ca.keys().chain(cb.keys()))
            .filter(|(x, _)| x == o)
            .map(|(_, e)| e)
            .collect();
        elems.sort();
        elems.dedup();
        for e in elems {
            let key = (o.clone(), e.clone());
            let (x, y) = (ca.get(&key), cb.get(&key));
            let tx = x.map(|c| c.0);
            let ty = y.map(|c| c.0);
            if tx == ty {
                continue;
            }
            let (tx, ty) = match (tx, ty) {
                (Some(x), Some(y)) => {
                    let (x, y) = terms.first_difference(x, y);
                    (Some(x), Some(y))
                }
                t => t,
            };
            let say = |t: Option<u32>, p: &Program| match t {
                Some(t) => terms.describe(t),
                None => format!(
                    "the value of `{}{}` before the region",
                    p.c_name(o),
                    subscripts(e)
                ),
            };
            return Some(Mismatch {
                exact: true,
                params: values.to_vec(),
                output: k,
                element: Some(e.clone()),
                left: x.and_then(|c| c.1.clone()),
                right: y.and_then(|c| c.1.clone()),
                why: format!(
                    "{} against {}, where the two programs first differ (both run at these values)",
                    say(tx, a),
                    say(ty, b)
                ),
            });
        }
    }
    None
}

/// Each output of `m` as an affine form `[c, parameters, inputs]` (value `c + a·x`),
/// where every part says each output by one equality with a unit coefficient, the same
/// in every part, and has no locals: an access or a time of plain subscripts, evaluated
/// without enumerating the map.
fn affine(m: &Map) -> Option<Vec<Vec<Int>>> {
    let (np, ni, no) = (m.space().n_param(), m.n_in(), m.n_out());
    let w = 1 + np + ni;
    let mut forms: Option<Vec<Vec<Int>>> = None;
    for b in m.parts() {
        if b.n_div() > 0 {
            return None;
        }
        let mut part = vec![];
        for j in 0..no {
            let col = w + j;
            let others = |r: &[Int]| (0..no).all(|k| k == j || r[w + k].is_zero());
            let r =
                (b.eqs().iter()).find(|r| (r[col].is_one() || r[col] == -Int::ONE) && others(r))?;
            // c·out + rest = 0 with c = ±1: out = -c·rest.
            let c = r[col].clone();
            part.push(r[..w].iter().map(|v| -(v * &c)).collect::<Vec<Int>>());
        }
        match &forms {
            None => forms = Some(part),
            Some(f) if *f == part => {}
            Some(_) => return None,
        }
    }
    forms
}

/// `m` at the parameter values on the instances `points`, as a table from each to its one
/// image: by its affine forms where it has them, else by enumerating it (`None` where an
/// instance has two images or more points than `points` come out).
fn table(m: &Map, params: &[String], values: &[Int], points: &[Vec<Int>]) -> Option<Table> {
    if let Some(forms) = affine(m) {
        let np = params.len().min(values.len());
        return Some(
            (points.iter())
                .map(|x| {
                    let image = (forms.iter())
                        .map(|f| {
                            let mut v = f[0].clone();
                            for (k, c) in f[1..1 + np].iter().enumerate() {
                                v += &(c * &values[k]);
                            }
                            for (k, c) in f[1 + np..].iter().enumerate() {
                                v += &(c * &x[k]);
                            }
                            v
                        })
                        .collect();
                    (x.clone(), image)
                })
                .collect(),
        );
    }
    let f = m.fix_params(params.iter().map(String::as_str).zip(values));
    let n = f.n_in();
    let pts = f.wrap().try_points(points.len()).ok()?.ok()?;
    let mut t = HashMap::with_capacity(pts.len());
    for mut pt in pts {
        let image = pt.split_off(n);
        if t.insert(pt, image).is_some() {
            return None;
        }
    }
    Some(t)
}

type Table = HashMap<Vec<Int>, Vec<Int>>;

/// One statement's instances at the values run: each one's time, write and reads.
struct Instances {
    time: Table,
    write: Table,
    reads: Vec<Option<Table>>,
}

/// One program run at parameter values: which program (its side, for the terms of its own
/// variables) and the values of the parameters.
struct Run<'r> {
    p: &'r Program<'r>,
    side: usize,
    params: &'r [String],
    values: &'r [Int],
}

/// Runs program `r.p` in the order of its times; the cells it leaves.
fn run(r: &Run, terms: &mut Terms, left: &mut usize) -> Option<Cells> {
    let (p, params, values) = (r.p, r.params, r.values);
    let mut all = vec![];
    let mut order = vec![];
    for (k, s) in p.stmts.iter().enumerate() {
        let dom = (s
            .domain
            .fix_params(params.iter().map(String::as_str).zip(values)))
        .try_points(*left)
        .ok()?
        .ok()?;
        *left = left.checked_sub(dom.len())?;
        let time = table(&s.time, params, values, &dom)?;
        let write = table(&s.write, params, values, &dom)?;
        let mut reads = vec![];
        for r in &s.reads {
            reads.push(match r {
                Some((_, m)) => Some(table(m, params, values, &dom)?),
                None => None,
            });
        }
        order.extend(time.iter().map(|(x, t)| (t.clone(), k, x.clone())));
        all.push(Instances { time, write, reads });
    }
    // Two stores of one statement share its time: the inner one first, as listed.
    order.sort();
    let mut cells: Cells = HashMap::new();
    for (_, k, x) in order {
        let s = &p.stmts[k];
        let at = &all[k];
        debug_assert!(at.time.contains_key(&x));
        let v = value(r, (k, &x, at), s.root, &cells, terms)?;
        let key = (
            s.write_array.clone(),
            cell(p, &s.write_array, &x, at.write.get(&x)?),
        );
        let who = Instance {
            stmt: s.index,
            coords: x.clone(),
        };
        cells.insert(key, (v, Some(who)));
    }
    Some(cells)
}

/// The cell of `array`'s element `e` accessed by instance `x`: a variable declared inside
/// `d` loops is a new one in each of their iterations, so their counters are part of it.
fn cell(p: &Program, array: &str, x: &[Int], e: &[Int]) -> Vec<Int> {
    let d = p
        .scop
        .array(array)
        .and_then(|a| a.private_depth)
        .unwrap_or(0);
    let mut c = x[..d.min(x.len())].to_vec();
    c.extend_from_slice(e);
    c
}

/// The term of node `n` of statement `k` at instance `x` (whose accesses `at` holds).
fn value(
    r: &Run,
    (k, x, at): (usize, &[Int], &Instances),
    n: usize,
    cells: &Cells,
    terms: &mut Terms,
) -> Option<u32> {
    let (p, side, params, values) = (r.p, r.side, r.params, r.values);
    let s = &p.stmts[k];
    Some(match &s.nodes[n] {
        Node::Read(j) => {
            let (array, _) = s.reads.get(*j)?.as_ref()?;
            let e = at.reads.get(*j)?.as_ref()?.get(x)?;
            let key = (array.clone(), cell(p, array, x, e));
            match cells.get(&key) {
                Some(c) => c.0,
                None => {
                    let storage = p.scop.array(array).map(|a| a.storage);
                    terms.id(match p.is_local(array) {
                        true => Term::Unknown(side, array.clone(), key.1),
                        false => Term::Input(p.c_name(array), storage, e.clone()),
                    })
                }
            }
        }
        Node::Const(c) => terms.id(Term::Const(c.clone())),
        Node::Name(name, _) => {
            let dims = &s.domain.space().range.dims;
            // As the value's relation reads it (`program::name_map`).
            let v = match dims.iter().position(|d| d == name) {
                Some(i) => x.get(i)?.clone(),
                None => match params.iter().position(|q| q == name) {
                    Some(i) => values.get(i)?.clone(),
                    None => Int::ZERO,
                },
            };
            terms.id(Term::Int(v))
        }
        Node::Op(o, kids) => {
            let mut ids = vec![];
            for &c in kids {
                ids.push(value(r, (k, x, at), c, cells, terms)?);
            }
            terms.id(Term::Op(o.clone(), ids))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::difference;
    use crate::equiv::program::Program;
    use crate::presburger::Int;
    use crate::testing::scratch;

    fn scop(name: &str, text: &str) -> crate::model::Scop {
        let f = scratch("equiv-concrete", name).join(format!("{name}.c"));
        std::fs::write(&f, text).unwrap();
        let opts = crate::frontend::Options {
            read_generated: true,
            ..Default::default()
        };
        crate::driver::Kernel::load(&f, &opts).unwrap().scop
    }

    fn region(body: &str) -> String {
        format!(
            "void f(int n, double A[100], double B[100]) {{\n  int i;\n#pragma scop\n{body}\n#pragma endscop\n}}\n"
        )
    }

    /// Runs both at `n`: the element that differs, its two writers' lines, and what differs.
    fn at(test: &str, a: &str, b: &str, n: i64) -> Option<(Vec<Int>, String)> {
        let sa = scop(&format!("{test}-a"), &region(a));
        let sb = scop(&format!("{test}-b"), &region(b));
        let params = vec!["n".to_string()];
        let (pa, pb) = (
            Program::new(&sa, &params).unwrap(),
            Program::new(&sb, &params).unwrap(),
        );
        let outputs = pa.outputs();
        let m = difference(&pa, &pb, &params, &[Int::from(n)], &outputs)?;
        assert!(m.exact);
        Some((m.element.unwrap(), m.why))
    }

    /// A running sum and the same sum with its last update one element short: the same
    /// below `n = 3` (the loop that is cut does not run), different from there, at the
    /// last element, where the additions first differ.
    #[test]
    fn the_outputs_terms_differ_where_the_programs_do() {
        let sum = "  for (i = 1; i < n; i++)\n    A[i] = A[i - 1] + B[i];";
        let cut = "  for (i = 1; i < n; i++)\n    A[i] = A[i - 1] + B[i];\n  for (i = 2; i < n - 1; i++)\n    A[i] = A[i] * 1.0;";
        assert_eq!(at("sum", sum, sum, 6), None);
        assert_eq!(at("sum", sum, cut, 2), None);
        let (e, why) = at("sum", sum, cut, 4).expect("a difference at n = 4");
        assert_eq!(e, vec![Int::from(2)]);
        assert!(why.contains("`+ double` against `* double`"), "{why}");
        // The same operations in another order of their operands.
        let swapped = "  for (i = 1; i < n; i++)\n    A[i] = B[i] + A[i - 1];";
        let (e, why) = at("sum", sum, swapped, 2).expect("a difference at n = 2");
        assert_eq!(e, vec![Int::from(1)]);
        assert!(why.contains("before the region"), "{why}");
    }

    /// A buffer of the region read before it is written holds nothing known: never the
    /// other program's value, even of the same name.
    #[test]
    fn a_local_read_before_its_write_is_no_input() {
        let copy = "  for (i = 0; i < n; i++)\n    A[i] = B[i];";
        let local = "  double T[n];\n  for (i = 0; i < n; i++)\n    A[i] = T[i];";
        let (e, why) = at("local", copy, local, 1).expect("a difference");
        assert_eq!(e, vec![Int::from(0)]);
        assert!(why.contains("read before the region writes it"), "{why}");
        assert_eq!(at("local", copy, local, 0), None);
    }
}
