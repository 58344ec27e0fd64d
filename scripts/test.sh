#!/usr/bin/env bash
# The whole test suite on a fresh or warm machine: installs what is missing (idempotent, a few
# seconds when cached), then runs every test against the real Whisper models.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
bash scripts/setup.sh --test
cargo test --release "$@"
