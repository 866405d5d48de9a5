//! The frontend's model of small C fragments: domains, schedules, accesses, tags and the
//! conservative approximations. The fragments need no preprocessing, so they are parsed as
//! they are (no `cc` run).

use loopy::frontend::{extract_preprocessed, Options};
use loopy::model::{AccessKind, Scop, TagKind};

fn model_with(src: &str, opts: &Options) -> Scop {
    match extract_preprocessed("t.c", src, src.to_string(), opts) {
        Ok(s) => s,
        Err(e) => panic!("{}", e.render(false)),
    }
}

fn model(src: &str) -> Scop {
    model_with(src, &Options::default())
}

/// A region in a function with the usual parameters.
fn kernel(body: &str) -> Scop {
    model(&format!(
        "void f(int n, int m, double A[100][100], double B[100], int p[100], double x) {{\n\
         int i, j, k;\n#pragma scop\n{body}\n#pragma endscop\n}}\n"
    ))
}

fn domains(s: &Scop) -> Vec<String> {
    s.statements
        .iter()
        .map(|st| st.domain.to_string())
        .collect()
}

fn schedules(s: &Scop) -> Vec<String> {
    s.statements
        .iter()
        .map(|st| st.schedule.to_map().to_string())
        .collect()
}

fn accesses(s: &Scop, k: usize) -> Vec<String> {
    s.statements[k]
        .accesses
        .iter()
        .map(|a| {
            let kind = match a.kind {
                AccessKind::Read => "R",
                AccessKind::Write => "W",
            };
            format!("{kind} {}{}", a.relation, if a.exact { "" } else { " ~" })
        })
        .collect()
}

#[test]
fn positions_follow_the_loop_tree() {
    // Figure 4a of the paper.
    let s = kernel(
        "for (i = 0; i < n; i++) { for (j = 0; j < n; j++) { A[i][j] = 0; B[j] = 1; } }\n\
         for (i = 0; i < n; i++) {\n\
           for (j = 0; j < n; j++) { A[i][j] = 2; B[j] = 3; }\n\
           for (j = 0; j < n; j++) { A[i][j] = 4; B[j] = 5; } }",
    );
    let pos: Vec<String> = s
        .statements
        .iter()
        .map(|st| format!("{:?}", st.schedule.positions))
        .collect();
    assert_eq!(
        pos,
        [
            "[0, 0, 0]",
            "[0, 0, 1]",
            "[1, 0, 0]",
            "[1, 0, 1]",
            "[1, 1, 0]",
            "[1, 1, 1]"
        ]
    );
}

#[test]
fn statements_outside_loops_are_padded() {
    let s = kernel("x = 0;\nfor (i = 0; i < n; i++) for (j = i; j < n; j++) A[i][j] = x;");
    assert_eq!(
        schedules(&s),
        [
            "[n] -> { S0[] -> [0, 0, 0, 0, 0] }",
            "[n] -> { S1[i, j] -> [1, i, 0, j, 0] }"
        ]
    );
    assert_eq!(
        domains(&s),
        [
            "[n] -> { S0[] }",
            "[n] -> { S1[i, j] : i >= 0 and i <= j < n }"
        ]
    );
    assert_eq!(s.params, ["n"]);
}

#[test]
fn downward_and_strided_loops() {
    let s = kernel(
        "for (i = n - 1; i >= 0; i--) B[i] = 0;\n\
         for (j = n; j > 0; j -= 1) B[j] = 0;\n\
         for (i = 1; i <= n; i += 3) B[i] = 0;",
    );
    assert_eq!(
        schedules(&s),
        [
            "[n] -> { S0[i] -> [0, -i, 0] }",
            "[n] -> { S1[j] -> [1, -j, 0] }",
            "[n] -> { S2[i] -> [2, i, 0] }"
        ]
    );
    assert_eq!(domains(&s)[0], "[n] -> { S0[i] : 0 <= i < n }");
    assert_eq!(domains(&s)[1], "[n] -> { S1[j] : 1 <= j <= n }");
    // i = 1, 4, 7, ...
    let pts = s.statements[2]
        .domain
        .fix_param("n", &10.into())
        .unwrap()
        .points(100)
        .unwrap();
    let v: Vec<String> = pts.iter().map(|p| p[0].to_string()).collect();
    assert_eq!(v, ["1", "4", "7", "10"]);
    assert_eq!(s.statements[2].loops[0].step.to_string(), "3");
}

