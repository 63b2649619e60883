/* mdc_managed.c - the managed partition set and the check both plugins
 * share.  (owner: plugins) */
/* deliberate unit: mdc_jobs reads mdc.conf with mdc_managed, which parses MaxTime with mdc_jobs */
#include "config.h"
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "mdc_jobs.h"
#include "mdc_managed.h"
#include "sc_conf.h"
#include "sc_options.h"

void mdc_managed_free(struct mdc_managed *m)
{
	if (!m)
		return;
	free(m->path);
	mdc_strv_free(&m->parts);
	free(m->default_part);
	free(m->index);
	sc_conf_free(m->conf);
	free(m);
}

static size_t mdc_managed_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 ^ (unsigned char) *s++;
	return h;
}

/* The slot holding NAME, or the empty slot where it would go. */
static const char **mdc_managed_slot(const struct mdc_managed *m, const char *name)
{
	size_t i = mdc_managed_hash(name) & (m->index_cap - 1);

	while (m->index[i] && strcmp(m->index[i], name))
		i = (i + 1) & (m->index_cap - 1);
	return &m->index[i];
}

/* Add NAME (a partition line) unless already there; 0 or MDC_ERR_NOMEM. */
static int mdc_managed_add(struct mdc_managed *m, const char *name)
{
	const char **slot;

	if (2 * (m->parts.n + 1) >= m->index_cap) {
		size_t cap = m->index_cap ? 2 * m->index_cap : 64;
		const char **old = m->index;
		size_t old_cap = m->index_cap;

		if (!(m->index = calloc(cap, sizeof(*m->index)))) {
			m->index = old;
			return MDC_ERR_NOMEM;
		}
		m->index_cap = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i])
				*mdc_managed_slot(m, old[i]) = old[i];
		free(old);
	}
	slot = mdc_managed_slot(m, name);
	if (*slot)
		return 0;
	if (mdc_strv_push(&m->parts, name))
		return MDC_ERR_NOMEM;
	*slot = m->parts.v[m->parts.n - 1];
	return 0;
}

/* Default=, RootOnly=: as slurmctld reads them (its words, sc_value_bool) */
static bool mdc_managed_yes(const char *v)
{
	return sc_value_bool(v) == 1;
}

int mdc_managed_load(const char *path, struct mdc_managed **out, struct mdc_ctx *ctx)
{
	struct sc_conf *conf = NULL;
	struct mdc_managed *m = NULL;
	const struct sc_record *r;
	int rc;

	*out = NULL;
	if (!(conf = sc_conf_new()) || !(m = calloc(1, sizeof(*m))) ||
	    !(m->path = strdup(path))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	/* lenient: the plugins only need partition names, and must not stop
	 * working because the file has a key newer than our tables */
	conf->flags = SC_PARSE_LENIENT;
	if ((rc = sc_conf_load_file(conf, path, ctx)))
		goto out;
	for (size_t i = 0; i < conf->nrecs; i++) {
		r = &conf->recs[i];
		if (r->type != SC_REC_PARTITION || r->is_default || !r->name)
			continue;
		if (mdc_managed_add(m, r->name)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		/* the last Default=YES wins, as in Slurm */
		if (mdc_managed_yes(sc_record_get(r, "Default"))) {
			free(m->default_part);
			if (!(m->default_part = strdup(r->name))) {
				rc = mdc_nomem(ctx);
				goto out;
			}
		}
	}
	m->conf = conf;
	conf = NULL;
	*out = m;
	m = NULL;
out:
	mdc_managed_free(m);
	sc_conf_free(conf);
	return rc;
}

/* KEY of partition record R, else of the PartitionName=DEFAULT line
 * before it (Slurm applies the last one above), else NULL. */
static const char *mdc_managed_part_get(const struct sc_conf *c, size_t ri, const char *key)
{
	const char *v = sc_record_get(&c->recs[ri], key);

	for (size_t i = ri; !v && i-- > 0;)
		if (c->recs[i].type == SC_REC_PARTITION && c->recs[i].is_default)
			v = sc_record_get(&c->recs[i], key);
	return v;
}

/* Is WORD in the comma list LIST? */
static bool mdc_managed_in_list(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, word, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* Is UID (primary group GID) in one of the groups of LIST? */
static bool mdc_managed_in_groups(const char *list, uid_t uid, gid_t gid)
{
	struct passwd pw, *pwp = NULL;
	char buf[4096];
	gid_t groups[256];
	int ng = (int) (sizeof(groups) / sizeof(groups[0]));

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) || !pwp)
		return false;
	if (getgrouplist(pw.pw_name, gid, groups, &ng) < 0)
		ng = (int) (sizeof(groups) / sizeof(groups[0]));
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");
		char name[256];
		struct group gr, *grp = NULL;
		gid_t g = 0;

		snprintf(name, sizeof(name), "%.*s", (int) len, p);
		p += len + (p[len] == ',');
		/* a big group's member list needs a big buffer: grow it (up
		 * to 1 MiB) rather than take ERANGE for "not a member" */
		for (size_t size = 8192; size <= (1u << 20); size *= 4) {
			char *gbuf = malloc(size);
			int err;

			if (!gbuf)
				break;
			err = getgrnam_r(name, &gr, gbuf, size, &grp);
			g = grp ? grp->gr_gid : 0;
			free(gbuf);
			if (err != ERANGE)
				break;
			grp = NULL;
		}
		if (!grp)
			continue;
		for (int i = 0; i < ng; i++)
			if (groups[i] == g)
				return true;
	}
	return false;
}

