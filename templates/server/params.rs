//! Reading path, query, header and cookie parameters into typed values. Copied verbatim by openapi-gen.
//!
//! A value is parsed by a function `&str -> Result<T, String>` whose message says what is wrong with
//! the value; the reader adds which parameter it was, so every message names it.

use crate::models::style::{self, Shape, Style, Value};
use crate::models::Validate;
use crate::models::validation::ValidationError;
use crate::models::wire::{NumericPattern, WireNumber, parse_numeric};
use crate::rejection::{Rejection, RejectionKind};
use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use std::borrow::Cow;
use std::fmt::Display;
use std::str::FromStr;

/// Where a parameter is read from, as messages name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum In {
    Path,
    Query,
    Header,
    Cookie,
}

impl In {
    fn describe(self) -> &'static str {
        match self {
            In::Path => "path parameter",
            In::Query => "query parameter",
            In::Header => "header",
            In::Cookie => "cookie",
        }
    }
}

/// The rejection of parameter `name`: `query parameter `take`: must be at most 500 (is 501)`.
pub fn invalid(location: In, name: &str, problem: impl Display) -> Rejection {
    Rejection::new(
        RejectionKind::InvalidParameter,
        format!("{} `{name}`: {problem}", location.describe()),
    )
}

/// The path parameters of the matched route, percent-decoded, in path order (and the path, for
/// segments that mix text and parameters).
pub struct Path(RawPathParams, String);

impl Path {
    pub async fn from_parts(parts: &mut Parts) -> Result<Self, Rejection> {
        match RawPathParams::from_request_parts(parts, &()).await {
            Ok(params) => Ok(Path(params, parts.uri.path().to_owned())),
            Err(e) => Err(Rejection::new(
                RejectionKind::InvalidParameter,
                e.body_text(),
            )),
        }
    }

    fn raw(&self, index: usize, name: &str) -> Result<&str, Rejection> {
        self.0
            .iter()
            .nth(index)
            .map(|(_, value)| value)
            .ok_or_else(|| invalid(In::Path, name, "is missing"))
    }

    /// The parameter at `index` in the path (named `name` in the spec).
    pub fn required<T>(
        &self,
        index: usize,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<T, Rejection> {
        parse(self.raw(index, name)?).map_err(|problem| invalid(In::Path, name, problem))
    }

    /// A list parameter (`style: simple`: items separated by commas).
    pub fn required_list<T>(
        &self,
        index: usize,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Vec<T>, Rejection> {
        split_list(self.raw(index, name)?, &parse)
            .map_err(|problem| invalid(In::Path, name, problem))
    }

    fn piece(
        &self,
        segment: usize,
        literals: &[&str],
        piece: usize,
        name: &str,
    ) -> Result<String, Rejection> {
        let raw = split_segment(&self.1, segment, literals)
            .and_then(|pieces| pieces.get(piece).copied())
            .ok_or_else(|| Rejection::new(RejectionKind::NotFound, format!("no operation matches {}", self.1)))?;
        style::decode(raw)
            .map(Cow::into_owned)
            .ok_or_else(|| invalid(In::Path, name, "is not percent-encoded UTF-8"))
    }

    /// The parameter `piece` (counting from 0) of the path segment `segment` that mixes it with
    /// text (`literals`, see [`segment_matches`]).
    pub fn required_piece<T>(
        &self,
        segment: usize,
        literals: &[&str],
        piece: usize,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<T, Rejection> {
        parse(&self.piece(segment, literals, piece, name)?)
            .map_err(|problem| invalid(In::Path, name, problem))
    }

    /// A list parameter in a mixed segment (items separated by commas).
    pub fn required_piece_list<T>(
        &self,
        segment: usize,
        literals: &[&str],
        piece: usize,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Vec<T>, Rejection> {
        split_list(&self.piece(segment, literals, piece, name)?, &parse)
            .map_err(|problem| invalid(In::Path, name, problem))
    }

    /// A path parameter in `style` (other than plain `simple` text), read from the raw text of
    /// path segment `segment` (counting from 0).
    pub fn styled(
        &self,
        segment: usize,
        name: &str,
        style: Style,
        explode: bool,
        shape: Shape,
    ) -> Result<Value, Rejection> {
        let raw = self
            .1
            .strip_prefix('/')
            .and_then(|p| p.split('/').nth(segment))
            .ok_or_else(|| invalid(In::Path, name, "is missing"))?;
        style::read_path(style, explode, name, raw, shape)
            .map_err(|problem| invalid(In::Path, name, problem))
    }
}

/// Whether segment `segment` (counting from 0) of `path` is the texts `literals` around non-empty
/// parameter values: `["", ".json"]` for `{sid}.json`, `["", ".", ""]` for `{name}.{ext}`.
pub fn segment_matches(path: &str, segment: usize, literals: &[&str]) -> bool {
    split_segment(path, segment, literals).is_some()
}

/// Whether the query has each of `pairs` (the query an operation's path carries, `?beta=true`).
pub fn query_matches(query: Option<&str>, pairs: &[(&str, &str)]) -> bool {
    let query = Query::parse(query);
    pairs
        .iter()
        .all(|(name, value)| query.pairs.iter().any(|(n, v)| n == name && v == value))
}

/// The raw (percent-encoded) parameter values of a mixed segment. A text between two parameters is
/// its first occurrence after the first one's value (the generated client escapes it there).
fn split_segment<'p>(path: &'p str, segment: usize, literals: &[&str]) -> Option<Vec<&'p str>> {
    let text = path.strip_prefix('/')?.split('/').nth(segment)?;
    let (first, rest) = literals.split_first()?;
    let (last, middle) = rest.split_last()?;
    let mut text = text.strip_prefix(first)?.strip_suffix(last)?;
    let mut values = Vec::with_capacity(middle.len() + 1);
    for literal in middle {
        let at = text.get(1..)?.find(literal)? + 1;
        values.push(&text[..at]);
        text = &text[at + literal.len()..];
    }
    if text.is_empty() || values.iter().any(|v| v.is_empty()) {
        return None;
    }
    values.push(text);
    Some(values)
}

/// The query string, decoded once (`application/x-www-form-urlencoded` rules, `+` is a space).
pub struct Query<'a> {
    pairs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    raw: Option<&'a str>,
}

impl<'a> Query<'a> {
    pub fn parse(raw: Option<&'a str>) -> Self {
        Query {
            pairs: raw
                .map(|q| form_urlencoded::parse(q.as_bytes()).collect())
                .unwrap_or_default(),
            raw,
        }
    }

