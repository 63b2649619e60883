/* mdc_broker.c - see mdc_broker.h.  The client never holds a token in
 * broker mode: every call is one munge-authenticated request on mdcd's
 * socket, and a broker that is down is an error at once.  (owner: mdcd) */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netdb.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_MUNGE
#include <munge.h>
#endif
#include <openssl/evp.h>
#include "mdc_broker.h"
#include "mdc_buf.h"
#include "mdc_dl.h"
#include "mdc_client_int.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_lro.h"
#include "mdc_plan.h"
#include "mdc_str.h"
#include "mdc_time.h"
#include "mdc_update.h"
#include "sc_conf.h"
#include "sc_render.h"
#include "sc_translate.h"

/* reads through the broker: its own retries included, never forever */
#define MDC_BROKER_READ_TIMEOUT_S 600.0
/* mdcd says "accepted" as soon as it has checked the credential: a broker
 * that is stopped or stuck is an error after this, not a hang */
#define MDC_BROKER_ACCEPT_TIMEOUT_S 10.0

/* libcrypto's digest, loaded on first use (mdc_dl.h): only broker mode
 * and mdcd need it */
static struct mdc_crypto_api {
	__typeof__(EVP_Digest) *digest;
	__typeof__(EVP_sha256) *sha256;
} mdc_crypto;
static const struct mdc_dl_sym mdc_crypto_syms[] = {
	MDC_DL_SYM(struct mdc_crypto_api, digest, EVP_Digest),
	MDC_DL_SYM(struct mdc_crypto_api, sha256, EVP_sha256),
};
static pthread_once_t mdc_crypto_once = PTHREAD_ONCE_INIT;
static char mdc_crypto_err[256];
static bool mdc_crypto_ok;

static void mdc_crypto_load(void)
{
	mdc_crypto_ok = mdc_dl_load(MDC_LIBCRYPTO_SONAME, mdc_crypto_syms,
				    sizeof(mdc_crypto_syms) / sizeof(mdc_crypto_syms[0]),
				    &mdc_crypto, mdc_crypto_err, sizeof(mdc_crypto_err));
}

int mdc_sha256_hex(const void *data, size_t len, char out[65], struct mdc_ctx *ctx)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	out[0] = '\0';
	pthread_once(&mdc_crypto_once, mdc_crypto_load);
	if (!mdc_crypto_ok)
		return mdc_fail(ctx, MDC_ERR_INTERNAL, "libcrypto, which the broker's digest needs, "
				"could not be loaded (%s): apt-get install libssl3", mdc_crypto_err);
	if (!mdc_crypto.digest(data, len, md, &n, mdc_crypto.sha256(), NULL) || n != 32)
		return mdc_fail(ctx, MDC_ERR_INTERNAL, "SHA-256 of a request failed");
	for (unsigned i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[64] = '\0';
	return 0;
}

/* mdcd makes the calls and runs the safe write */
const struct mdc_transport mdc_transport_broker = {
	.name = "broker", .call = mdc_broker_call, .update = mdc_broker_update,
};

bool mdc_client_is_brokered(const struct mdc_client *c)
{
	return c && c->t == &mdc_transport_broker;
}

int mdc_broker_client_new(const struct mdc_settings *s, struct mdc_client **out,
			  struct mdc_ctx *ctx)
{
	struct mdc_client *c;

	*out = NULL;
	if (mdc_has_ctrl(s->broker) || strlen(s->broker) >= sizeof(((struct sockaddr_un *) 0)->sun_path))
		return mdc_fail(ctx, MDC_ERR_INVAL, "broker socket '%s': too long or control "
				"characters", s->broker);
	if (!(c = calloc(1, sizeof(*c))) || !(c->broker = strdup(s->broker)) ||
	    !(c->endpoint = strdup(s->endpoint ? s->endpoint : "")) ||
	    (s->munge_socket && !(c->munge_socket = strdup(s->munge_socket)))) {
		mdc_client_free(c);
		return mdc_nomem(ctx);
	}
	c->t = &mdc_transport_broker;
	c->timeout_s = 60;
	*out = c;
	return 0;
}

/* ---- errors on the wire -------------------------------------------------- */

