/* spank_mdc.c - spank/mdc: the managed cluster's name and API endpoint in
 * every job's environment and in the job prolog/epilog, and the
 * --mdc-managed-only option.  (owner: plugins)
 *
 * plugstack.conf:
 *   optional /path/spank_mdc.so [cluster=NAME] [endpoint=URL] [log=PATH]
 *
 * Values come from the arguments, else from the Cluster / Endpoint keys of
 * MDC_CONF or /etc/slurm/mdc.conf, read with the small reader of
 * mdc_managed.h rather than the client's settings loader: the loader
 * refuses keys it does not know (JobSubmitMode lives in the same file),
 * and slurmstepd should not need the HTTP client.
 *
 * Job wait policy (mdc_jobs.h): --mdc-wait-time=DURATION,
 * --mdc-on-timeout=fail|fall-back-to-on-demand and
 * --mdc-fallback-partition=NAME are checked when sbatch/srun/salloc parse
 * them (a bad value stops the command before anything is sent).  They
 * reach job_submit/mdc, which validates them against the site settings and
 * records the policy on the job, the way Slurm forwards every SPANK option
 * set: as _SLURM_SPANK_OPTION_mdc_<option> in the job control environment.
 * The plugin adds no variable of its own for them: sbatch copies each job
 * control variable into its environment through a 256 KB buffer, which
 * made two more variables a measurable part of a submission's cost.
 *
 * Cost in sbatch (bench/sbatch.sh): the plugin links nothing but libc
 * (json-c and the unused parser parts are dropped at link time), reads
 * mdc.conf once, and sets only MDC_CLUSTER/MDC_ENDPOINT.
 *
 * MDC_ACCESS_TOKEN (a credential of the submitting shell) is removed from
 * every job's and task's environment.
 *
 * Every callback goes through one dispatch on spank_context():
 *   local/allocator (srun, sbatch, salloc): --mdc-managed-only marks the job
 *     (Slurm's option variable, which job_submit/mdc enforces at
 *     submission) and srun checks its allocation's partition before any
 *     task starts (fatal when the plugin is "required"); MDC_CLUSTER and
 *     MDC_ENDPOINT go to the job control environment (SPANK_MDC_* in
 *     Prolog=/Epilog= scripts);
 *   remote (slurmstepd): the same check, as a message only, and
 *     MDC_CLUSTER/MDC_ENDPOINT exported to each task;
 *   job_script (SPANK job prolog/epilog): MDC_CLUSTER/MDC_ENDPOINT set in
 *     the hook's environment, and with log=PATH a line appended there.
 */
#include "config.h"
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/spank.h>
#include "mdc_jobs.h"
#include "mdc_managed.h"

SPANK_PLUGIN(mdc, 1);

#define SP "spank/mdc"
#define SP_TOKEN_ENV "MDC_ACCESS_TOKEN"

/* An escaped copy of a user-controlled string for a message. */
#define SP_ESC(s) mdc_jobs_log_escape((s), (char[512]){ 0 }, 512)

/* Slurm calls these (exported by spank_mdc.map). */
int slurm_spank_init(spank_t sp, int ac, char **av);
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av);
int slurm_spank_local_user_init(spank_t sp, int ac, char **av);
int slurm_spank_user_init(spank_t sp, int ac, char **av);
int slurm_spank_task_init(spank_t sp, int ac, char **av);
int slurm_spank_job_prolog(spank_t sp, int ac, char **av);
int slurm_spank_job_epilog(spank_t sp, int ac, char **av);
int slurm_spank_exit(spank_t sp, int ac, char **av);

enum sp_hook { H_INIT, H_POST_OPT, H_LOCAL_USER, H_USER, H_TASK, H_PROLOG, H_EPILOG, H_EXIT };
static const char *const sp_hook_name[] = {
	"init", "init_post_opt", "local_user_init", "user_init", "task_init",
	"job_prolog", "job_epilog", "exit",
};

