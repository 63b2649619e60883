/* mdc_rules.c - the managed API contract (DESIGN section 3, C1-C13); see
 * mdc_rules.h.  Pure functions: no I/O, no globals except the per-thread
 * name of the field the last violation concerned. */
#include "config.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdint.h>
#include "mdc_buf.h"
#include "mdc_hash.h"
#include "mdc_json.h"
#include "mdc_rules.h"
#include "mdc_schema.h"
#include "mdc_str.h"
#include "sc_options.h"

#define SS "orchestrator_spec.slurm_spec."

/* C1: the mask paths the service accepts, in canonical snake_case. */
static const char *const mdc_mask_paths[] = {
	"labels",
	"node_pools",
	/* updatable in the published resource (magic-modules
	 * ModelDevelopmentCluster.yaml: neither is immutable) */
	"display_name",
	"lustre_export_config",
	SS "partitions",
	SS "default_partition_id",
	SS "login_node_pool_id",
	SS "prolog_bash_scripts",
	SS "epilog_bash_scripts",
	SS "config",
	SS "scheduling",
	SS "accounting",
	SS "node_sets",
	NULL,
};

static __thread char mdc_rules_field[256];

const char *mdc_rules_last_field(void)
{
	return mdc_rules_field;
}

/* Fail with ERR naming FIELD (kept for the emulator's BadRequest detail). */
static int mdc_rules_vfail(struct mdc_ctx *ctx, enum mdc_err err, const char *field,
			   const char *fmt, va_list ap)
{
	snprintf(mdc_rules_field, sizeof(mdc_rules_field), "%s", field ? field : "");
	return mdc_vfail(ctx, err, fmt, ap);
}

static int mdc_rules_fail(struct mdc_ctx *ctx, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int mdc_rules_fail(struct mdc_ctx *ctx, const char *field, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = mdc_rules_vfail(ctx, MDC_ERR_INVAL, field, fmt, ap);
	va_end(ap);
	return rc;
}

/* The same for what the service refuses outright (MDC_ERR_REFUSED). */
static int mdc_rules_refuse(struct mdc_ctx *ctx, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int mdc_rules_refuse(struct mdc_ctx *ctx, const char *field, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = mdc_rules_vfail(ctx, MDC_ERR_REFUSED, field, fmt, ap);
	va_end(ap);
	return rc;
}

static const char *const mdc_mode_names[] = {
	[MDC_MODE_UNSPECIFIED] = "UPDATE_MODE_UNSPECIFIED",
	[MDC_MODE_USER_ONLY] = "USER_ONLY",
	[MDC_MODE_USER_AND_SERVICE] = "USER_AND_SERVICE",
};

int mdc_mode_parse(const char *s)
{
	if (!s || !*s)
		return MDC_MODE_UNSPECIFIED;
	for (size_t i = 0; i < sizeof(mdc_mode_names) / sizeof(mdc_mode_names[0]); i++)
		if (!strcmp(s, mdc_mode_names[i]))
			return (int) i;
	return -1;
}

const char *mdc_mode_name(enum mdc_update_mode mode)
{
	if ((size_t) mode >= sizeof(mdc_mode_names) / sizeof(mdc_mode_names[0]))
		return "UPDATE_MODE_UNSPECIFIED";
	return mdc_mode_names[mode];
}

const char *mdc_rules_mask_path(const char *path)
{
	char snake[256];

	if (!path || strlen(path) >= sizeof(snake) / 2)
		return NULL;
	mdc_camel_to_snake(path, snake, sizeof(snake));
	for (size_t i = 0; mdc_mask_paths[i]; i++)
		if (!strcmp(snake, mdc_mask_paths[i]))
			return mdc_mask_paths[i];
	return NULL;
}

int mdc_rules_parse_mask(const char *mask, struct mdc_strv *paths, struct mdc_ctx *ctx)
{
	struct mdc_strv parts = MDC_STRV_INIT;
	int rc = 0;

	if (mdc_strv_split(&parts, mask ? mask : "", ","))
		return mdc_nomem(ctx);
	for (size_t i = 0; i < parts.n; i++) {
		const char *p = mdc_rules_mask_path(parts.v[i]);

		if (!p) {
			rc = mdc_rules_fail(ctx, "update_mask",
					    "invalid update mask path '%s': allowed paths are labels, "
					    "display_name, lustre_export_config, node_pools and orchestrator_spec.slurm_spec.{partitions, "
					    "default_partition_id, login_node_pool_id, prolog_bash_scripts, "
					    "epilog_bash_scripts, config, scheduling, accounting, node_sets}",
					    parts.v[i]);
			goto out;
		}
		if (!mdc_strv_has(paths, p) && mdc_strv_push(paths, p)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
	if (!paths->n)
		rc = mdc_rules_fail(ctx, "update_mask", "empty update mask: name at least one path");
out:
	mdc_strv_free(&parts);
	return rc;
}

bool mdc_rules_cluster_id_ok(const char *id)
{
	size_t n;

	if (!id || !islower((unsigned char) id[0]))
		return false;
	for (n = 1; id[n]; n++)
		if (!islower((unsigned char) id[n]) && !isdigit((unsigned char) id[n]))
			return false;
	return n <= 10;
}

static const char *mdc_scope_name(unsigned scope)
{
	if (scope & SC_SCOPE_PARTITION)
		return "partition";
	if (scope & SC_SCOPE_NODE)
		return "node";
	return "cluster";
}

/* Is KEY known anywhere but SCOPE?  Then name where it belongs. */
static const char *mdc_other_scope(const char *key, unsigned scope)
{
	static const struct {
		unsigned scope;
		const char *where;
	} scopes[] = {
		{ SC_SCOPE_DBD, "a slurmdbd.conf parameter, which the service manages" },
		{ SC_SCOPE_CLUSTER, "a cluster-scope parameter: set it in orchestrator_spec.slurm_spec.config" },
		{ SC_SCOPE_PARTITION, "a partition parameter: set it in the partition's config" },
		{ SC_SCOPE_NODE, "a node parameter: set it in orchestrator_spec.slurm_spec.node_sets" },
	};

	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
		if (!(scopes[i].scope & scope) && sc_opt_find(key, scopes[i].scope))
			return scopes[i].where;
	return NULL;
}

/* --- text, ids, labels, numbers ---------------------------------------------- */

/* Length of the UTF-8 sequence at S and its code point, 0 if invalid. */
static size_t mdc_utf8_seq(const unsigned char *s, unsigned long *cp)
{
	size_t n, i;
	unsigned long c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, c = s[0] & 0x1f, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, c = s[0] & 0x0f, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, c = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates and beyond Unicode are invalid */
	if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

bool mdc_rules_utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *) s;
	unsigned long cp;
	size_t n;

	/* names and values are mostly ASCII: no decoding for those bytes */
	for (; p && *p; p += n) {
		n = 1;
		if (*p >= 0x80 && !(n = mdc_utf8_seq(p, &cp)))
			return false;
	}
	return true;
}

/* C0 and C1 control characters (U+0080-U+009F are terminal escapes too);
 * S is valid UTF-8. */
static bool mdc_has_control(const char *s)
{
	const unsigned char *p = (const unsigned char *) s;
	unsigned long cp;
	size_t n;

	for (; p && *p; p += n) {
		if (*p < 0x80) {
			if (*p < 0x20 || *p == 0x7f)
				return true;
			n = 1;
			continue;
		}
		if (!(n = mdc_utf8_seq(p, &cp)))
			return false;
		if (cp >= 0x80 && cp <= 0x9f)
			return true;
	}
	return false;
}

/* Slurm's value grammar (parse_config.c keyvalue_pattern) is either
 * "text without a double quote" or text without white space, read
 * verbatim.  sc_render quotes a value with spaces, so a double quote is
 * expressible only in an unquoted value that does not start with one. */
static bool mdc_value_renderable(const char *v)
{
	if (!strchr(v, '"'))
		return true;
	return v[0] != '"' && !strchr(v, ' ');
}

int mdc_rules_check_setting(const char *key, const char *value, unsigned scope,
			    const char *where, const struct sc_option **optp,
			    struct mdc_ctx *ctx)
{
	const char *w = where && *where ? where : "config";
	const struct sc_option *opt;
	const char *other, *hint;
	char why[256] = "";

	if (optp)
		*optp = NULL;
	if (!key || !*key)
		return mdc_rules_fail(ctx, w, "%s: empty parameter name", w);
	if (!mdc_rules_utf8_ok(key) || mdc_has_control(key))
		return mdc_rules_fail(ctx, w, "%s: a parameter name holds control characters or "
				      "invalid UTF-8", w);
	if (value && !mdc_rules_utf8_ok(value))
		return mdc_rules_fail(ctx, w, "%s: the value of '%s' is not valid UTF-8", w, key);
	if (value && mdc_has_control(value))
		return mdc_rules_refuse(ctx, w, "%s: the value of '%s' contains control characters "
					"(a newline, a tab...), which would inject slurm.conf lines",
					w, key);
	opt = sc_opt_find(key, scope);
	if (!opt) {
		other = mdc_other_scope(key, scope);
		if (other && strstr(other, "slurmdbd"))
			return mdc_rules_refuse(ctx, w, "%s: '%s' is refused: it is %s",
						w, key, other);
		if (other)
			return mdc_rules_fail(ctx, w, "%s: parameter '%s' is not valid in %s scope: it is %s",
					      w, key, mdc_scope_name(scope), other);
		/* an older Slurm's key: say it was removed, and what replaced it */
		if ((opt = sc_opt_find(key, SC_SCOPE_REMOVED)))
			return mdc_rules_fail(ctx, w, "%s: '%s' is no longer a Slurm key (%s)",
					      w, opt->name, opt->why);
		if ((hint = sc_opt_suggest(key, scope)))
			return mdc_rules_fail(ctx, w, "%s: unknown key '%s' (did you mean '%s'?)",
					      w, key, hint);
		return mdc_rules_fail(ctx, w, "%s: unknown key '%s'", w, key);
	}
	if (opt->flags & (SC_OPT_REFUSED | SC_OPT_RECORD | SC_OPT_MANAGED | SC_OPT_EXEC))
		return mdc_rules_refuse(ctx, w, "%s: '%s' is %srefused%s%s", w, opt->name,
					(opt->flags & SC_OPT_MANAGED) ? "service-managed and " : "",
					opt->why ? ": " : "", opt->why ? opt->why : "");
	if (value && strlen(value) > MDC_RULES_MAX_VALUE)
		return mdc_rules_fail(ctx, w, "%s: the value of '%s' is %zu bytes long: at most %d",
				      w, key, strlen(value), MDC_RULES_MAX_VALUE);
	if (value && !mdc_value_renderable(value))
		return mdc_rules_fail(ctx, w, "%s: the value of '%s' holds a double quote that "
				      "slurm.conf cannot express (only in a value without spaces that "
				      "does not start with one)", w, key);
	/* C13: each value alone, as the service does */
	if (value && !sc_opt_check_value(opt, value, why, sizeof(why)))
		return mdc_rules_fail(ctx, w, "%s: invalid value %s='%s': %s", w, opt->name, value, why);
	if (optp)
		*optp = opt;
	return 0;
}

int mdc_rules_check_id(const char *what, const char *id, struct mdc_ctx *ctx)
{
	size_t n = id ? strlen(id) : 0;
	const char *f = what && strstr(what, "partition") ? SS "partitions" : "node_pools";

	if (!id || !mdc_rules_utf8_ok(id) || mdc_has_control(id))
		return mdc_rules_fail(ctx, f, "%s id: control characters or invalid UTF-8", what);
	if (n == 0 || n > MDC_RULES_MAX_ID)
		return mdc_rules_fail(ctx, f, "%s id '%s': give 1 to %d characters", what, id,
				      MDC_RULES_MAX_ID);
	if (!isalnum((unsigned char) id[0]))
		return mdc_rules_fail(ctx, f, "invalid %s id '%s': start with a letter or a digit",
				      what, id);
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char) id[i]) && !strchr("-_.", id[i]))
			return mdc_rules_fail(ctx, f, "invalid %s id '%s': use letters, digits, '-', "
					      "'_' and '.'", what, id);
	/* PartitionName=DEFAULT and NodeName=DEFAULT set Slurm's defaults */
	if (!strcasecmp(id, "DEFAULT"))
		return mdc_rules_fail(ctx, f, "invalid %s id '%s': DEFAULT is a reserved word of "
				      "slurm.conf", what, id);
	return 0;
}

