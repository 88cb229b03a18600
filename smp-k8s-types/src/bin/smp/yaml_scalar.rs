//! What a YAML scalar is, as go-yaml v2 (the YAML reader of kubectl)
//! decides it: YAML 1.1's words for booleans and null (`yes`, `on`, `y`,
//! `~`), integers in Go's syntax once underscores are dropped (`017` is
//! octal, `0x1F` hex, `1_000` a thousand), floats of a fixed pattern, and
//! explicit tags (`!!str`, `!!int`, `!!binary`, ...). A quoted or block
//! scalar without a tag is text.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// A scalar typed as go-yaml v2 types it.
#[derive(Debug, PartialEq)]
pub enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer beyond `int64`, up to `uint64`.
    Uint(u64),
    Float(f64),
    Str(String),
}

/// The type of a scalar: its `value`, its tag as the parser gives it (a
/// long `tag:yaml.org,2002:` tag, `!` or a local tag), and whether it was
/// written plain (the tag may then be implied by the value).
pub fn scalar(value: &str, tag: Option<&str>, plain: bool) -> Result<Scalar, String> {
    let tag = match tag {
        None if !plain => return Ok(Scalar::Str(value.to_string())),
        None => Tag::Implicit,
        Some(tag) => Tag::of(tag),
    };
    match tag {
        Tag::Binary => return binary(value),
        Tag::Other => return Ok(Scalar::Str(value.to_string())),
        _ => {}
    }
    let (found, resolved) = resolve(value, tag);
    match (tag, found) {
        (Tag::Implicit | Tag::Str, _) => Ok(resolved),
        (tag, found) if tag == found => Ok(resolved),
        (Tag::Float, Tag::Int) => match resolved {
            Scalar::Int(i) => Ok(Scalar::Float(i as f64)),
            _ => Err(cannot_decode(found, value, tag)),
        },
        (tag, found) => Err(cannot_decode(found, value, tag)),
    }
}

/// The tags go-yaml v2 resolves, and the rest.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tag {
    /// No tag: a plain scalar's type comes from its text.
    Implicit,
    Null,
    Bool,
    Str,
    Int,
    Float,
    Timestamp,
    Binary,
    /// A tag go-yaml leaves alone (`!`, `!custom`, `!!set`, ...): the
    /// scalar is its text.
    Other,
}

impl Tag {
    fn of(tag: &str) -> Tag {
        match tag.strip_prefix("tag:yaml.org,2002:") {
            Some("null") => Tag::Null,
            Some("bool") => Tag::Bool,
            Some("str") => Tag::Str,
            Some("int") => Tag::Int,
            Some("float") => Tag::Float,
            Some("timestamp") => Tag::Timestamp,
            Some("binary") => Tag::Binary,
            _ => Tag::Other,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Tag::Null => "!!null",
            Tag::Bool => "!!bool",
            Tag::Int => "!!int",
            Tag::Float => "!!float",
            Tag::Timestamp => "!!timestamp",
            Tag::Binary => "!!binary",
            Tag::Implicit | Tag::Str | Tag::Other => "!!str",
        }
    }
}

fn cannot_decode(found: Tag, value: &str, tag: Tag) -> String {
    format!("cannot decode {} `{value}` as a {}", found.name(), tag.name())
}

/// Whether go-yaml v2 writes `s` as a plain scalar: it reads back as the
/// same text (not a boolean, number, null or timestamp) and is not a
/// sexagesimal number (`1:30`), which YAML 1.1 readers would take for one.
pub fn reads_back_as_text(s: &str) -> bool {
    resolve(s, Tag::Implicit).0 == Tag::Str && !is_base60_float(s)
}

/// YAML 1.1's sexagesimal floats, which go-yaml quotes:
/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
fn is_base60_float(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !body.starts_with(|c: char| c.is_ascii_digit()) || !body.contains(':') {
        return false;
    }
    let (body, fraction) = body.split_once('.').unwrap_or((body, ""));
    if !fraction.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return false;
    }
    let mut parts = body.split(':');
    let head = parts.next().unwrap_or("");
    let digits_or_underscores = |p: &str| p.chars().all(|c| c.is_ascii_digit() || c == '_');
    digits_or_underscores(head)
        && parts.all(|p| {
            let b = p.as_bytes();
            match b.len() {
                1 => b[0].is_ascii_digit(),
                2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
                _ => false,
            }
        })
}

