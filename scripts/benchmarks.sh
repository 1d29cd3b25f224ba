#!/usr/bin/env bash
# Writes BENCHMARKS.md from the results files, scripts/*.tsv, which the
# measuring scripts write (each section names the command that made its
# file). Per file: the command, the commit that last recorded it, a
# summary, the summary of every committed version of the file (from git
# log: the history of the measurements), and the table itself. First, the
# table of current figures that README.md copies.
#
# Usage: scripts/benchmarks.sh [OUTPUT]   (default BENCHMARKS.md at the
# workspace root; `-` writes to standard output)
#
# Nothing is measured here: re-run a measuring script, commit its results
# file, then run this and commit BENCHMARKS.md. Outside a git checkout the
# history and the commits are left out.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-BENCHMARKS.md}
in_git=false
git rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=true

# Shared awk functions: numbers for people, and table cells.
lib='
function fmt(x) {
    if (x >= 100) return sprintf("%.0f", x)
    if (x >= 10) return sprintf("%.1f", x)
    return sprintf("%.2f", x)
}
# 2169719.5 -> "2.17 M", 42085.3 -> "42.1 K", 4385.1 -> "4385", 26.502 -> "26.5".
function human(x) {
    if (x !~ /^[0-9]*\.?[0-9]+$/) return x
    if (x ~ /^\./) x = "0" x
    if (x + 0 >= 1e9) return fmt(x / 1e9) " G"
    if (x + 0 >= 1e6) return fmt(x / 1e6) " M"
    if (x + 0 >= 1e4) return fmt(x / 1e3) " K"
    if (x ~ /\./) return fmt(x + 0)
    return x
}
function cell(x) { gsub(/\|/, "\\|", x); return x }
function base(path) { sub(/.*\//, "", path); sub(/\.kif$|\.lisp$/, "", path); return path }
'

# What made each results file, in the order of the sections.
known=(corpus-results.tsv corpus-results-ground.tsv corpus-results-lifted.tsv
       lifted-corpus.tsv lifted-bench.tsv lifted-sweep.tsv latency-auto.tsv latency-lifted.tsv)

command_of() {
    case $1 in
    corpus-results.tsv) echo 'scripts/compiled-corpus.sh' ;;
    corpus-results-ground.tsv)
        echo 'GDL_CORPUS_BACKEND=ground GDL_CORPUS_RESULTS=scripts/corpus-results-ground.tsv scripts/compiled-corpus.sh' ;;
    corpus-results-lifted.tsv)
        echo 'GDL_CORPUS_BACKEND=lifted GDL_CORPUS_RESULTS=scripts/corpus-results-lifted.tsv scripts/compiled-corpus.sh' ;;
    lifted-corpus.tsv) echo 'scripts/lifted-corpus.sh > scripts/lifted-corpus.tsv' ;;
    lifted-bench.tsv) echo 'scripts/lifted-bench.sh > scripts/lifted-bench.tsv' ;;
    lifted-sweep.tsv) echo 'scripts/lifted-sweep.sh' ;;
    latency-auto.tsv) echo 'scripts/latency.sh' ;;
    latency-lifted.tsv) echo 'GDL_LATENCY_BACKEND=lifted scripts/latency.sh' ;;
    *) echo '' ;;
    esac
}

