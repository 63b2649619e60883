/* mdc_run.h - the one way the library runs another program: argv, an
 * optional stdin, stdout/stderr captured up to a cap, a time bound, the
 * exit status.  posix_spawn (no fork of the caller's address space, no
 * code of ours between fork and exec), so it is safe in threaded callers
 * such as mdcd.  (owner: fix)
 */
#ifndef MDC_RUN_H
#define MDC_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include "mdc_buf.h"
#include "mdc_err.h"

struct mdc_run_opts {
	const char *in;		/* written to the child's stdin (NULL: see null_stdio) */
	size_t inlen;
	size_t out_cap;		/* bytes kept of stdout/stderr; more is read and dropped (0: 1 MiB) */
	double timeout_s;	/* SIGKILL after this long (<= 0: no bound) */
	bool merge_err;		/* stderr goes where stdout goes (OUT) */
	bool search_path;	/* argv[0] without '/' looked up in PATH */
	bool null_stdio;	/* stdin and the uncaptured streams on /dev/null (else inherited) */
};

struct mdc_run_result {
	int status;		/* exit code, 128 + signal number, -1 when it never ran */
	bool timed_out;		/* killed at the time bound */
	bool truncated;		/* output beyond out_cap was dropped */
};

/* Run ARGV (argv[0] the program) with O (NULL: defaults); OUT and ERR (may
 * be NULL) receive what it writes.  0 once the program ran (its status,
 * even a failure or a kill at the time bound, is in RES); MDC_ERR_IO
 * ("cannot run 'PROG': ...") when it could not be started, MDC_ERR_NOMEM.
 * The caller's signal mask and dispositions do not leak into the child. */
int mdc_run(char *const *argv, const struct mdc_run_opts *o, struct mdc_buf *out,
	    struct mdc_buf *err, struct mdc_run_result *res, struct mdc_ctx *ctx);

/* mdc_run in two halves, for a program started before its input is known
 * (a helper that loads a large library while the caller works).  Start
 * ARGV with O's stdio (stdin a pipe when O->in is not NULL, stdout and
 * stderr piped when CAPTURE_OUT / CAPTURE_ERR): 0 and *CHILD, or
 * mdc_run's errors.  Finish writes O->in (O->inlen bytes; the stdin pipe
 * is closed after), collects, reaps and frees CHILD, as mdc_run; the time
 * bound starts at the finish.  A child is always finished, once. */
struct mdc_run_child;
int mdc_run_start(char *const *argv, const struct mdc_run_opts *o, bool capture_out,
		  bool capture_err, struct mdc_run_child **child, struct mdc_ctx *ctx);
int mdc_run_finish(struct mdc_run_child *child, const struct mdc_run_opts *o, struct mdc_buf *out,
		   struct mdc_buf *err, struct mdc_run_result *res, struct mdc_ctx *ctx);

#endif
