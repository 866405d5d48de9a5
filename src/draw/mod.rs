//! Pictures of what a script does: the instances of a tag's statements at small parameter
//! values, on a grid of two iterators, with their dependences, the order they run in, the
//! tiles the script made and the dependences it breaks.
//!
//! Everything drawn is computed exactly at the chosen parameter values: instances are the
//! integer points of the statements' domains, dependences the pairs of the verifier's exact
//! dependence relations, orders the old and the new schedules evaluated at those points.
//! [`picture`] collects that; [`svg`] draws it.

mod picture;
mod svg;

pub use picture::picture;
pub use svg::svg;

use crate::presburger::Int;
use std::path::PathBuf;

/// Parameter value used when none is given: small enough to see every point.
pub const DEFAULT_PARAM: i64 = 8;
/// The most instances a panel shows.
pub const MAX_POINTS: usize = 1500;

/// What to draw.
#[derive(Clone, Debug, Default)]
pub struct DrawOptions {
    /// The tag whose statements are drawn (all statements of the region when `None`).
    pub tag: Option<String>,
    /// Parameter values (others get [`DEFAULT_PARAM`]).
    pub params: Vec<(String, i64)>,
    /// The iterators on the horizontal and vertical axes (one for a 1-d nest).
    pub axes: Option<Vec<String>>,
    /// Values of the other iterators (others are fixed at their smallest value).
    pub at: Vec<(String, i64)>,
    /// The script's name, for the title of the second panel.
    pub script: Option<String>,
}

impl DrawOptions {
    /// The words after the REPL's `:draw`: `FILE [--tag T] [--param n=8] [--axes i,j]
    /// [--at t=1]`, as the file to write and what to draw (the second panel titled "the
    /// steps so far"). `None` when they do not follow that form.
    pub fn from_repl_words(arg: &str) -> Option<(PathBuf, DrawOptions)> {
        let words: Vec<&str> = arg.split_whitespace().collect();
        let mut file = None;
        let mut opts = DrawOptions {
            script: Some("the steps so far".to_string()),
            ..Default::default()
        };
        let assign = |w: Option<&&str>| -> Option<(String, i64)> {
            let (n, v) = w?.split_once('=')?;
            Some((n.to_string(), v.parse().ok()?))
        };
        let mut k = 0;
        while k < words.len() {
            let w = words[k];
            let next = words.get(k + 1);
            match w {
                "--tag" => opts.tag = next.map(|t| t.to_string()),
                "--axes" => opts.axes = next.map(|a| a.split(',').map(str::to_string).collect()),
                "--param" => opts.params.push(assign(next)?),
                "--at" => opts.at.push(assign(next)?),
                _ if !w.starts_with("--") && file.is_none() => {
                    file = Some(PathBuf::from(w));
                    k += 1;
                    continue;
                }
                _ => return None,
            }
            next?;
            k += 2;
        }
        Some((file?, opts))
    }
}

/// One statement instance in a panel.
#[derive(Clone, Debug)]
pub struct Dot {
    /// Index into [`Picture::stmts`].
    pub stmt: usize,
    pub iters: Vec<Int>,
    /// Grid coordinates (the axis iterators' values).
    pub x: i64,
    pub y: i64,
    /// Position in the panel's execution order (0 = first).
    pub rank: usize,
}

/// A dependence between two drawn instances.
#[derive(Clone, Debug)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    /// `flow`, `anti`, `output` (joined when several).
    pub kinds: String,
    /// The new schedule runs the sink before (or with) the source.
    pub broken: bool,
    /// The pair `loopy check` reports as its witness.
    pub witness: bool,
}

#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub dots: Vec<Dot>,
    pub arrows: Vec<Arrow>,
    /// Dots (indices) that share a tile of the new schedule.
    pub tiles: Vec<Vec<usize>>,
}

#[derive(Clone, Debug)]
pub struct Picture {
    pub title: String,
    /// Axis iterator names (horizontal, then vertical if any).
    pub axes: Vec<String>,
    /// Statement labels, in the order of [`Dot::stmt`].
    pub stmts: Vec<String>,
    /// "n = 8, t = 0" and the like: what is fixed.
    pub fixed: String,
    pub panels: Vec<Panel>,
    /// Lines under the panels (the verifier's verdict and witness, what is not drawn).
    pub notes: Vec<String>,
    /// Dependences the script breaks among the drawn instances.
    pub broken: usize,
}
