//! Domain rules beyond what the schema states (the spec's "Design decisions"). Each returns the
//! message of a 400, naming the field.

mod address;
mod polygon;

pub use address::email_address;
pub use polygon::{MAX_POSITIONS, polygon};

use asset_alerting_models::{AlertRuleInput, ChannelType};
use std::str::FromStr;

/// The recipient's time zone exists, the channel carries exactly the sub-object its type names, and
/// the schedule is coherent.
pub fn alert_rule(input: &AlertRuleInput) -> Result<(), String> {
    let tz = &input.recipient.time_zone;
    if chrono_tz::Tz::from_str(tz).is_err() {
        return Err(format!(
            "recipient.timeZone: `{tz}` is not an IANA time zone (for example `Europe/Berlin`)"
        ));
    }
    let channel = &input.channel;
    let present = [
        (ChannelType::Call, channel.call.is_some()),
        (ChannelType::Sms, channel.sms.is_some()),
        (ChannelType::Telegram, channel.telegram.is_some()),
        (ChannelType::Email, channel.email.is_some()),
    ];
    if present
        .iter()
        .any(|(kind, is_present)| *kind == channel.r#type && !is_present)
    {
        return Err(format!(
            "channel.{0}: required when channel.type is `{0}`",
            channel.r#type
        ));
    }
    if let Some((extra, _)) = present
        .iter()
        .find(|(kind, is_present)| *kind != channel.r#type && *is_present)
    {
        return Err(format!(
            "channel.{extra}: not allowed when channel.type is `{}`",
            channel.r#type
        ));
    }
    if let Some(email) = &channel.email {
        email_address("channel.email.emailAddress", &email.email_address)?;
    }
    if matches!(channel.r#type, ChannelType::Call | ChannelType::Sms)
        && input.recipient.phone_number.is_none()
    {
        return Err(format!(
            "recipient.phoneNumber: required for a `{}` channel",
            channel.r#type
        ));
    }
    if let Some(dates) = &input.dates
        && dates.from > dates.to
    {
        return Err(format!(
            "dates: `from` ({}) is after `to` ({})",
            dates.from, dates.to
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use asset_alerting_models::{GeoJsonPolygon, GeoJsonPolygonType};
    use serde_json::json;

    fn square() -> Vec<Vec<f64>> {
        vec![
            vec![13.0, 52.0],
            vec![13.1, 52.0],
            vec![13.1, 52.1],
            vec![13.0, 52.0],
        ]
    }

    #[test]
    fn polygons() {
        let ok = GeoJsonPolygon {
            r#type: GeoJsonPolygonType::Polygon,
            coordinates: vec![square()],
        };
        assert_eq!(polygon(&ok), Ok(()));
        let mut open = ok.clone();
        open.coordinates[0][3] = vec![13.0, 52.05];
        assert!(polygon(&open).unwrap_err().contains("not closed"));
        let mut far = ok.clone();
        far.coordinates[0][1] = vec![200.0, 52.0];
        assert!(polygon(&far).unwrap_err().contains("longitude 200"));
        let mut three = ok;
        three.coordinates[0] = vec![vec![0.0, 0.0], vec![1.0, 0.0], vec![0.0, 0.0]];
        assert!(polygon(&three).unwrap_err().contains("at least 4"));
    }

    #[test]
    fn rules() {
        let base = json!({
            "eventType": 12,
            "recipient": {"culture": "en-US", "timeZone": "Europe/Berlin", "phoneNumber": "+4915112345678"},
            "channel": {"type": "sms", "sms": {"isInteractive": false}}
        });
        let parse = |v: serde_json::Value| serde_json::from_value::<AlertRuleInput>(v).unwrap();
        assert_eq!(alert_rule(&parse(base.clone())), Ok(()));
        let mut tz = base.clone();
        tz["recipient"]["timeZone"] = json!("Mars/Olympus");
        assert!(alert_rule(&parse(tz)).unwrap_err().contains("timeZone"));
        let mut wrong = base.clone();
        wrong["channel"] = json!({"type": "email", "sms": {}});
        assert!(
            alert_rule(&parse(wrong))
                .unwrap_err()
                .contains("channel.email: required")
        );
        let mut extra = base.clone();
        extra["channel"]["call"] = json!({});
        assert!(
            alert_rule(&parse(extra))
                .unwrap_err()
                .contains("channel.call: not allowed")
        );
        let mut no_phone = base.clone();
        no_phone["recipient"]
            .as_object_mut()
            .unwrap()
            .remove("phoneNumber");
        assert!(
            alert_rule(&parse(no_phone))
                .unwrap_err()
                .contains("phoneNumber")
        );
        let mut dates = base;
        dates["dates"] = json!({"from": "2026-02-01", "to": "2026-01-01"});
        assert!(alert_rule(&parse(dates)).unwrap_err().contains("after"));
    }
}
