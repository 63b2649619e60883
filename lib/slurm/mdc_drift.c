/* mdc_drift.c - the drift engine of `mdcctl drift`: the
 * three-way comparison of DESIGN 7 -- the slurm.conf the managed spec
 * renders, the live slurm.conf file and the live slurmctld -- for the
 * settings the next regeneration of slurm.conf would lose (scontrol
 * update/create/delete, a hand-edited slurm.conf), the keys waiting for a
 * slurmctld restart, and the runtime state of the nodes; and the intent
 * that adopts chosen settings (mdcctl drift --adopt sends it).  The
 * caller reads the live side and prints; nothing here prints.
 * (owner: drift)
 *
 * Policy (doc/mdcctl.1, DRIFT): a setting is what slurm.conf can say --
 * cluster keys, partition keys including State, node keys (Weight,
 * Features, Gres).  Node State, DOWN/DRAIN and their reasons are runtime
 * state: slurmctld keeps them across reloads and restarts, they are shown
 * apart and never adopted.  A key that needs a slurmctld restart and
 * differs only in slurmctld is pending restart: the file is ahead, never
 * adopted backwards.
 *
 * The managed value of a key is the rendered spec's, else Slurm's default
 * as scontrol displays it: the tables below. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_drift.h"
#include "mdc_json.h"
#include "mdc_live.h"
#include "sc_options.h"
#include "sc_release.h"
#include "sc_render.h"
#include "mdc_value.h"

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
 * as `show config` prints it, per release where it changed (24.11 has no
 * priority/basic: its default is multifactor; a "none" plugin shown as
 * "(null)" is mdc_value_equal_shown's); the keys of the rendered spec and
 * of the live file are compared too. */
static const struct { const char *key, *def, *def_24_11; } conf_keys[] = {
	{ "PreemptType", "preempt/none", NULL }, { "PreemptMode", "OFF", NULL },
	{ "PreemptExemptTime", "00:00:00", NULL },
	{ "PriorityType", "priority/basic", "priority/multifactor" },
	{ "SchedulerParameters", "(null)", NULL }, { "MaxJobCount", "10000", NULL },
};

/* Node keys `scontrol update NodeName=` changes that slurm.conf (and so a
 * node pool's node_sets config) can say: slurm.conf name, `show node`
 * name, Slurm's default as shown. */
static const struct { const char *key, *shown, *def; } node_keys[] = {
	{ "Weight", "Weight", "1" },
	{ "Features", "AvailableFeatures", "(null)" },
	{ "Gres", "Gres", "(null)" },
};

/* Node state words that are runtime state worth reporting. */
static const char *const node_state_words[] = {
	"DOWN", "DRAIN", "FAIL", "MAINT", "REBOOT", "NOT_RESPONDING", "*", NULL,
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static struct mdc_drift *drift_add(struct mdc_drifts *d, enum mdc_drift_kind kind, const char *name,
			       const char *key, const char *live, const char *managed)
{
	struct mdc_drift *x;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 8;

		if (!(x = realloc(d->v, cap * sizeof(*x))))
			return NULL;
		d->v = x;
		d->cap = cap;
	}
	x = &d->v[d->n];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->name = dup_or_null(name);
	x->key = strdup(key);
	x->live = dup_or_null(live);
	x->managed = strdup(managed ? managed : "");
	d->n++;
	if (!x->key || !x->managed || (name && !x->name) || (live && !x->live))
		return NULL;
	return x;
}

/* Record both live values of X (either may be NULL). */
static int drift_sides(struct mdc_drift *x, const char *file, const char *ctld)
{
	x->file = dup_or_null(file);
	x->ctld = dup_or_null(ctld);
	return (file && !x->file) || (ctld && !x->ctld) ? MDC_ERR_NOMEM : 0;
}

void mdc_drifts_free(struct mdc_drifts *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].name);
		free(d->v[i].pool);
		free(d->v[i].key);
		free(d->v[i].live);
		free(d->v[i].managed);
		free(d->v[i].file);
		free(d->v[i].ctld);
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

static const char pending_why[] = "it waits for a slurmctld restart: slurm.conf already has it";

