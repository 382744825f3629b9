/* h316_nmc.c - nmc's cycle clock for SIMH's H316 IMP.

   Part of nmc (MIT licence); compiled into SIMH's h316 by `nmc oracle build`
   with the hooks in crates/nmc-oracle/patches/ (which apply to SIMH, MIT
   licence, Copyright Robert Armstrong and Robert M. Supnik).

   Stock SIMH runs the CPU at a flat instructions-per-second THROTTLE and the
   IMP's devices on wall time. Here simulated time is a cycle clock: each
   instruction advances it by its memory cycles (the table below), the DMC by
   its cycles per word, and the real-time clock, the modem lines and the host
   interface count on it. The clock is paced to wall time: when it runs ahead
   the process sleeps, when it falls behind the lag is recorded, and the run
   reports its largest lag so a harness can refuse a run that did not keep up.

   Settings, all from the environment (SIMH's SET ENVIRONMENT works too):
     NMC_ORACLE_CYCLE_NS        memory cycle in ns (960: 516; 1600: 316). Unset: off.
     NMC_ORACLE_EPOCH_NS        CLOCK_REALTIME ns at which the cycle clock reads 0.
     NMC_ORACLE_PACE_US         how often the clock is compared with wall time (200).
     NMC_ORACLE_LAG_BOUND_US    lag counted as "over bound" above this (2000).
     NMC_ORACLE_DMC_HALF_CYCLES half cycles the DMC steals per word moved (8).
     NMC_ORACLE_MI_FRAMING_BITS bits a modem frame carries beyond its words (72).
     NMC_ORACLE_MI_PROP_NS      propagation delay of every modem line (0);
     NMC_ORACLE_MI<n>_PROP_NS   of line n.
     NMC_ORACLE_TRACE           file for the event trace (none if unset).
     NMC_ORACLE_SUMMARY         file for the end-of-run JSON summary.
     NMC_ORACLE_DEBUG_LAG       if set, a LAGX trace line for every check over the bound.
*/
#ifdef VM_IMPTIP
#include "h316_defs.h"
#include "h316_imp.h"
#include "h316_nmc.h"
#include <time.h>
#include <stdarg.h>
#include <errno.h>

t_bool nmc_on = FALSE;
t_uint64 nmc_hc = 0;
t_uint64 nmc_deadline = 0;

static t_bool inited = FALSE;
static t_uint64 hc_ns = 480;              /* ns per half cycle */
static t_uint64 cycle_ns = 960;
static t_int64 epoch_ns = -1;             /* wall ns of cycle-clock zero */
static t_uint64 pace_ns = 200000;
static t_uint64 lag_bound_ns = 2000000;
static uint32 dmc_hc_per_word = 8;
static uint32 mi_framing = 72;
static t_uint64 mi_prop[MI_NUM + 1];
static FILE *trace = NULL;
static char summary_path[1024] = "";

/* Pacing statistics */
static t_uint64 next_pace_ns = 0;
static t_uint64 max_lag_ns = 0, lag_checks = 0, lag_over = 0, sleeps = 0;
static t_uint64 window_max_lag = 0, next_window_ns = 1000000000ULL, window_over_start = 0;
static t_uint64 max_send_late_ns = 0, deferred_sends = 0, ns_over_bound = 0;
static t_uint64 first_pace_ns = 0;
static t_int64 first_wall = -1;

/* Timers */
#define NMC_TIMERS 256
struct nmc_timer { t_bool used; t_uint64 at_hc; nmc_fn fn; int32 arg; };
static struct nmc_timer timers[NMC_TIMERS];

/* Deferred UDP sends */
#define NMC_SENDS 128
struct nmc_send { t_bool used; DEVICE *dptr; int32 link; uint16 count; uint16 *data; t_uint64 at_ns; };
static struct nmc_send sends[NMC_SENDS];

extern t_stat udp_send (DEVICE *dptr, int32 link, uint16 *pdata, uint16 count);

static t_int64 wall_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (t_int64) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static t_uint64 env_u64 (const char *name, t_uint64 dflt)
{
  const char *v = getenv (name);
  if ((v == NULL) || (*v == '\0')) return dflt;
  return strtoull (v, NULL, 10);
}

