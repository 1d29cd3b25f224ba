//! What the printed code needs, recorded while it is printed: the static
//! tables, masks, filters, static joins, term builders and fluent tests its
//! bodies read, printed after the functions as tables (see
//! [`super::tables`]). The printer reads the relations' names and shapes
//! ([`Relations`]), never the planner's estimates.

use std::collections::BTreeSet;
use std::ops::Deref;
use std::rc::Rc;

use proc_macro2::Ident;
use quote::format_ident;
use rustc_hash::FxHashMap;

use super::cost;
use super::join_order::Adorn;
use super::relations::Relations;
use super::{filters, mask_name, masks, prejoin, static_table_name};
use crate::front::symbols::Sym;

/// The record of what the printed code needs.
pub struct Needs {
    rels: Rc<Relations>,
    /// Functor ids whose terms are built at run time.
    pub(super) made: BTreeSet<u32>,
    /// Static tables read, by (relation, bound arguments).
    pub(super) statics: BTreeSet<(u32, Adorn)>,
    /// Static relations whose tuples are tested.
    pub(super) checks: BTreeSet<u32>,
    /// Fluent masks used: by functor id, `None` for every fluent.
    pub(super) masks: BTreeSet<Option<u32>>,
    /// Fluent masks by argument values used: (functor id, arguments), the
    /// arguments as [`Estimates::scan_positions`] orders them.
    pub(super) value_masks: BTreeSet<(u32, Vec<usize>)>,
    /// Filters of scans (see [`filters`]), by number.
    pub(super) filters: Vec<filters::Filter>,
    /// Their numbers.
    pub(super) filter_ids: FxHashMap<filters::Filter, usize>,
    /// The words of their tables, summed.
    pub(super) filter_words: usize,
    /// Functors whose fluents' rows (arguments and term, by bit) scans read.
    pub(super) fluent_rows: BTreeSet<u32>,
    /// Functors whose fluents are tested from their arguments (`holds_f`).
    pub(super) held: BTreeSet<u32>,
    /// Functors whose fluents' bits are found from their arguments
    /// (`bit_f`; `holds_f` calls it too).
    pub(super) bits: BTreeSet<u32>,
    /// The relations compiled ground whose atoms are tested.
    pub(super) hybrids: BTreeSet<u32>,
    /// Static joins of scanned fluents (see [`prejoin`]), by number.
    pub(super) prejoins: Vec<prejoin::Prejoin>,
    /// Their numbers.
    pub(super) prejoin_ids: FxHashMap<prejoin::Prejoin, usize>,
    /// The numbers of their tables, summed.
    pub(super) prejoin_words: usize,
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
            statics: BTreeSet::new(),
            checks: BTreeSet::new(),
            masks: BTreeSet::new(),
            value_masks: BTreeSet::new(),
            filters: Vec::new(),
            filter_ids: FxHashMap::default(),
            filter_words: 0,
            fluent_rows: BTreeSet::new(),
            held: BTreeSet::new(),
            bits: BTreeSet::new(),
            hybrids: BTreeSet::new(),
            prejoins: Vec::new(),
            prejoin_ids: FxHashMap::default(),
            prejoin_words: 0,
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

    /// The table of static relation `rel` sorted for lookups on `bound`.
    pub fn static_table(&mut self, rel: u32, bound: Adorn) -> Ident {
        self.statics.insert((rel, bound));
        static_table_name(&self.names[rel as usize], bound, self.arity[rel as usize])
    }

    /// The function testing an atom (by number) of relation `rel`, compiled
    /// ground (see [`hybrid`]), on a state.
    pub fn hybrid_test(&mut self, rel: u32) -> Ident {
        self.hybrids.insert(rel);
        format_ident!("holds_{}", self.names[rel as usize])
    }

    /// The function testing a tuple of static relation `rel`.
    pub fn static_check(&mut self, rel: u32) -> Ident {
        self.checks.insert(rel);
        format_ident!("in_{}", self.names[rel as usize])
    }

    /// The span of the fluents of functor `fid` whose arguments
    /// `positions` ([`Estimates::scan_positions`] chose them) have `values`
    /// (see [`masks`]).
    pub fn value_mask(
        &mut self,
        fid: u32,
        positions: &[usize],
        values: &[proc_macro2::TokenStream],
    ) -> proc_macro2::TokenStream {
        self.value_masks.insert((fid, positions.to_vec()));
        let ranked = match positions {
            [p] => self
                .fluent_values
                .get(&(fid, *p))
                .is_some_and(|v| masks::ranked(v)),
            _ => false,
        };
        masks::lookup(fid, positions, values, ranked)
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

    /// The function giving the mask of the fluents that pass `filter` for
    /// its keys' values, unless its table would pass the budgets
    /// ([`cost::MAX_FILTER_WORDS`], [`cost::MAX_FILTERS_WORDS`]).
    pub fn filter(&mut self, filter: filters::Filter) -> Option<Ident> {
        if let Some(&k) = self.filter_ids.get(&filter) {
            return Some(filters::name(k));
        }
        let words = self.fluents_per_functor.get(&filter.fid)?.div_ceil(64) + 1;
        let size = filter.rows().saturating_mul(words);
        if size > cost::MAX_FILTER_WORDS || self.filter_words + size > cost::MAX_FILTERS_WORDS {
            return None;
        }
        self.filter_words += size;
        let k = self.filters.len();
        self.filter_ids.insert(filter.clone(), k);
        self.filters.push(filter);
        Some(filters::name(k))
    }

    /// The function giving the rows of `join` for a fluent's bit, unless its
    /// table would pass the budgets ([`cost::MAX_PREJOIN_WORDS`],
    /// [`cost::MAX_PREJOINS_WORDS`]) or its join the compile-time work's.
    pub fn prejoin(&mut self, join: prejoin::Prejoin) -> Option<Ident> {
        if let Some(&k) = self.prejoin_ids.get(&join) {
            return Some(prejoin::name(k));
        }
        let mut work = cost::MAX_JOIN_WORK;
        let mut rows = 0;
        let fluents = self.fluent_args.get(&join.fid)?;
        for args in fluents {
            rows += join.bindings(args, &self.static_tuples, &mut work)?.len();
        }
        // The rows, and where each fluent's start.
        let size = rows * join.columns.len() + fluents.len() + 1;
        if size > cost::MAX_PREJOIN_WORDS || self.prejoin_words + size > cost::MAX_PREJOINS_WORDS {
            return None;
        }
        self.prejoin_words += size;
        let k = self.prejoins.len();
        self.prejoin_ids.insert(join.clone(), k);
        self.prejoins.push(join);
        Some(prejoin::name(k))
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
