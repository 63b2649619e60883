/* sc_conf.c - a Slurm-faithful slurm.conf parser.  (owner: slurm.conf engine)
 *
 * Mirrors parse_config.c's reading order: per physical line, comments are
 * cut at the first unescaped '#', then an odd run of trailing backslashes
 * joins the next line; the joined line is unescaped and matched pair by
 * pair with the same key=value pattern Slurm uses.  A line without a
 * backslash is read where it lies; a joined or unescaped one is built with
 * a position map (file:line:col for every byte) and written back over its
 * own physical lines, which are never shorter.
 *
 * Memory (issue 15: 10^5-line files): the text of every file read is kept
 * by the sc_conf, and every key, value and name points into it, ended in
 * place by a NUL once its line is read; records' key arrays come from an
 * arena, sized exactly.  So a parse makes a few allocations per file, not
 * several per key.
 */
/* deliberate unit: sc_conf reads keys by sc_options' table, which checks times with sc_conf's */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
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
	size_t len;
	unsigned scope;
	bool has_default;
	const char *where;	/* in messages */
} rec_types[SC_REC_MAX] = {
	[SC_REC_NODE]      = { "NodeName", 8, SC_SCOPE_NODE, true, "on a NodeName line" },
	[SC_REC_PARTITION] = { "PartitionName", 13, SC_SCOPE_PARTITION, true,
			       "on a PartitionName line" },
	[SC_REC_NODESET]   = { "NodeSet", 7, SC_SCOPE_NODESET, false, "on a NodeSet line" },
	[SC_REC_DOWNNODES] = { "DownNodes", 9, SC_SCOPE_DOWNNODES, false, "on a DownNodes line" },
	[SC_REC_FRONTEND]  = { "FrontendName", 12, SC_SCOPE_FRONTEND, true,
			       "on a FrontendName line" },
};

_Static_assert(sizeof(struct sc_kv) <= 3 * sizeof(char *) + 8, "sc_kv grew");

/* Hostile files are bounded (issue 16.6): one file, and the whole
 * include tree (a fan-out of 3 at depth 16 is 43 million files), in files
 * and bytes.  Real slurm.conf trees are a few MiB in a few dozen files. */
#define SC_TREE_MAX_BYTES (64UL << 20)
#define SC_TREE_MAX_FILES 1024

/* ---- memory ---- */

struct sc_blk {
	struct sc_blk *next;
	size_t used, cap;
	max_align_t data[];
};

struct sc_mem {
	struct sc_blk *blk;	/* arena blocks, the newest first */
	char **texts;		/* the files' texts (malloc'ed), strings point into them */
	size_t ntexts, texts_cap;
};

#define SC_BLK_SIZE (64 * 1024)

static void *arena_alloc(struct sc_mem *m, size_t n)
{
	struct sc_blk *b = m->blk;
	void *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!b || b->cap - b->used < n) {
		size_t cap = n > SC_BLK_SIZE ? n : SC_BLK_SIZE;

		if (!(b = malloc(sizeof(*b) + cap)))
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = m->blk;
		m->blk = b;
	}
	p = (char *) b->data + b->used;
	b->used += n;
	return p;
}

/* Keep TEXT (malloc'ed) until the sc_conf is freed; on failure it is freed. */
static int mem_keep(struct sc_mem *m, char *text)
{
	if (m->ntexts == m->texts_cap) {
		size_t cap = m->texts_cap ? m->texts_cap * 2 : 4;
		char **t = realloc(m->texts, cap * sizeof(*t));

		if (!t) {
			free(text);
			return MDC_ERR_NOMEM;
		}
		m->texts = t;
		m->texts_cap = cap;
	}
	m->texts[m->ntexts++] = text;
	return 0;
}

static void mem_free(struct sc_mem *m)
{
	if (!m)
		return;
	while (m->blk) {
		struct sc_blk *b = m->blk;

		m->blk = b->next;
		free(b);
	}
	for (size_t i = 0; i < m->ntexts; i++)
		free(m->texts[i]);
	free(m->texts);
	free(m);
}

/* A logical line being parsed: S is NUL-terminated at LEN and lies in a
 * kept text. */
struct lline {
	char *s;
	size_t len;
	int lineno;		/* of every byte, when LINE is NULL */
	int *line, *col;	/* position of each byte of S, or NULL: S is
				 * physical line LINENO from column 1 */
	const char *file;
	const char *dir;	/* for relative includes */
	int depth;
};

/* The option a record's Nth key named on the last line of that type:
 * record lines repeat their keys, spelled alike, line after line. */
#define KEY_MEMO 8
struct key_memo {
	const char *key;	/* in a kept text */
	size_t len;
	const struct sc_option *opt;
};

struct parser {
	struct sc_conf *conf;
	struct mdc_ctx *ctx;
	long last_default[SC_REC_MAX];	/* latest NAME=DEFAULT record, -1 = none */
	int *def_opt[SC_REC_MAX];	/* its keys' option rows (-1: unknown key) */
	long def_for[SC_REC_MAX];	/* the record DEF_OPT describes */
	struct mdc_strv stack;	/* include chain (real paths) */
	size_t tree_files;	/* included files read so far */
	size_t tree_bytes;	/* bytes of the top file and the included ones */
	/* scratch, reused line after line: */
	struct sc_kv *kv;	/* the record being read */
	int *kvopt;		/* option row of each of its keys */
	size_t nkv, kv_cap;
	char **ends;		/* value ends to terminate once the line is read */
	size_t nends, ends_cap;
	char *val;		/* a NUL-terminated copy of the value being checked */
	size_t val_cap;
	unsigned *seen_gen, *seen_at;	/* per option row: in record GEN, at SEEN_AT */
	unsigned gen;
	size_t nopts;
	const struct sc_option *opt0;	/* the option table, for rows */
	struct key_memo memo[SC_REC_MAX][KEY_MEMO];
	char *js;		/* a joined line: text and positions */
	int *jline, *jcol;
	size_t jlen, jcap;
};

const char *sc_rec_type_name(enum sc_rec_type type)
{
	return type < SC_REC_MAX ? rec_types[type].key : "?";
}

