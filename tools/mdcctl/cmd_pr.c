/* cmd_pr.c - `mdcctl persistent-resources create|list|describe|update|
 * delete|reboot` and `mdcctl pipelines run|describe|list|wait|cancel|delete`
 * (DESIGN P1-P5).  The flags follow `gcloud ai persistent-resources` (and
 * gcloud's update-command conventions for labels, as gcloud has no
 * persistent-resources update); the rules and request bodies live in
 * lib/mdc_pr.c, so everything is checked before sending.
 * (owner: pr) */
#include "config.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_pr.h"
#include "mdc_str.h"
#include "mdcctl.h"

/* Persistent resources are served by v1 (P1); pipeline jobs by v1beta1 (P5). */
#define PR_API "v1"
#define PJ_API "v1beta1"

/* Options every subcommand takes, gcloud-style after the command. */
enum {
	O_PROJECT = 300, O_REGION, O_ASYNC, O_FORMAT, O_YES, O_DRY_RUN,
	O_ID, O_DISPLAY_NAME, O_POOL, O_CONFIG, O_CUSTOM_SA, O_LABELS, O_NETWORK,
	O_PIPELINE, O_RESOURCE, O_WAIT_TIME, O_ON_TIMEOUT, O_ROOT, O_PARAM, O_JOB_ID,
	O_PAGE_SIZE, O_UPDATE_LABELS, O_REMOVE_LABELS, O_CLEAR_LABELS, O_FILTER, O_SORT_BY,
};

/* --page-size of the list commands (0 = the service's default) */
static long pr_page_size;
/* "filter=...&orderBy=..." of pipelines list, already encoded (or "") */
static char pr_list_query[4096];

#define PR_COMMON_OPTS \
	{ "project", required_argument, NULL, O_PROJECT }, \
	{ "region", required_argument, NULL, O_REGION }, \
	{ "async", no_argument, NULL, O_ASYNC }, \
	{ "format", required_argument, NULL, O_FORMAT }, \
	{ "page-size", required_argument, NULL, O_PAGE_SIZE }, \
	{ "help", no_argument, NULL, 'h' }

static int pr_set(char **dst, const char *val)
{
	char *s = strdup(val);

	if (!s)
		return -1;
	free(*dst);
	*dst = s;
	return 0;
}

/* The common options; 1 if C was not one of them, else 0 or an exit code
 * through *RC. */
static int pr_common(struct mdcctl *g, int c, int *rc)
{
	*rc = 0;
	switch (c) {
	case O_PROJECT:
		if (pr_set(&g->project, optarg))
			*rc = 1;
		return 0;
	case O_REGION:
		if (pr_set(&g->region, optarg))
			*rc = 1;
		return 0;
	case O_ASYNC:
		g->async = true;
		return 0;
	case O_PAGE_SIZE: {
		char *end;

		pr_page_size = strtol(optarg, &end, 10);
		if (*end || pr_page_size < 1 || pr_page_size > 1000)
			*rc = mdcctl_usage(g, "--page-size '%s': give 1 to 1000", optarg);
		return 0;
	}
	case O_FORMAT:
		if (!strcmp(optarg, "json"))
			g->format = MDCCTL_JSON;
		else if (!strcmp(optarg, "text"))
			g->format = MDCCTL_TEXT;
		else
			*rc = mdcctl_usage(g, "--format '%s': use text or json", optarg);
		return 0;
	default:
		return 1;
	}
}

/* Settings and client; PARENT (optional) gets "projects/P/locations/L". */
static int pr_connect(struct mdcctl *g, struct mdc_settings *s, struct mdc_client **c,
		      char **parent, struct mdc_ctx *ctx)
{
	int rc;

	*c = NULL;
	if ((rc = mdcctl_settings(g, false, s, ctx)))
		return rc;
	if (parent) {
		if (!s->project || !*s->project || !s->region || !*s->region)
			return mdc_fail(ctx, MDC_ERR_USAGE, "no project or region: give --project "
					"and --region (or MDC_PROJECT and MDC_REGION)");
		if (!(*parent = malloc(strlen(s->project) + strlen(s->region) + 32)))
			return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
		sprintf(*parent, "projects/%s/locations/%s", s->project, s->region);
	}
	return mdc_client_new(s, c, ctx);
}

/* NAME or ID -> full name under COLLECTION ("persistentResources", "pipelineJobs") */
static char *pr_full_name(const struct mdc_settings *s, const char *collection,
			  const char *name_or_id, struct mdc_ctx *ctx)
{
	char *out = NULL;

	if (!strcmp(collection, "persistentResources")) {
		mdc_pr_resource_name(s->project, s->region, name_or_id, &out, ctx);
		return out;
	}
	if (strchr(name_or_id, '/'))
		out = strdup(name_or_id);
	else if (!s->project || !s->region) {
		mdc_fail(ctx, MDC_ERR_USAGE, "%s '%s': give --project and --region, or its "
			 "full name", collection, name_or_id);
		return NULL;
	} else if ((out = malloc(strlen(s->project) + strlen(s->region) +
				 strlen(collection) + strlen(name_or_id) + 32))) {
		sprintf(out, "projects/%s/locations/%s/%s/%s", s->project, s->region, collection,
			name_or_id);
	}
	if (!out)
		mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	return out;
}

/* Print a resource as the API spells it (lowerCamelCase), like gcloud. */
static void pr_print_json(const json_object *obj)
{
	json_object *camel = obj ? mdc_json_normalize(obj, MDC_CASE_CAMEL) : NULL;

	mdcctl_print_json(camel ? camel : obj);
	json_object_put(camel);
}

/* KEY=VALUE percent-encoded onto the query string Q (size SZ) */
static void pr_query_add(char *q, size_t sz, const char *key, const char *val)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = strlen(q);

	o += (size_t) snprintf(q + o, sz - o, "%s%s=", o ? "&" : "", key);
	for (const unsigned char *p = (const unsigned char *) val; *p && o + 4 < sz; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p)) {
			q[o++] = (char) *p;
		} else {
			q[o++] = '%';
			q[o++] = hex[*p >> 4];
			q[o++] = hex[*p & 15];
		}
	}
	q[o] = '\0';
}

/* "[pageSize=N&]pageToken=TOKEN", the token percent-encoded (service tokens
 * carry '=', '+', '/'); TOKEN may be NULL. */
