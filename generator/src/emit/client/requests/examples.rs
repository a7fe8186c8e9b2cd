//! The example in each client method's docs: the call with every required argument filled in,
//! compiled by `cargo test --doc` (`no_run`: it needs a server). An argument is the document's
//! first example of it that fits its type (the parameter's `example`/`examples`, its media
//! type's, its schema's; [`crate::samples::Sampler::fits`]: decodes and passes `Validate`), else
//! a sample of its schema ([`crate::samples`]: the `default`, an enum's first value, else the
//! smallest value the constraints allow): literals for strings, numbers and booleans, JSON text
//! decoded into the argument's type for everything else. An example that does not fit is left
//! out rather than shown failing.

use super::*;
use crate::samples::Sampler;
use serde_json::Value;

impl RequestEmitter<'_> {
    /// The `# Example` section of `p`'s method docs, or nothing where examples are not compiled
    /// (the webhooks' sender, a build.rs module).
    pub(super) fn example_doc(&self, p: &Plan) -> Option<String> {
        let krate = self.example_crate.as_deref()?;
        let call = self.example_call(p)?;
        Some(format!(
            "# Example\n\n\
             ```no_run\n\
             # async fn example(client: &{krate}::Client) -> Result<(), Box<dyn std::error::Error>> {{\n\
             let answer = {call};\n\
             # let _ = answer;\n\
             # Ok(())\n\
             # }}\n\
             ```"
        ))
    }

    /// The call of `p`'s example (`client.op(args).await?`, on several lines when long), as the
    /// method docs and the crate's README show it.
    pub fn example_call(&self, p: &Plan) -> Option<String> {
        let krate = self.example_crate.as_deref()?;
        let sampler = Sampler::new(self.api);
        let args: Vec<String> = self
            .inputs(p)
            .iter()
            .filter(|input| input.required)
            .map(|input| self.example_arg(input, p, &sampler, krate))
            .collect();
        let call = format!("client.{}({}).await?", p.op.name, args.join(", "));
        let call = if call.len() > 80 {
            let mut lines = format!("client\n    .{}(\n", p.op.name);
            for arg in &args {
                lines.push_str(&format!("        {arg},\n"));
            }
            lines.push_str("    )\n    .await?");
            lines
        } else {
            call
        };
        Some(call)
    }

    fn example_arg(&self, input: &Input, p: &Plan, sampler: &Sampler, krate: &str) -> String {
        let Some(param) = input.param else {
            let body = p.body.expect("a body input");
            let value = body
                .examples
                .iter()
                .find(|v| sampler.fits(&body.ty, &Default::default(), v))
                .cloned()
                .unwrap_or_else(|| sampler.value(&body.ty, &Default::default(), None));
            return match &body.media {
                Media::Text => rust_string(value.as_str().unwrap_or("sample")),
                Media::Binary(media) if is_media_range(media) => format!(
                    "{krate}::codec::Binary {{ content_type: Some(\"application/octet-stream\".into()), bytes: b\"hello\".to_vec() }}"
                ),
                Media::Binary(_) => "b\"hello\".to_vec()".to_owned(),
                Media::Multipart if self.api.multipart_fields(&body.ty).is_none() => {
                    format!("{krate}::reqwest::multipart::Form::new()")
                }
                Media::Json | Media::Form | Media::Multipart => decoded(&value),
            };
        };
        let value = param
            .examples
            .iter()
            .find(|v| sampler.fits(&param.ty, &param.constraints, v))
            .cloned()
            .unwrap_or_else(|| {
                sampler.value(&param.ty, &param.constraints, param.default.as_ref())
            });
        match (&param.ty, &value) {
            (_, Value::String(text)) if input.into => rust_string(text),
            (TypeRef::Primitive(p), Value::Number(n)) if p.is_integer() && n.is_i64() => {
                n.to_string()
            }
            (TypeRef::Primitive(p), Value::Number(n)) if p.is_integer() && n.is_u64() => {
                n.to_string()
            }
            (TypeRef::Primitive(p), Value::Number(n)) if p.is_float() => {
                let text = n.to_string();
                if text.contains(['.', 'e', 'E']) {
                    text
                } else {
                    format!("{text}.0")
                }
            }
            (TypeRef::Primitive(Primitive::Bool), Value::Bool(b)) => b.to_string(),
            (
                TypeRef::Primitive(
                    Primitive::Uuid | Primitive::DateTime | Primitive::Date | Primitive::Url,
                ),
                Value::String(text),
            ) => format!("{}.parse()?", rust_string(text)),
            _ => decoded(&value),
        }
    }
}

/// `serde_json::from_str(r#"..."#)?`: the value decoded into whatever type the argument has.
fn decoded(value: &Value) -> String {
    let text = value.to_string();
    let mut hashes = "#".to_owned();
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("serde_json::from_str(r{hashes}\"{text}\"{hashes})?")
}

/// A Rust string literal.
fn rust_string(text: &str) -> String {
    format!("{text:?}")
}
