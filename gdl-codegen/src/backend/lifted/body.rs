//! Rule bodies as Rust: a plan's steps become nested `for`, `if` and `let`
//! around what a solution does (return `true`, or push the head's values).

use std::ops::Range;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::access::{BodyAccess, ScanPlan};
use super::filters;
use super::join_order::{Adorn, Source, Step};
use super::needs::Needs;
use super::plan::Lazy;
use super::prejoin::{self, Column};
use crate::rules::Pat;

/// A wrapper around the code that follows it.
enum Wrap {
    /// `let name = value;`
    Let(Ident, TokenStream),
    /// `if cond { .. }`
    If(TokenStream),
    /// `for pat in iter { .. }`
    For(TokenStream, TokenStream),
    /// A scan of the state (see [`Body::scan`]): `let mut scan = start;
    /// while let Some(bit) = scan.next(&self.state) { .. }`, with `scan`
    /// and `bit` named.
    Scan {
        scan: Ident,
        bit: Ident,
        start: TokenStream,
    },
    /// A statement before what follows.
    Stmt(TokenStream),
}

/// The code of one rule body: wrappers built step by step, closed around
/// the solution's code.
pub struct Body<'r> {
    reg: &'r mut Needs,
    bound: Vec<bool>,
    wraps: Vec<Wrap>,
    fresh: usize,
    /// Compound patterns matched so far, with the term each matched: built
    /// again later (a frame rule's head), a pattern is that term.
    matched: Vec<(Pat, Ident)>,
    /// Patterns matched by a scan of the state, with the bit of the
    /// fluent each matched: a `next` head that is one of them sets it.
    scanned: Vec<(Pat, Ident)>,
    /// The last scan of the state: where its loop is among the wrappers,
    /// its pattern, its mask and its filters.
    last_scan: Option<(usize, Pat, TokenStream, Vec<TokenStream>)>,
    /// The functors whose row tables the wrappers read, one entry per
    /// scan, registered when the body is finished: a scan dropped by
    /// [`Body::copy_scan`] reads none.
    rows_read: Vec<u32>,
    /// The component being computed, whose tables its rules read without
    /// asking for them again.
    pub within: Option<usize>,
    /// Terms and bits a static join of a scan gives (see [`prejoin`]), with
    /// the variable holding each.
    columns: Vec<(Column, Ident)>,
    /// Tests run at most once per binding of their variables, each with
    /// the variable keeping its answer (see [`super::openings`]).
    lazy: Vec<(Lazy, Ident)>,
    /// The variable keeping the answer of the test being printed, if lazy.
    cache: Option<Ident>,
}

/// A literal of a static or derived relation being printed: its relation
/// and arguments, which are bound (`keys`, their values `key_vals`) and
/// free, whether all are bound, and whether it is negated (`not` then `!`).
struct Lookup<'a> {
    rel: u32,
    args: &'a [Pat],
    bound: Adorn,
    keys: Vec<usize>,
    free: Vec<usize>,
    key_vals: Vec<TokenStream>,
    all: bool,
    negated: bool,
    not: TokenStream,
}

/// The identifier of rule variable `v`.
pub fn var(v: u32) -> Ident {
    format_ident!("v{}", v)
}

/// The identifier of call parameter `i`.
pub fn param(i: usize) -> Ident {
    format_ident!("a{}", i)
}

fn lit(n: u32) -> Literal {
    Literal::u32_unsuffixed(n)
}

impl<'r> Body<'r> {
    /// A body over `num_vars` variables.
    pub fn new(reg: &'r mut Needs, num_vars: usize, within: Option<usize>) -> Self {
        Body {
            reg,
            bound: vec![false; num_vars],
            wraps: Vec::new(),
            fresh: 0,
            matched: Vec::new(),
            scanned: Vec::new(),
            last_scan: None,
            rows_read: Vec::new(),
            within,
            columns: Vec::new(),
            lazy: Vec::new(),
            cache: None,
        }
    }

