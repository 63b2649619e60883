# X_AC_MDC_PKG(VAR, MODULE, DEBIAN-PACKAGE): pkg-config check that stops
# configure with one line naming the package to install.
AC_DEFUN([X_AC_MDC_PKG], [
  PKG_CHECK_MODULES([$1], [$2], [],
    [AC_MSG_ERROR([$2 not found: apt-get install $3 (or run scripts/install-deps)])])
])
