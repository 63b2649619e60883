/* mdcctl - the managed-cluster client.  Global options, then one command
 * from the sorted table below. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
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
#include "mdc_lro.h"
#include "mdc_proc.h"
#include "mdc_rules.h"
#include "mdc_str.h"
#include "mdc_update.h"
#include "sc_release.h"
#include "sc_options.h"
#include "mdcctl.h"

volatile sig_atomic_t mdcctl_interrupted;

/* What main() checks for a command before it runs, once for all. */
enum {
	CMD_CLUSTER = 1 << 0,	/* needs a cluster: none is a usage error */
	CMD_WRITES = 1 << 1,	/* takes --update-mode, --no-wait, --allow-recreate, --force */
	CMD_FORMAT = 1 << 2,	/* takes --format */
	CMD_OWN_HELP = 1 << 3,	/* prints its own --help (else main prints USAGE) */
	CMD_REMOTE = 1 << 4,	/* takes --remote (reads through callSlurmRestApi) */
};
#define CMD_W (CMD_CLUSTER | CMD_WRITES | CMD_FORMAT)	/* a scope command */

/* Sorted by name (bsearch).  USAGE: one line per form; lines that do not
 * start with "mdcctl" are notes. */
static const struct mdcctl_cmd {
	const char *name;
	mdcctl_fn fn;
	unsigned flags;
	const char *help;
	const char *usage;
} mdcctl_cmds[] = {
	{ "apply", cmd_apply, CMD_W | CMD_OWN_HELP | CMD_REMOTE, "plan, confirm, PATCH, wait and verify a slurm.conf", NULL },
	{ "conf", cmd_conf, CMD_FORMAT | CMD_OWN_HELP,
	  "check or dump slurm.conf files (no cluster needed)", NULL },
	{ "config", cmd_config, CMD_W, "cluster-scope Slurm settings: show|get|set|unset",
	  "mdcctl config show|get KEY|set KEY=VALUE...|unset KEY...\n"
	  "unset removes settings: it asks on a terminal, else needs --yes" },
	{ "create", cmd_create, CMD_CLUSTER | CMD_FORMAT, "create a cluster from a JSON file",
	  "mdcctl --cluster NAME create FILE|--config FILE [--fallback-profiles FILE2,FILE3...]" },
	{ "delete", cmd_delete, CMD_CLUSTER | CMD_FORMAT, "delete the cluster", "mdcctl delete [--yes]" },
	{ "describe", cmd_describe, CMD_CLUSTER | CMD_FORMAT, "show the cluster resource",
	  "mdcctl describe [--format text|json|yaml|value(FIELD,...)]" },
	{ "drift", cmd_drift, CMD_W | CMD_OWN_HELP | CMD_REMOTE, "runtime changes the next regeneration would lose", NULL },
	{ "edit", cmd_edit, CMD_W | CMD_OWN_HELP, "edit the live slurm.conf and apply the difference", NULL },
	{ "epilog", cmd_epilog, CMD_W, "epilog_bash_scripts: list|add|remove|replace",
	  "mdcctl epilog list|add FILE|remove INDEX|replace FILE..." },
	{ "history", cmd_history, CMD_FORMAT, "the writes mdcd recorded (needs the broker)",
	  "mdcctl history [--all]" },
	{ "jobs", cmd_jobs, CMD_FORMAT | CMD_OWN_HELP | CMD_REMOTE,
	  "job wait policy: list|enforce (local slurmctld, no cluster needed)", NULL },
	{ "labels", cmd_labels, CMD_W, "cluster labels: list|set|unset",
	  "mdcctl labels list|set KEY=VALUE...|unset KEY..." },
	{ "list", cmd_list, CMD_FORMAT, "list the clusters of a project and region",
	  "mdcctl list [--format text|json|yaml|value(FIELD,...)]" },
	{ "migrate-config", cmd_migrate_config, CMD_W, "move scheduling/accounting into config",
	  "mdcctl migrate-config" },
	{ "nodepool", cmd_nodepool, CMD_W, "node pools: list|show|scale|image",
	  "mdcctl nodepool list|show ID|scale ID [--min N] [--max M]|image ID --pin IMAGE|image ID --unpin" },
	{ "nodeset", cmd_nodeset, CMD_W, "node-pool-scope Slurm settings: show|set|unset",
	  "mdcctl nodeset show POOL|set POOL KEY=VALUE...|unset POOL KEY...\n"
	  "unset removes settings: it asks on a terminal, else needs --yes" },
	{ "operations", cmd_operations, CMD_FORMAT, "long-running operations: describe|wait",
	  "mdcctl operations describe|wait NAME|ID" },
	{ "partition", cmd_partition, CMD_W | CMD_REMOTE, "partitions: list|show|create|update|unset|delete|default",
	  "mdcctl partition list|show ID|create ID --node-pools A,B [KEY=VALUE...]|\n"
	  "       update ID [--node-pools A,B] KEY=VALUE...|unset ID KEY...|delete ID|default ID\n"
	  "delete and unset remove settings: they ask on a terminal, else need --yes;\n"
	  "a partition that still holds jobs is not deleted without --force" },
	{ "persistent-resources", cmd_persistent_resources, CMD_FORMAT | CMD_OWN_HELP,
	  "Vertex AI persistent resources", NULL },
	{ "pipelines", cmd_pipelines, CMD_FORMAT | CMD_OWN_HELP, "pipeline runs on a persistent resource", NULL },
	{ "plan", cmd_plan, CMD_W | CMD_OWN_HELP | CMD_REMOTE, "show what applying a slurm.conf would change", NULL },
	{ "prolog", cmd_prolog, CMD_W, "prolog_bash_scripts: list|add|remove|replace",
	  "mdcctl prolog list|add FILE|remove INDEX|replace FILE..." },
	{ "render", cmd_render, CMD_CLUSTER | CMD_FORMAT | CMD_OWN_HELP, "print the slurm.conf the managed spec generates", NULL },
	{ "rollback", cmd_rollback, CMD_W, "return to the spec before write N (needs the broker)",
	  "mdcctl rollback N [--yes]" },
	{ "update", cmd_update, CMD_W, "raw PATCH from a JSON file with an explicit mask",
	  "mdcctl update FILE --update-mask PATHS [--update-mode MODE] [--timeout S] [--no-wait]\n"
	  "       mdcctl update --display-name NAME" },
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
		"%s"
		"  -y, -q, --quiet       the same as --yes (gcloud's --quiet)\n"
		"  --force               delete or rename partitions that still hold jobs\n"
		"  --remote              read the live cluster through the service's Slurm\n"
		"                        REST API, not a local slurmctld (jobs list, drift;\n"
		"                        partition guard and verify of partition, plan, apply)\n"
		"  -v, --verbose         more messages on stderr\n"
		"  -h, --help            this help (COMMAND --help: the command's)\n"
		"  -V, --version         version\n"
		"\nCommands:\n", mdc_updopt_help);
	for (size_t i = 0; i < sizeof(mdcctl_cmds) / sizeof(mdcctl_cmds[0]); i++)
		fprintf(f, "  %-22s%s\n", mdcctl_cmds[i].name, mdcctl_cmds[i].help);
	fprintf(f, "\nGlobal options may also follow the command.  See mdcctl(1).\n");
}

