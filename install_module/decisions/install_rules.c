/*
 * The install rules (see install_rules.h for the table at a glance). Each
 * rule reads facts only; the sentences are the ones maintainers have been
 * reading, word for word.
 */
#include "install_rules.h"

#include <stddef.h>
#include <string.h>

struct install_rule {
	enum install_stage stage;
	const char *name;
	bool (*allows)(const struct install_facts *f, struct decision *d);
};

static bool release_name(const struct install_facts *f, struct decision *d)
{
	if (f->name_error != NULL)
		return decision_refuse(d, "%s", f->name_error);
	return true;
}

static bool policy_allows(const struct install_facts *f, struct decision *d)
{
	if (f->basis == POLICY_DENY)
		return decision_refuse(d, "%s",
				       f->policy_reason ? f->policy_reason : "not allowed by the policy");
	return true;
}

static bool force_is_release_team(const struct install_facts *f, struct decision *d)
{
	if (f->force && !f->release_team)
		return decision_refuse(d,
				       "--force is reserved to the release team");
	return true;
}

static bool version_dir(const struct install_facts *f, struct decision *d)
{
	if (f->dir_error != NULL)
		return decision_refuse(d, "%s", f->dir_error);
	return true;
}

static bool upload_passed(const struct install_facts *f, struct decision *d)
{
	if (!f->upload_passed)
		return decision_refuse(d, "no file was passed with the request");
	return true;
}

static bool upload_inspected(const struct install_facts *f, struct decision *d)
{
	if (!f->upload_inspected)
		return decision_refuse(d, "the passed file cannot be inspected");
	return true;
}

static bool upload_regular(const struct install_facts *f, struct decision *d)
{
	if (!f->upload_regular)
		return decision_refuse(d,
				       "the upload is not a regular file (upload the tarball itself)");
	return true;
}

static bool upload_owner(const struct install_facts *f, struct decision *d)
{
	if (f->upload_uid != f->asker_uid)
		return decision_refuse(d,
				       "the upload is owned by uid %lu, not by you (uid %lu): only your own uploads can be installed",
				       (unsigned long)f->upload_uid, (unsigned long)f->asker_uid);
	return true;
}

static bool upload_readable(const struct install_facts *f, struct decision *d)
{
	if (!f->upload_readable)
		return decision_refuse(d, "the passed file was not opened for reading");
	return true;
}

static bool upload_size(const struct install_facts *f, struct decision *d)
{
	if (f->upload_size > f->max_compressed)
		return decision_refuse(d,
				       "the upload is %lld bytes, more than the limit of %llu",
				       (long long)f->upload_size, (unsigned long long)f->max_compressed);
	return true;
}

/* Required but missing: say which file names would do. */
static bool signature_present(const struct install_facts *f, struct decision *d)
{
	if (f->signature_sent || !f->signature_required)
		return true;
	return decision_refuse(d,
			       "module %s requires an OpenPGP signature: put %s.asc (gpg --armor --detach-sign %s) or %s next to it and run install-module again",
			       f->module, f->file, f->file,
			       f->tar_sign_name ? f->tar_sign_name : "<module>-<version>.tar.sign");
}

/* A release is never overwritten, nor brought back under another spelling. */
static bool not_already_released(const struct install_facts *f, struct decision *d)
{
	if (f->released_version == NULL || f->force)
		return true;
	if (strcmp(f->released_version, f->version) == 0)
		return decision_refuse(d,
				       "version %s of %s is already released as %s/%s (use a new version number)",
				       f->version, f->module, f->released_dir, f->released_name);
	return decision_refuse(d,
			       "version %s of %s is already released as %s/%s, the same version spelled differently (use a new version number)",
			       f->version, f->module, f->released_dir, f->released_name);
}

/*
 * A version no longer in the tree but in the ledger was withdrawn: mirrors
 * and users may already have its bytes, so it may come back only as those
 * same bytes, unless the release team forces it.
 */
static bool withdrawn_same_bytes(const struct install_facts *f, struct decision *d)
{
	if (f->force || f->earlier_sha256 == NULL || strcmp(f->earlier_sha256, f->sha256) == 0)
		return true;
	return decision_refuse(d,
			       "version %s of %s was released before as %s (sha256 %s) and withdrawn; mirrors may still have it, so it may come back only with the same bytes: upload that file again, or use a new version number (the release team can override this with --force)",
			       f->version, f->module, f->earlier_file, f->earlier_sha256);
}

static const struct install_rule rules[] = {
	{ INSTALL_STAGE_REQUEST, "release_name", release_name },
	{ INSTALL_STAGE_REQUEST, "policy_allows", policy_allows },
	{ INSTALL_STAGE_REQUEST, "force_is_release_team", force_is_release_team },
	{ INSTALL_STAGE_REQUEST, "version_dir", version_dir },
	{ INSTALL_STAGE_UPLOAD, "upload_passed", upload_passed },
	{ INSTALL_STAGE_UPLOAD, "upload_inspected", upload_inspected },
	{ INSTALL_STAGE_UPLOAD, "upload_regular", upload_regular },
	{ INSTALL_STAGE_UPLOAD, "upload_owner", upload_owner },
	{ INSTALL_STAGE_UPLOAD, "upload_readable", upload_readable },
	{ INSTALL_STAGE_UPLOAD, "upload_size", upload_size },
	{ INSTALL_STAGE_UPLOAD, "signature_present", signature_present },
	{ INSTALL_STAGE_TREE, "not_already_released", not_already_released },
	{ INSTALL_STAGE_LEDGER, "withdrawn_same_bytes", withdrawn_same_bytes },
};

bool install_rules_check(enum install_stage stage, const struct install_facts *f,
			 struct decision *d)
{
	size_t i;

	decision_allow(d);
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].stage == stage && !rules[i].allows(f, d)) {
			d->rule = rules[i].name;
			return false;
		}
	return true;
}
