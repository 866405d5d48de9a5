//! The script interpreter: rewrites 2d+1 schedules exactly as the Loopy paper's §3.2 φ
//! functions say, and never verifies in the middle of a script (§4.1).
//!
//! The state is a list of schedule [`Piece`]s — a statement, the part of its domain the piece
//! covers (`isplit` splits domains), its position vector and its iteration map — and an arena
//! of loop components, each the set P(l) of positions it covers. Every operation maps all
//! positions through its φ, so every handle stays meaningful after every step, including
//! handles held by procedure parameters.

use super::ast::{
    Arg, Call, Name, ParamDecl, ParamDefault, ProcDef, Script, ScriptItem, Span, Stmt,
};
use super::params::{Setting, Settings};
use super::parse::parse_script;
use super::stdlib;
use crate::diag::codes;
use crate::diag::Diagnostic;
pub use crate::model::state::{
    Component, Mark, MarkKind, Origin, Piece, Pos, RedOp, State, Step, StmtInit,
};
use crate::presburger::{parse_with_constants, Int, Map, ParseError, Parsed, Set};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

mod affine;
mod args;
mod copy;
mod expand;
mod hoist;
mod isplit;
mod loops;
mod marks;
mod nesting;
mod realign;
mod reorder;

pub use loops::LOOP_OPS;

fn lex_lt(a: &Pos, b: &Pos) -> bool {
    a < b
}

fn add(a: &Pos, b: &Pos) -> Pos {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

fn sub(a: &Pos, b: &Pos) -> Pos {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

fn unit(len: usize, n: usize) -> Pos {
    (0..len)
        .map(|k| if k == n { Int::ONE } else { Int::ZERO })
        .collect()
}

fn fmt_pos(p: &Pos) -> String {
    format!(
        "[{}]",
        p.iter().map(Int::to_string).collect::<Vec<_>>().join(", ")
    )
}

/// A value a script expression evaluates to.
#[derive(Clone, Debug)]
enum Value {
    Handle(usize),
    Int(Int),
    Isl {
        text: String,
        source: String,
        span: Span,
    },
    /// Each item with where it was written.
    List(Vec<(Int, Span)>),
    /// A reduction operator.
    Op(RedOp),
    /// An array of the kernel, by its C name (passed to a procedure for its `copy`).
    Array(String),
}

impl Value {
    fn describe(&self) -> &'static str {
        match self {
            Value::Handle(_) => "a loop component",
            Value::Int(_) => "an integer",
            Value::Isl { .. } => "a set or map",
            Value::List(_) => "a list of integers",
            Value::Op(_) => "a reduction operator",
            Value::Array(_) => "an array",
        }
    }
}

/// A procedure and the source it was written in.
#[derive(Clone, Debug)]
struct Proc {
    def: ProcDef,
    source: String,
}

/// A script parameter in force: its value, where it is declared, and the setting that gave
/// the value when it was not the default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamValue {
    pub name: String,
    pub value: Int,
    /// The script it is declared in, and the span of its name there.
    pub source: String,
    pub span: Span,
    /// The span of the default value, when the declaration has one.
    pub default: Option<Span>,
    /// The `--set` (or manifest `set`) that overrode the default.
    pub set: Option<Setting>,
    /// The machine model's name of the value, when the default is `model` and it was taken.
    pub model: Option<String>,
}

impl ParamValue {
    /// Where the value came from: `--set`, `set in loopy.toml`, `model` (`model float.MC`
    /// for another name of the model), or `default`.
    pub fn origin(&self) -> String {
        match (&self.set, &self.model) {
            (Some(s), _) if s.source == super::params::COMMAND_LINE => "--set".to_string(),
            (Some(s), _) => format!("set in {}", s.source),
            (None, Some(m)) if *m == self.name => "model".to_string(),
            (None, Some(m)) => format!("model {m}"),
            (None, None) => "default".to_string(),
        }
    }

    /// `MC = 96 (--set)`, `KC = 256 (default)`: the value and where it came from.
    pub fn describe(&self) -> String {
        format!("{} = {} ({})", self.name, self.value, self.origin())
    }
}

/// A callback run after every top-level operation.
pub type StepHook = Box<dyn FnMut(&Step, &State)>;

/// Runs scripts against a [`State`].
pub struct Interpreter {
    pub state: State,
    procs: BTreeMap<String, Rc<Proc>>,
    /// Every source text loaded (script, imports, standard library), for rendering reports.
    pub sources: Vec<(String, String)>,
    pub steps: Vec<Step>,
    /// The pieces after each top-level step (`history[0]` is the initial state), so that a
    /// verifier can tell which step moved an instance.
    pub history: Vec<Vec<Piece>>,
    /// Called after every top-level operation (for `--trace`).
    pub on_step: Option<StepHook>,
    /// Values for the script's parameters from outside it (`--set`, a manifest's `set`).
    settings: Settings,
    /// The script parameters declared so far, in declaration order, with their values.
    pub params: Vec<ParamValue>,
    depth: usize,
}

const MAX_CALL_DEPTH: usize = 64;

/// Frame of local names inside a procedure call (or the top level).
type Frame = BTreeMap<String, Value>;

impl Interpreter {
    /// An interpreter over `state` with the standard library loaded.
    pub fn new(state: State) -> Interpreter {
        let mut it = Interpreter {
            history: vec![state.pieces.clone()],
            state,
            procs: BTreeMap::new(),
            sources: vec![(stdlib::STD_NAME.to_string(), stdlib::STD_TEXT.to_string())],
            steps: vec![],
            on_step: None,
            settings: Settings::default(),
            params: vec![],
            depth: 0,
        };
        let std = stdlib::std_script();
        for item in std.items {
            if let ScriptItem::Def(d) = item {
                it.procs.insert(
                    d.name.text.clone(),
                    Rc::new(Proc {
                        def: d,
                        source: stdlib::STD_NAME.to_string(),
                    }),
                );
            }
        }
        it
    }

