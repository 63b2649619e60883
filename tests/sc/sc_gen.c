/* sc_gen.c - random cluster specs (see sc_gen.h).  (owner: slurm.conf engine)
 *
 * Values are drawn from lists Slurm 22.05 accepts, with the characters
 * the renderer must escape or quote ('#', '\', blanks) in free-text keys.
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "mdc_json.h"
#include "sc_gen.h"

const char sc_gen_base[] =
	"# service-managed base (generated specs)\n"
	"ClusterName=gen\n"
	"SlurmctldHost=mdc-ctl(127.0.0.1)\n"
	"AuthType=auth/munge\n"
	"ProctrackType=proctrack/linuxproc\n"
	"SlurmctldPort=6817\n"
	"StateSaveLocation=/var/spool/slurmctld\n"
	"NodeName=pa-[0-3] CPUs=8 RealMemory=7000 State=FUTURE\n"
	"NodeSet=pa Nodes=pa-[0-3]\n"
	"NodeName=pb-0 CPUs=4 State=FUTURE\n"
	"NodeName=pb-[1-2] CPUs=4 State=FUTURE # odd pool: two lines\n"
	"NodeSet=pb Nodes=pb-0,pb-[1-2]\n";

struct kv {
	const char *key;
	const char *values[6];
};

/* cluster scope */
static const struct kv cluster_keys[] = {
	{ "PreemptType", { "preempt/none", "preempt/partition_prio", "preempt/qos" } },
	{ "PreemptMode", { "OFF", "CANCEL", "REQUEUE", "SUSPEND,GANG" } },
	{ "PriorityType", { "priority/basic", "priority/multifactor" } },
	{ "PriorityWeightAge", { "0", "1000", "100000" } },
	{ "PriorityWeightQOS", { "1", "20000" } },
	{ "PriorityWeightFairshare", { "10", "0x10" } },
	{ "SchedulerParameters", { "bf_max_job_test=100", "defer,bf_interval=30", "sched#x" } },
	{ "MaxJobCount", { "10000", "50000" } },
	{ "MailDomain", { "example.org", "a\\b", "two words" } },
	{ "AccountingStorageTRES", { "gres/gpu", "" } },
	{ "PriorityDecayHalfLife", { "7-0", "14-0" } },
	{ "MessageTimeout", { "10", "60" } },
};
static const struct kv part_keys[] = {
	{ "MaxTime", { "60", "2-00:00:00", "UNLIMITED", "1:30" } },
	{ "DefaultTime", { "30", "1:00:00" } },
	{ "PriorityTier", { "1", "10", "100" } },
	{ "PriorityJobFactor", { "1", "5" } },
	{ "AllowGroups", { "ALL", "wheel", "a,b" } },
	{ "Hidden", { "YES", "NO" } },
	{ "State", { "UP", "DOWN", "DRAIN", "INACTIVE" } },
	{ "OverSubscribe", { "NO", "EXCLUSIVE", "FORCE:2" } },
};
static const struct kv node_keys[] = {
	{ "Weight", { "1", "10", "1000" } },
	{ "Features", { "gpu", "h100,nvlink", "x#y" } },
	{ "TmpDisk", { "0", "1024" } },
};

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

static size_t nvalues(const struct kv *kv)
{
	size_t n = 0;

	while (n < 6 && kv->values[n])
		n++;
	return n;
}

static json_object *map(unsigned *s, const struct kv *keys, size_t nkeys, unsigned chance)
{
	json_object *m = json_object_new_object();
	size_t i;

	for (i = 0; m && i < nkeys; i++)
		if (rnd(s) % 100 < chance)
			json_object_object_add(m, keys[i].key, json_object_new_string(
				keys[i].values[rnd(s) % nvalues(&keys[i])]));
	return m;
}

