/* mdc_live.c - see mdc_live.h.  The real scontrol is the only way in: it
 * reads the same SLURM_CONF as the admin and speaks to the same slurmctld,
 * and needs no libslurm version match. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mdc_live.h"
#include "mdc_proc.h"
#include "mdc_run.h"
#include "mdc_value.h"
#include "sc_conf.h"

int mdc_kvs_add(struct mdc_kvs *kvs, const char *key, const char *value)
{
	struct mdc_kv *v;
	char *k, *val;

	if (kvs->n == kvs->cap) {
		size_t cap = kvs->cap ? kvs->cap * 2 : 16;

		v = realloc(kvs->v, cap * sizeof(*v));
		if (!v)
			return MDC_ERR_NOMEM;
		kvs->v = v;
		kvs->cap = cap;
	}
	k = strdup(key);
	val = strdup(value ? value : "");
	if (!k || !val) {
		free(k);
		free(val);
		return MDC_ERR_NOMEM;
	}
	kvs->v[kvs->n].key = k;
	kvs->v[kvs->n].value = val;
	kvs->n++;
	return 0;
}

const char *mdc_kvs_get(const struct mdc_kvs *kvs, const char *key)
{
	for (size_t i = 0; i < kvs->n; i++)
		if (mdc_key_eq(kvs->v[i].key, key))
			return kvs->v[i].value;
	return NULL;
}

void mdc_kvs_free(struct mdc_kvs *kvs)
{
	for (size_t i = 0; i < kvs->n; i++) {
		free(kvs->v[i].key);
		free(kvs->v[i].value);
	}
	free(kvs->v);
	kvs->v = NULL;
	kvs->n = kvs->cap = 0;
}

/* A new empty record at the end of RECS (NULL on ENOMEM). */
static struct mdc_kvs *recs_new(struct mdc_recs *recs)
{
	if (recs->n == recs->cap) {
		size_t cap = recs->cap ? recs->cap * 2 : 8;
		struct mdc_kvs *v = realloc(recs->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		recs->v = v;
		recs->cap = cap;
	}
	memset(&recs->v[recs->n], 0, sizeof(recs->v[0]));
	return &recs->v[recs->n++];
}

const struct mdc_kvs *mdc_recs_find(const struct mdc_recs *recs, const char *name)
{
	for (size_t i = 0; i < recs->n; i++)
		if (recs->v[i].n && strcmp(recs->v[i].v[0].value, name) == 0)
			return &recs->v[i];
	return NULL;
}

void mdc_recs_free(struct mdc_recs *recs)
{
	for (size_t i = 0; i < recs->n; i++)
		mdc_kvs_free(&recs->v[i]);
	free(recs->v);
	recs->v = NULL;
	recs->n = recs->cap = 0;
}

/* A scontrol key: letters, digits, '_' and the "[0]" of SlurmctldHost[0]. */
static bool is_key(const char *s, size_t n)
{
	if (!n || !isalpha((unsigned char) s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char) s[i]) && !strchr("_[]:/", s[i]))
			return false;
	return true;
}

