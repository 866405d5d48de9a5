//! `loopy lsp` driven over stdio as an editor drives it: initialize, didOpen, didChange,
//! hover, completion, definition, codeAction, shutdown.

#[path = "common/lsp_client.rs"]
mod lsp_client;

use lsp_client::Client;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn start(extra: &[&str]) -> Client {
    Client::start(env!("CARGO_BIN_EXE_loopy"), extra)
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("loopy-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const ILLEGAL: &str = "# kernel: producer_consumer.c
# Shift the consumer back, then fuse it into the producer's loop.
affine(Cons, {[i] -> [i - 1]})
realign(Prod, Cons, 1)
";

#[test]
fn an_editor_session() {
    let dir = scratch("session");
    std::fs::copy(
        root().join("tests/must_fail/producer_consumer.c"),
        dir.join("producer_consumer.c"),
    )
    .unwrap();
    let script = dir.join("fuse.loopy");
    std::fs::write(&script, ILLEGAL).unwrap();
    let u = uri(&script);
    let mut c = start(&[]);
    c.open(&u, ILLEGAL);

    // The illegal step gets its diagnostic, on its line, with the witness.
    let d = c.diagnostics(&u, 1);
    assert_eq!(d.len(), 1, "{d:?}");
    let msg = d[0]["message"].as_str().unwrap();
    assert!(msg.contains("dependence"), "{msg}");
    assert!(
        msg.contains("with n = "),
        "the witness is in the message: {msg}"
    );
    let (line, col) = (
        d[0]["range"]["start"]["line"].as_u64().unwrap(),
        d[0]["range"]["start"]["character"].as_u64().unwrap(),
    );
    assert!(line == 2 || line == 3, "on a step's line: {d:?}");
    assert_eq!(col, 0);
    let related = d[0]["relatedInformation"].as_array().unwrap();
    assert!(
        related.iter().any(|r| r["location"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("producer_consumer.c")),
        "related locations in the C file: {related:?}"
    );

    // Hover on the fusion: the schedules it moved, and that the script is illegal after it.
    let h = c.at("textDocument/hover", &u, 3, 2);
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("step 2"), "{text}");
    assert!(text.contains("illegal"), "{text}");
    assert!(
        text.contains("before:") && text.contains("after:"),
        "{text}"
    );
    // ...and on the first step, legal after it.
    let h = c.at("textDocument/hover", &u, 2, 10);
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("step 1") && text.contains("legal after this step"),
        "{text}"
    );

    // Completion offers the kernel's tags where a handle goes, operations where a step
    // starts, and loop numbers after a handle.
    let r = c.at("textDocument/completion", &u, 3, 8);
    let labels: Vec<String> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect();
    assert!(labels.contains(&"Prod".to_string()), "{labels:?}");
    assert!(labels.contains(&"Cons".to_string()), "{labels:?}");
    let r = c.at("textDocument/completion", &u, 4, 0);
    let labels: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"tile") && labels.contains(&"interchange3"),
        "{labels:?}"
    );

    // Go to definition of a tag: its C label.
    let r = c.at("textDocument/definition", &u, 3, 9);
    assert!(
        r["result"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("producer_consumer.c"),
        "{r}"
    );

    // The repair as a code action; applied, it makes `loopy check` pass.
    let r = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": d[0]["range"],
               "context": {"diagnostics": [d[0]]}}),
    );
    let actions = r["result"].as_array().unwrap();
    assert_eq!(actions.len(), 1, "{r}");
    let edit = &actions[0]["edit"]["changes"][&u][0];
    let fixed = apply_edit(ILLEGAL, edit);
    let fixed_path = dir.join("fixed.loopy");
    std::fs::write(&fixed_path, &fixed).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_loopy"))
        .args(["check"])
        .arg(dir.join("producer_consumer.c"))
        .arg(&fixed_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the repaired script is legal:\n{fixed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Fixing the text clears the diagnostic.
    c.change(&u, 2, &fixed);
    assert!(c.diagnostics(&u, 2).is_empty());
    // Breaking it again brings it back; a syntax error is reported where it is.
    c.change(
        &u,
        3,
        "# kernel: producer_consumer.c\ntile(Prod, [4]]\nreverse(Prod)\n",
    );
    let d = c.diagnostics(&u, 3);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        d[0]["range"]["start"],
        json!({"line": 1, "character": 14}),
        "{d:?}"
    );
    c.shutdown();
}

fn apply_edit(text: &str, edit: &Value) -> String {
    let offset = |p: &Value| -> usize {
        let (l, ch) = (
            p["line"].as_u64().unwrap() as usize,
            p["character"].as_u64().unwrap() as usize,
        );
        let start: usize = text.split_inclusive('\n').take(l).map(str::len).sum();
        start + ch
    };
    let (s, e) = (
        offset(&edit["range"]["start"]),
        offset(&edit["range"]["end"]),
    );
    format!(
        "{}{}{}",
        &text[..s],
        edit["newText"].as_str().unwrap(),
        &text[e..]
    )
}

#[test]
fn a_kernel_that_does_not_parse_and_a_spent_budget() {
    let dir = scratch("bad");
    std::fs::write(
        dir.join("broken.c"),
        "void f(int n, double A[10]) {\n#pragma scop\n  for (i = 0; i < n; i++\n    S: A[i] = 0;\n#pragma endscop\n}\n",
    )
    .unwrap();
    let bad = dir.join("broken.loopy");
    std::fs::write(&bad, "reverse(S, 1)\n").unwrap();
    let mut c = start(&["--budget", "2000"]);
    let u = uri(&bad);
    c.open(&u, "reverse(S, 1)\n");
    let d = c.diagnostics(&u, 1);
    assert_eq!(d.len(), 1, "one diagnostic: {d:?}");
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .contains("cannot be modelled"),
        "{d:?}"
    );

    // A real kernel whose check needs more than the budget: one diagnostic, and the server
    // still answers.
    let gemm = root().join("examples/gemm/gemm-fast.loopy");
    let text = std::fs::read_to_string(&gemm).unwrap();
    let g = uri(&gemm);
    c.open(&g, &text);
    let d = c.diagnostics(&g, 1);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0]["message"].as_str().unwrap().contains("budget"),
        "{d:?}"
    );
    let h = c.at("textDocument/hover", &u, 0, 1);
    assert!(h.get("error").is_none(), "{h}");

    // A script with no kernel to be found says how to name one.
    let lone = dir.join("lonely.loopy");
    let l = uri(&lone);
    c.open(&l, "tile(S, [4])\n");
    let d = c.diagnostics(&l, 1);
    assert_eq!(d.len(), 1);
    assert!(
        d[0]["message"].as_str().unwrap().contains("# kernel:"),
        "{d:?}"
    );
    c.shutdown();
}

#[test]
fn every_example_script_is_checked_as_check_does() {
    // A legal script of the examples, found through the manifest: no diagnostics; its tags
    // complete; hovering a step shows its schedules.
    let s = root().join("examples/matmul/matmul.loopy");
    let text = std::fs::read_to_string(&s).unwrap();
    let u = uri(&s);
    let mut c = start(&[]);
    c.open(&u, &text);
    assert!(c.diagnostics(&u, 1).is_empty());
    let first_step = text
        .lines()
        .position(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .unwrap();
    let h = c.at("textDocument/hover", &u, first_step as u32, 1);
    let v = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(v.contains("step 1"), "{v}");
    c.shutdown();
}
