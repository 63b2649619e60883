/* mdc_slurmcheck.h - Slurm's verdict before anything is sent (DESIGN 7):
 * the slurm.conf a change produces is judged by our own checks (value
 * words and the cross-key rules of Slurm's read_config.c and slurmctld,
 * with messages that say what to write) and then by the installed Slurm's
 * own parser, libslurmfull's slurm_conf_init() in config-test mode, run in
 * the helper program mdc-slurmcheck with a time bound, and last by the
 * release's slurmctld starting on it in a sandbox (no network, scratch
 * state/pid/log paths; its fatal: lines refuse: options only the
 * controller validates, such as the removed FastSchedule).  An error
 * refuses the change.  slurmctld is $MDC_SLURMCTLD (set, even empty: that
 * or none) or the installed one; without it the verdict says so.
 * (owner: verdict)
 *
 * libslurmfull is looked up in $MDC_LIBSLURMFULL, Slurm's plugin directory
 * found by configure, then the usual plugin directories; without it only
 * our checks run and the verdict says Slurm's check was skipped.
 */
#ifndef MDC_SLURMCHECK_H
#define MDC_SLURMCHECK_H

#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_buf.h"
#include "mdc_err.h"
#include "mdc_str.h"

struct sc_conf;

struct mdc_slurmcheck_opts {
	double timeout_s;	/* Slurm's parser gets this long (0 = 15 s) */
	const char *conf_dir;	/* relative Include paths resolve here (NULL: not followed) */
	bool no_slurm;		/* our checks only */
	/* mdc_slurmcheck_text only: TEXT as sc_conf read it (not parsed
	 * again: `mdcctl conf check` has just read it), or NULL */
	const struct sc_conf *conf;
	/* mdc_slurmcheck_change only: */
	const char *base;	/* the service-managed base as is (NULL: from the live file) */
	char *checks;		/* if set, gets "checks: ..." (mdc_slurmcheck_format_checks) */
	size_t checkssz;
	/* off the cluster (--remote): Slurm's parser must judge the file; a
	 * check that cannot run is a refusal (MDC_ERR_REFUSED), never a skip */
	bool require_slurm;
};

struct mdc_slurmcheck {
	bool ran_ours;
	bool ran_slurm;			/* libslurmfull judged the file */
	char *slurm_skipped;		/* why it did not (malloc'ed), or NULL */
	struct mdc_strv errors;		/* ours ("Key='v': ...") then Slurm's ("slurm: ...") */
	struct mdc_strv warnings;
	struct mdc_strv slurm_words;	/* Slurm's own error/fatal lines, as it wrote them */
	bool ran_ctld;			/* slurmctld started on it in a sandbox */
	char *ctld_skipped;		/* why it did not (malloc'ed), or NULL */
};

#define MDC_SLURMCHECK_INIT { false, false, NULL, MDC_STRV_INIT, MDC_STRV_INIT, MDC_STRV_INIT, \
			      false, NULL }

/* Judge slurm.conf TEXT (NAME in messages).  Returns 0 whatever the
 * verdict (read RES->errors), or MDC_ERR_NOMEM/MDC_ERR_IO.  RES is always
 * initialised; free it with mdc_slurmcheck_free. */
int mdc_slurmcheck_text(const char *text, const char *name, const struct mdc_slurmcheck_opts *o,
			struct mdc_slurmcheck *res, struct mdc_ctx *ctx);

/* Judge what a write changes: render NEW_SPEC (the plan's predicted
 * cluster) over the service-managed base of the live slurm.conf at
 * LIVE_CONF (NULL or missing: no base, and Slurm's check is skipped),
 * judge it, and when it has errors judge what CUR_SPEC renders too: an
 * error the current file already has is only a warning (the change does
 * not cause it).  Returns 0 when the change may be sent (warnings and a
 * skipped check land in WARNINGS, may be NULL), MDC_ERR_REFUSED with CTX
 * holding Slurm's words and what to do (and the errors in REFUSALS, may be
 * NULL), or another error. */
int mdc_slurmcheck_change(const char *live_conf, const json_object *cur_spec,
			  const json_object *new_spec, const struct mdc_slurmcheck_opts *o,
			  struct mdc_strv *warnings, struct mdc_strv *refusals,
			  struct mdc_ctx *ctx);

/* Start the helper (mdc_slurmcheck_helper) now, loading libslurmfull
 * while the caller works; the next check of this process hands it its
 * file, and _end reaps it when no check came.  For a single-threaded tool
 * about to plan a change (mdc-scontrol): the check's start-up, most of its
 * time, runs beside the GET and the plan.  Nothing is reported here: a
 * helper that cannot start is started, and reported, by the check. */
void mdc_slurmcheck_prestart(void);
void mdc_slurmcheck_prestart_end(void);

/* Path of the libslurmfull that would be used, written to BUF (BUFSZ
 * bytes; no shared state, mdcd's threads call this) and returned, or NULL
 * when there is none. */
const char *mdc_slurmcheck_library(char *buf, size_t bufsz);
/* The program that runs Slurm's parser (mdc-slurmcheck):
 * $MDC_SLURMCHECK_HELPER (set, even empty: that one or none), the
 * installed $(pkglibexecdir)/mdc-slurmcheck, then the running program's
 * own directory (the build tree).  The path is written to BUF (BUFSZ
 * bytes; no shared state, mdcd's threads call this) and returned, NULL
 * when none is executable. */
const char *mdc_slurmcheck_helper(char *buf, size_t bufsz);

/* The slurmctld that judges the file (see above), in BUF, or NULL. */
const char *mdc_slurmcheck_slurmctld(char *buf, size_t bufsz);

/* "checks: ours, Slurm's (PATH)" or "checks: ours; Slurm's skipped: why"
 * appended to OUT. */
int mdc_slurmcheck_format_checks(const struct mdc_slurmcheck *res, struct mdc_buf *out);

void mdc_slurmcheck_free(struct mdc_slurmcheck *res);

#endif
