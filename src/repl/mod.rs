//! The interactive loop, `loopy repl`: a [`Session`] holds a kernel and the script inputs
//! accepted so far and answers one line at a time; [`terminal`] is the thin line-editing
//! loop around it (or a plain reader when standard input is not a terminal).
//!
//! Every statement typed is applied at once through the driver. Undo, redo and reset replay
//! the accepted inputs on a fresh interpreter: the kernels are small, and replaying keeps
//! procedures and imports exactly as a saved script would have them.

pub mod diff;
pub mod terminal;

use crate::diag::codes;
use crate::diag::Report;
use crate::driver::{self, Kernel, Run};
use crate::frontend::Options;
use crate::model::render::{render_handles, render_state};
use crate::script::ast::ScriptItem;
use crate::script::interp::{BUILTINS, LOOP_OPS};
use crate::script::parse_script;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// What one line of input produced.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Output {
    /// Results, for standard output.
    pub out: String,
    /// Diagnostics, for standard error.
    pub err: String,
    /// The session is over (`:quit`).
    pub quit: bool,
}

impl Output {
    fn out(s: impl Into<String>) -> Output {
        Output {
            out: s.into(),
            ..Output::default()
        }
    }
    fn err(s: impl Into<String>) -> Output {
        Output {
            err: s.into(),
            ..Output::default()
        }
    }
}

/// One accepted input: typed text, or a script file given to `:load` or on the command line.
#[derive(Clone, Debug)]
struct Entry {
    /// The script text.
    text: String,
    /// Its source name in diagnostics (`in[3]`, or the file's path).
    name: String,
    /// Where its imports are resolved from.
    base: PathBuf,
    /// The file it was loaded from.
    file: Option<PathBuf>,
    /// Number of steps before it ran, and after.
    steps: (usize, usize),
}

/// The commands, with their one-line help (`:help`).
pub const COMMANDS: &[(&str, &str, &str)] = &[
    (":help", "", "this list"),
    (
        ":code",
        "",
        "the generated C of the kernel region for the current schedules",
    ),
    (
        ":schedule",
        "",
        "the current schedules and loop components (isl notation)",
    ),
    (
        ":tags",
        "",
        "the handles: the kernel's tags and the names the steps gave",
    ),
    (
        ":deps",
        "",
        "the kernel's dependences, with the loop that carries each",
    ),
    (
        ":check",
        "",
        "verify the steps so far (the full report when illegal)",
    ),
    (
        ":diff",
        "",
        "the generated C before and after the last input that moved something",
    ),
    (
        ":bench",
        "[OPTIONS]",
        "compile, compare and time the current state as `loopy bench` (--help: options)",
    ),
    (
        ":draw",
        "FILE [OPTS]",
        "SVG picture before and after the steps so far (--tag T --param n=8 --axes i,j --at t=1)",
    ),
    (":undo", "", "take back the last input"),
    (":redo", "", "apply again what :undo took back"),
    (
        ":reset",
        "",
        "back to the kernel's own schedules (:redo re-applies)",
    ),
    (
        ":save",
        "FILE",
        "write the inputs so far as a .loopy script for `loopy check`",
    ),
    (
        ":load",
        "FILE",
        "apply a .loopy script file (its procedures and statements)",
    ),
    (":quit", "", "leave (also :q, or end of input)"),
];

/// Runs `loopy bench` on a kernel file and a script file with the words typed after
/// `:bench` (set by the CLI, which owns the command).
pub type BenchHook = Box<dyn FnMut(&Path, &Path, &[String]) -> Output>;

/// A REPL session on one kernel.
pub struct Session {
    kernel: Kernel,
    kernel_path: PathBuf,
    run: Run,
    entries: Vec<Entry>,
    redo: Vec<Entry>,
    /// Lines of an input whose brackets are not yet balanced.
    pending: String,
    /// Inputs typed so far (names them `in[N]`).
    typed: usize,
    color: bool,
    bench: Option<BenchHook>,
}

impl Session {
    /// Loads the kernel; `color` is for diagnostics.
    pub fn new(kernel_path: &Path, opts: &Options, color: bool) -> Result<Session, Report> {
        let kernel = Kernel::load(kernel_path, opts)?;
        let run = Run::start(&kernel);
        Ok(Session {
            kernel,
            kernel_path: kernel_path.to_path_buf(),
            run,
            entries: vec![],
            redo: vec![],
            pending: String::new(),
            typed: 0,
            color,
            bench: None,
        })
    }

