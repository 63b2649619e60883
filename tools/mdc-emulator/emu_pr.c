/* emu_pr.c - persistent resources (v1 and v1beta1) and pipeline jobs in
 * the emulator, with the field names and enums of the real protos
 * (persistent_resource.proto, pipeline_job.proto, pipeline_state.proto).
 * Requests are checked with the same lib/mdc_pr rules the client applies
 * before sending (P1-P3, P5), and refusals take Google's error form.
 *
 * Lifecycles (each step one --lro-seconds operation):
 *   persistent resource  create: PROVISIONING -> RUNNING (ERROR if the
 *                        operation fails); reboot: REBOOTING -> RUNNING;
 *                        delete: STOPPING -> gone
 *   pipeline job         create: PIPELINE_STATE_PENDING -> RUNNING;
 *                        cancel: CANCELLING -> CANCELLED (nothing executes)
 * (owner: pr) */
#include "config.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "emu.h"
#include "mdc_json.h"
#include "mdc_pr.h"
#include "mdc_str.h"

#define PR_KIND "persistentResource"
#define PJ_KIND "pipelineJob"
#define PR_COLL "/persistentResources"
#define PJ_COLL "/pipelineJobs"
#define PR_PAGE_MAX 100

/* OUTPUT_ONLY fields of the protos: a client's values are dropped */
static const char *const pr_output_only[] = {
	"state", "error", "create_time", "start_time", "update_time", "resource_runtime",
	"satisfies_pzs", "satisfies_pzi", NULL,
};
static const char *const pj_output_only[] = {
	"name", "state", "create_time", "start_time", "end_time", "update_time",
	"job_detail", "error", "schedule_name", "template_metadata", "satisfies_pzs",
	"satisfies_pzi", NULL,
};

/* A request path split: PARENT "projects/P/locations/L", ID (may be empty),
 * VERB after ':' (may be empty). */
struct pr_path {
	char parent[512];
	char id[256];
	char verb[32];
	char name[1024];	/* PARENT/COLLECTION/ID */
};

static bool pr_split(const char *name, const char *coll, struct pr_path *p)
{
	const char *c = strstr(name, coll), *rest, *colon;
	struct mdc_strv parts = MDC_STRV_INIT;
	bool ok;

	memset(p, 0, sizeof(*p));
	if (!c || (size_t) (c - name) >= sizeof(p->parent))
		return false;
	memcpy(p->parent, name, (size_t) (c - name));
	mdc_strv_split(&parts, p->parent, "/");
	ok = parts.n == 4 && !strcmp(parts.v[0], "projects") && !strcmp(parts.v[2], "locations");
	mdc_strv_free(&parts);
	if (!ok)
		return false;
	rest = c + strlen(coll);
	if (!*rest)
		return true;
	if (*rest != '/' || strchr(rest + 1, '/'))
		return false;
	rest++;
	colon = strchr(rest, ':');
	if (colon) {
		if ((size_t) (colon - rest) >= sizeof(p->id) || strlen(colon + 1) >= sizeof(p->verb))
			return false;
		memcpy(p->id, rest, (size_t) (colon - rest));
		strcpy(p->verb, colon + 1);
	} else {
		if (strlen(rest) >= sizeof(p->id))
			return false;
		strcpy(p->id, rest);
	}
	if (!p->id[0])
		return false;
	snprintf(p->name, sizeof(p->name), "%s%s/%s", p->parent, coll, p->id);
	return true;
}

static void pr_stamp(json_object *res, const char *field)
{
	char now[40];

	emu_now_rfc3339(now, sizeof(now));
	json_object_object_add(res, field, json_object_new_string(now));
}

static void pr_set_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

/* "type.googleapis.com/google.cloud.aiplatform.VERSION.MSG" in BUF */
struct pr_tbuf { char s[160]; };

static const char *pr_type(const struct emu_request *r, const char *msg, struct pr_tbuf *buf)
{
	snprintf(buf->s, sizeof(buf->s), "type.googleapis.com/google.cloud.aiplatform.%s.%s",
		 r->version, msg);
	return buf->s;
}

