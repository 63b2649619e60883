/* mdc_pr.c - the persistent resource model: ids and names, pools, labels,
 * the --config file, the create body and UpdatePersistentResource's rules.
 * See mdc_pr.h. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_pr.h"
#include "mdc_pr_int.h"
#include "mdc_pr_yaml.h"

#define PR_ID_MAX 63

/* AcceleratorType values of machine_resources.proto / accelerator_type.proto */
static const char *const pr_accelerators[] = {
	"NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100", "NVIDIA_TESLA_V100", "NVIDIA_TESLA_P4",
	"NVIDIA_TESLA_T4", "NVIDIA_TESLA_A100", "NVIDIA_A100_80GB", "NVIDIA_L4",
	"NVIDIA_H100_80GB", "NVIDIA_H100_MEGA_80GB", "NVIDIA_H200_141GB", "NVIDIA_B200",
	"NVIDIA_GB200", "NVIDIA_RTX_PRO_6000", "TPU_V2", "TPU_V3", "TPU_V4_POD",
	"TPU_V5_LITEPOD", NULL,
};

/* A new reference to a borrowed, const JSON value. */
static json_object *pr_ref(const json_object *v)
{
	return json_object_get((json_object *) v);
}

/* --- ids and names ------------------------------------------------------ */

int mdc_pr_check_id(const char *id, struct mdc_ctx *ctx)
{
	size_t n = id ? strlen(id) : 0;

	if (n == 0)
		return mdc_fail(ctx, MDC_ERR_INVAL, "persistent resource id is empty: "
				"give lowercase letters, digits and hyphens, starting with a letter");
	if (n > PR_ID_MAX)
		return mdc_fail(ctx, MDC_ERR_INVAL, "persistent resource id '%s' is longer "
				"than %d characters", id, PR_ID_MAX);
	if (!(id[0] >= 'a' && id[0] <= 'z'))
		return mdc_fail(ctx, MDC_ERR_INVAL, "persistent resource id '%s' must start "
				"with a lowercase letter", id);
	for (size_t i = 0; i < n; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9') ||
		      id[i] == '-'))
			return mdc_fail(ctx, MDC_ERR_INVAL, "persistent resource id '%s' may "
					"contain only lowercase letters, digits and hyphens "
					"(found '%c')", id, id[i]);
	if (id[n - 1] == '-')
		return mdc_fail(ctx, MDC_ERR_INVAL, "persistent resource id '%s' must end "
				"with a letter or a digit", id);
	return 0;
}


const char *mdc_pr_basename(const char *name)
{
	const char *s = name ? strrchr(name, '/') : NULL;

	return s ? s + 1 : (name ? name : "");
}

int mdc_pr_resource_name(const char *project, const char *region, const char *name_or_id,
			 char **out, struct mdc_ctx *ctx)
{
	struct mdc_strv parts = MDC_STRV_INIT;
	int rc = 0;

	*out = NULL;
	if (!name_or_id || !*name_or_id)
		return mdc_fail(ctx, MDC_ERR_USAGE, "no persistent resource given: "
				"pass its id or full name");
	if (strchr(name_or_id, '/')) {
		if (mdc_strv_split(&parts, name_or_id, "/")) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		if (parts.n != 6 || strcmp(parts.v[0], "projects") ||
		    strcmp(parts.v[2], "locations") || strcmp(parts.v[4], "persistentResources") ||
		    name_or_id[0] == '/' || name_or_id[strlen(name_or_id) - 1] == '/') {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "persistent resource '%s': expected "
				      "projects/P/locations/L/persistentResources/ID", name_or_id);
			goto out;
		}
		if ((rc = mdc_pr_check_id(parts.v[5], ctx)))
			goto out;
		*out = strdup(name_or_id);
	} else {
		if ((rc = mdc_pr_check_id(name_or_id, ctx)))
			goto out;
		if (!project || !*project || !region || !*region) {
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "persistent resource '%s': give "
				      "--project and --region, or its full name", name_or_id);
			goto out;
		}
		*out = mdc_pr_strdupf("projects/%s/locations/%s/persistentResources/%s",
				  project, region, name_or_id);
	}
	if (!*out)
		rc = mdc_nomem(ctx);
out:
	mdc_strv_free(&parts);
	return rc;
}


/* --- numbers ------------------------------------------------------------ */

/* A count in JSON: an integer, or a string of digits (proto3 JSON sends
 * int64 as a string, and the Node client does).  *PRESENT false if absent. */
static int pr_get_count(const json_object *obj, const char *key, const char *what,
			bool *present, int64_t *v, struct mdc_ctx *ctx)
{
	json_object *j = mdc_json_get(obj, key);

	*present = false;
	if (!j)
		return 0;
	*present = true;
	if (json_object_is_type(j, json_type_int)) {
		*v = json_object_get_int64(j);
		return 0;
	}
	if (json_object_is_type(j, json_type_string) &&
	    mdc_pr_parse_int(json_object_get_string(j), INT64_MIN, INT64_MAX, v))
		return 0;
	return mdc_fail(ctx, MDC_ERR_INVAL, "%s: '%s' must be an integer", what, key);
}

/* --- resource pools ----------------------------------------------------- */

/* "nvidia-tesla-t4" or "NVIDIA_TESLA_T4" -> the enum name (static). */
static const char *pr_accelerator(const char *s)
{
	char up[64];
	size_t i;

	for (i = 0; s[i] && i < sizeof(up) - 1; i++)
		up[i] = s[i] == '-' ? '_' : (char) toupper((unsigned char) s[i]);
	up[i] = '\0';
	for (i = 0; pr_accelerators[i]; i++)
		if (!strcmp(up, pr_accelerators[i]))
			return pr_accelerators[i];
	return NULL;
}

