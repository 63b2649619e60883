/* mdc_live.h - the running slurmctld, seen through the real scontrol:
 * run it (with the caller's SLURM_CONF), parse `scontrol show config`,
 * `show partition|node --oneliner` and the NodeSet lines of the live
 * slurm.conf into key/values, and apply a runtime `scontrol update`.
 * (owner: scontrol)
 *
 * Used by mdc-scontrol (live apply, pass-through) and `mdcctl drift`.
 * Nothing here talks to the managed API.
 */
/* layer lib/slurm/ owns the live slurmctld: reads, verdict, verify, job enforcement;
 * it may include lib/base/ to lib/plan/ (scripts/check-layers). */
#ifndef MDC_LIVE_H
#define MDC_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include "mdc_buf.h"
#include "mdc_err.h"
#include "mdc_str.h"

/* An ordered list of Key=Value pairs (one scontrol record, or the whole
 * `show config`).  Keys and values are malloc'ed copies owned by the list. */
struct mdc_kv {
	char *key;
	char *value;
};
struct mdc_kvs {
	struct mdc_kv *v;
	size_t n, cap;
};
#define MDC_KVS_INIT { NULL, 0, 0 }

/* Append copies of KEY and VALUE (VALUE may be NULL: stored as "").
 * Returns 0 or MDC_ERR_NOMEM. */
int mdc_kvs_add(struct mdc_kvs *kvs, const char *key, const char *value);
/* The value of KEY (compared with mdc_key_eq: case and underscores
 * ignored, in full), borrowed from KVS; NULL when absent. */
const char *mdc_kvs_get(const struct mdc_kvs *kvs, const char *key);
void mdc_kvs_free(struct mdc_kvs *kvs);

/* Records: `show partition`, `show node`, NodeSet lines. */
struct mdc_recs {
	struct mdc_kvs *v;
	size_t n, cap;
};
#define MDC_RECS_INIT { NULL, 0, 0 }
/* The record whose first pair has value NAME (e.g. PartitionName=NAME);
 * borrowed, NULL when absent.  Names compare exactly (Slurm's rule). */
const struct mdc_kvs *mdc_recs_find(const struct mdc_recs *recs, const char *name);
void mdc_recs_free(struct mdc_recs *recs);

/* Parse `scontrol show config` text: "Key   = Value" lines; the header
 * line and anything that is not a pair (the ping line) are skipped.
 * Appends to OUT (caller frees with mdc_kvs_free). */
int mdc_live_parse_config(const char *text, struct mdc_kvs *out, struct mdc_ctx *ctx);

/* Parse scontrol record output, --oneliner or the multi-line form (a line
 * starting in column 0 opens a record, indented lines continue it).
 * Whitespace separates pairs; a word without '=' continues the previous
 * value ("OS=Linux 6.1 #1 SMP").  Appends to OUT (mdc_recs_free). */
int mdc_live_parse_records(const char *text, struct mdc_recs *out, struct mdc_ctx *ctx);

/* Parse slurm.conf text for its NodeSet= lines (each one a record:
 * NodeSet=NAME Nodes=... [Feature=...]); comments and other lines are
 * skipped, keys compared case-insensitively.  Appends to OUT. */
int mdc_live_parse_nodesets(const char *conf_text, struct mdc_recs *out, struct mdc_ctx *ctx);

/* The real scontrol: $MDC_SCONTROL if set, else the first "scontrol" on
 * PATH that is not this very program (mdc-scontrol may be installed under
 * that name).  *OUT is malloc'ed; the caller frees it. */
int mdc_live_scontrol_path(char **out, struct mdc_ctx *ctx);

/* Run the real scontrol with ARGS (ARGS[0] is its first argument, not the
 * program; NULL-terminated).  Its stdout goes to OUT and its stderr to ERR
 * when those are non-NULL, else they are inherited.  *STATUS gets the exit
 * code (128+N for a signal).  Returns 0 when scontrol ran at all (whatever
 * its status), MDC_ERR_IO when it could not be started. */
int mdc_live_run(char *const *args, struct mdc_buf *out, struct mdc_buf *err,
		 int *status, struct mdc_ctx *ctx);

/* A command mdc-scontrol hands to the real scontrol: ARGS run with stdin
 * and stdout inherited, ERR gets stderr, *STATUS the exit code; asked
 * again while slurmctld's reconfigure drops it, as our own reads and
 * changes are (a change only when the message proves it was not read).
 * Returns as mdc_live_run. */
