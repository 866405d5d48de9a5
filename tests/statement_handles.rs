//! Every statement has a default handle, its model name (`S0`, `S1`, … in textual order),
//! usable in any script whether the statement is tagged or not.

mod common;
use common::{loopy, scratch};

/// The jacobi-2d script written with the default handles generates the same code as the
/// paper's script with tags.
#[test]
fn default_handles_name_tagged_statements() {
    let d = scratch("handles", "jacobi");
    let s = d.join("by-name.loopy");
    std::fs::write(&s, "shift(S1, 2, 1)\nrealign(S0, S1, 3)\n").unwrap();
    let k = "examples/jacobi-2d/jacobi-2d.c";
    same_code(k, "examples/jacobi-2d/jacobi-2d.loopy", &s);
    let _ = std::fs::remove_dir_all(&d);
}

/// `loopy apply` generates the same code from both scripts on `kernel` (only the header
/// comment naming the script differs).
fn same_code(kernel: &str, tagged: &str, named: &std::path::Path) {
    let (code, tagged, err) = loopy(&["apply", kernel, tagged]);
    assert_eq!(code, 0, "{err}");
    let (code, named, err) = loopy(&["apply", kernel, named.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let body = |t: &str| {
        t.lines()
            .filter(|l| !l.contains(".loopy"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&tagged), body(&named));
}

/// In a slice too: cholesky-pb's hand script written with the default handles of its
/// tagged statements (`S0` for `Lower`, …) generates the same code; a name that is no
/// statement of the segment is refused.
#[test]
fn default_handles_name_tagged_statements_in_slices() {
    let d = scratch("handles", "slices");
    let k = "examples/cholesky-pb/cholesky-pb.c";
    let s = d.join("by-name.loopy");
    std::fs::write(
        &s,
        "block_slices({S0, S1, S2, S3}, {S0: i, S1: i, S2: i, S3: i}, \
         {S0: j, S1: j, S2: i, S3: i}, 64)\n",
    )
    .unwrap();
    same_code(k, "examples/cholesky-pb/cholesky-pb.loopy", &s);
    std::fs::write(
        &s,
        "hoist({S0, S1, S2, S3}, {S0: i, S1: i, S9: i, S3: i})\n",
    )
    .unwrap();
    let (code, _, err) = loopy(&["check", k, s.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`S9` is not a statement of the segment"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A kernel without any tag: scripts name its statements `S0`, `S1`, … and are checked as
/// usual (legal and illegal).
#[test]
fn untagged_kernel() {
    let d = scratch("handles", "untagged");
    let c = d.join("k.c");
    std::fs::write(
        &c,
        "void k(int n, double A[n], double B[n]) {\n  int i;\n#pragma scop\n  \
         for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 1; i < n; i++)\n    \
         B[i] = A[i - 1];\n#pragma endscop\n}\n",
    )
    .unwrap();
    let legal = d.join("legal.loopy");
    std::fs::write(&legal, "shift(S1, 1, 1)\nrealign(S0, S1, 1)\n").unwrap();
    let (code, out, err) = loopy(&["check", c.to_str().unwrap(), legal.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let illegal = d.join("illegal.loopy");
    std::fs::write(&illegal, "shift(S1, 1, -2)\nrealign(S0, S1, 1)\n").unwrap();
    let (code, out, err) = loopy(&["check", c.to_str().unwrap(), illegal.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    // An unknown statement number is an ordinary unknown handle, with a hint.
    let typo = d.join("typo.loopy");
    std::fs::write(&typo, "shift(S2, 1, 1)\n").unwrap();
    let (code, _, err) = loopy(&["check", c.to_str().unwrap(), typo.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown tag or handle `S2`"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// A tag called like a statement's default handle wins: `S0` then names the tag.
#[test]
fn a_tag_takes_precedence() {
    let d = scratch("handles", "shadow");
    let c = d.join("k.c");
    std::fs::write(
        &c,
        "void k(int n, double A[n], double B[n]) {\n  int i;\n#pragma scop\n  \
         for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 1; i < n; i++)\n\
         S0: B[i] = A[i - 1];\n#pragma endscop\n}\n",
    )
    .unwrap();
    // `S0` is the tag on the second statement, so the first statement has no handle of its
    // own (`S1` is still the second statement's default handle).
    let s = d.join("s.loopy");
    std::fs::write(&s, "shift(S0, 1, 5)\n").unwrap();
    let (code, out, err) = loopy(&["show", c.to_str().unwrap(), "--script", s.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("S0: [n] -> { S1[i] -> [1, i + 5"), "{out}");
    let _ = std::fs::remove_dir_all(&d);
}
