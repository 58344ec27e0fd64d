//! What must never cost a person their words, through the history's public API on real
//! files: a damaged file (random bytes, a truncated database, a foreign or newer schema) set
//! aside, kept, and a new one started; a lock held by another process answered within a
//! second; and a process killed mid-write losing no committed entry.

mod history_common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use history_common::*;
use whisper_dictation::history::{History, HistoryError, Opened};

/// Opens `path` expecting it set aside: returns the set-aside path after checking that the
/// new database works and is empty.
fn expect_set_aside(path: &Path) -> PathBuf {
    let (mut history, opened) = History::open(path).unwrap();
    let Opened::SetAside { damaged } = opened else {
        panic!("not set aside: {opened:?}");
    };
    let name = damaged.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with("history.sqlite3.damaged-"), "{name}");
    assert_eq!(damaged.parent(), path.parent());
    assert_eq!(history.count().unwrap(), 0);
    let id = history.add(&entry(T0, "nowy początek")).unwrap();
    assert_eq!(ids(&history.search("poczatek", 5).unwrap()), vec![id]);
    drop(history);
    let (history, opened) = History::open(path).unwrap();
    assert_eq!(opened, Opened::Existing);
    assert_eq!(history.count().unwrap(), 1);
    damaged
}

#[test]
fn a_file_of_random_bytes_is_set_aside_kept_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let bytes: Vec<u8> = (0..8192)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    std::fs::write(&path, &bytes).unwrap();
    // A second connection (the History window) says so and leaves the file to the owner.
    let Err(error) = History::open_as_is(&path) else {
        panic!("a damaged file opened");
    };
    assert!(
        matches!(&error, HistoryError::Damaged { path: named, .. } if *named == path),
        "{error}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "left as it was");
    let damaged = expect_set_aside(&path);
    assert_eq!(std::fs::read(&damaged).unwrap(), bytes);
    assert!(History::open_as_is(&path).is_ok(), "the new one opens");
}

#[test]
fn a_truncated_database_is_set_aside_with_its_bytes_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    {
        let mut history = open_new(&dir);
        for n in 0..400 {
            let text =
                format!("Zdanie numer {n}: żółw, Łódź i trochę tekstu, żeby strony się zapełniły.");
            history.add(&entry(T0 + n, &text)).unwrap();
        }
    }
    // Closed: the WAL is checkpointed into the file and removed.
    assert!(!PathBuf::from(format!("{}-wal", path.display())).exists());
    let whole = std::fs::read(&path).unwrap();
    assert!(whole.len() > 64 * 1024, "{}", whole.len());
    let half = &whole[..whole.len() / 2];
    std::fs::write(&path, half).unwrap();
    let damaged = expect_set_aside(&path);
    assert_eq!(std::fs::read(&damaged).unwrap(), half);
}

#[test]
fn a_schema_newer_than_this_app_knows_is_set_aside_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    {
        let mut history = open_new(&dir);
        history.add(&entry(T0, "z przyszłości")).unwrap();
    }
    raw(&path).pragma_update(None, "user_version", 99).unwrap();
    let damaged = expect_set_aside(&path);
    let version: i64 = raw(&damaged)
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, 99);
    let kept: String = raw(&damaged)
        .query_row("SELECT text FROM entries", [], |row| row.get(0))
        .unwrap();
    assert_eq!(kept, "z przyszłości");
}

#[test]
fn another_programs_database_is_set_aside() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    raw(&path)
        .execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
        .unwrap();
    expect_set_aside(&path);
}

