#!/usr/bin/env bash
# Checks that a gdl-codegen binary emits byte for byte the same code as a
# recorded baseline, game by game, for `emit --backend lifted` and
# `emit --backend auto` (BACKENDS to change the list).
#
# Usage:
#   scripts/emit-compare.sh --record DIR BIN [GAME...]   record a baseline into DIR
#   scripts/emit-compare.sh BASE_DIR NEW_BIN [GAME...]   compare NEW_BIN against it
#
# Games: by default every valid game of the corpus ../shared/games (next to
# the repository): every .kif/.lisp file that `BIN check` accepts; the ones
# it rejects are invalid by design (see the corpus README.md and
# notes/ggp-base-validator.tsv) and skipped. Compare mode takes the game list
# of the baseline (BASE_DIR/games.txt). A GAME argument is a path relative to
# the corpus (ggp-repository-base/chess.kif) or a file.
#
# Each emit runs in the corpus directory with the corpus-relative path (the
# path is printed in the generated code), one process at a time, under
# `timeout $TIMEOUT` (default 300 s). Run the whole script under
# `nice -n 19` on a shared machine.
#
# A recorded directory holds:
#   games.txt     the games, one a line
#   bin.txt       the binary's path, sha256 and version, TIMEOUT, date
#   results.tsv   game, backend, exit code, seconds, bytes and sha256 of
#                 stdout, and the back end `auto` chose (from stderr)
#   out/GAME.BACKEND.rs, out/GAME.BACKEND.err   stdout and stderr
# Recording into a directory that already has results resumes it: emits
# already in results.tsv are skipped (the binary must be the same).
#
# Compare mode records NEW_BIN into NEW_DIR (default: a new /tmp/emit-new.*
# directory, removed when everything is the same) and prints one line per
# game and back end: `same`, `DIFFERS` (first differing lines and
# `diff | head -n $DIFF_LINES`, default 20), `NEW-ERROR` (the baseline
# emitted, NEW_BIN failed), `TIMEOUT`, or `NO-BASE` (not in the baseline),
# then a summary. Exits 1 when anything is not the same, 2 on bad usage.
#
# Note: `auto` gives grounding 10 s (session.rs AUTO_GROUND_TIME) before
# choosing the lifted back end, so on a loaded machine a game near that limit
# can flip between back ends; the chosen back end is shown when it changed.
set -u
set -o pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/../shared/games
limit=${TIMEOUT:-300}
backends=${BACKENDS:-lifted auto}
diff_lines=${DIFF_LINES:-20}

