/* mdc_http.h - the transport (mdc_http.c: our own socket for plain http://
 * to a literal address, libcurl loaded on first use for the rest): URL
 * checks and one HTTP request, never retried (mdc_api.c retries).
 * (owner: client)
 */
#ifndef MDC_HTTP_H
#define MDC_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include "mdc_err.h"

/* Parse URL as the request would go: the strict form of mdc_http_wire.h
 * by ours, any other with libcurl's parser (the one that picks the host to
 * contact): MDC_ERR_INVAL when malformed or neither http nor https,
 * MDC_ERR_REFUSED when it carries a user name or password before '@'
 * ("http://localhost:x@192.0.2.2/" goes to 192.0.2.2).  *IS_HTTP and
 * *LOOPBACK (each may be NULL) say whether it is plain http and whether
 * its host is 127.0.0.0/8, ::1 or "localhost". */
int mdc_url_check(const char *url, bool *is_http, bool *loopback, struct mdc_ctx *ctx);
/* True when mdc_url_check accepts URL and its host is loopback. */
bool mdc_url_is_loopback(const char *url);

/* Transport (mdc_http.c).  One request; never retries.  HEADERS: NULL-
 * terminated "Name: value" strings (may be NULL).  On any HTTP answer
 * returns 0 with *STATUS set and *BODY the malloc'ed body (caller frees,
 * never NULL on success); *RETRY_AFTER_S the Retry-After header in
 * seconds (-1 when absent).  Transport failures are MDC_ERR_HTTP (a
 * timeout is MDC_ERR_TIMEOUT) with curl's message; a body over MAX_BYTES
 * (0: 64 MiB) is MDC_ERR_API (not worth a retry); Ctrl-C (mdc_intr_watch) stops the transfer
 * with MDC_ERR_INTERRUPTED.  The URL is checked as mdc_url_check; plain
 * http never goes through a proxy, and an Authorization header over plain
 * http to a host that is not loopback is MDC_ERR_REFUSED before any
 * connection.  Timeouts in seconds. */
struct mdc_http_req {
	const char *method;
	const char *url;
	const char *const *headers;
	const char *body;		/* NULL = none */
	long connect_timeout_s;
	long timeout_s;
	size_t max_bytes;		/* 0 = 64 MiB */
	const char *ca_file;		/* https: trust these CAs as well (NULL: the system's) */
};
struct mdc_http_resp {
	long status;
	char *body;
	size_t len;
	double retry_after_s;
};
int mdc_http_do(const struct mdc_http_req *req, struct mdc_http_resp *resp,
		struct mdc_ctx *ctx);
void mdc_http_resp_free(struct mdc_http_resp *resp);

/* Load libcurl and run its global init, once per process (mdc_http_do does
 * it on first need; a threaded program such as mdcd calls it before its
 * threads).  0, or MDC_ERR_INTERNAL naming what is missing. */
int mdc_http_init(struct mdc_ctx *ctx);

#endif
