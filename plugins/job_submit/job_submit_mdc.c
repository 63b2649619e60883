/* job_submit_mdc.c - job_submit/mdc: refuse jobs aimed at partitions that
 * exist only at runtime (`scontrol create`), which the next regeneration
 * of the managed slurm.conf removes together with their queued jobs.
 * (owner: plugins)
 *
 * slurm.conf:  JobSubmitPlugins=mdc
 * Mode: MDC_JOB_SUBMIT_MODE in slurmctld's environment, else the
 * JobSubmitMode key of MDC_CONF / /etc/slurm/mdc.conf: "reject" (default)
 * or "warn" (accept and log).  A job submitted with the SPANK option
 * --mdc-managed-only is refused in both modes.
 *
 * Job wait policy (mdc_jobs.h): the --mdc-wait-time / --mdc-on-timeout /
 * --mdc-fallback-partition options spank_mdc puts in the job control
 * environment, over the JobWaitDefault of mdc.conf for the job's
 * partition, checked (JobWaitMax, the fallback partition is managed, not
 * one the job asks for, and lets the job's user in: mdc_managed_access,
 * with the user's default account and QOS when the job names none)
 * and recorded in the job's AdminComment as
 * "mdc:wait=SECS,on-timeout=ACTION[,fallback=PART]" for the enforcer
 * (mdcctl jobs enforce).  A bad policy is refused in both modes.
 *
 * Every user-controlled string in a log line is escaped
 * (mdc_jobs_log_escape): a partition name may hold a newline.
 *
 * The partition set and the mode are read at init() (slurmctld start) and
 * again when the file's stat() changes: `scontrol reconfigure` in 22.05
 * does not reload job_submit plugins whose list is unchanged, and a
 * regenerated slurm.conf must be seen.  No unbounded I/O in the submission
 * path: two stat() calls per job, a re-read only after a change.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>
#include "mdc_jobs.h"
#include "mdc_managed.h"

/* From libslurmfull, resolved in slurmctld at dlopen(). */
extern slurm_conf_t slurm_conf;
extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **p);
extern void slurm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* slurmctld's association manager (its own copy of slurmdbd's records,
 * no RPC) and connection, the same in 22.05, 24.11 and 26.05; weak: a
 * load outside slurmctld has none, and no default is looked up. */
extern void *acct_db_conn __attribute__((weak));
extern uint16_t accounting_enforce __attribute__((weak));
extern int assoc_mgr_fill_in_user(void *db_conn, slurmdb_user_rec_t *user, int enforce,
				  slurmdb_user_rec_t **user_pptr, bool locked)
	__attribute__((weak));
extern int assoc_mgr_fill_in_assoc(void *db_conn, slurmdb_assoc_rec_t *assoc, int enforce,
				   slurmdb_assoc_rec_t **assoc_pptr, bool locked)
	__attribute__((weak));
extern int assoc_mgr_fill_in_qos(void *db_conn, slurmdb_qos_rec_t *qos, int enforce,
				 slurmdb_qos_rec_t **qos_pptr, bool locked)
	__attribute__((weak));

/* The symbols Slurm looks up (exported by job_submit_mdc.map). */
const char plugin_name[] = "job_submit mdc: refuse jobs for runtime-only partitions";
const char plugin_type[] = "job_submit/mdc";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;
int init(void);
int fini(void);
int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid);

#define MDC_JS "job_submit/mdc"
/* Slurm forwards every SPANK option given in the job control environment
 * as _SLURM_SPANK_OPTION_<plugin>_<option> (non-alphanumerics as '_'; the
 * plugin is SPANK_PLUGIN(mdc, 1) of spank_mdc.c), with the raw value
 * (none for a flag): spank_mdc.so sets no variable of its own for them.
 * The names an older spank_mdc.so set are still read, after these. */
#define JS_OPT(name) "_SLURM_SPANK_OPTION_mdc_" name
static const struct {
	const char *opt, *legacy;
} js_opt_env[] = {
	{ JS_OPT("mdc_wait_time"), MDC_JOBS_ENV_WAIT },
	{ JS_OPT("mdc_on_timeout"), MDC_JOBS_ENV_ACTION },
	{ JS_OPT("mdc_fallback_partition"), MDC_JOBS_ENV_FALLBACK },
	{ JS_OPT("mdc_managed_only"), "MDC_MANAGED_ONLY" },
};
enum { JS_WAIT, JS_ACTION, JS_FALLBACK, JS_MANAGED_ONLY };

