//! loopy's integer core against isl on the same problems: emptiness of every dependence
//! relation of every example (as `loopy::verify::dependences` computes them), and the
//! parametric lexmin and lexmax of random parametric 3-D sets with one or two existentials
//! with non-unit coefficients (the shape of `tests/presburger_pip.rs`). Prints the median
//! time of each side per problem, the ratio loopy / isl, their median and the worst case,
//! and how many of the emptiness problems' conjunctions the fast exact path
//! (`presburger::sample`) answers without the Omega test.
//!
//! isl is timed through islpy (`benches/isl_compare.py`); when `python3 -c 'import islpy'`
//! fails, the bench tries `python3 -m pip install --user islpy` once and, failing that,
//! prints loopy's times alone with a message saying why. Nothing else needs islpy.
//!
//! Run with `cargo bench --bench isl` (`ISL_BENCH_SETS=n` for more or fewer random sets).

use loopy::driver::Kernel;
use loopy::frontend::Options;
use loopy::presburger::{parse_map, parse_set, sample};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

struct Problem {
    kind: &'static str,
    name: String,
    text: String,
}

/// Median of repeated runs: at least 3, up to 15, until about 0.3 s is spent.
fn time(mut f: impl FnMut()) -> Duration {
    let mut samples = vec![];
    let mut total = Duration::ZERO;
    while samples.len() < 15 && (samples.len() < 3 || total < Duration::from_millis(300)) {
        let t = Instant::now();
        f();
        let d = t.elapsed();
        total += d;
        samples.push(d);
    }
    samples.sort();
    samples[samples.len() / 2]
}

fn dependence_problems() -> Vec<Problem> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| root.join(n).join(format!("{n}.c")).exists())
        .collect();
    names.sort();
    let mut out = vec![];
    for n in names {
        let c = root.join(&n).join(format!("{n}.c"));
        let Ok(k) = Kernel::load(&c, &Options::default()) else {
            continue;
        };
        let deps = loopy::verify::dependences(&loopy::verify::Program::from_scop(&k.scop));
        for (d, dep) in deps.iter().enumerate() {
            for (l, (_, map)) in dep.pieces.iter().enumerate() {
                out.push(Problem {
                    kind: "empty",
                    name: format!("{n} {} {} #{d}.{l}", dep.kind.name(), dep.array),
                    text: map.to_string(),
                });
            }
        }
    }
    out
}

/// A small deterministic generator (64-bit LCG), so that every run times the same sets.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

/// ` + 3i`, ` - 2N`, or nothing for a zero coefficient (isl notation).
fn term(a: i64, v: &str) -> String {
    match a {
        0 => String::new(),
        a if a > 0 => format!(" + {a}{v}"),
        a => format!(" - {}{v}", -a),
    }
}

fn aff(g: &mut Lcg, dims: i64, par: i64, cst: i64) -> String {
    let mut s = format!("{}", g.range(-cst, cst));
    for v in ["i", "j", "k"] {
        let a = g.range(-dims, dims);
        s += &term(a, v);
    }
    s += &term(g.range(-par, par), "N");
    s
}

fn random_set(g: &mut Lcg) -> String {
    let mut s = String::from("-3 <= i <= N and -3 <= j <= N and -3 <= k <= N");
    for _ in 0..g.range(0, 2) {
        s += &format!(" and {} >= 0", aff(g, 3, 2, 6));
    }
    let c0 = g.range(2, 5);
    if g.range(0, 1) == 0 {
        s += &format!(
            " and exists (e0 : {c0}e0 = {} and 0 <= e0 <= N)",
            aff(g, 5, 1, 8)
        );
    } else {
        let c1 = g.range(2, 7);
        s += &format!(
            " and exists (e0, e1 : {c0}e0 + {c1}e1 = {} and 0 <= e0 <= N and 0 <= e1 <= 4)",
            aff(g, 5, 1, 8)
        );
    }
    format!("[N] -> {{ [i, j, k] : {s} }}")
}

fn lexopt_problems(n: usize) -> Vec<Problem> {
    let mut g = Lcg(15);
    let mut out = vec![];
    for i in 0..n {
        let text = random_set(&mut g);
        for kind in ["lexmin", "lexmax"] {
            out.push(Problem {
                kind,
                name: format!("random set {i} {kind}"),
                text: text.clone(),
            });
        }
    }
    out
}

fn time_loopy(p: &Problem) -> Duration {
    if p.kind == "empty" {
        let m = parse_map(&p.text, &[]).expect("dependence parses back");
        time(|| {
            std::hint::black_box(m.is_empty());
        })
    } else {
        let s = parse_set(&p.text, &[]).expect("random set parses");
        let max = p.kind == "lexmax";
        time(|| {
            std::hint::black_box(if max { s.lexmax() } else { s.lexmin() }.expect("bounded"));
        })
    }
}

