/* test_vertex.c - the persistent-resource and pipeline REST calls of
 * lib/mdc_vertex.c against the real emulator (started here on a free
 * loopback port with its own state file): typed calls, the paged list
 * (page tokens, filter and orderBy encoding), operation and run waits.
 * (owner: pr) */
#include "config.h"
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "mdc_client.h"
#include "mdc_json.h"
#include "mdc_lro.h"
#include "mdc_pipeline.h"
#include "mdc_pr.h"
#include "mdc_str.h"
#include "mdc_vertex.h"

#define PARENT "projects/proj/locations/us-central1"

struct emu {
	pid_t pid;
	char dir[64];
	struct mdc_settings s;
	struct mdc_client *c;
};

static char *src_path(const char *rel)
{
	const char *top = getenv("top_srcdir");

	return mdc_path_join(top ? top : ".", rel);
}

/* Start the built emulator and read its "ready URL" line. */
static int emu_setup(void **state)
{
	const char *top = getenv("top_builddir");
	struct emu *e = calloc(1, sizeof(*e));
	char *bin, *st, line[256] = "";
	struct mdc_ctx ctx;
	int fds[2];
	FILE *f;

	assert_non_null(e);
	bin = mdc_path_join(top ? top : ".", "mdc-emulator");
	snprintf(e->dir, sizeof(e->dir), "/tmp/test_vertex.XXXXXX");
	assert_non_null(mkdtemp(e->dir));
	st = mdc_path_join(e->dir, "state.json");
	assert_int_equal(pipe(fds), 0);
	e->pid = fork();
	assert_true(e->pid >= 0);
	if (e->pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(bin, bin, "--listen", "127.0.0.1:0", "--state", st, "--lro-seconds", "0.1",
		      (char *) NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && strncmp(line, "ready ", 6))
		;
	fclose(f);
	if (strncmp(line, "ready ", 6))
		fail_msg("%s did not start (is it built?)", bin);
	line[strcspn(line, "\n")] = '\0';
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_settings_set(&e->s.endpoint, line + 6), 0);
	if (mdc_client_new(&e->s, &e->c, &ctx))
		fail_msg("client: %s", ctx.msg);
	free(st);
	free(bin);
	*state = e;
	return 0;
}

static int emu_teardown(void **state)
{
	struct emu *e = *state;
	char *st = mdc_path_join(e->dir, "state.json");

	mdc_client_free(e->c);
	mdc_settings_free(&e->s);
	kill(e->pid, SIGTERM);
	waitpid(e->pid, NULL, 0);
	unlink(st);
	rmdir(e->dir);
	free(st);
	free(e);
	return 0;
}

static void test_query_and_parent(void **state)
{
	struct mdc_buf q = MDC_BUF_INIT;
	struct mdc_ctx ctx;
	char *parent = NULL;

	(void) state;
	assert_int_equal(mdc_query_add(&q, "filter", "state=\"A B\"/+~-_.z9"), 0);
	assert_int_equal(mdc_query_add(&q, "pageToken", "a=="), 0);
	assert_string_equal(mdc_buf_str(&q),
			    "filter=state%3D%22A%20B%22%2F%2B~-_.z9&pageToken=a%3D%3D");
	mdc_buf_free(&q);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_vertex_parent("p", "r", &parent, &ctx), 0);
	assert_string_equal(parent, "projects/p/locations/r");
	free(parent);
	assert_int_equal(mdc_vertex_parent("p", "", &parent, &ctx), MDC_ERR_USAGE);
	assert_null(parent);
	assert_non_null(strstr(ctx.msg, "--region"));
}

/* A resource with N replicas of one pool, custom service account as SA. */
static json_object *pr_body(int n, bool sa)
{
	char spec[64];
	struct mdc_strv pools = MDC_STRV_INIT;
	struct mdc_pr_create_opts co = { 0 };
	json_object *body = NULL;
	struct mdc_ctx ctx;

	snprintf(spec, sizeof(spec), "replica-count=%d,machine-type=n1-standard-4", n);
	assert_int_equal(mdc_strv_push(&pools, spec), 0);
	co.pool_specs = &pools;
	co.enable_custom_service_account = sa;
	mdc_ctx_clear(&ctx);
	if (mdc_pr_create_body(&co, &body, &ctx))
		fail_msg("body: %s", ctx.msg);
	mdc_strv_free(&pools);
	return body;
}

