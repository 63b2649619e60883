/* mdc_jobs_enforce.c - one enforcement cycle of the job wait policy over
 * slurmctld's pending jobs, through the public libslurm.  (owner: plugins)
 *
 * Which pending reasons count as "waiting for capacity" (the wait runs
 * only while the job could start if capacity appeared): the table below.
 * Held jobs, dependencies, begin times, QOS/association limits and
 * reservations are the user's or the site's choice, not a lack of
 * capacity: their jobs are NOT_COUNTED and left alone.
 */
#include "config.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include "mdc_jobs.h"
#include "mdc_managed.h"

/* 24.11 has no slurm_get_errno(): its API calls leave their error in errno
 * (which is all slurm_get_errno() ever returned) */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#include <errno.h>
#define mdc_slurm_errno() errno
#else
#define mdc_slurm_errno() slurm_get_errno()
#endif

/* 26.05 names a job by a slurm_step_id_t (its id and sluid) in the job
 * descriptor and in slurm_load_job()/slurm_kill_job() */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
static slurm_step_id_t mdc_job_ref(uint32_t id)
{
	slurm_step_id_t s = SLURM_STEP_ID_INITIALIZER;

	s.job_id = id;
	return s;
}
#define MDC_DESC_JOB_ID(d) ((d).step_id.job_id)
#else
#define mdc_job_ref(id) (id)
#define MDC_DESC_JOB_ID(d) ((d).job_id)
#endif

/* Exported by libslurm, not declared in slurm/slurm.h. */
extern char *slurm_job_state_string(uint32_t inx);
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
/* renamed (job_state_reason_string in 24.11's slurm_xlator.h) */
extern const char *slurm_job_state_reason_string(enum job_state_reason inx);
#define slurm_job_reason_string slurm_job_state_reason_string
#else
extern const char *slurm_job_reason_string(enum job_state_reason inx);
#endif

static const enum job_state_reason jobs_counted[] = {
	WAIT_NO_REASON,		/* "None": the scheduler has not looked yet */
	WAIT_PRIORITY,		/* behind other jobs for the same capacity */
	WAIT_RESOURCES,
	WAIT_PART_DOWN,
	WAIT_PART_INACTIVE,
	WAIT_NODE_NOT_AVAIL,
	WAIT_PART_NODE_LIMIT,
};

static bool jobs_counted_reason(enum job_state_reason r)
{
	for (size_t i = 0; i < sizeof(jobs_counted) / sizeof(jobs_counted[0]); i++)
		if (jobs_counted[i] == r)
			return true;
	return false;
}

static const char *const jobs_verdict_names[] = {
	[MDC_JOBS_WAITING] = "waiting",
	[MDC_JOBS_NOT_COUNTED] = "not-counted",
	[MDC_JOBS_STARTED] = "left-alone",
	[MDC_JOBS_DONE] = "fell-back",
	[MDC_JOBS_FELL_BACK] = "fell-back-now",
	[MDC_JOBS_CANCELLED] = "cancelled-now",
	[MDC_JOBS_DUE] = "due",
	[MDC_JOBS_FAILED] = "failed",
	[MDC_JOBS_BAD_RECORD] = "bad-record",
};

const char *mdc_jobs_verdict_name(enum mdc_jobs_verdict v)
{
	return (size_t) v < sizeof(jobs_verdict_names) / sizeof(jobs_verdict_names[0]) ?
		jobs_verdict_names[v] : "?";
}

/* "Already done" from a second enforcer, or the job started or ended
 * meanwhile: not a failure, and not our action either. */
static bool jobs_gone(int err)
{
	return err == ESLURM_ALREADY_DONE || err == ESLURM_INVALID_JOB_ID ||
	       err == ESLURM_JOB_FINISHED || err == ESLURM_JOB_NOT_PENDING ||
	       err == ESLURM_JOB_NOT_PENDING_NOR_RUNNING;
}

/* The job id an action names.  A job array's record whose job id is the
 * array's own (the record of its pending tasks, "123_[4-9]", or its last
 * task) stands for the whole array when named by number: an update would
 * touch its running tasks and a cancel kill them.  Name only the tasks of
 * this record instead, as scancel 123_[4-9] does.  Other records (plain
 * jobs, tasks split off with ids of their own) are named by number.
 * Returns BUF, or NULL (BUF holds the plain number). */
