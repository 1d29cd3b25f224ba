//! Cache keys: a 128-bit hash of every input that changes an output.

use std::fmt::Write as _;

use crate::ground::Budget;
use crate::session::CodegenOptions;

/// The build id of this compiler: its version and a hash of its sources
/// (and of the runtime's, in this workspace), fixed when the crate is
/// compiled by `build.rs`. Unlike the running executable's metadata, it is
/// the compiler's own inside a proc macro (where the executable is rustc)
/// and inside a player that links the compiler as a library.
pub fn build_id() -> &'static str {
    env!("GDL_CODEGEN_BUILD_ID")
}

/// A cache key under construction: parts hashed in order, each delimited.
#[derive(Clone, Debug)]
pub struct Key {
    a: u64,
    b: u64,
}

impl Key {
    /// A key for entries of `kind` (each cache its own) made by the compiler
    /// build `build`: [`build_id`], unless a test pretends another build.
    pub fn new(kind: &str, build: &str) -> Key {
        Key {
            a: 0xcbf2_9ce4_8422_2325,
            b: 0x6c62_272e_07bb_0142,
        }
        .part(kind.as_bytes())
        .part(build.as_bytes())
    }

    /// The key with one more part.
    pub fn part(mut self, bytes: &[u8]) -> Key {
        // A length prefix keeps ("ab", "c") and ("a", "bc") apart.
        let len = (bytes.len() as u64).to_le_bytes();
        for &byte in len.iter().chain(bytes) {
            self.a = (self.a ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            self.b = (self.b ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            self.b = self.b.rotate_left(5);
        }
        self
    }

    /// The key as 32 hexadecimal digits, a file name.
    pub fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.a, self.b)
    }
}

/// Every option that changes the generated code, as text for a key. The
/// budget's deadline is left out: it bounds time, and a result found within
/// it is the same result. Destructured so that a new option must be placed
/// here or left out on purpose.
pub fn options_key(options: &CodegenOptions) -> String {
    let CodegenOptions {
        frontend,
        budget,
        emit,
        backend,
    } = options;
    let Budget {
        max_rules,
        max_memory,
        max_work,
        deadline: _,
    } = budget;
    let mut out = String::new();
    let _ = write!(
        out,
        "{frontend:?}|{max_rules}|{max_memory}|{max_work}|{emit:?}|{backend:?}"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_depend_on_every_part_and_its_bounds() {
        let k = |parts: &[&[u8]]| {
            parts
                .iter()
                .fold(Key::new("t", "b"), |k, p| k.part(p))
                .hex()
        };
        assert_eq!(k(&[b"ab", b"c"]), k(&[b"ab", b"c"]));
        assert_ne!(k(&[b"ab", b"c"]), k(&[b"a", b"bc"]));
        assert_ne!(Key::new("t", "b").hex(), Key::new("t", "c").hex());
        assert_eq!(k(&[]).len(), 32);
    }

    #[test]
    fn options_that_change_the_code_change_the_key() {
        let base = CodegenOptions::default();
        let mut tables = base.clone();
        tables.emit.rule_table_threshold = Some(3);
        let mut incremental = base.clone();
        incremental.emit.incremental = Some(false);
        let mut timed = base.clone();
        timed.budget = timed.budget.within(std::time::Duration::from_secs(1));
        assert_ne!(options_key(&base), options_key(&tables));
        assert_ne!(options_key(&base), options_key(&incremental));
        assert_eq!(options_key(&base), options_key(&timed));
    }
}
