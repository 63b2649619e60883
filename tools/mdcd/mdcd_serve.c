/* mdcd_serve.c - one connection: read the request, prove who sent it
 * (munge credential bound to the request's digest, the socket peer the
 * same uid), authorise, dispatch, answer.  (owner: mdcd)
 *
 * Writes run the library's own safe write (mdc_update_run) under the
 * cluster's writer mutex, so mdcd adds no second copy of the
 * read-modify-write; the confirmation the client's front end asks is a
 * round trip on the same connection. */
#define _GNU_SOURCE	/* struct ucred */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <munge.h>
#include "mdc_broker.h"
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_plan.h"
#include "mdc_rules.h"
#include "mdc_str.h"
#include "mdc_time.h"
#include "mdc_update.h"
#include "mdcd.h"

/* the request line must arrive soon; a confirmation may take a human */
#define MDCD_REQUEST_TIMEOUT_S 30.0
#define MDCD_CONFIRM_TIMEOUT_S 600.0

struct mdcd_cluster_lock {
	struct mdcd_cluster_lock *next;
	pthread_mutex_t mutex;
	char name[];
};

pthread_mutex_t *mdcd_cluster_mutex(struct mdcd *d, const char *cluster)
{
	struct mdcd_cluster_lock *l;

	pthread_mutex_lock(&d->clusters_lock);
	for (l = d->clusters; l; l = l->next)
		if (!strcmp(l->name, cluster))
			break;
	if (!l && (l = calloc(1, sizeof(*l) + strlen(cluster) + 1))) {
		pthread_mutex_init(&l->mutex, NULL);
		strcpy(l->name, cluster);
		l->next = d->clusters;
		d->clusters = l;
	}
	pthread_mutex_unlock(&d->clusters_lock);
	return l ? &l->mutex : NULL;
}

void mdcd_cluster_mutexes_free(struct mdcd *d)
{
	while (d->clusters) {
		struct mdcd_cluster_lock *l = d->clusters;

		d->clusters = l->next;
		pthread_mutex_destroy(&l->mutex);
		free(l);
	}
}

/* ---- the connection -------------------------------------------------------- */

struct mdcd_req {
	struct mdcd *d;
	int fd;
	struct mdcd_peer peer;
	struct mdc_settings s;		/* a private copy for this request */
	json_object *body;
	struct mdc_buf in;		/* bytes read after the request line */
};

/* One line from FD into *LINE (malloc'ed, no newline); -1 on EOF, error,
 * an over-long line or TIMEOUT_S. */
static int mdcd_read_line(struct mdcd_req *r, double timeout_s, char **line)
{
	double until = mdc_mono() + timeout_s;
	char *nl;

	*line = NULL;
	while (!(nl = r->in.len ? memchr(r->in.s, '\n', r->in.len) : NULL)) {
		struct pollfd p = { r->fd, POLLIN, 0 };
		char chunk[65536];
		double left = until - mdc_mono();
		ssize_t n;

		if (left <= 0 || r->in.len > MDC_BROKER_LINE_MAX)
			return -1;
		if (poll(&p, 1, (int) (left * 1000) + 1) <= 0)
			continue;
		if ((n = read(r->fd, chunk, sizeof(chunk))) < 0 && errno == EINTR)
			continue;
		if (n <= 0 || mdc_buf_add(&r->in, chunk, (size_t) n))
			return -1;
	}
	if (!(*line = strndup(r->in.s, (size_t) (nl - r->in.s))))
		return -1;
	r->in.len -= (size_t) (nl - r->in.s) + 1;
	memmove(r->in.s, nl + 1, r->in.len);
	r->in.s[r->in.len] = '\0';
	return 0;
}

/* Send O as one line; a client that went away is not an error here. */
static void mdcd_send(struct mdcd_req *r, json_object *o)
{
	const char *s = mdc_json_str(o, false);
	size_t n = strlen(s);

	while (n) {
		ssize_t w = send(r->fd, s, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t) w;
	}
	send(r->fd, "\n", 1, MSG_NOSIGNAL);
}

