//! One analysis of a script's text: the kernel it transforms, the run of its steps with the
//! state after each, the verdict, and the diagnostics an editor shows. Everything the server
//! answers (hover, completion, definition, repair) reads an analysis.

use super::locate::{locate, Located, NotFound};
use super::text::LineIndex;
use super::uri;
use crate::diag::{codes, Diagnostic, Report, Severity};
use crate::driver::{check_state, Kernel, Run};
use crate::model::state::{State, Step};
use crate::presburger::budget;
use crate::script::parse::parse_script;
use crate::verify::{self, Dependence, Program, Violation};
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Range,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::SystemTime;

/// Kernels already modelled, by file, options and modification time (a script is edited
/// far more often than its kernel).
#[derive(Default)]
pub struct Kernels {
    cache: HashMap<String, (Option<SystemTime>, Rc<Kernel>)>,
}

impl Kernels {
    fn load(&mut self, l: &Located) -> Result<Rc<Kernel>, Report> {
        let key = format!("{}\u{0}{:?}", l.kernel.display(), l.opts);
        let mtime = std::fs::metadata(&l.kernel).and_then(|m| m.modified()).ok();
        if let Some((t, k)) = self.cache.get(&key) {
            if *t == mtime && mtime.is_some() {
                return Ok(k.clone());
            }
        }
        let k = Rc::new(Kernel::load(&l.kernel, &l.opts)?);
        // A kernel modelled after the work budget ran out is not kept: its answers were
        // placeholders (see `presburger::budget`), and the scope reports the refusal.
        if !budget::spent() {
            self.cache.insert(key, (mtime, k.clone()));
        }
        Ok(k)
    }
}

/// A program and its dependences.
type ProgramDeps = (Program, Vec<Dependence>);

/// What one analysis found.
pub struct Analysis {
    /// The text analysed.
    pub text: String,
    /// The script's path, and the name its spans carry in reports.
    pub path: PathBuf,
    pub name: String,
    pub located: Result<Located, NotFound>,
    pub kernel: Option<Rc<Kernel>>,
    pub diagnostics: Vec<lsp_types::Diagnostic>,
    /// Each top-level step that ran, with the state after it.
    pub steps: Vec<(Step, State)>,
    /// The run of the whole script, when every step ran.
    pub run: Option<Run>,
    /// The violations of the final schedule (when the run completed and was checked).
    pub violations: Vec<Violation>,
    /// The work budget each computation gets.
    pub budget: u64,
    /// Programs and dependences by the expansions in force (computed when first needed).
    programs: RefCell<HashMap<String, Rc<ProgramDeps>>>,
    /// Legality after each step, as hovers asked for it.
    verdicts: RefCell<HashMap<usize, Rc<StepVerdict>>>,
}

/// Whether the schedule is legal after a step, and the first report when it is not.
pub enum StepVerdict {
    Legal,
    Illegal { count: usize, first: String },
    Unknown(String),
}

