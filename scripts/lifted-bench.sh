#!/usr/bin/env bash
# The lifted back end against the ground back end and the interpreter, each
# game in one `gdl-codegen bench` run (same seed, one thread, SECONDS per
# reasoner): the six benchmark games, which ground, and the games only the
# lifted back end compiles (those scripts/lifted-corpus.tsv lists as ok).
# Prints a TSV line per game (playouts/s of each reasoner and the ratios)
# and the geometric mean of lifted / interpreter over all games.
#
# Usage: scripts/lifted-bench.sh [GAME...]   (SECONDS_PER_REASONER=5)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/../shared/games
secs=${SECONDS_PER_REASONER:-5}
bin=${GDL_CODEGEN:-${CARGO_TARGET_DIR:-$root/target}/release/gdl-codegen}
cargo build --release -q -p gdl-codegen --manifest-path "$root/Cargo.toml" || exit 2
benchmark=(ggp-repository-base/ticTacToe.kif ggp-repository-base/connectFour.kif
    ggp-repository-base/breakthrough.kif ggp-repository-base/reversi.kif
    ggp-repository-base/englishDraughts.kif ggp-repository-base/speedChess.kif)
if [ $# -gt 0 ]; then
    games=("$@")
else
    mapfile -t lifted_only < <(awk -F'\t' '$7 == "ok" { print $1 }' "$root/scripts/lifted-corpus.tsv")
    games=("${benchmark[@]}" "${lifted_only[@]}")
fi
# The value of a field of the JSON line of reasoner $2 in file $1.
field() { grep "\"reasoner\":\"$2\"" "$1" | grep -o "\"$3\":[0-9.]*" | cut -d: -f2; }
out=$(mktemp -d)
printf 'game\tlifted_playouts_s\tground_playouts_s\tinterpreter_playouts_s\tlifted_states_s\tlifted/interpreter\tlifted/ground\n'
logsum=0; n=0
for g in "${games[@]}"; do
    f=$g; [ -f "$f" ] || f=$corpus/$g
    # Ground compiled code only where the game grounds within the budget.
    if "$bin" ground "$f" >/dev/null 2>&1; then
        reasoners=(--reasoner lifted --reasoner compiled --reasoner interpreter --backend ground)
    else
        reasoners=(--reasoner lifted --reasoner interpreter)
    fi
    "$bin" bench "$f" "${reasoners[@]}" --seconds "$secs" --seed 1 --json >"$out/bench.json" 2>"$out/bench.err"
    lifted=$(field "$out/bench.json" lifted playouts_per_sec)
    ground=$(field "$out/bench.json" compiled playouts_per_sec)
    interp=$(field "$out/bench.json" interpreter playouts_per_sec)
    states=$(field "$out/bench.json" lifted states_per_sec)
    ratio=-; vs_ground=-
    if [ -n "$lifted" ] && [ -n "$interp" ] && [ "$(echo "$interp > 0" | bc)" = 1 ]; then
        ratio=$(echo "scale=1; $lifted / $interp" | bc)
        logsum=$(echo "scale=6; $logsum + l($lifted / $interp)" | bc -l); n=$((n + 1))
    fi
    if [ -n "$lifted" ] && [ -n "$ground" ]; then
        vs_ground=$(echo "scale=3; $lifted / $ground" | bc)
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$g" "${lifted:--}" "${ground:--}" "${interp:--}" \
        "${states:--}" "$ratio" "$vs_ground"
done
if [ "$n" -gt 0 ]; then
    printf 'geometric mean of lifted/interpreter over %d games: %.1f\n' "$n" \
        "$(echo "e($logsum / $n)" | bc -l)"
fi
