/* cmd_drift.c - `mdcctl drift [--adopt]`: what the live slurmctld runs
 * that the managed spec does not say, i.e. each runtime change (scontrol
 * update/create/delete, a hand-edited slurm.conf) the next regeneration
 * of slurm.conf would lose; --adopt persists them through the API.
 * (owner: scontrol)
 *
 * The managed value of a key is the spec's (partition or cluster config,
 * default_partition_id, node_pool_ids), else Slurm's default as scontrol
 * displays it: the tables below. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_client.h"
#include "mdc_json.h"
#include "mdc_live.h"
#include "mdc_value.h"
#include "mdcctl.h"

/* Partition keys compared, with Slurm's default as `show partition`
 * prints it.  NULL default: the cluster's PreemptMode. */
static const struct { const char *key, *def; } part_keys[] = {
	{ "MaxTime", "UNLIMITED" }, { "DefaultTime", "NONE" },
	{ "MaxNodes", "UNLIMITED" }, { "MinNodes", "0" },
	{ "PriorityJobFactor", "1" }, { "PriorityTier", "1" },
	{ "PreemptMode", NULL }, { "OverSubscribe", "NO" },
	{ "GraceTime", "0" }, { "Hidden", "NO" }, { "RootOnly", "NO" },
	{ "ExclusiveUser", "NO" }, { "LLN", "NO" }, { "State", "UP" },
	{ "AllowGroups", "ALL" }, { "AllowAccounts", "ALL" }, { "AllowQos", "ALL" },
	{ "MaxCPUsPerNode", "UNLIMITED" }, { "DisableRootJobs", "NO" },
	{ "ReqResv", "NO" }, { "OverTimeLimit", "NONE" }, { "QoS", "N/A" },
	{ "DefMemPerNode", "UNLIMITED" }, { "MaxMemPerNode", "UNLIMITED" },
};

/* Cluster keys admins tune at run time (DESIGN 2), with Slurm's default
 * as `show config` prints it; every key of the spec's config is
 * compared too. */
static const struct { const char *key, *def; } conf_keys[] = {
	{ "PreemptType", "preempt/none" }, { "PreemptMode", "OFF" },
	{ "PreemptExemptTime", "00:00:00" }, { "PriorityType", "priority/basic" },
	{ "SchedulerParameters", "(null)" }, { "MaxJobCount", "10000" },
};

enum drift_kind { D_KEY, D_PART_LIVE_ONLY, D_PART_SPEC_ONLY, D_CONFIG };

struct drift {
	enum drift_kind kind;
	char *part;		/* partition id, NULL for config */
	char *key;
	char *live;
	char *managed;
};

struct drifts {
	struct drift *v;
	size_t n, cap;
};

static int drift_add(struct drifts *d, enum drift_kind kind, const char *part, const char *key,
		     const char *live, const char *managed)
{
	struct drift *x;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 8;

		if (!(x = realloc(d->v, cap * sizeof(*x))))
			return MDC_ERR_NOMEM;
		d->v = x;
		d->cap = cap;
	}
	x = &d->v[d->n++];
	x->kind = kind;
	x->part = part ? strdup(part) : NULL;
	x->key = strdup(key);
	x->live = strdup(live ? live : "");
	x->managed = strdup(managed ? managed : "");
	return (!x->key || !x->live || !x->managed || (part && !x->part)) ? MDC_ERR_NOMEM : 0;
}

static void drifts_free(struct drifts *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].part);
		free(d->v[i].key);
		free(d->v[i].live);
		free(d->v[i].managed);
	}
	free(d->v);
}

/* The value of KEY in the config map CONF (keys matched the Slurm way). */
static const char *map_get(json_object *conf, const char *key)
{
	if (!conf || !json_object_is_type(conf, json_type_object))
		return NULL;
	json_object_object_foreach(conf, k, v) {
		if (mdc_key_eq(k, key))
			return json_object_get_string(v);
	}
	return NULL;
}

static json_object *spec_part(json_object *parts, const char *id)
{
	for (size_t i = 0; parts && i < json_object_array_length(parts); i++) {
		json_object *p = json_object_array_get_idx(parts, i);

		if (!strcmp(mdc_json_get_str(p, "id", ""), id))
			return p;
	}
	return NULL;
}

