//! A small mutation fuzzer for the parsers of files the app reads from disk or the network,
//! run by `tests/fuzz.rs` on stable Rust, with no dependency beyond the crate's own.
//!
//! Each case is a valid seed file with 1–6 mutations stacked on it (binary: bit flips, bytes
//! and little-endian u16/u32/u64 fields set to boundary values, truncation, chunks deleted,
//! duplicated, inserted, spliced from another seed; JSON: values replaced with huge, negative
//! or wrongly typed ones, arrays and objects grown, deep nesting, plus the byte mutations).
//! Case `i` of a run depends only on the run's seed, the target's name and `i`, so one case
//! can be replayed on its own. Every case runs on a worker thread under `catch_unwind`, with
//! a deadline (a hang fails the test) and an allocation ceiling (a single allocation bigger
//! than the input could justify aborts the run with the seed and case to replay).
//!
//! Environment:
//! - `WHISPER_DICTATION_FUZZ_SECS`: seconds per target (default 3);
//! - `WHISPER_DICTATION_FUZZ_ITERS`: cases per target at most (default 1,000,000);
//! - `WHISPER_DICTATION_FUZZ_SEED`: the run's seed (default a fixed one, so CI is repeatable);
//! - `WHISPER_DICTATION_FUZZ_CASE`: run only this case (replay; the input is saved first);
//! - `WHISPER_DICTATION_FUZZ_HANG_SECS`: one case's deadline (default 10).
//!
//! A failing case's input is written to `target/fuzz-failures/<target>-<seed>-<case>` and its
//! path printed.
#![allow(dead_code)]

pub mod seeds;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const DEFAULT_SEED: u64 = 0x5EED_F00D_2026;

// ---------------------------------------------------------------------------------------------
// The allocation ceiling.

/// The system allocator, refusing on a fuzzing worker thread any single allocation above the
/// ceiling that thread set for the case it runs. Install it in the test binary with
/// `#[global_allocator] static A: fuzzer::Guard = fuzzer::Guard;`.
pub struct Guard;

thread_local! {
    /// 0: not armed (every thread but a worker in a case).
    static CEILING: Cell<usize> = const { Cell::new(0) };
    /// The case being run, for the abort message.
    static CASE: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    static TARGET: Cell<&'static str> = const { Cell::new("") };
}

unsafe impl GlobalAlloc for Guard {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check_size(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        check_size(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        check_size(new_size);
        System.realloc(ptr, layout, new_size)
    }
}

/// Aborts (an allocator must not unwind) with a message saying how to replay the case.
fn check_size(size: usize) {
    let ceiling = CEILING.try_with(Cell::get).unwrap_or(0);
    if ceiling == 0 || size <= ceiling {
        return;
    }
    let (seed, case) = CASE.try_with(Cell::get).unwrap_or((0, 0));
    let mut buf = [0u8; 256];
    let mut w = Writer {
        buf: &mut buf,
        len: 0,
    };
    w.put(b"\nfuzz: a single allocation of ");
    w.num(size as u64);
    w.put(b" bytes (ceiling ");
    w.num(ceiling as u64);
    w.put(b") in target ");
    w.put(TARGET.try_with(Cell::get).unwrap_or("").as_bytes());
    w.put(b", case ");
    w.num(case);
    w.put(b"; replay with WHISPER_DICTATION_FUZZ_SEED=");
    w.num(seed);
    w.put(b" WHISPER_DICTATION_FUZZ_CASE=");
    w.num(case);
    w.put(b"\n");
    let len = w.len;
    // SAFETY: writing an initialised stack buffer to stderr; nothing here allocates.
    unsafe { libc::write(2, buf.as_ptr().cast(), len) };
    std::process::abort();
}

/// Formats into a stack buffer (the allocator cannot allocate to report).
struct Writer<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl Writer<'_> {
    fn put(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.len < self.buf.len() {
                self.buf[self.len] = b;
                self.len += 1;
            }
        }
    }

    fn num(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let copy = digits;
        self.put(&copy[i..]);
    }
}

// ---------------------------------------------------------------------------------------------
// The pseudo-random numbers.

/// SplitMix64: tiny, fast and good enough to pick mutations.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

// ---------------------------------------------------------------------------------------------
// Mutations.

