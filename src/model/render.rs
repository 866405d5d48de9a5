//! Human-readable and JSON views of a [`Scop`] (what `loopy show` prints), and of the
//! schedule state a script leaves (`loopy show --script`, the REPL's listings).
//!
//! Sets and maps are printed in isl notation with all the scop's parameters, so every line
//! can be pasted into `loopy calc` as it is.

use super::json;
use super::state::State;
use super::{Access, AccessKind, Array, LoopInfo, Scop, SourceSpan, Statement, Tag, TagKind};
use crate::presburger::Int;
use serde::Serialize;
use std::fmt::Write;

impl TagKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TagKind::Statement => "statement",
            TagKind::Block => "block",
            TagKind::Loop => "loop",
            TagKind::If => "if",
        }
    }
}

impl AccessKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
        }
    }
}

fn lines(span: &SourceSpan) -> String {
    if span.line == span.end_line {
        format!("line {}", span.line)
    } else {
        format!("lines {}-{}", span.line, span.end_line)
    }
}

fn array_text(a: &Array) -> String {
    let mut s = a.name.clone();
    if a.rank == 0 {
        s.push_str(" (scalar");
    } else {
        let _ = write!(s, " ({}-d", a.rank);
    }
    if a.c_name != a.name {
        let _ = write!(s, ", `{}` in C", a.c_name);
    }
    if let Some(d) = a.private_depth {
        let _ = write!(s, ", private at depth {d}");
    }
    s.push(')');
    s
}

fn tag_text(scop: &Scop, t: &Tag) -> String {
    let names: Vec<&str> = t
        .statements
        .iter()
        .map(|&i| scop.statements[i].name.as_str())
        .collect();
    let positions: Vec<String> = scop
        .positions(t)
        .iter()
        .map(|p| format!("[{}]", join_ints(p)))
        .collect();
    let block = match &t.block {
        // Only worth saying when the block holds more than the labelled statement.
        Some(b) if t.statements.len() > 1 => format!(
            " — the label is on the first statement of the `{{ }}` block at {}, so it tags the whole block",
            lines(b)
        ),
        _ => String::new(),
    };
    format!(
        "{} ({}, {}, depth {}): {}; positions {}{}",
        t.name,
        t.kind.as_str(),
        lines(&t.span),
        t.depth,
        names.join(", "),
        positions.join(", "),
        block
    )
}

fn join_ints(v: &[Int]) -> String {
    v.iter().map(Int::to_string).collect::<Vec<_>>().join(", ")
}

/// What `loopy show --format json` prints: [`Scop::to_json`].
#[derive(Serialize)]
pub struct ScopJson<'a> {
    file: &'a str,
    function: &'a str,
    fragment: bool,
    region: SpanJson<'a>,
    parameters: &'a [String],
    context: String,
    arrays: Vec<ArrayJson<'a>>,
    statements: Vec<StatementJson<'a>>,
    tags: Vec<TagJson<'a>>,
}

impl ScopJson<'_> {
    /// Pretty-printed in the layout of every command's JSON.
    pub fn pretty(&self) -> String {
        json::pretty(self)
    }
}

#[derive(Serialize)]
struct SpanJson<'a> {
    file: &'a str,
    line: usize,
    end_line: usize,
    start: usize,
    end: usize,
}

impl<'a> SpanJson<'a> {
    fn of(sp: &'a SourceSpan) -> Self {
        SpanJson {
            file: &sp.file,
            line: sp.line,
            end_line: sp.end_line,
            start: sp.range.start,
            end: sp.range.end,
        }
    }
}

#[derive(Serialize)]
struct ArrayJson<'a> {
    name: &'a str,
    c_name: &'a str,
    rank: usize,
    private_depth: Option<usize>,
}

impl<'a> ArrayJson<'a> {
    fn of(a: &'a Array) -> Self {
        ArrayJson {
            name: &a.name,
            c_name: &a.c_name,
            rank: a.rank,
            private_depth: a.private_depth,
        }
    }
}

#[derive(Serialize)]
struct StatementJson<'a> {
    name: &'a str,
    label: Option<&'a str>,
    text: &'a str,
    expanded_text: &'a str,
    span: SpanJson<'a>,
    iterators: &'a [String],
    loops: Vec<LoopJson<'a>>,
    domain: String,
    schedule: String,
    #[serde(serialize_with = "json::ints")]
    positions: &'a [Int],
    iteration_dims: String,
    accesses: Vec<AccessJson<'a>>,
    opaque: Option<&'a str>,
}

