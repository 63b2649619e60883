#!/usr/bin/env bash
# lab_release_pkg.t - the Debian packages of each release in MDC_RELEASES
# but the host's (default 24.11), built in its root (scripts/release-root):
# dpkg-buildpackage there builds them, slurm-mdc-plugins depends on that
# root's Slurm series (and so does not install on the host's 22.05), apt-get
# installs all four in a throwaway overlay of the root (the shared root is
# never changed), the installed mdcctl runs there, and the release's own
# slurmctld and slurmd load both installed plugins.  Part of
# `scripts/test --release` (a build in the root takes minutes); the host's
# packages are tests/sh/lab/pkg_debian.t.  A root or build that cannot be made
# fails the test.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

need_root
RELS=()
for r in ${MDC_RELEASES:-22.05 24.11}; do [ "$r" = 22.05 ] || RELS+=("$r"); done
[ ${#RELS[@]} -gt 0 ] || skip_all "MDC_RELEASES='${MDC_RELEASES:-}' names no release but the host's 22.05"
lab_need
RR=$top_srcdir/scripts/release-root
export MDC_CONF=$TEST_DIR/mdc.conf
printf 'JobSubmitMode = reject\n' >"$MDC_CONF"
unset MDC_JOB_SUBMIT_MODE
plan $((14 * ${#RELS[@]}))

prove() {
REL=$1 D=$TEST_DIR/$1
RROOT=$("$RR" path "$REL" 2>"$TEST_DIR/rr.err") ||
	{ diag "$(cat "$TEST_DIR/rr.err")"; echo "Bail out! no Slurm $REL root"; exit 1; }
# the lab's wrappers need the project's build for REL (cached)
"$RR" build "$REL" "$top_srcdir" >/dev/null 2>"$TEST_DIR/rr.err" ||
	{ diag "$(cat "$TEST_DIR/rr.err")"; echo "Bail out! slurm-mdc does not build against Slurm $REL"; exit 1; }

# the source: the files git tracks (as pkg_debian.t), in TEST_DIR (/tmp is
# the root's /tmp too)
SRC=$D/pkg/src
mkdir -p "$SRC"
if [ "$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$top_srcdir" && pwd -P)" ]; then
	(cd "$top_srcdir" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf -) | tar xf - -C "$SRC"
else
	(cd "$top_srcdir" && tar cf - --exclude='./build*' --exclude=./.git --exclude=./_build \
		--exclude=./_inst .) | tar xf - -C "$SRC"
fi
chmod -R u+w "$SRC"
show_on_fail "$D/build.log"
"$RR" exec "$REL" -- sh -c 'cd "$1" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -us -uc -b' sh "$SRC" >"$D/build.log" 2>&1
is "$?" 0 "$REL: dpkg-buildpackage -us -uc -b builds in the root"
like "$(cat "$D/build.log")" "checking Slurm release\\.\\.\\. ${REL//./\\.}\\." "$REL: configure found the root's Slurm $REL"

DEBS=$D/pkg
for p in slurm-mdc slurm-mdc-plugins mdc-emulator mdcd; do
	ok "$REL: package $p is built" test -f "$(ls "$DEBS/${p}_"*.deb 2>/dev/null | head -1)"
done
next=$(echo "$REL" | awk -F. '{ printf "%d.%02d", $1, $2 + 1 }')
is "$(dpkg-deb -f "$DEBS"/slurm-mdc-plugins_*.deb Depends | tr ',' '\n' | grep slurm-wlm | sed 's/^ //' | tr '\n' ,)" \
	"slurm-wlm-basic-plugins (>= $REL),slurm-wlm-basic-plugins (<< $next)," \
	"$REL: slurm-mdc-plugins depends on the Slurm series it was built for"
# the host's Slurm (22.05) is not that series: apt refuses it here
out=$(apt-get install -s --no-install-recommends "$(ls "$DEBS"/slurm-mdc-plugins_*.deb)" 2>&1)
like "$out" "Depends: slurm-wlm-basic-plugins \\(>= $REL\\) but " \
	"$REL: its slurm-mdc-plugins does not install beside the host's Slurm"

# install in an overlay of the root: the shared root stays as it was,
# the installed files are in the overlay's upper directory
OV=$D/ov
mkdir -p "$OV/u" "$OV/w" "$OV/m"
show_on_fail "$D/install.log"
unshare -m --propagation private sh -c '
	set -e; r=$1 ov=$2 debs=$3
	mount -t overlay overlay -o "lowerdir=$r,upperdir=$ov/u,workdir=$ov/w" "$ov/m"
	mount --rbind /proc "$ov/m/proc"; mount --rbind /dev "$ov/m/dev"; mount --rbind /sys "$ov/m/sys"
	mkdir -p "$ov/m/debs"; mount --bind "$debs" "$ov/m/debs"
	chroot "$ov/m" sh -c "cd /debs && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends /debs/slurm-mdc_*.deb /debs/slurm-mdc-plugins_*.deb \
		/debs/mdc-emulator_*.deb /debs/mdcd_*.deb && echo STATUS \$(dpkg-query -W -f=\"\\\${db:Status-Abbrev}\" \
		slurm-mdc slurm-mdc-plugins mdc-emulator mdcd) && echo VERSION \$(mdcctl --version)"
	' sh "$RROOT" "$OV" "$DEBS" >"$D/install.log" 2>&1
like "$(cat "$D/install.log")" '0 upgraded, 4 newly installed, 0 to remove' \
	"$REL: apt-get installs the four packages in the root and nothing else (its Slurm satisfies them)"
is "$(sed -n 's/^STATUS //p' "$D/install.log")" "ii ii ii ii" "$REL: dpkg lists the four installed"
like "$(sed -n 's/^VERSION //p' "$D/install.log")" '^mdcctl .*0\.1\.0' "$REL: the installed mdcctl runs in the root"
ARCH=$("$RR" exec "$REL" -- dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
PDIR=$OV/u/usr/lib/$ARCH/slurm-wlm
ok "$REL: the plugins are installed into the root's Slurm plugin directory" \
	test -f "$PDIR/job_submit_mdc.so" -a -f "$PDIR/spank_mdc.so"

# the release's own daemons load the installed plugins
LAB_DIR=$D/lab
lab_start "$LAB_DIR" --release "$REL" --plugindir "$PDIR" --job-submit mdc \
	--plugstack "required $PDIR/spank_mdc.so cluster=c1 endpoint=http://127.0.0.1:9"
like "$(cat "$LAB_DIR/log/slurmctld.log")" 'job_submit/mdc: loaded, mode reject' \
	"$REL: its slurmctld loads the installed job_submit_mdc.so"
is "$(timeout 60 srun -p debug -t 1 printenv MDC_CLUSTER 2>&1)" c1 \
	"$REL: srun runs with the installed spank_mdc.so in its slurmd (MDC_CLUSTER set in the task)"
"$LAB_SCRIPT" down "$LAB_DIR" >/dev/null 2>&1
}

for r in "${RELS[@]}"; do prove "$r"; done
