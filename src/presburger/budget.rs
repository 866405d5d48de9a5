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
//! Exhaustion is signalled by unwinding with a private payload (`resume_unwind`, so no panic
//! message is printed) and caught by the enclosing [`with_budget`]; no other code catches it,
//! and every other panic passes through untouched. This keeps the core's signatures free of
//! a `Result` on every emptiness test. The core holds no shared mutable state, so nothing is
//! left half-updated by the unwinding: all values built inside the scope are dropped. Public
//! operations wrap their work in [`operation`], which names the innermost operation that ran
//! out and the set it was working on, for the error message.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
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

/// The unwinding payload; private so that only [`with_budget`] can catch it.
struct Unwind(Exhausted);

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
}

thread_local! {
    static STATE: State = const {
        State {
            left: Cell::new(None),
            limit: Cell::new(0),
            used: Cell::new(0),
            suspended: Cell::new(0),
            cancel: RefCell::new(None),
        }
    };
}

/// Counts `n` elementary steps; past the budget of the enclosing [`with_budget`], abandons
/// the computation. Does nothing outside a scope.
#[inline]
pub fn tick(n: u64) {
    STATE.with(|s| {
        let Some(left) = s.left.get() else {
            return;
        };
        if s.suspended.get() > 0 {
            return;
        }
        s.used.set(s.used.get().saturating_add(n));
        let cancelled = s
            .cancel
            .borrow()
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed));
        if cancelled {
            s.left.set(Some(0));
            resume_unwind(Box::new(Unwind(Exhausted {
                limit: s.limit.get(),
                operation: None,
                subject: None,
                within: Vec::new(),
                cancelled: true,
            })));
        }
        if left >= n {
            s.left.set(Some(left - n));
        } else {
            s.left.set(Some(0));
            let limit = s.limit.get();
            resume_unwind(Box::new(Unwind(Exhausted {
                limit,
                operation: None,
                subject: None,
                within: Vec::new(),
                cancelled: false,
            })));
        }
    })
}

/// Whether a budget scope is active on this thread.
pub fn active() -> bool {
    STATE.with(|s| s.left.get().is_some())
}

/// Runs `f` with at most `limit` steps. Scopes nest: an inner scope has its own limit, and
/// the steps it uses are charged to the outer one when it ends.
pub fn with_budget<T>(limit: u64, f: impl FnOnce() -> T) -> Result<T, Exhausted> {
    with_budget_counted(limit, f).map(|(v, _)| v)
}

/// [`with_budget`], also returning the steps used.
pub fn with_budget_counted<T>(limit: u64, f: impl FnOnce() -> T) -> Result<(T, u64), Exhausted> {
    let saved = STATE.with(|s| {
        let saved = (s.left.get(), s.limit.get(), s.used.get(), s.suspended.get());
        s.left.set(Some(limit));
        s.limit.set(limit);
        s.used.set(0);
        s.suspended.set(0);
        saved
    });
    let result = catch_unwind(AssertUnwindSafe(f));
    let used = STATE.with(|s| {
        let used = s.used.get();
        s.left.set(saved.0);
        s.limit.set(saved.1);
        s.used.set(saved.2);
        s.suspended.set(saved.3);
        used
    });
    match result {
        Ok(v) => {
            // The outer scope pays for what the inner one did.
            if saved.0.is_some() {
                tick(used);
            }
            Ok((v, used))
        }
        Err(payload) => match payload.downcast::<Unwind>() {
            Ok(u) => {
                let Unwind(e) = *u;
                if saved.0.is_some() {
                    tick(used);
                }
                Err(e)
            }
            Err(other) => resume_unwind(other),
        },
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
    f: impl FnOnce() -> T,
) -> T {
    if !active() {
        return f();
    }
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(payload) => match payload.downcast::<Unwind>() {
            Ok(u) => {
                let Unwind(mut e) = *u;
                if e.operation.is_none() {
                    e.operation = Some(name);
                    // A cancelled run wants to stop now: describing a large set can take
                    // longer than the work it interrupted.
                    if !e.cancelled {
                        let text = suspend(|| catch_unwind(AssertUnwindSafe(describe)));
                        e.subject = text.ok().map(truncate);
                    }
                } else {
                    e.within.push(name);
                }
                resume_unwind(Box::new(Unwind(e)))
            }
            Err(other) => resume_unwind(other),
        },
    }
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
            tick(1_000_000);
        }
        assert!(!active());
    }

    #[test]
    fn exhaustion_is_an_error_and_names_the_operation() {
        let r = with_budget(10, || {
            operation(
                "outer",
                || "A".into(),
                || {
                    operation(
                        "inner",
                        || "B".into(),
                        || {
                            for _ in 0..100 {
                                tick(1);
                            }
                        },
                    )
                },
            )
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
            tick(5);
            let inner = with_budget(3, || tick(5));
            assert!(inner.is_err());
            tick(2);
            7
        })
        .unwrap();
        assert_eq!(v, 7);
        assert_eq!(used, 12);
    }

    #[test]
    fn other_panics_pass_through() {
        let r = std::panic::catch_unwind(|| with_budget(10, || panic!("boom")));
        assert!(r.is_err());
        assert!(!active());
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
                    tick(1);
                }
            })
        });
        let e = r.unwrap_err();
        assert!(e.cancelled);
        assert!(e.to_string().starts_with("cancelled"), "{e}");
        // Without the flag the same work completes.
        let ok = with_cancel(Arc::new(AtomicBool::new(false)), || {
            with_budget(1_000_000, || (0..1000).for_each(|_| tick(1)))
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
