#!/usr/bin/env bash
# Checks, on any machine, what can be checked of `cargo test` on a Mac without a Mac (issue 24:
# the desktop rig called Linux-only prctl, so the test targets did not link there):
#   1. the Linux-only test files (the X11 desktop tests, their app rig, the ELF link check)
#      compile to nothing for aarch64-apple-darwin: a throwaway crate takes them as its own test
#      targets, and `cargo check --target aarch64-apple-darwin --tests` passes although
#      whisper_dictation is not a dependency there (their whole content is cfg'd out);
#   2. the one target built from the desktop rig on a Mac, examples/desktop_demo.rs, type-checks
#      for aarch64-apple-darwin and its object code (emitted without linking) refers to no
#      prctl: every C function it calls must exist in macOS's libSystem.
# The test files that use the app's library cannot be compiled for macOS here (torch-sys builds
# C++ against libtorch): they are checked by grep (no prctl, /proc, x11rb, xdotool or Xvfb
# outside the Linux-only files), and for real by the macOS CI workflow.
#
#   scripts/check-macos-tests.sh       # needs: rustup target add aarch64-apple-darwin
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
crate="$root/target/macos-tests-check"
target=aarch64-apple-darwin
say() { printf 'check-macos-tests: %s\n' "$*" >&2; }

if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  say "the $target standard library is missing: rustup target add $target"
  exit 1
fi

# The files that must be Linux-only as a whole, and the Linux-only things that may appear
# in test code only inside them.
# Every X11 desktop test (tests/desktop*.rs), their app rig and the ELF link check.
mapfile -t desktop_tests < <(cd "$root" && ls tests/desktop*.rs)
linux_only=("${desktop_tests[@]}" tests/app_rig/mod.rs tests/gpu_link.rs)
for file in "${linux_only[@]}"; do
  grep -qx '#!\[cfg(target_os = "linux")\]' "$root/$file" \
    || { say "$file is not gated with #![cfg(target_os = \"linux\")]"; exit 1; }
done
offenders=$(cd "$root"; grep -rlE 'prctl|"/proc|x11rb|xdotool|Xvfb|libc::PR_' tests examples \
  --include='*.rs' | LC_ALL=C sort)
allowed=$(printf '%s\n' "${linux_only[@]}" tests/rig/mod.rs examples/desktop_demo.rs | LC_ALL=C sort)
unexpected=$(comm -23 <(printf '%s\n' "$offenders" | sed '/^$/d') <(printf '%s\n' "$allowed"))
if [ -n "$unexpected" ]; then
  say "Linux-only calls in test files that are not Linux-only: $unexpected"
  exit 1
fi

version_of() { sed -n "s/^$1 = \"\\([^\"]*\\)\".*/\\1/p" "$root/Cargo.toml" | head -n 1; }
mkdir -p "$crate"
{
  cat <<TOML
[package]
name = "macos-tests-check"
version = "0.0.0"
edition = "2021"
publish = false
autobins = false
autotests = false
autoexamples = false

[workspace]

[dependencies]
png = "$(version_of png)"

[[bin]]
name = "desktop_demo"
path = "$root/examples/desktop_demo.rs"
TOML
  for file in "${desktop_tests[@]}" tests/gpu_link.rs; do
    name=$(basename "$file" .rs)
    printf '\n[[test]]\nname = "%s"\npath = "%s"\n' "$name" "$root/$file"
  done
} > "$crate/Cargo.toml"
cp "$root/Cargo.lock" "$crate/Cargo.lock"
cd "$crate"

RUSTFLAGS="-D warnings" cargo check --quiet --target "$target" --tests
say "the Linux-only test files compile to nothing for $target"

# The object file only: `true` stands in for Apple's linker, which is not here.
deps="$crate/target/$target/release/deps"
rm -f "$deps"/desktop_demo-*.o
cargo rustc --quiet --release --target "$target" --bin desktop_demo -- \
  -C codegen-units=1 -C linker=true -C strip=none --emit=obj,link
obj=$(find "$deps" -name 'desktop_demo-*.o' | head -n 1)
[ -n "$obj" ] || { say "no object file was emitted"; exit 1; }
# Mach-O prefixes C symbols with '_'; the string table separates names with NUL bytes.
prctl=$(python3 - "$obj" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
if data[:4] != bytes.fromhex("cffaedfe"):
    sys.exit("not a 64-bit Mach-O object")
print("found" if b"\0_prctl\0" in data else "absent")
PY
)
if [ "$prctl" != absent ]; then
  say "examples/desktop_demo.rs refers to prctl on $target: it would not link on a Mac"
  exit 1
fi
say "examples/desktop_demo.rs builds an object for $target without prctl"
