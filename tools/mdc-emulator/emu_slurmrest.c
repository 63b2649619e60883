/* emu_slurmrest.c - POST .../modelDevelopmentClusters/ID:callSlurmRestApi
 * as the service answers it, forwarded to the lab's real slurmrestd over
 * its UNIX socket (slurm-lab --rest).  The request is {method, path, body};
 * the answer {status, structuredBody} carries slurmrestd's own status and
 * JSON, and the call itself is 200 whatever slurmrestd said.  Refused
 * before anything is sent: an unknown method, a path outside /slurm/ and
 * /slurmdb/ (or one that is not a plain printable path), an unknown
 * cluster; slurmrestd unreachable is 503 UNAVAILABLE.
 * (owner: slurmrest)
 */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "emu_int.h"
#include "emu_slurmrest.h"
#include "mdc_buf.h"
#include "mdc_http.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_str.h"

#define SR_SUFFIX ":callSlurmRestApi"
#define SR_TIMEOUT_MS 30000
#define SR_MAX_BODY (16u << 20)
#define SR_RUN_PERM "aiplatform.googleapis.com/modelDevelopmentClusters.run"

static char sr_sock[sizeof(((struct sockaddr_un *) 0)->sun_path)];

/* The service's enum names and the HTTP methods they stand for. */
static const struct { const char *name, *http; } sr_methods[] = {
	{ "HTTP_METHOD_GET", "GET" },
	{ "HTTP_METHOD_POST", "POST" },
	{ "HTTP_METHOD_DELETE", "DELETE" },
};

/* The slurmrestd trees the service forwards. */
static const char *const sr_roots[] = { "/slurm/", "/slurmdb/" };

int emu_slurmrest_configure(const char *addr)
{
	if (!mdc_startswith(addr, "unix:") || !addr[5] || addr[5] != '/' ||
	    strlen(addr + 5) >= sizeof(sr_sock)) {
		mdc_error("invalid --slurmrestd '%s': expected unix:/ABSOLUTE/PATH of its socket "
			  "(shorter than %zu bytes)", addr, sizeof(sr_sock));
		return -1;
	}
	strcpy(sr_sock, addr + 5);
	return 0;
}

bool emu_slurmrest_is_call(const struct emu_request *r)
{
	size_t n, k = strlen(SR_SUFFIX);

	if (!r->name || !strstr(r->name, "/modelDevelopmentClusters/"))
		return false;
	n = strlen(r->name);
	return n > k && !strcmp(r->name + n - k, SR_SUFFIX);
}

int emu_slurmrest_denied(const struct emu_request *r, struct emu_response *out)
{
	return emu_reply_error(out, "PERMISSION_DENIED",
			       "Permission '%s' denied on resource '%.*s' (or it may not exist)",
			       SR_RUN_PERM, (int) (strlen(r->name) - strlen(SR_SUFFIX)), r->name);
}

/* A path slurmrestd takes as is: under a forwarded tree, printable ASCII
 * without spaces (nothing can end the request line or add a header), no
 * dot segment and no fragment. */
static bool sr_path_ok(const char *p)
{
	bool rooted = false;

	for (size_t i = 0; i < sizeof(sr_roots) / sizeof(sr_roots[0]); i++)
		rooted |= mdc_startswith(p, sr_roots[i]);
	if (!rooted || strstr(p, "/.") || strchr(p, '#') || strchr(p, '\\'))
		return false;
	for (const unsigned char *c = (const unsigned char *) p; *c; c++)
		if (*c <= 0x20 || *c >= 0x7f)
			return false;
	return true;
}

/* One request to slurmrestd through libcurl (the project's one HTTP
 * client) on its UNIX socket; 0 with *RESP, or -1 with MSG filled. */
static int sr_forward(const char *method, const char *path, const char *body,
		      struct mdc_http_resp *resp, char *msg, size_t msz)
{
	static const char *const hdrs[] = { "Accept: application/json", NULL };
	struct mdc_buf url = MDC_BUF_INIT;
	struct mdc_http_req req = {
		.method = method, .headers = hdrs, .body = body,
		.connect_timeout_s = 5, .timeout_s = SR_TIMEOUT_MS / 1000,
		.max_bytes = SR_MAX_BODY, .unix_socket = sr_sock,
	};
	struct mdc_ctx ctx;
	int rc = 0;

	mdc_ctx_clear(&ctx);
	if (mdc_buf_addf(&url, "http://localhost%s", path)) {
		snprintf(msg, msz, "out of memory");
		return -1;
	}
	req.url = mdc_buf_str(&url);
	if (mdc_http_do(&req, resp, &ctx)) {
		snprintf(msg, msz, "slurmrestd on %s: %.300s", sr_sock, ctx.msg);
		rc = -1;
	}
	mdc_buf_free(&url);
	return rc;
}

