#!/usr/bin/env python3
"""Generate the reference ("oracle") token fixtures in tests/fixtures/parity/.

For each parity clip and model, faster-whisper (float32, CPU, greedy, temperature 0, no
timestamps, language given) transcribes the clip and we record, per 30 s window:
  * the exact prompt token ids handed to CTranslate2 (including <|startofprev|> + previous
    text on the later windows of the long-form clip),
  * the generated token ids, score, no_speech_prob, and whether faster-whisper kept the
    window's segment or dropped it as "no speech",
  * for every decoding step (including the step that emits <|endoftext|>), the top-2 token
    ids and their log-probabilities, computed from the full-vocabulary logits CTranslate2
    returns with `return_logits_vocab=True`.
Plus faster-whisper's segments (tokens, text, start/end, avg_logprob, no_speech_prob) and
the full text.

The logits come from wrapping the ctranslate2.models.Whisper object faster-whisper holds
(`WhisperModel.model`) in a proxy whose generate() adds return_logits_vocab=True. In
CTranslate2 4.8.5's greedy search the returned logits are copied AFTER all logits
processors ran (suppress_tokens, suppress_blank at the first step), so suppressed ids hold
float32 lowest (-3.4028235e38) and never appear in the top-2; they are raw logits (not
normalized), we apply log_softmax in float64. The script verifies, for every step, that the
argmax of the returned logits is the token faster-whisper emitted, and that a run without
the proxy gives identical tokens.

Usage (from any cwd; idempotent):
  scripts/gen-parity-fixtures.py [--models-dir DIR] [--model base --model tiny.en]
                                 [--clip en_kal.wav ...] [--threads 2]
Needs faster-whisper 1.2.1 / ctranslate2 4.8.5 (re-executes itself with
~/.cache/whisper-dictation/pyenv/bin/python when the current interpreter lacks them).
"""
import argparse
import hashlib
import json
import math
import os
import sys
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fw_env import CLIPS_DIR, DEFAULT_MODELS, ROOT, reexec_or_exit  # noqa: E402

OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "parity")

try:
    import numpy as np
    import ctranslate2
    import faster_whisper
    from faster_whisper import WhisperModel
except ImportError as e:
    reexec_or_exit("gen-parity-fixtures", e)

# clip -> language. English-only models (".en") get every clip whose language is "en".
PARITY_CLIPS = [
    ("en_kal.wav", "en"),
    ("en_slt.wav", "en"),
    ("en_awb.wav", "en"),
    ("en_rms.wav", "en"),
    ("en_fest_slt_hts.wav", "en"),
    ("en_espeak.wav", "en"),
    ("pl_espeak.wav", "pl"),
    ("en_noisy_pink10db.wav", "en"),
    ("silence_5s.wav", "en"),
    ("near_silent_5s.wav", "en"),
    ("en_long_50s.wav", "en"),
]
MODELS = ["base", "tiny.en"]
NEAR_TIE = 1e-3
SUPPRESSED_FLOOR = -1e30   # CTranslate2 writes float32 lowest into disabled logits

TRANSCRIBE_OPTIONS = dict(
    task="transcribe", beam_size=1, best_of=1, temperature=0.0, without_timestamps=True,
    condition_on_previous_text=True, vad_filter=False, suppress_blank=True,
    suppress_tokens=[-1], initial_prompt=None,
)

def die(msg):
    sys.exit(f"gen-parity-fixtures: error: {msg}")

def load_wav(path):
    """16 kHz mono 16-bit PCM -> float32 in [-1, 1) (int16 / 32768), no resampling."""
    with wave.open(path, "rb") as w:
        if (w.getframerate(), w.getnchannels(), w.getsampwidth()) != (16000, 1, 2):
            die(f"{path}: expected 16 kHz mono 16-bit, got {w.getframerate()} Hz, "
                f"{w.getnchannels()} ch, {8 * w.getsampwidth()} bit")
        raw = w.readframes(w.getnframes())
    return np.frombuffer(raw, dtype="<i2").astype(np.float32) / np.float32(32768.0)

