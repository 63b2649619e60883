/* cmd_cluster.c - whole-cluster commands: describe, list, create, delete,
 * update (raw PATCH, still validated), operations.  (owner: client) */
#define _GNU_SOURCE	/* asprintf */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_lro.h"
#include "mdc_proc.h"
#include "mdc_rules.h"
#include "mdc_schema.h"
#include "mdc_str.h"
#include "mdc_update.h"
#include "mdcctl.h"

/* "a, b" from the string array ARR (or FIELD of each object in it). */
static void cluster_join(struct mdc_buf *b, const json_object *arr, const char *field)
{
	size_t n = json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		mdc_buf_adds(b, i ? "," : "");
		mdc_buf_adds(b, field ? mdc_json_get_str(e, field, "?") : json_object_get_string(e));
	}
}

static void cluster_print_map(const char *indent, const json_object *map)
{
	if (!json_object_is_type(map, json_type_object))
		return;
	json_object_object_foreach((json_object *) map, k, v)
		printf("%s%s=%s\n", indent, k, json_object_get_string(v));
}

/* "MODEL[, reservation TYPE VALUES][, at most DURATION]": how POOL gets its
 * machines (published node pool fields); "" when it sets none. */
void mdcctl_pool_provisioning(struct mdc_buf *b, const json_object *pool)
{
	json_object *ra = mdc_json_get_obj(mdc_json_get_obj(pool, "machine_spec"), "reservation_affinity");
	const char *model = mdc_json_get_str(pool, "provisioning_model", NULL);
	const char *flex = mdc_json_get_str(pool, "flex_start_max_duration", NULL);

	mdc_buf_reset(b);
	if (!model && !ra && !flex)
		return;
	mdc_buf_adds(b, model ? model : "(default)");
	if (ra) {
		mdc_buf_addf(b, ", reservation %s",
			     mdc_json_get_str(ra, "reservation_affinity_type", "?"));
		if (json_object_array_length(mdc_json_get_arr(ra, "values"))) {
			mdc_buf_adds(b, " ");
			cluster_join(b, mdc_json_get_arr(ra, "values"), NULL);
		}
	}
	if (flex)
		mdc_buf_addf(b, ", at most %s", flex);
}

static int cluster_strcmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* "N STATE, M STATE" of POOL's nodes in clusterStatus.nodesStatus, states
 * in name order; "" when the status lists none of them. */
static void cluster_pool_nodes(struct mdc_buf *b, const json_object *nodes, const char *pool)
{
	size_t n = json_object_is_type(nodes, json_type_array) ? json_object_array_length(nodes) : 0, k = 0;
	const char **st = n ? calloc(n, sizeof(*st)) : NULL;

	mdc_buf_reset(b);
	for (size_t i = 0; st && i < n; i++) {
		json_object *e = json_object_array_get_idx(nodes, i);

		if (mdc_streq(mdc_json_get_str(e, "node_pool_id", NULL), pool))
			st[k++] = mdc_json_get_str(e, "node_state", "?");
	}
	if (k)
		qsort(st, k, sizeof(*st), cluster_strcmp);
	for (size_t i = 0, j; i < k; i = j) {
		for (j = i; j < k && !strcmp(st[j], st[i]); j++)
			;
		mdc_buf_addf(b, "%s%zu %s", i ? ", " : "", j - i, st[i]);
	}
	free(st);
}

/* One line per node of POOL in clusterStatus.nodesStatus, with the
 * published node fields that are set (instance id, physical host, times,
 * detail). */
static void cluster_pool_node_lines(const json_object *nodes, const char *pool)
{
	size_t n = json_object_is_type(nodes, json_type_array) ? json_object_array_length(nodes) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(nodes, i);
		json_object *ph = mdc_json_get_obj(e, "physical_host");
		const char *v;

		if (!mdc_streq(mdc_json_get_str(e, "node_pool_id", NULL), pool))
			continue;
		printf("  node %s: %s", mdc_json_get_str(e, "instance_name", "?"),
		       mdc_json_get_str(e, "node_state", "?"));
		if ((v = mdc_json_get_str(e, "detail", NULL)) && *v)
			printf(" (%s)", v);
		if ((v = mdc_json_get_str(e, "instance_id", NULL)))
			printf(", instance %s", v);
		if (ph)
			printf(", host %s/%s/%s/%s", mdc_json_get_str(ph, "cluster_name", "-"),
			       mdc_json_get_str(ph, "block_id", "-"), mdc_json_get_str(ph, "subblock_id", "-"),
			       mdc_json_get_str(ph, "host_id", "-"));
		if ((v = mdc_json_get_str(e, "create_time", NULL)))
			printf(", created %s", v);
		if ((v = mdc_json_get_str(e, "last_update_time", NULL)))
			printf(", updated %s", v);
		printf("\n");
	}
}

