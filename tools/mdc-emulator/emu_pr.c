/* emu_pr.c - persistent resources (v1 and v1beta1) and pipeline jobs in
 * the emulator, with the field names and enums of the real protos
 * (persistent_resource.proto, pipeline_job.proto, pipeline_state.proto,
 * pipeline_service.proto).  Requests are checked with the same lib/mdc_pr
 * rules the client applies before sending (P1-P3, P5), and refusals take
 * Google's error form.
 *
 * Persistent resources (each step one --lro-seconds operation):
 *   create: PROVISIONING -> RUNNING (ERROR if the operation fails);
 *   update: UPDATING -> RUNNING (the old resource back if it fails);
 *   reboot: REBOOTING -> RUNNING; delete: STOPPING -> gone.
 *
 * Pipeline runs are simulated from stored times whenever a request reaches
 * this file, so the model survives a restart (operation hooks do not):
 * PENDING for pending_ms, then RUNNING; the tasks of the compiled spec run
 * one after another in dependency order, each on one replica of the
 * persistent resource, for task_ms; a task that finds no free replica
 * waits, and after task_resource_unavailable_wait_time_ms either fails the
 * run (FAIL) or runs on on-demand resources (FALL_BACK_TO_ON_DEMAND, noted
 * in its pipeline_task_status); then SUCCEEDED.  Cancel: CANCELLING for
 * cancel_ms, then CANCELLED.  Free replicas = the pools' replica counts
 * (max_replica_count when autoscaled) - busy_replicas - tasks running on
 * them (GETs show them in used_replica_count, filling the pools in order);
 * none while the resource is not RUNNING or UPDATING.  Tests set the
 * timings (which apply to runs in flight too) and the capacity through
 * /emulator/v1 (emu_pr_control).
 *
 * Project numbers: the service takes projects/NUMBER/... as well as the
 * id.  The emulator numbers project ID as 100000000000 + FNV-1a-64(ID) mod
 * 900000000000 (12 digits, stable across runs; GET /emulator/v1/projects/ID
 * shows it) and learns the pair when a resource is created under ID;
 * names in answers keep the id.
 * (owner: pr) */
#include "config.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "emu.h"
#include "mdc_json.h"
#include "mdc_pipeline.h"
#include "mdc_pipeline_filter.h"
#include "mdc_pr.h"
#include "mdc_str.h"

#define PR_KIND "persistentResource"
#define PJ_KIND "pipelineJob"
#define PR_COLL "/persistentResources"
#define PJ_COLL "/pipelineJobs"
#define PR_PAGE_MAX 100
#define PROJ_KIND "emuProject"		/* number -> {project_id} */
#define CAP_KIND "emuCapacity"		/* resource name -> {available, busy_replicas} */
#define ACTIVE_KIND "emuPipelineActive"	/* job name -> {} while not terminal */
#define TIMING_KIND "emuPipelineTiming"	/* "timing" -> {pending_ms, task_ms, cancel_ms} */
#define BATCH_KIND "emuPipelineBatch"	/* operation name -> {verb, names} */
#define OPLOC_KIND "emuOperationByLocation"	/* P/L/operations/N -> {name} */
#define PJ_BATCH_MAX 32

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
	if (*rest == ':') {	/* a collection verb: pipelineJobs:batchCancel */
		if (strlen(rest + 1) >= sizeof(p->verb) || !rest[1])
			return false;
		strcpy(p->verb, rest + 1);
		return true;
	}
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

/* --- project numbers -------------------------------------------------------- */

static unsigned long long pr_project_number(const char *id)
{
	unsigned long long h = 1469598103934665603ULL;

	for (const unsigned char *c = (const unsigned char *) id; *c; c++) {
		h ^= *c;
		h *= 1099511628211ULL;
	}
	return 100000000000ULL + h % 900000000000ULL;
}

static bool pr_all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Learn the number of the project of PARENT ("projects/P/locations/L") at
 * a create.  A number the emulator has not seen is refused: it cannot
 * know which project it means.  0, or 1 with OUT filled. */
static int pr_project_register(struct emu *e, const char *parent, struct emu_response *out)
{
	const char *id = parent + strlen("projects/");
	size_t n = strcspn(id, "/");
	char num[32], pid[256];
	json_object *rec;

	if (pr_all_digits(id, n)) {
		emu_reply_error(out, "NOT_FOUND", "project number %.*s is not known to the "
				"emulator: use the project id (it learns a project's number when "
				"a resource is created under its id)", (int) n, id);
		return 1;
	}
	snprintf(pid, sizeof(pid), "%.*s", (int) n, id);
	snprintf(num, sizeof(num), "%llu", pr_project_number(pid));
	if (emu_store_get(e, PROJ_KIND, num))
		return 0;
	rec = json_object_new_object();
	pr_set_str(rec, "project_id", pid);
	pr_set_str(rec, "project_number", num);
	emu_store_put(e, PROJ_KIND, num, rec);
	return 0;
}

/* NAME ("projects/P/...") with P's number for the id P, in BUF (NAME
 * copied when P is a number already or NAME is no project's).  LEARN: the
 * emulator learns the project (as a create under its id does), so names
 * with the number are understood later. */
static const char *pr_numbered(struct emu *e, const char *name, bool learn, char *buf, size_t sz)
{
	const char *id;
	size_t n;
	char num[32], pid[256];

	snprintf(buf, sz, "%s", name ? name : "");
	if (!name || !mdc_startswith(name, "projects/"))
		return buf;
	id = name + strlen("projects/");
	n = strcspn(id, "/");
	if (!n || pr_all_digits(id, n) || n >= sizeof(pid))
		return buf;
	snprintf(pid, sizeof(pid), "%.*s", (int) n, id);
	snprintf(num, sizeof(num), "%llu", pr_project_number(pid));
	if (learn && !emu_store_get(e, PROJ_KIND, num)) {
		json_object *rec = json_object_new_object();

		pr_set_str(rec, "project_id", pid);
		pr_set_str(rec, "project_number", num);
		emu_store_put(e, PROJ_KIND, num, rec);
	}
	snprintf(buf, sz, "projects/%s%s", num, id + n);
	return buf;
}

const char *emu_parent_numbered(struct emu *e, const char *parent, bool learn, char *buf, size_t sz)
{
	return pr_numbered(e, parent, learn, buf, sz);
}

/* NAME with a known "projects/NUMBER/" replaced by the project id, in BUF.
 * NAME unchanged (copied) otherwise. */
static const char *pr_canon(struct emu *e, const char *name, char *buf, size_t sz)
{
	const char *id, *pid;
	size_t n;
	char num[32];

	snprintf(buf, sz, "%s", name ? name : "");
	if (!name || !mdc_startswith(name, "projects/"))
		return buf;
	id = name + strlen("projects/");
	n = strcspn(id, "/");
	if (!pr_all_digits(id, n) || n >= sizeof(num))
		return buf;
	snprintf(num, sizeof(num), "%.*s", (int) n, id);
	if ((pid = mdc_json_get_str(emu_store_get(e, PROJ_KIND, num), "project_id", NULL)))
		snprintf(buf, sz, "projects/%s%s", pid, id + n);
	return buf;
}

