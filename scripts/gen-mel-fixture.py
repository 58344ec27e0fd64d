#!/usr/bin/env python3
"""Generate the reference fixtures for `src/whisper/mel.rs` under `tests/fixtures/mel/`.

What it writes, and why:

* `filters_80.json`, `filters_128.json`: OpenAI's shipped mel filterbanks
  (`whisper/assets/mel_filters.npz`, made with `librosa.filters.mel(sr=16000, n_fft=400,
  n_mels=N)`), stored sparsely (each row's first nonzero bin and the values up to its last
  nonzero bin; every other entry is exactly 0). `mel.rs` computes the filterbank in code and
  its tests compare against these.
* `<case>.signal.f32`: a tiny deterministic test signal, little-endian f32.
* `<case>.mel<N>.f32`: the log-mel spectrogram of that signal with OpenAI's semantics
  (`log_mel_spectrogram(audio, n_mels=N, padding=N_SAMPLES)` from `whisper/audio.py`, keeping
  only the content frames `len // 160`), computed in float64 numpy and stored as f32,
  row-major [n_mels][n_frames].
* `manifest.json`: the cases, their lengths and frame counts, and where the filterbanks came
  from.

The reference deliberately computes the STFT of ALL frames, including the 30 s of zero
padding, so it does not share the shortcut the Rust code takes for all-zero frames.

Usage (numpy is enough; the venv made by scripts/setup.sh has it):

    ~/.cache/whisper-dictation/pyenv/bin/python scripts/gen-mel-fixture.py [--npz mel_filters.npz]

Without `--npz` it runs `pip download --no-deps openai-whisper==VERSION` into a temporary
folder and reads the npz from the downloaded package.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile

import numpy as np

# whisper/audio.py
SAMPLE_RATE = 16000
N_FFT = 400
HOP_LENGTH = 160
N_SAMPLES = 30 * SAMPLE_RATE
N_FRAMES = N_SAMPLES // HOP_LENGTH

OPENAI_WHISPER_VERSION = "20250625"
NPZ_MEMBER = "whisper/assets/mel_filters.npz"
MEL_SIZES = (80, 128)


def fetch_npz(workdir):
    """Download openai-whisper (no deps) and extract its mel_filters.npz; return its path."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--quiet",
            "-d",
            workdir,
            f"openai-whisper=={OPENAI_WHISPER_VERSION}",
        ],
        check=True,
    )
    for name in os.listdir(workdir):
        archive = os.path.join(workdir, name)
        target = os.path.join(workdir, "mel_filters.npz")
        if name.endswith(".whl"):
            with zipfile.ZipFile(archive) as z, open(target, "wb") as out:
                out.write(z.read(NPZ_MEMBER))
            return target
        if name.endswith(".tar.gz"):
            with tarfile.open(archive) as t:
                for member in t.getmembers():
                    if member.name.endswith(NPZ_MEMBER):
                        with open(target, "wb") as out:
                            out.write(t.extractfile(member).read())
                        return target
    sys.exit(f"no {NPZ_MEMBER} in the downloaded openai-whisper package")


