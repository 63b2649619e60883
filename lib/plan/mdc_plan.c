/* mdc_plan.c - see mdc_plan.h.
 *
 * The engine works on two snake_case copies of the cluster: CUR (as read)
 * and WANT (CUR with the intent's ops applied).  The mask is then simply
 * the set of allowed paths (C1) whose value differs, and the payload
 * carries WANT's complete value at each of them (C5, C7).  Checks that
 * can name the user's input (keys, ids, indexes) run while the ops are
 * applied; the contract as a whole is checked by predicting the result
 * with mdc_rules_apply_patch, the function the emulator enforces.
 */
/* deliberate unit: one plan engine in mdc_plan.c, _apply.c, _diff.c calling each other (_int.h) */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_hash.h"
#include "mdc_json.h"
#include "mdc_plan_int.h"
#include "mdc_value.h"
#include "sc_options.h"
#include "sc_release.h"

const struct plan_path plan_paths[PP_MAX] = {
	[PP_LABELS] = { "labels", NULL, "labels", json_type_object },
	[PP_NODE_POOLS] = { "node_pools", NULL, "node_pools", json_type_array },
	[PP_PARTITIONS] = { SLURM_SPEC ".partitions", SLURM_SPEC, "partitions", json_type_array },
	[PP_DEFAULT] = { SLURM_SPEC ".default_partition_id", SLURM_SPEC, "default_partition_id", json_type_string },
	[PP_LOGIN] = { SLURM_SPEC ".login_node_pool_id", SLURM_SPEC, "login_node_pool_id", json_type_string },
	[PP_PROLOG] = { SLURM_SPEC ".prolog_bash_scripts", SLURM_SPEC, "prolog_bash_scripts", json_type_array },
	[PP_EPILOG] = { SLURM_SPEC ".epilog_bash_scripts", SLURM_SPEC, "epilog_bash_scripts", json_type_array },
	[PP_CONFIG] = { SLURM_SPEC ".config", SLURM_SPEC, "config", json_type_object },
	[PP_SCHEDULING] = { SLURM_SPEC ".scheduling", SLURM_SPEC, "scheduling", json_type_object },
	[PP_ACCOUNTING] = { SLURM_SPEC ".accounting", SLURM_SPEC, "accounting", json_type_object },
	[PP_NODE_SETS] = { SLURM_SPEC ".node_sets", SLURM_SPEC, "node_sets", json_type_array },
	/* updatable in the published resource (mdcctl update --display-name) */
	[PP_DISPLAY_NAME] = { "display_name", NULL, "display_name", json_type_string },
};

/* ---- small helpers ---------------------------------------------------- */

static void st_push(struct plan_st *st, struct mdc_strv *sv, const char *where,
		    const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (mdc_strv_pushf(sv, "%s%s%s", where ? where : "", where ? ": " : "", msg))
		st->nomem = true;
}

void plan_refuse(struct plan_st *st, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st_push(st, &st->plan->refusals, where, fmt, ap);
	va_end(ap);
}

void plan_warn(struct plan_st *st, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st_push(st, &st->plan->warnings, where, fmt, ap);
	va_end(ap);
}

json_object *plan_slurm_spec(json_object *cl)
{
	return mdc_json_mkpath(cl, SLURM_SPEC);
}

/* The container FIELD of PARENT, created empty (of TYPE) when absent or of
 * another type; borrowed.  NULL only on ENOMEM. */
json_object *plan_get_or_make(json_object *parent, const char *field, enum json_type type)
{
	json_object *v = mdc_json_get(parent, field);

	if (v && json_object_is_type(v, type))
		return v;
	v = type == json_type_array ? json_object_new_array() : json_object_new_object();
	if (!v || mdc_json_set(parent, field, v))
		return NULL;
	return v;
}

bool plan_is_empty(const json_object *v)
{
	if (!v || json_object_is_type(v, json_type_null))
		return true;
	switch (json_object_get_type(v)) {
	case json_type_object: return json_object_object_length(v) == 0;
	case json_type_array: return json_object_array_length(v) == 0;
	case json_type_string: return json_object_get_string_len(v) == 0;
	default: return false;
	}
}

/* Absent, null and empty are the same value to the API. */
bool plan_same_value(const json_object *a, const json_object *b)
{
	if (plan_is_empty(a) || plan_is_empty(b))
		return plan_is_empty(a) && plan_is_empty(b);
	return mdc_json_equal(a, b);
}

json_object *plan_path_value(json_object *cl, enum plan_path_id p)
{
	return mdc_json_get_path(cl, plan_paths[p].path);
}

