//! Issue 2: no heap allocation per event in steady state. A counting global allocator
//! watches a golden-chain run after its warm-up: the event loop must not allocate at all.
//! Only the test's own thread is counted: the test harness's other threads allocate when they
//! like (on a loaded machine they did, and this test failed for a reason not its own).
//!
//! A test binary of its own (issue 72 keeps the rest of a crate's tests in one): the counting
//! allocator is global, and would sit under every other test in the binary.

use nmc_net::StoreForward;
use nmc_net::model::Event;
use nmc_sim::{SimTime, Simulation, Trace};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Set on the thread whose allocations count.
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn count() {
    if COUNTING.try_with(|c| c.get()).unwrap_or(false) {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn golden_chain_event_loop_does_not_allocate() {
    let text = include_str!("../../../scenarios/golden-chain.toml");
    let s: nmc_net::StoreForwardScenario =
        nmc_scenario::load("golden-chain.toml", text, &[]).unwrap();
    let model = StoreForward::build(&s, 1, Trace::off()).unwrap();
    let mut sim = Simulation::new(model);
    sim.schedule(SimTime::ZERO, Event::Offer { source: 0 });
    sim.run_until(SimTime::from_nanos(10_000_000_000)); // warm-up: 10 s
    let events_before = sim.events_handled();
    let before = ALLOCS.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    sim.run_until(SimTime::from_nanos(600_000_000_000)); // 590 s more
    COUNTING.with(|c| c.set(false));
    let allocs = ALLOCS.load(Ordering::Relaxed) - before;
    let events = sim.events_handled() - events_before;
    assert!(events > 60_000, "{events} events");
    assert_eq!(
        allocs, 0,
        "{allocs} allocations during {events} steady-state events"
    );
}
