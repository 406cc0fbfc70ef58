//! Times as people and programs see them: local time in human output,
//! RFC 3339 UTC in JSON, and `--since` values (a date, a time, `3d`,
//! `yesterday`).

use chrono::{DateTime, Duration, Local, NaiveDate, NaiveTime, TimeZone, Utc};

/// A time for human output: local time, to the minute, with the offset
/// so a reader in another zone is not misled ("2026-03-01 14:05 +01:00").
pub fn local(ms: i64) -> String {
    match DateTime::<Utc>::from_timestamp_millis(ms) {
        Some(t) => t.with_timezone(&Local).format("%Y-%m-%d %H:%M %:z").to_string(),
        None => String::new(),
    }
}

/// An RFC 3339 time (as stored in reports) in local time; a string that
/// is not one is shown as it is.
pub fn local_of(rfc3339: &str) -> String {
    match DateTime::parse_from_rfc3339(rfc3339) {
        Ok(t) => local(t.timestamp_millis()),
        Err(_) => rfc3339.to_string(),
    }
}

/// Serialize a time in ms as RFC 3339 UTC (`--json`).
pub fn serialize_utc<S: serde::Serializer>(ms: &i64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::store::fmt_time(*ms))
}

/// A `--since` value, in ms: RFC 3339 (`2026-03-01T09:00:00Z`), a date
/// (`2026-03-01`, midnight local time), `today`, `yesterday`, or an age
/// (`90m`, `12h`, `3d`, `2w`) counted back from `now`.
pub fn parse_since(s: &str, now: DateTime<Local>) -> Result<i64, String> {
    let t = s.trim();
    let err = || {
        format!("invalid time {s:?} (want a date like 2026-03-01, an RFC 3339 time, today, yesterday, or an age like 3d, 12h, 90m, 2w)")
    };
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Ok(d.timestamp_millis());
    }
    let midnight = |d: NaiveDate| -> Result<i64, String> {
        Local.from_local_datetime(&d.and_time(NaiveTime::MIN)).earliest().map(|x| x.timestamp_millis()).ok_or_else(err)
    };
    match t.to_ascii_lowercase().as_str() {
        "today" => return midnight(now.date_naive()),
        "yesterday" => return midnight(now.date_naive() - Duration::days(1)),
        _ => {}
    }
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return midnight(d);
    }
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: i64 = num.parse().map_err(|_| err())?;
    let age = match unit.trim() {
        "m" | "min" | "minutes" => Duration::try_minutes(n),
        "h" | "hours" => Duration::try_hours(n),
        "d" | "days" => Duration::try_days(n),
        "w" | "weeks" => Duration::try_weeks(n),
        _ => None,
    }
    .ok_or_else(err)?;
    Ok((now - age).timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_dates_times_and_ages() {
        let now = Local.with_ymd_and_hms(2026, 3, 10, 15, 30, 0).unwrap();
        let day = |y, m, d| Local.with_ymd_and_hms(y, m, d, 0, 0, 0).unwrap().timestamp_millis();
        assert_eq!(parse_since("2026-03-01", now).unwrap(), day(2026, 3, 1));
        assert_eq!(parse_since("yesterday", now).unwrap(), day(2026, 3, 9));
        assert_eq!(parse_since("today", now).unwrap(), day(2026, 3, 10));
        assert_eq!(parse_since("3d", now).unwrap(), (now - Duration::days(3)).timestamp_millis());
        assert_eq!(parse_since("12h", now).unwrap(), (now - Duration::hours(12)).timestamp_millis());
        assert_eq!(parse_since("2026-03-01T00:00:00Z", now).unwrap(), 1_772_323_200_000);
        for bad in ["", "3x", "soon", "2026-13-01", "d"] {
            assert!(parse_since(bad, now).unwrap_err().contains("invalid time"), "{bad}");
        }
    }
}
