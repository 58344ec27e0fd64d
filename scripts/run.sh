#!/usr/bin/env bash
# Runs whisper-dictation after installing what is missing (libtorch, the default model).
# Without arguments it transcribes the bundled sample; with arguments they go to the app,
# e.g. `scripts/run.sh transcribe my.wav --language pl`.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
bash scripts/setup.sh
if [ $# -eq 0 ]; then
  set -- transcribe assets/sample.wav
fi
cargo run --release --quiet -- "$@"
