//! Every example through `loopy apply`: the generated code (snapshotted, so changes in code
//! quality show in review) compiles with `-Wall -Wextra -Werror`, and the transformed
//! program prints exactly what the original prints.

mod common;
use common::examples;
use loopy::driver::{generate_from_script, Kernel, Run};
use loopy::frontend::Options;
use loopy::presburger::Int;
use loopy::script::params::{ModelValues, Settings};
use std::path::{Path, PathBuf};
use std::process::Command;

fn compile(src: &Path, exe: &Path, strict: bool) {
    // No floating-point contraction: with it, the compiler may fuse a multiply and an add
    // in one program and not in the other, and the last bits differ.
    let mut flags = vec!["-O2", "-ffp-contract=off", "-lm"];
    if strict {
        flags.extend(["-Wall", "-Wextra", "-Werror"]);
    }
    common::compile(src, exe, &flags, "");
}

fn run(exe: &Path) -> Vec<u8> {
    let out = Command::new(exe).output().unwrap();
    assert!(out.status.success(), "{} failed", exe.display());
    out.stdout
}

#[test]
fn transformed_examples_compile_cleanly_and_print_the_same() {
    let dir: PathBuf = std::env::temp_dir().join(format!("loopy-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in examples() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(&name);
        let c = root.join(format!("{name}.c"));
        let kernel = Kernel::load(&c, &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        let script = std::fs::read_to_string(root.join(format!("{name}.loopy"))).unwrap();
        let r = Run::new(&kernel, &script, &format!("{name}.loopy"), &root)
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        assert!(r.check().is_empty(), "{name}: script is illegal");
        let g = generate_from_script(&kernel, &r.interp.state, &format!("{name}.loopy"))
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        // The header names the kernel as it was loaded (here by its absolute path).
        let region = g
            .region
            .replace(&format!("{}/", env!("CARGO_MANIFEST_DIR")), "");
        insta::assert_snapshot!(format!("apply_{name}"), region);
        // Only the region changed.
        let original = std::fs::read_to_string(&c).unwrap();
        let range = kernel.scop.region.range.clone();
        assert!(g.file.starts_with(&original[..range.start]));
        assert!(g.file.ends_with(&original[range.end..]));
        let new_src = dir.join(format!("{name}.c"));
        std::fs::write(&new_src, &g.file).unwrap();
        let (old_exe, new_exe) = (
            dir.join(format!("{name}.old")),
            dir.join(format!("{name}.new")),
        );
        compile(&c, &old_exe, false);
        compile(&new_src, &new_exe, true);
        let (a, b) = (run(&old_exe), run(&new_exe));
        if a != b {
            let (sa, sb) = (String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
            let line = sa
                .lines()
                .zip(sb.lines())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            panic!(
                "{name}: outputs differ at line {}:\n  original:    {:?}\n  transformed: {:?}",
                line + 1,
                sa.lines().nth(line),
                sb.lines().nth(line)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The fast scripts beside the paper's (register tiling with `unroll`), and the scripts of
/// the kernels that have no paper's script: legal, the code (snapshotted) compiles with
/// `-Wall -Wextra -Werror` and prints exactly what the original prints, at the kernel's
/// default sizes and at sizes that leave partial blocks.
#[test]
fn fast_scripts_compile_cleanly_and_print_the_same() {
    let dir = common::scratch("codegen_examples", "fast");
    let sizes: &[(&str, &[&str])] = &[
        ("2mm", &["-DNI=37", "-DNJ=35", "-DNK=19", "-DNL=50"]),
        (
            "3mm",
            &["-DNI=37", "-DNJ=35", "-DNK=19", "-DNL=50", "-DNM=23"],
        ),
        ("doitgen", &["-DNQ=5", "-DNR=3", "-DNP=71"]),
        ("correlation", &["-DM=37", "-DN=45"]),
        ("cholesky-pb", &["-DN=71"]),
        ("durbin", &["-DN=37"]),
        ("ludcmp", &["-DN=37"]),
        ("qr", &["-DM=141", "-DN=133"]),
        ("lu-pivot", &["-DN=133"]),
        ("deriche", &["-DW=37", "-DH=29"]),
        ("floyd-warshall", &["-DN=37"]),
        ("nussinov", &["-DN=71"]),
    ];
    for (name, odd) in sizes {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let c = root.join(format!("{name}.c"));
        // A kernel without a fast script: its own script (already snapshotted above).
        let fast = root.join(format!("{name}-fast.loopy")).exists();
        let script_name = if fast {
            format!("{name}-fast.loopy")
        } else {
            format!("{name}.loopy")
        };
        let kernel = Kernel::load(&c, &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        let script = std::fs::read_to_string(root.join(&script_name)).unwrap();
        let r = Run::with_settings(&kernel, &script, &script_name, &root, &fixed_model())
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        assert!(r.check().is_empty(), "{name}: {script_name} is illegal");
        let g = generate_from_script(&kernel, &r.interp.state, &script_name)
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        let region = g
            .region
            .replace(&format!("{}/", env!("CARGO_MANIFEST_DIR")), "");
        if fast {
            insta::assert_snapshot!(format!("apply_{name}_fast"), region);
        }
        let new_src = dir.join(format!("{name}.c"));
        std::fs::write(&new_src, &g.file).unwrap();
        for (k, defs) in [&[][..], odd].iter().enumerate() {
            let build = |src: &Path, exe: &Path, strict: bool| {
                let mut flags = vec!["-O2", "-ffp-contract=off", "-lm"];
                flags.extend(defs.iter());
                if strict {
                    flags.extend(["-Wall", "-Wextra", "-Werror"]);
                }
                common::compile(src, exe, &flags, "");
            };
            let (old_exe, new_exe) = (
                dir.join(format!("{name}{k}.old")),
                dir.join(format!("{name}{k}.new")),
            );
            build(&c, &old_exe, false);
            build(&new_src, &new_exe, true);
            assert!(
                run(&old_exe) == run(&new_exe),
                "{name} {defs:?}: outputs differ"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The scripts that unroll-and-jam a strip of rows (`isplit` of whole strips, then a
/// partial one) or tile a triangular nest: their programs print exactly what the original
/// prints at sizes that leave a partial strip or tile of every kind (the default sizes of
/// `transformed_examples_compile_cleanly_and_print_the_same` need not).
#[test]
fn jammed_and_tiled_scripts_print_the_same_with_partial_strips() {
    let dir = common::scratch("codegen_examples", "partial");
    let sizes: &[(&str, &[&[&str]])] = &[
        ("atax", &[&["-DM=37", "-DN=29"], &["-DM=3", "-DN=5"]]),
        ("bicg", &[&["-DM=29", "-DN=37"], &["-DM=5", "-DN=3"]]),
        ("gesummv", &[&["-DN=39"], &["-DN=2"]]),
        ("trisolv", &[&["-DN=39"], &["-DN=3"], &["-DN=1"]]),
        ("syrk", &[&["-DM=70", "-DN=131"]]),
        ("syr2k", &[&["-DM=70", "-DN=131"]]),
        ("symm", &[&["-DM=131", "-DN=261"]]),
    ];
    for (name, runs) in sizes {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let c = root.join(format!("{name}.c"));
        let script_name = format!("{name}.loopy");
        let kernel = Kernel::load(&c, &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        let script = std::fs::read_to_string(root.join(&script_name)).unwrap();
        let r = Run::new(&kernel, &script, &script_name, &root)
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        assert!(r.check().is_empty(), "{name}: script is illegal");
        let g = generate_from_script(&kernel, &r.interp.state, &script_name)
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        let new_src = dir.join(format!("{name}.c"));
        std::fs::write(&new_src, &g.file).unwrap();
        for (k, defs) in runs.iter().enumerate() {
            let build = |src: &Path, exe: &Path| {
                let mut flags = vec!["-O2", "-ffp-contract=off", "-lm"];
                flags.extend(defs.iter());
                common::compile(src, exe, &flags, "");
            };
            let (old_exe, new_exe) = (
                dir.join(format!("{name}{k}.old")),
                dir.join(format!("{name}{k}.new")),
            );
            build(&c, &old_exe);
            build(&new_src, &new_exe);
            let (a, b) = (run(&old_exe), run(&new_exe));
            assert!(!a.is_empty(), "{name} {defs:?}: no output");
            assert!(a == b, "{name} {defs:?}: outputs differ");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A legal skew by a coefficient no C integer type of the loop counters holds is refused
/// (exit 2) instead of printing an unrepresentable constant; a large one that fits is kept.
#[test]
fn constants_that_do_not_fit_the_counters_are_refused() {
    let dir = common::scratch("codegen_examples", "constants");
    let big = dir.join("big.loopy");
    std::fs::write(
        &big,
        "affine(Mult, {[i,j,k] -> [i, j + 99999999999999999999*i, k]})\n",
    )
    .unwrap();
    let kernel = "examples/matmul/matmul.c";
    let (code, out, err) = common::loopy(&["check", kernel, big.to_str().unwrap()]);
    assert_eq!(code, 0, "the skew is legal: {out}{err}");
    let (code, out, err) =
        common::loopy(&["apply", "--color", "never", kernel, big.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.is_empty());
    insta::assert_snapshot!("apply_constant_too_large", err);
    let fits = dir.join("fits.loopy");
    std::fs::write(
        &fits,
        "affine(Mult, {[i,j,k] -> [i, j + 2147483647*i, k]})\n",
    )
    .unwrap();
    let (code, out, err) =
        common::loopy(&["apply", "--color", "never", kernel, fits.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2147483647"), "{out}");
}

/// The subscripts of `A[X][Y]` at the start of `s`, brackets balanced: `(X, Y, rest)`.
fn two_subscripts(s: &str) -> Option<(String, String, &str)> {
    let mut out = vec![];
    let mut rest = s.strip_prefix("A")?;
    for _ in 0..2 {
        rest = rest.strip_prefix('[')?;
        let mut depth = 1;
        let end = rest.char_indices().find_map(|(i, c)| {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        })?;
        out.push(rest[..end].to_string());
        rest = &rest[end + 1..];
    }
    Some((out[0].clone(), out[1].clone(), rest))
}

/// The data-dependent statements in the blocked code of qr and lu-pivot, wherever the
/// generator placed their copies (full blocks, partial ones, boundary steps with an
/// iterator replaced by an expression): each `if` on data is emitted whole, condition and
/// branches together with one substitution of its iterators, and each access through the
/// pivot index stays in its statement with the same subscripts as the rest of it: in every
/// copy of `Pick` the pivot `p[K]` is that of the step `K` of the row it swaps with, and
/// every copy of `Put` writes the pivot row of the step whose saved element it stores.
#[test]
fn blocked_code_keeps_conditions_and_indirect_accesses_with_their_statements() {
    let region = |name: &str, drop: &str| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let kernel = Kernel::load(&root.join(format!("{name}.c")), &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        let script = std::fs::read_to_string(root.join(format!("{name}.loopy")))
            .unwrap()
            .replace(drop, "");
        let r = Run::new(&kernel, &script, "s.loopy", &root)
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message));
        assert!(r.check().is_empty(), "{name}");
        generate_from_script(&kernel, &r.interp.state, "s.loopy")
            .unwrap_or_else(|e| panic!("{name}: {}", e.diagnostic.message))
            .region
    };
    // The example's script gives `t` back (a scalar); without its `contract`, each copy of
    // `Put` reads the storage element of its own step, which the check below reads.
    for contracted in [true, false] {
        let lu = region("lu-pivot", if contracted { "" } else { "contract(t)\n" });
        let (mut search, mut pick, mut put) = (0, 0, 0);
        for line in lu.lines().map(str::trim) {
            if line.starts_with("if (mu") {
                let (r, c, _) = two_subscripts(line.strip_prefix("if (mu < fabs(").unwrap())
                    .unwrap_or_else(|| panic!("{line}"));
                assert_eq!(
                    line,
                    format!(
                        "if (mu < fabs(A[{r}][{c}])) {{ mu = fabs(A[{r}][{c}]); p[{c}] = {r}; }}"
                    ),
                    "{lu}"
                );
                search += 1;
            } else if line.starts_with("A[p[") {
                let (row, j, rest) = two_subscripts(line).unwrap();
                let k = row
                    .strip_prefix("p[")
                    .and_then(|x| x.strip_suffix(']'))
                    .unwrap();
                if contracted {
                    assert_eq!(rest, " = loopy_t_x;", "{line}");
                    put += 1;
                    continue;
                }
                let stored = rest
                    .strip_prefix(" = loopy_t_x[")
                    .unwrap_or_else(|| panic!("{line}"));
                assert!(
                    stored.starts_with(&format!("{k}]["))
                        && stored.contains(&j)
                        && stored.ends_with("];"),
                    "{line}"
                );
                put += 1;
            } else if line.contains("[p[") {
                let (k, j, _) = two_subscripts(line).unwrap_or_else(|| panic!("{line}"));
                assert_eq!(line, format!("A[{k}][{j}] = A[p[{k}]][{j}];"), "{lu}");
                pick += 1;
            } else if let Some(rest) = line.strip_prefix("mu = fabs(") {
                let (r, c, _) = two_subscripts(rest).unwrap_or_else(|| panic!("{line}"));
                assert_eq!(
                    (line, &r),
                    (format!("mu = fabs(A[{r}][{c}]);").as_str(), &c)
                );
            } else if let Some(rest) = line.strip_prefix("p[") {
                let k = rest.split(']').next().unwrap();
                assert_eq!(line, format!("p[{k}] = {k};"));
            } else {
                assert!(!line.contains("fabs") && !line.contains("p["), "{line}");
            }
        }
        assert!(search > 0 && pick > 0 && put > 0, "{lu}");
    }
    // QR's reflection: one `if` on data with both branches, always whole.
    let qr = region("qr", "");
    let house: Vec<&str> = qr.lines().filter(|l| l.contains("sigma == 0.0")).collect();
    assert!(!house.is_empty(), "{qr}");
    for line in house {
        let line = line.trim();
        assert!(
            line.starts_with("if (sigma == 0.0) { tau[")
                && line.contains("} else { mu = sqrt(")
                && line.ends_with("s = 1.0 / v1; }"),
            "{line}"
        );
    }
}

/// Settings whose machine model is fixed (an AVX2 machine's register block, 6 x 8, and its
/// caches' KC, MC and NC), so that a fast script's `param MR = model` gives the same code,
/// and the same snapshot, on every machine.
fn fixed_model() -> Settings {
    let values = [("MR", 6), ("NR", 8), ("KC", 256), ("MC", 72), ("NC", 1104)]
        .iter()
        .map(|&(n, v)| (n.to_string(), Ok(Int::from(v))))
        .collect();
    Settings {
        model: Some(ModelValues {
            probed: None,
            values,
        }),
        ..Settings::default()
    }
}
