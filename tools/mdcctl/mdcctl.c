/* mdcctl - the managed-cluster client.  Global options, then one command
 * from the sorted table below. */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_format.h"
#include "mdc_json.h"
#include "mdc_live.h"
#include "mdc_log.h"
#include "mdc_proc.h"
#include "mdc_rules.h"
#include "mdc_str.h"
#include "sc_options.h"
#include "mdcctl.h"

volatile sig_atomic_t mdcctl_interrupted;

/* OWN_HELP: the command prints its own --help; for the others main()
 * prints USAGE when -h/--help follows the command. */
static const struct mdcctl_cmd {
	const char *name;
	mdcctl_fn fn;
	const char *help;
	const char *usage;
	bool own_help;
} mdcctl_cmds[] = {
	{ "apply", cmd_apply, "plan, confirm, PATCH, wait and verify a slurm.conf", NULL, true },
	{ "conf", cmd_conf, "check or dump slurm.conf files (no cluster needed)",
	  "mdcctl conf check [--lenient] [--template] FILE...\n       mdcctl conf dump FILE", false },
	{ "config", cmd_config, "cluster-scope Slurm settings: show|get|set|unset",
	  "mdcctl config show|get KEY|set KEY=VALUE...|unset KEY...\n"
	  "unset removes settings: it asks on a terminal, else needs --yes", false },
	{ "create", cmd_create, "create a cluster from a JSON file", "mdcctl --cluster NAME create FILE", false },
	{ "delete", cmd_delete, "delete the cluster", "mdcctl delete [--yes]", false },
	{ "describe", cmd_describe, "show the cluster resource",
	  "mdcctl describe [--format text|json|yaml|value(FIELD,...)]", false },
	{ "drift", cmd_drift, "runtime changes the next regeneration would lose", NULL, true },
	{ "edit", cmd_edit, "edit the live slurm.conf and apply the difference", NULL, true },
	{ "epilog", cmd_epilog, "epilog_bash_scripts: list|add|remove|replace",
	  "mdcctl epilog list|add FILE|remove INDEX|replace FILE...", false },
	{ "history", cmd_history, "the writes mdcd recorded (needs the broker)",
	  "mdcctl history [--all]", false },
	{ "jobs", cmd_jobs, "job wait policy: list|enforce (local slurmctld, no cluster needed)",
	  NULL, true },
	{ "labels", cmd_labels, "cluster labels: list|set|unset",
	  "mdcctl labels list|set KEY=VALUE...|unset KEY...", false },
	{ "list", cmd_list, "list the clusters of a project and region",
	  "mdcctl list [--format text|json|yaml|value(FIELD,...)]", false },
	{ "migrate-config", cmd_migrate_config, "move scheduling/accounting into config",
	  "mdcctl migrate-config", false },
	{ "nodepool", cmd_nodepool, "node pools: list|show|scale|image",
	  "mdcctl nodepool list|show ID|scale ID --min N --max M|image ID --pin IMAGE|image ID --unpin", false },
	{ "nodeset", cmd_nodeset, "node-pool-scope Slurm settings: show|set|unset",
	  "mdcctl nodeset show POOL|set POOL KEY=VALUE...|unset POOL KEY...\n"
	  "unset removes settings: it asks on a terminal, else needs --yes", false },
	{ "operations", cmd_operations, "long-running operations: describe|wait",
	  "mdcctl operations describe|wait NAME", false },
	{ "partition", cmd_partition, "partitions: list|show|create|update|unset|delete|default",
	  "mdcctl partition list|show ID|create ID --node-pools A,B [KEY=VALUE...]|\n"
	  "       update ID [--node-pools A,B] KEY=VALUE...|unset ID KEY...|delete ID|default ID\n"
	  "delete and unset remove settings: they ask on a terminal, else need --yes;\n"
	  "a partition that still holds jobs is not deleted without --force", false },
	{ "persistent-resources", cmd_persistent_resources, "Vertex AI persistent resources", NULL, true },
	{ "pipelines", cmd_pipelines, "pipeline runs on a persistent resource", NULL, true },
	{ "plan", cmd_plan, "show what applying a slurm.conf would change", NULL, true },
	{ "prolog", cmd_prolog, "prolog_bash_scripts: list|add|remove|replace",
	  "mdcctl prolog list|add FILE|remove INDEX|replace FILE...", false },
	{ "render", cmd_render, "print the slurm.conf the managed spec generates", NULL, true },
	{ "rollback", cmd_rollback, "return to the spec before write N (needs the broker)",
	  "mdcctl rollback N [--yes]", false },
	{ "update", cmd_update, "raw PATCH from a JSON file with an explicit mask",
	  "mdcctl update FILE --update-mask PATHS [--update-mode MODE]", false },
};

