/* mdc_schema.c - the published ModelDevelopmentCluster field tree and the
 * checks made from it (see mdc_schema.h). */
#include "config.h"
#include <ctype.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_schema.h"
#include "mdc_buf.h"
#include "mdc_json.h"
#include "sc_options.h"

#define GEN "magic-modules ModelDevelopmentCluster.yaml"

static const char *const boot_disk_types[] = { "pd-ssd", "pd-standard", "hyperdisk-balanced", NULL };
static const char *const provisioning_models[] = {
	"PROVISIONING_MODEL_UNSPECIFIED", "ON_DEMAND", "RESERVATION", "SPOT", "FLEX_START", NULL,
};
static const char *const affinity_types[] = {
	"NO_RESERVATION", "ANY_RESERVATION", "SPECIFIC_RESERVATION", NULL,
};
static const char *const confidential_types[] = { "SEV", "SEV_SNP", "TDX", NULL };
static const char *const days_of_week[] = {
	"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY", NULL,
};

#define S MDC_SCHEMA_STRING
#define I MDC_SCHEMA_INT
#define B MDC_SCHEMA_BOOL
#define E MDC_SCHEMA_ENUM
#define D MDC_SCHEMA_DURATION
#define MSG MDC_SCHEMA_MESSAGE
#define MAP MDC_SCHEMA_MAP
#define ANY MDC_SCHEMA_ANY
#define REP MDC_SCHEMA_REPEATED
#define REQ MDC_SCHEMA_REQUIRED
#define IMM MDC_SCHEMA_IMMUTABLE
#define OUT MDC_SCHEMA_OUTPUT
#define NOB 1, 0	/* no bounds */

/* Each row: path, type, flags, enum values, bounds, the service's default.
 * Source: GEN unless the comment says otherwise. */
