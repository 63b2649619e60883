/* test_pr.c - unit tests for lib/mdc_pr: ids (P2), pools (P3), the
 * --resource-pool-spec parser, --config YAML (P4), the create body (P1),
 * durations and the pipelineJobs body (P5), the UpdatePersistentResource
 * rules and body, ListPipelineJobs filter / order_by / read_mask.  Data in
 * tests/pr/. */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "mdc_json.h"
#include "mdc_pipeline.h"
#include "mdc_pipeline_filter.h"
#include "mdc_pr.h"
#include "mdc_pr_yaml.h"
#include "mdc_str.h"

static char *data_path(const char *name)
{
	const char *top = getenv("top_srcdir");
	char *dir = mdc_path_join(top ? top : ".", "tests/pr");
	char *p = mdc_path_join(dir, name);

	free(dir);
	return p;
}

static json_object *load_json(const char *name)
{
	struct mdc_ctx ctx;
	char *p = data_path(name);
	json_object *j = NULL;

	mdc_ctx_clear(&ctx);
	if (mdc_json_parse_file(p, &j, &ctx))
		fail_msg("%s: %s", p, ctx.msg);
	free(p);
	return j;
}

static json_object *parse(const char *text)
{
	struct mdc_ctx ctx;
	json_object *j = NULL;

	mdc_ctx_clear(&ctx);
	if (mdc_json_parse(text, strlen(text), &j, &ctx))
		fail_msg("bad test JSON: %s", ctx.msg);
	return j;
}

static void assert_json_eq(const json_object *got, const json_object *want)
{
	if (!mdc_json_equal(got, want))
		fail_msg("JSON differs\n got:  %s\n want: %s", mdc_json_str(got, false),
			 mdc_json_str(want, false));
}

static void test_id(void **state)
{
	static const char *const good[] = { "a", "my-pr", "pr1", "a-b-c-9", NULL };
	static const char *const bad[] = {
		"", "1abc", "-abc", "abc-", "My-pr", "my_pr", "my.pr", "a b",
		"a234567890123456789012345678901234567890123456789012345678901234", NULL,
	};
	struct mdc_ctx ctx;

	(void) state;
	for (size_t i = 0; good[i]; i++) {
		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_pr_check_id(good[i], &ctx), 0);
	}
	for (size_t i = 0; bad[i]; i++) {
		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_pr_check_id(bad[i], &ctx), MDC_ERR_INVAL);
		assert_non_null(strstr(ctx.msg, "persistent resource id"));
	}
	mdc_ctx_clear(&ctx);
	mdc_pr_check_id("abc-", &ctx);
	assert_string_equal(ctx.msg, "persistent resource id 'abc-' must end with a letter or a digit");
	mdc_ctx_clear(&ctx);
	mdc_pr_check_id("My-pr", &ctx);
	assert_string_equal(ctx.msg, "persistent resource id 'My-pr' must start with a lowercase letter");
}

static void test_pool_spec(void **state)
{
	struct mdc_ctx ctx;
	json_object *pool, *want;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_pool_from_spec(
		"replica-count=4, machine-type=n1-standard-4,accelerator-type=nvidia-tesla-t4,"
		"disk-type=pd-ssd,disk-size=100", &pool, &ctx), 0);
	want = parse("{\"replica_count\":4,\"machine_spec\":{\"machine_type\":\"n1-standard-4\","
		     "\"accelerator_type\":\"NVIDIA_TESLA_T4\",\"accelerator_count\":1},"
		     "\"disk_spec\":{\"boot_disk_type\":\"pd-ssd\",\"boot_disk_size_gb\":100}}");
	assert_json_eq(pool, want);
	assert_int_equal(mdc_pr_check_pool(pool, 0, &ctx), 0);
	json_object_put(pool);
	json_object_put(want);

	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_pool_from_spec("machine-type=n1,min-replica-count=1,"
					       "max-replica-count=3", &pool, &ctx), 0);
	want = parse("{\"machine_spec\":{\"machine_type\":\"n1\"},\"autoscaling_spec\":"
		     "{\"min_replica_count\":1,\"max_replica_count\":3}}");
	assert_json_eq(pool, want);
	assert_int_equal(mdc_pr_check_pool(pool, 0, &ctx), 0);
	json_object_put(pool);
	json_object_put(want);

	/* refusals name the key */
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_pool_from_spec("machine-type=n1,replicas=2", &pool, &ctx),
			 MDC_ERR_USAGE);
	assert_null(pool);
	assert_non_null(strstr(ctx.msg, "unknown key 'replicas'"));
	assert_non_null(strstr(ctx.msg, "(valid keys: accelerator-count, "));
	/* a typo gets the key it misses */
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_pool_from_spec("machine-typ=n1,replica-count=2", &pool, &ctx),
			 MDC_ERR_USAGE);
	assert_string_equal(ctx.msg, "--resource-pool-spec: unknown key 'machine-typ' "
			    "(did you mean 'machine-type'?)");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_pool_from_spec("machine-type=n1,replica-count=two", &pool, &ctx),
			 MDC_ERR_USAGE);
	assert_string_equal(ctx.msg, "--resource-pool-spec: replica-count='two' is not a "
			    "non-negative integer");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_pool_from_spec("machine-type=n1,machine-type=n2", &pool, &ctx),
			 MDC_ERR_USAGE);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_pool_from_spec("machine-type=n1,accelerator-type=GTX", &pool, &ctx),
			 MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "unknown accelerator type 'GTX'"));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_pool_from_spec("machine-type", &pool, &ctx), MDC_ERR_USAGE);
}