static bool needs_restart(const char *key)
{
	const struct sc_option *opt = sc_opt_find(key, SC_SCOPE_CLUSTER);

	return opt && (opt->flags & SC_OPT_RESTART);
}

static bool service_managed(const char *key)
{
	const struct sc_option *opt = sc_opt_find(key, SC_SCOPE_CLUSTER);

	return opt && (opt->flags & (SC_OPT_MANAGED | SC_OPT_REFUSED));
}

static const char *conf_default(const char *key)
{
	/* the release the live slurmctld runs (scontrol --version first) */
	bool later = sc_rel_target() >= sc_rel_parse("24.11");

	for (size_t k = 0; k < NELEM(conf_keys); k++)
		if (mdc_key_eq(key, conf_keys[k].key))
			return later && conf_keys[k].def_24_11 ? conf_keys[k].def_24_11
							       : conf_keys[k].def;
	return NULL;
}

static bool seen_key(const struct mdc_strv *seen, const char *key)
{
	for (size_t i = 0; i < seen->n; i++)
		if (mdc_key_eq(seen->v[i], key))
			return true;
	return false;
}

/* One cluster key, three ways.  R and L are the rendered spec's and the
 * live file's values (NULL: absent), C slurmctld's (NULL: not shown).
 * COMPARE_CTLD: C's display is comparable for this key (restart keys,
 * the table, the spec's keys); for the service's other base lines it is
 * not (show config prints many keys in its own forms). */
static int config_key(struct mdc_drift_view *v, const char *key, const char *r, const char *l,
		      const char *c, bool compare_ctld, bool have_file)
{
	const char *def = conf_default(key), *managed = r ? r : def ? def : "(unset)";
	bool restart = needs_restart(key);
	struct mdc_drift *x;

	if (have_file && !mdc_streq(r, l) && !(r && l && mdc_value_equal_shown(key, r, l))) {
		/* the live file was edited by hand; L's value is the one to keep */
		bool live_too = c && l && mdc_value_equal_shown(key, c, l);

		if (!(x = drift_add(&v->set, MDC_DRIFT_CONFIG, NULL, key, l, managed)) ||
		    drift_sides(x, l ? l : "(absent)", c))
			return MDC_ERR_NOMEM;
		x->src = MDC_DRIFT_SRC_FILE | (live_too ? MDC_DRIFT_SRC_CTLD : 0);
		if (service_managed(key))
			x->why_not = "service-managed: the service writes this line";
		if (restart && c && l && !live_too) {
			if (!(x = drift_add(&v->pend, MDC_DRIFT_CONFIG, NULL, key, l, managed)) ||
			    drift_sides(x, l, c))
				return MDC_ERR_NOMEM;
			x->why_not = pending_why;
		}
		return 0;
	}
	if (!c || !compare_ctld)
		return 0;
	if (!have_file)
		l = r;
	if (!l) {
		/* in neither file: slurmctld against Slurm's default */
		if (!def || mdc_value_equal_shown(key, c, def))
			return 0;
		l = def;
	}
	if (mdc_value_equal_shown(key, c, l))
		return 0;
	if (restart) {
		/* the file is ahead of slurmctld: applied at its next restart */
		if (!(x = drift_add(&v->pend, MDC_DRIFT_CONFIG, NULL, key, l, managed)) ||
		    drift_sides(x, have_file ? l : NULL, c))
			return MDC_ERR_NOMEM;
		x->why_not = pending_why;
		return 0;
	}
	if (!(x = drift_add(&v->set, MDC_DRIFT_CONFIG, NULL, key, c, managed)) ||
	    drift_sides(x, have_file ? l : NULL, c))
		return MDC_ERR_NOMEM;
	x->src = MDC_DRIFT_SRC_CTLD;
	if (service_managed(key))
		x->why_not = "service-managed: the service writes this line";
	return 0;
}

