//! Diagnostics: every problem the generator reports carries the JSON pointer of the node it is about.

use std::fmt;

/// How serious a [`Diagnostic`] is: whether generation can go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Generation went on; the construct was approximated (the message says how).
    Warning,
    /// Generation cannot produce correct code for this document.
    Error,
}

/// One problem found in a document, at the node it is about. Displays as
/// `warning: <pointer>: <message>` (or `error: ...`; the pointer `/` for the whole document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Whether generation went on (a warning) or the document cannot be generated (an error).
    pub severity: Severity,
    /// RFC 6901 JSON pointer into the source document, e.g. `/components/schemas/Asset/properties/tier`.
    pub pointer: String,
    /// What is wrong and, for a warning, what the generated code does instead.
    pub message: String,
}

impl Diagnostic {
    /// An error at `pointer`: the document cannot be generated.
    pub fn error(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    /// A warning at `pointer`: generation goes on, approximating the construct.
    pub fn warning(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        let pointer = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{level}: {pointer}: {}", self.message)
    }
}

/// The diagnostics of one run, in the order they were found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Adds a diagnostic after the others.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    /// Adds an error at `pointer` (see [`Diagnostic::error`]).
    pub fn error(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.push(Diagnostic::error(pointer, message));
    }

    /// Adds a warning at `pointer` (see [`Diagnostic::warning`]).
    pub fn warning(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.push(Diagnostic::warning(pointer, message));
    }

    /// Whether any diagnostic is an error, which stops generation.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }

    /// The errors, in the order they were found.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The warnings, in the order they were found.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.severity == Severity::Warning)
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` as RFC 6901 requires.
pub fn child(pointer: &str, token: &str) -> String {
    let escaped = token.replace('~', "~0").replace('/', "~1");
    format!("{pointer}/{escaped}")
}

/// Decodes one escaped reference token.
pub fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(child("/paths", "/v1/{id}"), "/paths/~1v1~1{id}");
        assert_eq!(child("", "a~b"), "/a~0b");
        assert_eq!(unescape_token("~1v1~1x~0y"), "/v1/x~y");
    }
}
