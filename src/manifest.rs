//! Manifests (`loopy.toml`): the list of (kernel, script) pairs that `loopy check
//! --manifest` verifies and `loopy bench --manifest` times (docs/ci.md, docs/bench.md).
//! Every key of every command is validated here, so a typo fails all of them.

use crate::diag::codes;
use crate::diag::{Diagnostic, Report};
use crate::frontend::Options;
use crate::script::params::{Setting, Settings};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub mod flops;

/// The keys of a `[[check]]` entry that `loopy check` reads.
pub const CHECK_KEYS: &[&str] = &[
    "kernel",
    "script",
    "include",
    "define",
    "function",
    "scop",
    "expect",
    "set",
    "assume-no-overlap",
    "prove",
];

/// One entry of a manifest.
pub struct Entry {
    pub kernel: PathBuf,
    pub script: PathBuf,
    pub opts: Options,
    /// `set = { MC = 96 }`: values for the script's parameters (as `--set MC=96`).
    pub settings: Settings,
    pub expect_legal: bool,
    /// `prove = true`: `check --manifest` also proves the generated code equivalent to the
    /// kernel (`loopy equiv`).
    pub prove: bool,
    /// The keys `loopy bench` reads (validated here too, so a typo fails both commands).
    pub bench: BenchKeys,
}

fn manifest_error(
    path: &str,
    text: &str,
    span: Option<std::ops::Range<usize>>,
    msg: String,
) -> Report {
    let mut d = crate::diag::Diagnostic::new(crate::diag::codes::MANIFEST, msg.clone());
    if let Some(s) = span {
        d = d.with_label(path, s, msg);
    }
    Report {
        diagnostic: d,
        sources: vec![(path.to_string(), text.to_string())],
    }
}

pub fn parse(path: &Path) -> Result<Vec<Entry>, Report> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| manifest_error(&name, "", None, format!("cannot read `{name}`: {e}")))?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        manifest_error(&name, &text, e.span(), e.message().to_string())
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let bad = |msg: String| manifest_error(&name, &text, None, msg);
    let checks = match table.get("check") {
        Some(toml::Value::Array(a)) => a,
        _ => return Err(bad("the manifest has no `[[check]]` entries".to_string())),
    };
    let spanned = Spanned {
        name: name.clone(),
        text: Arc::from(text.as_str()),
        doc: toml_edit::ImDocument::parse(text.clone()).ok(),
    };
    let mut out = vec![];
    for (i, c) in checks.iter().enumerate() {
        let t = c
            .as_table()
            .ok_or_else(|| bad(format!("check #{}: expected a table", i + 1)))?;
        for key in t.keys() {
            if !CHECK_KEYS.contains(&key.as_str()) && !BENCH_KEYS.contains(&key.as_str()) {
                return Err(bad(format!("check #{}: unknown key `{key}`", i + 1)));
            }
        }
        let string = |k: &str| -> Result<Option<String>, Report> {
            match t.get(k) {
                None => Ok(None),
                Some(toml::Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad(format!("check #{}: `{k}` must be a string", i + 1))),
            }
        };
        let list = |k: &str| -> Result<Vec<String>, Report> {
            match t.get(k) {
                None => Ok(vec![]),
                Some(toml::Value::Array(a)) => a
                    .iter()
                    .map(|v| {
                        v.as_str().map(str::to_string).ok_or_else(|| {
                            bad(format!("check #{}: `{k}` must be a list of strings", i + 1))
                        })
                    })
                    .collect(),
                Some(_) => Err(bad(format!(
                    "check #{}: `{k}` must be a list of strings",
                    i + 1
                ))),
            }
        };
        let kernel = string("kernel")?
            .ok_or_else(|| bad(format!("check #{}: `kernel` is missing", i + 1)))?;
        let script = string("script")?
            .ok_or_else(|| bad(format!("check #{}: `script` is missing", i + 1)))?;
        let expect_legal = match string("expect")?.as_deref() {
            None | Some("legal") => true,
            Some("illegal") => false,
            Some(x) => {
                return Err(bad(format!(
                    "check #{}: `expect` is \"legal\" or \"illegal\", not \"{x}\"",
                    i + 1
                )))
            }
        };
        let scop = match t.get("scop") {
            None => None,
            Some(toml::Value::Integer(n)) if *n >= 0 => Some(*n as usize),
            Some(_) => {
                return Err(bad(format!(
                    "check #{}: `scop` must be a non-negative integer",
                    i + 1
                )))
            }
        };
        let settings = parse_settings(t, i, &spanned)?;
        let assume_no_overlap = match t.get("assume-no-overlap") {
            None => false,
            Some(toml::Value::Boolean(b)) => *b,
            Some(_) => {
                return Err(bad(format!(
                    "check #{}: `assume-no-overlap` must be true or false",
                    i + 1
                )))
            }
        };
        let prove = match t.get("prove") {
            None => false,
            Some(toml::Value::Boolean(b)) => *b,
            Some(_) => {
                return Err(bad(format!(
                    "check #{}: `prove` must be true or false",
                    i + 1
                )))
            }
        };
        out.push(Entry {
            kernel: dir.join(kernel),
            script: dir.join(script),
            opts: Options {
                includes: list("include")?.into_iter().map(|p| dir.join(p)).collect(),
                defines: list("define")?,
                function: string("function")?,
                scop,
                assume_no_overlap,
                read_generated: false,
                version: Default::default(),
            },
            settings,
            expect_legal,
            prove,
            bench: parse_bench_keys(t, i + 1, dir, &bad, &spanned)?,
        });
    }
    Ok(out)
}

