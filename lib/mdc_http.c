/* mdc_http.c - one HTTP request through libcurl: NOSIGNAL, an error
 * buffer, connect and total timeouts, every setopt checked.  No retries
 * here: the API layer decides what is safe to repeat (C15).  The URL is
 * parsed once with libcurl's own parser (the one that decides where the
 * request goes), so the host we check is the host we contact.
 * (owner: client) */
#include "config.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>
#include "mdc_buf.h"
#include "mdc_http.h"
#include "mdc_proc.h"

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
	CURLU *u = curl_url();
	CURLUcode uc;
	int rc = 0;

	*out = NULL;
	if (!u)
		return mdc_nomem(ctx);
	if ((uc = curl_url_set(u, CURLUPART_URL, url, 0)) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		rc = mdc_fail(ctx, MDC_ERR_INVAL, "URL '%s' is malformed (%s)", url,
			      uc != CURLUE_OK ? curl_url_strerror(uc) : "no host");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PASSWORD, &pass, 0) == CURLUE_OK) {
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
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_free(pass);
	curl_url_cleanup(u);
	return rc;
}

int mdc_url_check(const char *url, bool *is_http, bool *loopback, struct mdc_ctx *ctx)
{
	CURLU *u = NULL;
	bool h = false, l = false;
	int rc = mdc_url_parse(url, &u, &h, &l, ctx);

	curl_url_cleanup(u);
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
		if ((cc = curl_easy_setopt((h), (opt), (val))) != CURLE_OK) {	\
			rc = mdc_fail(ctx, MDC_ERR_INTERNAL, "curl option %s: %s", \
				      #opt, curl_easy_strerror(cc));		\
			goto out;						\
		}								\
	} while (0)

/* curl_global_init is not thread-safe: pthread_once makes it run once. */
static pthread_once_t mdc_http_once = PTHREAD_ONCE_INIT;
static CURLcode mdc_http_global_rc = CURLE_FAILED_INIT;

static void mdc_http_global_init(void)
{
	mdc_http_global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int mdc_http_do(const struct mdc_http_req *req, struct mdc_http_resp *resp,
		struct mdc_ctx *ctx)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = NULL, *tmp;
	struct mdc_http_sink sink = { MDC_BUF_INIT, 0, false };
	bool is_http = false, loopback = false;
	CURLU *u = NULL;
	CURL *h = NULL;
	CURLcode cc;
	int rc = 0;

	memset(resp, 0, sizeof(*resp));
	resp->retry_after_s = -1;
	sink.max = req->max_bytes ? req->max_bytes : MDC_HTTP_MAX_BODY_DEFAULT;
	/* once per process, before the first handle, whichever thread
	 * (mdcd's) gets here first */
	pthread_once(&mdc_http_once, mdc_http_global_init);
	if (mdc_http_global_rc != CURLE_OK)
		return mdc_fail(ctx, MDC_ERR_INTERNAL, "cannot initialise libcurl");
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
	if (!(h = curl_easy_init())) {
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "cannot create a curl handle");
		goto out;
	}
	for (const char *const *hp = req->headers; hp && *hp; hp++) {
		if (!(tmp = curl_slist_append(hdrs, *hp))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		hdrs = tmp;
	}
	if (req->body) {
		if (!(tmp = curl_slist_append(hdrs, "Content-Type: application/json"))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		hdrs = tmp;
	}
	/* no "Expect: 100-continue" round trip on POST/PATCH bodies */
	if (!(tmp = curl_slist_append(hdrs, "Expect:"))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	hdrs = tmp;

	MDC_SETOPT(h, CURLOPT_NOSIGNAL, 1L);
	MDC_SETOPT(h, CURLOPT_ERRORBUFFER, errbuf);
	MDC_SETOPT(h, CURLOPT_CURLU, u);
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
	MDC_SETOPT(h, CURLOPT_PROTOCOLS_STR, "http,https");
	MDC_SETOPT(h, CURLOPT_FOLLOWLOCATION, 0L);
	MDC_SETOPT(h, CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
	MDC_SETOPT(h, CURLOPT_WRITEFUNCTION, mdc_http_body_cb);
	MDC_SETOPT(h, CURLOPT_WRITEDATA, &sink);
	MDC_SETOPT(h, CURLOPT_HEADERFUNCTION, mdc_http_header_cb);
	MDC_SETOPT(h, CURLOPT_HEADERDATA, &resp->retry_after_s);
	if (req->body) {
		MDC_SETOPT(h, CURLOPT_POSTFIELDS, req->body);
		MDC_SETOPT(h, CURLOPT_POSTFIELDSIZE, (long) strlen(req->body));
	} else if (!strcmp(req->method, "GET")) {
		MDC_SETOPT(h, CURLOPT_HTTPGET, 1L);
	}
	cc = curl_easy_perform(h);
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
	if (cc != CURLE_OK) {
		/* the URL may carry a query, never a token: safe to name */
		rc = mdc_fail(ctx, cc == CURLE_OPERATION_TIMEDOUT ? MDC_ERR_TIMEOUT : MDC_ERR_HTTP,
			      "%s %s: %s", req->method, req->url,
			      errbuf[0] ? errbuf : curl_easy_strerror(cc));
		goto out;
	}
	if ((cc = curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status)) != CURLE_OK) {
		rc = mdc_fail(ctx, MDC_ERR_HTTP, "%s %s: %s", req->method, req->url,
			      curl_easy_strerror(cc));
		goto out;
	}
	resp->len = sink.b.len;
	if (!(resp->body = sink.b.s ? mdc_buf_release(&sink.b) : strdup(""))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
out:
	mdc_buf_free(&sink.b);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	curl_url_cleanup(u);
	return rc;
}

void mdc_http_resp_free(struct mdc_http_resp *resp)
{
	if (!resp)
		return;
	free(resp->body);
	resp->body = NULL;
}
