//! Analyses of the checked, non-ground program that every later stage
//! shares: the relation dependency graph and its strongly connected
//! components.

pub mod deps;