json_object *mdc_broker_error_json(const struct mdc_ctx *ctx)
{
	json_object *e = json_object_new_object();
	enum mdc_err err = ctx->err ? ctx->err : MDC_ERR_INTERNAL;

	if (!e)
		return NULL;
	json_object_object_add(e, "err", json_object_new_int((int) err));
	json_object_object_add(e, "name", json_object_new_string(mdc_strerror(err)));
	json_object_object_add(e, "message", json_object_new_string(ctx->msg[0] ? ctx->msg :
								   mdc_strerror(err)));
	if (ctx->http_code)
		json_object_object_add(e, "http_code", json_object_new_int(ctx->http_code));
	if (ctx->status[0])
		json_object_object_add(e, "status", json_object_new_string(ctx->status));
	return e;
}

int mdc_broker_error(const json_object *error, struct mdc_ctx *ctx)
{
	int64_t err = mdc_json_get_int(error, "err", MDC_ERR_INTERNAL);

	if (err <= MDC_OK || err >= MDC_ERR_MAX)
		err = MDC_ERR_INTERNAL;
	mdc_fail(ctx, (enum mdc_err) err, "%s", mdc_json_get_str(error, "message", "mdcd failed"));
	if (ctx && ctx->err == err) {
		ctx->http_code = (int) mdc_json_get_int(error, "http_code", 0);
		snprintf(ctx->status, sizeof(ctx->status), "%s",
			 mdc_json_get_str(error, "status", ""));
	}
	return (int) err;
}

/* ---- one request --------------------------------------------------------- */

struct mdc_broker_xfer {
	const struct mdc_lro_opts *lro;		/* progress and Ctrl-C; may be NULL */
	double timeout_s;			/* 0 = wait as long as mdcd works */
	/* a "confirm" message: answer true to send (update only) */
	bool (*confirm)(const json_object *msg, void *arg);
	void *confirm_arg;
};

static int mdc_broker_send_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t) w;
	}
	return 0;
}

/* The progress line, as mdc_lro_wait shows it. */
static void mdc_broker_progress(const struct mdc_lro_opts *o, const json_object *p)
{
	double elapsed = json_object_get_double(mdc_json_get(p, "elapsed"));
	const char *m = mdc_json_get_str(p, "message", NULL);
	bool end = mdc_json_get_bool(p, "end", false);

	if (!o || !o->progress)
		return;
	if (o->progress_fn) {
		o->progress_fn(elapsed, m, end, o->progress_arg);
		return;
	}
	if (m || !end)
		fprintf(stderr, "\r\033[K[%3.0fs] %s", elapsed, m ? m : "waiting for the operation");
	if (end)
		fputc('\n', stderr);
	fflush(stderr);
}

/* The command line of this process, for the audit log (best effort). */
static char *mdc_broker_cmdline(void)
{
	char *text = NULL;
	size_t len = 0;
	struct mdc_ctx tmp;

	mdc_ctx_clear(&tmp);
	if (mdc_read_file("/proc/self/cmdline", &text, &len, &tmp))
		return NULL;
	for (size_t i = 0; i + 1 < len; i++)
		if (text[i] == '\0' || (unsigned char) text[i] < ' ')
			text[i] = ' ';
	if (len > 1000)
		text[1000] = '\0';
	return text;
}

/* Envelope for BODY: {"mdcd":1,"cred":...,"body":"<text>"} and a newline. */
#ifdef HAVE_MUNGE
static int mdc_broker_envelope(struct mdc_client *c, const char *body, struct mdc_buf *out,
			       struct mdc_ctx *ctx)
{
	char payload[sizeof(MDC_BROKER_PAYLOAD_PREFIX) + 65], *cred = NULL;
	json_object *env = NULL;
	munge_ctx_t mctx = NULL;
	munge_err_t merr;
	int rc = 0;

