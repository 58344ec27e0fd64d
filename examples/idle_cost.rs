//! What the app costs while it waits: the real app binary on the virtual desktop (Xvfb, a tray,
//! the fake microphone), started with the microphone kept open and with it opened only on
//! demand. For each: launch → hotkey live and launch → ready (from its log), one dictation,
//! then idle CPU (of one core), wake-ups per second (context switches of all its threads),
//! threads and resident size over a window with the model loaded; then, once the app has
//! unloaded the model (`unload_model_after_secs`), the same again, and a dictation that reloads
//! it at key-down (its key-up → pasted). The busiest threads by wake-ups are listed by name, so
//! a new periodic wake-up shows where it is.
//!
//!     cargo build --release && cargo run --release --example idle_cost -- \
//!         [--window SECS (60)] [--unload-after SECS (20)] [--mic open|closed|both (both)]
//!         [--app PATH (target/release/whisper-dictation)]
//!
//! Read from /proc (Linux): CPU = utime + stime of the process, wake-ups = the sum over its
//! threads of voluntary and involuntary context switches. Asserts nothing about figures.

#[path = "../tests/rig/mod.rs"]
mod rig;

use rig::{AppProcess, Desktop};
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant};

const HOTKEY: &str = "ctrl+alt+space";
const READY_TIMEOUT: Duration = Duration::from_secs(180);
/// Left after a dictation or an unload before measuring: the app's last work settles.
const SETTLE: Duration = Duration::from_secs(5);

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("idle_cost failed: {message}");
            ExitCode::FAILURE
        }
    }
}

struct Options {
    app: Option<PathBuf>,
    window: Duration,
    unload_after: u64,
    mics: Vec<bool>,
}

fn options() -> Result<Options, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let number = |name: &str, default: u64| -> Result<u64, String> {
        value(name).map_or(Ok(default), |v| {
            v.parse().map_err(|_| format!("{name} {v}: not a number"))
        })
    };
    let mics = match value("--mic").as_deref() {
        None | Some("both") => vec![true, false],
        Some("open") => vec![true],
        Some("closed") => vec![false],
        Some(other) => return Err(format!("--mic {other}: open, closed or both")),
    };
    Ok(Options {
        app: value("--app").map(PathBuf::from),
        window: Duration::from_secs(number("--window", 60)?),
        unload_after: number("--unload-after", 20)?,
        mics,
    })
}

fn run() -> Result<(), String> {
    let options = options()?;
    let exe = std::env::current_exe().map_err(|e| format!("where am I: {e}"))?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("this program must lie in target/<profile>/examples/")?
        .to_path_buf();
    let app_bin = options
        .app
        .clone()
        .unwrap_or_else(|| profile_dir.join("whisper-dictation"));
    if !app_bin.is_file() {
        return Err(format!(
            "no app binary at {} (cargo build --release)",
            app_bin.display()
        ));
    }
    let out = profile_dir
        .parent()
        .ok_or("no target folder")?
        .join("idle-cost");
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    rig::check_tools().map_err(|e| e.to_string())?;
    let mut desktop = Desktop::start(&out.join("rig")).map_err(|e| e.to_string())?;
    println!("CPU: {}", cpu_name());
    println!(
        "window {} s per figure, unload after {} s idle; logs in {}",
        options.window.as_secs(),
        options.unload_after,
        out.display()
    );
    let mut rows = Vec::new();
    for (n, &keep_open) in options.mics.iter().enumerate() {
        let state = out.join(format!("state-{n}"));
        write_settings(&state, keep_open, options.unload_after)?;
        rows.extend(measure_app(
            &desktop, &app_bin, &state, keep_open, &options,
        )?);
    }
    println!();
    println!("| microphone | model | CPU (of one core) | wake-ups/s | threads | resident |");
    println!("|---|---|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} | {} | {:.3} % | {:.1} | {} | {} MB |",
            row.mic, row.model, row.cpu_percent, row.wakeups, row.threads, row.resident_mb
        );
    }
    desktop.stop().map_err(|e| e.to_string())?;
    Ok(())
}

struct Row {
    mic: &'static str,
    model: &'static str,
    cpu_percent: f64,
    wakeups: f64,
    threads: usize,
    resident_mb: u64,
}

