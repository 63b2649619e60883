/* mdc_format.h - gcloud's --format for our front ends: json, yaml and
 * value(FIELD,...), applied to a JSON document (a resource, a list of
 * them, a plan...).  One implementation, used by every command that takes
 * --format.  (owner: scontrol)
 *
 * value(a.b,c): one line per resource (per element when the document is
 * a list), the fields tab-separated; a field that is a list of scalars is
 * joined with ';' as gcloud does; a missing field is empty.  Field paths
 * are dotted and accept snake_case or lowerCamelCase (mdc_json_get_path).
 */
#ifndef MDC_FORMAT_H
#define MDC_FORMAT_H

#include <json-c/json.h>
#include "mdc_buf.h"
#include "mdc_err.h"
#include "mdc_str.h"

enum mdc_format_kind {
	MDC_FORMAT_TEXT,	/* the command's own text */
	MDC_FORMAT_JSON,
	MDC_FORMAT_YAML,
	MDC_FORMAT_VALUE,
};

struct mdc_format {
	enum mdc_format_kind kind;
	struct mdc_strv fields;		/* MDC_FORMAT_VALUE: the field paths */
};
#define MDC_FORMAT_INIT { MDC_FORMAT_TEXT, MDC_STRV_INIT }

/* Parse SPEC ("text", "json", "yaml", "value(a,b.c)") into F (reset
 * first).  MDC_ERR_USAGE with a message naming what is accepted. */
int mdc_format_parse(const char *spec, struct mdc_format *f, struct mdc_ctx *ctx);
/* Append OBJ in F's form to OUT (TEXT is written as JSON: the caller
 * prints its own text).  Returns 0 or MDC_ERR_NOMEM. */
int mdc_format_write(const struct mdc_format *f, const json_object *obj, struct mdc_buf *out);
void mdc_format_free(struct mdc_format *f);

#endif
