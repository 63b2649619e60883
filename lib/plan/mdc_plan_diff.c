/* mdc_plan_diff.c - the change list: what differs between CUR and WANT
 * at each mask path, key by key for maps, element by element for lists,
 * as the lines a plan shows.  (owner: plan engine) */
/* deliberate unit: one plan engine in mdc_plan.c, _apply.c, _diff.c calling each other (_int.h) */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_hash.h"
#include "mdc_json.h"
#include "mdc_plan_int.h"
#include "mdc_value.h"
#include "sc_options.h"

/* ---- the change list -------------------------------------------------- */

/* Display form of a value: strings as they are, scripts by first line. */
static char *show_value(const json_object *v)
{
	const char *s, *nl;

	if (!v || json_object_is_type(v, json_type_null))
		return NULL;
	s = json_object_is_type(v, json_type_string) ? json_object_get_string((json_object *) v)
						     : mdc_json_str(v, false);
	if ((nl = strchr(s, '\n')) && nl[1]) {
		char *r = malloc((size_t) (nl - s) + 8);

		if (r)
			sprintf(r, "%.*s ...", (int) (nl - s), s);
		return r;
	}
	return strndup(s, nl ? (size_t) (nl - s) : strlen(s));
}

static void add_change(struct plan_st *st, const char *scope, const char *key,
		       const json_object *oldv, const json_object *newv)
{
	struct mdc_plan *p = st->plan;
	struct mdc_change *c = realloc(p->changes, (p->nchanges + 1) * sizeof(*c));

	if (!c) {
		st->nomem = true;
		return;
	}
	p->changes = c;
	c = &p->changes[p->nchanges++];
	c->scope = strdup(scope);
	c->key = key ? strdup(key) : NULL;
	c->old_value = show_value(oldv);
	c->new_value = show_value(newv);
	if (!c->scope || (key && !c->key) || (oldv && !c->old_value) || (newv && !c->new_value))
		st->nomem = true;
}

static void diff_map(struct plan_st *st, const char *scope, json_object *a, json_object *b)
{
	/* json_object_object_foreach needs objects */
	if (a && !json_object_is_type(a, json_type_object))
		a = NULL;
	if (b && !json_object_is_type(b, json_type_object))
		b = NULL;
	if (a) {
		json_object_object_foreach(a, ka, va) {
			const char *kb = b ? plan_map_key(b, ka) : NULL;
			json_object *vb = kb ? mdc_json_get(b, kb) : NULL;

			if (!kb || !mdc_json_equal(va, vb))
				add_change(st, scope, kb ? kb : ka, va, vb);
		}
	}
	if (b) {
		json_object_object_foreach(b, kb2, vb2) {
			if (!a || !plan_map_key(a, kb2))
				add_change(st, scope, kb2, NULL, vb2);
		}
	}
}

/* One line for a whole list element ("node_pool_ids=a,b MaxTime=60"),
 * a new string object; NULL for NULL. */
static json_object *summary(json_object *e, const char *idfield)
{
	struct mdc_buf b = MDC_BUF_INIT;
	json_object *r;

	if (!e || !json_object_is_type(e, json_type_object))
		return e ? json_object_get(e) : NULL;
	json_object_object_foreach(e, k, v) {
		if (!strcmp(k, idfield))
			continue;
		if (json_object_is_type(v, json_type_object)) {
			json_object_object_foreach(v, ck, cv)
				mdc_buf_addf(&b, "%s%s=%s", b.len ? " " : "", ck, json_object_get_string(cv));
		} else if (json_object_is_type(v, json_type_array)) {
			mdc_buf_addf(&b, "%s%s=", b.len ? " " : "", k);
			for (size_t i = 0; i < json_object_array_length(v); i++)
				mdc_buf_addf(&b, "%s%s", i ? "," : "",
					     json_object_get_string(json_object_array_get_idx(v, i)));
		} else {
			mdc_buf_addf(&b, "%s%s=%s", b.len ? " " : "", k, json_object_get_string(v));
		}
	}
	r = json_object_new_string(b.len ? mdc_buf_str(&b) : "{}");
	mdc_buf_free(&b);
	return r;
}

static void add_elem_change(struct plan_st *st, const char *scope, const char *idfield,
			    json_object *a, json_object *b)
{
	json_object *sa = summary(a, idfield), *sb = summary(b, idfield);

	if ((a && !sa) || (b && !sb))
		st->nomem = true;
	else
		add_change(st, scope, NULL, sa, sb);
	json_object_put(sa);
	json_object_put(sb);
}

