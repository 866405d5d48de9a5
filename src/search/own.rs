//! The kernel as it is on the threads: for several threads, the outermost loop of each of
//! the kernel's own nests gets a `parallel` mark where the checker accepts it, and where it
//! does not (the loop carries a dependence, a reduction's included), each nest inside it in
//! turn, down to [`DEPTH`] loops: what Polly's `-polly-parallel` does to a schedule it
//! keeps. Every mark is judged alone, then all of them together as one candidate.

use super::script::{handles, shared, Names};
use std::collections::VecDeque;

/// The deepest loop a mark is tried on.
pub const DEPTH: usize = 3;

/// The groups of `stmts` (statements of the kernel, in their order) that share their loop
/// at `level` (from 1); a statement with fewer loops belongs to none.
pub fn nests(names: &Names, stmts: &[usize], level: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![];
    for &s in stmts {
        if names.iterators[s].len() < level {
            continue;
        }
        match out.last_mut() {
            Some(g) if shared(names, g[0], s) >= level => g.push(s),
            _ => out.push(vec![s]),
        }
    }
    out
}

/// The marks `legal` accepts (it judges a script's lines), outermost first: a nest whose
/// loop is marked is not looked into.
pub fn marks(names: &Names, legal: &mut dyn FnMut(&[String]) -> bool) -> Vec<String> {
    let all: Vec<usize> = (0..names.handles.len()).collect();
    let mut todo: VecDeque<(Vec<usize>, usize)> =
        nests(names, &all, 1).into_iter().map(|g| (g, 1)).collect();
    let mut lines = vec![];
    while let Some((group, level)) = todo.pop_front() {
        let mark = mark(names, &group, level);
        if legal(&mark) {
            lines.extend(mark);
        } else if level < DEPTH {
            todo.extend(
                nests(names, &group, level + 1)
                    .into_iter()
                    .map(|g| (g, level + 1)),
            );
        }
    }
    lines
}

/// A `parallel` mark on loop `level` of `group`, after a comment saying what it is for.
fn mark(names: &Names, group: &[usize], level: usize) -> Vec<String> {
    let g = handles(group, names);
    let outer = match level {
        1 => "its outermost loop".to_string(),
        _ => format!("loop {level}, the outer ones carrying dependences"),
    };
    vec![
        format!("# the kernel's own loops: {outer} of {g} on the threads"),
        format!("parallel({g}, {level})"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presburger::Int;

    /// Two nests: `S0` alone at the top, then `S1` and `S2` in one outer loop, `S2` in an
    /// inner loop of its own.
    fn names() -> Names {
        let p = |v: &[i64]| v.iter().map(|&x| Int::from(x)).collect::<Vec<_>>();
        Names {
            handles: vec!["S0".into(), "S1".into(), "S2".into()],
            iterators: vec![
                vec!["i".into()],
                vec!["t".into()],
                vec!["t".into(), "i".into()],
            ],
            params: vec![],
            positions: vec![p(&[0, 0]), p(&[1, 0]), p(&[1, 1, 0])],
        }
    }

    #[test]
    fn nests_by_the_loops_they_share() {
        let n = names();
        assert_eq!(nests(&n, &[0, 1, 2], 1), vec![vec![0], vec![1, 2]]);
        assert_eq!(nests(&n, &[1, 2], 2), vec![vec![2]]);
    }

    #[test]
    fn a_refused_mark_is_tried_one_loop_further_in() {
        let n = names();
        // The checker refuses the `t` loop (it carries a dependence).
        let mut judge = |l: &[String]| !l[1].starts_with("parallel({S1, S2}, 1)");
        let lines = marks(&n, &mut judge);
        let marks: Vec<&String> = lines.iter().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(marks, ["parallel(S0, 1)", "parallel(S2, 2)"]);
        assert!(lines[2].contains("loop 2, the outer ones carrying dependences"));
    }
}
