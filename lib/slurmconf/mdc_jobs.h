/* mdc_jobs.h - the job wait policy: "wait up to this long for capacity,
 * then fail or fall back to an on-demand partition".  (owner: plugins)
 *
 * Three parts share these definitions:
 *   spank_mdc.so    parses --mdc-wait-time / --mdc-on-timeout /
 *                   --mdc-fallback-partition (mdc_jobs_duration_parse,
 *                   mdc_jobs_action_parse) and hands them to slurmctld in
 *                   the job control environment (MDC_JOBS_ENV_*);
 *   job_submit_mdc  merges them with the site defaults of mdc.conf
 *                   (mdc_jobs_site_load, mdc_jobs_resolve), validates, and
 *                   records the result in the job's AdminComment
 *                   (mdc_jobs_policy_format);
 *   enforcement     (mdc_jobs_enforce_cycle, in mdc_jobs_enforce.c, the
 *                   only part that links libslurm) reads it back
 *                   (mdc_jobs_policy_parse) and acts on expired waits.
 * This file's functions do no Slurm calls and no network I/O: the plugins
 * link them into slurmctld and the submitting commands.
 */
/* deliberate unit: mdc_jobs reads mdc.conf with mdc_managed, which parses MaxTime with mdc_jobs */
#ifndef MDC_JOBS_H
#define MDC_JOBS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "mdc_err.h"

/* The job control environment variables spank_mdc sets (slurmctld sees
 * them in job_desc->spank_job_env, with or without a SPANK_ prefix). */
#define MDC_JOBS_ENV_WAIT "MDC_WAIT_TIME"		/* seconds */
#define MDC_JOBS_ENV_ACTION "MDC_ON_TIMEOUT"		/* fail | fall-back-to-on-demand */
#define MDC_JOBS_ENV_FALLBACK "MDC_FALLBACK_PARTITION"

/* The longest wait anyone may ask for, whatever the site says (a year). */
#define MDC_JOBS_WAIT_LIMIT (366u * 24 * 3600)
#define MDC_JOBS_PART_MAX 128	/* longest partition name we record */

enum mdc_jobs_action { MDC_JOBS_NONE = 0, MDC_JOBS_FAIL, MDC_JOBS_FALL_BACK };

struct mdc_jobs_policy {
	uint32_t wait;			/* seconds; 0: no policy */
	enum mdc_jobs_action action;
	char fallback[MDC_JOBS_PART_MAX];	/* "" unless action is FALL_BACK */
	char expired[16];		/* "" while waiting; "fell-back" or "cancelled" */
};

/* A duration in Slurm's time formats (minutes, MM:SS, HH:MM:SS, D-HH,
 * D-HH:MM, D-HH:MM:SS) or a number with one unit suffix (30s, 10m, 2h,
 * 1d).  *SECS in seconds, 1 .. MDC_JOBS_WAIT_LIMIT.  MDC_ERR_INVAL with a
 * message naming S otherwise. */
int mdc_jobs_duration_parse(const char *s, uint32_t *secs, struct mdc_ctx *ctx);

/* "fail" or "fall-back-to-on-demand" (case-insensitive, in full). */
int mdc_jobs_action_parse(const char *s, enum mdc_jobs_action *out, struct mdc_ctx *ctx);
const char *mdc_jobs_action_name(enum mdc_jobs_action a);

/* A partition name usable as a fallback: 1..MDC_JOBS_PART_MAX-1 characters,
 * no comma, no whitespace or control character. */
int mdc_jobs_part_check(const char *name, struct mdc_ctx *ctx);

/* What the user asked for: each field optional (0 / NONE / ""). */
struct mdc_jobs_request {
	uint32_t wait;
	enum mdc_jobs_action action;
	char fallback[MDC_JOBS_PART_MAX];
};

