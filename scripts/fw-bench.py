#!/usr/bin/env python3
"""faster-whisper benchmark peer for the Rust benchmark (run as a subprocess).

  fw-bench.py --model DIR [--threads 2] [--language en] [--beam 1] [--repeat N]
              [--timestamps] CLIP...

Loads faster-whisper once (CPU, float32), runs one warm-up transcription, then transcribes
each clip N times (temperature 0, without_timestamps=True unless --timestamps, vad off, condition_on_previous_text
on, language given) and prints one JSON line per clip on stdout:
  {"clip": path, "seconds_median": x, "seconds_min": y, "load_seconds": z, "text": "...",
   "repeat": N, "audio_seconds": d}
Timing covers decoding the audio array through consuming every segment of the generator
(faster-whisper transcribes lazily). WAV files that are 16 kHz mono 16-bit are read with the
standard `wave` module (int16 / 32768, as in the parity fixtures); anything else is handed to
faster-whisper's own decoder. Diagnostics go to stderr; exit status 2 on bad usage/input.
Re-executes itself with ~/.cache/whisper-dictation/pyenv/bin/python when the current
interpreter lacks faster-whisper.
"""
import argparse
import json
import os
import statistics
import sys
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fw_env import reexec_or_exit  # noqa: E402

try:
    import numpy as np
    from faster_whisper import WhisperModel
except ImportError as e:
    reexec_or_exit("fw-bench", e, needs="faster-whisper", code=2)


def die(msg):
    sys.stderr.write(f"fw-bench: error: {msg}\n")
    sys.exit(2)

def load_audio(path):
    """float32 16 kHz mono; plain 16 kHz mono s16 WAVs are read without ffmpeg."""
    try:
        with wave.open(path, "rb") as w:
            if (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16000, 1, 2):
                raw = w.readframes(w.getnframes())
                return np.frombuffer(raw, dtype="<i2").astype(np.float32) / np.float32(32768.0)
    except (wave.Error, EOFError):
        pass
    from faster_whisper import decode_audio
    return decode_audio(path, sampling_rate=16000)

def main():
    ap = argparse.ArgumentParser(description="faster-whisper benchmark peer")
    ap.add_argument("--model", required=True, help="CTranslate2 Whisper model directory")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--language", default="en")
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timestamps", action="store_true",
                    help="decode with timestamp tokens (as the app does; long audio then "
                         "advances by segment instead of by whole 30 s windows)")
    ap.add_argument("clips", nargs="+")
    args = ap.parse_args()
    if args.repeat < 1 or args.beam < 1 or args.threads < 1:
        die("--repeat, --beam and --threads must be >= 1")
    if not os.path.exists(os.path.join(args.model, "model.bin")):
        die(f"{args.model}: no model.bin (expected a CTranslate2 Whisper model directory)")
    for c in args.clips:
        if not os.path.isfile(c):
            die(f"{c}: no such file")

    t0 = time.perf_counter()
    model = WhisperModel(args.model, device="cpu", compute_type="float32",
                         cpu_threads=args.threads, num_workers=1)
    load_seconds = time.perf_counter() - t0
    language = args.language if model.model.is_multilingual else None

    audios = [(c, load_audio(c)) for c in args.clips]

    def transcribe(audio):
        segments, _ = model.transcribe(
            audio, language=language, task="transcribe", beam_size=args.beam, best_of=1,
            temperature=0.0, without_timestamps=not args.timestamps, condition_on_previous_text=True,
            vad_filter=False, initial_prompt=None)
        return "".join(s.text for s in segments).strip()   # consuming does the work

    transcribe(audios[0][1])   # warm-up (allocations, first-run caches)

    for path, audio in audios:
        times, text = [], ""
        for _ in range(args.repeat):
            t = time.perf_counter()
            text = transcribe(audio)
            times.append(time.perf_counter() - t)
        print(json.dumps({
            "clip": path,
            "seconds_median": round(statistics.median(times), 4),
            "seconds_min": round(min(times), 4),
            "load_seconds": round(load_seconds, 4),
            "text": text,
            "repeat": args.repeat,
            "audio_seconds": round(len(audio) / 16000.0, 3),
        }, ensure_ascii=False), flush=True)

if __name__ == "__main__":
    main()
