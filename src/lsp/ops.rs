//! The built-in operations as an editor shows them: signature, one line of meaning, and which
//! arguments are loop numbers (for completion). The standard library's procedures are read
//! from its text instead ([`procedures`]).

use crate::script::ast::ScriptItem;
use crate::script::parse::parse_script;

/// One built-in operation.
pub struct Op {
    pub name: &'static str,
    /// Every form it accepts, as written in docs/language.md.
    pub signatures: &'static [&'static str],
    pub doc: &'static str,
    /// The argument positions (from 0) that name loops, counted from 1 outermost.
    pub loop_args: &'static [usize],
}

/// Every operation the interpreter knows without a procedure (`BUILTINS` and `LOOP_OPS`).
pub const OPS: &[Op] = &[
    Op {
        name: "realign",
        signatures: &["realign(l1, l2, n)"],
        doc: "Fuse or distribute: `l2` shares exactly its `n` outermost loops with `l1`, placed right after it.",
        loop_args: &[2],
    },
    Op {
        name: "move_before",
        signatures: &["move_before(l, m)"],
        doc: "Run component `l` before the earlier component `m`.",
        loop_args: &[],
    },
    Op {
        name: "lift",
        signatures: &["l2 = lift(l1, n)"],
        doc: "Name the enclosing loop `n` of `l1` as a component of its own.",
        loop_args: &[1],
    },
    Op {
        name: "affine",
        signatures: &["affine(l, MAP)"],
        doc: "Any affine change of the iteration space, a map in isl notation over the loops from the outermost.",
        loop_args: &[],
    },
    Op {
        name: "isplit",
        signatures: &["(l1, l2) = isplit(l, SET, n)"],
        doc: "Index-set splitting: the instances in `SET` and the others become two components, distributed at depth `n`.",
        loop_args: &[2],
    },
    Op {
        name: "tile",
        signatures: &["tile(l, [s1, ..., sk])", "tile(l, [loops], [sizes])"],
        doc: "Tile the outermost loops (or the loops listed) with the sizes given.",
        loop_args: &[],
    },
    Op {
        name: "hoist",
        signatures: &["hoist(l, SLICE)", "hoist(l, SLICE, n)"],
        doc: "Dependence hoisting: a computation slice of `loopy slices` becomes the outer loop.",
        loop_args: &[2],
    },
    Op {
        name: "parallel",
        signatures: &["parallel(l, k)", "parallel(l, k, op)"],
        doc: "Mark loop `k` parallel (an OpenMP loop), or a parallel reduction with `+`, `*`, `min` or `max`; verified race-free.",
        loop_args: &[1],
    },
    Op {
        name: "vectorize",
        signatures: &["vectorize(l, k)"],
        doc: "Mark loop `k` as a vector loop (`omp simd`); verified to carry no dependence.",
        loop_args: &[1],
    },
    Op {
        name: "unroll",
        signatures: &["unroll(l, k, u)"],
        doc: "Unroll loop `k` by the factor `u`.",
        loop_args: &[1],
    },
    Op {
        name: "copy",
        signatures: &["copy(l, k, A)", "copy(l, k, A, limit)"],
        doc: "Stage array `A` in a local buffer inside loop `k` (packing), written back where it is written.",
        loop_args: &[1],
    },
    Op {
        name: "copy_scaled",
        signatures: &["copy_scaled(l, k, A, s)", "copy_scaled(l, k, A, s, limit)"],
        doc: "Stage array `A` multiplied by the scalar `s` in a local buffer inside loop `k`, as BLIS packs alpha.",
        loop_args: &[1],
    },
    Op {
        name: "copy_written",
        signatures: &["copy_written(l, k, A)", "copy_written(l, k, A, limit)"],
        doc: "Hold the elements of `A` that the statements write in a local buffer inside loop `k` (registers when small), reading the others from `A`: a row of accumulators across a reduction.",
        loop_args: &[1],
    },
    Op {
        name: "expand",
        signatures: &["expand(l, k, x)", "expand(l, k, x, limit)"],
        doc: "One copy of the reused variable `x` per iteration of loops `1..k`, so that a reordering no longer conflicts on it.",
        loop_args: &[1],
    },
    Op {
        name: "contract",
        signatures: &["contract(x)", "contract(x, k)", "contract(x, [k1, k2, ...])"],
        doc: "Give loops of an expansion back: the storage loses their dimensions, verified on the final schedule.",
        loop_args: &[1],
    },
    Op {
        name: "interchange",
        signatures: &["interchange(l, a, b)", "interchange(l)"],
        doc: "Swap loops `a` and `b` (the two outermost by default).",
        loop_args: &[1, 2],
    },
    Op {
        name: "permute",
        signatures: &["permute(l, [a, b, ...])"],
        doc: "New loop order: old loop `a` outermost, then `b`, ...",
        loop_args: &[],
    },
    Op {
        name: "reverse",
        signatures: &["reverse(l, k)", "reverse(l)"],
        doc: "Run loop `k` backwards (the outermost by default).",
        loop_args: &[1],
    },
    Op {
        name: "shift",
        signatures: &["shift(l, k, s)", "shift(l, s)"],
        doc: "Loop `k` runs `s` iterations later.",
        loop_args: &[1],
    },
    Op {
        name: "skew",
        signatures: &["skew(l, k, m, f)", "skew(l, f)"],
        doc: "Loop `k` plus `f` times loop `m` (`skew(l, f)` is `skew(l, 2, 1, f)`).",
        loop_args: &[1, 2],
    },
    Op {
        name: "strip_mine",
        signatures: &["strip_mine(l, k, s)", "strip_mine(l, s)"],
        doc: "Loop `k` becomes a loop over strips of `s` and a loop inside a strip.",
        loop_args: &[1],
    },
];

