//! What loopy knows of the machine it runs on and of the compiler flags in use
//! (`loopy machine`, docs/machine.md): the instruction set and vector width from the
//! compiler's predefined macros ([`isa`]), CPUs and caches from Linux's sysfs ([`sysfs`]),
//! and the analytical block-size model that turns them into a first guess of MR, NR, KC, MC
//! and NC ([`model`]).
//!
//! Knows nothing of scripts: a script parameter's default reads a value by name through
//! [`model::Model::value`]. Uses `native` only to run the compiler.

pub mod costs;
pub mod isa;
pub mod measure;
pub mod model;
pub mod sysfs;

use crate::diag::Report;
use crate::native::Toolchain;
use isa::{CpuId, Isa, KnownCpu, Macros, Pipeline};
use model::{Blocking, CacheLevel, Elem, Inputs, Model};
use std::path::{Path, PathBuf};
use sysfs::{Cache, Cpus};

/// Where Linux describes the CPUs.
pub const SYSFS_CPU: &str = "/sys/devices/system/cpu";

/// The largest cache size the model takes (1 TiB): sizes read from a copied sysfs tree are
/// not trusted beyond it, so that the model's products stay far from overflowing.
const MAX_CACHE: u64 = 1 << 40;

/// Values given on the command line in place of the ISA table's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub fma_latency: Option<u32>,
    pub fma_per_cycle: Option<u32>,
    pub loads_per_cycle: Option<u32>,
    pub registers: Option<u32>,
}

/// Where a value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueOrigin {
    /// Read from the compiler's macros or the machine.
    Probed,
    /// The ISA table's default (docs/machine.md).
    Default,
    /// The table of processors whose units differ from the default ([`KnownCpu`]).
    KnownCpu,
    /// Given on the command line.
    Given,
    /// Found by the micro-benchmarks of `loopy machine --measure` ([`measure`]).
    Measured,
}

impl ValueOrigin {
    pub fn name(self) -> &'static str {
        match self {
            ValueOrigin::Probed => "probed",
            ValueOrigin::Default => "default",
            ValueOrigin::KnownCpu => "known CPU",
            ValueOrigin::Given => "given",
            ValueOrigin::Measured => "measured",
        }
    }
}

/// Everything `loopy machine` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    /// The processor's name (`model name` of /proc/cpuinfo; read only from the live system).
    pub processor: Option<String>,
    /// The processor of the table of known ones whose numbers `pipeline` takes.
    pub known_cpu: Option<KnownCpu>,
    /// The `cpu` folder read.
    pub sysfs: PathBuf,
    pub cpus: Cpus,
    /// CPUs this process may run on (live system only).
    pub available: Option<usize>,
    pub caches: Result<Vec<Cache>, String>,
    /// The compiler and flags whose macros were read.
    pub compiler: Vec<String>,
    /// The compiler's `--version` first line.
    pub compiler_version: Option<String>,
    pub isa: Isa,
    /// Vector registers and where that number came from.
    pub registers: Option<(u32, ValueOrigin)>,
    pub pipeline: Pipeline,
    /// The origin of each of `pipeline`'s fields, in order.
    pub pipeline_origin: [ValueOrigin; 3],
}

/// Reads the machine: the compiler's predefined macros for `toolchain`'s flags, and the
/// CPUs and caches under `sysfs` (default [`SYSFS_CPU`], where the processor's name and the
/// CPUs available to this process are read too). `Err` when the compiler cannot be run.
pub fn probe(
    toolchain: &Toolchain,
    sysfs: Option<&Path>,
    over: &Overrides,
) -> Result<Machine, Report> {
    let macros = Macros::parse(&toolchain.predefined_macros()?);
    let live = sysfs.is_none();
    let root = sysfs.map_or_else(|| PathBuf::from(SYSFS_CPU), Path::to_path_buf);
    let mut compiler = toolchain.cc.clone();
    compiler.extend(toolchain.cflags.iter().cloned());
    Ok(from_parts(
        &macros,
        &root,
        over,
        compiler,
        toolchain.version(),
        if live {
            processor()
        } else {
            Processor::default()
        },
        if live {
            std::thread::available_parallelism().ok().map(|n| n.get())
        } else {
            None
        },
    ))
}

