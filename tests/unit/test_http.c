/* test_http.c - unit tests for the transport (mdc_http.c, libcurl): URL
 * checks, real exchanges with a server thread on 127.0.0.1 (whole, cut
 * and malformed answers, sent in small pieces), what goes on the wire,
 * transport errors, and one connection for the requests of a handle.
 * (owner: client) */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "mdc_err.h"
#include "mdc_auth.h"
#include "mdc_broker.h"
#include "mdc_client_int.h"
#include "mdc_http.h"
#include "mdc_settings.h"
#include "mdc_proc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* mdc_url_check: scheme and loopback as libcurl reads the URL, and
 * credentials before '@' refused */
static void test_url_check(void **state)
{
	static const struct { const char *url; int rc; bool http, loop; } tab[] = {
		{ "http://127.0.0.1:8080", 0, true, true }, { "http://localhost:1/", 0, true, true },
		{ "http://[::1]:80", 0, true, true }, { "http://10.0.0.1:80", 0, true, false },
		{ "http://127.1:8080/", 0, true, true }, { "https://x.example.com/", 0, false, false },
		{ "http://2130706433/", 0, true, true }, { "http://0x7f.0.0.1/", 0, true, true },
		{ "http://192.0.2.2/", 0, true, false }, { "http://[::2]:9/", 0, true, false },
		{ "http://127.0.0.1%2f@192.0.2.2/", MDC_ERR_REFUSED, false, false },
		{ "http://localhost:x@192.0.2.2:18080", MDC_ERR_REFUSED, false, false },
		{ "gopher://127.0.0.1/", MDC_ERR_INVAL, false, false },
	};

	(void) state;
	for (size_t i = 0; i < N(tab); i++) {
		bool http = false, loop = false;
		struct mdc_ctx ctx;

		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_url_check(tab[i].url, &http, &loop, &ctx), tab[i].rc);
		if (tab[i].rc)
			continue;
		assert_int_equal(http, tab[i].http);
		assert_int_equal(loop, tab[i].loop);
	}
}

/* ---- answers ------------------------------------------------------ */

struct answer {
	const char *name;
	const char *text;
	size_t max;		/* 0: 1 MiB */
	int rc;			/* with eof */
	long status;
	const char *body;
	double retry;
};

