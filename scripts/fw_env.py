"""Where the project's reference scripts (gen-parity-fixtures.py, gen-word-time-fixtures.py,
fw-bench.py) find faster-whisper and their files: the pyenv that scripts/bench.sh creates, the
app's models folder and the committed test clips. `reexec_or_exit` runs the calling script again
with the pyenv's Python when the current one cannot import faster-whisper."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIPS_DIR = os.path.join(ROOT, "tests", "fixtures", "clips")
PYENV = os.path.expanduser("~/.cache/whisper-dictation/pyenv/bin/python")
DEFAULT_MODELS = os.environ.get(
    "WHISPER_DICTATION_MODELS",
    os.path.expanduser("~/.local/share/whisper-dictation/models"))


def reexec_or_exit(script, error, needs="faster-whisper 1.2.1 + ctranslate2 4.8.5 + numpy",
                   code=1):
    """After a failed import (`error`): exec the pyenv's Python on the same arguments, once;
    else exit naming `script`, the error and what it needs."""
    if os.path.exists(PYENV) and os.path.abspath(sys.executable) != PYENV \
            and not os.environ.get("_WD_REEXEC"):
        os.environ["_WD_REEXEC"] = "1"
        os.execv(PYENV, [PYENV] + sys.argv)
    sys.stderr.write(f"{script}: error: {error}. Run with a Python that has {needs} "
                     f"(e.g. {PYENV}).\n")
    sys.exit(code)
