/* mdc_pipeline.h - pipeline runs on a persistent resource (DESIGN P5):
 * job ids and names, --wait-time and --on-timeout, the check that a
 * resource can run pipelines and the v1beta1 PipelineJob body.  Pure
 * functions; the REST calls are in mdc_vertex.h.  (owner: pr)
 *
 * JSON results are in the internal snake_case form, except pipeline_spec,
 * which is the user's compiled pipeline and keeps its own keys.
 * Functions returning json_object ** hand a new reference to the caller
 * (json_object_put it); char * results are malloc'ed (free them).
 */
#ifndef MDC_PIPELINE_H
#define MDC_PIPELINE_H

#include <stdint.h>
#include <json-c/json.h>
#include "mdc_err.h"
#include "mdc_str.h"

/* Durations: "90" (seconds), "500ms", "30s", "10m", "1h30m", "2d", decimals
 * allowed ("1.5h").  *MS in milliseconds. */
int mdc_pipeline_duration_ms(const char *s, int64_t *ms, struct mdc_ctx *ctx);

/* --on-timeout: "fail" or "fall-back-to-on-demand" (the enum names are
 * accepted too) -> static "FAIL" / "FALL_BACK_TO_ON_DEMAND". */
int mdc_pipeline_timeout_behavior(const char *s, const char **enum_name, struct mdc_ctx *ctx);

/* The resource must be usable by a pipeline (P5): custom service account
 * enabled, and not in ERROR or STOPPING.  NAME is for the message. */
int mdc_pipeline_check_runnable(const json_object *res, const char *name, struct mdc_ctx *ctx);

struct mdc_pipeline_run_opts {
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
int mdc_pipeline_body(const struct mdc_pipeline_run_opts *o, json_object **body,
			 struct mdc_ctx *ctx);

/* Pipeline job ids (?pipeline_job_id=): [a-z][a-z0-9-]{0,127}. */
int mdc_pipeline_check_job_id(const char *id, struct mdc_ctx *ctx);

/* https://console.cloud.google.com/vertex-ai/locations/L/pipelines/runs/JOB_ID?project=P
 * for the job named JOB_NAME (full name or id).  NULL on ENOMEM. */
char *mdc_pipeline_console_link(const char *region, const char *project, const char *job_name);

/* "projects/P/locations/L/pipelineJobs/ID" from a full name (kept) or an
 * ID (needs PROJECT and REGION: else MDC_ERR_USAGE).  *OUT malloc'ed. */
int mdc_pipeline_job_name(const char *project, const char *region, const char *name_or_id,
			  char **out, struct mdc_ctx *ctx);

#endif
