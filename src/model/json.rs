//! The layout of the JSON the commands print (`--format json`). Each command's output is a
//! type of its own deriving `Serialize` (the field names are the interface); [`pretty`]
//! writes any of them through serde_json: two-space indentation, keys in declaration order,
//! arrays of scalars on one line (`[0, 1, 0]`), measurements as Rust prints them.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::ser::Formatter;
use serde_json::value::RawValue;
use std::cell::RefCell;
use std::io;
use std::rc::Rc;

/// `value` pretty-printed in loopy's layout: two-space indentation, keys in the order the
/// type declares them, arrays of scalars on one line (`[0, 1, 0]`), measurements as Rust
/// prints them (`0.0000001`, never an exponent; `null` when not finite).
pub fn pretty<T: Serialize + ?Sized>(value: &T) -> String {
    let out = Rc::new(RefCell::new(Vec::new()));
    let layout = Layout {
        out: Rc::clone(&out),
        frames: Vec::new(),
    };
    let mut ser = serde_json::Serializer::with_formatter(Out(Rc::clone(&out)), layout);
    value
        .serialize(&mut ser)
        .expect("writing JSON to memory cannot fail");
    drop(ser);
    let bytes = std::mem::take(&mut *out.borrow_mut());
    String::from_utf8(bytes).expect("serde_json writes UTF-8")
}

/// An integer of the model (a step, a schedule position) for `#[serde(serialize_with)]`:
/// a JSON number, digits and all when it does not fit 64 bits (never rounded).
pub fn int<S: Serializer>(i: &crate::presburger::Int, s: S) -> Result<S::Ok, S::Error> {
    match i.to_i64() {
        Some(v) => s.serialize_i64(v),
        None => raw(i.to_string(), s),
    }
}

/// A list of the model's integers for `#[serde(serialize_with)]`.
pub fn ints<S: Serializer>(v: &[crate::presburger::Int], s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for i in v {
        seq.serialize_element(&Digits(i))?;
    }
    seq.end()
}

struct Digits<'a>(&'a crate::presburger::Int);

impl Serialize for Digits<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        int(self.0, s)
    }
}

