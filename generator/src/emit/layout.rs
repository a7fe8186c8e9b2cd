//! Documentation lines written as text, for `root_file`.

use std::fmt::Write;

/// `{indent}///{line}` per documentation line (lines start with their space, as
/// `rust::doc_lines` makes them).
pub fn push_doc(out: &mut String, indent: &str, lines: &[String]) {
    for line in lines {
        let _ = writeln!(out, "{indent}///{}", line.trim_end_matches(' '));
    }
}