class GenerateRecorder:
    """Stands in for faster-whisper's ctranslate2.models.Whisper; records generate() calls."""

    def __init__(self, inner, with_logits):
        self._inner = inner
        self._with_logits = with_logits
        self.calls = []

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def generate(self, features, prompts, **kwargs):
        if self._with_logits:
            kwargs["return_logits_vocab"] = True
        results = self._inner.generate(features, prompts, **kwargs)
        self.calls.append((prompts, dict(kwargs), results))
        return results

def run(model, audio, language, record_logits):
    """One transcription. Returns (segments, info, recorded generate calls, mel windows)."""
    recorder = GenerateRecorder(model.model, record_logits)
    mels = []
    orig_model, orig_encode = model.model, model.encode

    def encode(features):
        mels.append(np.array(features, dtype=np.float32))
        return orig_encode(features)

    model.model, model.encode = recorder, encode
    try:
        segments, info = model.transcribe(audio, language=language, **TRANSCRIBE_OPTIONS)
        segments = list(segments)   # the generator does the work
    finally:
        model.model = orig_model
        del model.encode            # back to the class method
        assert model.encode == orig_encode
    return segments, info, recorder.calls, mels

def step_top2(logits_row):
    x = np.asarray(logits_row, dtype=np.float64)
    finite = x > SUPPRESSED_FLOOR
    m = x[finite].max()
    lse = m + math.log(np.exp(x[finite] - m).sum())
    xs = np.where(finite, x, -np.inf)
    top = np.argpartition(-xs, 2)[:2]
    top = top[np.argsort(-xs[top], kind="stable")]
    i1, i2 = int(top[0]), int(top[1])
    return i1, float(xs[i1] - lse), i2, float(xs[i2] - lse), np.flatnonzero(~finite)

def compact_json(obj, indent=0):
    """JSON with lists of scalars (and lists of such lists' rows) kept on one line."""
    pad = "  " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f'{pad}  {json.dumps(k)}: {compact_json(v, indent + 1)}' for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(v, (dict, list)) for v in obj):
            return json.dumps(obj, ensure_ascii=False)
        items = [f"{pad}  {compact_json(v, indent + 1)}" for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False)

def rnd(x, n=6):
    return None if x is None else round(float(x), n)