/* proto3's JSON mapping writes int64 fields as strings, as the service does */
static void pr_int64_str(json_object *obj, const char *key)
{
	json_object *v = obj ? mdc_json_get(obj, key) : NULL;
	char buf[32];

	if (v && json_object_is_type(v, json_type_int)) {
		snprintf(buf, sizeof(buf), "%" PRId64, json_object_get_int64(v));
		mdc_json_set(obj, key, json_object_new_string(buf));
	}
}

/* Page of ITEMS (stolen array) as {FIELD: [...], next_page_token} */
static int pr_reply_page(struct emu_response *out, const struct emu_request *r,
			 json_object *items, const char *field)
{
	const char *tok = mdc_json_get_str(r->query, "page_token", NULL);
	const char *size = mdc_json_get_str(r->query, "page_size", NULL);
	size_t n = json_object_array_length(items), start = 0, count = PR_PAGE_MAX;
	json_object *page = json_object_new_array(), *body = json_object_new_object();

	if (tok && *tok) {
		char *end;
		unsigned long v = strtoul(tok, &end, 10);

		if (*end || v > n) {
			json_object_put(items);
			json_object_put(page);
			json_object_put(body);
			return emu_reply_bad_field(out, "page_token", "invalid page token '%s'", tok);
		}
		start = v;
	}
	if (size && *size) {
		long v = strtol(size, NULL, 10);

		if (v > 0 && v < PR_PAGE_MAX)
			count = (size_t) v;
	}
	for (size_t i = start; i < n && i < start + count; i++)
		json_object_array_add(page, json_object_get(json_object_array_get_idx(items, i)));
	json_object_object_add(body, field, page);
	if (start + count < n) {
		char next[32];

		snprintf(next, sizeof(next), "%zu", start + count);
		pr_set_str(body, "next_page_token", next);
	}
	json_object_put(items);
	return emu_reply(out, 200, body);
}

/* --- persistent resources ------------------------------------------------ */

/* Provisioned: RUNNING since now.  The operation failed (--fault
 * operation:fail): the resource is in ERROR. */
static void pr_create_done(struct emu *e, json_object *op, bool failed, void *arg)
{
	const char *name = mdc_json_get_str(op, "_res_name", NULL);
	json_object *res = name ? emu_store_get(e, PR_KIND, name) : NULL, *err;

	(void) arg;
	if (!res)
		return;
	res = mdc_json_copy(res);
	if (!failed) {
		pr_stamp(res, "start_time");
		pr_stamp(res, "update_time");
		emu_store_put(e, PR_KIND, name, res);
		return;
	}
	pr_set_str(res, "state", "ERROR");
	if ((err = mdc_json_get_obj(op, "error")))
		json_object_object_add(res, "error", mdc_json_copy(err));
	pr_stamp(res, "update_time");
	emu_store_put(e, PR_KIND, name, res);
}

/* A failed reboot leaves the resource RUNNING, as before it. */
static void pr_reboot_done(struct emu *e, json_object *op, bool failed, void *arg)
{
	const char *name = mdc_json_get_str(op, "_res_name", NULL);
	json_object *res = name ? emu_store_get(e, PR_KIND, name) : NULL;

	(void) arg;
	if (!failed || !res)
		return;
	res = mdc_json_copy(res);
	pr_set_str(res, "state", "RUNNING");
	emu_store_put(e, PR_KIND, name, res);
}

static int pr_create(struct emu *e, struct emu_request *r, const struct pr_path *p,
		     struct emu_response *out)
{
	const char *id = mdc_json_get_str(r->query, "persistent_resource_id", NULL);
	json_object *res, *final, *op, *pools;
	struct emu_op_spec spec = { 0 };
	struct pr_tbuf mt, rt;
	struct mdc_ctx ctx;
	char name[1024];

