#!/usr/bin/env bash
# Builds "Whisper Dictation.app" for Apple Silicon and zips it.
#
#   scripts/bundle-macos.sh                  # on a Mac: build, lay out, fix rpaths, sign ad hoc, zip
#   scripts/bundle-macos.sh --identity "Developer ID Application: …"   # hardened runtime + timestamp
#   scripts/bundle-macos.sh --identity "Whisper Dictation Local"        # a stable self-signed identity
#   scripts/bundle-macos.sh --layout-only --binary B --libtorch-lib DIR --out DIR   # anywhere
#
# The bundle:
#   Contents/Info.plist                 Info.plist with @VERSION@ = Cargo.toml's version
#   Contents/MacOS/whisper-dictation    the release binary
#   Contents/MacOS/whisper-dictation-window   the History/Settings window's own process (no
#                                       libtorch; found beside the binary given with --binary)
#   Contents/MacOS/whisper-dictation-trigger  start/stop/toggle/cancel for key bindings (no
#                                       libtorch, so it starts at once; found beside it too)
#   Contents/Resources/AppIcon.icns     assets/icons/AppIcon.icns (scripts/make-icns.py)
#   Contents/Resources/{en,pl}.lproj/InfoPlist.strings   the microphone prompt in each language
#   Contents/Frameworks/*.dylib         the libtorch dylibs the binary needs, libomp included
#
# The binary is linked with an absolute rpath to the build's libtorch (build.rs); here it is
# replaced by @executable_path/../Frameworks, every bundled dylib gets the install name
# @rpath/<name> and keeps only relative rpaths, so the app runs from wherever it is put. Then
# everything is signed, inside out: each dylib and the executables without libtorch (the
# window's and the trigger's, whose absolute rpath goes too), then the app with
# resources/*.entitlements. Ad hoc by default (runs on the Mac that built it and, after the quarantine is removed, on others;
# see docs/M1_SETUP.md), but every build is then a new code identity and macOS forgets the
# Microphone and Accessibility grants at each rebuild. With --identity "Developer ID
# Application: …" the hardened runtime and a secure timestamp are added, as notarization
# requires. Any other identity (a self-signed code-signing certificate in the login keychain,
# docs/M1_SETUP.md "Signing") is signed without the hardened runtime and without a timestamp:
# its identity is the same from one build to the next, so the grants are kept, and library
# validation stays off so the re-signed libtorch dylibs load.
#
# Every step is written to bundle-manifest.tsv next to the bundle: "mode" macos when it was
# done, layout-only when this is not a Mac (or --layout-only was given) and the steps that need
# Apple's tools (install_name_tool, codesign, ditto) are only recorded. tests/bundle_layout.rs
# runs the layout-only mode with a placeholder binary and placeholder dylibs and checks the
# files, the plist and the manifest.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
app_name="Whisper Dictation"
exe_name=whisper-dictation
window_exe=whisper-dictation-window
trigger_exe=whisper-dictation-trigger
# The executables beside the app's that link no libtorch and need no entitlements.
plain_exes=("$window_exe" "$trigger_exe")
frameworks_rpath='@executable_path/../Frameworks'
# The layout-only list. On a Mac the real list is read from the binary (otool -L); for PyPI's
# torch 2.13.0 macOS wheel it is exactly these (its Mach-O load commands, read on Linux: the
# binary links libtorch, libtorch_cpu and libc10; libtorch_cpu loads @rpath/libomp.dylib, whose
# own install name is /opt/llvm-openmp/lib/libomp.dylib, rewritten below). libtorch_python,
# libshm and libtorch_global_deps are not needed.
required_dylibs=(libtorch.dylib libtorch_cpu.dylib libc10.dylib libomp.dylib)

say() { printf 'bundle-macos: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit "${1:-0}"
}

layout_only=0 binary='' libtorch_lib='' out='' identity='-' make_zip=1
while [ $# -gt 0 ]; do
  case "$1" in
    --layout-only) layout_only=1 ;;
    --binary) binary=${2:?--binary needs a path}; shift ;;
    --libtorch-lib) libtorch_lib=${2:?--libtorch-lib needs a folder}; shift ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    --identity) identity=${2:?--identity needs a signing identity}; shift ;;
    --no-zip) make_zip=0 ;;
    -h|--help) usage 0 ;;
    *) say "unknown option: $1"; usage 2 ;;
  esac
  shift
