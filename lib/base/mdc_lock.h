/* mdc_lock.h - the writer lock (mdc_lock.c): the API has no etag, so the
 * writers of one cluster serialise on an flock()ed file.  (owner: client) */
#ifndef MDC_LOCK_H
#define MDC_LOCK_H

#include <signal.h>
#include "mdc_err.h"

/* How long a writer waits for the lock unless told otherwise: the length
 * of a long operation, not an hour (anyone able to open the file can hold
 * it; the wait names the holder after a few seconds). */
#define MDC_LOCK_WAIT_DEFAULT_S 600.0

/* Take the lock: an flock()ed file "mdc-<id>-<hash>.lock" in DIR (NULL:
 * /run/lock when writable, else $TMPDIR or /tmp), the hash taken over
 * ENDPOINT and the full CLUSTER name.  DIR must belong to root or the
 * caller and, when others may write to it, be sticky (MDC_ERR_REFUSED); a
 * symlink or non-regular file at the lock path is refused.  Waits up to
 * TIMEOUT_S (0 = fail at once with MDC_ERR_CONFLICT), telling (mdc_info)
 * after a few seconds and in the error who holds it; stops on
 * *INTERRUPTED or Ctrl-C (mdc_intr_watch) with MDC_ERR_INTERRUPTED.  *FD
 * gets the descriptor, owned by the caller until mdc_lock_release. */
int mdc_lock_acquire(const char *dir, const char *endpoint, const char *cluster,
		     double timeout_s, volatile sig_atomic_t *interrupted, int *fd,
		     struct mdc_ctx *ctx);
/* Unlock and close FD (from mdc_lock_acquire; a negative FD is ignored). */
void mdc_lock_release(int fd);

#endif
