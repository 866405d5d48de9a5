//! Values given to a script's parameters from outside the script: `--set NAME=VALUE` on the
//! command line, or a manifest entry's `set = { NAME = VALUE }`. Each value remembers where
//! it was written, so that a diagnostic can point at it: the command line is rendered as a
//! source of its own (`--set MC=96 --set KC=256`), a manifest value points into the manifest.
//!
//! The values of the machine's block-size model that `param MR = model` defaults to come
//! in here too ([`ModelValues`]), at a lower priority than any setting. The script layer
//! never computes them: the command that runs the script probes the machine (only when
//! [`model_use`] says the script needs it) and hands the table over.

use super::ast::{ParamDefault, ScriptItem, Span};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::presburger::Int;

/// The name the command line's `--set` values are rendered under in diagnostics.
pub const COMMAND_LINE: &str = "<command line>";

/// One value for a script parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    pub name: String,
    pub value: Int,
    /// The source the setting was written in (a name in [`Settings::sources`]).
    pub source: String,
    /// The whole setting (`MC=96`) in that source.
    pub span: Span,
}

/// The values given to a script's parameters, with the texts they point into.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    pub items: Vec<Setting>,
    /// (name, text) of every source a setting points into.
    pub sources: Vec<(String, String)>,
    /// The machine model's values for `param NAME = model`, below every setting; `None`
    /// when the command computed none (the script then may not use `model`).
    pub model: Option<ModelValues>,
}

/// The values of the machine's block-size model (docs/machine.md) by name, as the command
/// running a script computed them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelValues {
    /// The compiler and flags the machine was probed with (`cc -O3 -march=native`); `None`
    /// when it was not probed because every parameter taking a model value is set.
    pub probed: Option<String>,
    /// Every name the model has, in order, with its value or why it is unknown here.
    pub values: Vec<(String, Result<Int, String>)>,
}

impl ModelValues {
    /// The value of `name`: `None` when the model has no such name.
    pub fn get(&self, name: &str) -> Option<&Result<Int, String>> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The names, for messages: `` `NVEC`, `MR`, ... ``, with a prefix that goes with
    /// every plain name said once (`` each also as `float.NAME` ``).
    pub fn names(&self) -> String {
        let all: Vec<&str> = self.values.iter().map(|(n, _)| n.as_str()).collect();
        let plain: Vec<&str> = all.iter().copied().filter(|n| !n.contains('.')).collect();
        let mut prefixes: Vec<&str> = vec![];
        for n in &all {
            if let Some((p, _)) = n.split_once('.') {
                if !prefixes.contains(&p) {
                    prefixes.push(p);
                }
            }
        }
        // A prefix is said once when it goes with exactly the plain names.
        let whole = |p: &str| {
            let with: Vec<&str> = all
                .iter()
                .filter_map(|n| n.strip_prefix(p).and_then(|r| r.strip_prefix('.')))
                .collect();
            !plain.is_empty() && with == plain
        };
        let mut out: Vec<String> = all
            .iter()
            .filter(|n| n.split_once('.').is_none_or(|(p, _)| !whole(p)))
            .map(|n| format!("`{n}`"))
            .collect();
        let said: Vec<String> = prefixes
            .iter()
            .filter(|p| whole(p))
            .map(|p| format!("`{p}.NAME`"))
            .collect();
        if !said.is_empty() {
            out.push(format!("each also as {}", said.join(" and ")));
        }
        out.join(", ")
    }
}

/// What a script needs of the machine model: `None` when no parameter defaults to it,
/// `Some(true)` when one that `settings` does not set does (the model must be computed),
/// `Some(false)` when every such parameter is set (only the model's names are needed, to
/// check them). A script that does not parse needs nothing: running it reports the error.
pub fn model_use(text: &str, settings: &Settings) -> Option<bool> {
    let script = super::parse::parse_script(text, "").ok()?;
    let mut out = None;
    for item in &script.items {
        if let ScriptItem::Param(d) = item {
            if let Some((ParamDefault::Model(_), _)) = &d.default {
                let unset = settings.get(&d.name.text).is_none();
                out = Some(out.unwrap_or(false) || unset);
            }
        }
    }
    out
}

impl Settings {
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&Setting> {
        self.items.iter().find(|s| s.name == name)
    }

    /// `--set NAME=VALUE` arguments, in order. The command line becomes a source
    /// ([`COMMAND_LINE`]) whose text is `--set A=1 --set B=2`, so errors point at one value.
    /// A malformed value, a name that is not an identifier or one set twice is an error.
    pub fn from_command_line(args: &[String]) -> Result<Settings, Diagnostic> {
        let (text, spans) = command_line(args);
        let mut out = Settings {
            items: vec![],
            sources: vec![(COMMAND_LINE.to_string(), text.clone())],
            model: None,
        };
        for (a, span) in args.iter().zip(spans) {
            let label = |d: Diagnostic, r: Span, l: &str| d.with_label(COMMAND_LINE, r, l);
            let Some(eq) = a.find('=') else {
                return Err(label(
                    Diagnostic::new(
                        codes::INVALID_OPTION,
                        format!("`--set {a}`: expected NAME=VALUE"),
                    ),
                    span,
                    "no `=`",
                )
                .with_help("for example `--set MC=96`"));
            };
            let (name, value) = (a[..eq].trim(), a[eq + 1..].trim());
            let name_span = span.start..span.start + eq;
            let value_span = span.start + eq + 1..span.end;
            if !is_identifier(name) {
                return Err(label(
                    Diagnostic::new(
                        codes::INVALID_OPTION,
                        format!("`--set {a}`: `{name}` is not a parameter name"),
                    ),
                    name_span,
                    "expected a name like `MC`",
                ));
            }
            let value = parse_int(value).ok_or_else(|| {
                label(
                    Diagnostic::new(
                        codes::INVALID_OPTION,
                        format!("the value of `{name}` must be an integer, found `{value}`"),
                    ),
                    value_span,
                    "not an integer",
                )
            })?;
            out.push(Setting {
                name: name.to_string(),
                value,
                source: COMMAND_LINE.to_string(),
                span,
            })?;
        }
        Ok(out)
    }