int mdc_live_parse_config(const char *text, struct mdc_kvs *out, struct mdc_ctx *ctx)
{
	const char *line = text, *nl;
	char *buf = NULL;
	int rc = 0;

	for (; line && *line; line = nl ? nl + 1 : NULL) {
		const char *eq;
		size_t len;
		char *key, *val;

		nl = strchr(line, '\n');
		len = nl ? (size_t) (nl - line) : strlen(line);
		free(buf);
		buf = strndup(line, len);
		if (!buf) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		/* "Key<spaces>= Value": the spaced '=' is what sets a pair
		 * apart from the header and the ping line */
		eq = strstr(buf, " = ");
		if (!eq || isspace((unsigned char) buf[0]))
			continue;
		buf[eq - buf] = '\0';
		key = mdc_trim(buf);
		val = mdc_trim(buf + (eq - buf) + 3);
		if (!is_key(key, strlen(key)))
			continue;
		if ((rc = mdc_kvs_add(out, key, val))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
out:
	free(buf);
	return rc;
}

/* Add the pairs of one line (or continuation line) to REC. */
static int parse_pairs(const char *s, struct mdc_kvs *rec)
{
	while (*s) {
		const char *w, *eq;
		size_t n;

		while (isspace((unsigned char) *s))
			s++;
		if (!*s)
			break;
		w = s;
		while (*s && !isspace((unsigned char) *s))
			s++;
		n = (size_t) (s - w);
		eq = memchr(w, '=', n);
		if (eq && is_key(w, (size_t) (eq - w))) {
			char *k = strndup(w, (size_t) (eq - w));
			char *v = strndup(eq + 1, n - (size_t) (eq - w) - 1);
			int rc = (k && v) ? mdc_kvs_add(rec, k, v) : MDC_ERR_NOMEM;

			free(k);
			free(v);
			if (rc)
				return rc;
		} else if (rec->n) {
			/* a value with spaces: "OS=Linux 6.1.0 #1 SMP" */
			struct mdc_kv *last = &rec->v[rec->n - 1];
			size_t ol = strlen(last->value);
			char *nv = realloc(last->value, ol + 1 + n + 1);

			if (!nv)
				return MDC_ERR_NOMEM;
			nv[ol] = ' ';
			memcpy(nv + ol + 1, w, n);
			nv[ol + 1 + n] = '\0';
			last->value = nv;
		}
	}
	return 0;
}

int mdc_live_parse_records(const char *text, struct mdc_recs *out, struct mdc_ctx *ctx)
{
	const char *line = text, *nl;
	struct mdc_kvs *rec = NULL;
	char *buf = NULL;
	int rc = 0;

	for (; line && *line; line = nl ? nl + 1 : NULL) {
		size_t len;

		nl = strchr(line, '\n');
		len = nl ? (size_t) (nl - line) : strlen(line);
		free(buf);
		if (!(buf = strndup(line, len))) {
			rc = MDC_ERR_NOMEM;
			goto out;
		}
		if (!*mdc_trim(buf)) {
			rec = NULL;	/* blank line: the record ended */
			continue;
		}
		if (!isspace((unsigned char) line[0])) {
			/* "No partitions in the system" and the like are no record */
			const char *eq = strchr(buf, '='), *sp = strpbrk(buf, " \t");

			if (!eq || (sp && sp < eq) || !is_key(buf, (size_t) (eq - buf))) {
				rec = NULL;
				continue;
			}
			if (!(rec = recs_new(out))) {
				rc = MDC_ERR_NOMEM;
				goto out;
			}
		} else if (!rec) {
			continue;
		}
		if ((rc = parse_pairs(buf, rec)))
			goto out;
	}
out:
	free(buf);
	if (rc)
		mdc_nomem(ctx);
	return rc;
}

int mdc_live_parse_nodesets(const char *conf_text, struct mdc_recs *out, struct mdc_ctx *ctx)
{
	const char *line = conf_text, *nl;
	char *buf = NULL;
	int rc = 0;

	for (; line && *line; line = nl ? nl + 1 : NULL) {
		struct mdc_kvs *rec;
		char *s, *hash;
		size_t len;

		nl = strchr(line, '\n');
		len = nl ? (size_t) (nl - line) : strlen(line);
		free(buf);
		if (!(buf = strndup(line, len))) {
			rc = MDC_ERR_NOMEM;
			goto out;
		}
		if ((hash = strchr(buf, '#')))
			*hash = '\0';
		s = mdc_trim(buf);
		if (strncasecmp(s, "NodeSet=", 8) != 0)
			continue;
		if (!(rec = recs_new(out)) || (rc = parse_pairs(s, rec))) {
			rc = MDC_ERR_NOMEM;
			goto out;
		}
	}
out:
	free(buf);
	if (rc)
		mdc_nomem(ctx);
	return rc;
}

/* ---------------------------------------------------------------- running */

int mdc_live_scontrol_path(char **out, struct mdc_ctx *ctx)
{
	const char *env = getenv("MDC_SCONTROL"), *path = getenv("PATH");
	char self[PATH_MAX], real[PATH_MAX];
	char *dirs = NULL, *save = NULL;
	int rc = 0;

	*out = NULL;
	if (env && *env) {
		if (access(env, X_OK) != 0)
			return mdc_fail(ctx, MDC_ERR_NOTFOUND,
					"MDC_SCONTROL '%s' is not an executable: set it to the real scontrol", env);
		*out = strdup(env);
		return *out ? 0 : mdc_nomem(ctx);
	}
	if (!realpath("/proc/self/exe", self))
		self[0] = '\0';
	if (!(dirs = strdup(path && *path ? path : "/usr/bin:/bin"))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *cand = mdc_path_join(*d ? d : ".", "scontrol");

		if (!cand) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		/* never ourselves: mdc-scontrol may be installed as "scontrol" */
		if (access(cand, X_OK) == 0 && realpath(cand, real) && strcmp(real, self) != 0) {
			*out = cand;
			goto out;
		}
		free(cand);
	}
	rc = mdc_fail(ctx, MDC_ERR_NOTFOUND,
		      "no real 'scontrol' on PATH: install slurm-client or set MDC_SCONTROL");
out:
	free(dirs);
	return rc;
}

int mdc_live_run(char *const *args, struct mdc_buf *out, struct mdc_buf *err,
		 int *status, struct mdc_ctx *ctx)
{
	/* a big cluster's `show node` is megabytes; a cut one would be read
	 * as fewer nodes, so more than the cap is an error */
	struct mdc_run_opts o = { .out_cap = 256u * 1024 * 1024 };
	struct mdc_run_result r;
	char *prog = NULL, **argv = NULL;
	size_t n = 0;
	int rc;

	*status = -1;
	if ((rc = mdc_live_scontrol_path(&prog, ctx)))
		goto out;
	while (args[n])
		n++;
	if (!(argv = calloc(n + 2, sizeof(*argv)))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	argv[0] = prog;
	memcpy(argv + 1, args, n * sizeof(*argv));
	if ((rc = mdc_run(argv, &o, out, err, &r, ctx)))
		goto out;
	if (r.truncated) {
		rc = mdc_fail(ctx, MDC_ERR_IO, "'%s' wrote more than %zu MiB", prog,
			      o.out_cap >> 20);
		goto out;
	}
	*status = r.status;
out:
	free(argv);
	free(prog);
	return rc;
}

/* scontrol's first word that is no option: "show" of "-o show part".
 * -M and -u take the next word (scontrol.c's getopt string). */
static const char *live_verb(char *const *args)
{
	for (size_t i = 0; args[i]; i++) {
		if (args[i][0] != '-')
			return args[i];
		if ((!strcmp(args[i], "-M") || !strcmp(args[i], "-u")) && args[i + 1])
			i++;
	}
	return "";
}

/* Whether a failed scontrol run said what slurmctld answers while it
 * reconfigures: for a moment it decodes credentials with the default
 * munge socket and drops the connection (seen on a lab with its own
 * socket), its socket is briefly gone, or a reconfigure that waits for
 * its locks holds the answer past the client's timeout (seen in
 * scontrol_lab.t: `mdcctl drift` just after the service's reload).
 * A read is asked again on any of them.  A change only when the message
 * proves slurmctld never read the request (UNREAD: the connection dropped
 * at the credential, before the RPC is unpacked, or never made): after a
 * timeout it may have been applied, and applying it twice can fail
 * (State=RESUME of a node no longer down) or repeat a side effect. */
static bool live_transient(char *const *args, const char *msg)
{
	static const struct { const char *mark; bool unread; } marks[] = {
		{ "Zero Bytes were transmitted or received", true },
		{ "Protocol authentication error", true },
		{ "Unexpected missing socket error", true },
		{ "Socket timed out on send/recv operation", false },
	};
	static const char *const reads[] = { "show", "ping", NULL };
	const char *verb = live_verb(args);
	bool read = false;

	for (size_t i = 0; reads[i]; i++)
		read |= !strcmp(verb, reads[i]);
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if ((read || marks[i].unread) && strstr(msg, marks[i].mark))
			return true;
	return false;
}

/* Run ARGS, asked again up to three times, 0.2, 0.4 and 0.8 s apart, while
 * it fails as live_transient says (Ctrl-C stops).  OUT may be NULL
 * (inherited stdout); ERR holds the last run's stderr. */
static int live_run_retry(char *const *args, struct mdc_buf *out, struct mdc_buf *err,
			  int *status, struct mdc_ctx *ctx)
{
	size_t base = out ? out->len : 0;
	int rc;

	for (unsigned n = 0;; n++) {
		if ((rc = mdc_live_run(args, out, err, status, ctx)))
			return rc;
		if (*status == 0 || n == 3 || !live_transient(args, mdc_buf_str(err)) ||
		    !mdc_sleep(0.2 * (1u << n), NULL))
			return 0;
		if (out) {
			out->len = base;
			if (out->s)
				out->s[base] = '\0';
		}
		mdc_buf_reset(err);
	}
}

int mdc_live_pass(char *const *args, struct mdc_buf *err, int *status, struct mdc_ctx *ctx)
{
	return live_run_retry(args, NULL, err, status, ctx);
}

int mdc_live_check(char *const *args, struct mdc_buf *out, struct mdc_ctx *ctx)
{
	struct mdc_buf err = MDC_BUF_INIT, tmp = MDC_BUF_INIT;
	struct mdc_buf *o = out ? out : &tmp;
	int status, rc;

	if ((rc = live_run_retry(args, o, &err, &status, ctx)))
		goto out;
	if (status != 0) {
		struct mdc_buf cmd = MDC_BUF_INIT;
		char *msg = mdc_trim((char *) mdc_buf_str(&err));

		for (size_t i = 0; args[i]; i++)
			mdc_buf_addf(&cmd, "%s%s", i ? " " : "", args[i]);
		/* scontrol's message, one line: it names the bad key itself */
		for (char *p = msg; *p; p++)
			if (*p == '\n')
				*p = ' ';
		rc = mdc_fail(ctx, MDC_ERR_IO, "'scontrol %s' failed (exit %d): %s",
			      mdc_buf_str(&cmd), status, *msg ? msg : "no message");
		mdc_buf_free(&cmd);
	}
out:
	mdc_buf_free(&err);
	mdc_buf_free(&tmp);
	return rc;
}

int mdc_live_config(struct mdc_kvs *out, struct mdc_ctx *ctx)
{
	char *args[] = { "show", "config", NULL };
	struct mdc_buf b = MDC_BUF_INIT;
	int rc;

	if (!(rc = mdc_live_check(args, &b, ctx)))
		rc = mdc_live_parse_config(mdc_buf_str(&b), out, ctx);
	mdc_buf_free(&b);
	return rc;
}

int mdc_live_qos(const char *conf_path, struct mdc_strv *names, bool *have_list, bool *enforced,
		 struct mdc_ctx *ctx)
{
	char *args[] = { "show", "assoc_mgr", "flags=qos", NULL };
	struct mdc_kvs conf = MDC_KVS_INIT;
	struct mdc_strv words = MDC_STRV_INIT;
	struct mdc_buf b = MDC_BUF_INIT;
	const char *type, *enf, *line, *eol;
	int rc;

	*have_list = *enforced = false;
	if (conf_path && access(conf_path, R_OK))
		return mdc_fail(ctx, MDC_ERR_NOTFOUND, "no slurm.conf at %s to reach slurmctld with",
				conf_path);
	if ((rc = mdc_live_config(&conf, ctx)))
		goto out;
	/* read_config.c: "qos" and "all" set ACCOUNTING_ENFORCE_QOS */
	enf = mdc_kvs_get(&conf, "AccountingStorageEnforce");
	if (enf && (rc = mdc_strv_split(&words, enf, ","))) {
		mdc_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < words.n; i++)
		*enforced |= !strcasecmp(mdc_trim(words.v[i]), "qos") || !strcasecmp(words.v[i], "all");
	/* without slurmdbd slurmctld has no QOS list and takes any name */
	type = mdc_kvs_get(&conf, "AccountingStorageType");
	if (!type || !strstr(type, "slurmdbd"))
		goto out;
	if ((rc = mdc_live_check(args, &b, ctx)))
		goto out;
	*have_list = true;
	for (line = mdc_buf_str(&b); *line; line = *eol ? eol + 1 : eol) {
		const char *paren;

		eol = line + strcspn(line, "\n");
		if (strncmp(line, "QOS=", 4) || !(paren = memchr(line, '(', (size_t) (eol - line))))
			continue;
		if (mdc_strv_pushf(names, "%.*s", (int) (paren - line - 4), line + 4)) {
			rc = mdc_nomem(ctx);
			break;
		}
	}
out:
	mdc_strv_free(&words);
	mdc_kvs_free(&conf);
	mdc_buf_free(&b);
	return rc;
}

int mdc_live_partitions(struct mdc_recs *out, struct mdc_ctx *ctx)
{
	char *args[] = { "show", "partition", "--oneliner", NULL };
	struct mdc_buf b = MDC_BUF_INIT;
	int rc;

	if (!(rc = mdc_live_check(args, &b, ctx)))
		rc = mdc_live_parse_records(mdc_buf_str(&b), out, ctx);
	mdc_buf_free(&b);
	return rc;
}

int mdc_live_nodes(const char *nodes, struct mdc_recs *out, struct mdc_ctx *ctx)
{
	char *args[] = { "show", "node", "--oneliner", (char *) nodes, NULL };
	struct mdc_buf b = MDC_BUF_INIT;
	int rc;

	if (!(rc = mdc_live_check(args, &b, ctx)))
		rc = mdc_live_parse_records(mdc_buf_str(&b), out, ctx);
	mdc_buf_free(&b);
	return rc;
}

int mdc_live_hostnames(const char *hostlist, struct mdc_strv *out, struct mdc_ctx *ctx)
{
	char *args[] = { "show", "hostnames", (char *) hostlist, NULL };
	struct mdc_buf b = MDC_BUF_INIT;
	int rc;

	if (!(rc = mdc_live_check(args, &b, ctx)) &&
	    (rc = mdc_strv_split(out, mdc_buf_str(&b), "\n")))
		mdc_nomem(ctx);
	mdc_buf_free(&b);
	return rc;
}

int mdc_live_update(char *const *args, struct mdc_ctx *ctx)
{
	return mdc_live_check(args, NULL, ctx);
}

/* Pools (NodeSet names) of the live slurm.conf with their expanded nodes:
 * NAMES[i] holds NODES[i]. */
struct poolmap {
	struct mdc_strv names;
	struct mdc_strv *nodes;
};

static void poolmap_free(struct poolmap *pm)
{
	for (size_t i = 0; i < pm->names.n; i++)
		mdc_strv_free(&pm->nodes[i]);
	free(pm->nodes);
	mdc_strv_free(&pm->names);
}

static int poolmap_load(const char *conf_path, struct poolmap *pm, struct mdc_ctx *ctx)
{
	struct mdc_recs recs = MDC_RECS_INIT;
	char *text = NULL;
	int rc;

	if ((rc = mdc_read_regular(conf_path, SC_FILE_MAX_BYTES, 0, &text, NULL, ctx)))
		goto out;
	if ((rc = mdc_live_parse_nodesets(text, &recs, ctx)))
		goto out;
	if (!(pm->nodes = calloc(recs.n + 1, sizeof(*pm->nodes)))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < recs.n; i++) {
		const char *nodes = mdc_kvs_get(&recs.v[i], "Nodes");

		if ((rc = mdc_strv_push(&pm->names, recs.v[i].v[0].value))) {
			mdc_nomem(ctx);
			goto out;
		}
		if (nodes && *nodes &&
		    (rc = mdc_live_hostnames(nodes, &pm->nodes[i], ctx)))
			goto out;
	}
out:
	mdc_recs_free(&recs);
	free(text);
	return rc;
}

/* Index of the pool holding NODE, or -1. */
static long poolmap_find(const struct poolmap *pm, const char *node)
{
	for (size_t i = 0; i < pm->names.n; i++)
		if (mdc_strv_has(&pm->nodes[i], node))
			return (long) i;
	return -1;
}

int mdc_live_pool_of(const char *conf_path, const char *hostlist, char **pool,
		     bool *whole, struct mdc_ctx *ctx)
{
	struct poolmap pm = { MDC_STRV_INIT, NULL };
	struct mdc_strv nodes = MDC_STRV_INIT;
	long found = -1;
	int rc;

	*pool = NULL;
	*whole = false;
	if ((rc = poolmap_load(conf_path, &pm, ctx)))
		goto out;
	if ((rc = mdc_live_hostnames(hostlist, &nodes, ctx)))
		goto out;
	for (size_t i = 0; i < nodes.n; i++) {
		long p = poolmap_find(&pm, nodes.v[i]);

		if (p < 0) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL,
				      "node '%s' is in no node pool (no NodeSet line of '%s' holds it)",
				      nodes.v[i], conf_path);
			goto out;
		}
		if (found >= 0 && p != found) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL,
				      "nodes '%s' span node pools '%s' and '%s': update one pool at a time",
				      hostlist, pm.names.v[found], pm.names.v[p]);
			goto out;
		}
		found = p;
	}
	if (found < 0) {
		rc = mdc_fail(ctx, MDC_ERR_INVAL, "no node in '%s'", hostlist);
		goto out;
	}
	*whole = true;
	for (size_t i = 0; i < pm.nodes[found].n; i++)
		if (!mdc_strv_has(&nodes, pm.nodes[found].v[i]))
			*whole = false;
	if (!(*pool = strdup(pm.names.v[found])))
		rc = mdc_nomem(ctx);
