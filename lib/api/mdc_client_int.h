/* mdc_client_int.h - the client's private state, shared by mdc_api.c,
 * mdc_auth.c, mdc_lro.c, mdc_broker.c and mdc_update.c only.  Front ends
 * use mdc_client.h.  (owner: client) */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#ifndef MDC_CLIENT_INT_H
#define MDC_CLIENT_INT_H

#include <stdbool.h>
#include <time.h>
#include "mdc_client.h"
#include "mdc_http.h"

struct mdc_intent;
struct mdc_plan;
struct mdc_update_opts;

/* How a client reaches the API, chosen once when it is made: directly
 * over HTTP (mdc_client_new) or through mdcd's broker
 * (mdc_broker_client_new).  mdc_api_call and mdc_update_run go through
 * it; nothing else asks which one a client has. */
struct mdc_transport {
	const char *name;
	/* mdc_api_call's contract */
	int (*call)(struct mdc_client *c, const char *method, const char *path,
		    const char *query, const json_object *body, json_object **resp,
		    struct mdc_ctx *ctx);
	/* mdc_update_run's contract */
	int (*update)(struct mdc_client *c, const struct mdc_settings *s,
		      const struct mdc_intent *in, const struct mdc_update_opts *o,
		      struct mdc_plan *plan_out, json_object **op_out, struct mdc_ctx *ctx);
};

/* the direct transport: mdc_api.c's HTTP call, mdc_update.c's safe write */
extern const struct mdc_transport mdc_transport_api;
/* mdcd's socket (mdc_broker.c) */
extern const struct mdc_transport mdc_transport_broker;
/* the safe write itself, run here (the API transport) or by mdcd */
int mdc_update_direct(struct mdc_client *c, const struct mdc_settings *s,
		      const struct mdc_intent *in, const struct mdc_update_opts *o,
		      struct mdc_plan *plan_out, json_object **op_out, struct mdc_ctx *ctx);

struct mdc_client {
	const struct mdc_transport *t;	/* set once by the constructor */
	char *endpoint;			/* without a trailing slash */
	bool loopback;			/* plain http to 127.0.0.1: emulator rules */
	char *token_file;
	char *ca_cert_file;		/* NULL: the system's CAs only */
	/* every request of the client on one handle (one connection), opened
	 * at the first (mdc_client_http) */
	struct mdc_http *http;
	/* cached token and when it stops being usable (0 = never) */
	char *token;
	time_t token_expiry;
	bool token_tried;		/* the chain ran and found nothing (loopback) */
	long connect_timeout_s;
	long timeout_s;
	unsigned max_retries;		/* GETs and polls only */
	double retry_base_s;		/* first backoff (MDC_RETRY_BASE_MS for tests) */
	double retry_cap_s;
	double retry_after_s;		/* the last answer's Retry-After (-1: none) */
	bool retry_notices;		/* say each retry (a terminal), not only with -v */
	/* broker mode (mdc_broker.c): mdcd's socket, NULL = talk HTTP */
	char *broker;
	char *munge_socket;		/* NULL = libmunge's default */
};

/* C's handle, opened at its first request */
static inline int mdc_client_http(struct mdc_client *c, struct mdc_ctx *ctx)
{
	return c->http ? 0 : mdc_http_open(&c->http, ctx);
}

#endif
