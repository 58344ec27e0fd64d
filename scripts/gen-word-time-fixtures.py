#!/usr/bin/env python3
"""Generate tests/fixtures/word-times.json: faster-whisper's word times, the reference for
tests/word_times.rs (the engine's word times from the cross-attention alignment heads).

For each (model, clip) below, faster-whisper (float32, CPU, greedy: beam 1, temperature 0 with
no fallback, language given, word_timestamps=True, everything else at its defaults) transcribes
the clip, and we record its segments (tokens, text, start/end) and each segment's words (text,
start, end, probability: faster-whisper rounds the times to 0.01 s). Every clip fits in one
30 s window: with word_timestamps=True faster-whisper also moves its next window's start to the
last word's end, which the engine does not do (its windows, and so its words, stay those of a
transcription without word times).

Clips: the short English clips of tests/fixtures/clips, and two built by
scripts/make-long-clips.sh (run here; deterministic): long_25s_nopause.wav (speech with every
pause over 0.12 s removed) and long_25s_pauses.wav. Each entry records the clip's sha256 so the
test can tell a rebuilt clip that differs from the one measured here.

Usage (from any cwd; idempotent):
  scripts/gen-word-time-fixtures.py [--models-dir DIR] [--long-clips DIR] [--threads 2]
Needs faster-whisper 1.2.1 / ctranslate2 4.8.5 (re-executes itself with
~/.cache/whisper-dictation/pyenv/bin/python when the current interpreter lacks them).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fw_env import CLIPS_DIR, DEFAULT_MODELS, ROOT, reexec_or_exit  # noqa: E402

OUT = os.path.join(ROOT, "tests", "fixtures", "word-times.json")

try:
    import numpy as np
    import ctranslate2
    import faster_whisper
    from faster_whisper import WhisperModel
except ImportError as e:
    reexec_or_exit("gen-word-time-fixtures", e)

# (model, clip, where): "clips" = tests/fixtures/clips, "long" = make-long-clips.sh's folder.
CASES = [
    ("base", "en_kal.wav", "clips"),
    ("base", "en_slt.wav", "clips"),
    ("base", "en_awb.wav", "clips"),
    ("base", "en_rms.wav", "clips"),
    ("base", "en_fest_slt_hts.wav", "clips"),
    ("base", "long_25s_nopause.wav", "long"),
    ("base", "long_25s_pauses.wav", "long"),
    ("tiny.en", "en_kal.wav", "clips"),
    ("tiny.en", "en_rms.wav", "clips"),
]

OPTIONS = dict(
    language="en", task="transcribe", beam_size=1, best_of=1, temperature=0.0,
    word_timestamps=True, without_timestamps=False, condition_on_previous_text=True,
    vad_filter=False,
)

def die(msg):
    sys.exit(f"gen-word-time-fixtures: error: {msg}")

def load_wav(path):
    """16 kHz mono 16-bit PCM -> float32 in [-1, 1) (int16 / 32768), as the engine's tests."""
    with wave.open(path, "rb") as w:
        if (w.getframerate(), w.getnchannels(), w.getsampwidth()) != (16000, 1, 2):
            die(f"{path}: expected 16 kHz mono 16-bit")
        raw = w.readframes(w.getnframes())
    return np.frombuffer(raw, dtype="<i2").astype(np.float32) / np.float32(32768.0)

def words_json(words):
    return [{"word": w.word, "start": round(float(w.start), 2), "end": round(float(w.end), 2),
             "probability": round(float(w.probability), 4)} for w in words]

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models-dir", default=DEFAULT_MODELS)
    ap.add_argument("--long-clips", default=None,
                    help="folder of make-long-clips.sh's clips (default: build them)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    long_dir = args.long_clips
    if long_dir is None:
        out = subprocess.run([os.path.join(ROOT, "scripts", "make-long-clips.sh")],
                             check=True, capture_output=True, text=True)
        long_dir = out.stdout.strip().splitlines()[-1]

    entries, models = [], {}
    for model_name, clip, where in CASES:
        if model_name not in models:
            model_dir = os.path.join(args.models_dir, model_name)
            if not os.path.exists(os.path.join(model_dir, "model.bin")):
                die(f"model {model_dir} missing (see shared/notes/test-models.md)")
            models[model_name] = WhisperModel(model_dir, device="cpu", compute_type="float32",
                                              cpu_threads=args.threads)
        model = models[model_name]
        path = os.path.join(CLIPS_DIR if where == "clips" else long_dir, clip)
        audio = load_wav(path)
        if audio.shape[0] > 30 * 16000:
            die(f"{clip}: longer than one 30 s window")
        segments, info = model.transcribe(audio, **OPTIONS)
        segments = list(segments)
        entries.append({
            "model": model_name,
            "clip": clip,
            "where": where,
            "clip_sha256": hashlib.sha256(open(path, "rb").read()).hexdigest(),
            "clip_seconds": round(audio.shape[0] / 16000.0, 4),
            "segments": [{
                "start": round(float(s.start), 3), "end": round(float(s.end), 3),
                "text": s.text, "tokens": list(s.tokens), "words": words_json(s.words or []),
            } for s in segments],
        })
        n_words = sum(len(s.words or []) for s in segments)
        print(f"{model_name:8s} {clip:24s} segments={len(segments)} words={n_words} "
              f"text={''.join(s.text for s in segments).strip()!r}", flush=True)

    fixture = {
        "generator": "scripts/gen-word-time-fixtures.py",
        "oracle": {
            "faster_whisper": faster_whisper.__version__,
            "ctranslate2": ctranslate2.__version__,
            "device": "cpu", "compute_type": "float32", "cpu_threads": args.threads,
        },
        "options": OPTIONS,
        "notes": "Times in seconds from the clip's start; faster-whisper rounds word times to "
                 "0.01 s. `where`: clips = tests/fixtures/clips, long = the folder "
                 "scripts/make-long-clips.sh builds (target/long-clips).",
        "entries": entries,
    }
    with open(OUT + ".tmp", "w", encoding="utf-8") as f:
        json.dump(fixture, f, ensure_ascii=False, indent=1)
        f.write("\n")
    os.replace(OUT + ".tmp", OUT)

if __name__ == "__main__":
    main()
