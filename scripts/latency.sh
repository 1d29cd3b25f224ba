#!/usr/bin/env bash
# Latency from rules to a built game, per valid corpus game: `gdl-codegen
# bench GAME --reasoner compiled --timings` in a cache whose gdl-runtime is
# already built (warmed on our tic-tac-toe first), each game's own crate new
# (a fresh cache directory per run, one shared target directory). The stage
# table of `--timings` gives the times; then SECONDS of seeded playouts give
# the compiled game's speed.
#
# Prints (and appends to $GDL_LATENCY_RESULTS, skipping games already there,
# so a sweep can span sittings) one TSV line per game:
#   game backend emit_s build_s total_s playouts_per_s status
# emit_s: every stage but cargo (check, grounding, planning, printing,
# formatting); build_s: cargo; total_s: the table's total, from the command's
# start to the built binary. status: ok, invalid (check rejects it), timeout,
# failed (exit status). Then the median, p90 and max of total_s over the ok
# games of this run.
#
# Usage: scripts/latency.sh [FILTER...]   (games whose path contains a FILTER)
# Environment (defaults): GDL_LATENCY_BACKEND=auto (or lifted, ground)
#   GDL_LATENCY_RESULTS=scripts/latency-$BACKEND.tsv GDL_LATENCY_TIMEOUT=300
#   GDL_LATENCY_SECONDS=1 GDL_CODEGEN (the compiler binary; default: built here)
#   GDL_LATENCY_TABLES (a directory: each game's standard error, its stage
#   table included, is kept there as GAME.txt)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/../shared/games
backend=${GDL_LATENCY_BACKEND:-auto}
results=${GDL_LATENCY_RESULTS:-$root/scripts/latency-$backend.tsv}
limit=${GDL_LATENCY_TIMEOUT:-300}
secs=${GDL_LATENCY_SECONDS:-1}
bin=${GDL_CODEGEN:-${CARGO_TARGET_DIR:-$root/target}/release/gdl-codegen}
if [ -z "${GDL_CODEGEN:-}" ]; then
    cargo build --release -q -p gdl-codegen --manifest-path "$root/Cargo.toml" || exit 2
fi
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
# gdl-runtime built once, as a player's machine would have it.
"$bin" play "$root/examples/games/tictactoe.kif" --reasoner compiled --playouts 1 \
    --cache-dir "$cache" -q >/dev/null 2>&1 || { echo "cannot warm the cache" >&2; exit 3; }
[ -f "$results" ] || printf 'game\tbackend\temit_s\tbuild_s\ttotal_s\tplayouts_per_s\tstatus\n' >"$results"
# The seconds of a top-level stage in a --timings table (0 when absent).
stage() { awk -v s="$2" '$1 == s && $0 !~ /^ / { t += $2 } END { printf "%.2f", t + 0 }' "$1"; }
# The seconds of cargo alone: the top-level build stage less the stages it
# runs first (the planning, printing and formatting of a compile that reuses
# auto's session), which are the emit's.
cargo_of() {
    awk '/^[a-z]/ { top = $1 } top == "build" && /^build / { b = $2 }
         top == "build" && /^  [a-z]/ { c += $2 } END { printf "%.2f", b - c }' "$1"
}
totals=()
while IFS= read -r game; do
    if [ $# -gt 0 ]; then
        keep=0
        for f in "$@"; do [[ $game == *"$f"* ]] && keep=1; done
        [ $keep = 1 ] || continue
    fi
    grep -q "^$game	" "$results" && continue
    f=$corpus/$game
    if ! "$bin" check "$f" >/dev/null 2>&1; then
        line="$game	-	-	-	-	-	invalid"
    else
        timeout "$limit" "$bin" bench "$f" --reasoner compiled --backend "$backend" \
            --seconds "$secs" --json --timings -q --cache-dir "$cache" \
            >"$cache/out" 2>"$cache/err"
        code=$?
        status=ok
        [ $code = 124 ] && status=timeout
        [ $code != 0 ] && [ $code != 124 ] && status=failed
        # Only the lifted back end samples states.
        chosen=ground
        grep -q '^ *sample ' "$cache/err" && chosen=lifted
        build=$(cargo_of "$cache/err")
        total=$(stage "$cache/err" total)
        emit=$(echo "$total - $build" | bc)
        speed=$(grep -o '"playouts_per_sec":[0-9.]*' "$cache/out" | cut -d: -f2)
        line="$game	$chosen	$emit	$build	$total	${speed:--}	$status"
        if [ -n "${GDL_LATENCY_TABLES:-}" ]; then
            mkdir -p "$GDL_LATENCY_TABLES" && cp "$cache/err" "$GDL_LATENCY_TABLES/$(basename "$game").txt"
        fi
        [ $status = ok ] && totals+=("$total")
    fi
    echo "$line"
    echo "$line" >>"$results"
done < <(cut -f1 "$corpus/MANIFEST.tsv" | grep -E '\.(kif|lisp)$' | sort)
if [ ${#totals[@]} -gt 0 ]; then
    printf '%s\n' "${totals[@]}" | sort -n | awk '{ t[NR] = $1 } END {
        p = int(NR * 0.9 + 0.999); if (p > NR) p = NR
        printf "%d games: median %.1f s, p90 %.1f s, max %.1f s\n", NR, t[int((NR + 1) / 2)], t[p], t[NR] }'
fi