struct sp_cfg {
	char *cluster, *endpoint, *log;
	bool managed_only;
	bool args_done;
	struct mdc_jobs_request wait;	/* the wait policy options */
};
static struct sp_cfg sp_cfg;

static int sp_managed_only_cb(int val, const char *optarg, int remote);

static struct spank_option sp_opt_managed_only = {
	"mdc-managed-only", NULL,
	"Fail the job unless its partition is declared in the managed slurm.conf "
	"(runtime-only partitions disappear at the next regeneration) [spank_mdc]",
	0, 0, sp_managed_only_cb,
};

static int sp_wait_cb(int val, const char *optarg, int remote);

/* The wait policy options; VAL is the index in this table. */
static struct spank_option sp_wait_opts[] = {
	{ "mdc-wait-time", "DURATION",
	  "Wait at most DURATION (minutes, MM:SS, HH:MM:SS, D-HH[:MM[:SS]], or 30s/10m/2h) "
	  "pending for resources, then apply --mdc-on-timeout [spank_mdc]",
	  1, 0, sp_wait_cb },
	{ "mdc-on-timeout", "ACTION",
	  "When --mdc-wait-time expires: fail (cancel the job) or fall-back-to-on-demand "
	  "(move it to --mdc-fallback-partition) [spank_mdc]",
	  1, 1, sp_wait_cb },
	{ "mdc-fallback-partition", "NAME",
	  "The partition fall-back-to-on-demand moves the job to [spank_mdc]",
	  1, 2, sp_wait_cb },
};
#define SP_NWAIT (sizeof(sp_wait_opts) / sizeof(sp_wait_opts[0]))

static int sp_wait_cb(int val, const char *optarg, int remote)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_jobs_request *r = &sp_cfg.wait;
	int bad;

	if (remote)
		return ESPANK_SUCCESS;
	if (val == 0)
		bad = mdc_jobs_duration_parse(optarg, &r->wait, &ctx);
	else if (val == 1)
		bad = mdc_jobs_action_parse(optarg, &r->action, &ctx);
	else if (!(bad = mdc_jobs_part_check(optarg, &ctx)))
		snprintf(r->fallback, sizeof(r->fallback), "%s", optarg);
	if (bad) {
		slurm_error(SP ": --%s=%s: %s", sp_wait_opts[val].name, SP_ESC(optarg),
			    SP_ESC(ctx.msg));
		return -1;
	}
	return ESPANK_SUCCESS;
}

/* What needs no site setting is refused here, before anything is sent. */
static int sp_wait_check(void)
{
	const struct mdc_jobs_request *r = &sp_cfg.wait;

	if (r->action == MDC_JOBS_FAIL && r->fallback[0]) {
		slurm_error(SP ": --mdc-fallback-partition=%s contradicts --mdc-on-timeout=fail",
			    SP_ESC(r->fallback));
		return -1;
	}
	/* the values themselves travel as Slurm's option variables */
	return 0;
}

static int sp_managed_only_cb(int val, const char *optarg, int remote)
{
	(void) val; (void) optarg; (void) remote;
	sp_cfg.managed_only = true;
	return ESPANK_SUCCESS;
}

static int sp_set(char **dst, const char *val)
{
	char *c = strdup(val);

	if (!c)
		return -1;
	free(*dst);
	*dst = c;
	return 0;
}

