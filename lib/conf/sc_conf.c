/* sc_conf.c - a Slurm-faithful slurm.conf parser.  (owner: slurm.conf engine)
 *
 * Mirrors parse_config.c's reading order: per physical line, comments are
 * cut at the first unescaped '#', then an odd run of trailing backslashes
 * joins the next line; the joined line is unescaped and matched pair by
 * pair with the same key=value pattern Slurm uses.  A position map keeps
 * file:line:col for every byte of the joined line.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include "mdc_buf.h"
#include "sc_conf.h"
#include "sc_options.h"

static const struct {
	const char *key;
	unsigned scope;
	bool has_default;
} rec_types[SC_REC_MAX] = {
	[SC_REC_NODE]      = { "NodeName", SC_SCOPE_NODE, true },
	[SC_REC_PARTITION] = { "PartitionName", SC_SCOPE_PARTITION, true },
	[SC_REC_NODESET]   = { "NodeSet", SC_SCOPE_NODESET, false },
	[SC_REC_DOWNNODES] = { "DownNodes", SC_SCOPE_DOWNNODES, false },
	[SC_REC_FRONTEND]  = { "FrontendName", SC_SCOPE_FRONTEND, true },
};

/* Hostile files are bounded (issue 16.6): one file, and the whole
 * include tree (a fan-out of 3 at depth 16 is 43 million files), in files
 * and bytes.  Real slurm.conf trees are a few MiB in a few dozen files. */
#define SC_TREE_MAX_BYTES (64UL << 20)
#define SC_TREE_MAX_FILES 1024

/* A logical line being parsed. */
struct lline {
	char *s;		/* unescaped text */
	int *line, *col;	/* position of each byte of S */
	size_t len;
	const char *file;
	const char *dir;	/* for relative includes */
	int depth;
};

struct parser {
	struct sc_conf *conf;
	struct mdc_ctx *ctx;
	long last_default[SC_REC_MAX];	/* latest NAME=DEFAULT record, -1 = none */
	struct mdc_strv stack;	/* include chain (real paths) */
	size_t tree_files;	/* included files read so far */
	size_t tree_bytes;	/* bytes of the top file and the included ones */
};

const char *sc_rec_type_name(enum sc_rec_type type)
{
	return type < SC_REC_MAX ? rec_types[type].key : "?";
}

struct sc_conf *sc_conf_new(void)
{
	return calloc(1, sizeof(struct sc_conf));
}

static void kv_free(struct sc_kv *kv)
{
	free(kv->key);
	free(kv->value);
}

void sc_conf_free(struct sc_conf *conf)
{
	size_t i, j;

	if (!conf)
		return;
	for (i = 0; i < conf->nglobals; i++)
		kv_free(&conf->globals[i]);
	free(conf->globals);
	for (i = 0; i < conf->nrecs; i++) {
		for (j = 0; j < conf->recs[i].nkv; j++)
			kv_free(&conf->recs[i].kv[j]);
		free(conf->recs[i].kv);
		free(conf->recs[i].name);
	}
	free(conf->recs);
	for (i = 0; i < SC_REC_MAX; i++)
		mdc_hash_free(&conf->names[i]);
	for (i = 0; i < conf->ndiags; i++)
		free(conf->diags[i].msg);
	free(conf->diags);
	mdc_strv_free(&conf->files);
	free(conf);
}

/* ---- diagnostics ---- */

static int vdiag(struct parser *ps, bool error, const char *file, int line,
		 int col, const char *fmt, va_list ap)
{
	struct sc_conf *c = ps->conf;
	struct sc_diag *d;
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	d = realloc(c->diags, (c->ndiags + 1) * sizeof(*d));
	if (!d)
		return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
	c->diags = d;
	d = &c->diags[c->ndiags];
	d->error = error;
	d->file = file;
	d->line = line;
	d->col = col;
	d->msg = strdup(msg);
	if (!d->msg)
		return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
	c->ndiags++;
	if (error)
		return mdc_fail(ps->ctx, MDC_ERR_PARSE, "%s:%d:%d: error: %s",
				file, line, col, msg);
	return 0;
}

