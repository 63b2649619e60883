/* mdcd_enforce.c - the job wait policy's enforcement loop inside mdcd: a
 * thread that runs mdc_jobs_enforce_cycle() every JobWaitEnforceInterval
 * seconds (mdc.conf; 0 or absent: off, SIGHUP changes it), logs each job
 * it moved or cancelled (and each failure), and appends one audit entry
 * per cycle that moved or cancelled a job, as a write by "mdcd (enforce)".  The only thread that calls
 * libslurm.  (owner: mdcd)
 *
 * SIGTERM: the cycle in progress acts on no further job, and the thread
 * is joined before mdcd exits.  With an mdcd on every login host, one of
 * them enforces (mdcd_enforce_lease). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include "mdc_buf.h"
#include "mdc_hash.h"
#include "mdc_jobs.h"
#include "mdc_log.h"
#include "mdcd.h"

#define MDCD_ENFORCE_USER "mdcd (enforce)"
/* the audit entry's summary ("command") is cut here; the arrays are whole */
#define MDCD_ENFORCE_SUMMARY_MAX 1024

/* What one cycle did, for the log and the audit entry. */
struct mdcd_cycle {
	json_object *moved;		/* [{job, from, to}] */
	json_object *cancelled;		/* [{job, partition}] */
	json_object *failed;		/* [{job, message}] */
	struct mdc_buf summary;
};

static void mdcd_enforce_row(const struct mdc_jobs_entry *e, void *arg)
{
	struct mdcd_cycle *c = arg;
	char part[160];
	json_object *o;

	if (e->verdict != MDC_JOBS_FELL_BACK && e->verdict != MDC_JOBS_CANCELLED &&
	    e->verdict != MDC_JOBS_FAILED && e->verdict != MDC_JOBS_BAD_RECORD)
		return;
	mdc_jobs_log_escape(e->partition, part, sizeof(part));
	if (!(o = json_object_new_object()))
		return;
	json_object_object_add(o, "job", json_object_new_int64(e->job_id));
	if (strchr(e->id, '_'))	/* the pending tasks of an array */
		json_object_object_add(o, "tasks", json_object_new_string(e->id));
	if (e->verdict == MDC_JOBS_FELL_BACK) {
		mdcd_log(LOG_INFO, "enforce: job %s: waited %u s in %s: moved to partition %s",
			 e->id, e->policy.wait, part, e->policy.fallback);
		json_object_object_add(o, "from", json_object_new_string(e->partition));
		json_object_object_add(o, "to", json_object_new_string(e->policy.fallback));
		json_object_array_add(c->moved, o);
		mdc_buf_addf(&c->summary, "%smoved %s to %s", c->summary.len ? "; " : "",
			     e->id, e->policy.fallback);
	} else if (e->verdict == MDC_JOBS_CANCELLED) {
		mdcd_log(LOG_INFO, "enforce: job %s: waited %u s in %s: cancelled (on-timeout=fail)",
			 e->id, e->policy.wait, part);
		json_object_object_add(o, "partition", json_object_new_string(e->partition));
		json_object_array_add(c->cancelled, o);
		mdc_buf_addf(&c->summary, "%scancelled %s", c->summary.len ? "; " : "", e->id);
	} else {
		mdcd_log(LOG_ERR, "enforce: job %s: %s", e->id, e->msg);
		json_object_object_add(o, "message", json_object_new_string(e->msg));
		json_object_array_add(c->failed, o);
		mdc_buf_addf(&c->summary, "%sjob %s failed", c->summary.len ? "; " : "", e->id);
	}
}

/* One audit line for a cycle that moved, cancelled or failed something. */
static void mdcd_enforce_audit(struct mdcd *d, struct mdcd_cycle *c, const char *cluster)
{
	json_object *e = json_object_new_object();
	char when[32], cmd[MDCD_ENFORCE_SUMMARY_MAX + 32];
	bool failed = json_object_array_length(c->failed) > 0;
	time_t now = time(NULL);
	struct tm tm;

	if (!e)
		return;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(cmd, sizeof(cmd), "jobs enforce: %.*s%s", MDCD_ENFORCE_SUMMARY_MAX,
		 mdc_buf_str(&c->summary), c->summary.len > MDCD_ENFORCE_SUMMARY_MAX ? "..." : "");
	json_object_object_add(e, "time", json_object_new_string(when));
	json_object_object_add(e, "uid", json_object_new_int64((int64_t) geteuid()));
	json_object_object_add(e, "user", json_object_new_string(MDCD_ENFORCE_USER));
	json_object_object_add(e, "op", json_object_new_string("enforce"));
	if (cluster)
		json_object_object_add(e, "cluster", json_object_new_string(cluster));
	json_object_object_add(e, "command", json_object_new_string(cmd));
	json_object_object_add(e, "moved", json_object_get(c->moved));
	json_object_object_add(e, "cancelled", json_object_get(c->cancelled));
	json_object_object_add(e, "failed", json_object_get(c->failed));
	json_object_object_add(e, "result", json_object_new_string(failed ? "failed" : "ok"));
	mdcd_audit_append(d, e, NULL, NULL);
	json_object_put(e);
}