/// An object whose keys are data (names of parameters, of handles), in this order.
pub struct Entries<K, V>(pub Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Entries<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Text written as it is (valid JSON built here).
fn raw<S: Serializer>(text: String, s: S) -> Result<S::Ok, S::Error> {
    RawValue::from_string(text)
        .map_err(serde::ser::Error::custom)?
        .serialize(s)
}

/// The text written so far, shared by the writer serde_json writes scalars to and the
/// layout, which may lay an array out again once it turns out not to hold only scalars.
struct Out(Rc<RefCell<Vec<u8>>>);

impl io::Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An open object or array.
enum Frame {
    Object {
        has_value: bool,
    },
    /// An array, on one line while it holds only scalars: `items` are where its elements
    /// begin in the text.
    Array {
        one_line: bool,
        items: Vec<usize>,
    },
}

/// serde_json's pretty layout (two spaces), with arrays of scalars on one line, floats in
/// Rust's shortest round-trip form, and U+007F, U+2028 and U+2029 escaped as well (they are
/// valid in JSON strings but break JavaScript and terminals).
struct Layout {
    out: Rc<RefCell<Vec<u8>>>,
    frames: Vec<Frame>,
}

impl Layout {
    fn put(&self, text: &[u8]) {
        self.out.borrow_mut().extend_from_slice(text);
    }

    fn newline(&self, depth: usize) {
        let mut out = self.out.borrow_mut();
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', 2 * depth));
    }

    /// A container opens: an enclosing array laid out on one line so far goes on lines,
    /// one element each (its elements so far are scalars, whose text does not depend on
    /// the indentation).
    fn open(&mut self) {
        let depth = self.frames.len();
        let Some(Frame::Array { one_line, items }) = self.frames.last_mut() else {
            return;
        };
        if !*one_line {
            return;
        }
        *one_line = false;
        let items = std::mem::take(items);
        let mut out = self.out.borrow_mut();
        let Some(&first) = items.first() else {
            return;
        };
        let tail = out.split_off(first);
        for (k, &at) in items.iter().enumerate() {
            let end = items.get(k + 1).map_or(tail.len() + first, |&n| n - 2);
            out.extend_from_slice(if k == 0 { b"\n" } else { b",\n" });
            out.extend(std::iter::repeat_n(b' ', 2 * depth));
            out.extend_from_slice(&tail[at - first..end - first]);
        }
    }
}

impl Formatter for Layout {
    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, x: f64) -> io::Result<()> {
        write!(w, "{x}")
    }
    fn write_f32<W: ?Sized + io::Write>(&mut self, w: &mut W, x: f32) -> io::Result<()> {
        write!(w, "{x}")
    }
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
    fn begin_array<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.open();
        self.put(b"[");
        self.frames.push(Frame::Array {
            one_line: true,
            items: Vec::new(),
        });
        Ok(())
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        if let Some(Frame::Array {
            one_line: false, ..
        }) = self.frames.pop()
        {
            self.newline(self.frames.len());
        }
        self.put(b"]");
        Ok(())
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        _: &mut W,
        first: bool,
    ) -> io::Result<()> {
        let depth = self.frames.len();
        let len = self.out.borrow().len();
        match self.frames.last_mut() {
            Some(Frame::Array {
                one_line: true,
                items,
            }) => {
                let sep: &[u8] = if first { b"" } else { b", " };
                items.push(len + sep.len());
                self.put(sep);
            }
            _ => {
                if !first {
                    self.put(b",");
                }
                self.newline(depth);
            }
        }
        Ok(())
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        Ok(())
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.open();
        self.put(b"{");
        self.frames.push(Frame::Object { has_value: false });
        Ok(())
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        if let Some(Frame::Object { has_value: true }) = self.frames.pop() {
            self.newline(self.frames.len());
        }
        self.put(b"}");
        Ok(())
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        _: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if !first {
            self.put(b",");
        }
        self.newline(self.frames.len());
        Ok(())
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.put(b": ");
        Ok(())
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        if let Some(Frame::Object { has_value }) = self.frames.last_mut() {
            *has_value = true;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presburger::Int;
    use serde::Serialize;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(
            pretty("a\"b\\c\nd\u{1}e\u{2028}é"),
            r#""a\"b\\c\nd\u0001e\u2028é""#
        );
    }

    #[derive(Serialize)]
    struct Ok {
        ok: bool,
    }

    #[derive(Serialize)]
    struct Empty {}

    #[derive(Serialize)]
    struct Sample {
        name: &'static str,
        positions: Vec<i64>,
        none: Option<i64>,
        list: Vec<Ok>,
        empty: Empty,
    }

    #[test]
    fn pretty_layout() {
        let j = Sample {
            name: "S0",
            positions: vec![0, 1],
            none: None,
            list: vec![Ok { ok: true }],
            empty: Empty {},
        };
        assert_eq!(
            pretty(&j),
            "{\n  \"name\": \"S0\",\n  \"positions\": [0, 1],\n  \"none\": null,\n  \"list\": [\n    {\n      \"ok\": true\n    }\n  ],\n  \"empty\": {}\n}"
        );
    }

    #[derive(Serialize)]
    struct X {
        x: i64,
    }

    #[derive(Serialize)]
    #[serde(untagged)]
    enum Item {
        Nums(Vec<f64>),
        Ints(#[serde(serialize_with = "ints")] Vec<Int>),
        Mixed((&'static str, bool, Option<i64>)),
        Nested(Vec<Vec<i64>>),
        Object(X),
    }

    #[test]
    fn numbers_nesting_and_layout_of_scalar_arrays() {
        let big: Int = "123456789012345678901234567890".parse().unwrap();
        let j = vec![
            Item::Nums(vec![1e-7, f64::NAN, 2.5]),
            Item::Nums(vec![]),
            Item::Ints(vec![big, Int::from(-4)]),
            Item::Mixed(("a\u{7f}b", false, None)),
            Item::Nested(vec![vec![1, 2], vec![]]),
            Item::Object(X { x: -3 }),
        ];
        assert_eq!(
            pretty(&j),
            "[\n  [0.0000001, null, 2.5],\n  [],\n  [123456789012345678901234567890, -4],\n  [\"a\\u007fb\", false, null],\n  [\n    [1, 2],\n    []\n  ],\n  {\n    \"x\": -3\n  }\n]"
        );
        // What serde_json reads back is the same value.
        let back: serde_json::Value = serde_json::from_str(&pretty(&j)).unwrap();
        assert_eq!(back[5]["x"], -3);
        assert_eq!(back[3][0], "a\u{7f}b");
    }

    #[test]
    fn an_array_goes_on_lines_at_its_first_container() {
        #[derive(Serialize)]
        #[serde(untagged)]
        enum Any {
            N(i64),
            S(&'static str),
            O(X),
        }
        let j = vec![
            Any::N(1),
            Any::S("two, three"),
            Any::O(X { x: 4 }),
            Any::N(5),
        ];
        assert_eq!(
            pretty(&j),
            "[\n  1,\n  \"two, three\",\n  {\n    \"x\": 4\n  },\n  5\n]"
        );
    }

    #[test]
    fn entries_keep_their_order() {
        let j = Entries(vec![("b", 1), ("a", 2)]);
        assert_eq!(pretty(&j), "{\n  \"b\": 1,\n  \"a\": 2\n}");
    }
}