/* The text form of describe: what an admin looks at first. */
static void cluster_print_text(const json_object *cl)
{
	json_object *slurm = mdc_json_get_path(cl, "orchestrator_spec.slurm_spec");
	json_object *pools = mdc_json_get_arr(cl, "node_pools");
	json_object *parts = mdc_json_get_arr(slurm, "partitions");
	struct mdc_buf b = MDC_BUF_INIT;

	printf("name:              %s\n", mdc_json_get_str(cl, "name", "?"));
	json_object *status = mdc_json_get_obj(cl, "cluster_status");
	json_object *err = mdc_json_get_obj(status, "error");

	printf("state:             %s\n", mdc_cluster_state(cl, "?"));
	if (err)
		printf("status error:      %s (code %lld)\n", mdc_json_get_str(err, "message", "?"),
		       (long long) mdc_json_get_int(err, "code", 0));
	if (*mdc_json_get_str(status, "detail", ""))
		printf("status detail:     %s\n", mdc_json_get_str(status, "detail", ""));
	if (mdc_json_get_str(cl, "display_name", NULL))
		printf("display name:      %s\n", mdc_json_get_str(cl, "display_name", ""));
	printf("default partition: %s\n", mdc_json_get_str(slurm, "default_partition_id", "-"));
	printf("login node pool:   %s\n", mdc_json_get_str(slurm, "login_node_pool_id", "-"));
	for (size_t i = 0; pools && i < json_object_array_length(pools); i++) {
		json_object *p = json_object_array_get_idx(pools, i);
		json_object *sc = mdc_json_get_obj(p, "scaling_spec");
		const char *img = mdc_json_get_str(p, "node_image", "");

		printf("node pool %s: %s, %lld..%lld nodes, image %s\n", mdc_json_get_str(p, "id", "?"),
		       mdc_json_get_str(mdc_json_get_obj(p, "machine_spec"), "machine_type", "?"),
		       (long long) mdc_json_get_int(sc, "min_node_count", 0),
		       (long long) mdc_json_get_int(sc, "max_node_count", 0),
		       *img ? img : "(not pinned)");
		mdcctl_pool_provisioning(&b, p);
		if (b.len)
			printf("  provisioning: %s\n", mdc_buf_str(&b));
		cluster_pool_nodes(&b, mdc_json_get_arr(status, "nodes_status"), mdc_json_get_str(p, "id", ""));
		if (b.len)
			printf("  nodes: %s\n", mdc_buf_str(&b));
		cluster_pool_node_lines(mdc_json_get_arr(status, "nodes_status"),
					mdc_json_get_str(p, "id", ""));
	}
	for (size_t i = 0; parts && i < json_object_array_length(parts); i++) {
		json_object *p = json_object_array_get_idx(parts, i);

		mdc_buf_reset(&b);
		cluster_join(&b, mdc_json_get_arr(p, "node_pool_ids"), NULL);
		printf("partition %s: node pools %s\n", mdc_json_get_str(p, "id", "?"), mdc_buf_str(&b));
		cluster_print_map("  ", mdc_json_get_obj(p, "config"));
	}
	if (mdc_json_get_obj(slurm, "config")) {
		printf("config:\n");
		cluster_print_map("  ", mdc_json_get_obj(slurm, "config"));
	}
	if (mdc_json_get_obj(cl, "labels")) {
		printf("labels:\n");
		cluster_print_map("  ", mdc_json_get_obj(cl, "labels"));
	}
	mdc_buf_free(&b);
}

