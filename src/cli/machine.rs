//! `loopy machine`: what loopy knows of the machine and the compiler flags in use, and the
//! block sizes the analytical model derives from them (docs/machine.md). Printing only; the
//! probing and the model are `crate::machine`.

use super::{Ctx, Format};
use crate::machine::costs;
use crate::machine::measure::{self, Measurement};
use crate::machine::model::{Blocking, CacheLevel, Elem, Model, NAMES};
use crate::machine::sysfs::Cache;
use crate::machine::{self, Machine, Overrides, ValueOrigin};
use crate::model::json::{self, Entries};
use crate::model::state::COPY_LIMIT;
use crate::native::{compile::split_words, Toolchain};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MachineArgs {
    /// The C compiler whose predefined macros tell the instruction set, with any leading
    /// words (`--cc "ccache gcc"`); default `$CC`, then `cc`.
    #[arg(long = "cc", value_name = "COMPILER")]
    pub compiler: Option<String>,
    /// Compiler flags (split at white space); the default is `bench`'s.
    #[arg(
        long,
        value_name = "FLAGS",
        default_value = "-O3 -march=native",
        allow_hyphen_values = true
    )]
    pub cflags: String,
    /// Read CPUs and caches from this copy of `/sys/devices/system/cpu` (another machine's)
    /// instead; the processor's name and the CPUs available to loopy are then not read.
    #[arg(long, value_name = "DIR")]
    pub sysfs: Option<PathBuf>,
    /// Cycles from a vector multiply-add to one that uses its result (default from the
    /// instruction set's table).
    #[arg(long, value_name = "CYCLES", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub fma_latency: Option<u32>,
    /// Vector multiply-adds issued per cycle.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub fma_per_cycle: Option<u32>,
    /// Vector loads (and broadcasts) issued per cycle.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub loads_per_cycle: Option<u32>,
    /// Vector registers (needed where the architecture is not one loopy knows).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub vector_registers: Option<u32>,
    /// Measure the multiply-add's latency and throughput and the vector loads per cycle
    /// with a micro-benchmark built by the compiler with these flags (under a second), and
    /// take them instead of the table's (values given with the options above stay); also
    /// what the search's cost model weighs: an element of a vectorized loop, the start of a
    /// short loop, and a line read from each cache level and from memory.
    #[arg(long)]
    pub measure: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(a: MachineArgs, ctx: &Ctx) -> u8 {
    let mut toolchain = Toolchain {
        cflags: split_words(&a.cflags),
        ..Toolchain::default()
    };
    if let Some(cc) = &a.compiler {
        let w = split_words(cc);
        if !w.is_empty() {
            toolchain.cc = w;
        }
    }
    let over = Overrides {
        fma_latency: a.fma_latency,
        fma_per_cycle: a.fma_per_cycle,
        loads_per_cycle: a.loads_per_cycle,
        registers: a.vector_registers,
    };
    if let Some(dir) = &a.sysfs {
        if !dir.is_dir() {
            return super::error(
                ctx,
                crate::diag::Diagnostic::new(
                    crate::diag::codes::INVALID_OPTION,
                    format!(
                        "`{}` is not a directory (give a copy of /sys/devices/system/cpu)",
                        dir.display()
                    ),
                ),
            );
        }
    }
    let mut m = match machine::probe(&toolchain, a.sysfs.as_deref(), &over) {
        Ok(m) => m,
        Err(r) => {
            eprint!("{}", r.render(ctx.color));
            return 2;
        }
    };
    let (mut measured, mut loop_costs) = (None, None);
    if a.measure {
        let bytes = m.isa.vector_bits.map(|b| b / 8);
        match measure::measure(&toolchain, bytes, m.registers.map(|r| r.0)) {
            Ok(x) => {
                m = m.with_measured(x.pipeline());
                measured = Some(x);
            }
            Err(r) => {
                eprint!("{}", r.render(ctx.color));
                return 2;
            }
        }
        match costs::measure(&toolchain, m.cache_bytes()) {
            Ok(c) => loop_costs = Some(c),
            Err(r) => {
                eprint!("{}", r.render(ctx.color));
                return 2;
            }
        }
    }
    match a.format {
        Format::Text => {
            print!("{}", text(&m));
            if let Some(x) = &measured {
                print!("{}", measured_text(x));
            }
            if let Some(c) = &loop_costs {
                print!("{}", costs_text(c));
            }
        }
        Format::Json => {
            let model = m.model();
            let mut j = machine_json(&m, &model);
            j.measured = measured.as_ref().map(MeasuredJson::of);
            j.loop_costs = loop_costs;
            println!("{}", json::pretty(&j));
        }
    }
    0
}