	memcpy(payload, MDC_BROKER_PAYLOAD_PREFIX, sizeof(MDC_BROKER_PAYLOAD_PREFIX));
	if ((rc = mdc_sha256_hex(body, strlen(body), payload + strlen(MDC_BROKER_PAYLOAD_PREFIX),
				 ctx)))
		goto out;
	if (!(mctx = munge_ctx_create())) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if (c->munge_socket && munge_ctx_set(mctx, MUNGE_OPT_SOCKET, c->munge_socket) != EMUNGE_SUCCESS) {
		rc = mdc_fail(ctx, MDC_ERR_AUTH, "munge socket '%s': %s", c->munge_socket,
			      munge_ctx_strerror(mctx));
		goto out;
	}
	if ((merr = munge_encode(&cred, mctx, payload, (int) strlen(payload))) != EMUNGE_SUCCESS) {
		rc = mdc_fail(ctx, MDC_ERR_AUTH, "cannot get a munge credential for mdcd: %s "
			      "(is munged running?)", munge_ctx_strerror(mctx) ?
			      munge_ctx_strerror(mctx) : munge_strerror(merr));
		goto out;
	}
	if (!(env = json_object_new_object()) ||
	    json_object_object_add(env, "mdcd", json_object_new_int(MDC_BROKER_VERSION)) ||
	    json_object_object_add(env, "cred", json_object_new_string(cred)) ||
	    json_object_object_add(env, "body", json_object_new_string(body)) ||
	    mdc_buf_adds(out, mdc_json_str(env, false)) || mdc_buf_addc(out, '\n'))
		rc = mdc_nomem(ctx);
out:
	free(cred);
	json_object_put(env);
	if (mctx)
		munge_ctx_destroy(mctx);
	return rc;
}
#else
/* Built without libmunge (configure said so): no credential, no broker. */
static int mdc_broker_envelope(struct mdc_client *c, const char *body, struct mdc_buf *out,
			       struct mdc_ctx *ctx)
{
	(void) c, (void) body, (void) out;
	return mdc_fail(ctx, MDC_ERR_AUTH, "broker mode needs libmunge: slurm-mdc was built without it");
}
#endif

/* Broker = HOST:PORT (no '/'): mdcd on another login host, over TCP; a
 * path is its UNIX socket on this host. */
static bool mdc_broker_is_tcp(const char *b)
{
	return *b != '/' && !strchr(b, '/') && strrchr(b, ':');
}

/* Connect to HOST:PORT within MDC_BROKER_ACCEPT_TIMEOUT_S: a host that is
 * down must not hang the command. */
