//! Diagnostics as data: codes in every report, `loopy explain`, `--format json|sarif` of
//! `check` and `apply` (the SARIF validated against the official 2.1.0 schema), and source
//! scans that keep every error in `src/` a registered, coded diagnostic.

mod common;

use common::{loopy, scratch};
use loopy::diag::codes;
use serde_json::Value;
use std::path::Path;

const DIV: &str = "examples/div/div.c";
const DIV_REVERSE: &str = "examples/div/div_reverse.loopy";

fn schema_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json"),
    )
    .unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

/// Parses `text` as SARIF and checks it against the schema; returns the log.
fn valid_sarif(text: &str) -> Value {
    let log: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let v = schema_validator();
    let errors: Vec<String> = v
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "invalid SARIF:\n{}\n{text}",
        errors.join("\n")
    );
    log
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    // The test would be worthless if anything passed: a log without its required `runs`,
    // a result with an unknown level.
    let v = schema_validator();
    assert!(!v.is_valid(&serde_json::json!({"version": "2.1.0"})));
    let bad_level = serde_json::json!({
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "loopy"}},
                  "results": [{"message": {"text": "m"}, "level": "fatal"}]}]
    });
    assert!(!v.is_valid(&bad_level));
    let bad_region = serde_json::json!({
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "loopy"}},
                  "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation": {
                      "artifactLocation": {"uri": "a.c"}, "region": {"startLine": 0}}}]}]}]
    });
    assert!(!v.is_valid(&bad_region));
}

#[test]
fn an_illegal_script_as_sarif() {
    let (code, out, err) = loopy(&["check", DIV, DIV_REVERSE, "--format", "sarif"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.is_empty(), "nothing on stderr in SARIF: {err}");
    let log = valid_sarif(&out);
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "loopy");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), codes::ALL.len());
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{out}");
    let r = &results[0];
    assert_eq!(r["ruleId"], "L0401");
    assert_eq!(r["level"], "error");
    assert_eq!(
        rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "L0401"
    );
    assert!(r["message"]["text"]
        .as_str()
        .unwrap()
        .starts_with("illegal transformation: flow dependence on `A`"));
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], DIV);
    assert_eq!(loc["region"]["startLine"], 44);
    assert_eq!(loc["region"]["startColumn"], 6);
    // The sink and the script step are related locations; the step is in the script.
    let related = r["relatedLocations"].as_array().unwrap();
    assert!(related
        .iter()
        .any(
            |l| l["physicalLocation"]["artifactLocation"]["uri"] == DIV_REVERSE
                && l["physicalLocation"]["region"]["startLine"] == 3
        ));
    assert_eq!(run["invocations"][0]["exitCode"], 1);
}

#[test]
fn bad_input_as_sarif_and_json() {
    let dir = scratch("diagnostics-output", "bad-input");
    let script = dir.join("broken.loopy");
    std::fs::write(&script, "affine(Div, {[i] -> [-i]}\n").unwrap();
    let s = script.to_str().unwrap();
    let (code, out, err) = loopy(&["check", DIV, s, "--format", "sarif"]);
    assert_eq!(code, 2, "{err}");
    let log = valid_sarif(&out);
    let r = &log["runs"][0]["results"][0];
    assert_eq!(r["ruleId"], "L0201");
    let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        uri.starts_with("file:///") && uri.ends_with("broken.loopy"),
        "{uri}"
    );
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );

    let (code, out, _) = loopy(&["check", DIV, s, "--format", "json"]);
    assert_eq!(code, 2);
    let j = json(&out);
    assert_eq!(j["verdict"], "bad-input");
    assert_eq!(j["exit_code"], 2);
    let d = &j["diagnostics"][0];
    assert_eq!(d["code"], "L0201");
    assert_eq!(d["severity"], "error");
    let l = &d["labels"][0];
    assert_eq!(l["file"], s);
    let start = l["start"].as_u64().unwrap() as usize;
    assert!(start <= l["end"].as_u64().unwrap() as usize);
    let text = std::fs::read_to_string(&script).unwrap();
    assert_eq!(
        l["line"].as_u64().unwrap() as usize,
        text[..start].matches('\n').count() + 1
    );

    // A file that does not exist: a diagnostic without a location, still valid SARIF.
    let (code, out, _) = loopy(&["check", DIV, "no/such.loopy", "--format", "sarif"]);
    assert_eq!(code, 2);
    let log = valid_sarif(&out);
    assert_eq!(log["runs"][0]["results"][0]["ruleId"], "L0601");
    // A malformed `--set` points into the command line, which is no file.
    let (code, out, _) = loopy(&["check", DIV, DIV_REVERSE, "--set", "x", "--format", "sarif"]);
    assert_eq!(code, 2);
    let log = valid_sarif(&out);
    let r = &log["runs"][0]["results"][0];
    assert_eq!(r["ruleId"], "L0603");
    assert!(r.get("locations").is_none());
}