/* The key of MAP equal to KEY under Slurm's rule (C7), or NULL. */
const char *plan_map_key(json_object *map, const char *key)
{
	json_object_object_foreach(map, k, v) {
		(void) v;
		if (mdc_key_eq(k, key))
			return k;
	}
	return NULL;
}

/* Index of the element of ARR whose IDFIELD is ID, or -1. */
int plan_find_by_id(const json_object *arr, const char *idfield, const char *id)
{
	size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++)
		if (mdc_streq(mdc_json_get_str(json_object_array_get_idx(arr, i), idfield, NULL), id))
			return (int) i;
	return -1;
}

/* Index the elements of ARR not yet in H (the first of equal ids wins,
 * as in find_by_id); *N counts those done.  0 or MDC_ERR_NOMEM. */
int plan_index_list(struct mdc_hash *h, size_t *n, const json_object *arr, const char *idfield)
{
	size_t len = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (; *n < len; (*n)++) {
		const char *id = mdc_json_get_str(json_object_array_get_idx(arr, *n), idfield, NULL);

		if (id && mdc_hash_put(h, id, *n, false))
			return MDC_ERR_NOMEM;
	}
	return 0;
}

/* ---- node images (C4, C11) ------------------------------------------- */

static void pin_images(struct plan_st *st, bool *send)
{
	struct mdc_plan *p = st->plan;
	json_object *pools = mdc_json_get_arr(st->want, "node_pools");
	bool service = p->mode == MDC_MODE_USER_AND_SERVICE;
	size_t n = pools ? json_object_array_length(pools) : 0;

	if (st->opts->allow_recreate || st->opts->no_mask)
		return;
	/* USER_AND_SERVICE resolves every unpinned pool's image, even for a
	 * label edit: send the pools, each pinned to its running image. */
	if (service && n && !send[PP_NODE_POOLS] && !st->raw) {
		send[PP_NODE_POOLS] = true;
		plan_warn(st, NULL, "update mode USER_AND_SERVICE: node_pools is sent too, each pool pinned "
		     "to its running image, so no node is recreated");
	}
	if (!send[PP_NODE_POOLS])
		return;
	for (size_t i = 0; i < n; i++) {
		json_object *pool = json_object_array_get_idx(pools, i);
		const char *id = mdc_json_get_str(pool, "id", "?");

		if (*mdc_json_get_str(pool, "node_image", "") || mdc_strv_has(&st->unpinned, id))
			continue;
		/* WANT is a copy of CUR, so a pool with a running image is
		 * already pinned; only a never-updated one has none (C11) */
		if (service)
			plan_refuse(st, NULL, "node pool '%s' reports an empty node_image (cluster never updated), so "
			       "it cannot be pinned and USER_AND_SERVICE would move it to the current default "
			       "image, recreating its nodes: use --update-mode USER_ONLY, pin it "
			       "(mdcctl nodepool image %s --pin IMAGE) or pass --allow-recreate", id, id);
		else
			plan_warn(st, NULL, "node pool '%s' reports an empty node_image (cluster never updated): it "
			     "cannot be pinned; USER_ONLY keeps it on its running image, but a later "
			     "USER_AND_SERVICE update may move it (pin it with mdcctl nodepool image %s --pin IMAGE)",
			     id, id);
	}
}

/* ---- plan assembly ---------------------------------------------------- */

static int build_payload(struct plan_st *st, const bool *send)
{
	struct mdc_plan *p = st->plan;

	if (st->opts->no_mask) {
		/* C3: the whole resource; the service diffs it (expert only) */
		p->payload = mdc_json_copy(st->want);
		return p->payload ? 0 : MDC_ERR_NOMEM;
	}
	if (!(p->payload = json_object_new_object()))
		return MDC_ERR_NOMEM;
	for (int i = 0; i < PP_MAX; i++) {
		json_object *v, *parent;

		if (!send[i])
			continue;
		if (!mdc_rules_mask_path(plan_paths[i].path)) {
			plan_refuse(st, NULL, "internal: mask path '%s' is not allowed by the API", plan_paths[i].path);
			continue;
		}
		if (mdc_strv_push(&p->mask, plan_paths[i].path))
			return MDC_ERR_NOMEM;
		/* absent from WANT = cleared (C2): named in the mask, not sent */
		if (!(v = plan_path_value(st->want, (enum plan_path_id) i)))
			continue;
		parent = plan_paths[i].parent ? mdc_json_mkpath(p->payload, plan_paths[i].parent) : p->payload;
		if (!parent || mdc_json_set(parent, plan_paths[i].field, mdc_json_copy(v)))
			return MDC_ERR_NOMEM;
	}
	return 0;
}

