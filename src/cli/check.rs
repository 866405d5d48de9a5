//! `loopy check`: is a script legal for a kernel? The CI gate.

use super::{CcArgs, Ctx, DiagFormat, DocHeader, SetArgs};
use crate::diag::output::{sarif, to_pretty, JsonDiagnostic};
use crate::diag::Report;
use crate::driver::load_and_run;
use crate::frontend::Options;
use crate::manifest;
use crate::script::params::Settings;
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The C file with the tagged kernel.
    #[arg(required_unless_present = "manifest")]
    pub kernel: Option<PathBuf>,
    /// The `.loopy` script.
    #[arg(required_unless_present = "manifest")]
    pub script: Option<PathBuf>,
    /// Check every (kernel, script) pair listed in a manifest (see docs/ci.md).
    #[arg(long, conflicts_with_all = ["kernel", "script", "set"])]
    pub manifest: Option<PathBuf>,
    /// When the script is illegal, also print the smallest change of the same kind that
    /// makes it legal (as `loopy suggest` does).
    #[arg(long, conflicts_with = "manifest")]
    pub suggest: bool,
    #[command(flatten)]
    pub cc: CcArgs,
    #[command(flatten)]
    pub sets: SetArgs,
    /// Output format: `text` prints reports for people on stderr; `json` prints one
    /// document (the verdict and every diagnostic) and `sarif` a SARIF 2.1.0 log, both on
    /// stdout (docs/ci.md, "Machine-readable output"). The exit code is the same in all.
    #[arg(long, value_enum, default_value_t = DiagFormat::Text, conflicts_with = "suggest")]
    pub format: DiagFormat,
}

/// `--format json` of one pair.
#[derive(serde::Serialize)]
struct PairDoc {
    #[serde(flatten)]
    header: DocHeader,
    kernel: String,
    script: String,
    /// `legal`, `illegal` or `bad-input`.
    verdict: &'static str,
    exit_code: u8,
    /// The number of dependences checked (a legal script).
    dependences: Option<usize>,
    /// The number of violations (an illegal script).
    violations: usize,
    diagnostics: Vec<JsonDiagnostic>,
}

/// `--format json` of a manifest.
#[derive(serde::Serialize)]
struct ManifestDoc {
    #[serde(flatten)]
    header: DocHeader,
    manifest: String,
    /// `passed` (every pair as expected), `failed` (some script illegal, or a must-fail
    /// script legal) or `bad-input`.
    verdict: &'static str,
    exit_code: u8,
    passed: usize,
    failed: usize,
    entries: Vec<EntryDoc>,
    /// Diagnostics about the manifest itself (it cannot be read or parsed).
    diagnostics: Vec<JsonDiagnostic>,
}

#[derive(serde::Serialize)]
struct EntryDoc {
    kernel: String,
    script: String,
    /// What the manifest expects: `legal` or `illegal`.
    expect: &'static str,
    verdict: &'static str,
    /// Whether the verdict is the one expected.
    ok: bool,
    dependences: Option<usize>,
    violations: usize,
    milliseconds: f64,
    /// With `prove = true`: `equivalent`, `not-equivalent` or `undecided` (the generated
    /// program against the kernel, `loopy equiv`'s answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<&'static str>,
    diagnostics: Vec<JsonDiagnostic>,
}

/// How one manifest entry counts.
enum Tally {
    Ok,
    Wrong,
    Error,
}

/// Prints one manifest entry's line (text format) and says how it counts.
fn tally(
    verdict: &CheckVerdict,
    e: &manifest::Entry,
    proof: Option<&str>,
    witness: Option<&Report>,
    (pair, ms): (&str, f64),
    text: bool,
    ctx: &Ctx,
) -> Tally {
    match &verdict {
        CheckVerdict::Legal { .. } if proof == Some("not-equivalent") => {
            if text {
                println!("FAILED   {pair}: legal, but the generated code is not equivalent");
                if let Some(w) = &witness {
                    eprint!("{}", w.render(ctx.color));
                }
            }
            Tally::Wrong
        }
        CheckVerdict::Legal { deps } if e.expect_legal => {
            if text {
                let proved = if proof.is_some() {
                    ", generated code proved equivalent"
                } else {
                    ""
                };
                println!("ok       {pair}: legal, {deps} dependences{proved} ({ms:.0} ms)");
            }
            Tally::Ok
        }
        CheckVerdict::Legal { .. } => {
            if text {
                println!("FAILED   {pair}: legal, but the manifest expects it to be illegal");
            }
            Tally::Wrong
        }
        CheckVerdict::Illegal { reports } if !e.expect_legal => {
            if text {
                println!(
                    "ok       {pair}: illegal as expected ({} violation(s), {ms:.0} ms)",
                    reports.len()
                );
            }
            Tally::Ok
        }
        CheckVerdict::Illegal { reports } => {
            if text {
                println!("ILLEGAL  {pair}: {} violation(s)", reports.len());
                for r in reports {
                    eprint!("{}", r.render(ctx.color));
                }
            }
            Tally::Wrong
        }
        CheckVerdict::BadInput(f) => {
            if text {
                println!("ERROR    {pair}: {}", f.diagnostic.message);
                eprint!("{}", f.render(ctx.color));
            }
            Tally::Error
        }
    }
}

