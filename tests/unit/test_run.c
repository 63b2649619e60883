/* test_run.c - lib/mdc_run, the one program runner: captured stdout and
 * stderr, stdin, caps, the time bound, exit and signal statuses, a
 * program that cannot start, and many threads spawning at once (mdcd's
 * case); and mdc_live_check's second asks of a `scontrol show` that met
 * slurmctld reconfiguring.  Real programs (/bin/sh) only.  (owner: fix) */
#include "config.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "mdc_buf.h"
#include "mdc_err.h"
#include "mdc_live.h"
#include "mdc_run.h"

static int sh(const char *script, const struct mdc_run_opts *o, struct mdc_buf *out,
	      struct mdc_buf *err, struct mdc_run_result *r, struct mdc_ctx *ctx)
{
	char *argv[] = { "/bin/sh", "-c", (char *) script, NULL };

	return mdc_run(argv, o, out, err, r, ctx);
}

static void test_capture(void **state)
{
	struct mdc_buf out = MDC_BUF_INIT, err = MDC_BUF_INIT;
	struct mdc_run_opts merged = { .merge_err = true };
	struct mdc_run_result r;
	struct mdc_ctx ctx = { 0 };

	(void) state;
	assert_int_equal(sh("echo out; echo err >&2; exit 7", NULL, &out, &err, &r, &ctx), 0);
	assert_string_equal(mdc_buf_str(&out), "out\n");
	assert_string_equal(mdc_buf_str(&err), "err\n");
	assert_int_equal(r.status, 7);
	assert_false(r.timed_out);
	mdc_buf_reset(&out);
	assert_int_equal(sh("echo a; echo b >&2", &merged, &out, &err, &r, &ctx), 0);
	assert_string_equal(mdc_buf_str(&out), "a\nb\n");
	assert_int_equal(r.status, 0);
	mdc_buf_free(&out);
	mdc_buf_free(&err);
}

static void test_stdin_and_cap(void **state)
{
	static char big[300000];
	struct mdc_buf out = MDC_BUF_INIT;
	struct mdc_run_opts o = { .in = big, .inlen = sizeof(big) };
	struct mdc_run_result r;
	struct mdc_ctx ctx = { 0 };

	(void) state;
	memset(big, 'x', sizeof(big));
	/* more than a pipe holds, both ways */
	assert_int_equal(sh("cat", &o, &out, NULL, &r, &ctx), 0);
	assert_int_equal(r.status, 0);
	assert_int_equal(out.len, sizeof(big));
	assert_false(r.truncated);
	mdc_buf_reset(&out);
	o.out_cap = 1000;
	assert_int_equal(sh("cat", &o, &out, NULL, &r, &ctx), 0);
	assert_int_equal(out.len, 1000);
	assert_true(r.truncated);
	assert_int_equal(r.status, 0);
	/* a child that never reads its stdin: no SIGPIPE for the caller */
	mdc_buf_reset(&out);
	o.out_cap = 0;
	assert_int_equal(sh("exec 0<&-; echo done", &o, &out, NULL, &r, &ctx), 0);
	assert_string_equal(mdc_buf_str(&out), "done\n");
	mdc_buf_free(&out);
}

static void test_timeout_and_signal(void **state)
{
	struct mdc_buf out = MDC_BUF_INIT;
	/* long enough for a loaded machine to start sh; the kill is asserted,
	 * not its timing */
	struct mdc_run_opts o = { .timeout_s = 2 };
	struct mdc_run_result r;
	struct mdc_ctx ctx = { 0 };

	(void) state;
	assert_int_equal(sh("echo started; exec sleep 60", &o, &out, NULL, &r, &ctx), 0);
	assert_true(r.timed_out);
	assert_int_equal(r.status, 128 + SIGKILL);
	assert_string_equal(mdc_buf_str(&out), "started\n");
	/* nothing captured, or the streams closed early: still bounded */
	o.timeout_s = 0.5;
	assert_int_equal(sh("exec sleep 60", &o, NULL, NULL, &r, &ctx), 0);
	assert_true(r.timed_out);
	assert_int_equal(r.status, 128 + SIGKILL);
	mdc_buf_reset(&out);
	assert_int_equal(sh("exec >&- 2>&-; exec sleep 60", &o, &out, NULL, &r, &ctx), 0);
	assert_true(r.timed_out);
	assert_int_equal(sh("kill -TERM $$", NULL, NULL, NULL, &r, &ctx), 0);
	assert_false(r.timed_out);
	assert_int_equal(r.status, 128 + SIGTERM);
	mdc_buf_free(&out);
}

static void test_cannot_start(void **state)
{
	char *argv[] = { "/nonexistent/prog", NULL };
	char *search[] = { "mdc-no-such-program-anywhere", NULL };
	struct mdc_run_opts sp = { .search_path = true };
	struct mdc_run_result r;
	struct mdc_ctx ctx = { 0 };

	(void) state;
	assert_int_equal(mdc_run(argv, NULL, NULL, NULL, &r, &ctx), MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "cannot run '/nonexistent/prog'"));
	assert_int_equal(r.status, -1);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_run(search, &sp, NULL, NULL, &r, &ctx), MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "mdc-no-such-program-anywhere"));
}

static void *spawner(void *arg)
{
	intptr_t ok = 1;

	(void) arg;
	for (int i = 0; i < 20 && ok; i++) {
		struct mdc_buf out = MDC_BUF_INIT;
		struct mdc_run_result r;
		struct mdc_ctx ctx = { 0 };

		ok = !sh("echo $((6 * 7))", NULL, &out, NULL, &r, &ctx) && r.status == 0 &&
		     !strcmp(mdc_buf_str(&out), "42\n");
		mdc_buf_free(&out);
	}
	return (void *) ok;
}