static int compare_config(struct mdc_drift_view *v)
{
	json_object *sconf = mdc_json_get_obj(mdc_json_get_path(v->cluster, "orchestrator_spec.slurm_spec"),
					      "config");
	struct mdc_strv seen = MDC_STRV_INIT;
	bool have_file = v->r && v->l;
	int rc = 0;

	/* the keys of both files (rendered first: its order), then the
	 * table, then the spec's keys when there is no live file */
	for (int pass = 0; pass < 4 && !rc; pass++) {
		size_t n = pass == 0 ? (have_file ? v->r->nglobals : 0) :
			   pass == 1 ? (have_file ? v->l->nglobals : 0) :
			   pass == 2 ? NELEM(conf_keys) : 0;
		struct mdc_strv spec_keys = MDC_STRV_INIT;

		if (pass == 3 && sconf) {
			json_object_object_foreach(sconf, k, val) {
				(void) val;
				if (mdc_strv_push(&spec_keys, k))
					rc = MDC_ERR_NOMEM;
			}
			n = spec_keys.n;
		}
		for (size_t i = 0; i < n && !rc; i++) {
			const char *key = pass == 0 ? v->r->globals[i].key :
					  pass == 1 ? v->l->globals[i].key :
					  pass == 2 ? conf_keys[i].key : spec_keys.v[i];
			const char *r, *l, *c = mdc_kvs_get(&v->conf, key);
			const struct sc_option *opt = sc_opt_find(key, SC_SCOPE_CLUSTER);
			bool cmp;

			if (seen_key(&seen, key) || (opt && (opt->flags & SC_OPT_MULTI)))
				continue;
			if ((rc = mdc_strv_push(&seen, key)))
				break;
			r = have_file ? sc_conf_get(v->r, key) : map_get(sconf, key);
			l = have_file ? sc_conf_get(v->l, key) : NULL;
			cmp = needs_restart(key) || conf_default(key) || map_get(sconf, key);
			rc = config_key(v, opt ? opt->name : key, r, l, c, cmp, have_file);
		}
		mdc_strv_free(&spec_keys);
	}
	mdc_strv_free(&seen);
	return rc;
}

/* The value of KEY on partition ID's line of CONF (Slurm's default DEF
 * when the line does not set it); NULL when CONF has no such line. */
static const char *file_part_value(const struct sc_conf *conf, const char *id, const char *key,
				   const char *def)
{
	const struct sc_record *rec = conf ? sc_conf_record(conf, SC_REC_PARTITION, id) : NULL;
	const char *v;

	if (!rec)
		return NULL;
	v = sc_record_get(rec, key);
	return v ? v : def;
}

/* Partition REC that slurmctld runs and the spec has (SP): its compared
 * keys against the spec's (else Slurm's default), Default, its pools. */
static int compare_part(struct mdc_drift_view *v, const struct mdc_kvs *rec, json_object *sp,
			const char *def_part, const char *cl_preempt)
{
	const char *id = rec->v[0].value;
	json_object *pconf = mdc_json_get_obj(sp, "config");
	struct mdc_drift *x;
	char *lp, *mp;
	int rc = 0;

	for (size_t k = 0; k < NELEM(part_keys); k++) {
		const char *key = part_keys[k].key, *live = mdc_kvs_get(rec, key);
		const char *managed = map_get(pconf, key), *def, *file;
		bool cdiff, fdiff;

		def = part_keys[k].def ? part_keys[k].def : cl_preempt ? cl_preempt : "OFF";
		/* an empty value is Slurm's default: scontrol's
		 * AllowGroups= is shown as ALL */
		if (!managed || !*managed)
			managed = def;
		file = file_part_value(v->l, id, key, def);
		if (file && !*file)
			file = def;
		if (live && !*live)
			live = def;
		cdiff = live && !mdc_value_equal_shown(key, live, managed);
		fdiff = file && !mdc_value_equal_shown(key, file, managed);
		if (!cdiff && !fdiff)
			continue;
		if (!(x = drift_add(&v->set, MDC_DRIFT_KEY, id, key, cdiff ? live : file, managed)) ||
		    drift_sides(x, file, live))
			return MDC_ERR_NOMEM;
		x->src = (cdiff ? MDC_DRIFT_SRC_CTLD : 0) | (fdiff ? MDC_DRIFT_SRC_FILE : 0);
	}
	if (mdc_kvs_get(rec, "Default") &&
	    !mdc_value_equal_shown("Default", mdc_kvs_get(rec, "Default"),
				   strcmp(def_part, id) ? "NO" : "YES")) {
		if (!(x = drift_add(&v->set, MDC_DRIFT_KEY, id, "Default", mdc_kvs_get(rec, "Default"),
				    strcmp(def_part, id) ? "NO" : "YES")))
			return MDC_ERR_NOMEM;
		x->src = MDC_DRIFT_SRC_CTLD;
	}
	if (v->remote)
		return 0;	/* slurmrestd shows no NodeSets */
	lp = live_pools(rec, v->conf_path);
	mp = spec_pools(sp);
	if (!lp || !mp) {
		rc = MDC_ERR_NOMEM;
	} else if (strcmp(lp, mp)) {
		if (!(x = drift_add(&v->set, MDC_DRIFT_KEY, id, "NodeSets", *lp ? lp : "(null)", mp)))
			rc = MDC_ERR_NOMEM;
		else
			x->src = MDC_DRIFT_SRC_CTLD;
	}
	free(lp);
	free(mp);
	return rc;
}

