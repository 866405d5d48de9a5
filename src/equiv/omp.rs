//! OpenMP work-sharing loops, read as the sequential loops they are when they are free of
//! races. The frontend reads `#pragma omp for` loops as ordinary loops; that is what they
//! compute exactly when no two of their iterations touch one element with a write among
//! them (then every interleaving of the iterations gives the sequential result), which is
//! checked here on the program's own accesses and times, not taken from the pragma.
//!
//! A SIMD loop (`#pragma omp simd`, which generated code puts on the loops a script
//! vectorizes) may run its iterations in any interleaving of lanes: the same check makes
//! it the sequential loop.
//!
//! Accepted: `#pragma omp parallel` on a block whose statements all lie in work-sharing
//! loops or in `#pragma omp single` blocks (one thread, then a barrier), with loops
//! around them that every thread runs alike; a variable declared in the parallel block
//! is each thread's own, read as private in every work-sharing loop that uses it.
//! `#pragma omp for`, `#pragma omp parallel for` and `#pragma omp simd` (and `for
//! simd`), with the clauses `private` and `firstprivate` (below), `schedule`, `num_threads`,
//! `default(shared)`, on SIMD loops `safelen` and `simdlen` (they only bound how many
//! iterations run together), and `reduction(+: x)` (or `-`, `*`, `min`, `max`) of a scalar. Anything else
//! (`nowait`, `collapse`, `aligned`, `critical`, a statement that every thread runs) is
//! refused with its span.
//!
//! A reduction's variable is each thread's own and their partial results are combined in
//! an unspecified order: the loop is the sequential loop *up to the reassociation* of that
//! variable's updates, which is what the answer then says. Every statement of the loop
//! that touches the variable must update it as `x = x op e` (`x op= e`) with `e` not reading
//! it, `op` the clause's (`-` for `+`; `fmax(x, e)` for `max`, `fmin` for `min`), else the
//! loop is refused; its updates are then no race.
//!
//! A variable that is `private` (or `firstprivate`) in a loop is each thread's own: its
//! copy starts undefined (or at the value before the loop), and the variable is left as
//! it was before the loop. The loop computes what the sequential loop computes when every
//! read of the variable in the loop sees a write made earlier in the same iteration (so
//! no value crosses iterations or comes from before the loop), and nothing reads the
//! variable after the loop and it is not live after the region (declared in it): generated
//! code's offsets of register blocks, set in each iteration before their reads. Its
//! accesses are then no race. A private variable the loop uses otherwise is refused.

use super::dataflow::order_at;
use super::program::{Node, Program, Refusal, Stmt};
use crate::model::{Scop, SourceSpan};

/// A work-sharing or SIMD loop: its directive and where its `for` header starts.
#[derive(Clone, Debug)]
pub struct Loop {
    pub pragma: SourceSpan,
    header: usize,
    /// Shared among the threads of a parallel region (`omp for`), not only run in lanes.
    work_sharing: bool,
    /// The variables of its `reduction` clauses (C names), each with its operator.
    pub reduced: Vec<(String, String)>,
    /// Its statements under `#pragma omp atomic` (indices in the scop), each with the
    /// directive's span.
    pub atomic: Vec<(usize, SourceSpan)>,
    /// The lanes of a vector statement (no directive: `pragma` is the statement).
    vector: bool,
    /// The variables of its `private` and `firstprivate` clauses (C names) that its
    /// statements use: each iteration's own where `race_free` finds them so.
    private: Vec<String>,
}

/// One directive of the region.
struct Directive {
    span: SourceSpan,
    /// Byte offset after its line.
    end: usize,
    parallel: bool,
    work_sharing: bool,
    simd: bool,
    private: Vec<String>,
    /// `reduction(op: x, …)`: each variable with its operator.
    reduced: Vec<(String, String)>,
    /// `#pragma omp atomic` (`update`): on the statement after it.
    atomic: bool,
    /// `#pragma omp single`: the block after it runs in one thread, the others waiting at
    /// its end.
    single: bool,
}

