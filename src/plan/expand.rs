//! Array expansion (`expand(l, k, x)`): the scalar or array `x`, written and then read by the
//! statements of `l`, gets one copy per iteration of the outer `k` loops of `l` — storage
//! `loopy_x_x[t0]..[t(k-1)][e0]..` — which removes the memory-based dependences its reuse
//! created between those iterations.
//!
//! Expansion rewrites the program, not the schedule: it is planned on the original
//! schedule (every statement untouched by earlier steps), and exactly:
//!
//! - every read of `x` by a statement of `l` must read, in the original program, a value
//!   written by a statement of `l` in the same iteration of the `k` loops (its last writer);
//!   a read of a value from before `l` or from another iteration is refused;
//! - no read of `x` by a statement outside `l` may read a value a statement of `l` wrote;
//! - the elements whose last write in the region is by `l` are written back from the
//!   expanded storage after the region (the value of the last iteration that wrote them).
//!
//! A variable may be expanded again for other statements: each expansion is planned on the
//! program the earlier ones left (their statements no longer access the variable), and the
//! write-backs run in the reverse order, so that an element's final value comes from the
//! earliest expansion whose statements wrote it last in the original program.
//!
//! Under these conditions the expanded program computes, under the original schedule, the
//! same values (each read of the storage finds the same last writer), and its dependences,
//! computed on the expanded accesses, are what later steps must respect. The storage is the
//! exact bounding box of `[t, e]` over the statements' accesses (a constant size, refused
//! over the limit, or a size of the parameters allocated when the region starts).
//!
//! The plan ([`ExpandPlan`]) and what it does to accesses are the model's
//! (`model::expand`); this module decides it.

use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::copy::{self, Corner, Extent};
use crate::model::expand::ExpandPlan;
use crate::model::state::{Origin, Piece, State, StateAccess};
use crate::presburger::build::{affine, input, MapBuilder};
use crate::presburger::{Int, Map, Point, Set, Space, Tuple};

/// Why an expansion is refused, with the witness the report shows.
fn refuse(origin: &Origin, msg: String, label: &str) -> Diagnostic {
    Diagnostic::new(codes::STORAGE_REFUSED, msg).with_label(
        &origin.source,
        origin.span.clone(),
        label,
    )
}

/// `params` as `name = value` text.
fn params_text(names: &[String], p: &Point) -> String {
    names
        .iter()
        .zip(&p.params)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A statement as the planner sees it: its one untouched piece.
struct Stmt<'a> {
    piece: &'a Piece,
    /// θ on the domain.
    theta: Map,
}

/// Plans `expand` of `array` for the statements `stmts` (their pieces are `members`) inside
/// their outer `k` loops. `st` must hold every statement's original schedule.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    st: &State,
    members: &[usize],
    k: usize,
    array: &str,
    limit: u64,
    origin: &Origin,
    step: usize,
) -> Result<ExpandPlan, Diagnostic> {
    let (c_name, rank, name) = target(st, array, origin)?;
    require_original(st, origin)?;
    let mut stmts: Vec<usize> = members.iter().map(|&i| st.pieces[i].stmt).collect();
    stmts.sort_unstable();
    stmts.dedup();
    require_one_nest(st, &stmts, k, origin)?;
    // Accesses to the variable.
    let accs: Vec<&StateAccess> = st.accesses.iter().filter(|a| a.array == array).collect();
    let frame = Frame::new(st, &stmts, &accs, k, rank, &c_name, origin);
    frame.require_exact_writes()?;
    let writes = frame.writes();
    frame.require_reads_inside(&writes)?;
    frame.require_reads_outside(&writes)?;
    let (footprint, write_back) = frame.footprint_and_write_back(&writes);
    let (lower, size, runtime) = storage_box(&footprint, k + rank, &c_name, origin)?;
    // The statements whose accesses move to the storage.
    stmts.retain(|&s| accs.iter().any(|a| a.stmt == s));
    let plan = ExpandPlan {
        array: array.to_string(),
        c_name: c_name.clone(),
        rank,
        name,
        outer: k,
        given_back: vec![],
        stmts,
        limit,
        origin: origin.clone(),
        step,
        lower,
        size,
        runtime,
        write_back,
    };
    require_within_limit(&plan)?;
    Ok(plan)
}

