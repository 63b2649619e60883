/* sc_render.c - spec -> slurm.conf text.  (owner: slurm.conf engine)
 *
 * Deterministic: base lines in their order, generated pools in spec order,
 * keys sorted by canonical name, partitions in spec order.  Values are
 * written so that Slurm's parser (parse_config.c) reads them back
 * unchanged: '#' and '\' escaped with a backslash, values holding spaces
 * (or empty) double-quoted.
 */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_json.h"
#include "mdc_str.h"
#include "sc_options.h"
#include "sc_release.h"
#include "sc_render.h"

/* One key=value to write, with the canonical key. */
struct kv {
	const char *key;
	const char *value;
};

/* A compute pool and the Slurm node names that make it. */
struct pool {
	const char *id;
	char *nodes;		/* NodeSet Nodes= value (malloc'ed) */
	json_object *config;	/* node_sets[].config, borrowed; may be NULL */
	int in_base;
};

static int kv_cmp(const void *a, const void *b)
{
	return strcasecmp(((const struct kv *) a)->key, ((const struct kv *) b)->key);
}

/* Append VALUE as Slurm reads it back verbatim. */
static int put_value(struct mdc_buf *out, const char *value, const char *key,
		     struct mdc_ctx *ctx)
{
	bool quote = !*value;
	const char *p;
	int rc = 0;

	if (mdc_has_ctrl(value))
		return mdc_fail(ctx, MDC_ERR_INVAL,
				"value of \"%s\" holds a control character: refused (it would inject slurm.conf lines)",
				key);
	for (p = value; *p; p++)
		if (*p == ' ')
			quote = true;
	if (quote && strchr(value, '"'))
		return mdc_fail(ctx, MDC_ERR_INVAL,
				"value of \"%s\" holds both spaces and a double quote: slurm.conf cannot express it",
				key);
	if (quote)
		rc |= mdc_buf_addc(out, '"');
	for (p = value; *p && !rc; p++) {
		if (*p == '#' || *p == '\\')
			rc |= mdc_buf_addc(out, '\\');
		rc |= mdc_buf_addc(out, *p);
	}
	if (quote)
		rc |= mdc_buf_addc(out, '"');
	return rc ? mdc_nomem(ctx) : 0;
}

/* Collect the string members of MAP (may be NULL) into KV (appending to
 * *N, capacity CAP) under their canonical names in SCOPE; keys already
 * present are skipped (the first source wins). */
static int collect(json_object *map, unsigned scope, const char *what, int rel,
		   struct kv *kv, size_t *n, size_t cap, struct mdc_ctx *ctx)
{
	const struct sc_option *opt;
	char why[512];
	size_t i;

	if (!map)
		return 0;
	if (!json_object_is_type(map, json_type_object))
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s: expected a map of slurm.conf keys", what);
	json_object_object_foreach(map, key, val) {
		const char *s;

		if (!json_object_is_type(val, json_type_string) &&
		    !json_object_is_type(val, json_type_int) &&
		    !json_object_is_type(val, json_type_boolean))
			return mdc_fail(ctx, MDC_ERR_INVAL, "%s: value of \"%s\" must be a string", what, key);
		s = json_object_get_string(val);
		if (mdc_has_ctrl(key))
			return mdc_fail(ctx, MDC_ERR_INVAL, "%s: a key holds a control character: refused", what);
		opt = sc_opt_find(key, scope);
		if (!opt || (opt->flags & SC_OPT_RECORD))
			return mdc_fail(ctx, MDC_ERR_INVAL, "%s: unknown slurm.conf key \"%s\"", what, key);
		if (opt->flags & (SC_OPT_REFUSED | SC_OPT_MANAGED))
			return mdc_fail(ctx, MDC_ERR_REFUSED, "%s: \"%s\" cannot be set here: %s",
					what, opt->name, opt->why ? opt->why : "service-managed");
		/* a file the release's slurmctld would not start with */
		if (sc_rel_check_key(opt->name, scope, rel, why, sizeof(why)) ||
		    sc_rel_check_plugins(opt->name, s, rel, why, sizeof(why)))
			return mdc_fail(ctx, MDC_ERR_REFUSED, "%s: %s", what, why);
		for (i = 0; i < *n; i++)
			if (!strcasecmp(kv[i].key, opt->name))
				break;
		if (i < *n)
			continue;
		if (*n >= cap)
			return mdc_fail(ctx, MDC_ERR_INVAL, "%s: too many keys", what);
		kv[*n].key = opt->name;
		kv[*n].value = s;
		(*n)++;
	}
	return 0;
}