/// The work-sharing and SIMD loops of `s`'s region, or why its OpenMP directives are refused.
pub fn loops(s: &Scop) -> Result<Vec<Loop>, Refusal> {
    // Unread, a directive would go unchecked: the region is refused instead.
    let text = std::fs::read_to_string(&s.region.file).map_err(|e| {
        Refusal::new(
            format!(
                "`{}` cannot be read for its OpenMP directives: {e}",
                s.region.file
            ),
            None,
        )
    })?;
    let end = s.region.range.end.min(text.len());
    let first = s.region.range.start.min(end);
    // From the `#pragma scop` line (or the function's start) before the first statement:
    // a directive on the first loop comes before it.
    let mut from = text[..first]
        .rfind("#pragma scop")
        .or(s.host.start)
        .unwrap_or(first)
        .min(first);
    // One version of a test between two (`Scop::version`): its directives start inside
    // its own block, not at the test or in the other version.
    if s.version.is_some() {
        from = from.max(text[..first].rfind('{').map_or(from, |b| b + 1));
    }
    let mut out = vec![];
    let mut regions = vec![];
    let mut singles = vec![];
    let mut atomics = vec![];
    let mut at = from;
    while let Some(k) = text[at..end].find("#pragma omp") {
        let start = at + k;
        let d = directive(s, &text, start)?;
        at = d.end;
        if d.atomic {
            atomics.push((next_statement(s, &text, &d)?, d.span.clone()));
        }
        if d.parallel && !d.work_sharing {
            regions.push((d.span.clone(), block(&text, d.end, &d.span)?));
        }
        if d.single {
            singles.push(block(&text, d.end, &d.span)?);
        }
        if d.work_sharing || d.simd {
            let header = next_loop(s, &text, &d)?;
            let private = private_used(s, &d, header);
            out.push(Loop {
                pragma: d.span,
                header,
                work_sharing: d.work_sharing,
                reduced: d.reduced,
                atomic: vec![],
                vector: false,
                private,
            });
        }
    }
    // Each atomic update belongs to the innermost work-sharing loop around it; outside
    // one it is the plain update.
    for (k, span) in atomics {
        let around = |l: &&mut Loop| {
            l.work_sharing
                && s.statements[k]
                    .loops
                    .iter()
                    .any(|x| x.span.range.start == l.header)
        };
        if let Some(l) = out.iter_mut().filter(around).last() {
            l.atomic.push((k, span));
        }
    }
    for (span, range) in &regions {
        for st in &s.statements {
            let inside = st.span.file == s.region.file && range.contains(&st.span.range.start);
            let shared = !st.loops.iter().any(|l| {
                out.iter()
                    .any(|o| o.work_sharing && o.header == l.span.range.start)
            });
            let single = singles.iter().any(|b| b.contains(&st.span.range.start));
            if inside && shared && !single {
                return Err(Refusal::new(
                    format!(
                        "`{}` is in the parallel region of line {} but in none of its work-sharing loops: every thread runs it",
                        st.text, span.line
                    ),
                    Some(&st.span),
                ));
            }
        }
    }
    // A variable declared in a parallel region is each thread's own: in each work-sharing
    // loop of the region that uses it, it is read as a private variable.
    for (_, range) in &regions {
        let own: Vec<&str> = (s.arrays.iter())
            .filter(|a| {
                a.declared
                    .as_ref()
                    .is_some_and(|d| d.file == s.region.file && range.contains(&d.range.start))
            })
            .map(|a| a.c_name.as_str())
            .collect();
        for l in out
            .iter_mut()
            .filter(|l| l.work_sharing && range.contains(&l.header))
        {
            for st in &s.statements {
                if !st.loops.iter().any(|x| x.span.range.start == l.header) {
                    continue;
                }
                for a in &st.accesses {
                    let c = s
                        .array(&a.array)
                        .map_or(a.array.as_str(), |x| x.c_name.as_str());
                    if own.contains(&c) && !l.private.iter().any(|p| p == c) {
                        l.private.push(c.to_string());
                    }
                }
            }
        }
    }
    // The lanes of vector statements: one loop each, checked as a SIMD loop.
    let mut seen = std::collections::HashSet::new();
    for l in s.statements.iter().flat_map(|st| &st.loops) {
        if l.lanes && seen.insert(l.span.range.start) {
            out.push(Loop {
                pragma: l.span.clone(),
                header: l.span.range.start,
                work_sharing: false,
                reduced: vec![],
                atomic: vec![],
                vector: true,
                private: vec![],
            });
        }
    }
    Ok(out)
}