/* Partitions on one side only: the live file's that slurmctld does not
 * run (not reconfigured), and the spec's that slurmctld does not run. */
static int compare_parts_missing(struct mdc_drift_view *v, json_object *sparts)
{
	struct mdc_drift *x;

	for (size_t i = 0; v->l && i < v->l->nrecs; i++) {
		const struct sc_record *fr = &v->l->recs[i];

		if (fr->type != SC_REC_PARTITION || fr->is_default || mdc_recs_find(&v->parts, fr->name) ||
		    spec_part(sparts, fr->name))
			continue;
		if (!(x = drift_add(&v->set, MDC_DRIFT_PART_LIVE_ONLY, fr->name, "PartitionName", "present", "absent")))
			return MDC_ERR_NOMEM;
		x->src = MDC_DRIFT_SRC_FILE;
		x->why_not = "slurmctld does not run it yet: run scontrol reconfigure first";
	}
	for (size_t i = 0; sparts && i < json_object_array_length(sparts); i++) {
		const char *id = mdc_json_get_str(json_object_array_get_idx(sparts, i), "id", "");

		if (mdc_recs_find(&v->parts, id))
			continue;
		if (!(x = drift_add(&v->set, MDC_DRIFT_PART_SPEC_ONLY, id, "PartitionName", "absent", "present")))
			return MDC_ERR_NOMEM;
		x->src = MDC_DRIFT_SRC_CTLD | (v->l && !sc_conf_record(v->l, SC_REC_PARTITION, id) ? MDC_DRIFT_SRC_FILE : 0);
	}
	return 0;
}

static int compare_parts(struct mdc_drift_view *v)
{
	json_object *ss = mdc_json_get_path(v->cluster, "orchestrator_spec.slurm_spec");
	json_object *sparts = mdc_json_get_arr(ss, "partitions");
	const char *def_part = mdc_json_get_str(ss, "default_partition_id", "");
	const char *cl_preempt = map_get(mdc_json_get_obj(ss, "config"), "PreemptMode");
	struct mdc_drift *x;
	int rc;

	for (size_t i = 0; i < v->parts.n; i++) {
		const struct mdc_kvs *rec = &v->parts.v[i];
		const char *id = rec->v[0].value;
		json_object *sp = spec_part(sparts, id);

		if (sp) {
			if ((rc = compare_part(v, rec, sp, def_part, cl_preempt)))
				return rc;
			continue;
		}
		if (!(x = drift_add(&v->set, MDC_DRIFT_PART_LIVE_ONLY, id, "PartitionName", "present", "absent")))
			return MDC_ERR_NOMEM;
		x->src = MDC_DRIFT_SRC_CTLD |
			 (v->l && sc_conf_record(v->l, SC_REC_PARTITION, id) ? MDC_DRIFT_SRC_FILE : 0);
	}
	return compare_parts_missing(v, sparts);
}

/* A node line or NodeSet of the rendered spec, with its node names. */
struct named_nodes {
	const struct sc_record *rec;
	struct mdc_strv nodes;
};

