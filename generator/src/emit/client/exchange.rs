//! The parts of a builder's `exchange` that are the same for every operation, written as text:
//! its signature, the status and headers it keeps, and the `ResponseValue` it answers. The
//! statements that differ (the request, the status `match`) are still printed from tokens, in a
//! stand-in function whose body sits at the same depth; [`splice`] puts the two together. The
//! layout is prettyplease's, checked against it in the tests below.

use crate::emit::layout::push_type;
use std::fmt::Write;

/// The stand-in function's name: [`splice`] replaces its line with the real signature.
pub const STAND_IN: &str = "__exchange__";
/// The statement marking where the status and headers are read.
pub const MARK: &str = "__status_and_headers__";

/// What the fixed parts name.
pub struct Exchange {
    /// `Result<crate::codec::ResponseValue<..>, crate::Error<..>>`
    pub ret: String,
    /// Whether `documented` and `body` are set from locals of those names (else to `()`).
    pub documented: bool,
    pub body: bool,
}

/// `printed` is an impl block holding the stand-in (`async fn __exchange__() { steps;
/// __status_and_headers__!(); tail }`): its lines with the stand-in's signature, the mark and the
/// end of its body replaced by the fixed parts.
pub fn splice(out: &mut String, printed: &str, e: &Exchange) {
    let stand_in = format!("    async fn {STAND_IN}() {{");
    let mark = format!("        {MARK}!();");
    let mut in_exchange = false;
    for line in printed.lines() {
        if line == stand_in {
            in_exchange = true;
            write_signature(out, &e.ret);
        } else if in_exchange && line == mark {
            out.push_str(STATUS_AND_HEADERS);
        } else if in_exchange && line == "    }" {
            in_exchange = false;
            write_answer(out, e);
            out.push_str("    }\n");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::assert_printed_as_is;

    #[test]
    fn exchanges_are_laid_out_as_prettyplease_would() {
        let printed = format!(
            "impl FindPets {{\n    async fn {STAND_IN}() {{\n        let request = self.client.inner.request(::reqwest::Method::GET, \"/pets\");\n        let response = self.client.inner.send(request, false, true).await?;\n        {MARK}!();\n        let body = crate::codec::json(response).await?;\n    }}\n}}\n"
        );
        let returns = [
            "Result<crate::codec::ResponseValue<()>, crate::Error<crate::errors::A>>",
            "Result<crate::codec::ResponseValue<Vec<crate::models::Pet>>, crate::Error<crate::errors::FindPets>>",
            "Result<crate::codec::ResponseValue<crate::models::AVeryLongSuccessBodyTypeName, crate::headers::AVeryLongOperationName>, crate::Error<crate::errors::AVeryLongOperationName>>",
            // The last argument's line is 90 wide with its comma, which does not count.
            "Result<crate::codec::ResponseValue<()>, crate::Error<crate::errors::ReadConcurrencyLimitV2V2ConcurrencyLimitsIdOrNameGet>>",
            "Result<crate::codec::ResponseValue<()>, crate::Error<crate::errors::ReadConcurrencyLimitV2V2ConcurrencyLimitsIdOrNameGetX>>",
        ];
        for ret in returns {
            for (documented, body) in [(false, true), (true, false)] {
                let mut out = String::new();
                splice(
                    &mut out,
                    &printed,
                    &Exchange {
                        ret: ret.into(),
                        documented,
                        body,
                    },
                );
                assert!(out.contains("async fn exchange("), "{out}");
                assert_printed_as_is(&out);
            }
        }
    }
}
