/* mdc_http_wire.c - HTTP/1.1 over a socket for plain http:// to a literal
 * address: one connection per request ("Connection: close"), bodies sized
 * by Content-Length, chunked, or the close.  No proxy, no redirects, no
 * name resolution: what libcurl would do with the same strict URL, minus
 * its start-up cost.  The answer's parser is pure (mdc_wire_parse) so the
 * fuzz target can drive it.
 * (owner: client) */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_http_wire.h"
#include "mdc_proc.h"

/* a header block longer than this is not an API answer */
#define MDC_WIRE_MAX_HEAD (64U << 10)
/* how often a wait looks at Ctrl-C */
#define MDC_WIRE_SLICE_MS 100

/* ---- the strict URL ------------------------------------------------ */

/* Dotted-decimal IPv4 with four octets and no leading zeros: libcurl (and
 * inet_aton) read "127.1", "0x7f.1" and "0177.0.0.1" as other addresses,
 * so those are left to libcurl's parser. */
static bool wire_ipv4_strict(const char *s, size_t n)
{
	unsigned parts = 0;
	size_t i = 0;

	while (i < n) {
		size_t start = i;
		unsigned v = 0;

		while (i < n && s[i] >= '0' && s[i] <= '9' && i - start < 3)
			v = v * 10 + (unsigned) (s[i++] - '0');
		if (i == start || v > 255 || (s[start] == '0' && i - start > 1))
			return false;
		parts++;
		if (i < n && (s[i] != '.' || ++i == n))
			return false;
	}
	return parts == 4;
}