/// How a target's inputs are built, which picks the mutations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Binary,
    /// Mostly structure-aware JSON mutations, sometimes byte ones (invalid JSON matters too).
    Json,
}

const INTERESTING_U8: &[u8] = &[0, 1, 0x7f, 0x80, 0xff, b'{', b'[', b'"', b'\\', b'0'];

fn interesting_u64(rng: &mut Rng, len: usize) -> u64 {
    let len = len as u64;
    let random = rng.next_u64();
    *rng.pick(&[
        0,
        1,
        2,
        0x7f,
        0x80,
        0xff,
        0x100,
        0x7fff,
        0x8000,
        0xffff,
        0x1_0000,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fffe,
        0xffff_ffff,
        0x1_0000_0000,
        0x7fff_ffff_ffff_ffff,
        0x8000_0000_0000_0000,
        u64::MAX,
        len,
        len.wrapping_sub(1),
        len + 1,
        len.wrapping_mul(2),
        random,
    ])
}

/// One byte-level mutation of `data`; `others` are the target's seeds, for splicing.
fn mutate_bytes(rng: &mut Rng, data: &mut Vec<u8>, others: &[Vec<u8>]) {
    let len = data.len();
    match rng.below(12) {
        0 if len > 0 => {
            let at = rng.below(len);
            data[at] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let at = rng.below(len);
            data[at] = *rng.pick(INTERESTING_U8);
        }
        2 if len > 0 => {
            let at = rng.below(len);
            data[at] = rng.next_u64() as u8;
        }
        3 | 4 => {
            // A little-endian field set to a boundary value; often 4-aligned, where headers
            // keep their lengths.
            let width = *rng.pick(&[2usize, 4, 4, 8]);
            if len >= width {
                let mut at = rng.below(len - width + 1);
                if rng.chance(2) {
                    at -= at % 4;
                }
                let value = interesting_u64(rng, len).to_le_bytes();
                data[at..at + width].copy_from_slice(&value[..width]);
            }
        }
        5 if len >= 4 => {
            // Arithmetic on a u32 field: off-by-a-few lengths.
            let at = rng.below(len - 3);
            let mut field = [0u8; 4];
            field.copy_from_slice(&data[at..at + 4]);
            let delta = rng.below(33) as u32;
            let value = if rng.chance(2) {
                u32::from_le_bytes(field).wrapping_add(delta)
            } else {
                u32::from_le_bytes(field).wrapping_sub(delta)
            };
            data[at..at + 4].copy_from_slice(&value.to_le_bytes());
        }
        6 => data.truncate(rng.below(len + 1)),
        7 if len > 0 => {
            let at = rng.below(len);
            let n = chunk_len(rng, len - at);
            data.drain(at..at + n);
        }
        8 if len > 0 => {
            // A chunk copied to another place.
            let at = rng.below(len);
            let n = chunk_len(rng, len - at);
            let chunk = data[at..at + n].to_vec();
            let to = rng.below(data.len() + 1);
            data.splice(to..to, chunk);
        }
        9 => {
            let to = rng.below(len + 1);
            let n = chunk_len(rng, 64);
            let fill: Vec<u8> = if rng.chance(2) {
                (0..n).map(|_| rng.next_u64() as u8).collect()
            } else {
                vec![*rng.pick(INTERESTING_U8); n]
            };
            data.splice(to..to, fill);
        }
        10 if !others.is_empty() => {
            // Splice: this input's head, another seed's tail.
            let other = rng.pick(others);
            let head = rng.below(len + 1);
            let tail = rng.below(other.len() + 1);
            data.truncate(head);
            data.extend_from_slice(&other[tail..]);
        }
        _ if len > 0 => {
            // A run of bytes overwritten with one value.
            let at = rng.below(len);
            let n = chunk_len(rng, len - at);
            let value = *rng.pick(INTERESTING_U8);
            data[at..at + n].fill(value);
        }
        _ => data.push(rng.next_u64() as u8),
    }
}

/// Mostly short chunks, sometimes up to `max`.
fn chunk_len(rng: &mut Rng, max: usize) -> usize {
    if max == 0 {
        return 0;
    }
    let cap = if rng.chance(4) { max } else { max.min(16) };
    1 + rng.below(cap)
}

