//! Operations, parameters, bodies, responses and security schemes.

use super::Builder;
use super::schema::Site;
use crate::diagnostics::child;
use crate::ir::{
    Constraints, DeviceFlow, Hook, HookKind, Media, Method, Operation, ParamLocation, ParamStyle,
    Parameter, PathSegment, PropertyEncoding, RequestBody, Response, ResponseBody, ResponseHeader,
    ResponseStream, SecurityKind, SecurityRequirement, SecurityScheme, SegmentPart, Status,
    StreamFormat, TypeRef,
};
use heck::ToUpperCamelCase;
use indexmap::IndexMap;
use openapiv3::{Header, MediaType, ParameterSchemaOrContent, PathItem, ReferenceOr, StatusCode};
use std::borrow::Cow;

/// An HTTP token (RFC 9110 section 5.6.2): what a header name may be.
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

impl Builder<'_> {
    pub(super) fn build_operations(&mut self) -> Vec<Operation> {
        let mut operations = Vec::new();
        for (path, item) in &self.doc.paths.paths {
            let pointer = child("/paths", path);
            let item = match item {
                ReferenceOr::Item(item) => item,
                ReferenceOr::Reference { reference } => {
                    self.diags.error(
                        pointer,
                        format!("path item $ref `{reference}` is not supported"),
                    );
                    continue;
                }
            };
            for (method, op) in self.methods(item, &pointer) {
                let op_pointer = method_pointer(&pointer, &method);
                if let Some(operation) = self.operation(path, item, method, &op, &op_pointer) {
                    operations.push(operation);
                }
            }
        }
        operations
    }

    /// The webhooks, then the callbacks of each operation (in document order), each an operation
    /// routed by the receiver at `/{name}` (`/{name}-2`... when names repeat).
    pub(super) fn build_hooks(&mut self) -> Vec<Hook> {
        use crate::lower::{CALLBACKS, WEBHOOKS};
        // (kind, name, pointer, path item)
        let mut found: Vec<(HookKind, String, String, PathItem)> = Vec::new();
        if let Some(webhooks) = self
            .doc
            .extensions
            .get(WEBHOOKS)
            .and_then(|v| v.as_object())
        {
            for (name, item) in webhooks {
                let pointer = child("/webhooks", name);
                if let Some(item) = self.hook_item(item, &pointer) {
                    found.push((HookKind::Webhook, name.clone(), pointer, item));
                }
            }
        }
        for (path, item) in &self.doc.paths.paths {
            let ReferenceOr::Item(item) = item else {
                continue;
            };
            for (method, op) in self.methods(item, &child("/paths", path)) {
                let Some(callbacks) = op.extensions.get(CALLBACKS).and_then(|v| v.as_object())
                else {
                    continue;
                };
                let op_pointer = method_pointer(&child("/paths", path), &method);
                let owner = op.operation_id.clone().unwrap_or_else(|| {
                    let path_only = path.split_once('?').map_or(path.as_str(), |(p, _)| p);
                    derived_operation_id(&method, &parse_path(path_only).unwrap_or_default())
                });
                for (name, expressions) in callbacks {
                    let pointer = child(&child(&op_pointer, "callbacks"), name);
                    for (expression, item) in expressions.as_object().into_iter().flatten() {
                        let pointer = child(&pointer, expression);
                        if let Some(item) = self.hook_item(item, &pointer) {
                            let kind = HookKind::Callback {
                                owner: owner.clone(),
                                expression: expression.clone(),
                            };
                            found.push((kind, name.clone(), pointer, item));
                        }
                    }
                }
            }
        }
        let mut paths_taken = std::collections::HashSet::new();
        let mut hooks = Vec::new();
        for (kind, name, pointer, item) in found {
            let segment = name.replace(['/', '{', '}', '?', '#', '%'], "-");
            let mut path = format!("/{segment}");
            let mut n = 2;
            while !paths_taken.insert(path.clone()) {
                path = format!("/{segment}-{n}");
                n += 1;
            }
            let all = self.methods(&item, &pointer);
            let several = all.len() > 1;
            for (method, op) in all {
                let op_pointer = method_pointer(&pointer, &method);
                if op.security.as_ref().is_some_and(|s| !s.is_empty()) {
                    self.diags.warning(
                        child(&op_pointer, "security"),
                        "the security of a webhook or callback is not checked by the generated receiver, nor sent by the sender",
                    );
                }
                let mut op = op.into_owned();
                if op.operation_id.is_none() {
                    let base = match &kind {
                        HookKind::Webhook => name.clone(),
                        HookKind::Callback { owner, .. } => format!("{owner} {name}"),
                    };
                    op.operation_id = Some(if several {
                        format!("{base} {}", method.as_str().to_ascii_lowercase())
                    } else {
                        base
                    });
                }
                // Credentials are the sender's and receiver's own affair (signatures, secrets in
                // the URL): the document's default security does not apply.
                op.security = Some(Vec::new());
                if let Some(mut operation) = self.operation(&path, &item, method, &op, &op_pointer)
                {
                    operation.pointer = op_pointer;
                    hooks.push(Hook {
                        kind: kind.clone(),
                        name: name.clone(),
                        operation,
                    });
                }
            }
        }
        hooks
    }

    /// A path item's operations: its fixed methods, then OpenAPI 3.2's `query` and
    /// `additionalOperations` (which lowering keeps in [`OTHER_METHODS`](crate::lower::OTHER_METHODS)).
    fn methods<'i>(
        &mut self,
        item: &'i PathItem,
        pointer: &str,
    ) -> Vec<(Method, Cow<'i, openapiv3::Operation>)> {
        let mut all: Vec<(Method, Cow<'i, openapiv3::Operation>)> = [
            (Method::Get, &item.get),
            (Method::Put, &item.put),
            (Method::Post, &item.post),
            (Method::Delete, &item.delete),
            (Method::Options, &item.options),
            (Method::Head, &item.head),
            (Method::Patch, &item.patch),
            (Method::Trace, &item.trace),
        ]
        .into_iter()
        .filter_map(|(m, op)| op.as_ref().map(|op| (m, Cow::Borrowed(op))))
        .collect();
        let others = item
            .extensions
            .get(crate::lower::OTHER_METHODS)
            .and_then(|v| v.as_object());
        for (name, op) in others.into_iter().flatten() {
            let method = match name.as_str() {
                "QUERY" => Method::Query,
                _ => Method::Custom(name.clone()),
            };
            match serde_json::from_value::<openapiv3::Operation>(op.clone()) {
                Ok(op) => all.push((method, Cow::Owned(op))),
                Err(e) => self.diags.warning(
                    method_pointer(pointer, &method),
                    format!("this operation does not parse ({e}); it is not generated"),
                ),
            }
        }
        all
    }

    fn hook_item(&mut self, item: &serde_json::Value, pointer: &str) -> Option<PathItem> {
        match serde_json::from_value::<PathItem>(item.clone()) {
            Ok(item) => Some(item),
            Err(e) => {
                self.diags.warning(
                    pointer,
                    format!("this path item does not parse ({e}); it is not generated"),
                );
                None
            }
        }
    }

    fn operation(
        &mut self,
        path: &str,
        item: &PathItem,
        method: Method,
        op: &openapiv3::Operation,
        pointer: &str,
    ) -> Option<Operation> {
        let (path_only, query) = match path.split_once('?') {
            Some((path_only, query)) => (path_only, fixed_query(query)),
            None => (path, Vec::new()),
        };
        // RFC 6570 expressions (`{;id*}`) name their parameter and say how it is written.
        let (path_only, spelled) = template_styles(path_only);
        let path_only = path_only.as_str();
        let segments = match parse_path(path_only) {
            Ok(s) => s,
            Err(message) => {
                self.diags.warning(
                    pointer,
                    format!("{message}; the operation is not generated"),
                );
                return None;
            }
        };
        let id = op
            .operation_id
            .clone()
            .unwrap_or_else(|| derived_operation_id(&method, &segments));
        let type_base = id.to_upper_camel_case();

        // Path-level parameters apply unless the operation redefines the same name and location.
        let mut params: IndexMap<(String, &'static str), (openapiv3::Parameter, String)> =
            IndexMap::new();
        let sources = [
            (
                &item.parameters,
                child(&child("/paths", path), "parameters"),
            ),
            (&op.parameters, child(pointer, "parameters")),
        ];
        for (list, list_pointer) in sources {
            for (i, p) in list.iter().enumerate() {
                let p_pointer = format!("{list_pointer}/{i}");
                if let Some((param, resolved_pointer)) = self.resolve_parameter(p, &p_pointer) {
                    let key = (
                        param.parameter_data_ref().name.clone(),
                        location_key(&param),
                    );
                    params.insert(key, (param, resolved_pointer));
                }
            }
        }
        let mut parameters = Vec::new();
        for (param, p_pointer) in params.values() {
            parameters.push(self.parameter(param, p_pointer, &type_base));
        }
        for spelled in &spelled {
            self.apply_template_style(spelled, &mut parameters, pointer);
        }
        for name in segments.iter().flat_map(PathSegment::params) {
            if !parameters
                .iter()
                .any(|p| p.location == ParamLocation::Path && p.wire_name == name)
            {
                self.diags.warning(
                    pointer,
                    format!("path parameter `{name}` is not declared; it is generated as a string"),
                );
                parameters.push(string_parameter(name, ParamLocation::Path, true, None));
            }
        }
        let body = op
            .request_body
            .as_ref()
            .and_then(|b| self.request_body(b, &child(pointer, "requestBody"), &type_base));
        let responses = self.responses(op, pointer, &type_base);
        // A client resuming a GET event stream sends the last id it saw (`Last-Event-ID`, as
        // browsers' EventSource does): the server reads it like a declared header parameter.
        let resumable = method == Method::Get
            && responses.iter().any(|r| {
                r.status.is_success()
                    && r.stream
                        .as_ref()
                        .is_some_and(|s| s.format == StreamFormat::EventStream)
            });
        if resumable
            && !parameters.iter().any(|p| {
                p.location == ParamLocation::Header
                    && p.wire_name.eq_ignore_ascii_case("last-event-id")
            })
        {
            parameters.push(string_parameter(
                "Last-Event-ID",
                ParamLocation::Header,
                false,
                Some(
                    "The `id` of the last event received, to resume the event stream after it \
                     (Server-Sent Events' `Last-Event-ID`).",
                ),
            ));
        }
        let security = op
            .security
            .as_ref()
            .or(self.doc.security.as_ref())
            .map(|reqs| {
                reqs.iter()
                    .map(|r| SecurityRequirement {
                        schemes: r.keys().cloned().collect(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let idempotency_key = self.idempotency_key(op, &parameters, pointer);
        let path = match path.split_once('?') {
            Some((_, query)) => format!("{path_only}?{query}"),
            None => path_only.to_owned(),
        };
        Some(Operation {
            id,
            name: String::new(),
            method,
            path,
            segments,
            query,
            pointer: pointer.to_owned(),
            summary: op.summary.clone(),
            description: op.description.clone(),
            tags: op.tags.clone(),
            deprecated: op.deprecated,
            parameters,
            body,
            responses,
            security,
            idempotency_key,
        })
    }

    /// The header of the operation's idempotency key (see [`Operation::idempotency_key`]): the one
    /// its `x-idempotency-key` extension names (`true`: `Idempotency-Key`), else a declared header
    /// parameter named `Idempotency-Key` in any case. A name that is not an HTTP token is a warning.
    fn idempotency_key(
        &mut self,
        op: &openapiv3::Operation,
        parameters: &[Parameter],
        pointer: &str,
    ) -> Option<String> {
        const EXTENSION: &str = "x-idempotency-key";
        let declared = |name: &str| {
            parameters
                .iter()
                .find(|p| {
                    p.location == ParamLocation::Header && p.wire_name.eq_ignore_ascii_case(name)
                })
                .map(|p| p.wire_name.clone())
        };
        match op.extensions.get(EXTENSION) {
            Some(serde_json::Value::Bool(false)) => None,
            Some(serde_json::Value::Bool(true)) => {
                Some(declared("Idempotency-Key").unwrap_or_else(|| "Idempotency-Key".to_owned()))
            }
            Some(serde_json::Value::String(name)) if is_token(name) => {
                Some(declared(name).unwrap_or_else(|| name.clone()))
            }
            Some(other) => {
                self.diags.warning(
                    child(pointer, EXTENSION),
                    format!(
                        "`{EXTENSION}` names a header (or is `true` for `Idempotency-Key`), not {other}; \
                         it is ignored"
                    ),
                );
                declared("Idempotency-Key")
            }
            None => declared("Idempotency-Key"),
        }
    }

    fn resolve_parameter(
        &mut self,
        p: &ReferenceOr<openapiv3::Parameter>,
        pointer: &str,
    ) -> Option<(openapiv3::Parameter, String)> {
        match p {
            ReferenceOr::Item(param) => Some((param.clone(), pointer.to_owned())),
            ReferenceOr::Reference { reference } => {
                let name = reference
                    .strip_prefix("#/components/parameters/")
                    .map(crate::diagnostics::unescape_token);
                let found = name
                    .as_ref()
                    .and_then(|n| self.doc.components.as_ref()?.parameters.get(n));
                match found {
                    Some(ReferenceOr::Item(param)) => {
                        Some((param.clone(), reference.trim_start_matches('#').to_owned()))
                    }
                    _ => {
                        self.diags.error(
                            pointer,
                            format!("parameter $ref `{reference}` does not resolve to a parameter"),
                        );
                        None
                    }
                }
            }
        }
    }

    fn parameter(
        &mut self,
        param: &openapiv3::Parameter,
        pointer: &str,
        type_base: &str,
    ) -> Parameter {
        use openapiv3::{PathStyle, QueryStyle};
        let (location, style, allow_reserved) = match param {
            openapiv3::Parameter::Path { style, .. } => (
                ParamLocation::Path,
                match style {
                    PathStyle::Simple => ParamStyle::Simple,
                    PathStyle::Label => ParamStyle::Label,
                    PathStyle::Matrix => ParamStyle::Matrix,
                },
                false,
            ),
            openapiv3::Parameter::Query {
                style,
                allow_reserved,
                ..
            } => (
                ParamLocation::Query,
                match style {
                    QueryStyle::Form => ParamStyle::Form,
                    QueryStyle::SpaceDelimited => ParamStyle::SpaceDelimited,
                    QueryStyle::PipeDelimited => ParamStyle::PipeDelimited,
                    QueryStyle::DeepObject => ParamStyle::DeepObject,
                },
                *allow_reserved,
            ),
            openapiv3::Parameter::Header { .. } => {
                (ParamLocation::Header, ParamStyle::Simple, false)
            }
            openapiv3::Parameter::Cookie { .. } => (ParamLocation::Cookie, ParamStyle::Form, false),
        };
        let data = param.parameter_data_ref();
        // OpenAPI: `form` explodes unless told otherwise; every other style does not.
        let explode = data.explode.unwrap_or(style == ParamStyle::Form);
        let json = matches!(&data.format, ParameterSchemaOrContent::Content(content)
            if content.keys().next().is_some_and(|m| classify_media(m) == Media::Json));
        let site = Site::new(
            child(pointer, "schema"),
            format!("{type_base}{}", data.name.to_upper_camel_case()),
            Some("Param"),
        );
        let mut examples = self.examples(data.example.as_ref(), &data.examples);
        let (ty, constraints, default) = match &data.format {
            ParameterSchemaOrContent::Schema(schema) => {
                let default = match schema {
                    ReferenceOr::Item(s) => s.schema_data.default.clone(),
                    ReferenceOr::Reference { .. } => None,
                };
                examples.extend(self.schema_example(schema));
                let typed = self.type_of(schema, &site);
                (typed.ty, typed.constraints, default)
            }
            ParameterSchemaOrContent::Content(content) => {
                if let Some(media) = content.values().next() {
                    examples.extend(self.examples(media.example.as_ref(), &media.examples));
                    examples.extend(media.schema.as_ref().and_then(|s| self.schema_example(s)));
                }
                match content.values().next().and_then(|m| m.schema.as_ref()) {
                    Some(schema) => {
                        let typed = self.type_of(schema, &site);
                        (typed.ty, typed.constraints, None)
                    }
                    None => (
                        TypeRef::Primitive(crate::ir::Primitive::String),
                        Constraints::default(),
                        None,
                    ),
                }
            }
        };
        Parameter {
            wire_name: data.name.clone(),
            name: String::new(),
            location,
            required: data.required || location == ParamLocation::Path,
            ty,
            default,
            examples,
            doc: data.description.clone(),
            constraints,
            explode,
            style,
            allow_reserved,
            json,
            deprecated: data.deprecated.unwrap_or(false),
        }
    }

    fn request_body(
        &mut self,
        body: &ReferenceOr<openapiv3::RequestBody>,
        pointer: &str,
        type_base: &str,
    ) -> Option<RequestBody> {
        let (body, pointer) = match body {
            ReferenceOr::Item(b) => (b.clone(), pointer.to_owned()),
            ReferenceOr::Reference { reference } => {
                let name = reference
                    .strip_prefix("#/components/requestBodies/")
                    .map(crate::diagnostics::unescape_token);
                match name
                    .as_ref()
                    .and_then(|n| self.doc.components.as_ref()?.request_bodies.get(n))
                {
                    Some(ReferenceOr::Item(b)) => {
                        (b.clone(), reference.trim_start_matches('#').to_owned())
                    }
                    _ => {
                        self.diags.error(
                            pointer,
                            format!("request body $ref `{reference}` does not resolve"),
                        );
                        return None;
                    }
                }
            }
        };
        let (media_name, media_type) = preferred_media(&body.content)?;
        let media = classify_media(media_name);
        let encoding = if media == Media::Form {
            form_encoding(media_type)
        } else {
            Vec::new()
        };
        let encoding_at = child(&child(&child(&pointer, "content"), media_name), "encoding");
        if media == Media::Multipart && !media_type.encoding.is_empty() {
            let names: Vec<&str> = media_type.encoding.keys().map(String::as_str).collect();
            self.diags.warning(
                encoding_at,
                format!(
                    "the encoding of {} is not applied: files are sent as their content type (else application/octet-stream), primitives as text, other values as JSON",
                    names.join(", ")
                ),
            );
        } else if encoding
            .iter()
            .any(|e| !matches!(e.style, ParamStyle::Form | ParamStyle::DeepObject))
        {
            let names: Vec<&str> = encoding
                .iter()
                .filter(|e| !matches!(e.style, ParamStyle::Form | ParamStyle::DeepObject))
                .map(|e| e.property.as_str())
                .collect();
            self.diags.warning(
                encoding_at,
                format!(
                    "the generated client writes {} as its encoding says; the generated server reads form properties flat (repeated names), so it does not read these back",
                    names.join(", ")
                ),
            );
        }
        let site = Site::new(
            child(&child(&child(&pointer, "content"), media_name), "schema"),
            format!("{type_base}Request"),
            Some("Body"),
        );
        let ty = self.media_type_of(media_type, &media, &site);
        let mut examples = self.examples(media_type.example.as_ref(), &media_type.examples);
        examples.extend(
            media_type
                .schema
                .as_ref()
                .and_then(|s| self.schema_example(s)),
        );
        let alternatives = body
            .content
            .keys()
            .filter(|k| *k != media_name)
            .cloned()
            .collect();
        Some(RequestBody {
            media,
            ty,
            required: body.required,
            doc: body.description.clone(),
            alternatives,
            encoding,
            examples,
        })
    }

    /// The values of an `example` and of an `examples` map (each Example Object's `value`,
    /// `$ref`s to `components/examples` followed), in the document's order.
    fn examples(
        &self,
        example: Option<&serde_json::Value>,
        examples: &IndexMap<String, ReferenceOr<openapiv3::Example>>,
    ) -> Vec<serde_json::Value> {
        let resolved = examples.values().filter_map(|e| match e {
            ReferenceOr::Item(e) => e.value.clone(),
            ReferenceOr::Reference { reference } => {
                let name = reference.strip_prefix("#/components/examples/")?;
                let name = crate::diagnostics::unescape_token(name);
                match self.doc.components.as_ref()?.examples.get(&name)? {
                    ReferenceOr::Item(e) => e.value.clone(),
                    ReferenceOr::Reference { .. } => None,
                }
            }
        });
        example.cloned().into_iter().chain(resolved).collect()
    }

    /// A schema's `example` (3.1's `examples` are lowered to it), through `$ref`s to
    /// `components/schemas`.
    fn schema_example(&self, schema: &ReferenceOr<openapiv3::Schema>) -> Option<serde_json::Value> {
        let mut schema = schema;
        for _ in 0..16 {
            match schema {
                ReferenceOr::Item(s) => return s.schema_data.example.clone(),
                ReferenceOr::Reference { reference } => {
                    let name = reference.strip_prefix("#/components/schemas/")?;
                    let name = crate::diagnostics::unescape_token(name);
                    schema = self.doc.components.as_ref()?.schemas.get(&name)?;
                }
            }
        }
        None
    }

    fn media_type_of(&mut self, media_type: &MediaType, media: &Media, site: &Site) -> TypeRef {
        match (&media_type.schema, media) {
            (_, Media::Binary(_)) => TypeRef::Primitive(crate::ir::Primitive::Bytes),
            (Some(schema), _) => self.type_of(schema, site).ty,
            (None, Media::Text) => TypeRef::Primitive(crate::ir::Primitive::String),
            (None, _) => TypeRef::Any,
        }
    }

    fn responses(
        &mut self,
        op: &openapiv3::Operation,
        pointer: &str,
        type_base: &str,
    ) -> Vec<Response> {
        let mut responses = Vec::new();
        let mut entries: Vec<(Status, String, &ReferenceOr<openapiv3::Response>)> = op
            .responses
            .responses
            .iter()
            .map(|(code, r)| match code {
                StatusCode::Code(c) => (Status::Code(*c), c.to_string(), r),
                StatusCode::Range(r0) => (Status::Range(*r0), format!("{r0}XX"), r),
            })
            .collect();
        if let Some(default) = &op.responses.default {
            entries.push((Status::Default, "default".to_owned(), default));
        }
        let several = entries.len() > 1;
        for (status, key, response) in entries {
            let r_pointer = child(&child(pointer, "responses"), &key);
            let response = match response {
                ReferenceOr::Item(r) => r.clone(),
                ReferenceOr::Reference { reference } => {
                    let name = reference
                        .strip_prefix("#/components/responses/")
                        .map(crate::diagnostics::unescape_token);
                    match name
                        .as_ref()
                        .and_then(|n| self.doc.components.as_ref()?.responses.get(n))
                    {
                        Some(ReferenceOr::Item(r)) => r.clone(),
                        _ => {
                            self.diags.error(
                                r_pointer,
                                format!("response $ref `{reference}` does not resolve"),
                            );
                            continue;
                        }
                    }
                }
            };
            let context = if several {
                status_word(status)
            } else {
                String::new()
            };
            // The first streaming media type is the stream; the others compete for the body.
            let stream = response.content.iter().find_map(|(name, media_type)| {
                let media = media_essence(name);
                let format = StreamFormat::of(&media)?;
                let site = Site::new(
                    child(&child(&child(&r_pointer, "content"), name), "schema"),
                    format!("{type_base}{context}StreamItem"),
                    Some("Response"),
                );
                let item = match &media_type.schema {
                    Some(schema) => self.type_of(schema, &site).ty,
                    None => TypeRef::Any,
                };
                Some(ResponseStream {
                    format,
                    media,
                    item,
                })
            });
            let bodies = response
                .content
                .iter()
                .filter(|(name, _)| StreamFormat::of(&media_essence(name)).is_none());
            let body = preferred_media(bodies).map(|(name, media_type)| {
                let media = classify_media(name);
                let site = Site::new(
                    child(&child(&child(&r_pointer, "content"), name), "schema"),
                    format!("{type_base}{context}Response"),
                    Some("Response"),
                );
                let ty = self.media_type_of(media_type, &media, &site);
                let essence = media_essence(name);
                let text_type =
                    (media == Media::Text && essence != "text/plain").then_some(essence);
                ResponseBody {
                    media,
                    ty,
                    text_type,
                }
            });
            let headers = response
                .headers
                .iter()
                .filter_map(|(name, h)| {
                    self.response_header(
                        name,
                        h,
                        &child(&child(&r_pointer, "headers"), name),
                        type_base,
                    )
                })
                .collect();
            let doc = (!response.description.is_empty()).then(|| response.description.clone());
            responses.push(Response {
                status,
                doc,
                body,
                headers,
                stream,
            });
        }
        responses
    }

    fn response_header(
        &mut self,
        name: &str,
        header: &ReferenceOr<Header>,
        pointer: &str,
        type_base: &str,
    ) -> Option<ResponseHeader> {
        let header = match header {
            ReferenceOr::Item(h) => h.clone(),
            ReferenceOr::Reference { reference } => {
                let key = reference
                    .strip_prefix("#/components/headers/")
                    .map(crate::diagnostics::unescape_token);
                match key
                    .as_ref()
                    .and_then(|n| self.doc.components.as_ref()?.headers.get(n))
                {
                    Some(ReferenceOr::Item(h)) => h.clone(),
                    _ => {
                        self.diags.error(
                            pointer,
                            format!("header $ref `{reference}` does not resolve"),
                        );
                        return None;
                    }
                }
            }
        };
        let ty = match &header.format {
            ParameterSchemaOrContent::Schema(schema) => {
                let site = Site::new(
                    child(pointer, "schema"),
                    format!("{type_base}{}Header", name.to_upper_camel_case()),
                    Some("Header"),
                );
                self.type_of(schema, &site).ty
            }
            ParameterSchemaOrContent::Content(_) => {
                TypeRef::Primitive(crate::ir::Primitive::String)
            }
        };
        Some(ResponseHeader {
            wire_name: name.to_owned(),
            required: header.required,
            ty,
            doc: header.description.clone(),
        })
    }

    pub(super) fn build_security_schemes(&mut self) -> Vec<SecurityScheme> {
        let Some(components) = &self.doc.components else {
            return Vec::new();
        };
        let mut schemes = Vec::new();
        for (name, scheme) in &components.security_schemes {
            let ReferenceOr::Item(scheme) = scheme else {
                self.diags.warning(
                    child("/components/securitySchemes", name),
                    "security scheme $ref is not supported",
                );
                continue;
            };
            let device_flow = match scheme {
                openapiv3::SecurityScheme::OAuth2 { extensions, .. } => extensions
                    .get(crate::lower::v3_2::DEVICE_AUTHORIZATION)
                    .and_then(|flow| {
                        Some(DeviceFlow {
                            device_authorization_url: flow
                                .get("deviceAuthorizationUrl")?
                                .as_str()?
                                .to_owned(),
                            token_url: flow.get("tokenUrl")?.as_str()?.to_owned(),
                        })
                    }),
                _ => None,
            };
            let (kind, doc) = match scheme {
                openapiv3::SecurityScheme::HTTP {
                    scheme,
                    description,
                    ..
                } => {
                    let kind = match scheme.to_ascii_lowercase().as_str() {
                        "bearer" => SecurityKind::Bearer,
                        "basic" => SecurityKind::Basic,
                        other => SecurityKind::Other(format!("http {other}")),
                    };
                    (kind, description.clone())
                }
                openapiv3::SecurityScheme::OAuth2 {
                    flows, description, ..
                } => {
                    let kind = match &flows.client_credentials {
                        Some(cc) => SecurityKind::OAuth2ClientCredentials {
                            token_url: cc.token_url.clone(),
                        },
                        None => SecurityKind::Bearer,
                    };
                    (kind, description.clone())
                }
                openapiv3::SecurityScheme::OpenIDConnect { description, .. } => {
                    (SecurityKind::Bearer, description.clone())
                }
                openapiv3::SecurityScheme::APIKey {
                    location,
                    name: key_name,
                    description,
                    ..
                } => {
                    let location = match location {
                        openapiv3::APIKeyLocation::Query => ParamLocation::Query,
                        openapiv3::APIKeyLocation::Header => ParamLocation::Header,
                        openapiv3::APIKeyLocation::Cookie => ParamLocation::Cookie,
                    };
                    (
                        SecurityKind::ApiKey {
                            location,
                            name: key_name.clone(),
                        },
                        description.clone(),
                    )
                }
            };
            schemes.push(SecurityScheme {
                name: name.clone(),
                kind,
                doc,
                device_flow,
            });
        }
        schemes
    }
}

/// Where the document writes a path item's operation of `method`.
fn method_pointer(path_item: &str, method: &Method) -> String {
    if method.is_standard() {
        child(path_item, &method.as_str().to_ascii_lowercase())
    } else {
        crate::lower::other_method_pointer(path_item, method.as_str())
    }
}

fn location_key(param: &openapiv3::Parameter) -> &'static str {
    match param {
        openapiv3::Parameter::Path { .. } => "path",
        openapiv3::Parameter::Query { .. } => "query",
        openapiv3::Parameter::Header { .. } => "header",
        openapiv3::Parameter::Cookie { .. } => "cookie",
    }
}

/// A path template expression written the RFC 6570 way, which OpenAPI's templates do not take but
/// documents written for oapi-codegen use: `{.name}` (label), `{;name}` (matrix), `{+name}`
/// (reserved characters kept), each with `*` for explode.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SpelledStyle {
    /// The expression as written, braces included.
    written: String,
    name: String,
    style: ParamStyle,
    explode: bool,
    allow_reserved: bool,
}

/// The path with every RFC 6570 expression reduced to its parameter's name (`{;id*}` -> `{id}`),
/// and what each said.
fn template_styles(path: &str) -> (String, Vec<SpelledStyle>) {
    let mut out = String::with_capacity(path.len());
    let mut spelled = Vec::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        let expression = &rest[start + 1..start + len];
        let (style, allow_reserved, name) = match expression.chars().next() {
            Some('.') => (ParamStyle::Label, false, &expression[1..]),
            Some(';') => (ParamStyle::Matrix, false, &expression[1..]),
            Some('+') => (ParamStyle::Simple, true, &expression[1..]),
            _ => (ParamStyle::Simple, false, expression),
        };
        let (name, explode) = match name.strip_suffix('*') {
            Some(name) => (name, true),
            None => (name, false),
        };
        out.push_str(&rest[..start]);
        if name == expression || name.is_empty() {
            out.push_str(&rest[start..=start + len]);
        } else {
            out.push('{');
            out.push_str(name);
            out.push('}');
            spelled.push(SpelledStyle {
                written: format!("{{{expression}}}"),
                name: name.to_owned(),
                style,
                explode,
                allow_reserved,
            });
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    (out, spelled)
}

impl Builder<'_> {
    /// The declared path parameter an RFC 6570 expression names takes the style it spells; the
    /// warning gives the document's fix.
    fn apply_template_style(
        &mut self,
        spelled: &SpelledStyle,
        parameters: &mut [Parameter],
        pointer: &str,
    ) {
        let SpelledStyle {
            written,
            name,
            style,
            explode,
            allow_reserved,
        } = spelled;
        let style_name = match style {
            ParamStyle::Label => "label",
            ParamStyle::Matrix => "matrix",
            _ => "simple",
        };
        let Some(param) = parameters
            .iter_mut()
            .find(|p| p.location == ParamLocation::Path && p.wire_name == *name)
        else {
            return;
        };
        let declared = (param.style, param.explode);
        param.style = *style;
        param.explode = *explode;
        param.allow_reserved |= *allow_reserved;
        let mut fix = format!("`style: {style_name}`, `explode: {explode}`");
        if *allow_reserved {
            fix.push_str(", `allowReserved: true`");
        }
        let note = if declared != (ParamStyle::Simple, false) && declared != (*style, *explode) {
            " (it replaces the parameter's own style, which the template contradicts)"
        } else {
            ""
        };
        self.diags.warning(
            pointer,
            format!(
                "path template `{written}` is RFC 6570, not OpenAPI: read as `{{{name}}}` with {fix} on parameter `{name}`{note}; write it so in the document"
            ),
        );
    }
}

/// Splits `/v1/accounts/{accountId}/assets` into literal and parameter segments.
pub fn parse_path(path: &str) -> Result<Vec<PathSegment>, String> {
    let mut segments = Vec::new();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        if let Some(name) = part
            .strip_prefix('{')
            .and_then(|p| p.strip_suffix('}'))
            .filter(|name| !name.contains(['{', '}']))
        {
            if name.is_empty() {
                return Err(format!("path segment `{part}` is not a valid template"));
            }
            segments.push(PathSegment::Param(name.to_owned()));
        } else if part.contains(['{', '}']) {
            segments.push(PathSegment::Mixed(mixed_segment(part)?));
        } else {
            segments.push(PathSegment::Literal(part.to_owned()));
        }
    }
    Ok(segments)
}

/// The `name=value` pairs of a query a path carries (`?beta=true`), as written.
fn fixed_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) => (name.to_owned(), value.to_owned()),
            None => (pair.to_owned(), String::new()),
        })
        .collect()
}

