//! The instruction set the compiler targets for the flags in use, read from its predefined
//! macros (`cc CFLAGS -dM -E - </dev/null`): architecture, vector extension and width,
//! vector registers, fused multiply-add; and the table of multiply-add latency and
//! throughput that the block-size model starts from.

use std::collections::BTreeMap;

/// The object-like macros of a `-dM` dump, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Macros(BTreeMap<String, String>);

impl Macros {
    /// Reads `#define NAME BODY` lines; other lines and function-like macros are skipped.
    pub fn parse(text: &str) -> Macros {
        let mut m = BTreeMap::new();
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix("#define") else {
                continue;
            };
            if !rest.starts_with([' ', '\t']) {
                continue;
            }
            let rest = rest.trim_start();
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let (name, body) = rest.split_at(end);
            if name.is_empty() || body.starts_with('(') {
                continue;
            }
            m.insert(name.to_string(), body.trim().to_string());
        }
        Macros(m)
    }

    pub fn defined(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// The macro's body, when it is defined.
    pub fn body(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// The macro's body as a positive integer (`__ARM_FEATURE_SVE_BITS 256`).
    fn number(&self, name: &str) -> Option<u32> {
        self.body(name)?.parse().ok().filter(|&n| n > 0)
    }

    /// Whether no macro was read (an empty or unrelated dump).
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The target architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    X86,
    Aarch64,
    Arm,
    Other,
}

impl Arch {
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86-64",
            Arch::X86 => "x86 (32-bit)",
            Arch::Aarch64 => "AArch64",
            Arch::Arm => "Arm (32-bit)",
            Arch::Other => "unknown",
        }
    }
}

/// The vector extension the compiler may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ext {
    Avx512,
    Avx2,
    Avx,
    Sse2,
    Sve,
    Neon,
    /// No vector extension loopy knows: one element per "vector".
    Scalar,
}

impl Ext {
    pub fn name(self) -> &'static str {
        match self {
            Ext::Avx512 => "AVX-512",
            Ext::Avx2 => "AVX2",
            Ext::Avx => "AVX",
            Ext::Sse2 => "SSE2",
            Ext::Sve => "SVE",
            Ext::Neon => "NEON",
            Ext::Scalar => "scalar",
        }
    }
}

/// What the compiler's macros say about the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Isa {
    pub arch: Arch,
    /// The macro that named the architecture (`__x86_64__`).
    pub arch_macro: Option<&'static str>,
    pub ext: Ext,
    /// The macro that named the extension (`__AVX512F__`).
    pub ext_macro: Option<&'static str>,
    /// Vector register width in bits; `None` for scalar code.
    pub vector_bits: Option<u32>,
    /// Architectural vector (or floating-point) registers; `None` when unknown.
    pub registers: Option<u32>,
    /// Whether the compiler may emit fused multiply-adds.
    pub fma: bool,
    pub fma_macro: Option<&'static str>,
    /// Facts worth saying that change nothing above (SVE whose length is set at run time).
    pub notes: Vec<String>,
}