static void mdcd_enforce_cycle(struct mdcd *d, long interval)
{
	struct mdcd_cycle c = { json_object_new_array(), json_object_new_array(),
				json_object_new_array(), MDC_BUF_INIT };
	struct mdc_jobs_stats st;
	struct mdc_settings s;
	struct mdc_ctx ctx;

	mdc_ctx_clear(&ctx);
	if (!c.moved || !c.cancelled || !c.failed) {
		mdcd_log(LOG_ERR, "enforce: out of memory");
		goto out;
	}
	if (mdc_jobs_enforce_cycle(true, time(NULL), &d->stopping, mdcd_enforce_row, &c, &st,
				   &ctx)) {
		mdcd_log(LOG_ERR, "enforce: %s (trying again in %ld s)", ctx.msg, interval);
		goto out;
	}
	mdc_log(MDC_LOG_DEBUG, "enforce: %zu jobs, %zu with a policy, %zu moved, %zu cancelled, "
		"%zu failed", st.jobs, st.with_policy, st.fell_back, st.cancelled, st.failed);
	/* a job that fails every cycle (its fallback partition gone) is in
	 * the log each time, in the audit log only beside real writes */
	if (!json_object_array_length(c.moved) && !json_object_array_length(c.cancelled))
		goto out;
	if (mdcd_settings_copy(d, &s)) {
		mdcd_enforce_audit(d, &c, NULL);
		goto out;
	}
	mdcd_enforce_audit(d, &c, s.cluster);
	mdc_settings_free(&s);
out:
	json_object_put(c.moved);
	json_object_put(c.cancelled);
	json_object_put(c.failed);
	mdc_buf_free(&c.summary);
}

/* libslurm reads slurm.conf once, and exits the process when it cannot:
 * check that it is there first.  Only this thread calls it. */
static bool mdcd_slurm_ready(long interval)
{
	static bool done;
	const char *conf = getenv("SLURM_CONF");

	if (done)
		return true;
	if (!conf || !*conf)
		conf = "/etc/slurm/slurm.conf";
	if (access(conf, R_OK)) {
		mdcd_log(LOG_ERR, "enforce: cannot read slurm.conf '%s' (%s): set SlurmConf= "
			 "(trying again in %ld s)", conf, strerror(errno), interval);
		return false;
	}
	slurm_init(NULL);
	done = true;
	return true;
}

/* One enforcer per cluster, however many mdcds (one per login host): the
 * one whose flock() on LockDir/mdcd-enforce-CLUSTER-HASH.lock succeeds is the
 * enforcer and keeps the lock while it lives; the others stand by and try
 * again every interval, so a stopped enforcer is replaced within one.
 * LockDir must be on storage the login hosts share (mdcd(8)).  Only the
 * enforcement thread touches these. */
static int mdcd_lease_fd = -1;
static bool mdcd_lease_said;

