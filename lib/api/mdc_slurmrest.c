/* mdc_slurmrest.c - reads of the live cluster through callSlurmRestApi
 * (see mdc_slurmrest.h).  (owner: slurmrest)
 */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mdc_buf.h"
#include "mdc_log.h"
#include "mdc_slurmrest.h"
#include "mdc_str.h"

/* The data parsers the tools know, newest first: the first the cluster
 * pings on is used (22.05 has v0.0.38; 24.11 v0.0.40 to v0.0.42). */
static const char *const sr_versions[] = {
	"v0.0.43", "v0.0.42", "v0.0.41", "v0.0.40", "v0.0.39", "v0.0.38",
};
#define SR_NVERSIONS (sizeof(sr_versions) / sizeof(sr_versions[0]))

/* The reads: path tail after /slurm/VERSION/ and the answer's array. */
static const struct { enum mdc_slurmrest_what what; const char *tail, *items; } sr_reads[] = {
	{ MDC_SR_PING, "ping", "pings" },
	{ MDC_SR_PARTITIONS, "partitions", "partitions" },
	{ MDC_SR_NODES, "nodes", "nodes" },
	{ MDC_SR_JOBS, "jobs", "jobs" },
};
#define SR_NREADS (sizeof(sr_reads) / sizeof(sr_reads[0]))

bool mdc_slurmrest_path_allowed(const char *path)
{
	const char *p;

	if (!path || !mdc_startswith(path, "/slurm/"))
		return false;
	p = path + strlen("/slurm/");
	for (size_t v = 0; v < SR_NVERSIONS; v++) {
		size_t n = strlen(sr_versions[v]);

		if (strncmp(p, sr_versions[v], n) || p[n] != '/')
			continue;
		for (size_t r = 0; r < SR_NREADS; r++)
			if (!strcmp(p + n + 1, sr_reads[r].tail))
				return true;
	}
	return false;
}

/* slurmrestd's first error, for a message: "Invalid job id specified" */
static const char *sr_first_error(const json_object *body)
{
	json_object *errs, *e, *d;

	if (!json_object_object_get_ex(body, "errors", &errs) ||
	    !json_object_is_type(errs, json_type_array) || !json_object_array_length(errs))
		return "no error detail";
	e = json_object_array_get_idx(errs, 0);
	if (json_object_object_get_ex(e, "description", &d) && json_object_get_string_len(d))
		return json_object_get_string(d);
	if (json_object_object_get_ex(e, "error", &d) && json_object_get_string_len(d))
		return json_object_get_string(d);
	return "no error detail";
}

/* The call itself; *STATUS slurmrestd's status, *BODY its JSON or NULL. */
static int sr_call(struct mdc_slurmrest *sr, const char *path, int *status, json_object **body,
		   struct mdc_ctx *ctx)
{
	struct mdc_buf url = MDC_BUF_INIT;
	json_object *req, *resp = NULL, *st = NULL, *sb = NULL;
	int rc;

	*body = NULL;
	if (!mdc_slurmrest_path_allowed(path))
		return mdc_fail(ctx, MDC_ERR_REFUSED, "Slurm REST path '%.200s' refused: only the "
				"read-only paths mdcctl uses are sent (/slurm/VERSION/ping, "
				"partitions, nodes, jobs)", path);
	req = json_object_new_object();
	if (!req || json_object_object_add(req, "method", json_object_new_string("HTTP_METHOD_GET")) ||
	    json_object_object_add(req, "path", json_object_new_string(path)) ||
	    mdc_buf_addf(&url, "v1beta1/%s:callSlurmRestApi", sr->cluster)) {
		json_object_put(req);
		mdc_buf_free(&url);
		return mdc_nomem(ctx);
	}
	mdc_debug("callSlurmRestApi GET %s", path);
	rc = mdc_api_call(sr->client, "POST", url.s, NULL, req, &resp, ctx);
	json_object_put(req);
	mdc_buf_free(&url);
	if (rc)
		return rc;
	if (!json_object_object_get_ex(resp, "status", &st) || !json_object_is_type(st, json_type_int)) {
		json_object_put(resp);
		return mdc_fail(ctx, MDC_ERR_API, "callSlurmRestApi GET %s: no status in the answer",
				path);
	}
	*status = json_object_get_int(st);
	if (json_object_object_get_ex(resp, "structured_body", &sb) &&
	    json_object_is_type(sb, json_type_object))
		*body = json_object_get(sb);
	json_object_put(resp);
	return 0;
}

