/* mdc_hash.c - the string-keyed index (see mdc_hash.h). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_err.h"
#include "mdc_hash.h"
#include "mdc_str.h"

uint64_t mdc_hash_str(const char *key, enum mdc_hash_mode mode)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *) key; *p; p++) {
		unsigned char c = *p;

		if (mode != MDC_HASH_EXACT) {
			if (c == '_' && mode == MDC_HASH_KEY)
				continue;
			/* ASCII folding, as tolower() in the C locale, without
			 * a call per byte (every slurm.conf key is hashed) */
			if (c >= 'A' && c <= 'Z')
				c = (unsigned char) (c + 'a' - 'A');
		}
		h = (h ^ c) * 0x100000001b3ULL;
	}
	/* FNV-1a alone leaves the low bits of keys that differ in one late
	 * character close together; the table index is the low bits */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static bool key_same(const struct mdc_hash *m, const char *a, const char *b)
{
	switch (m->mode) {
	case MDC_HASH_KEY: return mdc_key_eq(a, b);
	case MDC_HASH_CASE: return !strcasecmp(a, b);
	default: return !strcmp(a, b);
	}
}

/* The slot holding KEY, or the empty slot where it would go. */
static struct mdc_hash_ent *slot(const struct mdc_hash *m, const char *key, uint32_t h)
{
	size_t mask = m->cap - 1;

	for (size_t i = (size_t) h & mask;; i = (i + 1) & mask) {
		struct mdc_hash_ent *e = &m->e[i];

		if (!e->key || (e->h == h && key_same(m, e->key, key)))
			return e;
	}
}

/* Rehash into CAP slots (a power of two). */
static int resize(struct mdc_hash *m, size_t cap)
{
	struct mdc_hash_ent *old = m->e, *e;
	size_t oldcap = m->cap;

	if (cap < oldcap || cap > SIZE_MAX / sizeof(*e) || !(e = calloc(cap, sizeof(*e))))
		return MDC_ERR_NOMEM;
	m->e = e;
	m->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key)
			*slot(m, old[i].key, old[i].h) = old[i];
	free(old);
	return 0;
}

int mdc_hash_reserve(struct mdc_hash *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 16;

	/* at most half full: probes stay short */
	while (cap / 2 < n) {
		if (cap > SIZE_MAX / 4)
			return MDC_ERR_NOMEM;
		cap *= 2;
	}
	return cap == m->cap ? 0 : resize(m, cap);
}

/* Put KEY: REPLACE as mdc_hash_put, *HAVE (if set) as mdc_hash_insert. */
static int put(struct mdc_hash *m, const char *key, size_t val, bool replace, size_t *have)
{
	uint32_t h = (uint32_t) mdc_hash_str(key, m->mode);
	struct mdc_hash_ent *e;

	if (val > UINT32_MAX)
		return MDC_ERR_INVAL;
	if ((m->n + 1) * 2 > m->cap && resize(m, m->cap ? m->cap * 2 : 16))
		return MDC_ERR_NOMEM;
	e = slot(m, key, h);
	if (e->key) {
		if (replace)
			e->val = (uint32_t) val;
		if (have)
			*have = e->val;
		return 0;
	}
	e->key = key;
	e->h = h;
	e->val = (uint32_t) val;
	m->n++;
	if (have)
		*have = val;
	return 0;
}

int mdc_hash_put(struct mdc_hash *m, const char *key, size_t val, bool replace)
{
	return put(m, key, val, replace, NULL);
}

int mdc_hash_insert(struct mdc_hash *m, const char *key, size_t val, size_t *have)
{
	return put(m, key, val, false, have);
}

bool mdc_hash_get(const struct mdc_hash *m, const char *key, size_t *val)
{
	const struct mdc_hash_ent *e;

	if (!m->n || !key)
		return false;
	e = slot(m, key, (uint32_t) mdc_hash_str(key, m->mode));
	if (!e->key)
		return false;
	if (val)
		*val = e->val;
	return true;
}

void mdc_hash_clear(struct mdc_hash *m)
{
	if (m->e)
		memset(m->e, 0, m->cap * sizeof(*m->e));
	m->n = 0;
}

void mdc_hash_free(struct mdc_hash *m)
{
	free(m->e);
	m->e = NULL;
	m->cap = m->n = 0;
}