#[test]
fn min_and_max_bounds() {
    let s = kernel("for (i = (n > 2 ? n : 2); i < (m < n ? m : n); i++) B[i] = 0;");
    let d = &s.statements[0].domain;
    for (n, m) in [(5, 7), (1, 4), (6, 4), (9, 12), (-3, 3)] {
        let pts = d
            .fix_param("n", &n.into())
            .unwrap()
            .fix_param("m", &m.into())
            .unwrap()
            .points(100)
            .unwrap();
        let got: Vec<i64> = pts.iter().map(|p| p[0].to_i64().unwrap()).collect();
        let want: Vec<i64> = (n.max(2)..m.min(n)).collect();
        assert_eq!(got, want, "n={n} m={m}");
    }
}

#[test]
fn conditions_and_their_complements() {
    let s = kernel(
        "for (i = 0; i < 10; i++) {\n\
           if (i % 3 == 0 || i > 7) B[i] = 0; else B[i] = 1;\n\
           if (!(i < 5) && i != 6) B[i] = 2;\n\
         }",
    );
    let pts = |k: usize| -> Vec<i64> {
        s.statements[k]
            .domain
            .points(100)
            .unwrap()
            .iter()
            .map(|p| p[0].to_i64().unwrap())
            .collect()
    };
    assert_eq!(pts(0), [0, 3, 6, 8, 9]);
    assert_eq!(pts(1), [1, 2, 4, 5, 7]);
    assert_eq!(pts(2), [5, 7, 8, 9]);
    // Then and else branches are consecutive children of the loop.
    assert_eq!(
        schedules(&s),
        [
            "{ S0[i] -> [0, i, 0] }",
            "{ S1[i] -> [0, i, 1] }",
            "{ S2[i] -> [0, i, 2] }"
        ]
    );
}

#[test]
fn piecewise_subscripts() {
    let s = kernel("for (i = 0; i < n; i++) for (j = 0; j < n; j++) B[i < j ? i : j] = 0;");
    assert_eq!(
        accesses(&s, 0),
        ["W [n] -> { S0[i, j] -> B[i] : j >= i + 1; S0[i, j] -> B[j] : j <= i }"]
    );
}

#[test]
fn compound_assignments_read_and_write() {
    let s = kernel("for (i = 0; i < n; i++) { A[i][i] += B[i - 1] * x; B[i]++; }");
    assert_eq!(
        accesses(&s, 0),
        [
            "R [n] -> { S0[i] -> B[i - 1] }",
            "R [n] -> { S0[i] -> x[] }",
            "R [n] -> { S0[i] -> A[i, i] }",
            "W [n] -> { S0[i] -> A[i, i] }"
        ]
    );
    assert_eq!(
        accesses(&s, 1),
        ["R [n] -> { S1[i] -> B[i] }", "W [n] -> { S1[i] -> B[i] }"]
    );
}

#[test]
fn non_affine_subscripts_touch_the_whole_dimension() {
    let s = kernel("for (k = 0; k < n; k++) for (j = 0; j < n; j++) A[p[k]][j] = A[k * j][j / 2];");
    let a = accesses(&s, 0);
    assert_eq!(
        a,
        [
            "R [n] -> { S0[k, j] -> A[o0, o1] } ~",
            "R [n] -> { S0[k, j] -> p[k] }",
            "W [n] -> { S0[k, j] -> A[o0, j] } ~"
        ]
    );
    let notes: Vec<&str> = s.statements[0]
        .accesses
        .iter()
        .filter_map(|a| a.note.as_deref())
        .collect();
    assert_eq!(
        notes,
        [
            "subscript `k * j` multiplies two variables",
            "subscript `p[k]` reads an array"
        ]
    );
}