static void nmc_summary (void)
{
  char buf[1024];
  t_uint64 now = nmc_now_ns ();
  t_int64 wall = (first_wall < 0) ? 0 : (wall_ns () - epoch_ns);
  snprintf (buf, sizeof (buf),
    "{\"cycle_ns\":%llu,\"sim_ns\":%llu,\"wall_ns\":%lld,\"max_lag_ns\":%llu,"
    "\"lag_checks\":%llu,\"lag_over_bound\":%llu,\"ns_over_bound\":%llu,\"lag_bound_ns\":%llu,\"sleeps\":%llu,"
    "\"deferred_sends\":%llu,\"max_send_late_ns\":%llu,\"pace_ns\":%llu,"
    "\"dmc_half_cycles_per_word\":%u,\"mi_framing_bits\":%u}",
    (unsigned long long) cycle_ns, (unsigned long long) now, (long long) wall,
    (unsigned long long) max_lag_ns, (unsigned long long) lag_checks,
    (unsigned long long) lag_over, (unsigned long long) ns_over_bound, (unsigned long long) lag_bound_ns,
    (unsigned long long) sleeps, (unsigned long long) deferred_sends,
    (unsigned long long) max_send_late_ns, (unsigned long long) pace_ns,
    dmc_hc_per_word, mi_framing);
  if (trace) { fprintf (trace, "%llu SUMMARY 0 0 %s\n", (unsigned long long) now, buf); fflush (trace); }
  if (summary_path[0]) {
    FILE *f = fopen (summary_path, "w");
    if (f) { fprintf (f, "%s\n", buf); fclose (f); }
  }
  fprintf (stderr, "NMC-ORACLE SUMMARY %s\n", buf);
}

void nmc_init (void)
{
  const char *v;  int i;  char name[64];
  if (inited) return;
  inited = TRUE;
  v = getenv ("NMC_ORACLE_CYCLE_NS");
  if ((v == NULL) || (*v == '\0')) return;
  cycle_ns = strtoull (v, NULL, 10);
  if ((cycle_ns < 2) || (cycle_ns & 1)) {
    fprintf (stderr, "NMC-ORACLE: NMC_ORACLE_CYCLE_NS must be an even number of ns, got %s\n", v);
    exit (2);
  }
  hc_ns = cycle_ns / 2;
  epoch_ns = (t_int64) env_u64 ("NMC_ORACLE_EPOCH_NS", 0);
  if (epoch_ns == 0) epoch_ns = wall_ns ();
  pace_ns = env_u64 ("NMC_ORACLE_PACE_US", 200) * 1000ULL;
  if (pace_ns == 0) pace_ns = 200000;
  lag_bound_ns = env_u64 ("NMC_ORACLE_LAG_BOUND_US", 2000) * 1000ULL;
  dmc_hc_per_word = (uint32) env_u64 ("NMC_ORACLE_DMC_HALF_CYCLES", 8);
  mi_framing = (uint32) env_u64 ("NMC_ORACLE_MI_FRAMING_BITS", 72);
  for (i = 1; i <= MI_NUM; i++) {
    snprintf (name, sizeof (name), "NMC_ORACLE_MI%d_PROP_NS", i);
    mi_prop[i] = env_u64 (name, env_u64 ("NMC_ORACLE_MI_PROP_NS", 0));
  }
  v = getenv ("NMC_ORACLE_TRACE");
  if (v && *v) {
    trace = fopen (v, "w");
    if (trace == NULL) { fprintf (stderr, "NMC-ORACLE: cannot write trace %s\n", v); exit (2); }
    setvbuf (trace, NULL, _IOFBF, 1 << 16);
    fprintf (trace, "# nmc oracle trace: t_ns EVENT line words [extra] : first words (octal)\n");
  }
  v = getenv ("NMC_ORACLE_SUMMARY");
  if (v && *v) strncpy (summary_path, v, sizeof (summary_path) - 1);
  nmc_on = TRUE;
  nmc_deadline = 0;
  atexit (nmc_summary);
}

