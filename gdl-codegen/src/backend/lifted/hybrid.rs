//! The hybrid part of the lifted back end: relations whose rules read only
//! the state, static relations and relations grounded before them, and
//! whose ground instances are few, are grounded at compile time. Each of their atoms becomes a disjunction of
//! conjunctions of fluents (set or clear), tested at run time a state word
//! at a time, where the lifted code would join the state with the static
//! tables for each call.
//!
//! connectFour's `line ?player` is the case in point: the lifted join walks
//! the player's discs and their neighbours in four directions (3 300
//! instructions a call); its ground form is 69 windows of four cells, each
//! two word tests at most. A call is compiled ground only where its atoms'
//! tests are estimated to cost less than its rules' plans: a plain test of
//! a fluent stays lifted, and so does a call with arguments free that its
//! rules answer by a lookup where the ground form would test every atom.
//!
//! An atom's arguments, with its number, make a static relation (`table`),
//! through which calls with any arguments bound find their atoms.

use super::cost;
use super::cost::{MAX_ARITY, MAX_ATOM_CONJUNCTIONS, MAX_CONJUNCTIONS, MAX_WORK};
use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::{FxHashMap, FxHashSet};

use super::facts::{Facts, Universe};
use super::state_layout::Layout;
use crate::ground::db::NONE;
use crate::rules::{CRule, Lit, Pat};

/// A relation's ground form.
#[derive(Debug)]
pub struct Hybrid {
    /// The relation.
    pub of: u32,
    /// Its arity.
    pub arity: usize,
    /// The static relation of its atoms: their arguments, then their number.
    pub table: u32,
    /// Per atom, its arguments (generated ids), in the order of its number.
    pub atoms: Vec<Vec<u32>>,
    /// Per atom, its conjunctions: each fluents (by logical id) that must
    /// hold (`true`) or not hold (`false`).
    pub conjunctions: Vec<Vec<Vec<(u32, bool)>>>,
}

/// What the grounding reads: the terms, the static relations' tuples and
/// the fluents.
pub struct Sources<'a> {
    /// The terms.
    pub universe: &'a Universe,
    /// The static relations' tuples (`None` for the others).
    pub statics: &'a [Option<Vec<Vec<u32>>>],
    /// The fluents' terms, by logical id.
    pub fluents: &'a [u32],
    /// The `true` relation.
    pub true_rel: Option<u32>,
}

/// The ground forms of the relations among `candidates` that have one,
/// each with its table numbered from `first` on. A relation grounds when
/// each of its rules reads only the state, static relations and relations
/// already grounded (positively, or negated where the atom is one fluent),
/// within the budgets. Which calls are compiled ground is chosen later, by
/// cost (`Estimates::is_ground`).
pub fn select(
    rules: &[CRule],
    candidates: impl Iterator<Item = u32>,
    src: &Sources,
    first: u32,
) -> Vec<Hybrid> {
    let mut rules_of: BTreeMap<u32, Vec<&CRule>> = BTreeMap::new();
    for rel in candidates {
        rules_of.insert(rel, Vec::new());
    }
    for r in rules {
        if let Some(own) = rules_of.get_mut(&r.head_rel) {
            own.push(r);
        }
    }
    let mut grounder = Grounder::new(src);
    // Callees before callers: a pass grounds the relations whose callees
    // are grounded, until a pass grounds none.
    let mut progress = true;
    while progress {
        progress = false;
        for (&rel, own) in &rules_of {
            let ready = !own.is_empty() && own.iter().all(|r| grounder.reads_ground_only(r));
            if !ready || grounder.tried.contains(&rel) {
                continue;
            }
            grounder.tried.insert(rel);
            progress = true;
            let table = first + grounder.found.len() as u32;
            if let Some(h) = grounder.ground(rel, own, table) {
                grounder.add_form(h);
            }
        }
    }
    grounder.found
}

/// What a grounding search carries: the variables' values, the literals
/// done, the fluent tests met so far, the relation's grounding.
type Search<'s> = (
    &'s mut [u32],
    &'s mut [bool],
    &'s mut Vec<(u32, bool)>,
    &'s mut Run,
);

/// The unbound value of a variable.
const UNBOUND: u32 = u32::MAX;

