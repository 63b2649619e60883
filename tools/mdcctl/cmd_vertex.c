/* cmd_vertex.c - see cmd_vertex.h.  (owner: pr) */
#include "config.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_lro.h"
#include "cmd_vertex.h"

const struct option vx_common_opts[] = { VX_COMMON_OPTS, VX_END_OPTS };
const struct option vx_yes_opts[] = {
	VX_COMMON_OPTS,
	{ "yes", no_argument, NULL, O_YES },
	{ "quiet", no_argument, NULL, 'q' },
	VX_END_OPTS,
};

/* Where each option of a subcommand goes in struct vx_args. */
enum vx_kind { VX_STR, VX_LIST, VX_FLAG };
static const struct vx_field {
	int id;
	enum vx_kind kind;
	size_t off;
} vx_fields[] = {
	{ O_ID, VX_STR, offsetof(struct vx_args, id) },
	{ O_DISPLAY_NAME, VX_STR, offsetof(struct vx_args, display_name) },
	{ O_CONFIG, VX_STR, offsetof(struct vx_args, config) },
	{ O_NETWORK, VX_STR, offsetof(struct vx_args, network) },
	{ O_PIPELINE, VX_STR, offsetof(struct vx_args, pipeline) },
	{ O_RESOURCE, VX_STR, offsetof(struct vx_args, resource) },
	{ O_WAIT_TIME, VX_STR, offsetof(struct vx_args, wait_time) },
	{ O_ON_TIMEOUT, VX_STR, offsetof(struct vx_args, on_timeout) },
	{ O_ROOT, VX_STR, offsetof(struct vx_args, root) },
	{ O_JOB_ID, VX_STR, offsetof(struct vx_args, job_id) },
	{ O_FILTER, VX_STR, offsetof(struct vx_args, filter) },
	{ O_SORT_BY, VX_STR, offsetof(struct vx_args, sort_by) },
	{ O_POOL, VX_LIST, offsetof(struct vx_args, pools) },
	{ O_LABELS, VX_LIST, offsetof(struct vx_args, labels) },
	{ O_PARAM, VX_LIST, offsetof(struct vx_args, params) },
	{ O_UPDATE_LABELS, VX_LIST, offsetof(struct vx_args, update_labels) },
	{ O_REMOVE_LABELS, VX_LIST, offsetof(struct vx_args, remove_labels) },
	{ O_CUSTOM_SA, VX_FLAG, offsetof(struct vx_args, custom_sa) },
	{ O_DRY_RUN, VX_FLAG, offsetof(struct vx_args, dry_run) },
	{ O_CLEAR_LABELS, VX_FLAG, offsetof(struct vx_args, clear_labels) },
};

/* "out of memory" as the exit status, in R's context too */
static int vx_nomem(struct vx_run *r)
{
	mdc_nomem(&r->ctx);
	return mdcctl_fail(r->g, &r->ctx);
}

/* The options that set mdcctl's globals; 1 if OPT is not one of them,
 * else 0, or an exit status through *RC. */
static int vx_global(struct vx_run *r, int opt, int *rc)
{
	char *end;

	switch (opt) {
	case O_PROJECT:
	case O_REGION:
		if (mdc_settings_set(opt == O_PROJECT ? &r->g->project : &r->g->region, optarg))
			*rc = vx_nomem(r);
		return 0;
	case O_ASYNC:
		r->g->async = true;
		return 0;
	case O_PAGE_SIZE:
		r->a.page_size = strtol(optarg, &end, 10);
		if (*end || r->a.page_size < 1 || r->a.page_size > 1000)
			*rc = mdcctl_usage(r->g, "--page-size '%s': give 1 to 1000", optarg);
		return 0;
	case O_YES:
	case 'q':
		r->g->yes = true;
		return 0;
	default:
		return 1;
	}
}

