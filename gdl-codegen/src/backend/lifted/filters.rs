//! Scans of the state filtered by static tests: where a rule tests the
//! fluents a scan of `true(f(..))` meets against a static relation or
//! `distinct`, its other arguments constants or variables bound before the
//! scan, the test becomes a mask over `f`'s fluents, one per combination
//! of those variables' values, and the scan reads only the fluents the
//! masks let through, a word at a time.
//!
//! Chess's frame rule keeps every piece off the two squares of the move,
//! `(true (cell ?x ?y ?p)) (different_cells ?x ?y ?x1 ?y1) (different_cells
//! ?x ?y ?x2 ?y2)`: sixty-four fluents looked up twice each become two
//! masks (by `?x1 ?y1`, by `?x2 ?y2`) and'ed with the state's words, and as
//! the whole of a `next` rule, a copy of those words (see
//! [`super::body::Body::copy_scan`]).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::FxHashSet;

use super::facts::Facts;
use super::join_order::{Source, Step};
use super::relations::Relations;
use super::state_layout::Layout;
use super::term_tables::Dense;
use crate::backend::common::format::DataArray;
use crate::rules::Pat;

/// Where an argument of a filter's test comes from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Arg {
    /// The scanned fluent's argument at this position.
    Fluent(usize),
    /// A key: a variable bound before the scan, by its number.
    Key(usize),
    /// A constant term.
    Const(u32),
}

/// A test of the fluents of one functor, as masks.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Filter {
    /// The functor of the scanned fluents.
    pub fid: u32,
    /// The static relation tested; `None` for `distinct` of two arguments.
    pub rel: Option<u32>,
    /// Whether the test is under `not`.
    pub negated: bool,
    /// The test's arguments.
    pub args: Vec<Arg>,
    /// The values of each key for which the test can hold, sorted: for a
    /// value outside them a static relation fails, so the fluents that
    /// pass are none, or all of them under `not` or for `distinct`.
    pub keys: Vec<Vec<u32>>,
}

impl Filter {
    /// Its masks: one per combination of its keys' values, then the mask
    /// of a key outside them.
    pub fn rows(&self) -> usize {
        self.keys
            .iter()
            .fold(1usize, |n, k| n.saturating_mul(k.len()))
            .saturating_add(1)
    }

    /// Whether a key outside its values lets every fluent pass.
    fn passes_outside(&self) -> bool {
        self.negated || self.rel.is_none()
    }

    /// Whether the fluent of arguments `fluent` passes with `keys`.
    fn passes(&self, tuples: &FxHashSet<Vec<u32>>, fluent: &[u32], keys: &[u32]) -> bool {
        let vals: Vec<u32> = (self.args.iter())
            .map(|a| match *a {
                Arg::Fluent(p) => fluent[p],
                Arg::Key(k) => keys[k],
                Arg::Const(c) => c,
            })
            .collect();
        let holds = match self.rel {
            Some(_) => tuples.contains(&vals),
            None => vals[0] != vals[1],
        };
        holds != self.negated
    }
}