static const struct mdc_schema_field fields[] = {
	{ "name", S, OUT, NULL, NOB, NULL },
	/* GEN: "up to 128 characters", any UTF-8; the create page says 63,
	 * the generated resource is followed */
	{ "display_name", S, 0, NULL, 0, 128, NULL },
	{ "labels", MAP, 0, NULL, NOB, NULL },
	/* GEN marks network default_from_api (the default network); the
	 * create page and the service's refusals require it, and the
	 * service is followed: it is what a request meets */
	{ "network", MSG, REQ | IMM, NULL, NOB, NULL },
	{ "network.network", S, REQ | IMM, NULL, NOB, NULL },
	{ "network.subnetwork", S, IMM, NULL, NOB, "auto-selected or created" },
	{ "node_pools", MSG, REP | REQ, NULL, NOB, NULL },
	{ "node_pools.id", S, REQ | IMM, NULL, NOB, NULL },
	{ "node_pools.machine_spec", MSG, REQ | IMM, NULL, NOB, NULL },
	{ "node_pools.machine_spec.machine_type", S, REQ | IMM, NULL, NOB, NULL },
	/* not in GEN; Vertex AI's MachineSpec has them and the service takes
	 * them (real create bodies in behardja/cloud-training-cluster) */
	{ "node_pools.machine_spec.accelerator_type", S, IMM, NULL, NOB, NULL },
	{ "node_pools.machine_spec.accelerator_count", I, IMM, NULL, 0, 16, NULL },
	{ "node_pools.machine_spec.reservation_affinity", MSG, IMM, NULL, NOB, NULL },
	{ "node_pools.machine_spec.reservation_affinity.reservation_affinity_type", E, REQ | IMM,
	  affinity_types, NOB, NULL },
	/* not in GEN: Vertex AI's ReservationAffinity (the label key) */
	{ "node_pools.machine_spec.reservation_affinity.key", S, IMM, NULL, NOB, NULL },
	{ "node_pools.machine_spec.reservation_affinity.values", S, REP | IMM, NULL, NOB, NULL },
	{ "node_pools.scaling_spec", MSG, 0, NULL, NOB, NULL },
	{ "node_pools.scaling_spec.min_node_count", I, 0, NULL, NOB, NULL },
	{ "node_pools.scaling_spec.max_node_count", I, 0, NULL, NOB, NULL },
	{ "node_pools.zone", S, 0, NULL, NOB, NULL },
	{ "node_pools.enable_public_ips", B, 0, NULL, NOB, NULL },
	{ "node_pools.boot_disk", MSG, 0, NULL, NOB, NULL },
	{ "node_pools.boot_disk.boot_disk_type", E, 0, boot_disk_types, NOB,
	  "pd-ssd (hyperdisk-balanced on A3U)" },
	{ "node_pools.boot_disk.boot_disk_size_gb", I, 0, NULL, NOB, "100" },
	{ "node_pools.node_image", S, 0, NULL, NOB, "the machine type's current image" },
	/* GEN: UNSPECIFIED is ON_DEMAND on CPU pools and RESERVATION on GPU
	 * pools with a reservation affinity (mdc_rules checks the rest) */
	{ "node_pools.provisioning_model", E, IMM, provisioning_models, NOB, "ON_DEMAND" },
	{ "node_pools.flex_start_max_duration", D, 0, NULL, NOB, NULL },
	{ "node_pools.effective_flex_start_max_duration", D, OUT, NULL, NOB, NULL },
	{ "node_pools.filestores", S, REP, NULL, NOB, NULL },
	{ "node_pools.lustres", S, REP, NULL, NOB, NULL },
	{ "node_pools.startup_script", S, 0, NULL, NOB, NULL },
	{ "node_pools.labels", MAP, 0, NULL, NOB, NULL },
	{ "node_pools.confidential_instance_config", MSG, IMM, NULL, NOB, NULL },
	{ "node_pools.confidential_instance_config.confidential_instance_type", E, REQ | IMM,
	  confidential_types, NOB, NULL },
	{ "orchestrator_spec", MSG, REQ, NULL, NOB, NULL },
	/* the only orchestrator the API takes (gke_spec: "Cannot find field"
	 * in real answers); required, since home_directory_storage is */
	{ "orchestrator_spec.slurm_spec", MSG, REQ, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.home_directory_storage", S, REQ | IMM, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.partitions", MSG, REP, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.partitions.id", S, REQ, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.partitions.node_pool_ids", S, REP | REQ, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.partitions.config", MAP, 0, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.default_partition_id", S, 0, NULL, NOB,
	  "the first partition" },
	{ "orchestrator_spec.slurm_spec.login_node_pool_id", S, REQ, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.prolog_bash_scripts", S, REP, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.epilog_bash_scripts", S, REP, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.config", MAP, 0, NULL, NOB, NULL },
	/* the legacy blocks: not in GEN's properties but in its update mask
	 * fields; typed messages whose fields are slurm.conf parameters
	 * (manage-cluster page: config supersedes them) */
	{ "orchestrator_spec.slurm_spec.scheduling", MDC_SCHEMA_SLURM_MAP, 0, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.accounting", MDC_SCHEMA_SLURM_MAP, 0, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.node_sets", MSG, REP, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.node_sets.node_pool_id", S, REQ, NULL, NOB, NULL },
	{ "orchestrator_spec.slurm_spec.node_sets.config", MAP, 0, NULL, NOB, NULL },
	{ "runtime_spec", MSG, IMM, NULL, NOB, NULL },
	{ "runtime_spec.service_account", S, IMM, NULL, NOB,
	  "the Compute Engine default service account" },
	{ "lustre_export_config", MSG, 0, NULL, NOB, NULL },
	/* GEN: each day at most once, DAY_OF_WEEK_UNSPECIFIED refused */
	{ "lustre_export_config.days_of_week", E, REP, days_of_week, NOB, NULL },
	{ "lustre_export_config.destination_bucket", S, REQ, NULL, NOB, NULL },
	{ "lustre_export_config.lustres", S, REP, NULL, NOB, NULL },
	{ "lustre_export_config.start_time", MSG, 0, NULL, NOB, NULL },
	/* google.type.TimeOfDay; GEN: "24:00:00" is an API's choice, not taken */
	{ "lustre_export_config.start_time.hours", I, 0, NULL, 0, 23, NULL },
	{ "lustre_export_config.start_time.minutes", I, 0, NULL, 0, 59, NULL },
	{ "runtime", ANY, OUT, NULL, NOB, NULL },
	{ "start_time", S, OUT, NULL, NOB, NULL },
	{ "create_time", S, OUT, NULL, NOB, NULL },
	{ "update_time", S, OUT, NULL, NOB, NULL },
	/* not published: the emulator's own top-level state (older clients) */
	{ "state", S, OUT, NULL, NOB, NULL },
	{ "cluster_status", ANY, OUT, NULL, NOB, NULL },
	{ "cluster_events", ANY, OUT, NULL, NOB, NULL },
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
#define ROOT NFIELDS
#define AT_MAX 512

/* The tree, built once: a body of N partitions looks up 3N names, each
 * among the few children of its parent.  Node ROOT is the resource. */
static int first_child[NFIELDS + 1], next_sibling[NFIELDS];
static size_t leaf_at[NFIELDS];	/* where the path's last name starts */
static pthread_once_t tree_once = PTHREAD_ONCE_INIT;
static __thread char last_field[AT_MAX];

static void tree_build(void)
{
	for (size_t i = 0; i <= NFIELDS; i++)
		first_child[i] = -1;
	/* from the end, so that children are listed in table order */
	for (size_t i = NFIELDS; i-- > 0;) {
		const char *p = fields[i].path, *dot = strrchr(p, '.');
		size_t parent = ROOT, n = dot ? (size_t) (dot - p) : 0;

		for (size_t j = 0; dot && j < NFIELDS; j++)
			if (!strncmp(fields[j].path, p, n) && !fields[j].path[n]) {
				parent = j;
				break;
			}
		leaf_at[i] = dot ? n + 1 : 0;
		next_sibling[i] = first_child[parent];
		first_child[parent] = (int) i;
	}
}

/* NAME in snake_case into BUF when it is not; *CAMEL set then. */
static const char *snake_name(const char *name, char *buf, size_t sz, bool *camel)
{
	for (const char *c = name; *c; c++)
		if (isupper((unsigned char) *c)) {
			mdc_camel_to_snake(name, buf, sz);
			if (camel)
				*camel = true;
			return buf;
		}
	return name;
}

static int child_of(size_t parent, const char *snake)
{
	pthread_once(&tree_once, tree_build);
	for (int i = first_child[parent]; i >= 0; i = next_sibling[i])
		if (!strcmp(fields[i].path + leaf_at[i], snake))
			return i;
	return -1;
}

static size_t node_of(const struct mdc_schema_field *f)
{
	return f ? (size_t) (f - fields) : ROOT;
}

const struct mdc_schema_field *mdc_schema_child(const struct mdc_schema_field *parent,
						const char *name)
{
	char buf[256];
	int i;

	if (!name || name[0] == '_')
		return NULL;
	i = child_of(node_of(parent), snake_name(name, buf, sizeof(buf), NULL));
	return i < 0 ? NULL : &fields[i];
}

const struct mdc_schema_field *mdc_schema_find(const char *path)
{
	const struct mdc_schema_field *f = NULL;
	char name[256];

	if (!path || !*path)
		return NULL;
	while (*path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(name))
			return NULL;
		memcpy(name, path, n);
		name[n] = '\0';
		if (!(f = mdc_schema_child(f, name)))
			return NULL;
		path += n + (path[n] == '.');
	}
	return f;
}

const struct mdc_schema_field *mdc_schema_at(size_t n)
{
	return n < NFIELDS ? &fields[n] : NULL;
}

const char *mdc_schema_last_field(void)
{
	return last_field;
}

bool mdc_schema_immutable(const char *path)
{
	char buf[AT_MAX];
	size_t n;

	if (!path || (n = strlen(path)) >= sizeof(buf))
		return false;
	memcpy(buf, path, n + 1);
	/* the field itself, then each message above it */
	for (;;) {
		const struct mdc_schema_field *f = mdc_schema_find(buf);
		char *dot;

		if (f && (f->flags & MDC_SCHEMA_IMMUTABLE))
			return true;
		if (!(dot = strrchr(buf, '.')))
			return false;
		*dot = '\0';
	}
}

/* --- the checks --------------------------------------------------------------- */

struct walk {
	unsigned how;
	struct mdc_schema_result *res;
	struct mdc_ctx *err;
	char at[AT_MAX];
	size_t len;
	/* the service's findings so far (also without RES) */
	size_t nfound;
	struct mdc_schema_found found[MDC_SCHEMA_MAX_FOUND];
};

static int walk_fail(struct walk *w, bool transcoding, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int walk_fail(struct walk *w, bool transcoding, const char *fmt, ...)
{
	va_list ap;
	int rc;

	/* the service's validation goes on and lists them all: noted, and
	 * the walk goes on with the next field (0) */
	if (!transcoding) {
		if (w->nfound < MDC_SCHEMA_MAX_FOUND) {
			struct mdc_schema_found *f = &w->found[w->nfound];

			snprintf(f->field, sizeof(f->field), "%s", w->at);
			va_start(ap, fmt);
			vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
			va_end(ap);
		}
		w->nfound++;
		return 0;
	}
	snprintf(last_field, sizeof(last_field), "%s", w->at);
	if (w->res) {
		snprintf(w->res->field, sizeof(w->res->field), "%s", w->at);
		w->res->transcoding = transcoding;
	}
	va_start(ap, fmt);
	rc = mdc_vfail(w->err, MDC_ERR_INVAL, fmt, ap);
	va_end(ap);
	return rc;
}

/* Extend the place by ".NAME" (INDEX NULL) or "[INDEX]"; false when too long. */
static bool at_add(struct walk *w, const char *pre, const char *name, const char *post)
{
	size_t a = strlen(pre), b = strlen(name), c = strlen(post);

	if (w->len + a + b + c >= sizeof(w->at))
		return false;
	memcpy(w->at + w->len, pre, a);
	memcpy(w->at + w->len + a, name, b);
	memcpy(w->at + w->len + a + b, post, c);
	w->len += a + b + c;
	w->at[w->len] = '\0';
	return true;
}

static bool at_name(struct walk *w, const char *name)
{
	return at_add(w, w->len ? "." : "", name, "");
}

static bool at_index(struct walk *w, size_t i)
{
	char d[24];

	snprintf(d, sizeof(d), "%zu", i);
	return at_add(w, "[", d, "]");
}

static bool at_key(struct walk *w, const char *key)
{
	return at_add(w, "[", key, "]");
}

static void at_pop(struct walk *w, size_t len)
{
	w->len = len;
	w->at[len] = '\0';
}

static const char *type_name(enum mdc_schema_type t)
{
	static const char *const names[] = {
		[MDC_SCHEMA_MESSAGE] = "TYPE_MESSAGE", [MDC_SCHEMA_STRING] = "TYPE_STRING",
		[MDC_SCHEMA_INT] = "TYPE_INT64", [MDC_SCHEMA_BOOL] = "TYPE_BOOL",
		[MDC_SCHEMA_ENUM] = "TYPE_ENUM", [MDC_SCHEMA_DURATION] = "TYPE_DURATION",
		[MDC_SCHEMA_MAP] = "TYPE_MAP", [MDC_SCHEMA_SLURM_MAP] = "TYPE_MESSAGE",
		[MDC_SCHEMA_ANY] = "TYPE_MESSAGE",
	};

	return names[t];
}

static int bad_type(struct walk *w, const struct mdc_schema_field *f, const json_object *v)
{
	char shown[64];

	snprintf(shown, sizeof(shown), "%s", json_object_to_json_string_ext((json_object *) v, JSON_C_TO_STRING_PLAIN));
	return walk_fail(w, true, "Invalid value at '%s' (%s), %s%s", w->at, type_name(f->type),
			 shown, strlen(shown) == sizeof(shown) - 1 ? "..." : "");
}

/* Characters of UTF-8 text (continuation bytes not counted). */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char) *s & 0xC0) != 0x80;
	return n;
}

