//! The plan as text (`gdl-codegen emit --dump-plan`): the call-graph facts,
//! the queries' rules, and each function and component with its shape, its
//! memo and its rules' join orders with the estimates that chose them.

use std::fmt::Write;

use super::access::ScanPlan;
use super::closure::Closure;
use super::facts::Facts;
use super::join_order::{Adorn, Source, Step};
use super::plan::{
    Bodies, ClosurePlan, CompPlan, Fallback, FnPlan, Item, LegalPlan, LiftedPlan, Memo, QueryLit,
    RulePlan, Shape,
};
use super::prejoin::Column;
use super::relations::Relations;
use crate::front::ir::Program;
use crate::rules::{CRule, Pat};

/// What the summary needs to name relations and terms.
struct Namer<'a> {
    program: &'a Program,
    facts: &'a Facts,
    rels: &'a Relations,
}

impl LiftedPlan {
    /// The plan as readable text, relations named as in the generated code
    /// and terms as in the rules.
    pub fn summary(&self, program: &Program, facts: &Facts) -> String {
        let n = Namer {
            program,
            facts,
            rels: &self.rels,
        };
        let mut out = String::new();
        let comps = self.items.len() - self.functions();
        let settled = if self.settled { "settled" } else { "capped" };
        let _ = writeln!(
            out,
            "lifted plan: {} functions, {comps} components; call-graph facts {settled} after {} round(s)",
            self.functions(),
            self.rounds
        );
        self.facts_lines(&n, &mut out);
        let t = &self.tables;
        let built: usize = t.run_time.iter().map(|b| b.numbers).sum();
        let all: usize = super::run_time_tables::static_numbers(self, facts)
            .values()
            .sum();
        let printed = all - built;
        let _ = writeln!(
            out,
            "tables: {} filters ({} words), {} static joins ({} numbers), {} value masks; {} refused over their budgets; static tables of {} numbers (budget {})",
            t.filters.len(),
            t.filter_words,
            t.prejoins.len(),
            t.prejoin_words,
            t.value_masks.len(),
            t.refused + t.refused_masks.len(),
            printed,
            super::cost::STATIC_NUMBERS_BUDGET
        );
        if !t.run_time.is_empty() {
            let built: Vec<String> = (t.run_time.iter())
                .map(|b| format!("{} ({} numbers)", n.rels.names[b.rel as usize], b.numbers))
                .collect();
            let _ = writeln!(
                out,
                "static tables built at run time, over the code-size budget: {}",
                built.join(", ")
            );
            for b in &t.run_time {
                b.rules.iter().for_each(|r| rule(&n, r, &mut out));
            }
        }
        self.query_lines(&n, &mut out);
        for item in &self.items {
            match item {
                Item::Fn(f) => function(&n, f, &mut out),
                Item::Comp(c) => component(&n, c, &mut out),
            }
        }
        out
    }

    /// The whole lists read, the calls without a memo, the relations left to
    /// run time.
    fn facts_lines(&self, n: &Namer, out: &mut String) {
        let mut whole: Vec<String> = (self.whole.iter())
            .flat_map(|(from, rels)| {
                let from = format!("{from:?}");
                rels.iter()
                    .map(move |&r| format!("{from} reads {}", n.rels.names[r as usize]))
            })
            .collect();
        whole.sort();
        let mut once: Vec<String> = (self.once.iter())
            .map(|&(rel, adorn)| call(n, rel, adorn))
            .collect();
        once.sort();
        let _ = writeln!(out, "whole lists: {}", list(&whole));
        let _ = writeln!(out, "asked once (no memo): {}", list(&once));
        let deferred: Vec<String> = (0..n.program.preds.len())
            .filter(|&p| n.facts.stateless[p] && n.facts.statics[p].is_none())
            .map(|p| n.rels.names[p].clone())
            .collect();
        let _ = writeln!(
            out,
            "deferred to run time (relaxed extension too large to derive at compile time): {}",
            list(&deferred)
        );
    }