static const struct answer answers[] = {
	{ "length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: y\r\n\r\nhello", 0, 0, 200, "hello", -1 },
	{ "length, extra bytes", "HTTP/1.1 200 OK\r\ncontent-length:2\r\n\r\nhello", 0, 0, 200, "he",
	  -1 },
	{ "no reason", "HTTP/1.0 404\r\nContent-Length: 0\r\n\r\n", 0, 0, 404, "", -1 },
	{ "chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "5\r\nhello\r\n1;ext=1\r\n,\r\nb\r\n 0123456789\r\n0\r\nT: 1\r\n\r\n", 0, 0, 200,
	  "hello, 0123456789", -1 },
	{ "chunked wins over length", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n"
	  "Transfer-Encoding:  Chunked \r\n\r\n2\r\nok\r\n0\r\n\r\n", 0, 0, 200, "ok", -1 },
	{ "to the close", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"a\":1}", 0, 0, 200,
	  "{\"a\":1}", -1 },
	{ "interim 100", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n"
	  "\r\n{}", 0, 0, 201, "{}", -1 },
	{ "204", "HTTP/1.1 204 No Content\r\n\r\n", 0, 0, 204, "", -1 },
	{ "retry-after", "HTTP/1.1 429 Too Many\r\nRetry-After: 2.5 \r\nContent-Length: 0\r\n\r\n", 0,
	  0, 429, "", 2.5 },
	{ "retry-after date", "HTTP/1.1 503 x\r\nRetry-After: Fri, 31 Dec 1999 23:59:59 GMT\r\n"
	  "Content-Length: 0\r\n\r\n", 0, 0, 503, "", -1 },
	{ "bare LF", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", 0, 0, 200, "ok", -1 },
	{ "empty", "", 0, MDC_ERR_HTTP, 0, NULL, 0 },
	{ "not http", "SSH-2.0-OpenSSH\r\n\r\n", 0, MDC_ERR_HTTP, 0, NULL, 0 },
	{ "bad code", "HTTP/1.1 2x0 OK\r\n\r\n", 0, MDC_ERR_HTTP, 0, NULL, 0 },
	{ "header without colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", 0, MDC_ERR_HTTP, 0, NULL, 0 },
	{ "two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 0,
	  MDC_ERR_HTTP, 0, NULL, 0 },
	{ "bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, MDC_ERR_HTTP, 0, NULL, 0 },
	{ "gzip", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", 0, MDC_ERR_HTTP, 0, NULL, 0 },
	{ "bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0,
	  MDC_ERR_HTTP, 0, NULL, 0 },
	{ "chunk overrun", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
	  0, MDC_ERR_HTTP, 0, NULL, 0 },
	{ "short body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 0, MDC_ERR_HTTP, 0, NULL,
	  0 },
	{ "closed in headers", "HTTP/1.1 200 OK\r\nContent-Le", 0, MDC_ERR_HTTP, 0, NULL, 0 },
	{ "closed in chunks", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", 0,
	  MDC_ERR_HTTP, 0, NULL, 0 },
	{ "too big, length", "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n0123456789a", 10,
	  MDC_ERR_API, 0, NULL, 0 },
	{ "too big, chunks", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n"
	  "6\r\n012345\r\n0\r\n\r\n", 10, MDC_ERR_API, 0, NULL, 0 },
	{ "too big, huge chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "fffffffffffffffffffffff\r\n", 10, MDC_ERR_API, 0, NULL, 0 },
	{ "too big, to the close", "HTTP/1.1 200 OK\r\n\r\n0123456789a", 10, MDC_ERR_API, 0, NULL, 0 },
};

/* ---- real exchanges ------------------------------------------------ */

/* A server thread on 127.0.0.1: for each connection, read the request
 * (headers and Content-Length body), keep it, send the answer in pieces
 * of 1 to 7 bytes, close; with KEEP_ALIVE, answer every request of the
 * connection until the client closes it.  ACCEPTS counts connections
 * that carried a request (one libcurl opens and drops unused is not one).
 * Every count is made before the answer goes out, so a client that has
 * its answer reads the count that includes it; counted after, a loaded
 * machine let the client read it first (test_token_shared saw 2 of 3). */
struct server {
	int fd;
	unsigned short port;
	const char *answer;	/* NULL: accept and say nothing until closed */
	char req[4096];
	size_t req_len;
	_Atomic unsigned served;	/* requests answered */
	_Atomic unsigned accepts;
	bool keep_alive;
	unsigned drop;		/* the request of this number (1...) is read, not answered */
	_Atomic unsigned reqs;	/* requests read */
	pthread_t th;
	volatile sig_atomic_t *interrupt;	/* set once the request is read */
};

/* false when the client has closed (nothing read); FIRST: the
 * connection's first request */
static bool server_one(struct server *s, int c, bool first)
{
	size_t have = 0, want = 0;
	const char *he;

	for (;;) {
		ssize_t n = recv(c, s->req + have, sizeof(s->req) - 1 - have, 0);

		if (n <= 0)
			break;
		have += (size_t) n;
		s->req[have] = '\0';
		if ((he = strstr(s->req, "\r\n\r\n"))) {
			const char *cl = strstr(s->req, "\r\nContent-Length:");	/* as we write it */

			want = (size_t) (he + 4 - s->req) + (cl && cl < he ? strtoul(cl + 17, NULL, 10) : 0);
			if (have >= want)
				break;
		}
	}
	s->req_len = have;
	if (!have)
		return false;
	if (first)
		s->accepts++;
	if (++s->reqs == s->drop)
		return false;
	if (s->interrupt)
		*s->interrupt = 1;
	if (!s->answer) {
		char b[64];

		while (recv(c, b, sizeof(b), 0) > 0)
			;
		return false;
	}
	s->served++;
	for (size_t off = 0, len = strlen(s->answer), step = 1; off < len; step = step % 7 + 1) {
		size_t n = len - off < step ? len - off : step;

		if (send(c, s->answer + off, n, MSG_NOSIGNAL) < 0)
			break;
		off += n;
		if (off % 13 == 0)
			usleep(200);
	}
	return true;
}

static void *server_main(void *arg)
{
	struct server *s = arg;
	int c;

	while ((c = accept(s->fd, NULL, NULL)) >= 0) {
		for (bool first = true; server_one(s, c, first) && s->keep_alive; first = false)
			;
		close(c);
	}
	return NULL;
}

static void server_start(struct server *s, const char *answer)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);

	memset(s, 0, sizeof(*s));
	s->answer = answer;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true((s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0);
	assert_int_equal(bind(s->fd, (struct sockaddr *) &a, sizeof(a)), 0);
	assert_int_equal(listen(s->fd, 8), 0);
	assert_int_equal(getsockname(s->fd, (struct sockaddr *) &a, &al), 0);
	s->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&s->th, NULL, server_main, s), 0);
}

static void server_stop(struct server *s)
{
	shutdown(s->fd, SHUT_RDWR);
	close(s->fd);
	pthread_join(s->th, NULL);
}

/* one request to S on a handle of its own */
static int exchange(struct server *s, const char *method, const char *body,
		    size_t max, long timeout_s, struct mdc_http_resp *r, struct mdc_ctx *ctx)
{
	static const char *const hdrs[] = { "Accept: application/json",
					    "Authorization: Bearer t0k", NULL };
	char url[128];
	struct mdc_http_req req = { .method = method, .url = url, .headers = hdrs, .body = body,
				    .connect_timeout_s = 2, .timeout_s = timeout_s,
				    .max_bytes = max };

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/v1/c?updateMask=a.b", s->port);
	mdc_ctx_clear(ctx);
	return mdc_http_do(&req, r, ctx);
}

static void test_exchange(void **state)
{
	(void) state;
	for (size_t i = 0; i < N(answers); i++) {
		const struct answer *a = &answers[i];
		struct mdc_http_resp r = { 0 };
		struct mdc_ctx ctx;
		struct server s;
		int rc;

		/* what libcurl reads its own way, not ours to judge: two
		 * Content-Length headers (it takes the last), a Transfer-Encoding
		 * other than chunked (the body handed over still encoded), a
		 * close inside the headers (a complete answer, empty body) */
		if (strstr(a->name, "two lengths") || strstr(a->name, "gzip") ||
		    strstr(a->name, "closed in headers") || strstr(a->name, "huge chunk"))
			continue;
		server_start(&s, a->text);
		rc = exchange(&s, "GET", NULL, a->max, 5, &r, &ctx);
		server_stop(&s);
		if (rc != a->rc)
			fail_msg("%s: rc %d (%s), want %d", a->name, rc, ctx.msg, a->rc);
		if (rc) {
			assert_null(r.body);
			continue;
		}
		assert_int_equal(r.status, a->status);
		assert_int_equal(r.len, strlen(a->body));
		assert_string_equal(r.body, a->body);
		if (r.retry_after_s != a->retry)
			fail_msg("%s: Retry-After %g, want %g", a->name, r.retry_after_s, a->retry);
		mdc_http_resp_free(&r);
	}
}

/* The requests of one handle share one connection (GET, PATCH, polls of
 * a command); a handle of its own per request opens one each; a kept
 * handle (mdc_http_keep, mdcd) carries its connection to the next open. */
static void test_reuse(void **state)
{
	static const char *const methods[] = { "GET", "PATCH", "GET", "GET" };
	struct mdc_http_resp r = { 0 };
	struct mdc_http *h, *h2;
	struct mdc_ctx ctx;
	struct server s;
	char url[96];

	(void) state;
	server_start(&s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
	s.keep_alive = true;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/v1/c", s.port);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_http_open(&h, &ctx), 0);
	for (size_t i = 0; i < N(methods); i++) {
		struct mdc_http_req req = { .method = methods[i], .url = url, .connect_timeout_s = 2,
					    .timeout_s = 5, .body = i == 1 ? "{\"a\":1}" : NULL };

		assert_int_equal(mdc_http_send(h, &req, &r, &ctx), 0);
		assert_int_equal(r.status, 200);
		assert_string_equal(r.body, "{}");
		mdc_http_resp_free(&r);
	}
	assert_int_equal(s.served, N(methods));
	assert_int_equal(s.accepts, 1);
	mdc_http_close(h);
	/* a handle per request: a connection per request */
	for (size_t i = 0; i < 2; i++) {
		struct mdc_http_req req = { .method = "GET", .url = url, .connect_timeout_s = 2,
					    .timeout_s = 5 };

		assert_int_equal(mdc_http_do(&req, &r, &ctx), 0);
		mdc_http_resp_free(&r);
	}
	assert_int_equal(s.accepts, 3);
	/* kept: the next open takes the same handle and its connection */
	mdc_http_keep(1);
	for (size_t i = 0; i < 3; i++) {
		struct mdc_http_req req = { .method = "GET", .url = url, .connect_timeout_s = 2,
					    .timeout_s = 5 };

		assert_int_equal(mdc_http_open(&h, &ctx), 0);
		assert_int_equal(mdc_http_send(h, &req, &r, &ctx), 0);
		mdc_http_resp_free(&r);
		if (i == 0) {	/* a second handle open at once is another, */
			assert_int_equal(mdc_http_open(&h2, &ctx), 0);
			assert_ptr_not_equal(h, h2);
		}
		mdc_http_close(h);
		if (i == 0)	/* freed: one is kept already */
			mdc_http_close(h2);
	}
	assert_int_equal(s.accepts, 4);
	mdc_http_keep(0);
	assert_int_equal(mdc_http_open(&h, &ctx), 0);	/* the last kept one */
	mdc_http_close(h);
	server_stop(&s);
}

/* What goes on the wire: the method and target as given, the Host with
 * its port, the caller's headers, the JSON body with its length. */
static void test_request_sent(void **state)
{
	const char *body = "{\"labels\":{\"a\":\"b\"}}";
	struct mdc_http_resp r = { 0 };
	struct mdc_ctx ctx;
	struct server s;
	char want[64];

	(void) state;
	server_start(&s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
	assert_int_equal(exchange(&s, "PATCH", body, 0, 5, &r, &ctx), 0);
	mdc_http_resp_free(&r);
	server_stop(&s);
	assert_true(!strncmp(s.req, "PATCH /v1/c?updateMask=a.b HTTP/1.1\r\n", 37));
	snprintf(want, sizeof(want), "\r\nHost: 127.0.0.1:%u\r\n", s.port);
	assert_non_null(strstr(s.req, want));
	assert_non_null(strstr(s.req, "\r\nAuthorization: Bearer t0k\r\n"));
	assert_non_null(strstr(s.req, "\r\nAccept: application/json\r\n"));
	assert_null(strstr(s.req, "Accept: */*"));
	assert_non_null(strstr(s.req, "\r\nContent-Type: application/json\r\n"));
	snprintf(want, sizeof(want), "\r\nContent-Length: %zu\r\n", strlen(body));
	assert_non_null(strstr(s.req, want));
	assert_string_equal(strstr(s.req, "\r\n\r\n") + 4, body);
	server_start(&s, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
	assert_int_equal(exchange(&s, "DELETE", NULL, 0, 5, &r, &ctx), 0);
	mdc_http_resp_free(&r);
	server_stop(&s);
	assert_true(!strncmp(s.req, "DELETE /v1/c", 12));
}

/* A write whose reused connection dies after it went out is not sent
 * again (libcurl would, on a fresh connection): one PATCH reaches the
 * server and the caller gets MDC_ERR_HTTP. */
static void test_write_not_resent(void **state)
{
	struct mdc_http_resp r = { 0 };
	struct mdc_http *h;
	struct mdc_ctx ctx;
	struct server s;
	char url[96];
	struct mdc_http_req get = { .method = "GET", .url = url, .connect_timeout_s = 2,
				    .timeout_s = 5 };
	struct mdc_http_req patch = get;
	unsigned n;

	(void) state;
	patch.method = "PATCH";
	patch.body = "{}";
	server_start(&s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
	s.keep_alive = true;
	s.drop = 2;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/v1/c", s.port);
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_http_open(&h, &ctx), 0);
	assert_int_equal(mdc_http_send(h, &get, &r, &ctx), 0);
	mdc_http_resp_free(&r);
	assert_int_equal(mdc_http_send(h, &patch, &r, &ctx), MDC_ERR_HTTP);
	assert_non_null(strstr(ctx.msg, "not sent again"));
	assert_null(r.body);
	usleep(100 * 1000);
	assert_int_equal(s.reqs, 2);	/* (libcurl may have connected again, sent nothing) */
	n = s.accepts;
	/* the next GET connects again */
	assert_int_equal(mdc_http_send(h, &get, &r, &ctx), 0);
	mdc_http_resp_free(&r);
	assert_int_equal(s.reqs, 3);
	assert_int_equal(s.accepts, n + 1);
	mdc_http_close(h);
	server_stop(&s);
}

/* The transport is chosen once, when the client is made: the API's for
 * an endpoint, the broker's for a Broker socket (mdc_api_call and
 * mdc_update_run only follow c->t). */
static void test_transport_once(void **state)
{
	struct mdc_settings api = { .endpoint = "http://127.0.0.1:9" };
	struct mdc_settings brk = { .endpoint = "http://127.0.0.1:9", .broker = "/nonexistent/mdcd.sock" };
	struct mdc_client *c = NULL, *b = NULL;
	struct mdc_ctx ctx;

	(void) state;
	mdc_ctx_clear(&ctx);
	assert_int_equal(mdc_client_new(&api, &c, &ctx), 0);
	assert_int_equal(mdc_client_new(&brk, &b, &ctx), 0);
	assert_ptr_equal(c->t, &mdc_transport_api);
	assert_ptr_equal(b->t, &mdc_transport_broker);
	assert_false(mdc_client_is_brokered(c));
	assert_true(mdc_client_is_brokered(b));
	assert_ptr_equal(mdc_transport_api.update, mdc_update_direct);
	assert_ptr_equal(mdc_transport_broker.update, mdc_broker_update);
	assert_ptr_equal(mdc_transport_broker.call, mdc_broker_call);
	/* a broker that is not there: the broker's own error (its munge
	 * credential or its socket), no HTTP tried */
	assert_int_not_equal(mdc_api_call(b, "GET", "v1/x", NULL, NULL, NULL, &ctx), 0);
	assert_non_null(strstr(ctx.msg, "mdcd"));
	mdc_client_free(c);
	mdc_client_free(b);
}

/* The metadata server's token: each client fetches its own, unless
 * mdc_auth_share (mdcd, a client per request) keeps it for the process
 * until its expiry; a 401 (mdc_auth_reject) drops the shared copy. */
static void test_token_shared(void **state)
{
	struct mdc_settings st = { .endpoint = "http://127.0.0.1:9" };
	struct mdc_client *c[4];
	struct mdc_ctx ctx;
	struct server s;
	const char *tok;
	char url[96];

	(void) state;
	server_start(&s, "HTTP/1.1 200 OK\r\nContent-Length: 43\r\n\r\n"
		     "{\"access_token\":\"ya29.t\",\"expires_in\":3599}");
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/token", s.port);
	setenv("MDC_METADATA_URL", url, 1);
	unsetenv("MDC_ACCESS_TOKEN");
	mdc_ctx_clear(&ctx);
	for (size_t i = 0; i < N(c); i++) {
		if (i == 2)
			mdc_auth_share(true);
		assert_int_equal(mdc_client_new(&st, &c[i], &ctx), 0);
		assert_int_equal(mdc_auth_token(c[i], &tok, &ctx), 0);
		assert_string_equal(tok, "ya29.t");
		assert_true(c[i]->token_expiry > time(NULL) + 3000);
	}
	assert_int_equal(s.served, 3);	/* two alone, one for the two that share */
	mdc_auth_reject(c[3]);
	mdc_client_free(c[3]);
	assert_int_equal(mdc_client_new(&st, &c[3], &ctx), 0);
	assert_int_equal(mdc_auth_token(c[3], &tok, &ctx), 0);
	assert_int_equal(s.served, 4);
	mdc_auth_share(false);
	for (size_t i = 0; i < N(c); i++)
		mdc_client_free(c[i]);
	unsetenv("MDC_METADATA_URL");
	server_stop(&s);
}

static void test_transport_errors(void **state)
{
	static volatile sig_atomic_t flag;
	struct mdc_http_resp r = { 0 };
	struct mdc_ctx ctx;
	struct server s;
	unsigned short port;
	double t0;

	(void) state;
	/* nothing listens: refused at once, MDC_ERR_HTTP (retried by the API) */
	server_start(&s, "");
	port = s.port;
	server_stop(&s);
	s.port = port;
	assert_int_equal(exchange(&s, "GET", NULL, 0, 5, &r, &ctx), MDC_ERR_HTTP);
	/* libcurl's own words: "127.0.0.1 port N" up to 8.14, "127.0.0.1:N" in 8.23 */
	if (!strstr(ctx.msg, "Failed to connect to 127.0.0.1"))
		fail_msg("'%s' lacks libcurl's 'Failed to connect to 127.0.0.1'", ctx.msg);
	if (!strstr(ctx.msg, "Connection refused"))
		fail_msg("'%s' lacks the system's word 'Connection refused'", ctx.msg);
	assert_null(r.body);
	/* the same without a context for the message */
	{
		char url[64];
		struct mdc_http_req req = { .method = "GET", .url = url, .connect_timeout_s = 1,
					    .timeout_s = 1 };

		snprintf(url, sizeof(url), "http://127.0.0.1:%u/", port);
		assert_int_equal(mdc_http_do(&req, &r, NULL), MDC_ERR_HTTP);
		assert_null(r.body);
	}
	/* a server that never answers: the total timeout, MDC_ERR_TIMEOUT */
	server_start(&s, NULL);
	t0 = mdc_mono();
	assert_int_equal(exchange(&s, "GET", NULL, 0, 1, &r, &ctx), MDC_ERR_TIMEOUT);
	assert_true(mdc_mono() - t0 >= 0.9 && mdc_mono() - t0 < 3);
	assert_non_null(strstr(ctx.msg, "timed out"));
	server_stop(&s);
	/* Ctrl-C while waiting for the answer stops it promptly */
	flag = 0;
	mdc_intr_watch(&flag);
	server_start(&s, NULL);
	s.interrupt = &flag;
	t0 = mdc_mono();
	assert_int_equal(exchange(&s, "GET", NULL, 0, 30, &r, &ctx), MDC_ERR_INTERRUPTED);
	assert_true(mdc_mono() - t0 < 2);
	server_stop(&s);
	mdc_intr_watch(NULL);
	/* the token never goes in clear to a host that is not loopback */
	{
		static const char *const hdrs[] = { "Authorization: Bearer t0k", NULL };
		struct mdc_http_req req = { .method = "GET", .url = "http://192.0.2.2:18080/v1/x",
					    .headers = hdrs, .connect_timeout_s = 1, .timeout_s = 1 };

		mdc_ctx_clear(&ctx);
		assert_int_equal(mdc_http_do(&req, &r, &ctx), MDC_ERR_REFUSED);
		assert_null(strstr(ctx.msg, "t0k"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_check),
		cmocka_unit_test(test_exchange),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_write_not_resent),
		cmocka_unit_test(test_token_shared),
		cmocka_unit_test(test_transport_once),
		cmocka_unit_test(test_request_sent),
		cmocka_unit_test(test_transport_errors),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
