//! Script text to [`ast`](super::ast), with pest (`grammar/loopy.pest`).

use super::ast::*;
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::presburger::Int;
use pest::iterators::Pair;
use pest::Parser as _;

#[derive(pest_derive::Parser)]
#[grammar = "grammar/loopy.pest"]
struct ScriptParser;

/// Parses a script; `source` names the text in diagnostics.
pub fn parse_script(text: &str, source: &str) -> Result<Script, Diagnostic> {
    let mut pairs = ScriptParser::parse(Rule::script, text).map_err(|e| syntax_error(e, source))?;
    let top = pairs.next().expect("script rule");
    let mut items = vec![];
    for p in top.into_inner() {
        match p.as_rule() {
            Rule::import => {
                let span = span(&p);
                let s = meaningful(p).next().expect("string");
                let raw = s.as_str();
                items.push(ScriptItem::Import {
                    path: raw[1..raw.len() - 1].to_string(),
                    span,
                });
            }
            Rule::def => items.push(ScriptItem::Def(def(p)?)),
            Rule::param => {
                let start = p.as_span().start();
                let mut it = meaningful(p).filter(|x| x.as_rule() != Rule::param_kw);
                let n = name(it.next().expect("name"));
                let mut default = None;
                let mut tune = None;
                for v in it {
                    let at = self::span(&v);
                    match v.as_rule() {
                        Rule::int => default = Some((ParamDefault::Int(int(&v)), at)),
                        Rule::model => {
                            let m = ParamDefault::Model(v.into_inner().next().map(name));
                            default = Some((m, at))
                        }
                        _ => tune = Some(tune_values(v, source)?),
                    }
                }
                // To the last token: the rule's own span may reach over trailing comments.
                let end = [
                    Some(n.span.end),
                    default.as_ref().map(|d| d.1.end),
                    tune.as_ref().map(|t| t.1.end),
                ];
                let span = start..end.into_iter().flatten().max().unwrap_or(start);
                items.push(ScriptItem::Param(ParamDecl {
                    name: n,
                    default,
                    tune,
                    span,
                }));
            }
            Rule::EOI => {}
            _ => items.push(ScriptItem::Stmt(stmt(p)?)),
        }
    }
    Ok(Script { items })
}

/// `in LO..HI step S` or `in [A, B]`, and its span (to its last token: a rule's own span
/// may reach over the white space after it); a range that starts above its end or a step
/// that is not positive is an error.
fn tune_values(p: Pair<Rule>, source: &str) -> Result<(TuneValues, Span), Diagnostic> {
    let start = p.as_span().start();
    let end = p
        .clone()
        .into_inner()
        .flatten()
        .filter(|x| matches!(x.as_rule(), Rule::int | Rule::rbracket))
        .map(|x| x.as_span().end())
        .max();
    let whole = start..end.unwrap_or(start);
    let v = p
        .into_inner()
        .find(|x| matches!(x.as_rule(), Rule::int_range | Rule::int_list))
        .expect("grammar");
    let at = v.as_span().start()..whole.end;
    let ints: Vec<(Int, Span)> = v
        .clone()
        .into_inner()
        .filter(|x| x.as_rule() == Rule::int)
        .map(|x| (int(&x), span(&x)))
        .collect();
    if v.as_rule() == Rule::int_list {
        let mut out: Vec<Int> = vec![];
        for (x, _) in ints {
            if !out.contains(&x) {
                out.push(x);
            }
        }
        return Ok((TuneValues::List(out), whole));
    }
    let (lo, hi) = (ints[0].0.clone(), ints[1].0.clone());
    let step = match ints.get(2) {
        Some((s, s_at)) if !s.is_positive() => {
            return Err(Diagnostic::new(
                codes::BAD_RANGE,
                format!("the step of a range must be positive, not {s}"),
            )
            .with_label(source, s_at.clone(), "not positive"))
        }
        Some((s, _)) => s.clone(),
        None => Int::from(1),
    };
    if lo > hi {
        return Err(Diagnostic::new(
            codes::BAD_RANGE,
            format!("the range of values to try is empty: {lo} is above {hi}"),
        )
        .with_label(source, at, "no values")
        .with_help(format!("did you mean `{hi}..{lo}`?")));
    }
    Ok((TuneValues::Range { lo, hi, step }, whole))
}

