//! Embeds a build id of the compiler: a hash of its own sources (and of the
//! runtime's, when they sit beside it in the workspace), so that caches of
//! generated code are keyed by the code generator that produced them. The
//! `gdl!` macro runs inside rustc, where `current_exe()` names rustc, not
//! this crate: the id must be fixed when the crate is compiled.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let mut files = Vec::new();
    let roots = [manifest.join("src"), manifest.join("../runtime/src")];
    for root in roots.iter().filter(|r| r.is_dir()) {
        println!("cargo:rerun-if-changed={}", root.display());
        collect(root, &mut files);
    }
    files.push(manifest.join("Cargo.toml"));
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("Cargo.toml").display()
    );
    files.sort();
    let mut h = Fnv::default();
    for file in &files {
        let rel = file.strip_prefix(&manifest).unwrap_or(file);
        h.write(rel.to_string_lossy().as_bytes());
        h.write(&std::fs::read(file).unwrap_or_default());
    }
    println!(
        "cargo:rustc-env=GDL_CODEGEN_BUILD_ID={}-{:016x}{:016x}",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default(),
        h.a,
        h.b
    );
}

/// Every file under `dir`, recursively.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Two FNV-1a hashes with different offsets: 128 bits, no dependency.
struct Fnv {
    a: u64,
    b: u64,
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv {
            a: 0xcbf2_9ce4_8422_2325,
            b: 0x6c62_272e_07bb_0142,
        }
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes.iter().chain(&[0xff]) {
            self.a = (self.a ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            self.b = (self.b ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
