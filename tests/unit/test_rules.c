/* test_rules.c - unit tests for lib/mdc_rules.c, the API contract C1-C13
 * as pure functions (the emulator's black-box tests cover the same rules
 * over HTTP). */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "mdc_json.h"
#include "mdc_rules.h"
#include "mdc_str.h"
#include "sc_options.h"

#define SS "orchestrator_spec.slurm_spec."

static const char *const base_cluster =
	"{\"labels\":{\"team\":\"ml\"},"
	"\"node_pools\":["
	"{\"id\":\"cpu\",\"machine_spec\":{\"machine_type\":\"n2-standard-8\"},"
	"\"scaling_spec\":{\"min_node_count\":1,\"max_node_count\":2}},"
	"{\"id\":\"login\",\"machine_spec\":{\"machine_type\":\"n2-standard-8\"},"
	"\"scaling_spec\":{\"min_node_count\":1,\"max_node_count\":1}}],"
	"\"orchestrator_spec\":{\"slurm_spec\":{"
	"\"partitions\":[{\"id\":\"cpu\",\"node_pool_ids\":[\"cpu\"]},"
	"{\"id\":\"long\",\"node_pool_ids\":[\"cpu\"],\"config\":{\"MaxTime\":\"7-00:00:00\"}}],"
	"\"default_partition_id\":\"cpu\",\"login_node_pool_id\":\"login\","
	"\"config\":{\"PriorityWeightAge\":\"100\"}}}}";

static json_object *parse(const char *text)
{
	json_object *o = NULL;
	struct mdc_ctx ctx;

	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_json_parse(text, strlen(text), &o, &ctx), 0);
	return o;
}

/* A created cluster on images {"*": "img-1"}. */
static json_object *created(json_object *images)
{
	struct mdc_images im = { images };
	struct mdc_ctx ctx;
	json_object *in = parse(base_cluster), *out = NULL;

	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_rules_check_create("c1", in, &im, &out, &ctx), 0);
	json_object_put(in);
	return out;
}

/* Apply PAYLOAD with MASK (NULL = none); returns the rc, fills RES/CTX. */
static int patch(const json_object *cur, const char *payload, const char *mask,
		 enum mdc_update_mode mode, json_object *images,
		 struct mdc_patch_result *res, struct mdc_ctx *ctx)
{
	struct mdc_strv paths = MDC_STRV_INIT;
	struct mdc_images im = { images };
	json_object *p = parse(payload);
	int rc;

	mdc_ctx_clear(ctx);
	if (mask && (rc = mdc_rules_parse_mask(mask, &paths, ctx)))
		goto out;
	rc = mdc_rules_apply_patch(cur, p, mask ? &paths : NULL, mode, images ? &im : NULL, res, ctx);
out:
	json_object_put(p);
	mdc_strv_free(&paths);
	return rc;
}

static const char *str_at(const json_object *o, const char *path)
{
	json_object *v = mdc_json_get_path(o, path);

	return v ? json_object_get_string(v) : NULL;
}

static void test_modes(void **state)
{
	(void) state;
	assert_int_equal(mdc_mode_parse(NULL), MDC_MODE_UNSPECIFIED);
	assert_int_equal(mdc_mode_parse(""), MDC_MODE_UNSPECIFIED);
	assert_int_equal(mdc_mode_parse("USER_ONLY"), MDC_MODE_USER_ONLY);
	assert_int_equal(mdc_mode_parse("USER_AND_SERVICE"), MDC_MODE_USER_AND_SERVICE);
	assert_int_equal(mdc_mode_parse("UPDATE_MODE_UNSPECIFIED"), MDC_MODE_UNSPECIFIED);
	assert_int_equal(mdc_mode_parse("user_only"), -1);
	assert_string_equal(mdc_mode_name(MDC_MODE_USER_ONLY), "USER_ONLY");
}

