//! The example packets of Teltonika's Codec documentation, with their published CRCs, and the
//! ways a packet can be broken.

use super::*;

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Teltonika's Codec 8 example: one record, CRC 0xC7CF.
const CODEC_8: &str = "000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF";
/// Teltonika's Codec 8 Extended example: one record, CRC 0x2994.
const CODEC_8E: &str = "000000000000004A8E010000016B412CEE000100000000000000000000000000000000010005000100010100010011001D00010010015E2C880002000B000000003544C87A000E000000001DD7E06A00000100002994";
/// Teltonika's Codec 16 example: two records, CRC 0x5FB3.
const CODEC_16: &str = "000000000000005F10020000016BDBC7833000000000000000000000000000000000000B05040200010000030002000B00270042563A00000000016BDBC7871800000000000000000000000000000000000B05040200010000030002000B00260042563A00000200005FB3";

const LIMIT: usize = 64 * 1024;

fn fixed(width: u8, value: u64) -> IoValue {
    IoValue::Fixed { width, value }
}

#[test]
fn codec_8_example() {
    let bytes = hex(CODEC_8);
    let (packet, used) = read_packet(&bytes, LIMIT).unwrap().expect("complete");
    assert_eq!(used, bytes.len());
    assert_eq!(packet.codec, Codec::Codec8);
    assert_eq!(packet.records.len(), 1);
    let record = &packet.records[0];
    assert_eq!(record.timestamp.to_rfc3339(), "2019-06-10T10:04:46+00:00");
    assert_eq!(record.priority, 1);
    assert_eq!(record.event_io, 1);
    assert_eq!(
        record.io,
        [
            (0x15, fixed(1, 3)),
            (0x01, fixed(1, 1)),
            (0x42, fixed(2, 0x5E0F)),
            (0xF1, fixed(4, 0x601A)),
            (0x4E, fixed(8, 0)),
        ]
    );
    // External voltage 0x5E0F mV; no fix, so no position.
    let report = record.report();
    assert_eq!(report.input_voltage, Some(24.079));
    assert_eq!((report.latitude, report.speed), (None, None));
    assert_eq!(ack(packet.records.len()), [0, 0, 0, 1]);
}

#[test]
fn codec_8_extended_example() {
    let bytes = hex(CODEC_8E);
    let (packet, used) = read_packet(&bytes, LIMIT).unwrap().expect("complete");
    assert_eq!(used, bytes.len());
    assert_eq!(packet.codec, Codec::Codec8Extended);
    let record = &packet.records[0];
    assert_eq!(record.event_io, 1);
    assert_eq!(
        record.io,
        [
            (0x0001, fixed(1, 1)),
            (0x0011, fixed(2, 0x001D)),
            (0x0010, fixed(4, 0x015E2C88)),
            (0x000B, fixed(8, 0x3544C87A)),
            (0x000E, fixed(8, 0x1DD7E06A)),
        ]
    );
}

#[test]
fn codec_16_example() {
    let bytes = hex(CODEC_16);
    let (packet, _) = read_packet(&bytes, LIMIT).unwrap().expect("complete");
    assert_eq!(packet.codec, Codec::Codec16);
    assert_eq!(packet.records.len(), 2);
    let first = &packet.records[0];
    assert_eq!(first.event_io, 0x000B);
    assert_eq!(first.generation, Some(5));
    assert_eq!(
        first.io,
        [
            (0x0001, fixed(1, 0)),
            (0x0003, fixed(1, 0)),
            (0x000B, fixed(2, 0x0027)),
            (0x0042, fixed(2, 0x563A)),
        ]
    );
    assert_eq!(packet.records[1].io[2], (0x000B, fixed(2, 0x0026)));
    assert_eq!(ack(2), [0, 0, 0, 2]);
}

#[test]
fn a_packet_is_read_as_its_bytes_arrive() {
    let bytes = hex(CODEC_16);
    for end in 0..bytes.len() {
        assert_eq!(read_packet(&bytes[..end], LIMIT), Ok(None), "{end} bytes");
    }
    // Two packets back to back: the first is read alone.
    let mut two = bytes.clone();
    two.extend(hex(CODEC_8));
    let (_, used) = read_packet(&two, LIMIT).unwrap().unwrap();
    assert_eq!(used, bytes.len());
    assert!(read_packet(&two[used..], LIMIT).unwrap().is_some());
}