char *emu_slurmrest_call(struct emu *e, const struct emu_request *r, struct emu_response *out)
{
	json_object *jm = NULL, *jp = NULL, *jb = NULL, *ans, *sb = NULL;
	const char *http = NULL, *m, *path, *body = NULL;
	struct mdc_http_resp resp = { 0 };
	char cluster[1024], msg[512];
	size_t n = strlen(r->name) - strlen(SR_SUFFIX);
	bool known;
	char *text;

	if (strcmp(r->method, "POST")) {
		emu_reply_error(out, "NOT_FOUND", "method %s not allowed on '%s'", r->method, r->path);
		return NULL;
	}
	if (n >= sizeof(cluster)) {
		emu_reply_error(out, "INVALID_ARGUMENT", "resource name too long");
		return NULL;
	}
	memcpy(cluster, r->name, n);
	cluster[n] = '\0';
	if (!json_object_is_type(r->raw_body, json_type_object)) {
		emu_reply_error(out, "INVALID_ARGUMENT", "callSlurmRestApi needs a JSON object body "
				"{method, path, body}");
		return NULL;
	}
	json_object_object_get_ex(r->raw_body, "method", &jm);
	json_object_object_get_ex(r->raw_body, "path", &jp);
	json_object_object_get_ex(r->raw_body, "body", &jb);
	m = json_object_is_type(jm, json_type_string) ? json_object_get_string(jm) : "";
	for (size_t i = 0; i < sizeof(sr_methods) / sizeof(sr_methods[0]); i++)
		if (!strcmp(m, sr_methods[i].name))
			http = sr_methods[i].http;
	if (!http) {
		emu_reply_bad_field(out, "method", "invalid method '%s': expected HTTP_METHOD_GET, "
				    "HTTP_METHOD_POST or HTTP_METHOD_DELETE", m);
		return NULL;
	}
	path = json_object_is_type(jp, json_type_string) ? json_object_get_string(jp) : "";
	if (!sr_path_ok(path)) {
		emu_reply_bad_field(out, "path", "invalid path '%.200s': a Slurm REST path under "
				    "/slurm/ or /slurmdb/ is expected", path);
		return NULL;
	}
	if (jb && !json_object_is_type(jb, json_type_object)) {
		emu_reply_bad_field(out, "body", "body must be a JSON object");
		return NULL;
	}
	if (!strcmp(http, "POST") && !jb) {
		emu_reply_bad_field(out, "body", "HTTP_METHOD_POST needs a body");
		return NULL;
	}
	if (jb)
		body = mdc_json_str(jb, false);
	emu_lock(e);
	known = emu_store_get(e, "cluster", cluster) != NULL;
	emu_unlock(e);
	if (!known) {
		emu_reply_error(out, "NOT_FOUND", "ModelDevelopmentCluster '%s' not found", cluster);
		return NULL;
	}
	if (!sr_sock[0]) {
		emu_reply_error(out, "UNAVAILABLE", "the Slurm REST API of '%s' is not available "
				"(mdc-emulator runs without --slurmrestd)", cluster);
		return NULL;
	}
	if (sr_forward(http, path, body, &resp, msg, sizeof(msg))) {
		mdc_warn("callSlurmRestApi %s %s: %s", http, path, msg);
		emu_reply_error(out, "UNAVAILABLE", "the Slurm REST API of '%s' is not reachable: %s",
				cluster, msg);
		return NULL;
	}
	/* slurmrestd's non-JSON answers (its 404 text) leave structuredBody out */
	if (resp.len && mdc_json_parse(resp.body, resp.len, &sb, &(struct mdc_ctx){ 0 }))
		sb = NULL;
	if (sb && !json_object_is_type(sb, json_type_object)) {
		json_object_put(sb);
		sb = NULL;
	}
	mdc_http_resp_free(&resp);
	ans = json_object_new_object();
	if (!ans) {
		json_object_put(sb);
		emu_reply_error(out, "INTERNAL", "out of memory");
		return NULL;
	}
	json_object_object_add(ans, "status", json_object_new_int((int) resp.status));
	if (sb)
		json_object_object_add(ans, "structuredBody", sb);
	text = strdup(mdc_json_str(ans, true));
	json_object_put(ans);
	if (!text) {
		emu_reply_error(out, "INTERNAL", "out of memory");
		return NULL;
	}
	out->status = 200;
	return text;
}