/* OPT into R->a by the field table (every option of a table has one). */
static void vx_store(struct vx_run *r, int opt, int *rc)
{
	for (size_t i = 0; i < sizeof(vx_fields) / sizeof(vx_fields[0]); i++) {
		char *p = (char *) &r->a + vx_fields[i].off;

		if (vx_fields[i].id != opt)
			continue;
		switch (vx_fields[i].kind) {
		case VX_STR: *(const char **) (void *) p = optarg; break;
		case VX_FLAG: *(bool *) (void *) p = true; break;
		case VX_LIST:
			if (mdc_strv_push((struct mdc_strv *) (void *) p, optarg))
				*rc = vx_nomem(r);
			break;
		}
		return;
	}
}

/* ARG ("--persistent-resource-id=x") names an --...-id option CMD lacks:
 * gcloud's create takes the ID so, its other verbs as an argument. */
static bool vx_foreign_id_opt(const struct vx_cmd *cmd, const char *arg, size_t *len)
{
	size_t n = strcspn(arg, "=");

	if (strncmp(arg, "--", 2) || n < 6 || strncmp(arg + n - 3, "-id", 3))
		return false;
	for (const struct option *o = cmd->opts; o->name; o++)
		if (strlen(o->name) == n - 2 && !strncmp(o->name, arg + 2, n - 2))
			return false;
	*len = n;
	return true;
}

int vx_begin(struct mdcctl *g, const struct vx_cmd *cmd, int argc, char **argv,
	     struct vx_run *r)
{
	char where[128];
	const char *w = mdcctl_where(g, argv[0], where, sizeof(where));
	int opt, rc = 0;
	size_t n;

	for (int i = 1; cmd->one && i < argc && strcmp(argv[i], "--"); i++)
		if (vx_foreign_id_opt(cmd, argv[i], &n))
			return mdcctl_usage(g, "%s: give the %s as an argument, not as %.*s "
					    "(see mdcctl %s --help)", w, cmd->one, (int) n, argv[i], w);
	memset(r, 0, sizeof(*r));
	r->g = g;
	r->cmd = cmd;
	mdc_ctx_clear(&r->ctx);
	optind = 0;
	while (!rc && (opt = mdcctl_getopt(g, argc, argv, cmd->shortopts, cmd->opts, &rc)) != -1 &&
	       opt != '?') {
		if (opt == 'h') {
			printf("usage: %s\n", cmd->usage);
			return 0;
		}
		if (vx_global(r, opt, &rc))
			vx_store(r, opt, &rc);
	}
	if (rc)
		return rc;
	if (cmd->one && optind != argc - 1)
		return mdcctl_usage(g, "%s: give one %s", w, cmd->one);
	if (!cmd->one && optind < argc)
		return mdcctl_usage(g, "%s: unexpected argument '%s'", w, argv[optind]);
	r->arg = cmd->one ? argv[optind] : NULL;
	return -1;
}

int vx_connect(struct vx_run *r, vx_name_fn name_fn, bool parent)
{
	int rc;

	if ((rc = mdcctl_settings(r->g, false, &r->s, &r->ctx)))
		return rc;
	if (name_fn && (rc = name_fn(r->s.project, r->s.region, r->arg, &r->name, &r->ctx)))
		return rc;
	if (parent && (rc = mdc_vertex_parent(r->s.project, r->s.region, &r->parent, &r->ctx)))
		return rc;
	return mdcctl_client_new(&r->s, &r->c, &r->ctx);
}

int vx_fail(struct vx_run *r)
{
	return mdcctl_fail(r->g, &r->ctx);
}

void vx_end(struct vx_run *r)
{
	mdc_strv_free(&r->a.pools);
	mdc_strv_free(&r->a.labels);
	mdc_strv_free(&r->a.params);
	mdc_strv_free(&r->a.update_labels);
	mdc_strv_free(&r->a.remove_labels);
	free(r->parent);
	free(r->name);
	mdc_client_free(r->c);
	mdc_settings_free(&r->s);
}

