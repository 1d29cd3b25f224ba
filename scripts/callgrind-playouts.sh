#!/usr/bin/env bash
# Instructions per seeded random playout, counted by callgrind, for a
# gdl-codegen binary: `play GAME --reasoner R --playouts N --seed 1`.
#
# Each game and reasoner runs twice under callgrind, with N1 and N2 playouts;
# the difference of the two instruction totals, divided by N2 - N1, is the
# cost of a playout without the start-up (reading, grounding, loading). The
# same seed makes the first N1 playouts of both runs identical, so the
# difference is exactly the cost of playouts N1+1 .. N2.
#
# Every reasoner runs inside gdl-codegen: `--reasoner compiled` builds the
# game as a library in the cache and loads it (`host::loaded`), as a player
# does. The script runs `play` once natively (building the library), then
# measures `play` itself under callgrind, the cached library loaded again.
#
# N1 and N2 are the same for both reasoners and for every binary, so that
# figures compare the same playouts: for the six benchmark games a fixed pair
# (the slower reasoner, propnet, runs each in well under a minute of
# callgrind); for other games N2 is chosen from a native run of the first
# reasoner so that N2 playouts take about $CALLGRIND_NATIVE_SECONDS (default
# 0.5) natively, and N1 = N2 / 10. CALLGRIND_PLAYOUTS="N1 N2" sets them for
# every game.
#
# Usage: scripts/callgrind-playouts.sh BIN [GAMES...]
#   BIN    a gdl-codegen binary
#   GAMES  game files (default: the six benchmark games of the corpus)
# Environment: REASONERS (default "compiled propnet"); CALLGRIND_BACKEND, the
# back end of compiled code (default: auto's choice); CALLGRIND_CACHE, the
# compiled-game cache (default: a fresh temporary directory, removed at the
# end; a cache kept between runs saves building the games again).
set -uo pipefail

if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 GDL-CODEGEN-BINARY [GAMES...]" >&2
    exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
    base="$here/../../shared/games/ggp-repository-base"
    set -- "$base"/{ticTacToe,connectFour,breakthrough,reversi,englishDraughts,speedChess}.kif
fi
reasoners=${REASONERS:-compiled propnet}
backend=(--backend "${CALLGRIND_BACKEND:-auto}")
native_seconds=${CALLGRIND_NATIVE_SECONDS:-0.5}

work=$(mktemp -d)
if [ -n "${CALLGRIND_CACHE:-}" ]; then
    cache=$CALLGRIND_CACHE
else
    cache=$work/cache
fi
trap 'rm -rf "$work"' EXIT

# The playouts per second a `play` output reports.
rate() { grep -o '[0-9.]* playouts/s' | head -1 | cut -d' ' -f1; }

# The instruction total (Ir) of a callgrind output file.
total_ir() { awk '/^(summary|totals):/ { print $2; exit }' "$1"; }

# The fixed playout counts "N1 N2" of a benchmark game, by its file's stem.
fixed_playouts() {
    case $1 in
    ticTacToe) echo "10000 100000" ;;
    connectFour) echo "500 5000" ;;
    breakthrough) echo "200 2000" ;;
    reversi) echo "30 300" ;;
    englishDraughts) echo "60 600" ;;
    speedChess) echo "4 40" ;;
    esac
}

# Ir of one run under callgrind: measure OUT CMD...
measure() {
    local out=$1
    shift
    nice valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.log" ||
        { echo "error: callgrind run failed: $*" >&2; cat "$out.log" >&2; return 1; }
    total_ir "$out"
}

printf '%-18s %-9s %8s %8s %16s\n' game reasoner N1 N2 instructions/playout
for game in "$@"; do
    name=$(basename "$game")
    name=${name%.*}
    counts=${CALLGRIND_PLAYOUTS:-$(fixed_playouts "$name")}
    for r in $reasoners; do
        probe=200
        log=$work/$name-$r.native
        nice "$bin" play "$game" --reasoner "$r" "${backend[@]}" --playouts $probe --seed 1 \
            --cache-dir "$cache" >"$log" 2>&1 ||
            { echo "error: $name $r: play failed" >&2; cat "$log" >&2; continue; }
        if [ -z "$counts" ]; then
            n2=$(rate <"$log" | awk -v s="$native_seconds" '{ n = int($1 * s); print (n < 20 ? 20 : n) }')
            counts="$((n2 / 10)) $n2"
        fi
        read -r n1 n2 <<<"$counts"
        if [ "$n1" -lt 1 ] || [ "$n2" -le "$n1" ]; then
            echo "error: need 1 <= N1 < N2 (got $n1, $n2)" >&2
            exit 2
        fi
        cmd=("$bin" play "$game" --reasoner "$r" "${backend[@]}" --seed 1 --cache-dir "$cache" --playouts)
        ir1=$(measure "$work/$name-$r.$n1.out" "${cmd[@]}" "$n1") || continue
        ir2=$(measure "$work/$name-$r.$n2.out" "${cmd[@]}" "$n2") || continue
        per=$(awk -v a="$ir1" -v b="$ir2" -v n1="$n1" -v n2="$n2" 'BEGIN { printf "%.0f", (b - a) / (n2 - n1) }')
        printf '%-18s %-9s %8d %8d %16s\n' "$name" "$r" "$n1" "$n2" "$per"
    done
done