static void test_pool_check(void **state)
{
	static const struct { const char *spec, *msg; } cases[] = {
		{ "machine-type=n1,min-replica-count=1",
		  "resource pool 1: min-replica-count given without max-replica-count: "
		  "autoscaling needs both min-replica-count and max-replica-count" },
		{ "machine-type=n1,replica-count=2,max-replica-count=3",
		  "resource pool 1: max-replica-count given without min-replica-count: "
		  "autoscaling needs both min-replica-count and max-replica-count" },
		{ "machine-type=n1",
		  "resource pool 1: give replica-count, or both min-replica-count and "
		  "max-replica-count for autoscaling" },
		{ "replica-count=1",
		  "resource pool 1: no machine type: add machine-type=TYPE (machineSpec.machineType)" },
		{ "id=big,machine-type=n1,min-replica-count=3,max-replica-count=2",
		  "resource pool 'big': need 1 <= min-replica-count <= max-replica-count (got 3 and 2)" },
		{ "machine-type=n1,replica-count=0",
		  "resource pool 1: replica-count must be at least 1 (got 0)" },
		{ "machine-type=n1,replica-count=1,accelerator-count=2",
		  "resource pool 1: accelerator-count needs accelerator-type" },
		{ "machine-type=n1,replica-count=1,disk-size=10",
		  "resource pool 1: disk-size needs disk-type (diskSpec.bootDiskType)" },
	};
	struct mdc_ctx ctx;
	json_object *pool, *camel;

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_pr_pool_from_spec(cases[i].spec, &pool, &ctx), 0);
		assert_int_equal(mdc_pr_check_pool(pool, 0, &ctx), MDC_ERR_INVAL);
		assert_string_equal(ctx.msg, cases[i].msg);
		json_object_put(pool);
	}
	/* what the Node client sends: camelCase, int64 as strings */
	camel = parse("{\"machineSpec\":{\"machineType\":\"n1\"},\"replicaCount\":\"2\","
		      "\"autoscalingSpec\":{\"minReplicaCount\":\"1\",\"maxReplicaCount\":\"4\"}}");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_check_pool(camel, 0, &ctx), 0);
	json_object_put(camel);
	camel = parse("{\"machineSpec\":{\"machineType\":\"n1\"},\"replicaCount\":\"x\"}");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_check_pool(camel, 0, &ctx), MDC_ERR_INVAL);
	json_object_put(camel);
}

static void test_yaml_types(void **state)
{
	struct mdc_ctx ctx;
	json_object *got, *want;
	char *p = data_path("pipeline.yaml");
	static const char doc[] =
		"a: 1\nb: '1'\nc: 1.5\nd: yes\ne: ~\nf: 2.1.0\ng: -7\nh: \"true\"\n"
		"i: [1, x, {j: null}]\nk: 0x1f\nl: 1e5\nm: .5\nn: 1_000\no: 0b101\np: 017\n"
		"q: 1.5e+3\nr: 1.5e3\ns: 08\nt: -0x10\nu: 99999999999999999999\nv: '0x1f'\nw: 1.\n";

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_yaml_load(p, &got, &ctx), 0);
	want = load_json("pipeline-spec.json");
	assert_json_eq(got, want);	/* same as PyYAML's safe_load */
	json_object_put(got);
	json_object_put(want);
	free(p);

	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_yaml_parse(doc, strlen(doc), "doc", &got, &ctx), 0);
	want = parse("{\"a\":1,\"b\":\"1\",\"c\":1.5,\"d\":true,\"e\":null,\"f\":\"2.1.0\","
		     "\"g\":-7,\"h\":\"true\",\"i\":[1,\"x\",{\"j\":null}],\"k\":31,\"l\":\"1e5\","
		     "\"m\":0.5,\"n\":1000,\"o\":5,\"p\":15,\"q\":1500.0,\"r\":\"1.5e3\",\"s\":\"08\","
		     "\"t\":-16,\"u\":1e20,\"v\":\"0x1f\",\"w\":1.0}");
	assert_json_eq(got, want);
	json_object_put(got);
	json_object_put(want);

	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_yaml_parse("a: 1\na: 2\n", 10, "doc", &got, &ctx), MDC_ERR_PARSE);
	assert_string_equal(ctx.msg, "doc: line 2: duplicate key 'a'");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_yaml_parse("a: [1\n", 6, "doc", &got, &ctx), MDC_ERR_PARSE);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_yaml_parse("a: 1\n---\nb: 2\n", 14, "doc", &got, &ctx),
			 MDC_ERR_PARSE);
	assert_non_null(strstr(ctx.msg, "more than one YAML document"));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_yaml_parse("# nothing\n", 10, "doc", &got, &ctx), MDC_ERR_PARSE);
}

