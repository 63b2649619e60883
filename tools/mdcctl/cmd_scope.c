/* cmd_scope.c - per-scope commands: config, partition, nodeset, nodepool,
 * prolog/epilog, labels.  Reads print the fresh spec; writes check their
 * arguments with the option table (nothing is sent on bad input), build
 * an intent and go through mdc_update_run (lock, fresh GET, plan, PATCH,
 * wait).  (owner: client) */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_rules.h"
#include "mdc_run.h"
#include "mdc_str.h"
#include "sc_options.h"
#include "mdcctl.h"

/* ---- reading ---------------------------------------------------------- */

/* GET the cluster for a read command; prints the error itself. */
static int scope_read(struct mdcctl *g, json_object **cl)
{
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_ctx ctx;
	int rc;

	*cl = NULL;
	mdc_ctx_clear(&ctx);
	memset(&s, 0, sizeof(s));
	if ((rc = mdcctl_connect(g, true, &s, &c, &ctx)) || (rc = mdc_cluster_get(c, s.cluster, cl, &ctx)))
		rc = mdcctl_fail(g, &ctx);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

static json_object *scope_slurm(const json_object *cl)
{
	return mdc_json_get_path(cl, "orchestrator_spec.slurm_spec");
}

/* The element of ARR whose FIELD is ID (borrowed), or NULL. */
static json_object *scope_find(const json_object *arr, const char *field, const char *id)
{
	size_t n = json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		if (mdc_streq(mdc_json_get_str(e, field, NULL), id))
			return e;
	}
	return NULL;
}

static void scope_print_map(const json_object *map)
{
	if (!json_object_is_type(map, json_type_object))
		return;
	json_object_object_foreach((json_object *) map, k, v)
		printf("%s=%s\n", k, json_object_get_string(v));
}

/* Print OBJ (may be NULL = empty of type EMPTY) as JSON, or as text with FN. */
static void scope_show(struct mdcctl *g, const json_object *obj, json_type empty,
		       void (*fn)(const json_object *))
{
	json_object *tmp = NULL;

	if (g->format == MDCCTL_JSON) {
		if (!obj)
			obj = tmp = empty == json_type_array ? json_object_new_array() : json_object_new_object();
		mdcctl_print_json(obj);
		json_object_put(tmp);
	} else if (obj) {
		fn(obj);
	}
}

static int scope_not_found(struct mdcctl *g, const char *what, const char *id)
{
	struct mdc_ctx ctx;

	mdc_ctx_clear(&ctx);
	mdc_fail(&ctx, MDC_ERR_NOTFOUND, "no %s '%s' in the cluster", what, id);
	return mdcctl_fail(g, &ctx);
}

/* ---- checking arguments before anything is sent ---------------------- */

/* Ids and labels: the service's own rules. */
static int scope_check_id(const char *what, const char *id, struct mdc_ctx *ctx)
{
	return mdc_rules_check_id(what, id, ctx);
}

static int scope_check_label(const char *key, const char *value, struct mdc_ctx *ctx)
{
	return mdc_rules_check_label(key, value, ctx);
}

/* A key unknown in SCOPE that another scope knows: say where it belongs
 * (MaxTime is a partition key) instead of "unknown key". */
static void scope_other_hint(const char *key, const char *val, unsigned scope, struct mdc_ctx *ctx)
{
	static const struct { unsigned scope; const char *name, *cmd; } scopes[] = {
		{ SC_SCOPE_CLUSTER, "cluster", "mdcctl config set" },
		{ SC_SCOPE_PARTITION, "partition", "mdcctl partition update PARTITION" },
		{ SC_SCOPE_NODE, "node", "mdcctl nodeset set POOL" },
	};
	const struct sc_option *opt;

	if (sc_opt_find(key, scope))
		return;	/* known here: the value was wrong, the message says so */
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		if (scopes[i].scope == scope || !(opt = sc_opt_find(key, scopes[i].scope)) ||
		    (opt->flags & SC_OPT_RECORD))
			continue;
		mdc_ctx_clear(ctx);
		mdc_fail(ctx, MDC_ERR_INVAL, "%s is a %s key, not a %s one: %s %s=%s", opt->name,
			 scopes[i].name, scope == SC_SCOPE_CLUSTER ? "cluster" :
			 scope == SC_SCOPE_PARTITION ? "partition" : "node", scopes[i].cmd,
			 opt->name, val ? val : "...");
		return;
	}
}