def fixture_for(model_name, model_dir, model, clip, language, texts, threads):
    path = os.path.join(CLIPS_DIR, clip)
    if not os.path.exists(path):
        die(f"{path} missing; run scripts/make-clips.sh first")
    audio = load_wav(path)
    tok = faster_whisper.tokenizer.Tokenizer(
        model.hf_tokenizer, model.model.is_multilingual, task="transcribe",
        language=language if model.model.is_multilingual else "en")

    segments, info, calls, mels = run(model, audio, language, record_logits=True)
    plain_segments, _, plain_calls, _ = run(model, audio, language, record_logits=False)

    # The proxy must not change anything.
    if [c[2][0].sequences_ids for c in calls] != [c[2][0].sequences_ids for c in plain_calls]:
        die(f"{model_name}/{clip}: tokens differ with return_logits_vocab=True")
    if [s.tokens for s in segments] != [s.tokens for s in plain_segments]:
        die(f"{model_name}/{clip}: segments differ with return_logits_vocab=True")
    if len(mels) != len(calls):
        die(f"{model_name}/{clip}: {len(mels)} encoder calls but {len(calls)} generate calls")

    content_frames = model.feature_extractor(audio).shape[-1] - 1
    nb = model.feature_extractor.nb_max_frames
    eot = tok.eot
    kept_seeks = {s.seek for s in segments}
    cfg = json.load(open(os.path.join(model_dir, "config.json")))
    begin_ids = sorted(int(t) for t in cfg.get("suppress_ids_begin", []))
    windows, min_margin, min_where, near_ties = [], math.inf, None, []
    suppress_expanded = None
    for w, ((prompts, kwargs, results), mel) in enumerate(zip(calls, mels)):
        res = results[0]
        seek = w * nb
        tokens = list(res.sequences_ids[0])
        logits = res.logits[0]
        emitted = tokens + ([eot] if len(logits) == len(tokens) + 1 else [])
        if len(logits) != len(emitted):
            die(f"{model_name}/{clip} window {w}: {len(logits)} logit rows for "
                f"{len(tokens)} tokens")
        sup = sorted(int(t) for t in kwargs["suppress_tokens"])
        steps, suppressed_counts = [], []
        for k, row in enumerate(logits):
            i1, lp1, i2, lp2, disabled = step_top2(np.array(row))
            expect = sorted(set(sup) | set(begin_ids)) if k == 0 else sup
            if disabled.tolist() != expect:
                die(f"{model_name}/{clip} window {w} step {k}: disabled ids "
                    f"{sorted(set(disabled.tolist()) ^ set(expect))} differ from the expected "
                    f"suppression")
            nsup = len(disabled)
            if i1 != emitted[k]:
                die(f"{model_name}/{clip} window {w} step {k}: argmax {i1} != emitted "
                    f"{emitted[k]}")
            margin = lp1 - lp2
            if margin < min_margin:
                min_margin, min_where = margin, {"window": w, "step": k}
            if margin < NEAR_TIE:
                near_ties.append({"window": w, "step": k, "top1": i1, "top2": i2,
                                  "margin": margin})
            steps.append([i1, rnd(lp1, 7), i2, rnd(lp2, 7)])
            suppressed_counts.append(nsup)
        if suppress_expanded is None:
            suppress_expanded = sup
        elif sup != suppress_expanded:
            die("suppress_tokens changed between windows")
        gen_kwargs = {k: v for k, v in kwargs.items()
                      if k not in ("suppress_tokens", "return_logits_vocab")}
        segment_size = min(nb, content_frames - seek)
        margins = [s[1] - s[3] for s in steps]
        windows.append({
            "index": w,
            "seek_frames": seek,
            "segment_frames": segment_size,
            "kept": seek in kept_seeks,
            "prompt": [int(t) for t in prompts[0]],
            "generate_kwargs": gen_kwargs,
            "tokens": tokens,
            "ended_with_eot": len(logits) == len(tokens) + 1,
            "text": tok.decode(tokens),
            "score": rnd(res.scores[0], 7),
            "no_speech_prob": rnd(res.no_speech_prob, 7),
            "min_margin": rnd(min(margins), 7) if margins else None,
            "suppressed_per_step": suppressed_counts,
            "mel": {
                "shape": list(mel.shape),
                "mean": rnd(mel.mean(), 6), "min": rnd(mel.min(), 6), "max": rnd(mel.max(), 6),
                "mean_per_bin": [rnd(v, 5) for v in mel.reshape(mel.shape[-2], -1).mean(axis=1)],
            },
            "steps": steps,
        })

    full_text = "".join(s.text for s in segments).strip()
    return {
        "schema": 1,
        "generator": "scripts/gen-parity-fixtures.py",
        "model": model_name,
        "clip": clip,
        "clip_sha256": hashlib.sha256(open(path, "rb").read()).hexdigest(),
        "clip_samples": int(audio.shape[0]),
        "clip_seconds": round(audio.shape[0] / 16000.0, 4),
        "spoken_text": texts.get(clip, ""),
        "oracle": {
            "faster_whisper": faster_whisper.__version__,
            "ctranslate2": ctranslate2.__version__,
            "numpy": np.__version__,
            "device": "cpu", "compute_type": "float32", "cpu_threads": threads,
            "audio_loading": "wave + int16/32768 as float32 array (no ffmpeg, no resampling)",
        },
        "options": dict(TRANSCRIBE_OPTIONS, language=language),
        "detected": {"language": info.language, "language_probability": rnd(info.language_probability)},
        "special_tokens": {
            "sot": tok.sot, "eot": tok.eot, "transcribe": tok.transcribe,
            "translate": tok.translate, "sot_prev": tok.sot_prev, "sot_lm": tok.sot_lm,
            "no_speech": tok.no_speech, "no_timestamps": tok.no_timestamps,
            "timestamp_begin": tok.timestamp_begin,
            "language": tok.language if model.model.is_multilingual else None,
            "blank_ids_suppressed_at_first_step": begin_ids,
        },
        "suppress_tokens_expanded": suppress_expanded,
        "text": full_text,
        "segments": [{
            "id": s.id, "seek": s.seek, "start": rnd(s.start, 3), "end": rnd(s.end, 3),
            "text": s.text, "tokens": list(s.tokens),
            "avg_logprob": rnd(s.avg_logprob, 7), "no_speech_prob": rnd(s.no_speech_prob, 7),
            "compression_ratio": rnd(s.compression_ratio, 5), "temperature": s.temperature,
        } for s in segments],
        "content_frames": int(content_frames),
        "min_margin": rnd(min_margin, 7) if min_margin != math.inf else None,
        "min_margin_at": min_where,
        "near_ties": [dict(t, margin=rnd(t["margin"], 7)) for t in near_ties],
        "notes": {
            "steps_format": "windows[i].steps[k] = [top1_id, top1_logprob, top2_id, top2_logprob] "
                            "for generated step k (k = 0 is the first token after the prompt; the "
                            "last step is the one that emitted <|endoftext|> when ended_with_eot). "
                            "top1_id is always the emitted token (verified). Margin = top1_logprob "
                            "- top2_logprob; near_ties lists steps with margin < 1e-3.",
            "logits": "Taken from CTranslate2 generate(return_logits_vocab=True), which copies the "
                      "logits AFTER suppression: suppress_tokens_expanded at every step, plus "
                      "blank_ids_suppressed_at_first_step (config.json suppress_ids_begin) at step "
                      "0 only (suppress_blank); verified exactly at every step. Suppressed "
                      "entries hold float32 lowest and are excluded; log_softmax over the rest in "
                      "float64. Timestamp tokens are NOT suppressed (<|notimestamps|> mode applies "
                      "no timestamp rules), so they can appear as top-2.",
            "suppressed_per_step": "number of vocabulary entries disabled at that step",
            "windows": "faster-whisper without_timestamps: one generate() per 30 s window of "
                       "mel frames (seek_frames advances by 3000 frames = 30 s); the window's "
                       "segment is dropped ('kept': false) when no_speech_prob > 0.6 and "
                       "avg_logprob < -1.0. Later windows' prompt = <|startofprev|> + previous "
                       "kept tokens (last 223) + sot sequence + <|notimestamps|>.",
            "features": "faster-whisper mel: audio + 160 zero samples, STFT over the clip only, "
                        "log10 clamp at (max - 8) over the clip, (x + 4) / 4; the window is then "
                        "zero-padded IN THE LOG-MEL DOMAIN to 3000 frames (pad_or_trim). This is "
                        "unlike openai-whisper, which pads the waveform with 30 s of zeros before "
                        "the STFT. mel.* summarizes the padded [80, 3000] encoder input.",
            "text": "text = concatenation of segment texts, stripped; segments[].text as "
                    "faster-whisper returned it (leading space).",
        },
        "windows": windows,
    }

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models-dir", default=DEFAULT_MODELS)
    ap.add_argument("--model", action="append", choices=MODELS)
    ap.add_argument("--clip", action="append", help="only these clip file names")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    texts_path = os.path.join(CLIPS_DIR, "texts.json")
    if not os.path.exists(texts_path):
        die(f"{texts_path} missing; run scripts/make-clips.sh first")
    texts = json.load(open(texts_path, encoding="utf-8"))

    summary = []
    for model_name in args.model or MODELS:
        model_dir = os.path.join(args.models_dir, model_name)
        if not os.path.exists(os.path.join(model_dir, "model.bin")):
            die(f"model {model_dir} missing (see shared/notes/test-models.md)")
        model = WhisperModel(model_dir, device="cpu", compute_type="float32",
                             cpu_threads=args.threads)
        english_only = not model.model.is_multilingual
        os.makedirs(os.path.join(OUT_DIR, model_name), exist_ok=True)
        for clip, language in PARITY_CLIPS:
            if args.clip and clip not in args.clip:
                continue
            if english_only and language != "en":
                continue
            fx = fixture_for(model_name, model_dir, model, clip, language, texts, args.threads)
            out = os.path.join(OUT_DIR, model_name, clip.rsplit(".", 1)[0] + ".json")
            with open(out + ".tmp", "w", encoding="utf-8") as f:
                f.write(compact_json(fx) + "\n")
            os.replace(out + ".tmp", out)
            summary.append((model_name, clip, fx["min_margin"], len(fx["near_ties"]), fx["text"]))
            print(f"{model_name:8s} {clip:24s} min_margin={fx['min_margin']} "
                  f"near_ties={len(fx['near_ties'])} windows={len(fx['windows'])} "
                  f"text={fx['text']!r}", flush=True)
        del model
    write_readme()
    return summary

