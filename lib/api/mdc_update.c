/* mdc_update.c - the safe write (C14).  The API has no etag, so every
 * write is: lock, fresh GET, wait out UPDATING, plan the user's intent on
 * that state, check just before the PATCH that nobody changed it meanwhile,
 * PATCH with the plan's mask and mode, wait, then read the cluster back
 * and check the change is still there.  The lock serialises the writers
 * that share its directory; the two checks catch the others (another
 * login node with its own /run/lock), so an update is either kept or
 * reported lost, never lost in silence.  A PATCH whose answer was lost is
 * never resent: the cluster is read again and the message says what
 * happened.  (owner: client) */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "mdc_broker.h"
#include "mdc_buf.h"
#include "mdc_client.h"
#include "mdc_client_int.h"
#include "mdc_json.h"
#include "mdc_lock.h"
#include "mdc_log.h"
#include "mdc_lro.h"
#include "mdc_proc.h"
#include "mdc_str.h"
#include "mdc_slurmcheck.h"
#include "mdc_update.h"

/* a writer that keeps finding the cluster changed under it gives up */
#define MDC_UPDATE_REPLANS 5

/* States in which another operation runs on the cluster: a write waits
 * for them to end (the service refuses a PATCH meanwhile).  The API calls
 * a cluster being created PROVISIONING; CREATING is accepted as well. */
static const char *const mdc_update_busy[] = { "UPDATING", "PROVISIONING", "CREATING" };

static bool mdc_update_is_busy(const char *state)
{
	for (size_t i = 0; i < sizeof(mdc_update_busy) / sizeof(mdc_update_busy[0]); i++)
		if (!strcmp(state, mdc_update_busy[i]))
			return true;
	return false;
}

/* GET the cluster, waiting while an operation (create, update) runs on it. */
static int mdc_update_fresh(struct mdc_client *c, const char *name,
			    const struct mdc_update_opts *o, json_object **cluster,
			    struct mdc_ctx *ctx)
{
	double limit = o->updating_timeout_s > 0 ? o->updating_timeout_s :
		       o->lro.timeout_s > 0 ? o->lro.timeout_s : 3600;
	double start = mdc_mono();
	int rc;

	for (unsigned n = 0;; n++) {
		char state[32];

		if ((rc = mdc_cluster_get(c, name, cluster, ctx)))
			return rc;
		/* a copy: the messages below outlive the resource */
		snprintf(state, sizeof(state), "%s", mdc_cluster_state(*cluster, ""));
		if (!strcmp(state, "STOPPING")) {
			json_object_put(*cluster);
			*cluster = NULL;
			return mdc_fail(ctx, MDC_ERR_CONFLICT, "cluster '%s' is being deleted (STOPPING); "
					"nothing was sent", name);
		}
		if (!mdc_update_is_busy(state))
			return 0;
		json_object_put(*cluster);
		*cluster = NULL;
		if (o->no_wait)
			return mdc_fail(ctx, MDC_ERR_CONFLICT,
					"cluster '%s' is %s; try again later (or drop --no-wait to wait)",
					name, state);
		if (mdc_mono() - start > limit)
			return mdc_fail(ctx, MDC_ERR_TIMEOUT,
					"cluster '%s' still %s after %.0f s", name, state, limit);
		mdc_debug("cluster is %s: waiting", state);
		if (!mdc_sleep(mdc_lro_delay(n), o->lro.interrupted))
			return mdc_fail(ctx, MDC_ERR_INTERRUPTED,
					"interrupted while waiting for cluster '%s' (%s) to be ready; "
					"nothing was sent", name, state);
	}
}

/* P without its node_image (a new reference sharing P's members). */
static json_object *mdc_update_no_image(const json_object *p)
{
	json_object *c = json_object_new_object();

	json_object_object_foreach((json_object *) p, k, v)
		if (c && strcmp(k, "node_image") && strcmp(k, "nodeImage"))
			json_object_object_add(c, k, json_object_get(v));
	return c;
}

/* Node pools NOW (read back) and WANT (sent) alike, where a pool sent with
 * an empty node_image (a never-updated cluster reports none: C11) may come
 * back with the image the service gave it. */
