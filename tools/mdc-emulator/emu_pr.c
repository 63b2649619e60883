/* emu_pr.c - persistent resources and pipeline jobs in the emulator.
 * (owner: persistent-resource engineer; this is the placeholder they
 * replace) */
#include "config.h"
#include "emu.h"

int emu_pr_route(struct emu *e, struct emu_request *r, struct emu_response *out)
{
	(void) e;
	return emu_reply_error(out, "NOT_FOUND", "no route for %s '%s'", r->method, r->path);
}
