/* emu_state.c - the emulator's store, long-running operations, --state
 * persistence and the slurm.conf regeneration hook. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

/* Remember KIND/NAME for the next journal record: whoever got it may have
 * changed it in place. */
static void emu_touch(struct emu *e, const char *kind, const char *name)
{
	json_object *k = NULL;

	if (!e->state_path)
		return;
	if (!e->touched && !(e->touched = json_object_new_object()))
		return;
	if (!json_object_object_get_ex(e->touched, kind, &k)) {
		k = json_object_new_object();
		if (!k || json_object_object_add(e->touched, kind, k)) {
			json_object_put(k);
			return;
		}
	}
	if (!json_object_object_get_ex(k, name, NULL))
		json_object_object_add(k, name, NULL);
}

json_object *emu_store_get(struct emu *e, const char *kind, const char *name)
{
	json_object *k = emu_kind(e, kind, false), *v = NULL;

	if (k && json_object_object_get_ex(k, name, &v)) {
		emu_touch(e, kind, name);
		return v;
	}
	return NULL;
}

int emu_store_put(struct emu *e, const char *kind, const char *name, json_object *res)
{
	json_object *k = emu_kind(e, kind, true);

	if (!k || json_object_object_add(k, name, res)) {
		json_object_put(res);
		return MDC_ERR_NOMEM;
	}
	emu_touch(e, kind, name);
	e->dirty = true;
	return 0;
}

