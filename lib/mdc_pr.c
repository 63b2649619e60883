/* mdc_pr.c - see mdc_pr.h. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_pr.h"

#define PR_ID_MAX 63
#define PR_YAML_DEPTH_MAX 128

/* AcceleratorType values of machine_resources.proto / accelerator_type.proto */
static const char *const pr_accelerators[] = {
	"NVIDIA_TESLA_K80", "NVIDIA_TESLA_P100", "NVIDIA_TESLA_V100", "NVIDIA_TESLA_P4",
	"NVIDIA_TESLA_T4", "NVIDIA_TESLA_A100", "NVIDIA_A100_80GB", "NVIDIA_L4",
	"NVIDIA_H100_80GB", "NVIDIA_H100_MEGA_80GB", "NVIDIA_H200_141GB", "NVIDIA_B200",
	"NVIDIA_GB200", "NVIDIA_RTX_PRO_6000", "TPU_V2", "TPU_V3", "TPU_V4_POD",
	"TPU_V5_LITEPOD", NULL,
};

/* printf into a new string (NULL on ENOMEM) */
static char *pr_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *pr_strdupf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(s = malloc((size_t) n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t) n + 1, fmt, ap);
	va_end(ap);
	return s;
}

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

int mdc_pr_check_job_id(const char *id, struct mdc_ctx *ctx)
{
	size_t n = id ? strlen(id) : 0;

	if (n == 0 || n > 128 || !(id[0] >= 'a' && id[0] <= 'z'))
		goto bad;
	for (size_t i = 0; i < n; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9') ||
		      id[i] == '-'))
			goto bad;
	return 0;
bad:
	return mdc_fail(ctx, MDC_ERR_INVAL, "pipeline job id '%s': use 1-128 lowercase "
			"letters, digits and hyphens, starting with a letter", id ? id : "");
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
			rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
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
		*out = pr_strdupf("projects/%s/locations/%s/persistentResources/%s",
				  project, region, name_or_id);
	}
	if (!*out)
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
out:
	mdc_strv_free(&parts);
	return rc;
}

char *mdc_pr_console_link(const char *region, const char *project, const char *job_name)
{
	return pr_strdupf("https://console.cloud.google.com/vertex-ai/locations/%s/"
			  "pipelines/runs/%s?project=%s", region, mdc_pr_basename(job_name),
			  project);
}

/* --- numbers ------------------------------------------------------------ */

/* Strict decimal integer in [MIN, MAX]. */
static bool pr_parse_int(const char *s, int64_t min, int64_t max, int64_t *v)
{
	char *end;
	long long x;

	if (!s || !*s || isspace((unsigned char) *s))
		return false;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end || x < min || x > max)
		return false;
	*v = x;
	return true;
}

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
	    pr_parse_int(json_object_get_string(j), INT64_MIN, INT64_MAX, v))
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

