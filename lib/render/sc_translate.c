/* sc_translate.c - slurm.conf diff -> intent.  (owner: slurm.conf engine) */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_json.h"
#include "sc_options.h"
#include "sc_translate.h"

/* Slurm node names (and NodeSet names) that stand for a node pool. */
struct alias {
	char *name;
	const char *pool;	/* borrowed from the spec */
};

struct tr {
	const struct sc_conf *base, *ed;
	struct mdc_intent *out;
	struct mdc_ctx *ctx;
	struct mdc_strv pools;	/* compute pool ids, spec order */
	struct alias *alias;
	size_t nalias;
};

#define NOMEM(t) mdc_nomem((t)->ctx)

static void where(char *buf, size_t sz, const char *file, int line)
{
	snprintf(buf, sz, "%s:%d", file ? file : "?", line);
}

static struct mdc_op *add(struct tr *t, enum mdc_op_kind kind, const char *id,
			  const char *key, const char *value, const char *file, int line)
{
	struct mdc_op *op = mdc_intent_add(t->out, kind, id, key, value);
	char w[512];

	if (!op)
		return NULL;
	where(w, sizeof(w), file, line);
	op->where = strdup(w);
	if (!op->where)
		return NULL;
	return op;
}

static int note(struct tr *t, bool refusal, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int note(struct tr *t, bool refusal, const char *file, int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (mdc_strv_pushf(refusal ? &t->out->refusals : &t->out->notes,
			   "%s:%d: %s", file ? file : "?", line, msg))
		return NOMEM(t);
	return 0;
}

static const char *pool_of(const struct tr *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->pools.n; i++)
		if (!strcmp(t->pools.v[i], name))
			return t->pools.v[i];
	for (i = 0; i < t->nalias; i++)
		if (!strcmp(t->alias[i].name, name))
			return t->alias[i].pool;
	return NULL;
}

static int alias_add(struct tr *t, const char *name, const char *pool)
{
	struct alias *a = realloc(t->alias, (t->nalias + 1) * sizeof(*a));

	if (!a)
		return NOMEM(t);
	t->alias = a;
	a[t->nalias].name = strdup(name);
	if (!a[t->nalias].name)
		return NOMEM(t);
	a[t->nalias].pool = pool;
	t->nalias++;
	return 0;
}

/* Compute pools from SPEC, and the names that stand for them in BASE. */
static int map_pools(struct tr *t, const json_object *spec)
{
	json_object *arr = mdc_json_get_arr(spec, "node_pools");
	const char *login = mdc_json_get_str(mdc_json_get_path(spec, "orchestrator_spec.slurm_spec"),
					     "login_node_pool_id", NULL);
	size_t i, j;

	for (i = 0; arr && i < json_object_array_length(arr); i++) {
		const char *id = mdc_json_get_str(json_object_array_get_idx(arr, i), "id", NULL);

		if (id && (!login || strcmp(id, login)) && mdc_strv_push(&t->pools, id))
			return NOMEM(t);
	}
	for (i = 0; i < t->base->nrecs; i++) {
		const struct sc_record *r = &t->base->recs[i];
		struct mdc_strv names = MDC_STRV_INIT;
		const char *pool, *nodes;

		if (r->type != SC_REC_NODESET || !(pool = pool_of(t, r->name)))
			continue;
		nodes = sc_record_get(r, "Nodes");
		if (nodes && mdc_strv_split_list(&names, nodes))
			return NOMEM(t);
		for (j = 0; j < names.n; j++) {
			if (alias_add(t, names.v[j], pool)) {
				mdc_strv_free(&names);
				return MDC_ERR_NOMEM;
			}
		}
		mdc_strv_free(&names);
	}
	return 0;
}

/* Node pools named by a partition's Nodes= value, in order, without
 * repeats; *BAD receives the first element that names no pool. */