struct Grounder<'a> {
    src: &'a Sources<'a>,
    /// The relations whose grounding was tried.
    tried: FxHashSet<u32>,
    /// The ground forms found, in order.
    found: Vec<Hybrid>,
    /// Per relation grounded, its form's place in `found` and each atom's
    /// number by its arguments.
    forms: FxHashMap<u32, (usize, FxHashMap<Vec<u32>, usize>)>,
    /// Functor ids by (name, arity).
    functors: FxHashMap<(crate::front::symbols::Sym, usize), u32>,
    /// Logical id of each fluent term.
    fluent_of: FxHashMap<u32, u32>,
    /// The id of each compound term of the universe, by functor id and
    /// arguments.
    term_of: FxHashMap<(u32, Vec<u32>), u32>,
}

/// One relation's grounding in progress.
struct Run {
    work: u64,
    atoms: Vec<Vec<u32>>,
    atom_of: FxHashMap<Vec<u32>, usize>,
    conjunctions: Vec<Vec<Vec<(u32, bool)>>>,
    total: usize,
    over: bool,
}

impl<'a> Grounder<'a> {
    fn new(src: &'a Sources<'a>) -> Self {
        let functors = src.universe.functor_ids();
        let fluent_of = src
            .fluents
            .iter()
            .enumerate()
            .map(|(i, &t)| (t, i as u32))
            .collect();
        let u = src.universe;
        let term_of = (0..u.functor.len())
            .filter(|&t| u.functor[t] != NONE)
            .map(|t| ((u.functor[t], u.args[t].clone()), t as u32))
            .collect();
        Grounder {
            src,
            tried: FxHashSet::default(),
            found: Vec::new(),
            forms: FxHashMap::default(),
            functors,
            fluent_of,
            term_of,
        }
    }

    /// Adds a relation's ground form, for its callers.
    fn add_form(&mut self, h: Hybrid) {
        let index = h
            .atoms
            .iter()
            .enumerate()
            .map(|(k, a)| (a.clone(), k))
            .collect();
        self.forms.insert(h.of, (self.found.len(), index));
        self.found.push(h);
    }

    /// The ground form of `rel`, with its atoms' numbers by arguments, if
    /// it was grounded.
    fn form(&self, rel: u32) -> Option<(&Hybrid, &FxHashMap<Vec<u32>, usize>)> {
        let (k, index) = self.forms.get(&rel)?;
        Some((&self.found[*k], index))
    }

    /// Whether every literal of `rule` reads the state, a static relation
    /// or a relation grounded already, or compares terms, and its head has
    /// at most [`MAX_ARITY`] arguments, none compound.
    fn reads_ground_only(&self, rule: &CRule) -> bool {
        let readable = |rel: u32| {
            Some(rel) == self.src.true_rel
                || self.forms.contains_key(&rel)
                || self
                    .src
                    .statics
                    .get(rel as usize)
                    .is_some_and(Option::is_some)
        };
        rule.head.len() <= MAX_ARITY
            && rule.head.iter().all(|p| !matches!(p, Pat::Func(..)))
            && rule.body.iter().all(|l| match l {
                Lit::Pos(rel, _) | Lit::Neg(rel, _) => readable(*rel),
                Lit::Distinct(..) => true,
            })
    }

    /// The ground form of `rel` from its rules, numbered `table`; `None`
    /// past the budgets.
    fn ground(&self, rel: u32, rules: &[&CRule], table: u32) -> Option<Hybrid> {
        let mut run = Run {
            work: 0,
            atoms: Vec::new(),
            atom_of: FxHashMap::default(),
            conjunctions: Vec::new(),
            total: 0,
            over: false,
        };
        for rule in rules {
            let mut env = vec![UNBOUND; rule.num_vars];
            let mut done = vec![false; rule.body.len()];
            self.solve(rule, &mut env, &mut done, &mut Vec::new(), &mut run);
            if run.over {
                return None;
            }
        }
        // Atoms in the order of their arguments, for readable tables.
        let mut order: Vec<usize> = (0..run.atoms.len()).collect();
        order.sort_by(|&a, &b| run.atoms[a].cmp(&run.atoms[b]));
        let mut conjunctions = Vec::with_capacity(order.len());
        let mut atoms = Vec::with_capacity(order.len());
        for k in order {
            let mut cs = std::mem::take(&mut run.conjunctions[k]);
            cs.sort();
            cs.dedup();
            // An empty conjunction always holds: the others add nothing.
            if cs.iter().any(Vec::is_empty) {
                cs = vec![Vec::new()];
            }
            if cs.len() > MAX_ATOM_CONJUNCTIONS {
                return None;
            }
            conjunctions.push(cs);
            atoms.push(std::mem::take(&mut run.atoms[k]));
        }
        Some(Hybrid {
            of: rel,
            arity: rules[0].head.len(),
            table,
            atoms,
            conjunctions,
        })
    }

