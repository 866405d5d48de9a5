//! `loopy slices`: the valid computation slices of each segment of a kernel, and which
//! slices of different segments can be fused (the segments, slices and fusion are
//! `verify::slices`; here arguments and printing).

use super::Ctx;
use super::{CcArgs, Format};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::driver::{Kernel, Run};
use crate::model::json::{self, Entries};
use crate::model::state::State;
use crate::verify::slices::{self, Slice, Slicing};
use crate::verify::{self, Dependence, Program};
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct SlicesArgs {
    /// The C file with the kernel.
    pub kernel: PathBuf,
    #[command(flatten)]
    pub cc: CcArgs,
    /// A segment: the statements of this tag (repeat for several segments). Without it,
    /// every outermost loop nest of the kernel is a segment.
    #[arg(long = "tag", value_name = "T")]
    pub tags: Vec<String>,
    /// Alignments are searched in [-R, R].
    #[arg(long, value_name = "R", default_value_t = 2)]
    pub align_range: i64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// A script run first (`expand(...)` lines): the slices are those of the program it
    /// leaves, the expanded variables' accesses going to their storage. It may only expand:
    /// the slices are of the kernel's own loops.
    #[arg(long, value_name = "PREFIX.loopy")]
    pub prefix: Option<PathBuf>,
}

/// Runs the prefix script on the kernel: the run it leaves (its expansions), or the rendered
/// error. A prefix that changes a schedule, marks a loop or copies is refused.
fn prefix_run(k: &Kernel, path: &Path, color: bool) -> Result<Run, String> {
    let (_, run) = crate::driver::run_prefix(k, path).map_err(|f| f.render(color))?;
    let name = path.display().to_string();
    let st = &run.interp.state;
    let changed = st.pieces.iter().find(|pc| {
        !pc.touched.is_empty()
            || !pc.marks.is_empty()
            || !pc.copies.is_empty()
            || st.pieces.iter().filter(|q| q.stmt == pc.stmt).count() != 1
    });
    if let Some(pc) = changed {
        return Err(Diagnostic::new(codes::INVALID_OPTION, format!(
            "the prefix `{name}` changes statement {}: `slices` lists the slices of the kernel's own loops, so a prefix may only expand variables",
            st.stmt_names[pc.stmt]
        ))
        .with_help("keep the `expand` lines (and the `param`s they use) in the prefix")
        .render(&[], color));
    }
    Ok(run)
}

pub fn run(a: SlicesArgs, ctx: &Ctx) -> u8 {
    let (state, program, deps) = match analysed(&a, ctx) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let segments = match segments(&a, &state, ctx) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let seg_stmts: Vec<Vec<usize>> = segments.iter().map(|(_, v)| v.clone()).collect();
    let slicing = slices::slice_segments(&program, &deps, &seg_stmts, a.align_range);
    if super::spent() {
        return 2;
    }
    let names = Names {
        program: &program,
        stmts: &state.stmt_names,
    };
    match a.format {
        Format::Text => print_text(a.align_range, &segments, &slicing, &names),
        Format::Json => {
            let j = slicing_json(a.align_range, &slicing, &names);
            println!("{}", json::pretty(&j))
        }
    }
    0
}

/// The kernel's state, program and dependences, after `--prefix` when one is given.
fn analysed(a: &SlicesArgs, ctx: &Ctx) -> Result<(State, Program, Vec<Dependence>), u8> {
    let loaded = Kernel::load(&a.kernel, &a.cc.options());
    if super::spent() {
        return Err(2);
    }
    let k = loaded.map_err(|f| {
        eprint!("{}", f.render(ctx.color));
        2u8
    })?;
    if !(0..=16).contains(&a.align_range) {
        eprint!(
            "{}",
            Diagnostic::new(
                codes::INVALID_OPTION,
                "--align-range must be between 0 and 16"
            )
            .render(&[], ctx.color)
        );
        return Err(2);
    }
    let found = match &a.prefix {
        None => {
            let program = Program::from_scop(&k.scop);
            let deps = verify::dependences(&program);
            Ok((State::from_scop(&k.scop), program, deps))
        }
        Some(p) => match prefix_run(&k, p, ctx.color) {
            Ok(run) => Ok((run.interp.state, run.program, run.deps)),
            Err(text) => {
                if !super::spent() {
                    eprint!("{text}");
                }
                Err(2)
            }
        },
    };
    if super::spent() {
        return Err(2);
    }
    found
}

