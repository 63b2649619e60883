/* mdc_lock.c - writer serialisation (C14): the API has no etag, so the
 * writers of one cluster take an flock()ed file first.  Put the directory
 * on a shared file system (a /home dir) and several login nodes serialise
 * too; without one, mdc_update_run's read-back still catches a lost
 * update.  The file is keyed by endpoint and cluster, opened without
 * following symlinks in a directory nobody else can rearrange, and a
 * writer kept waiting is told who holds it.  (owner: client) */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_lock.h"
#include "mdc_log.h"
#include "mdc_proc.h"
#include "mdc_str.h"

/* after this long waiting, say once who holds the lock */
#define MDC_LOCK_NOTICE_S 3.0
#define MDC_LOCK_RECORD_MAX 512

static const char *mdc_lock_default_dir(void)
{
	const char *t = getenv("TMPDIR");

	if (access("/run/lock", W_OK) == 0)
		return "/run/lock";
	return t && *t ? t : "/tmp";
}

/* The directory must not let another user replace or plant the lock file:
 * owned by root or us, and when others may write to it, sticky (as
 * /run/lock and /tmp are).  *DFD gets it opened, for openat. */
static int mdc_lock_dir_open(const char *dir, int *dfd, struct mdc_ctx *ctx)
{
	struct stat st;
	int d;

	*dfd = -1;
	if ((d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return mdc_fail(ctx, MDC_ERR_IO, "lock directory '%s': %s (set MDC_LOCK_DIR or "
				"'LockDir =' to a writable directory)", dir, strerror(errno));
	if (fstat(d, &st)) {
		close(d);
		return mdc_fail(ctx, MDC_ERR_IO, "lock directory '%s': %s", dir, strerror(errno));
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		close(d);
		return mdc_fail(ctx, MDC_ERR_REFUSED, "lock directory '%s' belongs to another user "
				"(uid %u): refused; use a directory owned by root or by you",
				dir, (unsigned) st.st_uid);
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		close(d);
		return mdc_fail(ctx, MDC_ERR_REFUSED, "lock directory '%s' is writable by other "
				"users and not sticky (mode %04o): refused; run 'chmod +t %s' or "
				"use another directory", dir, (unsigned) (st.st_mode & 07777), dir);
	}
	*dfd = d;
	return 0;
}

/* "mdc-<cluster id>-<16 hex>.lock": the hash covers endpoint and full
 * cluster name, so two unrelated clusters both named "lab" (two emulators,
 * two projects) never wait on each other; the id keeps it readable. */
static int mdc_lock_name(struct mdc_buf *b, const char *endpoint, const char *cluster)
{
	const char *id = strrchr(cluster, '/');
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a 64 */
	size_t n = 0;

	id = id ? id + 1 : cluster;
	for (const char *p = endpoint ? endpoint : ""; *p; p++)
		h = (h ^ (unsigned char) *p) * 1099511628211ULL;
	h = (h ^ '\n') * 1099511628211ULL;
	for (const char *p = cluster; *p; p++)
		h = (h ^ (unsigned char) *p) * 1099511628211ULL;
	if (mdc_buf_adds(b, "mdc-"))
		return MDC_ERR_NOMEM;
	for (const char *p = id; *p && n < 64; p++, n++)
		if (mdc_buf_addc(b, isalnum((unsigned char) *p) || strchr("-_.", *p) ? *p : '_'))
			return MDC_ERR_NOMEM;
	return mdc_buf_addf(b, "-%016" PRIx64 ".lock", h);
}

/* The holder writes who it is into the file; a waiter reads it to name
 * the holder. */
static void mdc_lock_record(int fd)
{
	char buf[MDC_LOCK_RECORD_MAX], host[128] = "?", cmd[128] = "?";
	int n, cf;

	gethostname(host, sizeof(host) - 1);
	if ((cf = open("/proc/self/comm", O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t r = read(cf, cmd, sizeof(cmd) - 1);

		cmd[r > 0 ? r : 0] = '\0';
		cmd[strcspn(cmd, "\n")] = '\0';
		close(cf);
	}
	n = snprintf(buf, sizeof(buf), "pid=%ld uid=%u host=%s since=%lld cmd=%s\n",
		     (long) getpid(), (unsigned) geteuid(), host, (long long) time(NULL), cmd);
	if (n > 0 && ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t) n, 0) < 0)
		mdc_debug("cannot record the lock holder: %s", strerror(errno));
}

/* The local process holding FD's flock, from /proc/locks (which a holder
 * cannot forge); 0 when none here (a holder on another node). */
static long mdc_lock_local_pid(int fd)
{
	char line[256], type[16], dev[64];
	struct stat st;
	long pid = 0, p;
	unsigned maj, min;
	unsigned long long ino;
	FILE *f;

	if (fstat(fd, &st) || !(f = fopen("/proc/locks", "re")))
		return 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		if (strstr(line, "->") ||
		    sscanf(line, "%*d: %15s %*s %*s %ld %63s", type, &p, dev) != 3 ||
		    /* POSIX: how NFS clients carry flock() locks */
		    (strcmp(type, "FLOCK") && strcmp(type, "POSIX")) ||
		    sscanf(dev, "%x:%x:%llu", &maj, &min, &ino) != 3)
			continue;
		if (ino == (unsigned long long) st.st_ino && maj == major(st.st_dev) &&
		    min == minor(st.st_dev))
			pid = p;
	}
	fclose(f);
	return pid;
}

/* Keep only printable characters of a string another user may have written. */
static void mdc_lock_clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char) *s < ' ' || (unsigned char) *s >= 0x7f)
			*s = '?';
}