/* The final answer: ok with RESULT (stolen, may be NULL), or CTX's error. */
static void mdcd_answer(struct mdcd_req *r, const struct mdc_ctx *ctx, json_object *result)
{
	json_object *a = json_object_new_object();

	if (a) {
		json_object_object_add(a, "mdcd", json_object_new_int(MDC_BROKER_VERSION));
		json_object_object_add(a, "ok", json_object_new_boolean(!ctx || !ctx->err));
		if (ctx && ctx->err)
			json_object_object_add(a, "error", mdc_broker_error_json(ctx));
		if (result)
			json_object_object_add(a, "result", result);
		result = NULL;
		mdcd_send(r, a);
	}
	json_object_put(result);
	json_object_put(a);
}

static int mdcd_refuse(struct mdcd_req *r, enum mdc_err err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int mdcd_refuse(struct mdcd_req *r, enum mdc_err err, const char *fmt, ...)
{
	struct mdc_ctx ctx;
	va_list ap;

	mdc_ctx_clear(&ctx);
	va_start(ap, fmt);
	mdc_vfail(&ctx, err, fmt, ap);
	va_end(ap);
	mdcd_answer(r, &ctx, NULL);
	return err;
}

/* ---- who is asking ------------------------------------------------------- */

static const char *mdcd_munge_why(munge_err_t e)
{
	switch (e) {
	case EMUNGE_CRED_REPLAYED: return "replayed (a credential is good for one request)";
	case EMUNGE_CRED_EXPIRED: return "expired";
	case EMUNGE_CRED_REWOUND: return "from the future (clock skew)";
	case EMUNGE_CRED_INVALID: return "invalid";
	case EMUNGE_CRED_UNAUTHORIZED: return "not for this host";
	default: return munge_strerror(e);
	}
}

/* Check the envelope's credential against its body; fill R->peer. */
static int mdcd_authenticate(struct mdcd_req *r, const json_object *env, const char **body)
{
	const char *cred = mdc_json_get_str(env, "cred", NULL);
	char want[sizeof(MDC_BROKER_PAYLOAD_PREFIX) + 65];
	struct ucred pc;
	socklen_t pl = sizeof(pc), dl = sizeof(int);
	int dom = AF_UNIX;
	struct passwd pw, *pwp = NULL;
	char pwbuf[4096];
	munge_ctx_t m = NULL;
	munge_err_t e;
	void *payload = NULL;
	struct mdc_ctx tmp;
	int len = 0, rc = 0;
	uid_t uid;
	gid_t gid;

	*body = mdc_json_get_str(env, "body", NULL);
	if (mdc_json_get_int(env, "mdcd", 0) != MDC_BROKER_VERSION)
		return mdcd_refuse(r, MDC_ERR_USAGE, "mdcd speaks protocol %d; this request is %lld",
				   MDC_BROKER_VERSION, (long long) mdc_json_get_int(env, "mdcd", 0));
	if (!cred || !*cred)
		return mdcd_refuse(r, MDC_ERR_AUTH, "no munge credential: every request needs one");
	if (!*body)
		return mdcd_refuse(r, MDC_ERR_USAGE, "no request body");
	if (!(m = munge_ctx_create()))
		return mdcd_refuse(r, MDC_ERR_NOMEM, "out of memory");
	if (r->s.munge_socket)
		munge_ctx_set(m, MUNGE_OPT_SOCKET, r->s.munge_socket);
	e = munge_decode(cred, m, &payload, &len, &uid, &gid);
	if (e != EMUNGE_SUCCESS) {
		rc = mdcd_refuse(r, MDC_ERR_AUTH, "munge credential refused: %s", mdcd_munge_why(e));
		mdcd_log(LOG_WARNING, "credential refused: %s", mdcd_munge_why(e));
		goto out;
	}
	memcpy(want, MDC_BROKER_PAYLOAD_PREFIX, sizeof(MDC_BROKER_PAYLOAD_PREFIX));
	if (mdc_sha256_hex(*body, strlen(*body), want + strlen(MDC_BROKER_PAYLOAD_PREFIX), &tmp)) {
		rc = mdcd_refuse(r, MDC_ERR_INTERNAL, "%s", tmp.msg);
		goto out;
	}
	if (!payload || (size_t) len != strlen(want) || memcmp(payload, want, (size_t) len)) {
		rc = mdcd_refuse(r, MDC_ERR_AUTH, "the munge credential was made for another "
				 "request: refused");
		mdcd_log(LOG_WARNING, "uid %ld: credential does not match the request", (long) uid);
		goto out;
	}
	/* a credential lent to another local user proves nothing for them;
	 * over TCP (another login host) the peer has no uid to compare, and
	 * the credential, good for this one body once, is the proof */
	if (getsockopt(r->fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) == 0 && dom == AF_UNIX &&
	    (getsockopt(r->fd, SOL_SOCKET, SO_PEERCRED, &pc, &pl) < 0 || pc.uid != uid)) {
		rc = mdcd_refuse(r, MDC_ERR_AUTH, "the munge credential is uid %ld's, the "
				 "connection another user's: refused", (long) uid);
		goto out;
	}
	r->peer.uid = uid;
	r->peer.gid = gid;
	if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &pwp) == 0 && pwp)
		snprintf(r->peer.user, sizeof(r->peer.user), "%s", pw.pw_name);
	else
		snprintf(r->peer.user, sizeof(r->peer.user), "%ld", (long) uid);
