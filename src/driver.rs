//! Ties the stages together for the commands: a kernel and a script in, a transformed
//! schedule and a verdict out. The CLI and the REPL call this; it holds no logic of the
//! stages themselves.

use crate::codegen::{self, Body};
use crate::diag::Report;
use crate::frontend::{self, Options};
use crate::model::state::{State, Step};
use crate::model::Scop;
use crate::script::interp::Interpreter;
use crate::script::params::{ModelValues, Settings};
use crate::verify::{self, Dependence, Program, Violation};
use std::path::Path;

/// What a proof that generated code computes what the original computes answers
/// (`apply --prove`, `check --manifest`'s proofs): `loopy equiv`'s exit code (0
/// equivalent, 1 not, 2 not decided), its one-line summary, and the report of a
/// difference or a refusal.
pub struct Proof {
    pub code: u8,
    pub summary: String,
    pub report: Option<Report>,
}

/// Compares the versions of a file (`Kernel::load_versions`, read with `read_generated`)
/// with `original`, under a work budget of `limit` steps, telling `on` the phases.
pub fn prove(original: &Scop, versions: &[Kernel], limit: u64, on: &dyn Fn(&str)) -> Proof {
    use crate::equiv::{self, report, Verdict};
    let bs: Vec<&Scop> = versions.iter().map(|k| &k.scop).collect();
    let (v, first, second) = equiv::check_versions(&[original], &bs, limit, on);
    let code = match v {
        Verdict::Equivalent { .. } => 0,
        Verdict::Different(_) => 1,
        Verdict::Undecided(_) => 2,
    };
    Proof {
        code,
        summary: report::summary(&v, first),
        report: report::report(&v, first, second),
    }
}

/// A kernel loaded and modelled, with the texts of the files its spans point into.
pub struct Kernel {
    pub scop: Scop,
    pub sources: Vec<(String, String)>,
    /// What the generated code may assume of the machine it is compiled for (register
    /// blocks, vector width); scalar register blocks unless the caller says more.
    pub target: codegen::Target,
    /// Generate code without the run-time test that the arrays do not overlap
    /// (`--assume-no-overlap`; `codegen::overlap`).
    pub assume_no_overlap: bool,
}

impl Kernel {
    pub fn load(path: &Path, opts: &Options) -> Result<Kernel, Report> {
        let scop = frontend::extract_file(path, opts)?;
        let mut sources: Vec<(String, String)> = vec![];
        let mut add = |file: &str| {
            if !sources.iter().any(|(n, _)| n == file) {
                if let Ok(t) = std::fs::read_to_string(file) {
                    sources.push((file.to_string(), t));
                }
            }
        };
        add(&scop.file);
        for s in &scop.statements {
            add(&s.span.file);
        }
        for t in &scop.tags {
            add(&t.span.file);
        }
        Ok(Kernel {
            scop,
            sources,
            target: codegen::Target::default(),
            assume_no_overlap: opts.assume_no_overlap,
        })
    }

    /// [`Kernel::load`], and where the region is a test between two versions of its code
    /// (`Scop::version`, read with `read_generated`), the other version too: the
    /// transformed version first.
    pub fn load_versions(path: &Path, opts: &Options) -> Result<Vec<Kernel>, Report> {
        let first = Kernel::load(path, opts)?;
        if first.scop.version.is_none() {
            return Ok(vec![first]);
        }
        let o = Options {
            version: frontend::versions::Which::Original,
            ..opts.clone()
        };
        let second = Kernel::load(path, &o)?;
        Ok(vec![first, second])
    }

    /// Models C text that needs no preprocessing (no `#include`, no macros to expand: the
    /// preprocessor is not run) as the file `name`, for tests and library use.
    pub fn from_text(name: &str, text: &str, opts: &Options) -> Result<Kernel, Report> {
        let scop = frontend::extract_preprocessed(name, text, text.to_string(), opts)?;
        Ok(Kernel {
            scop,
            sources: vec![(name.to_string(), text.to_string())],
            target: codegen::Target::default(),
            assume_no_overlap: opts.assume_no_overlap,
        })
    }

