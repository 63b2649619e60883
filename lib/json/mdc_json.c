/* mdc_json.c - see mdc_json.h. */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_buf.h"
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

bool mdc_json_is_map_field(const char *key)
{
	for (size_t i = 0; mdc_json_map_fields[i]; i++)
		if (mdc_key_eq(key, mdc_json_map_fields[i]))
			return true;
	return false;
}

/* json-c 0.18's strict mode refuses every byte from 0x80 in a string
 * ("invalid string sequence": its control-character check reads a signed
 * char; json-c issues 875 and 892), so Debian 13's json-c refuses any
 * non-ASCII text.  Whether this json-c does is asked once, of itself. */
static bool mdc_json_strict_refuses_utf8(void)
{
	static int known;	/* 0 not yet asked, 1 accepts, 2 refuses */
	int k = __atomic_load_n(&known, __ATOMIC_ACQUIRE);

	if (!k) {
		struct json_tokener *tok = json_tokener_new();
		json_object *o;

		if (!tok)
			return false;	/* asked again next time */
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
		o = json_tokener_parse_ex(tok, "\"\xc3\xa9\"", 4);
		k = o ? 1 : 2;
		json_object_put(o);
		json_tokener_free(tok);
		__atomic_store_n(&known, k, __ATOMIC_RELEASE);
	}
	return k == 2;
}

/* TEXT with each UTF-8 character from U+0080 written as its \u escape
 * (a surrogate pair above U+FFFF), for such a json-c: the same JSON value
 * (outside a string either is an error).  NULL with *BAD the offset of a
 * byte that is no UTF-8, or on no memory (*BAD = LEN). */
static char *mdc_json_escape_utf8(const char *text, size_t len, size_t *out_len, size_t *bad)
{
	const unsigned char *t = (const unsigned char *) text;
	char *o = malloc(len * 3 + 1), *p = o;	/* 2 bytes -> 6, 4 -> 12 at most */

	*bad = len;
	if (!o)
		return NULL;
	for (size_t i = 0; i < len;) {
		unsigned c = t[i], n, cp;
		static const unsigned min[] = { 0, 0x80, 0x800, 0x10000 };

		if (c < 0x80) {
			*p++ = (char) t[i++];
			continue;
		}
		n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
		cp = c & (0x3f >> n);
		if (!n || c > 0xf4 || len - i <= n)
			goto bad;
		for (unsigned j = 1; j <= n; j++) {
			if ((t[i + j] & 0xc0) != 0x80)
				goto bad;
			cp = cp << 6 | (t[i + j] & 0x3f);
		}
		if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			goto bad;
		if (cp > 0xffff) {
			cp -= 0x10000;
			p += sprintf(p, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
		} else {
			p += sprintf(p, "\\u%04x", cp);
		}
		i += n + 1;
		continue;
bad:
		*bad = i;
		free(o);
		return NULL;
	}
	*p = '\0';
	*out_len = (size_t) (p - o);
	return o;
}

bool mdc_json_userdata_reentered(json_object *o)
{
	static __thread const json_object *clearing;

	if (clearing == o)
		return true;
	clearing = o;
	json_object_set_userdata(o, NULL, NULL);
	clearing = NULL;
	return false;
}

int mdc_json_parse(const char *text, size_t len, json_object **out, struct mdc_ctx *ctx)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *obj;
	size_t used;
	char *esc = NULL;
	int rc = 0;

	*out = NULL;
	if (len > (size_t) INT32_MAX)
		return mdc_fail(ctx, MDC_ERR_PARSE, "JSON text too large");
	for (size_t i = 0; i < len; i++) {
		size_t bad;

		if (!((unsigned char) text[i] & 0x80))
			continue;
		if (!mdc_json_strict_refuses_utf8())
			break;
		esc = mdc_json_escape_utf8(text, len, &len, &bad);
		if (!esc)
			return bad < len ? mdc_fail(ctx, MDC_ERR_PARSE,
						    "invalid JSON at offset %zu: invalid UTF-8", bad)
					 : mdc_nomem(ctx);
		text = esc;
		if (len > (size_t) INT32_MAX) {
			free(esc);
			return mdc_fail(ctx, MDC_ERR_PARSE, "JSON text too large");
		}
		break;
	}
	tok = json_tokener_new();
	if (!tok) {
		free(esc);
		return mdc_nomem(ctx);
	}
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
	free(esc);
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

/* --- text kept on values that never change --------------------------------
 *
 * The emulator serialises the same stored list elements again and again
 * (a journal line, a finished operation's response, a snapshot), while a
 * stored value is never changed once kept.  Such a value carries its
 * compact text as json-c userdata with a serialiser that copies it. */

#define MDC_JSON_FLAGS(pretty) (JSON_C_TO_STRING_NOSLASHESCAPE | \
				((pretty) ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : \
				 JSON_C_TO_STRING_PLAIN))