static int nodes_to_pools(struct tr *t, const char *nodes, struct mdc_strv *out,
			  char *bad, size_t badsz)
{
	struct mdc_strv el = MDC_STRV_INIT;
	size_t i, j;
	int rc = 0;

	bad[0] = '\0';
	if (!nodes)
		return 0;
	if (mdc_strv_split_list(&el, nodes))
		return NOMEM(t);
	for (i = 0; i < el.n; i++) {
		const char *pool;

		if (!strcasecmp(el.v[i], "ALL")) {
			for (j = 0; j < t->pools.n; j++)
				if (!mdc_strv_has(out, t->pools.v[j]) &&
				    mdc_strv_push(out, t->pools.v[j])) {
					rc = NOMEM(t);
					goto out;
				}
			continue;
		}
		pool = pool_of(t, el.v[i]);
		if (!pool) {
			if (!bad[0])
				snprintf(bad, badsz, "%s", el.v[i]);
			continue;
		}
		if (!mdc_strv_has(out, pool) && mdc_strv_push(out, pool)) {
			rc = NOMEM(t);
			goto out;
		}
	}
out:
	mdc_strv_free(&el);
	return rc;
}

static bool strv_same_set(const struct mdc_strv *a, const struct mdc_strv *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!mdc_strv_has(b, a->v[i]))
			return false;
	return true;
}

/* ---- global keys ---- */

static int global_change(struct tr *t, const struct sc_kv *kv, bool removed)
{
	const struct sc_option *opt = sc_opt_find(kv->key, SC_SCOPE_CLUSTER);
	const char *name = opt ? opt->name : kv->key;

	if (opt && (opt->flags & SC_OPT_REFUSED)) {
		const char *cmd = !strcasecmp(name, "Prolog") ? "mdcctl prolog" :
				  !strcasecmp(name, "Epilog") ? "mdcctl epilog" : NULL;

		if (cmd)
			return note(t, true, kv->file, kv->line,
				    "%s= cannot be set through slurm.conf: manage the job %s scripts with `%s` (%s_bash_scripts)",
				    name, cmd + 7, cmd, cmd + 7);
		return note(t, true, kv->file, kv->line, "%s cannot be set: %s", name,
			    opt->why ? opt->why : "refused by the API");
	}
	if (!opt || (opt->flags & SC_OPT_MANAGED))
		return note(t, false, kv->file, kv->line,
			    "%s is service-managed: %s", name, removed ? "removal ignored" : "change ignored");
	if (removed)
		return add(t, MDC_OP_CONFIG_UNSET, NULL, name, NULL, kv->file, kv->line) ? 0 : NOMEM(t);
	return add(t, MDC_OP_CONFIG_SET, NULL, name, kv->value, kv->file, kv->line) ? 0 : NOMEM(t);
}

static int globals(struct tr *t)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < t->ed->nglobals && !rc; i++) {
		const struct sc_kv *e = &t->ed->globals[i];
		const struct sc_kv *b = sc_conf_global(t->base, e->key);

		if (!strcasecmp(e->key, "SlurmctldHost")) {
			/* repeats: compare as a whole, below */
			continue;
		}
		if (b && !strcmp(b->value, e->value))
			continue;
		rc = global_change(t, e, false);
	}
	for (i = 0; i < t->base->nglobals && !rc; i++) {
		const struct sc_kv *b = &t->base->globals[i];

		if (!strcasecmp(b->key, "SlurmctldHost") || sc_conf_global(t->ed, b->key))
			continue;
		rc = global_change(t, b, true);
	}
	if (!rc) {
		size_t nb = 0, ne = 0, j;
		bool same = true;

		for (i = 0; i < t->base->nglobals; i++)
			nb += !strcasecmp(t->base->globals[i].key, "SlurmctldHost");
		for (i = 0; i < t->ed->nglobals; i++) {
			const struct sc_kv *e = &t->ed->globals[i];

			if (strcasecmp(e->key, "SlurmctldHost"))
				continue;
			ne++;
			for (j = 0; j < t->base->nglobals; j++)
				if (!strcasecmp(t->base->globals[j].key, "SlurmctldHost") &&
				    !strcmp(t->base->globals[j].value, e->value))
					break;
			if (j == t->base->nglobals && same) {
				same = false;
				rc = note(t, false, e->file, e->line,
					  "SlurmctldHost is service-managed: change ignored");
			}
		}
		if (!rc && same && nb != ne)
			rc = note(t, false, t->ed->files.n ? t->ed->files.v[0] : "?", 0,
				  "SlurmctldHost is service-managed: change ignored");
	}
	return rc;
}

/* ---- partitions ---- */

static bool is_true(const char *v)
{
	return v && (!strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
		     !strcasecmp(v, "up") || !strcmp(v, "1"));
}

