#!/usr/bin/env bash
# Generate the speech test clips in tests/fixtures/clips/ deterministically.
#
# Every clip is 16 kHz, mono, 16-bit PCM WAV, except en_kal_stereo44k.wav (a 44.1 kHz
# stereo copy of en_kal.wav used only to exercise resampling and downmixing).
# The clips are committed; this script documents exactly how they were made and
# regenerates byte-identical files on a machine with the same Debian packages:
#   apt-get install flite espeak-ng festival festvox-us-slt-hts sox
#
# Determinism: sox runs with -R (fixed seeds for pink noise) and -D (no dither), all TTS
# engines are deterministic, and nothing depends on the time or the cwd.
# It also writes tests/fixtures/clips/README.md (clip list, voices, exact texts, durations).
#
# Usage: scripts/make-clips.sh        (from any directory; idempotent, overwrites)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/tests/fixtures/clips"

die() { echo "make-clips: error: $*" >&2; exit 1; }

need() {  # need CMD DEBIAN_PACKAGE
  command -v "$1" >/dev/null 2>&1 || die "'$1' not found; install it with: apt-get install $2"
}
need sox sox
need soxi sox
need flite flite
need espeak-ng espeak-ng
need text2wave festival
need festival festival
need awk gawk

for v in kal slt awb rms; do
  flite -lv 2>/dev/null | tr ' ' '\n' | grep -qx "$v" || die "flite voice '$v' missing (apt-get install flite)"
done
[ -d /usr/share/festival/voices/us/cmu_us_slt_arctic_hts ] \
  || die "festival voice cmu_us_slt_arctic_hts missing; install it with: apt-get install festvox-us-slt-hts"
espeak-ng --voices=pl | grep -q ' pl ' || die "espeak-ng has no Polish voice"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"

SOX=(sox -R -D -V1)       # repeatable seeds, no dither, errors only
RATE=16000
PAD=0.25                  # seconds of digital silence before and after each utterance
SNR_DB=10                 # speech-to-noise ratio of the noisy clip

# --- the texts (the README and the parity fixtures are built from these) -------------
TEXT_KAL="Please remind me to call the dentist tomorrow morning at nine."
TEXT_SLT="The quarterly report is almost finished, but the charts still need more work."
TEXT_AWB="Send a message to Anna saying that I will be about ten minutes late."
TEXT_RMS="Add milk, eggs, and a loaf of fresh bread to my shopping list."
TEXT_FEST="Our flight to Chicago leaves on Friday afternoon from gate twelve."
TEXT_ESPEAK="Turn off the lights in the kitchen and lock the front door."
TEXT_PL="Jutro o dziesiątej mamy ważne spotkanie z zarządem w sali konferencyjnej."
TEXT_NOISY="I think we should move the weekly meeting to Thursday afternoon instead."
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
LONG_GAP=1.0              # seconds of silence between long-form sentences

# --- helpers --------------------------------------------------------------------------
# tts VOICE TEXT RAW_OUT : synthesize with the engine behind VOICE (native rate)
tts() {
  local voice="$1" text="$2" out="$3"
  case "$voice" in
    kal|slt|awb|rms) flite -voice "$voice" -t "$text" -o "$out" ;;
    fest)
      printf '%s\n' "$text" > "$TMP/fest.txt"
      text2wave -eval "(voice_cmu_us_slt_arctic_hts)" "$TMP/fest.txt" -o "$out" ;;
    espeak-en) espeak-ng -v en-us -w "$out" "$text" ;;
    espeak-pl) espeak-ng -v pl -w "$out" "$text" ;;
    *) die "unknown voice $voice" ;;
  esac
  [ -s "$out" ] || die "TTS produced no audio for voice $voice"
}

# to16k IN OUT : 16 kHz mono 16-bit, peak-normalized to -3 dBFS (no padding)
to16k() { "${SOX[@]}" "$1" -r $RATE -c 1 -b 16 -e signed-integer "$2" norm -3; }

# speech_clip VOICE TEXT OUT : TTS -> 16 kHz mono, padded with $PAD s each side
speech_clip() {
  tts "$1" "$2" "$TMP/raw.wav"
  to16k "$TMP/raw.wav" "$TMP/norm.wav"
  "${SOX[@]}" "$TMP/norm.wav" "$3" pad $PAD $PAD
}