bool mdc_wire_url_split(const char *url, struct mdc_wire_url *u)
{
	const char *p, *h, *he;
	size_t hn;

	memset(u, 0, sizeof(*u));
	if (strncasecmp(url, "http://", 7))
		return false;
	h = url + 7;
	if (*h == '[') {
		struct in6_addr a6;

		if (!(he = strchr(h, ']')) || (hn = (size_t) (he - h - 1)) >= sizeof(u->host) ||
		    strspn(h + 1, "0123456789abcdefABCDEF:.") != hn)
			return false;
		memcpy(u->host, h + 1, hn);
		u->host[hn] = '\0';
		if (inet_pton(AF_INET6, u->host, &a6) != 1)
			return false;
		u->ipv6 = true;
		u->loopback = IN6_IS_ADDR_LOOPBACK(&a6);
		p = he + 1;
	} else {
		hn = strspn(h, "0123456789.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
		if (hn == 9 && !strncasecmp(h, "localhost", 9))
			u->loopback = true;
		else if (wire_ipv4_strict(h, hn))
			u->loopback = !strncmp(h, "127.", 4);
		else
			return false;
		memcpy(u->host, h, hn);
		u->host[hn] = '\0';
		p = h + hn;
	}
	strcpy(u->port, "80");
	if (*p == ':') {
		size_t pn = strspn(++p, "0123456789");
		long port = pn && pn <= 5 ? strtol(p, NULL, 10) : 0;

		if (port < 1 || port > 65535)
			return false;
		memcpy(u->port, p, pn);
		u->port[pn] = '\0';
		u->has_port = true;
		p += pn;
	}
	/* libcurl removes dot segments ("/a/../b" goes as "/b") */
	if ((*p && *p != '/' && *p != '?') || strstr(p, "/."))
		return false;
	for (const char *q = p; *q; q++)
		if ((unsigned char) *q <= 0x20 || (unsigned char) *q >= 0x7f || *q == '#')
			return false;
	u->target = p;
	return true;
}

/* ---- the answer ---------------------------------------------------- */

/* The next line of [*P, END): its start and length without CR LF, *P past
 * it; false when no LF ends it yet. */
static bool wire_line(const char **p, const char *end, const char **line, size_t *n)
{
	const char *lf = memchr(*p, '\n', (size_t) (end - *p));

	if (!lf)
		return false;
	*line = *p;
	*n = (size_t) (lf - *p);
	if (*n && lf[-1] == '\r')
		(*n)--;
	*p = lf + 1;
	return true;
}

/* The count of bytes of V[0, N) in SET from the start: strspn bounded by
 * N, as a line in the buffer is not NUL-terminated. */
static size_t wire_span(const char *v, size_t n, const char *set)
{
	size_t i = 0;

	while (i < n && v[i] && strchr(set, v[i]))
		i++;
	return i;
}

static bool wire_trim_eq(const char *v, size_t n, const char *word)
{
	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	return n == strlen(word) && !strncasecmp(v, word, n);
}

struct wire_head {
	long status;
	long long length;	/* -1: none */
	bool chunked;
	double retry_after_s;
	const char *body;	/* after the header block */
};

/* Retry-After: delta-seconds only (an HTTP date just means "use our
 * backoff"). */
static void wire_retry_after(const char *v, size_t n, double *out)
{
	char val[32], *end;
	double d;

	if (n >= sizeof(val))
		return;
	memcpy(val, v, n);
	val[n] = '\0';
	d = strtod(val, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end != val && !*end && d >= 0)
		*out = d;
}

/* One header block from P: MDC_WIRE_MORE, 0, or MDC_ERR_HTTP. */
static int wire_head(const char *p, const char *end, bool eof, struct wire_head *hd,
		     struct mdc_ctx *ctx)
{
	const char *line, *start = p;
	size_t n;

	hd->length = -1;
	hd->chunked = false;
	if (!wire_line(&p, end, &line, &n))
		goto short_head;
	if (n < 12 || strncmp(line, "HTTP/1.", 7) || line[7] < '0' || line[7] > '9' ||
	    line[8] != ' ' || wire_span(line + 9, 3, "0123456789") < 3 || (n > 12 && line[12] != ' '))
		return mdc_fail(ctx, MDC_ERR_HTTP, "malformed HTTP answer: the status line is "
				"not HTTP/1.x");
	hd->status = strtol(line + 9, NULL, 10);
	for (;;) {
		const char *colon, *v;
		size_t nn, vn;

		if (!wire_line(&p, end, &line, &n))
			goto short_head;
		if (!n)
			break;
		if (!(colon = memchr(line, ':', n)))
			return mdc_fail(ctx, MDC_ERR_HTTP, "malformed HTTP answer: a header line "
					"without ':'");
		nn = (size_t) (colon - line);
		v = colon + 1;
		vn = n - nn - 1;
		while (vn && (*v == ' ' || *v == '\t'))
			v++, vn--;
		while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
			vn--;
		if (nn == 14 && !strncasecmp(line, "content-length", 14)) {
			long long l = 0;

			if (!vn || vn > 15 || wire_span(v, vn, "0123456789") < vn)
				return mdc_fail(ctx, MDC_ERR_HTTP, "malformed HTTP answer: "
						"Content-Length is not a number");
			for (size_t i = 0; i < vn; i++)
				l = l * 10 + (v[i] - '0');
			if (hd->length >= 0 && hd->length != l)
				return mdc_fail(ctx, MDC_ERR_HTTP, "malformed HTTP answer: two "
						"different Content-Length headers");
			hd->length = l;
		} else if (nn == 17 && !strncasecmp(line, "transfer-encoding", 17)) {
			if (!wire_trim_eq(v, vn, "chunked"))
				return mdc_fail(ctx, MDC_ERR_HTTP, "HTTP answer in an unsupported "
						"Transfer-Encoding (only chunked is read)");
			hd->chunked = true;
		} else if (nn == 11 && !strncasecmp(line, "retry-after", 11)) {
			wire_retry_after(v, vn, &hd->retry_after_s);
		}
	}
	hd->body = p;
	return 0;
short_head:
	if ((size_t) (end - start) > MDC_WIRE_MAX_HEAD)
		return mdc_fail(ctx, MDC_ERR_HTTP, "malformed HTTP answer: headers longer than "
				"%u bytes", MDC_WIRE_MAX_HEAD);
	if (!eof)
		return MDC_WIRE_MORE;
	return mdc_fail(ctx, MDC_ERR_HTTP, end == start ? "Empty reply from server" :
			"malformed HTTP answer: the connection closed inside the headers");
}

static int wire_too_big(size_t max, struct mdc_ctx *ctx)
{
	return mdc_fail(ctx, MDC_ERR_API, "the answer is larger than %zu bytes: refused", max);
}

/* Walk a chunked body from P: MDC_WIRE_MORE, 0 (*TOTAL the data's size,
 * copied to DST unless NULL), or an error. */
static int wire_chunks(const char *p, const char *end, bool eof, size_t max, char *dst,
		       size_t *total, struct mdc_ctx *ctx)
{
	const char *line;
	size_t n;

	*total = 0;
	for (;;) {
		size_t size = 0, digits;

		if (!wire_line(&p, end, &line, &n))
			goto more;
		digits = wire_span(line, n, "0123456789abcdefABCDEF");
		if (!digits || (digits < n && line[digits] != ';' &&
					      line[digits] != ' ' && line[digits] != '\t'))
			return mdc_fail(ctx, MDC_ERR_HTTP, "malformed HTTP answer: a bad chunk size");
		for (size_t i = 0; i < digits; i++) {
			char c = line[i];

			if (size > max)
				return wire_too_big(max, ctx);
			size = size * 16 + (size_t) (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
		}
		if (size > max - *total)
			return wire_too_big(max, ctx);
		if (!size)
			break;
		if ((size_t) (end - p) < size + 2)
			goto more;
		if (p[size] == '\r' ? p[size + 1] != '\n' : p[size] != '\n')
			return mdc_fail(ctx, MDC_ERR_HTTP, "malformed HTTP answer: a chunk longer "
					"than its size");
		if (dst)
			memcpy(dst + *total, p, size);
		*total += size;
		p += size + (p[size] == '\r' ? 2 : 1);
	}
	/* trailer fields, up to the empty line */
	do {
		if (!wire_line(&p, end, &line, &n))
			goto more;
	} while (n);
	return 0;
more:
	return eof ? mdc_fail(ctx, MDC_ERR_HTTP, "malformed HTTP answer: the connection "
			      "closed inside the chunked body") : MDC_WIRE_MORE;
}

int mdc_wire_parse(const char *buf, size_t len, bool eof, size_t max,
		   struct mdc_http_resp *resp, struct mdc_ctx *ctx)
{
	const char *end = buf + len, *p = buf;
	struct wire_head hd = { .retry_after_s = -1 };
	size_t blen;
	int rc;

	/* interim 1xx answers come before the real one */
	do {
		if ((rc = wire_head(p, end, eof, &hd, ctx)))
			return rc;
		p = hd.body;
	} while (hd.status >= 100 && hd.status < 200);
	if (hd.status == 204 || hd.status == 304) {
		blen = 0;
	} else if (hd.chunked) {
		if ((rc = wire_chunks(p, end, eof, max, NULL, &blen, ctx)))
			return rc;
	} else if (hd.length >= 0) {
		if ((unsigned long long) hd.length > max)
			return wire_too_big(max, ctx);
		blen = (size_t) hd.length;
		if ((size_t) (end - p) < blen)
			return eof ? mdc_fail(ctx, MDC_ERR_HTTP, "malformed HTTP answer: the "
					      "connection closed after %zu of %zu bytes",
					      (size_t) (end - p), blen) : MDC_WIRE_MORE;
	} else {
		/* no length: the body runs to the close */
		if ((size_t) (end - p) > max)
			return wire_too_big(max, ctx);
		if (!eof)
			return MDC_WIRE_MORE;
		blen = (size_t) (end - p);
	}
	if (!(resp->body = malloc(blen + 1)))
		return mdc_nomem(ctx);
	if (hd.chunked && hd.status != 204 && hd.status != 304)
		wire_chunks(p, end, eof, max, resp->body, &blen, ctx);
	else
		memcpy(resp->body, p, blen);
	resp->body[blen] = '\0';
	resp->len = blen;
	resp->status = hd.status;
	resp->retry_after_s = hd.retry_after_s;
	return 0;
}

/* ---- the exchange -------------------------------------------------- */

struct wire_xfer {
	const struct mdc_http_req *req;
	double deadline;	/* the whole request */
	struct mdc_ctx *ctx;
};

/* Wait for EVENTS on FD until DEADLINE, looking at Ctrl-C: 0, or
 * MDC_ERR_TIMEOUT / MDC_ERR_INTERRUPTED / MDC_ERR_HTTP (no message). */
static int wire_wait(int fd, short events, double deadline)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = events };
		double left = deadline - mdc_mono();
		int ms, n;

		if (mdc_intr_pending(NULL))
			return MDC_ERR_INTERRUPTED;
		if (left <= 0)
			return MDC_ERR_TIMEOUT;
		ms = left * 1000 < MDC_WIRE_SLICE_MS ? (int) (left * 1000) + 1 : MDC_WIRE_SLICE_MS;
		n = poll(&pfd, 1, ms);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return MDC_ERR_HTTP;
	}
}

