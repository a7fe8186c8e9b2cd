//! A crate's `lib.rs` written as text: its documentation, then its `mod` and `use` items, each
//! marked `#[rustfmt::skip]` (see [`super::crate_root`], which prints the same from tokens and
//! is the fallback for documentation lines prettyplease would not print as `//!`).

use super::{File, Options, assembled, crate_root};
use proc_macro2::TokenStream;
use quote::quote;
use std::fmt::Write;

pub struct Root {
    /// The crate's documentation, line by line (`" text"`, or `""` between paragraphs).
    pub docs: Vec<String>,
    pub items: Vec<Item>,
}

/// A `mod` or `use` item: `text` (`pub mod codec;`) after its documentation and attributes.
pub struct Item {
    pub doc: Vec<String>,
    /// Attributes other than documentation (`#[cfg(feature = "webhooks")]`).
    pub attrs: Vec<String>,
    pub text: String,
}

impl Item {
    pub fn new(text: &str) -> Item {
        Item {
            doc: Vec::new(),
            attrs: Vec::new(),
            text: text.to_owned(),
        }
    }

    /// The items whose condition holds, in order.
    pub fn wanted<'a>(items: impl IntoIterator<Item = (bool, &'a str)>) -> Vec<Item> {
        items
            .into_iter()
            .filter(|(wanted, _)| *wanted)
            .map(|(_, text)| Item::new(text))
            .collect()
    }

    /// `pub mod webhooks;` behind the `webhooks` feature, documented with `doc`.
    pub fn webhooks(doc: &[&str]) -> Item {
        Item {
            doc: doc.iter().map(|line| (*line).to_owned()).collect(),
            attrs: vec![r#"#[cfg(feature = "webhooks")]"#.to_owned()],
            text: "pub mod webhooks;".to_owned(),
        }
    }
}

/// `src/lib.rs` of `root`.
pub fn file(root: &Root, opts: &Options) -> Result<File, String> {
    let mut lines = root
        .docs
        .iter()
        .chain(root.items.iter().flat_map(|item| &item.doc));
    // prettyplease prints a documentation line holding a line break as a block comment or an
    // attribute: the token path lays that out.
    if lines.any(|line| line.contains(['\n', '\r'])) {
        return crate_root(tokens(root)?, opts);
    }
    let mut out = String::new();
    for line in &root.docs {
        let _ = writeln!(out, "//!{}", line.trim_end_matches(' '));
    }
    for item in &root.items {
        super::layout::push_doc(&mut out, "", &item.doc);
        for attr in &item.attrs {
            let _ = writeln!(out, "{attr}");
        }
        let _ = writeln!(out, "#[rustfmt::skip]\n{}", item.text);
    }
    assembled(opts, "src/lib.rs", &[out])
}

fn tokens(root: &Root) -> Result<TokenStream, String> {
    let parse = |text: &str| {
        text.parse::<TokenStream>()
            .map_err(|e| format!("src/lib.rs: `{text}` does not parse: {e}"))
    };
    let docs = &root.docs;
    let mut tokens = quote! { #( #![doc = #docs] )* };
    for item in &root.items {
        let doc = &item.doc;
        tokens.extend(quote! { #( #[doc = #doc] )* });
        for attr in &item.attrs {
            tokens.extend(parse(attr)?);
        }
        tokens.extend(parse(&item.text)?);
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(title: &str) -> Root {
        Root {
            docs: vec![title.to_owned(), String::new(), " More.".into()],
            items: vec![
                Item::new("mod auth;"),
                Item {
                    doc: vec![" The receiver.".into()],
                    attrs: vec![r#"#[cfg(feature = "webhooks")]"#.into()],
                    text: "pub mod webhooks;".into(),
                },
                Item::new("pub use client::{Client, ClientBuilder};"),
                Item::new("pub use types::*;"),
                Item::new("pub use bench_models as models;"),
            ],
        }
    }

    #[test]
    fn a_title_with_a_line_break_is_printed_from_tokens() {
        let opts = Options::new("x", "spec.yaml", "gen");
        let text = file(&root(" Client of Pets\nand more (version 1)."), &opts).unwrap();
        assert!(
            !text.contents.contains("//! Client of Pets"),
            "{}",
            text.contents
        );
        assert!(text.contents.contains("#[rustfmt::skip]\nmod auth;"));
    }
}
