/* cmd_pipeline.c - `mdcctl pipelines run|describe|list|wait|cancel|delete`:
 * pipeline runs on a persistent resource (DESIGN P5).  The bodies and the
 * list query language are in lib/mdc_pipeline*.c, the REST calls and the
 * wait in lib/mdc_vertex.c; this file parses and prints.  (owner: pr) */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_pipeline.h"
#include "mdc_pipeline_filter.h"
#include "mdc_pr.h"
#include "cmd_vertex.h"

#define PJ_ONE "pipeline job (id or full name)"
#define PJ_DETAIL "runtime_config.default_runtime.persistent_resource_runtime_detail"

/* --- run ----------------------------------------------------------------- */

static const struct option pj_run_opts[] = {
	VX_COMMON_OPTS,
	{ "pipeline", required_argument, NULL, O_PIPELINE },
	{ "persistent-resource", required_argument, NULL, O_RESOURCE },
	{ "wait-time", required_argument, NULL, O_WAIT_TIME },
	{ "on-timeout", required_argument, NULL, O_ON_TIMEOUT },
	{ "pipeline-root", required_argument, NULL, O_ROOT },
	{ "parameter", required_argument, NULL, O_PARAM },
	{ "display-name", required_argument, NULL, O_DISPLAY_NAME },
	{ "job-id", required_argument, NULL, O_JOB_ID },
	{ "labels", required_argument, NULL, O_LABELS },
	{ "dry-run", no_argument, NULL, O_DRY_RUN },
	VX_END_OPTS,
};

static const struct vx_cmd pj_run_cmd = {
	"mdcctl pipelines run --pipeline=COMPILED.yaml --persistent-resource=ID|NAME\n"
	"         --wait-time=DURATION --on-timeout=fail|fall-back-to-on-demand\n"
	"         --pipeline-root=gs://BUCKET/DIR [--parameter=K=V]... [--display-name=N]\n"
	"         [--job-id=ID] [--labels=K=V,...] [--project=P] [--region=L]\n"
	"         [--dry-run] [--format=text|json]",
	pj_run_opts, "h", NULL,
};

/* Everything local first: the names, the file, the flags, the parameters.
 * 0, an error in R->ctx (-1 returned as the error), or a usage exit
 * status through *USAGE. */
static int pj_run_body(struct vx_run *r, char **rname, json_object **body, int *usage)
{
	struct mdc_pipeline_run_opts ro = {
		.pipeline_path = r->a.pipeline, .wait_time = r->a.wait_time,
		.on_timeout = r->a.on_timeout, .pipeline_root = r->a.root,
		.parameters = &r->a.params, .display_name = r->a.display_name,
		.labels = &r->a.labels,
	};
	int rc;

	*usage = -1;
	if ((rc = mdcctl_settings(r->g, false, &r->s, &r->ctx)) ||
	    (rc = mdc_pr_resource_name(r->s.project, r->s.region, r->a.resource, rname,
				       &r->ctx)) ||
	    (r->a.job_id && (rc = mdc_pipeline_check_job_id(r->a.job_id, &r->ctx))))
		return rc;
	if (!r->s.project || !r->s.region) {
		*usage = mdcctl_usage(r->g, "pipelines run: give --project and --region (the job "
				      "runs where the persistent resource is)");
		return 0;
	}
	ro.resource_name = *rname;
	return mdc_pipeline_body(&ro, body, &r->ctx);
}

/* P5: the resource must exist and run pipelines with a custom SA; the
 * body then names it as the service spells it (it may use the project
 * number). */
