/* mdc_pipeline_filter.c - ListPipelineJobs' filter, order_by and
 * read_mask.  See mdc_pipeline_filter.h. */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_pipeline_filter.h"
#include "mdc_pr.h"
#include "mdc_pr_int.h"
#include "mdc_str.h"

/* --- ListPipelineJobs: filter, order_by, read_mask ------------------------------ */

/* PipelineState names (pipeline_state.proto) */
static const char *const pr_job_states[] = {
	"PIPELINE_STATE_UNSPECIFIED", "PIPELINE_STATE_QUEUED", "PIPELINE_STATE_PENDING",
	"PIPELINE_STATE_RUNNING", "PIPELINE_STATE_SUCCEEDED", "PIPELINE_STATE_FAILED",
	"PIPELINE_STATE_CANCELLING", "PIPELINE_STATE_CANCELLED", "PIPELINE_STATE_PAUSED", NULL,
};

bool mdc_pipeline_terminal(const char *state)
{
	return state && (!strcmp(state, "PIPELINE_STATE_SUCCEEDED") ||
			 !strcmp(state, "PIPELINE_STATE_FAILED") ||
			 !strcmp(state, "PIPELINE_STATE_CANCELLED"));
}

int mdc_pipeline_time_parse(const char *s, double *t)
{
	int y, mo, d, h, mi, n = 0;
	double sec;
	struct tm tm;
	const char *p;
	long off = 0;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
	    mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec < 0 || sec >= 61)
		return -1;
	p = s + n;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om;

		if (sscanf(p + 1, "%2d:%2d", &oh, &om) != 2 || strlen(p) != 6)
			return -1;
		off = (oh * 60L + om) * 60L * (*p == '-' ? -1 : 1);
		p += 6;
	} else {
		return -1;
	}
	if (*p)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	*t = (double) timegm(&tm) + sec - (double) off;
	return 0;
}

enum pf_kind { PF_AND, PF_OR, PF_NOT, PF_CMP };
enum pf_op { PF_EQ, PF_NE, PF_LT, PF_GT, PF_LE, PF_GE, PF_HAS };
enum pf_type { PFT_STR, PFT_TIME, PFT_STATE, PFT_LABEL };

struct mdc_pipeline_filter {
	enum pf_kind kind;
	struct mdc_pipeline_filter *l, *r;
	/* PF_CMP */
	char *field, *value, *label;
	enum pf_op op;
	enum pf_type type;
	double t;
};

/* The fields ListPipelineJobsRequest.filter documents, and their operators */
static const struct pf_field {
	const char *name;
	enum pf_type type;
	unsigned ops;		/* bit per pf_op */
} pf_fields[] = {
#define PF_B(o) (1u << (o))
	{ "pipeline_name", PFT_STR, PF_B(PF_EQ) | PF_B(PF_NE) },
	{ "display_name", PFT_STR, PF_B(PF_EQ) | PF_B(PF_NE) | PF_B(PF_HAS) },
	{ "pipeline_job_user_id", PFT_STR, PF_B(PF_EQ) | PF_B(PF_NE) | PF_B(PF_HAS) },
	{ "state", PFT_STATE, PF_B(PF_EQ) | PF_B(PF_NE) },
	{ "create_time", PFT_TIME, 0x3f },
	{ "update_time", PFT_TIME, 0x3f },
	{ "end_time", PFT_TIME, 0x3f },
	{ "labels", PFT_LABEL, PF_B(PF_EQ) | PF_B(PF_HAS) },
	{ "template_uri", PFT_STR, PF_B(PF_EQ) | PF_B(PF_NE) | PF_B(PF_HAS) },
	{ "template_metadata.version", PFT_STR, PF_B(PF_EQ) | PF_B(PF_NE) | PF_B(PF_HAS) },
#undef PF_B
};

static const char *const pf_op_names[] = { "=", "!=", "<", ">", "<=", ">=", ":" };

struct pf_parser {
	const char *s, *p;
	struct mdc_ctx *ctx;
	int depth;
};

void mdc_pipeline_filter_free(struct mdc_pipeline_filter *f)
{
	if (!f)
		return;
	mdc_pipeline_filter_free(f->l);
	mdc_pipeline_filter_free(f->r);
	free(f->field);
	free(f->value);
	free(f->label);
	free(f);
}

static void pf_ws(struct pf_parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n')
		ps->p++;
}