static void restart_keys(struct plan_st *st)
{
	struct mdc_plan *p = st->plan;

	for (size_t i = 0; i < p->nchanges; i++) {
		const struct mdc_change *c = &p->changes[i];
		const struct sc_option *opt;

		if (!strcmp(c->scope, "config") && c->key &&
		    (opt = sc_opt_find(c->key, SC_SCOPE_CLUSTER)) && (opt->flags & SC_OPT_RESTART) &&
		    !sc_rel_reconfig_restarts(sc_rel_target()) &&
		    !mdc_strv_has(&p->restart_keys, opt->name) && mdc_strv_push(&p->restart_keys, opt->name))
			st->nomem = true;
		if (mdc_startswith(c->scope, "node_pool ") && c->key && !strcmp(c->key, "scaling_spec") &&
		    mdc_strv_pushf(&p->restart_keys, "node count (%s)", c->scope + 10))
			st->nomem = true;
	}
}

/* slurmctld/read_config.c: a reload (scontrol reconfigure, what the
 * service does for a setting) with another MaxNodeCount stops slurmctld
 * ("MaxNodeCount has changed ... during reconfig, slurmctld must be
 * restarted"); only a node change in the same update makes the service
 * restart it instead.  Found on the lab: `config set MaxNodeCount=10`. */
static void maxnodecount_check(struct plan_st *st)
{
	const struct mdc_strv *keys = &st->plan->restart_keys;

	if (!mdc_strv_has(keys, "MaxNodeCount"))
		return;
	for (size_t i = 0; i < keys->n; i++)
		if (mdc_startswith(keys->v[i], "node count"))
			return;
	plan_refuse(st, NULL, "MaxNodeCount: slurmctld stops when the service reloads slurm.conf with "
		    "another MaxNodeCount (\"MaxNodeCount has changed during reconfig, slurmctld must be "
		    "restarted\"), and it restarts slurmctld only for a node change: change MaxNodeCount "
		    "in the same update as the node pools (mdcctl update FILE --update-mask "
		    "node_pools,orchestrator_spec.slurm_spec.config), or leave it");
}

/* Predict the result with the service's own rules (the emulator runs the
 * same function), so contract violations are refused before sending. */
static int predict(struct plan_st *st)
{
	struct mdc_plan *p = st->plan;
	struct mdc_patch_result res = { 0 };
	struct mdc_images images = { NULL };
	struct mdc_ctx rctx;
	int rc;

	mdc_ctx_clear(&rctx);
	rc = mdc_rules_apply_patch(st->cur, p->payload, st->opts->no_mask ? NULL : &p->mask,
				   p->mode, &images, &res, &rctx);
	if (rc == MDC_ERR_NOMEM)
		return rc;
	if (rc) {
		plan_refuse(st, NULL, "the service would reject this update: %s", rctx.msg);
		return 0;
	}
	p->result = res.cluster;
	res.cluster = NULL;
	for (size_t i = 0; i < res.recreated.n; i++) {
		const char *id = res.recreated.v[i];
		json_object *cp = mdc_json_get(st->cur, "node_pools");
		int ci = plan_find_by_id(cp, "id", id);
		const char *was = ci < 0 ? "" : mdc_json_get_str(json_object_array_get_idx(cp, (size_t) ci),
								  "node_image", "");

		if (mdc_strv_push(&p->recreate, id))
			st->nomem = true;
		/* a read cannot tell a pinned pool from one that reports its
		 * running image, nor which image is the default now: say what
		 * may happen and why, not what will */
		if (st->opts->allow_recreate && !*was)
			plan_warn(st, NULL, "node pool '%s' may move to the current default image: it reports no "
			     "image (cluster never updated) and the service resolves unpinned pools; its "
			     "nodes would then be recreated (a login node loses its SSH sessions and boot "
			     "disk)", id);
		else if (st->opts->allow_recreate)
			plan_warn(st, NULL, "node pool '%s' may move from image '%s' to the current default image: "
			     "the service does so unless the pool is pinned, which a read cannot tell; its "
			     "nodes would then be recreated (a login node loses its SSH sessions and boot "
			     "disk)", id, was);
		else if (mdc_strv_has(&st->pinned, id))
			/* the user asked for that image: the way out is consent */
			plan_refuse(st, NULL, "node pool '%s' would move to another image, recreating its nodes "
			       "(a login node loses its SSH sessions and boot disk): pass --allow-recreate "
			       "to do it", id);
		else
			plan_refuse(st, NULL, "node pool '%s' would move to another image, recreating its nodes: "
			       "pin it (mdcctl nodepool image %s --pin IMAGE), use --update-mode USER_ONLY, "
			       "or pass --allow-recreate", id, id);
	}
	if (res.nodes_changed) {
		bool listed = false;

		for (size_t i = 0; i < p->restart_keys.n; i++)
			listed |= mdc_startswith(p->restart_keys.v[i], "node count");
		if (!listed && mdc_strv_push(&p->restart_keys, "node count"))
			st->nomem = true;
	}
	mdc_patch_result_free(&res);
	return 0;
}