/* Cycles per instruction, in half cycles, fetch included.

   Source: Honeywell, DDP-516 Programmers Reference Manual (January 1968),
   instruction tables ("No. of Cycles"), as transcribed by Adrian Wise at
   series16.adrianwise.co.uk/programming/instructions.html: LDA, STA, ADD,
   SUB, ANA, ERA, STX 2 cycles; IMA, LDX 3; TCA 1.5; CRA, IAB, ACA, AOA, CSA,
   CHS, CMA, INK 1; OTK 2. Rows not in the part of the table that was read
   (JMP, JST, CAS, IRS, the skips, the shifts, I/O, interrupts, indirection,
   the DMC) are taken from Adrian Wise's H316 emulator (github.com/apwise/
   h316_emul, cpu.cpp), which times the machine in half cycles from
   Honeywell's documentation and schematics: JMP 1 cycle; JST, CAS, IRS 3;
   skips and generics 1 (1.5 for a group-A generic that repeats its adder
   pass, bits 0402 both set, as TCA); shifts 1 + 1/2 per bit position;
   OCP, SKS, INA, OTA 2; each level of indirection +1; an interrupt is a
   JST* without the fetch; a DMC word 4 cycles. The 316 is taken to need the
   same cycles at its 1.6 us memory cycle (Honeywell gives its register add
   as 3.2 us, two cycles, as on the 516). */
int32 nmc_instr_half_cycles (int32 MB, t_bool iack)
{
  int32 op = (MB >> 10) & 077;          /* I_GETOP: <1:6> */
  int32 base;
  if (iack) return 4;                   /* JST* break: JST's 2 cycles, no fetch (+1 indirect in Ea) */
  switch (op & 017) {                   /* memory reference: <3:6>, flag bits aside */
  case 001: return 2;                   /* JMP */
  case 002: case 003: case 004: case 005: case 006: case 007:
    return 4;                           /* LDA ANA STA ERA ADD SUB */
  case 010: case 011: case 012: case 013:
    return 6;                           /* JST CAS IRS IMA */
  case 015:                             /* STX (T=0) / LDX (T=1) */
    return (op & 020) ? 6 : 4;
  case 016: case 017:                   /* MPY, DIV: not fitted on an IMP (NOHSA) */
    return 4;
  case 014:                             /* I/O: OCP SKS INA OTA */
    return 4;
  }
  /* op & 017 == 0: generic, shift, skip, group A */
  switch (op) {
  case 020:                             /* shift: 1 cycle + 1/2 per position */
    base = (-MB) & 077;
    return 2 + base;
  case 040:                             /* skip */
    return 2;
  case 060:                             /* group A generic */
    return ((MB & 0402) == 0402) ? 3 : 2;
  default:                              /* generic B */
    return 2;
  }
}

void nmc_charge (uint32 half_cycles)
{
  sim_interval -= (int32) half_cycles;
  nmc_hc += half_cycles;
}

/* DMC cycles are charged by the CPU at its next instruction: a device's
   service may run inside SIMH's event processing, which resets sim_interval. */
static uint32 pending_hc = 0;

void nmc_dmc_words (uint32 words)
{
  if (nmc_on) pending_hc += words * dmc_hc_per_word;
}

void nmc_instr (int32 MB, t_bool iack)
{
  uint32 hc = (uint32) nmc_instr_half_cycles (MB, iack) + pending_hc;
  pending_hc = 0;
  sim_interval -= (int32) hc;
  nmc_hc += hc;
  if (nmc_hc >= nmc_deadline) nmc_tick ();
}

t_uint64 nmc_now_ns (void)
{
  return nmc_hc * hc_ns;
}

t_uint64 nmc_bits_ns (uint32 bits, uint32 bps)
{
  if (bps == 0) return 0;
  return ((t_uint64) bits * 1000000000ULL + bps - 1) / bps;
}

static t_uint64 ns_to_hc (t_uint64 ns)
{
  return (ns + hc_ns - 1) / hc_ns;
}

static void recompute_deadline (void)
{
  int i;  t_uint64 d = ns_to_hc (next_pace_ns);
  for (i = 0; i < NMC_TIMERS; i++)
    if (timers[i].used && (timers[i].at_hc < d)) d = timers[i].at_hc;
  nmc_deadline = d;
}

void nmc_at (t_uint64 at_ns, nmc_fn fn, int32 arg)
{
  int i;
  for (i = 0; i < NMC_TIMERS; i++) {
    if (!timers[i].used) {
      timers[i].used = TRUE;  timers[i].at_hc = ns_to_hc (at_ns);
      timers[i].fn = fn;  timers[i].arg = arg;
      if (timers[i].at_hc < nmc_deadline) nmc_deadline = timers[i].at_hc;
      return;
    }
  }
  fprintf (stderr, "NMC-ORACLE: timer table full\n");
  exit (3);
}

