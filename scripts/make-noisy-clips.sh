#!/usr/bin/env bash
# Builds the noisy-room clips of issue 53 from the project's own speech, idempotently, into a
# cache folder (default target/noisy-clips/; not committed: about 8 MB of WAV):
#
#   <kind>_10db.wav  <kind>_5db.wav  <kind>_0db.wav   speech in noise at 10, 5 and 0 dB SNR
#   <kind>_clean.wav                                  the same speech, no noise (digital silence)
#   <kind>_only.wav                                   4 s of the noise alone, no speech
#
# for <kind> in white, pink, brown (sox's noise generators), babble (six other sentences of the
# project's voices talking at once, each looped and time-shifted) and music (a four-chord
# plucked arpeggio over sustained sine chords, made with sox's synth).
#
# Layout of a speech clip: 0.8 s of noise, two sentences with an ordinary 0.6 s pause between
# them (the noise goes on under and between them), then 1.2 s of noise after the last word
# (the case of issue 53: a second of steady noise before key-up). The noise starts at the first
# sample and ends at the last; a clean clip has the same layout in digital silence.
# Each kind has its own two sentences (the clean clip of a kind is the speech of its noisy ones):
#   white: en_slt + "Third, the office will be closed ..."   pink: en_kal + "Finally, ..."
#   brown: en_awb + "First, the new website ..."             babble: en_rms + "Please take ..."
#   music: en_fest_slt_hts + "Maria will post ..."
# (the single-sentence clips of tests/fixtures/clips, and en_long_50s.wav cut at its pauses).
#
# SNR = 20 log10(rms(speech) / rms(noise)): the speech's RMS over its sentences' own samples
# (not the pause between them), the noise's over the same stretch of the clip (speech start to
# speech end). The speech is at the fixture clips' level less 6 dB (headroom for 0 dB SNR) in
# every clip, clean ones included; the noise is scaled to the SNR. A noise-only clip has the
# noise at the level it has in that kind's 5 dB clip. Nothing clips (checked: peak < 1).
#
# Every clip is 16 kHz mono 16-bit PCM and has a JSON file beside it (pink_5db.json, ...):
# its reference text ("" for noise only), noise kind, SNR (null when clean or noise only),
# speech start and end in the clip, each sentence's text and start/end, the speech and noise
# levels (dBFS RMS) and the clip's peak. index.json lists them all.
#
# Deterministic: sox's noise generators run with -R (fixed seeds: the same noise every run),
# no dither (-D); the mixing is done by a small Python 3 script (stdlib only: wave, array,
# json) in fixed order. Needs sox and python3 (scripts/setup.sh --test installs sox; Debian
# and macOS have python3).
#
# Idempotent: a stamp with the checksum of this script, its inputs and the tools' versions;
# when it matches, nothing is rebuilt. Built in a temporary folder and moved into place, under
# a lock (two tests may call it at once).
#
# Usage: scripts/make-noisy-clips.sh [OUT_DIR]     (prints OUT_DIR on success)
# Runs under macOS's /bin/bash 3.2 too: no mapfile, no associative arrays.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/target/noisy-clips}"
CLIPS="$ROOT/tests/fixtures/clips"

die() { echo "make-noisy-clips: error: $*" >&2; exit 1; }
need() {  # need CMD DEBIAN_PACKAGE HOMEBREW_FORMULA
  command -v "$1" >/dev/null 2>&1 \
    || die "'$1' not found; scripts/setup.sh --test installs it (Debian: apt-get install $2; macOS: brew install $3)"
}
need sox sox sox
need python3 python3 python3
need flock util-linux flock
# GNU's sha256sum, or macOS's shasum (same output).
sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }

RATE=16000
SOX=(sox -R -D -V1)               # repeatable (fixed noise seeds), no dither, errors only
PCM=(-r "$RATE" -c 1 -b 16 -e signed-integer)
NOISE_S=60                        # length of each generated noise; clips take its start

# --- up to date? ------------------------------------------------------------------------------
inputs=("${BASH_SOURCE[0]}" "$CLIPS/texts.json" "$CLIPS/en_long_50s.wav")
for f in en_kal en_slt en_awb en_rms en_fest_slt_hts en_espeak; do inputs+=("$CLIPS/$f.wav"); done
stamp_now="$({ sha256 "${inputs[@]}" | cut -d' ' -f1; sox --version 2>&1 || true; python3 --version 2>&1 || true; } | sha256 | cut -d' ' -f1)"
mkdir -p "$(dirname "$OUT")"
exec 9>"$OUT.lock"
flock 9
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$stamp_now" ]; then
  echo "$OUT"
  exit 0
fi

STAGE="$OUT.partial.$$"
rm -rf "$OUT".partial.* && mkdir -p "$STAGE/parts"
trap 'rm -rf "$STAGE"' EXIT