static void test_config(void **state)
{
	struct mdc_ctx ctx;
	json_object *got, *want;
	char *p;

	(void) state;
	p = data_path("config-doc.yaml");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_config_load(p, &got, &ctx), 0);
	want = parse("{\"resource_pools\":[{\"machine_spec\":{\"machine_type\":\"n1-standard-4\"},"
		     "\"replica_count\":1}]}");
	assert_json_eq(got, want);
	json_object_put(got);
	json_object_put(want);
	free(p);

	p = data_path("config-underscore.yaml");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_config_load(p, &got, &ctx), MDC_ERR_INVAL);
	assert_null(got);
	assert_non_null(strstr(ctx.msg, "key 'resourcePools[0].replica_count' has an underscore: "
			       "keys with underscores are invalid, write 'replicaCount'"));
	free(p);
}

/* --config values of the wrong type, each refused naming the file and the
 * field; and the ones that are accepted in their other spelling. */
static void test_config_types(void **state)
{
	static const struct { const char *yaml, *err, *want; } cases[] = {
		{ "resourcePools: x\n", "'resourcePools' must be a list of resource pools", NULL },
		{ "resourcePools: [x]\n", "'resourcePools[0]' must be a mapping", NULL },
		{ "resourcePools:\n- replicaCount: -1\n",
		  "'resourcePools[0].replicaCount' must be a non-negative integer", NULL },
		{ "resourcePools:\n- machineSpec: {machineType: 7}\n",
		  "'resourcePools[0].machineSpec.machineType' must be a string", NULL },
		{ "resourcePools:\n- machineSpec: {acceleratorType: nvidia-foo}\n",
		  "nvidia-foo", NULL },
		{ "labels: {a: [1]}\n", "'labels' must be a mapping of strings", NULL },
		{ "labels: x\n", "'labels' must be a mapping of strings", NULL },
		{ "resourceRuntimeSpec: 1\n", "'resourceRuntimeSpec' must be a mapping", NULL },
		{ "reservedIpRanges: [a, 1]\n", "'reservedIpRanges' must be a list of strings", NULL },
		{ "labels: {a: 1, b: true}\nreservedIpRanges: [r]\n", NULL,
		  "{\"labels\":{\"a\":\"1\",\"b\":\"true\"},\"reserved_ip_ranges\":[\"r\"]}" },
		{ "resourcePools: {machineSpec: {acceleratorType: nvidia-tesla-t4}}\n", NULL,
		  "{\"resource_pools\":[{\"machine_spec\":{\"accelerator_type\":"
		  "\"NVIDIA_TESLA_T4\"}}]}" },
	};
	char path[] = "/tmp/test_pr_config.XXXXXX";
	int fd = mkstemp(path);

	(void) state;
	assert_true(fd >= 0);
	close(fd);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mdc_ctx ctx;
		json_object *got = NULL, *want;
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(cases[i].yaml, f);
		fclose(f);
		mdc_ctx_clear(&ctx);
		if (cases[i].err) {
			assert_int_equal(mdc_pr_config_load(path, &got, &ctx), MDC_ERR_INVAL);
			assert_null(got);
			if (!strstr(ctx.msg, cases[i].err) || !strstr(ctx.msg, path))
				fail_msg("case %zu: '%s' does not say '%s'", i, ctx.msg, cases[i].err);
			continue;
		}
		if (mdc_pr_config_load(path, &got, &ctx))
			fail_msg("case %zu: %s", i, ctx.msg);
		want = parse(cases[i].want);
		assert_json_eq(got, want);
		json_object_put(got);
		json_object_put(want);
	}
	unlink(path);
}

