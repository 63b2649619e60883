/* mdc_verify.c - see mdc_verify.h.  The running slurmctld is read through
 * the real scontrol (mdc_live.h); only what the plan changed is checked. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mdc_live.h"
#include "mdc_log.h"
#include "mdc_proc.h"
#include "mdc_time.h"
#include "mdc_value.h"
#include "mdc_verify.h"

enum vc_kind { VC_CONFIG, VC_PART_KEY, VC_PART_EXISTS, VC_PART_GONE };

/* One thing slurmctld should show; strings borrowed from the plan. */
struct vcheck {
	enum vc_kind kind;
	const char *part;	/* partition name */
	const char *key;
	const char *want;
	const char *got;	/* last value seen (borrowed from the last read) */
	bool listed;		/* the key was in scontrol's output at all */
	bool ok;
};

static bool is_restart_key(const struct mdc_plan *plan, const char *key)
{
	for (size_t i = 0; i < plan->restart_keys.n; i++)
		if (mdc_key_eq(plan->restart_keys.v[i], key))
			return true;
	return false;
}

/* Turn the plan's changes into checks; what cannot be seen goes to
 * V->skipped. */
static int collect(const struct mdc_plan *plan, const struct mdc_verify_opts *o,
		   struct vcheck **out, size_t *nout, struct mdc_verify *v)
{
	struct vcheck *vc = calloc(plan->nchanges + 1, sizeof(*vc));
	size_t n = 0;

	if (!vc)
		return MDC_ERR_NOMEM;
	for (size_t i = 0; i < plan->nchanges; i++) {
		const struct mdc_change *c = &plan->changes[i];
		struct vcheck *k = &vc[n];

		if (!strcmp(c->scope, "config") && c->key) {
			if (o->partitions) {
				if (mdc_strv_pushf(&v->skipped, "config %s: not shown through the "
						   "Slurm REST API (--remote)", c->key))
					goto nomem;
				continue;
			}
			if (is_restart_key(plan, c->key)) {
				if (mdc_strv_pushf(&v->skipped, "config %s: needs a slurmctld restart "
						   "to take effect", c->key))
					goto nomem;
				continue;
			}
			if (!c->new_value) {
				if (mdc_strv_pushf(&v->skipped, "config %s: removed (slurmctld shows "
						   "its default)", c->key))
					goto nomem;
				continue;
			}
			*k = (struct vcheck) { VC_CONFIG, NULL, c->key, c->new_value, NULL, false, false };
			n++;
		} else if (mdc_startswith(c->scope, "partition ")) {
			const char *part = c->scope + strlen("partition ");

			if (!c->key)
				*k = (struct vcheck) { c->new_value ? VC_PART_EXISTS : VC_PART_GONE,
						       part, NULL, NULL, NULL, false, false };
			else if (strcmp(c->key, "node_pool_ids") && c->new_value)
				*k = (struct vcheck) { VC_PART_KEY, part, c->key, c->new_value,
						       NULL, false, false };
			else
				continue;
			n++;
		}
	}
	*out = vc;
	*nout = n;
	return 0;
nomem:
	free(vc);
	return MDC_ERR_NOMEM;
}

/* One look at slurmctld.  Returns 0, or the error of the first scontrol
 * that failed. */
static int look(const struct mdc_verify_opts *o, struct vcheck *vc, size_t n,
		struct mdc_kvs *cfg, struct mdc_recs *parts, bool *all_ok, struct mdc_ctx *ctx)
{
	bool need_cfg = false, need_parts = false;
	int rc;