/* Add a SET op per "K=V" (SCOPE checked) or an UNSET op per "K". */
static int scope_kv_ops(struct mdc_intent *in, enum mdc_op_kind kind, const char *id,
			int argc, char **argv, unsigned scope, const char *where, bool set,
			struct mdc_ctx *ctx)
{
	int rc = 0;

	if (argc < 1)
		return mdc_fail(ctx, MDC_ERR_USAGE, "%s: give at least one %s", where,
				set ? "KEY=VALUE" : "KEY");
	for (int i = 0; i < argc && !rc; i++) {
		char *key = NULL;
		const char *val = NULL;

		if (set) {
			if ((rc = mdcctl_split_kv(argv[i], &key, &val, ctx)))
				break;
		} else if (strchr(argv[i], '=')) {
			rc = mdc_fail(ctx, MDC_ERR_USAGE, "'%s': unset takes keys, not KEY=VALUE", argv[i]);
			break;
		}
		if (scope) {
			rc = mdcctl_check_kv(set ? key : argv[i], val, scope, where, ctx);
			if (rc == MDC_ERR_INVAL)
				scope_other_hint(set ? key : argv[i], val, scope, ctx);
		} else
			rc = scope_check_label(set ? key : argv[i], val, ctx);
		if (!rc && !mdc_intent_add(in, kind, id, set ? key : argv[i], val))
			rc = mdc_nomem(ctx);
		free(key);
	}
	return rc;
}

/* ---- config ----------------------------------------------------------- */

static void config_text(const json_object *map)
{
	scope_print_map(map);
}

int cmd_config(struct mdcctl *g, int argc, char **argv)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	json_object *cl = NULL, *cfg;
	struct mdc_ctx ctx;
	const char *sub;
	int rc = 0;

	/* the subcommand is read after the options, so "config -- show" works */
	if ((rc = mdcctl_operands(g, &argc, &argv)))
		return rc;
	sub = argc > 1 ? argv[1] : "";

	mdc_ctx_clear(&ctx);
	if (!strcmp(sub, "show") && argc == 2) {
		if (!(rc = scope_read(g, &cl)))
			scope_show(g, mdc_json_get_obj(scope_slurm(cl), "config"), json_type_object, config_text);
	} else if (!strcmp(sub, "get") && argc == 3) {
		const char *found = NULL;

		if ((rc = mdcctl_check_kv(argv[2], NULL, SC_SCOPE_CLUSTER, "config", &ctx))) {
			/* a refused key may still be read back: only unknown keys stop here */
			if (ctx.err != MDC_ERR_REFUSED) {
				rc = mdcctl_fail(g, &ctx);
				goto out;
			}
			mdc_ctx_clear(&ctx);
		}
		if ((rc = scope_read(g, &cl)))
			goto out;
		cfg = mdc_json_get_obj(scope_slurm(cl), "config");
		if (cfg) {
			json_object_object_foreach(cfg, k, v) {
				if (mdc_key_eq(k, argv[2])) {
					found = json_object_get_string(v);
					if (g->format == MDCCTL_JSON) {
						json_object *o = json_object_new_object();

						json_object_object_add(o, k, json_object_get(v));
						mdcctl_print_json(o);
						json_object_put(o);
					} else {
						printf("%s\n", found);
					}
					break;
				}
			}
		}
		if (!found)
			rc = scope_not_found(g, "config key", argv[2]);
	} else if ((!strcmp(sub, "set") || !strcmp(sub, "unset")) && argc >= 3) {
		bool set = !strcmp(sub, "set");

		if ((rc = scope_kv_ops(&in, set ? MDC_OP_CONFIG_SET : MDC_OP_CONFIG_UNSET, NULL,
				       argc - 2, argv + 2, SC_SCOPE_CLUSTER, "config", set, &ctx))) {
			rc = mdcctl_fail(g, &ctx);
			goto out;
		}
		rc = set ? mdcctl_update(g, &in, "config") : mdcctl_update_destructive(g, &in, "config");
	} else {
		rc = mdcctl_usage(g, "usage: mdcctl config show|get KEY|set KEY=VALUE...|unset KEY...");
	}
