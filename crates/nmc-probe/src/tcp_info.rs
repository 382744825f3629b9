//! TCP's own view of a connection (issue 58 §4), as iperf3 reports it beside its own figures:
//! segments retransmitted, the smoothed round trip and its variation, the least round trip,
//! and the congestion window. Read from Linux's `TCP_INFO` at the end of a run; on other
//! systems there is none (`None`), and the documents say `null`.

use serde::{Deserialize, Serialize};

/// One connection's TCP statistics, as the kernel keeps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpStats {
    /// Segments retransmitted over the connection's life (`tcpi_total_retrans`).
    pub retransmits: u32,
    /// The smoothed round trip, µs (`tcpi_rtt`).
    pub rtt_us: u32,
    /// Its mean deviation, µs (`tcpi_rttvar`).
    pub rttvar_us: u32,
    /// The least round trip seen, µs (`tcpi_min_rtt`; 0 where the kernel does not keep it).
    pub min_rtt_us: u32,
    /// The congestion window, segments (`tcpi_snd_cwnd`).
    pub cwnd_segments: u32,
    /// The sender's segment size, bytes (`tcpi_snd_mss`).
    pub mss_bytes: u32,
}

impl TcpStats {
    /// The congestion window in bytes (segments × segment size).
    pub fn cwnd_bytes(&self) -> u64 {
        u64::from(self.cwnd_segments) * u64::from(self.mss_bytes)
    }
}

/// The statistics of the TCP socket `s`, or `None` where the system gives none (not Linux, or
/// the call failed).
#[cfg(target_os = "linux")]
pub fn stats(s: &impl std::os::fd::AsRawFd) -> Option<TcpStats> {
    // SAFETY: tcp_info is plain data (integers only), so all zeros is a valid value.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: the pointer and length describe `info`, which outlives the call; the kernel
    // writes at most `len` bytes and says how many it wrote.
    let r = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    if r != 0 {
        return None;
    }
    // An older kernel fills less of the struct: a field it did not write stays 0.
    let min_rtt_end = std::mem::offset_of!(libc::tcp_info, tcpi_min_rtt) + 4;
    Some(TcpStats {
        retransmits: info.tcpi_total_retrans,
        rtt_us: info.tcpi_rtt,
        rttvar_us: info.tcpi_rttvar,
        min_rtt_us: if len as usize >= min_rtt_end {
            info.tcpi_min_rtt
        } else {
            0
        },
        cwnd_segments: info.tcpi_snd_cwnd,
        mss_bytes: info.tcpi_snd_mss,
    })
}

/// The statistics of the TCP socket `s`: none on this system.
#[cfg(not(target_os = "linux"))]
pub fn stats<T>(_s: &T) -> Option<TcpStats> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A connection that has carried data has a round trip and a window; a UDP socket (not
    /// TCP) gives none.
    #[test]
    fn a_loopback_connection_has_a_round_trip_and_a_window() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut c = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut a, _) = l.accept().unwrap();
        let mut b = [0u8; 1000];
        for _ in 0..20 {
            c.write_all(&b).unwrap();
            a.read_exact(&mut b).unwrap();
            a.write_all(&b[..1]).unwrap();
            c.read_exact(&mut b[..1]).unwrap();
        }
        let s = stats(&c).expect("TCP_INFO on Linux");
        assert!(s.rtt_us > 0 && s.rtt_us < 1_000_000, "{s:?}");
        assert!(s.cwnd_segments > 0 && s.mss_bytes > 0, "{s:?}");
        assert_eq!(s.retransmits, 0, "{s:?}");
        let u = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        assert_eq!(stats(&u), None);
    }
}