static int expand_recs(const struct sc_conf *conf, enum sc_rec_type type, const char *key,
		       struct named_nodes **out, size_t *n, struct mdc_ctx *ctx)
{
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!conf)
		return 0;
	if (!(*out = calloc(conf->nrecs + 1, sizeof(**out))))
		return mdc_nomem(ctx);
	for (size_t i = 0; i < conf->nrecs && !rc; i++) {
		const struct sc_record *rec = &conf->recs[i];
		const char *list = key ? sc_record_get(rec, key) : rec->name;

		if (rec->type != type || rec->is_default || !list || !*list)
			continue;
		(*out)[*n].rec = rec;
		rc = mdc_live_hostnames(list, &(*out)[(*n)++].nodes, ctx);
	}
	return rc;
}

static void named_free(struct named_nodes *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mdc_strv_free(&v[i].nodes);
	free(v);
}

static bool is_runtime_state(const char *state)
{
	for (size_t i = 0; node_state_words[i]; i++)
		if (strstr(state, node_state_words[i]))
			return true;
	return false;
}

/* Nodes: their settings against the rendered spec's NodeName lines, and
 * their runtime state apart. */
static int compare_nodes(struct mdc_drift_view *v, struct mdc_ctx *ctx)
{
	struct named_nodes *lines = NULL, *sets = NULL;
	size_t nlines = 0, nsets = 0;
	struct mdc_drift *x;
	int rc;

	if ((rc = expand_recs(v->r, SC_REC_NODE, NULL, &lines, &nlines, ctx)) ||
	    (rc = expand_recs(v->r, SC_REC_NODESET, "Nodes", &sets, &nsets, ctx)))
		goto out;
	for (size_t i = 0; i < v->nodes.n; i++) {
		const struct mdc_kvs *rec = &v->nodes.v[i];
		const char *node = rec->v[0].value, *state = mdc_kvs_get(rec, "State");
		const struct sc_record *line = NULL;
		const char *pool = NULL;

		if (state && is_runtime_state(state)) {
			const char *reason = mdc_kvs_get(rec, "Reason");

			if (!(x = drift_add(&v->state, MDC_DRIFT_STATE, node, "State", state, reason ? reason : "")))
				goto nomem;
			x->src = MDC_DRIFT_SRC_CTLD;
		}
		for (size_t k = 0; k < nlines && !line; k++)
			if (mdc_strv_has(&lines[k].nodes, node))
				line = lines[k].rec;
		for (size_t k = 0; k < nsets && !pool; k++)
			if (mdc_strv_has(&sets[k].nodes, node))
				pool = sets[k].rec->name;
		if (!line)
			continue;	/* not a node of the spec's slurm.conf */
		for (size_t k = 0; k < NELEM(node_keys); k++) {
			const char *live = mdc_kvs_get(rec, node_keys[k].shown);
			const char *managed = sc_record_get(line, node_keys[k].key);

			if (!managed)
				managed = node_keys[k].def;
			if (!live || mdc_value_equal_shown(node_keys[k].key, live, managed))
				continue;
			if (!(x = drift_add(&v->set, MDC_DRIFT_NODE, node, node_keys[k].key, live, managed)) ||
			    (pool && !(x->pool = strdup(pool))) || drift_sides(x, NULL, live))
				goto nomem;
			x->src = MDC_DRIFT_SRC_CTLD;
			if (!pool)
				x->why_not = "the node is in no node pool (no NodeSet line holds it)";
		}
	}
	/* a pool's setting: adoptable when every node of the pool has it */
	for (size_t i = 0; i < v->set.n; i++) {
		struct mdc_drift *d = &v->set.v[i];
		const struct mdc_strv *members = NULL;

		if (d->kind != MDC_DRIFT_NODE || d->why_not)
			continue;
		for (size_t k = 0; k < nsets && !members; k++)
			if (!strcmp(sets[k].rec->name, d->pool))
				members = &sets[k].nodes;
		for (size_t m = 0; members && m < members->n && !d->why_not; m++) {
			bool same = false;

			for (size_t j = 0; j < v->set.n && !same; j++)
				same = v->set.v[j].kind == MDC_DRIFT_NODE && !strcmp(v->set.v[j].name, members->v[m]) &&
				       !strcmp(v->set.v[j].key, d->key) &&
				       mdc_streq(v->set.v[j].live, d->live);
			if (!same)
				d->why_not = "the nodes of its pool differ: set the whole pool with mdcctl nodeset set";
		}
	}
	goto out;
nomem:
	rc = mdc_nomem(ctx);
out:
	named_free(lines, nlines);
	named_free(sets, nsets);
	return rc;
}

