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
#include <time.h>
#include <yaml.h>
#include "mdc_buf.h"
#include "mdc_client.h"
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
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
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
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
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
				rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
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
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < items.n; i++) {
		char key[64];
		size_t n = strcspn(items.v[i], "=");

		snprintf(key, sizeof(key), "%.*s", (int) (n < sizeof(key) ? n : sizeof(key) - 1),
			 items.v[i]);
		mdc_trim(key);
		if (!pr_in(key, allowed)) {
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

int mdc_pr_update_body(const json_object *cur, const struct mdc_pr_update_opts *o,
		       json_object **body, char **mask, struct mdc_ctx *ctx)
{
	struct mdc_buf m = MDC_BUF_INIT;
	json_object *b = json_object_new_object(), *check = NULL;
	int rc = 0;

	*body = NULL;
	*mask = NULL;
	if (!b)
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	if (o->display_name) {
		mdc_json_set(b, "display_name", json_object_new_string(o->display_name));
		mdc_buf_adds(&m, "displayName");
	}
	if (o->clear_labels || (o->update_labels && o->update_labels->n) ||
	    (o->remove_labels && o->remove_labels->n)) {
		json_object *cl = mdc_json_get_obj(cur, "labels");
		json_object *labels = o->clear_labels || !cl ? json_object_new_object()
							     : mdc_json_copy(cl);

		mdc_json_set(b, "labels", labels);
		/* gcloud's order: --clear-labels, then --update-labels, then --remove-labels */
		for (size_t i = 0; o->update_labels && i < o->update_labels->n; i++)
			if ((rc = mdc_pr_labels_add(labels, o->update_labels->v[i], ctx)))
				goto out;
		for (size_t i = 0; o->remove_labels && i < o->remove_labels->n; i++) {
			struct mdc_strv keys = MDC_STRV_INIT;

			mdc_strv_split(&keys, o->remove_labels->v[i], ",");
			for (size_t k = 0; k < keys.n; k++) {
				mdc_trim(keys.v[k]);
				json_object_object_del(labels, keys.v[k]);
			}
			mdc_strv_free(&keys);
		}
		mdc_buf_addf(&m, "%slabels", m.len ? "," : "");
	}
	if (o->pool_specs && o->pool_specs->n) {
		json_object *cp = mdc_json_get_arr(cur, "resource_pools");
		json_object *pools = cp ? mdc_json_copy(cp) : json_object_new_array();

		mdc_json_set(b, "resource_pools", pools);
		for (size_t i = 0; i < o->pool_specs->n; i++) {
			json_object *np, *target = NULL;
			const char *id;

			if ((rc = pr_update_pool_spec(o->pool_specs->v[i], &np, ctx)))
				goto out;
			id = mdc_json_get_str(np, "id", "");
			for (size_t p = 0; p < json_object_array_length(pools); p++)
				if (mdc_streq(mdc_json_get_str(json_object_array_get_idx(pools, p),
							       "id", NULL), id))
					target = json_object_array_get_idx(pools, p);
			if (!target) {
				rc = mdc_fail(ctx, MDC_ERR_USAGE, "--resource-pool-spec: no pool '%s' "
					      "in the persistent resource", id);
				json_object_put(np);
				goto out;
			}
			mdc_json_del(target, "replica_count");
			mdc_json_del(target, "autoscaling_spec");
			mdc_json_del(target, "used_replica_count");	/* output only */
			if (mdc_json_get(np, "replica_count"))
				mdc_json_set(target, "replica_count",
					     mdc_json_copy(mdc_json_get(np, "replica_count")));
			if (mdc_json_get(np, "autoscaling_spec"))
				mdc_json_set(target, "autoscaling_spec",
					     mdc_json_copy(mdc_json_get(np, "autoscaling_spec")));
			json_object_put(np);
		}
		for (size_t p = 0; p < json_object_array_length(pools); p++)
			mdc_json_del(json_object_array_get_idx(pools, p), "used_replica_count");
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
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
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

/* --- ListPipelineJobs: filter, order_by, read_mask ------------------------------ */

/* PipelineState names (pipeline_state.proto) */
static const char *const pr_job_states[] = {
	"PIPELINE_STATE_UNSPECIFIED", "PIPELINE_STATE_QUEUED", "PIPELINE_STATE_PENDING",
	"PIPELINE_STATE_RUNNING", "PIPELINE_STATE_SUCCEEDED", "PIPELINE_STATE_FAILED",
	"PIPELINE_STATE_CANCELLING", "PIPELINE_STATE_CANCELLED", "PIPELINE_STATE_PAUSED", NULL,
};

bool mdc_pr_job_terminal(const char *state)
{
	return state && (!strcmp(state, "PIPELINE_STATE_SUCCEEDED") ||
			 !strcmp(state, "PIPELINE_STATE_FAILED") ||
			 !strcmp(state, "PIPELINE_STATE_CANCELLED"));
}

int mdc_pr_time_parse(const char *s, double *t)
{
	int y, mo, d, h, mi, n = 0;
	double sec;
	struct tm tm;
	const char *p;
	long off = 0;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
	    mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec < 0 || sec >= 61)
		return -1;
	p = s + n;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om;

		if (sscanf(p + 1, "%2d:%2d", &oh, &om) != 2 || strlen(p) != 6)
			return -1;
		off = (oh * 60L + om) * 60L * (*p == '-' ? -1 : 1);
		p += 6;
	} else {
		return -1;
	}
	if (*p)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	*t = (double) timegm(&tm) + sec - (double) off;
	return 0;
}

enum pf_kind { PF_AND, PF_OR, PF_NOT, PF_CMP };
enum pf_op { PF_EQ, PF_NE, PF_LT, PF_GT, PF_LE, PF_GE, PF_HAS };
enum pf_type { PFT_STR, PFT_TIME, PFT_STATE, PFT_LABEL };

struct mdc_pr_filter {
	enum pf_kind kind;
	struct mdc_pr_filter *l, *r;
	/* PF_CMP */
	char *field, *value, *label;
	enum pf_op op;
	enum pf_type type;
	double t;
};

/* The fields ListPipelineJobsRequest.filter documents, and their operators */
static const struct pf_field {
	const char *name;
	enum pf_type type;
	unsigned ops;		/* bit per pf_op */
} pf_fields[] = {
#define PF_B(o) (1u << (o))
	{ "pipeline_name", PFT_STR, PF_B(PF_EQ) | PF_B(PF_NE) },
	{ "display_name", PFT_STR, PF_B(PF_EQ) | PF_B(PF_NE) | PF_B(PF_HAS) },
	{ "pipeline_job_user_id", PFT_STR, PF_B(PF_EQ) | PF_B(PF_NE) | PF_B(PF_HAS) },
	{ "state", PFT_STATE, PF_B(PF_EQ) | PF_B(PF_NE) },
	{ "create_time", PFT_TIME, 0x3f },
	{ "update_time", PFT_TIME, 0x3f },
	{ "end_time", PFT_TIME, 0x3f },
	{ "labels", PFT_LABEL, PF_B(PF_EQ) | PF_B(PF_HAS) },
	{ "template_uri", PFT_STR, PF_B(PF_EQ) | PF_B(PF_NE) | PF_B(PF_HAS) },
	{ "template_metadata.version", PFT_STR, PF_B(PF_EQ) | PF_B(PF_NE) | PF_B(PF_HAS) },
#undef PF_B
};

static const char *const pf_op_names[] = { "=", "!=", "<", ">", "<=", ">=", ":" };

struct pf_parser {
	const char *s, *p;
	struct mdc_ctx *ctx;
	int depth;
};

void mdc_pr_filter_free(struct mdc_pr_filter *f)
{
	if (!f)
		return;
	mdc_pr_filter_free(f->l);
	mdc_pr_filter_free(f->r);
	free(f->field);
	free(f->value);
	free(f->label);
	free(f);
}

static void pf_ws(struct pf_parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n')
		ps->p++;
}

/* the keyword KW as a whole word at the cursor */
static bool pf_kw(struct pf_parser *ps, const char *kw)
{
	size_t n = strlen(kw);

	pf_ws(ps);
	if (strncmp(ps->p, kw, n) || (ps->p[n] && !strchr(" \t\n(", ps->p[n])))
		return false;
	ps->p += n;
	return true;
}

static int pf_fail(struct pf_parser *ps, const char *what)
{
	return mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: %s at offset %ld of '%s'", what,
			(long) (ps->p - ps->s), ps->s);
}

/* A field name, or a bare value: letters, digits, '_', '.', '-', '*', ':' in times */
static char *pf_word(struct pf_parser *ps, bool value)
{
	const char *b = ps->p;

	while (*ps->p && (isalnum((unsigned char) *ps->p) || strchr("_.-*", *ps->p) ||
			  (value && strchr(":+", *ps->p))))
		ps->p++;
	return ps->p > b ? strndup(b, (size_t) (ps->p - b)) : NULL;
}

static char *pf_value(struct pf_parser *ps)
{
	struct mdc_buf b = MDC_BUF_INIT;
	char *out;

	pf_ws(ps);
	if (*ps->p != '"')
		return pf_word(ps, true);
	for (ps->p++; *ps->p && *ps->p != '"'; ps->p++) {
		if (*ps->p == '\\' && ps->p[1])
			ps->p++;
		mdc_buf_addc(&b, *ps->p);
	}
	if (*ps->p != '"') {
		mdc_buf_free(&b);
		return NULL;
	}
	ps->p++;
	out = strdup(mdc_buf_str(&b));
	mdc_buf_free(&b);
	return out;
}

static int pf_expr(struct pf_parser *ps, struct mdc_pr_filter **out);

static struct mdc_pr_filter *pf_node(enum pf_kind k, struct mdc_pr_filter *l,
				     struct mdc_pr_filter *r)
{
	struct mdc_pr_filter *n = calloc(1, sizeof(*n));

	if (!n) {
		mdc_pr_filter_free(l);
		mdc_pr_filter_free(r);
		return NULL;
	}
	n->kind = k;
	n->l = l;
	n->r = r;
	return n;
}

static int pf_restriction(struct pf_parser *ps, struct mdc_pr_filter **out)
{
	struct mdc_pr_filter *n = calloc(1, sizeof(*n));
	const struct pf_field *f = NULL;
	char *name;
	int rc = 0;

	*out = NULL;
	if (!n)
		return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
	n->kind = PF_CMP;
	pf_ws(ps);
	if (!(name = pf_word(ps, false))) {
		rc = pf_fail(ps, "expected a field name");
		goto out;
	}
	n->field = name;
	if (!strncmp(name, "labels.", 7) && name[7]) {
		n->label = strdup(name + 7);
		name = (char *) "labels";
	}
	for (size_t i = 0; i < sizeof(pf_fields) / sizeof(pf_fields[0]); i++)
		if (!strcmp(name, pf_fields[i].name))
			f = &pf_fields[i];
	if (!f) {
		rc = mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: unsupported field '%s': use "
			      "pipeline_name, display_name, pipeline_job_user_id, state, "
			      "create_time, update_time, end_time, labels.KEY, template_uri or "
			      "template_metadata.version", n->field);
		goto out;
	}
	n->type = f->type;
	pf_ws(ps);
	if (!strncmp(ps->p, "!=", 2)) n->op = PF_NE, ps->p += 2;
	else if (!strncmp(ps->p, "<=", 2)) n->op = PF_LE, ps->p += 2;
	else if (!strncmp(ps->p, ">=", 2)) n->op = PF_GE, ps->p += 2;
	else if (*ps->p == '=') n->op = PF_EQ, ps->p++;
	else if (*ps->p == '<') n->op = PF_LT, ps->p++;
	else if (*ps->p == '>') n->op = PF_GT, ps->p++;
	else if (*ps->p == ':') n->op = PF_HAS, ps->p++;
	else {
		rc = pf_fail(ps, "expected a comparison (=, !=, <, >, <=, >=, :)");
		goto out;
	}
	if (!(f->ops & (1u << n->op))) {
		rc = mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: '%s' does not support '%s'",
			      n->field, pf_op_names[n->op]);
		goto out;
	}
	if (!(n->value = pf_value(ps))) {
		rc = pf_fail(ps, "expected a value (a word or a \"quoted string\")");
		goto out;
	}
	if (f->type == PFT_LABEL && !n->label && n->op != PF_HAS) {
		rc = mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: compare a label as "
			      "labels.KEY=\"VALUE\", or test presence with labels.KEY:* or labels:KEY");
		goto out;
	}
	if (f->type == PFT_TIME && mdc_pr_time_parse(n->value, &n->t)) {
		rc = mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: %s value '%s' is not an RFC 3339 "
			      "time such as \"2026-05-18T13:30:00Z\"", n->field, n->value);
		goto out;
	}
	if (f->type == PFT_STATE && !pr_in(n->value, pr_job_states)) {
		rc = mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: state value '%s' is not a "
			      "PipelineState: use e.g. PIPELINE_STATE_RUNNING or "
			      "PIPELINE_STATE_FAILED", n->value);
		goto out;
	}