/* the keyword KW as a whole word at the cursor */
static bool pf_kw(struct pf_parser *ps, const char *kw)
{
	size_t n = strlen(kw);

	pf_ws(ps);
	if (strncmp(ps->p, kw, n) || (ps->p[n] && !strchr(" \t\n(", ps->p[n])))
		return false;
	ps->p += n;
	return true;
}

static int pf_fail(struct pf_parser *ps, const char *what)
{
	return mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: %s at offset %ld of '%s'", what,
			(long) (ps->p - ps->s), ps->s);
}

/* A field name, or a bare value: letters, digits, '_', '.', '-', '*', ':' in times */
static char *pf_word(struct pf_parser *ps, bool value)
{
	const char *b = ps->p;

	while (*ps->p && (isalnum((unsigned char) *ps->p) || strchr("_.-*", *ps->p) ||
			  (value && strchr(":+", *ps->p))))
		ps->p++;
	return ps->p > b ? strndup(b, (size_t) (ps->p - b)) : NULL;
}

static char *pf_value(struct pf_parser *ps)
{
	struct mdc_buf b = MDC_BUF_INIT;
	char *out;

	pf_ws(ps);
	if (*ps->p != '"')
		return pf_word(ps, true);
	for (ps->p++; *ps->p && *ps->p != '"'; ps->p++) {
		if (*ps->p == '\\' && ps->p[1])
			ps->p++;
		mdc_buf_addc(&b, *ps->p);
	}
	if (*ps->p != '"') {
		mdc_buf_free(&b);
		return NULL;
	}
	ps->p++;
	out = strdup(mdc_buf_str(&b));
	mdc_buf_free(&b);
	return out;
}

static int pf_expr(struct pf_parser *ps, struct mdc_pipeline_filter **out);

static struct mdc_pipeline_filter *pf_node(enum pf_kind k, struct mdc_pipeline_filter *l,
				     struct mdc_pipeline_filter *r)
{
	struct mdc_pipeline_filter *n = calloc(1, sizeof(*n));

	if (!n) {
		mdc_pipeline_filter_free(l);
		mdc_pipeline_filter_free(r);
		return NULL;
	}
	n->kind = k;
	n->l = l;
	n->r = r;
	return n;
}

static int pf_restriction(struct pf_parser *ps, struct mdc_pipeline_filter **out)
{
	struct mdc_pipeline_filter *n = calloc(1, sizeof(*n));
	const struct pf_field *f = NULL;
	char *name;
	int rc = 0;

	*out = NULL;
	if (!n)
		return mdc_nomem(ps->ctx);
	n->kind = PF_CMP;
	pf_ws(ps);
	if (!(name = pf_word(ps, false))) {
		rc = pf_fail(ps, "expected a field name");
		goto out;
	}
	n->field = name;
	if (!strncmp(name, "labels.", 7) && name[7]) {
		n->label = strdup(name + 7);
		name = (char *) "labels";
	}
	for (size_t i = 0; i < sizeof(pf_fields) / sizeof(pf_fields[0]); i++)
		if (!strcmp(name, pf_fields[i].name))
			f = &pf_fields[i];
	if (!f) {
		rc = mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: unsupported field '%s': use "
			      "pipeline_name, display_name, pipeline_job_user_id, state, "
			      "create_time, update_time, end_time, labels.KEY, template_uri or "
			      "template_metadata.version", n->field);
		goto out;
	}
	n->type = f->type;
	pf_ws(ps);
	if (!strncmp(ps->p, "!=", 2)) n->op = PF_NE, ps->p += 2;
	else if (!strncmp(ps->p, "<=", 2)) n->op = PF_LE, ps->p += 2;
	else if (!strncmp(ps->p, ">=", 2)) n->op = PF_GE, ps->p += 2;
	else if (*ps->p == '=') n->op = PF_EQ, ps->p++;
	else if (*ps->p == '<') n->op = PF_LT, ps->p++;
	else if (*ps->p == '>') n->op = PF_GT, ps->p++;
	else if (*ps->p == ':') n->op = PF_HAS, ps->p++;
	else {
		rc = pf_fail(ps, "expected a comparison (=, !=, <, >, <=, >=, :)");
		goto out;
	}
	if (!(f->ops & (1u << n->op))) {
		rc = mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: '%s' does not support '%s'",
			      n->field, pf_op_names[n->op]);
		goto out;
	}
	if (!(n->value = pf_value(ps))) {
		rc = pf_fail(ps, "expected a value (a word or a \"quoted string\")");
		goto out;
	}
	if (f->type == PFT_LABEL && !n->label && n->op != PF_HAS) {
		rc = mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: compare a label as "
			      "labels.KEY=\"VALUE\", or test presence with labels.KEY:* or labels:KEY");
		goto out;
	}
	if (f->type == PFT_TIME && mdc_pipeline_time_parse(n->value, &n->t)) {
		rc = mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: %s value '%s' is not an RFC 3339 "
			      "time such as \"2026-05-18T13:30:00Z\"", n->field, n->value);
		goto out;
	}
	if (f->type == PFT_STATE && !mdc_pr_in(n->value, pr_job_states)) {
		rc = mdc_fail(ps->ctx, MDC_ERR_INVAL, "filter: state value '%s' is not a "
			      "PipelineState: use e.g. PIPELINE_STATE_RUNNING or "
			      "PIPELINE_STATE_FAILED", n->value);
		goto out;
	}
