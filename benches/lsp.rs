//! Latency of `loopy lsp`: for every script of `examples/loopy.toml`, the time from a change
//! of its text (`didChange`) to the diagnostics of that version, as an editor sees it (the
//! server's pause for typing included). Run with `cargo bench --bench lsp`; `LSP_ROUNDS`
//! changes per script (default 5).

#[path = "../tests/common/lsp_client.rs"]
mod lsp_client;

use lsp_client::Client;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn scripts(manifest: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(manifest).expect("the manifest");
    let dir = manifest.parent().unwrap();
    let mut out: Vec<PathBuf> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("script = "))
        .map(|s| dir.join(s.trim().trim_matches('"')))
        .collect();
    out.dedup();
    out
}

fn pct(v: &[Duration], p: f64) -> f64 {
    let k = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[k].as_secs_f64() * 1e3
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rounds: usize = std::env::var("LSP_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let mut all = vec![];
    let mut c = Client::start(env!("CARGO_BIN_EXE_loopy"), &[]);
    println!(
        "{:<34} {:>9} {:>9} {:>6}",
        "script", "median ms", "max ms", "diags"
    );
    for s in scripts(&root.join("examples/loopy.toml")) {
        let text = std::fs::read_to_string(&s).expect("the script");
        let uri = format!("file://{}", s.display());
        c.open(&uri, &text);
        // The first analysis models the kernel (once per kernel and server).
        let first = c.diagnostics(&uri, 1);
        let mut times = vec![];
        for r in 0..rounds {
            let version = 2 + r as i64;
            let changed = format!("{text}{}", "\n".repeat(r % 2 + 1));
            let t = Instant::now();
            c.change(&uri, version, &changed);
            c.diagnostics(&uri, version);
            times.push(t.elapsed());
        }
        c.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        );
        times.sort();
        let name = s.strip_prefix(root.join("examples")).unwrap_or(&s);
        println!(
            "{:<34} {:>9.1} {:>9.1} {:>6}",
            name.display(),
            pct(&times, 0.5),
            pct(&times, 1.0),
            first.len()
        );
        all.extend(times);
    }
    c.shutdown();
    all.sort();
    let over = all.iter().filter(|t| t.as_millis() > 300).count();
    println!(
        "\n{} changes: min {:.1} ms, median {:.1} ms, p90 {:.1} ms, max {:.1} ms; {} over 300 ms",
        all.len(),
        pct(&all, 0.0),
        pct(&all, 0.5),
        pct(&all, 0.9),
        pct(&all, 1.0),
        over
    );
}
