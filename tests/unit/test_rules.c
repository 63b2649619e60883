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
#include <math.h>
#include "mdc_buf.h"
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
	assert_string_equal(mdc_rules_mask_path("displayName"), "display_name");
	assert_null(mdc_rules_mask_path("network"));
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
		{ "{\"health_check_interval\":\"10\"}", SC_SCOPE_CLUSTER, "'HealthCheckInterval' is refused" },
		{ "{\"Epilog\":\"/x\"}", SC_SCOPE_CLUSTER, "epilog_bash_scripts" },
		{ "{\"StorageHost\":\"db\"}", SC_SCOPE_CLUSTER, "slurmdbd.conf" },
		{ "{\"PurgeJobAfter\":\"1month\"}", SC_SCOPE_CLUSTER, "slurmdbd.conf" },
		{ "{\"Default\":\"YES\"}", SC_SCOPE_PARTITION, "default_partition_id" },
		{ "{\"MaxTime\":\"120\"}", SC_SCOPE_PARTITION, NULL },
		{ "{\"MaxTime\":\"120\"}", SC_SCOPE_CLUSTER, "not valid in cluster scope" },
		{ "{\"Weight\":\"5\"}", SC_SCOPE_NODE, NULL },
		{ "{\"SchedulerParameters\":\"a\\nPartitionName=x\"}", SC_SCOPE_CLUSTER, "control characters" },
		{ "{\"PriorityWeightAge\":10}", SC_SCOPE_CLUSTER, "must be a string" },
		{ "{\"PriorityWeightAgee\":\"1\"}", SC_SCOPE_CLUSTER, "did you mean 'PriorityWeightAge'" },
		{ "{\"PriorityWeightAge\":\"lots\"}", SC_SCOPE_CLUSTER, "invalid value PriorityWeightAge='lots'" },
		{ "{\"ClusterName\":\"x\"}", SC_SCOPE_CLUSTER, "'ClusterName' is service-managed and refused" },
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
			assert_true(rc == MDC_ERR_INVAL || rc == MDC_ERR_REFUSED);
			if (!strstr(ctx.msg, cases[i].want))
				fail_msg("case %zu (%s): '%s' lacks '%s'", i, cases[i].map, ctx.msg, cases[i].want);
		}
		json_object_put(m);
	}
}

/* Issue 16.1: every key naming a program, script, plugin or file Slurm
 * runs or opens is refused by the one shared rule, in every scope it
 * belongs to; the privilege escalation used PrologSlurmctld and friends. */