	for (size_t i = 0; i < n; i++) {
		need_cfg |= vc[i].kind == VC_CONFIG;
		need_parts |= vc[i].kind != VC_CONFIG;
	}
	mdc_kvs_free(cfg);
	mdc_recs_free(parts);
	for (size_t i = 0; i < n; i++) {
		vc[i].got = NULL;	/* pointed into what was just freed */
		vc[i].listed = vc[i].ok = false;
	}
	if (need_cfg && (rc = mdc_live_config(cfg, ctx)))
		return rc;
	if (need_parts && (rc = o->partitions ? o->partitions(parts, o->partitions_arg, ctx)
						: mdc_live_partitions(parts, ctx)))
		return rc;
	*all_ok = true;
	for (size_t i = 0; i < n; i++) {
		struct vcheck *k = &vc[i];
		const struct mdc_kvs *rec = k->part ? mdc_recs_find(parts, k->part) : NULL;

		switch (k->kind) {
		case VC_CONFIG:
			k->got = mdc_kvs_get(cfg, k->key);
			break;
		case VC_PART_KEY:
			k->got = rec ? mdc_kvs_get(rec, k->key) : NULL;
			break;
		case VC_PART_EXISTS:
		case VC_PART_GONE:
			k->got = rec ? "present" : "absent";
			break;
		}
		/* through the REST API a key may be unlisted (not shown); a
		 * partition that is not there at all is a failure all the same */
		k->listed = k->got != NULL || (o->partitions && k->kind == VC_PART_KEY && !rec);
		if (k->kind == VC_PART_EXISTS)
			k->ok = rec != NULL;
		else if (k->kind == VC_PART_GONE)
			k->ok = rec == NULL;
		else
			k->ok = k->got && mdc_value_equal_shown(k->key, k->want, k->got);
		/* a config key scontrol does not list cannot be checked: not a failure */
		if (!k->ok && !((k->kind == VC_CONFIG || (o->partitions && k->kind == VC_PART_KEY)) &&
				!k->listed))
			*all_ok = false;
	}
	return 0;
}

static int report(const struct mdc_verify_opts *o, struct vcheck *vc, size_t n,
		  struct mdc_verify *v)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++) {
		const struct vcheck *k = &vc[i];

		switch (k->kind) {
		case VC_CONFIG:
			if (k->ok)
				rc = mdc_strv_pushf(&v->ok, "config %s=%s", k->key, k->got);
			else if (!k->listed)
				rc = mdc_strv_pushf(&v->skipped, "config %s: not listed by scontrol show config",
						    k->key);
			else
				rc = mdc_strv_pushf(&v->missing, "config %s: slurmctld shows '%s', expected '%s'",
						    k->key, k->got, k->want);
			break;
		case VC_PART_KEY:
			if (k->ok)
				rc = mdc_strv_pushf(&v->ok, "partition %s %s=%s", k->part, k->key, k->got);
			else if (o->partitions && !k->listed)
				rc = mdc_strv_pushf(&v->skipped, "partition %s %s: not shown through the "
						    "Slurm REST API (--remote)", k->part, k->key);
			else
				rc = mdc_strv_pushf(&v->missing, "partition %s %s: slurmctld shows '%s', expected '%s'",
						    k->part, k->key, k->got ? k->got : "(nothing)", k->want);
			break;
		case VC_PART_EXISTS:
		case VC_PART_GONE:
			rc = mdc_strv_pushf(k->ok ? &v->ok : &v->missing, "partition %s: %s%s", k->part,
					    k->kind == VC_PART_EXISTS ? "created" : "removed",
					    k->ok ? "" : k->kind == VC_PART_EXISTS ? ", but slurmctld does not show it"
										   : ", but slurmctld still shows it");
			break;
		}
	}
	return rc ? MDC_ERR_NOMEM : 0;
}

int mdc_verify_plan(const struct mdc_plan *plan, const struct mdc_verify_opts *o,
		    struct mdc_verify *v, struct mdc_ctx *ctx)
{
	struct mdc_verify_opts dflt = { 0, false, 0, NULL, NULL, NULL };
	struct mdc_kvs cfg = MDC_KVS_INIT;
	struct mdc_recs parts = MDC_RECS_INIT;
	struct vcheck *vc = NULL;
	struct mdc_ctx lctx;
	double timeout, interval, deadline;
	bool all_ok = false;
	size_t n = 0;
	int rc;