/// Whether the loop is the lanes of a vector statement rather than an OpenMP loop.
impl Loop {
    pub fn is_vector(&self) -> bool {
        self.vector
    }
}

/// The directive whose `#pragma` starts at `start`.
fn directive(s: &Scop, text: &str, start: usize) -> Result<Directive, Refusal> {
    let end = text[start..].find('\n').map_or(text.len(), |e| start + e);
    let line = text[..start].matches('\n').count() + 1;
    let span = SourceSpan {
        file: s.region.file.clone(),
        range: start..end,
        line,
        end_line: line,
    };
    let refuse = |what: String| Err(Refusal::new(what, Some(&span)));
    let body = text[start + "#pragma omp".len()..end].trim();
    if body.ends_with('\\') {
        return refuse("an OpenMP directive continued on the next line".into());
    }
    let mut words = body;
    let mut take = |w: &str| {
        let rest = words.trim_start();
        match rest.strip_prefix(w) {
            Some(r) if r.is_empty() || r.starts_with([' ', '\t', '(']) => {
                words = r;
                true
            }
            _ => false,
        }
    };
    // A directive that is neither a loop nor a region: `atomic` or `single`.
    let bare = |span: SourceSpan| Directive {
        span,
        end,
        parallel: false,
        work_sharing: false,
        simd: false,
        private: vec![],
        reduced: vec![],
        atomic: false,
        single: false,
    };
    if take("atomic") {
        take("update");
        if !words.trim().is_empty() {
            return refuse(format!(
                "the OpenMP directive `#pragma omp {body}`: only `atomic` and `atomic update` are read of atomic directives"
            ));
        }
        return Ok(Directive {
            atomic: true,
            ..bare(span)
        });
    }
    if take("single") {
        if !words.trim().is_empty() {
            return refuse(format!(
                "the OpenMP directive `#pragma omp {body}`: `single` is read without clauses (`nowait` would leave out the barrier at its end)"
            ));
        }
        return Ok(Directive {
            single: true,
            ..bare(span)
        });
    }
    let parallel = take("parallel");
    let work_sharing = take("for");
    let simd = take("simd");
    // `parallel`, `for`, `simd`, and `parallel` or SIMD with `for`; not `parallel simd`.
    let read = work_sharing || parallel != simd;
    if !read {
        return refuse(format!(
            "the OpenMP directive `#pragma omp {body}`: only `parallel`, `for`, `parallel for`, `simd` and `for simd` are read"
        ));
    }
    let mut private = vec![];
    let mut reduced = vec![];
    for (name, args) in clauses(words).ok_or_else(|| {
        Refusal::new(
            format!("the clauses of `#pragma omp {body}` cannot be read"),
            Some(&span),
        )
    })? {
        match name.as_str() {
            "private" | "firstprivate" => {
                private.extend(args.split(',').map(|a| a.trim().to_string()))
            }
            "reduction" => match args.split_once(':') {
                Some((op, vars)) if ["+", "-", "*", "min", "max"].contains(&op.trim()) => {
                    let op = if op.trim() == "-" { "+" } else { op.trim() };
                    reduced.extend(vars.split(',').map(|v| (v.trim().to_string(), op.to_string())));
                }
                _ => {
                    return refuse(format!(
                        "the OpenMP clause `reduction({args})`: only `+`, `-`, `*`, `min` and `max` reductions of scalars are read"
                    ))
                }
            },
            "schedule" | "num_threads" => {}
            "safelen" | "simdlen" if simd => {}
            "default" if args.trim() == "shared" => {}
            _ => {
                let clause = if args.is_empty() {
                    name
                } else {
                    format!("{name}({args})")
                };
                return refuse(format!(
                    "the OpenMP clause `{clause}`: only `private`, `firstprivate`, `schedule`, `num_threads`, `default(shared)`, `reduction`, and `safelen` and `simdlen` on a SIMD loop, are read"
                ));
            }
        }
    }
    Ok(Directive {
        span,
        end,
        parallel,
        work_sharing,
        simd,
        private,
        reduced,
        atomic: false,
        single: false,
    })
}

