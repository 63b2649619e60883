/* mdc_jobs.c - the job wait policy: parsing, site defaults, resolution and
 * the AdminComment record.  No Slurm calls, no network: linked into both
 * plugins.  (owner: plugins) */
/* deliberate unit: mdc_jobs reads mdc.conf with mdc_managed, which parses MaxTime with mdc_jobs */
#define _GNU_SOURCE	/* asprintf */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_jobs.h"
#include "mdc_managed.h"
#include "mdc_str.h"

#define MDC_JOBS_TAG "mdc:"

/* Copy a name already checked by mdc_jobs_part_check (it fits). */
static void jobs_copy(char dst[MDC_JOBS_PART_MAX], const char *src)
{
	size_t len = strlen(src);

	if (len >= MDC_JOBS_PART_MAX)
		len = MDC_JOBS_PART_MAX - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* Digits only, into *V (no sign, no overflow past 10^9). */
static bool jobs_num(const char *s, size_t len, unsigned long *v)
{
	*v = 0;
	if (!len || len > 9)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char) s[i]))
			return false;
		*v = *v * 10 + (unsigned long) (s[i] - '0');
	}
	return true;
}

/* Slurm's time_str2secs grammar (src/common/parse_time.c): [D-]A[:B[:C]]
 * where, without days, A alone is minutes, A:B minutes:seconds and A:B:C
 * hours:minutes:seconds; with days, A is hours, B minutes, C seconds. */
static bool jobs_slurm_time(const char *s, unsigned long *secs)
{
	unsigned long days = 0, f[3] = { 0, 0, 0 };
	const char *dash = strchr(s, '-'), *p = s;
	size_t n = 0;
	bool has_days = dash != NULL;

	if (has_days) {
		if (!jobs_num(s, (size_t) (dash - s), &days))
			return false;
		p = dash + 1;
	}
	for (;;) {
		size_t len = strcspn(p, ":");

		if (n == 3 || !jobs_num(p, len, &f[n++]))
			return false;
		if (!p[len])
			break;
		p += len + 1;
	}
	if (has_days)
		*secs = days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
	else if (n == 1)
		*secs = f[0] * 60;
	else if (n == 2)
		*secs = f[0] * 60 + f[1];
	else
		*secs = f[0] * 3600 + f[1] * 60 + f[2];
	return true;
}

int mdc_jobs_duration_parse(const char *s, uint32_t *secs, struct mdc_ctx *ctx)
{
	static const struct { char unit; unsigned long mult; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	unsigned long v = 0;
	size_t len = s ? strlen(s) : 0;
	bool ok = false;

	if (len && isdigit((unsigned char) s[0]))
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (tolower((unsigned char) s[len - 1]) == units[i].unit &&
			    jobs_num(s, len - 1, &v)) {
				v *= units[i].mult;
				ok = true;
				break;
			}
	if (!ok && len)
		ok = jobs_slurm_time(s, &v);
	if (!ok)
		return mdc_fail(ctx, MDC_ERR_INVAL, "'%s' is not a duration: use minutes, "
				"MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or 30s/10m/2h/1d",
				s ? s : "");
	if (v == 0 || v > MDC_JOBS_WAIT_LIMIT)
		return mdc_fail(ctx, MDC_ERR_INVAL, "'%s' is out of range: a wait is between "
				"1 second and 366 days", s);
	*secs = (uint32_t) v;
	return 0;
}

static const char *const jobs_action_names[] = {
	[MDC_JOBS_NONE] = "none",
	[MDC_JOBS_FAIL] = "fail",
	[MDC_JOBS_FALL_BACK] = "fall-back-to-on-demand",
};

const char *mdc_jobs_action_name(enum mdc_jobs_action a)
{
	return (size_t) a < sizeof(jobs_action_names) / sizeof(jobs_action_names[0]) ?
		jobs_action_names[a] : "?";
}

int mdc_jobs_action_parse(const char *s, enum mdc_jobs_action *out, struct mdc_ctx *ctx)
{
	for (size_t i = MDC_JOBS_FAIL; i < sizeof(jobs_action_names) / sizeof(jobs_action_names[0]); i++)
		if (s && !strcasecmp(s, jobs_action_names[i])) {
			*out = (enum mdc_jobs_action) i;
			return 0;
		}
	return mdc_fail(ctx, MDC_ERR_INVAL, "'%s' is not an action: use fail or "
			"fall-back-to-on-demand", s ? s : "");
}

int mdc_jobs_part_check(const char *name, struct mdc_ctx *ctx)
{
	size_t len = name ? strlen(name) : 0;

	if (!len || len >= MDC_JOBS_PART_MAX)
		return mdc_fail(ctx, MDC_ERR_INVAL, "a partition name has 1 to %d characters",
				MDC_JOBS_PART_MAX - 1);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char) name[i] <= ' ' || name[i] == 0x7f || name[i] == ',' ||
		    name[i] == '=')
			return mdc_fail(ctx, MDC_ERR_INVAL, "a partition name has no comma, "
					"'=', whitespace or control character");
	return 0;
}