/// The variable to expand: its C name, rank and the storage's name, or why it cannot be.
fn target(st: &State, array: &str, origin: &Origin) -> Result<(String, usize, String), Diagnostic> {
    let Some(arr) = st.arrays.iter().find(|a| a.0 == array) else {
        return Err(refuse(
            origin,
            format!("the kernel has no variable `{array}`"),
            "not a variable of the region",
        ));
    };
    let (c_name, rank, private) = (arr.1.clone(), arr.2, arr.3);
    if private {
        return Err(refuse(
            origin,
            format!("`{c_name}` is declared inside the region: each iteration of its block already has its own"),
            "nothing to expand",
        ));
    }
    if st.expansions.iter().any(|e| e.name == array) {
        return Err(refuse(
            origin,
            format!("`{c_name}` is the storage of an expansion"),
            "already expanded",
        ));
    }
    // Several expansions of one variable (of different statements) have storages of their
    // own: `loopy_x_x`, `loopy2_x_x`, …
    let earlier = st.expansions.iter().filter(|e| e.array == array).count();
    let name = match earlier {
        0 => format!("loopy_{c_name}_x"),
        n => format!("loopy{}_{c_name}_x", n + 1),
    };
    Ok((c_name, rank, name))
}

/// The pieces of statement `s`.
fn pieces_of(st: &State, s: usize) -> impl Iterator<Item = &Piece> {
    st.pieces.iter().filter(move |p| p.stmt == s)
}

/// The one piece of statement `s`.
fn piece_of(st: &State, s: usize) -> &Piece {
    pieces_of(st, s)
        .next()
        .expect("every statement has a piece")
}

/// Refuses unless every statement is untouched: the planner reads the original schedules.
fn require_original(st: &State, origin: &Origin) -> Result<(), Diagnostic> {
    for p in &st.pieces {
        if !p.touched.is_empty()
            || !p.marks.is_empty()
            || !p.copies.is_empty()
            || pieces_of(st, p.stmt).count() != 1
        {
            return Err(refuse(
                origin,
                format!(
                    "`expand` rewrites the original program: it must come before every step that changes a schedule or marks a loop (statement {} was changed)",
                    st.stmt_names[p.stmt]
                ),
                "too late",
            )
            .with_help("move `expand` to the start of the script"));
        }
    }
    Ok(())
}

/// Refuses unless the statements share outer `k` loops, each counting its iterator.
fn require_one_nest(
    st: &State,
    stmts: &[usize],
    k: usize,
    origin: &Origin,
) -> Result<(), Diagnostic> {
    // The outer k loops: shared by every statement of l, counting its first k iterators.
    let first = piece_of(st, stmts[0]);
    for &s in stmts {
        let p = piece_of(st, s);
        if p.depth < k {
            return Err(refuse(
                origin,
                format!(
                    "statement {} is {} loop(s) deep: it has no loop {k} to expand along",
                    st.stmt_names[s], p.depth
                ),
                "no such loop",
            ));
        }
        if p.pos[..k] != first.pos[..k] {
            return Err(refuse(
                origin,
                format!(
                    "statements {} and {} do not share their outer {k} loop(s)",
                    st.stmt_names[stmts[0]], st.stmt_names[s]
                ),
                "not one nest",
            ));
        }
        require_counting_loops(st, s, p, k, origin)?;
    }
    Ok(())
}

