//! `loopy equiv`: do two programs compute the same values? For the modelled region of
//! each (a `#pragma scop` region or a function body), exact array dataflow on both sides
//! ([`dataflow`]), then equality of the two dataflow graphs from every output element
//! ([`compare`]), after Verdoolaege, Janssens and Bruynooghe (CAV 2009; TOPLAS 2012).
//! The bar is bitwise: the same typed operations ([`types`]) on the same inputs in the
//! same order. See `docs/equiv.md`.

pub mod compare;
mod concrete;
mod counting;
pub mod dataflow;
mod omp;
mod plain;
pub mod program;
mod reduce;
pub mod report;
mod rows;
pub mod types;

use crate::model::Scop;
use crate::presburger::{budget, Set};
use compare::{Checker, Mismatch};
use dataflow::Flow;
use program::{Program, Refusal};
use reduce::Reduction;

/// The answer.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Every output array (named) holds the same values after both regions.
    Equivalent {
        outputs: Vec<String>,
        /// The work-sharing and SIMD loops of both regions, found race-free and read as
        /// sequential loops.
        parallel: usize,
        /// The vector operations of both regions, their lanes found free of races and read
        /// as loops.
        vector: usize,
        /// The checks that stop a program (overflow and allocation checks of generated
        /// code, `Scop::stops`): the values are the same where they pass.
        stops: usize,
        /// The reductions and atomic updates of OpenMP loops (`the reduction of `x` at line
        /// N`, the second program's first): the values are the same up to the reassociation
        /// of their updates.
        reassociated: Vec<String>,
        /// The regions that are a test between two versions of their code (generated
        /// code's no-overlap test), each version proved: what the test is, for the answer.
        versions: Vec<String>,
    },
    /// A real difference.
    Different(Box<Witness>),
    /// Outside what is decided: the construct, or a difference that may come from an
    /// over-approximation of a recurrence.
    Undecided(Refusal),
}

/// A difference with the names it needs to be read.
#[derive(Clone, Debug)]
pub struct Witness {
    pub mismatch: Mismatch,
    /// The parameters, in the order of the witness's values.
    pub params: Vec<String>,
    /// The output array (its C name) whose value differs.
    pub output: String,
    /// Where the second program is a test between two versions: the version that differs.
    pub version: Option<String>,
}

/// Checks that `b` computes what `a` computes, under a work budget of `limit` steps,
/// telling `on` what it is doing (a phase, or how many obligations of the
/// comparison are discharged): for a progress line on long checks.
pub fn check_with(a: &Scop, b: &Scop, limit: u64, on: &dyn Fn(&str)) -> Verdict {
    let first = budget::with_budget(limit, || check_unbounded(a, b, false, on));
    // Out of budget: again with a register block's unrolled rows folded, where there are
    // some, under a budget of its own (`rows.rs`).
    let again = |e| {
        on("again with the unrolled rows folded");
        match budget::with_budget(limit, || check_unbounded(a, b, true, on)) {
            Ok(Some(v)) => Ok(Some(v)),
            _ => Err(e),
        }
    };
    match first.or_else(again) {
        Ok(v) => v.expect("a verdict without folding"),
        Err(e) => {
            // Past the budget nothing is proved; a difference may still be found by
            // running both programs at small parameter values.
            on("running both programs at small parameter values");
            let params = shared_params(a, b);
            let steps = limit.min(concrete::SEARCH_STEPS);
            let found = (same_shapes(a, b).is_ok())
                .then(|| budget::with_budget(steps, || concrete::search(a, b, &params)));
            match found.and_then(Result::ok).flatten() {
                Some((m, outputs)) => decide(m, &outputs, &params),
                None => {
                    Verdict::Undecided(Refusal::new(format!("the integer core gave up: {e}"), None))
                }
            }
        }
    }
}

