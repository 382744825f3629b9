//! Whole-subnet tests: shipped and small scenarios run from their TOML text, checked against
//! what K&O and the RFCs say must hold. They live inside the crate (not in `tests/`) because
//! they read what a run keeps that no other crate reads (the subnet's routing tables and hosts,
//! the e2e log's fields, the lockup report's detail, counts by name).
//!
//! | file | what |
//! | --- | --- |
//! | `tests/load.rs` | the network's own load and the IMP's own work (issue 10) |
//! | `tests/routing.rs` | adaptive routing, lines going down and up (issue 4) |
//! | `tests/single_packet.rs` | single-packet messages (issue 5, RFC 632) |
//! | `tests/stepper.rs` | the subnet stepped from outside ([`crate::Stepper`]) |
//! | `tests/subnet.rs` | what must hold in the version 2 subnet (issue 3) |
//! | `tests/v3.rs` | version 3 message processing (K&O §VI–VII) |

mod boundary;
mod load;
mod routing;
mod single_packet;
mod stepper;
mod subnet;
mod v3;

// The scenario file as the crate resolves it (`crate::scenario`).
use crate::scenario;
