//! `loopy check` on every example: time per phase (model, dependences, script, legality),
//! median of several runs. Run with `cargo bench --bench check`.

use loopy::driver::{Kernel, Run};
use loopy::frontend::Options;
use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            root.join(n).join(format!("{n}.c")).exists()
                && root.join(n).join(format!("{n}.loopy")).exists()
        })
        .collect();
    names.sort();
    println!(
        "{:<12} {:>9} {:>9} {:>9} {:>9} {:>9}  verdict",
        "example", "model", "deps", "script", "check", "total"
    );
    let mut totals = vec![];
    for n in names {
        let c = root.join(&n).join(format!("{n}.c"));
        let s = root.join(&n).join(format!("{n}.loopy"));
        let text = std::fs::read_to_string(&s).unwrap();
        let (mut tm, mut td, mut ts, mut tc, mut tt) = (vec![], vec![], vec![], vec![], vec![]);
        let mut verdict = String::new();
        for _ in 0..5 {
            let t0 = Instant::now();
            let k = Kernel::load(&c, &Options::default())
                .unwrap_or_else(|e| panic!("{n}: {}", e.diagnostic.message));
            let t1 = Instant::now();
            let program = k.program();
            let deps = loopy::verify::dependences(&program);
            let t2 = Instant::now();
            let run = Run::new(&k, &text, &s.display().to_string(), s.parent().unwrap())
                .unwrap_or_else(|e| panic!("{n}: {}", e.diagnostic.message));
            let t3 = Instant::now();
            let v = run.check();
            let t4 = Instant::now();
            verdict = if v.is_empty() {
                format!("legal ({} deps)", deps.len())
            } else {
                format!("ILLEGAL ({})", v.len())
            };
            tm.push(t1 - t0);
            td.push(t2 - t1);
            ts.push(t3 - t2);
            tc.push(t4 - t3);
            tt.push(t4 - t0);
        }
        let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1e3);
        let total = median(tt);
        totals.push(total);
        println!(
            "{:<12} {:>9} {:>9} {:>9} {:>9} {:>9}  {verdict}",
            n,
            ms(median(tm)),
            ms(median(td)),
            ms(median(ts)),
            ms(median(tc)),
            ms(total)
        );
    }
    totals.sort();
    println!(
        "median total: {:.1} ms",
        totals[totals.len() / 2].as_secs_f64() * 1e3
    );
}
