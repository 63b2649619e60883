/* mdc_rules.h - the managed API contract (DESIGN section 3, C1-C13) as pure
 * functions.  The emulator calls them to enforce the rules; the client
 * (plan engine) calls the same functions to refuse bad requests before
 * sending anything.  So the contract is written once.  (owner: emulator)
 *
 * Resources are json-c objects in either field spelling; results are in
 * snake_case.  Nothing here does I/O.
 */
/* layer lib/spec/ owns the cluster resource's schema and the contract rules;
 * it may include lib/base/ to lib/render/ (scripts/check-layers). */
#ifndef MDC_RULES_H
#define MDC_RULES_H

#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_err.h"
#include "mdc_str.h"
#include "sc_options.h"

enum mdc_update_mode {
	MDC_MODE_UNSPECIFIED,		/* = USER_AND_SERVICE */
	MDC_MODE_USER_ONLY,
	MDC_MODE_USER_AND_SERVICE,
};

/* "USER_ONLY" -> MDC_MODE_USER_ONLY; NULL/"" -> UNSPECIFIED; -1 if unknown. */
int mdc_mode_parse(const char *s);
const char *mdc_mode_name(enum mdc_update_mode mode);

/* C1: canonical snake_case spelling of a mask path given in either
 * spelling ("orchestratorSpec.slurmSpec.config"), or NULL if the path is
 * not allowed. */
const char *mdc_rules_mask_path(const char *path);
/* Split a comma-separated updateMask into canonical paths; the first
 * unknown path is an MDC_ERR_INVAL naming it and listing the allowed ones. */
int mdc_rules_parse_mask(const char *mask, struct mdc_strv *paths, struct mdc_ctx *ctx);

/* Bounds the service's spec keeps (see mdc-emulator(8), LIMITS).  A pool
 * of more nodes than Slurm's hostlist takes in one range (64K hosts)
 * killed slurmctld ("Too many hosts in range"); 10000 stays far below it
 * and above any real managed cluster's pool. */
#define MDC_RULES_MAX_POOL_NODES 10000
#define MDC_RULES_MAX_POOLS 64
#define MDC_RULES_MAX_PARTITIONS 256
#define MDC_RULES_MAX_VALUE 4096	/* bytes of one Slurm setting's value */
#define MDC_RULES_MAX_ID 63		/* characters of a partition or node pool id */
#define MDC_RULES_MAX_LABELS 64		/* Google's label limits */
#define MDC_RULES_MAX_LABEL_CHARS 63

/* Is S valid UTF-8 (no overlong forms, no surrogates, at most U+10FFFF)? */
bool mdc_rules_utf8_ok(const char *s);

/* The one key/value rule (C7, C10, C13) every writer calls before sending
 * and the emulator calls on every map: KEY is a known slurm.conf key of
 * SCOPE (enum sc_scope bit), not refused or service-managed (flags of the
 * option table), VALUE (NULL: only the key is checked, for an unset) is
 * valid UTF-8 without control characters, at most MDC_RULES_MAX_VALUE
 * bytes, renderable on a slurm.conf line and of the key's type.  WHERE
 * prefixes the message ("config", "partition 'gpu'").  On success *OPT
 * (may be NULL) gets the table entry (canonical name).  Errors:
 * MDC_ERR_REFUSED for keys the service refuses and for control
 * characters, MDC_ERR_INVAL for unknown keys and bad values. */
int mdc_rules_check_setting(const char *key, const char *value, unsigned scope,
			    const char *where, const struct sc_option **opt,
			    struct mdc_ctx *ctx);

/* A partition or node pool id, as the service and a slurm.conf line take
 * it: 1 to MDC_RULES_MAX_ID of [A-Za-z0-9_.-], starting with a letter or
 * digit, not Slurm's reserved DEFAULT.  WHAT names it ("partition").
 * MDC_ERR_INVAL when refused. */
int mdc_rules_check_id(const char *what, const char *id, struct mdc_ctx *ctx);

/* One label (Google's rules): KEY 1-63 characters, starting with a
 * lower-case letter or an international character, then lower-case
 * letters, digits, '_', '-' or international characters; VALUE (NULL:
 * key only) 0-63 of the same.  MDC_ERR_INVAL when refused. */
int mdc_rules_check_label(const char *key, const char *value, struct mdc_ctx *ctx);

