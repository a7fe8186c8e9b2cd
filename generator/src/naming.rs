//! Naming, done once for the whole API after everything is gathered (see oapi-codegen's
//! `resolve_names.go`): names the spec gives (component keys) are placed first, then names derived from
//! where an inline schema sits, then that name with its context (`Body`, `Response`...), then a number.
//! Every Rust identifier the emitters print comes from here.

use crate::ir::{Api, Primitive, TypeKind, TypeRef};
use heck::{ToSnakeCase, ToUpperCamelCase};
use std::collections::{HashMap, HashSet};

/// Rust keywords: emitted as raw identifiers (`r#type`), except those that cannot be raw.
pub const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Keywords that `r#` cannot escape.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// Prelude names the generated code uses unqualified: a schema may not shadow them.
pub const RESERVED_TYPES: &[&str] = &[
    "Option",
    "Result",
    "String",
    "Vec",
    "Box",
    "Some",
    "None",
    "Ok",
    "Err",
    "Send",
    "Sync",
    "Sized",
    "Copy",
    "Clone",
    "Default",
    "Drop",
    "Eq",
    "PartialEq",
    "Ord",
    "PartialOrd",
    "Iterator",
    "IntoIterator",
    "ToString",
    "ToOwned",
    "AsRef",
    "AsMut",
    "Into",
    "From",
    "TryFrom",
    "TryInto",
    "FromIterator",
    "Fn",
    "FnMut",
    "FnOnce",
    "Extend",
    "Unpin",
    "Debug",
    "Display",
    "Future",
    // The models crate's root re-exports its validation runtime under these names.
    "Validate",
    "ValidationError",
    "ValidationErrors",
];

/// Method names the generated client and server define themselves.
const RESERVED_FUNCTIONS: &[&str] = &[
    "new",
    "builder",
    "base_url",
    "client",
    "router",
    "with_client",
    "authenticate",
    "rejection",
];

/// Parameter names the generated code uses for its own values.
const RESERVED_PARAMS: &[&str] = &[
    "body",
    "principal",
    "client",
    "request",
    "response",
    "state",
    "headers",
];

