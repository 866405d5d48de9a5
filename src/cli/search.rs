//! `loopy search`: arguments and printing; the search itself is `search::driver`
//! (docs/search.md).

use super::{CcArgs, Ctx, Format, ProgramArgs, TimeArg};
use crate::bench::{secs, Job};
use crate::driver::Kernel;
use crate::model::json;
use crate::native::{compile::split_words, Plan, Toolchain};
use crate::search::driver::{self, Event, SearchSettings};
use crate::timing::{Measured, Verdict};
use clap::Args;
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// The C file with the kernel (a complete program, for timing; what else it needs to
    /// link, such as PolyBench's `polybench.c`, goes after `--`).
    pub kernel: PathBuf,
    /// Write the best script found here: the fastest one timed (a script of one comment
    /// when no candidate beat the original); with `--no-bench`, the one the search ranks
    /// first without timing (the first legal recipe, the hoisting recipe only where the
    /// model finds the schedules no cheaper than the kernel's own loops; else the cost
    /// model's cheapest legal schedule, tiled where the model finds the tiles cheaper, with
    /// the size it finds cheapest, each tiled band's innermost loop split where legal).
    #[arg(short = 'o', value_name = "BEST.loopy")]
    pub output: Option<PathBuf>,
    /// Time limit of the whole search in seconds, computing the space, building and checking
    /// the schedules included: at the limit the search stops building and checking and
    /// answers with what it has found (saying so), and no timing starts that would not end
    /// by then, judging by the timings so far. Not `--budget`: that is the integer core's
    /// work budget, as for every command.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    pub time_limit: f64,
    /// Build and verify the candidates of every interleaving scheduled (and their tiled
    /// variants with the first tile size, with and without their innermost loops split)
    /// without compiling or timing anything.
    #[arg(long)]
    pub no_bench: bool,
    /// What the cost model's parts weigh: `measured` by micro-benchmarks built with the
    /// compiler and flags given (under a second: an element of a vectorized loop, the start
    /// of a short loop, a line from each cache level and from memory; `loopy machine
    /// --measure` prints them), `fixed` (1, 8, 2, 4 and 10 cycles), or `auto`: measured when
    /// the search times candidates, fixed with `--no-bench` (whose answer is then the same on
    /// every run).
    #[arg(long, value_name = "MODE", value_enum, default_value_t = WeightsArg::Auto)]
    pub weights: WeightsArg,
    /// Schedule at most this many of the legal outer interleavings (all are counted; when
    /// there are more, the kernel's own and evenly spaced ones in enumeration order).
    #[arg(long, value_name = "N", default_value_t = 48)]
    pub max_interleavings: usize,
    /// Tile sizes to try on each permutable band (comma-separated; the first is the one
    /// tried first and the one `--no-bench` checks every schedule with; its answer has the
    /// one the cost model finds cheapest). Default: the values `loopy tune` tries
    /// around the machine model's size (three square tiles of doubles in half the L1 data
    /// cache; 32 when the L1 is unknown): x 1/2, 3/4, 1, 5/4, 3/2, 2.
    #[arg(long, value_name = "SIZES", value_delimiter = ',')]
    pub tile_sizes: Vec<u32>,
    /// Screen candidates with the integer `-D` sizes multiplied by this fraction, and time
    /// only the best few again at the sizes given (1: time every candidate at those sizes).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.5)]
    pub screen: f64,
    /// Screen only when the original runs at least this long (seconds) at the sizes given:
    /// the first schedule is timed there first.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.5)]
    pub screen_above: f64,
    /// How many of the best screened candidates are timed at the sizes given, and how many
    /// of the best timed candidates play the playoff.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub finalists: usize,
    /// The playoff: the best `--finalists` candidates at the sizes given and the kernel as it
    /// is (the original against its own loops regenerated: what the spread alone gives) are
    /// timed this many times more, in turn, and the answer is chosen among them on all their
    /// rounds (0: none). One timing of a short kernel varies from run to run by more than
    /// near candidates differ. The last 15% of the time left for timing is kept for it.
    #[arg(long, value_name = "TIMES", default_value_t = 2)]
    pub playoff: usize,
    /// The threads the scripts are searched for: with 1 (the default) the search adds no
    /// `parallel` mark and times every program on one thread; with more it tries a
    /// `parallel` mark on each band, or a tiled band's tiles as wavefronts where its
    /// outermost loop carries a dependence, and times with `OMP_NUM_THREADS` set to this.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: u32,
    /// With timing, the share of `--time-limit` kept at the end to tune the answer's `param`
    /// lines (tile sizes, a recipe's MR, NR, KC) with one pass of `loopy tune`'s descent;
    /// the tuned values are written only when they ran at least 2% faster. When the kernel
    /// as it is won, the fastest other candidate with parameters is tuned instead, and is
    /// the answer only when its tuned values beat the original. 0: none.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.2)]
    pub finish: f64,
    /// The beam search's width: the cost model composes, band by band on every schedule
    /// built, a loop order, a tile size and a split, keeps the WIDTH compositions it
    /// estimates cheapest after each decision (at most two of one schedule), and the search
    /// checks and times them first; `--no-bench` answers with the cheapest legal one. 0: no
    /// beam (the schedules as built, in their statically cheapest loop orders, first).
    #[arg(long, value_name = "WIDTH", default_value_t = 8)]
    pub beam: usize,
    /// Never add `parallel` marks, whatever `--threads` says.
    #[arg(long)]
    pub no_parallel: bool,
    /// Leave out the recipes (the BLIS blocking of contractions, the register blocks of
    /// other products, the row blocks of products through a temporary row, the split of a
    /// loop where it writes what it reads, unroll-and-jam of a row loop whose inner loop
    /// adds into one element per row, the blocking of an imperfect nest by dependence
    /// hoisting): schedules from the legal space only.
    #[arg(long)]
    pub no_recipes: bool,
    /// After the answer, every candidate in the cost model's order (cheapest estimate
    /// first): its estimate, then its measured speedup or why it was not timed (illegal,
    /// failed, left out by the time limit, or never reached); the recipes and the kernel as
    /// it is, which the model does not estimate, after them.
    #[arg(long)]
    pub explain: bool,
    /// Timed runs of each program per candidate.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// What is timed: `kernel` (default) the modelled region alone, `process` the whole
    /// process, `stdout` the time the program prints last (as `loopy bench --time`).
    #[arg(long, value_enum, value_name = "CLOCK", default_value_t = TimeArg::Kernel)]
    pub time: TimeArg,
    #[command(flatten)]
    pub cc: CcArgs,
    /// The C compiler (default `$CC`, then `cc`).
    #[arg(long = "cc", value_name = "COMPILER")]
    pub compiler: Option<String>,
    /// Compiler flags for both programs.
    #[arg(
        long,
        value_name = "FLAGS",
        default_value = "-O3 -march=native",
        allow_hyphen_values = true
    )]
    pub cflags: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// A script run before every candidate (`expand(...)` lines): the search explores the
    /// program it leaves, and every script it writes starts with it.
    #[arg(long, value_name = "PREFIX.loopy")]
    pub prefix: Option<PathBuf>,
    #[command(flatten)]
    pub program: ProgramArgs,
}

