//! Whole kernels: every statement's final schedule scanned into one loop nest, with the
//! statement bodies re-emitted from their source text.
//!
//! Each piece of a statement (a statement split by `isplit` has several) becomes one scan
//! item: the set `{ [θ, i] : i ∈ domain }`, scanned along θ, with the iterators `i`
//! recovered from θ by the item's equalities. A legal schedule is one-to-one, so they are
//! determined; the statement text then gets each iterator replaced by its expression.

use super::ast::{CPrinter, Helpers, Node};
use super::scan::{disjoint_parts, Item};
use crate::diag::Diagnostic;
use crate::model::state::{Mark, MarkKind};
use crate::model::Scop;
use crate::presburger::{Basic, Map};
use std::collections::BTreeSet;
use std::fmt::Write;

/// A statement (or a piece of one) with its final schedule θ, a map from the statement's
/// instances to 2d+1 time vectors, restricted to the instances the piece covers.
#[derive(Clone, Debug)]
pub struct Placed {
    pub stmt: usize,
    pub schedule: Map,
    /// Marks on its iteration dims (iteration dim `j` is scanned dim `2j+1`).
    pub marks: Vec<Mark>,
}

/// What an instance of a statement does in the generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// The statement's own text, iterators replaced.
    Source,
    /// `printf("S1 3 4\n")`: the statement's name and iterator values, one line per
    /// instance (trace validation; the file must include `<stdio.h>`).
    Trace,
}

/// Prefix of the helper macros, so they cannot clash with the user's names.
const MACRO_PREFIX: &str = "loopy_";

