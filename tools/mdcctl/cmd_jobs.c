/* cmd_jobs.c - `mdcctl jobs [list]` and `mdcctl jobs enforce [--once]
 * [--interval S]`: the job wait policy seen from slurmctld's queue, and the
 * enforcement cycle (lib/mdc_jobs_enforce.c) for a timer or a loop.
 * Talks to the local slurmctld through libslurm; no cluster API needed.
 * (owner: plugins)
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include "mdc_jobs.h"
#include "mdc_managed.h"
#include "mdcctl.h"

#define JOBS_LIST_FORM "mdcctl jobs [list]\n"
#define JOBS_ENFORCE_FORM "mdcctl jobs enforce [--once] [--interval SECONDS]\n"
#define JOBS_LIST_HELP \
	"  list      jobs with a wait policy, their remaining wait and what happens next\n" \
	"            (with --remote: every job of the cluster, read through callSlurmRestApi)"
#define JOBS_ENFORCE_HELP \
	"  enforce   act on expired waits: move to the fallback partition or cancel\n" \
	"  --once    one cycle, then exit (for a systemd timer or cron)\n" \
	"  --interval SECONDS  between cycles (default 30)"
static const char jobs_usage[] =
	"usage: " JOBS_LIST_FORM "   or: " JOBS_ENFORCE_FORM JOBS_LIST_HELP "\n" JOBS_ENFORCE_HELP;
static const char jobs_list_usage[] = "usage: " JOBS_LIST_FORM JOBS_LIST_HELP;
static const char jobs_enforce_usage[] = "usage: " JOBS_ENFORCE_FORM JOBS_ENFORCE_HELP;

/* What happens next, in words, for the listing. */
static const char *jobs_next(const struct mdc_jobs_entry *e, char *buf, size_t size)
{
	switch (e->verdict) {
	case MDC_JOBS_WAITING:
	case MDC_JOBS_DUE:
		if (e->policy.action == MDC_JOBS_FALL_BACK)
			snprintf(buf, size, "move to %s", e->policy.fallback);
		else
			snprintf(buf, size, "cancel");
		return buf;
	case MDC_JOBS_NOT_COUNTED:
		return "nothing while not pending for resources";
	case MDC_JOBS_STARTED:
		return "nothing (left pending state)";
	case MDC_JOBS_DONE:
	case MDC_JOBS_FELL_BACK:
		snprintf(buf, size, "moved to %s", e->policy.fallback);
		return buf;
	case MDC_JOBS_CANCELLED:
		return "cancelled";
	case MDC_JOBS_FAILED:
	case MDC_JOBS_BAD_RECORD:
		return e->msg;
	}
	return "?";
}

static void jobs_list_row(const struct mdc_jobs_entry *e, void *arg)
{
	char rem[32], wait[32], next[160], part[160], reason[64];

	(void) arg;
	if (e->verdict == MDC_JOBS_WAITING || e->verdict == MDC_JOBS_DUE)
		mdc_jobs_fmt_secs(e->remaining, rem, sizeof(rem));
	else
		snprintf(rem, sizeof(rem), "-");
	printf("%-10s %-14s %-10s %-18s %-10s %-10s %s\n", e->id,
	       mdc_jobs_log_escape(e->partition, part, sizeof(part)), e->state,
	       mdc_jobs_log_escape(e->reason, reason, sizeof(reason)),
	       mdc_jobs_fmt_secs((long) e->policy.wait, wait, sizeof(wait)), rem,
	       jobs_next(e, next, sizeof(next)));
}

/* One line per action or failure: the enforcement log. */
static void jobs_enforce_row(const struct mdc_jobs_entry *e, void *arg)
{
	char when[32], part[160];
	time_t now = time(NULL);
	struct tm tm;
	int *failed = arg;

	if (e->verdict != MDC_JOBS_FELL_BACK && e->verdict != MDC_JOBS_CANCELLED &&
	    e->verdict != MDC_JOBS_FAILED && e->verdict != MDC_JOBS_BAD_RECORD)
		return;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", gmtime_r(&now, &tm));
	mdc_jobs_log_escape(e->partition, part, sizeof(part));
	if (e->verdict == MDC_JOBS_FELL_BACK)
		printf("%s job %s: waited %u s in %s: moved to partition %s\n", when, e->id,
		       e->policy.wait, part, e->policy.fallback);
	else if (e->verdict == MDC_JOBS_CANCELLED)
		printf("%s job %s: waited %u s in %s: cancelled (on-timeout=fail)\n", when,
		       e->id, e->policy.wait, part);
	else {
		fprintf(stderr, "mdcctl: error: job %s: %s\n", e->id, e->msg);
		(*failed)++;
	}
}

