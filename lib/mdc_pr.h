/* mdc_pr.h - Vertex AI persistent resources and pipeline runs on them
 * (DESIGN P1-P5).  Pure functions: validation of ids and pools, the
 * gcloud-style --resource-pool-spec parser, YAML --config loading, the
 * exact v1 create body and the v1beta1 pipelineJobs body.  Nothing here
 * talks to the network, so the emulator enforces the same rules.
 * (owner: pr)
 *
 * JSON results are in the internal snake_case form, except pipeline_spec,
 * which is the user's compiled pipeline and keeps its own keys.
 * Functions returning json_object ** hand a new reference to the caller
 * (json_object_put it); char * results are malloc'ed (free them).
 */
#ifndef MDC_PR_H
#define MDC_PR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
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

/* YAML (one document) to JSON, types as PyYAML's safe_load resolves them:
 * quoted scalars are strings, plain ones may be null/bool/int/float;
 * duplicate keys and non-scalar keys are refused.  JSON text is YAML too. */
int mdc_pr_yaml_parse(const char *text, size_t len, const char *what,
		      json_object **out, struct mdc_ctx *ctx);
int mdc_pr_yaml_load(const char *path, json_object **out, struct mdc_ctx *ctx);

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

/* Durations: "90" (seconds), "500ms", "30s", "10m", "1h30m", "2d", decimals
 * allowed ("1.5h").  *MS in milliseconds. */
int mdc_pr_duration_ms(const char *s, int64_t *ms, struct mdc_ctx *ctx);

/* --on-timeout: "fail" or "fall-back-to-on-demand" (the enum names are
 * accepted too) -> static "FAIL" / "FALL_BACK_TO_ON_DEMAND". */
int mdc_pr_timeout_behavior(const char *s, const char **enum_name, struct mdc_ctx *ctx);

/* The resource must be usable by a pipeline (P5): custom service account
 * enabled, and not in ERROR or STOPPING.  NAME is for the message. */
int mdc_pr_check_runnable(const json_object *res, const char *name, struct mdc_ctx *ctx);

struct mdc_pr_run_opts {
	const char *pipeline_path;	/* compiled pipeline YAML (or JSON) */
	const char *resource_name;	/* full persistent resource name */
	const char *wait_time;		/* DURATION */
	const char *on_timeout;		/* fail | fall-back-to-on-demand */
	const char *pipeline_root;	/* gs://... */
	const struct mdc_strv *parameters;	/* "k=v" (may be NULL) */
	const char *display_name;	/* NULL = pipelineInfo.name of the spec */
	const struct mdc_strv *labels;	/* may be NULL */
};

/* The v1beta1 PipelineJob body of P5:
 * {display_name, pipeline_spec, labels?, runtime_config:{gcs_output_directory,
 *  parameter_values, default_runtime:{persistent_resource_runtime_detail:{
 *  persistent_resource_name, task_resource_unavailable_wait_time_ms,
 *  task_resource_unavailable_timeout_behavior}}}}.
 * Parameters are typed from the spec's root.inputDefinitions (NUMBER_INTEGER,
 * NUMBER_DOUBLE, BOOLEAN, LIST, STRUCT, STRING); an undeclared parameter, a
 * value of the wrong type, or a required parameter left out is refused. */
int mdc_pr_pipeline_body(const struct mdc_pr_run_opts *o, json_object **body,
			 struct mdc_ctx *ctx);

/* Pipeline job ids (?pipeline_job_id=): [a-z][a-z0-9-]{0,127}. */
int mdc_pr_check_job_id(const char *id, struct mdc_ctx *ctx);

/* https://console.cloud.google.com/vertex-ai/locations/L/pipelines/runs/JOB_ID?project=P
 * for the job named JOB_NAME (full name or id).  NULL on ENOMEM. */
char *mdc_pr_console_link(const char *region, const char *project, const char *job_name);

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

/* --- ListPipelineJobs ---------------------------------------------------------- */

/* RFC 3339 ("2026-05-18T13:30:00Z", fractions and offsets allowed) to
 * seconds since the epoch.  0 or -1. */
int mdc_pr_time_parse(const char *s, double *t);

/* SUCCEEDED, FAILED or CANCELLED */
bool mdc_pr_job_terminal(const char *state);

/* ListPipelineJobsRequest.filter, the subset its proto documents (AIP-160):
 * pipeline_name, display_name, pipeline_job_user_id, state, create_time,
 * update_time, end_time, labels.KEY, template_uri, template_metadata.version
 * with the operators documented for each; AND, OR (binding tighter, as in
 * AIP-160), NOT or '-', juxtaposition as AND, parentheses.  *OUT is NULL
 * for an empty filter (matches everything); free with mdc_pr_filter_free. */
struct mdc_pr_filter;
int mdc_pr_filter_parse(const char *expr, struct mdc_pr_filter **out, struct mdc_ctx *ctx);
/* JOB in snake_case (pipeline_spec keeps its own keys). */
bool mdc_pr_filter_match(const struct mdc_pr_filter *f, const json_object *job);
void mdc_pr_filter_free(struct mdc_pr_filter *f);

/* order_by: "create_time desc, end_time" over create_time, update_time,
 * end_time, start_time (either spelling); empty = "create_time desc", the
 * service's default.  Ties are broken by name. */
struct mdc_pr_order {
	struct { const char *field; bool desc; } key[4];	/* field: static */
	size_t n;
};
int mdc_pr_order_parse(const char *s, struct mdc_pr_order *o, struct mdc_ctx *ctx);
int mdc_pr_order_cmp(const struct mdc_pr_order *o, const json_object *a, const json_object *b);
/* gcloud's --sort-by "~createTime,endTime" ('~' = descending) as an
 * order_by (malloc'ed), checked with mdc_pr_order_parse. */
int mdc_pr_sort_by(const char *sort_by, char **order_by, struct mdc_ctx *ctx);

/* read_mask: *OUT (new) holds the top-level PipelineJob fields MASK names
 * (a dotted path keeps its top-level field); an unknown field is refused.
 * JOB may be NULL to check MASK only. */
int mdc_pr_read_mask(const char *mask, const json_object *job, json_object **out,
		     struct mdc_ctx *ctx);

/* --- waiting for a pipeline run ---------------------------------------------- */

struct mdc_client;
struct mdc_pr_wait_opts {
	double timeout_s;			/* 0 = no limit */
	volatile sig_atomic_t *interrupted;	/* stops the wait when set */
	/* after each poll (END false) and once at the end (END true) */
	void (*progress)(const json_object *job, double elapsed_s, bool end, void *arg);
	void *arg;
};

/* Poll the pipeline job NAME (v1beta1) until it is SUCCEEDED, FAILED or
 * CANCELLED (backoff of mdc_lro_delay, at most 5 s between polls).
 * 0 when it SUCCEEDED; MDC_ERR_OPFAILED naming the state and the job's
 * error otherwise; MDC_ERR_TIMEOUT / MDC_ERR_INTERRUPTED say the run goes
 * on.  *JOB gets the last job seen (may be NULL on a transport error). */
int mdc_pr_job_wait(struct mdc_client *c, const char *name, const struct mdc_pr_wait_opts *o,
		    json_object **job, struct mdc_ctx *ctx);

#endif
