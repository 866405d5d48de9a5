//! The model of every example kernel (`loopy show`), as snapshots, plus the facts the
//! scripts beside the kernels rely on: statements, tags and the schedules of §3.2.

use loopy::frontend::{extract_file, Options};
use loopy::model::Scop;
use std::path::Path;

const EXAMPLES: &[&str] = &[
    "2mm",
    "3mm",
    "adi",
    "atax",
    "bicg",
    "cholesky",
    "cholesky-pb",
    "correlation",
    "covariance",
    "deriche",
    "div",
    "doitgen",
    "durbin",
    "fdtd-2d",
    "floyd-warshall",
    "gemm",
    "gemver",
    "gesummv",
    "gramschmidt",
    "heat-3d",
    "jacobi-1d",
    "jacobi-2d",
    "lu",
    "lu-kji",
    "lu-pivot",
    "ludcmp",
    "matmul",
    "mgs",
    "mvt",
    "nussinov",
    "qr",
    "seidel-2d",
    "symm",
    "syr2k",
    "syrk",
    "trisolv",
    "trmm",
];

fn model(name: &str) -> Scop {
    let path = format!("examples/{name}/{name}.c");
    match extract_file(Path::new(&path), &Options::default()) {
        Ok(s) => s,
        Err(e) => panic!("{path}:\n{}", e.render(false)),
    }
}

/// Every example folder is covered (a new example needs a snapshot).
#[test]
fn all_examples_listed() {
    let mut dirs: Vec<String> = std::fs::read_dir("examples")
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            let n = e.file_name().to_string_lossy().into_owned();
            e.path().join(format!("{n}.c")).exists().then_some(n)
        })
        .collect();
    dirs.sort();
    assert_eq!(dirs, EXAMPLES);
}

#[test]
fn snapshots() {
    for name in EXAMPLES {
        let s = model(name);
        insta::assert_snapshot!(name.to_string(), s.to_text());
    }
}

fn schedule(s: &Scop, tag: &str) -> String {
    let t = s.tag(tag).unwrap_or_else(|| panic!("no tag {tag}"));
    assert_eq!(t.statements.len(), 1, "{tag}");
    s.statements[t.statements[0]]
        .schedule_on_domain()
        .simplify()
        .to_string()
}

/// §3.2: Init has schedule (0,i,0,j,0,0,0) and Mult (0,i,0,j,1,k,0); their position
/// vectors are [0,0,0,0] and [0,0,1,0].
#[test]
fn matmul_is_the_papers_example() {
    let s = model("matmul");
    assert_eq!(s.params, ["n"]);
    assert_eq!(s.statements.len(), 2);
    assert_eq!(
        schedule(&s, "Init"),
        "[n] -> { S0[i, j, 0] -> [0, i, 0, j, 0, 0, 0] : 0 <= i < n and 0 <= j < n }"
    );
    assert_eq!(
        schedule(&s, "Mult"),
        "[n] -> { S1[i, j, k] -> [0, i, 0, j, 1, k, 0] : 0 <= i < n and 0 <= j < n and 0 <= k < n }"
    );
    let pos: Vec<String> = ["Init", "Mult"]
        .iter()
        .map(|t| format!("{:?}", s.positions(s.tag(t).unwrap())))
        .collect();
    assert_eq!(pos, ["[[0, 0, 0, 0]]", "[[0, 0, 1, 0]]"]);
    assert_eq!(
        s.statements[1].schedule.to_map().to_string(),
        "[n] -> { S1[i, j, k] -> [0, i, 0, j, 1, k, 0] }"
    );
    assert_eq!(
        s.statements[1].text,
        "C[i][j] = C[i][j] + A[i][k] * B[k][j];"
    );
    assert_eq!(s.statements[1].span.line, 56);
}

/// The statements of the examples whose control depends on data (an `if` on a computed
/// value): modelled as one opaque statement each.
const DATA_DEPENDENT: &[(&str, &str)] = &[("qr", "House"), ("lu-pivot", "Search")];

/// The statements of the examples with a subscript read from memory (`A[p[k]][j]`): exact
/// statements whose access through that subscript is approximate (the whole dimension).
const INDIRECT: &[(&str, &str)] = &[("lu-pivot", "Pick"), ("lu-pivot", "Put")];

