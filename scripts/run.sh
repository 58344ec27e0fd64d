#!/usr/bin/env bash
# Runs whisper-dictation after installing what is missing (libtorch, the default model).
# Without arguments it starts the tray app; on a Linux machine without a display (no $DISPLAY,
# no $WAYLAND_DISPLAY) it shows the app at work instead, on a virtual desktop: a text box, speech
# played into a fake microphone while the hotkey is held, the pasted text and the stage timings,
# and a screenshot of the tray menu (examples/desktop_demo.rs).
# With arguments they go to the app, e.g. `scripts/run.sh transcribe my.wav --language pl`.
# Either way both binaries are built (cargo build --release --bins): the app and the window
# program that its History… and Settings… open.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

if [ $# -eq 0 ] && [ "$(uname -s)" = Linux ] && [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  bash scripts/setup.sh --desktop
  echo "run: no display here (neither \$DISPLAY nor \$WAYLAND_DISPLAY is set): a headless demonstration follows." >&2
  echo "run: building the app and the demonstration (cargo build --release)…" >&2
  cargo build --release --quiet --bins --examples
  exec "${CARGO_TARGET_DIR:-target}/release/examples/desktop_demo"
fi

bash scripts/setup.sh
# Both programs: the app, and the window program beside it (whisper-dictation-window), which the
# menu's History… and Settings… start; `cargo run` would build only the app.
echo "run: building the app and its window program (cargo build --release --bins)…" >&2
cargo build --release --quiet --bins
exec "${CARGO_TARGET_DIR:-target}/release/whisper-dictation" "$@"