static int mdc_broker_connect_tcp(struct mdc_client *c, int *fd, struct mdc_ctx *ctx)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL, *a;
	const char *colon = strrchr(c->broker, ':');
	char host[256];
	int e = 0, g;

	*fd = -1;
	if (colon == c->broker || !colon[1] || (size_t) (colon - c->broker) >= sizeof(host))
		return mdc_fail(ctx, MDC_ERR_INVAL, "broker '%s': expected HOST:PORT or a socket path",
				c->broker);
	snprintf(host, sizeof(host), "%.*s", (int) (colon - c->broker), c->broker);
	if ((g = getaddrinfo(host, colon + 1, &hints, &ai)))
		return mdc_fail(ctx, MDC_ERR_HTTP, "broker '%s': %s", c->broker, gai_strerror(g));
	for (a = ai; a; a = a->ai_next) {
		struct pollfd p;
		socklen_t el = sizeof(e);
		int fl;

		if ((*fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0) {
			e = errno;
			continue;
		}
		if (connect(*fd, a->ai_addr, a->ai_addrlen) == 0)
			e = 0;
		else if (errno != EINPROGRESS)
			e = errno;
		else {
			p = (struct pollfd) { *fd, POLLOUT, 0 };
			g = poll(&p, 1, (int) (MDC_BROKER_ACCEPT_TIMEOUT_S * 1000));
			if (g == 0)
				e = ETIMEDOUT;
			else if (g < 0 || getsockopt(*fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
				e = errno;
		}
		if (!e && (fl = fcntl(*fd, F_GETFL)) >= 0 && fcntl(*fd, F_SETFL, fl & ~O_NONBLOCK) == 0)
			break;
		e = e ? e : errno;
		close(*fd);
		*fd = -1;
	}
	freeaddrinfo(ai);
	if (*fd < 0)
		return mdc_fail(ctx, MDC_ERR_HTTP, "broker '%s' is not answering: %s (is mdcd running "
				"there with --listen? unset MDC_BROKER or Broker= to talk to the API "
				"directly)", c->broker, strerror(e));
	return 0;
}

static int mdc_broker_connect(struct mdc_client *c, int *fd, struct mdc_ctx *ctx)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (mdc_broker_is_tcp(c->broker))
		return mdc_broker_connect_tcp(c, fd, ctx);
	*fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return mdc_fail(ctx, MDC_ERR_IO, "socket: %s", strerror(errno));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", c->broker);
	/* a UNIX connect never waits on a dead peer: refused or missing at once */
	if (connect(*fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
		int e = errno;

		close(*fd);
		*fd = -1;
		return mdc_fail(ctx, MDC_ERR_HTTP, "broker '%s' is not answering: %s (is mdcd "
				"running? unset MDC_BROKER or Broker= to talk to the API directly)",
				c->broker, strerror(e));
	}
	return 0;
}

/* Send BODY and read answers until the final one.  On success *RESULT is
 * the answer's "result" (new reference, may be NULL); an error answer
 * fills CTX and still hands over its "result" when there is one. */
static int mdc_broker_request(struct mdc_client *c, json_object *body,
			      const struct mdc_broker_xfer *x, json_object **result,
			      struct mdc_ctx *ctx)
{
	struct mdc_buf line = MDC_BUF_INIT, in = MDC_BUF_INIT;
	volatile sig_atomic_t *intr = x->lro ? x->lro->interrupted : NULL;
	double start = mdc_mono();
	json_object *ans = NULL;
	bool sent_confirm = false, accepted = false;
	int fd = -1, rc;

	*result = NULL;
	if (json_object_object_add(body, "v", json_object_new_int(MDC_BROKER_VERSION)))
		return mdc_nomem(ctx);
	if ((rc = mdc_broker_envelope(c, mdc_json_str(body, false), &line, ctx)) ||
	    (rc = mdc_broker_connect(c, &fd, ctx)))
		goto out;
	if (mdc_broker_send_all(fd, line.s, line.len)) {
		rc = mdc_fail(ctx, MDC_ERR_HTTP, "broker '%s': cannot send the request: %s",
			      c->broker, strerror(errno));
		goto out;
	}
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		char chunk[65536], *nl;
		ssize_t r;
		int p;

		while ((nl = memchr(in.s ? in.s : "", '\n', in.len))) {
			size_t n = (size_t) (nl - in.s);
			struct mdc_ctx tmp;
			json_object *m;

			mdc_ctx_clear(&tmp);
			json_object_put(ans);
			ans = NULL;
			if (mdc_json_parse(in.s, n, &ans, &tmp)) {
				rc = mdc_fail(ctx, MDC_ERR_HTTP, "broker '%s' answered something that is "
					      "not JSON: %s", c->broker, tmp.msg);
				goto out;
			}
			memmove(in.s, nl + 1, in.len - n - 1);
			in.len -= n + 1;
			in.s[in.len] = '\0';
			if (mdc_json_get_bool(ans, "accepted", false)) {
				accepted = true;
				continue;
			}
			if ((m = mdc_json_get_obj(ans, "progress"))) {
				mdc_broker_progress(x->lro, m);
				continue;
			}
			if ((m = mdc_json_get_obj(ans, "confirm"))) {
				bool yes = !sent_confirm && x->confirm && x->confirm(m, x->confirm_arg);
				const char *a = yes ? "{\"confirm\":true}\n" : "{\"confirm\":false}\n";

				sent_confirm = true;
				if (mdc_broker_send_all(fd, a, strlen(a))) {
					rc = mdc_fail(ctx, MDC_ERR_HTTP, "broker '%s': connection lost: %s",
						      c->broker, strerror(errno));
					goto out;
				}
				continue;
			}
			if (json_object_object_get_ex(ans, "result", &m))
				*result = json_object_get(m);
			if (!mdc_json_get_bool(ans, "ok", false)) {
				rc = mdc_broker_error(mdc_json_get_obj(ans, "error"), ctx);
				goto out;
			}
			rc = 0;
			goto out;
		}
		if (in.len > MDC_BROKER_LINE_MAX) {
			rc = mdc_fail(ctx, MDC_ERR_HTTP, "broker '%s': answer line too long", c->broker);
			goto out;
		}
		if (intr && *intr) {
			rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "stopped waiting; mdcd finishes what it "
				      "started (see 'mdcctl history' and 'mdcctl describe')");
			goto out;
		}
		if (!accepted && mdc_mono() - start > MDC_BROKER_ACCEPT_TIMEOUT_S) {
			rc = mdc_fail(ctx, MDC_ERR_TIMEOUT, "broker '%s' took the connection but does "
				      "not answer (is mdcd stopped or stuck? see its log)", c->broker);
			goto out;
		}
		if (x->timeout_s > 0 && mdc_mono() - start > x->timeout_s) {
			rc = mdc_fail(ctx, MDC_ERR_TIMEOUT, "broker '%s' gave no answer in %.0f s",
				      c->broker, x->timeout_s);
			goto out;
		}
		if ((p = poll(&pfd, 1, 200)) < 0 && errno != EINTR) {
			rc = mdc_fail(ctx, MDC_ERR_HTTP, "broker '%s': poll: %s", c->broker,
				      strerror(errno));
			goto out;
		}
		if (p <= 0)
			continue;
		if ((r = read(fd, chunk, sizeof(chunk))) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			rc = mdc_fail(ctx, MDC_ERR_HTTP, "broker '%s': read: %s", c->broker,
				      strerror(errno));
			goto out;
		}
		if (r == 0) {
			rc = mdc_fail(ctx, MDC_ERR_HTTP, "broker '%s' closed the connection without "
				      "an answer (see mdcd's log)", c->broker);
			goto out;
		}
		if (mdc_buf_add(&in, chunk, (size_t) r)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	json_object_put(ans);
	mdc_buf_free(&line);
	mdc_buf_free(&in);
	return rc;
}

static json_object *mdc_broker_body(const char *op)
{
	json_object *b = json_object_new_object();

	if (b && json_object_object_add(b, "op", json_object_new_string(op))) {
		json_object_put(b);
		return NULL;
	}
	return b;
}

static int mdc_broker_add_str(json_object *o, const char *k, const char *v)
{
	return v ? json_object_object_add(o, k, json_object_new_string(v)) : 0;
}

int mdc_broker_call(struct mdc_client *c, const char *method, const char *path,
		    const char *query, const json_object *body, json_object **resp,
		    struct mdc_ctx *ctx)
{
	bool read = !strcmp(method, "GET");
	struct mdc_broker_xfer x = { .timeout_s = read ? MDC_BROKER_READ_TIMEOUT_S : 0 };
	json_object *req = mdc_broker_body(read ? "get" : "call"), *res = NULL, *r;
	char *cmd = read ? NULL : mdc_broker_cmdline();
	int rc;

	if (resp)
		*resp = NULL;
	if (!req || mdc_broker_add_str(req, "path", path) || mdc_broker_add_str(req, "query", query) ||
	    (!read && (mdc_broker_add_str(req, "method", method) ||
		       mdc_broker_add_str(req, "command", cmd) ||
		       (body && json_object_object_add(req, "body",
						       mdc_json_copy(body)))))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if ((rc = mdc_broker_request(c, req, &x, &res, ctx)))
		goto out;
	if (resp && json_object_object_get_ex(res, "response", &r) && r)
		*resp = json_object_get(r);
out:
	free(cmd);
	json_object_put(res);
	json_object_put(req);
	return rc;
}

/* ---- the safe write through mdcd ------------------------------------------ */

struct mdc_broker_confirm {
	const struct mdc_intent *in;
	const struct mdc_update_opts *o;
	struct mdc_plan *plan;
	bool planned;
	struct mdc_ctx why;	/* the local plan's refusal: the caller's error */
};

/* mdcd shows the state it planned on: the same plan, made here, is what
 * the caller confirms and gets back. */
static bool mdc_broker_on_confirm(const json_object *msg, void *arg)
{
	struct mdc_broker_confirm *bc = arg;

	if (bc->planned)
		mdc_plan_free(bc->plan);
	mdc_ctx_clear(&bc->why);
	bc->planned = true;
	/* refused here (jobs in a partition or on nodes the change takes,
	 * which only this side's slurmctld knows): mdcd sends nothing, and
	 * the reason is this caller's error, not "cancelled" */
	if (mdc_plan_make(mdc_json_get_obj(msg, "before"), bc->in, &bc->o->plan, bc->plan, &bc->why))
		return false;
	if (bc->o->lro.interrupted && *bc->o->lro.interrupted)
		return false;
	return !bc->o->confirm || bc->o->confirm(bc->plan, bc->o->confirm_arg);
}

static json_object *mdc_broker_update_opts(const struct mdc_update_opts *o)
{
	json_object *j = json_object_new_object();

	if (!j)
		return NULL;
	json_object_object_add(j, "mode", json_object_new_int((int) o->plan.mode));
	json_object_object_add(j, "allow_recreate", json_object_new_boolean(o->plan.allow_recreate));
	json_object_object_add(j, "no_mask", json_object_new_boolean(o->plan.no_mask));
	json_object_object_add(j, "no_wait", json_object_new_boolean(o->no_wait));
	json_object_object_add(j, "async", json_object_new_boolean(o->async));
	json_object_object_add(j, "timeout", json_object_new_double(o->lro.timeout_s));
	json_object_object_add(j, "lock_timeout", json_object_new_double(o->lock_timeout_s));
	json_object_object_add(j, "updating_timeout", json_object_new_double(o->updating_timeout_s));
	json_object_object_add(j, "progress", json_object_new_boolean(o->lro.progress));
	return j;
}

int mdc_broker_update(struct mdc_client *c, const struct mdc_settings *s,
		      const struct mdc_intent *in, const struct mdc_update_opts *o,
		      struct mdc_plan *plan_out, json_object **op_out, struct mdc_ctx *ctx)
{
	struct mdc_plan local, *plan = plan_out ? plan_out : &local;
	struct mdc_broker_confirm bc = { in, o, plan, false, { 0 } };
	struct mdc_broker_xfer x = { .lro = &o->lro, .confirm = mdc_broker_on_confirm,
				     .confirm_arg = &bc };
	json_object *req = NULL, *res = NULL, *cluster = NULL, *j, *before;
	char *cmd = NULL;
	int rc;

	memset(plan, 0, sizeof(*plan));
	if (op_out)
		*op_out = NULL;
	if (!s->cluster)
		return mdc_fail(ctx, MDC_ERR_USAGE, "no cluster given");
	if (o->dry_run) {
		/* nothing is written: plan here on a read through the broker */
		bc.planned = true;
		if (!(rc = mdc_cluster_get(c, s->cluster, &cluster, ctx)))
			rc = mdc_plan_make(cluster, in, &o->plan, plan, ctx);
		goto out;
	}
	cmd = mdc_broker_cmdline();
	if (!(req = mdc_broker_body("update")) || mdc_broker_add_str(req, "cluster", s->cluster) ||
	    mdc_broker_add_str(req, "command", cmd) ||
	    !(j = mdc_intent_to_json(in)) || json_object_object_add(req, "intent", j) ||
	    !(j = mdc_broker_update_opts(o)) || json_object_object_add(req, "opts", j)) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	rc = mdc_broker_request(c, req, &x, &res, ctx);
	if (rc && bc.why.err) {
		mdc_ctx_clear(ctx);
		rc = mdc_fail(ctx, bc.why.err, "%s", bc.why.msg);
	}
	/* no confirmation asked (nothing to send, refused, failed before the
	 * PATCH): the plan still comes from the state mdcd read */
	if (!bc.planned && (before = mdc_json_get_obj(res, "before"))) {
		struct mdc_ctx tmp;

		mdc_ctx_clear(&tmp);
		bc.planned = true;
		mdc_plan_make(before, in, &o->plan, plan, &tmp);
	}
	if (op_out && (j = mdc_json_get_obj(res, "operation")))
		*op_out = json_object_get(j);
out:
	if (!bc.planned)
		memset(plan, 0, sizeof(*plan));
	if (plan == &local && bc.planned)
		mdc_plan_free(&local);
	free(cmd);
	json_object_put(cluster);
	json_object_put(res);
	json_object_put(req);
	return rc;
}

int mdc_broker_history(struct mdc_client *c, const char *cluster, json_object **entries,
		       struct mdc_ctx *ctx)
{
	struct mdc_broker_xfer x = { .timeout_s = MDC_BROKER_READ_TIMEOUT_S };
	json_object *req = mdc_broker_body("history"), *res = NULL;
	int rc;

	*entries = NULL;
	if (!req || mdc_broker_add_str(req, "cluster", cluster)) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if ((rc = mdc_broker_request(c, req, &x, &res, ctx)))
		goto out;
	if (!(*entries = json_object_get(mdc_json_get_arr(res, "entries"))))
		rc = mdc_fail(ctx, MDC_ERR_HTTP, "mdcd answered a history without entries");
out:
	json_object_put(res);
	json_object_put(req);
	return rc;
}

int mdc_broker_snapshot(struct mdc_client *c, long id, bool before, json_object **spec,
			struct mdc_ctx *ctx)
{
	struct mdc_broker_xfer x = { .timeout_s = MDC_BROKER_READ_TIMEOUT_S };
	json_object *req = mdc_broker_body("snapshot"), *res = NULL;
	int rc;

	*spec = NULL;
	if (!req || json_object_object_add(req, "id", json_object_new_int64(id)) ||
	    mdc_broker_add_str(req, "which", before ? "before" : "after")) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if ((rc = mdc_broker_request(c, req, &x, &res, ctx)))
		goto out;
	if (!(*spec = json_object_get(mdc_json_get_obj(res, "spec"))))
		rc = mdc_fail(ctx, MDC_ERR_HTTP, "mdcd answered a snapshot without a spec");
out:
	json_object_put(res);
	json_object_put(req);
	return rc;
}

int mdc_broker_whoami(struct mdc_client *c, json_object **who, struct mdc_ctx *ctx)
{
	struct mdc_broker_xfer x = { .timeout_s = MDC_BROKER_READ_TIMEOUT_S };
	json_object *req = mdc_broker_body("whoami");
	int rc;

	*who = NULL;
	if (!req)
		return mdc_nomem(ctx);
	rc = mdc_broker_request(c, req, &x, who, ctx);
	json_object_put(req);
	return rc;
}

/* ---- intent on the wire ------------------------------------------------ */

static json_object *mdc_strv_json(const struct mdc_strv *sv)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < sv->n; i++)
		if (json_object_array_add(a, json_object_new_string(sv->v[i]))) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

static int mdc_strv_from_json(const json_object *a, struct mdc_strv *sv)
{
	size_t n = json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);

		if (!json_object_is_type(e, json_type_string))
			return MDC_ERR_INVAL;
		if (mdc_strv_push(sv, json_object_get_string(e)))
			return MDC_ERR_NOMEM;
	}
	return 0;
}

