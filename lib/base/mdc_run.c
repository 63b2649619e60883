/* mdc_run.c - see mdc_run.h.  (owner: fix)
 *
 * posix_spawn rather than fork: a forked copy of a threaded caller may
 * inherit a lock another thread held (malloc's, the loader's) and hang on
 * it; glibc's posix_spawn runs no caller code before exec and reports an
 * exec failure as its return value.
 */
#define _GNU_SOURCE	/* pipe2 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mdc_run.h"
#include "mdc_time.h"

extern char **environ;

#define MDC_RUN_CAP_DEFAULT (1024 * 1024)

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Read what FD has into B (up to CAP, the rest dropped); closes FD at EOF. */
static int drain(int *fd, struct mdc_buf *b, size_t cap, bool *truncated)
{
	char chunk[4096];
	ssize_t n = read(*fd, chunk, sizeof(chunk));
	size_t keep;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close_fd(fd);
		return 0;
	}
	keep = (size_t) n;
	if (!b || b->len >= cap) {
		*truncated |= b != NULL;
		return 0;
	}
	if (keep > cap - b->len) {
		keep = cap - b->len;
		*truncated = true;
	}
	return mdc_buf_add(b, chunk, keep);
}

/* The child's stdio: a pipe end, /dev/null or the caller's own. */
static int stdio_actions(posix_spawn_file_actions_t *fa, const struct mdc_run_opts *o,
			 const int pi[2], const int po[2], const int pe[2])
{
	int rc = 0;

	if (pi[0] >= 0)
		rc |= posix_spawn_file_actions_adddup2(fa, pi[0], 0);
	else if (o->null_stdio)
		rc |= posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
	if (po[1] >= 0)
		rc |= posix_spawn_file_actions_adddup2(fa, po[1], 1);
	else if (o->null_stdio)
		rc |= posix_spawn_file_actions_addopen(fa, 1, "/dev/null", O_WRONLY, 0);
	if (o->merge_err && po[1] >= 0)
		rc |= posix_spawn_file_actions_adddup2(fa, po[1], 2);
	else if (pe[1] >= 0)
		rc |= posix_spawn_file_actions_adddup2(fa, pe[1], 2);
	else if (o->null_stdio)
		rc |= posix_spawn_file_actions_addopen(fa, 2, "/dev/null", O_WRONLY, 0);
	return rc;
}

/* 0 if PROG can be started, else an errno.  posix_spawn reports a program
 * that cannot start only where the exec error travels back to the parent
 * (not under valgrind, whose clone has no shared memory: the child just
 * exits 127), so the check comes first and the message is the same
 * everywhere.  Searched in PATH as execvp does when SEARCH and PROG has no
 * slash. */
static int runnable(const char *prog, bool search)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];
	int e = ENOENT;

	if (!search || strchr(prog, '/'))
		return access(prog, X_OK) ? errno : 0;
	for (p = path && *path ? path : "/usr/bin:/bin"; ; p = end + 1) {
		size_t n;

		end = strchr(p, ':');
		n = end ? (size_t) (end - p) : strlen(p);
		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int) n, p, n ? "/" : "", prog) <
		    (int) sizeof(buf) && !access(buf, X_OK))
			return 0;
		if (!end)
			return e;
	}
}

/* Reap PID if it exits before DEADLINE (mdc_mono()): true with *WS set; false
 * when it did not (*TIMED_OUT) or waitpid failed.  A program has usually
 * exited just after closing its streams: the first looks come after 0.5,
 * 1, 2 ms, then every 10 ms (a fixed 10 ms cost every Slurm check 10 ms). */
static bool reap_by(pid_t pid, double deadline, int *ws, bool *timed_out)
{
	long ns = 500 * 1000;

	for (;;) {
		struct timespec slice = { 0, ns };
		pid_t w = waitpid(pid, ws, WNOHANG);

		if (w == pid)
			return true;
		if (w < 0 && errno != EINTR)
			return false;
		if (mdc_mono() >= deadline) {
			*timed_out = true;
			return false;
		}
		nanosleep(&slice, NULL);
		if (ns < 10 * 1000 * 1000)
			ns = ns * 2 > 10 * 1000 * 1000 ? 10 * 1000 * 1000 : ns * 2;
	}
}

