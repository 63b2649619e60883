/* test_slurmrest.c - the Slurm REST allow-list (issue 28 item 5): only
 * the read-only paths the tools use pass, and a refused path is refused
 * before any request (the client's endpoint is a closed port: anything
 * sent would fail as a transport error instead); and slurmrestd's answers
 * read as the guard and verify need them.  (owner: slurmrest) */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "mdc_client.h"
#include "mdc_settings.h"
#include "mdc_slurmrest.h"

static void test_allow_list(void **state)
{
	static const struct { const char *path; bool ok; } tab[] = {
		{ "/slurm/v0.0.38/ping", true },
		{ "/slurm/v0.0.38/partitions", true },
		{ "/slurm/v0.0.40/nodes", true },
		{ "/slurm/v0.0.42/jobs", true },
		{ "/slurm/v0.0.43/ping", true },
		{ "/slurm/v0.0.37/jobs", false },	/* a parser the tools do not know */
		{ "/slurm/v0.0.38/job/submit", false },	/* a write */
		{ "/slurm/v0.0.38/job/1", false },	/* DELETE's path: not a read of ours */
		{ "/slurm/v0.0.38/jobs?update_time=0", false },
		{ "/slurm/v0.0.38/jobs/", false },
		{ "/slurm/v0.0.38/../v0.0.38/jobs", false },
		{ "/slurm/v0.0.38//jobs", false },
		{ "/slurmdb/v0.0.38/jobs", false },
		{ "/openapi/v3", false },
		{ "slurm/v0.0.38/jobs", false },
		{ "/slurm/v0.0.38/jobs\r\nX: y", false },
		{ "", false },
		{ NULL, false },
	};

	(void) state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (mdc_slurmrest_path_allowed(tab[i].path) != tab[i].ok)
			fail_msg("path '%s': expected %s", tab[i].path ? tab[i].path : "(null)",
				 tab[i].ok ? "allowed" : "refused");
	}
}

static void test_refused_before_sending(void **state)
{
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_slurmrest sr = { 0 };
	struct mdc_ctx ctx;
	json_object *body = (json_object *) &sr;

	(void) state;
	setenv("MDC_ACCESS_TOKEN", "secret-token-1234", 1);
	memset(&s, 0, sizeof(s));
	mdc_ctx_clear(&ctx);
	s.endpoint = (char *) "http://127.0.0.1:9";
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	sr.client = c;
	sr.cluster = (char *) "projects/p/locations/l/modelDevelopmentClusters/c";
	assert_int_equal(mdc_slurmrest_get_path(&sr, "/slurm/v0.0.38/job/submit", &body, &ctx),
			 MDC_ERR_REFUSED);
	assert_null(body);
	assert_non_null(strstr(ctx.msg, "'/slurm/v0.0.38/job/submit' refused"));
	assert_null(strstr(ctx.msg, "secret-token"));
	/* an allowed path is sent: the closed port is a transport error */
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_slurmrest_get_path(&sr, "/slurm/v0.0.38/jobs", &body, &ctx),
			 MDC_ERR_HTTP);
	assert_null(strstr(ctx.msg, "secret-token"));
	mdc_client_free(c);
	unsetenv("MDC_ACCESS_TOKEN");
}

static void test_state(void **state)
{
	char buf[32];
	json_object *a = json_tokener_parse("[\"IDLE\",\"DRAIN\"]");
	json_object *s = json_object_new_string("RUN\nNING");

	(void) state;
	assert_string_equal(mdc_slurmrest_state(a, buf, sizeof(buf)), "IDLE+DRAIN");
	assert_string_equal(mdc_slurmrest_state(s, buf, sizeof(buf)), "RUN?NING");
	assert_string_equal(mdc_slurmrest_state(NULL, buf, sizeof(buf)), "");
	assert_string_equal(mdc_slurmrest_state(a, buf, 6), "IDLE+");
	json_object_put(a);
	json_object_put(s);
}

/* slurmrestd 22.05 (v0.0.38) answers, trimmed to the fields read */
static void test_jobs_in(void **state)
{
	json_object *list = json_tokener_parse(
		"[{\"job_id\":1,\"partition\":\"debug\",\"job_state\":\"CANCELLED\"},"
		"{\"job_id\":2,\"partition\":\"extra\",\"job_state\":\"PENDING\"},"
		"{\"job_id\":3,\"partition\":\"debug,extra\",\"job_state\":\"PENDING\"},"
		"{\"job_id\":4,\"partition\":\"extra\",\"job_state\":[\"RUNNING\",\"COMPLETING\"]},"
		"{\"job_id\":5,\"partition\":\"extra\",\"job_state\":[\"COMPLETED\"]},"
		"{\"job_id\":6,\"partition\":\"extra2\",\"job_state\":\"RUNNING\"}]");
	struct mdc_strv jobs = MDC_STRV_INIT;
	struct mdc_ctx ctx;
	char *j;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_non_null(list);
	assert_int_equal(mdc_slurmrest_jobs_in(list, "extra", &jobs, &ctx), 0);
	j = mdc_strv_join(&jobs, ", ");
	/* finished ones and another partition's left out; a later parser's
	 * state list read by its first word */
	assert_string_equal(j, "2 (PENDING), 3 (PENDING), 4 (RUNNING)");
	free(j);
	mdc_strv_free(&jobs);
	json_object_put(list);
}

