//! Geofences and country borders through the detector.

use uuid::Uuid;

use crate::testkit::{Run, at, p, rect, t, zone};
use crate::{Config, DetectedEvent, EventType, Point, Polygon};

fn is_place(event_type: EventType) -> bool {
    matches!(
        event_type,
        EventType::GeofenceEntered | EventType::GeofenceExited | EventType::CountryBorderCrossed
    )
}

/// The place events the point raises (moving around also raises MovementStarted).
fn place_events(run: &mut Run, point: Point) -> Vec<DetectedEvent> {
    let mut events = run.events(point);
    events.retain(|e| is_place(e.event_type));
    events
}

fn feed(run: &mut Run, point: Point) -> Vec<EventType> {
    place_events(run, point)
        .iter()
        .map(|e| e.event_type)
        .collect()
}

mod geofences {
    use super::*;

    fn depot() -> Polygon {
        rect(13.0, 52.0, 13.1, 52.1)
    }

    #[test]
    fn enter_stay_exit_and_reenter() {
        let mut run = Run::new();
        run.zones = vec![zone(1, depot())];
        assert_eq!(feed(&mut run, at(0, 51.9, 13.05)), vec![]);
        let events = place_events(&mut run, at(10, 52.05, 13.05));
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event_type, EventType::GeofenceEntered);
        assert_eq!(events[0].details.geofence_id, Some(Uuid::from_u128(1)));
        assert_eq!(events[0].latitude, Some(52.05));
        assert_eq!(events[0].longitude, Some(13.05));
        assert_eq!(
            feed(&mut run, at(20, 52.06, 13.06)),
            vec![],
            "no repeat inside"
        );
        assert_eq!(run.state.inside_zones(), vec![Uuid::from_u128(1)]);
        assert_eq!(
            run.state.inside_zones_since(),
            vec![(Uuid::from_u128(1), t(10))]
        );
        assert_eq!(
            feed(&mut run, at(30, 52.2, 13.05)),
            vec![EventType::GeofenceExited]
        );
        assert_eq!(
            feed(&mut run, at(40, 52.3, 13.05)),
            vec![],
            "no repeat outside"
        );
        assert!(run.state.inside_zones().is_empty());
        assert_eq!(
            feed(&mut run, at(50, 52.05, 13.05)),
            vec![EventType::GeofenceEntered]
        );
    }

    #[test]
    fn a_point_on_the_edge_is_inside() {
        let mut run = Run::new();
        run.zones = vec![zone(1, depot())];
        feed(&mut run, at(0, 51.9, 13.05));
        assert_eq!(
            feed(&mut run, at(10, 52.0, 13.05)),
            vec![EventType::GeofenceEntered],
            "edge"
        );
        assert_eq!(feed(&mut run, at(20, 52.1, 13.1)), vec![], "vertex");
        assert_eq!(
            feed(&mut run, at(30, 52.1 + 1e-6, 13.1)),
            vec![EventType::GeofenceExited]
        );
    }

    #[test]
    fn first_point_inside_enters() {
        let mut run = Run::new();
        run.zones = vec![zone(1, depot())];
        assert_eq!(
            feed(&mut run, at(0, 52.05, 13.05)),
            vec![EventType::GeofenceEntered]
        );
    }

    #[test]
    fn zones_can_change_between_calls() {
        let mut run = Run::new();
        run.zones = vec![zone(1, depot())];
        assert_eq!(
            feed(&mut run, at(0, 52.05, 13.05)),
            vec![EventType::GeofenceEntered]
        );
        // Zone 1 removed: forgotten without an event.
        run.zones = vec![];
        assert_eq!(feed(&mut run, at(10, 52.05, 13.05)), vec![]);
        assert!(run.state.inside_zones().is_empty());
        // Zones 1 and 2 (new): the asset is already inside both.
        run.zones = vec![zone(2, depot()), zone(1, depot())];
        let events = place_events(&mut run, at(20, 52.05, 13.05));
        let ids: Vec<_> = events
            .iter()
            .map(|e| e.details.geofence_id.unwrap())
            .collect();
        assert_eq!(
            ids,
            vec![Uuid::from_u128(1), Uuid::from_u128(2)],
            "sorted by id"
        );
        assert!(
            events
                .iter()
                .all(|e| e.event_type == EventType::GeofenceEntered)
        );
        // A removed zone raises no exit even when the asset leaves.
        run.zones = vec![zone(2, depot())];
        assert_eq!(
            feed(&mut run, at(30, 50.0, 13.05)),
            vec![EventType::GeofenceExited]
        );
        assert!(run.state.inside_zones().is_empty());
    }

    #[test]
    fn missing_position_keeps_the_state() {
        let mut run = Run::new();
        run.zones = vec![zone(1, depot())];
        feed(&mut run, at(0, 52.05, 13.05));
        assert_eq!(feed(&mut run, p(10)), vec![]);
        assert_eq!(feed(&mut run, at(20, 0.0, 0.0)), vec![], "(0, 0) is no fix");
        assert_eq!(feed(&mut run, at(30, f64::NAN, 13.0)), vec![]);
        assert_eq!(run.state.inside_zones(), vec![Uuid::from_u128(1)]);
        assert_eq!(run.state.last_point().unwrap().latitude, Some(52.05));
    }

    #[test]
    fn exits_and_entries_in_one_point() {
        let mut run = Run::new();
        run.zones = vec![
            zone(1, rect(0.5, 0.5, 1.0, 1.0)),
            zone(2, rect(2.0, 2.0, 3.0, 3.0)),
        ];
        feed(&mut run, at(0, 0.7, 0.7));
        let events = feed(&mut run, at(10, 2.5, 2.5));
        assert_eq!(
            events,
            vec![EventType::GeofenceEntered, EventType::GeofenceExited]
        );
    }

    #[test]
    fn hole_and_concave_shapes() {
        let mut run = Run::new();
        let with_hole = Polygon {
            rings: vec![
                rect(10.0, 50.0, 11.0, 51.0).rings.remove(0),
                rect(10.4, 50.4, 10.6, 50.6).rings.remove(0),
            ],
        };
        run.zones = vec![zone(1, with_hole)];
        assert_eq!(feed(&mut run, at(0, 50.5, 10.5)), vec![], "in the hole");
        assert_eq!(
            feed(&mut run, at(10, 50.5, 10.3)),
            vec![EventType::GeofenceEntered]
        );
        assert_eq!(
            feed(&mut run, at(20, 50.5, 10.5)),
            vec![EventType::GeofenceExited]
        );
        assert_eq!(
            feed(&mut run, at(30, 50.4, 10.5)),
            vec![EventType::GeofenceEntered],
            "hole edge"
        );
    }

    #[test]
    fn late_points_change_nothing() {
        let mut run = Run::new();
        run.zones = vec![zone(1, depot())];
        feed(&mut run, at(100, 51.0, 13.05));
        assert_eq!(feed(&mut run, at(50, 52.05, 13.05)), vec![]);
        assert!(run.state.inside_zones().is_empty());
        assert_eq!(
            feed(&mut run, at(110, 52.05, 13.05)),
            vec![EventType::GeofenceEntered]
        );
    }
}