/* A started program: our ends of its pipes (-1: none) and its name. */
struct mdc_run_child {
	pid_t pid;
	int in, out, err;
	char prog[256];
};

int mdc_run_start(char *const *argv, const struct mdc_run_opts *o, bool capture_out,
		  bool capture_err, struct mdc_run_child **child, struct mdc_ctx *ctx)
{
	static const struct mdc_run_opts dflt;
	int pi[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 }, rc = 0, e;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	bool fa_ok = false, at_ok = false;
	struct mdc_run_child *c = NULL;
	pid_t pid;

	*child = NULL;
	if (!o)
		o = &dflt;
	if (o->merge_err)
		capture_err = false;
	if ((e = runnable(argv[0], o->search_path))) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot run '%s': %s", argv[0], strerror(e));
		goto out;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if ((o->in && pipe2(pi, O_CLOEXEC)) || (capture_out && pipe2(po, O_CLOEXEC)) ||
	    (capture_err && pipe2(pe, O_CLOEXEC))) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	if (pi[1] >= 0 && fcntl(pi[1], F_SETFL, O_NONBLOCK) < 0) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot set up a pipe: %s", strerror(errno));
		goto out;
	}
	fa_ok = !posix_spawn_file_actions_init(&fa);
	at_ok = !posix_spawnattr_init(&at);
	if (!fa_ok || !at_ok) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	/* the child starts with no blocked signals and default SIGPIPE, as
	 * from a shell, whatever the caller's threads have set */
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	if (stdio_actions(&fa, o, pi, po, pe) || posix_spawnattr_setsigmask(&at, &none) ||
	    posix_spawnattr_setsigdefault(&at, &dfl) ||
	    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	e = (o->search_path ? posix_spawnp : posix_spawn)(&pid, argv[0], &fa, &at, argv,
							   environ);
	if (e) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot run '%s': %s", argv[0], strerror(e));
		goto out;
	}
	c->pid = pid;
	c->in = pi[1], c->out = po[0], c->err = pe[0];
	pi[1] = po[0] = pe[0] = -1;
	snprintf(c->prog, sizeof(c->prog), "%s", argv[0]);
	*child = c;
	c = NULL;
out:
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (at_ok)
		posix_spawnattr_destroy(&at);
	for (int i = 0; i < 2; i++) {
		close_fd(&pi[i]);
		close_fd(&po[i]);
		close_fd(&pe[i]);
	}
	free(c);
	return rc;
}

/* SIGPIPE blocked in this thread while we write a child's stdin: a child
 * that exits before reading it must not kill the caller; a SIGPIPE the
 * write raised is taken back in pipe_guard_off. */
struct pipe_guard {
	sigset_t pipe_only, old;
	bool on, was_pending;
};

static void pipe_guard_on(struct pipe_guard *g)
{
	sigset_t pend;

	sigemptyset(&g->pipe_only);
	sigaddset(&g->pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &g->pipe_only, &g->old);
	g->on = true;
	sigpending(&pend);
	g->was_pending = sigismember(&pend, SIGPIPE);
}