fn span(p: &Pair<Rule>) -> Span {
    let s = p.as_span();
    s.start()..s.end()
}

/// Drops punctuation pairs.
fn meaningful(p: Pair<Rule>) -> impl Iterator<Item = Pair<Rule>> {
    p.into_inner().filter(|x| {
        !matches!(
            x.as_rule(),
            Rule::lparen
                | Rule::rparen
                | Rule::comma
                | Rule::equals
                | Rule::lbrace
                | Rule::rbrace
                | Rule::rbracket
        )
    })
}

fn name(p: Pair<Rule>) -> Name {
    Name {
        text: p.as_str().to_string(),
        span: span(&p),
    }
}

fn def(p: Pair<Rule>) -> Result<ProcDef, Diagnostic> {
    let sp = span(&p);
    let mut it = meaningful(p);
    let n = name(it.next().expect("name"));
    let mut params = vec![];
    let mut body = vec![];
    for q in it {
        match q.as_rule() {
            Rule::params => {
                params = meaningful(q)
                    .filter(|x| x.as_rule() == Rule::ident)
                    .map(name)
                    .collect()
            }
            Rule::block => {
                for s in
                    meaningful(q).filter(|x| !matches!(x.as_rule(), Rule::lbrace | Rule::rbrace))
                {
                    body.push(stmt(s)?);
                }
            }
            _ => unreachable!("def: {:?}", q.as_rule()),
        }
    }
    Ok(ProcDef {
        name: n,
        params,
        body,
        span: sp,
    })
}

fn stmt(p: Pair<Rule>) -> Result<Stmt, Diagnostic> {
    let sp = span(&p);
    Ok(match p.as_rule() {
        Rule::call => Stmt::Call {
            targets: vec![],
            call: call(p)?,
            span: sp,
        },
        Rule::assign => {
            let mut it = meaningful(p);
            let t = name(it.next().expect("target"));
            Stmt::Call {
                targets: vec![t],
                call: call(it.next().expect("call"))?,
                span: sp,
            }
        }
        Rule::tuple_assign => {
            let mut it = meaningful(p);
            let targets = meaningful(it.next().expect("targets")).map(name).collect();
            Stmt::Call {
                targets,
                call: call(it.next().expect("call"))?,
                span: sp,
            }
        }
        Rule::return_stmt => {
            let v = meaningful(p).next().expect("value");
            let values = match v.as_rule() {
                Rule::targets => meaningful(v).map(name).collect(),
                _ => vec![name(v)],
            };
            Stmt::Return { values, span: sp }
        }
        r => unreachable!("stmt: {r:?}"),
    })
}

fn call(p: Pair<Rule>) -> Result<Call, Diagnostic> {
    let sp = span(&p);
    let mut it = meaningful(p);
    let n = name(it.next().expect("op name"));
    let mut args = vec![];
    if let Some(a) = it.next() {
        for x in meaningful(a) {
            args.push(arg(x)?);
        }
    }
    Ok(Call {
        name: n,
        args,
        span: sp,
    })
}

fn int(p: &Pair<Rule>) -> Int {
    p.as_str().parse().expect("grammar guarantees digits")
}

fn arg(p: Pair<Rule>) -> Result<Arg, Diagnostic> {
    let sp = span(&p);
    Ok(match p.as_rule() {
        Rule::ident => Arg::Ident(name(p)),
        Rule::int => Arg::Int(int(&p), sp),
        Rule::isl => Arg::Isl(p.as_str().to_string(), sp),
        Rule::list => Arg::List(meaningful(p).map(arg).collect::<Result<_, _>>()?, sp),
        Rule::group => Arg::Group(meaningful(p).map(name).collect(), sp),
        Rule::op => {
            use crate::model::state::RedOp;
            let op = match p.as_str() {
                "+" => RedOp::Add,
                "*" => RedOp::Mul,
                "min" => RedOp::Min,
                _ => RedOp::Max,
            };
            Arg::Op(op, sp)
        }
        r => unreachable!("arg: {r:?}"),
    })
}