/// `set = { MC = 96, KC = 256 }` of entry `i` (0-based): integer values for the script's
/// parameters, each pointing at its place in the manifest.
fn parse_settings(t: &toml::Table, i: usize, spanned: &Spanned) -> Result<Settings, Report> {
    let mut out = Settings {
        items: vec![],
        sources: vec![(spanned.name.clone(), spanned.text.to_string())],
        model: None,
    };
    let Some(v) = t.get("set") else {
        return Ok(Settings::default());
    };
    let Some(table) = v.as_table() else {
        return Err(spanned.error(
            i,
            "set",
            format!(
                "check #{}: `set` must be a table of integers, like `set = {{ MC = 96 }}`",
                i + 1
            ),
        ));
    };
    let whole = spanned.span(i, "set");
    for (name, value) in table {
        let at = spanned.span_in(i, "set", name).or_else(|| whole.clone());
        let bad = |msg: String| manifest_error(&spanned.name, &spanned.text, at.clone(), msg);
        if !crate::script::params::is_identifier(name) {
            return Err(bad(format!(
                "check #{}: `{name}` is not a parameter name",
                i + 1
            )));
        }
        let Some(n) = value.as_integer() else {
            return Err(bad(format!(
                "check #{}: the value of `{name}` must be an integer",
                i + 1
            )));
        };
        out.push(Setting {
            name: name.clone(),
            value: crate::presburger::Int::from(n),
            source: spanned.name.clone(),
            span: at.clone().unwrap_or(0..0),
        })
        .map_err(|d| Report {
            diagnostic: d,
            sources: out.sources.clone(),
        })?;
    }
    Ok(out)
}

/// The keys `loopy bench` reads beside `loopy check`'s (docs/bench.md).
pub const BENCH_KEYS: &[&str] = &[
    "name",
    "bench",
    "sizes",
    "cflags",
    "ldflags",
    "sources",
    "check-define",
    "check-cflags",
    "time-from-stdout",
    "flops",
    "reference",
];

/// The keys of an entry's `reference` table.
pub const REFERENCE_KEYS: &[&str] = &[
    "name",
    "source",
    "cflags",
    "ldflags",
    "headers",
    "install",
    "tolerance",
    "compare",
];

