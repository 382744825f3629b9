//! What a run watches and writes, apart from the protocol: typed records the driver hands to
//! the `Observer` as things happen. Nothing here changes the subnet; the readings that need
//! it (the occupancy sample, a time slice, the lockup watch) are taken by the driver at the
//! observers' own ticks (`model/watch.rs`, `model/slice.rs`, `model/lockup.rs`), each IMP read
//! through its `Snapshot`, and handed over as values.
//!
//! | file | what |
//! | --- | --- |
//! | `observe/observer.rs` | the `Observer`: the messages the subnet holds (`Tracked`), the finished records, the counts, the occupancy samples, the slices, the e2e log, the lockup found; `Observer::note` takes a message's `Milestone`s |
//! | `observe/record.rs` | the values: a message's timeline ([`MessageRecord`]), its milestones, the protocol's counts ([`Counted`]), an occupancy sample ([`Occupancy`]), every message's tally (`BackgroundTally`) |
//! | `observe/slice.rs` | a time slice of the measured pair (K&O Figs. 2, 7, 8; [`TimeSlice`]) |
//! | `observe/e2e_log.rs` | single-packet messages' end-to-end events in RFC 632's words ([`E2eEvent`]) |
//! | `observe/journeys.rs` | each packet's journey under adaptive routing, and the running figures of the visits (`Journeys`, [`JourneyRecord`]) |
//! | `observe/lockup.rs` | what the lockup watch found (RFC 626; [`LockupReport`]) |
//! | `observe/snapshot.rs` | one IMP's tables as the observers read them, through one door (`Snapshot`, `Imp::snapshot`) |
//!
//! Where they go next: `records.rs` writes them as CSV as the run goes, `analysis.rs` and
//! `metric.rs` make the run's figures of them.

mod e2e_log;
mod journeys;
mod lockup;
mod observer;
mod record;
mod slice;
mod snapshot;

pub use e2e_log::E2eEvent;
pub(crate) use e2e_log::{Happened, Note, Side, What};
pub use journeys::{JourneyRecord, Path, PathFigures};
pub(crate) use journeys::{JourneyStats, Journeys};
pub(crate) use lockup::HeldAt;
pub use lockup::LockupReport;
pub(crate) use observer::Observer;
pub(crate) use record::{BackgroundTally, Milestone, Tracked};
pub use record::{Counted, MessageRecord, Occupancy};
pub use slice::{Doing, SliceItem, SliceKind, TimeSlice};
