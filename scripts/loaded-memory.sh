#!/bin/sh
# Loads a hundred distinct games (a hundred cargo builds, minutes on a cold
# cache) in one process and checks its resident set after the hundredth is
# within 100 MB of that after the tenth; prints both.
set -e
cd "$(dirname "$0")/.."
cargo test -p gdl-codegen --test loaded_many -- --nocapture
