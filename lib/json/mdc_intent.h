/* mdc_intent.h - what the user wants changed, independent of the cluster's
 * current state.  Every front end (mdcctl scope commands, plan/apply from a
 * slurm.conf diff, mdc-scontrol, drift --adopt) builds an intent; the plan
 * engine (mdc_plan.h) applies it to a freshly read spec right before each
 * PATCH, which is how concurrent writers keep each other's changes (C14).
 *
 * Ops are relative ("set this key", "append this script"), never "here is
 * the whole list I read earlier".
 */
#ifndef MDC_INTENT_H
#define MDC_INTENT_H

#include <stddef.h>
#include <stdint.h>
#include "mdc_str.h"

enum mdc_op_kind {
	MDC_OP_CONFIG_SET,	/* key = value in slurm_spec.config */
	MDC_OP_CONFIG_UNSET,	/* key */
	MDC_OP_PART_CREATE,	/* id, list = node_pool_ids, kv = config */
	MDC_OP_PART_SET,	/* id, key = value in that partition's config */
	MDC_OP_PART_UNSET,	/* id, key */
	MDC_OP_PART_POOLS,	/* id, list = new node_pool_ids */
	MDC_OP_PART_DELETE,	/* id */
	MDC_OP_PART_DEFAULT,	/* id -> default_partition_id */
	MDC_OP_NODESET_SET,	/* id = node pool, key = value in node_sets[].config */
	MDC_OP_NODESET_UNSET,	/* id, key */
	MDC_OP_POOL_SCALE,	/* id, min, max */
	MDC_OP_POOL_IMAGE,	/* id, value = image, NULL = unpin */
	MDC_OP_PROLOG_ADD,	/* value = script text */
	MDC_OP_PROLOG_REMOVE,	/* index (0-based) */
	MDC_OP_PROLOG_REPLACE,	/* list = the whole new list */
	MDC_OP_EPILOG_ADD,
	MDC_OP_EPILOG_REMOVE,
	MDC_OP_EPILOG_REPLACE,
	MDC_OP_LABEL_SET,	/* key = value */
	MDC_OP_LABEL_UNSET,	/* key */
	MDC_OP_MIGRATE_CONFIG,	/* move scheduling/accounting into config (C9) */
	MDC_OP_RAW_PATCH,	/* value = a JSON body (snake_case), list = mask paths:
				 * each path takes the body's value, or is cleared
				 * when the body lacks it (C2), and is sent even if
				 * unchanged (`mdcctl update FILE --update-mask`) */
	MDC_OP_KIND_MAX
};

struct mdc_op {
	enum mdc_op_kind kind;
	char *id;		/* partition id or node pool id */
	char *key;		/* slurm.conf key or label key, as the user spelled it */
	char *value;
	struct mdc_strv list;	/* node_pool_ids, scripts */
	struct mdc_strv kv;	/* PART_CREATE: "Key=Value" strings */
	int64_t min, max;	/* POOL_SCALE */
	long index;		/* *_REMOVE */
	char *where;		/* "file:line" or "argv" for messages; may be NULL */
};

struct mdc_intent {
	struct mdc_op *ops;
	size_t n, cap;
	/* Things noticed but not turned into ops ("ClusterName is service-managed: ignored") */
	struct mdc_strv notes;
	/* Things the user asked for that can never be sent, with the reason:
	 * the plan engine refuses the whole intent while this is non-empty. */
	struct mdc_strv refusals;
};

#define MDC_INTENT_INIT { NULL, 0, 0, MDC_STRV_INIT, MDC_STRV_INIT }

/* Append an op; strings are copied (NULL allowed).  Returns a pointer to the
 * new op (to fill list/kv/min/max/index), or NULL on ENOMEM. */
struct mdc_op *mdc_intent_add(struct mdc_intent *in, enum mdc_op_kind kind,
			      const char *id, const char *key, const char *value);
void mdc_intent_free(struct mdc_intent *in);
/* Static name of KIND ("config-set"), for messages and JSON output. */
const char *mdc_op_kind_name(enum mdc_op_kind kind);

#endif
