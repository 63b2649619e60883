/* mdc-slurmcheck - Slurm's own parser on one slurm.conf, for
 * lib/mdc_slurmcheck.c, which runs it (mdc_run) and reads what Slurm logs.
 * Not for users: installed in $(pkglibexecdir).  (owner: fix)
 *
 *   mdc-slurmcheck LIBSLURMFULL SLURM_CONF
 *   mdc-slurmcheck LIBSLURMFULL -        (the path on stdin, one line)
 *
 * With "-" it loads the library first and then waits for the path: the
 * caller starts it early, and the load runs while the caller plans
 * (mdc_slurmcheck_prestart).  End of input without a path: exit 3.
 *
 * A program of its own rather than a forked copy of the caller: Slurm's
 * parser keeps global state, calls exit() on fatal errors, and loading a
 * library after fork() in a threaded caller (mdcd) can hang on a lock
 * another thread held.  Exit 0 accepted, 1 refused (or Slurm's own fatal
 * exit), 3 the library could not be used ("mdc-skip: WHY" on stderr),
 * 2 usage.
 */
#include "config.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slurm/slurm_version.h>

/* Slurm's fatal() calls exit(1): our handler, registered last, runs first
 * and ends the process before anything else is torn down. */
static void fatal_exit(void)
{
	fflush(NULL);
	_exit(1);
}

int main(int argc, char **argv)
{
	char path[4096];
	void *h;
	int (*init)(const char *);
	void (*start)(void);
	int (*result)(void);
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: mdc-slurmcheck LIBSLURMFULL SLURM_CONF\n");
		return 2;
	}
	/* Slurm reads SLURM_CONF when no file is given; never the caller's */
	unsetenv("SLURM_CONF");
	/* DEEPBIND: libslurmfull's error() must be its own, not glibc's
	 * error(3) that the global scope would give it (garbage output).
	 * ASan refuses DEEPBIND: there only Slurm's words suffer. */
#if defined(__SANITIZE_ADDRESS__)
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
#else
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
#endif
	if (!h) {
		fprintf(stderr, "mdc-skip: cannot load %s: %s\n", argv[1], dlerror());
		return 3;
	}
	*(void **) &init = dlsym(h, "slurm_conf_init");
	*(void **) &start = dlsym(h, "config_test_start");
	*(void **) &result = dlsym(h, "config_test_result");
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
	/* 24.11 has no config-test mode: slurm_conf_init() calls fatal()
	 * on a file it refuses, which fatal_exit turns into exit 1 */
	if (!init) {
#else
	if (!init || !start || !result) {
#endif
		fprintf(stderr, "mdc-skip: %s has no slurm_conf_init/config_test_start\n", argv[1]);
		return 3;
	}
	if (!strcmp(argv[2], "-")) {
		if (!fgets(path, sizeof(path), stdin) || !strchr(path, '\n')) {
			fprintf(stderr, "mdc-skip: no slurm.conf path on stdin\n");
			return 3;
		}
		*strchr(path, '\n') = '\0';
	} else {
		snprintf(path, sizeof(path), "%s", argv[2]);
	}
	atexit(fatal_exit);
	if (start)
		start();
	rc = init(path);
	if (result)
		rc = result();
	fflush(NULL);
	_exit(rc ? 1 : 0);
}