	mdc_ctx_clear(&ctx);
	if (!id || !*id)
		return emu_reply_bad_field(out, "persistent_resource_id", "persistent_resource_id "
					   "is required: add ?persistent_resource_id=ID");
	if (mdc_pr_check_id(id, &ctx))
		return emu_reply_bad_field(out, "persistent_resource_id", "%s", ctx.msg);
	if (!r->body)
		return emu_reply_bad_field(out, "persistent_resource", "the request body must be a "
					   "PersistentResource");
	if (mdc_pr_check_resource(r->body, &ctx))
		return emu_reply_bad_field(out, "persistent_resource.resource_pools", "%s", ctx.msg);
	snprintf(name, sizeof(name), "%s" PR_COLL "/%s", p->parent, id);
	if (emu_store_get(e, PR_KIND, name))
		return emu_reply_error(out, "ALREADY_EXISTS", "persistent resource '%s' already "
				       "exists", name);
	res = mdc_json_copy(r->body);
	/* output-only fields are the service's */
	for (size_t i = 0; pr_output_only[i]; i++)
		mdc_json_del(res, pr_output_only[i]);
	pr_set_str(res, "name", name);
	/* the service names pools it was not given an id for */
	pools = mdc_json_get_arr(res, "resource_pools");
	for (size_t i = 0; pools && i < json_object_array_length(pools); i++) {
		json_object *pool = json_object_array_get_idx(pools, i);
		const char *mtype = mdc_json_get_str(mdc_json_get_obj(pool, "machine_spec"),
						     "machine_type", "pool");
		char pid[128];

		if (!mdc_json_get_str(pool, "id", NULL) || !*mdc_json_get_str(pool, "id", "")) {
			snprintf(pid, sizeof(pid), "%s-%zu", mtype, i);
			pr_set_str(pool, "id", pid);
		}
		json_object_object_add(pool, "used_replica_count", json_object_new_int(0));
		pr_int64_str(pool, "replica_count");
		pr_int64_str(pool, "used_replica_count");
		pr_int64_str(mdc_json_get_obj(pool, "autoscaling_spec"), "min_replica_count");
		pr_int64_str(mdc_json_get_obj(pool, "autoscaling_spec"), "max_replica_count");
	}
	pr_set_str(res, "state", "PROVISIONING");
	pr_stamp(res, "create_time");
	pr_stamp(res, "update_time");
	final = mdc_json_copy(res);
	pr_set_str(final, "state", "RUNNING");
	emu_store_put(e, PR_KIND, name, res);
	spec.parent = name;
	spec.metadata_type = pr_type(r, "CreatePersistentResourceOperationMetadata", &mt);
	spec.progress = "Creating persistent resource";
	spec.kind = PR_KIND;
	spec.res_name = name;
	spec.final = final;
	spec.response_type = pr_type(r, "PersistentResource", &rt);
	spec.done = pr_create_done;
	if (!(op = emu_op_start(e, &spec)))
		return emu_reply_error(out, "INTERNAL", "out of memory");
	return emu_reply(out, 200, op);
}

static int pr_route_resource(struct emu *e, struct emu_request *r, const struct pr_path *p,
			     struct emu_response *out)
{
	json_object *res, *op, *final;
	struct emu_op_spec spec = { 0 };
	struct pr_tbuf mt, rt;
	const char *state;

