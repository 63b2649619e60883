/* test_core.c - unit tests for the base modules: errors, buffers, strings,
 * JSON helpers, intent. */
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
#include "mdc_buf.h"
#include "mdc_err.h"
#include "mdc_intent.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_str.h"

static void test_err_first_wins(void **state)
{
	struct mdc_ctx ctx;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_fail(&ctx, MDC_ERR_INVAL, "bad key '%s'", "Foo"), MDC_ERR_INVAL);
	mdc_fail(&ctx, MDC_ERR_IO, "second");
	assert_int_equal(ctx.err, MDC_ERR_INVAL);
	assert_string_equal(ctx.msg, "bad key 'Foo'");
	mdc_ctx_prefix(&ctx, "file %s", "x.conf");
	assert_string_equal(ctx.msg, "file x.conf: bad key 'Foo'");
	assert_string_equal(mdc_strerror(MDC_ERR_REFUSED), "refused before sending");
	assert_string_equal(mdc_strerror((enum mdc_err) 999), "unknown error");
	assert_int_equal(mdc_exit_code(MDC_OK), 0);
	assert_int_equal(mdc_exit_code(MDC_ERR_USAGE), 2);
	assert_int_not_equal(mdc_exit_code(MDC_ERR_API), mdc_exit_code(MDC_ERR_OPFAILED));
	/* NULL context is allowed and still returns the code */
	assert_int_equal(mdc_fail(NULL, MDC_ERR_NOMEM, "x"), MDC_ERR_NOMEM);
}

static void test_buf(void **state)
{
	struct mdc_buf b = MDC_BUF_INIT;
	char *s;

	(void) state;
	assert_string_equal(mdc_buf_str(&b), "");
	for (int i = 0; i < 1000; i++)
		assert_int_equal(mdc_buf_addf(&b, "%d,", i), 0);
	assert_true(b.len > 3000);
	assert_true(strncmp(b.s, "0,1,2,", 6) == 0);
	assert_int_equal(b.s[b.len], '\0');
	mdc_buf_reset(&b);
	assert_int_equal(b.len, 0);
	mdc_buf_adds(&b, "ab");
	mdc_buf_addc(&b, 'c');
	mdc_buf_add(&b, "dxx", 1);
	s = mdc_buf_release(&b);
	assert_string_equal(s, "abcd");
	assert_null(b.s);
	free(s);
	mdc_buf_free(&b);
}

static void test_key_eq(void **state)
{
	(void) state;
	assert_true(mdc_key_eq("PriorityWeightAge", "priority_weight_age"));
	assert_true(mdc_key_eq("PRIORITYWEIGHTAGE", "PriorityWeightAge"));
	assert_true(mdc_key_eq("Max_Time", "maxtime"));
	assert_false(mdc_key_eq("MaxTime", "MaxTim"));	/* no abbreviations */
	assert_false(mdc_key_eq("MaxTime", "MaxTimes"));
	assert_false(mdc_key_eq(NULL, "x"));
	assert_true(mdc_key_eq(NULL, NULL));
	assert_true(mdc_has_ctrl("a\nb"));
	assert_true(mdc_has_ctrl("a\tb"));
	assert_false(mdc_has_ctrl("bf_continue,bf_window=1440"));
}

static void test_strv(void **state)
{
	struct mdc_strv sv = MDC_STRV_INIT;
	char *j;

	(void) state;
	assert_int_equal(mdc_strv_split(&sv, " b, a ,,c ", ","), 0);
	assert_int_equal(sv.n, 3);
	assert_string_equal(sv.v[0], "b");
	assert_null(sv.v[3]);
	mdc_strv_sort(&sv);
	j = mdc_strv_join(&sv, ",");
	assert_string_equal(j, "a,b,c");
	free(j);
	assert_true(mdc_strv_has(&sv, "c"));
	assert_false(mdc_strv_has(&sv, "d"));
	mdc_strv_pushf(&sv, "n=%d", 5);
	assert_string_equal(sv.v[3], "n=5");
	mdc_strv_free(&sv);
	assert_int_equal(sv.n, 0);
}

