//! HTTP as game managers speak it, over std's sockets: one POST a
//! connection, its body read by `Content-Length`, one reply with its
//! `Content-Length`, then the connection closed (Dresden's manager reads a
//! reply until the stream ends; GGP-Base reads the length).
//!
//! Written on std rather than an HTTP crate because the protocol needs
//! exactly this and control of the socket: a reply written the moment it is
//! ready and the connection closed after it, whatever the request's
//! keep-alive headers say.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};

/// The longest header block accepted.
const MAX_HEADERS: usize = 64 << 10;
/// The longest body accepted (the largest corpus games are under 1 MB).
const MAX_BODY: usize = 64 << 20;

/// Reads one request's body from `stream`.
pub fn read_request(stream: &mut TcpStream) -> io::Result<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > MAX_HEADERS {
            return Err(invalid("the request's headers are too long"));
        }
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(invalid(
                "the connection closed before the request's headers ended",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let headers = String::from_utf8_lossy(&buf[..header_end]).into_owned();
    let mut body = buf.split_off(header_end);
    match content_length(&headers)? {
        Some(len) if len > MAX_BODY => return Err(invalid("the request's body is too long")),
        Some(len) => {
            while body.len() < len {
                let n = stream.read(&mut chunk)?;
                if n == 0 {
                    return Err(invalid(
                        "the connection closed before the request's body ended",
                    ));
                }
                body.extend_from_slice(&chunk[..n]);
            }
            body.truncate(len);
        }
        // No length: the body runs to the end of the stream.
        None => {
            stream.take(MAX_BODY as u64).read_to_end(&mut body)?;
        }
    }
    String::from_utf8(body).map_err(|_| invalid("the request's body is not UTF-8"))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

fn content_length(headers: &str) -> io::Result<Option<usize>> {
    for line in headers.lines().skip(1) {
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                return value
                    .trim()
                    .parse()
                    .map(Some)
                    .map_err(|_| invalid("the Content-Length is not a number"));
            }
        }
    }
    Ok(None)
}

/// Writes `body` as the reply (`status` such as `200 OK`), then closes the
/// connection.
pub fn write_reply(stream: &mut TcpStream, status: &str, body: &str) -> io::Result<()> {
    let reply = format!(
        "HTTP/1.0 {status}\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\
         Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Headers: *\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(reply.as_bytes())?;
    stream.flush()?;
    stream.shutdown(Shutdown::Write)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_length_is_read_in_any_case() {
        let h = "POST / HTTP/1.1\r\ncontent-LENGTH: 12\r\nHost: x\r\n\r\n";
        assert_eq!(content_length(h).unwrap(), Some(12));
        assert_eq!(content_length("POST / HTTP/1.1\r\n\r\n").unwrap(), None);
        assert!(content_length("POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n").is_err());
    }
}