    /// Names of the procedures that can be called: the standard library's, imported and
    /// defined ones (for completion).
    pub fn procedure_names(&self) -> Vec<String> {
        self.procs.keys().cloned().collect()
    }

    /// Values for the script's parameters, overriding their defaults (before running it).
    pub fn set_settings(&mut self, settings: Settings) {
        for src in &settings.sources {
            if !self.sources.iter().any(|(n, _)| *n == src.0) {
                self.sources.push(src.clone());
            }
        }
        self.settings = settings;
    }

    /// The values given from outside the script.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// An error for the first setting whose name no script run so far declares (call it
    /// after running a script): a `--set` that changes nothing is a mistake.
    pub fn check_settings_declared(&self) -> Result<(), Diagnostic> {
        let Some(s) = self
            .settings
            .items
            .iter()
            .find(|s| !self.params.iter().any(|p| p.name == s.name))
        else {
            return Ok(());
        };
        let mut d = Diagnostic::new(
            codes::SCRIPT_PARAMETER,
            format!("the script declares no parameter `{}`", s.name),
        )
        .with_label(&s.source, s.span.clone(), "set here");
        if self.params.is_empty() {
            d = d.with_note("the script declares no parameters (`param NAME = VALUE`)");
        } else {
            let names: Vec<String> = self
                .params
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect();
            d = d.with_note(format!("the script declares {}", names.join(", ")));
            if let Some((_, c)) = self
                .params
                .iter()
                .map(|p| {
                    (
                        edit_distance(&p.name.to_lowercase(), &s.name.to_lowercase()),
                        &p.name,
                    )
                })
                .filter(|(d, _)| *d <= 2)
                .min()
            {
                d = d.with_help(format!("did you mean `{c}`?"));
            }
        }
        Err(d)
    }

    /// Declares a script parameter: its value is the setting of that name, else the
    /// default. A second declaration, a name the kernel or a handle already uses, and a
    /// parameter with neither value are errors.
    fn declare(&mut self, d: &ParamDecl, source: &str) -> Result<(), Diagnostic> {
        let name = &d.name.text;
        if let Some(p) = self.params.iter().find(|p| p.name == *name) {
            return Err(Diagnostic::new(
                codes::SCRIPT_PARAMETER,
                format!("parameter `{name}` is declared twice"),
            )
            .with_label(source, d.name.span.clone(), "declared again here")
            .with_label(&p.source, p.span.clone(), "first declared here"));
        }
        if self.state.params.contains(name) {
            return Err(Diagnostic::new(
                codes::SCRIPT_PARAMETER,
                format!(
                "`{name}` is a parameter of the kernel; a script parameter cannot take its name"
            ),
            )
            .with_label(source, d.name.span.clone(), "declared here")
            .with_help(format!(
                "choose another name: in a map `{name}` would mean the kernel's size"
            )));
        }
        if self.state.handles.contains_key(name) {
            return Err(Diagnostic::new(
                codes::SCRIPT_PARAMETER,
                format!(
                "`{name}` already names a tag or handle; a script parameter cannot take its name"
            ),
            )
            .with_label(source, d.name.span.clone(), "declared here")
            .with_help("choose another name"));
        }
        let set = self.settings.get(name).cloned();
        let model = match &d.default {
            Some((ParamDefault::Model(m), at)) => {
                let (key, key_at) = m.as_ref().map_or((name, at), |m| (&m.text, &m.span));
                Some((
                    self.model_value(name, key, key_at, set.is_some(), source)?,
                    key,
                ))
            }
            _ => None,
        };
        // (An unset parameter whose default is the model has the model's value here, or
        // `model_value` gave an error.)
        let value = match (&set, &model, &d.default) {
            (Some(s), _, _) => s.value.clone(),
            (None, Some((Some(v), _)), _) => v.clone(),
            (None, _, Some((ParamDefault::Int(v), _))) => v.clone(),
            (None, _, _) => {
                return Err(Diagnostic::new(codes::SCRIPT_PARAMETER, format!("parameter `{name}` has no value"))
                    .with_label(source, d.span.clone(), "declared without a default")
                    .with_help(format!(
                        "set it with `--set {name}=VALUE` (or a manifest entry's `set = {{ {name} = VALUE }}`), or give it a default: `param {name} = VALUE`"
                    )))
            }
        };
        self.params.push(ParamValue {
            name: name.clone(),
            value,
            source: source.to_string(),
            span: d.name.span.clone(),
            default: d.default.as_ref().map(|(_, s)| s.clone()),
            model: match (&set, model) {
                (None, Some((_, key))) => Some(key.clone()),
                _ => None,
            },
            set,
        });
        Ok(())
    }