static size_t map_len(json_object *map)
{
	return map && json_object_is_type(map, json_type_object) ?
	       (size_t) json_object_object_length(map) : 0;
}

/* Write " Key=Value..." for MAP sorted by canonical name. */
static int put_map(struct mdc_buf *out, json_object *map, unsigned scope,
		   const char *what, const char *sep, int rel, struct mdc_ctx *ctx)
{
	struct kv *kv = NULL;
	size_t n = 0, i, cap = map_len(map);
	int rc = 0;

	if (!cap)
		return 0;
	kv = calloc(cap, sizeof(*kv));
	if (!kv)
		return mdc_nomem(ctx);
	rc = collect(map, scope, what, rel, kv, &n, cap, ctx);
	if (rc)
		goto out;
	qsort(kv, n, sizeof(*kv), kv_cmp);
	for (i = 0; i < n && !rc; i++) {
		if (scope == SC_SCOPE_PARTITION && !strcmp(kv[i].key, "State"))
			continue;	/* written by the caller */
		rc = mdc_buf_adds(out, sep) || mdc_buf_addf(out, "%s=", kv[i].key) ?
		     mdc_nomem(ctx) :
		     put_value(out, kv[i].value, kv[i].key, ctx);
	}
out:
	free(kv);
	return rc;
}

/* The value of WANT among the Key=Value pairs of a base line, copied
 * (bounded) into VAL; false when absent. */
static bool line_kv(const char *line, const char *want, char *val, size_t valsz)
{
	const char *p = line, *k, *v;
	size_t kl, vl;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#' || *p == '\n' || *p == '\r')
			return false;
		k = p;
		while (*p && *p != '=' && !isspace((unsigned char) *p))
			p++;
		kl = (size_t) (p - k);
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '=')
			return false;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			v = ++p;
			while (*p && *p != '"' && *p != '\n')
				p++;
			vl = (size_t) (p - v);
			if (*p == '"')
				p++;
		} else {
			v = p;
			while (*p && !isspace((unsigned char) *p) && *p != '#')
				p++;
			vl = (size_t) (p - v);
		}
		if (strlen(want) == kl && !strncasecmp(k, want, kl)) {
			if (vl >= valsz)
				vl = valsz - 1;
			memcpy(val, v, vl);
			val[vl] = '\0';
			return true;
		}
	}
}

/* Is NAME (a NodeName= value) part of the NodeSet nodes NODES? */
static bool nodes_has(const char *nodes, const char *name)
{
	const char *p = nodes;
	size_t n = strlen(name);
	int depth = 0;
	const char *start = p;

	for (;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if ((*p == ',' && depth == 0) || !*p) {
			if ((size_t) (p - start) == n && !strncmp(start, name, n))
				return true;
			if (!*p)
				return false;
			start = p + 1;
		}
	}
}

static const char *first_key(const char *line, char *key, size_t keysz)
{
	const char *p = line, *k;
	size_t kl;

	while (*p == ' ' || *p == '\t')
		p++;
	k = p;
	while (*p && *p != '=' && !isspace((unsigned char) *p))
		p++;
	kl = (size_t) (p - k);
	if (kl >= keysz)
		kl = keysz - 1;
	memcpy(key, k, kl);
	key[kl] = '\0';
	return key;
}

static void pools_free(struct pool *pools, size_t n)
{
	size_t i;

	for (i = 0; pools && i < n; i++)
		free(pools[i].nodes);
	free(pools);
}

static struct pool *pool_find(struct pool *pools, size_t n, const char *id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (id && !strcmp(pools[i].id, id))
			return &pools[i];
	return NULL;
}

static int64_t json_int_any(const json_object *obj, const char *key)
{
	json_object *v = mdc_json_get(obj, key);

	/* Google encodes 64-bit integers as strings */
	if (v && json_object_is_type(v, json_type_string))
		return strtoll(json_object_get_string(v), NULL, 10);
	return v ? json_object_get_int64(v) : 0;
}

