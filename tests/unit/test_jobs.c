/* test_jobs.c - the job wait policy's pure half (lib/mdc_jobs.c):
 * durations in Slurm's formats, actions, site settings, resolution of a
 * request over a site default, the AdminComment record, log escaping.
 * (owner: plugins) */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>
#include "mdc_jobs.h"

static void test_duration(void **state)
{
	static const struct { const char *in; uint32_t secs; } good[] = {
		{ "5", 300 }, { "0:02", 2 }, { "1:30", 90 }, { "1:00:00", 3600 },
		{ "2-3", 2 * 86400 + 3 * 3600 }, { "1-0:5", 86400 + 300 },
		{ "1-2:3:4", 86400 + 7200 + 180 + 4 }, { "30s", 30 }, { "10m", 600 },
		{ "2h", 7200 }, { "1d", 86400 }, { "10M", 600 }, { "366d", 366 * 86400 },
	};
	static const char *const bad[] = {
		"", "soon", "0", "0s", "-5", "5x", "1:2:3:4", "1-", "-1", "1--2", "5 m", "m",
		"367d", "1:a", "1::2", "999999999999",
	};
	struct mdc_ctx ctx = { 0 };
	uint32_t v;

	(void) state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 0;
		assert_int_equal(mdc_jobs_duration_parse(good[i].in, &v, &ctx), 0);
		if (v != good[i].secs)
			fail_msg("'%s': %u, not %u", good[i].in, v, good[i].secs);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (mdc_jobs_duration_parse(bad[i], &v, &ctx) != MDC_ERR_INVAL)
			fail_msg("'%s' accepted", bad[i]);
	mdc_ctx_clear(&ctx);
	mdc_jobs_duration_parse("soon", &v, &ctx);
	assert_string_equal(ctx.msg, "'soon' is not a duration: use minutes, MM:SS, HH:MM:SS, "
			    "D-HH, D-HH:MM, D-HH:MM:SS or 30s/10m/2h/1d");
}

static void test_action(void **state)
{
	struct mdc_ctx ctx = { 0 };
	enum mdc_jobs_action a;

	(void) state;
	assert_int_equal(mdc_jobs_action_parse("fail", &a, &ctx), 0);
	assert_int_equal(a, MDC_JOBS_FAIL);
	assert_int_equal(mdc_jobs_action_parse("Fall-Back-To-On-Demand", &a, &ctx), 0);
	assert_int_equal(a, MDC_JOBS_FALL_BACK);
	assert_int_equal(mdc_jobs_action_parse("fall", &a, &ctx), MDC_ERR_INVAL);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_jobs_action_parse("none", &a, &ctx), MDC_ERR_INVAL);
	assert_string_equal(ctx.msg, "'none' is not an action: use fail or fall-back-to-on-demand");
}