static void mdcctl_help(FILE *f)
{
	fprintf(f,
		"usage: mdcctl [OPTIONS] COMMAND [ARGS...]\n"
		"\n"
		"Options:\n"
		"  --endpoint URL        API endpoint (MDC_ENDPOINT)\n"
		"  --cluster NAME        projects/P/locations/R/modelDevelopmentClusters/C,\n"
		"                        or an id with --project and --region (MDC_CLUSTER)\n"
		"  --project P, --region R\n"
		"  --format FORMAT       text (default), json, yaml or value(FIELD,...)\n"
		"  --update-mode MODE    USER_ONLY (default) or USER_AND_SERVICE\n"
		"  -y, --yes, -q, --quiet\n"
		"                        do not ask for confirmation (gcloud's --quiet)\n"
		"  --force               delete or rename partitions that still hold jobs\n"
		"  --async               do not wait for operations; print their names\n"
		"  --no-wait             fail instead of waiting while the cluster is UPDATING\n"
		"  --allow-recreate      allow changes that move a node pool's image\n"
		"  --timeout SECONDS     how long to wait for an operation (default 3600)\n"
		"  -v, --verbose         more messages on stderr\n"
		"  -h, --help            this help\n"
		"  -V, --version         version\n"
		"\nCommands:\n");
	for (size_t i = 0; i < sizeof(mdcctl_cmds) / sizeof(mdcctl_cmds[0]); i++)
		fprintf(f, "  %-22s%s\n", mdcctl_cmds[i].name, mdcctl_cmds[i].help);
	fprintf(f, "\nGlobal options may also follow the command.  See mdcctl(1).\n");
}

int mdcctl_fail(struct mdcctl *g, const struct mdc_ctx *ctx)
{
	/* API errors already read "STATUS: message" */
	fprintf(stderr, "%s: error: %s\n", g->progname,
		ctx->msg[0] ? ctx->msg : mdc_strerror(ctx->err));
	return mdc_exit_code(ctx->err ? ctx->err : MDC_ERR_INTERNAL);
}

int mdcctl_usage(struct mdcctl *g, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", g->progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return mdc_exit_code(MDC_ERR_USAGE);
}

int mdcctl_finish(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "mdcctl: error: cannot write output: %s\n", strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

static int mdcctl_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct mdcctl_cmd *) elem)->name);
}

static int mdcctl_set(char **dst, const char *val)
{
	free(*dst);
	*dst = strdup(val);
	return *dst ? 0 : -1;
}

int mdcctl_settings(struct mdcctl *g, bool need_cluster, struct mdc_settings *s,
		    struct mdc_ctx *ctx)
{
	int rc;