/* Sorted comma list of a partition's pools in the spec. */
static char *spec_pools(json_object *p)
{
	json_object *ids = mdc_json_get_arr(p, "node_pool_ids");
	struct mdc_strv sv = MDC_STRV_INIT;
	char *s;

	for (size_t i = 0; ids && i < json_object_array_length(ids); i++)
		mdc_strv_push(&sv, json_object_get_string(json_object_array_get_idx(ids, i)));
	mdc_strv_sort(&sv);
	s = mdc_strv_join(&sv, ",");
	mdc_strv_free(&sv);
	return s;
}

/* The live partition's pools, sorted: its NodeSets, else the pools
 * whose NodeSet lines in CONF_PATH cover its Nodes (a partition created
 * at run time with node names); "" when neither. */
static char *live_pools(const struct mdc_kvs *rec, const char *conf_path)
{
	const char *ns = mdc_kvs_get(rec, "NodeSets"), *nodes = mdc_kvs_get(rec, "Nodes");
	struct mdc_strv sv = MDC_STRV_INIT;
	struct mdc_ctx ctx;
	char *s;

	mdc_ctx_clear(&ctx);
	if (ns && strcmp(ns, "(null)"))
		mdc_strv_split(&sv, ns, ",");
	else if (nodes && strcmp(nodes, "(null)") && conf_path &&
		 mdc_live_pools_covering(conf_path, nodes, &sv, NULL, &ctx))
		mdc_strv_free(&sv);
	mdc_strv_sort(&sv);
	s = mdc_strv_join(&sv, ",");
	mdc_strv_free(&sv);
	return s;
}

static int compare(json_object *cluster, const struct mdc_recs *parts,
		   const struct mdc_kvs *conf, const char *conf_path, struct drifts *d)
{
	json_object *ss = mdc_json_get_path(cluster, "orchestrator_spec.slurm_spec");
	json_object *sparts = mdc_json_get_arr(ss, "partitions");
	json_object *sconf = mdc_json_get_obj(ss, "config");
	const char *def_part = mdc_json_get_str(ss, "default_partition_id", "");
	const char *cl_preempt = map_get(sconf, "PreemptMode");
	int rc = 0;

	for (size_t i = 0; i < parts->n && !rc; i++) {
		const struct mdc_kvs *rec = &parts->v[i];
		const char *id = rec->v[0].value;
		json_object *sp = spec_part(sparts, id), *pconf;
		char *lp, *mp;

		if (!sp) {
			rc = drift_add(d, D_PART_LIVE_ONLY, id, "PartitionName", "present", "absent");
			continue;
		}
		pconf = mdc_json_get_obj(sp, "config");
		for (size_t k = 0; k < sizeof(part_keys) / sizeof(part_keys[0]) && !rc; k++) {
			const char *key = part_keys[k].key, *live = mdc_kvs_get(rec, key);
			const char *managed = map_get(pconf, key);

			if (!managed)
				managed = part_keys[k].def ? part_keys[k].def :
					  cl_preempt ? cl_preempt : "OFF";
			if (live && !mdc_value_equal_shown(key, live, managed))
				rc = drift_add(d, D_KEY, id, key, live, managed);
		}
		if (!rc && mdc_kvs_get(rec, "Default") &&
		    !mdc_value_equal_shown("Default", mdc_kvs_get(rec, "Default"),
				       strcmp(def_part, id) ? "NO" : "YES"))
			rc = drift_add(d, D_KEY, id, "Default", mdc_kvs_get(rec, "Default"),
				       strcmp(def_part, id) ? "NO" : "YES");
		lp = live_pools(rec, conf_path);
		mp = spec_pools(sp);
		if (!lp || !mp)
			rc = MDC_ERR_NOMEM;
		else if (!rc && strcmp(lp, mp))
			rc = drift_add(d, D_KEY, id, "NodeSets", *lp ? lp : "(null)", mp);
		free(lp);
		free(mp);
	}
	for (size_t i = 0; sparts && i < json_object_array_length(sparts) && !rc; i++) {
		const char *id = mdc_json_get_str(json_object_array_get_idx(sparts, i), "id", "");

		if (!mdc_recs_find(parts, id))
			rc = drift_add(d, D_PART_SPEC_ONLY, id, "PartitionName", "absent", "present");
	}
	/* cluster scope: the table, then every key the spec sets */
	for (size_t k = 0; k < sizeof(conf_keys) / sizeof(conf_keys[0]) && !rc; k++) {
		const char *key = conf_keys[k].key, *live = mdc_kvs_get(conf, key);
		const char *managed = map_get(sconf, key);

		if (!managed)
			managed = conf_keys[k].def;
		if (live && !mdc_value_equal_shown(key, live, managed))
			rc = drift_add(d, D_CONFIG, NULL, key, live, managed);
	}
	if (sconf) {
		json_object_object_foreach(sconf, key, val) {
			const char *live = mdc_kvs_get(conf, key);
			bool in_table = false;

			for (size_t k = 0; k < sizeof(conf_keys) / sizeof(conf_keys[0]); k++)
				in_table |= mdc_key_eq(key, conf_keys[k].key);
			if (rc || in_table || !live)
				continue;
			if (!mdc_value_equal_shown(key, live, json_object_get_string(val)))
				rc = drift_add(d, D_CONFIG, NULL, key, live, json_object_get_string(val));
		}
	}
	return rc;
}

