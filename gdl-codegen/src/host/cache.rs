//! The build cache of compiled games: `--reasoner compiled` generates a game's
//! code into a small crate here, builds it with cargo in release mode, and
//! runs the binary.
//!
//! Layout: `<cache>/games/g<key>/` holds one crate per game (its
//! `Cargo.toml`, `src/main.rs`, the generated `src/game.rs`, and a stamp
//! written after a successful build); `<cache>/target/` is the one cargo
//! target directory all games share, so `gdl-runtime` is built once. The key
//! hashes the game text, the options and the compiler's build id
//! ([`crate::store::build_id`]): a second run of an unchanged game finds the
//! stamp and runs the binary without calling cargo at all.
//!
//! The directory is, in order: the `--cache-dir` option, the
//! `GDL_CODEGEN_CACHE` environment variable, `$XDG_CACHE_HOME/gdl-codegen`
//! or `$HOME/.cache/gdl-codegen`, made private to the user (mode 0700; see
//! [`crate::store`]).
//!
//! The binaries run only here, so they are built for this machine's
//! processor ([`target_cpu`]): on x86-64 with AVX2 and BMI2, the
//! `x86-64-v3` level (reversi runs 16% fewer instructions per playout).
//! Not `native`, by default: on a processor with AVX-512 that emits
//! instructions valgrind cannot run, and instruction counts are how this
//! project measures speed. `GDL_CODEGEN_TARGET_CPU` chooses another
//! (`native`, `baseline` for none, or any name `rustc -C target-cpu` takes).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::store::{self, Key, StoreError};

/// Environment variable naming the cache directory.
pub use crate::store::CACHE_ENV;

/// Environment variable choosing the processor the cached binaries are
/// built for (see the module documentation).
pub const TARGET_CPU_ENV: &str = "GDL_CODEGEN_TARGET_CPU";

/// The `-C target-cpu` of the cached binaries: `GDL_CODEGEN_TARGET_CPU`
/// (`baseline` or empty: none), else `x86-64-v3` where the processor has
/// that level's instructions, else none.
pub fn target_cpu() -> Option<String> {
    choose_cpu(std::env::var(TARGET_CPU_ENV).ok(), has_x86_64_v3())
}

/// [`target_cpu`] from the variable's value and whether the processor has
/// the x86-64-v3 instructions.
fn choose_cpu(var: Option<String>, v3: bool) -> Option<String> {
    match var {
        Some(cpu) if cpu.is_empty() || cpu == "baseline" => None,
        Some(cpu) => Some(cpu),
        None => v3.then(|| "x86-64-v3".to_owned()),
    }
}

/// Whether this processor has the x86-64-v3 instructions.
fn has_x86_64_v3() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("movbe")
            && std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Why a compiled game could not be built.