static void legacy_check(struct plan_st *st)
{
	json_object *ss = plan_slurm_spec(st->want);

	if (!st->config_touched || st->force[PP_CONFIG])
		return;
	if (!plan_is_empty(mdc_json_get(ss, "scheduling")) || !plan_is_empty(mdc_json_get(ss, "accounting")))
		plan_refuse(st, NULL, "this cluster still uses the legacy 'scheduling'/'accounting' fields and a "
		       "request that sets 'config' too is rejected by the service: run 'mdcctl migrate-config' first");
}

/* The service's own key checks on every map that is sent. */
static void check_maps(struct plan_st *st, const bool *send)
{
	json_object *ss = plan_slurm_spec(st->want);
	struct mdc_ctx kctx;
	char where[300];

	if (send[PP_CONFIG] && mdc_json_get_obj(ss, "config")) {
		mdc_ctx_clear(&kctx);
		if (mdc_rules_check_config_map(mdc_json_get_obj(ss, "config"), SC_SCOPE_CLUSTER, "config", &kctx))
			plan_refuse(st, NULL, "%s", kctx.msg);
	}
	for (int l = 0; l < 2; l++) {
		enum plan_path_id pp = l ? PP_NODE_SETS : PP_PARTITIONS;
		json_object *arr = mdc_json_get_arr(ss, plan_paths[pp].field);
		size_t n = arr ? json_object_array_length(arr) : 0;

		for (size_t i = 0; send[pp] && i < n; i++) {
			json_object *e = json_object_array_get_idx(arr, i);
			json_object *cfg = mdc_json_get_obj(e, "config");

			if (!cfg)
				continue;
			snprintf(where, sizeof(where), l ? "node set '%s'" : "partition '%s'",
				 mdc_json_get_str(e, l ? "node_pool_id" : "id", "?"));
			mdc_ctx_clear(&kctx);
			if (mdc_rules_check_config_map(cfg, l ? SC_SCOPE_NODE : SC_SCOPE_PARTITION, where, &kctx))
				plan_refuse(st, NULL, "%s", kctx.msg);
		}
	}
}

/* Partitions the plan removes (deleted, or renamed: a rename is a removal
 * plus a creation) must not take queued or running jobs with them in
 * silence: slurmctld ends them (NODE_FAIL) at the next regeneration. */
static void removed_partitions_check(struct plan_st *st)
{
	json_object *cur = mdc_json_get_arr(plan_slurm_spec(st->cur), "partitions");
	json_object *want = mdc_json_get_arr(plan_slurm_spec(st->want), "partitions");
	size_t n = cur ? json_object_array_length(cur) : 0;

	if (!st->opts->partition_jobs)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *id = mdc_json_get_str(json_object_array_get_idx(cur, i), "id", NULL);
		struct mdc_strv jobs = MDC_STRV_INIT;
		struct mdc_ctx jctx;
		char *list;
		bool kept = false;

		kept = id && plan_find_by_id(want, "id", id) >= 0;
		if (!id || kept)
			continue;
		mdc_ctx_clear(&jctx);
		if (st->opts->partition_jobs(id, &jobs, st->opts->partition_jobs_arg, &jctx)) {
			plan_warn(st, NULL, "partition '%s' is removed, and whether jobs are still in it is "
			     "unknown (%s): check with squeue -p %s", id, jctx.msg, id);
		} else if (jobs.n && !(list = mdc_strv_join(&jobs, ", "))) {
			st->nomem = true;
		} else if (jobs.n) {
			if (st->opts->force)
				plan_warn(st, NULL, "partition '%s' is removed with its jobs %s (--force): "
				     "slurmctld ends them at the next regeneration", id, list);
			else
				plan_refuse(st, NULL, "partition '%s' still holds jobs %s: removing or renaming it "
				       "ends them; let them finish (scontrol update PartitionName=%s "
				       "State=DRAIN stops new ones), move them (scontrol update JobId=ID "
				       "Partition=OTHER), or give --force", id, list, id);
			free(list);
		}
		mdc_strv_free(&jobs);
	}
}

