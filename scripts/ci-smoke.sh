#!/usr/bin/env bash
# Headless smoke test of a built whisper-dictation binary (the macOS CI job runs it on the
# release binary and on the bundle's; it runs on Linux too): `devices` works, and `transcribe
# assets/sample.wav` gives the sample's words on the CPU and with --device auto, and with
# --device mps on macOS. A GPU is never required to work: with auto the words must
# be right on whatever device was used (printed); with mps the run either gives the right words
# (on MPS or after falling back to the CPU, printed) or fails saying why. Exit 0 when all of
# that holds, 1 with what did not.
#
# Usage: scripts/ci-smoke.sh [BINARY]   (default: target/release/whisper-dictation)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
binary=${1:-$root/target/release/whisper-dictation}
sample="$root/assets/sample.wav"
# What assets/sample.wav says (tests/transcribe.rs checks the same words).
expected="the quarterly report is almost finished but the charts still need more work"

say() { printf 'ci-smoke: %s\n' "$*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

[ -x "$binary" ] || fail "no executable at $binary"

# Lower case, letters, digits and single spaces only.
words() { tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9' ' ' | tr -s ' ' | sed 's/^ //; s/ $//'; }

# One string field of the one-line JSON report `transcribe --json` prints.
field() { python3 -c 'import json, sys; print(json.loads(sys.stdin.read())[sys.argv[1]])' "$1"; }

say "$binary devices"
"$binary" devices || fail "devices exited with $?"

# Transcribes the sample with the given --device; prints "device<TAB>words" or fails.
transcribe() {
  local device=$1 out
  out=$("$binary" transcribe --json --device "$device" "$sample") \
    || return 1
  printf '%s\t%s\n' "$(field device <<<"$out")" "$(field text <<<"$out" | words)"
}

check() {
  local asked=$1 result used said
  result=$(transcribe "$asked") || fail "transcribe --device $asked exited with an error"
  used=${result%%$'\t'*}
  said=${result#*$'\t'}
  [ "$said" = "$expected" ] || fail "--device $asked ran on $used and said '$said', not '$expected'"
  say "--device $asked: the right words, on $used"
  printf '%s\n' "$used"
}

cpu_device=$(check cpu)
[ "$cpu_device" = cpu ] || fail "--device cpu ran on $cpu_device"
auto_device=$(check auto)
say "auto chose $auto_device"

if [ "$(uname -s)" = Darwin ]; then
  err=$(mktemp)
  if result=$(transcribe mps 2>"$err"); then
    used=${result%%$'\t'*}
    said=${result#*$'\t'}
    [ "$said" = "$expected" ] || fail "--device mps ran on $used and said '$said', not '$expected'"
    say "--device mps: the right words, on $used"
  else
    say "--device mps refused or failed (allowed: a runner may have no Metal):"
    cat "$err" >&2
  fi
  rm -f "$err"
fi
say "passed"