pub fn run(a: SearchArgs, ctx: &Ctx) -> u8 {
    let start = Instant::now();
    let kernel = match Kernel::load(&a.kernel, &a.cc.options()) {
        Ok(k) => k,
        Err(f) => {
            eprint!("{}", f.render(ctx.color));
            return 2;
        }
    };
    let (settings, tiles) = match settings(&a, ctx, &kernel) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let mut on = progress_printer(&a);
    let r = match driver::search(&kernel, &settings, &mut on) {
        Ok(r) => r,
        Err(e) => {
            eprint!("{}", super::budget_diagnostic(&e).render(&[], ctx.color));
            return 2;
        }
    };
    let weights = settings.weights.clone();
    let s = Summary::new(&a, &r, driver::names(&kernel), (tiles, weights), start);
    // No candidate faster than the original: the kernel as it is is the answer (its own
    // schedule is always legal), the fastest candidate only reported.
    let describe_il = |k: Option<usize>| s.describe_il(k);
    if let Some((out, text)) =
        a.output
            .as_ref()
            .zip(written_script(&a, &r, s.original_wins, &describe_il))
    {
        if let Err(e) = std::fs::write(out, text) {
            return super::error(
                ctx,
                crate::diag::Diagnostic::new(
                    crate::diag::codes::CANNOT_WRITE,
                    format!("cannot write `{}`: {e}", out.display()),
                ),
            );
        }
    }
    match a.format {
        Format::Text => s.print_text(),
        Format::Json => println!("{}", json::pretty(&s.json())),
    }
    // Timing was asked for and nothing could be timed: as for `loopy tune`, exit 1.
    if !a.no_bench && s.best.is_none() {
        1
    } else {
        0
    }
}

/// The tile sizes the search tries and where they come from.
struct Tiles {
    sizes: Vec<u32>,
    origin: String,
}