out:
	mdc_strv_free(&nodes);
	poolmap_free(&pm);
	return rc;
}

int mdc_live_pools_covering(const char *conf_path, const char *hostlist,
			    struct mdc_strv *pools, bool *exact, struct mdc_ctx *ctx)
{
	struct poolmap pm = { MDC_STRV_INIT, NULL };
	struct mdc_strv items = MDC_STRV_INIT, nodes = MDC_STRV_INIT;
	int rc;

	if ((rc = poolmap_load(conf_path, &pm, ctx)))
		goto out;
	/* NodeSet names given directly are pools as they are; the rest are
	 * host lists (which may hold commas inside brackets) */
	{
		struct mdc_buf rest = MDC_BUF_INIT;
		struct mdc_strv list = MDC_STRV_INIT;

		rc = mdc_strv_split_list(&list, hostlist);
		for (size_t i = 0; !rc && i < list.n; i++) {
			const char *item = list.v[i];

			if (!strcasecmp(item, "ALL")) {
				/* Slurm's every node: every pool, as the plan
				 * reads it (sc_translate nodes_to_pools) */
				for (size_t k = 0; !rc && k < pm.names.n; k++)
					if (!mdc_strv_has(pools, pm.names.v[k]))
						rc = mdc_strv_push(pools, pm.names.v[k]);
			} else if (mdc_strv_has(&pm.names, item)) {
				if (!mdc_strv_has(pools, item))
					rc = mdc_strv_push(pools, item);
			} else {
				rc = mdc_buf_addf(&rest, "%s%s", rest.len ? "," : "", item);
			}
		}
		mdc_strv_free(&list);
		if (!rc && rest.len)
			rc = mdc_strv_push(&items, mdc_buf_str(&rest));
		mdc_buf_free(&rest);
		if (rc) {
			mdc_nomem(ctx);
			goto out;
		}
	}
	if (items.n && (rc = mdc_live_hostnames(items.v[0], &nodes, ctx)))
		goto out;
	for (size_t i = 0; i < nodes.n; i++) {
		long p = poolmap_find(&pm, nodes.v[i]);

		if (p < 0) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL,
				      "node '%s' is in no node pool: partitions of a managed cluster hold whole pools (NodeSet lines of '%s')",
				      nodes.v[i], conf_path);
			goto out;
		}
		if (!mdc_strv_has(pools, pm.names.v[p]) &&
		    (rc = mdc_strv_push(pools, pm.names.v[p]))) {
			mdc_nomem(ctx);
			goto out;
		}
	}
	if (exact) {
		/* node names given: every node of their pools must be among them */
		*exact = true;
		for (size_t i = 0; i < pm.names.n; i++) {
			bool named = false, has_node = false;

			for (size_t k = 0; k < pm.nodes[i].n; k++) {
				bool in = mdc_strv_has(&nodes, pm.nodes[i].v[k]);

				named |= in;
				has_node |= !in;
			}
			/* a pool reached through a node but missing others */
			if (named && has_node)
				*exact = false;
		}
	}