/// `name(args) name …` as pairs; `None` when the parentheses do not match.
fn clauses(text: &str) -> Option<Vec<(String, String)>> {
    let mut out = vec![];
    let mut rest = text.trim();
    while !rest.is_empty() {
        let rest_trim = rest.trim_start_matches([',', ' ', '\t']);
        let n = rest_trim
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest_trim.len());
        if n == 0 {
            return None;
        }
        let name = rest_trim[..n].to_string();
        let after = rest_trim[n..].trim_start();
        if let Some(inner) = after.strip_prefix('(') {
            let close = inner.find(')')?;
            out.push((name, inner[..close].to_string()));
            rest = inner[close + 1..].trim_start();
        } else {
            out.push((name, String::new()));
            rest = after;
        }
    }
    Some(out)
}

/// The byte range of the `{ … }` block that starts after `from`.
fn block(text: &str, from: usize, span: &SourceSpan) -> Result<std::ops::Range<usize>, Refusal> {
    let open = from + text[from..].len() - text[from..].trim_start().len();
    if !text[open..].starts_with('{') {
        return Err(Refusal::new(
            "`#pragma omp parallel` on a statement that is not a block: every thread runs it",
            Some(span),
        ));
    }
    let mut depth = 0usize;
    for (k, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(open..open + k + 1);
                }
            }
            _ => {}
        }
    }
    Err(Refusal::new(
        "the parallel region's block does not end",
        Some(span),
    ))
}

/// Where the modelled loop right after the directive starts.
fn next_loop(s: &Scop, text: &str, d: &Directive) -> Result<usize, Refusal> {
    let header = s
        .statements
        .iter()
        .flat_map(|st| &st.loops)
        .map(|l| l.span.range.start)
        .filter(|&h| h >= d.end)
        .min();
    match header {
        Some(h) if text[d.end..h].trim().is_empty() => Ok(h),
        _ => Err(Refusal::new(
            "the loop after this OpenMP directive is not a modelled loop",
            Some(&d.span),
        )),
    }
}

/// The modelled statement right after an atomic directive (its index in the scop).
fn next_statement(s: &Scop, text: &str, d: &Directive) -> Result<usize, Refusal> {
    let next = (s.statements.iter().enumerate())
        .filter(|(_, st)| st.span.file == s.region.file && st.span.range.start >= d.end)
        .min_by_key(|(_, st)| st.span.range.start);
    match next {
        Some((k, st)) if text[d.end..st.span.range.start].trim().is_empty() => Ok(k),
        _ => Err(Refusal::new(
            "the statement after this atomic directive is not a modelled assignment",
            Some(&d.span),
        )),
    }
}

