/* sc_conf.h - a Slurm-faithful slurm.conf parser.  (owner: slurm.conf engine)
 *
 * Grammar (Slurm 22.05 src/common/parse_config.c and read_config.c):
 * keys case-insensitive (underscores count, unlike the API's C7 rule);
 * `#` starts a comment unless escaped; a line ending in an odd number of
 * backslashes (trailing blanks allowed) continues on the next one; `\x`
 * reads as `x`; a value is `"quoted with spaces"` or a run of non-blanks;
 * one global key per line; `Include FILE` (`include` too, at the start of a
 * line) relative to the including file, `%c` = lower-case ClusterName;
 * NodeName/PartitionName/NodeSet/DownNodes/FrontendName lines are records
 * holding the rest of the line; `NAME=DEFAULT` records supply defaults to
 * the records that follow them.
 *
 * Stricter than Slurm, on purpose (each an error, never a wait): a
 * missing include (Slurm retries 60 s), include globs, loops and depth
 * over SC_INCLUDE_MAX, a continuation at end of file, NUL bytes, invalid
 * UTF-8, logical lines over SC_LINE_MAX bytes.  Odd input Slurm accepts
 * (CRLF line ends, an unterminated quote) is accepted with a warning.
 * Parsing stops at the first error.
 */
/* layer lib/slurmconf/ owns the slurm.conf reader, key tables, values, managed check, job policy;
 * it may include lib/base/ only; json-c-free, linked by the plugins (scripts/check-layers). */
/* deliberate unit: sc_conf reads keys by sc_options' table, which checks times with sc_conf's */
#ifndef SC_CONF_H
#define SC_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include "mdc_err.h"
#include "mdc_hash.h"
#include "mdc_str.h"

#define SC_INCLUDE_MAX 16		/* nested Include levels */
#define SC_LINE_MAX (64 * 1024)		/* bytes in a logical line */
/* one slurm.conf file at most (mdc_read_regular: every reader of one) */
#define SC_FILE_MAX_BYTES (32UL << 20)

/* Parse options (sc_conf.flags, set before loading). */
enum sc_parse_flag {
	/* Report unknown or misplaced keys, bad values, extra text and missing
	 * includes as warnings and keep going (legacy files, corpus). */
	SC_PARSE_LENIENT    = 1 << 0,
	/* Templates (Jinja {{ }} {% %} {# #}, ERB/EPP <% %>, Python {name}):
	 * each token reads as the opaque word SC_TEMPLATE_TOKEN, lines of
	 * template tokens only are skipped, values holding one are not type
	 * checked, templated includes are not followed. */
	SC_PARSE_TEMPLATE   = 1 << 1,
	/* Refuse Include lines (fuzzing, untrusted text). */
	SC_PARSE_NO_INCLUDE = 1 << 2,
};
#define SC_TEMPLATE_TOKEN "@TPL@"

enum sc_rec_type {
	SC_REC_NODE,		/* NodeName= */
	SC_REC_PARTITION,	/* PartitionName= */
	SC_REC_NODESET,		/* NodeSet= */
	SC_REC_DOWNNODES,	/* DownNodes= */
	SC_REC_FRONTEND,	/* FrontendName= */
	SC_REC_MAX
};

/* One key=value as read.  KEY, VALUE and FILE point into the sc_conf
 * (never freed separately); LINE and COL are 1-based, COL of the key.
 * 32 bytes (the bit-fields): one per key of each of 10^5 records. */
struct sc_kv {
	char *key;		/* as spelled in the file */
	char *value;		/* unescaped, quotes removed */
	const char *file;
	int line;
	unsigned col : 22;	/* a logical line is at most SC_LINE_MAX bytes */
	unsigned op : 8;	/* '=' or the operator of "+=", "-=", "*=", "/=" */
	bool from_default : 1;	/* inherited from a NAME=DEFAULT record */
};

struct sc_record {
	char *name;		/* the first value: "n[1-4]", "batch", "DEFAULT" */
	const char *file;
	struct sc_kv *kv;	/* the other keys, explicit then inherited */
	unsigned nkv;
	int line;
	enum sc_rec_type type;
	bool is_default;	/* NAME=DEFAULT: supplies defaults, not a record */
};

struct sc_diag {
	bool error;
	const char *file;
	int line, col;
	char *msg;
};

struct sc_mem;

