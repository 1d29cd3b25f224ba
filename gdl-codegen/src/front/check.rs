//! The static checks of valid GDL (Definitions 3 and 4 of the GDL semantics,
//! `shared/seeds/003_*.txt`): arities, safety (allowedness), stratified
//! negation, the recursion restriction, and the keyword restrictions.
//!
//! Every check runs and reports all it finds; nothing stops at the first
//! problem.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::front::deps::DepGraph;
use crate::front::diag::{codes, Diagnostic, Diagnostics};
use crate::front::ir::{Atom, Keyword, Literal, PredId, Program, Rule, Term};
use crate::front::source::Span;
use crate::front::symbols::Sym;
use crate::scc::tarjan;

/// Checks `program`, appending problems to `diags`. With `complete` false
/// (the reader already reported errors, so some rules are missing) the checks
/// that need the whole program, such as missing definitions, are skipped.
pub fn check(program: &Program, complete: bool, diags: &mut Diagnostics) {
    if program.rules.is_empty() {
        if complete {
            diags.push(
                Diagnostic::error(
                    codes::EMPTY,
                    "the description holds no rules",
                    Span::default(),
                )
                .with_label("empty game")
                .with_note(
                    "a game needs at least `role`, `legal`, `terminal` and `goal` definitions",
                ),
            );
        }
        return;
    }
    let graph = DepGraph::new(program);
    let c = Checker {
        program,
        graph: &graph,
    };
    c.arities(diags);
    c.safety(diags);
    c.keywords(diags, complete);
    c.stratification(diags);
    c.recursion(diags);
    if complete {
        // With rules missing, "never defined" would mostly be noise.
        c.undefined(diags);
    }
}

struct Checker<'a> {
    program: &'a Program,
    graph: &'a DepGraph,
}

fn atoms(rule: &Rule) -> impl Iterator<Item = &Atom> {
    std::iter::once(&rule.head).chain(rule.body.iter().filter_map(|l| match l {
        Literal::Pos(a) | Literal::Neg(a) => Some(a),
        Literal::Distinct(..) => None,
    }))
}

/// Every term of a rule with the span of the literal holding it.
fn terms(rule: &Rule) -> impl Iterator<Item = (&Term, Span)> {
    atoms(rule)
        .flat_map(|a| a.args.iter().map(move |t| (t, a.span)))
        .chain(rule.body.iter().flat_map(|l| match l {
            Literal::Distinct(a, b, s) => vec![(a, *s), (b, *s)],
            _ => Vec::new(),
        }))
}

fn walk_funcs(t: &Term, f: &mut impl FnMut(Sym, usize)) {
    if let Term::Func(name, args) = t {
        f(*name, args.len());
        args.iter().for_each(|a| walk_funcs(a, f));
    }
}

fn vars_of(atom_args: &[Term], out: &mut FxHashSet<u32>) {
    for t in atom_args {
        t.for_each_var(&mut |v| {
            out.insert(v);
        });
    }
}

