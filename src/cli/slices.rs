//! `loopy slices`: the valid computation slices of each segment of a kernel, and which
//! slices of different segments can be fused (logic in `verify::slices`).

use super::Ctx;
use super::{CcArgs, Format};
use crate::diag::Diagnostic;
use crate::driver::Kernel;
use crate::model::json::Json;
use crate::model::state::State;
use crate::verify::{self, slices::Oracle, slices::Slice, Program};
use clap::Args;
use std::collections::BTreeMap;
use std::path::PathBuf;

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
            Diagnostic::new("--align-range must be between 0 and 16").render(&[], ctx.color)
        );
        return 2;
    }
    let state = State::from_scop(&k.scop);
    let names = state.stmt_names.clone();
    // Segments: statement indices, in program order.
    let mut segments: Vec<(String, Vec<usize>)> = vec![];
    if a.tags.is_empty() {
        let mut by_nest: BTreeMap<_, Vec<usize>> = BTreeMap::new();
        for p in &state.pieces {
            let v = by_nest.entry(p.pos[0].clone()).or_default();
            if !v.contains(&p.stmt) {
                v.push(p.stmt);
            }
        }
        for (_, v) in by_nest {
            let label = v
                .iter()
                .map(|&s| names[s].clone())
                .collect::<Vec<_>>()
                .join(", ");
            segments.push((label, v));
        }
    } else {
        for t in &a.tags {
            let Some(&h) = state.handles.get(t) else {
                let known: Vec<String> = state.handles.keys().map(|k| format!("`{k}`")).collect();
                eprint!(
                    "{}",
                    Diagnostic::new(format!("no tag `{t}` in {}", a.kernel.display()))
                        .with_note(format!("tags: {}", known.join(", ")))
                        .render(&[], ctx.color)
                );
                return 2;
            };
            let mut v: Vec<usize> = state
                .members(&state.components[h].positions)
                .into_iter()
                .map(|i| state.pieces[i].stmt)
                .collect();
            v.sort();
            v.dedup();
            segments.push((t.clone(), v));
        }
    }
    let program = Program::from_scop(&k.scop);
    let deps = verify::dependences(&program);
    let mut oracle = Oracle::new(&program, &deps);
    let r = a.align_range;
    let found: Vec<Vec<Slice>> = segments
        .iter()
        .map(|(_, seg)| oracle.slices(seg, r))
        .collect();
    // Fusable pairs: a slice of an earlier segment with one of a later segment.
    let mut index = vec![];
    for (si, ss) in found.iter().enumerate() {
        for j in 0..ss.len() {
            index.push((si, j));
        }
    }
    let mut pairs = vec![];
    for (x, &(s1, j1)) in index.iter().enumerate() {
        for (y, &(s2, j2)) in index.iter().enumerate() {
            if s1 < s2 {
                if let Some(al) = oracle.fusable(&found[s1][j1], &found[s2][j2], r) {
                    pairs.push((x, y, al));
                }
            }
        }
    }
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