out:
	free(payload);
	munge_ctx_destroy(m);
	return rc;
}

/* ---- operations ---------------------------------------------------------- */

static int mdcd_client(struct mdcd_req *r, struct mdc_client **c, struct mdc_ctx *ctx)
{
	if (!r->s.endpoint)
		return mdc_fail(ctx, MDC_ERR_USAGE, "mdcd has no endpoint: set Endpoint=, Region= "
				"or Cluster= in its mdc.conf");
	return mdc_client_new(&r->s, c, ctx);
}

/* A path mdcd forwards: under projects/ (of its cluster's project when it
 * has one), no way out of it. */
static int mdcd_check_path(struct mdcd_req *r, const char *path, struct mdc_ctx *ctx)
{
	char *project = NULL, prefix[512];
	bool ok;

	if (!path || mdc_has_ctrl(path) || strstr(path, "..") || strpbrk(path, "?# \\"))
		return mdc_fail(ctx, MDC_ERR_INVAL, "path '%s' refused", path ? path : "");
	if (r->s.cluster && !mdc_cluster_name_split(r->s.cluster, &project, NULL, NULL, NULL))
		snprintf(prefix, sizeof(prefix), "projects/%s/", project);
	else
		snprintf(prefix, sizeof(prefix), "projects/");
	free(project);
	ok = (mdc_startswith(path, "v1beta1/") && mdc_startswith(path + 8, prefix)) ||
	     (mdc_startswith(path, "v1/") && mdc_startswith(path + 3, prefix));
	if (!ok)
		return mdc_fail(ctx, MDC_ERR_REFUSED, "mdcd forwards only v1/ and v1beta1/ paths "
				"under %s: '%s' refused", prefix, path);
	return 0;
}

/* Refuse a write when PEER may not; the message names every rule. */
static int mdcd_authorize(struct mdcd_req *r, const char *what, struct mdc_ctx *ctx)
{
	char why[1024];

	if (mdcd_may_write(&r->s, &r->peer, why, sizeof(why))) {
		mdcd_log(LOG_INFO, "%s by %s (uid %ld): allowed as %s", what, r->peer.user,
			 (long) r->peer.uid, why);
		return 0;
	}
	mdcd_log(LOG_NOTICE, "%s by %s (uid %ld) refused: %s", what, r->peer.user,
		 (long) r->peer.uid, why);
	return mdc_fail(ctx, MDC_ERR_REFUSED, "mdcd refused the write: %s; nothing was sent", why);
}

static void mdcd_writes(struct mdcd *d, int delta)
{
	pthread_mutex_lock(&d->active_lock);
	d->writes += delta;
	pthread_cond_broadcast(&d->active_cond);
	pthread_mutex_unlock(&d->active_lock);
}

static json_object *mdcd_entry(struct mdcd_req *r, const char *op, const char *cluster)
{
	json_object *e = json_object_new_object();
	char when[32];
	struct tm tm;
	time_t now = time(NULL);

	if (!e)
		return NULL;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_object_add(e, "time", json_object_new_string(when));
	json_object_object_add(e, "uid", json_object_new_int64((int64_t) r->peer.uid));
	json_object_object_add(e, "user", json_object_new_string(r->peer.user));
	json_object_object_add(e, "op", json_object_new_string(op));
	if (cluster)
		json_object_object_add(e, "cluster", json_object_new_string(cluster));
	json_object_object_add(e, "command", json_object_new_string(
		mdc_json_get_str(r->body, "command", "")));
	return e;
}

