//! Exact integers: machine words on the fast path, big integers when a result would overflow.
//!
//! Every polyhedral computation in loopy runs on [`Int`]. Fourier–Motzkin and the Omega test
//! multiply coefficients together, so an `i64` can overflow on perfectly ordinary inputs; an
//! overflow here would silently turn a legal schedule into an illegal one (or worse, the
//! reverse). `Int` therefore checks every operation and promotes to [`BigInt`] instead of
//! wrapping, and demotes back as soon as a value fits again.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// An exact integer.
#[derive(Clone)]
pub enum Int {
    Small(i64),
    Big(Box<BigInt>),
}

impl Int {
    pub const ZERO: Int = Int::Small(0);
    pub const ONE: Int = Int::Small(1);

    fn from_big(b: BigInt) -> Int {
        match b.to_i64() {
            Some(v) => Int::Small(v),
            None => Int::Big(Box::new(b)),
        }
    }

    fn to_big(&self) -> BigInt {
        match self {
            Int::Small(v) => BigInt::from(*v),
            Int::Big(b) => (**b).clone(),
        }
    }

    /// The value as an `i64`, if it fits.
    pub fn to_i64(&self) -> Option<i64> {
        match self {
            Int::Small(v) => Some(*v),
            Int::Big(_) => None,
        }
    }

    pub fn is_zero(&self) -> bool {
        matches!(self, Int::Small(0))
    }

    pub fn is_one(&self) -> bool {
        matches!(self, Int::Small(1))
    }

    pub fn is_positive(&self) -> bool {
        match self {
            Int::Small(v) => *v > 0,
            Int::Big(b) => b.is_positive(),
        }
    }

    pub fn is_negative(&self) -> bool {
        match self {
            Int::Small(v) => *v < 0,
            Int::Big(b) => b.is_negative(),
        }
    }

    pub fn signum(&self) -> i32 {
        if self.is_positive() {
            1
        } else if self.is_negative() {
            -1
        } else {
            0
        }
    }

    pub fn abs(&self) -> Int {
        if self.is_negative() {
            -self
        } else {
            self.clone()
        }
    }

    /// Greatest common divisor, always non-negative; `gcd(0, 0) = 0`.
    pub fn gcd(&self, other: &Int) -> Int {
        match (self, other) {
            (Int::Small(a), Int::Small(b)) => {
                let a = a.unsigned_abs().gcd(&b.unsigned_abs());
                if a <= i64::MAX as u64 {
                    Int::Small(a as i64)
                } else {
                    Int::from_big(BigInt::from(a))
                }
            }
            _ => Int::from_big(self.to_big().gcd(&other.to_big())),
        }
    }

    /// Least common multiple, non-negative.
    pub fn lcm(&self, other: &Int) -> Int {
        if self.is_zero() || other.is_zero() {
            return Int::ZERO;
        }
        let g = self.gcd(other);
        self.abs().div_floor(&g) * other.abs()
    }

    /// Floor division (rounds toward negative infinity). Panics on a zero divisor.
    pub fn div_floor(&self, d: &Int) -> Int {
        assert!(!d.is_zero(), "division by zero");
        match (self, d) {
            (Int::Small(a), Int::Small(b)) => match a.checked_div_euclid(*b) {
                Some(_) => Int::Small(Integer::div_floor(a, b)),
                None => Int::from_big(Integer::div_floor(&self.to_big(), &d.to_big())),
            },
            _ => Int::from_big(Integer::div_floor(&self.to_big(), &d.to_big())),
        }
    }

    /// Ceiling division. Panics on a zero divisor.
    pub fn div_ceil(&self, d: &Int) -> Int {
        -(-self).div_floor(d)
    }

    /// Exact division; the caller knows `d` divides `self`.
    pub fn div_exact(&self, d: &Int) -> Int {
        debug_assert!(self.mod_floor(d).is_zero());
        self.div_floor(d)
    }

    /// Remainder of floor division: has the sign of `d` (so `mod_floor(-1, 32) = 31`).
    pub fn mod_floor(&self, d: &Int) -> Int {
        if let (Int::Small(a), Int::Small(b)) = (self, d) {
            // `checked_rem_euclid` fails only for a zero divisor and `MIN % -1`.
            if a.checked_rem_euclid(*b).is_some() {
                return Int::Small(Integer::mod_floor(a, b));
            }
        }
        self - &(&self.div_floor(d) * d)
    }

    /// Raises `self` to a small power.
    pub fn pow(&self, e: u32) -> Int {
        let mut r = Int::ONE;
        for _ in 0..e {
            r = &r * self;
        }
        r
    }
}

impl Default for Int {
    fn default() -> Int {
        Int::ZERO
    }
}

impl From<i64> for Int {
    fn from(v: i64) -> Int {
        Int::Small(v)
    }
}

impl From<i32> for Int {
    fn from(v: i32) -> Int {
        Int::Small(v as i64)
    }
}

impl From<BigInt> for Int {
    fn from(v: BigInt) -> Int {
        Int::from_big(v)
    }
}

impl std::str::FromStr for Int {
    type Err = num_bigint::ParseBigIntError;
    fn from_str(s: &str) -> Result<Int, Self::Err> {
        Ok(Int::from_big(s.parse::<BigInt>()?))
    }
}

