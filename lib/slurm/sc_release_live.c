/* sc_release_live.c - see sc_release_live.h.  (owner: slurm.conf engine) */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mdc_buf.h"
#include "mdc_live.h"
#include "sc_release_live.h"

/* "slurm 22.05.8" (Debian's: "slurm-wlm 22.05.8") -> "22.05.8" in BUF;
 * false when LINE names no version. */
static bool version_of(const char *line, char *buf, size_t bufsz)
{
	size_t n = 0;

	if (strncmp(line, "slurm", 5))
		return false;
	while (*line && *line != ' ')
		line++;
	while (*line == ' ')
		line++;
	while (line[n] && (isdigit((unsigned char) line[n]) || line[n] == '.'))
		n++;
	if (!n || !memchr(line, '.', n))
		return false;
	snprintf(buf, bufsz, "%.*s", (int) n, line);
	return true;
}

/* Known release REL or the newest known one before VERSION; -1 when older
 * than all. */
static int rel_at_most(const char *version)
{
	unsigned maj, min, a, b;
	int best = -1;

	if (sscanf(version, "%u.%u", &maj, &min) != 2)
		return -1;
	for (int i = 0; i < SC_NREL; i++)
		if (sscanf(sc_rel_name(i), "%u.%u", &a, &b) == 2 &&
		    (a < maj || (a == maj && b <= min)))
			best = i;
	return best;
}

int mdc_slurm_release(const char *conf_release, int *rel, enum sc_rel_from *from,
		      char *version, size_t versionsz, struct mdc_ctx *ctx)
{
	static char *const args[] = { "--version", NULL };
	struct mdc_buf out = MDC_BUF_INIT, err = MDC_BUF_INIT;
	struct mdc_ctx lctx;
	char v[32] = "";
	int status = -1, r = -1;

	if (version && versionsz)
		version[0] = '\0';
	mdc_ctx_clear(&lctx);
	/* the live one: an scontrol that cannot run is no Slurm to ask */
	if (!mdc_live_run(args, &out, &err, &status, &lctx) && status == 0 &&
	    version_of(mdc_buf_str(&out), v, sizeof(v)))
		r = rel_at_most(v);
	mdc_buf_free(&out);
	mdc_buf_free(&err);	/* an unconfigured 22.05 scontrol stops before --version */
	if (r >= 0) {
		*rel = r;
		*from = SC_REL_FROM_LIVE;
		if (version && versionsz)
			snprintf(version, versionsz, "%s", v);
		return 0;
	}
	if (conf_release && *conf_release) {
		if ((r = sc_rel_parse(conf_release)) < 0)
			return mdc_fail(ctx, MDC_ERR_INVAL, "SlurmRelease = %s: give one of the "
					"releases slurm-mdc knows: %s, %s or %s", conf_release,
					sc_rel_name(0), sc_rel_name(1), sc_rel_name(2));
		*rel = r;
		*from = SC_REL_FROM_CONF;
		return 0;
	}
	*rel = sc_rel_build();
	*from = SC_REL_FROM_BUILD;
	return 0;
}

static char *deferred_conf;

static int deferred(enum sc_rel_from *from)
{
	struct mdc_ctx ctx;
	int rel;

	mdc_ctx_clear(&ctx);
	/* the value was checked when mdc.conf was read */
	if (mdc_slurm_release(deferred_conf, &rel, from, NULL, 0, &ctx))
		return -1;
	return rel;
}

int mdc_slurm_release_defer(const char *conf_release, struct mdc_ctx *ctx)
{
	char *copy = NULL;

	if (conf_release && !(copy = strdup(conf_release)))
		return mdc_nomem(ctx);
	free(deferred_conf);
	deferred_conf = copy;
	sc_rel_set_resolver(deferred);
	return 0;
}