static void test_path_and_files(void **state)
{
	char dir[] = "/tmp/mdc-test-XXXXXX", *p, *data;
	struct mdc_ctx ctx;
	size_t len;

	(void) state;
	mdc_ctx_clear(&ctx);
	p = mdc_path_join("/etc/slurm", "nodes.conf");
	assert_string_equal(p, "/etc/slurm/nodes.conf");
	free(p);
	p = mdc_path_join("/etc/slurm/", "/abs.conf");
	assert_string_equal(p, "/abs.conf");
	free(p);
	p = mdc_path_dirname("/etc/slurm/slurm.conf");
	assert_string_equal(p, "/etc/slurm");
	free(p);
	p = mdc_path_dirname("slurm.conf");
	assert_string_equal(p, ".");
	free(p);

	assert_non_null(mkdtemp(dir));
	p = mdc_path_join(dir, "f");
	assert_int_equal(mdc_write_file_atomic(p, "hello\n", 6, 0600, &ctx), 0);
	assert_int_equal(mdc_read_file(p, &data, &len, &ctx), 0);
	assert_int_equal(len, 6);
	assert_string_equal(data, "hello\n");
	free(data);
	unlink(p);
	assert_int_equal(mdc_read_file(p, &data, &len, &ctx), MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "cannot open"));
	/* a scratch file is new or nothing: an existing one is not replaced */
	assert_int_equal(mdc_write_file_scratch(p, "abc", 3, 0600, &ctx), 0);
	assert_int_equal(mdc_read_file(p, &data, &len, &ctx), 0);
	assert_string_equal(data, "abc");
	free(data);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_write_file_scratch(p, "xyz", 3, 0600, &ctx), MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "cannot create"));
	assert_int_equal(mdc_read_file(p, &data, &len, &ctx), 0);
	assert_string_equal(data, "abc");
	free(data);
	unlink(p);
	free(p);
	rmdir(dir);
}

static void test_json_parse_strict(void **state)
{
	struct mdc_ctx ctx;
	json_object *o = NULL;
	const char *good = "{\"a\": 1}  \n";

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_json_parse(good, strlen(good), &o, &ctx), 0);
	json_object_put(o);
	assert_int_equal(mdc_json_parse("{\"a\":1} x", 9, &o, &ctx), MDC_ERR_PARSE);
	assert_null(o);
	assert_non_null(strstr(ctx.msg, "offset 8"));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_json_parse("{\"a\":", 5, &o, &ctx), MDC_ERR_PARSE);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_json_parse("[1,]", 4, &o, &ctx), MDC_ERR_PARSE);
	/* UTF-8 in strings, strict still (json-c 0.18's strict mode alone
	 * refuses it): keys and values keep their bytes, 1 to 4 per character */
	{
		const char *u = "{\"caf\xc3\xa9\":[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \\u00e9\",1]}";

		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_json_parse(u, strlen(u), &o, &ctx), 0);
		assert_string_equal(json_object_get_string(json_object_array_get_idx(
			json_object_object_get(o, "caf\xc3\xa9"), 0)),
			"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xc3\xa9");
		json_object_put(o);
		assert_int_equal(mdc_json_parse("[\"\xc3\xa9\",]", 7, &o, &ctx), MDC_ERR_PARSE);
		assert_null(o);
	}
}

