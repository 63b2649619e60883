/* mdc_updopt.h - the update options every front end that writes takes
 * (mdcctl, mdc-scontrol): one getopt_long table, one parser into struct
 * mdc_update_opts, one help text, so that --timeout or --no-wait mean the
 * same everywhere.  (owner: client) */
#ifndef MDC_UPDOPT_H
#define MDC_UPDOPT_H

#include <getopt.h>
#include <stdbool.h>
#include "mdc_err.h"
#include "mdc_rules.h"
#include "mdc_update.h"

/* getopt_long values of the update options (above any short option) */
enum {
	MDC_UPDOPT_MODE = 0x1000,	/* --update-mode USER_ONLY|USER_AND_SERVICE */
	MDC_UPDOPT_NO_WAIT,		/* --no-wait: fail while the cluster is busy */
	MDC_UPDOPT_TIMEOUT,		/* --timeout S: operation, lock and busy waits */
	MDC_UPDOPT_ALLOW_RECREATE,	/* --allow-recreate: image moves allowed */
	MDC_UPDOPT_ASYNC,		/* --async: do not wait for the operation */
	MDC_UPDOPT_YES,			/* --yes: no confirmation question */
	MDC_UPDOPT_END
};

/* The long options, to put in a tool's struct option array. */
#define MDC_UPDOPT_LONGOPTS \
	{ "update-mode", required_argument, NULL, MDC_UPDOPT_MODE }, \
	{ "no-wait", no_argument, NULL, MDC_UPDOPT_NO_WAIT }, \
	{ "timeout", required_argument, NULL, MDC_UPDOPT_TIMEOUT }, \
	{ "allow-recreate", no_argument, NULL, MDC_UPDOPT_ALLOW_RECREATE }, \
	{ "async", no_argument, NULL, MDC_UPDOPT_ASYNC }, \
	{ "yes", no_argument, NULL, MDC_UPDOPT_YES }

/* The same, terminated by a zero entry. */
extern const struct option mdc_updopt_longopts[];

/* The options' help lines, two spaces in, for a tool's --help. */
extern const char mdc_updopt_help[];

/* What the options set, on top of the defaults (USER_ONLY). */
struct mdc_updopt {
	enum mdc_update_mode mode;
	bool no_wait, allow_recreate, async, yes;
	double timeout_s;		/* 0 = the library's defaults */
};

/* Apply option ID (MDC_UPDOPT_*) with ARG to U.  0, or MDC_ERR_USAGE
 * naming the option and the value. */
int mdc_updopt_set(struct mdc_updopt *u, int id, const char *arg, struct mdc_ctx *ctx);

/* Fill O from U: mode, allow_recreate, no_wait, async, the LRO timeout
 * (which also bounds the lock and busy-cluster waits) and the process's
 * Ctrl-C flag (mdc_intr_install).  The rest of O is zeroed. */
void mdc_updopt_fill(const struct mdc_updopt *u, struct mdc_update_opts *o);

#endif
