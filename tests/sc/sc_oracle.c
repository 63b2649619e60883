/* sc_oracle.c - what Slurm's own parser (libslurmfull) reads from a
 * slurm.conf, printed in the line format of sc_readback so the two can be
 * diffed (tests/sh/cli/sc_corpus.t, sc_render_slurm.t).  (owner: slurm.conf engine)
 *
 *   sc_oracle --verdict FILE   slurm_conf_init() in config-test mode:
 *                              prints ACCEPTED or REJECTED, exit 0 or 1
 *   sc_oracle --dump FILE      s_p_parse_file() with slurm_conf_options:
 *                              global keys as typed by Slurm and the records
 *
 * The record structs below are private to Slurm (src/common/read_config.h)
 * and valid for 22.05 only; configure builds this only against 22.05
 * (the test skips otherwise).  Never run it on a file with a missing
 * include: Slurm retries a missing file for 60 s.
 */
#include "config.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <slurm/slurm.h>

/* parse_config.h (22.05): s_p_options_t is 5 words, types as below */
typedef struct sc_sp_option {
	char *key;
	int type;
	void *handler;
	void *destroy;
	void *line_options;
} sc_sp_option_t;
enum { SP_IGNORE, SP_STRING, SP_LONG, SP_UINT16, SP_UINT32, SP_UINT64,
       SP_POINTER, SP_ARRAY, SP_BOOLEAN };
typedef void sp_hashtbl_t;

typedef struct {
	char *nodenames; char *hostnames; char *addresses; char *bcast_addresses;
	char *gres; char *feature; char *port_str; uint32_t cpu_bind; uint16_t cpus;
	char *cpu_spec_list; uint16_t boards; uint16_t tot_sockets; uint16_t cores;
	uint16_t core_spec_cnt; uint16_t threads; uint64_t real_memory;
	uint64_t mem_spec_limit; char *reason; char *state; uint32_t tmp_disk;
	char *tres_weights_str; uint32_t weight;
} node_t;
typedef struct {
	char *allow_alloc_nodes; char *allow_accounts; char *allow_groups;
	char *allow_qos; char *alternate; char *billing_weights_str;
	uint32_t cpu_bind; uint16_t cr_type; uint64_t def_mem_per_cpu;
	bool default_flag; uint32_t default_time; char *deny_accounts;
	char *deny_qos; uint8_t disable_root_jobs; uint16_t exclusive_user;
	uint32_t grace_time; bool hidden_flag; void *job_defaults_list;
	bool lln_flag; uint32_t max_cpus_per_node; uint16_t max_share;
	uint32_t max_time; uint64_t max_mem_per_cpu; uint32_t max_nodes;
	uint32_t min_nodes; char *name; char *nodes; uint16_t over_time_limit;
	uint16_t preempt_mode; uint16_t priority_job_factor; uint16_t priority_tier;
	char *qos_char; bool req_resv_flag; uint16_t resume_timeout;
	bool root_only_flag; uint16_t state_up; uint32_t suspend_time;
	uint16_t suspend_timeout; uint32_t total_nodes; uint32_t total_cpus;
} part_t;
typedef struct { char *feature; char *name; char *nodes; } nodeset_t;
typedef struct { char *nodenames; char *reason; char *state; } down_t;

extern sc_sp_option_t slurm_conf_options[];
extern sp_hashtbl_t *s_p_hashtbl_create(const sc_sp_option_t *opts);
extern int s_p_parse_file(sp_hashtbl_t *t, uint32_t *hash, char *file, bool ignore_new);
extern int s_p_get_string(char **s, const char *key, const sp_hashtbl_t *t);
extern int s_p_get_uint16(uint16_t *n, const char *key, const sp_hashtbl_t *t);
extern int s_p_get_uint32(uint32_t *n, const char *key, const sp_hashtbl_t *t);
extern int s_p_get_uint64(uint64_t *n, const char *key, const sp_hashtbl_t *t);
extern int s_p_get_boolean(bool *b, const char *key, const sp_hashtbl_t *t);
extern int s_p_get_array(void **ptr_array[], int *cnt, const char *key, const sp_hashtbl_t *t);
extern int slurm_conf_init(const char *file);
extern void config_test_start(void);
extern int config_test_result(void);

static const char *s(const char *v)
{
	return v ? v : "(null)";
}

