//! The legal outer interleavings as a space of fusion structures (Pouchet et al., §3–4.3):
//! total preorders of the statements at the outermost level, pruned by the dependences, and
//! counted exactly without listing them.
//!
//! An interleaving is an ordered partition of the statements (a total preorder: the
//! statements of a class share the outermost loop, the classes run one after the other). It
//! is legal when no dependence runs from a later class to an earlier one and every class is
//! fusable ([`Legal::fusable`]). The pruning of §3.2 and §4.3, with this project's
//! fusability test:
//!
//! - *mustFuse*: statements on a dependence cycle (a strongly connected component of the
//!   dependence graph) are in one class in every legal interleaving, so they move as one
//!   unit;
//! - *mustDistribute*: every pair of statements with a dependence between them is tested
//!   once; an unfusable pair is never in one class again, and no set containing it is tested;
//! - fusability is monotone (a hyperplane that fuses a set fuses each of its subsets), so the
//!   classes are grown one unit at a time and a set found unfusable is never extended; and a
//!   set whose statements fall into several groups with no dependence between the groups is
//!   fusable exactly when each group is (its constraints are independent), so only
//!   connected sets are tested (§3.2's paths of the dependence graph).
//!
//! The interleavings are then counted by dynamic programming over the statements not placed
//! yet: the number of legal interleavings of a set `R` is the sum, over the legal first
//! classes `C` of `R` (fusable, and holding every statement of `R` that a statement of `C`
//! depends on), of the number of `R \ C`. Each `R` reached is one state, whatever order led
//! to it, so the count is exact without enumerating; the same table ranks and unranks the
//! interleavings in the order of the brute-force enumeration (`Legal::interleavings`, which
//! the tests compare it with: classes by increasing statement mask), so any of them can be
//! built from its position.

use super::space::Legal;
use std::collections::HashMap;

/// A statement set as a bit mask (programs have at most 63 statements here).
pub type Mask = u64;

/// The statements of a mask, in increasing order.
pub fn members(m: Mask) -> Vec<usize> {
    (0..64).filter(|&k| m >> k & 1 == 1).collect()
}

/// The most states (sets of statements not placed yet) the count visits; past it the count
/// is a lower bound ([`Fusion::exact`] false). No kernel of the examples comes near it.
pub const MAX_STATES: usize = 1 << 20;

/// The legal first classes of one set of statements not placed yet, in increasing order of
/// their masks, each with the number of legal interleavings of what it leaves.
struct Node {
    firsts: Vec<(Mask, u128)>,
    total: u128,
}

/// The space of legal outer interleavings of a program, built lazily.
pub struct Fusion<'a> {
    legal: &'a Legal,
    n: usize,
    /// Per statement: the statements with a dependence into it (itself excluded).
    pred: Vec<Mask>,
    /// Per statement: the statements with a dependence to or from it (itself excluded).
    adj: Vec<Mask>,
    /// The units (mustFuse: strongly connected components of the dependence graph), in a
    /// topological order (every unit after those it depends on).
    units: Vec<Mask>,
    /// Per statement: the statements it can never share a class with (mustDistribute).
    apart: Vec<Mask>,
    /// Fusability of the connected sets tested so far.
    memo: HashMap<Mask, bool>,
    nodes: HashMap<Mask, Node>,
    overflow: bool,
    /// Fusability tests run (emptiness tests on the Farkas space).
    pub tests: usize,
}

impl Legal {
    /// The space of legal outer interleavings, with the pairwise pruning done.
    pub fn fusion(&self) -> Fusion<'_> {
        Fusion::new(self)
    }
}