static int pr_accelerator_fail(const char *what, const char *val, struct mdc_ctx *ctx)
{
	struct mdc_buf b = MDC_BUF_INIT;
	int rc;

	for (size_t i = 0; pr_accelerators[i]; i++)
		mdc_buf_addf(&b, "%s%s", i ? ", " : "", pr_accelerators[i]);
	rc = mdc_fail(ctx, MDC_ERR_INVAL, "%s: unknown accelerator type '%s' (one of: %s)",
		      what, val, mdc_buf_str(&b));
	mdc_buf_free(&b);
	return rc;
}

enum pr_spec_type { PR_SPEC_INT, PR_SPEC_STR, PR_SPEC_ACCEL };

/* gcloud's --resource-pool-spec keys and where each lands in the pool */
static const struct pr_spec_key {
	const char *key;
	const char *parent;	/* NULL = the pool itself */
	const char *field;
	enum pr_spec_type type;
} pr_spec_keys[] = {
	{ "accelerator-count", "machine_spec", "accelerator_count", PR_SPEC_INT },
	{ "accelerator-type", "machine_spec", "accelerator_type", PR_SPEC_ACCEL },
	{ "disk-size", "disk_spec", "boot_disk_size_gb", PR_SPEC_INT },
	{ "disk-type", "disk_spec", "boot_disk_type", PR_SPEC_STR },
	{ "id", NULL, "id", PR_SPEC_STR },
	{ "machine-type", "machine_spec", "machine_type", PR_SPEC_STR },
	{ "max-replica-count", "autoscaling_spec", "max_replica_count", PR_SPEC_INT },
	{ "min-replica-count", "autoscaling_spec", "min_replica_count", PR_SPEC_INT },
	{ "replica-count", NULL, "replica_count", PR_SPEC_INT },
};
#define PR_NSPEC (sizeof(pr_spec_keys) / sizeof(pr_spec_keys[0]))

static const struct pr_spec_key *pr_spec_find(const char *key)
{
	for (size_t i = 0; i < PR_NSPEC; i++)
		if (!strcmp(key, pr_spec_keys[i].key))
			return &pr_spec_keys[i];
	return NULL;
}

/* KEY=V of a --resource-pool-spec as the JSON value of SK's field;
 * *VAL NULL only on ENOMEM (the caller says so). */
static int pr_spec_value(const struct pr_spec_key *sk, const char *k, const char *v,
			 json_object **val, struct mdc_ctx *ctx)
{
	const char *a;
	int64_t n;

	switch (sk->type) {
	case PR_SPEC_INT:
		if (!mdc_pr_parse_int(v, 0, INT32_MAX, &n))
			return mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec: %s='%s' is not "
					"a non-negative integer", k, v);
		*val = json_object_new_int64(n);
		return 0;
	case PR_SPEC_ACCEL:
		if (!(a = pr_accelerator(v)))
			return pr_accelerator_fail("--resource-pool-spec", v, ctx);
		*val = json_object_new_string(a);
		return 0;
	default:
		*val = json_object_new_string(v);
		return 0;
	}
}

int mdc_pr_pool_from_spec(const char *spec, json_object **out, struct mdc_ctx *ctx)
{
	struct mdc_strv items = MDC_STRV_INIT, seen = MDC_STRV_INIT;
	json_object *pool = NULL, *parent, *val = NULL;
	struct mdc_buf keys = MDC_BUF_INIT;
	int rc = 0;

	*out = NULL;
	if (mdc_strv_split(&items, spec ? spec : "", ",") ||
	    !(pool = json_object_new_object())) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if (items.n == 0) {
		rc = mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec is empty: give "
			      "machine-type=T and replica-count=N (or min/max-replica-count)");
		goto out;
	}
	for (size_t i = 0; i < items.n; i++) {
		char *k = items.v[i], *v = strchr(k, '=');
		const struct pr_spec_key *sk;

		if (v)
			*v++ = '\0';
		mdc_trim(k);
		if (!(sk = pr_spec_find(k))) {
			const char *hint = NULL;
			size_t best = 3;	/* a typo: two edits at most */

			for (size_t j = 0; j < PR_NSPEC; j++) {
				const char *c = pr_spec_keys[j].key;
				size_t d = mdc_str_distance(k, strlen(k), c, strlen(c));

				mdc_buf_addf(&keys, "%s%s", j ? ", " : "", c);
				if (d < best) {
					best = d;
					hint = c;
				}
			}
			if (hint)
				rc = mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec: unknown key "
					      "'%s' (did you mean '%s'?)", k, hint);
			else
				rc = mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec: unknown key "
					      "'%s' (valid keys: %s)", k, mdc_buf_str(&keys));
			goto out;
		}
		if (!v || !*mdc_trim(v)) {
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec: '%s' needs a "
				      "value ('%s=...')", k, k);
			goto out;
		}
		if (mdc_strv_has(&seen, k)) {
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec: '%s' given "
				      "twice", k);
			goto out;
		}
		if (mdc_strv_push(&seen, k)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		if ((rc = pr_spec_value(sk, k, v, &val, ctx)))
			goto out;
		parent = sk->parent ? mdc_json_mkpath(pool, sk->parent) : pool;
		if (!val || !parent || mdc_json_set(parent, sk->field, val)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
	/* gcloud: an accelerator type alone means one accelerator per replica */
	parent = mdc_json_get_obj(pool, "machine_spec");
	if (parent && mdc_json_get(parent, "accelerator_type") &&
	    !mdc_json_get(parent, "accelerator_count") &&
	    mdc_json_set(parent, "accelerator_count", json_object_new_int(1))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	*out = pool;
	pool = NULL;
out:
	json_object_put(pool);
	mdc_strv_free(&items);
	mdc_strv_free(&seen);
	mdc_buf_free(&keys);
	return rc;
}

int mdc_pr_check_pool(const json_object *pool, size_t idx, struct mdc_ctx *ctx)
{
	json_object *ms, *as, *ds;
	const char *id, *mt, *at;
	bool has_rc, has_min, has_max, has_ac, has_ds;
	int64_t rcount = 0, min = 0, max = 0, ac = 0, dsize = 0;
	char what[96];
	int rc;

	if (!json_object_is_type(pool, json_type_object))
		return mdc_fail(ctx, MDC_ERR_INVAL, "resource pool %zu is not an object", idx + 1);
	id = mdc_json_get_str(pool, "id", NULL);
	if (id && *id)
		snprintf(what, sizeof(what), "resource pool '%.64s'", id);
	else
		snprintf(what, sizeof(what), "resource pool %zu", idx + 1);
	ms = mdc_json_get_obj(pool, "machine_spec");
	mt = ms ? mdc_json_get_str(ms, "machine_type", NULL) : NULL;
	if (!mt || !*mt)
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s: no machine type: add machine-type=TYPE "
				"(machineSpec.machineType)", what);
	if ((rc = pr_get_count(pool, "replica_count", what, &has_rc, &rcount, ctx)))
		return rc;
	as = mdc_json_get_obj(pool, "autoscaling_spec");
	if ((rc = pr_get_count(as, "min_replica_count", what, &has_min, &min, ctx)) ||
	    (rc = pr_get_count(as, "max_replica_count", what, &has_max, &max, ctx)))
		return rc;
	if (has_min != has_max)
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s: %s given without %s: autoscaling "
				"needs both min-replica-count and max-replica-count", what,
				has_min ? "min-replica-count" : "max-replica-count",
				has_min ? "max-replica-count" : "min-replica-count");
	if (!has_rc && !has_min)
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s: give replica-count, or both "
				"min-replica-count and max-replica-count for autoscaling", what);
	if (has_rc && rcount < 1)
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s: replica-count must be at least 1 "
				"(got %" PRId64 ")", what, rcount);
	if (has_min && (min < 1 || max < min))
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s: need 1 <= min-replica-count <= "
				"max-replica-count (got %" PRId64 " and %" PRId64 ")",
				what, min, max);
	if ((rc = pr_get_count(ms, "accelerator_count", what, &has_ac, &ac, ctx)))
		return rc;
	at = mdc_json_get_str(ms, "accelerator_type", NULL);
	if (at && strcmp(at, "ACCELERATOR_TYPE_UNSPECIFIED") && !pr_accelerator(at))
		return pr_accelerator_fail(what, at, ctx);
	if (has_ac && ac > 0 && (!at || !strcmp(at, "ACCELERATOR_TYPE_UNSPECIFIED")))
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s: accelerator-count needs "
				"accelerator-type", what);
	ds = mdc_json_get_obj(pool, "disk_spec");
	if ((rc = pr_get_count(ds, "boot_disk_size_gb", what, &has_ds, &dsize, ctx)))
		return rc;
	if (has_ds && !mdc_json_get_str(ds, "boot_disk_type", NULL))
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s: disk-size needs disk-type "
				"(diskSpec.bootDiskType)", what);
	return 0;
}