static void send_now (int32 i)
{
  struct nmc_send *s = &sends[i];
  t_uint64 now = nmc_now_ns ();
  if (!s->used) return;
  if (now > s->at_ns && (now - s->at_ns) > max_send_late_ns) max_send_late_ns = now - s->at_ns;
  deferred_sends++;
  (void) udp_send (s->dptr, s->link, s->data, s->count);   /* errors: a line with no one on it */
  free (s->data);
  s->used = FALSE;
}

void nmc_defer_udp (DEVICE *dptr, int32 link, const uint16 *data, uint16 count, t_uint64 at_ns)
{
  int i;
  for (i = 0; i < NMC_SENDS; i++) {
    if (!sends[i].used) {
      struct nmc_send *s = &sends[i];
      s->data = (uint16 *) malloc ((count ? count : 1) * sizeof (uint16));
      if (s->data == NULL) { fprintf (stderr, "NMC-ORACLE: out of memory\n"); exit (3); }
      memcpy (s->data, data, count * sizeof (uint16));
      s->used = TRUE;  s->dptr = dptr;  s->link = link;  s->count = count;  s->at_ns = at_ns;
      nmc_at (at_ns, send_now, i);
      return;
    }
  }
  fprintf (stderr, "NMC-ORACLE: deferred send table full\n");
  exit (3);
}

uint32 nmc_mi_framing_bits (void) { return mi_framing; }

t_uint64 nmc_mi_prop_ns (int line)
{
  return ((line >= 1) && (line <= MI_NUM)) ? mi_prop[line] : 0;
}

static t_int64 dbg_prev_wall = 0;
static t_uint64 dbg_prev_now = 0;

static void pace (t_uint64 now)
{
  t_int64 wall = wall_ns () - epoch_ns;
  if (first_wall < 0) { first_wall = wall; first_pace_ns = now; }
  if ((t_int64) now > wall) {
    /* Ahead of wall time: sleep until it catches up. */
    struct timespec ts;  t_int64 d = (t_int64) now - wall;
    ts.tv_sec = d / 1000000000LL;  ts.tv_nsec = d % 1000000000LL;
    while ((nanosleep (&ts, &ts) != 0) && (errno == EINTR)) ;
    sleeps++;
  } else {
    t_uint64 lag = (t_uint64) (wall - (t_int64) now);
    lag_checks++;
    if (lag > max_lag_ns) max_lag_ns = lag;
    if (lag > window_max_lag) window_max_lag = lag;
    if (lag > lag_bound_ns) {
      lag_over++;
      ns_over_bound += now - dbg_prev_now;
      if (trace && getenv ("NMC_ORACLE_DEBUG_LAG"))
        fprintf (trace, "%llu LAGX 0 0 lag=%lld prev_wall=%lld prev_sim=%llu\n", (unsigned long long) now,
                 (long long) lag, (long long) dbg_prev_wall, (unsigned long long) dbg_prev_now);
    }
  }
  dbg_prev_wall = wall;  dbg_prev_now = now;
  if (now >= next_window_ns) {
    if (trace) fprintf (trace, "%llu LAG 0 0 max_lag_ns=%llu over_ns=%llu\n", (unsigned long long) now,
                        (unsigned long long) window_max_lag, (unsigned long long) (ns_over_bound - window_over_start));
    window_over_start = ns_over_bound;
    if (trace) fflush (trace);
    window_max_lag = 0;
    next_window_ns += 1000000000ULL;
  }
}

void nmc_tick (void)
{
  t_uint64 now;  int i;  t_bool fired;
  if (!nmc_on) return;
  do {
    fired = FALSE;
    for (i = 0; i < NMC_TIMERS; i++) {
      if (timers[i].used && (timers[i].at_hc <= nmc_hc)) {
        nmc_fn fn = timers[i].fn;  int32 arg = timers[i].arg;
        timers[i].used = FALSE;
        fn (arg);
        fired = TRUE;
      }
    }
  } while (fired);
  now = nmc_now_ns ();
  if (now >= next_pace_ns) {
    pace (now);
    next_pace_ns = now + pace_ns;
  }
  recompute_deadline ();
}

void nmc_trace (const char *ev, int line, uint32 count, const char *extra, const uint16 *w, int nw)
{
  int i;
  if (trace == NULL) return;
  fprintf (trace, "%llu %s %d %u %s :", (unsigned long long) nmc_now_ns (), ev, line, count,
           (extra && *extra) ? extra : "-");
  for (i = 0; i < nw; i++) fprintf (trace, " %06o", w[i] & 0177777);
  fputc ('\n', trace);
}

#endif /* VM_IMPTIP */