static const char *jobs_array_target(const slurm_job_info_t *job, char *buf, size_t size)
{
	const char *t = job->array_task_str;

	snprintf(buf, size, "%u", job->job_id);
	if (!job->array_job_id || job->array_job_id != job->job_id)
		return NULL;
	if (t && *t) {
		/* "1-9%2": the throttle is not part of the task list */
		int n = (int) strcspn(t, "%");

		if (snprintf(buf, size, "%u_[%.*s]", job->array_job_id, n, t) >= (int) size)
			return NULL;
		return buf;
	}
	if (job->array_task_id == NO_VAL)
		return NULL;
	snprintf(buf, size, "%u_%u", job->array_job_id, job->array_task_id);
	return buf;
}

/* The first per-task error of an array update that is not "gone", or 0;
 * *GONE when every task that answered was gone (none was updated).  No
 * answer per task: all were updated. */
static int jobs_array_errors(const job_array_resp_msg_t *r, bool *gone)
{
	bool updated = false, some_gone = false;

	for (uint32_t i = 0; r && i < r->job_array_count; i++) {
		if (r->error_code[i] == SLURM_SUCCESS)
			updated = true;
		else if (jobs_gone((int) r->error_code[i]))
			some_gone = true;
		else
			return (int) r->error_code[i];
	}
	*gone = some_gone && !updated;
	return 0;
}

/* One update RPC of job (or array tasks) ID; 0 or the error. */
static int jobs_update_rpc(job_desc_msg_t *d, const char *arr, bool *gone)
{
	job_array_resp_msg_t *resp = NULL;
	int err = 0;

	*gone = false;
	if (arr) {
		/* the array's tasks answer one by one */
		MDC_DESC_JOB_ID(*d) = NO_VAL;
		d->job_id_str = (char *) arr;
		if (slurm_update_job2(d, &resp) != SLURM_SUCCESS)
			err = mdc_slurm_errno();
		else
			err = jobs_array_errors(resp, gone);
		slurm_free_job_array_resp(resp);
	} else if (slurm_update_job(d) != SLURM_SUCCESS) {
		err = mdc_slurm_errno();
	}
	return err;
}

/* A refused update may still have changed the job: slurmctld applies an
 * update field by field and stops at the first refusal.  22.05 sets the
 * AdminComment and the partition, then job_limits_check() refuses ("Requested
 * partition configuration not available now", e.g. the user is not in the
 * partition's AllowGroups), and the job pends there for ever
 * (PartitionConfig), recorded as fallen back (issue 24 item 3).  Read the
 * job again and put back what changed; append to E->msg what the job's
 * state is now. */
static void jobs_undo(const slurm_job_info_t *job, const char *arr, struct mdc_jobs_entry *e)
{
	job_info_msg_t *m = NULL;
	const slurm_job_info_t *now = NULL;
	job_desc_msg_t d;
	size_t len = strlen(e->msg);
	char *was_part = job->partition ? job->partition : "";
	bool moved, commented, gone;
	int err;

	if (slurm_load_job(&m, mdc_job_ref(job->job_id), SHOW_ALL) != SLURM_SUCCESS) {
		snprintf(e->msg + len, sizeof(e->msg) - len,
			 "; cannot read the job again to see what changed");
		return;
	}
	for (uint32_t i = 0; i < m->record_count && !now; i++)
		if (m->job_array[i].job_id == job->job_id)
			now = &m->job_array[i];
	if (!now) {
		slurm_free_job_info_msg(m);
		return;
	}
	moved = strcmp(now->partition ? now->partition : "", was_part) != 0;
	commented = strcmp(now->admin_comment ? now->admin_comment : "",
			   job->admin_comment ? job->admin_comment : "") != 0;
	if (!moved && !commented) {
		snprintf(e->msg + len, sizeof(e->msg) - len, "; the job stays in %.60s",
			 was_part);
		slurm_free_job_info_msg(m);
		return;
	}
	slurm_init_job_desc_msg(&d);
	MDC_DESC_JOB_ID(d) = job->job_id;
	if (commented)
		d.admin_comment = job->admin_comment ? job->admin_comment : "";
	if (moved)
		d.partition = was_part;
	err = jobs_update_rpc(&d, arr, &gone);
	if (!err && moved)
		snprintf(e->msg + len, sizeof(e->msg) - len,
			 "; slurmctld had moved it to %.60s anyway: moved back to %.60s",
			 now->partition ? now->partition : "", was_part);
	else if (!err)
		snprintf(e->msg + len, sizeof(e->msg) - len,
			 "; the job stays in %.60s (its AdminComment put back)", was_part);
	else
		snprintf(e->msg + len, sizeof(e->msg) - len,
			 "; slurmctld changed it anyway (partition %.60s) and it cannot be "
			 "put back: %.80s", now->partition ? now->partition : "",
			 slurm_strerror(err));
	slurm_free_job_info_msg(m);
}

