/* test_client.c - unit tests for the client library: settings, cluster
 * names, loopback rule, C15 error parsing, query encoding, backoff
 * shapes, the writer
 * lock and the explicit auth sources, bounded file reads, interrupts and
 * core dumps.  (owner: client) */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "mdc_client.h"
#include "mdc_auth.h"
#include "mdc_http.h"
#include "mdc_err.h"
#include "mdc_lock.h"
#include "mdc_lro.h"
#include "mdc_proc.h"
#include "mdc_str.h"

static void test_settings_parse(void **state)
{
	struct mdc_settings s;
	struct mdc_ctx ctx;

	(void) state;
	memset(&s, 0, sizeof(s));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_settings_parse(&s,
		"# managed cluster client\n"
		"Endpoint = http://127.0.0.1:8080   # the emulator\n"
		"\n"
		"token_file=/etc/slurm/mdc.token\n"
		"PROJECT = proj\n"
		"Region = us-central1\n"
		"ClusterId = c1\n"
		"LockDir = /home/mdc/locks\n", "mdc.conf", &ctx), 0);
	assert_string_equal(s.endpoint, "http://127.0.0.1:8080");
	assert_string_equal(s.token_file, "/etc/slurm/mdc.token");
	assert_string_equal(s.project, "proj");
	assert_string_equal(s.lock_dir, "/home/mdc/locks");
	assert_int_equal(mdc_settings_resolve(&s, true, &ctx), 0);
	assert_string_equal(s.cluster, "projects/proj/locations/us-central1/modelDevelopmentClusters/c1");
	/* a later line wins, an empty value clears */
	assert_int_equal(mdc_settings_parse(&s, "Endpoint =\n", "x", &ctx), 0);
	assert_null(s.endpoint);
	assert_int_equal(mdc_settings_parse(&s, "Region = r\nColour = blue\n", "mdc.conf", &ctx),
			 MDC_ERR_INVAL);
	assert_true(mdc_startswith(ctx.msg, "mdc.conf:2: unknown key 'Colour'"));
	mdc_ctx_clear(&ctx);
	/* the plugins' key shares the file: accepted, changes nothing here */
	assert_int_equal(mdc_settings_parse(&s, "job_submit_mode = warn\nRegion = r2\n", "mdc.conf", &ctx), 0);
	assert_string_equal(s.region, "r2");
	assert_int_equal(mdc_settings_parse(&s, "just words\n", "f", &ctx), MDC_ERR_INVAL);
	assert_string_equal(ctx.msg, "f:1: expected 'Key = value'");
	mdc_settings_free(&s);
}

static void test_settings_resolve(void **state)
{
	struct mdc_settings s;
	struct mdc_ctx ctx;

	(void) state;
	memset(&s, 0, sizeof(s));
	mdc_ctx_clear(&ctx);
	mdc_settings_set(&s.cluster, "projects/p/locations/europe-west4/modelDevelopmentClusters/c");
	assert_int_equal(mdc_settings_resolve(&s, true, &ctx), 0);
	assert_string_equal(s.endpoint, "https://europe-west4-aiplatform.googleapis.com");
	mdc_settings_free(&s);

	memset(&s, 0, sizeof(s));
	assert_int_equal(mdc_settings_resolve(&s, true, &ctx), MDC_ERR_USAGE);
	assert_non_null(strstr(ctx.msg, "no cluster given"));
	mdc_ctx_clear(&ctx);
	mdc_settings_set(&s.cluster_id, "c1");
	assert_int_equal(mdc_settings_resolve(&s, true, &ctx), MDC_ERR_USAGE);
	assert_non_null(strstr(ctx.msg, "needs --project and --region"));
	mdc_ctx_clear(&ctx);
	mdc_settings_set(&s.project, "p/x");
	mdc_settings_set(&s.region, "r");
	assert_int_equal(mdc_settings_resolve(&s, true, &ctx), MDC_ERR_INVAL);
	mdc_settings_free(&s);

	/* no cluster needed (list): the endpoint still comes from the region */
	memset(&s, 0, sizeof(s));
	mdc_ctx_clear(&ctx);
	mdc_settings_set(&s.region, "us-east5");
	assert_int_equal(mdc_settings_resolve(&s, false, &ctx), 0);
	assert_string_equal(s.endpoint, "https://us-east5-aiplatform.googleapis.com");
	mdc_settings_free(&s);
}