/* A command's usage: its forms, each "usage: "-aligned, then the notes. */
static void mdcctl_cmd_usage(FILE *f, const struct mdcctl_cmd *cmd)
{
	const char *p = cmd->usage;
	bool first = true;

	while (p && *p) {
		size_t n = strcspn(p, "\n");
		bool form = !strncmp(p, "mdcctl", 6) || !strncmp(p, "       ", 7);

		if (form)
			fprintf(f, "%s%.*s\n", first ? "usage: " : !strncmp(p, "mdcctl", 6) ? "   or: " : "",
				(int) n, p);
		else
			fprintf(f, "%.*s\n", (int) n, p);
		first = false;
		p += n + (p[n] == '\n');
	}
}

int mdcctl_fail(struct mdcctl *g, const struct mdc_ctx *ctx)
{
	/* API errors already read "STATUS: message" */
	fprintf(stderr, "%s: error: %s\n", g->progname,
		ctx->msg[0] ? ctx->msg : mdc_strerror(ctx->err));
	return mdc_exit_code(ctx->err ? ctx->err : MDC_ERR_INTERNAL);
}

int mdcctl_nomem(struct mdcctl *g)
{
	struct mdc_ctx ctx;

	mdc_ctx_clear(&ctx);
	mdc_nomem(&ctx);
	return mdcctl_fail(g, &ctx);
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
		return mdc_nomem(ctx);
	if (g->cluster_id) {
		if (mdc_settings_set(&s->cluster_id, g->cluster_id))
			return mdc_nomem(ctx);
		mdc_settings_set(&s->cluster, NULL);
	}
	if ((rc = mdc_settings_resolve(s, need_cluster, ctx)))
		return rc;
	if (s->slurm_conf && mdcctl_set(&g->slurm_conf, s->slurm_conf))
		return mdc_nomem(ctx);
	return 0;
}

