/*
 * The release policy: who may install or delete releases of which module.
 *
 * Loaded once from postern.yaml (plus the generated DOAP module file it
 * names) into an immutable struct policy. Every component asks the one
 * decision function, policy_may(); nothing else decides.
 */
#ifndef POSTERN_POLICY_H
#define POSTERN_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit_delivery.h"
#include "upload_limits.h"
#include "errmsg.h"

struct policy;

enum policy_action {
	POLICY_INSTALL,
	POLICY_DELETE,
};

/* Why a request is allowed, or that it is not. */
enum policy_basis {
	POLICY_DENY = 0,
	POLICY_MAINTAINER,      /* listed maintainer of the module */
	POLICY_RELEASE_TEAM,    /* release team: any module, even a new one */
	POLICY_OPEN,            /* open module: allowed, flagged as non-maintainer upload */
};

/* Whether a module's releases must carry an OpenPGP signature. */
enum policy_signature {
	POLICY_SIGNATURE_UNSET = 0,   /* not said: signatures.require decides */
	POLICY_SIGNATURE_OPTIONAL,    /* a signature is checked when present */
	POLICY_SIGNATURE_REQUIRED,    /* no valid signature, no release */
};

/* Scalar settings; every string is owned by the policy, NULL when unset. */
/* A CI issuer (ci.issuers.NAME): whose OIDC ID tokens postern-ci accepts. */
enum policy_ci_forge {
	POLICY_CI_GITLAB = 1,    /* GitLab's id_tokens claims */
	POLICY_CI_GITHUB,        /* GitHub Actions' */
};

struct policy_ci_issuer {
	const char *name;           /* the key under ci.issuers */
	const char *issuer;         /* the tokens' "iss", exactly (https://...) */
	const char *audience;       /* their "aud", exactly */
	const char *jwks;           /* absolute path of its root-owned JWKS file */
	enum policy_ci_forge forge; /* kind: gitlab (default) or github */
	unsigned max_lifetime;      /* max_token_lifetime: exp - iat at most, default 3600 */
};

/* One CI identity that may release a module: modules.M.ci[i]. */
struct policy_ci_binding {
	const char *issuer;          /* a name under ci.issuers */
	const char *project;         /* e.g. GNOME/gtk (GitLab project_path, GitHub repository) */
	unsigned long line, col;     /* where it was written, for messages */
};

/*
 * A section of the tree beside sources/ (sections.NAME in postern.yaml):
 * which files it takes and who may upload them. Parsed and checked only:
 * install-module does not upload into sections yet (issue 30).
 */
#define POLICY_SECTIONS_MAX 32
#define POLICY_SECTION_NAME_MAX 32     /* bytes of a section name */
#define POLICY_SECTION_SUFFIX_MAX 32   /* bytes of EXT in a pattern "*.EXT" */
#define POLICY_SECTION_FILES_MAX 64    /* patterns of one section */

enum policy_uploaders {
	POLICY_UPLOADERS_MAINTAINERS = 1,  /* of the module the file is named after */
	POLICY_UPLOADERS_RELEASE_TEAM,     /* release_team */
	POLICY_UPLOADERS_GROUP,            /* members of the Unix group named by group */
	POLICY_UPLOADERS_OPEN,             /* any uploader */
};

struct policy_section {
	const char *name;               /* the key under sections */
	const char *const *files;       /* "*.EXT" patterns, NULL-terminated, at least one */
	enum policy_uploaders uploaders;
	const char *group;              /* POLICY_UPLOADERS_GROUP's group, else NULL */
	unsigned long line, col;        /* of the name, for messages */
};