    /// Values for the script's parameters (`loopy repl --set`), kept by `:reset` and
    /// `:undo`.
    pub fn set_settings(&mut self, settings: crate::script::params::Settings) {
        self.run.interp.set_settings(settings);
    }

    /// An error when a `--set` names a parameter the inputs so far do not declare.
    pub fn settings_declared(&self) -> Result<(), Report> {
        self.run.settings_declared(&self.kernel)
    }

    /// What `:bench` runs.
    pub fn set_bench(&mut self, hook: BenchHook) {
        self.bench = Some(hook);
    }

    /// Steps applied so far (shown in the prompt).
    pub fn steps(&self) -> usize {
        self.run.interp.steps.len()
    }

    /// Whether the last line left brackets open (the next line continues it).
    pub fn is_continuing(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The prompt for the next line: `loopy[3]> `, or `...> ` inside an unfinished input.
    pub fn prompt(&self) -> String {
        let p = format!("loopy[{}]> ", self.steps());
        if self.is_continuing() {
            format!("{:>w$}", "...> ", w = p.len())
        } else {
            p
        }
    }

    /// One line of a greeting for a terminal.
    pub fn banner(&self) -> String {
        let tags: Vec<&str> = self
            .kernel
            .scop
            .tags
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        format!(
            "loopy repl on {}: {} statement(s), tags {}. :help lists the commands.\n",
            self.kernel_path.display(),
            self.kernel.scop.statements.len(),
            if tags.is_empty() {
                "(none)".to_string()
            } else {
                tags.join(", ")
            }
        )
    }

    /// Names worth completing: operations, procedures and handles.
    pub fn completions(&self) -> Vec<String> {
        let mut names: BTreeSet<String> = BUILTINS
            .iter()
            .chain(LOOP_OPS.iter())
            .map(|s| s.to_string())
            .collect();
        names.extend(self.run.interp.procedure_names());
        names.extend(self.run.interp.params.iter().map(|p| p.name.clone()));
        names.extend(self.run.interp.state.handles.keys().cloned());
        names.into_iter().collect()
    }

    /// Drops an unfinished multi-line input (Ctrl-C).
    pub fn cancel(&mut self) {
        self.pending.clear();
    }

    /// Handles one line of input: a command, part of a statement, or a whole one.
    pub fn handle_line(&mut self, line: &str) -> Output {
        if self.pending.is_empty() {
            let t = line.trim();
            if t.is_empty() {
                return Output::default();
            }
            if t.starts_with(':') {
                return self.command(t);
            }
        }
        self.pending.push_str(line);
        self.pending.push('\n');
        if depth(&self.pending) > 0 {
            return Output::default();
        }
        let text = std::mem::take(&mut self.pending);
        if is_blank(&text) {
            return Output::default();
        }
        self.typed_input(text)
    }

    fn typed_input(&mut self, text: String) -> Output {
        self.typed += 1;
        let entry = Entry {
            text,
            name: format!("in[{}]", self.typed),
            base: PathBuf::from("."),
            file: None,
            steps: (0, 0),
        };
        self.accept(entry)
    }

    /// End of input: an unfinished input is applied as it is (and reported).
    pub fn finish(&mut self) -> Output {
        if self.pending.is_empty() {
            return Output::default();
        }
        let text = std::mem::take(&mut self.pending);
        self.typed_input(text)
    }

    /// Applies a script file (`:load`, and the script given on the command line).
    pub fn load(&mut self, path: &Path) -> Output {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                return self.error(
                    codes::CANNOT_READ,
                    format!("cannot read `{}`: {e}", path.display()),
                )
            }
        };
        let entry = Entry {
            text,
            name: path.display().to_string(),
            base: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
            file: Some(path.to_path_buf()),
            steps: (0, 0),
        };
        self.accept(entry)
    }

    /// Applies a new input; on success it is recorded and what `:undo` took back is dropped.
    fn accept(&mut self, entry: Entry) -> Output {
        match self.apply(entry) {
            Ok(out) => {
                self.redo.clear();
                Output::out(out)
            }
            Err(err) => Output::err(err),
        }
    }

    /// Applies an input to the current state. On an error the state is as before it.
    fn apply(&mut self, mut entry: Entry) -> Result<String, String> {
        let before = self.steps();
        // `param NAME = model` in this input: the machine model, probed once.
        let settings = self.run.interp.settings().clone();
        let with = crate::driver::with_model(
            settings.clone(),
            &entry.text,
            &crate::driver::native_toolchain(),
        );
        if with != settings {
            self.run.interp.set_settings(with);
        }
        let handles: BTreeSet<String> = self.run.interp.state.handles.keys().cloned().collect();
        if let Err(f) = self
            .run
            .apply(&self.kernel, &entry.text, &entry.name, &entry.base)
        {
            let mut err = f.render(self.color);
            // The failing operation changed nothing, but earlier operations of the same
            // input may have run and its procedures been defined: go back to the inputs
            // accepted before it.
            let defines = parse_script(&entry.text, &entry.name).is_ok_and(|s| {
                s.items.iter().any(|i| {
                    matches!(
                        i,
                        ScriptItem::Def(_) | ScriptItem::Import { .. } | ScriptItem::Param(_)
                    )
                })
            });
            if self.steps() != before || defines {
                err.push_str(&self.replay());
            }
            return Err(err);
        }
        entry.steps = (before, self.steps());
        let out = self.summary(&entry, &handles);
        self.entries.push(entry);
        Ok(out)
    }

    /// Rebuilds the state from the accepted inputs. Returns a message when one of them can
    /// no longer be applied (an imported file changed): it and the inputs after it are
    /// dropped.
    fn replay(&mut self) -> String {
        self.run.restart(&self.kernel);
        let entries = std::mem::take(&mut self.entries);
        let n = entries.len();
        for (k, mut e) in entries.into_iter().enumerate() {
            let before = self.steps();
            if let Err(f) = self.run.apply(&self.kernel, &e.text, &e.name, &e.base) {
                let mut msg = f.render(self.color);
                let _ = writeln!(
                    msg,
                    "note: `{}` no longer applies; it and {} later input(s) were dropped",
                    e.name,
                    n - k - 1
                );
                self.run.restart(&self.kernel);
                let kept = std::mem::take(&mut self.entries);
                for e in kept {
                    let _ = self.run.apply(&self.kernel, &e.text, &e.name, &e.base);
                    self.entries.push(e);
                }
                return msg;
            }
            e.steps = (before, self.steps());
            self.entries.push(e);
        }
        String::new()
    }

    /// What an accepted input did: its steps, the schedules they changed, new handles and
    /// procedures.
    fn summary(&self, entry: &Entry, handles_before: &BTreeSet<String>) -> String {
        let st = &self.run.interp.state;
        let mut out = String::new();
        if let Some(f) = &entry.file {
            let _ = writeln!(out, "loaded {}", f.display());
        }
        if let Ok(script) = parse_script(&entry.text, &entry.name) {
            for item in &script.items {
                match item {
                    ScriptItem::Def(d) => {
                        let _ = writeln!(out, "defined {}", d.name.text);
                    }
                    ScriptItem::Import { path, .. } => {
                        let _ = writeln!(out, "imported {path}");
                    }
                    ScriptItem::Param(d) => {
                        if let Some(p) = self
                            .run
                            .interp
                            .params
                            .iter()
                            .find(|p| p.name == d.name.text)
                        {
                            let _ = writeln!(out, "parameter {}", p.describe());
                        }
                    }
                    ScriptItem::Stmt(_) => {}
                }
            }
        }
        let (first, last) = entry.steps;
        for step in &self.run.interp.steps[first..last] {
            let text: Vec<&str> = step.text.split_whitespace().collect();
            let _ = writeln!(out, "[{}] {}", step.number, text.join(" "));
        }
        let new_steps = first + 1..=last;
        for p in &st.pieces {
            if p.touched.iter().any(|s| new_steps.contains(s)) {
                let _ = writeln!(
                    out,
                    "    {}: {}",
                    st.stmt_names[p.stmt],
                    p.schedule().for_print()
                );
            }
        }
        let new: Vec<&str> = st
            .handles
            .keys()
            .filter(|h| !handles_before.contains(*h))
            .map(String::as_str)
            .collect();
        if !new.is_empty() {
            let _ = writeln!(out, "    new handle(s): {}", new.join(", "));
        }
        out
    }

    fn error(&self, code: crate::diag::Code, message: impl Into<String>) -> Output {
        error(self.color, code, message)
    }

    fn command(&mut self, line: &str) -> Output {
        let (cmd, arg) = match line.find(char::is_whitespace) {
            Some(k) => (&line[..k], line[k..].trim()),
            None => (line, ""),
        };
        let color = self.color;
        let no_arg = |o: Output| -> Output {
            if arg.is_empty() {
                o
            } else {
                error(
                    color,
                    codes::REPL_COMMAND,
                    format!("`{cmd}` takes no argument"),
                )
            }
        };
        match cmd {
            ":help" | ":h" | ":?" => no_arg(Output::out(help())),
            ":quit" | ":q" | ":exit" => no_arg(Output {
                quit: true,
                ..Output::default()
            }),
            ":schedule" | ":schedules" => no_arg(Output::out(render_state(&self.run.interp.state))),
            ":tags" | ":handles" => no_arg(Output::out(render_handles(
                &self.run.interp.state,
                &self.run.sources(&self.kernel),
            ))),
            ":deps" => no_arg(Output::out(crate::verify::deps::render_deps(
                &self.kernel.scop,
                &self.run.deps,
            ))),
            ":check" => no_arg(self.check()),
            ":code" => no_arg(self.code()),
            ":diff" => no_arg(self.diff()),
            ":bench" => self.bench(arg),
            ":draw" => self.draw(arg),
            ":undo" => no_arg(self.undo()),
            ":redo" => no_arg(self.redo()),
            ":reset" => no_arg(self.reset()),
            ":save" => match file_arg(arg) {
                Some(f) => self.save(&f),
                None => self.error(codes::REPL_COMMAND, "usage: :save FILE"),
            },
            ":load" => match file_arg(arg) {
                Some(f) => self.load(&f),
                None => self.error(codes::REPL_COMMAND, "usage: :load FILE"),
            },
            _ => {
                let mut msg = format!("unknown command `{cmd}`");
                if let Some(c) = COMMANDS
                    .iter()
                    .map(|(c, _, _)| *c)
                    .find(|c| c.starts_with(cmd) || cmd.starts_with(c))
                {
                    let _ = write!(msg, "; did you mean `{c}`?");
                }
                msg.push_str(" (:help lists the commands)");
                self.error(codes::REPL_COMMAND, msg)
            }
        }
    }

    fn check(&self) -> Output {
        let v = self.run.check();
        if v.is_empty() {
            return Output::out(format!(
                "legal: the {} step(s) preserve all {} dependences and the schedule is one-to-one\n",
                self.steps(),
                self.run.deps.len()
            ));
        }
        let mut o = Output::default();
        for r in self.run.reports(&self.kernel, &v) {
            o.err.push_str(&r.render(self.color));
        }
        let _ = writeln!(o.out, "illegal: {} violation(s)", v.len());
        o
    }

    fn code(&self) -> Output {
        match driver::generate(&self.kernel, &self.run.interp.state) {
            Ok(g) => {
                let mut o = Output::out(unindent(&g.code()));
                for d in g.notes {
                    let r = Report {
                        diagnostic: d,
                        sources: self.run.sources(&self.kernel),
                    };
                    o.err.push_str(&r.render(self.color));
                }
                o
            }
            Err(mut f) => {
                // Marks that cannot be generated point into the inputs.
                f.sources = self.run.sources(&self.kernel);
                Output::err(f.render(self.color))
            }
        }
    }

    fn diff(&self) -> Output {
        let Some(last) = self.entries.iter().rev().find(|e| e.steps.1 > e.steps.0) else {
            return Output::out("no step yet\n");
        };
        let mut before = self.run.interp.state.clone();
        before.pieces = self.run.interp.history[last.steps.0].clone();
        // The copies' plans follow the pieces (planned when that step ran, so this succeeds).
        if let Err(d) = crate::plan::copy::plan_copies(&mut before) {
            let f = Report {
                diagnostic: d,
                sources: self.kernel.sources.clone(),
            };
            return Output::err(f.render(self.color));
        }
        let old = match driver::generate(&self.kernel, &before) {
            Ok(g) => unindent(&g.code()),
            Err(f) => return Output::err(f.render(self.color)),
        };
        let new = match driver::generate(&self.kernel, &self.run.interp.state) {
            Ok(g) => unindent(&g.code()),
            Err(f) => return Output::err(f.render(self.color)),
        };
        let d = diff::unified(
            &old,
            &new,
            &format!("before step {}", last.steps.0 + 1),
            &format!("after step {}", last.steps.1),
            3,
        );
        if d.is_empty() {
            Output::out("the generated code did not change\n")
        } else {
            Output::out(d)
        }
    }

    /// The inputs so far written to a temporary script, benched as a file would be.
    fn bench(&mut self, options: &str) -> Output {
        let words = match split_words(options) {
            Ok(w) => w,
            Err(e) => return self.error(codes::REPL_COMMAND, e),
        };
        let dir = std::env::temp_dir().join(format!("loopy-repl-{}", std::process::id()));
        let script = dir.join("session.loopy");
        if let Err(e) = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&script, self.script(&script)))
        {
            return self.error(
                codes::CANNOT_WRITE,
                format!("cannot write `{}`: {e}", script.display()),
            );
        }
        let o = match self.bench.as_mut() {
            Some(hook) => hook(&self.kernel_path, &script, &words),
            None => self.error(codes::REPL_COMMAND, ":bench is not available here"),
        };
        let _ = std::fs::remove_dir_all(&dir);
        o
    }

    fn undo(&mut self) -> Output {
        let Some(e) = self.entries.pop() else {
            return Output::out("nothing to undo\n");
        };
        let mut o = Output::err(self.replay());
        let _ = writeln!(
            o.out,
            "undid {}; now at step {}",
            describe(&e),
            self.steps()
        );
        self.redo.push(e);
        o
    }

    fn redo(&mut self) -> Output {
        let Some(e) = self.redo.pop() else {
            return Output::out("nothing to redo\n");
        };
        match self.apply(e) {
            Ok(out) => Output::out(out),
            Err(err) => Output::err(err),
        }
    }

    fn reset(&mut self) -> Output {
        let n = self.entries.len();
        while let Some(e) = self.entries.pop() {
            self.redo.push(e);
        }
        self.run.restart(&self.kernel);
        Output::out(format!(
            "back to the kernel's schedules ({n} input(s) taken back; :redo re-applies them one by one)\n"
        ))
    }

    /// The accepted inputs as one script to be written at `path`: a header, then each
    /// input's text, with the paths of imports made relative to where the script is.
    pub fn script(&self, path: &Path) -> String {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let sets: String = self
            .run
            .interp
            .settings()
            .to_args()
            .iter()
            .map(|w| format!(" {w}"))
            .collect();
        let mut s = format!(
            "# loopy repl session on {k}: {} step(s)\n# check with: loopy check {k} {}{sets}\n",
            self.steps(),
            path.display(),
            k = self.kernel_path.display(),
        );
        let params = &self.run.interp.params;
        if !params.is_empty() {
            let all: Vec<String> = params.iter().map(|p| p.describe()).collect();
            let _ = writeln!(s, "# parameters in force: {}", all.join(", "));
        }
        for (k, e) in self.entries.iter().enumerate() {
            // Blank lines around loaded files and blocks, none between one-line inputs.
            let long = |e: &Entry| e.file.is_some() || e.text.trim().contains('\n');
            if k == 0 || long(e) || long(&self.entries[k - 1]) {
                s.push('\n');
            }
            if let Some(f) = &e.file {
                let _ = writeln!(s, "# :load {}", f.display());
            }
            let text = rebase_imports(&e.text, &e.name, &e.base, dir);
            s.push_str(text.trim_end());
            s.push('\n');
        }
        s
    }

    /// `:draw FILE [--tag T] [--param n=8] [--axes i,j] [--at t=1]`.
    fn draw(&self, arg: &str) -> Output {
        let Some((file, opts)) = crate::draw::DrawOptions::from_repl_words(arg) else {
            return self.error(
                codes::REPL_COMMAND,
                "usage: :draw FILE [--tag T] [--param n=8] [--axes i,j] [--at t=1]",
            );
        };
        let picture = match crate::draw::picture(&self.kernel, &self.run, true, &opts) {
            Ok(p) => p,
            Err(d) => {
                let f = Report {
                    diagnostic: d,
                    sources: self.run.sources(&self.kernel),
                };
                return Output::err(f.render(self.color));
            }
        };
        match std::fs::write(&file, crate::draw::svg(&picture)) {
            Ok(()) => {
                let mut o = Output::out(format!(
                    "drew {} instance(s) to {}\n",
                    picture.panels[0].dots.len(),
                    file.display()
                ));
                if picture.broken > 0 {
                    o.out.push_str(&format!(
                        "{} dependence(s) broken among them (red); :check reports why\n",
                        picture.broken
                    ));
                }
                o
            }
            Err(e) => self.error(
                codes::CANNOT_WRITE,
                format!("cannot write `{}`: {e}", file.display()),
            ),
        }
    }

    fn save(&self, path: &Path) -> Output {
        match std::fs::write(path, self.script(path)) {
            Ok(()) => Output::out(format!(
                "saved {} input(s), {} step(s) to {}\n",
                self.entries.len(),
                self.steps(),
                path.display()
            )),
            Err(e) => self.error(
                codes::CANNOT_WRITE,
                format!("cannot write `{}`: {e}", path.display()),
            ),
        }
    }
}