/* RFC 3339 UTC with milliseconds of T (seconds since the epoch) */
static void pr_time_str(double t, char *buf, size_t sz)
{
	time_t s = (time_t) t;
	struct tm tm;
	char base[32];
	int ms = (int) ((t - (double) s) * 1000.0);

	gmtime_r(&s, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, sz, "%s.%03dZ", base, ms < 0 ? 0 : ms > 999 ? 999 : ms);
}

static double pr_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
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
	if (pr_project_register(e, p->parent, out))
		return 0;
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

static json_object *pr_usage(struct emu *e, json_object *res);

/* A failed update leaves the resource as it was before, RUNNING. */
static void pr_update_done(struct emu *e, json_object *op, bool failed, void *arg)
{
	const char *name = mdc_json_get_str(op, "_res_name", NULL);
	json_object *res = name ? emu_store_get(e, PR_KIND, name) : NULL, *prev;

	(void) arg;
	if (!failed || !res)
		return;
	prev = mdc_json_get_obj(res, "_prev");
	res = mdc_json_copy(prev ? prev : res);
	mdc_json_del(res, "_prev");
	pr_set_str(res, "state", "RUNNING");
	pr_stamp(res, "update_time");
	emu_store_put(e, PR_KIND, name, res);
}

/* UpdatePersistentResource: PATCH NAME?update_mask=... with a
 * PersistentResource body; an UpdatePersistentResourceOperationMetadata LRO. */