/// The bench part of a manifest entry.
#[derive(Clone, Debug, Default)]
pub struct BenchKeys {
    pub name: Option<String>,
    pub enabled: bool,
    /// Size name to its macros, in manifest order.
    pub sizes: Vec<(String, Vec<String>)>,
    pub cflags: Vec<String>,
    pub ldflags: Vec<String>,
    /// Paths relative to the manifest, resolved.
    pub sources: Vec<PathBuf>,
    pub check_defines: Vec<String>,
    pub check_cflags: Vec<String>,
    pub time_from_stdout: bool,
    /// `flops = "2*NI*NJ*NK"`, parsed.
    pub flops: Option<FlopsSpec>,
    pub reference: Option<Reference>,
}

/// The manifest's text with the positions of its values, for diagnostics that point at a
/// value (`flops`).
struct Spanned {
    name: String,
    text: Arc<str>,
    doc: Option<toml_edit::ImDocument<String>>,
}

impl Spanned {
    /// The byte range of `check[i].key` (0-based entry) in the text.
    fn span(&self, i: usize, key: &str) -> Option<std::ops::Range<usize>> {
        let doc = self.doc.as_ref()?;
        match doc.get("check")? {
            toml_edit::Item::ArrayOfTables(a) => a.get(i)?.get(key)?.span(),
            toml_edit::Item::Value(toml_edit::Value::Array(a)) => {
                a.get(i)?.as_inline_table()?.get(key)?.span()
            }
            _ => None,
        }
    }

    /// The byte range of `check[i].key.sub` (`set.MC`): the key and its value.
    fn span_in(&self, i: usize, key: &str, sub: &str) -> Option<std::ops::Range<usize>> {
        let doc = self.doc.as_ref()?;
        use toml_edit::{Item, Value};
        let inline = |v: &Value| -> Option<std::ops::Range<usize>> {
            let (k, v) = v.as_inline_table()?.get_key_value(sub)?;
            Some(k.span()?.start..v.span()?.end)
        };
        match doc.get("check")? {
            Item::ArrayOfTables(a) => match a.get(i)?.get(key)? {
                Item::Table(t) => {
                    let (k, v) = t.get_key_value(sub)?;
                    Some(k.span()?.start..v.span()?.end)
                }
                Item::Value(v) => inline(v),
                _ => None,
            },
            Item::Value(Value::Array(a)) => inline(a.get(i)?.as_inline_table()?.get(key)?),
            _ => None,
        }
    }

    /// A report on `check[i].key` (`i` 0-based), pointing at its value when found.
    fn error(&self, i: usize, key: &str, msg: String) -> Report {
        manifest_error(&self.name, &self.text, self.span(i, key), msg)
    }
}