json_object *mdc_intent_to_json(const struct mdc_intent *in)
{
	json_object *o = json_object_new_object(), *ops = json_object_new_array();

	if (!o || !ops || json_object_object_add(o, "ops", ops))
		goto nomem;
	for (size_t i = 0; i < in->n; i++) {
		const struct mdc_op *op = &in->ops[i];
		json_object *j = json_object_new_object();

		if (!j || json_object_array_add(ops, j) ||
		    json_object_object_add(j, "kind", json_object_new_string(mdc_op_kind_name(op->kind))) ||
		    mdc_broker_add_str(j, "id", op->id) || mdc_broker_add_str(j, "key", op->key) ||
		    mdc_broker_add_str(j, "value", op->value) || mdc_broker_add_str(j, "where", op->where) ||
		    (op->list.n && json_object_object_add(j, "list", mdc_strv_json(&op->list))) ||
		    (op->kv.n && json_object_object_add(j, "kv", mdc_strv_json(&op->kv))) ||
		    json_object_object_add(j, "min", json_object_new_int64(op->min)) ||
		    json_object_object_add(j, "max", json_object_new_int64(op->max)) ||
		    json_object_object_add(j, "index", json_object_new_int64(op->index)))
			goto nomem;
	}
	if (json_object_object_add(o, "notes", mdc_strv_json(&in->notes)) ||
	    json_object_object_add(o, "refusals", mdc_strv_json(&in->refusals)))
		goto nomem;
	return o;
nomem:
	json_object_put(o);
	return NULL;
}