#[derive(Debug)]
pub enum BuildError {
    /// Writing the crate failed.
    Io(String),
    /// cargo could not be started or the build failed.
    Cargo(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Io(e) => write!(f, "cannot prepare the build: {e}"),
            BuildError::Cargo(e) => write!(f, "building the compiled game failed: {e}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// The build cache.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: PathBuf,
}

/// A game crate in the cache.
#[derive(Clone, Debug)]
pub struct CachedGame {
    /// The crate's directory.
    pub crate_dir: PathBuf,
    /// The binary, once built.
    pub binary: PathBuf,
    stamp: PathBuf,
    key: String,
}

impl CachedGame {
    /// Whether the binary is built and up to date.
    pub fn is_built(&self) -> bool {
        self.binary.exists() && std::fs::read_to_string(&self.stamp).is_ok_and(|s| s == self.key)
    }
}

impl Cache {
    /// The cache at `explicit`, or where the environment says (see
    /// [`crate::store::locate`]), created private to the user (mode 0700).
    pub fn locate(explicit: Option<&Path>) -> Result<Cache, StoreError> {
        store::open(explicit).map(|dir| Cache { dir })
    }

    /// The cache at `dir`, as it is (for tests and tools that made it).
    pub fn at(dir: &Path) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
        }
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The shared cargo target directory.
    pub fn target_dir(&self) -> PathBuf {
        self.dir.join("target")
    }

    /// The crate of a game identified by `key_parts` (game text, options...),
    /// keyed also by the compiler's build id, the runtime it links and the
    /// target CPU.
    pub fn game(&self, key_parts: &[&[u8]]) -> CachedGame {
        let key = key_parts
            .iter()
            .fold(Key::new("compiled", store::build_id()), |k, p| k.part(p))
            .part(runtime_dependency().as_bytes())
            .part(target_cpu().unwrap_or_default().as_bytes())
            .hex();
        let name = format!("g{}", &key[..16]);
        let crate_dir = self.dir.join("games").join(&name);
        let exe = format!("{name}{}", std::env::consts::EXE_SUFFIX);
        CachedGame {
            binary: self.target_dir().join("release").join(exe),
            stamp: crate_dir.join("built.stamp"),
            crate_dir,
            key,
        }
    }

    /// Writes the crate of `game` with `code` (a module defining `type_name`),
    /// and builds it. Cargo's own output goes to standard error.
    pub fn build(
        &self,
        game: &CachedGame,
        code: &str,
        type_name: &str,
        label: &str,
    ) -> Result<(), BuildError> {
        let io = |e: std::io::Error| BuildError::Io(format!("{}: {e}", game.crate_dir.display()));
        std::fs::create_dir_all(game.crate_dir.join("src")).map_err(io)?;
        let name = game
            .crate_dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("game");
        let manifest = format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\ngdl-runtime = {}\n\n\
             [profile.release]\ncodegen-units = 16\ndebug = false\n\n\
             # Not part of any enclosing workspace.\n[workspace]\n",
            runtime_dependency()
        );
        let main = format!(
            "//! Runs the commands of `gdl_runtime::cli` on the compiled game.\n\n\
             mod game;\n\n\
             fn main() {{\n    std::process::exit(gdl_runtime::cli::main(&game::{type_name}, {label:?}));\n}}\n"
        );
        std::fs::write(game.crate_dir.join("Cargo.toml"), manifest).map_err(io)?;
        std::fs::write(game.crate_dir.join("src/main.rs"), main).map_err(io)?;
        std::fs::write(game.crate_dir.join("src/game.rs"), code).map_err(io)?;
        let _ = std::fs::remove_file(&game.stamp);
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = Command::new(cargo);
        if let Some(cpu) = target_cpu() {
            let mut flags = std::env::var("RUSTFLAGS").unwrap_or_default();
            flags.push_str(&format!(" -C target-cpu={cpu}"));
            command.env("RUSTFLAGS", flags.trim_start());
        }
        let status = command
            .arg("build")
            .arg("--release")
            .arg("--quiet")
            .arg("--manifest-path")
            .arg(game.crate_dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(self.target_dir())
            .status()
            .map_err(|e| BuildError::Cargo(format!("cannot run cargo: {e}")))?;
        if !status.success() {
            return Err(BuildError::Cargo(format!("cargo exited with {status}")));
        }
        store::write_atomic(&game.stamp, game.key.as_bytes()).map_err(io)?;
        Ok(())
    }
}

/// How the generated crate depends on `gdl-runtime`: by path to the runtime
/// next to this compiler's sources when it is there, by version otherwise.
pub(crate) fn runtime_dependency() -> String {
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    match local.canonicalize() {
        Ok(p) if p.join("Cargo.toml").exists() => {
            format!("{{ path = {:?} }}", p.display().to_string())
        }
        _ => format!("\"{}\"", env!("CARGO_PKG_VERSION")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_cpu_is_v3_where_it_runs_unless_chosen() {
        assert_eq!(choose_cpu(None, true).as_deref(), Some("x86-64-v3"));
        assert_eq!(choose_cpu(None, false), None);
        assert_eq!(
            choose_cpu(Some("native".into()), false).as_deref(),
            Some("native")
        );
        assert_eq!(choose_cpu(Some("baseline".into()), true), None);
        assert_eq!(choose_cpu(Some(String::new()), true), None);
    }

    #[test]
    fn keys_depend_on_every_part() {
        let cache = Cache::at(Path::new("/tmp/x"));
        assert_ne!(cache.game(&[b"a"]).crate_dir, cache.game(&[b"b"]).crate_dir);
        assert_eq!(cache.target_dir(), Path::new("/tmp/x/target"));
    }
}