out:
	if (rc)
		mdc_pr_filter_free(n);
	else
		*out = n;
	return rc;
}

/* term := [NOT | '-'] ( '(' expression ')' | restriction ) */
static int pf_term(struct pf_parser *ps, struct mdc_pr_filter **out)
{
	struct mdc_pr_filter *t = NULL;
	bool neg = false;
	int rc;

	*out = NULL;
	pf_ws(ps);
	if (pf_kw(ps, "NOT")) {
		neg = true;
	} else if (*ps->p == '-') {
		neg = true;
		ps->p++;
	}
	pf_ws(ps);
	if (++ps->depth > 64)
		return pf_fail(ps, "expression nested too deeply");
	if (*ps->p == '(') {
		ps->p++;
		if ((rc = pf_expr(ps, &t)))
			return rc;
		pf_ws(ps);
		if (*ps->p != ')') {
			mdc_pr_filter_free(t);
			return pf_fail(ps, "expected ')'");
		}
		ps->p++;
	} else if ((rc = pf_restriction(ps, &t))) {
		return rc;
	}
	ps->depth--;
	if (neg && !(t = pf_node(PF_NOT, t, NULL)))
		return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
	*out = t;
	return 0;
}

/* AIP-160: OR binds tighter than AND; juxtaposition is AND */
static int pf_factor(struct pf_parser *ps, struct mdc_pr_filter **out)
{
	struct mdc_pr_filter *l, *r;
	int rc;

	if ((rc = pf_term(ps, &l)))
		return rc;
	while (pf_kw(ps, "OR")) {
		if ((rc = pf_term(ps, &r))) {
			mdc_pr_filter_free(l);
			return rc;
		}
		if (!(l = pf_node(PF_OR, l, r)))
			return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
	}
	*out = l;
	return 0;
}