/* Plugin arguments, then mdc.conf for what they leave unset. */
static int sp_args(int ac, char **av)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "cluster=", offsetof(struct sp_cfg, cluster) },
		{ "endpoint=", offsetof(struct sp_cfg, endpoint) },
		{ "log=", offsetof(struct sp_cfg, log) },
	};
	static const char *const conf_keys[] = { "Cluster", "Endpoint" };
	struct mdc_ctx ctx = { 0 };
	const char *conf = getenv("MDC_CONF");
	char **dst, *vals[2];
	size_t k;

	if (sp_cfg.args_done)
		return 0;
	for (int i = 0; i < ac; i++) {
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strncmp(av[i], keys[k].key, strlen(keys[k].key)))
				break;
		if (k == sizeof(keys) / sizeof(keys[0])) {
			slurm_error(SP ": unknown plugstack.conf argument '%s' "
				    "(use cluster=NAME, endpoint=URL or log=PATH)", SP_ESC(av[i]));
			return -1;
		}
		dst = (char **) ((char *) &sp_cfg + keys[k].off);
		if (sp_set(dst, av[i] + strlen(keys[k].key)))
			return -1;
	}
	if (!conf || !*conf)
		conf = MDC_MANAGED_MDC_CONF;
	/* one read of mdc.conf for both, none when the arguments set both */
	if (!sp_cfg.cluster || !sp_cfg.endpoint) {
		if (mdc_managed_conf_getv(conf, conf_keys, 2, true, vals, &ctx)) {
			/* not fatal: the job runs, without those variables */
			slurm_error(SP ": %s", SP_ESC(ctx.msg));
		} else {
			/* an argument wins over the file */
			for (k = 0; k < 2; k++) {
				dst = k ? &sp_cfg.endpoint : &sp_cfg.cluster;
				if (*dst)
					free(vals[k]);
				else
					*dst = vals[k];
			}
		}
	}
	sp_cfg.args_done = true;
	return 0;
}

/* The shared check for partition list PARTS; -1 (after saying why) when
 * it names a runtime-only partition. */
static int sp_check(const char *parts)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_managed *m = NULL;
	int rc = 0;

	if (mdc_managed_load(mdc_managed_default_path(), &m, &ctx) ||
	    mdc_managed_check(m, parts, NULL, &ctx)) {
		slurm_error(SP ": --mdc-managed-only: %s", SP_ESC(ctx.msg));
		rc = -1;
	}
	mdc_managed_free(m);
	return rc;
}

static void sp_prolog_log(spank_t sp, enum sp_hook h)
{
	uint32_t job = 0;
	FILE *fp;

	if (!sp_cfg.log)
		return;
	(void) spank_get_item(sp, S_JOB_ID, &job);
	if (!(fp = fopen(sp_cfg.log, "a"))) {
		slurm_error(SP ": cannot append to log='%s': %s", sp_cfg.log, strerror(errno));
		return;
	}
	/* what a hook run from here would see */
	fprintf(fp, "%s job=%u MDC_CLUSTER=%s MDC_ENDPOINT=%s\n", sp_hook_name[h], job,
		getenv("MDC_CLUSTER") ? getenv("MDC_CLUSTER") : "",
		getenv("MDC_ENDPOINT") ? getenv("MDC_ENDPOINT") : "");
	if (fclose(fp))
		slurm_error(SP ": cannot write log='%s': %s", sp_cfg.log, strerror(errno));
}

/* Set NAME=VAL through the context's own channel. */
static int sp_export(spank_t sp, const char *name, const char *val)
{
	spank_context_t c = spank_context();
	int rc = 0;

	if (!val || !*val)
		return 0;
	if (c == S_CTX_REMOTE)
		rc = spank_setenv(sp, name, val, 1) == ESPANK_SUCCESS ? 0 : -1;
	else if (c == S_CTX_LOCAL || c == S_CTX_ALLOCATOR)
		rc = spank_job_control_setenv(sp, name, val, 1) == ESPANK_SUCCESS ? 0 : -1;
	else if (c == S_CTX_JOB_SCRIPT)
		rc = setenv(name, val, 1);
	if (rc)
		slurm_error(SP ": cannot export %s=%s", name, SP_ESC(val));
	return rc;
}

