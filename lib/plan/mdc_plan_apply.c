/* mdc_plan_apply.c - applying the intent: each op of an mdc_intent
 * changes WANT (the plan's copy of the cluster), checking what names the
 * user's input (keys, ids, indexes) as it goes.  (owner: plan engine) */
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

/* Set KEY=VALUE in MAP, keeping an existing key's spelling (no spurious
 * rename) and otherwise using NAME (the canonical spelling). */
static int map_set(json_object *map, const char *key, const char *name, const char *value)
{
	const char *old = plan_map_key(map, key);
	char *k = strdup(old ? old : name ? name : key);
	json_object *v = json_object_new_string(value);
	int rc = MDC_ERR_NOMEM;

	if (!k || !v)
		goto out;
	/* drop every other spelling of the same key */
	while ((old = plan_map_key(map, key)))
		json_object_object_del(map, old);
	if (json_object_object_add(map, k, v) == 0) {
		v = NULL;
		rc = 0;
	}
out:
	json_object_put(v);
	free(k);
	return rc;
}

static bool map_unset(json_object *map, const char *key)
{
	const char *old;
	bool found = false;

	while ((old = plan_map_key(map, key))) {
		json_object_object_del(map, old);
		found = true;
	}
	return found;
}

/* "a, b, c" of the IDFIELD of every element (for "known ids" hints). */
static void list_ids(const json_object *arr, const char *idfield, char *out, size_t outsz)
{
	size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0, o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && o < outsz; i++)
		o += (size_t) snprintf(out + o, outsz - o, "%s%s", i ? ", " : "",
				       mdc_json_get_str(json_object_array_get_idx(arr, i), idfield, "?"));
	if (!n)
		snprintf(out, outsz, "none");
}

/* find_by_id on a list of WANT, through its index. */
static int want_find(struct plan_st *st, const json_object *arr, const char *idfield, const char *id)
{
	const size_t nix = sizeof(st->ix) / sizeof(st->ix[0]);
	struct plan_ix *x = NULL;
	size_t i, len;

	if (!arr || !id || !json_object_is_type(arr, json_type_array))
		return plan_find_by_id(arr, idfield, id);
	len = json_object_array_length(arr);
	for (i = 0; i < nix && !x; i++)
		if (st->ix[i].arr == arr && !strcmp(st->ix[i].idfield, idfield))
			x = &st->ix[i];
	for (i = 0; i < nix && !x; i++)
		if (!st->ix[i].arr)
			x = &st->ix[i];
	if (!x)
		return plan_find_by_id(arr, idfield, id);
	if (x->arr != arr || x->n > len) {
		mdc_hash_clear(&x->h);
		x->arr = arr;
		x->idfield = idfield;
		x->n = 0;
	}
	if (plan_index_list(&x->h, &x->n, arr, idfield)) {
		mdc_hash_clear(&x->h);
		x->arr = NULL;
		return plan_find_by_id(arr, idfield, id);
	}
	return mdc_hash_get(&x->h, id, &i) ? (int) i : -1;
}

static int arr_del_idx(struct plan_st *st, json_object *arr, size_t idx)
{
	for (size_t i = 0; i < sizeof(st->ix) / sizeof(st->ix[0]); i++)
		if (st->ix[i].arr == arr)
			st->ix[i].arr = NULL;
	return json_object_array_del_idx(arr, idx, 1);
}

/* ---- checks on the user's input -------------------------------------- */

/* Check a Slurm key (and VALUE, unless NULL for an unset) for SCOPE with
 * the service's own rule (mdc_rules_check_setting).  Returns the option
 * (canonical name) or NULL after recording a refusal. */
static const struct sc_option *check_key(struct plan_st *st, const char *where, const char *subj,
					 unsigned scope, const char *key, const char *value)
{
	const struct sc_option *opt;
	struct mdc_ctx kctx;

	mdc_ctx_clear(&kctx);
	if (mdc_rules_check_setting(key, value, scope, subj, &opt, &kctx)) {
		plan_refuse(st, where, "%s", kctx.msg);
		return NULL;
	}
	return opt;
}