/* A protobuf Duration's JSON form: seconds with up to 9 decimals, then "s". */
static bool duration_ok(const char *s)
{
	size_t i = 0, d = 0;

	if (s[i] == '-')
		i++;
	while (isdigit((unsigned char) s[i]))
		i++, d++;
	if (!d)
		return false;
	if (s[i] == '.') {
		size_t f = 0;

		for (i++; isdigit((unsigned char) s[i]); i++)
			f++;
		if (!f || f > 9)
			return false;
	}
	return s[i] == 's' && !s[i + 1];
}

static int walk_value(struct walk *w, size_t node, const json_object *v, bool element);

static int walk_message(struct walk *w, size_t node, const json_object *obj)
{
	size_t len = w->len;

	json_object_object_foreach((json_object *) obj, k, v) {
		char buf[256];
		const char *name = snake_name(k, buf, sizeof(buf), w->res ? &w->res->camel : NULL);
		int f = k[0] == '_' ? -1 : child_of(node, name);
		int rc;

		if (k[0] == '_' && (w->how & MDC_SCHEMA_INTERNAL_IGNORED))
			continue;
		if (f < 0)
			return walk_fail(w, true, "Invalid JSON payload received. Unknown name \"%s\" at "
					 "'%s': Cannot find field.", k, w->at);
		if (fields[f].flags & MDC_SCHEMA_OUTPUT) {
			if (w->how & MDC_SCHEMA_OUTPUT_IGNORED)
				continue;
			if (!at_name(w, name))
				return walk_fail(w, true, "Invalid JSON payload received: nested too deep");
			rc = walk_fail(w, false, "%s is output only: the service sets it; leave it out "
				       "of the request", w->at);
			at_pop(w, len);
			if (rc)
				return rc;
			continue;
		}
		if (!at_name(w, name))
			return walk_fail(w, true, "Invalid JSON payload received: nested too deep");
		if ((rc = walk_value(w, (size_t) f, v, false)))
			return rc;
		at_pop(w, len);
	}
	return 0;
}

