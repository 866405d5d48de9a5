//! The `loopy` command line: argument parsing and dispatch only.
//!
//! Exit codes, relied on by scripts and CI: 0 success, 1 a negative verdict where a command
//! defines one (an illegal transformation, differing outputs), 2 bad input or usage.

mod apply;
mod bench;
mod calc;
mod check;
mod deps;
mod draw;
mod equiv;
mod explain;
mod lsp;
mod machine;
mod repl;
mod search;
mod show;
mod slices;
mod suggest;
mod tune;

use crate::diag::output::{sarif, to_pretty, JsonDiagnostic};
use crate::diag::{codes, Diagnostic};
use crate::frontend::Options;
use crate::presburger::budget;
use clap::{Args, Parser, Subcommand};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Programmable, formally verified loop transformations for C kernels.
#[derive(Parser, Debug)]
#[command(name = "loopy", version, about, long_about = None)]
pub struct Cli {
    /// When to colour diagnostics.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Work budget of the integer core, in elementary steps (default 50000000, or the
    /// `LOOPY_BUDGET` environment variable). Past it a command refuses with exit 2 instead
    /// of running on; raise it for a problem that genuinely needs more.
    #[arg(long, global = true, value_name = "STEPS", value_parser = parse_budget)]
    pub budget: Option<u64>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Exact integer set calculator (isl notation): emptiness, samples, points, images,
    /// lexicographic extrema.
    #[command(subcommand)]
    Calc(calc::CalcCommand),
    /// Print the polyhedral model of a C kernel: parameters, statements, domains, accesses,
    /// tags and 2d+1 schedules.
    Show(show::ShowArgs),
    /// Verify a script against a kernel: exit 0 when legal, 1 when illegal (with a report
    /// naming the broken dependence, a witness and the script steps), 2 on bad input.
    /// `--manifest loopy.toml` checks many pairs at once (the CI gate).
    Check(check::CheckArgs),
    /// Verify a script, generate the transformed kernel and write the C file with only the
    /// modelled region replaced (to standard output, `-o OUT.c`, or `--in-place`). Exit 1
    /// without writing anything when the script is illegal.
    Apply(apply::ApplyArgs),
    /// Compile the original and the transformed program with the same compiler and flags,
    /// require identical outputs (exit 1 when they differ), then time them interleaved and
    /// report the speedup. `--manifest loopy.toml` benches many pairs and prints a table.
    Bench(Box<bench::BenchArgs>),
    /// Interactive: apply script statements one at a time and look at the schedules, the
    /// generated code and the verdict as you go (`:help` inside lists the commands).
    Repl(repl::ReplArgs),
    /// List the exact dependences of a kernel (flow, anti, output) in isl notation, with the
    /// loop that carries each.
    Deps(deps::DepsArgs),
    /// Decide whether two C regions (an original and a transformed or hand-written version)
    /// compute the same values, bit for bit, for every parameter value: exit 0 equivalent,
    /// 1 not equivalent (with a witness), 2 when undecided (the construct named).
    Equiv(equiv::EquivArgs),
    /// Draw a tag's instances at small parameter values, before and after a script: points
    /// on a grid of two iterators coloured by execution order, dependences as arrows, tiles
    /// as shaded hulls, dependences the script breaks in red (SVG). Exit 1 when the script
    /// is illegal (the picture is still written).
    Draw(draw::DrawArgs),
    /// List the valid computation slices of each segment of a kernel (a slicing loop and an
    /// alignment per statement, for `hoist`), decided exactly from the dependences, and which
    /// slices of different segments can be fused.
    Slices(slices::SlicesArgs),
    /// Search the legal schedules: count the legal outer interleavings (fusion structures),
    /// build a tilable schedule with the shortest dependence distances for each of a bounded
    /// subset of them (`--max-interleavings`),
    /// write each as a script, verify and time it, and write the fastest (`-o`). The kernel
    /// as it is is always a candidate; `--time-limit` bounds building and checking too. Exit
    /// 1 when timing was asked for and nothing could be timed (the summary says why).
    Search(Box<search::SearchArgs>),
    /// What loopy knows of this machine and the compiler flags in use: instruction set and
    /// vector width (from the compiler's predefined macros), vector registers, CPUs, caches
    /// (from sysfs), and the block sizes (MR, NR, KC, MC, NC) the analytical model of Low et
    /// al. derives from them, for double and float.
    Machine(machine::MachineArgs),
    /// For an illegal script, find the smallest change of the same kind (a skew factor, a
    /// shift, a fusion depth, skews before a tiling) that the checker accepts, and print it
    /// as script lines. Exit 0 with a suggestion (or when the script is legal already), 1
    /// without one, 2 on bad input.
    Suggest(suggest::SuggestArgs),
    /// Print the long explanation of a diagnostic code (`loopy explain L0401`): what it
    /// means, a small wrong example and how to fix it. Without a code, list every code with
    /// its title.
    Explain(explain::ExplainArgs),
    /// Tune a script's parameters on this machine: try values of its `param`s (ranges,
    /// lists, or values around the script's own), verify each candidate and compare its
    /// output with the original's, time it (screened at smaller sizes first, the best few
    /// at the sizes given), and write the script with the fastest values (`-o`). Exit 0
    /// when a candidate was timed, 1 when none was, 2 on bad input.
    Tune(Box<tune::TuneArgs>),
    /// Language server for `.loopy` scripts over standard input and output (for editors:
    /// docs/editors.md): diagnostics as you type, with the broken dependence and its witness,
    /// hovers with the schedules each step moved, completion, go to definition, and the
    /// smallest repair of an illegal step as a code action.
    Lsp(lsp::LspArgs),
}