about_of() {
    case $1 in
    corpus-results*.tsv)
        local b=auto
        case $1 in *-ground.tsv) b=ground ;; *-lifted.tsv) b=lifted ;; esac
        echo "Every game of the shared corpus through the back end \`$b\`: generated, built in batches" \
             "(release), its conformance traces replayed, seeded random matches checked against the" \
             "interpreter (and the propnet where the game grounds), random playouts timed (300 ms)." \
             "One line a game, appended as soon as its verdict is final; games already in the file" \
             "are skipped, so a sweep may span several sittings. \`batch_build_s\` is the build of" \
             "the game's whole batch (\`batch_games\` games)." ;;
    lifted-corpus.tsv)
        echo "The games that do not ground within the default budget, through \`--backend auto\`:" \
             "the back end chosen, the time to generate the module and its size, then the time to" \
             "build it and play 10 seeded playouts (their speed includes start-up)." ;;
    lifted-bench.tsv)
        echo "The lifted back end against the ground back end and the interpreter, each game in one" \
             "\`gdl-codegen bench\` run (seed 1, one thread, \`SECONDS_PER_REASONER\` seconds a" \
             "reasoner, default 5): the six benchmark games, which ground, and the games only the" \
             "lifted back end compiles (the \`ok\` lines of lifted-corpus.tsv). Ratios are of" \
             "playouts per second." ;;
    lifted-sweep.tsv)
        echo "The lifted back end against the interpreter over every valid corpus game, each in one" \
             "\`gdl-codegen bench\` run (compiled code forced lifted, seed 1, one thread," \
             "\`SECONDS_PER_REASONER\` seconds a reasoner, default 2), with the commit measured." \
             "Games already there for the commit are skipped, so a sweep may span sittings; the" \
             "summary takes each game's newest line (a change measures again the games whose code" \
             "it changes)." ;;
    latency-*.tsv)
        echo "The time from rules to a built game, per valid corpus game, with \`gdl-runtime\` already" \
             "built (as a player's machine has it): \`emit_s\` every stage but cargo (check, grounding," \
             "planning, printing, formatting), \`build_s\` cargo, \`total_s\` both, from the" \
             "\`--timings\` table of \`gdl-codegen bench --reasoner compiled\`; then one second of" \
             "seeded playouts. Games already in the file are skipped, so a sweep may span sittings." ;;
    *) echo "A results file this script does not know: add its command to scripts/benchmarks.sh." ;;
    esac
}