/* V, the value of field NODE (ELEMENT: one element of a repeated one). */
static int walk_value(struct walk *w, size_t node, const json_object *v, bool element)
{
	const struct mdc_schema_field *f = node == ROOT ? NULL : &fields[node];
	enum mdc_schema_type t = f ? f->type : MDC_SCHEMA_MESSAGE;
	const char *s;

	/* proto3 JSON: null is the field's default */
	if (!v || json_object_is_type(v, json_type_null))
		return 0;
	if (f && (f->flags & MDC_SCHEMA_REPEATED) && !element) {
		size_t len = w->len;

		if (!json_object_is_type(v, json_type_array))
			return walk_fail(w, true, "Invalid value at '%s' (%s), a list was expected",
					 w->at, type_name(t));
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			int rc;

			if (!at_index(w, i))
				return walk_fail(w, true, "Invalid JSON payload received: nested too deep");
			if ((rc = walk_value(w, node, json_object_array_get_idx(v, i), true)))
				return rc;
			at_pop(w, len);
		}
		return 0;
	}
	switch (t) {
	case MDC_SCHEMA_MESSAGE:
		if (!json_object_is_type(v, json_type_object))
			return f ? bad_type(w, f, v) : walk_fail(w, true, "Invalid JSON payload "
								 "received: a ModelDevelopmentCluster "
								 "object was expected");
		return walk_message(w, node, v);
	case MDC_SCHEMA_STRING:
		if (!json_object_is_type(v, json_type_string))
			return bad_type(w, f, v);
		if (f->max > 0 && utf8_chars(json_object_get_string((json_object *) v)) > (size_t) f->max)
			return walk_fail(w, false, "%s is %zu characters long: at most %lld are allowed",
					 w->at, utf8_chars(json_object_get_string((json_object *) v)), f->max);
		return 0;
	case MDC_SCHEMA_INT: {
		long long n;
		char *end;

		if (json_object_is_type(v, json_type_int)) {
			n = json_object_get_int64(v);
		} else if (json_object_is_type(v, json_type_string) &&
			   *(s = json_object_get_string((json_object *) v))) {
			n = strtoll(s, &end, 10);
			if (*end)
				return bad_type(w, f, v);
		} else {
			return bad_type(w, f, v);
		}
		if (f->min <= f->max && (n < f->min || n > f->max))
			return walk_fail(w, false, "%s must be from %lld to %lld, not %lld", w->at,
					 f->min, f->max, n);
		return 0;
	}
	case MDC_SCHEMA_BOOL:
		return json_object_is_type(v, json_type_boolean) ? 0 : bad_type(w, f, v);
	case MDC_SCHEMA_ENUM: {
		struct mdc_buf b = MDC_BUF_INIT;
		int rc;

		if (!json_object_is_type(v, json_type_string))
			return bad_type(w, f, v);
		s = json_object_get_string((json_object *) v);
		for (size_t i = 0; f->values[i]; i++)
			if (!strcmp(s, f->values[i]))
				return 0;
		for (size_t i = 0; f->values[i]; i++)
			mdc_buf_addf(&b, "%s%s", i ? ", " : "", f->values[i]);
		rc = walk_fail(w, false, "invalid %s '%.64s': expected one of %s", w->at, s,
			       mdc_buf_str(&b));
		mdc_buf_free(&b);
		return rc;
	}
	case MDC_SCHEMA_DURATION:
		if (!json_object_is_type(v, json_type_string) || !duration_ok(json_object_get_string((json_object *) v)))
			return bad_type(w, f, v);
		return 0;
	case MDC_SCHEMA_MAP: {
		size_t len = w->len;

		if (!json_object_is_type(v, json_type_object))
			return bad_type(w, f, v);
		json_object_object_foreach((json_object *) v, k, m) {
			if (json_object_is_type(m, json_type_string) || json_object_is_type(m, json_type_null))
				continue;
			if (!at_key(w, k))
				return walk_fail(w, true, "Invalid JSON payload received: nested too deep");
			return walk_fail(w, true, "Invalid value at '%s' (TYPE_STRING), %.60s: map values "
					 "must be strings", w->at,
					 json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN));
		}
		at_pop(w, len);
		return 0;
	}
	case MDC_SCHEMA_SLURM_MAP:
		if (!json_object_is_type(v, json_type_object))
			return bad_type(w, f, v);
		json_object_object_foreach((json_object *) v, k, m) {
			/* its fields are slurm.conf parameters of the cluster
			 * scope, their values scalars */
			if (!sc_opt_find(k, SC_SCOPE_CLUSTER))
				return walk_fail(w, true, "Invalid JSON payload received. Unknown name "
						 "\"%s\" at '%s': Cannot find field.", k, w->at);
			if (json_object_is_type(m, json_type_object) || json_object_is_type(m, json_type_array)) {
				if (!at_name(w, k))
					return walk_fail(w, true, "Invalid JSON payload received: nested too deep");
				return walk_fail(w, true, "Invalid value at '%s' (TYPE_STRING), a value "
						 "was expected", w->at);
			}
		}
		return 0;
	case MDC_SCHEMA_ANY:
		return 0;
	}
	return 0;
}

