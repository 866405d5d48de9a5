//! The no-overlap assumption, said and checked.
//!
//! The dependences the verifier computes assume that distinct arrays of the region do not
//! overlap in memory. Variables cannot overlap, but arrays reached through pointers (a
//! function's parameters declared `double A[N][M]` are pointers) can: the caller may pass
//! one array twice, or two views of one block. So when at least one pair of the region's
//! arrays may overlap and one of the two is written, the transformed region runs under a
//! run-time test that the address ranges the arrays' elements occupy are disjoint, and the
//! original region's code runs otherwise (as Polly does).
//!
//! The ranges come from the exact footprints: per array dimension, the smallest and the
//! largest subscript any access of the region reaches, as expressions of the parameters
//! (exact parametric extrema of the model's access relations over the domains); the lowest
//! and highest byte are the addresses of those corners, found with `sizeof` (so declared
//! extents, constant or variable, come from the compiler). Every dimension after the first
//! must stay inside its declared extent for that to bound every element, and the test
//! checks that too. An array whose bounds are no single expression, or reached through
//! pointers at several levels (`double **`), makes the test false: the original code runs.
//!
//! C compilers exploit `restrict` on function parameters, not on block-scope pointers
//! (gcc 12 and clang 16 measured on 2mm: no change with block-scope `restrict` copies),
//! so where it can, the transformed region becomes a function of its own, defined before
//! the host function, whose array parameters are `restrict`-qualified copies of the host's,
//! called when the test passes. Where it cannot (the region uses the host's local variables
//! other than read-only scalars and loop counters, jumps, `static` declarations, macros
//! defined inside the host function), the transformed code runs inline under the test,
//! without `restrict`.
//!
//! `--assume-no-overlap` removes the test: the transformed region (with `restrict` where it
//! can) runs unconditionally.

use super::text::CText;
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::model::{AccessKind, Array, Scop, Storage};
use crate::presburger::Int;
use std::collections::BTreeSet;
use std::fmt::Write;

/// Generated code with the no-overlap test around it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guarded {
    /// The text replacing the region.
    pub region: CText,
    /// A function definition to insert before the host function (at `scop.host.start`),
    /// followed by a blank line.
    pub function: Option<String>,
}

/// The macro a test build may define to see which code ran: it is called with
/// `"transformed"` or `"original"` each time the region runs.
pub const PATH_MACRO: &str = "LOOPY_PATH";

/// Wraps `fast` (the transformed region's code, as `generate_state` gives it, with the
/// names it uses) in the no-overlap test. `file` is the text of the region's file
/// (`scop.file`), for the original code. Unchanged when no two of the region's arrays may
/// overlap with one of them written.
pub fn guard(
    scop: &Scop,
    fast: CText,
    names: &BTreeSet<String>,
    file: &str,
    assume_no_overlap: bool,
) -> Result<Guarded, Diagnostic> {
    let pairs = pairs(scop);
    let unchanged = |region| Guarded {
        region,
        function: None,
    };
    if pairs.is_empty() {
        return Ok(unchanged(fast));
    }
    if let Some(why) = unguardable(scop) {
        if assume_no_overlap {
            return Ok(unchanged(fast));
        }
        let (a, b) = pairs[0];
        let sp = &scop.region;
        return Err(Diagnostic::new(codes::OVERLAP_TEST, format!(
            "cannot generate the run-time test that `{}` and `{}` do not overlap: {why}",
            a.c_name, b.c_name
        ))
        .with_label(&sp.file, sp.range.clone(), "this region")
        .with_note("the transformation assumes that distinct arrays do not overlap in memory; arrays reached through pointers may, so the transformed code runs under a test that they do not, with the original code as the other branch")
        .with_help("move the declaration before `#pragma scop`, or pass `--assume-no-overlap` if no two of the region's arrays ever overlap"));
    }
    let outline = outline(scop, file);
    // The transformed code: a call, or the code itself.
    let (fast_code, function) = match &outline {
        Ok(o) => {
            let function = outlined_function(scop, &fast, names, o, !assume_no_overlap);
            let args: Vec<&str> = o
                .args
                .iter()
                .map(String::as_str)
                .chain(o.locals.iter().map(|(n, _)| n.as_str()))
                .collect();
            let mut call = CText::new();
            let _ = writeln!(call, "{}({});", o.name, args.join(", "));
            (call, Some(function))
        }
        Err(_) => (fast, None),
    };
    let mut region = CText::new();
    if assume_no_overlap {
        let _ = writeln!(
            region,
            "/* loopy: the arrays of this region are assumed not to overlap in memory (--assume-no-overlap). */"
        );
        region.nest(&fast_code, "");
        if let Ok(o) = &outline {
            for c in &o.counters {
                let _ = writeln!(region, "(void){}; /* no longer a loop counter here */", c.0);
            }
        }
        return Ok(Guarded { region, function });
    }
    let test = test(scop, &pairs);
    let _ = writeln!(
        region,
        "/* loopy: the transformed code assumes that the arrays it writes do not overlap the"
    );
    let _ = writeln!(
        region,
        "   other arrays it touches; it runs when they do not, the original code otherwise{}. */",
        match &outline {
            Ok(o) => format!(" (`{}`, defined before `{}`)", o.name, scop.function),
            Err(_) => String::new(),
        }
    );
    region.code("{\n");
    region.nest(&test.prelude, "");
    for line in &test.declarations {
        let _ = writeln!(region, "  {line}");
    }
    let _ = writeln!(region, "  if ({}) {{", test.condition);
    let path = |region: &mut CText, what: &str| {
        region.pre(&format!("#ifdef {PATH_MACRO}"));
        let _ = writeln!(region, "    {PATH_MACRO}(\"{what}\");");
        region.pre("#endif");
    };
    path(&mut region, "transformed");
    region.nest(&fast_code, "    ");
    region.code("  } else {\n");
    path(&mut region, "original");
    region.nest(&original_text(scop, file), "    ");
    region.code("  }\n}\n");
    Ok(Guarded { region, function })
}