/// The parameters of both programs, the first's first.
fn shared_params(a: &Scop, b: &Scop) -> Vec<String> {
    let mut params = a.params.clone();
    for p in &b.params {
        if !params.contains(p) {
            params.push(p.clone());
        }
    }
    params
}

/// [`check_with`] where either program may be a test between two versions of its code
/// (`Scop::version`: `a` and `b` hold one model per version, the first program's first
/// version first). Each version is compared with the first program's first: all compute
/// the same values exactly when every comparison finds it. The answer, with the pair of
/// models its report is about (the first difference or refusal, in that order).
pub fn check_versions<'s>(
    a: &[&'s Scop],
    b: &[&'s Scop],
    limit: u64,
    on: &dyn Fn(&str),
) -> (Verdict, &'s Scop, &'s Scop) {
    let first = a[0];
    let (mut outputs, mut reassociated, mut versions) = (vec![], vec![], vec![]);
    let add = |to: &mut Vec<String>, xs: Vec<String>| {
        for x in xs {
            if !to.contains(&x) {
                to.push(x);
            }
        }
    };
    let mut last = first;
    for &other in a[1..].iter().chain(b) {
        last = other;
        match check_with(first, other, limit, on) {
            Verdict::Equivalent {
                outputs: o,
                reassociated: r,
                ..
            } => {
                add(&mut outputs, o);
                add(&mut reassociated, r);
                add(&mut versions, version_text(other).into_iter().collect());
            }
            v => return (in_version(v, other), first, other),
        }
    }
    // Each model's own loops and checks, counted once.
    let (mut parallel, mut vector, mut stops) = (0, 0, 0);
    for s in a.iter().chain(b) {
        let loops = omp::loops(s).unwrap_or_default();
        parallel += loops.iter().filter(|l| !l.is_vector()).count();
        vector += loops.iter().filter(|l| l.is_vector()).count();
        stops += s.stops.len();
    }
    let v = Verdict::Equivalent {
        outputs,
        parallel,
        vector,
        stops,
        reassociated,
        versions,
    };
    (v, first, last)
}

/// What a version is, for an answer: `the transformed version (…)`.
fn version_text(s: &Scop) -> Option<String> {
    let v = s.version.as_ref()?;
    let test = format!("the test at line {} of {}", v.test.line, v.test.file);
    Some(match (v.original, &v.function) {
        (true, _) => format!("the original version ({test} fails)"),
        (false, Some(f)) => format!("the transformed version (`{f}`, called where {test} passes)"),
        (false, None) => format!("the transformed version (where {test} passes)"),
    })
}

/// A difference or refusal said of the version `s` is.
fn in_version(v: Verdict, s: &Scop) -> Verdict {
    let Some(d) = version_text(s) else {
        return v;
    };
    match v {
        Verdict::Different(mut w) => {
            w.version = Some(d);
            Verdict::Different(w)
        }
        Verdict::Undecided(mut r) => {
            r.what = format!("in {d}: {}", r.what);
            Verdict::Undecided(r)
        }
        e => e,
    }
}

/// Refuses two programs that give one array (by its C name) different numbers of
/// subscripts: their elements cannot be put side by side.
fn same_shapes(a: &Scop, b: &Scop) -> Result<(), Refusal> {
    for x in &a.arrays {
        if let Some(y) = b.arrays.iter().find(|y| y.c_name == x.c_name) {
            if x.rank != y.rank {
                return Err(Refusal::new(
                    format!(
                        "`{}` has {} subscript(s) in the first program and {} in the second",
                        x.c_name, x.rank, y.rank
                    ),
                    None,
                ));
            }
        }
    }
    Ok(())
}

/// The verdict; with `fold`, `None` where no program has unrolled rows to fold.
fn check_unbounded(a: &Scop, b: &Scop, fold: bool, on: &dyn Fn(&str)) -> Option<Verdict> {
    let params = shared_params(a, b);
    let run = || -> Result<Option<Verdict>, Refusal> {
        let (la, lb) = (omp::loops(a)?, omp::loops(b)?);
        same_shapes(a, b)?;
        on("reading the statements' instances");
        let pa = Program::new(a, &params)?;
        let pb = Program::new(b, &params)?;
        // Work-sharing loops are read as sequential loops: right when they are race-free.
        on("checking the parallel and vector loops for races");
        omp::race_free(&pa, &la, &params)?;
        omp::race_free(&pb, &lb, &params)?;
        // A register block's unrolled rows, one statement each, folded into one.
        let (pa, pb) = match fold {
            false => (pa, pb),
            true => {
                let n = pa.stmts.len() + pb.stmts.len();
                let (pa, pb) = (rows::fold(pa), rows::fold(pb));
                if pa.stmts.len() + pb.stmts.len() == n {
                    return Ok(None);
                }
                (pa, pb)
            }
        };
        on(&format!(
            "dataflow of the first program ({} statements)",
            pa.stmts.len()
        ));
        let fa = Flow::new(&pa, &params)?;
        on(&format!(
            "dataflow of the second program ({} statements)",
            pb.stmts.len()
        ));
        let fb = Flow::new(&pb, &params)?;
        let outputs = outputs(&pa, &pb)?;
        // The comparison runs on instances without the dimensions the others determine.
        let (ra, rb) = (Reduction::new(&pa), Reduction::new(&pb));
        let (qa, qb) = (ra.program(&pa), rb.program(&pb));
        let (ga, gb) = (ra.flow(&fa), rb.flow(&fb));
        let found = |m: Mismatch| {
            let m = full_instances(m, (&pa, &ra), (&pb, &rb));
            // Over a widened recurrence, a difference is looked for where it was found:
            // both programs run at its parameter values.
            let m = match m.exact {
                true => m,
                false => {
                    on("running both programs at the difference's parameter values");
                    concrete::difference(&pa, &pb, &params, &m.params, &outputs).unwrap_or(m)
                }
            };
            decide(unfolded(m, &pa, &pb), &outputs, &params)
        };
        let mut checker = Checker::new(&qa, &qb, &ga, &gb);
        for (k, o) in outputs.iter().enumerate() {
            let Some(elems) = elements(&[&pa, &pb], o) else {
                continue;
            };
            on(&format!("the last writers of `{o}`"));
            let sa = ra.sources(None, &fa.outputs(&pa, &params, o, &elems)?);
            let sb = rb.sources(None, &fb.outputs(&pb, &params, o, &elems)?);
            if let Some(m) = checker.output(k, &elems, &sa, &sb) {
                return Ok(Some(found(m)));
            }
        }
        Ok(Some(
            match checker.run(&|n| {
                on(&format!(
                    "comparing the computations ({n} obligations discharged)"
                ))
            })? {
                Some(m) => found(m),
                None => Verdict::Equivalent {
                    parallel: la.iter().chain(&lb).filter(|l| !l.is_vector()).count(),
                    vector: la.iter().chain(&lb).filter(|l| l.is_vector()).count(),
                    stops: a.stops.len() + b.stops.len(),
                    reassociated: (lb.iter().chain(&la))
                        .flat_map(|l| {
                            let reduced = (l.reduced.iter()).map(|(x, _)| {
                                format!("the reduction of `{x}` at line {}", l.pragma.line)
                            });
                            let atomic = (l.atomic.iter()).map(|(_, span)| {
                                format!("the atomic updates at line {}", span.line)
                            });
                            reduced.chain(atomic).collect::<Vec<_>>()
                        })
                        .collect(),
                    outputs: outputs
                        .iter()
                        .map(|o| {
                            a.array(o)
                                .or(b.array(o))
                                .map_or(o.clone(), |x| x.c_name.clone())
                        })
                        .collect(),
                    versions: vec![],
                },
            },
        ))
    };
    match run() {
        Ok(v) => v,
        Err(r) => Some(Verdict::Undecided(r)),
    }
}

/// The arrays live after either region (each program's [`Program::outputs`]), the first's
/// first; refused where one is declared inside a loop of either region: each iteration
/// has its own, and none is left after the region.
fn outputs(pa: &Program, pb: &Program) -> Result<Vec<String>, Refusal> {
    let mut outputs = pa.outputs();
    for o in pb.outputs() {
        if !outputs.contains(&o) {
            outputs.push(o);
        }
    }
    for o in &outputs {
        if [pa, pb]
            .iter()
            .any(|q| q.scop.array(o).is_some_and(|x| x.private_depth.is_some()))
        {
            return Err(Refusal::new(
                format!("`{o}` is declared in the region of one program and not the other"),
                None,
            ));
        }
    }
    Ok(outputs)
}

/// A witness's instances with the dimensions the comparison left out.
fn full_instances(
    mut m: Mismatch,
    a: (&Program, &Reduction),
    b: (&Program, &Reduction),
) -> Mismatch {
    let params = m.params.clone();
    for (side, (p, r)) in [(&mut m.left, a), (&mut m.right, b)] {
        if let Some(i) = side {
            let at = p.stmts.iter().position(|s| s.index == i.stmt);
            if let Some(full) = at.and_then(|k| r.expand(k, &params, &i.coords)) {
                i.coords = full;
            }
        }
    }
    m
}

/// A witness's instances of folded statements as the copies they are.
fn unfolded(mut m: Mismatch, a: &Program, b: &Program) -> Mismatch {
    for (side, p) in [(&mut m.left, a), (&mut m.right, b)] {
        if let Some(i) = side {
            rows::unfold(p, i);
        }
    }
    m
}

/// A difference is an answer only when it was found without widening.
fn decide(m: Mismatch, outputs: &[String], params: &[String]) -> Verdict {
    if m.exact {
        let output = outputs.get(m.output).cloned().unwrap_or_default();
        Verdict::Different(Box::new(Witness {
            mismatch: m,
            params: params.to_vec(),
            output,
            version: None,
        }))
    } else {
        Verdict::Undecided(Refusal::new(
            format!(
                "a difference was found on `{}` only after a recurrence was widened, so it may not be real: {}",
                outputs.get(m.output).map_or("?", |s| s.as_str()),
                m.why
            ),
            None,
        ))
    }
}

/// Every element of `array` that either program writes.
fn elements(progs: &[&Program], array: &str) -> Option<Set> {
    let mut all: Option<Set> = None;
    for p in progs {
        for s in p.stmts.iter().filter(|s| s.write_array == array) {
            // Simplified: a tiled write's range has the tile coordinates as existentials,
            // which every later difference would carry.
            let r = s.write.range().simplify();
            all = Some(match all {
                None => r,
                Some(u) => u.union(&r),
            });
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::{check_with, Verdict};
    use crate::testing::scratch;
    use std::cell::RefCell;

    fn scop(test: &str, name: &str, text: &str) -> crate::model::Scop {
        let f = scratch("equiv", &format!("{test}-{name}")).join(format!("{name}.c"));
        std::fs::write(&f, text).unwrap();
        let opts = crate::frontend::Options {
            read_generated: true,
            ..Default::default()
        };
        crate::driver::Kernel::load(&f, &opts).unwrap().scop
    }

    const ORIGINAL: &str = "void f(int n, double A[100], double B[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
  for (i = 0; i < n; i++)
    A[i] = A[i] + B[i];
#pragma endscop
}
";

    /// The phases are told in order, the comparison's count last; sibling nests whose
    /// order matters are still told apart (a writer skipped by its position only where it
    /// cannot be the last).
    #[test]
    fn the_check_tells_its_phases_and_sibling_nests_keep_their_order() {
        let a = scop("phases", "a", ORIGINAL);
        let swapped = ORIGINAL.replace("A[i] = 1.0;", "A[i] = A[i] + B[i];");
        let swapped = swapped.replacen("A[i] = A[i] + B[i];\n#pragma", "A[i] = 1.0;\n#pragma", 1);
        let b = scop("phases", "b", &swapped);
        let told = RefCell::new(vec![]);
        let v = check_with(&a, &a, 50_000_000, &|m| {
            told.borrow_mut().push(m.to_string())
        });
        assert!(matches!(v, Verdict::Equivalent { .. }), "{v:?}");
        let told = told.into_inner();
        let at = |p: &str| told.iter().position(|m| m.starts_with(p));
        let phases = [
            at("reading"),
            at("checking"),
            at("dataflow of the first"),
            at("dataflow of the second"),
            at("the last writers of `A`"),
        ];
        assert!(phases.iter().all(Option::is_some), "{told:?}");
        assert!(phases.windows(2).all(|w| w[0] < w[1]), "{told:?}");
        let v = check_with(&a, &b, 50_000_000, &|_| {});
        assert!(matches!(v, Verdict::Different(_)), "{v:?}");
    }

    /// The last writers of a level taken group by group of constant positions (as past
    /// the cap on one optimum over all of them) give the answers one optimum gives: nests
    /// one after the other, a reduction split over two nests, and the mutations of both.
    #[test]
    fn last_writers_group_by_group_give_the_same_answers() {
        let original = "void f(int n, double A[100], double B[100], double C[100][100]) {
  int i, k;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = 1.0;
    for (k = 0; k < n; k++)
      A[i] = A[i] + C[i][k];
  }
  for (i = 0; i < n; i++)
    B[i] = A[i] * 2.0;
#pragma endscop
}
";
        // The reduction in two nests, its first half first, then the rest.
        let split = original.replace(
            "  for (i = 0; i < n; i++) {
    A[i] = 1.0;
    for (k = 0; k < n; k++)
      A[i] = A[i] + C[i][k];
  }",
            "  for (i = 0; i < n; i++)
    A[i] = 1.0;
  for (i = 0; i < n; i++)
    for (k = 0; k < n / 2; k++)
      A[i] = A[i] + C[i][k];
  for (i = 0; i < n; i++)
    for (k = n / 2; k < n; k++)
      A[i] = A[i] + C[i][k];",
        );
        let halves_swapped = split
            .replace("k < n / 2; k++", "k < n; k++ /* first */")
            .replace("k = n / 2; k < n; k++", "k = 0; k < n / 2; k++")
            .replace("k < n; k++ /* first */", "k < n / 2; k++")
            .replacen("k = 0; k < n / 2; k++", "k = n / 2; k < n; k++", 1);
        let late_init = split.replacen(
            "    A[i] = 1.0;
",
            "    A[i] = 0.0;
",
            1,
        );
        let a = scop("groups", "a", original);
        let cases = [
            ("split", &split, true),
            ("swapped", &halves_swapped, false),
            ("init", &late_init, false),
        ];
        for (name, text, same) in cases {
            let b = scop("groups", name, text);
            for cap in [0, super::dataflow::TOGETHER_DEFAULT] {
                let (v, grouped) = super::dataflow::with_together_steps(cap, || {
                    check_with(&a, &b, 50_000_000, &|_| {})
                });
                // The cap at 0 takes the nests group by group; within the default cap
                // these small programs take one optimum.
                assert_eq!(
                    grouped > 0,
                    cap == 0,
                    "{name} {cap}: {grouped} levels grouped"
                );
                match same {
                    true => assert!(
                        matches!(v, Verdict::Equivalent { .. }),
                        "{name} {cap}: {v:?}"
                    ),
                    false => assert!(
                        !matches!(v, Verdict::Equivalent { .. }),
                        "{name} {cap}: {v:?}"
                    ),
                }
            }
        }
    }
    const ROWS: &str = "void f(int n, double A[100][100], double C[100]) {
  int i, k;
