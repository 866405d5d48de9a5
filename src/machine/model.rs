//! The analytical block-size model of Low, Igual, Smith and Quintana-Ortí ("Analytical
//! modeling is enough for high-performance BLIS", ACM TOMS 43(2), 2016) for a BLIS-shaped
//! matrix product: an MR×NR block of C in vector registers (NR along the vectors, B loaded
//! as NR/N_VEC vectors and A broadcast one element at a time), a KC×NR micro-panel of B kept
//! in L1, an MC×KC block of A in L2 and a KC×NC panel of B in L3. The formulas, and a worked
//! example for two machines, are in docs/machine.md; every value here is one of them.
//!
//! Pure arithmetic on the inputs: nothing here reads the machine.

use super::isa::Pipeline;
use crate::model::state::COPY_LIMIT;

/// The element type of a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    Double,
    Float,
}

impl Elem {
    pub fn name(self) -> &'static str {
        match self {
            Elem::Double => "double",
            Elem::Float => "float",
        }
    }

    /// S_data: bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            Elem::Double => 8,
            Elem::Float => 4,
        }
    }
}

/// A cache level as the model sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheLevel {
    /// Bytes.
    pub size: u64,
    /// W: ways of associativity.
    pub ways: u64,
}

impl CacheLevel {
    /// Bytes of one way: N (sets) × C (line size) = size / W.
    pub fn way_bytes(&self) -> u64 {
        self.size / self.ways
    }
}

/// The square tile size `loopy search` starts from for a permutable band: the largest
/// multiple of 8 such that three `T x T` tiles of `elem_bytes`-byte elements (two operands
/// and a result, as in a tiled product) fill at most half of the L1 data cache, at least 8.
/// For a 48 KiB L1 and doubles, 32; for 32 KiB, 24.
pub fn square_tile(l1: &CacheLevel, elem_bytes: u64) -> u32 {
    let budget = l1.size / 2 / (3 * elem_bytes.max(1));
    let mut t: u64 = 8;
    while (t + 8) * (t + 8) <= budget {
        t += 8;
    }
    t as u32
}

/// What the model reads, for one element type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inputs {
    pub elem: Elem,
    /// N_VEC: elements per vector register.
    pub lanes: u64,
    /// N_REG: vector registers; `Err` says why unknown.
    pub registers: Result<u64, String>,
    pub pipeline: Pipeline,
    pub l1: Result<CacheLevel, String>,
    pub l2: Result<CacheLevel, String>,
    pub l3: Result<CacheLevel, String>,
}

/// The MR×NR block of C held in registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterBlock {
    pub mr: u64,
    pub nr: u64,
    /// NR / N_VEC: vectors of B loaded per k step (and accumulators per row of the block).
    pub vectors: u64,
    /// MR · NR / N_VEC.
    pub accumulators: u64,
    /// accumulators + vectors + 1 (the broadcast element of A).
    pub registers_used: u64,
    /// L_FMA · N_FMA: the independent multiply-adds needed to hide the latency.
    pub needed_accumulators: u64,
    /// Constraints no block could meet and that were dropped, in the order dropped.
    pub relaxed: Vec<&'static str>,
}

/// KC from L1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kc {
    pub value: u64,
    pub level: CacheLevel,
}

/// MC from L2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mc {
    pub value: u64,
    pub level: CacheLevel,
    /// C_Br: ways of L2 a micro-panel of B takes, ⌈KC · NR · S / way⌉.
    pub c_br: u64,
    /// C_Ac: ways of L2 for the block of A, a quarter of them, ⌊W₂ / 4⌋ (at least one).
    pub c_ac: u64,
    /// ⌊C_Ac · way / (KC · S)⌋ before rounding down to a multiple of MR.
    pub unrounded: u64,
}

/// NC from L3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nc {
    pub value: u64,
    pub level: CacheLevel,
    /// C_Ac: ways of L3 the block of A takes, ⌈MC · KC · S / way⌉.
    pub c_ac: u64,
    /// C_Bc: ways of L3 left for the panel of B, W₃ − 1 − C_Ac.
    pub c_bc: u64,
    /// ⌊C_Bc · way / (KC · S)⌋ before rounding down to a multiple of NR.
    pub unrounded: u64,
    /// The value L3 allows, where it was lowered so that the packed KC×NC panel fits one
    /// copy buffer (at most [`COPY_LIMIT`] elements): NC = ⌊COPY_LIMIT / (KC · NR)⌋ · NR.
    pub from_l3: Option<u64>,
}