/* Site settings from mdc.conf:
 *   JobWaitMax = DURATION            longest wait a job may ask for
 *   JobWaitDefault = PART=WAIT/ACTION[/FALLBACK] ...
 *                                    per-partition defaults, whitespace
 *                                    separated, applied to jobs whose
 *                                    only requested partition is PART */
struct mdc_jobs_site_default {
	char part[MDC_JOBS_PART_MAX];
	struct mdc_jobs_request req;
};
struct mdc_jobs_site {
	uint32_t max_wait;		/* 0: none beyond MDC_JOBS_WAIT_LIMIT */
	size_t n;
	struct mdc_jobs_site_default *defaults;	/* malloc'ed, n entries */
};

/* Parse the two values (either may be NULL).  On success *SITE is filled
 * (free with mdc_jobs_site_free); on error it is empty and CTX names the
 * key and the bad entry. */
int mdc_jobs_site_parse(const char *max_wait, const char *defaults, struct mdc_jobs_site *site,
			struct mdc_ctx *ctx);
/* Read JobWaitMax and JobWaitDefault from the mdc.conf at PATH (a missing
 * file: no settings) and parse them. */
int mdc_jobs_site_load(const char *path, struct mdc_jobs_site *site, struct mdc_ctx *ctx);
void mdc_jobs_site_free(struct mdc_jobs_site *site);

/* Seconds between two enforcement cycles: a whole number, 1 ..
 * MDC_JOBS_INTERVAL_MAX (0 too when ZERO_OK: enforcement off).  WHAT names
 * the value in the message ("--interval", "JobWaitEnforceInterval"). */
#define MDC_JOBS_INTERVAL_MAX 86400
int mdc_jobs_interval_parse(const char *s, bool zero_ok, const char *what, long *secs,
			    struct mdc_ctx *ctx);
/* JobWaitEnforceInterval of the mdc.conf at PATH (mdcd's enforcement
 * loop): *SECS 0 when absent or empty (off). */
int mdc_jobs_interval_load(const char *path, long *secs, struct mdc_ctx *ctx);

/* The job's policy: the user's request REQ over the site default for its
 * partition request PARTS (Slurm's comma list; NULL/"" means DEFAULT_PART).
 * HAS_PART (may be NULL) says whether a partition exists in the managed
 * slurm.conf.  0 with *OUT filled (OUT->wait 0: the job has no policy), or
 * MDC_ERR_INVAL with a one-line message for the user in CTX. */
int mdc_jobs_resolve(const struct mdc_jobs_request *req, const char *parts,
		     const char *default_part, const struct mdc_jobs_site *site,
		     bool (*has_part)(const char *name, void *arg), void *arg,
		     struct mdc_jobs_policy *out, struct mdc_ctx *ctx);

/* The policy as recorded in AdminComment:
 *   mdc:wait=SECS,on-timeout=ACTION[,fallback=PART][,expired=WHAT]
 * into BUF (SIZE bytes).  Returns the length, or -1 if it does not fit. */
int mdc_jobs_policy_format(const struct mdc_jobs_policy *p, char *buf, size_t size);
/* Find and parse the "mdc:" record in COMMENT (other words around it are
 * kept by whoever wrote them and ignored here).  0 when found and valid;
 * MDC_ERR_NOTFOUND when COMMENT has none; MDC_ERR_INVAL when it is
 * malformed. */
int mdc_jobs_policy_parse(const char *comment, struct mdc_jobs_policy *p, struct mdc_ctx *ctx);
/* COMMENT with its "mdc:" record replaced by (or, without one, followed
 * by) the record of P.  Returns a malloc'ed string (caller frees) or NULL
 * when out of memory. */
char *mdc_jobs_comment_with(const char *comment, const struct mdc_jobs_policy *p);

/* Copy S into BUF (SIZE bytes) with every byte below 0x20, 0x7f and '\\'
 * escaped (\n, \t, \\, \xHH) and the result cut (with "...") to fit: the
 * form every user-controlled string takes in a log line.  Returns BUF. */