rms_of() { sox "$1" -n stat 2>&1 | awk '/^RMS +amplitude/ {print $3}'; }

# --- English voices, Polish -----------------------------------------------------------
speech_clip kal       "$TEXT_KAL"    "$OUT/en_kal.wav"
speech_clip slt       "$TEXT_SLT"    "$OUT/en_slt.wav"
speech_clip awb       "$TEXT_AWB"    "$OUT/en_awb.wav"
speech_clip rms       "$TEXT_RMS"    "$OUT/en_rms.wav"
speech_clip fest      "$TEXT_FEST"   "$OUT/en_fest_slt_hts.wav"
speech_clip espeak-en "$TEXT_ESPEAK" "$OUT/en_espeak.wav"
speech_clip espeak-pl "$TEXT_PL"     "$OUT/pl_espeak.wav"

# --- English speech + pink noise at $SNR_DB dB SNR --------------------------------------
# SNR = 20*log10(rms(utterance) / rms(noise)), utterance measured without the padding.
tts slt "$TEXT_NOISY" "$TMP/noisy_raw.wav"
"${SOX[@]}" "$TMP/noisy_raw.wav" -r $RATE -c 1 -b 16 -e signed-integer "$TMP/noisy_speech.wav" norm -6
S_RMS="$(rms_of "$TMP/noisy_speech.wav")"
"${SOX[@]}" "$TMP/noisy_speech.wav" "$TMP/noisy_padded.wav" pad $PAD $PAD
DUR="$(soxi -D "$TMP/noisy_padded.wav")"
"${SOX[@]}" -n -r $RATE -c 1 -b 16 -e signed-integer "$TMP/pink.wav" synth "$DUR" pinknoise vol 0.25
N_RMS="$(rms_of "$TMP/pink.wav")"
GAIN="$(awk -v s="$S_RMS" -v n="$N_RMS" -v snr="$SNR_DB" 'BEGIN { printf "%.6f", s / n / (10 ^ (snr / 20)) }')"
"${SOX[@]}" -m -v 1 "$TMP/noisy_padded.wav" -v "$GAIN" "$TMP/pink.wav" -b 16 "$OUT/en_noisy_pink10db.wav"

# --- 5 s of digital silence; 5 s of faint pink noise (about -60 dBFS RMS) ----------------
"${SOX[@]}" -n -r $RATE -c 1 -b 16 -e signed-integer "$OUT/silence_5s.wav" trim 0 5
"${SOX[@]}" -n -r $RATE -c 1 -b 16 -e signed-integer "$TMP/faint.wav" synth 5 pinknoise
F_RMS="$(rms_of "$TMP/faint.wav")"
F_GAIN="$(awk -v r="$F_RMS" 'BEGIN { printf "%.6f", 0.001 / r }')"
"${SOX[@]}" "$TMP/faint.wav" "$OUT/near_silent_5s.wav" vol "$F_GAIN"