/* Keys of a PartitionName line that are not the partition's config. */
static bool part_structural(const char *key)
{
	return mdc_key_eq(key, "Nodes") || mdc_key_eq(key, "Default");
}

/* Value of KEY on R, with State defaulting to UP as the renderer writes it. */
static const char *part_value(const struct sc_record *r, const char *key)
{
	const char *v = sc_record_get(r, key);

	if (!v && mdc_key_eq(key, "State"))
		return "UP";
	return v;
}

static const char *canon(const char *key, unsigned scope)
{
	const struct sc_option *opt = sc_opt_find(key, scope);

	return opt ? opt->name : key;
}

static int part_create(struct tr *t, const struct sc_record *e)
{
	struct mdc_op *op;
	char bad[256];
	size_t i;
	int rc;

	op = add(t, MDC_OP_PART_CREATE, e->name, NULL, NULL, e->file, e->line);
	if (!op)
		return NOMEM(t);
	rc = nodes_to_pools(t, sc_record_get(e, "Nodes"), &op->list, bad, sizeof(bad));
	if (rc)
		return rc;
	if (bad[0])
		rc = note(t, true, e->file, e->line,
			  "partition \"%s\": Nodes= element \"%s\" is not a node pool of this cluster (partitions are made of whole node pools: use NodeSet names)",
			  e->name, bad);
	for (i = 0; i < e->nkv && !rc; i++) {
		const struct sc_kv *kv = &e->kv[i];

		if (part_structural(kv->key) ||
		    (mdc_key_eq(kv->key, "State") && !strcasecmp(kv->value, "UP")))
			continue;
		if (mdc_strv_pushf(&op->kv, "%s=%s", canon(kv->key, SC_SCOPE_PARTITION), kv->value))
			rc = NOMEM(t);
	}
	return rc;
}

static int part_update(struct tr *t, const struct sc_record *b, const struct sc_record *e)
{
	struct mdc_strv pb = MDC_STRV_INIT, pe = MDC_STRV_INIT;
	char bad[256], badb[256];
	size_t i;
	int rc;

	rc = nodes_to_pools(t, sc_record_get(e, "Nodes"), &pe, bad, sizeof(bad));
	if (!rc)
		rc = nodes_to_pools(t, sc_record_get(b, "Nodes"), &pb, badb, sizeof(badb));
	if (rc)
		goto out;
	if (bad[0] && (!sc_record_get(b, "Nodes") ||
		       strcmp(sc_record_get(b, "Nodes"), sc_record_get(e, "Nodes")))) {
		rc = note(t, true, e->file, e->line,
			  "partition \"%s\": Nodes= element \"%s\" is not a node pool of this cluster (partitions are made of whole node pools: use NodeSet names)",
			  e->name, bad);
		if (rc)
			goto out;
	} else if (!strv_same_set(&pb, &pe)) {
		struct mdc_op *op = add(t, MDC_OP_PART_POOLS, e->name, NULL, NULL, e->file, e->line);
		const struct sc_kv *kv = sc_record_kv(e, "Nodes");

		if (!op) {
			rc = NOMEM(t);
			goto out;
		}
		if (kv) {
			char w[512];

			where(w, sizeof(w), kv->file, kv->line);
			free(op->where);
			op->where = strdup(w);
			if (!op->where) {
				rc = NOMEM(t);
				goto out;
			}
		}
		for (i = 0; i < pe.n && !rc; i++)
			if (mdc_strv_push(&op->list, pe.v[i]))
				rc = NOMEM(t);
		if (rc)
			goto out;
	}
	for (i = 0; i < e->nkv && !rc; i++) {
		const struct sc_kv *kv = &e->kv[i];
		const char *old = part_value(b, kv->key);

		if (part_structural(kv->key) || (old && !strcmp(old, kv->value)))
			continue;
		if (!add(t, MDC_OP_PART_SET, e->name, canon(kv->key, SC_SCOPE_PARTITION),
			 kv->value, kv->file, kv->line))
			rc = NOMEM(t);
	}
	for (i = 0; i < b->nkv && !rc; i++) {
		const struct sc_kv *kv = &b->kv[i];

		if (part_structural(kv->key) || sc_record_kv(e, kv->key))
			continue;
		if (mdc_key_eq(kv->key, "State") && !strcasecmp(kv->value, "UP"))
			continue;
		if (!add(t, MDC_OP_PART_UNSET, e->name, canon(kv->key, SC_SCOPE_PARTITION),
			 NULL, e->file, e->line))
			rc = NOMEM(t);
	}
out:
	mdc_strv_free(&pb);
	mdc_strv_free(&pe);
	return rc;
}