out:
	mdc_strv_free(&items);
	mdc_strv_free(&nodes);
	poolmap_free(&pm);
	return rc;
}

/* ---------------------------------------------------------------- values */

/* One comparison for plan, verify, drift and scontrol: mdc_value's. */
bool mdc_live_value_eq(const char *key, const char *a, const char *b)
{
	return mdc_value_equal_shown(key, a, b);
}

/* Job states that no longer hold a partition (scontrol's names). */
static const char *const live_done_states[] = {
	"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
	"BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", NULL,
};

/* The jobs not finished (any state but live_done_states), from `scontrol
 * show job --oneliner`: FN gets each one's record, id and state, until it
 * fails.  CONF_PATH as in mdc_live_partition_jobs. */
static int live_jobs_each(const char *conf_path,
			  int (*fn)(const struct mdc_kvs *job, const char *id, const char *state, void *arg,
				    struct mdc_ctx *ctx),
			  void *arg, struct mdc_ctx *ctx)
{
	char *args[] = { "show", "job", "--oneliner", NULL };
	struct mdc_buf b = MDC_BUF_INIT;
	struct mdc_recs recs = MDC_RECS_INIT;
	const char *text;
	int rc;

	/* without its slurm.conf Slurm's clients retry for 60 s before failing */
	if (conf_path && access(conf_path, R_OK))
		return mdc_fail(ctx, MDC_ERR_NOTFOUND, "no slurm.conf at %s to reach slurmctld with",
				conf_path);
	if ((rc = mdc_live_check(args, &b, ctx)))
		goto out;
	text = mdc_buf_str(&b);
	if (strstr(text, "No jobs in the system"))
		goto out;
	if ((rc = mdc_live_parse_records(text, &recs, ctx)))
		goto out;
	for (size_t i = 0; i < recs.n && !rc; i++) {
		const char *id = mdc_kvs_get(&recs.v[i], "JobId");
		const char *state = mdc_kvs_get(&recs.v[i], "JobState");
		bool done = false;

		for (size_t k = 0; state && live_done_states[k]; k++)
			done |= !strcmp(state, live_done_states[k]);
		if (id && !done)
			rc = fn(&recs.v[i], id, state ? state : "?", arg, ctx);
	}
out:
	mdc_recs_free(&recs);
	mdc_buf_free(&b);
	return rc;
}

