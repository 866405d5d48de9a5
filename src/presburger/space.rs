//! Names of parameters and dimensions.
//!
//! The arithmetic in [`super::basic`] works on column positions only; a [`Space`] gives those
//! columns their names so that sets can be printed, parsed back, and combined by parameter
//! name (as isl does when two sets mention different parameters).

use std::fmt;

/// A named or anonymous tuple of dimensions, such as `S[i, j]` or `[i, j]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Tuple {
    pub name: Option<String>,
    pub dims: Vec<String>,
}

impl Tuple {
    pub fn new(name: Option<&str>, dims: &[&str]) -> Tuple {
        Tuple {
            name: name.map(str::to_string),
            dims: dims.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// An anonymous tuple of `n` dimensions named `prefix0, prefix1, ...`.
    pub fn anonymous(n: usize, prefix: &str) -> Tuple {
        Tuple {
            name: None,
            dims: (0..n).map(|i| format!("{prefix}{i}")).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.dims.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dims.is_empty()
    }
}

/// The space of a set (`domain == None`) or of a map (`domain -> range`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Space {
    pub params: Vec<String>,
    pub domain: Option<Tuple>,
    pub range: Tuple,
}

impl Space {
    pub fn set(params: &[&str], tuple: Tuple) -> Space {
        Space {
            params: params.iter().map(|s| s.to_string()).collect(),
            domain: None,
            range: tuple,
        }
    }

    pub fn map(params: &[&str], domain: Tuple, range: Tuple) -> Space {
        Space {
            params: params.iter().map(|s| s.to_string()).collect(),
            domain: Some(domain),
            range,
        }
    }

    pub fn is_map(&self) -> bool {
        self.domain.is_some()
    }

    /// Input dimensions of a map (0 for a set).
    pub fn n_in(&self) -> usize {
        self.domain.as_ref().map_or(0, Tuple::len)
    }

    /// Output dimensions of a map, or the dimensions of a set.
    pub fn n_out(&self) -> usize {
        self.range.len()
    }

    /// All dimensions (input then output).
    pub fn n_dim(&self) -> usize {
        self.n_in() + self.n_out()
    }

    pub fn n_param(&self) -> usize {
        self.params.len()
    }

    /// Names of all dimensions in column order.
    pub fn dim_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.domain.iter().flat_map(|t| t.dims.clone()).collect();
        v.extend(self.range.dims.iter().cloned());
        v
    }

    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p == name)
    }

    /// Two spaces agree on their tuple shapes (names of dimensions may differ).
    pub fn same_shape(&self, other: &Space) -> bool {
        let shape = |t: &Tuple| (t.name.clone(), t.len());
        self.domain.as_ref().map(shape) == other.domain.as_ref().map(shape)
            && shape(&self.range) == shape(&other.range)
    }

    /// The parameter list of `self` followed by the parameters of `other` it lacks.
    pub fn merged_params(&self, other: &Space) -> Vec<String> {
        let mut p = self.params.clone();
        for q in &other.params {
            if !p.contains(q) {
                p.push(q.clone());
            }
        }
        p
    }
}

impl fmt::Display for Tuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = &self.name {
            write!(f, "{n}")?;
        }
        write!(f, "[{}]", self.dims.join(", "))
    }
}
