//! The shared secret, and how a TCP client proves it holds it.
//!
//! # The key
//!
//! A [`Key`] is HMAC-SHA256 keyed with the secret file's bytes (surrounding ASCII whitespace
//! removed, at least [`MIN_SECRET_LEN`]). The UDP echo server tags datagrams with it
//! (`nmc_probe::wire`); the TCP servers use it for the handshake below.
//!
//! # The handshake (TCP, only when the server has a secret)
//!
//! ```text
//! server → client   "NMCauth1" | nonce (16 random bytes)                  24 bytes
//! client → server   HMAC-SHA256(key, "nmc-serve auth v1" | nonce)          32 bytes
//! server → client   0x01                                                   1 byte, then the server's own protocol
//! ```
//!
//! A wrong answer, or none within the gate's handshake deadline, and the server closes the
//! connection without a word. The nonce is fresh per connection (the thread-local CSPRNG of
//! `rand`, seeded from the OS), so a recorded answer is worthless on another connection. Left
//! out, on purpose: the server does not prove itself to the client, and the bytes after the
//! handshake are not authenticated (a secret keeps strangers from using the server's slots and
//! CPU; it is not a secure channel). Without a secret nothing is sent: old clients keep working.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::io::{self, Read, Write};
use std::path::Path;
use thiserror::Error;

/// Shortest secret accepted, in bytes. **Choice**: 16 bytes, 128 bits, when drawn at random.
pub const MIN_SECRET_LEN: usize = 16;
/// The most bytes a secret file may hold. **Choice**: 64 KiB, far past any key a person types
/// or a tool writes (32 random bytes in base64 are 44; a 4096-bit PEM key about 3.3 kB), read
/// in an instant. Checked while reading (issue 57 §3: `--secret-file /dev/zero` was read
/// without end).
pub const MAX_SECRET_FILE_BYTES: u64 = 64 << 10;
/// The challenge's first bytes: what a client sees first from a server that wants a secret.
pub const CHALLENGE_MAGIC: [u8; 8] = *b"NMCauth1";
/// Bytes of the nonce. **Choice**: 128 bits never repeat by chance.
pub const NONCE_LEN: usize = 16;
/// Bytes of the challenge (magic and nonce).
pub const CHALLENGE_LEN: usize = CHALLENGE_MAGIC.len() + NONCE_LEN;
/// Bytes of the answer: a whole HMAC-SHA256.
pub const ANSWER_LEN: usize = 32;
/// The server's "accepted" byte.
pub const ACCEPTED: u8 = 0x01;
/// Domain separation: an answer can never be mistaken for a datagram tag.
const CONTEXT: &[u8] = b"nmc-serve auth v1";

/// Why a [`Key`] could not be made.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// The secret (from a file: with surrounding whitespace removed) is shorter than
    /// [`MIN_SECRET_LEN`]; holds its length in bytes.
    #[error("secret is {0} bytes; at least {MIN_SECRET_LEN} are required")]
    ShortSecret(usize),
    /// The secret file could not be read.
    #[error("cannot read secret file {path}: {reason}")]
    SecretFile {
        /// The file, as displayed.
        path: String,
        /// The operating system's error, as text.
        reason: String,
    },
}