static pthread_mutex_t js_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mdc_managed *js_set;	/* NULL: unreadable file, fail open */
static struct stat js_st;		/* of the file js_set came from */
static bool js_warn;
static struct stat js_mode_st;		/* of mdc.conf when the mode was read */
static bool js_mode_env;		/* MDC_JOB_SUBMIT_MODE set: fixed */
static struct mdc_jobs_site js_site;	/* JobWaitMax / JobWaitDefault */
static struct stat js_site_st;		/* of mdc.conf when js_site was read */

/* An escaped copy of a user-controlled string for a log line. */
#define JS_ESC(s) mdc_jobs_log_escape((s), (char[512]){ 0 }, 512)

static const char *js_path(void)
{
	return slurm_conf.slurm_conf && *slurm_conf.slurm_conf ?
		slurm_conf.slurm_conf : mdc_managed_default_path();
}

static bool js_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* (Re)read the partition set; called with js_lock held.  FORCE: even if
 * the file looks unchanged. */
static void js_load(bool force)
{
	struct mdc_ctx ctx = { 0 };
	struct mdc_managed *m = NULL;
	const char *path = js_path();
	struct stat st;

	if (stat(path, &st) != 0) {
		if (force || js_set)
			slurm_error(MDC_JS ": cannot stat '%s': partitions are not checked "
				    "until it is readable", path);
		mdc_managed_free(js_set);
		js_set = NULL;
		return;
	}
	if (!force && js_set && js_same_file(&st, &js_st))
		return;
	if (mdc_managed_load(path, &m, &ctx)) {
		slurm_error(MDC_JS ": %s: partitions are not checked until the file is fixed",
			    ctx.msg);
		mdc_managed_free(js_set);
		js_set = NULL;
		js_st = st;
		return;
	}
	mdc_managed_free(js_set);
	js_set = m;
	js_st = st;
	slurm_info(MDC_JS ": %zu managed partitions from '%s'", m->parts.n, path);
}

/* The mode, from the environment or mdc.conf; unknown values keep the
 * safe default (reject) and say so.  Called with js_lock held; FORCE:
 * even if mdc.conf looks unchanged. */
static void js_read_mode(bool force)
{
	struct mdc_ctx ctx = { 0 };
	const char *env = getenv("MDC_JOB_SUBMIT_MODE"), *conf = getenv("MDC_CONF");
	char *val = NULL;
	const char *v = env, *from = "MDC_JOB_SUBMIT_MODE";
	struct stat st;
	bool was = js_warn;

	if (!conf || !*conf)
		conf = MDC_MANAGED_MDC_CONF;
	js_mode_env = v && *v;
	if (!js_mode_env) {
		if (stat(conf, &st) != 0)
			memset(&st, 0, sizeof(st));
		if (!force && js_same_file(&st, &js_mode_st))
			return;
		js_mode_st = st;
		if (mdc_managed_conf_get(conf, "JobSubmitMode", true, &val, &ctx))
			slurm_error(MDC_JS ": %s", ctx.msg);
		v = val;
		from = conf;
	}
	js_warn = false;
	if (v && !strcasecmp(v, "warn"))
		js_warn = true;
	else if (v && *v && strcasecmp(v, "reject"))
		slurm_error(MDC_JS ": JobSubmitMode '%s' (from %s) is neither 'reject' nor "
			    "'warn': using 'reject'", v, from);
	if (!force && was != js_warn)
		slurm_info(MDC_JS ": mode %s (from %s)", js_warn ? "warn" : "reject", from);
	free(val);
}

static const char *js_conf(void)
{
	const char *conf = getenv("MDC_CONF");

	return conf && *conf ? conf : MDC_MANAGED_MDC_CONF;
}

/* The site's wait settings, re-read when mdc.conf changes; a bad value
 * keeps no defaults and no maximum beyond the hard limit, and says so.
 * Called with js_lock held. */
static void js_read_site(bool force)
{
	struct mdc_ctx ctx = { 0 };
	const char *conf = js_conf();
	struct stat st;

	if (stat(conf, &st) != 0)
		memset(&st, 0, sizeof(st));
	if (!force && js_same_file(&st, &js_site_st))
		return;
	js_site_st = st;
	mdc_jobs_site_free(&js_site);
	if (mdc_jobs_site_load(conf, &js_site, &ctx))
		slurm_error(MDC_JS ": %s: job wait defaults are not applied until it is fixed",
			    JS_ESC(ctx.msg));
	else if (js_site.n || js_site.max_wait)
		slurm_info(MDC_JS ": %zu job wait defaults, JobWaitMax %u s, from '%s'",
			   js_site.n, js_site.max_wait, conf);
}