static void test_cluster_name(void **state)
{
	static const char *const bad[] = {
		"projects/p/locations/r/modelDevelopmentClusters",
		"projects/p/locations/r/modelDevelopmentClusters/c/extra",
		"projects//locations/r/modelDevelopmentClusters/c",
		"project/p/locations/r/modelDevelopmentClusters/c",
		"projects/p/locations/r/clusters/c",
		"projects/p/locations/r/modelDevelopmentClusters/c?x=1",
		"", NULL,
	};
	char *p, *r, *id;
	struct mdc_ctx ctx;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_cluster_name_split("projects/p1/locations/us-central1/modelDevelopmentClusters/c1",
						&p, &r, &id, &ctx), 0);
	assert_string_equal(p, "p1");
	assert_string_equal(r, "us-central1");
	assert_string_equal(id, "c1");
	free(p);
	free(r);
	free(id);
	for (size_t i = 0; bad[i]; i++) {
		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_cluster_name_split(bad[i], NULL, NULL, NULL, &ctx), MDC_ERR_INVAL);
	}
}

static void test_loopback(void **state)
{
	static const struct { const char *url; bool loop; } tab[] = {
		{ "http://127.0.0.1:8080", true }, { "http://127.0.0.1", true },
		{ "http://127.1.2.3/x", true }, { "http://localhost:1/", true },
		{ "http://[::1]:80", true }, { "http://10.0.0.1:80", false },
		{ "http://127.0.0.1.evil.com/", false }, { "http://user@127.0.0.1/", false },
		{ "https://us-central1-aiplatform.googleapis.com", false },
		{ "127.0.0.1", false }, { "http://[::2]:1", false },
		/* userinfo: the host is what follows '@' (issue 16.2) */
		{ "http://localhost:x@192.0.2.2:18080", false },
		{ "http://127.0.0.1:x@192.0.2.2/", false }, { "http://[::1]@192.0.2.2/", false },
		{ "http://127.0.0.1%2f@192.0.2.2/", false },
		/* numeric forms libcurl reads as 127.0.0.1 */
		{ "http://127.1:8080/", true }, { "http://2130706433/", true },
		{ "http://LOCALHOST:1/", true },
	};
	static const char *const userinfo[] = {
		"http://localhost:x@192.0.2.2:18080", "http://127.0.0.1:x@192.0.2.2",
		"http://[::1]@192.0.2.2/", "https://user:pw@example.com/", "http://user@127.0.0.1:1/",
	};
	struct mdc_settings s;
	struct mdc_client *c;
	struct mdc_ctx ctx;

	(void) state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		assert_int_equal(mdc_url_is_loopback(tab[i].url), tab[i].loop);
	memset(&s, 0, sizeof(s));
	mdc_ctx_clear(&ctx);
	s.endpoint = (char *) "http://example.com";
	assert_int_equal(mdc_client_new(&s, &c, &ctx), MDC_ERR_REFUSED);
	assert_non_null(strstr(ctx.msg, "plain http is refused"));
	assert_null(c);
	mdc_ctx_clear(&ctx);
	s.endpoint = (char *) "ftp://127.0.0.1/";
	assert_int_equal(mdc_client_new(&s, &c, &ctx), MDC_ERR_INVAL);
	mdc_ctx_clear(&ctx);
	s.endpoint = (char *) "https://x-aiplatform.googleapis.com/";
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	mdc_client_free(c);
	/* a user name or password before '@' is refused, and not echoed */
	for (size_t i = 0; i < sizeof(userinfo) / sizeof(userinfo[0]); i++) {
		mdc_ctx_clear(&ctx);
		s.endpoint = (char *) userinfo[i];
		assert_int_equal(mdc_client_new(&s, &c, &ctx), MDC_ERR_REFUSED);
		assert_null(c);
		assert_non_null(strstr(ctx.msg, "user name or password"));
		assert_null(strstr(ctx.msg, ":x@"));
	}
}

/* mdc_http_do refuses before connecting: nothing listens on 192.0.2.2
 * (TEST-NET-1) and nothing is contacted (the refusal is immediate). */
