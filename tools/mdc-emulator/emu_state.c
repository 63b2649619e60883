/* emu_state.c - the emulator's store, long-running operations, --state
 * persistence and the slurm.conf regeneration hook. */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "emu_int.h"
#include "mdc_buf.h"
#include "mdc_json.h"
#include "mdc_log.h"
#include "mdc_str.h"
#include "sc_render.h"

void emu_lock(struct emu *e)
{
	pthread_mutex_lock(&e->lock);
}

void emu_unlock(struct emu *e)
{
	pthread_mutex_unlock(&e->lock);
}

double emu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

void emu_now_rfc3339(char *buf, size_t sz)
{
	struct timespec ts;
	struct tm tm;
	char base[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, sz, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}

/* xorshift64*: seeded by --seed so fault sequences repeat. */
double emu_random(struct emu *e)
{
	unsigned long long x;

	pthread_mutex_lock(&e->rng_lock);
	x = e->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	e->rng = x;
	pthread_mutex_unlock(&e->rng_lock);
	return (double) ((x * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* --- store ------------------------------------------------------------------ */

static json_object *emu_kind(struct emu *e, const char *kind, bool create)
{
	json_object *k = NULL;

	if (json_object_object_get_ex(e->store, kind, &k))
		return k;
	if (!create)
		return NULL;
	k = json_object_new_object();
	if (k && json_object_object_add(e->store, kind, k)) {
		json_object_put(k);
		return NULL;
	}
	return k;
}

json_object *emu_store_get(struct emu *e, const char *kind, const char *name)
{
	json_object *k = emu_kind(e, kind, false), *v = NULL;

	if (k && json_object_object_get_ex(k, name, &v))
		return v;
	return NULL;
}

int emu_store_put(struct emu *e, const char *kind, const char *name, json_object *res)
{
	json_object *k = emu_kind(e, kind, true);

	if (!k || json_object_object_add(k, name, res)) {
		json_object_put(res);
		return MDC_ERR_NOMEM;
	}
	e->dirty = true;
	return 0;
}

bool emu_store_del(struct emu *e, const char *kind, const char *name)
{
	json_object *k = emu_kind(e, kind, false);

	if (!k || !json_object_object_get_ex(k, name, NULL))
		return false;
	json_object_object_del(k, name);
	e->dirty = true;
	return true;
}

static int emu_name_cmp(const void *a, const void *b)
{
	const json_object *x = *(const json_object *const *) a;
	const json_object *y = *(const json_object *const *) b;

	return strcmp(mdc_json_get_str(x, "name", ""), mdc_json_get_str(y, "name", ""));
}

json_object *emu_store_list(struct emu *e, const char *kind, const char *prefix)
{
	json_object *k = emu_kind(e, kind, false), *arr = json_object_new_array();

	if (!arr)
		return NULL;
	if (k) {
		json_object_object_foreach(k, name, v) {
			if (prefix && !mdc_startswith(name, prefix))
				continue;
			json_object_array_add(arr, mdc_json_copy(v));
		}
	}
	json_object_array_sort(arr, emu_name_cmp);
	return arr;
}

/* --- persistence ------------------------------------------------------------ */

int emu_state_save(struct emu *e)
{
	json_object *root;
	const char *text;
	struct mdc_ctx ctx;
	int rc;

	if (!e->state_path)
		return 0;
	mdc_ctx_clear(&ctx);
	root = json_object_new_object();
	json_object_object_add(root, "version", json_object_new_int(1));
	json_object_object_add(root, "next_op", json_object_new_int64((int64_t) e->next_op));
	json_object_object_add(root, "images", json_object_get(e->images));
	json_object_object_add(root, "store", json_object_get(e->store));
	text = mdc_json_str(root, true);
	rc = mdc_write_file_atomic(e->state_path, text, strlen(text), 0600, &ctx);
	if (rc)
		mdc_error("%s", ctx.msg);
	json_object_put(root);
	return rc;
}

int emu_state_load(struct emu *e, struct mdc_ctx *ctx)
{
	json_object *root = NULL, *v;
	int rc;

	if (!e->state_path || access(e->state_path, F_OK))
		return 0;
	if ((rc = mdc_json_parse_file(e->state_path, &root, ctx)))
		return rc;
	if (!json_object_is_type(root, json_type_object)) {
		rc = mdc_fail(ctx, MDC_ERR_PARSE, "state file '%s' is not a JSON object", e->state_path);
		goto out;
	}
	e->next_op = (unsigned long) mdc_json_get_int(root, "next_op", 1);
	if ((v = mdc_json_get_obj(root, "images"))) {
		json_object_object_foreach(v, k, img)
			json_object_object_add(e->images, k, json_object_get(img));
	}
	if ((v = mdc_json_get_obj(root, "store"))) {
		json_object_put(e->store);
		e->store = json_object_get(v);
	}
out:
	json_object_put(root);
	return rc;
}

/* --- operations ---------------------------------------------------------- */

json_object *emu_op_get(struct emu *e, const char *name)
{
	return emu_store_get(e, "operation", name);
}

static void emu_op_meta(json_object *op, const char *type, const char *progress,
			const char *create_time)
{
	json_object *meta = json_object_new_object(), *gm = json_object_new_object();
	char now[40];

	emu_now_rfc3339(now, sizeof(now));
	json_object_object_add(meta, "@type", json_object_new_string(type));
	json_object_object_add(gm, "create_time", json_object_new_string(create_time ? create_time : now));
	json_object_object_add(gm, "update_time", json_object_new_string(now));
	json_object_object_add(meta, "generic_metadata", gm);
	json_object_object_add(meta, "progress_message", json_object_new_string(progress ? progress : ""));
	json_object_object_add(op, "metadata", meta);
}

json_object *emu_op_start(struct emu *e, const struct emu_op_spec *spec)
{
	json_object *op = json_object_new_object();
	char name[1024];

	if (!op) {
		json_object_put(spec->final);
		return NULL;
	}
	snprintf(name, sizeof(name), "%s/operations/%lu", spec->parent, e->next_op++);
	json_object_object_add(op, "name", json_object_new_string(name));
	json_object_object_add(op, "done", json_object_new_boolean(0));
	emu_op_meta(op, spec->metadata_type, spec->progress, NULL);
	json_object_object_add(op, "_due", json_object_new_double(emu_now() + e->lro_seconds));
	if (spec->kind)
		json_object_object_add(op, "_kind", json_object_new_string(spec->kind));
	if (spec->res_name)
		json_object_object_add(op, "_res_name", json_object_new_string(spec->res_name));
	if (spec->final)
		json_object_object_add(op, "_final", spec->final);
	if (spec->delete_res)
		json_object_object_add(op, "_delete", json_object_new_boolean(1));
	if (spec->response_type)
		json_object_object_add(op, "_response_type", json_object_new_string(spec->response_type));
	if (spec->done) {
		for (size_t i = 0; i < EMU_MAX_HOOKS; i++) {
			if (!e->hooks[i].op) {
				e->hooks[i].op = strdup(name);
				e->hooks[i].fn = spec->done;
				e->hooks[i].arg = spec->arg;
				break;
			}
		}
	}
	if (emu_store_put(e, "operation", name, json_object_get(op))) {
		json_object_put(op);
		return NULL;
	}
	return op;
}

static void emu_op_finish(struct emu *e, json_object *op)
{
	const char *name = mdc_json_get_str(op, "name", "");
	const char *kind = mdc_json_get_str(op, "_kind", NULL);
	const char *res_name = mdc_json_get_str(op, "_res_name", NULL);
	const char *rtype = mdc_json_get_str(op, "_response_type", NULL);
	json_object *final = mdc_json_get(op, "_final"), *meta = mdc_json_get_obj(op, "metadata");
	json_object *gm = mdc_json_get_obj(meta, "generic_metadata");
	bool failed = e->op_fail;
	char now[40];

	json_object_object_add(op, "done", json_object_new_boolean(1));
	emu_now_rfc3339(now, sizeof(now));
	if (gm)
		json_object_object_add(gm, "update_time", json_object_new_string(now));
	if (failed) {
		json_object *err = json_object_new_object();

		json_object_object_add(err, "code", json_object_new_int(13));
		json_object_object_add(err, "message", json_object_new_string(
			"operation failed: internal error while applying the change (injected "
			"fault operation:fail); the resource was left unchanged"));
		json_object_object_add(op, "error", err);
	} else if (kind && res_name) {
		json_object *resp;

		if (mdc_json_get_bool(op, "_delete", false) || !final) {
			emu_store_del(e, kind, res_name);
			resp = json_object_new_object();
			json_object_object_add(resp, "@type",
					       json_object_new_string("type.googleapis.com/google.protobuf.Empty"));
		} else {
			emu_store_put(e, kind, res_name, mdc_json_copy(final));
			resp = mdc_json_copy(final);
			if (rtype)
				json_object_object_add(resp, "@type", json_object_new_string(rtype));
		}
		json_object_object_add(op, "response", resp);
	}
	if (kind && !strcmp(kind, "cluster"))
		emu_cluster_op_done(e, op, failed);
	for (size_t i = 0; i < EMU_MAX_HOOKS; i++) {
		if (e->hooks[i].op && !strcmp(e->hooks[i].op, name)) {
			e->hooks[i].fn(e, op, failed, e->hooks[i].arg);
			free(e->hooks[i].op);
			e->hooks[i].op = NULL;
		}
	}
	json_object_object_del(op, "_due");
	json_object_object_del(op, "_final");
	json_object_object_del(op, "_delete");
	json_object_object_del(op, "_response_type");
	e->dirty = true;
}

/* Due names are collected first: a done hook may start another operation. */
void emu_ops_tick(struct emu *e)
{
	json_object *ops = emu_kind(e, "operation", false);
	struct mdc_strv due = MDC_STRV_INIT;
	double now = emu_now();

	if (!ops || e->hold_ops)
		return;
	json_object_object_foreach(ops, name, op) {
		json_object *d = NULL;

		if (json_object_object_get_ex(op, "_due", &d) && json_object_get_double(d) <= now)
			mdc_strv_push(&due, name);
	}
	for (size_t i = 0; i < due.n; i++) {
		json_object *o = emu_store_get(e, "operation", due.v[i]);

		if (o)
			emu_op_finish(e, o);
	}
	mdc_strv_free(&due);
}

/* --- slurm.conf regeneration -------------------------------------------------- */

/* The node names of slurm.conf TEXT: the first word of each NodeName=
 * line and each NodeSet= line, in order.  A 22.05 slurmctld dies on a
 * reconfigure that changes them; other node attributes (Weight,
 * Features from node_sets) reconfigure fine. */
static void emu_node_lines(const char *text, struct mdc_buf *out)
{
	while (text && *text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t) (nl - text) : strlen(text);

		if (!strncasecmp(text, "NodeName=", 9)) {
			mdc_buf_add(out, text, strcspn(text, " \t\n"));
			mdc_buf_addc(out, '\n');
		} else if (!strncasecmp(text, "NodeSet=", 8)) {
			mdc_buf_add(out, text, n);
			mdc_buf_addc(out, '\n');
		}
		text += n + (nl ? 1 : 0);
	}
}

void emu_sync_schedule(struct emu *e, const json_object *cluster, bool restart)
{
	struct mdc_buf conf = MDC_BUF_INIT, old_nodes = MDC_BUF_INIT, new_nodes = MDC_BUF_INIT;
	struct mdc_ctx ctx, octx;
	char *base = NULL, *old = NULL;

	if (!e->slurm_conf)
		return;
	mdc_ctx_clear(&ctx);
	if (e->slurm_base && mdc_read_file(e->slurm_base, &base, NULL, &ctx))
		goto out;
	if (sc_render(cluster, base, e->slurm_base ? e->slurm_base : "(no base)", &conf, &ctx))
		goto out;
	/* no file yet, or other node lines: reconfigure is not enough */
	mdc_ctx_clear(&octx);
	if (mdc_read_file(e->slurm_conf, &old, NULL, &octx)) {
		restart = true;
	} else {
		emu_node_lines(old, &old_nodes);
		emu_node_lines(mdc_buf_str(&conf), &new_nodes);
		restart = restart || strcmp(mdc_buf_str(&old_nodes), mdc_buf_str(&new_nodes));
	}
	if (mdc_write_file_atomic(e->slurm_conf, mdc_buf_str(&conf), conf.len, 0644, &ctx))
		goto out;
	mdc_info("regenerated '%s'", e->slurm_conf);
	e->sync_pending = true;
	e->sync_restart = e->sync_restart || restart;
	e->sync_due = emu_now() + e->sync_delay;
out:
	if (ctx.err)
		mdc_error("slurm.conf regeneration failed: %s", ctx.msg);
	free(base);
	free(old);
	mdc_buf_free(&conf);
	mdc_buf_free(&old_nodes);
	mdc_buf_free(&new_nodes);
}

void emu_sync_tick(struct emu *e)
{
	const char *cmd;
	bool restart;
	int st;

	emu_lock(e);
	if (!e->sync_pending || emu_now() < e->sync_due) {
		emu_unlock(e);
		return;
	}
	restart = e->sync_restart;
	e->sync_pending = e->sync_restart = false;
	emu_unlock(e);
	cmd = restart && e->restart_cmd ? e->restart_cmd : e->reload_cmd;
	if (!cmd)
		return;
	mdc_info("running %s command: %s", restart ? "restart" : "reload", cmd);
	st = system(cmd);
	if (st == -1)
		mdc_error("cannot run '%s': %s", cmd, strerror(errno));
	else if (!WIFEXITED(st) || WEXITSTATUS(st))
		mdc_error("'%s' failed (status %d)", cmd, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}