/// The tags of examples/README.md: which statements each covers.
#[test]
fn tags_cover_what_the_scripts_expect() {
    let expect: &[(&str, &[(&str, usize)])] = &[
        ("matmul", &[("Init", 1), ("Mult", 1)]),
        ("div", &[("Div", 1)]),
        ("gemm", &[("Scale", 1), ("Mult", 1)]),
        ("gemver", &[("Second", 1)]),
        ("trmm", &[("Mult", 1), ("Alpha", 1)]),
        ("2mm", &[("Init", 1), ("Mult", 1), ("Scale", 1), ("Sum", 1)]),
        ("doitgen", &[("Init", 1), ("Mult", 1), ("Ret", 1)]),
        (
            "3mm",
            &[
                ("InitE", 1),
                ("CompE", 1),
                ("InitF", 1),
                ("CompF", 1),
                ("InitG", 1),
                ("CompG", 1),
            ],
        ),
        ("mvt", &[("First", 1), ("Second", 1)]),
        (
            "gramschmidt",
            &[("InitR", 1), ("UpdateR", 1), ("UpdateA", 1)],
        ),
        ("lu", &[("Left", 1), ("Norm", 1), ("Right", 1)]),
        ("adi", &[("PQinit", 3), ("PQ", 2), ("Vinit", 1), ("V", 1)]),
        ("fdtd-2d", &[("EY", 1), ("EX", 1), ("HZ", 1)]),
        ("heat-3d", &[("LoopB", 1), ("LoopA", 1)]),
        ("jacobi-2d", &[("LoopB", 1), ("LoopA", 1)]),
        ("seidel-2d", &[("Loop", 1)]),
        ("covariance", &[("Init", 1), ("Mult", 1), ("Final", 2)]),
        ("atax", &[("InitY", 1), ("Ax", 1), ("ATy", 1)]),
        ("bicg", &[("InitS", 1), ("Both", 2), ("Q", 1)]),
        ("gesummv", &[("Row", 5), ("Acc", 2), ("Final", 1)]),
        ("trisolv", &[("Row", 3), ("Sub", 1), ("Div", 1)]),
        ("syrk", &[("Scale", 1), ("Mult", 1)]),
        ("syr2k", &[("Scale", 1), ("Mult", 1)]),
        ("symm", &[("Row", 4), ("Upd", 2), ("Final", 1)]),
        ("jacobi-1d", &[("LoopB", 1), ("LoopA", 1)]),
        (
            "correlation",
            &[
                ("MeanInit", 1),
                ("MeanSum", 1),
                ("MeanDiv", 1),
                ("StdInit", 1),
                ("StdSum", 1),
                ("StdFinal", 3),
                ("Init", 1),
                ("Mult", 1),
                ("Mirror", 1),
            ],
        ),
        (
            "cholesky-pb",
            &[("Lower", 1), ("Div", 1), ("Diag", 1), ("Root", 1)],
        ),
        (
            "durbin",
            &[
                ("Sum", 1),
                ("Alpha", 1),
                ("Update", 1),
                ("Copy", 1),
                ("Last", 1),
            ],
        ),
        (
            "qr",
            &[
                ("Column", 8),
                ("Sig0", 1),
                ("Sig", 1),
                ("House", 1),
                ("Scale", 1),
                ("Update", 4),
                ("Dot0", 1),
                ("Dot", 1),
                ("Top", 1),
                ("Upd", 1),
            ],
        ),
        (
            "ludcmp",
            &[
                ("Factor", 6),
                ("Lower", 1),
                ("Upper", 1),
                ("Fwd", 3),
                ("Back", 3),
            ],
        ),
        (
            "deriche",
            &[
                ("RowFwd", 7),
                ("RowBwd", 9),
                ("RowSum", 1),
                ("ColFwd", 7),
                ("ColBwd", 9),
                ("ColSum", 1),
            ],
        ),
        // The minimum and maximum are values of the statements: still exact.
        (
            "lu-pivot",
            &[
                ("Step", 8),
                ("Piv", 1),
                ("Max", 1),
                ("Search", 1),
                ("Swap", 3),
                ("Save", 1),
                ("Pick", 1),
                ("Put", 1),
                ("Scale", 1),
                ("Update", 1),
            ],
        ),
        ("floyd-warshall", &[("Relax", 1)]),
        ("nussinov", &[("Cell", 5), ("Split", 1)]),
    ];
    for (name, tags) in expect {
        let s = model(name);
        let got: Vec<(String, usize)> = s
            .tags
            .iter()
            .map(|t| (t.name.clone(), t.statements.len()))
            .collect();
        let want: Vec<(String, usize)> = tags.iter().map(|(t, n)| (t.to_string(), *n)).collect();
        assert_eq!(got, want, "{name}");
        // Every statement is exact (the examples are affine), except the data-dependent
        // statements listed, which are opaque and keep their accesses to the elements
        // they name exactly.
        for st in &s.statements {
            let opaque = DATA_DEPENDENT.contains(&(name, st.label.as_deref().unwrap_or("")));
            assert_eq!(st.opaque.is_some(), opaque, "{name} {}", st.name);
            let indirect = INDIRECT.contains(&(name, st.label.as_deref().unwrap_or("")));
            assert_eq!(
                opaque || indirect,
                st.accesses.iter().any(|a| !a.exact),
                "{name} {}",
                st.name
            );
        }
    }
}