/// Analyses `text`, the script at `path`. `cancel` set from another thread stops the work
/// (the result is then `None`); `budget` bounds each problem of the integer core.
pub fn analyse(
    path: &Path,
    text: &str,
    kernels: &mut Kernels,
    budget_steps: u64,
    cancel: Arc<AtomicBool>,
) -> Option<Analysis> {
    let name = path.display().to_string();
    let mut a = Analysis {
        text: text.to_string(),
        path: path.to_path_buf(),
        name: name.clone(),
        located: Err(NotFound {
            message: String::new(),
            range: 0..0,
        }),
        kernel: None,
        diagnostics: vec![],
        steps: vec![],
        run: None,
        violations: vec![],
        budget: budget_steps,
        programs: RefCell::new(HashMap::new()),
        verdicts: RefCell::new(HashMap::new()),
    };
    // Syntax first: it needs no kernel.
    match parse_script(text, &name) {
        Ok(_) => {}
        Err(d) => {
            let r = Report {
                diagnostic: d,
                sources: vec![(name.clone(), text.to_string())],
            };
            a.diagnostics.push(a.convert(&r, 0..0));
            return Some(a);
        }
    }
    a.located = locate(path, text);
    let located = match &a.located {
        Ok(l) => l.clone(),
        Err(nf) => {
            let d = Diagnostic::new(codes::KERNEL_NOT_LOCATED, nf.message.clone()).with_label(
                &name,
                nf.range.clone(),
                "",
            );
            let r = Report {
                diagnostic: d,
                sources: vec![],
            };
            a.diagnostics.push(a.convert(&r, nf.range.clone()));
            return Some(a);
        }
    };
    let first_line = 0..text.find('\n').unwrap_or(text.len());
    let kernel_at = located.line.clone().unwrap_or(first_line.clone());
    let loaded = budget::with_cancel(cancel.clone(), || {
        budget::with_budget(budget_steps, || kernels.load(&located))
    });
    let kernel = match loaded {
        Ok(Ok(k)) => k,
        Ok(Err(r)) => {
            let mut d = a.convert(&r, kernel_at.clone());
            d.message = format!(
                "the kernel `{}` ({}) cannot be modelled: {}",
                located.kernel.display(),
                located.how,
                d.message
            );
            a.diagnostics.push(d);
            return Some(a);
        }
        Err(e) if e.cancelled => return None,
        Err(e) => {
            a.diagnostics.push(a.budget_diagnostic(&e, kernel_at));
            return Some(a);
        }
    };
    a.kernel = Some(kernel.clone());
    let settings = crate::driver::with_model(
        located.settings.clone(),
        text,
        &crate::driver::native_toolchain(),
    );
    let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let work = budget::with_cancel(cancel, || {
        budget::with_budget(budget_steps, || {
            let (run, steps) = Run::with_states(&kernel, text, &name, &base, &settings);
            let checked = run.map(|run| {
                let v = run.check();
                let refusal = if v.is_empty() {
                    let pieces: Vec<_> = (run.interp.state.pieces.iter())
                        .map(|p| (p.stmt, p.schedule()))
                        .collect();
                    crate::codegen::check_determined(&kernel.scop, &pieces).err()
                } else {
                    None
                };
                (run, v, refusal)
            });
            (checked, steps)
        })
    });
    let (checked, steps) = match work {
        Ok(x) => x,
        Err(e) if e.cancelled => return None,
        Err(e) => {
            a.diagnostics
                .push(a.budget_diagnostic(&e, first_line.clone()));
            return Some(a);
        }
    };
    a.steps = steps;
    match checked {
        Err(r) => {
            let d = a.convert(&r, first_line.clone());
            a.diagnostics.push(d);
        }
        Ok((run, violations, refusal)) => {
            for r in run.reports(&kernel, &violations) {
                let d = a.convert(&r, first_line.clone());
                a.diagnostics.push(d);
            }
            if let Some(d) = refusal {
                let r = Report {
                    diagnostic: d,
                    sources: run.sources(&kernel),
                };
                let d = a.convert(&r, first_line.clone());
                a.diagnostics.push(d);
            }
            let key = shape(&run.interp.state);
            a.programs
                .borrow_mut()
                .insert(key, Rc::new((run.program.clone(), run.deps.clone())));
            a.violations = violations;
            a.run = Some(run);
        }
    }
    Some(a)
}

/// The expansions in force, as a key for the program they give.
fn shape(st: &State) -> String {
    st.expansions
        .iter()
        .map(|e| format!("{}{:?}", e.name, e.loops()))
        .collect::<Vec<_>>()
        .join(";")
}