static void test_mask_paths(void **state)
{
	struct mdc_strv paths = MDC_STRV_INIT;
	struct mdc_ctx ctx;

	(void) state;
	assert_string_equal(mdc_rules_mask_path("orchestratorSpec.slurmSpec.config"), SS "config");
	assert_string_equal(mdc_rules_mask_path("nodePools"), "node_pools");
	assert_string_equal(mdc_rules_mask_path(SS "node_sets"), SS "node_sets");
	assert_null(mdc_rules_mask_path("display_name"));
	assert_null(mdc_rules_mask_path("orchestrator_spec.slurm_spec"));
	assert_null(mdc_rules_mask_path("config"));

	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_rules_parse_mask("labels, orchestratorSpec.slurmSpec.partitions,labels",
					      &paths, &ctx), 0);
	assert_int_equal(paths.n, 2);
	assert_string_equal(paths.v[1], SS "partitions");
	mdc_strv_free(&paths);
	assert_int_equal(mdc_rules_parse_mask("labels,network", &paths, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "invalid update mask path 'network'"));
	assert_string_equal(mdc_rules_last_field(), "update_mask");
	mdc_strv_free(&paths);
}

static void test_cluster_id(void **state)
{
	(void) state;
	assert_true(mdc_rules_cluster_id_ok("a"));
	assert_true(mdc_rules_cluster_id_ok("abc123"));
	assert_true(mdc_rules_cluster_id_ok("abcdefghij"));
	assert_false(mdc_rules_cluster_id_ok("abcdefghijk"));
	assert_false(mdc_rules_cluster_id_ok("1abc"));
	assert_false(mdc_rules_cluster_id_ok("Abc"));
	assert_false(mdc_rules_cluster_id_ok("a-b"));
	assert_false(mdc_rules_cluster_id_ok(""));
	assert_false(mdc_rules_cluster_id_ok(NULL));
}

static void test_config_map(void **state)
{
	static const struct {
		const char *map;
		unsigned scope;
		const char *want;	/* NULL = accepted, else a substring of the error */
	} cases[] = {
		{ "{\"PriorityWeightAge\":\"10\"}", SC_SCOPE_CLUSTER, NULL },
		{ "{\"priority_weight_age\":\"10\"}", SC_SCOPE_CLUSTER, NULL },
		{ "{\"PRIORITYWEIGHTAGE\":\"10\",\"PreemptMode\":\"REQUEUE\"}", SC_SCOPE_CLUSTER, NULL },
		{ "{\"PriorityWeightAge\":\"1\",\"priority_weight_age\":\"2\"}", SC_SCOPE_CLUSTER,
		  "are the same Slurm parameter" },
		{ "{\"HealthCheckProgram\":\"/x\"}", SC_SCOPE_CLUSTER, "'HealthCheckProgram' is refused" },
		{ "{\"health_check_interval\":\"10\"}", SC_SCOPE_CLUSTER, "'health_check_interval' is refused" },
		{ "{\"Epilog\":\"/x\"}", SC_SCOPE_CLUSTER, "epilog_bash_scripts" },
		{ "{\"StorageHost\":\"db\"}", SC_SCOPE_CLUSTER, "slurmdbd.conf" },
		{ "{\"PurgeJobAfter\":\"1month\"}", SC_SCOPE_CLUSTER, "slurmdbd.conf" },
		{ "{\"Default\":\"YES\"}", SC_SCOPE_PARTITION, "default_partition_id" },
		{ "{\"MaxTime\":\"120\"}", SC_SCOPE_PARTITION, NULL },
		{ "{\"MaxTime\":\"120\"}", SC_SCOPE_CLUSTER, "not valid in cluster scope" },
		{ "{\"Weight\":\"5\"}", SC_SCOPE_NODE, NULL },
		{ "{\"SchedulerParameters\":\"a\\nPartitionName=x\"}", SC_SCOPE_CLUSTER, "control character" },
		{ "{\"PriorityWeightAge\":10}", SC_SCOPE_CLUSTER, "must be a string" },
		{ "{\"PriorityWeightAgee\":\"1\"}", SC_SCOPE_CLUSTER, "did you mean 'PriorityWeightAge'" },
		{ "{\"PriorityWeightAge\":\"lots\"}", SC_SCOPE_CLUSTER, "invalid value 'lots'" },
		{ "{\"ClusterName\":\"x\"}", SC_SCOPE_CLUSTER, "managed by the service" },
		{ "[]", SC_SCOPE_CLUSTER, "must be a map" },
	};
	struct mdc_ctx ctx;

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *m = parse(cases[i].map);
		int rc;

		mdc_ctx_clear(&ctx);
		rc = mdc_rules_check_config_map(m, cases[i].scope, "config", &ctx);
		if (!cases[i].want) {
			if (rc)
				fail_msg("case %zu (%s): unexpected error: %s", i, cases[i].map, ctx.msg);
		} else {
			assert_int_equal(rc, MDC_ERR_INVAL);
			if (!strstr(ctx.msg, cases[i].want))
				fail_msg("case %zu (%s): '%s' lacks '%s'", i, cases[i].map, ctx.msg, cases[i].want);
		}
		json_object_put(m);
	}
}

