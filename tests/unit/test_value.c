/* test_value.c - one normaliser per Slurm value type (times, minutes,
 * memory sizes, booleans, flag sets, words, plugins), the shown-value
 * comparison verify and drift use, and our own value checks.
 * (owner: verdict) */
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
#include <json-c/json.h>
#include "mdc_err.h"
#include "mdc_slurmcheck.h"
#include "mdc_str.h"
#include "mdc_managed.h"
#include "mdc_value.h"
#include "sc_conf.h"
#include "sc_options.h"

static void norm_is(const char *key, const char *v, const char *want)
{
	char *n = mdc_value_norm(key, v);

	assert_non_null(n);
	assert_string_equal(n, want);
	free(n);
}

static void test_time(void **state)
{
	long long s;

	(void) state;
	assert_int_equal(mdc_value_type("PriorityDecayHalfLife"), MDC_V_TIME);
	assert_true(mdc_value_equal("PriorityDecayHalfLife", "7-00:00:00", "7-0"));
	assert_true(mdc_value_equal("PriorityCalcPeriod", "00:10:00", "10"));
	assert_true(mdc_value_equal("priority_calc_period", "5:00", "5"));	/* M:S */
	assert_false(mdc_value_equal("PriorityCalcPeriod", "10", "11"));
	assert_true(mdc_value_equal("MaxTime", "UNLIMITED", "infinite"));
	assert_true(mdc_value_equal("MaxTime", "1-0", "24:00:00"));
	assert_true(mdc_value_equal("MaxTime", "1440", "1-00:00:00"));
	assert_false(mdc_value_equal("MaxTime", "60", "1-0"));
	norm_is("MaxTime", "90", "0-01:30:00");
	norm_is("MaxTime", "2-3", "2-03:00:00");
	norm_is("MaxTime", "Infinite", "UNLIMITED");
	/* not a time: only equal to itself */
	assert_false(mdc_value_equal("MaxTime", "abc", "ABC"));
	assert_true(mdc_value_equal("MaxTime", "abc", "abc"));
	assert_true(mdc_value_time_s("1:02:03", &s));
	assert_int_equal(s, 3723);
	assert_true(mdc_value_time_s("1-2:3:4", &s));
	assert_int_equal(s, 93784);
	/* read_config.c: YES is YES:4, FORCE is FORCE:4 (as scontrol shows
	 * them), and YES:1 or FORCE:0 is NO */
	assert_true(mdc_value_equal("OverSubscribe", "YES", "YES:4"));
	assert_true(mdc_value_equal("OverSubscribe", "force", "FORCE:4"));
	assert_true(mdc_value_equal("Shared", "YES:1", "NO"));
	assert_true(mdc_value_equal("OverSubscribe", "FORCE:0", "NO"));
	assert_false(mdc_value_equal("OverSubscribe", "YES:2", "YES"));
	assert_false(mdc_value_equal("OverSubscribe", "FORCE:4", "YES:4"));
	assert_true(mdc_value_equal("OverSubscribe", "exclusive", "EXCLUSIVE"));
	/* parse_time.c's sscanf reads "1-" as one day (scontrol takes it) */
	assert_true(mdc_value_time_s("1-", &s));
	assert_int_equal(s, 86400);
	assert_false(mdc_value_time_s("1-:5", &s));
	assert_false(mdc_value_time_s("+5", &s));
	assert_false(mdc_value_time_s(" 5", &s));
	assert_false(mdc_value_time_s("1:2:3:4", &s));
	assert_false(mdc_value_time_s("", &s));
	/* -1 is Slurm's INFINITE (time_str2mins); -5 is not a time */
	assert_true(mdc_value_time_s("-1", &s));
	assert_int_equal(s, -1);
	assert_false(mdc_value_time_s("-5", &s));
	assert_true(mdc_value_equal_shown("MaxTime", "-1", "UNLIMITED"));
}

static void test_uint(void **state)
{
	(void) state;
	assert_int_equal(mdc_value_type("MessageTimeout"), MDC_V_UINT);
	/* slurmctld reads 010 as 8 (strtoul base 0: test_sc_options' oracle) */
	assert_true(mdc_value_equal("MessageTimeout", "010", "8"));
	assert_false(mdc_value_equal("MessageTimeout", "010", "10"));
	assert_true(mdc_value_equal("MessageTimeout", "0x10", "16"));
	assert_true(mdc_value_equal("MaxJobCount", "UNLIMITED", "INFINITE"));
	assert_false(mdc_value_equal("MaxJobCount", "10", "100"));
	/* scontrol show config: "MessageTimeout = 10 sec" */
	assert_true(mdc_value_equal_shown("MessageTimeout", "10", "10 sec"));
	assert_false(mdc_value_equal("MessageTimeout", "10", "10 sec"));
	assert_true(mdc_value_equal("SuspendTime", "none", "NONE"));
}

