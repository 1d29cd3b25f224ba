gdl_macro::gdl! {
    mod cycle;
    r#"(role a)
(init s)
(legal a go)
(<= p (not q))
(<= q (not p))
(<= terminal p)
(goal a 100)"#
}

fn main() {}
