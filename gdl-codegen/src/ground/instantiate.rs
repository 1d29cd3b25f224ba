//! Instantiation: every rule with a dynamic head, over the domains, becomes
//! ground rules over numbered atoms.
//!
//! A rule's instances are the solutions of its relaxed body (the same join
//! as in the fixpoint, over the final relations). Static literals have been
//! decided by the join and vanish; `distinct` likewise. What stays are the
//! literals on dynamic relations: `true` becomes a fluent input, `does` a
//! move input, others derived atoms. A negative literal on an atom outside
//! its relation's domain can never be false, so it is dropped. Variables
//! that only occur in static literals are projected away: the join stops at
//! the first witness once every variable of the head and of the kept
//! literals is bound.

use rustc_hash::FxHashMap;

use super::budget::{Budget, GroundError};
use super::db::{Db, NONE};
use super::domains::{Domains, RuleInfo};
use super::program::{Lit, Output};
use crate::front::ir::{Keyword, Program};

/// A ground program before simplification: atoms numbered inputs first
/// (fluents, then moves role by role), then derived atoms in order of
/// discovery; rules as flat arrays.
#[derive(Debug, Default)]
pub struct Raw {
    /// Role names.
    pub roles: Vec<String>,
    /// Fluent texts, sorted.
    pub fluents: Vec<String>,
    /// Move texts per role, sorted.
    pub moves: Vec<Vec<String>>,
    /// First atom of each role's moves.
    pub does_start: Vec<u32>,
    /// Number of input atoms (fluents and moves).
    pub num_inputs: u32,
    /// Term id (in the domain database) of each derived atom.
    pub derived: Vec<u32>,
    /// Initial fluents (ids), sorted.
    pub init: Vec<u32>,
    /// Head atom of each rule.
    pub heads: Vec<u32>,
    /// Body of rule `i` is `lits[starts[i]..starts[i + 1]]`.
    pub starts: Vec<u32>,
    /// Body literals.
    pub lits: Vec<Lit>,
    /// `legal[role][move]`.
    pub legal: Vec<Vec<Output>>,
    /// `next[fluent]`.
    pub next: Vec<Output>,
    /// `terminal`.
    pub terminal: Output,
    /// `goal[role]`: (value, atom).
    pub goal: Vec<Vec<(u8, Output)>>,
    /// Rule instances produced (before simplification).
    pub instances: usize,
}

impl Raw {
    /// Total number of atoms.
    pub fn num_atoms(&self) -> u32 {
        self.num_inputs + self.derived.len() as u32
    }
}

fn sorted_by_text(ids: Vec<u32>, text: impl Fn(u32) -> String) -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = ids.into_iter().map(|id| (text(id), id)).collect();
    v.sort();
    v.dedup_by(|a, b| a.0 == b.0);
    v
}

/// Instantiates every dynamic rule of `program` over `dom`.
pub fn instantiate(
    program: &Program,
    dom: &mut Domains,
    budget: &Budget,
) -> Result<Raw, GroundError> {
    let mut raw = Raw::default();
    let inputs = Inputs::number(program, dom, &mut raw);
    let mut derived = Derived::default();
    raw.starts.push(0);
    for info in &dom.rules {
        if info.head_dynamic {
            instantiate_rule(info, &mut dom.db, &inputs, &mut derived, &mut raw, budget)?;
        }
    }
    budget.check_rules(raw.instances, "(all)")?;
    let db = &dom.db;
    // Initial state.
    if let Some(init) = program.keyword_pred(Keyword::Init) {
        for &a in &db.rels[init.0 as usize].tuples {
            if let Some(&f) = inputs.fluent_of.get(&db.terms.args(a)[0]) {
                raw.init.push(f);
            }
        }
    }
    raw.init.sort_unstable();
    raw.init.dedup();
    outputs(program, db, &inputs, &derived, &mut raw);
    Ok(raw)
}

/// The input atoms: fluents and moves, numbered.
struct Inputs {
    /// Term ids of the roles.
    roles: Vec<u32>,
    /// Fluent id of each fluent term.
    fluent_of: FxHashMap<u32, u32>,
    /// Atom of each (role, move) term pair.
    does_of: FxHashMap<(u32, u32), u32>,
    /// Move terms per role, in atom order.
    move_terms: Vec<Vec<u32>>,
    /// Relation index of the computed `base`.
    base_rel: usize,
    /// Relation index of the computed `input`.
    input_rel: usize,
}