static void test_memory(void **state)
{
	long long mb;

	(void) state;
	assert_int_equal(mdc_value_type("DefMemPerCPU"), MDC_V_MEMORY);
	assert_true(mdc_value_equal("DefMemPerCPU", "4G", "4096"));
	assert_true(mdc_value_equal("MaxMemPerNode", "1T", "1048576"));
	assert_true(mdc_value_equal("DefMemPerNode", "unlimited", "UNLIMITED"));
	assert_false(mdc_value_equal("DefMemPerCPU", "4G", "4000"));
	assert_true(mdc_value_memory_mb("1025K", &mb));
	assert_int_equal(mb, 2);
	assert_false(mdc_value_memory_mb("4X", &mb));
	assert_false(mdc_value_memory_mb("4GB", &mb));
}

static void test_bool(void **state)
{
	(void) state;
	assert_int_equal(mdc_value_type("Hidden"), MDC_V_BOOL);
	assert_true(mdc_value_equal("Hidden", "yes", "YES"));
	assert_true(mdc_value_equal("Hidden", "true", "1"));
	assert_true(mdc_value_equal("PriorityFavorSmall", "no", "False"));
	assert_false(mdc_value_equal("Hidden", "yes", "no"));
	assert_int_equal(mdc_value_bool("UP"), 1);
	assert_int_equal(mdc_value_bool("maybe"), -1);
}

static void test_flags(void **state)
{
	(void) state;
	assert_int_equal(mdc_value_type("PreemptMode"), MDC_V_FLAGS);
	/* the round-trip bug: apply SUSPEND,GANG, scontrol shows GANG,SUSPEND */
	assert_true(mdc_value_equal("PreemptMode", "SUSPEND,GANG", "GANG,SUSPEND"));
	assert_true(mdc_value_equal_shown("PreemptMode", "suspend,gang", "GANG,SUSPEND"));
	assert_true(mdc_value_equal("PreemptMode", "on,gang", "SUSPEND,GANG"));	/* synonym */
	assert_true(mdc_value_equal("PreemptMode", "cluster", "OFF"));
	assert_false(mdc_value_equal("PreemptMode", "REQUEUE", "CANCEL"));
	assert_true(mdc_value_equal("PriorityFlags", "MAX_TRES,CALCULATE_RUNNING",
				    "calculate_running, max_tres"));
	assert_true(mdc_value_equal("SelectTypeParameters", "CR_Core_Memory,CR_ONE_TASK_PER_CORE",
				    "CR_ONE_TASK_PER_CORE,CR_CORE_MEMORY"));
	assert_true(mdc_value_equal("AccountingStorageEnforce", "limits,associations",
				    "associations,limits"));
	/* what Slurm stores for AccountingStorageEnforce, as scontrol shows it */
	assert_true(mdc_value_equal_shown("AccountingStorageEnforce", "limits", "associations,limits"));
	assert_true(mdc_value_equal_shown("AccountingStorageEnforce", "safe",
					  "associations,limits,safe"));
	assert_true(mdc_value_equal_shown("AccountingStorageEnforce", "all",
					  "associations,limits,qos,safe,wckeys"));
	assert_true(mdc_value_equal_shown("AccountingStorageEnforce", "nojobs", "nojobs,nosteps"));
	assert_true(mdc_value_equal_shown("AccountingStorageEnforce", "", "none"));
	assert_false(mdc_value_equal("AccountingStorageEnforce", "limits", "qos"));
	assert_true(mdc_value_equal("SchedulerParameters", "bf_interval=30,default_queue_depth=100",
				    "default_queue_depth=100,bf_interval=30"));
	assert_true(mdc_value_equal("DebugFlags", "Net,Gres", "gres,network"));
	assert_true(mdc_value_equal("PreemptMode", "GANG,GANG,SUSPEND", "SUSPEND,GANG"));
	norm_is("PreemptMode", "suspend,gang", "GANG,SUSPEND");
	norm_is("TaskPluginParam", "verbose,autobind=cores", "AUTOBIND=CORES,VERBOSE");
}

