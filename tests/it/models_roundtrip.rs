//! Round trips of every model of the service spec through JSON, with the seed's field rules:
//! number-or-numeric-string values, nulls, integer enums with names, required fields, defaults, and
//! bad values rejected with a message that says what is wrong.

use asset_alerting_models::*;
use serde_json::{Value, json};

/// Decodes, re-encodes and compares with the canonical form (what the server would send).
fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(
    input: Value,
    canonical: Value,
) -> T {
    let decoded: T =
        serde_json::from_value(input.clone()).unwrap_or_else(|e| panic!("{input}: {e}"));
    let encoded = serde_json::to_value(&decoded).unwrap();
    assert_eq!(encoded, canonical, "re-encoding {input}");
    decoded
}

/// The decoding error message for `input`.
fn rejection<T: serde::de::DeserializeOwned + std::fmt::Debug>(input: Value) -> String {
    match serde_json::from_value::<T>(input.clone()) {
        Ok(v) => panic!("accepted {input} as {v:?}"),
        Err(e) => e.to_string(),
    }
}

fn asset_json() -> Value {
    json!({
        "id": "6f9619ff-8b86-d011-b42d-00c04fc964ff",
        "accountId": "0b6b1f7e-8f3c-4c1e-9a55-7f0d1c2b3a4d",
        "externalId": "truck-17",
        "name": "Truck 17",
        "tier": 2,
        "disabledEvents": {"SpeedLimitExceeded": "2026-12-01T08:00:00Z"},
        "telemetryRules": {"speedLimit": 90, "fuelLevelLowThreshold": 12.5},
        "isDeleted": false
    })
}

#[test]
fn asset_round_trips() {
    let asset: Asset = round_trip(asset_json(), asset_json());
    assert_eq!(asset.tier, AssetTier::Premium);
    assert_eq!(asset.external_id, "truck-17");
    let rules = asset.telemetry_rules.as_ref().unwrap();
    assert_eq!(rules.speed_limit, Some(90));
    assert_eq!(rules.fuel_level_low_threshold, Some(12.5));
    assert_eq!(rules.engine_speed_limit, None);
    assert_eq!(
        asset.disabled_events["SpeedLimitExceeded"].to_rfc3339(),
        "2026-12-01T08:00:00+00:00"
    );
}

#[test]
fn asset_optional_fields_may_be_absent_or_null() {
    let mut input = asset_json();
    input.as_object_mut().unwrap().remove("isDeleted");
    input["telemetryRules"] = Value::Null;
    let asset: Asset = serde_json::from_value(input).unwrap();
    assert_eq!(asset.telemetry_rules, None);
    assert_eq!(asset.is_deleted, None);
    let encoded = serde_json::to_value(&asset).unwrap();
    assert!(
        encoded.get("isDeleted").is_none(),
        "absent optional fields stay absent: {encoded}"
    );
}

#[test]
fn null_is_accepted_only_where_the_schema_says_nullable() {
    let mut input = asset_json();
    input["telemetryRules"] = Value::Null;
    assert!(
        serde_json::from_value::<Asset>(input).is_ok(),
        "telemetryRules is nullable"
    );
    let mut input = asset_json();
    input["isDeleted"] = Value::Null;
    assert!(
        rejection::<Asset>(input).contains("invalid type: null"),
        "isDeleted is optional, not nullable"
    );
    let message = rejection::<CreateAccountRequest>(json!({"name": "x", "callbackUri": null}));
    assert!(
        message.contains("invalid type: null, expected a string"),
        "{message}"
    );
    let message = rejection::<AssetInput>(
        json!({"externalId": "e", "name": "n", "tier": 1, "disabledEvents": null}),
    );
    assert!(message.contains("invalid type: null"), "{message}");
    // Absent optional fields are still fine.
    assert!(serde_json::from_value::<CreateAccountRequest>(json!({"name": "x"})).is_ok());
}

