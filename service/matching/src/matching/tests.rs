use super::*;
use chrono::{Duration, TimeZone};
use chrono_tz::{Asia::Tokyo, Europe::Berlin, UTC};

const SPEED: i32 = 12;

fn id(n: u128) -> Uuid {
    Uuid::from_u128(n)
}

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

fn hm(s: &str) -> NaiveTime {
    parse_time_of_day(s).unwrap()
}

fn day(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

fn rule(n: u128) -> RuleFilter {
    RuleFilter {
        id: id(n),
        order: 0,
        event_type: SPEED,
        is_disabled: false,
        days_of_week: Vec::new(),
        time_of_day: None,
        dates: None,
        time_zone: UTC,
        inside_geofences: Vec::new(),
        outside_geofences: Vec::new(),
    }
}

fn event(occurred_at: &str) -> EventFacts<'static> {
    EventFacts {
        event_type: SPEED,
        event_type_name: "SpeedLimitExceeded",
        occurred_at: at(occurred_at),
        containing_geofences: Some(&[]),
    }
}

/// Whether the single rule matches the event.
fn hits(rule: RuleFilter, event: &EventFacts) -> bool {
    matching_rules(&[rule], event) == [0]
}

#[test]
fn sorted_by_order_then_id() {
    let mut rules = vec![rule(3), rule(2), rule(9), rule(1)];
    rules[0].order = 1;
    rules[1].order = 1;
    rules[2].order = 0;
    rules[3].order = 5;
    // order 0 (id 9), then order 1 with ids 2 before 3, then order 5.
    assert_eq!(
        matching_rules(&rules, &event("2026-01-05T12:00:00Z")),
        [2, 1, 0, 3]
    );
}

#[test]
fn id_ties_follow_the_uuid_text_order() {
    let low: Uuid = "0fffffff-0000-0000-0000-000000000000".parse().unwrap();
    let high: Uuid = "a0000000-0000-0000-0000-000000000000".parse().unwrap();
    let mut rules = vec![rule(0), rule(0)];
    rules[0].id = high;
    rules[1].id = low;
    assert_eq!(
        matching_rules(&rules, &event("2026-01-05T12:00:00Z")),
        [1, 0]
    );
}

#[test]
fn any_rules_match_every_type_and_other_types_do_not() {
    let mut rules = vec![rule(1), rule(2), rule(3)];
    rules[1].event_type = event_type::ANY;
    rules[2].event_type = 10;
    assert_eq!(
        matching_rules(&rules, &event("2026-01-05T12:00:00Z")),
        [0, 1]
    );
    let geofence = EventFacts {
        event_type: 10,
        event_type_name: "GeofenceEntered",
        ..event("2026-01-05T12:00:00Z")
    };
    assert_eq!(matching_rules(&rules, &geofence), [1, 2]);
}

#[test]
fn disabled_rules_never_match() {
    let mut rules = vec![rule(1), rule(2)];
    rules[0].is_disabled = true;
    assert_eq!(matching_rules(&rules, &event("2026-01-05T12:00:00Z")), [1]);
    assert!(matching_rules(&[], &event("2026-01-05T12:00:00Z")).is_empty());
}

#[test]
fn snooze_is_active_before_its_instant_only() {
    let until = at("2026-07-01T00:00:00Z");
    let snoozes = BTreeMap::from([("SpeedLimitExceeded".to_string(), until)]);
    assert!(is_snoozed(
        &snoozes,
        "SpeedLimitExceeded",
        until - Duration::seconds(1)
    ));
    assert!(!is_snoozed(&snoozes, "SpeedLimitExceeded", until));
    assert!(!is_snoozed(
        &snoozes,
        "SpeedLimitExceeded",
        until + Duration::days(1)
    ));
    assert!(!is_snoozed(
        &snoozes,
        "FuelLevelLow",
        until - Duration::days(1)
    ));
    assert!(!is_snoozed(&BTreeMap::new(), "SpeedLimitExceeded", until));
}

#[test]
fn any_key_snoozes_every_type() {
    let until = at("2026-07-01T00:00:00Z");
    let snoozes = BTreeMap::from([
        ("Any".to_string(), until),
        ("FuelLevelLow".to_string(), at("2026-01-01T00:00:00Z")),
    ]);
    let before = until - Duration::minutes(1);
    assert!(is_snoozed(&snoozes, "SpeedLimitExceeded", before));
    assert!(is_snoozed(&snoozes, "FuelLevelLow", before));
    assert!(!is_snoozed(&snoozes, "FuelLevelLow", until));
}