    /// A parameter in `style` (or an object): its pairs are split before they are decoded, so an
    /// encoded delimiter stays part of a value. `fields` and `others` as in
    /// [`style::read_query`]. Absent is `None`.
    pub fn styled(
        &self,
        name: &str,
        style: Style,
        explode: bool,
        shape: Shape,
        fields: Option<&[&str]>,
        others: &[&str],
    ) -> Result<Option<Value>, Rejection> {
        let pairs: Vec<(Cow<'_, str>, &str)> = self
            .raw
            .unwrap_or_default()
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                let key = form_urlencoded::parse(key.as_bytes())
                    .next()
                    .map(|(k, _)| k)
                    .unwrap_or_default();
                (key, value)
            })
            .collect();
        style::read_query(style, explode, name, &pairs, shape, fields, others)
            .map_err(|problem| invalid(In::Query, name, problem))
    }

    fn values<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.pairs
            .iter()
            .filter(move |(key, _)| key == name)
            .map(|(_, value)| value.as_ref())
    }

    /// A scalar parameter; absent is `None`, given twice is an error.
    pub fn optional<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, Rejection> {
        let mut values = self.values(name);
        let Some(first) = values.next() else {
            return Ok(None);
        };
        if values.next().is_some() {
            return Err(invalid(In::Query, name, "is given more than once"));
        }
        parse(first)
            .map(Some)
            .map_err(|problem| invalid(In::Query, name, problem))
    }

    pub fn required<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<T, Rejection> {
        self.optional(name, parse)?
            .ok_or_else(|| invalid(In::Query, name, "is required"))
    }

    /// A list parameter: `?id=1&id=2` when `explode` (the default), `?id=1,2` otherwise. Absent is `None`.
    pub fn optional_list<T>(
        &self,
        name: &str,
        explode: bool,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<Vec<T>>, Rejection> {
        let mut values = self.values(name).peekable();
        if values.peek().is_none() {
            return Ok(None);
        }
        let parsed = if explode {
            values.map(&parse).collect::<Result<Vec<T>, String>>()
        } else {
            let joined: Vec<&str> = values.collect();
            split_list(&joined.join(","), &parse)
        };
        parsed
            .map(Some)
            .map_err(|problem| invalid(In::Query, name, problem))
    }

    pub fn required_list<T>(
        &self,
        name: &str,
        explode: bool,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Vec<T>, Rejection> {
        self.optional_list(name, explode, parse)?
            .ok_or_else(|| invalid(In::Query, name, "is required"))
    }
}

/// Request headers, looked up by case-insensitive name.
pub struct Headers<'a>(pub &'a HeaderMap);