void mdc_jobs_site_free(struct mdc_jobs_site *site)
{
	free(site->defaults);
	memset(site, 0, sizeof(*site));
}

/* One JobWaitDefault entry PART=WAIT/ACTION[/FALLBACK] (modified in place). */
static int jobs_site_entry(char *e, struct mdc_jobs_site_default *d, struct mdc_ctx *ctx)
{
	char *eq = strchr(e, '='), *wait, *act, *fb = NULL;

	if (!eq)
		return mdc_fail(ctx, MDC_ERR_INVAL, "no '='");
	*eq = '\0';
	wait = eq + 1;
	if (!(act = strchr(wait, '/')))
		return mdc_fail(ctx, MDC_ERR_INVAL, "no '/ACTION' after the wait");
	*act++ = '\0';
	if ((fb = strchr(act, '/')))
		*fb++ = '\0';
	if (mdc_jobs_part_check(e, ctx) || mdc_jobs_duration_parse(wait, &d->req.wait, ctx) ||
	    mdc_jobs_action_parse(act, &d->req.action, ctx))
		return MDC_ERR_INVAL;
	if (d->req.action == MDC_JOBS_FALL_BACK) {
		if (!fb || mdc_jobs_part_check(fb, ctx))
			return mdc_fail(ctx, MDC_ERR_INVAL, "fall-back-to-on-demand needs "
					"'/FALLBACK_PARTITION'");
		jobs_copy(d->req.fallback, fb);
	} else if (fb) {
		return mdc_fail(ctx, MDC_ERR_INVAL, "fail takes no fallback partition");
	}
	jobs_copy(d->part, e);
	return 0;
}

int mdc_jobs_site_parse(const char *max_wait, const char *defaults, struct mdc_jobs_site *site,
			struct mdc_ctx *ctx)
{
	struct mdc_strv sv = { 0 };
	int rc = 0;

	memset(site, 0, sizeof(*site));
	if (max_wait && *max_wait && mdc_jobs_duration_parse(max_wait, &site->max_wait, ctx)) {
		mdc_ctx_prefix(ctx, "JobWaitMax");
		return MDC_ERR_INVAL;
	}
	if (!defaults || !*defaults)
		return 0;
	if (mdc_strv_split(&sv, defaults, " \t")) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	if (sv.n && !(site->defaults = calloc(sv.n, sizeof(*site->defaults)))) {
		rc = mdc_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < sv.n; i++) {
		char entry[512];

		snprintf(entry, sizeof(entry), "%s", sv.v[i]);
		if (jobs_site_entry(entry, &site->defaults[site->n], ctx)) {
			mdc_ctx_prefix(ctx, "JobWaitDefault entry '%s' (PART=WAIT/ACTION[/FALLBACK])",
				       sv.v[i]);
			rc = MDC_ERR_INVAL;
			goto out;
		}
		if (site->max_wait && site->defaults[site->n].req.wait > site->max_wait) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "JobWaitDefault entry '%s': the wait is "
				      "longer than JobWaitMax", sv.v[i]);
			goto out;
		}
		site->n++;
	}
out:
	mdc_strv_free(&sv);
	if (rc)
		mdc_jobs_site_free(site);
	return rc;
}

int mdc_jobs_site_load(const char *path, struct mdc_jobs_site *site, struct mdc_ctx *ctx)
{
	char *max = NULL, *defs = NULL;
	int rc;

	memset(site, 0, sizeof(*site));
	if ((rc = mdc_managed_conf_get(path, "JobWaitMax", true, &max, ctx)) ||
	    (rc = mdc_managed_conf_get(path, "JobWaitDefault", true, &defs, ctx)))
		goto out;
	if ((rc = mdc_jobs_site_parse(max, defs, site, ctx)))
		mdc_ctx_prefix(ctx, "%s", path);
out:
	free(max);
	free(defs);
	return rc;
}

int mdc_jobs_interval_parse(const char *s, bool zero_ok, const char *what, long *secs,
			    struct mdc_ctx *ctx)
{
	unsigned long v;