impl Inputs {
    /// Numbers the computed fluents (sorted by text; fluent id = index),
    /// then each role's computed moves (sorted by text), filling in `raw`'s
    /// roles, fluents, moves and input counts.
    fn number(program: &Program, dom: &mut Domains, raw: &mut Raw) -> Inputs {
        let db = &mut dom.db;
        let roles: Vec<u32> = program
            .roles()
            .iter()
            .map(|&s| db.terms.constant(s))
            .collect();
        raw.roles = program
            .roles()
            .iter()
            .map(|&s| program.symbols.name(s).to_owned())
            .collect();
        let base_terms: Vec<u32> = db.rels[dom.base_rel]
            .tuples
            .iter()
            .map(|&a| db.terms.args(a)[0])
            .collect();
        let fluents = sorted_by_text(base_terms, |t| db.terms.text(program, t));
        let mut fluent_of: FxHashMap<u32, u32> = FxHashMap::default();
        for (i, (text, t)) in fluents.into_iter().enumerate() {
            fluent_of.insert(t, i as u32);
            raw.fluents.push(text);
        }
        let mut does_of: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut next_atom = raw.fluents.len() as u32;
        let mut move_terms: Vec<Vec<u32>> = Vec::new();
        for &r in &roles {
            let ms: Vec<u32> = db.rels[dom.input_rel]
                .tuples
                .iter()
                .filter(|&&a| db.terms.args(a)[0] == r)
                .map(|&a| db.terms.args(a)[1])
                .collect();
            let ms = sorted_by_text(ms, |t| db.terms.text(program, t));
            raw.does_start.push(next_atom);
            let mut texts = Vec::with_capacity(ms.len());
            let mut mt = Vec::with_capacity(ms.len());
            for (text, m) in ms {
                does_of.insert((r, m), next_atom);
                next_atom += 1;
                texts.push(text);
                mt.push(m);
            }
            raw.moves.push(texts);
            move_terms.push(mt);
        }
        raw.num_inputs = next_atom;
        Inputs {
            roles,
            fluent_of,
            does_of,
            move_terms,
            base_rel: dom.base_rel,
            input_rel: dom.input_rel,
        }
    }
}

/// Derived atoms, numbered on first sight after the inputs.
#[derive(Default)]
struct Derived {
    /// Atom number of each term id ([`NONE`] if not derived).
    of: Vec<u32>,
}

impl Derived {
    /// The atom number of term `term`, numbering it if new.
    fn id(&mut self, raw: &mut Raw, term: u32) -> u32 {
        if self.of.len() <= term as usize {
            self.of.resize(term as usize + 1, NONE);
        }
        if self.of[term as usize] == NONE {
            self.of[term as usize] = raw.num_inputs + raw.derived.len() as u32;
            raw.derived.push(term);
        }
        self.of[term as usize]
    }

    /// The output for term `atom`: its atom, or false if never derived.
    fn output(&self, atom: Option<u32>) -> Output {
        match atom.and_then(|a| self.of.get(a as usize).copied()) {
            Some(id) if id != NONE => Output::Atom(super::program::AtomId(id)),
            _ => Output::False,
        }
    }
}

