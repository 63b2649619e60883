/* mdc_json.c - see mdc_json.h. */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_json.h"
#include "mdc_str.h"

/* Fields whose values are user maps: their keys are data, not field names. */
static const char *const mdc_json_map_fields[] = {
	"labels", "config", "parameter_values", "annotations", "input_artifacts",
	"parameters", NULL,
};

/* Fields whose whole subtree is foreign data (a compiled pipeline keeps its
 * own snake_case keys at every depth): copied verbatim. */
static const char *const mdc_json_opaque_fields[] = {
	"pipeline_spec", NULL,
};

static bool mdc_json_in(const char *const *table, const char *key)
{
	for (size_t i = 0; table[i]; i++)
		if (mdc_key_eq(key, table[i]))
			return true;
	return false;
}

static bool mdc_json_is_map_field(const char *key)
{
	for (size_t i = 0; mdc_json_map_fields[i]; i++)
		if (mdc_key_eq(key, mdc_json_map_fields[i]))
			return true;
	return false;
}

int mdc_json_parse(const char *text, size_t len, json_object **out, struct mdc_ctx *ctx)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *obj;
	size_t used;
	int rc = 0;

	*out = NULL;
	if (len > (size_t) INT32_MAX)
		return mdc_fail(ctx, MDC_ERR_PARSE, "JSON text too large");
	tok = json_tokener_new();
	if (!tok)
		return mdc_nomem(ctx);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, text, (int) len);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "invalid JSON: unexpected end of input");
		goto out;
	}
	if (jerr != json_tokener_success || !obj) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "invalid JSON at offset %zu: %s",
			      json_tokener_get_parse_end(tok), json_tokener_error_desc(jerr));
		goto out;
	}
	used = json_tokener_get_parse_end(tok);
	while (used < len && isspace((unsigned char) text[used]))
		used++;
	if (used < len) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "invalid JSON: trailing data at offset %zu", used);
		goto out;
	}
	*out = obj;
	obj = NULL;
out:
	json_object_put(obj);
	json_tokener_free(tok);
	return rc;
}

int mdc_json_parse_file(const char *path, json_object **out, struct mdc_ctx *ctx)
{
	char *text;
	size_t len;
	int rc;

	*out = NULL;
	if ((rc = mdc_read_file(path, &text, &len, ctx)))
		return rc;
	rc = mdc_json_parse(text, len, out, ctx);
	if (rc)
		mdc_ctx_prefix(ctx, "%s", path);
	free(text);
	return rc;
}

void mdc_snake_to_camel(const char *in, char *out, size_t outsz)
{
	size_t o = 0;
	bool up = false;

	for (; *in && o + 1 < outsz; in++) {
		if (*in == '_' && o > 0) {
			up = true;
			continue;
		}
		out[o++] = up ? (char) toupper((unsigned char) *in) : *in;
		up = false;
	}
	out[o] = '\0';
}

void mdc_camel_to_snake(const char *in, char *out, size_t outsz)
{
	size_t o = 0;

	for (; *in && o + 2 < outsz; in++) {
		if (isupper((unsigned char) *in)) {
			if (o > 0)
				out[o++] = '_';
			out[o++] = (char) tolower((unsigned char) *in);
		} else {
			out[o++] = *in;
		}
	}
	out[o] = '\0';
}

json_object *mdc_json_get(const json_object *obj, const char *key)
{
	char alt[256];
	json_object *v = NULL;

	if (!obj || !json_object_is_type(obj, json_type_object))
		return NULL;
	if (json_object_object_get_ex(obj, key, &v))
		return v;
	mdc_snake_to_camel(key, alt, sizeof(alt));
	if (strcmp(alt, key) && json_object_object_get_ex(obj, alt, &v))
		return v;
	mdc_camel_to_snake(key, alt, sizeof(alt));
	if (strcmp(alt, key) && json_object_object_get_ex(obj, alt, &v))
		return v;
	return NULL;
}

json_object *mdc_json_get_path(const json_object *obj, const char *path)
{
	char part[256];
	const char *p = path, *dot;
	json_object *cur = (json_object *) obj;

	while (cur && *p) {
		size_t n;

		dot = strchr(p, '.');
		n = dot ? (size_t) (dot - p) : strlen(p);
		if (n >= sizeof(part))
			return NULL;
		memcpy(part, p, n);
		part[n] = '\0';
		cur = mdc_json_get(cur, part);
		p = dot ? dot + 1 : p + n;
	}
	return cur;
}