	memset(s, 0, sizeof(*s));
	if ((rc = mdc_settings_load(s, ctx)))
		return rc;
	/* the command line beats the environment and the file */
	if ((g->endpoint && mdc_settings_set(&s->endpoint, g->endpoint)) ||
	    (g->project && mdc_settings_set(&s->project, g->project)) ||
	    (g->region && mdc_settings_set(&s->region, g->region)) ||
	    (g->cluster && mdc_settings_set(&s->cluster, g->cluster)))
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	if (g->cluster_id) {
		if (mdc_settings_set(&s->cluster_id, g->cluster_id))
			return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
		mdc_settings_set(&s->cluster, NULL);
	}
	if ((rc = mdc_settings_resolve(s, need_cluster, ctx)))
		return rc;
	if (s->slurm_conf && mdcctl_set(&g->slurm_conf, s->slurm_conf))
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	return 0;
}

int mdcctl_connect(struct mdcctl *g, bool need_cluster, struct mdc_settings *s,
		   struct mdc_client **c, struct mdc_ctx *ctx)
{
	int rc;

	*c = NULL;
	if ((rc = mdcctl_settings(g, need_cluster, s, ctx)))
		return rc;
	return mdc_client_new(s, c, ctx);
}

/* The LRO progress line on a terminal: one line updated in place. */
static void mdcctl_progress(double elapsed, const char *msg, bool end, void *arg)
{
	(void) arg;
	if (msg || !end)
		fprintf(stderr, "\r\033[K[%3.0fs] %s", elapsed, msg ? msg : "waiting for the operation");
	if (end)
		fputc('\n', stderr);
	fflush(stderr);
}

/* The plan's question about jobs in a partition it removes: the live
 * slurmctld of the slurm.conf the settings name. */
static int mdcctl_partition_jobs(const char *partition, struct mdc_strv *jobs, void *arg,
				 struct mdc_ctx *ctx)
{
	struct mdcctl *g = arg;

	return mdc_live_partition_jobs(g->slurm_conf, partition, jobs, ctx);
}

int mdcctl_update_opts(struct mdcctl *g, struct mdc_update_opts *o, struct mdc_ctx *ctx)
{
	int mode = MDC_MODE_USER_ONLY;

	memset(o, 0, sizeof(*o));
	if (g->update_mode) {
		mode = !strcmp(g->update_mode, "USER_AND_SERVICE") ? MDC_MODE_USER_AND_SERVICE :
		       !strcmp(g->update_mode, "USER_ONLY") ? MDC_MODE_USER_ONLY : -1;
		if (mode < 0)
			return mdc_fail(ctx, MDC_ERR_USAGE, "--update-mode '%s': use USER_ONLY or "
					"USER_AND_SERVICE", g->update_mode);
	}
	o->plan.mode = (enum mdc_update_mode) mode;
	o->plan.allow_recreate = g->allow_recreate;
	o->plan.partition_jobs = mdcctl_partition_jobs;
	o->plan.partition_jobs_arg = g;
	o->plan.force = g->force;
	o->no_wait = g->no_wait;
	o->async = g->async;
	o->lro.timeout_s = g->timeout;
	o->lro.progress = isatty(STDERR_FILENO) == 1;
	o->lro.interrupted = &mdcctl_interrupted;
	o->lro.progress_fn = mdcctl_progress;
	return 0;
}

/* --format: set once by main() before any command runs */
static struct mdc_format mdcctl_out = MDC_FORMAT_INIT;

void mdcctl_print_json(const json_object *obj)
{
	struct mdc_buf b = MDC_BUF_INIT;

	if (mdc_format_write(&mdcctl_out, obj, &b))
		fprintf(stderr, "mdcctl: error: out of memory\n");
	else
		fputs(mdc_buf_str(&b), stdout);
	mdc_buf_free(&b);
}

void mdcctl_print_resource(const json_object *obj)
{
	json_object *camel = obj ? mdc_json_normalize(obj, MDC_CASE_CAMEL) : NULL;

	mdcctl_print_json(camel ? camel : obj);
	json_object_put(camel);
}

bool mdcctl_confirm(struct mdcctl *g, const char *question)
{
	char line[64];

	if (g->yes)
		return true;
	if (!isatty(STDIN_FILENO))
		return false;
	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	mdc_trim(line);
	return !strcasecmp(line, "y") || !strcasecmp(line, "yes");
}