int mdc_slurmrest_get_path(struct mdc_slurmrest *sr, const char *path, json_object **body,
			   struct mdc_ctx *ctx)
{
	int status = 0, rc;

	*body = NULL;
	if ((rc = sr_call(sr, path, &status, body, ctx)))
		return rc;
	if (status == 200 && *body)
		return 0;
	rc = mdc_fail(ctx, MDC_ERR_API, "slurmrestd answered %d to GET %s: %s", status, path,
		      *body ? sr_first_error(*body) : "no JSON body");
	json_object_put(*body);
	*body = NULL;
	return rc;
}

/* The release slurmrestd's meta names: "meta": {"slurm": {"release":
 * "24.11.5"}} (v0.0.39 on; v0.0.38 spells it "Slurm"). */
static void sr_release(const json_object *body, char *buf, size_t size)
{
	static const char *const keys[] = { "slurm", "Slurm" };
	json_object *meta = NULL, *sl = NULL, *r = NULL;

	buf[0] = '\0';
	if (!json_object_object_get_ex(body, "meta", &meta))
		return;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_object_object_get_ex(meta, keys[i], &sl) &&
		    json_object_object_get_ex(sl, "release", &r) &&
		    json_object_is_type(r, json_type_string)) {
			snprintf(buf, size, "%s", json_object_get_string(r));
			return;
		}
}

int mdc_slurmrest_open(struct mdc_client *c, const char *cluster, struct mdc_slurmrest *sr,
		       struct mdc_ctx *ctx)
{
	char path[64];
	int rc;

	memset(sr, 0, sizeof(*sr));
	sr->client = c;
	if (!(sr->cluster = strdup(cluster)))
		return mdc_nomem(ctx);
	for (size_t v = 0; v < SR_NVERSIONS; v++) {
		json_object *body = NULL;
		int status = 0;

		snprintf(path, sizeof(path), "/slurm/%s/ping", sr_versions[v]);
		if ((rc = sr_call(sr, path, &status, &body, ctx))) {
			mdc_slurmrest_close(sr);
			return rc;
		}
		if (status == 200)
			sr_release(body, sr->release, sizeof(sr->release));
		json_object_put(body);
		if (status == 200) {
			snprintf(sr->version, sizeof(sr->version), "%s", sr_versions[v]);
			mdc_debug("callSlurmRestApi: data parser %s", sr->version);
			return 0;
		}
	}
	mdc_slurmrest_close(sr);
	return mdc_fail(ctx, MDC_ERR_NOTFOUND, "the cluster's slurmrestd answers no data parser "
			"mdcctl knows (pinged %s to %s)", sr_versions[0], sr_versions[SR_NVERSIONS - 1]);
}

void mdc_slurmrest_close(struct mdc_slurmrest *sr)
{
	free(sr->cluster);
	sr->cluster = NULL;
}

int mdc_slurmrest_get(struct mdc_slurmrest *sr, enum mdc_slurmrest_what what, json_object **items,
		      struct mdc_ctx *ctx)
{
	json_object *body = NULL, *arr;
	char path[64];
	int rc;

