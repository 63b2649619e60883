/* mdc_format.c - --format json|yaml|value(...) (see mdc_format.h). */
#include "config.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_format.h"
#include "mdc_json.h"

void mdc_format_free(struct mdc_format *f)
{
	mdc_strv_free(&f->fields);
	f->kind = MDC_FORMAT_TEXT;
}

int mdc_format_parse(const char *spec, struct mdc_format *f, struct mdc_ctx *ctx)
{
	static const struct { const char *name; enum mdc_format_kind kind; } plain[] = {
		{ "text", MDC_FORMAT_TEXT }, { "json", MDC_FORMAT_JSON }, { "yaml", MDC_FORMAT_YAML },
	};
	size_t n = strlen(spec);

	mdc_format_free(f);
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(spec, plain[i].name)) {
			f->kind = plain[i].kind;
			return 0;
		}
	if (!strncmp(spec, "value(", 6) && n > 7 && spec[n - 1] == ')') {
		char *inner = strndup(spec + 6, n - 7);
		int rc = inner ? mdc_strv_split(&f->fields, inner, ",") : MDC_ERR_NOMEM;

		free(inner);
		if (rc)
			return mdc_nomem(ctx);
		for (size_t i = 0; i < f->fields.n; i++)
			for (const char *p = f->fields.v[i]; *p; p++)
				if (!isalnum((unsigned char) *p) && *p != '_' && *p != '.') {
					rc = mdc_fail(ctx, MDC_ERR_USAGE,
						      "--format '%s': field '%s': give dotted field names only "
						      "(gcloud's :label= and other attributes are not supported)",
						      spec, f->fields.v[i]);
					mdc_format_free(f);
					return rc;
				}
		if (f->fields.n) {
			f->kind = MDC_FORMAT_VALUE;
			return 0;
		}
		mdc_format_free(f);
	}
	return mdc_fail(ctx, MDC_ERR_USAGE, "--format '%s': use text, json, yaml or value(FIELD,...)",
			spec);
}

/* ---- yaml ------------------------------------------------------------- */

/* A string YAML reads back as the same string when written plain. */
static bool yaml_plain_ok(const char *s)
{
	static const char *const words[] = {
		"true", "false", "yes", "no", "on", "off", "null", "~", "y", "n", NULL,
	};
	const char *p;
	char *end;

	if (!*s || isspace((unsigned char) *s) || isspace((unsigned char) s[strlen(s) - 1]))
		return false;
	/* indicators; a leading digit or sign may read as a number, a date
	 * or a YAML 1.1 sexagesimal (01:30) */
	if (strchr("-+.?:,[]{}#&*!|>'\"%@`", *s) || isdigit((unsigned char) *s))
		return false;
	for (size_t i = 0; words[i]; i++)
		if (!strcasecmp(s, words[i]))
			return false;
	strtod(s, &end);
	if (!*end)
		return false;	/* it would read as a number */
	for (p = s; *p; p++) {
		if ((unsigned char) *p < 0x20 || *p == 0x7f)
			return false;
		if ((*p == ':' && (p[1] == ' ' || !p[1])) || (*p == '#' && p[-1] == ' '))
			return false;
	}
	return true;
}

static int yaml_scalar(struct mdc_buf *out, const json_object *v)
{
	const char *s;

	if (!v)
		return mdc_buf_adds(out, "null");
	if (!json_object_is_type(v, json_type_string))
		return mdc_buf_adds(out, json_object_to_json_string_ext((json_object *) v,
									JSON_C_TO_STRING_PLAIN));
	s = json_object_get_string((json_object *) v);
	if (yaml_plain_ok(s))
		return mdc_buf_adds(out, s);
	/* a JSON string is a valid YAML double-quoted scalar */
	return mdc_buf_adds(out, json_object_to_json_string_ext((json_object *) v,
								JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
}

static bool yaml_is_empty_coll(const json_object *v)
{
	return (json_object_is_type(v, json_type_object) && !json_object_object_length(v)) ||
	       (json_object_is_type(v, json_type_array) && !json_object_array_length(v));
}

static int yaml_node(struct mdc_buf *out, const json_object *v, int indent);

/* After "key:" or "- ": a scalar or empty collection on the same line,
 * else a nested block. */
static int yaml_value(struct mdc_buf *out, const json_object *v, int indent, bool in_seq)
{
	int rc = 0;

	if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array)) {
		if (yaml_is_empty_coll(v))
			return mdc_buf_adds(out, json_object_is_type(v, json_type_array) ? " []\n" : " {}\n");
		if (in_seq && json_object_is_type(v, json_type_object)) {
			/* "- key: v" then the other keys aligned under it */
			rc = mdc_buf_addc(out, ' ');
			return rc ? rc : yaml_node(out, v, -(indent + 2));
		}
		rc = mdc_buf_addc(out, '\n');
		return rc ? rc : yaml_node(out, v, indent + 2);
	}
	if ((rc = mdc_buf_addc(out, ' ')) || (rc = yaml_scalar(out, v)))
		return rc;
	return mdc_buf_addc(out, '\n');
}

