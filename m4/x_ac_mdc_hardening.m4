# X_AC_MDC_HARDENING: the hardening every binary and plugin gets, whatever
# CFLAGS the builder passes: stack protector, fortified libc calls (only
# where the builder did not choose a level, and only with optimisation:
# glibc warns, and -Werror fails, without it), full RELRO and a
# non-executable stack.  Each flag is kept only if the toolchain takes it.
AC_DEFUN([X_AC_MDC_HARDENING], [
  MDC_HARDEN_CFLAGS=
  MDC_HARDEN_LDFLAGS=
  mdc_save_CFLAGS=$CFLAGS mdc_save_LDFLAGS=$LDFLAGS
  for f in -fstack-protector-strong -fstack-clash-protection; do
    CFLAGS="$mdc_save_CFLAGS $MDC_HARDEN_CFLAGS $f -Werror"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])], [MDC_HARDEN_CFLAGS="$MDC_HARDEN_CFLAGS $f"])
  done
  AS_CASE(["$CPPFLAGS $CFLAGS"], [*_FORTIFY_SOURCE*], [], [
    CFLAGS="$mdc_save_CFLAGS $MDC_HARDEN_CFLAGS -D_FORTIFY_SOURCE=2 -Werror"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <stdio.h>]], [])],
      [MDC_HARDEN_CFLAGS="$MDC_HARDEN_CFLAGS -D_FORTIFY_SOURCE=2"])])
  CFLAGS=$mdc_save_CFLAGS
  for f in -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack; do
    LDFLAGS="$mdc_save_LDFLAGS $MDC_HARDEN_LDFLAGS $f"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [MDC_HARDEN_LDFLAGS="$MDC_HARDEN_LDFLAGS $f"])
  done
  LDFLAGS=$mdc_save_LDFLAGS
  AC_MSG_CHECKING([hardening flags])
  AC_MSG_RESULT([$MDC_HARDEN_CFLAGS $MDC_HARDEN_LDFLAGS])
  AC_SUBST([MDC_HARDEN_CFLAGS])
  AC_SUBST([MDC_HARDEN_LDFLAGS])
])
