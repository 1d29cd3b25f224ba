// GDL written as Rust tokens instead of a string literal.
gdl_macro::gdl! {
    mod nim;
    (role first) (role second)
}

fn main() {}