# --- the noises (sox) -------------------------------------------------------------------------
for kind in white pink brown; do
  "${SOX[@]}" -n "${PCM[@]}" "$STAGE/parts/$kind.wav" synth $NOISE_S "${kind}noise" vol 0.5
done
# Music: an 8 s loop of four bars (C, Am, F, G), each a plucked arpeggio of eighth notes
# (0.25 s) over the chord held in sines an octave lower.
arpeggio=(synth 0.25 pluck C4)    # then ": synth 0.25 pluck NOTE" for each next note
for note in E4 G4 C5 G4 E4 C4 E4  A3 C4 E4 A4 E4 C4 A3 C4 \
            F3 A3 C4 F4 C4 A3 F3 A3  G3 B3 D4 G4 D4 B3 G3 B3; do
  arpeggio+=(: synth 0.25 pluck "$note")
done
"${SOX[@]}" -n "${PCM[@]}" "$STAGE/parts/arpeggio.wav" "${arpeggio[@]}"
"${SOX[@]}" -n "${PCM[@]}" "$STAGE/parts/chords.wav" \
  synth 2 sine C3 sine E3 sine G3 remix - fade q 0.1 2 0.4 : \
  synth 2 sine A2 sine C3 sine E3 remix - fade q 0.1 2 0.4 : \
  synth 2 sine F2 sine A2 sine C3 remix - fade q 0.1 2 0.4 : \
  synth 2 sine G2 sine B2 sine D3 remix - fade q 0.1 2 0.4
"${SOX[@]}" -m -v 1 "$STAGE/parts/arpeggio.wav" -v 0.35 "$STAGE/parts/chords.wav" "$STAGE/parts/music.wav"

# --- the speech, the mixing and the JSON (python3, stdlib) ------------------------------------
cat > "$STAGE/parts/mix.py" <<'PYTHON'
import array, json, math, re, sys, wave

clips, stage, parts = sys.argv[1], sys.argv[2], sys.argv[3]
RATE = 16000
LEAD, PAUSE, TAIL = 0.8, 0.6, 1.2   # noise before, pause between the sentences, noise after
ONLY_S = 4.0                        # length of a noise-only clip
SPEECH_GAIN = 0.5                   # -6 dB: headroom for 0 dB SNR
SNRS = [10, 5, 0]
QUIET = 0.001                       # trims and pauses: |sample| at most 0.1 % of full scale


def read(path):
    with wave.open(path, "rb") as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (RATE, 1, 2), path
        data = array.array("h", w.readframes(w.getnframes()))
    if sys.byteorder == "big":
        data.byteswap()
    return [s / 32768.0 for s in data]


def write(path, samples):
    data = array.array("h", (max(-32768, min(32767, int(round(s * 32768.0)))) for s in samples))
    if sys.byteorder == "big":
        data.byteswap()
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(data.tobytes())


def trim(x):
    loud = [i for i, s in enumerate(x) if abs(s) > QUIET]
    return x[loud[0]:loud[-1] + 1]


def rms(x):
    return math.sqrt(sum(s * s for s in x) / max(1, len(x)))


def dbfs(v):
    return round(20 * math.log10(v), 2) if v > 0 else None


texts = json.load(open(f"{clips}/texts.json", encoding="utf-8"))
sentences = {}  # id -> (samples, text)
for i, name in enumerate(["en_kal", "en_slt", "en_awb", "en_rms", "en_fest_slt_hts", "en_espeak"]):
    sentences[f"S{i + 1}"] = (trim(read(f"{clips}/{name}.wav")), texts[f"{name}.wav"])
# en_long_50s.wav: ten sentences, cut at its pauses (>= 0.6 s quiet), its text at ". ".
long = read(f"{clips}/en_long_50s.wav")
long_texts = re.split(r"(?<=[.!?])\s+", texts["en_long_50s.wav"].strip())
pieces, start, quiet_run = [], None, 0
for i, s in enumerate(long + [0.0] * int(0.6 * RATE)):
    if abs(s) > QUIET:
        if start is None:
            start = i
        quiet_run, last_loud = 0, i
    elif start is not None:
        quiet_run += 1
        if quiet_run >= int(0.6 * RATE):
            pieces.append(long[start:last_loud + 1])
            start = None
assert len(pieces) == len(long_texts) == 10, (len(pieces), len(long_texts))
for i, (piece, text) in enumerate(zip(pieces, long_texts)):
    sentences[f"L{i + 1}"] = (piece, text)

SETS = [  # kind, its two sentences
    ("white", ["S2", "L6"]),
    ("pink", ["S1", "L8"]),
    ("brown", ["S3", "L2"]),
    ("babble", ["S4", "L7"]),
    ("music", ["S5", "L5"]),
]
# Babble: six talkers, each saying two sentences none of the sets use, over and over
# (0.3 s apart), each starting at its own point of its loop and at its own level.
TALKERS = [["L1", "L9"], ["L3", "L10"], ["L4", "S6"], ["L9", "L3"], ["L10", "L1"], ["S6", "L4"]]
TALKER_DB = [0.0, -2.0, -1.0, -3.0, -1.5, -2.5]
TALKER_SHIFT_S = [0.0, 1.3, 2.9, 4.1, 5.6, 7.2]


