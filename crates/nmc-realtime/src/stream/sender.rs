//! The double-buffered source (RFC 508 §IV) on a socket.
//!
//! The main thread is the converter: buffer `k` is full at its deadline; the write of `k` is
//! handed to the writer thread, and the buffer written as `k − 1` must be free before the next
//! fill starts. The writer thread is the path: it writes each buffer in turn and reports the
//! moment the write completed (socket accepted it, or the sink's acknowledgement came back).
//! A gap is `completion of k − 1 − deadline of k`, on the monotonic clock; the converter
//! resumes when it sees the completion (it tests every 1 ms).

use super::{StreamError, Transport, wire};
use crate::gaps::GapTable;
use nmc_serve::Tab;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How often a waiting run looks at its stop flag.
const STOP_POLL: Duration = Duration::from_millis(50);

/// Most buffers one run may have (rate × duration / buffer). A run keeps a record of each
/// buffer until the end, for `buffers.csv` and the gap table (about [`RECORD_BYTES`] each), so
/// this bounds its memory: about 140 MB. **Choice**: 2,000,000; RFC 508's busiest setting,
/// 30 kbit/s in 1008-bit buffers, reaches it after 18 hours.
pub const MAX_RUN_BUFFERS: u64 = 2_000_000;
/// Bytes a run keeps per buffer: its record (48), its completion time (16), its gap (8).
pub const RECORD_BYTES: u64 = 72;

/// One stream.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StreamConfig {
    /// The sink's address.
    pub target: SocketAddr,
    /// The process bit rate a buffer fills at, bit/s.
    pub rate_bps: u64,
    /// The size of each buffer, bits.
    pub buffer_bits: u64,
    /// How long the run fills buffers (serialised as seconds).
    #[serde(serialize_with = "secs", deserialize_with = "from_secs")]
    pub duration: Duration,
    /// TCP or UDP.
    pub transport: Transport,
    /// Write complete = the sink's acknowledgement (RFNM analogue), not the socket's accept.
    pub ack: bool,
    /// UDP with `ack`: a buffer whose acknowledgement has not come back after this counts as
    /// complete (and lost).
    #[serde(serialize_with = "secs", deserialize_with = "from_secs")]
    pub ack_timeout: Duration,
    /// Connecting, and a TCP write or acknowledgement that takes longer than this, ends the
    /// run as partial.
    #[serde(serialize_with = "secs", deserialize_with = "from_secs")]
    pub io_timeout: Duration,
    /// The sink's shared secret: answered in its handshake over TCP, a tag on each UDP buffer.
    #[serde(skip)]
    pub key: Option<nmc_serve::Key>,
    /// Keep one record per buffer (`buffers.csv`, each gap in `summary.json`); without them
    /// (`--no-records`, issue 58 §6) the run keeps running figures only, a few hundred bytes
    /// whatever its length, and [`MAX_RUN_BUFFERS`] does not apply.
    #[serde(default = "yes")]
    pub records: bool,
    /// How this host's sockets are made (issue 58 §7: `--bind`, `--dscp`, `--congestion`,
    /// `--window`); none set by default.
    #[serde(skip)]
    pub dial: nmc_serve::dial::Dial,
    /// A bulk source at the rate, as iperf3 `-u -b` (issue 58 §5), not RFC 508's double
    /// buffer: a buffer late at its deadline is sent at once and the schedule kept, so the run
    /// sends its rate on average; no gap is counted. UDP without acknowledgements only.
    #[serde(default)]
    pub bulk: bool,
    /// A warm-up before the measured `duration` (`-O`, iperf3's `--omit`; issue 75 §2): its
    /// buffers, the first ⌊omit ÷ fill⌋ ([`StreamConfig::warm_up_buffers`]), are sent and timed
    /// as any, then left out of the run's figures and reported apart ([`Omitted`]). Both ends
    /// tell a warm-up buffer by its number, so they agree without a word.
    #[serde(
        default,
        serialize_with = "secs",
        deserialize_with = "from_secs",
        skip_serializing_if = "Duration::is_zero"
    )]
    pub omit: Duration,
}

/// A socket `dial` could not make: a refused option is bad input (one line, exit 2); a
/// connection that failed is the sink's.
pub(crate) fn dialed<T>(
    r: Result<T, nmc_serve::dial::DialError>,
    target: SocketAddr,
) -> Result<T, StreamError> {
    r.map_err(|e| match e {
        nmc_serve::dial::DialError::Option(m) => StreamError::Input(m),
        nmc_serve::dial::DialError::Connect(err) => StreamError::Connect {
            addr: target.to_string(),
            err,
        },
    })
}

fn yes() -> bool {
    true
}

fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

fn from_secs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let v = f64::deserialize(d)?;
    Duration::try_from_secs_f64(v).map_err(serde::de::Error::custom)
}

impl StreamConfig {
    /// Bytes a buffer takes on the wire (bits rounded up to whole bytes).
    pub fn payload_bytes(&self) -> usize {
        self.buffer_bits.div_ceil(8) as usize
    }

    /// Checks the settings: rate, buffer and duration above zero, a buffer that fits the
    /// transport (one UDP datagram, or nmc's TCP limit) and fills within the duration.
    pub fn validate(&self) -> Result<(), StreamError> {
        let bad = |m: String| Err(StreamError::Input(m));
        if self.rate_bps == 0 {
            return bad("--rate must be above zero".into());
        }
        if self.buffer_bits == 0 {
            return bad("--buffer must be above zero".into());
        }
        if self.bulk && (self.transport != Transport::Udp || self.ack) {
            return bad(
                "--bulk is a UDP source without acknowledgements: give --udp, without --ack".into(),
            );
        }
        if self.duration.is_zero() {
            return bad("--duration must be above zero".into());
        }
        let tag = if self.key.is_some() { wire::TAG } else { 0 };
        let max = match self.transport {
            Transport::Udp => wire::UDP_MAX - wire::HEADER - tag,
            Transport::Tcp => wire::TCP_MAX,
        };
        if self.payload_bytes() > max {
            return bad(format!(
                "--buffer {} bit is {} bytes: larger than {} allows ({max} bytes)",
                self.buffer_bits,
                self.payload_bytes(),
                match self.transport {
                    Transport::Udp => "one UDP datagram",
                    Transport::Tcp => "nmc's TCP buffer limit",
                }
            ));
        }
        let fill = self.buffer_bits as f64 / self.rate_bps as f64;
        if fill > self.duration.as_secs_f64() {
            return bad(format!(
                "one {}-bit buffer takes {fill:.3} s to fill at {} bit/s, longer than --duration",
                self.buffer_bits, self.rate_bps
            ));
        }
        Ok(())
    }

    /// Buffers the run fills: (warm-up +) duration × rate / buffer size.
    pub fn buffers(&self) -> f64 {
        (self.omit + self.duration).as_secs_f64() * self.rate_bps as f64 / self.buffer_bits as f64
    }

    /// The buffers of the warm-up (`-O`): those the rate calls for in it, ⌊omit ÷ fill⌋, the
    /// first ones sent (numbers 0 to this − 1).
    pub fn warm_up_buffers(&self) -> u64 {
        (self.omit.as_nanos() / self.fill().as_nanos()) as u64
    }

    /// The time one buffer takes to fill at the rate, to the nearest nanosecond: the
    /// schedule's step.
    pub fn fill(&self) -> Duration {
        Self::fill_of(self.buffer_bits, self.rate_bps)
    }

    /// The time a buffer of `buffer_bits` takes to fill at `rate_bps` (rounded to the
    /// nanosecond, at least 1 ns; a rate of 0 is taken as 1 bit/s).
    pub fn fill_of(buffer_bits: u64, rate_bps: u64) -> Duration {
        let rate = u128::from(rate_bps.max(1));
        let ns = (u128::from(buffer_bits) * 1_000_000_000 + rate / 2) / rate;
        Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX).max(1))
    }

    /// A forward run's records stay within [`MAX_RUN_BUFFERS`] (checked after
    /// [`StreamConfig::validate`]). A reverse run is bounded by the sink's own, smaller limit.
    pub fn check_records(&self) -> Result<(), StreamError> {
        let bad = |m: String| Err(StreamError::Input(m));
        let buffers = self.buffers();
        if self.records && buffers > MAX_RUN_BUFFERS as f64 {
            return bad(format!(
                "{buffers:.0} buffers ({} bit/s for {} s in {}-bit buffers) is more than one run keeps ({MAX_RUN_BUFFERS}, about {RECORD_BYTES} bytes each): give a larger --buffer or a shorter --duration, or --no-records",
                self.rate_bps,
                self.duration.as_secs_f64(),
                self.buffer_bits
            ));
        }
        Ok(())
    }
}

/// One buffer of the run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BufferRecord {
    /// The buffer's number, from 0 in the order filled.
    pub seq: u64,
    /// Seconds from the start when the buffer was full and its write initiated.
    pub filled_s: f64,
    /// Seconds from the start when its write completed (none if not by the end).
    pub completed_s: Option<f64>,
    /// Gap that followed this buffer's deadline (waiting for the previous buffer), ms.
    pub gap_ms: Option<f64>,
}

/// What the client of a reverse run (`--reverse`, `super::reverse`) received (its own count; the gaps are the sender's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Received {
    /// Buffers the client received.
    pub buffers: u64,
    /// Bytes of buffer data it received.
    pub bytes: u64,
}