/// The pairs of arrays that may overlap, one of them written (each pair once, in the
/// order of `scop.arrays`).
fn pairs(scop: &Scop) -> Vec<(&Array, &Array)> {
    let written: BTreeSet<&str> = scop
        .statements
        .iter()
        .flat_map(|s| s.accesses.iter())
        .filter(|a| a.kind == AccessKind::Write)
        .map(|a| a.array.as_str())
        .collect();
    let arrays: Vec<&Array> = scop
        .arrays
        .iter()
        .filter(|a| a.storage != Storage::Region)
        .collect();
    let mut out = vec![];
    for (i, a) in arrays.iter().enumerate() {
        for b in &arrays[i + 1..] {
            if !written.contains(a.name.as_str()) && !written.contains(b.name.as_str()) {
                continue;
            }
            if may_overlap(a.storage, b.storage) {
                out.push((*a, *b));
            }
        }
    }
    out
}

/// Two distinct variables never overlap, nor does a variable that no pointer reaches
/// overlap anything; a pointer may reach anything else.
fn may_overlap(a: Storage, b: Storage) -> bool {
    match (a, b) {
        (Storage::Region, _) | (_, Storage::Region) => false,
        (Storage::Variable { .. }, Storage::Variable { .. }) => false,
        (Storage::Variable { pointed }, Storage::Pointer { .. })
        | (Storage::Pointer { .. }, Storage::Variable { pointed }) => pointed,
        (Storage::Pointer { .. }, Storage::Pointer { .. }) => true,
    }
}

/// Why no test can be placed around the region: a variable declared at its top level may
/// be used after it, and a `static` one would be two variables, one per branch.
fn unguardable(scop: &Scop) -> Option<String> {
    if let Some(a) = scop
        .arrays
        .iter()
        .find(|a| a.storage == Storage::Region && a.private_depth == Some(0))
    {
        return Some(format!(
            "`{}` is declared at the region's top level, where code after the region may use it",
            a.c_name
        ));
    }
    if scop
        .declarations
        .iter()
        .any(|d| super::body::identifiers(d).iter().any(|w| w == "static"))
    {
        return Some(
            "the region declares a `static` variable, which each branch would declare once".into(),
        );
    }
    None
}

/// The test: macro definitions, declarations of each array's lowest and highest byte,
/// and the condition.
struct Test {
    prelude: CText,
    declarations: Vec<String>,
    condition: String,
}