struct policy_settings {
	const char *incoming;        /* paths.incoming */
	const char *tree;            /* paths.tree */
	const char *state;           /* paths.state */
	const char *socket;          /* paths.socket */
	const char *logins;          /* paths.logins: pam_postern's login proofs */
	const char *doap_modules;    /* generated DOAP module file, or NULL */
	const char *const *doap_sources;   /* directories/files for import-doap, or NULL */
	const char *doap_parse_user;       /* import-doap parses DOAP as this user (never root), default "nobody" */
	struct upload_limits limits;
	unsigned delete_window;      /* seconds, default 86400 */
	unsigned mirror_sync_interval;   /* seconds between mirror_sync runs, default 300 */
	const char *const *hook_doap_change;    /* argv, NULL-terminated, or NULL */
	const char *hook_doap_change_user;      /* who runs it (never root), default "nobody" */
	const char *const *hook_after_install;
	const char *const *hook_mirror_sync;
	const char *mail_to;         /* release announcement recipient, or NULL */
	const char *mail_from;
	const char *release_team_group;        /* or NULL */
	const char *const *release_team_users; /* or NULL */
	enum audit_on_failure audit_on_failure; /* audit.on_failure, default refuse */
	const char *signature_keyrings;   /* signatures.keyrings: <user>.pgp files */
	bool signature_require;           /* signatures.require, default false */
	unsigned signature_max_age;       /* signatures.max_age: seconds, default 7 days, 0 none */
	const char *ci_listen;            /* ci.listen: ADDR:PORT or a socket path, or NULL */
	const struct policy_ci_issuer *ci_issuers;   /* ci.issuers, ci_nissuers of them */
	size_t ci_nissuers;
	const struct policy_section *sections;   /* sections, in file order, nsections of them */
	size_t nsections;
};

struct policy_module {
	const char *name;
	const char *const *maintainers;   /* NULL-terminated, may be empty when open */
	bool open;
	const char *version_dir;          /* "major", "major.minor" or NULL (automatic) */
	const char *source;               /* "postern.yaml" or "<module>.doap" */
	bool overrides_doap;              /* explicit entry replacing a DOAP one */
	enum policy_signature signature;  /* from postern.yaml; UNSET when not said */
	const struct policy_ci_binding *ci;   /* from postern.yaml: CI identities, nci of them */
	size_t nci;
};

/*
 * Load path: it must be a regular file owned by root and not writable by
 * group or other, in root-owned directories no one else can write (every one
 * up to "/"), at most 4 MiB; the same holds for the generated DOAP module
 * file it names, which is read and merged (and must exist when named). Any
 * error (syntax, schema, ownership) fails the whole load, *out stays NULL,
 * and e->msg is "FILE:LINE:COL: what is wrong" or "FILE: what is wrong".
 * The library logs nothing: a caller whose load fails emits the
 * policy_error audit record (docs/AUDIT.md) and refuses to go on.
 */
int policy_load(const char *path, struct policy **out, struct pst_err *e);

/*
 * policy_load in two steps, for a program whose command may not need the
 * module list (postern-shell: an rsync upload decides from paths alone,
 * and the generated DOAP list is most of the policy's bytes).
 * policy_load_deferred reads and checks postern.yaml exactly as policy_load
 * does (any error fails it, *out stays NULL) and leaves the module list
 * pending: until policy_load_modules succeeds, there are no modules to see
 * (policy_module_count is 0) and policy_may denies everything. The settings
 * and policy_is_release_team are there at once. policy_load_modules reads,
 * checks and merges the generated DOAP module file as policy_load does,
 * with the same errors; it runs once: after a failure the policy never
 * shows a module, and the caller refuses as it would after policy_load.
 * policy_load is exactly these two calls.
 */
int policy_load_deferred(const char *path, struct policy **out, struct pst_err *e);
int policy_load_modules(struct policy *p, struct pst_err *e);
bool policy_modules_loaded(const struct policy *p);

/*
 * postern.yaml alone, with the same file checks, without reading the
 * generated DOAP module file it names: for postern-policy import-doap, which
 * writes that file. An entry that gets its maintainers only from that file
 * is not an error here. Never use it to decide anything.
 */
int policy_load_settings(const char *path, struct policy **out, struct pst_err *e);

/* Parse a YAML buffer without the file checks (fuzzing, unit tests). name
 * is used in messages. The doap_modules file it names is not read. */
int policy_parse(const char *buf, size_t len, const char *name, struct policy **out,
		 struct pst_err *e);

