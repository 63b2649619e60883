/* cmd_remote.c - `mdcctl --remote jobs`: the cluster's queue read through
 * the service's Slurm REST API (lib/mdc_slurmrest.c), from a laptop or a
 * CI runner with no Slurm installed.  Parse and print only.
 * (owner: slurmrest)
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "mdc_settings.h"
#include "mdc_log.h"
#include "mdc_slurmrest.h"
#include "sc_release.h"
#include "mdcctl.h"

/* A field of a job as one printable string (into BUF). */
static const char *remote_field(const json_object *job, const char *key, char *buf, size_t size)
{
	json_object *v = NULL;

	json_object_object_get_ex(job, key, &v);
	if (json_object_is_type(v, json_type_int)) {
		snprintf(buf, size, "%lld", (long long) json_object_get_int64(v));
		return buf;
	}
	mdc_slurmrest_state(v, buf, size);
	if (!buf[0])
		snprintf(buf, size, "-");
	return buf;
}

/* The columns: JSON key of ours, slurmrestd's key, heading, width. */
static const struct { const char *key, *src, *head; int width; } remote_cols[] = {
	{ "job_id", "job_id", "JOBID", 10 },
	{ "partition", "partition", "PARTITION", 14 },
	{ "state", "job_state", "STATE", 10 },
	{ "user", "user_name", "USER", 10 },
	{ "nodes", "nodes", "NODES", 14 },
	{ "name", "name", "NAME", 0 },
};
#define REMOTE_NCOLS (sizeof(remote_cols) / sizeof(remote_cols[0]))

int mdcctl_jobs_remote(struct mdcctl *g)
{
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_slurmrest sr = { 0 };
	struct mdc_ctx ctx;
	json_object *jobs = NULL, *out = NULL, *list = NULL;
	char buf[256];
	int rc;

	mdc_ctx_clear(&ctx);
	if ((rc = mdcctl_connect(g, true, &s, &c, &ctx)) ||
	    (rc = mdc_slurmrest_open(c, s.cluster, &sr, &ctx)) ||
	    (rc = mdc_slurmrest_get(&sr, MDC_SR_JOBS, &jobs, &ctx)))
		goto out;
	if (g->format == MDCCTL_TEXT) {
		for (size_t k = 0; k < REMOTE_NCOLS; k++)
			printf(k + 1 < REMOTE_NCOLS ? "%-*s " : "%-*s\n", remote_cols[k].width,
			       remote_cols[k].head);
	} else if (!(out = json_object_new_object()) || !(list = json_object_new_array()) ||
		   json_object_object_add(out, "data_parser", json_object_new_string(sr.version)) ||
		   json_object_object_add(out, "jobs", json_object_get(list))) {
		rc = mdc_nomem(&ctx);
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *job = json_object_array_get_idx(jobs, i), *row = NULL;

		if (list && (!(row = json_object_new_object()) || json_object_array_add(list, row))) {
			json_object_put(row);
			rc = mdc_nomem(&ctx);
			goto out;
		}
		for (size_t k = 0; k < REMOTE_NCOLS; k++) {
			remote_field(job, remote_cols[k].src, buf, sizeof(buf));
			if (row)
				json_object_object_add(row, remote_cols[k].key, json_object_new_string(buf));
			else
				printf(k + 1 < REMOTE_NCOLS ? "%-*s " : "%-*s\n", remote_cols[k].width, buf);
		}
	}
	if (out)
		mdcctl_print_json(out);
out:
	rc = rc ? mdcctl_fail(g, &ctx) : 0;
	json_object_put(list);
	json_object_put(out);
	json_object_put(jobs);
	mdc_slurmrest_close(&sr);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

/* The guard's connection: a plan may ask about several partitions, and
 * choosing the data parser costs a few calls. */
static struct {
	bool open;
	struct mdc_settings s;
	struct mdc_client *c;
	struct mdc_slurmrest sr;
} remote_conn;

static int remote_open(struct mdcctl *g, struct mdc_ctx *ctx)
{
	int rc;

	if (remote_conn.open)
		return 0;
	if ((rc = mdcctl_connect(g, true, &remote_conn.s, &remote_conn.c, ctx)) ||
	    (rc = mdc_slurmrest_open(remote_conn.c, remote_conn.s.cluster, &remote_conn.sr, ctx))) {
		remote_conn.open = true;	/* so that close frees what was made */
		mdcctl_remote_close();
		return rc;
	}
	remote_conn.open = true;
	return 0;
}

int mdcctl_remote_partition_jobs(struct mdcctl *g, const char *partition, struct mdc_strv *jobs,
				 struct mdc_ctx *ctx)
{
	int rc = remote_open(g, ctx);

	return rc ? rc : mdc_slurmrest_partition_jobs(&remote_conn.sr, partition, jobs, ctx);
}

int mdcctl_remote_partitions(struct mdc_recs *out, void *arg, struct mdc_ctx *ctx)
{
	int rc = remote_open(arg, ctx);

	return rc ? rc : mdc_slurmrest_partition_recs(&remote_conn.sr, out, ctx);
}

int mdcctl_remote_nodes(struct mdc_recs *out, void *arg, struct mdc_ctx *ctx)
{
	int rc = remote_open(arg, ctx);

	return rc ? rc : mdc_slurmrest_node_recs(&remote_conn.sr, out, ctx);
}

int mdcctl_remote_probe(struct mdcctl *g, bool *live, struct mdc_ctx *ctx)
{
	struct mdc_ctx lctx;

	(void) ctx;
	mdc_ctx_clear(&lctx);
	*live = !remote_open(g, &lctx);
	return 0;
}

void mdcctl_remote_target(struct mdcctl *g)
{
	struct mdc_ctx lctx;
	int rel;

	mdc_ctx_clear(&lctx);
	if (remote_open(g, &lctx)) {
		mdc_debug("the cluster's release is not known: %s", lctx.msg);
		return;
	}
	if ((rel = sc_rel_parse(remote_conn.sr.release)) >= 0)
		sc_rel_set_target(rel, SC_REL_FROM_REMOTE);
	else
		mdc_debug("the cluster's slurmrestd names release '%s', none slurm-mdc knows",
			  remote_conn.sr.release);
}

void mdcctl_remote_close(void)
{
	if (!remote_conn.open)
		return;
	mdc_slurmrest_close(&remote_conn.sr);
	mdc_client_free(remote_conn.c);
	mdc_settings_free(&remote_conn.s);
	memset(&remote_conn, 0, sizeof(remote_conn));
}