/// The C text replacing the modelled region: helper macros, then the loop nest. Lines end
/// in `\n` and are not indented.
pub fn generate(scop: &Scop, placed: &[Placed], body: Body) -> Result<String, Diagnostic> {
    let n_param = scop.params.len();
    let n_scan = placed.iter().map(|p| p.schedule.n_out()).max().unwrap_or(0);
    let mut items = vec![];
    let mut inner_names = vec![];
    for (id, p) in placed.iter().enumerate() {
        if p.schedule.n_out() != n_scan {
            return Err(Diagnostic::new(
                "internal error: statements' schedules have different lengths",
            ));
        }
        let st = &scop.statements[p.stmt];
        let set = p.schedule.inverse().wrap().simplify();
        for b in disjoint_parts(&set) {
            items.push(Item { id, basic: b });
        }
        // The C name each iterator has in the statement's text.
        inner_names.push(st.loops.iter().map(|l| l.c_name.clone()).collect());
    }
    let mut ctx = Basic::universe(n_param, n_scan);
    if let [c] = scop.context.parts() {
        if c.n_div() == 0 {
            ctx.eqs.extend(c.eqs.iter().cloned());
            ctx.ineqs.extend(c.ineqs.iter().cloned());
            for r in ctx.eqs.iter_mut().chain(ctx.ineqs.iter_mut()) {
                r.resize(1 + n_param + n_scan, crate::presburger::Int::ZERO);
            }
        }
    }
    let nodes = super::scan::scan_in(items, n_param, n_scan, inner_names, &ctx);
    if let Some(why) = undetermined(&nodes) {
        return Err(Diagnostic::new(format!("cannot generate code: {why}")).with_note(
            "the schedule does not determine every iterator by an equality; this happens only for schedules that are not one-to-one",
        ));
    }
    let largest = super::ast::largest_constant(&nodes);
    if largest > i64::from(i32::MAX) {
        return Err(Diagnostic::new(format!(
            "cannot generate code: the loops would need the constant {largest}, which does not fit the type `int` of the loop counters"
        ))
        .with_note(format!(
            "generated loop counters are `int`, whose values and constants must stay within ±{}; a schedule coefficient or offset this large (a skew, shift or scale) has no C loop for it",
            i32::MAX
        ))
        .with_help("use smaller coefficients in the script; the transformation itself may be legal (`loopy check` decides that)"));
    }
    if body == Body::Source {
        for a in scop.arrays.iter().filter(|a| a.private_depth.is_some()) {
            private_in_one_block(scop, placed, &nodes, &a.name)?;
        }
    }

    let nodes = mark_loops(
        scop,
        nodes,
        placed,
        &predeclared_names(scop),
        Inside::Nothing,
    )?;

    // Names: loops that count an iterator take its C name; others `c<k>`, avoiding every
    // identifier the statements use.
    let mut reserved: BTreeSet<String> = scop.params.iter().cloned().collect();
    for s in &scop.statements {
        reserved.extend(identifiers(&s.text));
        reserved.extend(s.loops.iter().map(|l| l.c_name.clone()));
    }
    let fresh: Vec<String> = (0..n_scan)
        .map(|k| {
            let mut n = format!("c{k}");
            while reserved.contains(&n) {
                n.push('_');
            }
            n
        })
        .collect();
    let predeclared: Vec<String> = scop
        .statements
        .iter()
        .flat_map(|s| s.loops.iter())
        .filter(|l| l.outer_counter)
        .map(|l| l.c_name.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let var = |k: usize| fresh[k].clone();
    let stmt = |id: usize, args: &[String]| -> String {
        let st = &scop.statements[placed[id].stmt];
        match body {
            Body::Source => {
                let mut subst: Vec<(String, String)> = vec![];
                for (l, a) in st.loops.iter().zip(args) {
                    let v = if is_atom(a) {
                        a.clone()
                    } else {
                        format!("({a})")
                    };
                    // An inner loop reusing a name hides the outer one, as in C.
                    subst.retain(|(n, _)| *n != l.c_name);
                    subst.push((l.c_name.clone(), v));
                }
                substitute(&st.text, &subst)
            }
            Body::Trace => {
                let fmt: String = args.iter().map(|_| " %d").collect();
                let vals: String = args.iter().map(|a| format!(", {a}")).collect();
                format!("printf(\"{}{fmt}\\n\"{vals});", st.name)
            }
        }
    };
    let mut p = CPrinter {
        params: &scop.params,
        var: &var,
        stmt: &stmt,
        helpers: Helpers {
            prefix: MACRO_PREFIX,
            ..Helpers::default()
        },
        bound: vec![],
        names: vec![],
        predeclared: &predeclared,
    };
    let mut text = String::new();
    p.nodes(&nodes, 0, &mut text);
    let mut out = p.helpers.defines();
    // `static` and `extern` locals of the region: one object for the whole function, so
    // declared once, before the loops that use them.
    for d in &scop.declarations {
        let _ = writeln!(out, "{d}");
    }
    out.push_str(&text);
    // Counters declared outside the region that no generated loop counts with any more:
    // the compiler would call them unused.
    let used = loop_names(&nodes);
    for n in &predeclared {
        if !used.contains(n) {
            let _ = writeln!(out, "(void){n}; /* no longer a loop counter */");
        }
    }
    Ok(out)
}

/// Counters declared outside the region (assigned, not declared, by generated loops).
fn predeclared_names(scop: &Scop) -> BTreeSet<String> {
    scop.statements
        .iter()
        .flat_map(|s| s.loops.iter())
        .filter(|l| l.outer_counter)
        .map(|l| l.c_name.clone())
        .collect()
}

/// What marked loop encloses a node.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inside {
    Nothing,
    Parallel,
    Vectorize,
}

/// Pieces (scan item ids) whose statements a list of nodes runs.
fn ids_in(nodes: &[Node], out: &mut BTreeSet<usize>) {
    for n in nodes {
        match n {
            Node::For { body, .. } | Node::Assign { body, .. } | Node::If { body, .. } => {
                ids_in(body, out)
            }
            Node::Stmt { id, .. } => {
                out.insert(*id);
            }
            Node::Comment(_) | Node::Pragma(_) => {}
        }
    }
}