int mdc_managed_access(const struct mdc_managed *m, const char *part,
		       const struct mdc_managed_job *job, uid_t slurm_uid, struct mdc_ctx *ctx)
{
	const struct sc_conf *c = m ? m->conf : NULL;
	struct mdc_managed_part p;
	size_t ri = 0;
	bool found = false;

	for (size_t i = 0; c && i < c->nrecs; i++)
		if (c->recs[i].type == SC_REC_PARTITION && !c->recs[i].is_default &&
		    c->recs[i].name && !strcmp(c->recs[i].name, part)) {
			ri = i;
			found = true;
		}
	if (!found)
		return mdc_fail(ctx, MDC_ERR_NOTFOUND, "partition '%s' is not in the managed slurm.conf",
				part);
	p = (struct mdc_managed_part) {
		.state = mdc_managed_part_get(c, ri, "State"),
		.max_time = mdc_managed_part_get(c, ri, "MaxTime"),
		.root_only = mdc_managed_part_get(c, ri, "RootOnly"),
		.allow_groups = mdc_managed_part_get(c, ri, "AllowGroups"),
		.allow_accounts = mdc_managed_part_get(c, ri, "AllowAccounts"),
		.deny_accounts = mdc_managed_part_get(c, ri, "DenyAccounts"),
		.allow_qos = mdc_managed_part_get(c, ri, "AllowQos"),
		.deny_qos = mdc_managed_part_get(c, ri, "DenyQos"),
	};
	return mdc_managed_access_part(&p, part, job, slurm_uid, ctx);
}

int mdc_managed_access_part(const struct mdc_managed_part *p, const char *part,
			    const struct mdc_managed_job *job, uid_t slurm_uid,
			    struct mdc_ctx *ctx)
{
	/* an allow list and a deny list per value the job names */
	const struct {
		const char *allow, *deny, *key, *dkey, *what, *val;
	} lists[] = {
		{ p->allow_accounts, p->deny_accounts, "AllowAccounts", "DenyAccounts", "account",
		  job->account },
		{ p->allow_qos, p->deny_qos, "AllowQos", "DenyQos", "QOS", job->qos },
	};
	bool admin = job->uid == 0 || job->uid == slurm_uid;
	const char *v;