/// Whether a type may not take this name: a prelude or runtime name ([`RESERVED_TYPES`]), or the
/// name of a numeric-string marker of the models' `patterns` module (`Numeric1`...), which the
/// `Validate` impls import beside the types.
pub fn is_reserved_type(name: &str) -> bool {
    RESERVED_TYPES.contains(&name)
        || name
            .strip_prefix("Numeric")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `name` is one of the Rust [`KEYWORDS`] (strict and reserved, edition 2024), which an
/// identifier must spell raw (`r#type`, see [`crate::emit::ident`]) or avoid.
pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// Assigns every name in the API.
pub fn resolve(api: &mut Api) {
    resolve_type_names(api);
    let type_names: Vec<String> = api.types.iter().map(|t| t.name.clone()).collect();
    for def in &mut api.types {
        match &mut def.kind {
            TypeKind::Struct(s) => {
                let mut taken = HashSet::new();
                for field in &mut s.fields {
                    field.name = unique(&field_ident(&field.wire_name), &mut taken, "_");
                }
            }
            TypeKind::StringEnum(e) => {
                let mut taken = HashSet::new();
                for v in &mut e.variants {
                    let base = if v.name.is_empty() {
                        v.value.clone()
                    } else {
                        v.name.clone()
                    };
                    let ident = variant_ident(&base).unwrap_or_else(|| "Empty".to_owned());
                    v.name = unique(&ident, &mut taken, "");
                }
            }
            TypeKind::IntEnum(e) => {
                let mut taken = HashSet::new();
                for v in &mut e.variants {
                    let given = (!v.name.is_empty())
                        .then(|| variant_ident(&v.name))
                        .flatten();
                    let ident = given.unwrap_or_else(|| value_variant(v.value));
                    v.name = unique(&ident, &mut taken, "");
                }
            }
            TypeKind::Union(u) => {
                let mut taken = HashSet::new();
                for v in &mut u.variants {
                    v.name = unique(&union_variant_name(&v.ty, &type_names), &mut taken, "");
                }
            }
            TypeKind::Alias(_) | TypeKind::Newtype(_) => {}
        }
    }
    let mut fn_taken: HashSet<String> =
        RESERVED_FUNCTIONS.iter().map(|s| (*s).to_owned()).collect();
    // Hooks are methods of their own trait and client, apart from the operations.
    let mut hook_fn_taken = fn_taken.clone();
    let operations = api.operations.iter_mut().map(|op| (op, false));
    let hooks = api.hooks.iter_mut().map(|h| (&mut h.operation, true));
    for (op, hook) in operations.chain(hooks) {
        let taken = if hook {
            &mut hook_fn_taken
        } else {
            &mut fn_taken
        };
        op.name = unique(&field_ident(&op.id), taken, "_");
        let mut taken: HashSet<String> = RESERVED_PARAMS.iter().map(|s| (*s).to_owned()).collect();
        for p in &mut op.parameters {
            let base = field_ident(&p.wire_name);
            let base = if taken.contains(&base) {
                format!("{base}_{}", format!("{:?}", p.location).to_snake_case())
            } else {
                base
            };
            p.name = unique(&base, &mut taken, "_");
        }
    }
}

fn resolve_type_names(api: &mut Api) {
    let mut taken = Taken::new(RESERVED_TYPES);
    // The name each type would have before shortening: a shortened or titled name never takes
    // one of these from the type it belongs to, whichever is named first.
    let natural: HashSet<String> = api
        .types
        .iter()
        .map(|t| type_ident(&t.name_hint.base))
        .collect();
    // A title that several inline schemas share names none of them.
    let mut titles: HashMap<String, usize> = HashMap::new();
    for t in api.types.iter().filter(|t| !t.name_hint.pinned) {
        if let Some(title) = &t.name_hint.title {
            *titles.entry(type_ident(title)).or_default() += 1;
        }
    }
    let order: Vec<usize> = (0..api.types.len())
        .filter(|i| api.types[*i].name_hint.pinned)
        .chain((0..api.types.len()).filter(|i| !api.types[*i].name_hint.pinned))
        .collect();
    for i in order {
        let hint = &api.types[i].name_hint;
        let full = type_ident(&hint.base);
        let mut base = if hint.pinned {
            full.clone()
        } else {
            let title = hint
                .title
                .as_deref()
                .filter(|title| titles.get(&type_ident(title)) == Some(&1));
            derived_name(&full, title, &taken, &natural)
        };
        if is_reserved_type(&base) {
            base.push_str("Model");
        }
        let base = match hint.context.as_deref() {
            Some(context) if taken.contains(&base) && !base.ends_with(context) => {
                if hint.pinned {
                    format!("{base}{context}")
                } else {
                    cap(&format!("{base}{context}"))
                }
            }
            _ => base,
        };
        api.types[i].name = taken.claim(base);
    }
}

/// The longest name derived for an inline type, counting the hash suffix of a cut name (a
/// number that tells two types of one name apart may follow).
pub const MAX_DERIVED_NAME: usize = 64;

/// The name of an inline type, before numbering: its `title` when that says more than the
/// derived name and is free; else the derived name `full` (`{Owner}{Property}...`) with
/// immediately repeated words dropped (`UserAddressAddress` -> `UserAddress`), cut to
/// [`MAX_DERIVED_NAME`] with a stable hash of the whole name. A shortened name that is taken,
/// or is another type's own name, gives way to the whole one.
fn derived_name(
    full: &str,
    title: Option<&str>,
    taken: &Taken,
    natural: &HashSet<String>,
) -> String {
    let free = |name: &str| !taken.contains(name) && !is_reserved_type(name);
    if let Some(title) = title.map(type_ident)
        && title != "Unnamed"
        && !full.ends_with(&title)
        && title.len() <= MAX_DERIVED_NAME
        && free(&title)
        && !natural.contains(&title)
    {
        return title;
    }
    let deduped = drop_repeated_words(full);
    if deduped != full && !natural.contains(&deduped) {
        let short = cap(&deduped);
        if free(&short) {
            return short;
        }
    }
    cap(full)
}

/// The words of an UpperCamelCase name: each starts at an uppercase letter (digits stay with the
/// word before them).
fn camel_words(name: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = 0;
    for (i, c) in name.char_indices() {
        if i > start && c.is_ascii_uppercase() {
            words.push(&name[start..i]);
            start = i;
        }
    }
    if start < name.len() {
        words.push(&name[start..]);
    }
    words
}

/// Drops a run of one to three words that repeats the run just before it:
/// `CreateUserRequestUserAddressAddress` -> `CreateUserRequestUserAddress`,
/// `PlanChunkingStrategyChunkingStrategy` -> `PlanChunkingStrategy`.
pub fn drop_repeated_words(name: &str) -> String {
    let mut words: Vec<&str> = Vec::new();
    for word in camel_words(name) {
        words.push(word);
        for run in 1..=3 {
            let n = words.len();
            if n >= 2 * run && words[n - run..] == words[n - 2 * run..n - run] {
                words.truncate(n - run);
                break;
            }
        }
    }
    words.concat()
}

/// `name`, or when longer than [`MAX_DERIVED_NAME`]: its first words and its last words (what
/// owns the type, and which property it is), then a four-letter word spelled from a hash of the
/// whole name (`Kxqb`), so names cut alike stay apart and the same document always gives the same
/// name.
pub fn cap(name: &str) -> String {
    if name.len() <= MAX_DERIVED_NAME {
        return name.to_owned();
    }
    let mut h = fnv1a(name);
    let mut hash = String::new();
    for i in 0..4 {
        let letter = (h % 26) as u8;
        h /= 26;
        hash.push(char::from(if i == 0 { b'A' } else { b'a' } + letter));
    }
    let budget = MAX_DERIVED_NAME - hash.len();
    let words = camel_words(name);
    let mut head = String::new();
    let mut used = 0;
    for word in &words {
        if !head.is_empty() && head.len() + word.len() > budget / 2 {
            break;
        }
        head.push_str(word);
        used += 1;
    }
    head.truncate(budget);
    let mut tail: Vec<&str> = Vec::new();
    let mut tail_len = 0;
    for word in words[used..].iter().rev() {
        if head.len() + tail_len + word.len() > budget {
            break;
        }
        tail.push(word);
        tail_len += word.len();
    }
    tail.reverse();
    format!("{head}{}{hash}", tail.concat())
}

/// FNV-1a (32 bits): stable across platforms and Rust versions, unlike `std`'s hasher.
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The type names given so far. `claim` numbers a taken name (`Name2`, `Name3`...) starting where
/// the last claim of the same name stopped, so many types of one name cost no repeated search.
struct Taken {
    names: HashSet<String>,
    next_number: HashMap<String, usize>,
}

impl Taken {
    fn new(reserved: &[&str]) -> Taken {
        Taken {
            names: reserved.iter().map(|s| (*s).to_owned()).collect(),
            next_number: HashMap::new(),
        }
    }

    fn contains(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    fn claim(&mut self, base: String) -> String {
        if self.names.insert(base.clone()) {
            return base;
        }
        // Every number below the remembered one is taken already, and names are never released.
        let n = self.next_number.entry(base.clone()).or_insert(2);
        loop {
            let candidate = format!("{base}{n}");
            *n += 1;
            if self.names.insert(candidate.clone()) {
                return candidate;
            }
        }
    }
}

/// `base`, or the first of `base{sep}2`, `base{sep}3`... not in `taken`, which the name joins.
pub fn unique(base: &str, taken: &mut HashSet<String>, sep: &str) -> String {
    let name = numbered(base, sep, |n| taken.contains(n));
    taken.insert(name.clone());
    name
}

/// Only ASCII letters, digits and `_` survive; other characters separate words.
fn ascii_words(raw: &str) -> String {
    raw.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect()
}

/// An UpperCamelCase type name.
pub fn type_ident(raw: &str) -> String {
    let camel = ascii_words(raw).to_upper_camel_case();
    if camel.is_empty() {
        "Unnamed".to_owned()
    } else if camel.starts_with(|c: char| c.is_ascii_digit()) {
        format!("T{camel}")
    } else {
        camel
    }
}

/// A snake_case field, function or parameter name.
pub fn field_ident(raw: &str) -> String {
    let snake = ascii_words(raw).to_snake_case();
    let snake = if snake.is_empty() {
        "value".to_owned()
    } else if snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{snake}")
    } else {
        snake
    };
    if NOT_RAW.contains(&snake.as_str()) {
        format!("{snake}_")
    } else {
        snake
    }
}

fn variant_ident(raw: &str) -> Option<String> {
    let camel = ascii_words(raw).to_upper_camel_case();
    if camel.is_empty() {
        None
    } else if camel.starts_with(|c: char| c.is_ascii_digit()) {
        Some(format!("V{camel}"))
    } else if camel == "Self" {
        Some("Self_".to_owned())
    } else {
        Some(camel)
    }
}

/// `base`, or `base2`, `base3`... whichever none of `names` is: a variant the generator adds beside
/// the document's (an open enum's `Unknown`).
pub fn free_variant<'a>(base: &str, names: impl Iterator<Item = &'a str> + Clone) -> String {
    numbered(base, "", |candidate| {
        names.clone().any(|name| name == candidate)
    })
}