fn rule_name(r: &Rule) -> &'static str {
    match r {
        Rule::script | Rule::EOI => "end of script",
        Rule::import => "`import`",
        Rule::string => "a quoted file name",
        Rule::def => "`def`",
        Rule::param | Rule::param_kw => "`param`",
        Rule::model => "`model`",
        Rule::tune_values | Rule::in_kw => "`in`",
        Rule::int_range => "a range `48..192`",
        Rule::step_kw => "`step`",
        Rule::int_list => "a list `[4, 6, 8]`",
        Rule::model_name | Rule::name_chars => "a name of the model like `MC` or `float.MC`",
        Rule::inline_space => "a space",
        Rule::params => "parameter names",
        Rule::block => "`{`",
        Rule::return_stmt => "`return`",
        Rule::tuple_assign | Rule::targets => "`(`",
        Rule::assign => "an assignment",
        Rule::call | Rule::stmt | Rule::item => "an operation like `affine(l, {...})`",
        Rule::args | Rule::arg => "an argument",
        Rule::group => "a group `{A, B}`",
        Rule::isl | Rule::isl_params | Rule::braced => "a set or map `{ ... }`",
        Rule::list | Rule::list_item => "a list `[32, 32]`",
        Rule::int => "an integer",
        Rule::op => "a reduction operator",
        Rule::keyword => "a keyword",
        Rule::ident => "a name",
        Rule::WHITESPACE | Rule::COMMENT => "whitespace",
        Rule::rparen => "`)`",
        Rule::lparen => "`(`",
        Rule::comma => "`,`",
        Rule::equals => "`=`",
        Rule::lbrace => "`{`",
        Rule::rbrace => "`}`",
        Rule::rbracket => "`]`",
    }
}

