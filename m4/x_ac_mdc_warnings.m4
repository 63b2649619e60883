# X_AC_MDC_WARNINGS: -Wall -Wextra -Werror for everything we compile.
# --disable-werror exists for packagers on newer compilers only.
AC_DEFUN([X_AC_MDC_WARNINGS], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--disable-werror], [do not treat warnings as errors])],
    [], [enable_werror=yes])
  MDC_CFLAGS="-Wall -Wextra -Wno-unused-parameter -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes -fno-strict-aliasing"
  AS_IF([test "x$enable_werror" = xyes], [MDC_CFLAGS="$MDC_CFLAGS -Werror"])
  AC_SUBST([MDC_CFLAGS])
])
