//! UTC timestamps for run ids and reports, without a date library.
//!
//! Only two forms are needed: RFC 3339 (`2026-11-22T03:15:00Z`, in reports) and its compact
//! ISO 8601 basic form (`20261122T031500Z`, in run ids and so in directory names, where
//! colons are unwelcome). The calendar conversion is the well-known days-to-civil algorithm
//! for the proleptic Gregorian calendar (H. Hinnant, "chrono-Compatible Low-Level Date
//! Algorithms", `civil_from_days`).

use std::time::{SystemTime, UNIX_EPOCH};

/// `(year, month, day, hour, minute, second)` in UTC.
fn utc_fields(time: SystemTime) -> (i64, u32, u32, u32, u32, u32) {
    let seconds = match time.duration_since(UNIX_EPOCH) {
        Ok(since) => since.as_secs() as i64,
        Err(before) => -(before.duration().as_secs() as i64),
    };
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400) as u32;
    // civil_from_days: shift the epoch to 0000-03-01, count 400-year eras.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (
        year,
        month,
        day,
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
    )
}

/// RFC 3339 UTC: `2026-11-22T03:15:00Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = utc_fields(time);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// ISO 8601 basic UTC: `20261122T031500Z`.
pub fn compact(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = utc_fields(time);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn known_instants() {
        let at = |seconds: u64| UNIX_EPOCH + Duration::from_secs(seconds);
        assert_eq!(rfc3339(at(0)), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day in a century year divisible by 400).
        assert_eq!(rfc3339(at(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(at(1_700_000_000)), "2023-11-14T22:13:20Z");
        assert_eq!(compact(at(1_700_000_000)), "20231114T221320Z");
        // 2100-03-01, after a non-leap century February.
        assert_eq!(rfc3339(at(4_107_542_400)), "2100-03-01T00:00:00Z");
    }
}