/// Proves a legal entry's generated code. `equivalent`; `not-equivalent`, with the
/// witness (the verdict stays legal, the entry fails); or `undecided`, which turns the
/// verdict into bad input (the manifest asked for a proof that cannot be given).
fn prove_entry(
    e: &manifest::Entry,
    verdict: &mut CheckVerdict,
    limit: u64,
) -> (&'static str, Option<Report>) {
    match prove_one(&e.kernel, &e.script, &e.opts, &e.settings, limit) {
        Ok(p) if p.code == 0 => ("equivalent", None),
        Ok(p) if p.code == 1 => ("not-equivalent", p.report),
        Ok(crate::driver::Proof {
            report: Some(r), ..
        })
        | Err(r) => {
            *verdict = CheckVerdict::BadInput(r);
            ("undecided", None)
        }
        Ok(p) => {
            let d = crate::diag::Diagnostic::new(crate::diag::codes::EQUIV_UNDECIDED, p.summary);
            *verdict = CheckVerdict::BadInput(Report {
                diagnostic: d,
                sources: vec![],
            });
            ("undecided", None)
        }
    }
}

impl CheckVerdict {
    fn word(&self) -> &'static str {
        match self {
            CheckVerdict::Legal { .. } => "legal",
            CheckVerdict::Illegal { .. } => "illegal",
            CheckVerdict::BadInput(_) => "bad-input",
        }
    }

    fn dependences(&self) -> Option<usize> {
        match self {
            CheckVerdict::Legal { deps } => Some(*deps),
            _ => None,
        }
    }

    fn violations(&self) -> usize {
        match self {
            CheckVerdict::Illegal { reports } => reports.len(),
            _ => 0,
        }
    }

    fn reports(&self) -> &[Report] {
        match self {
            CheckVerdict::Legal { .. } => &[],
            CheckVerdict::Illegal { reports } => reports,
            CheckVerdict::BadInput(r) => std::slice::from_ref(r),
        }
    }

    fn json_diagnostics(&self) -> Vec<JsonDiagnostic> {
        self.reports()
            .iter()
            .map(JsonDiagnostic::of_report)
            .collect()
    }
}

/// The outcome of one check.
pub enum CheckVerdict {
    Legal { deps: usize },
    Illegal { reports: Vec<Report> },
    BadInput(Report),
}

/// `prove = true` of a manifest entry: generates the code of a legal pair as `apply`
/// does and decides whether it computes what the kernel computes (`loopy equiv`).
pub fn prove_one(
    kernel: &Path,
    script: &Path,
    opts: &Options,
    settings: &Settings,
    limit: u64,
) -> Result<crate::driver::Proof, Report> {
    let (k, run) = load_and_run(kernel, script, opts, settings)?;
    let g =
        crate::driver::generate_from_script(&k, &run.interp.state, &script.display().to_string())?;
    // The generated file is read as `apply -o` writes it, beside nothing: the kernel's
    // folder is searched for its includes.
    let io = |e: std::io::Error| Report {
        diagnostic: crate::diag::Diagnostic::new(
            crate::diag::codes::CANNOT_WRITE,
            format!("cannot write the generated code for the proof: {e}"),
        ),
        sources: vec![],
    };
    let dir = crate::native::WorkDir::new(None).map_err(io)?;
    let file = dir.join(
        &kernel
            .file_name()
            .map_or("kernel.c".into(), |n| n.to_string_lossy().into_owned()),
    );
    std::fs::write(&file, &g.file).map_err(io)?;
    let mut o = opts.clone();
    o.read_generated = true;
    if let Some(parent) = kernel.parent() {
        o.includes.push(parent.to_path_buf());
    }
    let others = crate::driver::Kernel::load_versions(&file, &o)?;
    // A budget of its own (the command's `--budget`), not charged to the manifest's.
    Ok(crate::presburger::budget::suspend(|| {
        crate::driver::prove(&k.scop, &others, limit, &|_| {})
    }))
}