	*items = NULL;
	for (size_t r = 0; r < SR_NREADS; r++) {
		if (sr_reads[r].what != what)
			continue;
		snprintf(path, sizeof(path), "/slurm/%s/%s", sr->version, sr_reads[r].tail);
		if ((rc = mdc_slurmrest_get_path(sr, path, &body, ctx)))
			return rc;
		if (!json_object_object_get_ex(body, sr_reads[r].items, &arr) ||
		    !json_object_is_type(arr, json_type_array)) {
			json_object_put(body);
			return mdc_fail(ctx, MDC_ERR_API, "slurmrestd's answer to GET %s has no '%s' list",
					path, sr_reads[r].items);
		}
		*items = json_object_get(arr);
		json_object_put(body);
		return 0;
	}
	return mdc_fail(ctx, MDC_ERR_INTERNAL, "unknown Slurm REST read %d", (int) what);
}

const char *mdc_slurmrest_state(const json_object *v, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	if (json_object_is_type(v, json_type_string)) {
		snprintf(buf, size, "%s", json_object_get_string((json_object *) v));
	} else if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v) && len + 1 < size; i++) {
			int n = snprintf(buf + len, size - len, "%s%s", i ? "+" : "",
					 json_object_get_string(json_object_array_get_idx(v, i)));

			if (n < 0)
				break;
			len += (size_t) n;
		}
	}
	/* no control bytes from the cluster on a terminal */
	for (char *c = buf; *c; c++)
		if (iscntrl((unsigned char) *c))
			*c = '?';
	return buf;
}

/* Job states that no longer hold a partition (as mdc_live.c's). */
static const char *const sr_done_states[] = {
	"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
	"BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY",
};

int mdc_slurmrest_partition_jobs(struct mdc_slurmrest *sr, const char *partition,
				 struct mdc_strv *jobs, struct mdc_ctx *ctx)
{
	json_object *list = NULL;
	int rc;

	if ((rc = mdc_slurmrest_get(sr, MDC_SR_JOBS, &list, ctx)))
		return rc;
	rc = mdc_slurmrest_jobs_in(list, partition, jobs, ctx);
	json_object_put(list);
	return rc;
}

int mdc_slurmrest_jobs_in(const json_object *list, const char *partition, struct mdc_strv *jobs,
			  struct mdc_ctx *ctx)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < json_object_array_length(list); i++) {
		json_object *job = json_object_array_get_idx(list, i), *v, *part;
		struct mdc_strv parts = MDC_STRV_INIT;
		char state[64];
		bool done = false;
		long long id;

		json_object_object_get_ex(job, "job_state", &v);
		mdc_slurmrest_state(v, state, sizeof(state));
		/* a later parser's list ("PENDING+REQUEUED"): its first word */
		state[strcspn(state, "+")] = '\0';
		for (size_t k = 0; k < sizeof(sr_done_states) / sizeof(sr_done_states[0]); k++)
			done |= !strcmp(state, sr_done_states[k]);
		if (done || !json_object_object_get_ex(job, "partition", &part) ||
		    !json_object_is_type(part, json_type_string))
			continue;
		id = json_object_object_get_ex(job, "job_id", &v) ? json_object_get_int64(v) : 0;
		/* a pending job may name several partitions ("a,b") */
		if (mdc_strv_split(&parts, json_object_get_string(part), ","))
			rc = mdc_nomem(ctx);
		else if (mdc_strv_has(&parts, partition) &&
			 mdc_strv_pushf(jobs, "%lld (%s)", id, state[0] ? state : "?"))
			rc = mdc_nomem(ctx);
		mdc_strv_free(&parts);
	}
	return rc;
}

