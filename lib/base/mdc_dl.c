/* mdc_dl.c - load a library on first use and resolve its entry points
 * into a table of typed function pointers.
 * (owner: client) */
#include "config.h"
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "mdc_dl.h"

bool mdc_dl_load(const char *soname, const struct mdc_dl_sym *syms, size_t n, void *table,
		 char *err, size_t errlen)
{
	/* never closed: the process keeps using it */
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(err, errlen, "%s", dlerror());
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f) {
			snprintf(err, errlen, "no %s in %s", syms[i].name, soname);
			return false;
		}
		/* POSIX: a function's address travels through void * */
		memcpy((char *) table + syms[i].off, &f, sizeof(f));
	}
	return true;
}
