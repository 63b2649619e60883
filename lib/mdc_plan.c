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
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_hash.h"
#include "mdc_json.h"
#include "mdc_plan.h"
#include "mdc_value.h"
#include "sc_options.h"

#define SLURM_SPEC "orchestrator_spec.slurm_spec"

/* The mask paths (C1), in the order they are sent and shown. */
enum plan_path_id {
	PP_LABELS, PP_NODE_POOLS, PP_PARTITIONS, PP_DEFAULT, PP_LOGIN, PP_PROLOG,
	PP_EPILOG, PP_CONFIG, PP_SCHEDULING, PP_ACCOUNTING, PP_NODE_SETS, PP_MAX
};

static const struct plan_path {
	const char *path;
	const char *parent;	/* NULL = the resource itself */
	const char *field;
	enum json_type type;	/* what an empty value looks like */
} plan_paths[PP_MAX] = {
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
};

/* An index of one list of WANT by its id field, so that applying N ops
 * to a list of N elements stays linear.  The ids are borrowed from the
 * elements: the index follows appends and is dropped when an element is
 * removed (ids are never changed in place). */
struct plan_ix {
	const json_object *arr;	/* NULL: slot free */
	const char *idfield;
	size_t n;		/* elements indexed, a prefix of ARR */
	struct mdc_hash h;
};

