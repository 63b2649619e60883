# emu.sh - start the built mdc-emulator for a shell test (source after tap.sh).
#
#   emu_start [extra mdc-emulator args]   # sets EMU_URL EMU_LOG EMU_STATE EMU_PID EMU_DIR
#   emu_create_cluster ID [json-file]     # POST a small cluster, wait for its LRO
#   emu_wait_op OPERATION_NAME            # poll until done; prints the operation
#   emu_stop                              # SIGTERM and wait (state is kept)
#   emu_up [args]                         # emu_start, or "Bail out!" (a failure)
#   emu_mdcctl_env [ID]                   # the mdcctl suites' preamble (below)
#   emu_pr_env                            # the persistent-resource suites' preamble
#   emu_slurm_conf                        # SLURM_CONF to parse, a recording scontrol
#
# EMU_PARENT (default projects/proj/locations/us-central1) and EMU_API
# (default v1beta1) shape the URLs; EMU_CLUSTERS is the collection URL and
# EMU_AUTH an optional "Authorization: Bearer ..." header for the helpers.
# An emulator that writes a slurm.conf (--slurm-conf, --reload-cmd,
# --restart-cmd) refuses to run without a token: emu_start then makes one
# in EMU_DIR/token (mode 0600), passes --token-file, sets EMU_AUTH and
# exports MDC_TOKEN_FILE for the clients.  Use emu_curl, not curl.
# Every emulator started is killed at exit and its stderr shown on failure.

: "${EMU_PARENT:=projects/proj/locations/us-central1}"
: "${EMU_API:=v1beta1}"
: "${EMU_AUTH:=}"
EMU_N=0

emu_bin() {
	if [ -x "$top_builddir/mdc-emulator" ]; then echo "$top_builddir/mdc-emulator"
	else command -v mdc-emulator; fi
}

# emu_start [args...]: a fresh emulator on a free port, state and request
# log in a new directory under $TEST_DIR; EMU_DIR_NEXT=DIR reuses DIR (a
# restart that keeps the state: EMU_DIR_NEXT=$EMU_DIR emu_start).
emu_start() {
	local bin i tok extra=()
	bin=$(emu_bin) || { echo "# mdc-emulator not built" >&2; return 1; }
	EMU_N=$((EMU_N + 1))
	EMU_DIR=${EMU_DIR_NEXT:-$TEST_DIR/emu$EMU_N}
	mkdir -p "$EMU_DIR"
	EMU_STATE=$EMU_DIR/state.json
	EMU_LOG=$EMU_DIR/requests.log
	case " $* " in
		*" --token"*|*" --read-only-token"*) ;;
		*" --slurm-conf "*|*" --reload-cmd "*|*" --restart-cmd "*)
			tok=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
			rm -f "$EMU_DIR/token"
			(umask 077 && printf '%s\n' "$tok" >"$EMU_DIR/token") || return 1
			extra=(--token-file "$EMU_DIR/token")
			EMU_AUTH="Authorization: Bearer $tok"
			MDC_TOKEN_FILE=$EMU_DIR/token
			export EMU_AUTH MDC_TOKEN_FILE ;;
	esac
	# emptied here, not by the child's redirection: on a restart in the same
	# directory the loop below could read the last run's "ready" line first
	: >"$EMU_DIR/stdout" || return 1
	# EMU_NO_REQUEST_LOG=1: none (the emulator then parses a PATCH only
	# under its lock, against the cluster)
	[ -n "${EMU_NO_REQUEST_LOG:-}" ] || extra+=(--request-log "$EMU_LOG")
	"$bin" --listen 127.0.0.1:0 --state "$EMU_STATE" \
		--lro-seconds "${EMU_LRO_SECONDS:-0.2}" "${extra[@]}" "$@" \
		>"$EMU_DIR/stdout" 2>>"$EMU_DIR/stderr" &
	EMU_PID=$!
	at_exit "kill $EMU_PID 2>/dev/null; wait $EMU_PID 2>/dev/null"
	show_on_fail "$EMU_DIR/stderr"
	for ((i = 0; i < 100; i++)); do
		EMU_URL=$(sed -n 's/^ready //p' "$EMU_DIR/stdout" 2>/dev/null)
		[ -n "$EMU_URL" ] && break
		kill -0 "$EMU_PID" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$EMU_URL" ]; then
		echo "# mdc-emulator did not start:" >&2
		sed 's/^/# /' "$EMU_DIR/stderr" >&2
		return 1
	fi
	EMU_CLUSTERS=$EMU_URL/$EMU_API/$EMU_PARENT/modelDevelopmentClusters
	export EMU_URL EMU_LOG EMU_STATE EMU_PID EMU_DIR EMU_CLUSTERS
}

# emu_up [args...]: emu_start, or stop the suite with "Bail out!": the
# tree's own emulator not starting is a failure, never a skip.
emu_up() {
	emu_start "$@" && return 0
	echo "Bail out! mdc-emulator did not start"
	exit 1
}

# emu_mdcctl_env [ID]: an emulator with cluster ID (default c1) created,
# mdcctl pointed at it and at nothing of the machine's (config file, token,
# metadata server, lock directory); M runs the built mdcctl.
emu_mdcctl_env() {
	local id=${1:-c1}
	emu_up
	emu_create_cluster "$id" >/dev/null || { echo "Bail out! cannot create the test cluster $id"; exit 1; }
	export MDC_ENDPOINT=$EMU_URL MDC_CONF=/dev/null MDC_LOCK_DIR=$TEST_DIR
	unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL
	export MDC_CLUSTER=$EMU_PARENT/modelDevelopmentClusters/$id
}
M() { "$top_builddir/mdcctl" "$@"; }

