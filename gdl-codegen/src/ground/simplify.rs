//! Simplification of the instantiated rules, then ordering.
//!
//! - Bodies are sorted and deduplicated; a body with `a` and `not a` is
//!   dropped.
//! - Constant propagation: an atom with no rule is false, one with an empty
//!   body is true; literals on constants vanish or kill their rule, to a
//!   fixpoint (worklist, linear in the program's size).
//! - Duplicate rules are dropped.
//! - Aliases (an atom defined by one rule of one literal) are replaced by
//!   that literal everywhere; an output aliasing a positive literal points
//!   at its atom directly.
//! - Joint-move conditions are factored: rules differing only in one role's
//!   move, in bodies testing several roles' moves, read a new atom "that
//!   role makes one of these moves" instead.
//! - Atoms no output depends on are removed.
//! - Derived atoms are renumbered in a topological order of their strongly
//!   connected components, and rules sorted by head.

use rustc_hash::FxHashSet;

use super::instantiate::Raw;
use super::program::{AtomId, Component, GroundProgram, GroundRule, Lit, Output};
use crate::scc::tarjan;

const UNKNOWN: i8 = 0;

/// Rules grouped by head and body but one role's move: `((head, other
/// literals), moves)`.
type JointGroup = ((u32, Vec<Lit>), Vec<u32>);

/// Working form: rules as (head, body) with constant values per atom.
struct Work {
    num_inputs: u32,
    num_atoms: u32,
    rules: Vec<(u32, Vec<Lit>)>,
    legal: Vec<Vec<Output>>,
    next: Vec<Output>,
    terminal: Output,
    goal: Vec<Vec<(u8, Output)>>,
}

impl Work {
    fn outputs_mut(&mut self) -> impl Iterator<Item = &mut Output> {
        self.legal
            .iter_mut()
            .flatten()
            .chain(self.next.iter_mut())
            .chain(std::iter::once(&mut self.terminal))
            .chain(self.goal.iter_mut().flatten().map(|(_, o)| o))
    }

    fn outputs(&self) -> Vec<Output> {
        let mut v: Vec<Output> = self.legal.iter().flatten().copied().collect();
        v.extend(self.next.iter().copied());
        v.push(self.terminal);
        v.extend(self.goal.iter().flatten().map(|&(_, o)| o));
        v
    }

    /// Sorts and dedups bodies; drops contradictory ones.
    fn normalize(&mut self) {
        self.rules.retain_mut(|(_, body)| {
            body.sort_unstable();
            body.dedup();
            !body.windows(2).any(|w| w[0].0 ^ 1 == w[1].0)
        });
    }

