//! The grounder: from a checked program to an explicit ground program
//! ([`GroundProgram`]) whose inputs are the fluents and moves and whose
//! outputs are `legal`, `next`, `terminal` and `goal`.
//!
//! Phases (each timed in [`GroundStats`]):
//! 1. [`domains`]: static relations evaluated once, and the reachable
//!    fluents and moves by the one-step relaxed fixpoint ([`fixpoint`]
//!    evaluates it bottom-up, semi-naively, over the relations and hash
//!    indexes of [`db`], joining by the [`plan`]s that [`exec`] runs);
//! 2. [`instantiate`]: every dynamic rule over the domains, static literals
//!    decided and dropped;
//! 3. [`simplify`]: constants, duplicates, aliases, dead atoms; then a
//!    topological order with cyclic components flagged.
//!
//! A [`Budget`] bounds the work; exceeding it is a [`GroundError`] that
//! names the relation that blew up.

pub mod budget;
pub mod db;
pub mod domains;
pub mod exec;
pub mod fixpoint;
pub mod instantiate;
pub mod join_plan;
pub mod program;
pub mod simplify;

use std::time::Instant;

pub use budget::{Budget, GroundError, Limit};
pub use program::{AtomId, Component, GroundProgram, GroundRule, GroundStats, Lit, Output};

use crate::front::ir::{Keyword, Program};
use crate::front::symbols::Sym;
use crate::rules::terms::Names;

/// Grounds a valid program within `budget`.
pub fn ground(program: &Program, budget: &Budget) -> Result<GroundProgram, GroundError> {
    let t0 = Instant::now();
    let mut dom = crate::stages::stage(crate::stages::Stage::Fixpoint, || {
        domains::compute(program, budget)
    })?;
    let t1 = Instant::now();
    let raw = instantiate::instantiate(program, &mut dom, budget)?;
    let t2 = Instant::now();
    let mut stats = GroundStats {
        domain_atoms: dom.db.total_tuples,
        instances: raw.instances,
        raw_derived: raw.derived.len(),
        ..GroundStats::default()
    };
    let mut sizes: Vec<(String, usize)> = dom
        .db
        .rels
        .iter()
        .zip(&dom.db.rel_names)
        .map(|(r, name)| (name.clone(), r.tuples.len()))
        .collect();
    sizes.sort_by_key(|s| std::cmp::Reverse(s.1));
    sizes.truncate(5);
    stats.largest_relations = sizes;
    // The file's own base/input, as a check on the computed sets.
    let db = &dom.db;
    // For a keyword the file defines: its number of facts, and how many
    // computed atoms of `computed` it lacks.
    let compare = |kw: Keyword, computed: usize| {
        let p = program.keyword_pred(kw)?.0 as usize;
        let file = &db.rels[p];
        if file.tuples.is_empty() {
            return None;
        }
        let missing = db.rels[computed]
            .tuples
            .iter()
            .filter(|&&a| {
                !db.lookup_atom(p, db.terms.args(a))
                    .is_some_and(|x| db.contains(x))
            })
            .count();
        Some((file.tuples.len(), missing))
    };
    if let Some((n, missing)) = compare(Keyword::Base, dom.base_rel) {
        stats.file_base = Some(n);
        stats.base_not_in_file = missing;
    }
    if let Some((n, missing)) = compare(Keyword::Input, dom.input_rel) {
        stats.file_input = Some(n);
        stats.input_not_in_file = missing;
    }
    let text = |t: u32| db.terms.text(program, t);
    let mut gp = simplify::simplify(raw, &text);
    let t3 = Instant::now();
    stats.domains_time = t1 - t0;
    stats.instantiate_time = t2 - t1;
    stats.simplify_time = t3 - t2;
    gp.stats = stats;
    gp.case_sensitive = program.symbols.is_case_sensitive();
    Ok(gp)
}

/// Atoms print with the program's relation names; the grounder's own
/// relations (`base` and `input` as computed) lie past the program's.
impl Names for Program {
    fn symbol(&self, sym: Sym) -> &str {
        self.symbols.name(sym)
    }

    fn relation(&self, rel: u32) -> (&str, bool) {
        match self.preds.get(rel as usize) {
            Some(info) => (self.symbols.name(info.name), info.parens),
            None if rel as usize == self.preds.len() => ("base", true),
            None => ("input", true),
        }
    }
}
