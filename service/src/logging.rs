//! Logs on stderr: human-readable text, or one JSON object per line for log collectors. Either way
//! a line logged while a request is handled carries the request's id (from its span).

use tracing_subscriber::EnvFilter;

/// Installs the process's subscriber; `format` is `text` or `json`. The level comes from
/// `RUST_LOG` (default `info`).
pub fn init(format: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    if format == "json" {
        builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .init();
    } else {
        builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init();
    }
}