static bool mdc_update_pools_same(const json_object *now, const json_object *want)
{
	size_t n;

	if (!json_object_is_type(now, json_type_array) || !json_object_is_type(want, json_type_array) ||
	    (n = json_object_array_length(now)) != json_object_array_length(want))
		return mdc_json_equal(now, want);
	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(now, i), *b = json_object_array_get_idx(want, i);
		json_object *ca, *cb;
		bool same;

		if (!json_object_is_type(b, json_type_object) || *mdc_json_get_str(b, "node_image", "")) {
			if (!mdc_json_equal(a, b))
				return false;
			continue;
		}
		ca = json_object_is_type(a, json_type_object) ? mdc_update_no_image(a) : json_object_get(a);
		cb = mdc_update_no_image(b);
		same = ca && cb && mdc_json_equal(ca, cb);
		json_object_put(ca);
		json_object_put(cb);
		if (!same)
			return false;
	}
	return true;
}

/* True when every masked path of A (read back) and B holds the same value;
 * B is what we SENT, or another read-back (then strictly: an image filled
 * in since is a change). */
static bool mdc_update_same(const json_object *a, const json_object *b, const struct mdc_strv *mask,
			    bool sent)
{
	for (size_t i = 0; i < mask->n; i++) {
		const json_object *va = mdc_json_get_path(a, mask->v[i]), *vb = mdc_json_get_path(b, mask->v[i]);

		if (sent && !strcmp(mask->v[i], "node_pools") ? !mdc_update_pools_same(va, vb) :
		    !mdc_json_equal(va, vb))
			return false;
	}
	return true;
}

/* The member of RAW (an object as the service answered it) that the plan
 * calls K: the same name, else the one whose snake_case spelling is K. */
static json_object *mdc_update_raw_member(json_object *raw, const char *k, const char **rk)
{
	json_object *v;

	if (json_object_object_get_ex(raw, k, &v)) {
		*rk = k;
		return v;
	}
	json_object_object_foreach(raw, name, val) {
		char snake[256];

		mdc_camel_to_snake(name, snake, sizeof(snake));
		if (!strcmp(snake, k)) {
			*rk = name;
			return val;
		}
	}
	*rk = NULL;
	return NULL;
}

/* RAW (as received, under the key KEY or none) in the plan's spelling:
 * through its key, so a map field keeps its keys as normalising does. */
static json_object *mdc_update_norm_as(json_object *raw, const char *key)
{
	json_object *w, *n = NULL, *v = NULL;

	if (!key)
		return mdc_json_normalize(raw, MDC_CASE_SNAKE);
	if (!(w = json_object_new_object()) || json_object_object_add(w, key, json_object_get(raw))) {
		json_object_put(w);
		return NULL;
	}
	if ((n = mdc_json_normalize(w, MDC_CASE_SNAKE))) {
		json_object_object_foreach(n, k, val) {
			(void) k;
			v = json_object_get(val);
		}
	}
	json_object_put(n);
	json_object_put(w);
	return v;
}

/* The element of the list RAW that SENT (element I of its list) stands
 * for: a node pool or partition by its id, anything else by position in a
 * list of the same length (N). */
static json_object *mdc_update_raw_elem(json_object *raw, json_object *sent, size_t i, size_t n)
{
	const char *id = mdc_json_get_str(sent, "id", NULL);

	if (id) {
		for (size_t j = 0; j < json_object_array_length(raw); j++) {
			json_object *e = json_object_array_get_idx(raw, j);

			if (mdc_streq(mdc_json_get_str(e, "id", NULL), id))
				return e;
		}
		return NULL;
	}
	return json_object_array_length(raw) == n ? json_object_array_get_idx(raw, i) : NULL;
}

/* The fields mdcctl models (DESIGN section 3: what a plan reads or edits),
 * by name at any depth: they go out in the plan's snake_case spelling, as
 * they always have.  Every other member of the resource is one mdcctl only
 * carries (reservationAffinity, provisioningModel, lustres, a field the
 * service adds tomorrow): it goes back as the service sent it. */
