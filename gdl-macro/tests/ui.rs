//! trybuild cases: games that compile (`ui/pass`) and games whose errors must
//! read well (`ui/fail`, with the expected compiler output in `.stderr`
//! files; regenerate with `TRYBUILD=overwrite` and review the diff).

use std::path::{Path, PathBuf};

/// trybuild builds the cases in a crate of its own under
/// `<target>/tests/trybuild/gdl-macro`, and that directory is the
/// `CARGO_MANIFEST_DIR` against which `include` paths are resolved: copy the
/// test games there, so the cases read `include "games/x.kif"` as users do.
fn install_games() {
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    // The target directory is the first ancestor holding Cargo's CACHEDIR.TAG.
    let Some(target) = exe
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map(Path::to_path_buf)
    else {
        return;
    };
    let dest: PathBuf = target.join("tests/trybuild/gdl-macro/games");
    std::fs::create_dir_all(&dest).expect("create the trybuild games directory");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games");
    for entry in std::fs::read_dir(src).expect("read tests/games") {
        let path = entry.expect("read tests/games").path();
        if let Some(name) = path.file_name() {
            std::fs::copy(&path, dest.join(name)).expect("copy a test game");
        }
    }
}

#[test]
fn ui() {
    install_games();
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