/// The search's settings from the arguments (or the exit code of their mistake, reported).
fn settings(a: &SearchArgs, ctx: &Ctx, kernel: &Kernel) -> Result<(SearchSettings, Tiles), u8> {
    let invalid = |m: &str| {
        super::error(
            ctx,
            crate::diag::Diagnostic::new(crate::diag::codes::INVALID_OPTION, m),
        )
    };
    if a.tile_sizes.iter().any(|&s| s < 2) {
        return Err(invalid("tile sizes must be at least 2"));
    }
    if !(a.screen > 0.0 && a.screen <= 1.0) {
        return Err(invalid("--screen must be a fraction in (0, 1]"));
    }
    if !(0.0..=0.9).contains(&a.finish) {
        return Err(invalid("--finish must be a fraction in [0, 0.9]"));
    }
    // The prefix must run on the kernel by itself.
    let prefix: Vec<String> = match &a.prefix {
        None => vec![],
        Some(p) => match crate::driver::run_prefix(kernel, p) {
            Ok((body, _)) => body.lines().map(str::to_string).collect(),
            Err(f) => {
                eprint!("{}", f.render(ctx.color));
                return Err(2);
            }
        },
    };
    let opts = a.cc.options();
    let mut toolchain = Toolchain {
        cflags: split_words(&a.cflags),
        extra: a.program.extra.clone(),
        ..Toolchain::default()
    };
    if let Some(cc) = &a.compiler {
        let w = split_words(cc);
        if !w.is_empty() {
            toolchain.cc = w;
        }
    }
    toolchain.includes = opts.includes.clone();
    toolchain.defines = opts.defines.clone();
    let plan = Plan {
        runs: a.runs as usize,
        warmup: 1,
        clock: a.time.clock(),
    };
    let job = Job {
        check_defines: a.program.check_define.clone(),
        check_cflags: vec!["-ffp-contract=off".to_string()],
        threads: vec![a.threads],
        ..Job::new(a.kernel.clone(), None, opts.clone(), toolchain, plan)
    };
    // The machine, asked once: the tile sizes, the recipes' sizes and the caches come from it.
    let machine = crate::machine::probe(&job.toolchain, None, &Default::default())
        .map_err(|r| r.diagnostic.message);
    let machine = machine.as_ref().map_err(String::as_str);
    let (tile_sizes, tile_start, tile_origin) = tile_sizes(&a.tile_sizes, machine);
    let caches = caches(machine.ok());
    let settings = SearchSettings {
        time_limit: a.time_limit,
        bench: !a.no_bench,
        max_interleavings: a.max_interleavings,
        tile_sizes: tile_sizes.clone(),
        tile_start,
        budget: ctx.budget,
        screen: a.screen,
        screen_above: a.screen_above,
        finalists: a.finalists,
        playoff: a.playoff,
        parallel: a.threads > 1 && !a.no_parallel,
        recipes: !a.no_recipes,
        blis: if a.no_recipes {
            Err("--no-recipes".to_string())
        } else {
            crate::search::recipe::machine_sizes(machine)
        },
        caches,
        weights: weights(a, &job.toolchain, machine, caches.lanes),
        finish: a.finish,
        beam: a.beam,
        job,
        prefix,
    };
    let tiles = Tiles {
        sizes: tile_sizes,
        origin: tile_origin,
    };
    Ok((settings, tiles))
}

/// Where the cost model's weights come from (`--weights`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WeightsArg {
    Auto,
    Measured,
    Fixed,
}

/// The cost model's weights as `--weights` asks, and where they come from: measured on this
/// machine, or fixed (and why, when a measurement was asked for and failed).
fn weights(
    a: &SearchArgs,
    toolchain: &Toolchain,
    machine: Result<&crate::machine::Machine, &str>,
    lanes: f64,
) -> (crate::search::cost::Weights, String) {
    use crate::search::cost::Weights;
    let measure = match a.weights {
        WeightsArg::Auto => !a.no_bench,
        WeightsArg::Measured => true,
        WeightsArg::Fixed => false,
    };
    if !measure {
        return (Weights::default(), "fixed".to_string());
    }
    let bytes = machine.map_or([32 << 10, 1 << 20, 8 << 20], |m| m.cache_bytes());
    match crate::machine::costs::measure(toolchain, bytes) {
        Ok(c) => (
            Weights::measured(&c, lanes),
            "measured on this machine".to_string(),
        ),
        Err(r) => (
            Weights::default(),
            format!(
                "fixed (the micro-benchmark failed: {})",
                r.diagnostic.message
            ),
        ),
    }
}

/// What is printed while searching: the status on the terminal's last line, and in text
/// format a line per candidate timed.
fn progress_printer(a: &SearchArgs) -> impl FnMut(Event) {
    let ticker = std::io::stderr().is_terminal() && !a.no_bench;
    let text = a.format == Format::Text;
    move |e: Event| match e {
        Event::Status(msg) => {
            if ticker {
                eprint!("\r\x1b[2K{msg}");
                let _ = std::io::stderr().flush();
            }
        }
        Event::Timed {
            index,
            candidate: c,
            screen,
        } => {
            if ticker {
                eprint!("\r\x1b[2K");
            }
            let t = if screen { c.screen } else { c.timing };
            if let (true, Some(m)) = (text, t) {
                println!(
                    "  candidate {:>3}: {:.2}x  ({} -> {})  {}, {}{}",
                    index + 1,
                    m.speedup,
                    secs(m.original),
                    secs(m.transformed),
                    interleaving_number(c.interleaving),
                    c.describe(),
                    if screen { " [screening]" } else { "" }
                );
            }
        }
    }
}

/// What the search found, as the summary prints it.
struct Summary<'a> {
    a: &'a SearchArgs,
    r: &'a driver::SearchReport,
    names: crate::search::script::Names,
    tiles: Tiles,
    /// Seconds the whole command took.
    total: f64,
    timed: usize,
    legal: usize,
    /// The best candidate and its speedup (whether at the screening sizes).
    best: Option<(usize, (f64, bool))>,
    /// Why the time limit cut the search short, if it did.
    cut_short: Option<String>,
    /// No candidate beat the original.
    original_wins: bool,
    /// Interleavings with no script of a kind, and why.
    unbuilt: Vec<(usize, &'a str, &'a String)>,
    /// The cost model's weights and where they come from.
    weights: (crate::search::cost::Weights, String),
}