/// What the micro-benchmarks found, unrounded.
fn measured_text(x: &Measurement) -> String {
    format!(
        "\nmeasured      {} bytes a vector, {} independent chains, best of several runs:\n\
         \x20 cycle               {:.3} ns (a dependent integer addition; {:.2} GHz)\n\
         \x20 multiply-add        latency {:.2} cycles, {:.2} per cycle\n\
         \x20 vector loads        {:.2} per cycle\n",
        x.vector_bytes,
        x.chains,
        x.cycle_ns,
        x.ghz(),
        x.fma_latency(),
        x.fma_per_cycle(),
        x.loads_per_cycle()
    )
}

/// What the cost micro-benchmarks found, unrounded.
fn costs_text(c: &costs::Costs) -> String {
    let l = &c.line_ns;
    format!(
        "  loop                {:.3} ns an element (vectorized, data in L1); {:.3} ns more a start \
         of a loop of {} iterations\n\
         \x20 a line read from    L1 {:.3} ns, L2 {:.3} ns, L3 {:.3} ns, memory {:.3} ns (in \
         address order)\n",
        c.element_ns,
        c.start_ns,
        costs::SHORT,
        l[0],
        l[1],
        l[2],
        l[3]
    )
}

/// `--measure`'s numbers, unrounded, in the JSON report.
#[derive(Serialize)]
struct MeasuredJson {
    vector_bytes: u32,
    chains: u32,
    cycle_ns: f64,
    fma_latency: f64,
    fma_per_cycle: f64,
    loads_per_cycle: f64,
}

impl MeasuredJson {
    fn of(x: &Measurement) -> MeasuredJson {
        MeasuredJson {
            vector_bytes: x.vector_bytes,
            chains: x.chains,
            cycle_ns: x.cycle_ns,
            fma_latency: x.fma_latency(),
            fma_per_cycle: x.fma_per_cycle(),
            loads_per_cycle: x.loads_per_cycle(),
        }
    }
}

/// Bytes as KiB, MiB or GiB when exact, else bytes.
fn bytes(n: u64) -> String {
    for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "unknown".to_string(), |v| v.to_string())
}

fn cpus_text(m: &Machine) -> String {
    let mut parts = vec![];
    match &m.cpus.online {
        Some(v) => parts.push(format!("{} online", v.len())),
        None => parts.push("online CPUs unknown".to_string()),
    }
    match (m.cpus.cores, m.cpus.packages) {
        (Some(c), Some(p)) => {
            let online = m.cpus.online.as_ref().map_or(0, Vec::len);
            let smt = if c > 0 && online > c && online.is_multiple_of(c) {
                format!(" ({} CPUs per core)", online / c)
            } else {
                String::new()
            };
            parts.push(format!(
                "{c} core{} in {p} package{}{smt}",
                if c == 1 { "" } else { "s" },
                if p == 1 { "" } else { "s" }
            ))
        }
        _ => parts.push("cores unknown".to_string()),
    }
    if let Some(n) = m.available {
        parts.push(format!("{n} available to loopy"));
    }
    parts.join(", ")
}

fn cache_line(c: &Cache) -> String {
    let name = format!(
        "L{} {}",
        opt(c.level),
        c.kind.as_ref().map_or("(type unknown)", |k| k.name())
    );
    let shared = match &c.shared_with {
        Some((text, v)) if v.len() == 1 => format!("CPU {text}"),
        Some((text, _)) => format!("CPUs {text}"),
        None => "unknown".to_string(),
    };
    format!(
        "  {name:<16} {:>9}  {:>8}  {:>14}  {:>12}  shared by {shared}\n",
        c.size.map_or("size unknown".to_string(), bytes),
        c.ways
            .map_or("ways unknown".to_string(), |w| format!("{w}-way")),
        c.line
            .map_or("line unknown".to_string(), |l| format!("{l}-byte lines")),
        c.sets
            .map_or("sets unknown".to_string(), |s| format!("{s} sets")),
    )
}

