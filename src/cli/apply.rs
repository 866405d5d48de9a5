//! `loopy apply`: verify a script, generate the transformed kernel and write the file with
//! only the modelled region replaced.

use super::{CcArgs, Ctx, DiagFormat, DocHeader, Emitter, SetArgs};
use crate::diag::output::{to_pretty, JsonDiagnostic};
use crate::diag::{codes, Diagnostic};
use crate::driver;
use crate::driver::load_and_run;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ApplyArgs {
    /// The C file with the tagged kernel.
    pub kernel: PathBuf,
    /// The `.loopy` script.
    pub script: PathBuf,
    /// Where to write the transformed file (default: standard output). Written atomically:
    /// to a temporary file beside it, then renamed (through a symbolic link to the file it
    /// names; a device or a pipe, such as /dev/null, is written in place).
    #[arg(short, long, value_name = "OUT.c")]
    pub output: Option<PathBuf>,
    /// Replace the kernel file itself (never done without this flag).
    #[arg(long, conflicts_with = "output")]
    pub in_place: bool,
    /// Print only the generated code of the region, not the whole file (preceded by the
    /// function holding the transformed code, where the region calls one).
    #[arg(long)]
    pub region_only: bool,
    #[command(flatten)]
    pub cc: CcArgs,
    #[command(flatten)]
    pub target: super::TargetArgs,
    #[command(flatten)]
    pub sets: SetArgs,
    /// How diagnostics are reported: `text` on stderr; `json` (a document with the verdict
    /// and the diagnostics) or `sarif` (a SARIF 2.1.0 log) on stdout, which then needs
    /// `-o` or `--in-place` for the transformed file (docs/ci.md).
    #[arg(long, value_enum, default_value_t = DiagFormat::Text)]
    pub format: DiagFormat,
    /// After writing the file (`-o` or `--in-place`), prove the generated region equivalent
    /// to the original with `loopy equiv` and print the verdict: exit 1 when it is not
    /// equivalent, 2 when it is not decided (docs/equiv.md).
    #[arg(long)]
    pub prove: bool,
}

/// `apply --format json`.
#[derive(serde::Serialize)]
struct ApplyDoc {
    #[serde(flatten)]
    header: DocHeader,
    kernel: String,
    script: String,
    /// `legal` (the file was generated), `illegal`, or `bad-input`.
    verdict: &'static str,
    exit_code: u8,
    /// The file written, when one was.
    output: Option<String>,
    diagnostics: Vec<JsonDiagnostic>,
}

pub fn run(a: ApplyArgs, ctx: &Ctx) -> u8 {
    let mut em = Emitter::new(a.format, ctx);
    let mut written = None;
    let code = apply(&a, &mut em, &mut written, ctx.budget);
    if super::spent() {
        return 2;
    }
    match a.format {
        DiagFormat::Text => {}
        DiagFormat::Json => println!(
            "{}",
            to_pretty(&ApplyDoc {
                header: DocHeader::new("apply"),
                kernel: a.kernel.display().to_string(),
                script: a.script.display().to_string(),
                verdict: match code {
                    0 => "legal",
                    1 => "illegal",
                    _ => "bad-input",
                },
                exit_code: code,
                output: written.map(|p: PathBuf| p.display().to_string()),
                diagnostics: em.diagnostics,
            })
        ),
        DiagFormat::Sarif => em.print_sarif(code),
    }
    code
}