/// go-yaml v2's `resolve`: the type the text of a scalar has, given its
/// tag (which only `!!str` and `!!timestamp` change here).
fn resolve(value: &str, tag: Tag) -> (Tag, Scalar) {
    let text = || Scalar::Str(value.to_string());
    if tag == Tag::Str {
        return (Tag::Str, text());
    }
    match value {
        "" | "~" | "null" | "Null" | "NULL" => return (Tag::Null, Scalar::Null),
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return (Tag::Bool, Scalar::Bool(true));
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return (Tag::Bool, Scalar::Bool(false));
        }
        ".nan" | ".NaN" | ".NAN" => return (Tag::Float, Scalar::Float(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return (Tag::Float, Scalar::Float(f64::INFINITY)),
        "-.inf" | "-.Inf" | "-.INF" => return (Tag::Float, Scalar::Float(f64::NEG_INFINITY)),
        _ => {}
    }
    match value.as_bytes()[0] {
        b'.' => match parse_float(value) {
            Some(f) => (Tag::Float, Scalar::Float(f)),
            None => (Tag::Str, text()),
        },
        b'0'..=b'9' | b'+' | b'-' => {
            if matches!(tag, Tag::Implicit | Tag::Timestamp) && looks_like_timestamp(value) {
                // Decoded into an untyped value, a timestamp stays text.
                return (Tag::Timestamp, text());
            }
            match number(&value.replace('_', "")) {
                Some(n) => n,
                None => (Tag::Str, text()),
            }
        }
        _ => (Tag::Str, text()),
    }
}

/// A number written as go-yaml v2 reads one (underscores already
/// dropped): a Go integer of any base, else a float of YAML's pattern.
fn number(plain: &str) -> Option<(Tag, Scalar)> {
    if let Some(i) = parse_int(plain) {
        return Some((Tag::Int, Scalar::Int(i)));
    }
    if let Some(u) = parse_uint(plain) {
        return Some((Tag::Int, Scalar::Uint(u)));
    }
    // go-yaml's own `0b` and `-0b` cases come after: Go's base-0 parsers
    // already read them.
    let f = parse_float(plain).filter(|_| is_yaml_float(plain))?;
    Some((Tag::Float, Scalar::Float(f)))
}

/// Go's `strconv.ParseInt(s, 0, 64)`.
fn parse_int(s: &str) -> Option<i64> {
    let (negative, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = parse_uint(digits)?;
    if negative { 0i64.checked_sub_unsigned(magnitude) } else { i64::try_from(magnitude).ok() }
}

/// Go's `strconv.ParseUint(s, 0, 64)` on text without underscores: a
/// `0x`, `0o` or `0b` prefix (with digits after it) or a leading `0`
/// (octal) picks the base.
fn parse_uint(s: &str) -> Option<u64> {
    let lower = |i: usize| s.as_bytes().get(i).map(u8::to_ascii_lowercase);
    let (base, digits) = match (lower(0), lower(1)) {
        (Some(b'0'), Some(b'x')) if s.len() >= 3 => (16, &s[2..]),
        (Some(b'0'), Some(b'o')) if s.len() >= 3 => (8, &s[2..]),
        (Some(b'0'), Some(b'b')) if s.len() >= 3 => (2, &s[2..]),
        (Some(b'0'), Some(_)) => (8, &s[1..]),
        _ => (10, s),
    };
    if !is_digits(digits, base) {
        return None;
    }
    u64::from_str_radix(digits, base).ok()
}

/// Whether `s` is one or more digits of `base` (no sign: Rust's integer
/// parsers take a `+` that Go's do not).
fn is_digits(s: &str, base: u32) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_digit(base))
}

