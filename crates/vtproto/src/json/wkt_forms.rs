//! The string forms of `Timestamp`, `Duration` and `FieldMask` paths in ProtoJSON: RFC 3339
//! timestamps in UTC, durations as decimal seconds with an `s`, paths in lowerCamelCase. Pure
//! functions over unquoted text; JSON lexing and quoting belong to the callers.

use core::fmt;

use crate::prelude::*;

/// Why a value has no ProtoJSON string form, or a string is not one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FormError {
    /// A value outside the type's range.
    OutOfRange,
    /// Text that is not the form.
    Syntax,
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FormError::OutOfRange => "out of range",
            FormError::Syntax => "malformed",
        })
    }
}

/// 0001-01-01T00:00:00Z.
const MIN_TIMESTAMP: i64 = -62_135_596_800;
/// 9999-12-31T23:59:59Z.
const MAX_TIMESTAMP: i64 = 253_402_300_799;
/// 10,000 years of seconds.
const MAX_DURATION: i64 = 315_576_000_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (`civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn push_digits(out: &mut String, value: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut v = value;
    for slot in buf[..width].iter_mut().rev() {
        *slot = b'0' + (v % 10) as u8;
        v /= 10;
    }
    out.extend(buf[..width].iter().map(|&b| char::from(b)));
}

/// `.ddd`, `.dddddd` or `.ddddddddd`: the fewest groups of three that show `nanos` exactly;
/// nothing for zero.
fn push_fraction(out: &mut String, nanos: u32) {
    if nanos == 0 {
        return;
    }
    out.push('.');
    if nanos % 1_000_000 == 0 {
        push_digits(out, u64::from(nanos / 1_000_000), 3);
    } else if nanos % 1_000 == 0 {
        push_digits(out, u64::from(nanos / 1_000), 6);
    } else {
        push_digits(out, u64::from(nanos), 9);
    }
}

/// Appends a Timestamp's RFC 3339 form (`1972-01-01T10:00:20.021Z`).
pub(crate) fn write_timestamp(seconds: i64, nanos: i32, out: &mut String) -> Result<(), FormError> {
    if !(MIN_TIMESTAMP..=MAX_TIMESTAMP).contains(&seconds) || !(0..=999_999_999).contains(&nanos) {
        return Err(FormError::OutOfRange);
    }
    let days = seconds.div_euclid(86_400);
    let secs = seconds.rem_euclid(86_400) as u64;
    let (year, month, day) = civil_from_days(days);
    push_digits(out, year as u64, 4);
    out.push('-');
    push_digits(out, u64::from(month), 2);
    out.push('-');
    push_digits(out, u64::from(day), 2);
    out.push('T');
    push_digits(out, secs / 3600, 2);
    out.push(':');
    push_digits(out, secs / 60 % 60, 2);
    out.push(':');
    push_digits(out, secs % 60, 2);
    push_fraction(out, nanos as u32);
    out.push('Z');
    Ok(())
}

/// Reads exactly `n` ASCII digits at `*at`.
fn digits(s: &[u8], at: &mut usize, n: usize) -> Result<u32, FormError> {
    let field = s.get(*at..*at + n).ok_or(FormError::Syntax)?;
    let mut v = 0u32;
    for &d in field {
        if !d.is_ascii_digit() {
            return Err(FormError::Syntax);
        }
        v = v * 10 + u32::from(d - b'0');
    }
    *at += n;
    Ok(v)
}

fn expect(s: &[u8], at: &mut usize, c: u8) -> Result<(), FormError> {
    if s.get(*at) == Some(&c) {
        *at += 1;
        Ok(())
    } else {
        Err(FormError::Syntax)
    }
}

/// A fraction's digits after the `.` (1 to 9) as nanoseconds.
fn fraction(s: &[u8], at: &mut usize) -> Result<u32, FormError> {
    let start = *at;
    let mut nanos = 0u32;
    while let Some(d) = s.get(*at).filter(|d| d.is_ascii_digit()) {
        if *at - start == 9 {
            return Err(FormError::Syntax);
        }
        nanos = nanos * 10 + u32::from(d - b'0');
        *at += 1;
    }
    let count = *at - start;
    if count == 0 {
        return Err(FormError::Syntax);
    }
    Ok(nanos * 10u32.pow(9 - count as u32))
}

/// Reads an RFC 3339 timestamp (`T` and `Z` upper-case, an offset `+hh:mm` allowed).
pub(crate) fn parse_timestamp(text: &str) -> Result<(i64, i32), FormError> {
    let s = text.as_bytes();
    let mut at = 0;
    let year = digits(s, &mut at, 4)?;
    expect(s, &mut at, b'-')?;
    let month = digits(s, &mut at, 2)?;
    expect(s, &mut at, b'-')?;
    let day = digits(s, &mut at, 2)?;
    expect(s, &mut at, b'T')?;
    let hour = digits(s, &mut at, 2)?;
    expect(s, &mut at, b':')?;
    let minute = digits(s, &mut at, 2)?;
    expect(s, &mut at, b':')?;
    let second = digits(s, &mut at, 2)?;
    let year = i64::from(year);
    if !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return Err(FormError::Syntax);
    }
    let nanos = if s.get(at) == Some(&b'.') {
        at += 1;
        fraction(s, &mut at)?
    } else {
        0
    };
    let offset = match s.get(at) {
        Some(b'Z') => {
            at += 1;
            0
        }
        Some(&sign @ (b'+' | b'-')) => {
            at += 1;
            let hours = digits(s, &mut at, 2)?;
            expect(s, &mut at, b':')?;
            let minutes = digits(s, &mut at, 2)?;
            if hours > 23 || minutes > 59 {
                return Err(FormError::Syntax);
            }
            let offset = i64::from(hours * 3600 + minutes * 60);
            if sign == b'+' {
                offset
            } else {
                -offset
            }
        }
        _ => return Err(FormError::Syntax),
    };
    if at != s.len() {
        return Err(FormError::Syntax);
    }
    let seconds = days_from_civil(year, month, day) * 86_400
        + i64::from(hour * 3600 + minute * 60 + second)
        - offset;
    if !(MIN_TIMESTAMP..=MAX_TIMESTAMP).contains(&seconds) {
        return Err(FormError::OutOfRange);
    }
    Ok((seconds, nanos as i32))
}

/// Appends a Duration's form (`1.500s`, `-0.5` as `-0.500s`).
pub(crate) fn write_duration(seconds: i64, nanos: i32, out: &mut String) -> Result<(), FormError> {
    if !(-MAX_DURATION..=MAX_DURATION).contains(&seconds)
        || !(-999_999_999..=999_999_999).contains(&nanos)
        || (seconds > 0 && nanos < 0)
        || (seconds < 0 && nanos > 0)
    {
        return Err(FormError::OutOfRange);
    }
    if seconds < 0 || nanos < 0 {
        out.push('-');
    }
    out.push_str(itoa::Buffer::new().format(seconds.unsigned_abs()));
    push_fraction(out, nanos.unsigned_abs());
    out.push('s');
    Ok(())
}

/// Reads a Duration's form: `-?digits(.digits{1,9})?s`.
pub(crate) fn parse_duration(text: &str) -> Result<(i64, i32), FormError> {
    let s = text.as_bytes();
    let mut at = 0;
    let negative = s.first() == Some(&b'-');
    if negative {
        at += 1;
    }
    let start = at;
    let mut seconds: i64 = 0;
    while let Some(d) = s.get(at).filter(|d| d.is_ascii_digit()) {
        seconds = seconds
            .checked_mul(10)
            .and_then(|v| v.checked_add(i64::from(d - b'0')))
            .ok_or(FormError::OutOfRange)?;
        at += 1;
    }
    if at == start {
        return Err(FormError::Syntax);
    }
    let nanos = if s.get(at) == Some(&b'.') {
        at += 1;
        fraction(s, &mut at)?
    } else {
        0
    };
    if s.get(at) != Some(&b's') || at + 1 != s.len() {
        return Err(FormError::Syntax);
    }
    if seconds > MAX_DURATION {
        return Err(FormError::OutOfRange);
    }
    let nanos = nanos as i32;
    Ok(if negative {
        (-seconds, -nanos)
    } else {
        (seconds, nanos)
    })
}

/// Appends a FieldMask path in lowerCamelCase (`foo_bar.baz` as `fooBar.baz`); a path that
/// would not read back (upper-case letters, `_` not before a lower-case letter) is refused.
pub(crate) fn write_field_mask_path(path: &str, out: &mut String) -> Result<(), FormError> {
    let mut upper_next = false;
    for c in path.chars() {
        if upper_next {
            if !c.is_ascii_lowercase() {
                return Err(FormError::Syntax);
            }
            out.push(c.to_ascii_uppercase());
            upper_next = false;
        } else if c == '_' {
            upper_next = true;
        } else if c.is_ascii_uppercase() {
            return Err(FormError::Syntax);
        } else {
            out.push(c);
        }
    }
    if upper_next {
        return Err(FormError::Syntax);
    }
    Ok(())
}

/// Appends a FieldMask path read from lowerCamelCase (`fooBar` as `foo_bar`); `_` is refused.
pub(crate) fn parse_field_mask_path(json_path: &str, out: &mut String) -> Result<(), FormError> {
    for c in json_path.chars() {
        if c == '_' {
            return Err(FormError::Syntax);
        }
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(seconds: i64, nanos: i32) -> String {
        let mut out = String::new();
        write_timestamp(seconds, nanos, &mut out).unwrap();
        out
    }

    fn dur(seconds: i64, nanos: i32) -> Result<String, FormError> {
        let mut out = String::new();
        write_duration(seconds, nanos, &mut out).map(|()| out)
    }

    #[test]
    fn timestamps_at_known_points_and_edges() {
        assert_eq!(ts(63_108_020, 21_000_000), "1972-01-01T10:00:20.021Z");
        assert_eq!(ts(946_684_800, 0), "2000-01-01T00:00:00Z");
        assert_eq!(ts(MIN_TIMESTAMP, 0), "0001-01-01T00:00:00Z");
        assert_eq!(
            ts(MAX_TIMESTAMP, 999_999_999),
            "9999-12-31T23:59:59.999999999Z"
        );
        assert_eq!(ts(-1, 1_000), "1969-12-31T23:59:59.000001Z");
        let mut out = String::new();
        assert_eq!(
            write_timestamp(MAX_TIMESTAMP + 1, 0, &mut out),
            Err(FormError::OutOfRange)
        );
        assert_eq!(write_timestamp(0, -1, &mut out), Err(FormError::OutOfRange));
        assert_eq!(
            parse_timestamp("1972-01-01T10:00:20.021Z"),
            Ok((63_108_020, 21_000_000))
        );
        assert_eq!(parse_timestamp("1970-01-01T08:00:00+08:00"), Ok((0, 0)));
        assert_eq!(parse_timestamp("1969-12-31T00:01:00-23:59"), Ok((0, 0)));
        assert_eq!(
            parse_timestamp("2024-02-29T00:00:00Z").map(|t| t.0),
            Ok(1_709_164_800)
        );
        assert_eq!(
            parse_timestamp("0001-01-01T00:00:00+00:01"),
            Err(FormError::OutOfRange)
        );
        assert_eq!(
            parse_timestamp("9999-12-31T23:59:59-00:01"),
            Err(FormError::OutOfRange)
        );
        for bad in [
            "1972-01-01t10:00:20Z",
            "1972-01-01T10:00:20z",
            "1900-02-29T00:00:00Z",
            "2000-13-01T00:00:00Z",
            "2000-01-01T24:00:00Z",
            "2000-01-01T00:00:60Z",
            "2000-01-01T00:00:00.Z",
            "2000-01-01T00:00:00.1234567890Z",
            "2000-01-01T00:00:00",
            "2000-01-01T00:00:00Z ",
            "20000-01-01T00:00:00Z",
        ] {
            assert_eq!(parse_timestamp(bad), Err(FormError::Syntax), "{bad}");
        }
        let mut s = MIN_TIMESTAMP;
        while s <= MAX_TIMESTAMP {
            let text = ts(s, 123_000_000);
            assert_eq!(parse_timestamp(&text), Ok((s, 123_000_000)), "{text}");
            s += 9_876_543_211;
        }
    }

    #[test]
    fn durations_round_trip_and_check_range() {
        assert_eq!(dur(0, 0).unwrap(), "0s");
        assert_eq!(dur(1, 500_000_000).unwrap(), "1.500s");
        assert_eq!(dur(0, -500_000_000).unwrap(), "-0.500s");
        assert_eq!(dur(1, 1).unwrap(), "1.000000001s");
        assert_eq!(dur(-MAX_DURATION, 0).unwrap(), "-315576000000s");
        assert_eq!(dur(MAX_DURATION + 1, 0), Err(FormError::OutOfRange));
        assert_eq!(dur(1, -1), Err(FormError::OutOfRange));
        assert_eq!(parse_duration("-0.5s"), Ok((0, -500_000_000)));
        assert_eq!(parse_duration("1.000000001s"), Ok((1, 1)));
        assert_eq!(parse_duration("315576000000s"), Ok((MAX_DURATION, 0)));
        assert_eq!(parse_duration("315576000001s"), Err(FormError::OutOfRange));
        assert_eq!(
            parse_duration("99999999999999999999999s"),
            Err(FormError::OutOfRange)
        );
        for bad in [
            "1.5",
            "1.0000000001s",
            "-s",
            ".5s",
            "+1s",
            "1 s",
            "1e3s",
            "1.s",
        ] {
            assert_eq!(parse_duration(bad), Err(FormError::Syntax), "{bad}");
        }
    }

    #[test]
    fn field_mask_paths() {
        let mut out = String::new();
        write_field_mask_path("foo_bar.baz_qux", &mut out).unwrap();
        assert_eq!(out, "fooBar.bazQux");
        for bad in ["fooBar", "foo__bar", "foo_3", "foo_"] {
            assert!(
                write_field_mask_path(bad, &mut String::new()).is_err(),
                "{bad}"
            );
        }
        let mut out = String::new();
        parse_field_mask_path("fooBar.bazQux", &mut out).unwrap();
        assert_eq!(out, "foo_bar.baz_qux");
        assert!(parse_field_mask_path("foo_bar", &mut String::new()).is_err());
    }
}
