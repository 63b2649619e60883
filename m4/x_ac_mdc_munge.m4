# X_AC_MDC_MUNGE: munge.h and libmunge (munge ships munge.pc on Debian 12,
# but older packages do not, so fall back to a header/library probe).
AC_DEFUN([X_AC_MDC_MUNGE], [
  PKG_CHECK_MODULES([MUNGE], [munge], [], [
    AC_CHECK_HEADER([munge.h], [],
      [AC_MSG_ERROR([munge.h not found: apt-get install libmunge-dev (or run scripts/install-deps)])])
    AC_CHECK_LIB([munge], [munge_encode], [MUNGE_LIBS=-lmunge],
      [AC_MSG_ERROR([libmunge not found: apt-get install libmunge-dev (or run scripts/install-deps)])])
  ])
])