static int pj_run_resource(struct vx_run *r, const char *rname, json_object *body)
{
	json_object *res = NULL, *detail = mdc_json_get_path(body, PJ_DETAIL);
	const char *state, *canon;
	int rc;

	if ((rc = mdc_pipeline_resource(r->c, rname, &res, &r->ctx)))
		goto out;
	state = mdc_json_get_str(res, "state", "STATE_UNSPECIFIED");
	if (strcmp(state, "RUNNING"))
		mdc_warn("persistent resource '%s' is %s, not RUNNING: tasks wait for it up to "
			 "--wait-time", rname, state);
	canon = mdc_json_get_str(res, "name", NULL);
	if (canon && *canon && strcmp(canon, rname) && detail &&
	    json_object_object_add(detail, "persistent_resource_name",
				   json_object_new_string(canon)))
		rc = mdc_nomem(&r->ctx);
out:
	json_object_put(res);
	return rc;
}

/* The created job: its name, state and console link */
static int pj_run_print(struct vx_run *r, const json_object *job)
{
	const char *name = mdc_json_get_str(job, "name", NULL);
	char *link = mdc_pipeline_console_link(r->s.region, r->s.project, name ? name : "");
	json_object *summary = NULL;
	int rc = 0;

	if (!link)
		goto nomem;
	if (r->g->format == MDCCTL_TEXT) {
		printf("Created pipeline job [%s] (state %s).\n"
		       "View Pipeline Run in Google Cloud console: %s\n",
		       name ? name : "?", mdc_json_get_str(job, "state", "?"), link);
		goto out;
	}
	if (!(summary = json_object_new_object()) ||
	    json_object_object_add(summary, "name", json_object_new_string(name ? name : "")) ||
	    json_object_object_add(summary, "state", json_object_new_string(
					   mdc_json_get_str(job, "state", ""))) ||
	    json_object_object_add(summary, "consoleLink", json_object_new_string(link)))
		goto nomem;
	mdcctl_print_json(summary);
	goto out;
nomem:
	rc = mdc_nomem(&r->ctx);
out:
	json_object_put(summary);
	free(link);
	return rc;
}

static int pj_run(struct mdcctl *g, int argc, char **argv)
{
	json_object *body = NULL, *job = NULL;
	char *rname = NULL;
	struct vx_run r;
	int usage, rc = vx_begin(g, &pj_run_cmd, argc, argv, &r);

	if (rc >= 0)
		goto out;
	rc = 0;
	if (!r.a.resource || !r.a.on_timeout) {
		rc = mdcctl_usage(g, "pipelines run: give --%s (see mdcctl pipelines run --help)",
				  !r.a.resource ? "persistent-resource" : "on-timeout");
		goto out;
	}
	if (pj_run_body(&r, &rname, &body, &usage))
		goto fail;
	if (usage >= 0) {
		rc = usage;
		goto out;
	}
	if (r.a.dry_run) {
		mdcctl_print_json(body);
		goto out;
	}
	if (mdcctl_client_new(&r.s, &r.c, &r.ctx) ||
	    mdc_vertex_parent(r.s.project, r.s.region, &r.parent, &r.ctx) ||
	    pj_run_resource(&r, rname, body) ||
	    mdc_pipeline_create(r.c, r.parent, r.a.job_id, body, &job, &r.ctx) ||
	    pj_run_print(&r, job))
		goto fail;
	goto out;
fail:
	rc = vx_fail(&r);
out:
	json_object_put(job);
	json_object_put(body);
	free(rname);
	vx_end(&r);
	return rc;
}

/* --- describe, cancel, delete -------------------------------------------- */

static void pj_print_tasks(const json_object *j)
{
	json_object *td = mdc_json_get_arr(mdc_json_get_obj(j, "job_detail"), "task_details");

	for (size_t i = 0; td && i < json_object_array_length(td); i++) {
		json_object *t = json_object_array_get_idx(td, i);
		json_object *err = mdc_json_get_obj(t, "error");

		printf("task:                %s %s%s%s\n", mdc_json_get_str(t, "task_name", "?"),
		       mdc_json_get_str(t, "state", "?"), err ? ": " : "",
		       mdc_json_get_str(err, "message", ""));
	}
}

