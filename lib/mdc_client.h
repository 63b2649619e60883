/* mdc_client.h - talking to the managed API: settings, HTTP (libcurl),
 * auth, typed REST calls with C15 error parsing and retries, the paged
 * list and the query encoding.  The client's other modules have their
 * own headers: mdc_lro.h (operation waits), mdc_lock.h (the writer
 * lock), mdc_update.h (the safe read-modify-write update).
 * (owner: client)
 */
#ifndef MDC_CLIENT_H
#define MDC_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "mdc_buf.h"
#include "mdc_err.h"
#include "mdc_rules.h"
#include "mdc_str.h"

/* Where to talk and as whom: lowest to highest precedence, the config file
 * (MDC_CONF, else /etc/slurm/mdc.conf; "Key = value" lines), the
 * environment (MDC_ENDPOINT, MDC_CLUSTER, MDC_ACCESS_TOKEN,
 * MDC_TOKEN_FILE, MDC_LOCK_DIR), then whatever the caller sets after. */
struct mdc_settings {
	char *endpoint;		/* "http://127.0.0.1:PORT" or https://REGION-aiplatform.googleapis.com */
	char *cluster;		/* projects/P/locations/R/modelDevelopmentClusters/C */
	char *token_file;
	char *lock_dir;		/* writer lock directory (default /run/lock or $TMPDIR) */
	char *slurm_conf;	/* the live slurm.conf (SLURM_CONF, else /etc/slurm/slurm.conf) */
	/* added by the client: the short forms (config file keys Project,
	 * Region, ClusterId; env MDC_PROJECT, MDC_REGION) and the config path
	 * that was read (NULL when none existed) */
	char *project;
	char *region;
	char *cluster_id;
	char *conf_path;
	/* mdcd (mdc_broker.h): Broker / MDC_BROKER names its socket; the
	 * others are read by mdcd only (MungeSocket also by clients) */
	char *broker;
	char *munge_socket;	/* MungeSocket / MDC_MUNGE_SOCKET */
	char *admin_groups;	/* AdminGroups: comma-separated group names */
	char *admin_from_slurm;	/* AdminFromSlurm: yes|no */
};
/* Fill S (zero it first) from the config file and the environment.  A
 * missing default config file is not an error; a missing MDC_CONF file,
 * an unreadable file or an unknown key is (MDC_ERR_INVAL/IO, with
 * "file:line"). */
int mdc_settings_load(struct mdc_settings *s, struct mdc_ctx *ctx);
/* Parse config-file TEXT into S (WHERE names it in messages). */
int mdc_settings_parse(struct mdc_settings *s, const char *text, const char *where,
		       struct mdc_ctx *ctx);
/* Complete S: build cluster from project/region/cluster_id when it is not
 * a full name (each part checked), and default the endpoint to
 * https://REGION-aiplatform.googleapis.com.  NEED_CLUSTER: a missing
 * cluster is MDC_ERR_USAGE naming the options to use. */
int mdc_settings_resolve(struct mdc_settings *s, bool need_cluster, struct mdc_ctx *ctx);
/* Split a full cluster name; each out string is malloc'ed (caller frees,
 * any out may be NULL).  MDC_ERR_INVAL when NAME is not of the form
 * projects/P/locations/R/modelDevelopmentClusters/C. */
int mdc_cluster_name_split(const char *name, char **project, char **region, char **id,
			   struct mdc_ctx *ctx);
/* Replace *DST with a copy of VAL (NULL clears); 0 or MDC_ERR_NOMEM. */
int mdc_settings_set(char **dst, const char *val);
void mdc_settings_free(struct mdc_settings *s);

struct mdc_client;

/* A client for ENDPOINT (plain http refused unless the host is loopback),
 * or, when S->broker is set, for mdcd's socket (mdc_broker.h).
 * The caller frees it with mdc_client_free. */
int mdc_client_new(const struct mdc_settings *s, struct mdc_client **out, struct mdc_ctx *ctx);
void mdc_client_free(struct mdc_client *c);

/* Parse URL with libcurl's parser (the one that picks the host to
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

/* Auth (mdc_auth.c): the bearer token for C, from MDC_ACCESS_TOKEN, the
 * token file, the GCE metadata server (MDC_METADATA_URL overrides its URL;
 * the answer is cached in C until it expires) or `gcloud auth
 * print-access-token`.  For a loopback http endpoint only the explicit
 * sources are tried (env, token file, an explicit MDC_METADATA_URL) and
 * "no token" is not an error (*TOKEN = NULL): real credentials are never
 * handed to a local emulator.  *TOKEN is borrowed from C.  The token is
 * never logged. */
