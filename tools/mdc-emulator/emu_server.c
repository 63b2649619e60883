/* emu_server.c - the HTTP side of mdc-emulator: libmicrohttpd glue, the
 * request log, auth, fault injection, the route table and answers. */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>
#include "emu_int.h"
#include "emu_slurmrest.h"
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_schema.h"
#include "mdc_str.h"

#define EMU_MAX_BODY (8u << 20)
#define EMU_THREADS 8		/* polling threads (the store lock serialises anyway) */
#define EMU_MAX_CONNS 8192u	/* open connections at most */
#define EMU_IDLE_SECONDS 30	/* an idle connection is closed after this */

/* Google status names, their HTTP codes and gRPC codes. */
static const struct emu_status {
	const char *name;
	int http;
	int grpc;
} emu_statuses[] = {
	{ "INVALID_ARGUMENT", 400, 3 },
	{ "FAILED_PRECONDITION", 400, 9 },
	{ "OUT_OF_RANGE", 400, 11 },
	{ "UNAUTHENTICATED", 401, 16 },
	{ "PERMISSION_DENIED", 403, 7 },
	{ "NOT_FOUND", 404, 5 },
	{ "ABORTED", 409, 10 },
	{ "ALREADY_EXISTS", 409, 6 },
	{ "RESOURCE_EXHAUSTED", 429, 8 },
	{ "CANCELLED", 499, 1 },
	{ "INTERNAL", 500, 13 },
	{ "UNKNOWN", 500, 2 },
	{ "DATA_LOSS", 500, 15 },
	{ "UNIMPLEMENTED", 501, 12 },
	{ "UNAVAILABLE", 503, 14 },
	{ "DEADLINE_EXCEEDED", 504, 4 },
};

int emu_http_code(const char *status)
{
	for (size_t i = 0; i < sizeof(emu_statuses) / sizeof(emu_statuses[0]); i++)
		if (!strcmp(status, emu_statuses[i].name))
			return emu_statuses[i].http;
	return 400;
}

static const char *emu_status_of_http(int code)
{
	for (size_t i = 0; i < sizeof(emu_statuses) / sizeof(emu_statuses[0]); i++)
		if (emu_statuses[i].http == code)
			return emu_statuses[i].name;
	return code >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
}

int emu_reply(struct emu_response *out, int status, json_object *body)
{
	json_object_put(out->body);
	out->status = status;
	out->body = body;
	return 0;
}

/* The error body with one detail (stolen, may be NULL), after ErrorInfo
 * when INFO. */
static int emu_reply_errv_info(struct emu_response *out, const char *status, json_object *detail,
			       bool info_too, const char *fmt, va_list ap)
{
	char msg[2048];
	json_object *root = json_object_new_object(), *err = json_object_new_object();
	json_object *details = json_object_new_array();

	vsnprintf(msg, sizeof(msg), fmt, ap);
	json_object_object_add(err, "code", json_object_new_int(emu_http_code(status)));
	json_object_object_add(err, "message", json_object_new_string(msg));
	json_object_object_add(err, "status", json_object_new_string(status));
	if (info_too) {
		json_object *info = json_object_new_object(), *imeta = json_object_new_object();

		json_object_object_add(info, "@type",
				       json_object_new_string("type.googleapis.com/google.rpc.ErrorInfo"));
		json_object_object_add(info, "reason", json_object_new_string(status));
		json_object_object_add(info, "domain", json_object_new_string("aiplatform.googleapis.com"));
		json_object_object_add(imeta, "service", json_object_new_string("aiplatform.googleapis.com"));
		json_object_object_add(info, "metadata", imeta);
		json_object_array_add(details, info);
	}
	if (detail)
		json_object_array_add(details, detail);
	/* the service sends no empty details list (its 409 has none) */
	if (json_object_array_length(details))
		json_object_object_add(err, "details", details);
	else
		json_object_put(details);
	json_object_object_add(root, "error", err);
	return emu_reply(out, emu_http_code(status), root);
}

static int emu_reply_errv(struct emu_response *out, const char *status, json_object *detail,
			  const char *fmt, va_list ap)
{
	return emu_reply_errv_info(out, status, detail, true, fmt, ap);
}