static void mdcd_entry_result(json_object *e, const struct mdc_ctx *ctx)
{
	json_object_object_add(e, "result", json_object_new_string(
		!ctx->err ? "ok" : ctx->err == MDC_ERR_REFUSED ? "refused" : "failed"));
	if (ctx->err)
		json_object_object_add(e, "message", json_object_new_string(ctx->msg));
}

static int op_get(struct mdcd_req *r, json_object **result, struct mdc_ctx *ctx)
{
	const char *path = mdc_json_get_str(r->body, "path", NULL);
	struct mdc_client *c = NULL;
	json_object *resp = NULL;
	int rc;

	if ((rc = mdcd_check_path(r, path, ctx)) || (rc = mdcd_client(r, &c, ctx)) ||
	    (rc = mdc_api_call(c, "GET", path, mdc_json_get_str(r->body, "query", NULL), NULL,
			       &resp, ctx)))
		goto out;
	*result = json_object_new_object();
	json_object_object_add(*result, "response", resp);
	resp = NULL;
out:
	json_object_put(resp);
	mdc_client_free(c);
	return rc;
}

/* A raw write (create, delete, a PATCH with an explicit mask, persistent
 * resources): authorised, serialised on its path, recorded.  A PATCH or
 * DELETE of a cluster itself keeps the spec before it, as an update does,
 * so that `mdcctl rollback` can return to it. */
