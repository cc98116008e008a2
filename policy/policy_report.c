/* What postern-policy check, explain and modules print; it decides nothing itself. */
#include "policy_report.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "keyring.h"
#include "text.h"

/* One (user, module) pair: sorted by user, it gives the distinct users. */
struct pair {
	const char *user;
	const char *module;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int d = strcmp(x->user, y->user);

	return d != 0 ? d : strcmp(x->module, y->module);
}

/* Each maintainer with each module; with signed_only, only the modules that
 * require a signature. */
static struct pair *maintainer_pairs(const struct policy *p, bool signed_only, size_t *n)
{
	size_t i, j, count = 0;
	struct pair *v;

	for (i = 0; i < policy_module_count(p); i++)
		for (j = 0; policy_module_at(p, i)->maintainers[j] != NULL; j++)
			count++;
	v = calloc(count + 1, sizeof(*v));
	if (v == NULL)
		return NULL;
	*n = 0;
	for (i = 0; i < policy_module_count(p); i++) {
		const struct policy_module *m = policy_module_at(p, i);
		if (signed_only && !policy_signature_required(p, m->name))
			continue;
		for (j = 0; m->maintainers[j] != NULL; j++)
			v[(*n)++] = (struct pair){ m->maintainers[j], m->name };
	}
	qsort(v, *n, sizeof(*v), cmp_pair);
	return v;
}

static size_t count_distinct(const struct pair *v, size_t n)
{
	size_t i, distinct = n > 0;

	for (i = 1; i < n; i++)
		distinct += strcmp(v[i - 1].user, v[i].user) != 0;
	return distinct;
}

/* Warn about maintainers the system does not know, naming their modules. */
static unsigned warn_unknown_users(FILE *out, const struct pair *v, size_t n)
{
	unsigned warnings = 0;
	size_t i = 0, j, k;

	while (i < n) {
		for (j = i; j < n && strcmp(v[j].user, v[i].user) == 0; j++)
			;
		if (getpwnam(v[i].user) == NULL) {
			fprintf(out, "warning: user %s does not exist on this system (maintainer of ",
				v[i].user);
			for (k = i; k < j; k++)
				fprintf(out, "%s%s", k > i ? ", " : "", v[k].module);
			fputs(")\n", out);
			warnings++;
		}
		i = j;
	}
	return warnings;
}

static unsigned print_release_team(FILE *out, const struct policy_settings *s)
{
	const char *const *u;
	unsigned warnings = 0;

	fputs("release team:", out);
	if (s->release_team_users == NULL && s->release_team_group == NULL)
		fputs(" none (nobody may create new modules)", out);
	for (u = s->release_team_users; u != NULL && *u != NULL; u++)
		fprintf(out, " %s", *u);
	if (s->release_team_group != NULL)
		fprintf(out, "%sgroup %s", s->release_team_users ? "; " : " ",
			s->release_team_group);
	fputc('\n', out);
	for (u = s->release_team_users; u != NULL && *u != NULL; u++) {
		if (getpwnam(*u) == NULL) {
			fprintf(out, "warning: release team user %s does not exist on this system\n", *u);
			warnings++;
		}
	}
	if (s->release_team_group != NULL && getgrnam(s->release_team_group) == NULL) {
		fprintf(out, "warning: release team group %s does not exist on this system\n",
			s->release_team_group);
		warnings++;
	}
	return warnings;
}

static const char *uploaders_text(enum policy_uploaders who)
{
	switch (who) {
	case POLICY_UPLOADERS_MAINTAINERS: return "maintainers of the module a file is named after";
	case POLICY_UPLOADERS_RELEASE_TEAM: return "the release team";
	case POLICY_UPLOADERS_GROUP: return "members of group";
	case POLICY_UPLOADERS_OPEN: return "anyone (open)";
	default: return "nobody";
	}
}

