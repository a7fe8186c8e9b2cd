//! The runtime of the crates [openapi-gen](https://docs.rs/openapi-gen) generates.
//!
//! Each constant is the text of one file that the generator copies verbatim into a generated
//! crate (`src/<name>.rs`), so generated code stays small and depends only on crates.io crates.
//! The files live in this package's `models/`, `server/` and `client/` folders, where they can be
//! read and reviewed as Rust; this crate only carries them, so that the generator still finds them
//! when it is built from its published package.
//!
//! ```
//! assert!(openapi_gen_templates::models::WIRE.contains("pub trait WireNumber"));
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// Copied into every models crate (or the `models` module of a build.rs module).
pub mod models {
    /// `src/wire.rs`: numbers that may arrive as strings, required nullable values, `2.0` as 2.
    pub const WIRE: &str = include_str!("models/wire.rs");
    /// `src/validation.rs`: the `Validate` trait and its error type.
    pub const VALIDATION: &str = include_str!("models/validation.rs");
    /// `src/bytes.rs`: `format: byte` (base64 on the wire, bytes in Rust).
    pub const BYTES: &str = include_str!("models/bytes.rs");
    /// `src/style.rs`: the parameter style codec shared by server and client.
    pub const STYLE: &str = include_str!("models/style.rs");
    /// `src/file.rs`: `format: binary` parts of multipart bodies.
    pub const FILE: &str = include_str!("models/file.rs");
    /// `src/tagged.rs`: decoding of internally tagged unions.
    pub const TAGGED: &str = include_str!("models/tagged.rs");
    /// `src/object.rs`: the shared decoder of structs (one loop over the keys).
    pub const OBJECT: &str = include_str!("models/object.rs");
}

/// Copied into every server crate (and the receiver of webhooks).
pub mod server {
    /// `src/rejection.rs`: bad requests answered in the document's error body.
    pub const REJECTION: &str = include_str!("server/rejection.rs");
    /// `src/params.rs`: reading path, query, header and cookie parameters.
    pub const PARAMS: &str = include_str!("server/params.rs");
    /// `src/body.rs`: reading request bodies.
    pub const BODY: &str = include_str!("server/body.rs");
    /// `src/objects_only.rs`: refusing JSON that is not an object where one is required.
    pub const OBJECTS_ONLY: &str = include_str!("server/objects_only.rs");
    /// `src/auth.rs`: credentials from the `Authorization` header (bearer, HTTP Basic).
    pub const AUTH: &str = include_str!("server/auth.rs");
    /// `src/respond.rs`: writing responses.
    pub const RESPOND: &str = include_str!("server/respond.rs");
    /// `src/multipart.rs`: reading `multipart/form-data` bodies.
    pub const MULTIPART: &str = include_str!("server/multipart.rs");
    /// `src/deep_form.rs`: reading `deepObject` form bodies and object parameters whose properties
    /// nest.
    pub const DEEP_FORM: &str = include_str!("server/deep_form.rs");
    /// `src/stream.rs`: streamed answers (Server-Sent Events, JSON Lines, NDJSON, JSON text
    /// sequences), for servers whose document streams.
    pub const STREAM: &str = include_str!("server/stream.rs");
}

/// Copied into every client crate (and the sender of webhooks).
pub mod client {
    /// `src/service.rs`: sending through a `tower::Service` (feature `tower`): layers, or a
    /// router called in process.
    pub const SERVICE: &str = include_str!("client/service.rs");
    /// `src/client.rs`: the client and its builder.
    pub const CLIENT: &str = include_str!("client/client.rs");
    /// `src/auth.rs`: OAuth 2.0 client credentials (tokens fetched, cached, refreshed).
    pub const AUTH: &str = include_str!("client/auth.rs");
    /// `src/codec.rs`: sending requests and decoding responses.
    pub const CODEC: &str = include_str!("client/codec.rs");
    /// `src/error.rs`: the client's error type.
    pub const ERROR: &str = include_str!("client/error.rs");
    /// `src/retry.rs`: retries of idempotent requests.
    pub const RETRY: &str = include_str!("client/retry.rs");
    /// `src/multipart.rs`: writing `multipart/form-data` bodies.
    pub const MULTIPART: &str = include_str!("client/multipart.rs");
    /// `src/device.rs`: the OAuth 2.0 device authorization grant (RFC 8628).
    pub const DEVICE: &str = include_str!("client/device.rs");
    /// `src/stream.rs`: streamed answers decoded as they arrive (Server-Sent Events, JSON Lines,
    /// NDJSON, JSON text sequences), for clients whose document streams.
    pub const STREAM: &str = include_str!("client/stream.rs");
}

// Templates compiled as modules of this crate, so their logic can be tested where it is written.
#[cfg(test)]
#[path = "models/style.rs"]
#[allow(dead_code, missing_docs)]
mod style;

