/* http_fuzz.c - libFuzzer target for mdc_wire_parse, the parser of the
 * answers our own http:// transport reads.  The input is MAXBYTE CUTBYTE
 * ANSWER: the body limit and a place to cut the answer.  The answer is
 * parsed whole with the connection closed and open, and cut open; each
 * copy is exactly as long as its bytes (no NUL after), so a read past the
 * end is caught.  Properties: a complete answer is NUL-terminated and
 * within the limit; an answer complete while open is the same answer when
 * closed; one complete at the cut stays the same with the bytes after it.
 * (owner: client) */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_http_wire.h"

static int parse(const unsigned char *d, size_t n, bool eof, size_t max, struct mdc_http_resp *r)
{
	char *copy = malloc(n ? n : 1);
	struct mdc_ctx ctx;
	int rc;

	memcpy(copy, d, n);
	memset(r, 0, sizeof(*r));
	mdc_ctx_clear(&ctx);
	rc = mdc_wire_parse(copy, n, eof, max, r, &ctx);
	free(copy);
	if (!rc) {
		assert(r->body && r->body[r->len] == '\0' && r->len <= max);
		assert(r->status >= 0 && r->status <= 999);
	} else {
		assert(!r->body && (rc == MDC_WIRE_MORE || ctx.msg[0]));
	}
	return rc;
}

static void same(const struct mdc_http_resp *a, const struct mdc_http_resp *b)
{
	assert(a->status == b->status && a->len == b->len && !memcmp(a->body, b->body, a->len));
	assert(a->retry_after_s == b->retry_after_s);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct mdc_http_resp closed, open, cut;
	size_t max, at;
	int rc_closed, rc_open, rc_cut;

	if (size < 2)
		return 0;
	max = (size_t) data[0] * 8;
	at = data[1] < size - 2 ? data[1] : size - 2;
	data += 2, size -= 2;
	rc_closed = parse(data, size, true, max, &closed);
	rc_open = parse(data, size, false, max, &open);
	rc_cut = parse(data, at, false, max, &cut);
	assert(rc_closed != MDC_WIRE_MORE);
	if (!rc_open) {
		assert(!rc_closed);
		same(&open, &closed);
	}
	if (!rc_cut) {
		assert(!rc_open);
		same(&cut, &open);
	}
	free(closed.body);
	free(open.body);
	free(cut.body);
	return 0;
}