/* One label part: lower-case letters, digits, '_', '-' and international
 * characters (any letter beyond ASCII), counted in characters. */
static bool mdc_label_part_ok(const char *s, bool key)
{
	const unsigned char *p = (const unsigned char *) s;
	unsigned long cp;
	size_t n, chars = 0;

	if (!s || !mdc_rules_utf8_ok(s))
		return false;
	for (; *p; p += n, chars++) {
		n = mdc_utf8_seq(p, &cp);
		if (cp >= 0xa0)
			continue;	/* international */
		if (cp >= 0x80)
			return false;	/* C1 controls */
		if (chars == 0 && key && !(cp >= 'a' && cp <= 'z'))
			return false;
		if (!((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9') || cp == '_' || cp == '-'))
			return false;
	}
	return chars <= MDC_RULES_MAX_LABEL_CHARS && (!key || chars >= 1);
}

/* Print S safely in a message: control bytes and invalid UTF-8 would
 * forge lines in logs and terminals. */
static const char *mdc_safe(const char *s)
{
	return s && mdc_rules_utf8_ok(s) && !mdc_has_control(s) ? s : "(unprintable)";
}

int mdc_rules_check_label(const char *key, const char *value, struct mdc_ctx *ctx)
{
	if (!mdc_label_part_ok(key, true))
		return mdc_rules_fail(ctx, "labels", "label key '%s': use 1 to %d lower-case letters, "
				      "digits, '-', '_' or international characters, starting with a "
				      "letter", mdc_safe(key), MDC_RULES_MAX_LABEL_CHARS);
	if (value && !mdc_label_part_ok(value, false))
		return mdc_rules_fail(ctx, "labels", "label value '%s' (key '%s'): use at most %d "
				      "lower-case letters, digits, '-', '_' or international characters",
				      mdc_safe(value), key, MDC_RULES_MAX_LABEL_CHARS);
	return 0;
}

int mdc_rules_check_node_counts(const char *pool, long long min, long long max,
				struct mdc_ctx *ctx)
{
	if (min < 0 || max < 0 || min > max || max > MDC_RULES_MAX_POOL_NODES)
		return mdc_rules_fail(ctx, "node_pools", "node pool '%s': node counts need 0 <= min <= "
				      "max <= %d (got min %lld, max %lld)", mdc_safe(pool),
				      MDC_RULES_MAX_POOL_NODES, min, max);
	return 0;
}

int mdc_rules_check_config_map(const json_object *map, unsigned scope,
			       const char *where, struct mdc_ctx *ctx)
{
	const char *w = where && *where ? where : "config";
	struct lh_entry *ent, *prev;
	int rc;

	if (!map)
		return 0;
	if (!json_object_is_type(map, json_type_object))
		return mdc_rules_fail(ctx, w, "%s: config must be a map of Slurm parameter names "
				      "to strings", w);
	/* the earlier keys are the map's own: no copy, no allocation */
	for (ent = json_object_get_object(map)->head; ent; ent = ent->next) {
		const char *key = lh_entry_k(ent);
		json_object *val = (json_object *) lh_entry_v(ent);

		for (prev = json_object_get_object(map)->head; prev != ent; prev = prev->next)
			if (mdc_key_eq(lh_entry_k(prev), key))
				return mdc_rules_fail(ctx, w, "%s: parameters '%s' and '%s' are the same "
						      "Slurm parameter (names ignore case and "
						      "underscores): keep one", w,
						      (const char *) lh_entry_k(prev), key);
		if (!json_object_is_type(val, json_type_string))
			return mdc_rules_fail(ctx, w, "%s: the value of '%s' must be a string of "
					      "slurm.conf text", w, mdc_safe(key));
		if ((rc = mdc_rules_check_setting(key, json_object_get_string(val), scope, w, NULL, ctx)))
			return rc;
	}
	return 0;
}

/* The same for a partition's or node set's map, WHAT 'ID' naming it: the
 * name is formatted only for a message (a check per element of a list). */
static int mdc_check_named_map(const json_object *map, unsigned scope, const char *what,
			       const char *id, struct mdc_ctx *ctx)
{
	char where[300];

	if (!mdc_rules_check_config_map(map, scope, what, NULL))
		return 0;
	snprintf(where, sizeof(where), "%s '%s'", what, id);
	return mdc_rules_check_config_map(map, scope, where, ctx);
}

/* --- whole-resource validation ----------------------------------------------- */

static json_object *mdc_slurm_spec(const json_object *cl)
{
	return mdc_json_get_path(cl, "orchestrator_spec.slurm_spec");
}

static bool mdc_nonempty(const json_object *v)
{
	if (!v)
		return false;
	switch (json_object_get_type(v)) {
	case json_type_null:
		return false;
	case json_type_object:
		return json_object_object_length(v) > 0;
	case json_type_array:
		return json_object_array_length(v) > 0;
	case json_type_string:
		return json_object_get_string_len(v) > 0;
	default:
		return true;
	}
}

static json_object *mdc_find_by(const json_object *arr, const char *field, const char *id)
{
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);

		if (!strcmp(mdc_json_get_str(o, field, ""), id))
			return o;
	}
	return NULL;
}

/* *DUP = index of the first element of ARR whose FIELD repeats an earlier
 * one's, or SIZE_MAX: an index, not a scan per element, so lists of
 * thousands stay linear.  0 or MDC_ERR_NOMEM. */
static int mdc_first_dup(const json_object *arr, const char *field, size_t *dup)
{
	struct mdc_hash seen = MDC_HASH_INIT(MDC_HASH_EXACT);
	size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
	int rc;

	*dup = SIZE_MAX;
	/* sized once, one probe an id: this runs on every PATCH */
	rc = mdc_hash_reserve(&seen, n);
	for (size_t i = 0; i < n && !rc; i++) {
		const char *id = mdc_json_get_str(json_object_array_get_idx(arr, i), field, "");
		size_t have;

		if (!(rc = mdc_hash_insert(&seen, id, i, &have)) && have != i) {
			*dup = i;
			break;
		}
	}
	mdc_hash_free(&seen);
	return rc;
}

static int mdc_check_str_list(const json_object *v, const char *field, struct mdc_ctx *ctx)
{
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return mdc_rules_fail(ctx, field, "%s must be a list of strings", field);
	for (size_t i = 0; i < json_object_array_length(v); i++)
		if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_string))
			return mdc_rules_fail(ctx, field, "%s[%zu] must be a string", field, i);
	return 0;
}

