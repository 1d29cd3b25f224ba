#!/usr/bin/env bash
# The GGP player's strength: matches of `gdl-codegen serve` against an
# opponent on GGP-Base's game server, sides alternated, each player on one
# thread (GGP-Base's players are single-threaded), one line per match
# appended to scripts/player-strength.tsv with the commit, so a run may span
# sessions (a table is read per commit). A benchmark, not a test.
#
# Usage:
#   scripts/player-strength.sh GAME OPPONENT MATCHES   play and append
#   scripts/player-strength.sh --report                the tables, per commit
# GAME: a file under ../shared/games (e.g. ggp-repository-base/connectFour.kif)
# OPPONENT: montecarlo | random | legal (GGP-Base's players), or
#   self-propnet | self-interpreter (our player restricted to that reasoner)
# Environment: START_CLOCK (default 30), PLAY_CLOCK (default 1), OURS
#   (our player's --reasoner, default auto), BIN (the gdl-codegen binary,
#   default target/release/gdl-codegen, built if missing), KEEP_LOGS (a
#   directory to keep each match's player logs in, as match-N-ours.jsonl
#   and match-N-theirs.jsonl; by default they are deleted).
#
# Score: our mean goal (an undefined goal counts 50), with its 95% interval
# (the wider of the normal approximation, mean +- 1.96 sd / sqrt(n), and
# Wilson's interval on the score as a share of 100).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
results="$root/scripts/player-strength.tsv"
tools="$root/../shared/tools/ggp-server"
header="commit	date	game	opponent	our_role	start_clock	play_clock	our_goal	their_goal	our_sims_per_turn	their_sims_per_turn	our_median_sims_per_play	their_median_sims_per_play"

report() {
    [ -f "$results" ] || { echo "no results yet ($results)"; exit 0; }
    # Simulations: each match's total over its turns (the start clock's
    # included), and (from e103567 on) the median of its PLAY turns, the
    # middle game's rate, averaged over the matches.
    printf "%-8s %-28s %-17s %-6s %3s %6s %15s %12s %12s %10s %10s\n" commit game opponent clocks n score "95% interval" "our sims" "their sims" "our med" "their med"
    awk -F'\t' 'NR > 1 {
        k = $1 "\t" $3 "\t" $4 "\t" $6 "/" $7
        n[k]++; s[k] += $8; ss[k] += $8 * $8; os[k] += $10
        if ($11 != "-") { ts[k] += $11; tn[k]++ }
        if ($12 != "" && $12 != "-") { om[k] += $12; omn[k]++ }
        if ($13 != "" && $13 != "-") { tm[k] += $13; tmn[k]++ }
    }
    END {
        for (k in n) {
            split(k, f, "\t"); m = s[k] / n[k]
            var = n[k] > 1 ? (ss[k] - n[k] * m * m) / (n[k] - 1) : 0
            h = 1.96 * sqrt(var > 0 ? var : 0) / sqrt(n[k])
            lo = m - h < 0 ? 0 : m - h; hi = m + h > 100 ? 100 : m + h
            # The normal interval collapses when every score is equal (20
            # wins: 100-100); Wilson s interval on the score as a share of
            # 100 does not, and the wider of the two is printed.
            p = m / 100; z = 1.96; d = 1 + z * z / n[k]
            c = (p + z * z / (2 * n[k])) / d
            w = z * sqrt(p * (1 - p) / n[k] + z * z / (4 * n[k] * n[k])) / d
            if (100 * (c - w) < lo) lo = 100 * (c - w)
            if (100 * (c + w) > hi) hi = 100 * (c + w)
            g = f[2]; sub(/.*\//, "", g)
            printf "%-8s %-28s %-17s %-6s %3d %6.1f %7.1f-%-7.1f %12.0f %12s %10s %10s\n", substr(f[1], 1, 8), g, f[3], f[4], n[k], m, lo, hi, os[k] / n[k], tn[k] ? sprintf("%.0f", ts[k] / tn[k]) : "-", omn[k] ? sprintf("%.0f", om[k] / omn[k]) : "-", tmn[k] ? sprintf("%.0f", tm[k] / tmn[k]) : "-"
        }
    }' "$results" | sort
}