/// Preprocessor and region options shared by the commands that read a kernel.
#[derive(Args, Debug, Clone, Default)]
pub struct CcArgs {
    /// Add a directory to the preprocessor's include path (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a macro for the preprocessor: `-D N=100` (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Model this function: its `#pragma scop` region, or its whole body without one.
    #[arg(long)]
    pub function: Option<String>,
    /// Which `#pragma scop` region when the file has several (counting from 0).
    #[arg(long, value_name = "N")]
    pub scop: Option<usize>,
    /// Generated code: assume that no two arrays of the region overlap in memory, without
    /// the run-time test that otherwise guards the transformed code (arrays reached through
    /// pointers, such as array parameters); see docs/codegen.md.
    #[arg(long)]
    pub assume_no_overlap: bool,
}

impl CcArgs {
    pub fn options(&self) -> Options {
        Options {
            includes: self.include.clone(),
            defines: self.define.clone(),
            function: self.function.clone(),
            scop: self.scop,
            assume_no_overlap: self.assume_no_overlap,
            read_generated: false,
            version: Default::default(),
        }
    }
}

/// What the commands that build the kernel into programs and run them (`bench`, `tune`,
/// `search`) add to those builds.
#[derive(Args, Debug, Clone, Default)]
pub struct ProgramArgs {
    /// A macro for the check build only (repeatable), e.g. `POLYBENCH_DUMP_ARRAYS`: what the
    /// outputs are compared on.
    #[arg(long = "check-define", value_name = "NAME[=VALUE]")]
    pub check_define: Vec<String>,
    /// Given to the compiler after the kernel, after `--`: extra sources (a PolyBench
    /// `polybench.c`), objects, libraries.
    #[arg(last = true, value_name = "EXTRA_SOURCES")]
    pub extra: Vec<String>,
}

/// What the generated code may assume of the machine (commands that generate code).
#[derive(Args, Debug, Clone, Default)]
pub struct TargetArgs {
    /// Bytes of one vector register for register blocks: 64 (AVX-512), 32 (AVX, AVX2),
    /// 16 (SSE2, NEON), 0 (scalar locals). Default: what the C compiler (`$CC`, else `cc`)
    /// defines for `-O3 -march=native`.
    #[arg(long, value_name = "BYTES")]
    pub vector_bytes: Option<u32>,
    /// Keep every copy as a buffer in memory (no register blocks).
    #[arg(long)]
    pub no_registers: bool,
}

impl TargetArgs {
    pub fn target(&self) -> crate::codegen::Target {
        let vector_bytes = self.vector_bytes.unwrap_or_else(|| {
            crate::machine::vector_bytes(&crate::native::Toolchain {
                cc: crate::native::default_cc(),
                cflags: vec!["-O3".to_string(), "-march=native".to_string()],
                includes: vec![],
                defines: vec![],
                extra: vec![],
                ldflags: vec![],
            })
            .unwrap_or(0)
        });
        crate::codegen::Target {
            vector_bytes,
            registers: !self.no_registers,
        }
    }
}

/// `--set NAME=VALUE`, shared by the commands that run a script.
#[derive(Args, Debug, Clone, Default)]
pub struct SetArgs {
    /// Give a script parameter a value: `--set MC=96` overrides `param MC = 72` in the
    /// script (repeatable). A name the script does not declare is an error.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
}

impl SetArgs {
    /// The settings, or a report pointing at the malformed one.
    pub fn settings(&self) -> Result<crate::script::params::Settings, crate::diag::Report> {
        crate::script::params::Settings::from_command_line(&self.set).map_err(|d| {
            crate::diag::Report {
                diagnostic: d,
                sources: vec![(
                    crate::script::params::COMMAND_LINE.to_string(),
                    crate::script::params::command_line_text(&self.set),
                )],
            }
        })
    }

