# X_AC_MDC_SANITIZE: --enable-sanitize builds with ASan and UBSan.
AC_DEFUN([X_AC_MDC_SANITIZE], [
  AC_ARG_ENABLE([sanitize],
    [AS_HELP_STRING([--enable-sanitize], [build with -fsanitize=address,undefined])],
    [], [enable_sanitize=no])
  SAN_CFLAGS=
  AS_IF([test "x$enable_sanitize" = xyes],
    [SAN_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"])
  AC_SUBST([SAN_CFLAGS])
  AM_CONDITIONAL([SANITIZE], [test "x$enable_sanitize" = xyes])
])
