#!/usr/bin/env bash
# Our compiled games against the RBG compiler's (Regular Boardgames,
# uicus/rbg2cpp), in one run on one machine: each game's seeded random
# playouts for SECONDS on one core, ours through `gdl-codegen bench
# --reasoner compiled`, RBG's through its own flat Monte Carlo benchmark
# (test/benchmark.cpp, built as its Makefile builds it: -Ofast
# -march=native -flto). Prints a TSV line per game and the ratios
# ours/RBG in playouts/s and states/s.
#
# RBG's rules differ a little from the corpus's (its connect four is 7x6,
# the corpus's 8x6; our chess is examples/games/chess.kif), so read states/s
# beside playouts/s. For connect four the script also measures RBG on the
# corpus's board: `connect4_8x6` is RBG's own connect4.rbg with one more
# column, made at run time under $RBG_BUILD (a board row is its only
# width-dependent part), so that one line compares the same game.
#
# RBG's code is not part of this repository: clone it where you like, with
# its parser and games, and build nothing yourself:
#
#   git clone --recurse-submodules https://github.com/uicus/rbg2cpp /tmp/rbg
#   apt-get install libboost-dev g++          # RBG's generated code needs boost
#   scripts/rbg-compare.sh /tmp/rbg [SECONDS]
#
# The RBG binaries are built under $RBG_BUILD (default /tmp/rbg-bin);
# RBG_GAMES (RBG names, space-separated) limits the run to those games.
# RBG_ROUNDS=N (default 1) alternates the two engines N times per game and
# prints the median of each engine's rates: on a shared machine one pair
# of runs can catch a change of load between its two halves (connect four
# read 0.90 to 1.01 in single pairs on one afternoon).
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 RBG2CPP_DIR [SECONDS]" >&2
    exit 2
fi
rbg=$(cd "$1" && pwd) || exit 2
secs=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/../shared/games/ggp-repository-base
build=${RBG_BUILD:-/tmp/rbg-bin}
bin=${GDL_CODEGEN:-${CARGO_TARGET_DIR:-$root/target}/release/gdl-codegen}
cargo build --release -q -p gdl-codegen --manifest-path "$root/Cargo.toml" || exit 2
[ -x "$rbg/bin/rbg2cpp" ] || make -C "$rbg" rbg2cpp >/dev/null || exit 2
# One core, as RBG's harness runs (taskset where the machine has it).
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
# RBG game name, then our game file.
games=(
    "ticTacToe $corpus/ticTacToe.kif"
    "connect4 $corpus/connectFour.kif"
    "connect4_8x6 $corpus/connectFour.kif"
    "breakthrough $corpus/breakthrough.kif"
    "reversi $corpus/reversi.kif"
    "englishDraughts $corpus/englishDraughts.kif"
    "chess $root/examples/games/chess.kif"
)
# The number after `$2` in RBG's benchmark output line starting with `$1`.
rbg_field() { grep "^number of $2" "$1" | sed 's/.*(\([0-9.]*\) .*/\1/'; }
ours_field() { grep -o "\"$2\":[0-9.]*" "$1" | cut -d: -f2; }
# RBG's connect4.rbg with an eighth column, written to $1; fails unless all
# six board rows were widened (a changed file would otherwise be measured
# as 7x6 under the 8x6 name).
widen_connect4() {
    sed 's/\[e,e,e,e,e,e,e\]/[e,e,e,e,e,e,e,e]/' "$rbg/rbgGames/games/connect4.rbg" >"$1" &&
        [ "$(grep -c '\[e,e,e,e,e,e,e,e\]' "$1")" -eq 6 ]
}
# The median of the numbers given (the lower middle one of an even count);
# empty if any is missing.
median() {
    for x in "$@"; do [ -n "$x" ] || return 0; done
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
out=$(mktemp -d)
printf 'game\tours_playouts_s\trbg_playouts_s\tours/rbg_playouts\tours_states_s\trbg_states_s\tours/rbg_states\n'
for entry in "${games[@]}"; do
    read -r name kif <<<"$entry"
    # RBG_GAMES="connect4 connect4_8x6" measures only those.
    if [ -n "${RBG_GAMES:-}" ] && [[ " $RBG_GAMES " != *" $name "* ]]; then continue; fi
    dir=$build/$name
    rbgfile=$rbg/rbgGames/games/$name.rbg
    [ "$name" = connect4_8x6 ] && rbgfile=$dir/connect4_8x6.rbg
    if [ ! -x "$dir/benchmark" ]; then
        mkdir -p "$dir"
        if [ "$name" = connect4_8x6 ] && ! widen_connect4 "$rbgfile"; then
            echo "$name: cannot widen RBG's connect4.rbg to 8 columns (see $rbgfile)" >&2
            continue
        fi
        (cd "$dir" && "$rbg/bin/rbg2cpp" -o reasoner "$rbgfile" >gen.log 2>&1 &&
            g++ -std=c++17 -Ofast -march=native -flto -s -DNDEBUG -DRBG_RANDOM_GENERATOR=0 \
                -I. -I"$rbg/test" -o benchmark reasoner.cpp "$rbg/test/benchmark.cpp" >build.log 2>&1) || {
            echo "$name: RBG build failed (see $dir)" >&2
            continue
        }
    fi
    rps=() rss=() ops=() oss=()
    for ((round = 0; round < ${RBG_ROUNDS:-1}; round++)); do
        "${pin[@]}" "$dir/benchmark" $((secs * 1000)) >"$out/rbg.txt" 2>&1
        "${pin[@]}" "$bin" bench "$kif" --reasoner compiled --seconds "$secs" --seed 1 --json \
            >"$out/ours.json" 2>"$out/ours.err"
        rps+=("$(rbg_field "$out/rbg.txt" playouts)")
        rss+=("$(rbg_field "$out/rbg.txt" states)")
        ops+=("$(ours_field "$out/ours.json" playouts_per_sec)")
        oss+=("$(ours_field "$out/ours.json" states_per_sec)")
    done
    rp=$(median "${rps[@]}") rs=$(median "${rss[@]}")
    op=$(median "${ops[@]}") os=$(median "${oss[@]}")
    if [ -z "$rp" ] || [ -z "$op" ]; then
        echo "$name: no figures (see $out)" >&2
        continue
    fi
    awk -v g="$name" -v op="$op" -v rp="$rp" -v os="$os" -v rs="$rs" 'BEGIN {
        printf "%s\t%.0f\t%.0f\t%.2f\t%.0f\t%.0f\t%.2f\n", g, op, rp, op / rp, os, rs, os / rs }'
done
rm -rf "$out"