/* ---- rendering and loading ------------------------------------------- */

static int load_conf(const char *text, const char *name, struct sc_conf **out, struct mdc_ctx *ctx)
{
	int rc;

	if (!(*out = sc_conf_new()))
		return mdc_nomem(ctx);
	(*out)->flags = SC_PARSE_LENIENT;
	if ((rc = sc_conf_load_string(*out, text, strlen(text), name, ctx))) {
		sc_conf_free(*out);
		*out = NULL;
	}
	return rc;
}

int mdc_drift_load_files(struct mdc_drift_view *v, struct mdc_ctx *ctx)
{
	struct mdc_buf out = MDC_BUF_INIT;
	char *live = NULL, *base = NULL;
	int rc;

	if (!(rc = mdc_read_regular(v->conf_path, SC_FILE_MAX_BYTES, 0, &live, NULL, ctx)) &&
	    !(rc = sc_render_base(live, v->cluster, &base, ctx)) &&
	    !(rc = sc_render(v->cluster, base, v->conf_path, &out, ctx)) &&
	    !(rc = load_conf(live, v->conf_path, &v->l, ctx)))
		rc = load_conf(mdc_buf_str(&out), v->conf_path, &v->r, ctx);
	free(live);
	free(base);
	mdc_buf_free(&out);
	return rc;
}

int mdc_drift_read_live(struct mdc_drift_view *v, struct mdc_ctx *ctx)
{
	int rc;

	if (!(rc = mdc_live_partitions(&v->parts, ctx)) && !(rc = mdc_live_config(&v->conf, ctx)))
		rc = mdc_live_nodes(NULL, &v->nodes, ctx);
	return rc;
}

int mdc_drift_compare(struct mdc_drift_view *v, struct mdc_ctx *ctx)
{
	if (compare_config(v) || compare_parts(v))
		return mdc_nomem(ctx);
	return compare_nodes(v, ctx);
}

void mdc_drift_view_free(struct mdc_drift_view *v)
{
	json_object_put(v->cluster);
	sc_conf_free(v->r);
	sc_conf_free(v->l);
	mdc_kvs_free(&v->conf);
	mdc_recs_free(&v->parts);
	mdc_recs_free(&v->nodes);
	mdc_drifts_free(&v->set);
	mdc_drifts_free(&v->pend);
	mdc_drifts_free(&v->state);
	memset(v, 0, sizeof(*v));
}

/* ---- --key selection and the intent ----------------------------------- */

/* Does selector SEL name drift X?  "KEY" (cluster scope),
 * "PartitionName=P[:KEY]", "NodeSet=POOL[:KEY]", "NodeName=N[:KEY]". */
static bool sel_match(const char *sel, const struct mdc_drift *x)
{
	static const struct { const char *scope; enum mdc_drift_kind kinds[3]; } scopes[] = {
		{ "PartitionName", { MDC_DRIFT_KEY, MDC_DRIFT_PART_LIVE_ONLY, MDC_DRIFT_PART_SPEC_ONLY } },
		{ "NodeSet", { MDC_DRIFT_NODE, MDC_DRIFT_NODE, MDC_DRIFT_NODE } },
		{ "NodeName", { MDC_DRIFT_NODE, MDC_DRIFT_NODE, MDC_DRIFT_NODE } },
	};
	const char *eq = strchr(sel, '='), *colon;
	char scope[32], name[256];

	if (!eq)
		return x->kind == MDC_DRIFT_CONFIG && mdc_key_eq(sel, x->key);
	if ((size_t) (eq - sel) >= sizeof(scope))
		return false;
	memcpy(scope, sel, (size_t) (eq - sel));
	scope[eq - sel] = '\0';
	colon = strchr(eq + 1, ':');
	snprintf(name, sizeof(name), "%.*s", colon ? (int) (colon - eq - 1) : (int) strlen(eq + 1), eq + 1);
	for (size_t i = 0; i < NELEM(scopes); i++) {
		const char *who;

		if (strcasecmp(scope, scopes[i].scope))
			continue;
		if (x->kind != scopes[i].kinds[0] && x->kind != scopes[i].kinds[1] &&
		    x->kind != scopes[i].kinds[2])
			return false;
		who = i == 1 ? x->pool : x->name;
		if (!who || strcmp(who, name))
			return false;
		return !colon || mdc_key_eq(colon + 1, x->key);
	}
	return false;
}