/// [`probe`] from what was read.
pub fn from_parts(
    macros: &Macros,
    sysfs: &Path,
    over: &Overrides,
    compiler: Vec<String>,
    compiler_version: Option<String>,
    processor: Processor,
    available: Option<usize>,
) -> Machine {
    let isa = Isa::from_macros(macros);
    let known_cpu = processor
        .id
        .as_ref()
        .and_then(|id| KnownCpu::lookup(&isa, id));
    let (table, origin) = match known_cpu {
        Some(k) => (k.pipeline, ValueOrigin::KnownCpu),
        None => (Pipeline::default_for(&isa), ValueOrigin::Default),
    };
    let pick = |given: Option<u32>, default: u32| match given {
        Some(v) => (v, ValueOrigin::Given),
        None => (default, origin),
    };
    let (fma_latency, o1) = pick(over.fma_latency, table.fma_latency);
    let (fma_per_cycle, o2) = pick(over.fma_per_cycle, table.fma_per_cycle);
    let (loads_per_cycle, o3) = pick(over.loads_per_cycle, table.loads_per_cycle);
    let registers = match over.registers {
        Some(r) => Some((r, ValueOrigin::Given)),
        None => isa.registers.map(|r| (r, ValueOrigin::Probed)),
    };
    Machine {
        processor: processor.name,
        known_cpu,
        sysfs: sysfs.to_path_buf(),
        cpus: sysfs::read_cpus(sysfs),
        available,
        caches: sysfs::read_caches(sysfs),
        compiler,
        compiler_version,
        isa,
        registers,
        pipeline: Pipeline {
            fma_latency,
            fma_per_cycle,
            loads_per_cycle,
        },
        pipeline_origin: [o1, o2, o3],
    }
}

/// What /proc/cpuinfo says of the processor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Processor {
    /// `model name` (x86; other architectures may not say).
    pub name: Option<String>,
    pub id: Option<CpuId>,
}

/// The live system's processor.
fn processor() -> Processor {
    let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") else {
        return Processor::default();
    };
    Processor {
        name: text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "model name" && !v.trim().is_empty()).then(|| v.trim().to_string())
        }),
        id: CpuId::parse(&text),
    }
}

impl Machine {
    /// The machine with the pipeline numbers a micro-benchmark measured in place of the
    /// table's; those given on the command line stay.
    pub fn with_measured(mut self, measured: Pipeline) -> Machine {
        let values = [
            (&mut self.pipeline.fma_latency, measured.fma_latency),
            (&mut self.pipeline.fma_per_cycle, measured.fma_per_cycle),
            (&mut self.pipeline.loads_per_cycle, measured.loads_per_cycle),
        ];
        for ((slot, value), origin) in values.into_iter().zip(&mut self.pipeline_origin) {
            if *origin != ValueOrigin::Given {
                *slot = value;
                *origin = ValueOrigin::Measured;
            }
        }
        self
    }

    /// The data (or unified) cache of a level, as cpu0 sees it.
    pub fn cache(&self, level: u32) -> Option<&Cache> {
        self.caches
            .as_ref()
            .ok()?
            .iter()
            .find(|c| c.level == Some(level) && c.kind.as_ref().is_some_and(|k| k.holds_data()))
    }

    /// The sizes in bytes of L1, L2 and L3 (data), each 32 KiB, 1 MiB or 8 MiB where it
    /// cannot be read: the buffers of the cost micro-benchmarks ([`costs`]).
    pub fn cache_bytes(&self) -> [u64; 3] {
        let size = |level: u32, default: u64| {
            (self.cache(level).and_then(|c| c.size)).map_or(default, |s| s.min(MAX_CACHE))
        };
        [size(1, 32 << 10), size(2, 1 << 20), size(3, 8 << 20)]
    }

    /// A cache level as the model needs it, or why it is unknown.
    pub fn level(&self, level: u32) -> Result<CacheLevel, String> {
        if let Err(e) = &self.caches {
            return Err(format!("caches unknown: {e}"));
        }
        let c = self
            .cache(level)
            .ok_or_else(|| format!("no L{level} data cache is reported"))?;
        match (c.size, c.ways) {
            (Some(size), _) if size > MAX_CACHE => Err(format!(
                "L{level} says it holds {size} bytes, more than loopy believes of a cache"
            )),
            (Some(size), Some(ways)) if u64::from(ways) <= size => Ok(CacheLevel {
                size,
                ways: u64::from(ways),
            }),
            (None, _) => Err(format!("the size of L{level} is unknown")),
            _ => Err(format!("the associativity of L{level} is unknown")),
        }
    }

    /// The model's inputs for one element type.
    pub fn inputs(&self, elem: Elem) -> Inputs {
        let lanes = u64::from(self.isa.lanes(elem.bytes() as u32));
        Inputs {
            elem,
            lanes,
            registers: self.registers.map(|(r, _)| u64::from(r)).ok_or_else(|| {
                "the vector registers of this architecture are unknown (give \
                 `--vector-registers N`)"
                    .to_string()
            }),
            pipeline: self.pipeline,
            l1: self.level(1),
            l2: self.level(2),
            l3: self.level(3),
        }
    }

    /// The block-size model for double and float.
    pub fn model(&self) -> Model {
        Model {
            double: Blocking::new(self.inputs(Elem::Double)),
            float: Blocking::new(self.inputs(Elem::Float)),
        }
    }
}

