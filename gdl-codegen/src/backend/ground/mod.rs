//! The compiled back end: a ground program's bitnet printed as a
//! self-contained Rust module that implements `gdl_runtime::Game`.
//!
//! The analyses that decide what the code computes, and when, are the
//! bitnet's ([`crate::bitnet`]); this module prints them:
//! - a state is a `[u64; N]` bit set over the reachable fluents, `Copy`;
//! - moves are ids in the byte order of their GDL text, so legal moves come
//!   out sorted with no run-time cost;
//! - each query (legal moves and terminal, goal, next) has its own functions
//!   computing the atoms of its schedule as word-mask tests over a value
//!   vector (`expr.rs`, `queries.rs`);
//! - legal moves and terminal read one evaluation of a state, kept per
//!   thread and computed incrementally from the nearer of the thread's last
//!   two (`incremental.rs`); goal and `next` start from it;
//! - the joint move sets its `does` bits and, from per-move tables, its
//!   move-set bits; bodies dispatched on a move run in a `match` on it; frame
//!   rules are applied word by word from per-move keep tables (`moves.rs`);
//! - code is split into functions of bounded size so that rustc stays fast,
//!   and its size is linear in the ground rules: atoms with very many bodies
//!   are evaluated by a loop over constant tables ([`tables`]);
//! - a playout steps from one evaluation to the next in place, with no
//!   look-up of the state (`step.rs`);
//! - names from the game appear only in string tables and sanitized
//!   constants ([`super::common::names`]), never as behaviour.

mod expr;
mod gathers;
mod incremental;
mod module;
mod moves;
mod queries;
mod rays;
mod step;
pub use queries::{code_size, CodeSize};
pub mod tables;

pub use crate::backend::common::format::Module;
pub use crate::backend::common::{EmitError, EmitOptions, BUILD_BUDGET_TESTS};
use crate::bitnet::relayout::relaid_scoring;
use crate::bitnet::{self, Bitnet, Params};
use crate::ground::GroundProgram;

/// The rule-table threshold of `gp` under `opts`: the one asked for, else
/// one chosen from the program's size.
pub fn table_threshold(gp: &GroundProgram, opts: &EmitOptions) -> usize {
    opts.rule_table_threshold
        .unwrap_or_else(|| tables::Tables::default_threshold(gp.num_literals()))
}

/// The most, in percent, that the classes of [`Params::share`] were measured
/// to add to a game's tests: 16.7% (skirmishNew, 34.1 K to 39.7 K tests),
/// the largest growth over the 33 games whose code they changed, then 7.5%
/// (skirmishZeroSum); 25 leaves a margin. A bitnet further over the build
/// budget than this would stay over it without them, so building it again
/// only costs start-up time (othello-comp2007, five times the budget: 1.9 s
/// from rules to code with one build, 2.9 to 3.6 s with two).
pub const MAX_SHARE_GROWTH_PCT: usize = 25;

/// A ground program as the compiled code computes it: with its boards laid
/// out densely where that gives the planes more to do
/// ([`crate::bitnet::relayout`]), and its bitnet.
#[derive(Debug)]
pub struct Compiled {
    /// The relaid program, if relaid.
    relaid: Option<GroundProgram>,
    /// The bitnet of the program printed.
    pub net: Bitnet,
}

/// A bitnet chosen so far, the parameters it was built with, and the
/// length of its printed code once measured.
struct Built {
    net: Bitnet,
    params: Params,
    size: Option<usize>,
}

impl Built {
    /// This, or the bitnet of `gp` built with `params` if that prints
    /// shorter code ([`module::printed_size`]); each is printed once, the
    /// kept one's length carried to the next choice.
    fn or_shorter(self, gp: &GroundProgram, params: Params) -> Built {
        let size = self
            .size
            .unwrap_or_else(|| module::printed_size(gp, &self.net));
        let net = bitnet::build(gp, &params);
        let alt = module::printed_size(gp, &net);
        if alt < size {
            Built {
                net,
                params,
                size: Some(alt),
            }
        } else {
            Built {
                size: Some(size),
                ..self
            }
        }
    }
}