# One line of summary (tab-separated fields) of a version of a results
# file, read from standard input.
summary() {
    case $1 in
    corpus-results*.tsv)
        # verdicts; Ok by back end; largest batch build
        awk -F'\t' "$lib"'
            /^#/ || $1 == "game" || NF < 8 { next }
            { n++; v[$8]++; if (!($8 in seen)) { seen[$8] = 1; order[++k] = $8 }
              if ($8 == "Ok") ok[$2]++
              if ($5 + 0 > big) { big = $5 + 0; bigg = $1 } }
            END {
                s = (v["Ok"] + 0) " Ok"
                for (i = 1; i <= k; i++) if (order[i] != "Ok") s = s ", " v[order[i]] " " order[i]
                b = ""
                if (ok["ground"]) b = ok["ground"] " ground"
                if (ok["lifted"]) b = b (b == "" ? "" : ", ") ok["lifted"] " lifted"
                for (x in ok) if (x != "ground" && x != "lifted") b = b (b == "" ? "" : ", ") ok[x] " " x
                printf "%d\t%s\t%s\t%s\n", n, s, b, (big > 0 ? sprintf("%.1f s (%s)", big, base(bigg)) : "-")
            }' ;;
    lifted-corpus.tsv)
        # games; ok; emit range; build-and-play range
        awk -F'\t' "$lib"'
            /^#/ || $1 == "game" || NF < 7 { next }
            { n++; if ($7 == "ok") ok++
              if ($3 != "-") { if (e0 == "" || $3 + 0 < e0) e0 = $3 + 0; if ($3 + 0 > e1) e1 = $3 + 0 }
              if ($5 != "-") { if (b0 == "" || $5 + 0 < b0) b0 = $5 + 0; if ($5 + 0 > b1) b1 = $5 + 0 } }
            END { printf "%d\t%d\t%.1f-%.1f s\t%.1f-%.1f s\n", n, ok, e0, e1, b0, b1 }' ;;
    lifted-bench.tsv)
        # games; geometric mean of lifted/interpreter; chess.kif; weakest game
        awk -F'\t' "$lib"'
            /geometric mean/ { g = $0; sub(/.*: */, "", g); next }
            /^#/ || $1 == "game" || NF < 7 { next }
            { n++; r = $6 + 0; if (r > 0) { lsum += log(r); m++ }
              if (min == "" || r < min) { min = r; mins = $6; ming = $1 } 
              if ($1 ~ /(^|\/)chess\.kif$/) chess = human($2) " playouts/s, " $6 "x" }
            END {
                if (g == "" && m > 0) g = sprintf("%.1f", exp(lsum / m))
                printf "%d\t%sx\t%s\t%s (%sx)\n", n, g, (chess == "" ? "-" : chess), base(ming), mins
            }' ;;
    lifted-sweep.tsv)
        # games; geometric mean of lifted/interpreter; below 1x; weakest game (each game's newest line)
        awk -F'\t' "$lib"'
            $1 == "commit" || NF < 6 { next }
            { r[$3] = $6; last = $1 }
            END {
                for (g in r) { n++; if (r[g] != "-") { x = r[g] + 0; s += log(x); m++
                    if (x < 1) below++; if (min == "" || x < min) { min = x; ming = g } } }
                printf "%d\t%.1fx\t%d\t%s (%.2fx)\t%s\n", n, (m ? exp(s / m) : 0), below, base(ming), min, last
            }' ;;
    latency-*.tsv)
        # games; ok; median, p90, max of total_s; slowest game
        awk -F'\t' "$lib"'
            /^#/ || $1 == "game" || NF < 7 { next }
            { n++; if ($7 != "ok") next; t[++k] = $5 + 0; if ($5 + 0 > big) { big = $5 + 0; bigg = $1 } }
            END {
                for (i = 2; i <= k; i++) { x = t[i]; for (j = i - 1; j >= 1 && t[j] > x; j--) t[j + 1] = t[j]; t[j + 1] = x }
                p = int(k * 0.9 + 0.999); if (p > k) p = k
                printf "%d\t%d\tmedian %.1f s, p90 %.1f s, max %.1f s\t%s\n", n, k, t[int((k + 1) / 2)], t[p], big, base(bigg)
            }' ;;
    *) awk -F'\t' '/^#/ || NF < 2 { next } { n++ } END { printf "%d\n", n - 1 }' ;;
    esac
}

summary_header() {
    case $1 in
    corpus-results*.tsv) echo "games|verdicts|Ok by back end|largest batch build" ;;
    lifted-corpus.tsv) echo "games|ok|emit|build and 10 playouts" ;;
    lifted-bench.tsv) echo "games|lifted/interpreter (geometric mean)|chess.kif, lifted|weakest game" ;;
    lifted-sweep.tsv) echo "games|lifted/interpreter (geometric mean)|below 1x|weakest game|commit" ;;
    latency-*.tsv) echo "games|ok|rules to built game|slowest" ;;
    *) echo "lines" ;;
    esac
}

# The results file as a Markdown table: comment lines first (as a quote),
# lines of one field after it (as text).
table() {
    local humanize
    case $1 in
    corpus-results*.tsv) humanize=" 3 7 " ;;
    lifted-corpus.tsv) humanize=" 4 6 " ;;
    lifted-bench.tsv) humanize=" 2 3 4 5 " ;;
    latency-*.tsv) humanize=" 6 " ;;
    *) humanize=" " ;;
    esac
    awk -F'\t' -v humanize="$humanize" "$lib"'
        /^#/ { sub(/^# ?/, ""); print "> " $0; quoted = 1; next }
        NF < 2 { if (NF) after[++na] = $0; next }
        !head {
            if (quoted) print ""
            head = 1; line = "|"; sep = "|"
            for (i = 1; i <= NF; i++) { line = line " " cell($i) " |"; sep = sep "---|" }
            print line; print sep; next
        }
        {
            line = "|"
            for (i = 1; i <= NF; i++) {
                x = (index(humanize, " " i " ") ? human($i) : $i)
                if (i == 1 && x ~ /\.(kif|lisp)$/) x = "`" x "`"
                if (x ~ /^\.[0-9]/) x = "0" x
                line = line " " cell(x) " |"
            }
            print line
        }
        END { if (na) print ""; for (i = 1; i <= na; i++) print after[i] }'
}

