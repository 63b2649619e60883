/* mdcctl.h - what the mdcctl commands share: the global options and the
 * command signature.  Each command lives in a cmd_*.c file and is listed
 * in the sorted table in mdcctl.c. */
#ifndef MDCCTL_H
#define MDCCTL_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_client.h"
#include "mdc_err.h"
#include "mdc_intent.h"
#include "mdc_live.h"
#include "mdc_update.h"
#include "mdc_updopt.h"

/* TEXT: the command's own text; JSON: a document (printed as json, yaml
 * or value(...) by mdcctl_print_json, after the --format given). */
enum mdcctl_format { MDCCTL_TEXT, MDCCTL_JSON };

/* Global options, filled from (lowest to highest precedence) the config
 * file, the environment and the command line. */
struct mdcctl {
	const char *progname;
	const char *cmd;	/* the command's name (main sets it): messages */
	char *endpoint;		/* --endpoint / MDC_ENDPOINT */
	char *cluster;		/* full resource name projects/P/locations/R/modelDevelopmentClusters/C */
	char *project;		/* --project */
	char *region;		/* --region */
	char *cluster_id;	/* --cluster ID (short form) */
	char *conf_path;	/* MDC_CONF or /etc/slurm/mdc.conf */
	enum mdcctl_format format;
	struct mdc_updopt upd;	/* the update options (mdc_updopt.h) */
	/* copies of upd's fields the commands read */
	bool yes;		/* --yes / --quiet: no confirmation prompts */
	bool async;		/* --async: return the operation name */
	double timeout;		/* --timeout seconds for operation waits, 0 = default */
	bool force;		/* --force: remove partitions that still hold jobs */
	char *slurm_conf;	/* the live slurm.conf, once settings are read */
	bool remote;		/* --remote: through callSlurmRestApi, no local Slurm */
	bool verbose;
};

/* A command: ARGV[0] is the command name, the global options are taken
 * out already (before and after the command), and --help, --format, the
 * cluster and the update options are checked against the command's flags
 * in the table of mdcctl.c.  Returns an exit status. */
typedef int (*mdcctl_fn)(struct mdcctl *g, int argc, char **argv);

/* getopt_long over a command's ARGV (set optind = 0 before the loop: a
 * fresh scan; main() does it before the command runs): its own
 * options only, the global ones are gone.  ARGV[0] is the command's name,
 * or a subcommand's (then messages say "jobs enforce: ...").  A bad
 * option is reported here (*RC = the usage exit code) and returns '?';
 * then and at the end -1 or '?' stops the caller's loop. */
int mdcctl_getopt(struct mdcctl *g, int argc, char **argv, const char *shortopts,
		  const struct option *longopts, int *rc);
/* ARGV0 as messages name it: "jobs enforce" when it is a subcommand of
 * the command running (written into BUF, SIZE bytes), else ARGV0. */
const char *mdcctl_where(const struct mdcctl *g, const char *argv0, char *buf, size_t size);

/* For a command without options: the getopt_long scan (an option is a
 * usage error) and *ARGC, *ARGV shifted so that
 * (*ARGV)[0] is still the command name and its operands follow.  0 to go
 * on, else the exit status. */
int mdcctl_operands(struct mdcctl *g, int *argc, char ***argv);

