/* mdc_plan.h - intent + current spec -> the request to send: the smallest
 * correct updateMask, the complete lists and maps each masked path needs,
 * the updateMode, and what it will do (changes, recreated pools, keys that
 * need a restart, warnings, refusals).  (owner: plan engine)
 *
 * Pure: no I/O.  The same function runs again on a fresh GET right before
 * each PATCH (C14), so a plan is never reused across reads.
 */
/* layer lib/plan/ owns the plan engine: intent + spec -> mask, payload, changes;
 * it may include lib/base/ to lib/spec/ (scripts/check-layers). */
/* deliberate unit: one plan engine in mdc_plan.c, _apply.c, _diff.c calling each other (_int.h) */
#ifndef MDC_PLAN_H
#define MDC_PLAN_H

#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_buf.h"
#include "mdc_err.h"
#include "mdc_intent.h"
#include "mdc_rules.h"
#include "mdc_str.h"

struct mdc_plan_opts {
	enum mdc_update_mode mode;	/* UNSPECIFIED here means "default": USER_ONLY */
	bool allow_recreate;		/* --allow-recreate: image moves allowed */
	bool no_mask;			/* expert: PATCH without updateMask (C3) */
	/* The jobs that still hold PARTITION (appended to JOBS as "ID
	 * (STATE)"), asked for each partition the plan removes or renames;
	 * NULL: not asked (the plan stays pure: front ends pass
	 * mdc_live_partition_jobs through a wrapper).  A removal with jobs is
	 * refused unless FORCE; a failed check is a warning. */
	int (*partition_jobs)(const char *partition, struct mdc_strv *jobs, void *arg,
			      struct mdc_ctx *ctx);
	void *partition_jobs_arg;
	/* The jobs running on the nodes node pool POOL loses when it keeps
	 * KEEP nodes (KEEP < 0: removed), asked for each pool the plan
	 * shrinks or removes; NULL: not asked (mdc_live_pool_jobs through a
	 * wrapper).  Refused with jobs unless FORCE, as partitions. */
	int (*pool_jobs)(const char *pool, long keep, struct mdc_strv *jobs, void *arg,
			 struct mdc_ctx *ctx);
	void *pool_jobs_arg;
	/* The QOS slurmctld knows (mdc_live_qos through a wrapper), asked
	 * once when a partition's QOS, AllowQos or DenyQos changes; NULL: not
	 * asked.  A partition QOS= it does not know is refused when enforced
	 * (slurmctld would stop at its next start), else a warning. */
	int (*qos_list)(struct mdc_strv *names, bool *have_list, bool *enforced, void *arg,
			struct mdc_ctx *ctx);
	void *qos_list_arg;
	bool force;			/* --force: remove partitions or nodes that hold jobs */
};

struct mdc_change {
	char *scope;		/* "config", "partition gpu", "nodeset cpu", "labels", "node_pool cpu", ... */
	char *key;		/* slurm.conf key, label, field; may be NULL */
	char *old_value;	/* NULL = absent */
	char *new_value;	/* NULL = removed */
};

struct mdc_plan {
	json_object *payload;		/* body to PATCH (snake_case); NULL when empty */
	struct mdc_strv mask;		/* canonical updateMask paths */
	enum mdc_update_mode mode;	/* what will be sent */
	json_object *result;		/* predicted cluster after the PATCH */
	struct mdc_change *changes;
	size_t nchanges;
	struct mdc_strv recreate;	/* pools whose nodes would be recreated (C11) */
	struct mdc_strv restart_keys;	/* keys needing a slurmctld restart */
	struct mdc_strv warnings;
	struct mdc_strv refusals;	/* reasons nothing will be sent */
};

/* Build the plan of applying IN to CURRENT.  Returns 0 (also for an empty
 * plan), MDC_ERR_REFUSED when refusals is non-empty (CTX holds the first),
 * or another error.  PLAN is always initialised; free it with mdc_plan_free. */
int mdc_plan_make(const json_object *current, const struct mdc_intent *in,
		  const struct mdc_plan_opts *opts, struct mdc_plan *plan,
		  struct mdc_ctx *ctx);
bool mdc_plan_empty(const struct mdc_plan *plan);
/* "updateMask=a,b&updateMode=USER_ONLY" (URL query); caller frees. */
char *mdc_plan_query(const struct mdc_plan *plan);
/* Human-readable change set (terraform-plan style) appended to OUT. */
int mdc_plan_format(const struct mdc_plan *plan, struct mdc_buf *out);
/* The same as JSON (new reference). */
json_object *mdc_plan_to_json(const struct mdc_plan *plan);
void mdc_plan_free(struct mdc_plan *plan);

/* What a finished update operation OP actually recreated, appended to POOLS
 * (no duplicates): the pools named by VM_DELETION events of its response
 * dated from the operation's start (the emulator's events), and the
 * CANDIDATES (the pools the plan may recreate; NULL: none) whose nodes in
 * clusterStatus.nodesStatus were created since then (the service's events
 * name no pool).  0 or MDC_ERR_NOMEM. */
int mdc_plan_op_recreated(const json_object *op, const struct mdc_strv *candidates,
			  struct mdc_strv *pools);

#endif