int mdc_pr_pool_from_spec(const char *spec, json_object **out, struct mdc_ctx *ctx)
{
	struct mdc_strv items = MDC_STRV_INIT, seen = MDC_STRV_INIT;
	json_object *pool = NULL, *parent, *val;
	struct mdc_buf keys = MDC_BUF_INIT;
	int rc = 0;

	*out = NULL;
	if (mdc_strv_split(&items, spec ? spec : "", ",") ||
	    !(pool = json_object_new_object())) {
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
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
		int64_t n;

		if (v)
			*v++ = '\0';
		mdc_trim(k);
		if (!(sk = pr_spec_find(k))) {
			for (size_t j = 0; j < PR_NSPEC; j++)
				mdc_buf_addf(&keys, "%s%s", j ? ", " : "", pr_spec_keys[j].key);
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
			rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
			goto out;
		}
		switch (sk->type) {
		case PR_SPEC_INT:
			if (!pr_parse_int(v, 0, INT32_MAX, &n)) {
				rc = mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec: %s='%s' "
					      "is not a non-negative integer", k, v);
				goto out;
			}
			val = json_object_new_int64(n);
			break;
		case PR_SPEC_ACCEL: {
			const char *a = pr_accelerator(v);

			if (!a) {
				rc = pr_accelerator_fail("--resource-pool-spec", v, ctx);
				goto out;
			}
			val = json_object_new_string(a);
			break;
		}
		default:
			val = json_object_new_string(v);
			break;
		}
		parent = sk->parent ? mdc_json_mkpath(pool, sk->parent) : pool;
		if (!val || !parent || mdc_json_set(parent, sk->field, val)) {
			rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	/* gcloud: an accelerator type alone means one accelerator per replica */
	parent = mdc_json_get_obj(pool, "machine_spec");
	if (parent && mdc_json_get(parent, "accelerator_type") &&
	    !mdc_json_get(parent, "accelerator_count") &&
	    mdc_json_set(parent, "accelerator_count", json_object_new_int(1))) {
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
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
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
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
			rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
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

/* --- YAML -> JSON -------------------------------------------------------- */

static bool pr_in(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

/* S without '_' (YAML 1.1 digit separators) into BUF; false if too long. */
static bool pr_strip_us(const char *s, char *buf, size_t sz)
{
	size_t o = 0;

	for (; *s; s++)
		if (*s != '_') {
			if (o + 1 >= sz)
				return false;
			buf[o++] = *s;
		}
	buf[o] = '\0';
	return true;
}

/* All of S[FROM..] in SET (and at least one byte)? */
static bool pr_all_in(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/* PyYAML's int and float resolvers (YAML 1.1, without sexagesimals):
 * [-+]?(0|[1-9][0-9_]*), [-+]?0b[01_]+, [-+]?0[0-7_]+, [-+]?0x[0-9a-fA-F_]+;
 * [-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?.  *OUT NULL if neither. */
static bool pr_yaml_number(const char *s, json_object **out)
{
	char buf[128], *end;
	const char *b, *e;
	bool neg = false;
	int base = 10;

	*out = NULL;
	if (!pr_strip_us(s, buf, sizeof(buf)))
		return false;
	b = buf;
	if (*b == '-' || *b == '+')
		neg = *b++ == '-';
	if (!*b)
		return false;
	if (!strchr(b, '.')) {
		const char *digits = b;

		if (b[0] == '0' && b[1] == 'b' && pr_all_in(b + 2, "01")) {
			base = 2;
			digits = b + 2;
		} else if (b[0] == '0' && b[1] == 'x' && pr_all_in(b + 2, "0123456789abcdefABCDEF")) {
			base = 16;
			digits = b + 2;
		} else if (b[0] == '0' && b[1] && pr_all_in(b + 1, "01234567")) {
			base = 8;
			digits = b + 1;
		} else if (!pr_all_in(b, "0123456789") || (b[0] == '0' && b[1])) {
			return false;
		}
		errno = 0;
		{
			unsigned long long u = strtoull(digits, &end, base);

			if (*end)
				return false;
			if (errno || u > (unsigned long long) INT64_MAX + neg)	/* beyond int64 */
				*out = json_object_new_double(base == 10 ? strtod(buf, NULL) :
							      neg ? -(double) u : (double) u);
			else
				*out = json_object_new_int64(neg ? (int64_t) (0 - u) : (int64_t) u);
		}
		return true;
	}
	/* float: digits, '.', digits, then an exponent with a sign */
	e = b + strspn(b, "0123456789");
	if (*e != '.')
		return false;
	e++;
	e += strspn(e, "0123456789");
	if (*e == 'e' || *e == 'E') {
		if ((e[1] != '-' && e[1] != '+') || !pr_all_in(e + 2, "0123456789"))
			return false;
	} else if (*e) {
		return false;
	}
	if (!strcmp(b, "."))
		return false;
	errno = 0;
	{
		double d = strtod(buf, &end);

		if (*end || !isfinite(d))
			return false;
		*out = json_object_new_double(d);
	}
	return true;
}

/* Resolve a plain scalar the way PyYAML's safe_load does (YAML 1.1). */
static int pr_yaml_scalar(const char *s, size_t len, bool plain, const char *tag,
			  json_object **out)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const trues[] = { "true", "True", "TRUE", "yes", "Yes", "YES",
					     "on", "On", "ON", NULL };
	static const char *const falses[] = { "false", "False", "FALSE", "no", "No", "NO",
					      "off", "Off", "OFF", NULL };
	bool is_str_tag = tag && !strcmp(tag, YAML_STR_TAG);
	bool resolve = plain || (tag && !is_str_tag);

	*out = NULL;
	if (resolve && pr_in(s, nulls))
		return 0;			/* JSON null */
	if (resolve && pr_in(s, trues)) {
		*out = json_object_new_boolean(1);
		goto done;
	}
	if (resolve && pr_in(s, falses)) {
		*out = json_object_new_boolean(0);
		goto done;
	}
	if (resolve && len > 0 && len < 128 && pr_yaml_number(s, out))
		goto done;
	*out = json_object_new_string_len(s, (int) len);
done:
	return *out ? 0 : MDC_ERR_NOMEM;
}

struct pr_yaml {
	yaml_document_t *doc;
	const char *what;
	struct mdc_ctx *ctx;
};

static int pr_yaml_node(struct pr_yaml *y, yaml_node_t *node, int depth, json_object **out)
{
	json_object *obj = NULL, *child = NULL;
	int rc = 0;

	*out = NULL;
	if (!node)
		return mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: broken YAML document", y->what);
	if (depth > PR_YAML_DEPTH_MAX)
		return mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: nested deeper than %d levels (line %zu)",
				y->what, PR_YAML_DEPTH_MAX, node->start_mark.line + 1);
	switch (node->type) {
	case YAML_SCALAR_NODE:
		if (pr_yaml_scalar((const char *) node->data.scalar.value, node->data.scalar.length,
				   node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE,
				   (const char *) node->tag, out))
			return mdc_fail(y->ctx, MDC_ERR_NOMEM, "out of memory");
		return 0;
	case YAML_SEQUENCE_NODE:
		if (!(obj = json_object_new_array()))
			goto nomem;
		for (yaml_node_item_t *it = node->data.sequence.items.start;
		     it < node->data.sequence.items.top; it++) {
			if ((rc = pr_yaml_node(y, yaml_document_get_node(y->doc, *it), depth + 1,
					       &child)))
				goto out;
			if (json_object_array_add(obj, child))
				goto nomem;
			child = NULL;
		}
		break;
	case YAML_MAPPING_NODE:
		if (!(obj = json_object_new_object()))
			goto nomem;
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
			const char *key;

			if (!k || k->type != YAML_SCALAR_NODE) {
				rc = mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: line %zu: mapping keys "
					      "must be scalars", y->what,
					      k ? k->start_mark.line + 1 : 0);
				goto out;
			}
			key = (const char *) k->data.scalar.value;
			if (json_object_object_get_ex(obj, key, NULL)) {
				rc = mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: line %zu: duplicate key "
					      "'%s'", y->what, k->start_mark.line + 1, key);
				goto out;
			}
			if (!strcmp(key, "<<") && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
				rc = mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: line %zu: merge keys "
					      "('<<') are not supported", y->what,
					      k->start_mark.line + 1);
				goto out;
			}
			if ((rc = pr_yaml_node(y, yaml_document_get_node(y->doc, p->value),
					       depth + 1, &child)))
				goto out;
			if (json_object_object_add(obj, key, child))
				goto nomem;
			child = NULL;
		}
		break;
	default:
		rc = mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: empty YAML node", y->what);
		goto out;
	}
	*out = obj;
	obj = NULL;
	goto out;