/// What a run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StreamRun {
    /// The settings the run used.
    pub config: StreamConfig,
    /// Wall-clock start, Unix seconds, and its UTC time of day ("14:05"), as Table I prints.
    pub started_unix_s: u64,
    /// The start's UTC time of day (`14:05`).
    pub time_of_day: String,
    /// Buffers filled and their writes initiated.
    pub buffers_sent: u64,
    /// Buffers whose write completed by the end.
    pub buffers_completed: u64,
    /// Seconds the source ran: the duration asked, or less when the run stopped early
    /// (issue 74 §2: a run ends at its duration, whatever it managed to send in it).
    #[serde(default)]
    pub sent_s: f64,
    /// The gaps, as RFC 508's KEY counts them.
    pub gaps: GapTable,
    /// UDP with --ack: acknowledgements that did not come back within the timeout.
    pub acks_lost: u64,
    /// UDP: the buffers the sink says it received from us (its tally, asked at the end);
    /// `None` over TCP, or when the sink did not answer within the ack timeout.
    pub sink_received: Option<u64>,
    /// UDP: what the receiver saw of the buffers' order and timing (issue 58 §5): the sink's,
    /// asked with the tally, or this host's in a reverse run; `None` over TCP, or when the
    /// sink did not say (an older sink, or its answer lost).
    #[serde(default)]
    pub arrivals: Option<ArrivalStats>,
    /// This host's end of the run, address:port (issue 58 §4); with `--reverse` over UDP, the
    /// TCP connection's end.
    #[serde(default)]
    pub local: Option<String>,
    /// Set when the run stopped early; says why.
    pub partial: Option<String>,
    /// The warm-up (`-O`), left out of every figure above; `None` without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted: Option<Omitted>,
    /// One record per buffer, in order (`buffers.csv`).
    #[serde(skip)]
    pub records: Vec<BufferRecord>,
    /// `--reverse`: the sink sent (every figure above is its) and this is what the client
    /// received; `None` for a forward run.
    #[serde(skip)]
    pub received: Option<Received>,
    /// A forward TCP run with `-i` (issue 75 §1): the sink's lines by its own clock, from its
    /// receipt of the run's first frame; empty when the sink gave none (an older sink).
    #[serde(skip)]
    pub receiver_intervals: Vec<super::arrivals::ReceivedInterval>,
}

impl StreamRun {
    /// Buffers the rate called for in the time the source ran ([`StreamRun::sent_s`]): one
    /// each [`StreamConfig::fill`], as the schedule hands them out.
    pub fn buffers_due(&self) -> u64 {
        let ran = if self.partial.is_none() {
            self.config.duration
        } else {
            Duration::from_secs_f64(self.sent_s.max(0.0)).min(self.config.duration)
        };
        // After a warm-up (-O), those whose deadlines fall in the measured time: the schedule's
        // buffers by the end less the warm-up's ([`StreamConfig::warm_up_buffers`]).
        let fill = self.config.fill().as_nanos();
        let omit = self.config.omit.as_nanos();
        ((omit + ran.as_nanos()) / fill - omit / fill) as u64
    }

    /// The rate the source achieved: the bits it handed to be sent over the time it ran
    /// (issue 74 §2: beside the rate asked, never in its place). `None` before any time ran.
    pub fn sent_rate_bps(&self) -> Option<f64> {
        (self.sent_s > 0.0)
            .then(|| self.buffers_sent as f64 * self.config.buffer_bits as f64 / self.sent_s)
    }

    /// The receiver's rate (issue 75 §2, iperf3's "receiver" line): the buffers that arrived —
    /// counted here in a reverse run, or the sink's tally of a UDP run — over the sending time.
    /// `None` over TCP forward (everything sent arrives: the sent rate) and before anything was
    /// sent.
    pub fn received_rate_bps(&self) -> Option<f64> {
        let got = match (&self.received, self.sink_received) {
            (Some(r), _) => r.buffers,
            (None, Some(n)) => n,
            (None, None) => return None,
        };
        (self.sent_s > 0.0).then(|| got as f64 * self.config.buffer_bits as f64 / self.sent_s)
    }

    /// Whether the source sent every buffer its rate called for ([`StreamRun::buffers_due`]):
    /// false when this host could not send that fast, or (RFC 508's double buffer) when gaps
    /// held it back.
    pub fn kept_up(&self) -> bool {
        self.buffers_sent >= self.buffers_due()
    }
}

/// What a run's warm-up (`-O`, iperf3's `--omit`) carried, left out of its figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Omitted {
    /// The warm-up asked for, seconds.
    pub duration_s: f64,
    /// Buffers sent in it ([`StreamConfig::warm_up_buffers`], fewer if the run stopped in it).
    pub buffers_sent: u64,
    /// RFC 508's gaps before a warm-up buffer.
    pub gaps: u64,
    /// Of them, those the receiver counted (UDP: the sink's answer to the warm-up's mark, or
    /// this host's count with `-R`; with `--ack`, those acknowledged); `None` over TCP or when
    /// the sink did not say.
    pub received: Option<u64>,
}

/// The mark sent after the warm-up's last buffer ([`wire::mark`]): the sink's answer splits its
/// tally there (issue 75 §2).
pub const WARM_UP_MARK: u64 = u64::MAX;

/// What a UDP stream's receiver saw ([`super::arrivals::Arrivals`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrivalStats {
    /// Buffers that arrived after one with a higher number.
    pub out_of_order: u64,
    /// RFC 3550's interarrival jitter, ns; `None` when fewer than two buffers carried a send
    /// time (buffers under 8 bytes carry none).
    pub jitter_ns: Option<u64>,
}

impl From<&super::arrivals::Arrivals> for ArrivalStats {
    fn from(a: &super::arrivals::Arrivals) -> ArrivalStats {
        ArrivalStats {
            out_of_order: a.out_of_order,
            jitter_ns: a.jitter_ns(),
        }
    }
}

enum Done {
    Ok(u64, Instant, bool),
    Failed(String),
    /// A UDP datagram drew an ICMP unreachable (no sink there) at `at`.
    Refused(String, Instant, std::io::Error),
}

/// Why a buffer failed: what was being done, and the socket's error when the sink's host
/// refused a UDP datagram (no one listens there).
type Failure = (String, Option<std::io::Error>);

/// A UDP socket call's failure (`what`: what was being done): the ICMP answers that say no
/// sink is there (port or host unreachable) are kept as such.
fn udp_failure(what: String, e: std::io::Error) -> Failure {
    use std::io::ErrorKind::{ConnectionRefused, HostUnreachable, NetworkUnreachable};
    let m = format!("{what}: {e}");
    let unreachable = matches!(
        e.kind(),
        ConnectionRefused | HostUnreachable | NetworkUnreachable
    );
    (m, unreachable.then_some(e))
}

enum Conn {
    Tcp(TcpStream),
    Udp(UdpSocket),
    /// A reverse run over UDP: the sink's socket, the client's address, and its
    /// acknowledgements as the sink's UDP loop hands them over.
    Routed(Routed),
}

/// Where a sink sends a reverse run over UDP ([`run_routed`]).
pub struct Routed {
    /// A handle on the sink's UDP socket.
    pub sock: UdpSocket,
    /// The client's address (its HELLO's source).
    pub to: SocketAddr,
    /// The client's acknowledgements (sequence numbers).
    pub acks: mpsc::Receiver<u64>,
}

fn connect(c: &StreamConfig) -> Result<Conn, StreamError> {
    let err = |e| StreamError::Connect {
        addr: c.target.to_string(),
        err: e,
    };
    match c.transport {
        Transport::Tcp => {
            let s = dialed(c.dial.tcp(c.target, c.io_timeout), c.target)?;
            s.set_nodelay(true).map_err(err)?;
            s.set_write_timeout(Some(c.io_timeout)).map_err(err)?;
            s.set_read_timeout(Some(c.io_timeout)).map_err(err)?;
            if let Some(key) = &c.key {
                let mut s = &s;
                nmc_serve::auth::answer(&mut s, key).map_err(|e| StreamError::Connect {
                    addr: c.target.to_string(),
                    err: std::io::Error::other(e.to_string()),
                })?;
            }
            Ok(Conn::Tcp(s))
        }
        Transport::Udp => {
            let s = dialed(c.dial.udp(c.target), c.target)?;
            open_udp(&s, c)?;
            s.set_read_timeout(Some(c.ack_timeout)).map_err(err)?;
            Ok(Conn::Udp(s))
        }
    }
}

/// Issue 58 §1: a UDP run opens with an exchange the sink answers, its tally request for no
/// buffer yet ([`wire::tally_request`], tagged with the secret if there is one; the sink
/// answers it with a count of 0), sent until answered or `io_timeout` has passed
/// ([`nmc_serve::opening`]). A dead host, a firewalled port or a sink that wants another
/// secret is then one line, not a run that measured nothing. The wire is the sink's own:
/// every `nmc sink` and `nmc serve` that answers a tally answers this.
fn open_udp(s: &UdpSocket, c: &StreamConfig) -> Result<(), StreamError> {
    let mut request = wire::tally_request(0).to_vec();
    if let Some(key) = &c.key {
        let tag: [u8; wire::TAG] = key.tag(&request);
        request.extend_from_slice(&tag);
    }
    let answered = |a: &[u8]| wire::parse_tally(a).is_some();
    match nmc_serve::opening::open_udp(s, &request, &answered, c.io_timeout, c.key.is_some()) {
        Ok(_) => Ok(()),
        Err(
            nmc_serve::opening::OpenError::Refused(err) | nmc_serve::opening::OpenError::Io(err),
        ) => Err(StreamError::Connect {
            addr: c.target.to_string(),
            err,
        }),
        Err(nmc_serve::opening::OpenError::Silent(s)) => Err(StreamError::Unanswered(s)),
    }
}

/// A TCP run cut off by the sink's challenge: this client has no secret, and the run never
/// reached the sink (issue 58 §3: a refusal, [`StreamError::Refused`], not a partial run).
const WANTS_SECRET: &str = "the sink wants a secret: give it with --secret-file";

/// Why a TCP write or read for buffer `seq` failed, in one line: the sink's challenge when this
/// client has no secret (it then closed the connection), else the error.
fn failed(s: &TcpStream, c: &StreamConfig, seq: u64, doing: &str, e: std::io::Error) -> String {
    if c.key.is_none() && nmc_serve::auth::challenged(s, &[]) {
        WANTS_SECRET.into()
    } else if seq <= 1 && closed_by_peer(&e) {
        TURNED_AWAY.into()
    } else {
        format!("{doing} buffer {seq}: {e}")
    }
}

/// A TCP run whose connection the sink closed before its second buffer (issue 74 §3: this was a
/// partial run, exit 4, "writing buffer 1: Broken pipe"). A sink closes a connection it turns
/// away at once, before reading anything: the first write still lands in this host's socket,
/// and the second finds the connection reset. Nothing was measured, and the sink refused: a
/// refusal ([`StreamError::Refused`], exit 3), as the pump's is before its first RFNM.
const TURNED_AWAY: &str = "the sink closed the connection before taking a buffer: it turned this \
     connection away (all its slots busy, or this address's share of them in use; try again \
     later)";