#[test]
fn disabled_events_keys_must_be_event_type_names() {
    let input = json!({"externalId": "e", "name": "n", "tier": 1,
                       "disabledEvents": {"SpeedLimitExceeded": "2026-12-01T08:00:00Z", "Speeding": "2026-12-01T08:00:00Z"}});
    let parsed: AssetInput = serde_json::from_value(input).unwrap();
    let errors = parsed.validate().unwrap_err();
    assert_eq!(errors.0.len(), 1, "{errors}");
    assert_eq!(errors.0[0].path, "disabledEvents.Speeding");
}

#[test]
fn asset_required_fields_are_required() {
    for field in [
        "id",
        "accountId",
        "externalId",
        "name",
        "tier",
        "disabledEvents",
    ] {
        let mut input = asset_json();
        input.as_object_mut().unwrap().remove(field);
        let message = rejection::<Asset>(input);
        assert!(
            message.contains(&format!("missing field `{field}`")),
            "{field}: {message}"
        );
    }
}

#[test]
fn asset_rejects_bad_values_with_messages() {
    let mut input = asset_json();
    input["tier"] = json!(3);
    assert!(
        rejection::<Asset>(input).contains("3"),
        "tier outside the enum"
    );
    let mut input = asset_json();
    input["id"] = json!("not-a-uuid");
    assert!(rejection::<Asset>(input).contains("UUID"));
    let mut input = asset_json();
    input["disabledEvents"] = json!({"SpeedLimitExceeded": "yesterday"});
    assert!(rejection::<Asset>(input).contains("input"));
}

#[test]
fn telemetry_numbers_accept_numbers_and_numeric_strings_and_encode_numbers() {
    let input = json!({
        "inputVoltageLowThreshold": "11.5",
        "batteryVoltageLowThreshold": 3,
        "batteryPercentageLowThreshold": "20",
        "speedLimit": "120",
        "fuelLevelLowThreshold": null,
        "adBlueLevelLowThreshold": -0.5,
        "temperatureLowThreshold": "-10.25",
        "temperatureHighThreshold": 40.0,
        "pressureLowThreshold": "0",
        "pressureHighThreshold": 300,
        "engineSpeedLimit": 4000.0
    });
    let canonical = json!({
        "inputVoltageLowThreshold": 11.5,
        "batteryVoltageLowThreshold": 3.0,
        "batteryPercentageLowThreshold": 20.0,
        "speedLimit": 120,
        "adBlueLevelLowThreshold": -0.5,
        "temperatureLowThreshold": -10.25,
        "temperatureHighThreshold": 40.0,
        "pressureLowThreshold": 0.0,
        "pressureHighThreshold": 300.0,
        "engineSpeedLimit": 4000
    });
    let rules: TelemetryRules = round_trip(input, canonical);
    assert_eq!(rules.speed_limit, Some(120));
    assert_eq!(rules.fuel_level_low_threshold, None);
    assert_eq!(rules.temperature_low_threshold, Some(-10.25));
}

/// The seed's pattern admits a sign on any integer text: "-0" is 0, within a u32's range.
#[test]
fn a_signed_zero_is_zero_for_unsigned_numbers() {
    let rules: TelemetryRules =
        serde_json::from_value(json!({"speedLimit": "-0", "engineSpeedLimit": "0"})).unwrap();
    assert_eq!(
        (rules.speed_limit, rules.engine_speed_limit),
        (Some(0), Some(0))
    );
}

#[test]
fn telemetry_numbers_reject_what_their_types_refuse() {
    let cases = [
        (json!({"speedLimit": "abc"}), "does not match"),
        (json!({"speedLimit": "1.5"}), "does not match"),
        (json!({"speedLimit": 1.5}), "out of range for i64"),
        (json!({"speedLimit": "007"}), "does not match"),
        (
            json!({"engineSpeedLimit": true}),
            "a number (i64) or a string matching",
        ),
        (json!({"fuelLevelLowThreshold": "1e3"}), "does not match"),
        (json!({"fuelLevelLowThreshold": " 12"}), "does not match"),
        (
            json!({"fuelLevelLowThreshold": [1]}),
            "a number (f64) or a string matching",
        ),
    ];
    for (input, expected) in cases {
        let message = rejection::<TelemetryRules>(input.clone());
        assert!(message.contains(expected), "{input}: {message}");
    }
}