/* The compute pools of SPEC (every node pool but the login pool). */
static int pools_get(const json_object *spec, const json_object *ss,
		     struct pool **out, size_t *nout, struct mdc_ctx *ctx)
{
	json_object *arr = mdc_json_get_arr(spec, "node_pools");
	json_object *sets = ss ? mdc_json_get_arr(ss, "node_sets") : NULL;
	const char *login = ss ? mdc_json_get_str(ss, "login_node_pool_id", NULL) : NULL;
	struct pool *pools = NULL, *pl;
	size_t i, n = 0, len = arr ? json_object_array_length(arr) : 0;
	int rc = 0;

	pools = calloc(len + 1, sizeof(*pools));
	if (!pools)
		return mdc_nomem(ctx);
	for (i = 0; i < len; i++) {
		json_object *p = json_object_array_get_idx(arr, i);
		const char *id = mdc_json_get_str(p, "id", NULL);

		if (!id)
			id = mdc_json_get_str(p, "node_pool_id", NULL);
		if (!id || !*id) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "node_pools[%zu]: missing \"id\"", i);
			goto out;
		}
		if (mdc_has_ctrl(id) || strpbrk(id, " =#\"\\,[]")) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "node pool \"%s\": not a valid Slurm name", id);
			goto out;
		}
		if (login && !strcmp(id, login))
			continue;
		pools[n].id = id;
		{
			int64_t max = json_int_any(mdc_json_get_obj(p, "scaling_spec"), "max_node_count");
			struct mdc_buf b = MDC_BUF_INIT;

			if (max < 1)
				max = 1;
			if (mdc_buf_addf(&b, "%s-[0-%lld]", id, (long long) (max - 1)) ||
			    !(pools[n].nodes = mdc_buf_release(&b))) {
				mdc_buf_free(&b);
				rc = mdc_nomem(ctx);
				goto out;
			}
		}
		n++;
	}
	len = sets ? json_object_array_length(sets) : 0;
	for (i = 0; i < len; i++) {
		json_object *s = json_object_array_get_idx(sets, i);
		const char *id = mdc_json_get_str(s, "node_pool_id", NULL);

		pl = pool_find(pools, n, id);
		if (!pl) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL,
				      "node_sets[%zu]: \"%s\" is not a compute node pool of this cluster",
				      i, id ? id : "");
			goto out;
		}
		pl->config = mdc_json_get_obj(s, "config");
	}
	*out = pools;
	*nout = n;
	pools = NULL;
out:
	pools_free(pools, n);
	return rc;
}

/* Does the spec's cluster scope (config or a legacy map) set KEY?  Then
 * the rendered value replaces the base's line: one key, one line, so
 * slurmctld never reads two values for it. */
static bool spec_sets_key(const json_object *ss, const char *key)
{
	static const char *const maps[] = { "config", "scheduling", "accounting" };

	for (size_t m = 0; ss && m < sizeof(maps) / sizeof(maps[0]); m++) {
		json_object *map = mdc_json_get_obj(ss, maps[m]);

		if (!map)
			continue;
		json_object_object_foreach(map, k, v) {
			(void) v;
			if (mdc_key_eq(k, key))
				return true;
		}
	}
	return false;
}

/* The service's own plugins that a release replaced: the service writes
 * the successor for a release that no longer ships the old one. */
static const struct { const char *key, *old, *now; } base_successors[] = {
	/* Slurm 23.11 removed select/cons_res (CHANGELOG/slurm-23.11.md) */
	{ "SelectType", "select/cons_res", "select/cons_tres" },
};

/* A global base line (LINE, its first key KEY) as the service
 * writes it for release REL: 0 when it is written unchanged; 1 when this
 * function wrote it (a replaced plugin) or left it out (a key REL does
 * not read, a plugin REL does not ship: Slurm's default stands); -1 out
 * of memory. */
static int base_line_for(struct mdc_buf *out, const char *line, const char *key, int rel)
{
	char why[512], val[4096];

	if (sc_rel_check_key(key, SC_SCOPE_CLUSTER, rel, why, sizeof(why)))
		return 1;
	if (!line_kv(line, key, val, sizeof(val)) ||
	    !sc_rel_check_plugins(key, val, rel, why, sizeof(why)))
		return 0;
	for (size_t i = 0; i < sizeof(base_successors) / sizeof(base_successors[0]); i++)
		if (!strcasecmp(base_successors[i].key, key) && !strcmp(base_successors[i].old, val))
			return mdc_buf_addf(out, "%s=%s\n", key, base_successors[i].now) ? -1 : 1;
	return 1;
}