use serde_json::{Map, Number, Value};

/// A value a careless or hostile writer might put anywhere.
fn hostile_value(rng: &mut Rng) -> Value {
    match rng.below(23) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(2)),
        2 => Value::from(0),
        3 => Value::from(-1),
        4 => Value::from(u64::MAX),
        5 => Value::from(i64::MIN),
        6 => Value::from(u32::MAX as u64 + 1),
        7 => Value::from(1e308),
        8 => Value::from(-1e308),
        9 => Value::from(0.5),
        10 => Value::from(rng.next_u64() >> rng.below(64)),
        11 => Value::String(String::new()),
        12 => Value::String("x".repeat(1 + rng.below(100_000))),
        13 => Value::String("\u{0}\u{ffff}\u{10ffff}é/../..\\".into()),
        14 => Value::Array(Vec::new()),
        15 => Value::Object(Map::new()),
        16 => Value::Array(vec![Value::from(-1); 1 + rng.below(1000)]),
        17 => Value::String("18446744073709551616".into()),
        18 => {
            // Deep nesting, past serde_json's recursion limit or just under it.
            let depth = *rng.pick(&[100usize, 127, 129, 1000]);
            let mut v = Value::from(1);
            for _ in 0..depth {
                v = Value::Array(vec![v]);
            }
            v
        }
        19 => Value::Array(vec![Value::from(u64::MAX), Value::from(u64::MAX)]),
        20 => Value::Number(Number::from_f64(f64::MIN_POSITIVE).expect("finite")),
        21 => Value::from(*rng.pick(&[1u64 << 20, 1 << 24, (1 << 24) + 1, 1 << 31, 1 << 32])),
        _ => Value::String(format!("{}", rng.next_u64())),
    }
}

/// A random node of `value`, chosen by walking down from the root.
fn random_node<'a>(rng: &mut Rng, value: &'a mut Value) -> &'a mut Value {
    let mut node = value;
    loop {
        let children = match &*node {
            Value::Array(a) => a.len(),
            Value::Object(o) => o.len(),
            _ => 0,
        };
        if children == 0 || rng.chance(4) {
            return node;
        }
        let index = rng.below(children);
        node = match node {
            Value::Array(a) => &mut a[index],
            Value::Object(o) => o.values_mut().nth(index).expect("index below len"),
            _ => unreachable!("has children"),
        };
    }
}

