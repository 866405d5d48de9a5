//! The standard library (`stdlib-scripts/std.loopy`), compiled into the binary so every
//! script can use it without an import.

use super::ast::Script;
use super::parse::parse_script;

/// Name under which diagnostics show the standard library.
pub const STD_NAME: &str = "<std>/std.loopy";

/// The text of the standard library.
pub const STD_TEXT: &str = include_str!("../../stdlib-scripts/std.loopy");

/// The parsed standard library.
pub fn std_script() -> Script {
    parse_script(STD_TEXT, STD_NAME).expect("the standard library parses (tested)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presburger::{parse_with_constants, Int, Parsed};
    use crate::script::ast::{Arg, ScriptItem, Stmt};

    #[test]
    fn every_procedure_parses_and_its_maps_are_functions() {
        let s = parse_script(STD_TEXT, STD_NAME).unwrap();
        let defs: Vec<_> = s
            .items
            .iter()
            .filter_map(|i| match i {
                ScriptItem::Def(d) => Some(d),
                _ => None,
            })
            .collect();
        for name in [
            "interchange3",
            "permute3",
            "reverse2",
            "reverse3",
            "shift2",
            "shift3",
            "skew3",
            "tile2",
            "tile3",
            "fuse",
            "distribute",
            "peel_front",
            "split_at",
            "unroll_jam",
            "unroll_jam2",
            "unroll_jam3",
            "register_tile",
            "wavefront",
            "wavefront_jacobi2",
            "wavefront_jacobi2_split",
            "wavefront_seidel2",
        ] {
            assert!(defs.iter().any(|d| d.name.text == name), "{name} missing");
        }
        // Valid integer arguments for each procedure with maps.
        let valid: &[(&str, &[&[i64]])] = &[
            ("interchange3", &[&[1, 2], &[3, 1], &[2, 3]]),
            ("permute3", &[&[1, 2, 3], &[3, 1, 2], &[2, 3, 1]]),
            ("reverse2", &[&[1], &[2]]),
            ("reverse3", &[&[1], &[2], &[3]]),
            ("shift2", &[&[1, 3], &[2, -1]]),
            ("shift3", &[&[1, 3], &[2, -1], &[3, 2]]),
            ("skew3", &[&[1, 1], &[2, -1]]),
            ("tile2", &[&[4, 8]]),
            ("tile3", &[&[32, 32, 16]]),
            ("peel_front", &[&[1, 0]]),
            ("split_at", &[&[10, 1]]),
            // (slice, s): the slice is not used inside the map.
            ("hoist_strip", &[&[0, 4], &[0, 64]]),
            ("hoist_strip2", &[&[0, 4], &[0, 64]]),
            ("hoist_strip3", &[&[0, 4], &[0, 64]]),
            ("register_tile", &[&[4, 16], &[1, 8], &[6, 1]]),
            // (a, b, c, mr, nr, kc, mc, nc): the arrays are not used inside the map.
            (
                "gemm_block",
                &[&[0, 0, 0, 6, 8, 256, 72, 1104], &[0, 0, 0, 1, 1, 1, 1, 1]],
            ),
            // (a, s, b, c, mr, nr, kc, mc, nc).
            (
                "gemm_block_scaled",
                &[
                    &[0, 0, 0, 0, 6, 8, 256, 72, 1104],
                    &[0, 0, 0, 0, 1, 1, 1, 1, 1],
                ],
            ),
        ];
        for d in defs {
            let cases: &[&[i64]] = valid
                .iter()
                .find(|(n, _)| *n == d.name.text)
                .map_or(&[&[]], |(_, c)| *c);
            for stmt in &d.body {
                let Stmt::Call { call, .. } = stmt else {
                    continue;
                };
                for a in &call.args {
                    let Arg::Isl(text, _) = a else { continue };
                    for c in cases {
                        let consts: Vec<(String, Int)> = d
                            .params
                            .iter()
                            .skip(1)
                            .zip(c.iter())
                            .map(|(n, v)| (n.text.clone(), Int::from(*v)))
                            .collect();
                        let parsed = parse_with_constants(text, &[], &consts)
                            .unwrap_or_else(|e| panic!("{}: {text}: {e}", d.name.text));
                        if let Parsed::Map(m) = parsed {
                            let m = m.simplify();
                            assert!(m.is_single_valued(), "{}: {m}", d.name.text);
                            assert!(m.is_injective(), "{}: {m}", d.name.text);
                            assert!(!m.is_empty(), "{} with {consts:?} is empty", d.name.text);
                        }
                    }
                }
            }
        }
    }
}