int mdcctl_split_kv(const char *arg, char **key, const char **value, struct mdc_ctx *ctx)
{
	const char *eq = strchr(arg, '=');

	*key = NULL;
	*value = NULL;
	if (!eq || eq == arg)
		return mdc_fail(ctx, MDC_ERR_USAGE, "'%s': expected KEY=VALUE", arg);
	if (!(*key = strndup(arg, (size_t) (eq - arg))))
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	*value = eq + 1;
	return 0;
}

/* The shared rule (mdc_rules_check_setting) plus one CLI hint: "KEY="
 * is almost always a mistaken unset. */
int mdcctl_check_kv(const char *key, const char *value, unsigned scope, const char *where,
		    struct mdc_ctx *ctx)
{
	const struct sc_option *opt;
	int rc;

	if ((rc = mdc_rules_check_setting(key, value, scope, where, &opt, ctx)))
		return rc;
	if (value && !*value)
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s: '%s' needs a value (to remove it use unset)",
				where, opt->name);
	return 0;
}

static void mdcctl_print_op_started(const char *name)
{
	printf("operation: %s\n", name);
	printf("wait for it with: mdcctl operations wait %s\n", name);
}

int mdcctl_finish_op(struct mdcctl *g, struct mdc_client *c, json_object *op)
{
	struct mdc_update_opts uo;
	struct mdc_ctx ctx;
	json_object *done = NULL;
	const char *name = mdc_json_get_str(op, "name", NULL);
	int rc;

	mdc_ctx_clear(&ctx);
	if (!name || g->async || mdc_json_get_bool(op, "done", false)) {
		json_object *err = mdc_json_get_obj(op, "error");

		if (g->format == MDCCTL_JSON)
			mdcctl_print_json(op);
		else if (name && !mdc_json_get_bool(op, "done", false))
			mdcctl_print_op_started(name);
		else
			printf("done%s%s\n", name ? ": " : "", name ? name : "");
		if (err && mdc_json_get_int(err, "code", 0)) {
			mdc_fail(&ctx, MDC_ERR_OPFAILED, "operation '%s' failed: %s", name ? name : "?",
				 mdc_json_get_str(err, "message", "?"));
			return mdcctl_fail(g, &ctx);
		}
		return 0;
	}
	if ((rc = mdcctl_update_opts(g, &uo, &ctx)))
		return mdcctl_fail(g, &ctx);
	rc = mdc_lro_wait(c, name, &uo.lro, &done, &ctx);
	if (done && g->format == MDCCTL_JSON)
		mdcctl_print_json(done);
	else if (!rc)
		printf("done: %s\n", name);
	json_object_put(done);
	return rc ? mdcctl_fail(g, &ctx) : 0;
}

/* Set while a destructive command (partition delete, unset) runs. */
static bool mdcctl_destructive;

static bool mdcctl_confirm_plan(const struct mdc_plan *plan, void *arg)
{
	struct mdcctl *g = arg;
	struct mdc_buf b = MDC_BUF_INIT;
	bool yes;

	/* changes that recreate nodes or remove settings are worth a question */
	if ((!plan->recreate.n && !mdcctl_destructive) || g->yes || mdc_plan_empty(plan))
		return true;
	if (!isatty(STDIN_FILENO))
		return false;	/* mdcctl_update says why */
	mdc_plan_format(plan, &b);
	fputs(mdc_buf_str(&b), stderr);
	mdc_buf_free(&b);
	yes = mdcctl_confirm(g, plan->recreate.n ? "This may recreate the nodes of the pools above. Apply?" :
			     "This removes what is listed above. Apply?");
	return yes;
}

/* After the operation: what it did to the node pools, from its own
 * record (VM_DELETION events), when a move was possible or happened. */