impl<'a> Summary<'a> {
    fn new(
        a: &'a SearchArgs,
        r: &'a driver::SearchReport,
        names: crate::search::script::Names,
        (tiles, weights): (Tiles, (crate::search::cost::Weights, String)),
        start: Instant,
    ) -> Summary<'a> {
        let timed = r
            .candidates
            .iter()
            .filter(|c| c.timing.is_some() || c.screen.is_some())
            .count();
        let legal = r
            .candidates
            .iter()
            .filter(|c| matches!(c.verdict, Verdict::Legal))
            .count();
        let cut_short = r.out_of_time.map(|what| match what {
            "building" => format!(
                "the time limit ({} s) ran out while building the space and the schedules: the \
                 candidates are those built by then",
                a.time_limit
            ),
            "checking" => format!(
                "the time limit ({} s) ran out while checking the candidates: {} schedule(s) \
                 built were not checked",
                a.time_limit, r.unchecked
            ),
            // Every legal candidate timed somewhere: what was refused is a finalist's
            // timing at the sizes asked for.
            _ if timed == legal => format!(
                "the time limit ({} s) ended the timing: not every finalist was timed at the \
                 sizes asked for",
                a.time_limit
            ),
            _ => format!(
                "the time limit ({} s) ended the timing: candidates left untimed",
                a.time_limit
            ),
        });
        let unbuilt = r
            .schedules
            .iter()
            .filter_map(|sc| {
                sc.built
                    .as_ref()
                    .err()
                    .map(|e| (sc.interleaving, sc.kind.name(), e))
            })
            .collect();
        Summary {
            a,
            r,
            names,
            tiles,
            total: start.elapsed().as_secs_f64(),
            timed,
            legal,
            best: r.best.zip(r.best_speedup()),
            cut_short,
            original_wins: r.original_wins(),
            unbuilt,
            weights,
        }
    }

    /// `(S0 S1) (S2)`: the classes of an interleaving (the kernel's own order for `None`).
    fn describe_il(&self, k: Option<usize>) -> String {
        let Some(k) = k else {
            return "(the kernel's own order)".to_string();
        };
        self.r.interleavings.list[k]
            .iter()
            .map(|c| {
                let h: Vec<&str> = c.iter().map(|&s| self.names.handles[s].as_str()).collect();
                format!("({})", h.join(" "))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The beam search: how far it went, and its compositions with the candidates they
    /// became.
    fn print_beam(&self, b: &crate::search::driver::BeamReport) {
        println!(
            "beam search (width {}): {} composition(s) of loop orders, tiles and splits \
             estimated{}; kept, cheapest first:",
            b.width,
            b.estimated,
            if b.cut {
                ", stopped before every band was decided"
            } else {
                ""
            }
        );
        for e in &b.kept {
            let sc = &self.r.schedules[e.schedule];
            let what = match e.candidate {
                Some(c) => format!("candidate {}", c + 1),
                None => "not checked".to_string(),
            };
            println!(
                "  {:.3e}  interleaving {}, {}, {}: {what}",
                e.estimate,
                sc.interleaving + 1,
                sc.kind.name(),
                e.variant
            );
        }
    }

    /// Why nothing was timed.
    fn why_not(&self) -> String {
        let verdicts: Vec<&Verdict> = self.r.candidates.iter().map(|c| &c.verdict).collect();
        crate::timing::why_nothing_timed(&verdicts, self.r.out_of_time.is_some())
    }

    fn print_counts(&self) {
        let (a, r, il) = (self.a, self.r, &self.r.interleavings);
        println!(
            "{}: {}{} legal outer interleaving(s), {} scheduled{}, built in {:.2} s; {} \
             with a schedule the search can write as a script",
            a.kernel.display(),
            if il.exact { "" } else { "at least " },
            il.count,
            il.list.len(),
            if (il.list.len() as u128) < il.count {
                format!(" (--max-interleavings {})", a.max_interleavings)
            } else {
                String::new()
            },
            r.build_seconds,
            (0..il.list.len())
                .filter(|&k| r
                    .schedules
                    .iter()
                    .any(|sc| sc.interleaving == k && sc.built.is_ok()))
                .count()
        );
    }

    /// The text summary: the candidates (all of them without timing, else those that
    /// failed), the counts, the sizes, and the best.
    fn print_text(&self) {
        let (a, r) = (self.a, self.r);
        if a.no_bench {
            self.print_candidates();
        } else {
            // The candidates that were not timed because they failed, with the reason.
            for (k, c) in r.candidates.iter().enumerate() {
                if let (Verdict::Error(m), None, None) = (&c.verdict, c.timing, c.screen) {
                    println!(
                        "  candidate {:>3}: {}, {}: error: {m}",
                        k + 1,
                        interleaving_number(c.interleaving),
                        c.describe()
                    );
                }
            }
        }
        if r.out_of_time == Some("building") && r.interleavings.list.is_empty() {
            println!(
                "{}: the legal outer interleavings were not counted: the time limit ran \
                 out while building the legal-schedule space ({:.2} s)",
                a.kernel.display(),
                r.build_seconds
            );
        } else {
            self.print_counts();
        }
        if let Some(d) = &r.screen_defines {
            println!("screened at {}", d.join(" "));
        }
        let sizes: Vec<String> = self.tiles.sizes.iter().map(u32::to_string).collect();
        println!("tile sizes: {} ({})", sizes.join(", "), self.tiles.origin);
        println!(
            "{} candidate(s), {} legal, {} timed, in {:.1} s",
            r.candidates.len(),
            self.legal,
            self.timed,
            self.total
        );
        if let Some(m) = &self.cut_short {
            println!("{m}");
        }
        let (w, from) = &self.weights;
        println!(
            "cost model weights ({from}): an iteration 1, a loop's start {:.2}, a line from L2 \
             {:.2}, from L3 {:.2}, from memory {:.2}, the threads meeting at a parallel loop \
             {:.0}",
            w.start, w.from_l2, w.from_l3, w.from_memory, w.sync
        );
        match r.ranking {
            Some(k) => println!(
                "cost model: rank correlation {:.2} with the measured times of the {} \
                 candidate(s) it estimated and the search timed at the sizes asked for (Spearman)",
                k.rho, k.over
            ),
            None if !a.no_bench => println!(
                "cost model: no rank correlation (fewer than 3 candidates it estimated were \
                 timed at the sizes asked for)"
            ),
            None => {}
        }
        if let Some(k) = r.screen_ranking {
            println!(
                "cost model: rank correlation {:.2} with the times of the {} candidate(s) \
                 timed only at the screening sizes, estimated at those sizes",
                k.rho, k.over
            );
        }
        if let Some(b) = &r.beam {
            self.print_beam(b);
        }
        if !r.playoff.is_empty() {
            let who: Vec<String> = (r.playoff.iter())
                .map(|&c| match c == r.identity {
                    true => format!("{} (the kernel as it is)", c + 1),
                    false => (c + 1).to_string(),
                })
                .collect();
            println!(
                "playoff: candidates {} timed {} more time(s) each, in turn; the answer chosen \
                 on all their rounds",
                who.join(", "),
                a.playoff
            );
        }
        self.print_best();
        match &r.finished {
            Some(Ok(f)) => {
                let changed = changed_values(f);
                let whose = match f.rescued {
                    true => format!(
                        " of candidate {} (no candidate beat the original at the search's \
                         values)",
                        f.candidate + 1
                    ),
                    false => String::new(),
                };
                println!(
                    "parameters{whose} tuned ({} timing(s), one pass of tune's descent): {}; \
                     {:.2}x against {:.2}x with the search's values",
                    f.timed, changed, f.tuned.speedup, f.before.speedup
                );
            }
            Some(Err(why)) => println!("parameters left as the search had them: {why}"),
            None => {}
        }
        if a.explain {
            self.print_explained();
        }
    }

    /// `--explain`: every candidate in the cost model's order, with what became of it.
    fn print_explained(&self) {
        let r = self.r;
        let mut order: Vec<usize> = (0..r.candidates.len()).collect();
        let key = |c: usize| r.candidates[c].estimate.unwrap_or(f64::INFINITY);
        order.sort_by(|&x, &y| key(x).total_cmp(&key(y)).then(x.cmp(&y)));
        println!(
            "the candidates in the cost model's order (its estimate: arithmetic and the lines \
             each cache level misses, lower first; docs/search.md):"
        );
        for c in order {
            let cand = &r.candidates[c];
            let estimate = cand
                .estimate
                .map_or("not estimated".to_string(), |e| format!("estimate {e:.3e}"));
            let outcome = match (cand.timing, cand.screen) {
                (Some(t), _) => format!("measured {:.2}x", t.speedup),
                (None, Some(t)) => format!("measured {:.2}x at the screening sizes", t.speedup),
                (None, None) => cand
                    .reason(!self.a.no_bench)
                    .unwrap_or_else(|| "not timed".to_string()),
            };
            let best = if self.best.map(|b| b.0) == Some(c) {
                " (the answer)"
            } else {
                ""
            };
            println!(
                "  candidate {:>3}: {estimate}: {outcome}{best}; {}",
                c + 1,
                cand.describe()
            );
        }
    }

    /// Every candidate with its script and verdict, and the interleavings without a script
    /// (`--no-bench`).
    fn print_candidates(&self) {
        for (k, c) in self.r.candidates.iter().enumerate() {
            println!(
                "candidate {}: {}{}, {}: {}",
                k + 1,
                interleaving_number(c.interleaving),
                c.interleaving
                    .map_or(String::new(), |k| format!(" {}", self.describe_il(Some(k)))),
                c.describe(),
                c.verdict.name()
            );
            for l in &c.script {
                println!("    {l}");
            }
            if c.script.is_empty() {
                println!("    (the kernel as it is)");
            }
            if let Verdict::Illegal(m) | Verdict::Error(m) = &c.verdict {
                println!("    ({m})");
            }
        }
        for (k, kind, e) in &self.unbuilt {
            println!(
                "interleaving {} {}: no {kind} script ({e})",
                k + 1,
                self.describe_il(Some(*k))
            );
        }
    }

    /// The best candidate (or the kernel as it is), or why there is none, and where it was
    /// written.
    fn print_best(&self) {
        let (a, r) = (self.a, self.r);
        let at = |screened: bool| {
            if screened {
                " at the screening sizes"
            } else {
                ""
            }
        };
        let written = || {
            if let Some(o) = &a.output {
                println!("written to {}", o.display());
            }
        };
        match self.best {
            Some((c, (x, _))) if c == r.identity && self.original_wins => {
                println!(
                    "best: the kernel as it is (in the playoff no candidate ran faster than the \
                     original against its own loops regenerated, {x:.2}x)"
                );
                written();
            }
            Some((c, (x, screened))) if self.original_wins => {
                println!(
                    "best: the kernel as it is (no candidate beat the original; the fastest, candidate {}, ran at {x:.2}x{})",
                    c + 1,
                    at(screened),
                );
                written();
            }
            Some((c, (x, screened))) => {
                println!(
                    "best: candidate {} ({:.2}x{}), interleaving {}, {}:",
                    c + 1,
                    x,
                    at(screened),
                    self.describe_il(r.candidates[c].interleaving),
                    r.candidates[c].describe()
                );
                for l in &r.candidates[c].script {
                    println!("    {l}");
                }
                if r.candidates[c].script.is_empty() {
                    println!("    (the kernel as it is)");
                }
                written();
            }
            None if !a.no_bench => println!("nothing was timed: {}", self.why_not()),
            None => {
                if let Some(c) = r.first_by_cost {
                    let cand = &r.candidates[c];
                    // Its script is listed above, with the other candidates.
                    println!(
                        "first by the cost model (not timed): candidate {}, interleaving \
                         {}, {}",
                        c + 1,
                        self.describe_il(cand.interleaving),
                        cand.describe()
                    );
                    written();
                }
            }
        }
    }

    /// One candidate in the JSON.
    fn candidate_json<'s>(&'s self, c: &'s driver::Candidate) -> CandidateJson<'s> {
        let il = &self.r.interleavings;
        let interleaving = c.interleaving.map(|k| {
            il.list[k]
                .iter()
                .map(|cl| {
                    cl.iter()
                        .map(|&st| self.names.handles[st].as_str())
                        .collect()
                })
                .collect()
        });
        let message = match &c.verdict {
            Verdict::Illegal(m) | Verdict::Error(m) => Some(m.as_str()),
            _ => None,
        };
        CandidateJson {
            interleaving,
            interleaving_index: c.interleaving,
            interleaving_rank: c
                .interleaving
                .map(|k| i128::try_from(il.ranks[k]).unwrap_or(i128::MAX)),
            kind: c.kind_name(),
            variant: c.describe(),
            script: c.script.join("\n"),
            verdict: c.verdict.name(),
            message,
            reason: c.reason(!self.a.no_bench),
            estimate: c.estimate,
            estimate_parts: c.parts,
            screen_estimate: c.screen_estimate,
            timing: TimesJson::of(c.timing),
            screen: ScreenTimesJson::of(c.screen),
        }
    }

    /// The JSON of `--format json`.
    fn json<'s>(&'s self) -> SearchJson<'s> {
        let (a, r, il) = (self.a, self.r, &self.r.interleavings);
        let unbuilt = self
            .unbuilt
            .iter()
            .map(|&(k, kind, e)| UnbuiltJson {
                interleaving_index: k,
                kind,
                reason: e,
            })
            .collect();
        let written = a
            .output
            .as_ref()
            .filter(|_| self.best.is_some() || (a.no_bench && r.first_by_cost.is_some()));
        SearchJson {
            kernel: a.kernel.display().to_string(),
            interleavings: i128::try_from(il.count).unwrap_or(i128::MAX),
            interleavings_exact: il.exact,
            interleavings_scheduled: il.list.len(),
            own_interleaving: il.own,
            fusability_tests: il.tests,
            build_seconds: r.build_seconds,
            without_script: unbuilt,
            screen_defines: r.screen_defines.as_deref(),
            tile_sizes: &self.tiles.sizes,
            tile_sizes_from: &self.tiles.origin,
            candidates: r
                .candidates
                .iter()
                .map(|c| self.candidate_json(c))
                .collect(),
            best: r.best,
            original_wins: self.original_wins,
            first_by_cost: r.first_by_cost,
            playoff: &r.playoff,
            beam: r.beam.as_ref().map(|b| BeamJson {
                width: b.width,
                estimated: b.estimated,
                cut: b.cut,
                kept: (b.kept.iter())
                    .map(|e| BeamEntryJson {
                        interleaving_index: r.schedules[e.schedule].interleaving,
                        kind: r.schedules[e.schedule].kind.name(),
                        variant: &e.variant,
                        estimate: e.estimate,
                        candidate: e.candidate,
                    })
                    .collect(),
            }),
            finished: r.finished.as_ref().map(|f| match f {
                Ok(f) => FinishedJson {
                    candidate: Some(f.candidate),
                    rescued: f.rescued,
                    changed: f
                        .changed
                        .iter()
                        .map(|(n, a, b)| (n.as_str(), *a, *b))
                        .collect(),
                    speedup: Some(f.tuned.speedup),
                    before_speedup: Some(f.before.speedup),
                    timed: f.timed,
                    reason: None,
                },
                Err(why) => FinishedJson {
                    candidate: None,
                    rescued: false,
                    changed: vec![],
                    speedup: None,
                    before_speedup: None,
                    timed: 0,
                    reason: Some(why.as_str()),
                },
            }),
            model_weights: self.weights.0,
            model_weights_from: &self.weights.1,
            model_rank_correlation: r.ranking.map(|k| k.rho),
            model_ranked: r.ranking.map_or(0, |k| k.over),
            model_rank_correlation_screened: r.screen_ranking.map(|k| k.rho),
            model_ranked_screened: r.screen_ranking.map_or(0, |k| k.over),
            identity: r.identity,
            nothing_timed: (self.best.is_none() && !a.no_bench).then(|| self.why_not()),
            out_of_time: self.cut_short.as_deref(),
            written: written.map(|o| o.display().to_string()),
            seconds: self.total,
        }
    }
}

