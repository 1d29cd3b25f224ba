#!/usr/bin/env bash
# The lifted back end against the interpreter over every valid corpus game:
# each game in one `gdl-codegen bench` run (compiled code forced lifted, the
# interpreter, same seed, one thread, SECONDS_PER_REASONER each), a line per
# game appended to scripts/lifted-sweep.tsv with the commit; games already
# there for this commit are skipped, so a sweep may span sittings. A
# benchmark, not a test: the ratio of each line is from one run.
#
# Usage:
#   scripts/lifted-sweep.sh [FILTER]   sweep (only games whose path contains FILTER)
#   scripts/lifted-sweep.sh --report   the geometric mean over each game's
#                                      newest line, the games below 1x and
#                                      the ten weakest
# Environment: SECONDS_PER_REASONER (default 2), GAME_TIMEOUT (seconds a
#   game may take in all, build included; default 300), BIN (default
#   target/release/gdl-codegen, built if missing), NICE (default 0).
#
# The games: those scripts/corpus-results-lifted.tsv lists as Ok (every
# valid corpus game compiles lifted; the files invalid by design are not).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/../shared/games
results=$root/scripts/lifted-sweep.tsv
header="commit	date	game	lifted_playouts_s	interpreter_playouts_s	lifted/interpreter	note"

report() {
    [ -f "$results" ] || { echo "no results yet ($results)"; exit 0; }
    # Each game's newest line: a change measures again only the games whose
    # code it changes.
    awk -F'\t' 'NR > 1 { row[$3] = $0; if (!($3 in seen)) { seen[$3] = 1; order[++k] = $3 } }
        END { for (i = 1; i <= k; i++) print row[order[i]] }' "$results" >"$tmp/rows"
    cut -f1 "$tmp/rows" | sort | uniq -c | awk '{ printf "%s%s (%d games)", (NR > 1 ? ", " : "lines from commit "), $2, $1 } END { print "" }'
    awk -F'\t' '
        $6 != "-" { n++; s += log($6); if ($6 < 1) below++ }
        $6 == "-" { missing++ }
        END {
            printf "%d games measured, geometric mean lifted/interpreter %.1fx, %d below 1x, %d without a ratio\n",
                n, n ? exp(s / n) : 0, below, missing
        }' "$tmp/rows"
    echo "ten weakest:"
    awk -F'\t' '$6 != "-"' "$tmp/rows" | sort -t$'\t' -k6,6g | head -10 |
        awk -F'\t' '{ printf "  %8.2fx  %s  (lifted %s, interpreter %s playouts/s)\n", $6, $3, $4, $5 }'
    if awk -F'\t' '$6 == "-"' "$tmp/rows" | grep -q .; then
        echo "without a ratio:"
        awk -F'\t' '$6 == "-" { printf "  %s: %s\n", $3, $7 }' "$tmp/rows"
    fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "${1:-}" = "--report" ] && { report; exit 0; }
secs=${SECONDS_PER_REASONER:-2}
limit=${GAME_TIMEOUT:-300}
bin=${BIN:-${CARGO_TARGET_DIR:-$root/target}/release/gdl-codegen}
[ -x "$bin" ] || cargo build --release -q -p gdl-codegen --manifest-path "$root/Cargo.toml" || exit 2
commit=$(cd "$root" && git rev-parse --short HEAD)
[ -f "$results" ] || echo "$header" >"$results"
mapfile -t games < <(awk -F'\t' 'NR > 1 && $8 == "Ok" { print $1 }' "$root/scripts/corpus-results-lifted.tsv")

# The value of a field of the JSON line of reasoner $2 in file $1.
field() { grep "\"reasoner\":\"$2\"" "$1" | grep -o "\"$3\":[0-9.]*" | cut -d: -f2; }

for g in "${games[@]}"; do
    case $g in *"${1:-}"*) ;; *) continue ;; esac
    if awk -F'\t' -v c="$commit" -v g="$g" '$1 == c && $3 == g { found = 1 } END { exit !found }' "$results"; then
        continue
    fi
    # The corpus lists our own test games (tests/games/, under gdl-codegen/)
    # too, one of them a second time read case-sensitively.
    path=$corpus/$g flags=()
    case $g in tests/*) path=$root/gdl-codegen/$g ;; esac
    case $g in *" (case-sensitive)") path=${path% (case-sensitive)} flags=(--case-sensitive) ;; esac
    timeout "$limit" nice -n "${NICE:-0}" "$bin" bench "$path" "${flags[@]}" --reasoner lifted --reasoner interpreter \
        --seconds "$secs" --seed 1 --json -q >"$tmp/bench.json" 2>"$tmp/bench.err"
    status=$?
    lifted=$(field "$tmp/bench.json" lifted playouts_per_sec)
    interp=$(field "$tmp/bench.json" interpreter playouts_per_sec)
    ratio=- note=
    if [ -n "$lifted" ] && [ -n "$interp" ] && awk -v i="$interp" 'BEGIN { exit !(i > 0) }'; then
        ratio=$(awk -v l="$lifted" -v i="$interp" 'BEGIN { printf "%.2f", l / i }')
    elif [ "$status" = 124 ]; then
        note="over ${limit} s"
    else
        note=$(grep -m1 -i "error" "$tmp/bench.err" | cut -c1-160)
        note=${note:-"exit $status"}
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$commit" "$(date -u +%FT%TZ)" "$g" "${lifted:--}" "${interp:--}" \
        "$ratio" "$note" >>"$results"
    printf '%-70s %10s %10s %8s %s\n' "$g" "${lifted:--}" "${interp:--}" "$ratio" "$note"
done