row() { printf '| %s |\n' "$(sed 's/\t/ | /g')"; }

# Commits that changed a results file, newest first: hash, date, subject.
versions() { git log --format='%h%x09%ad%x09%s' --date=short -- "scripts/$1"; }

section() {
    local f=$1 cmd
    cmd=$(command_of "$f")
    echo "## scripts/$f"
    echo
    if [ -n "$cmd" ]; then echo "Made by \`$cmd\`."; else echo "Made by: unknown."; fi
    about_of "$f"
    if $in_git; then
        local last
        last=$(git log -1 --format='%h (%ad)' --date=short -- "scripts/$f")
        if [ -n "$last" ]; then
            printf 'Last recorded in commit %s' "$last"
            git diff --quiet HEAD -- "scripts/$f" || printf ', with changes not yet committed'
            echo .
        fi
    fi
    echo
    local h
    h=$(summary_header "$f")
    echo "| $(sed 's/|/ | /g' <<<"$h") |"
    echo "|$(sed 's/[^|]*/---/g' <<<"$h")|"
    summary "$f" <"scripts/$f" | row
    echo
    if $in_git && [ -n "$(versions "$f")" ]; then
        echo "<details><summary>Every committed version of the file</summary>"
        echo
        echo "| commit | date | $(sed 's/|/ | /g' <<<"$h") | commit message |"
        echo "|---|---|$(sed 's/[^|]*/---/g' <<<"$h")|---|"
        local c d s
        while IFS=$'\t' read -r c d s; do
            git show "$c:scripts/$f" >/dev/null 2>&1 || continue
            [ ${#s} -le 110 ] || s="${s:0:110}…"
            printf '%s\t%s\t%s\t%s\n' "$c" "$d" "$(git show "$c:scripts/$f" | summary "$f")" "${s//|/\\|}" | row
        done < <(versions "$f")
        echo
        echo "</details>"
        echo
    fi
    echo "<details><summary>The table</summary>"
    echo
    table "$f" <"scripts/$f"
    echo
    echo "</details>"
    echo
}

# The current figures, one row each with the command that produces it.
current() {
    echo "| figure | value | command |"
    echo "|---|---|---|"
    local f
    for f in corpus-results.tsv corpus-results-ground.tsv corpus-results-lifted.tsv; do
        [ -f "scripts/$f" ] || continue
        local b="back end chosen by \`auto\`"
        case $f in *-ground.tsv) b="ground back end forced" ;; *-lifted.tsv) b="lifted back end forced" ;; esac
        summary "$f" <"scripts/$f" | awk -F'\t' -v b="$b" -v cmd="$(command_of "$f")" '{
            split($2, part, ", "); ok = part[1]; sub(/ Ok/, "", ok); invalid = 0; rest = ""
            for (i = 2; i in part; i++)
                if (part[i] ~ / Invalid$/) { invalid = part[i]; sub(/ Invalid/, "", invalid) }
                else rest = rest ", " part[i]
            v = ok " of " ($1 - invalid) " valid games Ok"
            if ($3 != "" && $3 !~ /^[0-9]+ (ground|lifted)$/) v = v " (" $3 ")"
            printf "| whole corpus, %s | %s%s; largest batch build %s | `%s` |\n", b, v, rest, $4, cmd
        }'
    done
    f=lifted-corpus.tsv
    if [ -f "scripts/$f" ]; then
        summary "$f" <"scripts/$f" | awk -F'\t' -v cmd="$(command_of "$f")" '{
            printf "| games that do not ground, through `auto` | %d of %d compile; emit %s, build and 10 playouts %s | `%s` |\n", $2, $1, $3, $4, cmd
        }'
    fi
    for f in latency-auto.tsv latency-lifted.tsv; do
        [ -f "scripts/$f" ] || continue
        local b="\`auto\`"
        [ $f = latency-lifted.tsv ] && b="lifted back end forced"
        summary "$f" <"scripts/$f" | awk -F'\t' -v b="$b" -v cmd="$(command_of "$f")" '{
            printf "| rules to built game (gdl-runtime prebuilt), %s | %d games: %s; slowest %s | `%s` |\n", b, $2, $3, $4, cmd
        }'
    done
    f=lifted-sweep.tsv
    if [ -f "scripts/$f" ]; then
        summary "$f" <"scripts/$f" | awk -F'\t' -v cmd="$(command_of "$f")" '{
            printf "| lifted back end / interpreter, every valid corpus game | %s geometric mean over %d games, %d below 1x; weakest %s (at %s) | `%s` |\n", $2, $1, $3, $4, $5, cmd
        }'
    fi
    f=lifted-bench.tsv
    if [ -f "scripts/$f" ]; then
        local cmd
        cmd=$(command_of "$f")
        summary "$f" <"scripts/$f" | awk -F'\t' -v cmd="$cmd" '{
            printf "| lifted back end / interpreter, playouts/s | %s geometric mean over %d games; weakest %s | `%s` |\n", $2, $1, $4, cmd
            if ($3 != "-") printf "| `chess.kif` (does not ground), lifted | %s the interpreter | `%s` |\n", $3, cmd
        }'
        awk -F'\t' -v cmd="$cmd" "$lib"'
            /^#/ || $1 == "game" || NF < 7 || $3 == "-" { next }
            { g = g (g == "" ? "" : ", ") base($1) " " human($3)
              r = $3 / $4; if (r0 == "" || r < r0) r0 = r; if (r > r1) r1 = r
              q = $7 + 0; if (q0 == "" || q < q0) q0 = q; if (q > q1) q1 = q; n++ }
            END { if (!n) exit
              printf "| ground back end, %d benchmark games, playouts/s | %s | `%s` |\n", n, g, cmd
              printf "| ground back end / interpreter, same games | %.0f-%.0fx | `%s` |\n", r0, r1, cmd
              printf "| lifted / ground back end, same games | %.2f-%.2fx | `%s` |\n", q0, q1, cmd }' <"scripts/$f"
    fi
}

