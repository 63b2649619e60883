/* sc_options.c - the Slurm option tables.  (owner: slurm.conf engine)
 *
 * Cluster keys: every key of Slurm 22.05's slurm_conf_options (checked by
 * tests/unit/test_sc_options against the installed libslurmfull) plus the
 * keys added up to 26.05.  Which release reads which key (and ships which
 * plugin) is not said here: sc_release_tab.c, generated from each
 * release's source, says it, and sc_release.h judges with it.  Record keys follow read_config.c's per-record
 * option lists.  slurmdbd.conf keys are listed only so they can be refused
 * with a clear reason (DESIGN C10).
 *
 * Every key of 22.05's list that names a program, script, plugin file or
 * other file Slurm runs or opens is flagged EXEC and refused (REFUSED
 * when the spec has another way: the bash-script fields; MANAGED when the
 * service owns it).  Plugin selections (SchedulerType, TaskPlugin...) stay
 * allowed: Slurm 22.05 turns every '/' of a plugin name into '_' and loads
 * it from PluginDir, which is service-managed, so a name cannot reach a
 * file of the user's (src/common/plugin.c plugin_load_and_link).
 */
/* deliberate unit: sc_conf reads keys by sc_options' table, which checks times with sc_conf's */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mdc_hash.h"
#include "mdc_str.h"
#include "sc_conf.h"
#include "sc_options.h"

#define C  SC_SCOPE_CLUSTER
#define P  SC_SCOPE_PARTITION
#define N  SC_SCOPE_NODE
#define NS SC_SCOPE_NODESET
#define DN SC_SCOPE_DOWNNODES
#define FE SC_SCOPE_FRONTEND
#define DB SC_SCOPE_DBD
#define M  SC_OPT_MANAGED
#define R  SC_OPT_REFUSED
#define X  SC_OPT_RESTART
#define O  SC_OPT_OBSOLETE
#define MU SC_OPT_MULTI
#define RE SC_OPT_RECORD
#define EX SC_OPT_EXEC
#define OPT(n, s, f, t, v, w) { n, s, f, t, v, w }

#define HW "generated node hardware: service-managed"