	if (!s || !jobs_num(s, strlen(s), &v) || v > MDC_JOBS_INTERVAL_MAX || (!v && !zero_ok))
		return mdc_fail(ctx, MDC_ERR_INVAL, "%s '%s': give seconds, %d to %d%s", what,
				s ? s : "", zero_ok ? 0 : 1, MDC_JOBS_INTERVAL_MAX,
				zero_ok ? " (0: off)" : "");
	*secs = (long) v;
	return 0;
}

int mdc_jobs_interval_load(const char *path, long *secs, struct mdc_ctx *ctx)
{
	char *v = NULL;
	int rc;

	*secs = 0;
	if ((rc = mdc_managed_conf_get(path, "JobWaitEnforceInterval", true, &v, ctx)))
		return rc;
	if (v && *v && (rc = mdc_jobs_interval_parse(v, true, "JobWaitEnforceInterval", secs, ctx)))
		mdc_ctx_prefix(ctx, "%s", path);
	free(v);
	return rc;
}

int mdc_jobs_resolve(const struct mdc_jobs_request *req, const char *parts,
		     const char *default_part, const struct mdc_jobs_site *site,
		     bool (*has_part)(const char *name, void *arg), void *arg,
		     struct mdc_jobs_policy *out, struct mdc_ctx *ctx)
{
	const struct mdc_jobs_request *def = NULL;
	struct mdc_jobs_request r = { 0 };
	const char *only = parts && *parts ? parts : default_part;
	size_t flen = 0;

	memset(out, 0, sizeof(*out));
	/* a site default applies to a job aimed at that one partition */
	if (only && !strchr(only, ','))
		for (size_t i = 0; site && i < site->n; i++)
			if (!strcmp(site->defaults[i].part, only))
				def = &site->defaults[i].req;
	if (def)
		r = *def;
	if (req->wait)
		r.wait = req->wait;
	if (req->action) {
		r.action = req->action;
		if (r.action == MDC_JOBS_FAIL)
			r.fallback[0] = '\0';
	}
	if (req->fallback[0]) {
		jobs_copy(r.fallback, req->fallback);
		if (!req->action && !def)
			r.action = MDC_JOBS_FALL_BACK;
	}
	if (!r.wait && !r.action && !r.fallback[0])
		return 0;
	if (!r.wait)
		return mdc_fail(ctx, MDC_ERR_INVAL, "--mdc-on-timeout and --mdc-fallback-partition "
				"need --mdc-wait-time (this partition has no site default)");
	if (!r.action)
		r.action = MDC_JOBS_FAIL;
	if (r.action == MDC_JOBS_FAIL && r.fallback[0])
		return mdc_fail(ctx, MDC_ERR_INVAL, "--mdc-fallback-partition=%s contradicts "
				"--mdc-on-timeout=fail", r.fallback);
	if (site && site->max_wait && r.wait > site->max_wait)
		return mdc_fail(ctx, MDC_ERR_INVAL, "--mdc-wait-time of %u seconds is longer "
				"than the site's maximum (JobWaitMax, %u seconds)",
				r.wait, site->max_wait);
	if (r.action == MDC_JOBS_FALL_BACK) {
		if (!r.fallback[0])
			return mdc_fail(ctx, MDC_ERR_INVAL, "--mdc-on-timeout=fall-back-to-on-demand "
					"needs --mdc-fallback-partition=NAME");
		if (has_part && !has_part(r.fallback, arg))
			return mdc_fail(ctx, MDC_ERR_INVAL, "fallback partition '%s' is not in the "
					"managed slurm.conf", r.fallback);
		flen = strlen(r.fallback);
		for (const char *p = only; p && *p;) {
			size_t len = strcspn(p, ",");

			if (len == flen && !strncmp(p, r.fallback, len))
				return mdc_fail(ctx, MDC_ERR_INVAL, "fallback partition '%s' is "
						"one the job already asks for: name another one",
						r.fallback);
			p += len + (p[len] == ',');
		}
	}
	out->wait = r.wait;
	out->action = r.action;
	jobs_copy(out->fallback, r.fallback);
	return 0;
}

int mdc_jobs_policy_format(const struct mdc_jobs_policy *p, char *buf, size_t size)
{
	int n = snprintf(buf, size, MDC_JOBS_TAG "wait=%u,on-timeout=%s%s%s%s%s", p->wait,
			 mdc_jobs_action_name(p->action), p->fallback[0] ? ",fallback=" : "",
			 p->fallback, p->expired[0] ? ",expired=" : "", p->expired);

	return n < 0 || (size_t) n >= size ? -1 : n;
}

/* Where the "mdc:" record starts in COMMENT (at a word start), or NULL. */
static const char *jobs_record(const char *comment)
{
	for (const char *p = comment; p && (p = strstr(p, MDC_JOBS_TAG "wait=")); p++)
		if (p == comment || p[-1] == ' ')
			return p;
	return NULL;
}