/// Whether `e` says the other end closed or reset the connection.
fn closed_by_peer(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::BrokenPipe
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::UnexpectedEof
    )
}

/// Writes buffers: on a thread of its own ([`writer`]), or on the filling thread for UDP
/// without acknowledgements (issue 58 §5: a write is complete when the socket takes it, so a
/// hand-off to another thread only cost time, about 60 µs a buffer on a 2-core machine).
struct Writer {
    conn: Conn,
    c: StreamConfig,
    frame: Vec<u8>,
    body: usize,
    tagged: bool,
    len: u32,
    /// Over UDP each buffer carries its send time on this clock (issue 58 §5: the receiver's
    /// jitter).
    timed: bool,
    epoch: Instant,
    /// A reverse run, where the client reads: a STOP frame read where an acknowledgement was
    /// awaited sets it.
    peer_stop: Option<Arc<AtomicBool>>,
    /// A sink's reverse run: what it sends is credited to the client's slot (issue 74 §1).
    tab: Option<Tab>,
    /// Over UDP with acknowledgements, the sink's answers to interval marks read where an
    /// acknowledgement was awaited go here (issue 75 §1).
    marked: Option<mpsc::Sender<wire::Marked>>,
    /// Over TCP with acknowledgements and `-i`, the sink's lines read where an
    /// acknowledgement was awaited go here (issue 75 §1).
    binned: Option<mpsc::Sender<wire::Binned>>,
}

impl Writer {
    fn new(
        conn: Conn,
        c: StreamConfig,
        peer_stop: Option<Arc<AtomicBool>>,
        tab: Option<Tab>,
    ) -> Writer {
        let body = wire::HEADER + c.payload_bytes();
        // UDP with a secret, either way (a sink's reverse run too): the tag goes after the
        // payload.
        let udp = matches!(conn, Conn::Udp(_) | Conn::Routed(_));
        let tagged = c.key.is_some() && udp;
        Writer {
            frame: vec![0x55u8; body + if tagged { wire::TAG } else { 0 }],
            len: c.payload_bytes() as u32,
            body,
            tagged,
            timed: udp,
            epoch: Instant::now(),
            conn,
            c,
            peer_stop,
            tab,
            marked: None,
            binned: None,
        }
    }

    /// Whether buffers are written on the filling thread: UDP without acknowledgements.
    fn inline(&self) -> bool {
        matches!(self.conn, Conn::Udp(_)) && !self.c.ack
    }

    /// Writes buffer `seq` and says how it went.
    fn write(&mut self, seq: u64) -> Done {
        let (body, len) = (self.body, self.len);
        self.frame[..wire::HEADER].copy_from_slice(&wire::header(seq, len, self.c.ack));
        if self.timed {
            wire::stamp(
                &mut self.frame[..body],
                self.epoch.elapsed().as_nanos() as u64,
            );
        }
        if self.tagged
            && let Some(key) = &self.c.key
        {
            let tag: [u8; wire::TAG] = key.tag(&self.frame[..body]);
            self.frame[body..].copy_from_slice(&tag);
        }
        let frame = &self.frame;
        // The error, and whether the sink's host refused it (UDP: no one listens there).
        let r: Result<bool, Failure> = match &mut self.conn {
            Conn::Tcp(s) => (|| -> Result<bool, String> {
                s.write_all(frame)
                    .map_err(|e| failed(s, &self.c, seq, "writing", e))?;
                if let Some(t) = &self.tab {
                    t.credit(frame.len() as u64);
                }
                if self.c.ack {
                    let mut a = [0u8; wire::ACK];
                    loop {
                        s.read_exact(&mut a).map_err(|e| {
                            failed(
                                s,
                                &self.c,
                                seq,
                                "waiting for the sink's acknowledgement of",
                                e,
                            )
                        })?;
                        if let (Some(tx), Some(b)) = (&self.binned, wire::parse_binned(&a)) {
                            let _ = tx.send(b);
                            continue;
                        }
                        match &self.peer_stop {
                            Some(stop) if wire::is_stop(&a) => stop.store(true, Ordering::Relaxed),
                            _ => break,
                        }
                    }
                    if wire::parse_ack(&a) != Some(seq) {
                        return Err(format!(
                            "the sink acknowledged something else than buffer {seq}"
                        ));
                    }
                }
                Ok(false)
            })()
            .map_err(|m| (m, None)),
            Conn::Udp(s) => (|| {
                match s.send(frame) {
                    // Dropped on this host (a firewall, no buffer): a buffer lost, which the
                    // sink's tally or the missing acknowledgement shows (issue 58 §5).
                    Err(e) if nmc_serve::dropped_here(&e) => {}
                    r => {
                        r.map_err(|e| udp_failure(format!("sending buffer {seq}"), e))?;
                    }
                }
                if !self.c.ack {
                    return Ok(false);
                }
                let deadline = Instant::now() + self.c.ack_timeout;
                let mut a = [0u8; 64];
                loop {
                    match s.recv(&mut a) {
                        Ok(n) if wire::parse_ack(&a[..n]) == Some(seq) => return Ok(false),
                        Ok(n) => {
                            if let (Some(tx), Some(m)) = (&self.marked, wire::parse_marked(&a[..n]))
                            {
                                let _ = tx.send(m);
                            }
                        }
                        Err(e)
                            if matches!(
                                e.kind(),
                                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                            ) => {}
                        Err(e) => {
                            return Err(udp_failure(
                                format!("waiting for the acknowledgement of buffer {seq}"),
                                e,
                            ));
                        }
                    }
                    if Instant::now() >= deadline {
                        return Ok(true);
                    }
                }
            })(),
            Conn::Routed(r) => (|| -> Result<bool, String> {
                r.sock
                    .send_to(frame, r.to)
                    .map_err(|e| format!("sending buffer {seq}: {e}"))?;
                if let Some(t) = &self.tab {
                    t.credit(frame.len() as u64);
                }
                if !self.c.ack {
                    return Ok(false);
                }
                let deadline = Instant::now() + self.c.ack_timeout;
                loop {
                    let left = deadline.saturating_duration_since(Instant::now());
                    match r.acks.recv_timeout(left) {
                        Ok(s) if s == seq => return Ok(false),
                        Ok(_) => {}
                        Err(mpsc::RecvTimeoutError::Timeout) => return Ok(true),
                        Err(mpsc::RecvTimeoutError::Disconnected) => {
                            return Err("the sink is stopping".to_string());
                        }
                    }
                }
            })()
            .map_err(|m| (m, None)),
        };
        match r {
            Ok(lost) => Done::Ok(seq, Instant::now(), lost),
            Err((m, Some(e))) => Done::Refused(m, Instant::now(), e),
            Err((m, None)) => Done::Failed(m),
        }
    }
}

/// A number on the writer's queue with this bit is a mark to send in line with the buffers
/// (issue 75 §1), not a buffer.
const MARK_BIT: u64 = 1 << 63;

/// Writes each buffer the converter hands it, on a thread of its own, until one fails.
fn writer(mut w: Writer, rx: mpsc::Receiver<u64>, tx: mpsc::Sender<Done>) {
    while let Ok(seq) = rx.recv() {
        if seq & MARK_BIT != 0 {
            if let Conn::Udp(s) = &w.conn {
                send_mark(s, seq & !MARK_BIT, w.c.key.as_ref());
            }
            continue;
        }
        let msg = w.write(seq);
        let failed = !matches!(msg, Done::Ok(..));
        if tx.send(msg).is_err() || failed {
            return;
        }
    }
}

/// Why a run stopped by [`run_until`]'s flag is partial.
pub const STOPPED: &str = "interrupted (Ctrl-C or a signal): what ran is kept";

/// Runs one stream for its duration. Errors before the start (bad input, unreachable sink)
/// are `Err`; a sink that closes or stalls beyond `io_timeout` mid-run gives a partial run.
pub fn run(c: &StreamConfig) -> Result<StreamRun, StreamError> {
    run_until(c, &AtomicBool::new(false))
}

/// [`run`], ending early, as a partial run ([`STOPPED`]) that keeps what it measured, once
/// `stop` is set (checked at least every 50 ms).
pub fn run_until(c: &StreamConfig, stop: &AtomicBool) -> Result<StreamRun, StreamError> {
    run_reporting(c, stop, None, &mut |_| {})
}

/// What one reporting interval of a run saw (`nmc stream --interval`, issue 34): the buffers
/// filled in it and the gaps that ended in it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StreamInterval {
    /// Seconds from the start.
    pub start_s: f64,
    /// When the interval ended, seconds from the start.
    pub end_s: f64,
    /// Buffers filled in the interval.
    pub buffers_sent: u64,
    /// The process's bits over the interval: buffers sent × buffer bits / its length.
    pub rate_bit_per_s: f64,
    /// Gaps that ended in the interval.
    pub gaps: u64,
    /// The longest of those gaps, seconds (none without a gap).
    pub longest_gap_s: Option<f64>,
    /// Over UDP (issue 75 §1): what the sink received in the interval, from its answers to the
    /// marks that end this interval and the one before; absent when the sink did not answer
    /// (a sink from before marks, or an answer lost).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver: Option<ReceiverSide>,
    /// Within the warm-up (`-O`): it ended by the warm-up's end; absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub omitted: bool,
}

/// The receiver's side of a forward interval (issue 75 §1), as a reverse run's lines give it:
/// from the difference of two of the sink's answers to marks ([`wire::Marked`]).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ReceiverSide {
    /// Buffers that arrived in the interval.
    pub buffers_received: u64,
    /// Their bits over the interval's length.
    pub rate_bit_per_s: f64,
    /// Buffers the interval's sequence numbers say were sent and did not arrive in it (a late
    /// one that fills a gap of an earlier interval takes one off; never below 0).
    pub lost: u64,
    /// Buffers that arrived in the interval after a later one.
    pub out_of_order: u64,
    /// RFC 3550's running jitter at the interval's end, seconds (absent before two timed
    /// buffers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jitter_s: Option<f64>,
}