/* A partition only the live slurmctld has, as a PART_CREATE: its pools
 * and every compared key that is not Slurm's default. */
static int adopt_create(struct mdc_intent *in, const struct mdc_kvs *rec, const char *conf_path,
			struct mdc_ctx *ctx)
{
	struct mdc_op *op = mdc_intent_add(in, MDC_OP_PART_CREATE, rec->v[0].value, NULL, NULL);
	char *pools = live_pools(rec, conf_path);
	int rc = 0;

	if (!op || !pools) {
		free(pools);
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	}
	if (!*pools)
		rc = mdc_fail(ctx, MDC_ERR_INVAL,
			      "partition '%s' holds no whole node pool: recreate it with mdc-scontrol create PartitionName=%s Nodes=POOL",
			      rec->v[0].value, rec->v[0].value);
	else
		rc = mdc_strv_split(&op->list, pools, ",");
	for (size_t k = 0; !rc && k < sizeof(part_keys) / sizeof(part_keys[0]); k++) {
		const char *live = mdc_kvs_get(rec, part_keys[k].key);

		if (part_keys[k].def && live && !mdc_value_equal_shown(part_keys[k].key, live, part_keys[k].def))
			rc = mdc_strv_pushf(&op->kv, "%s=%s", part_keys[k].key, live);
	}
	free(pools);
	return rc;
}

static int adopt_intent(const struct drifts *d, const struct mdc_recs *parts,
			const char *conf_path, struct mdc_intent *in, struct mdc_ctx *ctx)
{
	int rc = 0;

	for (size_t i = 0; i < d->n && !rc; i++) {
		const struct drift *x = &d->v[i];
		struct mdc_op *op = NULL;

		switch (x->kind) {
		case D_PART_LIVE_ONLY:
			rc = adopt_create(in, mdc_recs_find(parts, x->part), conf_path, ctx);
			continue;
		case D_PART_SPEC_ONLY:
			op = mdc_intent_add(in, MDC_OP_PART_DELETE, x->part, NULL, NULL);
			break;
		case D_CONFIG:
			op = mdc_intent_add(in, MDC_OP_CONFIG_SET, NULL, x->key, x->live);
			break;
		case D_KEY:
			if (!strcmp(x->key, "NodeSets")) {
				if ((op = mdc_intent_add(in, MDC_OP_PART_POOLS, x->part, NULL, NULL)))
					rc = mdc_strv_split(&op->list, x->live, ",");
			} else if (!strcmp(x->key, "Default")) {
				if (strcasecmp(x->live, "YES"))
					continue;	/* the new default's own row moves it */
				op = mdc_intent_add(in, MDC_OP_PART_DEFAULT, x->part, NULL, NULL);
			} else {
				op = mdc_intent_add(in, MDC_OP_PART_SET, x->part, x->key, x->live);
			}
			break;
		}
		if (!op)
			rc = MDC_ERR_NOMEM;
	}
	if (rc == MDC_ERR_NOMEM)
		mdc_fail(ctx, rc, "out of memory");
	return rc;
}

static const char *scope_of(const struct drift *x, char *buf, size_t n)
{
	if (!x->part)
		return "config";
	snprintf(buf, n, "partition %s", x->part);
	return buf;
}

