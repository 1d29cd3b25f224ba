#!/usr/bin/env bash
# The compiled back ends on the whole corpus: every game is generated
# (`gdl-codegen emit --backend $GDL_CORPUS_BACKEND`, one process per game,
# with a time limit), built in batches of modules (crates sharing one target
# directory under target/tmp/compiled/), replays its conformance traces
# compiled, records seeded random matches that the interpreter (and, where the
# game grounds, the propnet) then replay, and times random playouts. Prints one
# line per game (Ok, Invalid, NoGround, TooLarge, EmitFailed, BuildFailed,
# Crashed, ConformanceDiffers, Disagrees, Timeout) and totals; fails when a
# valid game fails.
#
# Results: a TSV line per game (back end chosen, code size, its batch's build
# time and size, playouts/s, verdict) is appended to $GDL_CORPUS_RESULTS
# (default scripts/corpus-results.tsv); games already there are skipped, so a
# sweep can span several sittings (delete the file to start over).
#
# Usage: scripts/compiled-corpus.sh [FILTER]   (only games whose path contains FILTER)
# Environment (defaults): GDL_CORPUS_BACKEND=auto (or ground, lifted)
#   GDL_CORPUS_RESULTS=scripts/corpus-results.tsv GDL_CORPUS_EMIT_TIMEOUT=60
#   GDL_CORPUS_REPLAY_TIMEOUT=120 GDL_CORPUS_MAX_CODE_MB=32 GDL_CORPUS_BATCH_MB=4
#   GDL_CORPUS_MATCHES=5 GDL_CORPUS_MAX_DEPTH=200 GDL_CORPUS_SEED=20240601
#   GDL_CORPUS_SPEED_MS=300 (random playouts timed per game)
#   GDL_COMPILED_OPT_LEVEL=3 (of the generated crates, as release; 1 builds faster)
set -u
cd "$(dirname "$0")/.."
export GDL_COMPILED_OPT_LEVEL=${GDL_COMPILED_OPT_LEVEL:-3}
export GDL_CORPUS_RESULTS=${GDL_CORPUS_RESULTS:-$PWD/scripts/corpus-results.tsv}
if [ $# -gt 0 ]; then
    export GDL_CORPUS_FILTER=$1
fi
exec cargo test -q --release -p gdl-codegen --test compiled_corpus -- --exact whole_corpus --nocapture
