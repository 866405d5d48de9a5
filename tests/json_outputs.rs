//! The JSON of commands no other test prints whole (`deps`, `show --script`): snapshots, so
//! that their field names, nesting, key order and layout stay what scripts read.

mod common;

fn json(args: &[&str]) -> String {
    let (code, out, err) = common::loopy(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert!(v.is_array() || v.is_object(), "{out}");
    out
}

#[test]
fn deps_matmul() {
    insta::assert_snapshot!(json(&[
        "deps",
        "examples/matmul/matmul.c",
        "--format",
        "json"
    ]));
}

/// Several statements, dependences carried by loops and by text order.
#[test]
fn deps_atax() {
    insta::assert_snapshot!(json(&["deps", "examples/atax/atax.c", "--format", "json"]));
}

/// Schedules with marks and copies, loop components, and the script's parameters.
#[test]
fn show_script_gemm_fast() {
    insta::assert_snapshot!(json(&[
        "show",
        "examples/gemm/gemm.c",
        "--script",
        "tests/data/scripts/gemm-fast-literal.loopy",
        "--format",
        "json",
    ]));
}
