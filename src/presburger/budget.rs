//! A work budget for the integer core.
//!
//! Exact integer reasoning is exponential in the worst case (splinters, unions of parts that
//! multiply). So that a caller always gets an answer or a refusal in bounded time and memory,
//! the core counts elementary steps — rows combined by Fourier–Motzkin, Omega problems
//! entered (each splinter or enumerated value is one), parts produced by exact projection and
//! difference — and gives up once a budget is spent.
//!
//! The budget is a scope: [`with_budget`] runs a closure with a limit on the current thread
//! and returns `Err(Exhausted)` when the closure used more. Outside any scope [`tick`] only
//! counts nothing and the core runs unbounded, as before.
//!
//! Exhaustion is a value, as with isl's `max_operations` (where an operation past the limit
//! returns an error that every caller passes on). [`tick`] returns `Err(Exhausted)` once the
//! budget is spent; the core's step functions return [`Budgeted`] and pass the error up with
//! `?`, and [`operation`] adds the name of each operation it passes through and the set the
//! innermost one was working on, for the error message. Nothing unwinds.
//!
//! The public set and map operations keep their plain answers (an emptiness test is a
//! `bool`; there are hundreds of such calls above the core). Each one is a thin wrapper over
//! a `try_` form that returns [`Budgeted`]: the wrapper hands the error to [`settle`], which
//! records it in the scope, and answers a placeholder (an empty set, "empty", no point).
//! A scope that ran out stays spent: every later [`tick`] in it fails at once, so every
//! later operation in it returns its placeholder without working, and [`with_budget`]
//! returns the recorded error whatever the closure computed. So a placeholder never leaves
//! the scope as an answer. Code above the core that acts on answers inside a scope (prints,
//! writes files, compiles) or loops until an answer changes asks [`check`] (or [`spent`])
//! first; a caller that wants the error itself calls the `try_` form.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The default budget in elementary steps: far above what any example needs (the largest,
/// `loopy apply` of `cholesky`, uses under 50 000; see docs/calc.md), small enough that a
/// runaway problem is refused within about twenty seconds (some 3 million steps a second).
pub const DEFAULT: u64 = 50_000_000;

/// Longest set description kept in an [`Exhausted`] error, in characters.
const MAX_DESCRIPTION: usize = 400;

/// The budget ran out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exhausted {
    /// The budget, in steps.
    pub limit: u64,
    /// The innermost named operation that was running (`"emptiness test"`, `"lexmin"`, ...),
    /// if any.
    pub operation: Option<&'static str>,
    /// The set or map that operation was working on, in isl notation (truncated when long).
    pub subject: Option<String>,
    /// Enclosing named operations, innermost first.
    pub within: Vec<&'static str>,
    /// The work was stopped from outside ([`with_cancel`]) rather than running out.
    pub cancelled: bool,
}

impl std::fmt::Display for Exhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.cancelled {
            f.write_str("cancelled")?;
        } else {
            write!(f, "work budget of {} steps exhausted", self.limit)?;
        }
        if let Some(op) = self.operation {
            write!(f, " in {op}")?;
        }
        let mut within: Vec<&str> = Vec::new();
        for w in &self.within {
            if Some(*w) != self.operation && !within.contains(w) {
                within.push(w);
            }
        }
        if !within.is_empty() {
            write!(f, " (within {})", within.join(", within "))?;
        }
        if let Some(s) = &self.subject {
            write!(f, " of {s}")?;
        }
        Ok(())
    }
}

/// The answer of a step of the core, or the refusal of a spent budget.
pub type Budgeted<T> = Result<T, Exhausted>;

struct State {
    /// Steps left in the current scope; `None` outside any scope.
    left: Cell<Option<u64>>,
    limit: Cell<u64>,
    /// Steps counted so far in the current scope (for [`with_budget_counted`]).
    used: Cell<u64>,
    /// Nesting of [`suspend`]: no counting while positive.
    suspended: Cell<u32>,
    /// Set from another thread to stop the work at the next step ([`with_cancel`]).
    cancel: RefCell<Option<Arc<AtomicBool>>>,
    /// The refusal of the current scope once its budget ran out (or it was cancelled):
    /// every later step fails, and [`with_budget`] returns it.
    spent: RefCell<Option<Exhausted>>,
    /// Whether `spent` names its operation yet (set by the first [`settle`]).
    described: Cell<bool>,
}