    /// Constant propagation, then removal of constant atoms' rules and of
    /// satisfied literals.
    fn propagate(&mut self) {
        let n = self.num_atoms as usize;
        let mut val = vec![UNKNOWN; n];
        let mut alive_rules = vec![0u32; n];
        for (h, _) in &self.rules {
            alive_rules[*h as usize] += 1;
        }
        // Occurrences: atom -> rules mentioning it (CSR).
        let mut occ_start = vec![0u32; n + 1];
        for (_, body) in &self.rules {
            for l in body {
                occ_start[l.atom().0 as usize + 1] += 1;
            }
        }
        for i in 0..n {
            occ_start[i + 1] += occ_start[i];
        }
        let mut fill = occ_start.clone();
        let mut occ = vec![0u32; occ_start[n] as usize];
        for (ri, (_, body)) in self.rules.iter().enumerate() {
            for l in body {
                let a = l.atom().0 as usize;
                occ[fill[a] as usize] = ri as u32;
                fill[a] += 1;
            }
        }
        let mut remaining: Vec<u32> = self.rules.iter().map(|(_, b)| b.len() as u32).collect();
        let mut alive = vec![true; self.rules.len()];
        let mut queue = Vec::new();
        for a in self.num_inputs as usize..n {
            if alive_rules[a] == 0 {
                val[a] = -1;
                queue.push(a as u32);
            }
        }
        for (ri, (h, body)) in self.rules.iter().enumerate() {
            if body.is_empty() && val[*h as usize] == UNKNOWN {
                val[*h as usize] = 1;
                queue.push(*h);
                let _ = ri;
            }
        }
        while let Some(a) = queue.pop() {
            let v = val[a as usize];
            for &ri in &occ[occ_start[a as usize] as usize..occ_start[a as usize + 1] as usize] {
                let ri = ri as usize;
                if !alive[ri] {
                    continue;
                }
                let (h, body) = &self.rules[ri];
                let h = *h as usize;
                // The literal(s) of `a` in this body (deduplicated, and not
                // both signs: normalize() dropped those).
                let lit = body.iter().find(|l| l.atom().0 == a).copied();
                let Some(lit) = lit else { continue };
                let satisfied = (v == 1) != lit.is_negated();
                if satisfied {
                    remaining[ri] -= 1;
                    if remaining[ri] == 0 && val[h] == UNKNOWN {
                        val[h] = 1;
                        queue.push(h as u32);
                    }
                } else {
                    alive[ri] = false;
                    alive_rules[h] -= 1;
                    if alive_rules[h] == 0 && val[h] == UNKNOWN {
                        val[h] = -1;
                        queue.push(h as u32);
                    }
                }
            }
        }
        let rules = std::mem::take(&mut self.rules);
        self.rules = rules
            .into_iter()
            .zip(alive)
            .filter(|((h, _), alive)| *alive && val[*h as usize] == UNKNOWN)
            .map(|((h, mut body), _)| {
                body.retain(|l| val[l.atom().0 as usize] == UNKNOWN);
                (h, body)
            })
            .collect();
        for o in self.outputs_mut() {
            if let Output::Atom(a) = *o {
                match val[a.0 as usize] {
                    1 => *o = Output::True,
                    -1 => *o = Output::False,
                    _ => {}
                }
            }
        }
    }

    fn dedup_rules(&mut self) {
        let mut seen = FxHashSet::default();
        self.rules.retain(|r| seen.insert(r.clone()));
    }

    /// Replaces aliases by their definitions; returns whether any was found.
    fn inline_aliases(&mut self) -> bool {
        let n = self.num_atoms as usize;
        let mut count = vec![0u32; n];
        for (h, _) in &self.rules {
            count[*h as usize] += 1;
        }
        let mut alias: Vec<Option<Lit>> = vec![None; n];
        let mut any = false;
        for (h, body) in &self.rules {
            if count[*h as usize] == 1 && body.len() == 1 && body[0].atom().0 != *h {
                alias[*h as usize] = Some(body[0]);
                any = true;
            }
        }
        if !any {
            return false;
        }
        // Resolve chains; an alias cycle (a <= b, b <= a) is left alone.
        // `path` holds each visited atom with its sign relative to the
        // start: start = atom xor sign.
        let flip = |l: Lit, neg: bool| if neg { l.negate() } else { l };
        let mut resolved: Vec<Option<Lit>> = vec![None; n];
        let mut state = vec![0u8; n]; // 0 new, 1 on the current path, 2 done
        let mut path: Vec<(usize, bool)> = Vec::new();
        for start in 0..n {
            let Some(first) = alias[start] else { continue };
            if state[start] == 2 {
                continue;
            }
            path.clear();
            path.push((start, false));
            state[start] = 1;
            let mut cur = first;
            let end = loop {
                let b = cur.atom().0 as usize;
                let sign = cur.is_negated();
                match (alias[b], state[b]) {
                    (_, 2) => break resolved[b].map(|e| flip(e, sign)),
                    (_, 1) => break None,
                    (None, _) => break Some(cur),
                    (Some(nx), _) => {
                        state[b] = 1;
                        path.push((b, sign));
                        cur = flip(nx, sign);
                    }
                }
            };
            for &(x, sx) in &path {
                state[x] = 2;
                resolved[x] = end.map(|e| flip(e, sx));
            }
        }
        let subst = |l: Lit| -> Lit {
            match resolved[l.atom().0 as usize] {
                Some(r) if r.atom() != l.atom() => {
                    if l.is_negated() {
                        r.negate()
                    } else {
                        r
                    }
                }
                _ => l,
            }
        };
        let mut changed = false;
        for (_, body) in &mut self.rules {
            for l in body.iter_mut() {
                let s = subst(*l);
                changed |= s != *l;
                *l = s;
            }
        }
        let mut keep = vec![false; n];
        for o in self.outputs_mut() {
            if let Output::Atom(a) = *o {
                match resolved[a.0 as usize] {
                    Some(r) if !r.is_negated() && r.atom() != a => {
                        *o = Output::Atom(r.atom());
                        changed = true;
                    }
                    _ => keep[a.0 as usize] = true,
                }
            }
        }
        // Drop the definitions of resolved aliases nothing refers to now.
        self.rules
            .retain(|(h, _)| resolved[*h as usize].is_none() || keep[*h as usize]);
        changed
    }

