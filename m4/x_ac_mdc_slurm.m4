# X_AC_MDC_SLURM: the Slurm headers (no slurm.pc on Debian), the version the
# plugins must declare, the plugin directory and libslurmfull (which the
# plugins and the parser oracle resolve Slurm's symbols from).
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

  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR], [where Slurm loads plugins from (default: the installed Slurm's)])],
    [SLURM_PLUGINDIR=$withval], [
      SLURM_PLUGINDIR=
      for d in `dpkg -L slurm-wlm-basic-plugins 2>/dev/null | $SED -n 's,/auth_munge\.so$,,p'` \
               /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib64/slurm /usr/lib/slurm /usr/local/lib/slurm; do
        AS_IF([test -f "$d/auth_munge.so"], [SLURM_PLUGINDIR=$d; break])
      done
      AS_IF([test -z "$SLURM_PLUGINDIR"],
        [AC_MSG_ERROR([Slurm plugin directory not found: apt-get install slurm-wlm-basic-plugins, or pass --with-slurm-plugindir])])
    ])
  AC_MSG_CHECKING([Slurm plugin directory])
  AC_MSG_RESULT([$SLURM_PLUGINDIR])
  AC_SUBST([SLURM_PLUGINDIR])
  AC_DEFINE_UNQUOTED([MDC_SLURM_PLUGINDIR], ["$SLURM_PLUGINDIR"], [Slurm plugin directory])

  AC_MSG_CHECKING([for libslurmfull])
  AS_IF([test -f "$SLURM_PLUGINDIR/libslurmfull.so"],
    [SLURMFULL_LIBS="-L$SLURM_PLUGINDIR -Wl,-rpath,$SLURM_PLUGINDIR -lslurmfull"; AC_MSG_RESULT([$SLURM_PLUGINDIR])],
    [AC_MSG_RESULT([no]); AC_MSG_ERROR([libslurmfull.so not found in $SLURM_PLUGINDIR: apt-get install slurm-wlm-basic-plugins])])
  AC_SUBST([SLURMFULL_LIBS])

  # the public libslurm, for mdcctl jobs (slurm_load_jobs, slurm_update_job)
  mdc_save_LIBS=$LIBS
  AC_CHECK_LIB([slurm], [slurm_load_jobs], [SLURM_LIBS=-lslurm],
    [AC_MSG_ERROR([libslurm not found: apt-get install libslurm-dev])])
  LIBS=$mdc_save_LIBS
  AC_SUBST([SLURM_LIBS])
])
