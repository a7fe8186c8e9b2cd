//! Small writers of code as text, for the emitters that write text rather than tokens. The text
//! is code, not layout: every file is printed by prettyplease once (`emit::assembled`).

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use std::fmt::Write;

/// `{head} for {name} {`.
pub fn impl_header(head: &str, name: &str) -> String {
    format!("{head} for {name} {{")
}

/// `{indent}{open}a, b{close}`.
pub fn push_list(out: &mut String, indent: &str, open: &str, items: &[&str], close: &str) {
    let _ = writeln!(out, "{indent}{open}{}{close}", items.join(", "));
}

/// `{indent}///{line}` per documentation line (lines start with their space, as
/// `rust::doc_lines` makes them).
pub fn push_doc(out: &mut String, indent: &str, lines: &[String]) {
    for line in lines {
        let _ = writeln!(out, "{indent}///{}", line.trim_end_matches(' '));
    }
}

/// `{indent}{name}: {ty},` (a struct field; `name` may start with `pub `).
pub fn push_field(out: &mut String, indent: &str, name: &str, ty: &str) {
    let _ = writeln!(out, "{indent}{name}: {ty},");
}

/// `{indent}{before}{ty}{after}`.
pub fn push_type(out: &mut String, indent: &str, before: &str, ty: &str, after: &str) {
    let _ = writeln!(out, "{indent}{before}{ty}{after}");
}

/// `{indent}{open}{ty}{close}` (a tuple variant `Name(T),`).
pub fn push_tuple(out: &mut String, indent: &str, open: &str, ty: &str, close: &str) {
    let _ = writeln!(out, "{indent}{open}{ty}{close}");
}

/// `{indent}{pattern} => {value},` (a match arm).
pub fn push_arm(out: &mut String, indent: &str, pattern: &str, value: &str) {
    let _ = writeln!(out, "{indent}{pattern} => {value},");
}

/// `{indent}#[{path}(a, b)]`.
pub fn push_attr(out: &mut String, indent: &str, path: &str, args: &[String]) {
    let _ = writeln!(out, "{indent}#[{path}({})]", args.join(", "));
}

/// Always true: lines are laid out by prettyplease.
pub fn fits(_line: &str) -> bool {
    true
}

/// Always true.
pub fn fits_code(_line: &str) -> bool {
    true
}

/// A type's tokens as prettyplease prints a type that fits on a line.
pub fn type_text(tokens: TokenStream) -> String {
    let mut out = String::new();
    push_tokens(&mut out, tokens);
    out
}

fn push_tokens(out: &mut String, tokens: TokenStream) {
    // Whether the last token was a word (ident, literal, lifetime): two words need a space.
    let mut word = false;
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => {
                if word {
                    out.push(' ');
                }
                let _ = write!(out, "{ident}");
                word = true;
            }
            TokenTree::Literal(literal) => {
                if word {
                    out.push(' ');
                }
                let _ = write!(out, "{literal}");
                word = true;
            }
            TokenTree::Punct(punct) => {
                match punct.as_char() {
                    ',' => out.push_str(", "),
                    ';' => out.push_str("; "),
                    '=' | '+' => {
                        let _ = write!(out, " {} ", punct.as_char());
                    }
                    '-' if punct.spacing() == Spacing::Joint => out.push_str(" -"),
                    '>' if out.ends_with(" -") => out.push_str("> "),
                    c => out.push(c),
                }
                word = false;
            }
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                push_tokens(out, group.stream());
                out.push_str(close);
                word = false;
            }
        }
    }
}
