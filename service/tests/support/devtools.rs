//! Just enough of the Chrome DevTools Protocol to watch a page that never finishes (one with a
//! live stream): headless chromium with a debugging port, one page, `Page.navigate` and
//! `Runtime.evaluate` over a minimal WebSocket client (RFC 6455: masked text frames out, text
//! frames in). `--dump-dom` cannot: it dumps at the load event, before anything streams in.

use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

pub struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
    socket: BufReader<TcpStream>,
    next_id: u64,
}

impl Browser {
    /// Starts headless `chromium` and connects to its first page.
    pub async fn start(chromium: &str) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let port_file = profile.path().join("DevToolsActivePort");
        let child = Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromium starts");
        // Chromium writes the port it chose into the profile.
        let started = Instant::now();
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file)
                && let Some(port) = text.lines().next().and_then(|l| l.parse::<u16>().ok())
            {
                break port;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "no DevTools port"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let targets: Vec<Value> = reqwest::get(format!("http://127.0.0.1:{port}/json/list"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let page = targets
            .iter()
            .find(|t| t["type"] == "page")
            .expect("a page target");
        let url = page["webSocketDebuggerUrl"].as_str().unwrap();
        let path = url.splitn(4, '/').nth(3).unwrap();
        let mut socket = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let handshake = format!(
            "GET /{path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n\r\n"
        );
        socket.write_all(handshake.as_bytes()).await.unwrap();
        let mut socket = BufReader::new(socket);
        let mut status = String::new();
        socket.read_line(&mut status).await.unwrap();
        assert!(
            status.contains(" 101 "),
            "WebSocket upgrade refused: {status}"
        );
        loop {
            let mut line = String::new();
            socket.read_line(&mut line).await.unwrap();
            if line == "\r\n" {
                break;
            }
        }
        Browser {
            child,
            _profile: profile,
            socket,
            next_id: 0,
        }
    }

    async fn send_frame(&mut self, text: &str) {
        let payload = text.as_bytes();
        let mut frame = vec![0x81u8];
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n < 65536 => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        let mask = [0x37, 0xfa, 0x21, 0x3d];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.socket.get_mut().write_all(&frame).await.unwrap();
    }

    /// The next whole text message (fragments joined).
    async fn read_message(&mut self) -> String {
        let mut message = Vec::new();
        loop {
            let mut head = [0u8; 2];
            self.socket.read_exact(&mut head).await.unwrap();
            let length = match head[1] & 0x7f {
                126 => u64::from(self.socket.read_u16().await.unwrap()),
                127 => self.socket.read_u64().await.unwrap(),
                n => u64::from(n),
            };
            let mut payload = vec![0u8; length as usize];
            self.socket.read_exact(&mut payload).await.unwrap();
            message.extend_from_slice(&payload);
            if head[0] & 0x80 != 0 {
                return String::from_utf8(message).unwrap();
            }
        }
    }

    /// Sends a command and answers its result (events in between are skipped).
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let command = json!({"id": id, "method": method, "params": params}).to_string();
        self.send_frame(&command).await;
        loop {
            let message: Value = serde_json::from_str(&self.read_message().await).unwrap();
            if message["id"] == id {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    pub async fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url })).await;
    }

    /// The value of a JavaScript expression in the page.
    pub async fn evaluate(&mut self, expression: &str) -> Value {
        let result = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
            )
            .await;
        result["result"]["value"].clone()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