static int pr_update(struct emu *e, struct emu_request *r, const struct pr_path *p,
		     json_object *res, struct emu_response *out)
{
	const char *mask = mdc_json_get_str(r->query, "update_mask", NULL);
	const char *state = mdc_json_get_str(res, "state", "");
	const char *bname = mdc_json_get_str(r->body, "name", NULL);
	json_object *updated = NULL, *cur, *op, *pools;
	struct emu_op_spec spec = { 0 };
	struct pr_tbuf mt, rt;
	struct mdc_ctx ctx;
	char canon[1024];

	mdc_ctx_clear(&ctx);
	if (!r->body)
		return emu_reply_bad_field(out, "persistent_resource", "the request body must be a "
					   "PersistentResource");
	if (bname && *bname && strcmp(pr_canon(e, bname, canon, sizeof(canon)), p->name))
		return emu_reply_bad_field(out, "persistent_resource.name", "the body names '%s' "
					   "but the URL names '%s'", bname, p->name);
	if (strcmp(state, "RUNNING"))
		return emu_reply_error(out, "FAILED_PRECONDITION", "persistent resource '%s' is %s: "
				       "only a RUNNING resource can be updated", p->name, state);
	if (mdc_pr_update_apply(res, r->body, mask, &updated, &ctx))
		return emu_reply_bad_field(out, mdc_startswith(ctx.msg, "update_mask") || !mask ?
					   "update_mask" : "persistent_resource", "%s", ctx.msg);
	pools = mdc_json_get_arr(updated, "resource_pools");
	for (size_t i = 0; pools && i < json_object_array_length(pools); i++) {
		json_object *pool = json_object_array_get_idx(pools, i);

		pr_int64_str(pool, "replica_count");
		pr_int64_str(mdc_json_get_obj(pool, "autoscaling_spec"), "min_replica_count");
		pr_int64_str(mdc_json_get_obj(pool, "autoscaling_spec"), "max_replica_count");
	}
	pr_set_str(updated, "state", "RUNNING");
	pr_stamp(updated, "update_time");
	cur = mdc_json_copy(res);
	json_object_object_add(cur, "_prev", mdc_json_copy(res));
	pr_set_str(cur, "state", "UPDATING");
	pr_stamp(cur, "update_time");
	emu_store_put(e, PR_KIND, p->name, cur);
	spec.parent = p->name;
	spec.metadata_type = pr_type(r, "UpdatePersistentResourceOperationMetadata", &mt);
	spec.progress = "Updating persistent resource";
	spec.kind = PR_KIND;
	spec.res_name = p->name;
	spec.final = updated;
	spec.response_type = pr_type(r, "PersistentResource", &rt);
	spec.done = pr_update_done;
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

	if (!p->id[0] && p->verb[0])
		return emu_reply_error(out, "NOT_FOUND", "no method '%s' on persistent resources",
				       p->verb);
	if (!p->id[0]) {
		if (!strcmp(r->method, "POST"))
			return pr_create(e, r, p, out);
		if (!strcmp(r->method, "GET")) {
			char prefix[600];

			snprintf(prefix, sizeof(prefix), "%s" PR_COLL "/", p->parent);
			json_object *all = emu_store_list(e, PR_KIND, prefix);

			for (size_t i = 0; all && i < json_object_array_length(all); i++)
				pr_usage(e, json_object_array_get_idx(all, i));
			return pr_reply_page(out, r, all, "persistent_resources");
		}
		return emu_reply_error(out, "UNIMPLEMENTED", "%s is not supported on '%s'",
				       r->method, r->path);
	}
	if (!(res = emu_store_get(e, PR_KIND, p->name)))
		return emu_reply_error(out, "NOT_FOUND", "persistent resource '%s' not found",
				       p->name);
	state = mdc_json_get_str(res, "state", "");
	if (!strcmp(r->method, "GET") && !p->verb[0])
		return emu_reply(out, 200, pr_usage(e, mdc_json_copy(res)));
	if (!strcmp(r->method, "PATCH") && !p->verb[0])
		return pr_update(e, r, p, res, out);
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

/* --- pipeline jobs: the run model ------------------------------------------- */

struct pj_timing {
	double pending, task, cancel;	/* seconds */
};

static void pj_timing(struct emu *e, struct pj_timing *t)
{
	json_object *c = emu_store_get(e, TIMING_KIND, "timing");

	t->pending = (double) mdc_json_get_int(c, "pending_ms", 500) / 1000.0;
	t->task = (double) mdc_json_get_int(c, "task_ms", 1000) / 1000.0;
	t->cancel = (double) mdc_json_get_int(c, "cancel_ms", 200) / 1000.0;
}

static double pj_num(const json_object *o, const char *k, double def)
{
	json_object *v = o ? mdc_json_get(o, k) : NULL;

	return v ? json_object_get_double(v) : def;
}

static void pj_set_num(json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

static void pj_stamp_at(json_object *o, const char *field, double t)
{
	char buf[40];

	pr_time_str(t, buf, sizeof(buf));
	pr_set_str(o, field, buf);
}

static json_object *pj_detail(const json_object *job)
{
	return mdc_json_get_path(job, "runtime_config.default_runtime."
				 "persistent_resource_runtime_detail");
}

static int pj_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The tasks of the compiled spec, in dependency order (Kahn's algorithm,
 * ties by name); one task named after the pipeline without a spec. */
static json_object *pj_task_order(const json_object *spec, const char *fallback)
{
	json_object *tasks = mdc_json_get_path(spec, "root.dag.tasks"), *order;
	struct mdc_strv names = MDC_STRV_INIT;
	bool progress = true;

	order = json_object_new_array();
	if (!tasks || !json_object_is_type(tasks, json_type_object)) {
		json_object_array_add(order, json_object_new_string(fallback));
		return order;
	}
	json_object_object_foreach(tasks, k, v) {
		(void) v;
		mdc_strv_push(&names, k);
	}
	qsort(names.v, names.n, sizeof(char *), pj_strcmp);
	while (progress && json_object_array_length(order) < names.n) {
		progress = false;
		for (size_t i = 0; i < names.n; i++) {
			json_object *deps = mdc_json_get_arr(mdc_json_get(tasks, names.v[i]),
							     "dependentTasks");
			bool placed = false, ready = true;

			for (size_t j = 0; j < json_object_array_length(order); j++)
				placed |= !strcmp(json_object_get_string(
					json_object_array_get_idx(order, j)), names.v[i]);
			for (size_t d = 0; !placed && deps && d < json_object_array_length(deps); d++) {
				const char *dep = json_object_get_string(json_object_array_get_idx(deps, d));
				bool done = false;

				for (size_t j = 0; j < json_object_array_length(order); j++)
					done |= !strcmp(json_object_get_string(
						json_object_array_get_idx(order, j)), dep);
				/* a dependency outside the DAG does not hold the task back */
				ready &= done || !mdc_json_get(tasks, dep);
			}
			if (!placed && ready) {
				json_object_array_add(order, json_object_new_string(names.v[i]));
				progress = true;
				break;
			}
		}
	}
	/* a cycle: the rest in name order, as the service would refuse it anyway */
	for (size_t i = 0; i < names.n && json_object_array_length(order) < names.n; i++) {
		bool placed = false;

		for (size_t j = 0; j < json_object_array_length(order); j++)
			placed |= !strcmp(json_object_get_string(json_object_array_get_idx(order, j)),
					  names.v[i]);
		if (!placed)
			json_object_array_add(order, json_object_new_string(names.v[i]));
	}
	mdc_strv_free(&names);
	return order;
}

/* The working set of one tick: copies of the active jobs. */
struct pj_sim {
	struct emu *e;
	struct pj_timing tm;
	json_object **jobs;
	bool *changed;
	size_t n;
};

static json_object *pj_tasks(json_object *job)
{
	json_object *jd = mdc_json_get_obj(job, "job_detail"), *td;

	if (!jd) {
		jd = json_object_new_object();
		json_object_object_add(job, "job_detail", jd);
	}
	if (!(td = mdc_json_get_arr(jd, "task_details"))) {
		td = json_object_new_array();
		json_object_object_add(jd, "task_details", td);
	}
	return td;
}

/* The task being worked on: the last one created (read only: JOB may be
 * a stored job). */
static json_object *pj_current(const json_object *job)
{
	json_object *td = mdc_json_get_arr(mdc_json_get_obj(job, "job_detail"), "task_details");
	size_t n = td ? json_object_array_length(td) : 0;

	return n ? json_object_array_get_idx(td, n - 1) : NULL;
}

static void pj_task_status(json_object *task, const char *state, double t, json_object *err)
{
	json_object *hist = mdc_json_get_arr(task, "pipeline_task_status"), *st;

	if (!hist) {
		hist = json_object_new_array();
		json_object_object_add(task, "pipeline_task_status", hist);
	}
	st = json_object_new_object();
	pj_stamp_at(st, "update_time", t);
	pr_set_str(st, "state", state);
	if (err)
		json_object_object_add(st, "error", err);
	json_object_array_add(hist, st);
	pr_set_str(task, "state", state);
}

static json_object *pj_status(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static json_object *pj_status(int code, const char *fmt, ...)
{
	json_object *s = json_object_new_object();
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_object_add(s, "code", json_object_new_int(code));
	pr_set_str(s, "message", msg);
	return s;
}

static void pj_end(json_object *job, const char *state, double t, json_object *err)
{
	pr_set_str(job, "state", state);
	pj_stamp_at(job, "end_time", t);
	pj_stamp_at(job, "update_time", t);
	if (err)
		json_object_object_add(job, "error", err);
}

/* Next task of JOB ready at T, or the run SUCCEEDED. */
static void pj_next_task(json_object *job, double t)
{
	json_object *order = mdc_json_get_arr(job, "_tasks"), *task;
	int64_t next = mdc_json_get_int(job, "_next", 0);
	char id[32];

	if (!order || next >= (int64_t) json_object_array_length(order)) {
		pj_end(job, "PIPELINE_STATE_SUCCEEDED", t, NULL);
		return;
	}
	task = json_object_new_object();
	snprintf(id, sizeof(id), "%" PRId64, next + 1);
	pr_set_str(task, "task_id", id);
	pr_set_str(task, "task_name", json_object_get_string(
			   json_object_array_get_idx(order, (size_t) next)));
	pj_stamp_at(task, "create_time", t);
	pj_set_num(task, "_ready", t);
	pj_task_status(task, "PENDING", t, NULL);
	json_object_array_add(pj_tasks(job), task);
	json_object_object_add(job, "_next", json_object_new_int64(next + 1));
	pj_stamp_at(job, "update_time", t);
}

static void pj_task_start(struct pj_sim *sim, json_object *job, json_object *task, double t,
			  json_object *note)
{
	pj_stamp_at(task, "start_time", t);
	pj_set_num(task, "_start", t);
	if (note)
		json_object_object_add(task, "_od", json_object_new_boolean(1));
	pj_task_status(task, "RUNNING", t, note);
	pj_stamp_at(job, "update_time", t);
}

/* Pipeline tasks running on persistent resource NAME (not on-demand) */
static int64_t pj_running_on(const struct pj_sim *sim, const char *name)
{
	int64_t n = 0;

	for (size_t j = 0; j < sim->n; j++) {
		json_object *task = pj_current(sim->jobs[j]);

		if (task && !strcmp(mdc_json_get_str(task, "state", ""), "RUNNING") &&
		    !mdc_json_get_bool(task, "_od", false) &&
		    mdc_streq(mdc_json_get_str(pj_detail(sim->jobs[j]), "persistent_resource_name",
					       NULL), name))
			n++;
	}
	return n;
}

/* A pool's machines: replica_count, or max_replica_count when autoscaled */
static int64_t pj_pool_size(const json_object *pool)
{
	json_object *as = mdc_json_get_obj(pool, "autoscaling_spec");
	json_object *v = as && mdc_json_get(as, "max_replica_count") ?
			 mdc_json_get(as, "max_replica_count") : mdc_json_get(pool, "replica_count");

	return v ? strtoll(json_object_get_string(v), NULL, 10) : 0;
}

/* Replicas of persistent resource NAME free for pipeline tasks now. */
static int64_t pj_free(struct pj_sim *sim, const char *name)
{
	json_object *res = emu_store_get(sim->e, PR_KIND, name), *pools, *cap;
	const char *state = mdc_json_get_str(res, "state", "");
	int64_t total = 0;

	if (!res || (strcmp(state, "RUNNING") && strcmp(state, "UPDATING")))
		return 0;
	cap = emu_store_get(sim->e, CAP_KIND, name);
	if (cap && !mdc_json_get_bool(cap, "available", true))
		return 0;
	pools = mdc_json_get_arr(res, "resource_pools");
	for (size_t i = 0; pools && i < json_object_array_length(pools); i++)
		total += pj_pool_size(json_object_array_get_idx(pools, i));
	total -= mdc_json_get_int(cap, "busy_replicas", 0) + pj_running_on(sim, name);
	return total > 0 ? total : 0;
}

/* The stored active runs, borrowed, for reading */
static void pj_sim_borrow(struct emu *e, struct pj_sim *sim)
{
	json_object *active = emu_store_list(e, ACTIVE_KIND, NULL);
	size_t n = active ? json_object_array_length(active) : 0;

	memset(sim, 0, sizeof(*sim));
	sim->e = e;
	sim->jobs = calloc(n ? n : 1, sizeof(*sim->jobs));
	for (size_t i = 0; sim->jobs && i < n; i++) {
		json_object *job = emu_store_get(e, PJ_KIND, mdc_json_get_str(
			json_object_array_get_idx(active, i), "name", ""));

		if (job)
			sim->jobs[sim->n++] = job;
	}
	json_object_put(active);
}

/* RES (a copy, returned) with each pool's used_replica_count: the
 * busyReplicas of the test controls and the pipeline tasks running there,
 * filling the pools in order. */
static json_object *pr_usage(struct emu *e, json_object *res)
{
	json_object *pools = mdc_json_get_arr(res, "resource_pools");
	const char *name = mdc_json_get_str(res, "name", "");
	struct pj_sim sim;
	int64_t used;

	pj_sim_borrow(e, &sim);
	used = mdc_json_get_int(emu_store_get(e, CAP_KIND, name), "busy_replicas", 0) +
	       pj_running_on(&sim, name);
	free(sim.jobs);
	for (size_t i = 0; pools && i < json_object_array_length(pools); i++) {
		json_object *pool = json_object_array_get_idx(pools, i);
		int64_t size = pj_pool_size(pool), u = used < size ? used : size;
		char buf[32];

		snprintf(buf, sizeof(buf), "%" PRId64, u);
		mdc_json_set(pool, "used_replica_count", json_object_new_string(buf));
		used -= u;
	}
	return res;
}

/* Waiting tasks take free replicas at T, the longest-waiting first. */
static void pj_assign(struct pj_sim *sim, double t)
{
	for (;;) {
		json_object *best = NULL, *best_job = NULL;
		size_t bj = 0;

		for (size_t j = 0; j < sim->n; j++) {
			json_object *task = pj_current(sim->jobs[j]);
			const char *prn = mdc_json_get_str(pj_detail(sim->jobs[j]),
							   "persistent_resource_name", NULL);

			if (!task || strcmp(mdc_json_get_str(sim->jobs[j], "state", ""),
					    "PIPELINE_STATE_RUNNING") ||
			    strcmp(mdc_json_get_str(task, "state", ""), "PENDING"))
				continue;
			if (prn && pj_free(sim, prn) <= 0)
				continue;
			if (!best || pj_num(task, "_ready", 0) < pj_num(best, "_ready", 0)) {
				best = task;
				best_job = sim->jobs[j];
				bj = j;
			}
		}
		if (!best)
			return;
		pj_task_start(sim, best_job, best, t, NULL);
		sim->changed[bj] = true;
	}
}

#define PJ_NEVER 1e300

/* When JOB next changes by itself (PJ_NEVER: not before a request).  The
 * durations are today's timings, so a test may shorten them for runs in
 * flight. */
static double pj_due(const struct pj_timing *tm, const json_object *job)
{
	const char *state = mdc_json_get_str(job, "state", "");
	json_object *task, *d = pj_detail(job), *w;

	if (!strcmp(state, "PIPELINE_STATE_PENDING"))
		return pj_num(job, "_t_create", 0) + tm->pending;
	if (!strcmp(state, "PIPELINE_STATE_CANCELLING"))
		return pj_num(job, "_t_cancel", 0) + tm->cancel;
	if (strcmp(state, "PIPELINE_STATE_RUNNING"))
		return PJ_NEVER;
	if (!(task = pj_current(job)))
		return PJ_NEVER;
	if (!strcmp(mdc_json_get_str(task, "state", ""), "RUNNING"))
		return pj_num(task, "_start", 0) + tm->task;
	if (!strcmp(mdc_json_get_str(task, "state", ""), "PENDING") && d &&
	    (w = mdc_json_get(d, "task_resource_unavailable_wait_time_ms")))
		return pj_num(task, "_ready", 0) +
		       (double) strtoll(json_object_get_string(w), NULL, 10) / 1000.0;
	return PJ_NEVER;
}

/* The change of JOB due at T. */
static void pj_step(struct pj_sim *sim, json_object *job, double t)
{
	const char *state = mdc_json_get_str(job, "state", "");
	json_object *task = pj_current(job), *d = pj_detail(job);
	const char *prn = mdc_json_get_str(d, "persistent_resource_name", NULL);

	if (!strcmp(state, "PIPELINE_STATE_PENDING")) {
		pr_set_str(job, "state", "PIPELINE_STATE_RUNNING");
		pj_stamp_at(job, "start_time", t);
		pj_next_task(job, t);
		/* no persistent resource: the service's own on-demand machines */
		if (!prn && (task = pj_current(job)) &&
		    !strcmp(mdc_json_get_str(task, "state", ""), "PENDING"))
			pj_task_start(sim, job, task, t, NULL);
		return;
	}
	if (!strcmp(state, "PIPELINE_STATE_CANCELLING")) {
		if (task && !mdc_pipeline_terminal(state) &&
		    (!strcmp(mdc_json_get_str(task, "state", ""), "RUNNING") ||
		     !strcmp(mdc_json_get_str(task, "state", ""), "PENDING"))) {
			pj_stamp_at(task, "end_time", t);
			pj_task_status(task, "CANCELLED", t, NULL);
		}
		pj_end(job, "PIPELINE_STATE_CANCELLED", t,
		       pj_status(1, "CANCELLED: the pipeline job was cancelled"));
		return;
	}
	if (!task)
		return;
	if (!strcmp(mdc_json_get_str(task, "state", ""), "RUNNING")) {
		pj_stamp_at(task, "end_time", t);
		pj_task_status(task, "SUCCEEDED", t, NULL);
		pj_next_task(job, t);
		if (!prn && (task = pj_current(job)) &&
		    !strcmp(mdc_json_get_str(task, "state", ""), "PENDING"))
			pj_task_start(sim, job, task, t, NULL);
		return;
	}
	/* a task waited task_resource_unavailable_wait_time_ms for a replica */
	{
		const char *behavior = mdc_json_get_str(d, "task_resource_unavailable_timeout_behavior",
							"FAIL");
		const char *tname = mdc_json_get_str(task, "task_name", "?");
		const char *wait = json_object_get_string(mdc_json_get(
			d, "task_resource_unavailable_wait_time_ms"));

		if (!strcmp(behavior, "FALL_BACK_TO_ON_DEMAND") || !strcmp(behavior, "2")) {
			pj_task_start(sim, job, task, t, pj_status(0, "no replica of persistent "
				      "resource '%s' was free within %s ms "
				      "(task_resource_unavailable_wait_time_ms): the task runs on "
				      "on-demand resources (FALL_BACK_TO_ON_DEMAND)", prn, wait));
			return;
		}
		pj_stamp_at(task, "end_time", t);
		json_object_object_add(task, "error", pj_status(8, "task '%s' waited %s ms "
				       "(task_resource_unavailable_wait_time_ms) for a free replica "
				       "of persistent resource '%s'; its timeout behavior is FAIL",
				       tname, wait, prn));
		pj_task_status(task, "FAILED", t, pj_status(8, "no replica of persistent resource "
			       "'%s' within %s ms", prn, wait));
		pj_end(job, "PIPELINE_STATE_FAILED", t, pj_status(9, "The DAG failed because some "
		       "tasks failed. The failed tasks are: [%s].", tname));
	}
}

/* Bring every active run up to now, event by event in time order, so
 * runs sharing a persistent resource see each other's replicas. */
static void pj_tick(struct emu *e)
{
	json_object *active = emu_store_list(e, ACTIVE_KIND, NULL);
	size_t n = active ? json_object_array_length(active) : 0;
	struct pj_sim sim = { e, { 0, 0, 0 }, NULL, NULL, 0 };
	double now = pr_clock();

	if (!n)
		goto out;
	pj_timing(e, &sim.tm);
	sim.jobs = calloc(n, sizeof(*sim.jobs));
	sim.changed = calloc(n, sizeof(*sim.changed));
	if (!sim.jobs || !sim.changed)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *name = mdc_json_get_str(json_object_array_get_idx(active, i), "name", "");
		json_object *job = emu_store_get(e, PJ_KIND, name);

		if (!job) {
			emu_store_del(e, ACTIVE_KIND, name);
			continue;
		}
		sim.jobs[sim.n++] = mdc_json_copy(job);
	}
	pj_assign(&sim, now);	/* capacity that appeared since the last request */
	for (unsigned guard = 0; guard < 100000; guard++) {
		double t = PJ_NEVER;
		size_t k = 0;

		for (size_t j = 0; j < sim.n; j++) {
			double d = pj_due(&sim.tm, sim.jobs[j]);

			if (d < t) {
				t = d;
				k = j;
			}
		}
		if (t > now)
			break;
		pj_step(&sim, sim.jobs[k], t);
		sim.changed[k] = true;
		pj_assign(&sim, t);
	}
	for (size_t j = 0; j < sim.n; j++) {
		const char *name = mdc_json_get_str(sim.jobs[j], "name", "");

		if (mdc_pipeline_terminal(mdc_json_get_str(sim.jobs[j], "state", "")))
			emu_store_del(e, ACTIVE_KIND, name);
		if (sim.changed[j]) {
			char nm[1024];

			snprintf(nm, sizeof(nm), "%s", name);
			emu_store_put(e, PJ_KIND, nm, sim.jobs[j]);
		} else {
			json_object_put(sim.jobs[j]);
		}
	}
out:
	free(sim.jobs);
	free(sim.changed);
	json_object_put(active);
}

static void pj_activate(struct emu *e, const char *name)
{
	json_object *rec = json_object_new_object();

	pr_set_str(rec, "name", name);
	emu_store_put(e, ACTIVE_KIND, name, rec);
}

/* --- pipeline jobs: requests -------------------------------------------------- */

/* P5's runtime detail: a known persistent resource with a custom SA, a
 * timeout behaviour of the enum, a wait time >= 0. */
static int pj_check_runtime(struct emu *e, json_object *detail, struct emu_response *out)
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
	char canon[1024];
	bool ok = false;

	if (!prn || !*prn)
		return emu_reply_bad_field(out, "pipeline_job.runtime_config.default_runtime."
					   "persistent_resource_runtime_detail.persistent_resource_name",
					   "persistent_resource_name is required");
	/* the run names the resource by id, whichever spelling it was given */
	pr_canon(e, prn, canon, sizeof(canon));
	if (!(res = emu_store_get(e, PR_KIND, canon)))
		return emu_reply_error(out, "NOT_FOUND", "persistent resource '%s' not found", prn);
	mdc_json_set(detail, "persistent_resource_name", json_object_new_string(canon));
	mdc_ctx_clear(&ctx);
	if (mdc_pipeline_check_runnable(res, canon, &ctx))
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
		/* the JSON mapping answers enum names */
		if (json_object_is_type(b, json_type_int))
			mdc_json_set(detail, "task_resource_unavailable_timeout_behavior",
				     json_object_new_string(behaviors[json_object_get_int(b)]));
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
	json_object *job, *spec, *detail, *body = NULL;
	struct mdc_ctx ctx;
	char name[1024], gen[64];
	double now = pr_clock();
	int rc;

	mdc_ctx_clear(&ctx);
	if (id && *id && mdc_pipeline_check_job_id(id, &ctx))
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
	if (pr_project_register(e, p->parent, out))
		return 0;
	body = mdc_json_copy(r->body);
	detail = mdc_json_get_path(body, "runtime_config.default_runtime."
				   "persistent_resource_runtime_detail");
	if (detail && (rc = pj_check_runtime(e, detail, out)) >= 0)
		goto out;
	if (!id || !*id) {
		/* a numeric id, as the service generates */
		json_object *all = emu_store_list(e, PJ_KIND, NULL);

		snprintf(gen, sizeof(gen), "%lld%04zu", (long long) time(NULL),
			 (all ? json_object_array_length(all) : 0) % 10000);
		json_object_put(all);
		id = gen;
	}
	snprintf(name, sizeof(name), "%s" PJ_COLL "/%s", p->parent, id);
	if (emu_store_get(e, PJ_KIND, name)) {
		emu_reply_error(out, "ALREADY_EXISTS", "pipeline job '%s' already exists", name);
		goto out;
	}
	job = body;
	body = NULL;
	for (size_t i = 0; pj_output_only[i]; i++)
		mdc_json_del(job, pj_output_only[i]);
	if (spec)
		mdc_json_set(job, "pipeline_spec", mdc_json_copy(spec));
	pr_int64_str(mdc_json_get_path(job, "runtime_config.default_runtime."
				       "persistent_resource_runtime_detail"),
		     "task_resource_unavailable_wait_time_ms");
	pr_set_str(job, "name", name);
	pr_set_str(job, "state", "PIPELINE_STATE_PENDING");
	pj_stamp_at(job, "create_time", now);
	pj_stamp_at(job, "update_time", now);
	pj_set_num(job, "_t_create", now);
	json_object_object_add(job, "_tasks", pj_task_order(spec, mdc_json_get_str(
		job, "display_name", "pipeline")));
	emu_store_put(e, PJ_KIND, name, mdc_json_copy(job));
	pj_activate(e, name);
	emu_reply(out, 200, job);
out:
	json_object_put(body);
	return 0;
}

static int pj_cancel_one(struct emu *e, const char *name)
{
	json_object *job = emu_store_get(e, PJ_KIND, name);

	if (!job || mdc_pipeline_terminal(mdc_json_get_str(job, "state", "")) ||
	    !strcmp(mdc_json_get_str(job, "state", ""), "PIPELINE_STATE_CANCELLING"))
		return 0;
	job = mdc_json_copy(job);
	pr_set_str(job, "state", "PIPELINE_STATE_CANCELLING");
	pr_stamp(job, "update_time");
	pj_set_num(job, "_t_cancel", pr_clock());
	emu_store_put(e, PJ_KIND, name, job);
	pj_activate(e, name);
	return 1;
}

/* batchDelete / batchCancel: the jobs change when the operation ends, all
 * or none, and its response lists them. */
static void pj_batch_done(struct emu *e, json_object *op, bool failed, void *arg)
{
	const char *opname = mdc_json_get_str(op, "name", "");
	json_object *rec = emu_store_get(e, BATCH_KIND, opname), *names, *resp, *jobs;
	bool del;

	(void) arg;
	if (!rec)
		return;
	if (failed) {
		emu_store_del(e, BATCH_KIND, opname);
		return;
	}
	del = !strcmp(mdc_json_get_str(rec, "verb", ""), "batchDelete");
	names = mdc_json_get_arr(rec, "names");
	resp = json_object_new_object();
	jobs = json_object_new_array();
	pr_set_str(resp, "@type", mdc_json_get_str(rec, "response_type", ""));
	for (size_t i = 0; names && i < json_object_array_length(names); i++) {
		const char *n = json_object_get_string(json_object_array_get_idx(names, i));
		json_object *job = emu_store_get(e, PJ_KIND, n);

		if (!job)
			continue;
		if (del) {
			json_object_array_add(jobs, mdc_json_copy(job));
			emu_store_del(e, PJ_KIND, n);
			emu_store_del(e, ACTIVE_KIND, n);
		} else {
			pj_cancel_one(e, n);
			json_object_array_add(jobs, mdc_json_copy(emu_store_get(e, PJ_KIND, n)));
		}
	}
	json_object_object_add(resp, "pipeline_jobs", jobs);
	json_object_object_add(op, "response", resp);
	emu_store_del(e, BATCH_KIND, opname);
}

static int pj_batch(struct emu *e, struct emu_request *r, const struct pr_path *p,
		    struct emu_response *out)
{
	bool del = !strcmp(p->verb, "batchDelete");
	json_object *names = mdc_json_get_arr(r->body, "names"), *canon, *op, *rec;
	struct emu_op_spec spec = { 0 };
	struct pr_tbuf mt, rt;
	size_t n = names ? json_object_array_length(names) : 0;

	if (!n)
		return emu_reply_bad_field(out, "names", "names is required: the pipeline jobs "
					   "to %s", del ? "delete" : "cancel");
	if (n > PJ_BATCH_MAX)
		return emu_reply_bad_field(out, "names", "at most %d pipeline jobs in a batch, "
					   "not %zu", PJ_BATCH_MAX, n);
	canon = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(names, i), *job;
		char buf[1024], prefix[600];
		const char *nm;

		if (!json_object_is_type(v, json_type_string)) {
			json_object_put(canon);
			return emu_reply_bad_field(out, "names", "names[%zu] is not a string", i);
		}
		nm = pr_canon(e, json_object_get_string(v), buf, sizeof(buf));
		snprintf(prefix, sizeof(prefix), "%s" PJ_COLL "/", p->parent);
		if (!mdc_startswith(nm, prefix)) {
			json_object_put(canon);
			return emu_reply_bad_field(out, "names", "'%s' is not a pipeline job under "
						   "'%s'", json_object_get_string(v), p->parent);
		}
		if (!(job = emu_store_get(e, PJ_KIND, nm))) {
			json_object_put(canon);
			return emu_reply_error(out, "NOT_FOUND", "pipeline job '%s' not found", nm);
		}
		/* the operation is atomic: one running job refuses the whole batch */
		if (del && !mdc_pipeline_terminal(mdc_json_get_str(job, "state", ""))) {
			json_object_put(canon);
			return emu_reply_error(out, "FAILED_PRECONDITION", "pipeline job '%s' is %s: "
					       "only a finished job can be deleted (cancel it first); "
					       "nothing was deleted", nm,
					       mdc_json_get_str(job, "state", ""));
		}
		json_object_array_add(canon, json_object_new_string(nm));
	}
	spec.parent = p->parent;
	spec.metadata_type = pr_type(r, del ? "DeleteOperationMetadata" :
				     "BatchCancelPipelineJobsOperationMetadata", &mt);
	spec.progress = del ? "Deleting pipeline jobs" : "Cancelling pipeline jobs";
	spec.res_name = p->parent;
	spec.done = pj_batch_done;
	if (!(op = emu_op_start(e, &spec))) {
		json_object_put(canon);
		return emu_reply_error(out, "INTERNAL", "out of memory");
	}
	rec = json_object_new_object();
	pr_set_str(rec, "verb", p->verb);
	pr_set_str(rec, "response_type", pr_type(r, del ? "BatchDeletePipelineJobsResponse" :
						 "BatchCancelPipelineJobsResponse", &rt));
	json_object_object_add(rec, "names", canon);
	emu_store_put(e, BATCH_KIND, mdc_json_get_str(op, "name", ""), rec);
	return emu_reply(out, 200, op);
}