static void test_http_refuses(void **state)
{
	static const char *const hdrs[] = { "Authorization: Bearer t0k", NULL };
	struct mdc_http_req req = { .method = "GET", .headers = hdrs, .connect_timeout_s = 1,
				    .timeout_s = 1 };
	struct mdc_http_resp resp;
	struct mdc_ctx ctx;

	(void) state;
	mdc_ctx_clear(&ctx);
	req.url = "http://localhost:x@192.0.2.2:18080/v1/x";
	assert_int_equal(mdc_http_do(&req, &resp, &ctx), MDC_ERR_REFUSED);
	assert_null(resp.body);
	/* a bearer token over plain http to a non-loopback host, even if asked */
	mdc_ctx_clear(&ctx);
	req.url = "http://192.0.2.2:18080/v1/x";
	assert_int_equal(mdc_http_do(&req, &resp, &ctx), MDC_ERR_REFUSED);
	assert_non_null(strstr(ctx.msg, "plain http"));
	assert_null(strstr(ctx.msg, "t0k"));
	mdc_ctx_clear(&ctx);
	req.url = "gopher://127.0.0.1/";
	assert_int_equal(mdc_http_do(&req, &resp, &ctx), MDC_ERR_INVAL);
}

static void test_api_error(void **state)
{
	const char *body =
		"{\"error\":{\"code\":400,\"message\":\"bad\\nthing\",\"status\":\"INVALID_ARGUMENT\","
		"\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.BadRequest\","
		"\"fieldViolations\":[{\"field\":\"update_mask\",\"description\":\"unknown path 'x'\"},"
		"{\"field\":\"labels\",\"description\":\"too long\"}]},"
		"{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"2.5s\"}]}}";
	struct mdc_ctx ctx;
	double retry;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_api_error(400, body, strlen(body), &retry, &ctx), MDC_ERR_API);
	assert_string_equal(ctx.msg, "INVALID_ARGUMENT: bad thing (field 'update_mask': unknown path 'x'; "
			    "field 'labels': too long)");
	assert_int_equal(ctx.http_code, 400);
	assert_string_equal(ctx.status, "INVALID_ARGUMENT");
	assert_true(retry > 2.49 && retry < 2.51);

	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_api_error(404, "<html>", 6, &retry, &ctx), MDC_ERR_NOTFOUND);
	assert_string_equal(ctx.msg, "NOT_FOUND: HTTP 404 from the API");
	assert_true(retry < 0);

	mdc_ctx_clear(&ctx);
	body = "{\"error\":{\"code\":400,\"message\":\"busy\",\"status\":\"FAILED_PRECONDITION\"}}";
	assert_int_equal(mdc_api_error(400, body, strlen(body), NULL, &ctx), MDC_ERR_CONFLICT);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_api_error(401, "", 0, NULL, &ctx), MDC_ERR_AUTH);
	assert_string_equal(ctx.msg, "UNAUTHENTICATED: HTTP 401 from the API");
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_api_error(503, NULL, 0, NULL, &ctx), MDC_ERR_API);
	assert_string_equal(ctx.status, "UNAVAILABLE");
}

/* mdc_query_add: every byte but RFC 3986's unreserved ones is encoded,
 * UTF-8 byte by byte, whatever the locale says a letter is. */