    /// The handle a generated script uses for statement `k`: a tag naming exactly that
    /// statement when there is one, else its default handle (`S0`, …).
    pub fn handle_of(&self, k: usize) -> String {
        let s = &self.scop.statements[k];
        let own = self
            .scop
            .tags
            .iter()
            .find(|t| t.statements == [k] && self.scop.positions(t).len() == 1);
        match own {
            Some(t) => t.name.clone(),
            None => s.name.clone(),
        }
    }
}

/// Loads a kernel and runs a script on it (without verifying), with `settings` for the
/// script's parameters.
pub fn load_and_run(
    kernel: &Path,
    script: &Path,
    opts: &Options,
    settings: &Settings,
) -> Result<(Kernel, Run), Report> {
    let k = Kernel::load(kernel, opts)?;
    let name = script.display().to_string();
    let text = read_script(script)?;
    let base = script.parent().unwrap_or(Path::new("."));
    let settings = with_model(settings.clone(), &text, &native_toolchain());
    let run = Run::with_settings(&k, &text, &name, base, &settings)?;
    Ok((k, run))
}

/// The text of a script file, or a report naming it.
fn read_script(script: &Path) -> Result<String, Report> {
    std::fs::read_to_string(script).map_err(|e| Report {
        diagnostic: crate::diag::Diagnostic::new(
            crate::diag::codes::CANNOT_READ,
            format!("cannot read `{}`: {e}", script.display()),
        ),
        sources: vec![],
    })
}

/// Runs the script file `prefix` on the kernel alone, as the prefix other scripts start with
/// (`search --prefix`, `slices --prefix`): its text and the run it leaves, or the report of
/// why it cannot be read or is refused.
pub fn run_prefix(kernel: &Kernel, prefix: &Path) -> Result<(String, Run), Report> {
    let text = read_script(prefix)?;
    let name = prefix.display().to_string();
    let base = prefix.parent().unwrap_or(Path::new("."));
    let run = Run::new(kernel, &text, &name, base)?;
    Ok((text, run))
}

/// The compiler and flags generated code is built with unless a command says otherwise:
/// `$CC` (else `cc`) with `-O3 -march=native`.
pub fn native_toolchain() -> crate::native::Toolchain {
    crate::native::Toolchain {
        cc: crate::native::default_cc(),
        cflags: vec!["-O3".to_string(), "-march=native".to_string()],
        ..Default::default()
    }
}

/// `settings` with the machine model's values for the script `text`'s `param NAME = model`
/// (docs/machine.md), the machine probed with `toolchain`'s compiler and flags. The machine
/// is probed only when a parameter that takes a model value is not set, and once per
/// compiler and flags in a process; a script that takes no model value gets `settings` as
/// they are. Settings that already carry probed values keep them.
pub fn with_model(
    mut settings: Settings,
    text: &str,
    toolchain: &crate::native::Toolchain,
) -> Settings {
    if settings.model.as_ref().is_some_and(|m| m.probed.is_some()) {
        return settings;
    }
    settings.model = match crate::script::params::model_use(text, &settings) {
        None => return settings,
        Some(false) => Some(ModelValues {
            probed: None,
            values: crate::machine::model::Model::names()
                .into_iter()
                .map(|n| (n, Err("not computed".to_string())))
                .collect(),
        }),
        Some(true) => Some(model_values(toolchain)),
    };
    settings
}

/// The machine model's values for `toolchain`, computed once per compiler and flags.
fn model_values(toolchain: &crate::native::Toolchain) -> ModelValues {
    static DONE: std::sync::Mutex<Vec<(Vec<String>, ModelValues)>> =
        std::sync::Mutex::new(Vec::new());
    let mut key = toolchain.cc.clone();
    key.extend(toolchain.cflags.iter().cloned());
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, v)) = done.iter().find(|(k, _)| *k == key) {
        return v.clone();
    }
    let probed = Some(key.join(" "));
    let names = crate::machine::model::Model::names();
    let values = match crate::machine::probe(toolchain, None, &Default::default()) {
        Ok(m) => {
            let model = m.model();
            names
                .into_iter()
                .map(|n| {
                    let v = match model.explain(&n) {
                        Some(Ok(v)) => i64::try_from(v)
                            .map(crate::presburger::Int::from)
                            .map_err(|_| format!("{v} is too large")),
                        Some(Err(why)) => Err(why),
                        None => Err("not a value of the model".to_string()),
                    };
                    (n, v)
                })
                .collect()
        }
        Err(r) => {
            let why = format!("the compiler could not be asked: {}", r.diagnostic.message);
            names.into_iter().map(|n| (n, Err(why.clone()))).collect()
        }
    };
    let v = ModelValues { probed, values };
    done.push((key, v.clone()));
    v
}

