//! Teltonika byte streams for the fuzz targets.

// The simulator's CRC, written from the documentation, not the decoder's.
use tracker_simulator::teltonika::crc16;

/// Rewrites the CRC of every AVL packet frame found from `at` on (4 zero bytes, a length, the
/// data, the CRC; keep-alive `0xFF` bytes between frames skipped), so that a mutated packet gets
/// past the CRC check and into the record decoder. Stops at the first bytes that are not a frame.
pub fn repair_crcs(stream: &mut [u8], mut at: usize) {
    while at < stream.len() {
        if stream[at] == 0xFF {
            at += 1;
            continue;
        }
        let Some(head) = stream.get(at..at + 8) else {
            return;
        };
        if head[..4] != [0, 0, 0, 0] {
            return;
        }
        let length = u32::from_be_bytes(head[4..8].try_into().expect("4 bytes")) as usize;
        let data = at + 8;
        let Some(end) = data
            .checked_add(length)
            .filter(|end| end + 4 <= stream.len())
        else {
            return;
        };
        let crc = u32::from(crc16(&stream[data..end])).to_be_bytes();
        stream[end..end + 4].copy_from_slice(&crc);
        at = end + 4;
    }
}
