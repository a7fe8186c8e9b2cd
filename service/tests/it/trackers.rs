//! Trackers reporting directly: assets' deviceId, a Teltonika device over TCP and an OsmAnd
//! client over HTTP against the whole service on 127.0.0.1. The devices are the simulator's,
//! which writes the protocols from their documentation, not from the service's decoders.

use crate::support;

use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use chrono::{DateTime, Duration, Utc};
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration as Wait;
use support::drive::{DRIVE, create_depot};
use support::*;
use tracker_simulator::osmand;
use tracker_simulator::teltonika::{Codec, Device, Io, Record, packet};
use uuid::Uuid;

const IMEI: &str = "356307042441013";
const WAIT: Wait = Wait::from_secs(10);

/// A service with both listeners on free ports of 127.0.0.1.
async fn started_with_trackers() -> (tempfile::TempDir, TestService) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&dir, Uuid::new_v4());
    config.teltonika_listen = Some("127.0.0.1:0".parse().unwrap());
    config.osmand_listen = Some("127.0.0.1:0".parse().unwrap());
    let service = TestService::start(config).await;
    (dir, service)
}

async fn create_tracked(client: &Client, account: Uuid, external: &str, device: &str) -> Asset {
    let mut input = asset_input(external);
    input.device_id = Some(device.to_owned());
    client.create_asset(account, input).send().await.unwrap()
}

async fn events_of(client: &Client, account: Uuid, asset: Uuid) -> Vec<Event> {
    let mut events = client
        .list_events(account)
        .asset_id(asset)
        .take(500)
        .send()
        .await
        .unwrap();
    events.reverse();
    events
}

#[tokio::test]
async fn a_device_id_is_unique_among_live_assets_of_the_whole_service() {
    let (_dir, service) = started().await;
    let admin = service.root_client();
    let (tenant_a, a) = child(&service, &admin, service.root, "tenant-a").await;
    let (tenant_b, b) = child(&service, &admin, service.root, "tenant-b").await;

    let truck = create_tracked(&a, tenant_a, "truck", IMEI).await;
    assert_eq!(truck.device_id.as_deref(), Some(IMEI));
    // Another tenant cannot take it, and is not told whose it is.
    let mut input = asset_input("van");
    input.device_id = Some(IMEI.to_owned());
    let clash = b.create_asset(tenant_b, input.clone()).send().await;
    let (status, code) = code_of(clash);
    assert_eq!((status, code), (409, 1500));
    // Nor through an update.
    let van = b
        .create_asset(tenant_b, asset_input("van"))
        .send()
        .await
        .unwrap();
    let (status, _) = code_of(b.update_asset(tenant_b, van.id, input.clone()).send().await);
    assert_eq!(status, 409);
    // Not a visible character string: 400.
    let mut bad = asset_input("bad");
    bad.device_id = Some("with space".to_owned());
    assert_eq!(code_of(a.create_asset(tenant_a, bad).send().await).0, 400);

    // The filter finds it, in its own account only.
    let found = a
        .list_assets(tenant_a)
        .device_id(IMEI)
        .send()
        .await
        .unwrap();
    assert_eq!(found.iter().map(|x| x.id).collect::<Vec<_>>(), [truck.id]);
    assert!(
        b.list_assets(tenant_b)
            .device_id(IMEI)
            .send()
            .await
            .unwrap()
            .is_empty()
    );

    // Deleting the asset frees the device id; an update without it removes it.
    a.delete_asset(tenant_a, truck.id).send().await.unwrap();
    let moved = b
        .update_asset(tenant_b, van.id, input)
        .send()
        .await
        .unwrap();
    assert_eq!(moved.device_id.as_deref(), Some(IMEI));
    let cleared = b
        .update_asset(tenant_b, van.id, asset_input("van"))
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.device_id, None);
    service.stop().await;
}