static const char *const mdc_update_modeled[] = {
	"node_pools", "id", "machine_spec", "machine_type", "scaling_spec", "min_node_count",
	"max_node_count", "zone", "enable_public_ips", "boot_disk", "boot_disk_type",
	"boot_disk_size_gb", "node_image", "orchestrator_spec", "slurm_spec", "partitions",
	"node_pool_ids", "config", "node_sets", "node_pool_id", "default_partition_id",
	"login_node_pool_id", "home_directory_storage", "prolog_bash_scripts",
	"epilog_bash_scripts", "labels", "display_name", "network", "subnetwork",
};

static bool mdc_update_is_modeled(const char *k)
{
	for (size_t i = 0; i < sizeof(mdc_update_modeled) / sizeof(mdc_update_modeled[0]); i++)
		if (!strcmp(k, mdc_update_modeled[i]))
			return true;
	return false;
}

/* *OUT: SENT (the plan's payload, snake_case) as it goes on the wire,
 * against RAW, the same part of the cluster as the service answered it
 * (NULL: none).  A member mdcctl does not model that the plan left as it
 * was goes back as received, under the service's name, with the service's
 * bytes: normalising renames the keys of a map mdcctl does not know is one
 * and rewrites numbers, so a full-replacement PATCH (a node pool scale
 * sends every pool) would change a field it never meant to touch (issue
 * 25.3).  Modeled members keep the plan's spelling; objects are walked
 * member by member, lists element by element. */
static int mdc_update_wire(json_object *sent, json_object *raw, json_object **out)
{
	*out = NULL;
	if (json_object_is_type(sent, json_type_object) && json_object_is_type(raw, json_type_object)) {
		if (!(*out = json_object_new_object()))
			return MDC_ERR_NOMEM;
		json_object_object_foreach(sent, k, v) {
			const char *rk, *name = k;
			json_object *r = mdc_update_raw_member(raw, k, &rk), *c = NULL, *norm;
			int rc = 0;

			if (!r || mdc_json_is_map_field(k)) {
				c = json_object_get(v);
			} else if (mdc_update_is_modeled(k)) {
				rc = mdc_update_wire(v, r, &c);
			} else if (!(norm = mdc_update_norm_as(r, rk)) && !json_object_is_type(r, json_type_null)) {
				rc = MDC_ERR_NOMEM;
			} else {
				bool same = mdc_json_equal(norm, v);

				json_object_put(norm);
				c = json_object_get(same ? r : v);
				name = same ? rk : k;
			}
			if (rc || json_object_object_add(*out, name, c)) {
				json_object_put(c);
				goto nomem;
			}
		}
		return 0;
	}
	if (json_object_is_type(sent, json_type_array) && json_object_is_type(raw, json_type_array)) {
		size_t n = json_object_array_length(sent);

		if (!(*out = json_object_new_array_ext((int) n)))
			return MDC_ERR_NOMEM;
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(sent, i), *c;

			if (mdc_update_wire(e, mdc_update_raw_elem(raw, e, i, n), &c) ||
			    json_object_array_add(*out, c)) {
				json_object_put(c);
				goto nomem;
			}
		}
		return 0;
	}
	*out = json_object_get(sent);
	return 0;
nomem:
	json_object_put(*out);
	*out = NULL;
	return MDC_ERR_NOMEM;
}

/* The PATCH's answer was lost: look again and say what is there. */
static int mdc_update_unknown(struct mdc_client *c, const char *name,
			      const struct mdc_plan *plan, int err, const char *why,
			      struct mdc_ctx *ctx)
{
	json_object *now = NULL;
	struct mdc_ctx tmp;
	const char *state;
	bool present;
	int rc;

