#!/usr/bin/env bash
# Generate the short-reply and noise-only test clips in tests/fixtures/replies/ deterministically.
#
# Eight one- and two-word replies, each in the six voices of scripts/make-clips.sh (flite kal,
# slt, awb, rms; festival's HTS slt; espeak-ng en-us): 16 kHz mono 16-bit PCM, peak-normalized
# to -3 dBFS, 0.25 s of digital silence at both ends, as the speech clips are. And recordings
# with no speech in them (noise, a hum, clicks, a breath, silence) on which Whisper invents
# text ("Thank you.", "you", "I'm sorry."). tests/app_pipeline_replies.rs dictates them all
# through the app's transcription path.
# And six Polish replies in espeak-ng's Polish voice, alike, in tests/fixtures/replies_pl/
# (Whisper's detection among pl,en takes most of them for English: "Nie." typed as "Yeah.").
#   apt-get install flite espeak-ng festival festvox-us-slt-hts sox
# sox runs with -R (fixed noise seeds) and -D (no dither); the TTS engines are deterministic.
#
# Usage: scripts/make-reply-clips.sh        (from any directory; idempotent, overwrites)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/tests/fixtures/replies"

die() { echo "make-reply-clips: error: $*" >&2; exit 1; }
for cmd in sox flite espeak-ng text2wave; do
  command -v "$cmd" >/dev/null 2>&1 || die "'$cmd' not found (apt-get install flite espeak-ng festival festvox-us-slt-hts sox)"
done

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
rm -f "$OUT"/*.wav

SOX=(sox -R -D -V1)
PCM=(-r 16000 -c 1 -b 16 -e signed-integer)
PAD=0.25
VOICES=(kal slt awb rms fest espeak)
REPLIES=("Yes." "Thank you." "Okay." "Done." "Sounds good." "No." "Perfect." "See you tomorrow.")

tts() {  # tts VOICE TEXT OUT
  case "$1" in
    kal|slt|awb|rms) flite -voice "$1" -t "$2" -o "$3" ;;
    fest) printf '%s\n' "$2" > "$TMP/fest.txt"
          text2wave -eval "(voice_cmu_us_slt_arctic_hts)" "$TMP/fest.txt" -o "$3" ;;
    espeak) espeak-ng -v en-us -w "$3" "$2" ;;
    *) die "unknown voice $1" ;;
  esac
  [ -s "$3" ] || die "TTS produced no audio for voice $1"
}

slug() { printf '%s' "$1" | tr 'A-Z ' 'a-z_' | tr -d '.'; }

json="{"
for text in "${REPLIES[@]}"; do
  for voice in "${VOICES[@]}"; do
    name="$(slug "$text")_$voice.wav"
    tts "$voice" "$text" "$TMP/raw.wav"
    "${SOX[@]}" "$TMP/raw.wav" "${PCM[@]}" "$TMP/norm.wav" norm -3
    "${SOX[@]}" "$TMP/norm.wav" "$OUT/$name" pad $PAD $PAD
    json+="
  \"$name\": \"$text\","
  done
done
printf '%s\n}\n' "${json%,}" > "$OUT/texts.json"

# --- no speech ---------------------------------------------------------------------------
"${SOX[@]}" -n "${PCM[@]}" "$OUT/noise_pink_faint_2s.wav" synth 2 pinknoise vol 0.015
"${SOX[@]}" -n "${PCM[@]}" "$OUT/noise_pink_3s.wav" synth 3 pinknoise vol 0.06
"${SOX[@]}" -n "${PCM[@]}" "$OUT/noise_brown_4s.wav" synth 4 brownnoise vol 0.045
"${SOX[@]}" -n "${PCM[@]}" "$OUT/noise_white_2s.wav" synth 2 whitenoise vol 0.03
"${SOX[@]}" -n "${PCM[@]}" "$OUT/noise_hum_50hz_3s.wav" synth 3 sine 50 vol 0.05
"${SOX[@]}" -n "${PCM[@]}" "$TMP/breath.wav" synth 0.6 pinknoise vol 0.3 sinc 200-2500 fade t 0.05 0.6 0.1
"${SOX[@]}" "$TMP/breath.wav" "$OUT/noise_breath.wav" pad 0.5 1.5
"${SOX[@]}" -n "${PCM[@]}" "$TMP/click.wav" synth 0.02 whitenoise vol 0.6 fade t 0 0.02 0.015
"${SOX[@]}" "$TMP/click.wav" "$TMP/click_gap.wav" pad 0 0.45
"${SOX[@]}" "$TMP/click_gap.wav" "$TMP/click_gap.wav" "$TMP/click_gap.wav" "$TMP/click_gap.wav" \
  "$TMP/click_gap.wav" "$OUT/noise_clicks.wav" pad 0.2 0
"${SOX[@]}" -n "${PCM[@]}" "$OUT/silence_2s.wav" trim 0 2
echo "wrote $(ls "$OUT"/*.wav | wc -l) clips to $OUT"

# --- Polish replies ----------------------------------------------------------------------
OUT_PL="$ROOT/tests/fixtures/replies_pl"
REPLIES_PL=("Tak." "Nie." "Nie wiem." "Dobrze." "Dziękuję." "Jasne.")
mkdir -p "$OUT_PL"
rm -f "$OUT_PL"/*.wav
json="{"
for text in "${REPLIES_PL[@]}"; do
  name="$(slug "$(printf '%s' "$text" | iconv -f utf-8 -t ascii//TRANSLIT)")_espeak.wav"
  espeak-ng -v pl -w "$TMP/raw.wav" "$text"
  [ -s "$TMP/raw.wav" ] || die "TTS produced no audio for \"$text\""
  "${SOX[@]}" "$TMP/raw.wav" "${PCM[@]}" "$TMP/norm.wav" norm -3
  "${SOX[@]}" "$TMP/norm.wav" "$OUT_PL/$name" pad $PAD $PAD
  json+="
  \"$name\": \"$text\","
done
printf '%s\n}\n' "${json%,}" > "$OUT_PL/texts.json"
echo "wrote $(ls "$OUT_PL"/*.wav | wc -l) clips to $OUT_PL"
