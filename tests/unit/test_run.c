/* test_run.c - lib/mdc_run, the one program runner: captured stdout and
 * stderr, stdin, caps, the time bound, exit and signal statuses, a
 * program that cannot start, and many threads spawning at once (mdcd's
 * case).  Real programs (/bin/sh) only.  (owner: fix) */
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
#include <cmocka.h>
#include "mdc_buf.h"
#include "mdc_err.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_stdin_and_cap),
		cmocka_unit_test(test_timeout_and_signal),
		cmocka_unit_test(test_cannot_start),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
