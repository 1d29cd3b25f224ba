//! `next` rules that move every fluent a scan meets by one bit offset.
//!
//! factoring's timers count down a square at a time:
//!
//! ```text
//! (<= (next (cell ?z ?x ?y 3)) (true (cell ?z ?x ?y 4)))
//! ```
//!
//! The scan of `(cell ?z ?x ?y 4)` meets each fluent, reads its row and
//! sets the bit of its `3` twin. The layout sorts a functor's fluents by
//! the arguments of its leading mask (here the last), so the twins of the
//! fluents of one value lie in the same order as they do: the head's bit
//! is the scanned fluent's plus one offset for every fluent the scan can
//! meet. The rule then copies the scan's words shifted by that offset
//! (`or_bits_shifted`), a word at a time, as a frame rule copies them in
//! place (the offset 0, [`super::body::Body::copy_scan`]).

use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

use super::access::{fluent_functor, BodyAccess};
use super::facts::Facts;
use super::join_order::{Source, Step};
use super::plan::RulePlan;
use super::relations::Relations;
use super::state_layout::Layout;
use crate::rules::Pat;

/// Sets, on each `next` rule of `rules` whose body is one scan of the
/// state whose head's bit is the scanned fluent's plus one offset for every
/// fluent it can meet, that offset in its access (see the module's doc).
pub fn mark(rules: &mut [RulePlan], rels: &Relations, facts: &Facts, layout: &Layout) {
    let mut bits: Option<FxHashMap<u32, u32>> = None;
    for r in rules {
        r.access.shift = None;
        let Some((p, positions)) = lone_scan(&r.steps, &r.access) else {
            continue;
        };
        let bits = bits.get_or_insert_with(|| layout.bit_of_term());
        r.access.shift = offset(rels, facts, bits, (p, positions), &r.rule.head[0]);
    }
}

/// The functors of the fluents the `next` rules of `rules` that are one
/// scan move to another fluent, and of those they move them to: the layout
/// lines their fluents up (see [`Layout::new`]).
pub fn moved_functors(rules: &[RulePlan], rels: &Relations) -> BTreeSet<u32> {
    let mut moved = BTreeSet::new();
    for r in rules {
        let Some((p, _)) = lone_scan(&r.steps, &r.access) else {
            continue;
        };
        let head = &r.rule.head[0];
        if let (Some((fid, _)), Some((hfid, _)), true) = (
            fluent_functor(rels, p),
            fluent_functor(rels, head),
            p != head,
        ) {
            moved.extend([fid, hfid]);
        }
    }
    moved
}

/// The pattern of a body's only scan and the positions of its value mask
/// (none: the functor's mask), where the scan is the body's only step left
/// (the others taken into its filters) and no static join binds for it.
fn lone_scan<'s>(steps: &'s [Step], access: &'s BodyAccess) -> Option<(&'s Pat, &'s [usize])> {
    let [(i, scan)] = &access.scans[..] else {
        return None;
    };
    // `taken` counts from the step after the scan.
    let taken: Vec<usize> = scan.taken().map(|k| i + 1 + k).collect();
    let others = (0..steps.len()).filter(|k| k != i && !taken.contains(k));
    if others.count() > 0 || scan.prejoin.is_some() {
        return None;
    }
    match &steps[*i] {
        Step::Lit {
            source: Source::True,
            args,
            negated: false,
            ..
        } => Some((&args[0], scan.value_mask.as_deref().unwrap_or(&[]))),
        _ => None,
    }
}