impl Isa {
    /// Reads the target from predefined macros.
    pub fn from_macros(m: &Macros) -> Isa {
        let first = |names: &[&'static str]| names.iter().copied().find(|n| m.defined(n));
        let (arch, arch_macro) = if let Some(n) = first(&["__x86_64__", "__amd64__"]) {
            (Arch::X86_64, Some(n))
        } else if let Some(n) = first(&["__i386__"]) {
            (Arch::X86, Some(n))
        } else if let Some(n) = first(&["__aarch64__"]) {
            (Arch::Aarch64, Some(n))
        } else if let Some(n) = first(&["__arm__"]) {
            (Arch::Arm, Some(n))
        } else {
            (Arch::Other, None)
        };
        let mut notes = vec![];
        let x86 = matches!(arch, Arch::X86_64 | Arch::X86);
        let arm = matches!(arch, Arch::Aarch64 | Arch::Arm);
        let (ext, ext_macro, vector_bits) = if x86 {
            if m.defined("__AVX512F__") {
                (Ext::Avx512, Some("__AVX512F__"), Some(512))
            } else if m.defined("__AVX2__") {
                (Ext::Avx2, Some("__AVX2__"), Some(256))
            } else if m.defined("__AVX__") {
                (Ext::Avx, Some("__AVX__"), Some(256))
            } else if m.defined("__SSE2__") {
                (Ext::Sse2, Some("__SSE2__"), Some(128))
            } else {
                (Ext::Scalar, None, None)
            }
        } else if arm {
            let sve_bits = m.number("__ARM_FEATURE_SVE_BITS");
            if m.defined("__ARM_FEATURE_SVE") && sve_bits.is_some() {
                (Ext::Sve, Some("__ARM_FEATURE_SVE_BITS"), sve_bits)
            } else if m.defined("__ARM_NEON") {
                if m.defined("__ARM_FEATURE_SVE") {
                    notes.push(
                        "SVE is present but its vector length is set at run time (no \
                         `-msve-vector-bits`): fixed-width vectors are NEON's 128 bits"
                            .to_string(),
                    );
                }
                (Ext::Neon, Some("__ARM_NEON"), Some(128))
            } else {
                (Ext::Scalar, None, None)
            }
        } else {
            (Ext::Scalar, None, None)
        };
        let registers = match (arch, ext) {
            (Arch::X86_64, Ext::Avx512) => Some(32),
            (Arch::X86_64, _) => Some(16),
            (Arch::X86, _) => Some(8),
            (Arch::Aarch64, _) => Some(32),
            (Arch::Arm, _) => Some(16),
            (Arch::Other, _) => None,
        };
        let fma_macro = if x86 {
            first(&["__FMA__"])
        } else if arm {
            first(&["__ARM_FEATURE_FMA"])
        } else {
            first(&["__FP_FAST_FMA"])
        };
        Isa {
            arch,
            arch_macro,
            ext,
            ext_macro,
            vector_bits,
            registers,
            fma: fma_macro.is_some(),
            fma_macro,
            notes,
        }
    }

    /// Elements of `elem_bytes` bytes per vector register (1 for scalar code).
    pub fn lanes(&self, elem_bytes: u32) -> u32 {
        self.vector_bits
            .map_or(1, |b| (b / (8 * elem_bytes)).max(1))
    }
}

/// Latency and throughput of the vector multiply-add, and vector loads per cycle: the
/// numbers of the register-block model that no macro tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pipeline {
    /// Cycles from a multiply-add to one that depends on it.
    pub fma_latency: u32,
    /// Vector multiply-adds issued per cycle.
    pub fma_per_cycle: u32,
    /// Vector loads (or broadcasts) issued per cycle.
    pub loads_per_cycle: u32,
}

impl Pipeline {
    /// The default for an instruction set (docs/machine.md, "Defaults"): with FMA, latency 4
    /// and two per cycle (Skylake and later Intel cores, Zen 3 and later, Neoverse N1 and
    /// later); without, a multiply then a dependent add counted as one multiply-add of
    /// latency 8 (5 + 3), one per cycle. Two vector loads per cycle everywhere.
    pub fn default_for(isa: &Isa) -> Pipeline {
        if isa.fma {
            Pipeline {
                fma_latency: 4,
                fma_per_cycle: 2,
                loads_per_cycle: 2,
            }
        } else {
            Pipeline {
                fma_latency: 8,
                fma_per_cycle: 1,
                loads_per_cycle: 2,
            }
        }
    }
}

/// What the processor is, where Linux's /proc/cpuinfo says so (x86: `vendor_id`,
/// `cpu family`, `model` of the first processor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuId {
    pub vendor: String,
    pub family: u32,
    pub model: u32,
}

impl CpuId {
    /// The first processor's identity in the text of /proc/cpuinfo; `None` where a field
    /// is missing (architectures other than x86 name other fields).
    pub fn parse(cpuinfo: &str) -> Option<CpuId> {
        let first = cpuinfo.split("\n\n").next()?;
        let field = |name: &str| {
            first.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == name).then(|| v.trim().to_string())
            })
        };
        Some(CpuId {
            vendor: field("vendor_id")?,
            family: field("cpu family")?.parse().ok()?,
            model: field("model")?.parse().ok()?,
        })
    }
}