int mdc_live_pass(char *const *args, struct mdc_buf *err, int *status, struct mdc_ctx *ctx);

/* Run scontrol ARGS and fail with its stderr as the message (MDC_ERR_IO)
 * unless it exits 0.  OUT (may be NULL) receives stdout. */
int mdc_live_check(char *const *args, struct mdc_buf *out, struct mdc_ctx *ctx);

/* `scontrol show config` into OUT (mdc_kvs_free). */
int mdc_live_config(struct mdc_kvs *out, struct mdc_ctx *ctx);
/* `scontrol show partition --oneliner` into OUT (mdc_recs_free). */
int mdc_live_partitions(struct mdc_recs *out, struct mdc_ctx *ctx);
/* `scontrol show node --oneliner [NODES]` (NODES may be NULL). */
int mdc_live_nodes(const char *nodes, struct mdc_recs *out, struct mdc_ctx *ctx);
/* `scontrol show hostnames LIST`: one node name per entry of OUT. */
int mdc_live_hostnames(const char *hostlist, struct mdc_strv *out, struct mdc_ctx *ctx);

/* `scontrol update|create|delete ...` (ARGS as in mdc_live_run). */
int mdc_live_update(char *const *args, struct mdc_ctx *ctx);

/* The node pool whose NodeSet (in the slurm.conf at CONF_PATH) holds every
 * node of HOSTLIST.  Fails (MDC_ERR_INVAL) when the nodes span pools or
 * are not in any; *WHOLE tells whether they are the whole pool.  *POOL is
 * malloc'ed; the caller frees it. */
int mdc_live_pool_of(const char *conf_path, const char *hostlist, char **pool,
		     bool *whole, struct mdc_ctx *ctx);

/* The NodeSet names (pools) in CONF_PATH whose nodes are all in HOSTLIST
 * and that cover it together (for `Nodes=` of a partition).  Appends to
 * POOLS; fails (MDC_ERR_INVAL) naming a node that no NodeSet covers.
 * A HOSTLIST that names NodeSets directly is accepted too.  *EXACT (may
 * be NULL) tells whether HOSTLIST names every node of those pools. */
int mdc_live_pools_covering(const char *conf_path, const char *hostlist,
			    struct mdc_strv *pools, bool *exact, struct mdc_ctx *ctx);

/* The jobs of PARTITION that still hold it (pending, running, suspended,
 * completing...: any state but the finished ones), from `scontrol show
 * job`: appends "ID (STATE)" to JOBS.  CONF_PATH (may be NULL) is the
 * slurm.conf scontrol reads: when it is missing the call fails at once
 * (MDC_ERR_NOTFOUND) instead of Slurm's 60 s wait for the file. */
int mdc_live_partition_jobs(const char *conf_path, const char *partition, struct mdc_strv *jobs,
			    struct mdc_ctx *ctx);

/* The QOS slurmctld knows (`scontrol show assoc_mgr flags=qos`) into
 * NAMES, *HAVE_LIST false when it keeps none (no slurmdbd: any name is
 * taken), and whether AccountingStorageEnforce holds qos (or all): then a
 * partition QOS= it does not know stops slurmctld at its next start. */
int mdc_live_qos(const char *conf_path, struct mdc_strv *names, bool *have_list, bool *enforced,
		 struct mdc_ctx *ctx);

/* The jobs running (or suspended, completing) on the nodes node pool POOL
 * loses when it keeps KEEP nodes (KEEP < 0: the pool is removed): the
 * nodes of its NodeSet in CONF_PATH beyond KEEP: POOL-K with K >= KEEP,
 * and nodes of other names (a base's own) in NodeSet order past the
 * places the kept POOL-K nodes leave.  Appends
 * "ID (STATE on NODE)" to JOBS.  Fails without CONF_PATH (the NodeSets
 * are read from it). */
int mdc_live_pool_jobs(const char *conf_path, const char *pool, long keep, struct mdc_strv *jobs,
		       struct mdc_ctx *ctx);

/* Are A (wanted) and B (as scontrol shows it) the same setting of KEY?
 * mdc_value_equal_shown (mdc_value.h): times as durations (MaxTime=60
 * equals 01:00:00), words case-insensitively, "(null)" equals "", "30 sec"
 * equals 30 and INFINITE equals UNLIMITED.  Kept for mdc-scontrol. */
bool mdc_live_value_eq(const char *key, const char *a, const char *b);

#endif