nomem:
	rc = mdc_fail(y->ctx, MDC_ERR_NOMEM, "out of memory");
out:
	json_object_put(child);
	json_object_put(obj);
	return rc;
}

int mdc_pr_yaml_parse(const char *text, size_t len, const char *what,
		      json_object **out, struct mdc_ctx *ctx)
{
	yaml_parser_t parser;
	yaml_document_t doc, doc2;
	bool have_doc = false, have_doc2 = false;
	struct pr_yaml y = { &doc, what, ctx };
	yaml_node_t *root;
	int rc = 0;

	*out = NULL;
	if (!yaml_parser_initialize(&parser))
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *) text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "%s: line %zu: %s%s%s", what,
			      parser.problem_mark.line + 1,
			      parser.problem ? parser.problem : "invalid YAML",
			      parser.context ? " " : "", parser.context ? parser.context : "");
		goto out;
	}
	have_doc = true;
	if (!(root = yaml_document_get_root_node(&doc))) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "%s: no YAML document in it", what);
		goto out;
	}
	if (!yaml_parser_load(&parser, &doc2)) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "%s: line %zu: %s", what,
			      parser.problem_mark.line + 1,
			      parser.problem ? parser.problem : "invalid YAML");
		goto out;
	}
	have_doc2 = true;
	if (yaml_document_get_root_node(&doc2)) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "%s: more than one YAML document; keep one",
			      what);
		goto out;
	}
	rc = pr_yaml_node(&y, root, 0, out);