int mdc_jobs_policy_parse(const char *comment, struct mdc_jobs_policy *p, struct mdc_ctx *ctx)
{
	const char *r = jobs_record(comment);
	char rec[512], *save = NULL, *tok;
	size_t len;
	unsigned long v;

	memset(p, 0, sizeof(*p));
	if (!r)
		return MDC_ERR_NOTFOUND;
	len = strcspn(r, " ");
	if (len >= sizeof(rec))
		return mdc_fail(ctx, MDC_ERR_INVAL, "the mdc: record is too long");
	memcpy(rec, r + strlen(MDC_JOBS_TAG), len - strlen(MDC_JOBS_TAG));
	rec[len - strlen(MDC_JOBS_TAG)] = '\0';
	for (tok = strtok_r(rec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			return mdc_fail(ctx, MDC_ERR_INVAL, "'%s' in the mdc: record has no '='", tok);
		*eq++ = '\0';
		if (!strcmp(tok, "wait")) {
			if (!jobs_num(eq, strlen(eq), &v) || !v || v > MDC_JOBS_WAIT_LIMIT)
				return mdc_fail(ctx, MDC_ERR_INVAL, "bad wait '%s' in the mdc: record", eq);
			p->wait = (uint32_t) v;
		} else if (!strcmp(tok, "on-timeout")) {
			if (mdc_jobs_action_parse(eq, &p->action, ctx))
				return MDC_ERR_INVAL;
		} else if (!strcmp(tok, "fallback")) {
			if (mdc_jobs_part_check(eq, ctx))
				return MDC_ERR_INVAL;
			jobs_copy(p->fallback, eq);
		} else if (!strcmp(tok, "expired")) {
			if (strcmp(eq, "fell-back") && strcmp(eq, "cancelled"))
				return mdc_fail(ctx, MDC_ERR_INVAL, "bad expired '%s' in the mdc: record", eq);
			snprintf(p->expired, sizeof(p->expired), "%s", eq);
		} else {
			return mdc_fail(ctx, MDC_ERR_INVAL, "unknown key '%s' in the mdc: record", tok);
		}
	}
	if (!p->wait || !p->action || (p->action == MDC_JOBS_FALL_BACK) != !!p->fallback[0])
		return mdc_fail(ctx, MDC_ERR_INVAL, "incomplete mdc: record");
	return 0;
}

char *mdc_jobs_comment_with(const char *comment, const struct mdc_jobs_policy *p)
{
	const char *r = jobs_record(comment);
	char rec[512], *out = NULL;
	size_t head, tail_off;

	if (mdc_jobs_policy_format(p, rec, sizeof(rec)) < 0)
		return NULL;
	if (!comment || !*comment)
		return strdup(rec);
	if (!r) {
		if (asprintf(&out, "%s %s", comment, rec) < 0)
			return NULL;
		return out;
	}
	head = (size_t) (r - comment);
	tail_off = head + strcspn(r, " ");
	if (asprintf(&out, "%.*s%s%s", (int) head, comment, rec, comment + tail_off) < 0)
		return NULL;
	return out;
}

char *mdc_jobs_fmt_secs(long secs, char *buf, size_t size)
{
	long s = secs > 0 ? secs : 0, d = s / 86400;

	if (d)
		snprintf(buf, size, "%ld-%02ld:%02ld:%02ld", d, s / 3600 % 24, s / 60 % 60, s % 60);
	else
		snprintf(buf, size, "%02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	return buf;
}

char *mdc_jobs_log_escape(const char *s, char *buf, size_t size)
{
	size_t o = 0;

	if (!size)
		return buf;
	for (; s && *s; s++) {
		unsigned char c = (unsigned char) *s;
		char tmp[8];
		int n;

		if (c == '\n')
			n = snprintf(tmp, sizeof(tmp), "\\n");
		else if (c == '\t')
			n = snprintf(tmp, sizeof(tmp), "\\t");
		else if (c == '\\')
			n = snprintf(tmp, sizeof(tmp), "\\\\");
		else if (c < 0x20 || c == 0x7f)
			n = snprintf(tmp, sizeof(tmp), "\\x%02x", c);
		else
			n = snprintf(tmp, sizeof(tmp), "%c", c);
		if (o + (size_t) n + 4 > size) {
			snprintf(buf + o, size - o, "%s", size - o > 3 ? "..." : "");
			return buf;
		}
		memcpy(buf + o, tmp, (size_t) n);
		o += (size_t) n;
	}
	buf[o] = '\0';
	return buf;
}