#pragma scop
  for (i = 0; i < n; i++) {
    C[i] = 0.0;
    for (k = 0; k < n; k++)
      C[i] += A[i][k];
  }
#pragma endscop
}
";

    const UNROLLED: &str = "void f(int n, double A[100][100], double C[100]) {
  int i, k;
#pragma scop
  for (i = 0; i + 2 < n; i += 3) {
    double r0, r1, r2;
    r0 = 0.0;
    r1 = 0.0;
    r2 = 0.0;
    for (k = 0; k < n; k++) {
      r0 += A[i + 0][k];
      r1 += A[i + 1][k];
      r2 += A[i + 2][k];
    }
    C[i + 0] = r0;
    C[i + 1] = r1;
    C[i + 2] = r2;
  }
  for (i = n - n % 3; i < n; i++) {
    C[i] = 0.0;
    for (k = 0; k < n; k++)
      C[i] += A[i][k];
  }
#pragma endscop
}
";

    /// Folded, three unrolled rows are one statement each for the loads, updates and
    /// stores, and the fold is proved; a wrong row is found, and the witness names the
    /// copy of that row (not the first row's statement the fold is named after).
    #[test]
    fn unrolled_rows_are_folded_and_checked_row_by_row() {
        let (a, b) = (scop("rows", "a", ROWS), scop("rows", "b", UNROLLED));
        let params = super::shared_params(&a, &b);
        let pb = super::Program::new(&b, &params).unwrap();
        let n = pb.stmts.len();
        let folded = super::rows::fold(pb);
        assert_eq!(
            folded.stmts.len(),
            n - 6,
            "three groups of three rows, one each"
        );
        assert!(folded.stmts.iter().filter(|s| s.rows.len() == 3).count() == 3);
        let v = super::check_unbounded(&a, &b, true, &|_| {}).expect("folded");
        assert!(matches!(v, Verdict::Equivalent { .. }), "{v:?}");
        // Chains of stores share their time: their statements are no copies, and the
        // accumulators they write are then no family (touched outside any group), so
        // nothing folds; the program as it is is still proved.
        let chained = UNROLLED
            .replace("double r0, r1, r2;", "double r0, r1, r2, z0, z1, z2;")
            .replace("r0 = 0.0;", "r0 = z0 = 0.0;")
            .replace("r1 = 0.0;", "r1 = z1 = 0.0;")
            .replace("r2 = 0.0;", "r2 = z2 = 0.0;");
        let d = scop("rows", "d", &chained);
        let pd = super::Program::new(&d, &params).unwrap();
        let n = pd.stmts.len();
        let folded = super::rows::fold(pd);
        assert_eq!(folded.stmts.len(), n);
        assert!(super::check_unbounded(&a, &d, true, &|_| {}).is_none());
        let v = super::check_unbounded(&a, &d, false, &|_| {}).expect("a verdict");
        assert!(matches!(v, Verdict::Equivalent { .. }), "{v:?}");
        let wrong = UNROLLED.replace("r2 += A[i + 2][k]", "r2 += A[i + 1][k]");
        let c = scop("rows", "c", &wrong);
        let v = super::check_unbounded(&a, &c, true, &|_| {}).expect("folded");
        let Verdict::Different(w) = v else {
            panic!("{v:?}")
        };
        let named = |i: &Option<super::compare::Instance>| i.as_ref().map(|i| c.stmt_name(i.stmt));
        let right = named(&w.mismatch.right).expect("an instance");
        let update = (0..c.statements.len())
            .find(|&k| c.statements[k].text.contains("r2 += A[i + 1][k]"))
            .unwrap();
        let store = (0..c.statements.len())
            .find(|&k| c.statements[k].text.contains("C[i + 2] = r2"))
            .unwrap();
        assert!(
            right == c.stmt_name(update) || right == c.stmt_name(store),
            "{right}: {w:?}"
        );
    }
    const PAIRS: &str = "void f(int n, double A[100][100], double C[100][2]) {
  int i, k;