/* Copy BASE to OUT, appending each pool's node_sets config to its NodeName
 * lines and leaving out the global lines the spec sets (SS), and note which
 * pools the base defines with a NodeSet line. */
static int put_base(struct mdc_buf *out, const char *base, const char *base_name,
		    const json_object *ss, struct pool *pools, size_t npools, int rel,
		    struct mdc_ctx *ctx)
{
	const char *line = base, *eol;
	char key[64], val[4096];
	size_t i, lineno = 0;
	int rc = 0;

	/* first pass: NodeSet=<pool> Nodes=<names> */
	for (line = base; line && *line; line = *eol ? eol + 1 : eol) {
		struct pool *pl;

		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		if (!line_kv(line, "NodeSet", val, sizeof(val)))
			continue;
		pl = pool_find(pools, npools, val);
		if (!pl)
			continue;
		{
			char nodes[4096];
			char *tmp = strndup(line, (size_t) (eol - line));

			if (!tmp)
				return mdc_nomem(ctx);
			/* NodeSet's second key is Nodes= (or Feature=) */
			if (line_kv(tmp, "Nodes", nodes, sizeof(nodes))) {
				free(pl->nodes);
				pl->nodes = strdup(nodes);
				pl->in_base = 1;
			}
			free(tmp);
			if (!pl->nodes)
				return mdc_nomem(ctx);
		}
	}
	for (line = base; line && *line; line = *eol ? eol + 1 : eol) {
		size_t len;
		const char *hash = NULL, *p;

		lineno++;
		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		len = (size_t) (eol - line);
		if (len && line[len - 1] == '\r')
			len--;
		first_key(line, key, sizeof(key));
		if (*key && spec_sets_key(ss, key))
			continue;
		if (*key && rel >= 0) {
			int r = base_line_for(out, line, key, rel);

			if (r < 0)
				return mdc_nomem(ctx);
			if (r)
				continue;
		}
		if (!strcasecmp(key, "NodeName") && line_kv(line, "NodeName", val, sizeof(val))) {
			for (i = 0; i < npools; i++)
				if (pools[i].in_base && pools[i].config &&
				    nodes_has(pools[i].nodes, val))
					break;
			if (i < npools) {
				/* insert the pool's keys before any comment */
				for (p = line; p < line + len; p++)
					if (*p == '#' && (p == line || p[-1] != '\\')) {
						hash = p;
						break;
					}
				if (!hash)
					hash = line + len;
				while (hash > line && (hash[-1] == ' ' || hash[-1] == '\t'))
					hash--;
				if (mdc_buf_add(out, line, (size_t) (hash - line)))
					return mdc_nomem(ctx);
				rc = put_map(out, pools[i].config, SC_SCOPE_NODE, pools[i].id, " ", rel, ctx);
				if (rc)
					return rc;
				if (mdc_buf_add(out, hash, (size_t) (line + len - hash)) ||
				    mdc_buf_addc(out, '\n'))
					return mdc_nomem(ctx);
				continue;
			}
		}
		if (memchr(line, '\0', len)) {
			return mdc_fail(ctx, MDC_ERR_INVAL, "%s:%zu: NUL byte in the base", base_name, lineno);
		}
		if (mdc_buf_add(out, line, len) || mdc_buf_addc(out, '\n'))
			return mdc_nomem(ctx);
	}
	return 0;
}

/* Pools the base does not define: future nodes the service will create. */
static int put_future_pools(struct mdc_buf *out, struct pool *pools, size_t npools, int rel,
			    struct mdc_ctx *ctx)
{
	for (size_t i = 0; i < npools; i++) {
		struct pool *pl = &pools[i];
		int rc;

		if (pl->in_base)
			continue;
		if (mdc_buf_addf(out, "NodeName=%s State=FUTURE", pl->nodes))
			return mdc_nomem(ctx);
		if ((rc = put_map(out, pl->config, SC_SCOPE_NODE, pl->id, " ", rel, ctx)))
			return rc;
		if (mdc_buf_addf(out, "\nNodeSet=%s Nodes=%s\n", pl->id, pl->nodes))
			return mdc_nomem(ctx);
		pl->in_base = 1;
	}
	return 0;
}