static void pr_page_query(const char *token, char *out, size_t sz)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	out[0] = '\0';
	if (pr_page_size)
		o = (size_t) snprintf(out, sz, "pageSize=%ld", pr_page_size);
	if (pr_list_query[0])
		o += (size_t) snprintf(out + o, sz - o, "%s%s", o ? "&" : "", pr_list_query);
	if (!token)
		return;
	o += (size_t) snprintf(out + o, sz - o, "%spageToken=", o ? "&" : "");

	for (const unsigned char *p = (const unsigned char *) token; *p && o + 4 < sz; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p)) {
			out[o++] = (char) *p;
		} else {
			out[o++] = '%';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 15];
		}
	}
	out[o] = '\0';
}

/* Every page of a list: ITEMS is the snake_case field of the answer. */
static int pr_list_all(struct mdc_client *c, const char *path, const char *items,
		       json_object **out, struct mdc_ctx *ctx)
{
	json_object *all = json_object_new_array(), *resp = NULL;
	char *token = NULL, query[2048];
	int rc = 0;

	*out = NULL;
	if (!all)
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	for (int page = 0; page < 1000; page++) {
		json_object *arr;
		const char *next;

		pr_page_query(token, query, sizeof(query));
		if ((rc = mdc_api_call(c, "GET", path, query, NULL, &resp, ctx)))
			goto out;
		if ((arr = mdc_json_get_arr(resp, items)))
			for (size_t i = 0; i < json_object_array_length(arr); i++)
				json_object_array_add(all, json_object_get(
							      json_object_array_get_idx(arr, i)));
		next = mdc_json_get_str(resp, "next_page_token", NULL);
		free(token);
		token = next && *next ? strdup(next) : NULL;
		json_object_put(resp);
		resp = NULL;
		if (!token)
			break;
	}
	*out = all;
	all = NULL;
out:
	free(token);
	json_object_put(resp);
	json_object_put(all);
	return rc;
}

/* Wait for OP unless --async; *DONE gets the finished operation (may be NULL). */
static int pr_wait(struct mdcctl *g, struct mdc_client *c, const json_object *op,
		   json_object **done, struct mdc_ctx *ctx)
{
	struct mdc_lro_opts lo = { 0 };
	const char *name = mdc_json_get_str(op, "name", NULL);

	*done = NULL;
	if (mdc_json_get_bool(op, "done", false)) {
		*done = json_object_get((json_object *) op);
		if (mdc_json_get_obj(op, "error"))
			return mdc_fail(ctx, MDC_ERR_OPFAILED, "operation '%s' failed: %s",
					name ? name : "?", mdc_json_get_str(
						mdc_json_get_obj(op, "error"), "message", "?"));
		return 0;
	}
	if (!name)
		return mdc_fail(ctx, MDC_ERR_API, "the answer is not an operation (no name)");
	lo.timeout_s = g->timeout;
	lo.progress = isatty(STDERR_FILENO) == 1 && g->format == MDCCTL_TEXT;
	lo.interrupted = &mdcctl_interrupted;
	return mdc_lro_wait(c, name, &lo, done, ctx);
}

/* gcloud's words for a submitted operation, so its users know what to do. */
static void pr_print_submitted(const char *verb, const char *op_name)
{
	printf("Operation to %s PersistentResource [%s] is submitted successfully.\n\n"
	       "You can view the status of your PersistentResource %s operation with the "
	       "command\n\n  $ mdcctl operations describe %s\n\n", verb, op_name, verb, op_name);
}

/* One line per pool: "2 x n1-standard-4", "1-3 x n1-standard-8 + 1 NVIDIA_TESLA_T4" */
static void pr_pools_summary(const json_object *res, struct mdc_buf *b)
{
	json_object *pools = mdc_json_get_arr(res, "resource_pools");

	for (size_t i = 0; pools && i < json_object_array_length(pools); i++) {
		json_object *p = json_object_array_get_idx(pools, i);
		json_object *ms = mdc_json_get_obj(p, "machine_spec");
		json_object *as = mdc_json_get_obj(p, "autoscaling_spec");

		if (i)
			mdc_buf_adds(b, "; ");
		if (as && mdc_json_get(as, "min_replica_count"))
			mdc_buf_addf(b, "%s-%s", json_object_get_string(mdc_json_get(as, "min_replica_count")),
				     json_object_get_string(mdc_json_get(as, "max_replica_count")));
		else
			mdc_buf_addf(b, "%s", mdc_json_get(p, "replica_count") ?
				     json_object_get_string(mdc_json_get(p, "replica_count")) : "?");
		mdc_buf_addf(b, " x %s", mdc_json_get_str(ms, "machine_type", "?"));
		if (mdc_json_get_str(ms, "accelerator_type", NULL))
			mdc_buf_addf(b, " + %s %s", mdc_json_get(ms, "accelerator_count") ?
				     json_object_get_string(mdc_json_get(ms, "accelerator_count")) : "1",
				     mdc_json_get_str(ms, "accelerator_type", ""));
	}
}

/* --- persistent-resources ---------------------------------------------- */

static void pr_create_help(FILE *f)
{
	fprintf(f,
		"usage: mdcctl persistent-resources create --persistent-resource-id=ID\n"
		"         [--display-name=NAME] [--project=P] [--region=L]\n"
		"         [--resource-pool-spec=replica-count=N,machine-type=T,min-replica-count=A,\n"
		"          max-replica-count=B,accelerator-type=X,accelerator-count=K,disk-type=D,\n"
		"          disk-size=GB[,id=POOL]]... [--config=FILE]\n"
		"         [--enable-custom-service-account] [--labels=K=V,...] [--network=NET]\n"
		"         [--async] [--dry-run] [--format=text|json]\n");
}