static bool check_id(struct plan_st *st, const char *where, const char *what, const char *id)
{
	struct mdc_ctx kctx;

	mdc_ctx_clear(&kctx);
	if (mdc_rules_check_id(what, id ? id : "", &kctx)) {
		plan_refuse(st, where, "%s", kctx.msg);
		return false;
	}
	return true;
}

/* Google's label rules, from the shared rules. */
static bool check_label(struct plan_st *st, const char *where, const char *key, const char *value)
{
	struct mdc_ctx kctx;

	mdc_ctx_clear(&kctx);
	if (mdc_rules_check_label(key ? key : "", value, &kctx)) {
		plan_refuse(st, where, "%s", kctx.msg);
		return false;
	}
	return true;
}

/* ---- applying the ops to WANT ---------------------------------------- */

static json_object *want_part(struct plan_st *st, const struct mdc_op *op)
{
	json_object *parts = mdc_json_get_arr(plan_slurm_spec(st->want), "partitions");
	int i = want_find(st, parts, "id", op->id);
	char ids[512];

	if (i < 0) {
		list_ids(parts, "id", ids, sizeof(ids));
		plan_refuse(st, op->where, "partition '%s' does not exist (partitions: %s)", op->id, ids);
		return NULL;
	}
	return json_object_array_get_idx(parts, (size_t) i);
}

/* A compute pool named ID (the login pool has no Slurm nodes). */
static bool want_compute_pool(struct plan_st *st, const char *where, const char *subj, const char *id)
{
	json_object *pools = mdc_json_get_arr(st->want, "node_pools");
	const char *login = mdc_json_get_str(plan_slurm_spec(st->want), "login_node_pool_id", NULL);
	char ids[512];

	if (want_find(st, pools, "id", id) < 0) {
		list_ids(pools, "id", ids, sizeof(ids));
		plan_refuse(st, where, "%s: node pool '%s' does not exist (node pools: %s)", subj, id, ids);
		return false;
	}
	if (mdc_streq(login, id)) {
		plan_refuse(st, where, "%s: node pool '%s' is the login pool, which has no Slurm nodes", subj, id);
		return false;
	}
	return true;
}

static int set_pool_ids(struct plan_st *st, const struct mdc_op *op, json_object *part,
			const char *subj)
{
	json_object *arr;

	if (op->list.n == 0) {
		plan_refuse(st, op->where, "%s: give at least one node pool", subj);
		return 0;
	}
	for (size_t i = 0; i < op->list.n; i++)
		if (!want_compute_pool(st, op->where, subj, op->list.v[i]))
			return 0;
	if (!(arr = json_object_new_array()))
		return MDC_ERR_NOMEM;
	for (size_t i = 0; i < op->list.n; i++)
		json_object_array_add(arr, json_object_new_string(op->list.v[i]));
	return mdc_json_set(part, "node_pool_ids", arr);
}