int mdc_auth_token(struct mdc_client *c, const char **token, struct mdc_ctx *ctx);
/* Forget the cached token (after a 401). */
void mdc_auth_forget(struct mdc_client *c);

/* Parse a Google error body (C15) into CTX: MDC_ERR_API with http_code,
 * status and the message "STATUS: message (field 'f': why; ...)".  A body
 * that is not a Google error still gives one line with the HTTP code.
 * 404 maps to MDC_ERR_NOTFOUND, 401/403 to MDC_ERR_AUTH, 409/ABORTED/
 * FAILED_PRECONDITION to MDC_ERR_CONFLICT.  *RETRY_DELAY_S gets RetryInfo's
 * delay (-1 when absent; may be NULL).  Returns the error. */
int mdc_api_error(long http_code, const char *body, size_t len, double *retry_delay_s,
		  struct mdc_ctx *ctx);
/* "1.5s" (a google.protobuf.Duration in JSON) -> 1.5; -1 if malformed. */
double mdc_duration_parse(const char *s);
/* Backoff before retry ATTEMPT (0-based): BASE_S * 2^attempt capped at
 * CAP_S, with up to 50% random jitter subtracted. */
double mdc_backoff(unsigned attempt, double base_s, double cap_s);

/* Cluster CRUD and listing; PARENT is projects/P/locations/R.  *LIST gets
 * every cluster across pages (a new array).  *OP the LRO. */
int mdc_cluster_list(struct mdc_client *c, const char *parent, json_object **list,
		     struct mdc_ctx *ctx);
int mdc_cluster_create(struct mdc_client *c, const char *parent, const char *id,
		       const json_object *cluster, json_object **op, struct mdc_ctx *ctx);
int mdc_cluster_delete(struct mdc_client *c, const char *name, json_object **op,
		       struct mdc_ctx *ctx);
/* GET an operation by its full name (polled with /v1/). */
int mdc_operation_get(struct mdc_client *c, const char *op_name, json_object **op,
		      struct mdc_ctx *ctx);

/* One REST call.  PATH is relative to the endpoint ("v1beta1/projects/...");
 * QUERY may be NULL; BODY may be NULL.  *RESP gets the parsed answer in
 * snake_case (new reference; NULL for an empty body).  A Google error body
 * becomes MDC_ERR_API with ctx->http_code, ctx->status and a message
 * "STATUS: message" plus field violations.  GETs are retried on 503/429/
 * connection errors (backoff, Retry-After/RetryInfo); writes never are.
 * A 401 on a token that expires (metadata server, gcloud) refetches it
 * once and repeats the request (a 401 request was not applied). */
int mdc_api_call(struct mdc_client *c, const char *method, const char *path,
		 const char *query, const json_object *body, json_object **resp,
		 struct mdc_ctx *ctx);

/* "KEY=VAL" appended to the query string Q ('&' first unless Q is empty),
 * VAL percent-encoded: every byte but RFC 3986's unreserved ones
 * (A-Z a-z 0-9 - . _ ~), so UTF-8 goes out byte by byte.  0 or
 * MDC_ERR_NOMEM. */
int mdc_query_add(struct mdc_buf *q, const char *key, const char *val);

/* What a list asks for; all may be 0/NULL. */
struct mdc_api_list_opts {
	long page_size;		/* pageSize, 0 = the service's default */
	const char *filter;	/* filter, NULL or "" = none */
	const char *order_by;	/* orderBy, NULL or "" = none */
};
/* Every page of the collection at PATH ("v1/projects/P/locations/L/
 * persistentResources"; relative as for mdc_api_call), following
 * nextPageToken; ITEMS is the answer's snake_case array field.  O may be
 * NULL.  *OUT gets one new array of all items (the caller puts it). */
int mdc_api_list(struct mdc_client *c, const char *path, const char *items,
		 const struct mdc_api_list_opts *o, json_object **out, struct mdc_ctx *ctx);

/* Cluster calls; NAME is the full resource name.  *OP is the LRO. */
int mdc_cluster_get(struct mdc_client *c, const char *name, json_object **cluster,
		    struct mdc_ctx *ctx);
int mdc_cluster_patch(struct mdc_client *c, const char *name, const json_object *payload,
		      const struct mdc_strv *mask, enum mdc_update_mode mode,
		      json_object **op, struct mdc_ctx *ctx);

#endif