static void test_create_body(void **state)
{
	struct mdc_strv pools = MDC_STRV_INIT, labels = MDC_STRV_INIT;
	struct mdc_pr_create_opts o = { 0 };
	struct mdc_ctx ctx;
	json_object *got, *want;
	char *p = data_path("config.yaml");

	(void) state;
	mdc_strv_push(&pools, "id=gpu,min-replica-count=2,max-replica-count=8");
	mdc_strv_push(&pools, "machine-type=e2-standard-4,replica-count=2");
	mdc_strv_push(&labels, "team=research,owner=alice");
	o.config_path = p;
	o.display_name = "From the flags";
	o.pool_specs = &pools;
	o.labels = &labels;
	o.enable_custom_service_account = true;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_create_body(&o, &got, &ctx), 0);
	want = load_json("config-merged.json");
	assert_json_eq(got, want);
	json_object_put(got);
	json_object_put(want);

	/* no pool at all */
	memset(&o, 0, sizeof(o));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_create_body(&o, &got, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "no resource pool"));

	/* bad label */
	mdc_strv_free(&labels);
	mdc_strv_push(&labels, "Team=x");
	o.pool_specs = &pools;
	o.labels = &labels;
	mdc_strv_free(&pools);
	mdc_strv_push(&pools, "machine-type=n1,replica-count=1");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_create_body(&o, &got, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "label key 'Team'"));

	mdc_strv_free(&pools);
	mdc_strv_free(&labels);
	free(p);
}

static void test_duration(void **state)
{
	static const struct { const char *s; int64_t ms; } good[] = {
		{ "90", 90000 }, { "500ms", 500 }, { "30s", 30000 }, { "10m", 600000 },
		{ "1h30m", 5400000 }, { "1.5h", 5400000 }, { "2d", 172800000 }, { "0", 0 },
	};
	static const char *const bad[] = { "", "m", "10x", "-5s", "1h-3m", "ten", NULL };
	struct mdc_ctx ctx;
	int64_t ms;
	const char *e;

	(void) state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_pipeline_duration_ms(good[i].s, &ms, &ctx), 0);
		assert_int_equal(ms, good[i].ms);
	}
	for (size_t i = 0; bad[i]; i++) {
		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_pipeline_duration_ms(bad[i], &ms, &ctx), MDC_ERR_USAGE);
	}
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_timeout_behavior("fall-back-to-on-demand", &e, &ctx), 0);
	assert_string_equal(e, "FALL_BACK_TO_ON_DEMAND");
	assert_int_equal(mdc_pipeline_timeout_behavior("fail", &e, &ctx), 0);
	assert_string_equal(e, "FAIL");
	assert_int_equal(mdc_pipeline_timeout_behavior("retry", &e, &ctx), MDC_ERR_USAGE);
}

static void test_names(void **state)
{
	struct mdc_ctx ctx;
	char *s;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_resource_name("p", "us-central1", "my-pr", &s, &ctx), 0);
	assert_string_equal(s, "projects/p/locations/us-central1/persistentResources/my-pr");
	free(s);
	assert_int_equal(mdc_pr_resource_name(NULL, NULL,
		"projects/123/locations/europe-west4/persistentResources/x1", &s, &ctx), 0);
	assert_string_equal(s, "projects/123/locations/europe-west4/persistentResources/x1");
	free(s);
	assert_int_equal(mdc_pr_resource_name(NULL, NULL, "projects/1/locations/l/x/y", &s, &ctx),
			 MDC_ERR_INVAL);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pr_resource_name(NULL, "r", "my-pr", &s, &ctx), MDC_ERR_USAGE);
	s = mdc_pipeline_console_link("us-central1", "proj",
				"projects/9/locations/us-central1/pipelineJobs/run-1");
	assert_string_equal(s, "https://console.cloud.google.com/vertex-ai/locations/us-central1/"
			    "pipelines/runs/run-1?project=proj");
	free(s);
}

static void test_runnable(void **state)
{
	struct mdc_ctx ctx;
	json_object *r;

	(void) state;
	r = parse("{\"state\":\"RUNNING\",\"resourceRuntimeSpec\":{\"serviceAccountSpec\":"
		  "{\"enableCustomServiceAccount\":true}}}");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_check_runnable(r, "x", &ctx), 0);
	json_object_put(r);
	r = parse("{\"state\":\"RUNNING\"}");
	assert_int_equal(mdc_pipeline_check_runnable(r, "x", &ctx), MDC_ERR_REFUSED);
	assert_non_null(strstr(ctx.msg, "does not have the custom service account enabled"));
	json_object_put(r);
}

