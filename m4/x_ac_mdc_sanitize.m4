# X_AC_MDC_SANITIZE: --enable-sanitize builds with ASan and UBSan;
# --enable-tsan with ThreadSanitizer (the emulator's concurrency test).
# The two cannot be combined.
AC_DEFUN([X_AC_MDC_SANITIZE], [
  AC_ARG_ENABLE([sanitize],
    [AS_HELP_STRING([--enable-sanitize], [build with -fsanitize=address,undefined])],
    [], [enable_sanitize=no])
  AC_ARG_ENABLE([tsan],
    [AS_HELP_STRING([--enable-tsan], [build with -fsanitize=thread])],
    [], [enable_tsan=no])
  AS_IF([test "x$enable_sanitize" = xyes && test "x$enable_tsan" = xyes],
    [AC_MSG_ERROR([--enable-sanitize and --enable-tsan cannot be combined: use two build directories])])
  SAN_CFLAGS=
  AS_IF([test "x$enable_sanitize" = xyes],
    [SAN_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"])
  AS_IF([test "x$enable_tsan" = xyes],
    [SAN_CFLAGS="-fsanitize=thread -fno-omit-frame-pointer"])
  AC_SUBST([SAN_CFLAGS])
  AM_CONDITIONAL([SANITIZE], [test "x$enable_sanitize" = xyes])
])