/* --- labels -------------------------------------------------------------- */

static bool pr_label_chars(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_'))
			return false;
	return true;
}

static int pr_check_label(const char *k, const char *v, struct mdc_ctx *ctx)
{
	if (!*k || strlen(k) > 63 || !(k[0] >= 'a' && k[0] <= 'z') || !pr_label_chars(k))
		return mdc_fail(ctx, MDC_ERR_INVAL, "label key '%s': use up to 63 lowercase "
				"letters, digits, '-' and '_', starting with a letter", k);
	if (strlen(v) > 63 || !pr_label_chars(v))
		return mdc_fail(ctx, MDC_ERR_INVAL, "label '%s' value '%s': use up to 63 "
				"lowercase letters, digits, '-' and '_'", k, v);
	return 0;
}

int mdc_pr_labels_add(json_object *labels, const char *spec, struct mdc_ctx *ctx)
{
	struct mdc_strv items = MDC_STRV_INIT;
	int rc = 0;

	if (mdc_strv_split(&items, spec ? spec : "", ",")) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < items.n; i++) {
		char *k = items.v[i], *v = strchr(k, '=');

		if (!v) {
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "--labels: '%s' is not KEY=VALUE", k);
			goto out;
		}
		*v++ = '\0';
		mdc_trim(k);
		mdc_trim(v);
		if ((rc = pr_check_label(k, v, ctx)))
			goto out;
		/* label keys are data: set exactly, not through mdc_json_set */
		if (json_object_object_add(labels, k, json_object_new_string(v))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
out:
	mdc_strv_free(&items);
	return rc;
}

int mdc_pr_check_resource(const json_object *res, struct mdc_ctx *ctx)
{
	json_object *pools, *labels;
	const char *dn;
	size_t n;
	int rc;

	if (!json_object_is_type(res, json_type_object))
		return mdc_fail(ctx, MDC_ERR_INVAL, "persistent resource is not a JSON object");
	pools = mdc_json_get_arr(res, "resource_pools");
	n = pools ? json_object_array_length(pools) : 0;
	if (n == 0)
		return mdc_fail(ctx, MDC_ERR_INVAL, "no resource pool: add --resource-pool-spec "
				"or resourcePools in --config");
	for (size_t i = 0; i < n; i++)
		if ((rc = mdc_pr_check_pool(json_object_array_get_idx(pools, i), i, ctx)))
			return rc;
	/* two pools with the same id would be one pool to the service */
	for (size_t i = 0; i < n; i++) {
		const char *a = mdc_json_get_str(json_object_array_get_idx(pools, i), "id", NULL);

		for (size_t j = i + 1; a && *a && j < n; j++)
			if (mdc_streq(a, mdc_json_get_str(json_object_array_get_idx(pools, j),
							  "id", NULL)))
				return mdc_fail(ctx, MDC_ERR_INVAL, "resource pool id '%s' is "
						"used twice", a);
	}
	dn = mdc_json_get_str(res, "display_name", NULL);
	if (dn && strlen(dn) > 128)
		return mdc_fail(ctx, MDC_ERR_INVAL, "display name is longer than 128 characters");
	if ((labels = mdc_json_get_obj(res, "labels"))) {
		json_object_object_foreach(labels, k, v) {
			if (!json_object_is_type(v, json_type_string))
				return mdc_fail(ctx, MDC_ERR_INVAL, "label '%s': value must be "
						"a string", k);
			if ((rc = pr_check_label(k, json_object_get_string(v), ctx)))
				return rc;
		}
	}
	return 0;
}

