/* mdc_json.h - the one place json-c idioms live: strict parsing, typed
 * getters that accept snake_case and lowerCamelCase field names alike
 * (DESIGN C15: docs send snake_case, Google answers in lowerCamelCase),
 * and key-case conversion that leaves user maps (labels, config, ...) alone.
 *
 * Internal canonical form of every resource is snake_case; the emulator
 * converts to lowerCamelCase only when answering.
 *
 * Ownership: getters return borrowed references (never json_object_put
 * them); functions named *_new / *_parse / *_normalize return a new
 * reference the caller puts.
 */
/* layer lib/json/ owns json-c idioms, --format output, the intent;
 * it may include lib/base/, lib/slurmconf/ (scripts/check-layers). */
#ifndef MDC_JSON_H
#define MDC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include "mdc_err.h"

enum mdc_case { MDC_CASE_SNAKE, MDC_CASE_CAMEL };

/* Strict parse of exactly one JSON value (trailing garbage rejected). */
int mdc_json_parse(const char *text, size_t len, json_object **out, struct mdc_ctx *ctx);
int mdc_json_parse_file(const char *path, json_object **out, struct mdc_ctx *ctx);

/* "node_pool_ids" <-> "nodePoolIds".  Write into OUT (size OUTSZ). */
void mdc_snake_to_camel(const char *in, char *out, size_t outsz);
void mdc_camel_to_snake(const char *in, char *out, size_t outsz);

/* Field lookup under either spelling (KEY may be given in either). */
json_object *mdc_json_get(const json_object *obj, const char *key);
/* Dotted path, each component in either spelling: "orchestrator_spec.slurm_spec.config". */
json_object *mdc_json_get_path(const json_object *obj, const char *path);
/* Typed getters: DEF when absent or of another type. */
const char *mdc_json_get_str(const json_object *obj, const char *key, const char *def);
int64_t mdc_json_get_int(const json_object *obj, const char *key, int64_t def);
bool mdc_json_get_bool(const json_object *obj, const char *key, bool def);
/* NULL unless present and of that type. */
json_object *mdc_json_get_obj(const json_object *obj, const char *key);
json_object *mdc_json_get_arr(const json_object *obj, const char *key);

/* Set KEY (removing any other spelling of it first); steals VAL. */
int mdc_json_set(json_object *obj, const char *key, json_object *val);
/* Remove KEY under any spelling. */
void mdc_json_del(json_object *obj, const char *key);
/* Create the objects along PATH as needed and return the last (borrowed). */
json_object *mdc_json_mkpath(json_object *obj, const char *path);

/* Is KEY (either spelling) a field whose value is a user map (labels,
 * config, ...), keyed by data rather than field names? */
bool mdc_json_is_map_field(const char *key);

/* For a json_object_set_userdata() delete function, first thing: true
 * when it must return at once.  json-c 0.19 calls a non-empty container's
 * delete function twice with the same, by then freed, userdata (json-c
 * issue 934; Debian unstable): this clears O's userdata at the first
 * call, which re-enters the function once (answered true). */
bool mdc_json_userdata_reentered(json_object *o);
/* Deep copy with field names converted to CASE_; the values of map fields
 * (labels, config, parameter_values, annotations, ...) keep their keys. */
json_object *mdc_json_normalize(const json_object *in, enum mdc_case case_);
/* Deep copy (new reference), NULL on ENOMEM. */
json_object *mdc_json_copy(const json_object *in);
/* OBJ (an object or a list) will never change again: keep its compact
 * text on it, and serialise it from there.  Copies do not keep it. */
int mdc_json_keep_text(json_object *obj);
/* mdc_json_parse, the elements of the lists at LISTS (dotted snake_case
 * paths, NULL-terminated, at most 4) that are byte for byte the kept text
 * of CUR's element at the same index being CUR's own (new references):
 * a whole list sent back unchanged is not parsed again.  Only
 * mdc_json_keep_text sets userdata on objects. */
int mdc_json_parse_reusing(const char *text, size_t len, const json_object *cur,
			   const char *const *lists, json_object **out, struct mdc_ctx *ctx);
/* Deep equality, object key order ignored. */
bool mdc_json_equal(const json_object *a, const json_object *b);

/* Serialise: PRETTY = two-space indentation; slashes are not escaped.
 * The string is owned by OBJ. */
const char *mdc_json_str(const json_object *obj, bool pretty);
/* Compact text of OBJ, *LEN bytes (not NUL-terminated there), made in the
 * print buffer of *HOLDER (a one-element list made on the first call, the
 * caller's to put), which stays grown: texts of like size one after
 * another cost no growing buffer each.  Valid until HOLDER's next use. */
const char *mdc_json_str_held(json_object **holder, const json_object *obj, size_t *len);

#endif