done

if [ "$layout_only" = 0 ]; then
  [ "$(uname -s)" = Darwin ] || die "this is not macOS: only --layout-only can run here"
  for tool in otool install_name_tool codesign ditto plutil; do
    command -v "$tool" >/dev/null || die "$tool not found (install the Xcode command line tools: xcode-select --install)"
  done
  [ "$(uname -m)" = arm64 ] || say "warning: not an Apple Silicon Mac; the bundle is for arm64"
fi
mode=$([ "$layout_only" = 1 ] && echo layout-only || echo macos)

version=$(sed -n '/^\[package\]/,/^\[/s/^version *= *"\([^"]*\)".*/\1/p' "$root/Cargo.toml" | head -n 1)
[ -n "$version" ] || die "no version in Cargo.toml's [package]"

if [ -z "$binary" ]; then
  say "building the release binary"
  (cd "$root" && cargo build --release --bin "$exe_name" --bin "$window_exe" --bin "$trigger_exe" >&2)
  binary="$root/target/release/$exe_name"
fi
[ -f "$binary" ] || die "no binary at $binary"
for plain in "${plain_exes[@]}"; do
  [ -f "$(dirname "$binary")/$plain" ] || die "no $plain beside $binary (cargo build --release --bins)"
done

if [ -z "$libtorch_lib" ]; then
  libtorch_lib="$root/.libtorch/lib"
fi
[ -d "$libtorch_lib" ] || die "no libtorch lib folder at $libtorch_lib (run scripts/setup.sh, or give --libtorch-lib)"
# The folder build.rs wrote into the binary's rpath: the canonical one (.libtorch is a link).
libtorch_lib=$(cd "$libtorch_lib" && pwd -P)

out=${out:-$root/target/bundle}
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
app="$out/$app_name.app"
stage="$out/.$app_name.app.partial"
manifest="$out/bundle-manifest.tsv"
manifest_partial="$manifest.partial"
zip_name="Whisper-Dictation-$version-macos-arm64.zip"

rm -rf "$stage" "$manifest_partial"
# A failed run leaves nothing half-made (on success both have been renamed already).
trap 'rm -rf "$stage" "$manifest_partial" "$out/$zip_name.partial"' EXIT
record() { local IFS=$'\t'; printf '%s\n' "$*" >> "$manifest_partial"; }
{
  echo "# Written by scripts/bundle-macos.sh. One step per line, tab-separated; paths relative to"
  echo "# the .app. mode macos: done; mode layout-only: only the file layout was done and the rest"
  echo "# is what a Mac does (install_name_tool, codesign, ditto)."
} > "$manifest_partial"
record mode "$mode"
record version "$version"
record bundle "$app_name.app"

# --- the layout --------------------------------------------------------------------------
mkdir -p "$stage/Contents/MacOS" "$stage/Contents/Resources" "$stage/Contents/Frameworks"
sed "s/@VERSION@/$version/g" "$root/Info.plist" > "$stage/Contents/Info.plist"
if grep -q '@[A-Z_]*@' "$stage/Contents/Info.plist"; then
  die "Info.plist still has a placeholder after filling in the version"
fi
record file Contents/Info.plist
cp "$binary" "$stage/Contents/MacOS/$exe_name"
chmod 755 "$stage/Contents/MacOS/$exe_name"
record file "Contents/MacOS/$exe_name"
for plain in "${plain_exes[@]}"; do
  cp "$(dirname "$binary")/$plain" "$stage/Contents/MacOS/$plain"
  chmod 755 "$stage/Contents/MacOS/$plain"
  record file "Contents/MacOS/$plain"
