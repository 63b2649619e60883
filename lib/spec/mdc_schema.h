/* mdc_schema.h - the published ModelDevelopmentCluster field tree, written
 * once: names, types, required, immutable, output-only, enums, limits.
 * (owner: emulator)
 *
 * The source is the generated resource (GoogleCloudPlatform/magic-modules
 * mmv1/products/vertexai/ModelDevelopmentCluster.yaml, which Terraform's
 * google_vertex_ai_model_development_cluster is generated from), then the
 * training-clusters documentation and the service's own answers; each
 * entry of the table in mdc_schema.c names its source.  Where they
 * disagree the generated resource wins and the entry says so.
 *
 * Two users:
 *   - the emulator validates every request body with it (unknown names,
 *     types, enums, limits; required fields at create, immutable fields on
 *     an update), as the service does;
 *   - the client calls mdc_schema_check before sending a body, so that a
 *     field the service would refuse is refused here, naming it.
 *
 * Paths are dotted snake_case without list indexes
 * ("node_pools.machine_spec.machine_type"); a repeated message's element
 * fields sit under the list's own path.  Bodies may use either spelling
 * (snake_case or lowerCamelCase).  Nothing here does I/O or allocates
 * per call beyond the error message.
 */
#ifndef MDC_SCHEMA_H
#define MDC_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "mdc_err.h"

enum mdc_schema_type {
	MDC_SCHEMA_MESSAGE,	/* an object of the fields listed under it */
	MDC_SCHEMA_STRING,
	MDC_SCHEMA_INT,		/* a JSON integer or a string of one (proto3 JSON) */
	MDC_SCHEMA_BOOL,
	MDC_SCHEMA_ENUM,	/* a string among VALUES */
	MDC_SCHEMA_DURATION,	/* protobuf Duration: "3600s", "1.5s" */
	MDC_SCHEMA_MAP,		/* string -> string, keys are data (labels, config) */
	MDC_SCHEMA_SLURM_MAP,	/* legacy scheduling/accounting: keys are slurm.conf
				 * parameters in snake_case, values scalars */
	MDC_SCHEMA_ANY,		/* an output-only tree the schema does not descend */
};

enum {
	MDC_SCHEMA_REPEATED = 1,	/* a list of the type */
	MDC_SCHEMA_REQUIRED = 2,	/* must be set when its parent is (at create) */
	MDC_SCHEMA_IMMUTABLE = 4,	/* cannot change after create */
	MDC_SCHEMA_OUTPUT = 8,		/* set by the service only */
};

struct mdc_schema_field {
	const char *path;		/* dotted snake_case */
	enum mdc_schema_type type;
	unsigned flags;
	const char *const *values;	/* ENUM: NULL-terminated list */
	long long min, max;		/* INT: bounds (min > max: none); STRING:
					 * max = most characters (0: none) */
	const char *def;		/* what the service fills in when unset (NULL:
					 * nothing); documentation, not applied here */
};

/* The field at PATH (dotted, each component in either spelling), or NULL. */
const struct mdc_schema_field *mdc_schema_find(const char *path);
/* The field NAME (either spelling) under PARENT (NULL: the resource itself). */
const struct mdc_schema_field *mdc_schema_child(const struct mdc_schema_field *parent,
						const char *name);
/* The Nth field in table order, NULL past the end (for docs and tests). */
const struct mdc_schema_field *mdc_schema_at(size_t n);

/* How a check judges (mdc_schema_check_ex). */
enum {
	/* output-only fields are ignored, not refused, and not descended:
	 * the service ignores them in a request (the emulator) */
	MDC_SCHEMA_OUTPUT_IGNORED = 1,
	/* after the field checks, every required field must be set (a body
	 * meant to create a cluster) */
	MDC_SCHEMA_CREATE = 2,
	/* names starting with '_' are skipped: the emulator's bookkeeping in
	 * a stored resource (a request's are refused as unknown) */
	MDC_SCHEMA_INTERNAL_IGNORED = 4,
};

/* The service's own validation lists every finding of a body ("List of
 * found errors: 1.Field: ... 2.Field: ..."); the first ones are kept. */
#define MDC_SCHEMA_MAX_FOUND 8

struct mdc_schema_found {
	char field[512];	/* as mdc_schema_result.field */
	char msg[512];
};

struct mdc_schema_result {
	/* out: where the refused value is, as the service names it:
	 * "model_development_cluster.node_pools[1].boot_disk.boot_disk_type" */
	char field[512];
	/* out: the refusal is the API front end's (an unknown name, a value
	 * of the wrong JSON type), not the service's own validation: the
	 * two are worded differently */
	bool transcoding;
	/* out: some name in the body is not snake_case */
	bool camel;
	/* out: the service's findings (none when TRANSCODING: the front end
	 * stops at its first refusal), in body order, required fields last;
	 * NFOUND counts them all, FOUND holds the first MDC_SCHEMA_MAX_FOUND.
	 * FIELD is the first one's. */
	size_t nfound;
	struct mdc_schema_found found[MDC_SCHEMA_MAX_FOUND];
};

/* Check BODY, the value of the field at PATH (NULL or "": a whole
 * ModelDevelopmentCluster; "node_pools" a list of pools or one pool;
 * "orchestrator_spec.slurm_spec" that message...).  Refuses, as
 * MDC_ERR_INVAL with a message naming the field: a name that is no field
 * (in either spelling), a value of the wrong type, an output-only field,
 * an enum value not listed, a string over its length or an integer out
 * of its bounds.  The service's own findings (all but an unknown name or
 * a wrong JSON type, which stop the check) are all collected; the error's
 * message is the first one's, followed by the others after "; ".  The
 * client calls this before sending a body. */
int mdc_schema_check(const json_object *body, const char *path, struct mdc_ctx *err);
/* The same with HOW (MDC_SCHEMA_* check flags) and RES (may be NULL). */
int mdc_schema_check_ex(const json_object *body, const char *path, unsigned how,
			struct mdc_schema_result *res, struct mdc_ctx *err);

/* The field (full name, as in mdc_schema_result.field) the last failed
 * check in this thread named; "" if none. */
const char *mdc_schema_last_field(void);

/* Is the field at PATH (dotted, either spelling) immutable?  A field under
 * an immutable message is too. */
bool mdc_schema_immutable(const char *path);

#endif