def write_readme():
    """tests/fixtures/parity/README.md, rebuilt from every fixture present."""
    rows = []
    for model_name in MODELS:
        d = os.path.join(OUT_DIR, model_name)
        if not os.path.isdir(d):
            continue
        for clip, _ in PARITY_CLIPS:
            f = os.path.join(d, clip.rsplit(".", 1)[0] + ".json")
            if not os.path.exists(f):
                continue
            fx = json.load(open(f, encoding="utf-8"))
            kept = sum(w["kept"] for w in fx["windows"])
            text = fx["text"].replace("|", "\\|") or "(empty)"
            rows.append(f"| {model_name} | `{clip}` | {fx['options']['language']} | "
                        f"{len(fx['windows'])} / {kept} | {fx['min_margin']} | "
                        f"{len(fx['near_ties'])} | {text} |")
    with open(os.path.join(OUT_DIR, "README.md"), "w", encoding="utf-8") as f:
        f.write("""# Reference ("oracle") token fixtures

Generated by `scripts/gen-parity-fixtures.py` from the clips in `../clips/` with
faster-whisper 1.2.1 / CTranslate2 4.8.5, CPU, float32, 2 threads, greedy (beam 1),
temperature 0 (no fallback), `without_timestamps=True`, `condition_on_previous_text=True`,
`vad_filter=False`, `suppress_blank=True`, `suppress_tokens=[-1]`, language given. Audio is
read with `wave` as int16 / 32768 (no ffmpeg). Do not edit by hand; rerun the script
(output is byte-identical across runs on the same machine).

One JSON per `<model>/<clip>.json`. Each file's `notes` object documents the fields; the key
ones for a token-parity test are `windows[i].prompt`, `windows[i].tokens` and
`windows[i].steps[k] = [top1_id, top1_logprob, top2_id, top2_logprob]` (one row per generated
step, including the step that produced `<|endoftext|>`; log-probs AFTER suppression of
`suppress_tokens_expanded`, plus `blank_ids_suppressed_at_first_step` at step 0 only).
A difference between our tokens and the reference at step k is a numerical near-tie when
`top1_logprob - top2_logprob < 1e-3` at that step. For scale: rerunning the reference with 1
instead of 2 threads moves these log-probs by at most about 4e-6 (base) and not at all (tiny.en).

`windows` = 30 s windows / windows whose segment faster-whisper kept (it drops a window as
"no speech" when no_speech_prob > 0.6 and avg_logprob < -1).

Reference behaviour worth knowing (it is what the oracle does, so parity means matching it):
- `silence_5s.wav` on base yields the classic hallucination " you": no_speech_prob 0.74 but
  avg_logprob -0.965 > -1, so faster-whisper keeps it. Near-silent noise on base and both
  silent clips on tiny.en give the same kind of one-token guess, dropped as no speech.
- `en_long_50s.wav`: in no-timestamps mode window 0 (0-30 s) stops after the first sentence,
  so sentences 2-6 are missing from the reference text on both models (sentence 6 also
  straddles the 30 s boundary). With timestamps (`without_timestamps=False`) faster-whisper
  gets all ten sentences; this clip is a token-parity fixture, not a WER target.
- Faster-whisper computes the log-mel over the clip only and zero-pads the log-mel to 3000
  frames (see `notes.features` in each file); openai-whisper pads the waveform instead.

| model | clip | lang | windows / kept | min top-2 margin | steps < 1e-3 | reference text |
|---|---|---|---|---|---|---|
""" + "\n".join(rows) + "\n")

if __name__ == "__main__":
    main()