static void test_exec_keys_refused(void **state)
{
	static const char *const named[] = {
		"Prolog", "Epilog", "PrologSlurmctld", "EpilogSlurmctld", "TaskProlog",
		"TaskEpilog", "SrunProlog", "SrunEpilog", "ResvProlog", "ResvEpilog",
		"UnkillableStepProgram", "JobSubmitPlugins", "HealthCheckProgram",
		"ResumeProgram", "SuspendProgram", "ResumeFailProgram", "RebootProgram",
		"MailProg", "JobCompLoc", "SlurmctldPrimaryOnProg", "SlurmctldPrimaryOffProg",
		"PlugStackConfig", "PluginDir", "Include", "InteractiveStepOptions",
		"SallocDefaultCommand", "StateSaveLocation", "SlurmctldLogFile",
		"NodeName", "PartitionName", "NodeSet", "DownNodes", "RequeueExit",
		"RequeueExitHold", "prolog_slurmctld", "TASKPROLOG",
	};
	/* a name ending so names a path (PluginDir, JobCompLoc, MailProg...) */
	static const char *const suffixes[] = {
		"Prog", "Program", "Prolog", "Epilog", "Loc", "Location", "File", "Dir",
		"Config", "Command",
	};
	static const unsigned scopes[] = { SC_SCOPE_CLUSTER, SC_SCOPE_PARTITION, SC_SCOPE_NODE };
	const struct sc_option *o;
	struct mdc_ctx ctx;

	(void) state;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		mdc_ctx_clear(&ctx);
		if (mdc_rules_check_setting(named[i], "/tmp/x.sh", SC_SCOPE_CLUSTER, "config", NULL, &ctx)
		    != MDC_ERR_REFUSED)
			fail_msg("%s=/tmp/x.sh is not refused: %s", named[i], ctx.msg);
		/* an unset (no value) is refused too: nothing to remove */
		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_rules_check_setting(named[i], NULL, SC_SCOPE_CLUSTER, "config",
							 NULL, &ctx), MDC_ERR_REFUSED);
	}
	/* prolog/epilog programs point to the bash-script fields */
	mdc_ctx_clear(&ctx);
	mdc_rules_check_setting("PrologSlurmctld", "/tmp/x.sh", SC_SCOPE_CLUSTER, "config", NULL, &ctx);
	assert_non_null(strstr(ctx.msg, "config: 'PrologSlurmctld' is refused: runs a program as root: "
			       "use prolog_bash_scripts"));
	mdc_ctx_clear(&ctx);
	mdc_rules_check_setting("TaskEpilog", "/tmp/x.sh", SC_SCOPE_CLUSTER, "config", NULL, &ctx);
	assert_non_null(strstr(ctx.msg, "epilog_bash_scripts"));
	for (size_t i = 0; (o = sc_opt_at(i)); i++) {
		size_t n = strlen(o->name);

		for (size_t k = 0; k < sizeof(suffixes) / sizeof(suffixes[0]); k++) {
			size_t m = strlen(suffixes[k]);

			if ((o->scope & SC_SCOPE_CLUSTER) && n > m && !strcmp(o->name + n - m, suffixes[k]) &&
			    !(o->flags & SC_OPT_EXEC))
				fail_msg("%s names a path but is not flagged SC_OPT_EXEC", o->name);
		}
		if ((o->flags & SC_OPT_EXEC) && !(o->flags & (SC_OPT_REFUSED | SC_OPT_MANAGED)))
			fail_msg("%s: SC_OPT_EXEC without REFUSED or MANAGED", o->name);
		for (size_t s = 0; s < sizeof(scopes) / sizeof(scopes[0]); s++) {
			if (!(o->scope & scopes[s]) ||
			    !(o->flags & (SC_OPT_EXEC | SC_OPT_REFUSED | SC_OPT_MANAGED | SC_OPT_RECORD)))
				continue;
			mdc_ctx_clear(&ctx);
			if (mdc_rules_check_setting(o->name, "x", scopes[s], "w", NULL, &ctx) != MDC_ERR_REFUSED)
				fail_msg("%s in scope %u is not refused: %s", o->name, scopes[s], ctx.msg);
		}
	}
}

/* Values: UTF-8, control characters (C0 and C1), size, double quotes as
 * Slurm's grammar allows them, types and ranges. */
