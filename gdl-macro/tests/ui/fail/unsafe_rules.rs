// Both unsafe rules are reported, at once, with the file's lines; using the
// game afterwards adds no error of its own.
gdl_macro::gdl! {
    mod risky;
    include "games/unsafe.kif";
}

fn main() {
    let _ = risky::Unsafe;
}