struct pj_sortable {
	json_object *job;
	const struct mdc_pipeline_order *order;
};

static int pj_cmp(const void *a, const void *b)
{
	const struct pj_sortable *x = a, *y = b;

	return mdc_pipeline_order_cmp(x->order, x->job, y->job);
}

/* ListPipelineJobs with filter, order_by and read_mask */
static int pj_list(struct emu *e, struct emu_request *r, const struct pr_path *p,
		   struct emu_response *out)
{
	const char *filter = mdc_json_get_str(r->query, "filter", NULL);
	const char *order_by = mdc_json_get_str(r->query, "order_by", NULL);
	const char *read_mask = mdc_json_get_str(r->query, "read_mask", NULL);
	struct mdc_pipeline_filter *f = NULL;
	struct mdc_pipeline_order order;
	struct pj_sortable *v = NULL;
	json_object *all, *items = NULL;
	struct mdc_ctx ctx;
	char prefix[600];
	size_t n, k = 0;

	mdc_ctx_clear(&ctx);
	if (mdc_pipeline_filter_parse(filter, &f, &ctx))
		return emu_reply_bad_field(out, "filter", "%s", ctx.msg);
	if (mdc_pipeline_order_parse(order_by, &order, &ctx)) {
		mdc_pipeline_filter_free(f);
		return emu_reply_bad_field(out, "order_by", "%s", ctx.msg);
	}
	if (read_mask && *read_mask && mdc_pipeline_read_mask(read_mask, NULL, &items, &ctx)) {
		mdc_pipeline_filter_free(f);
		return emu_reply_bad_field(out, "read_mask", "%s", ctx.msg);
	}
	json_object_put(items);
	snprintf(prefix, sizeof(prefix), "%s" PJ_COLL "/", p->parent);
	all = emu_store_list(e, PJ_KIND, prefix);
	n = all ? json_object_array_length(all) : 0;
	v = calloc(n ? n : 1, sizeof(*v));
	items = json_object_new_array();
	if (!v || !items) {
		free(v);
		json_object_put(items);
		json_object_put(all);
		mdc_pipeline_filter_free(f);
		return emu_reply_error(out, "INTERNAL", "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		json_object *job = json_object_array_get_idx(all, i);

		if (mdc_pipeline_filter_match(f, job)) {
			v[k].job = job;
			v[k++].order = &order;
		}
	}
	qsort(v, k, sizeof(*v), pj_cmp);
	for (size_t i = 0; i < k; i++) {
		json_object *masked = NULL;

		if (read_mask && *read_mask) {
			mdc_pipeline_read_mask(read_mask, v[i].job, &masked, &ctx);
			json_object_array_add(items, masked);
		} else {
			json_object_array_add(items, json_object_get(v[i].job));
		}
	}
	free(v);
	json_object_put(all);
	mdc_pipeline_filter_free(f);
	return pr_reply_page(out, r, items, "pipeline_jobs");
}

static int pj_route(struct emu *e, struct emu_request *r, const struct pr_path *p,
		    struct emu_response *out)
{
	struct emu_op_spec spec = { 0 };
	struct pr_tbuf mt;
	json_object *job, *op;
	const char *state;