/* Cluster scope: config first, then the legacy maps (C9), sorted by key. */
static int put_cluster_keys(struct mdc_buf *out, const json_object *ss, int rel,
			    struct mdc_ctx *ctx)
{
	static const char *const cfg_maps[] = { "config", "scheduling", "accounting" };
	struct kv *kv = NULL;
	size_t cap = 0, n = 0;
	int rc = 0;

	for (size_t i = 0; i < 3; i++)
		cap += map_len(ss ? mdc_json_get(ss, cfg_maps[i]) : NULL);
	if (!cap)
		return 0;
	if (!(kv = calloc(cap, sizeof(*kv))))
		return mdc_nomem(ctx);
	for (size_t i = 0; i < 3 && !rc; i++)
		rc = collect(mdc_json_get(ss, cfg_maps[i]), SC_SCOPE_CLUSTER, cfg_maps[i], rel, kv,
			     &n, cap, ctx);
	if (!rc)
		qsort(kv, n, sizeof(*kv), kv_cmp);
	for (size_t i = 0; !rc && i < n; i++) {
		if (mdc_buf_addf(out, "%s=", kv[i].key))
			rc = mdc_nomem(ctx);
		else if (!(rc = put_value(out, kv[i].value, kv[i].key, ctx)) && mdc_buf_addc(out, '\n'))
			rc = mdc_nomem(ctx);
	}
	free(kv);
	return rc;
}

/* The Nodes= of partition ID: its node pools' NodeSet names, joined in
 * *JOINED (NULL when it has none; malloc'ed). */
static int part_nodes(const json_object *p, const char *id, struct pool *pools, size_t npools,
		      char **joined, struct mdc_ctx *ctx)
{
	json_object *pids = mdc_json_get_arr(p, "node_pool_ids");
	struct mdc_strv names = MDC_STRV_INIT;
	int rc = 0;

	*joined = NULL;
	for (size_t j = 0; !rc && pids && j < json_object_array_length(pids); j++) {
		const char *pid = json_object_get_string(json_object_array_get_idx(pids, j));

		if (!pool_find(pools, npools, pid))
			rc = mdc_fail(ctx, MDC_ERR_INVAL,
				      "partition \"%s\": \"%s\" is not a compute node pool of this cluster",
				      id, pid ? pid : "");
		else if (mdc_strv_push(&names, pid))
			rc = mdc_nomem(ctx);
	}
	if (!rc && names.n && !(*joined = mdc_strv_join(&names, ",")))
		rc = mdc_nomem(ctx);
	mdc_strv_free(&names);
	return rc;
}

/* One PartitionName line: Nodes, Default, State (UP unless its config
 * says otherwise), then its config. */
static int put_partition(struct mdc_buf *out, const json_object *p, size_t i, const char *def,
			 struct pool *pools, size_t npools, int rel, struct mdc_ctx *ctx)
{
	json_object *cfg = mdc_json_get_obj(p, "config"), *state = NULL;
	const char *id = mdc_json_get_str(p, "id", NULL);
	char *joined = NULL;
	int rc;

	if (!id)
		id = mdc_json_get_str(p, "partition_id", NULL);
	if (!id || !*id || mdc_has_ctrl(id) || strpbrk(id, " =#\"\\"))
		return mdc_fail(ctx, MDC_ERR_INVAL, "partitions[%zu]: missing or invalid \"id\"", i);
	if ((rc = part_nodes(p, id, pools, npools, &joined, ctx)))
		return rc;
	if (cfg) {
		json_object_object_foreach(cfg, k, v) {
			if (mdc_key_eq(k, "State"))
				state = v;
		}
	}
	if (mdc_buf_addf(out, "PartitionName=%s", id) ||
	    (joined && mdc_buf_addf(out, " Nodes=%s", joined)) ||
	    (def && !strcmp(def, id) && mdc_buf_adds(out, " Default=YES")) ||
	    mdc_buf_adds(out, " State="))
		rc = mdc_nomem(ctx);
	free(joined);
	if (!rc)
		rc = put_value(out, state ? json_object_get_string(state) : "UP", "State", ctx);
	if (!rc)
		rc = put_map(out, cfg, SC_SCOPE_PARTITION, id, " ", rel, ctx);
	if (!rc && mdc_buf_addc(out, '\n'))
		rc = mdc_nomem(ctx);
	return rc;
}