/// The filter of a scan of the fluents of functor `fid` with arguments
/// `scan` that `step` is, the variables in `before` bound before the scan,
/// with the variables of its keys: a step is one when it is a static
/// test or `distinct`, its arguments constants or variables, each bound
/// before the scan or an argument of the scanned fluent, one at least.
pub fn of_step(
    reg: &Relations,
    fid: u32,
    scan: &[Pat],
    step: &Step,
    before: &[bool],
) -> Option<(Filter, Vec<u32>)> {
    let (rel, negated, args): (Option<u32>, bool, Vec<Pat>) = match step {
        Step::Distinct(a, b) => (None, false, vec![a.clone(), b.clone()]),
        Step::Lit {
            source: Source::Static,
            rel,
            args,
            negated,
            ..
        } if !args.is_empty() => (Some(*rel), *negated, args.to_vec()),
        _ => return None,
    };
    let mut key_vars: Vec<u32> = Vec::new();
    let mut fargs = Vec::with_capacity(args.len());
    for a in &args {
        fargs.push(match a {
            Pat::Ground(t) => Arg::Const(*t),
            Pat::Var(v) if before[*v as usize] => {
                let k = key_vars.iter().position(|x| x == v).unwrap_or_else(|| {
                    key_vars.push(*v);
                    key_vars.len() - 1
                });
                Arg::Key(k)
            }
            Pat::Var(_) => Arg::Fluent(scan.iter().position(|p| p == a)?),
            Pat::Func(..) => return None,
        });
    }
    if !fargs.iter().any(|a| matches!(a, Arg::Fluent(_))) {
        return None;
    }
    let keys = (key_vars.iter().enumerate())
        .map(|(k, _)| key_values(reg, fid, rel, &fargs, k))
        .collect::<Option<Vec<_>>>()?;
    let filter = Filter {
        fid,
        rel,
        negated,
        args: fargs,
        keys,
    };
    Some((filter, key_vars))
}

/// The values key `k` of a test takes where it can hold (none empty): a
/// static relation's values in its first column of the key, the fluents'
/// values at the position `distinct` sets against it.
fn key_values(
    reg: &Relations,
    fid: u32,
    rel: Option<u32>,
    args: &[Arg],
    k: usize,
) -> Option<Vec<u32>> {
    let col = args.iter().position(|a| *a == Arg::Key(k))?;
    let mut values = match rel {
        Some(rel) => {
            let tuples = reg.static_tuples.get(rel as usize)?.as_ref()?;
            tuples.iter().map(|t| t[col]).collect::<Vec<u32>>()
        }
        None => {
            let Arg::Fluent(p) = args[1 - col] else {
                return None;
            };
            reg.fluent_values.get(&(fid, p))?.clone()
        }
    };
    values.sort_unstable();
    values.dedup();
    (!values.is_empty()).then_some(values)
}

/// For a call of a guarded relation (see [`super::guards`]) after a scan,
/// its guard's test of the call's arguments: a fluent that fails it fails
/// the call, so the guard filters the scan (chess's `bishop_threatens`
/// meets only the bishops on a diagonal through the square), the call
/// staying as it is.
pub fn guard_step(reg: &Relations, step: &Step) -> Option<Step> {
    let Step::Lit {
        source: Source::Derived | Source::Table,
        rel,
        args,
        negated: false,
        ..
    } = step
    else {
        return None;
    };
    let (guard, columns) = reg.guard_of.get(rel)?;
    let args: Box<[Pat]> = columns.iter().map(|&c| args[c].clone()).collect();
    Some(Step::Lit {
        source: Source::Static,
        rel: *guard,
        bound: (1 << args.len()) - 1,
        args,
        negated: false,
    })
}

/// The function giving filter `k`'s mask for its keys' values.
pub fn name(k: usize) -> Ident {
    format_ident!("filter_{}", k)
}

