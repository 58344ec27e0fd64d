//! A new Mac user's machine, as far as scripts/setup.sh can tell on Linux: a throwaway HOME, a
//! copy of the script in a throwaway clone (it links `<clone>/.libtorch`, which must not be the
//! real clone's), and a PATH of only what a Mac has that the script calls (the POSIX tools,
//! unzip) plus stand-ins for the macOS commands: `uname` (Darwin, arm64), `sw_vers` (14.8.7,
//! the macos-14 runner's) and, when asked for, `brew`, which records what it was asked to
//! install and puts a stand-in of each formula's command on PATH as Homebrew would. No sox or
//! shellcheck is on that PATH, as on a fresh Mac.
//!
//! Nothing is downloaded: the real macOS arm64 torch wheel comes from the real download cache,
//! where `scripts/setup.sh --test` keeps it for this test; the Whisper models and actionlint are
//! links to the ones the real set-up installed; pip is told to use no index, so an attempt to
//! download fails loudly instead. `SETUP_REHEARSAL_SCRIPT=<file>` rehearses another version of
//! the script (e.g. an older one from git, to see this test fail on it). The stand-in Mac's
//! bash is the first one on PATH: put a bash 3.2 (macOS's /bin/bash) first to rehearse with it.

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// What the script's Darwin branch runs besides bash builtins and the stand-ins.
const MAC_TOOLS: &[&str] = &[
    "bash", "sh", "env", "dirname", "basename", "mkdir", "ls", "head", "tail", "wc", "tr", "find",
    "sort", "cat", "unzip", "mv", "rm", "ln", "readlink", "touch", "cp", "cut", "grep", "sed",
    "id", "chmod", "date", "tee", "xargs", "od", "stat",
];

pub struct StandInMac {
    dir: tempfile::TempDir,
    pub with_brew: bool,
}

pub struct Run {
    pub output: Output,
    pub took: Duration,
}

impl Run {
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn assert_ok(&self) {
        assert!(
            self.output.status.success(),
            "setup.sh failed ({}):\n{}",
            self.output.status,
            self.stderr()
        );
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn real_dirs() -> directories::ProjectDirs {
    directories::ProjectDirs::from("", "", "whisper-dictation").expect("a home folder")
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

fn write_script(path: &Path, text: &str) {
    let tmp = path.with_extension("partial");
    fs::write(&tmp, text).unwrap();
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o755)).unwrap();
    fs::rename(&tmp, path).unwrap();
}

impl StandInMac {
    pub fn new(with_brew: bool) -> StandInMac {
        let dir = tempfile::tempdir().unwrap();
        let mac = StandInMac { dir, with_brew };
        for sub in ["home", "bin", "brew/bin", "clone/scripts"] {
            fs::create_dir_all(mac.path(sub)).unwrap();
        }
        let script = std::env::var_os("SETUP_REHEARSAL_SCRIPT")
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join("scripts/setup.sh"));
        fs::copy(&script, mac.path("clone/scripts/setup.sh"))
            .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
        mac.lay_path();
        mac.seed_caches();
        mac
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// `~/Library/Caches/whisper-dictation` on the stand-in Mac.
    pub fn cache(&self) -> PathBuf {
        self.path("home/Library/Caches/whisper-dictation")
    }

    pub fn libtorch(&self) -> PathBuf {
        self.cache().join("libtorch-2.13.0")
    }

    pub fn clone_dir(&self) -> PathBuf {
        self.path("clone")
    }