static int op_config(struct plan_st *st, const struct mdc_op *op, json_object *map,
		     unsigned scope, const char *subj, bool set)
{
	const struct sc_option *opt = check_key(st, op->where, subj, scope, op->key,
						set ? (op->value ? op->value : "") : NULL);
	const struct sc_option *canon = sc_opt_alias_of(opt);
	struct mdc_op aop;
	const char *alias;

	if (!opt)
		return 0;
	/* Slurm reads an alias and its key as one setting and the key wins
	 * when both are there: store the key, so Shared=YES does not sit
	 * unread beside OverSubscribe=NO */
	if (canon) {
		if (set)
			plan_warn(st, op->where, "%s: %s is stored as %s (Slurm reads %s and ignores %s when a line has both)",
				  subj, opt->name, canon->name, canon->name, opt->name);
		aop = *op;
		aop.key = (char *) canon->name;
		op = &aop;
		opt = canon;
	}
	/* an obsolete key Slurm still reads (FastSchedule, partition Priority):
	 * sent as asked, with what the table knows of it */
	if (set && !canon && (opt->flags & SC_OPT_OBSOLETE) && opt->why)
		plan_warn(st, op->where, "%s: %s is obsolete: %s", subj, opt->name, opt->why);
	/* the key replaces (or unsets with it) a value stored under the alias */
	if ((alias = sc_opt_alias_name(opt)) && map_unset(map, alias) && !set) {
		map_unset(map, op->key);
		return 0;
	}
	/* the same setting spelled differently (7-0 for 7-00:00:00, flags in
	 * another order) is no change: keep the spec's spelling (mdc_value.h) */
	if (set && plan_map_key(map, op->key) &&
	    mdc_value_equal(opt->name, json_object_get_string(mdc_json_get(map, plan_map_key(map, op->key))),
			    op->value ? op->value : ""))
		return 0;
	if (set) {
		/* one field in Slurm (def_mem_per_cpu, max_mem_per_cpu, a flag
		 * telling per CPU or per node): scontrol's update of one drops
		 * the other, and a slurm.conf with both keeps the PerNode one
		 * with an error line in every client (read_config.c) */
		static const char *const one_of[][2] = {
			{ "DefMemPerCPU", "DefMemPerNode" }, { "MaxMemPerCPU", "MaxMemPerNode" },
		};

		for (size_t i = 0; i < sizeof(one_of) / sizeof(one_of[0]); i++) {
			const char *other = !strcasecmp(opt->name, one_of[i][0]) ? one_of[i][1] :
					    !strcasecmp(opt->name, one_of[i][1]) ? one_of[i][0] : NULL;
			const char *had = other ? plan_map_key(map, other) : NULL;

			if (had) {
				plan_warn(st, op->where, "%s: %s replaces %s=%s (Slurm holds one of the two, "
					  "as scontrol does)", subj, opt->name, other,
					  json_object_get_string(mdc_json_get(map, had)));
				map_unset(map, other);
			}
		}
		return map_set(map, op->key, opt->name, op->value ? op->value : "");
	}
	if (!map_unset(map, op->key))
		plan_warn(st, op->where, "%s: '%s' is not set: nothing to remove", subj, opt->name);
	return 0;
}

static int op_part_create(struct plan_st *st, const struct mdc_op *op)
{
	json_object *ss = plan_slurm_spec(st->want), *parts, *part = NULL, *cfg;
	char subj[300];
	int rc = MDC_ERR_NOMEM;

	if (!check_id(st, op->where, "partition", op->id))
		return 0;
	snprintf(subj, sizeof(subj), "partition '%s'", op->id);
	if (!ss || !(parts = plan_get_or_make(ss, "partitions", json_type_array)))
		return MDC_ERR_NOMEM;
	if (want_find(st, parts, "id", op->id) >= 0) {
		plan_refuse(st, op->where, "%s already exists", subj);
		return 0;
	}
	if (!(part = json_object_new_object()) ||
	    mdc_json_set(part, "id", json_object_new_string(op->id)))
		goto out;
	if ((rc = set_pool_ids(st, op, part, subj)))
		goto out;
	rc = MDC_ERR_NOMEM;
	if (!(cfg = plan_get_or_make(part, "config", json_type_object)))
		goto out;
	for (size_t i = 0; i < op->kv.n; i++) {
		struct mdc_op kv = { .kind = MDC_OP_PART_SET, .where = op->where };
		char *eq, *k = strdup(op->kv.v[i]);

		if (!k)
			goto out;
		if (!(eq = strchr(k, '='))) {
			plan_refuse(st, op->where, "%s: '%s' is not KEY=VALUE", subj, k);
			free(k);
			continue;
		}
		*eq = '\0';
		kv.key = k;
		kv.value = eq + 1;
		rc = op_config(st, &kv, cfg, SC_SCOPE_PARTITION, subj, true);
		free(k);
		if (rc)
			goto out;
		rc = MDC_ERR_NOMEM;
	}
	if (json_object_array_add(parts, part))
		goto out;
	part = NULL;
	rc = 0;
out:
	json_object_put(part);
	return rc;
}