static int pf_expr(struct pf_parser *ps, struct mdc_pr_filter **out)
{
	struct mdc_pr_filter *l, *r;
	int rc;

	*out = NULL;
	if ((rc = pf_factor(ps, &l)))
		return rc;
	for (;;) {
		pf_ws(ps);
		if (!*ps->p || *ps->p == ')')
			break;
		pf_kw(ps, "AND");
		if ((rc = pf_factor(ps, &r))) {
			mdc_pr_filter_free(l);
			return rc;
		}
		if (!(l = pf_node(PF_AND, l, r)))
			return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
	}
	*out = l;
	return 0;
}

int mdc_pr_filter_parse(const char *expr, struct mdc_pr_filter **out, struct mdc_ctx *ctx)
{
	struct pf_parser ps = { expr, expr, ctx, 0 };
	int rc;

	*out = NULL;
	if (!expr)
		return 0;
	pf_ws(&ps);
	if (!*ps.p)
		return 0;	/* an empty filter matches everything */
	if ((rc = pf_expr(&ps, out)))
		return rc;
	pf_ws(&ps);
	if (*ps.p) {
		mdc_pr_filter_free(*out);
		*out = NULL;
		return pf_fail(&ps, "unexpected text");
	}
	return 0;
}

static bool pf_glob(const char *pat, const char *s)
{
	for (; *pat; pat++, s++) {
		if (*pat == '*') {
			for (const char *t = s;; t++) {
				if (pf_glob(pat + 1, t))
					return true;
				if (!*t)
					return false;
			}
		}
		if (*pat != *s)
			return false;
	}
	return !*s;
}