/// The float pattern of go-yaml v2:
/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let rest = if let Some(fraction) = s.strip_prefix('.') {
        let n = digits(fraction);
        if n == 0 {
            return false;
        }
        &fraction[n..]
    } else {
        let n = digits(s);
        if n == 0 {
            return false;
        }
        let after = &s[n..];
        match after.strip_prefix('.') {
            Some(fraction) => &fraction[digits(fraction)..],
            None => after,
        }
    };
    match rest.strip_prefix(['e', 'E']) {
        None => rest.is_empty(),
        Some(exponent) => {
            let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
            let n = digits(exponent);
            n > 0 && n == exponent.len()
        }
    }
}

/// Go's `strconv.ParseFloat(s, 64)` on the decimal forms the resolver
/// passes it: underscores only between digits, and a value too large for
/// a float is an error (not an infinity).
fn parse_float(s: &str) -> Option<f64> {
    if s.contains('_') && !underscores_between_digits(s) {
        return None;
    }
    let plain = s.replace('_', "");
    let body = plain.strip_prefix(['-', '+']).unwrap_or(&plain);
    let decimal = body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if !decimal || !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    plain.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Go's rule for underscores in numbers: each stands between two digits.
fn underscores_between_digits(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().all(|(i, c)| {
        *c != b'_' || (i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

/// Whether go-yaml v2 reads `s` as a timestamp: four digits and `-`, then
/// one of its layouts as Go's `time.Parse` reads them: a date
/// (`2006-1-2`), or a date and a time with `T` or `t` and a zone (`Z` or
/// `+07:00`), or with spaces and no zone; seconds may have a fraction.
fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() <= 4 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year: u32 = s[..4].parse().unwrap_or(0);
    let mut rest = &s[5..];
    let (Some(month), Some(b'-')) = (field(&mut rest), take(&mut rest)) else { return false };
    let Some(day) = field(&mut rest) else { return false };
    if !(1..=12).contains(&month) || day < 1 || day > days_in(month, year) {
        return false;
    }
    let zoned = match take(&mut rest) {
        None => return true,
        Some(b'T' | b't') => true,
        Some(b' ') => {
            rest = rest.trim_start_matches(' ');
            false
        }
        Some(_) => return false,
    };
    let time = (field(&mut rest), take(&mut rest), field(&mut rest), take(&mut rest), field(&mut rest));
    let (Some(hour), Some(b':'), Some(minute), Some(b':'), Some(second)) = time else { return false };
    if hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    if rest.len() >= 2 && matches!(rest.as_bytes()[0], b'.' | b',') && rest.as_bytes()[1].is_ascii_digit() {
        rest = rest[1..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    if zoned {
        if let Some(after) = rest.strip_prefix('Z') {
            rest = after;
        } else {
            let z = rest.as_bytes();
            let two = |i: usize| z[i].is_ascii_digit() && z[i + 1].is_ascii_digit();
            if z.len() < 6 || !matches!(z[0], b'+' | b'-') || z[3] != b':' || !two(1) || !two(4) {
                return false;
            }
            let (hours, minutes): (u32, u32) = (rest[1..3].parse().unwrap_or(99), rest[4..6].parse().unwrap_or(99));
            if hours > 24 || minutes > 60 {
                return false;
            }
            rest = &rest[6..];
        }
    }
    rest.is_empty()
}

/// One or two digits, as Go's `time` package reads a month, a day or a
/// time field.
fn field(rest: &mut &str) -> Option<u32> {
    let b = rest.as_bytes();
    let len = match (b.first(), b.get(1)) {
        (Some(d), Some(e)) if d.is_ascii_digit() && e.is_ascii_digit() => 2,
        (Some(d), _) if d.is_ascii_digit() => 1,
        _ => return None,
    };
    let n = rest[..len].parse().ok();
    *rest = &rest[len..];
    n
}

/// The next character, as its byte when it is ASCII (`0xFF` for any
/// other).
fn take(rest: &mut &str) -> Option<u8> {
    let c = rest.chars().next()?;
    *rest = &rest[c.len_utf8()..];
    Some(if c.is_ascii() { c as u8 } else { 0xFF })
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A `!!binary` scalar: base64 as Go's standard encoding reads it (line
/// breaks skipped, padding required), the bytes as text.
fn binary(value: &str) -> Result<Scalar, String> {
    const GO_STD: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
    );
    let text: String = value.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
    let bytes = GO_STD.decode(text).map_err(|_| "!!binary value contains invalid base64 data".to_string())?;
    // JSON text holds the bytes as Go writes them: U+FFFD for each bad byte.
    Ok(Scalar::Str(smp_core::text::utf8_as_go_reads(&bytes).into_owned()))
}

/// A float mapping key as `sigs.k8s.io/yaml` writes it: Go's
/// `FormatFloat(f, 'g', -1, 32)`, with YAML's names for the infinities and
/// NaN.
pub fn float_key(f: f64) -> String {
    let f = f as f32;
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    // Rust's `{:e}` gives the shortest digits that read back as the same
    // float32, as Go's -1 precision does.
    shortest_g(&format!("{f:e}"))
}

/// A float as go-yaml v2 writes it: Go's `FormatFloat(f, 'g', -1, 64)`
/// (`1e+06`, `0.5`, `1.2345675e+06`).
pub fn float_text(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    shortest_g(&format!("{f:e}"))
}

/// Go's `'g'` format with the shortest digits, from Rust's `{:e}` text of
/// the same float: an exponent (two digits at least) below 1e-4 and from
/// 1e6 on, else plain decimals.
fn shortest_g(scientific: &str) -> String {
    let (mantissa, exponent) = scientific.split_once('e').expect("`{:e}` has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` has an integer exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-4..6).contains(&exponent) {
        let fraction = if digits.len() > 1 { format!(".{}", &digits[1..]) } else { String::new() };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{}{fraction}e{exp_sign}{:02}", &digits[..1], exponent.unsigned_abs());
    }
    if exponent < 0 {
        return format!("{sign}0.{}{digits}", "0".repeat(exponent.unsigned_abs() as usize - 1));
    }
    let int_len = exponent as usize + 1;
    if digits.len() <= int_len {
        format!("{sign}{digits}{}", "0".repeat(int_len - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> Scalar {
        scalar(text, None, true).unwrap()
    }

    #[test]
    fn plain_scalars_are_typed_as_kubectl_types_them() {
        // What kubectl patch --local prints for `x: TEXT` in a YAML file.
        for (text, b) in [("yes", true), ("Yes", true), ("y", true), ("N", false), ("on", true), ("OFF", false)] {
            assert_eq!(plain(text), Scalar::Bool(b), "{text}");
        }
        assert_eq!(plain("tRue"), Scalar::Str("tRue".into()));
        for text in ["~", "Null", ""] {
            assert_eq!(plain(text), Scalar::Null, "{text}");
        }
        for (text, i) in [
            ("017", 15),
            ("0x1F", 31),
            ("1_000", 1000),
            ("0b101", 5),
            ("-0b101", -5),
            ("0o17", 15),
            ("+12", 12),
            ("-017", -15),
            ("0_1", 1),
            ("0x_1F", 31),
            ("-0x1F", -31),
            ("0B11", 3),
            ("0O17", 15),
            ("1__0", 10),
            ("-0", 0),
            ("+0", 0),
            ("00", 0),
            ("0_", 0),
            ("1_", 1),
            ("+0b11", 3),
        ] {
            assert_eq!(plain(text), Scalar::Int(i), "{text}");
        }
        assert_eq!(plain("9223372036854775808"), Scalar::Uint(1 << 63));
        for (text, f) in [
            ("08", 8.0),
            ("1.5e3", 1500.0),
            (".5", 0.5),
            ("1_0.5", 10.5),
            ("6.", 6.0),
            ("+.5", 0.5),
            (".5_0", 0.5),
            ("1_000.5", 1000.5),
            ("99999999999999999999", 1e20),
            ("+9223372036854775808", 9223372036854775808.0),
            ("0.", 0.0),
            (".5E+3", 500.0),
            ("-.5", -0.5),
        ] {
            assert_eq!(plain(text), Scalar::Float(f), "{text}");
        }
        for text in [
            "tRue",
            "1:30",
            ".x",
            "0x",
            "1e",
            "_1",
            "1.5.5",
            "0b2",
            "1e400",
            ".e3",
            ".",
            "+.",
            "2001-12-14",
            "2001-1-2",
            "1_2:3",
            "190:20:30",
            ".nAn",
            "<<",
        ] {
            assert_eq!(plain(text), Scalar::Str(text.into()), "{text}");
        }
        assert!(matches!(plain(".NaN"), Scalar::Float(f) if f.is_nan()));
        assert_eq!(plain("+.Inf"), Scalar::Float(f64::INFINITY));
    }

    #[test]
    fn quoted_scalars_are_text_and_tags_are_checked() {
        assert_eq!(scalar("yes", None, false).unwrap(), Scalar::Str("yes".into()));
        let tagged = |tag: &str, text: &str| scalar(text, Some(&format!("tag:yaml.org,2002:{tag}")), false);
        assert_eq!(tagged("str", "yes").unwrap(), Scalar::Str("yes".into()));
        assert_eq!(tagged("int", "5").unwrap(), Scalar::Int(5));
        assert_eq!(tagged("float", "3").unwrap(), Scalar::Float(3.0));
        assert_eq!(tagged("str", "").unwrap(), Scalar::Str(String::new()));
        assert_eq!(tagged("timestamp", "2001-12-14").unwrap(), Scalar::Str("2001-12-14".into()));
        assert_eq!(tagged("binary", "aGVs\nbG8=").unwrap(), Scalar::Str("hello".into()));
        assert_eq!(scalar("12", Some("!"), true).unwrap(), Scalar::Str("12".into()));
        assert_eq!(scalar("3", Some("!custom"), true).unwrap(), Scalar::Str("3".into()));
        // kubectl's messages for the same documents.
        assert_eq!(tagged("int", "1.5").unwrap_err(), "cannot decode !!float `1.5` as a !!int");
        assert_eq!(tagged("timestamp", "foo").unwrap_err(), "cannot decode !!str `foo` as a !!timestamp");
        assert_eq!(tagged("null", "foo").unwrap_err(), "cannot decode !!str `foo` as a !!null");
        assert_eq!(tagged("binary", "aGVs bG8=").unwrap_err(), "!!binary value contains invalid base64 data");
    }

    #[test]
    fn timestamps_and_sexagesimals_are_not_text_to_go_yaml() {
        for s in [
            "2001-12-14",
            "2001-1-2",
            "2001-12-14T21:59:43.10Z",
            "2001-12-14t21:59:43+05:30",
            "2001-12-14 21:59:43.10",
            "2001-12-14  1:2:3",
            "2000-02-29",
            "1:30",
            "-1:30:00.5",
        ] {
            assert!(!reads_back_as_text(s), "{s}");
        }
        for s in [
            "2001-12-14 21:59:43.10 -5",
            "2001-13-14",
            "2001-02-29",
            "2001-12-14T21:59:43",
            "2001-12-14x",
            "20011-12-14",
            "1:60",
            "a:30",
            "12:3:45x",
            "2001-12-14\u{feff}",
            "2001-1-1é",
            "2001-12-14T1:2:3é",
        ] {
            assert!(reads_back_as_text(s), "{s}");
        }
    }

    #[test]
    fn float_keys_are_written_as_float32() {
        // kubectl turns these YAML keys into these JSON keys.
        for (f, text) in [
            (0.1234567891, "0.12345679"),
            (1e6, "1e+06"),
            (123456.5, "123456.5"),
            (1234567.0, "1.234567e+06"),
            (1e-5, "1e-05"),
            (1e21, "1e+21"),
            (1.5, "1.5"),
            (1000.0, "1000"),
            (0.0001, "0.0001"),
            (-2.5, "-2.5"),
        ] {
            assert_eq!(float_key(f), text, "{f}");
        }
    }
}