impl ReceiverSide {
    /// The interval between the answers `from` (the previous mark's; zeros for the first
    /// interval) and `to`, `secs` long, in buffers of `bits`.
    pub fn between(from: &wire::Marked, to: &wire::Marked, secs: f64, bits: u64) -> ReceiverSide {
        let got = to.received.saturating_sub(from.received);
        let expected = to.expected.saturating_sub(from.expected);
        ReceiverSide {
            buffers_received: got,
            rate_bit_per_s: if secs > 0.0 {
                (got * bits) as f64 / secs
            } else {
                0.0
            },
            lost: expected.saturating_sub(got),
            out_of_order: to.out_of_order.saturating_sub(from.out_of_order),
            jitter_s: to.jitter_ns.map(|j| j as f64 / 1e9),
        }
    }
}

/// The marks of a forward UDP run's intervals (issue 75 §1): sent on the buffers' socket at
/// each interval's end; an interval is reported once the sink's answer to its mark is in (or
/// after `wait` without one), so its line carries the receiver's side.
struct Marks {
    sock: UdpSocket,
    /// With --ack the writer's queue: a mark goes after the buffers queued before it.
    via_writer: Option<mpsc::Sender<u64>>,
    key: Option<nmc_serve::Key>,
    /// With --ack the writer reads the socket, and hands the answers over.
    from_writer: Option<mpsc::Receiver<wire::Marked>>,
    next: u64,
    /// Intervals closed and not yet reported: (mark, interval, when the mark went).
    pending: std::collections::VecDeque<(u64, StreamInterval, Instant)>,
    /// Answers in, for marks still pending.
    answers: Vec<wire::Marked>,
    /// The answer to the previous interval's mark (zeros before the first).
    last: Option<wire::Marked>,
    wait: Duration,
    /// An answer has come: the sink knows marks.
    heard: bool,
    /// A mark went unanswered before any was answered: a sink from before marks, so the
    /// lines go out at once, with the sender's side only (as before issue 75 §1).
    silent: bool,
    /// The sink's answer to the warm-up's mark ([`WARM_UP_MARK`]), if it came here.
    warm: Option<wire::Marked>,
}

impl Marks {
    /// Most intervals waiting for their answers; beyond, the oldest goes without.
    const MAX_PENDING: usize = 256;

    /// Marks sent on `sock`, or in line with the buffers on the writer's `queue` when the
    /// writer reads the answers and hands them over (`from_writer`, with --ack).
    fn new(
        sock: UdpSocket,
        c: &StreamConfig,
        from_writer: Option<mpsc::Receiver<wire::Marked>>,
        queue: &mpsc::Sender<u64>,
    ) -> Marks {
        Marks {
            sock,
            via_writer: from_writer.as_ref().map(|_| queue.clone()),
            key: c.key.clone(),
            from_writer,
            next: 0,
            pending: Default::default(),
            answers: Vec::new(),
            last: None,
            wait: c.ack_timeout,
            heard: false,
            silent: false,
            warm: None,
        }
    }

    fn send(&mut self, iv: StreamInterval, now: Instant) {
        match &self.via_writer {
            Some(q) => {
                let _ = q.send(self.next | MARK_BIT);
            }
            None => send_mark(&self.sock, self.next, self.key.as_ref()),
        }
        self.pending.push_back((self.next, iv, now));
        self.next += 1;
    }

    fn take(&mut self, m: wire::Marked) {
        if m.mark == WARM_UP_MARK {
            self.warm = Some(m);
            return;
        }
        let waiting = self.pending.iter().any(|p| p.0 == m.mark);
        if waiting && !self.answers.iter().any(|a| a.mark == m.mark) {
            self.heard = true;
            self.answers.push(m);
        }
    }

    /// Takes the answers that have come, without waiting.
    fn collect(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut got = Vec::new();
        if let Some(rx) = &self.from_writer {
            got.extend(rx.try_iter());
        } else {
            let mut b = [0u8; 64];
            while let Some(n) = recv_now(&self.sock, &mut b) {
                got.extend(wire::parse_marked(&b[..n]));
            }
        }
        for m in got {
            self.take(m);
        }
    }

    /// Reports the intervals whose answers are in, in order, and those that waited too long
    /// (or `all`: every one, answered or not).
    fn release(
        &mut self,
        now: Instant,
        all: bool,
        bits: u64,
        report: &mut dyn FnMut(StreamInterval),
    ) {
        while let Some((mark, _, sent)) = self.pending.front() {
            let (mark, sent) = (*mark, *sent);
            let answer = self.answers.iter().position(|a| a.mark == mark);
            let late = all || self.silent || now.saturating_duration_since(sent) >= self.wait;
            if answer.is_none() && !late && self.pending.len() <= Self::MAX_PENDING {
                break;
            }
            if answer.is_none() && !self.heard {
                self.silent = true;
            }
            let (_, mut iv, _) = self.pending.pop_front().expect("front");
            let answer = answer.map(|i| self.answers.swap_remove(i));
            let from = match (mark, self.last) {
                (0, _) => Some(wire::Marked::default()),
                (_, Some(p)) if p.mark + 1 == mark => Some(p),
                _ => None,
            };
            if let (Some(from), Some(to)) = (from, answer) {
                iv.receiver = Some(ReceiverSide::between(
                    &from,
                    &to,
                    iv.end_s - iv.start_s,
                    bits,
                ));
            }
            self.last = answer;
            report(iv);
        }
    }