    /// Grounds what is left of `rule`'s body (literals not `done`) under
    /// `env`, with the fluent literals `conj` met so far.
    fn solve(
        &self,
        rule: &CRule,
        env: &mut [u32],
        done: &mut [bool],
        conj: &mut Vec<(u32, bool)>,
        run: &mut Run,
    ) {
        if run.over {
            return;
        }
        if self.solve_test(rule, env, done, conj, run) {
            return;
        }
        // Then the positive literal with the fewest variables unbound.
        let next = rule
            .body
            .iter()
            .enumerate()
            .filter(|(i, l)| !done[*i] && matches!(l, Lit::Pos(..)))
            .min_by_key(|(_, l)| {
                let mut free = 0;
                l.for_each_var(&mut |v| free += usize::from(env[v as usize] == UNBOUND));
                free
            });
        let Some((i, Lit::Pos(rel, args))) = next else {
            if rule.body.iter().enumerate().any(|(i, _)| !done[i]) {
                // A test whose variables no positive literal binds.
                run.over = true;
                return;
            }
            self.solution(rule, env, conj, run);
            return;
        };
        done[i] = true;
        if Some(*rel) == self.src.true_rel {
            for (id, &t) in self.src.fluents.iter().enumerate() {
                let held = [vec![(id as u32, true)]];
                self.try_row(rule, args, &[t], &held, (env, done, conj, run));
            }
        } else if let Some((form, _)) = self.form(*rel) {
            for (atom, cs) in form.atoms.iter().zip(&form.conjunctions) {
                self.try_row(rule, args, atom, cs, (env, done, conj, run));
            }
        } else {
            let tuples = self.src.statics[*rel as usize].as_deref().unwrap_or(&[]);
            for t in tuples {
                self.try_row(rule, args, t, &[Vec::new()], (env, done, conj, run));
            }
        }
        done[i] = false;
    }

    /// Runs the first test of `rule`'s body not `done` whose variables
    /// `env` binds and, if it passes, grounds the rest of the body (as
    /// [`Self::solve`]); whether there was such a test.
    fn solve_test(
        &self,
        rule: &CRule,
        env: &mut [u32],
        done: &mut [bool],
        conj: &mut Vec<(u32, bool)>,
        run: &mut Run,
    ) -> bool {
        let bound = |p: &Pat, env: &[u32]| {
            let mut all = true;
            p.for_each_var(&mut |v| all &= env[v as usize] != UNBOUND);
            all
        };
        // Tests first, as soon as their variables are bound.
        for (i, l) in rule.body.iter().enumerate() {
            if done[i] {
                continue;
            }
            let ready = match l {
                Lit::Pos(..) => false,
                Lit::Neg(_, args) => args.iter().all(|a| bound(a, env)),
                Lit::Distinct(a, b) => bound(a, env) && bound(b, env),
            };
            if !ready {
                continue;
            }
            let mark = conj.len();
            let Some(pass) = self.test(l, env, conj) else {
                run.over = true;
                return true;
            };
            if !pass {
                conj.truncate(mark);
                return true;
            }
            done[i] = true;
            self.solve(rule, env, done, conj, run);
            done[i] = false;
            conj.truncate(mark);
            return true;
        }
        false
    }