/* --- --config ------------------------------------------------------------ */

enum pr_ftype { F_STR, F_INT, F_BOOL, F_MSG, F_MAP, F_POOLS, F_LIST_STR, F_ACCEL };

struct pr_field {
	const char *name;		/* camelCase, as the file must spell it */
	enum pr_ftype type;
	const struct pr_field *sub;	/* F_MSG, F_POOLS */
};

static const struct pr_field pr_f_machine[] = {
	{ "machineType", F_STR, NULL },
	{ "acceleratorType", F_ACCEL, NULL },
	{ "acceleratorCount", F_INT, NULL },
	{ NULL, F_STR, NULL },
};
static const struct pr_field pr_f_disk[] = {
	{ "bootDiskType", F_STR, NULL },
	{ "bootDiskSizeGb", F_INT, NULL },
	{ NULL, F_STR, NULL },
};
static const struct pr_field pr_f_autoscaling[] = {
	{ "minReplicaCount", F_INT, NULL },
	{ "maxReplicaCount", F_INT, NULL },
	{ NULL, F_STR, NULL },
};
static const struct pr_field pr_f_pool[] = {
	{ "id", F_STR, NULL },
	{ "machineSpec", F_MSG, pr_f_machine },
	{ "replicaCount", F_INT, NULL },
	{ "diskSpec", F_MSG, pr_f_disk },
	{ "autoscalingSpec", F_MSG, pr_f_autoscaling },
	{ NULL, F_STR, NULL },
};
static const struct pr_field pr_f_sa[] = {
	{ "enableCustomServiceAccount", F_BOOL, NULL },
	{ "serviceAccount", F_STR, NULL },
	{ NULL, F_STR, NULL },
};
static const struct pr_field pr_f_runtime[] = {
	{ "serviceAccountSpec", F_MSG, pr_f_sa },
	{ NULL, F_STR, NULL },
};
static const struct pr_field pr_f_resource[] = {
	{ "displayName", F_STR, NULL },
	{ "resourcePools", F_POOLS, pr_f_pool },
	{ "resourcePoolSpecs", F_POOLS, pr_f_pool },	/* the docs' spelling */
	{ "labels", F_MAP, NULL },
	{ "network", F_STR, NULL },
	{ "resourceRuntimeSpec", F_MSG, pr_f_runtime },
	{ "reservedIpRanges", F_LIST_STR, NULL },
	{ NULL, F_STR, NULL },
};

struct pr_conf {
	const char *path;
	struct mdc_ctx *ctx;
};

static int pr_conf_msg(struct pr_conf *c, const json_object *in, const struct pr_field *fields,
		       const char *where, json_object **out);

static int pr_conf_badtype(struct pr_conf *c, const char *where, enum pr_ftype type)
{
	static const char *const tnames[] = {
		[F_STR] = "a string", [F_INT] = "a non-negative integer", [F_BOOL] = "true or false",
		[F_MSG] = "a mapping", [F_MAP] = "a mapping of strings",
		[F_POOLS] = "a list of resource pools", [F_LIST_STR] = "a list of strings",
		[F_ACCEL] = "an accelerator type",
	};

	return mdc_fail(c->ctx, MDC_ERR_INVAL, "'%s': '%s' must be %s", c->path, where,
			tnames[type]);
}

/* F_MAP: scalar values become strings (label values such as 1 or true are
 * strings to the API). */
static int pr_conf_map(struct pr_conf *c, const json_object *v, const char *where,
		       json_object **out)
{
	json_object *o;

	if (!json_object_is_type(v, json_type_object))
		return pr_conf_badtype(c, where, F_MAP);
	if (!(*out = o = json_object_new_object()))
		return mdc_nomem(c->ctx);
	json_object_object_foreach((json_object *) v, k, mv) {
		if (json_object_is_type(mv, json_type_object) ||
		    json_object_is_type(mv, json_type_array) || !mv)
			return pr_conf_badtype(c, where, F_MAP);
		if (json_object_object_add(o, k, json_object_new_string(
						   json_object_get_string((json_object *) mv))))
			return mdc_nomem(c->ctx);
	}
	return 0;
}

/* F_POOLS: a list of pools, or one pool written as a mapping (the docs'
 * example).  *OUT is set even on error (the caller puts it). */
static int pr_conf_pools(struct pr_conf *c, const json_object *v, const struct pr_field *f,
			 const char *where, json_object **out)
{
	bool one = json_object_is_type(v, json_type_object);
	json_object *o, *item = NULL;
	size_t n;
	char sub[300];
	int rc;

	if (!(*out = o = json_object_new_array()))
		return mdc_nomem(c->ctx);
	if (!one && !json_object_is_type(v, json_type_array))
		return pr_conf_badtype(c, where, F_POOLS);
	n = one ? 1 : json_object_array_length(v);
	for (size_t i = 0; i < n; i++) {
		json_object *p = one ? (json_object *) v : json_object_array_get_idx(v, i);

		if (one)
			snprintf(sub, sizeof(sub), "%.250s", where);
		else
			snprintf(sub, sizeof(sub), "%.250s[%zu]", where, i);
		if (!json_object_is_type(p, json_type_object))
			return mdc_fail(c->ctx, MDC_ERR_INVAL, "'%s': '%s' must be a mapping",
					c->path, sub);
		if ((rc = pr_conf_msg(c, p, f->sub, sub, &item)))
			return rc;
		if (json_object_array_add(o, item)) {
			json_object_put(item);
			return mdc_nomem(c->ctx);
		}
	}
	return 0;
}