static void test_pipeline_body(void **state)
{
	struct mdc_strv params = MDC_STRV_INIT;
	struct mdc_pipeline_run_opts o = { 0 };
	struct mdc_ctx ctx;
	json_object *got, *want, *spec;
	char *p = data_path("pipeline.yaml");

	(void) state;
	mdc_strv_push(&params, "project_id=proj");
	mdc_strv_push(&params, "learning_rate=0.01");
	mdc_strv_push(&params, "epochs=5");
	o.pipeline_path = p;
	o.resource_name = "projects/proj/locations/us-central1/persistentResources/fixed-pr";
	o.wait_time = "10m";
	o.on_timeout = "fail";
	o.pipeline_root = "gs://bucket/root";
	o.parameters = &params;
	o.display_name = "nightly";
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_body(&o, &got, &ctx), 0);
	spec = load_json("pipeline-spec.json");
	assert_json_eq(mdc_json_get(got, "pipeline_spec"), spec);
	json_object_object_del(got, "pipeline_spec");
	want = load_json("pipeline-fail.json");
	assert_json_eq(got, want);
	json_object_put(got);
	json_object_put(want);

	mdc_strv_free(&params);
	mdc_strv_push(&params, "project_id=proj");
	mdc_strv_push(&params, "learning_rate=.5");
	mdc_strv_push(&params, "use_gpu=true");
	mdc_strv_push(&params, "tags=[\"x\",\"y\"]");
	o.display_name = NULL;
	o.wait_time = "1h30m";
	o.on_timeout = "fall-back-to-on-demand";
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_body(&o, &got, &ctx), 0);
	json_object_object_del(got, "pipeline_spec");
	want = load_json("pipeline-fallback.json");
	assert_json_eq(got, want);
	json_object_put(got);
	json_object_put(want);

	/* refusals: every missing parameter at once */
	mdc_strv_free(&params);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_body(&o, &got, &ctx), MDC_ERR_USAGE);
	assert_non_null(strstr(ctx.msg, "the pipeline needs parameters "));
	assert_non_null(strstr(ctx.msg, "'learning_rate'"));
	assert_non_null(strstr(ctx.msg, "'project_id'"));
	assert_non_null(strstr(ctx.msg, " --parameter learning_rate=VALUE"));
	assert_non_null(strstr(ctx.msg, " --parameter project_id=VALUE"));
	mdc_strv_push(&params, "learning_rate=0.1");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_body(&o, &got, &ctx), MDC_ERR_USAGE);
	assert_string_equal(ctx.msg, "the pipeline needs parameter 'project_id': add "
			    "--parameter project_id=VALUE");
	mdc_strv_push(&params, "project_id=p");
	mdc_strv_push(&params, "epochs=many");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_body(&o, &got, &ctx), MDC_ERR_USAGE);
	assert_string_equal(ctx.msg, "--parameter epochs='many': the pipeline declares 'epochs' "
			    "as an integer");
	mdc_strv_free(&params);
	mdc_strv_push(&params, "nope=1");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_body(&o, &got, &ctx), MDC_ERR_USAGE);
	assert_non_null(strstr(ctx.msg, "the pipeline has no such parameter"));
	o.pipeline_root = "/tmp/x";
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_body(&o, &got, &ctx), MDC_ERR_USAGE);
	assert_non_null(strstr(ctx.msg, "gs://BUCKET/DIR"));
	o.pipeline_root = "gs://b";
	o.on_timeout = "later";
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_body(&o, &got, &ctx), MDC_ERR_USAGE);

	mdc_strv_free(&params);
	json_object_put(spec);
	free(p);
}

/* --- ListPipelineJobs filter / order_by / read_mask ------------------------- */

static const char *const filter_jobs_json = "["
	"{\"name\":\"projects/p/locations/l/pipelineJobs/a1\",\"display_name\":\"nightly a\","
	" \"state\":\"PIPELINE_STATE_SUCCEEDED\",\"labels\":{\"team\":\"ml\",\"env\":\"prod\"},"
	" \"create_time\":\"2026-05-18T10:00:00.000Z\",\"end_time\":\"2026-05-18T11:00:00Z\","
	" \"pipeline_spec\":{\"pipelineInfo\":{\"name\":\"train\"}}},"
	"{\"name\":\"projects/p/locations/l/pipelineJobs/b2\",\"display_name\":\"weekly b\","
	" \"state\":\"PIPELINE_STATE_FAILED\",\"labels\":{\"team\":\"infra\"},"
	" \"create_time\":\"2026-05-18T12:00:00.500Z\",\"end_time\":\"2026-05-18T12:30:00+01:00\","
	" \"pipeline_spec\":{\"pipelineInfo\":{\"name\":\"eval\"}}},"
	"{\"name\":\"projects/p/locations/l/pipelineJobs/c3\",\"display_name\":\"nightly c\","
	" \"state\":\"PIPELINE_STATE_RUNNING\",\"create_time\":\"2026-05-19T00:00:00Z\","
	" \"pipeline_spec\":{\"pipelineInfo\":{\"name\":\"train\"}}}]";