	if (!p->id[0] && p->verb[0]) {
		if (strcmp(r->method, "POST") ||
		    (strcmp(p->verb, "batchDelete") && strcmp(p->verb, "batchCancel")))
			return emu_reply_error(out, "NOT_FOUND", "no method %s '%s' on pipeline "
					       "jobs: use POST :batchDelete or :batchCancel",
					       r->method, p->verb);
		return pj_batch(e, r, p, out);
	}
	if (!p->id[0]) {
		if (!strcmp(r->method, "POST"))
			return pj_create(e, r, p, out);
		if (!strcmp(r->method, "GET"))
			return pj_list(e, r, p, out);
		return emu_reply_error(out, "UNIMPLEMENTED", "%s is not supported on '%s'",
				       r->method, r->path);
	}
	if (!(job = emu_store_get(e, PJ_KIND, p->name)))
		return emu_reply_error(out, "NOT_FOUND", "pipeline job '%s' not found", p->name);
	state = mdc_json_get_str(job, "state", "");
	if (!strcmp(r->method, "GET") && !p->verb[0])
		return emu_reply(out, 200, mdc_json_copy(job));
	if (!strcmp(r->method, "POST") && !strcmp(p->verb, "cancel")) {
		if (mdc_pipeline_terminal(state))
			return emu_reply_error(out, "FAILED_PRECONDITION", "pipeline job '%s' "
					       "is already %s", p->name, state);
		pj_cancel_one(e, p->name);
		return emu_reply(out, 200, json_object_new_object());
	}
	if (!strcmp(r->method, "DELETE") && !p->verb[0]) {
		if (!mdc_pipeline_terminal(state))
			return emu_reply_error(out, "FAILED_PRECONDITION", "pipeline job '%s' is %s: "
					       "only a finished job can be deleted (cancel it first)",
					       p->name, state);
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

/* The query parameters each method's request message defines (the proto's
 * fields outside the path and body); anything else is refused, as the
 * service's transcoding does (filter on persistentResources.list, say). */
static const char *const pr_list_params[] = { "page_size", "page_token", NULL };
static const char *const pr_create_params[] = { "persistent_resource_id", NULL };
static const char *const pr_patch_params[] = { "update_mask", NULL };
static const char *const pj_list_params[] = {
	"filter", "order_by", "page_size", "page_token", "read_mask", NULL,
};
static const char *const pj_create_params[] = { "pipeline_job_id", NULL };

static const char *const *pr_params(const struct emu_request *r, const struct pr_path *p, bool pj)
{
	bool get = !strcmp(r->method, "GET"), post = !strcmp(r->method, "POST");

	if (!p->id[0] && !p->verb[0])
		return get ? (pj ? pj_list_params : pr_list_params) :
		       post ? (pj ? pj_create_params : pr_create_params) : NULL;
	if (!pj && p->id[0] && !p->verb[0] && !strcmp(r->method, "PATCH"))
		return pr_patch_params;
	return NULL;
}

int emu_pr_route(struct emu *e, struct emu_request *r, struct emu_response *out)
{
	const char *orig = r->name;
	struct pr_path p;
	char canon[1024];
	int rc;

	pj_tick(e);
	r->name = pr_canon(e, r->name, canon, sizeof(canon));
	if (strstr(r->name, PR_COLL)) {
		if (!pr_split(r->name, PR_COLL, &p))
			rc = emu_reply_error(out, "NOT_FOUND", "no route for %s '%s': expected "
					     "projects/P/locations/L/persistentResources[/ID]",
					     r->method, r->path);
		else if (!(rc = emu_unknown_params(r, pr_params(r, &p, false), out)))
			rc = pr_route_resource(e, r, &p, out);
		else
			rc = 0;
	} else if (!pr_split(r->name, PJ_COLL, &p)) {
		rc = emu_reply_error(out, "NOT_FOUND", "no route for %s '%s': expected "
				     "projects/P/locations/L/pipelineJobs[/ID]", r->method, r->path);
	} else if (!(rc = emu_unknown_params(r, pr_params(r, &p, true), out))) {
		rc = pj_route(e, r, &p, out);
	} else {
		rc = 0;
	}
	r->name = orig;
	return rc;
}

/* --- operations by location, project numbers --------------------------------- */

json_object *emu_pr_op_find(struct emu *e, const char *name)
{
	char canon[1024], prefix[600], suffix[64];
	const char *ops, *id;
	json_object *all, *found = NULL;

	pr_canon(e, name, canon, sizeof(canon));
	if ((found = emu_op_get(e, canon)))
		return found;
	/* a cluster's operation is named with the project's number */
	{
		char num[1024];

		if ((found = emu_op_get(e, pr_numbered(e, canon, false, num, sizeof(num)))))
			return found;
	}
	/* projects/P/locations/L/operations/ID: the ID is unique in the emulator */
	if (!(ops = strstr(canon, "/operations/")) || strchr(ops + 12, '/'))
		return NULL;
	{
		struct mdc_strv parts = MDC_STRV_INIT;
		bool loc;

		mdc_strv_split(&parts, canon, "/");
		loc = parts.n == 6 && !strcmp(parts.v[0], "projects") &&
		      !strcmp(parts.v[2], "locations");
		mdc_strv_free(&parts);
		if (!loc)
			return NULL;
	}
	/* found before: one lookup (a trimmed operation drops its alias) */
	{
		const char *alias = mdc_json_get_str(emu_store_get(e, OPLOC_KIND, canon), "name", NULL);

		if (alias && (found = emu_op_get(e, alias)))
			return found;
		if (alias)
			emu_store_del(e, OPLOC_KIND, canon);
	}
	id = ops + 12;
	snprintf(prefix, sizeof(prefix), "%.*s/", (int) (ops - canon), canon);
	snprintf(suffix, sizeof(suffix), "/operations/%s", id);
	all = emu_store_list(e, "operation", prefix);
	for (size_t i = 0; all && i < json_object_array_length(all); i++) {
		const char *n = mdc_json_get_str(json_object_array_get_idx(all, i), "name", "");

		if (strlen(n) > strlen(suffix) && !strcmp(n + strlen(n) - strlen(suffix), suffix)) {
			json_object *rec = json_object_new_object();

			found = emu_op_get(e, n);
			pr_set_str(rec, "name", n);
			emu_store_put(e, OPLOC_KIND, canon, rec);
			break;
		}
	}
	json_object_put(all);
	return found;
}

/* --- /emulator/v1: test control ------------------------------------------------- */

int emu_pr_control(struct emu *e, struct emu_request *r, struct emu_response *out)
{
	const char *path = r->path;
	json_object *res;
	char canon[1024];

	if (!strcmp(path, "/emulator/v1/persistentResources:capacity")) {
		const char *name;
		json_object *cap, *v;

		pj_tick(e);
		name = pr_canon(e, mdc_json_get_str(r->body ? r->body : r->query, "name", NULL),
				canon, sizeof(canon));
		if (!*name)
			return emu_reply_bad_field(out, "name", "give the persistent resource's "
						   "full name in 'name'");
		if (!strcmp(r->method, "GET")) {
			res = mdc_json_copy(emu_store_get(e, CAP_KIND, name));
			if (!res)
				res = json_object_new_object();
			pr_set_str(res, "name", name);
			{
				struct pj_sim sim;

				pj_sim_borrow(e, &sim);
				json_object_object_add(res, "free_replicas",
						       json_object_new_int64(pj_free(&sim, name)));
				free(sim.jobs);
			}
			return emu_reply(out, 200, res);
		}
		if (strcmp(r->method, "POST"))
			return emu_reply_error(out, "NOT_FOUND", "use GET or POST on '%s'", path);
		cap = mdc_json_copy(emu_store_get(e, CAP_KIND, name));
		if (!cap)
			cap = json_object_new_object();
		if ((v = mdc_json_get(r->body, "available"))) {
			if (!json_object_is_type(v, json_type_boolean)) {
				json_object_put(cap);
				return emu_reply_bad_field(out, "available", "'available' must be "
							   "true or false");
			}
			json_object_object_add(cap, "available", json_object_get(v));
		}
		if ((v = mdc_json_get(r->body, "busy_replicas"))) {
			if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
				json_object_put(cap);
				return emu_reply_bad_field(out, "busy_replicas", "'busyReplicas' must "
							   "be an integer >= 0");
			}
			json_object_object_add(cap, "busy_replicas", json_object_get(v));
		}
		emu_store_put(e, CAP_KIND, name, cap);
		pj_tick(e);	/* waiting tasks take what became free, now */
		res = mdc_json_copy(cap);
		pr_set_str(res, "name", name);
		return emu_reply(out, 200, res);
	}
	if (!strcmp(path, "/emulator/v1/pipelineJobs:timing")) {
		static const char *const keys[] = { "pending_ms", "task_ms", "cancel_ms", NULL };
		struct pj_timing tm;

		pj_tick(e);
		if (!strcmp(r->method, "POST")) {
			json_object *c = mdc_json_copy(emu_store_get(e, TIMING_KIND, "timing"));

			if (!c)
				c = json_object_new_object();
			if (r->body && json_object_is_type(r->body, json_type_object)) {
				json_object_object_foreach(r->body, k, v) {
					size_t i;

					for (i = 0; keys[i] && strcmp(k, keys[i]); i++)
						;
					if (!keys[i] || !json_object_is_type(v, json_type_int) ||
					    json_object_get_int64(v) < 0) {
						json_object_put(c);
						return emu_reply_bad_field(out, k, "'%s': give pendingMs, "
									   "taskMs or cancelMs as "
									   "milliseconds >= 0", k);
					}
					json_object_object_add(c, k, json_object_get(v));
				}
			}
			emu_store_put(e, TIMING_KIND, "timing", c);
		}
		pj_timing(e, &tm);
		res = json_object_new_object();
		json_object_object_add(res, "pending_ms", json_object_new_int64((int64_t) (tm.pending * 1000 + 0.5)));
		json_object_object_add(res, "task_ms", json_object_new_int64((int64_t) (tm.task * 1000 + 0.5)));
		json_object_object_add(res, "cancel_ms", json_object_new_int64((int64_t) (tm.cancel * 1000 + 0.5)));
		return emu_reply(out, 200, res);
	}
	if (mdc_startswith(path, "/emulator/v1/projects/") && !strcmp(r->method, "GET")) {
		const char *id = path + strlen("/emulator/v1/projects/");
		char num[32];

		if (!*id || strchr(id, '/'))
			return emu_reply_error(out, "NOT_FOUND", "use GET /emulator/v1/projects/ID");
		res = json_object_new_object();
		if (pr_all_digits(id, strlen(id))) {
			const char *pid = mdc_json_get_str(emu_store_get(e, PROJ_KIND, id),
							   "project_id", NULL);

			if (!pid) {
				json_object_put(res);
				return emu_reply_error(out, "NOT_FOUND", "project number %s is not "
						       "known to the emulator", id);
			}
			pr_set_str(res, "project_id", pid);
			pr_set_str(res, "project_number", id);
		} else {
			snprintf(num, sizeof(num), "%llu", pr_project_number(id));
			pr_set_str(res, "project_id", id);
			pr_set_str(res, "project_number", num);
		}
		return emu_reply(out, 200, res);
	}
	return 1;
}