#[test]
fn rules_to_notify_applies_the_snooze() {
    let rules = [rule(1)];
    let snoozes = BTreeMap::from([("SpeedLimitExceeded".to_string(), at("2026-07-01T00:00:00Z"))]);
    assert!(rules_to_notify(&snoozes, &rules, &event("2026-06-30T23:59:59Z")).is_empty());
    assert_eq!(
        rules_to_notify(&snoozes, &rules, &event("2026-07-01T00:00:00Z")),
        [0]
    );
}

#[test]
fn days_of_week_use_the_recipient_zone() {
    // Sunday 2026-03-01 20:00 UTC is Monday 05:00 in Tokyo.
    let instant = "2026-03-01T20:00:00Z";
    assert_eq!(at(instant).weekday(), Weekday::Sun);
    let monday_tokyo = RuleFilter {
        days_of_week: vec![Weekday::Mon],
        time_zone: Tokyo,
        ..rule(1)
    };
    assert!(hits(monday_tokyo.clone(), &event(instant)));
    let monday_utc = RuleFilter {
        time_zone: UTC,
        ..monday_tokyo.clone()
    };
    assert!(!hits(monday_utc, &event(instant)));
    let sunday_tokyo = RuleFilter {
        days_of_week: vec![Weekday::Sun, Weekday::Sat],
        ..monday_tokyo
    };
    assert!(!hits(sunday_tokyo, &event(instant)));
}

#[test]
fn time_window_from_inclusive_to_exclusive() {
    let office = RuleFilter {
        time_of_day: Some((hm("08:00"), hm("17:00"))),
        time_zone: Berlin,
        ..rule(1)
    };
    // January: Berlin is UTC+1.
    assert!(!hits(office.clone(), &event("2026-01-05T06:59:59Z")));
    assert!(hits(office.clone(), &event("2026-01-05T07:00:00Z")));
    assert!(hits(office.clone(), &event("2026-01-05T15:59:59Z")));
    assert!(!hits(office, &event("2026-01-05T16:00:00Z")));
}

#[test]
fn time_window_wraps_past_midnight() {
    let night = RuleFilter {
        time_of_day: Some((hm("22:00"), hm("06:00"))),
        ..rule(1)
    };
    assert!(!hits(night.clone(), &event("2026-01-05T21:59:59Z")));
    assert!(hits(night.clone(), &event("2026-01-05T22:00:00Z")));
    assert!(hits(night.clone(), &event("2026-01-06T00:00:00Z")));
    assert!(hits(night.clone(), &event("2026-01-06T05:59:59Z")));
    assert!(!hits(night.clone(), &event("2026-01-06T06:00:00Z")));
    assert!(!hits(night, &event("2026-01-06T12:00:00Z")));
}

#[test]
fn equal_ends_mean_the_whole_day() {
    let all_day = RuleFilter {
        time_of_day: Some((hm("09:30"), hm("09:30"))),
        ..rule(1)
    };
    for instant in [
        "2026-01-05T00:00:00Z",
        "2026-01-05T09:29:59Z",
        "2026-01-05T09:30:00Z",
        "2026-01-05T23:59:59Z",
    ] {
        assert!(hits(all_day.clone(), &event(instant)), "{instant}");
    }
}

/// The instants of one UTC day, a minute apart, at which the rule matches.
fn matching_minutes(rule: &RuleFilter, day: &str) -> Vec<DateTime<Utc>> {
    let start = at(&format!("{day}T00:00:00Z")) - Duration::hours(3);
    (0..30 * 60)
        .map(|m| start + Duration::minutes(m))
        .filter(|t| {
            let facts = EventFacts {
                occurred_at: *t,
                ..event("2026-01-01T00:00:00Z")
            };
            hits(rule.clone(), &facts)
        })
        .collect()
}

#[test]
fn spring_forward_gap_matches_no_instant() {
    // 2026-03-29 in Berlin: 02:00 CET jumps to 03:00 CEST (at 01:00 UTC).
    let gap = RuleFilter {
        time_of_day: Some((hm("02:00"), hm("03:00"))),
        dates: Some((day("2026-03-29"), day("2026-03-29"))),
        time_zone: Berlin,
        ..rule(1)
    };
    assert!(matching_minutes(&gap, "2026-03-29").is_empty());
    // A window across the gap holds only its real part, 03:00 to 03:30 CEST.
    let across = RuleFilter {
        time_of_day: Some((hm("02:30"), hm("03:30"))),
        ..gap
    };
    let minutes = matching_minutes(&across, "2026-03-29");
    assert_eq!(minutes.len(), 30);
    assert_eq!(minutes[0], at("2026-03-29T01:00:00Z"));
    assert_eq!(minutes[29], at("2026-03-29T01:29:00Z"));
    assert!(!hits(across.clone(), &event("2026-03-29T00:59:59Z")));
}