static const char *pf_job_str(const json_object *job, const char *field)
{
	if (!strcmp(field, "pipeline_name"))
		return mdc_json_get_str(mdc_json_get_path(job, "pipeline_spec.pipelineInfo"),
					"name", NULL);
	if (!strcmp(field, "pipeline_job_user_id")) {
		const char *n = mdc_json_get_str(job, "name", NULL);

		return n ? mdc_pr_basename(n) : NULL;
	}
	if (!strcmp(field, "template_metadata.version"))
		return mdc_json_get_str(mdc_json_get_obj(job, "template_metadata"), "version", NULL);
	return mdc_json_get_str(job, field, NULL);
}

static bool pf_cmp(const struct mdc_pr_filter *f, const json_object *job)
{
	const char *v;
	double t;
	int c;

	if (f->type == PFT_LABEL) {
		json_object *labels = mdc_json_get_obj(job, "labels"), *lv = NULL;
		const char *key = f->label ? f->label : f->value;

		if (!labels || !json_object_object_get_ex(labels, key, &lv))
			return false;
		if (f->op == PF_HAS)
			return !f->label || !strcmp(f->value, "*") ||
			       pf_glob(f->value, json_object_get_string(lv));
		return !strcmp(json_object_get_string(lv), f->value);
	}
	v = pf_job_str(job, f->field);
	if (f->type == PFT_TIME) {
		if (!v || mdc_pr_time_parse(v, &t))
			return f->op == PF_NE;
		c = t < f->t ? -1 : t > f->t ? 1 : 0;
	} else {
		if (!v)
			return f->op == PF_NE;
		if (f->op == PF_HAS)
			return pf_glob(f->value, v);
		c = strcmp(v, f->value);
	}
	switch (f->op) {
	case PF_EQ: return c == 0;
	case PF_NE: return c != 0;
	case PF_LT: return c < 0;
	case PF_GT: return c > 0;
	case PF_LE: return c <= 0;
	case PF_GE: return c >= 0;
	case PF_HAS: break;
	}
	return false;
}

