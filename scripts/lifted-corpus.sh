#!/usr/bin/env bash
# The games that do not ground, through `--backend auto` (the lifted back
# end for them): per game the back end chosen and why, the time to
# generate the module and its size, the time to build it and play 10
# seeded playouts, and their speed. Games are read from the arguments, or
# from scripts/lifted-games.txt (paths relative to the corpus). The last run's results are kept in
# scripts/lifted-corpus.tsv.
#
# Usage: scripts/lifted-corpus.sh [GAME...]   (TIMEOUT=600 per step)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/../shared/games
limit=${TIMEOUT:-600}
bin=${GDL_CODEGEN:-${CARGO_TARGET_DIR:-$root/target}/release/gdl-codegen}
cargo build --release -q -p gdl-codegen --manifest-path "$root/Cargo.toml" || exit 2
if [ $# -gt 0 ]; then games=("$@"); else mapfile -t games < "$root/scripts/lifted-games.txt"; fi
out=$(mktemp -d)
printf 'game\tbackend\temit_s\tbytes\tbuild_and_play_s\tplayouts_per_s\tstatus\n'
for g in "${games[@]}"; do
    f=$g; [ -f "$f" ] || f=$corpus/$g
    t0=$(date +%s.%N)
    timeout "$limit" "$bin" emit --backend auto "$f" -o "$out/game.rs" 2>"$out/emit.err"
    code=$?
    t1=$(date +%s.%N)
    backend=$(grep -o 'note: [a-z]* back end' "$out/emit.err" | head -1 | cut -d' ' -f2)
    if [ $code -ne 0 ]; then
        printf '%s\t%s\t%.1f\t-\t-\t-\temit failed: %s\n' "$g" "${backend:--}" "$(echo "$t1 - $t0" | bc)" \
            "$(grep -m1 error "$out/emit.err" | cut -c1-120)"
        continue
    fi
    bytes=$(wc -c < "$out/game.rs")
    timeout "$limit" "$bin" play "$f" --reasoner compiled --backend auto --playouts 10 --seed 1 \
        >"$out/play.out" 2>"$out/play.err"
    code=$?
    t2=$(date +%s.%N)
    speed=$(grep -o '[0-9.]* playouts/s' "$out/play.out" | cut -d' ' -f1)
    status=ok; [ $code -eq 0 ] || status="play failed ($code): $(grep -m1 -E '^error' "$out/play.err" | cut -c1-100)"
    printf '%s\t%s\t%.1f\t%s\t%.1f\t%s\t%s\n' "$g" "$backend" "$(echo "$t1 - $t0" | bc)" "$bytes" \
        "$(echo "$t2 - $t1" | bc)" "${speed:--}" "$status"
done
rm -rf "$out"