fn measure_app(
    desktop: &Desktop,
    app_bin: &Path,
    state: &Path,
    keep_open: bool,
    options: &Options,
) -> Result<Vec<Row>, String> {
    let mic = if keep_open { "kept open" } else { "on demand" };
    println!("\n== microphone {mic}");
    let launched = Instant::now();
    let mut app = desktop
        .spawn_app(
            app_bin,
            [
                (
                    "WHISPER_DICTATION_STATE_DIR",
                    state.to_string_lossy().as_ref(),
                ),
                ("WHISPER_DICTATION_LOG", "info"),
                ("WHISPER_DICTATION_UI_LANG", "en"),
                // As the launch-at-login entry, the desktop entry and the bundle start it
                // (login_item's DESKTOP_EXEC_PREFIX, Info.plist's LSEnvironment): without it
                // the app starts itself again to set it, a second start of libtorch.
                ("OMP_WAIT_POLICY", "PASSIVE"),
            ],
            [] as [&str; 0],
        )
        .map_err(|e| e.to_string())?;
    let live = app
        .wait_for_log("hotkey live", READY_TIMEOUT)
        .map(|_| launched.elapsed())
        .ok();
    if std::env::var_os("IDLE_COST_NO_MODEL").is_some() {
        // The app without a model (settings name none that exists): what it holds by itself.
        thread::sleep(SETTLE);
        let row = measure(&app, mic, "never loaded", options.window)?;
        app.stop().map_err(|e| e.to_string())?;
        return Ok(vec![row]);
    }
    let ready = app
        .wait_for_log("app ready", READY_TIMEOUT)
        .map_err(|e| e.to_string())?;
    println!(
        "launch → hotkey live {} (seen from outside); the app's own line: {}",
        live.map_or("not logged".into(), |d| format!("{:.2} s", d.as_secs_f64())),
        ready
    );
    dictate(desktop, &mut app)?;
    thread::sleep(SETTLE);
    let mut rows = vec![measure(&app, mic, "loaded", options.window)?];
    if options.unload_after > 0 {
        let unloaded = app
            .wait_for_log(
                "model unloaded",
                Duration::from_secs(options.unload_after) + Duration::from_secs(120),
            )
            .map_err(|e| e.to_string())?;
        println!("{unloaded}");
        thread::sleep(SETTLE);
        rows.push(measure(&app, mic, "unloaded", options.window)?);
        let done = dictate(desktop, &mut app)?;
        println!("first dictation after the unload: {done}");
    }
    app.stop().map_err(|e| e.to_string())?;
    Ok(rows)
}

/// Holds the hotkey while the sample plays and returns the app's `dictation done` line.
fn dictate(desktop: &Desktop, app: &mut AppProcess) -> Result<String, String> {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/sample.wav");
    desktop.key_down(HOTKEY).map_err(|e| e.to_string())?;
    thread::sleep(Duration::from_millis(200));
    let played = desktop
        .play(&sample)
        .and_then(|mut p| p.wait(Duration::from_secs(60)))
        .map_err(|e| e.to_string());
    thread::sleep(Duration::from_millis(150));
    desktop.key_up(HOTKEY).map_err(|e| e.to_string())?;
    played?;
    let done = app
        .wait_for_log("dictation ", Duration::from_secs(120))
        .map_err(|e| e.to_string())?;
    Ok(
        field(&done, "key_up_to_pasted_ms").map_or(done.clone(), |ms| {
            format!(
                "key-up → pasted {ms} ms ({})",
                field(&done, "text").unwrap_or_default()
            )
        }),
    )
}

fn field(line: &str, key: &str) -> Option<String> {
    rig::log_field(line, key)
}

/// Idle figures of the app over `window`.
fn measure(
    app: &AppProcess,
    mic: &'static str,
    model: &'static str,
    window: Duration,
) -> Result<Row, String> {
    let pid = app.pid();
    let before = Sample::take(pid)?;
    let started = Instant::now();
    thread::sleep(window);
    let after = Sample::take(pid)?;
    let secs = started.elapsed().as_secs_f64();
    let ticks = ticks_per_second();
    let cpu_percent = (after.cpu_ticks - before.cpu_ticks) as f64 / ticks / secs * 100.0;
    let switches = |s: &Sample| s.threads.values().map(|t| t.1).sum::<u64>();
    // Threads that ended in the window are missing from `after`: count what they did before.
    let wakeups = switches(&after).saturating_sub(
        before
            .threads
            .iter()
            .filter(|(tid, _)| after.threads.contains_key(*tid))
            .map(|(_, t)| t.1)
            .sum(),
    ) as f64
        / secs;
    let mut busiest: Vec<(String, f64, f64)> = after
        .threads
        .iter()
        .map(|(tid, (name, n, cpu))| {
            let (was, cpu_was) = before.threads.get(tid).map_or((0, 0), |t| (t.1, t.2));
            (
                format!("{name} ({tid})"),
                (n - was) as f64 / secs,
                (cpu - cpu_was) as f64 / ticks / secs * 100.0,
            )
        })
        .filter(|(_, rate, _)| *rate > 0.0)
        .collect();
    busiest.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!(
        "{model}: CPU {cpu_percent:.3} % of a core, {wakeups:.1} wake-ups/s, {} threads, {} MB resident",
        after.threads.len(),
        after.resident_mb
    );
    for (name, rate, cpu) in busiest.iter().take(8) {
        println!("    {rate:7.1}/s {cpu:6.2} %  {name}");
    }
    println!("  resident by mapping:");
    for (name, kb) in resident_by_mapping(pid).iter().take(8) {
        println!("    {:7.1} MB  {name}", *kb as f64 / 1024.0);
    }
    Ok(Row {
        mic,
        model,
        cpu_percent,
        wakeups,
        threads: after.threads.len(),
        resident_mb: after.resident_mb,
    })
}