/// A shared secret, prepared for HMAC-SHA256.
#[derive(Clone)]
pub struct Key {
    mac: Hmac<Sha256>,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    /// A key from raw secret bytes (at least [`MIN_SECRET_LEN`]).
    pub fn new(secret: &[u8]) -> Result<Key, KeyError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(KeyError::ShortSecret(secret.len()));
        }
        let mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC accepts keys of any length");
        Ok(Key { mac })
    }

    /// A key from a file: its whole contents with leading and trailing ASCII whitespace removed
    /// (so `head -c 32 /dev/urandom | base64 > secret` and an editor's final newline both work).
    /// Only a regular file of at most [`MAX_SECRET_FILE_BYTES`] is read: a device, a named pipe
    /// (whose open would wait for a writer) or a folder is refused before it is opened.
    pub fn from_file(path: &Path) -> Result<Key, KeyError> {
        let fail = |reason: String| KeyError::SecretFile {
            path: path.display().to_string(),
            reason,
        };
        let regular = |m: std::fs::Metadata| {
            if m.is_file() {
                Ok(())
            } else {
                Err(fail("not a regular file".into()))
            }
        };
        regular(std::fs::metadata(path).map_err(|e| fail(e.to_string()))?)?;
        let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
        regular(file.metadata().map_err(|e| fail(e.to_string()))?)?;
        let mut bytes = Vec::new();
        file.take(MAX_SECRET_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| fail(e.to_string()))?;
        if bytes.len() as u64 > MAX_SECRET_FILE_BYTES {
            return Err(fail(format!(
                "more than {MAX_SECRET_FILE_BYTES} bytes (a limit of nmc's: a secret is short)"
            )));
        }
        Key::new(bytes.trim_ascii())
    }

    /// HMAC-SHA256 of the concatenated `parts`.
    pub fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = self.mac.clone();
        for p in parts {
            mac.update(p);
        }
        mac.finalize().into_bytes().into()
    }

    /// The leftmost `N` bytes of the HMAC of `data` (RFC 2104 §5 allows truncation to half).
    pub fn tag<const N: usize>(&self, data: &[u8]) -> [u8; N] {
        let full = self.mac(&[data]);
        let mut out = [0u8; N];
        out.copy_from_slice(&full[..N]);
        out
    }

    /// Whether `tag` is the leftmost bytes of the HMAC of `data`, compared in constant time.
    pub fn verify(&self, data: &[u8], tag: &[u8]) -> bool {
        let mut mac = self.mac.clone();
        mac.update(data);
        mac.verify_truncated_left(tag).is_ok()
    }

    fn answer(&self, nonce: &[u8]) -> [u8; ANSWER_LEN] {
        self.mac(&[CONTEXT, nonce])
    }

    fn check_answer(&self, nonce: &[u8], answer: &[u8]) -> bool {
        let mut mac = self.mac.clone();
        mac.update(CONTEXT);
        mac.update(nonce);
        mac.verify_slice(answer).is_ok()
    }
}

/// The server's side: challenge, check the answer, say yes. `Ok(false)` when the answer is
/// wrong (the caller closes without a word); errors are the stream's (the gate's deadline among
/// them).
pub fn challenge<S: Read + Write>(s: &mut S, key: &Key) -> io::Result<bool> {
    let nonce: [u8; NONCE_LEN] = rand::random();
    let mut c = [0u8; CHALLENGE_LEN];
    c[..CHALLENGE_MAGIC.len()].copy_from_slice(&CHALLENGE_MAGIC);
    c[CHALLENGE_MAGIC.len()..].copy_from_slice(&nonce);
    s.write_all(&c)?;
    let mut a = [0u8; ANSWER_LEN];
    s.read_exact(&mut a)?;
    if !key.check_answer(&nonce, &a) {
        return Ok(false);
    }
    s.write_all(&[ACCEPTED])?;
    Ok(true)
}

/// Why a client's handshake failed: one line each.
#[derive(Debug, Error)]
pub enum AuthError {
    /// The server sent no challenge before the read timed out or the connection ended, or its
    /// first bytes are not [`CHALLENGE_MAGIC`]: it has no secret, or is not an nmc server.
    #[error(
        "it asked for no secret (is it running without --secret-file, or is it not an nmc server?)"
    )]
    NoChallenge,
    /// The server closed the connection before any challenge (issue 57 §6: this used to read
    /// as [`AuthError::NoChallenge`]). An nmc server does that, without a word, when it turns
    /// a connection away: all its slots busy, or this address's share of them used. A server
    /// without a secret keeps the connection open and waits for the request instead.
    #[error(
        "it closed the connection before its challenge: it turned this connection away (all its \
         slots busy, or this address's share of them in use; try again later), or it is not an \
         nmc server"
    )]
    Closed,
    /// The server answered with a byte other than [`ACCEPTED`], or closed the connection: the
    /// two secrets differ.
    #[error("it refused the secret (the two --secret-file differ)")]
    Refused,
    /// The server sent its challenge and then nothing (no verdict on the answer) before the
    /// stream's timeout: a read timed out (`WouldBlock`/`TimedOut`, which the system words as
    /// "Resource temporarily unavailable (os error 11)").
    #[error("it sent its challenge, then no word on the answer within the timeout")]
    Silent,
    /// Any other failure of the stream during the handshake.
    #[error("during the secret handshake: {0}")]
    Io(#[from] io::Error),
}

