//! Static joins of a scanned fluent, done at compile time: where a rule
//! scans the state (`(true (cellHolds ?x ?y white))`) and then joins the
//! fluent's arguments with static relations (`(succ ?y ?y2) (succ ?x ?x2)`)
//! and tests them (`distinct`, a static relation under `not`), reading no
//! variable bound before the scan, the join's rows are a function of the
//! fluent: a table gives them per fluent bit, and the scan's loop walks
//! one slice of it instead of looking the relations up.
//!
//! A row holds the variables the join binds and, computed from them and
//! the fluent's arguments, what the rest of the rule builds: the bits of
//! the fluents it tests (`(not (true (cellHolds ?x2 ?y2 white)))`) and the
//! terms it passes on or puts in its head (`(move ?x ?y ?x2 ?y2)`). What
//! the lifted code computes per candidate from ranks (a test of the state,
//! a term) is then one load, as in ground code, and the table, one row per
//! ground instance of the rule's static part, is data, not code.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::FxHashMap;

use super::facts::{Facts, Universe};
use super::join_order::{Source, Step};
use super::state_layout::Layout;
use crate::backend::common::format::DataArray;
use crate::ground::db::NONE;
use crate::rules::Pat;

/// What a column of a join's rows holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    /// The value of a variable the join binds.
    Var(u32),
    /// The term a pattern builds (`NONE` outside the universe).
    Term(Pat),
    /// The state's bit of the fluent a pattern builds (`NONE` for no
    /// fluent).
    Bit(Pat),
}

/// A scan's static join.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prejoin {
    /// The functor of the scanned fluents.
    pub fid: u32,
    /// The scan's arguments: variables and constants.
    pub scan: Vec<Pat>,
    /// The static steps joined, in order.
    pub steps: Vec<Step>,
    /// The rows' columns.
    pub columns: Vec<Column>,
    /// The rule's variables.
    pub num_vars: usize,
}

/// A binding of a rule's variables.
type Binding = Vec<Option<u32>>;

impl Prejoin {
    /// The bindings the fluent of arguments `fluent` gives, `None` when the
    /// join's work passes `work` (decremented).
    pub fn bindings(
        &self,
        fluent: &[u32],
        statics: &[Option<Vec<Vec<u32>>>],
        work: &mut usize,
    ) -> Option<Vec<Binding>> {
        let mut b: Binding = vec![None; self.num_vars];
        for (p, &v) in self.scan.iter().zip(fluent) {
            if !bind(&mut b, p, v) {
                return Some(Vec::new());
            }
        }
        let mut rows = vec![b];
        for step in &self.steps {
            rows = join(rows, step, statics, work)?;
        }
        Some(rows)
    }
}

/// Binds or tests pattern `p` (a variable or a constant) against `v`.
fn bind(b: &mut Binding, p: &Pat, v: u32) -> bool {
    match p {
        Pat::Var(x) => match b[*x as usize] {
            Some(w) => w == v,
            None => {
                b[*x as usize] = Some(v);
                true
            }
        },
        Pat::Ground(t) => *t == v,
        Pat::Func(..) => false,
    }
}

/// The value of a bound variable or constant.
fn value(b: &Binding, p: &Pat) -> Option<u32> {
    match p {
        Pat::Var(x) => b[*x as usize],
        Pat::Ground(t) => Some(*t),
        Pat::Func(..) => None,
    }
}

/// The rows of `rows` extended (or kept) by `step`.
fn join(
    rows: Vec<Binding>,
    step: &Step,
    statics: &[Option<Vec<Vec<u32>>>],
    work: &mut usize,
) -> Option<Vec<Binding>> {
    let mut out = Vec::new();
    match step {
        Step::Distinct(a, c) => {
            for b in rows {
                if value(&b, a)? != value(&b, c)? {
                    out.push(b);
                }
            }
        }
        Step::Lit {
            rel, args, negated, ..
        } => {
            let tuples = statics.get(*rel as usize)?.as_ref()?;
            for b in rows {
                *work = work.checked_sub(tuples.len())?;
                let mut found = false;
                for t in tuples {
                    let mut nb = b.clone();
                    if args.iter().zip(t).all(|(p, &v)| bind(&mut nb, p, v)) {
                        found = true;
                        if !negated {
                            out.push(nb);
                        }
                    }
                }
                if *negated && !found {
                    out.push(b);
                }
            }
        }
        Step::Param { .. } => return None,
    }
    Some(out)
}