mod countries {
    use super::*;

    fn new_run() -> Run {
        Run::with_config(Config::default())
    }

    #[test]
    fn germany_to_france() {
        let mut run = new_run();
        assert_eq!(
            feed(&mut run, at(0, 48.5, 8.0)),
            vec![],
            "first country: no event"
        );
        assert_eq!(run.state.country(), Some("DE"));
        assert_eq!(feed(&mut run, at(10, 48.6, 8.1)), vec![], "still DE");
        let events = place_events(&mut run, at(20, 48.58, 7.75));
        assert_eq!(events.len(), 1, "Strasbourg: {events:?}");
        assert_eq!(events[0].event_type, EventType::CountryBorderCrossed);
        assert_eq!(events[0].details.from_country.as_deref(), Some("DE"));
        assert_eq!(events[0].details.to_country.as_deref(), Some("FR"));
        assert_eq!(run.state.country(), Some("FR"));
        assert_eq!(
            feed(&mut run, at(30, 48.8566, 2.3522)),
            vec![],
            "Paris: still FR"
        );
        let events = place_events(&mut run, at(40, 48.5, 8.0));
        assert_eq!(events[0].details.from_country.as_deref(), Some("FR"));
        assert_eq!(events[0].details.to_country.as_deref(), Some("DE"));
    }

    #[test]
    fn the_sea_keeps_the_last_country() {
        let mut run = new_run();
        feed(&mut run, at(0, 54.3, 10.1)); // Kiel, DE
        assert_eq!(feed(&mut run, at(10, 55.0, 3.0)), vec![], "North Sea");
        assert_eq!(run.state.country(), Some("DE"));
        let events = place_events(&mut run, at(20, 55.68, 12.57)); // Copenhagen
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].details.from_country.as_deref(), Some("DE"));
        assert_eq!(events[0].details.to_country.as_deref(), Some("DK"));
    }

    #[test]
    fn first_point_at_sea_then_land() {
        let mut run = new_run();
        assert_eq!(feed(&mut run, at(0, 55.0, 3.0)), vec![]);
        assert_eq!(run.state.country(), None);
        assert_eq!(
            feed(&mut run, at(10, 52.37, 4.9)),
            vec![],
            "Amsterdam: first known country"
        );
        assert_eq!(run.state.country(), Some("NL"));
    }

    #[test]
    fn lookup_can_be_switched_off() {
        let mut run = Run::new();
        feed(&mut run, at(0, 48.5, 8.0));
        assert_eq!(feed(&mut run, at(10, 48.58, 7.75)), vec![]);
        assert_eq!(run.state.country(), None);
    }

    #[test]
    fn late_points_change_nothing() {
        let mut run = new_run();
        feed(&mut run, at(100, 48.5, 8.0));
        assert_eq!(feed(&mut run, at(50, 48.58, 7.75)), vec![]);
        assert_eq!(run.state.country(), Some("DE"));
    }
}