/// `{name}.{ext}` into its literal texts and parameters.
fn mixed_segment(part: &str) -> Result<Vec<SegmentPart>, String> {
    let mut parts = Vec::new();
    let mut rest = part;
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            Some(0) if rest.starts_with('{') => {
                let end = rest
                    .find('}')
                    .ok_or_else(|| format!("path segment `{part}` is not a valid template"))?;
                let name = &rest[1..end];
                if name.is_empty() || name.contains('{') {
                    return Err(format!("path segment `{part}` is not a valid template"));
                }
                if let Some(SegmentPart::Param(_)) = parts.last() {
                    return Err(format!(
                        "path segment `{part}` has two parameters with no text between them, \
                         so their values cannot be told apart"
                    ));
                }
                parts.push(SegmentPart::Param(name.to_owned()));
                rest = &rest[end + 1..];
            }
            Some(0) => return Err(format!("path segment `{part}` is not a valid template")),
            Some(at) => {
                parts.push(SegmentPart::Literal(rest[..at].to_owned()));
                rest = &rest[at..];
            }
            None => {
                parts.push(SegmentPart::Literal(rest.to_owned()));
                rest = "";
            }
        }
    }
    Ok(parts)
}

/// A stable name for an operation without `operationId`: the method and the path's words.
fn derived_operation_id(method: &Method, segments: &[PathSegment]) -> String {
    let mut id = method.as_str().to_ascii_lowercase();
    for segment in segments {
        match segment {
            PathSegment::Literal(word) => id.push_str(&format!("_{word}")),
            PathSegment::Param(name) => id.push_str(&format!("_by_{name}")),
            PathSegment::Mixed(parts) => {
                for part in parts {
                    match part {
                        SegmentPart::Literal(text) => id.push_str(&format!("_{text}")),
                        SegmentPart::Param(name) => id.push_str(&format!("_by_{name}")),
                    }
                }
            }
        }
    }
    id
}