/// The whole report as text.
pub fn text(m: &Machine) -> String {
    let mut s = String::new();
    let isa = &m.isa;
    s += &format!("processor     {}\n", opt(m.processor.as_deref()));
    s += &format!("CPUs          {}\n", cpus_text(m));
    s += &format!(
        "compiler      {}{}\n",
        m.compiler.join(" "),
        m.compiler_version
            .as_ref()
            .map_or(String::new(), |v| format!(" ({v})"))
    );
    let named = |what: &str, mac: Option<&str>| match mac {
        Some(mac) => format!("{what} ({mac})"),
        None => what.to_string(),
    };
    s += &format!(
        "target        {}, {}, {}\n",
        named(isa.arch.name(), isa.arch_macro),
        named(isa.ext.name(), isa.ext_macro),
        if isa.fma {
            named("FMA", isa.fma_macro)
        } else {
            "no FMA".to_string()
        }
    );
    let regs = match m.registers {
        Some((r, ValueOrigin::Given)) => format!("{r} vector registers (given)"),
        Some((r, _)) => format!("{r} vector registers"),
        None => "vector registers unknown".to_string(),
    };
    s += &format!(
        "vectors       {}: {} double, {} float; {regs}\n",
        isa.vector_bits
            .map_or("scalar".to_string(), |b| format!("{b} bits")),
        isa.lanes(8),
        isa.lanes(4)
    );
    for n in &isa.notes {
        s += &format!("              note: {n}\n");
    }
    let p = &m.pipeline;
    let o = m.pipeline_origin.map(ValueOrigin::name);
    s += &format!(
        "multiply-add  latency {} cycles ({}), {} per cycle ({}); {} vector loads per cycle ({})\n",
        p.fma_latency, o[0], p.fma_per_cycle, o[1], p.loads_per_cycle, o[2]
    );
    if let Some(k) = &m.known_cpu {
        s += &format!("              note: {}\n", k.name);
    }
    s += &format!("caches        of cpu0, from {}\n", m.sysfs.display());
    match &m.caches {
        Ok(cs) => {
            for c in cs {
                s += &cache_line(c);
            }
        }
        Err(e) => s += &format!("  unknown: {e}\n"),
    }
    let model = m.model();
    for b in [&model.double, &model.float] {
        s += "\n";
        s += &model_text(b);
    }
    s
}

fn level_text(l: &CacheLevel) -> String {
    format!(
        "{}, {} ways of {}",
        bytes(l.size),
        l.ways,
        bytes(l.way_bytes())
    )
}

