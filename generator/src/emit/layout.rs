//! prettyplease's line breaking and spelling, for the code the emitters write as text (models'
//! items, the client's builders, every crate's root), so that it reads like the printed code
//! around it and stays byte-identical to what printing it from tokens gave.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use std::fmt::Write;

/// prettyplease's line width.
pub const MARGIN: usize = 89;

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

/// `use {path}::{{a, b}};` on one line when it fits, else the names packed on lines of their own
/// as far as each fits, with a comma after the last (one name: `use {path}::a;`).
pub fn push_use_group(out: &mut String, path: &str, names: &[String]) {
    if let [name] = names {
        let _ = writeln!(out, "use {path}::{name};");
        return;
    }
    let one_line = format!("use {path}::{{{}}};", names.join(", "));
    if push_if_fits(out, &one_line) {
        return;
    }
    let _ = write!(out, "use {path}::{{\n   ");
    let mut width = 3;
    for (i, name) in names.iter().enumerate() {
        // A name's comma counts toward the width, but for the last one's (added on breaking).
        let comma = usize::from(i + 1 < names.len());
        if width + 1 + name.len() + comma > MARGIN {
            out.push_str("\n   ");
            width = 3;
        }
        out.push(' ');
        out.push_str(name);
        if comma == 1 {
            out.push(',');
        }
        width += 1 + name.len() + comma;
    }
    out.push_str(",\n};\n");
}

/// `line` and a newline when it fits prettyplease's width; whether it did.
pub fn push_if_fits(out: &mut String, line: &str) -> bool {
    let fits = fits(line);
    if fits {
        out.push_str(line);
        out.push('\n');
    }
    fits
}

/// Whether a line of code fits prettyplease's width, where an empty block's `}` does not count
/// (`Self::A(_) => {}` may end one column past it).
pub fn fits_code(line: &str) -> bool {
    line.strip_suffix("{}")
        .map_or(line.len(), |open| open.len() + 1)
        <= MARGIN
}

/// Whether prettyplease breaks a struct literal (`Name { a, b }`, written flat) whatever room the
/// line has: it keeps one only up to 34 columns, counted with the space before a closing `}` but
/// without the `}` (`Name {}` with it).
pub fn struct_literal_breaks(flat: &str) -> bool {
    flat.len() > if flat.ends_with("{}") { 34 } else { 35 }
}

