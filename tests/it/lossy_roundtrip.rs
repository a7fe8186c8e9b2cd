//! Round trips of tests/fixtures/lossy-3.0.yaml: what the generator used to drop now reaches the
//! models. Properties beside `oneOf` are kept with the branch's own; an `allOf` of non-object
//! members keeps every member's constraints; 3.0 schemas with `format`, `pattern` or bounds but
//! no `type` are typed; an integer written as `2.0` is the integer 2.

use lossy_models::*;
use serde_json::{Value, json};

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(input: Value) -> T {
    let decoded: T =
        serde_json::from_value(input.clone()).unwrap_or_else(|e| panic!("{input}: {e}"));
    assert_eq!(serde_json::to_value(&decoded).unwrap(), input);
    decoded
}

fn rejection<T: serde::de::DeserializeOwned + std::fmt::Debug>(input: Value) -> String {
    match serde_json::from_value::<T>(input.clone()) {
        Ok(v) => panic!("accepted {input} as {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn properties_beside_one_of_are_kept_with_the_branch() {
    let contact: Contact = round_trip(json!({
        "name": "Ann", "note": "work", "kind": "email", "address": "ann@example.com"
    }));
    assert_eq!(contact.name, "Ann");
    assert_eq!(contact.note.as_deref(), Some("work"));
    assert_eq!(
        contact.one_of,
        ContactOneOf::Email(Email {
            kind: EmailKind::Email,
            address: "ann@example.com".into()
        })
    );
    let sms: Contact = round_trip(json!({"name": "Bo", "kind": "sms", "number": "+4912345"}));
    assert!(matches!(sms.one_of, ContactOneOf::Sms(_)));
    // The required `name` beside the branches is required, and checked.
    let message = rejection::<Contact>(json!({"kind": "sms", "number": "+4912345"}));
    assert!(message.contains("missing field `name`"), "{message}");
    let empty: Contact =
        serde_json::from_value(json!({"name": "", "kind": "sms", "number": "1"})).expect("decodes");
    let errors = empty.validate().expect_err("empty name");
    assert!(errors.to_string().starts_with("name: "), "{errors}");
    // The branch's tag still decides.
    let message = rejection::<Contact>(json!({"name": "Ann", "kind": "fax", "number": "1"}));
    assert!(message.contains(r#"unknown `kind` "fax""#), "{message}");
}

#[test]
fn all_of_non_object_members_keep_every_constraint() {
    let measurement = |code: &str, percent: i64| -> Measurement {
        serde_json::from_value(json!({"count": 1, "ratio": 0.5, "code": code, "percent": percent}))
            .expect("decodes")
    };
    assert!(measurement("ABCD", 50).validate().is_ok());
    for (code, percent, broken) in [
        ("AB", 50, "code"),        // minLength 3 from the second member
        ("ABCDEFGHI", 50, "code"), // maxLength 8
        ("abcd", 50, "code"),      // the pattern of the referenced Code
        ("ABCD", 101, "percent"),  // maximum 100 from the third member
        ("ABCD", -1, "percent"),   // minimum 0
    ] {
        let errors = measurement(code, percent)
            .validate()
            .expect_err(&format!("{code} {percent}"));
        assert!(errors.to_string().starts_with(broken), "{errors}");
    }
}

#[test]
fn typeless_3_0_schemas_are_typed_from_their_keywords() {
    // `format: int32` + a numeric pattern: a number, or a string spelling one.
    let m: Measurement =
        serde_json::from_value(json!({"count": "42", "ratio": 2, "limit": 3.5})).expect("decodes");
    assert_eq!(m.count, 42);
    assert_eq!(m.ratio, 2.0);
    assert_eq!(m.limit, Some(3.5));
    assert_eq!(
        serde_json::to_value(&m).unwrap(),
        json!({"count": 42, "ratio": 2.0, "limit": 3.5})
    );
    let message = rejection::<Measurement>(json!({"count": "4x", "ratio": 1}));
    assert!(message.contains("does not match"), "{message}");
    // `format: date-time` alone: a string (not any JSON value), which `Validate` checks to be a
    // date-time; a client keeps what a server sent (the format is an annotation).
    let message = rejection::<Measurement>(json!({"count": 1, "ratio": 1, "at": 5}));
    assert!(message.contains("expected a string"), "{message}");
    let m: Measurement =
        serde_json::from_value(json!({"count": 1, "ratio": 1, "at": "yesterday"})).expect("kept");
    assert_eq!(m.at.as_deref(), Some("yesterday"));
    let errors = m.validate().unwrap_err().to_string();
    assert!(errors.contains("must be an RFC 3339 date-time"), "{errors}");
    let m: Measurement =
        serde_json::from_value(json!({"count": 1, "ratio": 1, "at": "2026-01-02T03:04:05Z"}))
            .expect("decodes");
    assert!(m.at.is_some());
}

#[test]
fn an_integer_written_with_a_zero_fraction_is_an_integer() {
    let m: Measurement = serde_json::from_value(
        json!({"count": 2.0, "ratio": 1, "percent": 7.0, "sizes": [1.0, 2]}),
    )
    .expect("2.0 is an integer");
    assert_eq!(m.count, 2);
    assert_eq!(m.percent, Some(7));
    assert_eq!(m.sizes, Some(vec![1, 2]));
    // Encoded as integers.
    assert_eq!(serde_json::to_value(&m).unwrap()["sizes"], json!([1, 2]));
    let message = rejection::<Measurement>(json!({"count": 1, "ratio": 1, "sizes": [2.5]}));
    assert!(message.contains("2.5 is not an integer"), "{message}");
    let message = rejection::<Measurement>(json!({"count": 1, "ratio": 1, "percent": null}));
    assert!(message.contains("null"), "{message}");
}

#[test]
fn an_optional_reference_to_a_nullable_schema_is_checked_once() {
    // `level` is optional and its schema nullable: absent, null and a value all decode; the
    // value keeps the referenced schema's minLength.
    for input in [json!({}), json!({"level": null}), json!({"level": "hi"})] {
        let settings: Settings = serde_json::from_value(input.clone()).expect("decodes");
        assert!(settings.validate().is_ok(), "{input}");
    }
    let settings: Settings = serde_json::from_value(json!({"level": "x"})).expect("decodes");
    let errors = settings.validate().expect_err("too short");
    assert!(errors.to_string().starts_with("level: "), "{errors}");
}