/// The offset from the bit of each fluent the scan of `p` meets (those its
/// mask on `positions` holds) to its image under `head`, where it is one
/// and not zero; `None` where a fluent of the mask does not match `p`, or
/// its image is not a fluent.
fn offset(
    rels: &Relations,
    facts: &Facts,
    bit_of: &FxHashMap<u32, u32>,
    (p, positions): (&Pat, &[usize]),
    head: &Pat,
) -> Option<i64> {
    let u = &facts.universe;
    let (fid, args) = fluent_functor(rels, p)?;
    let (hfid, hargs) = fluent_functor(rels, head)?;
    // A plan's ground terms are generated ids, as the fluents' arguments.
    let ground = |a: &Pat| match a {
        Pat::Ground(t) => Some(*t),
        _ => None,
    };
    // The mask's values: constants at its positions.
    let keys: Vec<(usize, u32)> = (positions.iter())
        .map(|&k| Some((k, ground(&args[k])?)))
        .collect::<Option<_>>()?;
    // The head's fluents by their arguments.
    let twins: FxHashMap<&[u32], u32> = (facts.fluents.iter())
        .filter(|&&t| u.functor[t as usize] == hfid)
        .map(|&t| (&u.args[t as usize][..], t))
        .collect();
    let mut found = None;
    for &t in facts
        .fluents
        .iter()
        .filter(|&&t| u.functor[t as usize] == fid)
    {
        let vals = &u.args[t as usize];
        if keys.iter().any(|&(k, v)| vals[k] != v) {
            continue;
        }
        let binding = matched(args, vals)?;
        let image: Vec<u32> = (hargs.iter())
            .map(|a| match a {
                Pat::Var(v) => binding.get(v).copied(),
                _ => ground(a),
            })
            .collect::<Option<_>>()?;
        let twin = twins.get(&image[..])?;
        let d = i64::from(bit_of[twin]) - i64::from(bit_of[&t]);
        if *found.get_or_insert(d) != d {
            return None;
        }
    }
    found.filter(|&d| d != 0)
}

/// The values `p`'s arguments `args` give their variables when matched
/// against the fluent arguments `vals`; `None` if a constant differs, a
/// variable meets two values or an argument is compound.
fn matched(args: &[Pat], vals: &[u32]) -> Option<FxHashMap<u32, u32>> {
    let mut binding = FxHashMap::default();
    for (a, &v) in args.iter().zip(vals) {
        match a {
            Pat::Var(x) => {
                if *binding.entry(*x).or_insert(v) != v {
                    return None;
                }
            }
            Pat::Ground(g) if *g == v => {}
            _ => return None,
        }
    }
    Some(binding)
}

#[cfg(test)]
mod tests {
    use super::super::tests::module_and_code;
    use super::super::tests::program_and_facts;

    /// Timers of two squares counting down from 3 (reset by a move), and
    /// pairs swapped each step.
    const TIMERS: &str = "(role r)
        (init (timer a 3)) (init (timer b 3)) (init (pair 1 2)) (init (pair 2 3))
        (<= (next (timer ?c 2)) (true (timer ?c 3)))
        (<= (next (timer ?c 1)) (true (timer ?c 2)))
        (<= (next (timer ?c 0)) (true (timer ?c 1)))
        (<= (next (timer ?c 3)) (does r (reset ?c)))
        (<= (next (pair ?y ?x)) (true (pair ?x ?y)))
        (<= (next (lamp b on)) (true (timer b 0)))
        (<= (legal r (reset a)) (true (timer a 0)))
        (<= (legal r (reset b)) (true (timer b 0)))
        (<= (legal r wait) (true (timer a 3)))
        (<= (legal r wait) (true (timer a 2)))
        (<= (legal r wait) (true (timer a 1)))
        (<= terminal (true (lamp b on)))
        (<= (goal r 100) (true (lamp b on)))";

    #[test]
    fn a_rule_moving_every_fluent_by_one_offset_copies_shifted() {
        let (program, facts) = program_and_facts(TIMERS);
        let (_, code) = module_and_code(&program, &facts);
        // The three countdown rules (a timer value's two fluents lie side
        // by side, the values' blocks in the order of their ids);
        // `(pair 1 2)` moves up a bit and `(pair 2 1)` down, so the swap
        // scans.
        let shifted = "or_bits_shifted(out,&self.state,MASKS_";
        assert_eq!(code.matches(shifted).count(), 3, "{code}");
        assert!(
            code.contains("whileletSome(f1)=scan_f1.next(&self.state)"),
            "{code}"
        );
    }
}
