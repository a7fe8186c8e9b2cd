//! The Teltonika listener on 127.0.0.1 against a device simulator that speaks the protocol as
//! Teltonika's documentation writes it (its own packet encoder and CRC, not the crate's): the
//! handshake, acknowledgements only after storage, and every bound the listener promises.

use asset_alerting_trackers::teltonika::{Ingest, Limits, Listener, read_packet};
use asset_alerting_trackers::{Report, Stored};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::timeout;

const KNOWN: &str = "356307042441013";

/// A simulated Teltonika device (the simulator crate writes the protocol from Teltonika's
/// documentation: its own encoder and CRC, not this crate's).
mod device {
    use tracker_simulator::teltonika::{self, Codec, Io, Record};

    pub use teltonika::handshake;

    /// An AVL packet of Codec 8 Extended holding `fixes`.
    pub fn packet(fixes: &[Record]) -> Vec<u8> {
        teltonika::packet(Codec::EightExtended, fixes)
    }

    /// A fix in Vilnius with the ignition on, `n` seconds after the first.
    pub fn fix(n: u64) -> Record {
        Record::at(1_764_151_200_000 + n * 1000, 54.6872, 25.2797, 50).with(239, Io::U8(1))
    }
}

/// Records what it stores; `gate` holds a store until a permit is added.
#[derive(Default)]
struct Store {
    stored: Mutex<Vec<(String, Report)>>,
    gate: Option<Arc<Semaphore>>,
    fail: bool,
}

impl Ingest for Store {
    async fn knows(&self, imei: &str) -> bool {
        imei.starts_with("35630704")
    }

    async fn store(&self, imei: &str, reports: Vec<Report>) -> Result<Stored, String> {
        if let Some(gate) = &self.gate {
            gate.acquire().await.expect("open").forget();
        }
        if self.fail {
            return Err("database unavailable".to_owned());
        }
        let n = reports.len();
        let mut stored = self.stored.lock().unwrap();
        stored.extend(reports.into_iter().map(|r| (imei.to_owned(), r)));
        Ok(Stored::accepted(n))
    }
}

async fn start(store: Arc<Store>, limits: Limits) -> Listener {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    Listener::start(listener, store, limits)
}

async fn connect(listener: &Listener) -> TcpStream {
    TcpStream::connect(listener.local_addr)
        .await
        .expect("connect")
}

/// A device of the known IMEI, its handshake accepted.
async fn handshaken(listener: &Listener) -> TcpStream {
    let mut device = connect(listener).await;
    device.write_all(&device::handshake(KNOWN)).await.unwrap();
    assert_eq!(read(&mut device, 1).await, [1]);
    device
}

/// Reads exactly `n` bytes, or what came before the connection closed.
async fn read(stream: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut got = vec![0; n];
    let mut filled = 0;
    while filled < n {
        match timeout(Duration::from_secs(5), stream.read(&mut got[filled..])).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(k)) => filled += k,
            Err(_) => panic!("no answer within 5 s"),
        }
    }
    got.truncate(filled);
    got
}

/// Whether the listener closed the connection (within 5 s).
async fn closed(stream: &mut TcpStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(
        timeout(Duration::from_secs(5), stream.read(&mut byte)).await,
        Ok(Ok(0)) | Ok(Err(_))
    )
}

#[tokio::test]
async fn a_known_device_is_acknowledged_after_its_records_are_stored() {
    let gate = Arc::new(Semaphore::new(0));
    let store = Arc::new(Store {
        gate: Some(gate.clone()),
        ..Store::default()
    });
    let listener = start(store.clone(), Limits::default()).await;
    let mut device = handshaken(&listener).await;

    device
        .write_all(&device::packet(&[device::fix(0), device::fix(1)]))
        .await
        .unwrap();
    // Not acknowledged while the store holds the records.
    let mut early = [0u8; 4];
    assert!(
        timeout(Duration::from_millis(300), device.read(&mut early))
            .await
            .is_err(),
        "acknowledged before storage"
    );
    gate.add_permits(1);
    assert_eq!(read(&mut device, 4).await, [0, 0, 0, 2]);

    let stored = store.stored.lock().unwrap().clone();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0].0, KNOWN);
    let report = &stored[1].1;
    assert_eq!(
        report.timestamp.unwrap().timestamp_millis(),
        1_764_151_201_000
    );
    assert_eq!(report.latitude, Some(54.6872));
    assert_eq!(report.speed, Some(50.0));
    assert_eq!(report.ignition, Some(true));
    assert_eq!(listener.stats.records.load(Ordering::Relaxed), 2);
}