/// The variables private in the loop (`private`, `firstprivate`) that its statements
/// access (C names); loop counters are not accesses.
fn private_used(s: &Scop, d: &Directive, header: usize) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for st in &s.statements {
        if !st.loops.iter().any(|l| l.span.range.start == header) {
            continue;
        }
        for a in &st.accesses {
            let c = s
                .array(&a.array)
                .map_or(a.array.as_str(), |x| x.c_name.as_str());
            if d.private.iter().any(|p| p == c) && !out.iter().any(|o| o == c) {
                out.push(c.to_string());
            }
        }
    }
    out
}

/// Refuses a private variable `x` of loop `l` (its statements `inside`, each with the
/// loop's depth) unless each thread's copy holds what the sequential loop holds where it
/// is read: declared in the region, read by no statement outside the loop, and every read
/// in the loop sees a write of the same element earlier in the same iteration.
fn private_copies(
    p: &Program,
    l: &Loop,
    all: &[Loop],
    inside: &[(usize, usize)],
    params: &[String],
) -> Result<(), Refusal> {
    for x in &l.private {
        let refuse = |why: String, span: &SourceSpan| {
            Err(Refusal::new(
                format!(
                    "`{x}` is private in the OpenMP loop of line {} and {why}",
                    l.pragma.line
                ),
                Some(span),
            ))
        };
        let is_x = |a: &str| p.c_name(a) == *x;
        let declared_here = (p.scop.arrays.iter())
            .any(|a| a.c_name == *x && a.storage == crate::model::Storage::Region);
        if !declared_here {
            return refuse(
                "is not declared in the region: its value after the loop (the one before it, not the last iteration's) is live".into(),
                &l.pragma,
            );
        }
        // A read in another loop where the variable is private too sees a write of its own
        // iteration (checked for that loop), not this loop's.
        let private_elsewhere = |st: &Stmt| {
            let loops = &p.scop.statements[st.index].loops;
            (all.iter()).any(|o| {
                o.header != l.header
                    && o.private.iter().any(|v| v == x)
                    && loops.iter().any(|y| y.span.range.start == o.header)
            })
        };
        for (k, st) in p.stmts.iter().enumerate() {
            let reads_x = st.reads.iter().flatten().any(|(a, _)| is_x(a));
            if reads_x && !inside.iter().any(|(i, _)| *i == k) && !private_elsewhere(st) {
                return refuse(
                    "this statement after it reads it: the loop leaves it as it was before".into(),
                    &st.span,
                );
            }
        }
        for &(b, d) in inside {
            let sb = &p.stmts[b];
            let time = sb.time.space().range.clone();
            for (_, read) in sb.reads.iter().flatten().filter(|(a, _)| is_x(a)) {
                let mut seen = read.domain();
                for &(a, _) in inside
                    .iter()
                    .filter(|(a, _)| is_x(&p.stmts[*a].write_array))
                {
                    let sa = &p.stmts[a];
                    let same = read.apply_range(&sa.write.inverse());
                    for level in 2 * d + 2..time.len() {
                        let order = order_at(params, &time, level, &[], false);
                        let before = sb.time.apply_range(&order).apply_range(&sa.time.inverse());
                        seen = seen.subtract(&same.intersect(&before).domain());
                    }
                }
                if !seen.is_empty() {
                    return refuse(
                        "this statement reads it where no write of the same iteration comes before: a thread's copy does not hold that value".into(),
                        &sb.span,
                    );
                }
            }
        }
    }
    Ok(())
}