#[test]
fn opaque_constructs_keep_all_their_accesses() {
    let s = kernel(
        "for (i = 0; i < n; i++) {\n\
           while (B[i] > 1) B[i] = B[i] / 2;\n\
           if (B[i] > x) { for (j = 0; j < i; j++) A[i][j] = 0; }\n\
           for (k = 0; k < p[i]; k++) A[i][k] = 1;\n\
         }",
    );
    let why: Vec<&str> = s
        .statements
        .iter()
        .map(|st| st.opaque.as_deref().unwrap_or("-"))
        .collect();
    assert_eq!(
        why,
        [
            "a `while` loop: its iterations are not modelled",
            "the condition is not affine: `B[i]` reads an array",
            "the condition is not affine: `p[i]` reads an array"
        ]
    );
    assert_eq!(domains(&s)[1], "[n] -> { S1[i] : 0 <= i < n }");
    assert_eq!(
        accesses(&s, 1),
        [
            "R [n] -> { S1[i] -> B[i] } ~",
            "R [n] -> { S1[i] -> x[] } ~",
            "W [n] -> { S1[i] -> A[i, o1] } ~"
        ]
    );
    assert_eq!(
        accesses(&s, 2),
        [
            "R [n] -> { S2[i] -> p[i] } ~",
            "W [n] -> { S2[i] -> A[i, o1] } ~"
        ]
    );
}

#[test]
fn loops_that_are_not_counted_are_opaque() {
    let s = kernel(
        "for (i = 0; i != n; i++) B[i] = 0;\n\
         for (i = 0; i < n; i = i * 2) B[i] = 0;\n\
         for (i = 0; i < n; i--) B[i] = 0;\n\
         for (i = 0; i < x; i++) B[i] = 0;",
    );
    let why: Vec<&str> = s
        .statements
        .iter()
        .map(|st| st.opaque.as_deref().unwrap_or("-"))
        .collect();
    assert_eq!(
        why,
        [
            "the condition is not a bound on `i` (it can become true again after the loop stops)",
            "the step is not `i++`, `i--`, `i += k` or `i -= k` with a constant k",
            "the condition is not a bound on `i` (it can become true again after the loop stops)",
            "the condition is not affine: `x` is not an integer"
        ]
    );
}

#[test]
fn declarations_inside_the_region_are_private() {
    let s = kernel(
        "for (i = 0; i < n; i++) {\n\
           double t = B[i] * 2, u;\n\
           u = sqrt(t);\n\
           for (int i = 0; i < 3; i++) { double t = u; B[i] = t; }\n\
         }\n\
         for (int q = 0; q < n; q++) B[q] = 0;",
    );
    let arrays: Vec<String> = s
        .arrays
        .iter()
        .map(|a| format!("{}/{}:{}:{:?}", a.name, a.c_name, a.rank, a.private_depth))
        .collect();
    assert_eq!(
        arrays,
        [
            "B/B:1:None",
            "t/t:0:Some(1)",
            "u/u:0:Some(1)",
            "t_1/t:0:Some(2)"
        ]
    );
    assert_eq!(s.statements[0].text, "double t = B[i] * 2, u;");
    // The inner `i` shadows the outer one: a fresh name in the model.
    assert_eq!(s.statements[2].iterators, ["i", "i_1"]);
    assert_eq!(s.statements[2].loops[1].c_name, "i");
    assert_eq!(
        s.statements[3].domain.to_string(),
        "[n] -> { S3[i, i_1] : 0 <= i < n and 0 <= i_1 <= 2 }"
    );
    assert_eq!(
        accesses(&s, 3),
        [
            "R [n] -> { S3[i, i_1] -> t_1[] }",
            "W [n] -> { S3[i, i_1] -> B[i_1] }"
        ]
    );
}

#[test]
fn tags_name_statements_blocks_loops_and_ifs() {
    let s = kernel(
        "L1: for (i = 0; i < n; i++) {\n\
           for (j = 0; j < n; j++) {\n\
         L2:  A[i][j] = 0;\n\
              B[j] = 1;\n\
           }\n\
           x = 1;\n\
         L3: B[i] = 2;\n\
         L4: { B[i] = 3; B[i] = 4; }\n\
         L5: if (i > 2) B[i] = 5;\n\
         }",
    );
    let tags: Vec<String> = s
        .tags
        .iter()
        .map(|t| {
            format!(
                "{} {:?} depth {} {:?}",
                t.name, t.kind, t.depth, t.statements
            )
        })
        .collect();
    assert_eq!(
        tags,
        [
            "L1 Loop depth 0 [0, 1, 2, 3, 4, 5, 6]",
            "L2 Block depth 2 [0, 1]",
            "L3 Statement depth 1 [3]",
            "L4 Block depth 1 [4, 5]",
            "L5 If depth 1 [6]"
        ]
    );
    assert_eq!(s.statements[0].label.as_deref(), Some("L2"));
    assert_eq!(s.statements[1].label, None);
    assert_eq!(s.tag("L2").unwrap().kind, TagKind::Block);
}