/* F_ACCEL: an AcceleratorType name, any case */
static int pr_conf_accel(struct pr_conf *c, const json_object *v, const char *where,
			 json_object **out)
{
	const char *sv = json_object_get_string((json_object *) v), *a;
	int rc;

	if (!json_object_is_type(v, json_type_string))
		return pr_conf_badtype(c, where, F_ACCEL);
	if (!(a = pr_accelerator(sv))) {
		rc = pr_accelerator_fail(where, sv, c->ctx);
		mdc_ctx_prefix(c->ctx, "'%s'", c->path);
		return rc;
	}
	if (!(*out = json_object_new_string(a)))
		return mdc_nomem(c->ctx);
	return 0;
}

/* Scalars and string lists kept as they are, once their type is right */
static bool pr_conf_plain_ok(const json_object *v, enum pr_ftype type)
{
	switch (type) {
	case F_STR:
		return json_object_is_type(v, json_type_string);
	case F_INT:
		return json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0;
	case F_BOOL:
		return json_object_is_type(v, json_type_boolean);
	case F_LIST_STR:
		if (!json_object_is_type(v, json_type_array))
			return false;
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_string))
				return false;
		return true;
	default:
		return false;
	}
}

static int pr_conf_value(struct pr_conf *c, const json_object *v, const struct pr_field *f,
			 const char *where, json_object **out)
{
	json_object *o = NULL;
	int rc;

	*out = NULL;
	switch (f->type) {
	case F_ACCEL:
		rc = pr_conf_accel(c, v, where, &o);
		break;
	case F_MSG:
		if (!json_object_is_type(v, json_type_object))
			return pr_conf_badtype(c, where, F_MSG);
		return pr_conf_msg(c, v, f->sub, where, out);
	case F_MAP:
		rc = pr_conf_map(c, v, where, &o);
		break;
	case F_POOLS:
		rc = pr_conf_pools(c, v, f, where, &o);
		break;
	default:
		if (!pr_conf_plain_ok(v, f->type))
			return pr_conf_badtype(c, where, f->type);
		o = pr_ref(v);
		rc = 0;
		break;
	}
	if (rc)
		json_object_put(o);
	else
		*out = o;
	return rc;
}

static int pr_conf_msg(struct pr_conf *c, const json_object *in, const struct pr_field *fields,
		       const char *where, json_object **out)
{
	json_object *obj = NULL, *val = NULL;
	int rc = 0;

	*out = NULL;
	if (!(obj = json_object_new_object()))
		return mdc_nomem(c->ctx);
	json_object_object_foreach((json_object *) in, k, v) {
		const struct pr_field *f = NULL;
		char path[256], snake[128], camel[128];

		snprintf(path, sizeof(path), "%s%s%s", where, *where ? "." : "", k);
		if (strchr(k, '_')) {
			mdc_snake_to_camel(k, camel, sizeof(camel));
			rc = mdc_fail(c->ctx, MDC_ERR_INVAL, "'%s': key '%s' has an underscore: "
				      "keys with underscores are invalid, write '%s'",
				      c->path, path, camel);
			goto out;
		}
		for (size_t i = 0; fields[i].name; i++)
			if (!strcmp(k, fields[i].name))
				f = &fields[i];
		if (!f) {
			struct mdc_buf b = MDC_BUF_INIT;

			for (size_t i = 0; fields[i].name; i++)
				mdc_buf_addf(&b, "%s%s", i ? ", " : "", fields[i].name);
			rc = mdc_fail(c->ctx, MDC_ERR_INVAL, "'%s': unknown field '%s' "
				      "(expected one of: %s)", c->path, path, mdc_buf_str(&b));
			mdc_buf_free(&b);
			goto out;
		}
		if (!v)		/* "key:" with no value: as if absent */
			continue;
		if ((rc = pr_conf_value(c, v, f, path, &val)))
			goto out;
		/* both spellings of the pools land in resource_pools */
		mdc_camel_to_snake(f->type == F_POOLS ? "resourcePools" : k, snake, sizeof(snake));
		if (json_object_object_get_ex(obj, snake, NULL)) {
			rc = mdc_fail(c->ctx, MDC_ERR_INVAL, "'%s': give either resourcePools "
				      "or resourcePoolSpecs, not both", c->path);
			goto out;
		}
		if (json_object_object_add(obj, snake, val)) {
			rc = mdc_nomem(c->ctx);
			goto out;
		}
		val = NULL;
	}
	*out = obj;
	obj = NULL;
out:
	json_object_put(val);
	json_object_put(obj);
	return rc;
}

int mdc_pr_config_load(const char *path, json_object **out, struct mdc_ctx *ctx)
{
	struct pr_conf c = { path, ctx };
	json_object *doc = NULL;
	int rc;

	*out = NULL;
	if ((rc = mdc_pr_yaml_load(path, &doc, ctx)))
		goto out;
	if (!json_object_is_type(doc, json_type_object)) {
		rc = mdc_fail(ctx, MDC_ERR_INVAL, "'%s': expected a mapping of PersistentResource "
			      "fields (resourcePools: ...)", path);
		goto out;
	}
	rc = pr_conf_msg(&c, doc, pr_f_resource, "", out);
out:
	json_object_put(doc);
	return rc;
}

/* --- the create body ----------------------------------------------------- */

/* Merge SRC's fields over DST (objects recursively; the rest replaced). */
static int pr_merge(json_object *dst, const json_object *src)
{
	json_object_object_foreach((json_object *) src, k, v) {
		json_object *d = NULL;

		if (json_object_object_get_ex(dst, k, &d) &&
		    json_object_is_type(d, json_type_object) &&
		    json_object_is_type(v, json_type_object)) {
			if (pr_merge(d, v))
				return MDC_ERR_NOMEM;
			continue;
		}
		if (json_object_object_add(dst, k, json_object_get(v)))
			return MDC_ERR_NOMEM;
	}
	return 0;
}

