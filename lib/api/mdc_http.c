/* mdc_http.c - HTTP requests, every one through libcurl, with NOSIGNAL,
 * an error buffer, connect and total timeouts, every setopt checked.  No
 * retries here: the API layer decides what is safe to repeat (C15).  The
 * URL is parsed once with libcurl's own parser (the one that decides
 * where the request goes), so the host we check is the host we contact.
 *
 * One easy handle per client (struct mdc_http), reset between requests:
 * curl_easy_reset keeps its connection cache and TLS sessions, so a
 * command's GET, PATCH and operation polls share one connection.  mdcd
 * keeps closed handles for the next request (mdc_http_keep), so its API
 * connection stays warm between requests.
 *
 * libcurl is loaded on first use (dlopen), not linked: its thirty
 * libraries cost a tool about 3 ms at every start, and a tool that talks
 * to mdcd's socket (the broker) never needs them.
 * (owner: client) */
#define _GNU_SOURCE	/* secure_getenv */
#include "config.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>
#include "mdc_buf.h"
#include "mdc_dl.h"
#include "mdc_http.h"
#include "mdc_proc.h"

/* libcurl's entry points, resolved once (mdc_curl_load) */
static struct mdc_curl_api {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_reset) *easy_reset;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
	__typeof__(curl_url) *url;
	__typeof__(curl_url_set) *url_set;
	__typeof__(curl_url_get) *url_get;
	__typeof__(curl_url_cleanup) *url_cleanup;
	__typeof__(curl_url_strerror) *url_strerror;
	__typeof__(curl_free) *free;
} mdc_curl;

#define MDC_CURL_SYM(f, m) MDC_DL_SYM(struct mdc_curl_api, m, f)
static const struct mdc_dl_sym mdc_curl_syms[] = {
	MDC_CURL_SYM(curl_global_init, global_init), MDC_CURL_SYM(curl_easy_init, easy_init),
	MDC_CURL_SYM(curl_easy_setopt, easy_setopt), MDC_CURL_SYM(curl_easy_perform, easy_perform),
	MDC_CURL_SYM(curl_easy_getinfo, easy_getinfo), MDC_CURL_SYM(curl_easy_cleanup, easy_cleanup),
	MDC_CURL_SYM(curl_easy_reset, easy_reset), MDC_CURL_SYM(curl_easy_strerror, easy_strerror),
	MDC_CURL_SYM(curl_slist_append, slist_append),
	MDC_CURL_SYM(curl_slist_free_all, slist_free_all), MDC_CURL_SYM(curl_url, url),
	MDC_CURL_SYM(curl_url_set, url_set), MDC_CURL_SYM(curl_url_get, url_get),
	MDC_CURL_SYM(curl_url_cleanup, url_cleanup), MDC_CURL_SYM(curl_url_strerror, url_strerror),
	MDC_CURL_SYM(curl_free, free),
};

/* loading and curl_global_init (not thread-safe) once per process,
 * whichever thread (mdcd's) gets here first */
static pthread_once_t mdc_curl_once = PTHREAD_ONCE_INIT;
static char mdc_curl_err[256];
static bool mdc_curl_ok;

static void mdc_curl_load(void)
{
	/* MDC_LIBCURL_SONAME (not for set-id programs): another build, or
	 * none, to prove which runs load it */
	const char *so = secure_getenv("MDC_LIBCURL_SONAME");

	if (!mdc_dl_load(so && *so ? so : MDC_LIBCURL_SONAME, mdc_curl_syms,
			 sizeof(mdc_curl_syms) / sizeof(mdc_curl_syms[0]), &mdc_curl,
			 mdc_curl_err, sizeof(mdc_curl_err)))
		return;
	if (mdc_curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(mdc_curl_err, sizeof(mdc_curl_err), "curl_global_init failed");
		return;
	}
	mdc_curl_ok = true;
}

int mdc_http_init(struct mdc_ctx *ctx)
{
	pthread_once(&mdc_curl_once, mdc_curl_load);
	if (!mdc_curl_ok)
		return mdc_fail(ctx, MDC_ERR_INTERNAL, "libcurl, which every request to the API "
				"needs, could not be loaded (%s): apt-get install libcurl4",
				mdc_curl_err);
	return 0;
}