/* Every required field under V (the value of NODE) is set. */
static int walk_required(struct walk *w, size_t node, const json_object *v, bool element)
{
	const struct mdc_schema_field *f = node == ROOT ? NULL : &fields[node];
	size_t len = w->len;

	if (!v || json_object_is_type(v, json_type_null))
		return 0;
	if (f && (f->flags & MDC_SCHEMA_REPEATED) && !element) {
		for (size_t i = 0; json_object_is_type(v, json_type_array) &&
		     i < json_object_array_length(v); i++) {
			int rc;

			if (!at_index(w, i))
				return 0;
			if ((rc = walk_required(w, node, json_object_array_get_idx(v, i), true)))
				return rc;
			at_pop(w, len);
		}
		return 0;
	}
	if ((f && f->type != MDC_SCHEMA_MESSAGE) || !json_object_is_type(v, json_type_object))
		return 0;
	pthread_once(&tree_once, tree_build);
	for (int c = first_child[node]; c >= 0; c = next_sibling[c]) {
		const struct mdc_schema_field *cf = &fields[c];
		json_object *cv = mdc_json_get(v, cf->path + leaf_at[c]);
		bool empty = !cv || json_object_is_type(cv, json_type_null) ||
			     (json_object_is_type(cv, json_type_string) && !*json_object_get_string(cv)) ||
			     (json_object_is_type(cv, json_type_array) && !json_object_array_length(cv));
		int rc;

		if (!at_name(w, cf->path + leaf_at[c]))
			return 0;
		if ((cf->flags & MDC_SCHEMA_REQUIRED) && empty) {
			if ((rc = walk_fail(w, false, "%s is required", w->at)))
				return rc;
			at_pop(w, len);
			continue;
		}
		if ((rc = walk_required(w, (size_t) c, cv, false)))
			return rc;
		at_pop(w, len);
	}
	return 0;
}

