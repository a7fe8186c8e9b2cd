//! Parameter serialization (OpenAPI's `style`, `explode` and `allowReserved`): the one codec the
//! generated client writes with and the generated server reads with, so both follow the
//! specification's "Style Examples" table byte for byte. Copied verbatim by openapi-gen.
//!
//! Values are text already: the client turns its typed value into a [`Value`], the server turns
//! the [`Value`] it reads back into its type. Path and query text is percent-encoded here (RFC 3986:
//! everything but the unreserved characters, so a delimiter inside a value cannot be taken for one);
//! header text is written as it is. Cookies follow `form`, with `; ` between the pairs an exploded
//! value makes (as OpenAPI 3.2's `cookie` style spells it).

use serde::Serialize;
use std::borrow::Cow;

/// A parameter's `style`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Simple,
    Label,
    Matrix,
    Form,
    SpaceDelimited,
    PipeDelimited,
    DeepObject,
}

/// A parameter value in the three shapes styles know, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Primitive(String),
    Array(Vec<String>),
    /// Property names and values, in order. In `deepObject` style a nested property's name is
    /// its path in brackets (`address[city]`, `tags[0]`), as qs, Rails and Stripe write it; in
    /// other styles, which define no nesting, a nested value is its JSON text.
    Object(Vec<(String, String)>),
}

/// The shape a reader expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Primitive,
    Array,
    Object,
}

impl Value {
    /// The object form of a struct or map: each property's JSON text (strings without quotes), in
    /// the order the value serializes them (a struct's declaration order); absent and `null`
    /// properties are left out.
    pub fn object<T: Serialize + ?Sized>(value: &T) -> Value {
        let pairs = match serde_json::to_string(value)
            .ok()
            .and_then(|text| serde_json::from_str::<Ordered>(&text).ok())
        {
            Some(Ordered::Object(pairs)) => pairs
                .into_iter()
                .filter(|(_, v)| !matches!(v, Ordered::Null))
                .map(|(k, v)| (k, v.into_text()))
                .collect(),
            _ => Vec::new(),
        };
        Value::Object(pairs)
    }

    /// The `deepObject` form of a struct or map: a leaf per primitive property, nested objects and
    /// arrays named by their bracketed path (`address[city]`, `tags[0]`), in declaration order;
    /// absent and `null` properties are left out.
    pub fn deep_object<T: Serialize + ?Sized>(value: &T) -> Value {
        let mut pairs = Vec::new();
        if let Some(Ordered::Object(properties)) = serde_json::to_string(value)
            .ok()
            .and_then(|text| serde_json::from_str::<Ordered>(&text).ok())
        {
            for (name, value) in properties {
                value.leaves(name, &mut pairs);
            }
        }
        Value::Object(pairs)
    }
}

/// JSON read back in the order it was written. serde_json's own `Value` sorts object keys unless
/// its `preserve_order` feature is on somewhere in the consuming build, and a parameter's wire form
/// must not depend on that.
enum Ordered {
    Null,
    String(String),
    /// A number or boolean, as JSON spells it.
    Scalar(String),
    Array(Vec<Ordered>),
    Object(Vec<(String, Ordered)>),
}

impl Ordered {
    /// A property's text: a string as it is, anything else as JSON.
    fn into_text(self) -> String {
        match self {
            Ordered::String(s) => s,
            other => other.json(),
        }
    }

    /// Appends this value's leaves under `path`: `path[key]` for properties, `path[index]` for
    /// items.
    fn leaves(self, path: String, out: &mut Vec<(String, String)>) {
        match self {
            Ordered::Null => {}
            Ordered::Object(pairs) => {
                for (key, value) in pairs {
                    value.leaves(format!("{path}[{key}]"), out);
                }
            }
            Ordered::Array(items) => {
                for (index, item) in items.into_iter().enumerate() {
                    item.leaves(format!("{path}[{index}]"), out);
                }
            }
            leaf => out.push((path, leaf.into_text())),
        }
    }

