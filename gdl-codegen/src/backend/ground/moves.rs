//! How the joint move enters `next`: move dispatch (bodies needing one of a
//! few moves run in a `match` on the move), move-set tables (one bit per set
//! of moves that bodies test, set from per-move tables) and frame tables
//! (per-move keep masks applied word by word).

use super::*;

impl Gen<'_> {
    /// Move dispatch for `next`: rule bodies of a `next` output that need
    /// one of a few moves of a role (`(does r m)` for m in a small set) are
    /// taken out of the atom and run only when such a move is made, in a
    /// `match` on the role's move. A move's effects are then computed
    /// without testing every other move's. Returns, per role, the arms
    /// `(move, statement)`, and the atoms those statements read (which the
    /// `next` evaluation must still compute).
    pub(super) fn move_dispatch(&mut self) -> (Vec<Vec<(u32, TokenStream)>>, Vec<Output>) {
        let gp = self.gp;
        let ni = gp.num_inputs;
        let used = self.use_counts();
        let mut arms: Vec<Vec<(u32, TokenStream)>> = vec![Vec::new(); gp.roles.len()];
        let mut reads = Vec::new();
        for out in &gp.next {
            let Output::Atom(a) = *out else { continue };
            if a.0 < ni || used[a.0 as usize] != 1 || self.cyclic[(a.0 - ni) as usize] {
                continue;
            }
            let pos = self.layout.pos(a);
            let (w, shift) = (lit_usize((pos >> 6) as usize), pos & 63);
            let mut kept = Vec::new();
            for c in self.conjs_of(a.0) {
                // A body with one `does` literal is a set of one move.
                let does_range = self.layout.state_words as u32 * 64
                    ..(self.layout.state_words + self.layout.does_words) as u32 * 64;
                let c = match c.lits.iter().filter(|l| does_range.contains(&l.0)).count() {
                    1 if c.any.is_empty() => {
                        let (d, rest): (Vec<BitLit>, Vec<BitLit>) =
                            c.lits.iter().partition(|l| does_range.contains(&l.0));
                        if d[0].1 {
                            c
                        } else {
                            rules::Conj {
                                lits: rest,
                                any: vec![d[0].0],
                            }
                        }
                    }
                    _ => c,
                };
                let per_role: Vec<Vec<u32>> = self
                    .layout
                    .role_moves
                    .iter()
                    .map(|&(start, n)| {
                        c.any
                            .iter()
                            .filter(|p| (start..start + n).contains(p))
                            .map(|p| p - start)
                            .collect()
                    })
                    .collect();
                let small = !c.any.is_empty() && per_role.iter().all(|ms| ms.len() <= DISPATCH_MAX);
                if !small {
                    kept.push(c);
                    continue;
                }
                let rest = rules::Conj {
                    lits: c.lits.clone(),
                    any: Vec::new(),
                };
                let stmt = if rest.lits.is_empty() {
                    let bit = hex_lit(1u64 << shift);
                    quote!(v[#w] |= #bit;)
                } else {
                    let test = rules::disj_expr(std::slice::from_ref(&rest), &self.layout);
                    if shift == 0 {
                        quote!(v[#w] |= u64::from(#test);)
                    } else {
                        let shift = lit_u32(shift);
                        quote!(v[#w] |= u64::from(#test) << #shift;)
                    }
                };
                reads.extend(
                    rest.lits
                        .iter()
                        .filter_map(|(p, _)| self.pos_to_atom.get(p))
                        .map(|&b| Output::Atom(AtomId(b))),
                );
                for (r, ms) in per_role.iter().enumerate() {
                    arms[r].extend(ms.iter().map(|&m| (m, stmt.clone())));
                }
            }
            self.overrides.insert(a.0, kept);
        }
        (arms, reads)
    }

    /// Move-set bits: every set of moves that a remaining rule body tests
    /// ("one of these moves is made") becomes one bit of the value vector,
    /// set when a move is applied from a per-role table listing, for each
    /// move, the sets holding it. A body then tests one bit instead of the
    /// words of the set: in chess, "a move touches this square" is a set of
    /// a hundred moves per square. Returns, per role and move, the set bits
    /// (relative to [`Layout::move_set_base`]), and widens the layout.
    pub(super) fn move_set_tables(&mut self) -> Vec<Vec<Vec<u32>>> {
        let base = self.layout.move_set_base();
        let mut sets: std::collections::HashMap<Vec<u32>, u32> = std::collections::HashMap::new();
        let mut tables: Vec<Vec<Vec<u32>>> = self
            .layout
            .role_moves
            .iter()
            .map(|&(_, n)| vec![Vec::new(); n as usize])
            .collect();
        // Sorted, so that set numbers (and the code) are the same every run.
        let mut atoms: Vec<u32> = self.overrides.keys().copied().collect();
        atoms.sort_unstable();
        let role_moves = self.layout.role_moves.clone();
        let add = |tables: &mut Vec<Vec<Vec<u32>>>, any: &[u32], bit: u32| {
            for &p in any {
                for (r, &(start, n)) in role_moves.iter().enumerate() {
                    if (start..start + n).contains(&p) {
                        tables[r][(p - start) as usize].push(bit);
                    }
                }
            }
        };
        for a in atoms {
            let pos = self.layout.pos(AtomId(a));
            let cyclic = self.cyclic[(a - self.gp.num_inputs) as usize];
            let Some(conjs) = self.overrides.get_mut(&a) else {
                continue;
            };
            let mut direct = Vec::new();
            conjs.retain_mut(|c| {
                if c.any.is_empty() {
                    return true;
                }
                let any = std::mem::take(&mut c.any);
                if rules::any_always(&any, &self.layout) {
                    return true;
                }
                if c.lits.is_empty() && !cyclic {
                    // "One of these moves is made", alone: the tables set
                    // the atom's own bit, and no code tests anything.
                    add(&mut tables, &any, pos);
                    direct.extend(any);
                    return false;
                }
                let next = sets.len() as u32;
                let k = *sets.entry(any.clone()).or_insert_with(|| {
                    add(&mut tables, &any, base + next);
                    next
                });
                c.lits.push((base + k, false));
                c.lits.sort_unstable();
                true
            });
            if !direct.is_empty() {
                direct.sort_unstable();
                direct.dedup();
                self.direct_moves.insert(a, direct);
            }
        }
        for row in tables.iter_mut().flatten() {
            row.sort_unstable();
            row.dedup();
        }
        self.layout.move_set_words = sets.len().div_ceil(64);
        let mut by_number = vec![Vec::new(); sets.len()];
        for (set, k) in sets {
            by_number[k as usize] = set;
        }
        self.move_sets = by_number;
        tables
    }

    /// Emits the dispatch functions of one role: `fn(v, m)` matching on the
    /// move, split so that no function grows too large.
    pub(super) fn dispatch_fns(
        &mut self,
        r: usize,
        mut arms: Vec<(u32, TokenStream)>,
    ) -> Vec<Ident> {
        arms.sort_by_key(|(m, _)| *m);
        let mut grouped: Vec<(u32, Vec<TokenStream>)> = Vec::new();
        for (m, stmt) in arms {
            match grouped.last_mut() {
                Some((last, stmts)) if *last == m => stmts.push(stmt),
                _ => grouped.push((m, vec![stmt])),
            }
        }
        let mut names = Vec::new();
        let mut chunk: Vec<(Literal, Vec<TokenStream>)> = Vec::new();
        let mut weight = 0;
        let total = grouped.len();
        for (i, (m, stmts)) in grouped.into_iter().enumerate() {
            weight += stmts.len();
            chunk.push((lit_u32(m), stmts));
            if weight >= CHUNK_WEIGHT || i + 1 == total {
                let name = format_ident!("next_moves_{}_{}", r, names.len());
                let arms = std::mem::take(&mut chunk);
                // One move is an `if`: a match of one arm and an empty
                // catch-all would be clippy's `single_match`.
                let body = match arms.as_slice() {
                    [(ml, stmts)] => quote!(if m == #ml { #(#stmts)* }),
                    _ => {
                        let arms = arms.iter().map(|(ml, stmts)| quote!(#ml => { #(#stmts)* }));
                        quote!(match m { #(#arms)* _ => {} })
                    }
                };
                self.fns.push(quote! {
                    #[inline(never)]
                    fn #name(v: &mut Values, m: u32) {
                        #body
                    }
                });
                names.push(name);
                weight = 0;
            }
        }
        names
    }

    /// Frame rules: a fluent's `next` atom holding when the fluent holds and
    /// one of a set of moves is made, `(true f) ∧ (does r m)` for m in a set,
    /// the way board games say "a cell keeps its piece unless a move touches
    /// it". Such rules are taken out of the atom and computed for all
    /// fluents at once, word by word: `next |= state & (KEEP_0[m_0] | ..)`,
    /// where `KEEP_r[m]` has the bits of the fluents that role `r`'s move
    /// `m` keeps. Returns the tables, one per role (empty when unused).
    pub(super) fn frame_tables(&mut self) -> Vec<Vec<Vec<u64>>> {
        let gp = self.gp;
        let ni = gp.num_inputs;
        // Atoms read anywhere but as a `next` output must keep their rules.
        let used = self.use_counts();
        let nw = self.layout.state_words;
        let mut tables: Vec<Vec<Vec<u64>>> = self
            .layout
            .role_moves
            .iter()
            .map(|&(_, n)| vec![vec![0u64; nw]; n as usize])
            .collect();
        let mut any_frame = false;
        for (f, out) in gp.next.iter().enumerate() {
            let Output::Atom(a) = *out else { continue };
            if a.0 < ni || used[a.0 as usize] != 1 {
                continue;
            }
            let mut conjs = self.conjs_of(a.0);
            let Some(k) = conjs
                .iter()
                .position(|c| c.lits == [(f as u32, false)] && !c.any.is_empty())
            else {
                continue;
            };
            let frame = conjs.remove(k);
            for &p in &frame.any {
                for (r, &(start, n)) in self.layout.role_moves.iter().enumerate() {
                    if (start..start + n).contains(&p) {
                        tables[r][(p - start) as usize][f / 64] |= 1 << (f % 64);
                    }
                }
            }
            any_frame = true;
            self.overrides.insert(a.0, conjs);
        }
        if !any_frame {
            return Vec::new();
        }
        tables
    }
}