static void test_create(void **state)
{
	json_object *images = parse("{\"*\":\"img-1\",\"a3-highgpu-8g\":\"gpu-img\"}"), *cl, *in, *out = NULL;
	struct mdc_images im = { images };
	struct mdc_ctx ctx;

	(void) state;
	cl = created(images);
	/* nothing pinned: both pools follow the default */
	assert_int_equal(json_object_array_length(mdc_json_get(cl, "_pinned_pools")), 0);
	assert_string_equal(mdc_json_get_str(json_object_array_get_idx(mdc_json_get(cl, "node_pools"), 0),
					     "node_image", ""), "img-1");
	json_object_put(cl);

	mdc_ctx_clear(&ctx);
	in = parse(base_cluster);
	assert_int_equal(mdc_rules_check_create("Bad", in, &im, &out, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "invalid cluster id 'Bad'"));
	assert_null(out);
	json_object_put(in);

	/* C9 at create: both set */
	mdc_ctx_clear(&ctx);
	in = parse("{\"node_pools\":[{\"id\":\"a\"}],\"orchestrator_spec\":{\"slurm_spec\":"
		   "{\"config\":{\"PriorityWeightAge\":\"1\"},\"accounting\":{\"x\":1}}}}");
	assert_int_equal(mdc_rules_check_create("c2", in, &im, &out, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "sets both config and the legacy"));
	json_object_put(in);

	/* camelCase input, canonical snake_case output, pinned image kept */
	mdc_ctx_clear(&ctx);
	in = parse("{\"nodePools\":[{\"id\":\"g\",\"machineSpec\":{\"machineType\":\"a3-highgpu-8g\"}},"
		   "{\"id\":\"p\",\"nodeImage\":\"mine\"}],"
		   "\"orchestratorSpec\":{\"slurmSpec\":{\"partitions\":[{\"id\":\"x\",\"nodePoolIds\":[\"g\"]}]}}}");
	assert_int_equal(mdc_rules_check_create("c3", in, &im, &out, &ctx), 0);
	assert_string_equal(mdc_json_get_str(json_object_array_get_idx(mdc_json_get(out, "node_pools"), 0),
					     "node_image", ""), "gpu-img");
	assert_string_equal(mdc_json_get_str(json_object_array_get_idx(mdc_json_get(out, "node_pools"), 1),
					     "node_image", ""), "mine");
	assert_true(json_object_object_get_ex(out, "orchestrator_spec", NULL));
	json_object_put(in);
	json_object_put(out);

	/* a partition on a missing pool */
	mdc_ctx_clear(&ctx);
	in = parse("{\"node_pools\":[{\"id\":\"a\"}],\"orchestrator_spec\":{\"slurm_spec\":"
		   "{\"partitions\":[{\"id\":\"p\",\"node_pool_ids\":[\"zz\"]}]}}}");
	assert_int_equal(mdc_rules_check_create("c4", in, &im, &out, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "node pool 'zz' does not exist"));
	json_object_put(in);
	json_object_put(images);
}

