//! The JSON the commands print (`--format json`): a small value type in loopy's layout,
//! written through serde_json. The layout: two-space indentation, keys in insertion order,
//! arrays of scalars on one line (`[0, 1, 0]`), measurements as Rust prints them.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::ser::{Formatter, PrettyFormatter};
use serde_json::value::RawValue;
use std::io;

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
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            Layout(PrettyFormatter::with_indent(b"  ")),
        );
        self.serialize(&mut ser)
            .expect("writing JSON to memory cannot fail");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// A `serde_json` value in this layout (objects keep their order: serde_json is built
    /// with `preserve_order`).
    pub fn from_value(v: &serde_json::Value) -> Json {
        use serde_json::Value;
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => Json::Int(i128::from(i)),
                (_, Some(u), _) => Json::Int(i128::from(u)),
                (_, _, Some(f)) => Json::Num(f),
                _ => Json::Null,
            },
            Value::String(s) => Json::Str(s.clone()),
            Value::Array(a) => Json::Array(a.iter().map(Json::from_value).collect()),
            Value::Object(m) => Json::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), Json::from_value(v)))
                    .collect(),
            ),
        }
    }

    fn is_scalar(&self) -> bool {
        !matches!(self, Json::Array(_) | Json::Object(_))
    }
}

/// Text written as it is (valid JSON built here).
fn raw<S: Serializer>(text: String, s: S) -> Result<S::Ok, S::Error> {
    RawValue::from_string(text)
        .map_err(serde::ser::Error::custom)?
        .serialize(s)
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Int(i) => s.serialize_i128(*i),
            Json::BigInt(digits) => raw(digits.clone(), s),
            // Rust's shortest round-trip form, never an exponent (`0.0000001`, not `1e-7`).
            Json::Num(x) if x.is_finite() => raw(format!("{x}"), s),
            Json::Num(_) => s.serialize_unit(),
            Json::Str(t) => s.serialize_str(t),
            Json::Array(v) if v.iter().all(Json::is_scalar) => {
                // One line: each scalar in the same layout, joined by ", ".
                let items: Vec<String> = v.iter().map(Json::pretty).collect();
                raw(format!("[{}]", items.join(", ")), s)
            }
            Json::Array(v) => {
                let mut seq = s.serialize_seq(Some(v.len()))?;
                for x in v {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            Json::Object(v) => {
                let mut map = s.serialize_map(Some(v.len()))?;
                for (k, x) in v {
                    map.serialize_entry(k, x)?;
                }
                map.end()
            }
        }
    }
}

/// serde_json's pretty layout, with U+007F, U+2028 and U+2029 escaped as well (they are
/// valid in JSON strings but break JavaScript and terminals).
struct Layout<'a>(PrettyFormatter<'a>);

impl Formatter for Layout<'_> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (k, c) in fragment.char_indices() {
            if matches!(c, '\u{7f}' | '\u{2028}' | '\u{2029}') {
                w.write_all(&fragment.as_bytes()[start..k])?;
                write!(w, "\\u{:04x}", c as u32)?;
                start = k + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[start..])
    }
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// A JSON string literal: quotes, backslashes and control characters escaped (RFC 8259),
/// and U+007F, U+2028, U+2029.
pub fn escape(s: &str, out: &mut String) {
    out.push_str(&Json::str(s).pretty());
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

    #[test]
    fn numbers_nesting_and_layout_of_scalar_arrays() {
        let j = Json::Array(vec![
            Json::Array(vec![Json::Num(1e-7), Json::Num(f64::NAN), Json::Num(2.5)]),
            Json::Array(vec![]),
            Json::Array(vec![Json::BigInt("123456789012345678901234567890".into())]),
            Json::Array(vec![Json::str("a\u{7f}b"), Json::Bool(false), Json::Null]),
            Json::Object(vec![("x".into(), Json::Int(-3))]),
        ]);
        assert_eq!(
            j.pretty(),
            "[\n  [0.0000001, null, 2.5],\n  [],\n  [123456789012345678901234567890],\n  [\"a\\u007fb\", false, null],\n  {\n    \"x\": -3\n  }\n]"
        );
        // What serde_json reads back is the same value.
        let back: serde_json::Value = serde_json::from_str(&j.pretty()).unwrap();
        assert_eq!(back[4]["x"], -3);
        assert_eq!(back[3][0], "a\u{7f}b");
    }
}