    /// The queries' rules.
    fn query_lines(&self, n: &Namer, out: &mut String) {
        let q = &self.queries;
        match &q.legal {
            Some(LegalPlan::Call(c)) => query_call(n, "legal", c, out),
            Some(LegalPlan::Rules(rules)) => {
                let _ = writeln!(out, "\nquery legal: its rules, for a given role");
                rules.iter().for_each(|r| rule(n, r, out));
            }
            None => {
                let _ = writeln!(out, "\nquery legal: moves fixed at compile time");
            }
        }
        let _ = writeln!(out, "\nquery next: its rules");
        q.next.iter().for_each(|r| rule(n, r, out));
        if let Some(c) = &q.terminal {
            query_call(n, "terminal", c, out);
        }
        if let Some(c) = &q.goals {
            query_call(n, "goals", c, out);
        }
    }
}

/// `items` joined, or `none`.
fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// A query answered by one call.
fn query_call(n: &Namer, name: &str, c: &QueryLit, out: &mut String) {
    let _ = writeln!(out, "\nquery {name}: {}", call(n, c.rel, c.bound));
}

/// The function name of `rel` called with `adorn`.
fn call(n: &Namer, rel: u32, adorn: Adorn) -> String {
    n.rels.call_name(rel, adorn).to_string()
}

/// A function's plan.
fn function(n: &Namer, f: &FnPlan, out: &mut String) {
    let name = call(n, f.rel, f.adorn);
    let (what, bodies) = match &f.shape {
        Shape::ExistsFromList => (
            format!("existence test read from the list {}", call(n, f.rel, 0)),
            None,
        ),
        Shape::TestFromList => (
            format!("test read from the short list {}", call(n, f.rel, 0)),
            None,
        ),
        Shape::TestFromClosure { sub, guard, why } => (
            format!(
                "test searching {} ({}){}",
                call(n, f.rel, *sub),
                why.text(),
                guard_text(*guard)
            ),
            None,
        ),
        Shape::Closure { closure, memo } => {
            let how = if closure.closure.is_walk() {
                "walk"
            } else {
                "worklist"
            };
            let _ = writeln!(
                out,
                "\nfn {name}: closure by {how}, {}",
                list_memo_text(memo.as_ref())
            );
            closure_lines(n, closure, out);
            return;
        }
        Shape::Test {
            bodies,
            memo,
            guard,
        } => (
            format!("test, {}{}", memo_text(memo.as_ref()), guard_text(*guard)),
            Some(bodies),
        ),
        Shape::RecursiveTest {
            bodies,
            memo,
            fallback,
            guard,
        } => (
            format!(
                "recursive test, {} once past the unmemoized calls, {}{}",
                memo_text(Some(memo)),
                fallback_text(n, f.rel, fallback),
                guard_text(*guard)
            ),
            Some(bodies),
        ),
        Shape::Answers {
            bodies,
            memo,
            direct,
            fallback,
            listed,
        } => {
            let memo = list_memo_text(memo.as_ref());
            let into = if *direct {
                "pushed to its arena"
            } else {
                "buffered"
            };
            let fb = fallback
                .as_ref()
                .map(|fb| format!(", {}", fallback_text(n, f.rel, fb)));
            let listed = if *listed {
                ", duplicates kept (a query's)"
            } else {
                ""
            };
            (
                format!("answers {into}, {memo}{}{listed}", fb.unwrap_or_default()),
                Some(bodies),
            )
        }
    };
    let _ = writeln!(out, "\nfn {name}: {what}");
    if let Some(b) = bodies {
        bodies_lines(n, f.rel, b, out);
    }
}

fn memo_text(memo: Option<&Memo>) -> String {
    match memo {
        None => "no memo".into(),
        Some(Memo { dense: Some(k) }) => format!("memo dense by {k}"),
        Some(Memo { dense: None }) => "memo hashed by its keys".into(),
    }
}

