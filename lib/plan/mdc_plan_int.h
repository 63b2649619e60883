/* mdc_plan_int.h - what the plan engine's files share (not installed):
 * the mask-path table, the working state of one mdc_plan_make call and
 * the small helpers on it.  mdc_plan.c assembles the plan,
 * mdc_plan_apply.c applies the intent's ops to WANT, mdc_plan_diff.c
 * lists the changes.  (owner: plan engine) */
/* deliberate unit: one plan engine in mdc_plan.c, _apply.c, _diff.c calling each other (_int.h) */
#ifndef MDC_PLAN_INT_H
#define MDC_PLAN_INT_H

#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_hash.h"
#include "mdc_plan.h"

#define SLURM_SPEC "orchestrator_spec.slurm_spec"

/* The mask paths (C1), in the order they are sent and shown. */
enum plan_path_id {
	PP_LABELS, PP_NODE_POOLS, PP_PARTITIONS, PP_DEFAULT, PP_LOGIN, PP_PROLOG,
	PP_EPILOG, PP_CONFIG, PP_SCHEDULING, PP_ACCOUNTING, PP_NODE_SETS, PP_DISPLAY_NAME, PP_MAX
};

struct plan_path {
	const char *path;
	const char *parent;	/* NULL = the resource itself */
	const char *field;
	enum json_type type;	/* what an empty value looks like */
};
extern const struct plan_path plan_paths[PP_MAX];

/* An index of one list of WANT by its id field, so that applying N ops
 * to a list of N elements stays linear.  The ids are borrowed from the
 * elements: the index follows appends and is dropped when an element is
 * removed (ids are never changed in place). */
struct plan_ix {
	const json_object *arr;	/* NULL: slot free */
	const char *idfield;
	size_t n;		/* elements indexed, a prefix of ARR */
	struct mdc_hash h;
};

/* Working state of one mdc_plan_make call. */
struct plan_st {
	struct mdc_plan *plan;
	const struct mdc_plan_opts *opts;
	json_object *cur;		/* normalised copy of the current cluster */
	json_object *want;		/* cur + ops */
	bool force[PP_MAX];		/* send even if unchanged (migration) */
	bool raw;			/* a raw PATCH: send what the user gave */
	bool config_touched;		/* the user's ops set or unset config keys */
	struct mdc_strv unpinned;	/* pools the user explicitly unpinned */
	struct mdc_strv pinned;		/* pools the user explicitly pinned to an image */
	struct plan_ix ix[4];		/* indexes of WANT's lists (want_find) */
	bool nomem;
};


/* Record a refusal (nothing will be sent) or a warning, "WHERE: MSG". */
void plan_refuse(struct plan_st *st, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void plan_warn(struct plan_st *st, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* CL's orchestrator_spec.slurm_spec, created when absent; NULL on ENOMEM. */
json_object *plan_slurm_spec(json_object *cl);
/* FIELD of OBJ as a count (a JSON number or a string of digits), else DFLT. */
int64_t plan_count(const json_object *obj, const char *field, int64_t dflt);
/* The container FIELD of PARENT, created empty (of TYPE) when absent or of
 * another type; borrowed.  NULL only on ENOMEM. */
json_object *plan_get_or_make(json_object *parent, const char *field, enum json_type type);
/* Absent, null and empty are the same value to the API. */
bool plan_is_empty(const json_object *v);
bool plan_same_value(const json_object *a, const json_object *b);
/* The value at mask path P of CL (borrowed), or NULL. */
json_object *plan_path_value(json_object *cl, enum plan_path_id p);
/* The key of MAP equal to KEY under Slurm's rule (C7), or NULL. */
const char *plan_map_key(json_object *map, const char *key);
/* Index of the element of ARR whose IDFIELD is ID, or -1. */
int plan_find_by_id(const json_object *arr, const char *idfield, const char *id);
/* Index the elements of ARR not yet in H; *N counts those done.  0 or
 * MDC_ERR_NOMEM. */
int plan_index_list(struct mdc_hash *h, size_t *n, const json_object *arr, const char *idfield);

/* mdc_plan_apply.c: apply one op of the intent to ST's WANT; refusals are
 * recorded, the return is 0 or MDC_ERR_NOMEM. */
int plan_apply_op(struct plan_st *st, const struct mdc_op *op);
/* mdc_plan_diff.c: the changes of mask path P between CUR and WANT. */
void plan_diff_path(struct plan_st *st, enum plan_path_id p);

#endif
