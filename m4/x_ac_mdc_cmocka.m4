# X_AC_MDC_CMOCKA: cmocka, for the unit tests only.  Without it the unit
# tests are not built and `make check` counts them as skipped (with the
# reason); configure says so.  Sets HAVE_CMOCKA (conditional).
AC_DEFUN([X_AC_MDC_CMOCKA], [
  PKG_CHECK_MODULES([CMOCKA], [cmocka], [mdc_have_cmocka=yes], [
    mdc_have_cmocka=no
    AC_MSG_WARN([cmocka not found: the unit tests are not built and are skipped (apt-get install libcmocka-dev)])
  ])
  AM_CONDITIONAL([HAVE_CMOCKA], [test "$mdc_have_cmocka" = yes])
])