/// The number of nodes in `value`, counting no further than `limit`.
fn nodes_up_to(value: &Value, limit: usize) -> usize {
    let mut count = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        count += 1;
        if count >= limit {
            break;
        }
        match v {
            Value::Array(a) => stack.extend(a),
            Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    count
}

/// One structural mutation of a JSON document.
fn mutate_json(rng: &mut Rng, value: &mut Value) {
    let node = random_node(rng, value);
    match rng.below(9) {
        0..=3 => *node = hostile_value(rng),
        4 => match node {
            // Grow an array: its elements repeated (big ones only once, so a case stays
            // about as big as its seed).
            Value::Array(a) if !a.is_empty() => {
                let item = a[rng.below(a.len())].clone();
                let n = if nodes_up_to(&item, 100) < 100 {
                    *rng.pick(&[1usize, 10, 1000])
                } else {
                    1
                };
                let at = rng.below(a.len() + 1);
                a.splice(at..at, std::iter::repeat_n(item, n));
            }
            Value::Object(o) => {
                // Many new keys (e.g. thousands of unknown fields).
                let n = *rng.pick(&[1usize, 10, 1000, 20_000]);
                let tag = rng.next_u64();
                for i in 0..n {
                    o.insert(format!("k{tag:x}_{i}"), Value::from(i));
                }
            }
            other => *other = Value::Array(vec![other.clone(), other.clone()]),
        },
        5 => match node {
            Value::Object(o) if !o.is_empty() => {
                let key = o
                    .keys()
                    .nth(rng.below(o.len()))
                    .cloned()
                    .expect("non-empty");
                if rng.chance(2) {
                    o.remove(&key);
                } else {
                    // The same value under a wrongly spelled key.
                    let v = o.remove(&key).expect("present");
                    o.insert(format!("{key}_"), v);
                }
            }
            Value::Array(a) if !a.is_empty() => {
                let at = rng.below(a.len());
                a.remove(at);
            }
            _ => *node = Value::Null,
        },
        6 => match node {
            // Wrong type, same content.
            Value::Number(n) => *node = Value::String(n.to_string()),
            Value::String(s) => *node = s.parse::<f64>().map_or(Value::Null, Value::from),
            Value::Array(a) => {
                *node = Value::Object(Map::from_iter(
                    a.drain(..).enumerate().map(|(i, v)| (i.to_string(), v)),
                ))
            }
            Value::Object(o) => *node = Value::Array(o.values().cloned().collect()),
            _ => *node = Value::from(rng.next_u64()),
        },
        7 => match node {
            Value::Number(n) => {
                let x = n.as_f64().unwrap_or(0.0);
                let y = *rng.pick(&[-x, x * 1e6, x + 1.0, x - 1.0, x * 0.5]);
                *node = if y.fract() == 0.0 && y.abs() < 9e15 {
                    Value::from(y as i64)
                } else {
                    Number::from_f64(y).map_or(Value::Null, Value::Number)
                };
            }
            Value::String(s) => {
                let n = rng.below(s.len() + 1);
                let cut: String = s.chars().take(n).collect();
                *s = if rng.chance(2) || s.len() > 10_000 {
                    cut
                } else {
                    s.repeat(2 + rng.below(8))
                };
            }
            _ => *node = hostile_value(rng),
        },
        _ => {
            // Nest the node deeper.
            let inner = node.take();
            *node = if rng.chance(2) {
                Value::Array(vec![inner])
            } else {
                Value::Object(Map::from_iter([("v".to_string(), inner)]))
            };
        }
    }
}

/// Case `case` of a run: a seed with 1–6 mutations.
pub fn make_case(rng: &mut Rng, format: Format, seeds: &[Vec<u8>]) -> Vec<u8> {
    let largest = seeds.iter().map(Vec::len).max().unwrap_or(0);
    let mut data = mutated(rng, format, seeds);
    // Some mutations grow the input (duplicated chunks, thousands of keys); keep cases within
    // a few times the seeds' size so that a run spends its time parsing, not building.
    data.truncate(largest.saturating_mul(4).max(1 << 20));
    data
}

fn mutated(rng: &mut Rng, format: Format, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = rng.pick(seeds).clone();
    let rounds = 1 + rng.below(6);
    if format == Format::Json && !rng.chance(4) {
        if let Ok(mut value) = serde_json::from_slice::<Value>(&data) {
            for _ in 0..rounds {
                mutate_json(rng, &mut value);
            }
            data = if rng.chance(2) {
                serde_json::to_vec(&value)
            } else {
                serde_json::to_vec_pretty(&value)
            }
            .expect("a Value serialises");
            // Sometimes also a byte-level change on top.
            if rng.chance(4) {
                mutate_bytes(rng, &mut data, seeds);
            }
            return data;
        }
    }
    for _ in 0..rounds {
        mutate_bytes(rng, &mut data, seeds);
    }
    if format == Format::Json && rng.chance(16) {
        // Raw deep nesting, which a `Value` cannot carry past the recursion limit.
        let at = rng.below(data.len() + 1);
        let depth = *rng.pick(&[200usize, 10_000, 100_000]);
        data.splice(at..at, std::iter::repeat_n(b'[', depth));
    }
    data
}

// ---------------------------------------------------------------------------------------------
// Running.

/// Settings of one run, from the environment.
#[derive(Debug, Clone)]
pub struct Budget {
    pub seed: u64,
    pub time: Duration,
    pub max_cases: u64,
    pub only_case: Option<u64>,
    pub hang: Duration,
}

fn env_u64(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.trim();
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={text} is not a number")))
}

impl Budget {
    pub fn from_env() -> Budget {
        Budget {
            seed: env_u64("WHISPER_DICTATION_FUZZ_SEED").unwrap_or(DEFAULT_SEED),
            time: Duration::from_secs_f64(
                std::env::var("WHISPER_DICTATION_FUZZ_SECS")
                    .ok()
                    .and_then(|s| s.trim().parse::<f64>().ok())
                    .unwrap_or(3.0),
            ),
            max_cases: env_u64("WHISPER_DICTATION_FUZZ_ITERS").unwrap_or(1_000_000),
            only_case: env_u64("WHISPER_DICTATION_FUZZ_CASE"),
            hang: Duration::from_secs(env_u64("WHISPER_DICTATION_FUZZ_HANG_SECS").unwrap_or(10)),
        }
    }
}

/// A fuzzing target: seeds, how to mutate them, and the property each case must have.
pub struct Target {
    pub name: &'static str,
    pub format: Format,
    pub seeds: Vec<Vec<u8>>,
    /// The largest single allocation a case may make: `fixed + per_byte × input length`.
    pub alloc_fixed: usize,
    pub alloc_per_byte: usize,
}

impl Target {
    pub fn new(name: &'static str, format: Format, seeds: Vec<Vec<u8>>) -> Target {
        assert!(!seeds.is_empty(), "{name}: no seeds");
        Target {
            name,
            format,
            seeds,
            alloc_fixed: 64 << 20,
            alloc_per_byte: 64,
        }
    }
}

/// What a run did.
#[derive(Debug)]
pub struct Report {
    pub cases: u64,
    pub elapsed: Duration,
    /// How many cases `check` accepted as valid input (the rest were errors).
    pub accepted: u64,
    /// The slowest case and how long it took.
    pub slowest: (u64, Duration),
}

/// What a case's check says: the input was accepted, or refused with an error that was fine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    Refused,
}

