//! Script parameters (`param NAME = VALUE`, `--set NAME=VALUE`, a manifest's `set`): a script
//! run with parameters gives exactly the schedules of the same script with the numbers
//! written in, wherever a number can stand; every mistake is a diagnostic with spans and
//! exit code 2. The scripts are in `tests/data/params/`.

mod common;

use common::loopy;
use loopy::driver::{Kernel, Run};
use loopy::model::render::render_state;
use loopy::presburger::Int;
use loopy::script::params::{ModelValues, Settings};
use std::path::PathBuf;

const DATA: &str = "tests/data/params";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The schedules and components after `script` on `kernel` with `--set` values `sets`, and
/// whether the result is legal.
fn schedules(kernel: &str, script: &str, sets: &[&str]) -> (String, bool) {
    let k = Kernel::load(&root().join(kernel), &Default::default())
        .unwrap_or_else(|e| panic!("{kernel}: {}", e.render(false)));
    let path = root().join(DATA).join(script);
    let text = std::fs::read_to_string(&path).unwrap();
    let args: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let settings = Settings::from_command_line(&args).unwrap();
    let run = Run::with_settings(&k, &text, script, &root().join(DATA), &settings)
        .unwrap_or_else(|e| panic!("{script}: {}", e.render(false)));
    (render_state(&run.interp.state), run.check().is_empty())
}

/// `with` run with `sets` gives the schedules of `literal`; the schedules are a snapshot.
fn same(name: &str, kernel: &str, with: &str, sets: &[&str], literal: &str) {
    let (a, legal_a) = schedules(kernel, with, sets);
    let (b, legal_b) = schedules(kernel, literal, &[]);
    assert_eq!(a, b, "{with} {sets:?} differs from {literal}");
    assert_eq!(legal_a, legal_b);
    insta::assert_snapshot!(name, a);
}

#[test]
fn maps_sets_copy_limits_and_unroll_factors() {
    same(
        "gemm_blis",
        "examples/gemm/gemm.c",
        "gemm-blis.loopy",
        &["NC=512"],
        "gemm-blis-literal.loopy",
    );
}

#[test]
fn tile_sizes_levels_marks_and_procedure_arguments() {
    same(
        "gemm_tile",
        "examples/gemm/gemm.c",
        "gemm-tile.loopy",
        &["T=64"],
        "gemm-tile-literal.loopy",
    );
}

#[test]
fn loop_operations_and_lists() {
    same(
        "jacobi_loops",
        "examples/jacobi-2d/jacobi-2d.c",
        "jacobi-loops.loopy",
        &["F=2", "S=8"],
        "jacobi-loops-literal.loopy",
    );
}

#[test]
fn hoisting_lifting_and_split_predicates() {
    same(
        "lu_hoist",
        "examples/lu-kji/lu-kji.c",
        "lu-hoist.loopy",
        &["B=32", "HALF=40"],
        "lu-hoist-literal.loopy",
    );
}

#[test]
fn defaults_are_values_too() {
    // Without `--set`, the defaults: T = 32 is not the literal script's 64.
    let (a, _) = schedules("examples/gemm/gemm.c", "gemm-tile.loopy", &[]);
    let (b, _) = schedules("examples/gemm/gemm.c", "gemm-tile-literal.loopy", &[]);
    assert_ne!(a, b);
    let (c, _) = schedules("examples/gemm/gemm.c", "gemm-tile.loopy", &["T=64"]);
    assert_eq!(c, b);
}

fn data(f: &str) -> String {
    format!("{DATA}/{f}")
}