impl PartialEq for Int {
    #[inline]
    fn eq(&self, other: &Int) -> bool {
        match (self, other) {
            (Int::Small(a), Int::Small(b)) => a == b,
            // Values are always normalised: a Big never fits in i64.
            (Int::Big(a), Int::Big(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Int {}

impl std::hash::Hash for Int {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Int::Small(v) => v.hash(state),
            Int::Big(b) => b.hash(state),
        }
    }
}

impl PartialOrd for Int {
    #[inline]
    fn partial_cmp(&self, other: &Int) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Int {
    #[inline]
    fn cmp(&self, other: &Int) -> Ordering {
        match (self, other) {
            (Int::Small(a), Int::Small(b)) => a.cmp(b),
            _ => cmp_big(self, other),
        }
    }
}

#[cold]
fn cmp_big(a: &Int, b: &Int) -> Ordering {
    a.to_big().cmp(&b.to_big())
}

impl PartialEq<i64> for Int {
    fn eq(&self, other: &i64) -> bool {
        matches!(self, Int::Small(v) if v == other)
    }
}

impl PartialOrd<i64> for Int {
    fn partial_cmp(&self, other: &i64) -> Option<Ordering> {
        Some(match self {
            Int::Small(v) => v.cmp(other),
            Int::Big(b) => {
                if b.is_negative() {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
        })
    }
}

macro_rules! binop {
    ($trait:ident, $method:ident, $checked:ident, $op:tt) => {
        impl $trait<&Int> for &Int {
            type Output = Int;
            fn $method(self, rhs: &Int) -> Int {
                if let (Int::Small(a), Int::Small(b)) = (self, rhs) {
                    if let Some(v) = a.$checked(*b) {
                        return Int::Small(v);
                    }
                }
                Int::from_big(self.to_big() $op rhs.to_big())
            }
        }
        impl $trait<Int> for Int {
            type Output = Int;
            fn $method(self, rhs: Int) -> Int {
                (&self).$method(&rhs)
            }
        }
        impl $trait<&Int> for Int {
            type Output = Int;
            fn $method(self, rhs: &Int) -> Int {
                (&self).$method(rhs)
            }
        }
        impl $trait<Int> for &Int {
            type Output = Int;
            fn $method(self, rhs: Int) -> Int {
                self.$method(&rhs)
            }
        }
    };
}

binop!(Add, add, checked_add, +);
binop!(Sub, sub, checked_sub, -);
binop!(Mul, mul, checked_mul, *);

impl AddAssign<&Int> for Int {
    fn add_assign(&mut self, rhs: &Int) {
        *self = &*self + rhs;
    }
}

impl SubAssign<&Int> for Int {
    fn sub_assign(&mut self, rhs: &Int) {
        *self = &*self - rhs;
    }
}

impl Neg for &Int {
    type Output = Int;
    fn neg(self) -> Int {
        match self {
            Int::Small(v) => match v.checked_neg() {
                Some(n) => Int::Small(n),
                None => Int::from_big(-BigInt::from(*v)),
            },
            Int::Big(b) => Int::from_big(-(**b).clone()),
        }
    }
}

impl Neg for Int {
    type Output = Int;
    fn neg(self) -> Int {
        -&self
    }
}

impl Zero for Int {
    fn zero() -> Int {
        Int::ZERO
    }
    fn is_zero(&self) -> bool {
        Int::is_zero(self)
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int::Small(v) => write!(f, "{v}"),
            Int::Big(b) => write!(f, "{b}"),
        }
    }
}

impl fmt::Debug for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `gcd` of a slice, non-negative (0 for an all-zero slice).
pub fn gcd_all<'a>(xs: impl IntoIterator<Item = &'a Int>) -> Int {
    let mut g = Int::ZERO;
    for x in xs {
        if !x.is_zero() {
            g = g.gcd(x);
            if g.is_one() {
                break;
            }
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_promotes_instead_of_wrapping() {
        let big = Int::from(i64::MAX);
        let sum = &big + &Int::ONE;
        assert!(matches!(sum, Int::Big(_)));
        assert_eq!(sum.to_string(), "9223372036854775808");
        // and demotes again when the value fits
        let back = &sum - &Int::ONE;
        assert_eq!(back, Int::from(i64::MAX));
        let prod = &big * &big;
        assert_eq!(prod.div_floor(&big), big);
        assert_eq!(-Int::from(i64::MIN), &Int::from(i64::MAX) + &Int::ONE);
    }

    #[test]
    fn floor_division_rounds_down() {
        let d = Int::from(32);
        assert_eq!(Int::from(-1).div_floor(&d), Int::from(-1));
        assert_eq!(Int::from(-1).mod_floor(&d), Int::from(31));
        assert_eq!(Int::from(-33).div_ceil(&d), Int::from(-1));
        assert_eq!(Int::from(33).div_ceil(&d), Int::from(2));
        assert_eq!(
            Int::from(i64::MIN).div_floor(&Int::from(-1)),
            -Int::from(i64::MIN)
        );
    }

    #[test]
    fn gcd_and_lcm() {
        assert_eq!(Int::from(-12).gcd(&Int::from(18)), Int::from(6));
        assert_eq!(Int::from(4).lcm(&Int::from(-6)), Int::from(12));
        assert_eq!(gcd_all(&[Int::from(0), Int::from(0)]), Int::ZERO);
    }
}