static void test_json_case(void **state)
{
	struct mdc_ctx ctx;
	json_object *o, *n, *m;
	char out[64];
	const char *txt =
		"{\"orchestratorSpec\":{\"slurm_spec\":{\"defaultPartitionId\":\"cpu\","
		"\"config\":{\"Priority_Weight_Age\":\"1000\"},"
		"\"partitions\":[{\"id\":\"cpu\",\"nodePoolIds\":[\"a\"]}]}},"
		"\"labels\":{\"team_name\":\"x\"},\"node_pools\":[{\"machineSpec\":{\"machine_type\":\"n2\"}}]}";

	(void) state;
	mdc_ctx_clear(&ctx);
	mdc_snake_to_camel("node_pool_ids", out, sizeof(out));
	assert_string_equal(out, "nodePoolIds");
	mdc_camel_to_snake("nodePoolIds", out, sizeof(out));
	assert_string_equal(out, "node_pool_ids");

	assert_int_equal(mdc_json_parse(txt, strlen(txt), &o, &ctx), 0);
	assert_string_equal(mdc_json_get_str(mdc_json_get_path(o, "orchestrator_spec.slurmSpec"),
					     "default_partition_id", ""), "cpu");
	n = mdc_json_normalize(o, MDC_CASE_SNAKE);
	assert_non_null(mdc_json_get_path(n, "orchestrator_spec.slurm_spec.partitions"));
	/* map keys are data: never converted */
	m = mdc_json_get_path(n, "orchestrator_spec.slurm_spec.config");
	assert_non_null(json_object_object_get(m, "Priority_Weight_Age"));
	assert_non_null(json_object_object_get(mdc_json_get(n, "labels"), "team_name"));
	assert_string_equal(mdc_json_str(n, false),
		"{\"orchestrator_spec\":{\"slurm_spec\":{\"default_partition_id\":\"cpu\","
		"\"config\":{\"Priority_Weight_Age\":\"1000\"},"
		"\"partitions\":[{\"id\":\"cpu\",\"node_pool_ids\":[\"a\"]}]}},"
		"\"labels\":{\"team_name\":\"x\"},\"node_pools\":[{\"machine_spec\":{\"machine_type\":\"n2\"}}]}");
	json_object_put(n);
	n = mdc_json_normalize(o, MDC_CASE_CAMEL);
	assert_non_null(json_object_object_get(n, "nodePools"));
	assert_non_null(json_object_object_get(mdc_json_get(n, "labels"), "team_name"));
	json_object_put(n);
	json_object_put(o);

	/* a compiled pipeline is foreign data: its keys survive at every depth */
	txt = "{\"pipelineSpec\":{\"deployment_spec\":{\"executors\":{\"exec_a\":{\"container\":{\"image_uri\":\"x\"}}}}},"
	      "\"runtime_config\":{\"gcsOutputDirectory\":\"gs://b\"}}";
	assert_int_equal(mdc_json_parse(txt, strlen(txt), &o, &ctx), 0);
	n = mdc_json_normalize(o, MDC_CASE_CAMEL);
	assert_string_equal(mdc_json_str(n, false),
		"{\"pipelineSpec\":{\"deployment_spec\":{\"executors\":{\"exec_a\":{\"container\":{\"image_uri\":\"x\"}}}}},"
		"\"runtimeConfig\":{\"gcsOutputDirectory\":\"gs://b\"}}");
	json_object_put(n);
	n = mdc_json_normalize(o, MDC_CASE_SNAKE);
	assert_non_null(mdc_json_get_path(n, "pipeline_spec.deployment_spec.executors.exec_a"));
	json_object_put(n);
	json_object_put(o);
}

static void test_json_set_and_get(void **state)
{
	json_object *o = json_object_new_object(), *cfg;

	(void) state;
	json_object_object_add(o, "nodePools", json_object_new_array());
	mdc_json_set(o, "node_pools", json_object_new_int(3));
	/* the camelCase spelling was replaced, not duplicated */
	assert_int_equal(json_object_object_length(o), 1);
	assert_int_equal(mdc_json_get_int(o, "nodePools", -1), 3);
	json_object_object_add(o, "n64", json_object_new_string("12345678901"));
	assert_int_equal(mdc_json_get_int(o, "n64", -1), 12345678901LL);
	assert_int_equal(mdc_json_get_int(o, "absent", -7), -7);
	assert_true(mdc_json_get_bool(o, "absent", true));
	cfg = mdc_json_mkpath(o, "orchestrator_spec.slurm_spec.config");
	assert_non_null(cfg);
	json_object_object_add(cfg, "MaxJobCount", json_object_new_string("5"));
	assert_string_equal(mdc_json_get_str(mdc_json_get_path(o, "orchestratorSpec.slurmSpec.config"),
					     "MaxJobCount", ""), "5");
	mdc_json_del(o, "nodePools");
	assert_null(mdc_json_get(o, "node_pools"));
	json_object_put(o);
}

/* A container with kept text freed as the root of a put, and one freed
 * while json-c frees its parent: json-c 0.19 (Debian unstable) took the
 * root's userdata for its parent and crashed (double free) before
 * mdc_json_userdata_release; under ASan or valgrind anywhere, a deleter
 * that frees twice shows. */
