//! Time and identity as the test chooses them: a clock that stands still
//! until told to move, uids counted from one, or the machine's own.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where `creationTimestamp` and `deletionTimestamp` come from.
#[derive(Debug)]
pub enum Clock {
    /// The machine's clock.
    System,
    /// A clock that moves only when [`Clock::advance`] moves it.
    Manual(Mutex<SystemTime>),
}

impl Clock {
    /// A manual clock standing at `start`.
    pub fn manual(start: SystemTime) -> Self {
        Clock::Manual(Mutex::new(start))
    }

    /// The current time.
    pub fn now(&self) -> SystemTime {
        match self {
            Clock::System => SystemTime::now(),
            Clock::Manual(t) => *t.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// Moves a manual clock forward (a system clock ignores it).
    pub fn advance(&self, by: Duration) {
        if let Clock::Manual(t) = self {
            let mut t = t.lock().unwrap_or_else(|e| e.into_inner());
            *t += by;
        }
    }

    /// The current time as Kubernetes writes timestamps (RFC 3339, UTC,
    /// whole seconds).
    pub fn timestamp(&self) -> String {
        rfc3339(self.now())
    }
}

/// Where `metadata.uid` comes from.
#[derive(Debug)]
pub enum Uids {
    /// Random version-4 UUIDs.
    Random(RandomState),
    /// `00000000-0000-0000-0000-000000000001`, then `…02`, and so on.
    Sequential(AtomicU64),
}

impl Uids {
    /// Random uids.
    pub fn random() -> Self {
        Uids::Random(RandomState::new())
    }

    /// Uids counted from one.
    pub fn sequential() -> Self {
        Uids::Sequential(AtomicU64::new(0))
    }

    /// The next uid.
    pub fn next(&self, counter: u64) -> String {
        match self {
            Uids::Random(state) => {
                let a = state.hash_one((counter, 1u8));
                let b = state.hash_one((counter, 2u8));
                let v4 = (u128::from(a) << 64 | u128::from(b)) & !(0xf000u128 << 64) | (0x4000u128 << 64);
                let v4 = v4 & !(0xc000u128 << 48) | (0x8000u128 << 48);
                format_uuid(v4)
            }
            Uids::Sequential(n) => format_uuid(u128::from(n.fetch_add(1, Ordering::Relaxed) + 1)),
        }
    }
}

fn format_uuid(v: u128) -> String {
    let hex = format!("{v:032x}");
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// `2024-05-01T12:00:00Z`.
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    rfc3339_at(i64::try_from(secs).unwrap_or(i64::MAX), None)
}

/// `2024-05-01T12:00:00Z` for seconds since 1970, or with microseconds
/// `2024-05-01T12:00:00.000001Z` (`metav1.MicroTime`).
pub fn rfc3339_at(seconds: i64, micros: Option<u32>) -> String {
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let fraction = micros.map(|us| format!(".{us:06}")).unwrap_or_default();
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{fraction}Z", rest / 3600, rest / 60 % 60, rest % 60)
}

/// Seconds since 1970 of a `2024-05-01T12:00:00Z` timestamp (a fraction
/// and an offset of `Z` only, as the server writes them).
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, min, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || !text.ends_with('Z') {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + min * 60 + s)
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_back() {
        for seconds in [0, 59, 951_782_400, 1_700_000_000, 4_102_444_799] {
            assert_eq!(parse_rfc3339(&rfc3339_at(seconds, None)), Some(seconds));
        }
        assert_eq!(parse_rfc3339("2024-05-01T12:00:00.5Z"), Some(1_714_564_800));
        assert_eq!(parse_rfc3339("yesterday"), None);
    }

    #[test]
    fn timestamps_are_rfc3339_in_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day of a century year) and 2024-12-31.
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400 + 3_723)), "2000-02-29T01:02:03Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(1_735_689_599)), "2024-12-31T23:59:59Z");
    }

    #[test]
    fn uids_are_uuids() {
        let seq = Uids::sequential();
        assert_eq!(seq.next(0), "00000000-0000-0000-0000-000000000001");
        assert_eq!(seq.next(0), "00000000-0000-0000-0000-000000000002");
        let random = Uids::random();
        let (a, b) = (random.next(1), random.next(2));
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4", "{a}");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"), "{a}");
    }
}
