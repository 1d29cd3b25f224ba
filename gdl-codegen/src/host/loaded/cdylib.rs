//! A loaded game's library in the cache: its key, its crate, and the cargo
//! build that makes it (niced, few jobs, stopped with the load's tracker:
//! its deadline or its cancellation).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::{bounds, LoadError};
use crate::host::cache::{runtime_dependency, target_cpu, Cache};
use crate::session::CodegenOptions;
use crate::store::{self, Key};

/// The name of the game type in a loaded game's generated module.
pub(super) const TYPE_NAME: &str = "CompiledGame";

/// How cargo runs for a loaded game. Its deadline and cancellation are the
/// whole load's ([`super::LoadOptions::cancel`] and
/// [`super::LoadOptions::deadline`]).
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// cargo's path (default: `$CARGO`, else `cargo` on the `PATH`).
    pub cargo: Option<PathBuf>,
    /// Added to the build's niceness on Unix (default 10), so that search
    /// keeps its priority while a game builds.
    pub nice: i32,
    /// cargo's `--jobs` (default 1: one core stays with the search).
    pub jobs: u32,
}

impl Default for Toolchain {
    fn default() -> Self {
        Toolchain {
            cargo: None,
            nice: 10,
            jobs: 1,
        }
    }
}

impl Toolchain {
    fn cargo(&self) -> PathBuf {
        self.cargo
            .clone()
            .or_else(|| std::env::var_os("CARGO").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("cargo"))
    }
}

/// The compiler's options for a loaded game: the loader's type name and
/// the rules' name in the generated header.
pub(super) fn codegen_options(name: &str, options: &CodegenOptions) -> CodegenOptions {
    let mut options = options.clone();
    options.emit.type_name = TYPE_NAME.to_owned();
    options.emit.source_name = name.to_owned();
    options
}

/// A library in the cache: `<cache>/libs/l<key>/` holds its crate, the
/// library copied out of cargo's target directory, and a stamp.
#[derive(Clone, Debug)]
pub(super) struct LibraryEntry {
    pub(super) key: String,
    pub(super) crate_dir: PathBuf,
    pub(super) library: PathBuf,
    stamp: PathBuf,
}

impl LibraryEntry {
    /// The entry of `rules` compiled with `options`: keyed by the text and
    /// the options asked for (not the back end `auto` picks, which would
    /// need grounding), the compiler build, the runtime and the target CPU.
    pub(super) fn new(cache: &Cache, rules: &[u8], options: &CodegenOptions) -> LibraryEntry {
        let key = Key::new("library", store::build_id())
            .part(rules)
            .part(store::options_key(options).as_bytes());
        Self::at(cache, key)
    }

    /// The entry of a module of generated code.
    pub(super) fn for_module(cache: &Cache, key: &str, code: &str) -> LibraryEntry {
        let key = Key::new("module", store::build_id())
            .part(key.as_bytes())
            .part(code.as_bytes());
        Self::at(cache, key)
    }