/// Refuses a work-sharing or SIMD loop of `p` two of whose iterations touch one element with a
/// write among them (variables declared in its body are each iteration's own).
pub fn race_free(p: &Program, loops: &[Loop], params: &[String]) -> Result<(), Refusal> {
    for l in loops {
        // The statements in the loop, with the loop's depth in each.
        let inside: Vec<(usize, usize)> = p
            .stmts
            .iter()
            .enumerate()
            .filter_map(|(k, st)| {
                let d = p.scop.statements[st.index]
                    .loops
                    .iter()
                    .position(|x| x.span.range.start == l.header)?;
                Some((k, d))
            })
            .collect();
        updates_only(p, l, &inside)?;
        private_copies(p, l, loops, &inside, params)?;
        let atomic = atomic_updates(p, l, &inside)?;
        let reduced = |array: &str| l.reduced.iter().any(|(x, _)| *x == p.c_name(array));
        // Atomic updates of one array by one operator do not race with one another (their
        // operands read nothing of the array: `atomic_updates`).
        let both_atomic = |a: usize, b: usize, array: &str| {
            let op = |k: usize| atomic.iter().find(|(x, _)| *x == k).map(|(_, o)| o);
            (op(a).is_some() && op(a) == op(b))
                && p.stmts[a].write_array == array
                && p.stmts[b].write_array == array
        };
        for &(a, d) in &inside {
            for &(b, _) in &inside {
                let private = |x: &str| l.private.iter().any(|v| *v == p.c_name(x));
                let race = conflict(p, params, a, b, d)
                    .filter(|x| !reduced(x) && !both_atomic(a, b, x) && !private(x));
                if let Some(array) = race {
                    let name = p.c_name(&array);
                    let what = if l.vector {
                        format!(
                            "a race in the lanes of the vector operation of line {}: two of its lanes touch one element of `{name}`, one writing it (the lanes read before any writes)",
                            l.pragma.line
                        )
                    } else {
                        let kind = if l.work_sharing { "parallel" } else { "SIMD" };
                        format!(
                            "a race in the {kind} loop of line {}: two of its iterations touch one element of `{name}`, one writing it",
                            l.pragma.line
                        )
                    };
                    return Err(Refusal::new(what, Some(&p.stmts[a].span)));
                }
            }
        }
    }
    Ok(())
}

/// Refuses a reduction of loop `l` (its statements `inside`) whose variable a statement of
/// the loop touches otherwise than by updating it with the clause's operator: `x = x op e`
/// (`x - e` for `+`), `e` not reading `x`.
fn updates_only(p: &Program, l: &Loop, inside: &[(usize, usize)]) -> Result<(), Refusal> {
    for (x, op) in &l.reduced {
        // Each thread's copy of a reduced array starts at the identity in every element,
        // elements the loop reads without updating them included: scalars only.
        if (p.scop.arrays.iter()).any(|a| a.c_name == *x && a.rank > 0) {
            return Err(Refusal::new(
                format!("`{x}` is an array reduced by the OpenMP loop of line {}: only reductions of scalars are read", l.pragma.line),
                Some(&l.pragma),
            ));
        }
        let form = match op.as_str() {
            "max" | "min" => format!("{x} = f{op}({x}, e)"),
            _ => format!("{x} = {x} {op} e"),
        };
        let is_x = |array: &str| p.c_name(array) == *x;
        for &(k, _) in inside {
            let st = &p.stmts[k];
            let writes_x = is_x(&st.write_array);
            let update = writes_x && update_operator(st, is_x) == Some(op.as_str());
            if (writes_x && !update) || (!writes_x && reads(st, st.root, is_x)) {
                return Err(Refusal::new(
                    format!(
                        "`{x}` is reduced by the OpenMP loop of line {}, and this statement uses it otherwise than as an update `{form}`",
                        l.pragma.line
                    ),
                    Some(&st.span),
                ));
            }
        }
    }
    Ok(())
}

