//! `loopy slices`: the valid computation slices of each segment of a kernel, and which
//! slices of different segments can be fused (the segments, slices and fusion are
//! `verify::slices`; here arguments and printing).

use super::Ctx;
use super::{CcArgs, Format};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::driver::{Kernel, Run};
use crate::model::json::Json;
use crate::model::state::State;
use crate::verify::slices::{self, Slice, Slicing};
use crate::verify::{self, Program};
use clap::Args;
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
    let k = match Kernel::load(&a.kernel, &a.cc.options()) {
        Ok(k) => k,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    if !(0..=16).contains(&a.align_range) {
        eprint!(
            "{}",
            Diagnostic::new(
                codes::INVALID_OPTION,
                "--align-range must be between 0 and 16"
            )
            .render(&[], ctx.color)
        );
        return 2;
    }
    let (state, program, deps) = match &a.prefix {
        None => {
            let program = Program::from_scop(&k.scop);
            let deps = verify::dependences(&program);
            (State::from_scop(&k.scop), program, deps)
        }
        Some(p) => match prefix_run(&k, p, ctx.color) {
            Ok(run) => (run.interp.state, run.program, run.deps),
            Err(text) => {
                eprint!("{text}");
                return 2;
            }
        },
    };
    let names = state.stmt_names.clone();
    // Segments: statement indices, in program order.
    let mut segments: Vec<(String, Vec<usize>)> = vec![];
    for t in &a.tags {
        let Some(v) = slices::tag_segment(&state, t) else {
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
            return 2;
        };
        segments.push((t.clone(), v));
    }
    if a.tags.is_empty() {
        segments = slices::nest_segments(&state);
    }
    let r = a.align_range;
    let seg_stmts: Vec<Vec<usize>> = segments.iter().map(|(_, v)| v.clone()).collect();
    let Slicing {
        slices: found,
        index,
        fusable: pairs,
    } = slices::slice_segments(&program, &deps, &seg_stmts, r);
    let iter_name = |stmt: usize, level: usize| -> String {
        program.stmts[stmt]
            .domain
            .tuple()
            .dims
            .get(level - 1)
            .cloned()
            .unwrap_or_else(|| level.to_string())
    };
    let slice_text = |s: &Slice| -> String {
        let parts: Vec<String> = s
            .entries
            .iter()
            .map(|e| {
                let it = iter_name(e.stmt, e.level);
                match e.align {
                    0 => format!("{}: {it}", names[e.stmt]),
                    a if a > 0 => format!("{}: {it} + {a}", names[e.stmt]),
                    a => format!("{}: {it} - {}", names[e.stmt], -a),
                }
            })
            .collect();
        format!("{{{}}}", parts.join(", "))
    };
    match a.format {
        Format::Text => {
            println!("alignments searched in [-{r}, {r}] (the first statement of a segment at 0)");
            let mut n = 0;
            for ((label, _), ss) in segments.iter().zip(&found) {
                println!();
                println!("segment {label}: {} valid slice(s)", ss.len());
                for s in ss {
                    n += 1;
                    let alt = match s.alternatives {
                        0 => String::new(),
                        m => format!("   ({m} other alignment(s) valid)"),
                    };
                    println!("  slice {n}: {}{alt}", slice_text(s));
                }
            }
            if segments.len() > 1 {
                println!();
                if pairs.is_empty() {
                    println!("no two slices of different segments can be fused");
                } else {
                    println!("fusable (Figure 10; the second slice shifted by the alignment):");
                    for (x, y, al) in &pairs {
                        println!("  slice {} with slice {}, alignment {al}", x + 1, y + 1);
                    }
                }
            }
        }
        Format::Json => {
            let entry = |s: &Slice| {
                let fields: Vec<(String, Json)> = s
                    .entries
                    .iter()
                    .map(|e| {
                        (
                            names[e.stmt].clone(),
                            Json::obj(vec![
                                ("level", Json::Int(e.level as i128)),
                                ("iterator", Json::str(iter_name(e.stmt, e.level))),
                                ("align", Json::Int(e.align as i128)),
                            ]),
                        )
                    })
                    .collect();
                Json::obj(
                    fields
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.clone()))
                        .collect(),
                )
            };
            let slices: Vec<Json> = found.iter().flatten().map(entry).collect();
            let segs: Vec<Json> = index.iter().map(|&(s, _)| Json::Int(s as i128)).collect();
            let fus: Vec<Json> = pairs
                .iter()
                .map(|&(x, y, al)| {
                    Json::obj(vec![
                        ("first", Json::Int(x as i128)),
                        ("second", Json::Int(y as i128)),
                        ("align", Json::Int(al as i128)),
                    ])
                })
                .collect();
            println!(
                "{}",
                Json::obj(vec![
                    ("align_range", Json::Int(r as i128)),
                    ("slices", Json::Array(slices)),
                    ("segment_of_slice", Json::Array(segs)),
                    ("fusable", Json::Array(fus)),
                ])
                .pretty()
            );
        }
    }
    0
}
