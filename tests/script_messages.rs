//! Messages a new user meets first: components that contain each other (the block-tag
//! rule), `show` making that rule visible, and mistakes with the loop operations of the
//! standard library.

mod common;

fn run(args: &[&str]) -> (i32, String, String) {
    let mut all = vec![args[0], "--color", "never"];
    all.extend(&args[1..]);
    common::loopy(&all)
}

const NATURAL: &str = "tests/data/messages/2mm_natural.c";

#[test]
fn block_tag_containing_the_other_component() {
    let (code, out, err) = run(&["check", NATURAL, "tests/data/messages/block_tag.loopy"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("`Init` names the block at line 9"), "{err}");
    assert!(err.contains("`{ Init: tmp[i][j] = 0.0; }`"), "{err}");
    insta::assert_snapshot!("block_tag", err);
}

#[test]
fn lifted_loop_containing_the_other_component() {
    let (code, out, err) = run(&["check", NATURAL, "tests/data/messages/lift_contains.loopy"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("`L` contains `Mult`"), "{err}");
    insta::assert_snapshot!("lift_contains", err);
}

#[test]
fn show_says_a_first_statement_label_tags_the_block() {
    let (code, out, err) = run(&["show", NATURAL]);
    assert_eq!(code, 0, "{err}");
    let tags = &out[out.find("tags:").expect("tags section")..];
    assert!(tags.contains("so it tags the whole block"), "{tags}");
    insta::assert_snapshot!("show_block_tag", tags);
}

#[test]
fn the_fix_from_the_message_works() {
    let dir = common::scratch("messages", "fix");
    let fixed = std::fs::read_to_string(NATURAL)
        .unwrap()
        .replace("Init: tmp[i][j] = 0.0;", "{ Init: tmp[i][j] = 0.0; }");
    let c = dir.join("fixed.c");
    std::fs::write(&c, fixed).unwrap();
    let (code, out, err) = run(&[
        "check",
        c.to_str().unwrap(),
        "tests/data/messages/block_tag.loopy",
    ]);
    assert_eq!(code, 0, "{out}{err}");
}