/* the ids of the jobs FILTER keeps, space-separated, or "error: MSG" */
static void filter_ids(const char *filter, char *out, size_t sz)
{
	json_object *jobs = parse(filter_jobs_json);
	struct mdc_pipeline_filter *f;
	struct mdc_ctx ctx;

	mdc_ctx_clear(&ctx);
	out[0] = '\0';
	if (mdc_pipeline_filter_parse(filter, &f, &ctx)) {
		snprintf(out, sz, "error: %.400s", ctx.msg);
	} else {
		for (size_t i = 0; i < json_object_array_length(jobs); i++) {
			json_object *j = json_object_array_get_idx(jobs, i);

			if (mdc_pipeline_filter_match(f, j))
				snprintf(out + strlen(out), sz - strlen(out), "%s%s", out[0] ? " " : "",
					 mdc_pr_basename(mdc_json_get_str(j, "name", "")));
		}
		mdc_pipeline_filter_free(f);
	}
	json_object_put(jobs);
}

static void test_filter(void **state)
{
	static const struct { const char *filter, *want; } cases[] = {
		{ "", "a1 b2 c3" },
		{ "state=\"PIPELINE_STATE_FAILED\"", "b2" },
		{ "state!=PIPELINE_STATE_FAILED", "a1 c3" },
		{ "labels.team=\"ml\"", "a1" },
		{ "labels.env:*", "a1" },
		{ "labels:team", "a1 b2" },
		{ "display_name:\"nightly*\"", "a1 c3" },
		{ "display_name=\"nightly a\"", "a1" },
		{ "pipeline_name=\"train\"", "a1 c3" },
		{ "pipeline_job_user_id=b2", "b2" },
		{ "create_time>\"2026-05-18T12:00:00Z\"", "b2 c3" },
		{ "create_time<=\"2026-05-18T12:00:00.500Z\"", "a1 b2" },
		/* an offset is a time, not text: 12:30+01:00 is 11:30Z */
		{ "end_time<\"2026-05-18T11:45:00Z\"", "a1 b2" },
		/* a job without end_time matches only != */
		{ "end_time!=\"2026-05-18T11:00:00Z\"", "b2 c3" },
		{ "labels.team=\"ml\" OR labels.team=\"infra\"", "a1 b2" },
		{ "state=\"PIPELINE_STATE_SUCCEEDED\" AND labels.team=\"ml\" OR labels.team=\"infra\"", "a1" },
		{ "(state=\"PIPELINE_STATE_SUCCEEDED\" AND labels.team=\"ml\") OR labels.team=\"infra\"", "a1 b2" },
		{ "NOT state=PIPELINE_STATE_RUNNING", "a1 b2" },
		{ "-pipeline_name=train display_name:\"weekly*\"", "b2" },
		{ "colour=red", "error: filter: unsupported field 'colour'" },
		{ "state<PIPELINE_STATE_FAILED", "error: filter: 'state' does not support '<'" },
		{ "state=DONE", "error: filter: state value 'DONE' is not a PipelineState" },
		{ "create_time>\"May 18\"", "error: filter: create_time value 'May 18' is not an RFC 3339" },
		{ "labels=\"x\"", "error: filter: compare a label as labels.KEY=\"VALUE\"" },
		{ "state=\"PIPELINE_STATE_FAILED", "error: filter: expected a value" },
		{ "(state=PIPELINE_STATE_FAILED", "error: filter: expected ')'" },
		{ "state==x", "error: filter: expected a value" },
	};
	char got[512];

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		filter_ids(cases[i].filter, got, sizeof(got));
		if (strncmp(got, cases[i].want, strlen(cases[i].want)) ||
		    (strncmp(cases[i].want, "error: ", 7) && strcmp(got, cases[i].want)))
			fail_msg("filter '%s':\n got:  %s\n want: %s", cases[i].filter, got, cases[i].want);
	}
}

static void test_order(void **state)
{
	json_object *jobs = parse(filter_jobs_json);
	json_object *a = json_object_array_get_idx(jobs, 0), *b = json_object_array_get_idx(jobs, 1);
	json_object *c = json_object_array_get_idx(jobs, 2);
	struct mdc_pipeline_order o;
	struct mdc_ctx ctx;
	char *ob = NULL;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_order_parse(NULL, &o, &ctx), 0);	/* create_time desc */
	assert_true(mdc_pipeline_order_cmp(&o, a, b) > 0);
	assert_int_equal(mdc_pipeline_order_parse("endTime, create_time desc", &o, &ctx), 0);
	assert_true(mdc_pipeline_order_cmp(&o, a, b) < 0);
	assert_true(mdc_pipeline_order_cmp(&o, c, a) > 0);	/* no end_time: last */
	assert_int_not_equal(mdc_pipeline_order_parse("display_name", &o, &ctx), 0);
	assert_non_null(strstr(ctx.msg, "order_by 'display_name'"));
	mdc_ctx_clear(&ctx);
	assert_int_not_equal(mdc_pipeline_order_parse("create_time up", &o, &ctx), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_sort_by("~createTime,endTime", &ob, &ctx), 0);
	assert_string_equal(ob, "create_time desc, end_time");
	free(ob);
	ob = NULL;
	assert_int_equal(mdc_pipeline_sort_by("name", &ob, &ctx), MDC_ERR_USAGE);
	assert_null(ob);
	json_object_put(jobs);
}

