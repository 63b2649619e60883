/* test_scontrol.c - unit tests for mdc-scontrol's argument classifier and
 * for lib/mdc_live: parsing real scontrol 22.05 output (testdata/, captured
 * from a lab), Slurm times, and the NodeSet pool mapping through the real
 * scontrol's hostlist expansion (offline: needs only a slurm.conf). */
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
#include <stdbool.h>
#include "mdc_json.h"
#include "mdc_live.h"
#include "mdc_plan.h"
#include "mdc_str.h"
#include "mdc_value.h"
#include "sc_release.h"
#include "scargs.h"

static char *data_path(const char *name)
{
	const char *top = getenv("top_srcdir");
	char *dir = mdc_path_join(top ? top : ".", "tools/mdc-scontrol/testdata");
	char *p = mdc_path_join(dir, name);

	free(dir);
	return p;
}

static char *slurp(const char *name)
{
	struct mdc_ctx ctx = { 0 };
	char *p = data_path(name), *text = NULL;

	assert_int_equal(mdc_read_file(p, &text, NULL, &ctx), 0);
	free(p);
	return text;
}

/* the release parse() reads keys as (-1: the build's) */
static int test_rel = -1;
static int the_rel(void)
{
	return test_rel;
}

/* parse a command line given as one string (split on spaces) */
static int parse(const char *line, struct scx_cmd *cmd, struct mdc_ctx *ctx)
{
	struct mdc_strv sv = MDC_STRV_INIT;
	int rc;

	assert_int_equal(mdc_strv_split(&sv, line, " "), 0);
	rc = scx_parse((int) sv.n, sv.v, the_rel, cmd, ctx);
	mdc_strv_free(&sv);
	return rc;
}