thread_local! {
    static STATE: State = const {
        State {
            left: Cell::new(None),
            limit: Cell::new(0),
            used: Cell::new(0),
            suspended: Cell::new(0),
            cancel: RefCell::new(None),
            spent: RefCell::new(None),
            described: Cell::new(false),
        }
    };
}

/// Counts `n` elementary steps; past the budget of the enclosing [`with_budget`] (or once
/// the work is cancelled), returns `Err`, and so does every later step in that scope.
/// Always `Ok` outside a scope.
#[inline]
pub fn tick(n: u64) -> Budgeted<()> {
    STATE.with(|s| {
        let Some(left) = s.left.get() else {
            return Ok(());
        };
        if s.suspended.get() > 0 {
            return Ok(());
        }
        s.used.set(s.used.get().saturating_add(n));
        if let Some(e) = s.spent.borrow().as_ref() {
            return Err(bare(e.limit, e.cancelled));
        }
        let cancelled = s
            .cancel
            .borrow()
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed));
        if cancelled || left < n {
            s.left.set(Some(0));
            let e = bare(s.limit.get(), cancelled);
            *s.spent.borrow_mut() = Some(e.clone());
            return Err(e);
        }
        s.left.set(Some(left - n));
        Ok(())
    })
}

/// An [`Exhausted`] that names no operation yet.
fn bare(limit: u64, cancelled: bool) -> Exhausted {
    Exhausted {
        limit,
        operation: None,
        subject: None,
        within: Vec::new(),
        cancelled,
    }
}

/// Whether a budget scope is active on this thread.
pub fn active() -> bool {
    STATE.with(|s| s.left.get().is_some())
}

/// Whether the current scope ran out (or was cancelled): from then on every operation of
/// the core answers its placeholder, and the scope's result is an error. `false` outside a
/// scope and while [`suspend`]ed.
pub fn spent() -> bool {
    STATE.with(|s| s.suspended.get() == 0 && s.spent.borrow().is_some())
}

/// The report for an exhausted work budget (without source labels; `calc` adds its
/// argument), or for work cancelled from outside.
pub fn diagnostic(e: &Exhausted) -> crate::diag::Diagnostic {
    use crate::diag::{codes, Diagnostic};
    if e.cancelled {
        return Diagnostic::new(codes::BUDGET_EXHAUSTED, "the work was cancelled");
    }
    Diagnostic::new(
        codes::BUDGET_EXHAUSTED,
        format!("the integer core gave up: {e}"),
    )
    .with_help(format!(
        "this problem needs more work than allowed; raise the budget with `--budget N` or \
         `LOOPY_BUDGET=N` (now {}), or simplify the set",
        e.limit
    ))
}

/// The steps left in the current scope (`None` outside any): work handed to another
/// thread runs there under a scope of that many ([`with_budget_counted`]), and what it used
/// is charged here with [`tick`] when it is back.
pub fn left() -> Option<u64> {
    STATE.with(|s| s.left.get())
}

/// The limit of the current scope (`None` outside any), for a refusal made on its behalf.
pub fn limit() -> Option<u64> {
    STATE.with(|s| s.left.get().map(|_| s.limit.get()))
}

/// `Err` with the current scope's refusal once it ran out (see [`spent`]). Code above the
/// core asks this before it acts on answers it got inside a scope, and in loops that run
/// until an answer changes.
pub fn check() -> Budgeted<()> {
    STATE.with(|s| match s.spent.borrow().as_ref() {
        Some(e) if s.suspended.get() == 0 => Err(e.clone()),
        _ => Ok(()),
    })
}

/// The plain answer of a public operation: `f`'s answer, or, when the budget ran out (now
/// or earlier in the scope), `placeholder`'s, the refusal being recorded for the enclosing
/// [`with_budget`] (the first refusal that names its operation is the one reported).
pub fn settle<T>(f: impl FnOnce() -> Budgeted<T>, placeholder: impl FnOnce() -> T) -> T {
    if spent() {
        return placeholder();
    }
    match f() {
        Ok(v) => v,
        Err(e) => {
            STATE.with(|s| {
                if s.left.get().is_some() && !s.described.get() {
                    *s.spent.borrow_mut() = Some(e);
                    s.described.set(true);
                }
            });
            placeholder()
        }
    }
}

