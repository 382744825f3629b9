//! The UCSB IBM 360/75 as a time-shared host: a CPU that serves the On-Line System's
//! interactions first and the SEL's network job (the SEL link and the NCP) only when no
//! interaction is waiting (RFC 508 §VI: "the SEL connection to the IBM 360 has lower priority
//! in the 360 than the UCSB On-Line System").
//!
//! The On-Line System is a closed population of `terminals` users, each thinking for an
//! exponential time (mean `think_mean`), then asking for an exponential CPU burst (mean
//! `burst_mean`); bursts are served first come, first served, ahead of the network job. The
//! network job is one FIFO server of small CPU demands (attention interrupts, message sends,
//! RFNMs) that run only in the CPU's idle time, pre-empted by any interaction. What is left out:
//! the 360's I/O and paging, time slicing among the interactions, and other batch work.

use crate::params::HostParams;
use nmc_sim::rng::Stream;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The CPU as the network job sees it.
pub struct Cpu {
    /// On-Line System busy periods, sorted, disjoint: [start, end) in ns.
    busy: Vec<(u64, u64)>,
    /// Index of the first busy period that may still matter.
    cursor: usize,
    /// The network job is busy until then.
    job_free_at: u64,
    fixed_response: Option<u64>,
}

impl Cpu {
    /// Generates the On-Line System's busy periods on [0, until) from `rng`.
    pub fn new(p: &HostParams, until: u64, rng: &mut Stream) -> Cpu {
        let mut busy: Vec<(u64, u64)> = Vec::new();
        if p.fixed_response_ns.is_none() && p.terminals > 0 {
            let mut heap = BinaryHeap::new();
            for t in 0..p.terminals {
                let first = rng.exponential(p.think_mean_ns as f64) as u64;
                heap.push(Reverse((first, t)));
            }
            let mut free_at = 0u64;
            while let Some(Reverse((t, term))) = heap.pop() {
                if t >= until {
                    break;
                }
                let start = t.max(free_at);
                let burst = (rng.exponential(p.burst_mean_ns as f64) as u64).max(1);
                let end = start + burst;
                match busy.last_mut() {
                    Some(last) if last.1 >= start => last.1 = end,
                    _ => busy.push((start, end)),
                }
                free_at = end;
                let think = rng.exponential(p.think_mean_ns as f64) as u64;
                heap.push(Reverse((end + think, term)));
            }
        }
        Cpu {
            busy,
            cursor: 0,
            job_free_at: 0,
            fixed_response: p.fixed_response_ns,
        }
    }

    /// The network job is asked at `at` for `work` ns of CPU; returns when it is done.
    /// Requests are served in the order made (callers ask in time order).
    pub fn serve(&mut self, at: u64, work: u64) -> u64 {
        if let Some(d) = self.fixed_response {
            let done = (at + d).max(self.job_free_at) + work;
            self.job_free_at = done;
            return done;
        }
        let mut t = at.max(self.job_free_at);
        let mut left = work;
        while self.cursor < self.busy.len() && self.busy[self.cursor].1 <= t {
            self.cursor += 1;
        }
        let mut k = self.cursor;
        loop {
            match self.busy.get(k) {
                Some(&(s, e)) if s <= t => {
                    t = t.max(e);
                    k += 1;
                }
                Some(&(s, _)) => {
                    if s - t >= left {
                        t += left;
                        break;
                    }
                    left -= s - t;
                    t = s;
                }
                None => {
                    t += left;
                    break;
                }
            }
        }
        self.job_free_at = t;
        t
    }

    /// Fraction of [from, to) the On-Line System kept the CPU busy.
    pub fn utilisation(&self, from: u64, to: u64) -> f64 {
        let busy: u64 = self
            .busy
            .iter()
            .map(|&(s, e)| e.min(to).saturating_sub(s.max(from)))
            .sum();
        busy as f64 / (to - from).max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;

    #[test]
    fn the_network_job_waits_for_the_on_line_system() {
        let mut cpu = Cpu {
            busy: vec![(10, 20), (25, 40)],
            cursor: 0,
            job_free_at: 0,
            fixed_response: None,
        };
        // Asked at 12 for 3: waits to 20, runs 20..23.
        assert_eq!(cpu.serve(12, 3), 23);
        // Asked at 23 for 4: runs 23..25, pre-empted 25..40, then 40..42.
        assert_eq!(cpu.serve(23, 4), 42);
        // FIFO: asked at 30 for 1, behind the last request: 42..43.
        assert_eq!(cpu.serve(30, 1), 43);
        assert_eq!(cpu.serve(100, 1), 101);
    }

    #[test]
    fn sixteen_terminals_load_the_cpu_about_as_the_parameters_say() {
        let mut p = Params::default().host;
        p.terminals = 16;
        let mut rng = nmc_sim::RngStreams::new(508).stream(1);
        let until = 3_600_000_000_000;
        let cpu = Cpu::new(&p, until, &mut rng);
        let u = cpu.utilisation(0, until);
        // Closed system: below the 76 % offered (16 · 0.5 / 10.5), since users queue.
        assert!(u > 0.6 && u < 0.8, "utilisation {u}");
    }
}