/// All schedules have one length (§3.2) and are one-to-one on the instances.
#[test]
fn schedules_are_padded_and_injective() {
    for name in EXAMPLES {
        let s = model(name);
        let len = s.schedule_len();
        for st in &s.statements {
            let m = st.schedule_on_domain();
            assert_eq!(m.n_out(), len, "{name} {}", st.name);
            assert!(m.is_injective(), "{name} {}", st.name);
        }
    }
}

/// adi's back substitution counts down: its schedule dimension is -j.
#[test]
fn decreasing_loop_in_adi() {
    let s = model("adi");
    assert_eq!(
        schedule(&s, "V"),
        "[tsteps, n] -> { S6[t, i, j] -> [0, t, 0, i, 3, -j, 0] : 1 <= t <= tsteps and 1 <= i < n - 1 and 1 <= j < n - 1 }"
    );
    assert_eq!(s.statements[6].loops[2].step.to_string(), "-1");
}

/// Pivoting LU's data-dependent code as the frontend models it: the pivot search (an `if`
/// on computed values) is one opaque statement whose writes of `mu` and `p[k]` may not
/// happen, and the swap's `A[p[k]][j]` leaves the row free (approximate) while the column
/// and the exact accesses of the same statements stay exact.
#[test]
fn pivoting_lu_search_is_opaque_and_swap_approximate() {
    let s = model("lu-pivot");
    let stmt = |label: &str| {
        s.statements
            .iter()
            .find(|st| st.label.as_deref() == Some(label))
            .unwrap_or_else(|| panic!("no statement {label}"))
    };
    let search = stmt("Search");
    assert!(search.opaque.is_some());
    let writes: Vec<(&str, bool)> = search
        .accesses
        .iter()
        .filter(|a| a.kind == loopy::model::AccessKind::Write)
        .map(|a| (a.array.as_str(), a.exact))
        .collect();
    assert!(
        writes.contains(&("mu", false)) && writes.contains(&("p", false)),
        "{writes:?}"
    );
    for label in ["Pick", "Put"] {
        let st = stmt(label);
        assert!(st.opaque.is_none(), "{label}");
        let on_a: Vec<String> = st
            .accesses
            .iter()
            .filter(|a| a.array == "A")
            .map(|a| format!("{} {}", a.relation, a.exact))
            .collect();
        // The row through p[k] is free (`o0`), the column is `j`; the other access of `A`
        // in Pick (`A[k][j]`) is exact.
        let inexact: Vec<&String> = on_a.iter().filter(|t| t.ends_with("false")).collect();
        assert_eq!(inexact.len(), 1, "{label}: {on_a:?}");
        assert!(inexact[0].contains("A[o0, j]"), "{label}: {on_a:?}");
        let note = st
            .accesses
            .iter()
            .find(|a| !a.exact)
            .and_then(|a| a.note.clone())
            .unwrap_or_default();
        assert!(note.contains("p[k]"), "{label}: {note}");
        // The pivot index itself is read exactly.
        assert!(
            st.accesses.iter().any(|a| a.array == "p" && a.exact),
            "{label}"
        );
    }
}