static int op_part_delete(struct plan_st *st, const struct mdc_op *op)
{
	json_object *ss = plan_slurm_spec(st->want);
	json_object *parts = mdc_json_get_arr(ss, "partitions");
	const char *def = mdc_json_get_str(ss, "default_partition_id", NULL);
	const char *cur_def = mdc_json_get_str(plan_slurm_spec(st->cur), "default_partition_id", NULL);

	if (!want_part(st, op))
		return 0;
	/* C6 is about the partition the cluster names now: moving the
	 * default away in the same update does not make removing it legal */
	if (mdc_streq(cur_def, op->id) && !mdc_streq(def, op->id)) {
		plan_refuse(st, op->where, "partition '%s' is the default partition (default_partition_id): "
		       "the service rejects an update that removes or renames it; make '%s' the default "
		       "in a separate update first (mdcctl partition default %s), then remove '%s'",
		       op->id, def ? def : "another partition", def ? def : "ID", op->id);
		return 0;
	}
	if (mdc_streq(def, op->id)) {
		plan_refuse(st, op->where, "partition '%s' is the default partition (default_partition_id): "
		       "the service rejects removing or renaming it; make another partition the default "
		       "first (mdcctl partition default ID)", op->id);
		return 0;
	}
	return arr_del_idx(st, parts, (size_t) want_find(st, parts, "id", op->id)) ? MDC_ERR_NOMEM : 0;
}

static int op_nodeset(struct plan_st *st, const struct mdc_op *op, bool set)
{
	json_object *sets, *ns = NULL, *cfg;
	char subj[300];
	int i, rc;

	if (!check_id(st, op->where, "node set", op->id))
		return 0;
	snprintf(subj, sizeof(subj), "node set '%s'", op->id);
	if (!want_compute_pool(st, op->where, subj, op->id))
		return 0;
	if (!(sets = plan_get_or_make(plan_slurm_spec(st->want), "node_sets", json_type_array)))
		return MDC_ERR_NOMEM;
	i = want_find(st, sets, "node_pool_id", op->id);
	if (i < 0) {
		if (!set) {
			plan_warn(st, op->where, "%s has no settings: nothing to remove", subj);
			return 0;
		}
		if (!(ns = json_object_new_object()) ||
		    mdc_json_set(ns, "node_pool_id", json_object_new_string(op->id)) ||
		    json_object_array_add(sets, ns)) {
			json_object_put(ns);
			return MDC_ERR_NOMEM;
		}
		i = (int) json_object_array_length(sets) - 1;
	}
	ns = json_object_array_get_idx(sets, (size_t) i);
	if (!(cfg = plan_get_or_make(ns, "config", json_type_object)))
		return MDC_ERR_NOMEM;
	if ((rc = op_config(st, op, cfg, SC_SCOPE_NODE, subj, set)))
		return rc;
	/* a node set left without settings is dropped, as if never added */
	if (json_object_object_length(cfg) == 0)
		return arr_del_idx(st, sets, (size_t) i) ? MDC_ERR_NOMEM : 0;
	return 0;
}

static json_object *want_pool(struct plan_st *st, const struct mdc_op *op)
{
	json_object *pools = mdc_json_get_arr(st->want, "node_pools");
	int i = want_find(st, pools, "id", op->id);
	char ids[512];

	if (i < 0) {
		list_ids(pools, "id", ids, sizeof(ids));
		plan_refuse(st, op->where, "node pool '%s' does not exist (node pools: %s)",
		       op->id ? op->id : "", ids);
		return NULL;
	}
	return json_object_array_get_idx(pools, (size_t) i);
}

/* Set an integer field unless it already holds that number (the API may
 * answer int64 fields as strings). */
/* A node count of the spec (proto3 int64: a number or a string of
 * digits); DFLT when absent or unreadable. */