/// The paper's dummy loops: `for (k = 0; k < 1; k++) Init: …`.
#[test]
fn dummy_loops() {
    let s = kernel(
        "for (i = 0; i < n; i++) { for (k = 0; k < 1; ++k) Init: B[i] = 0;\n\
         for (k = 0; k < n; ++k) Acc: B[i] += A[i][k]; }",
    );
    assert_eq!(
        s.statements[0].schedule_on_domain().to_string(),
        "[n] -> { S0[i, 0] -> [0, i, 0, 0, 0] : 0 <= i < n }"
    );
    assert_eq!(s.tag("Init").unwrap().statements, [0]);
    assert_eq!(s.tag("Acc").unwrap().statements, [1]);
}

#[test]
fn unsigned_parameters_are_known_non_negative() {
    let s = model(
        "typedef unsigned long size_t;\n\
         void f(size_t n, unsigned m, int k, double *A) {\n\
         #pragma scop\n\
         for (size_t i = 0; i < n; i++) A[i + m + k] = 0;\n\
         #pragma endscop\n}",
    );
    assert_eq!(s.params, ["n", "m", "k"]);
    assert_eq!(
        s.context.to_string(),
        "[n, m, k] -> { : n >= 0 and m >= 0 }"
    );
}

#[test]
fn regions_by_index_and_function() {
    let src = "void f(int n, double *A) {\n#pragma scop\nfor (int i = 0; i < n; i++) A[i] = 0;\n#pragma endscop\n}\n\
               void g(int m, double *A) {\n#pragma scop\nfor (int i = 0; i < m; i++) A[i] = 1;\n#pragma endscop\n}\n\
               void h(int q, double *A) { for (int i = 0; i < q; i++) A[i] = 2; }\n";
    let pick = |function: Option<&str>, scop: Option<usize>| {
        let s = model_with(
            src,
            &Options {
                function: function.map(str::to_string),
                scop,
                ..Options::default()
            },
        );
        (s.function.clone(), s.params.join(","))
    };
    assert_eq!(pick(None, Some(0)), ("f".into(), "n".into()));
    assert_eq!(pick(None, Some(1)), ("g".into(), "m".into()));
    assert_eq!(pick(Some("g"), None), ("g".into(), "m".into()));
    assert_eq!(pick(Some("h"), None), ("h".into(), "q".into()));
}

#[test]
fn struct_members_and_pure_calls() {
    let s = model(
        "struct P { double a, b; };\n\
         void f(int n, double *A, struct P s) {\n\
         #pragma scop\n\
         for (int i = 0; i < n; i++) { s.a = fabs(A[i]) + sqrt(s.b); }\n\
         #pragma endscop\n}",
    );
    assert_eq!(
        accesses(&s, 0),
        [
            "R [n] -> { S0[i] -> A[i] }",
            "R [n] -> { S0[i] -> s[] } ~",
            "W [n] -> { S0[i] -> s[] } ~"
        ]
    );
}

#[test]
fn statement_text_is_the_original() {
    let src = "#define SCALE(v) (2.0 * (v))\nvoid f(int n, double *A) {\n\
               #pragma scop\nfor (int i = 0; i < n; i++)\n  A[i]  =  SCALE(A[i]) /* c */ ;\n\
               #pragma endscop\n}\n";
    // As cc -E would give it (macro expanded, markers kept).
    let pre = "# 1 \"t.c\"\n\nvoid f(int n, double *A) {\n#pragma scop\nfor (int i = 0; i < n; i++)\n  A[i] = (2.0 * (A[i])) ;\n#pragma endscop\n}\n";
    let s = extract_preprocessed("t.c", src, pre.to_string(), &Options::default()).unwrap();
    let st = &s.statements[0];
    assert_eq!(st.text, "A[i] = SCALE(A[i]) ;");
    assert_eq!(st.expanded_text, "A[i] = (2.0 * (A[i])) ;");
    assert_eq!(st.span.line, 5);
    assert_eq!(
        &src[st.span.range.clone()],
        "A[i]  =  SCALE(A[i]) /* c */ ;"
    );
}

