//! Manifests (`loopy.toml`): the list of (kernel, script) pairs that `loopy check
//! --manifest` verifies and `loopy bench --manifest` times (docs/ci.md, docs/bench.md).
//! Every key of every command is validated here, so a typo fails all of them.

use crate::diag::Report as Failure;
use crate::frontend::Options;
use std::path::{Path, PathBuf};

/// The keys of a `[[check]]` entry that `loopy check` reads.
pub const CHECK_KEYS: &[&str] = &[
    "kernel", "script", "include", "define", "function", "scop", "expect",
];

/// One entry of a manifest.
pub struct Entry {
    pub kernel: PathBuf,
    pub script: PathBuf,
    pub opts: Options,
    pub expect_legal: bool,
    /// The keys `loopy bench` reads (validated here too, so a typo fails both commands).
    pub bench: BenchKeys,
}

fn manifest_error(
    path: &str,
    text: &str,
    span: Option<std::ops::Range<usize>>,
    msg: String,
) -> Failure {
    let mut d = crate::diag::Diagnostic::new(msg.clone());
    if let Some(s) = span {
        d = d.with_label(path, s, msg);
    }
    Failure {
        diagnostic: d,
        sources: vec![(path.to_string(), text.to_string())],
    }
}

pub fn parse(path: &Path) -> Result<Vec<Entry>, Failure> {
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
        let string = |k: &str| -> Result<Option<String>, Failure> {
            match t.get(k) {
                None => Ok(None),
                Some(toml::Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad(format!("check #{}: `{k}` must be a string", i + 1))),
            }
        };
        let list = |k: &str| -> Result<Vec<String>, Failure> {
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
        out.push(Entry {
            kernel: dir.join(kernel),
            script: dir.join(script),
            opts: Options {
                includes: list("include")?.into_iter().map(|p| dir.join(p)).collect(),
                defines: list("define")?,
                function: string("function")?,
                scop,
            },
            expect_legal,
            bench: parse_bench_keys(t, i + 1, dir, &bad)?,
        });
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
}

/// Reads the bench keys of entry `i` (1-based in messages).
fn parse_bench_keys(
    t: &toml::Table,
    i: usize,
    dir: &Path,
    bad: &dyn Fn(String) -> Failure,
) -> Result<BenchKeys, Failure> {
    let list = |k: &str, v: &toml::Value| -> Result<Vec<String>, Failure> {
        let err = || bad(format!("check #{i}: `{k}` must be a list of strings"));
        v.as_array()
            .ok_or_else(err)?
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(err))
            .collect()
    };
    let get_list = |k: &str| t.get(k).map_or(Ok(vec![]), |v| list(k, v));
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
    let sizes = match t.get("sizes") {
        None => vec![],
        Some(toml::Value::Table(s)) => s
            .iter()
            .map(|(k, v)| Ok((k.clone(), list(&format!("sizes.{k}"), v)?)))
            .collect::<Result<_, Failure>>()?,
        Some(_) => {
            return Err(bad(format!(
                "check #{i}: `sizes` must be a table of lists of macros, e.g. \
                 `sizes = {{ large = [\"N=1000\"] }}`"
            )))
        }
    };
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
    })
}