/// What `loopy search --format json` prints.
#[derive(Serialize)]
struct SearchJson<'a> {
    kernel: String,
    interleavings: i128,
    interleavings_exact: bool,
    interleavings_scheduled: usize,
    own_interleaving: Option<usize>,
    fusability_tests: usize,
    build_seconds: f64,
    without_script: Vec<UnbuiltJson<'a>>,
    screen_defines: Option<&'a [String]>,
    tile_sizes: &'a [u32],
    tile_sizes_from: &'a str,
    candidates: Vec<CandidateJson<'a>>,
    best: Option<usize>,
    original_wins: bool,
    first_by_cost: Option<usize>,
    /// The candidates of the playoff, fastest first on all their rounds (empty: none).
    playoff: &'a [usize],
    /// The beam search's compositions (`--beam`), cheapest first; `null` without one.
    beam: Option<BeamJson<'a>>,
    /// The answer's parameters tuned after the search (`--finish`).
    finished: Option<FinishedJson<'a>>,
    /// What the parts of the cost model's estimates weigh, and where that comes from.
    model_weights: crate::search::cost::Weights,
    model_weights_from: &'a str,
    /// Spearman's correlation of the cost model's estimates with the measured times.
    model_rank_correlation: Option<f64>,
    /// How many candidates it is over.
    model_ranked: usize,
    /// The same over the candidates timed only at the screening sizes, estimated there.
    model_rank_correlation_screened: Option<f64>,
    model_ranked_screened: usize,
    identity: usize,
    nothing_timed: Option<String>,
    out_of_time: Option<&'a str>,
    written: Option<String>,
    seconds: f64,
}