#[cfg(test)]
mod tests {
    use super::style;
    use serde::Serialize;

    #[derive(Serialize)]
    struct Person {
        role: &'static str,
        #[serde(rename = "firstName")]
        first_name: &'static str,
        nested: Nested,
        missing: Option<u8>,
    }

    #[derive(Serialize)]
    struct Nested {
        z: f64,
        a: bool,
    }

    #[test]
    fn object_properties_keep_their_declaration_order() {
        let person = Person {
            role: "admin",
            first_name: "Alex",
            nested: Nested { z: 1.5, a: true },
            missing: None,
        };
        assert_eq!(
            style::Value::object(&person),
            style::Value::Object(vec![
                ("role".to_owned(), "admin".to_owned()),
                ("firstName".to_owned(), "Alex".to_owned()),
                ("nested".to_owned(), r#"{"z":1.5,"a":true}"#.to_owned()),
            ])
        );
        let mut query = String::new();
        let value = style::Value::object(&person);
        style::write_query(&mut query, style::Style::Form, false, false, "p", &value);
        assert!(query.starts_with("p=role,admin,firstName,Alex,"), "{query}");
    }

    #[derive(Serialize)]
    struct Deep {
        #[serde(rename = "Object")]
        object: Nested,
        #[serde(rename = "Id")]
        id: u32,
        tags: Vec<&'static str>,
        missing: Option<Nested>,
    }

    #[test]
    fn deep_objects_nest_in_brackets_and_read_back() {
        let deep = Deep {
            object: Nested { z: 2.0, a: false },
            id: 12,
            tags: vec!["x y", "z"],
            missing: None,
        };
        let value = style::Value::deep_object(&deep);
        let mut query = String::new();
        style::write_query(
            &mut query,
            style::Style::DeepObject,
            true,
            false,
            "deep",
            &value,
        );
        assert_eq!(
            query,
            "deep%5BObject%5D%5Bz%5D=2.0&deep%5BObject%5D%5Ba%5D=false&deep%5BId%5D=12\
             &deep%5Btags%5D%5B0%5D=x%20y&deep%5Btags%5D%5B1%5D=z"
        );

        // What a server reads: names decoded, values still encoded.
        let pairs: Vec<(std::borrow::Cow<'_, str>, &str)> = query
            .split('&')
            .map(|pair| {
                let (k, v) = pair.split_once('=').unwrap();
                (style::decode(k).unwrap(), v)
            })
            .collect();
        let read = style::read_query(
            style::Style::DeepObject,
            true,
            "deep",
            &pairs,
            style::Shape::Object,
            None,
            &[],
        );
        assert_eq!(read, Ok(Some(value)));

        // Brackets that do not close are no property path.
        let broken = [(std::borrow::Cow::Borrowed("deep[Object][role"), "x")];
        let read = style::read_query(
            style::Style::DeepObject,
            true,
            "deep",
            &broken,
            style::Shape::Object,
            None,
            &[],
        );
        assert!(read.is_err(), "{read:?}");
    }

    /// Found by fuzzing (fuzz/fuzz_targets/style_roundtrip.rs): with `allowReserved`, a comma
    /// inside an item of a list written as one value was sent as it is, and read back as two items.
    #[test]
    fn allow_reserved_keeps_the_comma_encoded_inside_list_and_object_items() {
        let read = |query: &str, shape| {
            let pairs: Vec<(std::borrow::Cow<'_, str>, &str)> = query
                .split('&')
                .map(|pair| {
                    let (k, v) = pair.split_once('=').unwrap();
                    (style::decode(k).unwrap(), v)
                })
                .collect();
            style::read_query(style::Style::Form, false, "v", &pairs, shape, None, &[])
        };
        let list = style::Value::Array(vec![",b;c".to_owned(), "x/y".to_owned()]);
        let mut query = String::new();
        style::write_query(&mut query, style::Style::Form, false, true, "v", &list);
        assert_eq!(query, "v=%2Cb;c,x/y");
        assert_eq!(read(&query, style::Shape::Array), Ok(Some(list)));

        let object = style::Value::Object(vec![("k,1".to_owned(), "a,b/c".to_owned())]);
        let mut query = String::new();
        style::write_query(&mut query, style::Style::Form, false, true, "v", &object);
        assert_eq!(query, "v=k%2C1,a%2Cb/c");
        assert_eq!(read(&query, style::Shape::Object), Ok(Some(object)));

        // A single value keeps its commas: nothing splits it.
        let mut query = String::new();
        let one = style::Value::Primitive("a,b".to_owned());
        style::write_query(&mut query, style::Style::Form, false, true, "v", &one);
        assert_eq!(query, "v=a,b");
    }
}
