/* mdc_hash.h - a small string-keyed hash map: the one index behind every
 * lookup by name or id that would otherwise scan a list (option tables,
 * partitions and pools in plans and validation, slurm.conf records).
 *
 * Open addressing with linear probing over a power-of-two table kept at
 * most half full; the hash is FNV-1a followed by a 64-bit finaliser, so
 * keys that differ only in their last digits (n00001, n00002, ...) spread
 * over the table instead of clustering.  Keys are borrowed: the caller
 * keeps every key alive and unchanged while it is in the map.  No removal:
 * an index over a list that shrinks is cleared and rebuilt.
 */
#ifndef MDC_HASH_H
#define MDC_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How keys compare: exactly (ids), by Slurm's key rule (mdc_key_eq:
 * case and underscores ignored), or as strcasecmp does. */
enum mdc_hash_mode { MDC_HASH_EXACT, MDC_HASH_KEY, MDC_HASH_CASE /* case ignored only */ };

/* 16 bytes: an index over 10^5 slurm.conf records stays small */
struct mdc_hash_ent {
	const char *key;	/* NULL: empty slot */
	uint32_t h;		/* the low half of mdc_hash_str */
	uint32_t val;
};

struct mdc_hash {
	struct mdc_hash_ent *e;
	size_t cap;		/* 0 or a power of two */
	size_t n;
	enum mdc_hash_mode mode;
};

#define MDC_HASH_INIT(mode) { NULL, 0, 0, (mode) }

/* The hash of KEY under MODE (exposed for tests). */
uint64_t mdc_hash_str(const char *key, enum mdc_hash_mode mode);

/* Map KEY (borrowed) to VAL (below 2^32: indexes).  A key already present
 * keeps its first value unless REPLACE.  Returns 0, MDC_ERR_INVAL for a
 * VAL too big, or MDC_ERR_NOMEM (the map is unchanged). */
int mdc_hash_put(struct mdc_hash *m, const char *key, size_t val, bool replace);

/* mdc_hash_put without REPLACE, saying in *HAVE the value KEY now has
 * (VAL, or the first value when KEY was there): one lookup, not two. */
int mdc_hash_insert(struct mdc_hash *m, const char *key, size_t val, size_t *have);

/* Room for N keys without growing again (0 or MDC_ERR_NOMEM). */
int mdc_hash_reserve(struct mdc_hash *m, size_t n);

/* True and *VAL set when KEY is present (VAL may be NULL). */
bool mdc_hash_get(const struct mdc_hash *m, const char *key, size_t *val);

/* Forget every key, keep the table for reuse. */
void mdc_hash_clear(struct mdc_hash *m);

/* Free the table (the keys are the caller's); M can be reused. */
void mdc_hash_free(struct mdc_hash *m);

#endif