static void mdc_json_kept_free(json_object *obj, void *text)
{
	if (!mdc_json_userdata_reentered(obj))
		free(text);
}

static int mdc_json_kept_out(json_object *obj, struct printbuf *pb, int level, int flags)
{
	const char *t = json_object_get_userdata(obj), *nl;
	json_object *fresh = NULL;
	int rc = 0;

	if (flags != MDC_JSON_FLAGS(false)) {
		/* other flags are rare (answers are camelCase copies): made
		 * from the text each time, the kept text left as it is, since
		 * other threads may be serialising OBJ too */
		if (!(fresh = json_tokener_parse(t)) || !(t = json_object_to_json_string_ext(fresh, flags))) {
			json_object_put(fresh);
			return -1;
		}
	}
	for (; rc == 0; t = nl + 1) {
		size_t n;

		/* the text is at level 0: a pretty one indents its lines by LEVEL */
		nl = level && (flags & JSON_C_TO_STRING_PRETTY) ? strchr(t, '\n') : NULL;
		n = nl ? (size_t) (nl - t) + 1 : strlen(t);
		if (printbuf_memappend(pb, t, (int) n) < 0)
			rc = -1;
		else if (nl && (flags & JSON_C_TO_STRING_PRETTY_TAB))
			rc = printbuf_memset(pb, -1, '\t', level) < 0 ? -1 : 0;
		else if (nl)
			rc = printbuf_memset(pb, -1, ' ', 2 * level) < 0 ? -1 : 0;
		if (!nl)
			break;
	}
	json_object_put(fresh);
	return rc;
}

int mdc_json_keep_text(json_object *obj)
{
	json_object *wrap;
	const char *s;
	char *text;
	size_t n;

	if ((!json_object_is_type(obj, json_type_object) && !json_object_is_type(obj, json_type_array)) ||
	    json_object_get_userdata(obj))
		return 0;
	/* through a one-element list: OBJ itself would keep a second copy of
	 * the text in its own print buffer */
	if (!(wrap = json_object_new_array()) || json_object_array_add(wrap, json_object_get(obj))) {
		json_object_put(wrap);
		return MDC_ERR_NOMEM;
	}
	s = json_object_to_json_string_ext(wrap, MDC_JSON_FLAGS(false));
	n = s ? strlen(s) : 0;
	if (n < 2 || !(text = strndup(s + 1, n - 2))) {
		json_object_put(wrap);
		return MDC_ERR_NOMEM;
	}
	json_object_put(wrap);
	json_object_set_serializer(obj, mdc_json_kept_out, text, mdc_json_kept_free);
	return 0;
}

/* --- a parse that takes unchanged list elements from the current value -----
 *
 * An update sends a whole list back (full replacement) with most elements
 * as they are.  A structural scan finds, in the lists at the given paths,
 * the elements whose text is byte for byte the kept text of the current
 * element at the same index; json-c parses the text with those written
 * as null, and the current elements take their places.  Replacing a valid
 * value by another keeps the text valid or invalid alike; anything the
 * scan does not follow (an escaped or repeated key on the way, a length
 * that differs after the parse) parses the text as sent. */

#define MDC_SCAN_DEPTH 64
#define MDC_SCAN_SEEN 8

