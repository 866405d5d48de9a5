//! Diagnostics as machine-readable data: the JSON of `--format json` and the SARIF 2.1.0 log
//! of `--format sarif` (docs/ci.md, "Machine-readable output").
//!
//! Positions: `start`/`end` are byte offsets into the file (end exclusive); lines and
//! columns are 1-based, columns counted in Unicode code points, and the end position is the
//! one just after the span (as SARIF's `endColumn`).

use super::codes::{self, Code, Severity};
use super::{Diagnostic, Report, SpanLabel};
use serde::Serialize;

/// One diagnostic in `--format json`.
#[derive(Clone, Debug, Serialize)]
pub struct JsonDiagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub labels: Vec<JsonLabel>,
    pub notes: Vec<String>,
    pub help: Option<String>,
}

/// A labelled span of a [`JsonDiagnostic`]; the first is the primary location. The line
/// and column fields are null when the file's text is not at hand.
#[derive(Clone, Debug, Serialize)]
pub struct JsonLabel {
    pub file: String,
    pub start: usize,
    pub end: usize,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub end_line: Option<usize>,
    pub end_column: Option<usize>,
    pub message: String,
}

impl JsonDiagnostic {
    pub fn new(d: &Diagnostic, sources: &[(String, String)]) -> JsonDiagnostic {
        JsonDiagnostic {
            code: d.code.id(),
            severity: d.severity,
            message: d.message.clone(),
            labels: d.labels.iter().map(|l| label(l, sources)).collect(),
            notes: d.notes.clone(),
            help: d.help.as_deref().map(str::to_string),
        }
    }

    pub fn of_report(r: &Report) -> JsonDiagnostic {
        JsonDiagnostic::new(&r.diagnostic, &r.sources)
    }
}

fn label(l: &SpanLabel, sources: &[(String, String)]) -> JsonLabel {
    let text = sources
        .iter()
        .find(|(n, _)| *n == l.source)
        .map(|(_, t)| t.as_str());
    let (start, end) = match text {
        Some(t) => clamp(t, l.range.start, l.range.end),
        None => (l.range.start, l.range.end.max(l.range.start)),
    };
    let (line, column, end_line, end_column) = match text {
        Some(t) => {
            let (a, b) = line_column(t, start);
            let (c, d) = line_column(t, end);
            (Some(a), Some(b), Some(c), Some(d))
        }
        None => (None, None, None, None),
    };
    JsonLabel {
        file: l.source.clone(),
        start,
        end,
        line,
        column,
        end_line,
        end_column,
        message: l.label.clone(),
    }
}

/// The byte range inside the text and on character boundaries.
fn clamp(text: &str, start: usize, end: usize) -> (usize, usize) {
    let mut s = start.min(text.len());
    while !text.is_char_boundary(s) {
        s -= 1;
    }
    let mut e = end.clamp(s, text.len());
    while !text.is_char_boundary(e) {
        e += 1;
    }
    (s, e)
}

/// 1-based line and column (in code points) of byte offset `at`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

// ---------------------------------------------------------------------------------------
// SARIF 2.1.0

/// The schema the log names (the OASIS standard's JSON schema).
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