/* Nodes the plan takes away (a pool scaled down or removed) must not end
 * running jobs in silence either: slurmctld restarts with the new node
 * set and ends the jobs of the nodes it lost. */
static void shrunk_pools_check(struct plan_st *st)
{
	json_object *cur = mdc_json_get_arr(st->cur, "node_pools");
	json_object *want = mdc_json_get_arr(st->want, "node_pools");
	const char *login = mdc_json_get_str(plan_slurm_spec(st->cur), "login_node_pool_id", "");
	size_t n = cur ? json_object_array_length(cur) : 0;

	for (size_t i = 0; st->opts->pool_jobs && i < n; i++) {
		json_object *p = json_object_array_get_idx(cur, i), *w;
		const char *id = mdc_json_get_str(p, "id", NULL);
		int wi = plan_find_by_id(want, "id", id);
		int64_t from = plan_count(mdc_json_get(p, "scaling_spec"), "max_node_count", 1), keep = -1;
		struct mdc_strv jobs = MDC_STRV_INIT;
		struct mdc_ctx jctx;
		char *list;

		if (!id || !strcmp(id, login))
			continue;
		w = wi >= 0 ? json_object_array_get_idx(want, (size_t) wi) : NULL;
		/* max 0 keeps no node, whatever slurm.conf's renderer keeps
		 * (POOL-0, a base's own): the service removes them (24.5) */
		if (w && (keep = plan_count(mdc_json_get(w, "scaling_spec"), "max_node_count", 1)) < 0)
			keep = 0;
		if (w && keep >= from)
			continue;
		mdc_ctx_clear(&jctx);
		if (st->opts->pool_jobs(id, (long) keep, &jobs, st->opts->pool_jobs_arg, &jctx)) {
			plan_warn(st, NULL, "node pool '%s' loses nodes, and whether jobs run on them is "
				  "unknown (%s): check with squeue -w before the change", id, jctx.msg);
		} else if (jobs.n && !(list = mdc_strv_join(&jobs, ", "))) {
			st->nomem = true;
		} else if (jobs.n) {
			if (st->opts->force)
				plan_warn(st, NULL, "node pool '%s' loses the nodes of jobs %s (--force): "
					  "slurmctld ends them when it restarts with the new nodes", id, list);
			else
				plan_refuse(st, NULL, "node pool '%s' %s the nodes of jobs %s: slurmctld ends "
					    "them when it restarts with the new nodes; let them finish "
					    "(scontrol update NodeName=NODE State=DRAIN stops new ones), "
					    "or give --force", id, w ? "scaled down loses" : "removed takes",
					    list);
			free(list);
		}
		mdc_strv_free(&jobs);
	}
}

/* A partition's QOS, AllowQos, DenyQos value (KEY, any spelling) in CFG. */
static const char *part_qos_value(json_object *cfg, const char *key)
{
	if (!cfg)
		return NULL;
	json_object_object_foreach(cfg, k, v)
		if (mdc_key_eq(k, key))
			return json_object_get_string(v);
	return NULL;
}

/* Partition QOS names slurmctld must know (slurmctld/read_config.c): an
 * unknown QOS= is fatal at its next start when AccountingStorageEnforce
 * holds qos, and an unknown AllowQos/DenyQos name is ignored. */
