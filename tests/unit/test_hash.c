/* test_hash.c - the string-keyed index (lib/mdc_hash): lookups, Slurm's
 * key rule, collisions, growth, and a spread that does not cluster on
 * numbered names. */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "mdc_hash.h"

static void test_put_get(void **state)
{
	struct mdc_hash h = MDC_HASH_INIT(MDC_HASH_EXACT);
	size_t v = 0;

	(void) state;
	assert_false(mdc_hash_get(&h, "a", &v));	/* empty map, no table yet */
	assert_false(mdc_hash_get(&h, NULL, &v));
	assert_int_equal(mdc_hash_put(&h, "a", 1, false), 0);
	assert_int_equal(mdc_hash_put(&h, "b", 2, false), 0);
	assert_true(mdc_hash_get(&h, "a", &v));
	assert_int_equal(v, 1);
	assert_true(mdc_hash_get(&h, "b", NULL));
	assert_false(mdc_hash_get(&h, "A", NULL));	/* exact: case counts */
	assert_false(mdc_hash_get(&h, "", NULL));
	/* the first value stays unless replaced */
	assert_int_equal(mdc_hash_put(&h, "a", 9, false), 0);
	assert_true(mdc_hash_get(&h, "a", &v));
	assert_int_equal(v, 1);
	assert_int_equal(mdc_hash_put(&h, "a", 9, true), 0);
	assert_true(mdc_hash_get(&h, "a", &v));
	assert_int_equal(v, 9);
	assert_int_equal(h.n, 2);
	mdc_hash_clear(&h);
	assert_int_equal(h.n, 0);
	assert_false(mdc_hash_get(&h, "a", NULL));
	assert_int_equal(mdc_hash_put(&h, "c", 3, false), 0);
	assert_true(mdc_hash_get(&h, "c", &v));
	assert_int_equal(v, 3);
	mdc_hash_free(&h);
	assert_false(mdc_hash_get(&h, "c", NULL));
}

/* Slurm's key rule: case and underscores ignored, in full. */
static void test_key_mode(void **state)
{
	struct mdc_hash h = MDC_HASH_INIT(MDC_HASH_KEY);
	size_t v = 0;

	(void) state;
	assert_int_equal(mdc_hash_put(&h, "MaxTime", 7, false), 0);
	assert_true(mdc_hash_get(&h, "maxtime", &v));
	assert_int_equal(v, 7);
	assert_true(mdc_hash_get(&h, "MAX_TIME", NULL));
	assert_true(mdc_hash_get(&h, "_max__time_", NULL));
	assert_false(mdc_hash_get(&h, "MaxTim", NULL));
	assert_false(mdc_hash_get(&h, "MaxTimes", NULL));
	assert_int_equal(mdc_hash_str("Max_Time", MDC_HASH_KEY), mdc_hash_str("maxtime", MDC_HASH_KEY));
	assert_int_not_equal(mdc_hash_str("Max_Time", MDC_HASH_EXACT),
			     mdc_hash_str("maxtime", MDC_HASH_EXACT));
	mdc_hash_free(&h);
}

/* Keys that land on the same slot of the first table (16 slots) are all
 * found, and stay found across growth. */
static void test_collisions(void **state)
{
	struct mdc_hash h = MDC_HASH_INIT(MDC_HASH_EXACT);
	char keys[6][16];
	size_t nk = 0, v;
	uint64_t home = mdc_hash_str("k0", MDC_HASH_EXACT) & 15;

	(void) state;
	for (int i = 0; i < 100000 && nk < 6; i++) {
		char k[16];

		snprintf(k, sizeof(k), "k%d", i);
		if ((mdc_hash_str(k, MDC_HASH_EXACT) & 15) == home)
			memcpy(keys[nk++], k, sizeof(k));
	}
	assert_int_equal(nk, 6);
	for (size_t i = 0; i < nk; i++) {
		assert_int_equal(mdc_hash_put(&h, keys[i], i, false), 0);
		for (size_t j = 0; j <= i; j++) {
			assert_true(mdc_hash_get(&h, keys[j], &v));
			assert_int_equal(v, j);
		}
	}
	assert_false(mdc_hash_get(&h, "k-absent", NULL));
	mdc_hash_free(&h);
}

/* n00000..n99999: every key found after growth, the table at most half
 * full, and the keys spread: no slot run much longer than chance gives,
 * and the low bits (the slot) evenly used. */
static void test_growth_spread(void **state)
{
	enum { N = 100000, BUCKETS = 1024 };
	struct mdc_hash h = MDC_HASH_INIT(MDC_HASH_EXACT);
	char (*keys)[8] = malloc(N * sizeof(*keys));
	size_t *count = calloc(BUCKETS, sizeof(*count)), v, maxc = 0, disp = 0, maxdisp = 0;

	(void) state;
	assert_non_null(keys);
	assert_non_null(count);
	for (size_t i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "n%05zu", i);
		assert_int_equal(mdc_hash_put(&h, keys[i], i, false), 0);
	}
	assert_int_equal(h.n, N);
	assert_true(h.cap >= 2 * (size_t) N);
	for (size_t i = 0; i < N; i++) {
		assert_true(mdc_hash_get(&h, keys[i], &v));
		assert_int_equal(v, i);
		count[mdc_hash_str(keys[i], MDC_HASH_EXACT) & (BUCKETS - 1)]++;
	}
	for (size_t i = 0; i < h.cap; i++) {
		size_t d;

		if (!h.e[i].key)
			continue;
		d = (i - (size_t) h.e[i].h) & (h.cap - 1);
		disp += d;
		if (d > maxdisp)
			maxdisp = d;
	}
	for (size_t b = 0; b < BUCKETS; b++)
		if (count[b] > maxc)
			maxc = count[b];
	/* linear probing at load <= 1/2 averages 0.5 extra probes on a good
	 * hash; a clustering one (djb2 on these keys) is far above */
	assert_true(disp < (size_t) N);
	assert_true(maxdisp < 100);
	/* about 98 keys a bucket: 3x that would be clustering */
	assert_true(maxc < 3 * N / BUCKETS);
	free(keys);
	free(count);
	mdc_hash_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get),
		cmocka_unit_test(test_key_mode),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_growth_spread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