/// The items of the filters: per filter, its table of masks (each over the
/// words of its functor's fluents) and its function, which finds the mask
/// of its keys' values by their ranks; the rank tables go to `arrays`.
pub fn items(
    facts: &Facts,
    layout: &Layout,
    filters: &[Filter],
    arrays: &mut Vec<DataArray>,
) -> TokenStream {
    let u = &facts.universe;
    let mut items = TokenStream::new();
    for (k, filter) in filters.iter().enumerate() {
        let (first, w, rows) = masks(facts, layout, filter);
        let table = format_ident!("FILTER_{}", k);
        let first = Literal::usize_unsuffixed(first);
        let outside = Literal::usize_unsuffixed(rows.len() - 1);
        let prefix = format!("FILTER_{k}");
        let Dense {
            lookups,
            index,
            arrays: mut ranks,
        } = Dense::new(
            &prefix,
            &filter.keys,
            &quote!(return Span { first: #first, words: &#table[#outside] }),
        );
        arrays.append(&mut ranks);
        let params = (0..filter.keys.len()).map(|i| format_ident!("x{}", i));
        let n = Literal::usize_unsuffixed(rows.len());
        let f = name(k);
        let doc = format!(
            " The fluents `({} ..)` that pass a test, by its keys.",
            u.functor_name(filter.fid)
        );
        items.extend(quote! {
            /// A filter's masks: per combination of its keys' values, then
            /// for a key outside them.
            static #table: [[u64; #w]; #n] = [#(#rows),*];
            #[doc = #doc]
            #[inline]
            fn #f(#(#params: u32),*) -> Span {
                #(#lookups)*
                Span { first: #first, words: &#table[#index] }
            }
        });
    }
    items
}

/// Filter `filter`'s masks, each over the words of its functor's fluents
/// (from word `first`, `w` words long): one per combination of its keys'
/// values, the first key most significant, then one for a key outside
/// them.
fn masks(facts: &Facts, layout: &Layout, filter: &Filter) -> (usize, Literal, Vec<TokenStream>) {
    let u = &facts.universe;
    let bits: Vec<(usize, u32)> = (layout.terms.iter().enumerate())
        .filter(|&(_, &t)| u.functor[t as usize] == filter.fid)
        .map(|(b, &t)| (b, t))
        .collect();
    let first = bits.first().map_or(0, |&(b, _)| b / 64);
    let end = bits.last().map_or(0, |&(b, _)| b / 64 + 1);
    let tuples: FxHashSet<Vec<u32>> = filter
        .rel
        .and_then(|r| facts.statics.get(r as usize)?.clone())
        .unwrap_or_default()
        .into_iter()
        .collect();
    let mask = |pass: &dyn Fn(u32) -> bool| {
        let mut words = vec![0u64; end - first];
        for &(b, t) in &bits {
            if pass(t) {
                words[b / 64 - first] |= 1 << (b % 64);
            }
        }
        let words = words.into_iter().map(Literal::u64_unsuffixed);
        quote!([#(#words),*])
    };
    let w = Literal::usize_unsuffixed(end - first);
    let mut rows = Vec::with_capacity(filter.rows());
    for r in 0..filter.rows() - 1 {
        // The keys' values of mask `r`, the first key most significant.
        let mut rest = r;
        let mut keys = vec![0; filter.keys.len()];
        for (i, values) in filter.keys.iter().enumerate().rev() {
            keys[i] = values[rest % values.len()];
            rest /= values.len();
        }
        rows.push(mask(&|t| {
            filter.passes(&tuples, &u.args[t as usize], &keys)
        }));
    }
    rows.push(mask(&|_| filter.passes_outside()));
    (first, w, rows)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{
        module_and_code, program_and_facts, relation_named, static_step, term,
    };
    use super::*;

    /// A row of three cells; a move marks one, and the frame keeps every
    /// cell neither the move's nor next to it.
    const ROW: &str = "(role r) (adj 1 2) (adj 2 3) (mark x) (mark o)
        (init (cell 1 b)) (init (cell 2 b)) (init (cell 3 b))
        (<= (legal r (put ?a)) (true (cell ?a b)))
        (<= (next (cell ?a x)) (does r (put ?a)))
        (<= (next (cell ?a ?c)) (does r (put ?b)) (true (cell ?a ?c))
            (not (adj ?a ?b)) (distinct ?a ?b))
        (<= terminal (true (cell 2 x)))
        (<= (goal r 100) (true (cell 2 x)))";

    /// The functor id of `cell/2` and the relation `adj` of [`ROW`].
    fn cell_and_adj(program: &crate::front::ir::Program, reg: &Relations) -> (u32, u32) {
        let cell = reg.functor(program.symbols.lookup("cell").unwrap(), 2);
        (cell.unwrap(), relation_named(program, "adj"))
    }

    #[test]
    fn static_tests_and_distinct_of_a_scanned_fluent_become_filters_keyed_by_bound_variables() {
        let (program, facts) = program_and_facts(ROW);
        let reg = Relations::new(&program, &facts);
        let term = |text: &str| term(&facts, text);
        let (cell, adj) = cell_and_adj(&program, &reg);
        // (true (cell ?0 ?1)) with ?2 bound before; ?3 bound after.
        let scan = [Pat::Var(0), Pat::Var(1)];
        let before = [false, false, true, false];
        let of = |step: &Step| of_step(&reg, cell, &scan, step, &before);

        let (f, keys) = of(&static_step(adj, vec![Pat::Var(0), Pat::Var(2)], true)).unwrap();
        assert_eq!(keys, [2]);
        assert_eq!((f.rel, f.negated), (Some(adj), true));
        assert_eq!(f.args, [Arg::Fluent(0), Arg::Key(0)]);
        // The key's values: `adj`'s second column.
        assert_eq!(f.keys, [vec![term("2"), term("3")]]);
        assert_eq!(f.rows(), 3);

        let (f, _) = of(&Step::Distinct(Pat::Var(2), Pat::Var(0))).unwrap();
        assert_eq!(f.args, [Arg::Key(0), Arg::Fluent(0)]);
        // Against a fluent's argument: the values it takes there.
        assert_eq!(f.keys, [vec![term("1"), term("2"), term("3")]]);

        let (f, keys) = of(&Step::Distinct(Pat::Var(1), Pat::Ground(term("b")))).unwrap();
        assert!(keys.is_empty() && f.keys.is_empty());

        // Not filters: no argument of the fluent, a variable bound after
        // the scan, a compound argument.
        assert!(of(&Step::Distinct(Pat::Var(2), Pat::Ground(term("1")))).is_none());
        assert!(of(&static_step(adj, vec![Pat::Var(0), Pat::Var(3)], false)).is_none());
        let put = program.symbols.lookup("put").unwrap();
        let compound = Pat::Func(put, vec![Pat::Var(2)].into());
        assert!(of(&static_step(adj, vec![Pat::Var(0), compound], false)).is_none());
    }

    #[test]
    fn masks_hold_the_fluents_that_pass_for_each_key_and_for_a_key_outside_its_values() {
        let (program, facts) = program_and_facts(ROW);
        let reg = Relations::new(&program, &facts);
        let u = &facts.universe;
        let term = |text: &str| term(&facts, text);
        let (cell, adj) = cell_and_adj(&program, &reg);
        let filter = Filter {
            fid: cell,
            rel: Some(adj),
            negated: false,
            args: vec![Arg::Fluent(0), Arg::Key(0)],
            keys: vec![vec![term("2"), term("3")]],
        };
        let tuples: FxHashSet<Vec<u32>> = facts.statics[adj as usize]
            .clone()
            .unwrap()
            .into_iter()
            .collect();
        let passes = |fluent: &str, key: &str| {
            let t = term(fluent);
            filter.passes(&tuples, &u.args[t as usize], &[term(key)])
        };
        assert!(passes("(cell 1 b)", "2"));
        assert!(passes("(cell 2 x)", "3"));
        assert!(!passes("(cell 2 x)", "2"));
        assert!(!passes("(cell 3 b)", "3"));
        // A key outside `adj`'s column: no fluent passes; negated, all do.
        assert!(!filter.passes_outside());
        assert!(Filter {
            negated: true,
            ..filter.clone()
        }
        .passes_outside());
    }

    #[test]
    fn a_frame_rule_whose_tests_are_all_filters_copies_the_state_a_word_at_a_time() {
        let (program, facts) = program_and_facts(ROW);
        let (_, code) = module_and_code(&program, &facts);
        // The frame rule: two filters (`not adj`, `distinct`), keyed by the
        // move's cell, and no loop over the cells.
        let copy = code
            .find("or_bits_in(out,&self.state[..],MASK_")
            .expect("a copy");
        let args = &code[copy..copy + code[copy..].find(';').unwrap()];
        assert_eq!(args.matches("filter_").count(), 2, "{args}");
        assert!(code.contains("staticFILTER_0:"));
        assert!(code.contains("staticFILTER_1:"));
    }
}