#[test]
fn apply_generates_the_same_code() {
    let gemm = "examples/gemm/gemm.c";
    let (c1, with, e1) = loopy(&[
        "apply",
        gemm,
        &data("gemm-blis.loopy"),
        "--region-only",
        "--set",
        "NC=512",
    ]);
    let (c2, literal, e2) = loopy(&[
        "apply",
        gemm,
        &data("gemm-blis-literal.loopy"),
        "--region-only",
    ]);
    assert_eq!((c1, c2), (0, 0), "{e1}{e2}");
    // The header names the script and the values set; the code is the same.
    let (h1, code1) = with.split_once('\n').unwrap();
    let (h2, code2) = literal.split_once('\n').unwrap();
    assert!(
        h1.contains("gemm-blis.loopy --set NC=512 (verified legal)"),
        "{h1}"
    );
    assert!(
        h2.contains("gemm-blis-literal.loopy (verified legal)"),
        "{h2}"
    );
    assert_eq!(code1, code2);
}

#[test]
fn check_and_show_with_set() {
    let gemm = "examples/gemm/gemm.c";
    let (code, out, err) = loopy(&["check", gemm, &data("gemm-blis.loopy"), "--set", "NC=512"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("legal"), "{out}");
    // show --script prints the values in force, and where each came from.
    let (code, out, err) = loopy(&[
        "show",
        gemm,
        "--script",
        &data("gemm-blis.loopy"),
        "--set",
        "NC=512",
        "--set",
        "MC=96",
    ]);
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("script parameters:"))
        .unwrap();
    insta::assert_snapshot!("show_parameters", line);
    let (code, out, err) = loopy(&[
        "show",
        gemm,
        "--script",
        &data("gemm-blis.loopy"),
        "--set",
        "NC=512",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\"NC\": {\n      \"value\": 512,\n      \"from\": \"--set\"\n    }"),
        "{out}"
    );
    assert!(out.contains("\"from\": \"default\""), "{out}");
}

/// Runs `loopy ARGS`, expects exit code 2, and returns its standard error for a snapshot.
fn bad(args: &[&str]) -> String {
    let (code, out, err) = loopy(args);
    assert_eq!(code, 2, "{args:?}\nstdout: {out}\nstderr: {err}");
    err
}

fn check_err(script: &str, sets: &[&str]) -> String {
    let s = data(script);
    let mut args = vec!["check", "examples/gemm/gemm.c", s.as_str()];
    for x in sets {
        args.push("--set");
        args.push(x);
    }
    bad(&args)
}

#[test]
fn error_unset() {
    insta::assert_snapshot!(check_err("gemm-blis.loopy", &[]));
}

#[test]
fn error_not_declared() {
    insta::assert_snapshot!(check_err("gemm-blis.loopy", &["NC=512", "Mc=96"]));
}

#[test]
fn error_not_declared_by_a_script_without_parameters() {
    insta::assert_snapshot!(check_err("gemm-blis-literal.loopy", &["NC=512"]));
}

#[test]
fn error_not_an_integer_on_the_command_line() {
    insta::assert_snapshot!(check_err("gemm-blis.loopy", &["NC=512", "MC=9.6"]));
}

#[test]
fn error_set_twice() {
    insta::assert_snapshot!(check_err("gemm-blis.loopy", &["NC=512", "NC=256"]));
}

#[test]
fn error_malformed_set() {
    insta::assert_snapshot!(check_err("gemm-blis.loopy", &["NC"]));
}

#[test]
fn error_zero_tile_size() {
    insta::assert_snapshot!(check_err("gemm-tile.loopy", &["U=0"]));
}

#[test]
fn error_negative_tile_size_in_a_list() {
    insta::assert_snapshot!(check_err("tile-size.loopy", &["T=-8"]));
}

#[test]
fn error_zero_divisor_in_a_map() {
    insta::assert_snapshot!(check_err("gemm-blis.loopy", &["NC=0"]));
}

#[test]
fn error_negative_unroll_factor() {
    insta::assert_snapshot!(check_err("gemm-blis.loopy", &["NC=512", "KU=-4"]));
}

#[test]
fn error_level_passed_through_a_procedure() {
    insta::assert_snapshot!(check_err("gemm-tile.loopy", &["LEVEL=-1"]));
}

#[test]
fn error_duplicate_declaration() {
    insta::assert_snapshot!(check_err("dup.loopy", &[]));
}

