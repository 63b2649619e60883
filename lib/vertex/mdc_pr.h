/* mdc_pr.h - the Vertex AI persistent resource model (DESIGN P1-P4).
 * Pure functions: validation of ids and pools, the gcloud-style
 * --resource-pool-spec parser, --config loading, the exact v1 create body
 * and UpdatePersistentResource's rules.  Nothing here talks to the
 * network, so the emulator enforces the same rules.  The REST calls are
 * in mdc_vertex.h, pipeline runs in mdc_pipeline.h.
 * (owner: pr)
 *
 * JSON results are in the internal snake_case form.
 * Functions returning json_object ** hand a new reference to the caller
 * (json_object_put it); char * results are malloc'ed (free them).
 */
#ifndef MDC_PR_H
#define MDC_PR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include "mdc_err.h"
#include "mdc_str.h"

/* P2: lowercase letters, digits, hyphens; starts with a letter; ends with a
 * letter or digit; at most 63 characters.  0 or MDC_ERR_INVAL. */
int mdc_pr_check_id(const char *id, struct mdc_ctx *ctx);

/* One --resource-pool-spec value ("replica-count=2,machine-type=n1-standard-4,
 * ...") as a snake_case ResourcePool.  Keys: replica-count, machine-type,
 * min-replica-count, max-replica-count, accelerator-type (enum name, any
 * case, '-' or '_'), accelerator-count (default 1 with a type), disk-type,
 * disk-size, and id (ours: lets a flag pool override a --config pool).
 * The pool is not checked against P3 here (see mdc_pr_check_pool). */
int mdc_pr_pool_from_spec(const char *spec, json_object **pool, struct mdc_ctx *ctx);

/* P3 and the rest of a pool's shape: machine_spec.machine_type set;
 * replica_count unless autoscaling_spec has both min and max; min and max
 * come together, 1 <= min <= max; accelerator_count needs a type;
 * boot_disk_size_gb needs boot_disk_type.  IDX (0-based) names the pool in
 * the message.  Accepts either key spelling.  0 or MDC_ERR_INVAL. */
int mdc_pr_check_pool(const json_object *pool, size_t idx, struct mdc_ctx *ctx);

/* Checks a whole create body (P1-P3): at least one pool, each pool, the
 * labels.  Used by the client before sending and by the emulator. */
int mdc_pr_check_resource(const json_object *res, struct mdc_ctx *ctx);

/* --config FILE: a PersistentResource in YAML with camelCase keys
 * (displayName, resourcePools or resourcePoolSpecs (a list, or one
 * mapping), labels, network, resourceRuntimeSpec, reservedIpRanges).
 * A field name with an underscore, an unknown field or a value of the
 * wrong type is refused naming the file and the field path.  *OUT gets
 * the snake_case form (resource_pools always a list). */
int mdc_pr_config_load(const char *path, json_object **out, struct mdc_ctx *ctx);

/* Labels "k=v,k2=v2" merged into the object LABELS (later wins); keys and
 * values checked against Google's label rules. */
int mdc_pr_labels_add(json_object *labels, const char *spec, struct mdc_ctx *ctx);

struct mdc_pr_create_opts {
	const char *config_path;		/* --config, or NULL */
	const char *display_name;		/* NULL = from the file, else omitted */
	const char *network;
	const struct mdc_strv *pool_specs;	/* --resource-pool-spec values (may be NULL) */
	const struct mdc_strv *labels;		/* --labels values (may be NULL) */
	bool enable_custom_service_account;
};

/* The exact v1 create body (P1): the --config file first, then the flags,
 * which win: display name, network and each label key replace the file's;
 * a flag pool whose id= matches a file pool is merged over it (its fields
 * win), other flag pools are appended (as gcloud combines them).  The
 * result passes mdc_pr_check_resource. */
int mdc_pr_create_body(const struct mdc_pr_create_opts *o, json_object **body,
		       struct mdc_ctx *ctx);

/* "projects/P/locations/L/persistentResources/ID" from a full name (kept)
 * or an ID (checked with P2; needs PROJECT and REGION). */
int mdc_pr_resource_name(const char *project, const char *region, const char *name_or_id,
			 char **out, struct mdc_ctx *ctx);

/* The last component of a resource name (borrowed pointer into NAME). */
const char *mdc_pr_basename(const char *name);

/* --- UpdatePersistentResource ----------------------------------------------- */

/* The update_mask paths the service takes: "display_name, labels, resource_pools"
 * (static). */
const char *mdc_pr_update_paths(void);

/* The service's UpdatePersistentResource rules, shared by the emulator and
 * the client: MASK (comma-separated, either spelling) names only updatable
 * fields (output-only and immutable ones are refused, naming them); a
 * masked field absent from PATCH is cleared; resource_pools lists every
 * existing pool by id (none added or removed), each keeping machine_spec
 * and disk_spec, with its replica_count / autoscaling_spec from PATCH.
 * *OUT gets CUR with the change applied (passes mdc_pr_check_resource). */
int mdc_pr_update_apply(const json_object *cur, const json_object *patch, const char *mask,
			json_object **out, struct mdc_ctx *ctx);

struct mdc_pr_update_opts {
	const char *display_name;		/* NULL = unchanged */
	const struct mdc_strv *update_labels;	/* "k=v,..." to set (may be NULL) */
	const struct mdc_strv *remove_labels;	/* "k,..." to remove (may be NULL) */
	bool clear_labels;			/* start from no labels */
	const struct mdc_strv *pool_specs;	/* "id=P,replica-count=N" or
						 * "id=P,min-replica-count=A,max-replica-count=B" */
};

/* The PATCH body and its update_mask (camelCase, malloc'ed) for the
 * change O to the current resource CUR, checked with mdc_pr_update_apply
 * so a refused change is never sent. */
int mdc_pr_update_body(const json_object *cur, const struct mdc_pr_update_opts *o,
		       json_object **body, char **mask, struct mdc_ctx *ctx);

#endif