impl Checker<'_> {
    fn name(&self, s: Sym) -> &str {
        self.program.symbols.name(s)
    }

    fn pred_name(&self, p: PredId) -> String {
        let info = self.program.pred(p);
        if info.parens {
            format!("({})", self.name(info.name))
        } else {
            self.name(info.name).to_owned()
        }
    }

    fn var_list(&self, rule: &Rule, vars: &[u32]) -> String {
        vars.iter()
            .map(|&v| format!("`{}`", self.name(rule.var_names[v as usize])))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn arities(&self, diags: &mut Diagnostics) {
        // First use of each (name, arity) as a relation and as a function.
        let mut rel: FxHashMap<Sym, Vec<(usize, Span)>> = FxHashMap::default();
        let mut func: FxHashMap<Sym, Vec<(usize, Span)>> = FxHashMap::default();
        for rule in &self.program.rules {
            for atom in atoms(rule) {
                let info = self.program.pred(atom.pred);
                let uses = rel.entry(info.name).or_default();
                if !uses.iter().any(|&(n, _)| n == info.arity) {
                    uses.push((info.arity, atom.span));
                }
            }
            for (t, span) in terms(rule) {
                walk_funcs(t, &mut |name, n| {
                    let uses = func.entry(name).or_default();
                    if !uses.iter().any(|&(m, _)| m == n) {
                        uses.push((n, span));
                    }
                    if let Some(kw) = self.program.symbols.as_keyword(name) {
                        diags.push(
                            Diagnostic::error(
                                codes::KEYWORD_AS_FUNCTION,
                                format!("the keyword `{}` is used as a function symbol inside a term", kw.name()),
                                span,
                            )
                            .with_label(format!("`{}` appears nested inside this literal", kw.name()))
                            .with_note("GDL keywords may only name relations, never functions inside terms")
                            .with_help(format!("use `{}` as a literal of the rule body, not as an argument", kw.name())),
                        );
                    }
                });
            }
        }
        let mut names: Vec<_> = rel.keys().copied().collect();
        names.sort();
        for name in names {
            let uses = &rel[&name];
            if let Some(kw) = self.program.symbols.as_keyword(name) {
                for &(n, span) in uses.iter().filter(|(n, _)| *n != kw.arity()) {
                    diags.push(
                        Diagnostic::error(
                            codes::KEYWORD_ARITY,
                            format!("`{}` takes {} argument(s), not {n}", kw.name(), kw.arity()),
                            span,
                        )
                        .with_label(format!("`{}` with {n} argument(s)", kw.name()))
                        .with_note("GDL fixes the arity of every keyword"),
                    );
                }
                continue;
            }
            if let [(first, first_span), rest @ ..] = uses.as_slice() {
                for &(n, span) in rest {
                    diags.push(
                        Diagnostic::error(
                            codes::ARITY,
                            format!("relation `{}` is used with {n} argument(s) here but {first} elsewhere", self.name(name)),
                            span,
                        )
                        .with_label(format!("{n} argument(s)"))
                        .with_related(*first_span, format!("first used with {first} argument(s) here"))
                        .with_note("a relation must have the same number of arguments everywhere")
                        .with_help("rename one of the two relations, or correct the arguments"),
                    );
                }
            }
            if let Some(fuses) = func.get(&name) {
                diags.push(
                    Diagnostic::warning(
                        codes::REL_AND_FUNC,
                        format!(
                            "`{}` is used both as a relation and as a function",
                            self.name(name)
                        ),
                        fuses[0].1,
                    )
                    .with_label("used as a function inside this literal")
                    .with_related(uses[0].1, "used as a relation here")
                    .with_help("this is legal, but often a forgotten `true`: `(true (cell ..))`"),
                );
            }
        }
        let mut fnames: Vec<_> = func.keys().copied().collect();
        fnames.sort();
        for name in fnames {
            if let [(first, first_span), rest @ ..] = func[&name].as_slice() {
                for &(n, span) in rest {
                    diags.push(
                        Diagnostic::error(
                            codes::ARITY,
                            format!("function `{}` is used with {n} argument(s) here but {first} elsewhere", self.name(name)),
                            span,
                        )
                        .with_label(format!("a term `({} ..)` with {n} argument(s) is in this literal", self.name(name)))
                        .with_related(*first_span, format!("first used with {first} argument(s) here"))
                        .with_note("a function symbol must have the same number of arguments everywhere")
                        .with_help("rename one of the two functions, or correct the arguments"),
                    );
                }
            }
        }
    }

    fn safety(&self, diags: &mut Diagnostics) {
        for rule in &self.program.rules {
            let mut bound = FxHashSet::default();
            for lit in &rule.body {
                if let Literal::Pos(a) = lit {
                    vars_of(&a.args, &mut bound);
                }
            }
            let unbound = |args: &[Term]| {
                let mut vs = Vec::new();
                for t in args {
                    t.for_each_var(&mut |v| {
                        if !bound.contains(&v) && !vs.contains(&v) {
                            vs.push(v);
                        }
                    });
                }
                vs
            };
            let note = "GDL requires every variable of a rule to occur in a positive body literal (Definition 3, allowedness)";
            let vs = unbound(&rule.head.args);
            if !vs.is_empty() {
                diags.push(
                    Diagnostic::error(
                        codes::UNSAFE_HEAD,
                        format!("unsafe rule: variable(s) {} of the head are not bound by any positive body literal", self.var_list(rule, &vs)),
                        rule.head.span,
                    )
                    .with_label("head variables without a binding")
                    .with_note(note)
                    .with_help("add a positive literal that binds them, such as a domain relation"),
                );
            }
            for lit in &rule.body {
                let (vs, code, what) = match lit {
                    Literal::Neg(a) => (unbound(&a.args), codes::UNSAFE_NOT, "negated literal"),
                    Literal::Distinct(a, b, _) => (
                        unbound(&[a.clone(), b.clone()]),
                        codes::UNSAFE_DISTINCT,
                        "`distinct`",
                    ),
                    Literal::Pos(_) => continue,
                };
                if !vs.is_empty() {
                    diags.push(
                        Diagnostic::error(
                            code,
                            format!("unsafe rule: variable(s) {} of a {what} are not bound by any positive body literal", self.var_list(rule, &vs)),
                            lit.span(),
                        )
                        .with_label("variables without a binding")
                        .with_note(note)
                        .with_help("bind them in a positive literal of the same rule"),
                    );
                }
            }
        }
    }

    fn kw(&self, kw: Keyword) -> Option<PredId> {
        self.program.keyword_pred(kw)
    }

    fn keywords(&self, diags: &mut Diagnostics, complete: bool) {
        let misuse = |span: Span, msg: String, label: &str, note: &str| {
            Diagnostic::error(codes::KEYWORD_MISUSE, msg, span)
                .with_label(label.to_owned())
                .with_note(note.to_owned())
        };
        for rule in &self.program.rules {
            match self.program.pred_keyword(rule.head.pred) {
                Some(Keyword::Role) if !rule.body.is_empty() => diags.push(misuse(
                    rule.head.span,
                    "`role` defined by a rule".into(),
                    "roles must be plain facts",
                    "GDL: `role` only appears in the head of clauses with an empty body",
                )),
                Some(Keyword::Role) if !rule.head.args.iter().all(Term::is_ground) => diags.push(
                    Diagnostic::error(
                        codes::NON_GROUND,
                        "a role must be a ground term",
                        rule.head.span,
                    )
                    .with_label("variable in a role fact"),
                ),
                Some(kw @ (Keyword::True | Keyword::Does)) => diags.push(misuse(
                    rule.head.span,
                    format!("`{}` in the head of a rule", kw.name()),
                    "not allowed in a head",
                    &format!("GDL: `{}` only appears in rule bodies", kw.name()),
                )),
                Some(Keyword::Goal) => {
                    if let Some(v) = rule.head.args.get(1).filter(|t| t.is_ground()) {
                        let ok = match v {
                            Term::Const(s) => self.name(*s).parse::<u8>().is_ok_and(|n| n <= 100),
                            _ => false,
                        };
                        if !ok {
                            let mut text = String::new();
                            self.program.write_term(&mut text, v, Some(rule));
                            diags.push(
                                Diagnostic::error(
                                    codes::GOAL_VALUE,
                                    format!("goal value `{text}` is not an integer from 0 to 100"),
                                    rule.head.span,
                                )
                                .with_label("invalid goal value")
                                .with_note("GDL goal values are integers between 0 and 100"),
                            );
                        }
                    }
                }
                _ => {}
            }
            for lit in &rule.body {
                let (Literal::Pos(a) | Literal::Neg(a)) = lit else {
                    continue;
                };
                if let Some(kw @ (Keyword::Init | Keyword::Next)) =
                    self.program.pred_keyword(a.pred)
                {
                    diags.push(misuse(
                        a.span,
                        format!("`{}` in the body of a rule", kw.name()),
                        "not allowed in a body",
                        &format!("GDL: `{}` only appears in rule heads; to test the current state use `true`", kw.name()),
                    ));
                }
            }
        }
        // Dependencies GDL forbids.
        let forbid = |from: Keyword, to: &[Keyword], why: &str, diags: &mut Diagnostics| {
            let Some(f) = self.kw(from) else { return };
            for &t in to {
                let Some(tp) = self.kw(t) else { continue };
                if let Some(path) = self.graph.path(f, tp) {
                    let last = path.last().copied();
                    let span = last.map_or(Span::default(), |e| self.lit_span(e.rule, e.literal));
                    let chain = std::iter::once(from.name().to_owned())
                        .chain(path.iter().map(|e| self.pred_name(e.to)))
                        .collect::<Vec<_>>()
                        .join(" -> ");
                    let mut d = Diagnostic::error(
                        codes::KEYWORD_DEPENDENCY,
                        format!("`{}` depends on `{}`: {chain}", from.name(), t.name()),
                        span,
                    )
                    .with_label(format!("`{}` reached here", t.name()))
                    .with_note(why.to_owned());
                    for e in &path[..path.len().saturating_sub(1)] {
                        d = d.with_related(
                            self.lit_span(e.rule, e.literal),
                            format!("depends on `{}`", self.pred_name(e.to)),
                        );
                    }
                    diags.push(d);
                }
            }
        };
        use Keyword::*;
        forbid(Init, &[True, Does, Legal, Next, Terminal, Goal], "GDL: the initial state may not depend on `true`, `does`, `legal`, `next`, `terminal` or `goal`", diags);
        for kw in [Legal, Terminal, Goal] {
            forbid(kw, &[Does], "GDL: `legal`, `terminal` and `goal` may not depend on the moves being made (`does`)", diags);
        }
        for kw in [Base, Input] {
            forbid(kw, &[True, Does], "GDL: `base` and `input` describe all possible states and moves, so they may not depend on the current state", diags);
        }
        if complete {
            for kw in [Role, Legal, Terminal, Goal] {
                let defined = self
                    .kw(kw)
                    .is_some_and(|p| self.program.rules.iter().any(|r| r.head.pred == p));
                if !defined {
                    diags.push(
                        Diagnostic::error(codes::MISSING, format!("the game never defines `{}`", kw.name()), Span::default())
                            .with_label("missing definition")
                            .with_note("every game needs `role` facts and `legal`, `terminal` and `goal` rules"),
                    );
                }
            }
        }
    }

    fn lit_span(&self, rule: usize, lit: usize) -> Span {
        self.program.rules[rule].body[lit].span()
    }

    /// Negation cycles: first at the level of relation names; a cycle found
    /// there is then looked for again with relations split by their constant
    /// arguments (rule heads against the literals that can match them), where
    /// `(<= (goal r 100) (not (goal r 0)))` is no cycle.
    fn stratification(&self, diags: &mut Diagnostics) {
        let g = self.graph;
        let mut bad_sccs = FxHashSet::default();
        for (p, es) in g.edges.iter().enumerate() {
            for e in es {
                if e.negative && g.scc[p] == g.scc[e.to.0 as usize] {
                    bad_sccs.insert(g.scc[p]);
                }
            }
        }
        if bad_sccs.is_empty() {
            return;
        }
        let rules = &self.program.rules;
        // Rule-level graph restricted to rules whose head is in a bad SCC.
        let in_bad = |p: PredId| bad_sccs.contains(&g.scc[p.0 as usize]);
        let nodes: Vec<usize> = (0..rules.len())
            .filter(|&r| in_bad(rules[r].head.pred))
            .collect();
        let pos: FxHashMap<usize, usize> = nodes.iter().enumerate().map(|(i, &r)| (r, i)).collect();
        let mut by_head: FxHashMap<PredId, Vec<usize>> = FxHashMap::default();
        for &r in &nodes {
            by_head.entry(rules[r].head.pred).or_default().push(r);
        }
        // edges[i] = (j, negative, literal index)
        let mut edges: Vec<Vec<(usize, bool, usize)>> = vec![Vec::new(); nodes.len()];
        for (i, &r) in nodes.iter().enumerate() {
            for (li, lit) in rules[r].body.iter().enumerate() {
                let (a, neg) = match lit {
                    Literal::Pos(a) => (a, false),
                    Literal::Neg(a) => (a, true),
                    Literal::Distinct(..) => continue,
                };
                for &s in by_head.get(&a.pred).into_iter().flatten() {
                    if may_match_atoms(a, &rules[s].head) {
                        edges[i].push((pos[&s], neg, li));
                    }
                }
            }
        }
        let comp = tarjan(&edges, |e| e.0).comp;
        let mut reported = FxHashSet::default();
        for (i, es) in edges.iter().enumerate() {
            for &(j, neg, li) in es {
                if !neg || comp[i] != comp[j] || !reported.insert(comp[i]) {
                    continue;
                }
                // The cycle: i --not--> j ~~> i.
                let back = bfs(&edges, j, i, &comp);
                let mut steps = vec![(i, true, li)];
                let mut cur = j;
                for (next, n, l) in back {
                    steps.push((cur, n, l));
                    cur = next;
                }
                let mut chain = self.pred_name(rules[nodes[i]].head.pred);
                for &(from, n, l) in &steps {
                    let (Literal::Pos(a) | Literal::Neg(a)) = &rules[nodes[from]].body[l] else {
                        continue;
                    };
                    chain.push_str(if n { " -> not " } else { " -> " });
                    chain.push_str(&self.pred_name(a.pred));
                }
                let mut d = Diagnostic::error(
                    codes::NEG_CYCLE,
                    format!("negation cycle: {chain}"),
                    rules[nodes[i]].body[li].span(),
                )
                .with_label("negation on a cycle")
                .with_note("GDL requires stratified negation: no relation may depend on its own negation (Definition 3)")
                .with_help("break the cycle, for example by computing the negated relation from the previous state");
                for &(from, n, l) in &steps[1..] {
                    d = d.with_related(
                        rules[nodes[from]].body[l].span(),
                        if n { "depends negatively" } else { "depends" },
                    );
                }
                diags.push(d);
            }
        }
        // Cycles that only exist between relation names.
        let mut warned = FxHashSet::default();
        for (p, es) in g.edges.iter().enumerate() {
            for e in es {
                if !e.negative || g.scc[p] != g.scc[e.to.0 as usize] {
                    continue;
                }
                let r = e.rule;
                let real = pos.get(&r).is_some_and(|&i| reported.contains(&comp[i]));
                if !real && warned.insert(g.scc[p]) {
                    diags.push(
                        Diagnostic::warning(
                            codes::NEG_CYCLE_NAMES,
                            format!(
                                "`{}` depends on `not {}`, which depends back on it, but only for other arguments",
                                self.pred_name(PredId(p as u32)),
                                self.pred_name(e.to)
                            ),
                            self.lit_span(e.rule, e.literal),
                        )
                        .with_label("negation within a recursive relation")
                        .with_note("with relations split by their constant arguments there is no cycle, so the game is stratified; some tools reject it"),
                    );
                }
            }
        }
    }

    /// Definition 3, condition 3: in a rule whose head `p` lies on a cycle
    /// with a positive body literal `q`, every argument of `q` is ground, an
    /// argument of the head, or has its variables bound by literals off the
    /// cycle.
    fn recursion(&self, diags: &mut Diagnostics) {
        let g = self.graph;
        for rule in &self.program.rules {
            let p = rule.head.pred;
            let mut outside = FxHashSet::default();
            for lit in &rule.body {
                if let Literal::Pos(a) = lit {
                    if !g.in_cycle(p, a.pred) || g.scc[a.pred.0 as usize] != g.scc[p.0 as usize] {
                        vars_of(&a.args, &mut outside);
                    }
                }
            }
            for lit in &rule.body {
                let Literal::Pos(a) = lit else { continue };
                if g.scc[a.pred.0 as usize] != g.scc[p.0 as usize] || !g.in_cycle(p, a.pred) {
                    continue;
                }
                for t in &a.args {
                    if t.is_ground() || rule.head.args.contains(t) {
                        continue;
                    }
                    let mut free = Vec::new();
                    t.for_each_var(&mut |v| {
                        if !outside.contains(&v) && !free.contains(&v) {
                            free.push(v);
                        }
                    });
                    if free.is_empty() {
                        continue;
                    }
                    let mut text = String::new();
                    self.program.write_term(&mut text, t, Some(rule));
                    diags.push(
                        Diagnostic::error(
                            codes::RECURSION,
                            format!("the argument `{text}` of this recursive literal breaks the recursion restriction"),
                            a.span,
                        )
                        .with_label(format!("`{}` is on a cycle with the head `{}`", self.pred_name(a.pred), self.pred_name(p)))
                        .with_note("GDL (Definition 3, condition 3): each argument of a recursive body literal must be ground, an argument of the head, or bound by a literal that is not on the cycle; otherwise the game could derive infinitely many facts")
                        .with_help(format!("bind {} with a non-recursive literal, such as a domain relation", self.var_list(rule, &free))),
                    );
                }
            }
        }
    }

    fn undefined(&self, diags: &mut Diagnostics) {
        let defined: FxHashSet<PredId> = self.program.rules.iter().map(|r| r.head.pred).collect();
        let mut warned = FxHashSet::default();
        for rule in &self.program.rules {
            for lit in &rule.body {
                let (Literal::Pos(a) | Literal::Neg(a)) = lit else {
                    continue;
                };
                if defined.contains(&a.pred)
                    || matches!(
                        self.program.pred_keyword(a.pred),
                        Some(Keyword::True | Keyword::Does)
                    )
                    || !warned.insert(a.pred)
                {
                    continue;
                }
                diags.push(
                    Diagnostic::warning(
                        codes::UNDEFINED,
                        format!(
                            "relation `{}` is used but never defined",
                            self.pred_name(a.pred)
                        ),
                        a.span,
                    )
                    .with_label("never true")
                    .with_note("a relation with no rules and no facts never holds"),
                );
            }
        }
    }
}