/// A string parameter the document does not declare (in `simple` style, which path and header
/// parameters take), named by the naming pass.
fn string_parameter(
    wire_name: &str,
    location: ParamLocation,
    required: bool,
    doc: Option<&str>,
) -> Parameter {
    Parameter {
        wire_name: wire_name.to_owned(),
        name: String::new(),
        location,
        required,
        ty: TypeRef::Primitive(crate::ir::Primitive::String),
        default: None,
        examples: Vec::new(),
        doc: doc.map(str::to_owned),
        constraints: Constraints::default(),
        explode: false,
        style: ParamStyle::Simple,
        allow_reserved: false,
        json: false,
        deprecated: false,
    }
}

/// The media type the generated code speaks: JSON first, then forms, text, bytes.
fn preferred_media<'c>(
    content: impl IntoIterator<Item = (&'c String, &'c MediaType)>,
) -> Option<(&'c str, &'c MediaType)> {
    let rank = |name: &str| match classify_media(name) {
        Media::Json => 0,
        Media::Form => 1,
        Media::Multipart => 2,
        Media::Text => 3,
        Media::Binary(_) => 4,
    };
    content
        .into_iter()
        .min_by_key(|(name, _)| rank(name))
        .map(|(n, m)| (n.as_str(), m))
}

/// A form body's Encoding Objects as property encodings. openapiv3 reads an absent `explode` as
/// false: `form` (the default style) is taken as exploded, its default.
fn form_encoding(media_type: &MediaType) -> Vec<PropertyEncoding> {
    use openapiv3::QueryStyle;
    media_type
        .encoding
        .iter()
        .map(|(property, e)| {
            let style = match e.style {
                None | Some(QueryStyle::Form) => ParamStyle::Form,
                Some(QueryStyle::SpaceDelimited) => ParamStyle::SpaceDelimited,
                Some(QueryStyle::PipeDelimited) => ParamStyle::PipeDelimited,
                Some(QueryStyle::DeepObject) => ParamStyle::DeepObject,
            };
            PropertyEncoding {
                property: property.clone(),
                style,
                explode: style == ParamStyle::Form || e.explode,
                allow_reserved: e.allow_reserved,
            }
        })
        .filter(|e| e.style != ParamStyle::Form || e.allow_reserved)
        .collect()
}