/// Adds the ground instances of one rule with a dynamic head to `raw`.
fn instantiate_rule(
    info: &RuleInfo,
    db: &mut Db,
    inputs: &Inputs,
    derived: &mut Derived,
    raw: &mut Raw,
    budget: &Budget,
) -> Result<(), GroundError> {
    let no_scc = |_: usize| false;
    let rule = &info.relaxed;
    let mut out_vars = Vec::new();
    let mut add = |v: u32| {
        if !out_vars.contains(&v) {
            out_vars.push(v)
        }
    };
    rule.head.iter().for_each(|p| p.for_each_var(&mut add));
    for e in &info.emit {
        e.args.iter().for_each(|p| p.for_each_var(&mut add));
    }
    budget.check_time(&db.rel_names[rule.head_rel as usize])?;
    let plan = db.plan(&rule.body, None, &no_scc, out_vars, rule.num_vars);
    let mut out = Vec::new();
    let Some(found) = db.run(&plan, &[], &mut out, rule.num_vars) else {
        return Err(budget.work_error(&db.rel_names[rule.head_rel as usize]));
    };
    if !found {
        return Ok(());
    }
    let w = plan.out_vars.len();
    let solutions = out.len().checked_div(w).unwrap_or(1);
    let mut binds = vec![NONE; rule.num_vars];
    'solution: for s in 0..solutions {
        for (k, &v) in plan.out_vars.iter().enumerate() {
            binds[v as usize] = out[s * w + k];
        }
        raw.instances += 1;
        if raw.instances & 1023 == 0 {
            budget.check_rules(raw.instances, &db.rel_names[rule.head_rel as usize])?;
            budget.check_time(&db.rel_names[rule.head_rel as usize])?;
            budget.check_memory(
                db.bytes() + raw.lits.len() * 4 + raw.heads.len() * 8,
                &db.rel_names[rule.head_rel as usize],
            )?;
        }
        let mark = raw.lits.len();
        for e in &info.emit {
            let atom = if e.rel == inputs.base_rel {
                db.lookup(&e.args[0], &binds)
                    .and_then(|t| inputs.fluent_of.get(&t).copied())
            } else if e.rel == inputs.input_rel {
                match (db.lookup(&e.args[0], &binds), db.lookup(&e.args[1], &binds)) {
                    (Some(r), Some(m)) => inputs.does_of.get(&(r, m)).copied(),
                    _ => None,
                }
            } else {
                db.lookup_atom_pat(e.rel, &e.args, &binds)
                    .filter(|&a| db.contains(a))
                    .map(|a| derived.id(raw, a))
            };
            match atom {
                Some(a) => raw
                    .lits
                    .push(if e.negated { Lit::neg(a) } else { Lit::pos(a) }),
                // Outside the domain: the atom never holds.
                None if e.negated => {}
                None => {
                    raw.lits.truncate(mark);
                    continue 'solution;
                }
            }
        }
        let head = db.ground_atom(rule.head_rel as usize, &rule.head, &binds);
        let h = derived.id(raw, head);
        raw.heads.push(h);
        raw.starts.push(raw.lits.len() as u32);
    }
    Ok(())
}

/// Fills in `raw`'s outputs: `legal`, `next`, `terminal` and `goal`.
fn outputs(program: &Program, db: &Db, inputs: &Inputs, derived: &Derived, raw: &mut Raw) {
    let roles = &inputs.roles;
    let kw = |k| program.keyword_pred(k).map(|p| p.0 as usize);
    raw.legal = Vec::with_capacity(roles.len());
    for (ri, &r) in roles.iter().enumerate() {
        let v = inputs.move_terms[ri]
            .iter()
            .map(|&m| derived.output(kw(Keyword::Legal).and_then(|l| db.lookup_atom(l, &[r, m]))))
            .collect();
        raw.legal.push(v);
    }
    let mut fluent_terms = vec![0u32; raw.fluents.len()];
    for (&t, &f) in &inputs.fluent_of {
        fluent_terms[f as usize] = t;
    }
    raw.next = fluent_terms
        .iter()
        .map(|&t| derived.output(kw(Keyword::Next).and_then(|n| db.lookup_atom(n, &[t]))))
        .collect();
    raw.terminal = derived.output(kw(Keyword::Terminal).and_then(|t| db.lookup_atom(t, &[])));
    raw.goal = vec![Vec::new(); roles.len()];
    if let Some(g) = kw(Keyword::Goal) {
        for &a in &db.rels[g].tuples {
            let args = db.terms.args(a);
            let Some(ri) = roles.iter().position(|&r| r == args[0]) else {
                continue;
            };
            // Goal values are integers 0..=100; others cannot be reported.
            let Ok(v) = db.terms.text(program, args[1]).parse::<u8>() else {
                continue;
            };
            let o = derived.output(Some(a));
            if o != Output::False {
                raw.goal[ri].push((v, o));
            }
        }
        for g in &mut raw.goal {
            g.sort_by_key(|&(v, _)| v);
        }
    }
}
