//! The real binary killed with SIGKILL while Teltonika devices send their records over TCP, then
//! restarted on the same database and port: the devices reconnect and send again what was not
//! acknowledged, as real devices do. Every record is stored once: none acknowledged is lost, and
//! a record stored but not acknowledged (the kill between storage and acknowledgement) comes back
//! as a duplicate, not a second event.

#![cfg(unix)]

use crate::support;

use asset_alerting_client::models::*;
use chrono::{Duration, Utc};
use std::time::Duration as Wait;
use support::process::{free_port, kill9, root_client, spawn, wait_ready};
use support::{asset_input, count_events};
use tracker_simulator::teltonika::{Codec, Device, Io, Record, packet};
use uuid::Uuid;

const DEVICES: usize = 4;
const PACKETS: u64 = 150;
const RECORDS: u64 = 10;

/// Packet `p` of a device: 10 records a second apart, the alarm toggling, so each packet opens 5
/// alarm episodes.
fn packet_of(start: u64, p: u64) -> Vec<u8> {
    let records: Vec<Record> = (0..RECORDS)
        .map(|i| {
            let n = p * RECORDS + i;
            Record::at(start + n * 1000, 48.57, 7.82, 0)
                .with(236, Io::U8(u8::from(n.is_multiple_of(2))))
        })
        .collect();
    packet(Codec::EightExtended, &records)
}

/// Sends every packet in order, each until it is acknowledged, reconnecting while the service is
/// down; returns how many packets it had to send more than once.
async fn device(address: String, imei: String, start: u64) -> u32 {
    let mut resent = 0;
    let mut next = 0;
    let mut tries_of_next = 0;
    while next < PACKETS {
        let Ok(mut device) = Device::connect(&address).await else {
            tokio::time::sleep(Wait::from_millis(50)).await;
            continue;
        };
        if !matches!(device.handshake(&imei).await, Ok(true)) {
            tokio::time::sleep(Wait::from_millis(50)).await;
            continue;
        }
        while next < PACKETS {
            tries_of_next += 1;
            if tries_of_next == 2 {
                resent += 1;
            }
            match device
                .send(&packet_of(start, next), Wait::from_secs(10))
                .await
            {
                Ok(Some(n)) => {
                    assert_eq!(u64::from(n), RECORDS);
                    next += 1;
                    tries_of_next = 0;
                }
                // Killed: connect again and send the packet again.
                _ => break,
            }
        }
    }
    resent
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_between_storage_and_acknowledgement_loses_and_doubles_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("service.db");
    let root = Uuid::new_v4();
    let port = free_port();
    let teltonika = format!("127.0.0.1:{}", free_port());
    let args = ["--teltonika-listen".to_owned(), teltonika.clone()];
    let base = format!("http://127.0.0.1:{port}");
    let mut service = spawn(&db, port, root, &args);
    wait_ready(&base).await;
    let admin = root_client(&base, root);
    let mut assets = Vec::new();
    for d in 0..DEVICES {
        let mut input = asset_input(&format!("truck-{d}"));
        input.device_id = Some(format!("35630704244{d:04}"));
        assets.push(admin.create_asset(root, input).send().await.unwrap());
    }
    let start = (Utc::now() - Duration::days(3)).timestamp_millis() as u64;
    let devices: Vec<_> = assets
        .iter()
        .map(|a| {
            let imei = a.device_id.clone().unwrap();
            tokio::spawn(device(teltonika.clone(), imei, start))
        })
        .collect();

    // Killed while every device is mid-run, then started again on the same database and ports.
    tokio::time::sleep(Wait::from_millis(800)).await;
    kill9(&mut service);
    let mut again = spawn(&db, port, root, &args);
    wait_ready(&base).await;
    let mut resent = 0;
    for device in devices {
        resent += tokio::time::timeout(Wait::from_secs(120), device)
            .await
            .expect("the devices finish within 2 minutes")
            .unwrap();
    }
    assert!(
        resent >= DEVICES as u32,
        "each device had a packet in flight at the kill: {resent}"
    );

    // Exactly one alarm event per episode of every device.
    let admin = root_client(&base, root);
    for asset in &assets {
        let events = count_events(&admin, root, asset.id, EventType::AlarmTriggered).await;
        assert_eq!(
            events as u64,
            PACKETS * RECORDS / 2,
            "alarm events of {}",
            asset.external_id
        );
        let state = admin.get_asset_state(root, asset.id).send().await.unwrap();
        let last = start + (PACKETS * RECORDS - 1) * 1000;
        assert_eq!(
            state.last_report_at.map(|t| t.timestamp_millis() as u64),
            Some(last)
        );
    }
    kill9(&mut again);
}
