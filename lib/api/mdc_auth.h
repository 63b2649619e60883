/* mdc_auth.h - the bearer token of a client (mdc_auth.c).
 * (owner: client)
 */
/* deliberate unit: the client, its token chain, LRO waits, safe update and mdcd transport */
#ifndef MDC_AUTH_H
#define MDC_AUTH_H

#include <stdbool.h>
#include "mdc_err.h"

struct mdc_client;

/* Auth (mdc_auth.c): the bearer token for C, from MDC_ACCESS_TOKEN, the
 * token file, the GCE metadata server (MDC_METADATA_URL overrides its URL;
 * the answer is cached in C until it expires) or `gcloud auth
 * print-access-token`.  For a loopback http endpoint only the explicit
 * sources are tried (env, token file, an explicit MDC_METADATA_URL) and
 * "no token" is not an error (*TOKEN = NULL): real credentials are never
 * handed to a local emulator.  *TOKEN is borrowed from C.  The token is
 * never logged. */
int mdc_auth_token(struct mdc_client *c, const char **token, struct mdc_ctx *ctx);
/* Forget the cached token. */
void mdc_auth_forget(struct mdc_client *c);
/* Forget it after the API rejected it (a 401): the process's shared copy
 * as well. */
void mdc_auth_reject(struct mdc_client *c);
/* ON: a token from the metadata server or gcloud is shared by every
 * client of the process until near its expiry (mdcd, which makes a
 * client per request); OFF (the default) drops it. */
void mdc_auth_share(bool on);

#endif