/// The result of running a script on a kernel.
pub struct Run {
    pub interp: Interpreter,
    pub program: Program,
    pub deps: Vec<Dependence>,
}

impl Run {
    /// Runs the script (never verifying in the middle); its parameters take their defaults.
    pub fn new(
        kernel: &Kernel,
        script_text: &str,
        script_name: &str,
        base: &Path,
    ) -> Result<Run, Report> {
        Run::with_settings(kernel, script_text, script_name, base, &Settings::default())
    }

    /// Runs the script (never verifying in the middle) with `settings` for its parameters;
    /// a setting the script does not declare is an error.
    pub fn with_settings(
        kernel: &Kernel,
        script_text: &str,
        script_name: &str,
        base: &Path,
        settings: &Settings,
    ) -> Result<Run, Report> {
        Run::run_with_hook(kernel, script_text, script_name, base, settings, None)
    }

    /// As [`Run::with_settings`], and the state after every top-level step of the script,
    /// in order, also those before a step that failed (the language server's hovers).
    pub fn with_states(
        kernel: &Kernel,
        script_text: &str,
        script_name: &str,
        base: &Path,
        settings: &Settings,
    ) -> (Result<Run, Report>, Vec<(Step, State)>) {
        let states = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let keep = states.clone();
        let hook: crate::script::interp::StepHook = Box::new(move |step: &Step, st: &State| {
            keep.borrow_mut().push((step.clone(), st.clone()))
        });
        let run = Run::run_with_hook(kernel, script_text, script_name, base, settings, Some(hook));
        let run = run.map(|mut r| {
            r.interp.on_step = None;
            r
        });
        let states = std::mem::take(&mut *states.borrow_mut());
        (run, states)
    }

    fn run_with_hook(
        kernel: &Kernel,
        script_text: &str,
        script_name: &str,
        base: &Path,
        settings: &Settings,
        hook: Option<crate::script::interp::StepHook>,
    ) -> Result<Run, Report> {
        let mut interp = Interpreter::new(State::from_scop(&kernel.scop));
        interp.set_settings(settings.clone());
        interp.on_step = hook;
        let r = interp
            .run_text(script_text, script_name, base)
            .and_then(|()| interp.check_settings_declared());
        let mut sources = kernel.sources.clone();
        sources.extend(interp.sources.iter().cloned());
        if let Err(d) = r {
            return Err(Report {
                diagnostic: d,
                sources,
            });
        }
        let program = Program::for_state(&kernel.scop, &interp.state);
        let deps = verify::dependences(&program);
        Ok(Run {
            interp,
            program,
            deps,
        })
    }

    /// A run that has applied nothing yet: the kernel's own schedules, its dependences
    /// computed once. The REPL applies script text to it one input at a time.
    pub fn start(kernel: &Kernel) -> Run {
        let program = Program::from_scop(&kernel.scop);
        let deps = verify::dependences(&program);
        Run {
            interp: Interpreter::new(State::from_scop(&kernel.scop)),
            program,
            deps,
        }
    }