	memset(v, 0, sizeof(*v));
	if (!o)
		o = &dflt;
	timeout = o->timeout_s > 0 ? o->timeout_s : 60;
	interval = o->interval_s > 0 ? o->interval_s : 2;
	if ((rc = collect(plan, o, &vc, &n, v)))
		goto out;
	v->checks = n;
	if (!n)
		goto out;
	deadline = mdc_mono() + timeout;
	for (bool first = true;; first = false) {
		mdc_ctx_clear(&lctx);
		rc = look(o, vc, n, &cfg, &parts, &all_ok, &lctx);
		if (rc == MDC_ERR_NOMEM)
			goto out;
		/* scontrol refusing the regenerated file is the C13 failure
		 * itself, whatever the probe said */
		if (rc && first && !o->expect_live && !strstr(lctx.msg, "configuration file")) {
			/* no local slurmctld (a login node without Slurm, a test
			 * without a lab): nothing to verify, not an error */
			rc = 0;
			goto out;
		}
		v->live = v->live || !rc;
		/* a file scontrol cannot parse stays broken until the next
		 * update: no point waiting for the sync */
		if ((!rc && all_ok) || mdc_mono() >= deadline ||
		    (rc && strstr(lctx.msg, "configuration file")))
			break;
		if (rc)
			mdc_debug("verify: %s (retrying)", lctx.msg);
		if (!mdc_sleep(interval, o->interrupted)) {
			rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "interrupted while verifying: check "
				      "'scontrol show config' and 'scontrol show partition' yourself");
			goto out;
		}
	}
	if (rc && mdc_strv_pushf(&v->missing, "%s: %s", strstr(lctx.msg, "configuration file") ?
				 "scontrol rejects the regenerated slurm.conf" :
				 "slurmctld does not answer any more", lctx.msg)) {
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	/* after a failed look the per-value results mean nothing */
	if (!rc && (rc = report(o, vc, n, v)))
		goto out;
	rc = 0;
	if (v->missing.n)
		rc = mdc_fail(ctx, MDC_ERR_VERIFY, "applied, but slurmctld does not show it (checked for "
			      "%.0f s): %s (the service validates each parameter alone, not their combination: check the "
			      "slurmctld log and 'scontrol show config', then fix or revert the change)",
			      mdc_mono() - (deadline - timeout), v->missing.v[0]);
out:
	if (rc == MDC_ERR_NOMEM)
		mdc_fail(ctx, rc, "out of memory while verifying");
	mdc_kvs_free(&cfg);
	mdc_recs_free(&parts);
	free(vc);
	return rc;
}

int mdc_verify_probe(bool *live, struct mdc_ctx *ctx)
{
	char *const args[] = { (char *) "ping", NULL };
	struct mdc_buf out = MDC_BUF_INIT, err = MDC_BUF_INIT;
	struct mdc_ctx lctx;
	int status = 0;

	(void) ctx;
	mdc_ctx_clear(&lctx);
	*live = !mdc_live_run(args, &out, &err, &status, &lctx) && status == 0 &&
		strstr(mdc_buf_str(&out), " is UP");
	mdc_buf_free(&out);
	mdc_buf_free(&err);
	return 0;
}

int mdc_verify_format(const struct mdc_verify *v, struct mdc_buf *out)
{
	int rc = 0;

	if (!v->checks && !v->skipped.n)
		return mdc_buf_adds(out, "verify: no Slurm setting changed: nothing to check\n");
	if (v->checks && !v->live && !v->ok.n && !v->missing.n)
		rc = mdc_buf_adds(out, "verify: no local slurmctld answered: not verified\n");
	for (size_t i = 0; !rc && i < v->ok.n; i++)
		rc = mdc_buf_addf(out, "verify: ok: %s\n", v->ok.v[i]);
	for (size_t i = 0; !rc && i < v->missing.n; i++)
		rc = mdc_buf_addf(out, "verify: NOT APPLIED: %s\n", v->missing.v[i]);
	for (size_t i = 0; !rc && i < v->skipped.n; i++)
		rc = mdc_buf_addf(out, "verify: not checked: %s\n", v->skipped.v[i]);
	return rc;
}

static json_object *strv_json(const struct mdc_strv *sv)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < sv->n; i++)
		json_object_array_add(a, json_object_new_string(sv->v[i]));
	return a;
}

json_object *mdc_verify_to_json(const struct mdc_verify *v)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "live", json_object_new_boolean(v->live));
	json_object_object_add(o, "checks", json_object_new_int64((int64_t) v->checks));
	json_object_object_add(o, "ok", strv_json(&v->ok));
	json_object_object_add(o, "missing", strv_json(&v->missing));
	json_object_object_add(o, "skipped", strv_json(&v->skipped));
	return o;
}

void mdc_verify_free(struct mdc_verify *v)
{
	if (!v)
		return;
	mdc_strv_free(&v->ok);
	mdc_strv_free(&v->missing);
	mdc_strv_free(&v->skipped);
}
