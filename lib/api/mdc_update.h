/* mdc_update.h - the safe read-modify-write of a cluster (mdc_update.c,
 * C14): writer lock, fresh GET, plan, PATCH, wait, read back.
 * (owner: client) */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#ifndef MDC_UPDATE_H
#define MDC_UPDATE_H

#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_client.h"
#include "mdc_err.h"
#include "mdc_intent.h"
#include "mdc_lro.h"
#include "mdc_plan.h"

/* The safe write (C14): take the writer lock, GET the cluster, wait while
 * it is UPDATING (or fail with no_wait), plan IN against that fresh state,
 * ask CONFIRM (if set; returning false cancels), PATCH with the plan's
 * mask and mode, and unless async wait for the operation.  *PLAN_OUT (if
 * non-NULL) receives the plan that was sent; *OP_OUT the operation. */
struct mdc_update_opts {
	struct mdc_plan_opts plan;
	bool no_wait;
	bool async;
	bool dry_run;				/* plan only, send nothing */
	bool (*confirm)(const struct mdc_plan *plan, void *arg);
	void *confirm_arg;
	struct mdc_lro_opts lro;
	double lock_timeout_s;			/* 0 = the LRO timeout if set, else
						 * MDC_LOCK_WAIT_DEFAULT_S (mdc_lock.h) */
	double updating_timeout_s;		/* wait for UPDATING to end; 0 = the LRO timeout */
};
/* In mdc_update_run: a cancelled confirmation is MDC_ERR_REFUSED with the
 * message "cancelled"; an empty plan returns 0 with *OP_OUT = NULL and
 * sends nothing.  When the PATCH's fate is unknown (timeout, dropped
 * connection) the cluster is read again and the message says whether the
 * change is present, still being applied or absent; nothing is resent. */
int mdc_update_run(struct mdc_client *c, const struct mdc_settings *s,
		   const struct mdc_intent *in, const struct mdc_update_opts *o,
		   struct mdc_plan *plan_out, json_object **op_out, struct mdc_ctx *ctx);

/* One hardware profile of a create: a whole create body (REST, checked). */
struct mdc_create_profile {
	const char *label;		/* for the messages (its file name) */
	const json_object *body;
};
/* Create cluster ID under PARENT (NAME its full name) from the first of the
 * N profiles that comes up, as the service's users do when capacity is
 * short: a create the service refuses, whose operation fails, or that
 * leaves the cluster in ERROR is followed by the deletion of the cluster
 * it left (the service keeps a failed create in ERROR, and a new create of
 * the same ID gets 409 until it is gone) and the next profile.  A cluster
 * of that ID already there in ERROR is deleted first; one in any other
 * state is never deleted (MDC_ERR_CONFLICT).  NOTE (may be NULL) gets
 * each step's line.  0 and *WON (the profile used), or the error:
 * MDC_ERR_OPFAILED when every profile failed, the message naming each
 * profile's failure. */
int mdc_create_walk(struct mdc_client *c, const char *parent, const char *id, const char *name,
		    const struct mdc_create_profile *prof, size_t n, const struct mdc_lro_opts *lro,
		    void (*note)(const char *line, void *arg), void *note_arg, size_t *won,
		    struct mdc_ctx *ctx);

#endif