out:
	json_object_put(cl);
	mdc_intent_free(&in);
	return rc;
}

/* ---- partition -------------------------------------------------------- */

static const json_object *part_default_ctx;	/* the slurm_spec while printing */

static void part_text_one(const json_object *p)
{
	struct mdc_buf b = MDC_BUF_INIT;
	json_object *ids = mdc_json_get_arr(p, "node_pool_ids");
	const char *id = mdc_json_get_str(p, "id", "?");

	for (size_t i = 0; ids && i < json_object_array_length(ids); i++) {
		mdc_buf_adds(&b, i ? "," : "");
		mdc_buf_adds(&b, json_object_get_string(json_object_array_get_idx(ids, i)));
	}
	printf("PartitionName=%s NodePools=%s Default=%s", id, mdc_buf_str(&b),
	       mdc_streq(mdc_json_get_str(part_default_ctx, "default_partition_id", NULL), id) ? "YES" : "NO");
	if (mdc_json_get_obj(p, "config")) {
		json_object_object_foreach(mdc_json_get_obj(p, "config"), k, v)
			printf(" %s=%s", k, json_object_get_string(v));
	}
	putchar('\n');
	mdc_buf_free(&b);
}

static void part_text_list(const json_object *arr)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		part_text_one(json_object_array_get_idx(arr, i));
}

/* One `mdcctl partition SUB` call: ID and the arguments after it. */
struct part_call {
	struct mdcctl *g;
	const char *id;
	int argc;
	char **argv;
	const char *pools;	/* --node-pools A,B */
	char where[160];	/* "partition 'ID'" */
	struct mdc_intent in;
	struct mdc_ctx ctx;
};

/* How a subcommand ends: it printed (a read), or its intent is sent. */
enum part_send { PART_READ, PART_UPDATE, PART_REMOVE };

static int part_list(struct part_call *p)
{
	json_object *cl = NULL;
	int rc;

	if (!(rc = scope_read(p->g, &cl))) {
		part_default_ctx = scope_slurm(cl);
		scope_show(p->g, mdc_json_get_arr(scope_slurm(cl), "partitions"), json_type_array,
			   part_text_list);
	}
	json_object_put(cl);
	return rc;
}

static int part_show(struct part_call *p)
{
	json_object *cl = NULL, *part;
	int rc;

	if (!(rc = scope_read(p->g, &cl))) {
		part_default_ctx = scope_slurm(cl);
		if (!(part = scope_find(mdc_json_get_arr(scope_slurm(cl), "partitions"), "id", p->id)))
			rc = scope_not_found(p->g, "partition", p->id);
		else
			scope_show(p->g, part, json_type_object, part_text_one);
	}
	json_object_put(cl);
	return rc;
}

/* "A,B" into OP's list, each a valid node pool id. */
static int part_pools(struct part_call *p, struct mdc_op *op)
{
	int rc = 0;

	if (mdc_strv_split(&op->list, p->pools, ","))
		return mdc_nomem(&p->ctx);
	for (size_t i = 0; !rc && i < op->list.n; i++)
		rc = scope_check_id("node pool", op->list.v[i], &p->ctx);
	if (!rc && !op->list.n)
		rc = mdc_fail(&p->ctx, MDC_ERR_USAGE, "partition %s: --node-pools is empty", p->id);
	return rc;
}