/// Runs `check` on cases of `target` within the budget. Panics (failing the test) on the first
/// case that panics, hangs, or makes `check` return an error, after saving its input.
pub fn run<F>(target: Target, check: F) -> Report
where
    F: Fn(&[u8]) -> Result<Verdict, String> + Send + Sync + 'static,
{
    let budget = Budget::from_env();
    let started = Instant::now();
    let target = Arc::new(target);
    let run_seed = budget.seed ^ fnv1a(target.name);
    let (tx, rx) = mpsc::channel::<Event>();
    // The case in progress and when it started (ms since `started`), for the hang check.
    let progress = Arc::new(AtomicU64::new(u64::MAX));
    let worker = {
        let target = Arc::clone(&target);
        let progress = Arc::clone(&progress);
        let budget = budget.clone();
        std::thread::Builder::new()
            .name(format!("fuzz-{}", target.name))
            .spawn(move || {
                worker(&target, &budget, run_seed, started, &progress, &check, &tx);
            })
            .expect("a worker thread")
    };
    let hang_ms = budget.hang.as_millis() as u64;
    let mut last_case = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(Event::Case { case, input }) => last_case = Some((case, input)),
            Ok(Event::Failed { case, input, why }) => {
                let path = save(target.name, budget.seed, case, &input);
                panic!(
                    "fuzz target `{}`: case {case} {why}\n  input ({} bytes) saved to {}\n  \
                     replay: WHISPER_DICTATION_FUZZ_SEED={} WHISPER_DICTATION_FUZZ_CASE={case} \
                     cargo test --release --test fuzz {}",
                    target.name,
                    input.len(),
                    path.display(),
                    budget.seed,
                    target.name
                );
            }
            Ok(Event::Done(report)) => {
                worker.join().expect("the worker ends");
                eprintln!(
                    "fuzz target `{}`: {} cases ({} accepted) in {:.1} s, seed {}; slowest: \
                     case {} in {:.3} s",
                    target.name,
                    report.cases,
                    report.accepted,
                    report.elapsed.as_secs_f64(),
                    budget.seed,
                    report.slowest.0,
                    report.slowest.1.as_secs_f64()
                );
                return report;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let since = progress.load(Ordering::Relaxed);
                let now = started.elapsed().as_millis() as u64;
                if since != u64::MAX && now.saturating_sub(since) > hang_ms {
                    // Drain to learn which case it is (sent before it started).
                    while let Ok(event) = rx.try_recv() {
                        if let Event::Case { case, input } = event {
                            last_case = Some((case, input));
                        }
                    }
                    let (case, input) = last_case.take().expect("a case was announced");
                    let path = save(target.name, budget.seed, case, &input);
                    panic!(
                        "fuzz target `{}`: case {case} still running after {:?} (a hang)\n  \
                         input ({} bytes) saved to {}\n  replay: WHISPER_DICTATION_FUZZ_SEED={} \
                         WHISPER_DICTATION_FUZZ_CASE={case} cargo test --release --test fuzz {}",
                        target.name,
                        budget.hang,
                        input.len(),
                        path.display(),
                        budget.seed,
                        target.name
                    );
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("fuzz target `{}`: the worker died", target.name)
            }
        }
    }
}

