/* sc_release_live.h - the release the cluster runs: its own scontrol's
 * --version when a Slurm is reachable, else SlurmRelease in mdc.conf,
 * else the build's release.  Part of libmdc (it runs scontrol), not of
 * lib/slurmconf/, which the plugins link.  (owner: slurm.conf engine)
 */
#ifndef SC_RELEASE_LIVE_H
#define SC_RELEASE_LIVE_H

#include <stddef.h>
#include "mdc_err.h"
#include "sc_release.h"

/* The release to judge against (*REL, an sc_release.h index) and where it
 * came from (*FROM).  CONF_RELEASE: mdc.conf's SlurmRelease, or NULL.
 * The live release is the first line of `scontrol --version` of the real
 * scontrol (mdc_live_scontrol_path); one that cannot run or prints no
 * known release is no live release.  VERSION (size VERSIONSZ, may be
 * NULL) gets what scontrol printed ("22.05.8"), else "".  A release that
 * is none of 22.05, 24.11, 26.05 counts as the newest known one before
 * it.  MDC_ERR_INVAL when CONF_RELEASE is set and names no known release. */
int mdc_slurm_release(const char *conf_release, int *rel, enum sc_rel_from *from,
		      char *version, size_t versionsz, struct mdc_ctx *ctx);

/* Judge against mdc_slurm_release(CONF_RELEASE) from the first check on
 * (sc_rel_target): scontrol runs only when something is judged.  0 or
 * MDC_ERR_NOMEM. */
int mdc_slurm_release_defer(const char *conf_release, struct mdc_ctx *ctx);

#endif
