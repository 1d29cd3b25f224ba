// Without `mod`, the items are placed where the macro is called; the type is
// named after the file.
gdl_macro::gdl!(include "games/tictactoe.kif");

fn main() {
    use gdl_runtime::Game;
    assert_eq!(Tictactoe.num_roles(), 2);
}