/* How a partition field of slurmrestd reads as scontrol shows the key. */
enum sr_conv {
	SR_STR,		/* as is */
	SR_INT,
	SR_LIMIT,	/* -1 or null: UNLIMITED */
	SR_DEFTIME,	/* minutes; null: NONE */
	SR_ALL,		/* "": ALL */
	SR_QOS,		/* "": N/A */
	SR_FLAG,	/* YES when FLAG is in "flags" */
};
static const struct { const char *key, *field; enum sr_conv conv; } sr_part_keys[] = {
	{ "Nodes", "nodes", SR_STR },
	{ "State", "state", SR_STR },
	{ "MaxTime", "max_time_limit", SR_LIMIT },
	{ "DefaultTime", "default_time_limit", SR_DEFTIME },
	{ "MaxNodes", "maximum_nodes_per_job", SR_LIMIT },
	{ "MaxCPUsPerNode", "maximum_cpus_per_node", SR_LIMIT },
	{ "PriorityTier", "priority_tier", SR_INT },
	{ "PriorityJobFactor", "priority_job_factor", SR_INT },
	{ "GraceTime", "preemption_grace_time", SR_INT },
	{ "AllowGroups", "allowed_groups", SR_ALL },
	{ "AllowAccounts", "allowed_accounts", SR_ALL },
	{ "AllowQos", "allowed_qos", SR_ALL },
	{ "DenyAccounts", "denied_accounts", SR_STR },
	{ "DenyQos", "denied_qos", SR_STR },
	{ "QOS", "qos", SR_QOS },
	{ "Alternate", "alternative", SR_STR },
	{ "TRESBillingWeights", "billing_weights", SR_STR },
	{ "Default", "default", SR_FLAG },
	{ "Hidden", "hidden", SR_FLAG },
	{ "RootOnly", "root_only", SR_FLAG },
	{ "ExclusiveUser", "exclusive_user", SR_FLAG },
};

/* The value of one key into BUF, or NULL when the answer does not hold it. */
static const char *sr_part_value(const json_object *p, size_t k, char *buf, size_t size)
{
	json_object *v = NULL, *flags;
	bool has;

	if (sr_part_keys[k].conv == SR_FLAG) {
		if (!json_object_object_get_ex(p, "flags", &flags) ||
		    !json_object_is_type(flags, json_type_array))
			return NULL;
		has = false;
		for (size_t i = 0; i < json_object_array_length(flags); i++)
			has |= !strcmp(json_object_get_string(json_object_array_get_idx(flags, i)),
				       sr_part_keys[k].field);
		return has ? "YES" : "NO";
	}
	if (!json_object_object_get_ex(p, sr_part_keys[k].field, &v))
		return NULL;
	switch (sr_part_keys[k].conv) {
	case SR_STR:
	case SR_ALL:
	case SR_QOS:
		if (!json_object_is_type(v, json_type_string))
			return NULL;
		if (!json_object_get_string_len(v) && sr_part_keys[k].conv != SR_STR)
			return sr_part_keys[k].conv == SR_ALL ? "ALL" : "N/A";
		mdc_slurmrest_state(v, buf, size);
		return buf;
	case SR_INT:
	case SR_LIMIT:
	case SR_DEFTIME:
		if (!v)		/* JSON null */
			return sr_part_keys[k].conv == SR_INT ? NULL :
			       sr_part_keys[k].conv == SR_LIMIT ? "UNLIMITED" : "NONE";
		if (!json_object_is_type(v, json_type_int))
			return NULL;	/* a later parser's {set, infinite, number} */
		if (sr_part_keys[k].conv == SR_LIMIT && json_object_get_int64(v) < 0)
			return "UNLIMITED";
		snprintf(buf, size, "%lld", (long long) json_object_get_int64(v));
		return buf;
	case SR_FLAG:
		break;
	}
	return NULL;
}

int mdc_slurmrest_partition_recs(struct mdc_slurmrest *sr, struct mdc_recs *out,
				 struct mdc_ctx *ctx)
{
	json_object *list = NULL;
	int rc;

	if ((rc = mdc_slurmrest_get(sr, MDC_SR_PARTITIONS, &list, ctx)))
		return rc;
	rc = mdc_slurmrest_recs_of(list, out, ctx);
	json_object_put(list);
	return rc;
}

/* A new empty record at the end of OUT (NULL on ENOMEM). */
static struct mdc_kvs *sr_rec_new(struct mdc_recs *out)
{
	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 8;
		struct mdc_kvs *v = realloc(out->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		out->v = v;
		out->cap = cap;
	}
	memset(&out->v[out->n], 0, sizeof(out->v[0]));
	return &out->v[out->n++];
}

