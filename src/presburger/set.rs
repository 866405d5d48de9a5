//! Sets and maps: finite unions of conjunctions in a named space.
//!
//! [`Set`] and [`Map`] share their representation (a [`Space`] and a list of [`Basic`]
//! parts); the types keep the operations that only make sense for one of them apart, as isl
//! does. Every operation is exact over the integers.

use super::basic::Basic;
use super::budget::{self, Budgeted, Exhausted};
use super::int::Int;
use super::omega;
use super::pip;
use super::row::{self, Problem, Row};
use super::space::{Space, Tuple};
use std::collections::BTreeSet;

/// Why a question about a set has no finite answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoundError {
    /// Dimension `dim` (a name) is unbounded, below or above.
    Unbounded { dim: String },
    /// The parameters named were left free where a value is needed.
    FreeParams(Vec<String>),
    /// More points than the caller allowed.
    TooMany { limit: usize },
}

impl std::fmt::Display for BoundError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoundError::Unbounded { dim } => write!(f, "the set is unbounded in dimension `{dim}`"),
            BoundError::FreeParams(p) => write!(f, "parameters without a value: {}", p.join(", ")),
            BoundError::TooMany { limit } => write!(f, "the set has more than {limit} points"),
        }
    }
}

/// Why a question with a [`BoundError`] has no answer inside the core: that, or the work
/// budget ran out.
enum Fail {
    Bound(BoundError),
    Out(Exhausted),
}

impl From<BoundError> for Fail {
    fn from(e: BoundError) -> Fail {
        Fail::Bound(e)
    }
}

impl From<Exhausted> for Fail {
    fn from(e: Exhausted) -> Fail {
        Fail::Out(e)
    }
}

/// The budget's refusal outside, the answer or the [`BoundError`] inside.
fn split<T>(r: Result<T, Fail>) -> Budgeted<Result<T, BoundError>> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(Fail::Bound(e)) => Ok(Err(e)),
        Err(Fail::Out(e)) => Err(e),
    }
}

/// An integer point of a set or map, with the parameter values it was found for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Point {
    pub params: Vec<Int>,
    pub coords: Vec<Int>,
}

