//! Writing a state held in an `Rc` in place ([`overwrite`]).

/// Sets the value `shared` holds to `value`, in place where no other
/// handle to it is alive (always, between queries: the evaluation holds
/// the state it reads in an `Rc` only while a loop runs over it).
/// `Rc::make_mut` does the same, but its copy path, inlined, made each
/// state's reset save and restore six registers.
#[inline]
pub fn overwrite<T: Copy>(shared: &mut std::rc::Rc<T>, value: &T) {
    match std::rc::Rc::get_mut(shared) {
        Some(v) => *v = *value,
        None => replace_shared(shared, value),
    }
}

/// [`overwrite`] of a value another handle still holds: a new one.
#[cold]
#[inline(never)]
fn replace_shared<T: Copy>(shared: &mut std::rc::Rc<T>, value: &T) {
    *shared = std::rc::Rc::new(*value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overwrite_writes_in_place_unless_another_handle_holds_the_value() {
        let mut state = std::rc::Rc::new([1u64, 2]);
        let at = std::rc::Rc::as_ptr(&state);
        overwrite(&mut state, &[3, 4]);
        assert_eq!((*state, std::rc::Rc::as_ptr(&state)), ([3, 4], at));
        let scan = std::rc::Rc::clone(&state);
        overwrite(&mut state, &[5, 6]);
        assert_eq!((*state, *scan), ([5, 6], [3, 4]));
    }
}