static void u32(const char *k, uint32_t v)
{
	if (v == INFINITE)
		printf(" %s=INFINITE", k);
	else if (v == NO_VAL)
		printf(" %s=(unset)", k);
	else
		printf(" %s=%u", k, v);
}

static void dump(sp_hashtbl_t *t)
{
	const sc_sp_option_t *o;
	void **arr;
	int i, n;

	for (o = slurm_conf_options; o->key; o++) {
		char *str = NULL;
		uint16_t n16;
		uint32_t n32;
		uint64_t n64;
		bool b;

		switch (o->type) {
		case SP_STRING:
			if (s_p_get_string(&str, o->key, t))
				printf("G %s=%s\n", o->key, str);
			/* xmalloc'ed by Slurm: leaked, the process is short-lived */
			break;
		case SP_UINT16:
			if (s_p_get_uint16(&n16, o->key, t))
				printf("G %s=%u\n", o->key, n16);
			break;
		case SP_UINT32:
			if (s_p_get_uint32(&n32, o->key, t))
				printf("G %s=%u\n", o->key, n32);
			break;
		case SP_UINT64:
			if (s_p_get_uint64(&n64, o->key, t))
				printf("G %s=%llu\n", o->key, (unsigned long long) n64);
			break;
		case SP_BOOLEAN:
			if (s_p_get_boolean(&b, o->key, t))
				printf("G %s=%s\n", o->key, b ? "YES" : "NO");
			break;
		default:
			break;
		}
	}
	if (s_p_get_array(&arr, &n, "NodeName", t))
		for (i = 0; i < n; i++) {
			node_t *p = arr[i];

			printf("NodeName=%s NodeHostname=%s NodeAddr=%s Feature=%s Gres=%s State=%s Reason=%s RealMemory=%llu Weight=%u TmpDisk=%u Port=%s\n",
			       s(p->nodenames), s(p->hostnames), s(p->addresses),
			       s(p->feature), s(p->gres), s(p->state), s(p->reason),
			       (unsigned long long) p->real_memory, p->weight,
			       p->tmp_disk, s(p->port_str));
		}
	if (s_p_get_array(&arr, &n, "PartitionName", t))
		for (i = 0; i < n; i++) {
			part_t *p = arr[i];

			printf("PartitionName=%s Nodes=%s Default=%s", s(p->name),
			       s(p->nodes), p->default_flag ? "YES" : "NO");
			u32("MaxTime", p->max_time);
			u32("DefaultTime", p->default_time);
			printf(" PriorityTier=%u PriorityJobFactor=%u Hidden=%s AllowGroups=%s State=%s\n",
			       p->priority_tier, p->priority_job_factor,
			       p->hidden_flag ? "YES" : "NO", s(p->allow_groups),
			       p->state_up == PARTITION_UP ? "UP" :
			       p->state_up == PARTITION_DOWN ? "DOWN" :
			       p->state_up == PARTITION_DRAIN ? "DRAIN" :
			       p->state_up == PARTITION_INACTIVE ? "INACTIVE" : "?");
		}
	if (s_p_get_array(&arr, &n, "NodeSet", t))
		for (i = 0; i < n; i++) {
			nodeset_t *p = arr[i];

			printf("NodeSet=%s Feature=%s Nodes=%s\n", s(p->name),
			       s(p->feature), s(p->nodes));
		}
	if (s_p_get_array(&arr, &n, "DownNodes", t))
		for (i = 0; i < n; i++) {
			down_t *p = arr[i];

			printf("DownNodes=%s Reason=%s State=%s\n", s(p->nodenames),
			       s(p->reason), s(p->state));
		}
}

int main(int argc, char **argv)
{
	sp_hashtbl_t *t;
	uint32_t hash = 0;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: sc_oracle --verdict|--dump slurm.conf\n");
		return 2;
	}
	if (!strcmp(argv[1], "--verdict")) {
		config_test_start();
		slurm_conf_init(argv[2]);
		rc = config_test_result();
		printf("%s\n", rc ? "REJECTED" : "ACCEPTED");
		return rc ? 1 : 0;
	}
	t = s_p_hashtbl_create(slurm_conf_options);
	rc = s_p_parse_file(t, &hash, argv[2], false);
	if (rc)
		printf("PARSE-ERROR\n");
	dump(t);
	return rc ? 1 : 0;
}