int sc_render(const json_object *spec, const char *base, const char *base_name,
	      struct mdc_buf *out, struct mdc_ctx *ctx)
{
	return sc_render_rel(spec, base, base_name, -1, out, ctx);
}

int sc_render_rel(const json_object *spec, const char *base, const char *base_name, int rel,
		  struct mdc_buf *out, struct mdc_ctx *ctx)
{
	json_object *ss, *parts;
	struct pool *pools = NULL;
	const char *def;
	size_t npools = 0, len;
	int rc;

	if (!spec || !json_object_is_type(spec, json_type_object))
		return mdc_fail(ctx, MDC_ERR_INVAL, "render: the cluster spec must be a JSON object");
	ss = mdc_json_get_path(spec, "orchestrator_spec.slurm_spec");
	if ((rc = pools_get(spec, ss, &pools, &npools, ctx)) ||
	    (base && (rc = put_base(out, base, base_name ? base_name : "base", ss, pools, npools,
				    rel, ctx))) ||
	    (rc = put_future_pools(out, pools, npools, rel, ctx)) ||
	    (rc = put_cluster_keys(out, ss, rel, ctx)))
		goto out;
	/* partitions, in spec order */
	parts = ss ? mdc_json_get_arr(ss, "partitions") : NULL;
	def = ss ? mdc_json_get_str(ss, "default_partition_id", NULL) : NULL;
	len = parts ? json_object_array_length(parts) : 0;
	for (size_t i = 0; !rc && i < len; i++)
		rc = put_partition(out, json_object_array_get_idx(parts, i), i, def, pools, npools, rel,
				   ctx);
out:
	pools_free(pools, npools);
	return rc;
}

/* One map of slurm.conf keys in SCOPE at FIELD: the first key (or plugin)
 * REL does not know, as sc_render_check_release says. */
static int check_map(json_object *map, unsigned scope, const char *field, int rel,
		     char *where, size_t wheresz, struct mdc_ctx *ctx)
{
	char why[512];

	if (!map || !json_object_is_type(map, json_type_object))
		return 0;
	json_object_object_foreach(map, key, val) {
		const struct sc_option *opt = sc_opt_find(key, scope);
		const char *name = opt ? opt->name : key;

		if (!sc_rel_check_key(name, scope, rel, why, sizeof(why)) &&
		    !sc_rel_check_plugins(name, json_object_get_string(val), rel, why, sizeof(why)))
			continue;
		snprintf(where, wheresz, "%s", field);
		return mdc_fail(ctx, MDC_ERR_REFUSED, "%s: %s", key, why);
	}
	return 0;
}

int sc_render_check_release(const json_object *spec, int rel, char *field, size_t fieldsz,
			    struct mdc_ctx *ctx)
{
	static const char *const maps[] = { "config", "scheduling", "accounting" };
	static const struct { const char *list; unsigned scope; } lists[] = {
		{ "partitions", SC_SCOPE_PARTITION },
		{ "node_sets", SC_SCOPE_NODE },
	};
	json_object *ss = spec ? mdc_json_get_path(spec, "orchestrator_spec.slurm_spec") : NULL;
	char path[256];
	int rc;

	if (field && fieldsz)
		field[0] = '\0';
	if (!ss || rel < 0)
		return 0;
	for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
		snprintf(path, sizeof(path), "orchestrator_spec.slurm_spec.%s", maps[m]);
		if ((rc = check_map(mdc_json_get_obj(ss, maps[m]), SC_SCOPE_CLUSTER, path, rel,
				    field, fieldsz, ctx)))
			return rc;
	}
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		json_object *arr = mdc_json_get_arr(ss, lists[l].list);

		for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
			snprintf(path, sizeof(path), "orchestrator_spec.slurm_spec.%s[%zu].config",
				 lists[l].list, i);
			if ((rc = check_map(mdc_json_get_obj(json_object_array_get_idx(arr, i),
							     "config"),
					    lists[l].scope, path, rel, field, fieldsz, ctx)))
				return rc;
		}
	}
	return 0;
}