struct live_jobs_in {
	const char *partition;	/* or */
	const char *pool;
	const struct mdc_strv *gone;	/* the pool's nodes that go */
	struct mdc_strv *jobs;
};

static int live_job_in_partition(const struct mdc_kvs *job, const char *id, const char *state,
				 void *arg, struct mdc_ctx *ctx)
{
	struct live_jobs_in *q = arg;
	const char *parts = mdc_kvs_get(job, "Partition");
	struct mdc_strv pv = MDC_STRV_INIT;
	int rc = 0;

	/* a pending job may name several partitions ("a,b") */
	if (!parts)
		return 0;
	if (mdc_strv_split(&pv, parts, ","))
		rc = mdc_nomem(ctx);
	else if (mdc_strv_has(&pv, q->partition) && mdc_strv_pushf(q->jobs, "%s (%s)", id, state))
		rc = mdc_nomem(ctx);
	mdc_strv_free(&pv);
	return rc;
}

int mdc_live_partition_jobs(const char *conf_path, const char *partition, struct mdc_strv *jobs,
			    struct mdc_ctx *ctx)
{
	struct live_jobs_in q = { .partition = partition, .jobs = jobs };

	return live_jobs_each(conf_path, live_job_in_partition, &q, ctx);
}

/* K when NODE is the renderer's node "POOL-K" (sc_render), else -1. */
static long live_node_index(const char *node, const char *pool)
{
	size_t n = strlen(pool);
	char *end;
	long k;

	if (strncmp(node, pool, n) || node[n] != '-' || !isdigit((unsigned char) node[n + 1]))
		return -1;
	k = strtol(node + n + 1, &end, 10);
	return *end ? -1 : k;
}

