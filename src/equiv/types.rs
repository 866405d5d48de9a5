//! C's arithmetic types, and the typed form of a statement's value: every conversion C
//! makes (the usual arithmetic conversions, the conversion on assignment, casts) written
//! as an explicit `conv T` operation, a cast to the type a value already has dropped, and
//! literals read as values of their type. Two values built by the same typed tree from
//! the same inputs are the same bits (IEEE arithmetic evaluated in the operands' type,
//! `FLT_EVAL_METHOD == 0`, no contraction into fused multiply-adds).

use crate::model::value::Value;

/// An arithmetic type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CType {
    /// An integer type: its rank (`char` 1, `short` 2, `int` 3, `long` 4, `long long` 5)
    /// and signedness.
    Int {
        rank: u8,
        unsigned: bool,
    },
    Float,
    Double,
    LongDouble,
}

impl CType {
    pub const INT: CType = CType::Int {
        rank: 3,
        unsigned: false,
    };

    /// The type of declaration specifiers as written (`const double`, `unsigned long`);
    /// `None` for anything but a builtin arithmetic type (a typedef name, a struct).
    pub fn parse(text: &str) -> Option<CType> {
        let mut longs = 0;
        let (mut unsigned, mut short, mut char_, mut float, mut double, mut int) =
            (false, false, false, false, false, false);
        for w in text.split_whitespace() {
            match w {
                "const" | "volatile" | "restrict" | "__restrict" | "__restrict__" | "register"
                | "static" | "auto" | "signed" | "__signed__" => {}
                "unsigned" => unsigned = true,
                "long" => longs += 1,
                "short" => short = true,
                "char" => char_ = true,
                "int" => int = true,
                "float" => float = true,
                "double" => double = true,
                "_Bool" => char_ = true,
                _ => return None,
            }
        }
        if double {
            return Some(if longs > 0 {
                CType::LongDouble
            } else {
                CType::Double
            });
        }
        if float {
            return Some(CType::Float);
        }
        let rank = if char_ {
            1
        } else if short {
            2
        } else if longs >= 2 {
            5
        } else if longs == 1 {
            4
        } else if int || unsigned {
            3
        } else {
            return None;
        };
        Some(CType::Int { rank, unsigned })
    }

    pub fn is_float(self) -> bool {
        !matches!(self, CType::Int { .. })
    }

    /// The type after integer promotion.
    fn promoted(self) -> CType {
        match self {
            CType::Int { rank, .. } if rank < 3 => CType::INT,
            t => t,
        }
    }

    /// The common type of the usual arithmetic conversions.
    pub fn common(a: CType, b: CType) -> CType {
        let (a, b) = (a.promoted(), b.promoted());
        if a.is_float() || b.is_float() {
            return a.max(b);
        }
        match (a, b) {
            (
                CType::Int {
                    rank: r1,
                    unsigned: u1,
                },
                CType::Int {
                    rank: r2,
                    unsigned: u2,
                },
            ) => {
                let rank = r1.max(r2);
                let unsigned = (r1 == rank && u1) || (r2 == rank && u2);
                CType::Int { rank, unsigned }
            }
            _ => a.max(b),
        }
    }

    pub fn name(self) -> String {
        match self {
            CType::Int { rank, unsigned } => {
                let base = ["char", "char", "short", "int", "long", "long long"][rank as usize];
                if unsigned {
                    format!("unsigned {base}")
                } else {
                    base.to_string()
                }
            }
            CType::Float => "float".into(),
            CType::Double => "double".into(),
            CType::LongDouble => "long double".into(),
        }
    }
}

/// A typed value: leaves are reads (by read slot), literals read as values, and integer
/// names; operations carry their result type in the name where it matters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    Read(usize),
    /// A literal's value and type, normalised (`double 2`, `int 1`).
    Const(String),
    /// An iterator or parameter of the statement (an `int`).
    Name(String),
    Op(String, Vec<Term>),
}

/// The math functions whose result and argument types follow from their name.
const MATH: &[&str] = &[
    "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "fabs", "sin",
    "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "floor", "ceil",
    "round", "trunc", "fmin", "fmax", "fma", "hypot", "erf", "erfc", "fmod",
];

fn math_type(name: &str) -> Option<CType> {
    let name = name.strip_prefix("__builtin_").unwrap_or(name);
    if MATH.contains(&name) {
        return Some(CType::Double);
    }
    if let Some(b) = name.strip_suffix('f') {
        if MATH.contains(&b) {
            return Some(CType::Float);
        }
    }
    if let Some(b) = name.strip_suffix('l') {
        if MATH.contains(&b) {
            return Some(CType::LongDouble);
        }
    }
    None
}

