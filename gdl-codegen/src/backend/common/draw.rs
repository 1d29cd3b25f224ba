//! How both back ends draw a random legal move from a role's legal moves
//! as bits: by counting the bits where they are few words, else by listing
//! the moves and picking one.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Most words of a role's legal moves from which `random_move` draws by
/// counting bits; past it, it lists the moves and picks one. Counting reads
/// every word twice, listing costs a few instructions a zero word and a few
/// a move. Set by callgrind over 32 corpus games (x86-64 baseline, no
/// popcount instruction), ground code: counting cut instructions a playout
/// on every game of at most 4 words (141 moves: breakthroughWalls 25%
/// fewer; 10 moves: ticTacToe 13%) and added to every game of 6 or more
/// (354 moves: checkersSmall 1.4% more; 721: knightwar 15%; 3 833:
/// skirmishZeroSum 19%).
pub const MAX_DRAWN_WORDS: usize = 4;

/// Whether a role whose legal moves are `words` words of bits draws its
/// random move by listing them (into a buffer), not by counting.
pub fn lists(words: usize) -> bool {
    words > MAX_DRAWN_WORDS
}

/// The name of `random_move`'s buffer parameter: `_buf` unless a draw
/// `lists` into it (an unused parameter is a lint in generated code).
pub fn buffer(lists: bool) -> Ident {
    if lists {
        format_ident!("buf")
    } else {
        format_ident!("_buf")
    }
}

/// The expression of a random move drawn from `bits`, `words` words, with
/// `rng`; where it [lists](lists) the moves, into `buf`. Both draws are the
/// same move for the same generator.
pub fn random_move(rt: &syn::Path, words: usize) -> TokenStream {
    if lists(words) {
        quote! {{
            buf.clear();
            #rt::move_bits::push_moves_of_bits(&bits, buf);
            rng.pick(buf.len()).map(|i| buf[i])
        }}
    } else {
        quote!(#rt::move_bits::random_move_of_bits(&bits, rng))
    }
}