static void test_words_and_strings(void **state)
{
	(void) state;
	assert_true(mdc_value_equal("EnforcePartLimits", "yes", "ALL"));
	assert_true(mdc_value_equal("PriorityUsageResetPeriod", "weekly", "WEEKLY"));
	assert_true(mdc_value_equal_shown("OverSubscribe", "no", "NO"));
	/* strings compare exactly in a plan: a case change is a change */
	assert_false(mdc_value_equal("AllowGroups", "Admin", "admin"));
	assert_true(mdc_value_equal("AllowGroups", "admin", "admin"));
	assert_true(mdc_value_equal_shown("AllowGroups", "", "(null)"));
	/* plugins name files: case matters */
	assert_false(mdc_value_equal("PreemptType", "preempt/QOS", "preempt/qos"));
	assert_true(mdc_value_equal(NULL, NULL, NULL));
	assert_false(mdc_value_equal("MaxTime", "60", NULL));
	assert_true(mdc_value_equal("UnknownKey", "x", "x"));
	assert_false(mdc_value_equal("UnknownKey", "x", "X"));
}

static void check_is(const char *key, const char *v, int sev, const char *words)
{
	char why[512] = "";

	int got = mdc_value_check(key, v, why, sizeof(why));

	if (got != sev)
		print_error("%s=%s: severity %d, expected %d (%s)\n", key, v, got, sev, why);
	assert_int_equal(got, sev);
	if (words && !strstr(why, words))
		print_error("%s=%s: '%s' lacks '%s'\n", key, v, why, words);
	if (words)
		assert_non_null(strstr(why, words));
}

static void test_check(void **state)
{
	(void) state;
	check_is("PreemptMode", "REQUEUE", 0, NULL);
	check_is("PreemptMode", "SUSPEND,GANG", 0, NULL);
	check_is("PreemptMode", "BOGUS", 2, "unknown word 'BOGUS'");
	check_is("PreemptMode", "REQUEUE,,GANG,", 0, NULL);	/* strtok skips empty items */
	check_is("AccountingStorageEnforce", "bogus", 2, "associations, limits");
	check_is("AccountingStorageEnforce", "limits,qos,safe", 0, NULL);
	check_is("SelectTypeParameters", "CR_Cores", 2, "CR_Core");
	check_is("SelectTypeParameters", "cr_core_memory", 0, NULL);
	check_is("PriorityFlags", "bogus", 1, "Slurm ignores it");
	/* issue 24 item 6: SchedulerParameters words, with a did-you-mean */
	check_is("SchedulerParameters", "bf_contine,bf_window=1440", 1,
		 "unknown word 'bf_contine' (did you mean 'bf_continue'?): Slurm ignores it");
	check_is("SchedulerParameters", "bf_continue,bf_window=1440,defer,Ignore_NUMA", 0, NULL);
	check_is("SchedulerParameters", "bf_intervall=30", 1, "(did you mean 'bf_interval'?)");
	check_is("PriorityFlags", "MAX_TRE", 1, "(did you mean 'MAX_TRES'?)");
	check_is("PrologFlags", "Contain,X11", 0, NULL);
	check_is("PrologFlags", "bogus", 2, "Alloc");
	check_is("TaskPluginParam", "Autobind=cores,Verbose", 0, NULL);
	check_is("DebugFlags", "Backfill,Gres", 0, NULL);
	check_is("DebugFlags", "bogus", 2, NULL);
	check_is("PreemptType", "preempt/qos", 0, NULL);
	/* plugin file names: case matters; the target release's own list */
	check_is("PreemptType", "preempt/QOS", 2, "ships no preempt/QOS plugin");
	check_is("PreemptType", "preempt/bogus", 2, "preempt/partition_prio");
	check_is("SchedulerType", "sched/backfill", 0, NULL);
	check_is("EnforcePartLimits", "bogus", 2, "ALL, ANY or NO");
	check_is("DefMemPerCPU", "4G", 2, "DefMemPerCPU=4096");
	check_is("DefMemPerCPU", "4096", 0, NULL);
	check_is("PriorityCalcPeriod", "xx", 2, "not a time");
	check_is("PriorityDecayHalfLife", "7-0", 0, NULL);
	check_is("SchedulerParameters", "anything_at_all", 1, "Slurm ignores it");
	/* issue 24 item 6: every list-valued key has its release's words
	 * (sc_release_tab.c, read from the source; the build's release here) */
	check_is("SlurmctldParameters", "enable_configless,idle_on_node_suspend", 0, NULL);
	check_is("SlurmctldParameters", "enable_configles", 1,
		 "unknown word 'enable_configles' (did you mean 'enable_configless'?): Slurm ignores it");
	check_is("SlurmdParameters", "config_overide", 1, "(did you mean 'config_override'?)");
	check_is("CommunicationParameters", "keepalivetime=60,NoInAddrAny", 0, NULL);
	check_is("CommunicationParameters", "keepalivetme=60", 1, "(did you mean 'keepalivetime'?)");
	check_is("LaunchParameters", "use_interactive_stepp", 0, NULL);	/* Slurm finds the word in it */
	check_is("LaunchParameters", "use_interactve_step", 1, "(did you mean 'use_interactive_step'?)");
	check_is("JobAcctGatherParams", "UsePss,NoShare", 0, NULL);
	check_is("JobAcctGatherParams", "UsePs", 1, "did you mean 'UsePSS'");
	check_is("X11Parameters", "home_xauthority", 0, NULL);
	check_is("X11Parameters", "home_xauth", 1,
		 "Slurm ignores it (judged against Slurm " MDC_SLURM_RELEASE "); known words: home_xauthority");
	check_is("ReconfigFlags", "KeepPartState", 0, NULL);
	check_is("ReconfigFlags", "KeepPartStat", 1, "(did you mean 'KeepPartState'?)");
	check_is("AccountingStoreFlags", "job_script,job_env", 0, NULL);
	check_is("PrivateData", "jobs,nodes", 0, NULL);	/* xstrcasestr: job, node */
	check_is("ClusterName", "x", 0, NULL);
}