/* Numeric fields of a node pool: proto3 int64/int32, which JSON carries as
 * a number or a string of digits; never a fraction, an exponent, a
 * boolean or out of range. */
static const struct {
	const char *obj, *field;
	long long max;
} mdc_pool_numbers[] = {
	{ "scaling_spec", "min_node_count", MDC_RULES_MAX_POOL_NODES },
	{ "scaling_spec", "max_node_count", MDC_RULES_MAX_POOL_NODES },
	{ "boot_disk", "boot_disk_size_gb", 65536 },
	{ "machine_spec", "accelerator_count", 16 },
};

/* A node pool's enums: their values are the schema's (lib/spec/mdc_schema.c,
 * the published resource); a value outside is refused at request time as
 * the service does. */
static const char *const mdc_pool_enums[] = {
	"boot_disk.boot_disk_type",
	"provisioning_model",
	"machine_spec.reservation_affinity.reservation_affinity_type",
	"confidential_instance_config.confidential_instance_type",
};

static int mdc_check_pool_enums(const json_object *p, const char *id, struct mdc_ctx *ctx)
{
	for (size_t i = 0; i < sizeof(mdc_pool_enums) / sizeof(mdc_pool_enums[0]); i++) {
		char path[128];
		const struct mdc_schema_field *f;
		json_object *v = mdc_json_get_path(p, mdc_pool_enums[i]);
		struct mdc_buf b = MDC_BUF_INIT;
		bool ok = false;
		int rc;

		snprintf(path, sizeof(path), "node_pools.%s", mdc_pool_enums[i]);
		if (!v || !(f = mdc_schema_find(path)) || !f->values)
			continue;
		for (size_t k = 0; f->values[k] && json_object_is_type(v, json_type_string); k++)
			ok = ok || !strcmp(json_object_get_string(v), f->values[k]);
		if (ok)
			continue;
		for (size_t k = 0; f->values[k]; k++)
			mdc_buf_addf(&b, "%s%s", k ? ", " : "", f->values[k]);
		rc = mdc_rules_fail(ctx, "node_pools", "node pool '%s': invalid %s '%s': expected "
				    "one of %s", id, mdc_pool_enums[i],
				    mdc_safe(json_object_get_string(v)), mdc_buf_str(&b));
		mdc_buf_free(&b);
		return rc;
	}
	return 0;
}

/* The provisioning model's constraints (same source): a GPU pool without a
 * reservation affinity must name one; RESERVATION needs an affinity and
 * ON_DEMAND, SPOT and FLEX_START refuse one; a flex-start duration is for
 * FLEX_START only. */
