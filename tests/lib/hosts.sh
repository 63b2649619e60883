# shellcheck shell=bash
# hosts.sh - the set-up every multi-host lab test (tests/sh/lab/lab_hosts*.t)
# shares, sourced after tap.sh and lab.sh:
#   hosts_need [CMD...]   skip unless the lab and CMDs can run (namespaces,
#                         a bridge)
#   hosts_up ARGS...      slurm-lab up $D --hosts ARGS..., its environment
#                         eval'd; down at exit; Bail out when it fails
#   on HOST CMD...        CMD on HOST
#   hosts_user PREFIX     a user (U) with a home on the shared /home
#                         (a --release lab: before hosts_up, as its
#                         hosts see this machine's users of up's time)
# D is the lab's directory ($TEST_DIR/lab); logs to show on a failure are
# given with show_on_fail as before.

D=$TEST_DIR/lab

hosts_need() {
	local c
	lab_need
	for c in ip nsenter unshare "$@"; do
		command -v "$c" >/dev/null || skip_all "'$c' is not installed"
	done
	ip link add mdcprobe$$ type bridge 2>/dev/null || skip_all "cannot create a bridge here"
	ip link del mdcprobe$$
}

hosts_up() {
	local out
	at_exit "slurm-lab down '$D' >/dev/null 2>&1"
	show_on_fail "$TEST_DIR/up.err" "$D/hosts/ctld/log/slurmctld.log"
	out=$(slurm-lab up "$D" --hosts "$@" 2>"$TEST_DIR/up.err") ||
		{ diag "$(cat "$TEST_DIR/up.err")"; echo "Bail out! slurm-lab up --hosts $* failed"; exit 1; }
	eval "$out"
}

on() { local h=$1; shift; slurm-lab exec "$D" "$h" -- "$@"; }

hosts_user() {
	U=$1$$
	shadow useradd -M -N -s /bin/sh "$U" || { echo "Bail out! useradd failed"; exit 1; }
	at_exit "shadow userdel '$U' >/dev/null 2>&1"
	mkdir -p "$D/shared/home/$U" && chown "$U" "$D/shared/home/$U"
}