bool mdc_drift_sel_valid(const char *sel)
{
	const char *eq = strchr(sel, '=');

	if (!*sel || mdc_has_ctrl(sel))
		return false;
	if (!eq)
		return !strchr(sel, ':');
	return eq[1] && eq[1] != ':' && (!strncasecmp(sel, "PartitionName=", 14) ||
					 !strncasecmp(sel, "NodeSet=", 8) ||
					 !strncasecmp(sel, "NodeName=", 9));
}

/* Mark the drifts to adopt: every adoptable one, or those SELS name
 * (each selector must name at least one adoptable drift). */
int mdc_drift_select(struct mdc_drifts *d, const struct mdc_drifts *pend, const struct mdc_strv *sels,
			 struct mdc_ctx *ctx)
{
	for (size_t i = 0; i < d->n; i++)
		d->v[i].selected = !sels->n && !d->v[i].why_not;
	for (size_t s = 0; s < sels->n; s++) {
		const struct mdc_drift *blocked = NULL;
		bool any = false;

		for (size_t i = 0; i < d->n; i++) {
			if (!sel_match(sels->v[s], &d->v[i]))
				continue;
			if (d->v[i].why_not)
				blocked = &d->v[i];
			else
				any = d->v[i].selected = true;
		}
		for (size_t i = 0; i < pend->n && !any && !blocked; i++)
			if (sel_match(sels->v[s], &pend->v[i]))
				blocked = &pend->v[i];
		if (any)
			continue;
		if (blocked)
			return mdc_fail(ctx, MDC_ERR_REFUSED, "drift --adopt: '%s' cannot be adopted: %s; "
					"nothing was sent", sels->v[s], blocked->why_not);
		return mdc_fail(ctx, MDC_ERR_USAGE, "drift --adopt: --key '%s' names no drift (see "
				"mdcctl drift); nothing was sent", sels->v[s]);
	}
	return 0;
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
		return mdc_nomem(ctx);
	}
	if (!*pools)
		rc = mdc_fail(ctx, MDC_ERR_INVAL,
			      "partition '%s' holds no whole node pool: recreate it with mdc-scontrol create PartitionName=%s Nodes=POOL",
			      rec->v[0].value, rec->v[0].value);
	else
		rc = mdc_strv_split(&op->list, pools, ",");
	for (size_t k = 0; !rc && k < NELEM(part_keys); k++) {
		const char *live = mdc_kvs_get(rec, part_keys[k].key);

		if (part_keys[k].def && live && !mdc_value_equal_shown(part_keys[k].key, live, part_keys[k].def))
			rc = mdc_strv_pushf(&op->kv, "%s=%s", part_keys[k].key, live);
	}
	free(pools);
	return rc;
}

