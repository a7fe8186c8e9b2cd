//! prettyplease's line breaking, for the code the emitters write as text (`objects`, `enum_impls`,
//! `client::sending`), so that it reads like the printed code around it.

use std::fmt::Write;

/// prettyplease's line width.
const MARGIN: usize = 89;

/// `{head} for {name} {`, with `for` starting a line of its own past the margin.
pub fn impl_header(head: &str, name: &str) -> String {
    let one_line = format!("{head} for {name} {{");
    if one_line.len() <= MARGIN {
        one_line
    } else {
        format!("{head}\nfor {name} {{")
    }
}

/// `{indent}{open}a, b{close}` on one line when it fits, else one item per line, indented once
/// more, each with its comma.
pub fn push_list(out: &mut String, indent: &str, open: &str, items: &[&str], close: &str) {
    let one_line = format!("{indent}{open}{}{close}", items.join(", "));
    if one_line.len() <= MARGIN {
        out.push_str(&one_line);
        out.push('\n');
        return;
    }
    let _ = writeln!(out, "{indent}{open}");
    for item in items {
        let _ = writeln!(out, "{indent}    {item},");
    }
    let _ = writeln!(out, "{indent}{close}");
}

/// Whether `line` fits prettyplease's width.
pub fn fits(line: &str) -> bool {
    line.len() <= MARGIN
}