/// A counter declared by its loop shadows an integer the region uses as a parameter: the
/// iterator gets a fresh name, so no set has a parameter and a dimension of one name.
#[test]
fn shadowed_parameters() {
    let s = model(
        "void f(int i, double *A) {\n#pragma scop\n\
         for (int i = 0; i < 10; i++) A[i] = 0;\n\
         A[i] = 1;\n\
         #pragma endscop\n}",
    );
    assert_eq!(s.params, ["i"]);
    assert_eq!(s.statements[0].iterators, ["i_1"]);
    assert_eq!(
        s.statements[0].domain.to_string(),
        "[i] -> { S0[i_1] : 0 <= i_1 <= 9 }"
    );
    assert_eq!(accesses(&s, 0), ["W [i] -> { S0[i_1] -> A[i_1] }"]);
    assert_eq!(accesses(&s, 1), ["W [i] -> { S1[] -> A[i] }"]);
    assert_eq!(
        s.statements[0].schedule.to_map().to_string(),
        "[i] -> { S0[i_1] -> [0, i_1, 0] }"
    );
}

/// A macro expanding to two statements: both keep their own (expanded) text.
#[test]
fn macro_with_several_statements() {
    let src = "#define BODY A[i] = 0; B[i] = 1;\nvoid f(int n, double *A, double *B) {\n\
               #pragma scop\nfor (int i = 0; i < n; i++) { BODY }\n#pragma endscop\n}\n";
    let pre = "# 1 \"t.c\"\n\nvoid f(int n, double *A, double *B) {\n#pragma scop\nfor (int i = 0; i < n; i++) { A[i] = 0; B[i] = 1; }\n#pragma endscop\n}\n";
    let s = extract_preprocessed("t.c", src, pre.to_string(), &Options::default()).unwrap();
    let texts: Vec<&str> = s.statements.iter().map(|st| st.text.as_str()).collect();
    assert_eq!(texts, ["A[i] = 0;", "B[i] = 1;"]);
    assert_eq!(&src[s.statements[0].span.range.clone()], "BODY");
}

/// The associative updates the frontend records (`s += e` and friends), and look-alikes that
/// are not updates.
#[test]
fn updates_are_recorded() {
    use loopy::model::state::RedOp;
    let s = kernel(
        "for (i = 0; i < n; i++) {\n\
         x += B[i];\n\
         x -= B[i];\n\
         x = x + B[i];\n\
         x = B[i] * x;\n\
         A[i][0] *= 2.0;\n\
         x = fmax(x, B[i]);\n\
         x = fminf(B[i], x);\n\
         B[i] = B[i] + B[i + 1];\n\
         x = B[i] - x;\n\
         x = x / B[i];\n\
         B[i] = x + 1;\n\
         A[i][0] = A[0][i] + 1;\n\
         x = x + x;\n\
         }",
    );
    let got: Vec<Option<(RedOp, String)>> = s
        .statements
        .iter()
        .map(|st| st.update.as_ref().map(|u| (u.op, u.array.clone())))
        .collect();
    let u = |op, a: &str| Some((op, a.to_string()));
    assert_eq!(
        got,
        vec![
            u(RedOp::Add, "x"),
            u(RedOp::Add, "x"),
            u(RedOp::Add, "x"),
            u(RedOp::Mul, "x"),
            u(RedOp::Mul, "A"),
            u(RedOp::Max, "x"),
            u(RedOp::Min, "x"),
            // An update may read other elements of its array (the verifier judges a
            // reduction element by element); it reads its own element once.
            u(RedOp::Add, "B"),
            None,
            None,
            None,
            None,
            None,
        ]
    );
}