static void test_query_add(void **state)
{
	static const struct { const char *val, *want; } tab[] = {
		{ "AZaz09-._~", "AZaz09-._~" },
		{ ":/?#[]@", "%3A%2F%3F%23%5B%5D%40" },
		{ "!$&'()*+,;=", "%21%24%26%27%28%29%2A%2B%2C%3B%3D" },
		{ "a b", "a%20b" },
		{ "%20", "%2520" },
		{ "\"\\<>^`{|}", "%22%5C%3C%3E%5E%60%7B%7C%7D" },
		{ "\t\n\x7f", "%09%0A%7F" },
		{ "caf\xc3\xa9 \xe6\x97\xa5", "caf%C3%A9%20%E6%97%A5" },
		{ "\xff\x80", "%FF%80" },
		{ "", "" },
	};
	struct mdc_buf q = MDC_BUF_INIT;
	char want[128];

	(void) state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		mdc_buf_reset(&q);
		assert_int_equal(mdc_query_add(&q, "k", tab[i].val), 0);
		snprintf(want, sizeof(want), "k=%s", tab[i].want);
		assert_string_equal(mdc_buf_str(&q), want);
	}
	/* pairs are joined with '&'; an empty value keeps its '=' */
	mdc_buf_reset(&q);
	assert_int_equal(mdc_query_add(&q, "pageSize", "1"), 0);
	assert_int_equal(mdc_query_add(&q, "filter", ""), 0);
	assert_int_equal(mdc_query_add(&q, "pageToken", "a=="), 0);
	assert_string_equal(mdc_buf_str(&q), "pageSize=1&filter=&pageToken=a%3D%3D");
	/* a Latin-1 locale calls 0xE9 a letter: it is encoded all the same */
	if (setlocale(LC_CTYPE, "en_US.ISO-8859-1") || setlocale(LC_CTYPE, "de_DE.ISO-8859-1")) {
		mdc_buf_reset(&q);
		assert_int_equal(mdc_query_add(&q, "k", "\xe9"), 0);
		assert_string_equal(mdc_buf_str(&q), "k=%E9");
		setlocale(LC_CTYPE, "C");
	}
	mdc_buf_free(&q);
}

static void test_backoff(void **state)
{
	(void) state;
	assert_true(mdc_duration_parse("1.5s") == 1.5);
	assert_true(mdc_duration_parse("0s") == 0);
	assert_true(mdc_duration_parse("3") < 0);
	assert_true(mdc_duration_parse("s") < 0);
	assert_true(mdc_duration_parse("-1s") < 0);
	assert_true(mdc_duration_parse(NULL) < 0);
	for (int i = 0; i < 100; i++) {
		double d0 = mdc_backoff(0, 1, 30), d3 = mdc_backoff(3, 1, 30), d9 = mdc_backoff(9, 1, 30);

		assert_true(d0 >= 0.5 && d0 <= 1.0);
		assert_true(d3 >= 4.0 && d3 <= 8.0);
		assert_true(d9 >= 15.0 && d9 <= 30.0);
	}
	/* the LRO poll: 0.1 s x1.5, cap 15 s (issue 15.3) */
	assert_true(mdc_lro_delay(0) > 0.0999 && mdc_lro_delay(0) < 0.1001);
	assert_true(mdc_lro_delay(19) > 0.0999 && mdc_lro_delay(19) < 0.1001);
	assert_true(mdc_lro_delay(20) > 0.1499 && mdc_lro_delay(20) < 0.1501);
	assert_true(mdc_lro_delay(21) > 0.2249 && mdc_lro_delay(21) < 0.2251);
	assert_true(mdc_lro_delay(31) < 15.0);
	assert_true(mdc_lro_delay(32) == 15.0);
	assert_true(mdc_lro_delay(1000) == 15.0);
	for (unsigned n = 1; n < 40; n++)
		assert_true(mdc_lro_delay(n) >= mdc_lro_delay(n - 1));
}

#define CL_C "projects/p/locations/r/modelDevelopmentClusters/c"
#define CL_D "projects/p/locations/r/modelDevelopmentClusters/d"
#define EP1 "http://127.0.0.1:18080"
#define EP2 "http://127.0.0.1:18081"

/* The one file in DIR (a test made it), or NULL; caller frees. */
static char *only_file(const char *dir)
{
	char cmd[512], line[512] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls '%s'", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	return *line ? mdc_path_join(dir, line) : NULL;
}