    /// Factors joint-move conditions. Rules that differ only in one role's
    /// move, in bodies that test the moves of several roles, become one rule
    /// reading a new atom "that role makes one of these moves": with
    /// simultaneous moves, "the crosser marks here and the blocker marks
    /// anywhere else" is one rule over two such atoms instead of a rule per
    /// pair of moves (blockerParallel: 5.6 M rules). Each pass is exact
    /// (distributivity), and bodies keep at most one move literal of their
    /// own, which the reasoners treat as a set of moves. Returns the moves
    /// of each new atom (role, does atoms), numbered from `num_atoms`.
    fn factor_joint_moves(&mut self, roles: &[(u32, u32)]) -> Vec<(usize, Vec<u32>)> {
        let role_of = |l: &Lit| -> Option<usize> {
            let a = l.atom().0;
            (!l.is_negated())
                .then(|| roles.iter().position(|&(s, e)| (s..e).contains(&a)))
                .flatten()
        };
        let mut sets: rustc_hash::FxHashMap<Vec<u32>, u32> = Default::default();
        let mut made: Vec<(usize, Vec<u32>)> = Vec::new();
        for r in 0..roles.len() {
            let mut groups: rustc_hash::FxHashMap<(u32, Vec<Lit>), Vec<u32>> = Default::default();
            let mut kept = Vec::with_capacity(self.rules.len());
            for (h, body) in std::mem::take(&mut self.rules) {
                let does: Vec<usize> = body.iter().filter_map(role_of).collect();
                let mine: Vec<&Lit> = body.iter().filter(|l| role_of(l) == Some(r)).collect();
                match mine.as_slice() {
                    [m] if does.len() >= 2 => {
                        let m = **m;
                        let others: Vec<Lit> = body.iter().copied().filter(|&l| l != m).collect();
                        groups.entry((h, others)).or_default().push(m.atom().0);
                    }
                    _ => kept.push((h, body)),
                }
            }
            // In a fixed order, so that new atoms are numbered the same way
            // every run.
            let mut groups: Vec<JointGroup> = groups.into_iter().collect();
            groups.sort_unstable();
            for ((h, mut others), mut moves) in groups {
                moves.sort_unstable();
                moves.dedup();
                let lit = if let [m] = moves.as_slice() {
                    Lit::pos(*m)
                } else {
                    let next = self.num_atoms;
                    let x = *sets.entry(moves.clone()).or_insert_with(|| {
                        made.push((r, moves.clone()));
                        next
                    });
                    if x == next {
                        self.num_atoms += 1;
                        kept.extend(moves.iter().map(|&m| (x, vec![Lit::pos(m)])));
                    }
                    Lit::pos(x)
                };
                others.push(lit);
                others.sort_unstable();
                kept.push((h, others));
            }
            self.rules = kept;
        }
        made
    }

    /// Removes atoms and rules no output depends on.
    fn remove_dead(&mut self) -> Vec<bool> {
        let n = self.num_atoms as usize;
        let mut live = vec![false; n];
        let mut by_head: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, (h, _)) in self.rules.iter().enumerate() {
            by_head[*h as usize].push(i);
        }
        let mut stack: Vec<u32> = self
            .outputs()
            .into_iter()
            .filter_map(|o| match o {
                Output::Atom(a) => Some(a.0),
                _ => None,
            })
            .collect();
        while let Some(a) = stack.pop() {
            if live[a as usize] {
                continue;
            }
            live[a as usize] = true;
            for &ri in &by_head[a as usize] {
                for l in &self.rules[ri].1 {
                    if !live[l.atom().0 as usize] {
                        stack.push(l.atom().0);
                    }
                }
            }
        }
        self.rules.retain(|(h, _)| live[*h as usize]);
        live
    }
}