static void mdcctl_print_recreated(const struct mdc_plan *plan, const json_object *op)
{
	struct mdc_strv done = MDC_STRV_INIT;
	char *list;

	if (mdc_plan_op_recreated(op, &done) || (!plan->recreate.n && !done.n))
		goto out;
	if (!done.n) {
		printf("node pools recreated: none (the operation reported no VM_DELETION event)\n");
	} else if ((list = mdc_strv_join(&done, ", "))) {
		printf("node pools recreated: %s (VM_DELETION events of the operation)\n", list);
		free(list);
	}
out:
	mdc_strv_free(&done);
}

int mdcctl_update(struct mdcctl *g, const struct mdc_intent *in, const char *what)
{
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_update_opts uo;
	struct mdc_plan plan;
	struct mdc_buf b = MDC_BUF_INIT;
	json_object *op = NULL, *out = NULL;
	struct mdc_ctx ctx;
	int rc;

	memset(&plan, 0, sizeof(plan));
	mdc_ctx_clear(&ctx);
	if ((rc = mdcctl_connect(g, true, &s, &c, &ctx)) || (rc = mdcctl_update_opts(g, &uo, &ctx)))
		goto out;
	uo.confirm = mdcctl_confirm_plan;
	uo.confirm_arg = g;
	rc = mdc_update_run(c, &s, in, &uo, &plan, &op, &ctx);
	if (rc == MDC_ERR_REFUSED && plan.recreate.n && !g->yes && !isatty(STDIN_FILENO)) {
		mdc_ctx_clear(&ctx);
		mdc_fail(&ctx, MDC_ERR_REFUSED, "%s: recreating the nodes of node pool '%s' needs a "
			 "confirmation and there is no terminal: give --yes; nothing was sent",
			 what, plan.recreate.v[0]);
	} else if (rc == MDC_ERR_REFUSED && mdcctl_destructive && !plan.refusals.n && !g->yes &&
		   !isatty(STDIN_FILENO)) {
		mdc_ctx_clear(&ctx);
		mdc_fail(&ctx, MDC_ERR_REFUSED, "%s: this removes settings and needs a confirmation, "
			 "and there is no terminal to ask on: give --yes; nothing was sent", what);
	}
	for (size_t i = 0; i < plan.warnings.n; i++)
		fprintf(stderr, "%s: warning: %s\n", g->progname, plan.warnings.v[i]);
	if (g->format == MDCCTL_JSON) {
		if (!(out = json_object_new_object()) ||
		    json_object_object_add(out, "plan", mdc_plan_to_json(&plan)) ||
		    json_object_object_add(out, "operation", op ? json_object_get(op) : NULL)) {
			rc = mdc_fail(&ctx, MDC_ERR_NOMEM, "out of memory");
			goto out;
		}
		mdcctl_print_json(out);
	} else if (!rc || rc == MDC_ERR_OPFAILED || rc == MDC_ERR_TIMEOUT ||
		   rc == MDC_ERR_INTERRUPTED || rc == MDC_ERR_LOST) {
		const char *name = mdc_json_get_str(op, "name", NULL);

		if (mdc_plan_empty(&plan)) {
			/* an empty plan after Ctrl-C means "never looked", not "no change" */
			if (!rc)
				printf("%s: no change (the cluster already has it)\n", what);
		} else {
			mdc_plan_format(&plan, &b);
			fputs(mdc_buf_str(&b), stdout);
			if (!rc && g->async && name && !mdc_json_get_bool(op, "done", false))
				mdcctl_print_op_started(name);
			else if (!rc)
				printf("%s: updated\n", what);
			if (!rc && mdc_json_get_bool(op, "done", false))
				mdcctl_print_recreated(&plan, op);
		}
	}
out:
	rc = rc ? mdcctl_fail(g, &ctx) : 0;
	json_object_put(out);
	json_object_put(op);
	mdc_buf_free(&b);
	mdc_plan_free(&plan);
	mdc_client_free(c);
	mdc_settings_free(&s);
	return rc;
}