enum Event {
    /// Sent before case `case` runs, with its input (kept only for the hang report).
    Case {
        case: u64,
        input: Vec<u8>,
    },
    Failed {
        case: u64,
        input: Vec<u8>,
        why: String,
    },
    Done(Report),
}

fn worker<F>(
    target: &Target,
    budget: &Budget,
    run_seed: u64,
    started: Instant,
    progress: &AtomicU64,
    check: &F,
    tx: &mpsc::Sender<Event>,
) where
    F: Fn(&[u8]) -> Result<Verdict, String>,
{
    let cases: Box<dyn Iterator<Item = u64>> = match budget.only_case {
        Some(case) => Box::new(std::iter::once(case)),
        None => Box::new(0..budget.max_cases),
    };
    let mut report = Report {
        cases: 0,
        elapsed: Duration::ZERO,
        accepted: 0,
        slowest: (0, Duration::ZERO),
    };
    for case in cases {
        if budget.only_case.is_none() && case > 0 && started.elapsed() >= budget.time {
            break;
        }
        let mut rng = Rng::new(run_seed ^ case.wrapping_mul(0xd6e8_feb8_6659_fd93));
        // Case 0 of each seed is the seed itself: the target must accept its seeds.
        let input = if (case as usize) < target.seeds.len() {
            target.seeds[case as usize].clone()
        } else {
            make_case(&mut rng, target.format, &target.seeds)
        };
        if budget.only_case.is_some() {
            let path = save(target.name, budget.seed, case, &input);
            eprintln!(
                "fuzz: replaying case {case}, input saved to {}",
                path.display()
            );
        }
        // Only a hang needs the input sent ahead; a copy per case is cheap next to parsing.
        let _ = tx.send(Event::Case {
            case,
            input: input.clone(),
        });
        progress.store(started.elapsed().as_millis() as u64, Ordering::Relaxed);
        let ceiling = target
            .alloc_fixed
            .saturating_add(target.alloc_per_byte.saturating_mul(input.len()));
        CASE.with(|c| c.set((budget.seed, case)));
        TARGET.with(|c| c.set(target.name));
        CEILING.with(|c| c.set(ceiling));
        let case_started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&input)));
        CEILING.with(|c| c.set(0));
        let took = case_started.elapsed();
        if took > report.slowest.1 {
            report.slowest = (case, took);
        }
        progress.store(u64::MAX, Ordering::Relaxed);
        report.cases += 1;
        let why = match outcome {
            Ok(Ok(Verdict::Accepted)) => {
                report.accepted += 1;
                None
            }
            Ok(Ok(Verdict::Refused)) => None,
            Ok(Err(why)) if (case as usize) < target.seeds.len() => {
                Some(format!("(a seed, unmutated) was refused: {why}"))
            }
            Ok(Err(why)) => Some(format!("failed its check: {why}")),
            Err(payload) => Some(format!("panicked: {}", panic_message(&*payload))),
        };
        if let Some(why) = why {
            let _ = tx.send(Event::Failed { case, input, why });
            return;
        }
    }
    report.elapsed = started.elapsed();
    let _ = tx.send(Event::Done(report));
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a non-string panic payload)".into())
}

/// Writes a failing input under `target/fuzz-failures/` and returns its path.
fn save(target: &str, seed: u64, case: u64, input: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    let path = dir.join(format!("{target}-{seed}-{case}"));
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, input)) {
        eprintln!("fuzz: cannot save the input to {}: {e}", path.display());
    }
    path
}

/// For checks: an error message must name the file (or URL) it is about.
pub fn names(message: &str, what: &str) -> Result<Verdict, String> {
    if message.contains(what) {
        Ok(Verdict::Refused)
    } else {
        Err(format!("the error `{message}` does not name `{what}`"))
    }
}
