//! Analyses of the checked, non-ground program that every later stage
//! shares: which relations are dynamic ([`dynamic`]). The relation
//! dependency graph the checker builds is the front end's
//! ([`crate::front::deps`]); strongly connected components are
//! [`crate::scc`]'s.

pub mod dynamic;