json_object *sc_gen_spec(unsigned seed)
{
	static const char *const extra[] = { "c1", "gpu", "x9", "big" };
	unsigned s = seed * 2654435761u + 1, npools, i, j, nparts;
	json_object *spec = json_object_new_object(), *pools, *ss, *parts, *sets;
	char ids[8][16];
	int camel = (int) (seed & 1);

	if (!spec)
		return NULL;
	mdc_json_set(spec, "name", json_object_new_string("projects/p/locations/r/modelDevelopmentClusters/gen"));
	pools = json_object_new_array();
	npools = 1 + rnd(&s) % 4;
	for (i = 0; i < npools; i++) {
		json_object *p = json_object_new_object(), *sc = json_object_new_object();

		/* the first two are the base's pools, the rest generated */
		snprintf(ids[i], sizeof(ids[i]), "%s", i == 0 ? "pa" : i == 1 ? "pb" : extra[i - 2]);
		json_object_object_add(p, "id", json_object_new_string(ids[i]));
		json_object_object_add(sc, camel ? "maxNodeCount" : "max_node_count",
				       json_object_new_int((int) (1 + rnd(&s) % 8)));
		json_object_object_add(p, camel ? "scalingSpec" : "scaling_spec", sc);
		json_object_array_add(pools, p);
	}
	{
		json_object *login = json_object_new_object();

		json_object_object_add(login, "id", json_object_new_string("login"));
		json_object_array_add(pools, login);
	}
	json_object_object_add(spec, camel ? "nodePools" : "node_pools", pools);
	ss = mdc_json_mkpath(spec, camel ? "orchestratorSpec.slurmSpec" : "orchestrator_spec.slurm_spec");
	json_object_object_add(ss, camel ? "loginNodePoolId" : "login_node_pool_id",
			       json_object_new_string("login"));
	{
		json_object *cfg = map(&s, cluster_keys, sizeof(cluster_keys) / sizeof(cluster_keys[0]), 40);
		const char *mode = mdc_json_get_str(cfg, "PreemptMode", NULL);

		/* slurmctld refuses a PreemptMode its PreemptType cannot do */
		const char *type = mdc_json_get_str(cfg, "PreemptType", NULL);

		if (mode)
			json_object_object_add(cfg, "PreemptType", json_object_new_string(
				!strcmp(mode, "OFF") ? "preempt/none" : "preempt/partition_prio"));
		else if (type && strcmp(type, "preempt/none"))
			json_object_object_add(cfg, "PreemptMode", json_object_new_string("REQUEUE"));
		json_object_object_add(ss, "config", cfg);
	}
	parts = json_object_new_array();
	nparts = 1 + rnd(&s) % 4;
	for (i = 0; i < nparts; i++) {
		json_object *p = json_object_new_object(), *pids = json_object_new_array();
		char id[16];

		snprintf(id, sizeof(id), "part%u", i);
		json_object_object_add(p, "id", json_object_new_string(id));
		for (j = 0; j < npools; j++)
			if (rnd(&s) % 2 || j == i % npools)
				json_object_array_add(pids, json_object_new_string(ids[j]));
		json_object_object_add(p, camel ? "nodePoolIds" : "node_pool_ids", pids);
		json_object_object_add(p, "config", map(&s, part_keys,
			sizeof(part_keys) / sizeof(part_keys[0]), 35));
		json_object_array_add(parts, p);
	}
	json_object_object_add(ss, "partitions", parts);
	if (rnd(&s) % 4) {
		char id[16];

		snprintf(id, sizeof(id), "part%u", rnd(&s) % nparts);
		json_object_object_add(ss, camel ? "defaultPartitionId" : "default_partition_id",
				       json_object_new_string(id));
	}
	sets = json_object_new_array();
	for (i = 0; i < npools; i++) {
		json_object *n;

		if (rnd(&s) % 2)
			continue;
		n = json_object_new_object();
		json_object_object_add(n, camel ? "nodePoolId" : "node_pool_id",
				       json_object_new_string(ids[i]));
		json_object_object_add(n, "config", map(&s, node_keys,
			sizeof(node_keys) / sizeof(node_keys[0]), 60));
		json_object_array_add(sets, n);
	}
	json_object_object_add(ss, camel ? "nodeSets" : "node_sets", sets);
	return spec;
}