/* Update JOB's AdminComment (and Partition if PART): one RPC.  0 done,
 * 1 the job is gone (jobs_gone), -1 failed (E->msg says why, and what
 * the job is now: jobs_undo). */
static int jobs_update(const slurm_job_info_t *job, const struct mdc_jobs_policy *p,
		       const char *part, struct mdc_jobs_entry *e)
{
	job_desc_msg_t d;
	char *comment = mdc_jobs_comment_with(job->admin_comment, p), id[512];
	const char *arr = jobs_array_target(job, id, sizeof(id));
	bool gone = false;
	int rc = 0, err;

	if (!comment) {
		snprintf(e->msg, sizeof(e->msg), "out of memory");
		return -1;
	}
	slurm_init_job_desc_msg(&d);
	MDC_DESC_JOB_ID(d) = job->job_id;
	d.admin_comment = comment;
	d.partition = (char *) part;
	err = jobs_update_rpc(&d, arr, &gone);
	if (err && jobs_gone(err)) {
		rc = 1;
	} else if (err) {
		if (part)
			snprintf(e->msg, sizeof(e->msg), "cannot move job %.80s to partition %.60s: %.120s",
				 id, part, slurm_strerror(err));
		else
			snprintf(e->msg, sizeof(e->msg), "cannot update job %.80s: %.120s", id,
				 slurm_strerror(err));
		jobs_undo(job, arr, e);
		rc = -1;
	} else if (gone) {
		rc = 1;
	}
	free(comment);
	return rc;
}

/* Cancel JOB (only the tasks of its record, for an array): 0, 1 gone, -1. */
static int jobs_cancel(const slurm_job_info_t *job, struct mdc_jobs_entry *e)
{
	char id[512];
	const char *arr = jobs_array_target(job, id, sizeof(id));
	int rc, err;

	rc = arr ? slurm_kill_job2(arr, SIGKILL, 0, NULL) : slurm_kill_job(mdc_job_ref(job->job_id), SIGKILL, 0);
	if (rc == SLURM_SUCCESS)
		return 0;
	if (jobs_gone(err = mdc_slurm_errno()))
		return 1;
	snprintf(e->msg, sizeof(e->msg), "cannot cancel job %.80s: %.120s", id,
		 slurm_strerror(err));
	return -1;
}

/* The outcome of an action: FAILED, left alone (gone), or VERDICT. */
static void jobs_outcome(int rc, enum mdc_jobs_verdict verdict, const struct mdc_jobs_policy *p,
			 struct mdc_jobs_entry *e, struct mdc_jobs_stats *st)
{
	if (rc < 0) {
		e->verdict = MDC_JOBS_FAILED;
		st->failed++;
	} else if (rc > 0) {
		e->verdict = MDC_JOBS_STARTED;
	} else {
		e->policy = *p;
		e->verdict = verdict;
		if (verdict == MDC_JOBS_FELL_BACK)
			st->fell_back++;
		else
			st->cancelled++;
	}
}

/* Could JOB run in partition PART by its limits and access lists?
 * slurmctld accepts a move past MaxTime or the node limits and the job
 * then pends there for ever (PartitionTimeLimit, PartitionNodeLimit); 24.11
 * also takes root's move of a job whose user AllowGroups, AllowAccounts or
 * AllowQos shut out (22.05 refuses it, having moved it already): such a
 * move is not made.  0, or -1 with E->msg saying why. */