impl Headers<'_> {
    fn raw(&self, name: &str) -> Result<Option<&str>, Rejection> {
        match self.0.get(name) {
            None => Ok(None),
            Some(value) => value
                .to_str()
                .map(Some)
                .map_err(|_| invalid(In::Header, name, "is not visible ASCII text")),
        }
    }

    pub fn optional<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, Rejection> {
        match self.raw(name)? {
            None => Ok(None),
            Some(raw) => parse(raw.trim())
                .map(Some)
                .map_err(|problem| invalid(In::Header, name, problem)),
        }
    }

    pub fn required<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<T, Rejection> {
        self.optional(name, parse)?
            .ok_or_else(|| invalid(In::Header, name, "is required"))
    }

    /// A list header: items separated by commas.
    pub fn optional_list<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<Vec<T>>, Rejection> {
        match self.raw(name)? {
            None => Ok(None),
            Some(raw) => split_list(raw, &parse)
                .map(Some)
                .map_err(|problem| invalid(In::Header, name, problem)),
        }
    }

    pub fn required_list<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Vec<T>, Rejection> {
        self.optional_list(name, parse)?
            .ok_or_else(|| invalid(In::Header, name, "is required"))
    }

    /// An array or object header (`simple`). Absent is `None`.
    pub fn styled(
        &self,
        name: &str,
        explode: bool,
        shape: Shape,
    ) -> Result<Option<Value>, Rejection> {
        match self.raw(name)? {
            None => Ok(None),
            Some(raw) => style::read_header(explode, raw, shape)
                .map(Some)
                .map_err(|problem| invalid(In::Header, name, problem)),
        }
    }
}

/// The `name=value` pairs of the `Cookie` headers.
pub struct Cookies<'a> {
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Cookies<'a> {
    pub fn parse(headers: &'a HeaderMap) -> Self {
        let pairs = headers
            .get_all(axum::http::header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|line| line.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .map(|(name, value)| (name.trim(), value.trim().trim_matches('"')))
            .collect();
        Cookies { pairs }
    }

    pub fn optional<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, Rejection> {
        match self.pairs.iter().find(|(key, _)| *key == name) {
            None => Ok(None),
            // Values are percent-encoded by the generated client; text that is not stays as it is.
            Some((_, raw)) => parse(&style::decode(raw).unwrap_or(Cow::Borrowed(raw)))
                .map(Some)
                .map_err(|problem| invalid(In::Cookie, name, problem)),
        }
    }

    pub fn required<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<T, Rejection> {
        self.optional(name, parse)?
            .ok_or_else(|| invalid(In::Cookie, name, "is required"))
    }

    /// An array or object cookie (`form`; exploded values are several pairs). Absent is `None`.
    pub fn styled(
        &self,
        name: &str,
        explode: bool,
        shape: Shape,
        fields: Option<&[&str]>,
        others: &[&str],
    ) -> Result<Option<Value>, Rejection> {
        style::read_cookie(explode, name, &self.pairs, shape, fields, others)
            .map_err(|problem| invalid(In::Cookie, name, problem))
    }
}

/// A styled value that must be there.
pub fn required<T>(location: In, name: &str, value: Option<T>) -> Result<T, Rejection> {
    value.ok_or_else(|| invalid(location, name, "is required"))
}

/// A styled primitive value parsed as `T`.
pub fn primitive<T>(
    location: In,
    name: &str,
    value: Option<Value>,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, Rejection> {
    let problem = |p| invalid(location, name, p);
    match value {
        None => Ok(None),
        Some(Value::Primitive(text)) => parse(&text).map(Some).map_err(problem),
        Some(_) => Err(problem("is not a single value".to_owned())),
    }
}

/// A styled array value, each item parsed as `T`.
pub fn list<T>(
    location: In,
    name: &str,
    value: Option<Value>,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<Vec<T>>, Rejection> {
    let problem = |p| invalid(location, name, p);
    match value {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| parse(item))
            .collect::<Result<Vec<T>, String>>()
            .map(Some)
            .map_err(problem),
        Some(_) => Err(problem("is not a list".to_owned())),
    }
}

/// A styled object value decoded into `T` (a struct or map): each property's text is read as its
/// type asks (numbers, booleans, strings), as in a form body.
pub fn object<T: serde::de::DeserializeOwned + Validate>(
    location: In,
    name: &str,
    value: Option<Value>,
) -> Result<Option<T>, Rejection> {
    let problem = |p: String| invalid(location, name, p);
    match value {
        None => Ok(None),
        Some(Value::Object(pairs)) => {
            let form = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&pairs)
                .finish();
            let value: T = serde_html_form::from_str(&form).map_err(|e| problem(e.to_string()))?;
            value.validate().map_err(|errors| problem(errors.to_string()))?;
            Ok(Some(value))
        }
        Some(_) => Err(problem("is not an object".to_owned())),
    }
}