    /// A body going on inside this one (over at least `num_vars`
    /// variables), from what it has bound, closed on its own: one of the
    /// rules sharing this body's steps (see [`super::openings`]).
    pub fn fork(&mut self, num_vars: usize) -> Body<'_> {
        let mut bound = self.bound.clone();
        bound.resize(num_vars.max(bound.len()), false);
        Body {
            reg: &mut *self.reg,
            bound,
            wraps: Vec::new(),
            fresh: self.fresh,
            matched: self.matched.clone(),
            scanned: self.scanned.clone(),
            last_scan: None,
            rows_read: Vec::new(),
            within: self.within,
            columns: self.columns.clone(),
            lazy: Vec::new(),
            cache: None,
        }
    }

    /// Marks the `lazy` tests, each with the variable keeping its answer:
    /// the variable is declared before the step its [`Lazy::anchor`] names,
    /// and the test reads it.
    pub fn lazy(&mut self, lazy: Vec<(Lazy, Ident)>) {
        self.lazy = lazy;
    }

    /// Adds the code of the steps, each scan of the state as `access`
    /// plans it: the static tests it takes as filters and the static steps
    /// it joins leave the steps (see [`super::access`]).
    pub fn steps(&mut self, steps: &[Step], access: &BodyAccess) {
        self.steps_in(steps, access, 0..steps.len());
    }

    /// [`Body::steps`] for the steps in `range` only: those before it
    /// printed by the body this one is forked from, none of them taking
    /// one of these.
    pub fn steps_in(&mut self, steps: &[Step], access: &BodyAccess, range: Range<usize>) {
        let mut absorbed = vec![false; steps.len()];
        for i in range {
            let s = &steps[i];
            for (_, name) in self.lazy.iter().filter(|(l, _)| l.anchor == i) {
                (self.wraps).push(Wrap::Stmt(quote!(let mut #name: Option<bool> = None;)));
            }
            if absorbed[i] {
                continue;
            }
            match s {
                Step::Param { index, pat } => {
                    let p = param(*index);
                    self.matching(pat, quote!(#p));
                }
                Step::Distinct(a, b) => {
                    let (a, b) = (self.value(a), self.value(b));
                    self.wraps.push(Wrap::If(quote!(#a != #b)));
                }
                Step::Lit {
                    source: Source::True,
                    args,
                    negated: false,
                    ..
                } if !args[0].bound_by(&self.bound) => {
                    let plan = access.scan(i).cloned().unwrap_or_default();
                    plan.taken().for_each(|k| absorbed[i + 1 + k] = true);
                    self.scan(&args[0], &plan);
                    if let Some(join) = plan.prejoin {
                        self.join_rows(&prejoin::name(join.join), join.columns);
                    }
                }
                Step::Lit {
                    source,
                    rel,
                    args,
                    negated,
                    bound,
                } => {
                    self.cache = (self.lazy.iter())
                        .find(|(l, _)| l.step == i)
                        .map(|(_, name)| name.clone());
                    self.literal(*source, *rel, args, *negated, *bound);
                    self.cache = None;
                }
            }
        }
    }

    /// The loop over the rows join `f` gives for the fluent of the last
    /// scan, binding its variables and naming its other `columns`.
    fn join_rows(&mut self, f: &Ident, columns: Vec<Column>) {
        let bit = self.scanned.last().expect("the scan").1.clone();
        let row = self.fresh("row");
        self.wraps.push(Wrap::For(quote!(#row), quote!(#f(#bit))));
        for (i, c) in columns.into_iter().enumerate() {
            let i = Literal::usize_unsuffixed(i);
            let name = match &c {
                Column::Var(v) => {
                    self.bound[*v as usize] = true;
                    var(*v)
                }
                _ => self.fresh("c"),
            };
            self.wraps.push(Wrap::Let(name.clone(), quote!(#row[#i])));
            if !matches!(c, Column::Var(_)) {
                self.columns.push((c, name));
            }
        }
    }

    /// The variable holding column `c` of a static join, if one gives it.
    fn column(&self, c: &Column) -> Option<Ident> {
        self.columns
            .iter()
            .find(|(d, _)| d == c)
            .map(|(_, n)| n.clone())
    }

    /// Where the body ends with a scan of the fluents `head`, whose tests
    /// all went to its masks and filters: the code setting those of the
    /// state in `out`, in place of the loop, a word at a time (a frame
    /// rule of `next`); or of fluents whose head's bits are theirs moved by
    /// `shift` (see [`super::shift`]), shifted. The body must be finished
    /// around nothing.
    pub fn copy_scan(&mut self, head: &Pat, shift: Option<i64>) -> Option<TokenStream> {
        let (at, pat, mask, filters) = self.last_scan.as_ref()?;
        if (pat != head && shift.is_none())
            || !self.wraps[at + 1..]
                .iter()
                .all(|w| matches!(w, Wrap::Let(..)))
        {
            return None;
        }
        let copy = match shift {
            Some(d) if pat != head => {
                let d = Literal::i64_unsuffixed(d);
                quote!(or_bits_shifted(out, &self.state, #mask, [#(#filters),*], #d);)
            }
            _ => quote!(or_bits_in(out, &self.state[..], #mask, [#(#filters),*]);),
        };
        if self.fluent_functor(head).is_some() {
            self.rows_read.pop();
        }
        self.wraps.truncate(*at);
        self.last_scan = None;
        Some(copy)
    }

    /// Adds a literal, evaluated with what is bound now.
    pub fn literal_now(&mut self, source: Source, rel: u32, args: &[Pat], negated: bool) {
        let bound = super::join_order::adornment(args, &self.bound);
        let bound = if negated {
            (1 << args.len()) - 1
        } else {
            bound
        };
        self.literal(source, rel, args, negated, bound);
    }

    /// Adds a test of bound variables.
    pub fn test(&mut self, cond: TokenStream) {
        self.wraps.push(Wrap::If(cond));
    }

    /// Closes the body around `solution`.
    pub fn finish(self, solution: TokenStream) -> TokenStream {
        for fid in self.rows_read {
            self.reg.fluent_rows(fid);
        }
        self.wraps
            .into_iter()
            .rev()
            .fold(solution, |inner, w| match w {
                Wrap::Let(name, value) => quote!(let #name = #value; #inner),
                Wrap::If(cond) => quote!(if #cond { #inner }),
                Wrap::For(pat, iter) => quote!(for #pat in #iter { #inner }),
                Wrap::Scan { scan, bit, start } => quote! {
                    let mut #scan = #start;
                    while let Some(#bit) = #scan.next(&self.state) { #inner }
                },
                Wrap::Stmt(stmt) => quote!(#stmt #inner),
            })
    }

    /// The value of a pattern whose variables are all bound.
    pub fn value(&mut self, p: &Pat) -> TokenStream {
        match p {
            Pat::Var(v) => {
                let v = var(*v);
                quote!(#v)
            }
            Pat::Ground(t) => {
                let t = lit(*t);
                quote!(#t)
            }
            Pat::Func(f, args) => {
                if let Some((_, t)) = self.matched.iter().find(|(q, _)| q == p) {
                    return quote!(#t);
                }
                if let Some(c) = self.column(&Column::Term(p.clone())) {
                    return quote!(#c);
                }
                let vals: Vec<TokenStream> = args.iter().map(|a| self.value(a)).collect();
                let make = self.reg.make_table(*f, args.len());
                if self.reg.run_time_terms {
                    // The universe's term, or else one of the evaluation's.
                    let Some(fid) = self.reg.functor(*f, args.len()) else {
                        return quote!(NONE);
                    };
                    let fid = lit(fid);
                    let made = match make {
                        Some(make) => {
                            let each = (0..args.len()).map(Literal::usize_unsuffixed);
                            quote!(#make(#(a[#each]),*))
                        }
                        None => quote!(NONE),
                    };
                    return quote!({
                        let a = [#(#vals),*];
                        self.make_term(#made, #fid, &a)
                    });
                }
                match make {
                    Some(make) => quote!(#make(#(#vals),*)),
                    None => quote!(NONE),
                }
            }
        }
    }

    fn fresh(&mut self, prefix: &str) -> Ident {
        self.fresh += 1;
        format_ident!("{}{}", prefix, self.fresh)
    }

    /// Matches `p` against the term id `value`, binding its free variables.
    pub fn matching(&mut self, p: &Pat, value: TokenStream) {
        if p.bound_by(&self.bound) {
            let v = self.value(p);
            self.wraps.push(Wrap::If(quote!(#value == #v)));
            return;
        }
        match p {
            Pat::Var(v) => {
                self.bound[*v as usize] = true;
                self.wraps.push(Wrap::Let(var(*v), value));
            }
            Pat::Ground(_) => unreachable!("a ground pattern is bound"),
            Pat::Func(f, args) => {
                let Some(fid) = self.reg.functor(*f, args.len()) else {
                    // No term has this functor: the match fails, and the
                    // code after it (dead) still needs its variables.
                    self.wraps.push(Wrap::If(quote!(false)));
                    let mut unbound = Vec::new();
                    p.for_each_var(&mut |v| {
                        if !self.bound[v as usize] && !unbound.contains(&v) {
                            unbound.push(v);
                        }
                    });
                    for v in unbound {
                        self.bound[v as usize] = true;
                        self.wraps.push(Wrap::Let(var(v), quote!(NONE)));
                    }
                    return;
                };
                let t = self.fresh("t");
                let xs = self.fresh("x");
                let fid = lit(fid);
                self.wraps.push(Wrap::Let(t.clone(), value));
                if self.reg.run_time_terms {
                    let n = Literal::usize_unsuffixed(args.len());
                    self.wraps
                        .push(Wrap::If(quote!(self.functor_of(#t) == #fid)));
                    self.wraps
                        .push(Wrap::Let(xs.clone(), quote!(self.args_of::<#n>(#t))));
                } else {
                    self.wraps.push(Wrap::If(quote!(functor(#t) == #fid)));
                    self.wraps.push(Wrap::Let(xs.clone(), quote!(args(#t))));
                }
                for (i, a) in args.iter().enumerate() {
                    let i = Literal::usize_unsuffixed(i);
                    self.matching(a, quote!(#xs[#i]));
                }
                self.matched.push((p.clone(), t));
            }
        }
    }

    /// Binds a row's columns: `cols[j]` is the argument in column
    /// `offset + j`.
    fn match_row(&mut self, row: &Ident, args: &[Pat], cols: &[usize], offset: usize) {
        for (j, &c) in cols.iter().enumerate() {
            let j = Literal::usize_unsuffixed(offset + j);
            self.matching(&args[c], quote!(#row[#j]));
        }
    }

    fn literal(&mut self, source: Source, rel: u32, args: &[Pat], negated: bool, bound: Adorn) {
        let all = args.iter().all(|a| a.bound_by(&self.bound));
        let (keys, free): (Vec<usize>, Vec<usize>) =
            (0..args.len()).partition(|&i| bound >> i & 1 == 1);
        let not = if negated { quote!(!) } else { quote!() };
        match source {
            Source::True => return self.state_literal(&args[0], all, &not),
            Source::Does => return self.does_literal(args, all, &not),
            _ => {}
        }
        // Only now: a value built for nothing would register its builder.
        let key_vals: Vec<TokenStream> = keys.iter().map(|&i| self.value(&args[i])).collect();
        let lookup = Lookup {
            rel,
            args,
            bound,
            keys,
            free,
            key_vals,
            all,
            negated,
            not,
        };
        match source {
            Source::True | Source::Does => unreachable!("printed above"),
            Source::Static => self.static_literal(&lookup),
            Source::Derived => self.derived_literal(&lookup),
            Source::Table => self.table_literal(rel, args, all, &lookup.not),
        }
    }

    /// A literal of a static relation: a constant when it has no
    /// arguments, a check when all are bound, else a loop over its table's
    /// rows (those of the keys' values through its index).
    fn static_literal(&mut self, l: &Lookup) {
        let Lookup {
            rel,
            args,
            bound,
            keys,
            free,
            key_vals,
            all,
            negated,
            not,
        } = l;
        if args.is_empty() {
            let holds = self.reg.static_nonempty(*rel) != *negated;
            self.wraps.push(Wrap::If(quote!(#holds)));
            return;
        }
        if *all {
            let check = self.reg.static_check(*rel);
            self.wraps
                .push(Wrap::If(quote!(#not #check(#(#key_vals),*))));
        } else {
            let table = self.reg.static_table(*rel, *bound);
            let row = self.fresh("row");
            // Rows are arrays (`[u32; W]`): constant column indexes.
            let rows = if keys.is_empty() {
                quote!(#table.iter())
            } else {
                let index = format_ident!("{}_INDEX", table);
                match key_vals.as_slice() {
                    [k] => quote!(#index.rows1(#k)),
                    [k0, k1] => quote!(#index.rows2(#k0, #k1)),
                    _ => quote!(#index.rows(&[#(#key_vals),*])),
                }
            };
            self.wraps.push(Wrap::For(quote!(#row), rows));
            // The table's columns are the keys, then the rest.
            self.match_row(&row, args, free, keys.len());
        }
    }

    /// A literal of a derived relation: a call's test when all its
    /// arguments are bound (or only its existence matters), else a loop over
    /// the call's answers.
    fn derived_literal(&mut self, l: &Lookup) {
        let Lookup {
            rel,
            args,
            bound,
            free,
            key_vals,
            all,
            not,
            ..
        } = l;
        let test = *all || bound & super::join_order::EXISTS != 0;
        let f = self.reg.call_name(*rel, *bound);
        if test {
            let cond = quote!(#not self.#f(#(#key_vals),*));
            let cond = match self.cache.take() {
                Some(c) => quote!(match #c {
                    Some(answer) => answer,
                    None => {
                        let answer = #cond;
                        #c = Some(answer);
                        answer
                    }
                }),
                None => cond,
            };
            self.wraps.push(Wrap::If(cond));
        } else {
            // The answers are a range of the call's arena, read by
            // index: the loop's body may call on and add to it.
            let arena = format_ident!("arena_{}", f);
            let (i, row) = (self.fresh("i"), self.fresh("row"));
            self.wraps.push(Wrap::For(
                quote!(#i),
                quote!({
                    let (start, end) = self.#f(#(#key_vals),*);
                    start..end
                }),
            ));
            self.wraps
                .push(Wrap::Let(row.clone(), quote!(self.#arena[#i as usize])));
            self.match_row(&row, args, free, 0);
        }
    }

    /// A literal of a relation kept in a table of a component (computed
    /// first unless it is the one being computed): a binary search when
    /// all its arguments are bound, else a loop over the table's rows.
    fn table_literal(&mut self, rel: u32, args: &[Pat], all: bool, not: &TokenStream) {
        let (comp, field) = self.reg.table(rel);
        if self.within != Some(comp) {
            let f = format_ident!("component_{}", comp);
            self.wraps.push(Wrap::Stmt(quote!(self.#f();)));
        }
        if all {
            let vals: Vec<TokenStream> = args.iter().map(|a| self.value(a)).collect();
            self.wraps.push(Wrap::If(
                quote!(#not self.#field.binary_search(&[#(#vals),*]).is_ok()),
            ));
        } else {
            let (i, row) = (self.fresh("i"), self.fresh("row"));
            self.wraps
                .push(Wrap::For(quote!(#i), quote!(0..self.#field.len())));
            self.wraps
                .push(Wrap::Let(row.clone(), quote!(self.#field[#i])));
            let cols: Vec<usize> = (0..args.len()).collect();
            self.match_row(&row, args, &cols, 0);
        }
    }

    /// `true(p)`: a bit test when `p` is bound, else the state's fluents of
    /// `p`'s functor.
    fn state_literal(&mut self, p: &Pat, all: bool, not: &TokenStream) {
        if let Some(c) = all.then(|| self.column(&Column::Bit(p.clone()))).flatten() {
            self.wraps
                .push(Wrap::If(quote!(#not bit_set(&self.state[..], #c))));
            return;
        }
        if all {
            let test = match self.fluent_functor(p) {
                // Built from its arguments: their ranks give the bit.
                Some((fid, args)) if !self.matched.iter().any(|(q, _)| q == p) => {
                    let vals: Vec<TokenStream> = args.iter().map(|a| self.value(a)).collect();
                    let h = self.reg.holds_fn(fid);
                    quote!(#h(&self.state, #(#vals),*))
                }
                _ => {
                    let v = self.value(p);
                    quote!(self.holds(#v))
                }
            };
            self.wraps.push(Wrap::If(quote!(#not #test)));
            return;
        }
        self.scan(p, &ScanPlan::default());
    }

    /// The loop over the fluents of the state `p` can match, as `plan`
    /// says: those with its bound arguments' values (a value mask) and
    /// passing its filters, binding the rest.
    fn scan(&mut self, p: &Pat, plan: &ScanPlan) {
        let (mask, selected) = match self.value_mask(p, plan.value_mask.as_deref()) {
            Some(mask) => (mask, plan.value_mask.clone().unwrap_or_default()),
            None => {
                let mask = self.reg.mask(p);
                (quote!(#mask), Vec::new())
            }
        };
        let filters: Vec<TokenStream> = (plan.filters.iter())
            .map(|u| {
                let f = filters::name(u.filter);
                let keys = u.keys.iter().map(|&v| var(v));
                quote!(#f(#(#keys),*))
            })
            .collect();
        let f = self.fresh("f");
        // The scan borrows the state at each step only: the loop's body
        // calls on the evaluation that holds it.
        let start = if filters.is_empty() {
            quote!(set_bits_in(&self.state, #mask))
        } else {
            quote!(set_bits_filtered(&self.state, #mask, [#(#filters),*]))
        };
        self.last_scan = Some((self.wraps.len(), p.clone(), mask, filters));
        self.wraps.push(Wrap::Scan {
            scan: format_ident!("scan_{}", f),
            bit: f.clone(),
            start,
        });
        match self.fluent_functor(p) {
            Some((fid, args)) => self.match_fluent_row(p, fid, args, &f, &selected),
            None => self.matching(p, quote!(FLUENT_TERM[#f as usize])),
        }
        self.scanned.push((p.clone(), f));
    }

    /// The state's bit of the fluent `p` (bound), `NONE` if `p` is no
    /// fluent: the bit a scan matched it at, or its arguments' ranks, or
    /// else its term's bit.
    pub fn fluent_bit(&mut self, p: &Pat) -> TokenStream {
        if let Some((_, f)) = self.scanned.iter().find(|(q, _)| q == p) {
            return quote!(#f);
        }
        if let Some(c) = self.column(&Column::Bit(p.clone())) {
            return quote!(#c);
        }
        match self.fluent_functor(p) {
            Some((fid, args)) if !self.matched.iter().any(|(q, _)| q == p) => {
                let vals: Vec<TokenStream> = args.iter().map(|a| self.value(a)).collect();
                let b = self.reg.bit_fn(fid);
                quote!(#b(#(#vals),*))
            }
            _ => {
                let v = self.value(p);
                quote!(fluent_of(#v))
            }
        }
    }

    /// The functor id and arguments of a compound `true` pattern whose
    /// functor some fluent has.
    fn fluent_functor<'p>(&self, p: &'p Pat) -> Option<(u32, &'p [Pat])> {
        super::access::fluent_functor(self.reg, p)
    }

    /// Matches `p`, of functor `fid`, against the fluent at bit `f` of a
    /// scan whose mask holds only fluents of `fid`: its arguments are read
    /// from the functor's row table (`[args.., term]` per bit), without
    /// testing the functor, and arguments `selected`, whose values the mask
    /// chose, are not tested again.
    fn match_fluent_row(&mut self, p: &Pat, fid: u32, args: &[Pat], f: &Ident, selected: &[usize]) {
        let (table, first) = super::fluent_rows_names(fid);
        self.rows_read.push(fid);
        let x = self.fresh("x");
        self.wraps.push(Wrap::Let(
            x.clone(),
            quote!(&#table[(#f - #first) as usize]),
        ));
        for (i, a) in args.iter().enumerate() {
            if selected.contains(&i) {
                continue;
            }
            let i = Literal::usize_unsuffixed(i);
            self.matching(a, quote!(#x[#i]));
        }
        let t = self.fresh("t");
        let n = Literal::usize_unsuffixed(args.len());
        self.wraps.push(Wrap::Let(t.clone(), quote!(#x[#n])));
        self.matched.push((p.clone(), t));
    }

    /// For a scan of `true(p)` whose bound arguments `positions` select
    /// its fluents, the mask of the fluents with those values there.
    fn value_mask(&mut self, p: &Pat, positions: Option<&[usize]>) -> Option<TokenStream> {
        let Pat::Func(f, args) = p else { return None };
        let fid = self.reg.functor(*f, args.len())?;
        let positions = positions?;
        let values: Vec<TokenStream> = positions.iter().map(|&i| self.value(&args[i])).collect();
        Some(self.reg.value_mask(fid, positions, &values))
    }

    /// `does(r, m)`: the joint move, role by role.
    fn does_literal(&mut self, args: &[Pat], all: bool, not: &TokenStream) {
        if all {
            let (r, m) = (self.value(&args[0]), self.value(&args[1]));
            self.wraps.push(Wrap::If(quote!(#not self.does(#r, #m))));
            return;
        }
        let (ri, m) = (self.fresh("r"), self.fresh("m"));
        self.wraps.push(Wrap::For(
            quote!((#ri, #m)),
            quote!({ self.joint }
                .into_iter()
                .enumerate()
                .filter(|&(_, m)| m != NONE)),
        ));
        self.matching(&args[0], quote!(ROLE_TERM[#ri]));
        self.matching(&args[1], quote!(#m));
    }

    /// The values of `pats` (all bound), as an array expression.
    pub fn row(&mut self, pats: &[Pat]) -> TokenStream {
        let vals: Vec<TokenStream> = pats.iter().map(|p| self.value(p)).collect();
        quote!([#(#vals),*])
    }
}
