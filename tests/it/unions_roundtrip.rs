//! Round trips of the unions of tests/fixtures/discriminator-3.1.yaml through JSON: internally
//! tagged unions (discriminator with mapping, implicit mapping, implicit const tags of strings and
//! integers, a recursive one), their errors for a missing or unknown tag, and an untagged union
//! whose branches are tried most specific first.

use discriminator_models::*;
use serde_json::{Value, json};

/// Decodes, re-encodes and checks the JSON is unchanged.
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
fn a_mapped_tag_picks_its_branch_and_the_branch_keeps_the_tag() {
    let pet: Pet = round_trip(json!({"petType": "dog", "barks": true}));
    assert_eq!(
        pet,
        Pet::Dog(Dog {
            pet_type: "dog".into(),
            barks: true
        })
    );
    // Two mapping values for one schema: both decode as Dog, and each is sent back as it came.
    let hound: Pet = round_trip(json!({"petType": "hound", "barks": false}));
    assert!(matches!(hound, Pet::Dog(Dog { ref pet_type, .. }) if pet_type == "hound"));
}

#[test]
fn a_variant_is_not_sent_with_another_variants_tag() {
    // Dog's petType is a plain string: what it holds must be one of Dog's tags, or the receiver
    // would decode another variant.
    let wrong = Pet::Dog(Dog {
        pet_type: "cat".into(),
        barks: true,
    });
    let message = serde_json::to_value(&wrong).unwrap_err().to_string();
    assert_eq!(
        message,
        r#"`petType` holds "cat", but the variant is tagged "dog" or "hound""#
    );
}

#[test]
fn a_const_tag_and_the_implicit_mapping_by_component_name() {
    let cat: Pet = round_trip(json!({"petType": "cat", "lives": 7}));
    assert_eq!(
        cat,
        Pet::Cat(Cat {
            pet_type: CatPetType::Cat,
            lives: 7
        })
    );
    // Lizard has no mapping entry and no petType property: its tag is its component name, added
    // when encoded and removed before its closed struct is decoded.
    let lizard: Pet = round_trip(json!({"petType": "Lizard", "scales": 300}));
    assert_eq!(lizard, Pet::Lizard(Lizard { scales: 300 }));
    assert_eq!(
        serde_json::to_value(Pet::Lizard(Lizard { scales: 1 })).unwrap(),
        json!({"petType": "Lizard", "scales": 1})
    );
}

#[test]
fn the_tag_decides_even_where_another_branch_would_match() {
    // Without the tag this body matches Dog's shape as well; the tag says cat, so Cat's rules apply.
    let message = rejection::<Pet>(json!({"petType": "cat", "barks": true}));
    assert!(message.contains("missing field `lives`"), "{message}");
}

#[test]
fn a_missing_tag_is_an_error_naming_the_tag_and_its_values() {
    let message = rejection::<Pet>(json!({"barks": true}));
    assert_eq!(
        message,
        r#"missing tag `petType` (expected one of "dog", "hound", "cat", "Lizard")"#
    );
    let message = rejection::<Pet>(json!(["dog"]));
    assert_eq!(
        message,
        "expected an object tagged by `petType`, found an array"
    );
}

