//! `loopy suggest` with changes computed from the legal-schedule space: skews before a tiling
//! (seidel-2d tiled over all three loops), a shift before a fusion (jacobi-2d fused without
//! its shift), the nearest legal skew factor. Each suggestion is accepted by `loopy check`,
//! and every change ordered before it is rejected by `loopy check`, one by one.

use crate::driver::{Kernel, Run};
use crate::search::Legal;
use crate::suggest::repair::{legal_values, levels};
use crate::suggest::{all_changes, Change};
use crate::testing::{loopy, scratch};
use std::path::Path;

fn candidates(kernel: &str, script: &Path) -> Vec<Change> {
    let k = Kernel::load(Path::new(kernel), &Default::default()).unwrap();
    let mut run = Run::start(&k);
    let text = std::fs::read_to_string(script).unwrap();
    let base = script.parent().unwrap();
    let name = script.display().to_string();
    let limit = crate::presburger::budget::DEFAULT;
    all_changes(&k, &mut run, &text, &name, base, limit)
}

/// Where the suggestion goes (`replace line 1 (…) with:`) and the lines `suggest` prints
/// after it.
fn suggested(out: &str) -> (String, Vec<String>) {
    let head = out
        .lines()
        .find(|l| l.starts_with("suggestion"))
        .expect("a suggestion");
    let what = head[head.find("): ").expect("where") + 3..].to_string();
    let lines = out
        .lines()
        .skip_while(|l| !l.starts_with("suggestion"))
        .skip(1)
        .map(|l| l.trim().to_string())
        .collect();
    (what, lines)
}