    /// The machine model's value `key` for parameter `name` (`key_at` is where the script
    /// names it), for the kernel's element type when `key` names none (`State::model_type`):
    /// `None` when the parameter is set (the name is still checked). A name the
    /// model does not have, a model the command did not compute and a value unknown on
    /// this machine are errors.
    fn model_value(
        &self,
        name: &str,
        key: &str,
        key_at: &Span,
        is_set: bool,
        source: &str,
    ) -> Result<Option<Int>, Diagnostic> {
        let Some(model) = &self.settings.model else {
            return Err(Diagnostic::new(codes::SCRIPT_PARAMETER, format!(
                "parameter `{name}` takes the machine model's value, and the model is not computed here"
            ))
            .with_label(source, key_at.clone(), "a value of the machine model")
            .with_help(format!("give the value with `--set {name}=VALUE`")));
        };
        // A plain name is the value for the kernel's element type (`MR` is `float.MR` for a
        // kernel of floats); plain names are doubles'.
        let typed = match (key.split_once('.'), self.state.model_type) {
            (None, "float") => format!("float.{key}"),
            _ => key.to_string(),
        };
        let Some(v) = model.get(&typed) else {
            return Err(Diagnostic::new(
                codes::SCRIPT_PARAMETER,
                format!("the machine model has no value `{key}`"),
            )
            .with_label(source, key_at.clone(), "not a name of the model")
            .with_note(format!("the model's names are {}", model.names()))
            .with_help(if key == name {
                format!("name one: `param {name} = model(MC)`")
            } else {
                "see docs/machine.md for what each name means".to_string()
            }));
        };
        if is_set {
            return Ok(None);
        }
        match v {
            Ok(v) => Ok(Some(v.clone())),
            Err(why) => {
                let of = model.probed.as_deref().unwrap_or("this machine");
                Err(Diagnostic::new(
                    codes::SCRIPT_PARAMETER,
                    format!("the machine model's `{key}` is unknown on this machine ({of})"),
                )
                .with_label(source, key_at.clone(), format!("`{name}` takes this value"))
                .with_note(why.clone())
                .with_help(format!("give the value with `--set {name}=VALUE`")))
            }
        }
    }

    /// Adds, to a diagnostic from a top-level statement of `script`, where the value of each
    /// script parameter it points at came from (its setting or its default).
    fn explain_params(&self, mut d: Diagnostic, script: &Script, source: &str) -> Diagnostic {
        let in_def = |r: &Span| {
            script.items.iter().any(
                |i| matches!(i, ScriptItem::Def(p) if p.span.start <= r.start && r.end <= p.span.end),
            )
        };
        let mut extra = vec![];
        for l in &d.labels {
            if l.source != source || in_def(&l.range) {
                continue;
            }
            let text = self.source_text(source, &l.range);
            let Some(p) = self.params.iter().find(|p| p.name == text) else {
                continue;
            };
            let what = (p.source.clone(), p.span.clone());
            if extra.iter().any(|(w, _, _, _)| *w == what) {
                continue;
            }
            let (src, at, msg) = match (&p.set, &p.default) {
                (Some(s), _) => (
                    s.source.clone(),
                    s.span.clone(),
                    format!("`{}` is {}, set here", p.name, p.value),
                ),
                (None, Some(at)) => (
                    p.source.clone(),
                    at.clone(),
                    match &p.model {
                        Some(m) => {
                            format!("`{}` is {}, the machine model's `{m}`", p.name, p.value)
                        }
                        None => format!("`{}` is {} by default", p.name, p.value),
                    },
                ),
                (None, None) => continue,
            };
            extra.push((what, src, at, msg));
        }
        for (_, src, at, msg) in extra {
            d = d.with_label(&src, at, msg);
        }
        d
    }

    /// Parses and runs a script. `source` names it in diagnostics; imports are resolved
    /// relative to `base_dir`.
    pub fn run_text(
        &mut self,
        text: &str,
        source: &str,
        base_dir: &std::path::Path,
    ) -> Result<(), Diagnostic> {
        self.sources.push((source.to_string(), text.to_string()));
        let script = parse_script(text, source)?;
        self.run(&script, source, base_dir)
    }

    fn run(
        &mut self,
        script: &Script,
        source: &str,
        base_dir: &std::path::Path,
    ) -> Result<(), Diagnostic> {
        // Procedures first, so a script may call a procedure defined below the call.
        for item in &script.items {
            match item {
                ScriptItem::Import { path, span } => self.import(path, span, source, base_dir)?,
                ScriptItem::Def(d) => self.define(d, source)?,
                ScriptItem::Param(d) => self.declare(d, source)?,
                ScriptItem::Stmt(_) => {}
            }
        }
        let mut top: Frame = self
            .state
            .handles
            .iter()
            .map(|(k, v)| (k.clone(), Value::Handle(*v)))
            .collect();
        for p in &self.params {
            top.insert(p.name.clone(), Value::Int(p.value.clone()));
        }
        for item in &script.items {
            if let ScriptItem::Stmt(s) = item {
                if let Stmt::Return { span, .. } = s {
                    return Err(
                        Diagnostic::new(codes::PROCEDURE, "`return` outside a procedure")
                            .with_label(source, span.clone(), "only procedures return values"),
                    );
                }
                let number = self.steps.len() + 1;
                let step = Step {
                    number,
                    source: source.to_string(),
                    span: s.span(),
                    text: self.source_text(source, &s.span()),
                };
                // A failed operation leaves the state as it was (the REPL relies on it).
                let saved = self.state.clone();
                if let Err(d) = self.exec(s, source, &mut top, number) {
                    self.state = saved;
                    return Err(self.explain_params(d, script, source));
                }
                // Copies must stay plannable (one window, an exact bounded box) after every
                // step, so that the step that breaks one is the one reported; the state keeps
                // the plans (`State::copy_plans`).
                if self.state.pieces.iter().any(|p| !p.copies.is_empty())
                    || !self.state.copy_plans.is_empty()
                {
                    if let Err(d) = crate::plan::copy::plan_copies(&mut self.state) {
                        self.state = saved;
                        let d = if d.labels.iter().any(|l| {
                            l.source == source
                                && l.range.start >= s.span().start
                                && l.range.end <= s.span().end
                        }) {
                            d
                        } else {
                            d.with_label(source, s.span(), "after this step")
                        };
                        return Err(d);
                    }
                }
                self.steps.push(step.clone());
                self.history.push(self.state.pieces.clone());
                for (k, v) in &top {
                    if let Value::Handle(h) = v {
                        self.state.handles.insert(k.clone(), *h);
                    }
                }
                if let Some(f) = self.on_step.as_mut() {
                    f(&step, &self.state);
                }
            }
        }
        Ok(())
    }