int64_t plan_count(const json_object *obj, const char *field, int64_t dflt)
{
	json_object *v = mdc_json_get(obj, field);
	const char *s;
	char *end;
	long long n;

	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_string)))
		return dflt;
	s = json_object_get_string(v);
	n = strtoll(s, &end, 10);
	return *s && !*end ? (int64_t) n : dflt;
}

static int set_count(json_object *obj, const char *field, int64_t n)
{
	/* the same count, as a number or a string: left as it is */
	if (plan_count(obj, field, -1) == n)
		return 0;
	return mdc_json_set(obj, field, json_object_new_int64(n));
}

static int op_pool_scale(struct plan_st *st, const struct mdc_op *op)
{
	json_object *pool = want_pool(st, op), *sc;
	int64_t min, max;
	struct mdc_ctx kctx;

	if (!pool)
		return 0;
	if (!(sc = plan_get_or_make(pool, "scaling_spec", json_type_object)))
		return MDC_ERR_NOMEM;
	/* a count not given (-1) stays as the spec has it */
	min = op->min >= 0 ? op->min : plan_count(sc, "min_node_count", 0);
	max = op->max >= 0 ? op->max : plan_count(sc, "max_node_count", 0);
	mdc_ctx_clear(&kctx);
	if (mdc_rules_check_node_counts(op->id, (long long) min, (long long) max, &kctx)) {
		plan_refuse(st, op->where, "%s", kctx.msg);
		return 0;
	}
	if (set_count(sc, "min_node_count", min) || set_count(sc, "max_node_count", max))
		return MDC_ERR_NOMEM;
	return 0;
}

static int op_pool_image(struct plan_st *st, const struct mdc_op *op)
{
	json_object *pool = want_pool(st, op);

	if (!pool)
		return 0;
	if (op->value && mdc_has_ctrl(op->value)) {
		plan_refuse(st, op->where, "node pool '%s': the image name contains a control character", op->id);
		return 0;
	}
	if (op->value && *op->value)
		return mdc_strv_push(&st->pinned, op->id) ? MDC_ERR_NOMEM :
		       mdc_json_set(pool, "node_image", json_object_new_string(op->value));
	mdc_json_del(pool, "node_image");
	return mdc_strv_push(&st->unpinned, op->id);
}

static int op_script(struct plan_st *st, const struct mdc_op *op, const char *field)
{
	json_object *arr = plan_get_or_make(plan_slurm_spec(st->want), field, json_type_array);
	const char *what = field[0] == 'p' ? "prolog" : "epilog";

	if (!arr)
		return MDC_ERR_NOMEM;
	switch (op->kind) {
	case MDC_OP_PROLOG_ADD:
	case MDC_OP_EPILOG_ADD:
		if (!op->value || !*op->value) {
			plan_refuse(st, op->where, "%s script: empty script", what);
			return 0;
		}
		return json_object_array_add(arr, json_object_new_string(op->value)) ? MDC_ERR_NOMEM : 0;
	case MDC_OP_PROLOG_REMOVE:
	case MDC_OP_EPILOG_REMOVE:
		if (op->index < 0 || (size_t) op->index >= json_object_array_length(arr)) {
			plan_refuse(st, op->where, "there is no %s script at index %ld (0-based; %zu script(s))",
			       what, op->index, json_object_array_length(arr));
			return 0;
		}
		return arr_del_idx(st, arr, (size_t) op->index) ? MDC_ERR_NOMEM : 0;
	default: {
		json_object *list = json_object_new_array();

		if (!list)
			return MDC_ERR_NOMEM;
		for (size_t i = 0; i < op->list.n; i++)
			json_object_array_add(list, json_object_new_string(op->list.v[i]));
		return mdc_json_set(plan_slurm_spec(st->want), field, list);
	}
	}
}

