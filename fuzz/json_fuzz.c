/* json_fuzz.c - libFuzzer target for mdc_json_parse_reusing: the input is
 * CURRENT 0xff BODY.  CURRENT, when it parses, keeps the text of its list
 * elements (mdc_json_keep_text), as the emulator's stored clusters do; then
 * BODY parsed against it must give what the plain parse gives: the same
 * verdict and message and the same text.  (owner: JSON) */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "mdc_json.h"

static const char *const lists[] = { "node_pools", "orchestrator_spec.slurm_spec.partitions", NULL };

static void keep_lists(json_object *cur)
{
	for (size_t l = 0; lists[l]; l++) {
		json_object *arr = mdc_json_get_path(cur, lists[l]);

		for (size_t i = 0; json_object_is_type(arr, json_type_array) && i < json_object_array_length(arr); i++)
			mdc_json_keep_text(json_object_array_get_idx(arr, i));
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *sep = memchr(data, 0xff, size);
	const char *body = sep ? (const char *) sep + 1 : (const char *) data;
	size_t blen = sep ? size - (size_t) (sep + 1 - data) : size;
	json_object *cur = NULL, *plain = NULL, *got = NULL;
	struct mdc_ctx c1, c2;
	int r1, r2;

	mdc_ctx_clear(&c1);
	if (sep && !mdc_json_parse((const char *) data, (size_t) (sep - data), &cur, &c1))
		keep_lists(cur);
	mdc_ctx_clear(&c1);
	mdc_ctx_clear(&c2);
	r1 = mdc_json_parse(body, blen, &plain, &c1);
	r2 = mdc_json_parse_reusing(body, blen, cur, lists, &got, &c2);
	if (r1 != r2 || strcmp(c1.msg, c2.msg))
		abort();
	/* the same text (NaN is not equal to itself, so not mdc_json_equal) */
	if (!r1 && strcmp(mdc_json_str(plain, false), mdc_json_str(got, false)))
		abort();
	json_object_put(cur);
	json_object_put(plain);
	json_object_put(got);
	return 0;
}
