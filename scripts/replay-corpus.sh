#!/usr/bin/env bash
# Replays every conformance trace of ../shared/conformance (and the Dresden
# GameController traces) against a reasoner, one line per trace.
#   scripts/replay-corpus.sh [REASONER] [TIMEOUT_SECONDS]
# Prints `ok`, `DIFFERS` (with the first difference), `INVALID` (the checker
# rejects the game), or `TIMEOUT`, then a summary.
set -u
cd "$(dirname "$0")/.."
reasoner=${1:-interpreter}
limit=${2:-120}
shared=../shared
cargo build --release -q -p gdl-codegen || exit 3
bin=target/release/gdl-codegen
ok=0; differs=0; invalid=0; timeout_n=0
run() {
  local game=$1 trace=$2
  out=$(timeout "$limit" "$bin" replay "$game" "$trace" --reasoner "$reasoner" 2>&1)
  code=$?
  case $code in
    0) ok=$((ok+1)); echo "ok       $trace";;
    124) timeout_n=$((timeout_n+1)); echo "TIMEOUT  $trace";;
    1) if grep -q "is not valid GDL" <<<"$out"; then invalid=$((invalid+1)); echo "INVALID  $trace";
       else differs=$((differs+1)); echo "DIFFERS  $trace: $(grep DIFFERS <<<"$out" | head -1)"; fi;;
    *) differs=$((differs+1)); echo "ERROR($code) $trace: $(tail -1 <<<"$out")";;
  esac
}
while IFS= read -r trace; do
  rel=${trace#$shared/conformance/}
  base=$shared/games/${rel%.trace}
  if [ -f "$base.kif" ]; then game=$base.kif; else game=$base.lisp; fi
  run "$game" "$trace"
done < <(find "$shared/conformance" -name '*.trace' | sort)
dres=$shared/games/dresden-ggpserver/gamecontroller-testdata
for t in "$dres"/traces/*.trace.xml; do
  name=$(basename "$t" .trace.xml)
  run "$dres/games/$name.lisp" "$t"
done
echo "summary: $ok ok, $differs differ, $invalid invalid game, $timeout_n timed out"