static int op_label(struct plan_st *st, const struct mdc_op *op, bool set)
{
	json_object *labels = plan_get_or_make(st->want, "labels", json_type_object);

	if (!labels)
		return MDC_ERR_NOMEM;
	if (!check_label(st, op->where, op->key, NULL))
		return 0;
	if (!set) {
		if (!json_object_object_get_ex(labels, op->key, NULL))
			plan_warn(st, op->where, "label '%s' is not set: nothing to remove", op->key);
		json_object_object_del(labels, op->key);
		return 0;
	}
	if (!check_label(st, op->where, op->key, op->value ? op->value : ""))
		return 0;
	return json_object_object_add(labels, op->key, json_object_new_string(op->value)) ? MDC_ERR_NOMEM : 0;
}

/* C9: every legacy setting goes into config under its slurm.conf name. */
static int op_migrate(struct plan_st *st, const struct mdc_op *op)
{
	static const char *const legacy[] = { "scheduling", "accounting" };
	json_object *ss = plan_slurm_spec(st->want), *cfg;

	if (!ss)
		return MDC_ERR_NOMEM;
	if (plan_is_empty(mdc_json_get(ss, "scheduling")) && plan_is_empty(mdc_json_get(ss, "accounting"))) {
		plan_warn(st, op->where, "no legacy 'scheduling'/'accounting' settings: the cluster already "
		     "uses 'config', nothing to migrate");
		return 0;
	}
	if (!(cfg = plan_get_or_make(ss, "config", json_type_object)))
		return MDC_ERR_NOMEM;
	for (size_t l = 0; l < 2; l++) {
		json_object *m = mdc_json_get_obj(ss, legacy[l]);

		if (!m)
			continue;
		json_object_object_foreach(m, k, v) {
			const struct sc_option *opt = sc_opt_find(k, SC_SCOPE_CLUSTER);
			const char *old;
			char num[32];
			const char *s;

			if (!opt) {
				plan_refuse(st, op->where, "%s field '%s' has no slurm.conf equivalent: "
				       "set it by hand with 'mdcctl config set'", legacy[l], k);
				continue;
			}
			switch (json_object_get_type(v)) {
			case json_type_string: s = json_object_get_string(v); break;
			case json_type_boolean: s = json_object_get_boolean(v) ? "YES" : "NO"; break;
			case json_type_int:
				snprintf(num, sizeof(num), "%lld", (long long) json_object_get_int64(v));
				s = num;
				break;
			default:
				plan_refuse(st, op->where, "%s field '%s' is not a string or a number: "
				       "set it by hand with 'mdcctl config set'", legacy[l], k);
				continue;
			}
			if ((old = plan_map_key(cfg, opt->name))) {
				if (!mdc_streq(json_object_get_string(mdc_json_get(cfg, old)), s))
					plan_warn(st, op->where, "%s field '%s' (%s) is already in config as %s=%s: "
					     "keeping config's value", legacy[l], k, s, old,
					     json_object_get_string(mdc_json_get(cfg, old)));
				continue;
			}
			if (map_set(cfg, opt->name, opt->name, s))
				return MDC_ERR_NOMEM;
		}
		mdc_json_del(ss, legacy[l]);
	}
	st->force[PP_CONFIG] = st->force[PP_SCHEDULING] = st->force[PP_ACCOUNTING] = true;
	return 0;
}

/* A raw PATCH (C1, C2): each masked path of WANT takes the body's value,
 * or is cleared when the body lacks it; it is sent even when unchanged,
 * as the user asked. */