    /// The settings of a command whose script is optional: a malformed `--set`, or a `--set`
    /// without a script (`hint` says how to give one), is printed and gives exit code 2.
    pub fn settings_if_script(
        &self,
        script_given: bool,
        hint: &str,
        ctx: &Ctx,
    ) -> Result<crate::script::params::Settings, u8> {
        let settings = self.settings().map_err(|f| {
            eprint!("{}", f.render(ctx.color));
            2u8
        })?;
        if !script_given && !settings.is_empty() {
            return Err(error(
                ctx,
                Diagnostic::new(
                    codes::INVALID_OPTION,
                    format!("`--set` gives values to a script's parameters{hint}"),
                ),
            ));
        }
        Ok(settings)
    }
}

/// Output format of the commands that can print JSON.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// Output format of the commands that report diagnostics as data (`check`, `apply`,
/// `bench`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagFormat {
    /// Reports for people, on stderr (ariadne).
    Text,
    /// One JSON document on stdout: the verdict and the diagnostics (docs/ci.md).
    Json,
    /// A SARIF 2.1.0 log on stdout, for code-scanning tools (docs/ci.md).
    Sarif,
}

/// The fields every JSON document of `--format json` starts with.
#[derive(serde::Serialize)]
pub struct DocHeader {
    pub tool: &'static str,
    pub version: &'static str,
    pub command: &'static str,
}

impl DocHeader {
    pub fn new(command: &'static str) -> DocHeader {
        DocHeader {
            tool: "loopy",
            version: env!("CARGO_PKG_VERSION"),
            command,
        }
    }
}

/// The document of a run that stopped before it had a verdict of its own (bad usage, an
/// exhausted budget): its exit code and diagnostics.
#[derive(serde::Serialize)]
struct FailureDoc {
    #[serde(flatten)]
    header: DocHeader,
    verdict: &'static str,
    exit_code: u8,
    diagnostics: Vec<JsonDiagnostic>,
}

/// Prints `diagnostics` of a run that ends with `exit_code` before any verdict, in `format`:
/// rendered on stderr, or as a JSON document or a SARIF log on stdout. Returns `exit_code`.
pub(crate) fn fail_with(
    ctx: &Ctx,
    format: DiagFormat,
    command: &'static str,
    reports: &[crate::diag::Report],
    exit_code: u8,
) -> u8 {
    let diagnostics: Vec<JsonDiagnostic> = reports.iter().map(JsonDiagnostic::of_report).collect();
    match format {
        DiagFormat::Text => {
            for r in reports {
                eprint!("{}", r.render(ctx.color));
            }
        }
        DiagFormat::Json => println!(
            "{}",
            to_pretty(&FailureDoc {
                header: DocHeader::new(command),
                verdict: "bad-input",
                exit_code,
                diagnostics,
            })
        ),
        DiagFormat::Sarif => println!("{}", to_pretty(&sarif(&diagnostics, exit_code))),
    }
    exit_code
}

/// Where the diagnostics of a command with `--format` go: rendered on stderr as they come
/// (text), or kept for the document printed at the end (JSON, SARIF).
pub(crate) struct Emitter {
    pub format: DiagFormat,
    color: bool,
    pub diagnostics: Vec<JsonDiagnostic>,
}

impl Emitter {
    pub fn new(format: DiagFormat, ctx: &Ctx) -> Emitter {
        Emitter {
            format,
            color: ctx.color,
            diagnostics: vec![],
        }
    }

    pub fn report(&mut self, r: &crate::diag::Report) {
        match self.format {
            DiagFormat::Text => eprint!("{}", r.render(self.color)),
            _ => self.diagnostics.push(JsonDiagnostic::of_report(r)),
        }
    }

    pub fn diagnostic(&mut self, d: Diagnostic) {
        self.report(&plain(d));
    }

    /// The SARIF log of what was emitted (`--format sarif`).
    pub fn print_sarif(&self, exit_code: u8) {
        println!("{}", to_pretty(&sarif(&self.diagnostics, exit_code)));
    }
}

/// A diagnostic without source text, as a report.
/// A progress line on standard error, rewritten in place, where standard error is a
/// terminal (nothing otherwise): `label: what is being done`.
pub(crate) struct Ticker {
    pub on: bool,
    pub label: String,
}

impl Ticker {
    /// A ticker for `label`, on where standard error is a terminal.
    pub fn new(label: String) -> Ticker {
        Ticker {
            on: std::io::stderr().is_terminal(),
            label,
        }
    }

    pub fn show(&self, msg: &str) {
        if self.on {
            eprint!("\r\x1b[2K{}: {msg}", self.label);
            let _ = std::io::Write::flush(&mut std::io::stderr());
        }
    }

    pub fn clear(&self) {
        if self.on {
            eprint!("\r\x1b[2K");
            let _ = std::io::Write::flush(&mut std::io::stderr());
        }
    }
}