static void qos_check(struct plan_st *st)
{
	static const char *const keys[] = { "QOS", "AllowQos", "DenyQos" };
	json_object *cur = mdc_json_get_arr(plan_slurm_spec(st->cur), "partitions");
	json_object *want = mdc_json_get_arr(plan_slurm_spec(st->want), "partitions");
	struct mdc_strv known = MDC_STRV_INIT, names = MDC_STRV_INIT;
	bool asked = false, have = false, enforced = false;

	for (size_t i = 0; st->opts->qos_list && want && i < json_object_array_length(want); i++) {
		json_object *p = json_object_array_get_idx(want, i);
		const char *id = mdc_json_get_str(p, "id", "?");
		int ci = plan_find_by_id(cur, "id", id);
		json_object *was = ci >= 0 ? json_object_array_get_idx(cur, (size_t) ci) : NULL;

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			const char *v = part_qos_value(mdc_json_get_obj(p, "config"), keys[k]);
			const char *old = was ? part_qos_value(mdc_json_get_obj(was, "config"), keys[k]) : NULL;
			struct mdc_ctx qctx;

			if (!v || !*v || !strcasecmp(v, "ALL") || (old && !strcmp(old, v)))
				continue;
			if (!asked) {
				asked = true;
				mdc_ctx_clear(&qctx);
				if (st->opts->qos_list(&known, &have, &enforced, st->opts->qos_list_arg, &qctx))
					plan_warn(st, NULL, "partition '%s': whether slurmctld knows %s=%s could "
						  "not be checked (%s)", id, keys[k], v, qctx.msg);
			}
			if (!have)
				continue;
			mdc_strv_free(&names);
			if (mdc_strv_split(&names, v, ",")) {
				st->nomem = true;
				break;
			}
			for (size_t n = 0; n < names.n; n++) {
				bool ok = false;

				for (size_t q = 0; q < known.n; q++)
					ok |= !strcasecmp(known.v[q], names.v[n]);
				if (ok)
					continue;
				if (k == 0 && enforced)
					plan_refuse(st, NULL, "partition '%s': QOS=%s is not a QOS slurmctld knows, "
						    "and AccountingStorageEnforce holds qos: slurmctld stops at "
						    "its next start (\"Partition %s has an invalid qos\"); create "
						    "it first (sacctmgr add qos %s) or name one of the QOS it knows",
						    id, v, id, names.v[n]);
				else
					plan_warn(st, NULL, "partition '%s': %s=%s: '%s' is not a QOS slurmctld "
						  "knows: it %s; create it first (sacctmgr add qos %s)", id,
						  keys[k], v, names.v[n], k == 0 ? "has no effect" :
						  "is ignored (\"Ignoring invalid Allow/DenyQOS value\")",
						  names.v[n]);
			}
		}
	}
	mdc_strv_free(&names);
	mdc_strv_free(&known);
}

static void plan_init(struct mdc_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
}

int mdc_plan_make(const json_object *current, const struct mdc_intent *in,
		  const struct mdc_plan_opts *opts, struct mdc_plan *plan,
		  struct mdc_ctx *ctx)
{
	static const struct mdc_plan_opts defaults = { .mode = MDC_MODE_USER_ONLY };
	struct plan_st st = { .plan = plan, .opts = opts ? opts : &defaults };
	bool send[PP_MAX] = { false };
	int rc = 0;

	plan_init(plan);
	plan->mode = st.opts->mode == MDC_MODE_UNSPECIFIED ? MDC_MODE_USER_ONLY : st.opts->mode;
	if (!current || !json_object_is_type(current, json_type_object))
		return mdc_fail(ctx, MDC_ERR_INVAL, "no current cluster to plan against");
	st.cur = mdc_json_normalize(current, MDC_CASE_SNAKE);
	st.want = mdc_json_normalize(current, MDC_CASE_SNAKE);
	if (!st.cur || !st.want || !plan_slurm_spec(st.want)) {
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; in && i < in->refusals.n; i++)
		plan_refuse(&st, NULL, "%s", in->refusals.v[i]);
	for (size_t i = 0; in && i < in->n; i++)
		if ((rc = plan_apply_op(&st, &in->ops[i])))
			goto out;
	legacy_check(&st);
	removed_partitions_check(&st);
	shrunk_pools_check(&st);
	qos_check(&st);

	for (int i = 0; i < PP_MAX; i++)
		send[i] = st.force[i] ||
			  !plan_same_value(plan_path_value(st.cur, (enum plan_path_id) i),
				      plan_path_value(st.want, (enum plan_path_id) i));
	if (!plan->refusals.n)
		check_maps(&st, send);
	pin_images(&st, send);
	for (int i = 0; i < PP_MAX; i++)
		if (send[i] || st.opts->no_mask)
			plan_diff_path(&st, (enum plan_path_id) i);
	restart_keys(&st);
	if ((rc = build_payload(&st, send)))
		goto out;
	if (st.opts->no_mask && plan->nchanges)
		plan_warn(&st, NULL, "no updateMask: the service diffs the whole payload against the cluster "
		     "and clears anything it omits");
	if (!plan->refusals.n && (plan->mask.n || (st.opts->no_mask && plan->nchanges)))
		if ((rc = predict(&st)))
			goto out;
	maxnodecount_check(&st);
	if (!plan->mask.n && !(st.opts->no_mask && plan->nchanges)) {
		json_object_put(plan->payload);
		plan->payload = NULL;
	}
	if (st.nomem)
		rc = MDC_ERR_NOMEM;
out:
	if (rc == MDC_ERR_NOMEM)
		mdc_fail(ctx, rc, "out of memory while planning");
	else if (!rc && plan->refusals.n) {
		/* nothing that could be sent survives a refusal */
		json_object_put(plan->payload);
		plan->payload = NULL;
		rc = mdc_fail(ctx, MDC_ERR_REFUSED, "%s", plan->refusals.v[0]);
	}
	json_object_put(st.cur);
	json_object_put(st.want);
	mdc_strv_free(&st.unpinned);
	mdc_strv_free(&st.pinned);
	for (size_t i = 0; i < sizeof(st.ix) / sizeof(st.ix[0]); i++)
		mdc_hash_free(&st.ix[i].h);
	return rc;
}