static void pj_print_job(const struct mdc_settings *s, const json_object *j)
{
	json_object *d = mdc_json_get_path(j, PJ_DETAIL);
	json_object *wait = mdc_json_get(d, "task_resource_unavailable_wait_time_ms");
	json_object *err = mdc_json_get_obj(j, "error");
	char *link = mdc_pipeline_console_link(s->region, s->project,
					       mdc_json_get_str(j, "name", ""));

	printf("name:                %s\n", mdc_json_get_str(j, "name", "-"));
	printf("displayName:         %s\n", mdc_json_get_str(j, "display_name", "-"));
	printf("state:               %s\n", mdc_json_get_str(j, "state", "-"));
	printf("createTime:          %s\n", mdc_json_get_str(j, "create_time", "-"));
	printf("pipelineRoot:        %s\n",
	       mdc_json_get_str(mdc_json_get_obj(j, "runtime_config"), "gcs_output_directory", "-"));
	printf("persistentResource:  %s\n", mdc_json_get_str(d, "persistent_resource_name", "-"));
	if (wait)
		printf("waitTimeMs:          %s\n", json_object_get_string(wait));
	printf("onTimeout:           %s\n",
	       mdc_json_get_str(d, "task_resource_unavailable_timeout_behavior", "-"));
	if (err)
		printf("error:               %s\n", mdc_json_get_str(err, "message", "-"));
	if (link)
		printf("console:             %s\n", link);
	free(link);
	pj_print_tasks(j);
}

static void pj_describe_print(struct vx_run *r, const json_object *job)
{
	if (r->g->format != MDCCTL_TEXT)
		mdcctl_print_resource(job);
	else
		pj_print_job(&r->s, job);
}

static int pj_describe(struct mdcctl *g, int argc, char **argv)
{
	static const struct vx_get o = {
		{ "mdcctl pipelines describe JOB_ID|NAME [--project=P] [--region=L] "
		  "[--format=text|json]", vx_common_opts, "h", PJ_ONE },
		mdc_pipeline_job_name, mdc_pipeline_get, pj_describe_print,
	};

	return vx_get_run(g, &o, argc, argv);
}

/* the cancel's answer is empty: the run stops later */
static int pj_cancel_call(struct mdc_client *c, const char *name, json_object **resp,
			  struct mdc_ctx *ctx)
{
	*resp = NULL;
	return mdc_pipeline_cancel(c, name, ctx);
}

static void pj_cancel_print(struct vx_run *r, const json_object *resp)
{
	json_object *o;

	(void) resp;
	if (r->g->format == MDCCTL_TEXT) {
		printf("Requested cancellation of pipeline job [%s].\n", r->name);
		return;
	}
	/* in the --format given (json, yaml, value(...)) */
	if (!(o = json_object_new_object()) ||
	    json_object_object_add(o, "name", json_object_new_string(r->name)) ||
	    json_object_object_add(o, "cancelRequested", json_object_new_boolean(1)))
		fprintf(stderr, "mdcctl: error: out of memory\n");
	else
		mdcctl_print_json(o);
	json_object_put(o);
}

static int pj_cancel(struct mdcctl *g, int argc, char **argv)
{
	static const struct vx_get o = {
		{ "mdcctl pipelines cancel JOB_ID|NAME [--project=P] [--region=L] "
		  "[--format=text|json]", vx_common_opts, "h", PJ_ONE },
		mdc_pipeline_job_name, pj_cancel_call, pj_cancel_print,
	};

	return vx_get_run(g, &o, argc, argv);
}

/* the note only when the wait is left to the user */
static int pj_delete_note(const struct vx_run *r, const json_object *op, struct mdc_buf *b)
{
	if (!r->g->async)
		return 0;
	return mdc_buf_addf(b, "Request to delete the pipeline job [%s] has been sent.\n\n"
			    "You can view the status of the delete operation with the "
			    "command\n\n  $ mdcctl operations describe %s\n\n", r->name,
			    mdc_json_get_str(op, "name", "?"));
}