    fn source_text(&self, source: &str, span: &Span) -> String {
        self.sources
            .iter()
            .find(|(n, _)| n == source)
            .and_then(|(_, t)| t.get(span.clone()))
            .unwrap_or("")
            .to_string()
    }

    fn define(&mut self, d: &ProcDef, source: &str) -> Result<(), Diagnostic> {
        if BUILTINS.contains(&d.name.text.as_str()) || LOOP_OPS.contains(&d.name.text.as_str()) {
            return Err(Diagnostic::new(
                codes::PROCEDURE,
                format!("`{}` is a built-in operation", d.name.text),
            )
            .with_label(source, d.name.span.clone(), "cannot be redefined"));
        }
        if let Some(p) = self.procs.get(&d.name.text) {
            if p.source != stdlib::STD_NAME {
                return Err(Diagnostic::new(
                    codes::PROCEDURE,
                    format!("procedure `{}` is defined twice", d.name.text),
                )
                .with_label(source, d.name.span.clone(), "second definition")
                .with_label(&p.source, p.def.name.span.clone(), "first definition"));
            }
        }
        let mut seen = BTreeSet::new();
        for p in &d.params {
            if !seen.insert(p.text.clone()) {
                return Err(Diagnostic::new(
                    codes::PROCEDURE,
                    format!("parameter `{}` appears twice", p.text),
                )
                .with_label(source, p.span.clone(), "repeated"));
            }
        }
        self.procs.insert(
            d.name.text.clone(),
            Rc::new(Proc {
                def: d.clone(),
                source: source.to_string(),
            }),
        );
        Ok(())
    }

    fn import(
        &mut self,
        path: &str,
        span: &Span,
        source: &str,
        base_dir: &std::path::Path,
    ) -> Result<(), Diagnostic> {
        let full = base_dir.join(path);
        let name = full.display().to_string();
        if self.sources.iter().any(|(n, _)| *n == name) {
            return Ok(());
        }
        let text =
            std::fs::read_to_string(&full).map_err(|e| {
                Diagnostic::new(codes::CANNOT_READ, format!("cannot import `{path}`: {e}"))
                    .with_label(source, span.clone(), "imported here")
            })?;
        self.sources.push((name.clone(), text.clone()));
        let script = parse_script(&text, &name)?;
        for item in &script.items {
            match item {
                ScriptItem::Import { path, span } => {
                    let dir = full.parent().unwrap_or(base_dir).to_path_buf();
                    self.import(path, span, &name, &dir)?
                }
                ScriptItem::Def(d) => self.define(d, &name)?,
                ScriptItem::Stmt(s) => {
                    return Err(Diagnostic::new(
                        codes::PROCEDURE,
                        "an imported file may only define procedures",
                    )
                    .with_label(&name, s.span(), "operation in an imported file")
                    .with_label(source, span.clone(), "imported here"));
                }
                ScriptItem::Param(d) => {
                    return Err(Diagnostic::new(
                        codes::PROCEDURE,
                        "an imported file may only define procedures, not parameters",
                    )
                    .with_label(&name, d.span.clone(), "parameter in an imported file")
                    .with_label(source, span.clone(), "imported here")
                    .with_help(
                        "declare the parameter in the script and pass it to the procedures",
                    ));
                }
            }
        }
        Ok(())
    }

    fn exec(
        &mut self,
        s: &Stmt,
        source: &str,
        frame: &mut Frame,
        step: usize,
    ) -> Result<Option<Vec<Value>>, Diagnostic> {
        match s {
            Stmt::Return { values, .. } => {
                let mut out = vec![];
                for v in values {
                    out.push(self.lookup(frame, v, source)?);
                }
                Ok(Some(out))
            }
            Stmt::Call { targets, call, .. } => {
                let results = self.call(call, source, frame, step)?;
                if targets.is_empty() {
                    return Ok(None);
                }
                if targets.len() != results.len() {
                    let what = if results.is_empty() {
                        format!("`{}` returns nothing", call.name.text)
                    } else {
                        format!("`{}` returns {} value(s)", call.name.text, results.len())
                    };
                    return Err(Diagnostic::new(
                        codes::NAME_TAKEN,
                        format!("{what}, but {} name(s) are assigned", targets.len()),
                    )
                    .with_label(source, call.span.clone(), what));
                }
                for (t, v) in targets.iter().zip(results) {
                    if self.depth == 0 {
                        if let Some(p) = self.params.iter().find(|p| p.name == t.text) {
                            return Err(Diagnostic::new(
                                codes::NAME_TAKEN,
                                format!(
                                    "`{}` is a script parameter; a handle cannot take its name",
                                    t.text
                                ),
                            )
                            .with_label(source, t.span.clone(), "assigned here")
                            .with_label(&p.source, p.span.clone(), "declared here")
                            .with_help("choose a new name for the new handle"));
                        }
                    }
                    if frame.contains_key(&t.text) {
                        let mut d = Diagnostic::new(
                            codes::NAME_TAKEN,
                            format!("`{}` is already defined", t.text),
                        )
                        .with_label(source, t.span.clone(), "assigned again here")
                        .with_help("choose a new name for the new handle");
                        if let Some(Value::Handle(h)) = frame.get(&t.text) {
                            let o = &self.state.components[*h].origin;
                            d = d.with_label(
                                &o.source,
                                o.span.clone(),
                                format!("`{}` was defined here", t.text),
                            );
                        }
                        return Err(d);
                    }
                    if let Value::Handle(h) = v {
                        let c = &mut self.state.components[h];
                        c.origin = Origin {
                            source: source.to_string(),
                            span: t.span.clone(),
                            what: format!("`{}`", t.text),
                        };
                    }
                    frame.insert(t.text.clone(), v);
                }
                Ok(None)
            }
        }
    }