/* The last non-DEFAULT partition marked Default=YES (Slurm's choice). */
static const struct sc_record *default_part(const struct sc_conf *c)
{
	const struct sc_record *d = NULL;
	size_t i;

	for (i = 0; i < c->nrecs; i++)
		if (c->recs[i].type == SC_REC_PARTITION && !c->recs[i].is_default &&
		    is_true(sc_record_get(&c->recs[i], "Default")))
			d = &c->recs[i];
	return d;
}

static int partitions(struct tr *t)
{
	const struct sc_record *db, *de;
	size_t i;
	int rc = 0;

	for (i = 0; i < t->ed->nrecs && !rc; i++) {
		const struct sc_record *e = &t->ed->recs[i], *b;

		if (e->type != SC_REC_PARTITION || e->is_default ||
		    sc_conf_record(t->ed, SC_REC_PARTITION, e->name) != e)
			continue;	/* slurmctld uses the first of a name */
		b = sc_conf_record(t->base, SC_REC_PARTITION, e->name);
		rc = b ? part_update(t, b, e) : part_create(t, e);
	}
	for (i = 0; i < t->base->nrecs && !rc; i++) {
		const struct sc_record *b = &t->base->recs[i];

		if (b->type != SC_REC_PARTITION || b->is_default ||
		    sc_conf_record(t->ed, SC_REC_PARTITION, b->name))
			continue;
		if (!add(t, MDC_OP_PART_DELETE, b->name, NULL, NULL, b->file, b->line))
			rc = NOMEM(t);
	}
	if (rc)
		return rc;
	db = default_part(t->base);
	de = default_part(t->ed);
	if (de && (!db || strcmp(db->name, de->name))) {
		const struct sc_kv *kv = sc_record_kv(de, "Default");

		if (!add(t, MDC_OP_PART_DEFAULT, de->name, NULL, NULL,
			 kv ? kv->file : de->file, kv ? kv->line : de->line))
			return NOMEM(t);
	} else if (!de && db) {
		const struct sc_record *still = sc_conf_record(t->ed, SC_REC_PARTITION, db->name);

		if (still)
			rc = note(t, false, still->file, still->line,
				  "no partition is marked Default=YES: the default partition stays \"%s\"",
				  db->name);
		else
			rc = note(t, false, db->file, db->line,
				  "the default partition \"%s\" is removed and no other is marked Default=YES: the API refuses this, mark one",
				  db->name);
	}
	return rc;
}

/* ---- node pools (NodeName lines) ---- */

/* The pool whose NodeSet lists node record R's name, or NULL. */
static const char *node_pool(const struct tr *t, const struct sc_record *r)
{
	size_t i;

	for (i = 0; i < t->nalias; i++)
		if (!strcmp(t->alias[i].name, r->name))
			return t->alias[i].pool;
	return NULL;
}