bool mdc_pr_filter_match(const struct mdc_pr_filter *f, const json_object *job)
{
	if (!f)
		return true;
	switch (f->kind) {
	case PF_AND: return mdc_pr_filter_match(f->l, job) && mdc_pr_filter_match(f->r, job);
	case PF_OR: return mdc_pr_filter_match(f->l, job) || mdc_pr_filter_match(f->r, job);
	case PF_NOT: return !mdc_pr_filter_match(f->l, job);
	case PF_CMP: return pf_cmp(f, job);
	}
	return false;
}

static const char *const pr_order_fields[] = {
	"create_time", "update_time", "end_time", "start_time", NULL,
};

int mdc_pr_order_parse(const char *s, struct mdc_pr_order *o, struct mdc_ctx *ctx)
{
	struct mdc_strv items = MDC_STRV_INIT;
	int rc = 0;

	memset(o, 0, sizeof(*o));
	if (!s || !*s) {
		/* the service's default: newest first */
		o->key[0].field = "create_time";
		o->key[0].desc = true;
		o->n = 1;
		return 0;
	}
	if (mdc_strv_split(&items, s, ","))
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < items.n; i++) {
		char field[64] = "", dir[16] = "", extra[8] = "", snake[64];
		int n = sscanf(items.v[i], "%63s %15s %7s", field, dir, extra);
		size_t f;

		mdc_camel_to_snake(field, snake, sizeof(snake));
		for (f = 0; pr_order_fields[f] && strcmp(snake, pr_order_fields[f]); f++)
			;
		if (n < 1 || n > 2 || !pr_order_fields[f] ||
		    (n == 2 && strcmp(dir, "desc") && strcmp(dir, "asc"))) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "order_by '%s': use create_time, "
				      "update_time, end_time or start_time, each optionally "
				      "followed by desc", mdc_trim(items.v[i]));
			goto out;
		}
		if (o->n == sizeof(o->key) / sizeof(o->key[0])) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "order_by '%s': too many fields", s);
			goto out;
		}
		o->key[o->n].field = pr_order_fields[f];
		o->key[o->n].desc = n == 2 && !strcmp(dir, "desc");
		o->n++;
	}
