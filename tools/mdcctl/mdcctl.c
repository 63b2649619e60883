/* mdcctl - the managed-cluster client.  Global options, then one command
 * from the sorted table below. */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_log.h"
#include "mdcctl.h"

static const struct mdcctl_cmd {
	const char *name;
	mdcctl_fn fn;
	const char *help;
} mdcctl_cmds[] = {
	{ "apply", cmd_apply, "plan, confirm, PATCH, wait and verify a slurm.conf" },
	{ "conf", cmd_conf, "check or dump slurm.conf files (no cluster needed)" },
	{ "config", cmd_config, "cluster-scope Slurm settings: show|get|set|unset" },
	{ "create", cmd_create, "create a cluster from a JSON file" },
	{ "delete", cmd_delete, "delete the cluster" },
	{ "describe", cmd_describe, "show the cluster resource" },
	{ "drift", cmd_drift, "runtime changes the next regeneration would lose" },
	{ "edit", cmd_edit, "edit the live slurm.conf and apply the difference" },
	{ "epilog", cmd_epilog, "epilog_bash_scripts: list|add|remove|replace" },
	{ "labels", cmd_labels, "cluster labels: list|set|unset" },
	{ "list", cmd_list, "list the clusters of a project and region" },
	{ "migrate-config", cmd_migrate_config, "move scheduling/accounting into config" },
	{ "nodepool", cmd_nodepool, "node pools: list|show|scale|image" },
	{ "nodeset", cmd_nodeset, "node-pool-scope Slurm settings: show|set|unset" },
	{ "operations", cmd_operations, "long-running operations: describe|wait" },
	{ "partition", cmd_partition, "partitions: list|show|create|update|unset|delete|default" },
	{ "persistent-resources", cmd_persistent_resources, "Vertex AI persistent resources" },
	{ "pipelines", cmd_pipelines, "pipeline runs on a persistent resource" },
	{ "plan", cmd_plan, "show what applying a slurm.conf would change" },
	{ "prolog", cmd_prolog, "prolog_bash_scripts: list|add|remove|replace" },
	{ "render", cmd_render, "print the slurm.conf the managed spec generates" },
	{ "update", cmd_update, "raw PATCH from a JSON file with an explicit mask" },
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
		"  --format text|json    output format (default text)\n"
		"  --update-mode MODE    USER_ONLY (default) or USER_AND_SERVICE\n"
		"  --yes                 do not ask for confirmation\n"
		"  --async               do not wait for operations; print their names\n"
		"  --no-wait             fail instead of waiting while the cluster is UPDATING\n"
		"  --allow-recreate      allow changes that move a node pool's image\n"
		"  --timeout SECONDS     how long to wait for an operation\n"
		"  -v, --verbose         more messages on stderr\n"
		"  -h, --help            this help\n"
		"  -V, --version         version\n"
		"\nCommands:\n");
	for (size_t i = 0; i < sizeof(mdcctl_cmds) / sizeof(mdcctl_cmds[0]); i++)
		fprintf(f, "  %-22s%s\n", mdcctl_cmds[i].name, mdcctl_cmds[i].help);
	fprintf(f, "\nSee mdcctl(1).\n");
}

int mdcctl_fail(struct mdcctl *g, const struct mdc_ctx *ctx)
{
	fprintf(stderr, "%s: error: %s\n", g->progname,
		ctx->msg[0] ? ctx->msg : mdc_strerror(ctx->err));
	return mdc_exit_code(ctx->err);
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

int main(int argc, char **argv)
{
	enum { O_ENDPOINT = 256, O_CLUSTER, O_PROJECT, O_REGION, O_FORMAT, O_YES,
	       O_ASYNC, O_MODE, O_NOWAIT, O_RECREATE, O_TIMEOUT };
	static const struct option opts[] = {
		{ "endpoint", required_argument, NULL, O_ENDPOINT },
		{ "cluster", required_argument, NULL, O_CLUSTER },
		{ "project", required_argument, NULL, O_PROJECT },
		{ "region", required_argument, NULL, O_REGION },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "yes", no_argument, NULL, O_YES },
		{ "async", no_argument, NULL, O_ASYNC },
		{ "update-mode", required_argument, NULL, O_MODE },
		{ "no-wait", no_argument, NULL, O_NOWAIT },
		{ "allow-recreate", no_argument, NULL, O_RECREATE },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct mdcctl g = { .progname = "mdcctl" };
	const struct mdcctl_cmd *cmd;
	const char *env;
	int c, rc = 0;

	mdc_log_init(g.progname);
	if ((env = getenv("MDC_ENDPOINT")) && *env)
		mdcctl_set(&g.endpoint, env);
	if ((env = getenv("MDC_CLUSTER")) && *env)
		mdcctl_set(&g.cluster, env);
	/* "+": options after the command belong to the command */
	while ((c = getopt_long(argc, argv, "+vhV", opts, NULL)) != -1) {
		switch (c) {
		case O_ENDPOINT: mdcctl_set(&g.endpoint, optarg); break;
		case O_CLUSTER:
			if (strchr(optarg, '/'))
				mdcctl_set(&g.cluster, optarg);
			else
				mdcctl_set(&g.cluster_id, optarg);
			break;
		case O_PROJECT: mdcctl_set(&g.project, optarg); break;
		case O_REGION: mdcctl_set(&g.region, optarg); break;
		case O_FORMAT:
			if (!strcmp(optarg, "json"))
				g.format = MDCCTL_JSON;
			else if (!strcmp(optarg, "text"))
				g.format = MDCCTL_TEXT;
			else
				return mdcctl_usage(&g, "--format '%s': use text or json", optarg);
			break;
		case O_YES: g.yes = true; break;
		case O_ASYNC: g.async = true; break;
		case O_MODE:
			if (strcmp(optarg, "USER_ONLY") && strcmp(optarg, "USER_AND_SERVICE"))
				return mdcctl_usage(&g, "--update-mode '%s': use USER_ONLY or USER_AND_SERVICE", optarg);
			mdcctl_set(&g.update_mode, optarg);
			break;
		case O_NOWAIT: g.no_wait = true; break;
		case O_RECREATE: g.allow_recreate = true; break;
		case O_TIMEOUT: {
			char *end;

			g.timeout = strtod(optarg, &end);
			if (*end || g.timeout <= 0)
				return mdcctl_usage(&g, "--timeout '%s': give seconds, > 0", optarg);
			break;
		}
		case 'v': g.verbose = true; mdc_log_set_level(MDC_LOG_DEBUG); break;
		case 'h': mdcctl_help(stdout); return mdcctl_finish(0);
		case 'V': printf("mdcctl (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION); return mdcctl_finish(0);
		default:
			fprintf(stderr, "Try 'mdcctl --help'.\n");
			return mdc_exit_code(MDC_ERR_USAGE);
		}
	}
	if (optind >= argc) {
		mdcctl_help(stderr);
		return mdc_exit_code(MDC_ERR_USAGE);
	}
	cmd = bsearch(argv[optind], mdcctl_cmds, sizeof(mdcctl_cmds) / sizeof(mdcctl_cmds[0]),
		      sizeof(mdcctl_cmds[0]), mdcctl_cmp);
	if (!cmd)
		return mdcctl_usage(&g, "unknown command '%s' (see mdcctl --help)", argv[optind]);
	rc = cmd->fn(&g, argc - optind, argv + optind);
	rc = mdcctl_finish(rc);
	free(g.endpoint);
	free(g.cluster);
	free(g.project);
	free(g.region);
	free(g.cluster_id);
	free(g.update_mode);
	return rc;
}