static json_object *pr_pool_by_id(json_object *pools, const char *id)
{
	for (size_t i = 0; id && i < json_object_array_length(pools); i++) {
		json_object *p = json_object_array_get_idx(pools, i);

		if (mdc_streq(mdc_json_get_str(p, "id", NULL), id))
			return p;
	}
	return NULL;
}

/* Field order of the request: the order of P1 */
static const char *const pr_body_order[] = {
	"display_name", "resource_pools", "resource_runtime_spec", "labels", "network",
	"reserved_ip_ranges", NULL,
};

int mdc_pr_create_body(const struct mdc_pr_create_opts *o, json_object **out,
		       struct mdc_ctx *ctx)
{
	json_object *res = NULL, *pool = NULL, *pools, *labels = NULL, *sa, *body = NULL, *v;
	int rc = 0;

	*out = NULL;
	if (o->config_path) {
		if ((rc = mdc_pr_config_load(o->config_path, &res, ctx)))
			goto out;
	} else if (!(res = json_object_new_object())) {
		goto nomem;
	}
	if (!(pools = mdc_json_get_arr(res, "resource_pools"))) {
		if (!(pools = json_object_new_array()) ||
		    json_object_object_add(res, "resource_pools", pools))
			goto nomem;
	}
	for (size_t i = 0; o->pool_specs && i < o->pool_specs->n; i++) {
		json_object *same;

		if ((rc = mdc_pr_pool_from_spec(o->pool_specs->v[i], &pool, ctx)))
			goto out;
		same = pr_pool_by_id(pools, mdc_json_get_str(pool, "id", NULL));
		if (same) {
			if (pr_merge(same, pool))
				goto nomem;
			json_object_put(pool);
		} else if (json_object_array_add(pools, pool)) {
			goto nomem;
		}
		pool = NULL;
	}
	if (o->display_name &&
	    json_object_object_add(res, "display_name", json_object_new_string(o->display_name)))
		goto nomem;
	if (o->network &&
	    json_object_object_add(res, "network", json_object_new_string(o->network)))
		goto nomem;
	if (o->labels && o->labels->n) {
		if (!json_object_object_get_ex(res, "labels", &labels)) {
			if (!(labels = json_object_new_object()) ||
			    json_object_object_add(res, "labels", labels))
				goto nomem;
		}
		for (size_t i = 0; i < o->labels->n; i++)
			if ((rc = mdc_pr_labels_add(labels, o->labels->v[i], ctx)))
				goto out;
	}
	if (o->enable_custom_service_account) {
		if (!(sa = mdc_json_mkpath(res, "resource_runtime_spec.service_account_spec")) ||
		    mdc_json_set(sa, "enable_custom_service_account", json_object_new_boolean(1)))
			goto nomem;
	}
	if ((rc = mdc_pr_check_resource(res, ctx)))
		goto out;
	if (!(body = json_object_new_object()))
		goto nomem;
	for (size_t i = 0; pr_body_order[i]; i++)
		if (json_object_object_get_ex(res, pr_body_order[i], &v) &&
		    json_object_object_add(body, pr_body_order[i], json_object_get(v)))
			goto nomem;
	*out = body;
	body = NULL;
	goto out;
nomem:
	rc = mdc_nomem(ctx);
out:
	json_object_put(body);
	json_object_put(pool);
	json_object_put(res);
	return rc;
}

/* --- UpdatePersistentResource ------------------------------------------------ */

/* Top-level PersistentResource fields by their field_behavior in the
 * v1beta1 proto: OPTIONAL/REQUIRED ones may be named in update_mask,
 * IMMUTABLE and OUTPUT_ONLY ones may not.  The service applies a changed
 * network or encryption key only by recreating the resource. */
enum pr_fb { PR_FB_UPDATABLE, PR_FB_IMMUTABLE, PR_FB_OUTPUT };

static const struct { const char *field; enum pr_fb fb; } pr_update_fields[] = {
	{ "display_name", PR_FB_UPDATABLE }, { "labels", PR_FB_UPDATABLE },
	{ "resource_pools", PR_FB_UPDATABLE },
	{ "name", PR_FB_IMMUTABLE }, { "network", PR_FB_IMMUTABLE },
	{ "psc_interface_config", PR_FB_IMMUTABLE }, { "encryption_spec", PR_FB_IMMUTABLE },
	{ "resource_runtime_spec", PR_FB_IMMUTABLE }, { "reserved_ip_ranges", PR_FB_IMMUTABLE },
	{ "state", PR_FB_OUTPUT }, { "error", PR_FB_OUTPUT }, { "create_time", PR_FB_OUTPUT },
	{ "start_time", PR_FB_OUTPUT }, { "update_time", PR_FB_OUTPUT },
	{ "resource_runtime", PR_FB_OUTPUT }, { "satisfies_pzs", PR_FB_OUTPUT },
	{ "satisfies_pzi", PR_FB_OUTPUT },
};

const char *mdc_pr_update_paths(void)
{
	return "display_name, labels, resource_pools";
}

/* "1" and 1 are the same int64 to the JSON mapping */
static bool pr_same_scalar(const json_object *a, const json_object *b)
{
	if (!a || !b)
		return !a && !b;
	return !strcmp(json_object_get_string((json_object *) a),
		       json_object_get_string((json_object *) b));
}

static bool pr_same_obj(const json_object *a, const json_object *b)
{
	if (!a || !b)
		return !a && !b;
	if (!json_object_is_type(a, json_type_object) || !json_object_is_type(b, json_type_object))
		return pr_same_scalar(a, b);
	json_object_object_foreach((json_object *) a, k, v)
		if (!pr_same_obj(v, mdc_json_get(b, k)))
			return false;
	json_object_object_foreach((json_object *) b, k2, v2)
		if (!pr_same_obj(v2, mdc_json_get(a, k2)))
			return false;
	return true;
}

/* A pool of an update: an existing id; machine_spec and disk_spec as they
 * are (IMMUTABLE in the proto, or not changeable on a live pool); the
 * replica counts taken from the request. */
