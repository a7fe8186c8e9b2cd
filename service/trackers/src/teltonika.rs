//! Teltonika's AVL protocol over TCP (Teltonika's "Codec" documentation):
//!
//! 1. **Handshake:** the device sends its IMEI, a 2-byte length and the digits in ASCII. The
//!    server answers `0x01` to accept it or `0x00` to refuse it ([`read_imei`]).
//! 2. **AVL data packets** ([`read_packet`]): 4 zero bytes, a 4-byte length of what follows up to
//!    the CRC, the codec id, the number of records, the records, the number of records again, and
//!    a 4-byte CRC-16/IBM of the bytes from the codec id to the second count. The server
//!    acknowledges a packet with the number of records as 4 bytes ([`ack`]); a device that gets no
//!    acknowledgement sends the packet again.
//!
//! Codec 8 (`0x08`), Codec 8 Extended (`0x8E`, 2-byte IO ids and counts, variable-length
//! elements) and Codec 16 (`0x10`, 2-byte IO ids and a generation type) are read; Codec 12 and 13
//! frames (commands and their replies) are read past. Every number is big-endian. Each reader
//! takes the bytes received so far and answers `Ok(None)` until a whole frame is there, so a
//! connection can read as bytes come.
//!
//! A packet whose CRC matches is refused only when its records cannot be read: a refused packet is
//! never acknowledged, and its device sends it again forever. The redundant counts (a record's
//! total IO count, the record count at the end) are kept as sent and not trusted: firmware that
//! miscounts them is in the field, and Traccar reads neither.

use crate::report::Report;
use chrono::{DateTime, Utc};
use std::fmt;

/// Teltonika's CRC-16/IBM: polynomial 0x8005 reflected (0xA001), initial value 0.
const CRC: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_ARC);

/// The longest IMEI handshake accepted: an IMEI is 15 digits, an IMEISV 16.
const MAX_IMEI_DIGITS: usize = 17;

/// Why bytes are not a frame of the protocol. None of them may be acknowledged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The bytes break the protocol's structure.
    Malformed(String),
    /// A packet's length field exceeds the limit; refused before anything is read into memory.
    TooLarge { length: u64, limit: usize },
    /// The packet's CRC does not match its data.
    Crc { sent: u32, computed: u16 },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Malformed(why) => write!(f, "malformed packet: {why}"),
            Error::TooLarge { length, limit } => {
                write!(f, "packet of {length} bytes exceeds the limit of {limit}")
            }
            Error::Crc { sent, computed } => {
                write!(
                    f,
                    "CRC mismatch: sent {sent:#06x}, computed {computed:#06x}"
                )
            }
        }
    }
}

impl std::error::Error for Error {}

fn malformed<T>(why: impl Into<String>) -> Result<T, Error> {
    Err(Error::Malformed(why.into()))
}

/// Reads the IMEI handshake from the start of `buf`: the IMEI and the bytes it took, `Ok(None)`
/// until it is complete.
pub fn read_imei(buf: &[u8]) -> Result<Option<(String, usize)>, Error> {
    let Some(&[high, low]) = buf.get(..2) else {
        return Ok(None);
    };
    let length = usize::from(u16::from_be_bytes([high, low]));
    if length == 0 || length > MAX_IMEI_DIGITS {
        return malformed(format!("an IMEI of {length} digits"));
    }
    let Some(digits) = buf.get(2..2 + length) else {
        return Ok(None);
    };
    if !digits.iter().all(u8::is_ascii_digit) {
        return malformed("an IMEI that is not digits");
    }
    let imei = String::from_utf8(digits.to_vec()).expect("ASCII digits");
    Ok(Some((imei, 2 + length)))
}

/// The keep-alive byte some devices send between packets; it is not answered.
pub const PING: u8 = 0xFF;

/// How many keep-alive bytes start `buf` (a packet starts with zeros, so none is taken for one).
pub fn pings(buf: &[u8]) -> usize {
    buf.iter().take_while(|b| **b == PING).count()
}

/// The answer to a handshake.
pub fn handshake_answer(accepted: bool) -> [u8; 1] {
    [u8::from(accepted)]
}

/// The acknowledgement of a packet of `records` records.
pub fn ack(records: usize) -> [u8; 4] {
    u32::try_from(records).unwrap_or(u32::MAX).to_be_bytes()
}

/// A codec of AVL data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// `0x08`.
    Codec8,
    /// `0x8E`.
    Codec8Extended,
    /// `0x10`.
    Codec16,
    /// `0x0C` or `0x0D` (the id): a GPRS command or its reply, no records. The service sends no
    /// commands, but a device may send a reply unasked; it waits for no answer and gets none.
    Command(u8),
}

impl Codec {
    fn from_id(id: u8) -> Option<Codec> {
        match id {
            0x08 => Some(Codec::Codec8),
            0x8E => Some(Codec::Codec8Extended),
            0x10 => Some(Codec::Codec16),
            0x0C | 0x0D => Some(Codec::Command(id)),
            _ => None,
        }
    }

    /// IO ids and the event id are 2 bytes.
    fn wide_ids(self) -> bool {
        self != Codec::Codec8
    }

