/* mdc_pipeline_filter.h - ListPipelineJobs' query language: filter,
 * order_by, gcloud's --sort-by and read_mask, shared by the client (which
 * checks them before sending) and the emulator (which applies them).
 * (owner: pr) */
#ifndef MDC_PIPELINE_FILTER_H
#define MDC_PIPELINE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "mdc_err.h"

/* RFC 3339 ("2026-05-18T13:30:00Z", fractions and offsets allowed) to
 * seconds since the epoch.  0 or -1. */
int mdc_pipeline_time_parse(const char *s, double *t);

/* SUCCEEDED, FAILED or CANCELLED */
bool mdc_pipeline_terminal(const char *state);

/* ListPipelineJobsRequest.filter, the subset its proto documents (AIP-160):
 * pipeline_name, display_name, pipeline_job_user_id, state, create_time,
 * update_time, end_time, labels.KEY, template_uri, template_metadata.version
 * with the operators documented for each; AND, OR (binding tighter, as in
 * AIP-160), NOT or '-', juxtaposition as AND, parentheses.  *OUT is NULL
 * for an empty filter (matches everything); free with mdc_pipeline_filter_free. */
struct mdc_pipeline_filter;
int mdc_pipeline_filter_parse(const char *expr, struct mdc_pipeline_filter **out, struct mdc_ctx *ctx);
/* JOB in snake_case (pipeline_spec keeps its own keys). */
bool mdc_pipeline_filter_match(const struct mdc_pipeline_filter *f, const json_object *job);
void mdc_pipeline_filter_free(struct mdc_pipeline_filter *f);

/* order_by: "create_time desc, end_time" over create_time, update_time,
 * end_time, start_time (either spelling); empty = "create_time desc", the
 * service's default.  Ties are broken by name. */
struct mdc_pipeline_order {
	struct { const char *field; bool desc; } key[4];	/* field: static */
	size_t n;
};
int mdc_pipeline_order_parse(const char *s, struct mdc_pipeline_order *o, struct mdc_ctx *ctx);
int mdc_pipeline_order_cmp(const struct mdc_pipeline_order *o, const json_object *a, const json_object *b);
/* gcloud's --sort-by "~createTime,endTime" ('~' = descending) as an
 * order_by (malloc'ed), checked with mdc_pipeline_order_parse. */
int mdc_pipeline_sort_by(const char *sort_by, char **order_by, struct mdc_ctx *ctx);

/* read_mask: *OUT (new) holds the top-level PipelineJob fields MASK names
 * (a dotted path keeps its top-level field); an unknown field is refused.
 * JOB may be NULL to check MASK only. */
int mdc_pipeline_read_mask(const char *mask, const json_object *job, json_object **out,
		     struct mdc_ctx *ctx);

#endif