/// The steps from the start of `rest` (those not `absorbed`) a scan binding
/// `scanned` can join at compile time, `before` being bound before it: a
/// static literal or `distinct` over constants and variables none of which
/// was bound before the scan unless the scan binds it too; the steps taken,
/// by index, and the variables they bind.
pub fn group(
    rest: &[Step],
    absorbed: &[bool],
    before: &[bool],
    scanned: &[u32],
) -> (Vec<usize>, Vec<u32>) {
    let mut known: Vec<u32> = scanned.to_vec();
    let (mut taken, mut binds) = (Vec::new(), Vec::new());
    let inner = |p: &Pat, known: &[u32], free_ok: bool| match p {
        Pat::Ground(_) => true,
        Pat::Var(v) => known.contains(v) || (free_ok && !before[*v as usize]),
        Pat::Func(..) => false,
    };
    for (i, step) in rest.iter().enumerate() {
        if absorbed[i] {
            continue;
        }
        let ok = match step {
            Step::Distinct(a, b) => inner(a, &known, false) && inner(b, &known, false),
            Step::Lit {
                source: Source::Static,
                args,
                negated,
                ..
            } => !args.is_empty() && args.iter().all(|a| inner(a, &known, !negated)),
            _ => false,
        };
        if !ok {
            break;
        }
        if let Step::Lit { args, .. } = step {
            for a in args.iter() {
                if let Pat::Var(v) = a {
                    if !known.contains(v) {
                        known.push(*v);
                        binds.push(*v);
                    }
                }
            }
        }
        taken.push(i);
    }
    (taken, binds)
}

/// Whether the variables of `p` are all among `known`.
pub fn computable(p: &Pat, known: &[u32]) -> bool {
    let mut all = true;
    p.for_each_var(&mut |v| all &= known.contains(&v));
    all
}

/// The terms and bits the steps `later` and the solution's `wanted`
/// columns build from the variables `known` (a scan of `scan` and its
/// join), each once: the bit of a fluent tested, the term of a compound
/// argument (where `terms`: not where terms are built at run time).
pub fn built<'s>(
    scan: &Pat,
    known: &[u32],
    later: impl Iterator<Item = &'s Step>,
    wanted: &[Column],
    terms: bool,
) -> Vec<Column> {
    let from_known = |a: &Pat| matches!(a, Pat::Func(..)) && a != scan && computable(a, known);
    let mut columns = Vec::new();
    for step in later {
        match step {
            Step::Lit {
                source: Source::True,
                args,
                ..
            } if from_known(&args[0]) => columns.push(Column::Bit(args[0].clone())),
            Step::Lit { source, args, .. } if *source != Source::True && terms => columns.extend(
                (args.iter())
                    .filter(|a| from_known(a))
                    .map(|a| Column::Term(a.clone())),
            ),
            _ => {}
        }
    }
    for c in wanted {
        match c {
            Column::Bit(q) if from_known(q) => columns.push(c.clone()),
            Column::Term(q) if terms && from_known(q) => columns.push(c.clone()),
            _ => {}
        }
    }
    let mut seen = Vec::new();
    columns.retain(|c| {
        let new = !seen.contains(c);
        seen.push(c.clone());
        new
    });
    columns
}

/// The function giving join `k`'s rows for a fluent's bit.
pub fn name(k: usize) -> Ident {
    format_ident!("prejoin_{}", k)
}