/// The reduction variables of a loop marked `parallel(op)` that encloses the pieces `ids`:
/// the arrays some enclosed statement updates with `op` (`s += e`) and that every enclosed
/// statement accessing them updates with `op`. The verifier allowed the loop's dependences
/// on exactly these; each thread combines into its own copy.
fn reduction_variables<'a>(
    scop: &'a Scop,
    placed: &[Placed],
    ids: &BTreeSet<usize>,
    op: crate::model::state::RedOp,
) -> Vec<&'a crate::model::Array> {
    let stmts: BTreeSet<usize> = ids.iter().map(|&i| placed[i].stmt).collect();
    scop.arrays
        .iter()
        .filter(|a| {
            let mut updated = false;
            for &s in &stmts {
                let st = &scop.statements[s];
                if !st.accesses.iter().any(|x| x.array == a.name) {
                    continue;
                }
                match &st.update {
                    Some(u) if u.array == a.name && u.op == op => updated = true,
                    _ => return false,
                }
            }
            updated
        })
        .collect()
}

/// Puts a `#pragma` before every generated loop that carries a mark. A loop scanning
/// iteration dim `j` (scanned dim `2j+1`) carries the marks its pieces have at `j`: every
/// loop at that dim, also when scanning splits it into several (full and partial tiles,
/// head and tail), and for every piece it encloses, marked or not (the verifier checks all
/// of them). Two different marks on one loop, and a marked loop inside a parallel or a
/// vectorized loop (other than a vectorized loop inside a parallel one), are refused.
fn mark_loops(
    scop: &Scop,
    nodes: Vec<Node>,
    placed: &[Placed],
    predeclared: &BTreeSet<String>,
    inside: Inside,
) -> Result<Vec<Node>, Diagnostic> {
    let mut out = vec![];
    for n in nodes {
        match n {
            Node::For {
                var,
                name,
                lower,
                step,
                upper,
                body,
            } => {
                let mut ids = BTreeSet::new();
                ids_in(&body, &mut ids);
                let mut marks: Vec<&Mark> = vec![];
                if var % 2 == 1 {
                    for &id in &ids {
                        if let Some(m) = placed[id].marks.iter().find(|m| 2 * m.dim + 1 == var) {
                            if !marks.iter().any(|x| x.kind == m.kind) {
                                marks.push(m);
                            }
                        }
                    }
                }
                let here = match &marks[..] {
                    [] => None,
                    [m] => Some(*m),
                    [a, b, ..] => {
                        return Err(Diagnostic::new(format!(
                            "cannot generate code: one loop is marked both `{}` and `{}`",
                            a.kind.describe(),
                            b.kind.describe()
                        ))
                        .with_label(&a.origin.source, a.origin.span.clone(), "marked here")
                        .with_label(&b.origin.source, b.origin.span.clone(), "and here")
                        .with_note("the statements of one generated loop share its marks; mark the loop once"));
                    }
                };
                let mut inner = inside;
                if let Some(m) = here {
                    let refuse = |what: &str| {
                        Err(Diagnostic::new(format!(
                            "cannot generate code: a loop marked `{}` inside a {what} loop",
                            m.kind.describe()
                        ))
                        .with_label(&m.origin.source, m.origin.span.clone(), "marked here")
                        .with_note("nested parallel loops are not generated; mark one of them"))
                    };
                    match (inside, &m.kind) {
                        (Inside::Vectorize, _) => return refuse("vectorized"),
                        (Inside::Parallel, MarkKind::Parallel { .. }) => return refuse("parallel"),
                        (_, MarkKind::Parallel { reduction }) => {
                            inner = Inside::Parallel;
                            let mut text = "omp parallel for".to_string();
                            let private: BTreeSet<String> = loop_names(&body)
                                .into_iter()
                                .filter(|n| predeclared.contains(n))
                                .collect();
                            if !private.is_empty() {
                                let v: Vec<String> = private.into_iter().collect();
                                text.push_str(&format!(" private({})", v.join(", ")));
                            }
                            if let Some(op) = reduction {
                                let vars = reduction_variables(scop, placed, &ids, *op);
                                let mut names = vec![];
                                for a in vars {
                                    if a.rank > 0 {
                                        return Err(Diagnostic::new(format!(
                                            "cannot generate code: the `{}` reduction of the array `{}` is not generated (only scalar reductions are)",
                                            op.symbol(),
                                            a.c_name
                                        ))
                                        .with_label(
                                            &m.origin.source,
                                            m.origin.span.clone(),
                                            "marked here",
                                        )
                                        .with_help(format!(
                                            "if the loop carries no dependence on `{}`, mark it `parallel` without an operator",
                                            a.c_name
                                        )));
                                    }
                                    names.push(a.c_name.clone());
                                }
                                if !names.is_empty() {
                                    text.push_str(&format!(
                                        " reduction({}: {})",
                                        op.symbol(),
                                        names.join(", ")
                                    ));
                                }
                            }
                            out.push(Node::Pragma(text));
                        }
                        (_, MarkKind::Vectorize) => {
                            inner = Inside::Vectorize;
                            out.push(Node::Pragma("omp simd".to_string()));
                        }
                    }
                }
                let body = mark_loops(scop, body, placed, predeclared, inner)?;
                out.push(Node::For {
                    var,
                    name,
                    lower,
                    step,
                    upper,
                    body,
                });
            }
            Node::Assign { var, value, body } => out.push(Node::Assign {
                var,
                value,
                body: mark_loops(scop, body, placed, predeclared, inside)?,
            }),
            Node::If { conds, body } => out.push(Node::If {
                conds,
                body: mark_loops(scop, body, placed, predeclared, inside)?,
            }),
            n => out.push(n),
        }
    }
    Ok(out)
}

