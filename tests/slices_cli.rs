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
