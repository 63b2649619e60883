/* mdc_pr_yaml.h - YAML (one document) to JSON, for --config files and
 * compiled pipelines.  (owner: pr)
 * *OUT gets a new reference (json_object_put it). */
#ifndef MDC_PR_YAML_H
#define MDC_PR_YAML_H

#include <stddef.h>
#include <json-c/json.h>
#include "mdc_err.h"

/* Types as PyYAML's safe_load resolves them: quoted scalars are strings,
 * plain ones may be null/bool/int/float; duplicate keys and non-scalar
 * keys are refused.  JSON text is YAML too.  WHAT names the text in
 * messages. */
int mdc_pr_yaml_parse(const char *text, size_t len, const char *what,
		      json_object **out, struct mdc_ctx *ctx);
/* The same for the file PATH. */
int mdc_pr_yaml_load(const char *path, json_object **out, struct mdc_ctx *ctx);

#endif
