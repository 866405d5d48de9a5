//! `loopy explain`: the long explanation of a diagnostic code, or the list of all codes.

use super::Ctx;
use crate::diag::{codes, Diagnostic};
use clap::Args;

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The code, as printed in a report (`L0401`). Without it, every code is listed with its
    /// title.
    pub code: Option<String>,
}

pub fn run(a: ExplainArgs, ctx: &Ctx) -> u8 {
    let Some(id) = a.code else {
        print!("{}", list());
        return 0;
    };
    match codes::lookup(&id) {
        Some(c) => {
            println!("{} ({}): {}", c.id(), c.name(), c.title());
            println!();
            print!("{}", c.explanation());
            0
        }
        None => {
            let well_formed = id.len() == 5
                && id.starts_with(['L', 'l'])
                && id[1..].bytes().all(|b| b.is_ascii_digit());
            let d = Diagnostic::new(codes::UNKNOWN_CODE, format!("no diagnostic code `{id}`"));
            let d = if well_formed {
                d.with_help("`loopy explain` without a code lists every code")
            } else {
                d.with_note("codes are `L` and four digits, as printed in a report: `error[L0401]`")
                    .with_help("`loopy explain` without a code lists every code")
            };
            super::error(ctx, d)
        }
    }
}

/// Every code with its severity and title, by family.
fn list() -> String {
    let family = |id: &str| match &id[1..3] {
        "00" => "internal errors",
        "01" => "C input and its modelling",
        "02" => "script syntax",
        "03" => "script interpretation",
        "04" => "illegal schedules",
        "05" => "code generation",
        "06" => "files, usage, command line, manifests",
        "07" => "compiling, running and timing",
        "09" => "work budget",
        _ => "other",
    };
    let mut out = String::new();
    let mut last = "";
    for c in codes::ALL {
        let f = family(c.id());
        if f != last {
            if !last.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("{}xx  {f}\n", &c.id()[..3]));
            last = f;
        }
        out.push_str(&format!(
            "  {}  {:<7}  {}\n",
            c.id(),
            c.severity().word(),
            c.title()
        ));
    }
    out.push_str("\n`loopy explain CODE` explains one code.\n");
    out
}
