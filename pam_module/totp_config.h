/* Where postern-totp finds the store and the incoming tree. */
#ifndef POSTERN_TOTP_CONFIG_H
#define POSTERN_TOTP_CONFIG_H

#include "audit_delivery.h"
#include "errmsg.h"

#define TOTP_PATH_MAX 4096

struct totp_config {
	char store[TOTP_PATH_MAX];      /* <state>/totp, or -S */
	char incoming_buf[TOTP_PATH_MAX];
	const char *incoming;           /* paths.incoming, NULL when the config has none */
	enum audit_on_failure audit_on_failure;   /* audit.on_failure, default refuse */
};

/*
 * config: the -C file, or NULL for POSTERN_CONFIG_FILE when it exists and
 * the compiled-in POSTERN_STATEDIR when it does not. store_override: -S.
 * Returns 0, or -errno with e filled (a broken policy is also audited).
 */
int totp_config_load(const char *config, const char *store_override, struct totp_config *out,
		     struct pst_err *e);

#endif