[ "${1:-}" = "--report" ] && { report; exit 0; }
[ $# -eq 3 ] || { sed -n 2,20p "$0"; exit 2; }
game=$1 opponent=$2 matches=$3
start=${START_CLOCK:-30} play=${PLAY_CLOCK:-1}
bin=${BIN:-$root/target/release/gdl-codegen}
[ -x "$bin" ] || (cd "$root" && cargo build --release -p gdl-codegen)
command -v java >/dev/null || { echo "needs java (apt-get install -y default-jre-headless)" >&2; exit 2; }
commit=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -f "$results" ] || echo "$header" > "$results"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 600); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }

# Our player (and, for self-play, the other one), each with its own log.
serve() { # PORT LOGDIR REASONER
    "$bin" serve --bind 127.0.0.1 --port "$1" --threads 1 --log "$2" --reasoner "$3" 2>/dev/null &
    pids+=($!)
    wait_port "$1"
}
our_port=$(free_port)
serve "$our_port" "$work/ours" "${OURS:-auto}"
their_port=$(free_port)
case $opponent in
    self-propnet) serve "$their_port" "$work/theirs" propnet ;;
    self-interpreter) serve "$their_port" "$work/theirs" interpreter ;;
    *) "$tools/start-player" "$their_port" "$opponent" >/dev/null 2>&1 & pids+=($!); wait_port "$their_port" ;;
esac

# A number from the summary line of the match just played.
summary() { # LOGDIR FIELD
    [ -d "$1" ] || { echo -; return; }
    grep -h '"summary"' "$1"/*.jsonl 2>/dev/null | tail -1 | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" | grep . || echo -
}

for i in $(seq 1 "$matches"); do
    side=$(( (i - 1) % 2 ))
    if [ "$side" = 0 ]; then who=(127.0.0.1 "$our_port" ours 127.0.0.1 "$their_port" theirs)
    else who=(127.0.0.1 "$their_port" theirs 127.0.0.1 "$our_port" ours); fi
    out=$("$tools/run-match" "$work/matches" "$root/../shared/games/$game" "$start" "$play" "${who[@]}" || true)
    goals=$(echo "$out" | sed -n 's/^GOALS \[\(.*\)\] \[\(.*\)\]$/\1|\2/p')
    if [ -z "$goals" ]; then echo "match $i: no GOALS line:"; echo "$out" | tail -5; continue; fi
    names=${goals%%|*} values=${goals##*|}
    read -r ours theirs < <(python3 -c '
import sys
names = [n.strip() for n in sys.argv[1].split(",")]
vals = [v.strip() for v in sys.argv[2].split(",")]
g = lambda v: float(v) if v.replace(".", "").isdigit() else 50.0
d = {n: g(v) for n, v in zip(names, vals)}
print(d["ours"], d["theirs"])' "$names" "$values")
    faults=$(echo "$out" | grep -cE '^(TIMEOUT|ILLEGAL|CONNECTION_ERROR) ' || true)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$commit" "$(date -u +%FT%TZ)" "$game" "$opponent" "$side" \
        "$start" "$play" "$ours" "$theirs" "$(summary "$work/ours" simulations_per_turn)" "$(summary "$work/theirs" simulations_per_turn)" \
        "$(summary "$work/ours" median_simulations_per_play)" "$(summary "$work/theirs" median_simulations_per_play)" >> "$results"
    echo "match $i ($game, ours as role $side, $faults fault(s)): ours $ours, theirs $theirs"
    if [ -n "${KEEP_LOGS:-}" ]; then
        mkdir -p "$KEEP_LOGS"
        for who in ours theirs; do
            cat "$work/$who"/*.jsonl > "$KEEP_LOGS/match-$i-$who.jsonl" 2>/dev/null || true
        done
    fi
    rm -rf "$work/ours" "$work/theirs"
done
