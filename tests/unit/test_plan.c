/* test_plan.c - the plan engine: intent + current cluster -> the exact
 * updateMask, payload, mode and refusals.  Table-driven: each case names
 * a cluster file from tests/plan/, the ops, and what must be sent. */
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
#include "mdc_intent.h"
#include "mdc_json.h"
#include "mdc_plan.h"
#include "sc_render.h"
#include "mdc_str.h"

#define SS "orchestrator_spec.slurm_spec."

/* One op as text: kind, id, key, value, list ("a,b"), kv ("K=V;K=V"). */
struct top {
	enum mdc_op_kind kind;
	const char *id, *key, *value, *list, *kv;
	int64_t min, max;
	long index;
};

struct tcase {
	const char *name;
	const char *cluster;		/* file in tests/plan/ */
	struct top ops[4];
	enum mdc_update_mode mode;
	bool allow_recreate;
	const char *mask;		/* expected, comma-joined; "" = none */
	const char *payload;		/* expected JSON; NULL = nothing to send */
	const char *refusal;		/* expected substring of the first refusal */
	const char *warning;		/* expected substring of some warning */
	const char *restart;		/* expected restart key */
};

#define PARTS_CPU_GPU(cpu_cfg, gpu_extra) \
	"[{\"id\":\"cpu\",\"node_pool_ids\":[\"cpu\"],\"config\":" cpu_cfg "}," \
	"{\"id\":\"gpu\",\"node_pool_ids\":[\"gpu\"]" gpu_extra "}]"
#define POOLS(cpu_min, cpu_max, img) \
	"[{\"id\":\"cpu\",\"machine_spec\":{\"machine_type\":\"n2-standard-8\"}," \
	"\"scaling_spec\":{\"min_node_count\":" cpu_min ",\"max_node_count\":" cpu_max "},\"node_image\":\"" img "\"}," \
	"{\"id\":\"gpu\",\"machine_spec\":{\"machine_type\":\"a3-highgpu-8g\"}," \
	"\"scaling_spec\":{\"min_node_count\":0,\"max_node_count\":2},\"node_image\":\"" img "\"}," \
	"{\"id\":\"login\",\"machine_spec\":{\"machine_type\":\"n2-standard-8\"}," \
	"\"scaling_spec\":{\"min_node_count\":1,\"max_node_count\":1},\"node_image\":\"" img "\"}]"
#define SLURM(x) "{\"orchestrator_spec\":{\"slurm_spec\":{" x "}}}"