/// Runs `f` with at most `limit` steps. Scopes nest: an inner scope has its own limit, and
/// the steps it uses are charged to the outer one when it ends. Once the budget ran out
/// inside, the result is `Err` whatever `f` returned.
pub fn with_budget<T>(limit: u64, f: impl FnOnce() -> T) -> Result<T, Exhausted> {
    with_budget_counted(limit, f).map(|(v, _)| v)
}

/// The state of the enclosing scope, put back when a scope ends (also when a panic passes
/// through, so that the thread's budget is never left half set).
struct Saved {
    left: Option<u64>,
    limit: u64,
    used: u64,
    suspended: u32,
    spent: Option<Exhausted>,
    described: bool,
}

impl Drop for Saved {
    fn drop(&mut self) {
        STATE.with(|s| {
            s.left.set(self.left);
            s.limit.set(self.limit);
            s.used.set(self.used);
            s.suspended.set(self.suspended);
            *s.spent.borrow_mut() = self.spent.take();
            s.described.set(self.described);
        });
    }
}

/// [`with_budget`], also returning the steps used.
pub fn with_budget_counted<T>(limit: u64, f: impl FnOnce() -> T) -> Result<(T, u64), Exhausted> {
    // Work inside a scope that ran out is refused at once, an inner scope's too.
    check()?;
    let saved = STATE.with(|s| {
        let saved = Saved {
            left: s.left.get(),
            limit: s.limit.get(),
            used: s.used.get(),
            suspended: s.suspended.get(),
            spent: s.spent.borrow_mut().take(),
            described: s.described.get(),
        };
        s.left.set(Some(limit));
        s.limit.set(limit);
        s.used.set(0);
        s.suspended.set(0);
        s.described.set(false);
        saved
    });
    let v = f();
    let (used, spent) = STATE.with(|s| (s.used.get(), s.spent.borrow_mut().take()));
    let outer = saved.left.is_some();
    drop(saved);
    // The outer scope pays for what the inner one did (and is spent if that is too much).
    if outer {
        let _ = tick(used);
    }
    match spent {
        None => Ok((v, used)),
        Some(e) => Err(e),
    }
}

/// Runs `f` so that setting `flag` (from any thread) stops its work at the next step of the
/// integer core, as if the budget had run out; the error then says `cancelled`. Only work
/// inside a budget scope ([`with_budget`]) is stopped. Scopes of this kind do not nest: the
/// innermost flag is the one watched.
pub fn with_cancel<T>(flag: Arc<AtomicBool>, f: impl FnOnce() -> T) -> T {
    struct Guard(Option<Arc<AtomicBool>>);
    impl Drop for Guard {
        fn drop(&mut self) {
            let old = self.0.take();
            STATE.with(|s| *s.cancel.borrow_mut() = old);
        }
    }
    let old = STATE.with(|s| s.cancel.borrow_mut().replace(flag));
    let _g = Guard(old);
    f()
}

/// Runs `f` without counting (describing a set for an error message, for instance).
pub fn suspend<T>(f: impl FnOnce() -> T) -> T {
    struct Guard;
    impl Drop for Guard {
        fn drop(&mut self) {
            STATE.with(|s| s.suspended.set(s.suspended.get() - 1));
        }
    }
    STATE.with(|s| s.suspended.set(s.suspended.get() + 1));
    let _g = Guard;
    f()
}

/// Runs the core operation `name` on the object `describe` prints; if the budget runs out
/// inside, the error names it (the innermost named operation and its object; enclosing ones
/// are listed as context). Costs nothing outside a budget scope.
pub fn operation<T>(
    name: &'static str,
    describe: impl FnOnce() -> String,
    f: impl FnOnce() -> Budgeted<T>,
) -> Budgeted<T> {
    if !active() {
        return f();
    }
    f().map_err(|mut e| {
        if e.operation.is_none() {
            e.operation = Some(name);
            // A cancelled run wants to stop now: describing a large set can take longer
            // than the work it interrupted.
            if !e.cancelled {
                e.subject = Some(truncate(suspend(describe)));
            }
        } else {
            e.within.push(name);
        }
        e
    })
}

