//! Searching the space of legal schedules (the convexity paper): `space` builds, with the
//! Farkas lemma, the polyhedron of one-dimensional affine schedule coefficients that keep the
//! dependences satisfied, level by level, with permutability and the distance bound of §4.1.
//!
//! Uses `presburger` and `verify`; no earlier stage imports it.

pub mod beam;
#[cfg(test)]
mod beam_tests;
pub mod blocks;
pub mod cost;
#[cfg(test)]
mod cost_tests;
pub mod driver;
pub mod finish;
pub mod fuse;
pub mod fusion;
#[cfg(test)]
mod fusion_tests;
pub mod hoist;
pub mod jam;
pub mod own;
#[cfg(test)]
mod playoff_tests;
pub mod recipe;
pub mod rows;
pub mod schedule;
pub mod script;
pub mod space;
#[cfg(test)]
mod space_tests;
pub mod split;
pub mod traffic;
#[cfg(test)]
mod traffic_tests;
pub mod trijam;

pub use space::Legal;