#pragma scop
  for (i = 0; i < n; i++) {
    C[i][0] = 0.0;
    C[i][1] = 0.0;
    for (k = 0; k < n; k++) {
      C[i][0] += A[i][k];
      C[i][1] += A[i][k] * A[i][k];
    }
  }
#pragma endscop
}
";

    /// Rows of two parts each (a row's two halves, `r0_0` and `r0_1`): folded by rows,
    /// two statements a group, not the six parts as one sequence; proved, and a wrong
    /// half of one row found at that half's statement.
    #[test]
    fn rows_of_two_parts_fold_by_rows() {
        let mut unrolled = String::from(
            "void f(int n, double A[100][100], double C[100][2]) {\n  int i, k;\n#pragma scop\n",
        );
        unrolled += "  for (i = 0; i + 2 < n; i += 3) {\n";
        unrolled += "    double r0_0, r0_1, r1_0, r1_1, r2_0, r2_1;\n";
        for r in 0..3 {
            unrolled += &format!("    r{r}_0 = 0.0;\n    r{r}_1 = 0.0;\n");
        }
        unrolled += "    for (k = 0; k < n; k++) {\n";
        for r in 0..3 {
            unrolled += &format!("      r{r}_0 += A[i + {r}][k];\n");
            unrolled += &format!("      r{r}_1 += A[i + {r}][k] * A[i + {r}][k];\n");
        }
        unrolled += "    }\n";
        for r in 0..3 {
            unrolled += &format!("    C[i + {r}][0] = r{r}_0;\n    C[i + {r}][1] = r{r}_1;\n");
        }
        unrolled +=
            "  }\n  for (i = n - n % 3; i < n; i++) {\n    C[i][0] = 0.0;\n    C[i][1] = 0.0;\n";
        unrolled += "    for (k = 0; k < n; k++) {\n      C[i][0] += A[i][k];\n";
        unrolled += "      C[i][1] += A[i][k] * A[i][k];\n    }\n  }\n#pragma endscop\n}\n";
        let (a, b) = (scop("pairs", "a", PAIRS), scop("pairs", "b", &unrolled));
        let params = super::shared_params(&a, &b);
        let pb = super::Program::new(&b, &params).unwrap();
        let n = pb.stmts.len();
        let folded = super::rows::fold(pb);
        // Three groups of two parts by three rows, and the edge's two clearings (one
        // array, two columns) as one statement of two rows.
        assert_eq!(folded.stmts.len(), n - 13);
        assert_eq!(folded.stmts.iter().filter(|s| s.rows.len() == 3).count(), 6);
        let v = super::check_unbounded(&a, &b, true, &|_| {}).expect("folded");
        assert!(matches!(v, Verdict::Equivalent { .. }), "{v:?}");
        let wrong = unrolled.replace(
            "r1_1 += A[i + 1][k] * A[i + 1][k]",
            "r1_1 += A[i + 1][k] * A[i + 2][k]",
        );
        let c = scop("pairs", "c", &wrong);
        let v = super::check_unbounded(&a, &c, true, &|_| {}).expect("folded");
        let Verdict::Different(w) = v else {
            panic!("{v:?}")
        };
        let right = w
            .mismatch
            .right
            .as_ref()
            .map(|i| c.stmt_name(i.stmt))
            .expect("an instance");
        let named = |text: &str| {
            let k = (0..c.statements.len()).find(|&k| c.statements[k].text.contains(text));
            c.stmt_name(k.expect(text))
        };
        assert!(
            right == named("r1_1 += A[i + 1][k] * A[i + 2][k]")
                || right == named("C[i + 1][1] = r1_1"),
            "{right}: {w:?}"
        );
    }
}
