//! Beam search over compositions of a schedule's changes, ranked by the cost model's
//! estimate alone (nothing is compiled): which loop order, tile size and split each band
//! takes, decided band by band (the bands with the most work first) on every schedule the
//! search built, keeping the `width` compositions estimated cheapest after each decision
//! (docs/search.md, "The beam").
//!
//! Every start's first band is decided before the first cut, so that a structure dear as
//! it is but cheap once its largest band is tiled is not dropped unseen. Every composition
//! is a whole variant at every step (the bands not decided yet keep the
//! order they start with, untiled), so compositions that have decided different numbers of
//! bands compete on their whole estimates. At most `per_schedule` compositions of one
//! schedule stay in the beam, so that it holds several loop structures and not only the
//! tile sizes of one. The estimate's dependence test depends on the band orders and splits
//! only, not on the tiles; it is asked once per order and split.

use super::cost::CostModel;
use super::schedule::Built;
use super::script::{self, Variant};
use std::collections::HashMap;

/// A schedule to start from: its index among the search's schedules, the schedule, and the
/// variant it starts with (its bands in their statically cheapest orders).
pub struct Start<'a> {
    pub schedule: usize,
    pub built: &'a Built,
    pub variant: Variant,
}

/// A composition: a schedule, the changes on it, and its estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct Composed {
    pub schedule: usize,
    pub variant: Variant,
    pub estimate: f64,
}

/// How wide and how far the beam goes.
#[derive(Clone, Debug)]
pub struct Settings<'a> {
    /// Compositions kept after each step.
    pub width: usize,
    /// Of them, at most this many of one schedule.
    pub per_schedule: usize,
    /// The tile sizes a band of two loops or more may take (besides none).
    pub tile_sizes: &'a [u32],
    /// Estimates at most; past it the beam answers with what it holds.
    pub max_estimates: usize,
}

/// What the beam found.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The compositions of the last step, cheapest first (ties: the schedules' order, then
    /// the order the options were listed in).
    pub beam: Vec<Composed>,
    /// How many compositions were estimated.
    pub estimated: usize,
    /// Whether it stopped early (the estimate count, or `late`).
    pub cut: bool,
}

/// One composition in the beam: which start, the variant, how many of its bands (in the
/// start's order of work) are decided, and its estimate.
#[derive(Clone)]
struct Node {
    start: usize,
    variant: Variant,
    decided: usize,
    estimate: f64,
}

/// The beam search from `starts`; `late` stops it (the time limit).
pub fn search(
    model: &CostModel,
    starts: &[Start],
    settings: &Settings,
    late: &dyn Fn() -> bool,
) -> Outcome {
    let mut b = Beam {
        model,
        starts,
        settings,
        carried: HashMap::new(),
        parallel: HashMap::new(),
        estimated: 0,
        cut: false,
    };
    let bands: Vec<Vec<usize>> = starts.iter().map(|s| by_work(model, s.built)).collect();
    let mut nodes: Vec<Node> = (0..starts.len())
        .map(|i| {
            let v = b.on_threads(i, starts[i].variant.clone());
            let estimate = b.estimate(i, &v);
            Node {
                start: i,
                variant: v,
                decided: 0,
                estimate,
            }
        })
        .collect();
    // Every start's first band is decided before the first cut: a structure dear as it is
    // may be cheap once its largest band is tiled.
    nodes.sort_by(|x, y| x.estimate.total_cmp(&y.estimate));
    while nodes.iter().any(|n| n.decided < bands[n.start].len()) {
        if late() || b.estimated >= settings.max_estimates {
            b.cut = true;
            break;
        }
        let mut next = vec![];
        for n in &nodes {
            match bands[n.start].get(n.decided) {
                None => next.push(n.clone()),
                Some(&j) => {
                    for v in b.options(n.start, &n.variant, j) {
                        let estimate = b.estimate(n.start, &v);
                        next.push(Node {
                            start: n.start,
                            variant: v,
                            decided: n.decided + 1,
                            estimate,
                        });
                    }
                }
            }
        }
        nodes = b.keep(next);
    }
    // Within the width when no band was decided (none to decide, or late at once).
    let nodes = b.keep(nodes);
    Outcome {
        beam: (nodes.into_iter())
            .map(|n| Composed {
                schedule: starts[n.start].schedule,
                variant: n.variant,
                estimate: n.estimate,
            })
            .collect(),
        estimated: b.estimated,
        cut: b.cut,
    }
}

/// A start, its bands' orders and their splits: what the dependence test depends on.
type OrdersAndSplits = (usize, Vec<Vec<usize>>, Vec<bool>);

/// The beam's state: the dependence tests asked so far, per start, band orders and splits.
struct Beam<'a> {
    model: &'a CostModel,
    starts: &'a [Start<'a>],
    settings: &'a Settings<'a>,
    carried: HashMap<OrdersAndSplits, Vec<bool>>,
    /// Per start, band and order of that band: whether its outermost loop may be parallel.
    parallel: HashMap<(usize, usize, Vec<usize>), bool>,
    estimated: usize,
    cut: bool,
}