out:
	if (rc)
		mdc_pipeline_filter_free(n);
	else
		*out = n;
	return rc;
}

/* term := [NOT | '-'] ( '(' expression ')' | restriction ) */
static int pf_term(struct pf_parser *ps, struct mdc_pipeline_filter **out)
{
	struct mdc_pipeline_filter *t = NULL;
	bool neg = false;
	int rc;

	*out = NULL;
	pf_ws(ps);
	if (pf_kw(ps, "NOT")) {
		neg = true;
	} else if (*ps->p == '-') {
		neg = true;
		ps->p++;
	}
	pf_ws(ps);
	if (++ps->depth > 64)
		return pf_fail(ps, "expression nested too deeply");
	if (*ps->p == '(') {
		ps->p++;
		if ((rc = pf_expr(ps, &t)))
			return rc;
		pf_ws(ps);
		if (*ps->p != ')') {
			mdc_pipeline_filter_free(t);
			return pf_fail(ps, "expected ')'");
		}
		ps->p++;
	} else if ((rc = pf_restriction(ps, &t))) {
		return rc;
	}
	ps->depth--;
	if (neg && !(t = pf_node(PF_NOT, t, NULL)))
		return mdc_nomem(ps->ctx);
	*out = t;
	return 0;
}

/* AIP-160: OR binds tighter than AND; juxtaposition is AND */
static int pf_factor(struct pf_parser *ps, struct mdc_pipeline_filter **out)
{
	struct mdc_pipeline_filter *l, *r;
	int rc;

	if ((rc = pf_term(ps, &l)))
		return rc;
	while (pf_kw(ps, "OR")) {
		if ((rc = pf_term(ps, &r))) {
			mdc_pipeline_filter_free(l);
			return rc;
		}
		if (!(l = pf_node(PF_OR, l, r)))
			return mdc_nomem(ps->ctx);
	}
	*out = l;
	return 0;
}

static int pf_expr(struct pf_parser *ps, struct mdc_pipeline_filter **out)
{
	struct mdc_pipeline_filter *l, *r;
	int rc;

	*out = NULL;
	if ((rc = pf_factor(ps, &l)))
		return rc;
	for (;;) {
		pf_ws(ps);
		if (!*ps->p || *ps->p == ')')
			break;
		pf_kw(ps, "AND");
		if ((rc = pf_factor(ps, &r))) {
			mdc_pipeline_filter_free(l);
			return rc;
		}
		if (!(l = pf_node(PF_AND, l, r)))
			return mdc_nomem(ps->ctx);
	}
	*out = l;
	return 0;
}

int mdc_pipeline_filter_parse(const char *expr, struct mdc_pipeline_filter **out, struct mdc_ctx *ctx)
{
	struct pf_parser ps = { expr, expr, ctx, 0 };
	int rc;

	*out = NULL;
	if (!expr)
		return 0;
	pf_ws(&ps);
	if (!*ps.p)
		return 0;	/* an empty filter matches everything */
	if ((rc = pf_expr(&ps, out)))
		return rc;
	pf_ws(&ps);
	if (*ps.p) {
		mdc_pipeline_filter_free(*out);
		*out = NULL;
		return pf_fail(&ps, "unexpected text");
	}
	return 0;
}