/* The sections beside sources/, and what would keep anyone from using one. */
static unsigned print_sections(FILE *out, const struct policy *p)
{
	const struct policy_settings *s = policy_settings(p);
	unsigned warnings = 0;
	size_t i, j;

	fputs("sections: sources (built in)", out);
	for (i = 0; i < policy_section_count(p); i++)
		fprintf(out, ", %s", policy_section_at(p, i)->name);
	fputs(policy_section_count(p) == 0 ? "\n"
	      : "; install-module does not upload into the others yet\n", out);
	for (i = 0; i < policy_section_count(p); i++) {
		const struct policy_section *sec = policy_section_at(p, i);
		fprintf(out, "section %s:", sec->name);
		for (j = 0; sec->files[j] != NULL; j++)
			fprintf(out, "%s%s", j ? ", " : " ", sec->files[j]);
		fprintf(out, "; uploaders: %s%s%s\n", uploaders_text(sec->uploaders),
			sec->group ? " " : "", sec->group ? sec->group : "");
		if (sec->uploaders == POLICY_UPLOADERS_RELEASE_TEAM &&
		    s->release_team_users == NULL && s->release_team_group == NULL) {
			fprintf(out, "warning: section %s: its uploaders are the release team, and there "
				"is none: nobody may upload into it (set release_team)\n", sec->name);
			warnings++;
		}
		if (sec->group != NULL && getgrnam(sec->group) == NULL) {
			fprintf(out, "warning: section %s: group %s does not exist on this system "
				"(create it, or fix the name)\n", sec->name, sec->group);
			warnings++;
		}
	}
	return warnings;
}

static void print_modules_summary(FILE *out, const struct policy *p, const char *config_name)
{
	size_t i, from_doap = 0, open = 0, overrides = 0;

	for (i = 0; i < policy_module_count(p); i++) {
		const struct policy_module *m = policy_module_at(p, i);
		if (strcmp(m->source, config_name) != 0)
			from_doap++;
		open += m->open;
		overrides += m->overrides_doap;
	}
	fprintf(out, "modules: %zu (%zu with maintainers from DOAP, %zu from %s; %zu open)\n",
		policy_module_count(p), from_doap, policy_module_count(p) - from_doap,
		config_name, open);
	fputs("open modules:", out);
	for (i = 0; i < policy_module_count(p); i++)
		if (policy_module_at(p, i)->open)
			fprintf(out, " %s", policy_module_at(p, i)->name);
	fputs(open == 0 ? " none\n" : "\n", out);
	fprintf(out, "explicit entries overriding DOAP: %zu\n", overrides);
	for (i = 0; i < policy_module_count(p); i++) {
		const struct policy_module *m = policy_module_at(p, i);
		size_t j;
		if (!m->overrides_doap)
			continue;
		fprintf(out, "  %s: maintainers from %s (", m->name, m->source);
		for (j = 0; m->maintainers[j] != NULL; j++)
			fprintf(out, "%s%s", j ? ", " : "", m->maintainers[j]);
		fprintf(out, "%s) replace those of %s.doap\n", m->open ? "; open" : "", m->name);
	}
}

/* The release team may release any module: it signs whatever requires it. */
#define ANY_MODULE "any module (release team)"
#define TEAM_MEMBERS_MAX 1000

/* Release team members by name: listed users, then the group's listed members
 * (copied into owned[TEAM_MEMBERS_MAX], which the caller frees). */
static size_t team_pairs(const struct policy_settings *s, struct pair *v, char **owned,
			 size_t max)
{
	const char *const *u;
	struct group *gr;
	size_t n = 0, i;

	for (u = s->release_team_users; u != NULL && *u != NULL && n < max; u++)
		v[n++] = (struct pair){ *u, ANY_MODULE };
	gr = s->release_team_group != NULL ? getgrnam(s->release_team_group) : NULL;
	for (i = 0; gr != NULL && gr->gr_mem[i] != NULL && i < TEAM_MEMBERS_MAX && n < max; i++) {
		owned[i] = strdup(gr->gr_mem[i]);
		if (owned[i] != NULL && name_is_user(owned[i]))
			v[n++] = (struct pair){ owned[i], ANY_MODULE };
	}
	return n;
}

static void print_fingerprints(FILE *out, const struct keyring_listing *k)
{
	size_t i;

	for (i = 0; i < k->count; i++)
		fprintf(out, "%s%s%s", i ? ", " : " ", k->cert[i].fpr,
			k->cert[i].validity == 'r' ? " (revoked)" :
			k->cert[i].validity == 'e' ? " (expired)" : "");
	fputs(k->more ? ", ...\n" : "\n", out);
}

static bool has_usable(const struct keyring_listing *k)
{
	size_t i;

	for (i = 0; i < k->count; i++)
		if (k->cert[i].validity == '-')
			return true;
	return false;
}

