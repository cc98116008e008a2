/*
 * Whether an install-module request may go ahead: one table of rules over
 * plain facts, no I/O. The daemon (op_install.c) gathers the facts as each
 * becomes known and asks the table at each stage; the first rule that
 * refuses decides, and its sentence is what the maintainer reads.
 *
 *   stage     facts known                       rules, in order
 *   request   name, policy, --force, version    release_name, policy_allows,
 *             directory                         force_is_release_team, version_dir
 *   upload    the passed fd's fstat/fcntl        upload_passed, upload_inspected,
 *             and the signature sent             upload_regular, upload_owner,
 *                                               upload_readable, upload_size,
 *                                               signature_present
 *   tree      the module's releases              not_already_released
 *   ledger    earlier installs, the SHA-256     withdrawn_same_bytes
 */
#ifndef POSTERN_INSTALL_RULES_H
#define POSTERN_INSTALL_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "decision.h"
#include "policy.h"

enum install_stage {
	INSTALL_STAGE_REQUEST,
	INSTALL_STAGE_UPLOAD,
	INSTALL_STAGE_TREE,
	INSTALL_STAGE_LEDGER,
};

struct install_facts {
	/* The request. */
	const char *file;               /* the upload's name as sent */
	const char *name_error;         /* why the name is no release name, or NULL */
	const char *module;             /* parsed from file */
	const char *version;
	bool force;
	const char *dir_error;          /* why the version has no directory, or NULL */
	/* The policy's answer for this user and module. */
	enum policy_basis basis;
	const char *policy_reason;      /* policy_may's sentence when it denies */
	bool release_team;
	bool signature_required;
	/* The passed file. */
	bool upload_passed;             /* an fd came with the request */
	bool upload_inspected;          /* fstat and F_GETFL answered */
	bool upload_regular;
	uid_t upload_uid;
	uid_t asker_uid;
	bool upload_readable;           /* opened for reading, not O_PATH */
	uint64_t upload_size;
	uint64_t max_compressed;
	bool signature_sent;
	const char *tar_sign_name;      /* <module>-<version>.tar.sign, for the hint */
	/* The tree: the release of this version, spelled as it is there, or NULL. */
	const char *released_version;
	const char *released_dir;
	const char *released_name;
	/* The ledger: the latest install of this version (NULL: none) and the upload's hash. */
	const char *earlier_file;
	const char *earlier_sha256;
	const char *sha256;
};

/* Run the rules of one stage; true when none refused (d then says allowed). */
bool install_rules_check(enum install_stage stage, const struct install_facts *f,
			 struct decision *d);

#endif
