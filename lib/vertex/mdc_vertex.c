/* mdc_vertex.c - see mdc_vertex.h. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_lro.h"
#include "mdc_pipeline.h"
#include "mdc_pipeline_filter.h"
#include "mdc_pr_int.h"
#include "mdc_proc.h"
#include "mdc_vertex.h"

/* Persistent resources are served by v1 (P1); pipeline jobs by v1beta1 (P5). */
#define PR_API "v1"
#define PJ_API "v1beta1"

int mdc_vertex_parent(const char *project, const char *region, char **out,
		      struct mdc_ctx *ctx)
{
	*out = NULL;
	if (!project || !*project || !region || !*region)
		return mdc_fail(ctx, MDC_ERR_USAGE, "no project or region: give --project "
				"and --region (or MDC_PROJECT and MDC_REGION)");
	if (!(*out = mdc_pr_strdupf("projects/%s/locations/%s", project, region)))
		return mdc_nomem(ctx);
	return 0;
}

int mdc_vertex_op_wait(struct mdc_client *c, const json_object *op,
		       const struct mdc_lro_opts *o, json_object **done, struct mdc_ctx *ctx)
{
	const char *name = mdc_json_get_str(op, "name", NULL);
	json_object *err = mdc_json_get_obj(op, "error");

	*done = NULL;
	if (mdc_json_get_bool(op, "done", false)) {
		*done = json_object_get((json_object *) op);
		if (err)
			return mdc_fail(ctx, MDC_ERR_OPFAILED, "operation '%s' failed: %s",
					name ? name : "?", mdc_json_get_str(err, "message", "?"));
		return 0;
	}
	if (!name)
		return mdc_fail(ctx, MDC_ERR_API, "the answer is not an operation (no name)");
	return mdc_lro_wait(c, name, o, done, ctx);
}

/* One call on "API/NAME[SUFFIX]" (QUERY and BODY may be NULL). */
static int vx_call(struct mdc_client *c, const char *method, const char *api,
		   const char *name, const char *suffix, const char *query,
		   const json_object *body, json_object **resp, struct mdc_ctx *ctx)
{
	char *path = mdc_pr_strdupf("%s/%s%s", api, name, suffix ? suffix : "");
	int rc;

	if (!path)
		return mdc_nomem(ctx);
	rc = mdc_api_call(c, method, path, query, body, resp, ctx);
	free(path);
	return rc;
}

/* POST API/NAME:VERB with an empty object (the custom methods' body). */
static int vx_post_verb(struct mdc_client *c, const char *api, const char *name,
			const char *verb, json_object **resp, struct mdc_ctx *ctx)
{
	json_object *empty = json_object_new_object();
	int rc;

	if (!empty)
		return mdc_nomem(ctx);
	rc = vx_call(c, "POST", api, name, verb, NULL, empty, resp, ctx);
	json_object_put(empty);
	return rc;
}

/* POST API/PARENT/COLLECTION[?ID_PARAM=ID] with BODY. */
static int vx_create(struct mdc_client *c, const char *api, const char *parent,
		     const char *collection, const char *id_param, const char *id,
		     const json_object *body, json_object **resp, struct mdc_ctx *ctx)
{
	struct mdc_buf q = MDC_BUF_INIT, coll = MDC_BUF_INIT;
	int rc;

	*resp = NULL;
	if ((id && mdc_query_add(&q, id_param, id)) ||
	    mdc_buf_addf(&coll, "/%s", collection))
		rc = mdc_nomem(ctx);
	else
		rc = vx_call(c, "POST", api, parent, coll.s, q.s, body, resp, ctx);
	mdc_buf_free(&coll);
	mdc_buf_free(&q);
	return rc;
}

/* Every item of API/PARENT/COLLECTION. */
static int vx_list(struct mdc_client *c, const char *api, const char *parent,
		   const char *collection, const char *items,
		   const struct mdc_api_list_opts *o, json_object **list, struct mdc_ctx *ctx)
{
	char *path = mdc_pr_strdupf("%s/%s/%s", api, parent, collection);
	int rc;

	*list = NULL;
	if (!path)
		return mdc_nomem(ctx);
	rc = mdc_api_list(c, path, items, o, list, ctx);
	free(path);
	return rc;
}

/* --- persistent resources ------------------------------------------------ */

int mdc_pr_create(struct mdc_client *c, const char *parent, const char *id,
		  const json_object *body, json_object **op, struct mdc_ctx *ctx)
{
	return vx_create(c, PR_API, parent, "persistentResources", "persistent_resource_id",
			 id, body, op, ctx);
}

int mdc_pr_get(struct mdc_client *c, const char *name, json_object **res,
	       struct mdc_ctx *ctx)
{
	*res = NULL;
	return vx_call(c, "GET", PR_API, name, NULL, NULL, NULL, res, ctx);
}

int mdc_pr_list(struct mdc_client *c, const char *parent, const struct mdc_api_list_opts *o,
		json_object **list, struct mdc_ctx *ctx)
{
	return vx_list(c, PR_API, parent, "persistentResources", "persistent_resources", o,
		       list, ctx);
}

