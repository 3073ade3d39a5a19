//! A small HTTP/1.1 server for `damka serve`: GET and HEAD only, no
//! request bodies, and a bound on everything a client controls (the size
//! of a request head, the connections open at once, how long a client may
//! take to send a request), so that no client can take the server down.
//! httparse reads the request head; the rest is the standard library.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use damka::fen::excerpt;

/// The most bytes a request head (request line and headers) may take.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// The most connections served at once; more get 503 at once.
pub const MAX_CONNECTIONS: usize = 128;
/// How long a client may take to send a whole request head, and how long
/// an idle keep-alive connection stays open.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// Requests on one connection before the server closes it, so that no
/// client holds a connection slot for ever.
const REQUESTS_PER_CONNECTION: usize = 1000;
const MAX_HEADERS: usize = 64;

/// A request the handler sees: its path and its query, decoded.
#[derive(Debug)]
pub struct Request {
    pub path: String,
    pub query: Vec<(String, String)>,
}

impl Request {
    /// The first value of the query parameter `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// An answer: a status, a content type and a body.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Response {
    pub fn new(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Response {
        Response { status, content_type, body: body.into() }
    }

    /// A JSON error: `{"error": message}`.
    pub fn error(status: u16, message: &str) -> Response {
        let body = format!("{}\n", serde_json::json!({ "error": message }));
        Response::new(status, "application/json", body)
    }
}

pub type Handler = dyn Fn(&Request) -> Response + Send + Sync;

/// Serves `listener` for ever, a thread a connection, at most
/// [`MAX_CONNECTIONS`] at once.
pub fn serve(listener: TcpListener, handler: Arc<Handler>) -> io::Result<()> {
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        // A failed accept (a client gone before it was accepted, no file
        // descriptor left for a moment) concerns that client only.
        let Ok(mut stream) = stream else { continue };
        let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
        if open.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::AcqRel);
            let busy = Response::error(503, "too many connections at once: try again");
            let _ = write_response(&mut stream, &busy, false, true);
            continue;
        }
        let (open, handler) = (open.clone(), handler.clone());
        // If no thread can be had, the closure and its slot are dropped
        // and the client sees its connection closed.
        let _ = std::thread::Builder::new().name("damka-serve".into()).spawn(move || {
            // The count goes down however the connection ends.
            let _slot = Slot(open);
            // A connection that fails (reset, timed out) concerns its client only.
            let _ = connection(stream, &*handler);
        });
    }
    Ok(())
}

/// One connection slot, given back on drop.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves the requests of one connection until the client closes it, asks
/// to, sends something the server will not read on, or times out.
fn connection(mut stream: TcpStream, handler: &Handler) -> io::Result<()> {
    let mut buf = Vec::with_capacity(1024);
    for served in 1..=REQUESTS_PER_CONNECTION {
        let Some(head_len) = read_head(&mut stream, &mut buf)? else {
            // Closed, or the head is over the limit.
            if buf.len() > MAX_HEAD_BYTES {
                let status = if buf[..MAX_HEAD_BYTES].windows(2).any(|w| w == b"\r\n") { 431 } else { 414 };
                let why = format!("the request head is over {MAX_HEAD_BYTES} bytes");
                write_response(&mut stream, &Response::error(status, &why), false, true)?;
            }
            return Ok(());
        };
        let parsed = parse(&buf[..head_len]);
        buf.drain(..head_len);
        let (response, head_only, keep_alive) = match parsed {
            Ok(head) => {
                let keep_alive = head.keep_alive && served < REQUESTS_PER_CONNECTION;
                (answer(&head, handler), head.method == "HEAD", keep_alive)
            }
            // The server cannot tell where the next request would start.
            Err(response) => (response, false, false),
        };
        write_response(&mut stream, &response, head_only, !keep_alive)?;
        if !keep_alive {
            break;
        }
    }
    Ok(())
}

