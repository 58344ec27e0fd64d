#!/usr/bin/env python3
"""Writes tests/fixtures/tokenizer/expected.json: what the reference Hugging Face `tokenizers`
library makes of the real Whisper tokenizer.json files, for src/whisper/tokenizer.rs to match.

Run with the test venv (it has `tokenizers`):
    ~/.cache/whisper-dictation/pyenv/bin/python scripts/gen-tokenizer-fixture.py [MODELS_DIR]
MODELS_DIR defaults to the app's model folder (the one scripts/setup.sh fills).
Each model's file size is recorded so the Rust test can tell that it is looking at the same file.
"""

import json
import os
import sys
from pathlib import Path

import tokenizers
from tokenizers import Tokenizer

MODELS = ["base", "tiny.en"]

# Plain text a dictation prompt may carry. No "<|...|>" strings: the reference would read those as
# special tokens, while our `encode` deliberately treats all input as plain text.
TEXTS = [
    "",
    "Hello world",
    " Hello world",
    "Hello world.",
    "Zażółć gęślą jaźń",
    " Zażółć gęślą jaźń",
    "ZAŻÓŁĆ GĘŚLĄ JAŹŃ",
    "Wykryto problem kompatybilności z GPU M1.",
    "Konstantynopolitańczykowianeczka",
    "W Szczebrzeszynie chrząszcz brzmi w trzcinie.",
    "The year 2024 had 366 days; pi is 3.14159, and 1,000,000 is a million.",
    "1234567890 12 345 0.5 -7 +3e8",
    "Hello,   world!  ",
    "   ",
    " ",
    "a  b   c    d",
    "line one\nline two\n\n  indented\ttab",
    "\n",
    "\n\n\n",
    "ends with newline\n",
    "windows\r\nline endings\r\n",
    "emoji 😀👍🏽 and a flag 🇵🇱",
    "family 👨\u200d👩\u200d👧 zero-width joiner",
    "don't, it's, we're, they've, I'm, we'll, he'd",
    "DON'T IT'S WE'RE",
    "’curly’ “quotes” — dashes – and… ellipsis",
    "'s 't 're 've 'm 'll 'd''",
    "Привет, мир! Это тест.",
    "日本語のテキストと中文文本",
    "한국어 텍스트",
    "e-mail: jan.kowalski@example.com, https://example.org/a?b=c&d=e#f",
    "C++ & Rust <3 ... --- *** ((nested)) [brackets] {braces}",
    "100\u00a0zł and\u3000ideographic space",
    "tab\tseparated\tvalues",
    "a" * 300,
    " " * 40 + "x",
    "ünïcödé café naïve résumé",
    "♪♪ music ♪♪",
    "M1 GPU, CUDA 12.1, Metal (MPS) and CPU fallback",
]

# Texts whose every prefix of ids is decoded too: cut through multi-byte characters, so the
# decoder's lossy replacement of broken UTF-8 is checked against the reference.
PREFIX_TEXTS = [
    "Zażółć gęślą jaźń",
    "emoji 😀👍🏽 and a flag 🇵🇱",
    "日本語のテキスト",
]

SPECIAL_NAMES = [
    "<|endoftext|>",
    "<|startoftranscript|>",
    "<|startofprev|>",
    "<|startoflm|>",
    "<|nospeech|>",
    "<|nocaptions|>",
    "<|notimestamps|>",
    "<|translate|>",
    "<|transcribe|>",
    "<|0.00|>",
    "<|en|>",
    "<|pl|>",
    "<|he|>",
    "<|iw|>",
    "<|su|>",
    "<|yue|>",
]


def default_models_dir() -> Path:
    # Same folder as `directories::ProjectDirs::from("", "", "whisper-dictation")` (src/paths.rs).
    if sys.platform == "darwin":
        return Path.home() / "Library/Application Support/whisper-dictation/models"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local/share")
    return Path(data) / "whisper-dictation/models"


def model_entry(path: Path) -> dict:
    tok = Tokenizer.from_file(str(path))

    def encode(text):
        return tok.encode(text, add_special_tokens=False).ids

    def decode(ids):
        return tok.decode(ids, skip_special_tokens=False)

    encode_cases = []
    for text in TEXTS:
        ids = encode(text)
        encode_cases.append({"text": text, "ids": ids, "decoded": decode(ids)})

    decode_cases = []
    for text in PREFIX_TEXTS:
        ids = encode(text)
        for end in range(1, len(ids)):
            decode_cases.append({"ids": ids[:end], "text": decode(ids[:end])})

    return {
        "file_bytes": path.stat().st_size,
        "vocab_size_with_added": tok.get_vocab_size(with_added_tokens=True),
        "specials": {name: tok.token_to_id(name) for name in SPECIAL_NAMES},
        "encode": encode_cases,
        "decode": decode_cases,
    }


def write_fixture(out: Path, fixture: dict) -> None:
    # One case per line keeps diffs readable; ids arrays stay compact.
    lines = ["{"]
    lines.append(f'  "generator": {json.dumps(fixture["generator"])},')
    lines.append('  "models": {')
    names = list(fixture["models"])
    for n, name in enumerate(names):
        entry = fixture["models"][name]
        lines.append(f"    {json.dumps(name)}: {{")
        for key in ["file_bytes", "vocab_size_with_added", "specials"]:
            lines.append(f"      {json.dumps(key)}: {json.dumps(entry[key], ensure_ascii=False)},")
        for key in ["encode", "decode"]:
            cases = entry[key]
            lines.append(f"      {json.dumps(key)}: [")
            for c, case in enumerate(cases):
                comma = "," if c + 1 < len(cases) else ""
                lines.append(f"        {json.dumps(case, ensure_ascii=False)}{comma}")
            lines.append("      ]" + ("," if key == "encode" else ""))
        lines.append("    }" + ("," if n + 1 < len(names) else ""))
    lines.append("  }")
    lines.append("}")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    models_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else default_models_dir()
    repo = Path(__file__).resolve().parent.parent
    out = repo / "tests/fixtures/tokenizer/expected.json"

    models = {}
    for name in MODELS:
        path = models_dir / name / "tokenizer.json"
        if not path.is_file():
            print(f"gen-tokenizer-fixture: {path} is missing (run scripts/setup.sh --test)", file=sys.stderr)
            return 1
        models[name] = model_entry(path)

    fixture = {
        "generator": f"scripts/gen-tokenizer-fixture.py, Hugging Face tokenizers {tokenizers.__version__}",
        "models": models,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    write_fixture(out, fixture)
    json.loads(out.read_text(encoding="utf-8"))  # the hand-made layout must still be valid JSON
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
