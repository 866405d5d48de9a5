//! The subset of outer fusion structures the search schedules, by `Outer` and through
//! `loopy search`. The space against the brute-force enumeration is tested beside it
//! (`src/search/fusion_tests.rs`).

mod common;
use common::{loopy, scratch};
use loopy::search::fusion::Outer;
use loopy::search::Legal;
use std::path::Path;

fn legal_of(path: &Path) -> Legal {
    let k = loopy::driver::Kernel::load(path, &loopy::frontend::Options::default()).unwrap();
    let run = loopy::driver::Run::start(&k);
    Legal::new(&run.program, &run.deps)
}

fn legal_of_text(dir: &Path, name: &str, text: &str) -> Legal {
    let f = dir.join(format!("{name}.c"));
    std::fs::write(&f, text).unwrap();
    legal_of(&f)
}

const HEAD: &str = "void k(int n, double A[n], double B[n], double C[n], double D[n],\n\
                    double P[n][n], double Q[n][n]) {\n  int i, j;\n#pragma scop\n";
const TAIL: &str = "#pragma endscop\n}\n";

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