/// `format: uint32` is an annotation: a number beyond it decodes (a client keeps what a server
/// answers), and `Validate`, which the generated server runs, refuses it.
#[test]
fn telemetry_numbers_beyond_their_format_decode_and_fail_validation() {
    let cases = [
        (
            json!({"speedLimit": "-1"}),
            -1,
            "must be at least 0 (is -1)",
        ),
        (json!({"speedLimit": -1}), -1, "must be at least 0 (is -1)"),
        (
            json!({"speedLimit": "4294967296"}),
            4294967296,
            "must be at most 4294967295 (is 4294967296)",
        ),
        (
            json!({"speedLimit": 4294967296_u64}),
            4294967296,
            "must be at most 4294967295 (is 4294967296)",
        ),
    ];
    for (input, kept, expected) in cases {
        let rules: TelemetryRules = serde_json::from_value(input.clone()).unwrap();
        assert_eq!(rules.speed_limit, Some(kept), "{input}");
        let errors = rules.validate().unwrap_err().to_string();
        assert!(errors.contains(expected), "{input}: {errors}");
    }
    let at_the_bound: TelemetryRules =
        serde_json::from_value(json!({"speedLimit": "4294967295", "engineSpeedLimit": 0})).unwrap();
    assert_eq!(at_the_bound.validate(), Ok(()));
}

#[test]
fn event_types_keep_their_values_and_names() {
    assert_eq!(EventType::ALL.len(), 27);
    for (i, event) in EventType::ALL.into_iter().enumerate() {
        assert_eq!(event.value(), i as i32 + 1);
        let encoded = serde_json::to_value(event).unwrap();
        assert_eq!(encoded, json!(i + 1));
        assert_eq!(serde_json::from_value::<EventType>(encoded).unwrap(), event);
        assert_eq!(event.to_string().parse::<EventType>().unwrap(), event);
    }
    assert_eq!(EventType::Any.name(), "Any");
    assert_eq!(EventType::AccidentOccurred.name(), "AccidentOccurred");
    assert_eq!(EventType::try_from(12), Ok(EventType::SpeedLimitExceeded));
    for bad in [0, 28, -1] {
        assert!(
            serde_json::from_value::<EventType>(json!(bad)).is_err(),
            "{bad}"
        );
        assert!(
            EventType::try_from(bad)
                .unwrap_err()
                .contains("is not a valid EventType")
        );
    }
    assert!(
        "x".parse::<EventType>()
            .unwrap_err()
            .contains("not an integer")
    );
    assert_eq!(AssetTier::Basic.value(), 1);
    assert_eq!(AssetTier::Premium.name(), "Premium");
}

fn alert_rule_json() -> Value {
    json!({
        "id": "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
        "accountId": "0b6b1f7e-8f3c-4c1e-9a55-7f0d1c2b3a4d",
        "assetId": "6f9619ff-8b86-d011-b42d-00c04fc964ff",
        "eventType": 10,
        "order": 1,
        "recipient": {"culture": "en-US", "timeZone": "Europe/Berlin", "phoneNumber": "+4915112345678", "description": "Dispatch"},
        "channel": {"type": "telegram", "telegram": {"chatId": 123456789, "isInteractive": true}},
        "isDisabled": false,
        "daysOfWeek": ["Monday", "Friday"],
        "timeOfDay": {"from": "22:00", "to": "06:00"},
        "dates": {"from": "2026-01-01", "to": "2026-12-31"},
        "insideGeofences": ["7c9e6679-7425-40de-944b-e07fc1f90ae7"],
        "outsideGeofences": []
    })
}