static void test_lock(void **state)
{
	char dir[] = "/tmp/mdc-test-lock.XXXXXX", other[] = "/tmp/mdc-test-lock2.XXXXXX";
	int fd1, fd2;
	struct mdc_ctx ctx;
	struct stat st;
	char *path, *target;

	(void) state;
	mdc_ctx_clear(&ctx);
	/* only root takes the lock (issue 24.2): anyone else is refused */
	if (geteuid() != 0) {
		assert_int_equal(mdc_lock_acquire("/tmp", EP1, CL_C, 0, NULL, &fd1, &ctx),
				 MDC_ERR_REFUSED);
		assert_non_null(strstr(ctx.msg, "only root takes the writer lock"));
		skip();
	}
	assert_non_null(mkdtemp(dir));
	assert_int_equal(mdc_lock_acquire(dir, EP1, CL_C, 0, NULL, &fd1, &ctx), 0);
	assert_true(fd1 >= 0);
	/* 0600 whatever the umask: a file others could open, they could hold (24.2) */
	path = only_file(dir);
	assert_non_null(path);
	assert_non_null(strstr(path, "/mdc-c-"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* flock is per open file: a second writer in this process is blocked
	 * too, and told who holds it (this process, from /proc/locks) */
	assert_int_equal(mdc_lock_acquire(dir, EP1, CL_C, 0.2, NULL, &fd2, &ctx),
			 MDC_ERR_CONFLICT);
	assert_non_null(strstr(ctx.msg, "another writer holds"));
	{
		char want[64];

		snprintf(want, sizeof(want), "pid %ld (", (long) getpid());
		assert_non_null(strstr(ctx.msg, want));
	}
	/* another cluster is another lock; so is the same cluster id behind
	 * another endpoint (two labs both named "c" on one machine) */
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_lock_acquire(dir, EP1, CL_D, 0, NULL, &fd2, &ctx), 0);
	mdc_lock_release(fd2);
	assert_int_equal(mdc_lock_acquire(dir, EP2, CL_C, 0, NULL, &fd2, &ctx), 0);
	mdc_lock_release(fd2);
	/* Ctrl-C while waiting: MDC_ERR_INTERRUPTED, not a timeout */
	{
		volatile sig_atomic_t intr = 1;

		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_lock_acquire(dir, EP1, CL_C, 30, &intr, &fd2, &ctx),
				 MDC_ERR_INTERRUPTED);
		assert_non_null(strstr(ctx.msg, "nothing was sent"));
	}
	mdc_lock_release(fd1);
	assert_int_equal(mdc_lock_acquire(dir, EP1, CL_C, 0, NULL, &fd1, &ctx), 0);
	mdc_lock_release(fd1);
	assert_int_equal(system("rm -f /tmp/mdc-test-lock.*/mdc-*.lock"), 0);

	/* a symlink planted at the lock path: refused, the target untouched */
	assert_non_null(mkdtemp(other));
	target = mdc_path_join(other, "victim");
	assert_int_equal(mdc_lock_acquire(dir, EP1, CL_C, 0, NULL, &fd1, &ctx), 0);
	mdc_lock_release(fd1);
	free(path);
	path = only_file(dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(target, path), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_lock_acquire(dir, EP1, CL_C, 0, NULL, &fd1, &ctx), MDC_ERR_REFUSED);
	assert_non_null(strstr(ctx.msg, "symbolic link"));
	assert_int_equal(access(target, F_OK), -1);
	unlink(path);
	/* a directory others may write to without the sticky bit: refused */
	assert_int_equal(chmod(dir, 0777), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_lock_acquire(dir, EP1, CL_C, 0, NULL, &fd1, &ctx), MDC_ERR_REFUSED);
	assert_non_null(strstr(ctx.msg, "not sticky"));
	assert_int_equal(chmod(dir, 01777), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_lock_acquire(dir, EP1, CL_C, 0, NULL, &fd1, &ctx), 0);
	mdc_lock_release(fd1);
	assert_int_equal(system("rm -f /tmp/mdc-test-lock.*/mdc-*.lock"), 0);
	free(path);
	free(target);
	rmdir(other);
	rmdir(dir);
	/* an unwritable directory says what to set */
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_lock_acquire("/nonexistent/dir", EP1, "c", 0, NULL, &fd1, &ctx),
			 MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "MDC_LOCK_DIR"));
}

/* Hostile files: FIFO, /dev/zero behind a symlink, a file over the cap,
 * a token file others can read.  Each refused at once (a FIFO with no
 * writer would block a plain open). */
