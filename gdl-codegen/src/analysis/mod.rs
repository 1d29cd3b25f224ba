//! Analyses of the checked, non-ground program that every later stage
//! shares: the relation dependency graph ([`deps`]), strongly connected
//! components ([`scc`]) and which relations are dynamic ([`dynamic`]).

pub mod deps;
pub mod dynamic;
pub mod scc;