/// The model's section for one element type: the values, then each one's inputs.
pub fn model_text(b: &Blocking) -> String {
    let i = &b.inputs;
    let e = i.elem.bytes();
    let mut s = format!("model for {}:", i.elem.name());
    for n in &NAMES[1..] {
        s += &format!(" {n}={}", opt(b.value(n)));
    }
    s += "\n";
    let p = i.pipeline;
    match &b.block {
        Ok(r) => {
            s += &format!(
                "  register block  {}×{}: {} accumulators + {} vector{} of B + 1 broadcast of A = \
                 {} of {} registers (N_VEC = {})\n",
                r.mr,
                r.nr,
                r.accumulators,
                r.vectors,
                if r.vectors == 1 { "" } else { "s" },
                r.registers_used,
                i.registers.as_ref().map_or(0, |r| *r),
                i.lanes,
            );
            let fma = u64::from(p.fma_per_cycle);
            let loads = u64::from(p.loads_per_cycle);
            let (lhs, rhs) = (fma * (r.mr + r.vectors), loads * r.accumulators);
            s += &format!(
                "                  latency: {} {} L_FMA·N_FMA = {}·{} = {}; loads: N_FMA·(MR+NR/N_VEC) \
                 = {}·{} = {lhs} {} N_LOAD·MR·NR/N_VEC = {}·{} = {rhs}\n",
                r.accumulators,
                if r.accumulators >= r.needed_accumulators {
                    "≥"
                } else {
                    "<"
                },
                p.fma_latency,
                p.fma_per_cycle,
                r.needed_accumulators,
                fma,
                r.mr + r.vectors,
                if lhs <= rhs { "≤" } else { ">" },
                loads,
                r.accumulators,
            );
            if !r.relaxed.is_empty() {
                s += &format!(
                    "                  no block fits the registers and meets the {} condition{}; \
                     dropped\n",
                    r.relaxed.join(" and "),
                    if r.relaxed.len() == 1 { "" } else { "s" }
                );
            }
        }
        Err(e) => s += &format!("  register block  unknown: {e}\n"),
    }
    match (&b.kc, &b.block) {
        (Ok(k), Ok(r)) => {
            s += &format!(
                "  KC from L1      {}: B's micro-panel the size of L1: KC = ⌊{}/({}·{})⌋ = {}\n",
                level_text(&k.level),
                k.level.size,
                r.nr,
                e,
                k.value
            );
        }
        (Err(err), _) | (_, Err(err)) => s += &format!("  KC from L1      unknown: {err}\n"),
    }
    match (&b.mc, &b.kc, &b.block) {
        (Ok(m), Ok(k), Ok(r)) => {
            // A quarter of the ways, and at least one.
            let quarter = if m.level.ways < 4 {
                format!("1 (of {} ways)", m.level.ways)
            } else {
                format!("⌊{}/4⌋ = {}", m.level.ways, m.c_ac)
            };
            s += &format!(
                "  MC from L2      {}: C_Br = ⌈{}·{}·{}/{}⌉ = {}; C_Ac = {quarter}; \
                 MC = ⌊{}·{}/({}·{})⌋ = {}{}\n",
                level_text(&m.level),
                k.value,
                r.nr,
                e,
                m.level.way_bytes(),
                m.c_br,
                m.c_ac,
                m.level.way_bytes(),
                k.value,
                e,
                m.unrounded,
                rounded(m.unrounded, m.value, "MR", r.mr)
            );
        }
        (Err(err), ..) => s += &format!("  MC from L2      unknown: {err}\n"),
        _ => unreachable!("MC is known only with KC and the register block"),
    }
    match (&b.nc, &b.mc, &b.kc, &b.block) {
        (Ok(n), Ok(m), Ok(k), Ok(r)) => {
            s += &format!(
                "  NC from L3      {}: C_Ac = ⌈{}·{}·{}/{}⌉ = {}; C_Bc = {}−1−{} = {}; \
                 NC = ⌊{}·{}/({}·{})⌋ = {}{}\n",
                level_text(&n.level),
                m.value,
                k.value,
                e,
                n.level.way_bytes(),
                n.c_ac,
                n.level.ways,
                n.c_ac,
                n.c_bc,
                n.c_bc,
                n.level.way_bytes(),
                k.value,
                e,
                n.unrounded,
                rounded(n.unrounded, n.from_l3.unwrap_or(n.value), "NR", r.nr)
            );
            if let Some(from) = n.from_l3 {
                s += &format!(
                    "                  lowered from {from} so that the KC×NC panel fits one copy buffer: \
                     ⌊{COPY_LIMIT}/({}·{})⌋·{} = {}\n",
                    k.value, r.nr, r.nr, n.value
                );
            }
        }
        (Err(err), ..) => s += &format!("  NC from L3      unknown: {err}\n"),
        _ => unreachable!("NC is known only with MC, KC and the register block"),
    }
    s
}

fn rounded(unrounded: u64, value: u64, name: &str, of: u64) -> String {
    if unrounded == value {
        String::new()
    } else {
        format!(", down to a multiple of {name} = {of}: {value}")
    }
}

#[derive(Serialize)]
struct LevelJson {
    size: u64,
    ways: u64,
    way_bytes: u64,
}

impl LevelJson {
    fn of(l: &CacheLevel) -> Self {
        LevelJson {
            size: l.size,
            ways: l.ways,
            way_bytes: l.way_bytes(),
        }
    }
}

