/* sc_options.h - the Slurm option tables: every slurm.conf key Slurm 22.05
 * to 25.05 knows, with its canonical spelling, where it may appear and how
 * the managed service treats it.  (owner: slurm.conf engine)
 *
 * Lookup follows DESIGN C7: case-insensitive, underscores ignored, in full.
 */
/* deliberate unit: sc_conf reads keys by sc_options' table, which checks times with sc_conf's */
#ifndef SC_OPTIONS_H
#define SC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

/* Where a key may appear (bit set: some keys are valid in several). */
enum sc_scope {
	SC_SCOPE_CLUSTER   = 1 << 0,	/* a global slurm.conf line */
	SC_SCOPE_PARTITION = 1 << 1,	/* on a PartitionName= line */
	SC_SCOPE_NODE      = 1 << 2,	/* on a NodeName= line (node_sets config) */
	SC_SCOPE_NODESET   = 1 << 3,	/* on a NodeSet= line */
	SC_SCOPE_DOWNNODES = 1 << 4,
	SC_SCOPE_FRONTEND  = 1 << 5,
	SC_SCOPE_DBD       = 1 << 6,	/* slurmdbd.conf, never slurm.conf */
	SC_SCOPE_REMOVED   = 1 << 7,	/* older Slurm's keys that 22.05+ rejects */
};

enum sc_opt_flag {
	SC_OPT_MANAGED  = 1 << 0,	/* service-managed: never sent (ClusterName, paths, ports...) */
	SC_OPT_REFUSED  = 1 << 1,	/* the API rejects it (C10): HealthCheck*, Prolog, Epilog... */
	SC_OPT_RESTART  = 1 << 2,	/* needs a slurmctld restart, not a reconfigure */
	SC_OPT_OBSOLETE = 1 << 3,	/* removed or renamed in 22.05..25.05 */
	SC_OPT_MULTI    = 1 << 4,	/* may repeat (Include, SlurmctldHost...) */
	SC_OPT_RECORD   = 1 << 5,	/* starts a record line (NodeName, PartitionName...): not a config key */
	/* Names a program, script, plugin file or other file that Slurm
	 * runs, loads, reads or writes (as root or as a job's user): whoever
	 * sets it runs code as that user.  Always together with MANAGED or
	 * REFUSED; mdc_rules_check_setting refuses every one of them. */
	SC_OPT_EXEC     = 1 << 6,
};

/* Value types, for checking values before they are sent. */
enum sc_type {
	SC_T_STRING, SC_T_UINT16, SC_T_UINT32, SC_T_UINT64, SC_T_BOOL,	/* YES/NO */
	SC_T_TIME,	/* Slurm time: minutes, MM:SS, HH:MM:SS, D-HH..., INFINITE/UNLIMITED */
	SC_T_ENUM,	/* one of a fixed set (see sc_option.values) */
	SC_T_LIST,	/* comma-separated */
	SC_T_MEMORY,	/* MB with optional suffix */
};

struct sc_option {
	const char *name;	/* canonical spelling: "PriorityWeightAge" */
	unsigned scope;		/* enum sc_scope bits */
	unsigned flags;		/* enum sc_opt_flag bits */
	enum sc_type type;
	const char *values;	/* SC_T_ENUM: "|"-separated allowed values, else NULL */
	const char *why;	/* for MANAGED/REFUSED/OBSOLETE: the reason / what to use instead */
};

/* The option named KEY in any of SCOPE's bits (case and underscores
 * ignored), or NULL.  The table is static: nothing to free. */
const struct sc_option *sc_opt_find(const char *key, unsigned scope);

/* The key OPT is an older name of when Slurm reads both as one setting
 * (partition Shared is OverSubscribe; read_config.c takes OverSubscribe
 * when a line has both), in OPT's scope; NULL when OPT is no alias. */
const struct sc_option *sc_opt_alias_of(const struct sc_option *opt);
/* The older name of canonical OPT (the reverse of sc_opt_alias_of), or NULL. */
const char *sc_opt_alias_name(const struct sc_option *opt);

/* The closest known key in SCOPE for a "did you mean" hint, or NULL. */
const char *sc_opt_suggest(const char *key, unsigned scope);

/* Check VALUE against OPT's type.  Returns true if acceptable; otherwise
 * writes a short reason ("expected a time such as 120 or 2-00:00:00")
 * into WHY (size WHYSZ). */
bool sc_opt_check_value(const struct sc_option *opt, const char *value,
			char *why, size_t whysz);

/* The one number reader of the tree: Slurm 22.05's for a typed key
 * (parse_value.c s_p_handle_uint16/32/64): strtoull base 0 (0x10 is 16,
 * 010 is 8), a k/K suffix (x1024) on UINT32 and UINT64 keys only,
 * UNLIMITED/INFINITE (the type's maximum), nothing after the number, no
 * leading '-', within the type's range.  TYPE is SC_T_UINT16/32/64 (any
 * other reads as UINT64).  NULL if VALUE is one, *OUT (may be NULL) its
 * value; else why not: "expected a number", "number out of range" or
 * "expected a number not below zero". */
const char *sc_value_uint(const char *value, enum sc_type type, unsigned long long *out);

/* The one boolean reader: Slurm's s_p_handle_boolean words, any case:
 * 1 for YES/UP/TRUE/1, 0 for NO/DOWN/FALSE/0, -1 for anything else
 * (NULL, "on", "y": slurmctld refuses those). */
int sc_value_bool(const char *value);
/* sc_value_bool(VALUE) >= 0 */
bool sc_opt_value_is_bool(const char *value);
/* Slurm's time_str2mins forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, and
 * UNLIMITED, INFINITE or -1 (sc_time_minutes). */
bool sc_opt_value_is_time(const char *value);

/* Iterate: the Nth entry (0-based) or NULL past the end. */
const struct sc_option *sc_opt_at(size_t n);
/* Entries in the table; OPT's row is OPT - sc_opt_at(0). */
size_t sc_opt_count(void);

#endif