/// Bytes of one vector register of the target the toolchain compiles for with its flags,
/// from the compiler's predefined macros; `None` for scalar code or when the compiler
/// cannot be asked. The code generator's register blocks take their width from it.
pub fn vector_bytes(toolchain: &crate::native::Toolchain) -> Option<u32> {
    let dump = toolchain.predefined_macros().ok()?;
    isa::Isa::from_macros(&isa::Macros::parse(&dump))
        .vector_bits
        .map(|b| b / 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::WorkDir;

    #[test]
    fn a_machine_from_fixtures() {
        let dir = WorkDir::new(None).unwrap();
        sysfs::write_tree(
            dir.path(),
            "0-1",
            &[(0, 0, 0), (1, 0, 1)],
            &[
                ["1", "Data", "48K", "12", "64", "0"],
                ["1", "Instruction", "32K", "8", "64", "0"],
                ["2", "Unified", "2048K", "16", "64", "0"],
                ["3", "Unified", "266240K", "20", "64", "0-1"],
            ],
        );
        let macros = Macros::parse(
            "#define __x86_64__ 1\n#define __AVX512F__ 1\n#define __AVX2__ 1\n#define __FMA__ 1\n",
        );
        let m = from_parts(
            &macros,
            dir.path(),
            &Overrides::default(),
            vec!["cc".into(), "-O3".into()],
            None,
            Processor::default(),
            None,
        );
        assert_eq!(m.cpus.cores, Some(2));
        assert_eq!(m.registers, Some((32, ValueOrigin::Probed)));
        assert_eq!(m.pipeline_origin, [ValueOrigin::Default; 3]);
        assert_eq!(
            m.level(1),
            Ok(CacheLevel {
                size: 48 << 10,
                ways: 12
            })
        );
        let model = m.model();
        assert_eq!(model.value("MR"), Some(14));
        assert_eq!(model.value("NC"), Some(2720));
        assert_eq!(model.value("float.NR"), Some(32));

        // On Zen 4 the table's row for 512-bit vectors on 256-bit units: half the
        // multiply-adds and loads per cycle, so 4 independent accumulators hide the latency.
        let zen4 = Processor {
            name: None,
            id: Some(CpuId {
                vendor: "AuthenticAMD".into(),
                family: 25,
                model: 17,
            }),
        };
        let z = from_parts(
            &macros,
            dir.path(),
            &Overrides::default(),
            vec![],
            None,
            zen4,
            None,
        );
        assert_eq!(z.pipeline_origin, [ValueOrigin::KnownCpu; 3]);
        assert_eq!(
            (z.pipeline.fma_per_cycle, z.pipeline.loads_per_cycle),
            (1, 1)
        );
        assert!(z.known_cpu.is_some_and(|k| k.name.contains("Zen 4")));
        let needed = z.model().double.block.map(|r| r.needed_accumulators);
        assert_eq!(needed, Ok(4));

        // Overrides replace the table and the register count.
        let over = Overrides {
            fma_latency: Some(5),
            registers: Some(16),
            ..Overrides::default()
        };
        let m = from_parts(
            &macros,
            dir.path(),
            &over,
            vec![],
            None,
            Processor::default(),
            None,
        );
        assert_eq!(m.pipeline.fma_latency, 5);
        assert_eq!(m.pipeline_origin[0], ValueOrigin::Given);
        assert_eq!(m.registers, Some((16, ValueOrigin::Given)));
        assert_eq!(
            m.model().value("MR"),
            Some(6),
            "16 registers of 8 doubles: 6×16"
        );

        // No sysfs: caches unknown, so only the register block is known.
        let m = from_parts(
            &macros,
            &dir.join("nothing"),
            &Overrides::default(),
            vec![],
            None,
            Processor::default(),
            None,
        );
        assert!(m.level(1).unwrap_err().starts_with("caches unknown"));
        let model = m.model();
        assert_eq!(model.value("MR"), Some(14));
        assert_eq!(model.value("KC"), None);
        // Why: the first unknown input on the way, for every name.
        assert!(model
            .explain("NC")
            .unwrap()
            .unwrap_err()
            .starts_with("caches unknown"));
        assert!(model
            .explain("float.MC")
            .unwrap()
            .unwrap_err()
            .starts_with("caches unknown"));
        assert_eq!(model.explain("MR"), Some(Ok(14)));
        assert_eq!(model.explain("LD"), None);
        assert_eq!(model.explain("half.MR"), None);
        for n in Model::names() {
            assert_eq!(model.explain(&n).unwrap().ok(), model.value(&n), "{n}");
        }
    }

    #[test]
    fn implausible_sizes_are_not_taken() {
        let dir = WorkDir::new(None).unwrap();
        sysfs::write_tree(
            dir.path(),
            "0",
            &[(0, 0, 0)],
            &[
                ["1", "Data", "32K", "8", "64", "0"],
                ["2", "Unified", "2000000000G", "8", "64", "0"],
            ],
        );
        let macros = Macros::parse("#define __x86_64__ 1\n#define __AVX2__ 1\n");
        let m = from_parts(
            &macros,
            dir.path(),
            &Overrides::default(),
            vec![],
            None,
            Processor::default(),
            None,
        );
        assert!(m.level(1).is_ok());
        assert!(m.level(2).unwrap_err().contains("more than loopy believes"));
        assert_eq!(m.level(3), Err("no L3 data cache is reported".to_string()));
        let model = m.model();
        assert!(model.value("KC").is_some());
        assert_eq!(model.value("MC"), None);
    }
}