static int print_drifts(struct mdcctl *g, const struct drifts *d, struct mdc_ctx *ctx)
{
	char scope[300];

	if (g->format == MDCCTL_JSON) {
		json_object *out = json_object_new_object(), *arr = json_object_new_array();

		for (size_t i = 0; out && arr && i < d->n; i++) {
			json_object *e = json_object_new_object();

			if (!e)
				break;
			json_object_object_add(e, "scope",
					       json_object_new_string(scope_of(&d->v[i], scope, sizeof(scope))));
			json_object_object_add(e, "key", json_object_new_string(d->v[i].key));
			json_object_object_add(e, "live", json_object_new_string(d->v[i].live));
			json_object_object_add(e, "managed", json_object_new_string(d->v[i].managed));
			json_object_array_add(arr, e);
		}
		if (!out || !arr) {
			json_object_put(out);
			json_object_put(arr);
			return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
		}
		json_object_object_add(out, "drift", arr);
		json_object_object_add(out, "count", json_object_new_int((int) d->n));
		mdcctl_print_json(out);
		json_object_put(out);
		return 0;
	}
	if (!d->n) {
		printf("no drift: the live slurmctld matches the managed spec\n");
		return 0;
	}
	printf("%-24s %-20s %-20s %s\n", "SCOPE", "KEY", "LIVE", "MANAGED");
	for (size_t i = 0; i < d->n; i++)
		printf("%-24s %-20s %-20s %s\n", scope_of(&d->v[i], scope, sizeof(scope)),
		       d->v[i].key, d->v[i].live, d->v[i].managed);
	printf("%zu runtime change%s the next regeneration would lose (mdcctl drift --adopt persists %s)\n",
	       d->n, d->n == 1 ? "" : "s", d->n == 1 ? "it" : "them");
	return 0;
}

int cmd_drift(struct mdcctl *g, int argc, char **argv)
{
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_recs parts = MDC_RECS_INIT;
	struct mdc_kvs conf = MDC_KVS_INIT;
	struct mdc_intent in = MDC_INTENT_INIT;
	struct drifts d = { NULL, 0, 0 };
	json_object *cluster = NULL;
	struct mdc_ctx ctx;
	bool adopt = false;
	int rc;

	memset(&s, 0, sizeof(s));
	mdc_ctx_clear(&ctx);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--adopt"))
			adopt = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: mdcctl drift [--adopt]\n"
			       "List the runtime changes of the live slurmctld (partitions, preemption and\n"
			       "priority settings, the spec's config keys) that the next regeneration of\n"
			       "slurm.conf would lose; --adopt persists them through the API.\n");
			return 0;
		} else {
			return mdcctl_usage(g, "drift: unknown argument '%s' (use --adopt)", argv[i]);
		}
	}
	if ((rc = mdcctl_connect(g, true, &s, &c, &ctx)) ||
	    (rc = mdc_cluster_get(c, s.cluster, &cluster, &ctx)) ||
	    (rc = mdc_live_partitions(&parts, &ctx)) || (rc = mdc_live_config(&conf, &ctx)))
		goto out;
	if ((rc = compare(cluster, &parts, &conf, s.slurm_conf, &d))) {
		rc = mdc_fail(&ctx, rc, "out of memory");
		goto out;
	}
	if (!adopt) {
		rc = print_drifts(g, &d, &ctx);
		goto out;
	}
	if (!d.n) {
		if (g->format == MDCCTL_JSON)
			rc = print_drifts(g, &d, &ctx);
		else
			printf("no drift: nothing to adopt\n");
		goto out;
	}
	if (g->format == MDCCTL_TEXT && (rc = print_drifts(g, &d, &ctx)))
		goto out;
	if ((rc = adopt_intent(&d, &parts, s.slurm_conf, &in, &ctx)))
		goto out;
	/* mdcctl_update prints the plan and the outcome; it returns a status */
	rc = mdcctl_update(g, &in, "drift");
	goto done;
out:
	if (rc)
		rc = mdcctl_fail(g, &ctx);
done:
	json_object_put(cluster);
	mdc_client_free(c);
	mdc_settings_free(&s);
	mdc_recs_free(&parts);
	mdc_kvs_free(&conf);
	mdc_intent_free(&in);
	drifts_free(&d);
	return rc;
}
