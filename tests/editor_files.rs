//! The editor client kept in the repository (grammar/editors/vscode): its files are valid,
//! point at each other, and its grammar knows every operation and keyword of the language.

use loopy::script::interp::{BUILTINS, LOOP_OPS};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("grammar/editors/vscode")
}

fn json(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn the_extension_names_files_that_exist() {
    let p = json("package.json");
    let lang = &p["contributes"]["languages"][0];
    assert_eq!(lang["id"], "loopy");
    assert_eq!(lang["extensions"][0], ".loopy");
    let config = lang["configuration"].as_str().unwrap();
    json(config);
    let g = &p["contributes"]["grammars"][0];
    assert_eq!(g["language"], "loopy");
    let grammar = json(g["path"].as_str().unwrap());
    assert_eq!(grammar["scopeName"], g["scopeName"]);
    assert!(dir().join(p["main"].as_str().unwrap()).is_file());
    let ext = std::fs::read_to_string(dir().join("extension.js")).unwrap();
    assert!(
        ext.contains("\"lsp\", \"--stdio\""),
        "the extension starts `loopy lsp`"
    );
}

/// Every string value anywhere in a JSON value.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

#[test]
fn the_grammar_knows_every_operation_and_keyword() {
    let g = json("syntaxes/loopy.tmLanguage.json");
    let builtin = g["repository"]["statement"]["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "support.function.builtin.loopy")
        .expect("a pattern for the built-in operations");
    let re = builtin["match"].as_str().unwrap();
    let inner = &re[re.find('(').unwrap() + 1..re.find(")\\b").unwrap()];
    let mut listed: Vec<&str> = inner.split('|').collect();
    let mut ops: Vec<&str> = BUILTINS.iter().chain(LOOP_OPS.iter()).copied().collect();
    listed.sort_unstable();
    ops.sort_unstable();
    assert_eq!(
        listed, ops,
        "the grammar's operations are the interpreter's"
    );
    let mut all = vec![];
    strings(&g, &mut all);
    let text = all.join("\n");
    // The keywords of grammar/loopy.pest.
    for kw in ["def", "import", "param", "return", "model", "in", "step"] {
        assert!(
            text.contains(&format!("({kw})"))
                || text.contains(&format!("|{kw}|"))
                || text.contains(&format!("({kw}|"))
                || text.contains(&format!("|{kw})"))
                || text.contains(&format!("\\b{kw}\\b")),
            "the grammar colours `{kw}`"
        );
    }
}