static void test_site(void **state)
{
	struct mdc_jobs_site s;
	struct mdc_ctx ctx = { 0 };

	(void) state;
	assert_int_equal(mdc_jobs_site_parse("2h", "reserved=30m/fall-back-to-on-demand/ondemand "
					     "gpu=1:00:00/fail", &s, &ctx), 0);
	assert_int_equal(s.max_wait, 7200);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.defaults[0].part, "reserved");
	assert_int_equal(s.defaults[0].req.wait, 1800);
	assert_string_equal(s.defaults[0].req.fallback, "ondemand");
	assert_int_equal(s.defaults[1].req.action, MDC_JOBS_FAIL);
	mdc_jobs_site_free(&s);

	static const struct { const char *max, *defs, *msg; } bad[] = {
		{ "soon", NULL, "JobWaitMax: 'soon' is not a duration" },
		{ NULL, "reserved", "JobWaitDefault entry 'reserved' (PART=WAIT/ACTION[/FALLBACK]): no '='" },
		{ NULL, "r=30m", "JobWaitDefault entry 'r=30m' (PART=WAIT/ACTION[/FALLBACK]): no '/ACTION'" },
		{ NULL, "r=30m/fall-back-to-on-demand", "JobWaitDefault entry 'r=30m/fall-back-to-on-demand' (PART=WAIT/ACTION[/FALLBACK]): fall-back-to-on-demand needs" },
		{ NULL, "r=30m/fail/x", "JobWaitDefault entry 'r=30m/fail/x' (PART=WAIT/ACTION[/FALLBACK]): fail takes no" },
		{ "1h", "r=2h/fail", "JobWaitDefault entry 'r=2h/fail': the wait is longer than JobWaitMax" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mdc_ctx_clear(&ctx);
		assert_int_not_equal(mdc_jobs_site_parse(bad[i].max, bad[i].defs, &s, &ctx), 0);
		if (strncmp(ctx.msg, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("'%s': got '%s'", bad[i].msg, ctx.msg);
		assert_int_equal(s.n, 0);
		assert_null(s.defaults);
	}
}

static bool has(const char *name, void *arg)
{
	(void) arg;
	return !strcmp(name, "ondemand") || !strcmp(name, "reserved") || !strcmp(name, "debug");
}

static void test_resolve(void **state)
{
	struct mdc_jobs_site s;
	struct mdc_jobs_policy p;
	struct mdc_jobs_request r;
	struct mdc_ctx ctx = { 0 };

	(void) state;
	assert_int_equal(mdc_jobs_site_parse("1h", "reserved=30m/fall-back-to-on-demand/ondemand",
					     &s, &ctx), 0);
	/* the site default, with no option, for -p reserved and for the default partition */
	memset(&r, 0, sizeof(r));
	assert_int_equal(mdc_jobs_resolve(&r, "reserved", "debug", &s, has, NULL, &p, &ctx), 0);
	assert_int_equal(p.wait, 1800);
	assert_int_equal(p.action, MDC_JOBS_FALL_BACK);
	assert_int_equal(mdc_jobs_resolve(&r, NULL, "reserved", &s, has, NULL, &p, &ctx), 0);
	assert_int_equal(p.wait, 1800);
	/* no default for a list or another partition: no policy */
	assert_int_equal(mdc_jobs_resolve(&r, "reserved,debug", "debug", &s, has, NULL, &p, &ctx), 0);
	assert_int_equal(p.wait, 0);
	/* the user's fields override; fail drops the default fallback */
	r.wait = 60;
	r.action = MDC_JOBS_FAIL;
	assert_int_equal(mdc_jobs_resolve(&r, "reserved", NULL, &s, has, NULL, &p, &ctx), 0);
	assert_int_equal(p.wait, 60);
	assert_int_equal(p.action, MDC_JOBS_FAIL);
	assert_string_equal(p.fallback, "");
	/* refusals */
	static const struct { uint32_t wait; enum mdc_jobs_action a; const char *fb, *parts, *msg; } bad[] = {
		{ 0, MDC_JOBS_FAIL, "", "debug", "--mdc-on-timeout and --mdc-fallback-partition need --mdc-wait-time" },
		{ 7200, 0, "", "debug", "--mdc-wait-time of 7200 seconds is longer than the site's maximum (JobWaitMax, 3600 seconds)" },
		{ 60, MDC_JOBS_FALL_BACK, "", "debug", "--mdc-on-timeout=fall-back-to-on-demand needs --mdc-fallback-partition=NAME" },
		{ 60, MDC_JOBS_FALL_BACK, "nosuch", "debug", "fallback partition 'nosuch' is not in the managed slurm.conf" },
		{ 60, 0, "debug", "reserved,debug", "fallback partition 'debug' is one the job already asks for: name another one" },
		{ 60, MDC_JOBS_FAIL, "ondemand", "debug", "--mdc-fallback-partition=ondemand contradicts --mdc-on-timeout=fail" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.wait = bad[i].wait;
		r.action = bad[i].a;
		snprintf(r.fallback, sizeof(r.fallback), "%s", bad[i].fb);
		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_jobs_resolve(&r, bad[i].parts, "debug", &s, has, NULL, &p, &ctx),
				 MDC_ERR_INVAL);
		if (strncmp(ctx.msg, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("'%s': got '%s'", bad[i].msg, ctx.msg);
	}
	mdc_jobs_site_free(&s);
}

static void test_record(void **state)
{
	struct mdc_jobs_policy p = { .wait = 1800, .action = MDC_JOBS_FALL_BACK }, q;
	struct mdc_ctx ctx = { 0 };
	char buf[256], *c, *c2;
	int n;

	(void) state;
	snprintf(p.fallback, sizeof(p.fallback), "ondemand");
	n = mdc_jobs_policy_format(&p, buf, sizeof(buf));
	assert_int_equal(n, (int) strlen(buf));
	assert_string_equal(buf, "mdc:wait=1800,on-timeout=fall-back-to-on-demand,fallback=ondemand");
	assert_int_equal(mdc_jobs_policy_format(&p, buf, 10), -1);
	/* kept beside an administrator's comment, replaced in place */
	assert_non_null(c = mdc_jobs_comment_with("ticket 42", &p));
	assert_string_equal(c, "ticket 42 mdc:wait=1800,on-timeout=fall-back-to-on-demand,fallback=ondemand");
	snprintf(p.expired, sizeof(p.expired), "fell-back");
	assert_non_null(c2 = mdc_jobs_comment_with(c, &p));
	assert_string_equal(c2, "ticket 42 mdc:wait=1800,on-timeout=fall-back-to-on-demand,fallback=ondemand,expired=fell-back");
	assert_int_equal(mdc_jobs_policy_parse(c2, &q, &ctx), 0);
	assert_int_equal(q.wait, 1800);
	assert_string_equal(q.fallback, "ondemand");
	assert_string_equal(q.expired, "fell-back");
	free(c);
	free(c2);
	assert_int_equal(mdc_jobs_policy_parse("no record", &q, &ctx), MDC_ERR_NOTFOUND);
	assert_int_equal(mdc_jobs_policy_parse(NULL, &q, &ctx), MDC_ERR_NOTFOUND);
	static const char *const bad[] = {
		"mdc:wait=0,on-timeout=fail", "mdc:wait=5", "mdc:wait=5,on-timeout=fall-back-to-on-demand",
		"mdc:wait=5,on-timeout=fail,fallback=x", "mdc:wait=5,on-timeout=fail,color=red",
		"mdc:wait=5,on-timeout=fail,expired=maybe", "mdc:wait=x5,on-timeout=fail",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (mdc_jobs_policy_parse(bad[i], &q, &ctx) != MDC_ERR_INVAL)
			fail_msg("'%s' accepted", bad[i]);
}

static void test_escape(void **state)
{
	char buf[32];

	(void) state;
	assert_string_equal(mdc_jobs_log_escape("x\nforged\t\\\x01", buf, sizeof(buf)),
			    "x\\nforged\\t\\\\\\x01");
	assert_string_equal(mdc_jobs_log_escape(NULL, buf, sizeof(buf)), "");
	mdc_jobs_log_escape("0123456789012345678901234567890123456789", buf, sizeof(buf));
	assert_true(strlen(buf) < sizeof(buf));
	assert_string_equal(buf + strlen(buf) - 3, "...");
}

/* Slurm's duration form: a bare 5 would read as five minutes */
static void test_fmt_secs(void **state)
{
	char buf[32];

	(void) state;
	assert_string_equal(mdc_jobs_fmt_secs(5, buf, sizeof(buf)), "00:00:05");
	assert_string_equal(mdc_jobs_fmt_secs(3600, buf, sizeof(buf)), "01:00:00");
	assert_string_equal(mdc_jobs_fmt_secs(86399, buf, sizeof(buf)), "23:59:59");
	assert_string_equal(mdc_jobs_fmt_secs(86400, buf, sizeof(buf)), "1-00:00:00");
	assert_string_equal(mdc_jobs_fmt_secs(2 * 86400 + 3723, buf, sizeof(buf)), "2-01:02:03");
	assert_string_equal(mdc_jobs_fmt_secs(-3, buf, sizeof(buf)), "00:00:00");
}

/* mdcd's JobWaitEnforceInterval and mdcctl's --interval: one rule */
static void test_interval(void **state)
{
	char path[] = "/tmp/test_jobs.XXXXXX";
	struct mdc_ctx ctx = { 0 };
	long v = -1;
	int fd;

	(void) state;
	assert_int_equal(mdc_jobs_interval_parse("30", false, "--interval", &v, &ctx), 0);
	assert_int_equal(v, 30);
	assert_int_equal(mdc_jobs_interval_parse("0", true, "X", &v, &ctx), 0);
	assert_int_equal(v, 0);
	static const struct { const char *s; bool zero_ok; const char *msg; } bad[] = {
		{ "0", false, "--interval '0': give seconds, 1 to 86400" },
		{ "86401", true, "--interval '86401': give seconds, 0 to 86400 (0: off)" },
		{ "30s", true, "'30s'" }, { "-1", true, "'-1'" }, { "", true, "''" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&ctx, 0, sizeof(ctx));
		assert_int_equal(mdc_jobs_interval_parse(bad[i].s, bad[i].zero_ok, "--interval", &v,
							 &ctx), MDC_ERR_INVAL);
		assert_non_null(strstr(ctx.msg, bad[i].msg));
	}
	/* from mdc.conf: absent is off, a bad value names the file and key */
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, "JobWaitMax = 1h\n", 16), 16);
	close(fd);
	v = -1;
	assert_int_equal(mdc_jobs_interval_load(path, &v, &ctx), 0);
	assert_int_equal(v, 0);
	assert_true((fd = open(path, O_WRONLY | O_APPEND)) >= 0);
	assert_int_equal(write(fd, "jobwaitenforceinterval = 45\n", 28), 28);
	close(fd);
	assert_int_equal(mdc_jobs_interval_load(path, &v, &ctx), 0);
	assert_int_equal(v, 45);
	assert_true((fd = open(path, O_WRONLY | O_APPEND)) >= 0);
	assert_int_equal(write(fd, "JobWaitEnforceInterval = 1m\n", 28), 28);
	close(fd);
	memset(&ctx, 0, sizeof(ctx));
	assert_int_equal(mdc_jobs_interval_load(path, &v, &ctx), MDC_ERR_INVAL);
	assert_non_null(strstr(ctx.msg, path));
	assert_non_null(strstr(ctx.msg, "JobWaitEnforceInterval '1m'"));
	unlink(path);
	v = -1;
	assert_int_equal(mdc_jobs_interval_load(path, &v, &ctx), 0);
	assert_int_equal(v, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_fmt_secs),
		cmocka_unit_test(test_action),
		cmocka_unit_test(test_site),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