out:
	if (have_doc2)
		yaml_document_delete(&doc2);
	if (have_doc)
		yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

int mdc_pr_yaml_load(const char *path, json_object **out, struct mdc_ctx *ctx)
{
	char *text = NULL, *what = NULL;
	size_t len;
	int rc;

	*out = NULL;
	if ((rc = mdc_read_file(path, &text, &len, ctx)))
		return rc;
	if (!(what = pr_strdupf("'%s'", path))) {
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = mdc_pr_yaml_parse(text, len, what, out, ctx);
out:
	free(what);
	free(text);
	return rc;
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

static int pr_conf_value(struct pr_conf *c, const json_object *v, const struct pr_field *f,
			 const char *where, json_object **out)
{
	static const char *const tnames[] = {
		[F_STR] = "a string", [F_INT] = "a non-negative integer", [F_BOOL] = "true or false",
		[F_MSG] = "a mapping", [F_MAP] = "a mapping of strings",
		[F_POOLS] = "a list of resource pools", [F_LIST_STR] = "a list of strings",
		[F_ACCEL] = "an accelerator type",
	};
	json_object *o = NULL, *item = NULL;
	char sub[300];
	int rc = 0;

	*out = NULL;
	switch (f->type) {
	case F_STR:
		if (!json_object_is_type(v, json_type_string))
			goto badtype;
		o = pr_ref(v);
		break;
	case F_ACCEL: {
		const char *sv = json_object_get_string((json_object *) v);
		const char *a;

		if (!json_object_is_type(v, json_type_string))
			goto badtype;
		if (!(a = pr_accelerator(sv))) {
			rc = pr_accelerator_fail(where, sv, c->ctx);
			mdc_ctx_prefix(c->ctx, "'%s'", c->path);
			goto out;
		}
		o = json_object_new_string(a);
		break;
	}
	case F_INT:
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			goto badtype;
		o = pr_ref(v);
		break;
	case F_BOOL:
		if (!json_object_is_type(v, json_type_boolean))
			goto badtype;
		o = pr_ref(v);
		break;
	case F_MSG:
		if (!json_object_is_type(v, json_type_object))
			goto badtype;
		return pr_conf_msg(c, v, f->sub, where, out);
	case F_MAP:
		if (!json_object_is_type(v, json_type_object))
			goto badtype;
		if (!(o = json_object_new_object()))
			goto nomem;
		json_object_object_foreach((json_object *) v, k, mv) {
			/* label values such as 1 or true are strings to the API */
			if (json_object_is_type(mv, json_type_object) ||
			    json_object_is_type(mv, json_type_array) || !mv)
				goto badtype;
			if (json_object_object_add(o, k, json_object_new_string(
							   json_object_get_string((json_object *) mv))))
				goto nomem;
		}
		break;
	case F_LIST_STR:
		if (!json_object_is_type(v, json_type_array))
			goto badtype;
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_string))
				goto badtype;
		o = pr_ref(v);
		break;
	case F_POOLS:
		if (!(o = json_object_new_array()))
			goto nomem;
		if (json_object_is_type(v, json_type_object)) {
			/* the docs' example: one pool written as a mapping */
			if ((rc = pr_conf_msg(c, v, f->sub, where, &item)))
				goto out;
			if (json_object_array_add(o, item))
				goto nomem;
			item = NULL;
			break;
		}
		if (!json_object_is_type(v, json_type_array))
			goto badtype;
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *p = json_object_array_get_idx(v, i);

			snprintf(sub, sizeof(sub), "%.250s[%zu]", where, i);
			if (!json_object_is_type(p, json_type_object)) {
				rc = mdc_fail(c->ctx, MDC_ERR_INVAL, "'%s': '%s' must be a "
					      "mapping", c->path, sub);
				goto out;
			}
			if ((rc = pr_conf_msg(c, p, f->sub, sub, &item)))
				goto out;
			if (json_object_array_add(o, item))
				goto nomem;
			item = NULL;
		}
		break;
	}
	if (!o)
		goto nomem;
	*out = o;
	o = NULL;
	goto out;