static int pr_create(struct mdcctl *g, int argc, char **argv)
{
	static const struct option opts[] = {
		PR_COMMON_OPTS,
		{ "persistent-resource-id", required_argument, NULL, O_ID },
		{ "display-name", required_argument, NULL, O_DISPLAY_NAME },
		{ "resource-pool-spec", required_argument, NULL, O_POOL },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "enable-custom-service-account", no_argument, NULL, O_CUSTOM_SA },
		{ "labels", required_argument, NULL, O_LABELS },
		{ "network", required_argument, NULL, O_NETWORK },
		{ "dry-run", no_argument, NULL, O_DRY_RUN },
		{ NULL, 0, NULL, 0 },
	};
	struct mdc_strv pools = MDC_STRV_INIT, labels = MDC_STRV_INIT;
	struct mdc_pr_create_opts co = { 0 };
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	struct mdc_ctx ctx;
	json_object *body = NULL, *op = NULL, *done = NULL, *res = NULL;
	char *parent = NULL, *path = NULL, *query = NULL, *name = NULL;
	const char *id = NULL;
	bool dry_run = false;
	int opt, rc = 0;

	mdc_ctx_clear(&ctx);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (!pr_common(g, opt, &rc)) {
			if (rc)
				goto out;
			continue;
		}
		switch (opt) {
		case O_ID: id = optarg; break;
		case O_DISPLAY_NAME: co.display_name = optarg; break;
		case O_POOL:
			if (mdc_strv_push(&pools, optarg))
				goto nomem;
			break;
		case O_CONFIG: co.config_path = optarg; break;
		case O_CUSTOM_SA: co.enable_custom_service_account = true; break;
		case O_LABELS:
			if (mdc_strv_push(&labels, optarg))
				goto nomem;
			break;
		case O_NETWORK: co.network = optarg; break;
		case O_DRY_RUN: dry_run = true; break;
		case 'h': pr_create_help(stdout); goto out;
		default: pr_create_help(stderr); rc = 2; goto out;
		}
	}
	if (optind < argc) {
		rc = mdcctl_usage(g, "persistent-resources create: unexpected argument '%s'",
				  argv[optind]);
		goto out;
	}
	if (!id) {
		rc = mdcctl_usage(g, "persistent-resources create: give --persistent-resource-id=ID");
		goto out;
	}
	/* P2, P3, P4: everything is checked before anything is sent */
	co.pool_specs = &pools;
	co.labels = &labels;
	if (mdc_pr_check_id(id, &ctx) || mdc_pr_create_body(&co, &body, &ctx)) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	if (!co.enable_custom_service_account &&
	    !mdc_json_get_bool(mdc_json_get_path(body, "resource_runtime_spec.service_account_spec"),
			       "enable_custom_service_account", false))
		mdc_warn("without --enable-custom-service-account pipeline runs cannot use "
			 "persistent resource '%s'", id);
	if (dry_run) {
		mdcctl_print_json(body);
		goto out;
	}
	if (pr_connect(g, &s, &c, &parent, &ctx)) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	if (!(path = malloc(strlen(parent) + 64)) || !(query = malloc(strlen(id) + 32)) ||
	    !(name = malloc(strlen(parent) + strlen(id) + 32)))
		goto nomem;
	sprintf(path, PR_API "/%s/persistentResources", parent);
	sprintf(query, "persistent_resource_id=%s", id);
	sprintf(name, "%s/persistentResources/%s", parent, id);
	if (g->format == MDCCTL_TEXT)
		fprintf(stderr, "Using endpoint [%s/]\n", s.endpoint);
	if (mdc_api_call(c, "POST", path, query, body, &op, &ctx)) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	if (g->format == MDCCTL_TEXT)
		pr_print_submitted("create", mdc_json_get_str(op, "name", "?"));
	if (g->async) {
		if (g->format == MDCCTL_JSON)
			pr_print_json(op);
		goto out;
	}
	if (pr_wait(g, c, op, &done, &ctx)) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	sprintf(path, PR_API "/%s", name);
	if (mdc_api_call(c, "GET", path, NULL, NULL, &res, &ctx)) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	if (g->format == MDCCTL_JSON)
		pr_print_json(res);
	else
		printf("Created persistent resource [%s] (state %s).\n",
		       mdc_json_get_str(res, "name", name), mdc_json_get_str(res, "state", "?"));
	goto out;
nomem:
	mdc_fail(&ctx, MDC_ERR_NOMEM, "out of memory");
	rc = mdcctl_fail(g, &ctx);
out:
	json_object_put(res);
	json_object_put(done);
	json_object_put(op);
	json_object_put(body);
	free(name);
	free(query);
	free(path);
	free(parent);
	mdc_client_free(c);
	mdc_settings_free(&s);
	mdc_strv_free(&pools);
	mdc_strv_free(&labels);
	return rc;
}

/* The list commands' shared part: options, then every page of API/PARENT/
 * COLLECTION into *ALL (the KEY array of each page).  Returns -1 when *ALL
 * is ready to print, else the exit status (usage, help, error). */
static int pr_fetch_list(struct mdcctl *g, int argc, char **argv, const char *usage,
			 const char *api, const char *collection, const char *key,
			 json_object **all)
{
	static const struct option opts[] = { PR_COMMON_OPTS, { NULL, 0, NULL, 0 } };
	/* ListPipelineJobs has filter and order_by; ListPersistentResources has not */
	static const struct option jopts[] = {
		PR_COMMON_OPTS,
		{ "filter", required_argument, NULL, O_FILTER },
		{ "sort-by", required_argument, NULL, O_SORT_BY },
		{ NULL, 0, NULL, 0 },
	};
	bool jobs = !strcmp(collection, "pipelineJobs");
	struct mdc_pr_filter *f = NULL;
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	struct mdc_ctx ctx;
	char *parent = NULL, *path = NULL, *order_by = NULL;
	const char *filter = NULL, *sort_by = NULL;
	int opt, rc = -1;

	*all = NULL;
	pr_list_query[0] = '\0';
	mdc_ctx_clear(&ctx);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", jobs ? jopts : opts, NULL)) != -1) {
		if (!pr_common(g, opt, &rc)) {
			if (rc > 0)
				goto out;
			rc = -1;
			continue;
		}
		if (opt == O_FILTER || opt == O_SORT_BY) {
			*(opt == O_FILTER ? &filter : &sort_by) = optarg;
			rc = -1;	/* pr_common reset it */
			continue;
		}
		rc = opt == 'h' ? 0 : 2;
		fprintf(rc ? stderr : stdout, "usage: %s\n", usage);
		goto out;
	}
	if (optind < argc) {
		rc = mdcctl_usage(g, "list: unexpected argument '%s'", argv[optind]);
		goto out;
	}
	/* the service's filter grammar, checked here: nothing is sent on a bad one */
	if ((filter && mdc_pr_filter_parse(filter, &f, &ctx)) ||
	    (sort_by && mdc_pr_sort_by(sort_by, &order_by, &ctx))) {
		ctx.err = MDC_ERR_USAGE;
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	if (filter && *filter)
		pr_query_add(pr_list_query, sizeof(pr_list_query), "filter", filter);
	if (order_by)
		pr_query_add(pr_list_query, sizeof(pr_list_query), "orderBy", order_by);
	if (pr_connect(g, &s, &c, &parent, &ctx) ||
	    !(path = malloc(strlen(parent) + strlen(api) + strlen(collection) + 3)) ||
	    (sprintf(path, "%s/%s/%s", api, parent, collection),
	     pr_list_all(c, path, key, all, &ctx))) {
		rc = mdcctl_fail(g, &ctx);
		json_object_put(*all);
		*all = NULL;
	}
out:
	mdc_pr_filter_free(f);
	free(order_by);
	free(path);
	free(parent);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

static int pr_list(struct mdcctl *g, int argc, char **argv)
{
	json_object *all;
	int rc = pr_fetch_list(g, argc, argv, "mdcctl persistent-resources list "
			       "[--project=P] [--region=L] [--page-size=N] [--format=text|json]",
			       PR_API, "persistentResources", "persistent_resources", &all);

	if (rc >= 0)
		return rc;
	rc = 0;
	if (g->format == MDCCTL_JSON) {
		pr_print_json(all);
		goto out;
	}
	if (!json_object_array_length(all)) {
		printf("Listed 0 items.\n");
		goto out;
	}
	printf("%-32s %-13s %-24s %s\n", "ID", "STATE", "DISPLAY_NAME", "POOLS");
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *r = json_object_array_get_idx(all, i);
		struct mdc_buf b = MDC_BUF_INIT;

		pr_pools_summary(r, &b);
		printf("%-32s %-13s %-24s %s\n", mdc_pr_basename(mdc_json_get_str(r, "name", "")),
		       mdc_json_get_str(r, "state", "-"), mdc_json_get_str(r, "display_name", "-"),
		       mdc_buf_str(&b));
		mdc_buf_free(&b);
	}
out:
	json_object_put(all);
	return rc;
}