done
cp "$root/assets/icons/AppIcon.icns" "$stage/Contents/Resources/AppIcon.icns"
record file Contents/Resources/AppIcon.icns
for lproj in "$root"/resources/*.lproj; do
  name=$(basename "$lproj")
  mkdir -p "$stage/Contents/Resources/$name"
  cp "$lproj/InfoPlist.strings" "$stage/Contents/Resources/$name/InfoPlist.strings"
  record file "Contents/Resources/$name/InfoPlist.strings"
done
printf 'APPL????' > "$stage/Contents/PkgInfo"
record file Contents/PkgInfo

# The dylibs: on a Mac, every @rpath/… library the binary needs, followed through the
# libraries themselves; elsewhere (no otool) the fixed list above.
rpath_deps() { otool -L "$1" | sed -n 's|^[[:space:]]*@rpath/\([^ ]*\) (.*|\1|p'; }
dylibs=()
if [ "$mode" = macos ]; then
  queue=("$binary")
  while [ ${#queue[@]} -gt 0 ]; do
    current=${queue[0]}; queue=("${queue[@]:1}")
    while read -r dep; do
      [ -n "$dep" ] || continue
      case " ${dylibs[*]-} " in *" $dep "*) continue ;; esac
      [ -f "$libtorch_lib/$dep" ] || die "$(basename "$current") needs @rpath/$dep, which is not in $libtorch_lib"
      dylibs+=("$dep")
      queue+=("$libtorch_lib/$dep")
    done < <(rpath_deps "$current")
  done
  for lib in libtorch_cpu.dylib libc10.dylib; do
    case " ${dylibs[*]-} " in *" $lib "*) ;; *) die "the binary does not link $lib: not a libtorch build?" ;; esac
  done
else
  dylibs=("${required_dylibs[@]}")
fi
for lib in "${dylibs[@]}"; do
  [ -f "$libtorch_lib/$lib" ] || die "missing $libtorch_lib/$lib"
  # -L: the wheel's files are plain, but a libtorch folder may hold links (libomp in Homebrew's).
  cp -L "$libtorch_lib/$lib" "$stage/Contents/Frameworks/$lib"
  chmod 644 "$stage/Contents/Frameworks/$lib"
  record file "Contents/Frameworks/$lib"
done

# --- rpaths and install names --------------------------------------------------------------
exe_rel="Contents/MacOS/$exe_name"
lc_rpaths() { otool -l "$1" | awk '/cmd LC_RPATH/ { getline; getline; print $2 }'; }
if [ "$mode" = macos ]; then
  while read -r rpath; do
    case "$rpath" in ''|"$frameworks_rpath") continue ;; esac
    install_name_tool -delete_rpath "$rpath" "$stage/$exe_rel"
    record rpath-delete "$exe_rel" "$rpath"
  done < <(lc_rpaths "$stage/$exe_rel")
  if ! lc_rpaths "$stage/$exe_rel" | grep -qxF "$frameworks_rpath"; then
    install_name_tool -add_rpath "$frameworks_rpath" "$stage/$exe_rel"
  fi
  record rpath-ensure "$exe_rel" "$frameworks_rpath"
else
  record rpath-delete "$exe_rel" "$libtorch_lib"
  record rpath-ensure "$exe_rel" "$frameworks_rpath"
fi
# The window's and the trigger's executables need no libtorch: build.rs's rpath (given to
# every target) goes.
plain_rels=()
for plain in "${plain_exes[@]}"; do
  plain_rel="Contents/MacOS/$plain"
  plain_rels+=("$plain_rel")
  if [ "$mode" = macos ]; then
    if otool -L "$stage/$plain_rel" | grep -q '@rpath/'; then
      die "$plain links a library by @rpath (libtorch?): it must stay without it"
    fi
    while read -r rpath; do
      [ -n "$rpath" ] || continue
      install_name_tool -delete_rpath "$rpath" "$stage/$plain_rel"
      record rpath-delete "$plain_rel" "$rpath"
    done < <(lc_rpaths "$stage/$plain_rel")
  else
    record rpath-delete "$plain_rel" "$libtorch_lib"
  fi
done
for lib in "${dylibs[@]}"; do
  rel="Contents/Frameworks/$lib"
  if [ "$mode" = macos ]; then
    install_name_tool -id "@rpath/$lib" "$stage/$rel"
    # Absolute rpaths (a build machine's folders) go; relative ones (@loader_path) stay.
    while read -r rpath; do
      case "$rpath" in ''|@*) continue ;; esac
      install_name_tool -delete_rpath "$rpath" "$stage/$rel"
      record rpath-delete "$rel" "$rpath"
    done < <(lc_rpaths "$stage/$rel")
    # (PyPI's libomp says "@loader_path/", libtorch's "@loader_path": the same folder.)
    if ! lc_rpaths "$stage/$rel" | grep -qxE '@loader_path/?'; then
      install_name_tool -add_rpath '@loader_path' "$stage/$rel"
    fi
  fi
  record id "$rel" "@rpath/$lib"
  record rpath-ensure "$rel" '@loader_path'
done

# On a Mac, check the result: nothing may point outside the bundle but the system's libraries.
if [ "$mode" = macos ]; then
  for file in "$stage/$exe_rel" "${plain_rels[@]/#/$stage/}" "$stage"/Contents/Frameworks/*.dylib; do
    bad=$(otool -L "$file" | tail -n +2 | awk '{print $1}' \
      | grep -v -e '^@rpath/' -e '^/usr/lib/' -e '^/System/Library/' || true)
    [ -z "$bad" ] || die "$(basename "$file") still links outside the bundle: $bad"
    bad=$(lc_rpaths "$file" | grep -v '^@' || true)
    [ -z "$bad" ] || die "$(basename "$file") still has an absolute rpath: $bad"
  done
  plutil -lint "$stage/Contents/Info.plist" >&2
fi

# --- signing -------------------------------------------------------------------------------
entitlements=$(ls "$root"/resources/*.entitlements)
[ "$(printf '%s\n' "$entitlements" | wc -l)" -eq 1 ] || die "expected one resources/*.entitlements"
sign_flags=(--force --sign "$identity")
# The signing kind: adhoc (-), developer-id (hardened runtime + timestamp, for notarization) or
# self-signed (any other identity: stable across builds, no hardened runtime, no timestamp).
case "$identity" in
  -) signing=adhoc ;;
  "Developer ID Application:"*) signing=developer-id ;;
  *) signing=self-signed ;;
esac
if [ "$signing" = developer-id ]; then
  sign_flags+=(--options runtime --timestamp)
else
  sign_flags+=(--timestamp=none)
fi
for lib in "${dylibs[@]}"; do
  [ "$mode" = macos ] && codesign "${sign_flags[@]}" "$stage/Contents/Frameworks/$lib"
  record sign "Contents/Frameworks/$lib" "$identity"
done
# The window's and the trigger's executables: no entitlements (they record nothing and send
# no keystrokes).
for plain_rel in "${plain_rels[@]}"; do
  [ "$mode" = macos ] && codesign "${sign_flags[@]}" "$stage/$plain_rel"
  record sign "$plain_rel" "$identity"
done
if [ "$mode" = macos ]; then
  codesign "${sign_flags[@]}" --entitlements "$entitlements" "$stage"
  codesign --verify --strict --verbose=2 "$stage" >&2
fi
record sign . "$identity" "entitlements=${entitlements#"$root"/}" \
  "runtime=$([ "$signing" = developer-id ] && echo hardened || echo no)" "signing=$signing"

# Replace the previous bundle only now that the new one is complete.
rm -rf "$app"
mv "$stage" "$app"

# --- the zip -------------------------------------------------------------------------------
if [ "$make_zip" = 1 ]; then
  rm -f "$out/$zip_name" "$out/$zip_name.partial"
  if [ "$mode" = macos ]; then
    # ditto keeps the signature's extended attributes and the symlinks; --keepParent puts the
    # .app itself at the top of the archive.
    ditto -c -k --sequesterRsrc --keepParent "$app" "$out/$zip_name.partial"
  elif command -v zip >/dev/null; then
    (cd "$out" && zip -q -r -y "$zip_name.partial" "$app_name.app")
  else
    say "no zip tool here: skipping the archive"
    make_zip=0
  fi
  if [ "$make_zip" = 1 ]; then
    mv "$out/$zip_name.partial" "$out/$zip_name"
    record zip "$zip_name"
  fi
fi

mv "$manifest_partial" "$manifest"
say "$app ($mode)"
[ "$make_zip" = 1 ] && say "$out/$zip_name"
exit 0