static void test_setting_values(void **state)
{
	static const struct {
		const char *key, *value;
		int rc;
		const char *want;
	} cases[] = {
		{ "SchedulerParameters", "bf_continue,bf_window=1440", 0, NULL },
		{ "SchedulerParameters", "two words", 0, NULL },
		{ "SchedulerParameters", "a\"b", 0, NULL },
		{ "SchedulerParameters", "\"ab\"", MDC_ERR_INVAL, "double quote" },
		{ "SchedulerParameters", "a \"b", MDC_ERR_INVAL, "double quote" },
		{ "SchedulerParameters", "caf\xc3\xa9", 0, NULL },
		{ "SchedulerParameters", "\xff", MDC_ERR_INVAL, "not valid UTF-8" },
		{ "SchedulerParameters", "\xc0\xaf", MDC_ERR_INVAL, "not valid UTF-8" },
		{ "SchedulerParameters", "\xed\xa0\x80", MDC_ERR_INVAL, "not valid UTF-8" },
		{ "SchedulerParameters", "a\xc2\x9b" "2J", MDC_ERR_REFUSED, "control characters" },
		{ "SchedulerParameters", "a\rb", MDC_ERR_REFUSED, "control characters" },
		{ "SchedulerParameters", "a\x7f", MDC_ERR_REFUSED, "control characters" },
		{ "SchedulerParameters", "\xe2\x82\xac" "5 a \xf0\x9f\x98\x80", 0, NULL },
		{ "SchedulerParameters", "ab\xc2", MDC_ERR_INVAL, "not valid UTF-8" },
		{ "SchedulerParameters", "ab\xe2\x82", MDC_ERR_INVAL, "not valid UTF-8" },
		{ "PriorityWeightAge", "4294967295", 0, NULL },
		{ "PriorityWeightAge", "4294967296", MDC_ERR_INVAL, "invalid value" },
		{ "PriorityWeightAge", "1e400", MDC_ERR_INVAL, "invalid value" },
		{ "PriorityWeightAge", "-1", MDC_ERR_INVAL, "invalid value" },
		{ "PriorityWeightAge", "1.5", MDC_ERR_INVAL, "invalid value" },
		{ "PriorityWeightAge", "NaN", MDC_ERR_INVAL, "invalid value" },
		{ "PriorityWeightAge", "true", MDC_ERR_INVAL, "invalid value" },
		{ "MaxNodeCount", "9223372036854775807", MDC_ERR_INVAL, "invalid value" },
		{ "Prior\xffityWeightAge", "1", MDC_ERR_INVAL, "invalid UTF-8" },
		{ "", "1", MDC_ERR_INVAL, "empty parameter name" },
	};
	char big[MDC_RULES_MAX_VALUE + 2];
	struct mdc_ctx ctx;
	int rc;

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mdc_ctx_clear(&ctx);
		rc = mdc_rules_check_setting(cases[i].key, cases[i].value, SC_SCOPE_CLUSTER, "config",
					     NULL, &ctx);
		if (rc != cases[i].rc)
			fail_msg("case %zu (%s): rc %d, want %d: %s", i, cases[i].value, rc, cases[i].rc,
				 ctx.msg);
		if (cases[i].want && !strstr(ctx.msg, cases[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, ctx.msg, cases[i].want);
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_rules_check_setting("SchedulerParameters", big, SC_SCOPE_CLUSTER, "config",
						 NULL, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "at most 4096"));
	big[MDC_RULES_MAX_VALUE] = '\0';
	assert_int_equal(mdc_rules_check_setting("SchedulerParameters", big, SC_SCOPE_CLUSTER, "config",
						 NULL, &ctx), 0);
}

/* Issue 16.3: one id rule for mdcctl, mdc-scontrol and the emulator. */
static void test_ids(void **state)
{
	static const char *const good[] = { "cpu", "gpu-a100", "a.b", "A_1", "x", "0", };
	static const char *const bad[] = {
		"", "*", "../../../../etc/passwd", "--help", "-o/tmp/x", ".hidden", "a b",
		"a=b", "a,b", "a#b", "a\"b", "DEFAULT", "default", "caf\xc3\xa9", "\xff",
		"a\nb", "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd",
	};
	struct mdc_ctx ctx;

	(void) state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		mdc_ctx_clear(&ctx);
		if (mdc_rules_check_id("partition", good[i], &ctx))
			fail_msg("'%s' refused: %s", good[i], ctx.msg);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mdc_ctx_clear(&ctx);
		if (mdc_rules_check_id("partition", bad[i], &ctx) != MDC_ERR_INVAL)
			fail_msg("bad id %zu accepted", i);
		assert_null(strchr(ctx.msg, '\n'));
	}
	mdc_ctx_clear(&ctx);
	mdc_rules_check_id("partition", "-o/tmp/x", &ctx);
	assert_string_equal(ctx.msg, "invalid partition id '-o/tmp/x': start with a letter or a digit");
}

