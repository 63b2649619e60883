/* mdc_pr_yaml.c - YAML to JSON with PyYAML's safe_load types.  See
 * mdc_pr_yaml.h. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_pr_int.h"
#include "mdc_str.h"
#include "mdc_pr_yaml.h"

#define PR_YAML_DEPTH_MAX 128

/* --- YAML -> JSON -------------------------------------------------------- */

/* S without '_' (YAML 1.1 digit separators) into BUF; false if too long. */
static bool pr_strip_us(const char *s, char *buf, size_t sz)
{
	size_t o = 0;

	for (; *s; s++)
		if (*s != '_') {
			if (o + 1 >= sz)
				return false;
			buf[o++] = *s;
		}
	buf[o] = '\0';
	return true;
}

/* All of S[FROM..] in SET (and at least one byte)? */
static bool pr_all_in(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/* PyYAML's int and float resolvers (YAML 1.1, without sexagesimals):
 * [-+]?(0|[1-9][0-9_]*), [-+]?0b[01_]+, [-+]?0[0-7_]+, [-+]?0x[0-9a-fA-F_]+;
 * [-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?.  *OUT NULL if neither. */
static bool pr_yaml_number(const char *s, json_object **out)
{
	char buf[128], *end;
	const char *b, *e;
	bool neg = false;
	int base = 10;

	*out = NULL;
	if (!pr_strip_us(s, buf, sizeof(buf)))
		return false;
	b = buf;
	if (*b == '-' || *b == '+')
		neg = *b++ == '-';
	if (!*b)
		return false;
	if (!strchr(b, '.')) {
		const char *digits = b;

		if (b[0] == '0' && b[1] == 'b' && pr_all_in(b + 2, "01")) {
			base = 2;
			digits = b + 2;
		} else if (b[0] == '0' && b[1] == 'x' && pr_all_in(b + 2, "0123456789abcdefABCDEF")) {
			base = 16;
			digits = b + 2;
		} else if (b[0] == '0' && b[1] && pr_all_in(b + 1, "01234567")) {
			base = 8;
			digits = b + 1;
		} else if (!pr_all_in(b, "0123456789") || (b[0] == '0' && b[1])) {
			return false;
		}
		errno = 0;
		{
			unsigned long long u = strtoull(digits, &end, base);

			if (*end)
				return false;
			if (errno || u > (unsigned long long) INT64_MAX + neg)	/* beyond int64 */
				*out = json_object_new_double(base == 10 ? strtod(buf, NULL) :
							      neg ? -(double) u : (double) u);
			else
				*out = json_object_new_int64(neg ? (int64_t) (0 - u) : (int64_t) u);
		}
		return true;
	}
	/* float: digits, '.', digits, then an exponent with a sign */
	e = b + strspn(b, "0123456789");
	if (*e != '.')
		return false;
	e++;
	e += strspn(e, "0123456789");
	if (*e == 'e' || *e == 'E') {
		if ((e[1] != '-' && e[1] != '+') || !pr_all_in(e + 2, "0123456789"))
			return false;
	} else if (*e) {
		return false;
	}
	if (!strcmp(b, "."))
		return false;
	errno = 0;
	{
		double d = strtod(buf, &end);

		if (*end || !isfinite(d))
			return false;
		*out = json_object_new_double(d);
	}
	return true;
}

/* Resolve a plain scalar the way PyYAML's safe_load does (YAML 1.1). */
static int pr_yaml_scalar(const char *s, size_t len, bool plain, const char *tag,
			  json_object **out)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const trues[] = { "true", "True", "TRUE", "yes", "Yes", "YES",
					     "on", "On", "ON", NULL };
	static const char *const falses[] = { "false", "False", "FALSE", "no", "No", "NO",
					      "off", "Off", "OFF", NULL };
	bool is_str_tag = tag && !strcmp(tag, YAML_STR_TAG);
	bool resolve = plain || (tag && !is_str_tag);

	*out = NULL;
	if (resolve && mdc_pr_in(s, nulls))
		return 0;			/* JSON null */
	if (resolve && mdc_pr_in(s, trues)) {
		*out = json_object_new_boolean(1);
		goto done;
	}
	if (resolve && mdc_pr_in(s, falses)) {
		*out = json_object_new_boolean(0);
		goto done;
	}
	if (resolve && len > 0 && len < 128 && pr_yaml_number(s, out))
		goto done;
	*out = json_object_new_string_len(s, (int) len);
done:
	return *out ? 0 : MDC_ERR_NOMEM;
}

struct pr_yaml {
	yaml_document_t *doc;
	const char *what;
	struct mdc_ctx *ctx;
};