macro_rules! common_ops {
    ($t:ident) => {
        impl $t {
            /// The empty set or map in `space`.
            pub fn empty(space: Space) -> $t {
                $t {
                    space,
                    parts: vec![],
                }
            }

            /// Everything in `space`.
            pub fn universe(space: Space) -> $t {
                let b = Basic::universe(space.n_param(), space.n_dim());
                $t {
                    space,
                    parts: vec![b],
                }
            }

            /// A single conjunction in `space`.
            pub fn from_basic(space: Space, b: Basic) -> $t {
                debug_assert_eq!(b.n_param, space.n_param());
                debug_assert_eq!(b.n_dim, space.n_dim());
                $t {
                    space,
                    parts: vec![b],
                }
            }

            /// A union of the given conjunctions in `space`.
            pub fn from_parts(space: Space, parts: Vec<Basic>) -> $t {
                debug_assert!(parts
                    .iter()
                    .all(|b| b.n_param == space.n_param() && b.n_dim == space.n_dim()));
                $t { space, parts }
            }

            pub fn space(&self) -> &Space {
                &self.space
            }

            pub fn parts(&self) -> &[Basic] {
                &self.parts
            }

            /// Does every point satisfy `row >= 0` (over `[1, params, dims]`)? Exact, for
            /// all parameter values; a part that states the row as written is not tested.
            /// (Within a spent work budget: `true`; see [`budget`].)
            pub fn satisfies(&self, row: &[Int]) -> bool {
                budget::settle(|| self.try_satisfies(row), || true)
            }

            /// [`Self::satisfies`], or the refusal of the work budget.
            pub fn try_satisfies(&self, row: &[Int]) -> Budgeted<bool> {
                budget::operation(
                    "emptiness test",
                    || self.to_string(),
                    || {
                        for b in &self.parts {
                            if !b.try_satisfies(row)? {
                                return Ok(false);
                            }
                        }
                        Ok(true)
                    },
                )
            }

            /// Number of conjunctions in the union.
            pub fn n_basic(&self) -> usize {
                self.parts.len()
            }

            /// Reorders and extends the parameters to `params` (a superset of the current ones).
            pub fn align_params(&self, params: &[String]) -> $t {
                let (space, parts) = align(&self.space, &self.parts, params);
                $t { space, parts }
            }

            /// Union (parameters are merged by name).
            pub fn union(&self, other: &$t) -> $t {
                let (a, b) = (self, other);
                check_shape(&a.space, &b.space, "union");
                let params = a.space.merged_params(&b.space);
                let mut r = a.align_params(&params);
                r.parts.extend(b.align_params(&params).parts);
                r
            }

            /// The empty set or map in this space with the parameters of `self` and
            /// `other` (the placeholder answer of a binary operation within a spent work
            /// budget; see [`budget`]).
            fn empty_with(&self, other: &$t) -> $t {
                let mut space = self.space.clone();
                space.params = self.space.merged_params(&other.space);
                $t::empty(space)
            }

            /// Intersection (parameters are merged by name).
            pub fn intersect(&self, other: &$t) -> $t {
                budget::settle(|| self.try_intersect(other), || self.empty_with(other))
            }

            /// `self` and `other` over the same parameters (the checked shapes of `op`).
            fn aligned_with(&self, other: &$t, op: &str) -> ($t, $t) {
                check_shape(&self.space, &other.space, op);
                let params = self.space.merged_params(&other.space);
                (self.align_params(&params), other.align_params(&params))
            }

            /// [`Self::intersect`], or the refusal of the work budget.
            pub fn try_intersect(&self, other: &$t) -> Budgeted<$t> {
                let (a, b) = self.aligned_with(other, "intersect");
                let mut parts = vec![];
                for x in &a.parts {
                    for y in &b.parts {
                        let mut z = x.intersect(y);
                        if z.normalize() && !z.try_is_empty()? {
                            parts.push(z);
                        }
                    }
                }
                Ok($t {
                    space: a.space,
                    parts,
                })
            }

            /// Difference `self \ other`.
            pub fn subtract(&self, other: &$t) -> $t {
                budget::settle(|| self.try_subtract(other), || self.empty_with(other))
            }

            /// [`Self::subtract`], or the refusal of the work budget.
            pub fn try_subtract(&self, other: &$t) -> Budgeted<$t> {
                budget::operation(
                    "difference",
                    || self.to_string(),
                    || {
                        let (a, b) = self.aligned_with(other, "subtract");
                        let mut cur: Vec<Basic> = a.parts;
                        for y in &b.parts {
                            for yk in y.try_make_divs_known()? {
                                let mut next = vec![];
                                for x in &cur {
                                    next.extend(x.try_subtract(&yk)?);
                                }
                                cur = next;
                                if cur.is_empty() {
                                    break;
                                }
                            }
                        }
                        $t {
                            space: a.space,
                            parts: cur,
                        }
                        .try_tidy()
                    },
                )
            }

            /// Cheap clean-up after an operation: normalised rows, exactly eliminable
            /// locals removed, empty parts dropped. Unlike [`Self::simplify`] it does not
            /// search for redundant constraints or parts, which costs an emptiness test per
            /// constraint; results are printed after `simplify`.
            /// (Within a spent work budget: the same parts; see [`budget`].)
            pub fn tidy(&self) -> $t {
                budget::settle(|| self.try_tidy(), || self.clone())
            }

            /// [`Self::tidy`], or the refusal of the work budget.
            pub fn try_tidy(&self) -> Budgeted<$t> {
                self.tidy_parts(true)
            }

            /// [`Self::tidy`] for parts the caller knows to be non-empty: the same result
            /// without an emptiness test per part.
            pub fn tidy_nonempty(&self) -> $t {
                budget::settle(|| self.tidy_parts(false), || self.clone())
            }

            fn tidy_parts(&self, test_empty: bool) -> Budgeted<$t> {
                let mut parts = Vec::with_capacity(self.parts.len());
                for b in &self.parts {
                    if let Some(b) = b.clone().try_tidied(test_empty)? {
                        parts.push(b);
                    }
                }
                Ok($t {
                    space: self.space.clone(),
                    parts,
                })
            }

            /// The same points in no more parts: pairs of parts merged where one conjunction
            /// of their constraints holds exactly their points (see `coalesce.rs`).
            /// (Within a spent work budget: the same parts; see [`budget`].)
            pub fn coalesce(&self) -> $t {
                budget::settle(|| self.try_coalesce(), || self.clone())
            }

            /// The same points, with the parts whose constants step by one shift per
            /// part, one at an equality, made one (`coalesce::merge_shifted`: the rows of
            /// a register block, one residue each, make their strip, and so do their
            /// times). Exact, and without emptiness tests.
            pub fn merge_shifted(&self) -> $t {
                $t {
                    space: self.space.clone(),
                    parts: super::coalesce::merge_shifted(self.parts.clone()),
                }
            }

            /// [`Self::coalesce`], or the refusal of the work budget.
            pub fn try_coalesce(&self) -> Budgeted<$t> {
                budget::operation(
                    "coalescing",
                    || self.to_string(),
                    || {
                        Ok($t {
                            space: self.space.clone(),
                            parts: super::coalesce::coalesce(self.parts.clone())?,
                        })
                    },
                )
            }

            /// The form printed for people: parts simplified ([`Self::simplify`]), then
            /// coalesced ([`Self::coalesce`]), the merged parts simplified again. The same
            /// points; the operations themselves keep their parts as they are.
            pub fn for_print(&self) -> $t {
                let s = self.simplify();
                if s.parts.len() < 2 {
                    return s;
                }
                let c = s.coalesce();
                if c.parts.len() == s.parts.len() {
                    return s;
                }
                c.simplify()
            }

            /// Exact integer emptiness, over all parameter values. (Within a spent work
            /// budget: `true`; see [`budget`].)
            pub fn is_empty(&self) -> bool {
                budget::settle(|| self.try_is_empty(), || true)
            }

            /// [`Self::is_empty`], or the refusal of the work budget.
            pub fn try_is_empty(&self) -> Budgeted<bool> {
                budget::operation(
                    "emptiness test",
                    || self.to_string(),
                    || {
                        for b in &self.parts {
                            if !b.try_is_empty()? {
                                return Ok(false);
                            }
                        }
                        Ok(true)
                    },
                )
            }

            /// `self ⊆ other`, for all parameter values. (Within a spent work budget:
            /// `true`; see [`budget`].)
            pub fn is_subset(&self, other: &$t) -> bool {
                budget::settle(|| self.try_is_subset(other), || true)
            }

            /// [`Self::is_subset`], or the refusal of the work budget.
            pub fn try_is_subset(&self, other: &$t) -> Budgeted<bool> {
                budget::operation(
                    "subset test",
                    || self.to_string(),
                    || {
                        let (a, b) = self.aligned_with(other, "is_subset");
                        parts_within(a.parts, &b.parts)
                    },
                )
            }

            /// Same points for all parameter values. (Within a spent work budget: `true`;
            /// see [`budget`].)
            pub fn is_equal(&self, other: &$t) -> bool {
                budget::settle(|| self.try_is_equal(other), || true)
            }

            /// [`Self::is_equal`], or the refusal of the work budget.
            pub fn try_is_equal(&self, other: &$t) -> Budgeted<bool> {
                Ok(self.try_is_subset(other)? && other.try_is_subset(self)?)
            }

            /// One integer point with the parameter values it was found for. (Within a
            /// spent work budget: none; see [`budget`].)
            pub fn sample(&self) -> Option<Point> {
                budget::settle(|| self.try_sample(), || None)
            }

            /// [`Self::sample`], or the refusal of the work budget.
            pub fn try_sample(&self) -> Budgeted<Option<Point>> {
                budget::operation(
                    "sampling",
                    || self.to_string(),
                    || {
                        let np = self.space.n_param();
                        let nd = self.space.n_dim();
                        for b in &self.parts {
                            if let Some(v) = b.try_sample()? {
                                return Ok(Some(Point {
                                    params: v[..np].to_vec(),
                                    coords: v[np..np + nd].to_vec(),
                                }));
                            }
                        }
                        Ok(None)
                    },
                )
            }

            /// The lexicographically smallest point counting parameters first: the smallest
            /// parameter values for which the set is non-empty, then the smallest point for
            /// them. A column unbounded below takes the value of some witness instead (so the
            /// answer is always a real point). `None` when empty.
            /// (Within a spent work budget: none; see [`budget`].)
            pub fn lexmin_with_params(&self) -> Option<Point> {
                budget::settle(|| self.try_lexmin_with_params(), || None)
            }

            /// [`Self::lexmin_with_params`], or the refusal of the work budget.
            pub fn try_lexmin_with_params(&self) -> Budgeted<Option<Point>> {
                let np = self.space.n_param();
                let nd = self.space.n_dim();
                let mut best: Option<Vec<Int>> = None;
                for b in &self.parts {
                    if let Some(pt) = b.try_lexmin_prefix(np + nd)? {
                        if best.as_ref().is_none_or(|b| pt < *b) {
                            best = Some(pt);
                        }
                    }
                }
                Ok(best.map(|v| Point {
                    params: v[..np].to_vec(),
                    coords: v[np..].to_vec(),
                }))
            }

            /// Simplifies every part, drops empty parts and parts contained in another part.
            /// (Within a spent work budget: the same parts; see [`budget`].)
            pub fn simplify(&self) -> $t {
                budget::settle(|| self.try_simplify(), || self.clone())
            }

            /// [`Self::simplify`], or the refusal of the work budget.
            pub fn try_simplify(&self) -> Budgeted<$t> {
                budget::operation(
                    "simplification",
                    || self.to_string(),
                    || {
                        let mut parts: Vec<Basic> = vec![];
                        for b in &self.parts {
                            let mut b = b.clone();
                            if b.try_simplify()? && !parts.contains(&b) {
                                parts.push(b);
                            }
                        }
                        // Drop parts covered by another single part.
                        let mut keep = vec![true; parts.len()];
                        for i in 0..parts.len() {
                            for j in 0..parts.len() {
                                if i != j
                                    && keep[j]
                                    && keep[i]
                                    && parts_within(
                                        vec![parts[i].clone()],
                                        std::slice::from_ref(&parts[j]),
                                    )?
                                {
                                    keep[i] = false;
                                }
                            }
                        }
                        let parts = parts
                            .into_iter()
                            .zip(keep)
                            .filter_map(|(b, k)| k.then_some(b))
                            .collect();
                        Ok($t {
                            space: self.space.clone(),
                            parts,
                        })
                    },
                )
            }

            /// Fixes the named parameter to a value (the parameter stays in the space).
            pub fn fix_param(&self, name: &str, v: &Int) -> Option<$t> {
                let i = self.space.param_index(name)?;
                let mut r = self.clone();
                for b in r.parts.iter_mut() {
                    b.fix_col(1 + i, v);
                }
                Some(r)
            }

            /// Fixes each named parameter the space has to its value; the others are left
            /// alone.
            pub fn fix_params<'n>(
                &self,
                values: impl IntoIterator<Item = (&'n str, &'n Int)>,
            ) -> $t {
                (values.into_iter()).fold(self.clone(), |s, (n, v)| s.fix_param(n, v).unwrap_or(s))
            }

            /// Does the union contain this point (parameter values and coordinates)?
            /// (Within a spent work budget: `false`; see [`budget`].)
            pub fn contains(&self, p: &Point) -> bool {
                budget::settle(|| self.try_contains(p), || false)
            }

            /// [`Self::contains`], or the refusal of the work budget.
            pub fn try_contains(&self, p: &Point) -> Budgeted<bool> {
                let mut v = p.params.clone();
                v.extend(p.coords.iter().cloned());
                for b in &self.parts {
                    if b.try_contains(&v)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }

            /// Adds a conjunction of extra constraints to every part (rows over
            /// `[1, params, dims]`, no locals).
            pub fn add_constraints(&self, eqs: &[Row], ineqs: &[Row]) -> $t {
                let mut r = self.clone();
                for b in r.parts.iter_mut() {
                    let pad = |row: &Row| {
                        let mut x = row.clone();
                        x.resize(b.width(), Int::ZERO);
                        x
                    };
                    let e: Vec<Row> = eqs.iter().map(pad).collect();
                    let i: Vec<Row> = ineqs.iter().map(pad).collect();
                    b.eqs.extend(e);
                    b.ineqs.extend(i);
                }
                r
            }
        }
    };
}