static void test_patch_mask_and_clear(void **state)
{
	json_object *images = parse("{\"*\":\"img-1\"}"), *cl = created(images);
	struct mdc_patch_result res;
	struct mdc_ctx ctx;

	(void) state;
	/* C1 + C2: config replaced, labels named-but-absent cleared */
	assert_int_equal(patch(cl, "{\"orchestratorSpec\":{\"slurmSpec\":{\"config\":{\"PreemptMode\":\"REQUEUE\"}}}}",
			       "labels,orchestrator_spec.slurm_spec.config", MDC_MODE_USER_ONLY, images,
			       &res, &ctx), 0);
	assert_null(mdc_json_get(res.cluster, "labels"));
	assert_string_equal(str_at(res.cluster, SS "config.PreemptMode"), "REQUEUE");
	assert_null(mdc_json_get_path(res.cluster, SS "config.PriorityWeightAge"));
	assert_true(mdc_strv_has(&res.changed, "labels"));
	assert_true(mdc_strv_has(&res.changed, SS "config"));
	assert_false(mdc_strv_has(&res.changed, SS "partitions"));
	assert_int_equal(res.recreated.n, 0);
	assert_false(res.nodes_changed);
	mdc_patch_result_free(&res);

	/* C3: no mask, omitted = cleared (the whole slurm_spec except what is sent) */
	assert_int_equal(patch(cl, "{\"labels\":{\"a\":\"b\"},\"node_pools\":[{\"id\":\"cpu\"}],"
			       "\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":[{\"id\":\"cpu\","
			       "\"node_pool_ids\":[\"cpu\"]}]}}}",
			       NULL, MDC_MODE_USER_ONLY, images, &res, &ctx), 0);
	assert_null(mdc_json_get_path(res.cluster, SS "config"));
	assert_null(mdc_json_get_path(res.cluster, SS "default_partition_id"));
	assert_null(mdc_json_get_path(res.cluster, SS "login_node_pool_id"));
	assert_int_equal(json_object_array_length(mdc_json_get(res.cluster, "node_pools")), 1);
	assert_true(res.nodes_changed);	/* cpu lost its scaling_spec */
	mdc_patch_result_free(&res);

	/* C7: an empty map with its path clears it */
	assert_int_equal(patch(cl, "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{}}}}",
			       SS "config", MDC_MODE_USER_ONLY, images, &res, &ctx), 0);
	assert_null(mdc_json_get_path(res.cluster, SS "config"));
	mdc_patch_result_free(&res);

	/* scaling a compute pool changes the Slurm node set */
	assert_int_equal(patch(cl, "{\"node_pools\":[{\"id\":\"cpu\",\"scaling_spec\":{\"max_node_count\":9}},"
			       "{\"id\":\"login\"}]}", "node_pools", MDC_MODE_USER_ONLY, images, &res, &ctx), 0);
	assert_true(res.nodes_changed);
	mdc_patch_result_free(&res);
	json_object_put(cl);
	json_object_put(images);
}

static void test_patch_default_partition(void **state)
{
	json_object *images = parse("{\"*\":\"img-1\"}"), *cl = created(images);
	struct mdc_patch_result res;
	struct mdc_ctx ctx;

	(void) state;
	assert_int_equal(patch(cl, "{\"orchestrator_spec\":{\"slurm_spec\":{\"default_partition_id\":\"long\"}}}",
			       SS "default_partition_id", MDC_MODE_USER_ONLY, images, &res, &ctx), 0);
	assert_string_equal(str_at(res.cluster, SS "default_partition_id"), "long");
	assert_int_equal(json_object_array_length(mdc_json_get_path(res.cluster, SS "partitions")), 2);
	mdc_patch_result_free(&res);

	assert_int_equal(patch(cl, "{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":"
			       "[{\"id\":\"long\",\"node_pool_ids\":[\"cpu\"]}]}}}",
			       SS "partitions", MDC_MODE_USER_ONLY, images, &res, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "removes or renames partition 'cpu'"));
	assert_null(res.cluster);

	/* both in one request: allowed */
	assert_int_equal(patch(cl, "{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":"
			       "[{\"id\":\"long\",\"node_pool_ids\":[\"cpu\"]}],\"default_partition_id\":\"long\"}}}",
			       SS "partitions," SS "default_partition_id", MDC_MODE_USER_ONLY, images,
			       &res, &ctx), 0);
	mdc_patch_result_free(&res);
	json_object_put(cl);
	json_object_put(images);
}

static void test_patch_legacy(void **state)
{
	json_object *images = parse("{\"*\":\"img-1\"}"), *cl = created(images), *ss;
	struct mdc_patch_result res;
	struct mdc_ctx ctx;

	(void) state;
	/* make it a legacy cluster */
	ss = mdc_json_get_path(cl, "orchestrator_spec.slurm_spec");
	mdc_json_del(ss, "config");
	mdc_json_set(ss, "scheduling", parse("{\"priority_type\":\"multifactor\"}"));
	assert_int_equal(patch(cl, "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"PriorityWeightQOS\":\"1\"}}}}",
			       SS "config", MDC_MODE_USER_ONLY, images, &res, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "name all three paths"));
	assert_int_equal(patch(cl, "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"PriorityWeightQOS\":\"1\"}}}}",
			       SS "config," SS "scheduling," SS "accounting", MDC_MODE_USER_ONLY, images,
			       &res, &ctx), 0);
	assert_null(mdc_json_get_path(res.cluster, SS "scheduling"));
	mdc_patch_result_free(&res);
	json_object_put(cl);
	json_object_put(images);
}

static void test_patch_images(void **state)
{
	json_object *images = parse("{\"*\":\"img-1\"}"), *cl = created(images), *img2;
	struct mdc_patch_result res;
	struct mdc_ctx ctx;

	(void) state;
	img2 = parse("{\"*\":\"img-2\"}");
	/* USER_ONLY: nothing moves */
	assert_int_equal(patch(cl, "{\"labels\":{}}", "labels", MDC_MODE_USER_ONLY, img2, &res, &ctx), 0);
	assert_int_equal(res.recreated.n, 0);
	mdc_patch_result_free(&res);
	/* USER_AND_SERVICE label change: both unpinned pools move */
	assert_int_equal(patch(cl, "{\"labels\":{}}", "labels", MDC_MODE_USER_AND_SERVICE, img2, &res, &ctx), 0);
	assert_int_equal(res.recreated.n, 2);
	assert_string_equal(res.recreated.v[0], "cpu");
	assert_string_equal(res.recreated.v[1], "login");
	assert_true(mdc_strv_has(&res.changed, "node_pools"));
	mdc_patch_result_free(&res);
	/* UNSPECIFIED = USER_AND_SERVICE; a pinned pool stays */
	assert_int_equal(patch(cl, "{\"node_pools\":[{\"id\":\"cpu\",\"node_image\":\"img-1\"},{\"id\":\"login\"}]}",
			       "node_pools", MDC_MODE_UNSPECIFIED, img2, &res, &ctx), 0);
	assert_int_equal(res.recreated.n, 1);
	assert_string_equal(res.recreated.v[0], "login");
	{
		/* the pin survives a later label-only update */
		json_object *next = json_object_get(res.cluster), *img3 = parse("{\"*\":\"img-3\"}");
		struct mdc_patch_result r2;

		mdc_patch_result_free(&res);
		assert_int_equal(patch(next, "{\"labels\":{}}", "labels", MDC_MODE_USER_AND_SERVICE, img3,
				       &r2, &ctx), 0);
		assert_int_equal(r2.recreated.n, 1);
		assert_string_equal(r2.recreated.v[0], "login");
		assert_string_equal(mdc_json_get_str(json_object_array_get_idx(
			mdc_json_get(r2.cluster, "node_pools"), 0), "node_image", ""), "img-1");
		mdc_patch_result_free(&r2);
		json_object_put(next);
		json_object_put(img3);
	}
	/* no image table: "<machine_type>-default" */
	assert_int_equal(patch(cl, "{\"labels\":{}}", "labels", MDC_MODE_USER_AND_SERVICE, NULL, &res, &ctx), 0);
	assert_string_equal(mdc_json_get_str(json_object_array_get_idx(mdc_json_get(res.cluster, "node_pools"), 0),
					     "node_image", ""), "n2-standard-8-default");
	mdc_patch_result_free(&res);
	json_object_put(img2);
	json_object_put(cl);
	json_object_put(images);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_mask_paths),
		cmocka_unit_test(test_cluster_id),
		cmocka_unit_test(test_config_map),
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_patch_mask_and_clear),
		cmocka_unit_test(test_patch_default_partition),
		cmocka_unit_test(test_patch_legacy),
		cmocka_unit_test(test_patch_images),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
