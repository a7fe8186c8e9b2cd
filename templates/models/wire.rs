//! Wire forms that serde's derive cannot express on its own. Copied verbatim by openapi-gen.
//!
//! - A number that may also arrive as a string matching a pattern (ASP.NET's
//!   `type: [integer, string]` + `pattern`): decoded from either, always encoded as a number.
//! - A required property whose value may be `null`: absent is an error, `null` is `None`.
//! - An integer written with a zero fraction (`2.0`), which JSON Schema counts as an integer.
//! - A number (`type: number` or `integer`) that a server sends as a string holding one
//!   (`"19.720000"`), as some do beside their documents: read as the number by clients, refused
//!   inside [`strict`], where the generated server decodes JSON.

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// Rust numbers that can be read from a JSON number or from a numeric string.
pub trait WireNumber: Copy + fmt::Display + Sized {
    const NAME: &'static str;
    /// What a message says was expected (`an integer (i64)`, `f64`).
    const EXPECTED: &'static str;
    const INTEGER: bool;
    fn from_i64(v: i64) -> Option<Self>;
    fn from_u64(v: u64) -> Option<Self>;
    fn from_f64(v: f64) -> Option<Self>;
    /// A finite number beyond the type's range as the nearest it holds (a float), for clients.
    fn nearest(_v: f64) -> Option<Self> {
        None
    }
    fn parse(s: &str) -> Option<Self>;
}

macro_rules! wire_integer {
    ($($t:ty),*) => {$(
        impl WireNumber for $t {
            const NAME: &'static str = stringify!($t);
            const EXPECTED: &'static str = concat!("an integer (", stringify!($t), ")");
            const INTEGER: bool = true;
            fn from_i64(v: i64) -> Option<Self> { Self::try_from(v).ok() }
            fn from_u64(v: u64) -> Option<Self> { Self::try_from(v).ok() }
            fn from_f64(v: f64) -> Option<Self> {
                // 5.0 is the integer 5; 5.5 is not an integer.
                if v.fract() == 0.0 && v >= Self::MIN as f64 && v <= Self::MAX as f64 { Some(v as Self) } else { None }
            }
            // Text the spec's pattern admits may carry a sign the type does not ("-0" is 0).
            fn parse(s: &str) -> Option<Self> {
                s.parse().ok().or_else(|| s.parse::<i128>().ok().and_then(|v| Self::try_from(v).ok()))
            }
        }
    )*};
}
wire_integer!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! wire_float {
    ($($t:ty),*) => {$(
        impl WireNumber for $t {
            const NAME: &'static str = stringify!($t);
            // As serde names the type, so a strict refusal reads as serde's own.
            const EXPECTED: &'static str = stringify!($t);
            const INTEGER: bool = false;
            fn from_i64(v: i64) -> Option<Self> { Some(v as Self) }
            fn from_u64(v: u64) -> Option<Self> { Some(v as Self) }
            fn from_f64(v: f64) -> Option<Self> { let x = v as Self; x.is_finite().then_some(x) }
            fn nearest(v: f64) -> Option<Self> { v.is_finite().then(|| (v as Self).clamp(Self::MIN, Self::MAX)) }
            fn parse(s: &str) -> Option<Self> { s.parse::<Self>().ok().filter(|x| x.is_finite()) }
        }
    )*};
}
wire_float!(f32, f64);

/// A pattern that a numeric string must match, compiled once.
pub struct NumericPattern {
    pub source: &'static str,
    pub regex: &'static std::sync::LazyLock<regex::Regex>,
}

struct NumberVisitor<T> {
    pattern: &'static NumericPattern,
    marker: PhantomData<T>,
}

impl<T: WireNumber> NumberVisitor<T> {
    fn out_of_range<E: de::Error>(&self, shown: impl fmt::Display) -> E {
        E::custom(format_args!("{shown} is out of range for {}", T::NAME))
    }
}