int mdcctl_connect(struct mdcctl *g, bool need_cluster, struct mdc_settings *s,
		   struct mdc_client **c, struct mdc_ctx *ctx)
{
	int rc;

	*c = NULL;
	if ((rc = mdcctl_settings(g, need_cluster, s, ctx)))
		return rc;
	return mdcctl_client_new(s, c, ctx);
}

int mdcctl_client_new(const struct mdc_settings *s, struct mdc_client **c, struct mdc_ctx *ctx)
{
	int rc = mdc_client_new(s, c, ctx);

	/* a GET retried for half a minute: a terminal sees why */
	if (!rc)
		mdc_client_set_retry_notices(*c, isatty(2));
	return rc;
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

	if (g->remote)
		return mdcctl_remote_partition_jobs(g, partition, jobs, ctx);
	return mdc_live_partition_jobs(g->slurm_conf, partition, jobs, ctx);
}

/* ... and about jobs on the nodes of a pool it shrinks or removes. */
static int mdcctl_pool_jobs(const char *pool, long keep, struct mdc_strv *jobs, void *arg,
			    struct mdc_ctx *ctx)
{
	struct mdcctl *g = arg;

	/* the pool's NodeSet is in slurm.conf, which slurmrestd does not show */
	if (g->remote)
		return mdc_fail(ctx, MDC_ERR_NOTFOUND, "not seen with --remote: the Slurm REST API "
				"does not show NodeSets");
	return mdc_live_pool_jobs(g->slurm_conf, pool, keep, jobs, ctx);
}

/* ... and about the QOS slurmctld knows. */
static int mdcctl_qos_list(struct mdc_strv *names, bool *have_list, bool *enforced, void *arg,
			   struct mdc_ctx *ctx)
{
	struct mdcctl *g = arg;

	if (g->remote)
		return mdc_fail(ctx, MDC_ERR_NOTFOUND, "not seen with --remote");
	return mdc_live_qos(g->slurm_conf, names, have_list, enforced, ctx);
}

int mdcctl_update_opts(struct mdcctl *g, struct mdc_update_opts *o, struct mdc_ctx *ctx)
{
	(void) ctx;
	mdc_updopt_fill(&g->upd, o);
	o->plan.partition_jobs = mdcctl_partition_jobs;
	o->plan.partition_jobs_arg = g;
	o->plan.pool_jobs = mdcctl_pool_jobs;
	o->plan.pool_jobs_arg = g;
	o->plan.qos_list = mdcctl_qos_list;
	o->plan.qos_list_arg = g;
	o->plan.force = g->force;
	o->lro.progress = isatty(STDERR_FILENO) == 1;
	o->lro.interrupted = &mdcctl_interrupted;
	o->lro.progress_fn = mdcctl_progress;
	return 0;
}

const char *mdcctl_where(const struct mdcctl *g, const char *argv0, char *buf, size_t size)
{
	if (!g->cmd || !strcmp(g->cmd, argv0))
		return argv0;
	snprintf(buf, size, "%s %s", g->cmd, argv0);
	return buf;
}