/// The memo of a call listing answers: without one, it is asked once per
/// key of its callers.
fn list_memo_text(memo: Option<&Memo>) -> String {
    match memo {
        Some(m) => memo_text(Some(m)),
        None => "no memo (asked once per key)".into(),
    }
}

fn guard_text(guard: Option<usize>) -> String {
    guard.map_or_else(String::new, |g| format!(", guard {g} tested first"))
}

fn fallback_text(n: &Namer, rel: u32, fallback: &Fallback) -> String {
    match fallback {
        Fallback::Closure { sub } => format!("met again: searches {}", call(n, rel, *sub)),
        Fallback::Table { comp } => format!("met again: reads component {comp}'s table"),
        Fallback::Never => "never met again".to_string(),
    }
}

/// The rules of a call.
fn bodies_lines(n: &Namer, rel: u32, bodies: &Bodies, out: &mut String) {
    match bodies {
        Bodies::Ground(h) => {
            let h = &n.facts.hybrid[*h];
            let _ = writeln!(
                out,
                "  compiled ground: {} atoms tested on the state",
                h.atoms.len()
            );
        }
        Bodies::Widened { widening: w, .. } => {
            let _ = writeln!(
                out,
                "  answered through {} for each solution of {}",
                call(n, rel, w.wider),
                lit(n, w.rel, &w.args, false)
            );
        }
        Bodies::Rules {
            shared,
            shared_access,
            rules,
            openings,
        } => {
            if !shared.is_empty() {
                let _ = writeln!(out, "  tests every rule opens with (over the arguments):");
                for (k, s) in shared.iter().enumerate() {
                    let _ = writeln!(out, "    {}", step(n, s));
                    scan_lines(n, shared_access.scan(k), k, out);
                }
            }
            for (i, r) in rules.iter().enumerate() {
                if let Some(o) = openings.iter().find(|o| o.first == i) {
                    let _ = writeln!(
                        out,
                        "  the next {} rules share their first {} steps, printed once:",
                        o.rules, o.steps
                    );
                }
                rule(n, r, out);
            }
        }
    }
}

/// A closure's rules.
fn closure_lines(n: &Namer, c: &ClosurePlan, out: &mut String) {
    let _ = writeln!(out, "  base rules:");
    c.base.iter().for_each(|r| rule(n, r, out));
    let _ = writeln!(out, "  recursive rules, the recursive literal taken out:");
    let answering = match &c.closure {
        Closure::Keys { answering, .. } => &answering[..],
        Closure::Answers { .. } => &[],
    };
    for (k, r) in c.steps.iter().enumerate() {
        if answering.get(k) == Some(&true) {
            let _ = writeln!(
                out,
                "  (the next rule also finds a base rule's answers, after the keys)"
            );
        }
        rule(n, r, out);
    }
}

/// A component's plan.
fn component(n: &Namer, c: &CompPlan, out: &mut String) {
    let rels: Vec<&str> = c
        .rels
        .iter()
        .map(|(r, _)| n.rels.names[*r as usize].as_str())
        .collect();
    let _ = writeln!(
        out,
        "\ncomponent {}: {} to their fixpoint, bottom-up",
        c.comp,
        rels.join(", ")
    );
    for (_, rules) in &c.rels {
        rules.iter().for_each(|r| rule(n, r, out));
    }
}

/// A rule and its join order, each step with its estimated price and
/// solutions per run.
fn rule(n: &Namer, r: &RulePlan, out: &mut String) {
    let _ = writeln!(
        out,
        "  rule {} (bound {}):",
        head(n, &r.rule),
        adorn_bits(r.adorn, r.rule.head.len())
    );
    for (k, s) in r.steps.iter().enumerate() {
        let cost = match r.costs.get(k).copied().flatten() {
            Some((price, rows)) => format!("  [price {price:.2}, rows {rows:.3}]"),
            None => String::new(),
        };
        let lazy = match r.lazy.iter().find(|l| l.step == k) {
            Some(l) => format!("  (lazy: once per binding of steps 1..{})", l.anchor),
            None => String::new(),
        };
        let _ = writeln!(out, "    {}. {}{cost}{lazy}", k + 1, step(n, s));
        scan_lines(n, r.access.scan(k), k, out);
    }
    if let Some(d) = r.access.shift {
        let _ = writeln!(out, "    copies the scan's words shifted by {d} bits");
    }
}