/// A processor whose units the instruction set's default does not describe: its name and
/// its numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownCpu {
    pub name: &'static str,
    pub pipeline: Pipeline,
}

impl KnownCpu {
    /// The table of processors that differ from [`Pipeline::default_for`] for the target
    /// `isa`. AMD's Zen 4 (family 25, the only one of that family with AVX-512) runs a
    /// 512-bit instruction on its 256-bit units in two halves: its two 256-bit multiply-add
    /// units issue one 512-bit multiply-add per cycle (latency 4), its two 256-bit loads
    /// one 512-bit load. With 256-bit vectors it is the default.
    pub fn lookup(isa: &Isa, cpu: &CpuId) -> Option<KnownCpu> {
        let zen4 = cpu.vendor == "AuthenticAMD" && cpu.family == 25;
        (zen4 && isa.fma && isa.vector_bits == Some(512)).then_some(KnownCpu {
            name: "AMD Zen 4: 512-bit vectors run on 256-bit units, in two halves",
            pipeline: Pipeline {
                fma_latency: 4,
                fma_per_cycle: 1,
                loads_per_cycle: 1,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zen4_runs_512_bits_in_two_halves() {
        let info = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n";
        let zen4 = CpuId::parse(info).unwrap();
        assert_eq!(
            (zen4.vendor.as_str(), zen4.family, zen4.model),
            ("AuthenticAMD", 25, 17)
        );
        assert_eq!(CpuId::parse("processor\t: 0\nBogoMIPS\t: 50\n"), None);
        let avx512 = Isa::from_macros(&Macros::parse(
            "#define __AVX512F__ 1\n#define __AVX2__ 1\n#define __AVX__ 1\n#define __FMA__ 1\n#define __x86_64__ 1\n",
        ));
        let avx2 = Isa::from_macros(&Macros::parse(
            "#define __AVX2__ 1\n#define __AVX__ 1\n#define __FMA__ 1\n#define __x86_64__ 1\n",
        ));
        let k = KnownCpu::lookup(&avx512, &zen4).unwrap();
        assert_eq!(
            (k.pipeline.fma_per_cycle, k.pipeline.loads_per_cycle),
            (1, 1)
        );
        // 256-bit vectors on Zen 4, and AVX-512 on Intel or on Zen 5: the default.
        assert_eq!(KnownCpu::lookup(&avx2, &zen4), None);
        let intel = CpuId {
            vendor: "GenuineIntel".into(),
            family: 6,
            model: 106,
        };
        assert_eq!(KnownCpu::lookup(&avx512, &intel), None);
        let zen5 = CpuId { family: 26, ..zen4 };
        assert_eq!(KnownCpu::lookup(&avx512, &zen5), None);
    }

    /// The relevant part of gcc 12's `-march=sapphirerapids` dump.
    const XEON: &str = "#define __SSE4_1__ 1\n#define __AVX512F__ 1\n#define __AVX2__ 1\n\
        #define __AVX__ 1\n#define __FMA__ 1\n#define __SSE2__ 1\n#define __x86_64__ 1\n\
        #define __x86_64 1\n#define __DBL_MAX__ ((double)1.79769313486231570814527423731704357e+308L)\n";
    const ZEN3: &str =
        "#define __AVX2__ 1\n#define __AVX__ 1\n#define __FMA__ 1\n#define __SSE2__ 1\n#define __x86_64__ 1\n";

    #[test]
    fn macro_lines() {
        let m = Macros::parse(
            "#define A 1\n#define  B_2   x y \n#define F(x) x\n# define C\nint x;\n#definex 3\n#define D\n",
        );
        assert_eq!(m.body("A"), Some("1"));
        assert_eq!(m.body("B_2"), Some("x y"));
        assert!(!m.defined("F"), "function-like macros are skipped");
        assert!(!m.defined("C"), "`# define` is not what -dM prints");
        assert!(!m.defined("definex"));
        assert_eq!(m.body("D"), Some(""));
        assert!(Macros::parse("").is_empty());
    }

    #[test]
    fn avx512_xeon() {
        let isa = Isa::from_macros(&Macros::parse(XEON));
        assert_eq!(isa.arch, Arch::X86_64);
        assert_eq!(isa.ext, Ext::Avx512);
        assert_eq!(isa.ext_macro, Some("__AVX512F__"));
        assert_eq!(isa.vector_bits, Some(512));
        assert_eq!((isa.lanes(8), isa.lanes(4)), (8, 16));
        assert_eq!(isa.registers, Some(32));
        assert!(isa.fma);
        assert_eq!(
            Pipeline::default_for(&isa),
            Pipeline {
                fma_latency: 4,
                fma_per_cycle: 2,
                loads_per_cycle: 2
            }
        );
    }

    #[test]
    fn avx2_zen3() {
        let isa = Isa::from_macros(&Macros::parse(ZEN3));
        assert_eq!(
            (isa.ext, isa.vector_bits, isa.registers),
            (Ext::Avx2, Some(256), Some(16))
        );
        assert_eq!((isa.lanes(8), isa.lanes(4)), (4, 8));
        assert!(isa.fma);
    }

    #[test]
    fn older_x86() {
        let avx = Isa::from_macros(&Macros::parse(
            "#define __AVX__ 1\n#define __SSE2__ 1\n#define __x86_64__ 1\n",
        ));
        assert_eq!(
            (avx.ext, avx.vector_bits, avx.registers),
            (Ext::Avx, Some(256), Some(16))
        );
        assert!(!avx.fma);
        assert_eq!(Pipeline::default_for(&avx).fma_latency, 8);
        assert_eq!(Pipeline::default_for(&avx).fma_per_cycle, 1);
        let base = Isa::from_macros(&Macros::parse("#define __SSE2__ 1\n#define __x86_64__ 1\n"));
        assert_eq!((base.ext, base.lanes(8)), (Ext::Sse2, 2));
        let i386 = Isa::from_macros(&Macros::parse("#define __i386__ 1\n#define __SSE2__ 1\n"));
        assert_eq!((i386.arch, i386.registers), (Arch::X86, Some(8)));
        // AVX-512 registers beyond 16 exist in 64-bit mode only.
        let i386 = Isa::from_macros(&Macros::parse(
            "#define __i386__ 1\n#define __AVX512F__ 1\n",
        ));
        assert_eq!(i386.registers, Some(8));
    }

    #[test]
    fn arm() {
        let neon = Isa::from_macros(&Macros::parse(
            "#define __aarch64__ 1\n#define __ARM_NEON 1\n#define __ARM_FEATURE_FMA 1\n",
        ));
        assert_eq!(
            (neon.arch, neon.ext, neon.lanes(8), neon.registers, neon.fma),
            (Arch::Aarch64, Ext::Neon, 2, Some(32), true)
        );
        assert!(neon.notes.is_empty());
        let sve_free = Isa::from_macros(&Macros::parse(
            "#define __aarch64__ 1\n#define __ARM_NEON 1\n#define __ARM_FEATURE_SVE 1\n",
        ));
        assert_eq!(sve_free.ext, Ext::Neon);
        assert_eq!(sve_free.notes.len(), 1);
        let sve = Isa::from_macros(&Macros::parse(
            "#define __aarch64__ 1\n#define __ARM_NEON 1\n#define __ARM_FEATURE_SVE 1\n\
             #define __ARM_FEATURE_SVE_BITS 256\n",
        ));
        assert_eq!(
            (sve.ext, sve.vector_bits, sve.lanes(4)),
            (Ext::Sve, Some(256), 8)
        );
        let arm32 = Isa::from_macros(&Macros::parse("#define __arm__ 1\n#define __ARM_NEON 1\n"));
        assert_eq!((arm32.arch, arm32.registers), (Arch::Arm, Some(16)));
    }

    #[test]
    fn unknown_target() {
        let isa = Isa::from_macros(&Macros::parse("#define __riscv 1\n"));
        assert_eq!(
            (isa.arch, isa.ext, isa.registers),
            (Arch::Other, Ext::Scalar, None)
        );
        assert_eq!(isa.lanes(8), 1);
    }
}