/// A region whose last statement is a loop nest ending in an `if` without `else` or braces:
/// the parser's span of such an `if` runs on over the `#pragma endscop` line (looking for an
/// `else`); the region still holds the whole nest, and its text ends at the statement's `;`.
#[test]
fn a_region_ending_in_an_if_without_else() {
    let src = "void f(int n, double A[100][100]) {\n  int i, j;\n#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)\n      if (i > j)\n        A[i][j] = 0;\n#pragma endscop\n}\n";
    let s = model(src);
    assert_eq!(s.statements.len(), 1);
    assert_eq!(domains(&s), ["[n] -> { S0[i, j] : i < n and 0 <= j < i }"]);
    let end = s.region.range.end;
    assert_eq!(&src[end - 12..end], "A[i][j] = 0;", "{:?}", s.region);
    assert_eq!(s.region.end_line, 7);
}

/// `loopy_floord(n, d)` as the preprocessor writes it out in generated code.
fn floord(n: &str, d: i64) -> String {
    format!("((({n}) < 0) ? -((-({n}) + ({d}) - 1) / ({d})) : ({n}) / ({d}))")
}

/// `loopy_ceild(n, d)`, written out.
fn ceild(n: &str, d: i64) -> String {
    format!("((({n}) < 0) ? -((-({n})) / ({d})) : (({n}) + ({d}) - 1) / ({d}))")
}

fn max_of(x: &str, y: &str) -> String {
    format!("(({x}) > ({y}) ? ({x}) : ({y}))")
}

fn min_of(x: &str, y: &str) -> String {
    format!("(({x}) < ({y}) ? ({x}) : ({y}))")
}

/// The bounds generated code writes (`loopy_floord`, `loopy_ceild`, `loopy_min`,
/// `loopy_max`, written out) are modelled exactly, numerators of either sign, in loop
/// bounds, first values and conditions with an `else`; and a tile's bounds give one
/// polyhedron without divisions (a minimum is both bounds, a rounded division one
/// quotient, not a piece per sign and per operand).
#[test]
fn generated_bounds_are_exact() {
    let (fl, cl) = (
        |a: i64, d: i64| a.div_euclid(d),
        |a: i64, d: i64| -(-a).div_euclid(d),
    );
    let lower = max_of(&ceild("i - 3", 4), &floord("m", 2));
    let upper = min_of(&min_of(&floord("n + i", 4), "m"), &floord("2 * i + 7", 3));
    let cond = format!("{} >= {}", floord("i + j", 3), max_of("j", "m - 6"));
    let s = kernel(&format!(
        "for (i = -9; i <= 9; i++)\n\
           for (j = {lower}; j <= {upper}; j++)\n\
             if ({cond}) B[0] = 1; else B[1] = 2;"
    ));
    for n in -6..=6 {
        for m in [-7, -2, 0, 3, 8] {
            let mut want: [Vec<(i64, i64)>; 2] = [vec![], vec![]];
            for i in -9..=9 {
                let lo = cl(i - 3, 4).max(fl(m, 2));
                let hi = fl(n + i, 4).min(m).min(fl(2 * i + 7, 3));
                for j in lo..=hi {
                    let then = fl(i + j, 3) >= j.max(m - 6);
                    want[usize::from(!then)].push((i, j));
                }
            }
            for (k, want) in want.iter().enumerate() {
                let d = &s.statements[k].domain;
                let pts = d
                    .fix_param("n", &n.into())
                    .unwrap()
                    .fix_param("m", &m.into())
                    .unwrap()
                    .points(10_000)
                    .unwrap();
                let got: Vec<(i64, i64)> = (pts.iter())
                    .map(|p| (p[0].to_i64().unwrap(), p[1].to_i64().unwrap()))
                    .collect();
                assert_eq!(&got, want, "statement {k}, n={n} m={m}");
            }
        }
    }
    // A tile's loop: `c` up to `floord(n - 1, 4)`, `j` from `max(0, 4c)` to
    // `min(n - 1, 4c + 3)`: one part, no existential.
    let tile = kernel(&format!(
        "for (i = 0; i <= {}; i++)\n\
           for (j = {}; j <= {}; j++) B[j] = 0;",
        floord("n - 1", 4),
        max_of("0", "4 * i"),
        min_of("n - 1", "4 * i + 3")
    ));
    assert_eq!(
        domains(&tile),
        ["[n] -> { S0[i, j] : i >= 0 and 4i <= j < n and j <= 4i + 3 }"]
    );
}