/// What the beam search did.
#[derive(Serialize)]
struct BeamJson<'a> {
    width: usize,
    /// Compositions estimated.
    estimated: usize,
    /// Stopped before every band was decided (the time limit, or the estimate count).
    cut: bool,
    kept: Vec<BeamEntryJson<'a>>,
}

/// One composition of the beam: its schedule, its changes, its estimate, and the candidate
/// it became when it was checked (`null`: not checked).
#[derive(Serialize)]
struct BeamEntryJson<'a> {
    interleaving_index: usize,
    kind: &'static str,
    variant: &'a str,
    estimate: f64,
    candidate: Option<usize>,
}

/// What tuning the answer's parameters did.
#[derive(Serialize)]
struct FinishedJson<'a> {
    /// The candidate tuned (numbered as `best`), and whether it was tuned because no
    /// candidate beat the original at the search's values.
    #[serde(skip_serializing_if = "Option::is_none")]
    candidate: Option<usize>,
    rescued: bool,
    /// Each parameter changed: name, the search's value, the tuned one.
    changed: Vec<(&'a str, i64, i64)>,
    /// The tuned script's speedup and the search's values' in the same tuning.
    speedup: Option<f64>,
    before_speedup: Option<f64>,
    timed: usize,
    /// Why the values were kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// An interleaving with no script of a kind, and why.
#[derive(Serialize)]
struct UnbuiltJson<'a> {
    interleaving_index: usize,
    kind: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct CandidateJson<'a> {
    /// The statements' handles, one list per loop nest.
    interleaving: Option<Vec<Vec<&'a str>>>,
    interleaving_index: Option<usize>,
    interleaving_rank: Option<i128>,
    kind: &'static str,
    variant: String,
    script: String,
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// The cost model's estimate (schedules and the kernel as it is).
    estimate: Option<f64>,
    /// What the estimate counts before weighing: iterations, starts of the innermost loop,
    /// lines from L2, L3 and memory.
    estimate_parts: Option<crate::search::cost::Parts>,
    /// The estimate at the screening sizes (when the search may screen).
    screen_estimate: Option<f64>,
    #[serde(flatten)]
    timing: TimesJson,
    #[serde(flatten)]
    screen: ScreenTimesJson,
}