#[test]
fn a_pair_as_json() {
    let (code, out, err) = loopy(&["check", DIV, DIV_REVERSE, "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.is_empty(), "{err}");
    let j = json(&out);
    assert_eq!(j["tool"], "loopy");
    assert_eq!(j["command"], "check");
    assert_eq!(j["kernel"], DIV);
    assert_eq!(j["script"], DIV_REVERSE);
    assert_eq!(j["verdict"], "illegal");
    assert_eq!(j["violations"], 1);
    assert_eq!(j["dependences"], Value::Null);
    let d = &j["diagnostics"][0];
    assert_eq!(d["code"], "L0401");
    let l = &d["labels"][0];
    for k in [
        "file",
        "start",
        "end",
        "line",
        "column",
        "end_line",
        "end_column",
        "message",
    ] {
        assert!(l.get(k).is_some(), "label has no `{k}`: {l}");
    }
    assert_eq!(l["line"], 44);
    // Byte offsets point at the statement in the file.
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(DIV)).unwrap();
    let (a, b) = (
        l["start"].as_u64().unwrap() as usize,
        l["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(&text[a..b], "A[i] = A[i] / A[i-1];");
    assert!(!d["notes"].as_array().unwrap().is_empty());

    let (code, out, _) = loopy(&[
        "check",
        "examples/gemm/gemm.c",
        "examples/gemm/gemm.loopy",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let j = json(&out);
    assert_eq!(j["verdict"], "legal");
    assert!(j["dependences"].as_u64().unwrap() > 0);
    assert_eq!(j["diagnostics"], serde_json::json!([]));
}

#[test]
fn a_manifest_as_json_and_sarif() {
    let dir = scratch("diagnostics-output", "manifest");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let m = dir.join("loopy.toml");
    std::fs::write(
        &m,
        format!(
            "[[check]]\nkernel = \"{k}\"\nscript = \"{s}\"\nexpect = \"illegal\"\n\n\
             [[check]]\nkernel = \"{k}\"\nscript = \"{s}\"\n",
            k = root.join(DIV).display(),
            s = root.join(DIV_REVERSE).display()
        ),
    )
    .unwrap();
    let ms = m.to_str().unwrap();
    let (code, out, err) = loopy(&["check", "--manifest", ms, "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let j = json(&out);
    assert_eq!(j["verdict"], "failed");
    assert_eq!(
        (j["passed"].as_u64(), j["failed"].as_u64()),
        (Some(1), Some(1))
    );
    let e = j["entries"].as_array().unwrap();
    assert_eq!(e.len(), 2);
    assert_eq!(
        (&e[0]["expect"], &e[0]["verdict"], &e[0]["ok"]),
        (&"illegal".into(), &"illegal".into(), &true.into())
    );
    assert_eq!(
        (&e[1]["expect"], &e[1]["ok"]),
        (&"legal".into(), &false.into())
    );
    assert_eq!(e[1]["diagnostics"][0]["code"], "L0401");

    // SARIF holds what fails the run: the second entry only.
    let (code, out, _) = loopy(&["check", "--manifest", ms, "--format", "sarif"]);
    assert_eq!(code, 1);
    let log = valid_sarif(&out);
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 1);

    // A manifest that does not parse.
    std::fs::write(&m, "[[check]]\nkernel = 3\n").unwrap();
    let (code, out, _) = loopy(&["check", "--manifest", ms, "--format", "json"]);
    assert_eq!(code, 2);
    let j = json(&out);
    assert_eq!(j["verdict"], "bad-input");
    assert_eq!(j["diagnostics"][0]["code"], "L0604");
    let (code, out, _) = loopy(&["check", "--manifest", ms, "--format", "sarif"]);
    assert_eq!(code, 2);
    valid_sarif(&out);
}

#[test]
fn apply_as_json_and_sarif() {
    let dir = scratch("diagnostics-output", "apply");
    let o = dir.join("out.c");
    let os = o.to_str().unwrap();
    // The document takes stdout, so the file needs `-o`.
    let (code, out, _) = loopy(&["apply", DIV, DIV_REVERSE, "--format", "json"]);
    assert_eq!(code, 2);
    assert_eq!(json(&out)["diagnostics"][0]["code"], "L0603");
    let (code, out, err) = loopy(&["apply", DIV, DIV_REVERSE, "-o", os, "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let j = json(&out);
    assert_eq!(j["verdict"], "illegal");
    assert_eq!(j["output"], Value::Null);
    let codes: Vec<&str> = j["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["L0401", "L0406"]);
    assert!(!o.exists());
    let (code, out, _) = loopy(&["apply", DIV, DIV_REVERSE, "-o", os, "--format", "sarif"]);
    assert_eq!(code, 1);
    valid_sarif(&out);
    let (code, out, err) = loopy(&[
        "apply",
        "examples/gemm/gemm.c",
        "examples/gemm/gemm.loopy",
        "-o",
        os,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j = json(&out);
    assert_eq!(j["verdict"], "legal");
    assert_eq!(j["output"], os);
    assert!(o.exists());
}

#[test]
fn bench_diagnostics_as_json_and_sarif() {
    // Refused before anything is built: the usage error is the whole document.
    let (code, out, _) = loopy(&["bench", DIV, DIV_REVERSE, "--best", "--format", "sarif"]);
    assert_eq!(code, 2);
    let log = valid_sarif(&out);
    assert_eq!(log["runs"][0]["results"][0]["ruleId"], "L0603");
    // An illegal script is reported before compiling: its result carries the reports.
    let (code, out, err) = loopy(&["bench", DIV, DIV_REVERSE, "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let j = json(&out);
    let codes: Vec<&str> = j["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("{out}"))
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["L0401", "L0406"]);
    let (code, out, _) = loopy(&["bench", DIV, DIV_REVERSE, "--format", "sarif"]);
    assert_eq!(code, 1);
    let log = valid_sarif(&out);
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 2);
    // The text format is unchanged but for the codes.
    let (code, out, err) = loopy(&["bench", DIV, DIV_REVERSE]);
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    assert!(err.starts_with("Error[L0401]"), "{err}");
    assert!(
        err.ends_with(&format!(
            "error[L0406]: {DIV_REVERSE} is illegal for {DIV} (1 violation(s)); nothing was benchmarked\n"
        )),
        "{err}"
    );
}

#[test]
fn the_budget_report_follows_the_format() {
    let (code, out, err) = loopy(&[
        "--budget",
        "10",
        "check",
        DIV,
        DIV_REVERSE,
        "--format",
        "json",
    ]);
    assert_eq!(code, 2, "{err}");
    let j = json(&out);
    assert_eq!(j["diagnostics"][0]["code"], "L0901");
    let (code, _, err) = loopy(&["--budget", "10", "check", DIV, DIV_REVERSE]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error[L0901]: the integer core gave up"),
        "{err}"
    );
}

#[test]
fn text_reports_carry_the_code() {
    let (code, _, err) = loopy(&["check", DIV, DIV_REVERSE]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("Error[L0401]: illegal transformation:"),
        "{err}"
    );
    let (code, _, err) = loopy(&["check", DIV, "no/such.loopy"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error[L0601]: cannot read `no/such.loopy`"),
        "{err}"
    );
}

#[test]
fn explain() {
    let (code, out, _) = loopy(&["explain", "L0401"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("L0401 (dependence-not-preserved): "),
        "{out}"
    );
    assert!(out.contains(codes::DEPENDENCE_VIOLATED.explanation()));
    let (code, out, _) = loopy(&["explain", "l0402"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("L0402"));
    let (code, out, err) = loopy(&["explain", "L0499"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.starts_with("error[L0608]: no diagnostic code `L0499`"),
        "{err}"
    );
    let (code, _, err) = loopy(&["explain", "E0308"]);
    assert_eq!(code, 2);
    assert!(err.contains("`L` and four digits"), "{err}");
    let (code, out, _) = loopy(&["explain"]);
    assert_eq!(code, 0);
    for c in codes::ALL {
        assert!(
            out.contains(&format!("{}  ", c.id())) && out.contains(c.title()),
            "{} is not listed",
            c.id()
        );
    }
}

/// The `.rs` files under `dir`, with their text.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
}

#[test]
fn no_ad_hoc_error_lines_in_the_sources() {
    let mut files = vec![];
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() > 50);
    for (name, text) in &files {
        // `eprintln!(` (or `eprint!(`), white space, then a literal starting `error` or
        // `warning`: an uncoded report.
        for (at, _) in text.match_indices("eprint") {
            let rest = &text[at..];
            let Some(open) = rest.find('(') else { continue };
            if !matches!(&rest[..open], "eprintln!" | "eprint!") {
                continue;
            }
            let arg = rest[open + 1..].trim_start();
            assert!(
                !(arg.starts_with("\"error") || arg.starts_with("\"warning")),
                "{name}: an error printed without a code: {}",
                &rest[..rest.find(';').unwrap_or(rest.len()).min(120)]
            );
        }
    }
}

#[test]
fn every_code_used_is_registered() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    sources(&root.join("src"), &mut files);
    let constants: Vec<&str> = codes::ALL.iter().map(|c| c.info().constant).collect();
    let mut used = std::collections::BTreeSet::new();
    for (name, text) in &files {
        // `codes::NAME`
        for (at, _) in text.match_indices("codes::") {
            let ident: String = text[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if ident.len() > 1 && ident != "ALL" {
                assert!(
                    constants.contains(&ident.as_str()),
                    "{name}: `codes::{ident}` is not registered"
                );
                used.insert(ident);
            }
        }
    }
    // Ids written out in the sources and the docs (`error[L0401]`, `loopy explain L0401`).
    let mut texts = files;
    for d in ["docs", "."] {
        for e in std::fs::read_dir(root.join(d)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                texts.push((
                    p.display().to_string(),
                    std::fs::read_to_string(&p).unwrap(),
                ));
            }
        }
    }
    let mut ids_seen = 0;
    for (name, text) in &texts {
        // Unit tests ask for unknown codes on purpose.
        let text = &text[..text.find("#[cfg(test)]").unwrap_or(text.len())];
        let b = text.as_bytes();
        for i in 0..b.len().saturating_sub(5) {
            let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
            if boundary
                && b[i] == b'L'
                && b[i + 1..i + 5].iter().all(u8::is_ascii_digit)
                && b.get(i + 5).is_none_or(|c| !c.is_ascii_alphanumeric())
            {
                let id = &text[i..i + 5];
                assert!(
                    codes::lookup(id).is_some(),
                    "{name}: `{id}` is not a registered code"
                );
                ids_seen += 1;
            }
        }
    }
    assert!(ids_seen > 20, "the scan found no ids: {ids_seen}");
    // Every registered code is made by some diagnostic of the sources.
    for c in codes::ALL {
        assert!(
            used.contains(c.info().constant),
            "{} ({}) is never used",
            c.id(),
            c.info().constant
        );
    }
}
