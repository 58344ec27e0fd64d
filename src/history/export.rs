//! Exporting the whole history, oldest first: CSV (RFC 4180) for spreadsheets and JSON (an
//! array of [`Entry`]) for programs. Both stream row by row to any writer; putting the bytes
//! into a file (atomically, `atomic_file`) is the caller's job.
//!
//! The CSV starts with a UTF-8 byte order mark, so that Excel reads Polish letters as UTF-8
//! (Numbers, LibreOffice and CSV libraries skip it); its lines end in CRLF, and a field with a
//! comma, a quote, CR or LF is quoted with its quotes doubled. Its columns are
//! [`CSV_COLUMNS`]: `time` is the start in UTC (ISO 8601), the others are [`Entry`]'s fields,
//! an absent value an empty field. `mode` (recorded since schema version 3) is the last
//! column, so the columns before it keep the places they had in earlier exports.

use std::io::{self, BufWriter, Write};

use super::store::{entry_of, ENTRY_COLUMNS};
use super::{on, Entry, History, HistoryError};

/// The CSV header.
pub const CSV_COLUMNS: &[&str] = &[
    "id",
    "time",
    "at_ms",
    "text",
    "raw_text",
    "recording",
    "duration_ms",
    "language",
    "model",
    "device",
    "device_reason",
    "key_up_to_pasted_ms",
    "app",
    "starred",
    "mode",
];

/// The byte order mark the CSV starts with.
const BOM: &str = "\u{feff}";

impl History {
    /// Writes every entry, oldest first, as CSV (see the module doc).
    ///
    /// # Errors
    /// [`HistoryError::Export`] when writing fails; SQLite's when reading does.
    pub fn export_csv(&self, w: impl Write) -> Result<(), HistoryError> {
        let mut out = BufWriter::new(w);
        let write = |out: &mut BufWriter<_>, text: &str| {
            out.write_all(text.as_bytes())
                .map_err(|source| HistoryError::Export { source })
        };
        write(&mut out, BOM)?;
        write(&mut out, &csv_line(CSV_COLUMNS.iter().copied()))?;
        self.each_entry(|entry| {
            write(
                &mut out,
                &csv_line(csv_fields(entry).iter().map(|f| f.as_str())),
            )
        })?;
        out.flush()
            .map_err(|source| HistoryError::Export { source })
    }

    /// Writes every entry, oldest first, as a JSON array of [`Entry`] objects, one a line.
    ///
    /// # Errors
    /// [`HistoryError::Export`] when writing fails; SQLite's when reading does.
    pub fn export_json(&self, w: impl Write) -> Result<(), HistoryError> {
        let mut out = BufWriter::new(w);
        let export = |e: io::Error| HistoryError::Export { source: e };
        out.write_all(b"[").map_err(export)?;
        let mut first = true;
        self.each_entry(|entry| {
            out.write_all(if first { b"\n" } else { b",\n" })
                .map_err(export)?;
            first = false;
            serde_json::to_writer(&mut out, entry).map_err(|e| export(e.into()))
        })?;
        out.write_all(if first { b"]\n" } else { b"\n]\n" })
            .map_err(export)?;
        out.flush().map_err(export)
    }

    /// Calls `each` with every entry, oldest first, reading them one at a time.
    fn each_entry(
        &self,
        mut each: impl FnMut(&Entry) -> Result<(), HistoryError>,
    ) -> Result<(), HistoryError> {
        let mut statement = self
            .conn
            .prepare(&format!(
                "SELECT {ENTRY_COLUMNS} FROM entries e ORDER BY e.at_ms, e.id"
            ))
            .map_err(on(&self.path, "reading the entries to export"))?;
        let mut rows = statement
            .query([])
            .map_err(on(&self.path, "reading the entries to export"))?;
        while let Some(row) = rows
            .next()
            .map_err(on(&self.path, "reading the entries to export"))?
        {
            let entry = entry_of(row).map_err(on(&self.path, "reading an entry to export"))?;
            each(&entry)?;
        }
        Ok(())
    }
}

/// An entry's CSV fields, in [`CSV_COLUMNS`]' order.
fn csv_fields(e: &Entry) -> Vec<String> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    vec![
        e.id.to_string(),
        iso_utc(e.at_ms),
        e.at_ms.to_string(),
        e.text.clone(),
        e.raw_text.clone(),
        opt(&e.recording),
        e.duration_ms.to_string(),
        opt(&e.language),
        e.model.clone(),
        e.device.clone(),
        opt(&e.device_reason),
        e.key_up_to_pasted_ms
            .map(|v| v.to_string())
            .unwrap_or_default(),
        opt(&e.app),
        if e.starred { "1" } else { "0" }.to_string(),
        opt(&e.mode),
    ]
}

/// One CSV line (CRLF-terminated) of `fields`, each quoted when it must be.
pub fn csv_line<'a>(fields: impl Iterator<Item = &'a str>) -> String {
    let mut line = String::new();
    for (i, field) in fields.enumerate() {
        if i > 0 {
            line.push(',');
        }
        if field.contains([',', '"', '\r', '\n']) {
            line.push('"');
            line.push_str(&field.replace('"', "\"\""));
            line.push('"');
        } else {
            line.push_str(field);
        }
    }
    line.push_str("\r\n");
    line
}

/// `ms` (unix milliseconds) as an ISO 8601 UTC time, `2026-11-25T23:53:29.123Z`.
pub fn iso_utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let of_day = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// The proleptic Gregorian (year, month, day) of `days` since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_iso_8601_utc() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_utc(1_764_114_809_123), "2025-11-25T23:53:29.123Z");
        assert_eq!(iso_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_utc(-1), "1969-12-31T23:59:59.999Z");
        // Extremes do not panic.
        let _ = iso_utc(i64::MAX);
        let _ = iso_utc(i64::MIN);
    }

    #[test]
    fn fields_are_quoted_only_when_they_must_be() {
        let line =
            csv_line(["plain", "a,b", "say \"hi\"", "two\nlines", "cr\r", "Zażółć"].into_iter());
        assert_eq!(
            line,
            "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",Zażółć\r\n"
        );
    }
}
