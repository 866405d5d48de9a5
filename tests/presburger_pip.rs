//! Parametric integer programming against brute force, on random parametric 3-D sets with
//! one or two existentials with non-unit coefficients, such as
//! `[N] -> { [i, j, k] : -3 <= i, j, k <= N and exists (e0, e1 : 2e0 + 7e1 = i + 5j + 5k + 6
//! and 0 <= e0 <= N and 0 <= e1 <= 4) }`.
//!
//! Every set is generated as text, parsed, and compared with an enumeration of its points
//! for every parameter value (`0 <= N <= NMAX` is part of every set): emptiness, parametric
//! `lexmin` and `lexmax` (computed by parametric integer programming, never by the
//! subtraction fallback, and printed and parsed back), and the image under a random affine
//! map. The slowest case is printed (run with `--nocapture`); there is no timed assertion.

use loopy::presburger::{parse_map, parse_set, Int, Set};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// The parameter ranges over `[0, NMAX]`.
const NMAX: i64 = 5;
/// Dimensions range over `[-3, N]`.
const LO: i64 = -3;
/// The second existential ranges over `[0, E1MAX]`.
const E1MAX: i64 = 4;

fn cfg(cases: u32) -> ProptestConfig {
    let d = ProptestConfig::default();
    let env = |k: &str| std::env::var_os(k).is_some();
    ProptestConfig {
        cases: if env("PROPTEST_CASES") {
            d.cases
        } else {
            cases
        },
        rng_seed: if env("PROPTEST_RNG_SEED") {
            d.rng_seed
        } else {
            RngSeed::Fixed(15)
        },
        failure_persistence: None,
        ..d
    }
}

/// `c + a·(i, j, k) + b·N`.
#[derive(Clone, Debug)]
struct Aff {
    c: i64,
    a: [i64; 3],
    b: i64,
}

impl Aff {
    fn eval(&self, n: i64, x: &[i64; 3]) -> i64 {
        self.c + self.a[0] * x[0] + self.a[1] * x[1] + self.a[2] * x[2] + self.b * n
    }

    fn text(&self) -> String {
        let mut s = format!("{}", self.c);
        for (v, name) in self.a.iter().zip(["i", "j", "k"]) {
            if *v != 0 {
                s += &format!(" + ({v}){name}");
            }
        }
        if self.b != 0 {
            s += &format!(" + ({})N", self.b);
        }
        s
    }
}

/// One conjunction: the box, extra inequalities `aff >= 0`, and existentials
/// `c0·e0 (+ c1·e1) = aff` with `0 <= e0 <= N` (and `0 <= e1 <= E1MAX`).
#[derive(Clone, Debug)]
struct Part {
    ineqs: Vec<Aff>,
    coeffs: Vec<i64>,
    eq: Aff,
}

impl Part {
    fn holds(&self, n: i64, x: &[i64; 3]) -> bool {
        if !self.ineqs.iter().all(|a| a.eval(n, x) >= 0) {
            return false;
        }
        let rhs = self.eq.eval(n, x);
        match self.coeffs[..] {
            [c0] => rhs % c0 == 0 && (0..=n).contains(&(rhs / c0)),
            [c0, c1] => (0..=E1MAX).any(|e1| {
                let r = rhs - c1 * e1;
                r % c0 == 0 && (0..=n).contains(&(r / c0))
            }),
            _ => unreachable!(),
        }
    }

    fn text(&self) -> String {
        let mut s = format!("{LO} <= i <= N and {LO} <= j <= N and {LO} <= k <= N");
        for a in &self.ineqs {
            s += &format!(" and {} >= 0", a.text());
        }
        match self.coeffs[..] {
            [c0] => {
                s += &format!(
                    " and exists (e0 : {c0}e0 = {} and 0 <= e0 <= N)",
                    self.eq.text()
                )
            }
            [c0, c1] => {
                s += &format!(
                    " and exists (e0, e1 : {c0}e0 + {c1}e1 = {} and 0 <= e0 <= N and 0 <= e1 <= {E1MAX})",
                    self.eq.text()
                )
            }
            _ => unreachable!(),
        }
        s
    }
}