static void test_read_regular(void **state)
{
	char dir[] = "/tmp/mdc-test-read.XXXXXX";
	char *fifo, *zero, *big, *tok, *text = NULL;
	struct mdc_ctx ctx;
	size_t len = 0;
	FILE *f;

	(void) state;
	assert_non_null(mkdtemp(dir));
	fifo = mdc_path_join(dir, "fifo");
	zero = mdc_path_join(dir, "zero");
	big = mdc_path_join(dir, "big");
	tok = mdc_path_join(dir, "tok");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(symlink("/dev/zero", zero), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_read_regular(fifo, 1024, 0, &text, &len, &ctx), MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "a FIFO"));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_read_regular(zero, 1024, 0, &text, &len, &ctx), MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "character device"));
	assert_null(text);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_read_regular(dir, 1024, 0, &text, &len, &ctx), MDC_ERR_IO);
	f = fopen(big, "w");
	assert_non_null(f);
	for (int i = 0; i < 200; i++)
		fputs("0123456789", f);
	fclose(f);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_read_regular(big, 1999, 0, &text, &len, &ctx), MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "larger than 1999 bytes"));
	assert_int_equal(mdc_read_regular(big, 2000, 0, &text, &len, &ctx), 0);
	assert_int_equal(len, 2000);
	free(text);
	text = NULL;
	/* /dev/null reads as empty (MDC_CONF=/dev/null is a common way to say "none") */
	assert_int_equal(mdc_read_regular("/dev/null", 10, 0, &text, &len, &ctx), 0);
	assert_string_equal(text, "");
	free(text);
	text = NULL;
	/* a private file: mode 0600 fine, 0640 and 0604 refused */
	f = fopen(tok, "w");
	assert_non_null(f);
	fputs("t0k\n", f);
	fclose(f);
	assert_int_equal(chmod(tok, 0600), 0);
	assert_int_equal(mdc_read_regular(tok, 100, MDC_READ_PRIVATE, &text, &len, &ctx), 0);
	free(text);
	text = NULL;
	assert_int_equal(chmod(tok, 0640), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_read_regular(tok, 100, MDC_READ_PRIVATE, &text, &len, &ctx),
			 MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "chmod 600"));
	assert_null(strstr(ctx.msg, "t0k"));
	assert_int_equal(chmod(tok, 0604), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_read_regular(tok, 100, MDC_READ_PRIVATE, &text, &len, &ctx),
			 MDC_ERR_IO);
	unlink(fifo);
	unlink(zero);
	unlink(big);
	unlink(tok);
	rmdir(dir);
	free(fifo);
	free(zero);
	free(big);
	free(tok);
}

/* The one sleep: it ends early once the watched flag is set. */
static void test_interrupts(void **state)
{
	static volatile sig_atomic_t flag;
	volatile sig_atomic_t extra = 0;
	double t0;

	(void) state;
	t0 = mdc_mono();
	assert_true(mdc_sleep(0.06, NULL));
	assert_true(mdc_mono() - t0 >= 0.06);
	mdc_intr_watch(&flag);
	flag = 1;
	t0 = mdc_mono();
	assert_false(mdc_sleep(30, NULL));
	assert_true(mdc_mono() - t0 < 5);
	assert_true(mdc_intr_pending(NULL));
	flag = 0;
	extra = 1;
	assert_false(mdc_sleep(30, &extra));
	assert_false(mdc_intr_pending(NULL));
	mdc_intr_watch(NULL);
}

static void test_no_core_dumps(void **state)
{
	struct rlimit rl;
	struct mdc_ctx ctx;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_no_core_dumps(&ctx), 0);
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
	assert_int_equal(getrlimit(RLIMIT_CORE, &rl), 0);
	assert_int_equal(rl.rlim_cur, 0);
	assert_int_equal(rl.rlim_max, 0);
}