/// The path of child indices from the root to every statement leaf, by piece.
fn leaf_paths(nodes: &[Node], path: &mut Vec<usize>, out: &mut Vec<(usize, Vec<usize>)>) {
    for (k, n) in nodes.iter().enumerate() {
        path.push(k);
        match n {
            Node::For { body, .. } | Node::Assign { body, .. } | Node::If { body, .. } => {
                leaf_paths(body, path, out)
            }
            Node::Stmt { id, .. } => out.push((*id, path.clone())),
            Node::Comment(_) | Node::Pragma(_) => {}
        }
        path.pop();
    }
}

/// The node at a path.
fn node_at<'a>(nodes: &'a [Node], path: &[usize]) -> &'a Node {
    let n = &nodes[path[0]];
    match (n, &path[1..]) {
        (_, []) => n,
        (Node::For { body, .. } | Node::Assign { body, .. } | Node::If { body, .. }, rest) => {
            node_at(body, rest)
        }
        _ => unreachable!("a path goes through bodies"),
    }
}

/// A variable declared inside the region (at loop depth `d`) is a fresh one for every value
/// of its statements' first `d` iterators, and its declaration is one of the statements.
/// The generated code keeps that meaning when the declaration and every use land in one C
/// block (the innermost loop or `if` body holding them all), the declaration directly in
/// it, and one execution of that block holds exactly the instances of one copy: equal
/// enclosing loop values ⇔ equal first `d` iterators, for every pair of instances.
fn private_in_one_block(
    scop: &Scop,
    placed: &[Placed],
    nodes: &[Node],
    array: &str,
) -> Result<(), Diagnostic> {
    let a = scop.array(array).expect("an array of the scop");
    let d = a.private_depth.expect("private");
    let users: Vec<usize> = (0..placed.len())
        .filter(|&i| {
            let st = &scop.statements[placed[i].stmt];
            st.accesses.iter().any(|x| x.array == array) || st.declares.iter().any(|x| x == array)
        })
        .collect();
    if users.is_empty() {
        return Ok(());
    }
    let decls: Vec<usize> = users
        .iter()
        .copied()
        .filter(|&i| {
            scop.statements[placed[i].stmt]
                .declares
                .iter()
                .any(|x| x == array)
        })
        .collect();
    let fail = |msg: String, at: usize, label: &str| {
        let st = &scop.statements[placed[at].stmt];
        Diagnostic::new(format!("cannot generate code: {msg}")).with_label(
            &st.span.file,
            st.span.range.clone(),
            label.to_string(),
        )
    };
    if decls.is_empty() {
        return Err(fail(
            format!(
                "`{}` is declared inside the modelled region without an initializer",
                a.c_name
            ),
            users[0],
            "uses it",
        )
        .with_help(format!(
            "give the declaration an initializer (`{} = 0`) so that it is a statement code generation can place, or declare `{}` before `#pragma scop`",
            a.c_name, a.c_name
        )));
    }
    let mut paths = vec![];
    leaf_paths(nodes, &mut vec![], &mut paths);
    paths.retain(|(id, _)| users.contains(id));
    let apart = |at: usize| {
        fail(
            format!(
                "`{}` is declared inside the loops around it, a new variable in every iteration, and after the transformation the statements using one such variable no longer run together in one block of the generated code",
                a.c_name
            ),
            at,
            "declared here",
        )
        .with_note("code generation keeps the declaration as written; it does not expand a variable into an array")
        .with_help(format!(
            "declare `{}` before `#pragma scop` (one variable for all iterations; the verifier then checks its reuse), or keep its statements in the same iteration",
            a.c_name
        ))
    };
    // The block of each declaration: the innermost loop or `if` body around it, reached
    // through assignments only (anything else would be a nested block hiding it), and the
    // scanned dimensions fixed there.
    let mut blocks: Vec<(Vec<usize>, usize, bool)> = vec![]; // (path, fixed dims, is a loop)
    for (_, path) in paths.iter().filter(|(id, _)| decls.contains(id)) {
        let mut len = path.len() - 1;
        while len > 0 && matches!(node_at(nodes, &path[..len]), Node::Assign { .. }) {
            len -= 1;
        }
        let (fixed, is_loop) = match (len > 0).then(|| node_at(nodes, &path[..len])) {
            Some(Node::For { var, .. }) => (var + 1, true),
            Some(Node::If { .. }) => {
                // Dimensions fixed by the loops around the `if`.
                let outer = (1..len)
                    .rev()
                    .find_map(|l| match node_at(nodes, &path[..l]) {
                        Node::For { var, .. } => Some(var + 1),
                        _ => None,
                    });
                (outer.unwrap_or(0), false)
            }
            _ => (0, len == 0),
        };
        let block = (path[..len].to_vec(), fixed, is_loop);
        if !blocks.contains(&block) {
            blocks.push(block);
        }
    }
    if blocks.is_empty() {
        // No declaration runs: fine only if no use runs either.
        return if paths.is_empty() {
            Ok(())
        } else {
            Err(apart(decls[0]))
        };
    }
    // Distinct loop blocks fixing the same dimensions never run for the same values of them
    // (sibling loops scan disjoint ranges); an `if` block must be the only one.
    let prefix = blocks[0].1;
    if blocks.iter().any(|b| b.1 != prefix) || (blocks.len() > 1 && blocks.iter().any(|b| !b.2)) {
        return Err(apart(decls[0]));
    }
    // Every use inside the block of a declaration.
    if paths
        .iter()
        .any(|(_, p)| !blocks.iter().any(|(b, _, _)| p.starts_with(b)))
    {
        return Err(apart(decls[0]));
    }
    // One block execution ⇔ one copy of the variable, for every pair of instances.
    for &p in &users {
        for &q in &users {
            let (sp, sq) = (&placed[p].schedule, &placed[q].schedule);
            let (ni, nj) = (sp.n_in(), sq.n_in());
            let n = sp.n_out();
            let pair = sp.wrap().product(&sq.wrap());
            let np = pair.space().n_param();
            let width = 1 + np + ni + n + nj + n;
            let same = |x: usize, y: usize| {
                let mut r = vec![crate::presburger::Int::ZERO; width];
                r[1 + np + x] = crate::presburger::Int::ONE;
                r[1 + np + y] = crate::presburger::Int::from(-1);
                r
            };
            let by_block: Vec<_> = (0..prefix).map(|k| same(ni + k, ni + n + nj + k)).collect();
            let by_copy: Vec<_> = (0..d).map(|k| same(k, ni + n + k)).collect();
            let in_block = pair.add_constraints(&by_block, &[]);
            let in_copy = pair.add_constraints(&by_copy, &[]);
            if !in_block.is_equal(&in_copy) {
                return Err(apart(decls[0]));
            }
        }
    }
    Ok(())
}