/// A coded diagnostic without source text, as the session prints it.
fn error(color: bool, code: crate::diag::Code, message: impl Into<String>) -> Output {
    Output::err(crate::diag::Diagnostic::new(code, message).render(&[], color))
}

fn help() -> String {
    let mut s = String::from(
        "Type script statements (realign, lift, affine, isplit, tile, procedures, def, import, param); \
         each is applied at once.\n",
    );
    let name = |c: &str, arg: &str| {
        if arg.is_empty() {
            c.to_string()
        } else {
            format!("{c} {arg}")
        }
    };
    let w = COMMANDS
        .iter()
        .map(|(c, a, _)| name(c, a).len())
        .max()
        .unwrap_or(0);
    for (c, arg, what) in COMMANDS {
        let _ = writeln!(s, "  {:<w$}  {what}", name(c, arg));
    }
    s
}

/// Generated code from column 0: the region's lines after the first carry the indentation
/// of the region in the file (preprocessor lines excepted), which is taken off again.
fn unindent(region: &str) -> String {
    let mut lines = region.lines();
    let first = lines.next().unwrap_or("");
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .min_by_key(|w| w.len())
        .unwrap_or("");
    let mut out = format!("{first}\n");
    for l in rest {
        out.push_str(l.strip_prefix(indent).unwrap_or(l));
        out.push('\n');
    }
    out
}