static const struct tcase cases[] = {
	{ "config set: whole config map, config path only", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "PriorityWeightAge", "2000", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "config",
	  SLURM("\"config\":{\"PriorityType\":\"priority/multifactor\",\"PriorityWeightAge\":\"2000\"}"),
	  NULL, NULL, NULL },
	{ "config set: new key gets its canonical spelling", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "preempt_type", "preempt/partition_prio", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "config",
	  SLURM("\"config\":{\"PriorityType\":\"priority/multifactor\",\"PriorityWeightAge\":\"1000\","
		"\"PreemptType\":\"preempt/partition_prio\"}"),
	  NULL, NULL, NULL },
	{ "config set: same value in another spelling sends nothing", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "priority_weight_age", "1000", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, NULL, NULL, NULL },
	/* slurmctld reads numbers base 0 (parse_value.c): 0x3e8 is 1000, and
	 * 01000 is octal 512, a change (test_value's table) */
	{ "config set: an equal number (0x3e8 is 1000) sends nothing", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "PriorityWeightAge", "0x3e8", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, NULL, NULL, NULL },
	{ "partition set: an equal time (1:00:00 is 60) sends nothing", "cluster.json",
	  { { MDC_OP_PART_SET, "cpu", "MaxTime", "1:00:00", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, NULL, NULL, NULL },
	/* one field in Slurm: the later of the pair replaces the other, as
	 * scontrol's update does (read_config.c keeps PerNode of both) */
	{ "config set: MaxMemPerNode replaces MaxMemPerCPU", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "MaxMemPerCPU", "100", NULL, NULL, 0, 0, 0 },
	    { MDC_OP_CONFIG_SET, NULL, "MaxMemPerNode", "1000", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "config",
	  SLURM("\"config\":{\"PriorityType\":\"priority/multifactor\",\"PriorityWeightAge\":\"1000\","
		"\"MaxMemPerNode\":\"1000\"}"),
	  NULL, "MaxMemPerNode replaces MaxMemPerCPU=100", NULL },
	{ "partition set: DefMemPerCPU replaces DefMemPerNode", "cluster.json",
	  { { MDC_OP_PART_SET, "cpu", "DefMemPerNode", "1000", NULL, NULL, 0, 0, 0 },
	    { MDC_OP_PART_SET, "cpu", "def_mem_per_cpu", "500", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "partitions",
	  SLURM("\"partitions\":" PARTS_CPU_GPU("{\"MaxTime\":\"60\",\"DefMemPerCPU\":\"500\"}", "")),
	  NULL, "partition 'cpu': DefMemPerCPU replaces DefMemPerNode=1000", NULL },
	/* an alias is stored as its key: Shared=YES beside OverSubscribe=NO
	 * would be read as NO (read_config.c takes OverSubscribe first) */
	{ "partition set: Shared replaces OverSubscribe, stored as OverSubscribe", "cluster.json",
	  { { MDC_OP_PART_SET, "cpu", "OverSubscribe", "NO", NULL, NULL, 0, 0, 0 },
	    { MDC_OP_PART_SET, "cpu", "shared", "YES", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "partitions",
	  SLURM("\"partitions\":" PARTS_CPU_GPU("{\"MaxTime\":\"60\",\"OverSubscribe\":\"YES\"}", "")),
	  NULL, "partition 'cpu': Shared is stored as OverSubscribe", NULL },
	{ "partition create: Shared= is stored as OverSubscribe", "cluster.json",
	  { { MDC_OP_PART_CREATE, "all", NULL, NULL, "cpu", "OverSubscribe=NO;Shared=FORCE:2", 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "partitions", NULL, NULL, "Shared is stored as OverSubscribe", NULL },
	{ "partition unset: Shared unsets OverSubscribe", "cluster.json",
	  { { MDC_OP_PART_SET, "cpu", "OverSubscribe", "NO", NULL, NULL, 0, 0, 0 },
	    { MDC_OP_PART_UNSET, "cpu", "Shared", NULL, NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, NULL, NULL, NULL },
	{ "config unset: the map without the key", "cluster.json",
	  { { MDC_OP_CONFIG_UNSET, NULL, "PriorityWeightAge", NULL, NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "config",
	  SLURM("\"config\":{\"PriorityType\":\"priority/multifactor\"}"), NULL, NULL, NULL },
	{ "config set of a restart key warns", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "SelectTypeParameters", "CR_Core_Memory", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "config",
	  SLURM("\"config\":{\"PriorityType\":\"priority/multifactor\",\"PriorityWeightAge\":\"1000\","
		"\"SelectTypeParameters\":\"CR_Core_Memory\"}"),
	  NULL, NULL, "SelectTypeParameters" },
	/* read_config.c: a reload with another MaxNodeCount stops slurmctld */
	{ "config set MaxNodeCount without a node change is refused", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "MaxNodeCount", "10", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, NULL, NULL,
	  "MaxNodeCount: slurmctld stops when the service reloads slurm.conf", NULL, NULL },
	{ "MaxNodeCount with a node change (a restart) is sent", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "MaxNodeCount", "10", NULL, NULL, 0, 0, 0 },
	    { MDC_OP_POOL_SCALE, "cpu", NULL, NULL, NULL, NULL, 1, 6, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "node_pools," SS "config", NULL, NULL, NULL, "MaxNodeCount" },
	{ "default partition alone: only default_partition_id (C6)", "cluster.json",
	  { { MDC_OP_PART_DEFAULT, "gpu", NULL, NULL, NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "default_partition_id",
	  SLURM("\"default_partition_id\":\"gpu\""), NULL, NULL, NULL },
	{ "partition set: the whole partitions list", "cluster.json",
	  { { MDC_OP_PART_SET, "gpu", "MaxTime", "120", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "partitions",
	  SLURM("\"partitions\":" PARTS_CPU_GPU("{\"MaxTime\":\"60\"}", ",\"config\":{\"MaxTime\":\"120\"}")),
	  NULL, NULL, NULL },
	{ "partition create then default: both paths", "cluster.json",
	  { { MDC_OP_PART_CREATE, "all", NULL, NULL, "cpu,gpu", "PriorityTier=2", 0, 0, 0 },
	    { MDC_OP_PART_DEFAULT, "all", NULL, NULL, NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "partitions," SS "default_partition_id",
	  SLURM("\"partitions\":[{\"id\":\"cpu\",\"node_pool_ids\":[\"cpu\"],\"config\":{\"MaxTime\":\"60\"}},"
		"{\"id\":\"gpu\",\"node_pool_ids\":[\"gpu\"]},"
		"{\"id\":\"all\",\"node_pool_ids\":[\"cpu\",\"gpu\"],\"config\":{\"PriorityTier\":\"2\"}}],"
		"\"default_partition_id\":\"all\""),
	  NULL, NULL, NULL },
	{ "partition delete (not the default)", "cluster.json",
	  { { MDC_OP_PART_DELETE, "gpu", NULL, NULL, NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "partitions",
	  SLURM("\"partitions\":[{\"id\":\"cpu\",\"node_pool_ids\":[\"cpu\"],\"config\":{\"MaxTime\":\"60\"}}]"),
	  NULL, NULL, NULL },
	/* the plan's index of the partitions follows appends and removals */
	{ "partition create, delete, create again, set: the index follows", "cluster.json",
	  { { MDC_OP_PART_CREATE, "all", NULL, NULL, "cpu,gpu", NULL, 0, 0, 0 },
	    { MDC_OP_PART_DELETE, "gpu", NULL, NULL, NULL, NULL, 0, 0, 0 },
	    { MDC_OP_PART_CREATE, "gpu", NULL, NULL, "cpu", NULL, 0, 0, 0 },
	    { MDC_OP_PART_SET, "all", "MaxTime", "5", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "partitions",
	  SLURM("\"partitions\":[{\"id\":\"cpu\",\"node_pool_ids\":[\"cpu\"],\"config\":{\"MaxTime\":\"60\"}},"
		"{\"id\":\"all\",\"node_pool_ids\":[\"cpu\",\"gpu\"],\"config\":{\"MaxTime\":\"5\"}},"
		"{\"id\":\"gpu\",\"node_pool_ids\":[\"cpu\"],\"config\":{}}]"),
	  NULL, NULL, NULL },
	{ "partition create twice: the second is refused", "cluster.json",
	  { { MDC_OP_PART_CREATE, "all", NULL, NULL, "cpu", NULL, 0, 0, 0 },
	    { MDC_OP_PART_CREATE, "all", NULL, NULL, "gpu", NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "partition 'all' already exists", NULL, NULL },
	{ "nodeset set: a new node_sets entry", "cluster.json",
	  { { MDC_OP_NODESET_SET, "gpu", "Weight", "10", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "node_sets",
	  SLURM("\"node_sets\":[{\"node_pool_id\":\"gpu\",\"config\":{\"Weight\":\"10\"}}]"),
	  NULL, NULL, NULL },
	{ "label set: labels only, USER_ONLY", "cluster.json",
	  { { MDC_OP_LABEL_SET, NULL, "env", "prod", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "labels", "{\"labels\":{\"team\":\"ml\",\"env\":\"prod\"}}",
	  NULL, NULL, NULL },
	{ "label set under USER_AND_SERVICE pins every pool", "cluster.json",
	  { { MDC_OP_LABEL_SET, NULL, "env", "prod", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_USER_AND_SERVICE, false, "labels,node_pools",
	  "{\"labels\":{\"team\":\"ml\",\"env\":\"prod\"},\"node_pools\":" POOLS("1", "4", "img-v1") "}",
	  NULL, "pinned", NULL },
	{ "pool scale: the whole node_pools list, images pinned", "cluster.json",
	  { { MDC_OP_POOL_SCALE, "cpu", NULL, NULL, NULL, NULL, 2, 8, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "node_pools", "{\"node_pools\":" POOLS("2", "8", "img-v1") "}",
	  NULL, NULL, "node count" },
	{ "prolog add: the complete list (C5)", "cluster.json",
	  { { MDC_OP_PROLOG_ADD, NULL, NULL, "echo two", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "prolog_bash_scripts",
	  SLURM("\"prolog_bash_scripts\":[\"#!/bin/bash\\necho pro\",\"echo two\"]"), NULL, NULL, NULL },
	{ "prolog remove the last one: named, sent empty", "cluster.json",
	  { { MDC_OP_PROLOG_REMOVE, NULL, NULL, NULL, NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "prolog_bash_scripts",
	  SLURM("\"prolog_bash_scripts\":[]"), NULL, NULL, NULL },
	{ "migrate-config: legacy fields into config, three paths (C9)", "legacy.json",
	  { { MDC_OP_MIGRATE_CONFIG, NULL, NULL, NULL, NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "config," SS "scheduling," SS "accounting",
	  SLURM("\"config\":{\"PriorityType\":\"priority/multifactor\",\"PriorityWeightQOS\":\"500\","
		"\"AccountingStorageEnforce\":\"limits\"}"),
	  NULL, NULL, NULL },
	{ "migrate-config on a config cluster: nothing to send", "cluster.json",
	  { { MDC_OP_MIGRATE_CONFIG, NULL, NULL, NULL, NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, NULL, "nothing to migrate", NULL },
	{ "never-updated cluster, USER_ONLY: warns it cannot pin", "never.json",
	  { { MDC_OP_POOL_SCALE, "cpu", NULL, NULL, NULL, NULL, 1, 6, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "node_pools", NULL, NULL, "empty node_image", NULL },
	/* raw PATCH (mdcctl update FILE --update-mask): the user's paths, as given */
	{ "raw patch: masked paths take the body, an absent one is cleared (C2)", "cluster.json",
	  { { MDC_OP_RAW_PATCH, NULL, NULL, "{\"labels\":{\"owner\":\"hpc\"}}", "labels," SS "config",
	      NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "labels," SS "config", "{\"labels\":{\"owner\":\"hpc\"}}",
	  NULL, NULL, NULL },
	{ "raw patch: an unchanged masked path is still sent", "cluster.json",
	  { { MDC_OP_RAW_PATCH, NULL, NULL, "{\"labels\":{\"team\":\"ml\"}}", "labels", NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "labels", "{\"labels\":{\"team\":\"ml\"}}", NULL, NULL, NULL },
	{ "raw patch: a path outside the mask table is refused", "cluster.json",
	  { { MDC_OP_RAW_PATCH, NULL, NULL, "{}", "network", NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "'network' is not an update mask path", NULL, NULL },
	{ "raw patch: a body that is not a JSON object is refused", "cluster.json",
	  { { MDC_OP_RAW_PATCH, NULL, NULL, "[1]", "labels", NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "expected a JSON object", NULL, NULL },
	{ "raw patch: a refused key in the body's config is refused (C10)", "cluster.json",
	  { { MDC_OP_RAW_PATCH, NULL, NULL,
	      SLURM("\"config\":{\"HealthCheckProgram\":\"/bin/true\"}"), SS "config", NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "HealthCheckProgram", NULL, NULL },
	/* refusals: nothing may be sent */
	{ "unknown key with did-you-mean", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "PriorityWeightAgee", "1", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "did you mean 'PriorityWeightAge'", NULL, NULL },
	/* issue 24 item 7: a key Slurm removed says so; one 22.05 has is not
	 * called removed; item 6: an obsolete key warns */
	{ "removed key MemLimitEnforce says it was removed", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "MemLimitEnforce", "yes", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL,
	  "'MemLimitEnforce' is no longer a Slurm key (removed in 19.05: use JobAcctGatherParams=OverMemoryKill)", NULL, NULL },
	{ "CryptoType is service-managed, not called removed", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "CryptoType", "crypto/munge", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL,
	  "'CryptoType' is service-managed and refused: the job credential plugin is the service's (Slurm reads CryptoType as CredType's older name)", NULL, NULL },
	{ "FastSchedule=1 is sent with a warning that slurmctld ignores it", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "FastSchedule", "1", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, SS "config",
	  SLURM("\"config\":{\"PriorityType\":\"priority/multifactor\",\"PriorityWeightAge\":\"1000\","
		"\"FastSchedule\":\"1\"}"),
	  NULL, "FastSchedule is obsolete: since 20.02 slurmctld ignores it", NULL },
	{ "refused key HealthCheckProgram (C10)", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "HealthCheckProgram", "/bin/true", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "'HealthCheckProgram' is refused", NULL, NULL },
	{ "refused key Prolog (C10)", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "prolog", "/x", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "'Prolog' is refused", NULL, NULL },
	{ "slurmdbd.conf key StorageHost", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "StorageHost", "db", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "slurmdbd.conf", NULL, NULL },
	{ "control character in a value", "cluster.json",
	  { { MDC_OP_CONFIG_SET, NULL, "PriorityWeightAge", "1\nPrologFlags=x", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "control character", NULL, NULL },
	{ "partition-scope Default", "cluster.json",
	  { { MDC_OP_PART_SET, "gpu", "Default", "YES", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "default_partition_id", NULL, NULL },
	{ "removing the default partition (C6)", "cluster.json",
	  { { MDC_OP_PART_DELETE, "cpu", NULL, NULL, NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "is the default partition", NULL, NULL },
	{ "renaming the default partition, even with the default moved (C6)", "cluster.json",
	  { { MDC_OP_PART_CREATE, "batch", NULL, NULL, "cpu", NULL, 0, 0, 0 },
	    { MDC_OP_PART_DEFAULT, "batch", NULL, NULL, NULL, NULL, 0, 0, 0 },
	    { MDC_OP_PART_DELETE, "cpu", NULL, NULL, NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "in a separate update first", NULL, NULL },
	{ "unknown partition lists the known ones", "cluster.json",
	  { { MDC_OP_PART_SET, "gpux", "MaxTime", "1", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "partition 'gpux' does not exist (partitions: cpu, gpu)",
	  NULL, NULL },
	{ "config on a legacy cluster points to migrate-config (C9)", "legacy.json",
	  { { MDC_OP_CONFIG_SET, NULL, "PriorityWeightAge", "5", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "mdcctl migrate-config", NULL, NULL },
	{ "never-updated cluster, USER_AND_SERVICE cannot pin", "never.json",
	  { { MDC_OP_LABEL_SET, NULL, "env", "prod", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_USER_AND_SERVICE, false, "", NULL, "cannot be pinned", NULL, NULL },
	{ "bad partition value type", "cluster.json",
	  { { MDC_OP_PART_SET, "gpu", "MaxTime", "soon", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "MaxTime='soon'", NULL, NULL },
	{ "nodeset on the login pool", "cluster.json",
	  { { MDC_OP_NODESET_SET, "login", "Weight", "1", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "login pool", NULL, NULL },
	{ "prolog remove out of range", "cluster.json",
	  { { MDC_OP_PROLOG_REMOVE, NULL, NULL, NULL, NULL, NULL, 0, 0, 3 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "no prolog script at index 3", NULL, NULL },
	{ "bad label key", "cluster.json",
	  { { MDC_OP_LABEL_SET, NULL, "Env", "prod", NULL, NULL, 0, 0, 0 } },
	  MDC_MODE_UNSPECIFIED, false, "", NULL, "label key 'Env'", NULL, NULL },
};

static json_object *load(const char *name)
{
	char path[1024];
	json_object *o = NULL;
	struct mdc_ctx ctx;

	mdc_ctx_clear(&ctx);
	snprintf(path, sizeof(path), "%s/tests/plan/%s", getenv("top_srcdir") ? getenv("top_srcdir") : ".", name);
	if (mdc_json_parse_file(path, &o, &ctx))
		fail_msg("%s", ctx.msg);
	return o;
}

static void build_intent(const struct top *ops, struct mdc_intent *in)
{
	for (size_t i = 0; i < 4 && (ops[i].kind || ops[i].id || ops[i].key || ops[i].value); i++) {
		struct mdc_op *op = mdc_intent_add(in, ops[i].kind, ops[i].id, ops[i].key, ops[i].value);

		assert_non_null(op);
		if (ops[i].list)
			assert_int_equal(mdc_strv_split(&op->list, ops[i].list, ","), 0);
		if (ops[i].kv)
			assert_int_equal(mdc_strv_split(&op->kv, ops[i].kv, ";"), 0);
		op->min = ops[i].min;
		op->max = ops[i].max;
		op->index = ops[i].index;
	}
}

static bool strv_like(const struct mdc_strv *sv, const char *needle)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strstr(sv->v[i], needle))
			return true;
	return false;
}

static void run_case(const struct tcase *tc)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan_opts opts = { .mode = tc->mode, .allow_recreate = tc->allow_recreate };
	struct mdc_plan plan;
	struct mdc_ctx ctx;
	json_object *cur = load(tc->cluster);
	char *mask;
	int rc;

	print_message("# %s\n", tc->name);
	mdc_ctx_clear(&ctx);
	build_intent(tc->ops, &in);
	rc = mdc_plan_make(cur, &in, &opts, &plan, &ctx);
	if (tc->refusal) {
		assert_int_equal(rc, MDC_ERR_REFUSED);
		assert_null(plan.payload);
		if (!strstr(plan.refusals.v[0], tc->refusal))
			fail_msg("refusal '%s' lacks '%s'", plan.refusals.v[0], tc->refusal);
		assert_string_equal(ctx.msg, plan.refusals.v[0]);
	} else {
		if (rc)
			fail_msg("%s: unexpected error %d: %s", tc->name, rc, ctx.msg);
		mask = mdc_strv_join(&plan.mask, ",");
		assert_string_equal(mask, tc->mask);
		free(mask);
		assert_int_equal(plan.mode, tc->mode == MDC_MODE_UNSPECIFIED ? MDC_MODE_USER_ONLY : tc->mode);
		if (!*tc->mask)
			assert_true(mdc_plan_empty(&plan));
		if (tc->payload) {
			json_object *want = NULL;

			assert_int_equal(mdc_json_parse(tc->payload, strlen(tc->payload), &want, &ctx), 0);
			if (!plan.payload || !mdc_json_equal(plan.payload, want))
				fail_msg("%s: payload\n got  %s\n want %s", tc->name,
					 plan.payload ? mdc_json_str(plan.payload, false) : "(none)",
					 mdc_json_str(want, false));
			json_object_put(want);
		}
		assert_int_equal(plan.refusals.n, 0);
	}
	if (tc->warning && !strv_like(&plan.warnings, tc->warning))
		fail_msg("%s: no warning with '%s'", tc->name, tc->warning);
	if (tc->restart && !strv_like(&plan.restart_keys, tc->restart))
		fail_msg("%s: no restart key '%s'", tc->name, tc->restart);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(cur);
}

static void test_cases(void **state)
{
	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* Several refusals are all listed, in order, and the intent's own
 * refusals come first. */
static void test_refusals_listed(void **state)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan plan;
	struct mdc_ctx ctx;
	json_object *cur = load("cluster.json");

	(void) state;
	mdc_ctx_clear(&ctx);
	mdc_strv_push(&in.refusals, "slurm.conf:3: ClusterName is service-managed");
	mdc_intent_add(&in, MDC_OP_CONFIG_SET, NULL, "HealthCheckInterval", "5")->where = strdup("slurm.conf:7");
	mdc_intent_add(&in, MDC_OP_CONFIG_SET, NULL, "PriorityWeightAge", "7");
	assert_int_equal(mdc_plan_make(cur, &in, NULL, &plan, &ctx), MDC_ERR_REFUSED);
	assert_int_equal(plan.refusals.n, 2);
	assert_string_equal(plan.refusals.v[0], "slurm.conf:3: ClusterName is service-managed");
	assert_true(mdc_startswith(plan.refusals.v[1], "slurm.conf:7: config: 'HealthCheckInterval'"));
	assert_null(plan.payload);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(cur);
}

/* The text and JSON forms and the query string. */
static void test_format(void **state)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan_opts opts = { .mode = MDC_MODE_UNSPECIFIED };
	struct mdc_buf out = MDC_BUF_INIT;
	struct mdc_plan plan;
	struct mdc_ctx ctx;
	json_object *cur = load("cluster.json"), *j, *v;
	char *q;

	(void) state;
	mdc_ctx_clear(&ctx);
	mdc_intent_add(&in, MDC_OP_CONFIG_SET, NULL, "PriorityWeightAge", "2000");
	mdc_intent_add(&in, MDC_OP_CONFIG_SET, NULL, "SchedulerType", "sched/builtin");
	assert_int_equal(mdc_plan_make(cur, &in, &opts, &plan, &ctx), 0);
	assert_int_equal(mdc_plan_format(&plan, &out), 0);
	assert_string_equal(mdc_buf_str(&out),
		"Changes (2):\n"
		"  ~ config PriorityWeightAge: 1000 -> 2000\n"
		"  + config SchedulerType: (absent) -> sched/builtin\n"
		"\n"
		"updateMask: orchestrator_spec.slurm_spec.config\n"
		"updateMode: USER_ONLY\n"
		"node pools recreated: none\n"
		"restart needed: SchedulerType\n"
		"  when: the service reloads slurm.conf (scontrol reconfigure) and does not restart "
		"slurmctld for a setting: it keeps its old value until slurmctld's next restart; "
		"mdcctl drift lists it as pending restart until then\n");
	q = mdc_plan_query(&plan);
	assert_string_equal(q, "updateMask=orchestrator_spec.slurm_spec.config&updateMode=USER_ONLY");
	free(q);
	j = mdc_plan_to_json(&plan);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "update_mask", &v));
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), SS "config");
	assert_true(json_object_object_get_ex(j, "changes", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_string_equal(mdc_json_get_str(json_object_array_get_idx(v, 1), "new", ""), "sched/builtin");
	json_object_put(j);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);

	/* an empty plan says so and sends nothing */
	mdc_buf_reset(&out);
	assert_int_equal(mdc_plan_make(cur, &in, &opts, &plan, &ctx), 0);
	assert_true(mdc_plan_empty(&plan));
	assert_int_equal(mdc_plan_format(&plan, &out), 0);
	assert_string_equal(mdc_buf_str(&out), "No changes: the managed spec already matches.\n");
	mdc_plan_free(&plan);
	mdc_buf_free(&out);
	json_object_put(cur);
}

/* The plan runs again on a fresh read (C14): another writer's key added
 * in the meantime is kept. */
static void test_fresh_state(void **state)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan plan;
	struct mdc_ctx ctx;
	json_object *cur = load("cluster.json"), *cfg;

	(void) state;
	mdc_ctx_clear(&ctx);
	cfg = mdc_json_get_path(cur, "orchestratorSpec.slurmSpec.config");
	json_object_object_add(cfg, "PreemptMode", json_object_new_string("REQUEUE"));
	mdc_intent_add(&in, MDC_OP_CONFIG_SET, NULL, "PriorityWeightAge", "3");
	assert_int_equal(mdc_plan_make(cur, &in, NULL, &plan, &ctx), 0);
	cfg = mdc_json_get_path(plan.payload, SS "config");
	assert_string_equal(mdc_json_get_str(cfg, "PreemptMode", ""), "REQUEUE");
	assert_string_equal(mdc_json_get_str(cfg, "PriorityWeightAge", ""), "3");
	assert_non_null(plan.result);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(cur);
}

/* Moving a pool to another image is refused unless allowed (C11). */
static void test_image_move(void **state)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan_opts opts = { .mode = MDC_MODE_UNSPECIFIED };
	struct mdc_plan plan;
	struct mdc_ctx ctx;
	json_object *cur = load("cluster.json");

	(void) state;
	mdc_ctx_clear(&ctx);
	mdc_intent_add(&in, MDC_OP_POOL_IMAGE, "gpu", NULL, "img-v2");
	assert_int_equal(mdc_plan_make(cur, &in, &opts, &plan, &ctx), MDC_ERR_REFUSED);
	assert_true(strv_like(&plan.refusals, "node pool 'gpu' would move"));
	mdc_plan_free(&plan);
	opts.allow_recreate = true;
	assert_int_equal(mdc_plan_make(cur, &in, &opts, &plan, &ctx), 0);
	assert_int_equal(plan.recreate.n, 1);
	assert_string_equal(plan.recreate.v[0], "gpu");
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(cur);
}

/* The base of a live slurm.conf: service lines stay; comments,
 * partitions, the spec's settings and its node_sets keys go. */
static void test_base(void **state)
{
	static const char live[] =
		"# generated\n"
		"ClusterName=c1\n"
		"SchedulerType=sched/backfill\n"
		"PriorityWeightAge=1000\n"
		"priority_type=priority/multifactor\n"
		"NodeName=cpu-[0-3] CPUs=8 Weight=10 Features=\"a b\" # hw\n"
		"SlurmctldDebug=debug\n"	/* after the spec's keys: by hand */
		"NodeSet=cpu Nodes=cpu-[0-3]\n"
		"PartitionName=cpu Nodes=cpu Default=YES MaxTime=60\n"
		"MinJobAge=60\n";		/* appended by hand */
	struct mdc_ctx ctx;
	json_object *cur = load("cluster.json"), *sets;
	char *base = NULL;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_json_parse("[{\"node_pool_id\":\"cpu\",\"config\":{\"weight\":\"10\"}}]",
					 49, &sets, &ctx), 0);
	json_object_object_add(mdc_json_get_path(cur, "orchestratorSpec.slurmSpec"), "nodeSets", sets);
	assert_int_equal(sc_render_base(live, cur, &base, &ctx), 0);
	assert_string_equal(base,
		"ClusterName=c1\n"
		"SchedulerType=sched/backfill\n"
		"NodeName=cpu-[0-3] CPUs=8 Features=\"a b\"\n"
		"NodeSet=cpu Nodes=cpu-[0-3]\n");
	free(base);
	json_object_put(cur);
}

/* Expert PATCH without a mask (C3): the whole resource, a warning, and
 * a query without updateMask. */
static void test_no_mask(void **state)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan_opts opts = { .mode = MDC_MODE_UNSPECIFIED, .no_mask = true };
	struct mdc_plan plan;
	struct mdc_ctx ctx;
	json_object *cur = load("cluster.json");
	char *q;

	(void) state;
	mdc_ctx_clear(&ctx);
	mdc_intent_add(&in, MDC_OP_LABEL_SET, NULL, "env", "prod");
	assert_int_equal(mdc_plan_make(cur, &in, &opts, &plan, &ctx), 0);
	assert_int_equal(plan.mask.n, 0);
	assert_non_null(plan.payload);
	assert_string_equal(mdc_json_get_str(mdc_json_get_obj(plan.payload, "labels"), "env", ""), "prod");
	assert_non_null(mdc_json_get_path(plan.payload, SS "partitions"));
	assert_non_null(mdc_json_get_arr(plan.payload, "node_pools"));
	assert_true(strv_like(&plan.warnings, "no updateMask"));
	q = mdc_plan_query(&plan);
	assert_string_equal(q, "updateMode=USER_ONLY");
	free(q);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(cur);
}

/* A pool's node count change is listed once as needing a restart. */
static void test_node_count(void **state)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_plan plan;
	struct mdc_ctx ctx;
	json_object *cur = load("cluster.json");

	(void) state;
	mdc_ctx_clear(&ctx);
	mdc_intent_add(&in, MDC_OP_POOL_SCALE, "gpu", NULL, NULL)->max = 4;
	assert_int_equal(mdc_plan_make(cur, &in, NULL, &plan, &ctx), 0);
	assert_int_equal(plan.restart_keys.n, 1);
	assert_string_equal(plan.restart_keys.v[0], "node count (gpu)");
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(cur);
}

/* The service's VM_DELETION events name no pool: a pool that may be
 * recreated and whose nodes (clusterStatus.nodesStatus, camelCase as the
 * service answers) were created since the operation began was recreated;
 * a pool with older nodes, or one that is no candidate (added), was not. */
static void test_op_recreated_real_shape(void **state)
{
	struct mdc_strv cand = MDC_STRV_INIT, done = MDC_STRV_INIT;
	json_object *op = json_tokener_parse(
		"{\"metadata\":{\"genericMetadata\":{\"createTime\":\"2026-12-03T10:00:00Z\"}},"
		"\"response\":{\"clusterEvents\":[{\"eventType\":\"VM_DELETION\","
		"\"eventTime\":\"2026-12-03T10:00:05Z\",\"eventMessage\":\"deleted\"}],"
		"\"clusterStatus\":{\"state\":\"RUNNING\",\"nodesStatus\":["
		"{\"nodePoolId\":\"cpu\",\"createTime\":\"2026-12-03T10:00:04Z\"},"
		"{\"nodePoolId\":\"login\",\"createTime\":\"2026-12-01T08:00:00Z\"},"
		"{\"nodePoolId\":\"added\",\"createTime\":\"2026-12-03T10:00:04Z\"}]}}}");

	(void) state;
	assert_non_null(op);
	assert_int_equal(mdc_strv_push(&cand, "cpu"), 0);
	assert_int_equal(mdc_strv_push(&cand, "login"), 0);
	assert_int_equal(mdc_plan_op_recreated(op, &cand, &done), 0);
	assert_int_equal(done.n, 1);
	assert_string_equal(done.v[0], "cpu");
	/* no candidates: nothing is inferred from node times */
	mdc_strv_free(&done);
	assert_int_equal(mdc_plan_op_recreated(op, NULL, &done), 0);
	assert_int_equal(done.n, 0);
	mdc_strv_free(&done);
	mdc_strv_free(&cand);
	json_object_put(op);
}

/* A created or removed partition is shown on one readable line. */
static void test_format_partition(void **state)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_buf out = MDC_BUF_INIT;
	struct mdc_plan plan;
	struct mdc_ctx ctx;
	struct mdc_op *op;
	json_object *cur = load("cluster.json");

	(void) state;
	mdc_ctx_clear(&ctx);
	op = mdc_intent_add(&in, MDC_OP_PART_CREATE, "all", NULL, NULL);
	mdc_strv_split(&op->list, "cpu,gpu", ",");
	mdc_strv_push(&op->kv, "PriorityTier=2");
	mdc_intent_add(&in, MDC_OP_PART_DELETE, "gpu", NULL, NULL);
	assert_int_equal(mdc_plan_make(cur, &in, NULL, &plan, &ctx), 0);
	assert_int_equal(mdc_plan_format(&plan, &out), 0);
	assert_string_equal(mdc_buf_str(&out),
		"Changes (2):\n"
		"  - partition gpu: node_pool_ids=gpu -> (removed)\n"
		"  + partition all: (absent) -> node_pool_ids=cpu,gpu PriorityTier=2\n"
		"\n"
		"updateMask: orchestrator_spec.slurm_spec.partitions\n"
		"updateMode: USER_ONLY\n"
		"node pools recreated: none\n");
	mdc_buf_free(&out);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	json_object_put(cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_refusals_listed),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_fresh_state),
		cmocka_unit_test(test_image_move),
		cmocka_unit_test(test_base),
		cmocka_unit_test(test_no_mask),
		cmocka_unit_test(test_node_count),
		cmocka_unit_test(test_format_partition),
		cmocka_unit_test(test_op_recreated_real_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
