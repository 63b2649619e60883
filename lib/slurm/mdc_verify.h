/* mdc_verify.h - C13: the service validates each Slurm parameter alone, so
 * an update can succeed while slurmctld rejects or ignores the file.  After
 * an apply, where a local slurmctld answers (the caller's SLURM_CONF), check
 * that `scontrol show config` and `scontrol show partition` show the new
 * values, waiting up to the sync time (C8: about 15 s).  (owner: plan engine)
 */
#ifndef MDC_VERIFY_H
#define MDC_VERIFY_H

#include <signal.h>
#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_buf.h"
#include "mdc_err.h"
#include "mdc_live.h"
#include "mdc_plan.h"
#include "mdc_str.h"

struct mdc_verify_opts {
	double timeout_s;			/* how long to wait for the values (0 = 60) */
	/* slurmctld answered before the update (mdc_verify_probe): then an
	 * scontrol that fails afterwards is a failed update, not "no Slurm" */
	bool expect_live;
	double interval_s;			/* between two looks (0 = 2) */
	volatile sig_atomic_t *interrupted;	/* stop waiting when set (may be NULL) */
	/* mdcctl --remote: the partitions as scontrol's records, read
	 * elsewhere (the Slurm REST API) instead of scontrol; config keys are
	 * then not checked, and partition keys the source does not show are
	 * skipped, not missing.  NULL: scontrol. */
	int (*partitions)(struct mdc_recs *out, void *arg, struct mdc_ctx *ctx);
	void *partitions_arg;
};

struct mdc_verify {
	bool live;			/* a local slurmctld answered */
	size_t checks;			/* values slurmctld should show */
	struct mdc_strv ok;		/* "config PriorityWeightAge=2000" */
	struct mdc_strv missing;	/* what slurmctld still does not show, with what it shows */
	struct mdc_strv skipped;	/* changes that cannot be seen yet (restart keys, ...) */
};

#define MDC_VERIFY_INIT { false, 0, MDC_STRV_INIT, MDC_STRV_INIT, MDC_STRV_INIT }

/* Does a local slurmctld answer now (`scontrol ping` says UP, with the
 * caller's SLURM_CONF)?  No scontrol, no slurm.conf or a controller that
 * is down: *LIVE false, still 0.  Call it before the PATCH. */
int mdc_verify_probe(bool *live, struct mdc_ctx *ctx);

/* Check PLAN's Slurm changes (config keys, partitions and their keys)
 * against the running slurmctld.  Returns 0 when everything shows, or when
 * no slurmctld answers (V->live false: nothing could be checked);
 * MDC_ERR_VERIFY when something is still missing after the wait (CTX says
 * what and what to do); MDC_ERR_INTERRUPTED; MDC_ERR_NOMEM.  V is always
 * initialised; free it with mdc_verify_free. */
int mdc_verify_plan(const struct mdc_plan *plan, const struct mdc_verify_opts *o,
		    struct mdc_verify *v, struct mdc_ctx *ctx);
/* Text report appended to OUT ("verify: ..." lines). */
int mdc_verify_format(const struct mdc_verify *v, struct mdc_buf *out);
/* {"live":..,"ok":[..],"missing":[..],"skipped":[..]} (new reference). */
json_object *mdc_verify_to_json(const struct mdc_verify *v);
void mdc_verify_free(struct mdc_verify *v);

#endif
