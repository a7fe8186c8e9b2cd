//! A request builder's `send`, `send_full` and `IntoFuture`, written as text: they are the same
//! lines for every operation but for three types, and built as tokens and parsed back they were
//! about a sixth of a small document's run. The layout is prettyplease's (a long signature breaks
//! its parameters, then its generic arguments, one per line).

use crate::emit::layout::{fits, impl_header, push_list, push_type};
use std::fmt::Write;

/// What `send` answers: `ResponseFuture<ok, err>` (or `<ok, err, headers>`).
pub struct Sending<'a> {
    pub builder: &'a str,
    pub ok: String,
    pub err: String,
    /// The typed success headers, if the operation documents some.
    pub headers: Option<String>,
    /// `GET /albums/{id}`.
    pub request: String,
}

impl Sending<'_> {
    /// The `Result` the builder's `exchange` answers (its `ResponseValue` carries the headers).
    pub fn exchange_result(&self) -> String {
        let headers = match &self.headers {
            Some(headers) => format!(", {headers}"),
            None => String::new(),
        };
        format!(
            "Result<crate::codec::ResponseValue<{}{headers}>, crate::Error<{}>>",
            self.ok, self.err
        )
    }
}

/// Appends `impl Builder { send, send_full }` and `impl IntoFuture for Builder`.
pub fn write(out: &mut String, s: &Sending) {
    let mut args = vec![s.ok.as_str(), s.err.as_str()];
    args.extend(s.headers.as_deref());
    let request = &s.request;
    let _ = writeln!(out, "impl {} {{", s.builder);
    let _ = writeln!(out, "    /// Sends the request: `{request}`.");
    write_fn(out, "send", "crate::codec::ResponseFuture", &args);
    out.push_str(
        "        crate::codec::ResponseFuture::new(Box::pin(self.exchange(false)))\n    }\n",
    );
    let _ = writeln!(
        out,
        "    /// Sends the request (`{request}`) and answers the body with the status and headers."
    );
    write_fn(out, "send_full", "crate::codec::FullResponseFuture", &args);
    out.push_str("        Box::pin(self.exchange(true))\n    }\n}\n");
    let _ = writeln!(
        out,
        "{}",
        impl_header("impl ::std::future::IntoFuture", s.builder)
    );
    let error = format!("crate::Error<{}>", s.err);
    write_type(out, "Output", "Result", &[&s.ok, &error]);
    write_type(out, "IntoFuture", "crate::codec::ResponseFuture", &args);
    out.push_str(
        "    fn into_future(self) -> Self::IntoFuture {\n\
         \x20       self.send()\n\
         \x20   }\n\
         }\n",
    );
}

/// `pub fn {name}(self) -> {ty}<{args}> {`, broken as prettyplease breaks it: the parameters
/// first, then the generic arguments.
fn write_fn(out: &mut String, name: &str, ty: &str, args: &[&str]) {
    let generic = format!("{ty}<{}>", args.join(", "));
    let one_line = format!("    pub fn {name}(self) -> {generic} {{");
    if fits(&one_line) {
        let _ = writeln!(out, "{one_line}");
        return;
    }
    let _ = writeln!(out, "    pub fn {name}(\n        self,");
    push_list(out, "    ", &format!(") -> {ty}<"), args, "> {");
}

/// `type {name} = {ty}<{args}>;`.
fn write_type(out: &mut String, name: &str, ty: &str, args: &[&str]) {
    let ty = format!("{ty}<{}>", args.join(", "));
    push_type(out, "    ", &format!("type {name} = "), &ty, ";");
}