bool mdc_plan_empty(const struct mdc_plan *plan)
{
	return !plan->payload && !plan->refusals.n;
}

char *mdc_plan_query(const struct mdc_plan *plan)
{
	struct mdc_buf b = MDC_BUF_INIT;
	char *mask = plan->mask.n ? mdc_strv_join(&plan->mask, ",") : NULL;
	int rc = 0;

	if (plan->mask.n && !mask)
		return NULL;
	if (mask)
		rc = mdc_buf_addf(&b, "updateMask=%s&", mask);
	if (!rc)
		rc = mdc_buf_addf(&b, "updateMode=%s", mdc_mode_name(plan->mode));
	free(mask);
	if (rc) {
		mdc_buf_free(&b);
		return NULL;
	}
	return mdc_buf_release(&b);
}

static int fmt_list(struct mdc_buf *out, const char *title, const struct mdc_strv *sv,
		    const char *none)
{
	int rc = 0;

	if (!sv->n)
		return none ? mdc_buf_addf(out, "%s: %s\n", title, none) : 0;
	for (size_t i = 0; !rc && i < sv->n; i++)
		rc = mdc_buf_addf(out, "%s: %s\n", title, sv->v[i]);
	return rc;
}

/* How and when the restart-needed keys take effect (the emulator does
 * what the service does: a reload, a restart only for other nodes). */
static int restart_note(struct mdc_buf *out, const struct mdc_strv *keys)
{
	bool nodes = false, settings = false;
	int rc = 0;

	for (size_t i = 0; i < keys->n; i++) {
		if (mdc_startswith(keys->v[i], "node count"))
			nodes = true;
		else
			settings = true;
	}
	if (settings)
		rc = mdc_buf_adds(out, "  when: the service reloads slurm.conf (scontrol reconfigure) and "
				  "does not restart slurmctld for a setting: it keeps its old value until "
				  "slurmctld's next restart; mdcctl drift lists it as pending restart until then\n");
	if (!rc && nodes)
		rc = mdc_buf_adds(out, "  when: the service restarts slurmctld itself when it writes "
				  "slurm.conf with other nodes\n");
	return rc;
}

int mdc_plan_format(const struct mdc_plan *plan, struct mdc_buf *out)
{
	char *mask = NULL;
	int rc = 0;

	if (!plan->nchanges && !plan->refusals.n) {
		rc = mdc_buf_adds(out, "No changes: the managed spec already matches.\n");
		for (size_t i = 0; !rc && i < plan->warnings.n; i++)
			rc = mdc_buf_addf(out, "warning: %s\n", plan->warnings.v[i]);
		return rc;
	}
	if (plan->nchanges)
		rc = mdc_buf_addf(out, "Changes (%zu):\n", plan->nchanges);
	for (size_t i = 0; !rc && i < plan->nchanges; i++) {
		const struct mdc_change *c = &plan->changes[i];
		char sign = !c->old_value ? '+' : !c->new_value ? '-' : '~';

		rc = mdc_buf_addf(out, "  %c %s%s%s: %s -> %s\n", sign, c->scope,
				  c->key ? " " : "", c->key ? c->key : "",
				  c->old_value ? c->old_value : "(absent)",
				  c->new_value ? c->new_value : "(removed)");
	}
	if (!rc && plan->mask.n) {
		if (!(mask = mdc_strv_join(&plan->mask, ",")))
			return MDC_ERR_NOMEM;
		rc = mdc_buf_addf(out, "\nupdateMask: %s\n", mask);
	} else if (!rc && plan->payload) {
		rc = mdc_buf_adds(out, "\nupdateMask: (none: whole-resource PATCH)\n");
	}
	if (!rc && (plan->mask.n || plan->payload))
		rc = mdc_buf_addf(out, "updateMode: %s\n", mdc_mode_name(plan->mode));
	/* none is certain (pools are pinned or USER_ONLY); some is a forecast */
	if (!rc && !plan->refusals.n)
		rc = fmt_list(out, plan->recreate.n ? "node pools that may be recreated (see the "
			      "warnings)" : "node pools recreated", &plan->recreate, "none");
	if (!rc)
		rc = fmt_list(out, "restart needed", &plan->restart_keys, NULL);
	if (!rc)
		rc = restart_note(out, &plan->restart_keys);
	if (!rc)
		rc = fmt_list(out, "warning", &plan->warnings, NULL);
	if (!rc)
		rc = fmt_list(out, "refused", &plan->refusals, NULL);
	if (!rc && plan->refusals.n)
		rc = mdc_buf_adds(out, "Nothing will be sent.\n");
	free(mask);
	return rc;
}

