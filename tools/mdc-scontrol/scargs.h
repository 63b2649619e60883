/* scargs.h - scontrol's command syntax, as far as mdc-scontrol handles it
 * itself: which commands are persisted through the managed API, which are
 * answered from the managed spec, and which go to the real scontrol.
 *
 * Words are matched the way scontrol matches them (src/scontrol/
 * scontrol.c, update_part.c, update_node.c; the keys of updates as the
 * target release's scontrol, scargs_release.h): a keyword may be abbreviated
 * down to a minimum length and is compared case-insensitively, and the
 * first entry of scontrol's own chain that matches wins.  The tables in
 * scargs.c copy those chains in order.  (owner: scontrol)
 */
#ifndef SCARGS_H
#define SCARGS_H

#include <stdbool.h>
#include <stddef.h>
#include "mdc_err.h"
#include "mdc_intent.h"
#include "mdc_live.h"

enum scx_verb {
	SCX_PASS,		/* anything else: exec the real scontrol */
	SCX_UPDATE_PART,	/* update PartitionName=X K=V... */
	SCX_CREATE_PART,	/* create PartitionName=X Nodes=... K=V... */
	SCX_DELETE_PART,	/* delete PartitionName=X */
	SCX_UPDATE_NODES,	/* update NodeName=NODES Weight=|Features=|Gres=|CpuBind= */
	SCX_SHOW_CONFIG,	/* show config */
	SCX_SHOW_PART,		/* show partition [X] */
	SCX_SHOW_NODESET,	/* show nodeset [X] (ours: scontrol has no such entity) */
};

struct scx_cmd {
	enum scx_verb verb;
	char *name;		/* partition, node list or nodeset; NULL if none */
	/* the other pairs: keys in their canonical slurm.conf spelling
	 * (MaxT= -> MaxTime), values with scontrol's quotes removed and
	 * scontrol's abbreviated words spelt out (Hidden=y -> YES) */
	struct mdc_kvs kv;
	/* SCX_PASS of a command that looks like a setting but is runtime
	 * state (node State=, Reason=...): what to tell the user; else NULL */
	char *note;
};

/* Does WORD (its first LEN characters) name KEYWORD as scontrol reads it:
 * xstrncasecmp(word, keyword, MAX(len, min)) == 0, i.e. a prefix of at
 * least MIN characters, any case, not longer than KEYWORD. */
bool scx_abbrev(const char *word, size_t len, const char *keyword, size_t min);

/* Classify the command words ARGV[0..ARGC) (scontrol's options already
 * taken off).  The keys of a partition or node update are read as the
 * scontrol of release RELEASE() reads them (an sc_release.h index; asked
 * only for a word the releases read differently; NULL or an unknown one:
 * the build's release).  A command mdc-scontrol does not handle is SCX_PASS (never
 * an error).  Errors (MDC_ERR_USAGE, MDC_ERR_INVAL) are for handled
 * commands written wrong: scontrol would refuse them too, and we say why.
 * Free CMD with scx_cmd_free. */
int scx_parse(int argc, char **argv, int (*release)(void), struct scx_cmd *cmd,
	      struct mdc_ctx *ctx);
void scx_cmd_free(struct scx_cmd *cmd);

/* Static name of VERB ("update partition") for messages. */
const char *scx_verb_name(enum scx_verb verb);

#endif
