//! Validation of the constraints a schema states beyond its type (lengths, patterns, ranges, item
//! counts). Decoding checks the type; `Validate` checks the rest. Copied verbatim by openapi-gen.

use std::collections::BTreeMap;
use std::fmt;

/// One broken constraint: where (a JSON-path-like location such as `telemetryRules.speedLimit` or
/// `daysOfWeek[2]`) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Every broken constraint of a value, in field order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationErrors(pub Vec<ValidationError>);

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}

/// A value that can check the constraints of its schema.
pub trait Validate {
    /// Appends the broken constraints of `self`, found at `path`, to `errors`.
    fn validate_at(&self, path: &str, errors: &mut Vec<ValidationError>);

    fn validate(&self) -> Result<(), ValidationErrors> {
        let mut errors = Vec::new();
        self.validate_at("", &mut errors);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ValidationErrors(errors))
        }
    }
}

impl<T: Validate> Validate for Option<T> {
    fn validate_at(&self, path: &str, errors: &mut Vec<ValidationError>) {
        if let Some(v) = self {
            v.validate_at(path, errors);
        }
    }
}

impl<T: Validate> Validate for Box<T> {
    fn validate_at(&self, path: &str, errors: &mut Vec<ValidationError>) {
        (**self).validate_at(path, errors);
    }
}

impl<T: Validate> Validate for Vec<T> {
    fn validate_at(&self, path: &str, errors: &mut Vec<ValidationError>) {
        for (i, v) in self.iter().enumerate() {
            v.validate_at(&index(path, i), errors);
        }
    }
}

impl<T: Validate> Validate for BTreeMap<String, T> {
    fn validate_at(&self, path: &str, errors: &mut Vec<ValidationError>) {
        for (k, v) in self {
            v.validate_at(&field(path, k), errors);
        }
    }
}

macro_rules! nothing_to_validate {
    ($($t:ty),*) => {$(
        impl Validate for $t {
            fn validate_at(&self, _path: &str, _errors: &mut Vec<ValidationError>) {}
        }
    )*};
}
nothing_to_validate!(
    String,
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    (),
    uuid::Uuid,
    chrono::DateTime<chrono::Utc>,
    chrono::NaiveDate,
    serde_json::Value
);

/// `path.name`, or `name` at the root.
pub fn field(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// `path[i]`.
pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

fn push(errors: &mut Vec<ValidationError>, path: &str, message: String) {
    errors.push(ValidationError {
        path: path.to_owned(),
        message,
    });
}

/// A property the spec requires in requests that the request leaves out (a `writeOnly` one,
/// decoded as optional because responses leave it out).
pub fn missing(path: &str, errors: &mut Vec<ValidationError>) {
    push(errors, path, "is required".to_owned());
}

/// Length in characters (JSON Schema counts code points).
pub fn length(
    value: &str,
    path: &str,
    min: Option<usize>,
    max: Option<usize>,
    errors: &mut Vec<ValidationError>,
) {
    let n = value.chars().count();
    if let Some(min) = min.filter(|m| n < *m) {
        push(
            errors,
            path,
            format!("must be at least {min} characters long (is {n})"),
        );
    }
    if let Some(max) = max.filter(|m| n > *m) {
        push(
            errors,
            path,
            format!("must be at most {max} characters long (is {n})"),
        );
    }
}

/// A compiled pattern: `regex::Regex`, or (for look-around and backreferences, which `regex`
/// lacks) `fancy_regex::Regex`, implemented in `patterns.rs` where a pattern needs it.
pub trait Matcher {
    fn matches(&self, value: &str) -> bool;
}

impl Matcher for regex::Regex {
    fn matches(&self, value: &str) -> bool {
        self.is_match(value)
    }
}

impl<T: Matcher> Matcher for std::sync::LazyLock<T> {
    fn matches(&self, value: &str) -> bool {
        T::matches(self, value)
    }
}

pub fn pattern(
    value: &str,
    path: &str,
    regex: &impl Matcher,
    source: &str,
    errors: &mut Vec<ValidationError>,
) {
    if !regex.matches(value) {
        push(errors, path, format!("must match the pattern `{source}`"));
    }
}

/// Numeric bounds, inclusive unless marked exclusive. Bounds in specs are small, so comparing as
/// `f64` is exact for them.
pub fn range(
    value: f64,
    path: &str,
    min: Option<(f64, bool)>,
    max: Option<(f64, bool)>,
    errors: &mut Vec<ValidationError>,
) {
    if let Some((min, exclusive)) = min {
        if exclusive && value <= min {
            push(
                errors,
                path,
                format!("must be greater than {min} (is {value})"),
            );
        } else if value < min {
            push(errors, path, format!("must be at least {min} (is {value})"));
        }
    }
    if let Some((max, exclusive)) = max {
        if exclusive && value >= max {
            push(
                errors,
                path,
                format!("must be less than {max} (is {value})"),
            );
        } else if value > max {
            push(errors, path, format!("must be at most {max} (is {value})"));
        }
    }
}

/// `format: email`: one `@` with text on both sides and no spaces (deliverability is the mail
/// server's business, not a schema's).
pub fn email(value: &str, path: &str, errors: &mut Vec<ValidationError>) {
    let ok = value.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty()
            && !domain.is_empty()
            && !domain.contains('@')
            && !value.contains(char::is_whitespace)
    });
    if !ok {
        push(errors, path, "must be an e-mail address".to_owned());
    }
}