/// `{indent}{prefix}{name} { a, b: c }{suffix}` on one line when prettyplease keeps the literal
/// flat and the line fits, else one field per line, a field whose value ends in `.await?` broken
/// before it when too wide. `false` when it wrote a form prettyplease lays out otherwise: a literal
/// without fields past 34 columns (the caller leaves it to prettyplease).
pub fn push_struct_literal(
    out: &mut String,
    indent: &str,
    prefix: &str,
    name: &str,
    fields: &[String],
    suffix: &str,
) -> bool {
    let flat = if fields.is_empty() {
        format!("{name} {{}}")
    } else {
        format!("{name} {{ {} }}", fields.join(", "))
    };
    let breaks = struct_literal_breaks(&flat);
    if fields.is_empty() || (!breaks && fits(&format!("{indent}{prefix}{flat}{suffix}"))) {
        let _ = writeln!(out, "{indent}{prefix}{flat}{suffix}");
        return !breaks;
    }
    let _ = writeln!(out, "{indent}{prefix}{name} {{");
    let inner = format!("{indent}    ");
    for (i, field) in fields.iter().enumerate() {
        let line = format!("{inner}{field},");
        // The comma after the last field does not count toward the width.
        let width = line.len() - usize::from(i + 1 == fields.len());
        let head = field
            .strip_suffix(".await?")
            .filter(|head| width > MARGIN && !has_top_level_dot(head))
            .map(|head| format!("{inner}{head}"))
            .filter(|head| fits(head));
        match head {
            Some(head) => {
                let _ = writeln!(out, "{head}\n{inner}    .await?,");
            }
            None => {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    let _ = writeln!(out, "{indent}}}{suffix}");
    true
}

/// Whether `line` fits prettyplease's width.
pub fn fits(line: &str) -> bool {
    line.len() <= MARGIN
}

/// `{indent}///{line}` per documentation line (lines start with their space, as
/// `rust::doc_lines` makes them).
pub fn push_doc(out: &mut String, indent: &str, lines: &[String]) {
    for line in lines {
        let _ = writeln!(out, "{indent}///{}", line.trim_end_matches(' '));
    }
}

/// `{indent}{name}: {ty},` (a struct field; `name` may start with `pub `), the type's generic
/// arguments one per line when the line is too long.
pub fn push_field(out: &mut String, indent: &str, name: &str, ty: &str) {
    push_type(out, indent, &format!("{name}: "), ty, ",");
}

/// `{indent}{before}{ty}{after}`, breaking the type's generic arguments one per line (each broken
/// again if still too long) as prettyplease does.
pub fn push_type(out: &mut String, indent: &str, before: &str, ty: &str, after: &str) {
    push_type_counting(out, indent, before, ty, after, true);
}

/// `{indent}{open}{ty}{close}` (a tuple variant `Name(T),`), or the type on lines of its own,
/// broken as [`push_type`] breaks it, when too long.
pub fn push_tuple(out: &mut String, indent: &str, open: &str, ty: &str, close: &str) {
    let line = format!("{indent}{open}{ty}{close}");
    if push_if_fits(out, &line) {
        return;
    }
    let _ = writeln!(out, "{indent}{open}");
    push_type_counting(out, &format!("{indent}    "), "", ty, ",", false);
    let _ = writeln!(out, "{indent}{close}");
}

/// [`push_type`]; `after_counts`: whether `after` counts toward the width (the comma prettyplease
/// adds after the last item of a broken list does not).
fn push_type_counting(
    out: &mut String,
    indent: &str,
    before: &str,
    ty: &str,
    after: &str,
    after_counts: bool,
) {
    let counted = if after_counts { after } else { "" };
    let fitting = fits(&format!("{indent}{before}{ty}{counted}"));
    match ty.split_once('<') {
        Some((head, args)) if !fitting && args.ends_with('>') => {
            let _ = writeln!(out, "{indent}{before}{head}<");
            let inner = format!("{indent}    ");
            let args = top_level_args(&args[..args.len() - 1]);
            for (i, arg) in args.iter().enumerate() {
                push_type_counting(out, &inner, "", arg, ",", i + 1 < args.len());
            }
            let _ = writeln!(out, "{indent}>{after}");
        }
        _ => {
            let _ = writeln!(out, "{indent}{before}{ty}{after}");
        }
    }
}

/// `{indent}{pattern} => {value},` (a match arm), or the value in a block of its own when the arm
/// is too long: prettyplease's comma after an arm does not count toward the width.
pub fn push_arm(out: &mut String, indent: &str, pattern: &str, value: &str) {
    let line = format!("{indent}{pattern} => {value}");
    if fits(&line) {
        out.push_str(&line);
        out.push_str(",\n");
    } else {
        let _ = writeln!(
            out,
            "{indent}{pattern} => {{\n{indent}    {value}\n{indent}}}"
        );
    }
}

/// A match arm whose value is a call (`{pattern} => {callee}(a, b),`): in a block of its own when
/// the arm is too long, the arguments then one per line if the call still is.
pub fn push_call_arm(out: &mut String, indent: &str, pattern: &str, callee: &str, args: &[&str]) {
    let call = format!("{callee}({})", args.join(", "));
    if fits(&format!("{indent}{pattern} => {call}")) {
        push_arm(out, indent, pattern, &call);
        return;
    }
    let _ = writeln!(out, "{indent}{pattern} => {{");
    push_list(
        out,
        &format!("{indent}    "),
        &format!("{callee}("),
        args,
        ")",
    );
    let _ = writeln!(out, "{indent}}}");
}

/// `{indent}{prefix}{expr}{suffix}` on one line when it fits, else `expr` (a call or an array,
/// maybe behind `&` or a closure's `|x| `) broken between its arguments, one per line with its
/// comma, each broken again the same way when still too wide. `suffix_counts`: whether `suffix`
/// counts toward the width (a broken list's last comma does not). A line still too wide (a method
/// chain, a macro) is left as it is for the caller's check (see `emit::laid_out`).
pub fn push_broken(
    out: &mut String,
    indent: &str,
    prefix: &str,
    expr: &str,
    suffix: &str,
    suffix_counts: bool,
) {
    let line = format!("{indent}{prefix}{expr}{suffix}");
    let width = line.len() - if suffix_counts { 0 } else { suffix.len() };
    let call = (width > MARGIN).then(|| split_call(expr)).flatten();
    let Some((head, args, close)) = call else {
        out.push_str(&line);
        out.push('\n');
        return;
    };
    let _ = writeln!(out, "{indent}{prefix}{head}");
    push_args(out, &format!("{indent}    "), &args);
    let _ = writeln!(out, "{indent}{close}{suffix}");
}

/// Arguments one per line at `indent`, each with its comma and broken as [`push_broken`] breaks
/// it (the last comma does not count toward the width).
pub fn push_args(out: &mut String, indent: &str, args: &[&str]) {
    for (i, arg) in args.iter().enumerate() {
        push_broken(out, indent, "", arg, ",", i + 1 < args.len());
    }
}

/// The characters of code outside its string literals (their quotes kept), with their offsets.
fn outside_strings(code: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let (mut in_string, mut escaped) = (false, false);
    code.char_indices().filter(move |&(_, c)| {
        if !in_string {
            in_string = c == '"';
            return true;
        }
        match (escaped, c) {
            (false, '\\') => escaped = true,
            (false, '"') => in_string = false,
            _ => escaped = false,
        }
        !in_string
    })
}

/// A call `f(a, b)`, array `[a, b]` or tuple `(a, b)` (maybe after `&` or `|x| `) as its head up to the opening
/// bracket, its arguments and the closing bracket; `None` for other expressions: method calls
/// and macros, which prettyplease breaks otherwise, and indexing.
fn split_call(expr: &str) -> Option<(&str, Vec<&str>, char)> {
    let close = expr.chars().last().filter(|c| matches!(c, ')' | ']'))?;
    let mut depth = 0usize;
    // The opening bracket of the expression's last top-level group.
    let mut open = None;
    for (i, c) in outside_strings(expr) {
        match c {
            '(' | '[' | '{' => {
                if depth == 0 {
                    open = Some(i);
                }
                depth += 1;
            }
            ')' | ']' | '}' => depth = depth.checked_sub(1)?,
            _ => {}
        }
    }
    let open = open?;
    let head = &expr[..=open];
    let callee = &expr[..open];
    // An array, or a tuple (of two items or more: the only ones written).
    let array = matches!(callee, "" | "&");
    let call = close == ')'
        && !has_top_level_dot(callee)
        && !callee.ends_with('!')
        && callee.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '>');
    if !(array || call) {
        return None;
    }
    let args = top_level_args(&expr[open + 1..expr.len() - 1]);
    // `(a)` is a parenthesized expression, not a tuple.
    let enough = if array && close == ')' { 2 } else { 1 };
    (args.len() >= enough).then_some((head, args, close))
}

/// Whether an expression has a `.` outside brackets and strings: a method chain or field, which
/// prettyplease breaks before each `.` rather than between arguments.
fn has_top_level_dot(expr: &str) -> bool {
    let mut depth = 0usize;
    outside_strings(expr).any(|(_, c)| {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        c == '.' && depth == 0
    })
}

/// The comma-separated items of a call's or generic type's text (outside brackets and strings).
fn top_level_args(text: &str) -> Vec<&str> {
    let mut args = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in outside_strings(text) {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                args.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        args.push(last);
    }
    args
}

/// `{indent}#[{path}(a, b)]`, or one argument per line (no trailing comma) when too long.
pub fn push_attr(out: &mut String, indent: &str, path: &str, args: &[String]) {
    let one_line = format!("{indent}#[{path}({})]", args.join(", "));
    if push_if_fits(out, &one_line) {
        return;
    }
    let _ = writeln!(out, "{indent}#[{path}(");
    for (i, arg) in args.iter().enumerate() {
        let comma = if i + 1 < args.len() { "," } else { "" };
        let _ = writeln!(out, "{indent}    {arg}{comma}");
    }
    let _ = writeln!(out, "{indent})]");
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