static int pr_update_pool(const json_object *cur_pools, const json_object *np, size_t idx,
			  json_object **out, struct mdc_ctx *ctx)
{
	const char *id = mdc_json_get_str(np, "id", NULL);
	json_object *cur = NULL, *res, *v;
	int rc;

	*out = NULL;
	if (!id || !*id)
		return mdc_fail(ctx, MDC_ERR_INVAL, "resource_pools[%zu]: give the id of the pool "
				"to change (pools are matched by id)", idx);
	for (size_t i = 0; i < json_object_array_length(cur_pools); i++)
		if (mdc_streq(mdc_json_get_str(json_object_array_get_idx(cur_pools, i), "id", NULL),
			      id))
			cur = json_object_array_get_idx(cur_pools, i);
	if (!cur)
		return mdc_fail(ctx, MDC_ERR_INVAL, "resource_pools[%zu]: no pool '%s' in this "
				"persistent resource: an update changes existing pools only", idx, id);
	if ((v = mdc_json_get(np, "machine_spec")) &&
	    !pr_same_obj(v, mdc_json_get(cur, "machine_spec")))
		return mdc_fail(ctx, MDC_ERR_INVAL, "resource_pools[%zu] (pool '%s'): machine_spec "
				"is immutable: create another persistent resource for other "
				"machines", idx, id);
	if ((v = mdc_json_get(np, "disk_spec")) && !pr_same_obj(v, mdc_json_get(cur, "disk_spec")))
		return mdc_fail(ctx, MDC_ERR_INVAL, "resource_pools[%zu] (pool '%s'): disk_spec "
				"cannot be changed on an existing pool", idx, id);
	if (!(res = mdc_json_copy(cur)))
		return mdc_nomem(ctx);
	mdc_json_del(res, "replica_count");
	mdc_json_del(res, "autoscaling_spec");
	if ((v = mdc_json_get(np, "replica_count")))
		mdc_json_set(res, "replica_count", mdc_json_copy(v));
	if ((v = mdc_json_get(np, "autoscaling_spec")))
		mdc_json_set(res, "autoscaling_spec", mdc_json_copy(v));
	if ((rc = mdc_pr_check_pool(res, idx, ctx))) {
		json_object_put(res);
		return rc;
	}
	*out = res;
	return 0;
}

int mdc_pr_update_apply(const json_object *cur, const json_object *patch, const char *mask,
			json_object **out, struct mdc_ctx *ctx)
{
	struct mdc_strv paths = MDC_STRV_INIT;
	json_object *res = NULL, *v;
	int rc = 0;

	*out = NULL;
	if (!mask || !*mask)
		return mdc_fail(ctx, MDC_ERR_INVAL, "update_mask is required: name the fields to "
				"change (%s)", mdc_pr_update_paths());
	if (!json_object_is_type(patch, json_type_object))
		return mdc_fail(ctx, MDC_ERR_INVAL, "the request body must be a PersistentResource");
	if (mdc_strv_split(&paths, mask, ",") || !(res = mdc_json_copy(cur))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < paths.n; i++) {
		char snake[128];
		size_t f;

		mdc_trim(paths.v[i]);
		mdc_camel_to_snake(paths.v[i], snake, sizeof(snake));
		for (f = 0; f < sizeof(pr_update_fields) / sizeof(pr_update_fields[0]); f++)
			if (!strcmp(snake, pr_update_fields[f].field))
				break;
		if (f == sizeof(pr_update_fields) / sizeof(pr_update_fields[0])) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "update_mask: '%s' is not a field of "
				      "PersistentResource that can be updated: use %s", paths.v[i],
				      mdc_pr_update_paths());
			goto out;
		}
		if (pr_update_fields[f].fb != PR_FB_UPDATABLE) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "update_mask: '%s' is %s: only %s can be "
				      "updated", paths.v[i], pr_update_fields[f].fb == PR_FB_OUTPUT ?
				      "output only" : "immutable", mdc_pr_update_paths());
			goto out;
		}
		v = mdc_json_get(patch, snake);
		if (!strcmp(snake, "resource_pools")) {
			json_object *cur_pools = mdc_json_get_arr(cur, "resource_pools"), *np;
			size_t n = v && json_object_is_type(v, json_type_array) ?
				   json_object_array_length(v) : 0;

			if (!cur_pools || n != json_object_array_length(cur_pools)) {
				rc = mdc_fail(ctx, MDC_ERR_INVAL, "resource_pools: give every pool of "
					      "the persistent resource (%zu), changed or not: pools "
					      "cannot be added or removed by an update",
					      cur_pools ? json_object_array_length(cur_pools) : 0);
				goto out;
			}
			if (!(np = json_object_new_array())) {
				rc = mdc_nomem(ctx);
				goto out;
			}
			for (size_t p = 0; p < n; p++) {
				json_object *pool;

				if ((rc = pr_update_pool(cur_pools, json_object_array_get_idx(v, p), p,
							 &pool, ctx))) {
					json_object_put(np);
					goto out;
				}
				json_object_array_add(np, pool);
			}
			mdc_json_set(res, "resource_pools", np);
		} else if (!v) {
			mdc_json_del(res, snake);	/* a masked field left out is cleared */
		} else {
			mdc_json_set(res, snake, mdc_json_copy(v));
		}
	}
	if ((rc = mdc_pr_check_resource(res, ctx)))
		goto out;
	*out = res;
	res = NULL;
out:
	json_object_put(res);
	mdc_strv_free(&paths);
	return rc;
}

