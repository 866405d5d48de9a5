//! The space of outer fusion structures (`fusion.rs`) against the brute-force enumeration
//! (`Legal::interleavings`): the exact counts, every interleaving at its rank in both
//! directions, the pruning; on examples and on random kernels. The subset the search
//! schedules, by `Outer` and through `loopy search`.

use crate::search::fusion::Outer;
use crate::search::Legal;
use crate::testing::{loopy, scratch};
use proptest::prelude::*;
use std::path::Path;

fn legal_of(path: &Path) -> Legal {
    let k = crate::driver::Kernel::load(path, &crate::frontend::Options::default()).unwrap();
    let run = crate::driver::Run::start(&k);
    Legal::new(&run.program, &run.deps)
}

fn legal_of_text(dir: &Path, name: &str, text: &str) -> Legal {
    let f = dir.join(format!("{name}.c"));
    std::fs::write(&f, text).unwrap();
    legal_of(&f)
}

/// The count equals the number the brute force lists, the interleaving at each rank is the
/// one the brute force lists there, and each one's rank is its position. Returns the count.
fn agrees_with_brute_force(legal: &Legal, what: &str) -> usize {
    let brute = legal.interleavings(1_000_000);
    assert!(!brute.truncated, "{what}");
    let mut f = legal.fusion();
    assert_eq!(f.count(), brute.list.len() as u128, "{what}");
    assert!(f.exact(), "{what}");
    for (k, il) in brute.list.iter().enumerate() {
        assert_eq!(f.unrank(k as u128).as_ref(), Some(il), "{what}: rank {k}");
        assert_eq!(f.rank(il), Some(k as u128), "{what}: {il:?}");
    }
    assert_eq!(f.unrank(brute.list.len() as u128), None, "{what}");
    brute.list.len()
}

/// Pouchet et al.'s Table 1 counts (gemver 8, atax 16, bicg 26), and the other examples
/// whose brute force is cheap, with the brute force's own interleavings at each rank.
#[test]
fn examples_against_brute_force() {
    for (name, want) in [
        ("gemver", 8),
        ("atax", 16),
        ("bicg", 26),
        ("mvt", 3),
        ("2mm", 16),
        ("durbin", 6),
        ("gesummv", 52),
        ("trisolv", 2),
    ] {
        let legal = legal_of(Path::new(&format!("examples/{name}/{name}.c")));
        assert_eq!(agrees_with_brute_force(&legal, name), want, "{name}");
    }
}

const HEAD: &str = "void k(int n, double A[n], double B[n], double C[n], double D[n],\n\
                    double P[n][n], double Q[n][n]) {\n  int i, j;\n#pragma scop\n";
const TAIL: &str = "#pragma endscop\n}\n";

/// Three independent statements: every ordered partition (13); mustFuse: two statements
/// on a dependence cycle in one loop move as one unit; mustDistribute: a reversed access
/// makes the pair unfusable.
#[test]
fn pruning_of_small_kernels() {
    let d = scratch("fusion", "pruning");
    let independent = format!(
        "{HEAD}  for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 0; i < n; i++)\n    \
         B[i] = 2.0;\n  for (i = 0; i < n; i++)\n    C[i] = 3.0;\n{TAIL}"
    );
    let legal = legal_of_text(&d, "independent", &independent);
    assert_eq!(agrees_with_brute_force(&legal, "independent"), 13);
    let f = legal.fusion();
    assert!(f.must_fuse().is_empty());
    assert!(f.must_distribute().is_empty());

    // S0 reads what S1 wrote one iteration before, S1 reads what S0 wrote in the same one.
    let cycle = format!(
        "{HEAD}  for (i = 1; i < n; i++) {{\n    A[i] = B[i - 1];\n    B[i] = A[i];\n  }}\n  \
         for (i = 0; i < n; i++)\n    C[i] = 3.0;\n{TAIL}"
    );
    let legal = legal_of_text(&d, "cycle", &cycle);
    assert_eq!(agrees_with_brute_force(&legal, "cycle"), 3);
    let mut f = legal.fusion();
    assert_eq!(f.must_fuse(), vec![vec![0, 1]]);
    assert_eq!(f.unrank(0), Some(vec![vec![0, 1], vec![2]]));

    let reversed = format!(
        "{HEAD}  for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 0; i < n; i++)\n    \
         B[i] = A[n - 1 - i];\n{TAIL}"
    );
    let legal = legal_of_text(&d, "reversed", &reversed);
    assert_eq!(agrees_with_brute_force(&legal, "reversed"), 1);
    let f = legal.fusion();
    assert_eq!(f.must_distribute(), vec![(0, 1)]);
    let _ = std::fs::remove_dir_all(&d);
}