/// `format: uri`: an absolute URI (RFC 3986): a scheme, a colon, and no spaces.
pub fn uri(value: &str, path: &str, errors: &mut Vec<ValidationError>) {
    let ok = value.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    }) && !value.contains(char::is_whitespace);
    if !ok {
        push(
            errors,
            path,
            "must be an absolute URI (for example https://example.com/hook)".to_owned(),
        );
    }
}

/// `format: uuid` held as text: what `uuid::Uuid` parses (hyphenated, simple, braced or URN).
pub fn uuid(value: &str, path: &str, errors: &mut Vec<ValidationError>) {
    if ::uuid::Uuid::try_parse(value).is_err() {
        push(
            errors,
            path,
            "must be a UUID (for example 3fa85f64-5717-4562-b3fc-2c963f66afa6)".to_owned(),
        );
    }
}

/// `format: date-time` held as text: an RFC 3339 timestamp with its offset, as
/// `chrono::DateTime` parses it.
pub fn date_time(value: &str, path: &str, errors: &mut Vec<ValidationError>) {
    if value.parse::<::chrono::DateTime<::chrono::FixedOffset>>().is_err() {
        push(
            errors,
            path,
            "must be an RFC 3339 date-time with an offset (for example 2024-05-31T10:00:00Z)"
                .to_owned(),
        );
    }
}

/// `format: date` held as text: a calendar date (`2024-05-31`).
pub fn date(value: &str, path: &str, errors: &mut Vec<ValidationError>) {
    if value.parse::<::chrono::NaiveDate>().is_err() {
        push(
            errors,
            path,
            "must be a date (for example 2024-05-31)".to_owned(),
        );
    }
}

/// `minProperties` / `maxProperties` of a map.
pub fn entries(
    count: usize,
    path: &str,
    min: Option<usize>,
    max: Option<usize>,
    errors: &mut Vec<ValidationError>,
) {
    if let Some(min) = min.filter(|m| count < *m) {
        push(
            errors,
            path,
            format!("must have at least {min} entries (has {count})"),
        );
    }
    if let Some(max) = max.filter(|m| count > *m) {
        push(
            errors,
            path,
            format!("must have at most {max} entries (has {count})"),
        );
    }
}

pub fn items(
    count: usize,
    path: &str,
    min: Option<usize>,
    max: Option<usize>,
    errors: &mut Vec<ValidationError>,
) {
    if let Some(min) = min.filter(|m| count < *m) {
        push(
            errors,
            path,
            format!("must have at least {min} items (has {count})"),
        );
    }
    if let Some(max) = max.filter(|m| count > *m) {
        push(
            errors,
            path,
            format!("must have at most {max} items (has {count})"),
        );
    }
}

pub fn unique<T: PartialEq>(values: &[T], path: &str, errors: &mut Vec<ValidationError>) {
    for (i, v) in values.iter().enumerate() {
        if values[..i].contains(v) {
            push(
                errors,
                &index(path, i),
                "duplicates an earlier item; items must be unique".to_owned(),
            );
            return;
        }
    }
}