/* Whether getopt_long's '?' for TOK is "--flag=VALUE" of a flag without
 * a value (optopt is then the flag's val; for a short option its letter). */
static bool mdcctl_valued_flag(const struct option *longopts, const char *tok)
{
	if (!optopt || strncmp(tok, "--", 2) || !strchr(tok, '='))
		return false;
	for (const struct option *o = longopts; o && o->name; o++)
		if (o->val == optopt && o->has_arg == no_argument)
			return true;
	return false;
}

/* The argument that named long option O, just returned by getopt_long:
 * the one before its value when the value came separately. */
static const char *mdcctl_long_token(char **argv, const struct option *o)
{
	if (o->has_arg == required_argument && optind >= 2 && optarg == argv[optind - 1])
		return argv[optind - 2];
	return argv[optind - 1];
}

/* Whether long option O was spelled in full (getopt_long also takes an
 * unambiguous prefix, "--once" as "--on"). */
static bool mdcctl_long_in_full(char **argv, const struct option *o)
{
	const char *t = mdcctl_long_token(argv, o);

	return strncmp(t, "--", 2) || strcspn(t + 2, "=") == strlen(o->name);
}

int mdcctl_getopt(struct mdcctl *g, int argc, char **argv, const char *shortopts,
		  const struct option *longopts, int *rc)
{
	char opts[64], where[128];
	const char *w;
	int c, idx = -1;

	/* ':' first: a missing value is told apart from an unknown option */
	snprintf(opts, sizeof(opts), ":%s", shortopts ? shortopts : "");
	opterr = 0;
	c = getopt_long(argc, argv, opts, longopts, &idx);
	if (c != '?' && c != ':' && (idx < 0 || mdcctl_long_in_full(argv, &longopts[idx])))
		return c;
	w = mdcctl_where(g, argv[0], where, sizeof(where));
	if (c != '?' && c != ':') {
		/* as the global options: an abbreviation is not guessed */
		*rc = mdcctl_usage(g, "%s: unknown option '%.*s' (did you mean '--%s'?)", w,
				   (int) strcspn(mdcctl_long_token(argv, &longopts[idx]), "="),
				   mdcctl_long_token(argv, &longopts[idx]), longopts[idx].name);
		return '?';
	}
	if (c == ':')
		*rc = mdcctl_usage(g, "%s: %s needs a value", w, argv[optind - 1]);
	else if (mdcctl_valued_flag(longopts, argv[optind - 1]))
		*rc = mdcctl_usage(g, "%s: option '%.*s' takes no value", w,
				   (int) strcspn(argv[optind - 1], "="), argv[optind - 1]);
	else if (optopt && optopt < 256 && isprint(optopt))
		*rc = mdcctl_usage(g, "%s: unknown option '-%c'", w, optopt);
	else
		*rc = mdcctl_usage(g, "%s: unknown option '%s'", w, argv[optind - 1]);
	return '?';
}