/// One element type's model: the values by name (null when unknown), why each unknown
/// one is, and the intermediate quantities of the formulas.
#[derive(Serialize)]
pub struct ModelJson<'a> {
    #[serde(rename = "NVEC")]
    nvec: Option<u64>,
    #[serde(rename = "MR")]
    mr: Option<u64>,
    #[serde(rename = "NR")]
    nr: Option<u64>,
    #[serde(rename = "KC")]
    kc_value: Option<u64>,
    #[serde(rename = "MC")]
    mc_value: Option<u64>,
    #[serde(rename = "NC")]
    nc_value: Option<u64>,
    unknown: Entries<&'static str, &'a str>,
    inputs: InputsJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    register_block: Option<BlockJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kc: Option<KcJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mc: Option<McJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nc: Option<NcJson>,
}

#[derive(Serialize)]
struct InputsJson {
    element_bytes: u64,
    registers: Option<u64>,
    fma_latency: u32,
    fma_per_cycle: u32,
    loads_per_cycle: u32,
}

#[derive(Serialize)]
struct BlockJson<'a> {
    vectors: u64,
    accumulators: u64,
    registers_used: u64,
    needed_accumulators: u64,
    relaxed: &'a [&'static str],
}

#[derive(Serialize)]
struct KcJson {
    l1: LevelJson,
}

#[derive(Serialize)]
struct McJson {
    l2: LevelJson,
    c_br: u64,
    c_ac: u64,
    unrounded: u64,
}

#[derive(Serialize)]
struct NcJson {
    l3: LevelJson,
    c_ac: u64,
    c_bc: u64,
    unrounded: u64,
    /// The value L3 allows, where NC was lowered to fit one copy buffer.
    from_l3: Option<u64>,
}

pub fn model_json(b: &Blocking) -> ModelJson<'_> {
    let reasons = [
        ("MR", b.block.as_ref().err()),
        ("NR", b.block.as_ref().err()),
        ("KC", b.kc.as_ref().err()),
        ("MC", b.mc.as_ref().err()),
        ("NC", b.nc.as_ref().err()),
    ];
    let unknown = reasons
        .into_iter()
        .filter_map(|(n, r)| Some((n, r?.as_str())))
        .collect();
    let p = b.inputs.pipeline;
    ModelJson {
        nvec: b.value("NVEC"),
        mr: b.value("MR"),
        nr: b.value("NR"),
        kc_value: b.value("KC"),
        mc_value: b.value("MC"),
        nc_value: b.value("NC"),
        unknown: Entries(unknown),
        inputs: InputsJson {
            element_bytes: b.inputs.elem.bytes(),
            registers: b.inputs.registers.as_ref().ok().copied(),
            fma_latency: p.fma_latency,
            fma_per_cycle: p.fma_per_cycle,
            loads_per_cycle: p.loads_per_cycle,
        },
        register_block: b.block.as_ref().ok().map(|r| BlockJson {
            vectors: r.vectors,
            accumulators: r.accumulators,
            registers_used: r.registers_used,
            needed_accumulators: r.needed_accumulators,
            relaxed: &r.relaxed,
        }),
        kc: b.kc.as_ref().ok().map(|k| KcJson {
            l1: LevelJson::of(&k.level),
        }),
        mc: b.mc.as_ref().ok().map(|m| McJson {
            l2: LevelJson::of(&m.level),
            c_br: m.c_br,
            c_ac: m.c_ac,
            unrounded: m.unrounded,
        }),
        nc: b.nc.as_ref().ok().map(|n| NcJson {
            l3: LevelJson::of(&n.level),
            c_ac: n.c_ac,
            c_bc: n.c_bc,
            unrounded: n.unrounded,
            from_l3: n.from_l3,
        }),
    }
}

#[derive(Serialize)]
struct CacheJson<'a> {
    index: &'a str,
    level: Option<u32>,
    #[serde(rename = "type")]
    kind: Option<&'a str>,
    size: Option<u64>,
    ways: Option<u32>,
    line: Option<u32>,
    sets: Option<u64>,
    shared_cpu_list: Option<&'a str>,
    shared_cpus: Option<usize>,
}

