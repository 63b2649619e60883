/* scargs.h - scontrol's command syntax, as far as mdc-scontrol handles it
 * itself: which commands are persisted through the managed API, which are
 * answered from the managed spec, and which go to the real scontrol.
 * (owner: scontrol)
 */
#ifndef SCARGS_H
#define SCARGS_H

#include <stdbool.h>
#include "mdc_err.h"
#include "mdc_intent.h"
#include "mdc_live.h"

enum scx_verb {
	SCX_PASS,		/* anything else: exec the real scontrol */
	SCX_UPDATE_PART,	/* update PartitionName=X K=V... */
	SCX_CREATE_PART,	/* create PartitionName=X Nodes=... K=V... */
	SCX_DELETE_PART,	/* delete PartitionName=X */
	SCX_UPDATE_NODES,	/* update NodeName=NODES Weight=|Features=|Gres= */
	SCX_SHOW_CONFIG,	/* show config */
	SCX_SHOW_PART,		/* show partition [X] */
	SCX_SHOW_NODESET,	/* show nodeset [X] */
};

struct scx_cmd {
	enum scx_verb verb;
	char *name;		/* partition, node list or nodeset; NULL if none */
	struct mdc_kvs kv;	/* the other pairs, quotes removed, in order */
};

/* Classify the command words ARGV[0..ARGC) (scontrol's options already
 * taken off).  Keywords are case-insensitive whole words; values keep
 * their case, with scontrol's quotes ("..." or '...') removed.  A command
 * mdc-scontrol does not handle is SCX_PASS (never an error).  Errors
 * (MDC_ERR_USAGE) are for handled commands written wrong.  Free CMD with
 * scx_cmd_free. */
int scx_parse(int argc, char **argv, struct scx_cmd *cmd, struct mdc_ctx *ctx);
void scx_cmd_free(struct scx_cmd *cmd);

/* Static name of VERB ("update partition") for messages. */
const char *scx_verb_name(enum scx_verb verb);

/* Turn a persistent command into an intent and the equivalent real
 * scontrol arguments (LIVE, NULL-terminated in LIVE->v), checking every
 * key and value against the option tables.  CONF_PATH is the live
 * slurm.conf whose NodeSet lines map node names to pools.  NOTES receives
 * what is applied live only (e.g. State=).  All outputs are appended; the
 * caller frees them. */
int scx_intent(const struct scx_cmd *cmd, const char *conf_path, struct mdc_intent *in,
	       struct mdc_strv *live, struct mdc_strv *notes, struct mdc_ctx *ctx);

#endif