	if (!p->id[0]) {
		if (!strcmp(r->method, "POST"))
			return pr_create(e, r, p, out);
		if (!strcmp(r->method, "GET")) {
			char prefix[600];

			snprintf(prefix, sizeof(prefix), "%s" PR_COLL "/", p->parent);
			return pr_reply_page(out, r, emu_store_list(e, PR_KIND, prefix),
					     "persistent_resources");
		}
		return emu_reply_error(out, "UNIMPLEMENTED", "%s is not supported on '%s'",
				       r->method, r->path);
	}
	if (!(res = emu_store_get(e, PR_KIND, p->name)))
		return emu_reply_error(out, "NOT_FOUND", "persistent resource '%s' not found",
				       p->name);
	state = mdc_json_get_str(res, "state", "");
	if (!strcmp(r->method, "GET") && !p->verb[0])
		return emu_reply(out, 200, mdc_json_copy(res));
	if (!strcmp(r->method, "DELETE") && !p->verb[0]) {
		res = mdc_json_copy(res);
		pr_set_str(res, "state", "STOPPING");
		pr_stamp(res, "update_time");
		emu_store_put(e, PR_KIND, p->name, res);
		spec.parent = p->name;
		spec.metadata_type = pr_type(r, "DeleteOperationMetadata", &mt);
		spec.progress = "Deleting persistent resource";
		spec.kind = PR_KIND;
		spec.res_name = p->name;
		spec.delete_res = true;
		if (!(op = emu_op_start(e, &spec)))
			return emu_reply_error(out, "INTERNAL", "out of memory");
		return emu_reply(out, 200, op);
	}
	if (!strcmp(r->method, "POST") && !strcmp(p->verb, "reboot")) {
		if (strcmp(state, "RUNNING"))
			return emu_reply_error(out, "FAILED_PRECONDITION", "persistent resource '%s' "
					       "is %s: only a RUNNING resource can be rebooted",
					       p->name, state);
		final = mdc_json_copy(res);
		res = mdc_json_copy(res);
		pr_set_str(res, "state", "REBOOTING");
		pr_stamp(res, "update_time");
		emu_store_put(e, PR_KIND, p->name, res);
		pr_stamp(final, "update_time");
		spec.parent = p->name;
		spec.metadata_type = pr_type(r, "RebootPersistentResourceOperationMetadata", &mt);
		spec.progress = "Rebooting persistent resource";
		spec.kind = PR_KIND;
		spec.res_name = p->name;
		spec.final = final;
		spec.response_type = pr_type(r, "PersistentResource", &rt);
		spec.done = pr_reboot_done;
		if (!(op = emu_op_start(e, &spec)))
			return emu_reply_error(out, "INTERNAL", "out of memory");
		return emu_reply(out, 200, op);
	}
	return emu_reply_error(out, "UNIMPLEMENTED", "%s is not supported on '%s'", r->method,
			       r->path);
}

/* --- pipeline jobs --------------------------------------------------------- */

/* PENDING -> RUNNING, CANCELLING -> CANCELLED, unless something else
 * happened to the job meanwhile. */
static void pj_step_done(struct emu *e, json_object *op, bool failed, void *arg)
{
	const char *name = mdc_json_get_str(op, "_res_name", NULL);
	json_object *job = name ? emu_store_get(e, PJ_KIND, name) : NULL;
	const char *state = mdc_json_get_str(job, "state", "");

	(void) arg;
	(void) failed;
	if (!job)
		return;
	job = mdc_json_copy(job);
	if (!strcmp(state, "PIPELINE_STATE_PENDING")) {
		pr_set_str(job, "state", "PIPELINE_STATE_RUNNING");
		pr_stamp(job, "start_time");
	} else if (!strcmp(state, "PIPELINE_STATE_CANCELLING")) {
		pr_set_str(job, "state", "PIPELINE_STATE_CANCELLED");
		pr_stamp(job, "end_time");
	} else {
		json_object_put(job);
		return;
	}
	pr_stamp(job, "update_time");
	emu_store_put(e, PJ_KIND, name, job);
}

static void pj_step(struct emu *e, const struct emu_request *r, const char *name)
{
	struct emu_op_spec spec = { 0 };
	struct pr_tbuf mt;

	/* an internal timer: the operation is never handed to the client */
	spec.parent = name;
	spec.metadata_type = pr_type(r, "GenericOperationMetadata", &mt);
	spec.progress = "pipeline job state change";
	spec.res_name = name;
	spec.done = pj_step_done;
	json_object_put(emu_op_start(e, &spec));
}

/* P5's runtime detail: a known persistent resource with a custom SA, a
 * timeout behaviour of the enum, a wait time >= 0. */