static void test_read_mask(void **state)
{
	json_object *jobs = parse(filter_jobs_json), *out = NULL;
	struct mdc_ctx ctx;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_pipeline_read_mask("name,labels.team,createTime",
					  json_object_array_get_idx(jobs, 0), &out, &ctx), 0);
	assert_string_equal(mdc_json_str(out, false),
			    "{\"name\":\"projects/p/locations/l/pipelineJobs/a1\",\"labels\":"
			    "{\"team\":\"ml\",\"env\":\"prod\"},\"create_time\":\"2026-05-18T10:00:00.000Z\"}");
	json_object_put(out);
	assert_int_equal(mdc_pipeline_read_mask("name,colour", NULL, &out, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "'colour' is not a field of PipelineJob"));
	json_object_put(jobs);
}

/* --- UpdatePersistentResource ---------------------------------------------------- */

static const char *const update_cur_json =
	"{\"name\":\"projects/p/locations/l/persistentResources/r\",\"display_name\":\"old\","
	" \"labels\":{\"a\":\"1\",\"b\":\"2\"},\"state\":\"RUNNING\",\"resource_pools\":["
	"  {\"id\":\"cpu\",\"machine_spec\":{\"machine_type\":\"n1-standard-4\"},\"replica_count\":\"2\","
	"   \"used_replica_count\":\"0\"},"
	"  {\"id\":\"gpu\",\"machine_spec\":{\"machine_type\":\"n1-standard-8\",\"accelerator_type\":"
	"   \"NVIDIA_TESLA_T4\",\"accelerator_count\":1},\"autoscaling_spec\":{\"min_replica_count\":\"1\","
	"   \"max_replica_count\":\"2\"}}]}";

static void test_update_apply(void **state)
{
	static const struct { const char *mask, *patch, *err; } refused[] = {
		{ NULL, "{}", "update_mask is required" },
		{ "network", "{}", "update_mask: 'network' is immutable" },
		{ "createTime", "{}", "update_mask: 'createTime' is output only" },
		{ "colour", "{}", "update_mask: 'colour' is not a field" },
		{ "resourcePools", "{\"resourcePools\":[{\"id\":\"cpu\",\"replicaCount\":1}]}",
		  "pools cannot be added or removed" },
		{ "resource_pools", "{\"resource_pools\":[{\"id\":\"cpu\",\"replica_count\":1},"
		  "{\"id\":\"gpu\",\"machine_spec\":{\"machine_type\":\"a2-highgpu-1g\"},\"replica_count\":1}]}",
		  "pool 'gpu'): machine_spec is immutable" },
		{ "resourcePools", "{\"resourcePools\":[{\"replicaCount\":1},{\"id\":\"gpu\",\"replicaCount\":1}]}",
		  "give the id of the pool" },
		{ "resourcePools", "{\"resourcePools\":[{\"id\":\"cpu\",\"replicaCount\":0},{\"id\":\"gpu\",\"replicaCount\":1}]}",
		  "replica-count must be at least 1" },
		{ "labels", "{\"labels\":{\"Bad\":\"x\"}}", "label key 'Bad'" },
	};
	json_object *cur = parse(update_cur_json), *patch, *out = NULL, *want;
	struct mdc_ctx ctx;

	(void) state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		json_object *raw = parse(refused[i].patch);

		mdc_ctx_clear(&ctx);
		patch = mdc_json_normalize(raw, MDC_CASE_SNAKE);
		json_object_put(raw);
		if (!mdc_pr_update_apply(cur, patch, refused[i].mask, &out, &ctx) ||
		    !strstr(ctx.msg, refused[i].err))
			fail_msg("mask '%s' %s: got '%s', want '%s'", refused[i].mask ? refused[i].mask : "(none)",
				 refused[i].patch, ctx.msg, refused[i].err);
		assert_null(out);
		json_object_put(patch);
	}
	mdc_ctx_clear(&ctx);
	patch = parse("{\"display_name\":\"ignored: not in the mask\",\"resource_pools\":["
		      "{\"id\":\"gpu\",\"autoscaling_spec\":{\"min_replica_count\":\"2\",\"max_replica_count\":\"6\"}},"
		      "{\"id\":\"cpu\",\"machine_spec\":{\"machine_type\":\"n1-standard-4\"},\"replica_count\":3}]}");
	assert_int_equal(mdc_pr_update_apply(cur, patch, "resourcePools,labels", &out, &ctx), 0);
	want = parse("{\"name\":\"projects/p/locations/l/persistentResources/r\",\"display_name\":\"old\","
		     "\"state\":\"RUNNING\",\"resource_pools\":["
		     "{\"id\":\"gpu\",\"machine_spec\":{\"machine_type\":\"n1-standard-8\",\"accelerator_type\":"
		     "\"NVIDIA_TESLA_T4\",\"accelerator_count\":1},\"autoscaling_spec\":{\"min_replica_count\":\"2\","
		     "\"max_replica_count\":\"6\"}},"
		     "{\"id\":\"cpu\",\"machine_spec\":{\"machine_type\":\"n1-standard-4\"},\"replica_count\":3,"
		     "\"used_replica_count\":\"0\"}]}");
	assert_json_eq(out, want);	/* labels in the mask, absent: cleared */
	json_object_put(want);
	json_object_put(out);
	json_object_put(patch);
	json_object_put(cur);
}