/* describe, delete, reboot: one resource named by ID or full name */
enum pr_one_kind { PR_DESCRIBE, PR_DELETE, PR_REBOOT };

static int pr_one(struct mdcctl *g, int argc, char **argv, enum pr_one_kind kind)
{
	static const char *const verbs[] = { "describe", "delete", "reboot" };
	static const struct option opts[] = {
		PR_COMMON_OPTS,
		{ "yes", no_argument, NULL, O_YES },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	struct mdc_ctx ctx;
	json_object *res = NULL, *op = NULL, *done = NULL, *empty = NULL;
	char *name = NULL, *path = NULL, q[512];
	int opt, rc = 0;

	mdc_ctx_clear(&ctx);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		if (!pr_common(g, opt, &rc)) {
			if (rc)
				goto out;
			continue;
		}
		if (opt == O_YES || opt == 'q') {
			g->yes = true;
			continue;
		}
		rc = opt == 'h' ? 0 : 2;
		fprintf(rc ? stderr : stdout, "usage: mdcctl persistent-resources %s ID|NAME "
			"[--project=P] [--region=L]%s\n", verbs[kind],
			kind == PR_DESCRIBE ? " [--format=text|json]" : " [--async] [--yes]");
		goto out;
	}
	if (optind != argc - 1) {
		rc = mdcctl_usage(g, "persistent-resources %s: give one persistent resource "
				  "(ID or full name)", verbs[kind]);
		goto out;
	}
	if (mdcctl_settings(g, false, &s, &ctx) ||
	    !(name = pr_full_name(&s, "persistentResources", argv[optind], &ctx)) ||
	    mdc_client_new(&s, &c, &ctx)) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	if (!(path = malloc(strlen(name) + 32))) {
		mdc_fail(&ctx, MDC_ERR_NOMEM, "out of memory");
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	switch (kind) {
	case PR_DESCRIBE:
		sprintf(path, PR_API "/%s", name);
		if (mdc_api_call(c, "GET", path, NULL, NULL, &res, &ctx)) {
			rc = mdcctl_fail(g, &ctx);
			goto out;
		}
		pr_print_json(res);
		goto out;
	case PR_DELETE:
		snprintf(q, sizeof(q), "delete persistent resource '%s'?", name);
		if (!mdcctl_confirm(g, q)) {
			rc = mdcctl_usage(g, "not deleting '%s': confirm on a terminal or give --yes",
					  name);
			goto out;
		}
		sprintf(path, PR_API "/%s", name);
		rc = mdc_api_call(c, "DELETE", path, NULL, NULL, &op, &ctx);
		break;
	case PR_REBOOT:
		sprintf(path, PR_API "/%s:reboot", name);
		if (!(empty = json_object_new_object())) {
			rc = mdc_fail(&ctx, MDC_ERR_NOMEM, "out of memory");
			break;
		}
		rc = mdc_api_call(c, "POST", path, NULL, empty, &op, &ctx);
		break;
	}
	if (rc) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	if (g->format == MDCCTL_TEXT) {
		if (kind == PR_DELETE)
			printf("Request to delete the PersistentResource [%s] has been sent.\n\n"
			       "You can view the status of your PersistentResource delete operation "
			       "with the command\n\n  $ mdcctl operations describe %s\n\n",
			       name, mdc_json_get_str(op, "name", "?"));
		else
			pr_print_submitted("reboot", mdc_json_get_str(op, "name", "?"));
	}
	if (g->async) {
		if (g->format == MDCCTL_JSON)
			pr_print_json(op);
		goto out;
	}
	if (pr_wait(g, c, op, &done, &ctx)) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	if (g->format == MDCCTL_JSON)
		pr_print_json(done);
	else
		printf("%s persistent resource [%s].\n",
		       kind == PR_DELETE ? "Deleted" : "Rebooted", name);
out:
	json_object_put(empty);
	json_object_put(done);
	json_object_put(op);
	json_object_put(res);
	free(path);
	free(name);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

static int pr_describe(struct mdcctl *g, int argc, char **argv)
{
	return pr_one(g, argc, argv, PR_DESCRIBE);
}

static int pr_delete(struct mdcctl *g, int argc, char **argv)
{
	return pr_one(g, argc, argv, PR_DELETE);
}

static int pr_reboot(struct mdcctl *g, int argc, char **argv)
{
	return pr_one(g, argc, argv, PR_REBOOT);
}

static void pr_update_help(FILE *f)
{
	fprintf(f,
		"usage: mdcctl persistent-resources update ID|NAME [--project=P] [--region=L]\n"
		"         [--display-name=NAME] [--update-labels=K=V,...] [--remove-labels=K,...]\n"
		"         [--clear-labels] [--resource-pool-spec=id=POOL,replica-count=N]...\n"
		"         [--resource-pool-spec=id=POOL,min-replica-count=A,max-replica-count=B]...\n"
		"         [--async] [--dry-run] [--format=text|json]\n");
}

/* UpdatePersistentResource: read the resource, build the masked change
 * with the service's rules (lib), PATCH it, wait for the operation. */
static int pr_update(struct mdcctl *g, int argc, char **argv)
{
	static const struct option opts[] = {
		PR_COMMON_OPTS,
		{ "display-name", required_argument, NULL, O_DISPLAY_NAME },
		{ "update-labels", required_argument, NULL, O_UPDATE_LABELS },
		{ "remove-labels", required_argument, NULL, O_REMOVE_LABELS },
		{ "clear-labels", no_argument, NULL, O_CLEAR_LABELS },
		{ "resource-pool-spec", required_argument, NULL, O_POOL },
		{ "dry-run", no_argument, NULL, O_DRY_RUN },
		{ NULL, 0, NULL, 0 },
	};
	struct mdc_strv pools = MDC_STRV_INIT, upd = MDC_STRV_INIT, rem = MDC_STRV_INIT;
	struct mdc_pr_update_opts uo = { 0 };
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	struct mdc_ctx ctx;
	json_object *cur = NULL, *body = NULL, *op = NULL, *done = NULL;
	char *name = NULL, *path = NULL, *mask = NULL, query[512];
	bool dry_run = false;
	int opt, rc = 0;

	mdc_ctx_clear(&ctx);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (!pr_common(g, opt, &rc)) {
			if (rc)
				goto out;
			continue;
		}
		switch (opt) {
		case O_DISPLAY_NAME: uo.display_name = optarg; break;
		case O_UPDATE_LABELS:
			if (mdc_strv_push(&upd, optarg))
				goto nomem;
			break;
		case O_REMOVE_LABELS:
			if (mdc_strv_push(&rem, optarg))
				goto nomem;
			break;
		case O_CLEAR_LABELS: uo.clear_labels = true; break;
		case O_POOL:
			if (mdc_strv_push(&pools, optarg))
				goto nomem;
			break;
		case O_DRY_RUN: dry_run = true; break;
		case 'h': pr_update_help(stdout); goto out;
		default: pr_update_help(stderr); rc = 2; goto out;
		}
	}
	if (optind != argc - 1) {
		rc = mdcctl_usage(g, "persistent-resources update: give one persistent resource "
				  "(ID or full name)");
		goto out;
	}
	uo.update_labels = &upd;
	uo.remove_labels = &rem;
	uo.pool_specs = &pools;
	if (!uo.display_name && !upd.n && !rem.n && !uo.clear_labels && !pools.n) {
		rc = mdcctl_usage(g, "persistent-resources update: nothing to update: give "
				  "--display-name, --update-labels, --remove-labels, --clear-labels "
				  "or --resource-pool-spec");
		goto out;
	}
	if (mdcctl_settings(g, false, &s, &ctx) ||
	    !(name = pr_full_name(&s, "persistentResources", argv[optind], &ctx)) ||
	    mdc_client_new(&s, &c, &ctx))
		goto fail;
	if (!(path = malloc(strlen(name) + 32)))
		goto nomem;
	sprintf(path, PR_API "/%s", name);
	/* pools are matched by id against the resource as it is now */
	if (mdc_api_call(c, "GET", path, NULL, NULL, &cur, &ctx) ||
	    mdc_pr_update_body(cur, &uo, &body, &mask, &ctx))
		goto fail;
	if (dry_run) {
		printf("PATCH %s?updateMask=%s\n", path, mask);
		mdcctl_print_json(body);
		goto out;
	}
	query[0] = '\0';
	pr_query_add(query, sizeof(query), "updateMask", mask);
	if (mdc_api_call(c, "PATCH", path, query, body, &op, &ctx))
		goto fail;
	if (g->format == MDCCTL_TEXT)
		pr_print_submitted("update", mdc_json_get_str(op, "name", "?"));
	if (g->async) {
		if (g->format == MDCCTL_JSON)
			pr_print_json(op);
		goto out;
	}
	if (pr_wait(g, c, op, &done, &ctx))
		goto fail;
	if (g->format == MDCCTL_JSON)
		pr_print_json(mdc_json_get_obj(done, "response"));
	else
		printf("Updated persistent resource [%s] (%s).\n", name, mask);
	goto out;
nomem:
	mdc_fail(&ctx, MDC_ERR_NOMEM, "out of memory");
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	json_object_put(done);
	json_object_put(op);
	json_object_put(body);
	json_object_put(cur);
	free(mask);
	free(path);
	free(name);
	mdc_client_free(c);
	mdc_settings_free(&s);
	mdc_strv_free(&pools);
	mdc_strv_free(&upd);
	mdc_strv_free(&rem);
	return rc;
}

struct pr_sub {
	const char *name;
	int (*fn)(struct mdcctl *g, int argc, char **argv);
};

static int pr_dispatch(struct mdcctl *g, int argc, char **argv, const struct pr_sub *subs,
		       size_t n)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "usage: mdcctl %s COMMAND [FLAGS]\n\nCommands:", argv[0]);
		for (size_t i = 0; i < n; i++)
			fprintf(f, " %s", subs[i].name);
		fprintf(f, "\n\nSee mdcctl-persistent-resources(1).\n");
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(argv[1], subs[i].name))
			return subs[i].fn(g, argc - 1, argv + 1);
	return mdcctl_usage(g, "%s: unknown command '%s' (see mdcctl %s --help)", argv[0],
			    argv[1], argv[0]);
}

