/* test_client.c - unit tests for the client library: settings, cluster
 * names, loopback rule, C15 error parsing, backoff shapes, the writer
 * lock and the explicit auth sources.  (owner: client) */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "mdc_client.h"
#include "mdc_err.h"
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
	/* the LRO poll: 1 s x1.4, cap 30 s */
	assert_true(mdc_lro_delay(0) == 1.0);
	assert_true(mdc_lro_delay(1) > 1.399 && mdc_lro_delay(1) < 1.401);
	assert_true(mdc_lro_delay(2) > 1.959 && mdc_lro_delay(2) < 1.961);
	assert_true(mdc_lro_delay(9) < 30.0);
	assert_true(mdc_lro_delay(11) == 30.0);
	assert_true(mdc_lro_delay(100) == 30.0);
}

static void test_lock(void **state)
{
	char dir[] = "/tmp/mdc-test-lock.XXXXXX";
	int fd1, fd2;
	struct mdc_ctx ctx;
	char *path;

	(void) state;
	assert_non_null(mkdtemp(dir));
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_lock_acquire(dir, "projects/p/locations/r/modelDevelopmentClusters/c",
					  0, NULL, &fd1, &ctx), 0);
	assert_true(fd1 >= 0);
	/* flock is per open file: a second writer in this process is blocked too */
	assert_int_equal(mdc_lock_acquire(dir, "projects/p/locations/r/modelDevelopmentClusters/c",
					  0.2, NULL, &fd2, &ctx), MDC_ERR_CONFLICT);
	assert_non_null(strstr(ctx.msg, "another writer holds"));
	/* another cluster is another lock */
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_lock_acquire(dir, "projects/p/locations/r/modelDevelopmentClusters/d",
					  0, NULL, &fd2, &ctx), 0);
	mdc_lock_release(fd2);
	mdc_lock_release(fd1);
	assert_int_equal(mdc_lock_acquire(dir, "projects/p/locations/r/modelDevelopmentClusters/c",
					  0, NULL, &fd1, &ctx), 0);
	mdc_lock_release(fd1);
	path = mdc_path_join(dir, "mdc-projects_p_locations_r_modelDevelopmentClusters_c.lock");
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
	free(path);
	path = mdc_path_join(dir, "mdc-projects_p_locations_r_modelDevelopmentClusters_d.lock");
	unlink(path);
	free(path);
	rmdir(dir);
	/* an unwritable directory says what to set */
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_lock_acquire("/nonexistent/dir", "c", 0, NULL, &fd1, &ctx), MDC_ERR_IO);
	assert_non_null(strstr(ctx.msg, "MDC_LOCK_DIR"));
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
		cmocka_unit_test(test_api_error),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_lock),
		cmocka_unit_test(test_auth_explicit),
		cmocka_unit_test(test_auth_gcloud),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