static int wire_stop(struct wire_xfer *x, int why, double t0, const char *what)
{
	const struct mdc_http_req *r = x->req;

	if (why == MDC_ERR_INTERRUPTED)
		return mdc_fail(x->ctx, why, "%s %s: interrupted", r->method, r->url);
	if (why == MDC_ERR_TIMEOUT)
		return mdc_fail(x->ctx, why, "%s %s: %s timed out after %.0f ms", r->method, r->url,
				what, (mdc_mono() - t0) * 1000);
	return mdc_fail(x->ctx, MDC_ERR_HTTP, "%s %s: %s: %s", r->method, r->url, what,
			strerror(errno));
}

/* Connect to U's address(es) ("localhost" is 127.0.0.1, then ::1, as
 * libcurl has it): 0 and the socket in *OUT, or the error (in X->ctx). */
static int wire_connect(const struct mdc_wire_url *u, struct wire_xfer *x, int *out)
{
	const char *hosts[2] = { u->host, NULL };
	double t0 = mdc_mono(), cdeadline;
	long ct = x->req->connect_timeout_s > 0 ? x->req->connect_timeout_s : 10;
	int err = 0;

	cdeadline = t0 + ct < x->deadline ? t0 + ct : x->deadline;
	if (!strcasecmp(u->host, "localhost"))
		hosts[0] = "127.0.0.1", hosts[1] = "::1";
	for (size_t i = 0; i < 2 && hosts[i]; i++) {
		struct sockaddr_storage ss;
		struct sockaddr_in *s4 = (struct sockaddr_in *) &ss;
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *) &ss;
		bool v6 = strchr(hosts[i], ':') != NULL;
		socklen_t sl = v6 ? sizeof(*s6) : sizeof(*s4);
		int fd, one = 1, rc;

		memset(&ss, 0, sizeof(ss));
		if (v6) {
			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons((uint16_t) atoi(u->port));
			inet_pton(AF_INET6, hosts[i], &s6->sin6_addr);
		} else {
			s4->sin_family = AF_INET;
			s4->sin_port = htons((uint16_t) atoi(u->port));
			inet_pton(AF_INET, hosts[i], &s4->sin_addr);
		}
		if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0) {
			err = errno;
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, (struct sockaddr *) &ss, sl) && errno != EINPROGRESS) {
			err = errno;
		} else if ((rc = wire_wait(fd, POLLOUT, cdeadline))) {
			close(fd);
			if (rc == MDC_ERR_HTTP)
				errno = ECONNREFUSED;
			return wire_stop(x, rc, t0, "connecting");
		} else {
			socklen_t el = sizeof(err);

			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
				err = errno;
			else if (!err) {
				*out = fd;
				return 0;
			}
		}
		close(fd);
	}
	errno = err ? err : ECONNREFUSED;
	return mdc_fail(x->ctx, MDC_ERR_HTTP, "%s %s: Failed to connect to %s port %s: %s",
			x->req->method, x->req->url, u->host, u->port, strerror(errno));
}