static int part_create(struct part_call *p)
{
	struct mdc_op *op;
	int rc = 0;

	if (!p->pools)
		return mdc_fail(&p->ctx, MDC_ERR_USAGE, "partition create %s: give --node-pools A,B", p->id);
	/* the settings are checked one by one, then go with the create */
	for (int i = 0; !rc && i < p->argc; i++) {
		char *key = NULL;
		const char *val;

		if (!(rc = mdcctl_split_kv(p->argv[i], &key, &val, &p->ctx)) &&
		    (rc = mdcctl_check_kv(key, val, SC_SCOPE_PARTITION, p->where, &p->ctx)) == MDC_ERR_INVAL)
			scope_other_hint(key, val, SC_SCOPE_PARTITION, &p->ctx);
		free(key);
	}
	if (rc)
		return rc;
	if (!(op = mdc_intent_add(&p->in, MDC_OP_PART_CREATE, p->id, NULL, NULL)))
		return mdc_nomem(&p->ctx);
	for (int i = 0; i < p->argc; i++)
		if (mdc_strv_push(&op->kv, p->argv[i]))
			return mdc_nomem(&p->ctx);
	return part_pools(p, op);
}

/* --node-pools A,B replaces the partition's pools; K=V set its config. */
static int part_update(struct part_call *p)
{
	struct mdc_op *op;

	if (!p->argc && !p->pools)
		return mdc_fail(&p->ctx, MDC_ERR_USAGE, "partition update %s: give KEY=VALUE... or "
				"--node-pools A,B", p->id);
	if (p->pools) {
		int rc;

		if (!(op = mdc_intent_add(&p->in, MDC_OP_PART_POOLS, p->id, NULL, NULL)))
			return mdc_nomem(&p->ctx);
		if ((rc = part_pools(p, op)))
			return rc;
	}
	return p->argc ? scope_kv_ops(&p->in, MDC_OP_PART_SET, p->id, p->argc, p->argv,
				      SC_SCOPE_PARTITION, p->where, true, &p->ctx) : 0;
}

static int part_unset(struct part_call *p)
{
	return scope_kv_ops(&p->in, MDC_OP_PART_UNSET, p->id, p->argc, p->argv, SC_SCOPE_PARTITION,
			    p->where, false, &p->ctx);
}

/* delete and default: the op alone */
static int part_op(struct part_call *p, enum mdc_op_kind kind)
{
	return mdc_intent_add(&p->in, kind, p->id, NULL, NULL) ? 0 : mdc_nomem(&p->ctx);
}

static int part_delete(struct part_call *p)
{
	return part_op(p, MDC_OP_PART_DELETE);
}

static int part_default(struct part_call *p)
{
	return part_op(p, MDC_OP_PART_DEFAULT);
}

static const struct part_sub {
	const char *name;
	bool id;		/* takes a partition ID first */
	int min, max;		/* arguments after the ID; -1: any number */
	bool pools;		/* takes --node-pools */
	enum part_send send;
	int (*fn)(struct part_call *p);	/* reads: an exit status; else an mdc_err */
} part_subs[] = {
	{ "create", true, 0, -1, true, PART_UPDATE, part_create },
	{ "default", true, 0, 0, false, PART_UPDATE, part_default },
	{ "delete", true, 0, 0, false, PART_REMOVE, part_delete },
	{ "list", false, 0, 0, false, PART_READ, part_list },
	{ "show", true, 0, 0, false, PART_READ, part_show },
	{ "unset", true, 1, -1, false, PART_REMOVE, part_unset },
	{ "update", true, 0, -1, true, PART_UPDATE, part_update },
};

