//! The argument form `op(l, k, NAME, …, [limit])` shared by `copy`, `copy_scaled` and
//! `expand`: a loop component, a number of outer loops, names of the kernel's variables
//! (not evaluated: a name is not a handle), and an optional limit on the elements of the
//! buffer or storage.

use super::{Interpreter, OpCtx, Value};
use crate::diag::codes;
use crate::diag::Diagnostic;
use crate::script::ast::{Arg, Name};

/// How an operation of this form names itself in its errors.
pub(super) struct Form<'a> {
    /// The number of arguments without the limit (`l`, `k` and the names).
    pub fixed: usize,
    /// `(l, k, A, [limit])`.
    pub usage: &'a str,
    /// `expected copy(l, k, A)`, the label on a call with the wrong number of arguments.
    pub expected: &'a str,
    /// The operation as the limit's errors name it (`copy` for both copies).
    pub op: &'a str,
    /// What the limit bounds, with its article (`a copy`, `an expansion`).
    pub limited: &'a str,
}

impl Interpreter {
    /// Checks the number of arguments and reads the first two: the component's handle and
    /// `k` (a small non-negative integer; the operation checks its range).
    pub(super) fn loop_args(
        &mut self,
        ctx: &OpCtx,
        form: &Form,
    ) -> Result<(usize, i64), Diagnostic> {
        let call = ctx.call;
        if call.args.len() != form.fixed && call.args.len() != form.fixed + 1 {
            return Err(Diagnostic::new(
                codes::WRONG_ARITY,
                format!(
                    "`{}` takes {} or {} arguments {}, {} given",
                    call.name.text,
                    form.fixed,
                    form.fixed + 1,
                    form.usage,
                    call.args.len()
                ),
            )
            .with_label(ctx.source, call.span.clone(), form.expected));
        }
        let l = (
            self.eval(&call.args[0], ctx.frame, ctx.source)?,
            call.args[0].span(),
        );
        let k = (
            self.eval(&call.args[1], ctx.frame, ctx.source)?,
            call.args[1].span(),
        );
        Ok((self.handle(ctx, &l)?, self.int(ctx, &k)?))
    }

    /// Argument `at` as the name of a variable of the kernel: an identifier, or a procedure's
    /// parameter bound to an array (then the array's name, at the parameter's span).
    /// Anything else is refused with `message` and `label`.
    pub(super) fn name_arg(
        ctx: &OpCtx,
        at: usize,
        message: &str,
        label: &str,
    ) -> Result<Name, Diagnostic> {
        match &ctx.call.args[at] {
            Arg::Ident(n) => Ok(match ctx.frame.get(&n.text) {
                Some(Value::Array(a)) => Name {
                    text: a.clone(),
                    span: n.span.clone(),
                },
                _ => n.clone(),
            }),
            a => Err(
                Diagnostic::new(codes::WRONG_ARGUMENT_TYPE, message).with_label(
                    ctx.source,
                    a.span(),
                    label,
                ),
            ),
        }
    }

    /// The optional limit after the fixed arguments: a positive number of elements, else
    /// `default`.
    pub(super) fn limit_arg(
        &mut self,
        ctx: &OpCtx,
        form: &Form,
        default: u64,
    ) -> Result<u64, Diagnostic> {
        let Some(a) = ctx.call.args.get(form.fixed) else {
            return Ok(default);
        };
        match self.eval(a, ctx.frame, ctx.source)? {
            Value::Int(i) => match i.to_i64().filter(|x| *x >= 1) {
                Some(x) => Ok(x as u64),
                None => Err(Diagnostic::new(
                    codes::INVALID_ARGUMENT,
                    format!(
                        "the limit of {} is a positive number of elements",
                        form.limited
                    ),
                )
                .with_label(ctx.source, a.span(), format!("{i}"))),
            },
            other => Err(Diagnostic::new(
                codes::WRONG_ARGUMENT_TYPE,
                format!(
                    "`{}` expects a number of elements here, found {}",
                    form.op,
                    other.describe()
                ),
            )
            .with_label(ctx.source, a.span(), "not an integer")),
        }
    }
}