/* The NODES (the pool's live NodeSet) that a pool keeping KEEP nodes
 * loses (KEEP < 0: all).  "POOL-K" goes when K >= KEEP; the service
 * removes nodes of other names too (a base's own, such as the lab's host
 * name: issue 24.5), so those fill the places the POOL-K nodes kept
 * leave, in NodeSet order, and the rest go. */
static int live_pool_gone(const struct mdc_strv *nodes, const char *pool, long keep,
			  struct mdc_strv *gone, struct mdc_ctx *ctx)
{
	long room = keep;

	for (size_t i = 0; keep >= 0 && i < nodes->n; i++) {
		long k = live_node_index(nodes->v[i], pool);

		if (k >= 0 && k < keep)
			room--;
	}
	for (size_t i = 0; i < nodes->n; i++) {
		long k = live_node_index(nodes->v[i], pool);
		bool go = keep < 0 || (k >= 0 ? k >= keep : room-- <= 0);

		if (go && mdc_strv_push(gone, nodes->v[i]))
			return mdc_nomem(ctx);
	}
	return 0;
}

/* Could hostlist LIST hold NODE?  Its name up to the first digit (the
 * part a hostlist range leaves as it is) is in LIST: a cheap test before
 * expanding LIST with scontrol. */
static bool live_list_may_hold(const char *list, const char *node)
{
	size_t n = strcspn(node, "0123456789");
	char stem[256];

	if (n >= sizeof(stem))
		n = sizeof(stem) - 1;
	memcpy(stem, node, n);
	stem[n] = '\0';
	return strstr(list, stem) != NULL;
}

