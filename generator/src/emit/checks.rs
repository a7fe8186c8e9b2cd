//! The constraints of one value beyond its type (lengths, patterns, formats, ranges, counts), as
//! plain data: the models' `Validate` impls and the server's parameter checks both plan a
//! [`Checks`] and print it with the one [`render`].

use super::rust::opt_usize;
use crate::ir::{Constraints, Primitive, StringFormat};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// `(min, max)` of a length or count.
pub type Bounds = (Option<usize>, Option<usize>);

/// What is checked of one value (`&T` in the generated code).
pub enum Checks {
    /// A string (`url`: a `url::Url`, checked as its text; its format is its type).
    Text {
        url: bool,
        length: Option<Bounds>,
        /// The number of the enforced pattern (see [`super::Patterns`]) and its source.
        pattern: Option<(usize, String)>,
        format: Option<StringFormat>,
    },
    /// A number between bounds `(value, exclusive)`.
    Range {
        number: Primitive,
        min: Option<(f64, bool)>,
        max: Option<(f64, bool)>,
    },
    /// A type with its own `Validate` impl.
    Validate,
    /// An `Option`: what it holds, when `Some` (`twice`: an `Option<Option<T>>`).
    Held { twice: bool, inner: Box<Checks> },
    /// An array: its length, uniqueness and each item.
    Items {
        count: Option<Bounds>,
        unique: bool,
        each: Option<Box<Checks>>,
    },
    /// A map: its size, each key's pattern and each value.
    Entries {
        count: Option<Bounds>,
        key: Option<(usize, String)>,
        each: Option<Box<Checks>>,
    },
}

impl Checks {
    /// A string's length, pattern and (with `formats`) format, if it has any; `pattern` gives the
    /// number of an enforced pattern.
    pub fn text(
        c: &Constraints,
        url: bool,
        formats: bool,
        pattern: impl Fn(&str) -> Option<usize>,
    ) -> Option<Checks> {
        let length = bounds(c.min_length, c.max_length);
        let pattern = enforced(&c.pattern, pattern);
        let format = c.format.filter(|_| formats && !url);
        (length.is_some() || pattern.is_some() || format.is_some()).then_some(Checks::Text {
            url,
            length,
            pattern,
            format,
        })
    }

    /// A number's range, if it has one.
    pub fn range(number: Primitive, c: &Constraints) -> Option<Checks> {
        let bound = |b: Option<f64>, exclusive: bool| b.map(|b| (b, exclusive));
        (c.minimum.is_some() || c.maximum.is_some()).then(|| Checks::Range {
            number,
            min: bound(c.minimum, c.exclusive_minimum),
            max: bound(c.maximum, c.exclusive_maximum),
        })
    }

    /// An array's count and uniqueness, and `each` of its items, if anything is checked.
    pub fn items(c: &Constraints, each: Option<Checks>) -> Option<Checks> {
        let count = bounds(c.min_items, c.max_items);
        (count.is_some() || c.unique_items || each.is_some()).then(|| Checks::Items {
            count,
            unique: c.unique_items,
            each: each.map(Box::new),
        })
    }
}

/// `(min, max)` when either is set.
pub fn bounds(min: Option<usize>, max: Option<usize>) -> Option<Bounds> {
    (min.is_some() || max.is_some()).then_some((min, max))
}

/// The number and source of a pattern, when it is set and enforced.
pub fn enforced(
    source: &Option<String>,
    pattern: impl Fn(&str) -> Option<usize>,
) -> Option<(usize, String)> {
    let source = source.as_ref()?;
    Some((pattern(source)?, source.clone()))
}

/// Where the checks run: the names they use there.
#[derive(Clone, Copy)]
pub enum Site {
    /// In the models crate (`validation::`, the patterns imported); nested values are `v{depth}`.
    Models,
    /// In the server's router (`models::validation::`); the items of a list are `item`.
    Params,
}

impl Site {
    fn validation(self) -> TokenStream {
        match self {
            Site::Models => quote! { validation },
            Site::Params => quote! { models::validation },
        }
    }

