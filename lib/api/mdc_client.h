/* mdc_client.h - talking to the managed API (mdc_api.c): the client,
 * typed REST calls with C15 error parsing and retries, the paged list and
 * the query encoding.  The client's other modules have their own headers:
 * mdc_settings.h (where to talk and as whom, included here: a client is
 * made from them), mdc_http.h (the transport), mdc_auth.h (the token),
 * mdc_lro.h (operation waits), mdc_lock.h (the writer lock), mdc_update.h
 * (the safe read-modify-write update).
 * (owner: client)
 */
/* layer lib/api/ owns the client: settings, transport, auth, calls, LROs, update, mdcd;
 * it may include lib/base/ to lib/slurm/ (scripts/check-layers). */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#ifndef MDC_CLIENT_H
#define MDC_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "mdc_buf.h"
#include "mdc_err.h"
#include "mdc_rules.h"
#include "mdc_settings.h"
#include "mdc_str.h"

struct mdc_client;

/* A client for ENDPOINT (plain http refused unless the host is loopback),
 * or, when S->broker is set, for mdcd's socket (mdc_broker.h).
 * The caller frees it with mdc_client_free. */
int mdc_client_new(const struct mdc_settings *s, struct mdc_client **out, struct mdc_ctx *ctx);
void mdc_client_free(struct mdc_client *c);
/* ON: each retry of a GET is said as a warning (the backoff reaches half a
 * minute: a terminal should see why nothing happens), else only at -v. */
void mdc_client_set_retry_notices(struct mdc_client *c, bool on);

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
/* The cluster's state: clusterStatus.state as the service publishes it,
 * else the top-level "state" of older emulators; DEF when neither is set. */
const char *mdc_cluster_state(const json_object *cluster, const char *def);
/* The answer RESP (an object from a call, e.g. mdc_cluster_get) as the
 * service sent it, before normalising; NULL for any other object.  Owned
 * by RESP. */
json_object *mdc_api_raw(const json_object *resp);
int mdc_cluster_get(struct mdc_client *c, const char *name, json_object **cluster,
		    struct mdc_ctx *ctx);
int mdc_cluster_patch(struct mdc_client *c, const char *name, const json_object *payload,
		      const struct mdc_strv *mask, enum mdc_update_mode mode,
		      json_object **op, struct mdc_ctx *ctx);

#endif