impl Compiled {
    /// Lays out `gp` and builds its bitnet.
    ///
    /// Just over the build budget ([`BUILD_BUDGET_TESTS`], with the default
    /// rule tables), the bitnet is built again without the classes that
    /// share a fluent or split a wide class ([`Params::share`]), and the
    /// smaller kept: their planes print more tests, which took
    /// skirmishZeroSum from 75.7 K tests to 81.4 K, into the rule tables and
    /// 44 times the instructions a playout. Further over than
    /// [`MAX_SHARE_GROWTH_PCT`], the second build cannot come back under the
    /// budget and is not made.
    pub fn new(gp: &GroundProgram) -> Compiled {
        let (relaid, net) = Self::laid_out(gp);
        let program = relaid.as_ref().unwrap_or(gp);
        let built = Built {
            net,
            params: Params::COMPILED,
            size: None,
        };
        let Built { net, params, .. } =
            Self::copies_pay(program, Self::mirrors_pay(program, built));
        let threshold = tables::Tables::default_threshold(program.num_literals());
        let tests = |net: &Bitnet| queries::code_size(net, threshold).tests;
        let over = tests(&net);
        let within_growth = over * 100 <= BUILD_BUDGET_TESTS * (100 + MAX_SHARE_GROWTH_PCT);
        if over <= BUILD_BUDGET_TESTS || !within_growth {
            return Compiled { relaid, net };
        }
        let plain = Params {
            share: false,
            ..params
        };
        let alt = bitnet::build(program, &plain);
        let net = if tests(&alt) < over { alt } else { net };
        Compiled { relaid, net }
    }

    /// The relaid program (if any) and its bitnet. The relayout scores its
    /// splits by a proxy, the atoms in plane classes, blind to what the
    /// printer finds later. Scored with the classes that share the side to
    /// move ([`relaid_scoring`]), it gains knightThrough 30% of its
    /// instructions a playout, and sheep_and_wolf and tictactoe_3d_2player
    /// as much, but breaks connectFourLarge's word families (3.1 times the
    /// instructions); scored without, the reverse. Where the two choose
    /// different layouts, both are built and printed, and the one whose
    /// code is shorter ([`module::printed_size`]) kept: the code a playout
    /// runs through, longer where a layout leaves atoms one by one.
    fn laid_out(gp: &GroundProgram) -> (Option<GroundProgram>, Bitnet) {
        /// The bits a relaid program gives its fluents.
        fn bits(p: &Option<GroundProgram>) -> Option<&[u32]> {
            let logical = p.as_ref()?.logical.as_ref()?;
            Some(&logical.bits)
        }
        let plain = relaid_scoring(gp, false);
        let net = bitnet::build(plain.as_ref().unwrap_or(gp), &Params::COMPILED);
        if !crate::bitnet::classes::shares_fluents(gp) {
            return (plain, net);
        }
        let shared = relaid_scoring(gp, true);
        if bits(&shared) == bits(&plain) {
            return (plain, net);
        }
        let alt = bitnet::build(shared.as_ref().unwrap_or(gp), &Params::COMPILED);
        let size = |p: &Option<GroundProgram>, net: &Bitnet| {
            module::printed_size(p.as_ref().unwrap_or(gp), net)
        };
        if size(&shared, &alt) < size(&plain, &net) {
            (shared, alt)
        } else {
            (plain, net)
        }
    }

    /// `net`, or the bitnet of `gp` without mirrors ([`bitnet::mirrors`])
    /// if that prints shorter code ([`module::printed_size`]). A relation
    /// laid out at its reader's bits lines up with its reader, but no
    /// longer with what it reads itself: in our chess, where the mirrored
    /// relations read one another, the code shrinks 19% and runs 11% fewer
    /// instructions a playout; in Chinese checkers and checkers, whose
    /// mirrored moves read the board in several bodies, the word families
    /// of their grounding order are lost, the code grows 2-8% and runs 4-14%
    /// more instructions.
    fn mirrors_pay(gp: &GroundProgram, built: Built) -> Built {
        if built.net.layout.mirrors.lines.is_empty() {
            return built;
        }
        let params = Params {
            mirrors: false,
            ..built.params
        };
        built.or_shorter(gp, params)
    }