static void test_json_kept_text_freed(void **state)
{
	json_object *list = json_tokener_parse("[{\"a\":{\"b\":[1,2]}},{\"c\":[{\"d\":1}]}]");
	json_object *el;

	(void) state;
	assert_non_null(list);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(mdc_json_keep_text(json_object_array_get_idx(list, i)), 0);
	el = json_object_get(json_object_array_get_idx(list, 0));
	/* the list's put frees element 1 as a child, element 0 stays ours */
	json_object_put(list);
	assert_string_equal(mdc_json_str(el, false), "{\"a\":{\"b\":[1,2]}}");
	/* the root of this put: a non-empty container with kept text */
	assert_int_equal(json_object_put(el), 1);
	/* replaced userdata: the old text freed once, the new one kept */
	el = json_tokener_parse("{\"x\":[1]}");
	assert_int_equal(mdc_json_keep_text(el), 0);
	json_object_set_serializer(el, NULL, NULL, NULL);
	assert_null(json_object_get_userdata(el));
	assert_int_equal(mdc_json_keep_text(el), 0);
	assert_string_equal(mdc_json_str(el, false), "{\"x\":[1]}");
	json_object_put(el);
}

/* A value that keeps its text serialises exactly as json-c would, compact
 * and pretty at any depth; its copies serialise themselves; equality
 * ignores member order whichever way it is walked. */
static void test_json_kept_text(void **state)
{
	const char *doc = "{\"a\":[{\"id\":\"p/0\",\"n\":[1,2,{\"x\":{}}],\"e\":[]},"
			  "{\"id\":\"p1\",\"c\":{\"MaxTime\":\"60\"}}],\"b\":{\"k\":[true,null]}}";
	json_object *want = json_tokener_parse(doc), *got = json_tokener_parse(doc), *copy, *el, *other;
	char *plain, *pretty;

	(void) state;
	assert_non_null(want);
	plain = strdup(mdc_json_str(want, false));
	pretty = strdup(mdc_json_str(want, true));
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(mdc_json_keep_text(json_object_array_get_idx(mdc_json_get(got, "a"), i)), 0);
	assert_int_equal(mdc_json_keep_text(mdc_json_get(got, "b")), 0);
	assert_string_equal(mdc_json_str(got, false), plain);
	assert_string_equal(mdc_json_str(got, true), pretty);
	/* the kept text is the text at keep time: proof that it is used */
	el = json_object_array_get_idx(mdc_json_get(got, "a"), 1);
	json_object_object_add(el, "late", json_object_new_int(1));
	assert_string_equal(mdc_json_str(got, false), plain);
	json_object_object_del(el, "late");
	/* a copy is the value, serialising itself */
	copy = mdc_json_copy(got);
	assert_non_null(copy);
	assert_true(mdc_json_equal(copy, want));
	el = json_object_array_get_idx(mdc_json_get(copy, "a"), 1);
	json_object_object_add(el, "late", json_object_new_int(1));
	assert_string_not_equal(mdc_json_str(copy, false), plain);
	assert_false(mdc_json_equal(copy, want));
	/* a parsed number's copy keeps the number's text ("1.50", not 1.5) */
	json_object_put(copy);
	json_object_object_add(got, "num", json_tokener_parse("1.50"));
	copy = mdc_json_copy(got);
	assert_non_null(strstr(mdc_json_str(copy, false), "\"num\":1.50"));
	/* the same members in another order are equal; another value is not */
	other = json_tokener_parse("{\"b\":{\"k\":[true,null]},\"a\":[{\"e\":[],\"id\":\"p/0\","
				   "\"n\":[1,2,{\"x\":{}}]},{\"c\":{\"MaxTime\":\"60\"},\"id\":\"p1\"}]}");
	assert_true(mdc_json_equal(other, want));
	assert_true(mdc_json_equal(want, other));
	json_object_object_add(mdc_json_get(other, "b"), "k", json_object_new_array());
	assert_false(mdc_json_equal(other, want));
	assert_false(mdc_json_equal(json_object_array_get_idx(mdc_json_get(want, "a"), 0),
				    json_object_array_get_idx(mdc_json_get(want, "a"), 1)));
	free(plain);
	free(pretty);
	json_object_put(other);
	json_object_put(copy);
	json_object_put(got);
	json_object_put(want);
}

/* Parse TEXT against CUR both ways: the values are the same; returns how
 * many of the list's elements are CUR's own objects. */