int mdcctl_operands(struct mdcctl *g, int *argc, char ***argv)
{
	static const struct option none[] = { { NULL, 0, NULL, 0 } };
	int rc = 0;

	while (mdcctl_getopt(g, *argc, *argv, "", none, &rc) == '?' && !rc)
		;
	if (rc)
		return rc;
	/* getopt_long moved the operands after the options it saw */
	(*argv)[optind - 1] = (*argv)[0];
	*argv += optind - 1;
	*argc -= optind - 1;
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
		return mdc_nomem(ctx);
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
/* the confirmation showed the plan (stderr) before the question */
static bool mdcctl_plan_asked;

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
	mdcctl_plan_asked = true;
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

	if (mdc_plan_op_recreated(op, &plan->recreate, &done) || (!plan->recreate.n && !done.n))
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
	bool shows_plan, text_plan, one_terminal = isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
	int rc;

	memset(&plan, 0, sizeof(plan));
	mdc_ctx_clear(&ctx);
	mdcctl_plan_asked = false;
	if ((rc = mdcctl_connect(g, true, &s, &c, &ctx)) || (rc = mdcctl_update_opts(g, &uo, &ctx)))
		goto out;
	uo.confirm = mdcctl_confirm_plan;
	uo.confirm_arg = g;
	rc = mdc_update_run(c, &s, in, &uo, &plan, &op, &ctx);
	if (rc == MDC_ERR_REFUSED && plan.recreate.n && !plan.refusals.n && !g->yes &&
	    !isatty(STDIN_FILENO)) {
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
	/* the outcomes after which the text output shows the plan */
	shows_plan = !rc || rc == MDC_ERR_OPFAILED || rc == MDC_ERR_TIMEOUT ||
		     rc == MDC_ERR_INTERRUPTED || rc == MDC_ERR_LOST;
	text_plan = g->format != MDCCTL_JSON && !mdc_plan_empty(&plan) && shows_plan;
	/* on one terminal the plan is read once: its text lists the warnings,
	 * and after a confirmation it was shown above the question */
	for (size_t i = 0; !(text_plan && one_terminal) && i < plan.warnings.n; i++)
		fprintf(stderr, "%s: warning: %s\n", g->progname, plan.warnings.v[i]);
	if (g->format == MDCCTL_JSON) {
		if (!(out = json_object_new_object()) ||
		    json_object_object_add(out, "plan", mdc_plan_to_json(&plan)) ||
		    json_object_object_add(out, "operation", op ? json_object_get(op) : NULL)) {
			rc = mdc_nomem(&ctx);
			goto out;
		}
		mdcctl_print_json(out);
	} else if (shows_plan) {
		const char *name = mdc_json_get_str(op, "name", NULL);

		if (mdc_plan_empty(&plan)) {
			/* an empty plan after Ctrl-C means "never looked", not "no change" */
			if (!rc)
				printf("%s: no change (the cluster already has it)\n", what);
		} else {
			if (!(mdcctl_plan_asked && one_terminal)) {
				mdc_plan_format(&plan, &b);
				fputs(mdc_buf_str(&b), stdout);
			}
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

/* Global options, accepted before and after the command (the command's
 * own options never share these names); after the command, --help,
 * --version and the short forms belong to the command.  The update
 * options (mdc_updopt_longopts) are global too. */
enum { O_ENDPOINT = 256, O_CLUSTER, O_PROJECT, O_REGION, O_FORMAT, O_VERBOSE, O_HELP,
       O_VERSION, O_FORCE, O_REMOTE };
static const struct mdcctl_gopt {
	const char *name;
	int id;
	bool arg;
} mdcctl_gopts[] = {
	{ "--endpoint", O_ENDPOINT, true }, { "--cluster", O_CLUSTER, true },
	{ "--project", O_PROJECT, true }, { "--region", O_REGION, true },
	{ "--format", O_FORMAT, true }, { "-y", MDC_UPDOPT_YES, false },
	{ "--quiet", MDC_UPDOPT_YES, false }, { "-q", MDC_UPDOPT_YES, false },
	{ "--force", O_FORCE, false }, { "--remote", O_REMOTE, false },
	{ "--verbose", O_VERBOSE, false },
	{ "-v", O_VERBOSE, false }, { "--help", O_HELP, false }, { "-h", O_HELP, false },
	{ "--version", O_VERSION, false }, { "-V", O_VERSION, false },
};

/* The global option named by A's first N bytes: *ID and *ARG, or false. */
static bool mdcctl_gopt_find(const char *a, size_t n, int *id, bool *arg)
{
	for (size_t k = 0; k < sizeof(mdcctl_gopts) / sizeof(mdcctl_gopts[0]); k++)
		if (strlen(mdcctl_gopts[k].name) == n && !strncmp(a, mdcctl_gopts[k].name, n)) {
			*id = mdcctl_gopts[k].id;
			*arg = mdcctl_gopts[k].arg;
			return true;
		}
	for (const struct option *o = mdc_updopt_longopts; o->name; o++)
		if (n > 2 && !strncmp(a, "--", 2) && strlen(o->name) == n - 2 &&
		    !strncmp(a + 2, o->name, n - 2)) {
			*id = o->val;
			*arg = o->has_arg == required_argument;
			return true;
		}
	return false;
}

/* Apply one global option; returns -1 to go on, else an exit status. */
static int mdcctl_gopt_apply(struct mdcctl *g, int id, const char *val)
{
	struct mdc_ctx ctx;

	mdc_ctx_clear(&ctx);
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
	case O_FORMAT:
		if (mdc_format_parse(val, &mdcctl_out, &ctx))
			return mdcctl_fail(g, &ctx);
		g->format = mdcctl_out.kind == MDC_FORMAT_TEXT ? MDCCTL_TEXT : MDCCTL_JSON;
		break;
	case O_FORCE: g->force = true; break;
	case O_REMOTE: g->remote = true; break;
	case O_VERBOSE: g->verbose = true; mdc_log_set_level(MDC_LOG_DEBUG); break;
	case O_HELP: mdcctl_help(stdout); return mdcctl_finish(0);
	case O_VERSION:
		printf("mdcctl (%s) %s, for Slurm %s\n", PACKAGE_NAME, PACKAGE_VERSION,
		       sc_rel_name(sc_rel_build()));
		return mdcctl_finish(0);
	default:
		if (mdc_updopt_set(&g->upd, id, val, &ctx))
			return mdcctl_fail(g, &ctx);
		g->yes = g->upd.yes;
		g->async = g->upd.async;
		g->timeout = g->upd.timeout_s;
	}
	return -1;
}

/* Take the global options out of ARGV (before and after the command) into
 * G; the rest goes to ARGS.  -1 to go on, else an exit status.  *WRITE_OPT
 * names the first option only a writing command takes. */
static int mdcctl_globals(struct mdcctl *g, int argc, char **argv, char **args, int *nargs,
			  const char **write_opt, bool *format_given)
{
	bool dashdash = false;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		size_t n;
		bool found, arg = false;
		int id = 0;

		if (dashdash || a[0] != '-' || !a[1]) {
			args[(*nargs)++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = true;
			if (*nargs)	/* after the command: the command sees it */
				args[(*nargs)++] = argv[i];
			continue;
		}
		eq = strchr(a, '=');
		n = eq ? (size_t) (eq - a) : strlen(a);
		found = mdcctl_gopt_find(a, n, &id, &arg);
		/* after the command, -h/--help/--version and short flags are its own */
		if (found && *nargs && (id == O_HELP || id == O_VERSION || a[1] != '-'))
			found = false;
		if (!found) {
			if (*nargs) {	/* the command's own option */
				args[(*nargs)++] = argv[i];
				continue;
			}
			fprintf(stderr, "mdcctl: error: unknown option '%s'\nTry 'mdcctl --help'.\n", a);
			return mdc_exit_code(MDC_ERR_USAGE);
		}
		if (arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return mdcctl_usage(g, "option '%.*s' needs a value", (int) n, a);
		} else if (eq) {
			return mdcctl_usage(g, "option '%.*s' takes no value", (int) n, a);
		}
		if (!*write_opt && (id == MDC_UPDOPT_MODE || id == MDC_UPDOPT_NO_WAIT ||
				    id == MDC_UPDOPT_ALLOW_RECREATE || id == O_FORCE))
			*write_opt = a;
		*format_given |= id == O_FORMAT;
		if ((rc = mdcctl_gopt_apply(g, id, val)) >= 0)
			return rc;
	}
	return -1;
}

/* Whether ARGS (a command line) asks for help before any "--". */
static bool mdcctl_wants_help(int nargs, char **args)
{
	for (int i = 1; i < nargs && strcmp(args[i], "--"); i++)
		if (!strcmp(args[i], "-h") || !strcmp(args[i], "--help"))
			return true;
	return false;
}

/* Is PROG an executable in a directory of PATH?  (Where mdc_run's execvp
 * would find it.) */
static bool mdcctl_on_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *e;
	char buf[4096];

	for (p = path ? path : ""; *p; p = *e ? e + 1 : e) {
		size_t n;

		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		n = (size_t) (e - p);
		if (n && n + strlen(prog) + 2 <= sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int) n, p, prog);
			if (!access(buf, X_OK))
				return true;
		}
	}
	return false;
}