	mdc_ctx_clear(&tmp);
	if (mdc_cluster_get(c, name, &now, &tmp)) {
		rc = mdc_fail(ctx, err, "%s; the change may or may not have been applied and the "
			      "cluster cannot be read now (%s): check with 'mdcctl describe' before "
			      "trying again", why, tmp.msg);
		goto out;
	}
	present = plan->result && mdc_update_same(now, plan->result, &plan->mask, true);
	state = mdc_cluster_state(now, "");
	if (present)
		rc = mdc_fail(ctx, err, "%s; re-read the cluster: the change is present (state %s), "
			      "nothing was resent", why, *state ? state : "unknown");
	else if (!strcmp(state, "UPDATING"))
		rc = mdc_fail(ctx, err, "%s; re-read the cluster: it is UPDATING, so the change was "
			      "probably received and is being applied; nothing was resent: check "
			      "with 'mdcctl describe' when it is done", why);
	else
		rc = mdc_fail(ctx, err, "%s; re-read the cluster: the change is not present and "
			      "nothing was resent%s", why, err == MDC_ERR_TIMEOUT ?
			      " (a timed-out request may still arrive: check with 'mdcctl describe' "
			      "before running the command again)" : ": run the command again");
out:
	json_object_put(now);
	return rc;
}

/* Just before the PATCH: is the cluster still the one the plan was made
 * on?  A writer without our lock (another login node) may have changed it
 * since; sending our plan would undo its change.  0 and *FRESH, or an
 * error from the GET. */
static int mdc_update_unchanged(struct mdc_client *c, const char *name, const json_object *planned_on,
				const struct mdc_plan *plan, bool *fresh, struct mdc_ctx *ctx)
{
	json_object *now = NULL;
	int rc;

	*fresh = false;
	if ((rc = mdc_cluster_get(c, name, &now, ctx)))
		return rc;
	*fresh = mdc_streq(mdc_cluster_state(now, ""), mdc_cluster_state(planned_on, "")) &&
		 mdc_update_same(now, planned_on, &plan->mask, false);
	json_object_put(now);
	return 0;
}

/* After the operation: read the cluster back; our change must be there.
 * A writer that planned on the state before ours and PATCHed after our
 * operation ended replaced it (no etag): say so, do not print "updated". */
static int mdc_update_kept(struct mdc_client *c, const char *name, const struct mdc_plan *plan,
			   struct mdc_ctx *ctx)
{
	json_object *now = NULL;
	int rc;

	if (!plan->result)
		return 0;
	if ((rc = mdc_cluster_get(c, name, &now, ctx))) {
		mdc_ctx_prefix(ctx, "the update finished, but reading it back failed (check with "
			       "'mdcctl describe')");
		return rc;
	}
	if (!mdc_update_same(now, plan->result, &plan->mask, true))
		rc = mdc_fail(ctx, MDC_ERR_LOST, "the update of cluster '%s' finished, but reading "
			      "it back shows another writer has replaced it (a writer on another "
			      "login node? share the lock directory, see LockDir in mdcctl(1)); "
			      "check with 'mdcctl describe' and run the command again", name);
	json_object_put(now);
	return rc;
}

int mdc_update_run(struct mdc_client *c, const struct mdc_settings *s,
		   const struct mdc_intent *in, const struct mdc_update_opts *o,
		   struct mdc_plan *plan_out, json_object **op_out, struct mdc_ctx *ctx)
{
	/* through mdcd, it runs mdc_update_direct there */
	return c->t->update(c, s, in, o, plan_out, op_out, ctx);
}

int mdc_update_direct(struct mdc_client *c, const struct mdc_settings *s,
		      const struct mdc_intent *in, const struct mdc_update_opts *o,
		      struct mdc_plan *plan_out, json_object **op_out, struct mdc_ctx *ctx)
{
	struct mdc_plan local, *plan = plan_out ? plan_out : &local;
	double lock_timeout = o->lock_timeout_s > 0 ? o->lock_timeout_s :
			      o->lro.timeout_s > 0 ? o->lro.timeout_s : MDC_LOCK_WAIT_DEFAULT_S;
	json_object *cluster = NULL, *op = NULL, *done = NULL, *wire = NULL;
	const char *op_name;
	struct mdc_ctx tmp;
	int lock = -1, rc;
	bool sent = false;