out:
	mdc_strv_free(&items);
	return rc;
}

int mdc_pr_order_cmp(const struct mdc_pr_order *o, const json_object *a, const json_object *b)
{
	for (size_t i = 0; i < o->n; i++) {
		double ta = 0, tb = 0;
		bool ha = !mdc_pr_time_parse(mdc_json_get_str(a, o->key[i].field, NULL), &ta);
		bool hb = !mdc_pr_time_parse(mdc_json_get_str(b, o->key[i].field, NULL), &tb);
		int c;

		/* a job without the time (no end yet) sorts after those with it */
		if (ha != hb)
			return ha ? -1 : 1;
		c = ta < tb ? -1 : ta > tb ? 1 : 0;
		if (c)
			return o->key[i].desc ? -c : c;
	}
	return strcmp(mdc_json_get_str(a, "name", ""), mdc_json_get_str(b, "name", ""));
}

int mdc_pr_sort_by(const char *sort_by, char **order_by, struct mdc_ctx *ctx)
{
	struct mdc_strv items = MDC_STRV_INIT;
	struct mdc_buf b = MDC_BUF_INIT;
	struct mdc_pr_order o;
	int rc = 0;

	*order_by = NULL;
	if (mdc_strv_split(&items, sort_by, ","))
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < items.n; i++) {
		char *f = mdc_trim(items.v[i]);
		bool desc = *f == '~';
		char snake[64];

		mdc_camel_to_snake(desc ? f + 1 : f, snake, sizeof(snake));
		mdc_buf_addf(&b, "%s%s%s", b.len ? ", " : "", snake, desc ? " desc" : "");
	}
	if (!b.len) {
		rc = mdc_fail(ctx, MDC_ERR_USAGE, "--sort-by is empty: give e.g. ~createTime");
		goto out;
	}
	if ((rc = mdc_pr_order_parse(mdc_buf_str(&b), &o, ctx))) {
		mdc_ctx_clear(ctx);
		rc = mdc_fail(ctx, MDC_ERR_USAGE, "--sort-by '%s': use createTime, updateTime, "
			      "startTime or endTime, '~' in front for descending", sort_by);
		goto out;
	}
	if (!(*order_by = strdup(mdc_buf_str(&b))))
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
out:
	mdc_buf_free(&b);
	mdc_strv_free(&items);
	return rc;
}