static int pr_yaml_node(struct pr_yaml *y, yaml_node_t *node, int depth, json_object **out)
{
	json_object *obj = NULL, *child = NULL;
	int rc = 0;

	*out = NULL;
	if (!node)
		return mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: broken YAML document", y->what);
	if (depth > PR_YAML_DEPTH_MAX)
		return mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: nested deeper than %d levels (line %zu)",
				y->what, PR_YAML_DEPTH_MAX, node->start_mark.line + 1);
	switch (node->type) {
	case YAML_SCALAR_NODE:
		if (pr_yaml_scalar((const char *) node->data.scalar.value, node->data.scalar.length,
				   node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE,
				   (const char *) node->tag, out))
			return mdc_nomem(y->ctx);
		return 0;
	case YAML_SEQUENCE_NODE:
		if (!(obj = json_object_new_array()))
			goto nomem;
		for (yaml_node_item_t *it = node->data.sequence.items.start;
		     it < node->data.sequence.items.top; it++) {
			if ((rc = pr_yaml_node(y, yaml_document_get_node(y->doc, *it), depth + 1,
					       &child)))
				goto out;
			if (json_object_array_add(obj, child))
				goto nomem;
			child = NULL;
		}
		break;
	case YAML_MAPPING_NODE:
		if (!(obj = json_object_new_object()))
			goto nomem;
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
			const char *key;

			if (!k || k->type != YAML_SCALAR_NODE) {
				rc = mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: line %zu: mapping keys "
					      "must be scalars", y->what,
					      k ? k->start_mark.line + 1 : 0);
				goto out;
			}
			key = (const char *) k->data.scalar.value;
			if (json_object_object_get_ex(obj, key, NULL)) {
				rc = mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: line %zu: duplicate key "
					      "'%s'", y->what, k->start_mark.line + 1, key);
				goto out;
			}
			if (!strcmp(key, "<<") && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
				rc = mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: line %zu: merge keys "
					      "('<<') are not supported", y->what,
					      k->start_mark.line + 1);
				goto out;
			}
			if ((rc = pr_yaml_node(y, yaml_document_get_node(y->doc, p->value),
					       depth + 1, &child)))
				goto out;
			if (json_object_object_add(obj, key, child))
				goto nomem;
			child = NULL;
		}
		break;
	default:
		rc = mdc_fail(y->ctx, MDC_ERR_PARSE, "%s: empty YAML node", y->what);
		goto out;
	}
	*out = obj;
	obj = NULL;
	goto out;
nomem:
	rc = mdc_nomem(y->ctx);
out:
	json_object_put(child);
	json_object_put(obj);
	return rc;
}

int mdc_pr_yaml_parse(const char *text, size_t len, const char *what,
		      json_object **out, struct mdc_ctx *ctx)
{
	yaml_parser_t parser;
	yaml_document_t doc, doc2;
	bool have_doc = false, have_doc2 = false;
	struct pr_yaml y = { &doc, what, ctx };
	yaml_node_t *root;
	int rc = 0;

	*out = NULL;
	if (!yaml_parser_initialize(&parser))
		return mdc_nomem(ctx);
	yaml_parser_set_input_string(&parser, (const unsigned char *) text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "%s: line %zu: %s%s%s", what,
			      parser.problem_mark.line + 1,
			      parser.problem ? parser.problem : "invalid YAML",
			      parser.context ? " " : "", parser.context ? parser.context : "");
		goto out;
	}
	have_doc = true;
	if (!(root = yaml_document_get_root_node(&doc))) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "%s: no YAML document in it", what);
		goto out;
	}
	if (!yaml_parser_load(&parser, &doc2)) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "%s: line %zu: %s", what,
			      parser.problem_mark.line + 1,
			      parser.problem ? parser.problem : "invalid YAML");
		goto out;
	}
	have_doc2 = true;
	if (yaml_document_get_root_node(&doc2)) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "%s: more than one YAML document; keep one",
			      what);
		goto out;
	}
	rc = pr_yaml_node(&y, root, 0, out);
out:
	if (have_doc2)
		yaml_document_delete(&doc2);
	if (have_doc)
		yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

int mdc_pr_yaml_load(const char *path, json_object **out, struct mdc_ctx *ctx)
{
	char *text = NULL, *what = NULL;
	size_t len;
	int rc;

	*out = NULL;
	if ((rc = mdc_read_file(path, &text, &len, ctx)))
		return rc;
	if (!(what = mdc_pr_strdupf("'%s'", path))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	rc = mdc_pr_yaml_parse(text, len, what, out, ctx);
out:
	free(what);
	free(text);
	return rc;
}