int cmd_persistent_resources(struct mdcctl *g, int argc, char **argv)
{
	static const struct pr_sub subs[] = {
		{ "create", pr_create },
		{ "delete", pr_delete },
		{ "describe", pr_describe },
		{ "list", pr_list },
		{ "reboot", pr_reboot },
		{ "update", pr_update },
	};

	return pr_dispatch(g, argc, argv, subs, sizeof(subs) / sizeof(subs[0]));
}

/* --- pipelines ------------------------------------------------------------- */

static void pj_run_help(FILE *f)
{
	fprintf(f,
		"usage: mdcctl pipelines run --pipeline=COMPILED.yaml --persistent-resource=ID|NAME\n"
		"         --wait-time=DURATION --on-timeout=fail|fall-back-to-on-demand\n"
		"         --pipeline-root=gs://BUCKET/DIR [--parameter=K=V]... [--display-name=N]\n"
		"         [--job-id=ID] [--labels=K=V,...] [--project=P] [--region=L]\n"
		"         [--dry-run] [--format=text|json]\n");
}

static int pj_run(struct mdcctl *g, int argc, char **argv)
{
	static const struct option opts[] = {
		PR_COMMON_OPTS,
		{ "pipeline", required_argument, NULL, O_PIPELINE },
		{ "persistent-resource", required_argument, NULL, O_RESOURCE },
		{ "wait-time", required_argument, NULL, O_WAIT_TIME },
		{ "on-timeout", required_argument, NULL, O_ON_TIMEOUT },
		{ "pipeline-root", required_argument, NULL, O_ROOT },
		{ "parameter", required_argument, NULL, O_PARAM },
		{ "display-name", required_argument, NULL, O_DISPLAY_NAME },
		{ "job-id", required_argument, NULL, O_JOB_ID },
		{ "labels", required_argument, NULL, O_LABELS },
		{ "dry-run", no_argument, NULL, O_DRY_RUN },
		{ NULL, 0, NULL, 0 },
	};
	struct mdc_strv params = MDC_STRV_INIT, labels = MDC_STRV_INIT;
	struct mdc_pr_run_opts ro = { 0 };
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	struct mdc_ctx ctx;
	json_object *body = NULL, *res = NULL, *job = NULL, *detail, *summary = NULL;
	char *rname = NULL, *path = NULL, *query = NULL, *link = NULL;
	const char *resource = NULL, *job_id = NULL, *canon, *state;
	bool dry_run = false;
	int opt, rc = 0;

	mdc_ctx_clear(&ctx);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (!pr_common(g, opt, &rc)) {
			if (rc)
				goto out;
			continue;
		}
		switch (opt) {
		case O_PIPELINE: ro.pipeline_path = optarg; break;
		case O_RESOURCE: resource = optarg; break;
		case O_WAIT_TIME: ro.wait_time = optarg; break;
		case O_ON_TIMEOUT: ro.on_timeout = optarg; break;
		case O_ROOT: ro.pipeline_root = optarg; break;
		case O_PARAM:
			if (mdc_strv_push(&params, optarg))
				goto nomem;
			break;
		case O_DISPLAY_NAME: ro.display_name = optarg; break;
		case O_JOB_ID: job_id = optarg; break;
		case O_LABELS:
			if (mdc_strv_push(&labels, optarg))
				goto nomem;
			break;
		case O_DRY_RUN: dry_run = true; break;
		case 'h': pj_run_help(stdout); goto out;
		default: pj_run_help(stderr); rc = 2; goto out;
		}
	}
	if (optind < argc) {
		rc = mdcctl_usage(g, "pipelines run: unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!resource || !ro.on_timeout) {
		rc = mdcctl_usage(g, "pipelines run: give --%s (see mdcctl pipelines run --help)",
				  !resource ? "persistent-resource" : "on-timeout");
		goto out;
	}
	/* everything local first: the file, the flags, the parameters */
	if (mdcctl_settings(g, false, &s, &ctx) ||
	    mdc_pr_resource_name(s.project, s.region, resource, &rname, &ctx) ||
	    (job_id && mdc_pr_check_job_id(job_id, &ctx))) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	if (!s.project || !s.region) {
		rc = mdcctl_usage(g, "pipelines run: give --project and --region (the job runs "
				  "where the persistent resource is)");
		goto out;
	}
	ro.resource_name = rname;
	ro.parameters = &params;
	ro.labels = &labels;
	if (mdc_pr_pipeline_body(&ro, &body, &ctx)) {
		rc = mdcctl_fail(g, &ctx);
		goto out;
	}
	if (dry_run) {
		mdcctl_print_json(body);
		goto out;
	}
	if (mdc_client_new(&s, &c, &ctx))
		goto fail;
	/* P5: the resource must exist and run pipelines with a custom SA */
	if (!(path = malloc(strlen(rname) + strlen(s.project) + strlen(s.region) + 64)))
		goto nomem;
	sprintf(path, PJ_API "/%s", rname);
	if (mdc_api_call(c, "GET", path, NULL, NULL, &res, &ctx)) {
		if (ctx.err == MDC_ERR_NOTFOUND) {
			mdc_ctx_clear(&ctx);
			mdc_fail(&ctx, MDC_ERR_NOTFOUND, "persistent resource '%s' not found: create "
				 "it with mdcctl persistent-resources create "
				 "--enable-custom-service-account", rname);
		}
		goto fail;
	}
	if (mdc_pr_check_runnable(res, rname, &ctx))
		goto fail;
	state = mdc_json_get_str(res, "state", "STATE_UNSPECIFIED");
	if (strcmp(state, "RUNNING"))
		mdc_warn("persistent resource '%s' is %s, not RUNNING: tasks wait for it up to "
			 "--wait-time", rname, state);
	/* the service's own spelling of the name (it may use the project number) */
	canon = mdc_json_get_str(res, "name", NULL);
	detail = mdc_json_get_path(body, "runtime_config.default_runtime."
				   "persistent_resource_runtime_detail");
	if (canon && *canon && strcmp(canon, rname) && detail &&
	    json_object_object_add(detail, "persistent_resource_name", json_object_new_string(canon)))
		goto nomem;
	sprintf(path, PJ_API "/projects/%s/locations/%s/pipelineJobs", s.project, s.region);
	if (job_id) {
		if (!(query = malloc(strlen(job_id) + 32)))
			goto nomem;
		sprintf(query, "pipeline_job_id=%s", job_id);
	}
	if (mdc_api_call(c, "POST", path, query, body, &job, &ctx))
		goto fail;
	if (!(link = mdc_pr_console_link(s.region, s.project, mdc_json_get_str(job, "name", ""))))
		goto nomem;
	if (g->format == MDCCTL_JSON) {
		if (!(summary = json_object_new_object()) ||
		    json_object_object_add(summary, "name", json_object_new_string(
						   mdc_json_get_str(job, "name", ""))) ||
		    json_object_object_add(summary, "state", json_object_new_string(
						   mdc_json_get_str(job, "state", ""))) ||
		    json_object_object_add(summary, "consoleLink", json_object_new_string(link)))
			goto nomem;
		mdcctl_print_json(summary);
	} else {
		printf("Created pipeline job [%s] (state %s).\n"
		       "View Pipeline Run in Google Cloud console: %s\n",
		       mdc_json_get_str(job, "name", "?"), mdc_json_get_str(job, "state", "?"), link);
	}
	goto out;
nomem:
	mdc_fail(&ctx, MDC_ERR_NOMEM, "out of memory");
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	json_object_put(summary);
	json_object_put(job);
	json_object_put(res);
	json_object_put(body);
	free(link);
	free(query);
	free(path);
	free(rname);
	mdc_client_free(c);
	mdc_settings_free(&s);
	mdc_strv_free(&params);
	mdc_strv_free(&labels);
	return rc;
}

