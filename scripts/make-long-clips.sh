#!/usr/bin/env bash
# Builds the long dictation clips of issue 26 from the project's own speech, idempotently, into
# a cache folder (default target/long-clips/; not committed: about 12 MB of WAV):
#
#   long_5s_pauses.wav    long_25s_pauses.wav    long_60s_pauses.wav    long_110s_pauses.wav
#   long_5s_nopause.wav   long_25s_nopause.wav   long_60s_nopause.wav   long_110s_nopause.wav
#
# *_pauses: sentences one after another with ordinary pauses of 0.5-1.0 s between them.
# *_nopause: the same sentences with every quiet stretch over 0.12 s shortened to 0.12 s
#   (`sox silence -l 1 0.1 1% -1 0.12 1%` on each sentence, its ends trimmed at 1 %) and joined
#   by 0.03 s gaps: speech without a usable pause (no quiet stretch over ~0.13 s inside, by
#   sox's own measure: 20 ms RMS under 1 %; tests/desktop_long_dictation.rs checks it).
# Every clip is 16 kHz mono 16-bit PCM with 0.25 s of digital silence at both ends, and has a
# JSON file beside it (long_25s_pauses.json, ...) with its exact reference text, its duration
# and each sentence's text, voice and start/end in the clip.
#
# The speech: the ten sentences of tests/fixtures/clips/en_long_50s.wav (cut at its 1 s pauses),
# six single-sentence clips of tests/fixtures/clips (their 0.25 s pads trimmed), and, for the
# 110 s clips only, eight more sentences synthesized here with flite's four voices (as
# scripts/make-clips.sh does; deterministic). Needs sox and flite (scripts/setup.sh --test).
#
# Idempotent: a stamp with the checksum of this script, its inputs and the tools' versions;
# when it matches, nothing is rebuilt. Built in a temporary folder and moved into place, under
# a lock (two tests may call it at once).
#
# Usage: scripts/make-long-clips.sh [OUT_DIR]     (prints OUT_DIR on success)
# Runs under macOS's /bin/bash 3.2 too (tests/word_times.rs runs it on a Mac): no mapfile, no
# associative arrays; the tools come from Homebrew there (scripts/setup.sh --test).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/target/long-clips}"
CLIPS="$ROOT/tests/fixtures/clips"

die() { echo "make-long-clips: error: $*" >&2; exit 1; }
need() {  # need CMD DEBIAN_PACKAGE HOMEBREW_FORMULA
  command -v "$1" >/dev/null 2>&1 \
    || die "'$1' not found; scripts/setup.sh --test installs it (Debian: apt-get install $2; macOS: brew install $3)"
}
need sox sox sox
need soxi sox sox
need flite flite flite
need flock util-linux flock
for v in kal slt awb rms; do
  flite -lv 2>/dev/null | tr ' ' '\n' | grep -qx "$v" || die "flite voice '$v' missing (reinstall flite)"
done
# GNU's sha256sum, or macOS's shasum (same output).
sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }
# TEXT and VOICE of each sentence id, kept as TEXT_<id> / VOICE_<id> (bash 3.2 has no
# associative arrays): put NAME ID VALUE, get NAME ID.
put() { printf -v "$1_$2" '%s' "$3"; }
get() { local var="$1_$2"; printf '%s' "${!var}"; }

# --- the speech -------------------------------------------------------------------------------
# en_long_50s.wav's sentences, in order (as scripts/make-clips.sh says them).
LONG_VOICES=(slt awb rms kal slt awb rms kal fest slt)
LONG_TEXTS=(
  "Good morning everyone, here are the notes from yesterday's planning session."
  "First, the new website will launch on the fifteenth of next month."
  "The design team still needs to finish the mobile layout and the checkout page."
  "Second, we agreed to hire two more engineers for the customer support team."
  "Maria will post the job descriptions by the end of this week."
  "Third, the office will be closed on Monday for maintenance work."
  "Please take your laptops home on Friday if you plan to work remotely."
  "Finally, the budget review has been moved to Wednesday at two o'clock."
  "Let me know if I missed anything important."
  "Thanks, and have a great weekend."
)
# Single-sentence clips used whole (minus their pads): file, voice.
SINGLE_FILES=(en_kal.wav en_slt.wav en_awb.wav en_rms.wav en_fest_slt_hts.wav en_espeak.wav)
SINGLE_VOICES=(kal slt awb rms fest espeak)
# More sentences for the 110 s clips, synthesized with flite.
NEW_VOICES=(awb rms kal slt awb rms kal slt)
NEW_TEXTS=(
  "Before we finish, a few words about the customer survey from last quarter."
  "Most people said the new checkout was faster, but many found the search page confusing."
  "We will test a simpler search page with twenty customers in the first week of March."
  "Peter asked whether the support team could answer emails on Saturday mornings."
  "That depends on the two new engineers, so we will decide after they start."
  "The printer on the third floor is broken again, and a technician will come on Tuesday."
  "Until then, please use the printer next to the kitchen."
  "That is all for today, thank you for listening."
)
PAUSES=(0.7 0.9 0.5 1.0 0.6 0.8)  # ordinary pauses, in turn (mean 0.75 s)
SQUEEZED_GAP=0.03                 # between sentences of the *_nopause clips
PAD=0.25
RATE=16000
SOX=(sox -R -D -V1)               # repeatable, no dither, errors only