/* One uploader who must sign: the keyring's fingerprints, or a warning. */
static unsigned check_keyring(FILE *out, const char *dir, const struct pair *v, size_t n)
{
	struct keyring_listing k;
	struct pst_err e;
	char path[PATH_MAX];
	size_t i;
	int rc;

	snprintf(path, sizeof(path), "%s/%s.pgp", dir, v[0].user);
	rc = keyring_list(path, &k, &e);
	if (rc == -ENOENT) {
		fprintf(out, "warning: %s must sign releases of ", v[0].user);
		for (i = 0; i < n; i++)
			fprintf(out, "%s%s", i ? ", " : "", v[i].module);
		fprintf(out, " but has no keyring %s: add one (gpg --export FINGERPRINT > %s; "
			"chmod 0644 %s; chown root:root %s)\n", path, path, path, path);
		return 1;
	}
	if (rc < 0) {
		fprintf(out, "warning: keyring of %s: %s\n", v[0].user, e.msg);
		return 1;
	}
	fprintf(out, "keyring of %s: %s:", v[0].user, path);
	print_fingerprints(out, &k);
	if (has_usable(&k))
		return 0;
	fprintf(out, "warning: keyring of %s: %s holds no certificate that is neither revoked "
		"nor expired: %s cannot sign a release (export a current key into it)\n",
		v[0].user, path, v[0].user);
	return 1;
}

static void print_signed_modules(FILE *out, const struct policy *p)
{
	const struct policy_settings *s = policy_settings(p);
	size_t i, count = 0;

	if (s->signature_require) {
		fprintf(out, "signatures: required for every release (signatures.require); "
			"keyrings in %s\n", s->signature_keyrings);
		return;
	}
	fputs("signatures: required for", out);
	for (i = 0; i < policy_module_count(p); i++) {
		const struct policy_module *m = policy_module_at(p, i);
		if (m->signature == POLICY_SIGNATURE_REQUIRED)
			fprintf(out, "%s %s", count++ ? "," : "", m->name);
	}
	fprintf(out, "%s; keyrings in %s\n", count == 0 ? " no module" : "", s->signature_keyrings);
}

static bool any_signature_required(const struct policy *p)
{
	size_t i;

	for (i = 0; i < policy_module_count(p); i++)
		if (policy_signature_required(p, policy_module_at(p, i)->name))
			return true;
	return policy_settings(p)->signature_require;
}

/* Open modules that require a signature: every uploader needs a keyring. */
static void print_open_signed(FILE *out, const struct policy *p)
{
	size_t i;

	for (i = 0; i < policy_module_count(p); i++) {
		const struct policy_module *m = policy_module_at(p, i);
		if (m->open && policy_signature_required(p, m->name))
			fprintf(out, "open module %s requires signatures: every uploader needs a "
				"keyring %s/USER.pgp\n", m->name, policy_settings(p)->signature_keyrings);
	}
}

/*
 * The signatures part of check: which releases need a signature, and for each
 * uploader who may make one, the keyring's fingerprints or what is wrong.
 */
static unsigned report_signatures(FILE *out, const struct policy *p)
{
	const struct policy_settings *s = policy_settings(p);
	char *owned[TEAM_MEMBERS_MAX] = { 0 };
	size_t n = 0, i, j;
	struct pair *v, *grown;
	unsigned warnings = 0;

	print_signed_modules(out, p);
	if (!any_signature_required(p))
		return 0;
	print_open_signed(out, p);
	v = maintainer_pairs(p, true, &n);
	grown = v == NULL ? NULL : realloc(v, (n + 2 * TEAM_MEMBERS_MAX) * sizeof(*v));
	if (grown == NULL) {
		free(v);
		fputs("warning: out of memory, keyrings not checked\n", out);
		return 1;
	}
	v = grown;
	n += team_pairs(s, v + n, owned, 2 * TEAM_MEMBERS_MAX);
	qsort(v, n, sizeof(*v), cmp_pair);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && strcmp(v[j].user, v[i].user) == 0; j++)
			;
		warnings += check_keyring(out, s->signature_keyrings, v + i, j - i);
	}
	for (i = 0; i < TEAM_MEMBERS_MAX; i++)
		free(owned[i]);
	free(v);
	return warnings;
}

