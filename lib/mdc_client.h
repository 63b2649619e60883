/* mdc_client.h - talking to the managed API: settings, HTTP (libcurl),
 * auth, typed REST calls with C15 error parsing and retries, long-running
 * operation waits, the writer lock and the safe read-modify-write update.
 * (owner: client)
 */
#ifndef MDC_CLIENT_H
#define MDC_CLIENT_H

#include <signal.h>
#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_err.h"
#include "mdc_intent.h"
#include "mdc_plan.h"

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
};
int mdc_settings_load(struct mdc_settings *s, struct mdc_ctx *ctx);
void mdc_settings_free(struct mdc_settings *s);

struct mdc_client;

/* A client for ENDPOINT (plain http refused unless the host is loopback).
 * The caller frees it with mdc_client_free. */
int mdc_client_new(const struct mdc_settings *s, struct mdc_client **out, struct mdc_ctx *ctx);
void mdc_client_free(struct mdc_client *c);

/* One REST call.  PATH is relative to the endpoint ("v1beta1/projects/...");
 * QUERY may be NULL; BODY may be NULL.  *RESP gets the parsed answer in
 * snake_case (new reference; NULL for an empty body).  A Google error body
 * becomes MDC_ERR_API with ctx->http_code, ctx->status and a message
 * "STATUS: message" plus field violations.  GETs are retried on 503/429/
 * connection errors (backoff, Retry-After/RetryInfo); writes never are. */
int mdc_api_call(struct mdc_client *c, const char *method, const char *path,
		 const char *query, const json_object *body, json_object **resp,
		 struct mdc_ctx *ctx);

/* Cluster calls; NAME is the full resource name.  *OP is the LRO. */
int mdc_cluster_get(struct mdc_client *c, const char *name, json_object **cluster,
		    struct mdc_ctx *ctx);
int mdc_cluster_patch(struct mdc_client *c, const char *name, const json_object *payload,
		      const struct mdc_strv *mask, enum mdc_update_mode mode,
		      json_object **op, struct mdc_ctx *ctx);

/* Waiting for an operation (backoff 1 s x1.4, cap 30 s).  PROGRESS: a
 * terminal line with elapsed time and progressMessage on stderr.
 * INTERRUPTED, when set by a signal handler, stops the wait with
 * MDC_ERR_INTERRUPTED (the message says how to resume).  *DONE gets the
 * finished operation; an operation that ended in error is MDC_ERR_OPFAILED. */
struct mdc_lro_opts {
	double timeout_s;		/* 0 = default (3600) */
	bool progress;
	volatile sig_atomic_t *interrupted;
};
int mdc_lro_wait(struct mdc_client *c, const char *op_name, const struct mdc_lro_opts *o,
		 json_object **done, struct mdc_ctx *ctx);

/* The safe write (C14): take the writer lock, GET the cluster, wait while
 * it is UPDATING (or fail with no_wait), plan IN against that fresh state,
 * ask CONFIRM (if set; returning false cancels), PATCH with the plan's
 * mask and mode, and unless async wait for the operation.  *PLAN_OUT (if
 * non-NULL) receives the plan that was sent; *OP_OUT the operation. */
struct mdc_update_opts {
	struct mdc_plan_opts plan;
	bool no_wait;
	bool async;
	bool dry_run;				/* plan only, send nothing */
	bool (*confirm)(const struct mdc_plan *plan, void *arg);
	void *confirm_arg;
	struct mdc_lro_opts lro;
};
int mdc_update_run(struct mdc_client *c, const struct mdc_settings *s,
		   const struct mdc_intent *in, const struct mdc_update_opts *o,
		   struct mdc_plan *plan_out, json_object **op_out, struct mdc_ctx *ctx);

#endif
