#!/usr/bin/env bash
# Checks the compiled backend on the whole corpus: every game that grounds is
# generated (`gdl-codegen emit`, one process per game, with a time limit),
# built in batches of modules (crates sharing one target directory under
# target/tmp/compiled/), replays its conformance traces compiled, and records
# seeded random matches that the interpreter and the propnet then replay.
# Prints one line per game (Ok, Invalid, NoGround, TooLarge, EmitFailed,
# BuildFailed, Crashed, ConformanceDiffers, Disagrees, Timeout) and totals;
# fails when a game that grounds fails.
#
# Usage: scripts/compiled-corpus.sh [FILTER]   (only games whose path contains FILTER)
# Environment (defaults): GDL_CORPUS_EMIT_TIMEOUT=60 GDL_CORPUS_REPLAY_TIMEOUT=120
#   GDL_CORPUS_MAX_CODE_MB=32 GDL_CORPUS_BATCH_MB=4 GDL_CORPUS_MATCHES=5
#   GDL_CORPUS_MAX_DEPTH=200 GDL_CORPUS_SEED=20240601
#   GDL_COMPILED_OPT_LEVEL=1 (of the generated crates: builds faster than release's 3)
set -u
export GDL_COMPILED_OPT_LEVEL=${GDL_COMPILED_OPT_LEVEL:-1}
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
    export GDL_CORPUS_FILTER=$1
fi
exec cargo test -q -p gdl-codegen --test compiled_corpus -- --exact whole_corpus --nocapture