    /// Applies more script text on top of the current state. On an error the failing
    /// operation has changed nothing; operations before it in the same text have run.
    pub fn apply(
        &mut self,
        kernel: &Kernel,
        script_text: &str,
        script_name: &str,
        base: &Path,
    ) -> Result<(), Report> {
        // The program's shape: each expansion's storage and the loops indexing it.
        let shape = |st: &State| -> Vec<(String, Vec<usize>)> {
            st.expansions
                .iter()
                .map(|e| (e.name.clone(), e.loops()))
                .collect()
        };
        let before = shape(&self.interp.state);
        let r = self.interp.run_text(script_text, script_name, base);
        if shape(&self.interp.state) != before {
            // The program changed (an `expand` or a `contract`): dependences on the
            // storage as it now is.
            self.program = Program::for_state(&kernel.scop, &self.interp.state);
            self.deps = verify::dependences(&self.program);
        }
        r.map_err(|d| Report {
            diagnostic: d,
            sources: self.sources(kernel),
        })
    }

    /// An error when a setting names a parameter no script applied so far declares.
    pub fn settings_declared(&self, kernel: &Kernel) -> Result<(), Report> {
        self.interp.check_settings_declared().map_err(|d| Report {
            diagnostic: d,
            sources: self.sources(kernel),
        })
    }

    /// Back to the kernel's own schedules, with no procedures or imports of the script (the
    /// dependences are kept: they do not depend on the script).
    pub fn restart(&mut self, kernel: &Kernel) {
        let settings = self.interp.settings().clone();
        let expanded = !self.interp.state.expansions.is_empty();
        self.interp = Interpreter::new(State::from_scop(&kernel.scop));
        self.interp.set_settings(settings);
        if expanded {
            self.program = Program::from_scop(&kernel.scop);
            self.deps = verify::dependences(&self.program);
        }
    }

    /// Every source a report may point into: the kernel's files and the script texts.
    pub fn sources(&self, kernel: &Kernel) -> Vec<(String, String)> {
        let mut sources = kernel.sources.clone();
        sources.extend(self.interp.sources.iter().cloned());
        sources
    }

    /// Legality of the final schedule.
    pub fn check(&self) -> Vec<Violation> {
        check_state(
            &self.program,
            &self.deps,
            &self.interp.state,
            &self.interp.history,
        )
    }

    /// A report per violation, with all sources.
    pub fn reports(&self, kernel: &Kernel, violations: &[Violation]) -> Vec<Report> {
        let sources = self.sources(kernel);
        violations
            .iter()
            .map(|v| Report {
                diagnostic: verify::report(&self.program, &self.deps, v, &self.interp.steps),
                sources: sources.clone(),
            })
            .collect()
    }
}

/// Legality of `state`, a state of the interpreter reached through the steps whose pieces
/// `history` holds (`history[0]` the kernel's own), against the dependences `deps` of
/// `program`, the program of that state's expansions: every dependence kept, the schedule
/// one-to-one, marks, copies and contractions sound.
pub fn check_state(
    program: &Program,
    deps: &[Dependence],
    state: &State,
    history: &[Vec<crate::model::state::Piece>],
) -> Vec<Violation> {
    let pieces = &state.pieces;
    let mut v = verify::check(program, deps, pieces, history);
    v.extend(
        verify::check_marks(program, deps, pieces)
            .into_iter()
            .map(|m| verify::mark_violation(program, deps, m)),
    );
    // The interpreter keeps the plans of the copies after each step.
    v.extend(
        verify::check_copies(program, &state.copy_plans, pieces)
            .into_iter()
            .map(|c| verify::copy_violation(program, c)),
    );
    // Expansions that a `contract` gave loops back.
    v.extend(verify::check_contractions(
        program,
        &state.expansions,
        pieces,
        history,
    ));
    v
}

pub use crate::presburger::budget::diagnostic as budget_diagnostic;

/// Generated code for a state of the interpreter.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The C text that replaces the modelled region (indented as the region was).
    pub region: String,
    /// The whole file with the region replaced (and, where the transformed region became
    /// a function of its own, that function inserted before the host function).
    pub file: String,
    /// Where `region` starts in `file`.
    pub region_start: usize,
    /// The function holding the transformed code, inserted before the host function,
    /// where the region calls one (`codegen::overlap`).
    pub function: Option<String>,
    /// Warnings on the code (`codegen::Code::notes`), labelled in the script.
    pub notes: Vec<crate::diag::Diagnostic>,
    /// Whether `region` starts with a preprocessor line (which must start its line).
    opens_with_pre: bool,
}

