//! The registry of diagnostic codes: every diagnostic loopy prints carries one of these.
//!
//! A code is `L` and four digits; the first two digits are its family:
//!
//! | family | what |
//! | --- | --- |
//! | L00xx | internal errors (a bug in loopy) |
//! | L01xx | C input and its modelling |
//! | L02xx | script syntax (and the set notation inside scripts and `calc`) |
//! | L03xx | script interpretation: unknown names, arguments, refused steps |
//! | L04xx | illegal schedules: the verifier's verdicts, one code per kind of violation |
//! | L05xx | code generation refusals |
//! | L06xx | files, usage, the command line, manifests |
//! | L07xx | compiling, running and timing programs |
//! | L08xx | equivalence of two programs (`loopy equiv`) |
//! | L09xx | the work budget |
//!
//! Codes are stable: a code is never reused for a different problem, and a retired code
//! stays reserved. Each has a long explanation (`loopy explain CODE`) in
//! `src/diag/explain/CODE.md`.

use serde::Serialize;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    /// The lower-case word (`error`, `warning`, `note`).
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// What the registry knows of one code.
#[derive(Debug, PartialEq, Eq)]
pub struct CodeInfo {
    /// `L` and four digits.
    pub id: &'static str,
    /// A short kebab-case name (`dependence-not-preserved`).
    pub name: &'static str,
    /// One line saying what the code is about.
    pub title: &'static str,
    /// The severity a diagnostic of this code has unless it says otherwise.
    pub severity: Severity,
    /// Several paragraphs: what it means, a small wrong example, how to fix it.
    pub explanation: &'static str,
    /// The name of the constant in this module (for the source scan of the tests).
    pub constant: &'static str,
}

/// A diagnostic code. Only this module makes them, so every code in use is registered. It
/// is the code's number (`L0401` is 401), which keeps a [`super::Diagnostic`] small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code(u16);

impl Code {
    pub fn id(self) -> &'static str {
        self.info().id
    }
    pub fn name(self) -> &'static str {
        self.info().name
    }
    pub fn title(self) -> &'static str {
        self.info().title
    }
    pub fn severity(self) -> Severity {
        self.info().severity
    }
    pub fn explanation(self) -> &'static str {
        self.info().explanation
    }
    pub fn info(self) -> &'static CodeInfo {
        let i = INFOS
            .binary_search_by_key(&self.0, |c| number(c.id))
            .expect("a code is made only from a registered entry");
        &INFOS[i]
    }
}