/*
 * policy_parse, with the text of a generated DOAP module file merged in as
 * policy_load merges the file the config names (unit tests, fuzzing).
 */
int policy_parse_merged(const char *buf, size_t len, const char *name,
			const char *doap_buf, size_t doap_len, const char *doap_name,
			struct policy **out, struct pst_err *e);

/*
 * The two steps of policy_parse_merged, as policy_load_deferred and
 * policy_load_modules are those of policy_load (unit tests, fuzzing):
 * doap_buf NULL merges no DOAP text, as policy_parse does.
 */
int policy_parse_deferred(const char *buf, size_t len, const char *name, struct policy **out,
			  struct pst_err *e);
int policy_merge_modules_text(struct policy *p, const char *doap_buf, size_t doap_len,
			      const char *doap_name, struct pst_err *e);

/*
 * Read a root-owned file that is not writable by group or other, through a
 * directory walk in which every directory is root-owned and not writable by
 * group or other (SF_TRUSTED_PATH), at most 4 MiB, into a NUL-terminated
 * malloc'd buffer. The checks policy_load applies to its files.
 */
int policy_read_trusted(const char *path, char **buf, size_t *len, struct pst_err *e);

void policy_free(struct policy *p);

const struct policy_settings *policy_settings(const struct policy *p);

/*
 * The settings postern.yaml starts from (docs/POLICY.md), for a program that
 * checks without a policy (postern-client's local check of a release).
 */
void policy_settings_defaults(struct policy_settings *s);

size_t policy_module_count(const struct policy *p);
const struct policy_module *policy_module_at(const struct policy *p, size_t i);
const struct policy_module *policy_module_find(const struct policy *p, const char *name);

/*
 * The release team: listed in release_team.users, or a member of the Unix
 * group release_team.group (getgrnam_r, then getgrouplist of the user's
 * passwd entry). A failed lookup counts as "not a member".
 */
bool policy_is_release_team(const struct policy *p, const char *user);

/*
 * The decision, the same rules for both actions: maintainer, else release
 * team, else open module, else refused; a module unknown to the policy only
 * the release team may create. Anything invalid (NULL policy, bad user or
 * module name, unknown action) is POLICY_DENY. Writes a sentence for a human
 * into why (cut with "..." when whylen is too small; why may be NULL), e.g.
 * "matthiasc is a maintainer of gtk (from gtk.doap)" or
 * "bob may not release gtk: maintainers are matthiasc, otte; release team: alice".
 */
enum policy_basis policy_may(const struct policy *p, const char *user,
			     enum policy_action action, const char *module,
			     char *why, size_t whylen);

/*
 * Whether a release of module must carry a valid OpenPGP signature:
 * signatures.require, or the module's own "signature: required". A global
 * requirement is never loosened by a module's "optional" (fail closed).
 * NULL policy: true.
 */
bool policy_signature_required(const struct policy *p, const char *module);

/* The issuer named name under ci.issuers, or NULL. */
const struct policy_ci_issuer *policy_ci_issuer_find(const struct policy *p, const char *name);

/*
 * May the CI job of project, with a token from the issuer named issuer,
 * release module? Only when the module's ci list names exactly that issuer
 * and project; the tag and version rules are postern-ci's. Anything unknown
 * or invalid: false.
 */
bool policy_ci_may(const struct policy *p, const char *issuer, const char *project,
		   const char *module);

/* The sections postern.yaml declares, in its order; sources/ is not one of them. */
size_t policy_section_count(const struct policy *p);
const struct policy_section *policy_section_at(const struct policy *p, size_t i);
/* The section named name, or NULL (for "sources" too: it is built in). */
const struct policy_section *policy_section_find(const struct policy *p, const char *name);

/*
 * Whether section s takes a file named filename: the longest of its
 * patterns "*.EXT" that filename ends with, compared byte for byte (case
 * matters), with at least one byte before the ".EXT"; NULL when none does,
 * or when filename is empty, holds a '/' or s or filename is NULL.
 */
const char *policy_section_accepts(const struct policy_section *s, const char *filename);

#endif
