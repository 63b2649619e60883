/* mdc_api.c - typed REST calls on the managed API: URL building, the
 * bearer token, Google error bodies (C15) and the only retries C15 allows
 * (GETs, which include operation polls, on 503/429/connection errors).
 * (owner: client) */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "mdc_broker.h"
#include "mdc_buf.h"
#include "mdc_auth.h"
#include "mdc_client_int.h"
#include "mdc_http.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_proc.h"
#include "mdc_str.h"

#define MDC_RETRIES 5
#define MDC_RETRY_CAP_S 30.0
/* the most pages a list follows: a guard against a server that hands the
 * same token back, not a limit anyone meets */
#define MDC_LIST_PAGES_MAX 10000

int mdc_client_new(const struct mdc_settings *s, struct mdc_client **out, struct mdc_ctx *ctx)
{
	struct mdc_client *c = NULL;
	bool is_http = false, loopback = false;
	const char *env;
	size_t n;
	int rc = 0;

	*out = NULL;
	if (s->broker && *s->broker)	/* mdcd holds the token: see mdc_broker.c */
		return mdc_broker_client_new(s, out, ctx);
	if (!s->endpoint || !*s->endpoint)
		return mdc_fail(ctx, MDC_ERR_USAGE, "no endpoint: use --endpoint URL or MDC_ENDPOINT");
	if (mdc_has_ctrl(s->endpoint) || strchr(s->endpoint, ' '))
		return mdc_fail(ctx, MDC_ERR_INVAL, "endpoint '%s' contains spaces or control characters",
				s->endpoint);
	if (!mdc_startswith(s->endpoint, "https://") && !mdc_startswith(s->endpoint, "http://"))
		return mdc_fail(ctx, MDC_ERR_INVAL, "endpoint '%s': use an https:// URL", s->endpoint);
	if ((rc = mdc_url_check(s->endpoint, &is_http, &loopback, ctx))) {
		mdc_ctx_prefix(ctx, "endpoint");
		return rc;
	}
	if (is_http && !loopback)
		return mdc_fail(ctx, MDC_ERR_REFUSED,
				"endpoint '%s': plain http is refused for a non-loopback host (the token "
				"would travel in clear); use https://", s->endpoint);
	/* libcurl would say only "error setting certificate file" */
	if (s->ca_cert_file && access(s->ca_cert_file, R_OK))
		return mdc_fail(ctx, MDC_ERR_INVAL, "CACertFile '%s': %s (MDC_CA_CERT_FILE or "
				"CACertFile in mdc.conf names the CA certificates https trusts)",
				s->ca_cert_file, strerror(errno));
	if (!(c = calloc(1, sizeof(*c)))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	c->t = &mdc_transport_api;
	if (!(c->endpoint = strdup(s->endpoint)) ||
	    (s->token_file && !(c->token_file = strdup(s->token_file))) ||
	    (s->ca_cert_file && !(c->ca_cert_file = strdup(s->ca_cert_file)))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	n = strlen(c->endpoint);
	while (n > 0 && c->endpoint[n - 1] == '/')
		c->endpoint[--n] = '\0';
	c->loopback = is_http;
	c->connect_timeout_s = 10;
	c->timeout_s = 60;
	c->max_retries = MDC_RETRIES;
	c->retry_base_s = 1.0;
	c->retry_cap_s = MDC_RETRY_CAP_S;
	c->retry_after_s = -1;
	/* tests shorten the backoff; the shape stays the same */
	if ((env = getenv("MDC_RETRY_BASE_MS")) && *env)
		c->retry_base_s = atof(env) / 1000.0;
	if ((env = getenv("MDC_HTTP_TIMEOUT")) && atol(env) > 0)
		c->timeout_s = atol(env);
	srand((unsigned) time(NULL) ^ (unsigned) getpid());
	*out = c;
	c = NULL;
out:
	mdc_client_free(c);
	return rc;
}

void mdc_client_set_retry_notices(struct mdc_client *c, bool on)
{
	if (c)
		c->retry_notices = on;
}

void mdc_client_free(struct mdc_client *c)
{
	if (!c)
		return;
	mdc_auth_forget(c);
	mdc_http_close(c->http);
	free(c->endpoint);
	free(c->token_file);
	free(c->ca_cert_file);
	free(c->broker);
	free(c->munge_socket);
	free(c);
}

double mdc_duration_parse(const char *s)
{
	char *end;
	double d;

	if (!s)
		return -1;
	d = strtod(s, &end);
	if (end == s || d < 0 || strcmp(end, "s"))
		return -1;
	return d;
}

double mdc_backoff(unsigned attempt, double base_s, double cap_s)
{
	double d = base_s * pow(2.0, attempt);

	if (d > cap_s)
		d = cap_s;
	/* full-range jitter would allow ~0; keep at least half the step */
	return d - d * 0.5 * ((double) rand() / RAND_MAX);
}

static const char *mdc_error_code_status(long code)
{
	static const struct { long code; const char *status; } tab[] = {
		{ 400, "INVALID_ARGUMENT" }, { 401, "UNAUTHENTICATED" },
		{ 403, "PERMISSION_DENIED" }, { 404, "NOT_FOUND" }, { 409, "ABORTED" },
		{ 429, "RESOURCE_EXHAUSTED" }, { 500, "INTERNAL" }, { 501, "UNIMPLEMENTED" },
		{ 503, "UNAVAILABLE" }, { 504, "DEADLINE_EXCEEDED" },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].code == code)
			return tab[i].status;
	return "HTTP_ERROR";
}

/* Which enum mdc_err a Google status means (exit codes differ). */
static enum mdc_err mdc_status_err(long code, const char *status)
{
	static const struct { const char *status; enum mdc_err err; } tab[] = {
		{ "NOT_FOUND", MDC_ERR_NOTFOUND }, { "UNAUTHENTICATED", MDC_ERR_AUTH },
		{ "PERMISSION_DENIED", MDC_ERR_AUTH }, { "ABORTED", MDC_ERR_CONFLICT },
		{ "FAILED_PRECONDITION", MDC_ERR_CONFLICT }, { "ALREADY_EXISTS", MDC_ERR_CONFLICT },
		{ "DEADLINE_EXCEEDED", MDC_ERR_TIMEOUT },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (status && !strcmp(tab[i].status, status))
			return tab[i].err;
	if (code == 404)
		return MDC_ERR_NOTFOUND;
	if (code == 401 || code == 403)
		return MDC_ERR_AUTH;
	if (code == 409)
		return MDC_ERR_CONFLICT;
	return MDC_ERR_API;
}

/* "; field 'x': why" for each BadRequest violation, and RetryInfo's delay. */
static void mdc_error_details(json_object *details, struct mdc_buf *b, double *retry)
{
	size_t n = json_object_is_type(details, json_type_array) ? json_object_array_length(details) : 0;
	bool first = true;

	for (size_t i = 0; i < n; i++) {
		json_object *d = json_object_array_get_idx(details, i), *fv;
		const char *type = mdc_json_get_str(d, "@type", "");

		if (strstr(type, "RetryInfo")) {
			double r = mdc_duration_parse(mdc_json_get_str(d, "retry_delay", NULL));

			if (r >= 0)
				*retry = r;
			continue;
		}
		if (!(fv = mdc_json_get_arr(d, "field_violations")))
			continue;
		for (size_t j = 0; j < json_object_array_length(fv); j++) {
			json_object *v = json_object_array_get_idx(fv, j);

			mdc_buf_addf(b, "%sfield '%s': %s", first ? " (" : "; ",
				     mdc_json_get_str(v, "field", "?"),
				     mdc_json_get_str(v, "description", "invalid"));
			first = false;
		}
	}
	if (!first)
		mdc_buf_addc(b, ')');
}

int mdc_api_error(long http_code, const char *body, size_t len, double *retry_delay_s,
		  struct mdc_ctx *ctx)
{
	struct mdc_buf msg = MDC_BUF_INIT;
	json_object *obj = NULL, *err;
	const char *status = NULL, *text = NULL;
	struct mdc_ctx tmp;
	double retry = -1;
	enum mdc_err e;

	mdc_ctx_clear(&tmp);
	if (body && len && !mdc_json_parse(body, len, &obj, &tmp) &&
	    (err = mdc_json_get_obj(obj, "error"))) {
		status = mdc_json_get_str(err, "status", NULL);
		text = mdc_json_get_str(err, "message", NULL);
		if (!status)
			status = mdc_error_code_status(http_code);
		mdc_buf_addf(&msg, "%s: %s", status, text ? text : "(no message)");
		mdc_error_details(mdc_json_get_arr(err, "details"), &msg, &retry);
	} else {
		status = mdc_error_code_status(http_code);
		mdc_buf_addf(&msg, "%s: HTTP %ld from the API", status, http_code);
	}
	e = mdc_status_err(http_code, status);
	if (ctx && ctx->err == MDC_OK) {
		/* keep it on one line whatever the server sent */
		for (char *p = msg.s; p && *p; p++)
			if ((unsigned char) *p < ' ')
				*p = ' ';
		mdc_fail(ctx, e, "%s", mdc_buf_str(&msg));
		ctx->http_code = (int) http_code;
		snprintf(ctx->status, sizeof(ctx->status), "%s", status);
	}
	if (retry_delay_s)
		*retry_delay_s = retry;
	mdc_buf_free(&msg);
	json_object_put(obj);
	return e;
}

/* An object answer keeps the answer as received (its root's userdata), so
 * a write can send back what it did not change in the service's own
 * names and bytes: snake_case names, map keys mdcctl does not know are map
 * keys and numbers' digits do not survive a round trip through the
 * normalised form (issue 25.3). */
struct mdc_api_raw {
	const char *tag;
	json_object *raw;
};

static const char mdc_api_raw_tag[] = "mdc_api_raw";

static void mdc_api_raw_free(json_object *o, void *ud)
{
	struct mdc_api_raw *r = ud;

	if (mdc_json_userdata_reentered(o))
		return;
	json_object_put(r->raw);
	free(r);
}

static int mdc_api_keep_raw(json_object *norm, json_object *raw)
{
	struct mdc_api_raw *r = malloc(sizeof(*r));

	if (!r)
		return MDC_ERR_NOMEM;
	r->tag = mdc_api_raw_tag;
	r->raw = json_object_get(raw);
	json_object_set_userdata(norm, r, mdc_api_raw_free);
	return 0;
}

json_object *mdc_api_raw(const json_object *resp)
{
	const struct mdc_api_raw *r = resp ? json_object_get_userdata((json_object *) resp) : NULL;

	return r && r->tag == mdc_api_raw_tag ? r->raw : NULL;
}

/* mdc_api_call over HTTP: the API transport's call */
static int api_call(struct mdc_client *c, const char *method, const char *path,
		    const char *query, const json_object *body, json_object **resp,
		    struct mdc_ctx *ctx)
{
	struct mdc_buf url = MDC_BUF_INIT, auth = MDC_BUF_INIT;
	struct mdc_http_resp r = { 0 };
	const char *hdrs[3] = { "Accept: application/json", NULL, NULL };
	bool idempotent = !strcmp(method, "GET");
	bool refreshed = false;
	const char *token;
	json_object *obj = NULL, *norm;
	struct mdc_ctx tmp;
	double wait;
	int rc;

	if (resp)
		*resp = NULL;
	if (mdc_buf_addf(&url, "%s/%s%s%s", c->endpoint, path, query && *query ? "?" : "",
			 query && *query ? query : "")) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if ((rc = mdc_client_http(c, ctx)) || (rc = mdc_auth_token(c, &token, ctx)))
		goto out;
	if (token) {
		if (mdc_buf_addf(&auth, "Authorization: Bearer %s", token)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		hdrs[1] = auth.s;
	}
	for (unsigned attempt = 0;; attempt++) {
		struct mdc_http_req req = {
			.method = method, .url = url.s, .headers = hdrs,
			.body = body ? mdc_json_str(body, false) : NULL,
			.connect_timeout_s = c->connect_timeout_s, .timeout_s = c->timeout_s,
			.ca_file = c->ca_cert_file,
		};
		bool last = !idempotent || attempt >= c->max_retries;

		mdc_debug("%s %s", method, url.s);
		mdc_ctx_clear(&tmp);
		mdc_http_resp_free(&r);
		rc = mdc_http_send(c->http, &req, &r, &tmp);
		if (rc) {
			if (last || (rc != MDC_ERR_HTTP && rc != MDC_ERR_TIMEOUT)) {
				mdc_fail(ctx, rc, "%s", tmp.msg);
				goto out;
			}
			wait = mdc_backoff(attempt, c->retry_base_s, c->retry_cap_s);
			mdc_log(c->retry_notices ? MDC_LOG_WARN : MDC_LOG_INFO,
				"%s; retrying in %.1f s (%u of %u)", tmp.msg, wait, attempt + 1,
				c->max_retries);
			if (!mdc_sleep(wait, NULL))
				goto interrupted;
			continue;
		}
		c->retry_after_s = r.retry_after_s;
		if (r.status >= 200 && r.status < 300)
			break;
		/* a rejected token from a source that expires (metadata server,
		 * gcloud): fetch a fresh one once; a 401 request was not applied,
		 * so this is safe for writes too */
		if (r.status == 401 && token && c->token_expiry && !refreshed) {
			refreshed = true;
			mdc_auth_reject(c);
			mdc_buf_reset(&auth);
			if ((rc = mdc_auth_token(c, &token, ctx)))
				goto out;
			if (token && mdc_buf_addf(&auth, "Authorization: Bearer %s", token)) {
				rc = mdc_nomem(ctx);
				goto out;
			}
			hdrs[1] = token ? auth.s : NULL;
			attempt--;
			continue;
		}
		mdc_api_error(r.status, r.body, r.len, &wait, &tmp);
		if (last || (r.status != 503 && r.status != 429)) {
			rc = mdc_api_error(r.status, r.body, r.len, NULL, ctx);
			goto out;
		}
		/* the server's word wins over our backoff */
		if (r.retry_after_s >= 0 && r.retry_after_s > wait)
			wait = r.retry_after_s;
		if (wait < 0)
			wait = mdc_backoff(attempt, c->retry_base_s, c->retry_cap_s);
		if (wait > c->retry_cap_s)
			wait = c->retry_cap_s;
		mdc_log(c->retry_notices ? MDC_LOG_WARN : MDC_LOG_INFO,
			"%s; retrying in %.1f s (%u of %u)", tmp.msg, wait, attempt + 1, c->max_retries);
		if (!mdc_sleep(wait, NULL))
			goto interrupted;
	}
	/* empty bodies (DELETE of some resources) are fine */
	if (resp && r.len && strspn(r.body, " \t\r\n") < r.len) {
		if ((rc = mdc_json_parse(r.body, r.len, &obj, ctx))) {
			mdc_ctx_prefix(ctx, "%s %s: the API answered", method, path);
			goto out;
		}
		if (!(norm = mdc_json_normalize(obj, MDC_CASE_SNAKE)) ||
		    (json_object_is_type(norm, json_type_object) && mdc_api_keep_raw(norm, obj))) {
			json_object_put(norm);
			rc = mdc_nomem(ctx);
			goto out;
		}
		*resp = norm;
	}
	rc = 0;
	goto out;
interrupted:
	/* only GETs are retried, so nothing was changed by the attempts */
	rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "interrupted while waiting to retry %s %s (%s)",
		      method, path, tmp.msg);
out:
	json_object_put(obj);
	mdc_http_resp_free(&r);
	if (auth.s)
		memset(auth.s, 0, auth.len);
	mdc_buf_free(&auth);
	mdc_buf_free(&url);
	return rc;
}

const struct mdc_transport mdc_transport_api = {
	.name = "api", .call = api_call, .update = mdc_update_direct,
};

int mdc_api_call(struct mdc_client *c, const char *method, const char *path,
		 const char *query, const json_object *body, json_object **resp,
		 struct mdc_ctx *ctx)
{
	return c->t->call(c, method, path, query, body, resp, ctx);
}

/* Percent-encode S onto B: all but RFC 3986's unreserved bytes.  Spelled
 * out rather than isalnum(), which a Latin-1 locale widens to bytes > 127. */
static int mdc_query_escape(struct mdc_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
		char esc[4] = { '%', hex[*p >> 4], hex[*p & 15], '\0' };
		bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || strchr("-._~", *p);

		if (plain ? mdc_buf_addc(b, (char) *p) : mdc_buf_adds(b, esc))
			return MDC_ERR_NOMEM;
	}
	return 0;
}

int mdc_query_add(struct mdc_buf *q, const char *key, const char *val)
{
	if (mdc_buf_addf(q, "%s%s=", q->len ? "&" : "", key) || mdc_query_escape(q, val))
		return MDC_ERR_NOMEM;
	return 0;
}

/* One page's query: pageSize, filter, orderBy, then pageToken (service
 * tokens carry '=', '+', '/', hence the encoding). */
static int mdc_list_query(const struct mdc_api_list_opts *o, const char *token,
			  struct mdc_buf *q)
{
	mdc_buf_reset(q);
	if (o && o->page_size > 0 && mdc_buf_addf(q, "pageSize=%ld", o->page_size))
		return MDC_ERR_NOMEM;
	if (o && o->filter && *o->filter && mdc_query_add(q, "filter", o->filter))
		return MDC_ERR_NOMEM;
	if (o && o->order_by && *o->order_by && mdc_query_add(q, "orderBy", o->order_by))
		return MDC_ERR_NOMEM;
	if (token && mdc_query_add(q, "pageToken", token))
		return MDC_ERR_NOMEM;
	return 0;
}

int mdc_api_list(struct mdc_client *c, const char *path, const char *items,
		 const struct mdc_api_list_opts *o, json_object **out, struct mdc_ctx *ctx)
{
	json_object *all = json_object_new_array(), *page = NULL, *arr;
	struct mdc_buf q = MDC_BUF_INIT;
	char *token = NULL;
	int rc = 0;

	*out = NULL;
	if (!all)
		goto nomem;
	for (unsigned pages = 0; pages < MDC_LIST_PAGES_MAX; pages++) {
		const char *next;

		if (mdc_list_query(o, token, &q))
			goto nomem;
		json_object_put(page);
		page = NULL;
		if ((rc = mdc_api_call(c, "GET", path, q.s, NULL, &page, ctx)))
			goto out;
		arr = mdc_json_get_arr(page, items);
		for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
			if (json_object_array_add(all, json_object_get(
							  json_object_array_get_idx(arr, i))))
				goto nomem;
		next = mdc_json_get_str(page, "next_page_token", NULL);
		free(token);
		token = NULL;
		if (!next || !*next)
			break;
		if (!(token = strdup(next)))
			goto nomem;
	}
	*out = all;
	all = NULL;
	goto out;
nomem:
	rc = mdc_nomem(ctx);
out:
	free(token);
	json_object_put(page);
	json_object_put(all);
	mdc_buf_free(&q);
	return rc;
}

const char *mdc_cluster_state(const json_object *cluster, const char *def)
{
	const char *st = mdc_json_get_str(mdc_json_get_obj(cluster, "cluster_status"), "state", NULL);

	return st && *st ? st : mdc_json_get_str(cluster, "state", def);
}

int mdc_cluster_get(struct mdc_client *c, const char *name, json_object **cluster,
		    struct mdc_ctx *ctx)
{
	struct mdc_buf path = MDC_BUF_INIT;
	int rc;

	if (mdc_buf_addf(&path, "v1beta1/%s", name))
		return mdc_nomem(ctx);
	rc = mdc_api_call(c, "GET", path.s, NULL, NULL, cluster, ctx);
	if (rc == 0 && !*cluster)
		rc = mdc_fail(ctx, MDC_ERR_API, "GET %s: empty answer", name);
	mdc_buf_free(&path);
	return rc;
}

int mdc_cluster_patch(struct mdc_client *c, const char *name, const json_object *payload,
		      const struct mdc_strv *mask, enum mdc_update_mode mode,
		      json_object **op, struct mdc_ctx *ctx)
{
	struct mdc_buf path = MDC_BUF_INIT, q = MDC_BUF_INIT;
	const char *sep = "";
	int rc = 0;

	*op = NULL;
	if (mdc_buf_addf(&path, "v1beta1/%s", name))
		goto nomem;
	/* the commas between the paths stay literal: the mask is a list */
	if (mask && mask->n) {
		if (mdc_buf_adds(&q, "updateMask="))
			goto nomem;
		for (size_t i = 0; i < mask->n; i++)
			if (mdc_buf_adds(&q, i ? "," : "") || mdc_query_escape(&q, mask->v[i]))
				goto nomem;
		sep = "&";
	}
	/* UNSPECIFIED is the service's default: not sent (mdc_rules' table) */
	if (mode != MDC_MODE_UNSPECIFIED &&
	    mdc_buf_addf(&q, "%supdateMode=%s", sep, mdc_mode_name(mode)))
		goto nomem;
	rc = mdc_api_call(c, "PATCH", path.s, q.s, payload, op, ctx);
	goto out;
nomem:
	rc = mdc_nomem(ctx);
out:
	mdc_buf_free(&q);
	mdc_buf_free(&path);
	return rc;
}

int mdc_cluster_list(struct mdc_client *c, const char *parent, json_object **list,
		     struct mdc_ctx *ctx)
{
	static const struct mdc_api_list_opts o = { .page_size = 100 };
	struct mdc_buf path = MDC_BUF_INIT;
	int rc;

	*list = NULL;
	if (mdc_buf_addf(&path, "v1beta1/%s/modelDevelopmentClusters", parent))
		return mdc_nomem(ctx);
	rc = mdc_api_list(c, path.s, "model_development_clusters", &o, list, ctx);
	mdc_buf_free(&path);
	return rc;
}

int mdc_cluster_create(struct mdc_client *c, const char *parent, const char *id,
		       const json_object *cluster, json_object **op, struct mdc_ctx *ctx)
{
	struct mdc_buf path = MDC_BUF_INIT, q = MDC_BUF_INIT;
	int rc;

	*op = NULL;
	if (mdc_buf_addf(&path, "v1beta1/%s/modelDevelopmentClusters", parent) ||
	    mdc_query_add(&q, "model_development_cluster_id", id))
		rc = mdc_nomem(ctx);
	else
		rc = mdc_api_call(c, "POST", path.s, q.s, cluster, op, ctx);
	mdc_buf_free(&q);
	mdc_buf_free(&path);
	return rc;
}

int mdc_cluster_delete(struct mdc_client *c, const char *name, json_object **op,
		       struct mdc_ctx *ctx)
{
	struct mdc_buf path = MDC_BUF_INIT;
	int rc;

	*op = NULL;
	if (mdc_buf_addf(&path, "v1beta1/%s", name))
		return mdc_nomem(ctx);
	rc = mdc_api_call(c, "DELETE", path.s, NULL, NULL, op, ctx);
	mdc_buf_free(&path);
	return rc;
}

int mdc_operation_get(struct mdc_client *c, const char *op_name, json_object **op,
		      struct mdc_ctx *ctx)
{
	struct mdc_buf path = MDC_BUF_INIT;
	int rc;

	*op = NULL;
	if (!op_name || !*op_name || mdc_has_ctrl(op_name) || strstr(op_name, "..") ||
	    op_name[0] == '/' || strpbrk(op_name, "?# "))
		return mdc_fail(ctx, MDC_ERR_INVAL,
				"operation name '%s': expected projects/P/locations/L/.../operations/ID",
				op_name ? op_name : "");
	if (mdc_buf_addf(&path, "v1/%s", op_name))
		return mdc_nomem(ctx);
	rc = mdc_api_call(c, "GET", path.s, NULL, NULL, op, ctx);
	if (rc == 0 && !*op)
		rc = mdc_fail(ctx, MDC_ERR_API, "GET operation '%s': empty answer", op_name);
	mdc_buf_free(&path);
	return rc;
}