static int pj_check_runtime(struct emu *e, const json_object *detail, struct emu_response *out)
{
	static const char *const behaviors[] = {
		"TASK_RESOURCE_UNAVAILABLE_TIMEOUT_BEHAVIOR_UNSPECIFIED", "FAIL",
		"FALL_BACK_TO_ON_DEMAND", NULL,
	};
	const char *prn = mdc_json_get_str(detail, "persistent_resource_name", NULL);
	json_object *b = mdc_json_get(detail, "task_resource_unavailable_timeout_behavior");
	json_object *w = mdc_json_get(detail, "task_resource_unavailable_wait_time_ms");
	json_object *res;
	struct mdc_ctx ctx;
	bool ok = false;

	if (!prn || !*prn)
		return emu_reply_bad_field(out, "pipeline_job.runtime_config.default_runtime."
					   "persistent_resource_runtime_detail.persistent_resource_name",
					   "persistent_resource_name is required");
	if (!(res = emu_store_get(e, PR_KIND, prn)))
		return emu_reply_error(out, "NOT_FOUND", "persistent resource '%s' not found", prn);
	mdc_ctx_clear(&ctx);
	if (mdc_pr_check_runnable(res, prn, &ctx))
		return emu_reply_error(out, "FAILED_PRECONDITION", "%s", ctx.msg);
	if (b) {
		for (size_t i = 0; behaviors[i]; i++)
			ok |= json_object_is_type(b, json_type_string) &&
			      !strcmp(json_object_get_string(b), behaviors[i]);
		ok |= json_object_is_type(b, json_type_int) && json_object_get_int(b) >= 0 &&
		      json_object_get_int(b) <= 2;
		if (!ok)
			return emu_reply_bad_field(out, "pipeline_job.runtime_config.default_runtime."
						   "persistent_resource_runtime_detail."
						   "task_resource_unavailable_timeout_behavior",
						   "invalid value '%s': use FAIL or FALL_BACK_TO_ON_DEMAND",
						   json_object_get_string(b));
	}
	if (w && !((json_object_is_type(w, json_type_int) && json_object_get_int64(w) >= 0) ||
		   (json_object_is_type(w, json_type_string) &&
		    strspn(json_object_get_string(w), "0123456789") ==
		    strlen(json_object_get_string(w)) && *json_object_get_string(w))))
		return emu_reply_bad_field(out, "pipeline_job.runtime_config.default_runtime."
					   "persistent_resource_runtime_detail."
					   "task_resource_unavailable_wait_time_ms",
					   "must be a non-negative integer (milliseconds)");
	return -1;
}

static int pj_create(struct emu *e, struct emu_request *r, const struct pr_path *p,
		     struct emu_response *out)
{
	const char *id = mdc_json_get_str(r->query, "pipeline_job_id", NULL);
	json_object *job, *spec, *detail;
	struct mdc_ctx ctx;
	char name[1024], gen[64];
	int rc;

	mdc_ctx_clear(&ctx);
	if (id && *id && mdc_pr_check_job_id(id, &ctx))
		return emu_reply_bad_field(out, "pipeline_job_id", "%s", ctx.msg);
	if (!r->body || !json_object_is_type(r->body, json_type_object))
		return emu_reply_bad_field(out, "pipeline_job", "the request body must be a "
					   "PipelineJob");
	/* the spec is the user's document: take it as sent, keys untouched */
	spec = r->raw_body ? mdc_json_get_obj(r->raw_body, "pipeline_spec") : NULL;
	if (!spec && !mdc_json_get_str(r->body, "template_uri", NULL))
		return emu_reply_bad_field(out, "pipeline_job.pipeline_spec", "pipeline_spec or "
					   "template_uri is required");
	if (spec && !mdc_json_get_obj(spec, "root"))
		return emu_reply_bad_field(out, "pipeline_job.pipeline_spec", "pipeline_spec has "
					   "no 'root': it is not a compiled pipeline");
	if (!mdc_json_get_str(mdc_json_get_obj(r->body, "runtime_config"), "gcs_output_directory",
			      NULL))
		return emu_reply_bad_field(out, "pipeline_job.runtime_config.gcs_output_directory",
					   "gcs_output_directory (the pipeline root) is required");
	detail = mdc_json_get_path(r->body, "runtime_config.default_runtime."
				   "persistent_resource_runtime_detail");
	if (detail && (rc = pj_check_runtime(e, detail, out)) >= 0)
		return rc;
	if (!id || !*id) {
		/* a numeric id, as the service generates */
		json_object *all = emu_store_list(e, PJ_KIND, NULL);

		snprintf(gen, sizeof(gen), "%lld%04zu", (long long) time(NULL),
			 (all ? json_object_array_length(all) : 0) % 10000);
		json_object_put(all);
		id = gen;
	}
	snprintf(name, sizeof(name), "%s" PJ_COLL "/%s", p->parent, id);
	if (emu_store_get(e, PJ_KIND, name))
		return emu_reply_error(out, "ALREADY_EXISTS", "pipeline job '%s' already exists", name);
	job = mdc_json_copy(r->body);
	for (size_t i = 0; pj_output_only[i]; i++)
		mdc_json_del(job, pj_output_only[i]);
	if (spec)
		mdc_json_set(job, "pipeline_spec", mdc_json_copy(spec));
	pr_int64_str(mdc_json_get_path(job, "runtime_config.default_runtime."
				       "persistent_resource_runtime_detail"),
		     "task_resource_unavailable_wait_time_ms");
	pr_set_str(job, "name", name);
	pr_set_str(job, "state", "PIPELINE_STATE_PENDING");
	pr_stamp(job, "create_time");
	pr_stamp(job, "update_time");
	emu_store_put(e, PJ_KIND, name, mdc_json_copy(job));
	pj_step(e, r, name);
	return emu_reply(out, 200, job);
}