/// A media type lowercased, without parameters (`text/html; charset=utf-8` -> `text/html`).
fn media_essence(name: &str) -> String {
    name.split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

pub fn classify_media(name: &str) -> Media {
    let essence = media_essence(name);
    if essence == "application/json"
        || essence == "text/json"
        || essence.ends_with("+json")
        || essence == "*/*"
    {
        Media::Json
    } else if essence == "application/x-www-form-urlencoded" {
        Media::Form
    } else if essence == "multipart/form-data" {
        Media::Multipart
    } else if essence.starts_with("text/") {
        Media::Text
    } else {
        Media::Binary(essence)
    }
}

fn status_word(status: Status) -> String {
    match status {
        Status::Code(c) => c.to_string(),
        Status::Range(r) => format!("{r}XX"),
        Status::Default => "Default".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6570_expressions_name_their_parameter_and_spell_its_style() {
        let (path, spelled) = template_styles("/a/{param*}/b/{.label}/{;id*}/{+raw}/{plain}");
        assert_eq!(path, "/a/{param}/b/{label}/{id}/{raw}/{plain}");
        let read: Vec<(&str, ParamStyle, bool, bool)> = spelled
            .iter()
            .map(|s| (s.name.as_str(), s.style, s.explode, s.allow_reserved))
            .collect();
        assert_eq!(
            read,
            [
                ("param", ParamStyle::Simple, true, false),
                ("label", ParamStyle::Label, false, false),
                ("id", ParamStyle::Matrix, true, false),
                ("raw", ParamStyle::Simple, false, true),
            ]
        );
        assert_eq!(spelled[2].written, "{;id*}");
        // OpenAPI templates, and text that is no template, are left as they are.
        assert_eq!(
            template_styles("/files/{name}.{ext}").0,
            "/files/{name}.{ext}"
        );
        assert_eq!(template_styles("/odd/{}/{x").0, "/odd/{}/{x");
    }

    fn hooks_of(doc: &str) -> (Vec<Hook>, Vec<String>) {
        match crate::load_api(doc) {
            Ok((api, diags)) => (api.hooks, diags.0.iter().map(|d| d.to_string()).collect()),
            Err(diags) => panic!("{diags}"),
        }
    }

    #[test]
    fn webhooks_and_callbacks_become_hooks_routed_by_name() {
        let doc = r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
          "paths": {"/s": {"post": {"operationId": "sub", "responses": {"200": {"description": "ok"}},
            "callbacks": {"ev": {"{$request.body#/url}": {"post": {"responses": {"200": {"description": "ok"}}}}}}}}},
          "webhooks": {"ev": {"post": {"security": [{"k": []}], "responses": {"200": {"description": "ok"}}},
                              "put": {"responses": {"200": {"description": "ok"}}}}}}"#;
        let (hooks, warnings) = hooks_of(doc);
        let summary: Vec<(String, String, Method)> = hooks
            .iter()
            .map(|h| {
                (
                    h.operation.id.clone(),
                    h.operation.path.clone(),
                    h.operation.method.clone(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("ev put".to_owned(), "/ev".to_owned(), Method::Put),
                ("ev post".to_owned(), "/ev".to_owned(), Method::Post),
                ("sub ev".to_owned(), "/ev-2".to_owned(), Method::Post),
            ]
        );
        assert!(hooks.iter().all(|h| h.operation.security.is_empty()));
        assert_eq!(
            hooks[2].kind,
            HookKind::Callback {
                owner: "sub".to_owned(),
                expression: "{$request.body#/url}".to_owned()
            }
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("/webhooks/ev/post/security"),
            "{warnings:?}"
        );
    }

    #[test]
    fn webhooks_of_a_document_without_operations_are_kept() {
        let doc = r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
          "webhooks": {"ev": {"post": {"responses": {"200": {"description": "ok"}}}}}}"#;
        let (hooks, warnings) = hooks_of(doc);
        assert_eq!(hooks.len(), 1);
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn paths_split_into_segments() {
        assert_eq!(
            parse_path("/v1/accounts/{accountId}").unwrap(),
            vec![
                PathSegment::Literal("v1".into()),
                PathSegment::Literal("accounts".into()),
                PathSegment::Param("accountId".into())
            ]
        );
        assert_eq!(
            parse_path("/files/{name}.{ext}").unwrap(),
            vec![
                PathSegment::Literal("files".into()),
                PathSegment::Mixed(vec![
                    SegmentPart::Param("name".into()),
                    SegmentPart::Literal(".".into()),
                    SegmentPart::Param("ext".into()),
                ])
            ]
        );
        assert_eq!(
            parse_path("/jobs/{id}:cancel").unwrap()[1].literals(),
            vec!["", ":cancel"]
        );
        assert!(parse_path("/files/{name}{ext}").is_err());
        assert!(parse_path("/files/{name.json").is_err());
        assert!(parse_path("/files/name}.json").is_err());
    }

    #[test]
    fn operation_ids_derive_from_method_and_path() {
        let segments = parse_path("/pets/{id}/toys").unwrap();
        assert_eq!(
            derived_operation_id(&Method::Get, &segments),
            "get_pets_by_id_toys"
        );
    }

    #[test]
    fn media_types_are_classified() {
        assert_eq!(classify_media("application/problem+json"), Media::Json);
        assert_eq!(
            classify_media("application/json; charset=utf-8"),
            Media::Json
        );
        assert_eq!(
            classify_media("application/x-www-form-urlencoded"),
            Media::Form
        );
        assert_eq!(
            classify_media("application/octet-stream"),
            Media::Binary("application/octet-stream".into())
        );
    }

    #[test]
    fn streaming_media_types_are_streams_beside_the_body() {
        let doc = r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
            "/a": {"get": {"operationId": "a", "responses": {"200": {"description": "ok",
                "content": {
                    "text/event-stream; charset=utf-8": {"schema": {"type": "integer"}},
                    "application/octet-stream": {}}}}}},
            "/b": {"post": {"operationId": "b", "responses": {"200": {"description": "ok",
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}}}}}}}}"#;
        let (api, diags) = crate::load_api(doc).expect("loads");
        assert!(diags.0.is_empty(), "{diags}");
        let a = &api.operations[0];
        let stream = a.responses[0].stream.as_ref().expect("a stream");
        assert_eq!(stream.format, StreamFormat::EventStream);
        assert_eq!(stream.media, "text/event-stream");
        let body = a.responses[0].body.as_ref().expect("the other body");
        assert_eq!(body.media, Media::Binary("application/octet-stream".into()));
        // A GET event stream can be resumed: the server reads `Last-Event-ID`.
        assert!(
            a.parameters
                .iter()
                .any(|p| p.wire_name == "Last-Event-ID" && !p.required)
        );
        let b = &api.operations[1];
        assert!(b.responses[0].body.is_none());
        assert_eq!(
            b.responses[0].stream.as_ref().map(|s| s.format),
            Some(StreamFormat::JsonLines)
        );
        assert!(
            b.parameters.is_empty(),
            "only GET event streams are resumed"
        );
    }
}