static int live_job_on_nodes(const struct mdc_kvs *job, const char *id, const char *state,
			     void *arg, struct mdc_ctx *ctx)
{
	struct live_jobs_in *q = arg;
	const char *list = mdc_kvs_get(job, "NodeList");
	struct mdc_strv on = MDC_STRV_INIT;
	int rc;

	bool may = false;

	/* a pending job holds no node yet, but one that asked for nodes by
	 * name (-w) can never run once they are gone; only a list that may
	 * hold a node the pool loses is expanded (one scontrol each) */
	if (!list || !*list || !strcmp(list, "(null)"))
		list = mdc_kvs_get(job, "ReqNodeList");
	if (!list || !*list || !strcmp(list, "(null)"))
		return 0;
	for (size_t k = 0; k < q->gone->n && !may; k++)
		may = live_list_may_hold(list, q->gone->v[k]);
	if (!may)
		return 0;
	if ((rc = mdc_live_hostnames(list, &on, ctx)))
		return rc;
	for (size_t k = 0; k < on.n; k++) {
		if (!mdc_strv_has(q->gone, on.v[k]))
			continue;
		if (mdc_strv_pushf(q->jobs, "%s (%s on %s)", id, state, on.v[k]))
			rc = mdc_nomem(ctx);
		break;
	}
	mdc_strv_free(&on);
	return rc;
}

int mdc_live_pool_jobs(const char *conf_path, const char *pool, long keep, struct mdc_strv *jobs,
		       struct mdc_ctx *ctx)
{
	struct poolmap pm = { MDC_STRV_INIT, NULL };
	struct mdc_strv gone = MDC_STRV_INIT;
	struct live_jobs_in q = { .pool = pool, .gone = &gone, .jobs = jobs };
	long p = -1;
	int rc;

	if (!conf_path)
		return mdc_fail(ctx, MDC_ERR_NOTFOUND, "no slurm.conf to read the pools' nodes from");
	if ((rc = poolmap_load(conf_path, &pm, ctx)))
		goto out;
	for (size_t i = 0; i < pm.names.n; i++)
		if (!strcmp(pm.names.v[i], pool))
			p = (long) i;
	if (p >= 0 && (rc = live_pool_gone(&pm.nodes[p], pool, keep, &gone, ctx)))
		goto out;
	if (gone.n)
		rc = live_jobs_each(conf_path, live_job_on_nodes, &q, ctx);
out:
	mdc_strv_free(&gone);
	poolmap_free(&pm);
	return rc;
}