#[test]
fn a_database_locked_by_another_process_is_busy_within_a_second() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    let mut history = open_new(&dir);
    history.add(&entry(T0, "przed blokadą")).unwrap();

    // Another writer holds the write lock: reads go on (WAL), a write is Busy, soon.
    let other = raw(&path);
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    assert_eq!(history.recent(5).unwrap().len(), 1);
    let started = Instant::now();
    let err = history.add(&entry(T0 + 1, "w trakcie")).unwrap_err();
    assert!(err.is_busy(), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(err.to_string().contains("history.sqlite3"), "{err}");
    other.execute_batch("COMMIT").unwrap();
    history.add(&entry(T0 + 2, "po blokadzie")).unwrap();
    assert_eq!(history.count().unwrap(), 2);
    drop(history);

    // Another process holds the whole file exclusively: opening is Busy, soon, and the
    // database is not set aside.
    other
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
        .unwrap();
    let started = Instant::now();
    let err = History::open(&path).unwrap_err();
    assert!(err.is_busy(), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    other.execute_batch("COMMIT").unwrap();
    drop(other);
    let (history, opened) = History::open(&path).unwrap();
    assert_eq!(opened, Opened::Existing);
    assert_eq!(history.count().unwrap(), 2);
}

/// The environment variable that makes [`child_adds_entries_until_killed`] run: the database.
const CHILD_DB: &str = "WHISPER_DICTATION_HISTORY_CHILD_DB";

/// Run only as the child of [`a_process_killed_mid_write_loses_no_committed_entry`]: adds
/// entries until it is killed, printing each id once it is committed.
#[test]
#[ignore = "the child of a_process_killed_mid_write_loses_no_committed_entry"]
fn child_adds_entries_until_killed() {
    let path = PathBuf::from(std::env::var_os(CHILD_DB).expect("run by its parent test"));
    let (mut history, _) = History::open(&path).unwrap();
    let stdout = std::io::stdout();
    for n in 0.. {
        let text = format!(
            "Wpis {n}: zażółć gęślą jaźń, {} i jeszcze trochę tekstu.",
            "żółw idzie do Łodzi ".repeat(1 + n % 20)
        );
        let mut e = entry(T0 + n as i64, &text);
        e.recording = Some(format!("rec-{:015}-{n:06}.wav", T0 + n as i64));
        let id = history.add(&e).unwrap();
        if n % 3 == 0 {
            history.add_transcription(id, "tiny", &text, T0).unwrap();
        }
        let mut out = stdout.lock();
        writeln!(out, "committed {id} {n}").unwrap();
        out.flush().unwrap();
    }
}

#[test]
fn a_process_killed_mid_write_loses_no_committed_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(&dir);
    drop(open_new(&dir));
    let mut committed: Vec<(i64, usize)> = Vec::new();
    for (round, kill_after) in [40, 150, 333].into_iter().enumerate() {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_adds_entries_until_killed",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DB, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::from(
                std::fs::File::create(dir.path().join(format!("child-{round}.stderr"))).unwrap(),
            ))
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut seen = 0;
        let deadline = Instant::now() + Duration::from_secs(60);
        // Every line read was printed after its commit; after the kill, the lines already in
        // the pipe are read too.
        let mut killed = false;
        while let Some(Ok(line)) = lines.next() {
            // The test harness's "test child_adds_entries_until_killed ... " may begin the
            // first line.
            if let Some((_, rest)) = line.split_once("committed ") {
                let mut parts = rest.split(' ');
                let id: i64 = parts.next().unwrap().parse().unwrap();
                let n: usize = parts.next().unwrap().parse().unwrap();
                committed.push((id, n));
                seen += 1;
            }
            if !killed && (seen >= kill_after || Instant::now() > deadline) {
                child.kill().unwrap(); // SIGKILL
                killed = true;
            }
        }
        let status = child.wait().unwrap();
        assert!(
            killed && !status.success(),
            "the child ended by itself: {status}"
        );
        assert!(seen >= kill_after, "only {seen} entries in 60 s");

        // As the kill left it (the WAL recovered by the first reader): intact.
        assert_eq!(quick_check(&path), "ok");
        let (history, opened) = History::open(&path).unwrap();
        assert_eq!(opened, Opened::Existing);
        for &(id, n) in &committed {
            let e = history
                .get(id)
                .unwrap()
                .unwrap_or_else(|| panic!("committed entry {id} lost"));
            assert!(
                e.text.starts_with(&format!("Wpis {n}: ")),
                "{id}: {}",
                e.text
            );
            if n % 3 == 0 {
                assert_eq!(history.transcriptions(id).unwrap().len(), 1, "{id}");
            }
        }
        // At most the one entry being written at each kill may be beyond the printed ones
        // (committed, not yet printed).
        let count = history.count().unwrap();
        let printed: std::collections::HashSet<i64> = committed.iter().map(|c| c.0).collect();
        let unprinted: Vec<i64> = ids(&history.recent(usize::MAX).unwrap())
            .into_iter()
            .filter(|id| !printed.contains(id))
            .collect();
        assert!(
            count >= committed.len() && count <= committed.len() + round + 1,
            "{count} entries, {} printed, unprinted {unprinted:?}, child's stderr: {}",
            committed.len(),
            std::fs::read_to_string(dir.path().join(format!("child-{round}.stderr"))).unwrap()
        );
        // The index agrees with the table.
        let all = history.search("wpis", usize::MAX).unwrap();
        assert_eq!(all.len(), count);
    }
}