int mdcctl_update_destructive(struct mdcctl *g, const struct mdc_intent *in, const char *what)
{
	int rc;

	mdcctl_destructive = true;
	rc = mdcctl_update(g, in, what);
	mdcctl_destructive = false;
	return rc;
}

static void mdcctl_on_sigint(int sig)
{
	(void) sig;
	mdcctl_interrupted = 1;
}

/* Global options, accepted before and after the command (the command's
 * own options never share these names); after the command, --help,
 * --version and the short forms belong to the command. */
enum { O_ENDPOINT = 256, O_CLUSTER, O_PROJECT, O_REGION, O_FORMAT, O_YES, O_ASYNC,
       O_MODE, O_NOWAIT, O_RECREATE, O_TIMEOUT, O_VERBOSE, O_HELP, O_VERSION, O_FORCE };
static const struct mdcctl_gopt {
	const char *name;
	int id;
	bool arg;
} mdcctl_gopts[] = {
	{ "--endpoint", O_ENDPOINT, true }, { "--cluster", O_CLUSTER, true },
	{ "--project", O_PROJECT, true }, { "--region", O_REGION, true },
	{ "--format", O_FORMAT, true }, { "--yes", O_YES, false }, { "-y", O_YES, false },
	{ "--quiet", O_YES, false }, { "-q", O_YES, false }, { "--force", O_FORCE, false },
	{ "--async", O_ASYNC, false }, { "--update-mode", O_MODE, true },
	{ "--no-wait", O_NOWAIT, false }, { "--allow-recreate", O_RECREATE, false },
	{ "--timeout", O_TIMEOUT, true }, { "--verbose", O_VERBOSE, false },
	{ "-v", O_VERBOSE, false }, { "--help", O_HELP, false }, { "-h", O_HELP, false },
	{ "--version", O_VERSION, false }, { "-V", O_VERSION, false },
};