/// The text of an atom made by [`Work::factor_joint_moves`]: `(or (does r
/// m1) (does r m2) ..)`, elided past a few moves.
fn joint_text(
    roles: &[String],
    moves_text: &[Vec<String>],
    does_start: &[u32],
    (r, moves): &(usize, Vec<u32>),
) -> String {
    let mut s = String::from("(or");
    for &m in moves.iter().take(3) {
        let m = (m - does_start[*r]) as usize;
        s.push_str(&format!(" (does {} {})", roles[*r], moves_text[*r][m]));
    }
    if moves.len() > 3 {
        s.push_str(&format!(" ..{} more", moves.len() - 3));
    }
    s.push(')');
    s
}

/// Simplifies `raw` and builds the final program. `derived_text` gives the
/// GDL text of a derived atom from its term id.
pub fn simplify(mut raw: Raw, derived_text: &dyn Fn(u32) -> String) -> GroundProgram {
    let mut w = Work::take(&mut raw);
    let (joint, live) = w.reduce(&raw);
    let ord = Order::new(&w, &live);
    let (rules, rule_start) = ord.rules(&w);
    let components = ord.components();
    let atom_text = ord.atom_texts(&raw, &joint, derived_text);
    let legal = w
        .legal
        .iter()
        .map(|v| v.iter().map(|&o| ord.map_out(o)).collect())
        .collect();
    let next = w.next.iter().map(|&o| ord.map_out(o)).collect();
    let goal = w
        .goal
        .iter()
        .map(|v| v.iter().map(|&(g, o)| (g, ord.map_out(o))).collect())
        .collect();
    GroundProgram {
        roles: raw.roles,
        case_sensitive: false,
        fluents: raw.fluents,
        moves: raw.moves,
        init: raw.init,
        does_start: raw.does_start,
        num_inputs: raw.num_inputs,
        atom_text,
        rules,
        rule_start,
        components,
        legal,
        next,
        terminal: ord.map_out(w.terminal),
        goal,
        stats: Default::default(),
        logical: None,
    }
}

impl Work {
    /// The working form of `raw`'s rules; its outputs move out of `raw`.
    fn take(raw: &mut Raw) -> Work {
        Work {
            num_inputs: raw.num_inputs,
            num_atoms: raw.num_atoms(),
            rules: (0..raw.heads.len())
                .map(|i| {
                    let b = &raw.lits[raw.starts[i] as usize..raw.starts[i + 1] as usize];
                    (raw.heads[i], b.to_vec())
                })
                .collect(),
            legal: std::mem::take(&mut raw.legal),
            next: std::mem::take(&mut raw.next),
            terminal: raw.terminal,
            goal: std::mem::take(&mut raw.goal),
        }
    }

    /// Runs the simplifications in order. Returns the factored joint-move
    /// atoms and which atoms are live.
    fn reduce(&mut self, raw: &Raw) -> (Vec<(usize, Vec<u32>)>, Vec<bool>) {
        for _ in 0..4 {
            self.normalize();
            self.propagate();
            if !self.inline_aliases() {
                break;
            }
        }
        self.normalize();
        self.propagate();
        self.dedup_rules();
        let roles: Vec<(u32, u32)> = raw
            .does_start
            .iter()
            .zip(&raw.moves)
            .map(|(&s, m)| (s, s + m.len() as u32))
            .collect();
        let joint = self.factor_joint_moves(&roles);
        let live = self.remove_dead();
        (joint, live)
    }
}

/// The final numbering of the live derived atoms: strongly connected
/// components of the dependency graph, dependencies first.
struct Order {
    num_inputs: usize,
    /// Old id of each live derived atom, by compact index.
    old_of: Vec<usize>,
    /// Dependencies between live derived atoms, by compact index.
    succ: Vec<Vec<usize>>,
    /// Component of each compact index.
    comp: Vec<u32>,
    /// Compact indices in their final order.
    order: Vec<usize>,
    /// New id of each old atom (`u32::MAX` if dropped).
    new_id: Vec<u32>,
}