fn test(scop: &Scop, pairs: &[(&Array, &Array)]) -> Test {
    let mut prelude = CText::new();
    let mut declarations = vec![];
    let mut conds: Vec<String> = vec![];
    let mut ranged: BTreeSet<&str> = BTreeSet::new();
    let mut floord = false;
    let mut why_not: Option<String> = None;
    for (a, b) in pairs {
        for x in [a, b] {
            if why_not.is_some() || ranged.contains(x.name.as_str()) {
                continue;
            }
            match range(scop, x) {
                Ok(r) => {
                    floord |= r.uses_floord;
                    declarations.push(format!(
                        "const loopy_uptr loopy_lo_{n} = {}, loopy_hi_{n} = {};",
                        r.lo,
                        r.hi,
                        n = x.name
                    ));
                    conds.extend(r.conditions);
                    ranged.insert(x.name.as_str());
                }
                Err(why) => why_not = Some(why),
            }
        }
    }
    if let Some(why) = why_not {
        return Test {
            prelude: CText::new(),
            declarations: vec![format!(
                "/* no test can show that the arrays do not overlap: {why} */"
            )],
            condition: "0".to_string(),
        };
    }
    for (a, b) in pairs {
        conds.push(format!(
            "(loopy_hi_{a} <= loopy_lo_{b} || loopy_hi_{b} <= loopy_lo_{a})",
            a = a.name,
            b = b.name
        ));
    }
    if floord {
        prelude
            .pre("#define loopy_floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))");
    }
    prelude.pre(
        "#ifdef __UINTPTR_TYPE__\n#define loopy_uptr __UINTPTR_TYPE__\n#else\n#define loopy_uptr unsigned long long\n#endif",
    );
    prelude.pre("#define loopy_addr(p, off) ((loopy_uptr)(p) + (loopy_uptr)(long long)(off))");
    Test {
        prelude,
        declarations,
        condition: conds.join("\n      && "),
    }
}

/// An array's byte range `[lo, hi)` as C, and the conditions under which it holds.
struct Range {
    lo: String,
    hi: String,
    conditions: Vec<String>,
    uses_floord: bool,
}

/// `X[0][0]…` with `k` subscripts.
fn element(x: &str, k: usize) -> String {
    format!("{x}{}", "[0]".repeat(k))
}

fn range(scop: &Scop, x: &Array) -> Result<Range, String> {
    let n = &x.c_name;
    if x.rank == 0 {
        return Ok(Range {
            lo: format!("loopy_addr(&{n}, 0)"),
            hi: format!("loopy_addr(&{n}, sizeof({n}))"),
            conditions: vec![],
            uses_floord: false,
        });
    }
    if let Storage::Pointer {
        contiguous: false, ..
    } = x.storage
    {
        return Err(format!(
            "the elements of `{n}` are reached through pointers at several levels"
        ));
    }
    // The footprint: every element any access reaches, over the domains.
    let mut fp: Option<crate::presburger::Set> = None;
    for st in &scop.statements {
        for a in st.accesses.iter().filter(|a| a.array == x.name) {
            let r = a.relation.intersect_domain(&st.domain).range();
            fp = Some(match fp {
                None => r,
                Some(f) => f.union(&r),
            });
        }
    }
    let Some(fp) = fp else {
        return Err(format!("`{n}` is not accessed"));
    };
    let fp = fp.simplify();
    let mut lo_terms = vec![];
    let mut hi_terms = vec![];
    let mut conditions = vec![];
    let mut uses_floord = false;
    for d in 0..x.rank {
        let mut s = fp.clone();
        if d + 1 < x.rank {
            s = s.project_out(d + 1, x.rank - d - 1);
        }
        if d > 0 {
            s = s.project_out(0, d);
        }
        let mut bound = |max: bool| {
            extreme(&s, max, &scop.params, &mut uses_floord).ok_or_else(|| {
                format!(
                    "the {} subscript along dimension {} of `{n}` in the region is not a function of the parameters the test can compute",
                    if max { "largest" } else { "smallest" },
                    d + 1
                )
            })
        };
        let (lo, hi) = (bound(false)?, bound(true)?);
        let stride = format!("(long long)sizeof({})", element(n, d + 1));
        if !lo.constant.as_ref().is_some_and(Int::is_zero) {
            lo_terms.push(format!("(long long)({}) * {stride}", lo.text));
        }
        hi_terms.push(format!("(long long)({}) * {stride}", hi.text));
        if d > 0 {
            // Inside the declared extent, so the corners bound every element.
            if lo.constant.as_ref().is_none_or(Int::is_negative) {
                conditions.push(format!("0 <= ({})", lo.text));
            }
            conditions.push(format!(
                "({}) < (long long)(sizeof({}) / sizeof({}))",
                hi.text,
                element(n, d),
                element(n, d + 1)
            ));
        }
    }
    hi_terms.push(format!("(long long)sizeof({})", element(n, x.rank)));
    let lo = if lo_terms.is_empty() {
        "0".to_string()
    } else {
        lo_terms.join(" + ")
    };
    Ok(Range {
        lo: format!("loopy_addr({n}, {lo})"),
        hi: format!("loopy_addr({n}, {})", hi_terms.join(" + ")),
        conditions,
        uses_floord,
    })
}