static const struct sc_option opts[] = {
	/* Lines that start a record (read_config.c: S_P_ARRAY keys). */
	OPT("NodeName", C | N, MU | RE, SC_T_STRING, NULL, "a record line, not a setting: nodes come from node_pools (a node set names its pool by node_pool_id)"),
	OPT("PartitionName", C | P, MU | RE, SC_T_STRING, NULL, "a record line, not a setting: partitions are orchestrator_spec.slurm_spec.partitions, named by their id"),
	OPT("NodeSet", C | NS, MU | RE, SC_T_STRING, NULL, "a record line, not a setting: each compute node pool is a NodeSet"),
	OPT("DownNodes", C | DN, MU | RE, SC_T_STRING, NULL, "a record line, not a setting: node states are runtime state (scontrol update NodeName=...)"),
	OPT("FrontendName", C | FE, MU | RE | M, SC_T_STRING, NULL, "front end nodes are service-managed"),
	OPT("Include", C, MU | M | EX, SC_T_STRING, NULL, "names a file slurmctld reads: the service writes slurm.conf"),

	/* Global keys. */
	OPT("AccountingStorageBackupHost", C, M, SC_T_STRING, NULL, "service-managed accounting endpoint"),
	OPT("AccountingStorageEnforce", C, 0, SC_T_LIST, NULL, NULL),
	OPT("AccountingStorageExternalHost", C, M, SC_T_STRING, NULL, "service-managed accounting endpoint"),
	OPT("AccountingStorageHost", C, M, SC_T_STRING, NULL, "service-managed accounting endpoint"),
	OPT("AccountingStorageLoc", C, M | O | EX, SC_T_STRING, NULL, "removed in 20.11"),
	OPT("AccountingStorageParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("AccountingStoragePass", C, M, SC_T_STRING, NULL, "service-managed accounting endpoint"),
	OPT("AccountingStoragePort", C, M, SC_T_UINT16, NULL, "service-managed accounting endpoint"),
	OPT("AccountingStorageTRES", C, 0, SC_T_LIST, NULL, NULL),
	OPT("AccountingStorageType", C, X, SC_T_STRING, NULL, NULL),
	OPT("AccountingStorageUser", C, M, SC_T_STRING, NULL, "service-managed accounting endpoint"),
	OPT("AccountingStoreFlags", C, 0, SC_T_LIST, NULL, NULL),
	OPT("AccountingStoreJobComment", C, O, SC_T_BOOL, NULL, "use AccountingStoreFlags=job_comment"),
	OPT("AcctGatherEnergyType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("AcctGatherFilesystemType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("AcctGatherInfinibandType", C, O, SC_T_STRING, NULL, "use AcctGatherInterconnectType"),
	OPT("AcctGatherInterconnectType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("AcctGatherNodeFreq", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("AcctGatherProfileType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("AllowSpecResourcesUsage", C, 0, SC_T_BOOL, NULL, NULL),
	OPT("AuthAltParameters", C, M | EX, SC_T_STRING, NULL, "service-managed authentication"),
	OPT("AuthAltTypes", C, M | X, SC_T_STRING, NULL, "service-managed authentication"),
	OPT("AuthInfo", C, M | EX, SC_T_STRING, NULL, "service-managed authentication"),
	OPT("AuthType", C, M | X, SC_T_STRING, NULL, "service-managed authentication"),
	OPT("BackupAddr", C, M | O, SC_T_STRING, NULL, "use SlurmctldHost"),
	OPT("BackupController", C, M | O, SC_T_STRING, NULL, "use SlurmctldHost"),
	OPT("BatchStartTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("BcastExclude", C, 0, SC_T_STRING, NULL, NULL),
	OPT("BcastParameters", C, 0, SC_T_LIST, NULL, NULL),
	OPT("BurstBufferParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("BurstBufferType", C, X, SC_T_STRING, NULL, NULL),
	OPT("CliFilterPlugins", C, 0, SC_T_LIST, NULL, NULL),
	OPT("ClusterName", C, M | X, SC_T_STRING, NULL, "the service names the cluster"),
	OPT("CommunicationParameters", C, 0, SC_T_LIST, NULL, NULL),
	OPT("CompleteWait", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("ControlAddr", C, M | O, SC_T_STRING, NULL, "use SlurmctldHost"),
	OPT("ControlMachine", C, M | O, SC_T_STRING, NULL, "use SlurmctldHost"),
	OPT("CoreSpecPlugin", C, 0, SC_T_STRING, NULL, NULL),
	OPT("CpuFreqDef", C, 0, SC_T_STRING, NULL, NULL),
	OPT("CpuFreqGovernors", C, 0, SC_T_STRING, NULL, NULL),
	OPT("CredType", C, M | X, SC_T_STRING, NULL, "service-managed credentials"),
	OPT("CryptoType", C, M | O, SC_T_STRING, NULL, "the job credential plugin is the service's (Slurm reads CryptoType as CredType's older name)"),
	OPT("DebugFlags", C, 0, SC_T_LIST, NULL, NULL),
	OPT("DefCPUPerGPU", C, 0, SC_T_UINT64, NULL, NULL),
	OPT("DefMemPerCPU", C, 0, SC_T_MEMORY, NULL, NULL),
	OPT("DefMemPerGPU", C, 0, SC_T_MEMORY, NULL, NULL),
	OPT("DefMemPerNode", C, 0, SC_T_MEMORY, NULL, NULL),
	OPT("DependencyParameters", C, 0, SC_T_LIST, NULL, NULL),
	OPT("DisableRootJobs", C, 0, SC_T_BOOL, NULL, NULL),
	OPT("EioTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("EnforcePartLimits", C, 0, SC_T_ENUM, "ALL|ANY|NO|YES", NULL),
	OPT("Epilog", C, R | EX, SC_T_STRING, NULL, "use epilog_bash_scripts (mdcctl epilog)"),
	OPT("EpilogMsgTime", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("EpilogSlurmctld", C, R | EX, SC_T_STRING, NULL, "runs a program as root: use epilog_bash_scripts (mdcctl epilog)"),
	OPT("ExtSensorsFreq", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("ExtSensorsType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("FairShareDampeningFactor", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("FastSchedule", C, O, SC_T_UINT16, NULL, "since 20.02 slurmctld ignores it at 1 (\"Ignoring obsolete FastSchedule=1 option\") and stops on any other value"),
	OPT("FederationParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("FirstJobId", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("GetEnvTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("GpuFreqDef", C, 0, SC_T_STRING, NULL, NULL),
	OPT("GresTypes", C, 0, SC_T_LIST, NULL, NULL),
	OPT("GroupUpdateForce", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("GroupUpdateTime", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("HealthCheckInterval", C, R, SC_T_UINT16, NULL, "service-managed health checks"),
	OPT("HealthCheckNodeState", C, R, SC_T_STRING, NULL, "service-managed health checks"),
	OPT("HealthCheckProgram", C, R | EX, SC_T_STRING, NULL, "runs a program as root: the service runs its own health checks"),
	OPT("InactiveLimit", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("InteractiveStepOptions", C, R | EX, SC_T_STRING, NULL, "names the command salloc runs for every user"),
	OPT("JobAcctGatherFrequency", C, 0, SC_T_STRING, NULL, NULL),
	OPT("JobAcctGatherParams", C, 0, SC_T_LIST, NULL, NULL),
	OPT("JobAcctGatherType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("JobCompHost", C, 0, SC_T_STRING, NULL, NULL),
	OPT("JobCompLoc", C, M | EX, SC_T_STRING, NULL, "a file slurmctld writes or a script it runs (jobcomp/filetxt, jobcomp/script): service-managed"),
	OPT("JobCompParams", C, 0, SC_T_STRING, NULL, NULL),
	OPT("JobCompPass", C, 0, SC_T_STRING, NULL, NULL),
	OPT("JobCompPort", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("JobCompType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("JobCompUser", C, 0, SC_T_STRING, NULL, NULL),
	OPT("JobContainerType", C, X, SC_T_STRING, NULL, NULL),
	OPT("JobCredentialPrivateKey", C, M | O | EX, SC_T_STRING, NULL, "names the service's job credential key file"),
	OPT("JobCredentialPublicCertificate", C, M | O | EX, SC_T_STRING, NULL, "names the service's job credential certificate"),
	OPT("JobFileAppend", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("JobRequeue", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("JobSubmitPlugins", C, M | EX, SC_T_LIST, NULL, "the job_submit plugins run inside slurmctld: the service sets them"),
	OPT("KeepAliveTime", C, O, SC_T_UINT32, NULL, "use CommunicationParameters=keepalivetime"),
	OPT("KillOnBadExit", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("KillWait", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("LaunchParameters", C, 0, SC_T_LIST, NULL, NULL),
	OPT("LaunchType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("Licenses", C, 0, SC_T_LIST, NULL, NULL),
	OPT("LogTimeFormat", C, 0, SC_T_STRING, NULL, NULL),
	OPT("MailDomain", C, 0, SC_T_STRING, NULL, NULL),
	OPT("MailProg", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("MaxArraySize", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("MaxDBDMsgs", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("MaxJobCount", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("MaxJobId", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("MaxMemPerCPU", C, 0, SC_T_MEMORY, NULL, NULL),
	OPT("MaxMemPerNode", C, 0, SC_T_MEMORY, NULL, NULL),
	OPT("MaxNodeCount", C, X, SC_T_UINT32, NULL, NULL),
	OPT("MaxStepCount", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("MaxTasksPerNode", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("MCSParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("MCSPlugin", C, 0, SC_T_STRING, NULL, NULL),
	OPT("MessageTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("MinJobAge", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("MpiDefault", C, X, SC_T_STRING, NULL, NULL),
	OPT("MpiParams", C, 0, SC_T_LIST, NULL, NULL),
	OPT("NodeFeaturesPlugins", C, 0, SC_T_STRING, NULL, NULL),
	OPT("OverTimeLimit", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("PluginDir", C, M | X | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("PlugStackConfig", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("PowerParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("PowerPlugin", C, 0, SC_T_STRING, NULL, NULL),
	OPT("PreemptExemptTime", C, 0, SC_T_TIME, NULL, NULL),
	OPT("PreemptMode", C, 0, SC_T_LIST, NULL, NULL),
	OPT("PreemptType", C, 0, SC_T_ENUM, "preempt/none|preempt/partition_prio|preempt/qos", NULL),
	OPT("PrEpParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("PrEpPlugins", C, 0, SC_T_STRING, NULL, NULL),
	OPT("PriorityCalcPeriod", C, 0, SC_T_TIME, NULL, NULL),
	OPT("PriorityDecayHalfLife", C, 0, SC_T_TIME, NULL, NULL),
	OPT("PriorityFavorSmall", C, 0, SC_T_BOOL, NULL, NULL),
	OPT("PriorityFlags", C, 0, SC_T_LIST, NULL, NULL),
	OPT("PriorityMaxAge", C, 0, SC_T_TIME, NULL, NULL),
	OPT("PriorityParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("PrioritySiteFactorParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("PrioritySiteFactorPlugin", C, 0, SC_T_STRING, NULL, NULL),
	OPT("PriorityType", C, 0, SC_T_ENUM, "priority/basic|priority/multifactor", NULL),
	OPT("PriorityUsageResetPeriod", C, 0, SC_T_ENUM, "NONE|NOW|DAILY|WEEKLY|MONTHLY|QUARTERLY|YEARLY", NULL),
	OPT("PriorityWeightAge", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("PriorityWeightAssoc", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("PriorityWeightFairshare", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("PriorityWeightJobSize", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("PriorityWeightPartition", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("PriorityWeightQOS", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("PriorityWeightTRES", C, 0, SC_T_LIST, NULL, NULL),
	OPT("PrivateData", C, 0, SC_T_LIST, NULL, NULL),
	OPT("ProctrackType", C, X, SC_T_STRING, NULL, NULL),
	OPT("Prolog", C, R | EX, SC_T_STRING, NULL, "use prolog_bash_scripts (mdcctl prolog)"),
	OPT("PrologEpilogTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("PrologFlags", C, 0, SC_T_LIST, NULL, NULL),
	OPT("PrologSlurmctld", C, R | EX, SC_T_STRING, NULL, "runs a program as root: use prolog_bash_scripts (mdcctl prolog)"),
	OPT("PropagatePrioProcess", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("PropagateResourceLimits", C, 0, SC_T_LIST, NULL, NULL),
	OPT("PropagateResourceLimitsExcept", C, 0, SC_T_LIST, NULL, NULL),
	OPT("RebootProgram", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("ReconfigFlags", C, 0, SC_T_LIST, NULL, NULL),
	OPT("RequeueExit", C, R, SC_T_STRING, NULL, "the service manages requeueing"),
	OPT("RequeueExitHold", C, R, SC_T_STRING, NULL, "the service manages requeueing"),
	OPT("ResumeFailProgram", C, M | EX, SC_T_STRING, NULL, "the service scales node pools"),
	OPT("ResumeProgram", C, M | EX, SC_T_STRING, NULL, "the service scales node pools"),
	OPT("ResumeRate", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("ResumeTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("ResvEpilog", C, R | EX, SC_T_STRING, NULL, "runs a program as root when a reservation ends: not supported on a managed cluster"),
	OPT("ResvOverRun", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("ResvProlog", C, R | EX, SC_T_STRING, NULL, "runs a program as root when a reservation starts: not supported on a managed cluster"),
	OPT("ReturnToService", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("RoutePlugin", C, 0, SC_T_STRING, NULL, NULL),
	OPT("SallocDefaultCommand", C, O | R | EX, SC_T_STRING, NULL, "names the command salloc runs for every user (removed in 20.11)"),
	OPT("SbcastParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("SchedulerAuth", C, 0, SC_T_STRING, NULL, NULL),
	OPT("SchedulerParameters", C, 0, SC_T_LIST, NULL, NULL),
	OPT("SchedulerTimeSlice", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("SchedulerType", C, X, SC_T_ENUM, "sched/backfill|sched/builtin", NULL),
	OPT("ScronParameters", C, 0, SC_T_LIST, NULL, NULL),
	OPT("SelectType", C, X, SC_T_ENUM, "select/cons_tres|select/cons_res|select/linear|select/cray_aries", NULL),
	OPT("SelectTypeParameters", C, X, SC_T_LIST, NULL, NULL),
	OPT("SlurmctldAddr", C, M, SC_T_STRING, NULL, "the service runs slurmctld"),
	OPT("SlurmctldDebug", C, 0, SC_T_STRING, NULL, NULL),
	OPT("SlurmctldHost", C, M | MU, SC_T_STRING, NULL, "the service runs slurmctld"),
	OPT("SlurmctldLogFile", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("SlurmctldParameters", C, 0, SC_T_LIST, NULL, NULL),
	OPT("SlurmctldPidFile", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("SlurmctldPlugstack", C, 0, SC_T_STRING, NULL, NULL),
	OPT("SlurmctldPort", C, M | X, SC_T_STRING, NULL, "service-managed port"),
	OPT("SlurmctldPrimaryOffProg", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("SlurmctldPrimaryOnProg", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("SlurmctldSyslogDebug", C, 0, SC_T_STRING, NULL, NULL),
	OPT("SlurmctldTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("SlurmdDebug", C, 0, SC_T_STRING, NULL, NULL),
	OPT("SlurmdLogFile", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("SlurmdParameters", C, 0, SC_T_LIST, NULL, NULL),
	OPT("SlurmdPidFile", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("SlurmdPort", C, M | X, SC_T_UINT32, NULL, "service-managed port"),
	OPT("SlurmdSpoolDir", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("SlurmdSyslogDebug", C, 0, SC_T_STRING, NULL, NULL),
	OPT("SlurmdTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("SlurmdUser", C, M, SC_T_STRING, NULL, "service-managed account"),
	OPT("SlurmSchedLogFile", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("SlurmSchedLogLevel", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("SlurmUser", C, M, SC_T_STRING, NULL, "service-managed account"),
	OPT("SrunEpilog", C, R | EX, SC_T_STRING, NULL, "runs a program in every srun as its user: use epilog_bash_scripts (mdcctl epilog)"),
	OPT("SrunPortRange", C, M, SC_T_STRING, NULL, "service-managed ports"),
	OPT("SrunProlog", C, R | EX, SC_T_STRING, NULL, "runs a program in every srun as its user: use prolog_bash_scripts (mdcctl prolog)"),
	OPT("StateSaveLocation", C, M | X | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("SuspendExcNodes", C, 0, SC_T_LIST, NULL, NULL),
	OPT("SuspendExcParts", C, 0, SC_T_LIST, NULL, NULL),
	OPT("SuspendProgram", C, M | EX, SC_T_STRING, NULL, "the service scales node pools"),
	OPT("SuspendRate", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("SuspendTime", C, 0, SC_T_TIME, NULL, NULL),
	OPT("SuspendTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("SwitchParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("SwitchType", C, X, SC_T_STRING, NULL, NULL),
	OPT("TaskEpilog", C, R | EX, SC_T_STRING, NULL, "runs a program in every job as its user: use epilog_bash_scripts (mdcctl epilog)"),
	OPT("TaskPlugin", C, X, SC_T_STRING, NULL, NULL),
	OPT("TaskPluginParam", C, 0, SC_T_LIST, NULL, NULL),
	OPT("TaskProlog", C, R | EX, SC_T_STRING, NULL, "runs a program in every job as its user: use prolog_bash_scripts (mdcctl prolog)"),
	OPT("TCPTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("TmpFS", C, M | EX, SC_T_STRING, NULL, "service-managed path"),
	OPT("TopologyParam", C, 0, SC_T_LIST, NULL, NULL),
	OPT("TopologyPlugin", C, X, SC_T_STRING, NULL, NULL),
	OPT("TrackWCKey", C, 0, SC_T_BOOL, NULL, NULL),
	OPT("TreeWidth", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("UnkillableStepProgram", C, R | EX, SC_T_STRING, NULL, "runs a program as root on the compute nodes: the service handles unkillable steps"),
	OPT("UnkillableStepTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("UsePAM", C, 0, SC_T_BOOL, NULL, NULL),
	OPT("VSizeFactor", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("WaitTime", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("X11Parameters", C, 0, SC_T_LIST, NULL, NULL),
	OPT("SuspendExcStates", C, 0, SC_T_STRING, NULL, NULL),
	OPT("HashPlugin", C, 0, SC_T_STRING, NULL, NULL),
	OPT("MaxBatchRequeue", C, 0, SC_T_UINT32, NULL, NULL),
	OPT("PrologTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("EpilogTimeout", C, 0, SC_T_UINT16, NULL, NULL),
	OPT("TLSType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("TLSParameters", C, M | EX, SC_T_STRING, NULL, "names certificate files: service-managed"),
	OPT("CertmgrType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("CertmgrParameters", C, R | EX, SC_T_STRING, NULL, "names scripts slurmctld runs as root"),
	OPT("UrlParserType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("DataParserParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("AccountingStorageTLS", C, 0, SC_T_STRING, NULL, NULL),
	OPT("PreemptParameters", C, 0, SC_T_LIST, NULL, NULL),
	/* 26.05's keys (sc_release_tab.c: read by 26.05 only) */
	OPT("PowerAction", C, MU | RE | R | EX, SC_T_STRING, NULL, "a record line naming a program slurmctld runs: the service scales node pools"),
	OPT("CertgenType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("CertgenParameters", C, R | EX, SC_T_STRING, NULL, "names scripts slurmctld runs as root"),
	OPT("CliFilterParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("HealthCheckTimeout", C, R, SC_T_UINT16, NULL, "service-managed health checks"),
	OPT("HttpParserType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("JobCompPassScript", C, R | EX, SC_T_STRING, NULL, "names a script slurmctld runs as root"),
	OPT("LicenseParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("MetricsAuthUsers", C, 0, SC_T_LIST, NULL, NULL),
	OPT("MetricsParameters", C, 0, SC_T_STRING, NULL, NULL),
	OPT("MetricsType", C, 0, SC_T_STRING, NULL, NULL),
	OPT("NamespaceType", C, X, SC_T_STRING, NULL, NULL),
	OPT("SlurmctldHttpAuthParameters", C, M, SC_T_STRING, NULL, "service-managed authentication"),
	OPT("SlurmdHttpAuthParameters", C, M, SC_T_STRING, NULL, "service-managed authentication"),
	/* PartitionName= lines (read_config.c _parse_partitionname). */
	OPT("AllocNodes", P, 0, SC_T_LIST, NULL, NULL),
	OPT("AllowAccounts", P, 0, SC_T_LIST, NULL, NULL),
	OPT("AllowGroups", P | FE, 0, SC_T_LIST, NULL, NULL),
	OPT("AllowQos", P, 0, SC_T_LIST, NULL, NULL),
	OPT("Alternate", P, 0, SC_T_STRING, NULL, NULL),
	OPT("CpuBind", P | N, 0, SC_T_STRING, NULL, NULL),
	OPT("DefCPUPerGPU", P, 0, SC_T_UINT64, NULL, NULL),
	OPT("DefMemPerCPU", P, 0, SC_T_MEMORY, NULL, NULL),
	OPT("DefMemPerGPU", P, 0, SC_T_MEMORY, NULL, NULL),
	OPT("DefMemPerNode", P, 0, SC_T_MEMORY, NULL, NULL),
	OPT("Default", P, R, SC_T_BOOL, NULL, "use default_partition_id (mdcctl partition default)"),
	OPT("DefaultTime", P, 0, SC_T_TIME, NULL, NULL),
	OPT("DenyAccounts", P, 0, SC_T_LIST, NULL, NULL),
	OPT("DenyQos", P, 0, SC_T_LIST, NULL, NULL),
	OPT("DisableRootJobs", P, 0, SC_T_BOOL, NULL, NULL),
	OPT("ExclusiveTopo", P, 0, SC_T_BOOL, NULL, NULL),
	OPT("ExclusiveUser", P, 0, SC_T_BOOL, NULL, NULL),
	OPT("GraceTime", P, 0, SC_T_UINT32, NULL, NULL),
	OPT("Hidden", P, 0, SC_T_BOOL, NULL, NULL),
	OPT("LLN", P, 0, SC_T_BOOL, NULL, NULL),
	OPT("MaxCPUsPerNode", P, 0, SC_T_UINT32, NULL, NULL),
	OPT("MaxCPUsPerSocket", P, 0, SC_T_UINT32, NULL, NULL),
	OPT("MaxMemPerCPU", P, 0, SC_T_MEMORY, NULL, NULL),
	OPT("MaxMemPerNode", P, 0, SC_T_MEMORY, NULL, NULL),
	OPT("MaxNodes", P, 0, SC_T_UINT32, NULL, NULL),
	OPT("MaxTime", P, 0, SC_T_TIME, NULL, NULL),
	OPT("MinNodes", P, 0, SC_T_UINT32, NULL, NULL),
	OPT("Nodes", P | NS, M, SC_T_LIST, NULL, "use the partition's node_pool_ids"),
	OPT("OverSubscribe", P, 0, SC_T_STRING, NULL, NULL),
	OPT("OverTimeLimit", P, 0, SC_T_UINT16, NULL, NULL),
	OPT("PowerDownOnIdle", P, 0, SC_T_BOOL, NULL, NULL),
	OPT("PreemptMode", P, 0, SC_T_LIST, NULL, NULL),
	OPT("Priority", P, O, SC_T_UINT16, NULL, "use PriorityJobFactor and PriorityTier"),
	OPT("PriorityJobFactor", P, 0, SC_T_UINT16, NULL, NULL),
	OPT("PriorityTier", P, 0, SC_T_UINT16, NULL, NULL),
	OPT("QOS", P, 0, SC_T_STRING, NULL, NULL),
	OPT("ReqResv", P, 0, SC_T_BOOL, NULL, NULL),
	OPT("ResumeTimeout", P, 0, SC_T_UINT16, NULL, NULL),
	OPT("RootOnly", P, 0, SC_T_BOOL, NULL, NULL),
	OPT("SelectTypeParameters", P, 0, SC_T_STRING, NULL, NULL),
	OPT("Shared", P, O, SC_T_STRING, NULL, "use OverSubscribe"),
	OPT("Exclusive", P, 0, SC_T_ENUM, "NO|NODE|USER|TOPO", NULL),
	OPT("State", P, 0, SC_T_ENUM, "UP|DOWN|DRAIN|INACTIVE", NULL),
	OPT("SuspendTime", P, 0, SC_T_TIME, NULL, NULL),
	OPT("SuspendTimeout", P, 0, SC_T_UINT16, NULL, NULL),
	OPT("Topology", P | N, 0, SC_T_STRING, NULL, NULL),
	OPT("TRESBillingWeights", P, 0, SC_T_LIST, NULL, NULL),

	/* NodeName= lines (read_config.c _parse_nodename). */
	OPT("BcastAddr", N, M, SC_T_STRING, NULL, HW),
	OPT("Boards", N, M, SC_T_UINT16, NULL, HW),
	OPT("CoreSpecCount", N, 0, SC_T_UINT16, NULL, NULL),
	OPT("CoresPerSocket", N, M, SC_T_UINT16, NULL, HW),
	OPT("CPUs", N, M, SC_T_UINT16, NULL, HW),
	OPT("CPUSpecList", N, 0, SC_T_STRING, NULL, NULL),
	OPT("Feature", N | NS, 0, SC_T_LIST, NULL, NULL),
	OPT("Features", N, 0, SC_T_LIST, NULL, NULL),
	OPT("Gres", N, 0, SC_T_LIST, NULL, NULL),
	OPT("GresConf", N, M | EX, SC_T_STRING, NULL, "gres.conf lines name device files: " HW),
	OPT("MemSpecLimit", N, 0, SC_T_UINT64, NULL, NULL),
	OPT("NodeAddr", N, M, SC_T_STRING, NULL, HW),
	OPT("NodeHostname", N, M, SC_T_STRING, NULL, HW),
	OPT("Parameters", N, 0, SC_T_STRING, NULL, NULL),
	OPT("Port", N | FE, M, SC_T_STRING, NULL, "service-managed port"),
	OPT("Procs", N, M | O, SC_T_UINT16, NULL, "use CPUs"),
	OPT("RealMemory", N, M, SC_T_UINT64, NULL, HW),
	OPT("Reason", N | DN | FE, 0, SC_T_STRING, NULL, NULL),
	OPT("RestrictedCoresPerGPU", N, 0, SC_T_UINT16, NULL, NULL),
	OPT("Sockets", N, M, SC_T_UINT16, NULL, HW),
	OPT("SuspendTime", N, 0, SC_T_STRING, NULL, NULL),
	OPT("SocketsPerBoard", N, M, SC_T_UINT16, NULL, HW),
	OPT("State", N | DN | FE, 0, SC_T_STRING, NULL, NULL),
	OPT("ThreadsPerCore", N, M, SC_T_UINT16, NULL, HW),
	OPT("TmpDisk", N, 0, SC_T_UINT32, NULL, NULL),
	OPT("TRESWeights", N, 0, SC_T_LIST, NULL, NULL),
	OPT("Weight", N, 0, SC_T_UINT32, NULL, NULL),

	/* FrontendName= lines. */
	OPT("AllowUsers", FE, 0, SC_T_LIST, NULL, NULL),
	OPT("DenyGroups", FE, 0, SC_T_LIST, NULL, NULL),
	OPT("DenyUsers", FE, 0, SC_T_LIST, NULL, NULL),
	OPT("FrontendAddr", FE, 0, SC_T_STRING, NULL, NULL),

	/* slurmdbd.conf: never in slurm.conf, refused by the API (C10). */
#define DBD(n) OPT(n, DB, R, SC_T_STRING, NULL, "a slurmdbd.conf parameter, managed by the service")
	DBD("ArchiveDir"), DBD("ArchiveEvents"), DBD("ArchiveJobs"), DBD("ArchiveResvs"),
	DBD("ArchiveScript"), DBD("ArchiveSteps"), DBD("ArchiveSuspend"), DBD("ArchiveTXN"),
	DBD("ArchiveUsage"), DBD("CommitDelay"), DBD("DbdAddr"), DBD("DbdBackupHost"),
	DBD("DbdHost"), DBD("DbdPort"), DBD("DebugLevel"), DBD("DebugLevelSyslog"),
	DBD("DefaultQOS"), DBD("LogFile"), DBD("MaxQueryTimeRange"), DBD("PidFile"),
	DBD("PurgeEventAfter"), DBD("PurgeJobAfter"), DBD("PurgeResvAfter"),
	DBD("PurgeStepAfter"), DBD("PurgeSuspendAfter"), DBD("PurgeTXNAfter"),
	DBD("PurgeUsageAfter"), DBD("StorageBackupHost"), DBD("StorageHost"),
	DBD("StorageLoc"), DBD("StorageParameters"), DBD("StoragePass"),
	DBD("StoragePort"), DBD("StorageType"), DBD("StorageUser"),
	DBD("TrackSlurmctldDown"), DBD("AllowNoDefAcct"),
#undef DBD

	/* Keys of older Slurm that 22.05 and later reject: known only to
	 * explain the error. */
#define GONE(n, w) OPT(n, SC_SCOPE_REMOVED, O, SC_T_STRING, NULL, w)
	GONE("CacheGroups", "removed in 17.11"),
	GONE("CheckpointType", "removed in 20.11"),
	GONE("JobCheckpointDir", "removed in 20.11"),
	GONE("MemLimitEnforce", "removed in 19.05: use JobAcctGatherParams=OverMemoryKill"),
	GONE("SchedulerPort", "removed in 19.05"),
	GONE("SchedulerRootFilter", "removed in 17.11"),
	GONE("DefaultStorageHost", "removed: use AccountingStorageHost"),
	GONE("DefaultStorageLoc", "removed: use AccountingStorageLoc"),
	GONE("DefaultStoragePass", "removed: use AccountingStoragePass"),
	GONE("DefaultStoragePort", "removed: use AccountingStoragePort"),
	GONE("DefaultStorageType", "removed: use AccountingStorageType"),
	GONE("DefaultStorageUser", "removed: use AccountingStorageUser"),
	GONE("HashBase", "removed in 1.x"),
	GONE("HeartbeatInterval", "removed in 1.x"),
	GONE("SrunIOTimeout", "removed"),
	GONE("MaxMemPerTask", "removed: use MaxMemPerCPU"),
	GONE("DefMemPerTask", "removed: use DefMemPerCPU"),
#undef GONE
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

const struct sc_option *sc_opt_at(size_t n)
{
	return n < NOPTS ? &opts[n] : NULL;
}

size_t sc_opt_count(void)
{
	return NOPTS;
}

/* The name index: a name's first row in the table, and for each row the
 * next row with the same name (NOPTS: none), so a lookup returns the first
 * row of the right scope, as a scan of the table in order would.  Built
 * once (plugins look keys up from several threads). */
static struct mdc_hash opt_index = MDC_HASH_INIT(MDC_HASH_KEY);
static size_t opt_next[NOPTS];
static bool opt_indexed;
static pthread_once_t opt_once = PTHREAD_ONCE_INIT;

static void opt_index_build(void)
{
	for (size_t i = NOPTS; i-- > 0;) {
		size_t j;

		opt_next[i] = mdc_hash_get(&opt_index, opts[i].name, &j) ? j : NOPTS;
		if (mdc_hash_put(&opt_index, opts[i].name, i, true)) {
			mdc_hash_free(&opt_index);
			return;
		}
	}
	opt_indexed = true;
}

const struct sc_option *sc_opt_find(const char *key, unsigned scope)
{
	size_t i;

	if (!key)
		return NULL;
	pthread_once(&opt_once, opt_index_build);
	if (!opt_indexed) {
		/* no memory for the index: scan */
		for (i = 0; i < NOPTS; i++)
			if ((opts[i].scope & scope) && mdc_key_eq(opts[i].name, key))
				return &opts[i];
		return NULL;
	}
	if (!mdc_hash_get(&opt_index, key, &i))
		return NULL;
	for (; i < NOPTS; i = opt_next[i])
		if (opts[i].scope & scope)
			return &opts[i];
	return NULL;
}

/* Pure renames only: a key whose value must be rewritten as well
 * (AcctGatherInfinibandType's plugin name, KeepAliveTime's place in
 * CommunicationParameters) or that is service-managed (Procs) is none. */
static const struct { const char *alias, *canon; unsigned scope; } aliases[] = {
	{ "Shared", "OverSubscribe", SC_SCOPE_PARTITION },
};

const struct sc_option *sc_opt_alias_of(const struct sc_option *opt)
{
	for (size_t i = 0; opt && i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if ((opt->scope & aliases[i].scope) && !strcmp(opt->name, aliases[i].alias))
			return sc_opt_find(aliases[i].canon, aliases[i].scope);
	return NULL;
}

const char *sc_opt_alias_name(const struct sc_option *opt)
{
	for (size_t i = 0; opt && i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if ((opt->scope & aliases[i].scope) && !strcmp(opt->name, aliases[i].canon))
			return aliases[i].alias;
	return NULL;
}

/* Fold a key for distance: lower case, no underscores. */
static size_t fold(const char *s, char *out, size_t outsz)
{
	size_t n = 0;

	for (; *s && n + 1 < outsz; s++)
		if (*s != '_')
			out[n++] = (char) tolower((unsigned char) *s);
	out[n] = '\0';
	return n;
}

const char *sc_opt_suggest(const char *key, unsigned scope)
{
	char a[64], b[64];
	size_t la, lb, i, d, best = (size_t) -1;
	const char *name = NULL;

	if (!key)
		return NULL;
	la = fold(key, a, sizeof(a));
	for (i = 0; i < NOPTS; i++) {
		if (!(opts[i].scope & scope) || (opts[i].flags & SC_OPT_OBSOLETE))
			continue;
		lb = fold(opts[i].name, b, sizeof(b));
		d = mdc_str_distance(a, la, b, lb);
		/* a prefix typo ("PriorityWeightQ") is as good as one edit */
		if (la >= 4 && lb > la && !strncmp(a, b, la) && d > 1)
			d = 2;
		if (d < best) {
			best = d;
			name = opts[i].name;
		}
	}
	/* further than a third of the key: not a typo of it */
	return best <= (la / 3 > 2 ? la / 3 : 2) ? name : NULL;
}

static bool is_unlimited(const char *v)
{
	return !strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE");
}

const char *sc_value_uint(const char *v, enum sc_type type, unsigned long long *out)
{
	unsigned long long max = type == SC_T_UINT16 ? 0xffffULL :
				 type == SC_T_UINT32 ? 0xffffffffULL : ~0ULL;
	unsigned long long n;
	char *end;

	if (!v)
		return "expected a number";
	errno = 0;
	n = strtoull(v, &end, 0);
	if (type != SC_T_UINT16 && (*end == 'k' || *end == 'K')) {
		n *= 1024;
		end++;
	}
	if (*end) {
		if (!is_unlimited(v))
			return "expected a number";
		n = max;
	} else if (errno == ERANGE || n > max) {
		return "number out of range";
	} else if (v[0] == '-') {
		return "expected a number not below zero";
	}
	if (out)
		*out = n;
	return NULL;
}

static bool check_uint(const char *v, enum sc_type type)
{
	return *v && !sc_value_uint(v, type, NULL);
}

int sc_value_bool(const char *v)
{
	static const char *const yes[] = { "yes", "up", "true", "1" };
	static const char *const no[] = { "no", "down", "false", "0" };

	for (size_t i = 0; v && i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(v, yes[i]))
			return 1;
		if (!strcasecmp(v, no[i]))
			return 0;
	}
	return -1;
}

bool sc_opt_value_is_bool(const char *v)
{
	return sc_value_bool(v) >= 0;
}

/* Slurm's time_str2mins formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. */
bool sc_opt_value_is_time(const char *v)
{
	/* Slurm's time_str2mins, as the parser applies it: one reading */
	return sc_time_minutes(v) != -1;
}

static bool check_memory(const char *v)
{
	char *end;

	if (is_unlimited(v))
		return true;
	if (!isdigit((unsigned char) *v))
		return false;
	(void) strtoull(v, &end, 10);
	if (*end && strchr("KkMmGgTtPp", *end))
		end++;
	return *end == '\0';
}

static bool check_enum(const char *values, const char *v)
{
	const char *p = values, *bar;
	size_t n;

	while (p && *p) {
		bar = strchr(p, '|');
		n = bar ? (size_t) (bar - p) : strlen(p);
		if (strlen(v) == n && !strncasecmp(p, v, n))
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

bool sc_opt_check_value(const struct sc_option *opt, const char *value,
			char *why, size_t whysz)
{
	const char *reason = NULL;

	if (!opt || !value)
		reason = "missing value";
	else if (mdc_has_ctrl(value))
		reason = "control characters (newline, tab...) are not allowed";
	else switch (opt->type) {
	case SC_T_UINT16:
		if (!check_uint(value, SC_T_UINT16))
			reason = "expected a number from 0 to 65535 or UNLIMITED";
		break;
	case SC_T_UINT32:
		if (!check_uint(value, SC_T_UINT32))
			reason = "expected a number from 0 to 4294967295 or UNLIMITED";
		break;
	case SC_T_UINT64:
		if (!check_uint(value, SC_T_UINT64))
			reason = "expected a number or UNLIMITED";
		break;
	case SC_T_BOOL:
		if (!sc_opt_value_is_bool(value))
			reason = "expected YES or NO";
		break;
	case SC_T_TIME:
		if (!sc_opt_value_is_time(value))
			reason = "expected a time such as 120, 2:00:00 or 2-00:00:00, or UNLIMITED";
		break;
	case SC_T_MEMORY:
		if (!check_memory(value))
			reason = "expected megabytes such as 4096 or 4G";
		break;
	case SC_T_ENUM:
		if (!check_enum(opt->values, value)) {
			if (why && whysz)
				snprintf(why, whysz, "expected one of %s", opt->values);
			return false;
		}
		break;
	case SC_T_STRING:
	case SC_T_LIST:
		break;
	}
	if (reason) {
		if (why && whysz)
			snprintf(why, whysz, "%s", reason);
		return false;
	}
	return true;
}
