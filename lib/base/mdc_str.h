/* mdc_str.h - small string, vector and path helpers. */
#ifndef MDC_STR_H
#define MDC_STR_H

#include <stdbool.h>
#include <stddef.h>

/* Slurm's key rule (DESIGN C7): equal ignoring case and underscores,
 * compared in full (no abbreviations). */
bool mdc_key_eq(const char *a, const char *b);
/* strcasecmp() == 0, NULL-safe (two NULLs are equal). */
bool mdc_strcaseeq(const char *a, const char *b);
bool mdc_streq(const char *a, const char *b);
bool mdc_startswith(const char *s, const char *prefix);
/* Edit distance (Levenshtein) of A and B, lengths LA and LB under 64;
 * SIZE_MAX for longer ones.  For "did you mean" hints. */
size_t mdc_str_distance(const char *a, size_t la, const char *b, size_t lb);

/* Trim ASCII white space in place; returns S. */
char *mdc_trim(char *s);
/* True if S holds a byte < 0x20 or 0x7f (newline, tab, ...): such values
 * would inject slurm.conf lines (DESIGN C10). */
bool mdc_has_ctrl(const char *s);

/* A NULL-terminated vector of malloc'ed strings. */
struct mdc_strv {
	char **v;
	size_t n;
	size_t cap;
};
#define MDC_STRV_INIT { NULL, 0, 0 }
/* Push a copy of S (0 or MDC_ERR_NOMEM). */
int mdc_strv_push(struct mdc_strv *sv, const char *s);
int mdc_strv_pushf(struct mdc_strv *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool mdc_strv_has(const struct mdc_strv *sv, const char *s);
/* Split S on any byte of SEPS, dropping empty fields and trimming each. */
int mdc_strv_split(struct mdc_strv *sv, const char *s, const char *seps);
/* Split a Slurm list S on the commas outside brackets ("a[1-2,4],b" is
 * "a[1-2,4]" and "b"), dropping empty fields, nothing trimmed: the one
 * splitter of host lists and node lists.  0 or MDC_ERR_NOMEM. */
int mdc_strv_split_list(struct mdc_strv *sv, const char *s);
/* Join with SEP; the caller frees the result (NULL on ENOMEM). */
char *mdc_strv_join(const struct mdc_strv *sv, const char *sep);
void mdc_strv_sort(struct mdc_strv *sv);
void mdc_strv_free(struct mdc_strv *sv);

/* Paths: results are malloc'ed, the caller frees them; NULL on ENOMEM. */
char *mdc_path_join(const char *dir, const char *name);
char *mdc_path_dirname(const char *path);

/* Read a whole file (NUL-terminated, length in *LEN if non-NULL).
 * Returns 0 or MDC_ERR_IO / MDC_ERR_NOMEM with a message in CTX. */
struct mdc_ctx;
int mdc_read_file(const char *path, char **out, size_t *len, struct mdc_ctx *ctx);
/* Read PATH only if it is a regular file of at most MAX bytes: a FIFO, a
 * device (a symlink to /dev/zero), a directory or a bigger file is refused
 * with MDC_ERR_IO naming it, without blocking (O_NONBLOCK, then fstat).
 * MDC_READ_PRIVATE also refuses a file that other users can read or write,
 * or that belongs to neither the caller nor root (a credential, as ssh
 * treats keys).  *OUT as mdc_read_file. */
#define MDC_READ_PRIVATE 0x1
int mdc_read_regular(const char *path, size_t max, unsigned flags, char **out, size_t *len,
		     struct mdc_ctx *ctx);
/* Write DATA atomically: temp file in the same directory, fsync, rename. */
int mdc_write_file_atomic(const char *path, const char *data, size_t len,
			  int mode, struct mdc_ctx *ctx);
/* Write DATA to a new file PATH (O_EXCL), not synced: for a file in a
 * private temporary directory that a child reads and nobody keeps. */
int mdc_write_file_scratch(const char *path, const char *data, size_t len,
			   int mode, struct mdc_ctx *ctx);

#endif
