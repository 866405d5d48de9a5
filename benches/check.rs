//! `loopy check` and `loopy apply` on every example: time per phase (model, dependences,
//! script, legality, code generation), median of several runs. `check` is the first four
//! phases; `apply` runs them too, then generates the code. Then `apply --prove`'s proof of
//! the generated code (`loopy equiv` against the original's model: the written file
//! modelled, then compared), once, beside `check`'s time. Run with `cargo bench --bench
//! check`.

// The allocator of the `loopy` binary (src/main.rs), so that these times are the tool's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use loopy::driver::{self, Kernel, Run};
use loopy::frontend::Options;
use loopy::script::interp::Interpreter;
use std::path::Path;
use std::time::{Duration, Instant};

const RUNS: usize = 5;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
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
    println!("milliseconds, median of {RUNS} runs; check = model + deps + script + legality, apply = check + codegen; prove = the proof of the generated code, one run, and its ratio to check");
    println!(
        "{:<12} {:>7} {:>7} {:>7} {:>8} {:>8} {:>7} {:>7} {:>10} {:>9} {:>7}  verdict",
        "example",
        "model",
        "deps",
        "script",
        "legality",
        "codegen",
        "check",
        "apply",
        "check+apply",
        "prove",
        "×check"
    );
    let mut sums = vec![];
    for n in names {
        let c = root.join(&n).join(format!("{n}.c"));
        let s = root.join(&n).join(format!("{n}.loopy"));
        let text = std::fs::read_to_string(&s).unwrap();
        let mut phases: [Vec<Duration>; 5] = Default::default();
        let (mut checks, mut applies) = (vec![], vec![]);
        let mut verdict = String::new();
        let mut file = None;
        for _ in 0..RUNS {
            let t0 = Instant::now();
            let k = Kernel::load(&c, &Options::default())
                .unwrap_or_else(|e| panic!("{n}: {}", e.diagnostic.message));
            let t1 = Instant::now();
            let program = loopy::verify::Program::from_scop(&k.scop);
            let deps = loopy::verify::dependences(&program);
            let t2 = Instant::now();
            // What `Run::new` does, with the script timed apart from the dependences.
            let mut interp = Interpreter::new(loopy::model::state::State::from_scop(&k.scop));
            interp
                .run_text(&text, &s.display().to_string(), s.parent().unwrap())
                .unwrap_or_else(|e| panic!("{n}: {}", e.message));
            let run = Run {
                interp,
                program,
                deps,
            };
            let t3 = Instant::now();
            let v = run.check();
            let t4 = Instant::now();
            let g = driver::generate_from_script(&k, &run.interp.state, &s.display().to_string());
            let t5 = Instant::now();
            if let Ok(g) = &g {
                file = Some(g.file.clone());
            }
            verdict = match (v.is_empty(), g) {
                (true, Ok(g)) => format!(
                    "legal ({} deps, {} lines)",
                    run.deps.len(),
                    g.region.lines().count()
                ),
                (true, Err(e)) => format!("legal, no code: {}", e.diagnostic.message),
                (false, _) => format!("ILLEGAL ({})", v.len()),
            };
            for (p, d) in phases
                .iter_mut()
                .zip([t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4])
            {
                p.push(d);
            }
            checks.push(t4 - t0);
            applies.push(t5 - t0);
        }
        let [m, d, sc, l, g] = phases.map(median);
        let (check, apply) = (median(checks), median(applies));
        sums.push((n.clone(), check + apply));
        let (proof, proved) = match &file {
            Some(f) => prove(&c, f),
            None => (Duration::ZERO, "no code".to_string()),
        };
        let ratio = proof.as_secs_f64() / check.as_secs_f64().max(1e-9);
        println!(
            "{:<12} {:>7} {:>7} {:>7} {:>8} {:>8} {:>7} {:>7} {:>10} {:>9} {:>7.1}  {verdict}; {proved}",
            n,
            ms(m),
            ms(d),
            ms(sc),
            ms(l),
            ms(g),
            ms(check),
            ms(apply),
            ms(check + apply),
            ms(proof),
            ratio
        );
    }
    sums.sort_by_key(|x| x.1);
    let (worst, t) = sums.last().expect("examples");
    println!(
        "check+apply: median {} ms, largest {} ms ({worst})",
        ms(sums[sums.len() / 2].1),
        ms(*t)
    );
}

/// `apply --prove` on the generated `file` of the kernel `c`: the time and the verdict's
/// first word.
fn prove(c: &Path, file: &str) -> (Duration, String) {
    let dir = std::env::temp_dir().join(format!("loopy-bench-prove-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(c.file_name().unwrap());
    std::fs::write(&out, file).unwrap();
    let t0 = Instant::now();
    let original = Kernel::load(c, &Options::default()).expect("the original");
    let opts = Options {
        read_generated: true,
        includes: c
            .parent()
            .map(|p| vec![p.to_path_buf()])
            .unwrap_or_default(),
        ..Options::default()
    };
    let limit = loopy::presburger::budget::DEFAULT;
    let said = match Kernel::load_versions(&out, &opts) {
        Ok(ks) => {
            let p = driver::prove(&original.scop, &ks, limit, &|_| {});
            match p.code {
                0 => "proved".to_string(),
                _ => p.summary.chars().take(70).collect(),
            }
        }
        Err(e) => format!("not read: {}", e.diagnostic.message),
    };
    let t = t0.elapsed();
    let _ = std::fs::remove_dir_all(&dir);
    (t, said)
}