/// Checks one pair, with `settings` for the script's parameters.
pub fn check_one(
    kernel: &Path,
    script: &Path,
    opts: &Options,
    settings: &Settings,
) -> CheckVerdict {
    let (k, run) = match load_and_run(kernel, script, opts, settings) {
        Ok(x) => x,
        Err(f) => return CheckVerdict::BadInput(f),
    };
    let v = run.check();
    if v.is_empty() {
        // What `loopy apply` would refuse for want of an iterator's value is refused here
        // the same way: check and apply never disagree on a schedule's code.
        let pieces: Vec<_> = (run.interp.state.pieces.iter())
            .map(|p| (p.stmt, p.schedule()))
            .collect();
        if let Err(d) = crate::codegen::check_determined(&k.scop, &pieces) {
            return CheckVerdict::BadInput(Report {
                diagnostic: d,
                sources: k.sources.clone(),
            });
        }
        CheckVerdict::Legal {
            deps: run.deps.len(),
        }
    } else {
        CheckVerdict::Illegal {
            reports: run.reports(&k, &v),
        }
    }
}

pub fn run(a: CheckArgs, ctx: &Ctx) -> u8 {
    if let Some(m) = &a.manifest {
        return manifest(m, &a.cc, a.format, ctx);
    }
    let (kernel, script) = (
        a.kernel.expect("clap requires it"),
        a.script.expect("clap requires it"),
    );
    let settings = match a.sets.settings() {
        Ok(s) => s,
        Err(f) => return super::fail_with(ctx, a.format, "check", &[f], 2),
    };
    let verdict = check_one(&kernel, &script, &a.cc.options(), &settings);
    if super::spent() {
        return 2;
    }
    let code = match &verdict {
        CheckVerdict::Legal { .. } => 0,
        CheckVerdict::Illegal { .. } => 1,
        CheckVerdict::BadInput(_) => 2,
    };
    match a.format {
        DiagFormat::Text => match &verdict {
            CheckVerdict::Legal { deps } => println!(
                "legal: {} preserves all {deps} dependences of {} and is one-to-one",
                script.display(),
                kernel.display()
            ),
            CheckVerdict::Illegal { reports } => {
                for r in reports {
                    eprint!("{}", r.render(ctx.color));
                }
                println!(
                    "illegal: {} ({} violation(s))",
                    script.display(),
                    reports.len()
                );
            }
            CheckVerdict::BadInput(f) => eprint!("{}", f.render(ctx.color)),
        },
        DiagFormat::Json => println!(
            "{}",
            to_pretty(&PairDoc {
                header: DocHeader::new("check"),
                kernel: kernel.display().to_string(),
                script: script.display().to_string(),
                verdict: verdict.word(),
                exit_code: code,
                dependences: verdict.dependences(),
                violations: verdict.violations(),
                diagnostics: verdict.json_diagnostics(),
            })
        ),
        DiagFormat::Sarif => println!("{}", to_pretty(&sarif(&verdict.json_diagnostics(), code))),
    }
    code
}