badtype:
	rc = mdc_fail(c->ctx, MDC_ERR_INVAL, "'%s': '%s' must be %s", c->path, where,
		      tnames[f->type]);
	goto out;
nomem:
	rc = mdc_fail(c->ctx, MDC_ERR_NOMEM, "out of memory");
out:
	json_object_put(item);
	json_object_put(o);
	return rc;
}

static int pr_conf_msg(struct pr_conf *c, const json_object *in, const struct pr_field *fields,
		       const char *where, json_object **out)
{
	json_object *obj = NULL, *val = NULL;
	int rc = 0;

	*out = NULL;
	if (!(obj = json_object_new_object()))
		return mdc_fail(c->ctx, MDC_ERR_NOMEM, "out of memory");
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
			rc = mdc_fail(c->ctx, MDC_ERR_NOMEM, "out of memory");
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
	rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
out:
	json_object_put(body);
	json_object_put(pool);
	json_object_put(res);
	return rc;
}

/* --- pipeline runs ------------------------------------------------------- */

int mdc_pr_duration_ms(const char *s, int64_t *ms, struct mdc_ctx *ctx)
{
	static const struct { const char *unit; double ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
	};
	const char *p = s;
	double total = 0;

	if (!s || !*s || !(isdigit((unsigned char) *s) || *s == '.'))
		goto bad;
	{
		char *end;
		double n = strtod(s, &end);

		if (!*end) {		/* a bare number is seconds */
			total = n * 1000;
			p = end;
		}
	}
	while (*p) {
		char *end;
		double n;
		size_t u, best = 0, bestlen = 0;

		if (!isdigit((unsigned char) *p) && *p != '.')
			goto bad;
		errno = 0;
		n = strtod(p, &end);
		if (end == p || errno || n < 0)
			goto bad;
		p = end;
		/* longest unit first, so "ms" is not read as "m" */
		for (u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
			size_t l = strlen(units[u].unit);

			if (!strncmp(p, units[u].unit, l) && l > bestlen) {
				best = u;
				bestlen = l;
			}
		}
		if (!bestlen)
			goto bad;
		total += n * units[best].ms;
		p += bestlen;
	}
	if (!(total < 9.2e18))
		goto bad;
	*ms = (int64_t) llround(total);
	return 0;
bad:
	return mdc_fail(ctx, MDC_ERR_USAGE, "duration '%s': use a number of seconds or "
			"units like 500ms, 30s, 10m, 1h30m, 2d", s ? s : "");
}

int mdc_pr_timeout_behavior(const char *s, const char **enum_name, struct mdc_ctx *ctx)
{
	static const struct { const char *flag, *name; } tb[] = {
		{ "fail", "FAIL" },
		{ "fall-back-to-on-demand", "FALL_BACK_TO_ON_DEMAND" },
	};

	for (size_t i = 0; s && i < sizeof(tb) / sizeof(tb[0]); i++)
		if (!strcmp(s, tb[i].flag) || !strcmp(s, tb[i].name)) {
			*enum_name = tb[i].name;
			return 0;
		}
	return mdc_fail(ctx, MDC_ERR_USAGE, "--on-timeout '%s': use fail or "
			"fall-back-to-on-demand", s ? s : "");
}

int mdc_pr_check_runnable(const json_object *res, const char *name, struct mdc_ctx *ctx)
{
	json_object *sa = mdc_json_get_path(res, "resource_runtime_spec.service_account_spec");
	const char *state = mdc_json_get_str(res, "state", "");

	if (!sa || !mdc_json_get_bool(sa, "enable_custom_service_account", false))
		return mdc_fail(ctx, MDC_ERR_REFUSED, "persistent resource '%s' does not have "
				"the custom service account enabled: pipelines cannot use it; "
				"create one with --enable-custom-service-account", name);
	if (!strcmp(state, "ERROR") || !strcmp(state, "STOPPING"))
		return mdc_fail(ctx, MDC_ERR_REFUSED, "persistent resource '%s' is %s: "
				"pipelines cannot run on it", name, state);
	return 0;
}

/* KFP's parameter types (v2 parameterType, and the older type names) */
enum pr_ptype { PT_STRING, PT_INT, PT_DOUBLE, PT_BOOL, PT_LIST, PT_STRUCT };