/* PipelineJob's top-level fields (pipeline_job.proto) */
static const char *const pr_job_fields[] = {
	"name", "display_name", "create_time", "start_time", "end_time", "update_time",
	"pipeline_spec", "state", "job_detail", "error", "labels", "runtime_config",
	"encryption_spec", "service_account", "network", "reserved_ip_ranges",
	"psc_interface_config", "template_uri", "template_metadata", "schedule_name",
	"preflight_validations", "satisfies_pzs", "satisfies_pzi", "original_pipeline_job_id",
	"pipeline_task_rerun_configs", NULL,
};

int mdc_pr_read_mask(const char *mask, const json_object *job, json_object **out,
		     struct mdc_ctx *ctx)
{
	struct mdc_strv paths = MDC_STRV_INIT;
	json_object *res;
	int rc = 0;

	*out = NULL;
	if (mdc_strv_split(&paths, mask ? mask : "", ",") || !(res = json_object_new_object())) {
		mdc_strv_free(&paths);
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < paths.n; i++) {
		char snake[128], *dot;
		json_object *v;

		mdc_camel_to_snake(mdc_trim(paths.v[i]), snake, sizeof(snake));
		if ((dot = strchr(snake, '.')))
			*dot = '\0';
		if (!pr_in(snake, pr_job_fields)) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "read_mask: '%s' is not a field of "
				      "PipelineJob", paths.v[i]);
			goto out;
		}
		/* a sub-field path keeps its top-level field: enough to read it */
		if (job && (v = mdc_json_get(job, snake)))
			mdc_json_set(res, snake, mdc_json_copy(v));
	}
out:
	mdc_strv_free(&paths);
	if (rc)
		json_object_put(res);
	else
		*out = res;
	return rc;
}

/* --- waiting for a pipeline run ---------------------------------------------- */

static double pr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int mdc_pr_job_wait(struct mdc_client *c, const char *name, const struct mdc_pr_wait_opts *o,
		    json_object **job, struct mdc_ctx *ctx)
{
	double start = pr_now();
	char *path = pr_strdupf("v1beta1/%s", name);
	json_object *j = NULL;
	const char *state = "";
	int rc = 0;

	*job = NULL;
	if (!path)
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	for (unsigned n = 0;; n++) {
		double delay, until;

		json_object_put(j);
		j = NULL;
		if ((rc = mdc_api_call(c, "GET", path, NULL, NULL, &j, ctx)))
			goto out;
		state = mdc_json_get_str(j, "state", "");
		if (o && o->progress)
			o->progress(j, pr_now() - start, false, o->arg);
		if (mdc_pr_job_terminal(state))
			break;
		delay = mdc_lro_delay(n);
		if (delay > 5)
			delay = 5;
		if (o && o->timeout_s > 0 && pr_now() - start + delay > o->timeout_s) {
			rc = mdc_fail(ctx, MDC_ERR_TIMEOUT, "pipeline job '%s' still %s after %.0f s; "
				      "it goes on: wait again with 'mdcctl pipelines wait %s'",
				      name, state, o->timeout_s, name);
			goto out;
		}
		for (until = pr_now() + delay; pr_now() < until;) {
			struct timespec ts = { 0, 50 * 1000 * 1000 };

			if (o && o->interrupted && *o->interrupted) {
				rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "stopped waiting; pipeline "
					      "job '%s' goes on: resume with 'mdcctl pipelines wait "
					      "%s'", name, name);
				goto out;
			}
			nanosleep(&ts, NULL);
		}
	}
	if (strcmp(state, "PIPELINE_STATE_SUCCEEDED")) {
		json_object *err = mdc_json_get_obj(j, "error");

		rc = mdc_fail(ctx, MDC_ERR_OPFAILED, "pipeline job '%s' %s%s%s", name,
			      state + strlen("PIPELINE_STATE_"), err ? ": " : "",
			      err ? mdc_json_get_str(err, "message", "") : "");
	}
out:
	if (o && o->progress)
		o->progress(j, pr_now() - start, true, o->arg);
	*job = j;
	free(path);
	return rc;
}