/* Apply one global option; returns -1 to go on, else an exit status. */
static int mdcctl_gopt_apply(struct mdcctl *g, int id, const char *val)
{
	char *end;

	switch (id) {
	case O_ENDPOINT: mdcctl_set(&g->endpoint, val); break;
	case O_CLUSTER:
		if (strchr(val, '/'))
			mdcctl_set(&g->cluster, val);
		else
			mdcctl_set(&g->cluster_id, val);
		break;
	case O_PROJECT: mdcctl_set(&g->project, val); break;
	case O_REGION: mdcctl_set(&g->region, val); break;
	case O_FORMAT: {
		struct mdc_ctx ctx;

		mdc_ctx_clear(&ctx);
		if (mdc_format_parse(val, &mdcctl_out, &ctx))
			return mdcctl_fail(g, &ctx);
		g->format = mdcctl_out.kind == MDC_FORMAT_TEXT ? MDCCTL_TEXT : MDCCTL_JSON;
		break;
	}
	case O_FORCE: g->force = true; break;
	case O_YES: g->yes = true; break;
	case O_ASYNC: g->async = true; break;
	case O_MODE:
		if (strcmp(val, "USER_ONLY") && strcmp(val, "USER_AND_SERVICE"))
			return mdcctl_usage(g, "--update-mode '%s': use USER_ONLY or USER_AND_SERVICE", val);
		mdcctl_set(&g->update_mode, val);
		break;
	case O_NOWAIT: g->no_wait = true; break;
	case O_RECREATE: g->allow_recreate = true; break;
	case O_TIMEOUT:
		g->timeout = strtod(val, &end);
		if (end == val || *end || !(g->timeout > 0))
			return mdcctl_usage(g, "--timeout '%s': give seconds, > 0", val);
		break;
	case O_VERBOSE: g->verbose = true; mdc_log_set_level(MDC_LOG_DEBUG); break;
	case O_HELP: mdcctl_help(stdout); return mdcctl_finish(0);
	case O_VERSION:
		printf("mdcctl (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return mdcctl_finish(0);
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct mdcctl g = { .progname = "mdcctl" };
	const struct mdcctl_cmd *cmd;
	struct sigaction sa;
	char **args = calloc((size_t) argc + 1, sizeof(*args));
	int nargs = 0, rc = 0;
	bool dashdash = false;
	const char *env;

	mdc_log_init(g.progname);
	/* it may hold a token: no core file, no ptrace by the same user */
	if (mdc_no_core_dumps(NULL))
		fprintf(stderr, "mdcctl: warning: cannot disable core dumps\n");
	if (!args) {
		fprintf(stderr, "mdcctl: error: out of memory\n");
		return 1;
	}
	if ((env = getenv("MDC_CONF")) && *env)
		mdcctl_set(&g.conf_path, env);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		const struct mdcctl_gopt *o = NULL;
		size_t n;

		if (dashdash || a[0] != '-' || !a[1]) {
			args[nargs++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = true;
			if (nargs)	/* after the command: the command sees it */
				args[nargs++] = argv[i];
			continue;
		}
		eq = strchr(a, '=');
		n = eq ? (size_t) (eq - a) : strlen(a);
		for (size_t k = 0; k < sizeof(mdcctl_gopts) / sizeof(mdcctl_gopts[0]); k++)
			if (strlen(mdcctl_gopts[k].name) == n && !strncmp(a, mdcctl_gopts[k].name, n))
				o = &mdcctl_gopts[k];
		/* after the command, -h/--help/--version and short flags are its own */
		if (o && nargs && (o->id == O_HELP || o->id == O_VERSION || a[1] != '-'))
			o = NULL;
		if (!o) {
			if (nargs) {	/* the command's own option */
				args[nargs++] = argv[i];
				continue;
			}
			fprintf(stderr, "mdcctl: error: unknown option '%s'\nTry 'mdcctl --help'.\n", a);
			rc = mdc_exit_code(MDC_ERR_USAGE);
			goto out;
		}
		if (o->arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				rc = mdcctl_usage(&g, "option '%s' needs a value", o->name);
				goto out;
			}
		} else if (eq) {
			rc = mdcctl_usage(&g, "option '%s' takes no value", o->name);
			goto out;
		}
		if ((rc = mdcctl_gopt_apply(&g, o->id, val)) >= 0)
			goto out;
		rc = 0;
	}
	if (nargs == 0) {
		mdcctl_help(stderr);
		rc = mdc_exit_code(MDC_ERR_USAGE);
		goto out;
	}
	cmd = bsearch(args[0], mdcctl_cmds, sizeof(mdcctl_cmds) / sizeof(mdcctl_cmds[0]),
		      sizeof(mdcctl_cmds[0]), mdcctl_cmp);
	if (!cmd) {
		rc = mdcctl_usage(&g, "unknown command '%s' (see mdcctl --help)", args[0]);
		goto out;
	}
	if (!cmd->own_help)
		for (int i = 1; i < nargs && strcmp(args[i], "--"); i++)
			if (!strcmp(args[i], "-h") || !strcmp(args[i], "--help")) {
				printf("usage: %s\n", cmd->usage);
				rc = mdcctl_finish(0);
				goto out;
			}
	/* Ctrl-C while waiting stops the wait cleanly; a second one kills */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = mdcctl_on_sigint;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	mdc_intr_watch(&mdcctl_interrupted);
	rc = cmd->fn(&g, nargs, args);
	rc = mdcctl_finish(rc);
out:
	free(args);
	free(g.endpoint);
	free(g.cluster);
	free(g.project);
	free(g.region);
	free(g.cluster_id);
	free(g.update_mode);
	free(g.conf_path);
	free(g.slurm_conf);
	mdc_format_free(&mdcctl_out);
	return rc;
}
