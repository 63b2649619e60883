/* mdcd.h - what the parts of mdcd share: options, the settings SIGHUP
 * reloads, the per-cluster writer locks, the audit log.  (owner: mdcd) */
#ifndef MDCD_H
#define MDCD_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>
#include <json-c/json.h>
#include "mdc_client.h"
#include "mdc_err.h"

struct mdcd {
	/* command line */
	const char *conf_path;		/* -f: mdc.conf (else MDC_CONF, /etc/slurm/mdc.conf) */
	const char *socket_path;	/* -s */
	const char *tcp_listen;		/* -t HOST:PORT: the broker of several login hosts */
	const char *state_dir;		/* -d: audit log and spec snapshots */
	const char *pidfile;		/* -p */
	const char *logfile;		/* -l: else syslog (stderr in the foreground) */
	bool foreground;

	/* the settings, replaced whole on SIGHUP */
	pthread_rwlock_t settings_lock;
	struct mdc_settings s;

	/* writes in progress: SIGTERM waits for them */
	pthread_mutex_t active_lock;
	pthread_cond_t active_cond;
	int writes;
	int conns;			/* connections being served */
	volatile sig_atomic_t stopping;

	/* one writer per cluster: a small table of named mutexes */
	pthread_mutex_t clusters_lock;
	struct mdcd_cluster_lock *clusters;

	/* the job wait enforcement thread (mdcd_enforce.c): JobWaitEnforceInterval
	 * seconds (0: off), changed on SIGHUP; ENFORCE_GEN counts the changes */
	pthread_mutex_t enforce_lock;
	pthread_cond_t enforce_cond;
	pthread_t enforce_thread;
	bool enforce_started;
	long enforce_interval;
	long enforce_gen;

	/* the audit log: ids are its line numbers */
	pthread_mutex_t audit_lock;
	long audit_next;
};

/* The caller of one request, as munge proved it. */
struct mdcd_peer {
	uid_t uid;
	gid_t gid;
	char user[64];
};

/* mdcd.c: a private copy of the current settings (free with
 * mdc_settings_free); 0 or MDC_ERR_NOMEM. */
int mdcd_settings_copy(struct mdcd *d, struct mdc_settings *out);
/* Log a line (syslog, the log file or stderr). */
void mdcd_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* mdcd_serve.c: answer one connection (a thread's whole life). */
void mdcd_serve(struct mdcd *d, int fd);
/* The writer lock of CLUSTER (created on first use, freed at exit by
 * mdcd_cluster_mutexes_free once no request runs). */
pthread_mutex_t *mdcd_cluster_mutex(struct mdcd *d, const char *cluster);
void mdcd_cluster_mutexes_free(struct mdcd *d);

/* mdcd_authz.c: may PEER write?  False with WHY naming every rule that
 * refused ("not root, not SlurmUser 'slurm', ..."); true with WHY naming
 * the rule that allowed. */
bool mdcd_may_write(const struct mdc_settings *s, const struct mdcd_peer *peer,
		    char *why, size_t whysz);

/* mdcd_enforce.c: start the enforcement thread (after daemonizing);
 * 0 or -1.  It idles while the interval is 0. */
int mdcd_enforce_start(struct mdcd *d);
/* A new interval (seconds, 0: off), logged when it changes. */
void mdcd_enforce_set(struct mdcd *d, long interval);
/* After D->stopping is set: wake the thread and join it (its cycle in
 * progress acts on no further job). */
void mdcd_enforce_stop(struct mdcd *d);

/* mdcd_audit.c.  Open (create) the state directory and count the log. */
int mdcd_audit_init(struct mdcd *d, struct mdc_ctx *ctx);
/* Append ENTRY (its "id" is set here) and keep BEFORE/AFTER (may be
 * NULL) as STATE/specs/ID.before.json and ID.after.json.  Returns the id,
 * or -1 when the log cannot be written (logged). */
long mdcd_audit_append(struct mdcd *d, json_object *entry, const json_object *before,
		       const json_object *after);
/* Every entry (for CLUSTER, NULL = all), oldest first: a new array. */
int mdcd_audit_list(struct mdcd *d, const char *cluster, json_object **out,
		    struct mdc_ctx *ctx);
/* The spec kept before or after entry ID (new reference). */
int mdcd_audit_snapshot(struct mdcd *d, long id, bool before, json_object **out,
			struct mdc_ctx *ctx);
/* "sha256:<hex>" of a spec as kept (NULL spec: NULL). */
char *mdcd_spec_digest(const json_object *spec);

#endif
