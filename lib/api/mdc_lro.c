/* mdc_lro.c - waiting for a long-running operation: polls that start
 * fast and back off (every 0.1 s for 2 s, then x1.5, cap 15 s; a
 * server's Retry-After wins)
 * until done, an overall timeout, a progress line on a terminal, and a
 * clean stop on Ctrl-C that says how to resume.  (owner: client) */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "mdc_client_int.h"
#include "mdc_json.h"
#include "mdc_lro.h"
#include "mdc_proc.h"

/* most updates finish within a second or two: a look every 0.1 s that
 * long reports them within 0.1 s of their end (x1.5 from the start is up
 * to a third of the elapsed time late), and x1.5 after that keeps a long
 * one to a few dozen polls */
#define MDC_LRO_FIRST_S 0.1
#define MDC_LRO_FLAT_POLLS 20
#define MDC_LRO_FACTOR 1.5
#define MDC_LRO_CAP_S 15.0
/* a server asking for longer than this is honoured only this far */
#define MDC_LRO_RETRY_AFTER_MAX_S 60.0
#define MDC_LRO_TIMEOUT_S 3600.0

double mdc_lro_delay(unsigned n)
{
	double d = n < MDC_LRO_FLAT_POLLS ? MDC_LRO_FIRST_S :
		MDC_LRO_FIRST_S * pow(MDC_LRO_FACTOR, n - MDC_LRO_FLAT_POLLS + 1);

	return d > MDC_LRO_CAP_S ? MDC_LRO_CAP_S : d;
}

/* progressMessage sits in the metadata, at the top or under
 * genericMetadata depending on the operation type. */
static const char *mdc_lro_progress_msg(const json_object *op)
{
	json_object *md = mdc_json_get_obj(op, "metadata");
	const char *m;

	if (!md)
		return NULL;
	if ((m = mdc_json_get_str(md, "progress_message", NULL)) && *m)
		return m;
	m = mdc_json_get_str(mdc_json_get_obj(md, "generic_metadata"), "progress_message", NULL);
	return m && *m ? m : NULL;
}

/* The default progress line, for callers that set no progress_fn:
 * \r and erase-line keep it one line that updates in place. */
static void mdc_lro_show(const struct mdc_lro_opts *o, double elapsed, const json_object *op,
			 bool end)
{
	const char *m = op ? mdc_lro_progress_msg(op) : NULL;

	if (o->progress_fn) {
		o->progress_fn(elapsed, m, end, o->progress_arg);
		return;
	}
	if (op)
		fprintf(stderr, "\r\033[K[%3.0fs] %s", elapsed, m ? m : "waiting for the operation");
	if (end)
		fputc('\n', stderr);
	fflush(stderr);
}

/* An operation that ended in error: its google.rpc.Status as one line. */
static int mdc_lro_failed(const char *name, const json_object *err, struct mdc_ctx *ctx)
{
	const char *msg = mdc_json_get_str(err, "message", "(no message)");
	int64_t code = mdc_json_get_int(err, "code", 0);

	mdc_fail(ctx, MDC_ERR_OPFAILED, "operation '%s' failed: code %lld: %s", name,
		 (long long) code, msg);
	if (ctx)
		ctx->http_code = 0;
	return MDC_ERR_OPFAILED;
}

int mdc_lro_wait(struct mdc_client *c, const char *op_name, const struct mdc_lro_opts *o,
		 json_object **done, struct mdc_ctx *ctx)
{
	double timeout = o && o->timeout_s > 0 ? o->timeout_s : MDC_LRO_TIMEOUT_S;
	volatile sig_atomic_t *intr = o ? o->interrupted : NULL;
	bool progress = o && o->progress;
	double start = mdc_mono(), delay;
	bool shown = false;
	json_object *op = NULL, *err;
	struct mdc_ctx tmp;
	int rc = 0;

	*done = NULL;
	for (unsigned n = 0;; n++) {
		json_object_put(op);
		op = NULL;
		mdc_ctx_clear(&tmp);
		if ((rc = mdc_operation_get(c, op_name, &op, &tmp))) {
			if (rc == MDC_ERR_INTERRUPTED)
				goto interrupted;	/* Ctrl-C during the poll itself */
			mdc_fail(ctx, rc, "%s", tmp.msg);
			if (ctx) {
				ctx->http_code = tmp.http_code;
				memcpy(ctx->status, tmp.status, sizeof(ctx->status));
			}
			goto out;
		}
		if (mdc_json_get_bool(op, "done", false))
			break;
		if (progress) {
			mdc_lro_show(o, mdc_mono() - start, op, false);
			shown = true;
		}
		delay = mdc_lro_delay(n);
		/* the server knows better when to look again */
		if (c->retry_after_s > delay)
			delay = c->retry_after_s < MDC_LRO_RETRY_AFTER_MAX_S ? c->retry_after_s :
				MDC_LRO_RETRY_AFTER_MAX_S;
		if (mdc_mono() - start + delay > timeout) {
			/* one last look exactly at the deadline is not worth it: say so now */
			rc = mdc_fail(ctx, MDC_ERR_TIMEOUT,
				      "operation '%s' still running after %.0f s; it continues: "
				      "wait with 'mdcctl operations wait %s'", op_name, timeout, op_name);
			goto out;
		}
		if (!mdc_sleep(delay, intr))
			goto interrupted;
	}
	if (shown)
		mdc_lro_show(o, mdc_mono() - start, op, true);
	if ((err = mdc_json_get_obj(op, "error")) && mdc_json_get_int(err, "code", 0) != 0) {
		rc = mdc_lro_failed(op_name, err, ctx);
		*done = op;	/* the caller may still want to show it */
		op = NULL;
		goto out;
	}
	*done = op;
	op = NULL;
	goto out;
interrupted:
	rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "stopped waiting; operation '%s' continues: "
		      "resume with 'mdcctl operations wait %s'", op_name, op_name);
out:
	if (shown && rc && rc != MDC_ERR_OPFAILED)
		mdc_lro_show(o, mdc_mono() - start, NULL, true);	/* end the line before the error */
	json_object_put(op);
	return rc;
}