#[derive(Clone, Debug)]
struct Case {
    parts: Vec<Part>,
    /// The image map's two outputs.
    image: [Aff; 2],
}

impl Case {
    fn set_text(&self) -> String {
        let parts: Vec<String> = self
            .parts
            .iter()
            .map(|p| format!("0 <= N <= {NMAX} and {}", p.text()))
            .collect();
        format!("[N] -> {{ [i, j, k] : ({}) }}", parts.join(") or ("))
    }

    fn map_text(&self) -> String {
        format!(
            "[N] -> {{ [i, j, k] -> [{}, {}] }}",
            self.image[0].text(),
            self.image[1].text()
        )
    }

    /// The points for parameter value `n`, in lexicographic order.
    fn points(&self, n: i64) -> Vec<[i64; 3]> {
        let mut out = vec![];
        for i in LO..=n {
            for j in LO..=n {
                for k in LO..=n {
                    let x = [i, j, k];
                    if self.parts.iter().any(|p| p.holds(n, &x)) {
                        out.push(x);
                    }
                }
            }
        }
        out
    }
}

fn aff(dims: i64, par: i64, cst: i64) -> impl Strategy<Value = Aff> {
    (
        -cst..=cst,
        proptest::array::uniform3(-dims..=dims),
        -par..=par,
    )
        .prop_map(|(c, a, b)| Aff { c, a, b })
}

fn part() -> impl Strategy<Value = Part> {
    (
        proptest::collection::vec(aff(3, 2, 6), 0..=2),
        prop_oneof![
            (2i64..=5).prop_map(|c| vec![c]),
            (2i64..=5, 2i64..=7).prop_map(|(a, b)| vec![a, b])
        ],
        aff(5, 1, 8),
    )
        .prop_map(|(ineqs, coeffs, eq)| Part { ineqs, coeffs, eq })
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(part(), 1..=2),
        aff(2, 1, 3),
        aff(2, 1, 3),
    )
        .prop_map(|(parts, a, b)| Case {
            parts,
            image: [a, b],
        })
}

fn i64s(v: &[Int]) -> Vec<i64> {
    v.iter().map(|x| x.to_i64().expect("small")).collect()
}

/// The points of `s` for `N = n` (`s` has the single parameter `N`).
fn points_at(s: &Set, n: i64) -> Vec<Vec<i64>> {
    s.fix_param("N", &Int::from(n))
        .expect("N")
        .points(10_000)
        .expect("bounded")
        .iter()
        .map(|p| i64s(p))
        .collect()
}

fn reparse(s: &Set) -> Result<Set, TestCaseError> {
    let text = s.to_string();
    parse_set(&text, &[]).map_err(|e| TestCaseError::fail(format!("{text} does not parse: {e}")))
}

thread_local! {
    static SLOWEST: RefCell<(Duration, String)> = const { RefCell::new((Duration::ZERO, String::new())) };
}

fn record(took: Duration, what: String) {
    SLOWEST.with(|s| {
        let mut s = s.borrow_mut();
        if took > s.0 {
            eprintln!("slowest so far: {took:?} for {what}");
            *s = (took, what);
        }
    });
}