# --- up to date? ------------------------------------------------------------------------------
inputs=("${BASH_SOURCE[0]}" "$CLIPS/en_long_50s.wav" "$CLIPS/texts.json")
for f in "${SINGLE_FILES[@]}"; do inputs+=("$CLIPS/$f"); done
stamp_now="$({ sha256 "${inputs[@]}" | cut -d' ' -f1; sox --version 2>&1 || true; flite --version 2>&1 || true; } | sha256 | cut -d' ' -f1)"
mkdir -p "$(dirname "$OUT")"
exec 9>"$OUT.lock"
flock 9
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$stamp_now" ]; then
  echo "$OUT"
  exit 0
fi

# The texts above must still be what the committed clips say.
grep -qF "\"en_long_50s.wav\": \"${LONG_TEXTS[*]}\"" "$CLIPS/texts.json" \
  || die "the en_long_50s.wav sentences here differ from tests/fixtures/clips/texts.json"
single_text() {  # the text of a single clip from texts.json
  sed -n "s/^  \"$1\": \"\(.*\)\",\{0,1\}\$/\1/p" "$CLIPS/texts.json"
}

STAGE="$OUT.partial.$$"
rm -rf "$OUT".partial.* && mkdir -p "$STAGE/parts"
trap 'rm -rf "$STAGE"' EXIT

# trim IN OUT [LEVEL] : without silence (below LEVEL, default 0.1 %) at either end
trim() {
  local level="${3:-0.1%}"
  "${SOX[@]}" "$1" "$2" silence 1 0.01 "$level" reverse silence 1 0.01 "$level" reverse
}

# L1..L10: en_long_50s.wav cut at its pauses (1 s of digital silence each).
"${SOX[@]}" "$CLIPS/en_long_50s.wav" "$STAGE/parts/cut.wav" silence 1 0.01 0.1% 1 0.6 0.1% : newfile : restart
cuts=("$STAGE"/parts/cut*.wav)
[ "${#cuts[@]}" -eq "${#LONG_TEXTS[@]}" ] \
  || die "en_long_50s.wav cut into ${#cuts[@]} sentences, not ${#LONG_TEXTS[@]}"
for i in "${!LONG_TEXTS[@]}"; do
  trim "${cuts[$i]}" "$STAGE/parts/L$((i + 1)).wav"
  put TEXT "L$((i + 1))" "${LONG_TEXTS[$i]}"
  put VOICE "L$((i + 1))" "${LONG_VOICES[$i]}"
done
rm -f "$STAGE"/parts/cut*.wav
for i in "${!SINGLE_FILES[@]}"; do
  trim "$CLIPS/${SINGLE_FILES[$i]}" "$STAGE/parts/S$((i + 1)).wav"
  put TEXT "S$((i + 1))" "$(single_text "${SINGLE_FILES[$i]}")"
  [ -n "$(get TEXT "S$((i + 1))")" ] || die "no text for ${SINGLE_FILES[$i]} in texts.json"
  put VOICE "S$((i + 1))" "${SINGLE_VOICES[$i]}"
done
for i in "${!NEW_TEXTS[@]}"; do
  flite -voice "${NEW_VOICES[$i]}" -t "${NEW_TEXTS[$i]}" -o "$STAGE/parts/raw.wav"
  "${SOX[@]}" "$STAGE/parts/raw.wav" -r $RATE -c 1 -b 16 -e signed-integer "$STAGE/parts/norm.wav" norm -3
  trim "$STAGE/parts/norm.wav" "$STAGE/parts/N$((i + 1)).wav"
  put TEXT "N$((i + 1))" "${NEW_TEXTS[$i]}"
  put VOICE "N$((i + 1))" "${NEW_VOICES[$i]}"