    /// After the run (the writer gone): waits up to `wait` for the answers still to come, then
    /// reports every interval left.
    fn finish(&mut self, bits: u64, report: &mut dyn FnMut(StreamInterval)) {
        let until = Instant::now() + self.wait;
        if let Some(rx) = self.from_writer.take() {
            for m in rx.try_iter().collect::<Vec<_>>() {
                self.take(m);
            }
        }
        let mut b = [0u8; 64];
        while self
            .pending
            .iter()
            .any(|p| !self.answers.iter().any(|a| a.mark == p.0))
        {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() || self.sock.set_read_timeout(Some(left)).is_err() {
                break;
            }
            match self.sock.recv(&mut b) {
                Ok(n) => {
                    if let Some(m) = wire::parse_marked(&b[..n]) {
                        self.take(m);
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => break,
            }
        }
        self.release(Instant::now(), true, bits, report);
        // The socket's own timeout again, for the tally asked next.
        let _ = self.sock.set_read_timeout(Some(self.wait));
    }
}

/// Sends mark `mark` on `s`, tagged with `key` when there is one, twice back to back: with
/// no buffer between them the sink answers both with the same figures, so one lost mark or
/// answer costs nothing (both lost: the interval and the next go without the receiver's side).
fn send_mark(s: &UdpSocket, mark: u64, key: Option<&nmc_serve::Key>) {
    let mut m = wire::mark(mark).to_vec();
    if let Some(key) = key {
        let tag: [u8; wire::TAG] = key.tag(&m);
        m.extend_from_slice(&tag);
    }
    for _ in 0..2 {
        let _ = s.send(&m);
    }
}

/// One datagram already waiting on `s`, without waiting for one (`MSG_DONTWAIT`: the socket
/// stays blocking for the writer's sends); None when there is none.
#[cfg(unix)]
fn recv_now(s: &UdpSocket, buf: &mut [u8]) -> Option<usize> {
    use std::os::fd::AsRawFd;
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes, and recv writes at most that many.
    let n = unsafe {
        libc::recv(
            s.as_raw_fd(),
            buf.as_mut_ptr().cast(),
            buf.len(),
            libc::MSG_DONTWAIT,
        )
    };
    usize::try_from(n).ok()
}

#[cfg(not(unix))]
fn recv_now(_: &UdpSocket, _: &mut [u8]) -> Option<usize> {
    None
}

/// The interval being counted for [`run_reporting`]: its start, and the buffers and gaps so far.
struct Intervals {
    t0: Instant,
    every: Option<Duration>,
    buffer_bits: u64,
    start: Instant,
    buffers: u64,
    gaps: u64,
    longest: Option<Duration>,
    /// A forward UDP run's marks (issue 75 §1).
    marks: Option<Marks>,
    /// The warm-up (`-O`): lines that end within it are marked.
    omit: Duration,
    /// The run's end: the interval that ends there is closed by the run's last close alone,
    /// after the last buffer (a buffer due by the end but sent late, on a loaded machine,
    /// would otherwise fall after the last line and the lines not add up to the run).
    end: Option<Instant>,
}

impl Intervals {
    fn new(t0: Instant, every: Option<Duration>, buffer_bits: u64) -> Self {
        Intervals {
            t0,
            every,
            buffer_bits,
            start: t0,
            buffers: 0,
            gaps: 0,
            longest: None,
            marks: None,
            omit: Duration::ZERO,
            end: None,
        }
    }

    /// After the run: the intervals still waiting for the sink's answers.
    fn finish(&mut self, report: &mut dyn FnMut(StreamInterval)) {
        if let Some(m) = &mut self.marks {
            m.finish(self.buffer_bits, report);
        }
    }

    fn gap(&mut self, d: Duration) {
        self.gaps += 1;
        self.longest = self.longest.max(Some(d));
    }

    /// Reports every whole interval that has ended by `now`, then, when `last`, the shorter one
    /// left.
    fn close(&mut self, now: Instant, last: bool, report: &mut dyn FnMut(StreamInterval)) {
        let Some(every) = self.every else { return };
        if let Some(m) = &mut self.marks {
            m.collect();
            m.release(now, false, self.buffer_bits, report);
        }
        while now >= self.start + every && (last || self.end.is_none_or(|e| self.start + every < e))
        {
            self.emit(self.start + every, report);
        }
        if last && now > self.start {
            self.emit(now, report);
        }
    }

    fn emit(&mut self, to: Instant, report: &mut dyn FnMut(StreamInterval)) {
        let secs = to.saturating_duration_since(self.start).as_secs_f64();
        let since = |t: Instant| t.duration_since(self.t0).as_secs_f64();
        let iv = StreamInterval {
            start_s: since(self.start),
            end_s: since(to),
            buffers_sent: self.buffers,
            rate_bit_per_s: if secs > 0.0 {
                (self.buffers * self.buffer_bits) as f64 / secs
            } else {
                0.0
            },
            gaps: self.gaps,
            longest_gap_s: self.longest.map(|d| d.as_secs_f64()),
            receiver: None,
            omitted: !self.omit.is_zero() && to.duration_since(self.t0) <= self.omit,
        };
        match &mut self.marks {
            Some(m) if !m.silent => m.send(iv, Instant::now()),
            _ => report(iv),
        }
        (self.start, self.buffers, self.gaps, self.longest) = (to, 0, 0, None);
    }
}

/// [`run_until`], calling `report` at the end of every `every` of the run (and once for the
/// last, shorter interval) with what that interval saw. The lines come when the sender next
/// looks at the clock: within 50 ms, or one buffer's fill time if that is shorter.
pub fn run_reporting(
    c: &StreamConfig,
    stop: &AtomicBool,
    every: Option<Duration>,
    report: &mut dyn FnMut(StreamInterval),
) -> Result<StreamRun, StreamError> {
    c.validate()?;
    c.check_records()?;
    let conn = connect(c)?;
    run_with(
        conn,
        c,
        &|| stop.load(Ordering::Relaxed),
        every,
        report,
        None,
        None,
    )
}

/// [`run_reporting`] on a TCP connection the client opened (`nmc stream --reverse`: the sink
/// sends to the client that asked, on its connection). The run stops early, as if `stop` were
/// set, when the client sends a STOP frame or goes away: without acknowledgements a thread
/// reads the connection for that; with them, the writer sees a STOP where it awaits one. It
/// also stops early, the same way, when the client's `tab` says so (the sink is shutting down,
/// or the client's slot went to another: [`Tab::ended`]); what is sent is credited to it.
pub fn run_on_tcp(
    s: TcpStream,
    c: &StreamConfig,
    tab: &Tab,
    every: Option<Duration>,
    report: &mut dyn FnMut(StreamInterval),
) -> Result<StreamRun, StreamError> {
    c.validate()?;
    let io = |what| move |err| StreamError::Io { what, err };
    s.set_nodelay(true).map_err(io("set TCP_NODELAY"))?;
    s.set_write_timeout(Some(c.io_timeout))
        .map_err(io("set the write timeout"))?;
    s.set_read_timeout(Some(c.io_timeout))
        .map_err(io("set the read timeout"))?;
    let stop = Arc::new(AtomicBool::new(false));
    if !c.ack {
        watch_for_stop(s.try_clone().map_err(io("clone the connection"))?, &stop);
    }
    let stopped = || stop.load(Ordering::Relaxed) || tab.ended().is_some();
    let r = run_with(
        Conn::Tcp(s),
        c,
        &stopped,
        every,
        report,
        Some(stop.clone()),
        Some(tab.clone()),
    );
    // The reader thread, if any, ends at its next timeout.
    stop.store(true, Ordering::Relaxed);
    r
}

/// Reads the client's TCP connection on a thread of its own until a STOP frame, its end or an
/// error, and then sets `stop`; it also ends at the first read timeout after `stop` is set.
fn watch_for_stop(mut r: TcpStream, stop: &Arc<AtomicBool>) {
    let stop = stop.clone();
    std::thread::spawn(move || {
        let mut a = [0u8; wire::ACK];
        loop {
            match r.read_exact(&mut a) {
                Ok(()) if !wire::is_stop(&a) => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) && !stop.load(Ordering::Relaxed) =>
                {
                    continue;
                }
                _ => {}
            }
            stop.store(true, Ordering::Relaxed);
            return;
        }
    });
}

/// [`run_on_tcp`] over UDP: the buffers go from the sink's socket to the client's address and
/// the acknowledgements come from the sink's UDP loop ([`Routed`]); `control` is the client's
/// TCP connection, read for a STOP or its end (its read timeout is the run's I/O timeout);
/// `tab` as for [`run_on_tcp`].
pub fn run_routed(
    routed: Routed,
    control: TcpStream,
    c: &StreamConfig,
    tab: &Tab,
    every: Option<Duration>,
    report: &mut dyn FnMut(StreamInterval),
) -> Result<StreamRun, StreamError> {
    c.validate()?;
    control
        .set_read_timeout(Some(c.io_timeout))
        .map_err(|err| StreamError::Io {
            what: "set the read timeout",
            err,
        })?;
    let stop = Arc::new(AtomicBool::new(false));
    watch_for_stop(control, &stop);
    let stopped = || stop.load(Ordering::Relaxed) || tab.ended().is_some();
    let r = run_with(
        Conn::Routed(routed),
        c,
        &stopped,
        every,
        report,
        None,
        Some(tab.clone()),
    );
    stop.store(true, Ordering::Relaxed);
    r
}

/// The run; `stopped` says when to end it early (the user's Ctrl-C, the client's STOP, the
/// server shutting down, the client's slot given to another); `tab`, a sink's reverse run's
/// account of what it sends for the client.
fn run_with(
    conn: Conn,
    c: &StreamConfig,
    stopped: &dyn Fn() -> bool,
    every: Option<Duration>,
    report: &mut dyn FnMut(StreamInterval),
    peer_stop: Option<Arc<AtomicBool>>,
    tab: Option<Tab>,
) -> Result<StreamRun, StreamError> {
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let local = match &conn {
        Conn::Tcp(s) => s.local_addr(),
        Conn::Udp(s) => s.local_addr(),
        Conn::Routed(r) => r.sock.local_addr(),
    }
    .ok()
    .map(|a| a.to_string());
    let socks = SideSockets::of(&conn, c, every, peer_stop.is_none() && tab.is_none());
    let mut w = Writer::new(conn, c.clone(), peer_stop, tab);
    let sink = SinkLines::start(socks.pace, c.ack, &mut w);
    let from_writer = if socks.mark.is_some() && !w.inline() {
        let (tx, rx) = mpsc::channel();
        w.marked = Some(tx);
        Some(rx)
    } else {
        None
    };
    let mut handoff = Handoff::start(w, done_tx);

    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = started.as_secs();
    let time_of_day = format!("{}:{:02}", (secs % 86_400) / 3600, (secs % 3600) / 60);
    let t0 = Instant::now();
    let mut run = Filling::new(c, t0, done_rx, Intervals::new(t0, every, c.buffer_bits));
    // The filling process sleeps to each buffer's deadline: Linux lets a thread's sleep run
    // past its end by its timer slack (50 µs unless set), longer than a buffer takes to fill
    // at 100 Mbit/s in 252-byte buffers; 1 µs here (issue 58 §5).
    fine_timer_slack();
    run.iv.omit = c.omit;
    run.iv.end = Some(run.end);
    run.iv.marks = socks
        .mark
        .map(|sock| Marks::new(sock, c, from_writer, &handoff.tx));
    run.fill_buffers(&mut handoff, socks.warm.as_ref(), stopped, report);
    let stopped_at = Instant::now().min(run.end);
    run.iv.close(stopped_at, true, report);
    // The writer's queue closes with the last mark on it.
    if let Some(m) = run.iv.marks.as_mut() {
        m.via_writer = None;
    }
    handoff.close();
    let receiver_intervals = sink.collect(c, every);
    // The receiver's side of the intervals still waiting for it (issue 75 §1).
    run.iv.finish(report);
    // Completions that came in by the end.
    if run.partial.is_none()
        && let Some(why) = run.drain(None)
    {
        run.partial = Some(why);
    }
    run.refusal()?;
    // The sink's answer to the warm-up's mark, read by the interval lines or waiting here.
    let warm_mark = match (&socks.tally, run.warm > 0 && !c.ack) {
        (Some(s), true) => run
            .iv
            .marks
            .as_ref()
            .and_then(|m| m.warm)
            .or_else(|| warm_answer(s)),
        _ => None,
    };
    let (sink_received, arrivals) = match socks.tally {
        Some(s) => ask_tally(&s, c, run.completed.sent),
        None => (None, None),
    };
    run.stamp_completions();
    let warm_sent = run.completed.sent.min(run.warm);
    let (warm_received, sink_received, arrivals) =
        run.split_warm_up(warm_mark, sink_received, arrivals);
    let omitted = (!c.omit.is_zero()).then_some(Omitted {
        duration_s: c.omit.as_secs_f64(),
        buffers_sent: warm_sent,
        gaps: run.warm_gaps,
        received: warm_received,
    });
    Ok(StreamRun {
        config: c.clone(),
        started_unix_s: secs,
        time_of_day,
        buffers_sent: run.completed.sent - warm_sent,
        buffers_completed: run.completed.done.saturating_sub(run.warm_done),
        sent_s: if run.partial.is_some() {
            (run.since(stopped_at) - c.omit.as_secs_f64()).max(0.0)
        } else {
            c.duration.as_secs_f64()
        },
        omitted,
        gaps: run.gaps,
        acks_lost: run.acks_lost,
        sink_received,
        arrivals,
        local,
        partial: run.partial,
        records: run.records,
        received: None,
        receiver_intervals,
    })
}

/// A run's other handles on its connection's socket, each for one exchange with the sink
/// beside the buffers.
struct SideSockets {
    /// Over UDP the tally is asked on the same socket (the sink counts by source address).
    tally: Option<UdpSocket>,
    /// Issue 75 §1: a forward UDP run with interval lines marks each interval's end.
    mark: Option<UdpSocket>,
    /// UDP with a warm-up and no acknowledgements: the warm-up's mark.
    warm: Option<UdpSocket>,
    /// Issue 75 §1: a forward TCP run with interval lines, whose sink was asked for its lines
    /// by its clock; they come back on the connection.
    pace: Option<TcpStream>,
}

impl SideSockets {
    /// Clones `conn`'s socket for each exchange the run has with the sink; a `forward` run
    /// (a client's, not a sink's reverse run) over TCP with interval lines asks the sink for
    /// its lines in its first frame.
    fn of(conn: &Conn, c: &StreamConfig, every: Option<Duration>, forward: bool) -> SideSockets {
        let tally = match conn {
            Conn::Udp(s) => s.try_clone().ok(),
            Conn::Tcp(_) | Conn::Routed(_) => None,
        };
        let mark = match (conn, every) {
            (Conn::Udp(s), Some(_)) => s.try_clone().ok(),
            _ => None,
        };
        let warm = match conn {
            Conn::Udp(s) if !c.omit.is_zero() && !c.ack => s.try_clone().ok(),
            _ => None,
        };
        let pace = match (conn, every, forward) {
            (Conn::Tcp(s), Some(e), true) => s.try_clone().ok().filter(|mut t| {
                t.write_all(&wire::pace(u64::try_from(e.as_nanos()).unwrap_or(u64::MAX)))
                    .is_ok()
            }),
            _ => None,
        };
        SideSockets {
            tally,
            mark,
            warm,
            pace,
        }
    }
}

/// The sink's lines of a forward TCP run with interval lines (issue 75 §1), read from the
/// connection as they come.
struct SinkLines {
    /// The connection they come on; `None` when the sink was not asked for them.
    pace: Option<TcpStream>,
    tx: mpsc::Sender<wire::Binned>,
    rx: mpsc::Receiver<wire::Binned>,
    /// Set at the run's end: a read that times out is then the last.
    ending: Arc<AtomicBool>,
    /// The thread that reads them, without acknowledgements.
    reader: Option<std::thread::JoinHandle<()>>,
}

impl SinkLines {
    /// Starts reading the sink's lines: with acknowledgements the writer `w` reads the
    /// connection; without, a thread of its own.
    fn start(pace: Option<TcpStream>, ack: bool, w: &mut Writer) -> SinkLines {
        let (tx, rx) = mpsc::channel::<wire::Binned>();
        let ending = Arc::new(AtomicBool::new(false));
        let reader = match &pace {
            Some(_) if ack => {
                w.binned = Some(tx.clone());
                None
            }
            Some(t) => t.try_clone().ok().map(|t| {
                let (tx, ending) = (tx.clone(), ending.clone());
                std::thread::spawn(move || read_bins(t, &tx, &ending))
            }),
            None => None,
        };
        SinkLines {
            pace,
            tx,
            rx,
            ending,
            reader,
        }
    }