fn truncate(s: String) -> String {
    if s.chars().count() <= MAX_DESCRIPTION {
        return s;
    }
    let cut: String = s.chars().take(MAX_DESCRIPTION).collect();
    format!("{cut} … ({} characters in all)", s.chars().count())
}

/// The budget from the environment variable `LOOPY_BUDGET` if set, else [`DEFAULT`].
/// Returns an error message for a value that is not a positive integer.
pub fn from_env() -> Result<u64, String> {
    match std::env::var("LOOPY_BUDGET") {
        Ok(v) => parse_limit(&v).map_err(|e| format!("LOOPY_BUDGET: {e}")),
        Err(_) => Ok(DEFAULT),
    }
}

/// Parses a budget given by the user: a positive integer (underscores allowed).
pub fn parse_limit(text: &str) -> Result<u64, String> {
    let t: String = text.trim().chars().filter(|c| *c != '_').collect();
    match t.parse::<u64>() {
        Ok(0) => Err("the budget must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a number of steps")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unbounded_outside_a_scope() {
        for _ in 0..1000 {
            tick(1_000_000).unwrap();
        }
        assert!(!active());
    }

    #[test]
    fn exhaustion_is_an_error_and_names_the_operation() {
        let r = with_budget(10, || {
            let inner = || -> Budgeted<()> {
                for _ in 0..100 {
                    tick(1)?;
                }
                Ok(())
            };
            let run = || {
                operation(
                    "outer",
                    || "A".into(),
                    || operation("inner", || "B".into(), inner),
                )
            };
            settle(run, || ())
        });
        let e = r.unwrap_err();
        assert_eq!(e.operation, Some("inner"));
        assert_eq!(e.subject.as_deref(), Some("B"));
        assert_eq!(e.within, vec!["outer"]);
        assert_eq!(
            e.to_string(),
            "work budget of 10 steps exhausted in inner (within outer) of B"
        );
        assert!(!active());
    }

    #[test]
    fn within_budget_counts_and_nests() {
        let (v, used) = with_budget_counted(100, || {
            tick(5).unwrap();
            let inner = with_budget(3, || tick(5));
            assert!(inner.is_err());
            tick(2).unwrap();
            7
        })
        .unwrap();
        assert_eq!(v, 7);
        assert_eq!(used, 12);
    }

    #[test]
    fn a_spent_scope_stays_spent_and_answers_placeholders() {
        let r = with_budget(10, || {
            settle(|| operation("first", || "A".into(), || tick(100)), || ());
            assert!(spent());
            // Later work is refused at once; the error reported is the first one.
            assert!(tick(0).is_err());
            let later = settle(|| Ok(1), || 0);
            assert_eq!(later, 0);
            assert!(check().is_err());
        });
        let e = r.unwrap_err();
        assert_eq!(e.operation, Some("first"));
        assert!(!spent());
        assert!(check().is_ok());
    }

    #[test]
    fn an_inner_scope_that_runs_out_leaves_the_outer_one_working() {
        let r = with_budget(1_000, || {
            assert!(with_budget(3, || tick(5)).is_err());
            assert!(!spent());
            tick(1)
        });
        assert_eq!(r, Ok(Ok(())));
    }

    #[test]
    fn cancelling_stops_the_work_as_a_refusal() {
        let flag = Arc::new(AtomicBool::new(false));
        let f2 = flag.clone();
        let r = with_cancel(flag, || {
            with_budget(1_000_000, || {
                for k in 0..1000 {
                    if k == 10 {
                        f2.store(true, Ordering::Relaxed);
                    }
                    let _ = tick(1);
                }
            })
        });
        let e = r.unwrap_err();
        assert!(e.cancelled);
        assert!(e.to_string().starts_with("cancelled"), "{e}");
        // Without the flag the same work completes.
        let ok = with_cancel(Arc::new(AtomicBool::new(false)), || {
            with_budget(1_000_000, || (0..1000).try_for_each(|_| tick(1)))
        });
        assert!(ok.is_ok());
    }

    #[test]
    fn limits_parse() {
        assert_eq!(parse_limit("1_000"), Ok(1000));
        assert!(parse_limit("0").is_err());
        assert!(parse_limit("lots").is_err());
    }
}
