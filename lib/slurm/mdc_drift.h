/* mdc_drift.h - the drift engine: the three-way comparison of DESIGN 7
 * (the slurm.conf the managed spec renders, the live slurm.conf file and
 * the live slurmctld) and the intent that adopts chosen settings.  Front
 * ends (mdcctl drift) read the live side, call this, and print.
 * (owner: drift) */
#ifndef MDC_DRIFT_H
#define MDC_DRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "mdc_err.h"
#include "mdc_intent.h"
#include "mdc_live.h"
#include "mdc_str.h"
#include "sc_conf.h"

enum mdc_drift_kind { MDC_DRIFT_CONFIG, MDC_DRIFT_KEY, MDC_DRIFT_PART_LIVE_ONLY, MDC_DRIFT_PART_SPEC_ONLY, MDC_DRIFT_NODE, MDC_DRIFT_STATE };

/* where a setting differs from the spec */
enum { MDC_DRIFT_SRC_CTLD = 1, MDC_DRIFT_SRC_FILE = 2 };

struct mdc_drift {
	enum mdc_drift_kind kind;
	char *name;		/* partition id or node name, NULL for config */
	char *pool;		/* MDC_DRIFT_NODE: the node's pool, NULL if none */
	char *key;
	char *live;		/* the value to adopt; NULL: the key is absent (unset) */
	char *managed;
	char *file, *ctld;	/* the live file's and slurmctld's values (NULL: n/a) */
	unsigned src;
	const char *why_not;	/* why it cannot be adopted; NULL: it can */
	bool selected;
};

struct mdc_drifts {
	struct mdc_drift *v;
	size_t n, cap;
};

/* What one run compares: the spec, its rendering R, the live file L and
 * the live slurmctld C. */
struct mdc_drift_view {
	json_object *cluster;
	struct sc_conf *r, *l;		/* NULL without a live slurm.conf */
	struct mdc_kvs conf;		/* C: show config */
	struct mdc_recs parts, nodes;	/* C: show partition, show node */
	const char *conf_path;
	struct mdc_drifts set, pend, state;	/* settings, pending restart, runtime state */
	bool remote;			/* --remote: parts from slurmrestd, nothing else */
};

/* The live slurmctld's side of V: show config, show partition, show node. */
int mdc_drift_read_live(struct mdc_drift_view *v, struct mdc_ctx *ctx);

/* R and L of V: the live file at v->conf_path (which must be readable)
 * and what v->cluster renders over its base. */
int mdc_drift_load_files(struct mdc_drift_view *v, struct mdc_ctx *ctx);

/* Fill v->set, v->pend and v->state from what V holds. */
int mdc_drift_compare(struct mdc_drift_view *v, struct mdc_ctx *ctx);

/* Is SEL a well-formed --key selector: "KEY", "PartitionName=P[:KEY]",
 * "NodeSet=POOL[:KEY]" or "NodeName=N[:KEY]"? */
bool mdc_drift_sel_valid(const char *sel);

/* Mark the drifts of D to adopt: every adoptable one, or those SELS name
 * (each selector must name at least one adoptable drift; one that names
 * only a blocked drift of D or PEND is refused with its reason). */
int mdc_drift_select(struct mdc_drifts *d, const struct mdc_drifts *pend,
		     const struct mdc_strv *sels, struct mdc_ctx *ctx);

/* The selected drifts of v->set as the intent that adopts them. */
int mdc_drift_intent(const struct mdc_drift_view *v, struct mdc_intent *in, struct mdc_ctx *ctx);

/* "config", "partition P" or "node N" into BUF (or a constant). */
const char *mdc_drift_scope(const struct mdc_drift *x, char *buf, size_t n);
/* "slurmctld", "slurm.conf" or "slurm.conf+slurmctld" */
const char *mdc_drift_source(const struct mdc_drift *x);
/* D (ONLY_SELECTED: its selected drifts) as a JSON array. */
json_object *mdc_drifts_json(const struct mdc_drifts *d, bool only_selected);

void mdc_drifts_free(struct mdc_drifts *d);
/* Free what V owns (its cluster, both files, the live records, the drifts). */
void mdc_drift_view_free(struct mdc_drift_view *v);

#endif