impl<'de, T: WireNumber> Visitor<'de> for NumberVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a number ({}) or a string matching `{}`",
            T::NAME,
            self.pattern.source
        )
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::from_i64(v).ok_or_else(|| self.out_of_range(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::from_u64(v).ok_or_else(|| self.out_of_range(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        T::from_f64(v).ok_or_else(|| self.out_of_range(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        if !self.pattern.regex.is_match(v) {
            return Err(E::custom(format_args!(
                "string \"{v}\" does not match `{}`",
                self.pattern.source
            )));
        }
        T::parse(v).ok_or_else(|| self.out_of_range(format_args!("\"{v}\"")))
    }
}

fn number<'de, D: Deserializer<'de>, T: WireNumber>(
    d: D,
    pattern: &'static NumericPattern,
) -> Result<T, D::Error> {
    d.deserialize_any(NumberVisitor {
        pattern,
        marker: PhantomData,
    })
}

/// The `Deserialize` of one numeric-string value, for use inside containers.
struct Numeric<T, P>(T, PhantomData<P>);

/// Names a [`NumericPattern`] at the type level, so containers of numeric strings can be decoded.
pub trait PatternOf {
    fn pattern() -> &'static NumericPattern;
}

impl<'de, T: WireNumber, P: PatternOf> Deserialize<'de> for Numeric<T, P> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        number(d, P::pattern()).map(|v| Numeric(v, PhantomData))
    }
}

/// `deserialize_with` for a required numeric-string field.
pub fn numeric<'de, D: Deserializer<'de>, T: WireNumber, P: PatternOf>(
    d: D,
) -> Result<T, D::Error> {
    number(d, P::pattern())
}

/// `deserialize_with` for an optional or nullable numeric-string field.
pub fn numeric_option<'de, D: Deserializer<'de>, T: WireNumber, P: PatternOf>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Ok(Option::<Numeric<T, P>>::deserialize(d)?.map(|n| n.0))
}

/// `deserialize_with` for a list of numeric strings.
pub fn numeric_vec<'de, D: Deserializer<'de>, T: WireNumber, P: PatternOf>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    Ok(Vec::<Numeric<T, P>>::deserialize(d)?
        .into_iter()
        .map(|n| n.0)
        .collect())
}

/// `deserialize_with` for an optional list of numeric strings.
pub fn numeric_vec_option<'de, D: Deserializer<'de>, T: WireNumber, P: PatternOf>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    Ok(Option::<Vec<Numeric<T, P>>>::deserialize(d)?.map(|v| v.into_iter().map(|n| n.0).collect()))
}

/// `deserialize_with` for an optional, non-nullable numeric-string field: absent is `None` (by
/// `#[serde(default)]`), `null` is an error.
pub fn numeric_some<'de, D: Deserializer<'de>, T: WireNumber, P: PatternOf>(
    d: D,
) -> Result<Option<T>, D::Error> {
    number(d, P::pattern()).map(Some)
}

/// `deserialize_with` for an optional, non-nullable list of numeric strings.
pub fn numeric_vec_some<'de, D: Deserializer<'de>, T: WireNumber, P: PatternOf>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    numeric_vec::<D, T, P>(d).map(Some)
}

/// `deserialize_with` for an optional property whose schema does not admit `null`: absent is `None`
/// (by `#[serde(default)]`), an explicit `null` is an error, as the schema says.
pub fn some<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Whether `s` is written as a JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
fn is_json_number(s: &str) -> bool {
    let digits = |s: &str| -> usize { s.bytes().take_while(u8::is_ascii_digit).count() };
    let rest = s.strip_prefix('-').unwrap_or(s);
    let int = digits(rest);
    if int == 0 || (int > 1 && rest.starts_with('0')) {
        return false;
    }
    let mut rest = &rest[int..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let n = digits(fraction);
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    if let Some(exponent) = rest.strip_prefix(['e', 'E']) {
        let exponent = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        let n = digits(exponent);
        return n > 0 && n == exponent.len();
    }
    rest.is_empty()
}

/// Parses a numeric string (a path or query parameter) the way the JSON form is decoded. In a
/// URL the number form and the string form look alike: text written as a JSON number is the
/// number form (its bounds are checked later, like a JSON number's), anything else must match
/// the string form's pattern.
pub fn parse_numeric<T: WireNumber>(
    s: &str,
    pattern: &'static NumericPattern,
) -> Result<T, String> {
    let number_form = is_json_number(s);
    if let Some(v) = T::parse(s).filter(|_| number_form || pattern.regex.is_match(s)) {
        return Ok(v);
    }
    if number_form && s.contains(['.', 'e', 'E']) {
        Err(format!("{s} is not a valid {}", T::NAME))
    } else if number_form || pattern.regex.is_match(s) {
        Err(format!("{s} is out of range for {}", T::NAME))
    } else {
        Err(format!(
            "\"{s}\" is not a number matching `{}`",
            pattern.source
        ))
    }
}

/// `deserialize_with` for a required property that may be `null`: unlike a plain `Option`, absence is an error.
pub fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

thread_local! {
    static STRICT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `decode` with numbers read strictly: a string holding a number is refused where the
/// schema says `number` or `integer`. The generated server decodes JSON bodies so; clients, and
/// forms (whose values are all text), read such a string as the number.
pub fn strict<R>(decode: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            STRICT.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(STRICT.with(|s| s.replace(true)));
    decode()
}

/// Reads a number from a JSON number (an integer also from one with a zero fraction, `2.0`), or,
/// outside [`strict`], from a string holding one.
struct LaxVisitor<T>(PhantomData<T>);

impl<T: WireNumber> LaxVisitor<T> {
    fn out_of_range<E: de::Error>(shown: impl fmt::Display) -> E {
        E::custom(format_args!("{shown} is out of range for {}", T::NAME))
    }
}

impl<'de, T: WireNumber> Visitor<'de> for LaxVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTED)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::from_i64(v).ok_or_else(|| Self::out_of_range(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::from_u64(v).ok_or_else(|| Self::out_of_range(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        if T::INTEGER && (v.fract() != 0.0 || !v.is_finite()) {
            return Err(E::custom(format_args!("{v} is not an integer")));
        }
        let strict = STRICT.with(std::cell::Cell::get);
        // An integer written beyond 2^53 came as a float that may not be the number sent (JSON
        // parsers read -9223372036854775809 as -2^63): a server refuses it, a client keeps it.
        if strict && T::INTEGER && v.abs() > 9_007_199_254_740_992.0 {
            return Err(Self::out_of_range(v));
        }
        match T::from_f64(v) {
            Some(n) => Ok(n),
            // A client keeps a float beyond its format's range (`format: float`) as the nearest
            // value it holds, as serde's own `f32` would have read it, but finite.
            None if !strict => T::nearest(v).ok_or_else(|| Self::out_of_range(v)),
            None => Err(Self::out_of_range(v)),
        }
    }

    // Text as Rust reads the type (a form's value), else as a JSON number (`"1e3"`, `"2.0"`).
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        if STRICT.with(std::cell::Cell::get) {
            return Err(E::invalid_type(de::Unexpected::Str(v), &self));
        }
        let json = || v.parse().ok().filter(|_| is_json_number(v));
        match T::parse(v) {
            Some(n) => Ok(n),
            None => match json() {
                Some(n) => self.visit_f64(n),
                None => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
            },
        }
    }
}

/// The `Deserialize` of one number read leniently, for use inside containers.
struct Lax<T>(T);

impl<'de, T: WireNumber> Deserialize<'de> for Lax<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // `_any`: JSON visits what it holds (a string too); the form and parameter decoders visit
        // their text, read above as the number asked for.
        d.deserialize_any(LaxVisitor(PhantomData)).map(Lax)
    }
}

