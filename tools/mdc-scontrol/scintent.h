/* scintent.h - a persistent scontrol command (scargs.h) -> an intent for
 * the managed API plus the equivalent real scontrol command for the live
 * slurmctld.  (owner: scontrol) */
#ifndef SCINTENT_H
#define SCINTENT_H

#include "mdc_err.h"
#include "mdc_intent.h"
#include "mdc_str.h"
#include "scargs.h"

/* Turn a persistent command into an intent and the equivalent real
 * scontrol arguments (LIVE, NULL-terminated in LIVE->v), checking every
 * key and value against the option tables.  CONF_PATH is the live
 * slurm.conf whose NodeSet lines map node names to pools.  NOTES receives
 * what the user should know (e.g. Nodes= widened to whole pools).  All
 * outputs are appended; the caller frees them. */
int scx_intent(const struct scx_cmd *cmd, const char *conf_path, struct mdc_intent *in,
	       struct mdc_strv *live, struct mdc_strv *notes, struct mdc_ctx *ctx);

#endif
