#!/bin/sh
# Rebuild times of a crate using gdl! on the corpus chess.kif after a
# one-line edit of its main.rs, with the game in the same crate (`same`) and
# in a crate of its own (`app` over `chess-game`, as the README shows), in
# debug and release. The cold builds come first (they fill the expansion
# cache); each line `RESULT PROFILE CRATE SECONDS` is one rebuild.
#
#     scripts/macro-rebuild.sh [WORKDIR]     (default: a new temporary directory)
set -e
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
chess="$repo/../shared/games/ggp-repository-base/chess.kif"
mkdir -p "$work/same/src" "$work/game/src" "$work/app/src"
cp "$chess" "$work/same/chess.kif"
cp "$chess" "$work/game/chess.kif"
cat > "$work/Cargo.toml" <<TOML
[workspace]
resolver = "2"
members = ["same", "game", "app"]

[workspace.dependencies]
gdl-macro = { path = "$repo/gdl-macro" }
gdl-runtime = { path = "$repo/runtime" }

[profile.dev.build-override]
opt-level = 3

[profile.release.build-override]
opt-level = 3
TOML
for crate in same game app; do
  name=$crate; [ $crate = game ] && name=chess-game
  deps='gdl-runtime.workspace = true'
  case $crate in
    app) deps="$deps
chess-game = { path = \"../game\" }" ;;
    *) deps="$deps
gdl-macro.workspace = true" ;;
  esac
  printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n%s\n' \
    "$name" "$deps" > "$work/$crate/Cargo.toml"
done
cat > "$work/same/src/main.rs" <<'RS'
gdl_macro::gdl! { mod chess; struct Chess; include "chess.kif"; }

use gdl_runtime::Game;

fn main() {
    let game = chess::Chess;
    println!("perft 2: {}", gdl_runtime::perft(&game, &game.initial_state(), 2)); // edit 0
}
RS
cat > "$work/game/src/lib.rs" <<'RS'
//! Chess in a crate of its own.
gdl_macro::gdl! { pub mod chess; struct Chess; include "chess.kif"; }
pub use chess::{Chess, ChessState};
RS
cat > "$work/app/src/main.rs" <<'RS'
use gdl_runtime::Game;

fn main() {
    let game = chess_game::Chess;
    println!("perft 2: {}", gdl_runtime::perft(&game, &game.initial_state(), 2)); // edit 0
}
RS
cd "$work"
export GDL_CODEGEN_CACHE="$work/cache" CARGO_TARGET_DIR="$work/target"
for profile in dev release; do
  flag=""; [ $profile = release ] && flag=--release
  cargo build $flag -p same -p app 2>&1 | tail -1
  for crate in same app; do
    sed -i "s#// edit .*#// edit $(date +%s%N)#" $crate/src/main.rs
    start=$(date +%s.%N)
    cargo build $flag -p $crate 2>&1 | tail -1
    end=$(date +%s.%N)
    echo "RESULT $profile $crate $(echo "$end - $start" | bc) s"
  done
done