/// A timing's three fields (original, transformed, speedup), null when not timed.
#[derive(Serialize)]
struct TimesJson {
    original_seconds: Option<f64>,
    transformed_seconds: Option<f64>,
    speedup: Option<f64>,
}

impl TimesJson {
    fn of(t: Option<Measured>) -> Self {
        TimesJson {
            original_seconds: t.map(|m| m.original),
            transformed_seconds: t.map(|m| m.transformed),
            speedup: t.map(|m| m.speedup),
        }
    }
}

/// The same at the screening sizes.
#[derive(Serialize)]
struct ScreenTimesJson {
    screen_original_seconds: Option<f64>,
    screen_transformed_seconds: Option<f64>,
    screen_speedup: Option<f64>,
}

impl ScreenTimesJson {
    fn of(t: Option<Measured>) -> Self {
        ScreenTimesJson {
            screen_original_seconds: t.map(|m| m.original),
            screen_transformed_seconds: t.map(|m| m.transformed),
            screen_speedup: t.map(|m| m.speedup),
        }
    }
}

/// The parameters tuning changed: `MR 14 -> 7, KC 109 -> 136`.
fn changed_values(f: &crate::search::finish::Finished) -> String {
    let each: Vec<String> = (f.changed.iter())
        .map(|(n, a, b)| format!("{n} {a} -> {b}"))
        .collect();
    each.join(", ")
}