static void pj_print_job(const struct mdc_settings *s, const json_object *j)
{
	json_object *d = mdc_json_get_path(j, "runtime_config.default_runtime."
					   "persistent_resource_runtime_detail");
	char *link = mdc_pr_console_link(s->region, s->project, mdc_json_get_str(j, "name", ""));

	printf("name:                %s\n", mdc_json_get_str(j, "name", "-"));
	printf("displayName:         %s\n", mdc_json_get_str(j, "display_name", "-"));
	printf("state:               %s\n", mdc_json_get_str(j, "state", "-"));
	printf("createTime:          %s\n", mdc_json_get_str(j, "create_time", "-"));
	printf("pipelineRoot:        %s\n",
	       mdc_json_get_str(mdc_json_get_obj(j, "runtime_config"), "gcs_output_directory", "-"));
	printf("persistentResource:  %s\n", mdc_json_get_str(d, "persistent_resource_name", "-"));
	if (d && mdc_json_get(d, "task_resource_unavailable_wait_time_ms"))
		printf("waitTimeMs:          %s\n", json_object_get_string(
			       mdc_json_get(d, "task_resource_unavailable_wait_time_ms")));
	printf("onTimeout:           %s\n",
	       mdc_json_get_str(d, "task_resource_unavailable_timeout_behavior", "-"));
	if (mdc_json_get_obj(j, "error"))
		printf("error:               %s\n",
		       mdc_json_get_str(mdc_json_get_obj(j, "error"), "message", "-"));
	if (link)
		printf("console:             %s\n", link);
	free(link);
	{
		json_object *td = mdc_json_get_arr(mdc_json_get_obj(j, "job_detail"), "task_details");

		for (size_t i = 0; td && i < json_object_array_length(td); i++) {
			json_object *t = json_object_array_get_idx(td, i);

			printf("task:                %s %s%s%s\n", mdc_json_get_str(t, "task_name", "?"),
			       mdc_json_get_str(t, "state", "?"),
			       mdc_json_get_obj(t, "error") ? ": " : "",
			       mdc_json_get_str(mdc_json_get_obj(t, "error"), "message", ""));
		}
	}
}