#[test]
fn a_changed_byte_fails_the_crc() {
    let mut bytes = hex(CODEC_8);
    bytes[20] ^= 0x01;
    assert!(matches!(
        read_packet(&bytes, LIMIT),
        Err(Error::Crc { sent: 0xC7CF, .. })
    ));
}

#[test]
fn a_huge_length_is_refused_at_once() {
    // 2 GB announced, 8 bytes received: refused before any more is read.
    let header = [0, 0, 0, 0, 0x80, 0, 0, 0];
    assert_eq!(
        read_packet(&header, LIMIT),
        Err(Error::TooLarge {
            length: 0x8000_0000,
            limit: LIMIT
        })
    );
    assert!(matches!(
        read_packet(&[0, 0, 1], LIMIT),
        Err(Error::Malformed(_))
    ));
}

/// A packet around `data` with its correct CRC.
fn framed(data: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0, 0, 0, 0];
    bytes.extend((data.len() as u32).to_be_bytes());
    bytes.extend(data);
    bytes.extend(u32::from(CRC.checksum(data)).to_be_bytes());
    bytes
}

#[test]
fn structure_is_checked_even_under_a_good_crc() {
    let data = &hex(CODEC_8)[8..8 + 0x36];
    // Unknown codec (7 is the GH3000's).
    let mut other = data.to_vec();
    other[0] = 0x07;
    assert!(
        matches!(read_packet(&framed(&other), LIMIT), Err(Error::Malformed(m)) if m.contains("codec"))
    );
    // Cut short inside a record.
    let short = [&data[..30], &data[data.len() - 1..]].concat();
    assert!(matches!(
        read_packet(&framed(&short), LIMIT),
        Err(Error::Malformed(_))
    ));
    // Bytes after the second count.
    let long = [data, &[0]].concat();
    assert!(matches!(
        read_packet(&framed(&long), LIMIT),
        Err(Error::Malformed(_))
    ));
    // The unchanged data reads.
    assert!(read_packet(&framed(data), LIMIT).unwrap().is_some());
}

/// The data of a documented packet (codec id to the second count), `at` changed to `bytes`, framed
/// with its CRC computed anew: what a device whose firmware writes that sends.
fn changed(packet: &str, at: usize, bytes: &[u8]) -> Vec<u8> {
    let mut data = hex(packet)[8..].to_vec();
    data.truncate(data.len() - 4);
    data[at..at + bytes.len()].copy_from_slice(bytes);
    framed(&data)
}

fn read(bytes: &[u8]) -> Packet {
    read_packet(bytes, LIMIT).unwrap().expect("complete").0
}

#[test]
fn a_total_io_count_that_disagrees_with_the_groups_is_read_by_the_groups() {
    // The total IO count's offset in the data: after the codec, the count, the timestamp, the
    // priority, the GPS element and the event id (1 byte in Codec 8, 2 in 8E and 16, then 16's
    // generation type).
    for (example, at, totals) in [
        (CODEC_8, 27, &[&[4u8][..], &[6], &[0], &[255]][..]),
        (CODEC_8E, 28, &[&[0, 4], &[0, 0], &[0xFF, 0xFF]]),
        (CODEC_16, 29, &[&[3], &[5], &[0]]),
    ] {
        let documented = read(&hex(example));
        assert!(!documented.records[0].io_total_disagrees());
        for total in totals {
            let packet = read(&changed(example, at, total));
            let record = &packet.records[0];
            let sent = total.iter().fold(0u16, |n, b| (n << 8) | u16::from(*b));
            assert_eq!(record.io_total, sent);
            assert!(record.io_total_disagrees(), "{total:?}");
            // Everything else as documented.
            let kept = Record {
                io_total: documented.records[0].io_total,
                ..record.clone()
            };
            assert_eq!(kept, documented.records[0]);
            assert_eq!(packet.records[1..], documented.records[1..]);
        }
    }
}

#[test]
fn the_record_count_at_the_end_is_not_trusted() {
    let data = &hex(CODEC_8)[8..8 + 0x36];
    let mut counts = data.to_vec();
    *counts.last_mut().unwrap() = 2;
    let packet = read(&framed(&counts));
    assert_eq!(packet.records, read(&hex(CODEC_8)).records);
    assert_eq!(packet.count_at_end, 2);
    assert!(packet.counts_disagree());
    assert!(!read(&hex(CODEC_8)).counts_disagree());
}