/* Print CTX's error as one line "mdcctl: error: ..." and return its exit code. */
int mdcctl_fail(struct mdcctl *g, const struct mdc_ctx *ctx);
/* "out of memory" said as mdcctl_fail says it: the exit status */
int mdcctl_nomem(struct mdcctl *g);
/* Usage error: one line and the usage exit code (mdc_err's table). */
int mdcctl_usage(struct mdcctl *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Flush stdout and report a write error (git's rule: check it). */
int mdcctl_finish(int rc);

/* Set by SIGINT (the handler resets itself: a second Ctrl-C kills). */
extern volatile sig_atomic_t mdcctl_interrupted;

/* Settings for G: config file + environment, then G's options on top,
 * resolved (cluster name from --project/--region/--cluster ID, default
 * endpoint).  NEED_CLUSTER: no cluster is a usage error.  Free S with
 * mdc_settings_free. */
int mdcctl_settings(struct mdcctl *g, bool need_cluster, struct mdc_settings *s,
		    struct mdc_ctx *ctx);
/* mdc_client_new, with the retries said on a terminal (stderr). */
int mdcctl_client_new(const struct mdc_settings *s, struct mdc_client **c, struct mdc_ctx *ctx);
/* mdcctl_settings + mdcctl_client_new.  *C is freed with mdc_client_free. */
int mdcctl_connect(struct mdcctl *g, bool need_cluster, struct mdc_settings *s,
		   struct mdc_client **c, struct mdc_ctx *ctx);
/* Update options from G: mode, --allow-recreate, --no-wait, --async,
 * --timeout, progress on a terminal, the Ctrl-C flag. */
int mdcctl_update_opts(struct mdcctl *g, struct mdc_update_opts *o, struct mdc_ctx *ctx);
/* Run IN through mdc_update_run and print the outcome (text: the change
 * set and the result; json: {"plan": ..., "operation": ...}); returns the
 * exit status.  WHAT names the change in messages ("partition 'gpu'"). */
int mdcctl_update(struct mdcctl *g, const struct mdc_intent *in, const char *what);
/* After a create/delete/PATCH that returned OP: print it (--async) or wait
 * for it and print the finished operation.  Returns the exit status. */
int mdcctl_finish_op(struct mdcctl *g, struct mdc_client *c, json_object *op);
/* Print OBJ on stdout in the --format chosen (json, yaml, value(...)). */
void mdcctl_print_json(const json_object *obj);
/* The same for an API resource: field names in lowerCamelCase, as the API
 * (and gcloud) show them; user maps keep their keys. */
void mdcctl_print_resource(const json_object *obj);
/* B: how node pool POOL gets its machines (provisioning model,
 * reservation, flex-start duration), "" if it says nothing (cmd_cluster.c) */
struct mdc_buf;
void mdcctl_pool_provisioning(struct mdc_buf *b, const json_object *pool);
/* Ask QUESTION on the terminal; false unless the answer is y/yes.  With
 * --yes true; with stdin not a terminal false (the caller says why). */
bool mdcctl_confirm(struct mdcctl *g, const char *question);
/* mdcctl_update for a change that removes something (partition delete,
 * config unset, nodeset unset): the change set is shown and confirmed on
 * a terminal; without one --yes is needed, and nothing is sent. */
int mdcctl_update_destructive(struct mdcctl *g, const struct mdc_intent *in, const char *what);
/* Check KEY=VALUE settings for SCOPE (enum sc_scope bits) with the option
 * table, before anything is sent: unknown keys (with a suggestion),
 * refused or service-managed keys, bad values, control characters.
 * WHERE names the scope in messages.  UNSET: only keys, no values. */
int mdcctl_check_kv(const char *key, const char *value, unsigned scope, const char *where,
		    struct mdc_ctx *ctx);
/* `jobs list --remote`: the cluster's queue read through
 * callSlurmRestApi (cmd_remote.c).  Returns the exit status. */
int mdcctl_jobs_remote(struct mdcctl *g);
/* The plan's partition guard with --remote: mdc_slurmrest_partition_jobs
 * on one connection kept for the process (closed by mdcctl_remote_close). */
int mdcctl_remote_partition_jobs(struct mdcctl *g, const char *partition, struct mdc_strv *jobs,
				 struct mdc_ctx *ctx);
void mdcctl_remote_close(void);
/* --remote: judge against the release the cluster's slurmrestd names
 * (sc_rel_set_target), when it answers; else the usual choice stands. */
void mdcctl_remote_target(struct mdcctl *g);
/* apply --remote's verify: the partitions through the same connection
 * (mdc_verify_opts.partitions, ARG the struct mdcctl), and whether the
 * cluster's slurmrestd answers before the PATCH (*LIVE; always 0). */
int mdcctl_remote_partitions(struct mdc_recs *out, void *arg, struct mdc_ctx *ctx);
int mdcctl_remote_probe(struct mdcctl *g, bool *live, struct mdc_ctx *ctx);
/* drift --remote: the nodes (name, state, reason) through it too. */
int mdcctl_remote_nodes(struct mdc_recs *out, void *arg, struct mdc_ctx *ctx);
/* Split "K=V" into a malloc'ed key and a pointer to the value. */
int mdcctl_split_kv(const char *arg, char **key, const char **value, struct mdc_ctx *ctx);

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
int cmd_history(struct mdcctl *g, int argc, char **argv);
int cmd_jobs(struct mdcctl *g, int argc, char **argv);
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
int cmd_rollback(struct mdcctl *g, int argc, char **argv);
int cmd_update(struct mdcctl *g, int argc, char **argv);

#endif