fn diagnostic(
    range: Range,
    d: &Diagnostic,
    message: String,
    related: Vec<DiagnosticRelatedInformation>,
) -> lsp_types::Diagnostic {
    lsp_types::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.id().to_string())),
        code_description: None,
        source: Some("loopy".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

impl Analysis {
    /// A report as an editor diagnostic of this script: at its first label in the script
    /// (else at `fallback`), the notes and help in the message (the witness is a note), every
    /// label elsewhere (the C file, the standard library, an import) a related location.
    pub fn convert(&self, r: &Report, fallback: std::ops::Range<usize>) -> lsp_types::Diagnostic {
        let d = &r.diagnostic;
        let ix = LineIndex::new(&self.text);
        let mine = d.labels.iter().find(|l| l.source == self.name);
        let range = mine.map_or(fallback, |l| l.range.clone());
        let mut message = d.message.clone();
        if let Some(l) = mine.filter(|l| !l.label.is_empty() && !d.message.ends_with(&l.label)) {
            message.push_str(&format!("\n{}", l.label));
        }
        for n in &d.notes {
            message.push_str(&format!("\n{n}"));
        }
        if let Some(h) = &d.help {
            message.push_str(&format!("\nhelp: {h}"));
        }
        let mut related = vec![];
        for l in &d.labels {
            if mine.is_some_and(|m| std::ptr::eq(m, l)) {
                continue;
            }
            if let Some(loc) = self.location(&l.source, &l.range, &r.sources) {
                related.push(DiagnosticRelatedInformation {
                    location: loc,
                    message: if l.label.is_empty() {
                        d.message.clone()
                    } else {
                        l.label.clone()
                    },
                });
            }
        }
        diagnostic(ix.range(&range), d, message, related)
    }

    /// The editor location of a byte range in a named source (the script, a C file, the
    /// standard library, an import).
    pub fn location(
        &self,
        source: &str,
        range: &std::ops::Range<usize>,
        sources: &[(String, String)],
    ) -> Option<Location> {
        let (path, text) = if source == self.name {
            (self.path.clone(), self.text.clone())
        } else if source == crate::script::stdlib::STD_NAME {
            (
                super::stdlib_path()?,
                crate::script::stdlib::STD_TEXT.to_string(),
            )
        } else {
            let text = sources
                .iter()
                .find(|(n, _)| n == source)
                .map(|(_, t)| t.clone())
                .or_else(|| std::fs::read_to_string(source).ok())?;
            let p = Path::new(source);
            let p = if p.is_absolute() {
                p.to_path_buf()
            } else {
                std::env::current_dir().ok()?.join(p)
            };
            (p, text)
        };
        let ix = LineIndex::new(&text);
        Some(Location {
            uri: uri::from_path(&path)?,
            range: ix.range(range),
        })
    }

    fn budget_diagnostic(
        &self,
        e: &budget::Exhausted,
        at: std::ops::Range<usize>,
    ) -> lsp_types::Diagnostic {
        let ix = LineIndex::new(&self.text);
        let d = crate::driver::budget_diagnostic(e);
        let mut message = d.message.clone();
        if let Some(h) = &d.help {
            message.push_str(&format!("\nhelp: {h}"));
        }
        diagnostic(ix.range(&at), &d, message, vec![])
    }

    /// The script parameters in force (when the whole script ran).
    pub fn run_params(&self) -> Vec<crate::script::interp::ParamValue> {
        self.run
            .as_ref()
            .map(|r| r.interp.params.clone())
            .unwrap_or_default()
    }

    /// The step whose text holds byte `at`: its index in [`Analysis::steps`].
    pub fn step_at(&self, at: usize) -> Option<usize> {
        self.steps
            .iter()
            .position(|(s, _)| s.source == self.name && s.span.start <= at && at <= s.span.end)
    }

    /// The state before step `k` (the kernel's own for the first).
    pub fn state_before(&self, k: usize) -> Option<State> {
        if k == 0 {
            return self.kernel.as_ref().map(|kn| State::from_scop(&kn.scop));
        }
        self.steps.get(k - 1).map(|(_, s)| s.clone())
    }

    /// Whether the schedule is legal after step `k` (computed once, under the budget).
    pub fn verdict_after(&self, k: usize) -> Rc<StepVerdict> {
        if let Some(v) = self.verdicts.borrow().get(&k) {
            return v.clone();
        }
        let v = Rc::new(self.compute_verdict(k));
        self.verdicts.borrow_mut().insert(k, v.clone());
        v
    }

    fn compute_verdict(&self, k: usize) -> StepVerdict {
        let (Some(kernel), Some((_, state))) = (&self.kernel, self.steps.get(k)) else {
            return StepVerdict::Unknown("the step did not run".into());
        };
        let work = budget::with_budget(self.budget, || {
            let key = shape(state);
            let pd = self.programs.borrow().get(&key).cloned();
            let pd = pd.unwrap_or_else(|| {
                let p = Program::for_state(&kernel.scop, state);
                let d = verify::dependences(&p);
                let pd = Rc::new((p, d));
                self.programs.borrow_mut().insert(key, pd.clone());
                pd
            });
            let mut history = vec![State::from_scop(&kernel.scop).pieces];
            history.extend(self.steps[..=k].iter().map(|(_, s)| s.pieces.clone()));
            let v = check_state(&pd.0, &pd.1, state, &history);
            let steps: Vec<Step> = self.steps[..=k].iter().map(|(s, _)| s.clone()).collect();
            let first = v
                .first()
                .map(|x| verify::report(&pd.0, &pd.1, x, &steps).message);
            (v.len(), first)
        });
        match work {
            Ok((0, _)) => StepVerdict::Legal,
            Ok((count, first)) => StepVerdict::Illegal {
                count,
                first: first.unwrap_or_default(),
            },
            Err(e) => StepVerdict::Unknown(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(script: &str) -> (PathBuf, String) {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(script);
        let t = std::fs::read_to_string(&p).unwrap();
        (p, t)
    }

    #[test]
    fn a_cancelled_analysis_gives_nothing() {
        let (p, t) = example("matmul/matmul.loopy");
        let mut kernels = Kernels::default();
        let flag = Arc::new(AtomicBool::new(true));
        assert!(analyse(&p, &t, &mut kernels, budget::DEFAULT, flag).is_none());
        // The same text, not cancelled: checked, legal, and every step recorded.
        let flag = Arc::new(AtomicBool::new(false));
        let a = analyse(&p, &t, &mut kernels, budget::DEFAULT, flag).unwrap();
        assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
        assert!(!a.steps.is_empty());
        assert!(matches!(
            *a.verdict_after(a.steps.len() - 1),
            StepVerdict::Legal
        ));
    }

    #[test]
    fn the_verdict_after_each_step() {
        let (p, _) = example("div/div_reverse.loopy");
        // Legal after the first step, illegal after the second.
        let t = "affine(Div, {[i] -> [i]})\naffine(Div, {[i] -> [-i]})\n";
        let mut kernels = Kernels::default();
        let a = analyse(
            &p,
            t,
            &mut kernels,
            budget::DEFAULT,
            Arc::new(AtomicBool::new(false)),
        )
        .unwrap();
        assert_eq!(a.diagnostics.len(), 1);
        assert_eq!(a.diagnostics[0].range.start.line, 1);
        assert!(matches!(*a.verdict_after(0), StepVerdict::Legal));
        assert!(matches!(
            *a.verdict_after(1),
            StepVerdict::Illegal { count: 1, .. }
        ));
        assert_eq!(a.step_at(t.find("-i").unwrap()), Some(1));
        assert_eq!(a.step_at(0), Some(0));
    }
}
