/* mdc_value.h - slurm.conf values as Slurm reads them: one normaliser per
 * value type, so that plan, verify and drift agree on when two spellings
 * are the same setting (7-0 and 7-00:00:00, 00:10:00 and 10, 4G and 4096,
 * SUSPEND,GANG and GANG,SUSPEND), and the per-key word lists our own checks
 * use before Slurm's parser is asked (mdc_slurmcheck.h).  (owner: verdict)
 *
 * The types come from a table keyed by option name (mdc_value.c), falling
 * back on the option table's type (sc_options.h).
 */
#ifndef MDC_VALUE_H
#define MDC_VALUE_H

#include <stdbool.h>
#include <stddef.h>

enum mdc_vtype {
	MDC_V_STRING,	/* compared as written */
	MDC_V_WORD,	/* a keyword Slurm compares ignoring case */
	MDC_V_UINT,	/* a number; UNLIMITED = INFINITE; "30 sec" is 30 */
	MDC_V_BOOL,	/* YES/NO/TRUE/FALSE/1/0/UP/DOWN */
	MDC_V_TIME,	/* time_str2mins: 10 = 00:10:00, 7-0 = 7-00:00:00 */
	MDC_V_MEMORY,	/* megabytes: 4G = 4096, 1T = 1048576 */
	MDC_V_FLAGS,	/* comma-separated words whose order Slurm ignores */
	MDC_V_PLUGIN,	/* a plugin name, case-sensitive (it names a file) */
};

/* The value type of KEY (any scope; case and underscores ignored). */
enum mdc_vtype mdc_value_type(const char *key);

/* VALUE of KEY in one canonical spelling (malloc'ed, caller frees; NULL
 * when out of memory).  A value that is not of KEY's type comes back as
 * written, so that it compares equal only to itself. */
char *mdc_value_norm(const char *key, const char *value);

/* Are A and B the same setting of KEY as Slurm reads it?  NULL equals
 * only NULL.  Strings compare exactly. */
bool mdc_value_equal(const char *key, const char *a, const char *b);

/* The same, where SHOWN is what scontrol displays for KEY ("(null)" is
 * empty, "30 sec" is 30, INFINITE is UNLIMITED, words in capitals): plain
 * strings also compare ignoring case, since scontrol upper-cases some. */
bool mdc_value_equal_shown(const char *key, const char *want, const char *shown);

/* Our own check of VALUE for KEY: 0 when fine; 1 (a warning: Slurm reads
 * it but ignores what it does not know) or 2 (an error: Slurm refuses the
 * file) with one line in WHY (size WHYSZ) naming the word and what to use. */
int mdc_value_check(const char *key, const char *value, char *why, size_t whysz);

/* Slurm time text to seconds: minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S;
 * -1 for UNLIMITED, INFINITE or -1.  False if VALUE is not a time. */
bool mdc_value_time_s(const char *value, long long *seconds);
/* Megabytes of a memory size (no suffix = MB; K rounds up); -1 for
 * UNLIMITED/INFINITE.  False if VALUE is not a size. */
bool mdc_value_memory_mb(const char *value, long long *mb);
/* 1 for Slurm's true words, 0 for false, -1 if not a boolean. */
int mdc_value_bool(const char *value);

#endif