#[test]
fn error_kernel_parameter_name() {
    insta::assert_snapshot!(check_err("kernel-param.loopy", &[]));
}

#[test]
fn error_tag_name() {
    insta::assert_snapshot!(check_err("tag.loopy", &[]));
}

#[test]
fn error_handle_name() {
    insta::assert_snapshot!(check_err("handle.loopy", &[]));
}

#[test]
fn error_dimension_name() {
    insta::assert_snapshot!(check_err("dimension.loopy", &[]));
}

#[test]
fn error_map_parameter_name() {
    insta::assert_snapshot!(check_err("map-param.loopy", &[]));
}

#[test]
fn error_handle_in_a_list() {
    insta::assert_snapshot!(check_err("list-handle.loopy", &[]));
}

#[test]
fn error_used_inside_a_procedure() {
    insta::assert_snapshot!(check_err("in-procedure.loopy", &[]));
}

#[test]
fn error_declared_in_an_imported_file() {
    insta::assert_snapshot!(check_err("imports-param.loopy", &[]));
}

#[test]
fn error_syntax() {
    insta::assert_snapshot!(check_err("syntax.loopy", &[]));
}

#[test]
fn every_command_that_reads_a_script_takes_set() {
    let gemm = "examples/gemm/gemm.c";
    let s = data("gemm-blis.loopy");
    let svg = std::env::temp_dir().join(format!("loopy-params-{}.svg", std::process::id()));
    let svg = svg.display().to_string();
    for cmd in [
        vec!["check", gemm, &s],
        vec!["apply", gemm, &s],
        vec!["show", gemm, "--script", &s],
        vec!["suggest", gemm, &s],
        vec!["draw", gemm, &s, "-o", &svg],
        vec!["bench", gemm, &s, "--runs", "1"],
    ] {
        // The undeclared name is reported before anything is compiled or timed.
        let mut args = cmd.clone();
        args.extend(["--set", "NC=512", "--set", "XX=1"]);
        let err = bad(&args);
        assert!(
            err.contains("the script declares no parameter `XX`"),
            "{cmd:?}: {err}"
        );
    }
    let tile = data("gemm-tile.loopy");
    let (code, _, err) = loopy(&["draw", gemm, &tile, "--set", "T=8", "-o", &svg]);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_file(&svg);
    let (code, out, err) = loopy(&["suggest", gemm, &tile, "--set", "T=8"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("legal already"), "{out}");
    // `--set` without a script to set is a usage error.
    let err = bad(&["show", gemm, "--set", "NC=512"]);
    assert!(err.contains("--script"), "{err}");
    let err = bad(&["check", "--manifest", &data("loopy.toml"), "--set", "NC=1"]);
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn manifest_set() {
    let (code, out, err) = loopy(&["check", "--manifest", &data("loopy.toml")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 passed, 0 failed"), "{out}");
}

#[test]
fn error_manifest_value_not_an_integer() {
    insta::assert_snapshot!(bad(&["check", "--manifest", &data("bad-value.toml")]));
}

#[test]
fn error_manifest_name_not_declared() {
    let (code, out, err) = loopy(&["check", "--manifest", &data("undeclared.toml")]);
    assert_eq!(code, 2, "{out}{err}");
    insta::assert_snapshot!(err);
}

/// Runs `loopy repl ARGS` with `input` on standard input.
fn repl(args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let history = std::env::temp_dir().join(format!("loopy-params-{}.hist", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_loopy"))
        .arg("repl")
        .args(args)
        .env("NO_COLOR", "1")
        .env("LOOPY_HISTORY", &history)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run loopy repl");
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_file(history);
    common::outcome(out)
}

#[test]
fn repl_reads_parameters_and_saves_their_values() {
    let dir = common::scratch("params", "repl");
    let saved = dir.join("session.loopy");
    let input = format!(
        "param W = 8\ntile(Rest, [W, W, W])\n:save {}\n",
        saved.display()
    );
    let (code, out, err) = repl(
        &[
            "examples/gemm/gemm.c",
            &data("gemm-blis.loopy"),
            "--set",
            "NC=512",
        ],
        &input,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("parameter W = 8 (default)"), "{out}");
    let text = std::fs::read_to_string(&saved).unwrap();
    let header: Vec<&str> = text.lines().take(3).collect();
    let header = header.join("\n").replace(&dir.display().to_string(), "DIR");
    insta::assert_snapshot!("repl_saved_header", header);
    // The saved session checks with the same `--set`.
    let (code, out, err) = loopy(&[
        "check",
        "examples/gemm/gemm.c",
        &saved.display().to_string(),
        "--set",
        "NC=512",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let _ = std::fs::remove_dir_all(&dir);
    // A `--set` the loaded script does not declare ends the session at once.
    let (code, _, err) = repl(
        &[
            "examples/gemm/gemm.c",
            &data("gemm-blis.loopy"),
            "--set",
            "NC=512",
            "--set",
            "ZZ=1",
        ],
        "",
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("the script declares no parameter `ZZ`"),
        "{err}"
    );
}

/// A made-up model table, so that no test depends on this machine's values: MR 6, KC 256,
/// float.NR 16; MC unknown (as when L2 cannot be read); the other names 1.
fn fake_model() -> ModelValues {
    let values = loopy::model_names()
        .into_iter()
        .map(|n| {
            let v = match n.as_str() {
                "MR" => Ok(Int::from(6)),
                "KC" => Ok(Int::from(256)),
                "float.NR" => Ok(Int::from(16)),
                "MC" => Err("the size of L2 is unknown".to_string()),
                _ => Ok(Int::from(1)),
            };
            (n, v)
        })
        .collect();
    ModelValues {
        probed: Some("cc -O3 -march=native".to_string()),
        values,
    }
}

/// Runs `text` on gemm with `sets` and the model table `model`.
fn run_with_model(
    text: &str,
    sets: &[&str],
    model: Option<ModelValues>,
) -> Result<Run, loopy::diag::Report> {
    let k = Kernel::load(&root().join("examples/gemm/gemm.c"), &Default::default()).unwrap();
    let args: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let mut settings = Settings::from_command_line(&args).unwrap();
    settings.model = model;
    Run::with_settings(&k, text, "model.loopy", &root().join(DATA), &settings)
}

#[test]
fn model_defaults_take_the_model_values() {
    let text = std::fs::read_to_string(root().join(DATA).join("gemm-model.loopy")).unwrap();
    let run = run_with_model(&text, &[], Some(fake_model()))
        .unwrap_or_else(|f| panic!("{}", f.render(false)));
    let (literal, _) = schedules("examples/gemm/gemm.c", "gemm-model-literal.loopy", &[]);
    assert_eq!(render_state(&run.interp.state), literal);
    let described: Vec<String> = run.interp.params.iter().map(|p| p.describe()).collect();
    assert_eq!(
        described,
        [
            "MR = 6 (model)",
            "U = 16 (model float.NR)",
            "T = 256 (model KC)"
        ]
    );
    // `--set` wins over the model: the value set is used and the model's is not read.
    let run = run_with_model(&text, &["T=64"], Some(fake_model())).unwrap();
    assert_eq!(run.interp.params[2].describe(), "T = 64 (--set)");
    assert_eq!(run.interp.params[2].model, None);
}

#[test]
fn model_values_unknown_here_are_errors() {
    let e = run_with_model(
        "param MC = model\ntile(Mult, [1, 3], [MC, MC])",
        &[],
        Some(fake_model()),
    )
    .err()
    .unwrap();
    insta::assert_snapshot!("model_unknown_value", e.render(false));
    // Set, the unknown value is not needed.
    assert!(run_with_model(
        "param MC = model\ntile(Mult, [1, 3], [MC, MC])",
        &["MC=64"],
        Some(fake_model())
    )
    .is_ok());
    // A command that computed no model.
    let e = run_with_model("param MR = model", &[], None).err().unwrap();
    assert!(
        e.diagnostic
            .message
            .contains("the model is not computed here"),
        "{}",
        e.diagnostic.message
    );
    // A parameter whose own name the model lacks.
    let e = run_with_model("param LD = model", &[], Some(fake_model()))
        .err()
        .unwrap();
    assert_eq!(e.diagnostic.message, "the machine model has no value `LD`");
    assert!(
        e.render(false).contains("`param LD = model(MC)`"),
        "{}",
        e.render(false)
    );
}

#[test]
fn model_default_set_gives_the_literal_schedule() {
    // Every model parameter set: the machine is never probed, so this holds on any machine.
    let gemm = "examples/gemm/gemm.c";
    let (c1, with, e1) = loopy(&[
        "apply",
        gemm,
        &data("gemm-model.loopy"),
        "--region-only",
        "--set",
        "MR=6",
        "--set",
        "U=16",
        "--set",
        "T=256",
    ]);
    let (c2, literal, e2) = loopy(&[
        "apply",
        gemm,
        &data("gemm-model-literal.loopy"),
        "--region-only",
    ]);
    assert_eq!((c1, c2), (0, 0), "{e1}{e2}");
    assert_eq!(
        with.split_once('\n').unwrap().1,
        literal.split_once('\n').unwrap().1
    );
    let (code, out, err) = loopy(&[
        "show",
        gemm,
        "--script",
        &data("gemm-model.loopy"),
        "--set",
        "MR=6",
        "--set",
        "U=16",
        "--set",
        "T=256",
    ]);
    assert_eq!(code, 0, "{err}");
    let (_, lit, _) = loopy(&["show", gemm, "--script", &data("gemm-model-literal.loopy")]);
    // The schedules after the script (its name and parameter lines aside).
    let after = |s: &str| {
        s.lines()
            .skip_while(|l| !l.starts_with("after "))
            .skip(1)
            .filter(|l| !l.starts_with("script parameters:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(after(&out), after(&lit));
    assert!(out.contains("MR = 6 (--set)"), "{out}");
}

#[test]
fn error_unknown_model_name() {
    insta::assert_snapshot!(check_err("model-name.loopy", &[]));
}

/// For a kernel whose floating-point arrays are all `float`, a plain model name is the
/// float model's value (`MR` is `float.MR`); a name with its type stays that type's.
#[test]
fn model_values_follow_the_kernels_element_type() {
    let c = "\
void f(int n, float C[64][64], float A[64][64], float B[64][64]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
S:      C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
";
    let mut model = fake_model();
    for (n, v) in model.values.iter_mut() {
        match n.as_str() {
            "float.MR" => *v = Ok(Int::from(14)),
            "double.MR" => *v = Ok(Int::from(6)),
            _ => {}
        }
    }
    let text = "param MR = model\nparam D = model(double.MR)\nparam N = model(NR)\n";
    let settings = Settings {
        model: Some(model),
        ..Default::default()
    };
    let k = Kernel::from_text("f.c", c, &Default::default()).unwrap();
    let run = Run::with_settings(&k, text, "m.loopy", &root().join(DATA), &settings)
        .unwrap_or_else(|f| panic!("{}", f.render(false)));
    let described: Vec<String> = run.interp.params.iter().map(|p| p.describe()).collect();
    assert_eq!(
        described,
        [
            "MR = 14 (model)",
            "D = 6 (model double.MR)",
            "N = 16 (model NR)"
        ]
    );
    // The same script on a kernel of doubles reads the double model's names.
    let k = Kernel::from_text("f.c", &c.replace("float", "double"), &Default::default()).unwrap();
    let run = Run::with_settings(&k, text, "m.loopy", &root().join(DATA), &settings).unwrap();
    let described: Vec<String> = run.interp.params.iter().map(|p| p.describe()).collect();
    assert_eq!(
        described,
        [
            "MR = 6 (model)",
            "D = 6 (model double.MR)",
            "N = 1 (model NR)"
        ]
    );
}
