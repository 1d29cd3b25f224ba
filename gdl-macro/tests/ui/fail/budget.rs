gdl_macro::gdl! {
    mod ttt;
    include "games/tictactoe.kif";
    max_rules = 10;
}

fn main() {}
