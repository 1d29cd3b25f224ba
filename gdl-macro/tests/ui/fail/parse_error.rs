gdl_macro::gdl! {
    mod broken;
    include "games/parse_error.kif";
}

fn main() {}
