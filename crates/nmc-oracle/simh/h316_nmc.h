/* h316_nmc.h - nmc's cycle clock for SIMH's H316 IMP: the CPU timed per
   instruction from the machine's memory cycle, paced to wall time, with the
   modem and host interfaces and the real-time clock counting on it.

   Part of nmc (MIT licence). Built into SIMH's h316 by `nmc oracle build`;
   see crates/nmc-oracle/patches/README.md for what each hook is for.
*/
#ifndef H316_NMC_H_
#define H316_NMC_H_ 0

#include "sim_defs.h"

/* TRUE when NMC_ORACLE_CYCLE_NS is set: every hook below is inert otherwise. */
extern t_bool nmc_on;
/* The cycle clock, in half memory cycles since the program started. */
extern t_uint64 nmc_hc;
/* The half cycle at which nmc_tick() must next run (timers, pacing). */
extern t_uint64 nmc_deadline;

/* Read the NMC_ORACLE_* environment once (called from the first hook). */
void nmc_init (void);
/* Half cycles one instruction takes (fetch included), before indirection. */
int32 nmc_instr_half_cycles (int32 MB, t_bool iack);
/* Advance the clock by one instruction (called by the CPU before executing it). */
void nmc_instr (int32 MB, t_bool iack);
/* Charge half cycles to the clock from inside an instruction (indirection). */
void nmc_charge (uint32 half_cycles);
/* Charge the DMC cycles of `words` words moved by a device. */
void nmc_dmc_words (uint32 words);
/* Run due timers and pace the clock against wall time. */
void nmc_tick (void);
/* Now on the cycle clock, in nanoseconds. */
t_uint64 nmc_now_ns (void);
/* Time `bits` take at `bps`, in nanoseconds. */
t_uint64 nmc_bits_ns (uint32 bits, uint32 bps);
/* Call fn(arg) when the cycle clock reaches at_ns. */
typedef void (*nmc_fn) (int32 arg);
void nmc_at (t_uint64 at_ns, nmc_fn fn, int32 arg);
/* Send a UDP frame when the cycle clock reaches at_ns (the frame's last bit). */
void nmc_defer_udp (DEVICE *dptr, int32 link, const uint16 *data, uint16 count, t_uint64 at_ns);
/* Modem framing bits per frame and a line's propagation delay. */
uint32 nmc_mi_framing_bits (void);
t_uint64 nmc_mi_prop_ns (int line);
/* One trace line: event, interface line, word count, extra text, first words. */
void nmc_trace (const char *ev, int line, uint32 count, const char *extra, const uint16 *w, int nw);

#define NMC_CHARGE(n) do { if (nmc_on) nmc_charge (n); } while (0)

#endif
