//! How the IMP's devices are wired: device codes, priority levels (vectors), DMC channels.
//!
//! Source: BBN's IMP program 3050 (16 Sep 1973), its definitions page (listing page 3): the
//! modem and host OCP/SKS codes (`MnOUT`, `MnIN`, `MnERR`, `HnROUT`, `HnIN`, `HnFOUT`, `HnXP`,
//! `HnUNXP`, `HnENAB`, `HnERR`, `HnRDY`, `HnEOM`, `HnFULL`), their interrupt locations
//! (`MnINIL`, `MnOTIL`, `HnINIL`, `HnOTIL`, `CLOKIL`, `TASKIL`, `WDTIL`) and DMC pointer
//! addresses (`MnINBP`, `MnOTBP`, `HnINBP`, `HnOTBP`); the clock, task, watchdog, lights and
//! IMP-number instructions (`CLKON`, `CLKOFF`, `RDCLOK`, `TASK`, `WDT`, `LITES`, `RDIMPN`,
//! `AMIMLC`, `AMI516`). Host 3 and host 4 borrow modem 5's and modem 4's vectors and modem 5's
//! DMC channels, so a machine has five
//! modems, or four modems and three hosts, or three modems and four hosts. SIMH's IMP devices
//! (`h316_imp.h`) use the same assignment.
//!
//! A priority level's vector is 63 + level ([`crate::interrupt`]).

use crate::dmc::Channel;
use crate::interrupt::Level;

/// One modem interface's wiring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModemWiring {
    /// Device code (71–75).
    pub device: u8,
    /// Input-done level (vectors 64–70).
    pub input_level: Level,
    /// Output-done level (vectors 71–75).
    pub output_level: Level,
    /// Input DMC channel (pointers at 20–30).
    pub input_dmc: Channel,
    /// Output DMC channel (pointers at 32–42).
    pub output_dmc: Channel,
}

/// The five modem interfaces, line 1 first.
pub const MODEMS: [ModemWiring; 5] = {
    let mut m = [ModemWiring {
        device: 0,
        input_level: 0,
        output_level: 0,
        input_dmc: Channel(1),
        output_dmc: Channel(1),
    }; 5];
    let mut i = 0;
    while i < 5 {
        m[i] = ModemWiring {
            device: 0o71 + i as u8,
            input_level: 1 + i as u8,
            output_level: 6 + i as u8,
            input_dmc: Channel(1 + i as u8),
            output_dmc: Channel(6 + i as u8),
        };
        i += 1;
    }
    m
};

/// One host interface's wiring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostWiring {
    /// Device code.
    pub device: u8,
    /// Input-done level (host to IMP).
    pub input_level: Level,
    /// Output-done level (IMP to host).
    pub output_level: Level,
    /// Input DMC channel.
    pub input_dmc: Channel,
    /// Output DMC channel.
    pub output_dmc: Channel,
}

/// The four host interfaces, host 1 first.
pub const HOSTS: [HostWiring; 4] = [
    // Host 1: device 70, output vector 76, input 100, DMC pointers 44 (out) and 50 (in).
    HostWiring {
        device: 0o70,
        input_level: 13,
        output_level: 11,
        input_dmc: Channel(13),
        output_dmc: Channel(11),
    },
    // Host 2: device 60, vectors 77 and 101, pointers 46 and 52.
    HostWiring {
        device: 0o60,
        input_level: 14,
        output_level: 12,
        input_dmc: Channel(14),
        output_dmc: Channel(12),
    },
    // Host 3: device 50; output at modem 5's input vector (70), input at modem 5's output
    // vector (75); pointers 54 and 56.
    HostWiring {
        device: 0o50,
        input_level: 10,
        output_level: 5,
        input_dmc: Channel(16),
        output_dmc: Channel(15),
    },
    // Host 4: device 51; output at modem 4's input vector (67), input at modem 4's output
    // vector (74); pointers: modem 5's (30 out, 42 in).
    HostWiring {
        device: 0o51,
        input_level: 9,
        output_level: 4,
        input_dmc: Channel(10),
        output_dmc: Channel(5),
    },
];

/// The real-time clock's device code (`CLKON` = OCP 40).
pub const CLOCK_DEVICE: u8 = 0o40;
/// The clock's level (vector 102, `CLOKIL`).
pub const CLOCK_LEVEL: Level = 15;
/// The task device (`TASK` = OCP 41, `RDIMPN` = INA 1041).
pub const TASK_DEVICE: u8 = 0o41;
/// The task level (vector 103, `TASKIL`).
pub const TASK_LEVEL: Level = 16;
/// `AMIMLC` = SKS 42: "am I a multi-line controller (a TIP)?".
pub const MLC_DEVICE: u8 = 0o42;
/// The watchdog and the status lights (`WDT` = OCP 26, `LITES` = OTA 26, `AMI516` = SKS 26).
pub const WATCHDOG_DEVICE: u8 = 0o26;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::Interrupts;

    #[test]
    fn vectors_and_pointers_match_the_listing() {
        let v = |l| Interrupts::level_vector(l);
        assert_eq!(
            MODEMS.map(|m| (m.device, v(m.input_level), v(m.output_level))),
            [
                (0o71, 0o64, 0o71),
                (0o72, 0o65, 0o72),
                (0o73, 0o66, 0o73),
                (0o74, 0o67, 0o74),
                (0o75, 0o70, 0o75)
            ]
        );
        assert_eq!(
            MODEMS.map(|m| (
                m.input_dmc.pointer_address(),
                m.output_dmc.pointer_address()
            )),
            [
                (0o20, 0o32),
                (0o22, 0o34),
                (0o24, 0o36),
                (0o26, 0o40),
                (0o30, 0o42)
            ]
        );
        assert_eq!(
            HOSTS.map(|h| (v(h.output_level), v(h.input_level))),
            [(0o76, 0o100), (0o77, 0o101), (0o70, 0o75), (0o67, 0o74)]
        );
        assert_eq!(
            HOSTS.map(|h| (
                h.output_dmc.pointer_address(),
                h.input_dmc.pointer_address()
            )),
            [(0o44, 0o50), (0o46, 0o52), (0o54, 0o56), (0o30, 0o42)]
        );
        assert_eq!(v(CLOCK_LEVEL), 0o102);
        assert_eq!(v(TASK_LEVEL), 0o103);
    }
}