/// `base`, or the first of `base{separator}2`, `base{separator}3`... that is not `taken`.
fn numbered(base: &str, separator: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = base.to_owned();
    let mut n = 2;
    while taken(&name) {
        name = format!("{base}{separator}{n}");
        n += 1;
    }
    name
}

fn value_variant(value: i64) -> String {
    if value < 0 {
        format!("ValueMinus{}", value.unsigned_abs())
    } else {
        format!("Value{value}")
    }
}

fn union_variant_name(ty: &TypeRef, type_names: &[String]) -> String {
    match ty {
        TypeRef::Named(id) => type_names[id.0].clone(),
        TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. } => {
            primitive_word(*p).to_owned()
        }
        TypeRef::Array(inner) => format!("{}List", union_variant_name(inner, type_names)),
        TypeRef::Map(inner) => format!("{}Map", union_variant_name(inner, type_names)),
        TypeRef::Nullable(inner) => union_variant_name(inner, type_names),
        TypeRef::Any => "Value".to_owned(),
        TypeRef::Null => "Null".to_owned(),
    }
}

fn primitive_word(p: Primitive) -> &'static str {
    match p {
        Primitive::String => "String",
        Primitive::Bool => "Boolean",
        Primitive::I8 | Primitive::I16 | Primitive::I32 | Primitive::I64 => "Integer",
        Primitive::U8 | Primitive::U16 | Primitive::U32 | Primitive::U64 => "Unsigned",
        Primitive::F32 | Primitive::F64 => "Number",
        Primitive::Uuid => "Uuid",
        Primitive::DateTime => "DateTime",
        Primitive::Date => "Date",
        Primitive::Bytes | Primitive::Base64 => "Bytes",
        Primitive::Url => "Url",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_sanitized() {
        assert_eq!(type_ident("x-ms-thing"), "XMsThing");
        assert_eq!(type_ident("2fa_settings"), "T2faSettings");
        assert_eq!(type_ident("Über"), "Ber");
        assert_eq!(field_ident("$type"), "type");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("123"), "_123");
        assert_eq!(field_ident("fooBar"), "foo_bar");
        assert_eq!(variant_ident("in-progress").as_deref(), Some("InProgress"));
        assert_eq!(variant_ident("1d").as_deref(), Some("V1d"));
        assert_eq!(value_variant(-3), "ValueMinus3");
    }

    #[test]
    fn an_added_variant_avoids_the_documents_names() {
        assert_eq!(
            free_variant("Unknown", ["Known", "Other"].into_iter()),
            "Unknown"
        );
        assert_eq!(
            free_variant("Unknown", ["Unknown", "Unknown2"].into_iter()),
            "Unknown3"
        );
    }

    #[test]
    fn taken_type_names_are_numbered_past_given_ones() {
        let mut taken = Taken::new(&["String"]);
        assert_eq!(taken.claim("String".into()), "String2");
        assert_eq!(taken.claim("Item".into()), "Item");
        assert_eq!(taken.claim("Item3".into()), "Item3");
        assert_eq!(taken.claim("Item".into()), "Item2");
        assert_eq!(taken.claim("Item".into()), "Item4");
    }

    #[test]
    fn repeated_words_are_dropped() {
        assert_eq!(
            drop_repeated_words("CreateUserRequestUserAddressAddress"),
            "CreateUserRequestUserAddress"
        );
        assert_eq!(
            drop_repeated_words("PlanChunkingStrategyChunkingStrategyType"),
            "PlanChunkingStrategyType"
        );
        assert_eq!(drop_repeated_words("TagsItem"), "TagsItem");
        assert_eq!(drop_repeated_words("Variant1Variant2"), "Variant1Variant2");
        assert_eq!(camel_words("T2faSettingsV1"), ["T2fa", "Settings", "V1"]);
    }

    #[test]
    fn long_names_are_cut_deterministically() {
        let long = "PostCustomersCustomerSubscriptionsSubscriptionExposedIdRequestPendingInvoiceItemIntervalVariant1Interval";
        let cut = cap(long);
        assert!(cut.len() <= MAX_DERIVED_NAME, "{cut}");
        assert_eq!(cut, cap(long));
        assert!(cut.starts_with("PostCustomersCustomer"), "{cut}");
        assert!(
            cut[..cut.len() - 4].ends_with("IntervalVariant1Interval"),
            "{cut}"
        );
        let hash = &cut[cut.len() - 4..];
        assert!(hash.starts_with(|c: char| c.is_ascii_uppercase()), "{cut}");
        assert!(hash[1..].chars().all(|c| c.is_ascii_lowercase()), "{cut}");
        // Names cut to the same words differ by their hash.
        let other = long.replace("Pending", "Upcoming");
        assert_ne!(cap(&other), cut);
        assert_eq!(cap("Short"), "Short");
        // One word longer than the cap is cut too.
        let word = format!("A{}", "b".repeat(100));
        assert_eq!(cap(&word).len(), MAX_DERIVED_NAME);
    }

    #[test]
    fn titles_name_inline_types_when_they_say_more_and_are_free() {
        let taken = Taken::new(&["Taken"]);
        let natural: HashSet<String> = ["OrderItem".to_owned()].into_iter().collect();
        let name = |title| derived_name("OrderLinesItem", title, &taken, &natural);
        assert_eq!(name(Some("Line item")), "LineItem");
        assert_eq!(name(None), "OrderLinesItem");
        // A title that only repeats the property name, a taken one, another type's own name.
        assert_eq!(name(Some("item")), "OrderLinesItem");
        assert_eq!(name(Some("Taken")), "OrderLinesItem");
        assert_eq!(name(Some("Order item")), "OrderLinesItem");
        assert_eq!(name(Some("String")), "OrderLinesItem");
        // A shortened name never takes another type's own name: the whole name is kept.
        let natural: HashSet<String> = ["UserAddress".to_owned()].into_iter().collect();
        assert_eq!(
            derived_name("UserAddressAddress", None, &taken, &natural),
            "UserAddressAddress"
        );
        assert_eq!(
            derived_name("UserAddressAddress", None, &taken, &HashSet::new()),
            "UserAddress"
        );
        // The same when both names are cut: compared before cutting.
        let words: String = (0..12).map(|i| format!("Part{i}")).collect();
        let parent = format!("{words}Interval");
        let natural: HashSet<String> = [parent.clone()].into_iter().collect();
        let child = derived_name(&format!("{parent}Interval"), None, &taken, &natural);
        assert_ne!(child, cap(&parent));
        assert_eq!(child, cap(&format!("{parent}Interval")));
    }

    #[test]
    fn unique_appends_numbers() {
        let mut taken = HashSet::new();
        assert_eq!(unique("a", &mut taken, "_"), "a");
        assert_eq!(unique("a", &mut taken, "_"), "a_2");
        assert_eq!(unique("a", &mut taken, "_"), "a_3");
    }
}