/* Google's label limits: 64 labels, keys 1-63, values 0-63 characters. */
static void test_labels(void **state)
{
	static const struct {
		const char *key, *value;
		bool ok;
	} cases[] = {
		{ "team", "ml", true }, { "env", "", true }, { "a-b_c9", "x-1_2", true },
		{ "\xc3\xa9quipe", "donn\xc3\xa9" "es", true },	/* international characters */
		{ "Env", "x", false }, { "1a", "x", false }, { "", "x", false }, { "-a", "x", false },
		{ "env", "Prod!", false }, { "env", "a b", false }, { "env", "\xff", false },
		{ "env", "\xc2\x85", false }, { "a.b", "x", false },
		{ "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabc", "x", true },
		{ "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd", "x", false },
		{ "k", "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd", false },
	};
	struct mdc_buf b = MDC_BUF_INIT;
	json_object *in, *out = NULL, *images = parse("{}");
	struct mdc_images im = { images };
	struct mdc_ctx ctx;

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mdc_ctx_clear(&ctx);
		if ((mdc_rules_check_label(cases[i].key, cases[i].value, &ctx) == 0) != cases[i].ok)
			fail_msg("label case %zu: %s", i, ctx.msg[0] ? ctx.msg : "accepted");
	}
	/* 64 labels pass, 65 do not (create and patch share mdc_validate) */
	for (int n = 64; n <= 65; n++) {
		mdc_buf_free(&b);
		mdc_buf_adds(&b, "{\"node_pools\":[{\"id\":\"a\"}],\"labels\":{");
		for (int i = 0; i < n; i++)
			mdc_buf_addf(&b, "%s\"k%d\":\"v\"", i ? "," : "", i);
		mdc_buf_adds(&b, "}}");
		in = parse(b.s);
		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_rules_check_create("c1", in, &im, &out, &ctx), n == 64 ? 0 : MDC_ERR_INVAL);
		if (n == 65)
			assert_non_null(strstr(ctx.msg, "65 labels: at most 64"));
		json_object_put(out);
		out = NULL;
		json_object_put(in);
	}
	mdc_buf_free(&b);
	json_object_put(images);
}

/* Issue 16.3: node counts are integers within bounds (minNodeCount=100000
 * rendered NodeName=extra-[0-99999] and killed slurmctld). */
static void test_node_counts(void **state)
{
	static const struct {
		const char *json;	/* the max_node_count value */
		bool ok;
	} cases[] = {
		/* null is proto3 JSON for the default (0), as if absent */
		{ "2", true }, { "\"2\"", true }, { "0", true }, { "10000", true },
		{ "10001", false }, { "100000", false }, { "-1", false }, { "1.5", false },
		{ "true", false }, { "null", true }, { "1e400", false }, { "\"1e400\"", false },
		{ "9223372036854775807", false }, { "\"9223372036854775807\"", false },
		{ "18446744073709551615", false }, { "\" 2\"", false }, { "\"\"", false },
		{ "\"0x10\"", false }, { "NAN", false },
	};
	json_object *cur = parse(base_cluster), *images = parse("{}"), *pay;
	struct mdc_images im = { images };
	struct mdc_strv mask = MDC_STRV_INIT;
	struct mdc_patch_result res;
	struct mdc_ctx ctx;
	char text[512];
	int rc;

	(void) state;
	mdc_strv_push(&mask, "node_pools");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "{\"node_pools\":[{\"id\":\"cpu\",\"scaling_spec\":"
			 "{\"min_node_count\":0,\"max_node_count\":0}},{\"id\":\"login\"}]}");
		pay = parse(text);
		/* set the value as json-c would have parsed it */
		{
			json_object *sc = mdc_json_get(json_object_array_get_idx(mdc_json_get(pay, "node_pools"), 0),
						       "scaling_spec"), *v;

			if (!strcmp(cases[i].json, "NAN"))
				v = json_object_new_double(NAN);
			else
				v = json_tokener_parse(cases[i].json);
			json_object_object_add(sc, "max_node_count", v);
		}
		mdc_ctx_clear(&ctx);
		rc = mdc_rules_apply_patch(cur, pay, &mask, MDC_MODE_USER_ONLY, &im, &res, &ctx);
		if ((rc == 0) != cases[i].ok)
			fail_msg("max_node_count %s: %s", cases[i].json, rc ? ctx.msg : "accepted");
		if (rc)
			assert_string_equal(mdc_rules_last_field(), "node_pools");
		mdc_patch_result_free(&res);
		json_object_put(pay);
	}
	/* min above max */
	pay = parse("{\"node_pools\":[{\"id\":\"cpu\",\"scaling_spec\":{\"min_node_count\":3,"
		    "\"max_node_count\":2}},{\"id\":\"login\"}]}");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_rules_apply_patch(cur, pay, &mask, MDC_MODE_USER_ONLY, &im, &res, &ctx),
			 MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "node pool 'cpu': node counts need 0 <= min <= max <= 10000"));
	json_object_put(pay);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_rules_check_node_counts("p", 0, 10001, &ctx), MDC_ERR_INVAL);
	assert_int_equal(mdc_rules_check_node_counts("p", 5, 5, &ctx), 0);
	mdc_strv_free(&mask);
	json_object_put(cur);
	json_object_put(images);
}