    /// Matches literal arguments `args` with `row` (a fluent's term, a
    /// static tuple or a grounded atom) and grounds the rest of the body on
    /// success, once with each of `alternatives` (what the row needs of the
    /// state: its conjunctions) added to `conj`.
    fn try_row(
        &self,
        rule: &CRule,
        args: &[Pat],
        row: &[u32],
        alternatives: &[Vec<(u32, bool)>],
        (env, done, conj, run): Search,
    ) {
        if run.over {
            return;
        }
        run.work += 1;
        if run.work > MAX_WORK {
            run.over = true;
            return;
        }
        let mut trail = Vec::new();
        let fits = args
            .iter()
            .zip(row)
            .all(|(p, &t)| self.bind(p, t, env, &mut trail));
        if fits {
            for alt in alternatives {
                let mark = conj.len();
                conj.extend_from_slice(alt);
                self.solve(rule, env, done, conj, run);
                conj.truncate(mark);
            }
        }
        for v in trail {
            env[v as usize] = UNBOUND;
        }
    }

    /// Whether test `l` passes under `env` (a negated fluent that exists is
    /// pushed to `conj`, clear, and passes); `None` if a term cannot be
    /// resolved.
    fn test(&self, l: &Lit, env: &[u32], conj: &mut Vec<(u32, bool)>) -> Option<bool> {
        match l {
            Lit::Distinct(a, b) => match (self.resolve(a, env), self.resolve(b, env)) {
                (Some(a), Some(b)) => Some(a != b),
                // A term of the universe and one outside it differ.
                (Some(_), None) | (None, Some(_)) => Some(true),
                (None, None) => None,
            },
            Lit::Neg(rel, args) => {
                // Fluents, tuples and atoms are all terms of the universe:
                // an argument outside it matches none of them.
                let Some(vals) = args
                    .iter()
                    .map(|a| self.resolve(a, env))
                    .collect::<Option<Vec<u32>>>()
                else {
                    return Some(true);
                };
                if Some(*rel) == self.src.true_rel {
                    if let Some(&f) = self.fluent_of.get(&vals[0]) {
                        conj.push((f, false));
                    }
                    return Some(true);
                }
                if let Some((form, index)) = self.form(*rel) {
                    let Some(&k) = index.get(&vals) else {
                        return Some(true);
                    };
                    // The negation of one fluent is one fluent: that of a
                    // larger disjunction is left lifted.
                    return match form.conjunctions[k].as_slice() {
                        [c] if c.is_empty() => Some(false),
                        [c] if c.len() == 1 => {
                            conj.push((c[0].0, !c[0].1));
                            Some(true)
                        }
                        _ => None,
                    };
                }
                let tuples = self.src.statics[*rel as usize].as_deref().unwrap_or(&[]);
                Some(!tuples.contains(&vals))
            }
            Lit::Pos(..) => None,
        }
    }

    /// The term id of a pattern whose variables are bound; `None` if the
    /// term is not in the universe.
    fn resolve(&self, p: &Pat, env: &[u32]) -> Option<u32> {
        match p {
            Pat::Var(v) => Some(env[*v as usize]),
            Pat::Ground(t) => (*t != NONE).then_some(*t),
            Pat::Func(f, args) => {
                let fid = *self.functors.get(&(*f, args.len()))?;
                let args = args
                    .iter()
                    .map(|a| self.resolve(a, env))
                    .collect::<Option<Vec<u32>>>()?;
                self.term_of.get(&(fid, args)).copied()
            }
        }
    }

    /// Matches pattern `p` with term `t`, binding variables (recorded in
    /// `trail`).
    fn bind(&self, p: &Pat, t: u32, env: &mut [u32], trail: &mut Vec<u32>) -> bool {
        match p {
            Pat::Var(v) => {
                let slot = &mut env[*v as usize];
                if *slot == UNBOUND {
                    *slot = t;
                    trail.push(*v);
                    true
                } else {
                    *slot == t
                }
            }
            Pat::Ground(g) => *g == t,
            Pat::Func(f, args) => {
                let u = self.src.universe;
                let Some(&fid) = self.functors.get(&(*f, args.len())) else {
                    return false;
                };
                u.functor.get(t as usize) == Some(&fid)
                    && (0..args.len())
                        .all(|k| self.bind(&args[k], u.args[t as usize][k], env, trail))
            }
        }
    }