/// A union of conjunctions over a set space.
#[derive(Clone, Debug)]
pub struct Set {
    space: Space,
    parts: Vec<Basic>,
}

/// A union of conjunctions over a map space (`domain -> range`).
#[derive(Clone, Debug)]
pub struct Map {
    space: Space,
    parts: Vec<Basic>,
}

common_ops!(Set);
common_ops!(Map);

fn check_shape(a: &Space, b: &Space, op: &str) {
    assert!(
        a.same_shape(b),
        "{op}: spaces differ ({:?} vs {:?})",
        a.dim_names(),
        b.dim_names()
    );
}

/// Whether every point of `parts` is in the union of `within`: the difference taken
/// part by part, where the last part taken away stops at the first point left over (every
/// piece of a difference is non-empty).
fn parts_within(parts: Vec<Basic>, within: &[Basic]) -> Budgeted<bool> {
    let mut cur = parts;
    let mut away = vec![];
    for y in within {
        away.extend(y.try_make_divs_known()?);
    }
    for (k, y) in away.iter().enumerate() {
        let last = k + 1 == away.len();
        let mut next = vec![];
        for x in &cur {
            if last {
                if x.try_sticks_out_of(y)? {
                    return Ok(false);
                }
            } else {
                next.extend(x.try_subtract(y)?);
            }
        }
        if last {
            return Ok(true);
        }
        cur = next;
        if cur.is_empty() {
            return Ok(true);
        }
    }
    // Nothing to take away: a subset where there is no point.
    for x in &cur {
        if !x.try_is_empty()? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn align(space: &Space, parts: &[Basic], params: &[String]) -> (Space, Vec<Basic>) {
    if space.params == params {
        return (space.clone(), parts.to_vec());
    }
    let old = &space.params;
    let np_new = params.len();
    let np_old = old.len();
    let mut out = vec![];
    for b in parts {
        let mut nb = b.clone();
        // Append the new parameters at the end of the parameter block, then permute.
        let missing = np_new - np_old;
        nb.insert_params(np_old, missing);
        let mut extra = np_old;
        let mut perm = vec![0usize];
        for p in params {
            match old.iter().position(|q| q == p) {
                Some(i) => perm.push(1 + i),
                None => {
                    perm.push(1 + extra);
                    extra += 1;
                }
            }
        }
        perm.extend(1 + np_new..nb.width());
        nb.permute_cols(&perm);
        out.push(nb);
    }
    let mut s = space.clone();
    s.params = params.to_vec();
    (s, out)
}

impl Set {
    /// The space's tuple.
    pub fn tuple(&self) -> &Tuple {
        &self.space.range
    }

    pub fn n_dim(&self) -> usize {
        self.space.n_out()
    }

    /// Projects out `n` dimensions starting at `pos` (exactly: they become existential).
    /// (Within a spent work budget: empty; see [`budget`].)
    pub fn project_out(&self, pos: usize, n: usize) -> Set {
        budget::settle(
            || self.try_project_out(pos, n),
            || {
                let mut space = self.space.clone();
                space.range.dims.drain(pos..pos + n);
                Set::empty(space)
            },
        )
    }

    /// [`Self::project_out`], or the refusal of the work budget.
    pub fn try_project_out(&self, pos: usize, n: usize) -> Budgeted<Set> {
        budget::operation(
            "projection",
            || self.to_string(),
            || {
                let mut space = self.space.clone();
                space.range.dims.drain(pos..pos + n);
                let parts = self.parts.iter().map(|b| b.project_dims(pos, n)).collect();
                Set { space, parts }.try_tidy()
            },
        )
    }

    /// The image of the set under a map. (Within a spent work budget: empty; see
    /// [`budget`].)
    pub fn apply(&self, map: &Map) -> Set {
        budget::settle(|| self.try_apply(map), || map.empty_range(self))
    }

    /// [`Self::apply`], or the refusal of the work budget.
    pub fn try_apply(&self, map: &Map) -> Budgeted<Set> {
        map.try_intersect_domain(self)?.try_range()
    }

    /// The preimage of the set under a map: `{ x : map(x) ∩ self ≠ ∅ }`. (Within a spent
    /// work budget: empty; see [`budget`].)
    pub fn preimage(&self, map: &Map) -> Set {
        budget::settle(
            || self.try_preimage(map),
            || map.inverse().empty_range(self),
        )
    }

    /// [`Self::preimage`], or the refusal of the work budget.
    pub fn try_preimage(&self, map: &Map) -> Budgeted<Set> {
        map.try_intersect_range(self)?.try_domain()
    }

    /// Cartesian product `[a] × [b] → [a, b]`.
    pub fn product(&self, other: &Set) -> Set {
        let params = self.space.merged_params(&other.space);
        let a = self.align_params(&params);
        let b = other.align_params(&params);
        let (na, nb) = (a.n_dim(), b.n_dim());
        let mut dims = a.space.range.dims.clone();
        dims.extend(b.space.range.dims.iter().cloned());
        let space = Space {
            params,
            domain: None,
            range: Tuple { name: None, dims },
        };
        let mut parts = vec![];
        for x in &a.parts {
            for y in &b.parts {
                let mut x = x.clone();
                x.insert_dims(na, nb);
                let mut y = y.clone();
                y.insert_dims(0, na);
                parts.push(x.intersect(&y));
            }
        }
        Set { space, parts }
    }

    /// The identity map on this set's space, restricted to the set. (Within a spent work
    /// budget: empty; see [`budget`].)
    pub fn identity(&self) -> Map {
        budget::settle(
            || self.try_identity(),
            || {
                let space = Space {
                    params: self.space.params.clone(),
                    domain: Some(self.space.range.clone()),
                    range: self.space.range.clone(),
                };
                Map::empty(space)
            },
        )
    }

    /// [`Self::identity`], or the refusal of the work budget.
    pub fn try_identity(&self) -> Budgeted<Map> {
        let n = self.n_dim();
        let space = Space {
            params: self.space.params.clone(),
            domain: Some(self.space.range.clone()),
            range: self.space.range.clone(),
        };
        let mut b = Basic::universe(space.n_param(), 2 * n);
        for i in 0..n {
            let mut r = b.zero_row();
            r[b.col_dim(i)] = Int::ONE;
            r[b.col_dim(n + i)] = Int::from(-1);
            b.add_eq(r);
        }
        Map::from_basic(space, b).try_intersect_domain(self)
    }

    /// Every integer point, in lexicographic order. Every parameter must be fixed (by
    /// `fix_param` or by the set's own constraints) and the set must be bounded.
    /// (Within a spent work budget: no point; see [`budget`].)
    pub fn points(&self, limit: usize) -> Result<Vec<Vec<Int>>, BoundError> {
        budget::settle(|| self.try_points(limit), || Ok(vec![]))
    }

    /// [`Self::points`], or the refusal of the work budget.
    pub fn try_points(&self, limit: usize) -> Budgeted<Result<Vec<Vec<Int>>, BoundError>> {
        budget::operation(
            "enumeration",
            || self.to_string(),
            || split(self.points_in(limit)),
        )
    }

    fn points_in(&self, limit: usize) -> Result<Vec<Vec<Int>>, Fail> {
        let mut out: BTreeSet<Vec<Int>> = BTreeSet::new();
        let np = self.space.n_param();
        for b in &self.parts {
            let p = b.to_problem();
            if !omega::try_is_feasible(&p)? {
                continue;
            }
            // Parameters must be pinned down.
            for i in 0..np {
                let (lo, hi) = omega::try_exact_range(&p, 1 + i)?;
                if lo.is_none() || hi.is_none() || lo != hi {
                    return Err(BoundError::FreeParams(free_params(self, &p)?).into());
                }
            }
            let mut prefix = vec![];
            enumerate(
                &p,
                np,
                self.n_dim(),
                &mut prefix,
                &mut out,
                limit,
                &self.space.range.dims,
            )?;
        }
        Ok(out.into_iter().collect())
    }

    /// The lexicographically smallest point for the set's (fixed or absent) parameters.
    pub fn lexmin_point(&self) -> Result<Option<Vec<Int>>, BoundError> {
        self.lex_opt_point(false)
    }

    /// The lexicographically largest point.
    pub fn lexmax_point(&self) -> Result<Option<Vec<Int>>, BoundError> {
        self.lex_opt_point(true)
    }

    /// (Within a spent work budget: none; see [`budget`].)
    fn lex_opt_point(&self, max: bool) -> Result<Option<Vec<Int>>, BoundError> {
        budget::settle(|| self.try_lex_opt_point(max), || Ok(None))
    }

    /// [`Self::lexmin_point`] (`max` false) or [`Self::lexmax_point`], or the refusal of
    /// the work budget.
    pub fn try_lex_opt_point(&self, max: bool) -> Budgeted<Result<Option<Vec<Int>>, BoundError>> {
        let name = if max { "lexmax" } else { "lexmin" };
        budget::operation(
            name,
            || self.to_string(),
            || split(self.lex_opt_point_in(max)),
        )
    }

    fn lex_opt_point_in(&self, max: bool) -> Result<Option<Vec<Int>>, Fail> {
        let np = self.space.n_param();
        let mut best: Option<Vec<Int>> = None;
        for b in &self.parts {
            let mut p = b.to_problem();
            if !omega::try_is_feasible(&p)? {
                continue;
            }
            for i in 0..np {
                let (lo, hi) = omega::try_exact_range(&p, 1 + i)?;
                if lo.is_none() || hi.is_none() || lo != hi {
                    return Err(BoundError::FreeParams(free_params(self, &p)?).into());
                }
            }
            let mut pt = vec![];
            for d in 0..self.n_dim() {
                let col = 1 + np + d;
                let (lo, hi) = omega::try_exact_range(&p, col)?;
                let v = if max { hi } else { lo };
                let Some(v) = v else {
                    return Err(BoundError::Unbounded {
                        dim: self.space.range.dims[d].clone(),
                    }
                    .into());
                };
                let mut r = vec![Int::ZERO; p.n + 1];
                r[col] = Int::ONE;
                r[0] = -&v;
                p.eqs.push(r);
                pt.push(v);
            }
            let better = match &best {
                None => true,
                Some(b) => (max && pt > *b) || (!max && pt < *b),
            };
            if better {
                best = Some(pt);
            }
        }
        Ok(best)
    }

    /// Parametric lexicographic minimum: for each parameter value, the set holding the
    /// smallest point. Errors if some dimension is unbounded below.
    pub fn lexmin(&self) -> Result<Set, BoundError> {
        self.lex_opt(false)
    }

    /// Parametric lexicographic maximum.
    pub fn lexmax(&self) -> Result<Set, BoundError> {
        self.lex_opt(true)
    }

    /// (Within a spent work budget: empty; see [`budget`].)
    fn lex_opt(&self, max: bool) -> Result<Set, BoundError> {
        budget::settle(
            || self.try_lex_opt(max),
            || Ok(Set::empty(self.space.clone())),
        )
    }

    /// [`Self::lexmin`] (`max` false) or [`Self::lexmax`], or the refusal of the work
    /// budget.
    pub fn try_lex_opt(&self, max: bool) -> Budgeted<Result<Set, BoundError>> {
        budget::operation(
            if max { "lexmax" } else { "lexmin" },
            || self.to_string(),
            || {
                if let Err(e) = self.try_check_bounded(!max, max)? {
                    return Ok(Err(e));
                }
                Ok(Ok(match self.try_lex_opt_pip(max)? {
                    Some(s) => s,
                    None => self.try_lex_opt_by_subtraction(max)?,
                }))
            },
        )
    }

    /// Parametric lexicographic optimum by parametric integer programming
    /// ([`super::pip`]); `None` when the solver gives up (a dimension unbounded for some
    /// parameter values, or a cut loop past its guard), which no known input does. The
    /// caller checks boundedness first.
    #[doc(hidden)]
    pub fn lex_opt_pip(&self, max: bool) -> Option<Set> {
        budget::settle(|| self.try_lex_opt_pip(max), || None)
    }

    fn try_lex_opt_pip(&self, max: bool) -> Budgeted<Option<Set>> {
        let Ok(parts) = pip::try_lexopt(&self.parts, max)? else {
            return Ok(None);
        };
        let set = Set {
            space: self.space.clone(),
            parts,
        };
        Ok(Some(set.tidy_parts(false)?))
    }

    /// Parametric lexicographic optimum as `S \ { x : ∃ y ∈ S, y ≺ x }`: exact but
    /// exponential on sets with divisions (kept as the fallback of [`Self::lexmin`] and as
    /// a test oracle).
    #[doc(hidden)]
    pub fn lex_opt_by_subtraction(&self, max: bool) -> Set {
        budget::settle(
            || self.try_lex_opt_by_subtraction(max),
            || Set::empty(self.space.clone()),
        )
    }

    fn try_lex_opt_by_subtraction(&self, max: bool) -> Budgeted<Set> {
        let order = if max {
            Map::lex_gt(self.space.params.clone(), self.space.range.clone())
        } else {
            Map::lex_lt(self.space.params.clone(), self.space.range.clone())
        };
        let dominated = self.try_apply(&order)?;
        self.try_subtract(&dominated)
    }

    /// Checks (rationally, which is exact for non-empty sets) that every dimension has a
    /// lower (`lower`) and/or upper (`upper`) bound in terms of the parameters.
    /// (Within a spent work budget: `Ok`; see [`budget`].)
    pub fn check_bounded(&self, lower: bool, upper: bool) -> Result<(), BoundError> {
        budget::settle(|| self.try_check_bounded(lower, upper), || Ok(()))
    }

    /// [`Self::check_bounded`], or the refusal of the work budget.
    pub fn try_check_bounded(&self, lower: bool, upper: bool) -> Budgeted<Result<(), BoundError>> {
        let np = self.space.n_param();
        for b in &self.parts {
            let p = b.to_problem();
            if !omega::try_is_feasible(&p)? {
                continue;
            }
            for d in 0..self.n_dim() {
                let col = 1 + np + d;
                let keep: Vec<usize> = (1..=np).chain(std::iter::once(col)).collect();
                let rows = row::project_rational(&p, &keep)?;
                let has = |pos: bool| {
                    rows.iter().any(|r| {
                        if pos {
                            r[col].is_positive()
                        } else {
                            r[col].is_negative()
                        }
                    })
                };
                if (lower && !has(true)) || (upper && !has(false)) {
                    return Ok(Err(BoundError::Unbounded {
                        dim: self.space.range.dims[d].clone(),
                    }));
                }
            }
        }
        Ok(Ok(()))
    }
}

fn free_params(s: &Set, p: &Problem) -> Budgeted<Vec<String>> {
    let mut out = vec![];
    for i in 0..s.space.n_param() {
        let (lo, hi) = omega::try_exact_range(p, 1 + i)?;
        if lo.is_none() || hi.is_none() || lo != hi {
            out.push(s.space.params[i].clone());
        }
    }
    Ok(out)
}

fn enumerate(
    p: &Problem,
    np: usize,
    nd: usize,
    prefix: &mut Vec<Int>,
    out: &mut BTreeSet<Vec<Int>>,
    limit: usize,
    names: &[String],
) -> Result<(), Fail> {
    let d = prefix.len();
    if d == nd {
        out.insert(prefix.clone());
        if out.len() > limit {
            return Err(BoundError::TooMany { limit }.into());
        }
        return Ok(());
    }
    let col = 1 + np + d;
    let (lo, hi) = omega::try_exact_range(p, col)?;
    let (Some(lo), Some(hi)) = (lo, hi) else {
        return Err(BoundError::Unbounded {
            dim: names[d].clone(),
        }
        .into());
    };
    let mut v = lo;
    while v <= hi {
        let mut q = p.clone();
        let mut r = vec![Int::ZERO; p.n + 1];
        r[col] = Int::ONE;
        r[0] = -&v;
        q.eqs.push(r);
        if omega::try_is_feasible(&q)? {
            prefix.push(v.clone());
            enumerate(&q, np, nd, prefix, out, limit, names)?;
            prefix.pop();
        }
        v = &v + &Int::ONE;
    }
    Ok(())
}

impl Map {
    pub fn n_in(&self) -> usize {
        self.space.n_in()
    }

    pub fn n_out(&self) -> usize {
        self.space.n_out()
    }

    /// A map from a set of `n_in + n_out` dimensions (the first `n_in` become inputs).
    pub fn from_set(set: &Set, n_in: usize) -> Map {
        let dims = set.space.range.dims.clone();
        let space = Space {
            params: set.space.params.clone(),
            domain: Some(Tuple {
                name: None,
                dims: dims[..n_in].to_vec(),
            }),
            range: Tuple {
                name: None,
                dims: dims[n_in..].to_vec(),
            },
        };
        Map {
            space,
            parts: set.parts.clone(),
        }
    }

    /// The set of `[inputs, outputs]` pairs.
    pub fn wrap(&self) -> Set {
        let mut dims = self
            .space
            .domain
            .as_ref()
            .map(|t| t.dims.clone())
            .unwrap_or_default();
        dims.extend(self.space.range.dims.iter().cloned());
        Set {
            space: Space {
                params: self.space.params.clone(),
                domain: None,
                range: Tuple { name: None, dims },
            },
            parts: self.parts.clone(),
        }
    }

    /// Parametric lexicographic maximum of the outputs for each input (isl's
    /// `isl_map_lexmax`): the inputs are read as parameters (their columns come right after
    /// the parameters', so no column moves), the optimum is [`Set::lexmax`]'s, and they
    /// are made inputs again. Errors where an output is unbounded above.
    pub fn lexmax(&self) -> Result<Map, BoundError> {
        self.lex_opt_map(true)
    }

    /// Parametric lexicographic minimum of the outputs for each input.
    pub fn lexmin(&self) -> Result<Map, BoundError> {
        self.lex_opt_map(false)
    }

    fn lex_opt_map(&self, max: bool) -> Result<Map, BoundError> {
        let (np, ni, no) = (self.space.n_param(), self.n_in(), self.n_out());
        let mut params = self.space.params.clone();
        params.extend((0..ni).map(|k| format!("in{k}'")));
        let retag = |parts: &[Basic], n_param: usize, n_dim: usize| -> Vec<Basic> {
            parts
                .iter()
                .map(|b| {
                    let mut b = b.clone();
                    b.n_param = n_param;
                    b.n_dim = n_dim;
                    b
                })
                .collect()
        };
        let set = Set {
            space: Space {
                params,
                domain: None,
                range: self.space.range.clone(),
            },
            parts: retag(&self.parts, np + ni, no),
        };
        let opt = set.lex_opt(max)?;
        Ok(Map {
            space: self.space.clone(),
            parts: retag(&opt.parts, np, ni + no),
        })
    }

    /// `{ y -> x : x -> y ∈ self }`.
    pub fn inverse(&self) -> Map {
        let (ni, no) = (self.n_in(), self.n_out());
        let np = self.space.n_param();
        let parts = self
            .parts
            .iter()
            .map(|b| {
                let mut b = b.clone();
                let mut perm: Vec<usize> = (0..1 + np).collect();
                perm.extend((0..no).map(|i| 1 + np + ni + i));
                perm.extend((0..ni).map(|i| 1 + np + i));
                perm.extend(1 + np + ni + no..b.width());
                b.permute_cols(&perm);
                b
            })
            .collect();
        let space = Space {
            params: self.space.params.clone(),
            domain: Some(self.space.range.clone()),
            range: self.space.domain.clone().expect("map"),
        };
        Map { space, parts }
    }

    /// The empty set over this map's outputs, with the parameters of `self` and `set` (the
    /// placeholder image of `set` within a spent work budget; see [`budget`]).
    fn empty_range(&self, set: &Set) -> Set {
        Set::empty(Space {
            params: self.space.merged_params(&set.space),
            domain: None,
            range: self.space.range.clone(),
        })
    }

    /// The set of inputs that have an image. (Within a spent work budget: empty; see
    /// [`budget`].)
    pub fn domain(&self) -> Set {
        budget::settle(
            || self.try_domain(),
            || {
                Set::empty(Space {
                    params: self.space.params.clone(),
                    domain: None,
                    range: self.space.domain.clone().expect("map"),
                })
            },
        )
    }

    /// [`Self::domain`], or the refusal of the work budget.
    pub fn try_domain(&self) -> Budgeted<Set> {
        let ni = self.n_in();
        let parts = self
            .parts
            .iter()
            .map(|b| b.project_dims(ni, self.n_out()))
            .collect();
        Set {
            space: Space {
                params: self.space.params.clone(),
                domain: None,
                range: self.space.domain.clone().expect("map"),
            },
            parts,
        }
        .try_tidy()
    }

    /// The set of outputs. (Within a spent work budget: empty; see [`budget`].)
    pub fn range(&self) -> Set {
        self.inverse().domain()
    }

    /// [`Self::range`], or the refusal of the work budget.
    pub fn try_range(&self) -> Budgeted<Set> {
        self.inverse().try_domain()
    }

    /// Restricts the inputs to a set. (Within a spent work budget: empty; see
    /// [`budget`].)
    pub fn intersect_domain(&self, set: &Set) -> Map {
        budget::settle(
            || self.try_intersect_domain(set),
            || {
                let mut space = self.space.clone();
                space.params = self.space.merged_params(&set.space);
                Map::empty(space)
            },
        )
    }

    /// [`Self::intersect_domain`], or the refusal of the work budget.
    pub fn try_intersect_domain(&self, set: &Set) -> Budgeted<Map> {
        assert_eq!(
            set.n_dim(),
            self.n_in(),
            "intersect_domain: dimension mismatch"
        );
        let params = self.space.merged_params(&set.space);
        let m = self.align_params(&params);
        let s = set.align_params(&params);
        let no = m.n_out();
        let mut parts = vec![];
        for x in &m.parts {
            for y in &s.parts {
                let mut y = y.clone();
                y.insert_dims(y.n_dim, no);
                let mut z = x.intersect(&y);
                if z.normalize() && !z.try_is_empty()? {
                    parts.push(z);
                }
            }
        }
        Ok(Map {
            space: m.space,
            parts,
        })
    }

    /// Restricts the outputs to a set. (Within a spent work budget: empty; see
    /// [`budget`].)
    pub fn intersect_range(&self, set: &Set) -> Map {
        self.inverse().intersect_domain(set).inverse()
    }

    /// [`Self::intersect_range`], or the refusal of the work budget.
    pub fn try_intersect_range(&self, set: &Set) -> Budgeted<Map> {
        Ok(self.inverse().try_intersect_domain(set)?.inverse())
    }

    /// `{ x -> z : ∃ y, x -> y ∈ self ∧ y -> z ∈ next }` (apply `self` first, then `next`).
    /// (Within a spent work budget: empty; see [`budget`].)
    pub fn apply_range(&self, next: &Map) -> Map {
        budget::settle(
            || self.try_apply_range(next),
            || {
                Map::empty(Space {
                    params: self.space.merged_params(&next.space),
                    domain: self.space.domain.clone(),
                    range: next.space.range.clone(),
                })
            },
        )
    }

    /// [`Self::apply_range`], or the refusal of the work budget.
    pub fn try_apply_range(&self, next: &Map) -> Budgeted<Map> {
        budget::operation(
            "composition",
            || self.to_string(),
            || {
                assert_eq!(self.n_out(), next.n_in(), "apply_range: dimension mismatch");
                let params = self.space.merged_params(&next.space);
                let f = self.align_params(&params);
                let g = next.align_params(&params);
                let (a, b, c) = (f.n_in(), f.n_out(), g.n_out());
                // Each pair is tidied as it is formed: a composition of two unions of
                // many parts has as many pairs as the product, nearly all empty, and
                // holding them all before tidying them took most of its time (allocation).
                let ys: Vec<Basic> = (g.parts.iter())
                    .map(|y| {
                        let mut y = y.clone();
                        y.insert_dims(0, a);
                        y
                    })
                    .collect();
                let mut parts = vec![];
                for x in &f.parts {
                    let mut x = x.clone();
                    x.insert_dims(a + b, c);
                    for y in &ys {
                        let mut z = x.intersect(y);
                        // Empty by its equalities or bounds alone: nothing to project.
                        if !z.normalize() {
                            budget::tick(1)?;
                            continue;
                        }
                        if let Some(z) = z.project_dims(a, b).try_tidied(true)? {
                            parts.push(z);
                        }
                    }
                }
                Ok(Map {
                    space: Space {
                        params,
                        domain: f.space.domain.clone(),
                        range: g.space.range.clone(),
                    },
                    parts,
                })
            },
        )
    }

    /// `{ x -> y : x ∈ dom, y ∈ ran }`.
    pub fn from_domain_and_range(dom: &Set, ran: &Set) -> Map {
        let p = dom.product(ran);
        let mut m = Map::from_set(&p, dom.n_dim());
        m.space.domain = Some(dom.space.range.clone());
        m.space.range = ran.space.range.clone();
        m
    }

    /// Is every input mapped to at most one output? (exact, for all parameter values)
    /// (Within a spent work budget: `true`; see [`budget`].)
    pub fn is_single_valued(&self) -> bool {
        self.inverse().is_injective()
    }

    /// Does no output come from two different inputs? (Within a spent work budget: `true`;
    /// see [`budget`].)
    pub fn is_injective(&self) -> bool {
        self.injectivity_witness().is_none()
    }

    /// Two different inputs with a common output, as `[x1.., x2..]` over parameters, if any.
    /// (Within a spent work budget: none; see [`budget`].)
    pub fn injectivity_witness(&self) -> Option<Point> {
        budget::settle(|| self.try_injectivity_witness(), || None)
    }

    /// [`Self::injectivity_witness`], or the refusal of the work budget.
    pub fn try_injectivity_witness(&self) -> Budgeted<Option<Point>> {
        budget::operation(
            "injectivity test",
            || self.to_string(),
            || {
                // { x1 -> x2 : f(x1) = f(x2), x1 ≠ x2 }
                let collide = self.try_apply_range(&self.inverse())?;
                let space = collide.space.clone();
                let ne =
                    Map::lex_lt(space.params.clone(), space.domain.clone().expect("map")).union(
                        &Map::lex_gt(space.params.clone(), space.domain.clone().expect("map")),
                    );
                let ne = Map {
                    space: space.clone(),
                    parts: ne.parts,
                };
                collide.try_intersect(&ne)?.try_sample()
            },
        )
    }

    fn lex_order(params: Vec<String>, tuple: Tuple, strict: bool, less: bool) -> Map {
        let n = tuple.len();
        let np = params.len();
        let mut out_tuple = tuple.clone();
        out_tuple.dims = tuple.dims.iter().map(|d| format!("{d}'")).collect();
        let space = Space {
            params,
            domain: Some(tuple),
            range: out_tuple,
        };
        let mut parts = vec![];
        for k in 0..=n {
            if k == n && strict {
                break;
            }
            let mut b = Basic::universe(np, 2 * n);
            for i in 0..k {
                let mut r = b.zero_row();
                r[b.col_dim(i)] = Int::ONE;
                r[b.col_dim(n + i)] = Int::from(-1);
                b.add_eq(r);
            }
            if k < n {
                // x_k < y_k (less) or x_k > y_k
                let mut r = b.zero_row();
                let s = if less { Int::ONE } else { Int::from(-1) };
                r[b.col_dim(n + k)] = s.clone();
                r[b.col_dim(k)] = -&s;
                r[0] = Int::from(-1);
                b.add_ineq(r);
            }
            parts.push(b);
        }
        Map { space, parts }
    }

    /// `{ x -> y : x ≺ y }` over a tuple, as a union of `n` conjunctions.
    pub fn lex_lt(params: Vec<String>, tuple: Tuple) -> Map {
        Map::lex_order(params, tuple, true, true)
    }

    /// `{ x -> y : x ⪯ y }`.
    pub fn lex_le(params: Vec<String>, tuple: Tuple) -> Map {
        Map::lex_order(params, tuple, false, true)
    }

    /// `{ x -> y : x ≻ y }`.
    pub fn lex_gt(params: Vec<String>, tuple: Tuple) -> Map {
        Map::lex_order(params, tuple, true, false)
    }

    /// `{ x -> y : x ⪰ y }`.
    pub fn lex_ge(params: Vec<String>, tuple: Tuple) -> Map {
        Map::lex_order(params, tuple, false, false)
    }

    /// Product of maps: `[a] -> [b]` and `[c] -> [d]` give `[a, c] -> [b, d]`.
    pub fn product(&self, other: &Map) -> Map {
        let params = self.space.merged_params(&other.space);
        let f = self.align_params(&params);
        let g = other.align_params(&params);
        let (a, b, c, d) = (f.n_in(), f.n_out(), g.n_in(), g.n_out());
        let mut parts = vec![];
        for x in &f.parts {
            for y in &g.parts {
                // x over [a, b] → [a, c, b, d]
                let mut x = x.clone();
                x.insert_dims(a + b, d);
                x.insert_dims(a, c);
                let mut y = y.clone();
                y.insert_dims(0, a);
                y.insert_dims(a + c, b);
                parts.push(x.intersect(&y));
            }
        }
        let mut din = f.space.domain.clone().expect("map");
        din.name = None;
        din.dims.extend(g.space.domain.clone().expect("map").dims);
        let mut dout = f.space.range.clone();
        dout.name = None;
        dout.dims.extend(g.space.range.dims.iter().cloned());
        Map {
            space: Space {
                params,
                domain: Some(din),
                range: dout,
            },
            parts,
        }
    }

    /// Sets the names of the map's tuples (used when a parsed map is given meaning).
    pub fn with_space_names(mut self, domain: Tuple, range: Tuple) -> Map {
        assert_eq!(domain.len(), self.n_in());
        assert_eq!(range.len(), self.n_out());
        self.space.domain = Some(domain);
        self.space.range = range;
        self
    }
}

impl Set {
    /// Renames the set's tuple (same number of dimensions).
    pub fn with_tuple(mut self, t: Tuple) -> Set {
        assert_eq!(t.len(), self.n_dim());
        self.space.range = t;
        self
    }
}
