/* mdc_http_wire.h - plain http:// to a literal address, without libcurl
 * (mdc_http_wire.c).  The local emulator and mdcd's endpoint are such
 * URLs, and a tool that loads libcurl's thirty libraries spends more time
 * starting than the request takes.  Only the strict form below goes this
 * way; any other URL (a name to resolve, credentials, a fragment, https)
 * is libcurl's to parse and send (mdc_http.c).
 * (owner: client)
 */
#ifndef MDC_HTTP_WIRE_H
#define MDC_HTTP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include "mdc_err.h"
#include "mdc_http.h"

/* "http://" HOST [":" PORT] [TARGET], HOST being dotted-decimal IPv4
 * (four octets, no leading zeros), a bracketed IPv6 literal without a
 * zone, or "localhost"; PORT 1-65535; TARGET starting with '/' or '?',
 * printable ASCII without '#' or a "/." (a dot segment libcurl would
 * remove).  Every such URL means to libcurl what it
 * means here, so the host checked is the host contacted. */
struct mdc_wire_url {
	char host[48];		/* as written, without brackets */
	char port[6];
	bool ipv6;
	bool has_port;		/* written in the URL: the Host header repeats it */
	bool loopback;		/* 127.0.0.0/8, ::1 or localhost */
	const char *target;	/* into the URL; "" means "/" */
};
/* True when URL has the strict form; *U filled. */
bool mdc_wire_url_split(const char *url, struct mdc_wire_url *u);

/* One request to U (from mdc_wire_url_split of REQ->url), as mdc_http_do
 * promises: 0 with *RESP on any HTTP answer, MDC_ERR_HTTP or
 * MDC_ERR_TIMEOUT on transport failures, MDC_ERR_API for a body over
 * MAX, MDC_ERR_INTERRUPTED on Ctrl-C. */
int mdc_wire_do(const struct mdc_wire_url *u, const struct mdc_http_req *req, size_t max,
		struct mdc_http_resp *resp, struct mdc_ctx *ctx);

/* Parse the answer held in BUF[0, LEN); EOF: the server has closed.
 * MDC_WIRE_MORE when it needs more bytes; 0 when complete, with
 * RESP->status, ->retry_after_s and the decoded body (malloc'ed,
 * NUL-terminated, never NULL) and ->len; MDC_ERR_HTTP when malformed and
 * MDC_ERR_API when the body exceeds MAX bytes (message in CTX).  Pure:
 * the fuzz target (fuzz/http_fuzz.c) drives it. */
#define MDC_WIRE_MORE (-1)
int mdc_wire_parse(const char *buf, size_t len, bool eof, size_t max,
		   struct mdc_http_resp *resp, struct mdc_ctx *ctx);

#endif
