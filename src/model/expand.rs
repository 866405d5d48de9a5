//! The plan of an array expansion (`expand(l, k, x)`, planned by `plan::expand`): the
//! scalar or array `x`, written and then read by the statements of `l`, gets one copy per
//! iteration of the outer `k` loops of `l` — storage `loopy_x_x[t0]..[t(k-1)][e0]..` — which
//! removes the memory-based dependences its reuse created between those iterations.
//!
//! An [`ExpandPlan`] says which accesses go to the storage and how: [`ExpandPlan::relation`]
//! (the expanded access, which the verifier's dependences are computed on),
//! [`ExpandPlan::storage_relation`] (the storage as declared, less the loops a `contract`
//! gave back), the storage's box and its write-back. [`apply`] is the one place the plans of
//! a program are applied to an access: the expanded program every stage reads
//! ([`super::program::Program`]) and the schedule state's accesses are made with it.
//!
//! `contract(x, [loops])` gives loops back ([`ExpandPlan::contract`]): the storage loses
//! their dimensions ([`ExpandPlan::storage_relation`], the box), while the verifier keeps
//! the expanded accesses ([`ExpandPlan::relation`]) and checks apart that the final
//! schedule lets the iterations share the smaller storage (`verify::contract`).

use super::copy::{Corner, Extent};
use super::marks::Origin;
use crate::presburger::build::input;
use crate::presburger::{Int, Map, Set, Tuple};

/// The default bound on the expanded storage's number of elements: 2^24 (128 MiB of
/// `double`).
pub const EXPAND_LIMIT: u64 = 1 << 24;

/// An access the expansions moved to a storage ([`apply`]).
#[derive(Clone, Debug)]
pub struct Expanded {
    /// The storage's name (the plan's [`ExpandPlan::name`]).
    pub array: String,
    /// The expanded access ([`ExpandPlan::relation`]): what dependences are computed on.
    pub relation: Map,
    /// The access to the storage as declared ([`ExpandPlan::storage_relation`]): what the
    /// code generator writes.
    pub storage: Map,
}

/// Where the access `rel` to `array` by statement `stmt` goes under the expansions `plans`
/// (in the order the script applied them): to the storage of the plan that expands it, or
/// nowhere (`None`). At most one plan does: each is planned on the program the earlier ones
/// left, and `expand` refuses to expand a storage.
pub fn apply(plans: &[ExpandPlan], stmt: usize, array: &str, rel: &Map) -> Option<Expanded> {
    let plan = plans
        .iter()
        .find(|p| p.array == array && p.stmts.contains(&stmt))?;
    Some(Expanded {
        array: plan.name.clone(),
        relation: plan.relation(rel),
        storage: plan.storage_relation(rel),
    })
}

/// One planned `expand`.
#[derive(Clone, Debug)]
pub struct ExpandPlan {
    /// The expanded variable: model name, C name, rank.
    pub array: String,
    pub c_name: String,
    pub rank: usize,
    /// The storage's C name (and model name): `loopy_x_x`.
    pub name: String,
    /// Number of outer loops (k) the variable was expanded along.
    pub outer: usize,
    /// The loops among those `k` (0-based) that a `contract` gave back, each with that
    /// `contract`, in the order given back: the storage has no dimension for them.
    pub given_back: Vec<(usize, Origin)>,
    /// The statements whose accesses to `x` go to the storage.
    pub stmts: Vec<usize>,
    pub limit: u64,
    pub origin: Origin,
    pub step: usize,
    /// Lower corner per storage dimension (`loops().len() + rank`), an expression of the
    /// parameters.
    pub lower: Vec<Corner>,
    /// Extent per storage dimension where constant; 0 where `runtime` holds it.
    pub size: Vec<Int>,
    pub runtime: Vec<Option<Extent>>,
    /// `{ [t, e] }`: the elements whose last write in the region is by `l`, each with the
    /// iteration (of all `k` loops) that wrote it last; written back after the region.
    /// Empty when none.
    pub write_back: Set,
}

impl ExpandPlan {
    /// Whether the storage is allocated when the region starts (its size depends on the
    /// parameters).
    pub fn allocated(&self) -> bool {
        self.runtime.iter().any(Option::is_some)
    }

    /// The storage's number of elements when it is a constant.
    pub fn elements(&self) -> Option<Int> {
        if self.allocated() {
            return None;
        }
        Some(self.size.iter().fold(Int::ONE, |a, s| &a * s))
    }

    /// The loops among the `k` (0-based, in order) whose counters index the storage's
    /// leading dimensions: all of them, less those given back.
    pub fn loops(&self) -> Vec<usize> {
        (0..self.outer)
            .filter(|l| !self.given_back.iter().any(|g| g.0 == *l))
            .collect()
    }

    /// Whether a `contract` gave loops back.
    pub fn is_contracted(&self) -> bool {
        !self.given_back.is_empty()
    }

    /// The storage's number of dimensions.
    pub fn storage_rank(&self) -> usize {
        self.outer - self.given_back.len() + self.rank
    }

    /// The expanded access relation of statement access `rel` (`S[i] -> x[e]`), as the
    /// verifier sees it: `S[i] -> loopy_x_x[i0..i(k-1), e]`, one leading dimension per loop
    /// expanded along, whether a `contract` gave it back or not (the dependences are those
    /// of the expanded program; a contraction is checked apart, `verify::contract`).
    pub fn relation(&self, rel: &Map) -> Map {
        self.prefixed(rel, &(0..self.outer).collect::<Vec<_>>())
    }

