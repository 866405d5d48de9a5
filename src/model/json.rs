//! A minimal JSON value and writer (the project has no serde; models are small).

use std::fmt::Write;

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// Integers only: everything the model prints is a count, a line or a position.
    Int(i128),
    /// Big integers that do not fit are written as strings of digits, never rounded.
    BigInt(String),
    /// A measurement (a time, a ratio); written as `null` when not finite.
    Num(f64),
    Str(String),
    Array(Vec<Json>),
    /// Keys keep their insertion order.
    Object(Vec<(String, Json)>),
}

impl Json {
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    pub fn opt_str(s: Option<&str>) -> Json {
        s.map_or(Json::Null, Json::str)
    }

    pub fn obj(fields: Vec<(&str, Json)>) -> Json {
        Json::Object(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// Pretty-printed with two-space indentation; arrays of scalars stay on one line.
    pub fn pretty(&self) -> String {
        let mut s = String::new();
        self.write(&mut s, 0);
        s
    }

    fn is_scalar(&self) -> bool {
        !matches!(self, Json::Array(_) | Json::Object(_))
    }

    fn write(&self, out: &mut String, indent: usize) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Json::BigInt(s) => out.push_str(s),
            Json::Num(x) if x.is_finite() => {
                let _ = write!(out, "{x}");
            }
            Json::Num(_) => out.push_str("null"),
            Json::Str(s) => escape(s, out),
            Json::Array(v) if v.is_empty() => out.push_str("[]"),
            Json::Array(v) if v.iter().all(Json::is_scalar) => {
                out.push('[');
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    x.write(out, indent);
                }
                out.push(']');
            }
            Json::Array(v) => {
                out.push_str("[\n");
                for (i, x) in v.iter().enumerate() {
                    pad(out, indent + 1);
                    x.write(out, indent + 1);
                    if i + 1 < v.len() {
                        out.push(',');
                    }
                    out.push('\n');
                }
                pad(out, indent);
                out.push(']');
            }
            Json::Object(v) if v.is_empty() => out.push_str("{}"),
            Json::Object(v) => {
                out.push_str("{\n");
                for (i, (k, x)) in v.iter().enumerate() {
                    pad(out, indent + 1);
                    escape(k, out);
                    out.push_str(": ");
                    x.write(out, indent + 1);
                    if i + 1 < v.len() {
                        out.push(',');
                    }
                    out.push('\n');
                }
                pad(out, indent);
                out.push('}');
            }
        }
    }
}

fn pad(out: &mut String, indent: usize) {
    for _ in 0..indent {
        out.push_str("  ");
    }
}

/// A JSON string literal: quotes, backslashes and control characters escaped (RFC 8259).
pub fn escape(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        let mut s = String::new();
        escape("a\"b\\c\nd\u{1}e\u{2028}é", &mut s);
        assert_eq!(s, r#""a\"b\\c\nd\u0001e\u2028é""#);
    }

    #[test]
    fn pretty_layout() {
        let j = Json::obj(vec![
            ("name", Json::str("S0")),
            ("positions", Json::Array(vec![Json::Int(0), Json::Int(1)])),
            ("none", Json::Null),
            (
                "list",
                Json::Array(vec![Json::obj(vec![("ok", Json::Bool(true))])]),
            ),
            ("empty", Json::Object(vec![])),
        ]);
        assert_eq!(
            j.pretty(),
            "{\n  \"name\": \"S0\",\n  \"positions\": [0, 1],\n  \"none\": null,\n  \"list\": [\n    {\n      \"ok\": true\n    }\n  ],\n  \"empty\": {}\n}"
        );
    }
}
