/* emu_int.h - the emulator's private state, shared by its own files only
 * (emu_pr.c sees emu.h).  (owner: emulator) */
#ifndef EMU_INT_H
#define EMU_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include "emu.h"
#include "mdc_rules.h"

enum emu_fault_kind { EMU_FAULT_CODE, EMU_FAULT_LATENCY, EMU_FAULT_DROP, EMU_FAULT_OPFAIL };

struct emu_fault {
	char method[16];	/* "GET", ..., or "*" */
	enum emu_fault_kind kind;
	int code;		/* EMU_FAULT_CODE */
	double rate;		/* CODE, DROP: probability 0..1 */
	int ms;			/* LATENCY */
};

#define EMU_MAX_FAULTS 16

/* --fault create:stockout[:TYPE], create:invalid[:TYPE]: a cluster create
 * (of a pool of machine TYPE; any without) is accepted, then its operation
 * fails with gRPC CODE, as the service's do */
struct emu_create_fault {
	int code;		/* 8 RESOURCE_EXHAUSTED, 3 INVALID_ARGUMENT */
	char machine_type[64];	/* "" = any */
};
#define EMU_MAX_HOOKS 64

struct emu_hook {		/* in-memory done callbacks of running ops */
	char *op;
	emu_op_done_fn fn;
	void *arg;
};

/* A pending operation in the due-queue (a min-heap on DUE). */
struct emu_due {
	double due;
	char *name;
};

/* Finished operations stay readable, as the service keeps them for a while;
 * past this count the oldest are forgotten, so memory and the state file
 * stay bounded. */
#define EMU_KEEP_OPS 1000
/* Beyond the newest EMU_LIVE_OPS finished operations, a response is kept
 * as its JSON text under EMU_RESPONSE_TEXT (parsed again for an answer):
 * a cluster's as json-c objects costs about 2 KB per partition, its text
 * some 65 bytes, and each update's response holds a partition list of
 * its own (1000 updates of 200 partitions: 430 MB as objects). */
#define EMU_LIVE_OPS 16
#define EMU_RESPONSE_TEXT "_response_text"

struct emu {
	pthread_mutex_t lock;
	json_object *store;	/* {kind: {name: resource}} */
	json_object *images;	/* {machine_type: image}, "*" = any other type */
	unsigned long next_op;
	double lro_seconds;
	bool hold_ops;		/* /emulator/v1/operations:hold: nothing finishes */
	bool dirty;		/* the store changed: journal the touched resources */

	/* pending operations, earliest first (the tick looks at the top only) */
	struct emu_due *due;
	size_t ndue, adue;
	/* finished operations, oldest first: a ring of EMU_KEEP_OPS names */
	char *done_ops[EMU_KEEP_OPS];
	size_t done_head, ndone;
	/* {kind: {name: null}}: resources handed out or changed since the last
	 * commit (a borrowed resource may have been changed in place) */
	json_object *touched;
	/* {name: shallow copy}: each cluster's top level as last journaled;
	 * a stored cluster is never changed below its top level (an update
	 * stores a new one sharing what it left alone), so the next line
	 * holds only the members that are other objects now */
	json_object *journaled;
	/* {cluster name: {"op": name, "top": shallow copy}}: the "_final" of
	 * a cluster's running update as journaled, the base of the line that
	 * finishes it */
	json_object *finals;
	/* mdc_json_str_held's holder for journal lines, snapshots and frozen
	 * responses (lock held) */
	json_object *text_holder;

	/* --state: a snapshot (STATE_PATH) plus an append-only journal
	 * (STATE_PATH.journal) of the changes since; both carry the snapshot's
	 * generation so a journal left by an older snapshot is never replayed */
	char *state_path;
	int journal_fd;
	/* group commit: lines are written under LOCK and fdatasync'ed after
	 * it is released, under SYNC_LOCK (taken after LOCK when both are),
	 * so readers never wait for the disk; JSEQ_WRITTEN is atomic */
	pthread_mutex_t sync_lock;
	unsigned long jseq_written, jseq_synced;
	unsigned long gen;
	size_t journal_bytes, snapshot_bytes;
	FILE *log;
	pthread_mutex_t log_lock;
	const char *token, *ro_token;

	struct emu_fault faults[EMU_MAX_FAULTS];
	size_t nfaults;
	bool op_fail;
	struct emu_create_fault create_faults[EMU_MAX_FAULTS];
	size_t ncreate_faults;
	pthread_mutex_t rng_lock;
	unsigned long long rng;

	const char *slurm_conf, *slurm_base, *reload_cmd, *restart_cmd;
	int slurm_release;	/* sc_release.h index: the Slurm the cluster runs */
	double sync_delay;
	char *tls_cert, *tls_key;	/* PEM: serve https (off-loopback labs) */
	bool sync_pending, sync_restart;
	double sync_due;

	struct emu_hook hooks[EMU_MAX_HOOKS];
};

/* emu_state.c */
/* Load the snapshot and replay its journal, clean left-over temporary files,
 * then compact (a fresh snapshot and an empty journal). */
int emu_state_load(struct emu *e, struct mdc_ctx *ctx);
/* Make the journal lines this thread wrote durable (lock NOT held): the
 * answer to a write leaves after this. */
void emu_journal_sync(struct emu *e);
/* Write a full snapshot and start an empty journal (lock held). */
int emu_state_compact(struct emu *e);
/* Free the due-queue, the ring and the journal descriptor. */
void emu_state_free(struct emu *e);
/* Finish due operations (lock held). */
void emu_ops_tick(struct emu *e);
/* Run a due slurm.conf sync command (lock NOT held). */
void emu_sync_tick(struct emu *e);
/* Regenerate slurm.conf from CLUSTER and schedule reload/restart (lock held). */
void emu_sync_schedule(struct emu *e, const json_object *cluster, bool restart);
double emu_now(void);
double emu_random(struct emu *e);

/* emu_cluster.c */
int emu_cluster_route(struct emu *e, struct emu_request *r, struct emu_response *out);
int emu_images_route(struct emu *e, struct emu_request *r, struct emu_response *out);
/* Cluster LRO finished (lock held). */
void emu_cluster_op_done(struct emu *e, json_object *op, bool failed);
/* Answer view of a stored cluster (new reference). */
json_object *emu_cluster_view(const json_object *cluster);
void emu_cluster_keep_texts(json_object *cluster);
/* STATE at the top level and in cluster_status, with one nodes_status
 * entry per node; nodes of the pools in RECREATED (may be NULL) are new at
 * NOW (NULL: the current time) */
void emu_cluster_set_state(json_object *cl, const char *state, const struct mdc_strv *recreated,
			   const char *now);

/* emu_server.c */
int emu_serve(struct emu *e, const char *listen, volatile sig_atomic_t *stop);
/* New reference: OBJ in lowerCamelCase without '_' keys. */
json_object *emu_public(const json_object *obj);

#endif
