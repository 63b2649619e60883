/* mdc_managed.h - "is this partition part of the managed slurm.conf?"
 * The one check shared by job_submit_mdc.so (at submission) and
 * spank_mdc.so (--mdc-managed-only), plus the small "Key = value" reader
 * the plugins use for /etc/slurm/mdc.conf.  (owner: plugins)
 *
 * A partition created with `scontrol create` lives only in slurmctld's
 * memory: the next regeneration of slurm.conf (any managed update) and a
 * restart make it disappear, with the jobs queued to it.  The managed set
 * is what the slurm.conf file on disk declares.
 */
/* deliberate unit: mdc_jobs reads mdc.conf with mdc_managed, which parses MaxTime with mdc_jobs */
#ifndef MDC_MANAGED_H
#define MDC_MANAGED_H

#include "mdc_err.h"
#include "mdc_str.h"
#include <stdint.h>
#include <sys/types.h>

#define MDC_MANAGED_SLURM_CONF "/etc/slurm/slurm.conf"
#define MDC_MANAGED_MDC_CONF "/etc/slurm/mdc.conf"
/* mdc.conf is a dozen lines; anything bigger is not one */
#define MDC_MANAGED_CONF_MAX (1024 * 1024)

struct mdc_managed {
	char *path;			/* the slurm.conf that was read */
	struct mdc_strv parts;		/* partition names, file order */
	char *default_part;		/* the Default=YES one, or NULL */
	/* open-addressing set over PARTS (borrowed pointers), so loading and
	 * checking stay linear at tens of thousands of partitions */
	const char **index;
	size_t index_cap;		/* a power of two, > 2 x parts.n */
	struct sc_conf *conf;		/* the parsed file: mdc_managed_access */
};

struct sc_conf;

/* The job of mdc_managed_access: its user, and the account / QOS it
 * names (NULL: not named, not checked: only slurmctld knows the default). */
struct mdc_managed_job {
	uid_t uid;
	gid_t gid;
	const char *account, *qos;
	uint32_t time_limit;		/* minutes; 0: not given, not checked */
};

/* Read the partitions of the slurm.conf at PATH (Include files followed;
 * unknown keys tolerated, as a newer Slurm may have them).  On success *OUT
 * is a new set the caller frees with mdc_managed_free; on error *OUT is
 * NULL and CTX says why (MDC_ERR_IO, MDC_ERR_PARSE, MDC_ERR_NOMEM). */
int mdc_managed_load(const char *path, struct mdc_managed **out, struct mdc_ctx *ctx);
void mdc_managed_free(struct mdc_managed *m);

/* True if NAME is a managed partition (case-sensitive, as Slurm). */
bool mdc_managed_has(const struct mdc_managed *m, const char *name);

/* Check a job's partition request PARTS (Slurm's comma list; NULL or ""
 * means the default partition).  0 when every partition is managed; else
 * MDC_ERR_NOTFOUND with CTX saying which partition exists only at runtime,
 * that the next regeneration drops it, and what to do.  *BAD (if BAD is
 * non-NULL) receives a malloc'ed copy of the first unmanaged name, or NULL
 * (the caller frees).  Does no I/O: safe under slurmctld's locks. */
int mdc_managed_check(const struct mdc_managed *m, const char *parts, char **bad,
		      struct mdc_ctx *ctx);

/* May JOB run in managed partition PART as the file declares it (State,
 * MaxTime, RootOnly, AllowGroups, AllowAccounts / DenyAccounts, AllowQos / DenyQos;
 * a PartitionName=DEFAULT line's values apply)?  0, or MDC_ERR_REFUSED with
 * CTX saying which setting keeps it out; MDC_ERR_NOTFOUND for an unknown
 * PART.  Root and SlurmUser (SLURM_UID) pass AllowGroups, as in Slurm.
 * Looks up the user's groups (NSS) only when PART has AllowGroups. */
int mdc_managed_access(const struct mdc_managed *m, const char *part,
		       const struct mdc_managed_job *job, uid_t slurm_uid, struct mdc_ctx *ctx);

/* A partition's access settings as strings in slurm.conf's words (NULL:
 * not set): what mdc_managed_access reads from the file, or what a caller
 * inside slurmctld has from the live partition record, which a runtime
 * `scontrol update PartitionName=...` changed too (issue 24 item 3). */
struct mdc_managed_part {
	const char *state, *max_time, *root_only, *allow_groups;
	const char *allow_accounts, *deny_accounts, *allow_qos, *deny_qos;
};

/* mdc_managed_access on the settings P of partition PART. */
int mdc_managed_access_part(const struct mdc_managed_part *p, const char *part,
			    const struct mdc_managed_job *job, uid_t slurm_uid,
			    struct mdc_ctx *ctx);

/* The slurm.conf to read: SLURM_CONF from the environment, else
 * /etc/slurm/slurm.conf.  A borrowed pointer. */
const char *mdc_managed_default_path(void);

/* Value of KEY in the "Key = value" file at PATH (keys compared like
 * slurm.conf keys, '#' comments, other keys ignored, the last one wins).
 * 0 with *VAL malloc'ed (caller frees) or NULL when absent; a missing file
 * is not an error when MISSING_OK.  MDC_ERR_IO / MDC_ERR_INVAL otherwise. */
int mdc_managed_conf_get(const char *path, const char *key, bool missing_ok,
			 char **val, struct mdc_ctx *ctx);

/* The same for the N keys KEYS in one read of the file: VALS[i] for
 * KEYS[i], each malloc'ed or NULL (all NULL on error). */
int mdc_managed_conf_getv(const char *path, const char *const *keys, size_t n,
			  bool missing_ok, char **vals, struct mdc_ctx *ctx);

#endif