static bool pf_glob(const char *pat, const char *s)
{
	for (; *pat; pat++, s++) {
		if (*pat == '*') {
			for (const char *t = s;; t++) {
				if (pf_glob(pat + 1, t))
					return true;
				if (!*t)
					return false;
			}
		}
		if (*pat != *s)
			return false;
	}
	return !*s;
}

static const char *pf_job_str(const json_object *job, const char *field)
{
	if (!strcmp(field, "pipeline_name"))
		return mdc_json_get_str(mdc_json_get_path(job, "pipeline_spec.pipelineInfo"),
					"name", NULL);
	if (!strcmp(field, "pipeline_job_user_id")) {
		const char *n = mdc_json_get_str(job, "name", NULL);

		return n ? mdc_pr_basename(n) : NULL;
	}
	if (!strcmp(field, "template_metadata.version"))
		return mdc_json_get_str(mdc_json_get_obj(job, "template_metadata"), "version", NULL);
	return mdc_json_get_str(job, field, NULL);
}

static bool pf_cmp(const struct mdc_pipeline_filter *f, const json_object *job)
{
	const char *v;
	double t;
	int c;

	if (f->type == PFT_LABEL) {
		json_object *labels = mdc_json_get_obj(job, "labels"), *lv = NULL;
		const char *key = f->label ? f->label : f->value;

		if (!labels || !json_object_object_get_ex(labels, key, &lv))
			return false;
		if (f->op == PF_HAS)
			return !f->label || !strcmp(f->value, "*") ||
			       pf_glob(f->value, json_object_get_string(lv));
		return !strcmp(json_object_get_string(lv), f->value);
	}
	v = pf_job_str(job, f->field);
	if (f->type == PFT_TIME) {
		if (!v || mdc_pipeline_time_parse(v, &t))
			return f->op == PF_NE;
		c = t < f->t ? -1 : t > f->t ? 1 : 0;
	} else {
		if (!v)
			return f->op == PF_NE;
		if (f->op == PF_HAS)
			return pf_glob(f->value, v);
		c = strcmp(v, f->value);
	}
	switch (f->op) {
	case PF_EQ: return c == 0;
	case PF_NE: return c != 0;
	case PF_LT: return c < 0;
	case PF_GT: return c > 0;
	case PF_LE: return c <= 0;
	case PF_GE: return c >= 0;
	case PF_HAS: break;
	}
	return false;
}

bool mdc_pipeline_filter_match(const struct mdc_pipeline_filter *f, const json_object *job)
{
	if (!f)
		return true;
	switch (f->kind) {
	case PF_AND: return mdc_pipeline_filter_match(f->l, job) && mdc_pipeline_filter_match(f->r, job);
	case PF_OR: return mdc_pipeline_filter_match(f->l, job) || mdc_pipeline_filter_match(f->r, job);
	case PF_NOT: return !mdc_pipeline_filter_match(f->l, job);
	case PF_CMP: return pf_cmp(f, job);
	}
	return false;
}

static const char *const pr_order_fields[] = {
	"create_time", "update_time", "end_time", "start_time", NULL,
};

int mdc_pipeline_order_parse(const char *s, struct mdc_pipeline_order *o, struct mdc_ctx *ctx)
{
	struct mdc_strv items = MDC_STRV_INIT;
	int rc = 0;

	memset(o, 0, sizeof(*o));
	if (!s || !*s) {
		/* the service's default: newest first */
		o->key[0].field = "create_time";
		o->key[0].desc = true;
		o->n = 1;
		return 0;
	}
	if (mdc_strv_split(&items, s, ","))
		return mdc_nomem(ctx);
	for (size_t i = 0; i < items.n; i++) {
		char field[64] = "", dir[16] = "", extra[8] = "", snake[64];
		int n = sscanf(items.v[i], "%63s %15s %7s", field, dir, extra);
		size_t f;

		mdc_camel_to_snake(field, snake, sizeof(snake));
		for (f = 0; pr_order_fields[f] && strcmp(snake, pr_order_fields[f]); f++)
			;
		if (n < 1 || n > 2 || !pr_order_fields[f] ||
		    (n == 2 && strcmp(dir, "desc") && strcmp(dir, "asc"))) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "order_by '%s': use create_time, "
				      "update_time, end_time or start_time, each optionally "
				      "followed by desc", mdc_trim(items.v[i]));
			goto out;
		}
		if (o->n == sizeof(o->key) / sizeof(o->key[0])) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "order_by '%s': too many fields", s);
			goto out;
		}
		o->key[o->n].field = pr_order_fields[f];
		o->key[o->n].desc = n == 2 && !strcmp(dir, "desc");
		o->n++;
	}