static int op_call(struct mdcd_req *r, json_object **result, struct mdc_ctx *ctx)
{
	const char *path = mdc_json_get_str(r->body, "path", NULL);
	const char *method = mdc_json_get_str(r->body, "method", "");
	static const char *const methods[] = { "POST", "PATCH", "DELETE", NULL };
	struct mdc_client *c = NULL;
	json_object *resp = NULL, *e = NULL, *before = NULL;
	pthread_mutex_t *mx = NULL;
	const char *name;
	struct mdc_ctx tmp;
	bool known = false, on_cluster;
	char *dig;
	int rc;

	for (size_t i = 0; methods[i]; i++)
		known |= !strcmp(method, methods[i]);
	if (!known)
		return mdc_fail(ctx, MDC_ERR_USAGE, "method '%s' refused", method);
	if ((rc = mdcd_check_path(r, path, ctx)) || (rc = mdcd_authorize(r, method, ctx)) ||
	    (rc = mdcd_client(r, &c, ctx)))
		goto out;
	/* the path after its version: the key of the writer mutex */
	name = path + strcspn(path, "/") + 1;
	on_cluster = strcmp(method, "POST") && !mdc_cluster_name_split(name, NULL, NULL, NULL, NULL);
	if (!(mx = mdcd_cluster_mutex(r->d, name))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	pthread_mutex_lock(mx);
	mdcd_writes(r->d, 1);
	mdc_ctx_clear(&tmp);
	if (on_cluster && mdc_cluster_get(c, name, &before, &tmp))
		mdcd_log(LOG_ERR, "cannot read '%s' before the write: %s", name, tmp.msg);
	rc = mdc_api_call(c, method, path, mdc_json_get_str(r->body, "query", NULL),
			  mdc_json_get(r->body, "body"), &resp, ctx);
	if ((e = mdcd_entry(r, "call", on_cluster ? name : NULL))) {
		json_object_object_add(e, "method", json_object_new_string(method));
		json_object_object_add(e, "path", json_object_new_string(path));
		if (mdc_json_get_str(r->body, "query", NULL))
			json_object_object_add(e, "query", json_object_new_string(
				mdc_json_get_str(r->body, "query", NULL)));
		json_object_object_add(e, "operation", json_object_new_string(
			mdc_json_get_str(resp, "name", "")));
		mdcd_entry_result(e, ctx);
		/* the spec after is the operation's to make: only the one before
		 * is kept (what a rollback returns to) */
		if ((dig = mdcd_spec_digest(before)))
			json_object_object_add(e, "before", json_object_new_string(dig));
		free(dig);
		mdcd_audit_append(r->d, e, before, NULL);
	}
	mdcd_writes(r->d, -1);
	pthread_mutex_unlock(mx);
	if (!rc) {
		*result = json_object_new_object();
		json_object_object_add(*result, "response", resp);
		resp = NULL;
	}
out:
	json_object_put(before);
	json_object_put(e);
	json_object_put(resp);
	mdc_client_free(c);
	return rc;
}

/* The update's state: what was planned on, and whether it went out. */
struct mdcd_update {
	struct mdcd_req *r;
	struct mdc_client *c;
	const char *cluster;
	json_object *before;
	bool confirmed;
	double start;
};

/* Before the PATCH (lock held, state settled): read what the plan was
 * made on, hand it to the client, whose front end confirms. */
static bool mdcd_confirm(const struct mdc_plan *plan, void *arg)
{
	struct mdcd_update *u = arg;
	json_object *msg = NULL, *c = NULL, *ans = NULL;
	struct mdc_ctx tmp;
	char *line = NULL;

	(void) plan;
	mdc_ctx_clear(&tmp);
	if (mdc_cluster_get(u->c, u->cluster, &u->before, &tmp)) {
		mdcd_log(LOG_ERR, "cannot read '%s' before the write: %s", u->cluster, tmp.msg);
		return false;
	}
	if (!(msg = json_object_new_object()) || !(c = json_object_new_object()))
		goto out;
	json_object_object_add(c, "before", json_object_get(u->before));
	json_object_object_add(msg, "confirm", c);
	mdcd_send(u->r, msg);
	if (mdcd_read_line(u->r, MDCD_CONFIRM_TIMEOUT_S, &line) ||
	    mdc_json_parse(line, strlen(line), &ans, &tmp))
		goto out;
	u->confirmed = mdc_json_get_bool(ans, "confirm", false);
out:
	free(line);
	json_object_put(ans);
	json_object_put(msg);
	return u->confirmed;
}

static void mdcd_progress(double elapsed, const char *m, bool end, void *arg)
{
	struct mdcd_update *u = arg;
	json_object *msg = json_object_new_object(), *p = json_object_new_object();

	if (msg && p) {
		json_object_object_add(p, "elapsed", json_object_new_double(elapsed));
		if (m)
			json_object_object_add(p, "message", json_object_new_string(m));
		json_object_object_add(p, "end", json_object_new_boolean(end));
		json_object_object_add(msg, "progress", p);
		p = NULL;
		mdcd_send(u->r, msg);
	}
	json_object_put(p);
	json_object_put(msg);
}

static int mdcd_update_opts(const json_object *j, struct mdcd_update *u,
			    struct mdc_update_opts *o, struct mdc_ctx *ctx)
{
	int64_t mode = mdc_json_get_int(j, "mode", MDC_MODE_USER_ONLY);

	memset(o, 0, sizeof(*o));
	if (mode < MDC_MODE_UNSPECIFIED || mode > MDC_MODE_USER_AND_SERVICE)
		return mdc_fail(ctx, MDC_ERR_USAGE, "update mode %lld unknown", (long long) mode);
	o->plan.mode = (enum mdc_update_mode) mode;
	o->plan.allow_recreate = mdc_json_get_bool(j, "allow_recreate", false);
	o->plan.no_mask = mdc_json_get_bool(j, "no_mask", false);
	o->no_wait = mdc_json_get_bool(j, "no_wait", false);
	o->async = mdc_json_get_bool(j, "async", false);
	o->lro.timeout_s = json_object_get_double(mdc_json_get(j, "timeout"));
	o->lock_timeout_s = json_object_get_double(mdc_json_get(j, "lock_timeout"));
	o->updating_timeout_s = json_object_get_double(mdc_json_get(j, "updating_timeout"));
	o->lro.progress = mdc_json_get_bool(j, "progress", false);
	o->lro.progress_fn = mdcd_progress;
	o->lro.progress_arg = u;
	/* no interrupted flag: SIGTERM lets the write in progress finish */
	o->confirm = mdcd_confirm;
	o->confirm_arg = u;
	return 0;
}

static int op_update(struct mdcd_req *r, json_object **result, struct mdc_ctx *ctx)
{
	const char *cluster = mdc_json_get_str(r->body, "cluster", NULL);
	struct mdcd_update u = { .r = r, .cluster = cluster };
	struct mdc_intent in = MDC_INTENT_INIT;
	struct mdc_update_opts o;
	struct mdc_plan plan;
	json_object *op = NULL, *after = NULL, *e = NULL, *mask;
	pthread_mutex_t *mx = NULL;
	struct mdc_ctx tmp;
	char *dig;
	long id = 0;
	int rc;

	memset(&plan, 0, sizeof(plan));
	if (!cluster)
		return mdc_fail(ctx, MDC_ERR_USAGE, "update: no cluster");
	if ((rc = mdc_cluster_name_split(cluster, NULL, NULL, NULL, ctx)))
		return rc;
	if (r->s.cluster && strcmp(r->s.cluster, cluster))
		return mdc_fail(ctx, MDC_ERR_REFUSED, "mdcd serves cluster '%s', not '%s'",
				r->s.cluster, cluster);
	if ((rc = mdcd_authorize(r, "update", ctx)) ||
	    (rc = mdc_intent_from_json(mdc_json_get_obj(r->body, "intent"), &in, ctx)) ||
	    (rc = mdcd_update_opts(mdc_json_get_obj(r->body, "opts"), &u, &o, ctx)) ||
	    (rc = mdcd_client(r, &u.c, ctx)))
		goto out;
	if (mdc_settings_set(&r->s.cluster, cluster) || !(mx = mdcd_cluster_mutex(r->d, cluster))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	pthread_mutex_lock(mx);
	mdcd_writes(r->d, 1);
	rc = mdc_update_run(u.c, &r->s, &in, &o, &plan, &op, ctx);
	if (u.confirmed) {
		/* something was (or may have been) sent: keep the record */
		mdc_ctx_clear(&tmp);
		if (mdc_cluster_get(u.c, cluster, &after, &tmp))
			mdcd_log(LOG_ERR, "cannot read '%s' after the write: %s", cluster, tmp.msg);
		if ((e = mdcd_entry(r, "update", cluster))) {
			json_object_object_add(e, "intent", json_object_get(
				mdc_json_get_obj(r->body, "intent")));
			mask = json_object_new_array();
			for (size_t i = 0; mask && i < plan.mask.n; i++)
				json_object_array_add(mask, json_object_new_string(plan.mask.v[i]));
			json_object_object_add(e, "mask", mask);
			json_object_object_add(e, "mode", json_object_new_string(
				mdc_mode_name(plan.mode) ? mdc_mode_name(plan.mode) : "UNSPECIFIED"));
			json_object_object_add(e, "operation", json_object_new_string(
				mdc_json_get_str(op, "name", "")));
			mdcd_entry_result(e, ctx);
			if ((dig = mdcd_spec_digest(u.before)))
				json_object_object_add(e, "before", json_object_new_string(dig));
			free(dig);
			if ((dig = mdcd_spec_digest(after)))
				json_object_object_add(e, "after", json_object_new_string(dig));
			free(dig);
			id = mdcd_audit_append(r->d, e, u.before, after);
		}
	} else if (!u.before) {
		/* nothing sent: the client still shows the plan on what we read */
		mdc_ctx_clear(&tmp);
		mdc_cluster_get(u.c, cluster, &u.before, &tmp);
	}
	mdcd_writes(r->d, -1);
	pthread_mutex_unlock(mx);
	mdcd_log(LOG_INFO, "update of %s by %s: %s%s%s", cluster, r->peer.user,
		 rc ? "failed: " : u.confirmed ? "sent" : "nothing sent", rc ? ctx->msg : "",
		 id > 0 ? "" : "");
	if ((*result = json_object_new_object())) {
		if (u.before)
			json_object_object_add(*result, "before", json_object_get(u.before));
		if (op)
			json_object_object_add(*result, "operation", json_object_get(op));
		if (id > 0)
			json_object_object_add(*result, "id", json_object_new_int64(id));
	}
out:
	json_object_put(e);
	json_object_put(after);
	json_object_put(op);
	json_object_put(u.before);
	mdc_plan_free(&plan);
	mdc_intent_free(&in);
	mdc_client_free(u.c);
	return rc;
}

static int op_history(struct mdcd_req *r, json_object **result, struct mdc_ctx *ctx)
{
	json_object *list = NULL;
	int rc;

	if ((rc = mdcd_audit_list(r->d, mdc_json_get_str(r->body, "cluster", NULL), &list, ctx)))
		return rc;
	*result = json_object_new_object();
	json_object_object_add(*result, "entries", list);
	return 0;
}

static int op_snapshot(struct mdcd_req *r, json_object **result, struct mdc_ctx *ctx)
{
	const char *which = mdc_json_get_str(r->body, "which", "before");
	json_object *spec = NULL;
	int rc;

	if (strcmp(which, "before") && strcmp(which, "after"))
		return mdc_fail(ctx, MDC_ERR_USAGE, "snapshot '%s': before or after", which);
	if ((rc = mdcd_audit_snapshot(r->d, (long) mdc_json_get_int(r->body, "id", 0),
				      !strcmp(which, "before"), &spec, ctx)))
		return rc;
	*result = json_object_new_object();
	json_object_object_add(*result, "spec", spec);
	return 0;
}

static int op_whoami(struct mdcd_req *r, json_object **result, struct mdc_ctx *ctx)
{
	char why[1024];
	bool w = mdcd_may_write(&r->s, &r->peer, why, sizeof(why));

	(void) ctx;
	*result = json_object_new_object();
	json_object_object_add(*result, "uid", json_object_new_int64((int64_t) r->peer.uid));
	json_object_object_add(*result, "user", json_object_new_string(r->peer.user));
	json_object_object_add(*result, "write", json_object_new_boolean(w));
	json_object_object_add(*result, "rule", json_object_new_string(why));
	return 0;
}

static const struct mdcd_op {
	const char *name;
	int (*fn)(struct mdcd_req *r, json_object **result, struct mdc_ctx *ctx);
} mdcd_ops[] = {
	{ "call", op_call }, { "get", op_get }, { "history", op_history },
	{ "snapshot", op_snapshot }, { "update", op_update }, { "whoami", op_whoami },
};

void mdcd_serve(struct mdcd *d, int fd)
{
	struct mdcd_req r = { .d = d, .fd = fd, .in = MDC_BUF_INIT };
	json_object *env = NULL, *result = NULL;
	const char *body, *opname;
	struct mdc_ctx ctx;
	char *line = NULL;
	size_t i;

	mdc_ctx_clear(&ctx);
	if (mdcd_settings_copy(d, &r.s)) {
		mdcd_refuse(&r, MDC_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (mdcd_read_line(&r, MDCD_REQUEST_TIMEOUT_S, &line))
		goto out;	/* nothing complete arrived: nobody to answer */
	if (mdc_json_parse(line, strlen(line), &env, &ctx) ||
	    !json_object_is_type(env, json_type_object)) {
		mdcd_refuse(&r, MDC_ERR_PARSE, "the request is not a JSON object");
		goto out;
	}
	if (mdcd_authenticate(&r, env, &body))
		goto out;
	/* the client stops waiting for a stuck broker until it sees this */
	{
		json_object *acc = json_object_new_object();

		if (acc && !json_object_object_add(acc, "accepted", json_object_new_boolean(1)))
			mdcd_send(&r, acc);
		json_object_put(acc);
	}
	if (mdc_json_parse(body, strlen(body), &r.body, &ctx) ||
	    !json_object_is_type(r.body, json_type_object)) {
		mdcd_refuse(&r, MDC_ERR_PARSE, "the request body is not a JSON object");
		goto out;
	}
	opname = mdc_json_get_str(r.body, "op", "");
	for (i = 0; i < sizeof(mdcd_ops) / sizeof(mdcd_ops[0]); i++)
		if (!strcmp(opname, mdcd_ops[i].name))
			break;
	if (i == sizeof(mdcd_ops) / sizeof(mdcd_ops[0])) {
		mdcd_refuse(&r, MDC_ERR_USAGE, "unknown request '%s'", opname);
		goto out;
	}
	mdc_log(MDC_LOG_DEBUG, "%s from %s (uid %ld)", opname, r.peer.user, (long) r.peer.uid);
	mdcd_ops[i].fn(&r, &result, &ctx);
	mdcd_answer(&r, &ctx, result);
	result = NULL;
out:
	json_object_put(result);
	json_object_put(r.body);
	json_object_put(env);
	free(line);
	mdc_buf_free(&r.in);
	mdc_settings_free(&r.s);
}