    /// After the writer has ended: the sink's lines, its last among them. The last comes once
    /// the sink sees the stream end (issue 75 §1): this host's write side closes, the sink
    /// answers and closes, and the reader ends.
    fn collect(
        self,
        c: &StreamConfig,
        every: Option<Duration>,
    ) -> Vec<super::arrivals::ReceivedInterval> {
        let Some(t) = self.pace else {
            return Vec::new();
        };
        let _ = t.shutdown(std::net::Shutdown::Write);
        self.ending.store(true, Ordering::Relaxed);
        match self.reader {
            Some(r) => {
                let _ = r.join();
            }
            None => {
                // The writer read acknowledgements and is gone: read the rest here.
                let _ = t.set_read_timeout(Some(c.ack_timeout));
                read_bins(t, &self.tx, &self.ending);
            }
        }
        drop(self.tx);
        sink_lines(
            self.rx.try_iter(),
            every.unwrap_or(Duration::MAX),
            c.buffer_bits,
            c.omit,
            c.omit + c.duration,
        )
    }
}

/// How a filled buffer reaches the writer: UDP without acknowledgements is written on the
/// filling thread; anything that waits, on a thread of its own (RFC 508's channel program
/// beside the filling process), through a queue.
struct Handoff {
    /// The writer thread's queue.
    tx: mpsc::Sender<u64>,
    /// The writer and its reports, when buffers are written here.
    inline: Option<(Writer, mpsc::Sender<Done>)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Handoff {
    /// Puts `w` to work, reporting each write on `done`.
    fn start(w: Writer, done: mpsc::Sender<Done>) -> Handoff {
        let (tx, rx) = mpsc::channel::<u64>();
        let (inline, thread) = if w.inline() {
            (Some((w, done)), None)
        } else {
            (None, Some(std::thread::spawn(move || writer(w, rx, done))))
        };
        Handoff { tx, inline, thread }
    }

    /// Hands buffer `seq` to the writer; false when the writer has gone.
    fn hand(&mut self, seq: u64) -> bool {
        match &mut self.inline {
            Some((w, done)) => done.send(w.write(seq)).is_ok(),
            None => self.tx.send(seq).is_ok(),
        }
    }

    /// Closes the writer's queue and waits for the writer to end: only then is every buffer
    /// sent.
    fn close(self) {
        drop(self.tx);
        drop(self.inline);
        if let Some(t) = self.thread {
            let _ = t.join();
        }
    }
}

/// The filling process through a run (RFC 508 §IV's converter): its schedule, what the writer
/// has reported, and the records, gaps and intervals so far.
struct Filling<'a> {
    c: &'a StreamConfig,
    t0: Instant,
    /// The run's end, after the warm-up and the duration.
    end: Instant,
    /// The schedule's step.
    fill: Duration,
    /// Issue 75 §2: the warm-up's buffers, by number; what they saw is counted apart.
    warm: u64,
    warm_done: u64,
    warm_lost: u64,
    warm_gaps: u64,
    completed: Completions,
    records: Vec<BufferRecord>,
    gaps: GapTable,
    /// Why the run stopped early, once it has.
    partial: Option<String>,
    acks_lost: u64,
    /// A UDP datagram drew an ICMP unreachable: when, and the error.
    refused: Option<(Instant, std::io::Error)>,
    /// The writer's reports.
    done: mpsc::Receiver<Done>,
    iv: Intervals,
}

impl<'a> Filling<'a> {
    /// A run of `c` starting at `t0`, before its first buffer.
    fn new(
        c: &'a StreamConfig,
        t0: Instant,
        done: mpsc::Receiver<Done>,
        iv: Intervals,
    ) -> Filling<'a> {
        Filling {
            c,
            t0,
            end: t0 + c.omit + c.duration,
            fill: c.fill(),
            warm: c.warm_up_buffers(),
            warm_done: 0,
            warm_lost: 0,
            warm_gaps: 0,
            completed: Completions::new(c.records),
            records: Vec::new(),
            // Without records (issue 58 §6) the gap table keeps running figures, not each gap.
            gaps: if c.records {
                GapTable::default()
            } else {
                GapTable::running()
            },
            partial: None,
            acks_lost: 0,
            refused: None,
            done,
            iv,
        }
    }

    /// Seconds from the start to `t`.
    fn since(&self, t: Instant) -> f64 {
        t.duration_since(self.t0).as_secs_f64()
    }

    /// Takes the writer's reports: the first waited for up to `block` when given, the rest
    /// that are in without waiting. Says why when a write failed.
    fn drain(&mut self, block: Option<Duration>) -> Option<String> {
        let mut first = true;
        loop {
            let m = match (first, block) {
                (true, Some(d)) => self.done.recv_timeout(d).ok(),
                _ => self.done.try_recv().ok(),
            };
            first = false;
            match m {
                Some(Done::Ok(seq, at, lost)) => {
                    if seq < self.warm {
                        self.warm_done += 1;
                        self.warm_lost += lost as u64;
                    } else {
                        self.acks_lost += lost as u64;
                    }
                    self.completed.complete(seq, at);
                }
                Some(Done::Failed(why)) => return Some(why),
                Some(Done::Refused(why, at, e)) => {
                    self.refused = Some((at, e));
                    return Some(why);
                }
                None => return None,
            }
        }
    }

    /// Fills buffers on the schedule and hands each to the writer until the run's end, a
    /// failed write or `stopped`; `warm_sock` sends the warm-up's mark after its last buffer.
    fn fill_buffers(
        &mut self,
        handoff: &mut Handoff,
        warm_sock: Option<&UdpSocket>,
        stopped: &dyn Fn() -> bool,
        report: &mut dyn FnMut(StreamInterval),
    ) {
        let mut fill_start = self.t0;
        let mut seq = 0u64;
        loop {
            let deadline = fill_start + self.fill;
            // The run ends at its duration whatever the schedule (issue 74 §2): a bulk source
            // that fell behind its rate does not go on sending the buffers it owes past the end.
            if deadline > self.end || Instant::now() >= self.end {
                return;
            }
            if !self.wait_for(deadline, stopped, report)
                || !self.send_buffer(handoff, warm_sock, seq, deadline)
            {
                return;
            }
            fill_start = deadline;
            // A bulk source keeps its schedule whatever the writes did: no double buffer, no
            // gap.
            if seq >= 1 && !self.c.bulk {
                match self.await_previous(seq, deadline, stopped, report) {
                    Some(start) => fill_start = start,
                    None => return,
                }
            }
            seq += 1;
        }
    }

    /// Sleeps until buffer's `deadline`, closing the intervals that end meanwhile; false when
    /// the run is `stopped` first.
    fn wait_for(
        &mut self,
        deadline: Instant,
        stopped: &dyn Fn() -> bool,
        report: &mut dyn FnMut(StreamInterval),
    ) -> bool {
        loop {
            let now = Instant::now();
            if stopped() {
                self.partial = Some(STOPPED.to_string());
                return false;
            }
            self.iv.close(now, false, report);
            if deadline <= now {
                return true;
            }
            std::thread::sleep((deadline - now).min(STOP_POLL));
        }
    }

    /// Buffer `seq`, full at `deadline`: counted, recorded and handed to the writer (and the
    /// warm-up's mark after the warm-up's last); false when the writer has gone or a write
    /// failed.
    fn send_buffer(
        &mut self,
        handoff: &mut Handoff,
        warm_sock: Option<&UdpSocket>,
        seq: u64,
        deadline: Instant,
    ) -> bool {
        self.iv.buffers += 1;
        self.completed.sent();
        if self.c.records {
            self.records.push(BufferRecord {
                seq,
                filled_s: self.since(deadline),
                completed_s: None,
                gap_ms: None,
            });
        }
        if !handoff.hand(seq) {
            // The writer has gone: its last message says why.
            self.partial = Some(
                self.drain(Some(Duration::from_millis(100)))
                    .unwrap_or_else(|| "the writer stopped".to_string()),
            );
            return false;
        }
        // The warm-up's last buffer is out: its mark follows it (UDP without acknowledgements,
        // whose sink's tally is split there).
        if seq + 1 == self.warm
            && let Some(w) = warm_sock
        {
            send_mark(w, WARM_UP_MARK, self.c.key.as_ref());
        }
        if let Some(why) = self.drain(None) {
            self.partial = Some(why);
            return false;
        }
        true
    }