/// The built-in operation `name`.
pub fn op(name: &str) -> Option<&'static Op> {
    OPS.iter().find(|o| o.name == name)
}

/// A procedure defined in script text: name, parameters, the comment lines just above its
/// `def` (its documentation), and the byte range of its name.
#[derive(Clone, Debug)]
pub struct Procedure {
    pub name: String,
    pub params: Vec<String>,
    pub doc: String,
    pub name_span: std::ops::Range<usize>,
}

impl Procedure {
    pub fn signature(&self) -> String {
        format!("{}({})", self.name, self.params.join(", "))
    }
}

/// The procedures `text` defines (none when it does not parse).
pub fn procedures(text: &str, name: &str) -> Vec<Procedure> {
    let Ok(script) = parse_script(text, name) else {
        return vec![];
    };
    script
        .items
        .iter()
        .filter_map(|i| match i {
            ScriptItem::Def(d) => Some(Procedure {
                name: d.name.text.clone(),
                params: d.params.iter().map(|p| p.text.clone()).collect(),
                doc: comment_above(text, d.span.start),
                name_span: d.name.span.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// The `#` comment lines directly above the line holding byte `at`, without their `#`.
fn comment_above(text: &str, at: usize) -> String {
    let before = &text[..at.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let mut lines: Vec<&str> = vec![];
    for line in text[..line_start].lines().rev() {
        let t = line.trim();
        match t.strip_prefix('#').or_else(|| t.strip_prefix("//")) {
            Some(c) => lines.push(c.trim()),
            None => break,
        }
    }
    lines.reverse();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::interp::{BUILTINS, LOOP_OPS};

    #[test]
    fn every_operation_has_a_signature() {
        for name in BUILTINS.iter().chain(LOOP_OPS.iter()) {
            let o = op(name).unwrap_or_else(|| panic!("no signature for `{name}`"));
            assert!(o.signatures.iter().all(|s| s.contains(name)));
        }
        assert_eq!(OPS.len(), BUILTINS.len() + LOOP_OPS.len());
    }

    #[test]
    fn procedures_carry_their_comments() {
        let text = "# one\n# two\ndef f(a, b) {\n  interchange(a)\n}\n\ndef g() { }\n";
        let p = procedures(text, "t.loopy");
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].signature(), "f(a, b)");
        assert_eq!(p[0].doc, "one\ntwo");
        assert_eq!(&text[p[0].name_span.clone()], "f");
        assert_eq!(p[1].doc, "");
        let std = procedures(
            crate::script::stdlib::STD_TEXT,
            crate::script::stdlib::STD_NAME,
        );
        let tile2 = std.iter().find(|p| p.name == "tile2").expect("tile2");
        assert!(tile2.doc.contains("tile(l, [s1, s2])"), "{}", tile2.doc);
    }
}