static int op_raw(struct plan_st *st, const struct mdc_op *op)
{
	json_object *body = NULL;
	struct mdc_ctx jctx;
	int rc = 0;

	mdc_ctx_clear(&jctx);
	if (mdc_json_parse(op->value ? op->value : "", op->value ? strlen(op->value) : 0, &body,
			   &jctx) || !json_object_is_type(body, json_type_object)) {
		plan_refuse(st, op->where, "expected a JSON object%s%s", jctx.msg[0] ? ": " : "",
			    jctx.msg);
		goto out;
	}
	st->raw = true;
	for (size_t i = 0; i < op->list.n; i++) {
		json_object *v = mdc_json_get_path(body, op->list.v[i]), *parent;
		int p;

		for (p = 0; p < PP_MAX && strcmp(plan_paths[p].path, op->list.v[i]); p++)
			;
		if (p == PP_MAX) {
			plan_refuse(st, op->where, "'%s' is not an update mask path", op->list.v[i]);
			continue;
		}
		st->force[p] = true;
		parent = plan_paths[p].parent ? mdc_json_mkpath(st->want, plan_paths[p].parent) : st->want;
		if (!parent) {
			rc = MDC_ERR_NOMEM;
			break;
		}
		/* the lists of WANT change under their indexes */
		for (size_t k = 0; k < sizeof(st->ix) / sizeof(st->ix[0]); k++)
			st->ix[k].arr = NULL;
		if (!v)
			mdc_json_del(parent, plan_paths[p].field);
		else if (mdc_json_set(parent, plan_paths[p].field, mdc_json_copy(v)))
			rc = MDC_ERR_NOMEM;
	}
out:
	json_object_put(body);
	return rc;
}

int plan_apply_op(struct plan_st *st, const struct mdc_op *op)
{
	json_object *ss = plan_slurm_spec(st->want), *part;
	char subj[300];

	if (!ss)
		return MDC_ERR_NOMEM;
	switch (op->kind) {
	case MDC_OP_CONFIG_SET:
	case MDC_OP_CONFIG_UNSET: {
		json_object *cfg = plan_get_or_make(ss, "config", json_type_object);

		if (!cfg)
			return MDC_ERR_NOMEM;
		st->config_touched = true;
		return op_config(st, op, cfg, SC_SCOPE_CLUSTER, "config", op->kind == MDC_OP_CONFIG_SET);
	}
	case MDC_OP_PART_CREATE:
		return op_part_create(st, op);
	case MDC_OP_PART_SET:
	case MDC_OP_PART_UNSET:
	case MDC_OP_PART_POOLS:
		if (!check_id(st, op->where, "partition", op->id) || !(part = want_part(st, op)))
			return 0;
		snprintf(subj, sizeof(subj), "partition '%s'", op->id);
		if (op->kind == MDC_OP_PART_POOLS)
			return set_pool_ids(st, op, part, subj);
		if (!(part = plan_get_or_make(part, "config", json_type_object)))
			return MDC_ERR_NOMEM;
		return op_config(st, op, part, SC_SCOPE_PARTITION, subj, op->kind == MDC_OP_PART_SET);
	case MDC_OP_PART_DELETE:
		if (!check_id(st, op->where, "partition", op->id))
			return 0;
		return op_part_delete(st, op);
	case MDC_OP_PART_DEFAULT:
		if (!check_id(st, op->where, "partition", op->id) || !want_part(st, op))
			return 0;
		return mdc_json_set(ss, "default_partition_id", json_object_new_string(op->id));
	case MDC_OP_NODESET_SET:
	case MDC_OP_NODESET_UNSET:
		return op_nodeset(st, op, op->kind == MDC_OP_NODESET_SET);
	case MDC_OP_POOL_SCALE:
		return op_pool_scale(st, op);
	case MDC_OP_POOL_IMAGE:
		return op_pool_image(st, op);
	case MDC_OP_PROLOG_ADD:
	case MDC_OP_PROLOG_REMOVE:
	case MDC_OP_PROLOG_REPLACE:
		return op_script(st, op, "prolog_bash_scripts");
	case MDC_OP_EPILOG_ADD:
	case MDC_OP_EPILOG_REMOVE:
	case MDC_OP_EPILOG_REPLACE:
		return op_script(st, op, "epilog_bash_scripts");
	case MDC_OP_LABEL_SET:
	case MDC_OP_LABEL_UNSET:
		return op_label(st, op, op->kind == MDC_OP_LABEL_SET);
	case MDC_OP_MIGRATE_CONFIG:
		return op_migrate(st, op);
	case MDC_OP_RAW_PATCH:
		return op_raw(st, op);
	case MDC_OP_KIND_MAX:
		break;
	}
	plan_refuse(st, op->where, "unknown operation %d", (int) op->kind);
	return 0;
}

