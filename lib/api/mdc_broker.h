/* mdc_broker.h - talking to mdcd, the broker that holds the API token on
 * the login node (doc/mdcd-protocol.md).  (owner: mdcd)
 *
 * Client side: when the settings name a broker (MDC_BROKER, `Broker=`),
 * mdc_client_new returns a client whose REST calls and safe writes go
 * through mdcd's UNIX socket instead of HTTP; the front ends do not change.
 * Every request carries a munge credential whose payload binds the SHA-256
 * of the request text, so a credential is good for one request only.
 *
 * Shared with mdcd: the wire format (request envelope, intent as JSON,
 * answers) and the rollback intent.
 */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#ifndef MDC_BROKER_H
#define MDC_BROKER_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "mdc_client.h"
#include "mdc_err.h"
#include "mdc_intent.h"
#include "mdc_update.h"

#define MDC_BROKER_VERSION 1
/* the munge payload is this prefix followed by the hex SHA-256 of the body */
#define MDC_BROKER_PAYLOAD_PREFIX "mdcd/1 sha256="
/* one request or answer line at most (a cluster spec fits many times) */
#define MDC_BROKER_LINE_MAX (4u << 20)
#define MDC_BROKER_DEFAULT_SOCKET "/run/mdcd/mdcd.sock"

/* Hex SHA-256 of DATA into OUT (65 bytes with the NUL): 0, or
 * MDC_ERR_INTERNAL when libcrypto cannot be loaded (it is on first use). */
int mdc_sha256_hex(const void *data, size_t len, char out[65], struct mdc_ctx *ctx);

/* ---- client side (mdc_client.h's functions dispatch here) ------------- */

/* A client talking to the broker named by S->broker (S->munge_socket: the
 * munged socket, NULL = libmunge's default).  Nothing is contacted yet. */
int mdc_broker_client_new(const struct mdc_settings *s, struct mdc_client **out,
			  struct mdc_ctx *ctx);
/* mdc_api_call through the broker: GETs are reads, anything else a write
 * mdcd authorises and records.  Same contract as mdc_api_call. */
int mdc_broker_call(struct mdc_client *c, const char *method, const char *path,
		    const char *query, const json_object *body, json_object **resp,
		    struct mdc_ctx *ctx);
/* mdc_update_run through the broker: mdcd runs the same safe write with
 * the intent (lock, fresh read, plan, PATCH, wait); before sending it
 * hands the state it planned on back here, where the same plan is made
 * again for CONFIRM and PLAN_OUT.  Dry runs plan here on a read through
 * the broker and send nothing.  Same contract as mdc_update_run. */
int mdc_broker_update(struct mdc_client *c, const struct mdc_settings *s,
		      const struct mdc_intent *in, const struct mdc_update_opts *o,
		      struct mdc_plan *plan_out, json_object **op_out, struct mdc_ctx *ctx);
/* True when C talks to a broker. */
bool mdc_client_is_brokered(const struct mdc_client *c);
/* The audit records (newest last; CLUSTER NULL = all) as a new array. */
int mdc_broker_history(struct mdc_client *c, const char *cluster, json_object **entries,
		       struct mdc_ctx *ctx);
/* The spec kept before (BEFORE) or after write ID; *SPEC new reference. */
int mdc_broker_snapshot(struct mdc_client *c, long id, bool before, json_object **spec,
			struct mdc_ctx *ctx);
/* Who mdcd thinks the caller is: {"uid","user","write":bool,"rule"}. */
int mdc_broker_whoami(struct mdc_client *c, json_object **who, struct mdc_ctx *ctx);

/* ---- wire format, shared with mdcd ------------------------------------ */

/* IN as a JSON array of ops (new reference; NULL on ENOMEM). */
json_object *mdc_intent_to_json(const struct mdc_intent *in);
/* The reverse into OUT (initialised by the caller, who frees it);
 * MDC_ERR_INVAL naming the bad op. */
int mdc_intent_from_json(const json_object *arr, struct mdc_intent *out, struct mdc_ctx *ctx);
/* Fill CTX from an error answer {"err":N,"message":...,"http_code","status"}. */
int mdc_broker_error(const json_object *error, struct mdc_ctx *ctx);
/* The error answer for CTX (new reference). */
json_object *mdc_broker_error_json(const struct mdc_ctx *ctx);

/* ---- rollback ------------------------------------------------------- */

/* The intent that turns CURRENT into TARGET (two cluster specs) as an
 * ordinary change: Slurm settings through the rendered slurm.conf
 * difference (sc_translate), labels key by key, prolog and epilog lists
 * replaced.  OUT is initialised by the caller, who frees it. */
int mdc_rollback_intent(const json_object *current, const json_object *target,
			struct mdc_intent *out, struct mdc_ctx *ctx);

#endif