/// The model's answer for one element type; each part is `Err` with the reason when an
/// input is unknown or leaves no room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocking {
    pub inputs: Inputs,
    pub block: Result<RegisterBlock, String>,
    pub kc: Result<Kc, String>,
    pub mc: Result<Mc, String>,
    pub nc: Result<Nc, String>,
}

/// The names [`Blocking::value`] answers.
pub const NAMES: [&str; 6] = ["NVEC", "MR", "NR", "KC", "MC", "NC"];

impl Blocking {
    /// Evaluates the model.
    pub fn new(inputs: Inputs) -> Blocking {
        let block = register_block(&inputs);
        let s = inputs.elem.bytes();
        let kc = match (&block, &inputs.l1) {
            (Err(_), _) => Err("the register block is unknown".to_string()),
            (_, Err(e)) => Err(e.clone()),
            (Ok(b), Ok(l1)) => kc(b, *l1, s),
        };
        let mc = match (&block, &kc, &inputs.l2) {
            (_, Err(_), _) => Err("KC is unknown".to_string()),
            (_, _, Err(e)) => Err(e.clone()),
            (Ok(b), Ok(k), Ok(l2)) => mc(b, k.value, *l2, s),
            (Err(_), ..) => unreachable!("KC needs the register block"),
        };
        let nc = match (&block, &kc, &mc, &inputs.l3) {
            (_, _, Err(_), _) => Err("MC is unknown".to_string()),
            (_, _, _, Err(e)) => Err(e.clone()),
            (Ok(b), Ok(k), Ok(m), Ok(l3)) => nc(b, k.value, m.value, *l3, s),
            _ => unreachable!("MC needs KC and the register block"),
        };
        Blocking {
            inputs,
            block,
            kc,
            mc,
            nc,
        }
    }

    /// A value by name: `NVEC`, `MR`, `NR`, `KC`, `MC`, `NC` ([`NAMES`]); `None` for another
    /// name or a value the model could not compute.
    pub fn value(&self, name: &str) -> Option<u64> {
        match name {
            "NVEC" => Some(self.inputs.lanes),
            "MR" => self.block.as_ref().ok().map(|b| b.mr),
            "NR" => self.block.as_ref().ok().map(|b| b.nr),
            "KC" => self.kc.as_ref().ok().map(|k| k.value),
            "MC" => self.mc.as_ref().ok().map(|m| m.value),
            "NC" => self.nc.as_ref().ok().map(|n| n.value),
            _ => None,
        }
    }

    /// A value by name as [`Self::value`], with why it is unknown: the first unknown input
    /// on its way (MC unknown because L1 is unknown says so, not only that KC is unknown).
    /// `None` for a name the model does not have.
    pub fn explain(&self, name: &str) -> Option<Result<u64, String>> {
        let block = || self.block.as_ref().map_err(Clone::clone);
        let kc = || -> Result<u64, String> {
            block()?;
            self.kc.as_ref().map(|k| k.value).map_err(Clone::clone)
        };
        let mc = || -> Result<u64, String> {
            kc()?;
            self.mc.as_ref().map(|m| m.value).map_err(Clone::clone)
        };
        Some(match name {
            "NVEC" => Ok(self.inputs.lanes),
            "MR" => block().map(|b| b.mr),
            "NR" => block().map(|b| b.nr),
            "KC" => kc(),
            "MC" => mc(),
            "NC" => mc().and_then(|_| self.nc.as_ref().map(|n| n.value).map_err(Clone::clone)),
            _ => return None,
        })
    }
}

/// The models for both element types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    pub double: Blocking,
    pub float: Blocking,
}

impl Model {
    /// A value by name: `MC` is double's (the default element type), `double.MC` and
    /// `float.MC` name the type; `None` for an unknown name or an unknown value.
    #[cfg(test)]
    pub fn value(&self, name: &str) -> Option<u64> {
        match name.split_once('.') {
            Some(("double", n)) => self.double.value(n),
            Some(("float", n)) => self.float.value(n),
            Some(_) => None,
            None => self.double.value(name),
        }
    }

