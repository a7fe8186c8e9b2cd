//! HTTP statuses by name: shared by the server's response enums and the client's error enums, so
//! both name a status alike.

use crate::ir::Status;

/// The statuses that have a common name, by code: the variant name, whose words in capitals are
/// the `http::StatusCode` constant (`NotFound`, `NOT_FOUND`).
const NAMES: &[(u16, &str)] = &[
    (100, "Continue"),
    (101, "SwitchingProtocols"),
    (200, "Ok"),
    (201, "Created"),
    (202, "Accepted"),
    (203, "NonAuthoritativeInformation"),
    (204, "NoContent"),
    (205, "ResetContent"),
    (206, "PartialContent"),
    (207, "MultiStatus"),
    (300, "MultipleChoices"),
    (301, "MovedPermanently"),
    (302, "Found"),
    (303, "SeeOther"),
    (304, "NotModified"),
    (307, "TemporaryRedirect"),
    (308, "PermanentRedirect"),
    (400, "BadRequest"),
    (401, "Unauthorized"),
    (402, "PaymentRequired"),
    (403, "Forbidden"),
    (404, "NotFound"),
    (405, "MethodNotAllowed"),
    (406, "NotAcceptable"),
    (407, "ProxyAuthenticationRequired"),
    (408, "RequestTimeout"),
    (409, "Conflict"),
    (410, "Gone"),
    (411, "LengthRequired"),
    (412, "PreconditionFailed"),
    (413, "PayloadTooLarge"),
    (414, "UriTooLong"),
    (415, "UnsupportedMediaType"),
    (416, "RangeNotSatisfiable"),
    (417, "ExpectationFailed"),
    (418, "ImATeapot"),
    (421, "MisdirectedRequest"),
    (422, "UnprocessableEntity"),
    (423, "Locked"),
    (424, "FailedDependency"),
    (426, "UpgradeRequired"),
    (428, "PreconditionRequired"),
    (429, "TooManyRequests"),
    (431, "RequestHeaderFieldsTooLarge"),
    (451, "UnavailableForLegalReasons"),
    (500, "InternalServerError"),
    (501, "NotImplemented"),
    (502, "BadGateway"),
    (503, "ServiceUnavailable"),
    (504, "GatewayTimeout"),
    (505, "HttpVersionNotSupported"),
];

/// The variant name of a status that has a common name.
pub fn status_name(code: u16) -> Option<&'static str> {
    NAMES
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, name)| *name)
}

/// The variant of an enum with one per status (the server's responses, the client's errors): the
/// status's common name, else `Status404`, `Status4xx`, `Default`.
pub fn status_variant(status: Status) -> String {
    match status {
        Status::Code(code) => status_name(code).map_or(format!("Status{code}"), str::to_owned),
        Status::Range(digit) => format!("Status{digit}xx"),
        Status::Default => "Default".to_owned(),
    }
}

/// The `http::StatusCode` constant of a status that has a common name.
pub fn status_constant(code: u16) -> Option<String> {
    let mut constant = String::new();
    for c in status_name(code)?.chars() {
        if c.is_ascii_uppercase() && !constant.is_empty() {
            constant.push('_');
        }
        constant.push(c.to_ascii_uppercase());
    }
    Some(constant)
}