static int jobs_fits(const slurm_job_info_t *job, const char *part, struct mdc_jobs_entry *e)
{
	partition_info_msg_t *pm = NULL;
	const partition_info_t *pi = NULL;
	const char *was = job->partition ? job->partition : "";
	int rc = 0;

	if (slurm_load_partitions((time_t) 0, &pm, SHOW_ALL) != SLURM_SUCCESS)
		return 0;	/* the update itself will say */
	for (uint32_t i = 0; i < pm->record_count && !pi; i++)
		if (pm->partition_array[i].name && !strcmp(pm->partition_array[i].name, part))
			pi = &pm->partition_array[i];
	if (!pi)
		goto out;
	if (job->time_limit != NO_VAL && job->time_limit != INFINITE &&
	    pi->max_time != INFINITE && pi->max_time != NO_VAL && job->time_limit > pi->max_time) {
		snprintf(e->msg, sizeof(e->msg),
			 "cannot move job %u to partition %.60s: its time limit of %u minutes is "
			 "above the partition's MaxTime of %u minutes; the job stays in %.60s",
			 job->job_id, part, job->time_limit, pi->max_time, was);
		rc = -1;
	} else if ((pi->max_nodes != INFINITE && pi->max_nodes != NO_VAL &&
		    job->num_nodes > pi->max_nodes) ||
		   (pi->min_nodes != NO_VAL && job->num_nodes && job->num_nodes < pi->min_nodes)) {
		snprintf(e->msg, sizeof(e->msg),
			 "cannot move job %u to partition %.60s: its %u nodes are outside the "
			 "partition's MinNodes/MaxNodes; the job stays in %.60s",
			 job->job_id, part, job->num_nodes, was);
		rc = -1;
	} else {
		/* the access lists only: limits above, the state is slurmctld's */
		const struct mdc_managed_part lists = {
			.root_only = pi->flags & PART_FLAG_ROOT_ONLY ? "YES" : NULL,
			.allow_groups = pi->allow_groups, .allow_accounts = pi->allow_accounts,
			.deny_accounts = pi->deny_accounts, .allow_qos = pi->allow_qos,
			.deny_qos = pi->deny_qos,
		};
		const struct mdc_managed_job mj = {
			.uid = job->user_id, .gid = job->group_id, .account = job->account,
			.qos = job->qos,
		};
		struct mdc_ctx ctx = { 0 };

		/* (uid 0 is the one admin known here: SlurmUser's jobs are rare) */
		if (mdc_managed_access_part(&lists, part, &mj, 0, &ctx)) {
			snprintf(e->msg, sizeof(e->msg),
				 "cannot move job %u to partition %.60s: %.200s; the job stays in %.60s",
				 job->job_id, part, ctx.msg, was);
			rc = -1;
		}
	}
out:
	slurm_free_partition_info_msg(pm);
	return rc;
}

static void jobs_act(const slurm_job_info_t *job, struct mdc_jobs_entry *e,
		     struct mdc_jobs_stats *st)
{
	struct mdc_jobs_policy p = e->policy;
	int rc = 0;

	if (p.action == MDC_JOBS_FALL_BACK) {
		if (jobs_fits(job, p.fallback, e)) {
			jobs_outcome(-1, MDC_JOBS_FELL_BACK, &p, e, st);
			return;
		}
		snprintf(p.expired, sizeof(p.expired), "fell-back");
		jobs_outcome(jobs_update(job, &p, p.fallback, e), MDC_JOBS_FELL_BACK, &p, e, st);
		return;
	}
	/* the reason first, so that it is on the job when it ends */
	snprintf(p.expired, sizeof(p.expired), "cancelled");
	if (strcmp(e->policy.expired, "cancelled"))
		rc = jobs_update(job, &p, NULL, e);
	if (!rc)
		rc = jobs_cancel(job, e);
	jobs_outcome(rc, MDC_JOBS_CANCELLED, &p, e, st);
}

/* Judge one job with a record (no RPC). */
static void jobs_judge(const slurm_job_info_t *job, time_t now, struct mdc_jobs_entry *e)
{
	bool pending = (job->job_state & JOB_STATE_BASE) == JOB_PENDING;

	e->since = job->eligible_time ? job->eligible_time : job->submit_time;
	e->remaining = (long) e->policy.wait - (long) (now - e->since);
	if (!pending) {
		e->verdict = MDC_JOBS_STARTED;
		return;
	}
	/* moved already (by us, or by a second enforcer) */
	if (e->policy.action == MDC_JOBS_FALL_BACK && job->partition &&
	    !strcmp(job->partition, e->policy.fallback)) {
		e->verdict = MDC_JOBS_DONE;
		return;
	}
	if (!jobs_counted_reason(job->state_reason)) {
		e->verdict = MDC_JOBS_NOT_COUNTED;
		return;
	}
	e->verdict = e->remaining > 0 ? MDC_JOBS_WAITING : MDC_JOBS_DUE;
}