static int pj_delete(struct mdcctl *g, int argc, char **argv)
{
	static const struct vx_write w = {
		{ "mdcctl pipelines delete JOB_ID|NAME [--project=P] [--region=L] [--async] [--yes] "
		  "[--format=text|json]", vx_yes_opts, "hq", PJ_ONE },
		mdc_pipeline_job_name, mdc_pipeline_delete, "pipeline job", true, pj_delete_note,
		"Deleted",
	};

	return vx_write_run(g, &w, argc, argv);
}

/* --- wait ------------------------------------------------------------------ */

/* "RUNNING, task 2/3 train RUNNING" from the job's task details */
static void pj_summary(const json_object *job, char *buf, size_t sz)
{
	json_object *td = mdc_json_get_arr(mdc_json_get_obj(job, "job_detail"), "task_details");
	const char *state = mdc_json_get_str(job, "state", "?");
	size_t n = td ? json_object_array_length(td) : 0;
	json_object *t = n ? json_object_array_get_idx(td, n - 1) : NULL;

	if (!strncmp(state, "PIPELINE_STATE_", 15))
		state += 15;
	if (!t)
		snprintf(buf, sz, "%s", state);
	else
		snprintf(buf, sz, "%s, task %zu %s %s", state, n,
			 mdc_json_get_str(t, "task_name", "?"), mdc_json_get_str(t, "state", "?"));
}

/* A terminal line that rewrites itself while waiting (stderr, TTY only) */
static void pj_wait_progress(const json_object *job, double elapsed, bool end, void *arg)
{
	char line[256];

	(void) arg;
	if (end) {
		fputc('\n', stderr);
		return;
	}
	pj_summary(job, line, sizeof(line));
	fprintf(stderr, "\r\033[Kwaiting for pipeline job [%s] %.0fs: %s",
		mdc_pr_basename(mdc_json_get_str(job, "name", "?")), elapsed, line);
	fflush(stderr);
}

/* Tasks that ran on on-demand resources say so in their status history. */
static void pj_print_fallbacks(const json_object *job)
{
	json_object *td = mdc_json_get_arr(mdc_json_get_obj(job, "job_detail"), "task_details");

	for (size_t i = 0; td && i < json_object_array_length(td); i++) {
		json_object *t = json_object_array_get_idx(td, i);
		json_object *hist = mdc_json_get_arr(t, "pipeline_task_status");

		for (size_t h = 0; hist && h < json_object_array_length(hist); h++) {
			json_object *st = json_object_array_get_idx(hist, h);
			const char *msg = mdc_json_get_str(mdc_json_get_obj(st, "error"), "message", NULL);

			if (msg && !strcmp(mdc_json_get_str(st, "state", ""), "RUNNING"))
				printf("task %s: %s\n", mdc_json_get_str(t, "task_name", "?"), msg);
		}
	}
}

static int pj_wait(struct mdcctl *g, int argc, char **argv)
{
	static const struct vx_cmd cmd = {
		"mdcctl pipelines wait JOB_ID|NAME [--project=P] [--region=L] [--format=text|json]\n"
		"exits 0 when the run SUCCEEDED, non-zero when it FAILED or was CANCELLED",
		vx_common_opts, "h", PJ_ONE,
	};
	struct mdc_pipeline_wait_opts wo = { 0 };
	json_object *job = NULL;
	struct vx_run r;
	char line[256];
	int rc = vx_begin(g, &cmd, argc, argv, &r);

	if (rc >= 0)
		goto out;
	rc = 0;
	if (vx_connect(&r, mdc_pipeline_job_name, false)) {
		rc = vx_fail(&r);
		goto out;
	}
	wo.timeout_s = g->timeout;
	wo.interrupted = &mdcctl_interrupted;
	if (isatty(STDERR_FILENO) == 1 && g->format == MDCCTL_TEXT)
		wo.progress = pj_wait_progress;
	rc = mdc_pipeline_wait(r.c, r.name, &wo, &job, &r.ctx);
	if (job && g->format != MDCCTL_TEXT) {
		mdc_json_del(job, "pipeline_spec");
		mdcctl_print_resource(job);
	} else if (job && (!rc || rc == MDC_ERR_OPFAILED)) {
		pj_summary(job, line, sizeof(line));
		printf("Pipeline job [%s]: %s.\n", r.name, line);
		pj_print_fallbacks(job);
	}
	if (rc)
		rc = vx_fail(&r);
out:
	json_object_put(job);
	vx_end(&r);
	return rc;
}