	memset(plan, 0, sizeof(*plan));
	if (op_out)
		*op_out = NULL;
	if (!s->cluster)
		return mdc_fail(ctx, MDC_ERR_USAGE, "no cluster given");
	if (!o->dry_run &&
	    (rc = mdc_lock_acquire(s->lock_dir, s->endpoint, s->cluster, lock_timeout,
				   o->lro.interrupted, &lock, ctx)))
		goto out;
	for (unsigned replans = 0;; replans++) {
		bool fresh;

		if ((rc = mdc_update_fresh(c, s->cluster, o, &cluster, ctx)))
			goto out;
		if ((rc = mdc_plan_make(cluster, in, &o->plan, plan, ctx)))
			goto out;
		/* Slurm's verdict (mdc_slurmcheck.h): the slurm.conf this plan
		 * produces must pass our checks and Slurm's own parser, or
		 * nothing is sent.  Dry runs get the verdict too. */
		if (!mdc_plan_empty(plan) && plan->result &&
		    (rc = mdc_slurmcheck_change(s->slurm_conf, cluster, plan->result, NULL,
						&plan->warnings, &plan->refusals, ctx)))
			goto out;
		if (mdc_plan_empty(plan) || o->dry_run)
			goto out;
		if (o->confirm && !o->confirm(plan, o->confirm_arg)) {
			rc = mdc_fail(ctx, MDC_ERR_REFUSED, "cancelled: nothing was sent");
			goto out;
		}
		if (mdc_intr_pending(o->lro.interrupted)) {
			rc = mdc_fail(ctx, MDC_ERR_INTERRUPTED, "interrupted: nothing was sent");
			goto out;
		}
		if ((rc = mdc_update_unchanged(c, s->cluster, cluster, plan, &fresh, ctx)))
			goto out;
		if (fresh)
			break;
		if (replans + 1 >= MDC_UPDATE_REPLANS) {
			rc = mdc_fail(ctx, MDC_ERR_CONFLICT, "cluster '%s' kept changing while the "
				      "update was planned (another writer without the shared lock?); "
				      "nothing was sent: try again", s->cluster);
			goto out;
		}
		mdc_info("cluster '%s' changed while the update was planned: planning again",
			 s->cluster);
		json_object_put(cluster);
		cluster = NULL;
		mdc_plan_free(plan);
		memset(plan, 0, sizeof(*plan));
	}
	if (mdc_update_wire(plan->payload, mdc_api_raw(cluster), &wire)) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	mdc_ctx_clear(&tmp);
	sent = true;
	rc = mdc_cluster_patch(c, s->cluster, wire, o->plan.no_mask ? NULL : &plan->mask,
			       plan->mode, &op, &tmp);
	if (rc == MDC_ERR_HTTP || rc == MDC_ERR_TIMEOUT) {
		rc = mdc_update_unknown(c, s->cluster, plan, rc, tmp.msg, ctx);
		goto out;
	}
	if (rc == MDC_ERR_INTERRUPTED) {
		/* no read-back: Ctrl-C stops every further request too */
		rc = mdc_fail(ctx, rc, "interrupted while sending the change; it may or may not "
			      "have been applied: check with 'mdcctl describe' before trying again");
		goto out;
	}
	if (rc) {
		mdc_fail(ctx, rc, "%s", tmp.msg);
		if (ctx) {
			ctx->http_code = tmp.http_code;
			memcpy(ctx->status, tmp.status, sizeof(ctx->status));
		}
		goto out;
	}
	op_name = mdc_json_get_str(op, "name", NULL);
	if (o->async || !op_name || mdc_json_get_bool(op, "done", false)) {
		/* a finished operation can still carry an error */
		json_object *err = mdc_json_get_obj(op, "error");

		if (err && mdc_json_get_int(err, "code", 0))
			rc = mdc_fail(ctx, MDC_ERR_OPFAILED, "operation '%s' failed: %s",
				      op_name ? op_name : "?", mdc_json_get_str(err, "message", "?"));
		goto out;
	}
	rc = mdc_lro_wait(c, op_name, &o->lro, &done, ctx);
	if (done) {
		json_object_put(op);
		op = done;
	}
	if (!rc)
		rc = mdc_update_kept(c, s->cluster, plan, ctx);
out:
	/* Ctrl-C in a read before the PATCH (not only in a sleep): say it */
	if (rc == MDC_ERR_INTERRUPTED && !sent && ctx && !strstr(ctx->msg, "nothing was sent")) {
		char why[MDC_CTX_MSG_MAX];

		memcpy(why, ctx->msg, sizeof(why));
		mdc_ctx_clear(ctx);
		mdc_fail(ctx, MDC_ERR_INTERRUPTED, "interrupted before the update was sent (%.200s); "
			 "nothing was sent", why);
	}
	mdc_lock_release(lock);
	if (op_out && op) {
		*op_out = op;
		op = NULL;
	}
	json_object_put(op);
	json_object_put(wire);
	json_object_put(cluster);
	if (plan == &local)
		mdc_plan_free(&local);
	return rc;
}