static bool mdcd_enforce_lease(struct mdcd *d)
{
	char path[PATH_MAX], who[256], host[128] = "?";
	const char *dir, *cl;
	struct mdc_settings s;
	ssize_t n;
	int fd;

	if (mdcd_lease_fd >= 0)
		return true;
	if (mdcd_settings_copy(d, &s))
		return false;
	dir = s.lock_dir && *s.lock_dir ? s.lock_dir : "/run/lock";
	cl = s.cluster && strrchr(s.cluster, '/') ? strrchr(s.cluster, '/') + 1 : "any";
	/* the same cluster: the same endpoint, cluster and slurm.conf on
	 * every login host; anything else (another lab) another lock */
	snprintf(who, sizeof(who), "%s\n%s\n%s", s.endpoint ? s.endpoint : "",
		 s.cluster ? s.cluster : "", s.slurm_conf ? s.slurm_conf : "");
	snprintf(path, sizeof(path), "%s/mdcd-enforce-%.40s-%016llx.lock", dir, cl,
		 (unsigned long long) mdc_hash_str(who, MDC_HASH_EXACT));
	mdc_settings_free(&s);
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		if (!mdcd_lease_said)
			mdcd_log(LOG_ERR, "enforce: cannot open the enforcer lock '%s': %s (LockDir=): "
				 "not enforcing", path, strerror(errno));
		mdcd_lease_said = true;
		return false;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		n = pread(fd, who, sizeof(who) - 1, 0);
		who[n > 0 ? n : 0] = '\0';
		who[strcspn(who, "\n")] = '\0';
		if (!mdcd_lease_said)
			mdcd_log(LOG_INFO, "enforce: standing by: the cluster's enforcer is %s (%s)",
				 *who ? who : "another mdcd", path);
		mdcd_lease_said = true;
		close(fd);
		return false;
	}
	gethostname(host, sizeof(host) - 1);
	n = snprintf(who, sizeof(who), "mdcd pid %ld on %s\n", (long) getpid(), host);
	if (ftruncate(fd, 0) || pwrite(fd, who, (size_t) n, 0) != n)
		mdcd_log(LOG_WARNING, "enforce: cannot write '%s': %s", path, strerror(errno));
	mdcd_log(LOG_INFO, "enforce: this mdcd is the cluster's enforcer (%s)", path);
	mdcd_lease_said = false;
	mdcd_lease_fd = fd;
	return true;
}

static void *mdcd_enforce_thread(void *arg)
{
	struct mdcd *d = arg;
	struct timespec until;
	long gen, interval;
	bool due = true;	/* a first cycle as soon as enforcement is on */

	pthread_mutex_lock(&d->enforce_lock);
	while (!d->stopping) {
		interval = d->enforce_interval;
		gen = d->enforce_gen;
		if (!interval) {
			pthread_cond_wait(&d->enforce_cond, &d->enforce_lock);
			due = true;
			continue;
		}
		if (due) {
			pthread_mutex_unlock(&d->enforce_lock);
			if (mdcd_slurm_ready(interval) && mdcd_enforce_lease(d))
				mdcd_enforce_cycle(d, interval);
			pthread_mutex_lock(&d->enforce_lock);
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += interval;
		due = false;
		while (!d->stopping && gen == d->enforce_gen && !due)
			due = pthread_cond_timedwait(&d->enforce_cond, &d->enforce_lock,
						     &until) == ETIMEDOUT;
		/* a new interval (SIGHUP) starts counting from now */
	}
	pthread_mutex_unlock(&d->enforce_lock);
	if (mdcd_lease_fd >= 0)
		close(mdcd_lease_fd);	/* another mdcd takes over */
	mdcd_lease_fd = -1;
	return NULL;
}

int mdcd_enforce_start(struct mdcd *d)
{
	pthread_condattr_t ca;
	int rc;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&d->enforce_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		return -1;
	if (pthread_create(&d->enforce_thread, NULL, mdcd_enforce_thread, d)) {
		pthread_cond_destroy(&d->enforce_cond);
		return -1;
	}
	d->enforce_started = true;
	return 0;
}

void mdcd_enforce_set(struct mdcd *d, long interval)
{
	pthread_mutex_lock(&d->enforce_lock);
	if (interval != d->enforce_interval) {
		if (interval)
			mdcd_log(LOG_INFO, "job wait enforcement every %ld s", interval);
		else if (d->enforce_interval)
			mdcd_log(LOG_INFO, "job wait enforcement off");
		d->enforce_interval = interval;
		d->enforce_gen++;
		if (d->enforce_started)
			pthread_cond_broadcast(&d->enforce_cond);
	}
	pthread_mutex_unlock(&d->enforce_lock);
}

void mdcd_enforce_stop(struct mdcd *d)
{
	if (!d->enforce_started)
		return;
	pthread_mutex_lock(&d->enforce_lock);
	pthread_cond_broadcast(&d->enforce_cond);
	pthread_mutex_unlock(&d->enforce_lock);
	pthread_join(d->enforce_thread, NULL);
	pthread_cond_destroy(&d->enforce_cond);
	d->enforce_started = false;
}