fn syntax_error(e: pest::error::Error<Rule>, source: &str) -> Diagnostic {
    use pest::error::{ErrorVariant, InputLocation};
    let range = match e.location {
        InputLocation::Pos(p) => p..p + 1,
        InputLocation::Span((a, b)) => a..b,
    };
    let msg = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => {
            let mut names: Vec<&str> = positives.iter().map(rule_name).collect();
            names.sort_unstable();
            names.dedup();
            let last = names.pop().expect("non-empty");
            if names.is_empty() {
                format!("expected {last}")
            } else {
                format!("expected {} or {last}", names.join(", "))
            }
        }
        ErrorVariant::ParsingError { .. } => "unexpected text".to_string(),
        ErrorVariant::CustomError { message } => message.clone(),
    };
    Diagnostic::new(codes::SCRIPT_SYNTAX, format!("syntax error: {msg}"))
        .with_label(source, range, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_defaults() {
        let s = parse_script(
            "param MR = model\n(A, B) = isplit(L, {[i] : i < 4}, 1)\nparam X = model( float.MC ) # c\nparam K = 8",
            "t",
        )
        .unwrap();
        let params: Vec<&ParamDecl> = (s.items.iter())
            .filter_map(|i| match i {
                ScriptItem::Param(d) => Some(d),
                _ => None,
            })
            .collect();
        assert_eq!(s.items.len(), 4, "a line starting with `(` is a statement");
        assert_eq!(params[0].default, Some((ParamDefault::Model(None), 11..16)));
        let Some((ParamDefault::Model(Some(n)), at)) = &params[1].default else {
            panic!("{:?}", params[1]);
        };
        assert_eq!(n.text, "float.MC");
        assert_eq!(at.end, params[1].span.end);
        assert_eq!(
            params[2].default.as_ref().map(|d| &d.0),
            Some(&ParamDefault::Int(Int::from(8)))
        );
        assert!(parse_script("param X = model(float.)", "t").is_err());
        assert!(parse_script("param X = models", "t").is_err());
    }

    #[test]
    fn values_to_tune() {
        let text = "param KC = 256 in 128..512 step 64 # c\nparam MR = model in [4, 6, 4]\n\
                    param N in -2..3\nin = lift(S, 1)\nparam T = 8";
        let s = parse_script(text, "t").unwrap();
        let params: Vec<&ParamDecl> = (s.items.iter())
            .filter_map(|i| match i {
                ScriptItem::Param(d) => Some(d),
                _ => None,
            })
            .collect();
        assert_eq!(
            s.items.len(),
            5,
            "`in = ...` on its own line is a statement"
        );
        let i = |v: i64| Int::from(v);
        let (v, at) = params[0].tune.clone().unwrap();
        assert_eq!(
            v,
            TuneValues::Range {
                lo: i(128),
                hi: i(512),
                step: i(64)
            }
        );
        assert_eq!(&text[at.clone()], "in 128..512 step 64");
        assert_eq!(
            params[0].span.end, at.end,
            "the declaration ends with its values"
        );
        assert_eq!(
            params[0].default.as_ref().map(|d| &d.0),
            Some(&ParamDefault::Int(i(256)))
        );
        assert_eq!(
            params[1].tune.as_ref().map(|t| &t.0),
            Some(&TuneValues::List(vec![i(4), i(6)]))
        );
        assert_eq!(
            params[1].default.as_ref().map(|d| &d.0),
            Some(&ParamDefault::Model(None))
        );
        assert_eq!(params[2].default, None);
        assert_eq!(
            params[2].tune.as_ref().map(|t| &t.0),
            Some(&TuneValues::Range {
                lo: i(-2),
                hi: i(3),
                step: i(1)
            })
        );
        assert_eq!(params[3].tune, None);
        let e = parse_script("param KC = 4 in 8..4", "t").unwrap_err();
        assert!(e.message.contains("is empty"), "{}", e.message);
        assert_eq!(e.labels[0].range, 16..20);
        let e = parse_script("param KC = 4 in 4..8 step 0", "t").unwrap_err();
        assert!(e.message.contains("must be positive"), "{}", e.message);
        assert_eq!(e.labels[0].range, 26..27);
        assert!(parse_script("param KC = 4 in []", "t").is_err());
        assert!(parse_script("param KC = 4 in 4..", "t").is_err());
    }

    #[test]
    fn paper_syntax() {
        let s = parse_script(
            "# lu\nrealign(Norm, Right, 3); L = lift(Left, 3)\n(A, B) = isplit(L, {[i, j] : j < N/2}, 1)\naffine(L, {[i,j,0] -> [i,j,j]}) // c\ntile(M, [32, 32])\naffine({A, B}, [N] -> { [i] -> [N - i] })\n",
            "s.loopy",
        )
        .unwrap();
        assert_eq!(s.items.len(), 6);
        match &s.items[2] {
            ScriptItem::Stmt(Stmt::Call { targets, call, .. }) => {
                assert_eq!(targets.len(), 2);
                assert_eq!(call.name.text, "isplit");
                assert!(matches!(&call.args[1], Arg::Isl(t, _) if t == "{[i, j] : j < N/2}"));
            }
            x => panic!("{x:?}"),
        }
        match &s.items[5] {
            ScriptItem::Stmt(Stmt::Call { call, .. }) => {
                assert!(matches!(&call.args[0], Arg::Group(g, _) if g.len() == 2));
                assert!(matches!(&call.args[1], Arg::Isl(t, _) if t.starts_with("[N] ->")));
            }
            x => panic!("{x:?}"),
        }
    }

    #[test]
    fn procedures_and_imports() {
        let s = parse_script(
            "import \"ops.loopy\"\ndef swap(l) {\n  affine(l, {[i, j] -> [j, i]})\n}\ndef halves(l, n) { (a, b) = isplit(l, {[i] : i < n}, 0); return (a, b) }\n",
            "s",
        )
        .unwrap();
        assert!(matches!(&s.items[0], ScriptItem::Import { path, .. } if path == "ops.loopy"));
        match &s.items[2] {
            ScriptItem::Def(d) => {
                assert_eq!(d.params.len(), 2);
                assert_eq!(d.body.len(), 2);
                assert!(matches!(&d.body[1], Stmt::Return { values, .. } if values.len() == 2));
            }
            x => panic!("{x:?}"),
        }
    }

    #[test]
    fn syntax_errors_say_what_was_expected() {
        let e = parse_script("realign(A, B 0)", "s").unwrap_err();
        assert!(e.message.contains("expected"), "{}", e.message);
        assert_eq!(e.labels[0].range.start, 13, "{}", e.message);
        let e = parse_script("affine(A, {[i] -> [i]}", "s").unwrap_err();
        assert!(e.message.contains("expected"), "{}", e.message);
        let e = parse_script("def (l) {}", "s").unwrap_err();
        assert!(e.message.contains("name"), "{}", e.message);
    }
}
