/* test_sc_translate.c - the renderer and the translation: a golden render,
 * the renderer's refusals, translation cases, and the property
 * "translate(render(spec), render(spec')) is exactly the change from spec
 * to spec'" (no change when spec' = spec) over many generated specs.
 * (owner: slurm.conf engine) */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_str.h"
#include "sc_conf.h"
#include "../sc/sc_gen.h"
#include "sc_render.h"
#include "sc_translate.h"

static char *srcpath(const char *rel)
{
	const char *top = getenv("top_srcdir");

	return mdc_path_join(top ? top : ".", rel);
}

static char *render(const json_object *spec, const char *base, struct mdc_ctx *ctx)
{
	struct mdc_buf b = MDC_BUF_INIT;

	mdc_ctx_clear(ctx);
	if (sc_render(spec, base, "base.conf", &b, ctx)) {
		mdc_buf_free(&b);
		return NULL;
	}
	return mdc_buf_release(&b);
}

static void test_render_golden(void **state)
{
	struct mdc_ctx ctx;
	json_object *spec = NULL;
	char *sp = srcpath("tests/sc/render/spec.json"), *bp = srcpath("tests/sc/render/base.conf");
	char *ep = srcpath("tests/sc/render/expected.conf"), *base = NULL, *want = NULL, *got;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_json_parse_file(sp, &spec, &ctx), 0);
	assert_int_equal(mdc_read_file(bp, &base, NULL, &ctx), 0);
	assert_int_equal(mdc_read_file(ep, &want, NULL, &ctx), 0);
	got = render(spec, base, &ctx);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	/* the same spec in snake_case renders the same text */
	{
		json_object *snake = mdc_json_normalize(spec, MDC_CASE_SNAKE);

		got = render(snake, base, &ctx);
		assert_non_null(got);
		assert_string_equal(got, want);
		free(got);
		json_object_put(snake);
	}
	json_object_put(spec);
	free(base);
	free(want);
	free(sp);
	free(bp);
	free(ep);
}

static void test_render_refusals(void **state)
{
	static const struct {
		const char *spec;
		const char *msg;
	} cases[] = {
		{ "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"MailDomain\":\"a\\nPrologFlags=x\"}}}}",
		  "control character" },
		{ "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"Bogus\":\"1\"}}}}",
		  "unknown slurm.conf key \"Bogus\"" },
		{ "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"ClusterName\":\"x\"}}}}",
		  "\"ClusterName\" cannot be set here" },
		{ "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"MailDomain\":\"a \\\"b\\\"\"}}}}",
		  "both spaces and a double quote" },
		{ "{\"node_pools\":[{\"id\":\"a\"}],\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":"
		  "[{\"id\":\"p\",\"node_pool_ids\":[\"a\"],\"config\":{\"Default\":\"YES\"}}]}}}",
		  "use default_partition_id" },
		{ "{\"node_pools\":[{\"id\":\"a\"}],\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":"
		  "[{\"id\":\"p\",\"node_pool_ids\":[\"nope\"]}]}}}",
		  "\"nope\" is not a compute node pool" },
		{ "{\"node_pools\":[{\"id\":\"a b\"}]}", "not a valid Slurm name" },
		{ "[]", "must be a JSON object" },
	};
	struct mdc_ctx ctx;
	size_t i;

	(void) state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *spec = NULL;
		char *got;

		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_json_parse(cases[i].spec, strlen(cases[i].spec), &spec, &ctx), 0);
		got = render(spec, NULL, &ctx);
		if (got || !strstr(ctx.msg, cases[i].msg)) {
			print_error("case %zu: got '%s', message '%s'\n", i, got ? got : "(null)", ctx.msg);
			fail();
		}
		json_object_put(spec);
	}
}

/* The ops of translate(BASE_TEXT, EDITED_TEXT) as one string per op. */
static void translate_text(const json_object *spec, const char *a, const char *b,
			   struct mdc_strv *ops, struct mdc_intent *in)
{
	struct mdc_ctx ctx;
	struct sc_conf *ca = NULL, *cb = NULL;
	size_t i, j;

