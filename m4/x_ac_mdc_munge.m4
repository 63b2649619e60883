# X_AC_MDC_MUNGE: munge.h and libmunge, for mdcd and the broker client only
# (munge ships munge.pc on Debian 12, but older packages do not, so fall
# back to a header/library probe).  Without it, or with --without-munge,
# mdcd is not built, broker mode reports that it needs libmunge, and the
# mdcd tests skip; configure says so.  Sets HAVE_MUNGE (define and
# conditional) and mdc_have_munge.
AC_DEFUN([X_AC_MDC_MUNGE], [
  AC_ARG_WITH([munge],
    [AS_HELP_STRING([--without-munge], [build without libmunge: no mdcd, no broker mode])],
    [], [with_munge=check])
  mdc_have_munge=no
  AS_IF([test "x$with_munge" != xno], [
    PKG_CHECK_MODULES([MUNGE], [munge], [mdc_have_munge=yes], [
      AC_CHECK_HEADER([munge.h],
        [AC_CHECK_LIB([munge], [munge_encode], [MUNGE_LIBS=-lmunge; mdc_have_munge=yes])])
    ])
  ])
  AS_IF([test "$mdc_have_munge" = yes],
    [AC_DEFINE([HAVE_MUNGE], [1], [libmunge is available (mdcd, broker mode)])],
    [test "x$with_munge" = xyes],
    [AC_MSG_ERROR([--with-munge: libmunge not found: apt-get install libmunge-dev (or run scripts/install-deps)])],
    [test "x$with_munge" = xno],
    [MUNGE_CFLAGS= MUNGE_LIBS=
     AC_MSG_NOTICE([--without-munge: mdcd and broker mode are not built, their tests skip])],
    [MUNGE_CFLAGS= MUNGE_LIBS=
     AC_MSG_WARN([libmunge not found: mdcd and broker mode are not built, their tests skip (apt-get install libmunge-dev)])])
  AC_SUBST([MUNGE_CFLAGS])
  AC_SUBST([MUNGE_LIBS])
  AM_CONDITIONAL([HAVE_MUNGE], [test "$mdc_have_munge" = yes])
])
