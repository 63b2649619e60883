/* mdc_http.c - one HTTP request through libcurl: NOSIGNAL, an error
 * buffer, connect and total timeouts, every setopt checked.  No retries
 * here: the API layer decides what is safe to repeat (C15).  (owner: client) */
#include "config.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>
#include "mdc_buf.h"
#include "mdc_client.h"

static size_t mdc_http_body_cb(char *p, size_t size, size_t n, void *arg)
{
	struct mdc_buf *b = arg;

	if (mdc_buf_add(b, p, size * n))
		return 0;	/* makes curl fail with CURLE_WRITE_ERROR */
	return size * n;
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

int mdc_http_do(const struct mdc_http_req *req, struct mdc_http_resp *resp,
		struct mdc_ctx *ctx)
{
	static bool global_done;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdrs = NULL, *tmp;
	struct mdc_buf body = MDC_BUF_INIT;
	CURL *h = NULL;
	CURLcode cc;
	int rc = 0;

	memset(resp, 0, sizeof(*resp));
	resp->retry_after_s = -1;
	if (!global_done) {
		/* single-threaded front ends: done once before the first handle */
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return mdc_fail(ctx, MDC_ERR_INTERNAL, "cannot initialise libcurl");
		global_done = true;
	}
	if (!(h = curl_easy_init()))
		return mdc_fail(ctx, MDC_ERR_NOMEM, "cannot create a curl handle");
	for (const char *const *hp = req->headers; hp && *hp; hp++) {
		if (!(tmp = curl_slist_append(hdrs, *hp))) {
			rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
			goto out;
		}
		hdrs = tmp;
	}
	if (req->body) {
		if (!(tmp = curl_slist_append(hdrs, "Content-Type: application/json"))) {
			rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
			goto out;
		}
		hdrs = tmp;
	}
	/* no "Expect: 100-continue" round trip on POST/PATCH bodies */
	if (!(tmp = curl_slist_append(hdrs, "Expect:"))) {
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
		goto out;
	}
	hdrs = tmp;

	MDC_SETOPT(h, CURLOPT_NOSIGNAL, 1L);
	MDC_SETOPT(h, CURLOPT_ERRORBUFFER, errbuf);
	MDC_SETOPT(h, CURLOPT_URL, req->url);
	MDC_SETOPT(h, CURLOPT_CUSTOMREQUEST, req->method);
	MDC_SETOPT(h, CURLOPT_CONNECTTIMEOUT, req->connect_timeout_s > 0 ? req->connect_timeout_s : 10L);
	MDC_SETOPT(h, CURLOPT_TIMEOUT, req->timeout_s > 0 ? req->timeout_s : 60L);
	MDC_SETOPT(h, CURLOPT_HTTPHEADER, hdrs);
	MDC_SETOPT(h, CURLOPT_PROTOCOLS_STR, "http,https");
	MDC_SETOPT(h, CURLOPT_FOLLOWLOCATION, 0L);
	MDC_SETOPT(h, CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
	MDC_SETOPT(h, CURLOPT_WRITEFUNCTION, mdc_http_body_cb);
	MDC_SETOPT(h, CURLOPT_WRITEDATA, &body);
	MDC_SETOPT(h, CURLOPT_HEADERFUNCTION, mdc_http_header_cb);
	MDC_SETOPT(h, CURLOPT_HEADERDATA, &resp->retry_after_s);
	if (req->body) {
		MDC_SETOPT(h, CURLOPT_POSTFIELDS, req->body);
		MDC_SETOPT(h, CURLOPT_POSTFIELDSIZE, (long) strlen(req->body));
	} else if (!strcmp(req->method, "GET")) {
		MDC_SETOPT(h, CURLOPT_HTTPGET, 1L);
	}
	cc = curl_easy_perform(h);
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
	resp->len = body.len;
	if (!(resp->body = mdc_buf_release(&body))) {
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
		goto out;
	}
out:
	mdc_buf_free(&body);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	return rc;
}

void mdc_http_resp_free(struct mdc_http_resp *resp)
{
	if (!resp)
		return;
	free(resp->body);
	resp->body = NULL;
}