fn describe(e: &Entry) -> String {
    match &e.file {
        Some(f) => format!(":load {}", f.display()),
        None => {
            let words: Vec<&str> = e.text.split_whitespace().collect();
            let mut t = words.join(" ");
            if t.chars().count() > 60 {
                t = t.chars().take(57).collect::<String>() + "...";
            }
            format!("`{t}`")
        }
    }
}

/// The argument of `:save`/`:load`, without surrounding quotes.
fn file_arg(arg: &str) -> Option<PathBuf> {
    let a = arg.trim();
    let a = a
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(a);
    (!a.is_empty()).then(|| PathBuf::from(a))
}

/// Words as a shell splits them: white space separates, quotes group (`--cflags "-O2 -g"`).
fn split_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = vec![];
    let mut cur: Option<String> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(x) => w.push(x),
                        None => return Err(format!("unclosed {c} in the options")),
                    }
                }
            }
            c if c.is_whitespace() => words.extend(cur.take()),
            c => cur.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(cur);
    Ok(words)
}

/// Open brackets at the end of `text` (comments and strings skipped).
fn depth(text: &str) -> i64 {
    let mut d = 0i64;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '#' => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '"' => {
                for c in chars.by_ref() {
                    if c == '"' || c == '\n' {
                        break;
                    }
                }
            }
            '(' | '[' | '{' => d += 1,
            ')' | ']' | '}' => d -= 1,
            _ => {}
        }
    }
    d
}