char *mdc_jobs_log_escape(const char *s, char *buf, size_t size);

/* SECS (negative as 0) as Slurm prints a duration (secs2time_str, as
 * squeue and scontrol show job): HH:MM:SS, D-HH:MM:SS with days.  A bare
 * number would read as minutes in Slurm's time format.  Returns BUF. */
char *mdc_jobs_fmt_secs(long secs, char *buf, size_t size);

/* ---- enforcement (mdc_jobs_enforce.c, links libslurm) ---- */

/* What a cycle decided for one job with a policy. */
enum mdc_jobs_verdict {
	MDC_JOBS_WAITING,	/* pending for resources, wait not over */
	MDC_JOBS_NOT_COUNTED,	/* pending for another reason (held, dependency...) */
	MDC_JOBS_STARTED,	/* no longer pending: left alone */
	MDC_JOBS_DONE,		/* already fell back earlier */
	MDC_JOBS_FELL_BACK,	/* moved to its fallback partition now */
	MDC_JOBS_CANCELLED,	/* cancelled now */
	MDC_JOBS_DUE,		/* expired; a dry run would act now */
	MDC_JOBS_FAILED,	/* the action failed (see the entry's message) */
	MDC_JOBS_BAD_RECORD,	/* the AdminComment record is malformed */
};
const char *mdc_jobs_verdict_name(enum mdc_jobs_verdict v);

struct mdc_jobs_entry {
	uint32_t job_id;
	char id[72];			/* for people: "123", or "123_[4-9]" for the
					 * pending tasks of an array (cut if long) */
	uint32_t user_id;
	const char *partition;		/* borrowed, valid during the callback */
	const char *state;		/* PENDING, RUNNING, ... */
	const char *reason;		/* Resources, PartitionDown, ... */
	struct mdc_jobs_policy policy;
	time_t since;			/* eligible time, else submit time */
	long remaining;			/* seconds; <= 0: the wait is over */
	enum mdc_jobs_verdict verdict;
	char msg[512];			/* why, for FAILED / BAD_RECORD */
};

struct mdc_jobs_stats {
	size_t jobs;			/* jobs loaded */
	size_t with_policy;
	size_t fell_back, cancelled, failed;
};

/* Called once per job with a policy; ARG is the caller's. */
typedef void (*mdc_jobs_report_fn)(const struct mdc_jobs_entry *e, void *arg);

/* One enforcement cycle: one slurm_load_jobs(), then for each pending job
 * whose recorded wait has expired while it was pending for resources
 * (mdc_jobs_counted_reason), the action: fall back (slurm_update_job:
 * Partition=FALLBACK and the record marked expired=fell-back) or fail (the
 * record marked expired=cancelled, then slurm_kill_job).  With ACT false
 * nothing is changed (the listing).  NOW is the clock to judge by.
 * Idempotent and safe beside a second enforcer: each due job is loaded
 * again (slurm_load_job) and judged on that fresh record just before the
 * action, so a job another enforcer already moved is DONE, one that
 * started or ended meanwhile is left alone (STARTED), and "already done"
 * answers to the action itself are not failures.  A job array's record
 * of pending tasks is acted on by those tasks only (123_[4-9]), never by
 * the array's number, which would reach its running tasks too.  STOP (may be NULL):
 * once *STOP is set, no further job is acted on (they stay DUE).  REPORT (may be NULL) sees every job with a policy; STATS (may
 * be NULL) is filled.  The caller has called slurm_init() (libslurm exits
 * the process when slurm.conf cannot be read: check it first).  Errors: MDC_ERR_IO when the jobs cannot be loaded
 * (CTX says why); failures on single jobs are reported, not returned. */
int mdc_jobs_enforce_cycle(bool act, time_t now, const volatile sig_atomic_t *stop,
			   mdc_jobs_report_fn report, void *arg, struct mdc_jobs_stats *stats,
			   struct mdc_ctx *ctx);

#endif