/* Lists of objects keyed by IDFIELD: FIELDS are compared one by one
 * ("config" as a map), anything else as a whole. */
static void diff_list(struct plan_st *st, const char *what, const char *idfield,
		      json_object *a, json_object *b)
{
	size_t na = a ? json_object_array_length(a) : 0, nb = b ? json_object_array_length(b) : 0;
	struct mdc_hash ha = MDC_HASH_INIT(MDC_HASH_EXACT), hb = MDC_HASH_INIT(MDC_HASH_EXACT);
	size_t ia = 0, ib = 0, jb;
	char scope[300];

	if (plan_index_list(&ha, &ia, a, idfield) || plan_index_list(&hb, &ib, b, idfield)) {
		st->nomem = true;
		goto out;
	}
	for (size_t i = 0; i < na; i++) {
		json_object *ea = json_object_array_get_idx(a, i), *eb;
		const char *id = mdc_json_get_str(ea, idfield, "?");

		snprintf(scope, sizeof(scope), "%s %s", what, id);
		if (!mdc_hash_get(&hb, id, &jb)) {
			add_elem_change(st, scope, idfield, ea, NULL);
			continue;
		}
		eb = json_object_array_get_idx(b, jb);
		if (!json_object_is_type(ea, json_type_object) || !json_object_is_type(eb, json_type_object)) {
			if (!mdc_json_equal(ea, eb))
				add_change(st, scope, NULL, ea, eb);
			continue;
		}
		json_object_object_foreach(ea, k, va) {
			json_object *vb = mdc_json_get(eb, k);

			if (!strcmp(k, "config"))
				diff_map(st, scope, va, vb);
			else if (strcmp(k, idfield) && !plan_same_value(va, vb))
				add_change(st, scope, k, va, vb);
		}
		json_object_object_foreach(eb, k2, vb2) {
			if (!mdc_json_get(ea, k2) && !strcmp(k2, "config"))
				diff_map(st, scope, NULL, vb2);
			else if (!mdc_json_get(ea, k2) && !plan_is_empty(vb2))
				add_change(st, scope, k2, NULL, vb2);
		}
	}
	for (size_t j = 0; j < nb; j++) {
		json_object *eb = json_object_array_get_idx(b, j);
		const char *id = mdc_json_get_str(eb, idfield, "?");

		if (!mdc_hash_get(&ha, id, NULL)) {
			snprintf(scope, sizeof(scope), "%s %s", what, id);
			add_elem_change(st, scope, idfield, NULL, eb);
		}
	}
out:
	mdc_hash_free(&ha);
	mdc_hash_free(&hb);
}

static void diff_scripts(struct plan_st *st, const char *scope, json_object *a, json_object *b)
{
	size_t na = a ? json_object_array_length(a) : 0, nb = b ? json_object_array_length(b) : 0;
	char key[32];

	for (size_t i = 0; i < na || i < nb; i++) {
		json_object *va = i < na ? json_object_array_get_idx(a, i) : NULL;
		json_object *vb = i < nb ? json_object_array_get_idx(b, i) : NULL;

		if (va && vb && mdc_json_equal(va, vb))
			continue;
		snprintf(key, sizeof(key), "#%zu", i);
		add_change(st, scope, key, va, vb);
	}
}

void plan_diff_path(struct plan_st *st, enum plan_path_id p)
{
	json_object *a = plan_path_value(st->cur, p), *b = plan_path_value(st->want, p);

	switch (p) {
	case PP_LABELS: diff_map(st, "labels", a, b); break;
	case PP_CONFIG: diff_map(st, "config", a, b); break;
	case PP_SCHEDULING: diff_map(st, "scheduling", a, b); break;
	case PP_ACCOUNTING: diff_map(st, "accounting", a, b); break;
	case PP_NODE_POOLS: diff_list(st, "node_pool", "id", a, b); break;
	case PP_PARTITIONS: diff_list(st, "partition", "id", a, b); break;
	case PP_NODE_SETS: diff_list(st, "nodeset", "node_pool_id", a, b); break;
	case PP_PROLOG: diff_scripts(st, "prolog", a, b); break;
	case PP_EPILOG: diff_scripts(st, "epilog", a, b); break;
	default:
		if (!plan_same_value(a, b))
			add_change(st, "cluster", plan_paths[p].field, a, b);
	}
}

