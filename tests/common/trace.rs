//! The instances a trace of generated code must print: every piece's domain points at fixed
//! parameter values, each with its time under the piece's schedule (an integer solve with
//! the iterators fixed: the schedule is a function), sorted by time. Shared by the trace
//! tests (`codegen_trace.rs`, `codegen_copy.rs`), with the program that prints a trace.

use loopy::driver::{Kernel, Run};
use loopy::presburger::Int;
use std::path::{Path, PathBuf};

/// `(time, "Stmt i j ...")` for every instance of every piece, sorted by time.
pub fn scheduled_instances(kernel: &Kernel, run: &Run, values: &[i64]) -> Vec<(Vec<Int>, String)> {
    let np = kernel.scop.params.len();
    let mut all: Vec<(Vec<Int>, String)> = vec![];
    for p in &run.interp.state.pieces {
        let st = &kernel.scop.statements[p.stmt];
        let mut dom = p.domain.clone();
        for (name, v) in kernel.scop.params.iter().zip(values) {
            dom = dom.fix_param(name, &Int::from(*v)).expect("parameter");
        }
        let graph = p.schedule().wrap();
        let n_in = st.iterators.len();
        for pt in dom.points(2_000_000).expect("bounded") {
            let time = graph
                .parts()
                .iter()
                .find_map(|b| {
                    let mut b = b.clone();
                    for (k, v) in values[..np].iter().enumerate() {
                        b.fix_col(1 + k, &Int::from(*v));
                    }
                    for (k, v) in pt.iter().enumerate() {
                        b.fix_col(1 + np + k, v);
                    }
                    b.sample().map(|s| s[np + n_in..np + b.n_dim()].to_vec())
                })
                .expect("every instance has a time");
            let line: String = std::iter::once(st.name.clone())
                .chain(pt.iter().map(|v| v.to_string()))
                .collect::<Vec<_>>()
                .join(" ");
            all.push((time, line));
        }
    }
    all.sort();
    all
}

/// Compiles a traced region as a program taking the parameters as arguments (outer loop
/// counters the kernel declares outside the region declared too), with -Wall -Wextra -Werror.
pub fn build_trace(kernel: &Kernel, region: &str, dir: &Path) -> PathBuf {
    let mut prog = String::from("#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {\n  (void)argc;\n");
    for (k, p) in kernel.scop.params.iter().enumerate() {
        prog.push_str(&format!("  int {p} = atoi(argv[{}]);\n", k + 1));
    }
    let mut counters: Vec<String> = kernel
        .scop
        .statements
        .iter()
        .flat_map(|s| s.loops.iter().filter(|l| l.outer_counter))
        .map(|l| l.c_name.clone())
        .collect();
    counters.sort();
    counters.dedup();
    if !counters.is_empty() {
        prog.push_str(&format!("  int {};\n", counters.join(", ")));
    }
    prog.push_str(region);
    prog.push_str("\n  return 0;\n}\n");
    let src = dir.join("trace.c");
    std::fs::write(&src, &prog).unwrap();
    let exe = dir.join("trace");
    // The trace is the sequential order of the schedule. Loop marks (`#pragma omp simd`,
    // `parallel for`) do not change it: they are verified on their own, and left to the
    // compiler to ignore here.
    crate::common::compile(
        &src,
        &exe,
        &["-O0", "-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas"],
        &prog,
    );
    exe
}