static void pipe_guard_off(struct pipe_guard *g)
{
	struct timespec zero = { 0, 0 };
	sigset_t pend;

	if (!g->on)
		return;
	sigpending(&pend);
	if (!g->was_pending && sigismember(&pend, SIGPIPE))
		sigtimedwait(&g->pipe_only, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* Feed C's stdin from O and read its stdout/stderr into OUT/ERR (CAP
 * bytes each) until every stream is closed or DEADLINE (0: none) passes
 * (res->timed_out). */
static int pump(struct mdc_run_child *c, const struct mdc_run_opts *o, struct mdc_buf *out,
		struct mdc_buf *err, size_t cap, double deadline, struct mdc_run_result *res,
		struct mdc_ctx *ctx)
{
	size_t inoff = 0;
	int rc = 0;

	while (c->out >= 0 || c->err >= 0 || c->in >= 0) {
		struct pollfd pfd[3] = { { c->out, POLLIN, 0 }, { c->err, POLLIN, 0 },
					 { c->in, POLLOUT, 0 } };
		int wait_ms = -1, pr;

		if (deadline) {
			double left = deadline - mdc_mono();

			if (left <= 0) {
				res->timed_out = true;
				break;
			}
			wait_ms = (int) (left * 1000) + 1;
		}
		pr = poll(pfd, 3, wait_ms);
		if (pr < 0 && errno != EINTR)
			return mdc_fail(ctx, MDC_ERR_IO, "waiting for '%s': %s", c->prog,
					strerror(errno));
		if (pr <= 0)
			continue;
		if (pfd[0].revents && drain(&c->out, out, cap, &res->truncated))
			rc = MDC_ERR_NOMEM;
		if (pfd[1].revents && drain(&c->err, err, cap, &res->truncated))
			rc = MDC_ERR_NOMEM;
		if (pfd[2].revents) {
			ssize_t n = write(c->in, o->in + inoff, o->inlen - inoff);

			if (n > 0)
				inoff += (size_t) n;
			if ((n < 0 && errno != EINTR && errno != EAGAIN) || inoff >= o->inlen)
				close_fd(&c->in);
		}
		if (rc)
			return mdc_nomem(ctx);
	}
	return 0;
}

/* C's exit status into res->status.  Its streams closed is not the
 * program gone: the bound DEADLINE holds till it exits; past it, or when
 * we stopped listening (FAILED), it is killed, never waited on. */
static int reap(struct mdc_run_child *c, double deadline, bool failed,
		struct mdc_run_result *res, struct mdc_ctx *ctx)
{
	int ws = 0;

	if (deadline && !res->timed_out && !failed &&
	    reap_by(c->pid, deadline, &ws, &res->timed_out)) {
		res->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
		return 0;
	}
	if (res->timed_out || failed)
		kill(c->pid, SIGKILL);
	while (waitpid(c->pid, &ws, 0) < 0)
		if (errno != EINTR)
			return failed ? 0 : mdc_fail(ctx, MDC_ERR_IO, "waiting for '%s': %s",
						     c->prog, strerror(errno));
	res->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}

int mdc_run_finish(struct mdc_run_child *c, const struct mdc_run_opts *o, struct mdc_buf *out,
		   struct mdc_buf *err, struct mdc_run_result *res, struct mdc_ctx *ctx)
{
	static const struct mdc_run_opts dflt;
	struct pipe_guard guard = { .on = false };
	double deadline;
	int rc, rc2;

	if (!o)
		o = &dflt;
	res->status = -1;
	res->timed_out = res->truncated = false;
	if (c->in >= 0) {
		pipe_guard_on(&guard);
		if (!o->in || !o->inlen)
			close_fd(&c->in);
	}
	deadline = o->timeout_s > 0 ? mdc_mono() + o->timeout_s : 0;
	rc = pump(c, o, out, err, o->out_cap ? o->out_cap : MDC_RUN_CAP_DEFAULT, deadline, res,
		  ctx);
	close_fd(&c->in);
	close_fd(&c->out);
	close_fd(&c->err);
	rc2 = reap(c, deadline, rc != 0, res, ctx);
	pipe_guard_off(&guard);
	free(c);
	return rc ? rc : rc2;
}

int mdc_run(char *const *argv, const struct mdc_run_opts *o, struct mdc_buf *out,
	    struct mdc_buf *err, struct mdc_run_result *res, struct mdc_ctx *ctx)
{
	struct mdc_run_child *c;
	int rc;

	res->status = -1;
	res->timed_out = res->truncated = false;
	if ((rc = mdc_run_start(argv, o, out != NULL, err != NULL, &c, ctx)))
		return rc;
	return mdc_run_finish(c, o, out, o && o->merge_err ? NULL : err, res, ctx);
}
