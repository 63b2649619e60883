/* mdc_slurmrest.h - the live cluster read through the service's Slurm Job
 * API (POST .../modelDevelopmentClusters/ID:callSlurmRestApi), for the
 * tools run off the cluster (mdcctl --remote).  Only the read-only paths
 * the tools use are ever sent: a path outside that allow-list is refused
 * before any request.  The data parser version is the newest the cluster
 * answers a ping on, never hard-wired.  The token is the client's
 * (mdc_client): it never appears in a message or a log line from here.
 * (owner: slurmrest)
 */
#ifndef MDC_SLURMREST_H
#define MDC_SLURMREST_H

#include <stdbool.h>
#include <json-c/json.h>
#include "mdc_client.h"
#include "mdc_err.h"
#include "mdc_live.h"
#include "mdc_str.h"

/* What the tools read; each is one GET /slurm/VERSION/WHAT. */
enum mdc_slurmrest_what {
	MDC_SR_PING,
	MDC_SR_PARTITIONS,
	MDC_SR_NODES,
	MDC_SR_JOBS,
};

struct mdc_slurmrest {
	struct mdc_client *client;	/* borrowed */
	char *cluster;			/* full resource name */
	char version[16];		/* "v0.0.38", set by mdc_slurmrest_open */
	char release[32];		/* "24.11.5" from its ping, "" when unsaid */
};

/* Is PATH one of the read-only paths the tools send ("/slurm/v0.0.38/jobs"):
 * a known data parser version and a known read, nothing more (no query,
 * no other segment)?  The allow-list any caller-given path is held to. */
bool mdc_slurmrest_path_allowed(const char *path);

/* Choose the data parser: ping each version the tools know, newest first;
 * the first that answers 200 is kept in SR->version.  MDC_ERR_NOTFOUND
 * when none does (the message lists those tried), else what the call
 * failed with (MDC_ERR_API with the service's error, MDC_ERR_HTTP...). */
int mdc_slurmrest_open(struct mdc_client *c, const char *cluster, struct mdc_slurmrest *sr,
		       struct mdc_ctx *ctx);
void mdc_slurmrest_close(struct mdc_slurmrest *sr);

/* One call of PATH (it must pass mdc_slurmrest_path_allowed: else
 * MDC_ERR_REFUSED and nothing is sent).  *BODY: slurmrestd's answer
 * (structuredBody, a new reference) when its status is 200; another
 * status is MDC_ERR_API with slurmrestd's first error in the message. */
int mdc_slurmrest_get_path(struct mdc_slurmrest *sr, const char *path, json_object **body,
			   struct mdc_ctx *ctx);

/* GET WHAT with SR's data parser; *ITEMS: the answer's array ("partitions",
 * "nodes", "jobs"; "pings" for MDC_SR_PING), a new reference. */
int mdc_slurmrest_get(struct mdc_slurmrest *sr, enum mdc_slurmrest_what what, json_object **items,
		      struct mdc_ctx *ctx);

/* The jobs of PARTITION that still hold it (any state but the finished
 * ones), as mdc_live_partition_jobs says them: appends "ID (STATE)" to
 * JOBS.  One GET jobs. */
int mdc_slurmrest_partition_jobs(struct mdc_slurmrest *sr, const char *partition,
				 struct mdc_strv *jobs, struct mdc_ctx *ctx);

/* The partitions as `scontrol show partition` records (PartitionName=
 * first, then the keys slurm.conf writes, in scontrol's spelling:
 * MaxTime=90 in minutes, UNLIMITED, NONE, Hidden=YES...), for mdc_verify.
 * Only the keys the data parser's answer holds are there (the table is
 * v0.0.38's: a later parser's nested values leave theirs out, and verify
 * then says it could not check them).  Appends to OUT (mdc_recs_free). */
int mdc_slurmrest_partition_recs(struct mdc_slurmrest *sr, struct mdc_recs *out,
				 struct mdc_ctx *ctx);

/* The nodes as `scontrol show node` records for drift's runtime state:
 * NodeName=, State= as scontrol writes it (IDLE+DRAIN: the state upper
 * case, then the state flags), Reason= when there is one.  Appends to OUT. */
int mdc_slurmrest_node_recs(struct mdc_slurmrest *sr, struct mdc_recs *out, struct mdc_ctx *ctx);
int mdc_slurmrest_node_recs_of(const json_object *nodes_list, struct mdc_recs *out,
			       struct mdc_ctx *ctx);

/* The pure halves of the two above, on the answer's array (the tests
 * drive them with a data parser's JSON). */
int mdc_slurmrest_jobs_in(const json_object *jobs_list, const char *partition,
			  struct mdc_strv *jobs, struct mdc_ctx *ctx);
int mdc_slurmrest_recs_of(const json_object *partitions_list, struct mdc_recs *out,
			  struct mdc_ctx *ctx);

/* A state field as one string: 22.05's parsers give "RUNNING" or "idle",
 * later ones a list ["IDLE","DRAIN"]: joined with '+', upper case kept as
 * sent.  Written into BUF (SIZE bytes); "" when absent. */
const char *mdc_slurmrest_state(const json_object *v, char *buf, size_t size);

#endif
