#!/usr/bin/env bash
# Type-checks and lints the whole crate for aarch64-apple-darwin on a machine that is not a Mac:
# the library, both binaries, every test, example and bench, as
#   cargo clippy --all-targets --target aarch64-apple-darwin -- -D warnings
# so a macOS branch anywhere that does not compile, or that clippy warns about, fails here.
#
# What makes it possible without a Mac:
#   - the crate's `check-without-libtorch` feature turns on tch's and torch-sys's `doc-only`,
#     which compile no C++ against libtorch and link nothing (build.rs then gets no libtorch
#     folder and adds no link arguments);
#   - the C code of the dependencies (bundled SQLite, ring, zstd, bzip2) is compiled for macOS
#     by zig's C compiler, which ships macOS's libc headers: a wrapper written below drops the
#     `--target=`, `-arch` and deployment-target flags cc passes and gives zig its own target;
#   - DOCS_RS=1 makes the two build scripts that compile Objective-C (mac-notification-sys's
#     notification code, objc2-exception-helper's @try/@catch shim) skip it: they need Apple's
#     clang and the SDK. No other build script in the tree reads DOCS_RS, and these two emit no
#     cfg from it, so the Rust that is checked is the same;
#   - its own target folder (target/macos-check), so it never waits on or invalidates the main
#     build; a second run recompiles only what changed.
# What it cannot tell: that anything links (the frameworks' symbols, libtorch's), that the
# Objective-C parts compile, or that anything behaves: that needs a Mac (docs/M1_SETUP.md).
# On a Mac this check is pointless — `cargo test` and `cargo clippy` build natively there —
# so it refuses to run and says so.
#
#   scripts/check-macos-crate.sh [extra cargo clippy arguments]
# Needs (scripts/setup.sh --test installs them): the aarch64-apple-darwin standard library
# (rustup), clippy, and zig (the ziglang package, in the set-up cache; or $ZIG).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=aarch64-apple-darwin
out="$root/target/macos-check"
say() { printf 'check-macos-crate: %s\n' "$*" >&2; }
setup_hint="scripts/setup.sh --test installs it"

if [ "$(uname -s)" = Darwin ]; then
  say "this is a Mac: the crate builds natively here; run cargo clippy --all-targets -- -D warnings"
  exit 2
fi

if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  say "the $target standard library is missing (rustup target add $target; $setup_hint)"
  exit 1
fi
if ! cargo clippy --version >/dev/null 2>&1; then
  say "clippy is missing (rustup component add clippy; $setup_hint)"
  exit 1
fi

# zig: $ZIG, else the ziglang package scripts/setup.sh --test installs into its cache (the
# same folder as setup.sh's), else one on PATH.
zig=${ZIG:-}
zig_dir="${XDG_CACHE_HOME:-$HOME/.cache}/whisper-dictation/ziglang"
if [ -z "$zig" ]; then
  if [ -x "$zig_dir/ziglang/zig" ]; then
    zig="$zig_dir/ziglang/zig"
  elif command -v zig >/dev/null 2>&1; then
    zig=$(command -v zig)
  fi
fi
if [ -z "$zig" ] || ! "$zig" version >/dev/null 2>&1; then
  say "zig's C compiler is missing (looked for \$ZIG, $zig_dir/ziglang/zig and zig on PATH; $setup_hint)"
  exit 1
fi

# The C compiler and archiver cc uses for the target's C code.
bin="$out/bin"
mkdir -p "$bin"
write_tool() { # name, body: written only when different, so the build scripts' inputs stay put
  local file="$bin/$1" body=$2
  if [ ! -x "$file" ] || [ "$(cat "$file")" != "$body" ]; then
    printf '%s\n' "$body" > "$file.new" && chmod +x "$file.new" && mv "$file.new" "$file"
  fi
}
write_tool cc "#!/usr/bin/env bash
# Written by scripts/check-macos-crate.sh: zig's clang for $target. cc passes its own
# target (--target=arm64-apple-macosx, -arch, -mmacosx-version-min=); zig takes its own.
args=()
skip=0
for arg in \"\$@\"; do
  if [ \"\$skip\" = 1 ]; then skip=0; continue; fi
  case \"\$arg\" in
    --target=*|-mmacosx-version-min=*|-mmacos-version-min=*) ;;
    -target|--target|-arch) skip=1 ;;
    *) args+=(\"\$arg\") ;;
  esac
done
export ZIG_GLOBAL_CACHE_DIR=\"$out/zig-cache\" ZIG_LOCAL_CACHE_DIR=\"$out/zig-cache\"
exec \"$zig\" cc -target aarch64-macos \"\${args[@]}\""
write_tool ar "#!/usr/bin/env bash
exec \"$zig\" ar \"\$@\""
write_tool ranlib "#!/usr/bin/env bash
exec \"$zig\" ranlib \"\$@\""

cd "$root"
export CARGO_TARGET_DIR="$out"
export CC_aarch64_apple_darwin="$bin/cc"
export AR_aarch64_apple_darwin="$bin/ar" RANLIB_aarch64_apple_darwin="$bin/ranlib"
export DOCS_RS=1
# Run by the suite, this script inherits what cargo sets for a test (CARGO_MANIFEST_DIR,
# CARGO_PKG_*, CARGO_BIN_EXE_*, … and build.rs's WHISPER_DICTATION_LIBTORCH_DIR, which the Mac's
# crate must not see: it has no libtorch). Build scripts and crates track some of them (ring's
# build script tracks CARGO_MANIFEST_DIR), so they would recompile whenever the check alternates
# between the suite and a shell; cargo runs without them (`env -u` also takes the names with a
# hyphen, which bash cannot unset).
without=()
while IFS= read -r name; do
  case "$name" in
    CARGO_MANIFEST_*|CARGO_PKG_*|CARGO_CRATE_NAME|CARGO_BIN_NAME|CARGO_BIN_EXE_*|CARGO_PRIMARY_PACKAGE \
      |CARGO_TARGET_TMPDIR|CARGO_RUSTC_CURRENT_DIR|OUT_DIR|WHISPER_DICTATION_LIBTORCH_DIR)
      without+=(-u "$name") ;;
  esac
done < <(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_-]*\)=.*/\1/p')
# --locked: never rewrite Cargo.lock (the main build shares it). Warnings are errors: an unused
# import in a macOS branch is as wrong as a type error. The compiler's messages are shown as
# usual (stderr); cargo's JSON records (one a line, stdout) go to messages.json, where
# tests/macos_crate.rs reads which targets were compiled for the Mac. The dev profile without
# its opt-level 3 for dependencies and without debug info: nothing here runs but the build
# scripts and proc macros, which then take about a third of the CPU time (the check is the same).
if ! env ${without[@]+"${without[@]}"} cargo clippy --locked --quiet --all-targets --target "$target" \
    --config 'profile.dev.package."*".opt-level=0' --config 'profile.dev.debug=false' \
    --features check-without-libtorch --message-format=json-render-diagnostics "$@" \
    -- -D warnings > "$out/messages.json"; then
  say "the crate does not type-check or lint cleanly for $target (above)"
  exit 1
fi
say "the library, binaries, tests, examples and benches type-check and lint cleanly for $target"