/// The items of the joins: per join, the rows of each fluent of its
/// functor by bit (`PREJOIN_ROWS_k`, `PREJOIN_START_k` where each fluent's
/// rows start) and its function.
pub fn items(
    facts: &Facts,
    layout: &Layout,
    joins: &[Prejoin],
    arrays: &mut Vec<DataArray>,
) -> TokenStream {
    let u = &facts.universe;
    let terms = compound_terms(u, !joins.is_empty());
    // Only a join's rows look fluents up by term.
    let bit_of_term = if joins.is_empty() {
        FxHashMap::default()
    } else {
        layout.bit_of_term()
    };
    let functors = u.functor_ids();
    let build = |p: &Pat, b: &Binding| build(p, b, &terms, &functors);
    let mut items = TokenStream::new();
    for (k, join) in joins.iter().enumerate() {
        let (first, starts, rows) = join_rows(facts, layout, join, &build, &bit_of_term);
        let w = join.columns.len();
        let (rows_name, starts_name) = (format!("PREJOIN_ROWS_{k}"), format!("PREJOIN_START_{k}"));
        let functor = u.functor_name(join.fid);
        arrays.push(DataArray {
            doc: format!("The rows of a static join of each fluent `({functor} ..)`, by bit."),
            name: rows_name.clone(),
            data: rows,
            may_be_unused: false,
            rows: Some(w),
        });
        arrays.push(super::tables::data(
            &format!(
                "Where each fluent's rows start in `{rows_name}`, by bit from the functor's first."
            ),
            starts_name.clone(),
            starts,
        ));
        items.extend(join_fn(k, first, w, &functor, (&rows_name, &starts_name)));
    }
    items
}

/// The compound terms of universe `u` by functor and arguments (none
/// unless `needed`).
fn compound_terms(u: &Universe, needed: bool) -> FxHashMap<(u32, &[u32]), u32> {
    let mut terms: FxHashMap<(u32, &[u32]), u32> = FxHashMap::default();
    if needed {
        for t in 0..u.len() {
            if u.functor[t] != NONE {
                terms.insert((u.functor[t], &u.args[t][..]), t as u32);
            }
        }
    }
    terms
}

/// Join `join`'s rows for each fluent of its functor (terms built by
/// `build`, bits looked up in `bit_of_term`): the bit of the functor's
/// first fluent, where each fluent's rows start (from that bit on, with
/// the end of the last) and the rows, flat.
fn join_rows(
    facts: &Facts,
    layout: &Layout,
    join: &Prejoin,
    build: &impl Fn(&Pat, &Binding) -> u32,
    bit_of_term: &FxHashMap<u32, u32>,
) -> (usize, Vec<u32>, Vec<u32>) {
    let u = &facts.universe;
    let of_functor = |t: u32| u.functor[t as usize] == join.fid;
    let first = layout
        .terms
        .iter()
        .position(|&t| of_functor(t))
        .unwrap_or(0);
    let end = (layout.terms.iter().rposition(|&t| of_functor(t))).map_or(first, |i| i + 1);
    let w = join.columns.len();
    let (mut starts, mut rows) = (vec![0u32], Vec::new());
    let mut work = usize::MAX;
    for &t in &layout.terms[first..end] {
        if of_functor(t) {
            let found = join.bindings(&u.args[t as usize], &facts.statics, &mut work);
            for b in found.unwrap_or_default() {
                rows.extend(join.columns.iter().map(|c| match c {
                    Column::Var(v) => b[*v as usize].unwrap_or(NONE),
                    Column::Term(p) => build(p, &b),
                    Column::Bit(p) => {
                        let t = build(p, &b);
                        bit_of_term.get(&t).copied().unwrap_or(NONE)
                    }
                }));
            }
        }
        starts.push((rows.len() / w.max(1)) as u32);
    }
    (first, starts, rows)
}