/// Reads the bench keys of entry `i` (1-based in messages).
fn parse_bench_keys(
    t: &toml::Table,
    i: usize,
    dir: &Path,
    bad: &dyn Fn(String) -> Report,
    spanned: &Spanned,
) -> Result<BenchKeys, Report> {
    let get_list = |k: &str| t.get(k).map_or(Ok(vec![]), |v| string_list(k, v, i, bad));
    let get_bool = |k: &str, default: bool| match t.get(k) {
        None => Ok(default),
        Some(toml::Value::Boolean(b)) => Ok(*b),
        Some(_) => Err(bad(format!("check #{i}: `{k}` must be true or false"))),
    };
    let name = match t.get("name") {
        None => None,
        Some(toml::Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(bad(format!("check #{i}: `name` must be a string"))),
    };
    let sizes = parse_sizes(t, i, bad)?;
    Ok(BenchKeys {
        name,
        enabled: get_bool("bench", true)?,
        sizes,
        cflags: get_list("cflags")?,
        ldflags: get_list("ldflags")?,
        sources: get_list("sources")?
            .into_iter()
            .map(|p| dir.join(p))
            .collect(),
        check_defines: get_list("check-define")?,
        check_cflags: get_list("check-cflags")?,
        time_from_stdout: get_bool("time-from-stdout", false)?,
        flops: parse_flops(t, i, spanned)?,
        reference: parse_reference(t, i, dir, spanned)?,
    })
}

/// The value of key `k` of entry `i` (1-based in messages) as a list of strings.
fn string_list(
    k: &str,
    v: &toml::Value,
    i: usize,
    bad: &dyn Fn(String) -> Report,
) -> Result<Vec<String>, Report> {
    let err = || bad(format!("check #{i}: `{k}` must be a list of strings"));
    v.as_array()
        .ok_or_else(err)?
        .iter()
        .map(|x| x.as_str().map(str::to_string).ok_or_else(err))
        .collect()
}

/// `sizes = { large = ["N=1000"], ... }` of entry `i` (1-based in messages): each size's
/// macros.
fn parse_sizes(
    t: &toml::Table,
    i: usize,
    bad: &dyn Fn(String) -> Report,
) -> Result<Vec<(String, Vec<String>)>, Report> {
    const EXAMPLE: &str = r#"`sizes = { large = ["N=1000"] }`"#;
    match t.get("sizes") {
        None => Ok(vec![]),
        Some(toml::Value::Table(s)) => s
            .iter()
            .map(|(k, v)| Ok((k.clone(), string_list(&format!("sizes.{k}"), v, i, bad)?)))
            .collect(),
        Some(_) => Err(bad(format!(
            "check #{i}: `sizes` must be a table of lists of macros, e.g. {EXAMPLE}"
        ))),
    }
}

/// `flops = "EXPR"`: parsed now (a syntax error fails `check` too), evaluated per size by
/// `loopy bench`.
fn parse_flops(t: &toml::Table, i: usize, spanned: &Spanned) -> Result<Option<FlopsSpec>, Report> {
    let text = match t.get("flops") {
        None => return Ok(None),
        Some(toml::Value::String(s)) => s.clone(),
        Some(_) => {
            return Err(spanned.error(
                i - 1,
                "flops",
                format!(
                    "check #{i}: `flops` must be a string: an expression in the size macros, \
                     e.g. `flops = \"2*NI*NJ*NK\"`"
                ),
            ))
        }
    };
    // The expression's offset: just inside the quotes when the value is written verbatim.
    let span = spanned.span(i - 1, "flops");
    let at = match &span {
        Some(r) if spanned.text.get(r.start + 1..r.end - 1) == Some(text.as_str()) => {
            Ok(r.start + 1)
        }
        Some(r) => Err(r.clone()),
        None => Err(0..0),
    };
    let mut spec = FlopsSpec {
        text: text.clone(),
        expr: flops::FlopsExpr::Int(0.into()),
        source: (spanned.name.clone(), spanned.text.clone()),
        at,
    };
    spec.expr = flops::parse(&text).map_err(|e| spec.failure(&e))?;
    Ok(Some(spec))
}

/// `reference = { name = "OpenBLAS", source = "gemm/gemm-cblas.c", ... }`.
fn parse_reference(
    t: &toml::Table,
    i: usize,
    dir: &Path,
    spanned: &Spanned,
) -> Result<Option<Reference>, Report> {
    let bad = |msg: String| spanned.error(i - 1, "reference", format!("check #{i}: {msg}"));
    let r = match t.get("reference") {
        None => return Ok(None),
        Some(toml::Value::Table(r)) => r,
        Some(_) => {
            return Err(bad(format!(
                "`reference` must be a table, e.g. {}",
                r#"`reference = { name = "OpenBLAS", source = "gemm-cblas.c", ldflags = ["-lopenblas"] }`"#
            )))
        }
    };
    for key in r.keys() {
        if !REFERENCE_KEYS.contains(&key.as_str()) {
            return Err(bad(format!(
                "unknown key `reference.{key}` (known: {})",
                REFERENCE_KEYS.join(", ")
            )));
        }
    }
    let string = |k: &str| match r.get(k) {
        None => Ok(None),
        Some(toml::Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(format!("`reference.{k}` must be a string"))),
    };
    let list = |k: &str| -> Result<Vec<String>, Report> {
        let err = || bad(format!("`reference.{k}` must be a list of strings"));
        match r.get(k) {
            None => Ok(vec![]),
            Some(v) => v
                .as_array()
                .ok_or_else(err)?
                .iter()
                .map(|x| x.as_str().map(str::to_string).ok_or_else(err))
                .collect(),
        }
    };
    let source = string("source")?.ok_or_else(|| bad("`reference.source` is missing".into()))?;
    let tolerance = match r.get("tolerance") {
        None => None,
        Some(v) => match v.as_float().or_else(|| v.as_integer().map(|n| n as f64)) {
            Some(x) if x >= 0.0 && x.is_finite() => Some(x),
            _ => {
                return Err(bad(
                    "`reference.tolerance` must be a non-negative number".to_string()
                ))
            }
        },
    };
    let compare = match r.get("compare") {
        None => true,
        Some(toml::Value::Boolean(b)) => *b,
        Some(_) => return Err(bad("`reference.compare` must be true or false".to_string())),
    };
    if !compare && tolerance.is_some() {
        return Err(bad(
            "`reference.tolerance` has no use with `compare = false` (the output is not compared)"
                .to_string(),
        ));
    }
    Ok(Some(Reference {
        name: string("name")?.unwrap_or_else(|| "reference".to_string()),
        source: dir.join(source),
        cflags: list("cflags")?,
        ldflags: list("ldflags")?,
        headers: list("headers")?,
        install: string("install")?,
        tolerance,
        compare,
    }))
}

/// A reference implementation that `loopy bench` times beside the pair (the `reference` key): another
/// program computing the same thing, typically with a library (`cblas_dgemm`), built with
/// the job's compiler, flags, defines and extra sources plus its own flags.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// The column's name (`OpenBLAS`).
    pub name: String,
    pub source: PathBuf,
    pub cflags: Vec<String>,
    /// Before the job's link flags (`-lopenblas`).
    pub ldflags: Vec<String>,
    /// Headers that must be found for the reference to be built (`cblas.h`); with
    /// `ldflags`, what is probed before building it.
    pub headers: Vec<String>,
    /// How to install what it needs (shown when the probe fails).
    pub install: Option<String>,
    /// Compare its outputs with the original's within this relative tolerance; `None`:
    /// as the pair's are (byte for byte, or `--tolerance`).
    pub tolerance: Option<f64>,
    /// False (`compare = false`): its output is not compared with the original's (a
    /// library that computes the same thing in another form or rounding, such as LAPACK's
    /// factorisations); it is timed when its check run succeeds, which is where such a
    /// program checks its own result.
    pub compare: bool,
}

