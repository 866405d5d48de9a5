//! The instances a trace of generated code must print: every piece's domain points at fixed
//! parameter values, each with its time under the piece's schedule (an integer solve with
//! the iterators fixed: the schedule is a function), sorted by time. Shared by the trace
//! tests (`codegen_trace.rs`, `codegen_copy.rs`).

use loopy::driver::{Kernel, Run};
use loopy::presburger::Int;

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
                    b.sample().map(|s| s[np + n_in..np + b.n_dim].to_vec())
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