    /// [`Self::value`] with why a value is unknown ([`Blocking::explain`]).
    pub fn explain(&self, name: &str) -> Option<Result<u64, String>> {
        match name.split_once('.') {
            Some(("double", n)) => self.double.explain(n),
            Some(("float", n)) => self.float.explain(n),
            Some(_) => None,
            None => self.double.explain(name),
        }
    }

    /// Every name [`Self::value`] answers: [`NAMES`] (double's), then `double.` and
    /// `float.` with each.
    pub fn names() -> Vec<String> {
        let mut out: Vec<String> = NAMES.iter().map(|n| n.to_string()).collect();
        for t in ["double", "float"] {
            out.extend(NAMES.iter().map(|n| format!("{t}.{n}")));
        }
        out
    }
}

/// A condition on a block (MR, v).
type Condition<'a> = &'a dyn Fn(&(u64, u64)) -> bool;

/// True when a/b > c/d (positive denominators).
fn greater(a: u64, b: u64, c: u64, d: u64) -> bool {
    u128::from(a) * u128::from(d) > u128::from(c) * u128::from(b)
}

/// The register block: for each count v of B vectors (NR = v · N_VEC), the largest MR whose
/// MR · v accumulators, v vectors of B and one broadcast of A fit in N_REG registers; among
/// those that hide the multiply-add latency (MR · v ≥ L_FMA · N_FMA) and are not bound by
/// loads (N_FMA · (MR + v) ≤ N_LOAD · MR · v), the one with the most elements of C updated
/// per element of A and B loaded, MR · NR / (MR + NR); ties to more accumulators, then to
/// the smaller NR. When no block meets both conditions the load condition is dropped, else
/// the latency one, else both (named in `relaxed`).
fn register_block(inp: &Inputs) -> Result<RegisterBlock, String> {
    let regs = inp.registers.clone()?;
    let p = inp.pipeline;
    let (lat, fma, loads) = (
        u64::from(p.fma_latency),
        u64::from(p.fma_per_cycle),
        u64::from(p.loads_per_cycle),
    );
    if regs < 3 {
        return Err(format!(
            "{regs} vector registers cannot hold an accumulator, a vector of B and a broadcast of A"
        ));
    }
    if inp.lanes == 0 || lat == 0 || fma == 0 || loads == 0 {
        return Err("vector width, latency and throughputs must be positive".to_string());
    }
    let needed = lat * fma;
    // (mr, v) for every v with room for at least one row.
    let shapes: Vec<(u64, u64)> = (1..regs)
        .map(|v| ((regs - v - 1) / v, v))
        .take_while(|&(mr, _)| mr > 0)
        .collect();
    let hides_latency = |&(mr, v): &(u64, u64)| mr * v >= needed;
    let not_load_bound = |&(mr, v): &(u64, u64)| fma * (mr + v) <= loads * mr * v;
    let tries: [(&[&'static str], Condition); 4] = [
        (&[], &|s| hides_latency(s) && not_load_bound(s)),
        (&["loads"], &hides_latency),
        (&["latency"], &not_load_bound),
        (&["loads", "latency"], &|_| true),
    ];
    for (relaxed, ok) in tries {
        let mut best: Option<(u64, u64)> = None;
        for &(mr, v) in shapes.iter().filter(|s| ok(s)) {
            let nr = v * inp.lanes;
            let better = match best {
                None => true,
                Some((bm, bv)) => {
                    let bn = bv * inp.lanes;
                    if greater(mr * nr, mr + nr, bm * bn, bm + bn) {
                        true
                    } else if greater(bm * bn, bm + bn, mr * nr, mr + nr) {
                        false
                    } else {
                        mr * v > bm * bv
                    }
                }
            };
            if better {
                best = Some((mr, v));
            }
        }
        if let Some((mr, v)) = best {
            return Ok(RegisterBlock {
                mr,
                nr: v * inp.lanes,
                vectors: v,
                accumulators: mr * v,
                registers_used: mr * v + v + 1,
                needed_accumulators: needed,
                relaxed: relaxed.to_vec(),
            });
        }
    }
    unreachable!("three or more registers always fit a 1×N_VEC block")
}

/// KC: the micro-panel of B (KC×NR) is the size of L1, KC = ⌊size₁ / (NR · S)⌋.
///
/// BLIS's analytical model keeps both micro-panels in L1 (A's in C_Ar ways beside B's).
/// Measured side by side (docs/machine.md), a longer KC is faster: the micro-panels of A
/// stream from L2, which supplies the (MR + NR) · S bytes of a k step with room to spare,
/// and a long KC spreads the load and store of C's MR×NR block over more multiply-adds.
/// What bounds KC is then that B's micro-panel, reused for every micro-panel of A, can
/// stay in L1 between them.
fn kc(b: &RegisterBlock, l1: CacheLevel, s: u64) -> Result<Kc, String> {
    let value = l1.size / (b.nr * s);
    if value == 0 {
        return Err(format!(
            "L1 ({} bytes) holds less than one row of a micro-panel of B ({}·{} bytes)",
            l1.size, b.nr, s
        ));
    }
    Ok(Kc { value, level: l1 })
}

/// MC: the block of A (MC×KC) stays in L2 while micro-panels of B stream through it. It
/// takes a quarter of L2's ways, C_Ac = ⌊W₂ / 4⌋ (at least one), the rest left to the
/// micro-panels of B and the blocks of C passing through: MC = ⌊C_Ac · way₂ / (KC · S)⌋
/// rounded down to a multiple of MR. A micro-panel of B and one more way must fit beside
/// it: C_Br = ⌈KC · NR · S / way₂⌉ ≤ W₂ − 1 − C_Ac.
fn mc(b: &RegisterBlock, kc: u64, l2: CacheLevel, s: u64) -> Result<Mc, String> {
    let way = l2.way_bytes();
    let c_br = (kc * b.nr * s).div_ceil(way);
    let c_ac = (l2.ways / 4).max(1);
    if c_br + 1 + c_ac > l2.ways {
        return Err(format!(
            "a micro-panel of B takes {c_br} of L2's {} ways, leaving none for A",
            l2.ways
        ));
    }
    let unrounded = c_ac * way / (kc * s);
    let value = unrounded - unrounded % b.mr;
    if value == 0 {
        return Err(format!("L2 holds fewer than MR = {} rows of A", b.mr));
    }
    Ok(Mc {
        value,
        level: l2,
        c_br,
        c_ac,
        unrounded,
    })
}

/// NC: the panel of B (KC×NC) stays in L3 while the block of A passes through it:
/// C_Ac = ⌈MC · KC · S / way₃⌉, C_Bc = W₃ − 1 − C_Ac, NC = ⌊C_Bc · way₃ / (KC · S)⌋ rounded
/// down to a multiple of NR.
/// The panel is one copy buffer, so NC is at most ⌊COPY_LIMIT / (KC · NR)⌋ · NR.
fn nc(b: &RegisterBlock, kc: u64, mc: u64, l3: CacheLevel, s: u64) -> Result<Nc, String> {
    let way = l3.way_bytes();
    let c_ac = (mc * kc * s).div_ceil(way);
    if c_ac + 1 >= l3.ways {
        return Err(format!(
            "the block of A takes {c_ac} of L3's {} ways, leaving none for B",
            l3.ways
        ));
    }
    let c_bc = l3.ways - 1 - c_ac;
    let unrounded = c_bc * way / (kc * s);
    let value = unrounded - unrounded % b.nr;
    if value == 0 {
        return Err(format!("L3 holds fewer than NR = {} columns of B", b.nr));
    }
    let most = COPY_LIMIT / (kc * b.nr) * b.nr;
    if most == 0 {
        return Err(format!(
            "a KC×NR panel of {kc}×{} elements is larger than a copy buffer ({COPY_LIMIT} elements)",
            b.nr
        ));
    }
    Ok(Nc {
        value: value.min(most),
        level: l3,
        c_ac,
        c_bc,
        unrounded,
        from_l3: (value > most).then_some(value),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIB: u64 = 1024;

    #[test]
    fn square_tiles_fill_half_the_l1() {
        let l1 = |kib: u64| CacheLevel {
            size: kib * KIB,
            ways: 8,
        };
        assert_eq!(square_tile(&l1(48), 8), 32);
        assert_eq!(square_tile(&l1(32), 8), 24);
        assert_eq!(square_tile(&l1(32), 4), 32);
        assert_eq!(square_tile(&l1(1), 8), 8);
        // Three tiles of the size chosen fit in half the cache; the next size does not.
        for kib in [16, 32, 48, 64, 80] {
            let t = u64::from(square_tile(&l1(kib), 8));
            assert!(3 * t * t * 8 <= kib * KIB / 2);
            assert!(3 * (t + 8) * (t + 8) * 8 > kib * KIB / 2);
        }
    }
    const FMA4X2: Pipeline = Pipeline {
        fma_latency: 4,
        fma_per_cycle: 2,
        loads_per_cycle: 2,
    };

    fn level(size: u64, ways: u64) -> Result<CacheLevel, String> {
        Ok(CacheLevel { size, ways })
    }

    /// The Zen 3 machine of docs/machine.md: AVX2 (256 bits), 16 registers, FMA latency 4,
    /// two per cycle; L1 32 KiB 8-way, L2 512 KiB 8-way, L3 32 MiB 16-way.
    fn zen3(elem: Elem) -> Blocking {
        Blocking::new(Inputs {
            elem,
            lanes: 32 / elem.bytes(),
            registers: Ok(16),
            pipeline: FMA4X2,
            l1: level(32 * KIB, 8),
            l2: level(512 * KIB, 8),
            l3: level(32 * KIB * KIB, 16),
        })
    }

    /// The Xeon of docs/machine.md: AVX-512, 32 registers, FMA latency 4, two per cycle;
    /// L1 48 KiB 12-way, L2 2 MiB 16-way, L3 260 MiB 20-way.
    fn xeon(elem: Elem) -> Blocking {
        Blocking::new(Inputs {
            elem,
            lanes: 64 / elem.bytes(),
            registers: Ok(32),
            pipeline: FMA4X2,
            l1: level(48 * KIB, 12),
            l2: level(2048 * KIB, 16),
            l3: level(266240 * KIB, 20),
        })
    }

    fn values(b: &Blocking) -> Vec<Option<u64>> {
        NAMES.iter().map(|n| b.value(n)).collect()
    }

    // The expected values below are the worked examples of docs/machine.md, computed by
    // hand from the formulas there.

    #[test]
    fn zen3_double() {
        let b = zen3(Elem::Double);
        // 6×8: 12 accumulators + 2 vectors of B + 1 broadcast = 15 ≤ 16; score 48/14.
        // KC: ⌊32768/(8·8)⌋ = 512.
        // MC: C_Br = ⌈512·8·8/65536⌉ = 1; C_Ac = ⌊8/4⌋ = 2; 2·65536/(512·8) = 32 → 30.
        // NC: C_Ac = ⌈30·512·8/2 MiB⌉ = 1; C_Bc = 14; 14·2097152/4096 = 7168, lowered
        // to the copy buffer's ⌊1048576/(512·8)⌋·8 = 2048.
        assert_eq!(
            values(&b),
            [Some(4), Some(6), Some(8), Some(512), Some(30), Some(2048)]
        );
        assert_eq!(b.nc.as_ref().unwrap().from_l3, Some(7168));
        let r = b.block.as_ref().unwrap();
        assert_eq!(
            (r.accumulators, r.registers_used, r.needed_accumulators),
            (12, 15, 8)
        );
        assert!(r.relaxed.is_empty());
        let m = b.mc.as_ref().unwrap();
        assert_eq!((m.c_br, m.c_ac, m.unrounded), (1, 2, 32));
        let n = b.nc.as_ref().unwrap();
        assert_eq!((n.c_ac, n.c_bc), (1, 14));
    }

    #[test]
    fn zen3_float() {
        // 6×16 (14×8 would need 15 loads for 14 multiply-adds). KC = ⌊32768/(16·4)⌋ = 512;
        // C_Br = ⌈512·16·4/65536⌉ = 1, MC = ⌊2·65536/2048⌋ = 64 → 60; C_Ac = ⌈60·512·4/2 MiB⌉
        // = 1, NC = ⌊14·2097152/2048⌋ = 14336, lowered to the copy buffer's
        // ⌊1048576/(512·16)⌋·16 = 2048.
        assert_eq!(
            values(&zen3(Elem::Float)),
            [Some(8), Some(6), Some(16), Some(512), Some(60), Some(2048)]
        );
    }

    #[test]
    fn xeon_double() {
        // 14×16: 28 + 2 + 1 = 31 ≤ 32. KC = ⌊49152/(16·8)⌋ = 384;
        // C_Br = ⌈384·16·8/131072⌉ = 1, C_Ac = ⌊16/4⌋ = 4, MC = ⌊4·131072/3072⌋ = 170 → 168;
        // way₃ = 13631488, C_Ac = 1, C_Bc = 18, NC = ⌊18·13631488/3072⌋ = 79872, lowered
        // to the copy buffer's ⌊1048576/(384·16)⌋·16 = 2720.
        let b = xeon(Elem::Double);
        assert_eq!(
            values(&b),
            [
                Some(8),
                Some(14),
                Some(16),
                Some(384),
                Some(168),
                Some(2720)
            ]
        );
        assert_eq!(b.block.as_ref().unwrap().registers_used, 31);
        assert_eq!(b.nc.as_ref().unwrap().unrounded, 79872);
        assert_eq!(b.nc.as_ref().unwrap().from_l3, Some(79872));
    }

    #[test]
    fn xeon_float() {
        // 14×32 (30×16 would be load-bound). KC = ⌊49152/(32·4)⌋ = 384; C_Br = 1,
        // MC = ⌊4·131072/1536⌋ = 341 → 336; C_Ac = 1, C_Bc = 18, NC = ⌊18·13631488/1536⌋ =
        // 159744, lowered to the copy buffer's ⌊1048576/(384·32)⌋·32 = 2720.
        assert_eq!(
            values(&xeon(Elem::Float)),
            [
                Some(16),
                Some(14),
                Some(32),
                Some(384),
                Some(336),
                Some(2720)
            ]
        );
    }

    #[test]
    fn named_values() {
        let m = Model {
            double: xeon(Elem::Double),
            float: xeon(Elem::Float),
        };
        assert_eq!(m.value("MC"), Some(168));
        assert_eq!(m.value("double.MC"), Some(168));
        assert_eq!(m.value("float.MC"), Some(336));
        assert_eq!(m.value("float.NVEC"), Some(16));
        assert_eq!(m.value("half.MC"), None);
        assert_eq!(m.value("mc"), None);
        assert_eq!(m.value("XC"), None);
    }

    #[test]
    fn unknown_inputs_propagate() {
        let mut i = xeon(Elem::Double).inputs;
        i.l3 = Err("no L3 reported".into());
        let b = Blocking::new(i.clone());
        assert_eq!(b.value("MC"), Some(168));
        assert_eq!(b.nc, Err("no L3 reported".into()));
        i.l1 = Err("L1: ways unknown".into());
        let b = Blocking::new(i.clone());
        assert_eq!(b.value("MR"), Some(14));
        assert_eq!(b.kc, Err("L1: ways unknown".into()));
        assert_eq!(b.mc, Err("KC is unknown".into()));
        assert_eq!(b.nc, Err("MC is unknown".into()));
        i.registers = Err("unknown architecture".into());
        let b = Blocking::new(i);
        assert_eq!(b.value("MR"), None);
        assert_eq!(b.value("NVEC"), Some(8));
        assert!(b.kc.is_err());
    }

    #[test]
    fn too_small() {
        let mut i = zen3(Elem::Double).inputs;
        i.registers = Ok(2);
        assert!(Blocking::new(i.clone()).block.is_err());
        // An L1 of 32 bytes holds less than a row of B's micro-panel (8 doubles).
        i.registers = Ok(16);
        i.l1 = level(32, 2);
        assert!(Blocking::new(i.clone())
            .kc
            .unwrap_err()
            .contains("less than one row"));
        // A 2-way L2 has no way left for A once B and C have theirs.
        i.l1 = level(32 * KIB, 8);
        i.l2 = level(512 * KIB, 2);
        assert!(Blocking::new(i).mc.unwrap_err().contains("leaving none"));
    }

    /// Over a grid of machines, every value the model gives keeps the promises of
    /// docs/machine.md: the block fits the registers; B's micro-panel is the largest that
    /// fits L1; the block of A fits a quarter of L2's ways, beside a micro-panel of B and
    /// one way; the panel of B fits L3 likewise; MC and NC are whole blocks.
    #[test]
    fn promises_hold_on_a_grid() {
        let mut checked = 0;
        for regs in [3, 8, 16, 32] {
            for lanes in [1, 2, 4, 8, 16] {
                for (l1_kib, w1) in [(16, 4), (32, 8), (48, 12), (64, 4), (32, 2)] {
                    for (l2_kib, w2) in [(256, 4), (512, 8), (2048, 16), (1024, 3)] {
                        for (l3_kib, w3) in [(4096, 4), (32768, 16), (266240, 20)] {
                            let inputs = Inputs {
                                elem: Elem::Double,
                                lanes,
                                registers: Ok(regs),
                                pipeline: FMA4X2,
                                l1: level(l1_kib * KIB, w1),
                                l2: level(l2_kib * KIB, w2),
                                l3: level(l3_kib * KIB, w3),
                            };
                            let b = Blocking::new(inputs);
                            let r = b.block.as_ref().unwrap();
                            assert!(r.registers_used <= regs);
                            assert_eq!(r.nr, r.vectors * lanes);
                            let s = 8;
                            if let Ok(k) = &b.kc {
                                assert!(k.value * r.nr * s <= k.level.size, "{b:?}");
                                assert!((k.value + 1) * r.nr * s > k.level.size, "{b:?}");
                                checked += 1;
                            }
                            if let (Ok(k), Ok(m)) = (&b.kc, &b.mc) {
                                let way = m.level.way_bytes();
                                assert_eq!(m.value % r.mr, 0);
                                assert!(m.value * k.value * s <= m.c_ac * way);
                                assert!(m.c_ac + m.c_br < m.level.ways);
                                assert!(4 * m.c_ac <= m.level.ways.max(4));
                            }
                            if let (Ok(k), Ok(n)) = (&b.kc, &b.nc) {
                                let way = n.level.way_bytes();
                                assert_eq!(n.value % r.nr, 0);
                                assert!(n.value * k.value * s <= n.c_bc * way);
                                assert!(n.c_ac + n.c_bc < n.level.ways);
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn relaxed_constraints() {
        // x86 in 32-bit mode, SSE2 doubles: 8 registers, two lanes. The blocks that fit are
        // 6×2, 2×4 and 1×6; none has the 8 accumulators that hide the latency, and of them
        // only 2×4 is not load-bound (2·(2+2) ≤ 2·4; 6×2 needs 7 loads for 6 multiply-adds).
        let b = Blocking::new(Inputs {
            elem: Elem::Double,
            lanes: 2,
            registers: Ok(8),
            pipeline: FMA4X2,
            l1: level(32 * KIB, 8),
            l2: level(256 * KIB, 8),
            l3: Err("none".into()),
        });
        let r = b.block.unwrap();
        assert_eq!((r.mr, r.nr), (2, 4));
        assert_eq!(r.relaxed, ["latency"]);
        // Nine registers and a single load per cycle: the blocks 7×2, 3×4, 1×6 and 1×8 are
        // all load-bound and none hides the latency; 3×4 (12/7) has the best score.
        let mut i = b.inputs.clone();
        i.registers = Ok(9);
        i.pipeline.loads_per_cycle = 1;
        let r = Blocking::new(i).block.unwrap();
        assert_eq!((r.mr, r.nr), (3, 4));
        assert_eq!(r.relaxed, ["loads", "latency"]);
        // Without FMA (latency 8, one per cycle) on 16 registers of AVX: 6×8 is neither
        // latency- nor load-bound (12 ≥ 8; 1·8 ≤ 2·12).
        let b = Blocking::new(Inputs {
            elem: Elem::Double,
            lanes: 4,
            registers: Ok(16),
            pipeline: Pipeline {
                fma_latency: 8,
                fma_per_cycle: 1,
                loads_per_cycle: 2,
            },
            l1: level(32 * KIB, 8),
            l2: level(256 * KIB, 8),
            l3: Err("none".into()),
        });
        let r = b.block.unwrap();
        assert_eq!((r.mr, r.nr, r.relaxed.len()), (6, 8, 0));
    }
}