out:
	mdc_strv_free(&items);
	return rc;
}

int mdc_pipeline_order_cmp(const struct mdc_pipeline_order *o, const json_object *a, const json_object *b)
{
	for (size_t i = 0; i < o->n; i++) {
		double ta = 0, tb = 0;
		bool ha = !mdc_pipeline_time_parse(mdc_json_get_str(a, o->key[i].field, NULL), &ta);
		bool hb = !mdc_pipeline_time_parse(mdc_json_get_str(b, o->key[i].field, NULL), &tb);
		int c;

		/* a job without the time (no end yet) sorts after those with it */
		if (ha != hb)
			return ha ? -1 : 1;
		c = ta < tb ? -1 : ta > tb ? 1 : 0;
		if (c)
			return o->key[i].desc ? -c : c;
	}
	return strcmp(mdc_json_get_str(a, "name", ""), mdc_json_get_str(b, "name", ""));
}

int mdc_pipeline_sort_by(const char *sort_by, char **order_by, struct mdc_ctx *ctx)
{
	struct mdc_strv items = MDC_STRV_INIT;
	struct mdc_buf b = MDC_BUF_INIT;
	struct mdc_pipeline_order o;
	int rc = 0;

	*order_by = NULL;
	if (mdc_strv_split(&items, sort_by, ","))
		return mdc_nomem(ctx);
	for (size_t i = 0; i < items.n; i++) {
		char *f = mdc_trim(items.v[i]);
		bool desc = *f == '~';
		char snake[64];

		mdc_camel_to_snake(desc ? f + 1 : f, snake, sizeof(snake));
		mdc_buf_addf(&b, "%s%s%s", b.len ? ", " : "", snake, desc ? " desc" : "");
	}
	if (!b.len) {
		rc = mdc_fail(ctx, MDC_ERR_USAGE, "--sort-by is empty: give e.g. ~createTime");
		goto out;
	}
	if ((rc = mdc_pipeline_order_parse(mdc_buf_str(&b), &o, ctx))) {
		mdc_ctx_clear(ctx);
		rc = mdc_fail(ctx, MDC_ERR_USAGE, "--sort-by '%s': use createTime, updateTime, "
			      "startTime or endTime, '~' in front for descending", sort_by);
		goto out;
	}
	if (!(*order_by = strdup(mdc_buf_str(&b))))
		rc = mdc_nomem(ctx);
out:
	mdc_buf_free(&b);
	mdc_strv_free(&items);
	return rc;
}

/* PipelineJob's top-level fields (pipeline_job.proto) */
static const char *const pr_job_fields[] = {
	"name", "display_name", "create_time", "start_time", "end_time", "update_time",
	"pipeline_spec", "state", "job_detail", "error", "labels", "runtime_config",
	"encryption_spec", "service_account", "network", "reserved_ip_ranges",
	"psc_interface_config", "template_uri", "template_metadata", "schedule_name",
	"preflight_validations", "satisfies_pzs", "satisfies_pzi", "original_pipeline_job_id",
	"pipeline_task_rerun_configs", NULL,
};

int mdc_pipeline_read_mask(const char *mask, const json_object *job, json_object **out,
		     struct mdc_ctx *ctx)
{
	struct mdc_strv paths = MDC_STRV_INIT;
	json_object *res;
	int rc = 0;

	*out = NULL;
	if (mdc_strv_split(&paths, mask ? mask : "", ",") || !(res = json_object_new_object())) {
		mdc_strv_free(&paths);
		return mdc_nomem(ctx);
	}
	for (size_t i = 0; i < paths.n; i++) {
		char snake[128], *dot;
		json_object *v;

		mdc_camel_to_snake(mdc_trim(paths.v[i]), snake, sizeof(snake));
		if ((dot = strchr(snake, '.')))
			*dot = '\0';
		if (!mdc_pr_in(snake, pr_job_fields)) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "read_mask: '%s' is not a field of "
				      "PipelineJob", paths.v[i]);
			goto out;
		}
		/* a sub-field path keeps its top-level field: enough to read it */
		if (job && (v = mdc_json_get(job, snake)))
			mdc_json_set(res, snake, mdc_json_copy(v));
	}
out:
	mdc_strv_free(&paths);
	if (rc)
		json_object_put(res);
	else
		*out = res;
	return rc;
}
