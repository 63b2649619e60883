/* test_broker.c - unit tests for the broker's shared pieces: the intent on
 * the wire (every op kind round-trips), the request digest, errors on the
 * wire, and the rollback intent (planned on the current spec it gives back
 * the earlier one).  (owner: mdcd) */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "mdc_broker.h"
#include "mdc_json.h"
#include "mdc_plan.h"

static void test_sha256(void **state)
{
	char hex[65];

	(void) state;
	assert_int_equal(mdc_sha256_hex("abc", 3, hex, NULL), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(mdc_sha256_hex("", 0, hex, NULL), 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void assert_str_or_null(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void test_intent_roundtrip(void **state)
{
	struct mdc_intent in = MDC_INTENT_INIT, back = MDC_INTENT_INIT;
	struct mdc_ctx ctx;
	json_object *j, *again;

	(void) state;
	mdc_ctx_clear(&ctx);
	for (int k = 0; k < MDC_OP_KIND_MAX; k++) {
		struct mdc_op *op = mdc_intent_add(&in, (enum mdc_op_kind) k, k % 2 ? "gpu" : NULL,
						   k % 3 ? "MaxTime" : NULL, k % 4 ? "v \"q\"\n" : NULL);

		assert_non_null(op);
		op->min = k;
		op->max = 100 + k;
		op->index = k - 1;
		op->where = k % 2 ? strdup("file:3") : NULL;
		if (k % 2)
			assert_int_equal(mdc_strv_push(&op->list, "a"), 0);
		if (k % 3 == 0)
			assert_int_equal(mdc_strv_push(&op->kv, "MaxTime=5"), 0);
	}
	assert_int_equal(mdc_strv_push(&in.notes, "a note"), 0);
	assert_int_equal(mdc_strv_push(&in.refusals, "Prolog is refused"), 0);
	assert_non_null(j = mdc_intent_to_json(&in));
	/* through text, as on the wire */
	assert_int_equal(mdc_json_parse(mdc_json_str(j, false), strlen(mdc_json_str(j, false)),
					&again, &ctx), 0);
	assert_int_equal(mdc_intent_from_json(again, &back, &ctx), 0);
	assert_int_equal(back.n, in.n);
	for (size_t i = 0; i < in.n; i++) {
		const struct mdc_op *a = &in.ops[i], *b = &back.ops[i];

		assert_int_equal(a->kind, b->kind);
		assert_str_or_null(a->id, b->id);
		assert_str_or_null(a->key, b->key);
		assert_str_or_null(a->value, b->value);
		assert_str_or_null(a->where, b->where);
		assert_int_equal(a->min, b->min);
		assert_int_equal(a->max, b->max);
		assert_int_equal(a->index, b->index);
		assert_int_equal(a->list.n, b->list.n);
		assert_int_equal(a->kv.n, b->kv.n);
	}
	assert_int_equal(back.notes.n, 1);
	assert_string_equal(back.refusals.v[0], "Prolog is refused");
	json_object_put(j);
	json_object_put(again);
	mdc_intent_free(&in);
	mdc_intent_free(&back);
}

static void test_intent_bad(void **state)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_ctx ctx;
	json_object *j;

	(void) state;
	mdc_ctx_clear(&ctx);
	j = json_tokener_parse("{\"ops\":[{\"kind\":\"format-disk\"}]}");
	assert_int_equal(mdc_intent_from_json(j, &in, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "unknown kind 'format-disk'"));
	json_object_put(j);
	mdc_intent_free(&in);
	mdc_ctx_clear(&ctx);
	j = json_tokener_parse("{\"nops\":[]}");
	assert_int_equal(mdc_intent_from_json(j, &in, &ctx), MDC_ERR_INVAL);
	json_object_put(j);
	mdc_intent_free(&in);
}

static void test_error_wire(void **state)
{
	struct mdc_ctx a, b;
	json_object *j;

	(void) state;
	mdc_ctx_clear(&a);
	mdc_ctx_clear(&b);
	mdc_fail(&a, MDC_ERR_API, "INVALID_ARGUMENT: no");
	a.http_code = 400;
	snprintf(a.status, sizeof(a.status), "INVALID_ARGUMENT");
	assert_non_null(j = mdc_broker_error_json(&a));
	assert_int_equal(mdc_broker_error(j, &b), MDC_ERR_API);
	assert_string_equal(b.msg, a.msg);
	assert_int_equal(b.http_code, 400);
	assert_string_equal(b.status, "INVALID_ARGUMENT");
	json_object_put(j);
	/* an error number from a newer mdcd is not trusted */
	mdc_ctx_clear(&b);
	j = json_tokener_parse("{\"err\":999,\"message\":\"x\"}");
	assert_int_equal(mdc_broker_error(j, &b), MDC_ERR_INTERNAL);
	json_object_put(j);
}

static const char *const current_json =
	"{\"name\":\"projects/p/locations/r/modelDevelopmentClusters/c\","
	" \"labels\":{\"team\":\"ml\",\"new\":\"x\"},"
	" \"nodePools\":[{\"id\":\"cpu\",\"machineSpec\":{\"machineType\":\"n2-standard-8\"},"
	"   \"scalingSpec\":{\"minNodeCount\":1,\"maxNodeCount\":2},\"nodeImage\":\"i1\"},"
	"  {\"id\":\"login\",\"machineSpec\":{\"machineType\":\"n2-standard-8\"},"
	"   \"scalingSpec\":{\"minNodeCount\":1,\"maxNodeCount\":1},\"nodeImage\":\"i1\"}],"
	" \"orchestratorSpec\":{\"slurmSpec\":{\"loginNodePoolId\":\"login\","
	"   \"partitions\":[{\"id\":\"cpu\",\"nodePoolIds\":[\"cpu\"],\"config\":{\"MaxTime\":\"60\"}},"
	"                   {\"id\":\"extra\",\"nodePoolIds\":[\"cpu\"]}],"
	"   \"defaultPartitionId\":\"cpu\","
	"   \"config\":{\"PriorityWeightAge\":\"100\",\"PriorityType\":\"priority/multifactor\"},"
	"   \"prologBashScripts\":[\"echo new\"]}}}";
static const char *const target_json =
	"{\"name\":\"projects/p/locations/r/modelDevelopmentClusters/c\","
	" \"labels\":{\"team\":\"ai\"},"
	" \"nodePools\":[{\"id\":\"cpu\",\"machineSpec\":{\"machineType\":\"n2-standard-8\"},"
	"   \"scalingSpec\":{\"minNodeCount\":1,\"maxNodeCount\":2},\"nodeImage\":\"i1\"},"
	"  {\"id\":\"login\",\"machineSpec\":{\"machineType\":\"n2-standard-8\"},"
	"   \"scalingSpec\":{\"minNodeCount\":1,\"maxNodeCount\":1},\"nodeImage\":\"i1\"}],"
	" \"orchestratorSpec\":{\"slurmSpec\":{\"loginNodePoolId\":\"login\","
	"   \"partitions\":[{\"id\":\"cpu\",\"nodePoolIds\":[\"cpu\"],\"config\":{\"MaxTime\":\"30\"}}],"
	"   \"defaultPartitionId\":\"cpu\","
	"   \"config\":{\"PriorityType\":\"priority/multifactor\"}}}}";

/* Planned on the current spec, the rollback intent gives back the target's
 * Slurm settings, partitions, labels and scripts. */
static void test_rollback(void **state)
{
	json_object *cur = json_tokener_parse(current_json), *tgt = json_tokener_parse(target_json);
	json_object *want = mdc_json_normalize(tgt, MDC_CASE_SNAKE);
	static const char *const paths[] = {
		"labels", "orchestrator_spec.slurm_spec.config",
		"orchestrator_spec.slurm_spec.partitions",
		"orchestrator_spec.slurm_spec.default_partition_id",
	};
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan_opts po = { .mode = MDC_MODE_USER_ONLY };
	struct mdc_plan plan;
	struct mdc_ctx ctx;
	json_object *scripts;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_non_null(cur);
	assert_non_null(tgt);
	assert_int_equal(mdc_rollback_intent(cur, tgt, &in, &ctx), 0);
	assert_true(in.n > 0);
	assert_int_equal(in.refusals.n, 0);
	assert_int_equal(mdc_plan_make(cur, &in, &po, &plan, &ctx), 0);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		json_object *got = mdc_json_get_path(plan.result, paths[i]);
		json_object *exp = mdc_json_get_path(want, paths[i]);

		if (!mdc_json_equal(got, exp))
			fail_msg("%s: got %s, want %s", paths[i], mdc_json_str(got, false),
				 mdc_json_str(exp, false));
	}
	scripts = mdc_json_get_path(plan.result, "orchestrator_spec.slurm_spec.prolog_bash_scripts");
	assert_true(!scripts || json_object_array_length(scripts) == 0);
	assert_int_equal(plan.recreate.n, 0);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	/* back to where it is: nothing to do */
	{
		struct mdc_intent none = MDC_INTENT_INIT;

		assert_int_equal(mdc_rollback_intent(cur, cur, &none, &ctx), 0);
		assert_int_equal(none.n, 0);
		mdc_intent_free(&none);
	}
	json_object_put(want);
	json_object_put(cur);
	json_object_put(tgt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_intent_roundtrip),
		cmocka_unit_test(test_intent_bad),
		cmocka_unit_test(test_error_wire),
		cmocka_unit_test(test_rollback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
