/* sc_fuzz.c - libFuzzer target for the slurm.conf parser.
 * (owner: slurm.conf engine)
 *
 * The first byte picks the parse flags (lenient, template); includes are
 * always refused so that fuzz input never reads the host's files.  Beyond
 * "no crash, no leak, no UB", it checks two properties: an accepted file
 * translated against itself gives no change, and every diagnostic formats.
 * Build: `make fuzz` (clang with -fsanitize=fuzzer), run:
 *   fuzz/sc_fuzz -max_total_time=60 CORPUS_DIR tests/sc/fuzz-seeds
 */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_intent.h"
#include "sc_conf.h"
#include "sc_dump.h"
#include "sc_translate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdc_ctx ctx;
	struct sc_conf *c;
	json_object *j;
	size_t i;
	int rc;

	if (size < 1)
		return 0;
	c = sc_conf_new();
	if (!c)
		return 0;
	c->flags = SC_PARSE_NO_INCLUDE | (data[0] & (SC_PARSE_LENIENT | SC_PARSE_TEMPLATE));
	mdc_ctx_clear(&ctx);
	rc = sc_conf_load_string(c, (const char *) data + 1, size - 1, "fuzz.conf", &ctx);
	if (rc && !ctx.msg[0])
		abort();	/* an error always says why */
	for (i = 0; i < c->ndiags; i++) {
		char *m = sc_diag_format(&c->diags[i]);

		if (!m || strncmp(m, "fuzz.conf:", 10))
			abort();
		free(m);
	}
	j = sc_conf_to_json(c);
	json_object_put(j);
	if (!rc) {
		struct mdc_intent in = MDC_INTENT_INIT;

		mdc_ctx_clear(&ctx);
		if (sc_translate(c, c, NULL, &in, &ctx) == 0 && (in.n || in.refusals.n))
			abort();	/* a file against itself is no change */
		mdc_intent_free(&in);
	}
	sc_conf_free(c);
	return 0;
}