static int mdc_check_pool_provisioning(const json_object *p, const char *id, struct mdc_ctx *ctx)
{
	json_object *ms = mdc_json_get(p, "machine_spec");
	const char *model = mdc_json_get_str(p, "provisioning_model", "");
	bool gpu = *mdc_json_get_str(ms, "accelerator_type", "") ||
		   mdc_json_get_int(ms, "accelerator_count", 0) > 0;
	bool affinity = mdc_json_get(ms, "reservation_affinity") != NULL;
	bool unset = !*model || !strcmp(model, "PROVISIONING_MODEL_UNSPECIFIED");

	if (gpu && unset && !affinity)
		return mdc_rules_fail(ctx, "node_pools", "node pool '%s' has GPUs and no reservation "
				      "affinity: set provisioning_model (ON_DEMAND, SPOT or FLEX_START), "
				      "or machine_spec.reservation_affinity for RESERVATION", id);
	if (!strcmp(model, "RESERVATION") && !affinity)
		return mdc_rules_fail(ctx, "node_pools", "node pool '%s': provisioning_model "
				      "RESERVATION needs machine_spec.reservation_affinity", id);
	if (affinity && !unset && strcmp(model, "RESERVATION"))
		return mdc_rules_fail(ctx, "node_pools", "node pool '%s': machine_spec."
				      "reservation_affinity cannot be set with provisioning_model %s", id,
				      model);
	if (mdc_json_get(p, "flex_start_max_duration") && strcmp(model, "FLEX_START"))
		return mdc_rules_fail(ctx, "node_pools", "node pool '%s': flex_start_max_duration "
				      "applies only with provisioning_model FLEX_START", id);
	return 0;
}

/* Machine types whose boot disk can only be hyperdisk-balanced: A3 Ultra
 * (the published resource: its default is hyperdisk-balanced) and A4 (the
 * service refuses pd-standard on a4-highgpu-8g, in a real answer in
 * behardja/cloud-training-cluster). */
static const char *const mdc_hyperdisk_only[] = { "a3-ultragpu-", "a4-" };

static int mdc_check_pool_disk(const json_object *p, size_t i, const char *id, struct mdc_ctx *ctx)
{
	const char *type = mdc_json_get_str(mdc_json_get(p, "machine_spec"), "machine_type", "");
	const char *disk = mdc_json_get_str(mdc_json_get(p, "boot_disk"), "boot_disk_type", "");
	char field[128];

	if (!*disk || !strcmp(disk, "hyperdisk-balanced"))
		return 0;
	for (size_t k = 0; k < sizeof(mdc_hyperdisk_only) / sizeof(mdc_hyperdisk_only[0]); k++)
		if (mdc_startswith(type, mdc_hyperdisk_only[k])) {
			snprintf(field, sizeof(field), "node_pools[%zu].boot_disk.boot_disk_type", i);
			return mdc_rules_fail(ctx, field, "node pool '%s': machine type %s takes "
					      "boot_disk_type hyperdisk-balanced (or unset, the default), "
					      "not '%s'", id, mdc_safe(type), mdc_safe(disk));
		}
	return 0;
}

/* *OUT = the integer at OBJ.FIELD (0 when absent); false if not one. */
static bool mdc_json_count(const json_object *obj, const char *field, long long max,
			   long long *out)
{
	json_object *v = mdc_json_get(obj, field);
	const char *s;
	char *end;

	*out = 0;
	if (!v)
		return true;
	if (json_object_is_type(v, json_type_int)) {
		/* json-c keeps integers beyond int64 as uint64: compare
		 * the text, which is exact */
		s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	} else if (json_object_is_type(v, json_type_string)) {
		s = json_object_get_string(v);
	} else {
		return false;
	}
	if (!*s || strlen(s) > 9)
		return false;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char) *p))
			return false;
	*out = strtoll(s, &end, 10);
	return *out <= max;
}

static int mdc_check_pools(const json_object *pools, struct mdc_ctx *ctx)
{
	size_t dup;

	if (!pools)
		return 0;
	if (!json_object_is_type(pools, json_type_array))
		return mdc_rules_fail(ctx, "node_pools", "node_pools must be a list of node pools");
	if (json_object_array_length(pools) > MDC_RULES_MAX_POOLS)
		return mdc_rules_fail(ctx, "node_pools", "%zu node pools: at most %d",
				      json_object_array_length(pools), MDC_RULES_MAX_POOLS);
	if (mdc_first_dup(pools, "id", &dup))
		return mdc_nomem(ctx);
	for (size_t i = 0; i < json_object_array_length(pools); i++) {
		json_object *p = json_object_array_get_idx(pools, i);
		const char *id = mdc_json_get_str(p, "id", "");
		json_object *img = mdc_json_get(p, "node_image");
		long long n[4];
		int rc;

		if (!json_object_is_type(p, json_type_object) || !*id)
			return mdc_rules_fail(ctx, "node_pools", "node_pools[%zu] needs an 'id'", i);
		if ((rc = mdc_rules_check_id("node pool", id, ctx)))
			return rc;
		if (i == dup)
			return mdc_rules_fail(ctx, "node_pools", "node pool '%s' is listed twice", id);
		if (img && !json_object_is_type(img, json_type_string) &&
		    !json_object_is_type(img, json_type_null))
			return mdc_rules_fail(ctx, "node_pools", "node pool '%s': node_image must be a "
					      "string", id);
		if (img && mdc_has_control(json_object_get_string(img)))
			return mdc_rules_fail(ctx, "node_pools", "node pool '%s': invalid node_image", id);
		for (size_t k = 0; k < sizeof(mdc_pool_numbers) / sizeof(mdc_pool_numbers[0]); k++)
			if (!mdc_json_count(mdc_json_get(p, mdc_pool_numbers[k].obj),
					    mdc_pool_numbers[k].field, mdc_pool_numbers[k].max, &n[k]))
				return mdc_rules_fail(ctx, "node_pools", "node pool '%s': %s.%s must be "
						      "an integer from 0 to %lld", id,
						      mdc_pool_numbers[k].obj, mdc_pool_numbers[k].field,
						      mdc_pool_numbers[k].max);
		if (mdc_json_get(mdc_json_get(p, "scaling_spec"), "max_node_count") &&
		    (rc = mdc_rules_check_node_counts(id, n[0], n[1], ctx)))
			return rc;
		if ((rc = mdc_check_pool_enums(p, id, ctx)) ||
		    (rc = mdc_check_pool_provisioning(p, id, ctx)) ||
		    (rc = mdc_check_pool_disk(p, i, id, ctx)))
			return rc;
	}
	return 0;
}

static int mdc_check_labels(const json_object *labels, struct mdc_ctx *ctx)
{
	int rc;

	if (!labels)
		return 0;
	if (!json_object_is_type(labels, json_type_object))
		return mdc_rules_fail(ctx, "labels", "labels must be a map of strings");
	if (json_object_object_length(labels) > MDC_RULES_MAX_LABELS)
		return mdc_rules_fail(ctx, "labels", "%d labels: at most %d",
				      json_object_object_length(labels), MDC_RULES_MAX_LABELS);
	json_object_object_foreach((json_object *) labels, k, v) {
		if (!json_object_is_type(v, json_type_string))
			return mdc_rules_fail(ctx, "labels", "label '%s' must have a string value",
					      mdc_safe(k));
		if ((rc = mdc_rules_check_label(k, json_object_get_string(v), ctx)))
			return rc;
	}
	return 0;
}

/* Every string and member name of V is valid UTF-8 (json-c does not
 * check).  A subtree that is PREV's own (the same object, shared by the
 * copy-on-write patch) was checked when PREV was made: skipped, so a
 * change costs what it changed. */
