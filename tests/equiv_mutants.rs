//! `loopy equiv` on mutants of the code `loopy apply` generates for examples whose proofs
//! go through recurrences (floyd-warshall's `k` loop, heat-3d's time steps fused and
//! shifted, mgs's tiles of 16 columns, seidel-2d's skewed tiles): each generated program
//! is proved (but jacobi-2d's wavefronts, whose proof runs out of budget); a mutant that
//! changes what the program prints is "not equivalent" with a witness, and both programs,
//! built at the witness's parameter values (the macros of the same names in capitals),
//! print differently there; a mutant that keeps the computation (two independent loops
//! swapped) is proved. (A mutant of floyd-warshall's bounds is "not equivalent" too, but
//! its data never shortens a path through the vertices it skips, so no size shows it: not
//! in this table.)

mod common;

use common::loopy;
use std::path::{Path, PathBuf};

/// `loopy apply` of `examples/K/SCRIPT.loopy` into `dir`; the kernel and the generated
/// file.
fn generated(dir: &Path, k: &str, script: &str) -> (PathBuf, PathBuf) {
    let ex = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(k);
    let kernel = ex.join(format!("{k}.c"));
    let out = dir.join(format!("{script}.c"));
    common::apply_to(&kernel, &ex.join(format!("{script}.loopy")), &out);
    (kernel, out)
}

fn equiv(a: &Path, b: &Path) -> (i32, String, String) {
    loopy(&[
        "--color",
        "never",
        "equiv",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ])
}

/// The witness's parameter values (`for n = 3, m = 1`), as `-D` flags in capitals.
fn witness_defines(stderr: &str) -> Vec<String> {
    let line = (stderr.lines())
        .find(|l| l.to_lowercase().contains("note") && l.contains(": for "))
        .unwrap_or_else(|| panic!("no witness sizes in\n{stderr}"));
    let values = line.split(": for ").nth(1).unwrap();
    (values.split(", "))
        .map(|kv| {
            let (k, v) = kv.split_once(" = ").unwrap();
            format!("-D{}={}", k.trim().to_uppercase(), v.trim())
        })
        .collect()
}

/// What `src` prints, built into `dir` with `defines`.
fn output(src: &Path, dir: &Path, tag: &str, defines: &[String]) -> String {
    let mut flags: Vec<&str> = vec!["-O0", "-ffp-contract=off"];
    flags.extend(defines.iter().map(String::as_str));
    flags.push("-lm");
    common::output_of(src, dir, tag, &flags)
}

/// Mutants of one example's generated code: `(name, from, to, changes the output)`.
fn mutants(k: &str, cases: &[(&str, &str, &str, bool)]) {
    mutants_where(k, k, 0, cases);
}

/// [`mutants`] of the code `script` generates, where `equiv` on the generated code itself
/// exits with `proof`.
fn mutants_where(k: &str, script: &str, proof: i32, cases: &[(&str, &str, &str, bool)]) {
    let dir = common::scratch("equiv-mutants", script);
    let (kernel, generated) = generated(&dir, k, script);
    let (code, out, err) = equiv(&kernel, &generated);
    assert_eq!(code, proof, "{k}: the generated code\n{out}{err}");
    let text = std::fs::read_to_string(&generated).unwrap();
    for &(name, from, to, changes) in cases {
        assert!(
            text.contains(from),
            "{k} {name}: `{from}` is not in the generated code"
        );
        let mutant = dir.join(format!("{name}.c"));
        std::fs::write(&mutant, text.replacen(from, to, 1)).unwrap();
        let (code, out, err) = equiv(&kernel, &mutant);
        if !changes {
            assert_eq!(code, 0, "{k} {name}: expected equivalent\n{out}{err}");
            continue;
        }
        assert_eq!(code, 1, "{k} {name}: expected not equivalent\n{out}{err}");
        assert!(out.starts_with("not equivalent"), "{k} {name}: {out}");
        let d = witness_defines(&err);
        assert_ne!(
            output(&kernel, &dir, &format!("original-{name}"), &d),
            output(&mutant, &dir, name, &d),
            "{k} {name}: no difference at the witness {d:?}\n{err}"
        );
    }
}

#[test]
fn floyd_warshall_mutants() {
    mutants(
        "floyd-warshall",
        &[
            // A path through the vertex itself subtracts its loop: always shorter.
            (
                "minus",
                "path[i][k] = path[i][k] < path[i][k] + path[k][k] ? path[i][k] : path[i][k] + path[k][k];",
                "path[i][k] = path[i][k] < path[i][k] - path[k][k] ? path[i][k] : path[i][k] - path[k][k];",
                true,
            ),
        ],
    );
}

#[test]
fn heat_3d_mutants() {
    mutants(
        "heat-3d",
        &[
            // The fused nest stops one plane early.
            (
                "planes",
                "for (int c3 = 2; c3 <= n - 2; c3++)",
                "for (int c3 = 2; c3 <= n - 3; c3++)",
                true,
            ),
            // The shifted statement reads the plane it writes instead of the next.
            (
                "shift",
                "A[(c3 - 1)][j][k] = 0.125 * (B[(c3 - 1)+1][j][k]",
                "A[(c3 - 1)][j][k] = 0.125 * (B[(c3 - 1)][j][k]",
                true,
            ),
            // The first plane's rows and columns swapped: independent iterations.
            (
                "swap",
                "for (j = 1; j <= n - 2; j++) {\n        for (k = 1; k <= n - 2; k++) {\n          B[1]",
                "for (k = 1; k <= n - 2; k++) {\n        for (j = 1; j <= n - 2; j++) {\n          B[1]",
                false,
            ),
        ],
    );
}

#[test]
fn mgs_mutants() {
    mutants(
        "mgs",
        &[
            // The earlier columns' projections miss the last column of the tile before.
            (
                "tile-bound",
                "for (k = 0; k <= 16 * c1 - 1; k++)",
                "for (k = 0; k <= 16 * c1 - 2; k++)",
                true,
            ),
            // The normalised column misses its last row.
            (
                "rows",
                "for (i = 0; i <= m - 1; i++) {\n        Q[i][k]",
                "for (i = 0; i <= m - 2; i++) {\n        Q[i][k]",
                true,
            ),
        ],
    );
}

/// seidel-2d's skewed tiles (its generated bounds compare `floord`s in `loopy_min`s): the
/// generated code is proved, and a mutant that changes an operand is "not equivalent".
#[test]
fn seidel_2d_mutants() {
    mutants(
        "seidel-2d",
        &[(
            "operand",
            "+ A[(-t + 32 * c3 + c7)+1][(t - 32 * c3 + 32 * c5 - c7 + c9)+1]) / 9.0;",
            "+ A[(-t + 32 * c3 + c7)+1][(t - 32 * c3 + 32 * c5 - c7 + c9)]) / 9.0;",
            true,
        )],
    );
}

/// jacobi-2d's wavefronts of skewed tiles run out of the work budget before anything is
/// proved (the dataflow over the points of their boundary tiles); a difference is then
/// looked for by running both programs at small parameter values, and a mutant that
/// changes an operand is found there (tsteps = n = 4).
#[test]
fn jacobi_2d_par_mutants_are_found_by_running_where_the_proof_runs_out() {
    mutants_where(
        "jacobi-2d",
        "jacobi-2d-par",
        2,
        &[(
            "operand",
            "+ A[(64 * c3 - 2 * t + c9)-1][(256 * c5 - 2 * t + c11)]);",
            "+ A[(64 * c3 - 2 * t + c9)][(256 * c5 - 2 * t + c11)]);",
            true,
        )],
    );
}
