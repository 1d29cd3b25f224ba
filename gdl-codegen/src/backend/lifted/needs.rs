//! What the printed code refers to, recorded while it is printed: the
//! static tables, masks, term builders and fluent tests its bodies read,
//! printed after the functions as tables (see [`super::tables`]). Nothing
//! here is a choice: the tables that are (filters, static joins, value
//! masks, within their budgets) are the plan's ([`super::access`]). The
//! printer reads the relations' names and shapes ([`Relations`]), never
//! the planner's estimates.

use std::collections::BTreeSet;
use std::ops::Deref;
use std::rc::Rc;

use proc_macro2::Ident;
use quote::format_ident;

use super::join_order::Adorn;
use super::relations::Relations;
use super::{mask_name, masks, static_table_name};
use crate::front::symbols::Sym;

/// The record of what the printed code needs.
pub struct Needs {
    rels: Rc<Relations>,
    /// Functor ids whose terms are built at run time.
    pub(super) made: BTreeSet<u32>,
    /// Fluent masks used: by functor id, `None` for every fluent.
    pub(super) masks: BTreeSet<Option<u32>>,
    /// Functors whose fluents' rows (arguments and term, by bit) scans read.
    pub(super) fluent_rows: BTreeSet<u32>,
    /// Functors whose fluents are tested from their arguments (`holds_f`).
    pub(super) held: BTreeSet<u32>,
    /// Functors whose fluents' bits are found from their arguments
    /// (`bit_f`; `holds_f` calls it too).
    pub(super) bits: BTreeSet<u32>,
    /// The relations compiled ground whose atoms are tested.
    pub(super) hybrids: BTreeSet<u32>,
}

impl Deref for Needs {
    type Target = Relations;

    fn deref(&self) -> &Relations {
        &self.rels
    }
}

impl Needs {
    /// An empty record over `rels`.
    pub fn new(rels: Rc<Relations>) -> Needs {
        Needs {
            rels,
            made: BTreeSet::new(),
            masks: BTreeSet::new(),
            fluent_rows: BTreeSet::new(),
            held: BTreeSet::new(),
            bits: BTreeSet::new(),
            hybrids: BTreeSet::new(),
        }
    }

    /// The function that builds terms of functor `f`/`arity` at run time
    /// (`None` when there is none: no term of the universe has it).
    pub fn make_table(&mut self, f: Sym, arity: usize) -> Option<Ident> {
        let fid = self.functor(f, arity)?;
        if !self.in_universe[fid as usize] {
            return None;
        }
        self.made.insert(fid);
        Some(format_ident!("make_{}", fid))
    }

    /// The table of static relation `rel` sorted for lookups on `bound`
    /// (the plan lists it: see [`super::access`]).
    pub fn static_table(&self, rel: u32, bound: Adorn) -> Ident {
        static_table_name(&self.names[rel as usize], bound, self.arity[rel as usize])
    }

    /// The function testing an atom (by number) of relation `rel`, compiled
    /// ground (see [`hybrid`]), on a state.
    pub fn hybrid_test(&mut self, rel: u32) -> Ident {
        self.hybrids.insert(rel);
        format_ident!("holds_{}", self.names[rel as usize])
    }

    /// The function testing a tuple of static relation `rel` (the plan
    /// lists it: see [`super::access`]).
    pub fn static_check(&self, rel: u32) -> Ident {
        format_ident!("in_{}", self.names[rel as usize])
    }

    /// The span of the fluents of functor `fid` whose arguments
    /// `positions` (the plan's, see [`super::access`]) have `values` (see
    /// [`masks`]).
    pub fn value_mask(
        &self,
        fid: u32,
        positions: &[usize],
        values: &[proc_macro2::TokenStream],
    ) -> proc_macro2::TokenStream {
        let domains: Option<Vec<&[u32]>> = (positions.iter())
            .map(|&p| self.fluent_values.get(&(fid, p)).map(Vec::as_slice))
            .collect();
        let indexed = domains.is_some_and(|d| masks::indexed(&d));
        masks::lookup(fid, positions, values, indexed)
    }

    /// The table of functor `fid`'s fluents by bit (`FLUENT_ROWS_f`: per
    /// bit from the functor's first, its arguments and then its term) and
    /// that first bit (`FLUENT_FIRST_f`).
    pub fn fluent_rows(&mut self, fid: u32) -> (Ident, Ident) {
        self.fluent_rows.insert(fid);
        super::fluent_rows_names(fid)
    }

    /// The function testing whether the fluent of functor `fid` with given
    /// arguments holds (`holds_f(state, args..)`): the arguments' ranks
    /// give its bit, without building the term.
    pub fn holds_fn(&mut self, fid: u32) -> Ident {
        self.held.insert(fid);
        format_ident!("holds_{}", fid)
    }

    /// The function giving the state's bit of the fluent of functor `fid`
    /// with given arguments (`bit_f(args..)`, `NONE` if there is none).
    pub fn bit_fn(&mut self, fid: u32) -> Ident {
        self.bits.insert(fid);
        format_ident!("bit_{}", fid)
    }

    /// The mask of the fluents a `true` pattern can match.
    pub fn mask(&mut self, p: &crate::rules::Pat) -> Ident {
        let fid = match p {
            crate::rules::Pat::Func(f, args) => self.functor(*f, args.len()),
            _ => None,
        };
        self.masks.insert(fid);
        mask_name(fid)
    }
}