/// An expression for the number of floating-point operations of one run, and where it was
/// written (for diagnostics).
#[derive(Clone, Debug)]
pub struct FlopsSpec {
    pub text: String,
    pub expr: flops::FlopsExpr,
    /// The file (or `--flops`) it comes from and that file's text.
    pub source: (String, Arc<str>),
    /// Where the expression's text starts in the file, when it appears there verbatim;
    /// else the range to point at.
    pub at: Result<usize, std::ops::Range<usize>>,
}

impl FlopsSpec {
    /// `--flops EXPR`.
    pub fn from_option(text: &str) -> Result<FlopsSpec, Report> {
        let source = ("--flops".to_string(), Arc::<str>::from(text));
        let mut spec = FlopsSpec {
            text: text.to_string(),
            expr: flops::FlopsExpr::Int(0.into()),
            source,
            at: Ok(0),
        };
        spec.expr = flops::parse(text).map_err(|e| spec.failure(&e))?;
        Ok(spec)
    }

    /// A flops error as a report pointing into the expression.
    pub fn failure(&self, e: &flops::Error) -> Report {
        let range = match &self.at {
            Ok(o) => o + e.span.start..o + e.span.end,
            Err(r) => r.clone(),
        };
        let d = Diagnostic::new(
            codes::SET_SYNTAX,
            format!("the flop count `{}`: {}", self.text, e.message),
        )
        .with_label(&self.source.0, range, e.message.clone());
        Report {
            diagnostic: d,
            sources: vec![(self.source.0.clone(), self.source.1.to_string())],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a manifest into a fresh directory and parses it.
    fn parse_text(name: &str, text: &str) -> Result<Vec<Entry>, Report> {
        let dir =
            std::env::temp_dir().join(format!("loopy-manifest-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("loopy.toml");
        std::fs::write(&p, text).unwrap();
        let r = parse(&p);
        let _ = std::fs::remove_dir_all(&dir);
        r
    }

    /// The text a report's first label points at.
    fn labelled(f: &Report) -> String {
        let l = &f.diagnostic.labels[0];
        f.sources[0].1[l.range.clone()].to_string()
    }

    #[test]
    fn flops_and_references() {
        let text = "[[check]]\nkernel = \"k.c\"\nscript = \"k.loopy\"\nflops = \"2*N^3\"\n\
             reference = { name = \"BLAS\", source = \"r.c\", ldflags = [\"-lblas\"], tolerance = 1e-9 }\n";
        let e = parse_text("ok", text).unwrap();
        let b = &e[0].bench;
        let f = b.flops.as_ref().unwrap();
        let at = text.find("2*N^3").unwrap();
        assert_eq!((f.text.as_str(), f.at.clone()), ("2*N^3", Ok(at)));
        let r = b.reference.as_ref().unwrap();
        assert_eq!((r.name.as_str(), r.tolerance), ("BLAS", Some(1e-9)));
        assert!(r.compare);
        let text = "[[check]]\nkernel = \"k.c\"\nscript = \"k.loopy\"\n\
             reference = { name = \"LAPACK\", source = \"r.c\", compare = false }\n";
        let e = parse_text("ok", text).unwrap();
        assert!(!e[0].bench.reference.as_ref().unwrap().compare);
        assert!(r.source.ends_with("r.c"));
        assert_eq!(r.ldflags, vec!["-lblas"]);
    }

    #[test]
    fn errors_point_at_the_value() {
        // An array of tables, and the same as an inline array.
        for text in [
            "[[check]]\nkernel = \"k.c\"\nscript = \"k.loopy\"\n\n[[check]]\nkernel = \"k.c\"\nscript = \"k.loopy\"\nflops = \"2*(n\"\n",
            "check = [\n  { kernel = \"k.c\", script = \"k.loopy\" },\n  { kernel = \"k.c\", script = \"k.loopy\", flops = \"2*(n\" },\n]\n",
        ] {
            let f = parse_text("syntax", text).err().expect("a syntax error");
            assert!(f.diagnostic.message.contains("expected `)`"), "{f:?}");
            let l = &f.diagnostic.labels[0];
            let t = &f.sources[0].1;
            // Just after `2*(n`, inside the quotes.
            assert_eq!(&t[l.range.start - 4..l.range.start], "2*(n", "{text}");
        }
        let f = parse_text(
            "type",
            "[[check]]\nkernel = \"k.c\"\nscript = \"k.loopy\"\nreference = { source = 3 }\n",
        )
        .err()
        .unwrap();
        assert_eq!(labelled(&f), "{ source = 3 }");
        // An escaped string: the label is the whole value.
        let f = parse_text(
            "escaped",
            "[[check]]\nkernel = \"k.c\"\nscript = \"k.loopy\"\nflops = \"2*\\u006E *\"\n",
        )
        .err()
        .unwrap();
        assert_eq!(labelled(&f), "\"2*\\u006E *\"");
    }
}
