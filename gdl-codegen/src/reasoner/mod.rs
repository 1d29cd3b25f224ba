//! Reasoners that run a game without generating code: the tabled
//! interpreter over the lifted rules and the propnet over the ground ones.
//! They are the baselines the compiled code is measured against and the
//! oracles it is tested against.

pub mod interp;
pub mod propnet;