/// Verifies, generates and writes; the diagnostics go to `em`, the file written to
/// `written`. Returns the exit code.
fn apply(a: &ApplyArgs, em: &mut Emitter, written: &mut Option<PathBuf>, budget: u64) -> u8 {
    if a.prove && a.output.is_none() && !a.in_place {
        em.diagnostic(
            Diagnostic::new(codes::INVALID_OPTION, "`--prove` reads the file it wrote")
                .with_help("write the transformed file with `-o OUT.c` or `--in-place`"),
        );
        return 2;
    }
    if a.format != DiagFormat::Text && a.output.is_none() && !a.in_place {
        em.diagnostic(
            Diagnostic::new(
                codes::INVALID_OPTION,
                "`--format json` and `--format sarif` print the report on standard output",
            )
            .with_help("write the transformed file with `-o OUT.c` or `--in-place`"),
        );
        return 2;
    }
    let mut fail = |f: &crate::diag::Report| {
        em.report(f);
        2
    };
    let settings = match a.sets.settings() {
        Ok(s) => s,
        Err(f) => return fail(&f),
    };
    let loaded = load_and_run(&a.kernel, &a.script, &a.cc.options(), &settings);
    if super::spent() {
        return 2;
    }
    let (mut kernel, run) = match loaded {
        Ok(x) => x,
        Err(f) => return fail(&f),
    };
    kernel.target = a.target.target();
    let violations = run.check();
    if super::spent() {
        return 2;
    }
    if !violations.is_empty() {
        for r in run.reports(&kernel, &violations) {
            em.report(&r);
        }
        em.diagnostic(Diagnostic::new(
            codes::SCRIPT_ILLEGAL,
            format!(
                "{} is illegal for {} ({} violation(s)); nothing was written",
                a.script.display(),
                a.kernel.display(),
                violations.len()
            ),
        ));
        return 1;
    }
    // The header names the script, with the values set from outside it and those taken
    // from the machine model (reproducible on another machine).
    let mut script = a.script.display().to_string();
    for w in settings.to_args() {
        script.push(' ');
        script.push_str(&w);
    }
    for p in run.interp.params.iter().filter(|p| p.model.is_some()) {
        script.push_str(&format!(" --set {}={}", p.name, p.value));
    }
    let generated = driver::generate_from_script(&kernel, &run.interp.state, &script);
    if super::spent() {
        return 2;
    }
    let g = match generated {
        Ok(g) => g,
        Err(mut f) => {
            // Marks that cannot be generated point into the script.
            f.sources.extend(run.interp.sources.iter().cloned());
            em.report(&f);
            return 2;
        }
    };
    // Copies small enough for registers that stay in memory: warnings at the script.
    for d in &g.notes {
        let mut sources = kernel.sources.clone();
        sources.extend(run.interp.sources.iter().cloned());
        em.report(&crate::diag::Report {
            diagnostic: d.clone(),
            sources,
        });
    }
    let text = if a.region_only {
        format!("{}\n", g.code())
    } else {
        g.file
    };
    let target = if a.in_place {
        Some(a.kernel.clone())
    } else {
        a.output.clone()
    };
    let Some(out) = target else {
        print!("{text}");
        return 0;
    };
    if !a.in_place && same_file(&out, &a.kernel) {
        em.diagnostic(Diagnostic::new(
            codes::INVALID_OPTION,
            format!(
                "`{}` is the kernel itself; pass --in-place to overwrite it",
                out.display()
            ),
        ));
        return 2;
    }
    match write_atomically(&out, &text) {
        Ok(()) => {
            eprintln!(
                "wrote {} ({} legal, region regenerated)",
                out.display(),
                a.script.display()
            );
            if a.in_place {
                in_place_note(&kernel, &a.kernel, &a.script);
            }
            let code = if a.prove {
                prove(&kernel, &out, a, em, budget)
            } else {
                0
            };
            *written = Some(out);
            code
        }
        Err(e) => {
            em.diagnostic(Diagnostic::new(
                codes::CANNOT_WRITE,
                format!("cannot write `{}`: {e}", out.display()),
            ));
            2
        }
    }
}

/// `--prove`: the file just written against the original's model.
fn prove(kernel: &driver::Kernel, out: &Path, a: &ApplyArgs, em: &mut Emitter, budget: u64) -> u8 {
    let mut opts = crate::frontend::Options {
        read_generated: true,
        ..a.cc.options()
    };
    // The written file keeps the kernel's `#include "…"` lines, which the preprocessor
    // looks for beside it: the kernel's folder is searched after the user's.
    if let Some(parent) = a.kernel.parent().filter(|p| !p.as_os_str().is_empty()) {
        opts.includes.push(parent.to_path_buf());
    }
    let loaded = driver::Kernel::load_versions(out, &opts);
    if super::spent() {
        return 2;
    }
    let others = match loaded {
        Ok(k) => k,
        Err(f) => {
            em.report(&f);
            return 2;
        }
    };
    let ticker = super::Ticker::new(format!("proving {}", out.display()));
    let proof = driver::prove(&kernel.scop, &others, budget, &|m| ticker.show(m));
    ticker.clear();
    if super::spent() {
        return 2;
    }
    eprintln!("{}", proof.summary);
    if let Some(r) = &proof.report {
        em.report(r);
    }
    proof.code
}

/// After `--in-place`: the tags are gone, so the script can never be checked against the
/// file again; the workflow that keeps them.
fn in_place_note(kernel: &driver::Kernel, file: &Path, script: &Path) {
    let tags: Vec<&str> = kernel.scop.tags.iter().map(|t| t.name.as_str()).collect();
    let gen = file.with_extension("gen.c");
    eprintln!(
        "note: the tags ({}) are gone from {f}: the generated region has no labels, so {s} can \
         no longer be checked or applied against it (recover the tagged file from version \
         control).\n\
         help: keep the tagged file as the source and make the transformed file a build \
         product: `loopy apply {f} {s} -o {g}` (a Makefile rule and a CMake snippet are in \
         docs/codegen.md, \"The tagged file stays the source\")",
        tags.join(", "),
        f = file.display(),
        s = script.display(),
        g = gen.display(),
    );
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Writes to a temporary file in the same directory and renames it over `path`, so that a
/// reader never sees half a file and a failure leaves the old file as it was. A symbolic
/// link is followed (the file it names is replaced; the link stays), and a path that is
/// neither a regular file nor a directory (`-o /dev/null`, `/dev/stdout`, a named pipe) is
/// written in place: renaming over it would put a regular file where the device or the pipe
/// was.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let resolved = std::fs::canonicalize(path).ok();
    let path = resolved.as_deref().unwrap_or(path);
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() && !m.is_dir() {
            let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
            return f.write_all(text.as_bytes());
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out.c".into());
    let tmp = dir.join(format!(".{name}.loopy-{}.tmp", std::process::id()));
    let r = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        // Keep the permissions of a file being replaced.
        if let Ok(m) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, m.permissions())?;
        }
        std::fs::rename(&tmp, path)
    })();
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}
