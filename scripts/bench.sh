#!/usr/bin/env bash
# Speed benchmark: our engine against faster-whisper float32 in the same run, same clips.
# Installs the peer (faster-whisper in the project's Python venv) when it is missing.
# Arguments go to the benchmark, e.g. `scripts/bench.sh --repeat 3 --model tiny.en`.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
bash scripts/setup.sh --test
venv="${XDG_CACHE_HOME:-$HOME/.cache}/whisper-dictation/pyenv"
[ "$(uname -s)" = Darwin ] && venv="$HOME/Library/Caches/whisper-dictation/pyenv"
if ! "$venv/bin/python" -c "import faster_whisper" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --progress-bar off faster-whisper
fi
FW_PYTHON="$venv/bin/python" cargo bench --bench transcribe -- "$@"