int vx_get_run(struct mdcctl *g, const struct vx_get *o, int argc, char **argv)
{
	json_object *resp = NULL;
	struct vx_run r;
	int rc = vx_begin(g, &o->cmd, argc, argv, &r);

	if (rc >= 0)
		goto out;
	rc = 0;
	if (vx_connect(&r, o->name_fn, false) || o->call(r.c, r.name, &resp, &r.ctx))
		rc = vx_fail(&r);
	else if (o->print)
		o->print(&r, resp);
	else
		mdcctl_print_resource(resp);
out:
	json_object_put(resp);
	vx_end(&r);
	return rc;
}

int vx_follow(struct vx_run *r, const json_object *op, const char *note, json_object **done)
{
	struct mdc_lro_opts lo = { 0 };
	bool text = r->g->format == MDCCTL_TEXT;

	*done = NULL;
	if (text && note)
		fputs(note, stdout);
	if (r->g->async) {
		if (!text)
			mdcctl_print_resource(op);
		return 0;
	}
	lo.timeout_s = r->g->timeout;
	lo.progress = isatty(STDERR_FILENO) == 1 && text;
	lo.interrupted = &mdcctl_interrupted;
	return mdc_vertex_op_wait(r->c, op, &lo, done, &r->ctx);
}

int vx_submitted(struct mdc_buf *b, const char *verb, const json_object *op)
{
	const char *name = mdc_json_get_str(op, "name", "?");

	return mdc_buf_addf(b, "Operation to %s PersistentResource [%s] is submitted successfully."
			    "\n\nYou can view the status of your PersistentResource %s operation "
			    "with the command\n\n  $ mdcctl operations describe %s\n\n",
			    verb, name, verb, name) ? MDC_ERR_NOMEM : 0;
}

int vx_write_run(struct mdcctl *g, const struct vx_write *w, int argc, char **argv)
{
	struct mdc_buf note = MDC_BUF_INIT;
	json_object *op = NULL, *done = NULL;
	struct vx_run r;
	char q[600];
	int rc = vx_begin(g, &w->cmd, argc, argv, &r);

	if (rc >= 0)
		goto out;
	rc = 0;
	if (vx_connect(&r, w->name_fn, false))
		goto fail;
	if (w->confirm) {
		snprintf(q, sizeof(q), "delete %s '%s'?", w->noun, r.name);
		if (!mdcctl_confirm(g, q)) {
			rc = mdcctl_usage(g, "not deleting '%s': confirm on a terminal or give --yes",
					  r.name);
			goto out;
		}
	}
	if (w->call(r.c, r.name, &op, &r.ctx))
		goto fail;
	if (w->note(&r, op, &note)) {
		mdc_nomem(&r.ctx);
		goto fail;
	}
	if (vx_follow(&r, op, note.s, &done))
		goto fail;
	if (g->async)
		goto out;
	if (g->format != MDCCTL_TEXT)
		mdcctl_print_resource(done);
	else
		printf("%s %s [%s].\n", w->done_verb, w->noun, r.name);
	goto out;
fail:
	rc = vx_fail(&r);
out:
	json_object_put(done);
	json_object_put(op);
	mdc_buf_free(&note);
	vx_end(&r);
	return rc;
}

bool vx_list_printed(struct mdcctl *g, const json_object *all)
{
	if (g->format != MDCCTL_TEXT)
		mdcctl_print_resource(all);
	else if (!json_object_array_length(all))
		printf("Listed 0 items.\n");
	else
		return false;
	return true;
}

int vx_dispatch(struct mdcctl *g, int argc, char **argv, const struct vx_sub *subs, size_t n)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "usage: mdcctl %s COMMAND [FLAGS]\n\nCommands:", argv[0]);
		for (size_t i = 0; i < n; i++)
			fprintf(f, " %s", subs[i].name);
		fprintf(f, "\n\nSee mdcctl-persistent-resources(1).\n");
		return argc < 2 ? mdc_exit_code(MDC_ERR_USAGE) : 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(argv[1], subs[i].name))
			return subs[i].fn(g, argc - 1, argv + 1);
	return mdcctl_usage(g, "%s: unknown command '%s' (see mdcctl %s --help)", argv[0],
			    argv[1], argv[0]);
}