static int perr(struct parser *ps, const char *file, int line, int col,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int perr(struct parser *ps, const char *file, int line, int col,
		const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vdiag(ps, true, file, line, col, fmt, ap);
	va_end(ap);
	return rc;
}

static int pwarn(struct parser *ps, const char *file, int line, int col,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int soft(struct parser *ps, const char *file, int line, int col,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int pwarn(struct parser *ps, const char *file, int line, int col,
		 const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vdiag(ps, false, file, line, col, fmt, ap);
	va_end(ap);
	return rc;
}

/* An error, or with SC_PARSE_LENIENT a warning (the element is kept). */
static int soft(struct parser *ps, const char *file, int line, int col,
		const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vdiag(ps, !(ps->conf->flags & SC_PARSE_LENIENT), file, line, col, fmt, ap);
	va_end(ap);
	return rc;
}

char *sc_diag_format(const struct sc_diag *d)
{
	struct mdc_buf b = MDC_BUF_INIT;

	if (d->line > 0)
		mdc_buf_addf(&b, "%s:%d:%d: %s: %s", d->file, d->line, d->col,
			     d->error ? "error" : "warning", d->msg);
	else
		mdc_buf_addf(&b, "%s: %s: %s", d->file,
			     d->error ? "error" : "warning", d->msg);
	return mdc_buf_release(&b);
}

size_t sc_conf_errors(const struct sc_conf *conf)
{
	size_t i, n = 0;

	for (i = 0; conf && i < conf->ndiags; i++)
		n += conf->diags[i].error;
	return n;
}

/* ---- values ---- */

long sc_time_minutes(const char *v)
{
	long f[4] = { 0, 0, 0, 0 }, days = 0, secs;
	int n = 0, dash = 0;
	const char *p = v;
	char *end;

	if (!strcasecmp(v, "INFINITE") || !strcasecmp(v, "UNLIMITED") || !strcmp(v, "-1"))
		return -2;
	while (*p) {
		if (!isdigit((unsigned char) *p) || n >= 3)
			return -1;
		errno = 0;
		f[n++] = strtol(p, &end, 10);
		if (errno || f[n - 1] > 100000000L)
			return -1;
		p = end;
		if (*p == '-') {
			if (dash || n != 1)
				return -1;
			dash = 1;
			days = f[0];
			n = 0;
			p++;
			if (!*p)
				return -1;
		} else if (*p == ':') {
			p++;
			if (!*p)
				return -1;
		} else if (*p) {
			return -1;
		}
	}
	if (n == 0)
		return -1;
	if (dash)	/* days-hr[:min[:sec]] */
		secs = ((days * 24 + f[0]) * 60 + f[1]) * 60 + f[2];
	else if (n == 3)	/* hr:min:sec */
		secs = (f[0] * 60 + f[1]) * 60 + f[2];
	else		/* min[:sec] */
		secs = f[0] * 60 + f[1];
	return (secs + 59) / 60;
}

/* Slurm's s_p_handle_uint16/32/64 and s_p_handle_boolean, as the parser
 * applies them to typed keys; NULL if VALUE is acceptable, else why. */
static const char *slurm_value_error(const struct sc_option *opt, const char *v)
{
	unsigned long long max, n;
	char *end;

	switch (opt->type) {
	case SC_T_UINT16: max = 0xffff; break;
	case SC_T_UINT32: max = 0xffffffffULL; break;
	case SC_T_UINT64:
	case SC_T_MEMORY: max = ~0ULL; break;
	case SC_T_BOOL:
		return sc_opt_value_is_bool(v) ? NULL : "expected YES or NO";
	case SC_T_TIME:
		return sc_time_minutes(v) == -1 ?
		       "expected a time such as 120, 2:00:00 or 2-00:00:00, or UNLIMITED" : NULL;
	case SC_T_ENUM:
		if (opt->scope & SC_SCOPE_PARTITION) {	/* partition State */
			char why[128];

			return sc_opt_check_value(opt, v, why, sizeof(why)) ? NULL :
			       "expected UP, DOWN, DRAIN or INACTIVE";
		}
		return NULL;
	default:
		return NULL;
	}
	if (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE"))
		return NULL;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (opt->type == SC_T_UINT32 && (*end == 'k' || *end == 'K')) {
		n *= 1024;
		end++;
	}
	if (*end)
		return "expected a number";
	if (errno == ERANGE || n > max)
		return "number out of range";
	if (v[0] == '-')
		return "expected a number not below zero";
	return NULL;
}

/* ---- storing ---- */

static const char *intern_file(struct parser *ps, const char *path)
{
	struct mdc_strv *f = &ps->conf->files;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->v[i], path))
			return f->v[i];
	if (mdc_strv_push(f, path))
		return NULL;
	return f->v[f->n - 1];
}

/* OWN, if set, holds VALUE malloc'ed: it is taken (and NULLed), saving a
 * copy per pair read. */
static int kv_set(struct sc_kv *kv, const char *key, const char *value, char **own,
		  const char *file, int line, int col, char op)
{
	char *k = strdup(key), *v = own ? *own : strdup(value);

	if (!k || !v) {
		free(k);
		if (!own)
			free(v);
		return MDC_ERR_NOMEM;
	}
	if (own)
		*own = NULL;
	kv->key = k;
	kv->value = v;
	kv->file = file;
	kv->line = line;
	kv->col = col;
	kv->op = op;
	kv->from_default = false;
	return 0;
}

static struct sc_kv *kv_find(struct sc_kv *kv, size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(kv[i].key, key))
			return &kv[i];
	return NULL;
}

/* Append KEY=VALUE to *KV (*N entries). */
static int kv_push(struct sc_kv **kv, size_t *n, const char *key, const char *value,
		   char **own, const char *file, int line, int col, char op)
{
	struct sc_kv *p = *kv;

	/* capacity is the next power of two: grow only when N is one, so a
	 * record of K keys costs log K reallocations, not K */
	if (!(*n & (*n - 1))) {
		if (!(p = realloc(*kv, (*n ? *n * 2 : 1) * sizeof(**kv))))
			return MDC_ERR_NOMEM;
		*kv = p;
	}
	if (kv_set(&p[*n], key, value, own, file, line, col, op))
		return MDC_ERR_NOMEM;
	(*n)++;
	return 0;
}

/* ---- the key=value matcher ---- */

struct pair {
	size_t key_off, key_len;
	size_t val_off, val_len;
	char op;
	bool unterminated;	/* value starts with '"' without a closing one */
	size_t next;		/* offset after the value */
};

/* [[:space:]] and [[:alnum:]_.] of the C locale (the tools never call
 * setlocale, and Slurm's daemons run in the C locale too). */
static bool lex_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool lex_key(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

/* Slurm's pattern (SC_KV_PATTERN) by hand: every part of it is forced
 * (a key, blanks, an operator only right before '=', blanks), except the
 * value's two alternatives.  A quoted value ends at the first quote, and
 * needs a blank or the end after it; otherwise the value is the run of
 * non-blanks.  When both match the quoted one is at least as long, and
 * on a tie glibc keeps the first alternative (the quoted one), which the
 * differential test in test_sc_conf checks against regexec. */
bool sc_lex_pair(const char *s, size_t off, struct sc_lexpair *p)
{
	size_t i = off, k, v, e;

	while (lex_space(s[i]))
		i++;
	for (k = i; lex_key(s[i]); i++)
		;
	if (i == k)
		return false;
	p->key_off = k;
	p->key_len = i - k;
	while (lex_space(s[i]))
		i++;
	p->op = '=';
	if ((s[i] == '-' || s[i] == '*' || s[i] == '+' || s[i] == '/') && s[i + 1] == '=')
		p->op = s[i++];
	if (s[i] != '=')
		return false;
	for (i++; lex_space(s[i]); i++)
		;
	v = i;
	if (s[v] == '"') {
		for (e = v + 1; s[e] && s[e] != '"'; e++)
			;
		if (s[e] == '"' && (!s[e + 1] || lex_space(s[e + 1]))) {
			p->val_off = v + 1;
			p->val_len = e - v - 1;
			p->next = e + 1;
			p->quoted = true;
			return true;
		}
	}
	for (e = v; s[e] && !lex_space(s[e]); e++)
		;
	if (e == v)
		return false;
	p->val_off = v;
	p->val_len = e - v;
	p->next = e;
	p->quoted = false;
	return true;
}

/* Match one pair at offset OFF of L; false when none. */
static bool next_pair(struct parser *ps, const struct lline *l, size_t off, struct pair *pr)
{
	struct sc_lexpair lp;

	(void) ps;
	if (off >= l->len || !sc_lex_pair(l->s, off, &lp))
		return false;
	pr->key_off = lp.key_off;
	pr->key_len = lp.key_len;
	pr->op = lp.op;
	pr->val_off = lp.val_off;
	pr->val_len = lp.val_len;
	pr->unterminated = !lp.quoted && l->s[pr->val_off] == '"' &&
		!memchr(l->s + pr->val_off + 1, '"', pr->val_len - 1);
	pr->next = lp.next;
	return true;
}

static bool rest_is_space(const struct lline *l, size_t off)
{
	for (; off < l->len; off++)
		if (!isspace((unsigned char) l->s[off]))
			return false;
	return true;
}

static size_t skip_space(const struct lline *l, size_t off)
{
	while (off < l->len && isspace((unsigned char) l->s[off]))
		off++;
	return off;
}

#define LN(l, off) ((l)->line[(off) < (l)->len ? (off) : (l)->len ? (l)->len - 1 : 0])
#define CL(l, off) ((l)->col[(off) < (l)->len ? (off) : (l)->len ? (l)->len - 1 : 0] + \
		    ((off) >= (l)->len && (l)->len ? 1 : 0))

/* The option KEY names in SCOPE, exactly as Slurm compares keys (case
 * ignored, underscores significant); else an error naming a better key. */
static int lookup(struct parser *ps, const struct lline *l, size_t off,
		  const char *key, unsigned scope, const char *where,
		  const struct sc_option **out)
{
	const struct sc_option *opt = sc_opt_find(key, scope), *other;
	const char *hint;

	*out = NULL;	/* lenient mode goes on without an option */
	if (opt && !strcasecmp(opt->name, key) && !(opt->scope & SC_SCOPE_DBD)) {
		*out = opt;
		return 0;
	}
	if (opt && strcasecmp(opt->name, key))
		return soft(ps, l->file, LN(l, off), CL(l, off),
			    "unknown key \"%s\" %s (did you mean \"%s\"? Slurm does not ignore underscores)",
			    key, where, opt->name);
	other = sc_opt_find(key, SC_SCOPE_REMOVED);
	if (other)
		return soft(ps, l->file, LN(l, off), CL(l, off),
			    "\"%s\" is no longer a Slurm key (%s)", key, other->why);
	other = sc_opt_find(key, ~scope & ~(unsigned) (SC_SCOPE_CLUSTER | SC_SCOPE_REMOVED));
	if (other && (other->scope & SC_SCOPE_DBD))
		return soft(ps, l->file, LN(l, off), CL(l, off),
			    "\"%s\" is a slurmdbd.conf key, not a slurm.conf one", key);
	if (other || (scope != SC_SCOPE_CLUSTER && sc_opt_find(key, SC_SCOPE_CLUSTER)))
		return soft(ps, l->file, LN(l, off), CL(l, off),
			    "key \"%s\" is not allowed %s", key, where);
	hint = sc_opt_suggest(key, scope);
	if (hint)
		return soft(ps, l->file, LN(l, off), CL(l, off),
			    "unknown key \"%s\" %s (did you mean \"%s\"?)", key, where, hint);
	return soft(ps, l->file, LN(l, off), CL(l, off), "unknown key \"%s\" %s", key, where);
}

/* Copy the pair's key and value out of L (bounded by SC_LINE_MAX). */
static void pair_strings(const struct lline *l, const struct pair *pr, char *key,
			 size_t keysz, char **val)
{
	size_t n = pr->key_len < keysz - 1 ? pr->key_len : keysz - 1;

	memcpy(key, l->s + pr->key_off, n);
	key[n] = '\0';
	*val = strndup(l->s + pr->val_off, pr->val_len);
}

static int check_pair(struct parser *ps, const struct lline *l, const struct pair *pr,
		      const struct sc_option *opt, const char *key, const char *val)
{
	const char *why;

	if (pr->unterminated) {
		int rc = pwarn(ps, l->file, LN(l, pr->val_off), CL(l, pr->val_off),
			       "unterminated quote in the value of \"%s\": Slurm keeps the '\"' as part of the value",
			       key);
		if (rc)
			return rc;
	}
	why = opt && !strstr(val, SC_TEMPLATE_TOKEN) ? slurm_value_error(opt, val) : NULL;
	if (why)
		return soft(ps, l->file, LN(l, pr->val_off), CL(l, pr->val_off),
			    "bad value \"%s\" for \"%s\": %s", val, opt->name, why);
	return 0;
}

/* ---- records ---- */

/* A record line: NAME=VALUE then the keys of its scope. */
static int parse_record(struct parser *ps, const struct lline *l, enum sc_rec_type type,
			const struct pair *first, const char *name)
{
	struct sc_conf *c = ps->conf;
	struct sc_record *rec, *recs;
	struct pair pr;
	const struct sc_option *opt;
	char key[128], *val = NULL, where[64];
	size_t off = first->next, i;
	int rc = 0, di;

	if (c->nrecs == c->recs_cap) {	/* geometric: 10^5 records stay linear */
		size_t ncap = c->recs_cap ? c->recs_cap * 2 : 16;

		recs = realloc(c->recs, ncap * sizeof(*recs));
		if (!recs)
			return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		c->recs = recs;
		c->recs_cap = ncap;
	}
	rec = &c->recs[c->nrecs];
	memset(rec, 0, sizeof(*rec));
	rec->type = type;
	rec->name = strdup(name);
	if (!rec->name)
		return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
	rec->is_default = rec_types[type].has_default && !strcasecmp(name, "DEFAULT");
	rec->file = l->file;
	rec->line = LN(l, first->key_off);
	c->nrecs++;
	/* the name index keeps the first record of each name (Slurm's
	 * parser keeps both; slurmctld uses the first) */
	if (!rec->is_default && mdc_hash_put(&c->names[type], rec->name, c->nrecs - 1, false))
		return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
	snprintf(where, sizeof(where), "on a %s line", rec_types[type].key);

	while (next_pair(ps, l, off, &pr)) {
		struct sc_kv *kv;

		pair_strings(l, &pr, key, sizeof(key), &val);
		if (!val)
			return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		rc = lookup(ps, l, pr.key_off, key, rec_types[type].scope, where, &opt);
		if (!rc && opt && (opt->flags & SC_OPT_RECORD))
			rc = soft(ps, l->file, LN(l, pr.key_off), CL(l, pr.key_off),
				  "key \"%s\" is not allowed %s", key, where);
		if (!rc)
			rc = check_pair(ps, l, &pr, opt, key, val);
		if (rc)
			goto out;
		kv = kv_find(rec->kv, rec->nkv, key);
		if (kv) {
			rc = pwarn(ps, l->file, LN(l, pr.key_off), CL(l, pr.key_off),
				   "\"%s\" given twice on this line (first at column %d): the last value is used",
				   key, kv->col);
			free(kv->value);
			kv->value = val;
			val = NULL;
			kv->col = CL(l, pr.key_off);
			if (rc)
				goto out;
		} else if (kv_push(&rec->kv, &rec->nkv, key, val, &val, l->file,
				   LN(l, pr.key_off), CL(l, pr.key_off), pr.op)) {
			rc = mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
			goto out;
		}
		free(val);
		val = NULL;
		off = pr.next;
	}
	if (!rest_is_space(l, off)) {
		off = skip_space(l, off);
		rc = soft(ps, l->file, LN(l, off), CL(l, off),
			  "unexpected text \"%.40s\" %s (expected Key=Value)", l->s + off, where);
		if (rc)
			goto out;
	}

	/* NAME=DEFAULT: merge over the previous defaults, as Slurm does */
	di = (int) ps->last_default[type];
	if (rec->is_default) {
		ps->last_default[type] = (long) (c->nrecs - 1);
		if (di >= 0) {
			struct sc_record *old = &c->recs[di];

			for (i = 0; i < old->nkv; i++) {
				struct sc_kv *o = &old->kv[i];

				if (kv_find(rec->kv, rec->nkv, o->key))
					continue;
				if (kv_push(&rec->kv, &rec->nkv, o->key, o->value, NULL, o->file,
					    o->line, o->col, o->op)) {
					rc = mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
					goto out;
				}
				rec->kv[rec->nkv - 1].from_default = o->from_default;
			}
		}
		goto out;
	}
	for (i = 0; di >= 0 && i < c->recs[di].nkv; i++) {
		struct sc_kv *o = &c->recs[di].kv[i];

		if (kv_find(rec->kv, rec->nkv, o->key))
			continue;
		if (kv_push(&rec->kv, &rec->nkv, o->key, o->value, NULL, o->file, o->line,
			    o->col, o->op)) {
			rc = mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
			goto out;
		}
		rec->kv[rec->nkv - 1].from_default = true;
	}
	/* Same name twice: Slurm's parser keeps both; slurmctld then uses the
	 * first partition and refuses a node defined twice. */
	{
		size_t first_idx;
		struct sc_record *o;

		if (!mdc_hash_get(&c->names[type], rec->name, &first_idx) ||
		    first_idx == c->nrecs - 1)
			goto out;
		o = &c->recs[first_idx];
		rc = pwarn(ps, l->file, rec->line, CL(l, first->val_off),
			   "%s \"%s\" defined again (first at %s:%d): %s",
			   rec_types[type].key, rec->name, o->file, o->line,
			   type == SC_REC_NODE ? "slurmctld refuses a node defined twice" :
			   "slurmctld uses the first definition");
	}
out:
	free(val);
	return rc;
}

/* ---- global lines ---- */

static int parse_global(struct parser *ps, const struct lline *l, const struct pair *pr,
			const char *key, const char *val);
static int parse_global(struct parser *ps, const struct lline *l, const struct pair *pr,
			const char *key, const char *val)
{
	struct sc_conf *c = ps->conf;
	const struct sc_option *opt;
	struct sc_kv *kv;
	int rc;

	if (!strcasecmp(key, "Include"))
		return soft(ps, l->file, LN(l, pr->key_off), CL(l, pr->key_off),
			    "write \"Include FILE\" (a blank, not '=', after Include)");
	rc = lookup(ps, l, pr->key_off, key, SC_SCOPE_CLUSTER,
		    "in slurm.conf", &opt);
	if (rc)
		return rc;
	rc = check_pair(ps, l, pr, opt, key, val);
	if (rc)
		return rc;
	if (!rest_is_space(l, pr->next)) {
		size_t off = skip_space(l, pr->next);
		struct pair more;

		rc = soft(ps, l->file, LN(l, off), CL(l, off),
			  "unexpected text \"%.40s\" after %s= (Slurm reads one key per line)",
			  l->s + off, opt ? opt->name : key);
		if (rc)
			return rc;
		/* lenient: read the other pairs of the line as globals too */
		if (next_pair(ps, l, pr->next, &more)) {
			char k2[128], *v2 = NULL;

			pair_strings(l, &more, k2, sizeof(k2), &v2);
			if (!v2)
				return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
			rc = parse_global(ps, l, &more, k2, v2);
			free(v2);
			if (rc)
				return rc;
		}
	}
	kv = (opt && (opt->flags & SC_OPT_MULTI)) ? NULL : kv_find(c->globals, c->nglobals, key);
	if (kv) {
		rc = pwarn(ps, l->file, LN(l, pr->key_off), CL(l, pr->key_off),
			   "\"%s\" set again (first at %s:%d): the last value is used",
			   opt ? opt->name : key, kv->file, kv->line);
		if (rc)
			return rc;
		free(kv->value);
		free(kv->key);
		kv->key = kv->value = NULL;
		if (kv_set(kv, key, val, NULL, l->file, LN(l, pr->key_off), CL(l, pr->key_off), pr->op))
			return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		return 0;
	}
	if (kv_push(&c->globals, &c->nglobals, key, val, NULL, l->file, LN(l, pr->key_off),
		    CL(l, pr->key_off), pr->op))
		return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
	return 0;
}

static int parse_text(struct parser *ps, const char *text, size_t len,
		      const char *file, int depth);
static char *template_opaque(const char *text, size_t len, size_t *outlen);

/* "include FILE" at the start of a logical line (Slurm: case-insensitive,
 * then blanks, then the file name up to a blank). */
static int parse_include(struct parser *ps, const struct lline *l)
{
	struct mdc_buf path = MDC_BUF_INIT;
	char *name = NULL, *full = NULL, *real = NULL, *text = NULL;
	const char *p;
	size_t off = 7, start, tlen = 0, i;
	int rc = 0;

	off = skip_space(l, off);
	start = off;
	while (off < l->len && !isspace((unsigned char) l->s[off]))
		off++;
	if (start == off) {
		rc = perr(ps, l->file, LN(l, 0), CL(l, 0), "\"Include\" needs a file name");
		goto out;
	}
	if (!rest_is_space(l, off)) {
		size_t o = skip_space(l, off);

		rc = perr(ps, l->file, LN(l, o), CL(l, o),
			  "unexpected text \"%.40s\" after the included file name", l->s + o);
		goto out;
	}
	name = strndup(l->s + start, off - start);
	if (!name) {
		rc = mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (ps->conf->flags & SC_PARSE_NO_INCLUDE) {
		rc = perr(ps, l->file, LN(l, start), CL(l, start),
			  "\"Include %s\": includes are disabled here", name);
		goto out;
	}
	if (strstr(name, SC_TEMPLATE_TOKEN)) {
		rc = pwarn(ps, l->file, LN(l, start), CL(l, start),
			   "\"Include %s\": a templated file name: not followed", name);
		goto out;
	}
	if (strpbrk(name, "*?[")) {
		rc = perr(ps, l->file, LN(l, start), CL(l, start),
			  "\"Include %s\": wildcards are not supported: include each file by name", name);
		goto out;
	}
	/* %c: the ClusterName read so far, in lower case (Slurm's rule) */
	for (p = name; *p; p++) {
		if (p[0] == '%' && p[1] == 'c') {
			const char *cn = sc_conf_get(ps->conf, "ClusterName");

			if (!cn) {
				rc = perr(ps, l->file, LN(l, start), CL(l, start),
					  "\"Include %s\": %%c needs ClusterName set before this line", name);
				goto out;
			}
			for (; *cn; cn++)
				mdc_buf_addc(&path, (char) tolower((unsigned char) *cn));
			p++;
		} else {
			mdc_buf_addc(&path, *p);
		}
	}
	if (!path.s) {
		rc = mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		goto out;
	}
	full = path.s[0] == '/' || !strcmp(l->dir, ".") ? strdup(path.s) :
	       mdc_path_join(l->dir, path.s);
	if (!full) {
		rc = mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (l->depth + 1 > SC_INCLUDE_MAX) {
		rc = perr(ps, l->file, LN(l, start), CL(l, start),
			  "\"Include %s\": more than %d nested includes", name, SC_INCLUDE_MAX);
		goto out;
	}
	real = realpath(full, NULL);
	if (!real) {
		rc = soft(ps, l->file, LN(l, start), CL(l, start),
			  "cannot read included file \"%s\": %s", full, strerror(errno));
		goto out;
	}
	for (i = 0; i < ps->stack.n; i++)
		if (!strcmp(ps->stack.v[i], real)) {
			rc = perr(ps, l->file, LN(l, start), CL(l, start),
				  "include loop: \"%s\" is already being read", full);
			goto out;
		}
	{
		struct mdc_ctx rctx;
		size_t left = ps->tree_bytes < SC_TREE_MAX_BYTES ?
			      SC_TREE_MAX_BYTES - ps->tree_bytes : 0;
		struct stat st;

		mdc_ctx_clear(&rctx);
		if (stat(full, &st) == 0 && !S_ISREG(st.st_mode)) {
			rc = perr(ps, l->file, LN(l, start), CL(l, start),
				  "included file \"%s\" is not a regular file", full);
			goto out;
		}
		if (++ps->tree_files > SC_TREE_MAX_FILES) {
			rc = perr(ps, l->file, LN(l, start), CL(l, start),
				  "\"Include %s\": more than %d included files in all", name,
				  SC_TREE_MAX_FILES);
			goto out;
		}
		/* the regular-file check again on the open file, without blocking
		 * (it may have become a FIFO since the stat) */
		if (mdc_read_regular(full, left < SC_FILE_MAX_BYTES ? left : SC_FILE_MAX_BYTES, 0,
				     &text, &tlen, &rctx)) {
			if (st.st_size > 0 && (unsigned long long) st.st_size > left)
				rc = perr(ps, l->file, LN(l, start), CL(l, start),
					  "\"Include %s\": the included files total more than %lu MiB",
					  name, SC_TREE_MAX_BYTES >> 20);
			else if (strstr(rctx.msg, "larger than") || strstr(rctx.msg, "regular file"))
				rc = perr(ps, l->file, LN(l, start), CL(l, start),
					  "included file %s", rctx.msg);
			else
				rc = soft(ps, l->file, LN(l, start), CL(l, start),
					  "cannot read included file \"%s\": %s", full, rctx.msg);
			goto out;
		}
		ps->tree_bytes += tlen;
	}
	if (ps->conf->flags & SC_PARSE_TEMPLATE) {
		char *t = template_opaque(text, tlen, &tlen);

		free(text);
		text = t;
		if (!text) {
			rc = mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	if (mdc_strv_push(&ps->stack, real)) {
		rc = mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = parse_text(ps, text, tlen, full, l->depth + 1);
	free(ps->stack.v[--ps->stack.n]);
	ps->stack.v[ps->stack.n] = NULL;
out:
	mdc_buf_free(&path);
	free(name);
	free(full);
	free(real);
	free(text);
	return rc;
}

static int parse_lline(struct parser *ps, struct lline *l)
{
	struct pair pr;
	char key[128], *val = NULL;
	size_t i;
	int rc = 0;

	if (l->len >= 7 && !strncasecmp(l->s, "include", 7) &&
	    (l->len == 7 || isspace((unsigned char) l->s[7])))
		return parse_include(ps, l);
	if (!next_pair(ps, l, 0, &pr)) {
		size_t off = skip_space(l, 0);

		const char *eq = strchr(l->s + off, '=');

		if (off >= l->len)
			return 0;
		if (eq && rest_is_space(l, (size_t) (eq - l->s) + 1))
			return soft(ps, l->file, LN(l, off), CL(l, off),
				    "no value after \"%.*s\" (write %.*s\"\" for an empty value)",
				    (int) (eq - l->s - off + 1), l->s + off,
				    (int) (eq - l->s - off + 1), l->s + off);
		return soft(ps, l->file, LN(l, off), CL(l, off),
			    "expected Key=Value, found \"%.40s\"", l->s + off);
	}
	pair_strings(l, &pr, key, sizeof(key), &val);
	if (!val)
		return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
	for (i = 0; i < SC_REC_MAX; i++)
		if (!strcasecmp(key, rec_types[i].key))
			break;
	if (i < SC_REC_MAX) {
		if (pr.unterminated)
			rc = pwarn(ps, l->file, LN(l, pr.val_off), CL(l, pr.val_off),
				   "unterminated quote in the value of \"%s\": Slurm keeps the '\"' as part of the value",
				   key);
		if (!rc)
			rc = parse_record(ps, l, (enum sc_rec_type) i, &pr, val);
	} else {
		rc = parse_global(ps, l, &pr, key, val);
	}
	free(val);
	return rc;
}

/* ---- physical lines ---- */

static bool utf8_ok(const unsigned char *s, size_t n, size_t *bad)
{
	size_t i = 0, k, need;
	unsigned cp;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xe0) == 0xc0) { need = 1; cp = s[i] & 0x1f; }
		else if ((s[i] & 0xf0) == 0xe0) { need = 2; cp = s[i] & 0x0f; }
		else if ((s[i] & 0xf8) == 0xf0) { need = 3; cp = s[i] & 0x07; }
		else goto bad;
		for (k = 1; k <= need; k++) {
			if (i + k >= n || (s[i + k] & 0xc0) != 0x80)
				goto bad;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((need == 1 && cp < 0x80) || (need == 2 && cp < 0x800) ||
		    (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			goto bad;
		i += need + 1;
	}
	return true;
bad:
	*bad = i;
	return false;
}

static int lline_add(struct parser *ps, struct lline *l, size_t *cap, char c,
		     int line, int col)
{
	if (l->len + 1 >= *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		char *s = realloc(l->s, ncap);
		int *ln, *cl;

		if (!s)
			return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		l->s = s;
		ln = realloc(l->line, ncap * sizeof(int));
		if (!ln)
			return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		l->line = ln;
		cl = realloc(l->col, ncap * sizeof(int));
		if (!cl)
			return mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		l->col = cl;
		*cap = ncap;
	}
	l->s[l->len] = c;
	l->line[l->len] = line;
	l->col[l->len] = col;
	l->len++;
	l->s[l->len] = '\0';
	return 0;
}

static int parse_text(struct parser *ps, const char *text, size_t len,
		      const char *file_in, int depth)
{
	struct lline l;
	const char *file, *p = text, *end = text + len, *eol, *cut, *q;
	size_t cap = 0, bad;
	int lineno = 0, start_line = 0, rc = 0, bs;
	bool cont = false;
	char *dir = NULL;

	memset(&l, 0, sizeof(l));
	file = intern_file(ps, file_in);
	dir = mdc_path_dirname(file_in);
	if (!file || !dir) {
		rc = mdc_fail(ps->ctx, MDC_ERR_NOMEM, "out of memory");
		goto out;
	}
	l.file = file;
	l.dir = dir;
	l.depth = depth;

	while (p < end) {
		size_t plen;

		lineno++;
		eol = memchr(p, '\n', (size_t) (end - p));
		if (!eol)
			eol = end;
		plen = (size_t) (eol - p);
		q = memchr(p, '\0', plen);
		if (q) {
			rc = perr(ps, file, lineno, (int) (q - p) + 1,
				  "NUL byte in the file (is it a slurm.conf?)");
			goto out;
		}
		if (!utf8_ok((const unsigned char *) p, plen, &bad)) {
			rc = perr(ps, file, lineno, (int) bad + 1,
				  "invalid UTF-8 (is it a slurm.conf?)");
			goto out;
		}
		if (plen && p[plen - 1] == '\r' && !ps->conf->warn_crlf_done) {
			ps->conf->warn_crlf_done = true;
			rc = pwarn(ps, file, lineno, (int) plen,
				   "CRLF line ends (Slurm accepts them; prefer LF)");
			if (rc)
				goto out;
		}
		if (!cont) {
			l.len = 0;
			start_line = lineno;
		}
		/* comment: the first '#' after an even run of backslashes */
		cut = p + plen;
		bs = 0;
		for (q = p; q < p + plen; q++) {
			if (*q == '#' && bs % 2 == 0) {
				cut = q;
				break;
			}
			bs = *q == '\\' ? bs + 1 : 0;
		}
		/* continuation: an odd run of backslashes, blanks after it allowed */
		q = cut;
		while (q > p && isspace((unsigned char) q[-1]))
			q--;
		bs = 0;
		while (q > p && q[-1] == '\\') {
			q--;
			bs++;
		}
		cont = bs % 2 == 1;
		if (cont)
			cut = q + bs - 1;
		if (l.len + (size_t) (cut - p) > SC_LINE_MAX) {
			rc = perr(ps, file, start_line, 1,
				  "line longer than %d bytes", SC_LINE_MAX);
			goto out;
		}
		for (q = p; q < cut; q++) {
			rc = lline_add(ps, &l, &cap, *q, lineno, (int) (q - p) + 1);
			if (rc)
				goto out;
		}
		p = eol < end ? eol + 1 : end;
		if (cont) {
			if (p >= end) {
				rc = perr(ps, file, lineno, (int) (cut - (eol - plen)) + 1,
					  "the last line ends with a continuation backslash");
				goto out;
			}
			continue;
		}
		/* unescape: "\x" reads "x" */
		{
			size_t i, j;

			for (i = 0, j = 0; i < l.len; i++, j++) {
				if (l.s[i] == '\\' && i + 1 < l.len)
					i++;
				else if (l.s[i] == '\\')
					break;	/* a lone trailing '\' vanishes */
				l.s[j] = l.s[i];
				l.line[j] = l.line[i];
				l.col[j] = l.col[i];
			}
			l.len = j;
			if (l.s)
				l.s[j] = '\0';
		}
		if (!l.len)
			continue;
		rc = parse_lline(ps, &l);
		if (rc)
			goto out;
	}
out:
	free(l.s);
	free(l.line);
	free(l.col);
	free(dir);
	return rc;
}

static int parser_init(struct parser *ps, struct sc_conf *conf, struct mdc_ctx *ctx)
{
	size_t i;

	memset(ps, 0, sizeof(*ps));
	ps->conf = conf;
	ps->ctx = ctx;
	for (i = 0; i < SC_REC_MAX; i++)
		ps->last_default[i] = -1;
	for (i = 0; i < conf->nrecs; i++)
		if (conf->recs[i].is_default)
			ps->last_default[conf->recs[i].type] = (long) i;
	return 0;
}

static void parser_done(struct parser *ps)
{
	mdc_strv_free(&ps->stack);
}

/* The end of the template token at P (within END), or NULL. */
static const char *template_end(const char *p, const char *end)
{
	static const char *const pairs[][2] = {
		{ "{{", "}}" }, { "{%", "%}" }, { "{#", "#}" }, { "<%", "%>" },
	};
	const char *q;
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		size_t ol = strlen(pairs[i][0]);

		if ((size_t) (end - p) < ol || strncmp(p, pairs[i][0], ol))
			continue;
		for (q = p + ol; q + 1 < end && *q != '\n'; q++)
			if (!strncmp(q, pairs[i][1], 2))
				return q + 2;
		return NULL;
	}
	/* Python str.format: {identifier} */
	if (*p == '{' && p + 1 < end && (isalpha((unsigned char) p[1]) || p[1] == '_')) {
		for (q = p + 1; q < end && (isalnum((unsigned char) *q) || *q == '_' || *q == '.'); q++)
			;
		if (q < end && *q == '}')
			return q + 1;
	}
	return NULL;
}

/* SC_PARSE_TEMPLATE: each token becomes SC_TEMPLATE_TOKEN; a line holding
 * only tokens and blanks becomes empty.  The caller frees the result. */
static char *template_opaque(const char *text, size_t len, size_t *outlen)
{
	struct mdc_buf b = MDC_BUF_INIT, line = MDC_BUF_INIT;
	const char *p = text, *end = text + len, *e;
	bool only = true;
	int rc = 0;

	while (p < end && !rc) {
		if (*p == '\n') {
			if (!only)
				rc |= mdc_buf_add(&b, mdc_buf_str(&line), line.len);
			rc |= mdc_buf_addc(&b, '\n');
			mdc_buf_reset(&line);
			only = true;
			p++;
			continue;
		}
		e = template_end(p, end);
		if (e) {
			rc |= mdc_buf_adds(&line, SC_TEMPLATE_TOKEN);
			p = e;
			continue;
		}
		if (!isspace((unsigned char) *p))
			only = false;
		rc |= mdc_buf_addc(&line, *p++);
	}
	if (!only)
		rc |= mdc_buf_add(&b, mdc_buf_str(&line), line.len);
	mdc_buf_free(&line);
	if (rc) {
		mdc_buf_free(&b);
		return NULL;
	}
	*outlen = b.len;
	if (!b.s)
		return strdup("");
	return mdc_buf_release(&b);
}

int sc_conf_load_string(struct sc_conf *conf, const char *text, size_t len,
			const char *name, struct mdc_ctx *ctx)
{
	struct parser ps;
	char *real, *tpl = NULL;
	int rc;

	if (text && (conf->flags & SC_PARSE_TEMPLATE)) {
		tpl = template_opaque(text, len, &len);
		if (!tpl)
			return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
		text = tpl;
	}

	if (!name)
		name = "<string>";
	rc = parser_init(&ps, conf, ctx);
	if (rc)
		return rc;
	ps.tree_bytes = text ? len : 0;
	real = realpath(name, NULL);
	if (real && mdc_strv_push(&ps.stack, real))
		rc = mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	free(real);
	if (!rc)
		rc = parse_text(&ps, text ? text : "", text ? len : 0, name, 0);
	parser_done(&ps);
	free(tpl);
	return rc;
}

int sc_conf_load_file(struct sc_conf *conf, const char *path, struct mdc_ctx *ctx)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	/* a regular file (not a FIFO or a symlink to /dev/zero), bounded */
	rc = mdc_read_regular(path, SC_FILE_MAX_BYTES, 0, &text, &len, ctx);
	if (rc)
		return rc;
	rc = sc_conf_load_string(conf, text, len, path, ctx);
	free(text);
	return rc;
}

int sc_conf_parse_string(const char *text, size_t len, const char *name,
			 struct sc_conf **out, struct mdc_ctx *ctx)
{
	struct sc_conf *c = sc_conf_new();
	int rc;

	*out = NULL;
	if (!c)
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	rc = sc_conf_load_string(c, text, len, name, ctx);
	if (rc)
		sc_conf_free(c);
	else
		*out = c;
	return rc;
}

int sc_conf_parse_file(const char *path, struct sc_conf **out, struct mdc_ctx *ctx)
{
	struct sc_conf *c = sc_conf_new();
	int rc;

	*out = NULL;
	if (!c)
		return mdc_fail(ctx, MDC_ERR_NOMEM, "out of memory");
	rc = sc_conf_load_file(c, path, ctx);
	if (rc)
		sc_conf_free(c);
	else
		*out = c;
	return rc;
}

/* ---- accessors ---- */

const struct sc_kv *sc_conf_global(const struct sc_conf *conf, const char *key)
{
	size_t i;

	for (i = 0; conf && i < conf->nglobals; i++)
		if (mdc_key_eq(conf->globals[i].key, key))
			return &conf->globals[i];
	return NULL;
}

const char *sc_conf_get(const struct sc_conf *conf, const char *key)
{
	const struct sc_kv *kv = sc_conf_global(conf, key);

	return kv ? kv->value : NULL;
}

const struct sc_record *sc_conf_record(const struct sc_conf *conf,
				       enum sc_rec_type type, const char *name)
{
	size_t i;

	if (!conf || type >= SC_REC_MAX || !mdc_hash_get(&conf->names[type], name, &i))
		return NULL;
	return &conf->recs[i];
}

const struct sc_kv *sc_record_kv(const struct sc_record *rec, const char *key)
{
	size_t i;

	for (i = 0; rec && i < rec->nkv; i++)
		if (mdc_key_eq(rec->kv[i].key, key))
			return &rec->kv[i];
	return NULL;
}

const char *sc_record_get(const struct sc_record *rec, const char *key)
{
	const struct sc_kv *kv = sc_record_kv(rec, key);

	return kv ? kv->value : NULL;
}
