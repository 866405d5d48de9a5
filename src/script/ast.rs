//! The syntax tree of a `.loopy` script. Every node keeps the byte range it came from so
//! diagnostics can point into the script.

/// A byte range in the script (the one `Span` of the model's state).
pub use crate::model::state::Span;
use crate::presburger::Int;

/// A name with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

/// A whole script file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    pub items: Vec<ScriptItem>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScriptItem {
    /// `import "path.loopy"`: procedures from another file (relative to this one).
    Import {
        path: String,
        span: Span,
    },
    /// `param NAME` or `param NAME = 72`: a script parameter (top level only).
    Param(ParamDecl),
    Def(ProcDef),
    Stmt(Stmt),
}

/// `param MC = 72`: a named integer that `--set MC=96` (or a manifest's `set`) overrides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDecl {
    pub name: Name,
    /// The default value and where it is written; none means the value must be set.
    pub default: Option<(ParamDefault, Span)>,
    /// `in 48..192 step 24` or `in [4, 6, 8]`: the values `loopy tune` tries, and where
    /// they are written.
    pub tune: Option<(TuneValues, Span)>,
    pub span: Span,
}

/// The values of a parameter that `loopy tune` tries (docs/tune.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TuneValues {
    /// `in LO..HI step STEP`: both ends included; `step` 1 when not written.
    Range { lo: Int, hi: Int, step: Int },
    /// `in [A, B, C]`.
    List(Vec<Int>),
}

/// The default of a script parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamDefault {
    /// `param MC = 72`.
    Int(Int),
    /// `param MR = model` (`None`: the parameter's own name) or `param MC = model(float.MC)`:
    /// a value of the machine's block-size model, which the command computes (docs/machine.md).
    Model(Option<Name>),
}

/// `def name(a, b) { ... }`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcDef {
    pub name: Name,
    pub params: Vec<Name>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `op(args)`, `x = op(args)` or `(x, y) = op(args)`.
    Call {
        targets: Vec<Name>,
        call: Call,
        span: Span,
    },
    /// `return x` or `return (x, y)` (procedures only).
    Return { values: Vec<Name>, span: Span },
}

impl Stmt {
    pub fn span(&self) -> Span {
        match self {
            Stmt::Call { span, .. } | Stmt::Return { span, .. } => span.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub name: Name,
    pub args: Vec<Arg>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A handle or a procedure parameter.
    Ident(Name),
    Int(Int, Span),
    /// A set or map in isl notation, as written.
    Isl(String, Span),
    /// `[32, 32, 32]` or `[MC, KC, 8]`: each item an [`Arg::Int`] or an [`Arg::Ident`].
    List(Vec<Arg>, Span),
    /// `{A, B}`: several handles at once.
    Group(Vec<Name>, Span),
    /// A reduction operator: `+`, `*`, `min`, `max`.
    Op(crate::model::state::RedOp, Span),
}

impl Arg {
    pub fn span(&self) -> Span {
        match self {
            Arg::Ident(n) => n.span.clone(),
            Arg::Int(_, s)
            | Arg::Isl(_, s)
            | Arg::List(_, s)
            | Arg::Group(_, s)
            | Arg::Op(_, s) => s.clone(),
        }
    }

    /// What kind of argument this is, for error messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Arg::Ident(_) => "a name",
            Arg::Int(..) => "an integer",
            Arg::Isl(..) => "a set or map",
            Arg::List(..) => "a list of integers",
            Arg::Group(..) => "a group of handles",
            Arg::Op(..) => "a reduction operator",
        }
    }
}