    fn json(&self) -> String {
        match self {
            Ordered::Null => "null".to_owned(),
            Ordered::String(s) => serde_json::Value::from(s.as_str()).to_string(),
            Ordered::Scalar(s) => s.clone(),
            Ordered::Array(items) => {
                let items: Vec<String> = items.iter().map(Ordered::json).collect();
                format!("[{}]", items.join(","))
            }
            Ordered::Object(pairs) => {
                let pairs: Vec<String> = pairs
                    .iter()
                    .map(|(k, v)| format!("{}:{}", serde_json::Value::from(k.as_str()), v.json()))
                    .collect();
                format!("{{{}}}", pairs.join(","))
            }
        }
    }
}

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> serde::de::Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_unit<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Ordered, E> {
        Ok(Ordered::Scalar(v.to_string()))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Ordered, E> {
        Ok(Ordered::Scalar(v.to_string()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Ordered, E> {
        Ok(Ordered::Scalar(v.to_string()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Ordered, E> {
        Ok(Ordered::Scalar(serde_json::Value::from(v).to_string()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Ordered, E> {
        Ok(Ordered::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Ordered, E> {
        Ok(Ordered::String(v))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Ordered::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut pairs = Vec::new();
        while let Some(pair) = map.next_entry()? {
            pairs.push(pair);
        }
        Ok(Ordered::Object(pairs))
    }
}

/// Reserved characters an `allowReserved` query value keeps as they are. `&`, `#` and `+` stay
/// encoded: they would end the value, the URL or turn into a space.
const RESERVED_KEPT: &[u8] = b":/?[]@!$'()*,;=";
/// The same within the items of a list or an object written as one value: `,` stays encoded
/// there, as it delimits them.
const RESERVED_KEPT_IN_ITEMS: &[u8] = b":/?[]@!$'()*;=";

/// Percent-encodes all but RFC 3986's unreserved characters (and those of `keep`).
pub fn encode(text: &str, keep: &[u8]) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) || keep.contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(byte >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(byte & 15)]));
        }
    }
    out
}

/// Decodes `%XX` escapes; `None` for a stray `%` or text that is not UTF-8.
pub fn decode(raw: &str) -> Option<Cow<'_, str>> {
    if !raw.contains('%') {
        return Some(Cow::Borrowed(raw));
    }
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = raw.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

fn decoded(raw: &str) -> Result<String, String> {
    decode(raw)
        .map(Cow::into_owned)
        .ok_or_else(|| format!("\"{raw}\" is not percent-encoded UTF-8"))
}

/// `k,v,k,v` (or `k=v` items when `explode`) joined by `between`, each part encoded by `enc`.
fn pairs_text(
    pairs: &[(String, String)],
    explode: bool,
    between: &str,
    enc: impl Fn(&str) -> String,
) -> String {
    let parts: Vec<String> = pairs
        .iter()
        .map(|(k, v)| {
            if explode {
                format!("{}={}", enc(k), enc(v))
            } else {
                format!("{},{}", enc(k), enc(v))
            }
        })
        .collect();
    parts.join(if explode { between } else { "," })
}

// ---------------------------------------------------------------------------------------------
// Writing

/// The text of a path parameter in its segment (`simple`, `label` or `matrix`), encoded.
pub fn write_path(style: Style, explode: bool, name: &str, value: &Value) -> String {
    let enc = |s: &str| encode(s, b"");
    // `.` separates label items; inside a value it is encoded so that it cannot (RFC 3986 allows
    // encoding an unreserved character; every reader decodes it).
    let label = |s: &str| encode(s, b"").replace('.', "%2E");
    let name = enc(name);
    match (style, value) {
        (Style::Label, Value::Primitive(v)) => format!(".{}", label(v)),
        (Style::Label, Value::Array(items)) => {
            let items: Vec<String> = items.iter().map(|i| label(i)).collect();
            format!(".{}", items.join(if explode { "." } else { "," }))
        }
        (Style::Label, Value::Object(pairs)) => {
            format!(".{}", pairs_text(pairs, explode, ".", label))
        }
        (Style::Matrix, Value::Primitive(v)) => matrix_item(&name, &enc(v)),
        (Style::Matrix, Value::Array(items)) if explode && !items.is_empty() => {
            items.iter().map(|i| matrix_item(&name, &enc(i))).collect()
        }
        (Style::Matrix, Value::Array(items)) => {
            let items: Vec<String> = items.iter().map(|i| enc(i)).collect();
            matrix_item(&name, &items.join(","))
        }
        (Style::Matrix, Value::Object(pairs)) if explode => pairs
            .iter()
            .map(|(k, v)| matrix_item(&enc(k), &enc(v)))
            .collect(),
        (Style::Matrix, Value::Object(pairs)) => {
            matrix_item(&name, &pairs_text(pairs, false, ",", enc))
        }
        // `simple`, and styles a path cannot have.
        (_, Value::Primitive(v)) => enc(v),
        (_, Value::Array(items)) => {
            let items: Vec<String> = items.iter().map(|i| enc(i)).collect();
            items.join(",")
        }
        (_, Value::Object(pairs)) => pairs_text(pairs, explode, ",", enc),
    }
}

fn matrix_item(name: &str, value: &str) -> String {
    if value.is_empty() {
        format!(";{name}")
    } else {
        format!(";{name}={value}")
    }
}

/// Appends a query parameter's `name=value` pairs to `query` (with `&` between pairs).
pub fn write_query(
    query: &mut String,
    style: Style,
    explode: bool,
    allow_reserved: bool,
    name: &str,
    value: &Value,
) {
    let keep: &[u8] = if allow_reserved { RESERVED_KEPT } else { b"" };
    let enc = |s: &str| encode(s, keep);
    let item_keep: &[u8] = if allow_reserved {
        RESERVED_KEPT_IN_ITEMS
    } else {
        b""
    };
    let item = |s: &str| encode(s, item_keep);
    let name = encode(name, b"");
    let mut push = |key: &str, text: &str| {
        if !query.is_empty() {
            query.push('&');
        }
        query.push_str(key);
        query.push('=');
        query.push_str(text);
    };
    let delimiter = match style {
        Style::SpaceDelimited => "%20",
        Style::PipeDelimited => "%7C",
        _ => ",",
    };
    match (style, value) {
        (_, Value::Primitive(v)) => push(&name, &enc(v)),
        // OpenAPI leaves arrays in deepObject undefined; documents that ask for it (Stripe's
        // `expand`) mean the `qs` form, by index.
        (Style::DeepObject, Value::Array(items)) => {
            for (index, item) in items.iter().enumerate() {
                push(&format!("{name}%5B{index}%5D"), &enc(item));
            }
        }
        (_, Value::Array(items)) if explode => {
            for item in items {
                push(&name, &enc(item));
            }
        }
        (_, Value::Array(items)) => {
            let items: Vec<String> = items.iter().map(|i| item(i)).collect();
            push(&name, &items.join(delimiter));
        }
        (Style::DeepObject, Value::Object(pairs)) => {
            // `name[key]`, or `name[key][inner]...` for a nested property's path.
            for (k, v) in pairs {
                let (first, rest) = k.split_at(k.find('[').unwrap_or(k.len()));
                push(
                    &format!("{name}{}", encode(&format!("[{first}]{rest}"), b"")),
                    &enc(v),
                );
            }
        }
        (_, Value::Object(pairs)) if explode => {
            for (k, v) in pairs {
                push(&encode(k, b""), &enc(v));
            }
        }
        (_, Value::Object(pairs)) => {
            let parts: Vec<String> = pairs.iter().flat_map(|(k, v)| [item(k), item(v)]).collect();
            push(&name, &parts.join(delimiter));
        }
    }
}

/// The URL of a request: `path` and the query, joined by `?` (or `&` when the path carries a
/// query of its own).
pub fn with_query<'p>(path: &'p str, query: &str) -> Cow<'p, str> {
    if query.is_empty() {
        Cow::Borrowed(path)
    } else if path.contains('?') {
        Cow::Owned(format!("{path}&{query}"))
    } else {
        Cow::Owned(format!("{path}?{query}"))
    }
}

/// A header parameter's value (`simple`).
pub fn write_header(explode: bool, value: &Value) -> String {
    match value {
        Value::Primitive(v) => v.clone(),
        Value::Array(items) => items.join(","),
        Value::Object(pairs) => pairs_text(pairs, explode, ",", str::to_owned),
    }
}

/// A cookie parameter's `name=value` pairs (`form`): several when an array or object is exploded.
pub fn write_cookie(explode: bool, name: &str, value: &Value) -> Vec<String> {
    let enc = |s: &str| encode(s, b"");
    match value {
        Value::Primitive(v) => vec![format!("{name}={}", enc(v))],
        Value::Array(items) if explode => {
            items.iter().map(|i| format!("{name}={}", enc(i))).collect()
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|i| enc(i)).collect();
            vec![format!("{name}={}", items.join(","))]
        }
        Value::Object(pairs) if explode => pairs
            .iter()
            .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
            .collect(),
        Value::Object(pairs) => vec![format!("{name}={}", pairs_text(pairs, false, ",", enc))],
    }
}

// ---------------------------------------------------------------------------------------------
// Reading

/// Splits raw (still encoded) text at `delimiter` and decodes each piece; empty text is no pieces.
fn pieces(raw: &str, delimiters: &[&str]) -> Result<Vec<String>, String> {
    if raw.is_empty() {
        return Ok(Vec::new());
    }
    let mut parts = vec![raw];
    for delimiter in delimiters {
        parts = parts.iter().flat_map(|p| p.split(delimiter)).collect();
    }
    parts.into_iter().map(decoded).collect()
}

/// `k,v,k,v` into pairs.
fn alternating(items: Vec<String>) -> Result<Vec<(String, String)>, String> {
    if !items.len().is_multiple_of(2) {
        return Err("is not a list of names and values (an odd number of items)".to_owned());
    }
    let mut pairs = Vec::with_capacity(items.len() / 2);
    let mut items = items.into_iter();
    while let (Some(k), Some(v)) = (items.next(), items.next()) {
        pairs.push((k, v));
    }
    Ok(pairs)
}

/// `k=v` raw items into decoded pairs.
fn assignments<'r>(
    items: impl IntoIterator<Item = &'r str>,
) -> Result<Vec<(String, String)>, String> {
    items
        .into_iter()
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| format!("\"{item}\" is not name=value"))?;
            Ok((decoded(k)?, decoded(v)?))
        })
        .collect()
}