static int pj_route(struct emu *e, struct emu_request *r, const struct pr_path *p,
		    struct emu_response *out)
{
	static const char *const terminal[] = {
		"PIPELINE_STATE_SUCCEEDED", "PIPELINE_STATE_FAILED", "PIPELINE_STATE_CANCELLED", NULL,
	};
	struct emu_op_spec spec = { 0 };
	struct pr_tbuf mt;
	json_object *job, *op;
	const char *state;

	if (!p->id[0]) {
		if (!strcmp(r->method, "POST"))
			return pj_create(e, r, p, out);
		if (!strcmp(r->method, "GET")) {
			char prefix[600];

			snprintf(prefix, sizeof(prefix), "%s" PJ_COLL "/", p->parent);
			return pr_reply_page(out, r, emu_store_list(e, PJ_KIND, prefix),
					     "pipeline_jobs");
		}
		return emu_reply_error(out, "UNIMPLEMENTED", "%s is not supported on '%s'",
				       r->method, r->path);
	}
	if (!(job = emu_store_get(e, PJ_KIND, p->name)))
		return emu_reply_error(out, "NOT_FOUND", "pipeline job '%s' not found", p->name);
	state = mdc_json_get_str(job, "state", "");
	if (!strcmp(r->method, "GET") && !p->verb[0])
		return emu_reply(out, 200, mdc_json_copy(job));
	if (!strcmp(r->method, "POST") && !strcmp(p->verb, "cancel")) {
		for (size_t i = 0; terminal[i]; i++)
			if (!strcmp(state, terminal[i]))
				return emu_reply_error(out, "FAILED_PRECONDITION", "pipeline job '%s' "
						       "is already %s", p->name, state);
		job = mdc_json_copy(job);
		pr_set_str(job, "state", "PIPELINE_STATE_CANCELLING");
		pr_stamp(job, "update_time");
		emu_store_put(e, PJ_KIND, p->name, job);
		pj_step(e, r, p->name);
		return emu_reply(out, 200, json_object_new_object());
	}
	if (!strcmp(r->method, "DELETE") && !p->verb[0]) {
		spec.parent = p->name;
		spec.metadata_type = pr_type(r, "DeleteOperationMetadata", &mt);
		spec.progress = "Deleting pipeline job";
		spec.kind = PJ_KIND;
		spec.res_name = p->name;
		spec.delete_res = true;
		if (!(op = emu_op_start(e, &spec)))
			return emu_reply_error(out, "INTERNAL", "out of memory");
		return emu_reply(out, 200, op);
	}
	return emu_reply_error(out, "UNIMPLEMENTED", "%s is not supported on '%s'", r->method,
			       r->path);
}

int emu_pr_route(struct emu *e, struct emu_request *r, struct emu_response *out)
{
	struct pr_path p;

	if (strstr(r->name, PR_COLL)) {
		if (!pr_split(r->name, PR_COLL, &p))
			return emu_reply_error(out, "NOT_FOUND", "no route for %s '%s': expected "
					       "projects/P/locations/L/persistentResources[/ID]",
					       r->method, r->path);
		return pr_route_resource(e, r, &p, out);
	}
	if (!pr_split(r->name, PJ_COLL, &p))
		return emu_reply_error(out, "NOT_FOUND", "no route for %s '%s': expected "
				       "projects/P/locations/L/pipelineJobs[/ID]", r->method, r->path);
	return pj_route(e, r, &p, out);
}