/* Working state of one mdc_plan_make call. */
struct plan_st {
	struct mdc_plan *plan;
	const struct mdc_plan_opts *opts;
	json_object *cur;		/* normalised copy of the current cluster */
	json_object *want;		/* cur + ops */
	bool force[PP_MAX];		/* send even if unchanged (migration) */
	bool config_touched;		/* the user's ops set or unset config keys */
	struct mdc_strv unpinned;	/* pools the user explicitly unpinned */
	struct mdc_strv pinned;		/* pools the user explicitly pinned to an image */
	struct plan_ix ix[4];		/* indexes of WANT's lists (want_find) */
	bool nomem;
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

static __attribute__((format(printf, 3, 4)))
void refuse(struct plan_st *st, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st_push(st, &st->plan->refusals, where, fmt, ap);
	va_end(ap);
}

static __attribute__((format(printf, 3, 4)))
void warn(struct plan_st *st, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st_push(st, &st->plan->warnings, where, fmt, ap);
	va_end(ap);
}

static json_object *slurm_spec(json_object *cl)
{
	return mdc_json_mkpath(cl, SLURM_SPEC);
}

/* The container FIELD of PARENT, created empty (of TYPE) when absent or of
 * another type; borrowed.  NULL only on ENOMEM. */
static json_object *get_or_make(json_object *parent, const char *field, enum json_type type)
{
	json_object *v = mdc_json_get(parent, field);

	if (v && json_object_is_type(v, type))
		return v;
	v = type == json_type_array ? json_object_new_array() : json_object_new_object();
	if (!v || mdc_json_set(parent, field, v))
		return NULL;
	return v;
}

static bool is_empty(const json_object *v)
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
static bool same_value(const json_object *a, const json_object *b)
{
	if (is_empty(a) || is_empty(b))
		return is_empty(a) && is_empty(b);
	return mdc_json_equal(a, b);
}

static json_object *path_value(json_object *cl, enum plan_path_id p)
{
	return mdc_json_get_path(cl, plan_paths[p].path);
}

/* The key of MAP equal to KEY under Slurm's rule (C7), or NULL. */
static const char *map_key(json_object *map, const char *key)
{
	json_object_object_foreach(map, k, v) {
		(void) v;
		if (mdc_key_eq(k, key))
			return k;
	}
	return NULL;
}

/* Set KEY=VALUE in MAP, keeping an existing key's spelling (no spurious
 * rename) and otherwise using NAME (the canonical spelling). */
static int map_set(json_object *map, const char *key, const char *name, const char *value)
{
	const char *old = map_key(map, key);
	char *k = strdup(old ? old : name ? name : key);
	json_object *v = json_object_new_string(value);
	int rc = MDC_ERR_NOMEM;

	if (!k || !v)
		goto out;
	/* drop every other spelling of the same key */
	while ((old = map_key(map, key)))
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

	while ((old = map_key(map, key))) {
		json_object_object_del(map, old);
		found = true;
	}
	return found;
}

/* Index of the element of ARR whose IDFIELD is ID, or -1. */
static int find_by_id(const json_object *arr, const char *idfield, const char *id)
{
	size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++)
		if (mdc_streq(mdc_json_get_str(json_object_array_get_idx(arr, i), idfield, NULL), id))
			return (int) i;
	return -1;
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

/* Index the elements of ARR not yet in H (the first of equal ids wins,
 * as in find_by_id); *N counts those done.  0 or MDC_ERR_NOMEM. */
static int index_list(struct mdc_hash *h, size_t *n, const json_object *arr, const char *idfield)
{
	size_t len = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (; *n < len; (*n)++) {
		const char *id = mdc_json_get_str(json_object_array_get_idx(arr, *n), idfield, NULL);

		if (id && mdc_hash_put(h, id, *n, false))
			return MDC_ERR_NOMEM;
	}
	return 0;
}

/* find_by_id on a list of WANT, through its index. */
static int want_find(struct plan_st *st, const json_object *arr, const char *idfield, const char *id)
{
	const size_t nix = sizeof(st->ix) / sizeof(st->ix[0]);
	struct plan_ix *x = NULL;
	size_t i, len;

	if (!arr || !id || !json_object_is_type(arr, json_type_array))
		return find_by_id(arr, idfield, id);
	len = json_object_array_length(arr);
	for (i = 0; i < nix && !x; i++)
		if (st->ix[i].arr == arr && !strcmp(st->ix[i].idfield, idfield))
			x = &st->ix[i];
	for (i = 0; i < nix && !x; i++)
		if (!st->ix[i].arr)
			x = &st->ix[i];
	if (!x)
		return find_by_id(arr, idfield, id);
	if (x->arr != arr || x->n > len) {
		mdc_hash_clear(&x->h);
		x->arr = arr;
		x->idfield = idfield;
		x->n = 0;
	}
	if (index_list(&x->h, &x->n, arr, idfield)) {
		mdc_hash_clear(&x->h);
		x->arr = NULL;
		return find_by_id(arr, idfield, id);
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
		refuse(st, where, "%s", kctx.msg);
		return NULL;
	}
	return opt;
}

static bool check_id(struct plan_st *st, const char *where, const char *what, const char *id)
{
	struct mdc_ctx kctx;

	mdc_ctx_clear(&kctx);
	if (mdc_rules_check_id(what, id ? id : "", &kctx)) {
		refuse(st, where, "%s", kctx.msg);
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
		refuse(st, where, "%s", kctx.msg);
		return false;
	}
	return true;
}

/* ---- applying the ops to WANT ---------------------------------------- */

static json_object *want_part(struct plan_st *st, const struct mdc_op *op)
{
	json_object *parts = mdc_json_get_arr(slurm_spec(st->want), "partitions");
	int i = want_find(st, parts, "id", op->id);
	char ids[512];

	if (i < 0) {
		list_ids(parts, "id", ids, sizeof(ids));
		refuse(st, op->where, "partition '%s' does not exist (partitions: %s)", op->id, ids);
		return NULL;
	}
	return json_object_array_get_idx(parts, (size_t) i);
}

/* A compute pool named ID (the login pool has no Slurm nodes). */
static bool want_compute_pool(struct plan_st *st, const char *where, const char *subj, const char *id)
{
	json_object *pools = mdc_json_get_arr(st->want, "node_pools");
	const char *login = mdc_json_get_str(slurm_spec(st->want), "login_node_pool_id", NULL);
	char ids[512];

	if (want_find(st, pools, "id", id) < 0) {
		list_ids(pools, "id", ids, sizeof(ids));
		refuse(st, where, "%s: node pool '%s' does not exist (node pools: %s)", subj, id, ids);
		return false;
	}
	if (mdc_streq(login, id)) {
		refuse(st, where, "%s: node pool '%s' is the login pool, which has no Slurm nodes", subj, id);
		return false;
	}
	return true;
}

static int set_pool_ids(struct plan_st *st, const struct mdc_op *op, json_object *part,
			const char *subj)
{
	json_object *arr;

	if (op->list.n == 0) {
		refuse(st, op->where, "%s: give at least one node pool", subj);
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

	if (!opt)
		return 0;
	/* the same setting spelled differently (7-0 for 7-00:00:00, flags in
	 * another order) is no change: keep the spec's spelling (mdc_value.h) */
	if (set && map_key(map, op->key) &&
	    mdc_value_equal(opt->name, json_object_get_string(mdc_json_get(map, map_key(map, op->key))),
			    op->value ? op->value : ""))
		return 0;
	if (set)
		return map_set(map, op->key, opt->name, op->value ? op->value : "");
	if (!map_unset(map, op->key))
		warn(st, op->where, "%s: '%s' is not set: nothing to remove", subj, opt->name);
	return 0;
}

static int op_part_create(struct plan_st *st, const struct mdc_op *op)
{
	json_object *ss = slurm_spec(st->want), *parts, *part = NULL, *cfg;
	char subj[300];
	int rc = MDC_ERR_NOMEM;

	if (!check_id(st, op->where, "partition", op->id))
		return 0;
	snprintf(subj, sizeof(subj), "partition '%s'", op->id);
	if (!ss || !(parts = get_or_make(ss, "partitions", json_type_array)))
		return MDC_ERR_NOMEM;
	if (want_find(st, parts, "id", op->id) >= 0) {
		refuse(st, op->where, "%s already exists", subj);
		return 0;
	}
	if (!(part = json_object_new_object()) ||
	    mdc_json_set(part, "id", json_object_new_string(op->id)))
		goto out;
	if ((rc = set_pool_ids(st, op, part, subj)))
		goto out;
	rc = MDC_ERR_NOMEM;
	if (!(cfg = get_or_make(part, "config", json_type_object)))
		goto out;
	for (size_t i = 0; i < op->kv.n; i++) {
		struct mdc_op kv = { .kind = MDC_OP_PART_SET, .where = op->where };
		char *eq, *k = strdup(op->kv.v[i]);

		if (!k)
			goto out;
		if (!(eq = strchr(k, '='))) {
			refuse(st, op->where, "%s: '%s' is not KEY=VALUE", subj, k);
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
	json_object *ss = slurm_spec(st->want);
	json_object *parts = mdc_json_get_arr(ss, "partitions");
	const char *def = mdc_json_get_str(ss, "default_partition_id", NULL);
	const char *cur_def = mdc_json_get_str(slurm_spec(st->cur), "default_partition_id", NULL);

	if (!want_part(st, op))
		return 0;
	/* C6 is about the partition the cluster names now: moving the
	 * default away in the same update does not make removing it legal */
	if (mdc_streq(cur_def, op->id) && !mdc_streq(def, op->id)) {
		refuse(st, op->where, "partition '%s' is the default partition (default_partition_id): "
		       "the service rejects an update that removes or renames it; make '%s' the default "
		       "in a separate update first (mdcctl partition default %s), then remove '%s'",
		       op->id, def ? def : "another partition", def ? def : "ID", op->id);
		return 0;
	}
	if (mdc_streq(def, op->id)) {
		refuse(st, op->where, "partition '%s' is the default partition (default_partition_id): "
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
	if (!(sets = get_or_make(slurm_spec(st->want), "node_sets", json_type_array)))
		return MDC_ERR_NOMEM;
	i = want_find(st, sets, "node_pool_id", op->id);
	if (i < 0) {
		if (!set) {
			warn(st, op->where, "%s has no settings: nothing to remove", subj);
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
	if (!(cfg = get_or_make(ns, "config", json_type_object)))
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
		refuse(st, op->where, "node pool '%s' does not exist (node pools: %s)",
		       op->id ? op->id : "", ids);
		return NULL;
	}
	return json_object_array_get_idx(pools, (size_t) i);
}

/* Set an integer field unless it already holds that number (the API may
 * answer int64 fields as strings). */
static int set_count(json_object *obj, const char *field, int64_t n)
{
	json_object *v = mdc_json_get(obj, field);

	if (v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_string))) {
		const char *s = json_object_get_string(v);
		char *end;
		long long cur = strtoll(s, &end, 10);

		if (*s && !*end && cur == n)
			return 0;
	}
	return mdc_json_set(obj, field, json_object_new_int64(n));
}

static int op_pool_scale(struct plan_st *st, const struct mdc_op *op)
{
	json_object *pool = want_pool(st, op), *sc;

	if (!pool)
		return 0;
	{
		struct mdc_ctx kctx;

		mdc_ctx_clear(&kctx);
		if (mdc_rules_check_node_counts(op->id, (long long) op->min, (long long) op->max, &kctx)) {
			refuse(st, op->where, "%s", kctx.msg);
			return 0;
		}
	}
	if (!(sc = get_or_make(pool, "scaling_spec", json_type_object)))
		return MDC_ERR_NOMEM;
	if (set_count(sc, "min_node_count", op->min) || set_count(sc, "max_node_count", op->max))
		return MDC_ERR_NOMEM;
	return 0;
}

static int op_pool_image(struct plan_st *st, const struct mdc_op *op)
{
	json_object *pool = want_pool(st, op);

	if (!pool)
		return 0;
	if (op->value && mdc_has_ctrl(op->value)) {
		refuse(st, op->where, "node pool '%s': the image name contains a control character", op->id);
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
	json_object *arr = get_or_make(slurm_spec(st->want), field, json_type_array);
	const char *what = field[0] == 'p' ? "prolog" : "epilog";

	if (!arr)
		return MDC_ERR_NOMEM;
	switch (op->kind) {
	case MDC_OP_PROLOG_ADD:
	case MDC_OP_EPILOG_ADD:
		if (!op->value || !*op->value) {
			refuse(st, op->where, "%s script: empty script", what);
			return 0;
		}
		return json_object_array_add(arr, json_object_new_string(op->value)) ? MDC_ERR_NOMEM : 0;
	case MDC_OP_PROLOG_REMOVE:
	case MDC_OP_EPILOG_REMOVE:
		if (op->index < 0 || (size_t) op->index >= json_object_array_length(arr)) {
			refuse(st, op->where, "there is no %s script at index %ld (0-based; %zu script(s))",
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
		return mdc_json_set(slurm_spec(st->want), field, list);
	}
	}
}

static int op_label(struct plan_st *st, const struct mdc_op *op, bool set)
{
	json_object *labels = get_or_make(st->want, "labels", json_type_object);

	if (!labels)
		return MDC_ERR_NOMEM;
	if (!check_label(st, op->where, op->key, NULL))
		return 0;
	if (!set) {
		if (!json_object_object_get_ex(labels, op->key, NULL))
			warn(st, op->where, "label '%s' is not set: nothing to remove", op->key);
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
	json_object *ss = slurm_spec(st->want), *cfg;

	if (!ss)
		return MDC_ERR_NOMEM;
	if (is_empty(mdc_json_get(ss, "scheduling")) && is_empty(mdc_json_get(ss, "accounting"))) {
		warn(st, op->where, "no legacy 'scheduling'/'accounting' settings: the cluster already "
		     "uses 'config', nothing to migrate");
		return 0;
	}
	if (!(cfg = get_or_make(ss, "config", json_type_object)))
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
				refuse(st, op->where, "%s field '%s' has no slurm.conf equivalent: "
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
				refuse(st, op->where, "%s field '%s' is not a string or a number: "
				       "set it by hand with 'mdcctl config set'", legacy[l], k);
				continue;
			}
			if ((old = map_key(cfg, opt->name))) {
				if (!mdc_streq(json_object_get_string(mdc_json_get(cfg, old)), s))
					warn(st, op->where, "%s field '%s' (%s) is already in config as %s=%s: "
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

static int apply_op(struct plan_st *st, const struct mdc_op *op)
{
	json_object *ss = slurm_spec(st->want), *part;
	char subj[300];

	if (!ss)
		return MDC_ERR_NOMEM;
	switch (op->kind) {
	case MDC_OP_CONFIG_SET:
	case MDC_OP_CONFIG_UNSET: {
		json_object *cfg = get_or_make(ss, "config", json_type_object);

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
		if (!(part = get_or_make(part, "config", json_type_object)))
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
	case MDC_OP_KIND_MAX:
		break;
	}
	refuse(st, op->where, "unknown operation %d", (int) op->kind);
	return 0;
}

/* ---- the change list -------------------------------------------------- */

/* Display form of a value: strings as they are, scripts by first line. */
static char *show_value(const json_object *v)
{
	const char *s, *nl;

	if (!v || json_object_is_type(v, json_type_null))
		return NULL;
	s = json_object_is_type(v, json_type_string) ? json_object_get_string((json_object *) v)
						     : mdc_json_str(v, false);
	if ((nl = strchr(s, '\n')) && nl[1]) {
		char *r = malloc((size_t) (nl - s) + 8);

		if (r)
			sprintf(r, "%.*s ...", (int) (nl - s), s);
		return r;
	}
	return strndup(s, nl ? (size_t) (nl - s) : strlen(s));
}

static void add_change(struct plan_st *st, const char *scope, const char *key,
		       const json_object *oldv, const json_object *newv)
{
	struct mdc_plan *p = st->plan;
	struct mdc_change *c = realloc(p->changes, (p->nchanges + 1) * sizeof(*c));

	if (!c) {
		st->nomem = true;
		return;
	}
	p->changes = c;
	c = &p->changes[p->nchanges++];
	c->scope = strdup(scope);
	c->key = key ? strdup(key) : NULL;
	c->old_value = show_value(oldv);
	c->new_value = show_value(newv);
	if (!c->scope || (key && !c->key) || (oldv && !c->old_value) || (newv && !c->new_value))
		st->nomem = true;
}

static void diff_map(struct plan_st *st, const char *scope, json_object *a, json_object *b)
{
	/* json_object_object_foreach needs objects */
	if (a && !json_object_is_type(a, json_type_object))
		a = NULL;
	if (b && !json_object_is_type(b, json_type_object))
		b = NULL;
	if (a) {
		json_object_object_foreach(a, ka, va) {
			const char *kb = b ? map_key(b, ka) : NULL;
			json_object *vb = kb ? mdc_json_get(b, kb) : NULL;

			if (!kb || !mdc_json_equal(va, vb))
				add_change(st, scope, kb ? kb : ka, va, vb);
		}
	}
	if (b) {
		json_object_object_foreach(b, kb2, vb2) {
			if (!a || !map_key(a, kb2))
				add_change(st, scope, kb2, NULL, vb2);
		}
	}
}

/* One line for a whole list element ("node_pool_ids=a,b MaxTime=60"),
 * a new string object; NULL for NULL. */
static json_object *summary(json_object *e, const char *idfield)
{
	struct mdc_buf b = MDC_BUF_INIT;
	json_object *r;

	if (!e || !json_object_is_type(e, json_type_object))
		return e ? json_object_get(e) : NULL;
	json_object_object_foreach(e, k, v) {
		if (!strcmp(k, idfield))
			continue;
		if (json_object_is_type(v, json_type_object)) {
			json_object_object_foreach(v, ck, cv)
				mdc_buf_addf(&b, "%s%s=%s", b.len ? " " : "", ck, json_object_get_string(cv));
		} else if (json_object_is_type(v, json_type_array)) {
			mdc_buf_addf(&b, "%s%s=", b.len ? " " : "", k);
			for (size_t i = 0; i < json_object_array_length(v); i++)
				mdc_buf_addf(&b, "%s%s", i ? "," : "",
					     json_object_get_string(json_object_array_get_idx(v, i)));
		} else {
			mdc_buf_addf(&b, "%s%s=%s", b.len ? " " : "", k, json_object_get_string(v));
		}
	}
	r = json_object_new_string(b.len ? mdc_buf_str(&b) : "{}");
	mdc_buf_free(&b);
	return r;
}

static void add_elem_change(struct plan_st *st, const char *scope, const char *idfield,
			    json_object *a, json_object *b)
{
	json_object *sa = summary(a, idfield), *sb = summary(b, idfield);

	if ((a && !sa) || (b && !sb))
		st->nomem = true;
	else
		add_change(st, scope, NULL, sa, sb);
	json_object_put(sa);
	json_object_put(sb);
}

/* Lists of objects keyed by IDFIELD: FIELDS are compared one by one
 * ("config" as a map), anything else as a whole. */
static void diff_list(struct plan_st *st, const char *what, const char *idfield,
		      json_object *a, json_object *b)
{
	size_t na = a ? json_object_array_length(a) : 0, nb = b ? json_object_array_length(b) : 0;
	struct mdc_hash ha = MDC_HASH_INIT(MDC_HASH_EXACT), hb = MDC_HASH_INIT(MDC_HASH_EXACT);
	size_t ia = 0, ib = 0, jb;
	char scope[300];

	if (index_list(&ha, &ia, a, idfield) || index_list(&hb, &ib, b, idfield)) {
		st->nomem = true;
		goto out;
	}
	for (size_t i = 0; i < na; i++) {
		json_object *ea = json_object_array_get_idx(a, i), *eb;
		const char *id = mdc_json_get_str(ea, idfield, "?");

		snprintf(scope, sizeof(scope), "%s %s", what, id);
		if (!mdc_hash_get(&hb, id, &jb)) {
			add_elem_change(st, scope, idfield, ea, NULL);
			continue;
		}
		eb = json_object_array_get_idx(b, jb);
		if (!json_object_is_type(ea, json_type_object) || !json_object_is_type(eb, json_type_object)) {
			if (!mdc_json_equal(ea, eb))
				add_change(st, scope, NULL, ea, eb);
			continue;
		}
		json_object_object_foreach(ea, k, va) {
			json_object *vb = mdc_json_get(eb, k);

			if (!strcmp(k, "config"))
				diff_map(st, scope, va, vb);
			else if (strcmp(k, idfield) && !same_value(va, vb))
				add_change(st, scope, k, va, vb);
		}
		json_object_object_foreach(eb, k2, vb2) {
			if (!mdc_json_get(ea, k2) && !strcmp(k2, "config"))
				diff_map(st, scope, NULL, vb2);
			else if (!mdc_json_get(ea, k2) && !is_empty(vb2))
				add_change(st, scope, k2, NULL, vb2);
		}
	}
	for (size_t j = 0; j < nb; j++) {
		json_object *eb = json_object_array_get_idx(b, j);
		const char *id = mdc_json_get_str(eb, idfield, "?");

		if (!mdc_hash_get(&ha, id, NULL)) {
			snprintf(scope, sizeof(scope), "%s %s", what, id);
			add_elem_change(st, scope, idfield, NULL, eb);
		}
	}
out:
	mdc_hash_free(&ha);
	mdc_hash_free(&hb);
}

static void diff_scripts(struct plan_st *st, const char *scope, json_object *a, json_object *b)
{
	size_t na = a ? json_object_array_length(a) : 0, nb = b ? json_object_array_length(b) : 0;
	char key[32];

	for (size_t i = 0; i < na || i < nb; i++) {
		json_object *va = i < na ? json_object_array_get_idx(a, i) : NULL;
		json_object *vb = i < nb ? json_object_array_get_idx(b, i) : NULL;

		if (va && vb && mdc_json_equal(va, vb))
			continue;
		snprintf(key, sizeof(key), "#%zu", i);
		add_change(st, scope, key, va, vb);
	}
}

static void diff_path(struct plan_st *st, enum plan_path_id p)
{
	json_object *a = path_value(st->cur, p), *b = path_value(st->want, p);

	switch (p) {
	case PP_LABELS: diff_map(st, "labels", a, b); break;
	case PP_CONFIG: diff_map(st, "config", a, b); break;
	case PP_SCHEDULING: diff_map(st, "scheduling", a, b); break;
	case PP_ACCOUNTING: diff_map(st, "accounting", a, b); break;
	case PP_NODE_POOLS: diff_list(st, "node_pool", "id", a, b); break;
	case PP_PARTITIONS: diff_list(st, "partition", "id", a, b); break;
	case PP_NODE_SETS: diff_list(st, "nodeset", "node_pool_id", a, b); break;
	case PP_PROLOG: diff_scripts(st, "prolog", a, b); break;
	case PP_EPILOG: diff_scripts(st, "epilog", a, b); break;
	default:
		if (!same_value(a, b))
			add_change(st, "cluster", plan_paths[p].field, a, b);
	}
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
	if (service && n && !send[PP_NODE_POOLS]) {
		send[PP_NODE_POOLS] = true;
		warn(st, NULL, "update mode USER_AND_SERVICE: node_pools is sent too, each pool pinned "
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
			refuse(st, NULL, "node pool '%s' reports an empty node_image (cluster never updated), so "
			       "it cannot be pinned and USER_AND_SERVICE would move it to the current default "
			       "image, recreating its nodes: use --update-mode USER_ONLY, pin it "
			       "(mdcctl nodepool image %s --pin IMAGE) or pass --allow-recreate", id, id);
		else
			warn(st, NULL, "node pool '%s' reports an empty node_image (cluster never updated): it "
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
			refuse(st, NULL, "internal: mask path '%s' is not allowed by the API", plan_paths[i].path);
			continue;
		}
		if (mdc_strv_push(&p->mask, plan_paths[i].path))
			return MDC_ERR_NOMEM;
		/* absent from WANT = cleared (C2): named in the mask, not sent */
		if (!(v = path_value(st->want, (enum plan_path_id) i)))
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
		    !mdc_strv_has(&p->restart_keys, opt->name) && mdc_strv_push(&p->restart_keys, opt->name))
			st->nomem = true;
		if (mdc_startswith(c->scope, "node_pool ") && c->key && !strcmp(c->key, "scaling_spec") &&
		    mdc_strv_pushf(&p->restart_keys, "node count (%s)", c->scope + 10))
			st->nomem = true;
	}
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
		refuse(st, NULL, "the service would reject this update: %s", rctx.msg);
		return 0;
	}
	p->result = res.cluster;
	res.cluster = NULL;
	for (size_t i = 0; i < res.recreated.n; i++) {
		const char *id = res.recreated.v[i];
		json_object *cp = mdc_json_get(st->cur, "node_pools");
		int ci = find_by_id(cp, "id", id);
		const char *was = ci < 0 ? "" : mdc_json_get_str(json_object_array_get_idx(cp, (size_t) ci),
								  "node_image", "");

		if (mdc_strv_push(&p->recreate, id))
			st->nomem = true;
		/* a read cannot tell a pinned pool from one that reports its
		 * running image, nor which image is the default now: say what
		 * may happen and why, not what will */
		if (st->opts->allow_recreate && !*was)
			warn(st, NULL, "node pool '%s' may move to the current default image: it reports no "
			     "image (cluster never updated) and the service resolves unpinned pools; its "
			     "nodes would then be recreated (a login node loses its SSH sessions and boot "
			     "disk)", id);
		else if (st->opts->allow_recreate)
			warn(st, NULL, "node pool '%s' may move from image '%s' to the current default image: "
			     "the service does so unless the pool is pinned, which a read cannot tell; its "
			     "nodes would then be recreated (a login node loses its SSH sessions and boot "
			     "disk)", id, was);
		else if (mdc_strv_has(&st->pinned, id))
			/* the user asked for that image: the way out is consent */
			refuse(st, NULL, "node pool '%s' would move to another image, recreating its nodes "
			       "(a login node loses its SSH sessions and boot disk): pass --allow-recreate "
			       "to do it", id);
		else
			refuse(st, NULL, "node pool '%s' would move to another image, recreating its nodes: "
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
	json_object *ss = slurm_spec(st->want);

	if (!st->config_touched || st->force[PP_CONFIG])
		return;
	if (!is_empty(mdc_json_get(ss, "scheduling")) || !is_empty(mdc_json_get(ss, "accounting")))
		refuse(st, NULL, "this cluster still uses the legacy 'scheduling'/'accounting' fields and a "
		       "request that sets 'config' too is rejected by the service: run 'mdcctl migrate-config' first");
}

/* The service's own key checks on every map that is sent. */
static void check_maps(struct plan_st *st, const bool *send)
{
	json_object *ss = slurm_spec(st->want);
	struct mdc_ctx kctx;
	char where[300];

	if (send[PP_CONFIG] && mdc_json_get_obj(ss, "config")) {
		mdc_ctx_clear(&kctx);
		if (mdc_rules_check_config_map(mdc_json_get_obj(ss, "config"), SC_SCOPE_CLUSTER, "config", &kctx))
			refuse(st, NULL, "%s", kctx.msg);
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
				refuse(st, NULL, "%s", kctx.msg);
		}
	}
}

/* Partitions the plan removes (deleted, or renamed: a rename is a removal
 * plus a creation) must not take queued or running jobs with them in
 * silence: slurmctld ends them (NODE_FAIL) at the next regeneration. */
static void removed_partitions_check(struct plan_st *st)
{
	json_object *cur = mdc_json_get_arr(slurm_spec(st->cur), "partitions");
	json_object *want = mdc_json_get_arr(slurm_spec(st->want), "partitions");
	size_t n = cur ? json_object_array_length(cur) : 0;

	if (!st->opts->partition_jobs)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *id = mdc_json_get_str(json_object_array_get_idx(cur, i), "id", NULL);
		struct mdc_strv jobs = MDC_STRV_INIT;
		struct mdc_ctx jctx;
		char *list;
		bool kept = false;

		for (size_t k = 0; id && want && k < json_object_array_length(want); k++)
			kept |= mdc_streq(mdc_json_get_str(json_object_array_get_idx(want, k), "id", NULL), id);
		if (!id || kept)
			continue;
		mdc_ctx_clear(&jctx);
		if (st->opts->partition_jobs(id, &jobs, st->opts->partition_jobs_arg, &jctx)) {
			warn(st, NULL, "partition '%s' is removed, and whether jobs are still in it is "
			     "unknown (%s): check with squeue -p %s", id, jctx.msg, id);
		} else if (jobs.n && !(list = mdc_strv_join(&jobs, ", "))) {
			st->nomem = true;
		} else if (jobs.n) {
			if (st->opts->force)
				warn(st, NULL, "partition '%s' is removed with its jobs %s (--force): "
				     "slurmctld ends them at the next regeneration", id, list);
			else
				refuse(st, NULL, "partition '%s' still holds jobs %s: removing or renaming it "
				       "ends them; let them finish (scontrol update PartitionName=%s "
				       "State=DRAIN stops new ones), move them (scontrol update JobId=ID "
				       "Partition=OTHER), or give --force", id, list, id);
			free(list);
		}
		mdc_strv_free(&jobs);
	}
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
	if (!st.cur || !st.want || !slurm_spec(st.want)) {
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; in && i < in->refusals.n; i++)
		refuse(&st, NULL, "%s", in->refusals.v[i]);
	for (size_t i = 0; in && i < in->n; i++)
		if ((rc = apply_op(&st, &in->ops[i])))
			goto out;
	legacy_check(&st);
	removed_partitions_check(&st);

	for (int i = 0; i < PP_MAX; i++)
		send[i] = st.force[i] ||
			  !same_value(path_value(st.cur, (enum plan_path_id) i),
				      path_value(st.want, (enum plan_path_id) i));
	if (!plan->refusals.n)
		check_maps(&st, send);
	pin_images(&st, send);
	for (int i = 0; i < PP_MAX; i++)
		if (send[i] || st.opts->no_mask)
			diff_path(&st, (enum plan_path_id) i);
	restart_keys(&st);
	if ((rc = build_payload(&st, send)))
		goto out;
	if (st.opts->no_mask && plan->nchanges)
		warn(&st, NULL, "no updateMask: the service diffs the whole payload against the cluster "
		     "and clears anything it omits");
	if (!plan->refusals.n && (plan->mask.n || (st.opts->no_mask && plan->nchanges)))
		if ((rc = predict(&st)))
			goto out;
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

/* ---- the service-managed base of a live slurm.conf -------------------- */

/* Length of the key at the start of S ("NodeName" of "NodeName=a ..."). */
static size_t key_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != '=' && s[n] != ' ' && s[n] != '\t' && s[n] != '#')
		n++;
	return n;
}

static bool key_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !strncasecmp(s, word, n);
}

/* Is KEY (N bytes) set by some node set's config in CLUSTER? */
static bool nodeset_key(const json_object *cluster, const char *key, size_t n)
{
	json_object *sets = mdc_json_get_path(cluster, SLURM_SPEC ".node_sets");
	size_t ns = sets && json_object_is_type(sets, json_type_array) ? json_object_array_length(sets) : 0;
	char k[128];

	if (n >= sizeof(k))
		return false;
	memcpy(k, key, n);
	k[n] = '\0';
	for (size_t i = 0; i < ns; i++) {
		json_object *cfg = mdc_json_get_obj(json_object_array_get_idx(sets, i), "config");

		if (cfg && map_key(cfg, k))
			return true;
	}
	return false;
}

/* Does CLUSTER's config (or a legacy map, C9) set KEY? */
static bool spec_sets(const json_object *cluster, const char *key)
{
	static const char *const maps[] = { "config", "scheduling", "accounting" };
	json_object *ss = mdc_json_get_path(cluster, SLURM_SPEC);

	for (size_t i = 0; i < 3; i++) {
		json_object *m = mdc_json_get_obj(ss, maps[i]);

		if (m && map_key(m, key))
			return true;
	}
	return false;
}

/* A NodeName line without the node_sets keys (words split on blanks
 * outside double quotes; a comment ends the line). */
static int put_node_line(struct mdc_buf *out, const char *line, size_t len,
			 const json_object *cluster)
{
	size_t i = 0;
	bool first = true;

	while (i < len) {
		size_t start, klen;
		bool quote = false;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i >= len || line[i] == '#')
			break;
		start = i;
		while (i < len && (quote || (line[i] != ' ' && line[i] != '\t'))) {
			if (line[i] == '"')
				quote = !quote;
			i++;
		}
		klen = key_len(line + start);
		if (!first && klen && nodeset_key(cluster, line + start, klen))
			continue;
		if ((!first && mdc_buf_addc(out, ' ')) || mdc_buf_add(out, line + start, i - start))
			return MDC_ERR_NOMEM;
		first = false;
	}
	return mdc_buf_addc(out, '\n');
}

int mdc_plan_base(const char *live, const json_object *cluster, char **base,
		  struct mdc_ctx *ctx)
{
	static const char *const keep[] = { "NodeSet", "DownNodes", "FrontendName", "Include", NULL };
	struct mdc_buf out = MDC_BUF_INIT;
	const char *line, *eol;
	bool spec_part = false;
	int rc = 0;

	*base = NULL;
	for (line = live ? live : ""; *line && !rc; line = *eol ? eol + 1 : eol) {
		const char *s = line;
		size_t len, klen;
		const struct sc_option *opt;
		char key[128];
		bool kept = false;

		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		while (s < eol && (*s == ' ' || *s == '\t'))
			s++;
		len = (size_t) (eol - s);
		if (len && s[len - 1] == '\r')
			len--;
		klen = key_len(s);
		if (!klen || klen >= sizeof(key) || klen > len)
			continue;	/* blank or comment */
		if (key_is(s, klen, "PartitionName")) {
			spec_part = true;
			continue;	/* the spec's partitions replace them */
		}
		if (key_is(s, klen, "NodeName")) {
			rc = put_node_line(&out, s, len, cluster);
			continue;
		}
		for (size_t i = 0; keep[i]; i++)
			kept |= key_is(s, klen, keep[i]);
		memcpy(key, s, klen);
		key[klen] = '\0';
		/* a global line is the service's unless the spec sets that key
		 * (the service writes plugins and defaults the spec never names)
		 * or it comes after the part the spec renders: the service writes
		 * its own lines first, so a line there was added by hand */
		if (!kept) {
			bool set = spec_sets(cluster, key), managed;

			opt = sc_opt_find(key, SC_SCOPE_CLUSTER);
			managed = opt && (opt->flags & SC_OPT_MANAGED);
			kept = !spec_part && (!set || managed);
			spec_part |= set && !managed;
		}
		if (kept && (mdc_buf_add(&out, s, len) || mdc_buf_addc(&out, '\n')))
			rc = MDC_ERR_NOMEM;
	}
	if (!rc && !(*base = mdc_buf_release(&out)))
		*base = strdup("");
	if (rc || !*base) {
		mdc_buf_free(&out);
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	}
	return 0;
}

int mdc_plan_op_recreated(const json_object *op, struct mdc_strv *pools)
{
	const json_object *meta = mdc_json_get_obj(mdc_json_get(op, "metadata"), "generic_metadata");
	const char *since = mdc_json_get_str(meta, "create_time", "");
	json_object *events = mdc_json_get_arr(mdc_json_get(op, "response"), "cluster_events");

	for (size_t i = 0; events && i < json_object_array_length(events); i++) {
		json_object *ev = json_object_array_get_idx(events, i);
		const char *id = mdc_json_get_str(ev, "node_pool_id", "");

		/* RFC 3339 UTC times of one writer compare as strings */
		if (strcmp(mdc_json_get_str(ev, "event_type", ""), "VM_DELETION") || !*id ||
		    strcmp(mdc_json_get_str(ev, "event_time", ""), since) < 0 || mdc_strv_has(pools, id))
			continue;
		if (mdc_strv_push(pools, id))
			return MDC_ERR_NOMEM;
	}
	return 0;
}