static const char *mdc_opt_str(const json_object *o, const char *k)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int mdc_intent_from_json(const json_object *obj, struct mdc_intent *out, struct mdc_ctx *ctx)
{
	json_object *ops = mdc_json_get_arr(obj, "ops");
	size_t n = ops ? json_object_array_length(ops) : 0;

	if (!ops)
		return mdc_fail(ctx, MDC_ERR_INVAL, "intent: no 'ops' array");
	for (size_t i = 0; i < n; i++) {
		json_object *j = json_object_array_get_idx(ops, i), *v;
		const char *kind = mdc_opt_str(j, "kind");
		struct mdc_op *op;
		int k;

		for (k = 0; k < MDC_OP_KIND_MAX; k++)
			if (kind && !strcmp(kind, mdc_op_kind_name((enum mdc_op_kind) k)))
				break;
		if (k == MDC_OP_KIND_MAX)
			return mdc_fail(ctx, MDC_ERR_INVAL, "intent op %zu: unknown kind '%s'", i,
					kind ? kind : "");
		if (!(op = mdc_intent_add(out, (enum mdc_op_kind) k, mdc_opt_str(j, "id"),
					  mdc_opt_str(j, "key"), mdc_opt_str(j, "value"))))
			return mdc_nomem(ctx);
		if (mdc_opt_str(j, "where") && !(op->where = strdup(mdc_opt_str(j, "where"))))
			return mdc_nomem(ctx);
		if ((json_object_object_get_ex(j, "list", &v) && mdc_strv_from_json(v, &op->list)) ||
		    (json_object_object_get_ex(j, "kv", &v) && mdc_strv_from_json(v, &op->kv)))
			return mdc_fail(ctx, MDC_ERR_INVAL, "intent op %zu: bad list", i);
		op->min = mdc_json_get_int(j, "min", 0);
		op->max = mdc_json_get_int(j, "max", 0);
		op->index = (long) mdc_json_get_int(j, "index", 0);
	}
	if (mdc_strv_from_json(mdc_json_get(obj, "notes"), &out->notes) ||
	    mdc_strv_from_json(mdc_json_get(obj, "refusals"), &out->refusals))
		return mdc_fail(ctx, MDC_ERR_INVAL, "intent: bad notes or refusals");
	return 0;
}