int emu_reply_error(struct emu_response *out, const char *status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emu_reply_errv(out, status, NULL, fmt, ap);
	va_end(ap);
	return 0;
}

static json_object *emu_bad_request_detail(const char *field, const char *desc)
{
	json_object *d = json_object_new_object(), *fvs = json_object_new_array();
	json_object *fv = json_object_new_object();

	json_object_object_add(d, "@type",
			       json_object_new_string("type.googleapis.com/google.rpc.BadRequest"));
	json_object_object_add(fv, "field", json_object_new_string(field));
	json_object_object_add(fv, "description", json_object_new_string(desc));
	json_object_array_add(fvs, fv);
	json_object_object_add(d, "field_violations", fvs);
	return d;
}

int emu_reply_bad_field(struct emu_response *out, const char *field, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return emu_reply_error_detail(out, "INVALID_ARGUMENT",
				      emu_bad_request_detail(field, msg), "%s", msg);
}

int emu_reply_error_detail(struct emu_response *out, const char *status, json_object *detail,
			   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emu_reply_errv(out, status, detail, fmt, ap);
	va_end(ap);
	return 0;
}

static int emu_reply_status_detail(struct emu_response *out, const char *status,
				   json_object *detail, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int emu_reply_status_detail(struct emu_response *out, const char *status,
				   json_object *detail, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emu_reply_errv_info(out, status, detail, false, fmt, ap);
	va_end(ap);
	return 0;
}

int emu_reply_status(struct emu_response *out, const char *status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emu_reply_errv_info(out, status, NULL, false, fmt, ap);
	va_end(ap);
	return 0;
}

int emu_reply_transcoding(struct emu_response *out, const char *field, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return emu_reply_status_detail(out, "INVALID_ARGUMENT", emu_bad_request_detail(field, msg),
				       "%s", msg);
}

/* A field of the body is named model_development_cluster.PATH; the
 * request's own parameters (update_mask, ...) by their name. */
static void emu_full_field(const char *field, char *buf, size_t sz)
{
	static const char *const params[] = {
		"update_mask", "update_mode", "model_development_cluster_id", "page_size",
		"page_token",
	};
	bool param = !*field || mdc_startswith(field, "model_development_cluster");

	for (size_t i = 0; !param && i < sizeof(params) / sizeof(params[0]); i++)
		param = !strcmp(field, params[i]);
	snprintf(buf, sz, "%s%s%s", param ? "" : "model_development_cluster", param ? "" : ".",
		 *field ? field : "model_development_cluster");
}

int emu_reply_found_errors(struct emu_response *out, const char *field, const char *fmt, ...)
{
	char msg[1800], full[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emu_full_field(field, full, sizeof(full));
	/* the service's validation lists its findings, tab-separated */
	return emu_reply_status_detail(out, "INVALID_ARGUMENT", emu_bad_request_detail(full, msg),
				       "List of found errors:\t1.Field: %s; Message: %s\t", full, msg);
}

int emu_reply_schema_found(struct emu_response *out, const struct mdc_schema_result *res,
			   const struct mdc_ctx *ctx)
{
	size_t kept = res->nfound < MDC_SCHEMA_MAX_FOUND ? res->nfound : MDC_SCHEMA_MAX_FOUND;
	struct mdc_buf msg = MDC_BUF_INIT;
	json_object *d, *fvs;
	int rc;

	if (!kept)
		return emu_reply_found_errors(out, res->field, "%s", ctx->msg);
	d = json_object_new_object();
	fvs = json_object_new_array();
	json_object_object_add(d, "@type",
			       json_object_new_string("type.googleapis.com/google.rpc.BadRequest"));
	mdc_buf_adds(&msg, "List of found errors:\t");
	/* one numbered finding and one field violation each */
	for (size_t i = 0; i < kept; i++) {
		json_object *fv = json_object_new_object();
		char full[512];

		emu_full_field(res->found[i].field, full, sizeof(full));
		mdc_buf_addf(&msg, "%zu.Field: %s; Message: %s\t", i + 1, full, res->found[i].msg);
		json_object_object_add(fv, "field", json_object_new_string(full));
		json_object_object_add(fv, "description", json_object_new_string(res->found[i].msg));
		json_object_array_add(fvs, fv);
	}
	json_object_object_add(d, "field_violations", fvs);
	rc = emu_reply_status_detail(out, "INVALID_ARGUMENT", d, "%s", mdc_buf_str(&msg));
	mdc_buf_free(&msg);
	return rc;
}

/* Rule violations carry the field they name (mdc_rules_last_field) into a
 * BadRequest detail, as the service does. */
int emu_reply_ctx(struct emu_response *out, const struct mdc_ctx *ctx)
{
	switch (ctx->err) {
	case MDC_ERR_INVAL:
	case MDC_ERR_REFUSED:
	case MDC_ERR_PARSE: {
		return emu_reply_found_errors(out, mdc_rules_last_field(), "%s", ctx->msg);
	}
	case MDC_ERR_NOTFOUND:
		return emu_reply_error(out, "NOT_FOUND", "%s", ctx->msg);
	case MDC_ERR_CONFLICT:
		return emu_reply_error(out, "ABORTED", "%s", ctx->msg);
	case MDC_ERR_NOMEM:
	default:
		return emu_reply_error(out, "INTERNAL", "%s", ctx->msg[0] ? ctx->msg : "internal error");
	}
}

/* Internal keys ('_' prefix) never leave the emulator. */
static void emu_strip_internal(json_object *o)
{
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			emu_strip_internal(json_object_array_get_idx(o, i));
		return;
	}
	if (!json_object_is_type(o, json_type_object))
		return;
	for (;;) {
		const char *victim = NULL;

		json_object_object_foreach(o, k, v) {
			if (k[0] == '_') {
				victim = k;
				break;
			}
			emu_strip_internal(v);
		}
		if (!victim)
			break;
		json_object_object_del(o, victim);
	}
}

/* New reference: OP with the response it keeps as text (emu_op_freeze)
 * as a tree again, in its place; OP itself when it has none. */
static json_object *emu_thaw_op(json_object *op)
{
	json_object *text = NULL, *c, *resp = NULL;
	struct mdc_ctx ctx;

	if (!json_object_is_type(op, json_type_object) ||
	    !json_object_object_get_ex(op, EMU_RESPONSE_TEXT, &text))
		return json_object_get(op);
	if (!(c = json_object_new_object()))
		return NULL;
	json_object_object_foreach(op, k, v) {
		if (strcmp(k, EMU_RESPONSE_TEXT))
			json_object_object_add(c, k, json_object_get(v));
		else if (!mdc_json_parse(json_object_get_string(v), (size_t) json_object_get_string_len(v),
					 &resp, &ctx))
			json_object_object_add(c, "response", resp);
	}
	return c;
}

/* New reference: OBJ with its operations' responses as trees: OBJ is an
 * operation, or holds them in a list member (a list of operations). */
static json_object *emu_thaw(const json_object *obj)
{
	json_object *c;

	if (json_object_object_get_ex(obj, EMU_RESPONSE_TEXT, NULL))
		return emu_thaw_op((json_object *) obj);
	if (!(c = json_object_new_object()))
		return NULL;
	json_object_object_foreach((json_object *) obj, k, v) {
		json_object *arr = NULL;

		if (json_object_is_type(v, json_type_array) && (arr = json_object_new_array()))
			for (size_t i = 0, n = json_object_array_length(v); i < n; i++)
				json_object_array_add(arr, emu_thaw_op(json_object_array_get_idx(v, i)));
		json_object_object_add(c, k, arr ? arr : json_object_get(v));
	}
	return c;
}

json_object *emu_public(const json_object *obj)
{
	json_object *top = NULL, *c, *thawed = NULL;

	/* internal top-level keys (an operation's "_final", a whole
	 * resource) are left out before the copy, not after */
	if (json_object_is_type(obj, json_type_object)) {
		if (!(thawed = emu_thaw(obj)) || !(top = json_object_new_object())) {
			json_object_put(thawed);
			return NULL;
		}
		json_object_object_foreach(thawed, k, v)
			if (k[0] != '_')
				json_object_object_add(top, k, json_object_get(v));
		obj = top;
	}
	c = mdc_json_normalize(obj, MDC_CASE_CAMEL);
	json_object_put(top);
	json_object_put(thawed);
	if (c)
		emu_strip_internal(c);
	return c;
}

/* --- request log, auth, faults -------------------------------------------- */

static void emu_log_request(struct emu *e, const struct emu_request *r)
{
	json_object *line;

	if (!e->log)
		return;
	line = json_object_new_object();
	json_object_object_add(line, "method", json_object_new_string(r->method));
	json_object_object_add(line, "path", json_object_new_string(r->path));
	json_object_object_add(line, "query", json_object_get(r->query));
	json_object_object_add(line, "body", json_object_get(r->raw_body));
	pthread_mutex_lock(&e->log_lock);
	fprintf(e->log, "%s\n", mdc_json_str(line, false));
	fflush(e->log);
	pthread_mutex_unlock(&e->log_lock);
	json_object_put(line);
}

static bool emu_is_write(const char *method)
{
	return strcmp(method, "GET") && strcmp(method, "HEAD");
}

/* Compare a presented token with ours in time that does not depend on
 * where they differ. */
static bool emu_token_eq(const char *given, const char *want)
{
	size_t gl = strlen(given), wl = strlen(want);
	unsigned char d = (unsigned char) (gl != wl);

	for (size_t i = 0; i < wl; i++)
		d |= (unsigned char) (want[i] ^ given[i < gl ? i : 0]);
	return d == 0;
}

/* 0 = allowed, else the answer is filled. */
static int emu_auth(struct emu *e, struct MHD_Connection *c, const struct emu_request *r,
		    struct emu_response *out)
{
	const char *h, *tok;

	if (!e->token && !e->ro_token)
		return 0;
	h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	tok = h && !strncasecmp(h, "Bearer ", 7) ? h + 7 : NULL;
	if (tok && e->token && emu_token_eq(tok, e->token))
		return 0;
	if (tok && e->ro_token && emu_token_eq(tok, e->ro_token)) {
		if (!emu_is_write(r->method))
			return 0;
		if (emu_slurmrest_is_call(r)) {	/* a reader has no .run */
			emu_slurmrest_denied(r, out);
			return 1;
		}
		emu_reply_error(out, "PERMISSION_DENIED",
				"permission denied: the token is read-only; '%s %s' needs a writer token",
				r->method, r->path);
		return 1;
	}
	emu_reply_error(out, "UNAUTHENTICATED",
			"request had invalid authentication credentials: expected an OAuth 2 "
			"access token in 'Authorization: Bearer'");
	return 1;
}

static bool emu_fault_matches(const struct emu_fault *f, const char *method)
{
	return !strcmp(f->method, "*") || !strcasecmp(f->method, method);
}

enum emu_fault_act { EMU_ACT_NONE, EMU_ACT_DROP, EMU_ACT_ANSWERED };

static enum emu_fault_act emu_faults(struct emu *e, const struct emu_request *r,
				     struct emu_response *out)
{
	for (size_t i = 0; i < e->nfaults; i++) {
		const struct emu_fault *f = &e->faults[i];

		if (!emu_fault_matches(f, r->method))
			continue;
		switch (f->kind) {
		case EMU_FAULT_LATENCY:
			usleep((useconds_t) f->ms * 1000);
			break;
		case EMU_FAULT_DROP:
			if (emu_random(e) < f->rate)
				return EMU_ACT_DROP;
			break;
		case EMU_FAULT_CODE:
			if (emu_random(e) >= f->rate)
				break;
			if (f->code == 429) {
				json_object *d = json_object_new_object();

				json_object_object_add(d, "@type", json_object_new_string(
					"type.googleapis.com/google.rpc.RetryInfo"));
				json_object_object_add(d, "retry_delay", json_object_new_string("1s"));
				emu_reply_error_detail(out, "RESOURCE_EXHAUSTED", d,
						       "quota exceeded (injected fault): retry after 1s");
				out->retry_after = 1;
			} else {
				emu_reply_error(out, emu_status_of_http(f->code),
						"injected fault %d for %s %s", f->code, r->method, r->path);
				out->status = f->code;
				{
					json_object *err = NULL;

					if (json_object_object_get_ex(out->body, "error", &err))
						json_object_object_add(err, "code",
								       json_object_new_int(f->code));
				}
			}
			return EMU_ACT_ANSWERED;
		case EMU_FAULT_OPFAIL:
			break;
		}
	}
	return EMU_ACT_NONE;
}

/* --- routing ------------------------------------------------------------ */

typedef int (*emu_route_fn)(struct emu *e, struct emu_request *r, struct emu_response *out);

static int emu_op_route(struct emu *e, struct emu_request *r, struct emu_response *out)
{
	json_object *op;

	if (strcmp(r->method, "GET"))
		return emu_reply_error(out, "NOT_FOUND", "method %s not allowed on operation '%s'",
				       r->method, r->name);
	op = emu_op_get(e, r->name);
	if (!op)
		op = emu_pr_op_find(e, r->name);
	if (!op)
		return emu_reply_error(out, "NOT_FOUND", "operation '%s' not found", r->name);
	return emu_reply(out, 200, json_object_get(op));
}

/* GET .../operations: every operation under that parent, by name. */
static int emu_op_list(struct emu *e, struct emu_request *r, struct emu_response *out)
{
	char prefix[1100];
	json_object *all, *res;

	if (strcmp(r->method, "GET"))
		return emu_reply_error(out, "NOT_FOUND", "method %s not allowed on '%s'", r->method, r->path);
	snprintf(prefix, sizeof(prefix), "%s/", r->name);
	all = emu_store_list(e, "operation", prefix);
	{
		/* a cluster's operations are named with the project's number */
		char num[1100];
		json_object *more;

		emu_parent_numbered(e, prefix, false, num, sizeof(num));
		if (all && strcmp(num, prefix) && (more = emu_store_list(e, "operation", num))) {
			for (size_t i = 0; i < json_object_array_length(more); i++)
				json_object_array_add(all, json_object_get(json_object_array_get_idx(more, i)));
			json_object_put(more);
		}
	}
	res = json_object_new_object();
	if (!all || !res) {
		json_object_put(all);
		json_object_put(res);
		return emu_reply_error(out, "INTERNAL", "out of memory");
	}
	json_object_object_add(res, "operations", all);
	return emu_reply(out, 200, res);
}

/* Dispatch on the path shape; the lock is held. */
static int emu_route(struct emu *e, struct emu_request *r, struct emu_response *out)
{
	/* the body in snake_case; the cluster routes check its names first
	 * and skip the copy when they are snake_case already */
	if (r->raw_body && !strstr(r->path, "/modelDevelopmentClusters") &&
	    !(r->body = mdc_json_normalize(r->raw_body, MDC_CASE_SNAKE)))
		return emu_reply_error(out, "INTERNAL", "out of memory");
	if (mdc_startswith(r->path, "/emulator/v1/") && !emu_pr_control(e, r, out))
		return 0;
	if (mdc_startswith(r->path, "/emulator/v1/"))
		return emu_images_route(e, r, out);
	if (!r->version)
		return emu_reply_error(out, "NOT_FOUND", "no route for '%s': paths start with "
				       "/v1/ or /v1beta1/", r->path);
	if (strstr(r->name, "/operations/"))
		return emu_op_route(e, r, out);
	if (mdc_startswith(r->name, "projects/") && strlen(r->name) > 11 &&
	    !strcmp(r->name + strlen(r->name) - 11, "/operations"))
		return emu_op_list(e, r, out);
	if (strstr(r->path, "/persistentResources") || strstr(r->path, "/pipelineJobs"))
		return emu_pr_route(e, r, out);
	if (strstr(r->path, "/modelDevelopmentClusters"))
		return emu_cluster_route(e, r, out);	/* normalises the body itself */
	return emu_reply_error(out, "NOT_FOUND", "no route for %s '%s'", r->method, r->path);
}

/* --- libmicrohttpd ---------------------------------------------------------- */

struct emu_conn {
	struct mdc_buf body;
	bool too_big;
};

static enum MHD_Result emu_query_iter(void *cls, enum MHD_ValueKind kind, const char *key,
				      const char *value)
{
	(void) kind;
	json_object_object_add(cls, key, json_object_new_string(value ? value : ""));
	return MHD_YES;
}

/* The answer's text (malloc'd): built while the caller still holds the
 * lock when the body may share objects with the store (an operation is
 * both answered and stored, and the tick changes it in place).  The body
 * is released here too, under that same lock. */
static char *emu_answer_text(struct emu_response *out)
{
	json_object *pub = NULL;
	char *text;

	if (!out->body)
		return strdup("");
	pub = emu_public(out->body);
	text = strdup(pub ? mdc_json_str(pub, true) : "{}");
	json_object_put(pub);
	json_object_put(out->body);
	out->body = NULL;
	return text;
}

/* Queue STATUS and TEXT (stolen); nothing here touches the store. */
static enum MHD_Result emu_send(struct MHD_Connection *c, const struct emu_response *out,
				char *text)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char ra[16];

	if (!text)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json; charset=UTF-8");
	if (out->retry_after > 0) {
		snprintf(ra, sizeof(ra), "%d", out->retry_after);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, ra);
	}
	ret = MHD_queue_response(c, (unsigned) out->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result emu_access(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct emu *e = cls;
	struct emu_conn *cc = *con_cls;
	struct emu_request r = { 0 };
	struct emu_response out = { 0 };
	struct mdc_ctx ctx;
	enum MHD_Result ret = MHD_NO;
	char verbuf[16] = "", *text = NULL;
	bool bad_json = false;

	(void) version;
	if (!cc) {
		cc = calloc(1, sizeof(*cc));
		if (!cc)
			return MHD_NO;
		*con_cls = cc;
		return MHD_YES;
	}
	if (*upload_size) {
		if (cc->body.len + *upload_size > EMU_MAX_BODY)
			cc->too_big = true;
		else if (mdc_buf_add(&cc->body, upload, *upload_size))
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}

	mdc_ctx_clear(&ctx);
	r.method = method;
	r.path = url;
	r.query = json_object_new_object();
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, emu_query_iter, r.query);
	if (cc->body.len && !cc->too_big) {
		r.text = cc->body.s;
		r.text_len = cc->body.len;
		/* a cluster PATCH is parsed under the lock, against the
		 * cluster's lists (emu_cluster_route); here only to be logged */
		if ((e->log || strcmp(method, "PATCH") || !strstr(url, "/modelDevelopmentClusters/")) &&
		    mdc_json_parse(cc->body.s, cc->body.len, &r.raw_body, &ctx))
			bad_json = true;
	}
	/* "/v1beta1/projects/..." -> version "v1beta1", name "projects/..." */
	if (url[0] == '/') {
		const char *slash = strchr(url + 1, '/');
		size_t n = slash ? (size_t) (slash - url - 1) : 0;

		if (slash && n < sizeof(verbuf)) {
			memcpy(verbuf, url + 1, n);
			verbuf[n] = '\0';
			if (!strcmp(verbuf, "v1") || !strcmp(verbuf, "v1beta1")) {
				r.version = verbuf;
				r.name = slash + 1;
			}
		}
	}
	emu_log_request(e, &r);

	if (!mdc_startswith(url, "/emulator/")) {
		enum emu_fault_act act = emu_faults(e, &r, &out);

		if (act == EMU_ACT_DROP)
			goto out;	/* MHD_NO closes the connection unanswered */
		if (act == EMU_ACT_ANSWERED)
			goto send;
	}
	if (emu_auth(e, c, &r, &out))
		goto send;
	if (cc->too_big) {
		emu_reply_error(&out, "INVALID_ARGUMENT", "request body larger than %u bytes",
				EMU_MAX_BODY);
		goto send;
	}
	if (bad_json) {
		emu_reply_error(&out, "INVALID_ARGUMENT", "invalid JSON payload received: %s", ctx.msg);
		goto send;
	}
	/* forwarded to slurmrestd without the lock (it takes its own) */
	if (emu_slurmrest_is_call(&r)) {
		text = emu_slurmrest_call(e, &r, &out);
		goto send;
	}
	emu_lock(e);
	emu_ops_tick(e);
	emu_route(e, &r, &out);
	/* a write may change what it got from the store in place */
	if (emu_is_write(method) && out.status >= 200 && out.status < 300)
		e->dirty = true;
	if (!out.status)
		emu_reply_error(&out, "INTERNAL", "no answer for %s %s", method, url);
	text = emu_answer_text(&out);
	/* the store may now share objects with the body (a PATCH keeps what
	 * it sent): its references are dropped under the lock */
	json_object_put(r.body);
	json_object_put(r.raw_body);
	r.body = r.raw_body = NULL;
	emu_unlock(e);		/* journals the change ... */
	emu_journal_sync(e);	/* ... durably, before the answer leaves */
send:
	if (!out.status)
		emu_reply_error(&out, "INTERNAL", "no answer for %s %s", method, url);
	if (!text)
		text = emu_answer_text(&out);
	ret = emu_send(c, &out, text);
out:
	json_object_put(out.body);
	json_object_put(r.query);
	json_object_put(r.body);
	json_object_put(r.raw_body);
	return ret;
}