/* Invalid UTF-8 anywhere in a resource (json-c does not check it), and
 * hostile partition ids, are refused by the emulator's rules. */
static void test_resource_text(void **state)
{
	json_object *cur = parse(base_cluster), *images = parse("{}"), *pay;
	struct mdc_images im = { images };
	struct mdc_strv mask = MDC_STRV_INIT;
	struct mdc_patch_result res;
	struct mdc_ctx ctx;

	(void) state;
	mdc_strv_push(&mask, "labels");
	pay = json_object_new_object();
	json_object_object_add(pay, "labels", json_object_new_object());
	json_object_object_add(mdc_json_get(pay, "labels"), "team", json_object_new_string("m\xffl"));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_rules_apply_patch(cur, pay, &mask, MDC_MODE_USER_ONLY, &im, &res, &ctx),
			 MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "labels.team: invalid UTF-8"));
	json_object_put(pay);
	mdc_strv_free(&mask);
	mdc_strv_push(&mask, SS "partitions");
	pay = parse("{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":[{\"id\":\"cpu\","
		    "\"node_pool_ids\":[\"cpu\"]},{\"id\":\"../../../../etc/passwd\",\"node_pool_ids\":[\"cpu\"]}]}}}");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_rules_apply_patch(cur, pay, &mask, MDC_MODE_USER_ONLY, &im, &res, &ctx),
			 MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "invalid partition id '../../../../etc/passwd'"));
	json_object_put(pay);
	mdc_strv_free(&mask);
	json_object_put(cur);
	json_object_put(images);
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

	/* an id listed twice: the second one is named, for each list */
	{
		static const struct { const char *spec, *msg; } dups[] = {
			{ "{\"node_pools\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"a\"}]}",
			  "node pool 'a' is listed twice" },
			{ "{\"node_pools\":[{\"id\":\"a\"}],\"orchestrator_spec\":{\"slurm_spec\":"
			  "{\"partitions\":[{\"id\":\"p\",\"node_pool_ids\":[\"a\"]},{\"id\":\"q\","
			  "\"node_pool_ids\":[\"a\"]},{\"id\":\"q\",\"node_pool_ids\":[\"a\"]}]}}}",
			  "partition 'q' is listed twice" },
			{ "{\"node_pools\":[{\"id\":\"a\"}],\"orchestrator_spec\":{\"slurm_spec\":"
			  "{\"node_sets\":[{\"node_pool_id\":\"a\"},{\"node_pool_id\":\"a\"}]}}}",
			  "node set 'a' is listed twice" },
		};

		for (size_t i = 0; i < sizeof(dups) / sizeof(dups[0]); i++) {
			mdc_ctx_clear(&ctx);
			in = parse(dups[i].spec);
			assert_int_equal(mdc_rules_check_create("c5", in, &im, &out, &ctx), MDC_ERR_INVAL);
			if (!strstr(ctx.msg, dups[i].msg))
				fail_msg("%s: got '%s'", dups[i].msg, ctx.msg);
			json_object_put(in);
		}
	}
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