static void test_auth_explicit(void **state)
{
	char file[] = "/tmp/mdc-test-token.XXXXXX";
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_ctx ctx;
	const char *tok;
	int fd;

	(void) state;
	unsetenv("MDC_ACCESS_TOKEN");
	unsetenv("MDC_METADATA_URL");
	memset(&s, 0, sizeof(s));
	mdc_ctx_clear(&ctx);
	s.endpoint = (char *) "http://127.0.0.1:9";
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	/* loopback, nothing explicit: no token and no error (never gcloud) */
	assert_int_equal(mdc_auth_token(c, &tok, &ctx), 0);
	assert_null(tok);
	mdc_client_free(c);

	setenv("MDC_ACCESS_TOKEN", "ya29.abc", 1);
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	assert_int_equal(mdc_auth_token(c, &tok, &ctx), 0);
	assert_string_equal(tok, "ya29.abc");
	mdc_client_free(c);

	setenv("MDC_ACCESS_TOKEN", "ya29 abc", 1);
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	assert_int_equal(mdc_auth_token(c, &tok, &ctx), MDC_ERR_AUTH);
	assert_null(strstr(ctx.msg, "ya29"));
	mdc_client_free(c);
	unsetenv("MDC_ACCESS_TOKEN");

	fd = mkstemp(file);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "  tok-from-file \nsecond line\n", 29), 29);
	close(fd);
	s.token_file = file;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	assert_int_equal(mdc_auth_token(c, &tok, &ctx), 0);
	assert_string_equal(tok, "tok-from-file");
	mdc_client_free(c);
	/* readable by the group: refused as ssh refuses such a key */
	assert_int_equal(chmod(file, 0640), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	assert_int_equal(mdc_auth_token(c, &tok, &ctx), MDC_ERR_AUTH);
	assert_non_null(strstr(ctx.msg, "other users"));
	assert_null(strstr(ctx.msg, "tok-from-file"));
	mdc_client_free(c);
	unlink(file);
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	assert_int_equal(mdc_auth_token(c, &tok, &ctx), MDC_ERR_AUTH);
	assert_true(mdc_startswith(ctx.msg, "token file: "));
	mdc_client_free(c);
}

/* The chain past the explicit sources, for a real (https) endpoint: a
 * metadata server that is not there, then gcloud from PATH. */
static void test_auth_gcloud(void **state)
{
	char dir[] = "/tmp/mdc-test-gcloud.XXXXXX";
	const char *old_path = getenv("PATH");
	char *saved = old_path ? strdup(old_path) : NULL, *gcloud;
	struct mdc_settings s;
	struct mdc_client *c = NULL;
	struct mdc_ctx ctx;
	const char *tok;
	FILE *f;

	(void) state;
	assert_non_null(mkdtemp(dir));
	gcloud = mdc_path_join(dir, "gcloud");
	unsetenv("MDC_ACCESS_TOKEN");
	/* a closed port: "no metadata server", at once */
	setenv("MDC_METADATA_URL", "http://127.0.0.1:1/token", 1);
	memset(&s, 0, sizeof(s));
	s.endpoint = (char *) "https://us-central1-aiplatform.googleapis.com";

	/* no gcloud either: one line saying what to set */
	setenv("PATH", dir, 1);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	assert_int_equal(mdc_auth_token(c, &tok, &ctx), MDC_ERR_AUTH);
	assert_true(mdc_startswith(ctx.msg, "no credentials: set MDC_ACCESS_TOKEN"));
	mdc_client_free(c);

	/* a gcloud that answers (its arguments checked) */
	f = fopen(gcloud, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n[ \"$1 $2\" = \"auth print-access-token\" ] || exit 3\n"
		"echo 'warning on stderr' >&2\necho ya29.from-gcloud\n");
	fclose(f);
	assert_int_equal(chmod(gcloud, 0755), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	assert_int_equal(mdc_auth_token(c, &tok, &ctx), 0);
	assert_string_equal(tok, "ya29.from-gcloud");
	/* cached: a second call does not run gcloud again */
	unlink(gcloud);
	assert_int_equal(mdc_auth_token(c, &tok, &ctx), 0);
	assert_string_equal(tok, "ya29.from-gcloud");
	mdc_client_free(c);

	/* a gcloud that fails says how to log in */
	f = fopen(gcloud, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\nexit 1\n");
	fclose(f);
	assert_int_equal(chmod(gcloud, 0755), 0);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_client_new(&s, &c, &ctx), 0);
	assert_int_equal(mdc_auth_token(c, &tok, &ctx), MDC_ERR_AUTH);
	assert_non_null(strstr(ctx.msg, "gcloud auth login"));
	mdc_client_free(c);

	unlink(gcloud);
	rmdir(dir);
	free(gcloud);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	unsetenv("MDC_METADATA_URL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings_parse),
		cmocka_unit_test(test_settings_resolve),
		cmocka_unit_test(test_cluster_name),
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_http_refuses),
		cmocka_unit_test(test_api_error),
		cmocka_unit_test(test_query_add),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_lock),
		cmocka_unit_test(test_read_regular),
		cmocka_unit_test(test_interrupts),
		cmocka_unit_test(test_auth_explicit),
		cmocka_unit_test(test_auth_gcloud),
		/* last: it makes this process non-dumpable */
		cmocka_unit_test(test_no_core_dumps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
