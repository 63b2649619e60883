/* mdc_lock.c - writer serialisation (C14): the API has no etag, so the
 * writers of one cluster take an flock()ed file first.  Put the directory
 * on a shared file system (a /home dir) and several login nodes serialise
 * too.  (owner: client) */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_client.h"
#include "mdc_str.h"

static const char *mdc_lock_default_dir(void)
{
	const char *t = getenv("TMPDIR");

	if (access("/run/lock", W_OK) == 0)
		return "/run/lock";
	return t && *t ? t : "/tmp";
}

int mdc_lock_acquire(const char *dir, const char *cluster, double timeout_s,
		     volatile sig_atomic_t *interrupted, int *fd, struct mdc_ctx *ctx)
{
	struct mdc_buf path = MDC_BUF_INIT;
	struct timespec slice = { 0, 50 * 1000 * 1000 }, t0, now;
	int f = -1, rc = 0;

	*fd = -1;
	if (!dir || !*dir)
		dir = mdc_lock_default_dir();
	if (mdc_buf_addf(&path, "%s/mdc-", dir))
		goto nomem;
	/* the cluster name flattened into one file name */
	for (const char *p = cluster; *p; p++)
		if (mdc_buf_addc(&path, *p == '/' ? '_' : *p))
			goto nomem;
	if (mdc_buf_adds(&path, ".lock"))
		goto nomem;
	/* 0666: every admin of a shared lock dir must be able to open it */
	if ((f = open(path.s, O_RDWR | O_CREAT | O_CLOEXEC, 0666)) < 0) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "lock file '%s': %s (set MDC_LOCK_DIR or "
			      "'LockDir =' to a writable directory)", path.s, strerror(errno));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (flock(f, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			rc = mdc_fail(ctx, MDC_ERR_IO, "lock file '%s': %s", path.s, strerror(errno));
			goto out;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double) (now.tv_sec - t0.tv_sec) + (double) (now.tv_nsec - t0.tv_nsec) / 1e9 >= timeout_s) {
			rc = mdc_fail(ctx, MDC_ERR_CONFLICT,
				      "another writer holds '%s'; try again when it is done", path.s);
			goto out;
		}
		if (interrupted && *interrupted) {
			rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "interrupted while waiting for '%s'", path.s);
			goto out;
		}
		nanosleep(&slice, NULL);
	}
	*fd = f;
	f = -1;
	goto out;
nomem:
	rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
out:
	if (f >= 0)
		close(f);
	mdc_buf_free(&path);
	return rc;
}

void mdc_lock_release(int fd)
{
	if (fd >= 0) {
		flock(fd, LOCK_UN);
		close(fd);
	}
}
