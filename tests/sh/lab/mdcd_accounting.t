#!/usr/bin/env bash
# mdcd's AdminFromSlurm=yes on a lab with a real slurmdbd (slurm-lab
# --accounting): a user whose Slurm AdminLevel is Administrator writes, one
# with AdminLevel None is refused saying so; and with slurmdbd the priority
# weights are no longer ignored by slurmctld.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

for c in jq setpriv useradd sacctmgr slurmdbd mariadbd mariadb-install-db; do
	command -v "$c" >/dev/null || skip_all "$c is not installed (scripts/install-deps)"
done
[ -x "$top_builddir/mdcd" ] || skip_all "mdcd is not built (configure found no libmunge, or --without-munge)"
need_root
chmod 0755 "$TEST_DIR"
lab_up --managed --broker --accounting
plan 9

MDCCTL=$top_builddir/mdcctl
export MDC_CONF=$TEST_DIR/mdc.conf
: >"$MDC_CONF"
chmod 0644 "$MDC_CONF"
log=$LAB_DIR/emu/requests.log
mdcd_log=$LAB_DIR/log/mdcd.log
audit=$LAB_DIR/state/mdcd/audit.log
show_on_fail "$mdcd_log" "$LAB_DIR/log/slurmdbd.log"

sfx=$$
sadm=mdcs$sfx plain=mdcp$sfx
for u in "$sadm" "$plain"; do
	shadow useradd -M -N -s /usr/sbin/nologin "$u" || { echo "Bail out! useradd failed"; exit 1; }
	at_exit "shadow userdel '$u' 2>/dev/null"
done
as() {
	local u=$1; shift
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups \
		env -i PATH="$PATH" SLURM_CONF="$SLURM_CONF" MDC_CONF="$MDC_CONF" \
		MDC_CLUSTER="$MDC_CLUSTER" MDC_BROKER="$MDC_BROKER" \
		MDC_MUNGE_SOCKET="$MDC_MUNGE_SOCKET" HOME=/ "$@"
}
writes() { grep -c '"method":"\(PATCH\|POST\|DELETE\)"' "$log"; }

ok "an account in slurmdbd" sacctmgr -i add account "acct$sfx"
ok "a Slurm Administrator" sacctmgr -i add user "$sadm" account="acct$sfx" adminlevel=Administrator
ok "a Slurm user with AdminLevel None" sacctmgr -i add user "$plain" account="acct$sfx"

echo "AdminFromSlurm = yes" >>"$LAB_DIR/etc/mdc.conf"
kill -HUP "$(cat "$LAB_DIR/run/mdcd.pid")"
reloaded() { grep -q "AdminFromSlurm=yes" "$mdcd_log"; }
ok "mdcd reads AdminFromSlurm=yes on SIGHUP" wait_until 10 reloaded

n=$(writes)
out=$(as "$plain" "$MDCCTL" config set PriorityWeightAge=100 2>&1); rc=$?
like "$rc $out" "^$EXIT_REFUSED .*and their Slurm AdminLevel is None, not Administrator; nothing was sent" \
	"AdminLevel None: refused, the rule named"
is "$(writes)" "$n" "nothing was sent"

syncs=$(lab_syncs)
out=$(as "$sadm" "$MDCCTL" config set PriorityType=priority/multifactor PriorityWeightAge=100 2>&1); rc=$?
is "$rc" 0 "a Slurm Administrator writes through mdcd"
like "$(grep "by $sadm (uid [0-9]*): allowed" "$mdcd_log" | tail -1)" "allowed as Slurm AdminLevel Administrator" \
	"mdcd logs the rule that allowed it"
lab_wait_sync "$syncs" 60 || diag "no reload after the write"
weight() { scontrol show config | grep -Eq '^PriorityWeightAge += 100$'; }
if wait_until 20 weight && ! grep -q "PriorityWeightAge can only be used with SlurmDBD" "$LAB_DIR/log/slurmctld.log"
then pass "with slurmdbd, slurmctld runs with PriorityWeightAge=100 (not ignored)"
else fail "with slurmdbd, slurmctld runs with PriorityWeightAge=100 (not ignored)" \
	"$(scontrol show config | grep -i priorityweight)"; fi