static int nodes(struct tr *t)
{
	size_t i, j, k;
	int rc = 0;

	for (i = 0; i < t->ed->nrecs && !rc; i++) {
		const struct sc_record *e = &t->ed->recs[i], *b;
		const char *pool;

		if (e->is_default || sc_conf_record(t->ed, e->type, e->name) != e)
			continue;	/* DEFAULT lines are inherited; Slurm uses the first of a name */
		if (e->type == SC_REC_NODESET || e->type == SC_REC_DOWNNODES ||
		    e->type == SC_REC_FRONTEND) {
			b = sc_conf_record(t->base, e->type, e->name);
			if (!b)
				rc = note(t, false, e->file, e->line,
					  "%s lines are not part of the cluster spec: ignored%s",
					  sc_rec_type_name(e->type),
					  e->type == SC_REC_DOWNNODES ? " (use scontrol update NodeName=... State=DOWN)" : "");
			continue;
		}
		if (e->type != SC_REC_NODE)
			continue;
		b = sc_conf_record(t->base, SC_REC_NODE, e->name);
		if (!b) {
			rc = note(t, true, e->file, e->line,
				  "NodeName=%s: nodes come from node pools; add or scale a node pool (mdcctl nodepool) instead",
				  e->name);
			continue;
		}
		pool = node_pool(t, b);
		for (j = 0; j < e->nkv && !rc; j++) {
			const struct sc_kv *kv = &e->kv[j];
			const char *old = sc_record_get(b, kv->key);
			const struct sc_option *opt = sc_opt_find(kv->key, SC_SCOPE_NODE);
			bool dup = false;

			if (old && !strcmp(old, kv->value))
				continue;
			if (!opt || (opt->flags & SC_OPT_MANAGED)) {
				rc = note(t, false, kv->file, kv->line,
					  "NodeName=%s %s: generated node hardware is service-managed: ignored",
					  e->name, opt ? opt->name : kv->key);
				continue;
			}
			if (!pool) {
				rc = note(t, true, kv->file, kv->line,
					  "NodeName=%s belongs to no node pool: %s cannot be persisted",
					  e->name, opt->name);
				continue;
			}
			/* a pool spans several NodeName lines: one op per key */
			for (k = 0; k < t->out->n; k++)
				if (t->out->ops[k].kind == MDC_OP_NODESET_SET &&
				    !strcmp(t->out->ops[k].id, pool) &&
				    mdc_key_eq(t->out->ops[k].key, opt->name))
					dup = true;
			if (!dup && !add(t, MDC_OP_NODESET_SET, pool, opt->name, kv->value,
					 kv->file, kv->line))
				rc = NOMEM(t);
		}
		for (j = 0; j < b->nkv && !rc; j++) {
			const struct sc_kv *kv = &b->kv[j];
			const struct sc_option *opt = sc_opt_find(kv->key, SC_SCOPE_NODE);
			bool dup = false;

			if (sc_record_kv(e, kv->key))
				continue;
			if (!opt || (opt->flags & SC_OPT_MANAGED)) {
				rc = note(t, false, e->file, e->line,
					  "NodeName=%s %s: generated node hardware is service-managed: removal ignored",
					  e->name, opt ? opt->name : kv->key);
				continue;
			}
			if (!pool)
				continue;
			for (k = 0; k < t->out->n; k++)
				if (t->out->ops[k].kind == MDC_OP_NODESET_UNSET &&
				    !strcmp(t->out->ops[k].id, pool) &&
				    mdc_key_eq(t->out->ops[k].key, opt->name))
					dup = true;
			if (!dup && !add(t, MDC_OP_NODESET_UNSET, pool, opt->name, NULL,
					 e->file, e->line))
				rc = NOMEM(t);
		}
	}
	for (i = 0; i < t->base->nrecs && !rc; i++) {
		const struct sc_record *b = &t->base->recs[i];

		if (b->is_default || sc_conf_record(t->ed, b->type, b->name))
			continue;
		if (b->type == SC_REC_NODE)
			rc = note(t, true, b->file, b->line,
				  "NodeName=%s removed: nodes come from node pools; scale or delete the node pool (mdcctl nodepool) instead",
				  b->name);
		else if (b->type != SC_REC_PARTITION)
			rc = note(t, false, b->file, b->line, "%s=%s removed: generated by the service, ignored",
				  sc_rec_type_name(b->type), b->name);
	}
	return rc;
}

int sc_translate(const struct sc_conf *baseline, const struct sc_conf *edited,
		 const json_object *spec, struct mdc_intent *out, struct mdc_ctx *ctx)
{
	struct tr t;
	size_t i;
	int rc;

	if (!baseline || !edited || !out)
		return mdc_fail(ctx, MDC_ERR_INTERNAL, "sc_translate: missing argument");
	memset(&t, 0, sizeof(t));
	t.base = baseline;
	t.ed = edited;
	t.out = out;
	t.ctx = ctx;
	rc = map_pools(&t, spec);
	if (!rc)
		rc = globals(&t);
	if (!rc)
		rc = partitions(&t);
	if (!rc)
		rc = nodes(&t);
	mdc_strv_free(&t.pools);
	for (i = 0; i < t.nalias; i++)
		free(t.alias[i].name);
	free(t.alias);
	return rc;
}