int cmd_partition(struct mdcctl *g, int argc, char **argv)
{
	enum { O_POOLS = 256 };
	static const struct option opts[] = {
		{ "node-pools", required_argument, NULL, O_POOLS }, { NULL, 0, NULL, 0 },
	};
	struct part_call p = { .g = g, .in = MDC_INTENT_INIT };
	const struct part_sub *sub = NULL;
	int rc = 0, opt, nargs;

	mdc_ctx_clear(&p.ctx);
	while ((opt = mdcctl_getopt(g, argc, argv, "", opts, &rc)) != -1 && opt != '?')
		p.pools = optarg;
	if (rc)
		return rc;
	for (size_t i = 0; optind < argc && i < sizeof(part_subs) / sizeof(part_subs[0]); i++)
		if (!strcmp(argv[optind], part_subs[i].name))
			sub = &part_subs[i];
	nargs = argc - optind - 1 - (sub && sub->id);
	if (!sub || nargs < sub->min || (sub->max >= 0 && nargs > sub->max) ||
	    (p.pools && !sub->pools))
		return mdcctl_usage(g, "usage: mdcctl partition list|show ID|create ID --node-pools A,B "
				    "[KEY=VALUE...]|update ID [--node-pools A,B] KEY=VALUE...|unset ID "
				    "KEY...|delete ID|default ID");
	if (sub->id) {
		p.id = argv[optind + 1];
		if ((rc = scope_check_id("partition", p.id, &p.ctx)))
			goto fail;
		snprintf(p.where, sizeof(p.where), "partition '%s'", p.id);
	}
	p.argc = nargs;
	p.argv = argv + argc - nargs;
	if (sub->send == PART_READ) {
		rc = sub->fn(&p);
		goto out;
	}
	if ((rc = sub->fn(&p)))
		goto fail;
	rc = sub->send == PART_REMOVE ? mdcctl_update_destructive(g, &p.in, p.where) :
	     mdcctl_update(g, &p.in, p.where);
	goto out;
fail:
	rc = mdcctl_fail(g, &p.ctx);
out:
	mdc_intent_free(&p.in);
	return rc;
}

/* ---- nodeset ---------------------------------------------------------- */

int cmd_nodeset(struct mdcctl *g, int argc, char **argv)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	json_object *cl = NULL, *ns;
	struct mdc_ctx ctx;
	const char *sub, *pool;
	char where[160];
	int rc;

	if ((rc = mdcctl_operands(g, &argc, &argv)))
		return rc;
	sub = argc > 1 ? argv[1] : "";
	pool = argc > 2 ? argv[2] : NULL;

	mdc_ctx_clear(&ctx);
	if (!pool || (!strcmp(sub, "show") && argc != 3) ||
	    (strcmp(sub, "show") && strcmp(sub, "set") && strcmp(sub, "unset")) ||
	    (strcmp(sub, "show") && argc < 4)) {
		rc = mdcctl_usage(g, "usage: mdcctl nodeset show POOL|set POOL KEY=VALUE...|unset POOL KEY...");
		goto out;
	}
	if ((rc = scope_check_id("node pool", pool, &ctx)))
		goto fail;
	snprintf(where, sizeof(where), "nodeset '%s'", pool);
	if (!strcmp(sub, "show")) {
		if ((rc = scope_read(g, &cl)))
			goto out;
		if (!scope_find(mdc_json_get_arr(cl, "node_pools"), "id", pool)) {
			rc = scope_not_found(g, "node pool", pool);
			goto out;
		}
		ns = scope_find(mdc_json_get_arr(scope_slurm(cl), "node_sets"), "node_pool_id", pool);
		scope_show(g, mdc_json_get_obj(ns, "config"), json_type_object, config_text);
		goto out;
	}
	if ((rc = scope_kv_ops(&in, !strcmp(sub, "set") ? MDC_OP_NODESET_SET : MDC_OP_NODESET_UNSET,
			       pool, argc - 3, argv + 3, SC_SCOPE_NODE, where, !strcmp(sub, "set"), &ctx)))
		goto fail;
	rc = !strcmp(sub, "unset") ? mdcctl_update_destructive(g, &in, where) : mdcctl_update(g, &in, where);
	goto out;
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	json_object_put(cl);
	mdc_intent_free(&in);
	return rc;
}

/* ---- nodepool --------------------------------------------------------- */