/* Whether a release of module needs a signature, and which setting says so. */
static void explain_signature(FILE *out, const struct policy *p, const char *module)
{
	const struct policy_module *m = policy_module_find(p, module);
	enum policy_signature own = m != NULL ? m->signature : POLICY_SIGNATURE_UNSET;

	if (!name_is_module(module))
		return;
	if (policy_settings(p)->signature_require)
		fputs("signature: required (signatures.require: true, for every module)\n", out);
	else if (own == POLICY_SIGNATURE_REQUIRED)
		fprintf(out, "signature: required (module %s: signature: required)\n", module);
	else
		fprintf(out, "signature: not required (%s); a signature that comes with the upload "
			"is checked all the same\n",
			own == POLICY_SIGNATURE_OPTIONAL ? "the module says signature: optional"
			: "neither signatures.require nor the module asks for one");
}

unsigned report_check(FILE *out, const struct policy *p, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct pair *pairs;
	unsigned warnings;
	size_t n = 0;

	pairs = maintainer_pairs(p, false, &n);
	if (pairs == NULL) {
		fputs("warning: out of memory, users not checked\n", out);
		return 1;
	}
	fprintf(out, "%s: valid\n", path);
	print_modules_summary(out, p, slash ? slash + 1 : path);
	fprintf(out, "maintainers: %zu distinct users\n", count_distinct(pairs, n));
	warnings = print_release_team(out, policy_settings(p));
	warnings += print_sections(out, p);
	warnings += warn_unknown_users(out, pairs, n);
	free(pairs);
	return warnings + report_signatures(out, p);
}

enum policy_basis report_explain(FILE *out, const struct policy *p, const char *user,
				 enum policy_action action, const char *module)
{
	char why[1024];
	enum policy_basis b = policy_may(p, user, action, module, why, sizeof(why));

	fprintf(out, "%s: %s\n", b == POLICY_DENY ? "refused" : "allowed", why);
	if (action == POLICY_INSTALL)
		explain_signature(out, p, module);
	return b;
}

bool is_ci_identity(const char *who)
{
	return strncmp(who, "ci:", 3) == 0;
}

/* The module's ci list, "issuer/project, ...", or "none". */
static void ci_list(const struct policy_module *m, char *out, size_t size)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; m != NULL && i < m->nci && len < size; i++) {
		int n = snprintf(out + len, size - len, "%s%s/%s", i ? ", " : "", m->ci[i].issuer,
				 m->ci[i].project);
		if (n < 0)
			break;
		len += (size_t)n;
	}
	if (out[0] == '\0')
		snprintf(out, size, "none");
}

bool report_explain_ci(FILE *out, const struct policy *p, const char *who,
		       enum policy_action action, const char *module)
{
	char issuer[64], list[1024];
	const char *slash = strchr(who + 3, '/');
	const char *project = slash ? slash + 1 : "";
	size_t ilen = slash ? (size_t)(slash - (who + 3)) : 0;
	bool ok;

	if (ilen == 0 || ilen >= sizeof(issuer) || project[0] == '\0') {
		fprintf(out, "refused: %s is not a CI identity (write ci:ISSUER/PROJECT, e.g. "
			"ci:gitlab/GNOME/gtk)\n", who);
		return false;
	}
	memcpy(issuer, who + 3, ilen);
	issuer[ilen] = '\0';
	if (action == POLICY_DELETE) {
		fprintf(out, "refused: CI jobs only release; deleting is for the module's "
			"maintainers (delete-own)\n");
		return false;
	}
	ok = policy_ci_may(p, issuer, project, module);
	ci_list(policy_module_find(p, module), list, sizeof(list));
	if (ok)
		fprintf(out, "allowed: CI jobs of %s with tokens from issuer %s may release %s "
			"(modules.%s.ci), from a protected tag named after the version\n", project,
			issuer, module, module);
	else if (policy_ci_issuer_find(p, issuer) == NULL)
		fprintf(out, "refused: %s is not under ci.issuers\n", issuer);
	else
		fprintf(out, "refused: %s (issuer %s) may not release %s: its CI identities are %s\n",
			project, issuer, module, list);
	if (ok)
		explain_signature(out, p, module);
	return ok;
}

size_t report_modules(FILE *out, const struct policy *p, const char *user)
{
	char why[1024];
	size_t i, count = 0;

	for (i = 0; i < policy_module_count(p); i++) {
		const char *name = policy_module_at(p, i)->name;
		if (policy_may(p, user, POLICY_INSTALL, name, why, sizeof(why)) == POLICY_DENY)
			continue;
		fprintf(out, "%s\t%s\n", name, why);
		count++;
	}
	if (policy_is_release_team(p, user)) {
		fprintf(out, "(new modules)\t%s is in the release team, which may create new modules\n",
			user);
		count++;
	}
	return count;
}