/// How the fast path of `presburger::sample` fares on the emptiness problems' conjunctions:
/// (answered non-empty, answered empty, left to the Omega test).
fn fast_path_coverage(problems: &[Problem]) -> (usize, usize, usize) {
    let mut counts = (0, 0, 0);
    for p in problems.iter().filter(|p| p.kind == "empty") {
        let m = parse_map(&p.text, &[]).expect("dependence parses back");
        for b in m.parts() {
            match sample::feasible_rows(b.width() - 1, b.eqs(), b.ineqs()) {
                Some(true) => counts.0 += 1,
                Some(false) => counts.1 += 1,
                None => counts.2 += 1,
            }
        }
    }
    counts
}

fn have_islpy() -> bool {
    let ok = || {
        Command::new("python3")
            .args(["-c", "import islpy"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if ok() {
        return true;
    }
    eprintln!("islpy not found; trying `python3 -m pip install --user islpy` ...");
    let _ = Command::new("python3")
        .args(["-m", "pip", "install", "--user", "--quiet", "islpy"])
        .status();
    ok()
}

/// isl's times (`None` where isl rejected a problem), or why there are none.
fn time_isl(problems: &[Problem]) -> Result<Vec<Option<Duration>>, String> {
    if !have_islpy() {
        return Err("islpy is not installed and `pip install islpy` failed: \
                    showing loopy's times only"
            .into());
    }
    let file = std::env::temp_dir().join(format!("loopy-isl-bench-{}.txt", std::process::id()));
    let lines: Vec<String> = problems
        .iter()
        .map(|p| format!("{}\t{}", p.kind, p.text))
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").map_err(|e| e.to_string())?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/isl_compare.py");
    let out = Command::new("python3").arg(&script).arg(&file).output();
    let _ = std::fs::remove_file(&file);
    let out = out.map_err(|e| format!("python3: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let times: Vec<Option<Duration>> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.parse::<f64>().ok().map(Duration::from_secs_f64))
        .collect();
    if times.len() != problems.len() {
        return Err("isl_compare.py answered a different number of problems".into());
    }
    Ok(times)
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn main() {
    let n_sets = std::env::var("ISL_BENCH_SETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let mut problems = dependence_problems();
    problems.extend(lexopt_problems(n_sets));
    let loopy: Vec<Duration> = problems.iter().map(time_loopy).collect();
    let isl = match time_isl(&problems) {
        Ok(t) => Some(t),
        Err(why) => {
            println!("isl comparison skipped: {why}");
            None
        }
    };
    println!(
        "{:<44} {:>7} {:>12} {:>12} {:>8}",
        "problem", "kind", "loopy", "isl", "ratio"
    );
    let mut by_kind: Vec<(&str, Vec<f64>, Duration)> = vec![];
    for (i, p) in problems.iter().enumerate() {
        let l = loopy[i];
        let it = isl.as_ref().and_then(|t| t[i]);
        let ratio = it.map(|t| l.as_secs_f64() / t.as_secs_f64());
        let kind = if p.kind == "empty" { "empty" } else { "lexopt" };
        if !by_kind.iter().any(|(k, _, _)| *k == kind) {
            by_kind.push((kind, vec![], Duration::ZERO));
        }
        let e = by_kind
            .iter_mut()
            .find(|(k, _, _)| *k == kind)
            .expect("added");
        if let Some(r) = ratio {
            e.1.push(r);
        }
        e.2 = e.2.max(l);
        let name: String = p.name.chars().take(44).collect();
        println!(
            "{:<44} {:>7} {:>12} {:>12} {:>8}",
            name,
            p.kind,
            us(l),
            it.map_or_else(|| "-".to_string(), us),
            ratio.map_or_else(|| "-".to_string(), |r| format!("{r:.2}")),
        );
    }
    println!();
    let (non_empty, empty, fell) = fast_path_coverage(&problems);
    println!(
        "empty: the fast path answered {} conjunctions non-empty and {empty} empty; {fell} went to the Omega test",
        non_empty
    );
    for (kind, mut ratios, slowest) in by_kind {
        ratios.sort_by(|a, b| a.total_cmp(b));
        if ratios.is_empty() {
            println!("{kind}: slowest loopy case {}", us(slowest));
            continue;
        }
        println!(
            "{kind}: {} problems compared, median ratio loopy/isl {:.2}, worst {:.2}, best {:.2}; slowest loopy case {}",
            ratios.len(),
            ratios[ratios.len() / 2],
            ratios[ratios.len() - 1],
            ratios[0],
            us(slowest)
        );
    }
}