static void pool_text_one(const json_object *p)
{
	json_object *sc = mdc_json_get_obj(p, "scaling_spec");
	const char *img = mdc_json_get_str(p, "node_image", "");
	struct mdc_buf prov = MDC_BUF_INIT;

	/* how the pool gets machines, when it says (a column only then) */
	mdcctl_pool_provisioning(&prov, p);
	printf("%s\t%s\tmin=%lld\tmax=%lld\timage=%s%s%s\n", mdc_json_get_str(p, "id", "?"),
	       mdc_json_get_str(mdc_json_get_obj(p, "machine_spec"), "machine_type", "?"),
	       (long long) mdc_json_get_int(sc, "min_node_count", 0),
	       (long long) mdc_json_get_int(sc, "max_node_count", 0), *img ? img : "-",
	       prov.len ? "\tprovisioning=" : "", mdc_buf_str(&prov));
	mdc_buf_free(&prov);
}

static void pool_text_list(const json_object *arr)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		pool_text_one(json_object_array_get_idx(arr, i));
}

static int pool_count(const char *s, int64_t *out, struct mdc_ctx *ctx)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < 0 || v > 100000)
		return mdc_fail(ctx, MDC_ERR_USAGE, "node count '%s': give a whole number, 0 or more", s);
	*out = v;
	return 0;
}

int cmd_nodepool(struct mdcctl *g, int argc, char **argv)
{
	enum { O_MIN = 256, O_MAX, O_PIN, O_UNPIN };
	static const struct option opts[] = {
		{ "min", required_argument, NULL, O_MIN }, { "max", required_argument, NULL, O_MAX },
		{ "pin", required_argument, NULL, O_PIN }, { "unpin", no_argument, NULL, O_UNPIN },
		{ NULL, 0, NULL, 0 },
	};
	struct mdc_intent in = MDC_INTENT_INIT;
	json_object *cl = NULL, *p;
	struct mdc_op *op;
	struct mdc_ctx ctx;
	const char *sub, *id, *pin = NULL, *min_arg = NULL, *max_arg = NULL;
	bool unpin = false;
	int64_t min = -1, max = -1;
	char where[160];
	int rc = 0, opt, nargs;

	mdc_ctx_clear(&ctx);
	while ((opt = mdcctl_getopt(g, argc, argv, "", opts, &rc)) != -1 && opt != '?') {
		switch (opt) {
		case O_MIN: min_arg = optarg; break;
		case O_MAX: max_arg = optarg; break;
		case O_PIN: pin = optarg; break;
		case O_UNPIN: unpin = true; break;
		}
	}
	if (rc)
		return rc;
	nargs = argc - optind;
	sub = nargs > 0 ? argv[optind] : "";
	id = nargs > 1 ? argv[optind + 1] : NULL;
	/* each form and only its own options */
	if (!strcmp(sub, "list") && nargs == 1 && !min_arg && !max_arg && !pin && !unpin) {
		if (!(rc = scope_read(g, &cl)))
			scope_show(g, mdc_json_get_arr(cl, "node_pools"), json_type_array, pool_text_list);
		goto out;
	}
	if (nargs != 2 ||
	    (!strcmp(sub, "show") && (min_arg || max_arg || pin || unpin)) ||
	    (!strcmp(sub, "scale") && ((!min_arg && !max_arg) || pin || unpin)) ||
	    (!strcmp(sub, "image") && (min_arg || max_arg || !pin == !unpin)) ||
	    (strcmp(sub, "show") && strcmp(sub, "scale") && strcmp(sub, "image")))
		goto usage;
	if ((rc = scope_check_id("node pool", id, &ctx)))
		goto fail;
	snprintf(where, sizeof(where), "node pool '%s'", id);
	if (!strcmp(sub, "show")) {
		if ((rc = scope_read(g, &cl)))
			goto out;
		if (!(p = scope_find(mdc_json_get_arr(cl, "node_pools"), "id", id)))
			rc = scope_not_found(g, "node pool", id);
		else
			scope_show(g, p, json_type_object, pool_text_one);
		goto out;
	} else if (!strcmp(sub, "scale")) {
		/* one count alone keeps the other (-1: as the spec has it) */
		if ((min_arg && (rc = pool_count(min_arg, &min, &ctx))) ||
		    (max_arg && (rc = pool_count(max_arg, &max, &ctx))))
			goto fail;
		if (min_arg && max_arg && min > max) {
			mdc_fail(&ctx, MDC_ERR_INVAL, "%s: --min %lld is above --max %lld", where,
				 (long long) min, (long long) max);
			goto fail;
		}
		if (!(op = mdc_intent_add(&in, MDC_OP_POOL_SCALE, id, NULL, NULL)))
			goto nomem;
		op->min = min;
		op->max = max;
	} else if (pin) {
		if (!*pin || mdc_has_ctrl(pin) || strchr(pin, ' ')) {
			mdc_fail(&ctx, MDC_ERR_INVAL, "%s: image '%s': give an image name", where, pin);
			goto fail;
		}
		if (!mdc_intent_add(&in, MDC_OP_POOL_IMAGE, id, NULL, pin))
			goto nomem;
	} else if (!mdc_intent_add(&in, MDC_OP_POOL_IMAGE, id, NULL, NULL)) {
		goto nomem;
	}
	rc = mdcctl_update(g, &in, where);
	goto out;
usage:
	rc = mdcctl_usage(g, "usage: mdcctl nodepool list|show ID|scale ID [--min N] [--max M]|"
			  "image ID --pin IMAGE|image ID --unpin");
	goto out;
nomem:
	mdc_nomem(&ctx);
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	json_object_put(cl);
	mdc_intent_free(&in);
	return rc;
}