/* The walk's findings as the check's result: 0 when none, else
 * MDC_ERR_INVAL with the first one's field and every message. */
static int found_fail(struct walk *w)
{
	struct mdc_buf b = MDC_BUF_INIT;
	size_t kept = w->nfound < MDC_SCHEMA_MAX_FOUND ? w->nfound : MDC_SCHEMA_MAX_FOUND;
	int rc;

	if (!w->nfound)
		return 0;
	snprintf(last_field, sizeof(last_field), "%s", w->found[0].field);
	if (w->res) {
		snprintf(w->res->field, sizeof(w->res->field), "%s", w->found[0].field);
		w->res->transcoding = false;
		w->res->nfound = w->nfound;
		memcpy(w->res->found, w->found, kept * sizeof(w->found[0]));
	}
	for (size_t i = 0; i < kept; i++)
		mdc_buf_addf(&b, "%s%s", i ? "; " : "", w->found[i].msg);
	if (w->nfound > kept)
		mdc_buf_addf(&b, "; and %zu more", w->nfound - kept);
	rc = mdc_fail(w->err, MDC_ERR_INVAL, "%s", mdc_buf_str(&b));
	mdc_buf_free(&b);
	return rc;
}

int mdc_schema_check_ex(const json_object *body, const char *path, unsigned how,
			struct mdc_schema_result *res, struct mdc_ctx *err)
{
	struct walk w = { .how = how, .res = res, .err = err };
	const struct mdc_schema_field *f = NULL;
	size_t node = ROOT;
	bool element = false;
	int rc;

	last_field[0] = '\0';
	if (res)
		memset(res, 0, sizeof(*res));
	at_name(&w, "model_development_cluster");
	if (path && *path) {
		char snake[AT_MAX];

		if (!(f = mdc_schema_find(path)))
			return walk_fail(&w, true, "'%s' is no field of a ModelDevelopmentCluster", path);
		node = node_of(f);
		/* one element of a list may be checked alone */
		element = (f->flags & MDC_SCHEMA_REPEATED) && !json_object_is_type(body, json_type_array);
		mdc_camel_to_snake(path, snake, sizeof(snake));
		if (!at_name(&w, snake))
			return walk_fail(&w, true, "'%s' is too long a path", path);
	}
	if (!body && !path)
		return walk_fail(&w, true, "Invalid JSON payload received: no body");
	if ((rc = walk_value(&w, node, body, element)) ||
	    ((how & MDC_SCHEMA_CREATE) && (rc = walk_required(&w, node, body, element))))
		return rc;
	return found_fail(&w);
}

int mdc_schema_check(const json_object *body, const char *path, struct mdc_ctx *err)
{
	return mdc_schema_check_ex(body, path, 0, NULL, err);
}