/* ---- create, walking hardware profiles ---------------------------------- */

static void mdc_create_note(void (*note)(const char *, void *), void *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void mdc_create_note(void (*note)(const char *, void *), void *arg, const char *fmt, ...)
{
	char line[MDC_CTX_MSG_MAX + 256];
	va_list ap;

	if (!note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	note(line, arg);
}

/* Delete cluster NAME, left in ERROR by a failed create, and wait for it. */
static int mdc_create_delete(struct mdc_client *c, const char *name, const struct mdc_lro_opts *lro,
			     struct mdc_ctx *ctx)
{
	json_object *op = NULL, *done = NULL;
	const char *op_name;
	int rc;

	if ((rc = mdc_cluster_delete(c, name, &op, ctx)))
		return rc;
	op_name = mdc_json_get_str(op, "name", NULL);
	if (op_name && !mdc_json_get_bool(op, "done", false))
		rc = mdc_lro_wait(c, op_name, lro, &done, ctx);
	else if (mdc_json_get_int(mdc_json_get_obj(op, "error"), "code", 0))
		rc = mdc_fail(ctx, MDC_ERR_OPFAILED, "%s",
			      mdc_json_get_str(mdc_json_get_obj(op, "error"), "message", "?"));
	json_object_put(done);
	json_object_put(op);
	return rc;
}

/* After a failed try: the cluster it left.  None, or one in ERROR that is
 * deleted here: 0.  One in another state is not ours to delete. */
static int mdc_create_clean(struct mdc_client *c, const char *name, const struct mdc_lro_opts *lro,
			    void (*note)(const char *, void *), void *arg, struct mdc_ctx *ctx)
{
	json_object *cl = NULL;
	char state[32];
	int rc;

	if ((rc = mdc_cluster_get(c, name, &cl, ctx))) {
		if (ctx && ctx->http_code == 404) {
			mdc_ctx_clear(ctx);
			return 0;
		}
		mdc_ctx_prefix(ctx, "after a failed create, cluster '%s' cannot be read", name);
		return rc;
	}
	snprintf(state, sizeof(state), "%s", mdc_cluster_state(cl, "?"));
	json_object_put(cl);
	if (strcmp(state, "ERROR"))
		return mdc_fail(ctx, MDC_ERR_CONFLICT, "cluster '%s' is %s after a failed create: not "
				"deleted, no other profile tried", name, state);
	mdc_create_note(note, arg, "deleting cluster '%s', left in ERROR", name);
	if ((rc = mdc_create_delete(c, name, lro, ctx))) {
		mdc_ctx_prefix(ctx, "deleting the failed cluster '%s' (no other profile tried)", name);
		return rc;
	}
	mdc_create_note(note, arg, "deleted cluster '%s'", name);
	return 0;
}

/* One try of profile P: 0 (up), MDC_ERR_OPFAILED with WHY (this profile
 * failed: try the next), or another error (stop). */
static int mdc_create_try(struct mdc_client *c, const char *parent, const char *id, const char *name,
			  const struct mdc_create_profile *p, const struct mdc_lro_opts *lro,
			  char *why, size_t whylen, struct mdc_ctx *ctx)
{
	json_object *op = NULL, *done = NULL, *cl = NULL;
	const char *op_name;
	struct mdc_ctx tmp;
	int rc;

	mdc_ctx_clear(&tmp);
	if ((rc = mdc_cluster_create(c, parent, id, p->body, &op, &tmp))) {
		if (rc == MDC_ERR_INTERRUPTED || tmp.http_code == 409) {
			/* the caller looks at what holds the ID */
			*ctx = tmp;
			goto out;
		}
		snprintf(why, whylen, "%s", tmp.msg);
		rc = MDC_ERR_OPFAILED;
		goto out;
	}
	op_name = mdc_json_get_str(op, "name", NULL);
	if (op_name && !mdc_json_get_bool(op, "done", false))
		rc = mdc_lro_wait(c, op_name, lro, &done, &tmp);
	else if (mdc_json_get_int(mdc_json_get_obj(op, "error"), "code", 0))
		rc = mdc_fail(&tmp, MDC_ERR_OPFAILED, "operation failed: code %lld: %s",
			      (long long) mdc_json_get_int(mdc_json_get_obj(op, "error"), "code", 0),
			      mdc_json_get_str(mdc_json_get_obj(op, "error"), "message", "?"));
	if (rc == MDC_ERR_OPFAILED) {
		snprintf(why, whylen, "%s", tmp.msg);
		goto out;
	}
	if (rc) {
		*ctx = tmp;
		goto out;
	}
	/* a finished create can still leave the cluster in ERROR */
	if ((rc = mdc_cluster_get(c, name, &cl, ctx)))
		goto out;
	if (!strcmp(mdc_cluster_state(cl, ""), "ERROR")) {
		json_object *err = mdc_json_get_obj(mdc_json_get_obj(cl, "cluster_status"), "error");

		snprintf(why, whylen, "the cluster is in ERROR: %s",
			 mdc_json_get_str(err, "message",
					  mdc_json_get_str(mdc_json_get_obj(cl, "cluster_status"), "detail", "?")));
		rc = MDC_ERR_OPFAILED;
	}
out:
	json_object_put(cl);
	json_object_put(done);
	json_object_put(op);
	return rc;
}

int mdc_create_walk(struct mdc_client *c, const char *parent, const char *id, const char *name,
		    const struct mdc_create_profile *prof, size_t n, const struct mdc_lro_opts *lro,
		    void (*note)(const char *line, void *arg), void *note_arg, size_t *won,
		    struct mdc_ctx *ctx)
{
	struct mdc_buf failed = MDC_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		char why[MDC_CTX_MSG_MAX];
		bool cleared = false;

		mdc_create_note(note, note_arg, "profile %s (%zu of %zu): creating cluster '%s'",
				prof[i].label, i + 1, n, name);
		for (;;) {
			why[0] = '\0';
			rc = mdc_create_try(c, parent, id, name, &prof[i], lro, why, sizeof(why), ctx);
			if (rc != MDC_ERR_CONFLICT || cleared || ctx->http_code != 409)
				break;
			/* 409: a cluster holds the ID; one a failed create left
			 * in ERROR goes, and this profile is tried again */
			mdc_create_note(note, note_arg, "cluster '%s' already exists", name);
			mdc_ctx_clear(ctx);
			if ((rc = mdc_create_clean(c, name, lro, note, note_arg, ctx)))
				goto out;
			cleared = true;
		}
		if (!rc) {
			*won = i;
			mdc_create_note(note, note_arg, "profile %s: cluster '%s' is up", prof[i].label, name);
			goto out;
		}
		if (rc != MDC_ERR_OPFAILED)
			goto out;
		mdc_create_note(note, note_arg, "profile %s failed: %s", prof[i].label, why);
		if (mdc_buf_addf(&failed, "%s%s (%s)", i ? "; " : "", prof[i].label, why)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		if ((rc = mdc_create_clean(c, name, lro, note, note_arg, ctx)))
			goto out;
		if (i + 1 < n)
			mdc_create_note(note, note_arg, "trying the next profile");
	}
	rc = mdc_fail(ctx, MDC_ERR_OPFAILED, "cluster '%s' not created: every profile failed: %s",
		      name, mdc_buf_str(&failed));
out:
	mdc_buf_free(&failed);
	return rc;
}