/* ---- rollback ------------------------------------------------------------ */

static int mdc_rollback_conf(const json_object *spec, const char *name, struct sc_conf **out,
			     struct mdc_ctx *ctx)
{
	struct mdc_buf b = MDC_BUF_INIT;
	int rc;

	*out = NULL;
	if (!(rc = sc_render(spec, NULL, NULL, &b, ctx)))
		rc = sc_conf_parse_string(mdc_buf_str(&b), b.len, name, out, ctx);
	mdc_buf_free(&b);
	return rc;
}

/* Labels key by key: set what differs, unset what TARGET lacks. */
static int mdc_rollback_labels(const json_object *cur, const json_object *tgt,
			       struct mdc_intent *out)
{
	json_object *cl = mdc_json_get_obj(cur, "labels"), *tl = mdc_json_get_obj(tgt, "labels");

	if (tl) {
		json_object_object_foreach(tl, k, v) {
			const char *now = mdc_json_get_str(cl, k, NULL);

			if ((!now || strcmp(now, json_object_get_string(v))) &&
			    !mdc_intent_add(out, MDC_OP_LABEL_SET, NULL, k, json_object_get_string(v)))
				return MDC_ERR_NOMEM;
		}
	}
	if (cl) {
		json_object_object_foreach(cl, k, v) {
			(void) v;
			if (!mdc_json_get(tl, k) && !mdc_intent_add(out, MDC_OP_LABEL_UNSET, NULL, k, NULL))
				return MDC_ERR_NOMEM;
		}
	}
	return 0;
}