/* The checks the table's flags promise, before the command runs. */
static int mdcctl_check_cmd(struct mdcctl *g, const struct mdcctl_cmd *cmd, const char *write_opt,
			    bool format_given)
{
	struct mdc_settings s;
	struct mdc_ctx ctx;
	int rc;

	if (write_opt && !(cmd->flags & CMD_WRITES))
		return mdcctl_usage(g, "%s: option '%s' is for commands that write", cmd->name,
				    write_opt);
	if (format_given && !(cmd->flags & CMD_FORMAT))
		return mdcctl_usage(g, "%s: no --format: the command prints text only", cmd->name);
	if (g->remote && !(cmd->flags & CMD_REMOTE))
		return mdcctl_usage(g, "%s: no --remote: only jobs list, drift, partition, plan and "
				    "apply read the cluster through the Slurm REST API", cmd->name);
	if (!(cmd->flags & CMD_CLUSTER))
		return 0;
	mdc_ctx_clear(&ctx);
	rc = mdcctl_settings(g, true, &s, &ctx);
	/* no local Slurm to ask (a laptop, a CI runner): the cluster's own,
	 * through the service, as --remote would */
	if (!rc && !g->remote && (cmd->flags & CMD_REMOTE) && !mdcctl_on_path("scontrol") &&
	    (!s.slurm_conf || access(s.slurm_conf, R_OK))) {
		g->remote = true;
		fprintf(stderr, "%s: note: no local Slurm (no scontrol on PATH, no slurm.conf at "
			"'%s'): reading the cluster through the service's Slurm REST API, as "
			"--remote does\n", g->progname, s.slurm_conf ? s.slurm_conf : "(unset)");
	}
	mdc_settings_free(&s);
	if (!rc && g->remote)
		mdcctl_remote_target(g);
	return rc ? mdcctl_fail(g, &ctx) : 0;
}