    /// Records a ground instance: its head's atom gets conjunction `conj`.
    fn solution(&self, rule: &CRule, env: &[u32], conj: &[(u32, bool)], run: &mut Run) {
        let Some(head) = rule
            .head
            .iter()
            .map(|p| self.resolve(p, env))
            .collect::<Option<Vec<u32>>>()
        else {
            run.over = true;
            return;
        };
        let mut c = conj.to_vec();
        c.sort_unstable();
        c.dedup();
        // A fluent both held and not: the instance never holds.
        if c.windows(2).any(|w| w[0].0 == w[1].0) {
            return;
        }
        let k = *run.atom_of.entry(head.clone()).or_insert_with(|| {
            run.atoms.push(head);
            run.conjunctions.push(Vec::new());
            run.atoms.len() - 1
        });
        run.conjunctions[k].push(c);
        run.total += 1;
        if run.total > MAX_CONJUNCTIONS {
            run.over = true;
        }
    }
}

/// The test function of each relation compiled ground whose atoms are
/// tested: where each atom is one test of one word of the state, tables of
/// that word and its masks by atom; otherwise a `match` on the atom's
/// number, each arm the disjunction of its tests (see [`atom_tests`]), kept
/// out of line: inlined into a caller's loop, rustc computes every arm at
/// once, vectorized, before the loop (reversi's `occupied`, 64 atoms, made
/// its playouts 1.6 times slower).
pub fn items(
    facts: &Facts,
    reg: &super::needs::Needs,
    layout: &Layout,
    nw: usize,
    makers: &mut Vec<TokenStream>,
) {
    for &rel in &reg.hybrids {
        let Some(h) = facts.hybrid_of(rel) else {
            continue;
        };
        let name = &reg.names[rel as usize];
        let bit = |f: u32| layout.bit_of[f as usize];
        let tests: Vec<Vec<Test>> = h
            .conjunctions
            .iter()
            .map(|cs| atom_tests(cs, bit))
            .collect();
        let f = format_ident!("holds_{}", name);
        let nwl = Literal::usize_unsuffixed(nw);
        let doc = format!(" Whether atom `atom` of `{name}` (compiled ground) holds in `state`.");
        // Atoms that always hold (every one, for some relations) read
        // nothing of the state.
        let reads = tests
            .iter()
            .flatten()
            .any(|t| !matches!(t, Test::All(ws) if ws.is_empty()));
        let state = if reads {
            format_ident!("state")
        } else {
            format_ident!("_state")
        };
        let func = match word_tables(&tests, &name.to_ascii_uppercase()) {
            Some((tables, test)) => quote! {
                #tables
                #[doc = #doc]
                fn #f(#state: &[u64; #nwl], atom: u32) -> bool {
                    let a = atom as usize;
                    #test
                }
            },
            None => {
                let arms = tests.iter().enumerate().map(|(k, ts)| {
                    let k = Literal::u32_unsuffixed(k as u32);
                    let ts = ts.iter().map(Test::tokens);
                    quote!(#k => #(#ts)||*,)
                });
                quote! {
                    #[doc = #doc]
                    #[inline(never)]
                    fn #f(#state: &[u64; #nwl], atom: u32) -> bool {
                        match atom {
                            #(#arms)*
                            _ => false,
                        }
                    }
                }
            }
        };
        makers.push(func);
    }
}