    fn pattern(self, number: usize) -> TokenStream {
        let regex = format_ident!("PATTERN_{}", number);
        match self {
            Site::Models => quote! { #regex },
            Site::Params => quote! { models::patterns::#regex },
        }
    }

    /// The names of a nested value, its index and its key.
    fn bindings(self, depth: usize) -> [proc_macro2::Ident; 3] {
        match self {
            Site::Models => ["v", "i", "k"].map(|n| format_ident!("{n}{depth}")),
            Site::Params => ["item", "i", "k"].map(|n| format_ident!("{n}")),
        }
    }
}

/// The statements checking `value` (of type `&T`), reporting to `path` and `errors`.
pub fn render(checks: &Checks, value: &TokenStream, site: Site, depth: usize) -> TokenStream {
    let validation = site.validation();
    let [v, i, k] = site.bindings(depth);
    // A length or count: `function(subject, path, min, max, errors)`.
    let bounded = |bounds: &Option<Bounds>, function: &str, subject: TokenStream| {
        bounds.map(|(min, max)| {
            let (function, min, max) =
                (format_ident!("{function}"), opt_usize(min), opt_usize(max));
            quote! { #validation::#function(#subject, path, #min, #max, errors); }
        })
    };
    let matches = |subject: &TokenStream, (number, source): &(usize, String)| {
        let regex = site.pattern(*number);
        quote! { #validation::pattern(#subject, path, &#regex, #source, errors); }
    };
    let each = |each: &Option<Box<Checks>>| {
        each.as_ref()
            .map(|each| render(each, &quote! { #v }, site, depth + 1))
    };
    match checks {
        Checks::Text {
            url,
            length,
            pattern,
            format,
        } => {
            let value = &if *url {
                quote! { #value.as_str() }
            } else {
                quote! { #value }
            };
            let length = bounded(length, "length", quote! { #value });
            let pattern = pattern.as_ref().map(|pattern| matches(value, pattern));
            let format = format.map(|format| match format {
                StringFormat::Email => quote! { #validation::email(#value, path, errors); },
                StringFormat::Uri => quote! { #validation::uri(#value, path, errors); },
                StringFormat::Uuid => quote! { #validation::uuid(#value, path, errors); },
                StringFormat::DateTime => quote! { #validation::date_time(#value, path, errors); },
                StringFormat::Date => quote! { #validation::date(#value, path, errors); },
            });
            quote! { #length #pattern #format }
        }
        Checks::Range { number, min, max } => {
            let bound = |b: &Option<(f64, bool)>| match b {
                Some((b, exclusive)) => {
                    let b = Literal::f64_suffixed(*b);
                    quote! { Some((#b, #exclusive)) }
                }
                None => quote! { None },
            };
            let as_f64 = match number {
                Primitive::F64 => quote! { *#value },
                // No lossless conversion exists; spec bounds are far inside f64's exact range.
                Primitive::I64 | Primitive::U64 => quote! { *#value as f64 },
                _ => quote! { f64::from(*#value) },
            };
            let (min, max) = (bound(min), bound(max));
            quote! { #validation::range(#as_f64, path, #min, #max, errors); }
        }
        Checks::Validate => quote! { #value.validate_at(path, errors); },
        Checks::Held { twice, inner } => {
            let inner = render(inner, &quote! { #v }, site, depth + 1);
            if *twice {
                quote! { if let Some(Some(#v)) = #value { #inner } }
            } else {
                quote! { if let Some(#v) = #value { #inner } }
            }
        }
        Checks::Items {
            count: bounds,
            unique,
            each: item,
        } => {
            let count = bounded(bounds, "items", quote! { #value.len() });
            let unique = unique.then(|| quote! { #validation::unique(#value, path, errors); });
            let each = each(item).map(|item| {
                quote! {
                    for (#i, #v) in #value.iter().enumerate() {
                        let path = #validation::index(path, #i);
                        let path = path.as_str();
                        #item
                    }
                }
            });
            quote! { #count #unique #each }
        }
        Checks::Entries {
            count: bounds,
            key,
            each: item,
        } => {
            let count = bounded(bounds, "entries", quote! { #value.len() });
            let key = key.as_ref().map(|pattern| matches(&quote! { #k }, pattern));
            let item = each(item);
            if item.is_none() && key.is_none() {
                return quote! { #count };
            }
            let pairs = if item.is_some() {
                quote! { (#k, #v) in #value }
            } else {
                quote! { #k in #value.keys() }
            };
            quote! {
                #count
                for #pairs {
                    let path = #validation::field(path, #k);
                    let path = path.as_str();
                    #key
                    #item
                }
            }
        }
    }
}
