//! What the history database costs (`whisper_dictation::history`), on a temporary database
//! filled with realistic dictations: Polish and English sentences of varied length (a few
//! words to a long paragraph), built from a fixed seed so every run measures the same data.
//! Prints the time of each `add` while filling (median, p95, max), of opening the filled
//! database (with its quick_check and migration check, and quick_check alone), of the recent
//! entries, of searches (diacritic-free words, prefixes, common words, two words) with how
//! many entries each matches, and of a CSV export. Asserts nothing about time.
//!
//!     cargo run --release --example history_search -- [--entries N (10000)] [--repeat N (200)]

use std::path::Path;
use std::time::{Duration, Instant};

use whisper_dictation::history::{History, NewEntry};

const POLISH: &[&str] = &[
    "Jutro rano mamy spotkanie z zespołem w sprawie nowego projektu",
    "Proszę przesłać mi raport do końca tygodnia",
    "Żółw idzie powoli przez ogród babci",
    "W przyszłym tygodniu jadę służbowo do Łodzi",
    "Zadzwoń do mnie, jak tylko skończysz pracę",
    "Kup mleko, chleb, masło i dwa kilogramy jabłek",
    "To jest naprawdę ważna sprawa i nie może czekać",
    "Spotkanie przeniesiono na czwartek na godzinę piętnastą",
    "Dziękuję za szybką odpowiedź i pozdrawiam serdecznie",
    "Zażółć gęślą jaźń, to zdanie ma wszystkie polskie znaki",
    "Musimy poprawić błędy w dokumentacji przed wydaniem",
    "Pogoda w Krakowie jest dziś wyjątkowo ładna",
    "Nie zapomnij o urodzinach Małgorzaty w sobotę",
    "Faktura została wysłana na adres firmy w Gdańsku",
    "Wieczorem oglądamy film i zamawiamy pizzę",
    "Klient prosi o wycenę do piątku, najlepiej w dwóch wariantach",
    "Pociąg do Wrocławia odjeżdża o szóstej trzydzieści",
    "Sprawdź proszę, czy serwer działa poprawnie po aktualizacji",
];

const ENGLISH: &[&str] = &[
    "Let's schedule a meeting with the design team tomorrow morning",
    "Please send me the quarterly report by the end of the week",
    "The turtle walked slowly across the garden",
    "Remind me to call the dentist on Monday",
    "We need to fix the bugs in the release notes before shipping",
    "Thanks for the quick reply, I will get back to you soon",
    "The weather in London is surprisingly nice today",
    "Buy milk, bread, butter and a bag of apples on the way home",
    "This is an important issue and it cannot wait",
    "The invoice was sent to the company's address in Manchester",
    "Could you check whether the server is running after the update",
    "Dinner is at seven, don't forget to bring the wine",
];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A dictation: 1 to 6 sentences of one language (a few long ones of 10 to 20), the way
/// people dictate messages, notes and paragraphs.
fn dictation(rng: &mut Rng) -> (String, &'static str) {
    let (pool, language) = if rng.below(10) < 6 {
        (POLISH, "pl")
    } else {
        (ENGLISH, "en")
    };
    let sentences = if rng.below(20) == 0 {
        10 + rng.below(11)
    } else {
        1 + rng.below(6)
    };
    let text: Vec<&str> = (0..sentences)
        .map(|_| pool[rng.below(pool.len())])
        .collect();
    (text.join(". ") + ".", language)
}

fn stats(label: &str, mut times: Vec<Duration>, extra: &str) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label:<34} median {:>8.3} ms  p95 {:>8.3} ms  max {:>8.3} ms  (n={}){extra}",
        at(0.5).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        times.last().unwrap().as_secs_f64() * 1e3,
        times.len()
    );
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

fn main() {
    let mut entries = 10_000usize;
    let mut repeat = 200usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| -> usize {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match a.as_str() {
            "--entries" => entries = value("--entries"),
            "--repeat" => repeat = value("--repeat"),
            other => panic!("unknown option {other}"),
        }
    }

    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("history.sqlite3");
    let (mut history, _) = History::open(&path).expect("a new history");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let start_ms = 1_735_689_600_000i64; // 2025-01-01
    let mut adds = Vec::with_capacity(entries);
    let fill = Instant::now();
    for n in 0..entries {
        let (text, language) = dictation(&mut rng);
        let entry = NewEntry {
            at_ms: start_ms + n as i64 * 45 * 60 * 1000,
            raw_text: text.clone(),
            text,
            recording: Some(format!("rec-{:015}-{n:06}.wav", start_ms + n as i64)),
            duration_ms: 1_000 + rng.below(60_000) as i64,
            language: Some(language.into()),
            model: "large-v3-turbo".into(),
            device: "cpu".into(),
            device_reason: Some("no GPU".into()),
            key_up_to_pasted_ms: Some(150 + rng.below(400) as i64),
            app: Some("TextEdit".into()),
            mode: None,
        };
        let t = Instant::now();
        history.add(&entry).expect("add");
        adds.push(t.elapsed());
    }
    let fill = fill.elapsed();
    println!(
        "{entries} entries added in {:.2} s; database {:.1} MB (+ WAL {:.1} MB)",
        fill.as_secs_f64(),
        file_size(&path) as f64 / 1e6,
        file_size(&dir.path().join("history.sqlite3-wal")) as f64 / 1e6
    );
    stats("add (one entry, one transaction)", adds, "");
    drop(history);

    let mut opens = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let (h, _) = History::open(&path).expect("reopen");
        opens.push(t.elapsed());
        drop(h);
    }
    stats("open (checks included)", opens, "");
    let mut checks = Vec::new();
    for _ in 0..20 {
        let conn = rusqlite::Connection::open(&path).expect("open");
        let t = Instant::now();
        let ok: String = conn
            .query_row("PRAGMA quick_check", [], |row| row.get(0))
            .expect("quick_check");
        checks.push(t.elapsed());
        assert_eq!(ok, "ok");
    }
    stats("  of which PRAGMA quick_check", checks, "");

    let (history, _) = History::open(&path).expect("reopen");
    let mut recent = Vec::new();
    for _ in 0..repeat {
        let t = Instant::now();
        let got = history.recent(100).expect("recent");
        recent.push(t.elapsed());
        assert_eq!(got.len(), 100.min(entries));
    }
    stats("recent(100)", recent, "");

    for (label, query) in [
        ("diacritic-free word", "zolw"),
        ("diacritic-free word with ł", "lodzi"),
        ("diacritic-free two words", "zazolc gesla"),
        ("prefix (3 letters)", "zol"),
        ("prefix (1 letter)", "p"),
        ("two words, the last a prefix", "jutro spot"),
        ("common Polish word", "jest"),
        ("common English word", "the"),
        ("English words", "meeting tomorrow"),
        ("no match", "xylofon"),
    ] {
        let matches = history.search(query, usize::MAX).expect("search").len();
        let mut times = Vec::new();
        for _ in 0..repeat {
            let t = Instant::now();
            let got = history.search(query, 100).expect("search");
            times.push(t.elapsed());
            assert_eq!(got.len(), matches.min(100));
        }
        stats(
            &format!("search {query:?} (100)"),
            times,
            &format!("  {label}, {matches} matches"),
        );
    }

    let t = Instant::now();
    let mut csv = Vec::new();
    history.export_csv(&mut csv).expect("export");
    println!(
        "export_csv: {:.1} ms, {:.1} MB",
        t.elapsed().as_secs_f64() * 1e3,
        csv.len() as f64 / 1e6
    );
}
