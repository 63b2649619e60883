/* emu.h - internals of mdc-emulator shared by its route files.
 * (owner: emulator; emu_pr.c, owned by the persistent-resource engineer,
 * codes against it)
 *
 * Threading: libmicrohttpd runs one thread per connection.  Every route
 * function (emu_pr_route included) is called with the state lock HELD, so
 * route code touches the store freely and must not call emu_lock().  Code
 * running outside a route (none in emu_pr.c) takes emu_lock()/emu_unlock().
 *
 * JSON: request bodies arrive normalized to snake_case (the internal form);
 * answers are normalized to lowerCamelCase by the server before sending,
 * and keys starting with '_' (internal bookkeeping) are stripped.
 */
#ifndef EMU_H
#define EMU_H

#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_err.h"

struct emu;

struct emu_request {
	const char *method;	/* "GET", "POST", "PATCH", "DELETE" */
	const char *path;	/* URL path without the query: "/v1/projects/p/..." */
	const char *version;	/* "v1" or "v1beta1" (the first path component) */
	const char *name;	/* path after "/VERSION/": "projects/p/locations/l/..." */
	json_object *query;	/* borrowed: {"updateMask": "a,b", ...}, decoded strings */
	json_object *body;	/* borrowed: parsed body in snake_case, or NULL */
	json_object *raw_body;	/* borrowed: the body as sent (either case), or NULL;
				 * a route may replace it (the server puts the
				 * one left here, under the lock) */
	const char *text;	/* the body's text (TEXT_LEN bytes), or NULL */
	size_t text_len;
};

struct emu_response {
	int status;		/* HTTP status */
	json_object *body;	/* owned by the response; NULL = empty body */
	int retry_after;	/* > 0: Retry-After header in seconds */
};

/* --- answers ------------------------------------------------------------ */

/* Answer STATUS with BODY (stolen; snake_case, converted when sent). Returns 0. */
int emu_reply(struct emu_response *out, int status, json_object *body);

/* 1 (answered with a 400 like Google's transcoding) if the request's query
 * names a parameter outside ALLOWED (snake_case, NULL-terminated; NULL =
 * none) and the system parameters (alt, fields, ...). */
int emu_unknown_params(const struct emu_request *r, const char *const *allowed,
		       struct emu_response *out);

/* Google error body {"error":{code,message,status,details:[ErrorInfo]}}.
 * STATUS is the Google status name: "INVALID_ARGUMENT", "NOT_FOUND"...
 * The HTTP code is derived from it (see emu_http_code()).  Returns 0. */
