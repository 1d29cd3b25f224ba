#!/usr/bin/env bash
# Grounds every valid game of the corpus with a release build of
# `gdl-codegen ground --stats`, one process per game (wall time measured
# around the process: reading, checking, base/input and grounding included),
# and prints one line per game and a summary.
#
# Usage: scripts/ground-corpus.sh [GAMES_DIR] [TIMEOUT_SECONDS]
# GAMES_DIR defaults to ../shared/games next to the workspace.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/../shared/games}
limit=${2:-60}
bin=${GDL_CODEGEN:-${CARGO_TARGET_DIR:-$root/target}/release/gdl-codegen}
if [ ! -x "$bin" ]; then
    cargo build --release -q -p gdl-codegen --manifest-path "$root/Cargo.toml" || exit 2
fi
valid=0 ok=0 t01=0 t1=0 t10=0 budget=0 timeout=0 crash=0
while IFS= read -r f; do
    if ! "$bin" check "$f" >/dev/null 2>&1; then
        continue
    fi
    valid=$((valid + 1))
    start=$(date +%s%N)
    out=$(timeout "$limit" "$bin" ground --stats "$f" 2>&1)
    code=$?
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    secs=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
    if [ $code -eq 0 ]; then
        ok=$((ok + 1))
        [ $ms -lt 100 ] && t01=$((t01 + 1))
        [ $ms -lt 1000 ] && t1=$((t1 + 1))
        [ $ms -lt 10000 ] && t10=$((t10 + 1))
        sizes=$(printf '%s\n' "$out" | head -1 | sed 's/.*); \([0-9]* roles.*\)/\1/')
        printf 'OK\t%s\t%s\t%s\n' "$secs" "$f" "$sizes"
    elif [ $code -eq 124 ]; then
        timeout=$((timeout + 1))
        printf 'TIMEOUT\t%s\t%s\n' "$secs" "$f"
    elif [ $code -eq 1 ]; then
        budget=$((budget + 1))
        printf 'BUDGET\t%s\t%s\t%s\n' "$secs" "$f" "$(printf '%s\n' "$out" | grep -m1 error)"
    else
        crash=$((crash + 1))
        printf 'CRASH(%d)\t%s\t%s\t%s\n' "$code" "$secs" "$f" "$(printf '%s\n' "$out" | tail -1)"
    fi
done < <(find "$dir" -type f \( -name '*.kif' -o -name '*.lisp' \) | sort)
pct() { awk -v a="$1" -v b="$valid" 'BEGIN { printf "%.1f%%", b ? 100 * a / b : 0 }'; }
echo "valid games: $valid; ground: $ok ($(pct $ok)); over budget: $budget; timeout (${limit}s): $timeout; crashed: $crash"
echo "ground within 0.1 s: $t01 ($(pct $t01)); within 1 s: $t1 ($(pct $t1)); within 10 s: $t10 ($(pct $t10))"