	mdc_ctx_clear(&ctx);
	assert_int_equal(sc_conf_parse_string(a, strlen(a), "base.conf", &ca, &ctx), 0);
	if (sc_conf_parse_string(b, strlen(b), "edited.conf", &cb, &ctx)) {
		print_error("%s\n", ctx.msg);
		fail();
	}
	assert_int_equal(sc_translate(ca, cb, spec, in, &ctx), 0);
	for (i = 0; i < in->n; i++) {
		struct mdc_buf s = MDC_BUF_INIT;
		const struct mdc_op *o = &in->ops[i];

		mdc_buf_addf(&s, "%s %s %s %s", mdc_op_kind_name(o->kind), o->id ? o->id : "-",
			     o->key ? o->key : "-", o->value ? o->value : "-");
		for (j = 0; j < o->list.n; j++)
			mdc_buf_addf(&s, " pool:%s", o->list.v[j]);
		for (j = 0; j < o->kv.n; j++)
			mdc_buf_addf(&s, " kv:%s", o->kv.v[j]);
		mdc_buf_addf(&s, " @%s", o->where);
		mdc_strv_push(ops, mdc_buf_str(&s));
		mdc_buf_free(&s);
	}
	sc_conf_free(ca);
	sc_conf_free(cb);
}

/* Replace the first occurrence of FROM in TEXT (must exist). */
static char *subst(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);
	struct mdc_buf b = MDC_BUF_INIT;

	assert_non_null(p);
	mdc_buf_add(&b, text, (size_t) (p - text));
	mdc_buf_adds(&b, to);
	mdc_buf_adds(&b, p + strlen(from));
	return mdc_buf_release(&b);
}

static void test_translate_cases(void **state)
{
	struct mdc_ctx ctx;
	json_object *spec = NULL;
	char *sp = srcpath("tests/sc/render/spec.json"), *ep = srcpath("tests/sc/render/expected.conf");
	char *base = NULL, *ed, *t;
	struct mdc_strv ops = MDC_STRV_INIT;
	struct mdc_intent in = MDC_INTENT_INIT;
	char *joined;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_json_parse_file(sp, &spec, &ctx), 0);
	assert_int_equal(mdc_read_file(ep, &base, NULL, &ctx), 0);

	ed = subst(base, "PreemptMode=REQUEUE", "PreemptMode=CANCEL");
	t = subst(ed, "PartitionName=gpu Nodes=a3 Default=YES", "PartitionName=gpu Nodes=a3,cpu");
	free(ed);
	ed = subst(t, "PartitionName=all Nodes=a3,cpu State=DOWN", "PartitionName=all Nodes=ALL Default=YES MaxTime=60");
	free(t);
	t = subst(ed, "Weight=5", "Weight=9 CPUs=16");
	free(ed);
	ed = subst(t, "ClusterName=c1", "ClusterName=c2");
	free(t);
	t = subst(ed, "MailDomain=C:\\\\dom\n", "");
	free(ed);
	ed = subst(t, "SchedulerParameters", "Prolog=/x.sh\nPartitionName=new Nodes=cpu-[0-1] PriorityTier=3 State=DOWN\nSchedulerParameters");
	free(t);
	translate_text(spec, base, ed, &ops, &in);
	joined = mdc_strv_join(&ops, "\n");
	assert_string_equal(joined,
		"config-set - PreemptMode CANCEL @edited.conf:9\n"
		"config-unset - MailDomain - @base.conf:9\n"
		"partition-create new - - pool:cpu kv:PriorityTier=3 kv:State=DOWN @edited.conf:13\n"
		"partition-node-pools gpu - - pool:a3 pool:cpu @edited.conf:15\n"
		"partition-set all MaxTime 60 @edited.conf:16\n"
		"partition-unset all State - @edited.conf:16\n"
		"partition-default all - - @edited.conf:16\n"
		"nodeset-set a3 Weight 9 @edited.conf:5");
	free(joined);
	assert_int_equal(in.notes.n, 2);
	assert_non_null(strstr(in.notes.v[0], "edited.conf:1: ClusterName is service-managed"));
	assert_non_null(strstr(in.notes.v[1], "CPUs: generated node hardware is service-managed"));
	assert_int_equal(in.refusals.n, 1);
	assert_non_null(strstr(in.refusals.v[0], "edited.conf:12: Prolog= cannot be set through slurm.conf"));
	assert_non_null(strstr(in.refusals.v[0], "mdcctl prolog"));
	mdc_intent_free(&in);
	mdc_strv_free(&ops);
	free(ed);

	/* partition removed, a node added, Nodes= naming no pool */
	ed = subst(base, "PartitionName=gpu Nodes=a3 Default=YES State=UP MaxTime=2-00:00:00 PriorityTier=10\n", "");
	t = subst(ed, "PartitionName=all Nodes=a3,cpu", "PartitionName=all Nodes=a3-0,cpu");
	free(ed);
	ed = subst(t, "NodeSet=cpu", "NodeName=extra-0 State=FUTURE\nEpilog=/y\nNodeSet=cpu");
	free(t);
	memset(&in, 0, sizeof(in));
	translate_text(spec, base, ed, &ops, &in);
	joined = mdc_strv_join(&ops, "\n");
	assert_string_equal(joined, "partition-delete gpu - - @base.conf:14");
	free(joined);
	assert_int_equal(in.refusals.n, 3);
	assert_non_null(strstr(in.refusals.v[0], "Epilog= cannot be set through slurm.conf"));
	assert_non_null(strstr(in.refusals.v[1], "\"a3-0\" is not a node pool"));
	assert_non_null(strstr(in.refusals.v[2], "NodeName=extra-0: nodes come from node pools"));
	assert_int_equal(in.notes.n, 1);	/* no Default=YES left */
	mdc_intent_free(&in);
	mdc_strv_free(&ops);
	free(ed);

	json_object_put(spec);
	free(base);
	free(sp);
	free(ep);
}