/* ---- the verdict (mdc_slurmcheck) -------------------------------------- */

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

#define BASE "ClusterName=u\nSlurmctldHost=ctl(127.0.0.1)\nAuthType=auth/munge\n" \
	"NodeName=cpu-[0-1] CPUs=2 RealMemory=1000 State=CLOUD\nNodeSet=cpu Nodes=cpu-[0-1]\n"

static json_object *spec(const char *config)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "{\"node_pools\":[{\"id\":\"cpu\",\"scaling_spec\":"
		 "{\"max_node_count\":2}}],\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":"
		 "[{\"id\":\"cpu\",\"node_pool_ids\":[\"cpu\"]}],\"default_partition_id\":\"cpu\","
		 "\"config\":%s}}}", config);
	return json_tokener_parse(buf);
}

static void test_verdict_text(void **state)
{
	struct mdc_slurmcheck_opts o = { .no_slurm = true };
	struct mdc_slurmcheck r;
	struct mdc_ctx ctx;
	char libbuf[4096];

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_slurmcheck_text(BASE "PreemptMode=REQUEUE\n", "t", &o, &r, &ctx), 0);
	assert_true(r.ran_ours);
	assert_false(r.ran_slurm);
	assert_int_equal(r.errors.n, 1);
	assert_non_null(strstr(r.errors.v[0], "needs a PreemptType"));
	mdc_slurmcheck_free(&r);
	assert_int_equal(mdc_slurmcheck_text(BASE "PreemptType=preempt/partition_prio\n"
					     "PreemptMode=SUSPEND,GANG\n", "t", &o, &r, &ctx), 0);
	assert_int_equal(r.errors.n, 0);
	mdc_slurmcheck_free(&r);
	/* Slurm's own parser, when installed */
	o.no_slurm = false;
	assert_int_equal(mdc_slurmcheck_text(BASE "SelectTypeParameters=CR_Cores\n", "t", &o, &r, &ctx), 0);
	if (mdc_slurmcheck_library(libbuf, sizeof(libbuf))) {
		assert_true(r.ran_slurm);
		/* under ASan Slurm's words are garbled (no RTLD_DEEPBIND) */
		if (!SANITIZED)
			assert_true(mdc_strv_has(&r.slurm_words, "Bad SelectTypeParameter: CR_Cores"));
		assert_true(r.errors.n >= 1);
	} else {
		assert_non_null(r.slurm_skipped);
	}
	mdc_slurmcheck_free(&r);
}

