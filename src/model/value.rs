//! The value a statement stores: its expression as a tree over its reads, for checking
//! that two programs compute the same values (`crate::equiv`).

/// An expression of a statement's right-hand side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// The value read by the statement's access number `k` (an index into
    /// [`super::Statement::accesses`], a read).
    Read(usize),
    /// A literal as written after preprocessing (`2.0`, `1`, `0.5f`).
    Const(String),
    /// An iterator (its model name) or a parameter used as an integer value.
    Name(String),
    /// An operator applied to its operands in order: `+`, `-`, `*`, `/`, `%`, `neg`, `<`,
    /// `?:`, `call NAME`, `cast TYPE`, …
    Op(String, Vec<Value>),
    /// The value of an assignment inside an expression (`a5 = k` in `a1 = a5 = k;`): the
    /// value is stored through the statement's access number `w` (a write), and, as an
    /// expression, is that value converted to the written location's type.
    Assign(usize, Box<Value>),
}

/// What an assignment statement does: it stores `value` through its write access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Store {
    /// The index of the write in [`super::Statement::accesses`].
    pub write: usize,
    pub value: Value,
}

impl Value {
    /// The reads the value uses, in order.
    pub fn reads(&self, out: &mut Vec<usize>) {
        match self {
            Value::Read(k) => out.push(*k),
            Value::Const(_) | Value::Name(_) => {}
            Value::Op(_, xs) => xs.iter().for_each(|x| x.reads(out)),
            Value::Assign(_, x) => x.reads(out),
        }
    }

    /// The assignments inside the value (write access, value stored), innermost first:
    /// the order in which their values are computed.
    pub fn assigns<'v>(&'v self, out: &mut Vec<(usize, &'v Value)>) {
        match self {
            Value::Read(_) | Value::Const(_) | Value::Name(_) => {}
            Value::Op(_, xs) => xs.iter().for_each(|x| x.assigns(out)),
            Value::Assign(w, x) => {
                x.assigns(out);
                out.push((*w, x));
            }
        }
    }
}