/* "pid 123 (mdcctl, uid 0) since 12:00:03" or "... on host h ..." */
static void mdc_lock_holder(int fd, char *out, size_t outsz)
{
	char rec[MDC_LOCK_RECORD_MAX] = "", host[128] = "", me[128] = "", cmd[128] = "?", when[32] = "";
	long pid = mdc_lock_local_pid(fd), rpid = 0;
	unsigned ruid = 0;
	long long since = 0;
	ssize_t r = pread(fd, rec, sizeof(rec) - 1, 0);
	bool have = false;

	rec[r > 0 ? r : 0] = '\0';
	if (sscanf(rec, "pid=%ld uid=%u host=%127s since=%lld cmd=%127[^\n]", &rpid, &ruid, host,
		   &since, cmd) == 5) {
		mdc_lock_clean(host);
		mdc_lock_clean(cmd);
		have = true;
	}
	gethostname(me, sizeof(me) - 1);
	if (have && since > 0) {
		time_t t = (time_t) since;
		struct tm tm;

		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), " since %H:%M:%S", &tm);
	}
	if (pid > 0) {
		char path[64], comm[64] = "?";
		struct stat st;
		int cf;
		unsigned uid = 0;
		bool uid_ok;

		snprintf(path, sizeof(path), "/proc/%ld", pid);
		uid_ok = stat(path, &st) == 0;
		uid = uid_ok ? (unsigned) st.st_uid : 0;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if ((cf = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			ssize_t n = read(cf, comm, sizeof(comm) - 1);

			comm[n > 0 ? n : 0] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
			mdc_lock_clean(comm);
			close(cf);
		}
		/* the record's time only when it is this holder's */
		if (uid_ok)
			snprintf(out, outsz, "pid %ld (%s, uid %u)%s", pid, comm, uid,
				 have && rpid == pid && !strcmp(host, me) ? when : "");
		else
			snprintf(out, outsz, "pid %ld (%s)", pid, comm);
	} else if (have) {
		/* not held from here: another node (shared directory), as it recorded */
		snprintf(out, outsz, "pid %ld on host %s (%s, uid %u)%s, as it recorded", rpid, host,
			 cmd, ruid, when);
	} else {
		snprintf(out, outsz, "an unknown process");
	}
}

/* How many times root replaces a lock file another user planted before
 * it gives up (that user keeps racing to plant it again). */
#define MDC_LOCK_REPLANT_MAX 5

/* Open (creating) the lock file NAME in directory D and leave *F on it.
 * Only its owner may open it: flock() works on a read-only descriptor, so
 * a file others can open at all is a file any local user can hold to block
 * every admin write (issue 24.2).  Mode 0600: the writers sharing a
 * lock directory are one identity (root; mdcd writes for the others).
 * A file planted by another user in a shared directory such as
 * /run/lock, or one others could open, is replaced (its holders keep an
 * unlinked inode).  Only root takes the lock: a user's command is told to
 * use the broker (mdcd, root, writes for it) and never opens, creates or
 * writes the file, whether root's exists or not (a user's own file there
 * would be one more that any user could hold or that root must replace). */
static int mdc_lock_denied(struct mdc_ctx *ctx, const char *dir, const char *name)
{
	return mdc_fail(ctx, MDC_ERR_REFUSED, "permission denied: only root takes the writer "
			"lock '%s/%s', and only administrators write to this cluster: use the "
			"broker ('Broker =' in mdc.conf, served by mdcd) or run the command as "
			"root", dir, name);
}