fn check_case(c: &Case) -> Result<(), TestCaseError> {
    let text = c.set_text();
    let set = parse_set(&text, &[]).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    let truth: Vec<Vec<[i64; 3]>> = (0..=NMAX).map(|n| c.points(n)).collect();
    // Time spent in the operations under test (not in checking their answers).
    let mut spent = Duration::ZERO;
    let trace = std::env::var_os("PIP_TRACE").is_some();
    if trace {
        eprintln!("case {text}");
    }

    // Emptiness.
    let empty = truth.iter().all(Vec::is_empty);
    let t = Instant::now();
    let got = set.is_empty();
    spent += t.elapsed();
    prop_assert_eq!(got, empty, "emptiness of {}", text);

    // Parametric lexmin and lexmax, by parametric integer programming only.
    for max in [false, true] {
        let what = if max { "lexmax" } else { "lexmin" };
        let t = Instant::now();
        let r = set.lex_opt_pip(max);
        spent += t.elapsed();
        let r = r.ok_or_else(|| TestCaseError::fail(format!("{what} gave up on {text}")))?;
        let back = reparse(&r)?;
        if trace {
            eprintln!("{what} = {r}");
        }
        for n in 0..=NMAX {
            let want: Vec<Vec<i64>> = if max {
                truth[n as usize].last()
            } else {
                truth[n as usize].first()
            }
            .map(|x| x.to_vec())
            .into_iter()
            .collect();
            if trace {
                eprintln!("N = {n}");
            }
            prop_assert_eq!(
                points_at(&r, n),
                want.clone(),
                "{} at N = {} of {}\n= {}",
                what,
                n,
                text,
                r
            );
            prop_assert_eq!(
                points_at(&back, n),
                want,
                "{} printed, at N = {} of {}\n= {}",
                what,
                n,
                text,
                r
            );
        }
    }

    if trace {
        eprintln!("image");
    }
    // Image under an affine map.
    let map = parse_map(&c.map_text(), &[]).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let t = Instant::now();
    let image = set.apply(&map);
    spent += t.elapsed();
    for n in 0..=NMAX {
        let want: BTreeSet<Vec<i64>> = truth[n as usize]
            .iter()
            .map(|x| vec![c.image[0].eval(n, x), c.image[1].eval(n, x)])
            .collect();
        let got: BTreeSet<Vec<i64>> = points_at(&image, n).into_iter().collect();
        prop_assert_eq!(
            got,
            want,
            "image at N = {} of {} under {}",
            n,
            text,
            c.map_text()
        );
    }
    record(spent, text);
    Ok(())
}

proptest! {
    #![proptest_config(cfg(48))]

    #[test]
    fn parametric_sets_with_existentials(c in case()) {
        check_case(&c)?;
    }
}

/// The examples: the two sets whose lexmin and lexmax once took from 16 s to more
/// than a minute, and the set whose parametric lexmin once panicked in the printer.
#[test]
fn known_hard_sets() {
    let sets = [
        "[N] -> { [i, j, k] : -3 <= i <= N and -3 <= j <= N and -3 <= k <= N and exists (e0, e1 : 2e0 + 7e1 = i + 5j + 5k + 6 and 0 <= e0 <= N and 0 <= e1 <= 4) }",
        "[N] -> { [i, j, k] : -3 <= i <= N and -3 <= j <= N and 0 <= k <= N and -i + 2j - 2k - 2 >= 3j - 4 and -i + 1 >= i + 5j - k + 1 and exists (e0 : j + k = 3e0 + 1) and i <= floor((0 - 2)/5) + 2 }",
    ];
    for text in sets {
        let set = parse_set(text, &[]).unwrap();
        for max in [false, true] {
            let r = set.lex_opt_pip(max).expect("solved");
            let back = parse_set(&r.to_string(), &[]).unwrap();
            for n in 0..=6 {
                let fixed = set.fix_param("N", &Int::from(n)).unwrap();
                let pts = fixed.points(100_000).unwrap();
                let want: Vec<Vec<Int>> = if max { pts.last() } else { pts.first() }
                    .cloned()
                    .into_iter()
                    .collect();
                for s in [&r, &back] {
                    let got = s.fix_param("N", &Int::from(n)).unwrap().points(10).unwrap();
                    assert_eq!(got, want, "N = {n}, max = {max}: {text}\n= {r}");
                }
            }
        }
    }
}