/// The tile sizes the search tries, the first one, and where they come from: the sizes
/// given, else `loopy tune`'s values around the machine model's square tile, nearest first
/// ([`crate::machine::model::square_tile`], for doubles) or around 32 when the L1 data cache
/// cannot be read.
fn tile_sizes(
    given: &[u32],
    machine: Result<&crate::machine::Machine, &str>,
) -> (Vec<u32>, u32, String) {
    if let Some(&first) = given.first() {
        return (given.to_vec(), first, "given".to_string());
    }
    let l1 = machine
        .map_err(|_| "the compiler could not be asked".to_string())
        .and_then(|m| m.level(1));
    let (start, origin) = match l1 {
        Ok(l) => {
            let t = crate::machine::model::square_tile(&l, 8);
            (
                t,
                format!(
                    "around {t}: three {t} x {t} tiles of doubles fill half the {} KiB L1 data cache",
                    l.size / 1024
                ),
            )
        }
        Err(e) => (
            32,
            format!("around 32: the machine model has no L1 size ({e})"),
        ),
    };
    // The model's size first, then the others from the nearest: the greedy phase tries them
    // in this order while time is left.
    let mut sizes: Vec<u32> = crate::tune::around(i64::from(start))
        .into_iter()
        .filter_map(|v| u32::try_from(v).ok().filter(|&v| v >= 2))
        .collect();
    sizes.sort_by_key(|&v| (v.abs_diff(start), v));
    (sizes, start, origin)
}

/// The cache capacities and vector lanes of the cost model: the machine's (`loopy machine`),
/// each the model's default where it cannot be read.
fn caches(machine: Option<&crate::machine::Machine>) -> crate::search::cost::Caches {
    let mut c = crate::search::cost::Caches::default();
    let Some(m) = machine else {
        return c;
    };
    let lines = |level: u32| {
        let cache = m.cache(level)?;
        Some(cache.size? as f64 / f64::from(cache.line.unwrap_or(64)))
    };
    c.l1 = lines(1).unwrap_or(c.l1);
    c.l2 = lines(2).unwrap_or(c.l2);
    c.l3 = lines(3).unwrap_or(c.l3);
    if let Some(Ok(v)) = m.model().explain("NVEC") {
        c.lanes = v as f64;
    }
    c
}

/// `interleaving 3`, or `the kernel's own order` for the kernel as it is when its outer
/// structure is not among the interleavings scheduled.
fn interleaving_number(k: Option<usize>) -> String {
    k.map_or("the kernel's own order".to_string(), |k| {
        format!("interleaving {}", k + 1)
    })
}

/// What `-o` gets: the kernel as it is (a comment) when no candidate beat the original, the
/// candidate the cost model ranks first under `--no-bench`, else the fastest candidate with a
/// header saying how fast; `None` when there is nothing to write.
fn written_script(
    a: &SearchArgs,
    r: &driver::SearchReport,
    original_wins: bool,
    describe_il: &dyn Fn(Option<usize>) -> String,
) -> Option<String> {
    let best = r.best.zip(r.best_speedup());
    if let (Some((c, (x, _))), true) = (best, original_wins) {
        return Some(format!(
            "# {}: no candidate was faster than the original in one search run (the fastest, \
             candidate {}, ran at {x:.2}x): the kernel as it is\n",
            a.kernel.display(),
            c + 1
        ));
    }
    if let (true, Some(c)) = (a.no_bench, r.first_by_cost) {
        let cand = &r.candidates[c];
        // The search ranks a recipe first where one applies; the cost model ranks the
        // schedules.
        let why = if cand.kind == Some(driver::Kind::Recipe) {
            format!(
                "the {}, ranked first by the search where a recipe applies",
                cand.variant
            )
        } else {
            "ranked first by the search's cost model".to_string()
        };
        let header = format!(
            "# {}: interleaving {} (one of {} legal outer interleavings), {}\n# {why}, not \
             timed (--no-bench)\n",
            a.kernel.display(),
            describe_il(cand.interleaving),
            r.interleavings.count,
            cand.describe(),
        );
        let body = if cand.script.is_empty() {
            String::new()
        } else {
            cand.script.join("\n") + "\n"
        };
        return Some(format!("{header}{body}"));
    }
    let (c, (x, screened)) = best?;
    let cand = &r.candidates[c];
    let at = match (&r.screen_defines, screened) {
        (Some(d), true) => format!(" at the screening sizes ({})", d.join(" ")),
        _ => String::new(),
    };
    if let Some(Ok(f)) = &r.finished {
        let changed = changed_values(f);
        return Some(format!(
            "# {}: interleaving {} (one of {} legal outer interleavings), {}\n# {:.2}x over the \
             original{at} in one search run (median of {} runs each); its parameters then tuned \
             ({}): {:.2}x against {:.2}x with the search's values in the same tuning\n{}\n",
            a.kernel.display(),
            describe_il(cand.interleaving),
            r.interleavings.count,
            cand.describe(),
            x,
            a.runs,
            changed,
            f.tuned.speedup,
            f.before.speedup,
            f.script.join("\n")
        ));
    }
    Some(format!(
        "# {}: interleaving {} (one of {} legal outer interleavings), {}\n# {:.2}x over the \
         original{at} in one search run (median of {} runs each)\n{}\n",
        a.kernel.display(),
        describe_il(cand.interleaving),
        r.interleavings.count,
        cand.describe(),
        x,
        a.runs,
        cand.script.join("\n")
    ))
}