    /// Each `brew` call, one line of arguments.
    pub fn brew_calls(&self) -> Vec<String> {
        fs::read_to_string(self.path("brew.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn lay_path(&self) {
        let bin = self.path("bin");
        for tool in MAC_TOOLS {
            let real =
                on_path(tool).unwrap_or_else(|| panic!("{tool} is not on this machine's PATH"));
            symlink(real, bin.join(tool)).unwrap();
        }
        write_script(
            &bin.join("uname"),
            "#!/bin/sh\n# uname on an Apple Silicon Mac.\ncase \"${1:--s}\" in\n  -s) echo Darwin ;;\n  \
             -m) echo arm64 ;;\n  *) echo \"uname (stand-in): unexpected $*\" >&2; exit 2 ;;\nesac\n",
        );
        // macOS's shasum (a Perl script there): `shasum -a 256 FILE` through this machine's
        // sha256sum, which prints the same line; no sha256sum of its own on the Mac's PATH.
        let sha256sum = on_path("sha256sum").expect("sha256sum on this machine's PATH");
        write_script(
            &bin.join("shasum"),
            &format!(
                "#!/bin/sh\n# shasum on macOS (stand-in).\n[ \"$1\" = -a ] && [ \"$2\" = 256 ] || \
                 {{ echo \"shasum (stand-in): unexpected $*\" >&2; exit 2; }}\nshift 2\n\
                 exec '{}' \"$@\"\n",
                sha256sum.display()
            ),
        );
        write_script(
            &bin.join("sw_vers"),
            "#!/bin/sh\n# sw_vers on macOS 14 (the macos-14 runner's version).\n\
             [ \"$1\" = -productVersion ] || { echo \"sw_vers (stand-in): unexpected $*\" >&2; exit 2; }\n\
             echo 14.8.7\n",
        );
        if self.with_brew {
            let log = self.path("brew.log");
            let brew_bin = self.path("brew/bin");
            write_script(
                &bin.join("brew"),
                &format!(
                    "#!/bin/sh\n# brew: records its arguments; `install` puts each formula's command \
                     on PATH.\nprintf '%s\\n' \"$*\" >> '{log}'\n[ \"$1\" = install ] || exit 0\nshift\n\
                     for f in \"$@\"; do\n  case \"$f\" in -*) continue ;; esac\n  \
                     printf '#!/bin/sh\\necho \"%s (stand-in from brew)\"\\n' \"$f\" > '{bin}'/\"$f\"\n  \
                     chmod +x '{bin}'/\"$f\"\ndone\n",
                    log = log.display(),
                    bin = brew_bin.display()
                ),
            );
        }
    }

    fn seed_caches(&self) {
        let real = real_dirs();
        let downloads = self.cache().join("downloads");
        fs::create_dir_all(&downloads).unwrap();
        let real_downloads = real.cache_dir().join("downloads");
        let wheel = fs::read_dir(&real_downloads)
            .ok()
            .into_iter()
            .flatten()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .find(|n| {
                n.starts_with("torch-2.13.0-cp311-")
                    && n.contains("macosx")
                    && n.ends_with("_arm64.whl")
            })
            .unwrap_or_else(|| {
                panic!(
                    "the macOS arm64 torch 2.13.0 wheel is not in {}: run scripts/setup.sh --test, \
                     which keeps it there for this test",
                    real_downloads.display()
                )
            });
        symlink(real_downloads.join(&wheel), downloads.join(&wheel)).unwrap();
        // The voice-activity model's wheel: the Darwin branch installs it from there.
        let vad_wheel = fs::read_dir(&real_downloads)
            .ok()
            .into_iter()
            .flatten()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .find(|n| n.starts_with("silero_vad-") && n.ends_with(".whl"))
            .unwrap_or_else(|| {
                panic!(
                    "the silero-vad wheel is not in {}: run scripts/setup.sh",
                    real_downloads.display()
                )
            });
        symlink(real_downloads.join(&vad_wheel), downloads.join(&vad_wheel)).unwrap();
        let models = self.path("home/Library/Application Support/whisper-dictation/models");
        fs::create_dir_all(&models).unwrap();
        for model in ["base", "tiny.en"] {
            let installed = real.data_dir().join("models").join(model);
            assert!(
                installed.join(".complete").is_file(),
                "{} is not installed: run scripts/setup.sh --test",
                installed.display()
            );
            symlink(installed, models.join(model)).unwrap();
        }
        let actionlint = real.cache_dir().join("actionlint");
        if actionlint.join("installed").is_file() {
            symlink(actionlint, self.cache().join("actionlint")).unwrap();
        }
    }

    /// Runs the clone's scripts/setup.sh with `args` on the stand-in Mac.
    pub fn setup(&self, args: &[&str]) -> Run {
        let python = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        let python = String::from_utf8(python.stdout).unwrap().trim().to_owned();
        let path = format!(
            "{}:{}",
            self.path("bin").display(),
            self.path("brew/bin").display()
        );
        let start = Instant::now();
        let output = Command::new(self.path("bin/bash"))
            .arg(self.path("clone/scripts/setup.sh"))
            .args(args)
            .env_clear()
            .env("HOME", self.path("home"))
            .env("PATH", path)
            .env("LANG", "C.UTF-8")
            .env("PYTHON", python)
            .env("PIP_NO_INDEX", "1")
            .current_dir(self.clone_dir())
            .output()
            .expect("bash runs");
        let run = Run {
            output,
            took: start.elapsed(),
        };
        eprintln!(
            "--- setup.sh {} ({:.1} s, {}):\n{}",
            args.join(" "),
            run.took.as_secs_f64(),
            run.output.status,
            run.stderr()
        );
        run
    }
}
