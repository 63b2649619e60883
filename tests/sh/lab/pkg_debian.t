#!/usr/bin/env bash
# pkg_debian.t - the Debian packages: dpkg-buildpackage builds them from a
# copy of the source tree, their contents and dependencies are what a
# packager expects (no .la, plugins where the packaged Slurm loads them,
# a dependency on that Slurm series, hardened binaries), and the installed
# files work: mdcctl runs from an unpacked root, and a real slurmctld loads
# both plugins from the installed plugin directory.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

need_root
for c in dpkg-buildpackage dh fakeroot readelf; do
	command -v "$c" >/dev/null 2>&1 || skip_all "'$c' is not installed (scripts/install-deps)"
done
lab_need
plan 24

# a copy of the tree: the files git tracks, or (not the top of a git work
# tree: a tarball, or make distcheck's copy inside the build directory of
# a clone) the tree without builds
SRC=$TEST_DIR/pkg/src
mkdir -p "$SRC"
if [ "$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$top_srcdir" && pwd -P)" ]; then
	(cd "$top_srcdir" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf -) | tar xf - -C "$SRC"
else
	(cd "$top_srcdir" && tar cf - --exclude='./build*' --exclude=./.git --exclude=./_build \
		--exclude=./_inst .) | tar xf - -C "$SRC"
fi
# distcheck's tree is read-only, and so would be its copy
chmod -R u+w "$SRC"
show_on_fail "$TEST_DIR/build.log"
(cd "$SRC" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b) >"$TEST_DIR/build.log" 2>&1
is "$?" 0 "dpkg-buildpackage -us -uc -b builds"

DEBS=$TEST_DIR/pkg
for p in slurm-mdc slurm-mdc-plugins mdc-emulator mdcd; do
	deb=$(ls "$DEBS/${p}_"*.deb 2>/dev/null | head -1)
	ok "package $p is built" test -f "$deb"
done
contents() { dpkg-deb -c "$DEBS/${1}_"*.deb | awk '{print $6}' | sed 's,^\./,/,'; }
ARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
PDIR=/usr/lib/$ARCH/slurm-wlm
is "$(contents slurm-mdc-plugins | grep -E '\.(so|la)$' | sort | tr '\n' ' ')" \
	"$PDIR/job_submit_mdc.so $PDIR/spank_mdc.so " "the plugins install into the packaged Slurm's plugin directory, no .la files"
like "$(contents slurm-mdc | tr '\n' ' ')" \
	'/usr/bin/mdcctl .*/usr/bin/mdc-scontrol|/usr/bin/mdc-scontrol .*/usr/bin/mdcctl' "slurm-mdc holds mdcctl and mdc-scontrol"
like "$(contents slurm-mdc | tr '\n' ' ')" \
	'/usr/share/man/man1/mdcctl.1.gz .*/usr/share/bash-completion/completions/mdcctl|/usr/share/bash-completion/completions/mdcctl .*/usr/share/man/man1/mdcctl.1.gz' \
	"slurm-mdc holds the man page and the bash completion"
like "$(contents mdc-emulator | tr '\n' ' ')" '/usr/sbin/mdc-emulator .*mdc-emulator.8.gz' "mdc-emulator holds the daemon and its man page"
like "$(contents mdcd | tr '\n' ' ')" '/lib/systemd/system/mdcd.service .*/usr/sbin/mdcd .*mdcd.8.gz' "mdcd holds the daemon, its systemd unit and man page"
like "$(contents slurm-mdc | tr '\n' ' ')" '/usr/libexec/slurm-mdc/mdc-slurmcheck ' "slurm-mdc holds Slurm's check program in its libexec directory"
# libcurl (https) and libcrypto (the broker's digest) are dlopen()ed
# (lib/mdc_dl.h): shlibs cannot see them
for p in slurm-mdc mdcd; do
	like "$(dpkg-deb -f "$DEBS/${p}"_*.deb Depends)" '(^|, )libcurl4, libssl3(,|$)' \
		"$p depends on libcurl4 and libssl3, which it loads on first use"
done
series=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')
like "$(dpkg-deb -f "$DEBS"/slurm-mdc-plugins_*.deb Depends)" \
	"slurm-wlm-basic-plugins \\(>= $series\\), slurm-wlm-basic-plugins \\(<< " \
	"the plugins depend on the Slurm series they were built for ($series)"

# unpack into a root of our own, as an install would lay the files out
ROOT=$TEST_DIR/root
for d in "$DEBS"/slurm-mdc_*.deb "$DEBS"/slurm-mdc-plugins_*.deb "$DEBS"/mdc-emulator_*.deb "$DEBS"/mdcd_*.deb; do
	dpkg-deb -x "$d" "$ROOT"
done
like "$("$ROOT/usr/bin/mdcctl" --version 2>&1)" '^mdcctl .*0\.1\.0' "the installed mdcctl --version runs"
like "$("$ROOT/usr/sbin/mdc-emulator" --help 2>&1)" 'usage' "the installed mdc-emulator runs"
like "$("$ROOT/usr/sbin/mdcd" --help 2>&1)" '^usage: mdcd' "the installed mdcd runs"
like "$("$ROOT/usr/libexec/slurm-mdc/mdc-slurmcheck" 2>&1)" '^usage: mdc-slurmcheck' "the installed mdc-slurmcheck runs"

# hardening: full RELRO (relro + now), no executable stack, stack protector, fortify
hardened() {
	local f=$1
	readelf -lW "$f" | grep -q GNU_RELRO || return 1
	readelf -dW "$f" | grep -Eq 'BIND_NOW|FLAGS.*NOW' || return 1
	readelf -lW "$f" | grep GNU_STACK | grep -qv RWE || return 1
	readelf -sW --dyn-syms "$f" | grep -q '__stack_chk_fail' || return 1
}
for f in usr/bin/mdcctl usr/sbin/mdc-emulator "${PDIR#/}/job_submit_mdc.so"; do
	ok "$f is hardened (relro, now, noexecstack, stack protector)" hardened "$ROOT/$f"
done
ok "mdcctl is built with _FORTIFY_SOURCE (checked libc calls)" \
	sh -c "readelf -sW --dyn-syms '$ROOT/usr/bin/mdcctl' | grep -q '_chk@'"

# a real slurmctld loads both installed plugins from the installed directory
SPANK=$ROOT$PDIR/spank_mdc.so
export MDC_CONF=$TEST_DIR/mdc.conf
printf 'JobSubmitMode = reject\n' >"$MDC_CONF"
lab_up --plugindir "$ROOT$PDIR" --job-submit mdc --plugstack "required $SPANK cluster=c1 endpoint=http://127.0.0.1:9"
like "$(cat "$LAB_DIR/log/slurmctld.log")" 'job_submit/mdc: loaded, mode reject' \
	"slurmctld loads the installed job_submit_mdc.so"
out=$(timeout 60 srun -p debug -t 1 printenv MDC_CLUSTER 2>&1)
is "$out" "c1" "srun runs with the installed spank_mdc.so (MDC_CLUSTER set in the task)"
