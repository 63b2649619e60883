/* sc_render.h - spec -> slurm.conf text.  (owner: slurm.conf engine)
 *
 * The service-managed BASE is slurm.conf text holding what the service
 * owns: the global lines (ClusterName, SlurmctldHost, ports, paths, auth,
 * plugins), the NodeName hardware lines of each compute pool and one
 * `NodeSet=<node_pool_id> Nodes=<nodes>` line per compute pool, which is
 * how a pool maps to Slurm node names.  A compute pool named in the spec
 * without a NodeSet in the base gets generated future nodes
 * (`NodeName=<pool>-[0-N] State=FUTURE`, N from scaling_spec.max_node_count).
 * The login pool (slurm_spec.login_node_pool_id) has no Slurm nodes.
 *
 * The rendered file is: the base's lines, then `config` (and the legacy
 * `scheduling`/`accounting` fields, keys mapped through the option table),
 * node_sets[].config appended to their pool's NodeName lines, and one
 * PartitionName line per partition in spec order with Nodes=<its pools'
 * NodeSet names>, Default=YES on default_partition_id, State=UP, and its
 * config.  Keys are written in their canonical spelling, in a fixed order;
 * values are quoted where Slurm needs it; control characters are refused.
 */
/* layer lib/render/ owns slurm.conf <-> the API's JSON: render, dump, translate;
 * it may include lib/base/ to lib/json/ (scripts/check-layers). */
#ifndef SC_RENDER_H
#define SC_RENDER_H

#include <json-c/json.h>
#include "mdc_buf.h"
#include "mdc_err.h"

/* Append the slurm.conf for SPEC (a ModelDevelopmentCluster, either field
 * spelling) on top of BASE (may be NULL; BASE_NAME names it in messages)
 * to OUT.  Returns 0 or an mdc_err with CTX filled. */
int sc_render(const json_object *spec, const char *base, const char *base_name,
	      struct mdc_buf *out, struct mdc_ctx *ctx);

/* sc_render for Slurm release REL (sc_release.h's index; -1: any): the
 * file that release's slurmctld starts with.  BASE's global lines are the
 * service's own, written as the service writes them for REL: a key REL
 * does not read (removed, defunct, or only a newer release's) is left out,
 * a plugin REL does not ship is replaced by its successor
 * (select/cons_res: select/cons_tres) or left out (Slurm's default);
 * a spec key or plugin REL does not know is refused (MDC_ERR_REFUSED)
 * naming REL. */
int sc_render_rel(const json_object *spec, const char *base, const char *base_name, int rel,
		  struct mdc_buf *out, struct mdc_ctx *ctx);

/* Does release REL know every slurm.conf key (and plugin) SPEC's
 * slurm_spec sets (config, legacy scheduling/accounting, partitions' and
 * node_sets' config)?  0, or MDC_ERR_REFUSED naming the key and REL, with
 * FIELD (FIELDSZ bytes) set to the map's path
 * ("orchestrator_spec.slurm_spec.partitions[0].config"). */
int sc_render_check_release(const json_object *spec, int rel, char *field, size_t fieldsz,
			    struct mdc_ctx *ctx);

/* The service-managed part of a live slurm.conf: the BASE sc_render draws
 * on.  Keeps the global lines whose key the option table
 * marks service-managed (ClusterName, SlurmctldHost, paths, ports...) or
 * that CLUSTER's config (and legacy scheduling/accounting) does not set --
 * the service writes plugins and defaults the spec never names --, the
 * NodeSet, DownNodes, FrontendName and Include lines, and the NodeName
 * lines without the keys CLUSTER's node_sets add to them (CLUSTER may be
 * NULL); drops comments, partitions and the spec's settings, so that
 * rendering the spec over it gives back the live file when both agree.
 * The service writes its own lines first, then what the spec renders
 * (its config keys, then partitions): a global line after the first
 * PartitionName line or the first key the spec sets was added by hand
 * and is left out, so that plan and drift see it as a change.
 * *BASE is malloc'ed; the caller frees it. */
int sc_render_base(const char *live, const json_object *cluster, char **base,
		   struct mdc_ctx *ctx);

#endif