/// Where every atom is one test of one word, all of one kind: the tables
/// by atom (the word, the mask, and the values wanted if the test
/// compares), and the test of atom `a` reading them.
fn word_tables(tests: &[Vec<Test>], upper: &str) -> Option<(TokenStream, TokenStream)> {
    let one: Vec<(u32, u64, Option<u64>)> = tests
        .iter()
        .map(|ts| match ts.as_slice() {
            [Test::Any(w, m)] => Some((*w, *m, None)),
            [Test::All(ws)] if ws.len() == 1 => Some((ws[0].0, ws[0].1, Some(ws[0].2))),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let compares = one.first()?.2.is_some();
    if one.iter().any(|o| o.2.is_some() != compares) {
        return None;
    }
    let n = Literal::usize_unsuffixed(one.len());
    let [words, masks, wants] = ["WORD", "MASK", "WANT"].map(|k| format_ident!("{}_{}", upper, k));
    let w = one.iter().map(|o| Literal::u32_unsuffixed(o.0));
    let m = one.iter().map(|o| Literal::u64_unsuffixed(o.1));
    let mut items = quote! {
        /// The word of the state each atom's test reads.
        static #words: [u32; #n] = [#(#w),*];
        /// The bits each atom's test reads in its word.
        static #masks: [u64; #n] = [#(#m),*];
    };
    let test = if compares {
        let v = one
            .iter()
            .map(|o| Literal::u64_unsuffixed(o.2.unwrap_or(0)));
        items.extend(quote! {
            /// The values each atom needs of the bits its test reads.
            static #wants: [u64; #n] = [#(#v),*];
        });
        quote!(state[#words[a] as usize] & #masks[a] == #wants[a])
    } else {
        quote!(state[#words[a] as usize] & #masks[a] != 0)
    };
    Some((items, test))
}

/// One test of a state's words.
enum Test {
    /// Some bit of the mask is set in the word.
    Any(u32, u64),
    /// Each word's masked bits have the values given: (word, mask, values).
    All(Vec<(u32, u64, u64)>),
}

impl Test {
    fn tokens(&self) -> TokenStream {
        let word = |w: u32| Literal::usize_unsuffixed(w as usize);
        match self {
            Test::Any(w, mask) => {
                let (w, mask) = (word(*w), Literal::u64_unsuffixed(*mask));
                quote!(state[#w] & #mask != 0)
            }
            Test::All(words) if words.is_empty() => quote!(true),
            Test::All(words) => {
                let tests = words.iter().map(|&(w, mask, want)| {
                    let w = word(w);
                    let (m, v) = (Literal::u64_unsuffixed(mask), Literal::u64_unsuffixed(want));
                    match want {
                        0 => quote!(state[#w] & #m == 0),
                        _ if want == mask => quote!(state[#w] & #m == #m),
                        _ => quote!(state[#w] & #m == #v),
                    }
                });
                quote!(#(#tests)&&*)
            }
        }
    }
}

/// The tests whose disjunction is an atom with conjunctions `cs`: the
/// conjunctions of one fluent held merged by word (any of their bits set),
/// each other conjunction a test of the words it reads.
fn atom_tests(cs: &[Vec<(u32, bool)>], bit: impl Fn(u32) -> u32) -> Vec<Test> {
    let mut any: BTreeMap<u32, u64> = BTreeMap::new();
    let mut tests = Vec::new();
    for c in cs {
        if let [(f, true)] = c.as_slice() {
            *any.entry(bit(*f) / 64).or_default() |= 1 << (bit(*f) % 64);
            continue;
        }
        let mut by_word: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        for &(f, held) in c {
            let (mask, want) = by_word.entry(bit(f) / 64).or_default();
            *mask |= 1 << (bit(f) % 64);
            if held {
                *want |= 1 << (bit(f) % 64);
            }
        }
        let words = by_word.into_iter().map(|(w, (m, v))| (w, m, v)).collect();
        tests.push(Test::All(words));
    }
    let mut out: Vec<Test> = any.into_iter().map(|(w, m)| Test::Any(w, m)).collect();
    out.extend(tests);
    out
}

/// The work of testing an atom of `h` once found, in the planner's units (a
/// table lookup): its word tests, each about half a lookup, on average
/// over the atoms (the fluents' bits taken in logical order: the layout is
/// not known yet when this is asked).
pub fn test_work(h: &Hybrid) -> f64 {
    let tests: usize = h
        .conjunctions
        .iter()
        .map(|cs| atom_tests(cs, |f| f).len())
        .sum();
    cost::ATOM_TEST_PRICE * tests as f64 / h.atoms.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::super::tests::{program_and_facts, relation_named};

    /// A row of three cells, each blank or marked `x` or `o`: `line ?p`
    /// (two neighbouring cells of `?p`) reads only the state and `succ`;
    /// `full` reads `line`; `stuck` negates `marked`, one fluent an atom;
    /// `moved` reads the joint move.
    const ROW: &str = "(role r) (succ 1 2) (succ 2 3) (mark x) (mark o)
        (init (cell 1 b)) (init (cell 2 b)) (init (cell 3 b))
        (<= (line ?p) (true (cell ?a ?p)) (true (cell ?b ?p)) (succ ?a ?b))
        (<= (full ?p) (mark ?p) (line ?p) (true (cell 2 ?p)))
        (<= (marked ?a) (true (cell ?a x)))
        (<= (stuck ?a ?b) (succ ?a ?b) (not (marked ?a)) (true (cell ?b o)))
        (<= (lone ?a) (true (cell ?a o)) (succ ?a ?b) (not (true (cell ?b o))))
        (<= (moved ?a) (does r (put ?a ?p)) (true (cell ?a b)))
        (<= (legal r (put ?a ?p)) (true (cell ?a b)) (mark ?p))
        (<= (next (cell ?a ?p)) (does r (put ?a ?p)))
        (<= (next (cell ?a ?c)) (true (cell ?a ?c)) (not (moved ?a)))
        (<= terminal (line x)) (<= terminal (full o)) (<= terminal (stuck 1 2))
        (<= terminal (lone 3))
        (<= (goal r 100) (line x))";

    /// The fluent texts of each conjunction of each atom of `rel`, with
    /// the atom's arguments' texts.
    /// An atom's arguments and its conjunctions, as texts.
    type Texts = (Vec<String>, Vec<Vec<String>>);

    fn ground_form(rel: &str) -> Option<Vec<Texts>> {
        let (program, facts) = program_and_facts(ROW);
        let rel = relation_named(&program, rel);
        let h = facts.hybrid_of(rel)?;
        let u = &facts.universe;
        let text = |t: u32| u.text[t as usize].clone();
        let fluent = |&(f, held): &(u32, bool)| {
            let t = text(facts.fluents[f as usize]);
            if held {
                t
            } else {
                format!("not {t}")
            }
        };
        Some(
            h.atoms
                .iter()
                .zip(&h.conjunctions)
                .map(|(a, cs)| {
                    let cs = cs.iter().map(|c| c.iter().map(fluent).collect()).collect();
                    (a.iter().map(|&t| text(t)).collect(), cs)
                })
                .collect(),
        )
    }

    #[test]
    fn a_relation_of_the_state_and_static_tables_grounds_to_conjunctions_of_fluents() {
        let mut line = ground_form("line").expect("line grounds");
        line.sort();
        let (args, conjunctions): (Vec<_>, Vec<_>) = line.into_iter().unzip();
        assert_eq!(args, [["b"], ["o"], ["x"]]);
        assert_eq!(
            conjunctions[2],
            [["(cell 1 x)", "(cell 2 x)"], ["(cell 2 x)", "(cell 3 x)"]]
        );
    }

    #[test]
    fn a_caller_of_a_ground_relation_grounds_through_its_atoms() {
        let full = ground_form("full").expect("full grounds");
        let o = full.iter().find(|(a, _)| a == &["o"]).expect("full(o)");
        // `line o` and `(cell 2 o)`: the fluent of both conjunctions once.
        assert_eq!(
            o.1,
            [["(cell 1 o)", "(cell 2 o)"], ["(cell 2 o)", "(cell 3 o)"]]
        );
    }

    #[test]
    fn a_negated_atom_of_one_fluent_is_that_fluent_clear() {
        let stuck = ground_form("stuck").expect("stuck grounds");
        let (_, first) = stuck
            .iter()
            .find(|(a, _)| a == &["1", "2"])
            .expect("stuck(1, 2)");
        assert_eq!(first, &[["not (cell 1 x)", "(cell 2 o)"]]);
    }

    #[test]
    fn a_negated_fluent_is_that_fluent_clear() {
        let lone = ground_form("lone").expect("lone grounds");
        let (_, first) = lone.iter().find(|(a, _)| a == &["1"]).expect("lone(1)");
        assert_eq!(first, &[["(cell 1 o)", "not (cell 2 o)"]]);
    }

    #[test]
    fn a_relation_that_reads_the_move_has_no_ground_form() {
        assert!(ground_form("moved").is_none());
        assert!(ground_form("line").is_some());
    }

    #[test]
    fn calls_are_compiled_ground_where_their_atoms_cost_less_than_their_plans() {
        let (program, facts) = program_and_facts(ROW);
        let mut reg = super::super::estimates::Estimates::new(&program, &facts);
        let rel = |name| relation_named(&program, name);
        // `line x` joins two cells and `succ`; `marked 1` tests one fluent.
        assert!(reg.is_ground(&facts, rel("line"), 0b1));
        assert!(!reg.is_ground(&facts, rel("marked"), 0b1));
        // Without a ground form, never.
        assert!(!reg.is_ground(&facts, rel("moved"), 0b1));
    }
}