static bool mdc_json_utf8_fast(const json_object *v, const json_object *prev)
{
	if (prev && v == prev)
		return true;
	switch (json_object_get_type(v)) {
	case json_type_string:
		return mdc_rules_utf8_ok(json_object_get_string((json_object *) v));
	case json_type_object: {
		bool pobj = prev && json_object_is_type(prev, json_type_object);

		json_object_object_foreach((json_object *) v, k, m) {
			json_object *pm = NULL;

			if (pobj)
				json_object_object_get_ex(prev, k, &pm);
			if (!mdc_rules_utf8_ok(k) || !mdc_json_utf8_fast(m, pm))
				return false;
		}
		return true;
	}
	case json_type_array: {
		size_t pn = prev && json_object_is_type(prev, json_type_array)
			? json_object_array_length(prev) : 0;

		/* an element is either PREV's own (skipped) or new: a new list
		 * (a partitions PATCH) is not looked up in the old one */
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *x = json_object_array_get_idx(v, i);

			if (!(i < pn && x == json_object_array_get_idx(prev, i)) &&
			    !mdc_json_utf8_fast(x, NULL))
				return false;
		}
		return true;
	}
	default:
		return true;
	}
}

/* PATH (size SZ) gets the place of the first string or member name of V
 * that is not valid UTF-8 (after mdc_json_utf8_fast said there is one). */
static bool mdc_json_utf8_where(const json_object *v, char *path, size_t sz)
{
	size_t len = strlen(path);

	switch (json_object_get_type(v)) {
	case json_type_string:
		return mdc_rules_utf8_ok(json_object_get_string((json_object *) v));
	case json_type_object:
		json_object_object_foreach((json_object *) v, k, m) {
			if (!mdc_rules_utf8_ok(k))
				return false;
			snprintf(path + len, sz - len, "%s%s", len ? "." : "", k);
			if (!mdc_json_utf8_where(m, path, sz))
				return false;
			path[len] = '\0';
		}
		return true;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			snprintf(path + len, sz - len, "[%zu]", i);
			if (!mdc_json_utf8_where(json_object_array_get_idx(v, i), path, sz))
				return false;
			path[len] = '\0';
		}
		return true;
	default:
		return true;
	}
}

/* An index of the ids of the objects of ARR (keys borrowed from ARR). */
static int mdc_index_ids(const json_object *arr, const char *field, struct mdc_hash *idx)
{
	size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++)
		if (mdc_hash_put(idx, mdc_json_get_str(json_object_array_get_idx(arr, i), field, ""),
				 i, false))
			return MDC_ERR_NOMEM;
	return 0;
}

static int mdc_check_partitions(const json_object *parts, const struct mdc_hash *pool_ids,
				const char *login, struct mdc_ctx *ctx)
{
	size_t dup;
	int rc;

	if (!parts)
		return 0;
	if (!json_object_is_type(parts, json_type_array))
		return mdc_rules_fail(ctx, SS "partitions", "partitions must be a list");
	if (json_object_array_length(parts) > MDC_RULES_MAX_PARTITIONS)
		return mdc_rules_fail(ctx, SS "partitions", "%zu partitions: at most %d",
				      json_object_array_length(parts), MDC_RULES_MAX_PARTITIONS);
	if (mdc_first_dup(parts, "id", &dup))
		return mdc_nomem(ctx);
	for (size_t i = 0; i < json_object_array_length(parts); i++) {
		json_object *p = json_object_array_get_idx(parts, i);
		const char *id = mdc_json_get_str(p, "id", "");
		json_object *ids = mdc_json_get(p, "node_pool_ids");

		if (!json_object_is_type(p, json_type_object) || !*id)
			return mdc_rules_fail(ctx, SS "partitions", "partitions[%zu] needs an 'id'", i);
		if ((rc = mdc_rules_check_id("partition", id, ctx)))
			return rc;
		if (i == dup)
			return mdc_rules_fail(ctx, SS "partitions", "partition '%s' is listed twice", id);
		if ((rc = mdc_check_str_list(ids, SS "partitions.node_pool_ids", ctx)))
			return rc;
		for (size_t j = 0; ids && j < json_object_array_length(ids); j++) {
			const char *pid = json_object_get_string(json_object_array_get_idx(ids, j));

			if (!mdc_hash_get(pool_ids, pid, NULL))
				return mdc_rules_fail(ctx, SS "partitions", "partition '%s': node pool '%s' "
						      "does not exist", id, mdc_safe(pid));
			if (*login && !strcmp(pid, login))
				return mdc_rules_fail(ctx, SS "partitions", "partition '%s': node pool "
						      "'%s' is the login pool and has no Slurm nodes",
						      id, pid);
		}
		if ((rc = mdc_check_named_map(mdc_json_get(p, "config"), SC_SCOPE_PARTITION,
					      "partition", id, ctx)))
			return rc;
	}
	return 0;
}

static int mdc_check_node_sets(const json_object *sets, const struct mdc_hash *pool_ids,
			       const char *login, struct mdc_ctx *ctx)
{
	size_t sdup;
	int rc;

	if (!sets)
		return 0;
	if (!json_object_is_type(sets, json_type_array))
		return mdc_rules_fail(ctx, SS "node_sets", "node_sets must be a list");
	if (mdc_first_dup(sets, "node_pool_id", &sdup))
		return mdc_nomem(ctx);
	for (size_t i = 0; i < json_object_array_length(sets); i++) {
		json_object *s = json_object_array_get_idx(sets, i);
		const char *pid = mdc_json_get_str(s, "node_pool_id", "");

		if (!*pid)
			return mdc_rules_fail(ctx, SS "node_sets", "node_sets[%zu] needs a 'node_pool_id'", i);
		if (!mdc_hash_get(pool_ids, pid, NULL) || (*login && !strcmp(pid, login)))
			return mdc_rules_fail(ctx, SS "node_sets", "node set '%s' names no compute "
					      "node pool: use the id of a pool in node_pools other than "
					      "the login pool", mdc_safe(pid));
		if (i == sdup)
			return mdc_rules_fail(ctx, SS "node_sets", "node set '%s' is listed twice", pid);
		if ((rc = mdc_check_named_map(mdc_json_get(s, "config"), SC_SCOPE_NODE, "node set",
					      pid, ctx)))
			return rc;
	}
	return 0;
}

/* The rules every resulting cluster obeys (create and update alike).  PREV
 * (NULL for a create) is the valid cluster CL was made from: subtrees CL
 * shares with it need no UTF-8 walk.  Cross-references (pools, the login
 * pool, the default partition) are looked up in indexes, so a cluster of
 * N partitions costs O(N). */
/* The display name: up to 128 characters of any UTF-8 (the generated
 * resource's limit, which this follows where the docs say otherwise). */
static int mdc_check_display_name(const json_object *v, struct mdc_ctx *ctx)
{
	const unsigned char *s;
	size_t n = 0;

	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return mdc_rules_fail(ctx, "display_name", "display_name must be a string");
	for (s = (const unsigned char *) json_object_get_string((json_object *) v); *s; s++)
		n += (*s & 0xC0) != 0x80;	/* code points, not bytes */
	if (n > 128)
		return mdc_rules_fail(ctx, "display_name", "display_name is %zu characters long: at "
				      "most 128 are allowed", n);
	return 0;
}