/// The process's CPU time and its threads' context switches at one moment.
struct Sample {
    cpu_ticks: u64,
    /// Thread id → (name, voluntary + involuntary context switches, CPU ticks).
    threads: HashMap<u32, (String, u64, u64)>,
    resident_mb: u64,
}

impl Sample {
    fn take(pid: u32) -> Result<Sample, String> {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_err(|e| format!("the app (pid {pid}) is gone: {e}"))?;
        let cpu_ticks = cpu_ticks_of(&stat);
        let mut threads = HashMap::new();
        for entry in fs::read_dir(format!("/proc/{pid}/task")).map_err(|e| e.to_string())? {
            let Ok(entry) = entry else { continue };
            let Ok(tid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(status) = fs::read_to_string(entry.path().join("status")) else {
                continue;
            };
            let value = |key: &str| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(key))
                    .map(|v| v.trim().to_string())
            };
            let switches = ["voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:"]
                .iter()
                .filter_map(|k| value(k)?.parse::<u64>().ok())
                .sum();
            let ticks = fs::read_to_string(entry.path().join("stat"))
                .ok()
                .map_or(0, |stat| cpu_ticks_of(&stat));
            threads.insert(tid, (value("Name:").unwrap_or_default(), switches, ticks));
        }
        let resident_mb = fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmRSS:"))
                    .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            })
            .map_or(0, |kb| kb / 1024);
        Ok(Sample {
            cpu_ticks,
            threads,
            resident_mb,
        })
    }
}

/// utime + stime of a `stat` file's text (fields 14 and 15 of proc(5), after the command's ")").
fn cpu_ticks_of(stat: &str) -> u64 {
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let number = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    number(11) + number(12)
}

/// Resident kB per mapped file (anonymous memory as `[anon]`), largest first: where the
/// resident size is.
fn resident_by_mapping(pid: u32) -> Vec<(String, u64)> {
    let Ok(smaps) = fs::read_to_string(format!("/proc/{pid}/smaps")) else {
        return Vec::new();
    };
    let mut by: HashMap<String, u64> = HashMap::new();
    let mut current = String::new();
    for line in smaps.lines() {
        let mut fields = line.split_whitespace();
        let first = fields.next().unwrap_or_default();
        if first.contains('-') && !first.ends_with(':') {
            // "start-end perms offset dev inode [path]"
            current = fields.nth(4).unwrap_or("[anon]").to_string();
        } else if first == "Private_Dirty:" && std::env::var_os("IDLE_COST_DIRTY").is_some() {
            let kb: u64 = fields.next().and_then(|v| v.parse().ok()).unwrap_or(0);
            *by.entry(format!("{current} (dirty)")).or_default() += kb;
        } else if first == "Rss:" {
            let kb: u64 = fields.next().and_then(|v| v.parse().ok()).unwrap_or(0);
            *by.entry(current.clone()).or_default() += kb;
        }
    }
    let mut list: Vec<(String, u64)> = by.into_iter().collect();
    list.sort_by_key(|entry| std::cmp::Reverse(entry.1));
    list
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe {
        libc_sysconf(2 /* _SC_CLK_TCK */)
    };
    if ticks > 0 {
        ticks as f64
    } else {
        100.0
    }
}

extern "C" {
    #[link_name = "sysconf"]
    fn libc_sysconf(name: i32) -> i64;
}

fn write_settings(state: &Path, keep_open: bool, unload_after: u64) -> Result<(), String> {
    fs::create_dir_all(state).map_err(|e| e.to_string())?;
    let mut settings = serde_json::json!({
        "hotkey": HOTKEY,
        "hotkey_mode": "hold",
        "output": "copy",
        "language": "en",
        "model": if std::env::var_os("IDLE_COST_NO_MODEL").is_some() { "no-such-model" } else { "base" },
        "keep_microphone_open": keep_open,
    });
    if unload_after > 0 {
        settings["unload_model_after_secs"] = unload_after.into();
    }
    fs::write(
        state.join("settings.json"),
        serde_json::to_string_pretty(&settings).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())
}

fn cpu_name() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}