/* create ID and wait for it; returns the resource */
static json_object *pr_make(struct emu *e, const char *id, bool sa)
{
	json_object *body = pr_body(2, sa), *op = NULL, *done = NULL, *res = NULL;
	struct mdc_lro_opts lo = { 0 };
	struct mdc_ctx ctx;
	char *name = NULL;

	mdc_ctx_clear(&ctx);
	if (mdc_pr_create(e->c, PARENT, id, body, &op, &ctx) ||
	    mdc_vertex_op_wait(e->c, op, &lo, &done, &ctx) ||
	    mdc_pr_resource_name("proj", "us-central1", id, &name, &ctx) ||
	    mdc_pr_get(e->c, name, &res, &ctx))
		fail_msg("create %s: %s", id, ctx.msg);
	assert_string_equal(mdc_json_get_str(res, "state", ""), "RUNNING");
	assert_string_equal(mdc_json_get_str(res, "name", ""), name);
	free(name);
	json_object_put(done);
	json_object_put(op);
	json_object_put(body);
	return res;
}

static void test_pr_calls(void **state)
{
	struct emu *e = *state;
	struct mdc_api_list_opts lo = { .page_size = 1 };
	struct mdc_lro_opts wo = { 0 };
	json_object *list = NULL, *op = NULL, *done = NULL, *res, *cur = NULL, *body = NULL;
	struct mdc_pr_update_opts uo = { 0 };
	struct mdc_strv labels = MDC_STRV_INIT;
	const char *ids[] = { "vx-a", "vx-b", "vx-c" };
	const char *name = PARENT "/persistentResources/vx-b";
	struct mdc_ctx ctx;
	char *mask = NULL;

	for (size_t i = 0; i < 3; i++)
		json_object_put(pr_make(e, ids[i], false));
	/* one item a page: three pages joined by the page tokens */
	mdc_ctx_clear(&ctx);
	if (mdc_pr_list(e->c, PARENT, &lo, &list, &ctx))
		fail_msg("list: %s", ctx.msg);
	assert_int_equal(json_object_array_length(list), 3);
	for (size_t i = 0; i < 3; i++) {
		bool found = false;

		for (size_t k = 0; k < 3; k++)
			found |= !strcmp(mdc_pr_basename(mdc_json_get_str(
				json_object_array_get_idx(list, k), "name", "")), ids[i]);
		assert_true(found);
	}
	json_object_put(list);

	/* update: labels through the masked PATCH */
	assert_int_equal(mdc_strv_push(&labels, "team=ml"), 0);
	uo.update_labels = &labels;
	if (mdc_pr_get(e->c, name, &cur, &ctx) ||
	    mdc_pr_update_body(cur, &uo, &body, &mask, &ctx) ||
	    mdc_pr_update(e->c, name, body, mask, &op, &ctx) ||
	    mdc_vertex_op_wait(e->c, op, &wo, &done, &ctx))
		fail_msg("update: %s", ctx.msg);
	json_object_put(op);
	json_object_put(done);
	res = NULL;
	assert_int_equal(mdc_pr_get(e->c, name, &res, &ctx), 0);
	assert_string_equal(mdc_json_get_str(mdc_json_get_obj(res, "labels"), "team", ""), "ml");
	json_object_put(res);

	/* reboot, then delete: the resource is gone */
	if (mdc_pr_reboot(e->c, name, &op, &ctx) ||
	    mdc_vertex_op_wait(e->c, op, &wo, &done, &ctx))
		fail_msg("reboot: %s", ctx.msg);
	json_object_put(op);
	json_object_put(done);
	if (mdc_pr_delete(e->c, name, &op, &ctx) ||
	    mdc_vertex_op_wait(e->c, op, &wo, &done, &ctx))
		fail_msg("delete: %s", ctx.msg);
	/* an operation already done is not polled again: the same object back */
	{
		json_object *again = NULL;

		assert_int_equal(mdc_vertex_op_wait(e->c, done, &wo, &again, &ctx), 0);
		assert_ptr_equal(again, done);
		json_object_put(again);
	}
	json_object_put(op);
	json_object_put(done);
	res = NULL;
	assert_int_equal(mdc_pr_get(e->c, name, &res, &ctx), MDC_ERR_NOTFOUND);
	json_object_put(res);
	/* a bad id is refused by the service too */
	mdc_ctx_clear(&ctx);
	body = (json_object_put(body), pr_body(1, false));
	op = NULL;
	assert_int_not_equal(mdc_pr_create(e->c, PARENT, "Bad_Id", body, &op, &ctx), 0);
	json_object_put(op);
	json_object_put(body);
	json_object_put(cur);
	free(mask);
	mdc_strv_free(&labels);
}