int mdc_drift_intent(const struct mdc_drift_view *v, struct mdc_intent *in, struct mdc_ctx *ctx)
{
	struct mdc_strv done = MDC_STRV_INIT;	/* pool/key pairs already adopted */
	int rc = 0;

	for (size_t i = 0; i < v->set.n && !rc; i++) {
		const struct mdc_drift *x = &v->set.v[i];
		struct mdc_op *op = NULL;
		char pk[512];

		if (!x->selected)
			continue;
		switch (x->kind) {
		case MDC_DRIFT_PART_LIVE_ONLY:
			rc = adopt_create(in, mdc_recs_find(&v->parts, x->name), v->conf_path, ctx);
			continue;
		case MDC_DRIFT_PART_SPEC_ONLY:
			op = mdc_intent_add(in, MDC_OP_PART_DELETE, x->name, NULL, NULL);
			break;
		case MDC_DRIFT_CONFIG:
			op = x->live ? mdc_intent_add(in, MDC_OP_CONFIG_SET, NULL, x->key, x->live) :
				       mdc_intent_add(in, MDC_OP_CONFIG_UNSET, NULL, x->key, NULL);
			break;
		case MDC_DRIFT_NODE:
			snprintf(pk, sizeof(pk), "%s\n%s", x->pool, x->key);
			if (mdc_strv_has(&done, pk))
				continue;
			if (mdc_strv_push(&done, pk))
				break;
			op = mdc_intent_add(in, MDC_OP_NODESET_SET, x->pool, x->key, x->live);
			break;
		case MDC_DRIFT_KEY:
			if (!strcmp(x->key, "NodeSets")) {
				if ((op = mdc_intent_add(in, MDC_OP_PART_POOLS, x->name, NULL, NULL)))
					rc = mdc_strv_split(&op->list, x->live, ",");
			} else if (!strcmp(x->key, "Default")) {
				if (strcasecmp(x->live, "YES"))
					continue;	/* the new default's own row moves it */
				op = mdc_intent_add(in, MDC_OP_PART_DEFAULT, x->name, NULL, NULL);
			} else {
				op = mdc_intent_add(in, MDC_OP_PART_SET, x->name, x->key, x->live);
			}
			break;
		case MDC_DRIFT_STATE:
			continue;
		}
		if (!op && !rc)
			rc = MDC_ERR_NOMEM;
	}
	mdc_strv_free(&done);
	if (rc == MDC_ERR_NOMEM)
		mdc_nomem(ctx);
	return rc;
}

/* ---- the report's words ----------------------------------------------- */

const char *mdc_drift_scope(const struct mdc_drift *x, char *buf, size_t n)
{
	if (!x->name)
		return "config";
	snprintf(buf, n, "%s %s", x->kind == MDC_DRIFT_NODE || x->kind == MDC_DRIFT_STATE ? "node" : "partition",
		 x->name);
	return buf;
}

const char *mdc_drift_source(const struct mdc_drift *x)
{
	switch (x->src) {
	case MDC_DRIFT_SRC_CTLD: return "slurmctld";
	case MDC_DRIFT_SRC_FILE: return "slurm.conf";
	default: return "slurm.conf+slurmctld";
	}
}

json_object *mdc_drifts_json(const struct mdc_drifts *d, bool only_selected)
{
	json_object *arr = json_object_new_array();
	char scope[300];

	for (size_t i = 0; arr && i < d->n; i++) {
		const struct mdc_drift *x = &d->v[i];
		json_object *e;

		if (only_selected && !x->selected)
			continue;
		if (!(e = json_object_new_object()))
			break;
		json_object_object_add(e, "scope", json_object_new_string(mdc_drift_scope(x, scope, sizeof(scope))));
		json_object_object_add(e, "key", json_object_new_string(x->key));
		if (x->kind == MDC_DRIFT_STATE) {
			json_object_object_add(e, "state", json_object_new_string(x->live));
			json_object_object_add(e, "reason", json_object_new_string(x->managed));
		} else {
			json_object_object_add(e, "live", x->live ? json_object_new_string(x->live) : NULL);
			json_object_object_add(e, "managed", json_object_new_string(x->managed));
			json_object_object_add(e, "file", x->file ? json_object_new_string(x->file) : NULL);
			json_object_object_add(e, "slurmctld", x->ctld ? json_object_new_string(x->ctld) : NULL);
		}
		if (x->src && x->kind != MDC_DRIFT_STATE)
			json_object_object_add(e, "source", json_object_new_string(mdc_drift_source(x)));
		if (x->pool)
			json_object_object_add(e, "node_pool", json_object_new_string(x->pool));
		if (x->kind != MDC_DRIFT_STATE)
			json_object_object_add(e, "adoptable", json_object_new_boolean(!x->why_not));
		if (x->why_not)
			json_object_object_add(e, "why_not", json_object_new_string(x->why_not));
		json_object_array_add(arr, e);
	}
	return arr;
}