static size_t reused(const json_object *cur, const char *text, json_object **got)
{
	static const char *const lists[] = { "node_pools", "orchestrator_spec.slurm_spec.partitions", NULL };
	json_object *plain = NULL, *arr, *was;
	struct mdc_ctx ctx;
	size_t n = 0;

	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_json_parse(text, strlen(text), &plain, &ctx), 0);
	assert_int_equal(mdc_json_parse_reusing(text, strlen(text), cur, lists, got, &ctx), 0);
	assert_true(mdc_json_equal(*got, plain));
	arr = mdc_json_get_path(*got, "orchestrator_spec.slurm_spec.partitions");
	was = mdc_json_get_path(cur, "orchestrator_spec.slurm_spec.partitions");
	for (size_t i = 0; json_object_is_type(arr, json_type_array) && i < json_object_array_length(arr); i++)
		n += json_object_array_get_idx(arr, i) == json_object_array_get_idx(was, i);
	json_object_put(plain);
	return n;
}

/* A list sent back takes its unchanged elements (the same text at the same
 * index) from the current value; whatever the scan cannot follow parses as
 * sent, with json-c's verdict and its choice among repeated keys. */
static void test_json_parse_reusing(void **state)
{
	static const char *const lists[] = { "node_pools", "orchestrator_spec.slurm_spec.partitions", NULL };
	const char *cur_text = "{\"node_pools\":[{\"id\":\"cpu\"}],\"orchestrator_spec\":{\"slurm_spec\":"
			       "{\"partitions\":[{\"id\":\"a\",\"config\":{\"MaxTime\":\"60\"}},"
			       "{\"id\":\"b\",\"x\":[1,{\"y\":\"]}\\\"\"}]},{\"id\":\"c\"}]}}}";
	json_object *cur = NULL, *got = NULL;
	struct mdc_ctx ctx;
	char text[1024];

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_json_parse(cur_text, strlen(cur_text), &cur, &ctx), 0);
	/* nothing kept yet: nothing reused */
	assert_int_equal(reused(cur, cur_text, &got), 0);
	json_object_put(got);
	for (size_t i = 0; i < 3; i++)
		mdc_json_keep_text(json_object_array_get_idx(mdc_json_get_path(cur, "orchestrator_spec.slurm_spec.partitions"), i));
	mdc_json_keep_text(json_object_array_get_idx(mdc_json_get(cur, "node_pools"), 0));
	/* the same text: every element, a string holding "]}\"" included */
	assert_int_equal(reused(cur, cur_text, &got), 3);
	assert_ptr_equal(json_object_array_get_idx(mdc_json_get(got, "node_pools"), 0),
			 json_object_array_get_idx(mdc_json_get(cur, "node_pools"), 0));
	json_object_put(got);
	/* one changed, spaces around the others, camelCase on the way */
	snprintf(text, sizeof(text), " { \"orchestratorSpec\" : {\"slurmSpec\": {\"partitions\": [ "
		 "{\"id\":\"a\",\"config\":{\"MaxTime\":\"61\"}} ,\n{\"id\":\"b\",\"x\":[1,{\"y\":\"]}\\\"\"}]}, "
		 "{\"id\":\"c\"} ] } } } ");
	assert_int_equal(reused(cur, text, &got), 2);
	json_object_put(got);
	/* other spacing inside an element, or another order: parsed */
	assert_int_equal(reused(cur, "{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":["
				"{\"id\": \"a\",\"config\":{\"MaxTime\":\"60\"}},{\"id\":\"c\"}]}}}", &got), 0);
	json_object_put(got);
	/* a repeated key on the way: json-c keeps the last, so does this */
	assert_int_equal(reused(cur, "{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":[{\"id\":\"c\"},"
				"{\"id\":\"c\"},{\"id\":\"c\"}]}},\"orchestratorSpec\":{\"slurmSpec\":"
				"{\"partitions\":[null,null,null]}}}", &got), 0);
	json_object_put(got);
	assert_int_equal(reused(cur, "{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":[{\"id\":\"c\"},"
				"{\"id\":\"c\"},{\"id\":\"c\"}]},\"orchestrator\\u005fspec\":1}}", &got), 0);
	json_object_put(got);
	/* invalid text: the same error as the plain parse, offset included */
	{
		const char *bad = "{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":[{\"id\":\"c\"},"
				  "{\"id\":\"a\",\"config\":{\"MaxTime\":\"60\"}},{\"id\":\"c\"},]}}}";
		struct mdc_ctx pctx;
		json_object *o = NULL;

		mdc_ctx_clear(&pctx);
		assert_int_not_equal(mdc_json_parse(bad, strlen(bad), &o, &pctx), 0);
		mdc_ctx_clear(&ctx);
		assert_int_not_equal(mdc_json_parse_reusing(bad, strlen(bad), cur, lists, &got, &ctx), 0);
		assert_null(got);
		assert_string_equal(ctx.msg, pctx.msg);
		bad = "{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":[{\"id\":\"a\",\"config\":"
		      "{\"MaxTime\":\"60\"}}]}}} x";
		mdc_ctx_clear(&pctx);
		assert_int_not_equal(mdc_json_parse(bad, strlen(bad), &o, &pctx), 0);
		mdc_ctx_clear(&ctx);
		assert_int_not_equal(mdc_json_parse_reusing(bad, strlen(bad), cur, lists, &got, &ctx), 0);
		assert_string_equal(ctx.msg, pctx.msg);
	}
	json_object_put(cur);
}

static void test_intent(void **state)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_op *op;

	(void) state;
	op = mdc_intent_add(&in, MDC_OP_PART_SET, "long", "MaxTime", "120");
	assert_non_null(op);
	op->where = strdup("slurm.conf:12");
	op = mdc_intent_add(&in, MDC_OP_PART_CREATE, "gpu", NULL, NULL);
	mdc_strv_push(&op->list, "a3");
	assert_int_equal(in.n, 2);
	assert_string_equal(in.ops[0].value, "120");
	assert_null(in.ops[1].key);
	assert_string_equal(mdc_op_kind_name(MDC_OP_PART_DEFAULT), "partition-default");
	assert_string_equal(mdc_op_kind_name(MDC_OP_KIND_MAX), "unknown");
	mdc_intent_free(&in);
	assert_int_equal(in.n, 0);
}

static char mdc_test_logged[256];
static void mdc_test_sink(enum mdc_log_level level, const char *msg, void *arg)
{
	(void) arg;
	snprintf(mdc_test_logged, sizeof(mdc_test_logged), "%d:%s", (int) level, msg);
}

static void test_log_sink(void **state)
{
	(void) state;
	mdc_log_set_sink(mdc_test_sink, NULL);
	mdc_log_set_level(MDC_LOG_INFO);
	mdc_debug("hidden");
	assert_string_equal(mdc_test_logged, "");
	mdc_warn("key '%s' ignored", "ClusterName");
	assert_string_equal(mdc_test_logged, "1:key 'ClusterName' ignored");
	mdc_log_set_sink(NULL, NULL);
}

/* The one splitter of Slurm lists (commas outside brackets): the cases of
 * the old copies in sc_translate.c (partition Nodes=) and mdc_live.c
 * (pools covering a host list). */
static void test_strv_split_list(void **state)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "a[1-2],b", "a[1-2]|b" },
		{ "gpu[1-3,7],cpu[01-04],login", "gpu[1-3,7]|cpu[01-04]|login" },
		{ "pool1,ALL", "pool1|ALL" },
		{ ",,a,,", "a" },
		{ "", "" },
		{ "a]b,c", "a]b|c" },		/* a stray ']' opens nothing */
		{ "x[1-2,y", "x[1-2,y" },	/* unclosed: one field */
		{ " a , b", " a | b" },		/* not trimmed: names are exact */
		{ "n[1-2][3-4],m", "n[1-2][3-4]|m" },
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mdc_strv sv = MDC_STRV_INIT;
		char *got;

		assert_int_equal(mdc_strv_split_list(&sv, cases[i].in), 0);
		assert_non_null(got = mdc_strv_join(&sv, "|"));
		print_message("'%s' -> '%s'\n", cases[i].in, got);
		assert_string_equal(got, cases[i].want);
		free(got);
		mdc_strv_free(&sv);
	}
	{
		struct mdc_strv sv = MDC_STRV_INIT;

		assert_int_equal(mdc_strv_split_list(&sv, NULL), 0);
		assert_int_equal(sv.n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_err_first_wins),
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_key_eq),
		cmocka_unit_test(test_strv),
		cmocka_unit_test(test_strv_split_list),
		cmocka_unit_test(test_path_and_files),
		cmocka_unit_test(test_json_parse_strict),
		cmocka_unit_test(test_json_kept_text_freed),
		cmocka_unit_test(test_json_case),
		cmocka_unit_test(test_json_set_and_get),
		cmocka_unit_test(test_json_kept_text),
		cmocka_unit_test(test_json_parse_reusing),
		cmocka_unit_test(test_intent),
		cmocka_unit_test(test_log_sink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
