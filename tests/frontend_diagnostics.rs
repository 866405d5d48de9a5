//! Every error the frontend reports, rendered as the user sees it (snapshots, no colour):
//! `loopy show` exits with 2 and points into the original C file.

mod common;
use std::process::Command;

fn show(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_loopy"))
        .arg("--color")
        .arg("never")
        .arg("show")
        .args(args)
        // The compiler's own messages are part of some reports: use the system one.
        .env("CC", "cc")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run loopy");
    common::outcome(out)
}

/// Runs `loopy show tests/data/frontend/NAME.c ARGS` and checks it fails with exit 2.
fn fails(name: &str, args: &[&str]) -> String {
    let path = format!("tests/data/frontend/{name}.c");
    let mut all = vec![path.as_str()];
    all.extend_from_slice(args);
    let (code, out, err) = show(&all);
    assert_eq!(code, 2, "{name}: {out}{err}");
    assert!(out.is_empty(), "{name}: {out}");
    assert!(!err.contains("internal error"), "{err}");
    err
}

macro_rules! diag {
    ($test:ident, $file:literal $(, $arg:literal)*) => {
        #[test]
        fn $test() {
            insta::assert_snapshot!(fails($file, &[$($arg),*]));
        }
    };
}

// Control flow the model cannot express.
diag!(goto, "goto");
diag!(break_in_loop, "break");
diag!(continue_in_loop, "continue");
diag!(return_in_region, "return");
// Pointers.
diag!(pointer_deref, "pointer_deref");
diag!(address_of, "address_of");
diag!(arrow, "arrow");
diag!(array_as_pointer, "array_as_pointer");
diag!(missing_subscript, "missing_subscript");
diag!(rank_mismatch, "rank_mismatch");
// Loop counters and parameters.
diag!(iterator_write, "iterator_write");
diag!(iterator_reused, "iterator_reused");
diag!(parameter_write, "parameter_write");
diag!(counter_outside, "counter_outside");
// Tags.
diag!(duplicate_tag, "duplicate_tag");
diag!(empty_tag, "empty_tag");
diag!(tag_in_opaque, "tag_in_opaque");
// Other constructs.
diag!(unknown_call, "unknown_call");
diag!(typedef_in_region, "typedef_in_region");
diag!(statement_expression, "statement_expression");
// Regions.
diag!(two_regions, "two_regions");
diag!(scop_out_of_range, "two_regions", "--scop", "2");
diag!(endscop_alone, "endscop_alone");
diag!(scop_unended, "scop_unended");
diag!(nested_scop, "nested_scop");
diag!(crossing, "crossing");
diag!(empty_region, "empty_region");
diag!(no_region, "no_region");
diag!(unknown_function, "no_region", "--function", "kernal");
// Input.
diag!(syntax, "syntax");
diag!(stray_statement, "stray_statement");
diag!(elvis_in_region, "elvis_in_region");
diag!(system_header, "system_header");
diag!(implicit_declaration, "implicit_declaration");

/// No syntax error shows an empty expected token or lang-c's rule names, whatever the
/// input: each of these must fail, and its label must say what was found.
#[test]
fn syntax_errors_name_what_they_expect() {
    let dir = common::scratch("frontend-diagnostics", "syntax-errors");
    let cases = [
        "#pragma scop\nfor (i=0;i<N;i++) a[i] = 0;\n",
        "for (i=0;i<N;i++) a[i] = 0;\n",
        "static x;\n",
        "int main(void) { int a[3]; a[0] = ; }\n",
        "void f(void) {\n#pragma scop\n  a[0] = (1 +;\n#pragma endscop\n}\n",
        "void f(void) {\n#pragma scop\n  a[0] = b ?: c;\n#pragma endscop\n}\n",
        "int f(void) { return 1 }\n",
        "typedef int T; T T T;\n",
        "int x = ;\n",
        "int f(void) {\n",
    ];
    for (k, src) in cases.iter().enumerate() {
        let path = dir.join(format!("case{k}.c"));
        std::fs::write(&path, src).unwrap();
        let (code, _, err) = show(&[path.to_str().unwrap()]);
        assert_eq!(code, 2, "{src}: {err}");
        assert!(err.contains("syntax error"), "{src}: {err}");
        assert!(!err.contains("``"), "{src}: empty expected token:\n{err}");
        assert!(!err.contains("<typedef_name>"), "{src}:\n{err}");
        assert!(
            err.contains("found `") || err.contains("could not read") || err.contains("file ends"),
            "{src}:\n{err}"
        );
    }
}

/// The preprocessor's error, located in the user's file (its wording is the compiler's).
#[test]
fn missing_include() {
    let err = fails("missing_include", &[]);
    assert!(
        err.starts_with(
            "Error[L0102]: the C preprocessor failed: `cc -E tests/data/frontend/missing_include.c`"
        ),
        "{err}"
    );
    assert!(err.contains("missing_include.c:1:10"), "{err}");
    assert!(err.contains("kernel_sizes.h"), "{err}");
}

#[test]
fn missing_file() {
    let (code, _, err) = show(&["tests/data/frontend/nothere.c"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error[L0601]: cannot read `tests/data/frontend/nothere.c`"),
        "{err}"
    );
}

/// The fix for each region error works: choosing a region, or a function without one.
#[test]
fn choosing_a_region() {
    let (code, out, err) = show(&["tests/data/frontend/two_regions.c", "--scop", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("function:   second"), "{out}");
    let (code, out, err) = show(&["tests/data/frontend/two_regions.c", "--function", "first"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("function:   first"), "{out}");
    let (code, out, err) = show(&["tests/data/frontend/no_region.c", "--function", "kernel"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("S0, line 6: A[i] = 0.0;"), "{out}");
}
