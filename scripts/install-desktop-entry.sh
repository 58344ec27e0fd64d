#!/usr/bin/env bash
# Adds Whisper Dictation to the Linux desktop's application menu: the launcher entry
# (resources/whisper-dictation.desktop, its Exec pointed at the built binary) and the icon
# (assets/icons/app.png as hicolor 256x256 "whisper-dictation", which the launcher, the
# autostart entry written by "Launch at login", and notifications name).
#
#   scripts/install-desktop-entry.sh [--binary PATH]      # default: target/release/whisper-dictation
#   scripts/install-desktop-entry.sh --uninstall
#
# Files go under $XDG_DATA_HOME (default ~/.local/share); nothing needs root. Each file is
# written to a temporary name and renamed, so a launcher never sees half a file.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data_home=${XDG_DATA_HOME:-}
# The spec: a relative $XDG_DATA_HOME is invalid and ignored.
case "$data_home" in /*) ;; *) data_home="$HOME/.local/share" ;; esac
entry="$data_home/applications/whisper-dictation.desktop"
icon="$data_home/icons/hicolor/256x256/apps/whisper-dictation.png"

say() { printf 'install-desktop-entry: %s\n' "$*" >&2; }

binary="$root/target/release/whisper-dictation" uninstall=0
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=${2:?--binary needs a path}; shift ;;
    --uninstall) uninstall=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 0 ;;
    *) say "unknown option: $1"; exit 2 ;;
  esac
  shift
done

refresh_caches() {
  # Optional: menus pick the files up without these too, only later.
  if command -v update-desktop-database >/dev/null; then
    update-desktop-database -q "$data_home/applications" || true
  fi
  if command -v gtk-update-icon-cache >/dev/null; then
    gtk-update-icon-cache -q -t "$data_home/icons/hicolor" 2>/dev/null || true
  fi
}

if [ "$uninstall" = 1 ]; then
  rm -f "$entry" "$icon"
  refresh_caches
  say "removed $entry and $icon"
  exit 0
fi

[ -x "$binary" ] || { say "no executable at $binary (build it: cargo build --release)"; exit 1; }
binary=$(cd "$(dirname "$binary")" && pwd -P)/$(basename "$binary")

# One Exec argument quoted as the Desktop Entry spec says (and as src/login_item/mod.rs does for the
# autostart entry): inside double quotes, \ " ` $ get a backslash; then the string-value level
# doubles every backslash; % is doubled because it starts a field code.
exec_quote() {
  local s=$1
  s=${s//\\/\\\\}; s=${s//\"/\\\"}; s=${s//\`/\\\`}; s=${s//\$/\\\$}
  s="\"$s\""
  s=${s//\\/\\\\}
  s=${s//%/%%}
  printf '%s' "$s"
}

mkdir -p "$(dirname "$entry")" "$(dirname "$icon")"
# OpenMP threads that sleep from the start, without the app re-executing itself to set it
# (src/login_item/mod.rs DESKTOP_EXEC_PREFIX, the same for the autostart entry).
exec_line="Exec=env OMP_WAIT_POLICY=PASSIVE $(exec_quote "$binary")"
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    Exec=*) printf '%s\n' "$exec_line" ;;
    *) printf '%s\n' "$line" ;;
  esac
done < "$root/resources/whisper-dictation.desktop" > "$entry.partial"
chmod 644 "$entry.partial"
mv "$entry.partial" "$entry"
cp "$root/assets/icons/app.png" "$icon.partial"
mv "$icon.partial" "$icon"
refresh_caches
say "installed $entry (runs $binary) and $icon"