/// Refuses unless loops `0..k` of piece `p` (of statement `s`) count their iterators.
fn require_counting_loops(
    st: &State,
    s: usize,
    p: &Piece,
    k: usize,
    origin: &Origin,
) -> Result<(), Diagnostic> {
    // Loop m counts iterator m, up or down by one: equal loop values are equal
    // iterators, which index the storage.
    let m = p.it.n_out();
    let on = p.it.intersect_domain(&p.domain);
    let n = p.domain.n_dim();
    let xs: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let js: Vec<String> = (0..m).map(|i| format!("j{i}")).collect();
    for d in 0..k {
        let dim = on.apply_range(&Map::from_affine(js.clone(), &[input(m, d)]));
        let counts = |sign: i64| {
            Map::from_affine(xs.clone(), &[affine(n, d, &[sign, 0])])
                .with_space_names(p.domain.tuple().clone(), dim.space().range.clone())
                .intersect_domain(&p.domain)
        };
        if !dim.is_equal(&counts(1)) && !dim.is_equal(&counts(-1)) {
            return Err(refuse(
                origin,
                format!(
                    "loop {} of statement {} does not count its iterator `{}` by one",
                    d + 1,
                    st.stmt_names[s],
                    p.domain.tuple().dims[d]
                ),
                "a loop `expand` cannot index by",
            ));
        }
    }
    Ok(())
}

/// What the planner's checks share: the statements of the component, the accesses to the
/// variable, and the spaces `[τ]` (schedule time) and `[e]` (element).
struct Frame<'a> {
    st: &'a State,
    stmts: &'a [usize],
    accs: &'a [&'a StateAccess],
    k: usize,
    c_name: &'a str,
    origin: &'a Origin,
    tau: Tuple,
    et: Tuple,
}

/// The writes to the variable as `[τ] -> [e]`, and the orders on `[τ]` the checks use.
struct Writes {
    /// By the component, by the other statements, by all.
    w_l: Map,
    w_n: Map,
    w_all: Map,
    lt: Map,
    gt: Map,
    /// Same iteration of the k loops.
    same_t: Map,
}

