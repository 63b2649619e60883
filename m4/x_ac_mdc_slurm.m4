# X_AC_MDC_SLURM: the Slurm headers (no slurm.pc on Debian), the version the
# plugins must declare, the directory the plugins install into, and apart
# from it the directory the tests' parser oracle finds libslurmfull in.
AC_DEFUN([X_AC_MDC_SLURM], [
  AC_CHECK_HEADERS([slurm/slurm.h slurm/spank.h], [],
    [AC_MSG_ERROR([Slurm headers not found: apt-get install libslurm-dev (or run scripts/install-deps)])])
  AC_MSG_CHECKING([for SLURM_VERSION_NUMBER])
  AC_COMPUTE_INT([mdc_slurm_vn], [SLURM_VERSION_NUMBER], [#include <slurm/slurm_version.h>],
    [AC_MSG_ERROR([cannot read SLURM_VERSION_NUMBER from slurm/slurm_version.h: apt-get install libslurm-dev])])
  MDC_SLURM_VERSION="$(( mdc_slurm_vn >> 16 )).$(( (mdc_slurm_vn >> 8) & 255 )).$(( mdc_slurm_vn & 255 ))"
  AC_MSG_RESULT([$mdc_slurm_vn ($MDC_SLURM_VERSION)])
  AC_SUBST([MDC_SLURM_VERSION])
  AC_DEFINE_UNQUOTED([MDC_SLURM_VERSION], ["$MDC_SLURM_VERSION"], [Slurm version built against])
  # the release as Slurm names it (24.11), which picks the root, key table
  # and lab a build belongs to (scripts/release-root)
  AC_MSG_CHECKING([Slurm release])
  MDC_SLURM_RELEASE=`printf '%d.%02d' $(( mdc_slurm_vn >> 16 )) $(( (mdc_slurm_vn >> 8) & 255 ))`
  AC_MSG_RESULT([$MDC_SLURM_RELEASE.$(( mdc_slurm_vn & 255 ))])
  AC_SUBST([MDC_SLURM_RELEASE])
  AC_DEFINE_UNQUOTED([MDC_SLURM_RELEASE], ["$MDC_SLURM_RELEASE"], [Slurm release built against (24.11)])

  # The installed Slurm's plugin directory: the default for both below.
  mdc_slurm_dir=
  for d in `dpkg -L slurm-wlm-basic-plugins 2>/dev/null | $SED -n 's,/auth_munge\.so$,,p'` \
           /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm; do
    AS_IF([test -f "$d/auth_munge.so"], [mdc_slurm_dir=$d; break])
  done

  # Where our plugins are installed (distcheck and packages point it
  # elsewhere; it is never searched for libraries).
  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR], [install the plugins into DIR (default: the installed Slurm's plugin directory)])],
    [SLURM_PLUGINDIR=$withval], [
      SLURM_PLUGINDIR=$mdc_slurm_dir
      AS_IF([test -z "$SLURM_PLUGINDIR"],
        [AC_MSG_ERROR([Slurm plugin directory not found: apt-get install slurm-wlm-basic-plugins, or pass --with-slurm-plugindir])])
    ])
  AC_MSG_CHECKING([where to install the Slurm plugins])
  AC_MSG_RESULT([$SLURM_PLUGINDIR])
  AC_SUBST([SLURM_PLUGINDIR])
  AC_DEFINE_UNQUOTED([MDC_SLURM_PLUGINDIR], ["$SLURM_PLUGINDIR"], [Slurm plugin directory])

  # Where libslurmfull is, for the tests only (sc_oracle, test_sc_options):
  # without it they skip, and configure says so.
  AC_ARG_WITH([slurmfull-dir],
    [AS_HELP_STRING([--with-slurmfull-dir=DIR], [directory of libslurmfull.so, for the tests (default: the installed Slurm's plugin directory)])],
    [SLURMFULL_DIR=$withval], [SLURMFULL_DIR=$mdc_slurm_dir])
  AC_MSG_CHECKING([for libslurmfull])
  SLURMFULL_LIBS=
  AS_IF([test -n "$SLURMFULL_DIR" && test -f "$SLURMFULL_DIR/libslurmfull.so"],
    [SLURMFULL_LIBS="-L$SLURMFULL_DIR -Wl,-rpath,$SLURMFULL_DIR -lslurmfull"; AC_MSG_RESULT([$SLURMFULL_DIR])],
    [AC_MSG_RESULT([no])
     AC_MSG_WARN([libslurmfull.so not found${SLURMFULL_DIR:+ in $SLURMFULL_DIR}: the tests that compare with Slurm's own parser skip (apt-get install slurm-wlm-basic-plugins, or --with-slurmfull-dir)])])
  AC_SUBST([SLURMFULL_DIR])
  AC_SUBST([SLURMFULL_LIBS])
  AM_CONDITIONAL([HAVE_SLURMFULL], [test -n "$SLURMFULL_LIBS"])
  # tests/sc/sc_oracle reads Slurm's private 22.05 structs: 22.05 only
  AM_CONDITIONAL([HAVE_SC_ORACLE], [test -n "$SLURMFULL_LIBS" && test "$MDC_SLURM_RELEASE" = 22.05])

  # the public libslurm, for mdcctl jobs (slurm_load_jobs, slurm_update_job)
  mdc_save_LIBS=$LIBS
  AC_CHECK_LIB([slurm], [slurm_load_jobs], [SLURM_LIBS=-lslurm],
    [AC_MSG_ERROR([libslurm not found: apt-get install libslurm-dev])])
  LIBS=$mdc_save_LIBS
  AC_SUBST([SLURM_LIBS])
])