/// Reads into `buf` until it holds a whole request head; its length, or
/// `None` if the client closed the connection or the head is over
/// [`MAX_HEAD_BYTES`] (then `buf` is longer than that).
fn read_head(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<Option<usize>> {
    let mut chunk = [0u8; 4096];
    // One deadline for the whole head: a client sending a byte at a time
    // gets no more time than one sending all at once.
    let deadline = Instant::now() + READ_TIMEOUT;
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok((end + 4 <= MAX_HEAD_BYTES).then_some(end + 4));
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Ok(None);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        stream.set_read_timeout(Some(left))?;
        let n = match stream.read(&mut chunk) {
            Ok(0) => return Ok(None),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// What the server reads of a request head.
struct Head {
    method: String,
    target: String,
    keep_alive: bool,
}

/// Parses a request head; a 4xx answer for one the server will not serve.
fn parse(bytes: &[u8]) -> Result<Head, Response> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(bytes) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err(Response::error(400, "incomplete request head")),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(Response::error(431, &format!("more than {MAX_HEADERS} headers")))
        }
        Err(e) => return Err(Response::error(400, &format!("malformed request: {e}"))),
    }
    let header = |name: &str| {
        req.headers.iter().find(|h| h.name.eq_ignore_ascii_case(name)).map(|h| String::from_utf8_lossy(h.value))
    };
    // Without reading a body the server cannot find the next request.
    let has_body = header("transfer-encoding").is_some()
        || header("content-length").is_some_and(|n| n.trim().parse::<u64>().map_or(true, |n| n > 0));
    if has_body {
        return Err(Response::error(413, "this server takes no request bodies"));
    }
    let connection = header("connection").map(|c| c.to_ascii_lowercase());
    let keep_alive = match req.version {
        Some(1) => connection.as_deref() != Some("close"),
        _ => connection.as_deref() == Some("keep-alive"),
    };
    Ok(Head {
        method: req.method.unwrap_or_default().to_string(),
        target: req.path.unwrap_or_default().to_string(),
        keep_alive,
    })
}

/// The handler's answer to a GET or HEAD; 405 to any other method, 400 to
/// a target that does not decode.
fn answer(head: &Head, handler: &Handler) -> Response {
    if head.method != "GET" && head.method != "HEAD" {
        return Response::error(405, &format!("method {}: only GET and HEAD", excerpt(&head.method)));
    }
    match decode_target(&head.target) {
        Ok(request) => handler(&request),
        Err(why) => Response::error(400, &why),
    }
}

/// Splits a request target into its path and its decoded query.
fn decode_target(target: &str) -> Result<Request, String> {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let path = percent_decode(path, false)?;
    let query = query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((percent_decode(k, true)?, percent_decode(v, true)?))
        })
        .collect::<Result<_, String>>()?;
    Ok(Request { path, query })
}

/// Decodes `%XX` escapes (and, in a query, `+` as a space) into UTF-8.
fn percent_decode(text: &str, query: bool) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok());
                out.push(byte.ok_or_else(|| format!("bad escape in '{}': % must be followed by two hex digits", excerpt(text)))?);
                i += 3;
            }
            b'+' if query => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| format!("'{}' does not decode to UTF-8", excerpt(text)))
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

fn write_response(stream: &mut TcpStream, response: &Response, head_only: bool, close: bool) -> io::Result<()> {
    let mut out = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len()
    );
    if response.status == 405 {
        out.push_str("Allow: GET, HEAD\r\n");
    }
    if response.status == 503 {
        out.push_str("Retry-After: 1\r\n");
    }
    out.push_str(if close { "Connection: close\r\n\r\n" } else { "Connection: keep-alive\r\n\r\n" });
    let mut bytes = out.into_bytes();
    if !head_only {
        bytes.extend_from_slice(&response.body);
    }
    stream.write_all(&bytes)?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_decode_into_path_and_query() {
        let r = decode_target("/api/probe?fen=W%3AWKa1%2CKc3%3ABKh2&quiet=3&x=a+b").unwrap();
        assert_eq!(r.path, "/api/probe");
        assert_eq!(r.param("fen"), Some("W:WKa1,Kc3:BKh2"));
        assert_eq!(r.param("quiet"), Some("3"));
        assert_eq!(r.param("x"), Some("a b"));
        assert_eq!(r.param("missing"), None);
        assert!(decode_target("/?fen=%zz").is_err());
        assert!(decode_target("/?fen=%ff%fe").is_err());
        assert!(decode_target("/?fen=%4").is_err());
    }

    #[test]
    fn heads_with_bodies_or_garbage_are_refused() {
        assert_eq!(parse(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").ok().map(|h| h.keep_alive), Some(true));
        assert_eq!(parse(b"GET / HTTP/1.0\r\n\r\n").ok().map(|h| h.keep_alive), Some(false));
        assert_eq!(parse(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n").ok().map(|h| h.keep_alive), Some(false));
        assert_eq!(parse(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n").err().map(|r| r.status), Some(413));
        assert_eq!(parse(b"\x01\x02 nonsense\r\n\r\n").err().map(|r| r.status), Some(400));
    }
}