static int mdc_lock_open(int d, const char *dir, const char *name, int *f, struct mdc_ctx *ctx)
{
	const mode_t want = 0600;
	uid_t me = geteuid();
	struct stat st;

	*f = -1;
	for (unsigned tries = 0;; tries++) {
		/* O_NOFOLLOW: a symlink planted at the lock path must not make
		 * us create or truncate a file elsewhere */
		int fd = openat(d, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, want);

		/* root refused (NFS root_squash, a read-only mount): the lock
		 * cannot be held there, and a host-local one would not
		 * serialise the other hosts' writers */
		if (fd < 0 && (errno == EROFS || (errno == EACCES && me == 0)))
			return mdc_fail(ctx, MDC_ERR_REFUSED, "lock directory '%s' is %s: the writer "
					"lock cannot be held there, and is not taken on a host-local "
					"directory instead (it would not stop writers on the other "
					"hosts); make it writable by root on every host (no_root_squash"
					" on an NFS export) or use the broker ('Broker =' in mdc.conf)",
					dir, errno == EROFS ? "on a read-only file system" :
					"not writable by root on this host (shared storage with "
					"root_squash?)");
		if (fd < 0 && errno == EACCES)
			return mdc_lock_denied(ctx, dir, name);
		if (fd < 0)
			return mdc_fail(ctx, errno == ELOOP ? MDC_ERR_REFUSED : MDC_ERR_IO,
					"lock file '%s/%s': %s%s", dir, name,
					errno == ELOOP ? "a symbolic link: refused (remove it)" :
					strerror(errno), errno == ELOOP ? "" : " (set MDC_LOCK_DIR or "
					"'LockDir =' to a writable directory)");
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			return mdc_fail(ctx, MDC_ERR_REFUSED, "lock file '%s/%s' is not a regular "
					"file: refused (remove it)", dir, name);
		}
		if (st.st_uid == me && !(st.st_mode & 0077)) {
			if ((st.st_mode & 0777) != want && fchmod(fd, want)) {
				close(fd);
				return mdc_fail(ctx, MDC_ERR_IO, "lock file '%s/%s': cannot set its "
						"mode %04o: %s", dir, name, (unsigned) want,
						strerror(errno));
			}
			*f = fd;
			return 0;
		}
		close(fd);
		if (tries >= MDC_LOCK_REPLANT_MAX)
			return mdc_fail(ctx, MDC_ERR_REFUSED, "lock file '%s/%s' is planted again "
					"and again by uid %u: refused", dir, name, (unsigned) st.st_uid);
		/* ours but open to others (0666 of an older version: someone may
		 * hold it already), or planted by another user */
		mdc_warn("lock file '%s/%s' (uid %u, mode %04o) could be held by any user: "
			 "replaced", dir, name, (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
		if (unlinkat(d, name, 0) && errno != ENOENT)
			return mdc_fail(ctx, MDC_ERR_IO, "lock file '%s/%s': cannot remove it: %s",
					dir, name, strerror(errno));
	}
}

int mdc_lock_acquire(const char *dir, const char *endpoint, const char *cluster,
		     double timeout_s, volatile sig_atomic_t *interrupted, int *fd,
		     struct mdc_ctx *ctx)
{
	struct mdc_buf name = MDC_BUF_INIT;
	char holder[400];
	bool told = false;
	int d = -1, f = -1, rc = 0;
	double t0;

	*fd = -1;
	if (!dir || !*dir)
		dir = mdc_lock_default_dir();
	if (mdc_lock_name(&name, endpoint, cluster)) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	/* before the directory is even opened (issue 24.2) */
	if (geteuid() != 0) {
		rc = mdc_lock_denied(ctx, dir, name.s);
		goto out;
	}
	if ((rc = mdc_lock_dir_open(dir, &d, ctx)))
		goto out;
	if ((rc = mdc_lock_open(d, dir, name.s, &f, ctx)))
		goto out;
	t0 = mdc_mono();
	while (flock(f, LOCK_EX | LOCK_NB) < 0) {
		double waited = mdc_mono() - t0;

		if (errno != EWOULDBLOCK && errno != EINTR) {
			rc = mdc_fail(ctx, MDC_ERR_IO, "lock file '%s/%s': %s", dir, name.s,
				      strerror(errno));
			goto out;
		}
		if (waited >= timeout_s) {
			mdc_lock_holder(f, holder, sizeof(holder));
			rc = mdc_fail(ctx, MDC_ERR_CONFLICT,
				      "another writer holds '%s/%s' (%s)%s; try again when it is done",
				      dir, name.s, holder, timeout_s > 0 ? ", still after the wait" : "");
			goto out;
		}
		if (!told && waited >= MDC_LOCK_NOTICE_S) {
			mdc_lock_holder(f, holder, sizeof(holder));
			mdc_warn("waiting for the writer lock '%s/%s', held by %s (up to %.0f s)",
				 dir, name.s, holder, timeout_s);
			told = true;
		}
		if (!mdc_sleep(0.05, interrupted)) {
			rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "interrupted while waiting for the "
				      "writer lock '%s/%s': nothing was sent", dir, name.s);
			goto out;
		}
	}
	mdc_lock_record(f);
	*fd = f;
	f = -1;
out:
	if (f >= 0)
		close(f);
	if (d >= 0)
		close(d);
	mdc_buf_free(&name);
	return rc;
}

void mdc_lock_release(int fd)
{
	if (fd >= 0) {
		flock(fd, LOCK_UN);
		close(fd);
	}
}