/// Whether C text needs no parentheses as an operand: a name, a number, or one
/// parenthesised whole.
fn is_atom(a: &str) -> bool {
    if a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return true;
    }
    if !(a.starts_with('(') && a.ends_with(')')) {
        return false;
    }
    // The first parenthesis closes at the very end.
    let mut depth = 0;
    for (k, c) in a.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return k == a.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// The first iterator the scan could not express, if any.
fn undetermined(nodes: &[Node]) -> Option<String> {
    use super::ast::Expr;
    for n in nodes {
        let found = match n {
            Node::For { body, .. } | Node::Assign { body, .. } | Node::If { body, .. } => {
                undetermined(body)
            }
            Node::Stmt { args, .. } => args.iter().find_map(|a| match a {
                Expr::Comment(c) => Some(c.clone()),
                _ => None,
            }),
            Node::Comment(c) => Some(c.clone()),
            Node::Pragma(_) => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn loop_names(nodes: &[Node]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for n in nodes {
        match n {
            Node::For { name, body, .. } => {
                out.extend(name.clone());
                out.extend(loop_names(body));
            }
            Node::Assign { body, .. } | Node::If { body, .. } => out.extend(loop_names(body)),
            _ => {}
        }
    }
    out
}

/// C tokens of `text` that are identifiers (not inside literals, not member names).
pub fn identifiers(text: &str) -> Vec<String> {
    let mut out = vec![];
    walk(text, |tok, is_ident| {
        if is_ident {
            out.push(tok.to_string());
        }
    });
    out
}

/// `text` with identifiers replaced (whole tokens only; literals and member names after
/// `.` or `->` are left alone).
pub fn substitute(text: &str, subst: &[(String, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    walk(text, |tok, is_ident| {
        match is_ident
            .then(|| subst.iter().find(|(n, _)| n == tok))
            .flatten()
        {
            Some((_, v)) => out.push_str(v),
            None => out.push_str(tok),
        }
    });
    out
}

/// Splits C text into tokens (identifiers, numbers, literals, single other characters) and
/// calls `f(token, is_replaceable_identifier)` for each, in order; the tokens concatenate
/// back to `text`.
fn walk(text: &str, mut f: impl FnMut(&str, bool)) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
            f(&text[start..i], false);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let tok = &text[start..i];
            let before = text[..start].trim_end();
            f(tok, !(before.ends_with('.') || before.ends_with("->")));
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || b[i] == b'_'
                    || ((b[i] == b'+' || b[i] == b'-')
                        && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P')))
            {
                i += 1;
            }
            f(&text[start..i], false);
        } else {
            // One character (UTF-8 sequences whole).
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            i += len;
            f(&text[start..i], false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitute_whole_identifiers_only() {
        let s = vec![
            ("i".to_string(), "(c1 + 2)".to_string()),
            ("j".to_string(), "j2".to_string()),
        ];
        assert_eq!(
            substitute("A[i][j] = s.i + p->j + ij + \"i j\" + 'i' + 1e-5 + i;", &s),
            "A[(c1 + 2)][j2] = s.i + p->j + ij + \"i j\" + 'i' + 1e-5 + (c1 + 2);"
        );
        assert_eq!(identifiers("x = y.z + f(w) * 2u;"), ["x", "y", "f", "w"]);
    }
}