int init(void)
{
	pthread_mutex_lock(&js_lock);
	js_read_mode(true);
	js_read_site(true);
	js_load(true);
	pthread_mutex_unlock(&js_lock);
	slurm_info(MDC_JS ": loaded, mode %s", js_warn ? "warn" : "reject");
	return SLURM_SUCCESS;
}

int fini(void)
{
	pthread_mutex_lock(&js_lock);
	mdc_managed_free(js_set);
	js_set = NULL;
	mdc_jobs_site_free(&js_site);
	pthread_mutex_unlock(&js_lock);
	return SLURM_SUCCESS;
}

/* The value of NAME in the job control environment spank_mdc.so set
 * (Slurm may store it with a SPANK_ prefix), or NULL.  Borrowed. */
static const char *js_env(const job_desc_msg_t *d, const char *name)
{
	size_t len = strlen(name);

	for (uint32_t i = 0; d->spank_job_env && i < d->spank_job_env_size; i++) {
		const char *e = d->spank_job_env[i];

		if (e && !strncmp(e, "SPANK_", 6))
			e += 6;
		if (e && !strncmp(e, name, len) && e[len] == '=')
			return e + len + 1;
	}
	return NULL;
}

/* The value of option WHICH (js_opt_env) as spank_mdc.so passed it, or
 * NULL.  Borrowed. */
static const char *js_opt(const job_desc_msg_t *d, int which)
{
	const char *v = js_env(d, js_opt_env[which].opt);

	return v ? v : js_env(d, js_opt_env[which].legacy);
}

/* Did the submitter ask for --mdc-managed-only (spank_mdc.so)? */
static bool js_managed_only(const job_desc_msg_t *d)
{
	return js_opt(d, JS_MANAGED_ONLY) != NULL;
}

static bool js_has_part(const char *name, void *arg)
{
	return mdc_managed_has(arg, name);
}

/* Slurm's partition states in slurm.conf's words */
static const struct {
	uint16_t state;
	const char *word;
} js_part_states[] = {
	{ PARTITION_UP, "UP" }, { PARTITION_DOWN, "DOWN" },
	{ PARTITION_DRAIN, "DRAIN" }, { PARTITION_INACTIVE, "INACTIVE" },
};

/* The settings of partition NAME as slurmctld holds them now, a runtime
 * `scontrol update PartitionName=... AllowGroups=... State=DOWN` included,
 * which the file on disk does not show (issue 24 item 4).  Asked through
 * slurmctld's own partition RPC: a submission holds the configuration and
 * partition locks for reading only, and that RPC takes those two, for
 * reading.  *P points into the message returned (the caller frees it
 * with slurm_free_partition_info_msg) and into MT; NULL when slurmctld
 * did not answer or has no such partition (the file is judged then). */
static partition_info_msg_t *js_live_part(const char *name, struct mdc_managed_part *p,
					  char *mt, size_t mtsz)
{
	partition_info_msg_t *msg = NULL;
	partition_info_t *pi = NULL;

	if (slurm_load_partitions((time_t) 0, &msg, SHOW_ALL) != SLURM_SUCCESS || !msg) {
		slurm_debug("%s: live partitions not read (%m): judging '%s' from the file",
			    MDC_JS, name);
		return NULL;
	}
	for (uint32_t i = 0; !pi && i < msg->record_count; i++)
		if (msg->partition_array[i].name && !strcmp(msg->partition_array[i].name, name))
			pi = &msg->partition_array[i];
	if (!pi) {
		slurm_free_partition_info_msg(msg);
		return NULL;
	}
	*p = (struct mdc_managed_part) {
		.state = "UNKNOWN",
		.root_only = pi->flags & PART_FLAG_ROOT_ONLY ? "YES" : NULL,
		.allow_groups = pi->allow_groups, .allow_accounts = pi->allow_accounts,
		.deny_accounts = pi->deny_accounts, .allow_qos = pi->allow_qos,
		.deny_qos = pi->deny_qos,
	};
	/* the two state bits only: a later release may add flags there */
	for (size_t i = 0; i < sizeof(js_part_states) / sizeof(js_part_states[0]); i++)
		if ((pi->state_up & (PARTITION_SUBMIT | PARTITION_SCHED)) == js_part_states[i].state)
			p->state = js_part_states[i].word;
	/* minutes, as slurm.conf takes them */
	if (pi->max_time == INFINITE)
		p->max_time = "UNLIMITED";
	else if (pi->max_time != NO_VAL && snprintf(mt, mtsz, "%" PRIu32, pi->max_time) > 0)
		p->max_time = mt;
	return msg;
}

