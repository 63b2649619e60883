/* mdc_settings.h - where the client talks and as whom: mdc.conf, the
 * environment and the caller's options, merged in that order
 * (mdc_settings.c).
 * (owner: client)
 */
#ifndef MDC_SETTINGS_H
#define MDC_SETTINGS_H

#include <stdbool.h>
#include "mdc_err.h"

/* Where to talk and as whom: lowest to highest precedence, the config file
 * (MDC_CONF, else /etc/slurm/mdc.conf; "Key = value" lines), the
 * environment (MDC_ENDPOINT, MDC_CLUSTER, MDC_ACCESS_TOKEN,
 * MDC_TOKEN_FILE, MDC_LOCK_DIR), then whatever the caller sets after. */
struct mdc_settings {
	char *endpoint;		/* "http://127.0.0.1:PORT" or https://REGION-aiplatform.googleapis.com */
	char *cluster;		/* projects/P/locations/R/modelDevelopmentClusters/C */
	char *token_file;
	char *ca_cert_file;	/* CACertFile / MDC_CA_CERT_FILE: CAs https trusts too (a TLS proxy's) */
	char *lock_dir;		/* writer lock directory (default /run/lock or $TMPDIR) */
	char *slurm_conf;	/* the live slurm.conf (SLURM_CONF, else /etc/slurm/slurm.conf) */
	/* added by the client: the short forms (config file keys Project,
	 * Region, ClusterId; env MDC_PROJECT, MDC_REGION) and the config path
	 * that was read (NULL when none existed) */
	char *project;
	char *region;
	char *cluster_id;
	char *conf_path;
	/* mdcd (mdc_broker.h): Broker / MDC_BROKER names its socket; the
	 * others are read by mdcd only (MungeSocket also by clients) */
	char *broker;
	char *munge_socket;	/* MungeSocket / MDC_MUNGE_SOCKET */
	char *admin_groups;	/* AdminGroups: comma-separated group names */
	char *admin_from_slurm;	/* AdminFromSlurm: yes|no */
	char *slurm_release;	/* SlurmRelease: "24.11", judged against when no scontrol answers */
};
/* Fill S (zero it first) from the config file and the environment.  A
 * missing default config file is not an error; a missing MDC_CONF file,
 * an unreadable file or an unknown key is (MDC_ERR_INVAL/IO, with
 * "file:line"). */
int mdc_settings_load(struct mdc_settings *s, struct mdc_ctx *ctx);
/* Parse config-file TEXT into S (WHERE names it in messages). */
int mdc_settings_parse(struct mdc_settings *s, const char *text, const char *where,
		       struct mdc_ctx *ctx);
/* Complete S: build cluster from project/region/cluster_id when it is not
 * a full name (each part checked), and default the endpoint to
 * https://REGION-aiplatform.googleapis.com.  NEED_CLUSTER: a missing
 * cluster is MDC_ERR_USAGE naming the options to use. */
int mdc_settings_resolve(struct mdc_settings *s, bool need_cluster, struct mdc_ctx *ctx);
/* Split a full cluster name; each out string is malloc'ed (caller frees,
 * any out may be NULL).  MDC_ERR_INVAL when NAME is not of the form
 * projects/P/locations/R/modelDevelopmentClusters/C. */
int mdc_cluster_name_split(const char *name, char **project, char **region, char **id,
			   struct mdc_ctx *ctx);
/* Replace *DST with a copy of VAL (NULL clears); 0 or MDC_ERR_NOMEM. */
int mdc_settings_set(char **dst, const char *val);
void mdc_settings_free(struct mdc_settings *s);

#endif