struct sc_conf *sc_conf_new(void)
{
	struct sc_conf *c = calloc(1, sizeof(struct sc_conf));

	if (c)
		c->global_idx.mode = MDC_HASH_CASE;
	return c;
}

void sc_conf_free(struct sc_conf *conf)
{
	size_t i;

	if (!conf)
		return;
	free(conf->globals);
	free(conf->recs);
	for (i = 0; i < SC_REC_MAX; i++)
		mdc_hash_free(&conf->names[i]);
	mdc_hash_free(&conf->global_idx);
	for (i = 0; i < conf->ndiags; i++)
		free(conf->diags[i].msg);
	free(conf->diags);
	mdc_strv_free(&conf->files);
	mem_free(conf->mem);
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
	/* capacity: the next power of two (a lenient file may warn per line) */
	if (!(c->ndiags & (c->ndiags - 1))) {
		d = realloc(c->diags, (c->ndiags ? c->ndiags * 2 : 1) * sizeof(*d));
		if (!d)
			return mdc_nomem(ps->ctx);
		c->diags = d;
	}
	d = &c->diags[c->ndiags];
	d->error = error;
	d->file = file;
	d->line = line;
	d->col = col;
	d->msg = strdup(msg);
	if (!d->msg)
		return mdc_nomem(ps->ctx);
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
	long long secs = sc_time_seconds(v);

	return secs < 0 ? (long) secs : (long) ((secs + 59) / 60);
}

long long sc_time_seconds(const char *v)
{
	long long f[4] = { 0, 0, 0, 0 }, days = 0, secs;
	int n = 0, dash = 0;
	const char *p = v;
	char *end;

	if (!strcasecmp(v, "INFINITE") || !strcasecmp(v, "UNLIMITED") || !strcmp(v, "-1"))
		return -2;
	while (*p) {
		if (!isdigit((unsigned char) *p) || n >= 3)
			return -1;
		errno = 0;
		f[n++] = strtoll(p, &end, 10);
		if (errno || f[n - 1] > 100000000LL)
			return -1;
		p = end;
		if (*p == '-') {
			if (dash || n != 1)
				return -1;
			dash = 1;
			days = f[0];
			f[0] = 0;
			n = 0;
			p++;	/* "2-" is two days (parse_time.c's sscanf) */
		} else if (*p == ':') {
			p++;
			if (!*p)
				return -1;
		} else if (*p) {
			return -1;
		}
	}
	if (n == 0 && !dash)
		return -1;
	if (dash)	/* days-[hr[:min[:sec]]] */
		secs = ((days * 24 + f[0]) * 60 + f[1]) * 60 + f[2];
	else if (n == 3)	/* hr:min:sec */
		secs = (f[0] * 60 + f[1]) * 60 + f[2];
	else		/* min[:sec] */
		secs = f[0] * 60 + f[1];
	return secs;
}

/* Slurm's s_p_handle_uint16/32/64 and s_p_handle_boolean, as the parser
 * applies them to typed keys; NULL if VALUE is acceptable, else why. */