/* A due job, judged again on a fresh record of its own just before the
 * action: the cycle's load may be seconds old, and a second enforcer may
 * have moved or cancelled it, or it may have started, since.  This leaves
 * a window of one RPC, not of a whole cycle. */
static void jobs_recheck_and_act(const slurm_job_info_t *job, time_t now,
				 struct mdc_jobs_entry *e, struct mdc_jobs_stats *st)
{
	job_info_msg_t *m = NULL;
	struct mdc_jobs_policy fresh;
	struct mdc_ctx pctx = { 0 };
	int err;

	if (slurm_load_job(&m, mdc_job_ref(job->job_id), SHOW_ALL) != SLURM_SUCCESS) {
		err = mdc_slurm_errno();
		if (jobs_gone(err)) {
			e->verdict = MDC_JOBS_STARTED;
			return;
		}
		snprintf(e->msg, sizeof(e->msg), "cannot load job %u: %s", job->job_id,
			 slurm_strerror(err));
		e->verdict = MDC_JOBS_FAILED;
		st->failed++;
		return;
	}
	for (uint32_t i = 0; i < m->record_count; i++) {
		const slurm_job_info_t *j = &m->job_array[i];

		if (j->job_id != job->job_id)
			continue;
		/* its record as it is now (a second enforcer marks it) */
		if (mdc_jobs_policy_parse(j->admin_comment, &fresh, &pctx) == 0)
			e->policy = fresh;
		jobs_judge(j, now, e);
		if (e->verdict == MDC_JOBS_DUE)
			jobs_act(j, e, st);
		slurm_free_job_info_msg(m);
		return;
	}
	slurm_free_job_info_msg(m);
	e->verdict = MDC_JOBS_STARTED;	/* gone from the queue */
}

int mdc_jobs_enforce_cycle(bool act, time_t now, const volatile sig_atomic_t *stop,
			   mdc_jobs_report_fn report, void *arg, struct mdc_jobs_stats *stats,
			   struct mdc_ctx *ctx)
{
	job_info_msg_t *msg = NULL;
	struct mdc_jobs_stats st = { 0 };

	/* one load per cycle; SHOW_ALL: hidden partitions too */
	if (slurm_load_jobs((time_t) 0, &msg, SHOW_ALL) != SLURM_SUCCESS)
		return mdc_fail(ctx, MDC_ERR_IO, "cannot load the jobs from slurmctld: %s",
				slurm_strerror(mdc_slurm_errno()));
	st.jobs = msg->record_count;
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const slurm_job_info_t *job = &msg->job_array[i];
		struct mdc_jobs_entry e;
		struct mdc_ctx pctx = { 0 };
		int rc;

		if (!job->admin_comment || !strstr(job->admin_comment, "mdc:wait="))
			continue;
		memset(&e, 0, sizeof(e));
		rc = mdc_jobs_policy_parse(job->admin_comment, &e.policy, &pctx);
		if (rc == MDC_ERR_NOTFOUND)
			continue;
		st.with_policy++;
		e.job_id = job->job_id;
		{
			char id[512];

			jobs_array_target(job, id, sizeof(id));
			snprintf(e.id, sizeof(e.id), "%.71s", id);
		}
		e.user_id = job->user_id;
		e.partition = job->partition ? job->partition : "";
		e.state = slurm_job_state_string(job->job_state);
		e.reason = slurm_job_reason_string((enum job_state_reason) job->state_reason);
		if (rc) {
			e.verdict = MDC_JOBS_BAD_RECORD;
			snprintf(e.msg, sizeof(e.msg), "%.200s", pctx.msg);
		} else {
			jobs_judge(job, now, &e);
			/* once asked to stop, due jobs are left for the next cycle */
			if (e.verdict == MDC_JOBS_DUE && act && !(stop && *stop))
				jobs_recheck_and_act(job, now, &e, &st);
		}
		if (report)
			report(&e, arg);
	}
	slurm_free_job_info_msg(msg);
	if (stats)
		*stats = st;
	return 0;
}