/// The number of a well-formed id (`L0401` → 401); a malformed one does not compile.
const fn number(id: &str) -> u16 {
    let b = id.as_bytes();
    assert!(
        b.len() == 5 && b[0] == b'L',
        "a code is `L` and four digits"
    );
    let mut n = 0u16;
    let mut i = 1;
    while i < 5 {
        assert!(b[i].is_ascii_digit(), "a code is `L` and four digits");
        n = n * 10 + (b[i] - b'0') as u16;
        i += 1;
    }
    n
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// The code of this id (`L0401`; lower case `l0401` is accepted too).
pub fn lookup(id: &str) -> Option<Code> {
    ALL.iter()
        .copied()
        .find(|c| c.id().eq_ignore_ascii_case(id.trim()))
}

macro_rules! codes {
    ($($konst:ident = $id:literal, $name:literal, $sev:ident, $title:literal;)*) => {
        $(
            #[doc = $title]
            pub const $konst: Code = Code(number($id));
        )*
        /// Every code, in order.
        pub const ALL: &[Code] = &[$($konst),*];
        /// What the registry knows of each code, in order of the codes.
        static INFOS: &[CodeInfo] = &[$(
            CodeInfo {
                id: $id,
                name: $name,
                title: $title,
                severity: Severity::$sev,
                explanation: include_str!(concat!("explain/", $id, ".md")),
                constant: stringify!($konst),
            }
        ),*];
    };
}

codes! {
    INTERNAL = "L0001", "internal-error", Error,
        "an internal error in loopy (a bug)";

    C_SYNTAX = "L0101", "c-syntax-error", Error,
        "the C file does not parse";
    PREPROCESSOR_FAILED = "L0102", "preprocessor-failed", Error,
        "the C preprocessor failed or could not be run";
    SCOP_MALFORMED = "L0103", "scop-region-malformed", Error,
        "a `#pragma scop` region is not well formed";
    REGION_NOT_FOUND = "L0104", "region-not-found", Error,
        "no region to model: no `#pragma scop`, no such function, or an ambiguous choice";
    UNSUPPORTED_C = "L0105", "unsupported-c", Error,
        "the region uses C that loopy does not model";
    DUPLICATE_TAG = "L0106", "duplicate-tag", Error,
        "two statements of the region carry the same tag";
    COUNTER_ESCAPES = "L0107", "loop-counter-escapes", Error,
        "a loop counter is used outside the loops that count with it";

    SCRIPT_SYNTAX = "L0201", "script-syntax-error", Error,
        "the script does not parse";
    BAD_RANGE = "L0202", "bad-range", Error,
        "a range of values in a script is empty or has a step that is not positive";
    SET_SYNTAX = "L0203", "set-notation-error", Error,
        "a set or map in isl notation does not parse or is not affine";

    UNKNOWN_TAG = "L0301", "unknown-tag", Error,
        "a script names a tag or handle that does not exist";
    UNKNOWN_OPERATION = "L0302", "unknown-operation", Error,
        "a script calls an operation or procedure that does not exist";
    WRONG_ARITY = "L0303", "wrong-arity", Error,
        "an operation is given the wrong number of arguments";
    WRONG_ARGUMENT_TYPE = "L0304", "wrong-argument-type", Error,
        "an argument is of the wrong kind (an integer where a list is expected, ...)";
    NO_SUCH_LOOP = "L0305", "no-such-loop", Error,
        "a loop number is out of range for the statements named";
    INVALID_ARGUMENT = "L0306", "invalid-argument", Error,
        "an argument has a value the operation cannot take";
    MAP_NOT_SCHEDULE = "L0307", "map-not-schedule", Error,
        "a map given as a schedule change is not a function of the right shape";
    STRUCTURE_REFUSED = "L0308", "step-refused", Error,
        "a step would break the loop structure it acts on";
    MARKED_LOOP = "L0309", "marked-loop", Error,
        "a step conflicts with a mark (parallel, vectorize, unroll) or a copy already placed";
    UNKNOWN_VARIABLE = "L0310", "unknown-variable", Error,
        "a script names an array or variable that the region does not have";
    STORAGE_REFUSED = "L0311", "storage-step-refused", Error,
        "a `copy`, `expand` or `contract` step cannot be applied as written";
    SCRIPT_PARAMETER = "L0312", "script-parameter", Error,
        "a script parameter is undeclared, declared twice, or has no value";
    PROCEDURE = "L0313", "procedure-or-import", Error,
        "a procedure definition, call or import is wrong";
    NAME_TAKEN = "L0314", "name-taken", Error,
        "an assignment gives a handle a name that is taken, or the wrong number of names";
    EMPTY_SELECTION = "L0315", "empty-selection", Error,
        "a selection of statement instances covers no statement";

    DEPENDENCE_VIOLATED = "L0401", "dependence-not-preserved", Error,
        "illegal transformation: a dependence is not preserved";
    NOT_ONE_TO_ONE = "L0402", "schedule-not-one-to-one", Error,
        "illegal transformation: two statement instances run at the same time";
    ILLEGAL_MARK = "L0403", "illegal-loop-mark", Error,
        "illegal `parallel`, `vectorize` or reduction mark: iterations of the loop conflict";
    ILLEGAL_COPY = "L0404", "illegal-copy", Error,
        "illegal `copy`: the array is accessed between the buffer's fill and write-back";
    ILLEGAL_CONTRACTION = "L0405", "illegal-contraction", Error,
        "illegal `contract`: a value is overwritten in the smaller storage before it is read";
    SCRIPT_ILLEGAL = "L0406", "script-illegal", Error,
        "the script is illegal, so nothing was written or run";

    ITERATOR_NOT_DETERMINED = "L0501", "iterator-not-determined", Error,
        "cannot generate code: a statement's iterator has no expression in the loop counters";
    CONSTANT_TOO_LARGE = "L0502", "constant-too-large", Error,
        "cannot generate code: a loop bound does not fit the type `int`";
    MARK_NOT_GENERATED = "L0503", "mark-not-generated", Error,
        "cannot generate code for a loop mark as placed";
    OVERLAP_TEST = "L0504", "overlap-test-impossible", Error,
        "cannot generate the run-time test that two arrays do not overlap";
    STORAGE_NOT_GENERATED = "L0505", "storage-not-generated", Error,
        "cannot generate code for a copy or an expanded storage";
    DECLARATION_NOT_PLACED = "L0506", "declaration-not-placed", Error,
        "cannot generate code: a variable declared inside the region cannot be placed";
    REGISTER_BLOCK_NOT_FORMED = "L0507", "register-block-not-formed", Warning,
        "a copy small enough for registers stays a buffer in memory";

    CANNOT_READ = "L0601", "cannot-read", Error,
        "a file cannot be read (or is not UTF-8 text)";
    CANNOT_WRITE = "L0602", "cannot-write", Error,
        "a file cannot be written";
    INVALID_OPTION = "L0603", "invalid-option", Error,
        "a command-line option has an invalid value or lacks what it needs";
    MANIFEST = "L0604", "manifest-error", Error,
        "a manifest (`loopy.toml`) is malformed";
    CALC_REFUSED = "L0605", "calc-refused", Error,
        "`loopy calc` cannot answer for these arguments";
    TUNE_SPEC = "L0606", "tune-spec", Error,
        "the values to tune are given wrongly";
    TERMINAL = "L0607", "terminal-error", Error,
        "the terminal or standard input failed";
    UNKNOWN_CODE = "L0608", "unknown-code", Error,
        "`loopy explain` was given a code that does not exist";
    DRAW_REFUSED = "L0609", "nothing-to-draw", Error,
        "`loopy draw` has nothing it can draw for these arguments";
    LSP_CONNECTION = "L0610", "language-server-connection", Error,
        "the language server's connection to the editor failed";
    KERNEL_NOT_LOCATED = "L0611", "kernel-not-located", Warning,
        "the language server found no kernel for a script";
    REPL_COMMAND = "L0612", "repl-command", Error,
        "a command of the interactive session is unknown or misused";

    COMPILER_UNAVAILABLE = "L0701", "compiler-unavailable", Error,
        "the C compiler cannot be run";
    COMPILE_FAILED = "L0702", "compile-failed", Error,
        "the C compiler rejected a program";
    RUN_FAILED = "L0703", "run-failed", Error,
        "a compiled program could not be run or failed";
    TIMING_FAILED = "L0704", "timing-failed", Error,
        "a program's time could not be measured";
    OUTPUTS_DIFFER = "L0705", "outputs-differ", Error,
        "the transformed program's output differs from the original's";
    NOT_TIMED = "L0706", "not-timed", Warning,
        "a baseline or reference program was not timed";
    NOT_A_PROGRAM = "L0707", "not-a-program", Error,
        "the kernel is a fragment, not a program that can be built and run";

    NOT_EQUIVALENT = "L0801", "not-equivalent", Error,
        "two programs compute different values";
    EQUIV_UNDECIDED = "L0802", "equivalence-undecided", Error,
        "`loopy equiv` cannot decide whether two programs are equivalent";

    BUDGET_EXHAUSTED = "L0901", "budget-exhausted", Error,
        "the integer core gave up: the work budget is exhausted";
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_well_formed_and_explained() {
        let mut ids = HashSet::new();
        let mut names = HashSet::new();
        let mut last = "";
        for c in ALL {
            let id = c.id();
            assert!(
                id.len() == 5 && id.starts_with('L') && id[1..].bytes().all(|b| b.is_ascii_digit()),
                "{id} is not L and four digits"
            );
            assert!(id > last, "{id} is out of order (after {last})");
            last = id;
            assert!(ids.insert(id), "{id} is registered twice");
            assert!(
                names.insert(c.name()),
                "the name {} is used twice",
                c.name()
            );
            assert!(
                c.name()
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{id}: name {} is not kebab-case",
                c.name()
            );
            assert!(
                !c.title().is_empty() && !c.title().ends_with('.'),
                "{id}: title"
            );
            let e = c.explanation();
            let paragraphs = e.split("\n\n").filter(|p| !p.trim().is_empty()).count();
            assert!(
                paragraphs >= 3 && e.len() > 300,
                "{id}: the explanation should be a few paragraphs with an example"
            );
            assert!(e.contains("```"), "{id}: the explanation has no example");
            assert_eq!(lookup(id), Some(*c));
            assert_eq!(lookup(&id.to_lowercase()), Some(*c));
        }
        assert!(INFOS.windows(2).all(|w| w[0].id < w[1].id));
        assert_eq!(INFOS.len(), ALL.len());
        assert_eq!(lookup("L9999"), None);
        assert_eq!(lookup("0401"), None);
    }

    #[test]
    fn families_are_the_documented_ones() {
        for c in ALL {
            let family = &c.id()[1..3];
            assert!(
                ["00", "01", "02", "03", "04", "05", "06", "07", "08", "09"].contains(&family),
                "{}: unknown family",
                c.id()
            );
        }
    }
}
