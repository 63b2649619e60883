/* mdc_lro.h - waiting for a long-running operation (mdc_lro.c): polls
 * every 0.1 s for 2 s, then x1.5, cap 15 s; a Retry-After on the poll's
 * answer is honoured up to 60 s.  (owner: client) */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#ifndef MDC_LRO_H
#define MDC_LRO_H

#include <signal.h>
#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_err.h"

struct mdc_client;

/* PROGRESS: a terminal line with elapsed time and progressMessage on
 * stderr.  INTERRUPTED, when set by a signal handler, stops the wait with
 * MDC_ERR_INTERRUPTED (the message says how to resume). */
struct mdc_lro_opts {
	double timeout_s;		/* 0 = default (3600) */
	bool progress;
	volatile sig_atomic_t *interrupted;
	/* With PROGRESS: called after each poll (END = false) and once more
	 * when the wait ends (END = true; MSG NULL after an error) instead of
	 * the library's own stderr line, so a front end does the printing.
	 * MSG is the progressMessage or NULL; borrowed for the call. */
	void (*progress_fn)(double elapsed_s, const char *msg, bool end, void *arg);
	void *progress_arg;
};
/* Wait for the operation OP_NAME (O may be NULL: the defaults).  *DONE
 * gets the finished operation (the caller puts it), also when it ended
 * in error, which is MDC_ERR_OPFAILED. */
int mdc_lro_wait(struct mdc_client *c, const char *op_name, const struct mdc_lro_opts *o,
		 json_object **done, struct mdc_ctx *ctx);
/* The LRO's delay after poll N (0-based): 0.1 s for N < 20, then
 * 0.1 s x1.5^(N-19), capped at 15 s. */
double mdc_lro_delay(unsigned n);

#endif