/* A block at INDENT; a negative INDENT: the first line is already
 * indented (continues "- "). */
static int yaml_node(struct mdc_buf *out, const json_object *v, int indent)
{
	bool first = true;
	int ind = indent < 0 ? -indent : indent, rc = 0;

	if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach((json_object *) v, k, e) {
			if (!(first && indent < 0))
				rc = mdc_buf_addf(out, "%*s", ind, "");
			first = false;
			if (rc)
				return rc;
			if (yaml_plain_ok(k))
				rc = mdc_buf_adds(out, k);
			else {
				json_object *ks = json_object_new_string(k);

				rc = ks ? yaml_scalar(out, ks) : MDC_ERR_NOMEM;
				json_object_put(ks);
			}
			if (rc || (rc = mdc_buf_addc(out, ':')) || (rc = yaml_value(out, e, ind, false)))
				return rc;
		}
		return 0;
	}
	if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			if (!(first && indent < 0))
				rc = mdc_buf_addf(out, "%*s", ind, "");
			first = false;
			if (rc || (rc = mdc_buf_addc(out, '-')) ||
			    (rc = yaml_value(out, json_object_array_get_idx(v, i), ind, true)))
				return rc;
		}
		return 0;
	}
	if ((rc = yaml_scalar(out, v)))
		return rc;
	return mdc_buf_addc(out, '\n');
}

/* ---- value(...) ------------------------------------------------------- */

static int value_cell(struct mdc_buf *out, const json_object *v)
{
	int rc = 0;

	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_string))
		return mdc_buf_adds(out, json_object_get_string((json_object *) v));
	if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v) && !rc; i++) {
			json_object *e = json_object_array_get_idx(v, i);

			if (i)
				rc = mdc_buf_addc(out, ';');
			if (!rc)
				rc = value_cell(out, e);
		}
		return rc;
	}
	return mdc_buf_adds(out, json_object_to_json_string_ext((json_object *) v,
								JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int value_row(const struct mdc_format *f, const json_object *obj, struct mdc_buf *out)
{
	int rc = 0;

	for (size_t i = 0; i < f->fields.n && !rc; i++) {
		if (i)
			rc = mdc_buf_addc(out, '\t');
		if (!rc)
			rc = value_cell(out, mdc_json_get_path(obj, f->fields.v[i]));
	}
	return rc ? rc : mdc_buf_addc(out, '\n');
}

int mdc_format_write(const struct mdc_format *f, const json_object *obj, struct mdc_buf *out)
{
	int rc = 0;

	switch (f->kind) {
	case MDC_FORMAT_YAML:
		if (yaml_is_empty_coll(obj))
			return mdc_buf_adds(out, json_object_is_type(obj, json_type_array) ? "[]\n" : "{}\n") ?
			       MDC_ERR_NOMEM : 0;
		return yaml_node(out, obj, 0) ? MDC_ERR_NOMEM : 0;
	case MDC_FORMAT_VALUE:
		if (json_object_is_type(obj, json_type_array)) {
			for (size_t i = 0; i < json_object_array_length(obj) && !rc; i++)
				rc = value_row(f, json_object_array_get_idx(obj, i), out);
			return rc ? MDC_ERR_NOMEM : 0;
		}
		return value_row(f, obj, out) ? MDC_ERR_NOMEM : 0;
	default:
		if (mdc_buf_adds(out, obj ? mdc_json_str(obj, true) : "null") || mdc_buf_addc(out, '\n'))
			return MDC_ERR_NOMEM;
		return 0;
	}
}