static void test_verdict_change(void **state)
{
	char path[] = "/tmp/test_value.XXXXXX";
	struct mdc_strv warn = MDC_STRV_INIT, refused = MDC_STRV_INIT;
	json_object *ok = spec("{\"PriorityWeightAge\":\"10\"}");
	json_object *bad = spec("{\"PreemptMode\":\"REQUEUE\"}");
	json_object *bad2 = spec("{\"PreemptMode\":\"REQUEUE\",\"PriorityWeightAge\":\"10\"}");
	struct mdc_ctx ctx;
	char libbuf[4096];
	int fd = mkstemp(path);

	(void) state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, BASE, strlen(BASE)), (ssize_t) strlen(BASE));
	close(fd);
	/* a change that breaks Slurm: refused, with the reason */
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_slurmcheck_change(path, ok, bad, NULL, &warn, &refused, &ctx),
			 MDC_ERR_REFUSED);
	assert_non_null(strstr(ctx.msg, "needs a PreemptType"));
	assert_non_null(strstr(ctx.msg, "nothing was sent"));
	if (mdc_slurmcheck_library(libbuf, sizeof(libbuf)) && !SANITIZED)
		assert_non_null(strstr(ctx.msg, "PreemptType and PreemptMode values incompatible"));
	assert_true(refused.n >= 1);
	mdc_strv_free(&refused);
	/* the same error already in the current file: not this change's doing */
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_slurmcheck_change(path, bad, bad2, NULL, &warn, &refused, &ctx), 0);
	assert_int_equal(refused.n, 0);
	assert_true(warn.n >= 1);
	assert_non_null(strstr(warn.v[0], "already in the current slurm.conf"));
	mdc_strv_free(&warn);
	/* a warning: marked when the current file already earns it */
	{
		json_object *w1 = spec("{\"SchedulerParameters\":\"bf_interval=x\"}");
		json_object *w2 = spec("{\"SchedulerParameters\":\"bf_interval=x\","
				       "\"PriorityWeightAge\":\"10\"}");

		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_slurmcheck_change(path, ok, w1, NULL, &warn, &refused, &ctx), 0);
		assert_true(warn.n >= 1);
		assert_non_null(strstr(warn.v[0], "bf_interval='x' is not a number"));
		assert_null(strstr(warn.v[0], "already"));
		mdc_strv_free(&warn);
		assert_int_equal(mdc_slurmcheck_change(path, w1, w2, NULL, &warn, &refused, &ctx), 0);
		assert_true(warn.n >= 1);
		assert_non_null(strstr(warn.v[0], "already in the current slurm.conf, not caused by "
					       "this change: SchedulerParameters: bf_interval='x'"));
		mdc_strv_free(&warn);
		json_object_put(w1);
		json_object_put(w2);
	}
	/* a spec that does not render: refused when the change causes it,
	 * a skipped check when the current spec does not render either */
	{
		json_object *norender = spec("{\"NoSuchKey\":\"1\"}");

		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_slurmcheck_change(path, ok, norender, NULL, &warn, &refused,
						       &ctx), MDC_ERR_REFUSED);
		assert_non_null(strstr(ctx.msg, "cannot be written"));
		mdc_strv_free(&refused);
		assert_int_equal(mdc_slurmcheck_change(path, norender, norender, NULL, &warn,
						       &refused, NULL), 0);
		assert_true(warn.n >= 1);
		assert_non_null(strstr(warn.v[warn.n - 1], "Slurm's check was skipped"));
		mdc_strv_free(&warn);
		json_object_put(norender);
	}
	/* no live slurm.conf: our checks still run */
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_slurmcheck_change("/nonexistent/slurm.conf", ok, bad, NULL, &warn,
					       &refused, &ctx), MDC_ERR_REFUSED);
	assert_int_equal(mdc_slurmcheck_change("/nonexistent/slurm.conf", ok, ok, NULL, &warn,
					       &refused, NULL), 0);
	mdc_strv_free(&warn);
	mdc_strv_free(&refused);
	unlink(path);
	json_object_put(ok);
	json_object_put(bad);
	json_object_put(bad2);
}

/* One table for the number and boolean rules: slurmctld 22.05's reading
 * (parse_value.c), and every reader of the tree must agree with it --
 * the key checker (sc_opt_check_value), the slurm.conf parser, the
 * normalizer drift and verify compare with, and the managed file's
 * Default=.  The rows are the old readers' cases and their disagreements
 * (EpilogMsgTime=4k passed the parser and was refused by the checker;
 * Default=on was a default partition to mdc_managed alone). */
