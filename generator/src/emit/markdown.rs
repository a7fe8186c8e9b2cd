//! A description as doc-comment lines: Markdown as people write it, made into Markdown that rustdoc
//! renders the same way and that clippy's doc lints accept, whatever the document says.
//!
//! - A block quote or list item continued lazily (the next line without its `>` or indentation)
//!   gets them (`doc_lazy_continuation`); a list item's continuation indented past its text is
//!   brought back to it (`doc_overindented_list_items`).
//! - A code block without a language is `text`, and one marked as Rust is not compiled as a
//!   doctest (`ignore`): an API's examples are not this crate's tests (`needless_doctest_main`,
//!   `test_attr_in_doctest`).
//! - A link reference definition inside a quote or list item is shown as text
//!   (`doc_nested_refdefs`).
//! - Tabs are spaces (`tabs_in_doc_comments`).

/// Each line prefixed with a space (`/// text`), trailing blank lines trimmed.
pub fn lines(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut state = State::default();
    for raw in doc.lines() {
        let line = raw.trim_end().replace('\t', "    ");
        out.push(state.line(&line));
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

#[derive(Default)]
struct State {
    /// The fence that opened the code block the lines are in (its character, repeated).
    fence: Option<String>,
    /// The column of the text of the list item the lines continue.
    list_indent: Option<usize>,
    /// The markers of the block quote the lines continue (`> `, `> > `).
    quote: Option<String>,
}

impl State {
    fn line(&mut self, line: &str) -> String {
        let trimmed = line.trim_start();
        let leading = line.len() - trimmed.len();
        if let Some(fence) = &self.fence {
            if trimmed.starts_with(fence.as_str()) && trimmed[fence.len()..].trim().is_empty() {
                self.fence = None;
            }
            return format!(" {line}");
        }
        if let Some((fence, info)) = fence_of(trimmed) {
            let info = code_info(info);
            let text = format!(" {}{fence}{info}", &line[..leading]);
            self.fence = Some(fence);
            self.list_indent = None;
            self.quote = None;
            return text;
        }
        if trimmed.is_empty() {
            self.list_indent = None;
            self.quote = None;
            return String::new();
        }
        if trimmed.starts_with('>') && leading < 4 {
            let (markers, rest) = quote_markers(trimmed);
            self.quote = Some(markers.clone());
            self.list_indent = None;
            return format!(" {}{markers}{}", &line[..leading], shown_refdef(rest));
        }
        if let Some(markers) = &self.quote {
            return format!(" {markers}{}", shown_refdef(trimmed));
        }
        if let Some(marker) = list_marker_width(trimmed) {
            self.list_indent = Some(leading + marker);
            return format!(" {line}");
        }
        match self.list_indent {
            // A continuation line: at the item's text, neither before nor past it.
            Some(indent) if leading != indent => {
                format!(" {}{}", " ".repeat(indent), shown_refdef(trimmed))
            }
            Some(_) => format!(" {}", shown_refdef_at(line, leading)),
            None => format!(" {line}"),
        }
    }
}

/// An opening fence (three or more backticks or tildes) and its info string.
fn fence_of(trimmed: &str) -> Option<(String, &str)> {
    let first = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|c| *c == first).count();
    (len >= 3).then(|| (first.to_string().repeat(len), &trimmed[len..]))
}

/// A code block's info string as rustdoc should take it: `text` for none, Rust marked `ignore`.
fn code_info(info: &str) -> String {
    let info = info.trim();
    if info.is_empty() {
        return "text".to_owned();
    }
    const RUSTDOC: [&str; 7] = [
        "rust",
        "ignore",
        "no_run",
        "should_panic",
        "compile_fail",
        "test_harness",
        "standalone_crate",
    ];
    let rust = info.split([',', ' ']).all(|attr| {
        let attr = attr.trim();
        attr.is_empty() || RUSTDOC.contains(&attr) || attr.starts_with("edition")
    });
    if rust && !info.split(',').any(|a| a.trim() == "ignore") {
        format!("{info},ignore")
    } else {
        info.to_owned()
    }
}

/// The `>` markers a quoted line starts with (`> > `), and the rest.
fn quote_markers(trimmed: &str) -> (String, &str) {
    let mut markers = String::new();
    let mut rest = trimmed;
    while let Some(after) = rest.strip_prefix('>') {
        markers.push_str("> ");
        rest = after.strip_prefix(' ').unwrap_or(after);
    }
    (markers, rest)
}

/// A link reference definition (`[label]: url`) as text, where rustdoc would take it for a
/// definition nested in a quote or list.
fn shown_refdef(text: &str) -> String {
    let is_refdef = text.strip_prefix('[').is_some_and(|rest| {
        rest.split_once("]:")
            .is_some_and(|(label, _)| !label.is_empty() && !label.contains(['[', ']']))
    });
    if is_refdef {
        format!("\\{text}")
    } else {
        text.to_owned()
    }
}

fn shown_refdef_at(line: &str, leading: usize) -> String {
    format!("{}{}", &line[..leading], shown_refdef(&line[leading..]))
}

/// Where the text of a list item starts, from the start of its marker (`- `, `*   `, `12. `), if
/// the line starts with one: CommonMark counts the spaces after the marker, one to four (more
/// start an indented code block after one space).
fn list_marker_width(line: &str) -> Option<usize> {
    let marker = if line.starts_with(['-', '*', '+']) {
        1
    } else {
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        let closed = line[digits..].starts_with(['.', ')']);
        if !(1..=9).contains(&digits) || !closed {
            return None;
        }
        digits + 1
    };
    let spaces = line[marker..].chars().take_while(|c| *c == ' ').count();
    match spaces {
        0 => None,
        1..=4 => Some(marker + spaces),
        _ => Some(marker + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> String {
        lines(text).join("\n")
    }

    #[test]
    fn lazy_continuations_get_their_markers() {
        assert_eq!(
            doc("> **Note:** a sketch.\nIt may change.\n\nAfter."),
            " > **Note:** a sketch.\n > It may change.\n\n After."
        );
        assert_eq!(doc("> > deep\nlazy"), " > > deep\n > > lazy");
        assert_eq!(
            doc("1. Create.\nAt once.\n2. Read.\n        Over-indented."),
            " 1. Create.\n    At once.\n 2. Read.\n    Over-indented."
        );
        assert_eq!(doc("- a\n  - b\n c"), " - a\n   - b\n     c");
        // The item's text starts after all the marker's spaces (up to four).
        assert_eq!(
            doc("*   First,\n  continued.\n*   Second."),
            " *   First,\n     continued.\n *   Second."
        );
        assert_eq!(doc("2)  Two\nmore"), " 2)  Two\n     more");
    }

    #[test]
    fn code_blocks_are_text_or_ignored_rust() {
        assert_eq!(
            doc("```\nfn main() {}\n```"),
            " ```text\n fn main() {}\n ```"
        );
        assert_eq!(
            doc("```rust\nfn main() {}\n```"),
            " ```rust,ignore\n fn main() {}\n ```"
        );
        assert_eq!(doc("~~~json\n{}\n~~~"), " ~~~json\n {}\n ~~~");
        // Inside a fence nothing is rewritten, and only the same fence closes it.
        assert_eq!(
            doc("````\n> quote\n```\n- a\n````\nafter"),
            " ````text\n > quote\n ```\n - a\n ````\n after"
        );
    }

    #[test]
    fn nested_reference_definitions_are_shown_as_text() {
        assert_eq!(
            doc("> [ref]: https://example.com"),
            " > \\[ref]: https://example.com"
        );
        assert_eq!(
            doc("- item:\n  [ref]: https://example.com"),
            " - item:\n   \\[ref]: https://example.com"
        );
        assert_eq!(
            doc("[top]: https://example.com"),
            " [top]: https://example.com"
        );
    }
}