fn manifest(path: &Path, extra: &CcArgs, format: DiagFormat, ctx: &Ctx) -> u8 {
    let entries = match manifest::parse(path) {
        Ok(e) => e,
        Err(f) => {
            if format != DiagFormat::Json {
                return super::fail_with(ctx, format, "check", &[f], 2);
            }
            println!(
                "{}",
                to_pretty(&ManifestDoc {
                    header: DocHeader::new("check"),
                    manifest: path.display().to_string(),
                    verdict: "bad-input",
                    exit_code: 2,
                    passed: 0,
                    failed: 0,
                    entries: vec![],
                    diagnostics: vec![JsonDiagnostic::of_report(&f)],
                })
            );
            return 2;
        }
    };
    let text = format == DiagFormat::Text;
    let (mut ok, mut wrong, mut errors) = (0, 0, 0);
    let mut docs: Vec<EntryDoc> = vec![];
    // What makes the run fail (SARIF): an entry illegal as expected contributes nothing.
    let mut failing: Vec<JsonDiagnostic> = vec![];
    for mut e in entries {
        e.opts.includes.extend(extra.include.iter().cloned());
        e.opts.defines.extend(extra.define.iter().cloned());
        let start = Instant::now();
        let mut verdict = check_one(&e.kernel, &e.script, &e.opts, &e.settings);
        if super::spent() {
            return 2;
        }
        let (proof, witness) = match &verdict {
            CheckVerdict::Legal { .. } if e.prove => {
                let (p, w) = prove_entry(&e, &mut verdict, ctx.budget);
                (Some(p), w)
            }
            _ => (None, None),
        };
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let pair = format!("{} + {}", e.kernel.display(), e.script.display());
        let as_expected = match &verdict {
            CheckVerdict::Legal { .. } => e.expect_legal && proof != Some("not-equivalent"),
            CheckVerdict::Illegal { .. } => !e.expect_legal,
            CheckVerdict::BadInput(_) => false,
        };
        match tally(
            &verdict,
            &e,
            proof,
            witness.as_ref(),
            (&pair, ms),
            text,
            ctx,
        ) {
            Tally::Ok => ok += 1,
            Tally::Wrong => wrong += 1,
            Tally::Error => errors += 1,
        }
        let mut diagnostics = verdict.json_diagnostics();
        diagnostics.extend(witness.iter().map(JsonDiagnostic::of_report));
        if !as_expected {
            failing.extend(diagnostics.iter().cloned());
        }
        docs.push(EntryDoc {
            kernel: e.kernel.display().to_string(),
            script: e.script.display().to_string(),
            expect: if e.expect_legal { "legal" } else { "illegal" },
            verdict: verdict.word(),
            ok: as_expected,
            dependences: verdict.dependences(),
            violations: verdict.violations(),
            milliseconds: ms,
            proof,
            diagnostics,
        });
    }
    let code = if errors > 0 {
        2
    } else if wrong > 0 {
        1
    } else {
        0
    };
    match format {
        DiagFormat::Text => println!("{ok} passed, {} failed", wrong + errors),
        DiagFormat::Json => println!(
            "{}",
            to_pretty(&ManifestDoc {
                header: DocHeader::new("check"),
                manifest: path.display().to_string(),
                verdict: match code {
                    0 => "passed",
                    1 => "failed",
                    _ => "bad-input",
                },
                exit_code: code,
                passed: ok,
                failed: wrong + errors,
                entries: docs,
                diagnostics: vec![],
            })
        ),
        DiagFormat::Sarif => println!("{}", to_pretty(&sarif(&failing, code))),
    }
    code
}

/// `check --suggest`: the check, then for an illegal script a suggestion. Each script checked
/// gets the work budget of its own.
pub fn run_suggest(a: CheckArgs, ctx: &Ctx) -> u8 {
    let (kernel, script) = (
        a.kernel.clone().expect("clap requires it"),
        a.script.clone().expect("clap requires it"),
    );
    let opts = a.cc.options();
    let settings = match a.sets.settings() {
        Ok(s) => s,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let verdict = match crate::presburger::budget::with_budget(ctx.budget, || {
        check_one(&kernel, &script, &opts, &settings)
    }) {
        Ok(v) => v,
        Err(e) => return super::error(ctx, super::budget_diagnostic(&e)),
    };
    let CheckVerdict::Illegal { reports } = verdict else {
        return super::budgeted(ctx, || run(a, ctx));
    };
    for r in &reports {
        eprint!("{}", r.render(ctx.color));
    }
    println!(
        "illegal: {} ({} violation(s))",
        script.display(),
        reports.len()
    );
    let Ok(k) = crate::driver::Kernel::load(&kernel, &opts) else {
        return 1;
    };
    let Ok(text) = std::fs::read_to_string(&script) else {
        return 1;
    };
    let name = script.display().to_string();
    let base = script.parent().unwrap_or(Path::new(".")).to_path_buf();
    let Ok(mut run) =
        crate::presburger::budget::with_budget(ctx.budget, || crate::driver::Run::start(&k))
    else {
        return 1;
    };
    run.interp.set_settings(crate::driver::with_model(
        settings,
        &text,
        &crate::driver::native_toolchain(),
    ));
    let s = crate::suggest::suggest(&k, &mut run, &text, &name, &base, 300, ctx.budget);
    print!("{}", crate::suggest::render(&s));
    1
}