impl Beam<'_> {
    fn estimate(&mut self, start: usize, v: &Variant) -> f64 {
        let b = self.starts[start].built;
        let key = (start, v.order.clone(), v.split.clone());
        let model = self.model;
        let carried = (self.carried.entry(key)).or_insert_with(|| model.carried(b, v));
        self.estimated += 1;
        model.weigh(&model.parts_given(b, v, carried))
    }

    /// [`options`] for band `j` of a composition of start `start`, each band order's
    /// parallel test asked once.
    fn options(&mut self, start: usize, v: &Variant, j: usize) -> Vec<Variant> {
        let (model, b, settings) = (self.model, self.starts[start].built, self.settings);
        let mut parallel = |w: &Variant| self.parallel_ok(start, w, j);
        options(model, b, v, j, settings, &mut parallel)
    }

    /// Whether band `j` of `w` (a composition of start `start`) may run its outermost loop
    /// on the threads ([`CostModel::parallel_band`]), asked once per band order.
    fn parallel_ok(&mut self, start: usize, w: &Variant, j: usize) -> bool {
        let (model, b) = (self.model, self.starts[start].built);
        let key = (start, j, w.order[j].clone());
        *(self.parallel.entry(key)).or_insert_with(|| model.parallel_band(b, w, j))
    }

    /// A start's variant for several threads: every band whose outermost loop may run on
    /// them marked `parallel`, so that the decisions on the other bands are estimated with
    /// the threads in use; on one thread, the variant as it is.
    fn on_threads(&mut self, start: usize, mut v: Variant) -> Variant {
        if self.model.threads() > 1 {
            for j in 0..v.parallel.len() {
                v.parallel[j] = self.parallel_ok(start, &v, j);
            }
        }
        v
    }

    /// The cheapest `width` distinct compositions, at most `per_schedule` of one start; a
    /// stable sort keeps the listed order on ties.
    fn keep(&self, mut nodes: Vec<Node>) -> Vec<Node> {
        nodes.sort_by(|x, y| x.estimate.total_cmp(&y.estimate));
        let mut kept: Vec<Node> = vec![];
        let mut per: HashMap<usize, usize> = HashMap::new();
        for n in nodes {
            if kept.len() >= self.settings.width {
                break;
            }
            let same = |k: &Node| k.start == n.start && k.variant == n.variant;
            let count = per.entry(n.start).or_default();
            if *count >= self.settings.per_schedule || kept.iter().any(same) {
                continue;
            }
            *count += 1;
            kept.push(n);
        }
        kept
    }
}

/// The bands of a schedule, the most work first (longer bands first on ties, then in
/// order), as the greedy phase takes them.
fn by_work(model: &CostModel, b: &Built) -> Vec<usize> {
    let mut bands: Vec<usize> = (0..b.bands.len()).collect();
    bands.sort_by(|&x, &y| {
        (model.band_work(b, y).total_cmp(&model.band_work(b, x)))
            .then(b.bands[y].len.cmp(&b.bands[x].len))
            .then(x.cmp(&y))
    });
    bands
}

/// The decisions for band `j` of `v`: each loop order (statically cheapest first), each
/// untiled and, for a band of two loops or more, tiled with each size; each of those split
/// at the band's innermost loop (listed first) as well where it can be; and, for several
/// threads, each of those with the band's outermost loop `parallel` (listed first) as well
/// where the cost model finds it carries no dependence, else each tiled one with its tiles
/// run as wavefronts (listed first) as well.
fn options(
    model: &CostModel,
    b: &Built,
    v: &Variant,
    j: usize,
    settings: &Settings,
    parallel: &mut dyn FnMut(&Variant) -> bool,
) -> Vec<Variant> {
    let mut sizes = vec![0];
    if b.bands[j].len >= 2 {
        sizes.extend(settings.tile_sizes.iter().copied().filter(|&t| t >= 2));
    }
    // Split first: on equal estimates the split is kept, as the greedy phase tries it
    // first (a stencil's fused sweeps run faster apart inside their tiles).
    let splits: &[bool] = if script::splittable(b, j) {
        &[true, false]
    } else {
        &[false]
    };
    let mut out = vec![];
    for (order, _) in model.band_orders(b, v, j) {
        let mut w = v.clone();
        w.order[j] = order;
        // (parallel, wavefront): the outermost loop on the threads where it carries no
        // dependence, else a tiled band's tiles as wavefronts.
        let threads = model.threads() > 1;
        let marks: &[(bool, bool)] = match (threads && parallel(&w), threads && b.bands[j].len >= 2)
        {
            (true, _) => &[(true, false), (false, false)],
            (false, true) => &[(false, true), (false, false)],
            (false, false) => &[(false, false)],
        };
        for &tile in &sizes {
            for &split in splits {
                for &(mark, wave) in marks {
                    if wave && tile == 0 {
                        continue;
                    }
                    let mut w = w.clone();
                    w.tile[j] = tile;
                    w.split[j] = split;
                    w.parallel[j] = mark;
                    w.wavefront[j] = wave;
                    out.push(w);
                }
            }
        }
    }
    out
}