static bool wire_has_header(const char *const *headers, const char *name)
{
	size_t n = strlen(name);

	for (const char *const *hp = headers; hp && *hp; hp++)
		if (!strncasecmp(*hp, name, n) && (*hp)[n] == ':')
			return true;
	return false;
}

static int wire_request(const struct mdc_wire_url *u, const struct mdc_http_req *req,
			struct mdc_buf *b)
{
	int rc = mdc_buf_addf(b, "%s %s%s HTTP/1.1\r\nHost: %s%s%s%s%s\r\n"
			      "User-Agent: " PACKAGE_NAME "/" PACKAGE_VERSION "\r\n"
			      "Connection: close\r\n", req->method,
			      *u->target == '/' ? "" : "/", u->target, u->ipv6 ? "[" : "",
			      u->host, u->ipv6 ? "]" : "", u->has_port ? ":" : "",
			      u->has_port ? u->port : "");

	if (!wire_has_header(req->headers, "Accept"))
		rc |= mdc_buf_adds(b, "Accept: */*\r\n");
	for (const char *const *hp = req->headers; hp && *hp; hp++)
		rc |= mdc_buf_addf(b, "%s\r\n", *hp);
	if (req->body)
		rc |= mdc_buf_addf(b, "Content-Type: application/json\r\nContent-Length: %zu\r\n",
				   strlen(req->body));
	else if (strcmp(req->method, "GET"))
		rc |= mdc_buf_adds(b, "Content-Length: 0\r\n");
	rc |= mdc_buf_adds(b, "\r\n");
	if (req->body)
		rc |= mdc_buf_adds(b, req->body);
	return rc ? MDC_ERR_NOMEM : 0;
}