impl<'a> StatementJson<'a> {
    fn of(st: &'a Statement) -> Self {
        StatementJson {
            name: &st.name,
            label: st.label.as_deref(),
            text: &st.text,
            expanded_text: &st.expanded_text,
            span: SpanJson::of(&st.span),
            iterators: &st.iterators,
            loops: st.loops.iter().map(LoopJson::of).collect(),
            domain: st.domain.for_print().to_string(),
            schedule: st.schedule_on_domain().for_print().to_string(),
            positions: &st.schedule.positions,
            iteration_dims: st.schedule.dims.to_string(),
            accesses: st.accesses.iter().map(AccessJson::of).collect(),
            opaque: st.opaque.as_deref(),
        }
    }
}

#[derive(Serialize)]
struct LoopJson<'a> {
    iterator: &'a str,
    c_name: &'a str,
    #[serde(serialize_with = "json::int")]
    step: &'a Int,
    first: Option<String>,
    span: SpanJson<'a>,
}

impl<'a> LoopJson<'a> {
    fn of(l: &'a LoopInfo) -> Self {
        LoopJson {
            iterator: &l.iterator,
            c_name: &l.c_name,
            step: &l.step,
            first: l.first.as_ref().map(|e| e.to_string()),
            span: SpanJson::of(&l.span),
        }
    }
}

#[derive(Serialize)]
struct AccessJson<'a> {
    kind: &'static str,
    array: &'a str,
    relation: String,
    exact: bool,
    note: Option<&'a str>,
    span: SpanJson<'a>,
}

impl<'a> AccessJson<'a> {
    fn of(a: &'a Access) -> Self {
        AccessJson {
            kind: a.kind.as_str(),
            array: &a.array,
            relation: a.relation.to_string(),
            exact: a.exact,
            note: a.note.as_deref(),
            span: SpanJson::of(&a.span),
        }
    }
}

#[derive(Serialize)]
struct TagJson<'a> {
    name: &'a str,
    kind: &'static str,
    span: SpanJson<'a>,
    depth: usize,
    statements: Vec<&'a str>,
    positions: Vec<Ints>,
}

/// A tag's position in one statement's schedule.
#[derive(Serialize)]
struct Ints(#[serde(serialize_with = "json::ints")] Vec<Int>);

impl Scop {
    /// The model as text, one block per statement.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "file:       {}", self.file);
        if self.fragment {
            let _ = writeln!(
                s,
                "function:   none, a fragment at file scope ({})",
                lines(&self.region)
            );
        } else {
            let _ = writeln!(s, "function:   {} ({})", self.function, lines(&self.region));
        }
        let _ = writeln!(
            s,
            "parameters: {}",
            if self.params.is_empty() {
                "none".to_string()
            } else {
                self.params.join(", ")
            }
        );
        let _ = writeln!(s, "context:    {}", self.context);
        let arrays: Vec<String> = self.arrays.iter().map(array_text).collect();
        let _ = writeln!(s, "arrays:     {}", arrays.join(", "));
        for st in &self.statements {
            s.push('\n');
            self.statement_text(st, &mut s);
        }
        s.push('\n');
        if self.tags.is_empty() {
            s.push_str("tags: none\n");
        } else {
            s.push_str("tags:\n");
            for t in &self.tags {
                let _ = writeln!(s, "  {}", tag_text(self, t));
            }
        }
        s
    }

    fn statement_text(&self, st: &Statement, s: &mut String) {
        let label = st
            .label
            .as_ref()
            .map_or(String::new(), |l| format!(" ({l})"));
        let _ = writeln!(s, "{}{}, {}: {}", st.name, label, lines(&st.span), st.text);
        if let Some(why) = &st.opaque {
            let _ = writeln!(s, "  opaque:    {why}");
        }
        let _ = writeln!(s, "  domain:    {}", st.domain.for_print());
        let _ = writeln!(s, "  schedule:  {}", st.schedule_on_domain().for_print());
        for a in &st.accesses {
            let _ = write!(
                s,
                "  {:<10} {}",
                format!("{}:", a.kind.as_str()),
                a.relation
            );
            if let Some(n) = &a.note {
                let _ = write!(s, "  (approximate: {n})");
            }
            s.push('\n');
        }
    }

    /// The model as JSON (same content as [`Scop::to_text`], plus positions and the
    /// unrestricted iteration dimensions of each schedule).
    pub fn to_json(&self) -> ScopJson<'_> {
        let positions = |t: &Tag| self.positions(t).into_iter().map(Ints).collect();
        let tags = self
            .tags
            .iter()
            .map(|t| TagJson {
                name: &t.name,
                kind: t.kind.as_str(),
                span: SpanJson::of(&t.span),
                depth: t.depth,
                statements: t
                    .statements
                    .iter()
                    .map(|&i| self.statements[i].name.as_str())
                    .collect(),
                positions: positions(t),
            })
            .collect();
        ScopJson {
            file: &self.file,
            function: &self.function,
            fragment: self.fragment,
            region: SpanJson::of(&self.region),
            parameters: &self.params,
            context: self.context.to_string(),
            arrays: self.arrays.iter().map(ArrayJson::of).collect(),
            statements: self.statements.iter().map(StatementJson::of).collect(),
            tags,
        }
    }
}

