/* mdc_vertex.h - the REST calls for Vertex AI persistent resources (v1,
 * DESIGN P1) and pipeline jobs (v1beta1, P5): typed calls over
 * mdc_api_call, listed with mdc_api_list, and the waits (the
 * library's LRO wait for operations, its backoff and interruptible sleep
 * for pipeline runs).  Errors are returned in CTX, never printed.
 * (owner: pr)
 *
 * NAME arguments are full resource names (mdc_pr_resource_name,
 * mdc_pipeline_job_name); PARENT is "projects/P/locations/L"
 * (mdc_vertex_parent).  json_object ** results are new references in
 * snake_case (json_object_put them); *OP is a long-running operation.
 */
/* layer lib/vertex/ owns persistent resources and pipelines;
 * it is the top layer and may include every one below (scripts/check-layers). */
#ifndef MDC_VERTEX_H
#define MDC_VERTEX_H

#include <signal.h>
#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_client.h"
#include "mdc_err.h"
#include "mdc_lro.h"

/* "projects/P/locations/L" into *OUT (malloc'ed); MDC_ERR_USAGE naming
 * the options when PROJECT or REGION is missing. */
int mdc_vertex_parent(const char *project, const char *region, char **out,
		      struct mdc_ctx *ctx);

/* Lists take struct mdc_api_list_opts (mdc_client.h). */

/* Wait for OP (as returned by a create/delete/PATCH) with mdc_lro_wait;
 * an operation already done is not polled.  *DONE gets the finished
 * operation; one that ended in error is MDC_ERR_OPFAILED. */
int mdc_vertex_op_wait(struct mdc_client *c, const json_object *op,
		       const struct mdc_lro_opts *o, json_object **done, struct mdc_ctx *ctx);

/* --- persistent resources (v1) ------------------------------------------ */

/* POST PARENT/persistentResources?persistent_resource_id=ID with BODY
 * (mdc_pr_create_body). */
int mdc_pr_create(struct mdc_client *c, const char *parent, const char *id,
		  const json_object *body, json_object **op, struct mdc_ctx *ctx);
int mdc_pr_get(struct mdc_client *c, const char *name, json_object **res,
	       struct mdc_ctx *ctx);
int mdc_pr_list(struct mdc_client *c, const char *parent, const struct mdc_api_list_opts *o,
		json_object **list, struct mdc_ctx *ctx);
/* PATCH NAME?updateMask=MASK with BODY (mdc_pr_update_body). */
int mdc_pr_update(struct mdc_client *c, const char *name, const json_object *body,
		  const char *mask, json_object **op, struct mdc_ctx *ctx);
int mdc_pr_delete(struct mdc_client *c, const char *name, json_object **op,
		  struct mdc_ctx *ctx);
int mdc_pr_reboot(struct mdc_client *c, const char *name, json_object **op,
		  struct mdc_ctx *ctx);

/* --- pipeline jobs (v1beta1) -------------------------------------------- */

/* The persistent resource NAME a run will use, read with the pipeline
 * API and checked with mdc_pipeline_check_runnable; a missing one is
 * MDC_ERR_NOTFOUND saying how to create it.  *RES may be set on a
 * refusal. */
int mdc_pipeline_resource(struct mdc_client *c, const char *name, json_object **res,
			  struct mdc_ctx *ctx);
/* POST PARENT/pipelineJobs[?pipeline_job_id=JOB_ID] with BODY
 * (mdc_pipeline_body); JOB_ID may be NULL.  *JOB is the created job. */
int mdc_pipeline_create(struct mdc_client *c, const char *parent, const char *job_id,
			const json_object *body, json_object **job, struct mdc_ctx *ctx);
int mdc_pipeline_get(struct mdc_client *c, const char *name, json_object **job,
		     struct mdc_ctx *ctx);
int mdc_pipeline_list(struct mdc_client *c, const char *parent,
		      const struct mdc_api_list_opts *o, json_object **list,
		      struct mdc_ctx *ctx);
/* POST NAME:cancel; the run stops later (mdc_pipeline_wait sees it). */
int mdc_pipeline_cancel(struct mdc_client *c, const char *name, struct mdc_ctx *ctx);
int mdc_pipeline_delete(struct mdc_client *c, const char *name, json_object **op,
			struct mdc_ctx *ctx);

struct mdc_pipeline_wait_opts {
	double timeout_s;			/* 0 = no limit */
	volatile sig_atomic_t *interrupted;	/* stops the wait when set */
	/* after each poll (END false) and once at the end (END true) */
	void (*progress)(const json_object *job, double elapsed_s, bool end, void *arg);
	void *arg;
};

/* Poll the pipeline job NAME until it is SUCCEEDED, FAILED or CANCELLED
 * (backoff of mdc_lro_delay, at most 5 s between polls, mdc_sleep).
 * 0 when it SUCCEEDED; MDC_ERR_OPFAILED naming the state and the job's
 * error otherwise; MDC_ERR_TIMEOUT / MDC_ERR_INTERRUPTED say the run goes
 * on.  *JOB gets the last job seen (may be NULL on a transport error). */
int mdc_pipeline_wait(struct mdc_client *c, const char *name,
		      const struct mdc_pipeline_wait_opts *o, json_object **job,
		      struct mdc_ctx *ctx);

#endif