/// The smallest (or largest) value of the one-dimensional set `s` as C over the
/// parameters: its exact extremum when that is one expression; else a bound on it, the
/// smallest of the smallest values (the largest of the largest) of the parts of `s`, each
/// one expression, compared in C. A part empty for some parameter values may give a value
/// there that is no element at all, which only widens the range: the test stays sound and
/// at worst sends the call to the original code. `floors` is set when the value uses
/// `loopy_floord`.
fn extreme(
    s: &crate::presburger::Set,
    max: bool,
    params: &[String],
    floors: &mut bool,
) -> Option<Value> {
    let mut one = |s: &crate::presburger::Set| {
        crate::model::copy::bound(s, max).map(|c| {
            *floors |= super::ast::corner_floors(&c);
            Value {
                text: c.to_c(params, &[], "loopy_floord"),
                constant: c.constant(),
            }
        })
    };
    if let Some(v) = one(s) {
        return Some(v);
    }
    let parts = s.parts();
    if parts.len() < 2 {
        return None;
    }
    let mut values: Vec<String> = vec![];
    for p in parts {
        let v = one(&crate::presburger::Set::from_basic(
            s.space().clone(),
            p.clone(),
        ))?
        .text;
        if !values.contains(&v) {
            values.push(v);
        }
    }
    let op = if max { '>' } else { '<' };
    let mut acc = values.pop()?;
    while let Some(v) = values.pop() {
        acc = format!("(({v}) {op} ({acc}) ? ({v}) : ({acc}))");
    }
    Some(Value {
        text: acc,
        constant: None,
    })
}

/// A bound of a subscript: its C text, and its value when it is a constant.
struct Value {
    text: String,
    constant: Option<Int>,
}

/// Kept out of the host function when the test calls it. Inlined into the host beside the
/// original code, gcc 12 no longer vectorizes the transformed loops (PolyBench 3mm with
/// `examples/3mm/3mm-fast.loopy` at LARGE: 3.6 s against 0.50 s; no vector FMA left in the
/// binary). Not inlined, it is still specialised to its call: the host passes the
/// extents as `sizeof` quotients, constants where the host's are, and a `static` function
/// called once gets them as constants by interprocedural constant propagation (gcc's
/// `.constprop` clone: the same vector code as the unchecked build).
const NOINLINE: &str = "#ifdef __GNUC__\n__attribute__((noinline))\n#endif\n";

/// How the transformed region becomes a function of its own.
struct Outline {
    name: String,
    /// The host's parameters, as the call passes them.
    args: Vec<String>,
    /// The parameter declarations of the new function.
    params: Vec<String>,
    /// Read-only local scalars of the host, passed by value: (name, type).
    locals: Vec<(String, String)>,
    /// Loop counters of the host the region counts with, declared in the new function.
    counters: Vec<(String, String)>,
}

