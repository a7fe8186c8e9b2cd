//! A Teltonika device: the bytes of its handshake and AVL data packets, and a TCP connection
//! that sends them and reads the server's answers.
//!
//! Packet: 4 zero bytes, the data field length (4 bytes), then the data field (codec id, record
//! count, records, record count again), then the CRC-16/IBM of the data field in 4 bytes. A
//! record: timestamp (ms, 8 bytes), priority, GPS element (longitude, latitude as 1e-7 degrees,
//! altitude m, angle degrees, satellites, speed km/h), then IO elements grouped by size. Codec 8
//! writes ids and counts in 1 byte, Codec 8 Extended in 2 and adds variable-length elements.

use std::io;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, ToSocketAddrs};

/// CRC-16/IBM as the documentation gives it: polynomial 0xA001 (reflected 0x8005), initial value
/// 0, bit by bit.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for byte in data {
        crc ^= u16::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xA001
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// The handshake: the IMEI's length in 2 bytes, then the IMEI in ASCII.
pub fn handshake(imei: &str) -> Vec<u8> {
    let mut bytes = (imei.len() as u16).to_be_bytes().to_vec();
    bytes.extend(imei.as_bytes());
    bytes
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// 0x08: 1-byte IO ids and counts.
    Eight,
    /// 0x8E: 2-byte IO ids and counts, and variable-length elements.
    EightExtended,
}

/// An IO element's value, in the size the device sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Io {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
}

/// One AVL record.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Unix milliseconds.
    pub millis: u64,
    pub priority: u8,
    pub latitude: f64,
    pub longitude: f64,
    pub altitude: i16,
    pub angle: u16,
    /// 0 means no fix.
    pub satellites: u8,
    /// km/h.
    pub speed: u16,
    /// The IO element that caused the record (0 for a periodic one).
    pub event_io: u16,
    pub io: Vec<(u16, Io)>,
}

impl Record {
    /// A fix at `millis` with no IO elements.
    pub fn at(millis: u64, latitude: f64, longitude: f64, speed: u16) -> Record {
        Record {
            millis,
            priority: 0,
            latitude,
            longitude,
            altitude: 100,
            angle: 90,
            satellites: 9,
            speed,
            event_io: 0,
            io: Vec::new(),
        }
    }

    pub fn with(mut self, id: u16, value: Io) -> Record {
        self.io.push((id, value));
        self
    }
}

/// An AVL data packet of `records`.
pub fn packet(codec: Codec, records: &[Record]) -> Vec<u8> {
    let count = u8::try_from(records.len()).expect("at most 255 records a packet");
    let mut data = vec![
        match codec {
            Codec::Eight => 0x08,
            Codec::EightExtended => 0x8E,
        },
        count,
    ];
    for record in records {
        write_record(&mut data, codec, record);
    }
    data.push(count);
    let mut bytes = vec![0, 0, 0, 0];
    bytes.extend((data.len() as u32).to_be_bytes());
    bytes.extend(&data);
    bytes.extend(u32::from(crc16(&data)).to_be_bytes());
    bytes
}

fn write_record(data: &mut Vec<u8>, codec: Codec, r: &Record) {
    data.extend(r.millis.to_be_bytes());
    data.push(r.priority);
    data.extend(((r.longitude * 1e7).round() as i32).to_be_bytes());
    data.extend(((r.latitude * 1e7).round() as i32).to_be_bytes());
    data.extend(r.altitude.to_be_bytes());
    data.extend(r.angle.to_be_bytes());
    data.push(r.satellites);
    data.extend(r.speed.to_be_bytes());
    // Ids and counts: 1 byte in Codec 8, 2 in Codec 8 Extended.
    let small = |data: &mut Vec<u8>, n: u16| match codec {
        Codec::Eight => data.push(n as u8),
        Codec::EightExtended => data.extend(n.to_be_bytes()),
    };
    small(data, r.event_io);
    small(data, r.io.len() as u16);
    // Elements grouped by size: 1, 2, 4, then 8 bytes.
    for size in [1, 2, 4, 8] {
        let group: Vec<(u16, Vec<u8>)> =
            r.io.iter()
                .map(|(id, v)| (*id, value_bytes(v)))
                .filter(|(_, bytes)| bytes.len() == size)
                .collect();
        small(data, group.len() as u16);
        for (id, bytes) in group {
            small(data, id);
            data.extend(bytes);
        }
    }
    if codec == Codec::EightExtended {
        data.extend(0u16.to_be_bytes()); // no variable-length elements
    }
}

fn value_bytes(v: &Io) -> Vec<u8> {
    match *v {
        Io::U8(n) => vec![n],
        Io::U16(n) => n.to_be_bytes().to_vec(),
        Io::U32(n) => n.to_be_bytes().to_vec(),
        Io::U64(n) => n.to_be_bytes().to_vec(),
    }
}

/// A device connected to a server, over TCP or anything else that carries bytes (TLS).
pub struct Device<S = TcpStream> {
    pub stream: S,
}

impl Device {
    pub async fn connect(address: impl ToSocketAddrs) -> io::Result<Device> {
        Ok(Device {
            stream: TcpStream::connect(address).await?,
        })
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Device<S> {
    /// A device that speaks over `stream`, connected already.
    pub fn over(stream: S) -> Device<S> {
        Device { stream }
    }

    /// Sends the handshake; whether the server accepted the IMEI (`0x01`).
    pub async fn handshake(&mut self, imei: &str) -> io::Result<bool> {
        self.stream.write_all(&handshake(imei)).await?;
        let mut answer = [0u8; 1];
        self.stream.read_exact(&mut answer).await?;
        Ok(answer[0] == 1)
    }

    /// Sends a packet and waits up to `wait` for its acknowledgement: the record count the
    /// server took, or `None` when it closed the connection or said nothing.
    pub async fn send(&mut self, packet: &[u8], wait: Duration) -> io::Result<Option<u32>> {
        self.stream.write_all(packet).await?;
        self.acknowledgement(wait).await
    }

    /// The next acknowledgement, within `wait`.
    pub async fn acknowledgement(&mut self, wait: Duration) -> io::Result<Option<u32>> {
        let mut ack = [0u8; 4];
        match tokio::time::timeout(wait, self.stream.read_exact(&mut ack)).await {
            Ok(Ok(_)) => Ok(Some(u32::from_be_bytes(ack))),
            Ok(Err(e)) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Ok(Err(e)) => Err(e),
            Err(_) => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first example of Teltonika's Codec 8 page: one record, CRC 0xC7CF.
    #[test]
    fn codec_8_example_of_the_documentation() {
        let record = Record {
            millis: 0x0000_016B_40D8_EA30,
            priority: 1,
            latitude: 0.0,
            longitude: 0.0,
            altitude: 0,
            angle: 0,
            satellites: 0,
            speed: 0,
            event_io: 1,
            io: vec![
                (0x15, Io::U8(3)),
                (0x01, Io::U8(1)),
                (0x42, Io::U16(0x5E0F)),
                (0xF1, Io::U32(0x0000_601A)),
                (0x4E, Io::U64(0)),
            ],
        };
        let bytes = packet(Codec::Eight, &[record]);
        let expected = "000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF";
        let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(hex, expected);
    }
}