#[test]
fn alert_rule_round_trips_and_validates() {
    let rule: AlertRule = round_trip(alert_rule_json(), alert_rule_json());
    assert_eq!(rule.event_type, EventType::GeofenceEntered);
    assert_eq!(rule.channel.r#type, ChannelType::Telegram);
    assert_eq!(rule.channel.telegram.as_ref().unwrap().chat_id, 123456789);
    assert_eq!(
        rule.days_of_week,
        vec![DayOfWeek::Monday, DayOfWeek::Friday]
    );
    assert_eq!(
        rule.dates.as_ref().unwrap().from,
        chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()
    );
    assert_eq!(rule.validate(), Ok(()));
}

#[test]
fn alert_rule_constraints_are_reported_with_paths() {
    let mut input = alert_rule_json();
    input["order"] = json!(-1);
    input["daysOfWeek"] = json!(["Monday", "Monday"]);
    input["timeOfDay"] = json!({"from": "24:00", "to": "06:00"});
    input["recipient"]["phoneNumber"] = json!("0151 12345678");
    let rule: AlertRule = serde_json::from_value(input).unwrap();
    let errors = rule.validate().unwrap_err();
    let paths: Vec<&str> = errors.0.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        vec![
            "order",
            "recipient.phoneNumber",
            "daysOfWeek[1]",
            "timeOfDay.from"
        ],
        "{errors}"
    );
    assert!(
        errors
            .to_string()
            .contains("order: must be at least 0 (is -1)"),
        "{errors}"
    );
}

#[test]
fn alert_rule_rejects_unknown_enum_values() {
    let mut input = alert_rule_json();
    input["daysOfWeek"] = json!(["Funday"]);
    assert!(rejection::<AlertRule>(input).contains("unknown variant `Funday`"));
    let mut input = alert_rule_json();
    input["channel"]["type"] = json!("pigeon");
    assert!(rejection::<AlertRule>(input).contains("unknown variant `pigeon`"));
    let mut input = alert_rule_json();
    input["eventType"] = json!(99);
    assert!(rejection::<AlertRule>(input).contains("99"));
}

#[test]
fn alert_rule_input_applies_defaults_and_rejects_unknown_fields() {
    let minimal = json!({
        "eventType": 12,
        "recipient": {"culture": "de-DE", "timeZone": "Europe/Berlin"},
        "channel": {"type": "call", "call": {}}
    });
    let input: AlertRuleInput = serde_json::from_value(minimal.clone()).unwrap();
    assert_eq!(input.order, 0);
    assert!(!input.is_disabled);
    assert!(
        input.days_of_week.is_empty()
            && input.inside_geofences.is_empty()
            && input.outside_geofences.is_empty()
    );
    assert_eq!(input.time_of_day, None);
    let mut extra = minimal;
    extra["colour"] = json!("red");
    assert!(rejection::<AlertRuleInput>(extra).contains("unknown field `colour`"));
}