int emu_reply_error(struct emu_response *out, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* INVALID_ARGUMENT with a google.rpc.BadRequest detail naming FIELD. */
int emu_reply_bad_field(struct emu_response *out, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Error STATUS with DETAIL (stolen: a google.rpc.* object with "@type") after ErrorInfo. */
int emu_reply_error_detail(struct emu_response *out, const char *status, json_object *detail,
			   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The cluster routes answer as the service does, without ErrorInfo:
 * STATUS alone (its 409 ALREADY_EXISTS has no details), ... */
int emu_reply_status(struct emu_response *out, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* ... the API front end's refusal of a body (an unknown name, a wrong
 * type): the message and a BadRequest naming FIELD, ... */
int emu_reply_transcoding(struct emu_response *out, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* ... and the service's own validation: "List of found errors:\t1.Field:
 * model_development_cluster.FIELD; Message: ...\t" with a BadRequest
 * (FIELD: a body path in snake_case, or a request parameter). */
int emu_reply_found_errors(struct emu_response *out, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* ... every finding of a schema check (mdc_schema_result.found) in one
 * such answer, numbered, with one field violation each. */
struct mdc_schema_result;
int emu_reply_schema_found(struct emu_response *out, const struct mdc_schema_result *res,
			   const struct mdc_ctx *ctx);
/* Map an mdc_ctx error (rules violations: emu_reply_found_errors) onto a
 * Google error answer. */
int emu_reply_ctx(struct emu_response *out, const struct mdc_ctx *ctx);
/* HTTP code of a Google status name (400 for an unknown one). */
int emu_http_code(const char *status);

/* --- generic resource store (persisted with --state) -------------------- */

/* KIND groups resources ("cluster", "operation", "persistentResource",
 * "pipelineJob"...); NAME is the full resource name.  */
/* Borrowed reference or NULL. */
json_object *emu_store_get(struct emu *e, const char *kind, const char *name);
/* Store RES (stolen) under NAME, replacing any previous one.  0 or MDC_ERR_NOMEM. */
int emu_store_put(struct emu *e, const char *kind, const char *name, json_object *res);
/* Remove; true if it was there. */
bool emu_store_del(struct emu *e, const char *kind, const char *name);
/* New array (caller puts) of copies of the resources of KIND whose name
 * starts with PREFIX (NULL = all), sorted by name. */
json_object *emu_store_list(struct emu *e, const char *kind, const char *prefix);
/* Write --state now (the server also does it after every mutating request
 * and every finished operation).  0 or an mdc_err. */
int emu_state_save(struct emu *e);

/* --- long-running operations ------------------------------------------- */

/* Called with the lock held when an operation finishes (after the final
 * resource was stored).  OP is the stored operation (borrowed); FAILED is
 * true when it ended in error (--fault operation:fail). */
typedef void (*emu_op_done_fn)(struct emu *e, json_object *op, bool failed, void *arg);

struct emu_op_spec {
	const char *parent;	/* "projects/P/locations/L" or a resource name: the
				 * operation is named PARENT/operations/N */
	const char *metadata_type; /* "type.googleapis.com/google.cloud.aiplatform.v1beta1.CreatePersistentResourceOperationMetadata" */
	const char *progress;	/* progressMessage while running and when done */
	const char *kind;	/* store kind of the final resource, or NULL */
	const char *res_name;	/* its name */
	json_object *final;	/* stolen: stored under KIND/RES_NAME and put in
				 * the op's "response" on success; NULL with
				 * DELETE_RES set removes the resource instead */
	bool delete_res;
	const char *response_type; /* "@type" added to the response (may be NULL) */
	const char *create_time; /* RFC 3339, NULL = now: the time the caller
				  * stamped on what the operation does */
	emu_op_done_fn done;	/* may be NULL; not persisted across restarts */
	void *arg;
	json_object *fail;	/* stolen, may be NULL: the op will end with this
				 * google.rpc.Status {code, message} as its error */
};

/* Start an operation that finishes after --lro-seconds.  Returns a new
 * reference to the operation JSON to answer with, or NULL on ENOMEM. */
json_object *emu_op_start(struct emu *e, const struct emu_op_spec *spec);
/* The stored operation named NAME (borrowed) or NULL. */
json_object *emu_op_get(struct emu *e, const char *name);

/* Current time as RFC 3339 UTC with milliseconds: "2026-11-29T14:00:00.123Z". */
void emu_now_rfc3339(char *buf, size_t sz);

/* --- locking ------------------------------------------------------------- */
void emu_lock(struct emu *e);
void emu_unlock(struct emu *e);

/* --- routes ---------------------------------------------------------------- */

/* Every request whose path contains "/persistentResources" or
 * "/pipelineJobs" (except operation GETs, ".../operations/OP", which the
 * server answers from the store) goes here.  Fill OUT; return 0.  (emu_pr.c) */
int emu_pr_route(struct emu *e, struct emu_request *r, struct emu_response *out);
/* The stored operation NAME also means when it uses a project number or
 * the location-scoped form projects/P/locations/L/operations/ID, as
 * gcloud prints it (borrowed, or NULL).  (emu_pr.c) */
json_object *emu_pr_op_find(struct emu *e, const char *name);
/* PARENT ("projects/P/locations/L") named with P's project number, as
 * the service names operations (projects/123456789012/locations/L/...),
 * in BUF; the number is stable per project id.  LEARN: names with the
 * number are understood from then on.  (emu_pr.c) */
const char *emu_parent_numbered(struct emu *e, const char *parent, bool learn, char *buf,
				size_t sz);
/* /emulator/v1/... test controls of persistent resources and pipelines:
 * 0 with OUT filled, 1 when PATH is not one of them.  (emu_pr.c) */
int emu_pr_control(struct emu *e, struct emu_request *r, struct emu_response *out);

#endif