static void test_update_body(void **state)
{
	json_object *cur = parse(update_cur_json), *body = NULL, *want;
	struct mdc_strv pools = MDC_STRV_INIT, upd = MDC_STRV_INIT, rem = MDC_STRV_INIT;
	struct mdc_pr_update_opts o = { 0 };
	struct mdc_ctx ctx;
	char *mask = NULL;

	(void) state;
	mdc_ctx_clear(&ctx);
	mdc_strv_push(&pools, "id=gpu,min-replica-count=1,max-replica-count=4");
	mdc_strv_push(&upd, "c=3,d=4");
	mdc_strv_push(&rem, "a,d");	/* after --update-labels, as gcloud */
	o.pool_specs = &pools;
	o.update_labels = &upd;
	o.remove_labels = &rem;
	o.display_name = "new";
	assert_int_equal(mdc_pr_update_body(cur, &o, &body, &mask, &ctx), 0);
	assert_string_equal(mask, "displayName,labels,resourcePools");
	want = parse("{\"display_name\":\"new\",\"labels\":{\"b\":\"2\",\"c\":\"3\"},\"resource_pools\":["
		     "{\"id\":\"cpu\",\"machine_spec\":{\"machine_type\":\"n1-standard-4\"},\"replica_count\":\"2\"},"
		     "{\"id\":\"gpu\",\"machine_spec\":{\"machine_type\":\"n1-standard-8\",\"accelerator_type\":"
		     "\"NVIDIA_TESLA_T4\",\"accelerator_count\":1},\"autoscaling_spec\":{\"min_replica_count\":1,"
		     "\"max_replica_count\":4}}]}");
	assert_json_eq(body, want);
	json_object_put(want);
	json_object_put(body);
	free(mask);
	body = NULL;
	mask = NULL;

	/* only id and the replica counts: nothing else of a pool changes */
	mdc_strv_free(&pools);
	mdc_strv_push(&pools, "id=gpu,accelerator-count=2");
	o.display_name = NULL;
	o.update_labels = o.remove_labels = NULL;
	assert_int_equal(mdc_pr_update_body(cur, &o, &body, &mask, &ctx), MDC_ERR_USAGE);
	assert_non_null(strstr(ctx.msg, "'accelerator-count' cannot be changed by update"));
	mdc_ctx_clear(&ctx);
	mdc_strv_free(&pools);
	mdc_strv_push(&pools, "replica-count=2");
	assert_int_equal(mdc_pr_update_body(cur, &o, &body, &mask, &ctx), MDC_ERR_USAGE);
	assert_non_null(strstr(ctx.msg, "give id=POOL"));
	mdc_ctx_clear(&ctx);
	o.pool_specs = NULL;
	assert_int_equal(mdc_pr_update_body(cur, &o, &body, &mask, &ctx), MDC_ERR_USAGE);
	assert_non_null(strstr(ctx.msg, "nothing to update"));
	assert_null(body);
	assert_null(mask);
	mdc_strv_free(&pools);
	mdc_strv_free(&upd);
	mdc_strv_free(&rem);
	json_object_put(cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id),
		cmocka_unit_test(test_pool_spec),
		cmocka_unit_test(test_pool_check),
		cmocka_unit_test(test_yaml_types),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_config_types),
		cmocka_unit_test(test_create_body),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_runnable),
		cmocka_unit_test(test_pipeline_body),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_read_mask),
		cmocka_unit_test(test_update_apply),
		cmocka_unit_test(test_update_body),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
