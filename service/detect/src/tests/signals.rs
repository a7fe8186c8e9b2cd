//! Device flags: true starts, false ends, absent changes nothing.

use crate::testkit::{Run, p, t};
use crate::{EventType, Point, Signals};

/// Sets one flag of a point's signals.
type SetFlag = fn(&mut Signals, bool);

const FLAGS: [(EventType, SetFlag); 7] = [
    (EventType::AlarmTriggered, |s, v| s.alarm = Some(v)),
    (EventType::Tampering, |s, v| s.tampering = Some(v)),
    (EventType::Jammed, |s, v| s.jamming = Some(v)),
    (EventType::AccidentOccurred, |s, v| s.accident = Some(v)),
    (EventType::HardCornering, |s, v| s.hard_cornering = Some(v)),
    (EventType::LockdownViolated, |s, v| {
        s.lockdown_violation = Some(v)
    }),
    (EventType::AssetLeftBehind, |s, v| s.left_behind = Some(v)),
];

fn flagged(secs: i64, set: SetFlag, value: bool) -> Point {
    let mut point = p(secs);
    set(&mut point.signals, value);
    point
}

#[test]
fn each_flag_starts_once_ends_and_restarts() {
    for (event, set) in FLAGS {
        let mut run = Run::new();
        let events = run.events(flagged(0, set, true));
        assert_eq!(events.len(), 1, "{event:?}");
        assert_eq!(events[0].event_type, event);
        assert_eq!(events[0].occurred_at, t(0));
        assert_eq!(events[0].details.episode_started_at, Some(t(0)));
        assert_eq!(
            run.feed(flagged(10, set, true)),
            vec![],
            "{event:?}: no repeat"
        );
        assert_eq!(run.feed(p(20)), vec![], "{event:?}: absent keeps it open");
        assert_eq!(
            run.feed(flagged(30, set, true)),
            vec![],
            "{event:?}: still open"
        );
        assert_eq!(run.state.open_episodes(), vec![(event, t(0))]);
        assert_eq!(
            run.feed(flagged(40, set, false)),
            vec![],
            "{event:?}: the end"
        );
        assert_eq!(run.state.open_episodes(), vec![]);
        assert_eq!(run.feed(p(50)), vec![]);
        assert_eq!(
            run.feed(flagged(60, set, true)),
            vec![event],
            "{event:?}: restart"
        );
    }
}

#[test]
fn each_flag_ignores_late_points() {
    for (event, set) in FLAGS {
        let mut run = Run::new();
        run.feed(flagged(100, set, false));
        assert_eq!(run.feed(flagged(90, set, true)), vec![], "{event:?}");
        assert_eq!(
            run.feed(flagged(100, set, true)),
            vec![],
            "{event:?}: same timestamp"
        );
        assert_eq!(run.state.open_episodes(), vec![]);
        assert_eq!(run.feed(flagged(101, set, true)), vec![event]);
    }
}

#[test]
fn flags_are_independent_and_ordered_by_code() {
    let mut run = Run::new();
    let mut point = p(0);
    for (_, set) in FLAGS {
        set(&mut point.signals, true);
    }
    let events = run.feed(point);
    let mut expected: Vec<EventType> = FLAGS.iter().map(|f| f.0).collect();
    expected.sort();
    assert_eq!(events, expected);
    // Ending one leaves the others open.
    assert_eq!(run.feed(flagged(10, FLAGS[0].1, false)), vec![]);
    assert_eq!(run.state.open_episodes().len(), FLAGS.len() - 1);
    assert_eq!(run.feed(flagged(20, FLAGS[0].1, true)), vec![FLAGS[0].0]);
}