#[tokio::test]
async fn a_teltonika_device_is_acknowledged_once_its_records_are_stored() {
    let (_dir, service) = started_with_trackers().await;
    let admin = service.root_client();
    let truck = create_tracked(&admin, service.root, "truck", IMEI).await;
    let address = service.teltonika.unwrap();

    // An IMEI that is no asset's deviceId is refused.
    let mut stranger = Device::connect(address).await.unwrap();
    assert!(!stranger.handshake("111111111111111").await.unwrap());

    // An operator watching the account's events live.
    let mut live = admin
        .stream_events(service.root)
        .send_stream()
        .await
        .unwrap();
    let mut device = Device::connect(address).await.unwrap();
    assert!(device.handshake(IMEI).await.unwrap());
    let start = (Utc::now() - Duration::minutes(10)).timestamp_millis() as u64;
    let records = [
        Record::at(start, 54.6872, 25.2797, 0).with(239, Io::U8(0)),
        Record::at(start + 1000, 54.6872, 25.2797, 0).with(239, Io::U8(1)),
    ];
    let first = packet(Codec::EightExtended, &records);
    assert_eq!(device.send(&first, WAIT).await.unwrap(), Some(2));
    let kinds = |events: Vec<Event>| -> Vec<EventType> {
        events.into_iter().map(|e| e.event_type).collect()
    };
    let events = events_of(&admin, service.root, truck.id).await;
    // The first record sets what is known; the second turns the ignition on.
    assert_eq!(kinds(events.clone()), [EventType::IgnitionTurnedOn]);
    // The event reaches the open stream too.
    let streamed = tokio::time::timeout(WAIT, live.next())
        .await
        .expect("the event arrives on the stream")
        .expect("the stream is open")
        .expect("the event decodes");
    assert_eq!(streamed.data.id, events[0].id);
    assert_eq!(
        events[0].occurred_at.timestamp_millis() as u64,
        start + 1000
    );

    // The same packet again, as a device sends it when the acknowledgement was lost: acknowledged,
    // and nothing is doubled.
    assert_eq!(device.send(&first, WAIT).await.unwrap(), Some(2));
    assert_eq!(events_of(&admin, service.root, truck.id).await.len(), 1);

    // A record older than the cutoff is acknowledged (else the device sends it forever) and
    // stored nowhere; the other record of the packet is.
    let old = (Utc::now() - Duration::days(8)).timestamp_millis() as u64;
    let mixed = packet(
        Codec::Eight,
        &[
            Record::at(old, 54.6872, 25.2797, 0).with(239, Io::U8(1)),
            Record::at(start + 2000, 54.6872, 25.2797, 0).with(239, Io::U8(0)),
        ],
    );
    assert_eq!(device.send(&mixed, WAIT).await.unwrap(), Some(2));
    let events = events_of(&admin, service.root, truck.id).await;
    assert_eq!(
        kinds(events.clone()),
        [EventType::IgnitionTurnedOn, EventType::IgnitionTurnedOff]
    );
    assert_eq!(
        events[1].occurred_at.timestamp_millis() as u64,
        start + 2000
    );

    // A packet whose CRC does not match is not acknowledged and closes the connection.
    let mut corrupt = packet(
        Codec::EightExtended,
        &[Record::at(start + 3000, 54.6872, 25.2797, 0).with(239, Io::U8(1))],
    );
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0xFF;
    assert_eq!(device.send(&corrupt, WAIT).await.unwrap(), None);
    assert_eq!(events_of(&admin, service.root, truck.id).await.len(), 2);

    // The counters are in /metrics.
    let metrics = reqwest::get(format!("{}/metrics", service.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let value = |line: &str| -> u64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(line)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("no `{line}` in /metrics:\n{metrics}"))
    };
    assert!(value("teltonika_records_total") >= 6);
    assert!(value("teltonika_rejected_records_total") >= 1);
    assert!(value("teltonika_closed_total{reason=\"bad_crc\"}") >= 1);
    assert!(value("teltonika_closed_total{reason=\"unknown_imei\"}") >= 1);
    service.stop().await;
}