def babble(n):
    out = [0.0] * n
    for said, gain_db, shift in zip(TALKERS, TALKER_DB, TALKER_SHIFT_S):
        loop = []
        for sid in said:
            loop += sentences[sid][0] + [0.0] * int(0.3 * RATE)
        gain = 10 ** (gain_db / 20)
        offset = int(shift * RATE)
        for i in range(n):
            out[i] += gain * loop[(i + offset) % len(loop)]
    return out


def noise(kind, n):
    if kind == "babble":
        return babble(n)
    source = read(f"{parts}/{kind}.wav")
    if kind == "music":
        return [source[i % len(source)] for i in range(n)]
    assert n <= len(source)
    return source[:n]


def mixed(path, speech, noise_track, gain):
    out = [s + gain * v for s, v in zip(speech, noise_track)]
    peak = max(abs(s) for s in out)
    assert peak < 1.0, f"{path} would clip (peak {peak:.3f})"
    write(path, out)
    return peak


index = []
for kind, ids in SETS:
    # The speech track: lead, sentence, pause, sentence, tail.
    speech = [0.0] * int(LEAD * RATE)
    placed, voiced = [], []
    for k, sid in enumerate(ids):
        if k:
            speech += [0.0] * int(PAUSE * RATE)
        samples = [SPEECH_GAIN * s for s in sentences[sid][0]]
        placed.append({"id": sid, "start_s": round(len(speech) / RATE, 4),
                       "end_s": round((len(speech) + len(samples)) / RATE, 4),
                       "text": sentences[sid][1]})
        speech += samples
        voiced += samples
    speech_start, speech_end = int(LEAD * RATE), len(speech)
    speech += [0.0] * int(TAIL * RATE)
    text = " ".join(s["text"] for s in placed)
    s_rms = rms(voiced)
    track = noise(kind, len(speech))
    n_rms = rms(track[speech_start:speech_end])

    def describe(name, snr, noise_rms, peak):
        entry = {
            "clip": f"{name}.wav", "kind": kind, "snr_db": snr, "text": text,
            "seconds": round(len(speech) / RATE, 3),
            "speech_start_s": round(speech_start / RATE, 4),
            "speech_end_s": round(speech_end / RATE, 4),
            "speech_rms_dbfs": dbfs(s_rms), "noise_rms_dbfs": dbfs(noise_rms),
            "peak": round(peak, 4), "sentences": placed,
        }
        with open(f"{stage}/{name}.json", "w", encoding="utf-8") as f:
            json.dump(entry, f, indent=2, ensure_ascii=False)
            f.write("\n")
        index.append({k: entry[k] for k in ("clip", "kind", "snr_db", "seconds", "text")})

    peak = mixed(f"{stage}/{kind}_clean.wav", speech, track, 0.0)
    describe(f"{kind}_clean", None, 0.0, peak)
    for snr in SNRS:
        gain = s_rms / (n_rms * 10 ** (snr / 20))
        peak = mixed(f"{stage}/{kind}_{snr}db.wav", speech, track, gain)
        describe(f"{kind}_{snr}db", snr, gain * n_rms, peak)
        if snr == 5:
            only_gain = gain
    # Noise alone, at its level in the 5 dB clip.
    n = int(ONLY_S * RATE)
    alone = noise(kind, n)
    peak = mixed(f"{stage}/{kind}_only.wav", [0.0] * n, alone, only_gain)
    entry = {"clip": f"{kind}_only.wav", "kind": kind, "snr_db": None, "text": "",
             "seconds": ONLY_S, "speech_start_s": None, "speech_end_s": None,
             "speech_rms_dbfs": None, "noise_rms_dbfs": dbfs(only_gain * rms(alone)),
             "peak": round(peak, 4), "sentences": []}
    with open(f"{stage}/{kind}_only.json", "w", encoding="utf-8") as f:
        json.dump(entry, f, indent=2, ensure_ascii=False)
        f.write("\n")
    index.append({k: entry[k] for k in ("clip", "kind", "snr_db", "seconds", "text")})

with open(f"{stage}/index.json", "w", encoding="utf-8") as f:
    json.dump(index, f, indent=2, ensure_ascii=False)
    f.write("\n")
PYTHON
python3 "$STAGE/parts/mix.py" "$CLIPS" "$STAGE" "$STAGE/parts" || die "mixing failed"

rm -rf "$STAGE/parts"
echo "$stamp_now" > "$STAGE/stamp"
rm -rf "$OUT" && mv "$STAGE" "$OUT"
trap - EXIT
for f in "$OUT"/*.wav; do
  printf 'make-noisy-clips: %s %.2f s\n' "$(basename "$f")" "$(soxi -D "$f" 2>/dev/null || echo 0)" >&2
done
echo "$OUT"
