//! Spreadsheet-safe CSV cells (OWASP "CSV injection"): a text cell that a spreadsheet would
//! read as a formula gets a leading `'`, and every reader of p3lab's own CSVs takes it off
//! again, so names round-trip exactly (docs/csv.md, "Cells a spreadsheet would run").
//!
//! The rule: a cell is escaped when it does not parse as a number (`-1.5`, `-0`, `+3` stay
//! numbers) and it begins with `=`, `+`, `-`, `@`, tab or carriage return, or when it begins
//! with `'` and the rest would be escaped (so `'=x` is written `''=x` and reads back as `'=x`).
//! That makes `unescape(escape(s)) == s` for every `s`, and `unescape` leaves every cell that
//! `escape` did not write alone.
use std::borrow::Cow;
use std::io::Write;

/// First characters a spreadsheet takes as the start of a formula.
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Whether `escape` prefixes `s` with a `'`.
fn needs_escape(s: &str) -> bool {
    match s.chars().next() {
        Some(c) if FORMULA_START.contains(&c) => s.parse::<f64>().is_err(),
        Some('\'') => needs_escape(&s[1..]),
        _ => false,
    }
}

/// The cell as p3lab writes it: `s`, or `'` + `s` when a spreadsheet would run it.
pub fn escape(s: &str) -> Cow<'_, str> {
    if needs_escape(s) {
        Cow::Owned(format!("'{s}"))
    } else {
        Cow::Borrowed(s)
    }
}

/// The value of a cell p3lab wrote: the inverse of [`escape`].
pub fn unescape(s: &str) -> Cow<'_, str> {
    match s.strip_prefix('\'') {
        Some(rest) if needs_escape(rest) => Cow::Borrowed(rest),
        _ => Cow::Borrowed(s),
    }
}

/// [`unescape`] on raw bytes (a cell of a `csv::ByteRecord`).
pub fn unescape_bytes(b: &[u8]) -> Cow<'_, [u8]> {
    match std::str::from_utf8(b) {
        Ok(s) => match unescape(s) {
            Cow::Borrowed(x) => Cow::Borrowed(x.as_bytes()),
            Cow::Owned(x) => Cow::Owned(x.into_bytes()),
        },
        Err(_) => Cow::Borrowed(b),
    }
}

/// Whether a cell as it stands in a file (raw bytes, not unescaped) would run in a spreadsheet:
/// text that is not a number and starts with `=`, `+`, `-`, `@`, tab or carriage return. A cell
/// p3lab neutralised starts with `'` and does not.
pub fn would_run(b: &[u8]) -> bool {
    match b.first() {
        Some(&c) if FORMULA_START.contains(&char::from(c)) => {
            std::str::from_utf8(b).map_or(true, |s| s.parse::<f64>().is_err())
        }
        _ => false,
    }
}

/// A raw cell from a file made safe the way p3lab writes it: one that [`would_run`] gets a
/// leading `'` (which every reader of p3lab's CSVs takes off again, so the value reads back
/// as the file had it); any other cell is left as it is.
pub fn neutralise_bytes(b: &[u8]) -> Cow<'_, [u8]> {
    if would_run(b) {
        let mut v = Vec::with_capacity(b.len() + 1);
        v.push(b'\'');
        v.extend_from_slice(b);
        Cow::Owned(v)
    } else {
        Cow::Borrowed(b)
    }
}

/// Every cell of a record read from a p3lab CSV, unescaped.
pub fn unescape_record(rec: &csv::StringRecord) -> csv::StringRecord {
    rec.iter().map(|c| unescape(c)).collect()
}

/// Write one record with every cell escaped.
pub fn write_record<W: Write, I, T>(w: &mut csv::Writer<W>, cells: I) -> csv::Result<()>
where
    I: IntoIterator<Item = T>,
    T: AsRef<str>,
{
    w.write_record(cells.into_iter().map(|c| escape(c.as_ref()).into_owned()))
}