/* a cluster with every field set is a few hundred KiB; an endless body
 * must not fill memory */
#define MDC_HTTP_MAX_BODY_DEFAULT (64UL << 20)

struct mdc_http_sink {
	struct mdc_buf b;
	size_t max;
	bool too_big;
};

static size_t mdc_http_body_cb(char *p, size_t size, size_t n, void *arg)
{
	struct mdc_http_sink *k = arg;

	if (k->b.len + size * n > k->max) {
		k->too_big = true;
		return 0;	/* makes curl fail with CURLE_WRITE_ERROR */
	}
	if (mdc_buf_add(&k->b, p, size * n))
		return 0;
	return size * n;
}

/* A request body read through a callback without a seek callback: when a
 * reused connection dies after the request went out, libcurl can not
 * rewind it and fails (CURLE_SEND_FAIL_REWIND) instead of sending the
 * write again on a fresh connection (C15: a write is never repeated). */
struct mdc_http_src {
	const char *p;
	size_t left;
};

static size_t mdc_http_read_cb(char *buf, size_t size, size_t n, void *arg)
{
	struct mdc_http_src *src = arg;
	size_t k = size * n < src->left ? size * n : src->left;

	memcpy(buf, src->p, k);
	src->p += k;
	src->left -= k;
	return k;
}

/* Ctrl-C during a slow request: curl calls this at least once a second */
static int mdc_http_progress_cb(void *arg, curl_off_t dltotal, curl_off_t dlnow,
				curl_off_t ultotal, curl_off_t ulnow)
{
	(void) arg, (void) dltotal, (void) dlnow, (void) ultotal, (void) ulnow;
	return mdc_intr_pending(NULL) ? 1 : 0;
}

/* The host is loopback: "localhost", ::1 or 127.0.0.0/8 (libcurl has
 * already turned 127.1, 0x7f.1 and 2130706433 into dotted form). */
