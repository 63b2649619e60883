/* mdc_auth.c - the bearer token: MDC_ACCESS_TOKEN, then the token file,
 * then the GCE metadata server (cached until it expires), then
 * `gcloud auth print-access-token`.  A token is never logged or put in a
 * message.  (owner: client) */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_auth.h"
#include "mdc_client_int.h"
#include "mdc_http.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_run.h"
#include "mdc_str.h"

#define MDC_METADATA_URL_DEFAULT \
	"http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token"
/* refresh this long before the server's expiry, so a long wait never sends a dead token */
#define MDC_TOKEN_MARGIN_S 60
/* gcloud does not tell us the lifetime; its tokens live an hour */
#define MDC_GCLOUD_TTL_S 1800
/* OAuth access tokens are ~2 KiB, JWTs a few: a token file or a metadata
 * answer bigger than this is not one */
#define MDC_TOKEN_MAX_BYTES (64 * 1024)

/* The token from an expiring source (the metadata server, gcloud) for
 * every client of the process while mdc_auth_share is on: mdcd makes a
 * client per request, and would otherwise fetch a token for each.  Kept
 * until the client's own margin before its expiry. */
static struct {
	pthread_mutex_t lock;
	bool on;
	char *source;		/* the metadata URL, or "gcloud" */
	char *token;
	time_t expiry;
} mdc_tok_shared = { PTHREAD_MUTEX_INITIALIZER, false, NULL, NULL, 0 };

/* lock held */
static void mdc_tok_shared_drop(void)
{
	if (mdc_tok_shared.token)
		memset(mdc_tok_shared.token, 0, strlen(mdc_tok_shared.token));
	free(mdc_tok_shared.token);
	free(mdc_tok_shared.source);
	mdc_tok_shared.token = mdc_tok_shared.source = NULL;
	mdc_tok_shared.expiry = 0;
}

void mdc_auth_share(bool on)
{
	pthread_mutex_lock(&mdc_tok_shared.lock);
	mdc_tok_shared.on = on;
	if (!on)
		mdc_tok_shared_drop();
	pthread_mutex_unlock(&mdc_tok_shared.lock);
}

/* C's token (just fetched from SOURCE) for the other clients */
static void mdc_tok_shared_put(const struct mdc_client *c, const char *source)
{
	pthread_mutex_lock(&mdc_tok_shared.lock);
	if (mdc_tok_shared.on && c->token && c->token_expiry) {
		mdc_tok_shared_drop();
		mdc_tok_shared.source = strdup(source);
		mdc_tok_shared.token = strdup(c->token);
		mdc_tok_shared.expiry = c->token_expiry;
		if (!mdc_tok_shared.source || !mdc_tok_shared.token)
			mdc_tok_shared_drop();	/* no memory: fetched again next time */
	}
	pthread_mutex_unlock(&mdc_tok_shared.lock);
}

static int mdc_auth_keep(struct mdc_client *c, const char *tok, time_t expiry,
			 const char *source, struct mdc_ctx *ctx);

/* 0 with the shared token from SOURCE in C, 1 when there is none, or an error */
static int mdc_tok_shared_get(struct mdc_client *c, const char *source, struct mdc_ctx *ctx)
{
	char *tok = NULL;
	time_t expiry = 0;
	int rc;

	pthread_mutex_lock(&mdc_tok_shared.lock);
	if (mdc_tok_shared.on && mdc_tok_shared.token && !strcmp(mdc_tok_shared.source, source) &&
	    time(NULL) < mdc_tok_shared.expiry) {
		tok = strdup(mdc_tok_shared.token);
		expiry = mdc_tok_shared.expiry;
	}
	pthread_mutex_unlock(&mdc_tok_shared.lock);
	if (!tok)
		return 1;
	rc = mdc_auth_keep(c, tok, expiry, "the process's cache", ctx);
	memset(tok, 0, strlen(tok));
	free(tok);
	return rc;
}

void mdc_auth_reject(struct mdc_client *c)
{
	pthread_mutex_lock(&mdc_tok_shared.lock);
	if (c->token && mdc_tok_shared.token && !strcmp(c->token, mdc_tok_shared.token))
		mdc_tok_shared_drop();
	pthread_mutex_unlock(&mdc_tok_shared.lock);
	mdc_auth_forget(c);
}

