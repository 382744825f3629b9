//! Two neighbours on one line, no program: the hello protocol brings the line up when the
//! listing says, a packet crosses on a channel and is acknowledged, a duplicate is dropped
//! unacknowledged, an acknowledgement for a free channel kills the line.

use super::*;

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// Two ends joined by a 50 kbit/s line with no propagation, timed frame by frame.
struct Wire {
    ends: [Neighbour; 2],
    /// Frames in flight: (arrival of the last bit, to end, words).
    flying: Vec<(u64, usize, Vec<u16>)>,
    /// When each end's line is free again.
    free_at: [u64; 2],
    /// Offers each end took.
    taken: [Vec<Offer>; 2],
    /// Whether each end takes what it is offered.
    takes: [bool; 2],
}

impl Wire {
    fn new() -> Wire {
        let speed = SpeedType::of(50_000, 72);
        Wire {
            ends: [
                Neighbour::new(2, speed, 0),
                Neighbour::new(3, speed, 7 * MS),
            ],
            flying: Vec::new(),
            free_at: [0; 2],
            taken: [Vec::new(), Vec::new()],
            takes: [true; 2],
        }
    }

    fn frame_ns(words: usize) -> u64 {
        (words as u64 * 16 + 72) * 1_000_000_000 / 50_000
    }

    /// Runs to `until`, event by event.
    fn run(&mut self, until: u64) {
        loop {
            let next_arrival = self.flying.iter().map(|f| f.0).min().unwrap_or(u64::MAX);
            let wake = (0..2)
                .map(|i| self.ends[i].poll_at().max(self.free_at[i]))
                .min()
                .unwrap();
            let t = next_arrival.min(wake);
            if t > until {
                return;
            }
            if next_arrival == t {
                let k = self.flying.iter().position(|f| f.0 == t).unwrap();
                let (_, to, words) = self.flying.remove(k);
                if let Some(offer) = self.ends[to].frame_in(t, &words, true)
                    && self.takes[to]
                {
                    self.ends[to].accept(&offer);
                    self.taken[to].push(offer);
                }
            }
            for i in 0..2 {
                while self.free_at[i] <= t {
                    match self.ends[i].poll_transmit(t) {
                        Some(words) => {
                            let end = t + Self::frame_ns(words.len());
                            self.free_at[i] = end;
                            self.flying.push((end, 1 - i, words));
                        }
                        None => break,
                    }
                }
            }
        }
    }

    fn events(&mut self, i: usize) -> Vec<Event> {
        std::iter::from_fn(|| self.ends[i].poll_event()).collect()
    }
}

#[test]
fn a_50_kbit_line_is_type_2_with_a_128_ms_period() {
    let s = SpeedType::of(50_000, 72);
    assert_eq!((s.kind, s.period_ns, s.intervals_to_up), (2, 128 * MS, 60));
    assert_eq!(s.interval_ns(), 640 * MS);
    assert_eq!(SpeedType::of(230_400, 72).kind, 3);
    assert_eq!(SpeedType::of(9_600, 72).kind, 1);
}

#[test]
fn two_neighbours_bring_their_line_up_after_60_intervals_of_i_heard_you() {
    let mut w = Wire::new();
    w.run(38 * S);
    assert!(
        !w.ends[0].is_up() && !w.ends[1].is_up(),
        "not before 38.4 s"
    );
    w.run(42 * S);
    assert!(w.ends[0].is_up() && w.ends[1].is_up());
    assert_eq!(w.events(0), vec![Event::Up, Event::Routing]);
    assert_eq!(w.ends[0].neighbour(), Some(3));
    // Their tables: each has the other's, read once the line was up.
    w.ends[1].set_table(&{
        let mut t = [UNREACHABLE; IMP_NUMBERS];
        t[9] = frame::entry(2, 8);
        t
    });
    w.run(45 * S);
    assert_eq!(w.ends[0].peer_table()[3], 0);
    assert_eq!(w.ends[0].peer_table()[9], frame::entry(2, 8));
    assert_eq!(w.ends[0].counts().kills, 0);
}

#[test]
fn a_packet_crosses_on_the_lowest_free_channel_and_is_acknowledged() {
    let mut w = Wire::new();
    w.run(42 * S);
    let header = vec![0o4, 0o3, 0o100002, 0o3400, 0o1111, 0o2222];
    assert_eq!(w.ends[0].send(header.clone(), false), Some(0));
    assert_eq!(w.ends[0].send(header.clone(), false), Some(1));
    assert_eq!(w.ends[0].free_channels(), 6);
    w.run(43 * S);
    let got: Vec<u8> = w.taken[1].iter().map(|o| o.channel).collect();
    assert_eq!(got, vec![0, 1]);
    // The far end sees our ENDBIT clear (2 < 3) and the words as queued.
    assert_eq!(w.taken[1][0].words[3] & head2::ENDBIT, 0);
    assert_eq!(&w.taken[1][0].words[1..7], &header[..]);
    assert!(frame::checksum_ok(&w.taken[1][0].words));
    // Both acknowledged (by the null the far end sent), the channels free again.
    let acked: Vec<u8> = w
        .events(0)
        .into_iter()
        .filter_map(|e| match e {
            Event::Acked { channel, .. } => Some(channel),
            _ => None,
        })
        .collect();
    assert_eq!(acked, vec![0, 1]);
    assert_eq!(w.ends[0].free_channels(), 8);
    // The next packet on channel 0 carries the other odd/even bit.
    w.ends[0].send(header, false);
    w.run(44 * S);
    assert_eq!(w.taken[1].len(), 3);
    assert_ne!(w.taken[1][0].odd_even, w.taken[1][2].odd_even);
}