/// `deserialize_with` functions over [`Lax`]: `integer` for integer fields, `float` for `number`
/// ones; one reader for both, named after what the schema says.
macro_rules! lax {
    ($($plain:ident, $option:ident, $some:ident, $vec:ident, $vec_option:ident, $vec_some:ident;)*) => {$(
        #[doc = concat!("`deserialize_with` for a required ", stringify!($plain), " field.")]
        pub fn $plain<'de, D: Deserializer<'de>, T: WireNumber>(d: D) -> Result<T, D::Error> {
            Lax::deserialize(d).map(|n| n.0)
        }

        #[doc = concat!("`deserialize_with` for a nullable ", stringify!($plain), " field.")]
        pub fn $option<'de, D: Deserializer<'de>, T: WireNumber>(
            d: D,
        ) -> Result<Option<T>, D::Error> {
            Ok(Option::<Lax<T>>::deserialize(d)?.map(|n| n.0))
        }

        #[doc = concat!("`deserialize_with` for an optional, non-nullable ", stringify!($plain), " field (`null` is an error).")]
        pub fn $some<'de, D: Deserializer<'de>, T: WireNumber>(
            d: D,
        ) -> Result<Option<T>, D::Error> {
            $plain(d).map(Some)
        }

        #[doc = concat!("`deserialize_with` for a list of ", stringify!($plain), "s.")]
        pub fn $vec<'de, D: Deserializer<'de>, T: WireNumber>(d: D) -> Result<Vec<T>, D::Error> {
            Ok(Vec::<Lax<T>>::deserialize(d)?
                .into_iter()
                .map(|n| n.0)
                .collect())
        }

        #[doc = concat!("`deserialize_with` for a nullable list of ", stringify!($plain), "s.")]
        pub fn $vec_option<'de, D: Deserializer<'de>, T: WireNumber>(
            d: D,
        ) -> Result<Option<Vec<T>>, D::Error> {
            Ok(Option::<Vec<Lax<T>>>::deserialize(d)?.map(|v| v.into_iter().map(|n| n.0).collect()))
        }

        #[doc = concat!("`deserialize_with` for an optional, non-nullable list of ", stringify!($plain), "s.")]
        pub fn $vec_some<'de, D: Deserializer<'de>, T: WireNumber>(
            d: D,
        ) -> Result<Option<Vec<T>>, D::Error> {
            $vec(d).map(Some)
        }
    )*};
}

lax! {
    integer, integer_option, integer_some, integer_vec, integer_vec_option, integer_vec_some;
    float, float_option, float_some, float_vec, float_vec_option, float_vec_some;
}