    /// `net`, or the bitnet of `gp` without the planes of groups of copies
    /// ([`Params::copies`]) if that prints shorter code. Planes of copies
    /// make the rays that read them regular (our chess's diagonal attack
    /// rays: 13% fewer instructions a playout, the code 7% shorter;
    /// cephalopodMicro 25%, queens 8-11%), but in a copy of queens under
    /// other names its layout grows the code 2% and runs 8% more.
    fn copies_pay(gp: &GroundProgram, built: Built) -> Built {
        if !built.net.copies {
            return built;
        }
        let params = Params {
            copies: false,
            ..built.params
        };
        built.or_shorter(gp, params)
    }

    /// The program printed: the relaid one, else `gp` (the program this was
    /// built from).
    pub fn program<'a>(&'a self, gp: &'a GroundProgram) -> &'a GroundProgram {
        self.relaid.as_ref().unwrap_or(gp)
    }
}

/// Generates the module of a ground game as tokens: nothing is formatted
/// until [`Module::to_text`] writes it.
pub fn module(gp: &GroundProgram, opts: &EmitOptions) -> Result<Module, EmitError> {
    let compiled = Compiled::new(gp);
    module_with(compiled.program(gp), &compiled.net, opts)
}

/// [`module`] from the program to print and its bitnet (as [`Compiled`]
/// holds them), for a caller that has built them already.
pub fn module_with(
    gp: &GroundProgram,
    net: &Bitnet,
    opts: &EmitOptions,
) -> Result<Module, EmitError> {
    let literals = gp.num_literals();
    if literals > opts.max_literals {
        return Err(EmitError::TooLarge {
            literals,
            limit: opts.max_literals,
        });
    }
    let rt: syn::Path = syn::parse_str(&opts.runtime_path)
        .map_err(|_| EmitError::BadRuntimePath(opts.runtime_path.clone()))?;
    let tests = code_size(net, table_threshold(gp, opts)).tests;
    if tests > opts.max_code_tests {
        return Err(EmitError::TooSlowToBuild {
            tests,
            limit: opts.max_code_tests,
        });
    }
    let (items, tables) = module::tokens(gp, net, opts, &rt);
    Ok(Module {
        items,
        data: tables.arrays(),
        source_name: opts.source_name.clone(),
    })
}

/// Generates the Rust module of a ground game, formatted and with its header.
pub fn emit(gp: &GroundProgram, opts: &EmitOptions) -> Result<String, EmitError> {
    module(gp, opts)?.to_text()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitnet::testing::ground;

    /// A corpus game, grounded.
    fn corpus(path: &str) -> GroundProgram {
        let file = format!("{}/../../shared/games/{path}", env!("CARGO_MANIFEST_DIR"));
        let text =
            std::fs::read_to_string(&file).expect("the shared corpus next to the repository");
        ground(&text)
    }

    /// The printed size of `gp` laid out as the relayout scoring with or
    /// without shared classes lays it out (or left in text order).
    fn size_scoring(gp: &GroundProgram, share: bool) -> usize {
        let relaid = relaid_scoring(gp, share);
        let program = relaid.as_ref().unwrap_or(gp);
        module::printed_size(program, &bitnet::build(program, &Params::COMPILED))
    }

    /// knightThrough's layout scored with shared classes prints shorter code
    /// (30% fewer instructions a playout); connectFourLarge's prints longer
    /// (3.1 times the instructions). Each keeps its shorter one.
    #[test]
    fn of_two_layouts_the_one_printing_shorter_code_is_kept() {
        for (path, shared_wins) in [
            ("ggp-repository-base/knightThrough.kif", true),
            ("ggp-repository-base/connectFourLarge.kif", false),
        ] {
            let gp = corpus(path);
            let (plain, shared) = (size_scoring(&gp, false), size_scoring(&gp, true));
            assert_eq!(
                shared < plain,
                shared_wins,
                "{path}: plain {plain}, shared {shared}"
            );
            let compiled = Compiled::new(&gp);
            let kept = module::printed_size(compiled.program(&gp), &compiled.net);
            assert_eq!(kept, plain.min(shared), "{path}");
        }
    }
}