/// Reads a path parameter from its raw (percent-encoded) segment text.
pub fn read_path(
    style: Style,
    explode: bool,
    name: &str,
    raw: &str,
    shape: Shape,
) -> Result<Value, String> {
    match style {
        Style::Label => {
            let rest = raw
                .strip_prefix('.')
                .ok_or_else(|| "must start with `.` (label style)".to_owned())?;
            match shape {
                Shape::Primitive => decoded(rest).map(Value::Primitive),
                Shape::Array if explode => pieces(rest, &["."]).map(Value::Array),
                Shape::Array => pieces(rest, &[","]).map(Value::Array),
                Shape::Object if explode => assignments(rest.split('.')).map(Value::Object),
                Shape::Object => alternating(pieces(rest, &[","])?).map(Value::Object),
            }
        }
        Style::Matrix => {
            let rest = raw
                .strip_prefix(';')
                .ok_or_else(|| "must start with `;` (matrix style)".to_owned())?;
            let named = |item: &str| -> Result<String, String> {
                match item.split_once('=') {
                    Some((n, v)) if decoded(n)? == name => Ok(v.to_owned()),
                    None if decoded(item)? == name => Ok(String::new()),
                    _ => Err(format!("\"{item}\" is not {name}=value (matrix style)")),
                }
            };
            match shape {
                Shape::Primitive => decoded(&named(rest)?).map(Value::Primitive),
                Shape::Array if explode => rest
                    .split(';')
                    .map(|item| decoded(&named(item)?))
                    .collect::<Result<Vec<String>, String>>()
                    .map(|items| {
                        Value::Array(items.into_iter().filter(|i| !i.is_empty()).collect())
                    }),
                Shape::Array => pieces(&named(rest)?, &[","]).map(Value::Array),
                Shape::Object if explode => assignments(rest.split(';')).map(Value::Object),
                Shape::Object => alternating(pieces(&named(rest)?, &[","])?).map(Value::Object),
            }
        }
        _ => match shape {
            Shape::Primitive => decoded(raw).map(Value::Primitive),
            Shape::Array => pieces(raw, &[","]).map(Value::Array),
            Shape::Object if explode => assignments(raw.split(',')).map(Value::Object),
            Shape::Object => alternating(pieces(raw, &[","])?).map(Value::Object),
        },
    }
}