usage() {
    sed -n '6,8p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
die() { echo "emit-compare: $*" >&2; exit 2; }

[ $# -ge 2 ] || usage
if [ "$1" = --record ]; then
    [ $# -ge 3 ] || usage
    mode=record dir=$2 bin=$3
    shift 3
else
    mode=compare base=$1 bin=$2
    shift 2
    [ -f "$base/results.tsv" ] || die "$base/results.tsv: no baseline there"
    base=$(cd "$base" && pwd)
fi
[ -x "$bin" ] || die "$bin: not an executable"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
[ -d "$corpus" ] || die "$corpus: no corpus"
corpus=$(cd "$corpus" && pwd)

# A game argument as the name it is recorded under: corpus-relative when it
# is in the corpus, else an absolute path.
game_name() {
    local g=$1 abs
    if [ -f "$corpus/$g" ]; then printf '%s\n' "$g"; return; fi
    [ -f "$g" ] || die "$g: no such game (in $corpus or here)"
    abs=$(cd "$(dirname "$g")" && pwd)/$(basename "$g")
    case $abs in
        "$corpus"/*) printf '%s\n' "${abs#"$corpus"/}" ;;
        *) printf '%s\n' "$abs" ;;
    esac
}

# The valid games of the corpus: every .kif/.lisp file that `$bin check` accepts.
corpus_games() {
    local f
    while IFS= read -r f; do
        if (cd "$corpus" && "$bin" check "$f" >/dev/null 2>&1); then
            printf '%s\n' "$f"
        else
            echo "skipped (check rejects it): $f" >&2
        fi
    done < <(cd "$corpus" && find . -type f \( -name '*.kif' -o -name '*.lisp' \) | sed 's#^\./##' | LC_ALL=C sort)
}

# Records one emit of game $2 with back end $3 into directory $1, appending
# a line to $1/results.tsv and printing it.
record_one() {
    local d=$1 game=$2 backend=$3 key out start end code bytes sum chosen secs
    key=${game#/}
    out=$d/out/$key.$backend
    mkdir -p "$(dirname "$out")"
    start=$(date +%s%N)
    (cd "$corpus" && timeout -k 10 "$limit" "$bin" emit --backend "$backend" "$game" \
        >"$out.rs" 2>"$out.err")
    code=$?
    end=$(date +%s%N)
    secs=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }')
    bytes=$(wc -c <"$out.rs")
    sum=$(sha256sum <"$out.rs" | cut -d' ' -f1)
    chosen=$(grep -o -m1 '^note: [a-z]* back end' "$out.err" | cut -d' ' -f2)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$game" "$backend" "$code" "$secs" "$bytes" "$sum" \
        "${chosen:--}" | tee -a "$d/results.tsv"
}

# Field $4 (1-based) of the results line of game $2 and back end $3 in file $1.
field() {
    awk -F'\t' -v g="$2" -v b="$3" -v n="$4" '$1 == g && $2 == b { v = $n } END { print v }' "$1"
}

is_timeout() { [ "$1" = 124 ] || [ "$1" = 137 ]; }

# Starts (or resumes) a recording into directory $1 of the games in the
# array `games`.
start_dir() {
    local d=$1 sum
    mkdir -p "$d/out"
    sum=$(sha256sum <"$bin" | cut -d' ' -f1)
    if [ -f "$d/results.tsv" ]; then
        grep -qxF "sha256$(printf '\t')$sum" "$d/bin.txt" 2>/dev/null \
            || die "$d was recorded with another binary (see $d/bin.txt)"
    else
        printf 'game\tbackend\texit\tseconds\tbytes\tsha256\tchosen\n' >"$d/results.tsv"
        {
            printf 'path\t%s\n' "$bin"
            printf 'sha256\t%s\n' "$sum"
            printf 'version\t%s\n' "$("$bin" --version 2>&1)"
            printf 'timeout\t%s\n' "$limit"
            printf 'recorded\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        } >"$d/bin.txt"
    fi
    touch "$d/games.txt"
    local g
    for g in "${games[@]}"; do
        grep -qxF -- "$g" "$d/games.txt" || printf '%s\n' "$g" >>"$d/games.txt"
    done
}

games=()
if [ $# -gt 0 ]; then
    for g in "$@"; do games+=("$(game_name "$g")") || exit 2; done
elif [ $mode = record ]; then
    mapfile -t games < <(corpus_games)
else
    mapfile -t games <"$base/games.txt"
fi
[ ${#games[@]} -gt 0 ] || die "no games"

if [ $mode = record ]; then
    start_dir "$dir"
    total_start=$(date +%s)
    for g in "${games[@]}"; do
        for b in $backends; do
            if [ -n "$(field "$dir/results.tsv" "$g" "$b" 3)" ]; then continue; fi
            record_one "$dir" "$g" "$b"
        done
    done
    echo "recorded ${#games[@]} games ($backends) in $dir in $(( $(date +%s) - total_start )) s;" \
        "failed: $(awk -F'\t' 'NR > 1 && $3 != 0' "$dir/results.tsv" | wc -l)" >&2
    exit 0
fi

# Compare mode.
new=${NEW_DIR:-}
if [ -z "$new" ]; then new=$(mktemp -d /tmp/emit-new.XXXXXX); made_new=1; else made_new=0; fi
start_dir "$new"
same=0 differs=0 new_error=0 timeouts=0 no_base=0
for g in "${games[@]}"; do
    for b in $backends; do
        key=${g#/}
        base_code=$(field "$base/results.tsv" "$g" "$b" 3)
        if [ -z "$base_code" ]; then
            no_base=$((no_base + 1))
            printf 'NO-BASE\t%s\t%s\n' "$b" "$g"
            continue
        fi
        [ -n "$(field "$new/results.tsv" "$g" "$b" 3)" ] || record_one "$new" "$g" "$b" >/dev/null
        new_code=$(field "$new/results.tsv" "$g" "$b" 3)
        times="$(field "$new/results.tsv" "$g" "$b" 4) s, base $(field "$base/results.tsv" "$g" "$b" 4) s"
        base_chosen=$(field "$base/results.tsv" "$g" "$b" 7)
        new_chosen=$(field "$new/results.tsv" "$g" "$b" 7)
        chosen_note=
        [ "$base_chosen" = "$new_chosen" ] || chosen_note=" (auto chose $base_chosen, now $new_chosen)"
        base_out=$base/out/$key.$b new_out=$new/out/$key.$b
        if is_timeout "$new_code"; then
            timeouts=$((timeouts + 1))
            note=; is_timeout "$base_code" && note=" (the baseline timed out too)"
            printf 'TIMEOUT\t%s\t%s\t(over %s s; base %s)%s\n' "$b" "$g" "$limit" "$times" "$note"
        elif [ "$new_code" != 0 ] && [ "$base_code" = 0 ]; then
            new_error=$((new_error + 1))
            printf 'NEW-ERROR\t%s\t%s\texit %s%s: %s\n' "$b" "$g" "$new_code" "$chosen_note" \
                "$(grep -m1 -i error "$new_out.err" | cut -c1-160)"
        elif [ "$new_code" = "$base_code" ] && cmp -s "$base_out.rs" "$new_out.rs"; then
            same=$((same + 1))
            note=; [ "$base_code" = 0 ] || note=" (both exit $base_code)"
            printf 'same\t%s\t%s\t(%s)%s\n' "$b" "$g" "$times" "$note"
        else
            differs=$((differs + 1))
            lines=$(diff "$base_out.rs" "$new_out.rs" | grep -E '^[0-9]' | head -5 | tr '\n' ' ')
            printf 'DIFFERS\t%s\t%s\texit %s (base %s)%s; first differing lines (base/new): %s\n' \
                "$b" "$g" "$new_code" "$base_code" "$chosen_note" "${lines:-none}"
            diff "$base_out.rs" "$new_out.rs" | head -n "$diff_lines" | cut -c1-200 | sed 's/^/    /'
        fi
    done
done
echo "summary: $same same, $differs differ, $new_error new errors, $timeouts timeouts," \
    "$no_base without baseline (${#games[@]} games; $backends)"
if [ $((differs + new_error + timeouts + no_base)) -eq 0 ]; then
    [ $made_new = 1 ] && rm -rf "$new"
    exit 0
fi
echo "new outputs kept in $new (diff -r $base/out $new/out)"
exit 1