def slaney_mel_filters(n_mels):
    """librosa.filters.mel(sr=16000, n_fft=400, n_mels, htk=False, norm="slaney"), float32.

    The formula `mel.rs` ports; checked here against the npz so a mismatch shows up at
    generation time, not only in the Rust tests.
    """
    f_sp = 200.0 / 3.0
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0

    def hz_to_mel(f):
        return min_log_mel + np.log(f / min_log_hz) / logstep if f >= min_log_hz else f / f_sp

    mels = np.linspace(hz_to_mel(0.0), hz_to_mel(SAMPLE_RATE / 2), n_mels + 2)
    mel_f = np.where(
        mels >= min_log_mel, min_log_hz * np.exp(logstep * (mels - min_log_mel)), f_sp * mels
    )
    fftfreqs = np.fft.rfftfreq(n=N_FFT, d=1.0 / SAMPLE_RATE)
    fdiff = np.diff(mel_f)
    ramps = np.subtract.outer(mel_f, fftfreqs)
    weights = np.zeros((n_mels, N_FFT // 2 + 1), dtype=np.float32)
    for i in range(n_mels):
        lower = -ramps[i] / fdiff[i]
        upper = ramps[i + 2] / fdiff[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_f[2 : n_mels + 2] - mel_f[:n_mels]))[:, np.newaxis]
    return weights


def log_mel_reference(audio, filters):
    """OpenAI's log_mel_spectrogram(audio, padding=N_SAMPLES) in float64; content frames only."""
    x = np.pad(audio.astype(np.float64), (0, N_SAMPLES))
    x = np.pad(x, (N_FFT // 2, N_FFT // 2), mode="reflect")  # torch.stft(center=True)
    n_frames = 1 + (len(x) - N_FFT) // HOP_LENGTH
    idx = np.arange(N_FFT)[None, :] + HOP_LENGTH * np.arange(n_frames)[:, None]
    window = 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(N_FFT) / N_FFT)  # periodic Hann
    spectrum = np.fft.rfft(x[idx] * window, axis=-1)
    magnitudes = (np.abs(spectrum) ** 2)[:-1].T  # stft[..., :-1]
    mel = filters.astype(np.float64) @ magnitudes
    log_spec = np.log10(np.maximum(mel, 1e-10))
    log_spec = np.maximum(log_spec, log_spec.max() - 8.0)
    log_spec = (log_spec + 4.0) / 4.0
    content_frames = log_spec.shape[1] - N_FRAMES
    assert content_frames == len(audio) // HOP_LENGTH
    return log_spec[:, :content_frames]


def test_signals():
    """Tiny deterministic float32 signals, each probing one part of the semantics."""
    rng = np.random.default_rng(1234)
    t = lambda n: np.arange(n) / SAMPLE_RATE  # noqa: E731
    signals = {}
    # A plain tone: most bins sit on the `max - 8` floor.
    signals["tone440"] = 0.5 * np.sin(2 * np.pi * 440 * t(8000))
    # A linear chirp 100 Hz -> 7 kHz over 0.4 s plus noise.
    tt = t(6400)
    chirp = np.sin(2 * np.pi * (100 * tt + 0.5 * (6900 / 0.4) * tt**2))
    signals["chirp_noise"] = 0.3 * chirp + 0.05 * rng.standard_normal(6400)
    # Length not a multiple of 160, quiet noise with a loud burst in the last 100 samples:
    # the global max comes from a frame past the content frames, which OpenAI includes.
    n = 5077
    tail = 0.001 * rng.standard_normal(n)
    tail[-100:] += 0.9 * np.sin(2 * np.pi * 3000 * t(100))
    signals["odd_length_tail_burst"] = tail
    # Digital silence: everything becomes (-10 + 4) / 4 = -1.5.
    signals["silence"] = np.zeros(3200)
    # Very quiet noise: some mel energies fall under the 1e-10 clamp.
    signals["quiet_noise"] = 1e-5 * rng.standard_normal(4000)
    # Barely more than one hop: the left reflect padding reaches into the zero padding.
    signals["short"] = 0.2 * rng.standard_normal(250)
    return {name: s.astype("<f4") for name, s in signals.items()}


def sparse_rows(filters):
    rows = []
    for row in filters:
        nz = np.nonzero(row)[0]
        if len(nz) == 0:
            rows.append({"start": 0, "values": []})
            continue
        lo, hi = int(nz[0]), int(nz[-1])
        rows.append({"start": lo, "values": [float(v) for v in row[lo : hi + 1]]})
    return rows


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--npz", help="OpenAI's whisper/assets/mel_filters.npz")
    parser.add_argument("--out", default=os.path.join(here, "..", "tests", "fixtures", "mel"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        npz_path = args.npz or fetch_npz(tmp)
        with open(npz_path, "rb") as f:
            npz_sha256 = hashlib.sha256(f.read()).hexdigest()
        with np.load(npz_path, allow_pickle=False) as npz:
            filters = {n: npz[f"mel_{n}"] for n in MEL_SIZES}

    os.makedirs(args.out, exist_ok=True)
    for n, bank in filters.items():
        err = np.abs(slaney_mel_filters(n) - bank).max()
        assert err < 1e-6, f"librosa formula differs from mel_{n} by {err}"
        with open(os.path.join(args.out, f"filters_{n}.json"), "w") as f:
            json.dump({"n_mels": n, "n_fft_bins": bank.shape[1], "rows": sparse_rows(bank)}, f)

    cases = []
    for name, signal in test_signals().items():
        signal.tofile(os.path.join(args.out, f"{name}.signal.f32"))
        case = {"name": name, "n_samples": len(signal), "n_frames": len(signal) // HOP_LENGTH}
        for n, bank in filters.items():
            log_mel_reference(signal, bank).astype("<f4").tofile(
                os.path.join(args.out, f"{name}.mel{n}.f32")
            )
        cases.append(case)

    manifest = {
        "generator": "scripts/gen-mel-fixture.py",
        "source": f"openai-whisper=={OPENAI_WHISPER_VERSION} {NPZ_MEMBER}",
        "mel_filters_npz_sha256": npz_sha256,
        "n_mels": list(MEL_SIZES),
        "layout": "<case>.signal.f32 and <case>.mel<N>.f32: little-endian f32; mel row-major [n_mels][n_frames]",
        "cases": cases,
    }
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