/// Whether two atoms can match, with every variable standing for any term
/// (variables of the two sides are apart; repeated variables are ignored,
/// which can only make more atoms match).
fn may_match_atoms(a: &Atom, b: &Atom) -> bool {
    a.pred == b.pred && a.args.iter().zip(&b.args).all(|(x, y)| may_match(x, y))
}

fn may_match(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Var(_), _) | (_, Term::Var(_)) => true,
        (Term::Const(x), Term::Const(y)) => x == y,
        (Term::Func(f, xs), Term::Func(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys.iter()).all(|(x, y)| may_match(x, y))
        }
        _ => false,
    }
}

/// A shortest path `from ~> to` inside one component, as (next node,
/// negative, literal index) steps.
fn bfs(
    edges: &[Vec<(usize, bool, usize)>],
    from: usize,
    to: usize,
    comp: &[u32],
) -> Vec<(usize, bool, usize)> {
    if from == to {
        return Vec::new();
    }
    let mut prev: FxHashMap<usize, (usize, bool, usize)> = FxHashMap::default();
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(u) = queue.pop_front() {
        for &(v, n, l) in &edges[u] {
            if comp[v] != comp[from] || v == from || prev.contains_key(&v) {
                continue;
            }
            prev.insert(v, (u, n, l));
            if v == to {
                let mut path = Vec::new();
                let mut cur = to;
                while cur != from {
                    let (p, n, l) = prev[&cur];
                    path.push((cur, n, l));
                    cur = p;
                }
                path.reverse();
                // Each step: (next, negative, literal of the node before `next`).
                return path;
            }
            queue.push_back(v);
        }
    }
    Vec::new()
}