    /// The double buffer: buffer `seq`, full at `deadline`, waits for the write of `seq − 1`
    /// to complete, and the wait past the deadline is a gap. The next buffer's fill start, or
    /// `None` when the run ended while waiting (its end, a failed write, `stopped`).
    fn await_previous(
        &mut self,
        seq: u64,
        deadline: Instant,
        stopped: &dyn Fn() -> bool,
        report: &mut dyn FnMut(StreamInterval),
    ) -> Option<Instant> {
        let prev = seq - 1;
        if let Some(at) = self.completed.at(prev)
            && at <= deadline
        {
            return Some(deadline);
        }
        loop {
            if let Some(at) = self.completed.at(prev) {
                let gap = at.saturating_duration_since(deadline);
                if !gap.is_zero() {
                    self.count_gap(seq, gap);
                }
                return Some(Instant::now().max(deadline));
            }
            if Instant::now() >= self.end {
                self.count_gap(seq, self.end.saturating_duration_since(deadline));
                return None;
            }
            if let Some(why) = self.drain(Some(Duration::from_millis(1))) {
                self.partial = Some(why);
                return None;
            }
            self.iv.close(Instant::now(), false, report);
            if stopped() {
                self.partial = Some(STOPPED.to_string());
                return None;
            }
        }
    }

    /// A gap after buffer `seq`'s deadline: in the gap table (or the warm-up's count), its
    /// record and its interval.
    fn count_gap(&mut self, seq: u64, gap: Duration) {
        if seq < self.warm {
            self.warm_gaps += 1;
        } else {
            self.gaps.push(gap.as_nanos() as u64);
        }
        if let Some(r) = self.records.get_mut(seq as usize) {
            r.gap_ms = Some(gap.as_secs_f64() * 1e3);
        }
        self.iv.gap(gap);
    }

    /// A run the sink refused, an error: an ICMP unreachable before the sink answered anything
    /// (no acknowledgement with --ack; without it, within --ack-timeout of the start, the round
    /// trip the first datagram's answer takes) says no sink listens there, as a TCP stream's
    /// refused connection says (one line, no table of a run that never reached a sink), and no
    /// tally is asked of it; later, it is a sink gone mid-run: a partial run. A TCP sink that
    /// wanted a secret or turned the connection away refused it too.
    fn refusal(&mut self) -> Result<(), StreamError> {
        if let Some((at, err)) = self.refused.take() {
            let unanswered = if self.c.ack {
                // Every buffer completed so far timed out waiting (none was acknowledged).
                self.completed.done <= self.acks_lost + self.warm_lost
            } else {
                at.duration_since(self.t0) <= self.c.ack_timeout
            };
            if unanswered {
                return Err(StreamError::Connect {
                    addr: self.c.target.to_string(),
                    err,
                });
            }
        }
        if let Some(why @ (WANTS_SECRET | TURNED_AWAY)) = self.partial.as_deref() {
            return Err(StreamError::Refused(why.into()));
        }
        Ok(())
    }

    /// Each buffer's record gets its write's completion time.
    fn stamp_completions(&mut self) {
        for i in 0..self.records.len() {
            let at = self.completed.at(self.records[i].seq);
            self.records[i].completed_s = at.map(|t| self.since(t));
        }
    }

    /// Issue 75 §2: the warm-up apart. Over UDP the sink's tally is split at the warm-up's
    /// mark (without it, the tally cannot be split and is not given); with --ack, the buffers
    /// acknowledged in it are the ones it received. What the warm-up's buffers received, and
    /// the sink's tally and arrivals for the rest.
    fn split_warm_up(
        &self,
        warm_mark: Option<wire::Marked>,
        mut sink_received: Option<u64>,
        mut arrivals: Option<ArrivalStats>,
    ) -> (Option<u64>, Option<u64>, Option<ArrivalStats>) {
        let mut warm_received = None;
        if self.warm > 0 && self.c.transport == Transport::Udp {
            warm_received = if self.c.ack {
                Some(self.warm_done - self.warm_lost)
            } else {
                warm_mark.map(|m| m.received)
            };
            match (warm_received, sink_received) {
                (Some(w), Some(got)) => sink_received = Some(got.saturating_sub(w)),
                _ => sink_received = None,
            }
            if let (Some(m), Some(a)) = (warm_mark, arrivals.as_mut()) {
                a.out_of_order = a.out_of_order.saturating_sub(m.out_of_order);
            } else if !self.c.ack {
                arrivals = None;
            }
        }
        (warm_received, sink_received, arrivals)
    }
}

/// Reads the sink's lines ([`wire::binned`], then [`wire::last_bin`]) from a forward TCP
/// stream's connection until the last, its end, or an error; a read that times out is waited
/// again until `ending` is set. Anything else read is skipped, 12 bytes at a time.
fn read_bins(mut t: TcpStream, tx: &mpsc::Sender<wire::Binned>, ending: &AtomicBool) {
    let mut a = [0u8; wire::LAST_BIN];
    let mut got = 0;
    loop {
        let want = if got >= 4 && a[..4] == wire::LAST_BIN_MAGIC {
            wire::LAST_BIN
        } else {
            wire::ACK
        };
        if got == want {
            if let Some(b) = wire::parse_binned(&a[..want]) {
                let _ = tx.send(b);
            }
            if want == wire::LAST_BIN {
                return;
            }
            got = 0;
            continue;
        }
        match t.read(&mut a[got..want]) {
            Ok(0) => return,
            Ok(n) => got += n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) && !ending.load(Ordering::Relaxed) => {}
            Err(_) => return,
        }
    }
}

/// The sink's lines as a reverse run's ([`super::arrivals::ReceivedInterval`]): an interval it
/// sent no line for had no buffer (filled in as such, up to `horizon`, the run's length, and
/// a line or two past it); `every` long but the last; marked within a warm-up of `omit`.
fn sink_lines(
    lines: impl Iterator<Item = wire::Binned>,
    every: Duration,
    bits: u64,
    omit: Duration,
    horizon: Duration,
) -> Vec<super::arrivals::ReceivedInterval> {
    let most = (horizon.as_nanos() / every.as_nanos().max(1)) as u64 + 2;
    let every_s = every.as_secs_f64();
    let mut out: Vec<super::arrivals::ReceivedInterval> = Vec::new();
    let line = |index: u64, buffers: u32, secs: f64| {
        let start_s = index as f64 * every_s;
        super::arrivals::ReceivedInterval {
            start_s,
            end_s: start_s + secs,
            buffers_received: u64::from(buffers),
            rate_bit_per_s: if secs > 0.0 {
                (u64::from(buffers) * bits) as f64 / secs
            } else {
                0.0
            },
            lost: None,
            out_of_order: None,
            jitter_s: None,
            omitted: !omit.is_zero() && start_s + secs <= omit.as_secs_f64(),
        }
    };
    for b in lines {
        let (index, buffers, secs) = match b {
            wire::Binned::Whole { index, buffers } => (u64::from(index), buffers, every_s),
            wire::Binned::Last {
                index,
                buffers,
                len_us,
            } => (u64::from(index), buffers, f64::from(len_us) / 1e6),
        };
        // A hostile or confused sink's numbers go no further than the run.
        if index >= most || index < out.len() as u64 {
            continue;
        }
        while (out.len() as u64) < index {
            out.push(line(out.len() as u64, 0, every_s));
        }
        out.push(line(index, buffers, secs));
    }
    out
}

/// Sets the calling thread's timer slack to 1 µs (Linux; a no-op elsewhere): how far past its
/// end the kernel may let a sleep run, to batch wake-ups.
fn fine_timer_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK takes a value and touches only the calling thread's slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong);
    }
}

/// When each buffer's write completed: every one (for `buffers.csv`) or, without records, only
/// the counts and the last few (issue 58 §6: a long run keeps nothing per buffer). The writer
/// completes buffers in the order they were sent, so the run only ever asks for the newest two:
/// the buffer before the one just sent, and that one.
struct Completions {
    /// Every buffer's completion, by number (with records).
    all: Option<Vec<Option<Instant>>>,
    /// The last few completions (without records).
    recent: std::collections::VecDeque<(u64, Instant)>,
    /// Buffers sent to the writer.
    sent: u64,
    /// Buffers whose write completed.
    done: u64,
}

impl Completions {
    /// Completions kept for the last `RECENT` buffers without records.
    const RECENT: usize = 4;

    fn new(every: bool) -> Completions {
        Completions {
            all: every.then(Vec::new),
            recent: Default::default(),
            sent: 0,
            done: 0,
        }
    }

    /// The next buffer went to the writer.
    fn sent(&mut self) {
        self.sent += 1;
        if let Some(all) = &mut self.all {
            all.push(None);
        }
    }

    /// Buffer `seq`'s write completed at `at`.
    fn complete(&mut self, seq: u64, at: Instant) {
        match &mut self.all {
            Some(all) => {
                if let Some(slot) = all.get_mut(seq as usize)
                    && slot.replace(at).is_none()
                {
                    self.done += 1;
                }
            }
            None => {
                self.done += 1;
                if self.recent.len() == Self::RECENT {
                    self.recent.pop_front();
                }
                self.recent.push_back((seq, at));
            }
        }
    }

    /// When buffer `seq`'s write completed, if it has (without records: one of the last few).
    fn at(&self, seq: u64) -> Option<Instant> {
        match &self.all {
            Some(all) => all.get(seq as usize).copied().flatten(),
            None => self.recent.iter().rev().find(|r| r.0 == seq).map(|r| r.1),
        }
    }
}

/// The sink's answer to the warm-up's mark ([`WARM_UP_MARK`]) among the datagrams waiting on
/// `s` (it came long before the run's end); the others are dropped.
fn warm_answer(s: &UdpSocket) -> Option<wire::Marked> {
    let mut b = [0u8; 64];
    let mut found = None;
    while let Some(n) = recv_now(s, &mut b) {
        if let Some(m) = wire::parse_marked(&b[..n]).filter(|m| m.mark == WARM_UP_MARK) {
            found = Some(m);
        }
    }
    found
}