#[test]
fn a_time_no_date_holds_is_read_as_the_first_or_last_date() {
    let at = |millis: [u8; 8]| read(&changed(CODEC_8, 2, &millis)).records[0].timestamp;
    // All ones, as unwritten memory reads: -1 ms, as Traccar reads it too.
    assert_eq!(at([0xFF; 8]).timestamp_millis(), -1);
    assert_eq!(
        at([0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        DateTime::<Utc>::MAX_UTC
    );
    assert_eq!(at([0x80, 0, 0, 0, 0, 0, 0, 0]), DateTime::<Utc>::MIN_UTC);
}

#[test]
fn keep_alive_bytes_are_counted_apart_from_packets() {
    assert_eq!(pings(&[PING, PING, 0, 0]), 2);
    assert_eq!(pings(&[PING]), 1);
    assert_eq!(pings(&[]), 0);
    assert_eq!(pings(&hex(CODEC_8)), 0);
}

/// Bytes under a matching CRC are whatever a device wrote: each is read or refused, never a
/// panic.
#[test]
fn every_changed_byte_under_a_good_crc_is_read_or_refused() {
    for example in [CODEC_8, CODEC_8E, CODEC_16] {
        let length = hex(example).len() - 12;
        for at in 0..length {
            for value in [0u8, 1, 2, 0x7F, 0x80, 0xFE, 0xFF] {
                let _ = read_packet(&changed(example, at, &[value]), LIMIT);
            }
        }
    }
}

/// Teltonika's Codec 12 examples: the `getinfo` command (CRC 0x4312) and a device's reply (CRC
/// 0xC78F).
const CODEC_12: [&str; 2] = [
    "000000000000000F0C010500000007676574696E666F0100004312",
    "00000000000000900C010600000088494E493A323031392F372F323220373A3232205254433A323031392F372F323220373A3533205253543A32204552523A312053523A302042523A302043463A302046473A3020464C3A302054553A302F302055543A3020534D533A30204E4F4750533A303A3330204750533A31205341543A302052533A332052463A36352053463A31204D443A30010000C78F",
];

#[test]
fn codec_12_frames_are_read_past() {
    for example in CODEC_12 {
        let bytes = hex(example);
        let (packet, used) = read_packet(&bytes, LIMIT).unwrap().expect("complete");
        assert_eq!(used, bytes.len());
        assert_eq!(packet.codec, Codec::Command(0x0C));
        assert!(packet.records.is_empty());
    }
    // Codec 13 too, and its CRC is checked like any other.
    let data = &hex(CODEC_12[1])[8..8 + 0x90];
    let thirteen = [&[0x0D], &data[1..]].concat();
    let (packet, _) = read_packet(&framed(&thirteen), LIMIT).unwrap().unwrap();
    assert_eq!(packet.codec, Codec::Command(0x0D));
    let mut bad = hex(CODEC_12[0]);
    bad[20] ^= 1;
    assert!(matches!(read_packet(&bad, LIMIT), Err(Error::Crc { .. })));
}

#[test]
fn the_imei_handshake() {
    let mut bytes = vec![0x00, 0x0F];
    bytes.extend(b"356307042441013");
    for end in 0..bytes.len() {
        assert_eq!(read_imei(&bytes[..end]), Ok(None));
    }
    assert_eq!(
        read_imei(&bytes),
        Ok(Some(("356307042441013".to_owned(), 17)))
    );
    assert_eq!(handshake_answer(true), [1]);
    assert_eq!(handshake_answer(false), [0]);
    assert!(read_imei(&[0x00, 0x00]).is_err());
    assert!(read_imei(&[0x7F, 0xFF]).is_err());
    assert!(read_imei(b"\x00\x0335X").is_err());
}

#[test]
fn io_elements_map_to_readings_and_signals() {
    let record = Record {
        timestamp: DateTime::from_timestamp(1_764_151_200, 0).unwrap(),
        priority: 0,
        gps: Gps {
            longitude: 25.2797,
            latitude: 54.6872,
            altitude: 112,
            angle: 270,
            satellites: 9,
            speed: 64,
        },
        event_io: io::GREEN_DRIVING,
        generation: None,
        io: vec![
            (io::IGNITION, fixed(1, 1)),
            (io::MOVEMENT, fixed(1, 1)),
            (io::EXTERNAL_VOLTAGE, fixed(2, 12_650)),
            (io::BATTERY_VOLTAGE, fixed(2, 4_100)),
            (io::BATTERY_LEVEL, fixed(1, 97)),
            (io::ALARM, fixed(1, 0)),
            (io::CRASH, fixed(1, 1)),
            (io::JAMMING, fixed(1, 0)),
            (io::UNPLUG, fixed(1, 1)),
            (io::GREEN_DRIVING, fixed(1, 3)),
        ],
        io_total: 10,
    };
    let report = record.report();
    assert_eq!(report.latitude, Some(54.6872));
    assert_eq!(report.longitude, Some(25.2797));
    assert_eq!(report.speed, Some(64.0));
    assert_eq!(report.heading, Some(270.0));
    assert_eq!(report.ignition, Some(true));
    assert_eq!(report.moving, Some(true));
    assert_eq!(report.input_voltage, Some(12.65));
    assert_eq!(report.battery_voltage, Some(4.1));
    assert_eq!(report.battery_percentage, Some(97.0));
    assert_eq!(
        report.signals,
        crate::Signals {
            alarm: Some(false),
            jamming: Some(false),
            accident: Some(true),
            hard_cornering: Some(true),
            power_disconnected: Some(true),
        }
    );
    // Harsh braking is green driving too, but not cornering.
    let braking = Record {
        io: vec![(io::GREEN_DRIVING, fixed(1, 2))],
        ..record
    };
    assert_eq!(braking.report().signals.hard_cornering, Some(false));
}

/// Stores every report it is given; knows every IMEI.
#[derive(Default)]
struct Recorder(std::sync::Mutex<Vec<Vec<crate::Report>>>);

impl crate::Ingest for Recorder {
    async fn knows(&self, _device_id: &str) -> bool {
        true
    }

    async fn store(
        &self,
        _device_id: &str,
        reports: Vec<crate::Report>,
    ) -> Result<crate::Stored, String> {
        let n = reports.len();
        self.0.lock().unwrap().push(reports);
        Ok(crate::Stored::accepted(n))
    }
}

/// A device's stream through `serve_connection` over an in-memory pipe, `chunk` bytes at a time:
/// what the listener answered and what it stored.
async fn served_in_chunks(stream: &[u8], chunk: usize) -> (Vec<u8>, Vec<Vec<crate::Report>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (mut device, server) = tokio::io::duplex(1 << 16);
    let ingest = std::sync::Arc::new(Recorder::default());
    let stats = std::sync::Arc::new(Stats::default());
    let peer = "127.0.0.1:5027".parse().unwrap();
    let connection = tokio::spawn(serve_connection(
        server,
        peer,
        ingest.clone(),
        Limits::default(),
        stats.clone(),
    ));
    for piece in stream.chunks(chunk) {
        device.write_all(piece).await.unwrap();
        tokio::task::yield_now().await;
    }
    device.shutdown().await.unwrap();
    let mut answered = Vec::new();
    device.read_to_end(&mut answered).await.unwrap();
    connection.await.unwrap();
    assert_eq!(
        stats.packets.load(std::sync::atomic::Ordering::Relaxed),
        3,
        "chunks of {chunk}"
    );
    let stored = std::mem::take(&mut *ingest.0.lock().unwrap());
    (answered, stored)
}

#[tokio::test]
async fn a_connection_is_served_alike_whole_or_byte_by_byte() {
    let mut stream = vec![0x00, 0x0F];
    stream.extend(b"356307042441013");
    stream.extend(hex(CODEC_8));
    stream.push(PING);
    stream.extend(hex(CODEC_8E));
    stream.extend(hex(CODEC_16));
    let whole = served_in_chunks(&stream, stream.len()).await;
    assert_eq!(
        whole.0,
        [&[1][..], &[0, 0, 0, 1], &[0, 0, 0, 1], &[0, 0, 0, 2]].concat()
    );
    assert_eq!(whole.1.iter().map(Vec::len).collect::<Vec<_>>(), [1, 1, 2]);
    for chunk in [1, 2, 7, 61] {
        assert_eq!(
            served_in_chunks(&stream, chunk).await,
            whole,
            "chunks of {chunk}"
        );
    }
}