/* A token goes into an HTTP header: printable, no spaces, not empty. */
static bool mdc_token_ok(const char *t)
{
	if (!*t)
		return false;
	for (; *t; t++)
		if ((unsigned char) *t <= ' ' || (unsigned char) *t >= 0x7f)
			return false;
	return true;
}

static int mdc_auth_keep(struct mdc_client *c, const char *tok, time_t expiry,
			 const char *source, struct mdc_ctx *ctx)
{
	char *copy;

	if (!mdc_token_ok(tok))
		return mdc_fail(ctx, MDC_ERR_AUTH,
				"the access token from %s is empty or has spaces or control characters",
				source);
	if (!(copy = strdup(tok)))
		return mdc_nomem(ctx);
	mdc_auth_forget(c);
	c->token = copy;
	c->token_expiry = expiry;
	mdc_debug("using the access token from %s", source);
	return 0;
}

static int mdc_auth_from_file(struct mdc_client *c, struct mdc_ctx *ctx)
{
	char *text = NULL, *nl;
	int rc;

	/* a regular file only the owner can read, as ssh treats a key */
	if ((rc = mdc_read_regular(c->token_file, MDC_TOKEN_MAX_BYTES, MDC_READ_PRIVATE, &text,
				   NULL, ctx))) {
		mdc_ctx_prefix(ctx, "token file");
		if (ctx)
			ctx->err = MDC_ERR_AUTH;
		return MDC_ERR_AUTH;
	}
	if ((nl = strchr(text, '\n')))
		*nl = '\0';
	rc = mdc_auth_keep(c, mdc_trim(text), 0, "the token file", ctx);
	/* wipe the copy we read: it is a credential */
	memset(text, 0, strlen(text));
	free(text);
	return rc;
}

/* 0 and a token, 1 when the server is not there (try the next source),
 * or an error when it answered badly. */
static int mdc_auth_from_metadata(struct mdc_client *c, const char *url, struct mdc_ctx *ctx)
{
	static const char *const hdrs[] = { "Metadata-Flavor: Google", NULL };
	struct mdc_http_req req = {
		.method = "GET", .url = url, .headers = hdrs,
		.connect_timeout_s = 2, .timeout_s = 10, .max_bytes = MDC_TOKEN_MAX_BYTES,
	};
	struct mdc_http_resp resp;
	struct mdc_ctx tmp;
	json_object *obj = NULL;
	const char *tok;
	int64_t ttl;
	int rc;

	mdc_ctx_clear(&tmp);
	if ((rc = mdc_client_http(c, ctx)))
		return rc;
	if ((rc = mdc_http_send(c->http, &req, &resp, &tmp))) {
		/* a bad MDC_METADATA_URL or Ctrl-C is not "no server here" */
		if (rc != MDC_ERR_HTTP && rc != MDC_ERR_TIMEOUT)
			return mdc_fail(ctx, rc, "metadata server: %s", tmp.msg);
		mdc_debug("no metadata server: %s", tmp.msg);
		return 1;
	}
	if (resp.status != 200) {
		rc = mdc_fail(ctx, MDC_ERR_AUTH, "metadata server answered HTTP %ld for the token",
			      resp.status);
		goto out;
	}
	if (mdc_json_parse(resp.body, resp.len, &obj, &tmp) || !json_object_is_type(obj, json_type_object) ||
	    !(tok = mdc_json_get_str(obj, "access_token", NULL))) {
		rc = mdc_fail(ctx, MDC_ERR_AUTH, "metadata server: no access_token in its answer");
		goto out;
	}
	ttl = mdc_json_get_int(obj, "expires_in", 0);
	if (ttl > MDC_TOKEN_MARGIN_S)
		ttl -= MDC_TOKEN_MARGIN_S;
	else
		ttl = ttl > 0 ? 1 : 300;
	rc = mdc_auth_keep(c, tok, time(NULL) + ttl, "the metadata server", ctx);
out:
	json_object_put(obj);
	if (resp.body)
		memset(resp.body, 0, resp.len);
	mdc_http_resp_free(&resp);
	return rc;
}