static void test_parse_update_partition(void **state)
{
	struct mdc_ctx ctx = { 0 };
	struct scx_cmd cmd;

	(void) state;
	/* keywords in any case; values keep theirs; quotes removed */
	assert_int_equal(parse("UPDATE partitionname=debug MaxTime=120 PreemptMode='REQUEUE'", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_UPDATE_PART);
	assert_string_equal(cmd.name, "debug");
	assert_int_equal(cmd.kv.n, 2);
	assert_string_equal(cmd.kv.v[0].key, "MaxTime");
	assert_string_equal(cmd.kv.v[0].value, "120");
	assert_string_equal(mdc_kvs_get(&cmd.kv, "preempt_mode"), "REQUEUE");
	scx_cmd_free(&cmd);

	/* PartitionName anywhere on the line */
	assert_int_equal(parse("update PriorityTier=3 PartitionName=gpu", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_UPDATE_PART);
	assert_string_equal(cmd.name, "gpu");
	scx_cmd_free(&cmd);

	/* a key of the other entity says where it belongs */
	assert_int_equal(parse("update PartitionName=gpu Weight=5", &cmd, &ctx), MDC_ERR_INVAL);
	assert_string_equal(ctx.msg, "update partition: unknown key 'Weight': Weight is a node key: mdc-scontrol update NodeName=NODES Weight=5");
	scx_cmd_free(&cmd);
	mdc_ctx_clear(&ctx);
	assert_int_equal(parse("update NodeName=vm MaxTime=5", &cmd, &ctx), MDC_ERR_INVAL);
	assert_string_equal(ctx.msg, "update nodes: unknown key 'MaxTime': MaxTime is a partition key: mdc-scontrol update PartitionName=PARTITION MaxTime=5");
	scx_cmd_free(&cmd);
	mdc_ctx_clear(&ctx);

	/* nothing to set is a usage error */
	assert_int_equal(parse("update PartitionName=gpu", &cmd, &ctx), MDC_ERR_USAGE);
	assert_non_null(strstr(ctx.msg, "at least one"));
	scx_cmd_free(&cmd);
}

/* Each release's own keywords and abbreviations (scargs_release_tab.c,
 * generated from its scontrol source): what one release takes and another
 * refuses, and a word two releases read as different keys. */
static void test_parse_release_keys(void **state)
{
	struct mdc_ctx ctx = { 0 };
	struct scx_cmd cmd;
	int r22 = sc_rel_parse("22.05"), r24 = sc_rel_parse("24.11"), r26 = sc_rel_parse("26.05");

	(void) state;
	assert_true(r22 >= 0 && r24 >= 0 && r26 >= 0);
	/* Po=: 24.11's PowerDownOnIdle (down to one letter), nothing in 22.05 */
	test_rel = r22;
	assert_int_equal(parse("update PartitionName=p Po=yes", &cmd, &ctx), MDC_ERR_INVAL);
	assert_string_equal(ctx.msg, "update partition: unknown key 'Po': scontrol 22.05 does not update it (scontrol 24.11 reads it as PowerDownOnIdle, 26.05 as PowerDownOnIdle)");
	scx_cmd_free(&cmd);
	mdc_ctx_clear(&ctx);
	test_rel = r24;
	assert_int_equal(parse("update PartitionName=p Po=yes", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_UPDATE_PART);
	assert_string_equal(mdc_kvs_get(&cmd.kv, "PowerDownOnIdle"), "YES");
	scx_cmd_free(&cmd);

	/* ExclusiveT=: ExclusiveTopo from 24.11 on */
	test_rel = r22;
	assert_int_equal(parse("update PartitionName=p ExclusiveT=no", &cmd, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "scontrol 22.05 does not update it"));
	scx_cmd_free(&cmd);
	mdc_ctx_clear(&ctx);
	test_rel = r24;
	assert_int_equal(parse("update PartitionName=p ExclusiveT=no", &cmd, &ctx), 0);
	assert_string_equal(mdc_kvs_get(&cmd.kv, "ExclusiveTopo"), "NO");
	scx_cmd_free(&cmd);

	/* Exclusive=: ExclusiveUser's abbreviation up to 24.11; 26.05's own
	 * keyword (whole word only), which no slurm.conf key holds */
	assert_int_equal(parse("update PartitionName=p Exclusive=yes", &cmd, &ctx), 0);
	assert_string_equal(mdc_kvs_get(&cmd.kv, "ExclusiveUser"), "YES");
	scx_cmd_free(&cmd);
	test_rel = r26;
	assert_int_equal(parse("update PartitionName=p Exclusive=NODE", &cmd, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "update partition: Exclusive= (scontrol 26.05) has no slurm.conf partition key that mdc-scontrol persists: use scontrol for a runtime-only change");
	scx_cmd_free(&cmd);
	mdc_ctx_clear(&ctx);
	assert_int_equal(parse("update PartitionName=p Exclusiv=yes", &cmd, &ctx), 0);
	assert_string_equal(mdc_kvs_get(&cmd.kv, "ExclusiveUser"), "YES");
	scx_cmd_free(&cmd);

	/* MaxCPUsPerS=: 24.11's MaxCPUsPerSocket, after MaxCPUsPerNode */
	test_rel = r24;
	assert_int_equal(parse("update PartitionName=p MaxCPUsPerS=4", &cmd, &ctx), 0);
	assert_string_equal(mdc_kvs_get(&cmd.kv, "MaxCPUsPerSocket"), "4");
	scx_cmd_free(&cmd);
	test_rel = r22;
	assert_int_equal(parse("update PartitionName=p MaxCPUsPerS=4", &cmd, &ctx), MDC_ERR_INVAL);
	scx_cmd_free(&cmd);
	mdc_ctx_clear(&ctx);

	/* node C=: nothing in 22.05 (Comment needs two letters), 24.11's
	 * CertToken: runtime state, the real scontrol's */
	assert_int_equal(parse("update NodeName=n1 C=x", &cmd, &ctx), MDC_ERR_INVAL);
	assert_string_equal(ctx.msg, "update nodes: unknown key 'C': scontrol 22.05 does not update it (scontrol 24.11 reads it as CertToken, 26.05 as CertToken)");
	scx_cmd_free(&cmd);
	mdc_ctx_clear(&ctx);
	test_rel = r24;
	assert_int_equal(parse("update NodeName=n1 C=x", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_PASS);
	assert_non_null(cmd.note);
	scx_cmd_free(&cmd);
	/* update SuspendExcNodes=: no entity to 22.05's scontrol (a slurm.conf
	 * key it cannot update), a live-only change to 24.11's */
	test_rel = r22;
	assert_int_equal(parse("update SuspendExcNodes=n1", &cmd, &ctx), MDC_ERR_REFUSED);
	assert_non_null(strstr(ctx.msg, "SuspendExcNodes is a cluster-wide slurm.conf setting, which scontrol cannot update"));
	scx_cmd_free(&cmd);
	mdc_ctx_clear(&ctx);
	test_rel = r24;
	assert_int_equal(parse("update SuspendExcNodes+=n1", &cmd, &ctx), MDC_ERR_REFUSED);
	assert_string_equal(ctx.msg, "update SuspendExcNodes+=n1: scontrol 24.11 changes SuspendExcNodes on the live slurmctld only, which the next regeneration of slurm.conf undoes: set it with 'mdcctl config set SuspendExcNodes=VALUE' (nothing was sent)");
	scx_cmd_free(&cmd);
	mdc_ctx_clear(&ctx);
	assert_int_equal(parse("update SuspendExcPart=p", &cmd, &ctx), MDC_ERR_REFUSED);
	assert_non_null(strstr(ctx.msg, "scontrol 24.11 changes SuspendExcParts"));
	scx_cmd_free(&cmd);
	mdc_ctx_clear(&ctx);
	/* what all three take is read alike */
	for (int r = 0; r < SC_NREL; r++) {
		test_rel = r;
		assert_int_equal(parse("update PartitionName=p MaxT=5 D=yes", &cmd, &ctx), 0);
		assert_string_equal(mdc_kvs_get(&cmd.kv, "MaxTime"), "5");
		assert_string_equal(mdc_kvs_get(&cmd.kv, "DisableRootJobs"), "YES");
		scx_cmd_free(&cmd);
	}
	test_rel = -1;
}

static void test_parse_create_delete(void **state)
{
	struct mdc_ctx ctx = { 0 };
	struct scx_cmd cmd;

	(void) state;
	assert_int_equal(parse("create PartitionName=long Nodes=cpu-[0-3] MaxTime=2-00:00:00", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_CREATE_PART);
	assert_string_equal(cmd.name, "long");
	assert_string_equal(mdc_kvs_get(&cmd.kv, "Nodes"), "cpu-[0-3]");
	scx_cmd_free(&cmd);

	assert_int_equal(parse("delete PartitionName=long", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_DELETE_PART);
	assert_string_equal(cmd.name, "long");
	scx_cmd_free(&cmd);

	assert_int_equal(parse("Delete partition long", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_DELETE_PART);
	assert_string_equal(cmd.name, "long");
	scx_cmd_free(&cmd);

	/* scontrol: "Invalid deletion entity" (two words: ENTITY ID) */
	assert_int_equal(parse("delete PartitionName=long MaxTime=1", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_PASS);
	scx_cmd_free(&cmd);

	/* reservations are the real scontrol's */
	assert_int_equal(parse("create ReservationName=r StartTime=now Duration=10 Nodes=ALL Users=root", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_PASS);
	scx_cmd_free(&cmd);
	assert_int_equal(parse("delete ReservationName=r", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_PASS);
	scx_cmd_free(&cmd);
}

static void test_parse_nodes(void **state)
{
	struct mdc_ctx ctx = { 0 };
	struct scx_cmd cmd;

	(void) state;
	assert_int_equal(parse("update NodeName=cpu-[0-3] Weight=10 Features=fast,ssd", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_UPDATE_NODES);
	assert_string_equal(cmd.name, "cpu-[0-3]");
	assert_int_equal(cmd.kv.n, 2);
	scx_cmd_free(&cmd);

	/* node state is runtime: the real scontrol, with a note saying so */
	assert_int_equal(parse("update NodeName=vm State=DRAIN Reason=maint", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_PASS);
	assert_non_null(cmd.note);
	assert_non_null(strstr(cmd.note, "runtime"));
	scx_cmd_free(&cmd);
	/* dynamic nodes likewise */
	assert_int_equal(parse("create NodeName=dyn CPUs=1 State=CLOUD", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_PASS);
	assert_non_null(cmd.note);
	scx_cmd_free(&cmd);
	assert_int_equal(parse("delete nodename=dyn", &cmd, &ctx), 0);
	assert_int_equal(cmd.verb, SCX_PASS);
	assert_non_null(cmd.note);
	scx_cmd_free(&cmd);
	/* a job update is not ours and says nothing */
	assert_int_equal(parse("update JobId=5 TimeLimit=3", &cmd, &ctx), 0);
	assert_null(cmd.note);
	scx_cmd_free(&cmd);

	/* mixing both kinds is refused with a hint */
	assert_int_equal(parse("update NodeName=vm Weight=2 State=DRAIN", &cmd, &ctx), MDC_ERR_USAGE);
	assert_non_null(strstr(ctx.msg, "two commands"));
	scx_cmd_free(&cmd);
}

static void test_parse_show_and_pass(void **state)
{
	static const struct { const char *line; enum scx_verb verb; const char *name; } cases[] = {
		{ "show config", SCX_SHOW_CONFIG, NULL },
		{ "SHOW Partition", SCX_SHOW_PART, NULL },
		{ "show partition debug", SCX_SHOW_PART, "debug" },
		{ "show partition=debug", SCX_SHOW_PART, "debug" },
		{ "show nodeset cpu", SCX_SHOW_NODESET, "cpu" },
		{ "show job 12", SCX_PASS, NULL },
		{ "show node vm", SCX_PASS, NULL },
		/* scontrol's abbreviations, as far as scontrol allows them */
		{ "show part", SCX_SHOW_PART, NULL },
		{ "sho pa debug", SCX_SHOW_PART, "debug" },
		{ "show p", SCX_PASS, NULL },
		{ "show c", SCX_SHOW_CONFIG, NULL },
		{ "show ca", SCX_PASS, NULL },
		{ "sh part", SCX_PASS, NULL },
		{ "ping", SCX_PASS, NULL },
		{ "reconfigure", SCX_PASS, NULL },
		{ "update JobId=12 TimeLimit=10", SCX_PASS, NULL },
		{ "upd PartitionName=x MaxTime=1", SCX_UPDATE_PART, "x" },
		{ "show config x", SCX_PASS, NULL },
	};
	struct mdc_ctx ctx = { 0 };
	struct scx_cmd cmd;

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].line, &cmd, &ctx), 0);
		if (cmd.verb != cases[i].verb)
			fail_msg("'%s': verb %d, want %d", cases[i].line, cmd.verb, cases[i].verb);
		if (cases[i].name)
			assert_string_equal(cmd.name, cases[i].name);
		else
			assert_null(cmd.name);
		scx_cmd_free(&cmd);
	}
}

/* Every spelling scontrol 22.05 reads as the same command is the same
 * command here (src/scontrol/scontrol.c, update_part.c, update_node.c);
 * the spellings it refuses are refused or left to it. */
static void test_parse_abbrev(void **state)
{
	static const struct {
		const char *line;
		int rc;
		enum scx_verb verb;
		const char *name, *pairs;	/* "K=V K=V" canonical, in order */
	} cases[] = {
		{ "update partition=high MaxTime=60", 0, SCX_UPDATE_PART, "high", "MaxTime=60" },
		{ "update part=high maxt=60", 0, SCX_UPDATE_PART, "high", "MaxTime=60" },
		{ "u PartitionName=high MaxT=60", 0, SCX_UPDATE_PART, "high", "MaxTime=60" },
		{ "UPD PAR=high MAXTIME=60", 0, SCX_UPDATE_PART, "high", "MaxTime=60" },
		{ "update MaxTim=60 partitionname=high", 0, SCX_UPDATE_PART, "high", "MaxTime=60" },
		/* scontrol needs 3 letters of the entity, 4 of MaxTime */
		{ "update Pa=high MaxTime=60", 0, SCX_PASS, NULL, NULL },
		{ "update PartitionName=high Max=60", MDC_ERR_INVAL, SCX_PASS, NULL, NULL },
		{ "update PartitionName=high MaxTimes=60", MDC_ERR_INVAL, SCX_PASS, NULL, NULL },
		{ "update PartitionName=high MaxTime", MDC_ERR_USAGE, SCX_PASS, NULL, NULL },
		/* first match of scontrol's chain; value words abbreviated too */
		{ "update PartitionName=high D=y", 0, SCX_UPDATE_PART, "high", "DisableRootJobs=YES" },
		{ "update PartitionName=high Default=y", 0, SCX_UPDATE_PART, "high", "Default=YES" },
		{ "update PartitionName=high DefaultT=5", 0, SCX_UPDATE_PART, "high", "DefaultTime=5" },
		{ "update PartitionName=high h=n lln=YES", 0, SCX_UPDATE_PART, "high", "Hidden=NO LLN=YES" },
		{ "update PartitionName=high sh=force:2", 0, SCX_UPDATE_PART, "high", "OverSubscribe=FORCE:2" },
		{ "update PartitionName=high overs=e", 0, SCX_UPDATE_PART, "high", "OverSubscribe=EXCLUSIVE" },
		{ "update PartitionName=high st=d", 0, SCX_UPDATE_PART, "high", "State=DOWN" },
		{ "update PartitionName=high state=dr", 0, SCX_UPDATE_PART, "high", "State=DRAIN" },
		{ "update PartitionName=high State=bogus", MDC_ERR_INVAL, SCX_PASS, NULL, NULL },
		{ "update PartitionName=high pri=5", 0, SCX_UPDATE_PART, "high",
		  "PriorityJobFactor=5 PriorityTier=5" },
		{ "update PartitionName=high Priority=5 PriorityT=2", 0, SCX_UPDATE_PART, "high",
		  "PriorityJobFactor=5 PriorityTier=2" },
		{ "update PartitionName=high qos=normal t=cpu=1.0", 0, SCX_UPDATE_PART, "high",
		  "QOS=normal TRESBillingWeights=cpu=1.0" },
		{ "update PartitionName=high MaxTime=5 MaxTime=6", 0, SCX_UPDATE_PART, "high", "MaxTime=6" },
		{ "update PartitionName=high JobDefaults=x", MDC_ERR_REFUSED, SCX_PASS, NULL, NULL },
		{ "update PartitionName=x ReservationName=y", 0, SCX_PASS, NULL, NULL },
		/* no entity but a slurm.conf key: ours to refuse, with the way */
		{ "update PreemptType=preempt/qos", MDC_ERR_REFUSED, SCX_PASS, NULL, NULL },
		{ "update preempt_mode=REQUEUE", MDC_ERR_REFUSED, SCX_PASS, NULL, NULL },
		{ "update Foo=bar", 0, SCX_PASS, NULL, NULL },
		{ "update PartitionName=high", MDC_ERR_USAGE, SCX_PASS, NULL, NULL },
		/* create and delete */
		{ "create part=new nodes=cpu-0", 0, SCX_CREATE_PART, "new", "Nodes=cpu-0" },
		{ "cr PartitionName=new N=cpu-0", 0, SCX_CREATE_PART, "new", "Nodes=cpu-0" },
		{ "c PartitionName=new Nodes=cpu-0", 0, SCX_PASS, NULL, NULL },
		{ "create PartitionName=default Nodes=cpu-0", MDC_ERR_USAGE, SCX_PASS, NULL, NULL },
		{ "del partition=old", 0, SCX_DELETE_PART, "old", "" },
		{ "delete part old", 0, SCX_DELETE_PART, "old", "" },
		{ "de PartitionName=old", 0, SCX_PASS, NULL, NULL },	/* "details" */
		{ "d PartitionName=old", 0, SCX_PASS, NULL, NULL },
		/* nodes */
		{ "update NodeName=vm w=3 f=a", 0, SCX_UPDATE_NODES, "vm", "Weight=3 Features=a" },
		{ "update nodename=vm avail=x g=gpu:1", 0, SCX_UPDATE_NODES, "vm", "Features=x Gres=gpu:1" },
		{ "update nodename=vm CpuBind=cores", 0, SCX_UPDATE_NODES, "vm", "CpuBind=cores" },
		{ "update NodeName=vm av=x", MDC_ERR_INVAL, SCX_PASS, NULL, NULL },
		{ "update Nod=vm s=drain r=x", 0, SCX_PASS, NULL, NULL },
		{ "update NodeName=vm act=x", 0, SCX_PASS, NULL, NULL },
		{ "update JobId=1 Partition=x", 0, SCX_PASS, NULL, NULL },
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mdc_ctx ctx = { 0 };
		struct scx_cmd cmd;
		struct mdc_strv got = MDC_STRV_INIT;
		char *joined;
		int rc = parse(cases[i].line, &cmd, &ctx);

		if (rc != cases[i].rc || cmd.verb != cases[i].verb)
			fail_msg("'%s': rc %d verb %d (%s), want rc %d verb %d", cases[i].line, rc,
				 cmd.verb, ctx.msg, cases[i].rc, cases[i].verb);
		if (cases[i].name) {
			assert_non_null(cmd.name);
			assert_string_equal(cmd.name, cases[i].name);
		}
		for (size_t k = 0; k < cmd.kv.n; k++)
			mdc_strv_pushf(&got, "%s=%s", cmd.kv.v[k].key, cmd.kv.v[k].value);
		joined = mdc_strv_join(&got, " ");
		if (cases[i].pairs && strcmp(joined, cases[i].pairs))
			fail_msg("'%s': pairs '%s', want '%s'", cases[i].line, joined, cases[i].pairs);
		free(joined);
		mdc_strv_free(&got);
		scx_cmd_free(&cmd);
	}
}

/* A removal the plan makes asks for the partition's jobs and is refused
 * while there are any, unless force. */
static int fake_jobs(const char *partition, struct mdc_strv *jobs, void *arg, struct mdc_ctx *ctx)
{
	(void) ctx;
	(void) arg;
	return strcmp(partition, "busy") ? 0 : mdc_strv_push(jobs, "12 (PENDING)");
}

static void test_plan_busy_partition(void **state)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan plan;
	struct mdc_plan_opts opts = { .mode = MDC_MODE_USER_ONLY, .partition_jobs = fake_jobs };
	json_object *cl = NULL;
	const char *json = "{\"name\":\"c\",\"orchestrator_spec\":{\"slurm_spec\":{"
		"\"default_partition_id\":\"idle\",\"partitions\":["
		"{\"id\":\"idle\",\"node_pool_ids\":[\"cpu\"]},{\"id\":\"busy\",\"node_pool_ids\":[\"cpu\"]}]}},"
		"\"node_pools\":[{\"id\":\"cpu\"}]}";

	(void) state;
	assert_int_equal(mdc_json_parse(json, strlen(json), &cl, &ctx), 0);
	assert_non_null(mdc_intent_add(&in, MDC_OP_PART_DELETE, "busy", NULL, NULL));
	assert_int_equal(mdc_plan_make(cl, &in, &opts, &plan, &ctx), MDC_ERR_REFUSED);
	assert_non_null(strstr(ctx.msg, "partition 'busy' still holds jobs 12 (PENDING)"));
	assert_non_null(strstr(ctx.msg, "--force"));
	mdc_plan_free(&plan);
	opts.force = true;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_plan_make(cl, &in, &opts, &plan, &ctx), 0);
	assert_int_equal(plan.warnings.n >= 1, 1);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(cl);
}

/* A pool the plan shrinks or removes asks for the jobs on the nodes it
 * loses (KEEP nodes kept, -1: removed), never for the login pool, and is
 * refused while there are any, unless force; growing asks nothing. */
static long fake_keep = -2;
static int fake_pool_jobs(const char *pool, long keep, struct mdc_strv *jobs, void *arg,
			  struct mdc_ctx *ctx)
{
	(void) ctx;
	(void) arg;
	assert_string_equal(pool, "cpu");
	fake_keep = keep;
	return mdc_strv_pushf(jobs, "7 (RUNNING on cpu-%ld)", keep < 0 ? 0 : keep);
}

static void test_plan_busy_pool(void **state)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan plan;
	struct mdc_plan_opts opts = { .mode = MDC_MODE_USER_ONLY, .pool_jobs = fake_pool_jobs };
	struct mdc_op *op;
	json_object *cl = NULL;
	const char *json = "{\"name\":\"c\",\"orchestrator_spec\":{\"slurm_spec\":{"
		"\"login_node_pool_id\":\"login\",\"default_partition_id\":\"p\",\"partitions\":["
		"{\"id\":\"p\",\"node_pool_ids\":[\"cpu\"]}]}},"
		"\"node_pools\":[{\"id\":\"cpu\",\"scaling_spec\":{\"min_node_count\":1,\"max_node_count\":4}},"
		"{\"id\":\"login\",\"scaling_spec\":{\"min_node_count\":1,\"max_node_count\":2}}]}";

	(void) state;
	assert_int_equal(mdc_json_parse(json, strlen(json), &cl, &ctx), 0);
	/* 4 -> 2: nodes cpu-2, cpu-3 go */
	assert_non_null(op = mdc_intent_add(&in, MDC_OP_POOL_SCALE, "cpu", NULL, NULL));
	op->min = 1;
	op->max = 2;
	assert_int_equal(mdc_plan_make(cl, &in, &opts, &plan, &ctx), MDC_ERR_REFUSED);
	assert_int_equal(fake_keep, 2);
	assert_non_null(strstr(ctx.msg, "node pool 'cpu' scaled down loses the nodes of jobs 7 (RUNNING on cpu-2)"));
	assert_non_null(strstr(ctx.msg, "--force"));
	mdc_plan_free(&plan);
	opts.force = true;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_plan_make(cl, &in, &opts, &plan, &ctx), 0);
	assert_int_equal(plan.warnings.n >= 1, 1);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	/* 4 -> 0: no node kept, cpu-0 neither (24.5) */
	opts.force = false;
	assert_non_null(op = mdc_intent_add(&in, MDC_OP_POOL_SCALE, "cpu", NULL, NULL));
	op->min = 0;
	op->max = 0;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_plan_make(cl, &in, &opts, &plan, &ctx), MDC_ERR_REFUSED);
	assert_int_equal(fake_keep, 0);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	/* growing, and the login pool shrinking: not asked */
	fake_keep = -2;
	assert_non_null(op = mdc_intent_add(&in, MDC_OP_POOL_SCALE, "cpu", NULL, NULL));
	op->min = 1;
	op->max = 8;
	assert_non_null(op = mdc_intent_add(&in, MDC_OP_POOL_SCALE, "login", NULL, NULL));
	op->min = 1;
	op->max = 1;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_plan_make(cl, &in, &opts, &plan, &ctx), 0);
	assert_int_equal(fake_keep, -2);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(cl);
}

/* A partition QOS slurmctld does not know is refused when enforced, else
 * a warning; unknown AllowQos names warn; values that did not change and
 * partitions without a config ask nothing. */
static int fake_qos_calls;
static bool fake_qos_enforced;
static int fake_qos(struct mdc_strv *names, bool *have_list, bool *enforced, void *arg,
		    struct mdc_ctx *ctx)
{
	(void) arg;
	(void) ctx;
	fake_qos_calls++;
	*have_list = true;
	*enforced = fake_qos_enforced;
	return mdc_strv_push(names, "normal") || mdc_strv_push(names, "High");
}

static void test_plan_qos(void **state)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan plan;
	struct mdc_plan_opts opts = { .mode = MDC_MODE_USER_ONLY, .qos_list = fake_qos };
	json_object *cl = NULL;
	const char *json = "{\"name\":\"c\",\"orchestrator_spec\":{\"slurm_spec\":{"
		"\"default_partition_id\":\"p\",\"partitions\":[{\"id\":\"p\",\"node_pool_ids\":[\"cpu\"],"
		"\"config\":{\"QOS\":\"gone\"}},{\"id\":\"bare\",\"node_pool_ids\":[\"cpu\"]}]}},"
		"\"node_pools\":[{\"id\":\"cpu\"}]}";

	(void) state;
	assert_int_equal(mdc_json_parse(json, strlen(json), &cl, &ctx), 0);
	/* nothing about QOS changes (and 'bare' has no config): not asked */
	assert_non_null(mdc_intent_add(&in, MDC_OP_PART_SET, "p", "MaxTime", "60"));
	assert_int_equal(mdc_plan_make(cl, &in, &opts, &plan, &ctx), 0);
	assert_int_equal(fake_qos_calls, 0);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	/* enforced: an unknown QOS is refused, a known one (any case) taken */
	fake_qos_enforced = true;
	assert_non_null(mdc_intent_add(&in, MDC_OP_PART_SET, "bare", "QOS", "nosuch"));
	assert_int_equal(mdc_plan_make(cl, &in, &opts, &plan, &ctx), MDC_ERR_REFUSED);
	assert_non_null(strstr(ctx.msg, "partition 'bare': QOS=nosuch is not a QOS slurmctld knows"));
	assert_int_equal(fake_qos_calls, 1);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	assert_non_null(mdc_intent_add(&in, MDC_OP_PART_SET, "bare", "qos", "high"));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_plan_make(cl, &in, &opts, &plan, &ctx), 0);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	/* not enforced: a warning; AllowQos names: a warning each */
	fake_qos_enforced = false;
	assert_non_null(mdc_intent_add(&in, MDC_OP_PART_SET, "bare", "QOS", "nosuch"));
	assert_non_null(mdc_intent_add(&in, MDC_OP_PART_SET, "bare", "AllowQos", "normal,bogus"));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_plan_make(cl, &in, &opts, &plan, &ctx), 0);
	assert_int_equal(plan.warnings.n, 2);
	assert_non_null(strstr(plan.warnings.v[0], "QOS=nosuch: 'nosuch' is not a QOS slurmctld knows: it has no effect"));
	assert_non_null(strstr(plan.warnings.v[1], "'bogus' is not a QOS slurmctld knows: it is ignored"));
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(cl);
}

static void test_live_parse_partitions(void **state)
{
	const char *files[] = { "partition_oneliner.txt", "partition.txt" };

	(void) state;
	/* the one-line and the multi-line forms give the same records */
	for (size_t f = 0; f < 2; f++) {
		struct mdc_recs recs = MDC_RECS_INIT;
		struct mdc_ctx ctx = { 0 };
		const struct mdc_kvs *p;
		char *text = slurp(files[f]);

		assert_int_equal(mdc_live_parse_records(text, &recs, &ctx), 0);
		assert_int_equal(recs.n, 2);
		p = mdc_recs_find(&recs, "batch");
		assert_non_null(p);
		assert_string_equal(p->v[0].key, "PartitionName");
		assert_string_equal(mdc_kvs_get(p, "MaxTime"), "01:00:00");
		assert_string_equal(mdc_kvs_get(p, "PriorityTier"), "2");
		assert_string_equal(mdc_kvs_get(p, "Nodes"), "cpu-[0-3]");
		assert_string_equal(mdc_kvs_get(p, "NodeSets"), "cpu");
		/* values holding '=' keep it */
		assert_string_equal(mdc_kvs_get(p, "TRES"), "cpu=8,mem=4000M,node=4,billing=8");
		assert_string_equal(mdc_kvs_get(mdc_recs_find(&recs, "debug"), "Default"), "YES");
		assert_null(mdc_recs_find(&recs, "nope"));
		mdc_recs_free(&recs);
		free(text);
	}
}

static void test_live_parse_node_and_config(void **state)
{
	struct mdc_recs recs = MDC_RECS_INIT;
	struct mdc_kvs conf = MDC_KVS_INIT;
	struct mdc_ctx ctx = { 0 };
	char *text = slurp("node_oneliner.txt");

	(void) state;
	assert_int_equal(mdc_live_parse_records(text, &recs, &ctx), 0);
	assert_int_equal(recs.n, 1);
	/* a value with spaces continues until the next Key= */
	assert_true(mdc_startswith(mdc_kvs_get(&recs.v[0], "OS"), "Linux "));
	assert_non_null(strstr(mdc_kvs_get(&recs.v[0], "OS"), " SMP"));
	assert_string_equal(mdc_kvs_get(&recs.v[0], "RealMemory"), "2000");
	assert_string_equal(mdc_kvs_get(&recs.v[0], "AllocTRES"), "");
	mdc_recs_free(&recs);
	free(text);

	text = slurp("config.txt");
	assert_int_equal(mdc_live_parse_config(text, &conf, &ctx), 0);
	/* 196 lines: the header, the blank line and the ping line are no pairs */
	assert_int_equal(conf.n, 193);
	assert_string_equal(mdc_kvs_get(&conf, "PreemptType"), "preempt/none");
	assert_string_equal(mdc_kvs_get(&conf, "preempt_mode"), "OFF");
	assert_string_equal(mdc_kvs_get(&conf, "SlurmctldHost[0]"), "vm(127.0.0.1)");
	assert_string_equal(mdc_kvs_get(&conf, "SuspendRate"), "60 nodes/min");
	assert_null(mdc_kvs_get(&conf, "Configuration data as of"));
	mdc_kvs_free(&conf);
	free(text);
}

static void test_live_times(void **state)
{
	/* the times scontrol shows, read by the one parser in mdc_value */
	static const struct { const char *s; long long sec; } ok_cases[] = {
		{ "60", 3600 }, { "01:00:00", 3600 }, { "1:30", 90 }, { "2-00:00:00", 172800 },
		{ "1-12", 129600 }, { "1-0:30", 88200 }, { "UNLIMITED", -1 }, { "infinite", -1 },
		{ "0", 0 },
	};
	long long sec;

	(void) state;
	for (size_t i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
		if (!mdc_value_time_s(ok_cases[i].s, &sec) || sec != ok_cases[i].sec)
			fail_msg("'%s' -> %lld, want %lld", ok_cases[i].s, sec, ok_cases[i].sec);
	}
	assert_false(mdc_value_time_s("", &sec));
	assert_false(mdc_value_time_s("1h", &sec));
	assert_true(mdc_value_time_s("-1", &sec));	/* Slurm's INFINITE */
	assert_int_equal(sec, -1);
	assert_false(mdc_value_time_s("-2", &sec));
	assert_false(mdc_value_time_s("NONE", &sec));
	assert_true(mdc_live_value_eq("MaxTime", "60", "01:00:00"));
	assert_true(mdc_live_value_eq("max_time", "UNLIMITED", "infinite"));
	assert_false(mdc_live_value_eq("MaxTime", "60", "02:00:00"));
	assert_true(mdc_live_value_eq("PreemptMode", "requeue", "REQUEUE"));
	assert_false(mdc_live_value_eq("PriorityTier", "1", "10"));
	/* "60" is no time for a key that is not one */
	assert_false(mdc_live_value_eq("PriorityTier", "60", "01:00:00"));
	/* show config's display */
	assert_true(mdc_live_value_eq("SchedulerParameters", "(null)", ""));
	assert_true(mdc_live_value_eq("KillWait", "30 sec", "30"));
	assert_true(mdc_live_value_eq("MaxNodes", "UNLIMITED", "INFINITE"));
	assert_false(mdc_live_value_eq("KillWait", "30 sec", "60"));
}

static const char conf[] =
		"ClusterName=t\n"
		"SlurmctldHost=localhost(127.0.0.1)\n"
		"NodeName=cpu-[0-3] CPUs=1 State=FUTURE\n"
		"NodeName=g-[0-1] CPUs=1 State=FUTURE\n"
		"# NodeSet=old Nodes=x\n"
		"NodeSet=cpu Nodes=cpu-[0-3]\n"
		"nodeset=gpu Nodes=g-[0-1]   # trailing comment\n"
		"PartitionName=p Nodes=cpu\n";

/* Every scontrol run reads SLURM_CONF (a missing one makes it retry for a
 * minute): the group gets its own. */
static char conf_dir[] = "/tmp/mdc-test-scontrol.XXXXXX";
static char *conf_path;

static int group_setup(void **state)
{
	struct mdc_ctx ctx = { 0 };

	(void) state;
	unsetenv("MDC_SCONTROL");
	if (!mkdtemp(conf_dir) || !(conf_path = mdc_path_join(conf_dir, "slurm.conf")) ||
	    mdc_write_file_atomic(conf_path, conf, strlen(conf), 0644, &ctx))
		return -1;
	return setenv("SLURM_CONF", conf_path, 1);
}

static int group_teardown(void **state)
{
	(void) state;
	unlink(conf_path);
	rmdir(conf_dir);
	free(conf_path);
	return 0;
}

static bool have_scontrol(void)
{
	return system("command -v scontrol >/dev/null 2>&1") == 0;
}

static void test_live_nodesets(void **state)
{
	struct mdc_recs recs = MDC_RECS_INIT;
	struct mdc_strv pools = MDC_STRV_INIT;
	struct mdc_ctx ctx = { 0 };
	const char *path = conf_path;
	char *pool = NULL;
	bool whole, exact;

	(void) state;
	assert_int_equal(mdc_live_parse_nodesets(conf, &recs, &ctx), 0);
	assert_int_equal(recs.n, 2);
	assert_string_equal(recs.v[1].v[0].value, "gpu");
	assert_string_equal(mdc_kvs_get(&recs.v[1], "Nodes"), "g-[0-1]");
	mdc_recs_free(&recs);

	/* pool mapping expands host lists with the real scontrol */
	if (!have_scontrol())
		skip();

	assert_int_equal(mdc_live_pool_of(path, "cpu-[0-3]", &pool, &whole, &ctx), 0);
	assert_string_equal(pool, "cpu");
	assert_true(whole);
	free(pool);
	assert_int_equal(mdc_live_pool_of(path, "cpu-[1-2]", &pool, &whole, &ctx), 0);
	assert_string_equal(pool, "cpu");
	assert_false(whole);
	free(pool);
	assert_int_equal(mdc_live_pool_of(path, "cpu-0,g-0", &pool, &whole, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "span node pools 'cpu' and 'gpu'"));
	assert_null(pool);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_live_pool_of(path, "zz1", &pool, &whole, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, "'zz1' is in no node pool"));
	mdc_ctx_clear(&ctx);

	/* a partition's Nodes= by node names, NodeSet names, or both */
	assert_int_equal(mdc_live_pools_covering(path, "g-[0-1],cpu-0", &pools, &exact, &ctx), 0);
	assert_int_equal(pools.n, 2);
	assert_string_equal(pools.v[0], "gpu");
	assert_string_equal(pools.v[1], "cpu");
	assert_false(exact);	/* cpu-0 alone widens to the cpu pool */
	mdc_strv_free(&pools);
	assert_int_equal(mdc_live_pools_covering(path, "cpu,gpu", &pools, &exact, &ctx), 0);
	assert_int_equal(pools.n, 2);
	assert_true(exact);
	mdc_strv_free(&pools);
	assert_int_equal(mdc_live_pools_covering(path, "g-[0-1],cpu-[0-3]", &pools, &exact, &ctx), 0);
	assert_true(exact);
	mdc_strv_free(&pools);
	/* Nodes=ALL (any case, as Slurm reads it): every pool */
	assert_int_equal(mdc_live_pools_covering(path, "all", &pools, &exact, &ctx), 0);
	assert_int_equal(pools.n, 2);
	assert_string_equal(pools.v[0], "cpu");
	assert_string_equal(pools.v[1], "gpu");
	assert_true(exact);
	mdc_strv_free(&pools);
	assert_int_equal(mdc_live_pools_covering(path, "gpu,ALL", &pools, &exact, &ctx), 0);
	assert_int_equal(pools.n, 2);
	mdc_strv_free(&pools);
}