/* A whole list sent back keeps its unchanged elements as the current
 * cluster's own objects (versions share them; the emulator serialises
 * them once), at the same index only, and node pools whose image did not
 * change stay the current ones too. */
static void test_patch_shares_unchanged(void **state)
{
	json_object *images = parse("{\"*\":\"img-1\"}"), *cl = created(images), *p, *cur, *got;
	struct mdc_strv paths = MDC_STRV_INIT;
	struct mdc_images im = { images };
	struct mdc_patch_result res;
	struct mdc_ctx ctx;

	(void) state;
	cur = mdc_json_get_path(cl, SS "partitions");
	p = parse("{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":["
		  "{\"id\":\"cpu\",\"node_pool_ids\":[\"cpu\"]},"
		  "{\"id\":\"long\",\"node_pool_ids\":[\"cpu\"],\"config\":{\"MaxTime\":\"1-00:00:00\"}},"
		  "{\"node_pool_ids\":[\"cpu\"],\"id\":\"cpu2\"}]}}}");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_rules_parse_mask(SS "partitions", &paths, &ctx), 0);
	assert_int_equal(mdc_rules_apply_patch_shared(cl, p, &paths, MDC_MODE_USER_ONLY, &im, &res, &ctx), 0);
	got = mdc_json_get_path(res.cluster, SS "partitions");
	assert_int_equal(json_object_array_length(got), 3);
	assert_ptr_equal(json_object_array_get_idx(got, 0), json_object_array_get_idx(cur, 0));
	assert_ptr_not_equal(json_object_array_get_idx(got, 1), json_object_array_get_idx(cur, 1));
	assert_string_equal(str_at(json_object_array_get_idx(got, 1), "config.MaxTime"), "1-00:00:00");
	assert_string_equal(str_at(json_object_array_get_idx(got, 2), "id"), "cpu2");
	/* the pools were not named: their images resolve to what they are */
	for (size_t i = 0; i < 2; i++)
		assert_ptr_equal(json_object_array_get_idx(mdc_json_get(res.cluster, "node_pools"), i),
				 json_object_array_get_idx(mdc_json_get(cl, "node_pools"), i));
	assert_true(mdc_strv_has(&res.changed, SS "partitions"));
	mdc_patch_result_free(&res);
	json_object_put(p);
	mdc_strv_free(&paths);

	/* another order: nothing at the same index is equal, nothing shared */
	p = parse("{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":["
		  "{\"id\":\"long\",\"node_pool_ids\":[\"cpu\"],\"config\":{\"MaxTime\":\"7-00:00:00\"}},"
		  "{\"id\":\"cpu\",\"node_pool_ids\":[\"cpu\"]}]}}}");
	assert_int_equal(mdc_rules_parse_mask(SS "partitions", &paths, &ctx), 0);
	assert_int_equal(mdc_rules_apply_patch_shared(cl, p, &paths, MDC_MODE_USER_ONLY, &im, &res, &ctx), 0);
	got = mdc_json_get_path(res.cluster, SS "partitions");
	assert_ptr_equal(got, mdc_json_get_path(p, SS "partitions"));
	assert_string_equal(str_at(json_object_array_get_idx(got, 0), "id"), "long");
	mdc_patch_result_free(&res);
	json_object_put(p);
	mdc_strv_free(&paths);
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
		cmocka_unit_test(test_exec_keys_refused),
		cmocka_unit_test(test_setting_values),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_node_counts),
		cmocka_unit_test(test_resource_text),
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_patch_mask_and_clear),
		cmocka_unit_test(test_patch_default_partition),
		cmocka_unit_test(test_patch_legacy),
		cmocka_unit_test(test_patch_shares_unchanged),
		cmocka_unit_test(test_patch_images),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