impl Generated {
    /// What to show of the generated code: the outlined function, if any, then the region.
    pub fn code(&self) -> String {
        match &self.function {
            Some(f) => format!("{f}{}", self.region),
            None => self.region.clone(),
        }
    }
}

/// Code for the kernel under the schedules of `state` (which the caller has verified).
pub fn generate(kernel: &Kernel, state: &State) -> Result<Generated, Report> {
    generate_with(kernel, state, Body::Source)
}

/// [`generate`] for `loopy apply`: the region starts with a comment naming the script it
/// came from and the tagged file it was generated from, since the tags are gone from it.
pub fn generate_from_script(
    kernel: &Kernel,
    state: &State,
    script: &str,
) -> Result<Generated, Report> {
    let g = generate(kernel, state)?;
    let tags: Vec<&str> = kernel.scop.tags.iter().map(|t| t.name.as_str()).collect();
    let tags = if tags.is_empty() {
        "none".to_string()
    } else {
        tags.join(", ")
    };
    let start = g.region_start;
    let before = &g.file[..start];
    let prefix = &before[before.rfind('\n').map_or(0, |p| p + 1)..];
    let indent = if prefix.chars().all(char::is_whitespace) {
        prefix
    } else {
        ""
    };
    let header = [
        format!("/* Generated by loopy from {script} (verified legal), applied to the"),
        format!(
            "   tagged kernel {} (tags: {tags}). This region has no tags: edit those",
            kernel.scop.file
        ),
        "   two files and generate it again. */".to_string(),
    ]
    .join(&format!("\n{indent}"));
    let first = if g.opens_with_pre { "" } else { indent };
    let region = format!("{header}\n{first}{}", g.region);
    let file = format!("{before}{region}{}", &g.file[start + g.region.len()..]);
    Ok(Generated {
        region,
        file,
        region_start: start,
        function: g.function,
        notes: g.notes,
        opens_with_pre: g.opens_with_pre,
    })
}

/// [`generate`] with a choice of statement bodies ([`Body::Trace`] for trace validation).
pub fn generate_with(kernel: &Kernel, state: &State, body: Body) -> Result<Generated, Report> {
    let fail = |d| Report {
        diagnostic: d,
        sources: kernel.sources.clone(),
    };
    let codegen::Code {
        text: code,
        names,
        program,
        notes,
    } = codegen::generate_state(&kernel.scop, state, body, &kernel.target).map_err(fail)?;
    // The program the code was generated from: the kernel's, or its expansion.
    let scop = &*program;
    let Some((_, text)) = kernel.sources.iter().find(|(n, _)| *n == scop.file) else {
        return Err(fail(crate::diag::Diagnostic::new(
            crate::diag::codes::CANNOT_READ,
            format!(
                "cannot read `{}` again to splice the generated code into it",
                scop.file
            ),
        )));
    };
    let range = scop.region.range.clone();
    // Indentation: the white space before the region on its first line.
    let line_start = text[..range.start].rfind('\n').map_or(0, |p| p + 1);
    let prefix = &text[line_start..range.start];
    let indent = if prefix.chars().all(char::is_whitespace) {
        prefix
    } else {
        ""
    };
    let (code, function) = if body == Body::Source {
        let g = codegen::overlap::guard(scop, code, &names, text, kernel.assume_no_overlap)
            .map_err(fail)?;
        (g.region, g.function)
    } else {
        (code, None)
    };
    let opens_with_pre = code.opens_with_pre();
    let region = code.placed(indent);
    let mut file = String::with_capacity(text.len() + region.len());
    match (&function, scop.host.start) {
        (Some(f), Some(at)) if at <= range.start => {
            file.push_str(&text[..at]);
            file.push_str(f);
            file.push_str(&text[at..range.start]);
        }
        _ => file.push_str(&text[..range.start]),
    }
    let region_start = file.len();
    file.push_str(&region);
    file.push_str(&text[range.end..]);
    Ok(Generated {
        region,
        file,
        region_start,
        function,
        notes,
        opens_with_pre,
    })
}