/// A union of primitives from a parameter's text: the text as a JSON string, else as a JSON
/// number or boolean (so `{"oneOf": [Name, Uuid]}` and `[integer, string]` unions both read).
pub fn union_text<T: serde::de::DeserializeOwned + Validate>(s: &str) -> Result<T, String> {
    let value: T = serde_json::from_value(serde_json::Value::String(s.to_owned()))
        .or_else(|first| serde_json::from_str(s).map_err(|_| first))
        .map_err(|e| format!("\"{s}\" is not a value of this parameter: {e}"))?;
    value.validate().map_err(|errors| errors.to_string())?;
    Ok(value)
}

/// A parameter whose `content` is `application/json`: its text is JSON.
pub fn json<T: serde::de::DeserializeOwned + Validate>(s: &str) -> Result<T, String> {
    let value: T = crate::models::wire::strict(|| serde_json::from_str(s))
        .map_err(|e| format!("is not the JSON expected: {e}"))?;
    value.validate().map_err(|errors| errors.to_string())?;
    Ok(value)
}

fn split_list<T>(raw: &str, parse: &impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    if raw.is_empty() {
        return Ok(Vec::new());
    }
    raw.split(',').map(parse).collect()
}

/// Checks the constraints a parameter's schema states beyond its type, with the models' validation
/// functions (`check` receives the path to report and the list to append to).
pub fn check(
    location: In,
    name: &str,
    check: impl FnOnce(&str, &mut Vec<ValidationError>),
) -> Result<(), Rejection> {
    let mut errors = Vec::new();
    check("", &mut errors);
    if errors.is_empty() {
        return Ok(());
    }
    let problems: Vec<String> = errors.iter().map(ToString::to_string).collect();
    Err(invalid(location, name, problems.join("; ")))
}

/// A scalar as a URL or header spells it.
pub trait FromParam: Sized {
    fn from_param(s: &str) -> Result<Self, String>;
}

/// Parses a [`FromParam`] value (strings, booleans, numbers, uuids, dates).
pub fn value<T: FromParam>(s: &str) -> Result<T, String> {
    T::from_param(s)
}

/// Parses a value with its `FromStr` (the models' enums: their messages list the allowed values).
pub fn from_str<T: FromStr<Err: Display>>(s: &str) -> Result<T, String> {
    s.parse().map_err(|e: T::Err| e.to_string())
}

/// Parses a number that the spec also accepts as a string matching `pattern`.
pub fn numeric<T: WireNumber>(
    pattern: &'static NumericPattern,
) -> impl Fn(&str) -> Result<T, String> {
    move |s| parse_numeric(s, pattern)
}

impl FromParam for String {
    fn from_param(s: &str) -> Result<Self, String> {
        Ok(s.to_owned())
    }
}

impl FromParam for bool {
    fn from_param(s: &str) -> Result<Self, String> {
        match s {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(format!("\"{s}\" is not a boolean (true or false)")),
        }
    }
}

macro_rules! integer_param {
    ($($t:ty),*) => {$(
        impl FromParam for $t {
            fn from_param(s: &str) -> Result<Self, String> {
                s.parse().map_err(|_| match s.parse::<i128>() {
                    Ok(_) => format!("{s} is out of range for {}", stringify!($t)),
                    Err(_) => format!("\"{s}\" is not an integer"),
                })
            }
        }
    )*};
}
integer_param!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_param {
    ($($t:ty),*) => {$(
        impl FromParam for $t {
            fn from_param(s: &str) -> Result<Self, String> {
                s.parse::<$t>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("\"{s}\" is not a number"))
            }
        }
    )*};
}
float_param!(f32, f64);

impl FromParam for uuid::Uuid {
    fn from_param(s: &str) -> Result<Self, String> {
        uuid::Uuid::try_parse(s).map_err(|_| format!("\"{s}\" is not a valid uuid"))
    }
}

impl FromParam for chrono::DateTime<chrono::Utc> {
    fn from_param(s: &str) -> Result<Self, String> {
        chrono::DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&chrono::Utc))
            .map_err(|_| format!("\"{s}\" is not an RFC 3339 date-time"))
    }
}

impl FromParam for chrono::NaiveDate {
    fn from_param(s: &str) -> Result<Self, String> {
        chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .map_err(|_| format!("\"{s}\" is not a date (YYYY-MM-DD)"))
    }
}