/* A node pool's node counts: integers, 0 <= MIN <= MAX <= MDC_RULES_MAX_POOL_NODES. */
int mdc_rules_check_node_counts(const char *pool, long long min, long long max,
				struct mdc_ctx *ctx);

/* C7/C10: check one Slurm settings map (config, a partition's config or a
 * node set's config) for SCOPE (enum sc_scope bit): unknown keys, refused
 * keys (the error names the key and what to use instead), service-managed
 * keys, control characters in values, two keys that are the same key
 * modulo case/underscores.  WHERE prefixes messages ("partition 'gpu'"). */
int mdc_rules_check_config_map(const json_object *map, unsigned scope,
			       const char *where, struct mdc_ctx *ctx);

/* The field (snake_case path) the last failed check in this thread was
 * about, "" if none: the emulator names it in a BadRequest detail.  Static
 * per-thread storage; valid until the next call. */
const char *mdc_rules_last_field(void);

/* Cluster id rule (^[a-z][a-z0-9]{0,9}$). */
bool mdc_rules_cluster_id_ok(const char *id);

/* Default image the service resolves for a machine type (C11).  The
 * caller supplies the current table (machine_type -> image) as a JSON
 * object; a type missing from it resolves to "<machine_type>-default". */
struct mdc_images {
	json_object *defaults;	/* borrowed: {"n2-standard-8": "img-v1", ...} */
};

struct mdc_patch_result {
	json_object *cluster;		/* the new resource (new reference, snake_case) */
	struct mdc_strv recreated;	/* node pool ids whose image moved (C11) */
	struct mdc_strv changed;	/* canonical mask paths whose value changed */
	bool nodes_changed;		/* Slurm node set changed: restart, not reconfigure */
};

/* Image bookkeeping (C11): the pools pinned by a set node_image are kept
 * in the resource under the internal key "_pinned_pools" (an array of pool
 * ids) so later USER_AND_SERVICE updates leave them alone.  Keys starting
 * with '_' are not part of the API: the emulator strips them from answers;
 * a client must not send them.  A CURRENT read from the API has no pins and
 * may report node_image "" (never updated): predictions from it are then
 * conservative (an unpinned pool with an unknown image counts as moved
 * under USER_AND_SERVICE).
 *
 * Apply a PATCH as the service does: C1 allowed paths, C2 named-but-absent
 * = cleared, C3 no mask = whole-payload diff (omitted = cleared), C4 update
 * modes, C5 full replacement of lists, C6 default partition rules, C7 map
 * replacement and key checks, C9 config vs scheduling/accounting, C10
 * refused keys and control characters, C11 image resolution and
 * recreation.  MASK may be NULL (C3).  On success fills RES (free with
 * mdc_patch_result_free); on a violation returns MDC_ERR_INVAL with the
 * message the service would give, naming the field or key. */
int mdc_rules_apply_patch(const json_object *current, const json_object *payload,
			  const struct mdc_strv *mask, enum mdc_update_mode mode,
			  const struct mdc_images *images,
			  struct mdc_patch_result *res, struct mdc_ctx *ctx);
/* The same on CUR and PAY already in snake_case (the emulator's stored
 * form and its normalised request body), without copying them: the
 * resulting cluster shares every subtree the update leaves alone with CUR
 * and the replaced ones with PAY (references), so a PATCH costs what it
 * changes.  Nothing shared is changed here; the caller in turn must not
 * change CUR, PAY or anything in them in place while RES->cluster lives
 * (replace an object instead), and must drop its references to them where
 * RES->cluster's are handled (the same thread or lock: json-c's reference
 * counts are not atomic). */
int mdc_rules_apply_patch_shared(json_object *cur, json_object *pay,
				 const struct mdc_strv *mask, enum mdc_update_mode mode,
				 const struct mdc_images *images,
				 struct mdc_patch_result *res, struct mdc_ctx *ctx);
void mdc_patch_result_free(struct mdc_patch_result *res);

/* Validate a whole resource for create (same key/field rules, plus the
 * cluster id).  Fills the resolved node images into a new copy (OUT). */
int mdc_rules_check_create(const char *cluster_id, const json_object *cluster,
			   const struct mdc_images *images, json_object **out,
			   struct mdc_ctx *ctx);

#endif