int main(int argc, char **argv)
{
	struct mdcctl g = { .progname = "mdcctl" };
	const struct mdcctl_cmd *cmd;
	struct mdc_ctx ctx;
	char **args = calloc((size_t) argc + 1, sizeof(*args));
	const char *env, *write_opt = NULL;
	bool format_given = false;
	int nargs = 0, rc = 0;

	mdc_log_init(g.progname);
	mdc_ctx_clear(&ctx);
	/* it may hold a token: no core file, no ptrace by the same user */
	if (mdc_no_core_dumps(NULL))
		fprintf(stderr, "mdcctl: warning: cannot disable core dumps\n");
	if (!args) {
		fprintf(stderr, "mdcctl: error: out of memory\n");
		return 1;
	}
	if ((env = getenv("MDC_CONF")) && *env)
		mdcctl_set(&g.conf_path, env);
	if ((rc = mdcctl_globals(&g, argc, argv, args, &nargs, &write_opt, &format_given)) >= 0)
		goto out;
	rc = 0;
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
	if (!(cmd->flags & CMD_OWN_HELP) && mdcctl_wants_help(nargs, args)) {
		mdcctl_cmd_usage(stdout, cmd);
		rc = mdcctl_finish(0);
		goto out;
	}
	if (!mdcctl_wants_help(nargs, args) &&
	    (rc = mdcctl_check_cmd(&g, cmd, write_opt, format_given)))
		goto out;
	/* Ctrl-C while waiting stops the wait cleanly; a second one kills */
	if (mdc_intr_install(&mdcctl_interrupted, &ctx)) {
		rc = mdcctl_fail(&g, &ctx);
		goto out;
	}
	optind = 0;	/* a fresh getopt_long scan for the command */
	g.cmd = cmd->name;
	rc = cmd->fn(&g, nargs, args);
	rc = mdcctl_finish(rc);
out:
	free(args);
	free(g.endpoint);
	free(g.cluster);
	free(g.project);
	free(g.region);
	free(g.cluster_id);
	free(g.conf_path);
	free(g.slurm_conf);
	mdcctl_remote_close();
	mdc_format_free(&mdcctl_out);
	return rc;
}