/* One mutation of a generated spec and the single op it must produce. */
struct mutation {
	const char *name;
	/* change SPEC in place; write the expected op (translate_text form,
	 * without "@where") to WANT; return false if it does not apply */
	bool (*apply)(json_object *spec, char *want, size_t wantsz);
};

static json_object *slurm_spec(json_object *spec)
{
	return mdc_json_get_path(spec, "orchestrator_spec.slurm_spec");
}

static bool mut_config(json_object *spec, char *want, size_t wantsz)
{
	json_object *cfg = mdc_json_get_obj(slurm_spec(spec), "config");

	json_object_object_add(cfg, "PriorityWeightJobSize", json_object_new_string("777"));
	snprintf(want, wantsz, "config-set - PriorityWeightJobSize 777");
	return true;
}

static bool mut_unset(json_object *spec, char *want, size_t wantsz)
{
	json_object *cfg = mdc_json_get_obj(slurm_spec(spec), "config");
	const char *key = NULL;

	json_object_object_foreach(cfg, k, v) {
		(void) v;
		if (strcmp(k, "PreemptType") && strcmp(k, "PreemptMode"))
			key = k;
	}
	if (!key)
		return false;
	snprintf(want, wantsz, "config-unset - %s -", key);
	json_object_object_del(cfg, key);
	return true;
}

static bool mut_part(json_object *spec, char *want, size_t wantsz)
{
	json_object *p = json_object_array_get_idx(mdc_json_get_arr(slurm_spec(spec), "partitions"), 0);

	json_object_object_add(mdc_json_get_obj(p, "config"), "GraceTime", json_object_new_string("30"));
	snprintf(want, wantsz, "partition-set part0 GraceTime 30");
	return true;
}

static bool mut_default(json_object *spec, char *want, size_t wantsz)
{
	json_object *ss = slurm_spec(spec), *parts = mdc_json_get_arr(ss, "partitions");
	const char *def = mdc_json_get_str(ss, "default_partition_id", NULL);
	size_t n = json_object_array_length(parts);

	if (n < 2 || (def && !strcmp(def, "part1")))
		return false;
	mdc_json_set(ss, "default_partition_id", json_object_new_string("part1"));
	snprintf(want, wantsz, "partition-default part1 - -");
	return true;
}

