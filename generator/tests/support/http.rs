//! A small HTTP/1.1 client over loopback for the tests of `damka serve`
//! (and for WebDriver, which speaks JSON over HTTP), and a `damka serve`
//! process that stops with the test.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// An answer: its status and its body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// One connection, kept open between requests while the server keeps it.
pub struct Client {
    addr: SocketAddr,
    reader: BufReader<TcpStream>,
    /// The last answer said "Connection: close".
    closed: bool,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> io::Result<Client> {
        Ok(Client { addr, reader: BufReader::new(Client::open(addr)?), closed: false })
    }

    fn open(addr: SocketAddr) -> io::Result<TcpStream> {
        let stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        stream.set_nodelay(true)?;
        Ok(stream)
    }

    pub fn get(&mut self, target: &str) -> io::Result<Answer> {
        self.send("GET", target, None)
    }

    /// Sends a request (with a JSON body if given) and reads the answer.
    pub fn send(&mut self, method: &str, target: &str, json: Option<&str>) -> io::Result<Answer> {
        let mut head = format!("{method} {target} HTTP/1.1\r\nHost: localhost\r\n");
        if let Some(body) = json {
            head += &format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len());
        }
        head += "\r\n";
        if self.closed {
            self.reader = BufReader::new(Client::open(self.addr)?);
            self.closed = false;
        }
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes())?;
        stream.write_all(json.unwrap_or("").as_bytes())?;
        self.read_answer()
    }

    fn read_answer(&mut self) -> io::Result<Answer> {
        let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        let mut status_line = String::new();
        if self.reader.read_line(&mut status_line)? == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed before an answer"));
        }
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(format!("status line '{status_line}'")))?;
        let (mut length, mut content_type) = (None, String::new());
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').ok_or_else(|| bad(format!("header '{line}'")))?;
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse::<usize>().ok(),
                "content-type" => content_type = value.trim().to_string(),
                "connection" => self.closed = value.trim().eq_ignore_ascii_case("close"),
                _ => {}
            }
        }
        let mut body = Vec::new();
        match length {
            Some(n) => {
                body.resize(n, 0);
                self.reader.read_exact(&mut body)?;
            }
            None => {
                self.reader.read_to_end(&mut body)?;
            }
        }
        Ok(Answer { status, content_type, body: String::from_utf8_lossy(&body).into_owned() })
    }
}

/// GET on a new connection.
pub fn get(addr: SocketAddr, target: &str) -> Answer {
    Client::connect(addr).and_then(|mut c| c.get(target)).unwrap_or_else(|e| panic!("GET {target}: {e}"))
}

/// Writes raw bytes on a new connection and reads the answer (for requests
/// no client would send).
pub fn raw(addr: SocketAddr, bytes: &[u8]) -> io::Result<Answer> {
    let mut client = Client::connect(addr)?;
    client.reader.get_mut().write_all(bytes)?;
    client.read_answer()
}

/// Percent-encodes a query value.
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `damka serve` on a free loopback port, stopped on drop.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
}

impl Server {
    pub fn start(dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damka"))
            .args(["serve", "--port", "0", "--dir"])
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("damka serve starts");
        // Its first line: "damka serve: ... at http://127.0.0.1:PORT/".
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("damka serve prints");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.trim().trim_end_matches('/').parse().ok())
            .unwrap_or_else(|| panic!("no address in '{line}'"));
        Server { child, addr }
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().expect("wait").is_none()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