/// Reads a query parameter from the query's pairs (names decoded, values still encoded).
/// `fields` are the property names an exploded `form` object owns (`None`: every name not in
/// `others`, for maps). Absent is `Ok(None)`.
pub fn read_query(
    style: Style,
    explode: bool,
    name: &str,
    pairs: &[(Cow<'_, str>, &str)],
    shape: Shape,
    fields: Option<&[&str]>,
    others: &[&str],
) -> Result<Option<Value>, String> {
    let values: Vec<&str> = pairs
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| *v)
        .collect();
    let delimiters: &[&str] = match style {
        Style::SpaceDelimited => &["%20", "+", " "],
        Style::PipeDelimited => &["%7C", "%7c", "|"],
        _ => &[","],
    };
    let form_value = |raw: &str| decoded(&raw.replace('+', " "));
    match shape {
        Shape::Primitive => match values.as_slice() {
            [] => Ok(None),
            [one] => form_value(one).map(|v| Some(Value::Primitive(v))),
            _ => Err("is given more than once".to_owned()),
        },
        Shape::Array if style == Style::DeepObject => {
            // `name[0]=a&name[1]=b` (or `name[]=a&name[]=b`), in index order.
            let mut items: Vec<(usize, String)> = Vec::new();
            for (k, v) in pairs {
                let Some(index) = k
                    .strip_prefix(name)
                    .and_then(|k| k.strip_prefix('['))
                    .and_then(|k| k.strip_suffix(']'))
                else {
                    continue;
                };
                let index = if index.is_empty() {
                    items.len()
                } else {
                    index
                        .parse()
                        .map_err(|_| format!("\"{k}\" is not {name}[index]"))?
                };
                items.push((index, form_value(v)?));
            }
            items.sort_by_key(|(index, _)| *index);
            Ok((!items.is_empty())
                .then(|| Value::Array(items.into_iter().map(|(_, v)| v).collect())))
        }
        Shape::Array if values.is_empty() => Ok(None),
        Shape::Array if explode => values
            .iter()
            .map(|v| form_value(v))
            .collect::<Result<Vec<String>, String>>()
            .map(|items| Some(Value::Array(items))),
        Shape::Array => {
            let mut items = Vec::new();
            for raw in values {
                items.extend(pieces(&plus_as_space(style, raw), delimiters)?);
            }
            Ok(Some(Value::Array(items)))
        }
        Shape::Object if style == Style::DeepObject => {
            // `name[key]=v`, and `name[key][inner]=v` for nested properties (named `key[inner]`).
            let mut found = Vec::new();
            for (k, v) in pairs {
                let Some(inner) = k.strip_prefix(name).and_then(|k| k.strip_prefix('[')) else {
                    continue;
                };
                let key =
                    deep_key(inner).ok_or_else(|| format!("\"{k}\" is not {name}[property]"))?;
                found.push((key, form_value(v)?));
            }
            Ok((!found.is_empty()).then_some(Value::Object(found)))
        }
        Shape::Object if explode => owned_pairs(
            pairs.iter().map(|(k, v)| (k.as_ref(), *v)),
            fields,
            others,
            form_value,
        ),
        Shape::Object => match values.as_slice() {
            [] => Ok(None),
            [one] => alternating(pieces(&plus_as_space(style, one), delimiters)?)
                .map(|p| Some(Value::Object(p))),
            _ => Err("is given more than once".to_owned()),
        },
    }
}

/// `key]` or `key][inner]...` (what follows `name[`) as the property's path, `key[inner]...`;
/// `None` unless every bracket closes and nothing stands between them.
fn deep_key(inner: &str) -> Option<String> {
    let (first, mut rest) = inner.split_once(']')?;
    if first.contains('[') {
        return None;
    }
    let mut key = first.to_owned();
    while !rest.is_empty() {
        let (segment, after) = rest.strip_prefix('[')?.split_once(']')?;
        if segment.contains('[') {
            return None;
        }
        key.push('[');
        key.push_str(segment);
        key.push(']');
        rest = after;
    }
    Some(key)
}

/// A `+` in a query is a space (`application/x-www-form-urlencoded`), except where it delimits.
fn plus_as_space(style: Style, raw: &str) -> Cow<'_, str> {
    if style == Style::SpaceDelimited || !raw.contains('+') {
        Cow::Borrowed(raw)
    } else {
        Cow::Owned(raw.replace('+', "%20"))
    }
}