struct mdc_scan {
	const char *end;
	const char *const *lists;	/* dotted snake_case paths */
	struct mdc_buf *out;		/* the text, reused elements as null */
	const char *copied;		/* the text before this is in OUT */
	size_t *hits, nhits, ahits;	/* (list, index) pairs, flattened */
	size_t counts[4];		/* elements seen in each list */
	bool bail;
};

static const char *mdc_scan_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* P at '"': past the closing quote, NULL if unterminated. */
static const char *mdc_scan_str(const char *p, const char *e, bool *escaped)
{
	for (p++; p < e; p++) {
		if (*p == '\\') {
			*escaped = true;
			if (++p >= e)
				return NULL;
		} else if (*p == '"') {
			return p + 1;
		}
	}
	return NULL;
}

/* Is PATH (length N) one of the lists (*LIST set) or on the way to one? */
static bool mdc_scan_on_way(const struct mdc_scan *sc, const char *path, size_t n, int *list)
{
	bool on = false;

	*list = -1;
	for (int i = 0; sc->lists[i]; i++) {
		if (strncmp(sc->lists[i], path, n))
			continue;
		if (!sc->lists[i][n])
			*list = i;
		on = on || !sc->lists[i][n] || sc->lists[i][n] == '.';
	}
	return on;
}

static const char *mdc_scan_value(struct mdc_scan *sc, const char *p, int depth, const char *path,
				  const json_object *cur);

/* The elements of the list LIST (CUR, the current one) from P after '['. */
static const char *mdc_scan_list(struct mdc_scan *sc, const char *p, int depth, int list,
				 const json_object *cur)
{
	size_t i = 0, n = json_object_array_length(cur);

	for (p = mdc_scan_ws(p, sc->end); p < sc->end && *p == ']'; )
		return p + 1;
	for (;; i++) {
		const char *start = mdc_scan_ws(p, sc->end), *end, *kept = NULL;
		json_object *was = i < n ? json_object_array_get_idx(cur, i) : NULL;

		if (!(end = mdc_scan_value(sc, start, depth + 1, NULL, NULL)))
			return NULL;
		if (was && json_object_is_type(was, json_type_object))
			kept = json_object_get_userdata(was);
		if (kept && strlen(kept) == (size_t) (end - start) && !memcmp(kept, start, (size_t) (end - start))) {
			if (sc->nhits + 2 > sc->ahits) {
				size_t a = sc->ahits ? 2 * sc->ahits : 64;
				size_t *h = realloc(sc->hits, a * sizeof(*h));

				if (!h)
					return NULL;
				sc->hits = h;
				sc->ahits = a;
			}
			sc->hits[sc->nhits++] = (size_t) list;
			sc->hits[sc->nhits++] = i;
			if (mdc_buf_add(sc->out, sc->copied, (size_t) (start - sc->copied)) ||
			    mdc_buf_adds(sc->out, "null"))
				return NULL;
			sc->copied = end;
		}
		p = mdc_scan_ws(end, sc->end);
		if (p < sc->end && *p == ',') {
			p++;
			continue;
		}
		if (p < sc->end && *p == ']') {
			sc->counts[list] = i + 1;
			return p + 1;
		}
		return NULL;
	}
}

/* Past the value at P (NULL: not followed).  PATH (snake_case, dotted; ""
 * at the top, NULL off the way to a list) and CUR (the current value
 * there) are followed along the way to the lists. */