int mdc_slurmrest_recs_of(const json_object *list, struct mdc_recs *out, struct mdc_ctx *ctx)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < json_object_array_length(list); i++) {
		json_object *p = json_object_array_get_idx(list, i), *name;
		struct mdc_kvs *rec;
		char buf[256];

		if (!json_object_object_get_ex(p, "name", &name) ||
		    !json_object_is_type(name, json_type_string))
			continue;
		if (!(rec = sr_rec_new(out)) ||
		    mdc_kvs_add(rec, "PartitionName", json_object_get_string(name)))
			rc = mdc_nomem(ctx);
		for (size_t k = 0; !rc && k < sizeof(sr_part_keys) / sizeof(sr_part_keys[0]); k++) {
			const char *val = sr_part_value(p, k, buf, sizeof(buf));

			if (val && mdc_kvs_add(rec, sr_part_keys[k].key, val))
				rc = mdc_nomem(ctx);
		}
	}
	return rc;
}

int mdc_slurmrest_node_recs_of(const json_object *list, struct mdc_recs *out, struct mdc_ctx *ctx)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < json_object_array_length(list); i++) {
		json_object *n = json_object_array_get_idx(list, i), *name, *v, *flags;
		struct mdc_kvs *rec;
		char state[128], flag[64];
		size_t len;

		if (!json_object_object_get_ex(n, "name", &name) ||
		    !json_object_is_type(name, json_type_string))
			continue;
		json_object_object_get_ex(n, "state", &v);
		mdc_slurmrest_state(v, state, sizeof(state));
		/* 22.05's "idle" and state_flags ["DRAIN"]: scontrol's IDLE+DRAIN */
		if (json_object_object_get_ex(n, "state_flags", &flags) &&
		    json_object_is_type(flags, json_type_array) && json_object_array_length(flags)) {
			len = strlen(state);
			snprintf(state + len, sizeof(state) - len, "+%s",
				 mdc_slurmrest_state(flags, flag, sizeof(flag)));
		}
		for (char *c = state; *c; c++)
			*c = (char) toupper((unsigned char) *c);
		if (!(rec = sr_rec_new(out)) ||
		    mdc_kvs_add(rec, "NodeName", json_object_get_string(name)) ||
		    (state[0] && mdc_kvs_add(rec, "State", state))) {
			rc = mdc_nomem(ctx);
			break;
		}
		if (json_object_object_get_ex(n, "reason", &v) && json_object_get_string_len(v)) {
			json_object *who = NULL, *when = NULL;
			char reason[512];

			mdc_slurmrest_state(v, reason, sizeof(reason));
			/* scontrol's "REASON [USER@TIME]", TIME local as it prints it */
			json_object_object_get_ex(n, "reason_set_by_user", &who);
			json_object_object_get_ex(n, "reason_changed_at", &when);
			if (json_object_is_type(who, json_type_string) && json_object_get_string_len(who) &&
			    json_object_is_type(when, json_type_int) && json_object_get_int64(when) > 0) {
				time_t t = (time_t) json_object_get_int64(when);
				struct tm tm;
				char ts[32];

				localtime_r(&t, &tm);
				strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
				len = strlen(reason);
				snprintf(reason + len, sizeof(reason) - len, " [%s@%s]",
					 mdc_slurmrest_state(who, flag, sizeof(flag)), ts);
			}
			if (mdc_kvs_add(rec, "Reason", reason))
				rc = mdc_nomem(ctx);
		}
	}
	return rc;
}

int mdc_slurmrest_node_recs(struct mdc_slurmrest *sr, struct mdc_recs *out, struct mdc_ctx *ctx)
{
	json_object *list = NULL;
	int rc;

	if ((rc = mdc_slurmrest_get(sr, MDC_SR_NODES, &list, ctx)))
		return rc;
	rc = mdc_slurmrest_node_recs_of(list, out, ctx);
	json_object_put(list);
	return rc;
}