int cmd_describe(struct mdcctl *g, int argc, char **argv)
{
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	json_object *cl = NULL;
	struct mdc_ctx ctx;
	int rc;
	if ((rc = mdcctl_operands(g, &argc, &argv)))
		return rc;

	(void) argv;
	mdc_ctx_clear(&ctx);
	memset(&s, 0, sizeof(s));
	if (argc != 1) {
		rc = mdcctl_usage(g, "usage: mdcctl describe");
		goto out;
	}
	if ((rc = mdcctl_connect(g, true, &s, &c, &ctx)) || (rc = mdc_cluster_get(c, s.cluster, &cl, &ctx))) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	/* json, yaml, value(): the resource as the API (and gcloud) shows it */
	if (g->format == MDCCTL_JSON)
		mdcctl_print_resource(cl);
	else
		cluster_print_text(cl);
out:
	json_object_put(cl);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

int cmd_list(struct mdcctl *g, int argc, char **argv)
{
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	json_object *list = NULL;
	char *project = NULL, *region = NULL, *parent = NULL;
	struct mdc_ctx ctx;
	int rc;
	if ((rc = mdcctl_operands(g, &argc, &argv)))
		return rc;

	(void) argv;
	mdc_ctx_clear(&ctx);
	memset(&s, 0, sizeof(s));
	if (argc != 1) {
		rc = mdcctl_usage(g, "usage: mdcctl list");
		goto out;
	}
	if ((rc = mdcctl_connect(g, false, &s, &c, &ctx)))
		goto fail;
	if (s.cluster && (rc = mdc_cluster_name_split(s.cluster, &project, &region, NULL, &ctx)))
		goto fail;
	if (!project && s.project && !(project = strdup(s.project)))
		goto nomem;
	if (!region && s.region && !(region = strdup(s.region)))
		goto nomem;
	if (!project || !region) {
		rc = mdcctl_usage(g, "list needs --project and --region (or --cluster NAME)");
		goto out;
	}
	if (asprintf(&parent, "projects/%s/locations/%s", project, region) < 0) {
		parent = NULL;
		goto nomem;
	}
	if ((rc = mdc_cluster_list(c, parent, &list, &ctx)))
		goto fail;
	if (g->format == MDCCTL_JSON) {
		mdcctl_print_resource(list);
	} else {
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			json_object *cl = json_object_array_get_idx(list, i);

			printf("%s\t%s\n", mdc_json_get_str(cl, "name", "?"),
			       mdc_cluster_state(cl, "?"));
		}
	}
	goto out;
nomem:
	mdc_nomem(&ctx);
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	free(project);
	free(region);
	free(parent);
	json_object_put(list);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

/* Read a JSON object from PATH ("-" = stdin) in snake_case. */
static int cluster_read_json(const char *path, json_object **out, struct mdc_ctx *ctx)
{
	json_object *raw = NULL;
	int rc;

	*out = NULL;
	if (!strcmp(path, "-"))
		path = "/dev/stdin";
	if ((rc = mdc_json_parse_file(path, &raw, ctx)))
		return rc;
	if (!json_object_is_type(raw, json_type_object)) {
		json_object_put(raw);
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s: expected a JSON object (a ModelDevelopmentCluster)",
				path);
	}
	*out = mdc_json_normalize(raw, MDC_CASE_SNAKE);
	json_object_put(raw);
	return *out ? 0 : mdc_nomem(ctx);
}

/* A step of a create that walks profiles: one line each, on stderr (stdout
 * keeps the result). */
static void cluster_note(const char *line, void *arg)
{
	fprintf(stderr, "%s: %s\n", ((struct mdcctl *) arg)->progname, line);
}

/* create FILE | --config FILE (--from-file FILE) [--fallback-profiles F2,F3,...]:
 * FILE is the REST body of the create page (camelCase or snake_case); each
 * fallback profile is another such file, tried in turn when the one
 * before failed.  Every file is read and checked before the first request. */