static const char *slurm_value_error(const struct sc_option *opt, const char *v)
{
	switch (opt->type) {
	case SC_T_UINT16:
	case SC_T_UINT32:
	case SC_T_UINT64:
	case SC_T_MEMORY:
		return sc_value_uint(v, opt->type, NULL);
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

/* Grow *P (of *CAP elements of SIZE bytes) to hold N: doubling, so a
 * scratch array costs log N reallocations over a whole parse. */
static int grow(void *p, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *q;

	if (n <= *cap)
		return 0;
	while (ncap < n)
		ncap *= 2;
	if (!(q = realloc(*(void **) p, ncap * size)))
		return MDC_ERR_NOMEM;
	*(void **) p = q;
	*cap = ncap;
	return 0;
}

/* A value ending at END (in the line) is terminated once its line is read:
 * until then the lexer and the messages still read the line as it is. */
static inline int end_later(struct parser *ps, char *end)
{
	if (ps->nends == ps->ends_cap &&
	    grow(&ps->ends, &ps->ends_cap, ps->nends + 1, sizeof(*ps->ends)))
		return MDC_ERR_NOMEM;
	ps->ends[ps->nends++] = end;
	return 0;
}

static void end_now(struct parser *ps)
{
	for (size_t i = 0; i < ps->nends; i++)
		*ps->ends[i] = '\0';
	ps->nends = 0;
}

static void kv_fill(struct sc_kv *kv, char *key, char *value, const char *file, int line,
		    int col, char op, bool from_default)
{
	kv->key = key;
	kv->value = value;
	kv->file = file;
	kv->line = line;
	kv->col = (unsigned) col;
	kv->op = (unsigned char) op;
	kv->from_default = from_default;
}

/* The option row of a known key (the option lookup accepts: same
 * spelling ignoring case), or -1. */
static int opt_row(const struct parser *ps, const struct sc_option *opt)
{
	return opt ? (int) (opt - ps->opt0) : -1;
}

static const struct sc_option *known(const char *key, unsigned scope)
{
	const struct sc_option *opt = sc_opt_find(key, scope);

	return opt && !strcasecmp(opt->name, key) && !(opt->scope & SC_SCOPE_DBD) ? opt : NULL;
}

/* The key KEY (option row ROW) of the record being read, or -1.  Two
 * spellings equal ignoring case have the same row, so known keys are
 * found in one step; unknown ones (lenient) by a scan of the unknown ones. */
static long rec_find(const struct parser *ps, const char *key, int row)
{
	if (row >= 0)
		return ps->seen_gen[row] == ps->gen ? (long) ps->seen_at[row] : -1;
	for (size_t i = 0; i < ps->nkv; i++)
		if (ps->kvopt[i] < 0 && !strcasecmp(ps->kv[i].key, key))
			return (long) i;
	return -1;
}

/* Append a key to the record being read (NULL on ENOMEM). */
static struct sc_kv *rec_push(struct parser *ps, int row)
{
	if (ps->nkv == ps->kv_cap) {
		size_t cap = ps->kv_cap ? ps->kv_cap * 2 : 16;
		struct sc_kv *kv = realloc(ps->kv, cap * sizeof(*kv));
		int *ko;

		if (!kv)
			return NULL;
		ps->kv = kv;
		if (!(ko = realloc(ps->kvopt, cap * sizeof(*ko))))
			return NULL;
		ps->kvopt = ko;
		ps->kv_cap = cap;
	}
	ps->kvopt[ps->nkv] = row;
	if (row >= 0) {
		ps->seen_gen[row] = ps->gen;
		ps->seen_at[row] = (unsigned) ps->nkv;
	}
	return &ps->kv[ps->nkv++];
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
static inline bool lex_space(char c)
{
	return c == ' ' || (unsigned char) (c - '\t') <= '\r' - '\t';
}

/* what ends an unquoted value: a blank or the end of the line */
static const bool lex_stop[256] = {
	[0] = true, ['\t'] = true, ['\n'] = true, ['\v'] = true, ['\f'] = true, ['\r'] = true,
	[' '] = true,
};

static inline bool lex_key(char c)
{
	return (unsigned char) ((c | 0x20) - 'a') < 26 || (unsigned char) (c - '0') < 10 ||
	       c == '_' || c == '.';
}

/* Slurm's pattern (SC_KV_PATTERN) by hand: every part of it is forced
 * (a key, blanks, an operator only right before '=', blanks), except the
 * value's two alternatives.  A quoted value ends at the first quote, and
 * needs a blank or the end after it; otherwise the value is the run of
 * non-blanks.  When both match the quoted one is at least as long, and
 * on a tie glibc keeps the first alternative (the quoted one), which the
 * differential test in test_sc_conf checks against regexec. */
/* sc_lex_pair, inlined into the parser's loop */
static inline bool lex_pair(const char *s, size_t off, struct sc_lexpair *p)
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
	for (e = v; !lex_stop[(unsigned char) s[e]]; e++)
		;
	if (e == v)
		return false;
	p->val_off = v;
	p->val_len = e - v;
	p->next = e;
	p->quoted = false;
	return true;
}

bool sc_lex_pair(const char *s, size_t off, struct sc_lexpair *p)
{
	return lex_pair(s, off, p);
}

/* Match one pair at offset OFF of L; false when none. */
static bool next_pair(struct parser *ps, const struct lline *l, size_t off, struct pair *pr)
{
	struct sc_lexpair lp;

	(void) ps;
	if (off >= l->len || !lex_pair(l->s, off, &lp))
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

/* file:line:col of byte OFF of L (past the end: just after the last byte) */
static inline int pos_line(const struct lline *l, size_t off)
{
	if (!l->line)
		return l->lineno;
	return l->line[off < l->len ? off : l->len ? l->len - 1 : 0];
}

static inline int pos_col(const struct lline *l, size_t off)
{
	if (!l->col)
		return (int) (off < l->len ? off : l->len) + 1;
	return l->col[off < l->len ? off : l->len ? l->len - 1 : 0] +
	       (off >= l->len && l->len ? 1 : 0);
}

#define LN(l, off) pos_line((l), (off))
#define CL(l, off) pos_col((l), (off))

/* The value of PR as a C string (a copy, valid until the next call), for
 * the checks; NULL on ENOMEM. */
static const char *val_copy(struct parser *ps, const struct lline *l, const struct pair *pr)
{
	if (grow(&ps->val, &ps->val_cap, pr->val_len + 1, 1))
		return NULL;
	memcpy(ps->val, l->s + pr->val_off, pr->val_len);
	ps->val[pr->val_len] = '\0';
	return ps->val;
}

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
		*out = opt;	/* as known() says */
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

/* Does slurm_value_error look at OPT's values? */
static bool typed(const struct sc_option *opt)
{
	switch (opt->type) {
	case SC_T_UINT16: case SC_T_UINT32: case SC_T_UINT64: case SC_T_MEMORY:
	case SC_T_BOOL: case SC_T_TIME:
		return true;
	case SC_T_ENUM:
		return opt->scope & SC_SCOPE_PARTITION;
	default:
		return false;
	}
}

static int check_pair(struct parser *ps, const struct lline *l, const struct pair *pr,
		      const struct sc_option *opt, const char *key)
{
	const char *why = NULL, *val;

	if (pr->unterminated) {
		int rc = pwarn(ps, l->file, LN(l, pr->val_off), CL(l, pr->val_off),
			       "unterminated quote in the value of \"%s\": Slurm keeps the '\"' as part of the value",
			       key);
		if (rc)
			return rc;
	}
	if (!opt || !typed(opt))
		return 0;
	if (!(val = val_copy(ps, l, pr)))
		return mdc_nomem(ps->ctx);
	if (!strstr(val, SC_TEMPLATE_TOKEN))
		why = slurm_value_error(opt, val);
	if (why)
		return soft(ps, l->file, LN(l, pr->val_off), CL(l, pr->val_off),
			    "bad value \"%s\" for \"%s\": %s", val, opt->name, why);
	return 0;
}

/* ---- records ---- */

/* The option rows of the keys of DEFAULT record DI (of TYPE), for
 * rec_find; NULL on ENOMEM.  Kept from when the record was read, or
 * looked up again for a record read by an earlier load. */
static const int *def_opts(struct parser *ps, enum sc_rec_type type, long di)
{
	const struct sc_record *d = &ps->conf->recs[di];
	int *o;

	if (ps->def_opt[type] && ps->def_for[type] == di)
		return ps->def_opt[type];
	if (!(o = arena_alloc(ps->conf->mem, (d->nkv ? d->nkv : 1) * sizeof(*o))))
		return NULL;
	for (unsigned i = 0; i < d->nkv; i++)
		o[i] = opt_row(ps, known(d->kv[i].key, rec_types[type].scope));
	ps->def_opt[type] = o;
	ps->def_for[type] = di;
	return o;
}

/* A new record of TYPE named by FIRST at the end of the parser's
 * records (*IDX), its keys still to come; the key stamps renewed. */
static int rec_open(struct parser *ps, struct lline *l, enum sc_rec_type type,
		    const struct pair *first, size_t *idx)
{
	struct sc_conf *c = ps->conf;
	struct sc_record *rec;

	if (c->nrecs == c->recs_cap &&	/* geometric: 10^5 records stay linear */
	    grow(&c->recs, &c->recs_cap, c->nrecs + 1, sizeof(*c->recs)))
		return mdc_nomem(ps->ctx);
	*idx = c->nrecs;
	rec = &c->recs[*idx];
	memset(rec, 0, sizeof(*rec));
	rec->type = type;
	rec->name = l->s + first->val_off;
	if (end_later(ps, rec->name + first->val_len))
		return mdc_nomem(ps->ctx);
	rec->is_default = rec_types[type].has_default && first->val_len == 7 &&
			  !strncasecmp(rec->name, "DEFAULT", 7);
	rec->file = l->file;
	rec->line = LN(l, first->key_off);
	c->nrecs++;
	ps->nkv = 0;
	if (!++ps->gen) {	/* wrapped: forget every stamp */
		memset(ps->seen_gen, 0, ps->nopts * sizeof(*ps->seen_gen));
		ps->gen = 1;
	}
	return 0;
}

/* The option of the record key PR (key terminated), through the memo of
 * the NPAIR-th key of TYPE's lines (the same keys in the same order on
 * most lines of a file). */
static int rec_key_opt(struct parser *ps, struct lline *l, enum sc_rec_type type,
		       const struct pair *pr, size_t npair, const struct sc_option **opt)
{
	char *key = l->s + pr->key_off;
	struct key_memo *km = npair < KEY_MEMO ? &ps->memo[type][npair] : NULL;
	const char *where = rec_types[type].where;
	int rc;

	if (km && km->len == pr->key_len && !memcmp(km->key, key, pr->key_len)) {
		*opt = km->opt;
		return 0;
	}
	rc = lookup(ps, l, pr->key_off, key, rec_types[type].scope, where, opt);
	if (!rc && *opt && ((*opt)->flags & SC_OPT_RECORD))
		return soft(ps, l->file, LN(l, pr->key_off), CL(l, pr->key_off),
			    "key \"%s\" is not allowed %s", key, where);
	if (!rc && *opt && km) {
		km->key = key;
		km->len = pr->key_len;
		km->opt = *opt;
	}
	return rc;
}

/* The KEY=VALUE pairs of the record line L from OFF into the parser's
 * scratch (a key given twice: the last value, with a warning), then
 * nothing but blanks. */
static int rec_pairs(struct parser *ps, struct lline *l, enum sc_rec_type type, size_t off)
{
	const char *where = rec_types[type].where;
	struct pair pr;
	size_t npair = 0;
	int rc;

	while (next_pair(ps, l, off, &pr)) {
		char *key = l->s + pr.key_off;
		const struct sc_option *opt;
		struct sc_kv *kv;
		long at;

		/* the key ends at a blank, an operator or '=': read already */
		key[pr.key_len] = '\0';
		if (end_later(ps, l->s + pr.val_off + pr.val_len))
			return mdc_nomem(ps->ctx);
		if ((rc = rec_key_opt(ps, l, type, &pr, npair++, &opt)) ||
		    (rc = check_pair(ps, l, &pr, opt, key)))
			return rc;
		at = rec_find(ps, key, opt_row(ps, opt));
		if (at >= 0) {
			kv = &ps->kv[at];
			rc = pwarn(ps, l->file, LN(l, pr.key_off), CL(l, pr.key_off),
				   "\"%s\" given twice on this line (first at column %d): the last value is used",
				   key, (int) kv->col);
			kv->value = l->s + pr.val_off;
			kv->col = (unsigned) CL(l, pr.key_off);
			if (rc)
				return rc;
		} else if ((kv = rec_push(ps, opt_row(ps, opt)))) {
			kv_fill(kv, key, l->s + pr.val_off, l->file, LN(l, pr.key_off),
				CL(l, pr.key_off), pr.op, false);
		} else {
			return mdc_nomem(ps->ctx);
		}
		off = pr.next;
	}
	if (!rest_is_space(l, off)) {
		off = skip_space(l, off);
		return soft(ps, l->file, LN(l, off), CL(l, off),
			    "unexpected text \"%.40s\" %s (expected Key=Value)", l->s + off, where);
	}
	return 0;
}

/* NAME=DEFAULT merges over the previous defaults, as Slurm does; a
 * record (IDX) takes the defaults it does not set. */
static int rec_defaults(struct parser *ps, enum sc_rec_type type, size_t idx)
{
	struct sc_conf *c = ps->conf;
	bool is_default = c->recs[idx].is_default;
	long di = ps->last_default[type];
	const struct sc_record *old;
	const int *dopt;

	if (is_default)
		ps->last_default[type] = (long) idx;
	if (di < 0)
		return 0;
	if (!(dopt = def_opts(ps, type, di)))
		return mdc_nomem(ps->ctx);
	old = &c->recs[di];
	for (unsigned i = 0; i < old->nkv; i++) {
		const struct sc_kv *o = &old->kv[i];
		struct sc_kv *kv;

		if (rec_find(ps, o->key, dopt[i]) >= 0)
			continue;
		if (!(kv = rec_push(ps, dopt[i])))
			return mdc_nomem(ps->ctx);
		*kv = *o;
		kv->from_default = is_default ? o->from_default : true;
	}
	return 0;
}

/* Give record IDX the keys gathered (also after an error RC: CONF keeps
 * what was read), index its name, and warn of a name defined again. */
static int rec_close(struct parser *ps, struct lline *l, enum sc_rec_type type,
		     const struct pair *first, size_t idx, int rc)
{
	struct sc_conf *c = ps->conf;
	struct sc_record *rec;
	const struct sc_record *o;
	size_t first_idx;

	end_now(ps);
	rec = &c->recs[idx];
	rec->nkv = (unsigned) ps->nkv;
	if (ps->nkv && !(rec->kv = arena_alloc(c->mem, ps->nkv * sizeof(*rec->kv))))
		rec->nkv = 0;
	if (rec->kv)
		memcpy(rec->kv, ps->kv, ps->nkv * sizeof(*rec->kv));
	if (rec->is_default && ps->last_default[type] == (long) idx) {
		int *opt = arena_alloc(c->mem, (ps->nkv ? ps->nkv : 1) * sizeof(*opt));

		if (opt && ps->nkv)
			memcpy(opt, ps->kvopt, ps->nkv * sizeof(*opt));
		ps->def_opt[type] = opt;
		ps->def_for[type] = (long) idx;
	}
	/* the name index keeps the first record of each name (Slurm's
	 * parser keeps both; slurmctld uses the first) */
	first_idx = idx;
	if ((ps->nkv && !rec->kv) ||
	    (!rec->is_default && mdc_hash_insert(&c->names[type], rec->name, idx, &first_idx)))
		return mdc_nomem(ps->ctx);
	if (rc || rec->is_default || first_idx == idx)
		return rc;
	/* Same name twice: Slurm's parser keeps both; slurmctld then uses the
	 * first partition and refuses a node defined twice. */
	o = &c->recs[first_idx];
	return pwarn(ps, l->file, rec->line, CL(l, first->val_off),
		     "%s \"%s\" defined again (first at %s:%d): %s",
		     rec_types[type].key, rec->name, o->file, o->line,
		     type == SC_REC_NODE ? "slurmctld refuses a node defined twice" :
		     "slurmctld uses the first definition");
}

/* A record line: NAME=VALUE then the keys of its scope.  The keys are
 * gathered in the parser's scratch and given to the record, in one
 * arena block, once the line is read (also after an error: CONF keeps
 * what was read). */
static int parse_record(struct parser *ps, struct lline *l, enum sc_rec_type type,
			const struct pair *first)
{
	size_t idx = 0;
	int rc;

	if ((rc = rec_open(ps, l, type, first, &idx)))
		return rc;
	if (!(rc = rec_pairs(ps, l, type, first->next)))
		rc = rec_defaults(ps, type, idx);
	return rec_close(ps, l, type, first, idx, rc);
}

/* ---- global lines ---- */

/* A global KEY=VALUE line (PR: its pair, key terminated). */
static int parse_global(struct parser *ps, struct lline *l, const struct pair *pr)
{
	struct sc_conf *c = ps->conf;
	const struct sc_option *opt;
	struct sc_kv *kv = NULL;
	char *key = l->s + pr->key_off, *value = l->s + pr->val_off;
	size_t i;
	int rc;

	if (!strcasecmp(key, "Include"))
		return soft(ps, l->file, LN(l, pr->key_off), CL(l, pr->key_off),
			    "write \"Include FILE\" (a blank, not '=', after Include)");
	if (end_later(ps, value + pr->val_len))
		return mdc_nomem(ps->ctx);
	rc = lookup(ps, l, pr->key_off, key, SC_SCOPE_CLUSTER, "in slurm.conf", &opt);
	if (rc)
		return rc;
	rc = check_pair(ps, l, pr, opt, key);
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
			l->s[more.key_off + more.key_len] = '\0';
			rc = parse_global(ps, l, &more);
			if (rc)
				return rc;
		}
	}
	/* only the rest of a line gets here with a record key: it starts no
	 * record (Slurm reads none of that text) and is no setting either */
	if (opt && (opt->flags & SC_OPT_RECORD))
		return soft(ps, l->file, LN(l, pr->key_off), CL(l, pr->key_off),
			    "%s= after another key defines nothing (a %s line starts with it): ignored",
			    opt->name, opt->name);
	if (!(opt && (opt->flags & SC_OPT_MULTI)) && mdc_hash_get(&c->global_idx, key, &i))
		kv = &c->globals[i];
	if (kv) {
		rc = pwarn(ps, l->file, LN(l, pr->key_off), CL(l, pr->key_off),
			   "\"%s\" set again (first at %s:%d): the last value is used",
			   opt ? opt->name : key, kv->file, kv->line);
		if (rc)
			return rc;
		kv_fill(kv, key, value, l->file, LN(l, pr->key_off), CL(l, pr->key_off), pr->op,
			false);
		return 0;
	}
	if (grow(&c->globals, &c->globals_cap, c->nglobals + 1, sizeof(*c->globals)))
		return mdc_nomem(ps->ctx);
	kv_fill(&c->globals[c->nglobals], key, value, l->file, LN(l, pr->key_off),
		CL(l, pr->key_off), pr->op, false);
	/* the index keeps the first entry of a key (the one "set again" updates);
	 * keys that repeat (SlurmctldHost) are not in it */
	if (!(opt && (opt->flags & SC_OPT_MULTI)) &&
	    mdc_hash_put(&c->global_idx, key, c->nglobals, false))
		return mdc_nomem(ps->ctx);
	c->nglobals++;
	return 0;
}

static int parse_text(struct parser *ps, char *text, size_t len,
		      const char *file, int depth);
static char *template_opaque(const char *text, size_t len, size_t *outlen);
/* The file name of "include FILE" line L (*START: its offset), or
 * *NAME NULL when the line is refused (no name, text after it, includes
 * disabled, a templated name or a wildcard). */
static int include_name(struct parser *ps, const struct lline *l, size_t *start, char **name)
{
	size_t off = skip_space(l, 7);
	int rc;

	*name = NULL;
	*start = off;
	while (off < l->len && !isspace((unsigned char) l->s[off]))
		off++;
	if (*start == off)
		return perr(ps, l->file, LN(l, 0), CL(l, 0), "\"Include\" needs a file name");
	if (!rest_is_space(l, off)) {
		size_t o = skip_space(l, off);

		return perr(ps, l->file, LN(l, o), CL(l, o),
			    "unexpected text \"%.40s\" after the included file name", l->s + o);
	}
	if (!(*name = strndup(l->s + *start, off - *start)))
		return mdc_nomem(ps->ctx);
	if (ps->conf->flags & SC_PARSE_NO_INCLUDE)
		rc = perr(ps, l->file, LN(l, *start), CL(l, *start),
			  "\"Include %s\": includes are disabled here", *name);
	else if (strstr(*name, SC_TEMPLATE_TOKEN))
		rc = pwarn(ps, l->file, LN(l, *start), CL(l, *start),
			   "\"Include %s\": a templated file name: not followed", *name);
	else if (strpbrk(*name, "*?["))
		rc = perr(ps, l->file, LN(l, *start), CL(l, *start),
			  "\"Include %s\": wildcards are not supported: include each file by name",
			  *name);
	else
		return 0;
	free(*name);
	*name = NULL;
	return rc;
}

/* NAME as a path (*FULL: %c is the ClusterName read so far, in lower
 * case, Slurm's rule; relative to the including file's folder) and the
 * file it names (*REAL), or *REAL NULL when it cannot be included (too
 * deep, missing, already being read). */
static int include_resolve(struct parser *ps, const struct lline *l, size_t start,
			   const char *name, char **full, char **real)
{
	struct mdc_buf path = MDC_BUF_INIT;
	const char *p;
	int rc = 0;

	*full = *real = NULL;
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
	if (!path.s || !(*full = path.s[0] == '/' || !strcmp(l->dir, ".") ? strdup(path.s) :
				  mdc_path_join(l->dir, path.s))) {
		rc = mdc_nomem(ps->ctx);
		goto out;
	}
	if (l->depth + 1 > SC_INCLUDE_MAX) {
		rc = perr(ps, l->file, LN(l, start), CL(l, start),
			  "\"Include %s\": more than %d nested includes", name, SC_INCLUDE_MAX);
		goto out;
	}
	if (!(*real = realpath(*full, NULL))) {
		rc = soft(ps, l->file, LN(l, start), CL(l, start),
			  "cannot read included file \"%s\": %s", *full, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < ps->stack.n; i++)
		if (!strcmp(ps->stack.v[i], *real)) {
			rc = perr(ps, l->file, LN(l, start), CL(l, start),
				  "include loop: \"%s\" is already being read", *full);
			free(*real);
			*real = NULL;
			goto out;
		}
out:
	mdc_buf_free(&path);
	return rc;
}

/* The text of included file FULL (*TEXT, *TLEN bytes), within the tree's
 * bounds, or *TEXT NULL when it cannot be read. */
static int include_read(struct parser *ps, const struct lline *l, size_t start, const char *name,
			const char *full, char **text, size_t *tlen)
{
	struct mdc_ctx rctx;
	size_t left = ps->tree_bytes < SC_TREE_MAX_BYTES ? SC_TREE_MAX_BYTES - ps->tree_bytes : 0;
	struct stat st;

	*text = NULL;
	mdc_ctx_clear(&rctx);
	if (stat(full, &st) == 0 && !S_ISREG(st.st_mode))
		return perr(ps, l->file, LN(l, start), CL(l, start),
			    "included file \"%s\" is not a regular file", full);
	if (++ps->tree_files > SC_TREE_MAX_FILES)
		return perr(ps, l->file, LN(l, start), CL(l, start),
			    "\"Include %s\": more than %d included files in all", name,
			    SC_TREE_MAX_FILES);
	/* the regular-file check again on the open file, without blocking
	 * (it may have become a FIFO since the stat) */
	if (mdc_read_regular(full, left < SC_FILE_MAX_BYTES ? left : SC_FILE_MAX_BYTES, 0,
			     text, tlen, &rctx)) {
		free(*text);
		*text = NULL;
		if (st.st_size > 0 && (unsigned long long) st.st_size > left)
			return perr(ps, l->file, LN(l, start), CL(l, start),
				    "\"Include %s\": the included files total more than %lu MiB",
				    name, SC_TREE_MAX_BYTES >> 20);
		if (strstr(rctx.msg, "larger than") || strstr(rctx.msg, "regular file"))
			return perr(ps, l->file, LN(l, start), CL(l, start),
				    "included file %s", rctx.msg);
		return soft(ps, l->file, LN(l, start), CL(l, start),
			    "cannot read included file \"%s\": %s", full, rctx.msg);
	}
	ps->tree_bytes += *tlen;
	return 0;
}

/* "include FILE" at the start of a logical line (Slurm: case-insensitive,
 * then blanks, then the file name up to a blank). */
static int parse_include(struct parser *ps, const struct lline *l)
{
	char *name = NULL, *full = NULL, *real = NULL, *text = NULL, *body;
	size_t start = 0, tlen = 0;
	int rc;

	/* each step stops the include with its diagnostic (a warning may
	 * leave RC 0): then its result is NULL */
	if ((rc = include_name(ps, l, &start, &name)) || !name ||
	    (rc = include_resolve(ps, l, start, name, &full, &real)) || !real ||
	    (rc = include_read(ps, l, start, name, full, &text, &tlen)) || !text)
		goto out;
	if (ps->conf->flags & SC_PARSE_TEMPLATE) {
		char *t = template_opaque(text, tlen, &tlen);

		free(text);
		if (!(text = t)) {
			rc = mdc_nomem(ps->ctx);
			goto out;
		}
	}
	/* the conf keeps the text: its strings point into it */
	rc = mem_keep(ps->conf->mem, text);
	body = text;
	text = NULL;
	if (rc || mdc_strv_push(&ps->stack, real)) {
		rc = mdc_nomem(ps->ctx);
		goto out;
	}
	rc = parse_text(ps, body, tlen, full, l->depth + 1);
	free(ps->stack.v[--ps->stack.n]);
	ps->stack.v[ps->stack.n] = NULL;
out:
	free(name);
	free(full);
	free(real);
	free(text);
	return rc;
}

/* The record type a line's first key starts (the names differ in length),
 * or SC_REC_MAX for a global line. */
static enum sc_rec_type rec_type_of(const char *key, size_t len)
{
	for (int i = 0; i < SC_REC_MAX; i++)
		if (rec_types[i].len == len && !strncasecmp(key, rec_types[i].key, len))
			return (enum sc_rec_type) i;
	return SC_REC_MAX;
}

static int parse_lline(struct parser *ps, struct lline *l)
{
	struct pair pr;
	enum sc_rec_type type;
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
	type = rec_type_of(l->s + pr.key_off, pr.key_len);
	l->s[pr.key_off + pr.key_len] = '\0';
	if (type < SC_REC_MAX) {
		if (pr.unterminated)
			rc = pwarn(ps, l->file, LN(l, pr.val_off), CL(l, pr.val_off),
				   "unterminated quote in the value of \"%s\": Slurm keeps the '\"' as part of the value",
				   l->s + pr.key_off);
		if (!rc)
			rc = parse_record(ps, l, type, &pr);
	} else {
		rc = parse_global(ps, l, &pr);
	}
	end_now(ps);
	return rc;
}

/* ---- physical lines ---- */

static bool utf8_ok(const unsigned char *s, size_t n, size_t *bad)
{
	size_t i = 0, k, need;
	unsigned cp;
	unsigned char any = 0;

	/* ASCII (nearly every line): one pass the compiler vectorises */
	for (k = 0; k < n; k++)
		any |= s[k];
	if (!(any & 0x80))
		return true;
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

/* Append N bytes at P (physical line LINE, column COL of P) to the joined line. */
static int join_add(struct parser *ps, const char *p, size_t n, int line, int col)
{
	size_t cap = ps->jcap;

	if (ps->jlen + n + 1 > cap) {
		size_t ncap = cap ? cap : 256;
		char *s;
		int *ln, *cl;

		while (ncap < ps->jlen + n + 1)
			ncap *= 2;
		if (!(s = realloc(ps->js, ncap)))
			return mdc_nomem(ps->ctx);
		ps->js = s;
		if (!(ln = realloc(ps->jline, ncap * sizeof(int))))
			return mdc_nomem(ps->ctx);
		ps->jline = ln;
		if (!(cl = realloc(ps->jcol, ncap * sizeof(int))))
			return mdc_nomem(ps->ctx);
		ps->jcol = cl;
		ps->jcap = ncap;
	}
	for (size_t i = 0; i < n; i++) {
		ps->js[ps->jlen] = p[i];
		ps->jline[ps->jlen] = line;
		ps->jcol[ps->jlen] = col + (int) i;
		ps->jlen++;
	}
	ps->js[ps->jlen] = '\0';
	return 0;
}

/* The physical line P (PLEN bytes, line LINENO of FILE) is text: no NUL,
 * valid UTF-8; CRLF ends are warned of once. */
static int line_check(struct parser *ps, const char *file, int lineno, const char *p,
		      size_t plen)
{
	const char *q = memchr(p, '\0', plen);
	size_t bad;

	if (q)
		return perr(ps, file, lineno, (int) (q - p) + 1,
			    "NUL byte in the file (is it a slurm.conf?)");
	if (!utf8_ok((const unsigned char *) p, plen, &bad))
		return perr(ps, file, lineno, (int) bad + 1, "invalid UTF-8 (is it a slurm.conf?)");
	if (plen && p[plen - 1] == '\r' && !ps->conf->warn_crlf_done) {
		ps->conf->warn_crlf_done = true;
		return pwarn(ps, file, lineno, (int) plen,
			     "CRLF line ends (Slurm accepts them; prefer LF)");
	}
	return 0;
}

/* A line with no escape and no continuation (P to EOL, line LINENO):
 * read where it lies, its comment cut off. */
static int plain_line(struct parser *ps, struct lline *l, char *p, const char *eol, int lineno)
{
	char *cut = memchr(p, '#', (size_t) (eol - p));

	if (!cut)
		cut = (char *) eol;
	if ((size_t) (cut - p) > SC_LINE_MAX)
		return perr(ps, l->file, lineno, 1, "line longer than %d bytes", SC_LINE_MAX);
	*cut = '\0';
	l->s = p;
	l->len = (size_t) (cut - p);
	l->lineno = lineno;
	l->line = l->col = NULL;
	return l->len ? parse_lline(ps, l) : 0;
}

/* Add physical line P (PLEN bytes, line LINENO; the logical line began
 * at START_LINE) to the joined line: up to its comment (the first '#'
 * after an even run of backslashes) or its continuation (an odd run of
 * backslashes, blanks after it allowed: *CONT), which ends at *CUT. */
static int join_physical(struct parser *ps, const char *file, char *p, size_t plen, int lineno,
			 int start_line, bool *cont, char **cut)
{
	const char *q;
	int bs = 0;

	*cut = p + plen;
	for (q = p; q < p + plen; q++) {
		if (*q == '#' && bs % 2 == 0) {
			*cut = (char *) q;
			break;
		}
		bs = *q == '\\' ? bs + 1 : 0;
	}
	q = *cut;
	while (q > p && isspace((unsigned char) q[-1]))
		q--;
	bs = 0;
	while (q > p && q[-1] == '\\') {
		q--;
		bs++;
	}
	*cont = bs % 2 == 1;
	if (*cont)
		*cut = (char *) q + bs - 1;
	if (ps->jlen + (size_t) (*cut - p) > SC_LINE_MAX)
		return perr(ps, file, start_line, 1, "line longer than %d bytes", SC_LINE_MAX);
	return join_add(ps, p, (size_t) (*cut - p), lineno, 1);
}

/* The joined line unescaped: "\x" reads "x", a lone trailing '\' vanishes. */
static void join_unescape(struct parser *ps)
{
	size_t i, j;

	for (i = 0, j = 0; i < ps->jlen; i++, j++) {
		if (ps->js[i] == '\\' && i + 1 < ps->jlen)
			i++;
		else if (ps->js[i] == '\\')
			break;
		ps->js[j] = ps->js[i];
		ps->jline[j] = ps->jline[i];
		ps->jcol[j] = ps->jcol[i];
	}
	ps->jlen = j;
}

/* Parse TEXT (LEN bytes, TEXT[LEN] writable: a kept text), in place:
 * each physical line checked, then read where it lies (plain_line) or
 * joined with its continuations and unescaped first. */
static int parse_text(struct parser *ps, char *text, size_t len,
		      const char *file_in, int depth)
{
	struct lline l;
	const char *file, *end = text + len;
	char *p = text, *span = text, *cut, *dir;
	int lineno = 0, start_line = 0, rc = 0;
	bool cont = false;

	memset(&l, 0, sizeof(l));
	file = intern_file(ps, file_in);
	dir = mdc_path_dirname(file_in);
	if (!file || !dir) {
		free(dir);
		return mdc_nomem(ps->ctx);
	}
	l.file = file;
	l.dir = dir;
	l.depth = depth;
	while (p < end && !rc) {
		char *line = p, *eol = memchr(p, '\n', (size_t) (end - p));
		size_t plen;

		lineno++;
		if (!eol)
			eol = (char *) end;
		plen = (size_t) (eol - p);
		p = eol < end ? eol + 1 : (char *) end;
		if ((rc = line_check(ps, file, lineno, line, plen)))
			break;
		if (!cont && !memchr(line, '\\', plen)) {
			rc = plain_line(ps, &l, line, eol, lineno);
			continue;
		}
		if (!cont) {
			ps->jlen = 0;
			start_line = lineno;
			span = line;
		}
		if ((rc = join_physical(ps, file, line, plen, lineno, start_line, &cont, &cut)))
			break;
		if (cont) {
			if (p >= end)
				rc = perr(ps, file, lineno, (int) (cut - line) + 1,
					  "the last line ends with a continuation backslash");
			continue;
		}
		join_unescape(ps);
		if (!ps->jlen)
			continue;
		/* back over its own physical lines (never shorter: the joins and
		 * escapes it lost, and the last newline or the text's NUL) */
		memcpy(span, ps->js, ps->jlen);
		span[ps->jlen] = '\0';
		l.s = span;
		l.len = ps->jlen;
		l.line = ps->jline;
		l.col = ps->jcol;
		rc = parse_lline(ps, &l);
	}
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
		ps->last_default[i] = ps->def_for[i] = -1;
	for (i = 0; i < conf->nrecs; i++)
		if (conf->recs[i].is_default)
			ps->last_default[conf->recs[i].type] = (long) i;
	ps->nopts = sc_opt_count();
	ps->opt0 = sc_opt_at(0);
	if (!conf->mem && !(conf->mem = calloc(1, sizeof(*conf->mem))))
		return mdc_nomem(ctx);
	ps->seen_gen = calloc(ps->nopts, sizeof(*ps->seen_gen));
	ps->seen_at = calloc(ps->nopts, sizeof(*ps->seen_at));
	if (!ps->seen_gen || !ps->seen_at)
		return mdc_nomem(ctx);
	return 0;
}

static void parser_done(struct parser *ps)
{
	mdc_strv_free(&ps->stack);
	free(ps->kv);
	free(ps->kvopt);
	free(ps->ends);
	free(ps->val);
	free(ps->seen_gen);
	free(ps->seen_at);
	free(ps->js);
	free(ps->jline);
	free(ps->jcol);
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


/* Parse TEXT (malloc'ed, LEN bytes and a NUL), which CONF keeps. */
static int load_owned(struct sc_conf *conf, char *text, size_t len, const char *name,
		      struct mdc_ctx *ctx)
{
	struct parser ps;
	char *real;
	int rc;

	if (!name)
		name = "<string>";
	rc = parser_init(&ps, conf, ctx);
	if (rc) {
		free(text);
		goto out;
	}
	if (mem_keep(conf->mem, text)) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	ps.tree_bytes = len;
	real = realpath(name, NULL);
	if (real && mdc_strv_push(&ps.stack, real))
		rc = mdc_nomem(ctx);
	free(real);
	if (!rc)
		rc = parse_text(&ps, text, len, name, 0);
out:
	parser_done(&ps);
	return rc;
}

/* TEXT as given, or its template tokens made opaque (SC_PARSE_TEMPLATE);
 * TAKE: TEXT is malloc'ed and handed over.  NULL on ENOMEM. */
static char *text_for(const struct sc_conf *conf, const char *text, size_t *len, bool take)
{
	char *t;

	if (conf->flags & SC_PARSE_TEMPLATE) {
		t = template_opaque(text ? text : "", text ? *len : 0, len);
		if (take)
			free((char *) text);
		return t;
	}
	if (take)
		return (char *) text;
	if (!text)
		*len = 0;
	if (!(t = malloc(*len + 1)))
		return NULL;
	if (*len)
		memcpy(t, text, *len);
	t[*len] = '\0';
	return t;
}

int sc_conf_load_string(struct sc_conf *conf, const char *text, size_t len,
			const char *name, struct mdc_ctx *ctx)
{
	/* a copy: the parse ends strings in place */
	char *t = text_for(conf, text, &len, false);

	if (!t)
		return mdc_nomem(ctx);
	return load_owned(conf, t, len, name, ctx);
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
	if (!(text = text_for(conf, text, &len, true)))
		return mdc_nomem(ctx);
	return load_owned(conf, text, len, path, ctx);
}

int sc_conf_parse_string(const char *text, size_t len, const char *name,
			 struct sc_conf **out, struct mdc_ctx *ctx)
{
	struct sc_conf *c = sc_conf_new();
	int rc;

	*out = NULL;
	if (!c)
		return mdc_nomem(ctx);
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
		return mdc_nomem(ctx);
	rc = sc_conf_load_file(c, path, ctx);
	if (rc)
		sc_conf_free(c);
	else
		*out = c;
	return rc;
}

/* ---- accessors ---- */

/* KEY among N pairs: the same spelling ignoring case first (Slurm's own
 * key identity: "Weight_" and "Weight" are two keys to it, and the parser
 * keeps one pair per spelling), then ignoring underscores too (C7's, for
 * a key named as the API names it). */
static const struct sc_kv *kv_find(const struct sc_kv *kv, size_t n, const char *key)
{
	size_t i;

	if (!key)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcasecmp(kv[i].key, key))
			return &kv[i];
	for (i = 0; i < n; i++)
		if (mdc_key_eq(kv[i].key, key))
			return &kv[i];
	return NULL;
}

const struct sc_kv *sc_conf_global(const struct sc_conf *conf, const char *key)
{
	return conf ? kv_find(conf->globals, conf->nglobals, key) : NULL;
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
	return rec ? kv_find(rec->kv, rec->nkv, key) : NULL;
}

const char *sc_record_get(const struct sc_record *rec, const char *key)
{
	const struct sc_kv *kv = sc_record_kv(rec, key);

	return kv ? kv->value : NULL;
}
