/* mdc_time.h - the one monotonic clock of the tree (base helper: the
 * plugins may use it too; it needs nothing but libc).  (owner: base) */
#ifndef MDC_TIME_H
#define MDC_TIME_H

/* CLOCK_MONOTONIC in seconds: for deadlines and elapsed times, never
 * for the time of day. */
double mdc_mono(void);

#endif