/// Runs `suggest`, checks its suggestion with `loopy check`, and every change before it in
/// the order `suggest` tries them with `loopy check` too (each must be rejected). Returns
/// the suggestion.
fn suggest_minimal(kernel: &str, script: &str, dir: &Path) -> Change {
    let f = dir.join("illegal.loopy");
    std::fs::write(&f, script).unwrap();
    let (code, out, err) = loopy(&["suggest", kernel, f.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let (what, lines) = suggested(&out);
    let all = candidates(kernel, &f);
    let chosen = all
        .iter()
        .position(|c| c.what == what && c.lines == lines)
        .unwrap_or_else(|| panic!("{lines:?} is not among the changes"));
    assert!(
        out.contains(&format!(
            "the smallest of the {} change(s) tried",
            chosen + 1
        )),
        "{out}"
    );
    let g = dir.join("fixed.loopy");
    std::fs::write(&g, &all[chosen].text).unwrap();
    let (code, o, e) = loopy(&["check", kernel, g.to_str().unwrap()]);
    assert_eq!(code, 0, "{o}{e}");
    for c in &all[..chosen] {
        assert!(c.cost <= all[chosen].cost, "ordered by cost");
        std::fs::write(&g, &c.text).unwrap();
        let (code, o, _) = loopy(&["check", kernel, g.to_str().unwrap()]);
        // 1: illegal; 2: the changed script does not run (a depth the loops do not have).
        assert_ne!(
            code, 0,
            "a change ordered before is legal: {:?}\n{o}",
            c.lines
        );
    }
    all[chosen].clone()
}

const SEIDEL: &str = "examples/seidel-2d/seidel-2d.c";
const JACOBI: &str = "examples/jacobi-2d/jacobi-2d.c";

#[test]
fn seidel_tiled_over_three_loops_gets_three_skews() {
    let d = scratch("repair", "seidel3");
    let c = suggest_minimal(SEIDEL, "tile(Loop, [1, 2, 3], [16, 32, 32])\n", &d);
    // (t, t + i, 2t + i + j), inner loops skewed first.
    assert_eq!(
        c.lines,
        [
            "skew(Loop, 3, 2, 1)",
            "skew(Loop, 3, 1, 2)",
            "skew(Loop, 2, 1, 1)"
        ]
    );
    assert!(c.space);
    assert_eq!(c.cost, (3, 4));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn seidel_tiled_over_two_loops_keeps_one_skew() {
    let d = scratch("repair", "seidel2");
    let c = suggest_minimal(SEIDEL, "tile(Loop, [2, 3], [32, 32])\n", &d);
    assert_eq!(c.lines, ["skew(Loop, 3, 2, 1)"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn jacobi_fused_without_its_shift_gets_it_back() {
    let d = scratch("repair", "jacobi");
    let c = suggest_minimal(JACOBI, "realign(LoopB, LoopA, 3)\n", &d);
    assert_eq!(c.lines, ["shift(LoopA, 2, 1)"]);
    assert!(c.space);
    let _ = std::fs::remove_dir_all(&d);
}

/// The parallel jacobi-2d script without its column shift: the tiling procedure after the
/// fusion has no affine rows, so the shift is computed for the script through the fusion
/// and the whole script checked.
#[test]
fn jacobi_wavefronts_without_the_column_shift() {
    let d = scratch("repair", "jacobi-par");
    let script = "shift(LoopA, 2, 1)\nrealign(LoopB, LoopA, 3)\nwavefront_jacobi2({LoopB, LoopA}, 2, 16, 32)\n";
    let c = suggest_minimal(JACOBI, script, &d);
    assert_eq!(c.lines, ["shift(LoopA, 3, 1)"]);
    assert!(c.space);
    let _ = std::fs::remove_dir_all(&d);
}

/// jacobi-2d fused, time-skewed and tiled without either shift: the tiled band must be
/// permutable, which takes shifts of two loops.
#[test]
fn jacobi_tiled_without_both_shifts_gets_two() {
    let d = scratch("repair", "jacobi-tiled");
    let script = "realign(LoopB, LoopA, 3)\nskew({LoopB, LoopA}, 2, 1, 2)\n\
                  skew({LoopB, LoopA}, 3, 1, 2)\ntile({LoopB, LoopA}, [1, 2, 3], [16, 32, 32])\n";
    let c = suggest_minimal(JACOBI, script, &d);
    assert_eq!(c.lines, ["shift(LoopA, 2, 1)", "shift(LoopA, 3, 1)"]);
    assert_eq!(c.cost, (2, 2));
    assert!(c.space);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_skew_factor_out_of_reach_of_the_fixed_list() {
    let d = scratch("repair", "factor");
    // −4 is five away from the nearest legal factor: further than the fixed list's ±3.
    let c = suggest_minimal(
        SEIDEL,
        "skew(Loop, 3, 2, -4)\ntile(Loop, [2, 3], [32, 32])\n",
        &d,
    );
    assert_eq!(c.lines, ["skew(Loop, 3, 2, 1)"]);
    assert!(c.what.starts_with("replace line 1"), "{}", c.what);
    assert_eq!(c.cost, (1, 5));
    assert!(c.space);
    let _ = std::fs::remove_dir_all(&d);
}

/// The values of a shift inserted before jacobi-2d's fusion that the space calls legal are
/// legal for the checker (the space is never wrong in that direction), in a window.
#[test]
fn values_read_off_the_space_are_legal() {
    let d = scratch("repair", "values");
    let k = Kernel::load(Path::new(JACOBI), &Default::default()).unwrap();
    let mut run = Run::start(&k);
    let legal = Legal::new(&run.program, &run.deps);
    let script = |w: i64| format!("shift(LoopA, 2, {w})\nrealign(LoopB, LoopA, 3)\n");
    let at = |run: &mut Run, w: i64| {
        run.restart(&k);
        run.apply(&k, &script(w), "s.loopy", &d).unwrap();
        levels(&run.interp.state, &legal).unwrap()
    };
    let (l1, l2) = (at(&mut run, 1), at(&mut run, 2));
    let dir: Vec<Vec<_>> = l1
        .iter()
        .zip(&l2)
        .map(|(a, b)| a.iter().zip(b).map(|(x, y)| y - x).collect())
        .collect();
    let base: Vec<Vec<_>> = l1
        .iter()
        .zip(&dir)
        .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x - y).collect())
        .collect();
    let vals = legal_values(&legal, &base, &dir, &[]).unwrap();
    let mut legal_seen = 0;
    for w in -3..=4 {
        let f = d.join("w.loopy");
        std::fs::write(&f, script(w)).unwrap();
        let (code, _, _) = loopy(&["check", JACOBI, f.to_str().unwrap()]);
        if vals.contains(i128::from(w)) {
            assert_eq!(code, 0, "the space calls {w} legal");
            legal_seen += 1;
        }
    }
    assert!(legal_seen >= 1, "{vals:?}");
    let _ = std::fs::remove_dir_all(&d);
}

/// The schedule read back from the state is in the space's coordinates: each kernel's own
/// schedule (adi has loops counting down) is legal for the space, and a reversal of a loop
/// that carries a dependence is not.
#[test]
fn schedules_read_back_in_the_space_coordinates() {
    let d = scratch("repair", "coords");
    for (kernel, bad) in [
        ("examples/adi/adi.c", None),
        (SEIDEL, Some("affine(Loop, {[t, i, j] -> [-t, i, j]})\n")),
        (JACOBI, None),
    ] {
        let k = Kernel::load(Path::new(kernel), &Default::default()).unwrap();
        let mut run = Run::start(&k);
        let legal = Legal::new(&run.program, &run.deps);
        let lv = levels(&run.interp.state, &legal).unwrap();
        let zero: Vec<Vec<_>> = lv
            .iter()
            .map(|l| vec![Default::default(); l.len()])
            .collect();
        let vals = legal_values(&legal, &lv, &zero, &[]).unwrap();
        assert!(vals.contains(0), "{kernel}: its own schedule");
        if let Some(script) = bad {
            run.apply(&k, script, "bad.loopy", &d).unwrap();
            let lv = levels(&run.interp.state, &legal).unwrap();
            let vals = legal_values(&legal, &lv, &zero, &[]).unwrap();
            assert!(!vals.contains(0), "{kernel}: {script}");
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}
