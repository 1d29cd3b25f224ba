#!/usr/bin/env bash
# The speed table of the issues: seeded random playouts per second, one
# thread, on the benchmark games, for every reasoner measured in one run.
#   scripts/bench-games.sh [SECONDS] [REASONER...]
# Prints one JSON object per game and reasoner, then a table.
set -u
cd "$(dirname "$0")/.."
secs=${1:-5}
shift || true
reasoners=("$@")
[ ${#reasoners[@]} -gt 0 ] || reasoners=(interpreter propnet compiled)
args=()
for r in "${reasoners[@]}"; do args+=(--reasoner "$r"); done
cargo build --release -q -p gdl-codegen || exit 3
bin=target/release/gdl-codegen
games=../shared/games/ggp-repository-base
for g in ticTacToe connectFour breakthrough reversi englishDraughts speedChess; do
  # Build the compiled game first so that its build does not share the
  # machine with the measurement of another reasoner.
  "$bin" play "$games/$g.kif" --playouts 1 --reasoner compiled >/dev/null 2>&1
  "$bin" bench "$games/$g.kif" --seconds "$secs" "${args[@]}" 2>/dev/null
done