static bool mut_nodeset(json_object *spec, char *want, size_t wantsz)
{
	json_object *ss = slurm_spec(spec), *sets = mdc_json_get_arr(ss, "node_sets"), *cfg = NULL;
	size_t i;

	for (i = 0; i < json_object_array_length(sets); i++) {
		json_object *s = json_object_array_get_idx(sets, i);

		if (!strcmp(mdc_json_get_str(s, "node_pool_id", ""), "pa"))
			cfg = mdc_json_get_obj(s, "config");
	}
	if (!cfg) {
		json_object *s = json_object_new_object();

		cfg = json_object_new_object();
		json_object_object_add(s, "node_pool_id", json_object_new_string("pa"));
		json_object_object_add(s, "config", cfg);
		json_object_array_add(sets, s);
	}
	json_object_object_add(cfg, "Weight", json_object_new_string("4242"));
	snprintf(want, wantsz, "nodeset-set pa Weight 4242");
	return true;
}

static bool mut_delete(json_object *spec, char *want, size_t wantsz)
{
	json_object *ss = slurm_spec(spec), *parts = mdc_json_get_arr(ss, "partitions");
	size_t n = json_object_array_length(parts);
	const char *def = mdc_json_get_str(ss, "default_partition_id", NULL);
	char id[16];

	snprintf(id, sizeof(id), "part%zu", n - 1);
	if (n < 2 || (def && !strcmp(def, id)))
		return false;
	json_object_array_del_idx(parts, n - 1, 1);
	snprintf(want, wantsz, "partition-delete %s - -", id);
	return true;
}

static void test_property(void **state)
{
	static const struct mutation muts[] = {
		{ "config", mut_config }, { "unset", mut_unset }, { "partition", mut_part },
		{ "default", mut_default }, { "nodeset", mut_nodeset }, { "delete", mut_delete },
	};
	unsigned seed, checked = 0;

	(void) state;
	for (seed = 1; seed <= 400; seed++) {
		struct mdc_ctx ctx;
		json_object *spec = sc_gen_spec(seed), *norm, *spec2;
		struct mdc_strv ops = MDC_STRV_INIT;
		struct mdc_intent in = MDC_INTENT_INIT;
		const struct mutation *m = &muts[seed % (sizeof(muts) / sizeof(muts[0]))];
		char *a, *b, want[256];

		assert_non_null(spec);
		a = render(spec, sc_gen_base, &ctx);
		if (!a) {
			print_error("seed %u: %s\n", seed, ctx.msg);
			fail();
		}
		/* render(spec) against itself: nothing */
		translate_text(spec, a, a, &ops, &in);
		if (ops.n || in.notes.n || in.refusals.n) {
			print_error("seed %u: self-translation gave %zu ops, %zu notes, %zu refusals (%s)\n",
				    seed, ops.n, in.notes.n, in.refusals.n,
				    ops.n ? ops.v[0] : in.notes.n ? in.notes.v[0] : in.refusals.v[0]);
			fail();
		}
		mdc_intent_free(&in);
		mdc_strv_free(&ops);

		/* one change in the spec: exactly that op */
		norm = mdc_json_normalize(spec, MDC_CASE_SNAKE);
		spec2 = mdc_json_copy(norm);
		if (m->apply(spec2, want, sizeof(want))) {
			b = render(spec2, sc_gen_base, &ctx);
			assert_non_null(b);
			memset(&in, 0, sizeof(in));
			translate_text(norm, a, b, &ops, &in);
			if (ops.n != 1 || strncmp(ops.v[0], want, strlen(want)) || ops.v[0][strlen(want)] != ' ' ||
			    in.refusals.n) {
				print_error("seed %u, mutation %s: want '%s', got %zu ops: '%s'\n", seed,
					    m->name, want, ops.n, ops.n ? ops.v[0] : "");
				fail();
			}
			checked++;
			mdc_intent_free(&in);
			mdc_strv_free(&ops);
			free(b);
		}
		json_object_put(norm);
		json_object_put(spec2);
		json_object_put(spec);
		free(a);
	}
	print_message("# %u mutations checked\n", checked);
	assert_true(checked > 250);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_golden),
		cmocka_unit_test(test_render_refusals),
		cmocka_unit_test(test_translate_cases),
		cmocka_unit_test(test_property),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
