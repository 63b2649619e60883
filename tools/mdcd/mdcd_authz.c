/* mdcd_authz.c - who may write: root, SlurmUser (slurm.conf), members of
 * AdminGroups (mdc.conf) and, with AdminFromSlurm=yes, users whose Slurm
 * AdminLevel is Administrator (sacctmgr, so slurmdbd).  Reads need only
 * a valid credential.  A refusal names every rule it tried.  (owner: mdcd) */
#define _GNU_SOURCE	/* getgrouplist */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mdc_buf.h"
#include "mdc_run.h"
#include "mdc_str.h"
#include "sc_conf.h"
#include "mdcd.h"

#define MDCD_SACCTMGR_TIMEOUT_S 10

extern char **environ;

/* slurm.conf's SlurmUser (Slurm's default is root). */
static char *mdcd_slurm_user(const struct mdc_settings *s)
{
	struct sc_conf *conf = NULL;
	struct mdc_ctx tmp;
	const char *u;
	char *out;

	mdc_ctx_clear(&tmp);
	if (!s->slurm_conf || sc_conf_parse_file(s->slurm_conf, &conf, &tmp))
		return NULL;
	u = sc_conf_get(conf, "SlurmUser");
	out = strdup(u && *u ? u : "root");
	sc_conf_free(conf);
	return out;
}

static bool mdcd_is_user(const char *name, const struct mdcd_peer *p)
{
	struct passwd pw, *pwp = NULL;
	char buf[4096];

	if (!strcmp(name, p->user))
		return true;
	return getpwnam_r(name, &pw, buf, sizeof(buf), &pwp) == 0 && pwp && pw.pw_uid == p->uid;
}

/* The first group of GROUPS (comma-separated) PEER belongs to, or NULL. */
static const char *mdcd_admin_group(const struct mdc_strv *groups, const struct mdcd_peer *p)
{
	struct passwd pw, *pwp = NULL;
	char buf[4096];
	gid_t have[512];
	int n = 512;
	gid_t base = p->gid;

	if (getpwuid_r(p->uid, &pw, buf, sizeof(buf), &pwp) == 0 && pwp)
		base = pw.pw_gid;
	if (!pwp || getgrouplist(pw.pw_name, base, have, &n) < 0) {
		have[0] = p->gid;
		n = 1;
	}
	for (size_t i = 0; i < groups->n; i++) {
		struct group gr, *grp = NULL;
		char gbuf[16384];

		if (getgrnam_r(groups->v[i], &gr, gbuf, sizeof(gbuf), &grp) || !grp)
			continue;
		for (int k = 0; k < n; k++)
			if (have[k] == gr.gr_gid || p->gid == gr.gr_gid)
				return groups->v[i];
	}
	return NULL;
}

/* `sacctmgr -n -P show user NAME format=AdminLevel` -> *LEVEL (malloc'ed,
 * "Administrator", "Operator", "None"); 0, or -1 with WHY. */
static int mdcd_admin_level(const char *user, char **level, char *why, size_t whysz)
{
	char *argv[] = { "sacctmgr", "-n", "-P", "show", "user", (char *) user,
			 "format=AdminLevel", NULL };
	struct mdc_run_opts o = { .out_cap = 64 * 1024, .timeout_s = MDCD_SACCTMGR_TIMEOUT_S,
				  .search_path = true, .null_stdio = true };
	struct mdc_run_result r;
	struct mdc_buf out = MDC_BUF_INIT;
	struct mdc_ctx ctx;
	int rc = -1;

	*level = NULL;
	mdc_ctx_clear(&ctx);
	if (mdc_run(argv, &o, &out, NULL, &r, &ctx)) {
		snprintf(why, whysz, "%.200s", ctx.msg);
	} else if (r.timed_out) {
		snprintf(why, whysz, "sacctmgr gave no answer in %d s", MDCD_SACCTMGR_TIMEOUT_S);
	} else if (r.status) {
		snprintf(why, whysz, "sacctmgr failed (is slurmdbd running?)");
	} else {
		char *t = mdc_trim(out.s ? out.s : (char *) "");

		t[strcspn(t, "\n")] = '\0';
		if (!*t)
			snprintf(why, whysz, "sacctmgr knows no user '%s'", user);
		else if ((*level = strdup(t)))
			rc = 0;
	}
	mdc_buf_free(&out);
	return rc;
}

bool mdcd_may_write(const struct mdc_settings *s, const struct mdcd_peer *peer,
		    char *why, size_t whysz)
{
	struct mdc_strv groups = MDC_STRV_INIT;
	struct mdc_buf b = MDC_BUF_INIT;
	char *su = NULL, *level = NULL, *joined = NULL, err[256];
	const char *g;
	bool ok = false;

	if (peer->uid == 0) {
		snprintf(why, whysz, "root");
		return true;
	}
	if ((su = mdcd_slurm_user(s)) && mdcd_is_user(su, peer)) {
		snprintf(why, whysz, "SlurmUser '%s'", su);
		ok = true;
		goto out;
	}
	if (s->admin_groups)
		mdc_strv_split(&groups, s->admin_groups, ", ");
	if ((g = mdcd_admin_group(&groups, peer))) {
		snprintf(why, whysz, "member of AdminGroups group '%s'", g);
		ok = true;
		goto out;
	}
	joined = mdc_strv_join(&groups, ",");
	mdc_buf_addf(&b, "user '%s' (uid %ld) is not root, not the SlurmUser '%s', not in "
		     "AdminGroups (%s)", peer->user, (long) peer->uid, su ? su : "(unknown)",
		     joined && *joined ? joined : "none set");
	if (!mdc_strcaseeq(s->admin_from_slurm, "yes")) {
		mdc_buf_adds(&b, ", and AdminFromSlurm is off");
	} else if (mdcd_admin_level(peer->user, &level, err, sizeof(err))) {
		mdc_buf_addf(&b, ", and AdminFromSlurm could not tell: %s", err);
	} else if (!strcasecmp(level, "Administrator")) {
		snprintf(why, whysz, "Slurm AdminLevel Administrator (AdminFromSlurm=yes)");
		ok = true;
		goto out;
	} else {
		mdc_buf_addf(&b, ", and their Slurm AdminLevel is %s, not Administrator", level);
	}
	snprintf(why, whysz, "%s", mdc_buf_str(&b));
out:
	free(level);
	free(joined);
	free(su);
	mdc_buf_free(&b);
	mdc_strv_free(&groups);
	return ok;
}