struct sc_conf {
	struct sc_kv *globals;	/* one per key (the last value wins), SlurmctldHost repeats */
	size_t nglobals, globals_cap;
	struct mdc_hash global_idx;	/* key (case ignored) -> its entry in globals */
	struct sc_record *recs;	/* in file order, DEFAULT records included */
	size_t nrecs, recs_cap;
	struct mdc_hash names[SC_REC_MAX];	/* name -> first non-DEFAULT record of a type */
	struct sc_diag *diags;	/* warnings, then at most one error */
	size_t ndiags;
	struct mdc_strv files;	/* every file read, the main one first */
	unsigned flags;		/* enum sc_parse_flag, set by the caller */
	bool warn_crlf_done;
	/* private: the texts read (every string above points into them,
	 * terminated in place) and an arena for the records' keys */
	struct sc_mem *mem;
};

/* A new empty configuration (NULL on ENOMEM); free with sc_conf_free. */
struct sc_conf *sc_conf_new(void);
void sc_conf_free(struct sc_conf *conf);

/* Parse PATH into CONF (which keeps what was read before an error, and
 * every diagnostic).  Returns 0 or MDC_ERR_PARSE / MDC_ERR_IO / MDC_ERR_NOMEM
 * with CTX holding "file:line:col: error: ...". */
int sc_conf_load_file(struct sc_conf *conf, const char *path, struct mdc_ctx *ctx);
/* Same for TEXT (LEN bytes, may hold NULs), named NAME in messages;
 * includes are resolved relative to NAME's directory. */
int sc_conf_load_string(struct sc_conf *conf, const char *text, size_t len,
			const char *name, struct mdc_ctx *ctx);

/* Convenience: a new sc_conf in *OUT (the caller frees it) or, on error,
 * *OUT = NULL and CTX holding the first error. */
int sc_conf_parse_file(const char *path, struct sc_conf **out, struct mdc_ctx *ctx);
int sc_conf_parse_string(const char *text, size_t len, const char *name,
			 struct sc_conf **out, struct mdc_ctx *ctx);

/* One Key[op]=Value pair of the slurm.conf grammar at S + OFF (S ends at
 * its first NUL), matched exactly as Slurm's key=value regular expression
 * matches it (parse_config.c, glibc's POSIX leftmost-longest, ties to the
 * quoted value: SC_KV_PATTERN), without the regex.  Offsets are from S;
 * VAL excludes the quotes of a quoted value; NEXT is just past the value.
 * False when no pair starts there.  (Exposed for the differential test.) */
struct sc_lexpair {
	size_t key_off, key_len;
	size_t val_off, val_len;
	size_t next;
	char op;		/* '=' or the operator of +=, -=, *=, /= */
	bool quoted;
};
bool sc_lex_pair(const char *s, size_t off, struct sc_lexpair *p);
#define SC_KV_PATTERN \
	"^[[:space:]]*([[:alnum:]_.]+)[[:space:]]*([-*+/]?)=[[:space:]]*" \
	"((\"([^\"]*)\")|([^[:space:]]+))([[:space:]]|$)"

/* Accessors: borrowed pointers into CONF, NULL when absent.  A key is
 * matched as Slurm spells it ignoring case first, then ignoring
 * underscores too (C7): "Weight_" finds "Weight_" when the line has it,
 * else "Weight". */
const struct sc_kv *sc_conf_global(const struct sc_conf *conf, const char *key);
const char *sc_conf_get(const struct sc_conf *conf, const char *key);
/* The first non-DEFAULT record of TYPE named NAME (case-sensitive, as Slurm). */
const struct sc_record *sc_conf_record(const struct sc_conf *conf,
				       enum sc_rec_type type, const char *name);
const struct sc_kv *sc_record_kv(const struct sc_record *rec, const char *key);
const char *sc_record_get(const struct sc_record *rec, const char *key);
/* "NodeName", "PartitionName", ... */
const char *sc_rec_type_name(enum sc_rec_type type);
/* Number of error diagnostics. */
size_t sc_conf_errors(const struct sc_conf *conf);

/* "file:line:col: warning|error: msg" for diagnostic D (the caller frees). */
char *sc_diag_format(const struct sc_diag *d);

/* Slurm's time_str2mins(): minutes, or -1 if malformed; INFINITE,
 * UNLIMITED and -1 give -2.  sc_time_seconds: time_str2secs(), the same
 * grammar in seconds (the one time reader: options, values, rules). */
long sc_time_minutes(const char *value);
long long sc_time_seconds(const char *value);

#endif