static void test_recs_of(void **state)
{
	json_object *list = json_tokener_parse(
		"[{\"name\":\"p2\",\"flags\":[\"hidden\"],\"nodes\":\"vm\",\"state\":\"DOWN\","
		"\"max_time_limit\":90,\"default_time_limit\":null,\"maximum_nodes_per_job\":-1,"
		"\"priority_tier\":3,\"allowed_groups\":\"\",\"qos\":\"\"},"
		/* a later parser: nested numbers, flags in another place */
		"{\"name\":\"n\",\"maximums\":{\"time\":{\"set\":true,\"infinite\":false,\"number\":5}},"
		"\"max_time_limit\":{\"set\":true,\"number\":5}}]");
	struct mdc_recs recs = MDC_RECS_INIT;
	const struct mdc_kvs *r;
	struct mdc_ctx ctx;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_non_null(list);
	assert_int_equal(mdc_slurmrest_recs_of(list, &recs, &ctx), 0);
	assert_int_equal(recs.n, 2);
	assert_non_null(r = mdc_recs_find(&recs, "p2"));
	assert_string_equal(mdc_kvs_get(r, "MaxTime"), "90");
	assert_string_equal(mdc_kvs_get(r, "DefaultTime"), "NONE");
	assert_string_equal(mdc_kvs_get(r, "MaxNodes"), "UNLIMITED");
	assert_string_equal(mdc_kvs_get(r, "PriorityTier"), "3");
	assert_string_equal(mdc_kvs_get(r, "State"), "DOWN");
	assert_string_equal(mdc_kvs_get(r, "Hidden"), "YES");
	assert_string_equal(mdc_kvs_get(r, "Default"), "NO");
	assert_string_equal(mdc_kvs_get(r, "AllowGroups"), "ALL");
	assert_string_equal(mdc_kvs_get(r, "QOS"), "N/A");
	assert_null(mdc_kvs_get(r, "OverSubscribe"));	/* not shown: not checked */
	assert_non_null(r = mdc_recs_find(&recs, "n"));
	assert_null(mdc_kvs_get(r, "MaxTime"));		/* nested: left out, not misread */
	assert_null(mdc_kvs_get(r, "Hidden"));
	mdc_recs_free(&recs);
	json_object_put(list);
}

static void test_node_recs_of(void **state)
{
	json_object *list = json_tokener_parse(
		"[{\"name\":\"vm\",\"state\":\"idle\",\"state_flags\":[\"DRAIN\"],\"reason\":\"maint\","
		"\"reason_set_by_user\":\"root\",\"reason_changed_at\":0},"
		"{\"name\":\"n4\",\"state\":\"idle\",\"state_flags\":[\"DRAIN\"],\"reason\":\"x\","
		"\"reason_set_by_user\":\"root\",\"reason_changed_at\":1796300000},"
		"{\"name\":\"n2\",\"state\":\"down\",\"state_flags\":[],\"reason\":\"\"},"
		"{\"name\":\"n3\",\"state\":[\"IDLE\",\"DRAIN\"]}]");
	struct mdc_recs recs = MDC_RECS_INIT;
	struct mdc_ctx ctx;

	(void) state;
	setenv("TZ", "UTC", 1);		/* scontrol prints local time */
	tzset();
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_slurmrest_node_recs_of(list, &recs, &ctx), 0);
	assert_int_equal(recs.n, 4);
	assert_string_equal(mdc_kvs_get(mdc_recs_find(&recs, "n4"), "Reason"), "x [root@2026-12-03T12:13:20]");
	assert_string_equal(mdc_kvs_get(mdc_recs_find(&recs, "vm"), "State"), "IDLE+DRAIN");
	assert_string_equal(mdc_kvs_get(mdc_recs_find(&recs, "vm"), "Reason"), "maint");
	assert_string_equal(mdc_kvs_get(mdc_recs_find(&recs, "n2"), "State"), "DOWN");
	assert_null(mdc_kvs_get(mdc_recs_find(&recs, "n2"), "Reason"));
	assert_string_equal(mdc_kvs_get(mdc_recs_find(&recs, "n3"), "State"), "IDLE+DRAIN");
	mdc_recs_free(&recs);
	json_object_put(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_list),
		cmocka_unit_test(test_refused_before_sending),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_jobs_in),
		cmocka_unit_test(test_recs_of),
		cmocka_unit_test(test_node_recs_of),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