static void test_threads(void **state)
{
	pthread_t t[6];
	void *ok;

	(void) state;
	for (int i = 0; i < 6; i++)
		assert_int_equal(pthread_create(&t[i], NULL, spawner, NULL), 0);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(pthread_join(t[i], &ok), 0);
		assert_true((intptr_t) ok);
	}
}

/* Started before its input is known, finished with it (the warm Slurm
 * check): the input arrives at the finish, and a child never given any
 * sees the end of its input. */
static void test_start_finish(void **state)
{
	static const struct mdc_run_opts later = { .in = "", .merge_err = true };
	char *argv[] = { "/bin/sh", "-c", "read x && echo \"got $x\" || { echo none; exit 3; }", NULL };
	char *nosuch[] = { "/nonexistent/prog", NULL };
	struct mdc_buf out = MDC_BUF_INIT;
	struct mdc_run_opts fin = later;
	struct mdc_run_child *c;
	struct mdc_run_result r;
	struct mdc_ctx ctx = { 0 };

	(void) state;
	assert_int_equal(mdc_run_start(argv, &later, true, false, &c, &ctx), 0);
	usleep(20000);		/* it waits: nothing was written yet */
	fin.in = "hello\n";
	fin.inlen = 6;
	fin.timeout_s = 10;
	assert_int_equal(mdc_run_finish(c, &fin, &out, NULL, &r, &ctx), 0);
	assert_string_equal(mdc_buf_str(&out), "got hello\n");
	assert_int_equal(r.status, 0);
	mdc_buf_reset(&out);
	assert_int_equal(mdc_run_start(argv, &later, true, false, &c, &ctx), 0);
	assert_int_equal(mdc_run_finish(c, NULL, &out, NULL, &r, &ctx), 0);
	assert_string_equal(mdc_buf_str(&out), "none\n");
	assert_int_equal(r.status, 3);
	assert_int_equal(mdc_run_start(nosuch, &later, true, false, &c, &ctx), MDC_ERR_IO);
	assert_null(c);
	assert_non_null(strstr(ctx.msg, "cannot run '/nonexistent/prog'"));
	mdc_buf_free(&out);
}

/* A stand-in scontrol (MDC_SCONTROL) that fails its first FAILS calls
 * with MSG and counts every call: a `show` that met a reconfigure is asked
 * again, anything else is not, and neither is another error. */
static unsigned live_calls(const char *msg, unsigned fails, char *const *args, int want_rc,
			   const char *want_out)
{
	char dir[] = "/tmp/test_live.XXXXXX", path[128], count[128], buf[32];
	struct mdc_buf out = MDC_BUF_INIT;
	struct mdc_ctx ctx = { 0 };
	unsigned calls;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/scontrol", dir);
	snprintf(count, sizeof(count), "%s/count", dir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "#!/bin/sh\necho x >>'%s'\n"
		"if [ $(wc -l <'%s') -le %u ]; then echo 'scontrol: error: %s' >&2; exit 1; fi\n"
		"echo \"ok $*\"\n", count, count, fails, msg);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	setenv("MDC_SCONTROL", path, 1);
	assert_int_equal(mdc_live_check(args, &out, &ctx), want_rc);
	if (want_out)
		assert_string_equal(mdc_buf_str(&out), want_out);
	else
		assert_non_null(strstr(ctx.msg, msg));
	assert_non_null(f = fopen(count, "r"));
	for (calls = 0; fgets(buf, sizeof(buf), f); calls++)
		;
	fclose(f);
	unsetenv("MDC_SCONTROL");
	unlink(count);
	unlink(path);
	rmdir(dir);
	mdc_buf_free(&out);
	return calls;
}

static void test_live_transient(void **state)
{
	char *show[] = { "show", "partition", "debug", NULL };
	char *update[] = { "update", "PartitionName=debug", "MaxTime=5", NULL };
	char *opt_show[] = { "-o", "show", "partition", "debug", NULL };

	(void) state;
	assert_int_equal(live_calls("slurm_load_partitions error: Socket timed out on send/recv "
				    "operation", 1, show, 0, "ok show partition debug\n"), 2);
	assert_int_equal(live_calls("Unexpected missing socket error", 2, show, 0,
				    "ok show partition debug\n"), 3);
	/* four asks at most, then the error with scontrol's words */
	assert_int_equal(live_calls("Zero Bytes were transmitted or received", 9, show, MDC_ERR_IO,
				    NULL), 4);
	/* a change is repeated only when slurmctld dropped it unread (the
	 * credential: Zero Bytes), never after a timeout (maybe applied);
	 * a real error is not retried */
	assert_int_equal(live_calls("slurm_update error: Zero Bytes were transmitted or received", 1,
				    update, 0, "ok update PartitionName=debug MaxTime=5\n"), 2);
	assert_int_equal(live_calls("Socket timed out on send/recv operation", 1, update,
				    MDC_ERR_IO, NULL), 1);
	assert_int_equal(live_calls("Socket timed out on send/recv operation", 1, opt_show, 0,
				    "ok -o show partition debug\n"), 2);
	assert_int_equal(live_calls("Invalid partition name specified", 1, show, MDC_ERR_IO, NULL), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_stdin_and_cap),
		cmocka_unit_test(test_timeout_and_signal),
		cmocka_unit_test(test_cannot_start),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_start_finish),
		cmocka_unit_test(test_live_transient),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
