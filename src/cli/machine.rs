//! `loopy machine`: what loopy knows of the machine and the compiler flags in use, and the
//! block sizes the analytical model derives from them (docs/machine.md). Printing only; the
//! probing and the model are `crate::machine`.

use super::{Ctx, Format};
use crate::machine::measure::{self, Measurement};
use crate::machine::model::{Blocking, CacheLevel, Elem, NAMES};
use crate::machine::sysfs::Cache;
use crate::machine::{self, Machine, Overrides, ValueOrigin};
use crate::model::json::Json;
use crate::native::{compile::split_words, Toolchain};
use clap::Args;
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
    /// take them instead of the table's (values given with the options above stay).
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
    let mut measured = None;
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
    }
    match a.format {
        Format::Text => {
            print!("{}", text(&m));
            if let Some(x) = &measured {
                print!("{}", measured_text(x));
            }
        }
        Format::Json => {
            let mut j = json(&m);
            if let (Json::Object(fields), Some(x)) = (&mut j, &measured) {
                fields.push(("measured".to_string(), measured_json(x)));
            }
            println!("{}", j.pretty());
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

fn measured_json(x: &Measurement) -> Json {
    Json::obj(vec![
        ("vector_bytes", int(x.vector_bytes)),
        ("chains", int(x.chains)),
        ("cycle_ns", Json::Num(x.cycle_ns)),
        ("fma_latency", Json::Num(x.fma_latency())),
        ("fma_per_cycle", Json::Num(x.fma_per_cycle())),
        ("loads_per_cycle", Json::Num(x.loads_per_cycle())),
    ])
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
                "  KC from L1      {}: C_Ar = ⌊({}−1)·{}/({}+{})⌋ = {}; KC = ⌊{}·{}/({}·{})⌋ = {}\n",
                level_text(&k.level),
                k.level.ways,
                r.mr,
                r.mr,
                r.nr,
                k.c_ar,
                k.c_ar,
                k.level.way_bytes(),
                r.mr,
                e,
                k.value
            );
        }
        (Err(err), _) | (_, Err(err)) => s += &format!("  KC from L1      unknown: {err}\n"),
    }
    match (&b.mc, &b.kc, &b.block) {
        (Ok(m), Ok(k), Ok(r)) => {
            s += &format!(
                "  MC from L2      {}: C_Br = ⌈{}·{}·{}/{}⌉ = {}; C_Ac = {}−1−{} = {}; \
                 MC = ⌊{}·{}/({}·{})⌋ = {}{}\n",
                level_text(&m.level),
                k.value,
                r.nr,
                e,
                m.level.way_bytes(),
                m.c_br,
                m.level.ways,
                m.c_br,
                m.c_ac,
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
                rounded(n.unrounded, n.value, "NR", r.nr)
            );
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

fn int(n: impl Into<i128>) -> Json {
    Json::Int(n.into())
}

fn opt_int<T: Into<i128>>(v: Option<T>) -> Json {
    v.map_or(Json::Null, int)
}

fn level_json(l: &CacheLevel) -> Json {
    Json::obj(vec![
        ("size", int(l.size)),
        ("ways", int(l.ways)),
        ("way_bytes", int(l.way_bytes())),
    ])
}

/// One element type's model: the values by name (null when unknown), why each unknown
/// one is, and the intermediate quantities of the formulas.
pub fn model_json(b: &Blocking) -> Json {
    let mut fields: Vec<(&str, Json)> = NAMES.iter().map(|n| (*n, opt_int(b.value(n)))).collect();
    let mut unknown = vec![];
    let reasons = [
        ("MR", b.block.as_ref().err()),
        ("NR", b.block.as_ref().err()),
        ("KC", b.kc.as_ref().err()),
        ("MC", b.mc.as_ref().err()),
        ("NC", b.nc.as_ref().err()),
    ];
    for (n, r) in reasons {
        if let Some(r) = r {
            unknown.push((n, Json::str(r)));
        }
    }
    fields.push(("unknown", Json::obj(unknown)));
    let p = b.inputs.pipeline;
    fields.push((
        "inputs",
        Json::obj(vec![
            ("element_bytes", int(b.inputs.elem.bytes())),
            (
                "registers",
                opt_int(b.inputs.registers.as_ref().ok().copied()),
            ),
            ("fma_latency", int(p.fma_latency)),
            ("fma_per_cycle", int(p.fma_per_cycle)),
            ("loads_per_cycle", int(p.loads_per_cycle)),
        ]),
    ));
    if let Ok(r) = &b.block {
        fields.push((
            "register_block",
            Json::obj(vec![
                ("vectors", int(r.vectors)),
                ("accumulators", int(r.accumulators)),
                ("registers_used", int(r.registers_used)),
                ("needed_accumulators", int(r.needed_accumulators)),
                (
                    "relaxed",
                    Json::Array(r.relaxed.iter().map(|x| Json::str(*x)).collect()),
                ),
            ]),
        ));
    }
    if let Ok(k) = &b.kc {
        fields.push((
            "kc",
            Json::obj(vec![("l1", level_json(&k.level)), ("c_ar", int(k.c_ar))]),
        ));
    }
    if let Ok(m) = &b.mc {
        fields.push((
            "mc",
            Json::obj(vec![
                ("l2", level_json(&m.level)),
                ("c_br", int(m.c_br)),
                ("c_ac", int(m.c_ac)),
                ("unrounded", int(m.unrounded)),
            ]),
        ));
    }
    if let Ok(n) = &b.nc {
        fields.push((
            "nc",
            Json::obj(vec![
                ("l3", level_json(&n.level)),
                ("c_ac", int(n.c_ac)),
                ("c_bc", int(n.c_bc)),
                ("unrounded", int(n.unrounded)),
            ]),
        ));
    }
    Json::obj(fields)
}

fn cache_json(c: &Cache) -> Json {
    Json::obj(vec![
        ("index", Json::str(&c.index)),
        ("level", opt_int(c.level)),
        ("type", Json::opt_str(c.kind.as_ref().map(|k| k.name()))),
        ("size", opt_int(c.size)),
        ("ways", opt_int(c.ways)),
        ("line", opt_int(c.line)),
        ("sets", opt_int(c.sets)),
        (
            "shared_cpu_list",
            Json::opt_str(c.shared_with.as_ref().map(|s| s.0.as_str())),
        ),
        (
            "shared_cpus",
            opt_int(c.shared_with.as_ref().map(|s| s.1.len() as i128)),
        ),
    ])
}

/// The whole report as JSON.
pub fn json(m: &Machine) -> Json {
    let isa = &m.isa;
    let model = m.model();
    let (caches, caches_error) = match &m.caches {
        Ok(cs) => (Json::Array(cs.iter().map(cache_json).collect()), Json::Null),
        Err(e) => (Json::Null, Json::str(e)),
    };
    Json::obj(vec![
        ("processor", Json::opt_str(m.processor.as_deref())),
        ("sysfs", Json::str(m.sysfs.display().to_string())),
        (
            "cpus",
            Json::obj(vec![
                (
                    "online",
                    m.cpus.online.as_ref().map_or(Json::Null, |v| {
                        Json::Array(v.iter().map(|c| int(*c)).collect())
                    }),
                ),
                ("cores", opt_int(m.cpus.cores.map(|n| n as i128))),
                ("packages", opt_int(m.cpus.packages.map(|n| n as i128))),
                ("available", opt_int(m.available.map(|n| n as i128))),
            ]),
        ),
        (
            "compiler",
            Json::obj(vec![
                ("command", Json::str(m.compiler.join(" "))),
                ("version", Json::opt_str(m.compiler_version.as_deref())),
            ]),
        ),
        (
            "target",
            Json::obj(vec![
                ("arch", Json::str(isa.arch.name())),
                ("arch_macro", Json::opt_str(isa.arch_macro)),
                ("extension", Json::str(isa.ext.name())),
                ("extension_macro", Json::opt_str(isa.ext_macro)),
                ("vector_bits", opt_int(isa.vector_bits)),
                (
                    "lanes",
                    Json::obj(vec![
                        ("double", int(isa.lanes(Elem::Double.bytes() as u32))),
                        ("float", int(isa.lanes(Elem::Float.bytes() as u32))),
                    ]),
                ),
                ("registers", opt_int(m.registers.map(|r| r.0))),
                (
                    "registers_origin",
                    Json::opt_str(m.registers.map(|r| r.1.name())),
                ),
                ("fma", Json::Bool(isa.fma)),
                ("fma_macro", Json::opt_str(isa.fma_macro)),
                (
                    "notes",
                    Json::Array(isa.notes.iter().map(Json::str).collect()),
                ),
            ]),
        ),
        (
            "pipeline",
            Json::obj(vec![
                ("fma_latency", int(m.pipeline.fma_latency)),
                ("fma_per_cycle", int(m.pipeline.fma_per_cycle)),
                ("loads_per_cycle", int(m.pipeline.loads_per_cycle)),
                ("known_cpu", Json::opt_str(m.known_cpu.map(|k| k.name))),
                (
                    "origin",
                    Json::Array(
                        m.pipeline_origin
                            .iter()
                            .map(|o| Json::str(o.name()))
                            .collect(),
                    ),
                ),
            ]),
        ),
        ("caches", caches),
        ("caches_error", caches_error),
        (
            "model",
            Json::obj(vec![
                ("double", model_json(&model.double)),
                ("float", model_json(&model.float)),
            ]),
        ),
    ])
}