/// Join `k`'s function, giving the rows (`w` numbers wide, in the arrays
/// named `rows_name` and `starts_name`) of a fluent of `functor` from its
/// bit (its functor's fluents start at bit `first`).
fn join_fn(
    k: usize,
    first: usize,
    w: usize,
    functor: &str,
    (rows_name, starts_name): (&str, &str),
) -> TokenStream {
    let (rows_id, starts_id) = (
        format_ident!("{}", rows_name),
        format_ident!("{}", starts_name),
    );
    let f = name(k);
    let index = match first {
        0 => quote!(f as usize),
        _ => {
            let first = Literal::u32_unsuffixed(first as u32);
            quote!((f - #first) as usize)
        }
    };
    let doc = format!(" The rows of a static join of the fluent `({functor} ..)` at bit `f`.");
    let rows = quote!(&#rows_id[#starts_id[i] as usize..#starts_id[i + 1] as usize]);
    let ty = {
        let w = Literal::usize_unsuffixed(w);
        quote!(&'static [[u32; #w]])
    };
    quote! {
        #[doc = #doc]
        #[inline]
        fn #f(f: u32) -> #ty {
            let i = #index;
            #rows
        }
    }
}

/// The term pattern `p` builds with binding `b` (`NONE` outside the
/// universe).
fn build(
    p: &Pat,
    b: &Binding,
    terms: &FxHashMap<(u32, &[u32]), u32>,
    functors: &FxHashMap<(crate::front::symbols::Sym, usize), u32>,
) -> u32 {
    match p {
        Pat::Var(v) => b[*v as usize].unwrap_or(NONE),
        Pat::Ground(t) => *t,
        Pat::Func(f, args) => {
            let Some(&fid) = functors.get(&(*f, args.len())) else {
                return NONE;
            };
            let vals: Vec<u32> = args.iter().map(|a| build(a, b, terms, functors)).collect();
            if vals.contains(&NONE) {
                return NONE;
            }
            terms.get(&(fid, &vals[..])).copied().unwrap_or(NONE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{
        module_and_code, program_and_facts, relation_named, static_step, term,
    };
    use super::*;

    /// A row of three cells: a move takes a marked cell's mark one cell
    /// on, onto a cell not marked. (`succ` runs on past the row, so that
    /// the plan scans the marks first.)
    const ROW: &str = "(role r) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
        (succ 6 7) (succ 7 8) (succ 8 9)
        (init (cell 1 x)) (init (cell 2 b)) (init (cell 3 x))
        (<= (legal r (move ?a ?b)) (true (cell ?a x)) (succ ?a ?b)
            (not (true (cell ?b x))))
        (<= (next (cell ?b x)) (does r (move ?a ?b)))
        (<= (next (cell ?a b)) (does r (move ?a ?b)))
        (<= terminal (true (cell 2 x)))
        (<= (goal r 100) (true (cell 2 x)))";

    #[test]
    fn a_group_is_the_static_steps_over_the_scan_s_variables_up_to_another_step() {
        // The scan binds ?0 and ?1; ?2 was bound before it.
        let before = [false, false, true, false, false];
        let steps = [
            static_step(7, vec![Pat::Var(1), Pat::Var(3)], false),
            Step::Distinct(Pat::Var(3), Pat::Var(0)),
            static_step(7, vec![Pat::Var(3), Pat::Var(2)], false),
            static_step(7, vec![Pat::Var(0), Pat::Var(4)], false),
        ];
        let (taken, binds) = group(&steps, &[false; 4], &before, &[0, 1]);
        assert_eq!((taken, binds), (vec![0, 1], vec![3]));
        // A step already absorbed (a filter) is passed over; a negated
        // literal binds nothing.
        let negated = [static_step(7, vec![Pat::Var(0), Pat::Var(3)], true)];
        assert_eq!(
            group(&negated, &[false], &before, &[0, 1]).0,
            Vec::<usize>::new()
        );
        let (taken, _) = group(&steps, &[false, false, true, false], &before, &[0, 1]);
        assert_eq!(taken, [0, 1, 3]);
    }

    #[test]
    fn the_columns_built_are_the_later_steps_bits_and_terms_of_known_variables() {
        use crate::front::symbols::Sym;
        let (f, g) = (Sym(1), Sym(2));
        let pat = |s: Sym, vs: &[u32]| Pat::Func(s, vs.iter().map(|&v| Pat::Var(v)).collect());
        let scan = pat(f, &[0]);
        let of = |source: Source, args: Vec<Pat>| Step::Lit {
            source,
            rel: 3,
            bound: 0,
            args: args.into(),
            negated: false,
        };
        let later = [
            // A test of a fluent of known variables: its bit.
            of(Source::True, vec![pat(f, &[1])]),
            // The scanned fluent itself, and one with an unknown variable.
            of(Source::True, vec![scan.clone()]),
            of(Source::True, vec![pat(f, &[2])]),
            // A call's compound argument: its term.
            of(Source::Derived, vec![pat(g, &[0, 1]), Pat::Var(1)]),
        ];
        let wanted = [Column::Term(pat(g, &[0, 1])), Column::Bit(pat(g, &[1, 0]))];
        let columns = built(&scan, &[0, 1], later.iter(), &wanted, true);
        assert_eq!(
            columns,
            [
                Column::Bit(pat(f, &[1])),
                Column::Term(pat(g, &[0, 1])),
                Column::Bit(pat(g, &[1, 0])),
            ]
        );
        // Where terms are built at run time, bits only.
        let bits = built(&scan, &[0, 1], later.iter(), &wanted, false);
        assert!(bits.iter().all(|c| matches!(c, Column::Bit(_))), "{bits:?}");
    }

    #[test]
    fn a_fluent_s_bindings_join_its_arguments_with_the_static_tuples() {
        let statics = vec![None, Some(vec![vec![1, 2], vec![2, 3]])];
        let join = Prejoin {
            fid: 0,
            scan: vec![Pat::Var(0), Pat::Ground(9)],
            steps: vec![
                static_step(1, vec![Pat::Var(0), Pat::Var(1)], false),
                Step::Distinct(Pat::Var(1), Pat::Ground(3)),
            ],
            columns: vec![Column::Var(1)],
            num_vars: 2,
        };
        let mut work = 100;
        let of = |args: &[u32], work: &mut usize| join.bindings(args, &statics, work);
        assert_eq!(of(&[1, 9], &mut work), Some(vec![vec![Some(1), Some(2)]]));
        // `distinct` drops (2, 3); a constant not matched, no binding.
        assert_eq!(of(&[2, 9], &mut work), Some(vec![]));
        assert_eq!(of(&[1, 8], &mut work), Some(vec![]));
        // Past the work budget: no join.
        let mut none = 1;
        assert_eq!(of(&[1, 9], &mut none), None);
    }

    #[test]
    fn a_scan_s_static_join_is_a_table_of_its_variables_bits_and_terms() {
        let (program, facts) = program_and_facts(ROW);
        let (module, code) = module_and_code(&program, &facts);
        assert!(code.contains("inprejoin_0(f"), "{code}");
        assert!(code.contains("!bit_set(&self.state[..],"), "{code}");
        let rows = module
            .data
            .iter()
            .find(|d| d.name == "PREJOIN_ROWS_0")
            .unwrap();
        // Per row: ?b, the bit of (cell ?b x), the term (move ?a ?b).
        assert_eq!(rows.rows, Some(3));
        let u = &facts.universe;
        let term = |text: &str| term(&facts, text);
        let mut found: Vec<(u32, String)> = rows
            .data
            .chunks(3)
            .map(|r| (r[0], u.text[r[2] as usize].clone()))
            .collect();
        found.sort();
        // Each mark's one successor (marks reach the ninth cell).
        let expected: Vec<(u32, String)> = (1..=8)
            .map(|k| (term(&(k + 1).to_string()), format!("(move {k} {})", k + 1)))
            .collect();
        assert_eq!(found, expected);
        // The bits of the cells tested, each a fluent's.
        let bits: Vec<u32> = rows.data.chunks(3).map(|r| r[1]).collect();
        assert!(
            bits.iter().all(|&b| (b as usize) < facts.fluents.len()),
            "{bits:?}"
        );
        assert!(relation_named(&program, "succ") < facts.statics.len() as u32);
    }
}
