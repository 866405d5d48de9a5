//! Parallel loops: the candidates `loopy show --script` lists for every example, and (below)
//! a dynamic test that does not trust the verifier.

mod common;
use common::{examples, loopy};

/// The `parallel loops` section `loopy show --script` prints.
fn candidates(kernel: &str, script: &str) -> String {
    let (code, out, err) = loopy(&["show", "--color", "never", kernel, "--script", script]);
    assert_eq!(code, 0, "{kernel} {script}: {err}");
    let at = out
        .find("  parallel loops (")
        .expect("a parallel loops section");
    out[at..].to_string()
}

#[test]
fn show_lists_the_parallel_loops_of_every_example() {
    let mut all = String::new();
    for e in examples() {
        let kernel = format!("examples/{e}/{e}.c");
        let script = format!("examples/{e}/{e}.loopy");
        all.push_str(&format!("{e}:\n{}", candidates(&kernel, &script)));
    }
    insta::assert_snapshot!("show_parallel_loops", all);
}

#[test]
fn show_lists_reductions_and_shared_scalars() {
    let dir = common::scratch("parallel-loops", "show");
    let empty = dir.join("empty.loopy");
    std::fs::write(&empty, "# the original schedule\n").unwrap();
    let empty = empty.to_str().unwrap();
    let mut all = String::new();
    for k in [
        "tests/must_fail/reductions.c",
        "tests/must_fail/scalar_temp.c",
        "tests/must_fail/recurrence.c",
    ] {
        all.push_str(&format!("{k}:\n{}", candidates(k, empty)));
    }
    insta::assert_snapshot!("show_parallel_loops_small", all);
    let _ = std::fs::remove_dir_all(&dir);
}