impl<'a> Frame<'a> {
    /// The frame of the component `stmts` with outer `k` loops, the variable of `rank`.
    fn new(
        st: &'a State,
        stmts: &'a [usize],
        accs: &'a [&'a StateAccess],
        k: usize,
        rank: usize,
        c_name: &'a str,
        origin: &'a Origin,
    ) -> Self {
        let n = piece_of(st, stmts[0]).it.n_out() * 2 + 1;
        Frame {
            st,
            stmts,
            accs,
            k,
            c_name,
            origin,
            tau: Tuple::anonymous(n, "tau"),
            et: Tuple::anonymous(rank, "e"),
        }
    }

    /// Whether statement `s` is in the component.
    fn in_l(&self, s: usize) -> bool {
        self.stmts.binary_search(&s).is_ok()
    }

    /// Statement `s` with θ on its domain.
    fn stmt(&self, s: usize) -> Stmt<'a> {
        let piece = piece_of(self.st, s);
        let theta = piece
            .schedule()
            .with_space_names(piece.domain.tuple().clone(), self.tau.clone());
        Stmt { piece, theta }
    }

    /// An access on its statement's domain, `S[i] -> [e]`.
    fn on_domain(&self, a: &StateAccess) -> Map {
        let p = piece_of(self.st, a.stmt);
        a.relation
            .intersect_domain(&p.domain)
            .with_space_names(p.domain.tuple().clone(), self.et.clone())
    }

    /// An access as `[τ] -> [e]`.
    fn timed(&self, a: &StateAccess) -> Map {
        let s = self.stmt(a.stmt);
        s.theta
            .inverse()
            .apply_range(&self.on_domain(a))
            .with_space_names(self.tau.clone(), self.et.clone())
    }

    /// Refuses an inexact access by the component, or a component that never writes.
    fn require_exact_writes(&self) -> Result<(), Diagnostic> {
        let (st, c_name) = (self.st, self.c_name);
        if let Some(a) = self.accs.iter().find(|a| self.in_l(a.stmt) && !a.exact) {
            return Err(refuse(
                self.origin,
                format!(
                    "statement {} accesses `{c_name}` through a subscript that is not affine: its element is not known exactly",
                    st.stmt_names[a.stmt]
                ),
                "cannot expand",
            ));
        }
        if !self.accs.iter().any(|a| self.in_l(a.stmt) && a.write) {
            return Err(refuse(
                self.origin,
                format!(
                    "cannot expand `{c_name}`: the statements of this component never write it"
                ),
                "nothing to expand",
            ));
        }
        Ok(())
    }

    /// The writes as `[τ] -> [e]` and the orders on `[τ]`.
    fn writes(&self) -> Writes {
        let tau = &self.tau;
        let ps: Vec<&str> = self.st.params.iter().map(String::as_str).collect();
        let empty_te = Map::empty(Space::map(&ps, tau.clone(), self.et.clone()));
        let union = |v: Vec<Map>| v.into_iter().fold(empty_te.clone(), |a, b| a.union(&b));
        let w_l = union(
            self.accs
                .iter()
                .filter(|a| a.write && self.in_l(a.stmt))
                .map(|a| self.timed(a))
                .collect(),
        );
        let w_n = union(
            self.accs
                .iter()
                .filter(|a| a.write && !self.in_l(a.stmt))
                .map(|a| self.timed(a))
                .collect(),
        );
        let w_all = w_l.union(&w_n);
        let lt = Map::lex_lt(vec![], tau.clone());
        let gt = Map::lex_gt(vec![], tau.clone());
        // Same iteration of the k loops: equal loop dims 1, 3, ..., 2k-1.
        let n = tau.dims.len();
        let taus: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
        let taus2: Vec<String> = (0..n).map(|i| format!("b{i}")).collect();
        let mut same_t = MapBuilder::new(taus, taus2);
        for m in 0..self.k {
            let mut r = same_t.zero_row();
            r[same_t.input(2 * m + 1)] = Int::ONE;
            r[same_t.output(2 * m + 1)] = Int::from(-1);
            same_t.eq(r);
        }
        let same_t = same_t.build().with_space_names(tau.clone(), tau.clone());
        Writes {
            w_l,
            w_n,
            w_all,
            lt,
            gt,
            same_t,
        }
    }

    /// Statement `s` with its text, for messages.
    fn stmt_text(&self, s: usize) -> String {
        let st = self.st;
        match st.texts.get(s) {
            Some(t) => format!("{} `{t}`", st.stmt_names[s]),
            None => st.stmt_names[s].clone(),
        }
    }

    /// The instance of statement `s` at point `p` (its first `n_iter` coordinates).
    fn instance(&self, s: usize, p: &Point, n_iter: usize) -> String {
        let st = self.st;
        let its = &p.coords[..n_iter];
        let names = st
            .pieces
            .iter()
            .find(|q| q.stmt == s)
            .map(|q| q.domain.tuple().dims.clone())
            .unwrap_or_default();
        let at: Vec<String> = names
            .iter()
            .zip(its)
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        let ps = params_text(&st.params, p);
        let mut out = format!("{} at ({})", st.stmt_names[s], at.join(", "));
        if !ps.is_empty() {
            out.push_str(&format!(" with {ps}"));
        }
        out
    }

    /// Reads by l: the last writer is a write of l in the same iteration.
    fn require_reads_inside(&self, w: &Writes) -> Result<(), Diagnostic> {
        let (k, c_name) = (self.k, self.c_name);
        for a in self.accs.iter().filter(|a| !a.write && self.in_l(a.stmt)) {
            let s = self.stmt(a.stmt);
            let ra = self.on_domain(a);
            let before = s.theta.apply_range(&w.gt);
            let good = ra
                .apply_range(&w.w_l.inverse())
                .intersect(&s.theta.apply_range(&w.same_t.intersect(&w.gt)));
            let no_write = ra.domain().subtract(&good.domain());
            if let Some(p) = no_write.lexmin_with_params() {
                let nd = s.piece.domain.n_dim();
                return Err(refuse(
                    self.origin,
                    format!(
                        "cannot expand `{c_name}`: {} reads a value that no statement of the component wrote before it in the same iteration of the outer {k} loop(s)",
                        self.stmt_text(a.stmt)
                    ),
                    "expanded here",
                )
                .with_note(format!(
                    "the read at {} would find the expanded storage unwritten: it reads a value from before the component or from another iteration",
                    self.instance(a.stmt, &p, nd)
                ))
                .with_help("expand inside fewer loops, or leave the variable shared"));
            }
            self.require_no_write_between(w, a, &s, &ra, &before, &good)?;
        }
        Ok(())
    }

    /// Refuses a write outside l between the write of l a read `a` of l reads and that read.
    fn require_no_write_between(
        &self,
        w: &Writes,
        a: &StateAccess,
        s: &Stmt,
        ra: &Map,
        before: &Map,
        good: &Map,
    ) -> Result<(), Diagnostic> {
        for b in self.accs.iter().filter(|b| b.write && !self.in_l(b.stmt)) {
            let wb = self.timed(b);
            let other = ra.apply_range(&wb.inverse()).intersect(before);
            let covered = good.apply_range(&w.gt);
            let bad = other.subtract(&covered);
            if let Some(p) = bad.wrap().lexmin_with_params() {
                let nd = s.piece.domain.n_dim();
                return Err(refuse(
                    self.origin,
                    format!(
                        "cannot expand `{}`: {} writes it between a write and a read of the component",
                        self.c_name,
                        self.stmt_text(b.stmt)
                    ),
                    "expanded here",
                )
                .with_note(format!(
                    "the read at {} reads the value {} wrote, which the expanded storage would not hold",
                    self.instance(a.stmt, &p, nd),
                    self.st.stmt_names[b.stmt]
                ))
                .with_help("add the writing statement to the component"));
            }
        }
        Ok(())
    }

    /// Reads outside l never read what l wrote.
    fn require_reads_outside(&self, w: &Writes) -> Result<(), Diagnostic> {
        let c_name = self.c_name;
        for c in self.accs.iter().filter(|c| !c.write && !self.in_l(c.stmt)) {
            let u = self.stmt(c.stmt);
            let rc = self.on_domain(c);
            let before = u.theta.apply_range(&w.gt);
            let from_l = rc.apply_range(&w.w_l.inverse()).intersect(&before);
            let from_n = rc.apply_range(&w.w_n.inverse()).intersect(&before);
            let bad = from_l.subtract(&from_n.apply_range(&w.gt));
            if let Some(p) = bad.wrap().lexmin_with_params() {
                let nd = u.piece.domain.n_dim();
                return Err(refuse(
                    self.origin,
                    format!(
                        "cannot expand `{c_name}`: {}, outside the component, reads a value the component wrote",
                        self.stmt_text(c.stmt)
                    ),
                    "expanded here",
                )
                .with_note(format!(
                    "the read at {} would read `{c_name}`, which the expanded statements no longer write",
                    self.instance(c.stmt, &p, nd)
                ))
                .with_help("add the reading statement to the component"));
            }
        }
        Ok(())
    }

    /// The storage's footprint `[t] -> [e]` and the last values, written back after the
    /// region (wrapped).
    fn footprint_and_write_back(&self, w: &Writes) -> (Map, Set) {
        let k = self.k;
        let tt = Tuple::anonymous(k, "t");
        let mut write_back: Option<Map> = None;
        let mut footprint: Option<Map> = None;
        let add = |slot: &mut Option<Map>, m: Map| {
            *slot = Some(match slot.take() {
                None => m,
                Some(o) => o.union(&m),
            })
        };
        for a in self.accs.iter().filter(|a| self.in_l(a.stmt)) {
            let s = self.stmt(a.stmt);
            // The outer iterators themselves (a loop counting down has `-i` as its loop value).
            let xs: Vec<String> = (0..s.piece.domain.n_dim())
                .map(|i| format!("x{i}"))
                .collect();
            let outer = Map::from_affine(
                xs.clone(),
                &(0..k).map(|i| input(xs.len(), i)).collect::<Vec<_>>(),
            )
            .with_space_names(s.piece.domain.tuple().clone(), tt.clone())
            .intersect_domain(&s.piece.domain);
            let ra = self.on_domain(a);
            add(
                &mut footprint,
                outer
                    .inverse()
                    .apply_range(&ra)
                    .with_space_names(tt.clone(), self.et.clone()),
            );
            if a.write {
                let later = ra
                    .apply_range(&w.w_all.inverse())
                    .intersect(&s.theta.apply_range(&w.lt));
                let last = ra.intersect_domain(&ra.domain().subtract(&later.domain()));
                add(
                    &mut write_back,
                    outer
                        .inverse()
                        .apply_range(&last)
                        .with_space_names(tt.clone(), self.et.clone()),
                );
            }
        }
        let footprint = footprint
            .expect("the component writes the variable")
            .simplify();
        let write_back = write_back
            .expect("the component writes the variable")
            .simplify()
            .wrap();
        (footprint, write_back)
    }
}