/// Only white space and comments.
fn is_blank(text: &str) -> bool {
    text.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t.starts_with("//")
    })
}

/// `text` with each `import "p"` rewritten so that it names the same file from `dir`.
fn rebase_imports(text: &str, name: &str, base: &Path, dir: &Path) -> String {
    let Ok(script) = parse_script(text, name) else {
        return text.to_string();
    };
    let (Ok(base), Ok(dir)) = (base.canonicalize(), dir.canonicalize()) else {
        return text.to_string();
    };
    if base == dir {
        return text.to_string();
    }
    let mut out = text.to_string();
    let mut imports: Vec<(std::ops::Range<usize>, &str)> = script
        .items
        .iter()
        .filter_map(|i| match i {
            ScriptItem::Import { path, span } if Path::new(path).is_relative() => {
                Some((span.clone(), path.as_str()))
            }
            _ => None,
        })
        .collect();
    imports.sort_by_key(|(s, _)| std::cmp::Reverse(s.start));
    for (span, path) in imports {
        let target = base.join(path);
        let target = target.canonicalize().unwrap_or(target);
        let new = relative(&target, &dir).display().to_string();
        let Some(src) = text.get(span.clone()) else {
            continue;
        };
        let (Some(q0), Some(q1)) = (src.find('"'), src.rfind('"')) else {
            continue;
        };
        if q1 > q0 {
            out.replace_range(span.start + q0..=span.start + q1, &format!("\"{new}\""));
        }
    }
    out
}

