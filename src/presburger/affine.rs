//! The one printer of affine expressions (coefficients × names + constant), for isl's
//! notation and for C alike.

use super::int::Int;
use std::fmt::Write;

/// How a coefficient other than ±1 meets its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Times {
    /// isl's notation: `2i`, and `2*floor((i)/4)` before a floor (a name `floor(…`).
    Isl,
    /// `2*i`.
    Star,
    /// `2 * i`.
    SpacedStar,
}

/// `c1·x1 + c2·x2 + … + constant`, terms in the order given: zero coefficients left out,
/// `±1` written as the sign alone, the constant last and only when it is not zero (alone,
/// `0` included, when no term is left): `2*i - n + 1`, `-j`, `0`.
pub fn fmt_affine<'a, N: AsRef<str>>(
    terms: impl IntoIterator<Item = (&'a Int, N)>,
    constant: &Int,
    times: Times,
) -> String {
    let mut s = String::new();
    for (c, name) in terms {
        if c.is_zero() {
            continue;
        }
        let name = name.as_ref();
        let neg = c.is_negative();
        let a = c.abs();
        if s.is_empty() {
            if neg {
                s.push('-');
            }
        } else {
            s.push_str(if neg { " - " } else { " + " });
        }
        if !a.is_one() {
            let _ = match times {
                Times::Isl if !name.starts_with("floor(") => write!(s, "{a}"),
                Times::Isl | Times::Star => write!(s, "{a}*"),
                Times::SpacedStar => write!(s, "{a} * "),
            };
        }
        s.push_str(name);
    }
    if s.is_empty() {
        return constant.to_string();
    }
    if constant.is_positive() {
        let _ = write!(s, " + {constant}");
    } else if constant.is_negative() {
        let _ = write!(s, " - {}", constant.abs());
    }
    s
}

/// [`fmt_affine`] of a row `r · (1, columns)`: `r[0]` is the constant and `name(k)` names
/// column `k ≥ 1`, asked only for columns with a coefficient.
pub fn fmt_row(r: &[Int], name: impl Fn(usize) -> String, times: Times) -> String {
    let terms = (r.iter().enumerate().skip(1))
        .filter(|(_, c)| !c.is_zero())
        .map(|(k, c)| (c, name(k)));
    fmt_affine(terms, &r[0], times)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(c: i64, x: &str) -> (Int, String) {
        (Int::from(c), x.to_string())
    }

    fn show(terms: &[(Int, String)], c: i64, times: Times) -> String {
        fmt_affine(terms.iter().map(|(c, x)| (c, x)), &Int::from(c), times)
    }

    #[test]
    fn linear_forms() {
        let star = Times::Star;
        assert_eq!(show(&[t(1, "i"), t(2, "j")], -1, star), "i + 2*j - 1");
        assert_eq!(show(&[t(0, "i"), t(-1, "j")], 0, star), "-j");
        assert_eq!(show(&[t(0, "i")], 0, star), "0");
        assert_eq!(show(&[], -3, star), "-3");
        assert_eq!(show(&[t(-2, "i")], 5, star), "-2*i + 5");
    }

    #[test]
    fn the_styles_differ_only_in_products() {
        let terms = [t(2, "i"), t(-3, "floor((j)/4)"), t(1, "N")];
        assert_eq!(show(&terms, 1, Times::Isl), "2i - 3*floor((j)/4) + N + 1");
        assert_eq!(show(&terms, 1, Times::Star), "2*i - 3*floor((j)/4) + N + 1");
        assert_eq!(
            show(&terms, 1, Times::SpacedStar),
            "2 * i - 3 * floor((j)/4) + N + 1"
        );
    }

    #[test]
    fn rows_name_only_their_columns() {
        let r: Vec<Int> = [4, 0, -1, 2].into_iter().map(Int::from).collect();
        let name = |k: usize| {
            assert_ne!(k, 1, "column 1 has no coefficient");
            ["", "a", "b", "c"][k].to_string()
        };
        assert_eq!(fmt_row(&r, name, Times::SpacedStar), "-b + 2 * c + 4");
    }
}