static int mdc_validate(const json_object *cl, const json_object *prev, struct mdc_ctx *ctx)
{
	json_object *ss = mdc_slurm_spec(cl), *pools = mdc_json_get(cl, "node_pools");
	json_object *parts = mdc_json_get(ss, "partitions"), *sets = mdc_json_get(ss, "node_sets");
	const char *login = mdc_json_get_str(ss, "login_node_pool_id", "");
	const char *def = mdc_json_get_str(ss, "default_partition_id", "");
	struct mdc_hash pool_ids = MDC_HASH_INIT(MDC_HASH_EXACT);
	char path[512] = "";
	int rc;

	if (!mdc_json_utf8_fast(cl, prev)) {
		mdc_json_utf8_where(cl, path, sizeof(path));
		return mdc_rules_fail(ctx, path, "%s: invalid UTF-8", *path ? path : "the cluster");
	}
	if ((rc = mdc_check_display_name(mdc_json_get(cl, "display_name"), ctx)) ||
	    (rc = mdc_check_labels(mdc_json_get(cl, "labels"), ctx)) ||
	    (rc = mdc_check_pools(pools, ctx)) ||
	    (rc = mdc_check_str_list(mdc_json_get(ss, "prolog_bash_scripts"),
				     SS "prolog_bash_scripts", ctx)) ||
	    (rc = mdc_check_str_list(mdc_json_get(ss, "epilog_bash_scripts"),
				     SS "epilog_bash_scripts", ctx)))
		return rc;
	if (mdc_index_ids(pools, "id", &pool_ids)) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if (*login && !mdc_hash_get(&pool_ids, login, NULL)) {
		rc = mdc_rules_fail(ctx, SS "login_node_pool_id", "login_node_pool_id '%s' names no "
				    "node pool: add the pool to node_pools", mdc_safe(login));
		goto out;
	}
	if ((rc = mdc_check_partitions(parts, &pool_ids, login, ctx)))
		goto out;
	if (*def && !mdc_find_by(parts, "id", def)) {
		rc = mdc_rules_fail(ctx, SS "default_partition_id", "default_partition_id '%s' names "
				    "no partition: name one of the cluster's partitions", mdc_safe(def));
		goto out;
	}
	if ((rc = mdc_check_node_sets(sets, &pool_ids, login, ctx)) ||
	    (rc = mdc_rules_check_config_map(mdc_json_get(ss, "config"), SC_SCOPE_CLUSTER,
					     SS "config", ctx)))
		goto out;
	/* C9: one or the other */
	if (mdc_nonempty(mdc_json_get(ss, "config")) &&
	    (mdc_nonempty(mdc_json_get(ss, "scheduling")) || mdc_nonempty(mdc_json_get(ss, "accounting"))))
		rc = mdc_rules_fail(ctx, SS "config", "the cluster would use both config and the legacy "
				    "scheduling/accounting fields, which config supersedes: send every "
				    "setting in config under its slurm.conf name, omit scheduling and "
				    "accounting, and name all three paths in updateMask to clear them");
out:
	mdc_hash_free(&pool_ids);
	return rc;
}

/* C9: a request that itself sets both. */
static int mdc_check_payload_legacy(const json_object *payload, struct mdc_ctx *ctx)
{
	json_object *ss = mdc_slurm_spec(payload);

	if (mdc_nonempty(mdc_json_get(ss, "config")) &&
	    (mdc_nonempty(mdc_json_get(ss, "scheduling")) || mdc_nonempty(mdc_json_get(ss, "accounting"))))
		return mdc_rules_fail(ctx, SS "config", "the request sets both config and the legacy "
				      "scheduling/accounting fields: a cluster uses one or the other; "
				      "put every setting in config");
	return 0;
}

/* --- copy-on-write ------------------------------------------------------------
 *
 * An updated cluster shares every subtree the update leaves alone with the
 * current one (references, not copies): a PATCH costs what it changes, not
 * the size of the cluster.  Whatever is shared is never changed in place;
 * an object on the way to a change is replaced by a shallow copy first. */

/* New reference: a new object or array holding references to V's members
 * (V itself, referenced, for any other type). */
static json_object *mdc_shallow(const json_object *v)
{
	json_object *c;

	if (json_object_is_type(v, json_type_array)) {
		size_t n = json_object_array_length(v);

		if (!(c = json_object_new_array_ext((int) n)))
			return NULL;
		for (size_t i = 0; i < n; i++)
			if (json_object_array_add(c, json_object_get(json_object_array_get_idx(v, i)))) {
				json_object_put(c);
				return NULL;
			}
		return c;
	}
	if (!json_object_is_type(v, json_type_object))
		return json_object_get((json_object *) v);
	if (!(c = json_object_new_object()))
		return NULL;
	json_object_object_foreach((json_object *) v, k, m)
		if (json_object_object_add(c, k, json_object_get(m))) {
			json_object_put(c);
			return NULL;
		}
	return c;
}

/* OBJ's member KEY (snake_case), replaced by a shallow copy OBJ alone
 * holds; an array's elements are copied one level too, so they can be
 * changed.  NULL when absent or out of memory. */
static json_object *mdc_own_member(json_object *obj, const char *key, bool elems)
{
	json_object *v = NULL, *c;

	if (!json_object_object_get_ex(obj, key, &v) || !v)
		return NULL;
	if (!(c = mdc_shallow(v)))
		return NULL;
	for (size_t i = 0; elems && json_object_is_type(c, json_type_array) &&
	     i < json_object_array_length(c); i++) {
		json_object *e = mdc_shallow(json_object_array_get_idx(c, i));

		if (!e || json_object_array_put_idx(c, i, e)) {
			json_object_put(e);
			json_object_put(c);
			return NULL;
		}
	}
	if (json_object_object_add(obj, key, c)) {
		json_object_put(c);
		return NULL;
	}
	return c;
}

/* The object at PATH (snake_case, dotted) of OBJ, every object on the way
 * replaced by a copy OBJ alone holds; missing ones are created if CREATE.
 * NULL when absent (*NOMEM false) or out of memory (*NOMEM true). */
static json_object *mdc_own_path(json_object *obj, const char *path, bool create, bool *nomem)
{
	char part[256];
	const char *p = path, *dot;
	json_object *cur = obj;

	*nomem = false;
	while (cur && *p) {
		json_object *next = NULL;
		size_t n;

		dot = strchr(p, '.');
		n = dot ? (size_t) (dot - p) : strlen(p);
		if (n >= sizeof(part))
			return NULL;
		memcpy(part, p, n);
		part[n] = '\0';
		if (json_object_object_get_ex(cur, part, &next) && json_object_is_type(next, json_type_object)) {
			next = mdc_own_member(cur, part, false);
			*nomem = !next;
		} else if (create) {
			next = json_object_new_object();
			*nomem = !next || mdc_json_set(cur, part, next);
			if (*nomem)
				next = NULL;
		} else {
			next = NULL;
		}
		cur = next;
		p = dot ? dot + 1 : p + n;
	}
	return cur;
}

/* --- images (C11) ------------------------------------------------------------ */