/* The PipelineJob body for tests/pr/pipeline.yaml on RESOURCE. */
static json_object *pj_body(const char *resource, const char *display)
{
	struct mdc_pipeline_run_opts ro = { 0 };
	struct mdc_strv params = MDC_STRV_INIT;
	char *path = src_path("tests/pr/pipeline.yaml");
	json_object *body = NULL;
	struct mdc_ctx ctx;

	ro.pipeline_path = path;
	ro.resource_name = resource;
	ro.wait_time = "10s";
	ro.on_timeout = "fail";
	ro.pipeline_root = "gs://bucket/root";
	ro.display_name = display;
	ro.parameters = &params;
	assert_int_equal(mdc_strv_push(&params, "project_id=proj"), 0);
	assert_int_equal(mdc_strv_push(&params, "learning_rate=0.5"), 0);
	mdc_ctx_clear(&ctx);
	if (mdc_pipeline_body(&ro, &body, &ctx))
		fail_msg("pipeline body: %s", ctx.msg);
	free(path);
	mdc_strv_free(&params);
	return body;
}

static void test_pipeline_calls(void **state)
{
	struct emu *e = *state;
	const char *rname = PARENT "/persistentResources/vx-run";
	json_object *res, *body, *job = NULL, *list = NULL, *op = NULL, *done = NULL, *timing;
	struct mdc_api_list_opts lo = { .page_size = 1 };
	struct mdc_pipeline_wait_opts wo = { .timeout_s = 60 };
	struct mdc_lro_opts lro = { 0 };
	struct mdc_ctx ctx;
	char *jname = NULL;

	mdc_ctx_clear(&ctx);
	/* short runs: the emulator's timings are test controls */
	timing = json_tokener_parse("{\"pending_ms\": 50, \"task_ms\": 50, \"cancel_ms\": 50}");
	assert_int_equal(mdc_api_call(e->c, "POST", "emulator/v1/pipelineJobs:timing", NULL,
				      timing, &res, &ctx), 0);
	json_object_put(res);
	json_object_put(timing);

	/* P5: missing, then without the custom service account, then usable */
	res = NULL;
	assert_int_equal(mdc_pipeline_resource(e->c, rname, &res, &ctx), MDC_ERR_NOTFOUND);
	assert_non_null(strstr(ctx.msg, "--enable-custom-service-account"));
	json_object_put(res);
	json_object_put(pr_make(e, "vx-nosa", false));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_resource(e->c, PARENT "/persistentResources/vx-nosa",
					       &res, &ctx), MDC_ERR_REFUSED);
	json_object_put(res);
	json_object_put(pr_make(e, "vx-run", true));
	mdc_ctx_clear(&ctx);
	if (mdc_pipeline_resource(e->c, rname, &res, &ctx))
		fail_msg("resource: %s", ctx.msg);
	json_object_put(res);

	/* two runs: one by id, one named by the service */
	body = pj_body(rname, "first");
	if (mdc_pipeline_create(e->c, PARENT, "vx-job", body, &job, &ctx))
		fail_msg("create: %s", ctx.msg);
	assert_string_equal(mdc_json_get_str(job, "name", ""), PARENT "/pipelineJobs/vx-job");
	json_object_put(job);
	json_object_put(body);
	body = pj_body(rname, "second");
	if (mdc_pipeline_create(e->c, PARENT, NULL, body, &job, &ctx))
		fail_msg("create: %s", ctx.msg);
	json_object_put(job);
	json_object_put(body);

	/* the list: pages, and a filter that needs encoding */
	if (mdc_pipeline_list(e->c, PARENT, &lo, &list, &ctx))
		fail_msg("list: %s", ctx.msg);
	assert_int_equal(json_object_array_length(list), 2);
	json_object_put(list);
	lo.filter = "display_name=\"first\"";
	lo.order_by = "create_time desc";
	if (mdc_pipeline_list(e->c, PARENT, &lo, &list, &ctx))
		fail_msg("list: %s", ctx.msg);
	assert_int_equal(json_object_array_length(list), 1);
	assert_string_equal(mdc_json_get_str(json_object_array_get_idx(list, 0), "display_name", ""),
			    "first");
	json_object_put(list);

	/* the wait sees the run through; get agrees */
	assert_int_equal(mdc_pipeline_job_name("proj", "us-central1", "vx-job", &jname, &ctx), 0);
	if (mdc_pipeline_wait(e->c, jname, &wo, &job, &ctx))
		fail_msg("wait: %s", ctx.msg);
	assert_string_equal(mdc_json_get_str(job, "state", ""), "PIPELINE_STATE_SUCCEEDED");
	json_object_put(job);
	assert_int_equal(mdc_pipeline_get(e->c, jname, &job, &ctx), 0);
	assert_string_equal(mdc_json_get_str(job, "state", ""), "PIPELINE_STATE_SUCCEEDED");
	json_object_put(job);

	/* the second run has finished too: it cannot be cancelled any more */
	{
		json_object *l2 = NULL;
		const char *other;

		assert_int_equal(mdc_pipeline_list(e->c, PARENT, NULL, &l2, &ctx), 0);
		other = mdc_json_get_str(json_object_array_get_idx(l2, 0), "name", "");
		if (!strcmp(other, jname))
			other = mdc_json_get_str(json_object_array_get_idx(l2, 1), "name", "");
		job = NULL;
		assert_int_equal(mdc_pipeline_wait(e->c, other, &wo, &job, &ctx), 0);
		json_object_put(job);
		assert_int_equal(mdc_pipeline_cancel(e->c, other, &ctx), MDC_ERR_CONFLICT);
		json_object_put(l2);
		mdc_ctx_clear(&ctx);
	}

	/* a run still pending: Ctrl-C stops the wait and says the run goes on */
	{
		volatile sig_atomic_t stop = 1;
		struct mdc_pipeline_wait_opts so = { .interrupted = &stop };

		timing = json_tokener_parse("{\"pending_ms\": 600000}");
		assert_int_equal(mdc_api_call(e->c, "POST", "emulator/v1/pipelineJobs:timing",
					      NULL, timing, &res, &ctx), 0);
		json_object_put(res);
		json_object_put(timing);
		body = pj_body(rname, "third");
		if (mdc_pipeline_create(e->c, PARENT, "vx-long", body, &job, &ctx))
			fail_msg("create: %s", ctx.msg);
		json_object_put(job);
		json_object_put(body);
		job = NULL;
		assert_int_equal(mdc_pipeline_wait(e->c, PARENT "/pipelineJobs/vx-long", &so, &job,
						   &ctx), MDC_ERR_INTERRUPTED);
		assert_non_null(strstr(ctx.msg, "goes on"));
		assert_string_equal(mdc_json_get_str(job, "state", ""), "PIPELINE_STATE_PENDING");
		json_object_put(job);
		/* and a timeout says so too */
		mdc_ctx_clear(&ctx);
		so.interrupted = NULL;
		so.timeout_s = 0.05;
		job = NULL;
		assert_int_equal(mdc_pipeline_wait(e->c, PARENT "/pipelineJobs/vx-long", &so, &job,
						   &ctx), MDC_ERR_TIMEOUT);
		json_object_put(job);
		/* cancelled: the wait ends with a failure naming the state */
		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_pipeline_cancel(e->c, PARENT "/pipelineJobs/vx-long", &ctx), 0);
		job = NULL;
		assert_int_equal(mdc_pipeline_wait(e->c, PARENT "/pipelineJobs/vx-long", &wo, &job,
						   &ctx), MDC_ERR_OPFAILED);
		assert_non_null(strstr(ctx.msg, "CANCELLED"));
		assert_string_equal(mdc_json_get_str(job, "state", ""), "PIPELINE_STATE_CANCELLED");
		json_object_put(job);
	}

	/* delete: an operation, then the job is gone */
	if (mdc_pipeline_delete(e->c, jname, &op, &ctx) ||
	    mdc_vertex_op_wait(e->c, op, &lro, &done, &ctx))
		fail_msg("delete: %s", ctx.msg);
	json_object_put(op);
	json_object_put(done);
	job = NULL;
	assert_int_equal(mdc_pipeline_get(e->c, jname, &job, &ctx), MDC_ERR_NOTFOUND);
	json_object_put(job);
	free(jname);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_and_parent),
		cmocka_unit_test_setup_teardown(test_pr_calls, emu_setup, emu_teardown),
		cmocka_unit_test_setup_teardown(test_pipeline_calls, emu_setup, emu_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