#[test]
fn a_packet_not_taken_is_sent_again_and_a_duplicate_is_dropped() {
    let mut w = Wire::new();
    w.run(42 * S);
    w.takes[1] = false;
    w.ends[0].send(vec![0o4, 0o3, 0o100002, 0o3400], false);
    w.run(42 * S + 400 * MS);
    assert!(w.ends[0].counts().retransmissions >= 1, "sent again");
    w.takes[1] = true;
    w.run(43 * S);
    assert_eq!(w.taken[1].len(), 1);
    // Offer the same frame again: now a duplicate.
    let dup = w.taken[1][0].words.clone();
    assert_eq!(w.ends[1].frame_in(43 * S, &dup, true), None);
    assert_eq!(w.ends[1].counts().duplicates, 1);
}

#[test]
fn an_acknowledgement_for_a_free_channel_kills_the_line_which_then_comes_back() {
    let mut w = Wire::new();
    w.run(42 * S);
    w.events(0);
    // Channel 5 is free at end 0: a null flipping its bit is a spurious acknowledgement.
    let null = frame::null(3, !(1 << 5), false, 0);
    assert_eq!(w.ends[0].frame_in(42 * S, &null, true), None);
    assert!(!w.ends[0].is_up());
    assert!(matches!(w.events(0)[..], [Event::Down { .. }]));
    // The other end misses its "I heard you"s and kills too; both come up again.
    w.run(42 * S + 10 * S);
    assert!(!w.ends[1].is_up());
    w.run(42 * S + 60 * S);
    assert!(w.ends[0].is_up() && w.ends[1].is_up());
}

#[test]
fn bad_frames_are_counted_and_change_nothing() {
    let mut n = Neighbour::new(2, SpeedType::of(50_000, 72), 0);
    assert_eq!(n.frame_in(0, &[1, 2], true), None);
    assert_eq!(n.frame_in(0, &[0; 80], true), None);
    assert_eq!(n.frame_in(0, &[0, 0o1003, 0, 0, 0], true), None);
    assert_eq!(n.frame_in(0, &frame::null(3, 0o377, false, 0), false), None);
    assert_eq!(n.counts().bad, 4);
    assert_eq!(n.frame_in(0, &[0o40001, 0o100001, 0, 0, 0], true), None);
    assert_eq!(n.counts().maintenance, 1);
    assert_eq!(
        n.send(vec![1], false),
        None,
        "a frame of fewer than 5 words"
    );
    assert_eq!(n.send(vec![0; 68], false), None, "longer than 69 words");
}

/// Listing p. 235 `RMVFRQ`, p. 164 `RSTO4`: an idle line carries a routing message (with its
/// null) every 128 ms, five a basic interval; a line kept sending carries one fewer for each
/// full 132 ms it was busy in the last slow tick, down to the hello check's one; idle again,
/// five again.
#[test]
fn a_busy_line_carries_fewer_routing_messages_down_to_one_an_interval() {
    let mut w = Wire::new();
    w.run(42 * S);
    assert!(w.ends[0].is_up());
    let routing = |w: &Wire| w.ends[0].counts().routing;
    let (r0, t0) = (routing(&w), 42 * S);
    w.run(t0 + 10 * 640 * MS);
    assert_eq!(routing(&w) - r0, 50, "idle: 5 an interval");
    // Keep end 0 sending: a 69-word packet (23.5 ms) whenever fewer than two wait.
    let r1 = routing(&w);
    let t1 = t0 + 10 * 640 * MS;
    let mut t = t1;
    while t < t1 + 20 * 640 * MS {
        t += 10 * MS;
        while w.ends[0].unsent() < 2 && w.ends[0].free_channels() > 0 {
            w.ends[0].send(
                vec![0o4, 3, 2, 0].into_iter().chain([7; 63]).collect(),
                false,
            );
        }
        w.run(t);
    }
    let busy = routing(&w) - r1;
    // The first slow tick still counts the idle one before it; then one an interval.
    assert!((20..=24).contains(&busy), "busy: {busy} in 20 intervals");
    let r2 = routing(&w);
    w.run(t + 10 * 640 * MS);
    assert!(routing(&w) - r2 >= 45, "idle again");
    assert_eq!(w.ends[0].counts().kills, 0);
}