    /// The access relation of the storage as declared: `S[i] -> loopy_x_x[i(loops), e]`
    /// (the loops given back by a `contract` left out).
    pub fn storage_relation(&self, rel: &Map) -> Map {
        self.prefixed(rel, &self.loops())
    }

    /// `S[i] -> storage[i(loops), e]`.
    fn prefixed(&self, rel: &Map, loops: &[usize]) -> Map {
        let n = rel.n_in();
        let r = rel.n_out();
        let k = loops.len();
        let xs: Vec<String> = (0..n).map(|i| format!("i{i}")).collect();
        let dom = rel.space().domain.clone().expect("an access is a map");
        // [i] -> [i(loops)] beside the access, on one copy of i.
        let prefix = Map::from_affine(
            xs.clone(),
            &loops.iter().map(|&i| input(n, i)).collect::<Vec<_>>(),
        )
        .with_space_names(dom.clone(), Tuple::anonymous(k, "t"));
        let pair = prefix.product(rel);
        let diag = Map::from_affine(
            xs.clone(),
            &(0..2 * n).map(|i| input(n, i % n)).collect::<Vec<_>>(),
        )
        .with_space_names(dom.clone(), Tuple::anonymous(2 * n, "d"));
        let out_tuple = Tuple {
            name: Some(self.name.clone()),
            dims: (0..k + r).map(|d| format!("x{d}")).collect(),
        };
        diag.apply_range(&pair).with_space_names(dom, out_tuple)
    }

    /// The write-back's `{ [t, e] }` over the storage's dimensions (the loops given back
    /// projected out: each element's last value is in the one storage element left).
    pub fn storage_write_back(&self) -> Set {
        let mut wb = self.write_back.clone();
        // From the last dimension, so that the earlier ones keep their positions.
        let mut given: Vec<usize> = self.given_back.iter().map(|g| g.0).collect();
        given.sort_unstable();
        for &d in given.iter().rev() {
            wb = wb.project_out(d, 1);
        }
        wb
    }

    /// `text` with every access to `x` replaced by the storage's element, the loops' C names
    /// `iters` (outermost first) giving the leading subscripts.
    pub fn rewrite(
        &self,
        text: &str,
        iters: &[String],
        params: &[String],
    ) -> Result<String, String> {
        let accs = super::text::accesses(text, &self.c_name, self.rank)?;
        let mut out = String::with_capacity(text.len() + 32);
        let mut at = 0;
        for a in &accs {
            out.push_str(&text[at..a.span.start]);
            out.push_str(&self.name);
            let loops = self.loops();
            let subs = loops.iter().map(|&l| &iters[l]).chain(a.subs.iter());
            for (d, s) in subs.enumerate() {
                out.push_str(&format!("[{}]", self.index(d, s, params)));
            }
            at = a.span.end;
        }
        out.push_str(&text[at..]);
        Ok(out)
    }

    /// The index of subscript `s` along storage dimension `d`: `s` less the box's corner.
    pub fn index(&self, d: usize, s: &str, params: &[String]) -> String {
        let lo = self.lower[d].to_c(params, &[], "loopy_floord");
        if lo == "0" {
            s.to_string()
        } else {
            format!("({s}) - ({lo})")
        }
    }
}

impl ExpandPlan {
    /// The plan with the loops `give_back` (0-based among the `k`, each still indexing the
    /// storage) given back: their storage dimensions dropped from the box and from the
    /// storage's declaration. Whether the final schedule allows it is the verifier's
    /// question (`verify::contract`).
    pub fn contract(&self, give_back: &[usize], origin: &Origin) -> ExpandPlan {
        let mut out = self.clone();
        let loops = self.loops();
        // Storage dimensions of the loops given back, from the last.
        let mut dims: Vec<usize> = give_back
            .iter()
            .filter_map(|l| loops.iter().position(|m| m == l))
            .collect();
        dims.sort_unstable();
        dims.dedup();
        out.given_back
            .extend(dims.iter().map(|&d| (loops[d], origin.clone())));
        for &d in dims.iter().rev() {
            out.lower.remove(d);
            out.size.remove(d);
            out.runtime.remove(d);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presburger::{parse_map, Space};

    /// The expanded relation puts the outer iterators before the element.
    #[test]
    fn relation_prefixes_the_outer_iterators() {
        let rel = parse_map("[n] -> { S1[i, j] -> t[e] : e = j + 1 }", &[]).unwrap();
        let plan = ExpandPlan {
            array: "t".into(),
            c_name: "t".into(),
            rank: 1,
            name: "loopy_t_x".into(),
            outer: 1,
            given_back: vec![],
            stmts: vec![1],
            limit: EXPAND_LIMIT,
            origin: Origin {
                source: "s".into(),
                span: 0..1,
                what: "this `expand`".into(),
            },
            step: 0,
            lower: vec![],
            size: vec![],
            runtime: vec![],
            write_back: Set::universe(Space::set(&["n"], Tuple::anonymous(2, "t"))),
        };
        let got = plan.relation(&rel);
        let want = parse_map(
            "[n] -> { S1[i, j] -> loopy_t_x[a, b] : a = i and b = j + 1 }",
            &[],
        )
        .unwrap();
        assert_eq!(got.space().range.name.as_deref(), Some("loopy_t_x"));
        assert!(got.is_equal(&want), "{got}");
        // Not the relation with the inner iterator in front.
        let wrong = parse_map(
            "[n] -> { S1[i, j] -> loopy_t_x[a, b] : a = j and b = j + 1 }",
            &[],
        )
        .unwrap();
        assert!(!got.is_equal(&wrong));
    }
}