	v = p->state;
	if (v && strcasecmp(v, "UP"))
		return mdc_fail(ctx, MDC_ERR_REFUSED, "partition '%s' is State=%s: its jobs do not run",
				part, v);
	v = p->max_time;
	if (v && job->time_limit && strcasecmp(v, "INFINITE") && strcasecmp(v, "UNLIMITED")) {
		struct mdc_ctx pctx = { 0 };
		uint32_t secs;

		/* slurmctld would move the job and leave it pending there for
		 * ever (PartitionTimeLimit); an unreadable MaxTime is
		 * slurmctld's to judge */
		if (!mdc_jobs_duration_parse(v, &secs, &pctx) &&
		    (uint64_t) job->time_limit * 60 > secs)
			return mdc_fail(ctx, MDC_ERR_REFUSED,
					"the job's time limit of %u minutes is above the MaxTime=%s of "
					"partition '%s'", job->time_limit, v, part);
	}
	v = p->root_only;
	if (v && mdc_managed_yes(v) && !admin)
		return mdc_fail(ctx, MDC_ERR_REFUSED, "partition '%s' is RootOnly=YES", part);
	v = p->allow_groups;
	if (v && *v && strcasecmp(v, "ALL") && !admin &&
	    !mdc_managed_in_groups(v, job->uid, job->gid))
		return mdc_fail(ctx, MDC_ERR_REFUSED,
				"uid %u is in none of the AllowGroups=%s of partition '%s'",
				(unsigned) job->uid, v, part);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		if (!lists[i].val || !*lists[i].val)
			continue;
		v = lists[i].allow;
		if (v && *v && strcasecmp(v, "ALL") && !mdc_managed_in_list(v, lists[i].val))
			return mdc_fail(ctx, MDC_ERR_REFUSED, "%s '%s' is not in the %s=%s of partition '%s'",
					lists[i].what, lists[i].val, lists[i].key, v, part);
		v = lists[i].deny;
		if (v && mdc_managed_in_list(v, lists[i].val))
			return mdc_fail(ctx, MDC_ERR_REFUSED, "%s '%s' is in the %s=%s of partition '%s'",
					lists[i].what, lists[i].val, lists[i].dkey, v, part);
	}
	return 0;
}

bool mdc_managed_has(const struct mdc_managed *m, const char *name)
{
	return m->index_cap && *mdc_managed_slot(m, name);
}

int mdc_managed_check(const struct mdc_managed *m, const char *parts, char **bad,
		      struct mdc_ctx *ctx)
{
	struct mdc_strv req = MDC_STRV_INIT;
	char *list = NULL;
	int rc = 0;

	if (bad)
		*bad = NULL;
	/* no partition: the default one, which is managed if the file names
	 * one (without a default Slurm itself refuses the job) */
	if (!parts || !*parts)
		goto out;
	if (mdc_strv_split(&req, parts, ",")) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < req.n; i++) {
		if (mdc_managed_has(m, req.v[i]))
			continue;
		if (!(list = mdc_strv_join(&m->parts, ", ")) ||
		    (bad && !(*bad = strdup(req.v[i])))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		rc = mdc_fail(ctx, MDC_ERR_NOTFOUND,
			      "partition '%s' exists only at runtime (it is not in '%s') and "
			      "disappears at the next regeneration of slurm.conf: persist it with "
			      "'mdc-scontrol create PartitionName=%s ...' or use a managed "
			      "partition (%s)", req.v[i], m->path, req.v[i],
			      *list ? list : "none");
		goto out;
	}
out:
	free(list);
	mdc_strv_free(&req);
	return rc;
}

const char *mdc_managed_default_path(void)
{
	const char *p = getenv("SLURM_CONF");

	return p && *p ? p : MDC_MANAGED_SLURM_CONF;
}

int mdc_managed_conf_getv(const char *path, const char *const *keys, size_t n,
			  bool missing_ok, char **vals, struct mdc_ctx *ctx)
{
	char *text = NULL, *line, *next, *p, *eq, *v;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++)
		vals[i] = NULL;
	if (missing_ok && access(path, F_OK) != 0 && errno == ENOENT)
		return 0;
	/* never blocks (a FIFO here used to wedge every sbatch): a regular
	 * file only, opened O_NONBLOCK, bounded */
	if ((rc = mdc_read_regular(path, MDC_MANAGED_CONF_MAX, 0, &text, NULL, ctx)))
		goto out;
	for (line = text; line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if ((p = strchr(line, '#')))
			*p = '\0';
		if (!(eq = strchr(line, '=')))
			continue;
		*eq = '\0';
		line = mdc_trim(line);
		for (i = 0; i < n && !mdc_key_eq(line, keys[i]); i++)
			;
		if (i == n)
			continue;
		v = mdc_trim(eq + 1);
		free(vals[i]);
		if (!(vals[i] = strdup(v))) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
out:
	if (rc)
		for (i = 0; i < n; i++) {
			free(vals[i]);
			vals[i] = NULL;
		}
	free(text);
	return rc;
}

int mdc_managed_conf_get(const char *path, const char *key, bool missing_ok,
			 char **val, struct mdc_ctx *ctx)
{
	return mdc_managed_conf_getv(path, &key, 1, missing_ok, val, ctx);
}
