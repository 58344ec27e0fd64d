#!/usr/bin/env python3
"""Writes tests/fixtures/vad/silero_reference.json: the speech probability of every 512-sample
chunk of some fixture clips, as Silero's own network gives it with the weights the app uses
(src/audio/vad's tests check the Rust port against it).

The network is the silero-vad package's ONNX graph `silero_vad_16k_op15.onnx`, run with
onnxruntime the way the package's OnnxWrapper runs it (64 samples of context, state carried),
with its weights replaced by those of `silero_vad_16k.safetensors`, the file the app loads: the
package's ONNX files carry another checkpoint of the same network (their encoder weights
differ; on en_noisy_pink10db.wav their probabilities differ from the safetensors' by up to 0.17).

Usage: python3 scripts/gen-vad-fixture.py SILERO_VAD_DATA_DIR
  (SILERO_VAD_DATA_DIR: the `silero_vad/data` folder of the silero-vad wheel, 6.2.3; needs
  onnxruntime, onnx and numpy.)
"""
import json
import struct
import sys
import wave
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
from onnx import numpy_helper

ROOT = Path(__file__).resolve().parent.parent
CLIPS = ["en_noisy_pink10db.wav", "en_slt.wav", "silence_5s.wav"]


def read(path):
    with wave.open(str(path)) as w:
        assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return data.astype(np.float32) / 32768.0


def probabilities(session, audio):
    state = np.zeros((2, 1, 128), dtype=np.float32)
    context = np.zeros((1, 64), dtype=np.float32)
    out = []
    for start in range(0, len(audio) - 511, 512):
        chunk = audio[start:start + 512][None, :]
        x = np.concatenate([context, chunk], axis=1)
        prob, state = session.run(None, {"input": x, "state": state,
                                         "sr": np.array(16000, dtype=np.int64)})
        context = x[:, -64:]
        out.append(round(float(prob[0][0]), 6))
    return out


# The ONNX graph's initializers and the safetensors tensors that replace them.
NAMES = {
    "model.stft.forward_basis_buffer": "stft_conv.weight",
    "model.decoder.rnn.weight_ih": "lstm_cell.weight_ih",
    "model.decoder.rnn.weight_hh": "lstm_cell.weight_hh",
    "model.decoder.rnn.bias_ih": "lstm_cell.bias_ih",
    "model.decoder.rnn.bias_hh": "lstm_cell.bias_hh",
    "model.decoder.decoder.2.weight": "final_conv.weight",
    "model.decoder.decoder.2.bias": "final_conv.bias",
    **{f"model.encoder.{i}.reparam_conv.{p}": f"conv{i + 1}.{p}"
       for i in range(4) for p in ("weight", "bias")},
}


def safetensors(path):
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + size])
    data = raw[8 + size:]
    return {name: np.frombuffer(data[t["data_offsets"][0]:t["data_offsets"][1]],
                                dtype="<f4").reshape(t["shape"])
            for name, t in header.items() if name != "__metadata__"}


def main():
    data = Path(sys.argv[1])
    weights = safetensors(data / "silero_vad_16k.safetensors")
    graph = onnx.load(str(data / "silero_vad_16k_op15.onnx"))
    replaced = 0
    for init in graph.graph.initializer:
        if init.name in NAMES:
            init.CopyFrom(numpy_helper.from_array(weights[NAMES[init.name]], init.name))
            replaced += 1
    assert replaced == len(NAMES), replaced
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(graph.SerializeToString(), options,
                                           providers=["CPUExecutionProvider"])
    reference = {clip: probabilities(session, read(ROOT / "tests/fixtures/clips" / clip))
                 for clip in CLIPS}
    out = ROOT / "tests/fixtures/vad/silero_reference.json"
    out.write_text(json.dumps(reference) + "\n")
    print(out, {k: len(v) for k, v in reference.items()})


if __name__ == "__main__":
    main()