static json_object *strv_json(const struct mdc_strv *sv)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < sv->n; i++)
		json_object_array_add(a, json_object_new_string(sv->v[i]));
	return a;
}

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

json_object *mdc_plan_to_json(const struct mdc_plan *plan)
{
	json_object *o = json_object_new_object(), *ch = json_object_new_array();

	if (!o || !ch) {
		json_object_put(o);
		json_object_put(ch);
		return NULL;
	}
	for (size_t i = 0; i < plan->nchanges; i++) {
		const struct mdc_change *c = &plan->changes[i];
		json_object *e = json_object_new_object();

		if (!e)
			continue;
		json_object_object_add(e, "scope", json_object_new_string(c->scope));
		json_object_object_add(e, "key", str_or_null(c->key));
		json_object_object_add(e, "old", str_or_null(c->old_value));
		json_object_object_add(e, "new", str_or_null(c->new_value));
		json_object_array_add(ch, e);
	}
	json_object_object_add(o, "changes", ch);
	json_object_object_add(o, "update_mask", strv_json(&plan->mask));
	json_object_object_add(o, "update_mode", json_object_new_string(mdc_mode_name(plan->mode)));
	json_object_object_add(o, "payload", plan->payload ? mdc_json_copy(plan->payload) : NULL);
	json_object_object_add(o, "recreate", strv_json(&plan->recreate));
	json_object_object_add(o, "restart_keys", strv_json(&plan->restart_keys));
	json_object_object_add(o, "warnings", strv_json(&plan->warnings));
	json_object_object_add(o, "refusals", strv_json(&plan->refusals));
	return o;
}

void mdc_plan_free(struct mdc_plan *plan)
{
	if (!plan)
		return;
	json_object_put(plan->payload);
	json_object_put(plan->result);
	for (size_t i = 0; i < plan->nchanges; i++) {
		free(plan->changes[i].scope);
		free(plan->changes[i].key);
		free(plan->changes[i].old_value);
		free(plan->changes[i].new_value);
	}
	free(plan->changes);
	mdc_strv_free(&plan->mask);
	mdc_strv_free(&plan->recreate);
	mdc_strv_free(&plan->restart_keys);
	mdc_strv_free(&plan->warnings);
	mdc_strv_free(&plan->refusals);
	plan_init(plan);
}

int mdc_plan_op_recreated(const json_object *op, const struct mdc_strv *candidates,
			  struct mdc_strv *pools)
{
	const json_object *meta = mdc_json_get_obj(mdc_json_get(op, "metadata"), "generic_metadata");
	const char *since = mdc_json_get_str(meta, "create_time", "");
	json_object *resp = mdc_json_get(op, "response");
	json_object *events = mdc_json_get_arr(resp, "cluster_events");
	json_object *nodes = mdc_json_get_arr(mdc_json_get_obj(resp, "cluster_status"), "nodes_status");

	/* RFC 3339 UTC times of one writer compare as strings.  The
	 * emulator's events name the pool (node_pool_id, its own field) */
	for (size_t i = 0; events && i < json_object_array_length(events); i++) {
		json_object *ev = json_object_array_get_idx(events, i);
		const char *id = mdc_json_get_str(ev, "node_pool_id", "");

		if (strcmp(mdc_json_get_str(ev, "event_type", ""), "VM_DELETION") || !*id ||
		    strcmp(mdc_json_get_str(ev, "event_time", ""), since) < 0 || mdc_strv_has(pools, id))
			continue;
		if (mdc_strv_push(pools, id))
			return MDC_ERR_NOMEM;
	}
	/* the service's events carry only eventType, eventTime and
	 * eventMessage: a pool that may be recreated and whose nodes were
	 * created since the operation began was recreated (a pool this
	 * update adds is no candidate) */
	for (size_t i = 0; candidates && nodes && i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i);
		const char *id = mdc_json_get_str(n, "node_pool_id", "");
		const char *born = mdc_json_get_str(n, "create_time", "");

		if (!*id || !*born || !*since || strcmp(born, since) < 0 ||
		    !mdc_strv_has(candidates, id) || mdc_strv_has(pools, id))
			continue;
		if (mdc_strv_push(pools, id))
			return MDC_ERR_NOMEM;
	}
	return 0;
}

