//! A readable listing of a bitnet, for `ground --dump-bitnet` and snapshot
//! tests.

use std::fmt::Write as _;

use super::conj::{BitLit, Conj};
use super::layout::{FALSE_BIT, TRUE_BIT};
use super::schedule::{Block, Demand, Schedule};
use super::Bitnet;

fn lit((p, neg): BitLit) -> String {
    if neg {
        format!("!{p}")
    } else {
        p.to_string()
    }
}

fn conj(c: &Conj) -> String {
    let mut parts: Vec<String> = c.lits.iter().map(|&l| lit(l)).collect();
    if !c.any.is_empty() {
        parts.push(format!("any{:?}", c.any));
    }
    if parts.is_empty() {
        "true".to_owned()
    } else {
        parts.join(" & ")
    }
}

fn bodies(conjs: &[Conj]) -> String {
    if conjs.is_empty() {
        return "false".to_owned();
    }
    conjs
        .iter()
        .map(|c| format!("({})", conj(c)))
        .collect::<Vec<_>>()
        .join(" | ")
}

fn block(out: &mut String, b: &Block, depth: usize) {
    let pad = "  ".repeat(depth);
    match b {
        Block::Unit(u) => {
            if u.plane {
                let _ = writeln!(out, "{pad}plane of {} atoms:", u.atoms.len());
            }
            for (pos, conjs) in u.bodies() {
                let cyc = if u.cyclic { " (cyclic)" } else { "" };
                let _ = writeln!(out, "{pad}{pos} := {}{cyc}", bodies(&conjs));
            }
        }
        Block::Guarded { guard, body } => {
            let _ = writeln!(out, "{pad}if {}:", lit(*guard));
            for b in body {
                block(out, b, depth + 1);
            }
        }
    }
}

fn schedule(out: &mut String, name: &str, s: &Schedule) {
    let _ = writeln!(out, "{name}:");
    for g in &s.groups {
        let when = match &g.demand {
            Demand::Always => String::new(),
            Demand::Never => " never".to_owned(),
            Demand::When(bits) => format!(" when any{bits:?}"),
        };
        let _ = writeln!(out, "  level {}{when}:", g.level);
        for b in &g.blocks {
            block(out, b, 2);
        }
    }
}

impl Bitnet {
    /// The layout, the move tables and each query's schedule, one atom a
    /// line (`bit := (body) | (body)`, `!` for negation).
    pub fn summary(&self) -> String {
        let l = &self.layout;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "layout: {} state words, {} does words, {} derived words, {} move-set words; \
             move bits from {:?}; output regions at {:?}",
            l.state_words, l.does_words, l.derived_words, l.move_set_words, l.role_moves, l.regions
        );
        for line in &l.mirrors.lines {
            let _ = writeln!(out, "{line}");
        }
        let kept: usize = self
            .keep
            .iter()
            .flatten()
            .flatten()
            .map(|w| w.count_ones() as usize)
            .sum();
        let _ = writeln!(out, "keep tables: {kept} (move, fluent) pairs");
        for (r, arms) in self.dispatch.arms.iter().enumerate() {
            for a in arms {
                let _ = writeln!(
                    out,
                    "dispatch role {r} move {}: {} := ({})",
                    a.mv,
                    a.pos,
                    conj(&a.body)
                );
            }
        }
        for (k, set) in self.move_sets.sets.iter().enumerate() {
            let _ = writeln!(out, "move set {}: {set:?}", l.move_set_base() + k as u32);
        }
        let mut direct: Vec<_> = self.move_sets.direct.iter().collect();
        direct.sort();
        for (a, moves) in direct {
            let _ = writeln!(
                out,
                "direct {}: {moves:?}",
                l.pos(crate::ground::AtomId(*a))
            );
        }
        schedule(&mut out, "eval", &self.eval);
        schedule(&mut out, "goal", &self.goal);
        schedule(&mut out, "next", &self.next);
        let bits: Vec<String> = self
            .next_bits
            .iter()
            .map(|&b| match b {
                FALSE_BIT => "false".to_owned(),
                TRUE_BIT => "true".to_owned(),
                b => b.to_string(),
            })
            .collect();
        let _ = writeln!(out, "next bits: [{}]", bits.join(", "));
        out
    }
}
