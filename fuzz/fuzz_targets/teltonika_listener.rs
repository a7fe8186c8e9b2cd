//! The Teltonika listener's framing: a device's byte stream (the IMEI handshake, packets,
//! keep-alive bytes) through the listener's own connection code (`serve_connection`, over an
//! in-memory pipe), once in one piece and once cut into arbitrary chunks, each chunk read by the
//! listener on its own.
//!
//! Invariants: never a panic or a hang; and the listener does the same however the stream is cut:
//! the same bytes answered (handshake answer, acknowledgements), the same reports stored, the same
//! counters.
//!
//! Input: a first byte (its low 4 bits: how many cuts; bit 7: make the packets' CRCs right, so
//! that mutated records get past the CRC check), 2 bytes per cut (a chunk length), then the stream.
#![no_main]

use asset_alerting_fuzz::runtime;
use asset_alerting_fuzz::teltonika::repair_crcs;
use asset_alerting_trackers::teltonika::{Limits, Stats, serve_connection};
use asset_alerting_trackers::{Ingest, Report, Stored};
use libfuzzer_sys::fuzz_target;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Knows every IMEI but one; stores every report it is given, in order.
#[derive(Default)]
struct Recorder {
    stored: Mutex<Vec<(String, Vec<Report>)>>,
}

const UNKNOWN: &str = "000000000000000";

impl Ingest for Recorder {
    async fn knows(&self, device_id: &str) -> bool {
        device_id != UNKNOWN
    }

    async fn store(&self, device_id: &str, reports: Vec<Report>) -> Result<Stored, String> {
        let n = reports.len();
        self.stored
            .lock()
            .expect("lock")
            .push((device_id.to_owned(), reports));
        Ok(Stored::accepted(n))
    }
}

#[derive(Debug, PartialEq)]
struct Outcome {
    answered: Vec<u8>,
    stored: Vec<(String, Vec<Report>)>,
    counters: Vec<u64>,
}

fn counters(stats: &Stats) -> Vec<u64> {
    [
        &stats.packets,
        &stats.records,
        &stats.io_count_mismatches,
        &stats.record_count_mismatches,
        &stats.refused_handshakes,
        &stats.bad_crc,
        &stats.malformed,
        &stats.too_large,
        &stats.timeouts,
    ]
    .iter()
    .map(|c| c.load(Ordering::Relaxed))
    .collect()
}

/// Sends `chunks` one after the other, letting the listener read each before the next is sent,
/// then closes the device's side and reads every byte the listener answered.
fn run(chunks: &[&[u8]]) -> Outcome {
    runtime().block_on(async {
        let (mut device, server) = tokio::io::duplex(1 << 20);
        let ingest = Arc::new(Recorder::default());
        let stats = Arc::new(Stats::default());
        let peer = "127.0.0.1:5027".parse().expect("an address");
        let limits = Limits {
            max_packet: 4096,
            ..Limits::default()
        };
        let listener = tokio::spawn(serve_connection(
            server,
            peer,
            ingest.clone(),
            limits,
            stats.clone(),
        ));
        for chunk in chunks {
            if device.write_all(chunk).await.is_err() {
                break;
            }
            // The listener reads what is there; yielding lets it read this chunk alone.
            for _ in 0..4 {
                tokio::task::yield_now().await;
            }
        }
        let _ = device.shutdown().await;
        let mut answered = Vec::new();
        let _ = device.read_to_end(&mut answered).await;
        listener
            .await
            .expect("the connection's task ends without a panic");
        let stored = std::mem::take(&mut *ingest.stored.lock().expect("lock"));
        Outcome {
            answered,
            stored,
            counters: counters(&stats),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let cuts = usize::from(head & 0x0F);
    let Some(lengths) = rest.get(..2 * cuts) else {
        return;
    };
    let mut stream = rest[2 * cuts..].to_vec();
    if head & 0x80 != 0 {
        // Past the handshake (2 length bytes and the digits).
        let handshake = stream
            .get(..2)
            .map_or(0, |l| 2 + usize::from(u16::from_be_bytes([l[0], l[1]])));
        repair_crcs(&mut stream, handshake);
    }
    let whole = run(&[&stream]);
    let mut chunks = Vec::new();
    let mut at = 0;
    for pair in lengths.chunks(2) {
        let length = usize::from(u16::from_be_bytes([pair[0], pair[1]])) % 512 + 1;
        let end = (at + length).min(stream.len());
        chunks.push(&stream[at..end]);
        at = end;
    }
    chunks.push(&stream[at..]);
    let cut = run(&chunks);
    assert_eq!(
        whole,
        cut,
        "cut into {:?}",
        chunks.iter().map(|c| c.len()).collect::<Vec<_>>()
    );
});