    /// Element counts are 2 bytes.
    fn wide_counts(self) -> bool {
        self == Codec::Codec8Extended
    }
}

/// One AVL data packet.
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    pub codec: Codec,
    /// As many as the count at the start announces.
    pub records: Vec<Record>,
    /// The record count at the end, as sent: it should repeat the one at the start.
    pub count_at_end: u8,
}

impl Packet {
    /// Whether the two record counts disagree (the records were read by the first).
    pub fn counts_disagree(&self) -> bool {
        usize::from(self.count_at_end) != self.records.len()
    }
}

/// One AVL record: when, the GPS element and the IO elements.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub timestamp: DateTime<Utc>,
    pub priority: u8,
    pub gps: Gps,
    /// The IO element that caused the record (0: none, a periodic record).
    pub event_io: u16,
    /// Codec 16's generation type (on change, on exit, hysteresis...).
    pub generation: Option<u8>,
    /// Every IO element, in the packet's order, as its groups hold them.
    pub io: Vec<(u16, IoValue)>,
    /// The total IO count, as sent: it should be the size of `io`.
    pub io_total: u16,
}

/// The GPS element. Without a fix the device repeats its last valid coordinates and sends 0
/// satellites, angle and speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gps {
    /// Degrees (the wire's integer / 10^7).
    pub longitude: f64,
    pub latitude: f64,
    /// Metres.
    pub altitude: i16,
    /// Degrees from north.
    pub angle: u16,
    pub satellites: u8,
    /// km/h.
    pub speed: u16,
}

/// An IO element's value: fixed width (1, 2, 4 or 8 bytes, unsigned as sent), or Codec 8
/// Extended's variable length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IoValue {
    Fixed { width: u8, value: u64 },
    Bytes(Vec<u8>),
}

impl IoValue {
    /// The fixed-width value, unsigned.
    pub fn unsigned(&self) -> Option<u64> {
        match self {
            IoValue::Fixed { value, .. } => Some(*value),
            IoValue::Bytes(_) => None,
        }
    }
}

/// Reads an AVL data packet from the start of `buf`: the packet and the bytes it took, `Ok(None)`
/// until it is complete. A length field beyond `limit` is refused as soon as it is read.
pub fn read_packet(buf: &[u8], limit: usize) -> Result<Option<(Packet, usize)>, Error> {
    if buf.iter().take(4).any(|b| *b != 0) {
        return malformed("the preamble is not 4 zero bytes");
    }
    let Some(length) = buf.get(4..8) else {
        return Ok(None);
    };
    let length = u32::from_be_bytes(length.try_into().expect("4 bytes"));
    if u64::from(length) > limit as u64 {
        return Err(Error::TooLarge {
            length: u64::from(length),
            limit,
        });
    }
    let length = length as usize;
    let total = 8 + length + 4;
    if buf.len() < total {
        return Ok(None);
    }
    let data = &buf[8..8 + length];
    let sent = u32::from_be_bytes(buf[8 + length..total].try_into().expect("4 bytes"));
    let computed = CRC.checksum(data);
    if sent != u32::from(computed) {
        return Err(Error::Crc { sent, computed });
    }
    Ok(Some((decode(data)?, total)))
}

/// Decodes the data of a packet whose CRC matched: codec id to the second record count.
fn decode(data: &[u8]) -> Result<Packet, Error> {
    let mut at = Cursor { buf: data, pos: 0 };
    let id = at.u8()?;
    let Some(codec) = Codec::from_id(id) else {
        return malformed(format!(
            "codec {id:#04x} is not one read here (8, 8E, 16, 12, 13)"
        ));
    };
    if let Codec::Command(_) = codec {
        // Its text is of no use here, and the CRC vouched for its bytes.
        return Ok(Packet {
            codec,
            records: Vec::new(),
            count_at_end: data.last().copied().unwrap_or(0),
        });
    }
    let count = at.u8()?;
    let records = (0..count)
        .map(|_| record(&mut at, codec))
        .collect::<Result<Vec<Record>, Error>>()?;
    let count_at_end = at.u8()?;
    // Records that do not end where the packet does were read at the wrong offsets.
    if at.pos != data.len() {
        return malformed(format!("{} bytes after the records", data.len() - at.pos));
    }
    Ok(Packet {
        codec,
        records,
        count_at_end,
    })
}