static int sp_dispatch(spank_t sp, enum sp_hook h, int ac, char **av)
{
	spank_context_t c = spank_context();
	char part[256];
	const char *p;

	if (sp_args(ac, av))
		return -1;
	switch (h) {
	case H_INIT:
		/* every context that parses or sees the job's options */
		if (c == S_CTX_SLURMD) {
			/* once per slurmd start: nothing to put in jobs */
			if (!sp_cfg.cluster && !sp_cfg.endpoint)
				slurm_info(SP ": no cluster= or endpoint= in plugstack.conf and no "
					   "Cluster/Endpoint in mdc.conf: jobs get no "
					   "MDC_CLUSTER/MDC_ENDPOINT");
			return 0;
		}
		if (spank_option_register(sp, &sp_opt_managed_only) != ESPANK_SUCCESS) {
			slurm_error(SP ": cannot register --%s", sp_opt_managed_only.name);
			return -1;
		}
		for (size_t i = 0; i < SP_NWAIT; i++)
			if (spank_option_register(sp, &sp_wait_opts[i]) != ESPANK_SUCCESS) {
				slurm_error(SP ": cannot register --%s", sp_wait_opts[i].name);
				return -1;
			}
		return 0;
	case H_POST_OPT:
		if (c != S_CTX_LOCAL && c != S_CTX_ALLOCATOR)
			return 0;
		/* --mdc-managed-only reaches job_submit/mdc as Slurm's option
		 * variable, and the job is refused at submission in any mode */
		if (sp_export(sp, "MDC_CLUSTER", sp_cfg.cluster) ||
		    sp_export(sp, "MDC_ENDPOINT", sp_cfg.endpoint) || sp_wait_check())
			return -1;
		return 0;
	case H_LOCAL_USER:
		/* srun, allocation granted, no task started yet: fails the run
		 * when the plugin is "required" (Slurm ignores an optional
		 * plugin's failures, but the message is printed) */
		if (!sp_cfg.managed_only)
			return 0;
		p = getenv("SLURM_JOB_PARTITION");
		return p ? sp_check(p) : 0;
	case H_USER:
		/* slurmstepd: say it in the job's stderr, never fail here (a
		 * batch step failing in user_init drains the node); sbatch and
		 * salloc jobs are refused at submission by job_submit/mdc */
		/* a credential of the submitting shell never reaches the job */
		if (c == S_CTX_REMOTE)
			(void) spank_unsetenv(sp, SP_TOKEN_ENV);
		if (sp_cfg.managed_only && c == S_CTX_REMOTE &&
		    spank_getenv(sp, "SLURM_JOB_PARTITION", part, sizeof(part)) == ESPANK_SUCCESS)
			(void) sp_check(part);
		return 0;
	case H_TASK:
		if (c == S_CTX_REMOTE)
			(void) spank_unsetenv(sp, SP_TOKEN_ENV);
		if (sp_export(sp, "MDC_CLUSTER", sp_cfg.cluster) ||
		    sp_export(sp, "MDC_ENDPOINT", sp_cfg.endpoint))
			return -1;
		return 0;
	case H_PROLOG:
	case H_EPILOG:
		/* never fail here: a failing prolog drains the node */
		(void) sp_export(sp, "MDC_CLUSTER", sp_cfg.cluster);
		(void) sp_export(sp, "MDC_ENDPOINT", sp_cfg.endpoint);
		sp_prolog_log(sp, h);
		return 0;
	case H_EXIT:
		free(sp_cfg.cluster);
		free(sp_cfg.endpoint);
		free(sp_cfg.log);
		memset(&sp_cfg, 0, sizeof(sp_cfg));
		return 0;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	return sp_dispatch(sp, H_INIT, ac, av);
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	return sp_dispatch(sp, H_POST_OPT, ac, av);
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	return sp_dispatch(sp, H_LOCAL_USER, ac, av);
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	return sp_dispatch(sp, H_USER, ac, av);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	return sp_dispatch(sp, H_TASK, ac, av);
}

int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
	char *v = NULL;

	/* in job_script context options are only visible through getopt */
	if (spank_option_getopt(sp, &sp_opt_managed_only, &v) == ESPANK_SUCCESS)
		sp_cfg.managed_only = true;
	return sp_dispatch(sp, H_PROLOG, ac, av);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	return sp_dispatch(sp, H_EPILOG, ac, av);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	return sp_dispatch(sp, H_EXIT, ac, av);
}
