//! `copy_written(l, k, A)`: a buffer of only the elements the staged statements write,
//! the rest read from the array. cholesky's rows jammed `U` at a time
//! (`examples/cholesky-pb/cholesky-pb-jam.loopy`) keep the `U` entries of a column in
//! registers while they read two rows of `A` from the array: the generated code prints
//! exactly what the original prints at sizes with and without a partial strip, and `equiv`
//! proves it equivalent; what the planner refuses, `check` and `apply` both refuse.

mod common;
use std::path::Path;

const KERNEL: &str = "examples/cholesky-pb/cholesky-pb.c";
const SCRIPT: &str = "examples/cholesky-pb/cholesky-pb-jam.loopy";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The jam script with `U` set to `u`, applied; the generated file.
fn generated(u: u32, tag: &str) -> String {
    let dir = common::scratch("codegen_written", tag);
    let text = std::fs::read_to_string(root().join(SCRIPT)).unwrap();
    let script = dir.join("jam.loopy");
    std::fs::write(
        &script,
        text.replace("param U = 8", &format!("param U = {u}")),
    )
    .unwrap();
    let out = dir.join("jam.c");
    common::apply_to(&root().join(KERNEL), &script, &out);
    std::fs::read_to_string(&out).unwrap()
}

#[test]
fn jammed_cholesky_rows_keep_their_entries_in_registers_and_print_the_same() {
    for u in [4, 8] {
        let file = generated(u, &format!("u{u}"));
        // The whole strips' entries are registers, one per row of the strip.
        for r in 0..u {
            assert!(
                file.contains(&format!("loopy_A_r{r}_0")),
                "U = {u}: no register {r}:\n{file}"
            );
        }
        assert!(
            !file.contains(&format!("loopy_A_r{u}_0")),
            "U = {u}: more registers than rows"
        );
        // The rows read come from the array.
        assert!(
            file.contains("* A[j][k]"),
            "U = {u}: row j read from the array:\n{file}"
        );
        // One whole strip and none; whole strips and a partial one (from N = 2U on;
        // smaller sizes make gcc's -Werror warn of the strips' loops that never run).
        let sizes: Vec<String> = [2 * u, 2 * u + 1, 3 * u - 1, 40 + u / 4, 45]
            .iter()
            .map(|n| format!("-DN={n}"))
            .collect();
        let sizes: Vec<Vec<&str>> = sizes.iter().map(|d| vec![d.as_str()]).collect();
        let sizes: Vec<&[&str]> = sizes.iter().map(Vec::as_slice).collect();
        common::same_outputs("codegen_written", KERNEL, &format!("jam{u}"), &file, &sizes);
    }
}

#[test]
fn jammed_cholesky_is_proved_equivalent() {
    let dir = common::scratch("codegen_written", "prove");
    let out = dir.join("jam.c");
    let (code, o, e) = common::loopy(&[
        "apply",
        "--prove",
        KERNEL,
        SCRIPT,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{o}{e}");
    assert!(format!("{o}{e}").contains("equivalent"), "{o}{e}");
}

/// `check` and `apply` refuse alike (exit 2), with the reason.
fn refused(script: &str, needle: &str) {
    let dir = common::scratch("codegen_written", "refused");
    let path = dir.join("s.loopy");
    std::fs::write(&path, script).unwrap();
    let kernel = root().join("tests/data/written_alias.c");
    let (k, p) = (kernel.to_str().unwrap(), path.to_str().unwrap());
    for cmd in ["check", "apply"] {
        let (code, o, e) = common::loopy(
            &[cmd, "--color", "never", k, p, "-o", "/dev/null"]
                [..if cmd == "check" { 5 } else { 7 }],
        );
        assert_eq!(code, 2, "{cmd} {script}: {o}{e}");
        assert!(e.contains(needle), "{cmd} {script}: lacks {needle:?}:\n{e}");
    }
}

#[test]
fn a_write_read_through_other_subscripts_and_a_scalar_are_refused() {
    refused(
        "copy_written(Twice, 1, B)\n",
        "statement Twice reads the element it writes through other subscripts",
    );
    refused("copy_written(Sum, 1, s)\n", "`s` is a scalar, not an array");
}

#[test]
fn a_staged_read_of_a_written_element_is_illegal() {
    // Lower reads A[i][k] from the array; with the copy around the whole row, Div writes
    // those elements into the buffer first (tests/must_fail/copy_written_reads_written).
    let (code, _, e) = common::loopy(&[
        "apply",
        "--color",
        "never",
        KERNEL,
        "tests/must_fail/copy_written_reads_written.loopy",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(code, 1, "{e}");
    assert!(
        e.contains("in the array (not at the subscripts of its write)"),
        "{e}"
    );
}