/// The outlined form of the region, or why there is none.
fn outline(scop: &Scop, file: &str) -> Result<Outline, String> {
    let host = &scop.host;
    let start = host
        .start
        .ok_or("the host function does not start in the region's file")?;
    let params = host
        .params
        .as_ref()
        .ok_or("the host function's parameters cannot be copied")?;
    if !scop.declarations.is_empty() {
        return Err("the region declares `static` or `extern` variables".into());
    }
    for s in &scop.statements {
        if super::body::identifiers(&s.text)
            .iter()
            .chain(super::body::identifiers(&s.expanded_text).iter())
            .any(|w| matches!(w.as_str(), "return" | "goto" | "break" | "continue"))
        {
            return Err("the region jumps".into());
        }
    }
    let before = file.get(start..scop.region.range.start).unwrap_or("");
    if before
        .lines()
        .any(|l| l.trim_start().starts_with('#') && !l.trim_start().starts_with("#pragma"))
    {
        return Err("the host function defines macros before the region".into());
    }
    let mut locals = vec![];
    let mut counters = vec![];
    for n in &host.names {
        if n.param {
            if n.written && !n.counter {
                return Err(format!("the region assigns the parameter `{}`", n.name));
            }
            continue;
        }
        let Some(ty) = &n.scalar_type else {
            return Err(format!("the region uses the local variable `{}`", n.name));
        };
        if n.counter {
            counters.push((n.name.clone(), ty.clone()));
        } else if n.written {
            return Err(format!(
                "the region assigns the local variable `{}`",
                n.name
            ));
        } else {
            locals.push((n.name.clone(), ty.clone()));
        }
    }
    // Array parameters the region accesses become restrict-qualified pointers, their
    // extents passed as values: `double (*restrict A)[loopy_A_1]` (the host's declared
    // extents may be macros of the sizes the program is compiled with).
    let mut dims = vec![];
    let mut dim_args = vec![];
    let mut params_text = vec![];
    for p in params {
        let array = scop.arrays.iter().find(|a| {
            a.c_name == p.name
                && a.rank > 0
                && a.rank == p.array_levels
                && matches!(
                    a.storage,
                    Storage::Pointer {
                        param: true,
                        contiguous: true
                    }
                )
        });
        match (array, &p.specifiers) {
            (Some(a), Some(spec)) => {
                let n = &p.name;
                let mut ext = String::new();
                for d in 1..a.rank {
                    let v = format!("loopy_{n}_{d}");
                    dims.push(format!("long {v}"));
                    dim_args.push(format!(
                        "(long)(sizeof({}) / sizeof({}))",
                        element(n, d),
                        element(n, d + 1)
                    ));
                    let _ = write!(ext, "[{v}]");
                }
                params_text.push(if a.rank == 1 {
                    format!("{spec} *restrict {n}")
                } else {
                    format!("{spec} (*restrict {n}){ext}")
                });
            }
            _ => params_text.push(p.text.clone()),
        }
    }
    dims.extend(params_text);
    let mut args = dim_args;
    args.extend(params.iter().map(|p| p.name.clone()));
    Ok(Outline {
        name: format!("loopy_fast_{}", scop.function),
        args,
        params: dims,
        locals,
        counters,
    })
}

/// The outlined function's definition. `checked`: it is called under the no-overlap test,
/// beside the original code, and must not be inlined there (see [`NOINLINE`]). `used`: the
/// names the code uses (`print::names_used`); the host's parameters and locals that are not
/// among them are marked used once, so that the compiler does not warn.
fn outlined_function(
    scop: &Scop,
    fast: &CText,
    used: &BTreeSet<String>,
    o: &Outline,
    checked: bool,
) -> String {
    let mut params = o.params.clone();
    params.extend(o.locals.iter().map(|(n, t)| format!("{t} {n}")));
    let list = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* The region of `{}` transformed by loopy. It runs only where the arrays it writes do",
        scop.function
    );
    let _ = writeln!(
        out,
        "   not overlap the other arrays it touches, so its array parameters are `restrict`. */"
    );
    if checked {
        out.push_str(NOINLINE);
    }
    let _ = writeln!(out, "static void {}({list})\n{{", o.name);
    for (n, t) in &o.counters {
        let _ = writeln!(out, "  {t} {n};");
    }
    let host_params = scop.host.params.iter().flatten().map(|p| &p.name);
    for n in host_params.chain(o.locals.iter().map(|(n, _)| n)) {
        if !used.contains(n) {
            let _ = writeln!(out, "  (void){n};");
        }
    }
    for (n, _) in &o.counters {
        if !used.contains(n) {
            let _ = writeln!(out, "  (void){n};");
        }
    }
    let mut body = CText::new();
    body.nest(fast, "  ");
    let _ = write!(out, "{body}");
    out.push_str("}\n\n");
    out
}