/* ---- prolog / epilog -------------------------------------------------- */

/* `bash -n` on TEXT, the bytes that are sent (read once: no file that
 * changes between the check and the send): a script with a syntax error
 * is never sent; the message carries bash's first complaint. */
static int script_check(const char *path, const char *text, struct mdc_ctx *ctx)
{
	char *argv[] = { "bash", "-n", NULL };
	struct mdc_run_opts o = { .in = text, .inlen = strlen(text), .out_cap = 4096,
				  .timeout_s = 30, .search_path = true, .null_stdio = true };
	struct mdc_run_result r;
	struct mdc_buf err = MDC_BUF_INIT;
	struct mdc_ctx lctx;
	int rc = 0;

	mdc_ctx_clear(&lctx);
	if (mdc_run(argv, &o, NULL, &err, &r, &lctx) || r.timed_out || r.status == 127 ||
	    r.status > 128) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "%s: cannot run 'bash -n' to check it%s%s", path,
			      lctx.err ? ": " : "", lctx.err ? lctx.msg : "");
	} else if (r.status != 0) {
		char *nl = err.s ? strchr(err.s, '\n') : NULL;

		if (nl)
			*nl = '\0';
		/* bash names its stdin "bash: line N": the file is PATH */
		rc = mdc_fail(ctx, MDC_ERR_INVAL, "%s: bash syntax error, nothing sent: %s", path,
			      err.s ? (mdc_startswith(err.s, "bash: ") ? err.s + 6 : err.s) :
			      "bash -n failed");
	}
	mdc_buf_free(&err);
	return rc;
}

static int script_read(const char *path, char **text, struct mdc_ctx *ctx)
{
	int rc;

	*text = NULL;
	if ((rc = mdc_read_file(path, text, NULL, ctx)))
		return rc;
	if (!**text)
		rc = mdc_fail(ctx, MDC_ERR_INVAL, "%s: empty script", path);
	else
		rc = script_check(path, *text, ctx);
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

static void script_text(const json_object *arr)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		const char *t = json_object_get_string(json_object_array_get_idx(arr, i));
		size_t n = strlen(t);

		printf("--- [%zu]\n%s%s", i, t, n && t[n - 1] == '\n' ? "" : "\n");
	}
}