static void test_live_run_status(void **state)
{
	char *args_ok[] = { "show", "hostnames", "a[1-3]", NULL };
	char *args_bad[] = { "no-such-command", NULL };
	struct mdc_buf out = MDC_BUF_INIT, err = MDC_BUF_INIT;
	struct mdc_ctx ctx = { 0 };
	int status;

	(void) state;
	if (!have_scontrol())
		skip();
	assert_int_equal(mdc_live_run(args_ok, &out, &err, &status, &ctx), 0);
	assert_int_equal(status, 0);
	assert_string_equal(mdc_buf_str(&out), "a1\na2\na3\n");
	mdc_buf_reset(&out);
	/* a failing scontrol: its stderr becomes the one-line message */
	assert_int_equal(mdc_live_check(args_bad, &out, &ctx), MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "'scontrol no-such-command' failed (exit 1)"));
	assert_null(strchr(ctx.msg, '\n'));
	mdc_buf_free(&out);
	mdc_buf_free(&err);

	/* MDC_SCONTROL must point at an executable */
	mdc_ctx_clear(&ctx);
	setenv("MDC_SCONTROL", "/nonexistent/scontrol", 1);
	assert_int_equal(mdc_live_run(args_ok, &out, &err, &status, &ctx), MDC_ERR_NOTFOUND);
	assert_non_null(strstr(ctx.msg, "MDC_SCONTROL"));
	unsetenv("MDC_SCONTROL");
	mdc_buf_free(&out);
	mdc_buf_free(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_update_partition),
		cmocka_unit_test(test_parse_release_keys),
		cmocka_unit_test(test_parse_create_delete),
		cmocka_unit_test(test_parse_nodes),
		cmocka_unit_test(test_parse_show_and_pass),
		cmocka_unit_test(test_parse_abbrev),
		cmocka_unit_test(test_plan_busy_partition),
		cmocka_unit_test(test_plan_busy_pool),
		cmocka_unit_test(test_plan_qos),
		cmocka_unit_test(test_live_parse_partitions),
		cmocka_unit_test(test_live_parse_node_and_config),
		cmocka_unit_test(test_live_times),
		cmocka_unit_test(test_live_nodesets),
		cmocka_unit_test(test_live_run_status),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