/// A decoder named by a type, where serde's derive names a `deserialize_with` function by path:
/// what a generated struct's `from_map` (see the `object` module) reads a property with.
pub trait Decoder<'de> {
    type Value;
    fn decode<D: Deserializer<'de>>(d: D) -> Result<Self::Value, D::Error>;
}

/// A [`Decoder`] as serde's seed.
pub struct Seed<F>(PhantomData<F>);

impl<F> Seed<F> {
    pub const NEW: Self = Seed(PhantomData);
}

impl<'de, F: Decoder<'de>> DeserializeSeed<'de> for Seed<F> {
    type Value = F::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<F::Value, D::Error> {
        F::decode(d)
    }
}

/// One [`Decoder`] type per `deserialize_with` function above, named after it.
macro_rules! decoders {
    ($($name:ident<$($p:ident: $bound:ident),*> = $f:ident -> $out:ty;)*) => {$(
        #[doc = concat!("The [`Decoder`] of [`", stringify!($f), "`].")]
        pub struct $name<$($p),*>(PhantomData<($($p,)*)>);

        impl<'de, $($p: $bound),*> Decoder<'de> for $name<$($p),*> {
            type Value = $out;

            fn decode<D: Deserializer<'de>>(d: D) -> Result<$out, D::Error> {
                $f::<D, $($p),*>(d)
            }
        }
    )*};
}

decoders! {
    AsInteger<T: WireNumber> = integer -> T;
    AsIntegerOption<T: WireNumber> = integer_option -> Option<T>;
    AsIntegerVec<T: WireNumber> = integer_vec -> Vec<T>;
    AsIntegerVecOption<T: WireNumber> = integer_vec_option -> Option<Vec<T>>;
    AsFloat<T: WireNumber> = float -> T;
    AsFloatOption<T: WireNumber> = float_option -> Option<T>;
    AsFloatVec<T: WireNumber> = float_vec -> Vec<T>;
    AsFloatVecOption<T: WireNumber> = float_vec_option -> Option<Vec<T>>;
    AsNumeric<T: WireNumber, P: PatternOf> = numeric -> T;
    AsNumericOption<T: WireNumber, P: PatternOf> = numeric_option -> Option<T>;
    AsNumericVec<T: WireNumber, P: PatternOf> = numeric_vec -> Vec<T>;
    AsNumericVecOption<T: WireNumber, P: PatternOf> = numeric_vec_option -> Option<Vec<T>>;
}

/// How an enum's messages list its values (`` `a`, `b` ``): spelled from the enum's `ALL` when a
/// message is made, rather than written out once more per enum in the generated code.
pub fn listing<T: std::fmt::Display>(values: impl Iterator<Item = T>) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for (i, value) in values.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "`{value}`");
    }
    out
}

// The enums' messages are written here once: a `format!` per enum was a measurable part of a
// big document's check time.

/// `FromStr`'s error for a text that is not one of an enum's `values`.
pub fn not_a_valid<T: std::fmt::Display>(
    text: &str,
    type_name: &str,
    values: impl Iterator<Item = T>,
) -> String {
    format!("\"{text}\" is not a valid {type_name} (expected one of {})", listing(values))
}

/// Validation's message for an open enum's value that is not one of its `values`.
pub fn not_listed<V: std::fmt::Display, T: std::fmt::Display>(
    value: V,
    values: impl Iterator<Item = T>,
) -> String {
    format!("{value} is not one of the listed values ({})", listing(values))
}

/// `Deserialize` of a closed string enum, one of `all` as `as_str` spells it: the messages of
/// serde's derive (`unknown variant`, `expected variant identifier`), without its visitors per
/// enum.
pub fn closed<'de, D: Deserializer<'de>, T: Copy>(
    deserializer: D,
    all: &[T],
    as_str: fn(T) -> &'static str,
) -> Result<T, D::Error> {
    deserializer.deserialize_str(Closed { all, as_str })
}

struct Closed<'a, T> {
    all: &'a [T],
    as_str: fn(T) -> &'static str,
}

impl<T: Copy> Visitor<'_> for Closed<'_, T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<T, E> {
        let as_str = self.as_str;
        if let Some(found) = self.all.iter().copied().find(|v| as_str(*v) == value) {
            return Ok(found);
        }
        let one_of = if self.all.len() == 1 { "" } else { "one of " };
        let listed = listing(self.all.iter().map(|v| as_str(*v)));
        Err(E::custom(format_args!(
            "unknown variant `{value}`, expected {one_of}{listed}"
        )))
    }
}

/// A text shown in double quotes.
pub struct Quoted<'a>(pub &'a str);

impl std::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\"{}\"", self.0)
    }
}
