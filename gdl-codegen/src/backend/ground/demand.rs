//! Which atoms matter when: the analyses that let generated code skip
//! atoms or read cheaper ones.
//!
//! - Demand guards: fluent literals under which alone an atom's value
//!   matters; a reader that matters only under `g` may read `l = g ∧ x`
//!   in place of `x` ([`Gen::substitute_under_guards`]).
//! - Demand: fluents one of which must hold for an atom to matter, and for
//!   atoms reading the joint move, the moves one of which must be made for
//!   them to hold ([`Gen::compute_demand`]); generated code tests either
//!   before computing the atom.

use super::*;

impl Gen<'_> {
    /// Demand guards: for each derived atom, fluent literals under which
    /// alone its value matters. Every rule reading the atom has the literal
    /// in its body, or its head has it as a demand guard; outputs have none.
    /// When such a literal is false, every reader is false or unread
    /// whatever the atom's value.
    pub(super) fn demand_guards(&self) -> Vec<Vec<(u32, bool)>> {
        let gp = self.gp;
        let ni = gp.num_inputs;
        let nd = gp.num_derived() as usize;
        let outputs = self.output_atoms();
        // For each atom, its readers: (reader, the other literals' fluents).
        let mut readers: Vec<Vec<(u32, Vec<BitLit>)>> = vec![Vec::new(); nd];
        for a in ni..gp.num_atoms() {
            for c in self.conjs_of(a) {
                for &(p, neg) in &c.lits {
                    if let Some(&b) = self.pos_to_atom.get(&p) {
                        let others = c
                            .lits
                            .iter()
                            .copied()
                            .filter(|&l| l != (p, neg) && l.0 < self.layout.fluents)
                            .collect();
                        readers[(b - ni) as usize].push((a, others));
                    }
                }
            }
        }
        let mut guards: Vec<Vec<(u32, bool)>> = vec![Vec::new(); nd];
        // Readers come in later components: walk them backwards.
        for comp in gp.components.iter().rev() {
            if comp.cyclic {
                continue;
            }
            for a in comp.start..comp.end {
                let i = (a - ni) as usize;
                if outputs.contains(&a) || readers[i].is_empty() {
                    continue;
                }
                let mut common: Option<Vec<(u32, bool)>> = None;
                for (r, others) in &readers[i] {
                    let mut set: Vec<(u32, bool)> = others.clone();
                    set.extend(guards[(r - ni) as usize].iter().copied());
                    common = Some(match common {
                        None => set,
                        Some(c) => c.into_iter().filter(|l| set.contains(l)).collect(),
                    });
                }
                let mut g = common.unwrap_or_default();
                g.sort_unstable();
                g.dedup();
                guards[i] = g;
            }
        }
        guards
    }

    /// Reads of an atom `x` become reads of an atom `l` defined as
    /// `g ∧ x` alone, in readers whose value matters only when the fluent
    /// literal `g` holds (a demand guard): there the two are equal. In
    /// turn-taking games this turns "the side to move has a legal move"
    /// into a test of the legal-move bits already computed, instead of a
    /// second evaluation of every move's rule.
    pub(super) fn substitute_under_guards(&mut self) {
        let gp = self.gp;
        let ni = gp.num_inputs;
        for a in ni..gp.num_atoms() {
            let conjs = self.conjs_of(a);
            self.overrides.insert(a, conjs);
        }
        let guards = self.demand_guards();
        // `x` -> [(g, l)] for every `l` defined by the one rule `g ∧ x`.
        let mut aliases: std::collections::HashMap<u32, Vec<(BitLit, u32)>> =
            std::collections::HashMap::new();
        for a in ni..gp.num_atoms() {
            if self.cyclic[(a - ni) as usize] {
                continue;
            }
            let Some([c]) = self.overrides.get(&a).map(Vec::as_slice) else {
                continue;
            };
            if !c.any.is_empty() {
                continue;
            }
            if let [l1, l2] = c.lits.as_slice() {
                for (g, x) in [(*l1, *l2), (*l2, *l1)] {
                    let derived = self.pos_to_atom.get(&x.0).copied();
                    if g.0 < self.layout.fluents
                        && !x.1
                        && derived.is_some_and(|b| !self.cyclic[(b - ni) as usize])
                    {
                        aliases
                            .entry(x.0)
                            .or_default()
                            .push((g, self.layout.pos(AtomId(a))));
                    }
                }
            }
        }
        if aliases.is_empty() {
            return;
        }
        for a in ni..gp.num_atoms() {
            let i = (a - ni) as usize;
            if self.cyclic[i] || guards[i].is_empty() {
                continue;
            }
            let own = self.layout.pos(AtomId(a));
            let Some(conjs) = self.overrides.get_mut(&a) else {
                continue;
            };
            for c in conjs.iter_mut() {
                for lit in c.lits.iter_mut() {
                    let Some(alts) = aliases.get(&lit.0) else {
                        continue;
                    };
                    if let Some(&(_, l)) = alts
                        .iter()
                        .find(|(g, l)| *l != own && guards[i].contains(g))
                    {
                        lit.0 = l;
                    }
                }
                c.lits.sort_unstable();
                c.lits.dedup();
            }
        }
    }

    /// Demand: for each derived atom, fluents one of which must hold for its
    /// value to matter, or `None` when that is unknown. Each rule reading
    /// the atom needs its rarest positive fluent literal to hold (its
    /// witness), or else its head to matter; the atom's demand is the union
    /// over its readers. When no fluent of the demand holds, every reader is
    /// false or does not matter whatever the atom's value, so it need not
    /// be computed. In chess, "the path from c1 to e3 is clear" matters only
    /// when a bishop or a queen stands on c1. Outputs and the atoms in
    /// `read_by_code` always matter.
    pub(super) fn compute_demand(&mut self, read_by_code: &[Output]) {
        let gp = self.gp;
        let ni = gp.num_inputs;
        let fl = self.layout.fluents;
        let conjs: Vec<Vec<rules::Conj>> = (ni..gp.num_atoms()).map(|a| self.conjs_of(a)).collect();
        let mut freq: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
        for c in conjs.iter().flatten() {
            for &(p, neg) in &c.lits {
                if !neg && p < fl {
                    *freq.entry(p).or_default() += 1;
                }
            }
        }
        let mut readers: Vec<Vec<(u32, Option<u32>)>> = vec![Vec::new(); conjs.len()];
        for (i, cs) in conjs.iter().enumerate() {
            for c in cs {
                let witness = c
                    .lits
                    .iter()
                    .filter(|&&(p, neg)| !neg && p < fl)
                    .min_by_key(|&&(p, _)| (freq[&p], p))
                    .map(|&(p, _)| p);
                for (p, _) in &c.lits {
                    if let Some(&b) = self.pos_to_atom.get(p) {
                        readers[(b - ni) as usize].push((ni + i as u32, witness));
                    }
                }
            }
        }
        let mut always = self.outputs.clone();
        always.extend(read_by_code.iter().filter_map(|o| match o {
            Output::Atom(a) => Some(a.0),
            _ => None,
        }));
        let mut demand: Vec<Option<Vec<u32>>> = vec![None; conjs.len()];
        // Readers come in later components, or read by substitution an atom
        // of a later one; a reader not yet settled counts as always needed.
        for comp in gp.components.iter().rev() {
            if comp.cyclic {
                continue;
            }
            'atoms: for a in comp.start..comp.end {
                if always.contains(&a) {
                    continue;
                }
                let mut set = Vec::new();
                for &(r, witness) in &readers[(a - ni) as usize] {
                    match (&demand[(r - ni) as usize], witness) {
                        (Some(d), _) if d.is_empty() => {}
                        (_, Some(f)) => set.push(f),
                        (Some(d), None) => set.extend(d.iter().copied()),
                        (None, None) => continue 'atoms,
                    }
                }
                set.sort_unstable();
                set.dedup();
                let mut words: Vec<u32> = set.iter().map(|f| f / 64).collect();
                words.dedup();
                if words.len() <= MAX_DEMAND_WORDS {
                    demand[(a - ni) as usize] = Some(set);
                }
            }
        }
        // Atoms reading the joint move can hold only when one of a few
        // moves is made (in reversi, "this disc flips" needs a move on its
        // ray): that set of `does` bits guards them just as well.
        let does_start = self.layout.state_words as u32 * 64;
        let does_end = does_start + self.layout.does_words as u32 * 64;
        let set_base = self.layout.move_set_base();
        let mut moves: Vec<Option<Vec<u32>>> = vec![None; conjs.len()];
        for comp in &gp.components {
            if comp.cyclic {
                continue;
            }
            'atom: for a in comp.start..comp.end {
                let i = (a - ni) as usize;
                let mut set: Vec<u32> = self.direct_moves.get(&a).cloned().unwrap_or_default();
                for c in &conjs[i] {
                    let smallest = c
                        .lits
                        .iter()
                        .filter(|l| !l.1)
                        .filter_map(|&(p, _)| {
                            if (does_start..does_end).contains(&p) {
                                Some(std::slice::from_ref(&p).to_vec())
                            } else if p >= set_base {
                                self.move_sets.get((p - set_base) as usize).cloned()
                            } else {
                                let b = *self.pos_to_atom.get(&p)?;
                                moves[(b - ni) as usize].clone()
                            }
                        })
                        .min_by_key(Vec::len);
                    match smallest {
                        Some(m) => set.extend(m),
                        None => continue 'atom,
                    }
                }
                set.sort_unstable();
                set.dedup();
                let mut words: Vec<u32> = set.iter().map(|p| p / 64).collect();
                words.dedup();
                let own = self.direct_moves.get(&a).map_or(0, Vec::len);
                if words.len() <= MAX_DEMAND_WORDS && set.len() > own {
                    let better = match &demand[i] {
                        Some(d) => d.len() > set.len(),
                        None => true,
                    };
                    if better {
                        demand[i] = Some(set.clone());
                    }
                    moves[i] = Some(set);
                }
            }
        }
        self.demand = demand;
    }
}