fn record(at: &mut Cursor<'_>, codec: Codec) -> Result<Record, Error> {
    // Signed, as Traccar reads it. A time no date can hold is taken as the first or last date,
    // which the pipeline rejects (and the device is acknowledged) like any time out of its window.
    let millis = at.u64()? as i64;
    let timestamp = DateTime::from_timestamp_millis(millis).unwrap_or(if millis < 0 {
        DateTime::<Utc>::MIN_UTC
    } else {
        DateTime::<Utc>::MAX_UTC
    });
    let priority = at.u8()?;
    let gps = Gps {
        longitude: f64::from(at.u32()? as i32) / 1e7,
        latitude: f64::from(at.u32()? as i32) / 1e7,
        altitude: at.u16()? as i16,
        angle: at.u16()?,
        satellites: at.u8()?,
        speed: at.u16()?,
    };
    let event_io = at.id(codec)?;
    let generation = if codec == Codec::Codec16 {
        Some(at.u8()?)
    } else {
        None
    };
    let io_total = at.count(codec)?;
    let mut io = Vec::new();
    for width in [1u8, 2, 4, 8] {
        for _ in 0..at.count(codec)? {
            let id = at.id(codec)?;
            let value = at.uint(usize::from(width))?;
            io.push((id, IoValue::Fixed { width, value }));
        }
    }
    if codec == Codec::Codec8Extended {
        for _ in 0..at.u16()? {
            let id = at.u16()?;
            let length = usize::from(at.u16()?);
            io.push((id, IoValue::Bytes(at.take(length)?.to_vec())));
        }
    }
    Ok(Record {
        timestamp,
        priority,
        gps,
        event_io,
        generation,
        io,
        io_total,
    })
}

/// Reads big-endian numbers from a packet's data, failing at its end.
struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let Some(bytes) = self.buf.get(self.pos..self.pos + n) else {
            return malformed("a record ends before its data");
        };
        self.pos += n;
        Ok(bytes)
    }

    fn uint(&mut self, n: usize) -> Result<u64, Error> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0, |value, byte| (value << 8) | u64::from(*byte)))
    }

    fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, Error> {
        Ok(self.uint(2)? as u16)
    }

    fn u32(&mut self) -> Result<u32, Error> {
        Ok(self.uint(4)? as u32)
    }

    fn u64(&mut self) -> Result<u64, Error> {
        self.uint(8)
    }

    fn id(&mut self, codec: Codec) -> Result<u16, Error> {
        if codec.wide_ids() {
            self.u16()
        } else {
            self.u8().map(u16::from)
        }
    }

    fn count(&mut self, codec: Codec) -> Result<u16, Error> {
        if codec.wide_counts() {
            self.u16()
        } else {
            self.u8().map(u16::from)
        }
    }
}

/// Teltonika's IO element ids the service reads (FMB family "AVL ID" list).
pub mod io {
    /// Digital input 1 on FMB devices is ignition by default; 239 is the ignition element.
    pub const IGNITION: u16 = 239;
    /// The accelerometer's movement sensor.
    pub const MOVEMENT: u16 = 240;
    /// External voltage, mV.
    pub const EXTERNAL_VOLTAGE: u16 = 66;
    /// Backup battery voltage, mV.
    pub const BATTERY_VOLTAGE: u16 = 67;
    /// Backup battery level, %.
    pub const BATTERY_LEVEL: u16 = 113;
    /// Alarm (panic button).
    pub const ALARM: u16 = 236;
    /// Crash detection.
    pub const CRASH: u16 = 247;
    /// GNSS/GSM jamming.
    pub const JAMMING: u16 = 249;
    /// External power unplugged.
    pub const UNPLUG: u16 = 252;
    /// Green driving type: 1 harsh acceleration, 2 harsh braking, 3 harsh cornering.
    pub const GREEN_DRIVING: u16 = 253;
}

impl Record {
    /// Whether the total IO count disagrees with the IO groups (which were read).
    pub fn io_total_disagrees(&self) -> bool {
        usize::from(self.io_total) != self.io.len()
    }

    /// The record in the service's units. Without a fix (0 satellites) the coordinates are the
    /// last valid ones, repeated, so no position, speed or heading is reported.
    pub fn report(&self) -> Report {
        let fix = self.gps.satellites > 0;
        let mut report = Report {
            timestamp: Some(self.timestamp),
            satellites: Some(self.gps.satellites),
            ..Report::default()
        };
        if fix {
            report.latitude = Some(self.gps.latitude);
            report.longitude = Some(self.gps.longitude);
            report.altitude = Some(f64::from(self.gps.altitude));
            report.heading = Some(f64::from(self.gps.angle));
            report.speed = Some(f64::from(self.gps.speed));
        }
        for (id, value) in &self.io {
            let Some(value) = value.unsigned() else {
                continue;
            };
            let on = value > 0;
            match *id {
                io::IGNITION => report.ignition = Some(on),
                io::MOVEMENT => report.moving = Some(on),
                io::EXTERNAL_VOLTAGE => report.input_voltage = Some(value as f64 / 1000.0),
                io::BATTERY_VOLTAGE => report.battery_voltage = Some(value as f64 / 1000.0),
                io::BATTERY_LEVEL => report.battery_percentage = Some(value as f64),
                io::ALARM => report.signals.alarm = Some(on),
                io::CRASH => report.signals.accident = Some(on),
                io::JAMMING => report.signals.jamming = Some(on),
                io::UNPLUG => report.signals.power_disconnected = Some(on),
                io::GREEN_DRIVING => report.signals.hard_cornering = Some(value == 3),
                _ => {}
            }
        }
        report
    }
}

mod listener;
pub use crate::Ingest;
pub use listener::{Limits, Listener, Stats, TlsAcceptor, serve_connection};

#[cfg(test)]
mod tests;
