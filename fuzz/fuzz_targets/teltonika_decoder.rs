//! The Teltonika frame decoder over arbitrary bytes: the IMEI handshake and AVL packets
//! (`read_imei`, `read_packet`), read as the listener reads them, from every prefix of the bytes.
//!
//! Invariants: never a panic; a reader never claims more bytes than it was given; and the decoder
//! gives the same result however the stream is cut: every prefix of the bytes reads as "not
//! complete yet" or as the same result as the whole, and every prefix at least as long as the
//! frame reads as exactly that frame.
//!
//! The bytes are decoded as they are and again with their packets' CRCs made right (the input's
//! first byte chooses), so that mutated records reach the record decoder.
#![no_main]

use asset_alerting_fuzz::teltonika::repair_crcs;
use asset_alerting_trackers::teltonika::{pings, read_imei, read_packet};
use libfuzzer_sys::fuzz_target;

/// The listener's default packet limit, and a small one that mutated length fields reach.
const LIMITS: [usize; 2] = [64 * 1024, 64];

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 {
        repair_crcs(&mut bytes, 0);
    }
    // The handshake.
    let whole = read_imei(&bytes);
    if let Ok(Some((imei, used))) = &whole {
        assert!(*used <= bytes.len() && imei.len() + 2 == *used);
    }
    for cut in 0..bytes.len() {
        let part = read_imei(&bytes[..cut]);
        assert!(
            part == Ok(None) || part == whole,
            "IMEI cut at {cut}: {part:?} vs {whole:?}"
        );
        if let Ok(Some((_, used))) = &whole
            && cut >= *used
        {
            assert_eq!(part, whole, "IMEI cut at {cut}");
        }
    }
    // Packets, after the keep-alive bytes the listener skips.
    let bytes = &bytes[pings(&bytes)..];
    for limit in LIMITS {
        let whole = read_packet(bytes, limit);
        if let Ok(Some((packet, used))) = &whole {
            assert!(*used <= bytes.len());
            for record in &packet.records {
                // What the listener does with each record.
                let _ = record.io_total_disagrees();
                let _ = record.report();
            }
            let _ = packet.counts_disagree();
        }
        // Every cut up to the end of the frame the length field announces (past it a reader
        // decodes the whole frame again, so a few cuts stand for all).
        let frame_end = bytes
            .get(4..8)
            .map(|l| 12 + u32::from_be_bytes(l.try_into().expect("4 bytes")) as usize)
            .unwrap_or(bytes.len())
            .min(bytes.len());
        let cuts = (0..=frame_end).chain([bytes.len().saturating_sub(1), bytes.len()]);
        for cut in cuts {
            let part = read_packet(&bytes[..cut], limit);
            match (&part, &whole) {
                (Ok(None), _) => {
                    if let Ok(Some((_, used))) = &whole {
                        assert!(cut < *used, "packet cut at {cut} of {used} not read");
                    }
                }
                _ => assert_eq!(part, whole, "packet cut at {cut}"),
            }
        }
    }
});
