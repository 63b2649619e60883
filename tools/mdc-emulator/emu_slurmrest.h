/* emu_slurmrest.h - the cluster's Slurm REST API (callSlurmRestApi),
 * forwarded to the lab's real slurmrestd (emu_slurmrest.c).
 * (owner: slurmrest)
 */
#ifndef EMU_SLURMREST_H
#define EMU_SLURMREST_H

#include <stdbool.h>
#include "emu.h"

/* --slurmrestd ADDR: "unix:/path/to/slurmrestd.sock".  0, or -1 with the
 * message logged. */
int emu_slurmrest_configure(const char *addr);

/* True when R is a call of POST .../modelDevelopmentClusters/ID:callSlurmRestApi
 * (any method: a GET on it is answered by emu_slurmrest_call too). */
bool emu_slurmrest_is_call(const struct emu_request *r);

/* The 403 of a token without modelDevelopmentClusters.run.  Returns 0. */
int emu_slurmrest_denied(const struct emu_request *r, struct emu_response *out);

/* Answer R (lock NOT held: slurmrestd may take seconds and the store must
 * not wait for it).  Returns the answer's text (malloc'ed, sent as is:
 * structuredBody keeps slurmrestd's own key names) or NULL with OUT
 * holding a Google error. */
char *emu_slurmrest_call(struct emu *e, const struct emu_request *r, struct emu_response *out);

#endif
