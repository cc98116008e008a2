/*
 * Parses pam_postern's module options into explicit defaults (pam_cfg.h). An
 * unknown or out-of-range option is an error; it must never be ignored.
 */
#include "pam_cfg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "build_config.h"
#include "login_proof.h"

#define WINDOW_MAX 10
#define FAILURES_MAX 1000
#define LOCKOUT_MAX (30 * 86400)
#define PROOF_LIFETIME_MIN 10

static bool parse_unsigned(const char *s, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	unsigned long n;

	if (s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || n < min || n > max)
		return false;
	*out = (unsigned)n;
	return true;
}

static bool cfg_option(struct pam_cfg *cfg, const char *arg)
{
	if (strcmp(arg, "nullok") == 0)
		cfg->nullok = true;
	else if (strcmp(arg, "require=security-key") == 0)
		cfg->require_sk = true;
	else if (strcmp(arg, "no_pubkey_check") == 0)
		cfg->no_pubkey_check = true;
	else if (strcmp(arg, "debug") == 0)
		cfg->debug = true;
	else if (strncmp(arg, "store=", 6) == 0) {
		cfg->store = arg + 6;
		return cfg->store[0] == '/';
	} else if (strncmp(arg, "logins=", 7) == 0) {
		cfg->logins = arg + 7;
		return cfg->logins[0] == '/';
	} else if (strncmp(arg, "proof_lifetime=", 15) == 0)
		return parse_unsigned(arg + 15, PROOF_LIFETIME_MIN, LOGIN_PROOF_LIFETIME_MAX,
				      &cfg->proof_lifetime);
	else if (strncmp(arg, "window=", 7) == 0)
		return parse_unsigned(arg + 7, 0, WINDOW_MAX, &cfg->window);
	else if (strncmp(arg, "max_failures=", 13) == 0)
		return parse_unsigned(arg + 13, 1, FAILURES_MAX, &cfg->max_failures);
	else if (strncmp(arg, "lockout=", 8) == 0)
		return parse_unsigned(arg + 8, 1, LOCKOUT_MAX, &cfg->lockout);
	else
		return false;
	return true;
}

int pam_cfg_init(struct pam_cfg *cfg, int argc, const char **argv)
{
	int i;

	cfg->store = POSTERN_STATEDIR "/totp";
	cfg->logins = POSTERN_LOGINS_DIR;
	cfg->proof_lifetime = LOGIN_PROOF_LIFETIME_DEFAULT;
	cfg->window = 1;
	cfg->max_failures = 5;
	cfg->lockout = 900;
	cfg->nullok = false;
	cfg->no_pubkey_check = false;
	cfg->debug = false;
	for (i = 0; i < argc; i++)
		if (argv[i] == NULL || !cfg_option(cfg, argv[i]))
			return i;
	return -1;
}