#[test]
fn fall_back_repeat_matches_both_passes() {
    // 2026-10-25 in Berlin: 03:00 CEST falls back to 02:00 CET (at 01:00 UTC).
    let repeat = RuleFilter {
        time_of_day: Some((hm("02:00"), hm("03:00"))),
        dates: Some((day("2026-10-25"), day("2026-10-25"))),
        time_zone: Berlin,
        ..rule(1)
    };
    assert!(hits(repeat.clone(), &event("2026-10-25T00:30:00Z"))); // 02:30 CEST
    assert!(hits(repeat.clone(), &event("2026-10-25T01:30:00Z"))); // 02:30 CET
    assert!(!hits(repeat.clone(), &event("2026-10-24T23:59:59Z"))); // 01:59:59 CEST
    assert!(!hits(repeat.clone(), &event("2026-10-25T02:00:00Z"))); // 03:00 CET
    let minutes = matching_minutes(&repeat, "2026-10-25");
    assert_eq!(minutes.len(), 120);
    assert_eq!(minutes[0], at("2026-10-25T00:00:00Z"));
    assert_eq!(minutes[119], at("2026-10-25T01:59:00Z"));
}

#[test]
fn dates_are_inclusive_local_days() {
    let range = RuleFilter {
        dates: Some((day("2026-05-01"), day("2026-05-03"))),
        time_zone: Berlin,
        ..rule(1)
    };
    // May: Berlin is UTC+2, so local 2026-05-01 00:00 is 2026-04-30 22:00 UTC.
    let first = Berlin
        .with_ymd_and_hms(2026, 5, 1, 0, 0, 0)
        .unwrap()
        .with_timezone(&Utc);
    assert_eq!(first, at("2026-04-30T22:00:00Z"));
    assert!(!hits(range.clone(), &event("2026-04-30T21:59:59Z")));
    assert!(hits(range.clone(), &event("2026-04-30T22:00:00Z")));
    assert!(hits(range.clone(), &event("2026-05-03T21:59:59Z")));
    assert!(!hits(range.clone(), &event("2026-05-03T22:00:00Z")));
    let inverted = RuleFilter {
        dates: Some((day("2026-05-03"), day("2026-05-01"))),
        ..range
    };
    assert!(!hits(inverted, &event("2026-05-02T12:00:00Z")));
}

/// Whether the rule matches an event at a position inside `containing` (None: unknown position).
fn hits_where(rule: &RuleFilter, containing: Option<&[Uuid]>) -> bool {
    let facts = EventFacts {
        containing_geofences: containing,
        ..event("2026-01-05T12:00:00Z")
    };
    hits(rule.clone(), &facts)
}

#[test]
fn inside_geofences_need_one_of_them() {
    let depot = RuleFilter {
        inside_geofences: vec![id(100), id(101)],
        ..rule(1)
    };
    assert!(hits_where(&depot, Some(&[id(7), id(101)])));
    assert!(!hits_where(&depot, Some(&[id(7)])));
    assert!(!hits_where(&depot, Some(&[])));
    assert!(!hits_where(&depot, None));
}

#[test]
fn outside_geofences_need_all_of_them_outside() {
    let away = RuleFilter {
        outside_geofences: vec![id(100), id(101)],
        ..rule(1)
    };
    assert!(hits_where(&away, Some(&[])));
    assert!(hits_where(&away, Some(&[id(7)])));
    assert!(!hits_where(&away, Some(&[id(7), id(100)])));
    assert!(!hits_where(&away, None));
}

#[test]
fn both_geofence_lists_must_hold_and_no_filter_ignores_position() {
    let both = RuleFilter {
        inside_geofences: vec![id(100)],
        outside_geofences: vec![id(200)],
        ..rule(1)
    };
    assert!(hits_where(&both, Some(&[id(100)])));
    assert!(!hits_where(&both, Some(&[id(100), id(200)])));
    assert!(!hits_where(&both, Some(&[id(200)])));
    assert!(hits_where(&rule(1), None));
}

#[test]
fn time_of_day_parsing_follows_the_spec_pattern() {
    assert_eq!(parse_time_of_day("00:00"), NaiveTime::from_hms_opt(0, 0, 0));
    assert_eq!(
        parse_time_of_day("23:59"),
        NaiveTime::from_hms_opt(23, 59, 0)
    );
    assert_eq!(parse_time_of_day("07:05"), NaiveTime::from_hms_opt(7, 5, 0));
    for bad in [
        "24:00", "7:05", "07:5", "07:60", "0705", "07:05:00", "+7:05", "07-05", "", "ab:cd",
        " 07:05",
    ] {
        assert_eq!(parse_time_of_day(bad), None, "{bad}");
    }
}