bool emu_store_del(struct emu *e, const char *kind, const char *name)
{
	json_object *k = emu_kind(e, kind, false);

	if (!k || !json_object_object_get_ex(k, name, NULL))
		return false;
	emu_touch(e, kind, name);
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

/* --- persistence ------------------------------------------------------------
 *
 * A snapshot {version, gen, next_op, images, store} written atomically
 * (temporary file, fsync, rename, fsync of the directory), and beside it a
 * journal: a header line {"gen": G} and one line per committed change set
 * {"next_op", "images", "put": {kind: {name: resource or null}}}, appended
 * with one write and fdatasync'ed before the answer leaves.  A kill -9 can
 * only cut the last journal line, which the load ignores.  The journal is
 * folded into a new snapshot when it outgrows the snapshot; the new
 * snapshot's generation makes the old journal void even if the process dies
 * before the new journal replaces it. */

#define EMU_JOURNAL_MIN (4u << 20)

static char *emu_journal_path(const struct emu *e)
{
	size_t n = strlen(e->state_path) + sizeof(".journal");
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s.journal", e->state_path);
	return p;
}

/* fsync the directory holding PATH, so a rename in it survives a crash. */
static void emu_sync_dir(const char *path)
{
	char *dir = strdup(path), *slash;
	int fd;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

static int emu_write_atomic(const char *path, const char *text, size_t len)
{
	struct mdc_ctx ctx;

	mdc_ctx_clear(&ctx);
	if (mdc_write_file_atomic(path, text, len, 0600, &ctx)) {
		mdc_error("%s", ctx.msg);
		return ctx.err;
	}
	emu_sync_dir(path);
	return 0;
}

int emu_state_compact(struct emu *e)
{
	json_object *root = NULL;
	const char *text;
	char *jpath = NULL, head[64];
	size_t tlen = 0;
	int rc = 0, fd;

	json_object_put(e->touched);
	e->touched = NULL;
	e->dirty = false;
	/* the next line after a snapshot holds whole clusters again */
	json_object_put(e->journaled);
	json_object_put(e->finals);
	e->journaled = e->finals = NULL;
	if (!e->state_path)
		return 0;
	if (!(jpath = emu_journal_path(e)) || !(root = json_object_new_object())) {
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	json_object_object_add(root, "version", json_object_new_int(2));
	json_object_object_add(root, "gen", json_object_new_int64((int64_t) e->gen + 1));
	json_object_object_add(root, "next_op", json_object_new_int64((int64_t) e->next_op));
	json_object_object_add(root, "images", json_object_get(e->images));
	json_object_object_add(root, "store", json_object_get(e->store));
	if (!(text = mdc_json_str_held(&e->text_holder, root, &tlen))) {
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	if ((rc = emu_write_atomic(e->state_path, text, tlen)))
		goto out;
	e->gen++;
	e->snapshot_bytes = tlen;
	/* the snapshot holds every line written so far, synced */
	pthread_mutex_lock(&e->sync_lock);
	e->jseq_synced = __atomic_load_n(&e->jseq_written, __ATOMIC_ACQUIRE);
	snprintf(head, sizeof(head), "{\"gen\":%lu}\n", e->gen);
	if ((rc = emu_write_atomic(jpath, head, strlen(head)))) {
		pthread_mutex_unlock(&e->sync_lock);
		goto out;
	}
	if (e->journal_fd >= 0)
		close(e->journal_fd);
	fd = open(jpath, O_WRONLY | O_APPEND | O_CLOEXEC);
	e->journal_fd = fd;
	e->journal_bytes = strlen(head);
	pthread_mutex_unlock(&e->sync_lock);
	if (fd < 0) {
		mdc_error("cannot open the state journal '%s': %s", jpath, strerror(errno));
		rc = MDC_ERR_IO;
	}
out:
	json_object_put(root);
	free(jpath);
	return rc;
}

/* The last journal line this thread wrote (0: none to sync). */
static __thread unsigned long emu_tls_seq;

void emu_journal_sync(struct emu *e)
{
	unsigned long want = emu_tls_seq, upto;

	emu_tls_seq = 0;
	if (!want)
		return;
	pthread_mutex_lock(&e->sync_lock);
	if (e->jseq_synced < want && e->journal_fd >= 0) {
		/* one fdatasync covers every line written before it */
		upto = __atomic_load_n(&e->jseq_written, __ATOMIC_ACQUIRE);
		if (fdatasync(e->journal_fd))
			mdc_error("cannot sync the state journal: %s", strerror(errno));
		else
			e->jseq_synced = upto;
	}
	pthread_mutex_unlock(&e->sync_lock);
}

/* --- journal lines that cost what changed ----------------------------------
 *
 * A stored cluster is never changed below its top level (an update makes
 * a new one sharing what it left alone), so a line can hold a cluster as
 * the members that are other objects than in a base the load has too:
 * {"_delta": {member: value}, "_removed": [member]}, plus "_base_op": OP
 * when the base is the "_final" of operation OP (the update this line
 * finishes) rather than the cluster as the load has it so far.  An
 * operation's "_final" cluster is written the same way against the
 * cluster of the same line, and a finished operation's response, when
 * the resource it names is written in the same line, as a delta over
 * that resource plus "_response_delta": true (older journals wrote
 * "_response_is_resource": true with only "@type").  A line's clusters
 * are made before its operations, so an update that finishes in the
 * line where the next one starts is based on the first one's "_final".
 * A changed member that is an object in both is itself written as such a
 * delta, and a list that keeps some of its elements (mdc_rules shares the
 * ones an update sent back unchanged) as {"_list": [...], "_same": [[A, B]]}:
 * elements A to B-1 are the base's, "_list" fills the gaps; a user map (labels, config) is written
 * whole.  So a change is written once, whatever the cluster's size: one
 * partition of 200 costs that partition.  Keys starting with '_' never
 * come from a client (the routes refuse them, and map values are
 * strings), so none of these forms can be forged; the load rebuilds them
 * (emu_journal_apply). */

#define EMU_J_DELTA "_delta"
#define EMU_J_REMOVED "_removed"
#define EMU_J_BASE_OP "_base_op"
#define EMU_J_RESP_IS_RES "_response_is_resource"
#define EMU_J_RESP_DELTA "_response_delta"
#define EMU_J_LIST "_list"
#define EMU_J_SAME "_same"

/* New reference: the members of OBJ (an object), shared. */
static json_object *emu_shallow(const json_object *obj)
{
	json_object *c = json_object_new_object();

	if (!c)
		return NULL;
	json_object_object_foreach((json_object *) obj, k, v)
		json_object_object_add(c, k, json_object_get(v));
	return c;
}

static json_object *emu_delta(const json_object *v, const json_object *base, size_t *n);

/* New reference: the list V over BASE, the elements it shares with BASE at
 * the same index left out of "_list" and named by index ranges [A, B) in
 * "_same"; NULL when it shares none (or ENOMEM): then V is written whole. */
static json_object *emu_list_delta(json_object *v, json_object *base)
{
	size_t n = json_object_array_length(v), m = json_object_array_length(base), i = 0;
	json_object *d = NULL, *list = NULL, *same = NULL;

	while (i < n) {
		size_t a = i;

		while (i < n && i < m && json_object_array_get_idx(v, i) == json_object_array_get_idx(base, i))
			i++;
		if (i > a) {
			json_object *r = json_object_new_array_ext(2);

			if (!r || (!same && !(same = json_object_new_array())))
				goto nomem;
			json_object_array_add(r, json_object_new_int64((int64_t) a));
			json_object_array_add(r, json_object_new_int64((int64_t) i));
			json_object_array_add(same, r);
			continue;
		}
		if (!list && !(list = json_object_new_array()))
			goto nomem;
		json_object_array_add(list, json_object_get(json_object_array_get_idx(v, i++)));
	}
	if (!same || !(d = json_object_new_object()) || (!list && !(list = json_object_new_array())))
		goto nomem;
	json_object_object_add(d, EMU_J_LIST, list);
	json_object_object_add(d, EMU_J_SAME, same);
	return d;
nomem:
	json_object_put(d);
	json_object_put(list);
	json_object_put(same);
	return NULL;
}

/* New reference: what is written for member KEY, now M, which was WAS. */
static json_object *emu_delta_member(const char *key, json_object *m, json_object *was)
{
	json_object *d = NULL;
	size_t n;

	if (m && was && !mdc_json_is_map_field(key)) {
		if (json_object_is_type(m, json_type_object) && json_object_is_type(was, json_type_object))
			d = emu_delta(m, was, &n);
		else if (json_object_is_type(m, json_type_array) && json_object_is_type(was, json_type_array))
			d = emu_list_delta(m, was);
	}
	return d ? d : json_object_get(m);
}

/* What the load makes of member KEY written as V over WAS (new reference). */
static json_object *emu_undelta(const json_object *base, const json_object *delta);
static json_object *emu_undelta_member(const char *key, json_object *v, json_object *was)
{
	json_object *list, *same, *c;
	size_t n, m;

	if (!json_object_is_type(v, json_type_object) || mdc_json_is_map_field(key))
		return json_object_get(v);
	if (json_object_object_get_ex(v, EMU_J_DELTA, NULL) && json_object_is_type(was, json_type_object))
		return emu_undelta(was, v);
	if (!(list = mdc_json_get_arr(v, EMU_J_LIST)) || !(same = mdc_json_get_arr(v, EMU_J_SAME)) ||
	    !json_object_is_type(was, json_type_array) || !(c = json_object_new_array()))
		return json_object_get(v);
	n = json_object_array_length(list);
	m = json_object_array_length(was);
	/* the ranges in order, the written elements filling the gaps */
	for (size_t r = 0, i = 0, li = 0; r <= json_object_array_length(same); r++) {
		json_object *rg = r < json_object_array_length(same) ? json_object_array_get_idx(same, r) : NULL;
		int64_t a = rg ? json_object_get_int64(json_object_array_get_idx(rg, 0)) : INT64_MAX;
		int64_t b = rg ? json_object_get_int64(json_object_array_get_idx(rg, 1)) : 0;

		for (; (int64_t) i < a && li < n; i++)
			json_object_array_add(c, json_object_get(json_object_array_get_idx(list, li++)));
		if (a < (int64_t) i || b > (int64_t) m) {
			mdc_error("state journal: a list delta names elements the base lacks");
			break;
		}
		for (; (int64_t) i < b; i++)
			json_object_array_add(c, json_object_get(json_object_array_get_idx(was, i)));
	}
	return c;
}

/* New reference: V as a delta over BASE (both objects); *N = the members
 * it names.  NULL on ENOMEM. */
static json_object *emu_delta(const json_object *v, const json_object *base, size_t *n)
{
	json_object *delta = json_object_new_object(), *changed = json_object_new_object();
	json_object *removed = json_object_new_array();

	*n = 0;
	if (!delta || !changed || !removed) {
		json_object_put(delta);
		json_object_put(changed);
		json_object_put(removed);
		return NULL;
	}
	json_object_object_foreach((json_object *) v, k, m) {
		json_object *was = NULL;

		if (!json_object_object_get_ex(base, k, &was)) {
			json_object_object_add(changed, k, json_object_get(m));
			(*n)++;
		} else if (was != m) {
			json_object_object_add(changed, k, emu_delta_member(k, m, was));
			(*n)++;
		}
	}
	json_object_object_foreach((json_object *) base, bk, bm) {
		(void) bm;
		if (!json_object_object_get_ex(v, bk, NULL)) {
			json_object_array_add(removed, json_object_new_string(bk));
			(*n)++;
		}
	}
	json_object_object_add(delta, EMU_J_DELTA, changed);
	json_object_object_add(delta, EMU_J_REMOVED, removed);
	return delta;
}

/* New reference: BASE's members with DELTA (an emu_delta) applied. */
static json_object *emu_undelta(const json_object *base, const json_object *delta)
{
	json_object *c = emu_shallow(base), *changed = mdc_json_get_obj(delta, EMU_J_DELTA);
	json_object *rm = mdc_json_get_arr(delta, EMU_J_REMOVED);

	if (!c)
		return NULL;
	if (changed) {
		json_object_object_foreach(changed, k, v) {
			json_object *was = NULL;

			json_object_object_get_ex(base, k, &was);
			json_object_object_add(c, k, emu_undelta_member(k, v, was));
		}
	}
	for (size_t i = 0; rm && i < json_object_array_length(rm); i++)
		json_object_object_del(c, json_object_get_string(json_object_array_get_idx(rm, i)));
	return c;
}

/* Is KIND/NAME written in the line being made? */
static bool emu_in_line(const struct emu *e, const char *kind, const char *name)
{
	json_object *names = NULL;

	return e->touched && json_object_object_get_ex(e->touched, kind, &names) &&
	       json_object_object_get_ex(names, name, NULL);
}

/* New reference: what the line holds for cluster NAME (V, or its delta
 * over the top level journaled last or over the "_final" of the operation
 * this line finishes, whichever is smaller); V's top level is then the
 * one journaled last. */
static json_object *emu_journal_cluster(struct emu *e, const char *name, json_object *v)
{
	json_object *last = NULL, *fin = NULL, *top, *d1 = NULL, *d2 = NULL, *ops, *op = NULL;
	const char *opname = NULL;
	size_t n1 = 0, n2 = 0;

	if (!e->journaled && !(e->journaled = json_object_new_object()))
		return json_object_get(v);
	if (e->finals && json_object_object_get_ex(e->finals, name, &fin)) {
		/* usable only in the line that finishes that operation: the
		 * load still has its "_final" then */
		opname = mdc_json_get_str(fin, "op", "");
		if (!emu_in_line(e, "operation", opname) || !(ops = emu_kind(e, "operation", false)) ||
		    !json_object_object_get_ex(ops, opname, &op) ||
		    json_object_object_get_ex(op, "_final", NULL) || json_object_object_get_ex(op, "_due", NULL))
			fin = NULL;
	}
	if (!v || !json_object_is_type(v, json_type_object) || !(top = emu_shallow(v))) {
		json_object_object_del(e->journaled, name);
		if (e->finals)
			json_object_object_del(e->finals, name);
		return json_object_get(v);
	}
	json_object_object_get_ex(e->journaled, name, &last);
	if (last)
		d1 = emu_delta(v, last, &n1);
	if (fin)
		d2 = emu_delta(v, mdc_json_get_obj(fin, "top"), &n2);
	if (d2 && (!d1 || n2 < n1)) {
		json_object_object_add(d2, EMU_J_BASE_OP, json_object_new_string(opname));
		json_object_put(d1);
		d1 = d2;
	} else {
		json_object_put(d2);
	}
	if (fin)	/* its operation is finished: never a base again */
		json_object_object_del(e->finals, name);
	json_object_object_add(e->journaled, name, top);
	return d1 ? d1 : json_object_get(v);
}

/* New reference: what the line holds for operation OP: a cluster update's
 * "_final" as a delta over the cluster of this line, and a response that
 * is the top level of the resource it names, written in this same line
 * (the members are the same objects: the same text), left out. */
static json_object *emu_journal_op(struct emu *e, const char *name, json_object *op)
{
	const char *kind = mdc_json_get_str(op, "_kind", NULL);
	const char *res_name = mdc_json_get_str(op, "_res_name", NULL);
	json_object *resp = NULL, *fin = NULL, *k, *res = NULL, *c, *d;
	size_t nd;

	if (!kind || !res_name || !(k = emu_kind(e, kind, false)) ||
	    !json_object_object_get_ex(k, res_name, &res) || !json_object_is_type(res, json_type_object))
		return json_object_get(op);
	if (!strcmp(kind, "cluster") && json_object_object_get_ex(op, "_final", &fin) &&
	    json_object_is_type(fin, json_type_object)) {
		json_object *rec = json_object_new_object(), *top = emu_shallow(fin);

		/* the cluster this finishes as: the base of its next line */
		if (rec && top && (e->finals || (e->finals = json_object_new_object()))) {
			json_object_object_add(rec, "op", json_object_new_string(name));
			json_object_object_add(rec, "top", top);
			json_object_object_add(e->finals, res_name, rec);
		} else {
			json_object_put(rec);
			json_object_put(top);
		}
		if (!emu_in_line(e, kind, res_name) || !(d = emu_delta(fin, res, &nd)))
			return json_object_get(op);
		if (!(c = emu_shallow(op))) {
			json_object_put(d);
			return json_object_get(op);
		}
		json_object_object_add(c, "_final", d);
		return c;
	}
	if (!json_object_object_get_ex(op, "response", &resp) || !json_object_is_type(resp, json_type_object) ||
	    !emu_in_line(e, kind, res_name) || !(d = emu_delta(resp, res, &nd)))
		return json_object_get(op);
	if (!(c = emu_shallow(op))) {
		json_object_put(d);
		return json_object_get(op);
	}
	json_object_object_add(c, "response", d);
	json_object_object_add(c, EMU_J_RESP_DELTA, json_object_new_boolean(1));
	return c;
}

/* Append the touched resources as one journal line (lock held). */
static int emu_journal_commit(struct emu *e)
{
	json_object *rec = NULL, *put = NULL;
	const char *text;
	struct mdc_buf line = MDC_BUF_INIT;
	size_t off = 0, tlen = 0;
	int rc = 0;

	if (e->journal_fd < 0)
		return emu_state_compact(e);
	rec = json_object_new_object();
	put = json_object_new_object();
	if (!rec || !put) {
		json_object_put(put);
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	json_object_object_add(rec, "next_op", json_object_new_int64((int64_t) e->next_op));
	json_object_object_add(rec, "images", json_object_get(e->images));
	json_object_object_add(rec, "put", put);
	/* clusters first: their base may be the "_final" of an operation
	 * this line finishes, which a starting one replaces in e->finals */
	for (int pass = 0; e->touched && pass < 2; pass++) {
		json_object_object_foreach(e->touched, kind, names) {
			json_object *k, *out;

			if ((pass == 0) != !strcmp(kind, "cluster"))
				continue;
			k = emu_kind(e, kind, false);
			out = json_object_new_object();
			json_object_object_foreach(names, name, unused) {
				json_object *v = NULL;

				(void) unused;
				if (k)
					json_object_object_get_ex(k, name, &v);
				if (!strcmp(kind, "cluster"))
					v = emu_journal_cluster(e, name, v);
				else if (v && !strcmp(kind, "operation"))
					v = emu_journal_op(e, name, v);
				else
					v = json_object_get(v);
				json_object_object_add(out, name, v);
			}
			json_object_object_add(put, kind, out);
		}
	}
	if (!(text = mdc_json_str_held(&e->text_holder, rec, &tlen)) || mdc_buf_add(&line, text, tlen) ||
	    mdc_buf_addc(&line, '\n')) {
		rc = MDC_ERR_NOMEM;
		goto out;
	}
	while (off < line.len) {
		ssize_t w = write(e->journal_fd, line.s + off, line.len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			mdc_error("cannot append to the state journal: %s", strerror(errno));
			rc = MDC_ERR_IO;
			goto out;
		}
		off += (size_t) w;
	}
	emu_tls_seq = __atomic_add_fetch(&e->jseq_written, 1, __ATOMIC_RELEASE);
	e->journal_bytes += line.len;
out:
	/* the values are the live resources: release them under the lock */
	json_object_put(rec);
	mdc_buf_free(&line);
	json_object_put(e->touched);
	e->touched = NULL;
	e->dirty = false;
	if (rc)		/* a journal that lost a line is replaced by a snapshot */
		return emu_state_compact(e);
	if (e->journal_bytes > EMU_JOURNAL_MIN && e->journal_bytes > 2 * e->snapshot_bytes)
		return emu_state_compact(e);
	return 0;
}

void emu_unlock(struct emu *e)
{
	if (e->dirty)
		emu_journal_commit(e);
	else if (e->touched) {
		json_object_put(e->touched);
		e->touched = NULL;
	}
	pthread_mutex_unlock(&e->lock);
}

int emu_state_save(struct emu *e)
{
	/* written when the lock is released, before the answer is sent */
	e->dirty = true;
	return 0;
}

/* Apply one journal record to the loaded store. */
static void emu_journal_apply(struct emu *e, json_object *rec)
{
	json_object *v, *names, *k;

	e->next_op = (unsigned long) mdc_json_get_int(rec, "next_op", (int64_t) e->next_op);
	if ((v = mdc_json_get_obj(rec, "images"))) {
		json_object_object_foreach(v, ik, img)
			json_object_object_add(e->images, ik, json_object_get(img));
	}
	if (!(v = mdc_json_get_obj(rec, "put")))
		return;
	/* clusters over the "_final" of the operation this line finishes,
	 * before the line's operations replace it */
	if ((names = mdc_json_get_obj(v, "cluster")) && (k = emu_kind(e, "cluster", true))) {
		json_object *ops = emu_kind(e, "operation", false);

		json_object_object_foreach(names, cname, res) {
			json_object *op = NULL, *base, *c;

			if (!mdc_json_get_str(res, EMU_J_BASE_OP, NULL))
				continue;
			if (ops && json_object_object_get_ex(ops, mdc_json_get_str(res, EMU_J_BASE_OP, ""), &op) &&
			    (base = mdc_json_get_obj(op, "_final")) && (c = emu_undelta(base, res)))
				json_object_object_add(k, cname, c);
			else
				mdc_error("state journal: no base for cluster '%s'", cname);
		}
	}
	json_object_object_foreach(v, kind, kinds) {
		bool cluster = !strcmp(kind, "cluster");

		if (!json_object_is_type(kinds, json_type_object) || !(k = emu_kind(e, kind, true)))
			continue;
		json_object_object_foreach(kinds, name, res) {
			json_object *base = NULL, *c;

			if (!res) {
				json_object_object_del(k, name);
				continue;
			}
			if (!cluster || !json_object_object_get_ex(res, EMU_J_DELTA, NULL)) {
				json_object_object_add(k, name, json_object_get(res));
				continue;
			}
			if (mdc_json_get_str(res, EMU_J_BASE_OP, NULL))
				continue;	/* done above */
			/* a cluster's changed members over its state so far */
			if (json_object_object_get_ex(k, name, &base) && (c = emu_undelta(base, res)))
				json_object_object_add(k, name, c);
			else
				mdc_error("state journal: no base for cluster '%s'", name);
		}
	}
	/* what refers to the resources as this line left them */
	if (!(v = mdc_json_get_obj(v, "operation")))
		return;
	json_object_object_foreach(v, oname, op) {
		json_object *res = NULL, *part, *c;

		(void) oname;
		if (!op || strcmp(mdc_json_get_str(op, "_kind", ""), "cluster") ||
		    !(k = emu_kind(e, "cluster", false)) ||
		    !json_object_object_get_ex(k, mdc_json_get_str(op, "_res_name", ""), &res))
			continue;
		if ((part = mdc_json_get_obj(op, "_final")) && json_object_object_get_ex(part, EMU_J_DELTA, NULL)) {
			if ((c = emu_undelta(res, part)))
				json_object_object_add(op, "_final", c);
		} else if (mdc_json_get_bool(op, EMU_J_RESP_DELTA, false) &&
			   (part = mdc_json_get_obj(op, "response")) && (c = emu_undelta(res, part))) {
			json_object_object_add(op, "response", c);
		} else if (mdc_json_get_bool(op, EMU_J_RESP_IS_RES, false) &&
			   (part = mdc_json_get_obj(op, "response")) && (c = emu_shallow(res))) {
			json_object_object_foreach(part, rk, rv)
				json_object_object_add(c, rk, json_object_get(rv));
			json_object_object_add(op, "response", c);
		}
		json_object_object_del(op, EMU_J_RESP_IS_RES);
		json_object_object_del(op, EMU_J_RESP_DELTA);
	}
}

/* Replay the journal of generation GEN; a cut last line (kill -9 during
 * the append) is dropped, the next compaction removes it. */
static int emu_journal_replay(struct emu *e, struct mdc_ctx *ctx)
{
	char *jpath = emu_journal_path(e), *text = NULL, *p, *nl;
	size_t len = 0, lineno = 0, applied = 0;
	int rc = 0;

	if (!jpath)
		return mdc_nomem(ctx);
	if (access(jpath, F_OK))
		goto out;
	if ((rc = mdc_read_file(jpath, &text, &len, ctx)))
		goto out;
	for (p = text; p < text + len; p = nl + 1) {
		json_object *rec = NULL;
		struct mdc_ctx lctx;

		nl = memchr(p, '\n', (size_t) (text + len - p));
		if (!nl) {
			mdc_info("state journal '%s': ignoring a cut last line", jpath);
			break;
		}
		lineno++;
		mdc_ctx_clear(&lctx);
		if (mdc_json_parse(p, (size_t) (nl - p), &rec, &lctx) ||
		    !json_object_is_type(rec, json_type_object)) {
			json_object_put(rec);
			mdc_error("state journal '%s' line %zu is damaged: the changes from there on "
				  "are lost", jpath, lineno);
			break;
		}
		if (lineno == 1) {
			/* a journal of an older snapshot: its changes are in the snapshot */
			if ((unsigned long) mdc_json_get_int(rec, "gen", -1) != e->gen) {
				json_object_put(rec);
				break;
			}
		} else {
			emu_journal_apply(e, rec);
			applied++;
		}
		json_object_put(rec);
	}
	if (applied)
		mdc_info("state journal '%s': %zu change sets replayed", jpath, applied);
out:
	free(text);
	free(jpath);
	return rc;
}

/* Remove STATE.tmp.PID and STATE.journal.tmp.PID files whose writer is
 * gone (a kill -9 between create and rename leaves them). */
static void emu_clean_tmp(const struct emu *e)
{
	char *dir = strdup(e->state_path), *slash;
	const char *base;
	DIR *d;
	struct dirent *de;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		base = slash + 1;
	} else {
		base = dir;
	}
	d = opendir(slash ? (dir[0] ? dir : "/") : ".");
	while (d && (de = readdir(d))) {
		size_t bl = strlen(base);
		const char *rest, *pid;
		char *end, path[4096];
		long n;

		if (strncmp(de->d_name, base, bl))
			continue;
		rest = de->d_name + bl;
		if (mdc_startswith(rest, ".journal"))
			rest += 8;
		if (!mdc_startswith(rest, ".tmp."))
			continue;
		pid = rest + 5;
		n = strtol(pid, &end, 10);
		if (*end || end == pid || n <= 0 || (kill((pid_t) n, 0) == 0 || errno != ESRCH))
			continue;
		snprintf(path, sizeof(path), "%s/%s", slash ? dir : ".", de->d_name);
		if (!unlink(path))
			mdc_info("removed the left-over temporary file '%s'", path);
	}
	if (d)
		closedir(d);
	free(dir);
}

static void emu_due_push(struct emu *e, const char *name, double due);
static void emu_done_push(struct emu *e, const char *name);

static unsigned long emu_op_number(const char *name)
{
	const char *s = strrchr(name, '/');

	return s ? strtoul(s + 1, NULL, 10) : 0;
}

static int emu_op_num_cmp(const void *a, const void *b)
{
	unsigned long x = emu_op_number(*(char *const *) a), y = emu_op_number(*(char *const *) b);

	return x < y ? -1 : x > y;
}

/* Rebuild the due-queue and the ring of finished operations from the store. */
static void emu_ops_index(struct emu *e)
{
	json_object *ops = emu_kind(e, "operation", false);
	struct mdc_strv done = MDC_STRV_INIT;

	if (!ops)
		return;
	json_object_object_foreach(ops, name, op) {
		json_object *d = NULL;

		if (json_object_object_get_ex(op, "_due", &d))
			emu_due_push(e, name, json_object_get_double(d));
		else
			mdc_strv_push(&done, name);
	}
	qsort(done.v, done.n, sizeof(done.v[0]), emu_op_num_cmp);
	for (size_t i = 0; i < done.n; i++)
		emu_done_push(e, done.v[i]);
	mdc_strv_free(&done);
}

int emu_state_load(struct emu *e, struct mdc_ctx *ctx)
{
	json_object *root = NULL, *v;
	int rc = 0;

	if (!e->state_path)
		return 0;
	emu_clean_tmp(e);
	if (!access(e->state_path, F_OK)) {
		if ((rc = mdc_json_parse_file(e->state_path, &root, ctx)))
			return rc;
		if (!json_object_is_type(root, json_type_object)) {
			rc = mdc_fail(ctx, MDC_ERR_PARSE, "state file '%s' is not a JSON object",
				      e->state_path);
			goto out;
		}
		e->next_op = (unsigned long) mdc_json_get_int(root, "next_op", 1);
		e->gen = (unsigned long) mdc_json_get_int(root, "gen", 0);
		if ((v = mdc_json_get_obj(root, "images"))) {
			json_object_object_foreach(v, k, img)
				json_object_object_add(e->images, k, json_object_get(img));
		}
		if ((v = mdc_json_get_obj(root, "store"))) {
			json_object_put(e->store);
			e->store = json_object_get(v);
		}
		if ((rc = emu_journal_replay(e, ctx)))
			goto out;
	}
	if ((v = emu_kind(e, "cluster", false))) {
		json_object_object_foreach(v, name, cl) {
			(void) name;
			emu_cluster_keep_texts(cl);
		}
	}
	emu_ops_index(e);
	if (emu_state_compact(e))
		rc = mdc_fail(ctx, MDC_ERR_IO, "cannot write the state file '%s' (see above)",
			      e->state_path);
out:
	json_object_put(root);
	return rc;
}

void emu_state_free(struct emu *e)
{
	for (size_t i = 0; i < e->ndue; i++)
		free(e->due[i].name);
	free(e->due);
	for (size_t i = 0; i < EMU_KEEP_OPS; i++)
		free(e->done_ops[i]);
	json_object_put(e->touched);
	json_object_put(e->journaled);
	json_object_put(e->finals);
	json_object_put(e->text_holder);
	if (e->journal_fd >= 0)
		close(e->journal_fd);
}

/* --- operations ---------------------------------------------------------- */

/* The due-queue: a binary min-heap on the due time. */
static void emu_due_push(struct emu *e, const char *name, double due)
{
	struct emu_due it = { due, strdup(name) };
	size_t i;

	if (!it.name)
		return;
	if (e->ndue == e->adue) {
		size_t n = e->adue ? 2 * e->adue : 16;
		struct emu_due *d = realloc(e->due, n * sizeof(*d));

		if (!d) {
			free(it.name);
			return;
		}
		e->due = d;
		e->adue = n;
	}
	for (i = e->ndue++; i > 0 && e->due[(i - 1) / 2].due > due; i = (i - 1) / 2)
		e->due[i] = e->due[(i - 1) / 2];
	e->due[i] = it;
}

/* Remove the top; its name is the caller's. */
static char *emu_due_pop(struct emu *e)
{
	char *name = e->due[0].name;
	struct emu_due last = e->due[--e->ndue];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= e->ndue)
			break;
		if (c + 1 < e->ndue && e->due[c + 1].due < e->due[c].due)
			c++;
		if (e->due[c].due >= last.due)
			break;
		e->due[i] = e->due[c];
		i = c;
	}
	if (e->ndue)
		e->due[i] = last;
	return name;
}

/* OP's response as text (EMU_LIVE_OPS): the store and the snapshot keep
 * that; emu_public gives answers the tree again.  The same answer in
 * another form: not a change the journal writes (the load freezes the old
 * operations again, emu_ops_index). */
static void emu_op_freeze(struct emu *e, const char *name)
{
	json_object *ops = emu_kind(e, "operation", false), *op = NULL, *resp = NULL, *text;
	const char *s;
	size_t len;

	if (!ops || !json_object_object_get_ex(ops, name, &op) || !op ||
	    !json_object_object_get_ex(op, "response", &resp) || !json_object_is_type(resp, json_type_object) ||
	    !(s = mdc_json_str_held(&e->text_holder, resp, &len)) ||
	    !(text = json_object_new_string_len(s, (int) len)))
		return;
	json_object_object_add(op, EMU_RESPONSE_TEXT, text);
	json_object_object_del(op, "response");
}

/* Note a finished operation; the oldest beyond EMU_KEEP_OPS is forgotten,
 * and the one that is no longer among the newest EMU_LIVE_OPS keeps its
 * response as text. */
static void emu_done_push(struct emu *e, const char *name)
{
	size_t slot = (e->done_head + e->ndone) % EMU_KEEP_OPS;
	char *copy = strdup(name);

	if (!copy)
		return;
	if (e->ndone == EMU_KEEP_OPS) {
		slot = e->done_head;
		emu_store_del(e, "operation", e->done_ops[slot]);
		free(e->done_ops[slot]);
		e->done_head = (e->done_head + 1) % EMU_KEEP_OPS;
	} else {
		e->ndone++;
	}
	e->done_ops[slot] = copy;
	if (e->ndone > EMU_LIVE_OPS)
		emu_op_freeze(e, e->done_ops[(e->done_head + e->ndone - 1 - EMU_LIVE_OPS) % EMU_KEEP_OPS]);
}

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
	double due = emu_now() + e->lro_seconds;
	char name[1024];

	if (!op) {
		json_object_put(spec->final);
		json_object_put(spec->fail);
		return NULL;
	}
	snprintf(name, sizeof(name), "%s/operations/%lu", spec->parent, e->next_op++);
	json_object_object_add(op, "name", json_object_new_string(name));
	json_object_object_add(op, "done", json_object_new_boolean(0));
	emu_op_meta(op, spec->metadata_type, spec->progress, spec->create_time);
	json_object_object_add(op, "_due", json_object_new_double(due));
	emu_due_push(e, name, due);
	if (spec->kind)
		json_object_object_add(op, "_kind", json_object_new_string(spec->kind));
	if (spec->res_name)
		json_object_object_add(op, "_res_name", json_object_new_string(spec->res_name));
	if (spec->final)
		json_object_object_add(op, "_final", spec->final);
	if (spec->delete_res)
		json_object_object_add(op, "_delete", json_object_new_boolean(1));
	if (spec->fail)
		json_object_object_add(op, "_fail", spec->fail);
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
	json_object *fail = mdc_json_get_obj(op, "_fail");
	bool failed = e->op_fail || fail;
	char now[40];

	json_object_object_add(op, "done", json_object_new_boolean(1));
	emu_now_rfc3339(now, sizeof(now));
	if (gm)
		json_object_object_add(gm, "update_time", json_object_new_string(now));
	if (fail) {
		/* an accepted create the service could not carry out
		 * (emu_cluster_create): the operation's error is its own */
		json_object_object_add(op, "error", json_object_get(fail));
	} else if (failed) {
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
			/* the final resource moves into the store (no copy: it
			 * leaves the operation below); a cluster's response is
			 * its view, made by emu_cluster_op_done */
			emu_store_put(e, kind, res_name, json_object_get(final));
			resp = strcmp(kind, "cluster") ? mdc_json_copy(final) : json_object_new_object();
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
	json_object_object_del(op, "_fail");
	json_object_object_del(op, "_final");
	json_object_object_del(op, "_delete");
	json_object_object_del(op, "_response_type");
	e->dirty = true;
}

/* Finish the due operations, earliest first: only the top of the queue is
 * looked at, so a request costs nothing per stored operation.  A done hook
 * may start another operation (pushed while we pop). */
void emu_ops_tick(struct emu *e)
{
	double now = emu_now();

	while (!e->hold_ops && e->ndue && e->due[0].due <= now) {
		char *name = emu_due_pop(e);
		json_object *o = emu_store_get(e, "operation", name);

		if (o && json_object_object_get_ex(o, "_due", NULL)) {
			emu_op_finish(e, o);
			emu_done_push(e, name);
		}
		free(name);
	}
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
	if (sc_render_rel(cluster, base, e->slurm_base ? e->slurm_base : "(no base)",
			  e->slurm_release, &conf, &ctx))
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