impl<'a> Fusion<'a> {
    fn new(legal: &'a Legal) -> Fusion<'a> {
        let n = legal.layout.iters.len();
        assert!(n <= 63, "at most 63 statements");
        let mut pred: Vec<Mask> = vec![0; n];
        let mut adj: Vec<Mask> = vec![0; n];
        for e in &legal.edges {
            if e.source != e.sink {
                pred[e.sink] |= 1 << e.source;
                adj[e.sink] |= 1 << e.source;
                adj[e.source] |= 1 << e.sink;
            }
        }
        // Transitive closure of "depends on", itself included.
        let mut reach: Vec<Mask> = (0..n).map(|s| pred[s] | 1 << s).collect();
        loop {
            let mut changed = false;
            for s in 0..n {
                let mut r = reach[s];
                for t in members(reach[s]) {
                    r |= reach[t];
                }
                if r != reach[s] {
                    reach[s] = r;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // A unit: the statements that depend on `s` and that `s` depends on. Ordered by how
        // many statements each depends on (a unit depends on strictly fewer than any unit
        // depending on it), then by its first statement.
        let mut units: Vec<Mask> = vec![];
        for s in 0..n {
            let u = members(reach[s])
                .into_iter()
                .filter(|&t| reach[t] >> s & 1 == 1)
                .fold(0, |m, t| m | 1 << t);
            if !units.contains(&u) {
                units.push(u);
            }
        }
        units.sort_by_key(|&u| {
            (
                reach[u.trailing_zeros() as usize].count_ones(),
                u.trailing_zeros(),
            )
        });
        let mut f = Fusion {
            legal,
            n,
            pred,
            adj,
            units,
            apart: vec![0; n],
            memo: HashMap::new(),
            nodes: HashMap::new(),
            overflow: false,
            tests: 0,
        };
        // mustDistribute. A statement without loops shares no loop with any other.
        for s in 0..n {
            if legal.layout.iters[s] == 0 {
                f.apart[s] = f.all() & !(1 << s);
                for t in 0..n {
                    if t != s {
                        f.apart[t] |= 1 << s;
                    }
                }
            }
        }
        for s in 0..n {
            for t in members(f.adj[s]).into_iter().filter(|&t| t > s) {
                let pair = 1 << s | 1 << t;
                if f.apart[s] & pair == 0 && !f.fusable(pair) {
                    f.apart[s] |= 1 << t;
                    f.apart[t] |= 1 << s;
                }
            }
        }
        f
    }

    fn all(&self) -> Mask {
        if self.n == 0 {
            0
        } else {
            (1u64 << self.n) - 1
        }
    }

    /// The pairs of statements found unfusable (mustDistribute), each once, `(s, t)` with
    /// `s < t`. (For the tests.)
    #[cfg(test)]
    pub fn must_distribute(&self) -> Vec<(usize, usize)> {
        (0..self.n)
            .flat_map(|s| {
                members(self.apart[s])
                    .into_iter()
                    .filter(move |&t| t > s)
                    .map(move |t| (s, t))
            })
            .collect()
    }

    /// The units of statements that every legal interleaving keeps in one class (mustFuse),
    /// those of more than one statement, in topological order. (For the tests.)
    #[cfg(test)]
    pub fn must_fuse(&self) -> Vec<Vec<usize>> {
        self.units
            .iter()
            .filter(|u| u.count_ones() > 1)
            .map(|&u| members(u))
            .collect()
    }

    /// Can the statements of `m` share the outermost loop? [`Legal::fusable`], answered
    /// through the pruning: a single statement always; a set with an unfusable pair never;
    /// a set of independent groups when every group is; otherwise one test, remembered.
    pub fn fusable(&mut self, m: Mask) -> bool {
        if m.count_ones() <= 1 {
            return true;
        }
        if members(m).iter().any(|&s| self.apart[s] & m != 0) {
            return false;
        }
        let groups = self.groups(m);
        if groups.len() > 1 {
            return groups.into_iter().all(|g| self.fusable(g));
        }
        if let Some(&b) = self.memo.get(&m) {
            return b;
        }
        self.tests += 1;
        let b = self.legal.fusable(&members(m));
        self.memo.insert(m, b);
        b
    }

    /// The connected components of `m` in the dependence graph.
    fn groups(&self, m: Mask) -> Vec<Mask> {
        let mut left = m;
        let mut out = vec![];
        while left != 0 {
            let mut g: Mask = 1 << left.trailing_zeros();
            loop {
                let grown = members(g)
                    .into_iter()
                    .fold(g, |acc, s| acc | (self.adj[s] & m));
                if grown == g {
                    break;
                }
                g = grown;
            }
            out.push(g);
            left &= !g;
        }
        out
    }

    /// The legal first classes of `rem` (a union of units), in increasing mask order: grown
    /// unit by unit in topological order, a unit added only when every statement of `rem`
    /// it depends on is in the class already and the class stays fusable.
    fn firsts(&mut self, rem: Mask) -> Vec<Mask> {
        let units: Vec<Mask> = self
            .units
            .iter()
            .copied()
            .filter(|&u| u & rem != 0)
            .collect();
        let mut out = vec![];
        self.grow(rem, &units, 0, 0, &mut out);
        out.sort_unstable();
        out
    }

    fn grow(&mut self, rem: Mask, units: &[Mask], k: usize, cur: Mask, out: &mut Vec<Mask>) {
        if k == units.len() {
            if cur != 0 {
                out.push(cur);
            }
            return;
        }
        self.grow(rem, units, k + 1, cur, out);
        let u = units[k];
        let needs = members(u).into_iter().fold(0, |m, s| m | self.pred[s]) & rem & !u;
        if needs & !cur == 0 && self.fusable(cur | u) {
            self.grow(rem, units, k + 1, cur | u, out);
        }
    }

    /// The number of legal interleavings of the statements of `rem` (a union of units).
    fn count_of(&mut self, rem: Mask) -> u128 {
        if rem == 0 {
            return 1;
        }
        if let Some(node) = self.nodes.get(&rem) {
            return node.total;
        }
        if self.nodes.len() >= MAX_STATES {
            self.overflow = true;
            return 0;
        }
        let mut firsts = vec![];
        let mut total: u128 = 0;
        for c in self.firsts(rem) {
            let k = self.count_of(rem & !c);
            total = total.checked_add(k).unwrap_or_else(|| {
                self.overflow = true;
                u128::MAX
            });
            firsts.push((c, k));
        }
        self.nodes.insert(rem, Node { firsts, total });
        total
    }

    /// The number of legal outer interleavings.
    pub fn count(&mut self) -> u128 {
        self.count_of(self.all())
    }

    /// Whether [`Fusion::count`] is exact: false only past [`MAX_STATES`] states or
    /// `u128::MAX` interleavings (then it is a lower bound).
    pub fn exact(&self) -> bool {
        !self.overflow
    }

    /// The interleaving at position `rank` of the enumeration order (classes by increasing
    /// mask, as [`Legal::interleavings`] lists them); `None` past the last.
    pub fn unrank(&mut self, mut rank: u128) -> Option<Vec<Vec<usize>>> {
        let mut rem = self.all();
        let mut out = vec![];
        if rank >= self.count() {
            return None;
        }
        while rem != 0 {
            self.count_of(rem);
            let node = self.nodes.get(&rem)?;
            let mut next = None;
            for &(c, k) in &node.firsts {
                if rank < k {
                    next = Some(c);
                    break;
                }
                rank -= k;
            }
            let c = next?;
            out.push(members(c));
            rem &= !c;
        }
        Some(out)
    }

    /// The position of an interleaving in the enumeration order; `None` when it is not a
    /// legal interleaving (not a partition, a dependence backwards, a class not fusable).
    pub fn rank(&mut self, classes: &[Vec<usize>]) -> Option<u128> {
        let mut rem = self.all();
        let mut rank: u128 = 0;
        for class in classes {
            let c = class
                .iter()
                .try_fold(0 as Mask, |m, &s| (s < self.n).then_some(m | 1 << s))?;
            self.count_of(rem);
            let node = self.nodes.get(&rem)?;
            let at = node.firsts.iter().position(|&(f, _)| f == c)?;
            rank += node.firsts[..at].iter().map(|&(_, k)| k).sum::<u128>();
            rem &= !c;
        }
        (rem == 0).then_some(rank)
    }

    /// The interleavings to schedule, at most `max` of them, by rank: all of them when there
    /// are at most `max`; otherwise `keep` (when legal: the kernel's own) and evenly spaced
    /// ranks for the rest (`⌊k·count/m⌋`, `k = 0 … m−1`, the first included). Each with its
    /// rank, in increasing rank.
    pub fn select(
        &mut self,
        max: usize,
        keep: Option<&[Vec<usize>]>,
    ) -> Vec<(u128, Vec<Vec<usize>>)> {
        let total = self.count();
        let mut ranks: Vec<u128> = if total <= max as u128 {
            (0..total).collect()
        } else {
            let kept = keep.and_then(|k| self.rank(k)).filter(|_| max > 0);
            let m = (max - usize::from(kept.is_some())) as u128;
            let mut r: Vec<u128> = (0..m)
                .map(|k| k * (total / m) + k * (total % m) / m)
                .collect();
            r.extend(kept);
            r.sort_unstable();
            r.dedup();
            r
        };
        ranks.truncate(max);
        ranks
            .into_iter()
            .filter_map(|r| self.unrank(r).map(|il| (r, il)))
            .collect()
    }
}

/// The legal outer interleavings as the search takes them: how many there are, and the
/// ones it schedules.
#[derive(Clone, Debug)]
pub struct Outer {
    /// The number of legal outer interleavings (exact unless `exact` is false).
    pub count: u128,
    /// False only when counting went past [`MAX_STATES`]: `count` is then a lower bound.
    pub exact: bool,
    /// The interleavings scheduled, in enumeration order: each its classes in execution
    /// order, each class a sorted list of statements.
    pub list: Vec<Vec<Vec<usize>>>,
    /// The position of each in the enumeration order of all of them.
    pub ranks: Vec<u128>,
    /// Which of `list` is the kernel's own outer structure (absent when it is not a legal
    /// interleaving in this space).
    pub own: Option<usize>,
    /// Fusability tests run (emptiness tests).
    pub tests: usize,
}

impl Outer {
    /// The legal outer interleavings of `legal`, at most `max` of them scheduled
    /// ([`Fusion::select`], keeping `own`, the kernel's own outer structure).
    pub fn new(legal: &Legal, max: usize, own: &[Vec<usize>]) -> Outer {
        let mut f = legal.fusion();
        let count = f.count();
        let chosen = f.select(max, Some(own));
        let own_rank = f.rank(own);
        let own = own_rank.and_then(|r| chosen.iter().position(|(k, _)| *k == r));
        let (ranks, list) = chosen.into_iter().unzip();
        Outer {
            count,
            exact: f.exact(),
            list,
            ranks,
            own,
            tests: f.tests,
        }
    }
}