int mdc_pr_update(struct mdc_client *c, const char *name, const json_object *body,
		  const char *mask, json_object **op, struct mdc_ctx *ctx)
{
	struct mdc_buf q = MDC_BUF_INIT;
	int rc;

	*op = NULL;
	if (mdc_query_add(&q, "updateMask", mask ? mask : ""))
		rc = mdc_nomem(ctx);
	else
		rc = vx_call(c, "PATCH", PR_API, name, NULL, q.s, body, op, ctx);
	mdc_buf_free(&q);
	return rc;
}

int mdc_pr_delete(struct mdc_client *c, const char *name, json_object **op,
		  struct mdc_ctx *ctx)
{
	*op = NULL;
	return vx_call(c, "DELETE", PR_API, name, NULL, NULL, NULL, op, ctx);
}

int mdc_pr_reboot(struct mdc_client *c, const char *name, json_object **op,
		  struct mdc_ctx *ctx)
{
	*op = NULL;
	return vx_post_verb(c, PR_API, name, ":reboot", op, ctx);
}

/* --- pipeline jobs ------------------------------------------------------- */

int mdc_pipeline_resource(struct mdc_client *c, const char *name, json_object **res,
			  struct mdc_ctx *ctx)
{
	int rc;

	*res = NULL;
	if ((rc = vx_call(c, "GET", PJ_API, name, NULL, NULL, NULL, res, ctx))) {
		if (rc != MDC_ERR_NOTFOUND)
			return rc;
		mdc_ctx_clear(ctx);
		return mdc_fail(ctx, MDC_ERR_NOTFOUND, "persistent resource '%s' not found: "
				"create it with mdcctl persistent-resources create "
				"--enable-custom-service-account", name);
	}
	return mdc_pipeline_check_runnable(*res, name, ctx);
}

int mdc_pipeline_create(struct mdc_client *c, const char *parent, const char *job_id,
			const json_object *body, json_object **job, struct mdc_ctx *ctx)
{
	return vx_create(c, PJ_API, parent, "pipelineJobs", "pipeline_job_id", job_id, body,
			 job, ctx);
}

int mdc_pipeline_get(struct mdc_client *c, const char *name, json_object **job,
		     struct mdc_ctx *ctx)
{
	*job = NULL;
	return vx_call(c, "GET", PJ_API, name, NULL, NULL, NULL, job, ctx);
}

int mdc_pipeline_list(struct mdc_client *c, const char *parent,
		      const struct mdc_api_list_opts *o, json_object **list,
		      struct mdc_ctx *ctx)
{
	return vx_list(c, PJ_API, parent, "pipelineJobs", "pipeline_jobs", o, list, ctx);
}

int mdc_pipeline_cancel(struct mdc_client *c, const char *name, struct mdc_ctx *ctx)
{
	json_object *resp = NULL;
	int rc = vx_post_verb(c, PJ_API, name, ":cancel", &resp, ctx);

	json_object_put(resp);
	return rc;
}

int mdc_pipeline_delete(struct mdc_client *c, const char *name, json_object **op,
			struct mdc_ctx *ctx)
{
	*op = NULL;
	return vx_call(c, "DELETE", PJ_API, name, NULL, NULL, NULL, op, ctx);
}

/* "pipeline job 'N' FAILED: message" for a run that did not succeed */
static int vx_job_outcome(const char *name, const json_object *job, struct mdc_ctx *ctx)
{
	const char *state = mdc_json_get_str(job, "state", "");
	json_object *err = mdc_json_get_obj(job, "error");

	if (!strcmp(state, "PIPELINE_STATE_SUCCEEDED"))
		return 0;
	return mdc_fail(ctx, MDC_ERR_OPFAILED, "pipeline job '%s' %s%s%s", name,
			state + strlen("PIPELINE_STATE_"), err ? ": " : "",
			err ? mdc_json_get_str(err, "message", "") : "");
}

int mdc_pipeline_wait(struct mdc_client *c, const char *name,
		      const struct mdc_pipeline_wait_opts *o, json_object **job,
		      struct mdc_ctx *ctx)
{
	static const struct mdc_pipeline_wait_opts none = { 0 };
	double start = mdc_mono();
	json_object *j = NULL;
	int rc = 0;

	*job = NULL;
	if (!o)
		o = &none;
	for (unsigned n = 0;; n++) {
		const char *state;
		double delay = mdc_lro_delay(n);

		json_object_put(j);
		if ((rc = mdc_pipeline_get(c, name, &j, ctx)))
			goto out;
		state = mdc_json_get_str(j, "state", "");
		if (o->progress)
			o->progress(j, mdc_mono() - start, false, o->arg);
		if (mdc_pipeline_terminal(state)) {
			rc = vx_job_outcome(name, j, ctx);
			goto out;
		}
		if (delay > 5)
			delay = 5;
		if (o->timeout_s > 0 && mdc_mono() - start + delay > o->timeout_s) {
			rc = mdc_fail(ctx, MDC_ERR_TIMEOUT, "pipeline job '%s' still %s after %.0f s; "
				      "it goes on: wait again with 'mdcctl pipelines wait %s'",
				      name, state, o->timeout_s, name);
			goto out;
		}
		if (!mdc_sleep(delay, o->interrupted)) {
			rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "stopped waiting; pipeline job '%s' "
				      "goes on: resume with 'mdcctl pipelines wait %s'", name, name);
			goto out;
		}
	}
out:
	if (o->progress)
		o->progress(j, mdc_mono() - start, true, o->arg);
	*job = j;
	return rc;
}
