/* cmd_vertex.h - what `mdcctl persistent-resources` (cmd_pr.c) and
 * `mdcctl pipelines` (cmd_pipeline.c) share: one option table with the
 * values it fills, the setup (settings, names, client), following an
 * operation, the list output and the subcommand dispatch.  The REST calls
 * and rules are in lib (mdc_vertex.h, mdc_pr.h, mdc_pipeline.h).
 * (owner: pr) */
#ifndef CMD_VERTEX_H
#define CMD_VERTEX_H

#include <getopt.h>
#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_buf.h"
#include "mdc_client.h"
#include "mdc_str.h"
#include "mdc_vertex.h"
#include "mdcctl.h"

/* Option ids; VX_COMMON_OPTS go in every subcommand's table (gcloud-style,
 * after the command). */
enum {
	O_PROJECT = 300, O_REGION, O_ASYNC, O_YES, O_DRY_RUN, O_PAGE_SIZE,
	O_ID, O_DISPLAY_NAME, O_POOL, O_CONFIG, O_CUSTOM_SA, O_LABELS, O_NETWORK,
	O_PIPELINE, O_RESOURCE, O_WAIT_TIME, O_ON_TIMEOUT, O_ROOT, O_PARAM, O_JOB_ID,
	O_UPDATE_LABELS, O_REMOVE_LABELS, O_CLEAR_LABELS, O_FILTER, O_SORT_BY,
};

#define VX_COMMON_OPTS \
	{ "project", required_argument, NULL, O_PROJECT }, \
	{ "region", required_argument, NULL, O_REGION }, \
	{ "async", no_argument, NULL, O_ASYNC }, \
	{ "page-size", required_argument, NULL, O_PAGE_SIZE }, \
	{ "help", no_argument, NULL, 'h' }
#define VX_END_OPTS { NULL, 0, NULL, 0 }

/* Tables for subcommands with only the common options, and with --yes. */
extern const struct option vx_common_opts[];
extern const struct option vx_yes_opts[];

/* The values the options give (each option has one field, see vx_fields
 * in cmd_vertex.c); repeatable ones collect in a list. */
struct vx_args {
	const char *id, *display_name, *config, *network, *pipeline, *resource;
	const char *wait_time, *on_timeout, *root, *job_id, *filter, *sort_by;
	struct mdc_strv pools, labels, params, update_labels, remove_labels;
	bool custom_sa, dry_run, clear_labels;
	long page_size;
};

/* A subcommand's command line. */
struct vx_cmd {
	const char *usage;		/* printed after "usage: " for -h and errors */
	const struct option *opts;	/* VX_COMMON_OPTS and its own */
	const char *shortopts;		/* "h", or "hq" with vx_yes_opts (-q: --yes) */
	const char *one;		/* the one argument ("persistent resource (ID or
					 * full name)"), NULL = no argument */
};

/* One subcommand's run: parsed options, settings, client, names. */
struct vx_run {
	struct mdcctl *g;
	const struct vx_cmd *cmd;
	struct vx_args a;
	const char *arg;		/* the one argument, when cmd->one */
	struct mdc_settings s;
	struct mdc_client *c;
	char *parent;			/* projects/P/locations/L (vx_connect) */
	char *name;			/* the argument's full name (vx_connect) */
	struct mdc_ctx ctx;
};

/* Parse ARGV (ARGV[0] the subcommand) for CMD into R (zeroed here) with
 * mdcctl_getopt.  -1 to go on, else the exit status (help, usage error);
 * vx_end R in both cases. */
int vx_begin(struct mdcctl *g, const struct vx_cmd *cmd, int argc, char **argv,
	     struct vx_run *r);
/* Settings, then NAME_FN's full name of the argument (when NAME_FN), the
 * parent (when PARENT), then the client.  0 or an error in R->ctx. */
typedef int (*vx_name_fn)(const char *project, const char *region, const char *name_or_id,
			  char **out, struct mdc_ctx *ctx);
int vx_connect(struct vx_run *r, vx_name_fn name_fn, bool parent);
/* R->ctx's error as the exit status (printed). */
int vx_fail(struct vx_run *r);
void vx_end(struct vx_run *r);

/* A subcommand that makes one call on the resource its argument names
 * and prints the answer. */
struct vx_get {
	struct vx_cmd cmd;
	vx_name_fn name_fn;		/* the argument's full name */
	int (*call)(struct mdc_client *c, const char *name, json_object **resp,
		    struct mdc_ctx *ctx);
	void (*print)(struct vx_run *r, const json_object *resp);	/* NULL: the
					 * resource in the --format given */
};
int vx_get_run(struct mdcctl *g, const struct vx_get *o, int argc, char **argv);

/* After a write that returned OP: NOTE on stdout (text only; may be
 * NULL); with --async OP itself (json), else the wait (progress on a
 * terminal, Ctrl-C stops it).  0 with *DONE (NULL after --async) or an
 * error in R->ctx. */
int vx_follow(struct vx_run *r, const json_object *op, const char *note, json_object **done);
/* gcloud's words for a submitted PersistentResource operation, appended
 * to B; 0 or MDC_ERR_NOMEM. */
int vx_submitted(struct mdc_buf *b, const char *verb, const json_object *op);

/* A subcommand that writes to the resource its argument names (delete,
 * reboot) and follows the operation the call returns. */
struct vx_write {
	struct vx_cmd cmd;
	vx_name_fn name_fn;
	int (*call)(struct mdc_client *c, const char *name, json_object **op,
		    struct mdc_ctx *ctx);
	const char *noun;		/* "persistent resource" */
	bool confirm;			/* ask before deleting it */
	/* the text shown once the call is sent (vx_follow's NOTE), into B */
	int (*note)(const struct vx_run *r, const json_object *op, struct mdc_buf *b);
	const char *done_verb;		/* "Deleted": "Deleted NOUN [NAME]." */
};
int vx_write_run(struct mdcctl *g, const struct vx_write *w, int argc, char **argv);

/* A list's json/yaml/value form or "Listed 0 items."; false when the
 * caller prints its table. */
bool vx_list_printed(struct mdcctl *g, const json_object *all);

struct vx_sub {
	const char *name;
	int (*fn)(struct mdcctl *g, int argc, char **argv);
};
/* ARGV[1] among SUBS (N of them), or the list of them on --help. */
int vx_dispatch(struct mdcctl *g, int argc, char **argv, const struct vx_sub *subs, size_t n);

#endif
