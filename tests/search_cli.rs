//! `loopy search` end to end: the legal outer interleavings of small kernels, determinism,
//! every emitted script accepted by `loopy check`. (`loopy suggest`'s suggestions, legal and
//! the smallest among the changes tried, are tested beside the code, in `src/suggest/`.)

mod common;
use common::{loopy, scratch};
use std::path::Path;

fn kernel(dir: &Path, name: &str, body: &str) -> String {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(
        &c,
        format!(
            "void k(int n, double A[n], double B[n], double C[n]) {{\n  int i;\n\
             #pragma scop\n{body}#pragma endscop\n}}\n"
        ),
    )
    .unwrap();
    c.to_str().unwrap().to_string()
}

/// The value of a top-level integer field of the JSON output.
fn int_field(json: &str, field: &str) -> i64 {
    let at = json.find(&format!("\"{field}\": ")).expect(field) + field.len() + 4;
    json[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect::<String>()
        .parse()
        .unwrap()
}

/// The JSON output without its timings (the only fields that may differ between runs).
fn without_times(json: &str) -> String {
    json.lines()
        .filter(|l| !l.contains("\"seconds\"") && !l.contains("\"build_seconds\""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn scripts(json: &str) -> Vec<String> {
    json.lines()
        .filter_map(|l| l.trim().strip_prefix("\"script\": \""))
        .map(|s| {
            s.trim_end_matches(',')
                .trim_end_matches('"')
                .replace("\\n", "\n")
        })
        .collect()
}

/// Counted against the definition: independent statements can be ordered and fused in
/// every way (13 ordered partitions of three), a dependence forbids running the reader
/// first, a reversed access forbids fusion (no hyperplane with non-negative coefficients
/// and no parametric shift keeps it).
#[test]
fn interleavings_of_small_kernels() {
    let d = scratch("search", "count");
    let cases = [
        (
            "independent",
            "  for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 0; i < n; i++)\n    \
             B[i] = 2.0;\n  for (i = 0; i < n; i++)\n    C[i] = 3.0;\n",
            13,
        ),
        (
            "chain",
            "  for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 1; i < n; i++)\n    \
             B[i] = A[i - 1];\n",
            2,
        ),
        (
            "reversed",
            "  for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 0; i < n; i++)\n    \
             B[i] = A[n - 1 - i];\n",
            1,
        ),
    ];
    for (name, body, want) in cases {
        let c = kernel(&d, name, body);
        let (code, out, err) = loopy(&["search", &c, "--no-bench", "--format", "json"]);
        assert_eq!(code, 0, "{name}: {err}");
        assert_eq!(int_field(&out, "interleavings"), want, "{name}: {out}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The same kernel twice gives the same candidates, and `loopy check` accepts every script
/// the search writes (on an untagged kernel, through the default statement handles, and on
/// jacobi-2d, whose schedule needs skews and a shift to fuse).
#[test]
fn deterministic_and_every_script_checks() {
    let d = scratch("search", "scripts");
    let c = kernel(
        &d,
        "chain",
        "  for (i = 0; i < n; i++)\n    A[i] = 1.0;\n  for (i = 1; i < n; i++)\n    \
         B[i] = A[i - 1];\n",
    );
    for k in [
        c.as_str(),
        "examples/jacobi-2d/jacobi-2d.c",
        "examples/fdtd-2d/fdtd-2d.c",
    ] {
        let (code, a, err) = loopy(&["search", k, "--no-bench", "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        let (_, b, _) = loopy(&["search", k, "--no-bench", "--format", "json"]);
        assert_eq!(without_times(&a), without_times(&b), "{k}");
        let all = scripts(&a);
        assert!(!all.is_empty(), "{a}");
        assert!(!a.contains("\"verdict\": \"illegal\""), "{a}");
        for (n, s) in all.iter().enumerate() {
            let f = d.join(format!("cand-{n}.loopy"));
            std::fs::write(&f, format!("{s}\n")).unwrap();
            let (code, out, err) = loopy(&["check", k, f.to_str().unwrap()]);
            assert_eq!(code, 0, "{k}, candidate {n}:\n{s}\n{out}{err}");
        }
    }
    // The fused schedule of the chain shifts the writer by one: distance 0 from `A[i - 1]`
    // written to its read.
    let (_, out, _) = loopy(&["search", &c, "--no-bench"]);
    assert!(out.contains("shift(S0, 1, 1)"), "{out}");
    assert!(out.contains("realign(S0, S1, 1)"), "{out}");
    let _ = std::fs::remove_dir_all(&d);
}

/// The script of the first candidate of a kind, taken from the JSON output.
fn script_of_kind(json: &str, kind: &str) -> Option<String> {
    let at = json.find(&format!("\"kind\": \"{kind}\""))?;
    scripts(&json[at..]).into_iter().next()
}

/// The fuse-with-shifts schedule keeps a stencil's loop order: on jacobi-2d and fdtd-2d it
/// is the hand-written script (shift and fuse under `(t, i, j)`, no skew, no interchange),
/// so `j` stays innermost; the §4.1 schedule of the same interleaving skews.
#[test]
fn stencils_keep_their_loop_order() {
    let cases = [
        (
            "examples/jacobi-2d/jacobi-2d.c",
            vec!["shift(LoopA, 2, 1)", "realign(LoopB, LoopA, 3)"],
        ),
        (
            "examples/fdtd-2d/fdtd-2d.c",
            vec![
                "shift(HZ, 2, 1)",
                "realign(EY, EX, 3)",
                "realign(EX, HZ, 3)",
            ],
        ),
    ];
    for (k, want) in cases {
        let (code, out, err) = loopy(&["search", k, "--no-bench", "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        let fused = script_of_kind(&out, "fused").expect(&out);
        // Each step after a comment saying what it is for.
        let mut lines: Vec<&str> = fused.lines().filter(|l| !l.starts_with('#')).collect();
        assert!(
            fused.lines().filter(|l| l.starts_with('#')).count() >= 2,
            "{k}:\n{fused}"
        );
        lines.sort();
        let mut want = want.clone();
        want.sort();
        assert_eq!(lines, want, "{k}:\n{out}");
        let bands = script_of_kind(&out, "bands").expect(&out);
        assert!(bands.contains("skew("), "{k}:\n{bands}");
    }
}

/// A stencil's time steps alone are scaled for screening: its arrays keep their sizes. They
/// are scaled as much as every size would cut the work (0.5² for two loops deep: 40 → 10),
/// but keep at least the largest tile size tried (16). Every candidate screened has its
/// estimate at those sizes, and the ranking over them is Spearman's of those estimates.
#[test]
fn a_stencil_is_screened_in_its_time_steps() {
    let (code, out, err) = loopy(&[
        "search",
        "examples/jacobi-1d/jacobi-1d.c",
        "-D",
        "TSTEPS=40",
        "-D",
        "N=200",
        "--screen-above",
        "0",
        "--runs",
        "1",
        "--tile-sizes",
        "16",
        "--time-limit",
        "30",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j["screen_defines"],
        serde_json::json!(["TSTEPS=16", "N=200"]),
        "{out}"
    );
    let cands = j["candidates"].as_array().unwrap();
    for c in cands {
        assert_eq!(
            c["screen_estimate"].is_number(),
            c["estimate"].is_number(),
            "{c}"
        );
    }
    let screened = cands
        .iter()
        .filter(|c| c["screen_speedup"].is_number() && c["speedup"].is_null())
        .filter(|c| c["screen_estimate"].is_number())
        .count();
    let ranked = j["model_ranked_screened"].as_u64().unwrap() as usize;
    // Over every candidate timed only when screening, or none (fewer than three, or no
    // order among them).
    assert!(ranked == screened || ranked == 0, "{out}");
}

/// With timing: the candidates are screened at the scaled sizes, and the best few timed
/// again at the sizes asked for; the best is one of those. (`--screen-above 0`: the
/// original runs in milliseconds at this size, which would otherwise turn screening off.)
#[test]
fn screening_then_finalists() {
    let (code, out, err) = loopy(&[
        "search",
        "examples/matmul/matmul.c",
        "-D",
        "N=48",
        "--screen",
        "0.5",
        "--screen-above",
        "0",
        "--finalists",
        "2",
        "--runs",
        "1",
        "--tile-sizes",
        "8",
        "--time-limit",
        "40",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["screen_defines"], serde_json::json!(["N=24"]), "{out}");
    let cands = j["candidates"].as_array().unwrap();
    assert!(
        cands.iter().any(|c| c["screen_speedup"].is_number()),
        "{out}"
    );
    // Every candidate says why it has no timing at the sizes asked for (one timed only at
    // the screening sizes too); a candidate timed there has no reason.
    for c in cands {
        assert_eq!(c["speedup"].is_number(), c["reason"].is_null(), "{c}");
        if c["speedup"].is_null() && c["screen_speedup"].is_number() {
            let r = c["reason"].as_str().unwrap();
            assert!(r.contains("screen"), "{r}");
        }
    }
    // The recipes are timed at the sizes given, not screened (a screened recipe could lose
    // to any candidate timed there): the BLIS recipe on Mult among them.
    let recipes = |c: &&serde_json::Value| c["kind"] == "recipe";
    assert!(cands.iter().filter(recipes).count() >= 1, "{out}");
    assert!(
        (cands.iter().filter(recipes)).all(|c| c["speedup"].is_number()),
        "{out}"
    );
    // Of the schedules, the first (timed at the sizes given to decide whether to screen) and
    // at most two finalists, besides the kernel as it is (timed for the playoff).
    let identity = j["identity"].as_u64().unwrap() as usize;
    let others = |c: &(usize, &serde_json::Value)| c.0 != identity && !recipes(&c.1);
    let finalists = (cands.iter().enumerate().filter(others))
        .filter(|c| c.1["speedup"].is_number())
        .count();
    assert!((1..=3).contains(&finalists), "{out}");
    // Every candidate timed at the sizes given was screened too, and the best is one of them.
    assert!((cands.iter().enumerate().filter(others))
        .all(|(_, c)| c["speedup"].is_null() || c["screen_speedup"].is_number()));
    // The answer was timed at the sizes given, or it is a candidate tuned because the kernel
    // as it is won (rescued): then its tuned values ran faster than the original there.
    let best = j["best"].as_u64().unwrap() as usize;
    let f = &j["finished"];
    let rescued = f["rescued"].as_bool() == Some(true);
    if rescued {
        assert_eq!(f["candidate"].as_u64(), Some(best as u64), "{out}");
        assert!(f["speedup"].as_f64().is_some_and(|x| x > 1.0), "{out}");
    } else {
        assert!(cands[best]["speedup"].is_number(), "{out}");
    }
    // The playoff: the finalists and the kernel as it is, the answer first (unless the
    // answer was rescued after the kernel as it is won it).
    let playoff: Vec<u64> = (j["playoff"].as_array().unwrap().iter())
        .map(|c| c.as_u64().unwrap())
        .collect();
    if finalists >= 2 && !rescued {
        assert!(playoff.contains(&(identity as u64)), "{out}");
        assert_eq!(playoff[0], best as u64, "{out}");
        assert!(playoff.len() <= 3, "{out}");
    }
    // The time kept for the answer's parameters (--finish) was used, or the search says
    // why not.
    assert!(
        f["changed"].as_array().is_some_and(|c| !c.is_empty()) || f["reason"].is_string(),
        "{out}"
    );
}

/// Tiled candidates carry their sizes as script parameters (`param TILE1 = …`), which
/// `--set` (and so `loopy tune`) can change; without `--tile-sizes` the sizes are `tune`'s
/// values around the machine model's, with the model's first.
#[test]
fn tile_sizes_are_parameters_around_the_model() {
    let d = scratch("search", "tile-params");
    let (code, out, err) = loopy(&[
        "search",
        "examples/matmul/matmul.c",
        "--no-bench",
        "--tile-sizes",
        "48,16",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["tile_sizes"], serde_json::json!([48, 16]), "{out}");
    assert_eq!(j["tile_sizes_from"], "given", "{out}");
    // Every script the search wrote reads and checks (a square product's recipe names its
    // one extent once), and the BLIS recipe is legal on it.
    let cands = j["candidates"].as_array().unwrap();
    assert!(cands.iter().all(|c| c["verdict"] != "error"), "{out}");
    assert!(
        (cands.iter()).any(|c| c["kind"] == "recipe" && c["verdict"] == "legal"),
        "{out}"
    );
    let tiled: Vec<String> = scripts(&out)
        .into_iter()
        .filter(|s| s.contains("tile("))
        .collect();
    assert!(!tiled.is_empty(), "{out}");
    for s in &tiled {
        assert!(s.contains("param TILE1 = 48\n"), "{s}");
        assert!(s.contains("[TILE1, TILE1"), "{s}");
        assert!(!s.contains("48]"), "{s}");
    }
    // The script as written, with its size set otherwise, is still legal.
    let f = d.join("tiled.loopy");
    std::fs::write(&f, &tiled[0]).unwrap();
    let (code, out, err) = loopy(&[
        "check",
        "examples/matmul/matmul.c",
        f.to_str().unwrap(),
        "--set",
        "TILE1=8",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // Without `--tile-sizes`: the values around the model's size, the model's size first
    // in the scripts; where they come from is said.
    let (code, out, err) = loopy(&[
        "search",
        "examples/matmul/matmul.c",
        "--no-bench",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let sizes: Vec<i64> = j["tile_sizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let from = j["tile_sizes_from"].as_str().unwrap();
    let start: i64 = from
        .strip_prefix("around ")
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{from}"));
    assert_eq!(sizes[0], start, "{out}");
    let mut sorted = sizes.clone();
    sorted.sort();
    // `tune`'s candidates around a value v: v·k/4 rounded (at least 1) for k = 2, 3, 4, 5,
    // 6, 8, in increasing order, as `tune::around` documents them.
    let mut around: Vec<i64> = [2i64, 3, 4, 5, 6, 8]
        .iter()
        .map(|&k| ((start * k + 2) / 4).max(1))
        .collect();
    around.dedup();
    assert_eq!(sorted, around, "{out}");
    // Every tiled variant checked has the model's size; the answer has the size of those
    // tried that the cost model finds cheapest.
    let first = j["first_by_cost"].as_u64().unwrap() as usize;
    for (k, c) in j["candidates"].as_array().unwrap().iter().enumerate() {
        let s = c["script"].as_str().unwrap();
        if s.contains("tile(") && k != first {
            assert!(s.contains(&format!("param TILE1 = {start}\n")), "{s}");
        }
    }
    let answer = j["candidates"][first]["script"].as_str().unwrap();
    assert!(
        !answer.contains("tile(")
            || sizes
                .iter()
                .any(|z| answer.contains(&format!("param TILE1 = {z}\n"))),
        "{answer}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Each candidate's interleaving (classes of handles) and script, from the JSON output.
fn interleavings_and_scripts(json: &str) -> Vec<(Vec<Vec<String>>, String)> {
    let mut out = vec![];
    let mut lines = json.lines();
    while let Some(l) = lines.next() {
        if l.trim() != "\"interleaving\": [" {
            continue;
        }
        let mut classes = vec![];
        for c in lines.by_ref() {
            let c = c.trim();
            if c == "]," {
                break;
            }
            classes.push(
                c.split('"')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_string)
                    .collect::<Vec<_>>(),
            );
        }
        let script = lines
            .find_map(|s| s.trim().strip_prefix("\"script\": \"").map(str::to_string))
            .expect("a script");
        let script = script
            .trim_end_matches(',')
            .trim_end_matches('"')
            .replace("\\n", "\n");
        out.push((classes, script));
    }
    out
}

/// Independent statements, two of them sharing a loop in the kernel: every one of the 13
/// legal outer interleavings, those that run a statement before an earlier one included,
/// gets a script (`move_before`, `realign`) that `loopy check` accepts, and the code it
/// generates has one outermost loop per class, the statements in the interleaving's order.
#[test]
fn every_interleaving_of_independent_statements_gets_a_script() {
    let d = scratch("search", "reorder");
    let c = kernel(
        &d,
        "independent",
        "  for (i = 0; i < n; i++) {\n    A[i] = 1.0;\n    B[i] = 2.0;\n  }\n  \
         for (i = 0; i < n; i++)\n    C[i] = 3.0;\n",
    );
    let (code, json, err) = loopy(&["search", &c, "--no-bench", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(int_field(&json, "interleavings"), 13, "{json}");
    assert!(json.contains("\"without_script\": [],"), "{json}");
    let cands = interleavings_and_scripts(&json);
    assert_eq!(cands.len(), 13, "{json}");
    let mut reordered = 0;
    for (n, (classes, script)) in cands.iter().enumerate() {
        let f = d.join(format!("cand-{n}.loopy"));
        std::fs::write(&f, format!("{script}\n")).unwrap();
        let (code, out, err) = loopy(&["check", &c, f.to_str().unwrap()]);
        assert_eq!(code, 0, "candidate {n} {classes:?}:\n{script}\n{out}{err}");
        let (code, out, err) = loopy(&["apply", &c, f.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        // The kernel's arrays are parameters, so the transformed code is a function of its
        // own (called when they do not overlap; docs/codegen.md) before the kernel.
        let start = out.find("static void loopy_fast_k(").unwrap();
        let region = &out[start..out.find("#pragma scop").unwrap()];
        let array = |h: &str| match h {
            "S0" => "A[",
            "S1" => "B[",
            _ => "C[",
        };
        let order: Vec<&String> = classes.iter().flatten().collect();
        let at: Vec<usize> = order
            .iter()
            .map(|h| region.find(array(h)).unwrap())
            .collect();
        assert!(
            at.windows(2).all(|w| w[0] < w[1]),
            "candidate {n} {classes:?}:\n{script}\n{region}"
        );
        let loops = region.lines().filter(|l| l.starts_with("  for (")).count();
        assert_eq!(loops, classes.len(), "candidate {n} {classes:?}:\n{region}");
        if order.windows(2).any(|w| w[0] > w[1]) {
            reordered += 1;
            assert!(script.contains("move_before("), "{script}");
        }
    }
    // 13 ordered partitions; the 4 that keep the textual order need no `move_before`.
    assert_eq!(reordered, 9);
    let _ = std::fs::remove_dir_all(&d);
}

/// `--no-parallel`: the greedy phase never adds a `parallel` mark, even for two threads
/// (`--threads 2` alone tries one on every band; the default, one thread, none).
#[test]
fn no_parallel_leaves_marks_out() {
    let (code, out, err) = loopy(&[
        "search",
        "examples/matmul/matmul.c",
        "-D",
        "N=40",
        "--threads",
        "2",
        "--no-parallel",
        "--screen",
        "1",
        "--runs",
        "1",
        "--tile-sizes",
        "8",
        "--time-limit",
        "30",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let all = scripts(&out);
    assert!(all.len() > 2, "{out}");
    assert!(all.iter().all(|s| !s.contains("parallel(")), "{out}");
    // The cost model's estimate is on every schedule the search built and on the kernel as
    // it is, and on nothing else (not on recipes); it is its counted parts weighed by the
    // weights the search names. Its rank correlation is over those timed at the sizes
    // asked for, and is Spearman's of the estimates with the times relative to the
    // original (computed again here).
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cands = j["candidates"].as_array().unwrap();
    let w = &j["model_weights"];
    assert_eq!(w["iteration"], 1.0, "{out}");
    let from = j["model_weights_from"].as_str().unwrap();
    assert!(
        from == "measured on this machine" || from.starts_with("fixed (the micro-benchmark"),
        "{from}"
    );
    for c in cands {
        let estimated = c["kind"] == "bands" || c["kind"] == "fused" || c["kind"] == "identity";
        assert_eq!(c["estimate"].is_number(), estimated, "{c}");
        assert_eq!(c["estimate_parts"].is_object(), estimated, "{c}");
        if let Some(e) = c["estimate"].as_f64() {
            let p = &c["estimate_parts"];
            let weighed: f64 = [
                ("iteration", "iterations"),
                ("start", "starts"),
                ("from_l2", "from_l2"),
                ("from_l3", "from_l3"),
                ("from_memory", "from_memory"),
                ("sync", "syncs"),
            ]
            .iter()
            .map(|(k, q)| w[k].as_f64().unwrap() * p[q].as_f64().unwrap())
            .sum();
            assert!((weighed - e).abs() <= 1e-9 * e.abs().max(1.0), "{c}");
        }
    }
    let pairs: Vec<(f64, f64)> = cands
        .iter()
        .filter_map(|c| Some((c["estimate"].as_f64()?, 1.0 / c["speedup"].as_f64()?)))
        .collect();
    assert_eq!(
        j["model_ranked"].as_u64().unwrap() as usize,
        pairs.len(),
        "{out}"
    );
    if let Some(rho) = j["model_rank_correlation"].as_f64() {
        let rank = |v: Vec<f64>| -> Vec<f64> {
            v.iter()
                .map(|x| {
                    let below = v.iter().filter(|y| *y < x).count() as f64;
                    let same = v.iter().filter(|y| *y == x).count() as f64;
                    below + (same + 1.0) / 2.0
                })
                .collect()
        };
        let rx = rank(pairs.iter().map(|p| p.0).collect());
        let ry = rank(pairs.iter().map(|p| p.1).collect());
        let m = (pairs.len() as f64 + 1.0) / 2.0;
        let dot =
            |a: &[f64], b: &[f64]| -> f64 { a.iter().zip(b).map(|(x, y)| (x - m) * (y - m)).sum() };
        let want = dot(&rx, &ry) / (dot(&rx, &rx) * dot(&ry, &ry)).sqrt();
        assert!((rho - want).abs() < 1e-9, "{rho} against {want}");
    } else {
        assert!(pairs.len() < 3 || j["model_ranked"] == 0, "{out}");
    }
}

/// The threads decide the marks: for one thread (the default) no candidate has a
/// `parallel` mark; for two the greedy phase tries one (the checker accepts the outermost
/// loop of a matrix product).
#[test]
fn threads_decide_the_parallel_marks() {
    let search = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "search",
            "examples/matmul/matmul.c",
            "-D",
            "N=40",
            "--screen",
            "1",
            "--runs",
            "1",
            "--tile-sizes",
            "8",
            "--time-limit",
            "30",
            "--format",
            "json",
        ];
        args.extend(extra);
        let (code, out, err) = loopy(&args);
        assert_eq!(code, 0, "{err}");
        scripts(&out)
    };
    let one = search(&[]);
    assert!(one.len() > 2, "{one:?}");
    assert!(one.iter().all(|s| !s.contains("parallel(")), "{one:?}");
    let two = search(&["--threads", "2"]);
    assert!(two.iter().any(|s| s.contains("parallel(")), "{two:?}");
}

/// `--explain` lists every candidate once, in the cost model's order (estimates never
/// decreasing, the ones it does not estimate last), each with what became of it.
#[test]
fn explain_lists_the_candidates_in_the_models_order() {
    let (code, out, err) = loopy(&["search", "examples/atax/atax.c", "--no-bench", "--explain"]);
    assert_eq!(code, 0, "{err}");
    let at = out
        .find("the candidates in the cost model's order")
        .expect("the explanation");
    let lines: Vec<&str> = out[at..].lines().skip(1).collect();
    let total = out
        .lines()
        .filter(|l| l.starts_with("candidate ") && l.contains(": "))
        .count();
    assert_eq!(lines.len(), total, "{out}");
    let mut last = f64::NEG_INFINITY;
    let mut seen = std::collections::HashSet::new();
    for l in &lines {
        let n: usize = l
            .split_whitespace()
            .nth(1)
            .unwrap()
            .trim_end_matches(':')
            .parse()
            .unwrap();
        assert!(seen.insert(n), "{l}");
        let e = match l.split("estimate ").nth(1) {
            Some(rest) => rest.split(':').next().unwrap().parse::<f64>().unwrap(),
            None => {
                assert!(l.contains("not estimated"), "{l}");
                f64::INFINITY
            }
        };
        assert!(e >= last, "{l}");
        last = e;
        assert!(
            l.contains("not timed: --no-bench")
                || l.contains("illegal")
                || l.contains("error")
                || l.contains("skipped"),
            "{l}"
        );
    }
}

const LINKED: &str = "tests/data/search/linked.c";
const HELPER: &str = "tests/data/search/linked-helper.c";

/// A kernel whose program needs a second source to link: without it every build fails and
/// the search says why (the missing symbol, in the text and in each candidate's `reason`),
/// exiting 1; with the source after `--` (and a macro for the check build only) candidates
/// are timed.
#[test]
fn extra_sources_link_and_failures_say_why() {
    let args = [
        "search",
        LINKED,
        "-D",
        "N=24",
        "--screen",
        "1",
        "--runs",
        "1",
        "--tile-sizes",
        "8",
        "--time-limit",
        "20",
    ];
    let (code, out, err) = loopy(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(code, 1, "{out}{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(j["best"].is_null(), "{out}");
    let why = j["nothing_timed"].as_str().expect(&out);
    assert!(
        why.starts_with("every candidate tried failed to build: "),
        "{why}"
    );
    assert!(why.contains("fill") || why.contains("dump"), "{why}");
    let cands = j["candidates"].as_array().unwrap();
    let identity = j["identity"].as_u64().unwrap() as usize;
    assert_eq!(cands[identity]["script"], "", "{out}");
    for c in cands {
        assert!(
            c["speedup"].is_null() && c["screen_speedup"].is_null(),
            "{out}"
        );
        let reason = c["reason"].as_str().expect(&out);
        assert!(!reason.is_empty(), "{out}");
    }
    // The identity, at least, was built and failed to link.
    let failed: Vec<&str> = cands
        .iter()
        .filter(|c| c["verdict"] == "error")
        .map(|c| c["reason"].as_str().unwrap())
        .collect();
    assert!(!failed.is_empty(), "{out}");
    assert!(
        failed.iter().all(|r| r.starts_with("the C compiler failed")
            && (r.contains("fill") || r.contains("dump"))),
        "{failed:?}"
    );
    let (code, out, _) = loopy(&args);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("nothing was timed: every candidate tried failed to build: "),
        "{out}"
    );
    assert!(out.contains(": error: the C compiler failed"), "{out}");
    // With the helper: timed, the outputs compared on the whole array in the check build.
    let with = [
        &args[..],
        &[
            "--check-define",
            "DUMP_ALL",
            "--format",
            "json",
            "--",
            HELPER,
        ],
    ]
    .concat();
    let (code, out, err) = loopy(&with);
    assert_eq!(code, 0, "{out}{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let best = j["best"].as_u64().expect(&out) as usize;
    assert!(j["candidates"][best]["speedup"].is_number(), "{out}");
    assert!(j["nothing_timed"].is_null(), "{out}");
    assert!(j["candidates"][best]["reason"].is_null(), "{out}");
}

/// `--time-limit` bounds the whole search, building the space and the schedules included:
/// on a 3-d stencil with imperfectly nested statements whose space alone takes minutes to
/// build in a debug build, a 5 s limit answers in about 5 s with the kernel as it is, and
/// says that the limit cut the search short.
#[test]
fn the_time_limit_bounds_the_building() {
    let kernel = "tests/data/search/heat-3d-imperfect.c";
    let d = scratch("search", "time-limit");
    let best = d.join("best.loopy");
    let began = std::time::Instant::now();
    let (code, out, err) = loopy(&[
        "search",
        kernel,
        "--no-bench",
        "--time-limit",
        "5",
        "-o",
        best.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let took = began.elapsed().as_secs_f64();
    assert_eq!(code, 0, "{err}");
    // The limit, 5% for the checks between steps, and 3 s for what comes before the
    // search starts and after it ends (the kernel and its dependences, printing) on a
    // loaded machine.
    assert!(took < 5.0 * 1.05 + 3.0, "{took:.2} s\n{out}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cut = j["out_of_time"].as_str().expect(&out);
    assert!(cut.contains("time limit (5 s) ran out"), "{cut}");
    let identity = j["identity"].as_u64().unwrap() as usize;
    assert_eq!(j["candidates"][identity]["verdict"], "legal", "{out}");
    // What was found is answered: the kernel as it is at least, written to `-o`.
    assert!(j["first_by_cost"].is_number(), "{out}");
    let written = std::fs::read_to_string(&best).unwrap();
    assert!(written.starts_with("# "), "{written}");
    let (code, out, err) = loopy(&["check", kernel, best.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `--no-bench -o` writes the candidate the search ranks first without timing: on the
/// product, the BLIS recipe; without recipes, the cost model's cheapest legal schedule,
/// tiled with the first tile size; `loopy check` accepts each.
#[test]
fn no_bench_writes_the_first_by_cost() {
    let d = scratch("search", "no-bench-output");
    let best = d.join("best.loopy");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "search",
            "examples/matmul/matmul.c",
            "--no-bench",
            "--tile-sizes",
            "16,8",
            "-o",
            best.to_str().unwrap(),
            "--format",
            "json",
        ];
        args.extend(extra);
        loopy(&args)
    };
    let (code, out, err) = run(&[]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let first = j["first_by_cost"].as_u64().expect(&out) as usize;
    let c = &j["candidates"][first];
    assert_eq!(
        (&c["kind"], &c["verdict"]),
        (&"recipe".into(), &"legal".into())
    );
    let script = c["script"].as_str().unwrap();
    assert!(script.contains("gemm_block("), "{script}");
    let written = std::fs::read_to_string(&best).unwrap();
    assert!(written.ends_with(&format!("{script}\n")), "{written}");
    let (code, out, err) = loopy(&["check", "examples/matmul/matmul.c", best.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(&["--no-recipes"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let first = j["first_by_cost"].as_u64().expect(&out) as usize;
    let c = &j["candidates"][first];
    assert_eq!(c["verdict"], "legal", "{out}");
    let script = c["script"].as_str().unwrap();
    assert!(
        script.contains("tile(") && script.contains("param TILE1 = 16"),
        "{script}"
    );
    // The cost model puts the contiguous loop innermost: `(i, k, j)`, not the kernel's own.
    assert!(!script.is_empty(), "{out}");
    let written = std::fs::read_to_string(&best).unwrap();
    assert!(written.ends_with(&format!("{script}\n")), "{written}");
    assert_eq!(j["written"], best.to_str().unwrap(), "{out}");
    let (code, out, err) = loopy(&["check", "examples/matmul/matmul.c", best.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// The beam search (`--beam`): its compositions are listed cheapest first. Where the
/// cheapest split the innermost loop that carries a dependence between the two statements
/// (`tests/data/search/not_split.c`), they are checked and refused, and `--no-bench` answers
/// with a legal candidate that `loopy check` accepts. On the product the beam's first legal
/// composition is the answer: `j` innermost, tiled. `--beam 0` runs no beam.
#[test]
fn the_beam_answers_with_a_legal_composition() {
    let d = scratch("search", "beam");
    let best = d.join("best.loopy");
    let run = |kernel: &str, extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["search", kernel, "--no-bench", "--format", "json", "-o"];
        args.push(best.to_str().unwrap());
        args.extend(extra);
        let (code, out, err) = loopy(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let j = run("tests/data/search/not_split.c", &[]);
    let kept = j["beam"]["kept"].as_array().expect("a beam");
    assert!(!kept.is_empty());
    let estimates: Vec<f64> = kept
        .iter()
        .map(|e| e["estimate"].as_f64().unwrap())
        .collect();
    assert!(estimates.windows(2).all(|w| w[0] <= w[1]), "{estimates:?}");
    let first = kept[0]["candidate"].as_u64().expect("checked") as usize;
    assert!(
        kept[0]["variant"].as_str().unwrap().contains("split"),
        "{}",
        kept[0]
    );
    assert_eq!(
        j["candidates"][first]["verdict"], "illegal",
        "{}",
        j["candidates"][first]
    );
    let answer = j["first_by_cost"].as_u64().unwrap() as usize;
    assert_ne!(answer, first);
    assert_eq!(j["candidates"][answer]["verdict"], "legal");
    let (code, out, err) = loopy(&[
        "check",
        "tests/data/search/not_split.c",
        best.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");

    let j = run("examples/matmul/matmul.c", &["--no-recipes"]);
    let kept = j["beam"]["kept"].as_array().expect("a beam");
    let legal = kept
        .iter()
        .filter_map(|e| e["candidate"].as_u64())
        .find(|&c| j["candidates"][c as usize]["verdict"] == "legal")
        .expect("a legal composition");
    assert_eq!(j["first_by_cost"].as_u64(), Some(legal), "{}", j["beam"]);
    let script = j["candidates"][legal as usize]["script"].as_str().unwrap();
    assert!(script.contains("tile("), "{script}");
    assert_eq!(j["beam"]["width"], 8);
    assert!(j["beam"]["estimated"].as_u64().unwrap() > kept.len() as u64);

    let j = run("examples/matmul/matmul.c", &["--beam", "0"]);
    assert!(j["beam"].is_null(), "{}", j["beam"]);
    let _ = std::fs::remove_dir_all(&d);
}

/// With timing, the first candidate timed decides whether screening pays; where the beam's
/// cheapest compositions are refused by the checker (`not_split.c`'s splits), it is the
/// first legal one. The kernel runs in well under `--screen-above` at the size given, so
/// screening is dropped (a refused first candidate, never timed, would have left it on
/// without a timing) and the answer was timed at that size.
#[test]
fn screening_is_settled_by_the_first_legal_candidate() {
    let d = scratch("search", "beam-screen");
    let text = std::fs::read_to_string("tests/data/search/not_split.c")
        .unwrap()
        .replace("#define N 20", "#ifndef N\n#define N 20\n#endif");
    let kernel = d.join("not_split.c");
    std::fs::write(&kernel, text).unwrap();
    let (code, out, err) = loopy(&[
        "search",
        kernel.to_str().unwrap(),
        "-D",
        "N=24",
        "--runs",
        "1",
        "--time-limit",
        "60",
        "--finish",
        "0",
        "--playoff",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let first = j["beam"]["kept"][0]["candidate"].as_u64().expect("checked") as usize;
    assert_eq!(j["candidates"][first]["verdict"], "illegal");
    assert!(j["screen_defines"].is_null(), "{}", j["screen_defines"]);
    let best = j["best"].as_u64().expect("a best") as usize;
    assert!(
        j["candidates"][best]["speedup"].is_number(),
        "{}",
        j["candidates"][best]
    );
    let _ = std::fs::remove_dir_all(&d);
}
