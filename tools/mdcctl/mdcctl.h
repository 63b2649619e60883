/* mdcctl.h - what the mdcctl commands share: the global options and the
 * command signature.  Each command lives in a cmd_*.c file and is listed
 * in the sorted table in mdcctl.c. */
#ifndef MDCCTL_H
#define MDCCTL_H

#include <stdbool.h>
#include "mdc_err.h"

enum mdcctl_format { MDCCTL_TEXT, MDCCTL_JSON };

/* Global options, filled from (lowest to highest precedence) the config
 * file, the environment and the command line. */
struct mdcctl {
	const char *progname;
	char *endpoint;		/* --endpoint / MDC_ENDPOINT */
	char *cluster;		/* full resource name projects/P/locations/R/modelDevelopmentClusters/C */
	char *project;		/* --project */
	char *region;		/* --region */
	char *cluster_id;	/* --cluster ID (short form) */
	char *update_mode;	/* --update-mode, NULL = USER_ONLY */
	char *conf_path;	/* MDC_CONF or /etc/slurm/mdc.conf */
	enum mdcctl_format format;
	bool yes;		/* --yes: no confirmation prompts */
	bool async;		/* --async: return the operation name */
	bool no_wait;		/* --no-wait: fail instead of waiting for UPDATING */
	bool allow_recreate;	/* --allow-recreate: image moves allowed */
	bool verbose;
	double timeout;		/* --timeout seconds for operation waits, 0 = default */
};

/* A command: ARGV[0] is the command name.  Returns an exit status. */
typedef int (*mdcctl_fn)(struct mdcctl *g, int argc, char **argv);

/* Print CTX's error as one line "mdcctl: error: ..." and return its exit code. */
int mdcctl_fail(struct mdcctl *g, const struct mdc_ctx *ctx);
/* Usage error: one line and exit code 2. */
int mdcctl_usage(struct mdcctl *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Flush stdout and report a write error (git's rule: check it). */
int mdcctl_finish(int rc);

/* Commands (one cmd_<name> each; sorted table in mdcctl.c). */
int cmd_apply(struct mdcctl *g, int argc, char **argv);
int cmd_conf(struct mdcctl *g, int argc, char **argv);
int cmd_config(struct mdcctl *g, int argc, char **argv);
int cmd_create(struct mdcctl *g, int argc, char **argv);
int cmd_delete(struct mdcctl *g, int argc, char **argv);
int cmd_describe(struct mdcctl *g, int argc, char **argv);
int cmd_drift(struct mdcctl *g, int argc, char **argv);
int cmd_edit(struct mdcctl *g, int argc, char **argv);
int cmd_epilog(struct mdcctl *g, int argc, char **argv);
int cmd_labels(struct mdcctl *g, int argc, char **argv);
int cmd_list(struct mdcctl *g, int argc, char **argv);
int cmd_migrate_config(struct mdcctl *g, int argc, char **argv);
int cmd_nodepool(struct mdcctl *g, int argc, char **argv);
int cmd_nodeset(struct mdcctl *g, int argc, char **argv);
int cmd_operations(struct mdcctl *g, int argc, char **argv);
int cmd_partition(struct mdcctl *g, int argc, char **argv);
int cmd_persistent_resources(struct mdcctl *g, int argc, char **argv);
int cmd_pipelines(struct mdcctl *g, int argc, char **argv);
int cmd_plan(struct mdcctl *g, int argc, char **argv);
int cmd_prolog(struct mdcctl *g, int argc, char **argv);
int cmd_render(struct mdcctl *g, int argc, char **argv);
int cmd_update(struct mdcctl *g, int argc, char **argv);

#endif