/// The pairs an exploded object owns, as an object (`None` when there are none): those named by
/// `fields` (a struct's properties), else every name not in `others` (a map).
fn owned_pairs<'p>(
    pairs: impl Iterator<Item = (&'p str, &'p str)>,
    fields: Option<&[&str]>,
    others: &[&str],
    decode: impl Fn(&str) -> Result<String, String>,
) -> Result<Option<Value>, String> {
    let owned = |k: &str| match fields {
        Some(fields) => fields.contains(&k),
        None => !others.contains(&k),
    };
    let found = pairs
        .filter(|(k, _)| owned(k))
        .map(|(k, v)| Ok((k.to_owned(), decode(v)?)))
        .collect::<Result<Vec<(String, String)>, String>>()?;
    Ok((!found.is_empty()).then_some(Value::Object(found)))
}

/// Reads a header parameter (`simple`).
pub fn read_header(explode: bool, raw: &str, shape: Shape) -> Result<Value, String> {
    let items = || -> Vec<String> {
        if raw.trim().is_empty() {
            Vec::new()
        } else {
            raw.split(',').map(|i| i.trim().to_owned()).collect()
        }
    };
    match shape {
        Shape::Primitive => Ok(Value::Primitive(raw.trim().to_owned())),
        Shape::Array => Ok(Value::Array(items())),
        Shape::Object if explode => items()
            .into_iter()
            .map(|item| {
                item.split_once('=')
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .ok_or_else(|| format!("\"{item}\" is not name=value"))
            })
            .collect::<Result<Vec<_>, String>>()
            .map(Value::Object),
        Shape::Object => alternating(items()).map(Value::Object),
    }
}

