/* mdc_settings.c - where to talk and as whom: config file, environment,
 * then the caller's overrides; resolution of the short cluster form and of
 * the default endpoint.  (owner: client) */
#define _GNU_SOURCE	/* asprintf */
#include "config.h"
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mdc_settings.h"
#include "mdc_str.h"
#include "sc_release_live.h"

#define MDC_DEFAULT_CONF "/etc/slurm/mdc.conf"
/* a dozen lines; anything bigger is not an mdc.conf */
#define MDC_CONF_MAX_BYTES (1024 * 1024)

/* Config-file keys and environment variables, each bound to one field. */
static const struct {
	const char *key;	/* config file key (matched like slurm.conf keys) */
	const char *env;	/* environment variable, or NULL */
	size_t off;
} mdc_settings_keys[] = {
	{ "Endpoint", "MDC_ENDPOINT", offsetof(struct mdc_settings, endpoint) },
	{ "Cluster", "MDC_CLUSTER", offsetof(struct mdc_settings, cluster) },
	{ "Project", "MDC_PROJECT", offsetof(struct mdc_settings, project) },
	{ "Region", "MDC_REGION", offsetof(struct mdc_settings, region) },
	{ "ClusterId", NULL, offsetof(struct mdc_settings, cluster_id) },
	{ "TokenFile", "MDC_TOKEN_FILE", offsetof(struct mdc_settings, token_file) },
	{ "CACertFile", "MDC_CA_CERT_FILE", offsetof(struct mdc_settings, ca_cert_file) },
	{ "LockDir", "MDC_LOCK_DIR", offsetof(struct mdc_settings, lock_dir) },
	{ "SlurmConf", "SLURM_CONF", offsetof(struct mdc_settings, slurm_conf) },
	/* mdcd (mdc_broker.h) */
	{ "Broker", "MDC_BROKER", offsetof(struct mdc_settings, broker) },
	{ "MungeSocket", "MDC_MUNGE_SOCKET", offsetof(struct mdc_settings, munge_socket) },
	{ "AdminGroups", NULL, offsetof(struct mdc_settings, admin_groups) },
	{ "AdminFromSlurm", NULL, offsetof(struct mdc_settings, admin_from_slurm) },
	/* the release to judge against when no scontrol answers (sc_release_live.h) */
	{ "SlurmRelease", NULL, offsetof(struct mdc_settings, slurm_release) },
};
#define MDC_NKEYS (sizeof(mdc_settings_keys) / sizeof(mdc_settings_keys[0]))

/* Keys of the same file that other programs read (the plugins): valid here,
 * not ours.  Anything else is a typo worth an error. */
static const char *const mdc_settings_foreign[] = {
	"JobSubmitMode", "JobWaitMax", "JobWaitDefault", "JobWaitEnforceInterval", NULL
};

static bool mdc_settings_is_foreign(const char *key)
{
	for (size_t i = 0; mdc_settings_foreign[i]; i++)
		if (mdc_key_eq(key, mdc_settings_foreign[i]))
			return true;
	return false;
}

static char **mdc_settings_field(struct mdc_settings *s, size_t i)
{
	return (char **) ((char *) s + mdc_settings_keys[i].off);
}

int mdc_settings_set(char **dst, const char *val)
{
	char *copy = NULL;

	if (val && !(copy = strdup(val)))
		return MDC_ERR_NOMEM;
	free(*dst);
	*dst = copy;
	return 0;
}

int mdc_settings_parse(struct mdc_settings *s, const char *text, const char *where,
		       struct mdc_ctx *ctx)
{
	char *copy, *line, *next, *eq, *key, *val;
	unsigned lineno = 0;
	size_t i;
	int rc = 0;

	if (!(copy = strdup(text)))
		return mdc_nomem(ctx);
	for (line = copy; line; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if ((eq = strchr(line, '#')))
			*eq = '\0';
		key = mdc_trim(line);
		if (!*key)
			continue;
		if (!(eq = strchr(key, '='))) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "%s:%u: expected 'Key = value'",
				      where, lineno);
			goto out;
		}
		*eq = '\0';
		key = mdc_trim(key);
		val = mdc_trim(eq + 1);
		for (i = 0; i < MDC_NKEYS; i++)
			if (mdc_key_eq(key, mdc_settings_keys[i].key))
				break;
		if (i == MDC_NKEYS && mdc_settings_is_foreign(key))
			continue;
		if (i == MDC_NKEYS) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL,
				      "%s:%u: unknown key '%s' (use Endpoint, Cluster, Project, "
				      "Region, ClusterId, TokenFile, CACertFile, LockDir, SlurmConf, Broker, "
				      "MungeSocket, AdminGroups, AdminFromSlurm or SlurmRelease)",
				      where, lineno, key);
			goto out;
		}
		if (mdc_settings_set(mdc_settings_field(s, i), *val ? val : NULL)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
		if (*val && mdc_settings_keys[i].off == offsetof(struct mdc_settings, slurm_release) &&
		    sc_rel_parse(val) < 0) {
			rc = mdc_fail(ctx, MDC_ERR_INVAL, "%s:%u: SlurmRelease = %s: give %s, %s or %s",
				      where, lineno, val, sc_rel_name(0), sc_rel_name(1), sc_rel_name(2));
			goto out;
		}
	}
out:
	free(copy);
	return rc;
}