/// How the scan at step `k` (if it is one) reads the state: its value
/// mask, filters and static join, steps numbered from 1 as printed.
fn scan_lines(n: &Namer, scan: Option<&ScanPlan>, k: usize, out: &mut String) {
    let Some(scan) = scan else { return };
    if let Some(positions) = &scan.value_mask {
        let _ = writeln!(out, "       value mask on arguments {positions:?}");
    }
    for u in &scan.filters {
        let keys: Vec<String> = u.keys.iter().map(|v| format!("?{v}")).collect();
        let how = if u.absorbs { "test" } else { "guard" };
        let _ = writeln!(
            out,
            "       filter_{}({}) from step {}'s {how}",
            u.filter,
            keys.join(", "),
            k + 2 + u.step
        );
    }
    if let Some(j) = &scan.prejoin {
        let steps: Vec<String> = j.steps.iter().map(|&i| (k + 2 + i).to_string()).collect();
        let columns: Vec<String> = (j.columns.iter())
            .map(|c| match c {
                Column::Var(v) => format!("?{v}"),
                Column::Term(p) => format!("term {}", pat(n, p)),
                Column::Bit(p) => format!("bit of {}", pat(n, p)),
            })
            .collect();
        let _ = writeln!(
            out,
            "       prejoin_{} joins steps {} at compile time, rows of {}",
            j.join,
            steps.join(", "),
            columns.join(", ")
        );
    }
}

/// `adorn` over `arity` arguments, as the functions' names spell it:
/// `b` bound, `f` free, `e` free and only asked whether a solution exists;
/// `-` without arguments.
fn adorn_bits(adorn: Adorn, arity: usize) -> String {
    if arity == 0 {
        return "-".into();
    }
    super::adorn_text(adorn, arity)
}

fn head(n: &Namer, r: &CRule) -> String {
    let args: Vec<String> = r.head.iter().map(|p| pat(n, p)).collect();
    format!("{}({})", n.rels.names[r.head_rel as usize], args.join(", "))
}

/// One step of a plan.
fn step(n: &Namer, s: &Step) -> String {
    match s {
        Step::Param { index, pat: p } => format!("argument {index} matches {}", pat(n, p)),
        Step::Distinct(a, b) => format!("distinct {} {}", pat(n, a), pat(n, b)),
        Step::Lit {
            source,
            rel,
            args,
            negated,
            bound,
        } => {
            let how = match source {
                Source::Static => "table",
                Source::True => "state",
                Source::Does => "move",
                Source::Derived => "call",
                Source::Table => "component table",
            };
            let call = match source {
                Source::Derived => format!(" -> {}", call(n, *rel, *bound)),
                _ => String::new(),
            };
            format!(
                "{} ({how}, bound {}){call}",
                lit(n, *rel, args, *negated),
                adorn_bits(*bound, args.len())
            )
        }
    }
}

fn lit(n: &Namer, rel: u32, args: &[Pat], negated: bool) -> String {
    let args: Vec<String> = args.iter().map(|p| pat(n, p)).collect();
    let not = if negated { "not " } else { "" };
    format!("{not}{}({})", n.rels.names[rel as usize], args.join(", "))
}

fn pat(n: &Namer, p: &Pat) -> String {
    match p {
        Pat::Var(v) => format!("?{v}"),
        Pat::Ground(t) => (n.facts.universe.text.get(*t as usize))
            .cloned()
            .unwrap_or_else(|| format!("#{t}")),
        Pat::Func(f, args) => {
            let args: Vec<String> = args.iter().map(|a| pat(n, a)).collect();
            format!("({} {})", n.program.symbols.name(*f), args.join(" "))
        }
    }
}
