//! Each channel against its stand-in, over real sockets on 127.0.0.1.
#![cfg(feature = "testing")]

mod email;
mod telegram;
mod twilio;
mod webhook;

use asset_alerting_channels::{Address, OutgoingMessage};

fn message(key: &str, to: Address) -> OutgoingMessage {
    OutgoingMessage {
        idempotency_key: key.to_owned(),
        to,
        subject: "Truck 1 left Depot".to_owned(),
        text: "Truck 1 left the geofence Depot at 10:42.".to_owned(),
        spoken_text: String::new(),
    }
}