done
rm -f "$STAGE/parts/raw.wav" "$STAGE/parts/norm.wav"
# The squeezed sentences: every quiet stretch over 0.12 s shortened to 0.12 s, their ends
# trimmed at the same 1 % (so a join is the gap and the sentences' faint edges, ~0.12 s).
for part in "$STAGE"/parts/[LSN]*.wav; do
  id="$(basename "$part" .wav)"
  "${SOX[@]}" "$part" "$STAGE/parts/sq.wav" silence -l 1 0.1 1% -1 0.12 1%
  trim "$STAGE/parts/sq.wav" "$STAGE/parts/Q$id.wav" 1%
done
rm -f "$STAGE/parts/sq.wav"

jstr() { local s="${1//\\/\\\\}"; s="${s//\"/\\\"}"; printf '"%s"' "$s"; }
secs() { soxi -D "$1"; }
silence() { "${SOX[@]}" -n -r $RATE -c 1 -b 16 -e signed-integer "$2" trim 0 "$1"; }

# build NAME PAUSED(1|0) IDS... : the clip NAME.wav and NAME.json
build() {
  local name="$1" paused="$2"; shift 2
  local files=() sentences=() texts=() at=$PAD n=0 gap piece
  silence $PAD "$STAGE/parts/pad.wav"
  files+=("$STAGE/parts/pad.wav")
  for id in "$@"; do
    if [ $n -gt 0 ]; then
      if [ "$paused" = 1 ]; then gap="${PAUSES[$(( (n - 1) % ${#PAUSES[@]} ))]}"; else gap=$SQUEEZED_GAP; fi
      silence "$gap" "$STAGE/parts/gap_${name}_$n.wav"
      files+=("$STAGE/parts/gap_${name}_$n.wav")
      at="$(awk -v a="$at" -v g="$gap" 'BEGIN { printf "%.4f", a + g }')"
    fi
    if [ "$paused" = 1 ]; then piece="$STAGE/parts/$id.wav"; else piece="$STAGE/parts/Q$id.wav"; fi
    files+=("$piece")
    local end
    end="$(awk -v a="$at" -v d="$(secs "$piece")" 'BEGIN { printf "%.4f", a + d }')"
    sentences+=("    {\"id\": \"$id\", \"voice\": \"$(get VOICE "$id")\", \"start_s\": $at, \"end_s\": $end, \"text\": $(jstr "$(get TEXT "$id")")}")
    texts+=("$(get TEXT "$id")")
    at="$end"
    n=$((n + 1))
  done
  files+=("$STAGE/parts/pad.wav")
  "${SOX[@]}" "${files[@]}" "$STAGE/$name.wav"
  local joined
  joined="$(printf '%s\n' "${sentences[@]}" | sed '$!s/$/,/')"
  cat > "$STAGE/$name.json" <<EOF
{
  "clip": "$name.wav",
  "pauses": "$([ "$paused" = 1 ] && echo ordinary || echo removed)",
  "seconds": $(printf '%.3f' "$(secs "$STAGE/$name.wav")"),
  "text": $(jstr "${texts[*]}"),
  "sentences": [
$joined
  ]
}
EOF
}

# pair LENGTH IDS... : both clips of one length (with pauses, without)
pair() {
  local length="$1"; shift
  build "long_${length}s_pauses" 1 "$@"
  build "long_${length}s_nopause" 0 "$@"
}
# Sentence ids: L1..L10 (en_long_50s), S1..S6 (single clips), N1..N8 (new).
pair 5 L9 L10
pair 25 L1 L2 L3 L4 L5
pair 60 L1 L2 L3 L4 L5 L6 L7 L8 L9 L10 S1 S2 S3
pair 110 L1 L2 L3 L4 L5 L6 L7 L8 L9 L10 N1 N2 N3 N4 S1 S2 S3 S4 S5 S6 N5 N6 N7 N8
rm -rf "$STAGE/parts"
echo "$stamp_now" > "$STAGE/stamp"
rm -rf "$OUT" && mv "$STAGE" "$OUT"
trap - EXIT
for f in "$OUT"/*.wav; do
  printf 'make-long-clips: %s %.2f s\n' "$(basename "$f")" "$(soxi -D "$f")" >&2
done
echo "$OUT"