static char *mdc_which(const char *prog)
{
	const char *path = getenv("PATH");
	struct mdc_strv dirs = MDC_STRV_INIT;
	char *found = NULL;

	if (!path || mdc_strv_split(&dirs, path, ":"))
		return NULL;
	for (size_t i = 0; i < dirs.n && !found; i++) {
		char *p = mdc_path_join(dirs.v[i], prog);

		if (p && access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	mdc_strv_free(&dirs);
	return found;
}

/* 0 and a token, 1 when gcloud is not installed, or an error. */
static int mdc_auth_from_gcloud(struct mdc_client *c, struct mdc_ctx *ctx)
{
	struct mdc_buf out = MDC_BUF_INIT;
	char *gcloud = mdc_which("gcloud"), *nl;
	char *argv[] = { gcloud, "auth", "print-access-token", "--quiet", NULL };
	/* its prompts and warnings are not ours; a hung gcloud is bounded */
	struct mdc_run_opts o = { .out_cap = 64 * 1024, .timeout_s = 120, .null_stdio = true };
	struct mdc_run_result r;
	struct mdc_ctx lctx;
	int rc = 0;

	if (!gcloud)
		return 1;
	mdc_ctx_clear(&lctx);
	if ((rc = mdc_run(argv, &o, &out, NULL, &r, &lctx))) {
		rc = mdc_fail(ctx, rc == MDC_ERR_NOMEM ? rc : MDC_ERR_AUTH, "gcloud: %s", lctx.msg);
		goto out;
	}
	if (r.status != 0) {
		rc = mdc_fail(ctx, MDC_ERR_AUTH,
			      "'gcloud auth print-access-token' %s: run 'gcloud auth login', "
			      "or set MDC_ACCESS_TOKEN or a token file",
			      r.timed_out ? "gave no answer in 120 s" : "failed");
		goto out;
	}
	if (out.s && (nl = strchr(out.s, '\n')))
		*nl = '\0';
	rc = mdc_auth_keep(c, mdc_trim(out.s ? out.s : (char *) ""), time(NULL) + MDC_GCLOUD_TTL_S,
			   "gcloud", ctx);
out:
	if (out.s)
		memset(out.s, 0, out.len);
	mdc_buf_free(&out);
	free(gcloud);
	return rc;
}

int mdc_auth_token(struct mdc_client *c, const char **token, struct mdc_ctx *ctx)
{
	const char *env = getenv("MDC_ACCESS_TOKEN");
	const char *md_url = getenv("MDC_METADATA_URL");
	int rc;

	*token = NULL;
	if (c->token && (!c->token_expiry || time(NULL) < c->token_expiry)) {
		*token = c->token;
		return 0;
	}
	if (!c->token && c->token_tried)
		return 0;
	if (env && *env) {
		if ((rc = mdc_auth_keep(c, env, 0, "MDC_ACCESS_TOKEN", ctx)))
			return rc;
		goto found;
	}
	if (c->token_file) {
		if ((rc = mdc_auth_from_file(c, ctx)))
			return rc;
		goto found;
	}
	/* a loopback emulator never gets real credentials unless asked for */
	if (!c->loopback || (md_url && *md_url)) {
		const char *url = md_url && *md_url ? md_url : MDC_METADATA_URL_DEFAULT;

		if ((rc = mdc_tok_shared_get(c, url, ctx)) == 0)
			goto found;
		if (rc != 1)
			return rc;
		rc = mdc_auth_from_metadata(c, url, ctx);
		if (rc == 0) {
			mdc_tok_shared_put(c, url);
			goto found;
		}
		if (rc != 1)
			return rc;
	}
	if (!c->loopback) {
		if ((rc = mdc_tok_shared_get(c, "gcloud", ctx)) == 0)
			goto found;
		if (rc != 1)
			return rc;
		rc = mdc_auth_from_gcloud(c, ctx);
		if (rc == 0) {
			mdc_tok_shared_put(c, "gcloud");
			goto found;
		}
		if (rc != 1)
			return rc;
		return mdc_fail(ctx, MDC_ERR_AUTH,
				"no credentials: set MDC_ACCESS_TOKEN or a token file (MDC_TOKEN_FILE), "
				"run on a GCE VM with a service account, or install gcloud");
	}
	c->token_tried = true;
	return 0;
found:
	*token = c->token;
	return 0;
}

void mdc_auth_forget(struct mdc_client *c)
{
	if (c->token) {
		memset(c->token, 0, strlen(c->token));
		free(c->token);
	}
	c->token = NULL;
	c->token_expiry = 0;
}