const char *mdc_json_get_str(const json_object *obj, const char *key, const char *def)
{
	json_object *v = mdc_json_get(obj, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : def;
}

int64_t mdc_json_get_int(const json_object *obj, const char *key, int64_t def)
{
	json_object *v = mdc_json_get(obj, key);

	if (!v)
		return def;
	if (json_object_is_type(v, json_type_int))
		return json_object_get_int64(v);
	/* proto3 JSON: int64 values travel as strings */
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		char *end;
		long long n = strtoll(s, &end, 10);

		if (*s && !*end)
			return n;
	}
	return def;
}

bool mdc_json_get_bool(const json_object *obj, const char *key, bool def)
{
	json_object *v = mdc_json_get(obj, key);

	return v && json_object_is_type(v, json_type_boolean) ? json_object_get_boolean(v) : def;
}

json_object *mdc_json_get_obj(const json_object *obj, const char *key)
{
	json_object *v = mdc_json_get(obj, key);

	return v && json_object_is_type(v, json_type_object) ? v : NULL;
}

json_object *mdc_json_get_arr(const json_object *obj, const char *key)
{
	json_object *v = mdc_json_get(obj, key);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

void mdc_json_del(json_object *obj, const char *key)
{
	char alt[256];

	if (!obj || !json_object_is_type(obj, json_type_object))
		return;
	json_object_object_del(obj, key);
	mdc_snake_to_camel(key, alt, sizeof(alt));
	json_object_object_del(obj, alt);
	mdc_camel_to_snake(key, alt, sizeof(alt));
	json_object_object_del(obj, alt);
}

int mdc_json_set(json_object *obj, const char *key, json_object *val)
{
	if (!obj || !json_object_is_type(obj, json_type_object)) {
		json_object_put(val);
		return MDC_ERR_INVAL;
	}
	mdc_json_del(obj, key);
	if (json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return MDC_ERR_NOMEM;
	}
	return 0;
}

json_object *mdc_json_mkpath(json_object *obj, const char *path)
{
	char part[256];
	const char *p = path, *dot;
	json_object *cur = obj;

	while (cur && *p) {
		json_object *next;
		size_t n;

		dot = strchr(p, '.');
		n = dot ? (size_t) (dot - p) : strlen(p);
		if (n >= sizeof(part))
			return NULL;
		memcpy(part, p, n);
		part[n] = '\0';
		next = mdc_json_get_obj(cur, part);
		if (!next) {
			next = json_object_new_object();
			if (!next || mdc_json_set(cur, part, next))
				return NULL;
		}
		cur = next;
		p = dot ? dot + 1 : p + n;
	}
	return cur;
}

static json_object *mdc_json_norm(const json_object *in, enum mdc_case case_, bool keep_keys)
{
	json_object *out = NULL;

	switch (json_object_get_type(in)) {
	case json_type_object:
		out = json_object_new_object();
		if (!out)
			return NULL;
		json_object_object_foreach((json_object *) in, k, v) {
			char name[256];
			json_object *c = !keep_keys && mdc_json_in(mdc_json_opaque_fields, k)
				? mdc_json_copy(v)
				: mdc_json_norm(v, case_, !keep_keys && mdc_json_is_map_field(k));

			if (v && !c)
				goto fail;
			if (keep_keys)
				snprintf(name, sizeof(name), "%s", k);
			else if (case_ == MDC_CASE_CAMEL)
				mdc_snake_to_camel(k, name, sizeof(name));
			else
				mdc_camel_to_snake(k, name, sizeof(name));
			/* "@type" and friends keep their spelling */
			if (k[0] == '@')
				snprintf(name, sizeof(name), "%s", k);
			if (json_object_object_add(out, name, c)) {
				json_object_put(c);
				goto fail;
			}
		}
		return out;
	case json_type_array: {
		size_t n = json_object_array_length(in);

		out = json_object_new_array_ext((int) n);
		if (!out)
			return NULL;
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(in, i);
			json_object *c = mdc_json_norm(e, case_, false);

			if (e && !c)
				goto fail;
			if (json_object_array_add(out, c)) {
				json_object_put(c);
				goto fail;
			}
		}
		return out;
	}
	default:
		return mdc_json_copy(in);
	}
fail:
	json_object_put(out);
	return NULL;
}

json_object *mdc_json_normalize(const json_object *in, enum mdc_case case_)
{
	if (!in)
		return NULL;
	return mdc_json_norm(in, case_, false);
}

json_object *mdc_json_copy(const json_object *in)
{
	json_object *out = NULL;

	if (!in)
		return NULL;
	if (json_object_deep_copy((json_object *) in, &out, NULL))
		return NULL;
	return out;
}

bool mdc_json_equal(const json_object *a, const json_object *b)
{
	return json_object_equal((json_object *) a, (json_object *) b) != 0;
}

const char *mdc_json_str(const json_object *obj, bool pretty)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		    (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN);

	return json_object_to_json_string_ext((json_object *) obj, flags);
}