impl Order {
    fn new(w: &Work, live: &[bool]) -> Order {
        let ni = w.num_inputs as usize;
        let n = w.num_atoms as usize;
        let old_of: Vec<usize> = (ni..n).filter(|&a| live[a]).collect();
        let mut compact = vec![u32::MAX; n];
        for (i, &a) in old_of.iter().enumerate() {
            compact[a] = i as u32;
        }
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); old_of.len()];
        for (h, body) in &w.rules {
            let hi = compact[*h as usize] as usize;
            for l in body {
                let c = compact[l.atom().0 as usize];
                if c != u32::MAX {
                    succ[hi].push(c as usize);
                }
            }
        }
        let comp = tarjan(&succ, |&v| v).comp;
        let mut order: Vec<usize> = (0..old_of.len()).collect();
        order.sort_by_key(|&i| (comp[i], i));
        let mut new_id = vec![u32::MAX; n];
        for (a, id) in new_id.iter_mut().enumerate().take(ni) {
            *id = a as u32;
        }
        for (k, &i) in order.iter().enumerate() {
            new_id[old_of[i]] = (ni + k) as u32;
        }
        Order {
            num_inputs: ni,
            old_of,
            succ,
            comp,
            order,
            new_id,
        }
    }

    fn map_lit(&self, l: Lit) -> Lit {
        Lit(self.new_id[l.atom().0 as usize] << 1 | (l.0 & 1))
    }

    fn map_out(&self, o: Output) -> Output {
        match o {
            Output::Atom(a) => Output::Atom(AtomId(self.new_id[a.0 as usize])),
            c => c,
        }
    }

    /// The renumbered rules sorted by head, and where each head's rules
    /// start.
    fn rules(&self, w: &Work) -> (Vec<GroundRule>, Vec<u32>) {
        let ni = self.num_inputs;
        let mut rules: Vec<GroundRule> = w
            .rules
            .iter()
            .map(|(h, body)| {
                let mut b: Vec<Lit> = body.iter().map(|&l| self.map_lit(l)).collect();
                b.sort_unstable();
                GroundRule {
                    head: AtomId(self.new_id[*h as usize]),
                    body: b.into(),
                }
            })
            .collect();
        rules.sort_by_key(|r| r.head);
        let nd = self.old_of.len();
        let mut rule_start = vec![0u32; nd + 1];
        for r in &rules {
            rule_start[(r.head.0 as usize - ni) + 1] += 1;
        }
        for i in 0..nd {
            rule_start[i + 1] += rule_start[i];
        }
        (rules, rule_start)
    }

    /// The components as ranges of new ids, flagged when cyclic.
    fn components(&self) -> Vec<Component> {
        let (ni, order, comp) = (self.num_inputs, &self.order, &self.comp);
        let mut components = Vec::new();
        let mut k = 0;
        while k < order.len() {
            let c = comp[order[k]];
            let mut e = k;
            while e < order.len() && comp[order[e]] == c {
                e += 1;
            }
            let start = (ni + k) as u32;
            let end = (ni + e) as u32;
            let cyclic = e - k > 1 || self.succ[order[k]].contains(&order[k]);
            components.push(Component { start, end, cyclic });
            k = e;
        }
        components
    }

    /// The GDL text of every atom, by new id.
    fn atom_texts(
        &self,
        raw: &Raw,
        joint: &[(usize, Vec<u32>)],
        derived_text: &dyn Fn(u32) -> String,
    ) -> Vec<String> {
        let ni = self.num_inputs;
        let mut atom_text = Vec::with_capacity(ni + self.old_of.len());
        for f in &raw.fluents {
            atom_text.push(format!("(true {f})"));
        }
        for (r, ms) in raw.moves.iter().enumerate() {
            for m in ms {
                atom_text.push(format!("(does {} {m})", raw.roles[r]));
            }
        }
        let mut old_of = self.old_of.clone();
        old_of.sort_by_key(|&a| self.new_id[a]);
        for &a in &old_of {
            atom_text.push(match raw.derived.get(a - ni) {
                Some(&t) => derived_text(t),
                None => joint_text(
                    &raw.roles,
                    &raw.moves,
                    &raw.does_start,
                    &joint[a - ni - raw.derived.len()],
                ),
            });
        }
        atom_text
    }
}