/// The segments to slice, statement indices in program order: the tags given, else
/// the kernel's loop nests.
fn segments(a: &SlicesArgs, state: &State, ctx: &Ctx) -> Result<Vec<(String, Vec<usize>)>, u8> {
    if a.tags.is_empty() {
        return Ok(slices::nest_segments(state));
    }
    let mut segments: Vec<(String, Vec<usize>)> = vec![];
    for t in &a.tags {
        let Some(v) = slices::tag_segment(state, t) else {
            let known: Vec<String> = state.handles.keys().map(|k| format!("`{k}`")).collect();
            eprint!(
                "{}",
                Diagnostic::new(
                    codes::UNKNOWN_TAG,
                    format!("no tag `{t}` in {}", a.kernel.display())
                )
                .with_note(format!("tags: {}", known.join(", ")))
                .render(&[], ctx.color)
            );
            return Err(2);
        };
        segments.push((t.clone(), v));
    }
    Ok(segments)
}

/// Names of statements and of their iterators, for printing slices.
struct Names<'a> {
    program: &'a Program,
    stmts: &'a [String],
}

impl Names<'_> {
    /// The iterator of `stmt` at loop `level` (1-based), or the level's number.
    fn iterator(&self, stmt: usize, level: usize) -> String {
        self.program.stmts[stmt]
            .domain
            .tuple()
            .dims
            .get(level - 1)
            .cloned()
            .unwrap_or_else(|| level.to_string())
    }

    /// `{S0: i, S1: j + 1}`.
    fn slice(&self, s: &Slice) -> String {
        let parts: Vec<String> = s
            .entries
            .iter()
            .map(|e| {
                let it = self.iterator(e.stmt, e.level);
                match e.align {
                    0 => format!("{}: {it}", self.stmts[e.stmt]),
                    a if a > 0 => format!("{}: {it} + {a}", self.stmts[e.stmt]),
                    a => format!("{}: {it} - {}", self.stmts[e.stmt], -a),
                }
            })
            .collect();
        format!("{{{}}}", parts.join(", "))
    }
}

fn print_text(r: i64, segments: &[(String, Vec<usize>)], slicing: &Slicing, names: &Names) {
    println!("alignments searched in [-{r}, {r}] (the first statement of a segment at 0)");
    let mut n = 0;
    for ((label, _), ss) in segments.iter().zip(&slicing.slices) {
        println!();
        println!("segment {label}: {} valid slice(s)", ss.len());
        for s in ss {
            n += 1;
            let alt = match s.alternatives {
                0 => String::new(),
                m => format!("   ({m} other alignment(s) valid)"),
            };
            println!("  slice {n}: {}{alt}", names.slice(s));
        }
    }
    if segments.len() > 1 {
        println!();
        if slicing.fusable.is_empty() {
            println!("no two slices of different segments can be fused");
        } else {
            println!("fusable (Figure 10; the second slice shifted by the alignment):");
            for (x, y, al) in &slicing.fusable {
                println!("  slice {} with slice {}, alignment {al}", x + 1, y + 1);
            }
        }
    }
}

/// What `loopy slices --format json` prints.
#[derive(Serialize)]
struct SlicingJson<'a> {
    align_range: i64,
    /// Each slice: its statements by name.
    slices: Vec<Entries<&'a str, EntryJson>>,
    segment_of_slice: Vec<usize>,
    fusable: Vec<FusableJson>,
}

#[derive(Serialize)]
struct EntryJson {
    level: usize,
    iterator: String,
    align: i64,
}

#[derive(Serialize)]
struct FusableJson {
    first: usize,
    second: usize,
    align: i64,
}

fn slicing_json<'a>(r: i64, slicing: &Slicing, names: &'a Names) -> SlicingJson<'a> {
    let entry = |s: &Slice| {
        let entries = s.entries.iter().map(|e| {
            let entry = EntryJson {
                level: e.level,
                iterator: names.iterator(e.stmt, e.level),
                align: e.align,
            };
            (names.stmts[e.stmt].as_str(), entry)
        });
        Entries(entries.collect())
    };
    SlicingJson {
        align_range: r,
        slices: slicing.slices.iter().flatten().map(entry).collect(),
        segment_of_slice: slicing.index.iter().map(|&(s, _)| s).collect(),
        fusable: slicing
            .fusable
            .iter()
            .map(|&(first, second, align)| FusableJson {
                first,
                second,
                align,
            })
            .collect(),
    }
}
