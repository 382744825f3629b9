//! # nmc-oracle: the real 1973 IMP program as an oracle for nmc's model
//!
//! BBN's IMP program 3050 (16 Sept 1973) runs in SIMH's Honeywell H316 simulator. This crate
//! builds that simulator from the user's SIMH checkout with the project's patches, runs chains
//! of emulated IMPs on a **cycle clock** (each instruction timed from the 516's or 316's memory
//! cycle, paced to wall time, every instance reporting whether it kept up), attaches nmc as an
//! 1822 host, and runs Kleinrock & Opderbeck's pump against the IMPs' discard fake host.
//!
//! | module | what |
//! | --- | --- |
//! | [`framing`] | SIMH's UDP framing of H316 words; the host interface's flag word |
//! | [`leader`] | the 32-bit 1822 leader of IMP 3050: types, flags, fake hosts |
//! | [`host`] | nmc as an 1822 host: a sans-I/O core, datagrams in, events out, refusals counted |
//! | [`pump`] | K&O's pump: N messages outstanding, each released by its reply (sans-I/O) |
//! | [`stats`] | the confidence method (batch means), fixed before the runs |
//! | [`trace`] | the patched simulator's event trace and IMP-to-IMP frames read from it |
//! | [`analyze`] | K&O's throughput and round trip from a run's records and traces |
//! | [`build`] | building `h316`: copy, patch (`patches/`), add `simh/h316_nmc.c`, compile |
//! | [`run`] | command files, instances, the host's socket loop (the thin driver), stopping |
//! | [`timeline`] | one message's life hop by hop from every IMP's trace |
//! | [`align`] | a recorded single-packet timeline beside the model's, event by event |
//! | [`emulate`] | the same runs on nmc's own H316 emulator (`nmc-h316`), measured by the same code |
//! | [`map`] | an ARPANET map scenario's IMPs and lines as a network of emulated IMPs (program 3050's limits) |
//! | [`mapcheck`] | the model on that map beside the program's recordings there, loaded and unloaded (`nmc oracle compare --map`) |
//! | [`background`] | the scenario's background hosts on the emulated IMPs: the model's traffic, offered through host 2 |
//! | [`mixed`] | modelled IMPs in a network of IMPs that run the program (`network.program.imps` naming fewer than all): nmc's model with the emulated IMPs outside it, a [`neighbour`] at each line between the two kinds, on one clock |
//! | [`neighbour`] | one end of a line to an IMP running program 3050 that is not the program: its line protocol (hello and "I heard you", 8 logical channels, acknowledgements, retransmission, routing messages, the checksum), sans-I/O; the first step to modelled and emulated IMPs in one network |
//! | [`program`] | a scenario (`[network.program]`) with every IMP running the program on the emulator: its lines, hosts and traffic; `nmc run` |
//! | [`journeys`] | on such a run, each packet's path across the program's IMPs, read from the frames on the lines (`record = ["journeys"]`) |
//! | [`routes`] | on such a run, each routing message as it left: the sender's delay and hops to every IMP (`record = ["routing"]`, `routing-messages.csv`) |
//! | [`rule`] | a rule tried against the program: the profile and the candidate (`--set`) on the phase scan and the map, judged by the conditions fixed before the first rule (`nmc oracle rule`) |
//! | [`tally`] | the source IMP's TALLY table of unused allocations, the program (a watched replay) beside the model's trace (`nmc oracle tally`) |
//! | [`speed`] | the emulator's instructions per second and real-time factor (`nmc oracle bench`) |
//! | `files` | one CSV table from serialisable rows, for every command |
//! | [`cli`] | `nmc oracle build`, `chain`, `rfc632`, `timeline`, `collect`, `compare`, `rule`, `tally`, `emulate`, `bench` |
//!
//! ## One command
//!
//! ```text
//! nmc oracle chain --simh ~/src/simh --hops 1..9 --imp 516 --outstanding 4 \
//!     --messages 200 --single 30 --out out/oracle-516-4
//! ```
//!
//! builds (once) `target/nmc-oracle/h316`, starts a chain of 10 IMPs numbered 11–20 (50 kbit/s
//! lines, no other traffic), waits for the first RFNM from the far end, pumps 200 messages of
//! 503 words to each IMP's discard fake host in turn (4 outstanding), then 30 single-packet
//! messages one at a time, and writes `results.csv`, `messages.csv`, `run.json` and every
//! instance's command file, log, trace and summary. A run in which any instance fell more than
//! 25 ms behind wall time, or spent more than 1 % of its time over 2 ms behind, is reported as
//! refused (`run.json`'s `accepted`). The how-to page in the book has the first numbers.
//!
//! First numbers (`data/oracle/`, the book's how-to): unloaded, 516s and 316s alike carry
//! 37–40 kbit/s of 8-packet messages with 4 outstanding at every distance from 1 to 9 hops,
//! K&O's round trip growing from about 200 ms at 1 hop by about 30–50 ms a hop; a single packet
//! goes there and back in 40 ms at 1 hop (516); and RFC 632's two-path experiment traps the
//! 1973 program (round trips from ~100 to ~400 ms, 10 kbit/s, until the traffic stops).
//!
//! The IMP's real-time clock runs at 100 us a count, as the program's own constants require
//! (3050 listing p. 112: 1250 counts are "125 MS"); SIMH's `impconfig.cmd` has 20 us, which
//! runs every timer of the program five times fast ([`run::Settings::rtc_us`]).
//!
//! Never committed: SIMH's sources and the IMP program (`H316/tests/impcode.cmd` carries a
//! BBN proprietary notice); both are read from the user's checkout at run time.
#![warn(missing_docs)]

pub mod align;
pub mod analyze;
pub mod background;
pub mod build;
pub mod cli;
pub mod emulate;
mod files;
pub mod framing;
pub mod host;
pub mod journeys;
pub mod leader;
pub mod map;
pub mod mapcheck;
pub mod mixed;
pub mod model;
pub mod neighbour;
pub mod perhop;
pub mod program;
pub mod pump;
pub mod routes;
pub mod rule;
pub mod run;
pub mod speed;
pub mod stats;
pub mod tally;
pub mod timeline;
pub mod trace;