/// `target` as a path from `dir` (both absolute): `../lib/x.loopy`.
fn relative(target: &Path, dir: &Path) -> PathBuf {
    let t: Vec<_> = target.components().collect();
    let d: Vec<_> = dir.components().collect();
    let common = t.iter().zip(&d).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return target.to_path_buf();
    }
    let mut p = PathBuf::new();
    for _ in common..d.len() {
        p.push("..");
    }
    for c in &t[common..] {
        p.push(c);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Completion knows the operation `unroll` and the procedures built on it.
    #[test]
    fn unroll_is_completed() {
        let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/matmul/matmul.c");
        let s = Session::new(&kernel, &crate::frontend::Options::default(), false)
            .unwrap_or_else(|f| panic!("{}", f.diagnostic.message));
        let names = s.completions();
        for n in ["unroll", "unroll_jam", "register_tile"] {
            assert!(names.iter().any(|x| x == n), "{n} not completed: {names:?}");
        }
    }

    #[test]
    fn generated_code_from_column_0() {
        let r = "for (i = 0; i < n; i++) {\n    S(i);\n  }\n#define X 1\n  T();";
        assert_eq!(
            unindent(r),
            "for (i = 0; i < n; i++) {\n  S(i);\n}\n#define X 1\nT();\n"
        );
        assert_eq!(unindent("S();"), "S();\n");
    }

    #[test]
    fn option_words() {
        assert_eq!(
            split_words(r#"--runs 1 --cflags "-O2 -g" -D 'N=1 0' x"y""#).unwrap(),
            ["--runs", "1", "--cflags", "-O2 -g", "-D", "N=1 0", "xy"]
        );
        assert_eq!(split_words("--cflags \"\"").unwrap(), ["--cflags", ""]);
        assert!(split_words("\"open").is_err());
    }

    #[test]
    fn relative_paths() {
        let r = |t: &str, d: &str| relative(Path::new(t), Path::new(d)).display().to_string();
        assert_eq!(r("/a/b/x.loopy", "/a/b"), "x.loopy");
        assert_eq!(r("/a/lib/x.loopy", "/a/out/deep"), "../../lib/x.loopy");
        assert_eq!(r("/x.loopy", "/a"), "../x.loopy");
    }

    #[test]
    fn brackets_and_comments() {
        assert_eq!(depth("def f(l) {"), 1);
        assert_eq!(depth("def f(l) { # }\n"), 1);
        assert_eq!(depth("affine(L, {[i] -> [i]})"), 0);
        assert_eq!(depth("import \"a{.loopy\""), 0);
        assert_eq!(depth("x // (\n"), 0);
        assert!(is_blank("  # note\n\n// x\n"));
        assert!(!is_blank("tile(L, [2])\n"));
    }
}