/// The region's original code with its tags (labels) removed, its lines relative to the
/// region's indentation.
fn original_text(scop: &Scop, file: &str) -> CText {
    let range = scop.region.range.clone();
    let Some(text) = file.get(range.clone()) else {
        return CText::new();
    };
    // Labels of the tags, as byte ranges in `text` (through the colon and the blanks after).
    let mut cuts: Vec<std::ops::Range<usize>> = vec![];
    for t in &scop.tags {
        if t.span.file != scop.file
            || t.span.range.start < range.start
            || t.span.range.end > range.end
        {
            continue;
        }
        let s = t.span.range.start - range.start;
        let mut e = t.span.range.end - range.start;
        if text.get(s..e) != Some(t.name.as_str()) {
            continue;
        }
        let b = text.as_bytes();
        while e < b.len() && (b[e] == b' ' || b[e] == b'\t') {
            e += 1;
        }
        if b.get(e) != Some(&b':') {
            continue;
        }
        cuts.push(s..e + 1);
    }
    cuts.sort_by_key(|c| c.start);
    let mut out = String::new();
    let mut at = 0;
    for c in cuts {
        if c.start < at {
            continue;
        }
        out.push_str(&text[at..c.start]);
        at = c.end;
    }
    out.push_str(&text[at..]);
    // The region's first line starts at its first statement; the others carry the
    // indentation of the region itself, which the splice adds back.
    let line_start = file[..range.start].rfind('\n').map_or(0, |p| p + 1);
    let base = &file[line_start..range.start];
    let base = if base.chars().all(char::is_whitespace) {
        base
    } else {
        ""
    };
    let mut lines = vec![];
    for (k, l) in out.lines().enumerate() {
        lines.push(if k == 0 {
            l
        } else {
            l.strip_prefix(base).unwrap_or(l)
        });
    }
    let mut s = lines.join("\n");
    s.push('\n');
    CText::source(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names the printer says the code uses agree with the names the code's text
    /// holds, for the host's parameters, on PolyBench's products with their fast scripts
    /// (outlined functions with array, size and scalar parameters) and a paper-style script.
    #[test]
    fn the_names_used_are_those_the_code_holds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let pb = root.join("benches/polybench");
        let fixed = "param MR = 6\nparam NR = 8\nparam KC = 256\nparam MC = 72\nparam NC = 1104\n";
        let cases = [
            (
                "linear-algebra/blas/gemm/gemm.c",
                "tests/data/scripts/gemm-fast-literal.loopy",
            ),
            (
                "linear-algebra/kernels/2mm/2mm.c",
                "examples/2mm/2mm-fast.loopy",
            ),
            (
                "linear-algebra/kernels/doitgen/doitgen.c",
                "benches/polybench/scripts/doitgen-par.loopy",
            ),
            (
                "linear-algebra/blas/syrk/syrk.c",
                "benches/polybench/scripts/syrk.loopy",
            ),
        ];
        for (kernel, script) in cases {
            let opts = crate::frontend::Options {
                includes: vec![pb.join("utilities")],
                ..Default::default()
            };
            let k = crate::driver::Kernel::load(&pb.join(kernel), &opts).unwrap();
            // The model's sizes fixed, so that the code is the same on every machine.
            let text = std::fs::read_to_string(root.join(script)).unwrap();
            let model = text.contains("= model\n");
            let text: String = (text.lines())
                .filter(|l| !l.ends_with("= model"))
                .map(|l| format!("{l}\n"))
                .collect();
            let text = if model {
                format!("{fixed}{text}")
            } else {
                text
            };
            let run = crate::driver::Run::new(&k, &text, script, root).unwrap();
            let code = super::super::generate_state(
                &k.scop,
                &run.interp.state,
                super::super::Body::Source,
                &k.target,
            )
            .unwrap();
            let tokens: BTreeSet<String> = super::super::body::identifiers(&code.text.to_string())
                .into_iter()
                .collect();
            let host: Vec<&String> = (k.scop.host.params.iter().flatten().map(|p| &p.name))
                .chain(k.scop.host.names.iter().map(|n| &n.name))
                .collect();
            assert!(!host.is_empty(), "{kernel}");
            for n in host {
                assert_eq!(
                    code.names.contains(n),
                    tokens.contains(n),
                    "{kernel} with {script}: `{n}`"
                );
            }
        }
    }

    #[test]
    fn which_storages_may_overlap() {
        let var = |pointed| Storage::Variable { pointed };
        let ptr = Storage::Pointer {
            contiguous: true,
            param: true,
        };
        assert!(!may_overlap(var(true), var(true)));
        assert!(!may_overlap(var(false), ptr));
        assert!(may_overlap(var(true), ptr));
        assert!(may_overlap(ptr, var(true)));
        assert!(may_overlap(ptr, ptr));
        assert!(!may_overlap(Storage::Region, ptr));
    }
}