int mdc_settings_load(struct mdc_settings *s, struct mdc_ctx *ctx)
{
	const char *path = getenv("MDC_CONF"), *env;
	char *text = NULL;
	bool explicit_path = path && *path;
	int rc = 0;

	if (!explicit_path)
		path = MDC_DEFAULT_CONF;
	if (explicit_path || access(path, F_OK) == 0) {
		/* a regular file, bounded: never a FIFO that hangs the tool */
		if ((rc = mdc_read_regular(path, MDC_CONF_MAX_BYTES, 0, &text, NULL, ctx)))
			goto out;
		if ((rc = mdc_settings_parse(s, text, path, ctx)))
			goto out;
		if (mdc_settings_set(&s->conf_path, path)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
	for (size_t i = 0; i < MDC_NKEYS; i++) {
		if (!mdc_settings_keys[i].env)
			continue;
		env = getenv(mdc_settings_keys[i].env);
		if (env && *env && mdc_settings_set(mdc_settings_field(s, i), env)) {
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
	/* every check from now on judges against the cluster's release */
	rc = mdc_slurm_release_defer(s->slurm_release, ctx);
out:
	free(text);
	return rc;
}

/* A name component: non-empty, no '/', no control or space characters. */
static bool mdc_name_part_ok(const char *p, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '/' || (unsigned char) p[i] <= ' ' || p[i] == 0x7f ||
		    p[i] == '?' || p[i] == '#' || p[i] == '%')
			return false;
	return true;
}

int mdc_cluster_name_split(const char *name, char **project, char **region, char **id,
			   struct mdc_ctx *ctx)
{
	static const char *const lit[] = { "projects", "locations", "modelDevelopmentClusters" };
	const char *parts[6];
	size_t lens[6], n = 0;
	const char *p = name, *slash;
	char **outs[3] = { project, region, id };

	for (int i = 0; i < 3; i++)
		if (outs[i])
			*outs[i] = NULL;
	while (p && n < 6) {
		slash = strchr(p, '/');
		parts[n] = p;
		lens[n] = slash ? (size_t) (slash - p) : strlen(p);
		n++;
		p = slash ? slash + 1 : NULL;
	}
	if (n != 6 || p)
		goto bad;
	for (int i = 0; i < 3; i++) {
		if (strlen(lit[i]) != lens[2 * i] || strncmp(parts[2 * i], lit[i], lens[2 * i]))
			goto bad;
		if (!mdc_name_part_ok(parts[2 * i + 1], lens[2 * i + 1]))
			goto bad;
	}
	for (int i = 0; i < 3; i++) {
		if (!outs[i])
			continue;
		if (!(*outs[i] = strndup(parts[2 * i + 1], lens[2 * i + 1]))) {
			for (int j = 0; j < i; j++)
				if (outs[j]) {
					free(*outs[j]);
					*outs[j] = NULL;
				}
			return mdc_nomem(ctx);
		}
	}
	return 0;
bad:
	return mdc_fail(ctx, MDC_ERR_INVAL,
			"cluster '%s': expected projects/P/locations/R/modelDevelopmentClusters/C "
			"(or --project, --region and --cluster ID)", name);
}

int mdc_settings_resolve(struct mdc_settings *s, bool need_cluster, struct mdc_ctx *ctx)
{
	char *region = NULL;
	int rc = 0;

	if (s->cluster && !strchr(s->cluster, '/')) {
		/* "--cluster ID" given through a setting that holds full names */
		if ((rc = mdc_settings_set(&s->cluster_id, s->cluster)))
			return mdc_nomem(ctx);
		mdc_settings_set(&s->cluster, NULL);
	}
	if (!s->cluster && s->cluster_id) {
		if (!s->project || !s->region)
			return mdc_fail(ctx, MDC_ERR_USAGE,
					"cluster id '%s' needs --project and --region "
					"(or give --cluster projects/P/locations/R/modelDevelopmentClusters/C)",
					s->cluster_id);
		if (!mdc_name_part_ok(s->project, strlen(s->project)) ||
		    !mdc_name_part_ok(s->region, strlen(s->region)) ||
		    !mdc_name_part_ok(s->cluster_id, strlen(s->cluster_id)))
			return mdc_fail(ctx, MDC_ERR_INVAL,
					"project, region or cluster id contains '/', a space or a control character");
		if (asprintf(&s->cluster, "projects/%s/locations/%s/modelDevelopmentClusters/%s",
			     s->project, s->region, s->cluster_id) < 0) {
			s->cluster = NULL;
			return mdc_nomem(ctx);
		}
	}
	if (s->cluster) {
		if ((rc = mdc_cluster_name_split(s->cluster, NULL, &region, NULL, ctx)))
			goto out;
	} else if (need_cluster) {
		rc = mdc_fail(ctx, MDC_ERR_USAGE,
			      "no cluster given: use --cluster projects/P/locations/R/modelDevelopmentClusters/C, "
			      "MDC_CLUSTER or 'Cluster =' in %s", s->conf_path ? s->conf_path : MDC_DEFAULT_CONF);
		goto out;
	}
	if (!s->endpoint) {
		const char *r = region ? region : s->region;

		if (!r) {
			rc = mdc_fail(ctx, MDC_ERR_USAGE,
				      "no endpoint: use --endpoint URL, MDC_ENDPOINT, or give a region");
			goto out;
		}
		if (asprintf(&s->endpoint, "https://%s-aiplatform.googleapis.com", r) < 0) {
			s->endpoint = NULL;
			rc = mdc_nomem(ctx);
			goto out;
		}
	}
out:
	free(region);
	return rc;
}

void mdc_settings_free(struct mdc_settings *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < MDC_NKEYS; i++) {
		free(*mdc_settings_field(s, i));
		*mdc_settings_field(s, i) = NULL;
	}
	free(s->conf_path);
	s->conf_path = NULL;
}