/* The account and QOS slurmctld gives a job that names none (issue 24
 * item 3): the user's default account, and the default QOS of that
 * association in partition PART (the fallback, where the job would run),
 * as job_submit/lua's default_account/default_qos.  Copied into ACCT and
 * QOS (the assoc_mgr's strings are borrowed, read without its lock);
 * left "" when unknown (no accounting, no such association, or no
 * DefaultQOS: then the partition's lists are not judged on it). */
static void js_defaults(const job_desc_msg_t *d, const char *part, char *acct, size_t asz,
			char *qos, size_t qsz)
{
	slurmdb_user_rec_t user = { .uid = d->user_id };
	slurmdb_assoc_rec_t assoc = { .uid = d->user_id };
	slurmdb_qos_rec_t q = { 0 };
	int enforce;

	if (!assoc_mgr_fill_in_user || !assoc_mgr_fill_in_assoc || !assoc_mgr_fill_in_qos ||
	    !&acct_db_conn || !&accounting_enforce)
		return;
	enforce = accounting_enforce;
	if (!d->account && !*acct &&
	    assoc_mgr_fill_in_user(acct_db_conn, &user, enforce, NULL, false) == SLURM_SUCCESS &&
	    user.default_acct)
		snprintf(acct, asz, "%s", user.default_acct);
	if (d->qos || *qos)
		return;
	assoc.acct = d->account ? d->account : *acct ? acct : NULL;
	assoc.partition = (char *) part;
	if (!assoc.acct ||
	    assoc_mgr_fill_in_assoc(acct_db_conn, &assoc, enforce, NULL, false) != SLURM_SUCCESS ||
	    !assoc.def_qos_id)
		return;
	q.id = assoc.def_qos_id;
	if (assoc_mgr_fill_in_qos(acct_db_conn, &q, enforce, NULL, false) == SLURM_SUCCESS &&
	    q.name)
		snprintf(qos, qsz, "%s", q.name);
}

/* The job's wait policy: the options spank_mdc.so passed, over the site
 * default for its partition, validated again here (the environment may
 * not come from spank_mdc.so), recorded in AdminComment, which only
 * admins and plugins can set.  Called with js_lock held.  0, or -1 with
 * CTX saying why (for the user). */
static int js_policy(job_desc_msg_t *d, struct mdc_ctx *ctx)
{
	static const char *const opts[] = {
		"--mdc-wait-time", "--mdc-on-timeout", "--mdc-fallback-partition",
	};
	struct mdc_jobs_request req = { 0 };
	struct mdc_jobs_policy pol;
	char *comment = NULL;
	const char *v;
	int rc = -1, bad = 0, which = 0;

	if ((v = js_opt(d, JS_WAIT)))
		bad = mdc_jobs_duration_parse(v, &req.wait, ctx);
	if (!bad && (v = js_opt(d, JS_ACTION)) && ++which)
		bad = mdc_jobs_action_parse(v, &req.action, ctx);
	if (!bad && (v = js_opt(d, JS_FALLBACK)) && (which = 2) &&
	    !(bad = mdc_jobs_part_check(v, ctx)))
		snprintf(req.fallback, sizeof(req.fallback), "%.*s", MDC_JOBS_PART_MAX - 1, v);
	if (bad) {
		mdc_ctx_prefix(ctx, "%s", opts[which]);
		return -1;
	}
	if (mdc_jobs_resolve(&req, d->partition, js_set ? js_set->default_part : NULL, &js_site,
			     js_set ? js_has_part : NULL, js_set, &pol, ctx))
		return -1;
	if (!pol.wait)
		return 0;
	/* a fall-back to a partition the job cannot run in would strand it:
	 * slurmctld moves it there, then refuses (issue 24 item 3) */
	if (pol.action == MDC_JOBS_FALL_BACK && js_set) {
		char dacct[128] = "", dqos[128] = "";
		struct mdc_managed_job job = {
			.uid = d->user_id, .gid = d->group_id, .account = d->account, .qos = d->qos,
			.time_limit = d->time_limit == NO_VAL || d->time_limit == INFINITE ?
				0 : d->time_limit,
		};

		struct mdc_managed_part live;
		partition_info_msg_t *msg;
		char mt[16];
		int bad_part;

		/* none named: the ones slurmctld will give the job */
		if (!d->account || !d->qos) {
			js_defaults(d, pol.fallback, dacct, sizeof(dacct), dqos, sizeof(dqos));
			if (!job.account && *dacct)
				job.account = dacct;
			if (!job.qos && *dqos)
				job.qos = dqos;
		}

		/* the live record when slurmctld gives it, else the file */
		if ((msg = js_live_part(pol.fallback, &live, mt, sizeof(mt)))) {
			bad_part = mdc_managed_access_part(&live, pol.fallback, &job,
							   slurm_conf.slurm_user_id, ctx);
			slurm_free_partition_info_msg(msg);
		} else {
			bad_part = mdc_managed_access(js_set, pol.fallback, &job,
						      slurm_conf.slurm_user_id, ctx);
		}
		if (bad_part) {
			static const char *const dflt[] = { NULL, "account", "QOS", "account and QOS" };
			int dw = (job.account == dacct) | (job.qos == dqos) << 1;

			if (dflt[dw])
				mdc_ctx_prefix(ctx, "the job names no %s and gets its user's default",
					       dflt[dw]);
			mdc_ctx_prefix(ctx, "fallback partition '%s' would not run the job",
				       pol.fallback);
			return -1;
		}
	}
	if (!(comment = mdc_jobs_comment_with(d->admin_comment, &pol))) {
		mdc_nomem(ctx);
		goto out;
	}
	slurm_xfree((void **) &d->admin_comment);
	d->admin_comment = slurm_xstrdup(comment);
	rc = 0;
out:
	free(comment);
	return rc;
}

