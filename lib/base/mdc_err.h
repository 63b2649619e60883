/* mdc_err.h - one error enum for the whole library, and a context that
 * carries the message of the first failure back to the front end.
 *
 * Convention: library functions return 0 on success or an enum mdc_err
 * value, and fill the caller's struct mdc_ctx with a one-line message
 * (lower-case, no trailing period, subject quoted).  Only main() prints.
 */
/* layer lib/base/ owns errors, buffers, strings, hash, log, processes, runner, lock, dl;
 * it may include only itself and libc; the plugins link it (scripts/check-layers). */
#ifndef MDC_ERR_H
#define MDC_ERR_H

#include <stdarg.h>

enum mdc_err {
	MDC_OK = 0,
	MDC_ERR_NOMEM,		/* out of memory */
	MDC_ERR_USAGE,		/* bad command line */
	MDC_ERR_INVAL,		/* bad input: a file, a key, a value */
	MDC_ERR_PARSE,		/* malformed text (slurm.conf, JSON, YAML) */
	MDC_ERR_IO,		/* read/write/exec failed */
	MDC_ERR_NOTFOUND,	/* no such cluster, partition, key, file */
	MDC_ERR_REFUSED,	/* refused before sending (API contract) */
	MDC_ERR_API,		/* the API answered with an error */
	MDC_ERR_HTTP,		/* transport: connect, TLS, timeout talking */
	MDC_ERR_AUTH,		/* no credentials, or rejected */
	MDC_ERR_TIMEOUT,	/* waited too long (operation, lock) */
	MDC_ERR_OPFAILED,	/* the long-running operation ended in error */
	MDC_ERR_CONFLICT,	/* busy: cluster updating, lock held */
	MDC_ERR_INTERRUPTED,	/* Ctrl-C while waiting */
	MDC_ERR_VERIFY,		/* applied, but Slurm does not show it */
	MDC_ERR_INTERNAL,	/* a bug */
	MDC_ERR_LOST,		/* applied, then overwritten by another writer */
	MDC_ERR_MAX
};

#define MDC_CTX_MSG_MAX 2048

struct mdc_ctx {
	enum mdc_err err;
	char msg[MDC_CTX_MSG_MAX];
	/* API errors: the HTTP code and Google status ("INVALID_ARGUMENT") */
	int http_code;
	char status[48];
};

/* Static string naming ERR ("invalid input"); never NULL. */
const char *mdc_strerror(enum mdc_err err);

/* Clear CTX to "no error". */
void mdc_ctx_clear(struct mdc_ctx *ctx);

/* Record ERR with a printf-style message in CTX (which may be NULL) and
 * return ERR, so callers write `return mdc_fail(ctx, MDC_ERR_INVAL, ...)`.
 * A context that already holds an error keeps the first one. */
int mdc_fail(struct mdc_ctx *ctx, enum mdc_err err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int mdc_vfail(struct mdc_ctx *ctx, enum mdc_err err, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* mdc_nomem(CTX): the one wording of an
 * allocation failure.  Returns MDC_ERR_NOMEM. */
int mdc_nomem(struct mdc_ctx *ctx);

/* Prefix the message already in CTX with "WHAT: " (adds context on the way up). */
void mdc_ctx_prefix(struct mdc_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The process exit code documented for ERR (see mdcctl(1) EXIT STATUS). */
int mdc_exit_code(enum mdc_err err);

#endif
