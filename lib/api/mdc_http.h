/* mdc_http.h - the transport (mdc_http.c: libcurl, loaded on first use):
 * URL checks and HTTP requests on a reused handle, never retried
 * (mdc_api.c retries).
 * (owner: client)
 */
#ifndef MDC_HTTP_H
#define MDC_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include "mdc_err.h"

/* Parse URL as the request would go, with libcurl's parser (the one that
 * picks the host to contact; loads libcurl): MDC_ERR_INVAL when malformed or neither http nor https,
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
	const char *unix_socket;	/* connect to this UNIX socket (the URL names the host) */
};
struct mdc_http_resp {
	long status;
	char *body;
	size_t len;
	double retry_after_s;
};
/* One handle: the requests sent on it share its connections (keep-alive,
 * HTTP/2 where TLS offers it) and TLS sessions.  Used by one thread at a
 * time.  mdc_http_open loads libcurl (mdc_http_init's error if it cannot). */
struct mdc_http;
int mdc_http_open(struct mdc_http **h, struct mdc_ctx *ctx);
void mdc_http_close(struct mdc_http *h);
int mdc_http_send(struct mdc_http *h, const struct mdc_http_req *req,
		  struct mdc_http_resp *resp, struct mdc_ctx *ctx);
/* mdc_http_send on a handle of its own, closed after */
int mdc_http_do(const struct mdc_http_req *req, struct mdc_http_resp *resp,
		struct mdc_ctx *ctx);
/* Keep up to N closed handles, open, for the next mdc_http_open (mdcd,
 * whose requests each make a client: its API connection stays warm).
 * Default 0: mdc_http_close frees the handle. */
void mdc_http_keep(unsigned n);
void mdc_http_resp_free(struct mdc_http_resp *resp);

/* Load libcurl and run its global init, once per process (mdc_http_do does
 * it on first need; a threaded program such as mdcd calls it before its
 * threads).  0, or MDC_ERR_INTERNAL naming what is missing. */
int mdc_http_init(struct mdc_ctx *ctx);

#endif