enum pj_one_kind { PJ_DESCRIBE, PJ_CANCEL, PJ_DELETE };

static int pj_one(struct mdcctl *g, int argc, char **argv, enum pj_one_kind kind)
{
	static const char *const verbs[] = { "describe", "cancel", "delete" };
	static const struct option opts[] = {
		PR_COMMON_OPTS,
		{ "yes", no_argument, NULL, O_YES },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	struct mdc_ctx ctx;
	json_object *job = NULL, *empty = NULL, *done = NULL;
	char *name = NULL, *path = NULL, q[600];
	int opt, rc = 0;

	mdc_ctx_clear(&ctx);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		if (!pr_common(g, opt, &rc)) {
			if (rc)
				goto out;
			continue;
		}
		if (kind == PJ_DELETE && (opt == O_YES || opt == 'q')) {
			g->yes = true;
			continue;
		}
		rc = opt == 'h' ? 0 : 2;
		fprintf(rc ? stderr : stdout, "usage: mdcctl pipelines %s JOB_ID|NAME "
			"[--project=P] [--region=L]%s [--format=text|json]\n", verbs[kind],
			kind == PJ_DELETE ? " [--async] [--yes]" : "");
		goto out;
	}
	if (optind != argc - 1) {
		rc = mdcctl_usage(g, "pipelines %s: give one pipeline job (id or full name)",
				  verbs[kind]);
		goto out;
	}
	if (mdcctl_settings(g, false, &s, &ctx) ||
	    !(name = pr_full_name(&s, "pipelineJobs", argv[optind], &ctx)) ||
	    mdc_client_new(&s, &c, &ctx))
		goto fail;
	if (!(path = malloc(strlen(name) + 32))) {
		mdc_fail(&ctx, MDC_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (kind == PJ_DELETE) {
		snprintf(q, sizeof(q), "delete pipeline job '%s'?", name);
		if (!mdcctl_confirm(g, q)) {
			rc = mdcctl_usage(g, "not deleting '%s': confirm on a terminal or give --yes",
					  name);
			goto out;
		}
		sprintf(path, PJ_API "/%s", name);
		if (mdc_api_call(c, "DELETE", path, NULL, NULL, &job, &ctx))
			goto fail;
		if (g->async) {
			if (g->format == MDCCTL_JSON)
				pr_print_json(job);
			else
				printf("Request to delete the pipeline job [%s] has been sent.\n\n"
				       "You can view the status of the delete operation with the "
				       "command\n\n  $ mdcctl operations describe %s\n\n", name,
				       mdc_json_get_str(job, "name", "?"));
			goto out;
		}
		if (pr_wait(g, c, job, &done, &ctx))
			goto fail;
		if (g->format == MDCCTL_JSON)
			pr_print_json(done);
		else
			printf("Deleted pipeline job [%s].\n", name);
		goto out;
	}
	if (kind == PJ_CANCEL) {
		sprintf(path, PJ_API "/%s:cancel", name);
		if (!(empty = json_object_new_object())) {
			mdc_fail(&ctx, MDC_ERR_NOMEM, "out of memory");
			goto fail;
		}
		if (mdc_api_call(c, "POST", path, NULL, empty, &job, &ctx))
			goto fail;
		if (g->format == MDCCTL_TEXT)
			printf("Requested cancellation of pipeline job [%s].\n", name);
		else
			printf("{\n  \"name\": \"%s\",\n  \"cancelRequested\": true\n}\n", name);
		goto out;
	}
	sprintf(path, PJ_API "/%s", name);
	if (mdc_api_call(c, "GET", path, NULL, NULL, &job, &ctx))
		goto fail;
	if (g->format == MDCCTL_JSON)
		pr_print_json(job);
	else
		pj_print_job(&s, job);
	goto out;
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	json_object_put(done);
	json_object_put(empty);
	json_object_put(job);
	free(path);
	free(name);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

static int pj_describe(struct mdcctl *g, int argc, char **argv)
{
	return pj_one(g, argc, argv, PJ_DESCRIBE);
}

static int pj_cancel(struct mdcctl *g, int argc, char **argv)
{
	return pj_one(g, argc, argv, PJ_CANCEL);
}

static int pj_delete(struct mdcctl *g, int argc, char **argv)
{
	return pj_one(g, argc, argv, PJ_DELETE);
}

/* "RUNNING, task 2/3 train RUNNING" from the job's task details */
static void pj_summary(const json_object *job, char *buf, size_t sz)
{
	json_object *td = mdc_json_get_arr(mdc_json_get_obj(job, "job_detail"), "task_details");
	const char *state = mdc_json_get_str(job, "state", "?");
	size_t n = td ? json_object_array_length(td) : 0;

	if (!strncmp(state, "PIPELINE_STATE_", 15))
		state += 15;
	if (!n) {
		snprintf(buf, sz, "%s", state);
		return;
	}
	{
		json_object *t = json_object_array_get_idx(td, n - 1);

		snprintf(buf, sz, "%s, task %zu %s %s", state, n,
			 mdc_json_get_str(t, "task_name", "?"), mdc_json_get_str(t, "state", "?"));
	}
}

/* A terminal line that rewrites itself while waiting (stderr, TTY only) */
static void pj_wait_progress(const json_object *job, double elapsed, bool end, void *arg)
{
	char line[256];

	(void) arg;
	if (end) {
		fputc('\n', stderr);
		return;
	}
	pj_summary(job, line, sizeof(line));
	fprintf(stderr, "\r\033[Kwaiting for pipeline job [%s] %.0fs: %s",
		mdc_pr_basename(mdc_json_get_str(job, "name", "?")), elapsed, line);
	fflush(stderr);
}

/* Tasks that ran on on-demand resources say so in their status history. */
static void pj_print_fallbacks(const json_object *job)
{
	json_object *td = mdc_json_get_arr(mdc_json_get_obj(job, "job_detail"), "task_details");

	for (size_t i = 0; td && i < json_object_array_length(td); i++) {
		json_object *t = json_object_array_get_idx(td, i);
		json_object *hist = mdc_json_get_arr(t, "pipeline_task_status");

		for (size_t h = 0; hist && h < json_object_array_length(hist); h++) {
			json_object *st = json_object_array_get_idx(hist, h);
			const char *msg = mdc_json_get_str(mdc_json_get_obj(st, "error"), "message", NULL);

			if (msg && !strcmp(mdc_json_get_str(st, "state", ""), "RUNNING"))
				printf("task %s: %s\n", mdc_json_get_str(t, "task_name", "?"), msg);
		}
	}
}

static int pj_wait(struct mdcctl *g, int argc, char **argv)
{
	static const struct option opts[] = { PR_COMMON_OPTS, { NULL, 0, NULL, 0 } };
	struct mdc_pr_wait_opts wo = { 0 };
	struct mdc_settings s = { 0 };
	struct mdc_client *c = NULL;
	struct mdc_ctx ctx;
	json_object *job = NULL;
	char *name = NULL, line[256];
	int opt, rc = 0;

	mdc_ctx_clear(&ctx);
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (!pr_common(g, opt, &rc)) {
			if (rc)
				goto out;
			continue;
		}
		rc = opt == 'h' ? 0 : 2;
		fprintf(rc ? stderr : stdout, "usage: mdcctl pipelines wait JOB_ID|NAME "
			"[--project=P] [--region=L] [--format=text|json]\n"
			"exits 0 when the run SUCCEEDED, non-zero when it FAILED or was CANCELLED\n");
		goto out;
	}
	if (optind != argc - 1) {
		rc = mdcctl_usage(g, "pipelines wait: give one pipeline job (id or full name)");
		goto out;
	}
	if (mdcctl_settings(g, false, &s, &ctx) ||
	    !(name = pr_full_name(&s, "pipelineJobs", argv[optind], &ctx)) ||
	    mdc_client_new(&s, &c, &ctx))
		goto fail;
	wo.timeout_s = g->timeout;
	wo.interrupted = &mdcctl_interrupted;
	if (isatty(STDERR_FILENO) == 1 && g->format == MDCCTL_TEXT)
		wo.progress = pj_wait_progress;
	rc = mdc_pr_job_wait(c, name, &wo, &job, &ctx);
	if (job && g->format == MDCCTL_JSON) {
		mdc_json_del(job, "pipeline_spec");
		pr_print_json(job);
	} else if (job && (!rc || rc == MDC_ERR_OPFAILED)) {
		pj_summary(job, line, sizeof(line));
		printf("Pipeline job [%s]: %s.\n", name, line);
		pj_print_fallbacks(job);
	}
	if (rc)
		goto fail;
	goto out;
fail:
	rc = mdcctl_fail(g, &ctx);
out:
	json_object_put(job);
	free(name);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

static int pj_list(struct mdcctl *g, int argc, char **argv)
{
	json_object *all;
	int rc = pr_fetch_list(g, argc, argv, "mdcctl pipelines list [--project=P] "
			       "[--region=L] [--filter=EXPR] [--sort-by=[~]FIELD,...] "
			       "[--page-size=N] [--format=text|json]",
			       PJ_API, "pipelineJobs", "pipeline_jobs", &all);

	if (rc >= 0)
		return rc;
	rc = 0;
	if (g->format == MDCCTL_JSON) {
		/* the specs are large and the list is for finding runs */
		for (size_t i = 0; i < json_object_array_length(all); i++)
			mdc_json_del(json_object_array_get_idx(all, i), "pipeline_spec");
		pr_print_json(all);
		goto out;
	}
	if (!json_object_array_length(all)) {
		printf("Listed 0 items.\n");
		goto out;
	}
	printf("%-40s %-26s %-24s %s\n", "JOB_ID", "STATE", "DISPLAY_NAME", "PERSISTENT_RESOURCE");
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *j = json_object_array_get_idx(all, i);
		json_object *d = mdc_json_get_path(j, "runtime_config.default_runtime."
						   "persistent_resource_runtime_detail");

		printf("%-40s %-26s %-24s %s\n", mdc_pr_basename(mdc_json_get_str(j, "name", "")),
		       mdc_json_get_str(j, "state", "-"), mdc_json_get_str(j, "display_name", "-"),
		       mdc_pr_basename(mdc_json_get_str(d, "persistent_resource_name", "-")));
	}
out:
	json_object_put(all);
	return rc;
}

int cmd_pipelines(struct mdcctl *g, int argc, char **argv)
{
	static const struct pr_sub subs[] = {
		{ "cancel", pj_cancel },
		{ "delete", pj_delete },
		{ "describe", pj_describe },
		{ "list", pj_list },
		{ "run", pj_run },
		{ "wait", pj_wait },
	};

	return pr_dispatch(g, argc, argv, subs, sizeof(subs) / sizeof(subs[0]));
}