/// Asks the sink, over UDP, how many of our `sent` buffers it received and what it saw of
/// their order and timing ([`wire::arrivals_request`]); a sink that does not answer that
/// within the ack timeout is asked for the plain tally. `None` for what it did not answer
/// (an older sink, or the answer lost).
fn ask_tally(s: &UdpSocket, c: &StreamConfig, sent: u64) -> (Option<u64>, Option<ArrivalStats>) {
    let ask = |frame: &[u8]| {
        let mut frame = frame.to_vec();
        if let Some(key) = &c.key {
            let tag: [u8; wire::TAG] = key.tag(&frame);
            frame.extend_from_slice(&tag);
        }
        s.send(&frame).is_ok()
    };
    let mut a = [0u8; 64];
    if ask(&wire::arrivals_request(sent)) {
        let deadline = Instant::now() + c.ack_timeout;
        while Instant::now() < deadline {
            if let Ok(n) = s.recv(&mut a)
                && let Some((got, out_of_order, jitter_ns)) = wire::parse_arrivals(&a[..n])
            {
                let seen = ArrivalStats {
                    out_of_order,
                    jitter_ns,
                };
                return (Some(got), Some(seen));
            }
        }
    }
    if !ask(&wire::tally_request(sent)) {
        return (None, None);
    }
    let deadline = Instant::now() + c.ack_timeout;
    while Instant::now() < deadline {
        if let Ok(n) = s.recv(&mut a)
            && let Some(got) = wire::parse_tally(&a[..n])
        {
            return (Some(got), None);
        }
    }
    (None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(mark: u64, received: u64, expected: u64, ooo: u64) -> wire::Marked {
        wire::Marked {
            mark,
            received,
            expected,
            out_of_order: ooo,
            jitter_ns: Some(250_000),
        }
    }

    /// Issue 75 §1: the receiver's side of an interval is the difference of two answers:
    /// buffers received and their rate, lost by the sequence numbers, out of order.
    #[test]
    fn the_receivers_interval_is_the_difference_of_two_answers() {
        // 100 received of 103 expected by the first mark; 95 more of 100 more by the second,
        // 2 of them out of order (a late one from the first interval takes one off the loss).
        let r = ReceiverSide::between(&marked(0, 100, 103, 1), &marked(1, 195, 203, 3), 0.5, 8000);
        assert_eq!((r.buffers_received, r.lost, r.out_of_order), (95, 5, 2));
        assert_eq!(r.rate_bit_per_s, 95.0 * 8000.0 / 0.5);
        assert_eq!(r.jitter_s, Some(0.000_25));
        // More arrived than the numbers say were sent (duplicates): no loss, never below 0.
        let d = ReceiverSide::between(&marked(0, 10, 10, 0), &marked(1, 14, 12, 2), 1.0, 8);
        assert_eq!((d.buffers_received, d.lost), (4, 0));
    }

    /// Issue 75 §1: the sink's TCP lines become a reverse run's lines: an interval it sent no
    /// line for had no buffer, the last is as long as it ran, and a number past the run (or
    /// going back) is dropped.
    #[test]
    fn the_sinks_tcp_lines_fill_the_empty_intervals() {
        use wire::Binned::{Last, Whole};
        let lines = sink_lines(
            [
                Whole {
                    index: 0,
                    buffers: 10,
                },
                Whole {
                    index: 2,
                    buffers: 5,
                },
                Whole {
                    index: 1,
                    buffers: 9,
                },
                Whole {
                    index: 99,
                    buffers: 9,
                },
                Last {
                    index: 3,
                    buffers: 2,
                    len_us: 250_000,
                },
            ]
            .into_iter(),
            Duration::from_secs(1),
            8,
            Duration::from_secs(1),
            Duration::from_secs(4),
        );
        let got: Vec<(f64, f64, u64, f64, bool)> = lines
            .iter()
            .map(|l| {
                (
                    l.start_s,
                    l.end_s,
                    l.buffers_received,
                    l.rate_bit_per_s,
                    l.omitted,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (0.0, 1.0, 10, 80.0, true),
                (1.0, 2.0, 0, 0.0, false),
                (2.0, 3.0, 5, 40.0, false),
                (3.0, 3.25, 2, 64.0, false),
            ]
        );
    }

    fn interval(i: u64) -> StreamInterval {
        StreamInterval {
            start_s: i as f64,
            end_s: i as f64 + 1.0,
            buffers_sent: 10,
            rate_bit_per_s: 80.0,
            gaps: 0,
            longest_gap_s: None,
            receiver: None,
            omitted: false,
        }
    }

    /// Intervals are reported in order once their answers are in; one whose answer did not
    /// come within the wait goes without, and so does the next (it has nothing to differ from).
    #[test]
    fn marked_intervals_wait_for_their_answers_in_order() {
        let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut m = Marks {
            sock,
            via_writer: None,
            key: None,
            from_writer: None,
            next: 0,
            pending: Default::default(),
            answers: Vec::new(),
            last: None,
            wait: Duration::from_secs(1),
            heard: false,
            silent: false,
            warm: None,
        };
        let t0 = Instant::now();
        for i in 0..4 {
            m.send(interval(i), t0);
        }
        let mut got = Vec::new();
        // The second's answer first: nothing yet (the first is still awaited).
        m.take(marked(1, 20, 20, 0));
        m.release(t0, false, 8, &mut |iv| got.push(iv));
        assert!(got.is_empty());
        m.take(marked(0, 10, 10, 0));
        m.take(marked(7, 1, 1, 0)); // not a pending mark: ignored
        m.release(t0, false, 8, &mut |iv| got.push(iv));
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].receiver.as_ref().unwrap().buffers_received, 10);
        assert_eq!(got[1].receiver.as_ref().unwrap().buffers_received, 10);
        // The third's answer never comes; the fourth's does, but has nothing to differ from.
        m.take(marked(3, 40, 40, 0));
        m.release(t0 + Duration::from_secs(2), false, 8, &mut |iv| {
            got.push(iv)
        });
        assert_eq!(got.len(), 4);
        assert!(got[2].receiver.is_none() && got[3].receiver.is_none());
        assert!(m.pending.is_empty() && m.answers.is_empty());
    }

    /// The bound's arithmetic is the records' real size: a buffer's record, its completion time
    /// and its gap in the gap table.
    #[test]
    fn record_bytes_is_what_a_run_keeps_per_buffer() {
        let per = std::mem::size_of::<BufferRecord>()
            + std::mem::size_of::<Option<Instant>>()
            + std::mem::size_of::<u64>();
        assert_eq!(per as u64, RECORD_BYTES);
    }

    /// Issue 74 §2: the buffers due are the schedule's (one per fill, to the nanosecond), the
    /// rate achieved is what was sent over the time the source ran, and a source that sent
    /// fewer than were due did not keep up.
    #[test]
    fn a_run_says_the_rate_it_achieved_beside_the_rate_asked() {
        let c = StreamConfig {
            target: "127.0.0.1:1".parse().unwrap(),
            rate_bps: 6,
            buffer_bits: 4,
            duration: Duration::from_secs(2),
            transport: super::Transport::Udp,
            ack: false,
            ack_timeout: Duration::from_secs(1),
            io_timeout: Duration::from_secs(1),
            key: None,
            records: false,
            dial: Default::default(),
            bulk: true,
            omit: Duration::ZERO,
        };
        // 4/6 s = 666,666,667 ns: the third deadline falls 1 ns past the 2 s, so 2 are due.
        assert_eq!(c.fill(), Duration::from_nanos(666_666_667));
        let run = |sent: u64, sent_s: f64, partial: Option<&str>| StreamRun {
            config: c.clone(),
            started_unix_s: 0,
            time_of_day: String::new(),
            buffers_sent: sent,
            buffers_completed: sent,
            sent_s,
            gaps: GapTable::default(),
            acks_lost: 0,
            sink_received: None,
            arrivals: None,
            local: None,
            partial: partial.map(str::to_string),
            omitted: None,
            records: Vec::new(),
            received: None,
            receiver_intervals: Vec::new(),
        };
        let r = run(2, 2.0, None);
        assert_eq!(r.buffers_due(), 2);
        assert!(r.kept_up());
        assert_eq!(r.sent_rate_bps(), Some(4.0));
        let r = run(1, 2.0, None);
        assert!(!r.kept_up());
        assert_eq!(r.sent_rate_bps(), Some(2.0));
        // Stopped after 0.7 s: one buffer was due by then.
        let r = run(1, 0.7, Some(STOPPED));
        assert_eq!(r.buffers_due(), 1);
        assert!(r.kept_up());
        assert_eq!(run(0, 0.0, Some(STOPPED)).sent_rate_bps(), None);
    }

    /// Issue 75 §2: a warm-up's buffers are those whose deadlines fall in it, ⌊omit ÷ fill⌋;
    /// the run's due are the schedule's by the end less those.
    #[test]
    fn a_warm_up_is_its_buffers_by_number_and_the_run_the_rest() {
        let c = StreamConfig {
            target: "127.0.0.1:1".parse().unwrap(),
            rate_bps: 30_000,
            buffer_bits: 2016,
            duration: Duration::from_secs(1),
            transport: super::Transport::Udp,
            ack: false,
            ack_timeout: Duration::from_secs(1),
            io_timeout: Duration::from_secs(1),
            key: None,
            records: true,
            dial: Default::default(),
            bulk: false,
            omit: Duration::from_millis(300),
        };
        // 2016 bit at 30 kbit/s fill in 67.2 ms: 4 in the 300 ms, 19 by 1.3 s.
        assert_eq!(c.warm_up_buffers(), 4);
        assert_eq!(c.buffers().round(), 19.0);
        let run = StreamRun {
            config: c.clone(),
            started_unix_s: 0,
            time_of_day: String::new(),
            buffers_sent: 15,
            buffers_completed: 15,
            sent_s: 1.0,
            gaps: GapTable::default(),
            acks_lost: 0,
            sink_received: None,
            arrivals: None,
            local: None,
            partial: None,
            omitted: None,
            records: Vec::new(),
            received: None,
            receiver_intervals: Vec::new(),
        };
        assert_eq!(run.buffers_due(), 15);
        assert!(run.kept_up());
        let none = StreamConfig {
            omit: Duration::ZERO,
            ..c
        };
        assert_eq!(none.warm_up_buffers(), 0);
    }
}