# --- long form (~50 s): alternating voices, $LONG_GAP s pauses ---------------------------
parts=()
for i in "${!LONG_TEXTS[@]}"; do
  tts "${LONG_VOICES[$i]}" "${LONG_TEXTS[$i]}" "$TMP/long_raw_$i.wav"
  to16k "$TMP/long_raw_$i.wav" "$TMP/long_$i.wav"
  parts+=("$TMP/long_$i.wav")
  if [ "$i" -lt $(( ${#LONG_TEXTS[@]} - 1 )) ]; then
    "${SOX[@]}" -n -r $RATE -c 1 -b 16 -e signed-integer "$TMP/gap_$i.wav" trim 0 $LONG_GAP
    parts+=("$TMP/gap_$i.wav")
  fi
done
"${SOX[@]}" "${parts[@]}" "$OUT/en_long_50s.wav" pad $PAD $PAD

# --- stereo 44.1 kHz copy of en_kal (resampling / downmix test; not a parity clip) ------
"${SOX[@]}" "$OUT/en_kal.wav" -r 44100 -c 2 -b 16 "$OUT/en_kal_stereo44k.wav"

# --- README ----------------------------------------------------------------------------
dur() { printf '%.2f' "$(soxi -D "$OUT/$1")"; }
fmt() { printf '%s Hz, %s ch' "$(soxi -r "$OUT/$1")" "$(soxi -c "$OUT/$1")"; }
voice_name() {
  case "$1" in
    kal) echo "flite kal" ;; slt) echo "flite slt" ;; awb) echo "flite awb" ;;
    rms) echo "flite rms" ;; fest) echo "festival cmu_us_slt_arctic_hts" ;;
  esac
}
{
  cat <<'EOF'
# Speech test clips

Generated by `scripts/make-clips.sh` (do not edit by hand; rerun the script). All clips are
16 kHz mono 16-bit PCM WAV except `en_kal_stereo44k.wav`. Each TTS utterance is resampled to
16 kHz with sox, peak-normalized to -3 dBFS and padded with 0.25 s of digital silence at both
ends. Reference ("oracle") transcripts from faster-whisper are in `tests/fixtures/parity/`.

| clip | duration (s) | format | voice / content | exact text | parity |
|---|---|---|---|---|---|
EOF
  row() { echo "| \`$1\` | $(dur "$1") | $(fmt "$1") | $2 | $3 | $4 |"; }
  row en_kal.wav           "flite kal (8 kHz diphone voice, upsampled)" "$TEXT_KAL" yes
  row en_slt.wav           "flite slt" "$TEXT_SLT" yes
  row en_awb.wav           "flite awb" "$TEXT_AWB" yes
  row en_rms.wav           "flite rms" "$TEXT_RMS" yes
  row en_fest_slt_hts.wav  "festival cmu_us_slt_arctic_hts (HTS)" "$TEXT_FEST" yes
  row en_espeak.wav        "espeak-ng -v en-us" "$TEXT_ESPEAK" yes
  row pl_espeak.wav        "espeak-ng -v pl (Polish)" "$TEXT_PL" "yes (language=pl, base only)"
  row en_noisy_pink10db.wav "flite slt + pink noise, ${SNR_DB} dB SNR (sox -R, fixed seed)" "$TEXT_NOISY" yes
  row silence_5s.wav       "digital silence (all zeros)" "(none)" yes
  row near_silent_5s.wav   "pink noise at about -60 dBFS RMS (sox -R)" "(none)" yes
  row en_long_50s.wav      "10 sentences, alternating voices, ${LONG_GAP} s pauses (see below)" "see below" yes
  row en_kal_stereo44k.wav "en_kal.wav converted to 44.1 kHz stereo (both channels equal)" "$TEXT_KAL" "no (resampling/downmix only)"
  echo
  echo "## en_long_50s.wav"
  echo
  echo "| # | voice | text |"
  echo "|---|---|---|"
  for i in "${!LONG_TEXTS[@]}"; do
    echo "| $((i + 1)) | $(voice_name "${LONG_VOICES[$i]}") | ${LONG_TEXTS[$i]} |"
  done
  echo
  echo "Full text: ${LONG_TEXTS[*]}"
} > "$OUT/README.md"

# --- texts.json: machine-readable clip -> spoken text (read by gen-parity-fixtures.py) ---
jstr() { local s="${1//\\/\\\\}"; s="${s//\"/\\\"}"; printf '"%s"' "$s"; }
{
  echo "{"
  echo "  \"en_kal.wav\": $(jstr "$TEXT_KAL"),"
  echo "  \"en_slt.wav\": $(jstr "$TEXT_SLT"),"
  echo "  \"en_awb.wav\": $(jstr "$TEXT_AWB"),"
  echo "  \"en_rms.wav\": $(jstr "$TEXT_RMS"),"
  echo "  \"en_fest_slt_hts.wav\": $(jstr "$TEXT_FEST"),"
  echo "  \"en_espeak.wav\": $(jstr "$TEXT_ESPEAK"),"
  echo "  \"pl_espeak.wav\": $(jstr "$TEXT_PL"),"
  echo "  \"en_noisy_pink10db.wav\": $(jstr "$TEXT_NOISY"),"
  echo "  \"silence_5s.wav\": \"\","
  echo "  \"near_silent_5s.wav\": \"\","
  echo "  \"en_long_50s.wav\": $(jstr "${LONG_TEXTS[*]}"),"
  echo "  \"en_kal_stereo44k.wav\": $(jstr "$TEXT_KAL")"
  echo "}"
} > "$OUT/texts.json"

total=$(du -cb "$OUT"/*.wav | tail -1 | cut -f1)
echo "make-clips: wrote $(ls "$OUT"/*.wav | wc -l) clips to $OUT ($total bytes)"
[ "$total" -lt 4000000 ] || die "clips total $total bytes, over the 4 MB budget"