render() {
    echo "# Benchmarks"
    echo
    echo "<!-- Generated by scripts/benchmarks.sh from scripts/*.tsv: edit those, not this file. -->"
    echo
    echo "Every figure here comes from a results file under \`scripts/\`, written by the command its"
    echo "section names, on the project's 2-core machine: speeds are seeded random playouts from the"
    echo "initial state on one thread. Speeds by the clock vary 10-40% between days and with the"
    echo "machine's load; ratios measured in one run vary less. To refresh: run a measuring script,"
    echo "commit its results file, then \`scripts/benchmarks.sh\` and commit this file. Figures quoted"
    echo "in commit messages (instruction counts from \`scripts/callgrind-playouts.sh\`, the"
    echo "hand-coded references of \`cargo run --release -p gdl-references --example compare\`,"
    echo "\`scripts/rbg-compare.sh\`) are in \`git log\`, not here."
    echo
    echo "## Current figures"
    echo
    current
    echo
    local f done_list=" "
    for f in "${known[@]}"; do
        [ -f "scripts/$f" ] || continue
        section "$f"
        done_list="$done_list$f "
    done
    for p in scripts/*.tsv; do
        f=${p#scripts/}
        case $done_list in *" $f "*) continue ;; esac
        section "$f"
    done
}

if [ "$out" = - ]; then
    render
else
    render >"$out.tmp"
    mv "$out.tmp" "$out"
fi
