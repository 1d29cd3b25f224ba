#!/usr/bin/env bash
# Generated-code size and release build time of compiled games: for each
# game, the size of `gdl-codegen emit GAME` and the wall time of a first
# `play --reasoner compiled` in a fresh cache (generating, then building the
# crate and the runtime with cargo in release mode), then one line of JSON.
#   scripts/build-times.sh [GAME...]
# Without games: our chess, speedChess, the largest Stanford hex, Quarto
# (rule tables) and skirmish (the largest corpus game under the default
# compile budget).
set -u
cd "$(dirname "$0")/.."
games=("$@")
if [ ${#games[@]} -eq 0 ]; then
  c=../shared/games
  games=(examples/games/chess.kif
         "$c/ggp-repository-base/speedChess.kif"
         "$c/stanford-via-chiaras/hex.kif"
         "$c/ggp-repository-base/quartoSuicide.kif"
         "$c/ggp-repository-base/skirmish.kif")
fi
cargo build --release -q -p gdl-codegen || exit 3
bin=target/release/gdl-codegen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for g in "${games[@]}"; do
  name=$(basename "$g")
  if ! "$bin" emit "$g" >"$tmp/game.rs" 2>"$tmp/err"; then
    echo "{\"game\":\"$name\",\"error\":\"$(tail -1 "$tmp/err" | tr -d '"')\"}"
    continue
  fi
  bytes=$(wc -c <"$tmp/game.rs")
  lines=$(wc -l <"$tmp/game.rs")
  start=$(date +%s%N)
  "$bin" play "$g" --reasoner compiled --playouts 1 --cache-dir "$tmp/cache-$name" >/dev/null 2>&1
  status=$?
  end=$(date +%s%N)
  ms=$(( (end - start) / 1000000 ))
  echo "{\"game\":\"$name\",\"bytes\":$bytes,\"lines\":$lines,\"build_ms\":$ms,\"status\":$status}"
done