static void mdc_default_image(const struct mdc_images *im, const char *type, char *out, size_t sz)
{
	const char *img = type && *type ? mdc_json_get_str(im ? im->defaults : NULL, type, NULL) : NULL;

	if (!img)
		img = mdc_json_get_str(im ? im->defaults : NULL, "*", NULL);
	if (img)
		snprintf(out, sz, "%s", img);
	else
		snprintf(out, sz, "%s-default", type && *type ? type : "unknown");
}

static const char *mdc_pool_type(const json_object *pool)
{
	return mdc_json_get_str(mdc_json_get(pool, "machine_spec"), "machine_type", "");
}

/* Resolve images of RESULT's pools; PINNED_NEW lists the pinned pools. */
static int mdc_resolve_images(json_object *result, const json_object *cur,
			      const struct mdc_strv *pinned, enum mdc_update_mode mode,
			      const struct mdc_images *im, struct mdc_strv *recreated)
{
	json_object *pools = mdc_json_get(result, "node_pools"), *pin_arr;

	/* RESULT may share its pools with CUR: set images on copies */
	if (pools && !(pools = mdc_own_member(result, "node_pools", true)))
		return MDC_ERR_NOMEM;
	for (size_t i = 0; pools && i < json_object_array_length(pools); i++) {
		json_object *p = json_object_array_get_idx(pools, i);
		const char *id = mdc_json_get_str(p, "id", "");
		json_object *old = cur ? mdc_find_by(mdc_json_get(cur, "node_pools"), "id", id) : NULL;
		const char *running = old ? mdc_json_get_str(old, "node_image", "") : NULL;
		json_object *was;
		char img[256];

		if (mdc_strv_has(pinned, id))
			snprintf(img, sizeof(img), "%s", mdc_json_get_str(p, "node_image", ""));
		else if (mode == MDC_MODE_USER_ONLY && old)
			snprintf(img, sizeof(img), "%s", running);
		else
			mdc_default_image(im, mdc_pool_type(p), img, sizeof(img));
		if (mdc_json_set(p, "node_image", json_object_new_string(img)))
			return MDC_ERR_NOMEM;
		if (old && strcmp(running, img) && recreated && mdc_strv_push(recreated, id))
			return MDC_ERR_NOMEM;
		/* unchanged: the current pool itself (see mdc_share_elements) */
		was = cur ? json_object_array_get_idx(mdc_json_get(cur, "node_pools"), i) : NULL;
		if (was && was != p && json_object_is_type(was, json_type_object) && mdc_json_equal(p, was) &&
		    json_object_array_put_idx(pools, i, json_object_get(was)))
			return MDC_ERR_NOMEM;
	}
	pin_arr = json_object_new_array();
	for (size_t i = 0; pin_arr && i < pinned->n; i++)
		json_object_array_add(pin_arr, json_object_new_string(pinned->v[i]));
	if (!pin_arr || mdc_json_set(result, "_pinned_pools", pin_arr))
		return MDC_ERR_NOMEM;
	return 0;
}

/* --- create ------------------------------------------------------------------ */

int mdc_rules_check_create(const char *cluster_id, const json_object *cluster,
			   const struct mdc_images *images, json_object **out,
			   struct mdc_ctx *ctx)
{
	struct mdc_strv pinned = MDC_STRV_INIT;
	json_object *cl = NULL, *pools;
	int rc;

	*out = NULL;
	if (!mdc_rules_cluster_id_ok(cluster_id))
		return mdc_rules_fail(ctx, "model_development_cluster_id",
				      "invalid cluster id '%s': a cluster with a Slurm orchestrator "
				      "needs an id matching ^[a-z][a-z0-9]{0,9}$ (a lower-case letter, "
				      "then up to 9 lower-case letters or digits)",
				      cluster_id ? cluster_id : "");
	if (!cluster || !json_object_is_type(cluster, json_type_object))
		return mdc_rules_fail(ctx, "model_development_cluster", "the cluster must be a JSON object");
	cl = mdc_json_normalize(cluster, MDC_CASE_SNAKE);
	if (!cl)
		return mdc_nomem(ctx);
	json_object_object_del(cl, "_pinned_pools");
	if ((rc = mdc_check_payload_legacy(cl, ctx)) || (rc = mdc_validate(cl, NULL, ctx)))
		goto out;
	pools = mdc_json_get(cl, "node_pools");
	if (!pools || !json_object_array_length(pools)) {
		rc = mdc_rules_fail(ctx, "node_pools", "a cluster needs at least one node pool");
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(pools); i++) {
		json_object *p = json_object_array_get_idx(pools, i);

		if (*mdc_json_get_str(p, "node_image", "") &&
		    mdc_strv_push(&pinned, mdc_json_get_str(p, "id", ""))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
	if (mdc_resolve_images(cl, NULL, &pinned, MDC_MODE_USER_AND_SERVICE, images, NULL)) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	*out = cl;
	cl = NULL;
out:
	json_object_put(cl);
	mdc_strv_free(&pinned);
	return rc;
}

/* --- patch ------------------------------------------------------------------- */

/* New reference: the list V with its elements that equal OLD's at the same
 * index being OLD's own (OLD: what V replaces).  A whole list sent back
 * with one element changed then keeps the others as the same objects,
 * which versions share and the emulator serialises once; NULL on ENOMEM. */
static json_object *mdc_share_elements(json_object *v, const json_object *old)
{
	size_t n, m;
	json_object *c = NULL;

	if (!json_object_is_type(v, json_type_array) || !json_object_is_type(old, json_type_array))
		return json_object_get(v);
	n = json_object_array_length(v);
	m = json_object_array_length(old);
	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(v, i);
		json_object *b = i < m ? json_object_array_get_idx(old, i) : NULL;
		bool same = b && a != b && json_object_is_type(a, json_type_object) && mdc_json_equal(a, b);

		if (same && !c) {
			if (!(c = json_object_new_array_ext((int) n)))
				return NULL;
			for (size_t j = 0; j < i; j++)
				if (json_object_array_add(c, json_object_get(json_object_array_get_idx(v, j))))
					goto nomem;
		}
		if (c && json_object_array_add(c, json_object_get(same ? b : a)))
			goto nomem;
	}
	return c ? c : json_object_get(v);
nomem:
	json_object_put(c);
	return NULL;
}

/* Set or clear PATH (canonical) of DST from SRC: the value is SRC's, shared
 * (a list's unchanged elements: DST's). */
static int mdc_copy_path(json_object *dst, const json_object *src, const char *path)
{
	json_object *v = mdc_json_get_path(src, path), *parent = dst, *shared;
	const char *dot = strrchr(path, '.');
	const char *key = dot ? dot + 1 : path;
	bool nomem = false;

	if (dot) {
		char ppath[256];

		snprintf(ppath, sizeof(ppath), "%.*s", (int) (dot - path), path);
		parent = mdc_own_path(dst, ppath, mdc_nonempty(v), &nomem);
	}
	if (!parent)
		return nomem ? MDC_ERR_NOMEM : 0;
	if (!mdc_nonempty(v)) {
		/* C2: named but absent = cleared; C7: sent empty = cleared */
		mdc_json_del(parent, key);
		return 0;
	}
	if (!(shared = mdc_share_elements(v, mdc_json_get(parent, key))))
		return MDC_ERR_NOMEM;
	return mdc_json_set(parent, key, shared);
}

static bool mdc_path_equal(const json_object *a, const json_object *b, const char *path)
{
	json_object *x = mdc_json_get_path(a, path), *y = mdc_json_get_path(b, path);

	if (x == y)
		return true;	/* shared: unchanged */
	if (!mdc_nonempty(x) && !mdc_nonempty(y))
		return true;
	return x && y && mdc_json_equal(x, y);
}

/* Slurm nodes: compute pools (not the login pool) and their sizes. */
static bool mdc_nodes_differ(const json_object *a, const json_object *b)
{
	const char *la = mdc_json_get_str(mdc_slurm_spec(a), "login_node_pool_id", "");
	const char *lb = mdc_json_get_str(mdc_slurm_spec(b), "login_node_pool_id", "");
	json_object *pa = mdc_json_get(a, "node_pools"), *pb = mdc_json_get(b, "node_pools");
	size_t na = 0, nb = 0;

	for (size_t i = 0; pa && i < json_object_array_length(pa); i++) {
		json_object *p = json_object_array_get_idx(pa, i), *q;
		const char *id = mdc_json_get_str(p, "id", "");

		if (!strcmp(id, la))
			continue;
		na++;
		q = mdc_find_by(pb, "id", id);
		if (!q || !strcmp(id, lb))
			return true;
		if (mdc_json_get_int(mdc_json_get(p, "scaling_spec"), "max_node_count", 0) !=
		    mdc_json_get_int(mdc_json_get(q, "scaling_spec"), "max_node_count", 0))
			return true;
	}
	for (size_t i = 0; pb && i < json_object_array_length(pb); i++)
		if (strcmp(mdc_json_get_str(json_object_array_get_idx(pb, i), "id", ""), lb))
			nb++;
	return na != nb;
}

int mdc_rules_apply_patch(const json_object *current, const json_object *payload,
			  const struct mdc_strv *mask, enum mdc_update_mode mode,
			  const struct mdc_images *images,
			  struct mdc_patch_result *res, struct mdc_ctx *ctx)
{
	json_object *cur, *pay;
	int rc;