# emu_pr_env: the persistent-resource and pipeline suites pass --project
# and --region (G) and nothing through the environment or a config file.
emu_pr_env() {
	export MDC_CONF=/dev/null
	unset MDC_ENDPOINT MDC_PROJECT MDC_REGION MDC_CLUSTER MDC_ACCESS_TOKEN MDC_TOKEN_FILE
	emu_up
	G=(--project proj --region us-central1)
}

# emu_slurm_conf: a slurm.conf only for parsing (SLURM_CONF), nodes cpu-[0-1]
# in NodeSet cpu and partition cpu, whose slurmctld port is free so live
# updates fail fast; MDC_SCONTROL is a real scontrol that records each
# run's arguments, one line each, in $TEST_DIR/scontrol.log.
emu_slurm_conf() {
	local port
	port=$(free_port)
	cat >"$TEST_DIR/slurm.conf" <<EOF
ClusterName=t
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
MessageTimeout=2
NodeName=cpu-[0-1] CPUs=1 State=FUTURE
NodeSet=cpu Nodes=cpu-[0-1]
PartitionName=cpu Nodes=cpu Default=YES State=UP
EOF
	export SLURM_CONF=$TEST_DIR/slurm.conf
	cat >"$TEST_DIR/scontrol" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$TEST_DIR/scontrol.log"
exec $(command -v scontrol) "\$@"
EOF
	chmod +x "$TEST_DIR/scontrol"
	export MDC_SCONTROL=$TEST_DIR/scontrol
	: >"$TEST_DIR/scontrol.log"
}

# emu_stop: SIGTERM, wait for the exit (state saved), keep the files.
emu_stop() {
	[ -n "${EMU_PID:-}" ] || return 0
	kill -TERM "$EMU_PID" 2>/dev/null
	wait "$EMU_PID" 2>/dev/null
	EMU_PID=
}

# emu_curl ARGS...: curl -sS with EMU_AUTH, else with the token of
# MDC_TOKEN_FILE (a managed lab's), handed over through a pipe
emu_curl() {
	if [ -n "$EMU_AUTH" ]; then curl -sS -H "$EMU_AUTH" "$@"
	elif [ -r "${MDC_TOKEN_FILE:-}" ]; then
		curl -sS -H @<(printf 'Authorization: Bearer %s\n' "$(<"$MDC_TOKEN_FILE")") "$@"
	else curl -sS "$@"; fi
}

# emu_wait_op NAME: poll GET /v1/NAME until done (10 s at most); prints it.
emu_wait_op() {
	local op i
	for ((i = 0; i < 100; i++)); do
		op=$(emu_curl "$EMU_URL/v1/$1") || return 1
		if [ "$(printf '%s' "$op" | jq -r .done)" = true ]; then
			printf '%s\n' "$op"
			return 0
		fi
		sleep 0.1
	done
	echo "# operation $1 not done in time" >&2
	return 1
}

# The standard small cluster: pools cpu (n2-standard-8, 1-2 nodes) and
# login, partition cpu (the default).
emu_standard_cluster() {
	cat <<'EOF'
{
  "display_name": "test cluster",
  "network": {
    "network": "projects/proj/global/networks/default",
    "subnetwork": "projects/proj/regions/us-central1/subnetworks/default"
  },
  "labels": {"team": "ml"},
  "node_pools": [
    {"id": "cpu", "machine_spec": {"machine_type": "n2-standard-8"},
     "scaling_spec": {"min_node_count": 1, "max_node_count": 2},
     "zone": "us-central1-a", "enable_public_ips": true,
     "boot_disk": {"boot_disk_type": "pd-standard", "boot_disk_size_gb": 120}},
    {"id": "login", "machine_spec": {"machine_type": "n2-standard-8"},
     "scaling_spec": {"min_node_count": 1, "max_node_count": 1},
     "zone": "us-central1-a", "enable_public_ips": true,
     "boot_disk": {"boot_disk_type": "pd-standard", "boot_disk_size_gb": 120}}
  ],
  "orchestrator_spec": {
    "slurm_spec": {
      "home_directory_storage": "projects/proj/locations/us-central1-a/instances/home",
      "partitions": [{"id": "cpu", "node_pool_ids": ["cpu"]}],
      "default_partition_id": "cpu",
      "login_node_pool_id": "login"
    }
  }
}
EOF
}

# emu_create_cluster ID [JSON_FILE]: create and wait; prints the finished op.
emu_create_cluster() {
	local id=$1 file=${2:-} op name
	if [ -z "$file" ]; then
		file=$TEST_DIR/emu-cluster-$id.json
		emu_standard_cluster >"$file"
	fi
	op=$(emu_curl -X POST -H 'Content-Type: application/json' --data-binary @"$file" \
		"$EMU_CLUSTERS?model_development_cluster_id=$id") || return 1
	name=$(printf '%s' "$op" | jq -r '.name // empty')
	if [ -z "$name" ]; then
		printf '# create %s failed: %s\n' "$id" "$op" >&2
		return 1
	fi
	emu_wait_op "$name"
}