impl<'a> CacheJson<'a> {
    fn of(c: &'a Cache) -> Self {
        CacheJson {
            index: &c.index,
            level: c.level,
            kind: c.kind.as_ref().map(|k| k.name()),
            size: c.size,
            ways: c.ways,
            line: c.line,
            sets: c.sets,
            shared_cpu_list: c.shared_with.as_ref().map(|s| s.0.as_str()),
            shared_cpus: c.shared_with.as_ref().map(|s| s.1.len()),
        }
    }
}

/// What `loopy machine --format json` prints.
#[derive(Serialize)]
pub struct MachineJson<'a> {
    processor: Option<&'a str>,
    sysfs: String,
    cpus: CpusJson<'a>,
    compiler: CompilerJson<'a>,
    target: TargetJson<'a>,
    pipeline: PipelineJson,
    caches: Option<Vec<CacheJson<'a>>>,
    caches_error: Option<&'a str>,
    model: ModelsJson<'a>,
    /// With `--measure`.
    #[serde(skip_serializing_if = "Option::is_none")]
    measured: Option<MeasuredJson>,
    /// With `--measure`: what an element, a loop's start and a line from each level cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    loop_costs: Option<costs::Costs>,
}

#[derive(Serialize)]
struct CpusJson<'a> {
    online: Option<&'a [u32]>,
    cores: Option<usize>,
    packages: Option<usize>,
    available: Option<usize>,
}

#[derive(Serialize)]
struct CompilerJson<'a> {
    command: String,
    version: Option<&'a str>,
}

#[derive(Serialize)]
struct TargetJson<'a> {
    arch: &'static str,
    arch_macro: Option<&'static str>,
    extension: &'static str,
    extension_macro: Option<&'static str>,
    vector_bits: Option<u32>,
    lanes: LanesJson,
    registers: Option<u32>,
    registers_origin: Option<&'static str>,
    fma: bool,
    fma_macro: Option<&'static str>,
    notes: &'a [String],
}

#[derive(Serialize)]
struct LanesJson {
    double: u32,
    float: u32,
}

#[derive(Serialize)]
struct PipelineJson {
    fma_latency: u32,
    fma_per_cycle: u32,
    loads_per_cycle: u32,
    known_cpu: Option<&'static str>,
    origin: Vec<&'static str>,
}

#[derive(Serialize)]
struct ModelsJson<'a> {
    double: ModelJson<'a>,
    float: ModelJson<'a>,
}

/// The whole report as JSON.
pub fn machine_json<'a>(m: &'a Machine, model: &'a Model) -> MachineJson<'a> {
    let isa = &m.isa;
    let (caches, caches_error) = match &m.caches {
        Ok(cs) => (Some(cs.iter().map(CacheJson::of).collect()), None),
        Err(e) => (None, Some(e.as_str())),
    };
    MachineJson {
        processor: m.processor.as_deref(),
        sysfs: m.sysfs.display().to_string(),
        cpus: CpusJson {
            online: m.cpus.online.as_deref(),
            cores: m.cpus.cores,
            packages: m.cpus.packages,
            available: m.available,
        },
        compiler: CompilerJson {
            command: m.compiler.join(" "),
            version: m.compiler_version.as_deref(),
        },
        target: TargetJson {
            arch: isa.arch.name(),
            arch_macro: isa.arch_macro,
            extension: isa.ext.name(),
            extension_macro: isa.ext_macro,
            vector_bits: isa.vector_bits,
            lanes: LanesJson {
                double: isa.lanes(Elem::Double.bytes() as u32),
                float: isa.lanes(Elem::Float.bytes() as u32),
            },
            registers: m.registers.map(|r| r.0),
            registers_origin: m.registers.map(|r| r.1.name()),
            fma: isa.fma,
            fma_macro: isa.fma_macro,
            notes: &isa.notes,
        },
        pipeline: PipelineJson {
            fma_latency: m.pipeline.fma_latency,
            fma_per_cycle: m.pipeline.fma_per_cycle,
            loads_per_cycle: m.pipeline.loads_per_cycle,
            known_cpu: m.known_cpu.map(|k| k.name),
            origin: m.pipeline_origin.iter().map(|o| o.name()).collect(),
        },
        caches,
        caches_error,
        model: ModelsJson {
            double: model_json(&model.double),
            float: model_json(&model.float),
        },
        measured: None,
        loop_costs: None,
    }
}