static int cmd_script(struct mdcctl *g, int argc, char **argv, bool prolog)
{
	const char *field = prolog ? "prolog_bash_scripts" : "epilog_bash_scripts";
	const char *name = prolog ? "prolog" : "epilog";
	struct mdc_intent in = MDC_INTENT_INIT;
	json_object *cl = NULL;
	struct mdc_op *op;
	struct mdc_ctx ctx;
	const char *sub;
	char *text = NULL;
	int rc = 0;

	if ((rc = mdcctl_operands(g, &argc, &argv)))
		return rc;
	sub = argc > 1 ? argv[1] : "";

	mdc_ctx_clear(&ctx);
	if (!strcmp(sub, "list") && argc == 2) {
		if (!(rc = scope_read(g, &cl)))
			scope_show(g, mdc_json_get_arr(scope_slurm(cl), field), json_type_array, script_text);
		goto out;
	} else if (!strcmp(sub, "add") && argc == 3) {
		if ((rc = script_read(argv[2], &text, &ctx)))
			goto fail;
		if (!(op = mdc_intent_add(&in, prolog ? MDC_OP_PROLOG_ADD : MDC_OP_EPILOG_ADD,
					  NULL, NULL, text)))
			goto nomem;
	} else if (!strcmp(sub, "remove") && argc == 3) {
		char *end;
		long idx;

		errno = 0;
		idx = strtol(argv[2], &end, 10);
		if (!*argv[2] || *end || errno || idx < 0) {
			mdc_fail(&ctx, MDC_ERR_USAGE, "%s remove '%s': give the script's index from "
				 "'mdcctl %s list' (0, 1, ...)", name, argv[2], name);
			goto fail;
		}
		if (!(op = mdc_intent_add(&in, prolog ? MDC_OP_PROLOG_REMOVE : MDC_OP_EPILOG_REMOVE,
					  NULL, NULL, NULL)))
			goto nomem;
		op->index = idx;
	} else if (!strcmp(sub, "replace") && argc >= 3) {
		if (!(op = mdc_intent_add(&in, prolog ? MDC_OP_PROLOG_REPLACE : MDC_OP_EPILOG_REPLACE,
					  NULL, NULL, NULL)))
			goto nomem;
		for (int i = 2; i < argc; i++) {
			if ((rc = script_read(argv[i], &text, &ctx)))
				goto fail;
			if (mdc_strv_push(&op->list, text))
				goto nomem;
			free(text);
			text = NULL;
		}
	} else {
		rc = mdcctl_usage(g, "usage: mdcctl %s list|add FILE|remove INDEX|replace FILE...", name);
		goto out;
	}
	rc = mdcctl_update(g, &in, name);
	goto out;
nomem:
	mdc_nomem(&ctx);
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	free(text);
	json_object_put(cl);
	mdc_intent_free(&in);
	return rc;
}

int cmd_prolog(struct mdcctl *g, int argc, char **argv)
{
	return cmd_script(g, argc, argv, true);
}

int cmd_epilog(struct mdcctl *g, int argc, char **argv)
{
	return cmd_script(g, argc, argv, false);
}

/* ---- labels ----------------------------------------------------------- */

int cmd_labels(struct mdcctl *g, int argc, char **argv)
{
	struct mdc_intent in = MDC_INTENT_INIT;
	json_object *cl = NULL;
	struct mdc_ctx ctx;
	const char *sub;
	int rc;

	if ((rc = mdcctl_operands(g, &argc, &argv)))
		return rc;
	sub = argc > 1 ? argv[1] : "";

	mdc_ctx_clear(&ctx);
	if (!strcmp(sub, "list") && argc == 2) {
		if (!(rc = scope_read(g, &cl)))
			scope_show(g, mdc_json_get_obj(cl, "labels"), json_type_object, config_text);
	} else if ((!strcmp(sub, "set") || !strcmp(sub, "unset")) && argc >= 3) {
		bool set = !strcmp(sub, "set");

		if ((rc = scope_kv_ops(&in, set ? MDC_OP_LABEL_SET : MDC_OP_LABEL_UNSET, NULL,
				       argc - 2, argv + 2, 0, "labels", set, &ctx)))
			rc = mdcctl_fail(g, &ctx);
		else
			rc = mdcctl_update(g, &in, "labels");
	} else {
		rc = mdcctl_usage(g, "usage: mdcctl labels list|set KEY=VALUE...|unset KEY...");
	}
	json_object_put(cl);
	mdc_intent_free(&in);
	return rc;
}