static void emu_done(void *cls, struct MHD_Connection *c, void **con_cls,
		     enum MHD_RequestTerminationCode toe)
{
	struct emu_conn *cc = *con_cls;

	(void) cls;
	(void) c;
	(void) toe;
	if (cc) {
		mdc_buf_free(&cc->body);
		free(cc);
		*con_cls = NULL;
	}
}

static void emu_panic(void *cls, const char *file, unsigned int line, const char *reason)
{
	(void) cls;
	mdc_error("libmicrohttpd: %s:%u: %s", file, line, reason ? reason : "fatal error");
	abort();
}

static int emu_parse_listen(const char *listen, struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(listen, ':');
	char *end;
	long port;

	if (!colon || (size_t) (colon - listen) >= sizeof(host))
		return -1;
	memcpy(host, listen, (size_t) (colon - listen));
	host[colon - listen] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 0 || port > 65535)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t) port);
	return inet_pton(AF_INET, host[0] ? host : "127.0.0.1", &sa->sin_addr) == 1 ? 0 : -1;
}

/* Raise the descriptor limit to its hard maximum and keep some for the
 * state, the log and the commands. */
static unsigned emu_conn_limit(void)
{
	struct rlimit rl;
	rlim_t n;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 256;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	n = rl.rlim_cur == RLIM_INFINITY ? EMU_MAX_CONNS : rl.rlim_cur;
	n = n > 64 + 16 ? n - 64 : 16;
	return n > EMU_MAX_CONNS ? EMU_MAX_CONNS : (unsigned) n;
}