/* The shared check.  Returns SLURM_SUCCESS or the error to give back;
 * *MSG (if non-NULL and refusing) receives a message from Slurm's
 * allocator. */
static int js_check(job_desc_msg_t *d, uint32_t uid, const char *what, bool submit,
		    char **msg)
{
	struct mdc_ctx ctx = { 0 };
	bool strict;
	int rc = SLURM_SUCCESS;

	pthread_mutex_lock(&js_lock);
	if (!js_mode_env)
		js_read_mode(false);
	js_read_site(false);
	js_load(false);
	if (js_set && mdc_managed_check(js_set, d->partition, NULL, &ctx)) {
		strict = js_managed_only(d);
		if (!js_warn || strict) {
			slurm_info(MDC_JS ": %s by uid %u refused%s: %s", what, uid,
				   strict ? " (--mdc-managed-only)" : "", JS_ESC(ctx.msg));
			if (msg)
				*msg = slurm_xstrdup(JS_ESC(ctx.msg));
			rc = ESLURM_INVALID_PARTITION_NAME;
			goto out;
		}
		slurm_info(MDC_JS ": %s by uid %u accepted (warn mode): %s", what, uid,
			   JS_ESC(ctx.msg));
		/* slurmctld hands a successful submission's err_msg to the
		 * submitter (job_submit_user_msg): sbatch prints it */
		if (msg)
			*msg = slurm_xstrdup(JS_ESC(ctx.msg));
	}
	mdc_ctx_clear(&ctx);
	if (submit && js_policy(d, &ctx)) {
		slurm_info(MDC_JS ": %s by uid %u refused: %s", what, uid, JS_ESC(ctx.msg));
		if (msg) {
			slurm_xfree((void **) msg);
			*msg = slurm_xstrdup(JS_ESC(ctx.msg));
		}
		rc = SLURM_ERROR;
	}
out:
	pthread_mutex_unlock(&js_lock);
	return rc;
}

/* Both entry points leave errno as they found it: slurmctld 22.05's
 * _update_job reads errno after a partition change (_retrieve_new_assoc
 * returns NULL without setting it when there is no accounting), so the
 * ENOENT of our stat() of an absent mdc.conf became the refusal "No such
 * file or directory" of an admin's `scontrol update Partition=` (issue 24
 * item 4). */
int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	int saved = errno, rc;

	rc = js_check(job_desc, submit_uid, "job submission", true, err_msg);
	errno = saved;
	return rc;
}

/* 22.05 gives job_modify no err_msg: the refusal is logged and the user
 * sees "Invalid partition name specified".  An accepted partition change
 * leaves errno 0, not as found: _update_job reads errno as the reason of
 * a NULL association (above), and 24.11's slurmctld enters here with the
 * EAGAIN of its non-blocking RPC socket read still in errno, so the
 * enforcer's move was refused "Resource temporarily unavailable"
 * (jobs_lab.t on 24.11). */
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid)
{
	int rc;

	(void) job_ptr;
	if (!job_desc->partition)
		return SLURM_SUCCESS;
	rc = js_check(job_desc, submit_uid, "partition change", false, NULL);
	errno = 0;
	return rc;
}