#[test]
fn geofence_polygon_is_geojson() {
    let geofence = json!({
        "id": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
        "accountId": "0b6b1f7e-8f3c-4c1e-9a55-7f0d1c2b3a4d",
        "externalId": "depot",
        "name": "Depot",
        "polygon": {"type": "Polygon", "coordinates": [[[13.0, 52.0], [13.1, 52.0], [13.1, 52.1], [13.0, 52.0]]]}
    });
    let parsed: Geofence = round_trip(geofence.clone(), geofence.clone());
    assert_eq!(parsed.polygon.r#type, GeoJsonPolygonType::Polygon);
    assert_eq!(parsed.validate(), Ok(()));
    let mut point = geofence.clone();
    point["polygon"]["type"] = json!("Point");
    assert!(rejection::<Geofence>(point).contains("unknown variant `Point`"));
    let mut short_ring = geofence;
    short_ring["polygon"]["coordinates"] = json!([[[13.0, 52.0], [13.0, 52.0]]]);
    let parsed: Geofence = serde_json::from_value(short_ring).unwrap();
    let errors = parsed.validate().unwrap_err().to_string();
    assert!(
        errors.contains("polygon.coordinates[0]: must have at least 4 items (has 2)"),
        "{errors}"
    );
}

#[test]
fn account_models_round_trip() {
    let account = json!({
        "id": "0b6b1f7e-8f3c-4c1e-9a55-7f0d1c2b3a4d",
        "parentId": null,
        "name": "root",
        "createdAt": "2026-11-21T05:00:00Z"
    });
    let parsed: Account = round_trip(account.clone(), account.clone());
    assert_eq!(parsed.parent_id, None);
    let mut missing_parent = account;
    missing_parent.as_object_mut().unwrap().remove("parentId");
    assert!(
        rejection::<Account>(missing_parent).contains("missing field `parentId`"),
        "required but nullable"
    );

    let request = json!({"name": "Fleet A", "culture": "en-US", "technicalEmailAddress": "ops@example.com", "callbackUri": "https://example.com/hook"});
    let parsed: CreateAccountRequest = round_trip(request.clone(), request);
    assert_eq!(parsed.validate(), Ok(()));
    let bad: CreateAccountRequest =
        serde_json::from_value(json!({"name": "", "culture": "english"})).unwrap();
    let errors = bad.validate().unwrap_err();
    assert_eq!(errors.0.len(), 2, "{errors}");
    assert!(
        rejection::<CreateAccountRequest>(json!({"name": "x", "owner": "y"}))
            .contains("unknown field `owner`")
    );
    let created = json!({"id": "0b6b1f7e-8f3c-4c1e-9a55-7f0d1c2b3a4d", "clientSecret": "s3cret"});
    let _: CreateAccountResponse = round_trip(created.clone(), created);
}

#[test]
fn token_and_link_models_round_trip() {
    let token = json!({"id": "3f1c2a9e-6b7d-4e25-9a41-0c8d7f5b2e10", "token": "abc", "expiresAt": "2026-11-21T06:00:00Z"});
    let _: IngestionToken = round_trip(token.clone(), token);
    let link = json!({"url": "http://127.0.0.1:8080/portal/x?expires=1&signature=y", "expiresAt": "2026-11-21T06:00:00Z"});
    let _: PortalLink = round_trip(link.clone(), link);
    let response = json!({"access_token": "t", "token_type": "Bearer", "expires_in": 3600});
    let parsed: TokenResponse = round_trip(response.clone(), response);
    assert_eq!(parsed.token_type, TokenResponseTokenType::Bearer);
    let error = json!({"error": "invalid_client", "error_description": "unknown client"});
    let parsed: OAuthError = round_trip(error.clone(), error);
    assert_eq!(parsed.error, OAuthErrorError::InvalidClient);
    let body = json!({"code": 1400, "message": "asset not found"});
    let _: ErrorBody = round_trip(body.clone(), body);
}

/// Structs decode through the models' own `Deserialize` (the `object` runtime, not serde's
/// derive): from a JSON object only, each property once, with keys the decoder cannot borrow
/// (written with escapes) read like plain ones, and serde's messages.
#[test]
fn structs_decode_from_objects_only() {
    let text = asset_json().to_string();
    let plain: Asset = serde_json::from_str(&text).unwrap();
    let escaped = text.replacen("\"name\"", "\"n\\u0061me\"", 1);
    assert_ne!(escaped, text);
    assert_eq!(serde_json::from_str::<Asset>(&escaped).unwrap(), plain);

    let message = serde_json::from_str::<ErrorBody>(r#"[1400, "bad"]"#)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("invalid type: sequence, expected struct ErrorBody"),
        "{message}"
    );
    let message = serde_json::from_str::<ErrorBody>(r#"{"code": 1, "code": 2, "message": "m"}"#)
        .unwrap_err()
        .to_string();
    assert!(message.starts_with("duplicate field `code`"), "{message}");
    let message = rejection::<ErrorBody>(json!({"code": 1}));
    assert_eq!(message, "missing field `message`");
    let message = rejection::<CreateAccountRequest>(json!({"name": "a", "nmae": "b"}));
    assert!(
        message.starts_with("unknown field `nmae`, expected one of `name`, `friendlyName`"),
        "{message}"
    );
    // Not denied: an unknown property is read past, whatever its value holds.
    let mut input = asset_json();
    input["later"] = json!({"nested": [1, {"deep": null}]});
    assert_eq!(serde_json::from_value::<Asset>(input).unwrap(), plain);
}