    fn lookup(&self, frame: &Frame, n: &Name, source: &str) -> Result<Value, Diagnostic> {
        frame.get(&n.text).cloned().ok_or_else(|| {
            let mut known: Vec<&String> = frame.keys().collect();
            known.sort();
            let mut d = Diagnostic::new(codes::UNKNOWN_TAG, format!("unknown tag or handle `{}`", n.text)).with_label(
                source,
                n.span.clone(),
                "not a tag in the kernel nor a handle defined above",
            );
            if self.depth > 0 && self.params.iter().any(|p| p.name == n.text) {
                return d.with_help(format!(
                    "`{}` is a script parameter: procedures see only their arguments, so pass it as one",
                    n.text
                ));
            }
            let close = known
                .iter()
                .map(|k| (edit_distance(&k.to_lowercase(), &n.text.to_lowercase()), k))
                .filter(|(d, _)| *d <= 2)
                .min();
            if let Some((_, c)) = close {
                d = d.with_help(format!("did you mean `{c}`?"));
            } else if !known.is_empty() {
                d = d.with_note(format!(
                    "known here: {}",
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            d
        })
    }

    fn eval(&mut self, a: &Arg, frame: &Frame, source: &str) -> Result<Value, Diagnostic> {
        Ok(match a {
            // A name that is no handle but one of the kernel's arrays stands for the array.
            Arg::Ident(n)
                if !frame.contains_key(&n.text)
                    && self.state.arrays.iter().any(|a| a.1 == n.text) =>
            {
                Value::Array(n.text.clone())
            }
            Arg::Ident(n) => self.lookup(frame, n, source)?,
            Arg::Int(v, _) => Value::Int(v.clone()),
            Arg::Isl(t, span) => Value::Isl {
                text: t.clone(),
                source: source.to_string(),
                span: span.clone(),
            },
            Arg::List(items, _) => {
                let mut out = vec![];
                for a in items {
                    match self.eval(a, frame, source)? {
                        Value::Int(i) => out.push((i, a.span())),
                        v => {
                            let what = match a {
                                Arg::Ident(n) => format!("`{}` is {}", n.text, v.describe()),
                                _ => format!("found {}", v.describe()),
                            };
                            return Err(Diagnostic::new(
                                codes::WRONG_ARGUMENT_TYPE,
                                format!("the items of a list must be integers: {what}"),
                            )
                            .with_label(
                                source,
                                a.span(),
                                "not an integer",
                            ));
                        }
                    }
                }
                Value::List(out)
            }
            Arg::Op(op, _) => Value::Op(*op),
            Arg::Group(names, span) => {
                let mut positions = BTreeSet::new();
                for n in names {
                    match self.lookup(frame, n, source)? {
                        Value::Handle(h) => {
                            positions.extend(self.state.components[h].positions.iter().cloned())
                        }
                        v => {
                            return Err(Diagnostic::new(
                                codes::WRONG_ARGUMENT_TYPE,
                                format!("`{}` is {}, not a loop component", n.text, v.describe()),
                            )
                            .with_label(
                                source,
                                n.span.clone(),
                                "in this group",
                            ))
                        }
                    }
                }
                self.state.components.push(Component {
                    positions,
                    origin: Origin {
                        source: source.to_string(),
                        span: span.clone(),
                        what: "this group".to_string(),
                    },
                });
                Value::Handle(self.state.components.len() - 1)
            }
        })
    }

    fn call(
        &mut self,
        call: &Call,
        source: &str,
        frame: &Frame,
        step: usize,
    ) -> Result<Vec<Value>, Diagnostic> {
        let name = call.name.text.as_str();
        let ctx = OpCtx {
            source,
            call,
            frame,
            step,
        };
        match name {
            // The third argument names an array of the kernel, not a handle.
            "copy" | "copy_scaled" | "copy_written" => {
                self.copy(&ctx)?;
                return Ok(vec![]);
            }
            "expand" => {
                self.expand(&ctx)?;
                return Ok(vec![]);
            }
            // The first argument names a variable or a storage, not a handle.
            "contract" => {
                self.contract(&ctx)?;
                return Ok(vec![]);
            }
            _ => {}
        }
        let mut args = vec![];
        for a in &call.args {
            args.push((self.eval(a, frame, source)?, a.span()));
        }
        self.call_builtin(&ctx, args)
    }

    /// Runs a built-in operation (or a procedure) on its evaluated arguments.
    fn call_builtin(
        &mut self,
        ctx: &OpCtx,
        args: Vec<(Value, Span)>,
    ) -> Result<Vec<Value>, Diagnostic> {
        let name = ctx.call.name.text.as_str();
        match name {
            "realign" => {
                let [l1, l2, n] = self.arity::<3>(ctx, &args, &["l1", "l2", "n"])?;
                let (h1, h2, n) = (
                    self.handle(ctx, &l1)?,
                    self.handle(ctx, &l2)?,
                    self.int(ctx, &n)?,
                );
                self.realign(ctx, h1, h2, n)?;
                Ok(vec![])
            }
            "move_before" => {
                let [l, m] = self.arity::<2>(ctx, &args, &["l", "m"])?;
                let (hl, hm) = (self.handle(ctx, &l)?, self.handle(ctx, &m)?);
                self.move_before(ctx, hl, hm)?;
                Ok(vec![])
            }
            "lift" => {
                let [l, n] = self.arity::<2>(ctx, &args, &["l", "n"])?;
                let (h, n) = (self.handle(ctx, &l)?, self.int(ctx, &n)?);
                Ok(vec![Value::Handle(self.lift(ctx, h, n)?)])
            }
            "affine" => {
                let [l, f] = self.arity::<2>(ctx, &args, &["l", "MAP"])?;
                let h = self.handle(ctx, &l)?;
                let f = self.isl_map(ctx, &f)?;
                self.affine(ctx, h, f.0, &f.1)?;
                Ok(vec![])
            }
            "isplit" => {
                let [l, p, n] = self.arity::<3>(ctx, &args, &["l", "SET", "n"])?;
                let h = self.handle(ctx, &l)?;
                let p = self.isl_set(ctx, &p)?;
                let n = self.int(ctx, &n)?;
                let (a, b) = self.isplit(ctx, h, p.0, &p.1, n)?;
                Ok(vec![Value::Handle(a), Value::Handle(b)])
            }
            "tile" if args.len() == 3 => {
                self.loop_op(ctx, &args)?;
                Ok(vec![])
            }
            _ if LOOP_OPS.contains(&name) => {
                self.loop_op(ctx, &args)?;
                Ok(vec![])
            }
            "tile" => self.tile_call(ctx, &args),
            "hoist" => self.hoist_call(ctx, &args),
            "parallel" | "vectorize" | "unroll" => self.mark_call(ctx, args),
            _ => self.call_proc(ctx, args),
        }
    }

    /// `tile(l, [sizes])`.
    fn tile_call(&mut self, ctx: &OpCtx, args: &[(Value, Span)]) -> Result<Vec<Value>, Diagnostic> {
        let [l, sizes] = self.arity::<2>(ctx, args, &["l", "[sizes]"])?;
        let h = self.handle(ctx, &l)?;
        let (sizes, span) = match &sizes.0 {
            Value::List(v) => (v.clone(), sizes.1.clone()),
            v => {
                return Err(Diagnostic::new(
                    codes::WRONG_ARGUMENT_TYPE,
                    format!("`tile` takes a list of sizes, found {}", v.describe()),
                )
                .with_label(
                    ctx.source,
                    sizes.1.clone(),
                    "expected `[32, 32]` or similar",
                ))
            }
        };
        self.tile(ctx, h, &sizes, &span)?;
        Ok(vec![])
    }

    /// `hoist(l, SLICE[, n])`.
    fn hoist_call(
        &mut self,
        ctx: &OpCtx,
        args: &[(Value, Span)],
    ) -> Result<Vec<Value>, Diagnostic> {
        if args.len() != 2 && args.len() != 3 {
            let _ = self.arity::<2>(ctx, args, &["l", "SLICE", "[n]"])?;
        }
        let h = self.handle(ctx, &args[0])?;
        let n = match args.get(2) {
            Some(n) => self.int(ctx, n)? as usize,
            None => 0,
        };
        self.hoist(ctx, h, &args[1], n)?;
        Ok(vec![])
    }

    /// The loop marks: `parallel(l, k[, op])`, `vectorize(l, k)`, `unroll(l, k, u)`.
    fn mark_call(
        &mut self,
        ctx: &OpCtx,
        mut args: Vec<(Value, Span)>,
    ) -> Result<Vec<Value>, Diagnostic> {
        match ctx.call.name.text.as_str() {
            "parallel" => {
                let reduction = if args.len() == 3 {
                    match args.pop() {
                        Some((Value::Op(op), _)) => Some(op),
                        Some((v, span)) => {
                            return Err(Diagnostic::new(codes::WRONG_ARGUMENT_TYPE, format!(
                                "expected a reduction operator (`+`, `*`, `min` or `max`), found {}",
                                v.describe()
                            ))
                            .with_label(ctx.source, span, "the reduction operator")
                            .with_note("`parallel(l, k, +)` runs loop k in parallel, combining the updates of `s += e` statements"))
                        }
                        None => None,
                    }
                } else {
                    None
                };
                let [l, k] = self.arity::<2>(ctx, &args, &["l", "k", "[op]"])?;
                let (h, k) = (self.handle(ctx, &l)?, self.int(ctx, &k)?);
                let kind = MarkKind::Parallel { reduction };
                self.mark(ctx, h, k, kind)?;
            }
            "vectorize" => {
                let [l, k] = self.arity::<2>(ctx, &args, &["l", "k"])?;
                let (h, k) = (self.handle(ctx, &l)?, self.int(ctx, &k)?);
                self.mark(ctx, h, k, MarkKind::Vectorize)?;
            }
            _ => {
                let [l, k, u] = self.arity::<3>(ctx, &args, &["l", "k", "u"])?;
                let (h, k) = (self.handle(ctx, &l)?, self.int(ctx, &k)?);
                let factor = Self::unroll_factor(ctx, &u)?;
                self.mark(ctx, h, k, MarkKind::Unroll { factor })?;
            }
        }
        Ok(vec![])
    }

    fn call_proc(
        &mut self,
        ctx: &OpCtx,
        args: Vec<(Value, Span)>,
    ) -> Result<Vec<Value>, Diagnostic> {
        let name = &ctx.call.name;
        let Some(p) = self.procs.get(&name.text).cloned() else {
            let mut all: Vec<&str> = BUILTINS.to_vec();
            all.extend(LOOP_OPS);
            all.extend(self.procs.keys().map(String::as_str));
            let mut d = Diagnostic::new(
                codes::UNKNOWN_OPERATION,
                format!("unknown operation `{}`", name.text),
            )
            .with_label(
                ctx.source,
                name.span.clone(),
                "no built-in operation or procedure has this name",
            );
            if let Some((_, c)) = all
                .iter()
                .map(|k| (edit_distance(k, &name.text), k))
                .filter(|(d, _)| *d <= 2)
                .min()
            {
                d = d.with_help(format!("did you mean `{c}`?"));
            }
            return Err(d);
        };
        if args.len() != p.def.params.len() {
            return Err(Diagnostic::new(
                codes::WRONG_ARITY,
                format!(
                    "`{}` takes {} argument(s), {} given",
                    name.text,
                    p.def.params.len(),
                    args.len()
                ),
            )
            .with_label(ctx.source, ctx.call.span.clone(), "called here")
            .with_label(
                &p.source,
                p.def.span.start..p.def.span.start + 3 + 1 + name.text.len(),
                "defined here",
            ));
        }
        if self.depth >= MAX_CALL_DEPTH {
            return Err(Diagnostic::new(
                codes::PROCEDURE,
                "procedure calls nested too deeply (recursion?)",
            )
            .with_label(ctx.source, ctx.call.span.clone(), "this call"));
        }
        let mut frame: Frame = BTreeMap::new();
        // Integer arguments, to point from an error in the body back to where each came from.
        let ints: Vec<(String, Span)> = p
            .def
            .params
            .iter()
            .zip(&args)
            .filter(|(_, (v, _))| matches!(v, Value::Int(_)))
            .map(|(param, (_, at))| (param.text.clone(), at.clone()))
            .collect();
        for (param, (v, _)) in p.def.params.iter().zip(args) {
            frame.insert(param.text.clone(), v);
        }
        self.depth += 1;
        let mut result = Ok(vec![]);
        for s in &p.def.body {
            match self.exec(s, &p.source, &mut frame, ctx.step) {
                Ok(Some(vals)) => {
                    result = Ok(vals);
                    break;
                }
                Ok(None) => {}
                Err(d) => {
                    let mut passed = vec![];
                    for l in &d.labels {
                        if l.source != p.source {
                            continue;
                        }
                        let text = self.source_text(&p.source, &l.range);
                        if let Some((n, at)) = ints.iter().find(|(n, _)| *n == text) {
                            if !passed.iter().any(|(m, _): &(String, Span)| m == n) {
                                passed.push((n.clone(), at.clone()));
                            }
                        }
                    }
                    let mut d = d.with_label(
                        ctx.source,
                        ctx.call.span.clone(),
                        format!("in this call of `{}`", name.text),
                    );
                    for (n, at) in passed {
                        d = d.with_label(ctx.source, at, format!("passed as `{n}`"));
                    }
                    result = Err(d);
                    break;
                }
            }
        }
        self.depth -= 1;
        result
    }

    fn arity<const N: usize>(
        &self,
        ctx: &OpCtx,
        args: &[(Value, Span)],
        names: &[&str],
    ) -> Result<[(Value, Span); N], Diagnostic> {
        if args.len() != N {
            return Err(Diagnostic::new(
                codes::WRONG_ARITY,
                format!(
                    "`{}` takes {N} arguments ({}), {} given",
                    ctx.call.name.text,
                    names.join(", "),
                    args.len()
                ),
            )
            .with_label(
                ctx.source,
                ctx.call.span.clone(),
                format!("expected {}({})", ctx.call.name.text, names.join(", ")),
            ));
        }
        Ok(std::array::from_fn(|i| args[i].clone()))
    }

    fn handle(&self, ctx: &OpCtx, v: &(Value, Span)) -> Result<usize, Diagnostic> {
        match &v.0 {
            Value::Handle(h) => Ok(*h),
            other => Err(Diagnostic::new(
                codes::WRONG_ARGUMENT_TYPE,
                format!(
                    "`{}` expects a loop component here, found {}",
                    ctx.call.name.text,
                    other.describe()
                ),
            )
            .with_label(ctx.source, v.1.clone(), "not a tag or handle")),
        }
    }

    fn int(&self, ctx: &OpCtx, v: &(Value, Span)) -> Result<i64, Diagnostic> {
        match &v.0 {
            Value::Int(i) => i
                .to_i64()
                .filter(|x| *x >= 0 && *x < 1 << 20)
                .ok_or_else(|| {
                    Diagnostic::new(
                        codes::INVALID_ARGUMENT,
                        format!(
                            "`{}` needs a small non-negative number of loops here",
                            ctx.call.name.text
                        ),
                    )
                    .with_label(ctx.source, v.1.clone(), format!("{i} loops"))
                }),
            other => Err(Diagnostic::new(
                codes::WRONG_ARGUMENT_TYPE,
                format!(
                    "`{}` expects an integer here, found {}",
                    ctx.call.name.text,
                    other.describe()
                ),
            )
            .with_label(ctx.source, v.1.clone(), "not an integer")),
        }
    }

    /// Integer-valued names visible in the frame (procedure arguments), for maps and sets.
    fn constants(frame: &Frame) -> Vec<(String, Int)> {
        frame
            .iter()
            .filter_map(|(k, v)| match v {
                Value::Int(i) => Some((k.clone(), i.clone())),
                _ => None,
            })
            .collect()
    }

    fn isl(&self, ctx: &OpCtx, v: &(Value, Span)) -> Result<(Parsed, Origin), Diagnostic> {
        let Value::Isl { text, source, span } = &v.0 else {
            return Err(Diagnostic::new(
                codes::WRONG_ARGUMENT_TYPE,
                format!(
                    "`{}` expects a set or map here, found {}",
                    ctx.call.name.text,
                    v.0.describe()
                ),
            )
            .with_label(ctx.source, v.1.clone(), "expected `{ ... }`"));
        };
        let consts = Self::constants(ctx.frame);
        let origin = Origin {
            source: source.clone(),
            span: span.clone(),
            what: "this map".to_string(),
        };
        parse_with_constants(text, &self.state.params, &consts)
            .map(|p| (p, origin))
            .map_err(|e: ParseError| {
                let at = span.start + e.span.start..span.start + e.span.end;
                let mut d = Diagnostic::new(codes::SET_SYNTAX, e.message.clone()).with_label(
                    source,
                    at,
                    e.message.clone(),
                );
                if let Some(h) = e.help {
                    d = d.with_help(h);
                }
                if *source != ctx.source {
                    d = d.with_label(ctx.source, v.1.clone(), "passed here");
                }
                d
            })
    }

    fn isl_map(&self, ctx: &OpCtx, v: &(Value, Span)) -> Result<(Map, Origin), Diagnostic> {
        match self.isl(ctx, v)? {
            (Parsed::Map(m), o) => {
                // Tuple names mean nothing here: iteration vectors are anonymous.
                let (mut d, mut r) = (
                    m.space().domain.clone().expect("map"),
                    m.space().range.clone(),
                );
                d.name = None;
                r.name = None;
                Ok((m.with_space_names(d, r), o))
            }
            (Parsed::Set(_), o) => Err(Diagnostic::new(
                codes::WRONG_ARGUMENT_TYPE,
                format!("`{}` needs a map, found a set", ctx.call.name.text),
            )
            .with_label(&o.source, o.span, "a set")
            .with_help("write the map with an arrow: `{ [i, j] -> [j, i] }`")),
        }
    }

    fn isl_set(&self, ctx: &OpCtx, v: &(Value, Span)) -> Result<(Set, Origin), Diagnostic> {
        match self.isl(ctx, v)? {
            (Parsed::Set(s), o) => {
                let mut t = s.tuple().clone();
                t.name = None;
                Ok((s.with_tuple(t), o))
            }
            (Parsed::Map(_), o) => Err(Diagnostic::new(
                codes::WRONG_ARGUMENT_TYPE,
                format!(
                    "`{}` needs a set (a predicate), found a map",
                    ctx.call.name.text
                ),
            )
            .with_label(&o.source, o.span, "a map")
            .with_help("write the predicate as a set: `{ [i, j] : j < N/2 }`")),
        }
    }

    fn component_nonempty(
        &self,
        ctx: &OpCtx,
        h: usize,
        arg: usize,
    ) -> Result<Vec<usize>, Diagnostic> {
        let m = self.state.members(&self.state.components[h].positions);
        if m.is_empty() {
            let o = &self.state.components[h].origin;
            return Err(Diagnostic::new(
                codes::EMPTY_SELECTION,
                format!("{} covers no statement", o.what),
            )
            .with_label(
                ctx.source,
                ctx.call.args[arg].span(),
                "empty loop component",
            )
            .with_label(&o.source, o.span.clone(), "defined here"));
        }
        Ok(m)
    }

    /// The pieces of component `h` (argument 0), refused unless each has a loop `k`
    /// (counted from 1, outermost): the report names the shallowest statement. `purpose`
    /// follows "no loop k" (` to copy inside`, or nothing).
    fn component_with_loop(
        &self,
        ctx: &OpCtx,
        h: usize,
        k: i64,
        purpose: &str,
    ) -> Result<Vec<usize>, Diagnostic> {
        let members = self.component_nonempty(ctx, h, 0)?;
        let shallow = members
            .iter()
            .copied()
            .min_by_key(|&i| self.state.pieces[i].depth)
            .expect("non-empty");
        let depth = self.state.pieces[shallow].depth;
        if k < 1 || k as usize > depth {
            return Err(Diagnostic::new(codes::NO_SUCH_LOOP, format!(
                "the component has no loop {k}{purpose}: loops are numbered from 1, and statement {} is {depth} loop(s) deep",
                self.stmt_label(shallow),
            ))
            .with_label(ctx.source, ctx.call.args[1].span(), "no such loop"));
        }
        Ok(members)
    }

    fn stmt_label(&self, piece: usize) -> String {
        self.state.stmt_names[self.state.pieces[piece].stmt].clone()
    }

    fn touch(&mut self, pieces: &[usize], step: usize) {
        for &i in pieces {
            let t = &mut self.state.pieces[i].touched;
            if t.last() != Some(&step) {
                t.push(step);
            }
        }
    }
}

struct OpCtx<'a> {
    source: &'a str,
    call: &'a Call,
    frame: &'a Frame,
    step: usize,
}

/// Built-in operations (the Loopy paper's, plus `move_before`, `tile`, `hoist` and the loop marks).
pub const BUILTINS: [&str; 15] = [
    "realign",
    "move_before",
    "lift",
    "affine",
    "isplit",
    "tile",
    "hoist",
    "parallel",
    "vectorize",
    "unroll",
    "copy",
    "copy_scaled",
    "copy_written",
    "expand",
    "contract",
];

/// The largest factor `unroll` accepts (each marked loop multiplies the code size by it).
pub const MAX_UNROLL: u32 = 64;

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let c = if a[i - 1] == b[j - 1] { 0 } else { 1 };
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + c);
        }
        prev = cur;
    }
    prev[b.len()]
}