static int jobs_list(struct mdcctl *g)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_jobs_stats st;

	printf("%-10s %-14s %-10s %-18s %-10s %-10s %s\n", "JOBID", "PARTITION", "STATE",
	       "REASON", "WAIT", "REMAINING", "NEXT");
	if (mdc_jobs_enforce_cycle(false, time(NULL), NULL, jobs_list_row, NULL, &st, &ctx))
		return mdcctl_fail(g, &ctx);
	return 0;
}

static int jobs_enforce(struct mdcctl *g, bool once, long interval)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_jobs_stats st;
	int failed;

	for (;;) {
		failed = 0;
		mdc_ctx_clear(&ctx);
		if (mdc_jobs_enforce_cycle(true, time(NULL), &mdcctl_interrupted, jobs_enforce_row, &failed, &st, &ctx)) {
			if (once)
				return mdcctl_fail(g, &ctx);
			fprintf(stderr, "mdcctl: error: %s (retrying in %ld s)\n", ctx.msg, interval);
		}
		if (fflush(stdout))
			return mdcctl_finish(1);
		if (once)
			return failed ? 1 : 0;
		for (long s = 0; s < interval; s++) {
			if (mdcctl_interrupted)
				return 130;
			sleep(1);
		}
	}
}

/* libslurm retries a missing slurm.conf for a minute and then exits:
 * say it at once instead. */
static int jobs_slurm_init(struct mdcctl *g)
{
	const char *conf = mdc_managed_default_path();
	struct mdc_ctx ctx = { 0 };

	if (access(conf, R_OK)) {
		mdc_fail(&ctx, MDC_ERR_IO, "cannot read slurm.conf '%s' (%s): run on a node of "
			 "the cluster or set SLURM_CONF", conf, strerror(errno));
		return mdcctl_fail(g, &ctx);
	}
	slurm_init(NULL);
	return 0;
}

/* `jobs [list]`: no options but --help, no arguments; ARGV[0] "jobs"
 * (USAGE: all of jobs') or "list". */
static int jobs_list_cmd(struct mdcctl *g, int argc, char **argv, const char *usage)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int opt, rc = 0;

	/* one call: any option but --help is an error */
	if ((opt = mdcctl_getopt(g, argc, argv, "h", opts, &rc)) == 'h') {
		puts(usage);
		return 0;
	}
	if (rc)
		return rc;
	if (optind < argc)
		return mdcctl_usage(g, "jobs list takes no arguments\n%s", jobs_list_usage);
	if (g->remote)
		return mdcctl_finish(mdcctl_jobs_remote(g));
	if ((rc = jobs_slurm_init(g)))
		return rc;
	return mdcctl_finish(jobs_list(g));
}

/* `jobs enforce [--once] [--interval SECONDS]` (ARGV[0] "enforce") */
static int jobs_enforce_cmd(struct mdcctl *g, int argc, char **argv)
{
	enum { O_ONCE = 256, O_INTERVAL };
	static const struct option opts[] = {
		{ "once", no_argument, NULL, O_ONCE },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mdc_ctx ctx = { 0 };
	bool once = false;
	long interval = 30;
	int opt, rc = 0;

	while ((opt = mdcctl_getopt(g, argc, argv, "h", opts, &rc)) != -1 && opt != '?') {
		if (opt == 'h') {
			puts(jobs_enforce_usage);
			return 0;
		}
		if (opt == O_ONCE)
			once = true;
		else if (mdc_jobs_interval_parse(optarg, false, "--interval", &interval, &ctx))
			return mdcctl_usage(g, "%s", ctx.msg);
	}
	if (rc)
		return rc;
	if (optind < argc)
		return mdcctl_usage(g, "jobs enforce: unexpected argument '%s'\n%s", argv[optind],
				    jobs_enforce_usage);
	if (g->remote)
		return mdcctl_usage(g, "jobs enforce: no --remote: it acts through the local slurmctld");
	if ((rc = jobs_slurm_init(g)))
		return rc;
	return mdcctl_finish(jobs_enforce(g, once, interval));
}

int cmd_jobs(struct mdcctl *g, int argc, char **argv)
{
	/* no subcommand (options or nothing after "jobs") is list */
	if (argc == 1 || argv[1][0] == '-')
		return jobs_list_cmd(g, argc, argv, jobs_usage);
	if (!strcmp(argv[1], "list"))
		return jobs_list_cmd(g, argc - 1, argv + 1, jobs_list_usage);
	if (!strcmp(argv[1], "enforce"))
		return jobs_enforce_cmd(g, argc - 1, argv + 1);
	return mdcctl_usage(g, "unknown jobs command '%s'\n%s", argv[1], jobs_usage);
}