/// When there are more legal interleavings than the bound, the search schedules the
/// kernel's own and evenly spaced ranks (`⌊k·count/m⌋`), the count staying exact; with
/// the bound at or above the count, all of them.
#[test]
fn the_subset_scheduled() {
    let d = scratch("fusion", "subset");
    let independent = format!(
        "{HEAD}  for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 0; i < n; i++)\n    \
         B[i] = 2.0;\n  for (i = 0; i < n; i++)\n    C[i] = 3.0;\n{TAIL}"
    );
    let legal = legal_of_text(&d, "independent", &independent);
    let brute = legal.interleavings(100).list;
    let own = vec![vec![0], vec![1], vec![2]];
    let own_rank = brute.iter().position(|il| *il == own).unwrap() as u128;
    let all = Outer::new(&legal, 13, &own);
    assert_eq!(all.count, 13);
    assert_eq!(all.list, brute);
    assert_eq!(all.ranks, (0..13).collect::<Vec<u128>>());
    assert_eq!(all.own, Some(own_rank as usize));
    let five = Outer::new(&legal, 5, &own);
    assert_eq!(five.count, 13);
    let mut want: Vec<u128> = (0..4).map(|k| k * 13 / 4).collect();
    want.push(own_rank);
    want.sort();
    want.dedup();
    assert_eq!(five.ranks, want);
    assert_eq!(five.list.len(), want.len());
    for (r, il) in five.ranks.iter().zip(&five.list) {
        assert_eq!(*il, brute[*r as usize]);
    }
    assert_eq!(five.list[five.own.unwrap()], own);
    // Through the command: the count, how many were scheduled, each candidate's rank.
    let c = d.join("independent.c");
    let (code, out, err) = loopy(&[
        "search",
        c.to_str().unwrap(),
        "--no-bench",
        "--format",
        "json",
        "--max-interleavings",
        "5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"interleavings\": 13,"), "{out}");
    assert!(out.contains("\"interleavings_exact\": true,"), "{out}");
    assert!(
        out.contains(&format!("\"interleavings_scheduled\": {},", want.len())),
        "{out}"
    );
    for r in &want {
        assert!(
            out.contains(&format!("\"interleaving_rank\": {r},")),
            "{out}"
        );
    }
    let (code, text, _) = loopy(&[
        "search",
        c.to_str().unwrap(),
        "--no-bench",
        "--max-interleavings",
        "5",
    ]);
    assert_eq!(code, 0);
    assert!(
        text.contains(&format!(
            "13 legal outer interleaving(s), {} scheduled (--max-interleavings 5)",
            want.len()
        )),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// One statement of a random kernel: its loop nest and body.
fn statement(kind: usize, write: usize, read: usize, index: usize) -> String {
    let arrays = ["A", "B", "C", "D"];
    let (w, r) = (arrays[write], arrays[read]);
    let at = ["i", "i - 1", "i + 1", "n - 1 - i"][index];
    match kind {
        // A one-dimensional loop.
        0 => format!("  for (i = 1; i < n - 1; i++)\n    {w}[i] = {r}[{at}] + 1.0;\n"),
        // Two statements in one loop, the second reading what the first wrote.
        1 => format!(
            "  for (i = 1; i < n - 1; i++) {{\n    {w}[i] = {r}[{at}] * 2.0;\n    \
             {r}[i] = {w}[i] + {r}[i];\n  }}\n"
        ),
        // A two-dimensional nest reading a transposed element.
        2 => format!(
            "  for (i = 1; i < n - 1; i++)\n    for (j = 1; j < n - 1; j++)\n      \
             P[i][j] = Q[j][i] + {r}[{at}];\n"
        ),
        // A two-dimensional nest writing what kind 2 reads.
        _ => format!(
            "  for (i = 1; i < n - 1; i++)\n    for (j = 1; j < n - 1; j++)\n      \
             Q[i][j] = P[i][j - 1] + {w}[i];\n"
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random kernels of two to four nests (up to six statements): the count, the ranks and
    /// the interleavings agree with the brute force.
    #[test]
    fn random_kernels_against_brute_force(
        nests in prop::collection::vec((0usize..4, 0usize..4, 0usize..4, 0usize..4), 2..5)
    ) {
        let d = scratch("fusion", "random");
        let body: String = nests
            .iter()
            .map(|&(k, w, r, i)| statement(k, w, r, i))
            .collect();
        let legal = legal_of_text(&d, "random", &format!("{HEAD}{body}{TAIL}"));
        agrees_with_brute_force(&legal, &body);
        let _ = std::fs::remove_dir_all(&d);
    }
}
