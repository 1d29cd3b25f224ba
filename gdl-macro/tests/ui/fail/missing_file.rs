gdl_macro::gdl! {
    mod chess;
    include "games/no_such_game.kif";
}

fn main() {}