/// Teltonika's documented Codec 8 packet: one record, 5 IO elements, CRC 0xC7CF.
const CODEC_8: &str = "000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF";

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

/// `packet` with its data byte `at` (counted from the codec id) set to `value` and its CRC-16/IBM
/// computed anew (by the simulator's CRC, not the crate's), so the frame stays valid.
fn changed(mut packet: Vec<u8>, at: usize, value: u8) -> Vec<u8> {
    packet[8 + at] = value;
    let end = packet.len() - 4;
    let crc = tracker_simulator::teltonika::crc16(&packet[8..end]);
    packet[end..].copy_from_slice(&u32::from(crc).to_be_bytes());
    packet
}

#[tokio::test]
async fn a_total_io_count_that_disagrees_with_the_groups_is_acknowledged_and_stored() {
    let store = Arc::new(Store::default());
    let listener = start(store.clone(), Limits::default()).await;
    let mut device = handshaken(&listener).await;
    // The record's total IO count (data byte 27) says 4; its groups hold 5.
    let documented = hex(CODEC_8);
    let miscounted = changed(documented.clone(), 27, 4);
    assert_ne!(
        miscounted[miscounted.len() - 2..],
        documented[documented.len() - 2..]
    );

    device.write_all(&miscounted).await.unwrap();
    assert_eq!(read(&mut device, 4).await, [0, 0, 0, 1]);
    assert_eq!(
        listener.stats.io_count_mismatches.load(Ordering::Relaxed),
        1
    );
    // Stored as the documented record reads: its time and all five elements.
    let (packet, _) = read_packet(&documented, 64 * 1024).unwrap().unwrap();
    let stored = store.stored.lock().unwrap().clone();
    assert_eq!(stored, [(KNOWN.to_owned(), packet.records[0].report())]);
    assert_eq!(
        stored[0].1.timestamp.unwrap().to_rfc3339(),
        "2019-06-10T10:04:46+00:00"
    );
    assert_eq!(stored[0].1.input_voltage, Some(24.079));

    // The connection goes on; a packet counted right is not counted as a mismatch.
    device.write_all(&documented).await.unwrap();
    assert_eq!(read(&mut device, 4).await, [0, 0, 0, 1]);
    assert_eq!(
        listener.stats.io_count_mismatches.load(Ordering::Relaxed),
        1
    );
    assert_eq!(listener.stats.records.load(Ordering::Relaxed), 2);
    assert_eq!(listener.stats.malformed.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn a_record_count_at_the_end_that_disagrees_is_acknowledged_by_the_first() {
    let store = Arc::new(Store::default());
    let listener = start(store.clone(), Limits::default()).await;
    let mut device = handshaken(&listener).await;
    let packet = device::packet(&[device::fix(0), device::fix(1)]);
    let last = packet.len() - 4 - 8 - 1;
    device.write_all(&changed(packet, last, 3)).await.unwrap();
    assert_eq!(read(&mut device, 4).await, [0, 0, 0, 2]);
    assert_eq!(store.stored.lock().unwrap().len(), 2);
    assert_eq!(
        listener
            .stats
            .record_count_mismatches
            .load(Ordering::Relaxed),
        1
    );
}

#[tokio::test]
async fn keep_alive_bytes_are_not_answered_and_keep_the_connection() {
    let store = Arc::new(Store::default());
    let limits = Limits {
        idle_timeout: Duration::from_millis(600),
        ..Limits::default()
    };
    let listener = start(store.clone(), limits).await;
    let mut device = handshaken(&listener).await;
    // A ping every 300 ms for longer than the idle timeout: no answer, and not closed.
    for _ in 0..4 {
        device.write_all(&[0xFF]).await.unwrap();
        let mut answer = [0u8; 1];
        assert!(
            timeout(Duration::from_millis(300), device.read(&mut answer))
                .await
                .is_err(),
            "a ping is not answered, nor the connection closed"
        );
    }
    // A ping right before a packet, in the same write.
    let mut bytes = vec![0xFF];
    bytes.extend(device::packet(&[device::fix(0)]));
    device.write_all(&bytes).await.unwrap();
    assert_eq!(read(&mut device, 4).await, [0, 0, 0, 1]);
    assert_eq!(store.stored.lock().unwrap().len(), 1);
    assert_eq!(listener.stats.timeouts.load(Ordering::Relaxed), 0);
}

/// Teltonika's documented reply to `getinfo` (Codec 12), which a device may send unasked.
const CODEC_12_REPLY: &str = "00000000000000900C010600000088494E493A323031392F372F323220373A3232205254433A323031392F372F323220373A3533205253543A32204552523A312053523A302042523A302043463A302046473A3020464C3A302054553A302F302055543A3020534D533A30204E4F4750533A303A3330204750533A31205341543A302052533A332052463A36352053463A31204D443A30010000C78F";

#[tokio::test]
async fn a_command_reply_is_not_answered_and_keeps_the_connection() {
    let store = Arc::new(Store::default());
    let listener = start(store.clone(), Limits::default()).await;
    let mut device = handshaken(&listener).await;
    device.write_all(&hex(CODEC_12_REPLY)).await.unwrap();
    let mut answer = [0u8; 1];
    assert!(
        timeout(Duration::from_millis(300), device.read(&mut answer))
            .await
            .is_err(),
        "not answered, nor the connection closed"
    );
    device
        .write_all(&device::packet(&[device::fix(0)]))
        .await
        .unwrap();
    assert_eq!(read(&mut device, 4).await, [0, 0, 0, 1]);
    assert_eq!(store.stored.lock().unwrap().len(), 1);
    assert_eq!(listener.stats.malformed.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn an_unknown_imei_is_refused_and_closed() {
    let listener = start(Arc::default(), Limits::default()).await;
    let mut device = connect(&listener).await;
    device
        .write_all(&device::handshake("999999999999999"))
        .await
        .unwrap();
    assert_eq!(read(&mut device, 1).await, [0]);
    assert!(closed(&mut device).await);
    assert_eq!(listener.stats.refused_handshakes.load(Ordering::Relaxed), 1);
}

#[tokio::test]
async fn a_bad_crc_stores_nothing_and_is_not_acknowledged() {
    let store = Arc::new(Store::default());
    let listener = start(store.clone(), Limits::default()).await;
    let mut device = handshaken(&listener).await;
    let mut packet = device::packet(&[device::fix(0)]);
    let last = packet.len() - 1;
    packet[last] ^= 0xFF;
    device.write_all(&packet).await.unwrap();
    assert_eq!(
        read(&mut device, 4).await,
        Vec::<u8>::new(),
        "no acknowledgement"
    );
    assert!(store.stored.lock().unwrap().is_empty());
    assert_eq!(listener.stats.bad_crc.load(Ordering::Relaxed), 1);
}

#[tokio::test]
async fn a_store_that_fails_is_not_acknowledged() {
    let store = Arc::new(Store {
        fail: true,
        ..Store::default()
    });
    let listener = start(store, Limits::default()).await;
    let mut device = handshaken(&listener).await;
    device
        .write_all(&device::packet(&[device::fix(0)]))
        .await
        .unwrap();
    assert_eq!(read(&mut device, 4).await, Vec::<u8>::new());
    assert_eq!(listener.stats.store_failures.load(Ordering::Relaxed), 1);
}

#[tokio::test]
async fn a_2_gb_length_is_refused_at_once() {
    let listener = start(Arc::default(), Limits::default()).await;
    let mut device = handshaken(&listener).await;
    device
        .write_all(&[0, 0, 0, 0, 0x80, 0, 0, 0])
        .await
        .unwrap();
    assert!(closed(&mut device).await);
    assert_eq!(listener.stats.too_large.load(Ordering::Relaxed), 1);
}

#[tokio::test]
async fn slow_drip_and_idle_connections_are_closed() {
    let limits = Limits {
        frame_timeout: Duration::from_millis(400),
        idle_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let listener = start(Arc::default(), limits).await;

    // A byte every 100 ms never completes a frame within 400 ms.
    let mut dripping = connect(&listener).await;
    dripping.write_all(&device::handshake(KNOWN)).await.unwrap();
    assert_eq!(read(&mut dripping, 1).await, [1]);
    let packet = device::packet(&[device::fix(0)]);
    let started = std::time::Instant::now();
    for byte in &packet[..10] {
        if dripping.write_all(&[*byte]).await.is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(closed(&mut dripping).await);
    assert!(started.elapsed() < Duration::from_secs(3));

    // Silent after the handshake.
    let mut idle = connect(&listener).await;
    idle.write_all(&device::handshake(KNOWN)).await.unwrap();
    assert_eq!(read(&mut idle, 1).await, [1]);
    assert!(closed(&mut idle).await);
    assert!(listener.stats.timeouts.load(Ordering::Relaxed) >= 2);
}

#[tokio::test]
async fn failed_handshakes_are_limited_per_address() {
    let limits = Limits {
        failed_handshakes: 2,
        ..Limits::default()
    };
    let listener = start(Arc::default(), limits).await;
    for _ in 0..2 {
        let mut device = connect(&listener).await;
        device
            .write_all(&device::handshake("111111111111111"))
            .await
            .unwrap();
        assert_eq!(read(&mut device, 1).await, [0]);
    }
    // The third is closed before any answer, even with a known IMEI.
    let mut device = connect(&listener).await;
    let _ = device.write_all(&device::handshake(KNOWN)).await;
    assert_eq!(read(&mut device, 1).await, Vec::<u8>::new());
    assert_eq!(listener.stats.rate_limited.load(Ordering::Relaxed), 1);
}

#[tokio::test]
async fn shutdown_finishes_the_packet_being_stored() {
    let gate = Arc::new(Semaphore::new(0));
    let store = Arc::new(Store {
        gate: Some(gate.clone()),
        ..Store::default()
    });
    let listener = start(store.clone(), Limits::default()).await;
    let address = listener.local_addr;
    let mut device = handshaken(&listener).await;
    device
        .write_all(&device::packet(&[device::fix(0)]))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;

    let stopping = tokio::spawn(listener.shutdown());
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!stopping.is_finished(), "waits for the packet being stored");
    gate.add_permits(1);
    assert_eq!(read(&mut device, 4).await, [0, 0, 0, 1]);
    assert!(closed(&mut device).await);
    timeout(Duration::from_secs(5), stopping)
        .await
        .expect("stopped")
        .unwrap();
    assert!(
        TcpStream::connect(address).await.is_err(),
        "no longer accepting"
    );
    assert_eq!(store.stored.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_devices_at_once() {
    const DEVICES: u64 = 3000;
    let store = Arc::new(Store::default());
    let listener = start(store.clone(), Limits::default()).await;
    let address = listener.local_addr;
    let mut devices = tokio::task::JoinSet::new();
    for n in 0..DEVICES {
        devices.spawn(async move {
            let mut device = TcpStream::connect(address).await.expect("connect");
            device
                .write_all(&device::handshake(&format!("356307042{n:06}")))
                .await
                .unwrap();
            assert_eq!(read(&mut device, 1).await, [1]);
            device
                .write_all(&device::packet(&[device::fix(n), device::fix(n + 1)]))
                .await
                .unwrap();
            assert_eq!(read(&mut device, 4).await, [0, 0, 0, 2]);
            device
        });
    }
    // All connected at once: every device keeps its connection until all are acknowledged.
    let mut open = Vec::new();
    while let Some(device) = devices.join_next().await {
        open.push(device.expect("device"));
    }
    assert_eq!(open.len() as u64, DEVICES);
    assert_eq!(store.stored.lock().unwrap().len() as u64, 2 * DEVICES);
    assert_eq!(
        listener.stats.open_connections.load(Ordering::Relaxed),
        DEVICES
    );
    drop(open);
    listener.shutdown().await;
}

/// TCP keep-alive is on for device connections: Linux shows a socket's keep-alive timer as timer
/// kind 2 in /proc/net/tcp while the connection is idle.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn device_connections_have_tcp_keepalive() {
    let listener = start(Arc::default(), Limits::default()).await;
    let device = handshaken(&listener).await;
    let (server, client) = (listener.local_addr, device.local_addr().unwrap());
    // The server's end of this connection: local address the listener's, remote the device's.
    let hex = |a: std::net::SocketAddr| match a {
        std::net::SocketAddr::V4(v4) => format!(
            "{:08X}:{:04X}",
            u32::from_le_bytes(v4.ip().octets()),
            v4.port()
        ),
        std::net::SocketAddr::V6(_) => unreachable!("bound to 127.0.0.1"),
    };
    let (local, remote) = (hex(server), hex(client));
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let row = table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.get(1) == Some(&local.as_str()) && f.get(2) == Some(&remote.as_str()))
        .expect("the server's socket is in /proc/net/tcp");
    // Field 5 is `tr:tm->when`; timer kind 2 is keep-alive.
    assert!(row[5].starts_with("02:"), "timer {}", row[5]);
}