int mdc_wire_do(const struct mdc_wire_url *u, const struct mdc_http_req *req, size_t max,
		struct mdc_http_resp *resp, struct mdc_ctx *ctx)
{
	struct wire_xfer x = { req, 0, ctx };
	struct mdc_buf out = MDC_BUF_INIT, in = MDC_BUF_INIT;
	double t0 = mdc_mono();
	size_t sent = 0;
	bool eof = false;
	int fd = -1, rc;

	x.deadline = t0 + (req->timeout_s > 0 ? req->timeout_s : 60);
	if (wire_request(u, req, &out))
		return mdc_nomem(ctx);
	if ((rc = wire_connect(u, &x, &fd))) {
		mdc_buf_free(&out);
		return rc;
	}
	while (sent < out.len) {
		ssize_t n = send(fd, out.s + sent, out.len - sent, MSG_NOSIGNAL);

		if (n > 0) {
			sent += (size_t) n;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			rc = wire_stop(&x, MDC_ERR_HTTP, t0, "Send failure");
			goto out;
		} else if ((rc = wire_wait(fd, POLLOUT, x.deadline))) {
			rc = wire_stop(&x, rc, t0, "sending");
			goto out;
		}
	}
	for (;;) {
		char chunk[64 << 10];
		ssize_t n = recv(fd, chunk, sizeof(chunk), 0);

		if (n > 0) {
			if (mdc_buf_add(&in, chunk, (size_t) n)) {
				rc = mdc_nomem(ctx);
				goto out;
			}
		} else if (!n) {
			eof = true;
		} else if (errno == EAGAIN || errno == EINTR) {
			if ((rc = wire_wait(fd, POLLIN, x.deadline))) {
				rc = wire_stop(&x, rc, t0, "the answer");
				goto out;
			}
			continue;
		} else {
			rc = wire_stop(&x, MDC_ERR_HTTP, t0, "Recv failure");
			goto out;
		}
		rc = mdc_wire_parse(in.s ? in.s : "", in.len, eof, max, resp, ctx);
		if (rc != MDC_WIRE_MORE) {
			if (rc)
				mdc_ctx_prefix(ctx, "%s %s", req->method, req->url);
			goto out;
		}
	}
out:
	close(fd);
	mdc_buf_free(&in);
	mdc_buf_free(&out);
	return rc;
}