pub(crate) fn plain(d: Diagnostic) -> crate::diag::Report {
    crate::diag::Report {
        diagnostic: d,
        sources: vec![],
    }
}

/// Prints a diagnostic that has no source text to point into (on stderr) and gives exit
/// code 2.
pub(crate) fn error(ctx: &Ctx, d: Diagnostic) -> u8 {
    eprint!("{}", d.render(&[], ctx.color));
    2
}

/// What a timed run's time is (`--time`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeArg {
    /// The modelled region alone, in both programs (a monotonic clock around it).
    Kernel,
    /// The whole process, spawn to exit.
    Process,
    /// The last line of the program's stdout (seconds; PolyBench's `-DPOLYBENCH_TIME`).
    Stdout,
}

impl TimeArg {
    pub fn clock(self) -> crate::native::Clock {
        match self {
            TimeArg::Kernel => crate::native::Clock::Kernel,
            TimeArg::Process => crate::native::Clock::Process,
            TimeArg::Stdout => crate::native::Clock::Stdout,
        }
    }
}

/// Options every command shares once parsed.
pub struct Ctx {
    pub color: bool,
    /// The integer core's work budget (see `presburger::budget`).
    pub budget: u64,
}

fn parse_budget(s: &str) -> Result<u64, String> {
    budget::parse_limit(s)
}

/// Runs a command's work under the budget; when it runs out, reports which operation on
/// which set gave up, and exits 2.
fn budgeted(ctx: &Ctx, f: impl FnOnce() -> u8) -> u8 {
    budgeted_as(ctx, DiagFormat::Text, "", f)
}

/// [`budgeted`] for a command with `--format`: the report of an exhausted budget is in
/// that format (a document of `command` on stdout for JSON and SARIF).
fn budgeted_as(ctx: &Ctx, format: DiagFormat, command: &'static str, f: impl FnOnce() -> u8) -> u8 {
    match budget::with_budget_counted(ctx.budget, f) {
        Ok((code, _)) => code,
        Err(e) => fail_with(ctx, format, command, &[plain(budget_diagnostic(&e))], 2),
    }
}

pub(crate) use crate::driver::budget_diagnostic;

/// Whether the work budget of the command ran out. Answers of the integer core within a
/// spent budget are placeholders (see `presburger::budget`), so a command asks this after
/// its work and before it prints or writes what it found; it then returns at once, and
/// [`budgeted`] reports the refusal.
fn spent() -> bool {
    budget::spent()
}

/// Runs the CLI on the process arguments.
pub fn main() -> ExitCode {
    ExitCode::from(run(std::env::args_os()))
}

/// Runs the CLI on `args` (the program's name first, as in the process arguments) and
/// answers its exit code. The unit tests run the command line through it
/// (`testing::loopy`).
pub(crate) fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let color = match cli.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    };
    let limit = match cli.budget {
        Some(n) => n,
        None => match budget::from_env() {
            Ok(n) => n,
            Err(e) => {
                let d = Diagnostic::new(codes::INVALID_OPTION, e);
                eprint!("{}", d.render(&[], color));
                return 2;
            }
        },
    };
    let ctx = Ctx {
        budget: limit,
        color,
    };
    match cli.command {
        Command::Calc(c) => calc::run(c, &ctx),
        Command::Show(a) => budgeted(&ctx, || show::run(a, &ctx)),
        // With --suggest the budget applies to each script checked separately.
        Command::Check(a) if a.suggest => check::run_suggest(a, &ctx),
        Command::Check(a) => budgeted_as(&ctx, a.format, "check", || check::run(a, &ctx)),
        Command::Deps(a) => budgeted(&ctx, || deps::run(a, &ctx)),
        Command::Equiv(a) => equiv::run(a, &ctx),
        Command::Apply(a) => budgeted_as(&ctx, a.format, "apply", || apply::run(a, &ctx)),
        Command::Bench(a) => budgeted_as(&ctx, a.format, "bench", || bench::run(*a, &ctx)),
        Command::Slices(a) => budgeted(&ctx, || slices::run(a, &ctx)),
        Command::Repl(a) => repl::run(a, &ctx),
        Command::Draw(a) => budgeted(&ctx, || draw::run(a, &ctx)),
        // The budget applies to each problem of the search separately.
        Command::Search(a) => search::run(*a, &ctx),
        Command::Suggest(a) => suggest::run(a, &ctx),
        Command::Machine(a) => machine::run(a, &ctx),
        Command::Explain(a) => explain::run(a, &ctx),
        // The budget applies to each candidate's check separately.
        Command::Tune(a) => tune::run(*a, &ctx),
        // The budget applies to each analysis separately.
        Command::Lsp(a) => lsp::run(a, &ctx),
    }
}