static const struct { const char *name; enum pr_ptype t; } pr_ptypes[] = {
	{ "STRING", PT_STRING }, { "NUMBER_INTEGER", PT_INT }, { "INT", PT_INT },
	{ "NUMBER_DOUBLE", PT_DOUBLE }, { "DOUBLE", PT_DOUBLE }, { "BOOLEAN", PT_BOOL },
	{ "LIST", PT_LIST }, { "STRUCT", PT_STRUCT },
};

static enum pr_ptype pr_param_type(const json_object *def)
{
	const char *t = mdc_json_get_str(def, "parameterType", NULL);

	if (!t)
		t = mdc_json_get_str(def, "type", "STRING");
	for (size_t i = 0; i < sizeof(pr_ptypes) / sizeof(pr_ptypes[0]); i++)
		if (!strcmp(t, pr_ptypes[i].name))
			return pr_ptypes[i].t;
	return PT_STRING;
}

static int pr_param_value(const char *k, const char *v, enum pr_ptype t, json_object **out,
			  struct mdc_ctx *ctx)
{
	static const char *const names[] = {
		[PT_STRING] = "a string", [PT_INT] = "an integer", [PT_DOUBLE] = "a number",
		[PT_BOOL] = "true or false", [PT_LIST] = "a JSON list", [PT_STRUCT] = "a JSON object",
	};
	struct mdc_ctx jctx;
	char *end;
	int64_t i;
	double d;

	*out = NULL;
	switch (t) {
	case PT_INT:
		if (!pr_parse_int(v, INT64_MIN, INT64_MAX, &i))
			goto bad;
		*out = json_object_new_int64(i);
		break;
	case PT_DOUBLE:
		errno = 0;
		d = strtod(v, &end);
		if (!*v || *end || errno || !isfinite(d))
			goto bad;
		*out = json_object_new_double(d);
		break;
	case PT_BOOL:
		if (strcmp(v, "true") && strcmp(v, "false"))
			goto bad;
		*out = json_object_new_boolean(!strcmp(v, "true"));
		break;
	case PT_LIST:
	case PT_STRUCT:
		mdc_ctx_clear(&jctx);
		if (mdc_json_parse(v, strlen(v), out, &jctx) ||
		    !json_object_is_type(*out, t == PT_LIST ? json_type_array : json_type_object)) {
			json_object_put(*out);
			*out = NULL;
			goto bad;
		}
		return 0;
	default:
		*out = json_object_new_string(v);
		break;
	}
	return *out ? 0 : mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
bad:
	return mdc_fail(ctx, MDC_ERR_USAGE, "--parameter %s='%s': the pipeline declares "
			"'%s' as %s", k, v, k, names[t]);
}

/* parameter_values from "k=v" items, typed by the spec's declarations */
static int pr_params(const json_object *spec, const struct mdc_strv *items,
		     json_object **out, struct mdc_ctx *ctx)
{
	json_object *defs = mdc_json_get_path(spec, "root.inputDefinitions.parameters");
	json_object *vals = NULL, *val = NULL;
	struct mdc_buf b = MDC_BUF_INIT;
	char *k = NULL;
	int rc = 0;

	*out = NULL;
	if (!(vals = json_object_new_object()))
		goto nomem;
	for (size_t i = 0; items && i < items->n; i++) {
		const char *eq = strchr(items->v[i], '=');
		json_object *def = NULL;

		if (!eq || eq == items->v[i]) {
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "--parameter '%s' is not NAME=VALUE",
				      items->v[i]);
			goto out;
		}
		free(k);
		if (!(k = strndup(items->v[i], (size_t) (eq - items->v[i]))))
			goto nomem;
		if (!defs || !json_object_object_get_ex(defs, k, &def)) {
			if (defs) {
				json_object_object_foreach(defs, dk, dv) {
					(void) dv;
					mdc_buf_addf(&b, "%s%s", b.len ? ", " : "", dk);
				}
			}
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "--parameter '%s': the pipeline has no "
				      "such parameter (%s%s)", k, defs ? "it takes: " : "it takes none",
				      mdc_buf_str(&b));
			goto out;
		}
		if ((rc = pr_param_value(k, eq + 1, pr_param_type(def), &val, ctx)))
			goto out;
		if (json_object_object_add(vals, k, val))
			goto nomem;
		val = NULL;
	}
	if (defs && json_object_is_type(defs, json_type_object)) {
		json_object_object_foreach(defs, pk, pv) {
			if (!json_object_object_get_ex(vals, pk, NULL) &&
			    !mdc_json_get(pv, "defaultValue") &&
			    !mdc_json_get_bool(pv, "isOptional", false)) {
				rc = mdc_fail(ctx, MDC_ERR_USAGE, "the pipeline needs parameter "
					      "'%s': add --parameter %s=VALUE", pk, pk);
				goto out;
			}
		}
	}
	*out = vals;
	vals = NULL;
	goto out;