static bool mdc_host_is_loopback(const char *host)
{
	struct in_addr a4;

	if (!strcasecmp(host, "localhost") || !strcmp(host, "[::1]"))
		return true;
	return inet_pton(AF_INET, host, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
}

/* Parse URL into *U (caller cleans up) and say what it is.  Credentials
 * in the URL are refused: "http://localhost:x@192.0.2.2/" is a request to
 * 192.0.2.2, whatever a hand-written check of its prefix believes. */
static int mdc_url_parse(const char *url, CURLU **out, bool *is_http, bool *loopback,
			 struct mdc_ctx *ctx)
{
	char *scheme = NULL, *host = NULL, *user = NULL, *pass = NULL;
	CURLUcode uc;
	CURLU *u;
	int rc = 0;

	*out = NULL;
	if ((rc = mdc_http_init(ctx)))
		return rc;
	if (!(u = mdc_curl.url()))
		return mdc_nomem(ctx);
	if ((uc = mdc_curl.url_set(u, CURLUPART_URL, url, 0)) != CURLUE_OK ||
	    mdc_curl.url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    mdc_curl.url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		rc = mdc_fail(ctx, MDC_ERR_INVAL, "URL '%s' is malformed (%s)", url,
			      uc != CURLUE_OK ? mdc_curl.url_strerror(uc) : "no host");
		goto out;
	}
	if (mdc_curl.url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
	    mdc_curl.url_get(u, CURLUPART_PASSWORD, &pass, 0) == CURLUE_OK) {
		/* not echoed: the part before '@' may be a password */
		rc = mdc_fail(ctx, MDC_ERR_REFUSED,
			      "URL for host '%s' has a user name or password before '@': refused "
			      "(the request would go to '%s'); give the host alone", host, host);
		goto out;
	}
	if (strcasecmp(scheme, "http") && strcasecmp(scheme, "https")) {
		rc = mdc_fail(ctx, MDC_ERR_INVAL, "URL '%s': use an https:// URL", url);
		goto out;
	}
	*is_http = !strcasecmp(scheme, "http");
	*loopback = mdc_host_is_loopback(host);
	*out = u;
	u = NULL;
out:
	mdc_curl.free(scheme);
	mdc_curl.free(host);
	mdc_curl.free(user);
	mdc_curl.free(pass);
	mdc_curl.url_cleanup(u);
	return rc;
}

int mdc_url_check(const char *url, bool *is_http, bool *loopback, struct mdc_ctx *ctx)
{
	CURLU *u = NULL;
	bool h = false, l = false;
	int rc = mdc_url_parse(url, &u, &h, &l, ctx);

	if (u)
		mdc_curl.url_cleanup(u);
	if (is_http)
		*is_http = h;
	if (loopback)
		*loopback = l;
	return rc;
}

bool mdc_url_is_loopback(const char *url)
{
	bool loopback = false;

	return !mdc_url_check(url, NULL, &loopback, NULL) && loopback;
}

static bool mdc_http_has_auth(const char *const *headers)
{
	for (const char *const *hp = headers; hp && *hp; hp++)
		if (!strncasecmp(*hp, "Authorization:", 14))
			return true;
	return false;
}

/* Retry-After: delta-seconds only (the HTTP-date form is rare from Google
 * front ends and an unparsable value simply means "use our backoff"). */
static size_t mdc_http_header_cb(char *p, size_t size, size_t n, void *arg)
{
	static const char name[] = "retry-after:";
	double *retry_after = arg;
	size_t len = size * n;
	char val[32];

	if (len > sizeof(name) - 1 && !strncasecmp(p, name, sizeof(name) - 1)) {
		size_t vl = len - (sizeof(name) - 1);
		char *end;
		double d;

		if (vl >= sizeof(val))
			vl = sizeof(val) - 1;
		memcpy(val, p + sizeof(name) - 1, vl);
		val[vl] = '\0';
		d = strtod(val, &end);
		while (*end && isspace((unsigned char) *end))
			end++;
		if (end != val && !*end && d >= 0)
			*retry_after = d;
	}
	return len;
}

#define MDC_SETOPT(h, opt, val)							\
	do {									\
		if ((cc = mdc_curl.easy_setopt((h), (opt), (val))) != CURLE_OK) {	\
			rc = mdc_fail(ctx, MDC_ERR_INTERNAL, "curl option %s: %s", \
				      #opt, mdc_curl.easy_strerror(cc));		\
			goto out;						\
		}								\
	} while (0)

struct mdc_http {
	CURL *h;
	struct mdc_http *next;		/* in the pool of kept handles */
};

/* closed handles kept open for the next mdc_http_open (mdcd's threads):
 * their connections and TLS sessions stay warm */
static pthread_mutex_t mdc_http_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mdc_http *mdc_http_pool;
static unsigned mdc_http_pool_n, mdc_http_pool_max;

void mdc_http_keep(unsigned n)
{
	pthread_mutex_lock(&mdc_http_pool_lock);
	mdc_http_pool_max = n;
	pthread_mutex_unlock(&mdc_http_pool_lock);
}

int mdc_http_open(struct mdc_http **out, struct mdc_ctx *ctx)
{
	struct mdc_http *h;
	int rc;

	*out = NULL;
	if ((rc = mdc_http_init(ctx)))
		return rc;
	pthread_mutex_lock(&mdc_http_pool_lock);
	if ((h = mdc_http_pool)) {
		mdc_http_pool = h->next;
		mdc_http_pool_n--;
	}
	pthread_mutex_unlock(&mdc_http_pool_lock);
	if (!h) {
		if (!(h = calloc(1, sizeof(*h))))
			return mdc_nomem(ctx);
		if (!(h->h = mdc_curl.easy_init())) {
			free(h);
			return mdc_fail(ctx, MDC_ERR_NOMEM, "cannot create a curl handle");
		}
	}
	h->next = NULL;
	*out = h;
	return 0;
}

void mdc_http_close(struct mdc_http *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&mdc_http_pool_lock);
	if (mdc_http_pool_n < mdc_http_pool_max) {
		h->next = mdc_http_pool;
		mdc_http_pool = h;
		mdc_http_pool_n++;
		h = NULL;
	}
	pthread_mutex_unlock(&mdc_http_pool_lock);
	if (h) {
		mdc_curl.easy_cleanup(h->h);
		free(h);
	}
}

/* one request on H's easy handle, set afresh (reset keeps its connections) */
int mdc_http_send(struct mdc_http *hc, const struct mdc_http_req *req,
		  struct mdc_http_resp *resp, struct mdc_ctx *ctx)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = NULL, *tmp;
	struct mdc_http_sink sink = { MDC_BUF_INIT, 0, false };
	struct mdc_http_src src = { req->body, req->body ? strlen(req->body) : 0 };
	bool is_http = false, loopback = false;
	CURLU *u = NULL;
	CURL *h = hc->h;
	CURLcode cc;
	int rc = 0;

	memset(resp, 0, sizeof(*resp));
	resp->retry_after_s = -1;
	sink.max = req->max_bytes ? req->max_bytes : MDC_HTTP_MAX_BODY_DEFAULT;
	if ((rc = mdc_url_parse(req->url, &u, &is_http, &loopback, ctx)))
		return rc;
	/* the last line of defence: a bearer token never travels in clear
	 * to anything but this machine */
	if (is_http && !loopback && mdc_http_has_auth(req->headers)) {
		rc = mdc_fail(ctx, MDC_ERR_REFUSED, "%s %s: a token over plain http to a host "
			      "that is not loopback is refused; use https://", req->method, req->url);
		goto out;
	}
	if (mdc_intr_pending(NULL)) {
		rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "interrupted before %s %s",
			      req->method, req->url);
		goto out;
	}
	for (const char *const *hp = req->headers; hp && *hp; hp++) {
		if (!(tmp = mdc_curl.slist_append(hdrs, *hp))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		hdrs = tmp;
	}
	if (req->body) {
		if (!(tmp = mdc_curl.slist_append(hdrs, "Content-Type: application/json"))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		hdrs = tmp;
	}
	/* no "Expect: 100-continue" round trip on POST/PATCH bodies */
	if (!(tmp = mdc_curl.slist_append(hdrs, "Expect:"))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	hdrs = tmp;

	MDC_SETOPT(h, CURLOPT_NOSIGNAL, 1L);
	MDC_SETOPT(h, CURLOPT_ERRORBUFFER, errbuf);
	MDC_SETOPT(h, CURLOPT_CURLU, u);
	if (req->unix_socket)
		MDC_SETOPT(h, CURLOPT_UNIX_SOCKET_PATH, req->unix_socket);
	/* plain http goes only to loopback or the metadata server, and never
	 * through a proxy (which would see the token, or hand us a forged
	 * one); https through a proxy is a CONNECT tunnel and stays private */
	if (is_http || loopback)
		MDC_SETOPT(h, CURLOPT_NOPROXY, "*");
	MDC_SETOPT(h, CURLOPT_NOPROGRESS, 0L);
	MDC_SETOPT(h, CURLOPT_XFERINFOFUNCTION, mdc_http_progress_cb);
	MDC_SETOPT(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t) sink.max);
	MDC_SETOPT(h, CURLOPT_CUSTOMREQUEST, req->method);
	MDC_SETOPT(h, CURLOPT_CONNECTTIMEOUT, req->connect_timeout_s > 0 ? req->connect_timeout_s : 10L);
	MDC_SETOPT(h, CURLOPT_TIMEOUT, req->timeout_s > 0 ? req->timeout_s : 60L);
	MDC_SETOPT(h, CURLOPT_HTTPHEADER, hdrs);
	/* replaces the bundle; the system's directory of CAs stays */
	if (req->ca_file)
		MDC_SETOPT(h, CURLOPT_CAINFO, req->ca_file);
	MDC_SETOPT(h, CURLOPT_PROTOCOLS_STR, "http,https");
	/* HTTP/2 where TLS offers it (one connection carries the command);
	 * a libcurl without it stays on HTTP/1.1 keep-alive */
	(void) mdc_curl.easy_setopt(h, CURLOPT_HTTP_VERSION, (long) CURL_HTTP_VERSION_2TLS);
	MDC_SETOPT(h, CURLOPT_FOLLOWLOCATION, 0L);
	MDC_SETOPT(h, CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
	MDC_SETOPT(h, CURLOPT_WRITEFUNCTION, mdc_http_body_cb);
	MDC_SETOPT(h, CURLOPT_WRITEDATA, &sink);
	MDC_SETOPT(h, CURLOPT_HEADERFUNCTION, mdc_http_header_cb);
	MDC_SETOPT(h, CURLOPT_HEADERDATA, &resp->retry_after_s);
	if (req->body) {
		MDC_SETOPT(h, CURLOPT_POST, 1L);
		MDC_SETOPT(h, CURLOPT_READFUNCTION, mdc_http_read_cb);
		MDC_SETOPT(h, CURLOPT_READDATA, &src);
		MDC_SETOPT(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) src.left);
	} else if (!strcmp(req->method, "GET")) {
		MDC_SETOPT(h, CURLOPT_HTTPGET, 1L);
	} else {
		/* a write without a body has nothing to rewind: libcurl would
		 * send it again after a reused connection died, so it gets a
		 * connection of its own */
		MDC_SETOPT(h, CURLOPT_FRESH_CONNECT, 1L);
	}
	cc = mdc_curl.easy_perform(h);
	if (cc == CURLE_ABORTED_BY_CALLBACK) {
		rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "%s %s: interrupted", req->method, req->url);
		goto out;
	}
	if (sink.too_big || cc == CURLE_FILESIZE_EXCEEDED) {
		/* a server fault, not a transient one: MDC_ERR_API is not retried */
		rc = mdc_fail(ctx, MDC_ERR_API, "%s %s: the answer is larger than %zu bytes: "
			      "refused", req->method, req->url, sink.max);
		goto out;
	}
	if (cc == CURLE_SEND_FAIL_REWIND) {
		rc = mdc_fail(ctx, MDC_ERR_HTTP, "%s %s: the connection closed before the answer "
			      "came (the request is not sent again)", req->method, req->url);
		goto out;
	}
	if (cc != CURLE_OK) {
		long oserr = 0;
		const char *why = errbuf[0] ? errbuf : mdc_curl.easy_strerror(cc);

		/* "Couldn't connect to server" alone does not say refused or
		 * unreachable; the system's word does */
		if (mdc_curl.easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr) != CURLE_OK ||
		    strstr(why, strerror((int) oserr)))
			oserr = 0;
		/* the URL may carry a query, never a token: safe to name */
		rc = mdc_fail(ctx, cc == CURLE_OPERATION_TIMEDOUT ? MDC_ERR_TIMEOUT : MDC_ERR_HTTP,
			      "%s %s: %s%s%s%s", req->method, req->url, why, oserr ? " (" : "",
			      oserr ? strerror((int) oserr) : "", oserr ? ")" : "");
		goto out;
	}
	if ((cc = mdc_curl.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status)) != CURLE_OK) {
		rc = mdc_fail(ctx, MDC_ERR_HTTP, "%s %s: %s", req->method, req->url,
			      mdc_curl.easy_strerror(cc));
		goto out;
	}
	resp->len = sink.b.len;
	if (!(resp->body = sink.b.s ? mdc_buf_release(&sink.b) : strdup(""))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
out:
	mdc_buf_free(&sink.b);
	/* nothing of this request's stays pointed at by the handle */
	mdc_curl.easy_reset(h);
	mdc_curl.slist_free_all(hdrs);
	mdc_curl.url_cleanup(u);
	return rc;
}

int mdc_http_do(const struct mdc_http_req *req, struct mdc_http_resp *resp,
		struct mdc_ctx *ctx)
{
	struct mdc_http *h;
	int rc;

	memset(resp, 0, sizeof(*resp));
	resp->retry_after_s = -1;
	if ((rc = mdc_http_open(&h, ctx)))
		return rc;
	rc = mdc_http_send(h, req, resp, ctx);
	mdc_http_close(h);
	return rc;
}


void mdc_http_resp_free(struct mdc_http_resp *resp)
{
	if (!resp)
		return;
	free(resp->body);
	resp->body = NULL;
}
