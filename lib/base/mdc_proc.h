/* mdc_proc.h - process hygiene for the tools that hold a token: a Ctrl-C
 * the library notices everywhere (sleeps, lock waits, HTTP transfers), the
 * one interruptible sleep every wait uses, and no core dumps.
 * (owner: client) */
#ifndef MDC_PROC_H
#define MDC_PROC_H

#include <signal.h>
#include <stdbool.h>
#include "mdc_err.h"
#include "mdc_time.h"

/* The front end's SIGINT flag: once set (by its handler), every sleep,
 * lock wait and HTTP transfer in the library stops promptly with
 * MDC_ERR_INTERRUPTED.  NULL stops watching.  The flag is borrowed and
 * must outlive the calls (a global). */
void mdc_intr_watch(volatile sig_atomic_t *flag);
/* Install the SIGINT handler every front end uses: the first Ctrl-C sets
 * FLAG (a global the caller owns) and is watched as above; the handler
 * then resets itself, so a second Ctrl-C kills.  0 or MDC_ERR_IO. */
int mdc_intr_install(volatile sig_atomic_t *flag, struct mdc_ctx *ctx);
/* The watched flag (NULL when none). */
volatile sig_atomic_t *mdc_intr_flag(void);
/* True when the watched flag or EXTRA (may be NULL) is set. */
bool mdc_intr_pending(const volatile sig_atomic_t *extra);

/* Sleep S seconds in short slices; false (early) when interrupted (see
 * mdc_intr_pending; EXTRA may be NULL).  The only sleep the client uses. */
bool mdc_sleep(double s, const volatile sig_atomic_t *extra);
/* mdc_mono(), CLOCK_MONOTONIC in seconds: mdc_time.h */

/* A process that holds a credential: no core file (RLIMIT_CORE 0) and not
 * dumpable (PR_SET_DUMPABLE 0, which also keeps other processes of the same
 * user from ptrace-ing it or reading /proc/PID/mem).  Call first thing in
 * main().  0 or MDC_ERR_IO. */
int mdc_no_core_dumps(struct mdc_ctx *ctx);

#endif