/// A storage's box: lower corners, constant sizes (0 where the extent is of the
/// parameters) and the extents of the parameters.
type StorageBox = (Vec<Corner>, Vec<Int>, Vec<Option<Extent>>);

/// The box of `[t, e]` over the footprint.
fn storage_box(
    footprint: &Map,
    dims: usize,
    c_name: &str,
    origin: &Origin,
) -> Result<StorageBox, Diagnostic> {
    let all = Map::from_set(&footprint.wrap(), 0);
    let mut lower = vec![];
    let mut size = vec![];
    let mut runtime = vec![];
    for d in 0..dims {
        let Some(c) = copy::corner(&all, d, 0) else {
            return Err(refuse(
                origin,
                format!(
                    "the smallest index along dimension {} of the expanded `{c_name}` is not one expression of the parameters",
                    d + 1
                ),
                "no box",
            ));
        };
        lower.push(c);
        match copy::width(&all, d) {
            Ok(Some(w)) => {
                size.push(&w + &Int::ONE);
                runtime.push(None);
            }
            Ok(None) => unreachable!("the footprint is not empty"),
            Err(()) => match copy::parametric_extent(&all, d) {
                Ok(e) => {
                    size.push(Int::ZERO);
                    runtime.push(Some(e));
                }
                Err(_) => {
                    return Err(refuse(
                        origin,
                        format!(
                            "the expanded `{c_name}` has no bounded extent along dimension {}",
                            d + 1
                        ),
                        "unbounded",
                    ))
                }
            },
        }
    }
    Ok((lower, size, runtime))
}

/// Refuses a storage of more elements than the plan's limit.
fn require_within_limit(plan: &ExpandPlan) -> Result<(), Diagnostic> {
    let (limit, k, c_name) = (plan.limit, plan.outer, &plan.c_name);
    if let Some(e) = plan.elements() {
        if e > limit as i64 {
            let dims: Vec<String> = plan.size.iter().map(Int::to_string).collect();
            return Err(refuse(
                &plan.origin,
                format!(
                    "cannot expand `{c_name}`: its storage would have {e} elements ({}), more than the limit of {limit}",
                    dims.join(" × ")
                ),
                "over the limit",
            )
            .with_help(format!("raise the limit with a fourth argument: expand(l, {k}, {c_name}, {e})")));
        }
    }
    Ok(())
}
