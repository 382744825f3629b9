//! The IMP's hop-by-hop steps: what one IMP does with the packets on its lines and its
//! processor, as `impl Imp` blocks over the tables of `imp.rs`, `link.rs` and `processor.rs`
//! (the end-to-end steps are `e2e/`'s). Each step takes `now`, changes the IMP's own tables and
//! pushes what the driver is to do ([`crate::imp::Output`]).
//!
//! | module | what |
//! | --- | --- |
//! | `hop/processing.rs` | the processor (BBN's IMP program 3050): one task queue for every packet and frame taken in, the clock's timeout level above it; the task level's store-and-forward decision and the acknowledgement it owes (`GOODM`) |
//! | `hop/routing.rs` | the IMP's routing: a packet's next line by its own router (or the static routes), packets without a route kept until the table changes, and what its router hears (routing messages with the output queues' lengths, lines down and up, SPF's delay samples) |
//! | `hop/lines.rs` | the IMP's side of its lines: a frame sent and its retransmission timer (K&O §III's 125 ms), a packet sent again, a routing send opportunity used or not by the line's load (`RMVFRQ`), a line going down (what the far end accepted acknowledged, the rest taken back) and coming up |

mod lines;
mod processing;
mod routing;