/* --- list ------------------------------------------------------------------ */

/* ListPipelineJobs has filter and order_by; ListPersistentResources has not */
static const struct option pj_list_opts[] = {
	VX_COMMON_OPTS,
	{ "filter", required_argument, NULL, O_FILTER },
	{ "sort-by", required_argument, NULL, O_SORT_BY },
	VX_END_OPTS,
};

/* The service's filter grammar, checked here: nothing is sent on a bad
 * one.  *ORDER_BY gets --sort-by as an order_by. */
static int pj_list_check(struct vx_run *r, char **order_by)
{
	struct mdc_pipeline_filter *f = NULL;
	int rc = 0;

	if ((r->a.filter && mdc_pipeline_filter_parse(r->a.filter, &f, &r->ctx)) ||
	    (r->a.sort_by && mdc_pipeline_sort_by(r->a.sort_by, order_by, &r->ctx)))
		rc = r->ctx.err = MDC_ERR_USAGE;
	mdc_pipeline_filter_free(f);
	return rc;
}

static void pj_list_table(const json_object *all)
{
	printf("%-40s %-26s %-24s %s\n", "JOB_ID", "STATE", "DISPLAY_NAME", "PERSISTENT_RESOURCE");
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *j = json_object_array_get_idx(all, i);
		json_object *d = mdc_json_get_path(j, PJ_DETAIL);

		printf("%-40s %-26s %-24s %s\n", mdc_pr_basename(mdc_json_get_str(j, "name", "")),
		       mdc_json_get_str(j, "state", "-"), mdc_json_get_str(j, "display_name", "-"),
		       mdc_pr_basename(mdc_json_get_str(d, "persistent_resource_name", "-")));
	}
}

static int pj_list(struct mdcctl *g, int argc, char **argv)
{
	static const struct vx_cmd cmd = {
		"mdcctl pipelines list [--project=P] [--region=L] [--filter=EXPR] "
		"[--sort-by=[~]FIELD,...] [--page-size=N] [--format=text|json]",
		pj_list_opts, "h", NULL,
	};
	struct mdc_api_list_opts lo = { 0 };
	json_object *all = NULL;
	char *order_by = NULL;
	struct vx_run r;
	int rc = vx_begin(g, &cmd, argc, argv, &r);

	if (rc >= 0)
		goto out;
	rc = 0;
	if (pj_list_check(&r, &order_by)) {
		rc = vx_fail(&r);
		goto out;
	}
	lo.page_size = r.a.page_size;
	lo.filter = r.a.filter;
	lo.order_by = order_by;
	if (vx_connect(&r, NULL, true) || mdc_pipeline_list(r.c, r.parent, &lo, &all, &r.ctx)) {
		rc = vx_fail(&r);
		goto out;
	}
	/* the specs are large and the list is for finding runs */
	for (size_t i = 0; g->format != MDCCTL_TEXT && i < json_object_array_length(all); i++)
		mdc_json_del(json_object_array_get_idx(all, i), "pipeline_spec");
	if (!vx_list_printed(g, all))
		pj_list_table(all);
out:
	json_object_put(all);
	free(order_by);
	vx_end(&r);
	return rc;
}

int cmd_pipelines(struct mdcctl *g, int argc, char **argv)
{
	static const struct vx_sub subs[] = {
		{ "cancel", pj_cancel },
		{ "delete", pj_delete },
		{ "describe", pj_describe },
		{ "list", pj_list },
		{ "run", pj_run },
		{ "wait", pj_wait },
	};

	return vx_dispatch(g, argc, argv, subs, sizeof(subs) / sizeof(subs[0]));
}