int emu_serve(struct emu *e, const char *listen, volatile sig_atomic_t *stop)
{
	struct sockaddr_in sa;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	unsigned port;

	if (emu_parse_listen(listen, &sa)) {
		mdc_error("invalid --listen '%s': expected HOST:PORT such as 127.0.0.1:8080", listen);
		return 2;
	}
	MHD_set_panic_func(emu_panic, NULL);
	/* A few polling threads (epoll where there is one) instead of a thread
	 * per connection: select() stopped at FD_SETSIZE and threads are not
	 * free.  Connections are capped below the descriptor limit and idle
	 * ones time out, so idle clients cannot lock normal requests out. */
	if (e->tls_cert && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		mdc_error("--tls-cert: this libmicrohttpd has no TLS");
		return 1;
	}
	/* https only when asked: the options go in an array so that one
	 * call serves both */
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, e->tls_key },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, e->tls_cert },
		{ MHD_OPTION_END, 0, NULL },
	};
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
			     (e->tls_cert ? MHD_USE_TLS : 0),
			     0, NULL, NULL, emu_access, e,
			     MHD_OPTION_ARRAY, e->tls_cert ? tls : tls + 2,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &sa,
			     MHD_OPTION_NOTIFY_COMPLETED, emu_done, e,
			     MHD_OPTION_THREAD_POOL_SIZE, (unsigned) EMU_THREADS,
			     MHD_OPTION_CONNECTION_LIMIT, emu_conn_limit(),
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) EMU_IDLE_SECONDS,
			     MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned) 1,
			     MHD_OPTION_END);
	if (!d) {
		mdc_error("cannot listen on '%s': %s", listen, strerror(errno));
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	port = info ? info->port : ntohs(sa.sin_port);
	printf("ready %s://%s:%u\n", e->tls_cert ? "https" : "http", inet_ntoa(sa.sin_addr), port);
	fflush(stdout);
	while (!*stop) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		emu_lock(e);
		emu_ops_tick(e);
		emu_unlock(e);
		emu_journal_sync(e);
		emu_sync_tick(e);
		nanosleep(&ts, NULL);
	}
	MHD_stop_daemon(d);
	return 0;
}