static const char *mdc_scan_value(struct mdc_scan *sc, const char *p, int depth, const char *path,
				  const json_object *cur)
{
	const char *e = sc->end;
	bool esc = false;
	int list = -1;

	if (depth > MDC_SCAN_DEPTH || p >= e)
		return NULL;
	if (*p == '"')
		return mdc_scan_str(p, e, &esc);
	if (*p == '[') {
		if (path && mdc_scan_on_way(sc, path, strlen(path), &list) && list >= 0 &&
		    json_object_is_type(cur, json_type_array) && !sc->counts[list])
			return mdc_scan_list(sc, p + 1, depth, list, cur);
		for (p = mdc_scan_ws(p + 1, e); p < e && *p == ']'; )
			return p + 1;
		for (;;) {
			if (!(p = mdc_scan_value(sc, mdc_scan_ws(p, e), depth + 1, NULL, NULL)))
				return NULL;
			p = mdc_scan_ws(p, e);
			if (p < e && *p == ',')
				p++;
			else
				return p < e && *p == ']' ? p + 1 : NULL;
		}
	}
	if (*p == '{') {
		char seen[MDC_SCAN_SEEN][64];
		size_t nseen = 0;

		for (p = mdc_scan_ws(p + 1, e); p < e && *p == '}'; )
			return p + 1;
		for (;;) {
			const char *k = p, *kend;
			char child[256], snake[64];
			const char *cpath = NULL;
			json_object *ccur = NULL;

			esc = false;
			if (p >= e || *p != '"' || !(kend = mdc_scan_str(p, e, &esc)))
				return NULL;
			if (path && (esc || kend - k - 2 >= (long) sizeof(snake))) {
				sc->bail = true;	/* not followed: json-c may read it as a key on the way */
			} else if (path) {
				char key[64];
				size_t n;

				memcpy(key, k + 1, (size_t) (kend - k - 2));
				key[kend - k - 2] = '\0';
				mdc_camel_to_snake(key, snake, sizeof(snake));
				n = (size_t) snprintf(child, sizeof(child), "%s%s%s", path, *path ? "." : "", snake);
				if (n < sizeof(child) && mdc_scan_on_way(sc, child, n, &list)) {
					for (size_t j = 0; j < nseen; j++)
						if (!strcmp(seen[j], snake))
							sc->bail = true;	/* json-c keeps the last */
					if (nseen < MDC_SCAN_SEEN)
						snprintf(seen[nseen++], sizeof(seen[0]), "%s", snake);
					else
						sc->bail = true;
					cpath = child;
					if (json_object_is_type(cur, json_type_object))
						json_object_object_get_ex(cur, snake, &ccur);
				}
			}
			p = mdc_scan_ws(kend, e);
			if (p >= e || *p != ':')
				return NULL;
			if (!(p = mdc_scan_value(sc, mdc_scan_ws(p + 1, e), depth + 1, cpath, ccur)))
				return NULL;
			p = mdc_scan_ws(p, e);
			if (p < e && *p == ',')
				p = mdc_scan_ws(p + 1, e);
			else
				return p < e && *p == '}' ? p + 1 : NULL;
		}
	}
	/* a number, true, false or null: json-c judges it */
	while (p < e && !strchr(",]} \t\r\n", *p))
		p++;
	return p;
}

int mdc_json_parse_reusing(const char *text, size_t len, const json_object *cur,
			   const char *const *lists, json_object **out, struct mdc_ctx *ctx)
{
	struct mdc_buf buf = MDC_BUF_INIT;
	struct mdc_scan sc = { .end = text + len, .lists = lists, .out = &buf, .copied = text };
	json_object *root = NULL;
	struct mdc_ctx lctx;
	const char *end;
	size_t nl = 0;

	while (lists[nl])
		nl++;
	if (!cur || nl > sizeof(sc.counts) / sizeof(sc.counts[0]))
		goto plain;
	end = mdc_scan_value(&sc, mdc_scan_ws(text, text + len), 0, "", cur);
	if (!end || sc.bail || !sc.nhits || mdc_buf_add(&buf, sc.copied, (size_t) (text + len - sc.copied)))
		goto plain;
	mdc_ctx_clear(&lctx);
	if (mdc_json_parse(buf.s, buf.len, &root, &lctx))
		goto plain;	/* the error as the text sent has it */
	for (size_t h = 0; h < sc.nhits; h += 2) {
		json_object *arr = mdc_json_get_path(root, lists[sc.hits[h]]);
		json_object *was = json_object_array_get_idx(mdc_json_get_path(cur, lists[sc.hits[h]]), sc.hits[h + 1]);

		if (!json_object_is_type(arr, json_type_array) ||
		    json_object_array_length(arr) != sc.counts[sc.hits[h]] ||
		    json_object_array_get_idx(arr, sc.hits[h + 1]) ||
		    json_object_array_put_idx(arr, sc.hits[h + 1], json_object_get(was)))
			goto plain;
	}
	mdc_buf_free(&buf);
	free(sc.hits);
	*out = root;
	return 0;
plain:
	json_object_put(root);
	mdc_buf_free(&buf);
	free(sc.hits);
	return mdc_json_parse(text, len, out, ctx);
}