/// Serialize one row (a struct of plain fields) with every cell escaped; no header is written.
/// Numbers never change: a number's text parses as a number.
pub fn serialize<W: Write, T: serde::Serialize>(
    w: &mut csv::Writer<W>,
    row: &T,
) -> csv::Result<()> {
    let rec = first_record(row, false)?;
    write_record(w, rec.iter())
}

/// Serialize one row like [`serialize`], with `extra` cells (escaped too) after its fields.
pub fn serialize_with<W: Write, T: serde::Serialize>(
    w: &mut csv::Writer<W>,
    row: &T,
    extra: &[String],
) -> csv::Result<()> {
    let rec = first_record(row, false)?;
    write_record(w, rec.iter().chain(extra.iter().map(String::as_str)))
}

/// The header serde would write for `row` (its field names).
pub fn header_of<T: serde::Serialize>(row: &T) -> csv::Result<csv::StringRecord> {
    first_record(row, true)
}

/// The first record serde writes for `row`: its header with `headers`, else its cells.
fn first_record<T: serde::Serialize>(row: &T, headers: bool) -> csv::Result<csv::StringRecord> {
    let mut tmp = csv::WriterBuilder::new()
        .has_headers(headers)
        .from_writer(Vec::new());
    tmp.serialize(row)?;
    let bytes = tmp
        .into_inner()
        .map_err(|e| csv::Error::from(std::io::Error::other(e.error().to_string())))?;
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(&bytes[..]);
    let mut rec = csv::StringRecord::new();
    r.read_record(&mut rec)?;
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_get_a_quote_and_numbers_do_not() {
        for (s, e) in [
            ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
            ("+SUM(1,1)", "'+SUM(1,1)"),
            ("@SUM(1)", "'@SUM(1)"),
            ("-x", "'-x"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("=", "'="),
            ("-", "'-"),
            ("'=x", "''=x"),
            ("''+x", "'''+x"),
            ("-1.5", "-1.5"),
            ("-0", "-0"),
            ("+3", "+3"),
            ("-1e-9", "-1e-9"),
            ("'abc", "'abc"),
            ("'", "'"),
            ("'-1", "'-1"),
            ("abc", "abc"),
            ("a=b", "a=b"),
            ("", ""),
        ] {
            assert_eq!(escape(s), e, "escape {s:?}");
            assert_eq!(unescape(e), s, "unescape {e:?}");
        }
    }

    #[test]
    fn round_trip_is_exact_for_any_text() {
        let parts = [
            "", "'", "''", "=", "+", "-", "@", "\t", "\r", "1", "-1", "x", "é",
        ];
        for a in parts {
            for b in parts {
                for c in parts {
                    let s = format!("{a}{b}{c}");
                    assert_eq!(unescape(&escape(&s)), s, "{s:?}");
                    // A cell escape leaves alone reads back as itself.
                    if escape(&s) == s {
                        assert_eq!(unescape(&s), s, "{s:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn raw_cells_that_would_run_are_neutralised_like_the_writer_does() {
        for s in [
            "=HYPERLINK(\"x\")",
            "@SUM(1)",
            "+x",
            "-",
            "\tx",
            "=",
            "'=x",
            "-1.5",
            "x",
            "",
        ] {
            let raw = neutralise_bytes(s.as_bytes());
            // Unchanged when already safe, the writer's escape otherwise.
            let want = if would_run(s.as_bytes()) {
                escape(s).into_owned()
            } else {
                s.to_string()
            };
            assert_eq!(raw.as_ref(), want.as_bytes(), "{s:?}");
            assert!(!would_run(&raw), "{s:?}");
        }
        assert!(would_run(b"=\xff"), "not UTF-8 is not a number");
        assert!(!would_run(b"'=x") && !would_run(b"+3"));
    }

    #[test]
    fn serialize_escapes_text_cells_only() {
        #[derive(serde::Serialize)]
        struct R {
            name: String,
            x: f64,
            y: Option<f64>,
            z: i64,
        }
        let mut w = csv::Writer::from_writer(Vec::new());
        serialize(
            &mut w,
            &R {
                name: "=2+2".into(),
                x: -1.5,
                y: None,
                z: -3,
            },
        )
        .unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(text, "'=2+2,-1.5,,-3\n");
    }
}