	memset(res, 0, sizeof(*res));
	mdc_rules_field[0] = '\0';
	if (!current || !payload || !json_object_is_type(payload, json_type_object))
		return mdc_rules_fail(ctx, "model_development_cluster",
				      "the request body must be a ModelDevelopmentCluster object");
	/* private copies: the result shares only with them, never with the
	 * caller's objects */
	cur = mdc_json_normalize(current, MDC_CASE_SNAKE);
	pay = mdc_json_normalize(payload, MDC_CASE_SNAKE);
	if (!cur || !pay)
		rc = mdc_nomem(ctx);
	else
		rc = mdc_rules_apply_patch_shared(cur, pay, mask, mode, images, res, ctx);
	json_object_put(cur);
	json_object_put(pay);
	return rc;
}

int mdc_rules_apply_patch_shared(json_object *cur, json_object *pay,
				 const struct mdc_strv *mask, enum mdc_update_mode mode,
				 const struct mdc_images *images,
				 struct mdc_patch_result *res, struct mdc_ctx *ctx)
{
	struct mdc_strv pinned = MDC_STRV_INIT;
	json_object *out = NULL, *old_pins;
	const char *def;
	bool pools_named;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	mdc_rules_field[0] = '\0';
	if (!cur || !pay || !json_object_is_type(pay, json_type_object) ||
	    !json_object_is_type(cur, json_type_object))
		return mdc_rules_fail(ctx, "model_development_cluster",
				      "the request body must be a ModelDevelopmentCluster object");
	if (!(out = mdc_shallow(cur))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; mask && i < mask->n; i++)
		if (!mdc_rules_mask_path(mask->v[i])) {
			rc = mdc_rules_fail(ctx, "update_mask", "invalid update mask path '%s'", mask->v[i]);
			goto out;
		}
	if ((rc = mdc_check_payload_legacy(pay, ctx)))
		goto out;
	/* C1/C2/C3/C5/C7: each named path is replaced whole or cleared */
	for (size_t i = 0; mdc_mask_paths[i]; i++) {
		const char *p = mdc_mask_paths[i];

		if (mask) {
			bool named = false;

			for (size_t j = 0; j < mask->n; j++)
				named = named || mdc_rules_mask_path(mask->v[j]) == p;
			if (!named)
				continue;
		}
		if (mdc_copy_path(out, pay, p)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
	/* C6: the default partition may not disappear under a partitions edit */
	def = mdc_json_get_str(mdc_slurm_spec(cur), "default_partition_id", "");
	if (*def && !mdc_path_equal(cur, out, SS "partitions") &&
	    !strcmp(def, mdc_json_get_str(mdc_slurm_spec(out), "default_partition_id", "")) &&
	    !mdc_find_by(mdc_json_get(mdc_slurm_spec(out), "partitions"), "id", def)) {
		rc = mdc_rules_fail(ctx, SS "partitions", "the update removes or renames partition "
				    "'%s', the default partition: set default_partition_id to another "
				    "partition first", def);
		goto out;
	}
	if ((rc = mdc_validate(out, cur, ctx)))
		goto out;
	if (!mdc_nonempty(mdc_json_get(out, "node_pools"))) {
		rc = mdc_rules_fail(ctx, "node_pools", "the update leaves the cluster without node pools%s",
				    mask ? "" : ": a PATCH without updateMask clears what the payload "
				    "omits; send the whole cluster or name the fields in updateMask");
		goto out;
	}
	/* C11: pins come from the payload's pools when node_pools is replaced */
	pools_named = !mask;
	for (size_t j = 0; mask && j < mask->n; j++)
		pools_named = pools_named || !strcmp(mdc_rules_mask_path(mask->v[j]), "node_pools");
	old_pins = mdc_json_get(cur, "_pinned_pools");
	{
		json_object *pools = mdc_json_get(out, "node_pools");

		for (size_t i = 0; pools && i < json_object_array_length(pools); i++) {
			json_object *p = json_object_array_get_idx(pools, i);
			const char *id = mdc_json_get_str(p, "id", "");
			bool pin = false;

			if (pools_named) {
				pin = *mdc_json_get_str(p, "node_image", "") != '\0';
			} else {
				for (size_t k = 0; old_pins && k < json_object_array_length(old_pins); k++)
					pin = pin || !strcmp(id, json_object_get_string(
								 json_object_array_get_idx(old_pins, k)));
			}
			if (pin && mdc_strv_push(&pinned, id)) {
				rc = mdc_nomem(ctx);
				goto out;
			}
		}
	}
	if (mdc_resolve_images(out, cur, &pinned, mode, images, &res->recreated)) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; mdc_mask_paths[i]; i++)
		if (!mdc_path_equal(cur, out, mdc_mask_paths[i]) &&
		    mdc_strv_push(&res->changed, mdc_mask_paths[i])) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	res->nodes_changed = mdc_nodes_differ(cur, out);
	res->cluster = out;
	out = NULL;
out:
	if (rc)
		mdc_patch_result_free(res);
	json_object_put(out);
	mdc_strv_free(&pinned);
	return rc;
}

void mdc_patch_result_free(struct mdc_patch_result *res)
{
	if (!res)
		return;
	json_object_put(res->cluster);
	res->cluster = NULL;
	mdc_strv_free(&res->recreated);
	mdc_strv_free(&res->changed);
	res->nodes_changed = false;
}