/// Is component `c` a statement's default handle (`S0`, …)? Listings leave those out: every
/// statement has one, and `loopy show` lists the statements already.
fn is_statement_handle(st: &State, c: usize) -> bool {
    st.components[c].origin.what.starts_with("statement `")
}

/// Schedules of every piece and the positions of every named handle (tags and the handles a
/// script defines; not the statements' default handles).
pub fn render_state(st: &State) -> String {
    let mut out = String::new();
    for p in &st.pieces {
        let name = &st.stmt_names[p.stmt];
        let _ = writeln!(out, "  {name}: {}", p.schedule().for_print());
        if !p.marks.is_empty() {
            let _ = writeln!(out, "    marks: {}", render_marks(&p.marks));
        }
        if !p.copies.is_empty() {
            let _ = writeln!(out, "    copies: {}", render_copies(st, &p.copies));
        }
    }
    let _ = writeln!(out, "  components:");
    for (h, c) in &st.handles {
        if is_statement_handle(st, *c) {
            continue;
        }
        let ps: Vec<String> = st.components[*c]
            .positions
            .iter()
            .map(|p| {
                format!(
                    "[{}]",
                    p.iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        let _ = writeln!(out, "    {h}: {}", ps.join(" "));
    }
    out
}

/// A piece's copies as text: `B inside loops 1..3, box 32 × 32 from [32*t2, 32*t1]`
/// (`t1`, `t2`, ... the values of the outer loops).
/// The boxes come from the state's copy plans (`State::copy_plans`); a copy without one is
/// listed without its box.
pub fn render_copies(st: &State, copies: &[crate::model::state::CopyMark]) -> String {
    copies
        .iter()
        .map(|c| {
            let mut s = format!("{} inside loops 1..{}", c.array, c.outer);
            if let Some(p) = st
                .copy_plans
                .iter()
                .find(|p| p.mark.step == c.step && p.mark.array == c.array)
            {
                let t: Vec<String> = (1..=c.outer).map(|k| format!("t{k}")).collect();
                let size: Vec<String> = p
                    .size
                    .iter()
                    .zip(&p.runtime)
                    .map(|(v, e)| match e {
                        Some(e) => format!("({})", e.to_c(&st.params, "floor")),
                        None => v.to_string(),
                    })
                    .collect();
                let lo: Vec<String> = p
                    .lower
                    .iter()
                    .map(|l| l.to_c(&st.params, &t, "floor"))
                    .collect();
                let _ = write!(s, ", box {} from [{}]", size.join(" × "), lo.join(", "));
            }
            s
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A piece's marks as text: `loop 1 parallel, loop 3 vectorize` (loops numbered from 1).
pub fn render_marks(marks: &[crate::model::state::Mark]) -> String {
    marks
        .iter()
        .map(|m| format!("loop {} {}", m.dim + 1, m.kind.describe()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every handle (the kernel's tags and the handles a script named) with the statements it
/// covers and where it was defined (`sources`: the texts to count lines in).
pub fn render_handles(st: &State, sources: &[(String, String)]) -> String {
    let mut out = String::new();
    for (h, c) in &st.handles {
        if is_statement_handle(st, *c) {
            continue;
        }
        let comp = &st.components[*c];
        let mut stmts: Vec<&str> = vec![];
        for p in &st.pieces {
            let name = st.stmt_names[p.stmt].as_str();
            if comp.positions.contains(&p.pos) && !stmts.contains(&name) {
                stmts.push(name);
            }
        }
        let covers = if stmts.is_empty() {
            "no statement".to_string()
        } else {
            stmts.join(", ")
        };
        let line = sources
            .iter()
            .find(|(n, _)| *n == comp.origin.source)
            .and_then(|(_, t)| t.get(..comp.origin.span.start))
            .map(|before| before.matches('\n').count() + 1);
        let at = match line {
            Some(l) => format!("{}:{l}", comp.origin.source),
            None => comp.origin.source.clone(),
        };
        let _ = writeln!(out, "  {h}: {covers} (from {at})");
    }
    out
}