static const struct {
	const char *key;
	unsigned scope;
	const char *value;
	bool ok;		/* slurmctld reads it */
	const char *norm;	/* mdc_value_norm's form, NULL: not checked */
} value_rules[] = {
	{ "EpilogMsgTime", SC_SCOPE_CLUSTER, "4k", true, "4096" },
	{ "EpilogMsgTime", SC_SCOPE_CLUSTER, "4K", true, "4096" },
	{ "EpilogMsgTime", SC_SCOPE_CLUSTER, "010", true, "8" },	/* base 0: octal */
	{ "EpilogMsgTime", SC_SCOPE_CLUSTER, "2000", true, "2000" },
	{ "MaxTasksPerNode", SC_SCOPE_CLUSTER, "0x10", true, "16" },
	{ "MaxTasksPerNode", SC_SCOPE_CLUSTER, "4k", false, NULL },	/* 16-bit: no k */
	{ "MaxJobCount", SC_SCOPE_CLUSTER, "12x", false, NULL },
	{ "MaxJobCount", SC_SCOPE_CLUSTER, "UNLIMITED", true, "UNLIMITED" },
	{ "PriorityTier", SC_SCOPE_PARTITION, "70000", false, NULL },
	{ "PriorityTier", SC_SCOPE_PARTITION, "65535", true, "65535" },
	{ "PriorityTier", SC_SCOPE_PARTITION, "-1", false, NULL },
	{ "PriorityWeightAge", SC_SCOPE_CLUSTER, "4294967296", false, NULL },
	{ "PriorityWeightAge", SC_SCOPE_CLUSTER, "4194304k", false, NULL },
	{ "PriorityWeightAge", SC_SCOPE_CLUSTER, "1000", true, "1000" },
	{ "Hidden", SC_SCOPE_PARTITION, "yes", true, "YES" },
	{ "Hidden", SC_SCOPE_PARTITION, "UP", true, "YES" },
	{ "Hidden", SC_SCOPE_PARTITION, "False", true, "NO" },
	{ "Hidden", SC_SCOPE_PARTITION, "0", true, "NO" },
	{ "Hidden", SC_SCOPE_PARTITION, "maybe", false, NULL },
	{ "Default", SC_SCOPE_PARTITION, "YES", true, NULL },
	{ "Default", SC_SCOPE_PARTITION, "1", true, NULL },
	{ "Default", SC_SCOPE_PARTITION, "on", false, NULL },
	{ "Default", SC_SCOPE_PARTITION, "y", false, NULL },
};

/* Default=VALUE in a managed file: is the partition the default? */
static bool managed_default(const char *value)
{
	char path[] = "/tmp/test_value_managed.XXXXXX";
	struct mdc_managed *m = NULL;
	struct mdc_ctx ctx;
	bool is_default;
	FILE *fp;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_non_null(fp = fdopen(fd, "w"));
	fprintf(fp, "PartitionName=p Nodes=n1 Default=%s\n", value);
	fclose(fp);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_managed_load(path, &m, &ctx), 0);
	is_default = m->default_part != NULL;
	mdc_managed_free(m);
	unlink(path);
	return is_default;
}

static void test_value_rules(void **state)
{
	(void) state;
	for (size_t i = 0; i < sizeof(value_rules) / sizeof(value_rules[0]); i++) {
		const char *key = value_rules[i].key, *value = value_rules[i].value;
		const struct sc_option *opt = sc_opt_find(key, value_rules[i].scope);
		bool ok = value_rules[i].ok, partition = value_rules[i].scope == SC_SCOPE_PARTITION;
		struct sc_conf *c = NULL;
		struct mdc_ctx ctx;
		char why[128], text[160];
		char *norm;

		print_message("%s=%s: %s\n", key, value, ok ? "read" : "refused");
		assert_non_null(opt);
		if (opt->type == SC_T_BOOL)
			assert_int_equal(sc_value_bool(value) >= 0, ok);
		else
			assert_int_equal(sc_value_uint(value, opt->type, NULL) == NULL, ok);
		assert_int_equal(sc_opt_check_value(opt, value, why, sizeof(why)), ok);
		snprintf(text, sizeof(text), "%s%s=%s\n", partition ? "PartitionName=p " : "", key, value);
		mdc_ctx_clear(&ctx);
		sc_conf_parse_string(text, strlen(text), "t.conf", &c, &ctx);
		assert_int_equal(c && !sc_conf_errors(c), ok);
		sc_conf_free(c);
		if (value_rules[i].norm) {
			assert_non_null(norm = mdc_value_norm(key, value));
			assert_string_equal(norm, value_rules[i].norm);
			free(norm);
		}
		if (!strcmp(key, "Default"))
			assert_int_equal(managed_default(value), sc_value_bool(value) == 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_value_rules),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_words_and_strings),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_verdict_text),
		cmocka_unit_test(test_verdict_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