/// The atomic updates of loop `l` (its statements `inside`), as indices among the program's
/// statements with their operators (`-` as `+`). Each must be `A[s] = A[s] op e` (`+`, `-`,
/// `*`; `A[s]` on the right of `-`) with `e` reading nothing of `A`, else refused at it.
fn atomic_updates(
    p: &Program,
    l: &Loop,
    inside: &[(usize, usize)],
) -> Result<Vec<(usize, String)>, Refusal> {
    let mut out = vec![];
    for (k, span) in &l.atomic {
        let Some(&(i, _)) = inside.iter().find(|(i, _)| p.stmts[*i].index == *k) else {
            continue;
        };
        let st = &p.stmts[i];
        match update_operator(st, |a| a == st.write_array) {
            Some(o @ ("+" | "*")) => out.push((i, o.to_string())),
            _ => {
                let a = p.c_name(&st.write_array);
                return Err(Refusal::new(
                    format!(
                        "the atomic update of line {} is not `{a}[…] = {a}[…] op e` (`+`, `-` or `*`) with `e` reading nothing of `{a}`",
                        span.line
                    ),
                    Some(&st.span),
                ));
            }
        }
    }
    Ok(out)
}

/// Whether the value below `node` of `st` reads an array that `array` accepts.
fn reads(st: &Stmt, node: usize, array: impl Fn(&str) -> bool) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match &st.nodes[n] {
            Node::Read(j) if (st.reads[*j].as_ref()).is_some_and(|(a, _)| array(a)) => return true,
            Node::Op(_, args) => stack.extend(args),
            _ => {}
        }
    }
    false
}

/// The operator by which `st` updates the element it writes, of an array that `array`
/// accepts: its value is `op(w, e)` or `op(e, w)` (not for `-`), `w` the read of that very
/// element and `e` reading nothing of the array; `-` is given as `+`, `fmax` as `max`,
/// `fmin` as `min` ([`operator`]). `None` when it is no such update.
fn update_operator(st: &Stmt, array: impl Fn(&str) -> bool + Copy) -> Option<&str> {
    let Node::Op(o, args) = &st.nodes[st.root] else {
        return None;
    };
    let o = operator(o);
    let own = |n: usize| match st.nodes[n] {
        Node::Read(j) => (st.reads[j].as_ref())
            .is_some_and(|(a, m)| array(a) && array(&st.write_array) && m.is_equal(&st.write)),
        _ => false,
    };
    let fits = match args[..] {
        [w, e] => (own(w) && !reads(st, e, array)) || (o != "-" && own(e) && !reads(st, w, array)),
        _ => false,
    };
    fits.then_some(if o == "-" { "+" } else { o })
}

/// The operator of a typed operation node as a reduction clause names it: `+ double` is
/// `+`, a call of `fmax` (`fmaxf`, `fmaxl`) is `max` and of `fmin` `min`.
fn operator(node: &str) -> &str {
    let mut words = node.split(' ');
    match (words.next(), words.next()) {
        (Some("call"), Some("fmax" | "fmaxf" | "fmaxl")) => "max",
        (Some("call"), Some("fmin" | "fminf" | "fminl")) => "min",
        (Some("call"), _) => "call",
        (Some(o), _) => o,
        (None, _) => "",
    }
}

/// An array that statement `a` writes and statement `b` touches at one element in two
/// different iterations of the loop at depth `d` (the same iterations of the loops around
/// it).
fn conflict(p: &Program, params: &[String], a: usize, b: usize, d: usize) -> Option<String> {
    let (sa, sb) = (&p.stmts[a], &p.stmts[b]);
    let private = |array: &str| {
        p.scop
            .array(array)
            .and_then(|x| x.private_depth)
            .is_some_and(|depth| depth > d)
    };
    if private(&sa.write_array) {
        return None;
    }
    let others = std::iter::once((&sb.write_array, &sb.write))
        .chain(sb.reads.iter().flatten().map(|(x, m)| (x, m)));
    let time = sa.time.space().range.clone();
    for (array, access) in others {
        if *array != sa.write_array {
            continue;
        }
        let same = sa.write.apply_range(&access.inverse());
        for later in [false, true] {
            let order = order_at(params, &time, 2 * d + 1, &[], later);
            let apart = sa.time.apply_range(&order).apply_range(&sb.time.inverse());
            if !same.intersect(&apart).is_empty() {
                return Some(array.clone());
            }
        }
    }
    None
}
