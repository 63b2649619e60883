/* sc_translate.h - slurm.conf diff -> intent.  (owner: slurm.conf engine)
 *
 * BASELINE is the slurm.conf as the service generated it (sc_render of the
 * current spec), EDITED the admin's copy.  Each difference becomes a
 * relative op (mdc_intent.h) in the scope the line belongs to:
 *   global Key=Value                      -> MDC_OP_CONFIG_SET / UNSET
 *   a key on a PartitionName line         -> MDC_OP_PART_SET / UNSET
 *   Default=YES on another partition      -> MDC_OP_PART_DEFAULT
 *   a new / removed PartitionName line    -> MDC_OP_PART_CREATE / DELETE
 *   Nodes= of a partition                 -> MDC_OP_PART_POOLS
 *   a key on a pool's NodeName lines      -> MDC_OP_NODESET_SET / UNSET
 * Nodes= elements map to node pools through the baseline's NodeSet lines
 * (NodeSet=<node_pool_id> Nodes=<names>), node names of those NodeSets,
 * the pool ids themselves, and ALL.  Prolog=/Epilog= and other keys the
 * API refuses become out->refusals; service-managed keys and generated
 * node hardware become out->notes.  Every op's `where` is "file:line" of
 * the edited line (of the baseline line for removals).
 *
 * Keys in ops use their canonical spelling (sc_options).  Inherited
 * values of NAME=DEFAULT lines count as set on each record.
 */
#ifndef SC_TRANSLATE_H
#define SC_TRANSLATE_H

#include <json-c/json.h>
#include "mdc_err.h"
#include "mdc_intent.h"
#include "sc_conf.h"

/* Append to OUT (initialised by the caller, who frees it) the changes
 * from BASELINE to EDITED; SPEC (the current cluster, either spelling) names
 * the node pools and the login pool.  Returns 0 or an mdc_err (NOMEM,
 * INVAL for a spec without node pools where one is needed) with CTX. */
int sc_translate(const struct sc_conf *baseline, const struct sc_conf *edited,
		 const json_object *spec, struct mdc_intent *out, struct mdc_ctx *ctx);

#endif