/// The client's side: read the challenge, answer, wait for the server's yes. The caller sets
/// the stream's timeouts (a server without a secret sends nothing, so the read times out:
/// [`AuthError::NoChallenge`]).
pub fn answer<S: Read + Write>(s: &mut S, key: &Key) -> Result<(), AuthError> {
    let mut c = [0u8; CHALLENGE_LEN];
    match s.read_exact(&mut c) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Err(AuthError::Closed),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            return Err(AuthError::NoChallenge);
        }
        Err(e) => return Err(e.into()),
    }
    if c[..CHALLENGE_MAGIC.len()] != CHALLENGE_MAGIC {
        return Err(AuthError::NoChallenge);
    }
    s.write_all(&key.answer(&c[CHALLENGE_MAGIC.len()..]))
        .map_err(|e| {
            if timed_out(&e) {
                AuthError::Silent
            } else {
                e.into()
            }
        })?;
    let mut ok = [0u8; 1];
    match s.read_exact(&mut ok) {
        Ok(()) if ok[0] == ACCEPTED => Ok(()),
        Ok(()) => Err(AuthError::Refused),
        Err(e) if timed_out(&e) => Err(AuthError::Silent),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::UnexpectedEof
                    | io::ErrorKind::ConnectionReset
                    | io::ErrorKind::ConnectionAborted
                    | io::ErrorKind::BrokenPipe
            ) =>
        {
            Err(AuthError::Refused)
        }
        Err(e) => Err(e.into()),
    }
}

/// Whether an I/O error is a read or write that ran out of time: `TimedOut`, or `WouldBlock`
/// from a socket with `SO_RCVTIMEO`/`SO_SNDTIMEO` (the system's "Resource temporarily
/// unavailable"). A user is told who did not answer within what, not the system's words.
pub fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// Whether an I/O error only means "nothing yet": a read or write that ran out of time
/// ([`timed_out`]) or was interrupted by a signal; a loop waiting on a socket goes on.
pub fn waiting(e: &io::Error) -> bool {
    timed_out(e) || e.kind() == io::ErrorKind::Interrupted
}

/// Whether a server opened with the challenge, in what this client has read (`seen`) or in
/// what waits unread on `s`: for a client that sent without a secret and was cut off, so that
/// it can say "wants a secret" rather than "connection reset".
pub fn challenged(s: &std::net::TcpStream, seen: &[u8]) -> bool {
    if seen.starts_with(&CHALLENGE_MAGIC) {
        return true;
    }
    let mut b = [0u8; CHALLENGE_MAGIC.len()];
    let _ = s.set_nonblocking(true);
    let r = s.peek(&mut b);
    let _ = s.set_nonblocking(false);
    matches!(r, Ok(n) if n == b.len()) && b == CHALLENGE_MAGIC
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// One end of an in-memory exchange: reads from `rx`, writes to `tx`.
    struct Pipe {
        rx: VecDeque<u8>,
        tx: Vec<u8>,
    }
    impl Read for Pipe {
        fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
            self.rx.read(b)
        }
    }
    impl Write for Pipe {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.tx.write(b)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn key(s: &[u8]) -> Key {
        Key::new(s).unwrap()
    }

    #[test]
    fn short_secret_refused() {
        assert_eq!(Key::new(b"short").unwrap_err(), KeyError::ShortSecret(5));
    }

    #[test]
    fn right_answer_accepted_wrong_refused() {
        let k = key(b"0123456789abcdef-secret");
        let nonce = [7u8; NONCE_LEN];
        assert!(k.check_answer(&nonce, &k.answer(&nonce)));
        assert!(!k.check_answer(&[8u8; NONCE_LEN], &k.answer(&nonce)));
        let other = key(b"another-secret-of-16+");
        assert!(!k.check_answer(&nonce, &other.answer(&nonce)));
    }

    #[test]
    fn client_answers_a_challenge_and_reads_the_verdict() {
        let k = key(b"0123456789abcdef-secret");
        let mut rx = CHALLENGE_MAGIC.to_vec();
        rx.extend_from_slice(&[3u8; NONCE_LEN]);
        rx.push(ACCEPTED);
        let mut p = Pipe {
            rx: rx.into(),
            tx: Vec::new(),
        };
        answer(&mut p, &k).unwrap();
        assert_eq!(p.tx, k.answer(&[3u8; NONCE_LEN]));
        // Closed instead of the yes: refused.
        let mut rx = CHALLENGE_MAGIC.to_vec();
        rx.extend_from_slice(&[3u8; NONCE_LEN]);
        let mut p = Pipe {
            rx: rx.into(),
            tx: Vec::new(),
        };
        assert!(matches!(answer(&mut p, &k), Err(AuthError::Refused)));
        // Something else than a challenge: a server without a secret (or not ours).
        let mut p = Pipe {
            rx: vec![b'x'; CHALLENGE_LEN].into(),
            tx: Vec::new(),
        };
        assert!(matches!(answer(&mut p, &k), Err(AuthError::NoChallenge)));
        // Closed before any challenge: turned away (a full server), not "no secret".
        let mut p = Pipe {
            rx: Vec::new().into(),
            tx: Vec::new(),
        };
        assert!(matches!(answer(&mut p, &k), Err(AuthError::Closed)));
    }
}
