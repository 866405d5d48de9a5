//! The work budget: problems known to blow up are refused quickly with an error naming the
//! operation and the set, never answered by a guess; ordinary problems are unaffected.

use loopy::presburger::budget::{self, with_budget, with_budget_counted};
use loopy::presburger::omega;
use loopy::presburger::row::Problem;
use loopy::presburger::{parse_set, Int};
use std::time::Instant;

fn ints(v: &[i64]) -> Vec<Int> {
    v.iter().map(|&x| Int::from(x)).collect()
}

/// A 9-row, 8-variable Omega problem whose Fourier–Motzkin elimination used to blow up
/// (seconds without a budget); with implied rows dropped it takes some 12 000 steps.
fn blowup() -> Problem {
    let rows: [[i64; 9]; 9] = [
        [2, -3, -2, 2, 0, 0, 3, 0, 1],
        [2, -3, 0, 0, -2, 2, 0, 3, 1],
        [0, -1, -2, 1, 0, 0, -2, 0, -1],
        [0, -1, 0, 0, -2, 1, 0, -2, -1],
        [-1, 0, -1, 0, 1, 0, 0, 0, 0],
        [3, 0, 0, 0, 0, 0, 0, 0, -1],
        [3, 0, 3, 1, 0, 0, 0, 0, 1],
        [-3, 2, 0, 0, 1, -3, 0, 0, 1],
        [-3, 2, 1, -3, 0, 0, 0, 0, 1],
    ];
    Problem::new(8, vec![], rows.iter().map(|r| ints(r)).collect())
}

#[test]
fn omega_blowup_hits_the_budget() {
    let p = blowup();
    let start = Instant::now();
    // It needs some 12 000 steps; 2 000 do not decide it.
    let r = with_budget(2_000, || omega::solve(&p));
    let e = r.expect_err("a small budget cannot decide this problem");
    assert_eq!(e.limit, 2_000);
    // Well under the seconds the unbounded search takes (loose: the machine is shared).
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    assert!(!budget::active());
}

#[test]
fn exhaustion_names_the_operation_and_the_set() {
    let s = parse_set(
        "{ [i, j, k, l] : exists (e0, e1 : 2e0 + 7e1 = i + 5j + 5k + 6 and 0 <= e0 <= 100 \
         and 0 <= e1 <= 4) and 0 <= i <= 50 and 0 <= j <= 50 and 0 <= k <= 50 and 0 <= l <= 3 }",
        &[],
    )
    .unwrap();
    let e = with_budget(50, || s.lexmax()).expect_err("50 steps are not enough");
    let text = e.to_string();
    assert!(
        text.starts_with("work budget of 50 steps exhausted in "),
        "{text}"
    );
    assert!(e.operation.is_some(), "{text}");
    assert!(
        e.subject.as_deref().is_some_and(|s| s.contains('[')),
        "{text}"
    );
}

#[test]
fn answers_within_the_budget_are_the_unbounded_answers() {
    let s = parse_set(
        "[N] -> { [i, j] : 0 <= i <= N and 0 <= j <= i and exists (e : 2e = i + j) }",
        &[],
    )
    .unwrap();
    let free = s.lexmin().unwrap();
    let (bounded, used) = with_budget_counted(budget::DEFAULT, || s.lexmin().unwrap()).unwrap();
    assert!(used > 0);
    assert!(bounded.is_equal(&free));
}

#[test]
fn a_long_set_is_truncated_in_the_message() {
    let conj: Vec<String> = (0..200).map(|k| format!("i + {k} j >= -{k}")).collect();
    let text = format!("{{ [i, j] : {} }}", conj.join(" and "));
    let s = parse_set(&text, &[]).unwrap();
    let e = with_budget(1, || s.simplify()).expect_err("one step");
    let subject = e.subject.unwrap();
    assert!(subject.contains("characters in all"), "{subject}");
    assert!(subject.chars().count() < 500);
}

/// A parametric lexmax with three existentials with non-unit coefficients: the core does not
/// answer it under the default budget (projecting the existentials out multiplies the
/// parts), so it is the runaway problem a user can meet.
const RUNAWAY: &str = "[N] -> { [i, j, k] : exists (e0, e1, e2 : 17e0 + 23e1 + 29e2 = 3i + 5j \
                       + 13k + 6 and 0 <= e0 <= N and 0 <= e1 <= N and 0 <= e2 <= N) and \
                       0 <= i <= N and 0 <= j <= N and 0 <= k <= N }";

#[test]
fn a_runaway_problem_is_refused() {
    let s = parse_set(RUNAWAY, &[]).unwrap();
    let e = with_budget(200_000, || s.lexmax()).expect_err("200 000 steps do not decide it");
    assert_eq!(e.limit, 200_000);
    assert!(e.to_string().contains("exhausted in "), "{e}");
    assert!(!budget::active());
}

/// The time a refusal under the default budget takes on the runaway problem, and steps per
/// second (run with `--ignored --nocapture` in a release build to see).
#[test]
#[ignore = "measurement, not a test"]
fn steps_per_second() {
    let s = parse_set(RUNAWAY, &[]).unwrap();
    let limit = budget::DEFAULT;
    let start = Instant::now();
    let r = with_budget(limit, || s.lexmax());
    assert!(r.is_err());
    let t = start.elapsed().as_secs_f64();
    println!(
        "refused after the default budget of {limit} steps in {t:.2} s: {:.0} steps/s",
        limit as f64 / t
    );
}

/// A panic that is not the budget's passes through a scope untouched, and the scope's state
/// is put back on the way (the thread is not left with a budget).
#[test]
fn other_panics_pass_through() {
    let r = std::panic::catch_unwind(|| with_budget(10, || panic!("boom")));
    assert!(r.is_err());
    assert!(!budget::active());
}