#[test]
fn an_unknown_tag_is_an_error_naming_it_and_the_expected_values() {
    let message = rejection::<Pet>(json!({"petType": "parrot", "barks": true}));
    assert_eq!(
        message,
        r#"unknown `petType` "parrot" (expected one of "dog", "hound", "cat", "Lizard")"#
    );
    // Tags are case-sensitive: the implicit mapping is the component name as written.
    let message = rejection::<Pet>(json!({"petType": "lizard", "scales": 1}));
    assert!(
        message.starts_with(r#"unknown `petType` "lizard""#),
        "{message}"
    );
}

#[test]
fn a_tagged_union_inside_a_struct_and_the_branch_struct_used_alone() {
    let owner: Owner = round_trip(json!({
        "name": "Ann",
        "dog": {"petType": "dog", "barks": true},
        "pets": [{"petType": "cat", "lives": 9}, {"petType": "Lizard", "scales": 2}]
    }));
    assert_eq!(owner.dog.pet_type, "dog");
    assert_eq!(owner.pets.as_ref().map(Vec::len), Some(2));
    let message = rejection::<Owner>(json!({"name": "Ann", "dog": {"barks": true}}));
    assert!(message.contains("missing field `petType`"), "{message}");
}

#[test]
fn implicit_string_tags_from_const_properties() {
    let shape: Shape = round_trip(json!({"kind": "square", "side": 2.5}));
    assert_eq!(
        shape,
        Shape::Square(Square {
            kind: SquareKind::Square,
            side: 2.5
        })
    );
    let message = rejection::<Shape>(json!({"kind": "triangle", "side": 1.0}));
    assert_eq!(
        message,
        r#"unknown `kind` "triangle" (expected one of "circle", "square")"#
    );
    // Inline branches tagged the same way.
    let event: Event = round_trip(json!({"type": "stopped", "reason": "done"}));
    assert!(matches!(event, Event::Stopped(_)));
    let message = rejection::<Event>(json!({"type": "started", "reason": "done"}));
    assert!(message.contains("missing field `at`"), "{message}");
}

#[test]
fn an_inline_branch_leaves_its_tag_to_the_union() {
    // `Started` is an inline branch: the variant says its tag, so the struct has no `type` field,
    // and the union writes the tag first when it encodes it.
    let at = "2026-01-02T03:04:05Z".parse().unwrap();
    let event = Event::Started(Started { at });
    assert_eq!(
        serde_json::to_string(&event).unwrap(),
        r#"{"type":"started","at":"2026-01-02T03:04:05Z"}"#
    );
    let decoded: Event = round_trip(json!({"type": "started", "at": "2026-01-02T03:04:05Z"}));
    assert_eq!(decoded, event);
    // The tag is the union's: it is not taken for a field of the branch.
    let message = rejection::<Event>(json!({"type": "stopped"}));
    assert!(message.contains("missing field `reason`"), "{message}");
}

#[test]
fn inline_branches_with_an_integer_tag_one_of_them_closed() {
    let first = Dispatch::DispatchVariant1(DispatchVariant1 { t: "x".into() });
    assert_eq!(
        serde_json::to_string(&first).unwrap(),
        r#"{"op":0,"t":"x"}"#
    );
    let decoded: Dispatch = round_trip(json!({"op": 0, "t": "x"}));
    assert_eq!(decoded, first);
    // The closed branch has no properties but the tag, which the union takes off before decoding
    // the struct: the tag is not an unknown property of it, anything else is.
    let closed: Dispatch = round_trip(json!({"op": 7}));
    assert_eq!(closed, Dispatch::DispatchVariant2(DispatchVariant2 {}));
    let message = rejection::<Dispatch>(json!({"op": 7, "extra": true}));
    assert!(message.contains("unknown field `extra`"), "{message}");
    let message = rejection::<Dispatch>(json!({"op": 3}));
    assert_eq!(message, "unknown `op` 3 (expected one of 0, 7)");
}

#[test]
fn implicit_integer_tags() {
    let hello: GatewayMessage = round_trip(json!({"op": 10, "d": {"heartbeatInterval": 41250}}));
    assert!(matches!(hello, GatewayMessage::Hello(_)));
    let beat: GatewayMessage = round_trip(json!({"op": 1, "d": null}));
    assert_eq!(
        beat,
        GatewayMessage::Heartbeat(Heartbeat {
            op: HeartbeatOp::Value1,
            d: None
        })
    );
    let message = rejection::<GatewayMessage>(json!({"op": 7, "d": null}));
    assert_eq!(message, "unknown `op` 7 (expected one of 10, 1)");
    let message = rejection::<GatewayMessage>(json!({"op": "10", "d": null}));
    assert!(message.starts_with(r#"unknown `op` "10""#), "{message}");
}

#[test]
fn a_recursive_tagged_union() {
    let input = json!({"kind": "negation", "operand": {"kind": "negation", "operand": {"kind": "literal", "value": 2.0}}});
    let expression: Expression = round_trip(input);
    let Expression::Negation(outer) = expression else {
        panic!("not a negation");
    };
    assert!(matches!(*outer.operand, Expression::Negation(_)));
}

#[test]
fn untagged_branches_are_tried_most_specific_first() {
    // Declared as string, number, uuid, integer, Loose, Strict: tried uuid, integer, number,
    // string, Strict, Loose.
    let id = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
    assert!(matches!(round_trip::<Scalar>(json!(id)), Scalar::Uuid(_)));
    assert_eq!(round_trip::<Scalar>(json!("x")), Scalar::String("x".into()));
    assert_eq!(round_trip::<Scalar>(json!(3)), Scalar::Integer(3));
    assert_eq!(round_trip::<Scalar>(json!(3.5)), Scalar::Number(3.5));
    assert_eq!(
        round_trip::<Scalar>(json!({"name": "n", "id": 1})),
        Scalar::Strict(Strict {
            name: "n".into(),
            id: 1
        })
    );
    assert_eq!(
        round_trip::<Scalar>(json!({"name": "n"})),
        Scalar::Loose(Loose {
            name: Some("n".into())
        })
    );
}

#[test]
fn an_integer_discriminator_mapped_by_text_keys() {
    // ASP.NET: the mapping names `"0"` and `"1"`; on the wire the tag is the integer.
    let city: Forecast = round_trip(json!({"$type": 0, "city": "Oslo"}));
    assert_eq!(
        city,
        Forecast::CityForecast(CityForecast {
            r#type: Some(CityForecastType::Value0),
            city: "Oslo".into(),
        })
    );
    let series: Forecast = round_trip(json!({"$type": 1, "summary": "mild"}));
    assert!(matches!(series, Forecast::SeriesForecast(_)));
    // A variant whose optional tag property is empty is sent with its tag.
    let untagged = Forecast::CityForecast(CityForecast {
        r#type: None,
        city: "Bergen".into(),
    });
    assert_eq!(
        serde_json::to_value(&untagged).unwrap(),
        json!({"$type": 0, "city": "Bergen"})
    );
    // The tag's text is not the tag.
    let message = rejection::<Forecast>(json!({"$type": "0", "city": "Oslo"}));
    assert!(message.contains("$type"), "{message}");
}