/// Reads a cookie parameter (`form`) from the `name=value` pairs of the `Cookie` headers (values
/// still encoded). `fields` as for [`read_query`].
pub fn read_cookie(
    explode: bool,
    name: &str,
    pairs: &[(&str, &str)],
    shape: Shape,
    fields: Option<&[&str]>,
    others: &[&str],
) -> Result<Option<Value>, String> {
    let values: Vec<&str> = pairs
        .iter()
        .filter(|(k, _)| *k == name)
        .map(|(_, v)| *v)
        .collect();
    match shape {
        Shape::Primitive => match values.first() {
            None => Ok(None),
            Some(raw) => decoded(raw).map(|v| Some(Value::Primitive(v))),
        },
        Shape::Array if values.is_empty() => Ok(None),
        Shape::Array if explode => values
            .iter()
            .map(|v| decoded(v))
            .collect::<Result<Vec<String>, String>>()
            .map(|items| Some(Value::Array(items))),
        Shape::Array => pieces(values[0], &[","]).map(|items| Some(Value::Array(items))),
        Shape::Object if explode => owned_pairs(pairs.iter().copied(), fields, others, decoded),
        Shape::Object => match values.first() {
            None => Ok(None),
            Some(raw) => alternating(pieces(raw, &[","])?).map(|p| Some(Value::Object(p))),
        },
    }
}