/// Firmware that writes a record's total IO count wrong is in the field; the CRC still matches. The
/// record is stored as its IO groups read, the packet acknowledged, and the miscount counted.
#[tokio::test]
async fn a_teltonika_record_whose_io_count_disagrees_is_stored_and_counted() {
    let (_dir, service) = started_with_trackers().await;
    let admin = service.root_client();
    let truck = create_tracked(&admin, service.root, "truck", IMEI).await;
    let mut device = Device::connect(service.teltonika.unwrap()).await.unwrap();
    assert!(device.handshake(IMEI).await.unwrap());
    let at = DateTime::from_timestamp(Utc::now().timestamp() - 60, 0).unwrap();
    let record = Record::at(at.timestamp_millis() as u64, 54.6872, 25.2797, 40)
        .with(239, Io::U8(1))
        .with(66, Io::U16(24_100));
    // Codec 8's total IO count is data byte 27 (after the codec id, the record count, the
    // timestamp, the priority, the GPS element and the event id): 2 elements, said to be 3.
    let mut bytes = packet(Codec::Eight, &[record]);
    bytes[8 + 27] = 3;
    let end = bytes.len() - 4;
    let crc = tracker_simulator::teltonika::crc16(&bytes[8..end]);
    bytes[end..].copy_from_slice(&u32::from(crc).to_be_bytes());

    assert_eq!(device.send(&bytes, WAIT).await.unwrap(), Some(1));
    let state = admin
        .get_asset_state(service.root, truck.id)
        .send()
        .await
        .unwrap();
    assert_eq!(state.last_report_at, Some(at));
    let position = state.position.expect("a position");
    assert_eq!((position.latitude, position.longitude), (54.6872, 25.2797));
    assert_eq!(
        (state.ignition, state.input_voltage),
        (Some(true), Some(24.1))
    );

    let metrics = reqwest::get(format!("{}/metrics", service.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mismatches = metrics
        .lines()
        .find_map(|l| {
            l.strip_prefix("teltonika_io_count_mismatch_total")?
                .trim()
                .parse::<u64>()
                .ok()
        })
        .unwrap_or_else(|| panic!("no teltonika_io_count_mismatch_total in /metrics:\n{metrics}"));
    assert!(mismatches >= 1);

    // A time no date holds (all bits set, as unwritten memory reads; the largest i64) is
    // rejected as too old or in the future, and acknowledged; the asset's state stays.
    for millis in [u64::MAX, i64::MAX as u64] {
        let odd = packet(Codec::Eight, &[Record::at(millis, 1.0, 2.0, 0)]);
        assert_eq!(device.send(&odd, WAIT).await.unwrap(), Some(1));
    }
    let state = admin
        .get_asset_state(service.root, truck.id)
        .send()
        .await
        .unwrap();
    assert_eq!(state.last_report_at, Some(at));
    service.stop().await;
}

/// `drive.rs`'s drive, sent by a Teltonika device in Codec 8 Extended, with the IO elements a
/// real device adds on the way: harsh cornering, a jamming episode, the panic button, a crash.
#[tokio::test]
async fn a_drive_over_teltonika_yields_exactly_the_expected_events() {
    let (_dir, service) = started_with_trackers().await;
    let admin = service.root_client();
    let account = service.root;
    let mut input = asset_input("truck-1");
    input.device_id = Some(IMEI.to_owned());
    input.telemetry_rules = Some(TelemetryRules {
        speed_limit: Some(90),
        ..empty_rules()
    });
    let truck = admin.create_asset(account, input).send().await.unwrap();
    let depot = create_depot(&admin, account).await;
    let start = DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    let at = |t: i64| (start + Duration::seconds(t)).timestamp_millis() as u64;
    let mut records: Vec<Record> = DRIVE
        .iter()
        .map(|&(t, lon, lat, speed, ignition)| {
            Record::at(at(t), lat, lon, speed as u16)
                .with(239, Io::U8(u8::from(ignition)))
                .with(66, Io::U16(24_100))
        })
        .collect();
    // Between the drive's points: harsh cornering (green driving type 3) and its end, jamming on
    // and off, the panic button, a crash.
    let extra = [
        (230, 7.8100, 48.5770, 70, 253, Io::U8(3)),
        (235, 7.8100, 48.5770, 70, 253, Io::U8(1)),
        (420, 7.7450, 48.5820, 0, 249, Io::U8(1)),
        (430, 7.7450, 48.5820, 0, 249, Io::U8(0)),
        (500, 7.7450, 48.5820, 0, 236, Io::U8(1)),
        (505, 7.7450, 48.5820, 0, 247, Io::U8(1)),
    ];
    for (t, lon, lat, speed, id, value) in extra {
        records.push(
            Record::at(at(t), lat, lon, speed)
                .with(239, Io::U8(1))
                .with(id, value),
        );
    }
    records.sort_by_key(|r| r.millis);

    let mut device = Device::connect(service.teltonika.unwrap()).await.unwrap();
    assert!(device.handshake(IMEI).await.unwrap());
    // In packets of 5 records, as a device that was offline for a while sends its backlog.
    for chunk in records.chunks(5) {
        let sent = packet(Codec::EightExtended, chunk);
        assert_eq!(
            device.send(&sent, WAIT).await.unwrap(),
            Some(chunk.len() as u32)
        );
    }

    let events = events_of(&admin, account, truck.id).await;
    let kinds: Vec<(i64, EventType)> = events
        .iter()
        .map(|e| ((e.occurred_at - start).num_seconds(), e.event_type))
        .collect();
    assert_eq!(
        kinds,
        [
            (0, EventType::GeofenceEntered),
            (60, EventType::IgnitionTurnedOn),
            (100, EventType::GeofenceExited),
            (110, EventType::MovementStarted),
            (210, EventType::SpeedLimitExceeded),
            (230, EventType::HardCornering),
            (300, EventType::CountryBorderCrossed),
            (420, EventType::Jammed),
            (500, EventType::AlarmTriggered),
            (505, EventType::AccidentOccurred),
            (580, EventType::MovementStopped),
            (700, EventType::EngineIdling),
            (760, EventType::IgnitionTurnedOff),
        ]
    );
    let entered = events
        .iter()
        .find(|e| e.event_type == EventType::GeofenceEntered)
        .unwrap();
    assert_eq!(entered.details.geofence_id, Some(depot));
    let speeding = events
        .iter()
        .find(|e| e.event_type == EventType::SpeedLimitExceeded)
        .unwrap();
    assert_eq!(
        (speeding.details.value, speeding.details.threshold),
        (Some(120.0), Some(90.0))
    );
    let state = admin
        .get_asset_state(account, truck.id)
        .send()
        .await
        .unwrap();
    assert_eq!(state.last_report_at, Some(start + Duration::seconds(760)));
    assert_eq!(state.input_voltage, Some(24.1));
    // GPS altitude and satellites, as the simulator's records carry them.
    assert_eq!((state.altitude, state.satellites), (Some(100.0), Some(9)));
    service.stop().await;
}

#[tokio::test]
async fn osmand_reports_enter_the_pipeline() {
    let (_dir, service) = started_with_trackers().await;
    let admin = service.root_client();
    let phone = create_tracked(&admin, service.root, "courier", "courier-7").await;
    let base = format!("http://{}", service.osmand.unwrap());
    let http = reqwest::Client::new();
    let now = Utc::now().timestamp();
    let report = |t: i64, ignition: bool| osmand::Report {
        id: "courier-7".to_owned(),
        timestamp: Some(t),
        lat: Some(52.52),
        lon: Some(13.405),
        speed: Some(10.0),
        bearing: Some(180.0),
        batt: Some(76.0),
        ignition: Some(ignition),
        ..osmand::Report::default()
    };
    let get = |query: String| http.get(format!("{base}/?{query}")).send();

    // As the OsmAnd app sends it: a GET with query parameters.
    let answer = get(report(now - 60, false).query()).await.unwrap();
    assert_eq!(answer.status(), 200);
    // As some clients send it: a POST with the same parameters in the URL.
    let answer = http
        .post(format!("{base}/?{}", report(now - 30, true).query()))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let events = events_of(&admin, service.root, phone.id).await;
    let kinds: Vec<EventType> = events.iter().map(|e| e.event_type).collect();
    assert_eq!(kinds, [EventType::IgnitionTurnedOn]);
    let state = admin
        .get_asset_state(service.root, phone.id)
        .send()
        .await
        .unwrap();
    // 10 knots.
    assert_eq!(state.speed, Some(18.52));
    assert_eq!(state.battery_percentage, Some(76.0));

    // The Traccar Client app's JSON body.
    let json = serde_json::json!({
        "device_id": "courier-7",
        "location": {
            "timestamp": (Utc::now() - Duration::seconds(10)).to_rfc3339(),
            "coords": {"latitude": 52.53, "longitude": 13.41, "speed": 5.0, "heading": 90.0,
                       "altitude": 40.0, "accuracy": 5.0},
            "is_moving": true,
            "battery": {"level": 0.75, "is_charging": false},
        }
    });
    let answer = http.post(&base).json(&json).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    let state = admin
        .get_asset_state(service.root, phone.id)
        .send()
        .await
        .unwrap();
    assert_eq!((state.speed, state.altitude), (Some(18.0), Some(40.0)));

    // The same report again is a duplicate: 200, nothing new.
    let answer = get(report(now - 60, false).query()).await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(events_of(&admin, service.root, phone.id).await.len(), 1);
    // An id that is no asset's deviceId: 404.
    let mut unknown = report(now, true);
    unknown.id = "stranger".to_owned();
    assert_eq!(get(unknown.query()).await.unwrap().status(), 404);
    // A latitude out of range: 400, nothing stored.
    let mut wrong = report(now - 5, true);
    wrong.lat = Some(95.0);
    let answer = get(wrong.query()).await.unwrap();
    assert_eq!(answer.status(), 400);
    assert!(answer.text().await.unwrap().contains("latitude"));
    // Too old: 200, so the app does not send it forever, and nothing stored.
    let answer = get(report(now - 8 * 86_400, true).query()).await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(events_of(&admin, service.root, phone.id).await.len(), 1);
    // Not a report at all: 400.
    assert_eq!(get("lat=1".to_owned()).await.unwrap().status(), 400);
    service.stop().await;
}

/// A self-signed certificate for 127.0.0.1 and its key, made with the `openssl` command.
fn certificate(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let (cert, key) = (dir.join("teltonika.crt"), dir.join("teltonika.key"));
    let made = std::process::Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "2", "-subj", "/CN=127.0.0.1"])
        .args(["-addext", "subjectAltName=IP:127.0.0.1"])
        // An end-entity certificate: rustls refuses a CA one as a server certificate.
        .args(["-addext", "basicConstraints=critical,CA:FALSE", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("the openssl command runs");
    assert!(made.status.success(), "{made:?}");
    (cert, key)
}

#[tokio::test]
async fn the_teltonika_listener_speaks_tls_when_given_a_certificate() {
    use tokio_rustls::rustls::{self, pki_types::pem::PemObject};
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = certificate(dir.path());
    let mut config = config(&dir, Uuid::new_v4());
    config.teltonika_listen = Some("127.0.0.1:0".parse().unwrap());
    config.teltonika_tls_cert = Some(cert.clone());
    config.teltonika_tls_key = Some(key);
    let service = TestService::start(config).await;
    let admin = service.root_client();
    let truck = create_tracked(&admin, service.root, "truck", IMEI).await;
    let address = service.teltonika.unwrap();

    // A device that trusts the certificate.
    let mut roots = rustls::RootCertStore::empty();
    for c in rustls::pki_types::CertificateDer::pem_file_iter(&cert).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(client));
    let tcp = tokio::net::TcpStream::connect(address).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let mut device = Device::over(connector.connect(name, tcp).await.unwrap());
    assert!(device.handshake(IMEI).await.unwrap());
    let at = (Utc::now() - Duration::minutes(1)).timestamp_millis() as u64;
    let sent = packet(
        Codec::EightExtended,
        &[
            Record::at(at, 48.57, 7.82, 0).with(239, Io::U8(0)),
            Record::at(at + 1000, 48.57, 7.82, 0).with(239, Io::U8(1)),
        ],
    );
    assert_eq!(device.send(&sent, WAIT).await.unwrap(), Some(2));
    let events = events_of(&admin, service.root, truck.id).await;
    assert_eq!(events.len(), 1);

    // A device speaking plain TCP to the TLS port is not accepted (it reads a TLS alert, or the
    // connection closes).
    let mut plain = Device::connect(address).await.unwrap();
    assert!(!matches!(plain.handshake(IMEI).await, Ok(true)));
    service.stop().await;
}

/// Devices of different accounts report at the same time: their records are stored together
/// (one call of the pipeline per account) and each device is answered for its own records only.
/// A device whose asset is deleted meanwhile is not acknowledged, and the others are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devices_of_several_accounts_reporting_at_once_are_answered_apart() {
    const PACKETS: u64 = 20;
    let (_dir, service) = started_with_trackers().await;
    let admin = service.root_client();
    let mut devices = Vec::new();
    for (t, tenant) in ["north", "south"].into_iter().enumerate() {
        let (account, client) = child(&service, &admin, service.root, tenant).await;
        for d in 0..3 {
            let imei = format!("3563070{t}{d:07}");
            let asset = create_tracked(&client, account, &format!("{tenant}-{d}"), &imei).await;
            devices.push((account, client.clone(), asset, imei));
        }
    }
    let address = service.teltonika.unwrap();
    let start = (Utc::now() - Duration::hours(1)).timestamp_millis() as u64;
    let sending: Vec<_> = devices
        .iter()
        .map(|(_, _, _, imei)| {
            let imei = imei.clone();
            tokio::spawn(async move {
                let mut device = Device::connect(address).await.unwrap();
                assert!(device.handshake(&imei).await.unwrap());
                for p in 0..PACKETS {
                    // Two records a packet, the alarm on then off: one episode a packet.
                    let records: Vec<Record> = (0..2)
                        .map(|i| {
                            Record::at(start + (p * 2 + i) * 1000, 48.57, 7.82, 0)
                                .with(236, Io::U8(u8::from(i == 0)))
                        })
                        .collect();
                    let sent = packet(Codec::EightExtended, &records);
                    assert_eq!(device.send(&sent, WAIT).await.unwrap(), Some(2), "{imei}");
                }
                device
            })
        })
        .collect();
    let mut connected = Vec::new();
    for task in sending {
        connected.push(task.await.unwrap());
    }
    for (account, client, asset, _) in &devices {
        let alarms = count_events(client, *account, asset.id, EventType::AlarmTriggered).await;
        assert_eq!(alarms as u64, PACKETS, "{}", asset.external_id);
    }
    // The first device's asset is deleted: its next packet is not acknowledged; the others'.
    let (account, client, asset, _) = &devices[0];
    client
        .delete_asset(*account, asset.id)
        .send()
        .await
        .unwrap();
    let next = |p: u64| {
        packet(
            Codec::EightExtended,
            &[Record::at(start + p * 1000, 48.57, 7.82, 0)],
        )
    };
    assert_eq!(connected[0].send(&next(100), WAIT).await.unwrap(), None);
    assert_eq!(connected[1].send(&next(100), WAIT).await.unwrap(), Some(1));
    service.stop().await;
}