/// A literal's type and value (`1.0` and `1.` are the same double).
fn literal(text: &str) -> Option<(CType, String)> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let is_float = if is_hex {
        lower.contains('p')
    } else {
        lower.contains('.') || lower.contains('e')
    };
    if is_float {
        if is_hex {
            return None;
        }
        let (digits, ty) = if let Some(d) = lower.strip_suffix('f') {
            (d, CType::Float)
        } else if let Some(d) = lower.strip_suffix('l') {
            (d, CType::LongDouble)
        } else {
            (lower.as_str(), CType::Double)
        };
        let v: f64 = digits.parse().ok()?;
        let value = match ty {
            CType::Float => format!("{:e}", v as f32),
            // A long double literal is kept as written: f64 cannot hold its value.
            CType::LongDouble => digits.to_string(),
            _ => format!("{v:e}"),
        };
        return Some((ty, value));
    }
    let digits = lower.trim_end_matches(['u', 'l']);
    let suffix = &lower[digits.len()..];
    let v = if is_hex {
        i128::from_str_radix(&digits[2..], 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i128::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    let longs = suffix.matches('l').count() as u8;
    let unsigned = suffix.contains('u');
    let rank = if longs > 0 || v > i32::MAX as i128 {
        3 + longs.max(1)
    } else {
        3
    };
    Some((CType::Int { rank, unsigned }, v.to_string()))
}

/// Converts `t` (of type `from`) to `to`: nothing when the types agree, a literal of the
/// new type when the value is exactly representable, else `conv T`.
fn convert(t: Term, from: CType, to: CType) -> Term {
    if from == to {
        return t;
    }
    if let Term::Const(c) = &t {
        if let (CType::Int { .. }, Some(v)) = (from, c.split(' ').nth(1)) {
            if let Ok(v) = v.parse::<i64>() {
                let exact = match to {
                    CType::Double => v.unsigned_abs() <= 1 << 53,
                    CType::Float => v.unsigned_abs() <= 1 << 24,
                    _ => false,
                };
                if exact {
                    let value = if to == CType::Float {
                        format!("{:e}", v as f32)
                    } else {
                        format!("{:e}", v as f64)
                    };
                    return Term::Const(format!("{} {value}", to.name()));
                }
            }
        }
    }
    Term::Op(format!("conv {}", to.name()), vec![t])
}

/// The typed term of a value, given the type of each access slot (the reads, and the
/// writes of assignments inside the value); `Err` names what has no known type.
pub fn typed(
    v: &Value,
    read_type: &dyn Fn(usize) -> Option<CType>,
) -> Result<(Term, CType), String> {
    match v {
        Value::Read(k) => {
            let t = read_type(*k).ok_or_else(|| {
                "a read of a variable whose type is not a builtin arithmetic type".to_string()
            })?;
            Ok((Term::Read(*k), t))
        }
        Value::Const(c) => {
            let (t, value) = literal(c).ok_or_else(|| format!("the literal `{c}`"))?;
            Ok((Term::Const(format!("{} {value}", t.name())), t))
        }
        Value::Name(n) => Ok((Term::Name(n.clone()), CType::INT)),
        Value::Assign(w, x) => {
            let to = read_type(*w).ok_or_else(|| {
                "an assignment to a variable whose type is not a builtin arithmetic type"
                    .to_string()
            })?;
            let (t, from) = typed(x, read_type)?;
            Ok((convert(t, from, to), to))
        }
        Value::Op(op, xs) => {
            let mut args = vec![];
            for x in xs {
                args.push(typed(x, read_type)?);
            }
            typed_op(op, args)
        }
    }
}

fn typed_op(op: &str, mut args: Vec<(Term, CType)>) -> Result<(Term, CType), String> {
    let conv_all = |args: Vec<(Term, CType)>, to: CType| -> Vec<Term> {
        args.into_iter().map(|(t, f)| convert(t, f, to)).collect()
    };
    if let Some(ty) = op.strip_prefix("cast ") {
        let to = CType::parse(ty).ok_or_else(|| format!("a cast to `{ty}`"))?;
        let (t, from) = args.pop().ok_or("an empty cast")?;
        return Ok((convert(t, from, to), to));
    }
    if let Some(f) = op.strip_prefix("call ") {
        let ty = math_type(f).ok_or_else(|| format!("a call to `{f}`"))?;
        let name = f.strip_prefix("__builtin_").unwrap_or(f);
        return Ok((Term::Op(format!("call {name}"), conv_all(args, ty)), ty));
    }
    match (op, args.len()) {
        ("neg" | "pos" | "~", 1) => {
            let t = args[0].1.promoted();
            Ok((Term::Op(op.into(), conv_all(args, t)), t))
        }
        ("!", 1) => Ok((Term::Op(op.into(), vec![args.remove(0).0]), CType::INT)),
        ("?:", 3) => {
            let (f, tf) = args.pop().ok_or("?:")?;
            let (t, tt) = args.pop().ok_or("?:")?;
            let (k, _) = args.pop().ok_or("?:")?;
            let c = CType::common(tt, tf);
            Ok((
                Term::Op(op.into(), vec![k, convert(t, tt, c), convert(f, tf, c)]),
                c,
            ))
        }
        ("<<" | ">>", 2) => {
            let t = args[0].1.promoted();
            let (r, tr) = args.pop().ok_or("shift")?;
            let (l, tl) = args.pop().ok_or("shift")?;
            Ok((
                Term::Op(
                    op.into(),
                    vec![convert(l, tl, t), convert(r, tr, tr.promoted())],
                ),
                t,
            ))
        }
        ("&&" | "||", 2) => Ok((
            Term::Op(op.into(), args.into_iter().map(|a| a.0).collect()),
            CType::INT,
        )),
        ("<" | ">" | "<=" | ">=" | "==" | "!=", 2) => {
            let c = CType::common(args[0].1, args[1].1);
            Ok((Term::Op(op.into(), conv_all(args, c)), CType::INT))
        }
        ("+" | "-" | "*" | "/" | "%" | "&" | "|" | "^", 2) => {
            let c = CType::common(args[0].1, args[1].1);
            Ok((Term::Op(format!("{op} {}", c.name()), conv_all(args, c)), c))
        }
        _ => Err(format!("the operation `{op}`")),
    }
}

/// The term a store writes into a location of type `to`.
pub fn stored(
    v: &Value,
    to: CType,
    read_type: &dyn Fn(usize) -> Option<CType>,
) -> Result<Term, String> {
    let (t, from) = typed(v, read_type)?;
    Ok(convert(t, from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_parse_and_combine() {
        assert_eq!(CType::parse("const double"), Some(CType::Double));
        assert_eq!(CType::parse("long double"), Some(CType::LongDouble));
        assert_eq!(CType::parse("DATA_TYPE"), None);
        assert_eq!(CType::common(CType::INT, CType::Float), CType::Float);
        assert_eq!(CType::common(CType::Float, CType::Double), CType::Double);
    }

    #[test]
    fn literals_are_values_of_their_type() {
        assert_eq!(literal("1.0"), literal("1."));
        assert_ne!(literal("0.1"), literal("0.1f"));
        assert_eq!(literal("010").map(|x| x.1), Some("8".into()));
        let int_two = typed(&Value::Const("2".into()), &|_| None).unwrap();
        let two = convert(int_two.0, int_two.1, CType::Double);
        let dbl_two = typed(&Value::Const("2.0".into()), &|_| None).unwrap().0;
        assert_eq!(two, dbl_two);
    }

    #[test]
    fn a_cast_to_the_same_type_is_nothing_and_a_narrowing_store_is_a_conversion() {
        let rt = |_| Some(CType::Double);
        let v = Value::Op("cast double".into(), vec![Value::Read(0)]);
        assert_eq!(typed(&v, &rt).unwrap().0, Term::Read(0));
        let s = stored(&Value::Read(0), CType::Float, &rt).unwrap();
        assert_eq!(s, Term::Op("conv float".into(), vec![Term::Read(0)]));
    }

    #[test]
    fn an_assignment_inside_a_value_is_its_value_converted_to_the_written_type() {
        // `d = f = x` with `x` a double, `f` a float and `d` a double: `d` gets the double
        // of the float that `f` got, not `x`.
        let ty = |k| Some([CType::Double, CType::Float][k]);
        let v = Value::Assign(1, Box::new(Value::Read(0)));
        let conv = Term::Op("conv float".into(), vec![Term::Read(0)]);
        assert_eq!(
            stored(&v, CType::Double, &ty).unwrap(),
            Term::Op("conv double".into(), vec![conv])
        );
        // `c1 = c2 = 1` with floats: both are the float 1.
        let ty = |_| Some(CType::Float);
        let one = Value::Assign(0, Box::new(Value::Const("1".into())));
        let direct = stored(&Value::Const("1".into()), CType::Float, &ty).unwrap();
        assert_eq!(stored(&one, CType::Float, &ty).unwrap(), direct);
    }
}
