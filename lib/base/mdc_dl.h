/* mdc_dl.h - a library loaded on first use (mdc_dl.c): libcurl for https
 * (mdc_http.c) and libcrypto for the broker's digest (mdc_broker.c).
 * Linked, their dependencies cost every tool milliseconds at each start,
 * more than a request to the local emulator takes; loaded, only the runs
 * that need them pay.
 * (owner: client)
 */
#ifndef MDC_DL_H
#define MDC_DL_H

#include <stdbool.h>
#include <stddef.h>

/* One entry point: its name and the offset of its pointer in the table. */
struct mdc_dl_sym {
	const char *name;
	size_t off;
};
#define MDC_DL_SYM(type, member, sym) { #sym, offsetof(type, member) }

/* dlopen SONAME and set each SYMS[i] pointer in TABLE.  True, or false
 * with what failed in ERR (for the caller's message).  Meant for a
 * pthread_once routine: the table is written once, then only read. */
bool mdc_dl_load(const char *soname, const struct mdc_dl_sym *syms, size_t n, void *table,
		 char *err, size_t errlen);

#endif