nomem:
	rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
out:
	free(k);
	mdc_buf_free(&b);
	json_object_put(val);
	json_object_put(vals);
	return rc;
}

int mdc_pr_pipeline_body(const struct mdc_pr_run_opts *o, json_object **out,
			 struct mdc_ctx *ctx)
{
	json_object *doc = NULL, *spec, *params = NULL, *body = NULL, *rt, *detail, *labels;
	const char *behavior, *dn;
	int64_t wait_ms;
	int rc;

	*out = NULL;
	if (!o->pipeline_path)
		return mdc_fail(ctx, MDC_ERR_USAGE, "give --pipeline COMPILED.yaml");
	if (!o->pipeline_root || !mdc_startswith(o->pipeline_root, "gs://") ||
	    !o->pipeline_root[5])
		return mdc_fail(ctx, MDC_ERR_USAGE, "--pipeline-root '%s': give a Cloud Storage "
				"path gs://BUCKET/DIR", o->pipeline_root ? o->pipeline_root : "");
	if (!o->wait_time)
		return mdc_fail(ctx, MDC_ERR_USAGE, "give --wait-time DURATION (how long a task "
				"waits for the persistent resource)");
	if ((rc = mdc_pr_duration_ms(o->wait_time, &wait_ms, ctx)) ||
	    (rc = mdc_pr_timeout_behavior(o->on_timeout, &behavior, ctx)))
		return rc;
	if ((rc = mdc_pr_yaml_load(o->pipeline_path, &doc, ctx)))
		goto out;
	/* a PipelineJob file (pipelineSpec + runtimeConfig) holds the spec inside */
	spec = mdc_json_get_obj(doc, "pipelineSpec") ? mdc_json_get_obj(doc, "pipelineSpec") : doc;
	if (!json_object_is_type(spec, json_type_object) || !mdc_json_get_obj(spec, "root")) {
		rc = mdc_fail(ctx, MDC_ERR_INVAL, "'%s' is not a compiled pipeline (no 'root'): "
			      "compile it with the KFP compiler first", o->pipeline_path);
		goto out;
	}
	if ((rc = pr_params(spec, o->parameters, &params, ctx)))
		goto out;
	dn = o->display_name ? o->display_name :
		mdc_json_get_str(mdc_json_get_obj(spec, "pipelineInfo"), "name", "pipeline");
	if (!(body = json_object_new_object()) ||
	    json_object_object_add(body, "display_name", json_object_new_string(dn)) ||
	    json_object_object_add(body, "pipeline_spec", json_object_get(spec)))
		goto nomem;
	if (o->labels && o->labels->n) {
		if (!(labels = json_object_new_object()) ||
		    json_object_object_add(body, "labels", labels))
			goto nomem;
		for (size_t i = 0; i < o->labels->n; i++)
			if ((rc = mdc_pr_labels_add(labels, o->labels->v[i], ctx)))
				goto out;
	}
	if (!(rt = mdc_json_mkpath(body, "runtime_config")) ||
	    json_object_object_add(rt, "gcs_output_directory",
				   json_object_new_string(o->pipeline_root)) ||
	    json_object_object_add(rt, "parameter_values", params))
		goto nomem;
	params = NULL;
	if (!(detail = mdc_json_mkpath(rt, "default_runtime.persistent_resource_runtime_detail")) ||
	    json_object_object_add(detail, "persistent_resource_name",
				   json_object_new_string(o->resource_name)) ||
	    json_object_object_add(detail, "task_resource_unavailable_wait_time_ms",
				   json_object_new_int64(wait_ms)) ||
	    json_object_object_add(detail, "task_resource_unavailable_timeout_behavior",
				   json_object_new_string(behavior)))
		goto nomem;
	*out = body;
	body = NULL;
	goto out;
nomem:
	rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
out:
	json_object_put(params);
	json_object_put(body);
	json_object_put(doc);
	return rc;
}