/* A script list (C5: replaced whole) when it differs. */
static int mdc_rollback_scripts(const json_object *cur, const json_object *tgt, const char *path,
				enum mdc_op_kind kind, struct mdc_intent *out)
{
	json_object *c = mdc_json_get_path(cur, path), *t = mdc_json_get_path(tgt, path);
	size_t nc = c ? json_object_array_length(c) : 0, nt = t ? json_object_array_length(t) : 0;
	struct mdc_op *op;

	if ((!nc && !nt) || mdc_json_equal(c, t))
		return 0;
	if (!(op = mdc_intent_add(out, kind, NULL, NULL, NULL)))
		return MDC_ERR_NOMEM;
	for (size_t i = 0; i < nt; i++)
		if (mdc_strv_push(&op->list, json_object_get_string(json_object_array_get_idx(t, i))))
			return MDC_ERR_NOMEM;
	return 0;
}

int mdc_rollback_intent(const json_object *current, const json_object *target,
			struct mdc_intent *out, struct mdc_ctx *ctx)
{
	struct sc_conf *cur = NULL, *tgt = NULL;
	json_object *c = mdc_json_normalize(current, MDC_CASE_SNAKE);
	json_object *t = mdc_json_normalize(target, MDC_CASE_SNAKE);
	int rc;

	if (!c || !t) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if ((rc = mdc_rollback_conf(c, "(current spec)", &cur, ctx)) ||
	    (rc = mdc_rollback_conf(t, "(earlier spec)", &tgt, ctx)) ||
	    (rc = sc_translate(cur, tgt, c, out, ctx)))
		goto out;
	if (mdc_rollback_labels(c, t, out) ||
	    mdc_rollback_scripts(c, t, "orchestrator_spec.slurm_spec.prolog_bash_scripts",
				 MDC_OP_PROLOG_REPLACE, out) ||
	    mdc_rollback_scripts(c, t, "orchestrator_spec.slurm_spec.epilog_bash_scripts",
				 MDC_OP_EPILOG_REPLACE, out))
		rc = mdc_nomem(ctx);
out:
	sc_conf_free(cur);
	sc_conf_free(tgt);
	json_object_put(c);
	json_object_put(t);
	return rc;
}