int cmd_create(struct mdcctl *g, int argc, char **argv)
{
	enum { O_CONFIG = 256, O_FALLBACK };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, O_CONFIG },
		{ "from-file", required_argument, NULL, O_CONFIG },
		{ "fallback-profiles", required_argument, NULL, O_FALLBACK },
		{ NULL, 0, NULL, 0 },
	};
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_strv files = MDC_STRV_INIT, fallback = MDC_STRV_INIT;
	struct mdc_create_profile *prof = NULL;
	json_object **bodies = NULL, *op = NULL;
	char *project = NULL, *region = NULL, *id = NULL, *parent = NULL;
	const char *config = NULL;
	struct mdc_ctx ctx;
	int rc = 0, opt;

	mdc_ctx_clear(&ctx);
	memset(&s, 0, sizeof(s));
	while ((opt = mdcctl_getopt(g, argc, argv, "", opts, &rc)) != -1 && opt != '?') {
		if (opt == O_CONFIG)
			config = optarg;
		else if (mdc_strv_split(&fallback, optarg, ",")) {
			rc = mdcctl_nomem(g);
			goto out;
		}
	}
	if (rc)
		goto out;
	if (!config && optind < argc)
		config = argv[optind++];
	if (optind < argc) {
		rc = mdcctl_usage(g, "create: unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!config) {
		rc = mdcctl_usage(g, "usage: mdcctl --cluster NAME create FILE|--config FILE "
				  "[--fallback-profiles FILE2,FILE3...]");
		goto out;
	}
	if (mdc_strv_push(&files, config)) {
		rc = mdcctl_nomem(g);
		goto out;
	}
	for (size_t i = 0; i < fallback.n; i++) {
		if (!*fallback.v[i]) {
			rc = mdcctl_usage(g, "create: --fallback-profiles: an empty file name");
			goto out;
		}
		if (mdc_strv_push(&files, fallback.v[i])) {
			rc = mdcctl_nomem(g);
			goto out;
		}
	}
	if (files.n > 1 && g->async) {
		rc = mdcctl_usage(g, "create: --fallback-profiles waits for each create: not with --async");
		goto out;
	}
	if (!(bodies = calloc(files.n, sizeof(*bodies))) || !(prof = calloc(files.n, sizeof(*prof)))) {
		mdc_nomem(&ctx);
		goto fail;
	}
	/* everything is checked before the first request */
	if ((rc = mdcctl_settings(g, true, &s, &ctx)) ||
	    (rc = mdc_cluster_name_split(s.cluster, &project, &region, &id, &ctx)))
		goto fail;
	for (size_t i = 0; i < files.n; i++) {
		struct mdc_images images = { NULL };
		json_object *checked = NULL;

		if ((rc = cluster_read_json(files.v[i], &bodies[i], &ctx)))
			goto fail;
		/* the cluster id and the contract's rules, then the published
		 * schema (lib/mdc_schema.c): a field the service would refuse is
		 * refused here, named as it names it; output-only fields (a
		 * describe's JSON) are ignored, as it does */
		rc = mdc_rules_check_create(id, bodies[i], &images, &checked, &ctx);
		if (!rc)
			rc = mdc_schema_check_ex(bodies[i], NULL, MDC_SCHEMA_OUTPUT_IGNORED |
						 MDC_SCHEMA_CREATE, NULL, &ctx);
		json_object_put(checked);
		if (rc) {
			if (rc != MDC_ERR_NOMEM)
				ctx.err = MDC_ERR_REFUSED;
			mdc_ctx_prefix(&ctx, "%s", files.v[i]);
			goto fail;
		}
		prof[i].label = files.v[i];
		prof[i].body = bodies[i];
	}
	if (asprintf(&parent, "projects/%s/locations/%s", project, region) < 0) {
		parent = NULL;
		mdc_nomem(&ctx);
		goto fail;
	}
	if ((rc = mdcctl_client_new(&s, &c, &ctx)))
		goto fail;
	if (files.n == 1) {
		if ((rc = mdc_cluster_create(c, parent, id, bodies[0], &op, &ctx)))
			goto fail;
		rc = mdcctl_finish_op(g, c, op);
	} else {
		struct mdc_update_opts uo;
		size_t won = 0;

		if ((rc = mdcctl_update_opts(g, &uo, &ctx)) ||
		    (rc = mdc_create_walk(c, parent, id, s.cluster, prof, files.n, &uo.lro, cluster_note,
					  g, &won, &ctx)))
			goto fail;
		printf("created %s with profile %s (%zu of %zu)\n", s.cluster, files.v[won], won + 1,
		       files.n);
	}
	goto out;
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	for (size_t i = 0; bodies && i < files.n; i++)
		json_object_put(bodies[i]);
	free(bodies);
	free(prof);
	mdc_strv_free(&files);
	mdc_strv_free(&fallback);
	free(project);
	free(region);
	free(id);
	free(parent);
	json_object_put(op);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

int cmd_delete(struct mdcctl *g, int argc, char **argv)
{
	static const struct option opts[] = { { "yes", no_argument, NULL, 'y' }, { NULL, 0, NULL, 0 } };
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	json_object *op = NULL;
	struct mdc_ctx ctx;
	char q[1200];
	int rc = 0, opt;

	mdc_ctx_clear(&ctx);
	memset(&s, 0, sizeof(s));
	while ((opt = mdcctl_getopt(g, argc, argv, "y", opts, &rc)) != -1 && opt != '?')
		g->yes = true;
	if (rc)
		goto out;
	if (optind < argc) {
		rc = mdcctl_usage(g, "delete: unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if ((rc = mdcctl_settings(g, true, &s, &ctx)))
		goto fail;
	if (!g->yes && !isatty(STDIN_FILENO)) {
		mdc_fail(&ctx, MDC_ERR_REFUSED, "refusing to delete cluster '%s' without --yes "
			 "(stdin is not a terminal to ask on)", s.cluster);
		goto fail;
	}
	snprintf(q, sizeof(q), "Delete cluster '%s' and all its nodes?", s.cluster);
	if (!mdcctl_confirm(g, q)) {
		mdc_fail(&ctx, MDC_ERR_REFUSED, "cancelled: nothing was sent");
		goto fail;
	}
	if ((rc = mdcctl_client_new(&s, &c, &ctx)) || (rc = mdc_cluster_delete(c, s.cluster, &op, &ctx)))
		goto fail;
	rc = mdcctl_finish_op(g, c, op);
	goto out;
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	json_object_put(op);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

/* update FILE --update-mask PATHS: a raw PATCH, but the safe write of
 * every other command (mdc_update_run: the lock, a fresh read, the wait
 * while the cluster is CREATING or UPDATING, the service's rules on that
 * state, the check that nobody changed it meanwhile, the wait for the
 * operation with --timeout and Ctrl-C, the read-back).  The masked paths
 * take the file's values; a masked path the file lacks is cleared (C2). */
int cmd_update(struct mdcctl *g, int argc, char **argv)
{
	enum { O_MASK = 256, O_DISPLAY_NAME };
	static const struct option opts[] = {
		{ "update-mask", required_argument, NULL, O_MASK },
		{ "display-name", required_argument, NULL, O_DISPLAY_NAME }, { NULL, 0, NULL, 0 },
	};
	const char *display_name = NULL;
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_strv mask = MDC_STRV_INIT;
	json_object *body = NULL;
	const char *file = NULL, *mask_arg = NULL;
	struct mdc_op *op;
	struct mdc_ctx ctx;
	int rc = 0, opt;

	mdc_ctx_clear(&ctx);
	while ((opt = mdcctl_getopt(g, argc, argv, "", opts, &rc)) != -1 && opt != '?') {
		if (opt == O_MASK)
			mask_arg = optarg;
		else
			display_name = optarg;
	}
	if (rc)
		goto out;
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		rc = mdcctl_usage(g, "update: unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (display_name && (file || mask_arg)) {
		rc = mdcctl_usage(g, "update: --display-name is a change of its own: not with FILE "
				  "or --update-mask");
		goto out;
	}
	/* --display-name NAME: the published resource lets it change alone */
	if (display_name) {
		if (!(body = json_object_new_object()) ||
		    mdc_json_set(body, "display_name", json_object_new_string(display_name))) {
			mdc_nomem(&ctx);
			goto fail;
		}
		file = "--display-name";
		mask_arg = "display_name";
	}
	if (!file || !mask_arg) {
		rc = mdcctl_usage(g, "update needs FILE and --update-mask PATHS (a PATCH without a mask "
				  "clears everything the file omits; use plan/apply for that)");
		goto out;
	}
	if (!body && (rc = cluster_read_json(file, &body, &ctx)))
		goto fail;
	if ((rc = mdc_rules_parse_mask(mask_arg, &mask, &ctx))) {
		ctx.err = MDC_ERR_REFUSED;
		goto fail;
	}
	if (!(op = mdc_intent_add(&in, MDC_OP_RAW_PATCH, NULL, NULL,
				  json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN))) ||
	    !(op->where = strdup(file))) {
		mdc_nomem(&ctx);
		goto fail;
	}
	op->list = mask;
	memset(&mask, 0, sizeof(mask));
	rc = mdcctl_update(g, &in, "update");
	goto out;
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	mdc_strv_free(&mask);
	json_object_put(body);
	mdc_intent_free(&in);
	return rc;
}

/* NAME as the API wants it: projects/P/locations/R/operations/ID as
 * --async prints it, or the ID alone (gcloud's habit), completed with the
 * cluster's project and region. */
static int operation_name(const struct mdc_settings *s, const char *name, char **out,
			  struct mdc_ctx *ctx)
{
	char *project = NULL, *region = NULL;
	int rc;

	*out = NULL;
	if (!strncmp(name, "projects/", 9))
		return (*out = strdup(name)) ? 0 : mdc_nomem(ctx);
	if (strchr(name, '/') || !*name)
		return mdc_fail(ctx, MDC_ERR_USAGE, "operations: '%s' is not an operation: give its "
				"name (projects/P/locations/R/operations/ID, as --async prints it) "
				"or its ID", name);
	if (!s->cluster)
		return mdc_fail(ctx, MDC_ERR_USAGE, "operations: the ID '%s' alone needs a cluster "
				"(--cluster, MDC_CLUSTER) for its project and region; or give the "
				"whole name", name);
	if (!(rc = mdc_cluster_name_split(s->cluster, &project, &region, NULL, ctx)) &&
	    asprintf(out, "projects/%s/locations/%s/operations/%s", project, region, name) < 0) {
		*out = NULL;
		rc = mdc_nomem(ctx);
	}
	free(project);
	free(region);
	return rc;
}

int cmd_operations(struct mdcctl *g, int argc, char **argv)
{
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_update_opts uo;
	json_object *op = NULL;
	struct mdc_ctx ctx;
	char *name = NULL;
	bool wait;
	int rc;
	if ((rc = mdcctl_operands(g, &argc, &argv)))
		return rc;

	mdc_ctx_clear(&ctx);
	memset(&s, 0, sizeof(s));
	if (argc != 3 || (strcmp(argv[1], "describe") && strcmp(argv[1], "wait"))) {
		rc = mdcctl_usage(g, "usage: mdcctl operations describe|wait NAME|ID");
		goto out;
	}
	wait = !strcmp(argv[1], "wait");
	if ((rc = mdcctl_connect(g, false, &s, &c, &ctx)) || (rc = mdcctl_update_opts(g, &uo, &ctx)) ||
	    (rc = operation_name(&s, argv[2], &name, &ctx)))
		goto fail;
	rc = wait ? mdc_lro_wait(c, name, &uo.lro, &op, &ctx)
		  : mdc_operation_get(c, name, &op, &ctx);
	/* json, yaml, value(): the operation as the API (and gcloud) shows it */
	if (op && g->format == MDCCTL_JSON) {
		mdcctl_print_resource(op);
	} else if (op) {
		json_object *err = mdc_json_get_obj(op, "error");
		const char *pm = mdc_json_get_str(mdc_json_get_obj(op, "metadata"), "progress_message", NULL);

		printf("name:     %s\n", mdc_json_get_str(op, "name", name));
		printf("done:     %s\n", mdc_json_get_bool(op, "done", false) ? "yes" : "no");
		if (pm)
			printf("progress: %s\n", pm);
		if (err)
			printf("error:    %lld: %s\n", (long long) mdc_json_get_int(err, "code", 0),
			       mdc_json_get_str(err, "message", ""));
	}
	if (rc)
		goto fail;
	goto out;
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	free(name);
	json_object_put(op);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}