    /// Adds a setting; the same name twice is an error pointing at both.
    pub fn push(&mut self, s: Setting) -> Result<(), Diagnostic> {
        if let Some(old) = self.get(&s.name) {
            return Err(Diagnostic::new(
                codes::SCRIPT_PARAMETER,
                format!("`{}` is set twice", s.name),
            )
            .with_label(&s.source, s.span.clone(), "set again here")
            .with_label(&old.source, old.span.clone(), "first set here"));
        }
        self.items.push(s);
        Ok(())
    }

    /// The settings as command-line arguments (`--set MC=96`), for a command to repeat.
    pub fn to_args(&self) -> Vec<String> {
        self.items
            .iter()
            .flat_map(|s| ["--set".to_string(), format!("{}={}", s.name, s.value)])
            .collect()
    }
}

/// The text the `--set` arguments are rendered as, and the span of each argument in it.
fn command_line(args: &[String]) -> (String, Vec<Span>) {
    let mut text = String::new();
    let mut spans = vec![];
    for a in args {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str("--set ");
        let start = text.len();
        text.push_str(a);
        spans.push(start..text.len());
    }
    (text, spans)
}

/// The source text of [`COMMAND_LINE`] for these `--set` arguments.
pub fn command_line_text(args: &[String]) -> String {
    command_line(args).0
}

/// An integer as a setting writes it: optional sign, decimal digits.
pub fn parse_int(s: &str) -> Option<Int> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A name a script can declare: a letter or `_`, then letters, digits and `_`.
pub fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(x) if x.is_ascii_alphabetic() || x == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn command_line_values_point_into_the_command_line() {
        let s = Settings::from_command_line(&args(&["MC=96", "KC=-2"])).unwrap();
        assert_eq!(s.items.len(), 2);
        assert_eq!(s.items[1].value, Int::from(-2));
        let text = &s.sources[0].1;
        assert_eq!(text, "--set MC=96 --set KC=-2");
        assert_eq!(&text[s.items[1].span.clone()], "KC=-2");
        assert_eq!(s.to_args(), args(&["--set", "MC=96", "--set", "KC=-2"]));
    }

    #[test]
    fn malformed_values_are_errors_with_spans() {
        let e = Settings::from_command_line(&args(&["MC=9.5"])).unwrap_err();
        assert!(e.message.contains("must be an integer"), "{}", e.message);
        assert_eq!(e.labels[0].range, 9..12);
        let e = Settings::from_command_line(&args(&["MC"])).unwrap_err();
        assert!(e.message.contains("NAME=VALUE"), "{}", e.message);
        let e = Settings::from_command_line(&args(&["9x=1"])).unwrap_err();
        assert!(e.message.contains("not a parameter name"), "{}", e.message);
        let e = Settings::from_command_line(&args(&["MC=1", "MC=2"])).unwrap_err();
        assert!(e.message.contains("set twice"), "{}", e.message);
        assert_eq!(e.labels.len(), 2);
    }

    #[test]
    fn what_a_script_needs_of_the_model() {
        let none = Settings::default();
        assert_eq!(model_use("param MC = 72\ntile(S, [MC])", &none), None);
        assert_eq!(model_use("param MR = model", &none), Some(true));
        assert_eq!(model_use("param X = model(float.MC)", &none), Some(true));
        let set = Settings::from_command_line(&args(&["MR=6"])).unwrap();
        assert_eq!(model_use("param MR = model", &set), Some(false));
        assert_eq!(
            model_use("param MR = model\nparam KC = model", &set),
            Some(true)
        );
        assert_eq!(
            model_use("param MR = model(", &none),
            None,
            "does not parse"
        );
    }

    #[test]
    fn model_names_in_messages() {
        let m = |names: &[&str]| ModelValues {
            probed: None,
            values: names
                .iter()
                .map(|n| (n.to_string(), Ok(Int::from(1))))
                .collect(),
        };
        assert_eq!(
            m(&["MR", "KC", "float.MR", "float.KC", "double.MR", "double.KC"]).names(),
            "`MR`, `KC`, each also as `float.NAME` and `double.NAME`"
        );
        assert_eq!(
            m(&["MR", "KC", "float.MR"]).names(),
            "`MR`, `KC`, `float.MR`"
        );
        assert!(m(&["MR"]).get("MR").is_some());
        assert!(m(&["MR"]).get("KC").is_none());
    }

    #[test]
    fn integers() {
        assert_eq!(parse_int("-12"), Some(Int::from(-12)));
        assert_eq!(parse_int("+1"), None);
        assert_eq!(parse_int("-"), None);
        assert_eq!(parse_int("1e3"), None);
    }
}