/* A copy may be changed: it serialises itself, without the kept text. */
static int mdc_json_copy_one(json_object *src, json_object *parent, const char *key, size_t index,
			     json_object **dst)
{
	int rc = json_c_shallow_copy_default(src, parent, key, index, dst);

	/* a parsed number keeps its text as userdata too: json-c's own */
	if (rc < 0 || (!json_object_is_type(src, json_type_object) && !json_object_is_type(src, json_type_array)) ||
	    !json_object_get_userdata(src))
		return rc;
	json_object_set_serializer(*dst, NULL, NULL, NULL);
	return 2;	/* json-c: the userdata is dealt with */
}

json_object *mdc_json_copy(const json_object *in)
{
	json_object *out = NULL;

	if (!in)
		return NULL;
	if (json_object_deep_copy((json_object *) in, &out, mdc_json_copy_one))
		return NULL;
	return out;
}

/* Equality walking both in order, as json-c keeps members: 1 equal, 0 not,
 * -1 when the members come in another order (json-c's lookup decides
 * then).  A list of partitions sent back unchanged compares without a
 * hash lookup per member. */
static int mdc_json_eq_ordered(json_object *a, json_object *b)
{
	int res = 1, r;

	if (a == b)
		return 1;
	if (!a || !b || json_object_get_type(a) != json_object_get_type(b))
		return 0;
	if (json_object_is_type(a, json_type_object)) {
		struct lh_entry *ea = lh_table_head(json_object_get_object(a));
		struct lh_entry *eb = lh_table_head(json_object_get_object(b));

		if (json_object_object_length(a) != json_object_object_length(b))
			return 0;
		for (; ea && eb; ea = lh_entry_next(ea), eb = lh_entry_next(eb)) {
			if (strcmp(lh_entry_k(ea), lh_entry_k(eb)))
				return -1;
			if (!(r = mdc_json_eq_ordered(lh_entry_v(ea), lh_entry_v(eb))))
				return 0;
			res = r < 0 ? -1 : res;
		}
		return res;
	}
	if (json_object_is_type(a, json_type_array)) {
		size_t n = json_object_array_length(a);

		if (n != json_object_array_length(b))
			return 0;
		for (size_t i = 0; i < n; i++) {
			if (!(r = mdc_json_eq_ordered(json_object_array_get_idx(a, i),
						      json_object_array_get_idx(b, i))))
				return 0;
			res = r < 0 ? -1 : res;
		}
		return res;
	}
	return json_object_equal(a, b) != 0;
}

bool mdc_json_equal(const json_object *a, const json_object *b)
{
	int r = mdc_json_eq_ordered((json_object *) a, (json_object *) b);

	return r < 0 ? json_object_equal((json_object *) a, (json_object *) b) != 0 : r == 1;
}

const char *mdc_json_str_held(json_object **holder, const json_object *obj, size_t *len)
{
	const char *s;
	size_t n = 0;

	if (!*holder && !(*holder = json_object_new_array()))
		return NULL;
	if (json_object_array_put_idx(*holder, 0, json_object_get((json_object *) obj)))
		return NULL;
	s = json_object_to_json_string_length(*holder, MDC_JSON_FLAGS(false), &n);
	/* the text stays in HOLDER's buffer; OBJ is the caller's again */
	json_object_array_put_idx(*holder, 0, NULL);
	if (!s || n < 2)
		return NULL;
	*len = n - 2;
	return s + 1;
}

const char *mdc_json_str(const json_object *obj, bool pretty)
{
	return json_object_to_json_string_ext((json_object *) obj, MDC_JSON_FLAGS(pretty));
}
