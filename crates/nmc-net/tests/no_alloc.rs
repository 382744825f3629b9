//! Issue 2: no heap allocation per event in steady state. A counting global allocator
//! watches a golden-chain run after its warm-up: the event loop must not allocate at all.

use nmc_net::StoreForward;
use nmc_net::model::Event;
use nmc_sim::{SimTime, Simulation, Trace};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
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
    let before = ALLOCS.load(Ordering::Relaxed);
    let events_before = sim.events_handled();
    sim.run_until(SimTime::from_nanos(600_000_000_000)); // 590 s more
    let events = sim.events_handled() - events_before;
    let allocs = ALLOCS.load(Ordering::Relaxed) - before;
    assert!(events > 60_000, "{events} events");
    assert_eq!(
        allocs, 0,
        "{allocs} allocations during {events} steady-state events"
    );
}