/* One --resource-pool-spec of an update: id= and the replica counts only. */
static int pr_update_pool_spec(const char *spec, json_object **pool, struct mdc_ctx *ctx)
{
	static const char *const allowed[] = {
		"id", "replica-count", "min-replica-count", "max-replica-count", NULL,
	};
	struct mdc_strv items = MDC_STRV_INIT;
	int rc = 0;

	*pool = NULL;
	if (mdc_strv_split(&items, spec, ","))
		return mdc_nomem(ctx);
	for (size_t i = 0; i < items.n; i++) {
		char key[64];
		size_t n = strcspn(items.v[i], "=");

		snprintf(key, sizeof(key), "%.*s", (int) (n < sizeof(key) ? n : sizeof(key) - 1),
			 items.v[i]);
		mdc_trim(key);
		if (!mdc_pr_in(key, allowed)) {
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec: '%s' cannot be "
				      "changed by update: give id= and replica-count, or "
				      "min-replica-count and max-replica-count", key);
			goto out;
		}
	}
	if ((rc = mdc_pr_pool_from_spec(spec, pool, ctx)))
		goto out;
	if (!mdc_json_get_str(*pool, "id", NULL)) {
		json_object_put(*pool);
		*pool = NULL;
		rc = mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec '%s': give id=POOL, the "
			      "pool to change", spec);
	}
out:
	mdc_strv_free(&items);
	return rc;
}

/* The labels of the change into B: gcloud's order, --clear-labels, then
 * --update-labels, then --remove-labels, over the current labels. */
static int pr_update_labels(const json_object *cur, const struct mdc_pr_update_opts *o,
			    json_object *b, struct mdc_ctx *ctx)
{
	json_object *cl = mdc_json_get_obj(cur, "labels");
	json_object *labels = o->clear_labels || !cl ? json_object_new_object() : mdc_json_copy(cl);
	int rc;

	mdc_json_set(b, "labels", labels);
	for (size_t i = 0; o->update_labels && i < o->update_labels->n; i++)
		if ((rc = mdc_pr_labels_add(labels, o->update_labels->v[i], ctx)))
			return rc;
	for (size_t i = 0; o->remove_labels && i < o->remove_labels->n; i++) {
		struct mdc_strv keys = MDC_STRV_INIT;

		mdc_strv_split(&keys, o->remove_labels->v[i], ",");
		for (size_t k = 0; k < keys.n; k++) {
			mdc_trim(keys.v[k]);
			json_object_object_del(labels, keys.v[k]);
		}
		mdc_strv_free(&keys);
	}
	return 0;
}

/* One --resource-pool-spec onto the matching pool of POOLS: its counts
 * replace the pool's (replica_count or autoscaling_spec). */
static int pr_update_one_pool(json_object *pools, const char *spec, struct mdc_ctx *ctx)
{
	json_object *np, *target = NULL;
	const char *id;
	int rc;

	if ((rc = pr_update_pool_spec(spec, &np, ctx)))
		return rc;
	id = mdc_json_get_str(np, "id", "");
	for (size_t p = 0; p < json_object_array_length(pools); p++)
		if (mdc_streq(mdc_json_get_str(json_object_array_get_idx(pools, p), "id", NULL), id))
			target = json_object_array_get_idx(pools, p);
	if (!target) {
		rc = mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec: no pool '%s' in the "
			      "persistent resource", id);
		json_object_put(np);
		return rc;
	}
	mdc_json_del(target, "replica_count");
	mdc_json_del(target, "autoscaling_spec");
	if (mdc_json_get(np, "replica_count"))
		mdc_json_set(target, "replica_count", mdc_json_copy(mdc_json_get(np, "replica_count")));
	if (mdc_json_get(np, "autoscaling_spec"))
		mdc_json_set(target, "autoscaling_spec",
			     mdc_json_copy(mdc_json_get(np, "autoscaling_spec")));
	json_object_put(np);
	return 0;
}

/* resource_pools: every current pool (the service wants them all), the
 * specs applied, without the output-only used_replica_count. */
static int pr_update_pools(const json_object *cur, const struct mdc_pr_update_opts *o,
			   json_object *b, struct mdc_ctx *ctx)
{
	json_object *cp = mdc_json_get_arr(cur, "resource_pools");
	json_object *pools = cp ? mdc_json_copy(cp) : json_object_new_array();
	int rc;

	mdc_json_set(b, "resource_pools", pools);
	for (size_t i = 0; i < o->pool_specs->n; i++)
		if ((rc = pr_update_one_pool(pools, o->pool_specs->v[i], ctx)))
			return rc;
	for (size_t p = 0; p < json_object_array_length(pools); p++)
		mdc_json_del(json_object_array_get_idx(pools, p), "used_replica_count");
	return 0;
}

int mdc_pr_update_body(const json_object *cur, const struct mdc_pr_update_opts *o,
		       json_object **body, char **mask, struct mdc_ctx *ctx)
{
	struct mdc_buf m = MDC_BUF_INIT;
	json_object *b = json_object_new_object(), *check = NULL;
	int rc = 0;

	*body = NULL;
	*mask = NULL;
	if (!b)
		return mdc_nomem(ctx);
	if (o->display_name) {
		mdc_json_set(b, "display_name", json_object_new_string(o->display_name));
		mdc_buf_adds(&m, "displayName");
	}
	if (o->clear_labels || (o->update_labels && o->update_labels->n) ||
	    (o->remove_labels && o->remove_labels->n)) {
		if ((rc = pr_update_labels(cur, o, b, ctx)))
			goto out;
		mdc_buf_addf(&m, "%slabels", m.len ? "," : "");
	}
	if (o->pool_specs && o->pool_specs->n) {
		if ((rc = pr_update_pools(cur, o, b, ctx)))
			goto out;
		mdc_buf_addf(&m, "%sresourcePools", m.len ? "," : "");
	}
	if (!m.len) {
		rc = mdc_fail(ctx, MDC_ERR_USAGE, "nothing to update: give --display-name, "
			      "--update-labels, --remove-labels, --clear-labels or "
			      "--resource-pool-spec");
		goto out;
	}
	/* the service's rules, applied here so nothing bad is sent */
	if ((rc = mdc_pr_update_apply(cur, b, mdc_buf_str(&m), &check, ctx)))
		goto out;
	if (!(*mask = strdup(mdc_buf_str(&m)))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	*body = b;
	b = NULL;
out:
	json_object_put(check);
	json_object_put(b);
	mdc_buf_free(&m);
	return rc;
}