#[derive(Serialize)]
pub struct SarifLog {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<SarifRun>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRun {
    tool: SarifTool,
    invocations: Vec<SarifInvocation>,
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct SarifTool {
    driver: SarifDriver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifDriver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    rules: Vec<SarifRule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRule {
    id: &'static str,
    name: &'static str,
    short_description: SarifText,
    full_description: SarifText,
    help: SarifHelp,
    default_configuration: SarifConfiguration,
}

#[derive(Serialize)]
struct SarifText {
    text: String,
}

#[derive(Serialize)]
struct SarifHelp {
    text: &'static str,
    markdown: &'static str,
}

#[derive(Serialize)]
struct SarifConfiguration {
    level: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifInvocation {
    execution_successful: bool,
    exit_code: i32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: SarifText,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<SarifLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<SarifLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: SarifPhysical,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<SarifText>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifPhysical {
    artifact_location: SarifArtifact,
    region: SarifRegion,
}

#[derive(Serialize)]
struct SarifArtifact {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    #[serde(skip_serializing_if = "Option::is_none")]
    start_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<usize>,
    byte_offset: usize,
    byte_length: usize,
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn rule_index(code: Code) -> usize {
    codes::ALL
        .iter()
        .position(|c| *c == code)
        .expect("every code is registered")
}

/// A label's file as a SARIF URI: a relative reference for a relative path (percent-encoded),
/// a `file://` URI for an absolute one; `None` for a text that is not a file (the command
/// line, tuning arguments: names in angle brackets).
fn artifact_uri(file: &str) -> Option<String> {
    if file.is_empty() || (file.starts_with('<') && file.ends_with('>')) {
        return None;
    }
    let mut out = String::new();
    for b in file.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    Some(if file.starts_with('/') {
        format!("file://{out}")
    } else {
        out.trim_start_matches("./").to_string()
    })
}

fn location(l: &JsonLabel, id: Option<usize>) -> Option<SarifLocation> {
    Some(SarifLocation {
        id,
        physical_location: SarifPhysical {
            artifact_location: SarifArtifact {
                uri: artifact_uri(&l.file)?,
            },
            region: SarifRegion {
                start_line: l.line,
                start_column: l.column,
                end_line: l.end_line,
                end_column: l.end_column,
                byte_offset: l.start,
                byte_length: l.end - l.start,
            },
        },
        message: (!l.label_is_empty()).then(|| SarifText {
            text: l.message.clone(),
        }),
    })
}

impl JsonLabel {
    fn label_is_empty(&self) -> bool {
        self.message.trim().is_empty()
    }
}

/// The SARIF log of one run of loopy whose diagnostics are `diags`, which exited with
/// `exit_code`. The rules are every registered code.
pub fn sarif(diags: &[JsonDiagnostic], exit_code: u8) -> SarifLog {
    let rules = codes::ALL
        .iter()
        .map(|c| SarifRule {
            id: c.id(),
            name: c.name(),
            short_description: SarifText {
                text: c.title().to_string(),
            },
            full_description: SarifText {
                text: c.explanation().to_string(),
            },
            help: SarifHelp {
                text: c.explanation(),
                markdown: c.explanation(),
            },
            default_configuration: SarifConfiguration {
                level: level(c.severity()),
            },
        })
        .collect();
    let results = diags
        .iter()
        .map(|d| {
            let code = codes::lookup(d.code).expect("a diagnostic's code is registered");
            let mut text = d.message.clone();
            for n in &d.notes {
                text.push_str(&format!("\nnote: {n}"));
            }
            if let Some(h) = &d.help {
                text.push_str(&format!("\nhelp: {h}"));
            }
            // The primary location is the first label in a file; the others are related.
            let mut in_files = d.labels.iter().filter(|l| artifact_uri(&l.file).is_some());
            let locations: Vec<SarifLocation> = in_files
                .next()
                .and_then(|l| location(l, None))
                .into_iter()
                .collect();
            let related_locations = in_files
                .enumerate()
                .filter_map(|(i, l)| location(l, Some(i + 1)))
                .collect();
            SarifResult {
                rule_id: code.id(),
                rule_index: rule_index(code),
                level: level(d.severity),
                message: SarifText { text },
                locations,
                related_locations,
            }
        })
        .collect();
    SarifLog {
        schema: SARIF_SCHEMA,
        version: "2.1.0",
        runs: vec![SarifRun {
            tool: SarifTool {
                driver: SarifDriver {
                    name: "loopy",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            invocations: vec![SarifInvocation {
                execution_successful: exit_code < 2,
                exit_code: i32::from(exit_code),
            }],
            column_kind: "unicodeCodePoints",
            results,
        }],
    }
}

/// Pretty JSON of a serializable value (the documents of `--format json|sarif`).
pub fn to_pretty<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("serializing diagnostics to memory cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_code_points() {
        let text = "ab\né = x;\n".to_string();
        let d = Diagnostic::new(codes::SCRIPT_SYNTAX, "m").with_label("f.loopy", 5..8, "here");
        let j = JsonDiagnostic::new(&d, &[("f.loopy".into(), text.clone())]);
        let l = &j.labels[0];
        assert_eq!((l.start, l.end), (5, 8));
        assert_eq!((l.line, l.column), (Some(2), Some(2)));
        assert_eq!((l.end_line, l.end_column), (Some(2), Some(5)));
        assert_eq!(j.code, "L0201");
        // A start inside `é` moves to its first byte.
        let inside = Diagnostic::new(codes::SCRIPT_SYNTAX, "m").with_label("f.loopy", 4..8, "");
        let j2 = JsonDiagnostic::new(&inside, &[("f.loopy".into(), text.clone())]);
        assert_eq!((j2.labels[0].start, j2.labels[0].column), (3, Some(1)));
        let unknown = JsonDiagnostic::new(&d, &[]);
        assert_eq!(unknown.labels[0].line, None);
    }

    #[test]
    fn uris_are_relative_references() {
        assert_eq!(
            artifact_uri("examples/div/div.c").as_deref(),
            Some("examples/div/div.c")
        );
        assert_eq!(artifact_uri("./a b.c").as_deref(), Some("a%20b.c"));
        assert_eq!(artifact_uri("/tmp/x.c").as_deref(), Some("file:///tmp/x.c"));
        assert_eq!(artifact_uri("<command line>"), None);
    }

    #[test]
    fn sarif_results_point_at_rules() {
        let d = Diagnostic::new(codes::DEPENDENCE_VIOLATED, "illegal")
            .with_label("s.loopy", 0..1, "moved here")
            .with_label("k.c", 2..3, "source")
            .with_note("n");
        let j = JsonDiagnostic::new(&d, &[("s.loopy".into(), "x\n".into())]);
        let log = serde_json::to_value(sarif(&[j], 1)).unwrap();
        let r = &log["runs"][0]["results"][0];
        assert_eq!(r["ruleId"], "L0401");
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][i]["id"], "L0401");
        assert_eq!(r["message"]["text"], "illegal\nnote: n");
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "s.loopy");
        assert_eq!(loc["region"]["startLine"], 1);
        assert_eq!(loc["region"]["endColumn"], 2);
        let rel = &r["relatedLocations"][0]["physicalLocation"];
        assert_eq!(rel["artifactLocation"]["uri"], "k.c");
        assert!(rel["region"].get("startLine").is_none());
        assert_eq!(rel["region"]["byteOffset"], 2);
    }
}