    fn at(cache: &Cache, key: Key) -> LibraryEntry {
        let key = key
            .part(runtime_dependency().as_bytes())
            .part(target_cpu().unwrap_or_default().as_bytes())
            .hex();
        let name = format!("l{}", &key[..16]);
        let crate_dir = cache.dir().join("libs").join(&name);
        let file = format!(
            "{}{name}{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        );
        LibraryEntry {
            library: crate_dir.join(file),
            stamp: crate_dir.join("built.stamp"),
            crate_dir,
            key,
        }
    }

    /// The crate's (and library's) name.
    fn name(&self) -> &str {
        self.crate_dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("game")
    }

    /// Whether the library is built for this key.
    pub(super) fn is_built(&self) -> bool {
        self.library.exists() && std::fs::read_to_string(&self.stamp).is_ok_and(|s| s == self.key)
    }
}

/// Writes the crate of `entry` around `code` and builds it with cargo into
/// the cache's shared target directory, then copies the library next to
/// the crate (renamed into place: a library being loaded is never
/// rewritten by a later build).
pub(super) fn build(
    cache: &Cache,
    entry: &LibraryEntry,
    code: &str,
    toolchain: &Toolchain,
) -> Result<(), LoadError> {
    write_crate(entry, code).map_err(|e| io_error(&entry.crate_dir, e))?;
    let log = entry.crate_dir.join("build.log");
    let mut child = spawn_cargo(cache, entry, toolchain, &log)?;
    let status = wait(&mut child)?;
    if !status.success() {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(20).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(LoadError::Build(format!(
            "cargo exited with {status}:\n{}",
            tail.join("\n")
        )));
    }
    let built = cache
        .target_dir()
        .join("release")
        .join(entry.library.file_name().unwrap_or_default());
    let bytes = std::fs::read(&built).map_err(|e| io_error(&built, e))?;
    store::write_atomic(&entry.library, &bytes).map_err(|e| io_error(&entry.library, e))?;
    store::write_atomic(&entry.stamp, entry.key.as_bytes()).map_err(|e| io_error(&entry.stamp, e))
}

fn io_error(path: &Path, e: std::io::Error) -> LoadError {
    LoadError::Build(format!("{}: {e}", path.display()))
}

/// The crate: a `cdylib` over the generated module, exporting it through
/// `gdl_runtime::export_game!` with this compiler's build id.
fn write_crate(entry: &LibraryEntry, code: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(entry.crate_dir.join("src"))?;
    let manifest = format!(
        "[package]\nname = \"{}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [lib]\ncrate-type = [\"cdylib\"]\npath = \"src/lib.rs\"\n\n\
         [dependencies]\ngdl-runtime = {}\n\n\
         [profile.release]\ncodegen-units = 16\ndebug = false\n\n\
         # Not part of any enclosing workspace.\n[workspace]\n",
        entry.name(),
        runtime_dependency()
    );
    let lib = format!(
        "//! A loaded game's library: the generated module behind the C ABI of\n\
         //! `gdl_runtime::abi`.\n\n\
         mod game;\n\n\
         gdl_runtime::export_game!(game::{TYPE_NAME}, game::{TYPE_NAME}State, {:?});\n",
        store::build_id()
    );
    std::fs::write(entry.crate_dir.join("Cargo.toml"), manifest)?;
    std::fs::write(entry.crate_dir.join("src/lib.rs"), lib)?;
    std::fs::write(entry.crate_dir.join("src/game.rs"), code)?;
    let _ = std::fs::remove_file(&entry.stamp);
    Ok(())
}

/// Starts cargo, niced, in a process group of its own (so that stopping
/// the build stops rustc too), its output in `log`.
fn spawn_cargo(
    cache: &Cache,
    entry: &LibraryEntry,
    toolchain: &Toolchain,
    log: &Path,
) -> Result<Child, LoadError> {
    let cargo = toolchain.cargo();
    let mut command = Command::new(&cargo);
    if let Some(cpu) = target_cpu() {
        let mut flags = std::env::var("RUSTFLAGS").unwrap_or_default();
        flags.push_str(&format!(" -C target-cpu={cpu}"));
        command.env("RUSTFLAGS", flags.trim_start());
    }
    let out = std::fs::File::create(log).map_err(|e| io_error(log, e))?;
    command
        .arg("build")
        .arg("--release")
        .arg("--jobs")
        .arg(toolchain.jobs.max(1).to_string())
        .arg("--manifest-path")
        .arg(entry.crate_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(cache.target_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(out);
    lower_priority(&mut command, toolchain.nice);
    command
        .spawn()
        .map_err(|e| LoadError::Toolchain(format!("cannot run cargo (`{}`): {e}", cargo.display())))
}

#[cfg(unix)]
fn lower_priority(command: &mut Command, nice: i32) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    // SAFETY: nice(2) and prctl(2) are async-signal-safe, as pre_exec
    // requires.
    unsafe {
        command.pre_exec(move || {
            libc::nice(nice);
            // A build outlives no process that waits for it: a player
            // killed mid-match leaves no cargo running on its cores.
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

#[cfg(not(unix))]
fn lower_priority(_: &mut Command, _: i32) {}

/// Waits for cargo, stopping it (its whole process group) when the load's
/// tracker says so (its deadline, or its cancellation).
fn wait(child: &mut Child) -> Result<std::process::ExitStatus, LoadError> {
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| LoadError::Build(e.to_string()))?
        {
            return Ok(status);
        }
        if let Some(stop) = bounds::stop() {
            kill_group(child);
            return Err(stop);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) on the process group this build started.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}
