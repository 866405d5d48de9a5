//! `loopy slices` on the paper's kernels, and `hoist`'s errors.

mod common;
use std::io::Write;

#[test]
fn kji_lu_has_exactly_the_papers_three_slices() {
    let (code, out, err) = common::loopy(&["slices", "examples/lu-kji/lu-kji.c"]);
    assert_eq!(code, 0, "{err}");
    // Figure 8: slice_k, slice_j, slice_i, all aligned 0; k(s2) may also be aligned 1 and
    // j(s2) -1 (§5.2.2), so each of those has one other alignment.
    insta::assert_snapshot!("slices_lu_kji", out);
    let (code, json, _) =
        common::loopy(&["slices", "examples/lu-kji/lu-kji.c", "--format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(json.matches("\"Scale\": {").count(), 3, "{json}");
    assert_eq!(json.matches("\"align\": 0").count(), 6, "{json}");
    insta::assert_snapshot!("slices_lu_kji_json", json);
}

#[test]
fn slices_of_two_segments_and_their_fusion() {
    let (code, out, err) = common::loopy(&[
        "slices",
        "tests/must_fail/producer_consumer.c",
        "--align-range",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("slices_producer_consumer", out);
}

#[test]
fn unknown_tag_is_bad_input() {
    let (code, _, err) = common::loopy(&["slices", "examples/lu-kji/lu-kji.c", "--tag", "Nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no tag `Nope`"), "{err}");
}

fn check_script(kernel: &str, script: &str) -> (i32, String) {
    check_script_in("errors", kernel, script)
}

/// `check_script` in a scratch directory of its own (tests run in parallel).
fn check_script_in(test: &str, kernel: &str, script: &str) -> (i32, String) {
    let dir = common::scratch("hoist", test);
    let p = dir.join("s.loopy");
    std::fs::File::create(&p)
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let (code, _, err) = common::loopy(&["check", "--color", "never", kernel, p.to_str().unwrap()]);
    (code, err)
}

#[test]
fn hoist_errors_point_at_the_slice() {
    let lu = "examples/lu-kji/lu-kji.c";
    for (script, needle) in [
        (
            "hoist({Scale, Update}, {Scale: k, Updat: j})",
            "did you mean `Update`?",
        ),
        (
            "hoist({Scale, Update}, {Scale: k})",
            "statement `Update` of the segment is not given a slicing loop",
        ),
        (
            "hoist({Scale, Update}, {Scale: 3, Update: 1})",
            "there is no loop 3 around it",
        ),
        (
            "hoist({Scale, Update}, {Scale: j, Update: 1})",
            "no loop `j` around statement `Scale`",
        ),
        (
            "hoist({Scale, Update}, {Scale: k, Update: j, Scale: i})",
            "given two slicing loops",
        ),
        (
            "hoist(Update, {Update: j})",
            "lies inside the loops of the segment",
        ),
        ("hoist({Scale, Update}, {Scale k})", "expected `:`"),
        ("hoist({Scale, Update}, 3)", "takes a slice"),
    ] {
        let (code, err) = check_script(lu, script);
        assert_eq!(code, 2, "{script}: {err}");
        assert!(err.contains(needle), "{script}: {err}");
    }
}

#[test]
fn hoist_refuses_to_move_a_marked_loop_and_shifts_other_marks() {
    // The slicing loop `j` of Update (its loop 2) moves out: its mark has no loop left.
    let (code, err) = check_script_in(
        "marks",
        "examples/lu-kji/lu-kji.c",
        "parallel(Update, 2)\nhoist({Scale, Update}, {Scale: k, Update: j})\n",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("which is marked `parallel`"), "{err}");
    // A mark outside the hoisting level rides along: after hoisting at level 1, loop 1 (k)
    // is still the statements' first loop, and marking it parallel is still a race.
    let (code, err) = check_script_in(
        "marks",
        "examples/lu-kji/lu-kji.c",
        "parallel({Scale, Update}, 1)\nhoist({Scale, Update}, {Scale: i, Update: i}, 1)\n",
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("of the parallel loop both access"), "{err}");
}

/// Pivoting LU (Yi, Kennedy and Adve, Figure 13(a)): every swap goes through the one scalar
/// `t`, which orders every pair of swaps, so the only slice is the outer `k` loop; with `t`
/// expanded per (k, j) by `--prefix`, the paper's two slices: `slice_k` and `slice_j` (the
/// `k` loop for the pivot search and the scaling, the `j` loops for the swap and the update).
#[test]
fn pivoting_lu_has_the_papers_slices_once_t_is_expanded() {
    let kernel = "examples/lu-pivot/lu-pivot.c";
    let slice_k = "{Piv: k, Max: k, Search: k, Save: k, Pick: k, Put: k, Scale: k, Update: k}";
    let slice_j = "{Piv: k, Max: k, Search: k, Save: j, Pick: j, Put: j, Scale: k, Update: j}";
    let (code, out, err) = common::loopy(&["slices", kernel]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("1 valid slice(s)") && out.contains(slice_k),
        "{out}"
    );
    assert!(!out.contains(slice_j), "{out}");
    let prefix = "tests/data/slices/lu_pivot_expand.loopy";
    let (code, out, err) = common::loopy(&["slices", kernel, "--prefix", prefix]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("2 valid slice(s)") && out.contains(slice_k) && out.contains(slice_j),
        "{out}"
    );
    insta::assert_snapshot!("slices_lu_pivot_expanded", out);
    // The slice found is the one the example's script blocks with, and it is legal.
    let (code, _, err) = common::loopy(&["check", kernel, "examples/lu-pivot/lu-pivot.loopy"]);
    assert_eq!(code, 0, "{err}");
}

/// A prefix that does more than expand (here an interchange), a prefix that fails and one
/// that does not exist are bad input (exit 2).
#[test]
fn slices_prefix_may_only_expand() {
    let kernel = "examples/lu-pivot/lu-pivot.c";
    let (code, _, err) = common::loopy(&[
        "slices",
        kernel,
        "--prefix",
        "tests/data/slices/lu_pivot_not_only_expand.loopy",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("changes statement Update") && err.contains("may only expand variables"),
        "{err}"
    );
    let dir = common::scratch("slices", "prefix");
    let bad = dir.join("bad.loopy");
    std::fs::write(&bad, "expand(Swap, 2, nope)\n").unwrap();
    let (code, _, err) = common::loopy(&[
        "slices",
        "--color",
        "never",
        kernel,
        "--prefix",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the kernel has no variable `nope`"), "{err}");
    let (code, _, err) =
        common::loopy(&["slices", kernel, "--prefix", "tests/data/slices/none.loopy"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("cannot read `tests/data/slices/none.loopy`"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
